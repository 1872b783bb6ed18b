/*
 * model.h - every versioned document gpuaudit writes, in one registry.
 *
 * A model is a schema table (schema.h) for a top-level struct whose first
 * field is `char *schema`, plus the document's id ("gpuaudit.<name>/v1").
 * The same table writes the document, reads it back and frees it, so every
 * `--json` output can be given back with `--from`. `docs/schema.md` lists the
 * models and their fields; the test schema-roundtrip writes, reads and writes
 * a recorded example of each and compares the two writes.
 */
#ifndef GPUAUDIT_MODEL_H
#define GPUAUDIT_MODEL_H

#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_model {
	const char *id;                 /* "gpuaudit.node/v1" */
	const struct ga_schema *schema; /* top-level struct; its first field is "schema" */
	const char *what;               /* one line: what the document is, who writes it */
};

/* The registry, in docs/schema.md's order; NULL-id terminated. */
extern const struct ga_model ga_models[];
const struct ga_model *ga_model_find(const char *id);
/* The "schema" member of a JSON document, looked up: 0, or -EBADMSG/-ENOENT with a message. */
int ga_model_detect(struct ga_ctx *ctx, const char *text, size_t len, const struct ga_model **ret);
/*
 * Read a document of model m into obj (zeroed, m->schema->size bytes): the
 * "schema" member must be m's id. 0 or -errno with the message in ctx; on
 * error obj holds what was read so far (release it with ga_model_release).
 */
int ga_model_read(struct ga_ctx *ctx, const struct ga_model *m, const char *text, size_t len, void *obj);
/* Write obj as m's document (pretty: two-space indent and a final newline). */
int ga_model_write(const struct ga_model *m, const void *obj, struct ga_buf *out, bool pretty);
void ga_model_release(const struct ga_model *m, void *obj);

/* `version --json` (lib/model/version.c): this build's name and version. */
#define GA_VERSION_SCHEMA "gpuaudit.version/v1"
struct ga_version_doc {
	char *schema;
	char *name;
	char *version;
};
extern const struct ga_schema ga_version_doc_schema;
int ga_version_write_json(struct ga_buf *out);

#ifdef __cplusplus
}
#endif
#endif
