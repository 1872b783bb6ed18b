/*
 * toml.h - a small, strict TOML 1.0 reader (lib/core/toml.c) for the
 * container runtimes' configuration files: containerd's config.toml, CRI-O's
 * crio.conf and the NVIDIA container toolkit's config.toml. Debian 12 has no
 * C TOML library (docs/dependencies.md says why this one exists).
 *
 * The document becomes a jansson tree: tables are objects, arrays arrays,
 * strings strings, integers integers, floats reals, booleans booleans; the
 * callers query it the way they query Docker's daemon.json. Offset dates and
 * times, inf and nan have no JSON form and are refused with a message.
 * Everything TOML 1.0 forbids (a key or table defined twice, an inline table
 * extended, a bad escape, invalid UTF-8, a control character) is an error
 * "NAME:LINE:COL: what", LINE and COL counted from 1 (COL in bytes).
 */
#ifndef GPUAUDIT_TOML_H
#define GPUAUDIT_TOML_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest document read, and the deepest nesting of arrays, inline tables and key parts. */
#define GA_TOML_MAX_BYTES (4u << 20)
#define GA_TOML_MAX_DEPTH 64
/*
 * Most keys and tables in one document (a containerd or CRI-O config has a few hundred):
 * jansson's objects grow slower than linearly (100,000 members took 0.2-0.4 s on the build VM),
 * and a hostile 4 MiB file must not cost seconds.
 */
#define GA_TOML_MAX_KEYS 16384
/* Most array elements in one document (each is a jansson value of its own). */
#define GA_TOML_MAX_VALUES 65536

/*
 * Parse text[0..len) into *ret (a JSON object; json_decref it). name is used
 * in messages only. 0, -EBADMSG (the message in ctx when ctx is not NULL;
 * also in errbuf when errbuf is not NULL), -EFBIG over GA_TOML_MAX_BYTES,
 * -ENOMEM. *ret is untouched on failure.
 */
struct json_t;
int ga_toml_parse(struct ga_ctx *ctx, const char *name, const char *text, size_t len, struct json_t **ret,
                  char *errbuf, size_t errbuf_len);

#ifdef __cplusplus
}
#endif
#endif
