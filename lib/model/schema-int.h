/* schema-int.h - pieces of the schema walker kept in files of their own (lib/model only). */
#ifndef GA_SCHEMA_INT_H
#define GA_SCHEMA_INT_H

#include "gpuaudit/schema.h"

struct json_t;
/* GA_F_JSON: write the JSON value held as compact text (NULL, or text that does not parse: null). */
void ga_schema_json_write(struct ga_json *w, const char *text);
/* GA_F_JSON: a JSON value as compact text, keys in document order; NULL when out of memory. */
char *ga_schema_json_read(const struct json_t *v);

#endif
