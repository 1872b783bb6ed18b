/*
 * schema-json.c - GA_F_JSON, a member whose value is itself a JSON document
 * kept as compact text (the node class's canonical hardware and stack JSON,
 * which are hashed as bytes and so are not structs). Written through the JSON
 * writer as the value it holds, so it indents with the rest of the document;
 * read back as compact text with its keys in document order.
 */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "../core/internal.h"
#include "schema-int.h"

static void emit(struct ga_json *w, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *x;
		ga_json_obj_begin(w);
		json_object_foreach((json_t *)v, k, x)
		{
			ga_json_key(w, k);
			emit(w, x);
		}
		ga_json_obj_end(w);
		return;
	}
	case JSON_ARRAY:
		ga_json_arr_begin(w);
		for (size_t i = 0; i < json_array_size(v); i++)
			emit(w, json_array_get(v, i));
		ga_json_arr_end(w);
		return;
	case JSON_STRING:
		ga_json_strn(w, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER:
		ga_json_i64(w, (int64_t)json_integer_value(v));
		return;
	case JSON_REAL:
		ga_json_dbl(w, json_real_value(v));
		return;
	case JSON_TRUE:
	case JSON_FALSE:
		ga_json_bool(w, json_is_true(v));
		return;
	case JSON_NULL:
		ga_json_null(w);
		return;
	}
}

void ga_schema_json_write(struct ga_json *w, const char *text)
{
	json_t *v = NULL;
	int r = text ? ga_json_parse(NULL, text, strlen(text), JSON_DECODE_ANY, &v, NULL) : 0;
	if (r == -ENOMEM && !w->err)
		w->err = r;
	if (v)
		emit(w, v);
	else
		ga_json_null(w);
	json_decref(v);
}

char *ga_schema_json_read(const struct json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!s)
		return NULL;
	json_malloc_t jmalloc;
	json_free_t jfree;
	json_get_alloc_funcs(&jmalloc, &jfree);
	char *r = ga_strdup(s);
	jfree(s);
	return r;
}
