/*
 * json.h - a strict JSON writer that cannot emit invalid JSON.
 *
 * Strings are escaped byte-wise (every byte < 0x20 as \u00XX, '"', '\\' and
 * DEL); invalid UTF-8 is replaced by U+FFFD so the output always parses.
 * NaN and infinities are written as null. Nesting is tracked: a key outside
 * an object, a bare value inside an object, unbalanced ends or depth beyond
 * GA_JSON_MAX_DEPTH put the writer in a sticky error state, reported by
 * ga_json_finish.
 */
#ifndef GPUAUDIT_JSON_H
#define GPUAUDIT_JSON_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_JSON_MAX_DEPTH 64

struct ga_json {
	struct ga_buf *out;
	int depth;
	int err;                               /* first error, sticky */
	bool pretty;                           /* two-space indentation, one member per line */
	bool want_key;                         /* inside an object and the next token must be a key */
	bool have_key;                         /* a key was written, a value must follow */
	bool done;                             /* a top-level value was completed */
	unsigned char kind[GA_JSON_MAX_DEPTH]; /* 'o' or 'a' */
	unsigned count[GA_JSON_MAX_DEPTH];     /* members written at each level */
};

void ga_json_init(struct ga_json *w, struct ga_buf *out, bool pretty);
void ga_json_obj_begin(struct ga_json *w);
void ga_json_obj_end(struct ga_json *w);
void ga_json_arr_begin(struct ga_json *w);
void ga_json_arr_end(struct ga_json *w);
void ga_json_key(struct ga_json *w, const char *key);
void ga_json_str(struct ga_json *w, const char *s); /* NULL writes null */
void ga_json_strn(struct ga_json *w, const char *s, size_t n);
void ga_json_u64(struct ga_json *w, uint64_t v);
void ga_json_i64(struct ga_json *w, int64_t v);
void ga_json_dbl(struct ga_json *w, double v);
void ga_json_bool(struct ga_json *w, bool v);
void ga_json_null(struct ga_json *w);
/*
 * 0 when one complete, balanced value was written (pretty output gets a final
 * newline, compact output none); else -EINVAL/-ENOMEM/-E2BIG.
 */
int ga_json_finish(struct ga_json *w);

/*
 * The one way JSON text is parsed (lib/core/json-parse.c), for the library
 * and the CLI alike: jansson's tree into *ret (json_decref it), with out of
 * memory as -ENOMEM and bad input as -EBADMSG (the message in ctx when ctx is
 * not NULL; jansson's position in *jerr when jerr is not NULL).
 */
struct json_t;
struct json_error_t;
int ga_json_parse(struct ga_ctx *ctx, const char *text, size_t len, size_t flags, struct json_t **ret,
                  struct json_error_t *jerr);

#ifdef __cplusplus
}
#endif
#endif
