/*
 * errcodes.h - the error codes of the GPU runtimes and libraries, by name and
 * number, as their vendors' headers define them (lib/core/errcodes/FAMILY.def,
 * written by tools/gen-errcodes), each mapped to a group (groups.def, through
 * the hand-written rules of map.def) that says what is at fault and what to do.
 *
 * Lookups go through an index (a hash of every name and of every
 * "family#number"), never a scan of the tables.
 */
#ifndef GPUAUDIT_ERRCODES_H
#define GPUAUDIT_ERRCODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/strmap.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_errcode_family {
#define ECF(name, id, runtime, type, source, prefix, error_prefix) GA_ECF_##name,
#include "../../lib/core/errcodes/families.def"
#undef ECF
	GA_ECF__COUNT
};

enum ga_errcode_group {
#define EG(name, ...) GA_ECG_##name,
#include "../../lib/core/errcodes/groups.def"
#undef EG
	GA_ECG__COUNT /* also: no rule maps the code (the unit test fails on it) */
};

struct ga_errcode_family_info {
	const char *id;           /* "cudart": the table's file name */
	const char *runtime;      /* "CUDA runtime API" */
	const char *type;         /* "cudaError_t" */
	const char *source;       /* the header and version the table was generated from */
	const char *prefix;       /* what every name of the family starts with: "cuda" */
	const char *error_prefix; /* the prefix of its error names ("cudaError"): a token with it that
	                             is not in the table is an unknown code; NULL when none is specific */
};

struct ga_errcode_group_info {
	enum ga_cause cause_class; /* GA_CAUSE_UNKNOWN: names no cause (NOT_ERROR, UNSPECIFIED) */
	enum ga_action action;
	int weight;
	const char *id; /* "errcode-out-of-memory"; NULL without a cause */
	const char *summary, *cause, *fix, *next;
};

struct ga_errcode {
	const char *name;
	int64_t value;
	enum ga_errcode_family family;
};

size_t ga_errcode_count(void);
const struct ga_errcode *ga_errcode_get(size_t i); /* NULL out of range */
const struct ga_errcode_family_info *ga_errcode_family_get(enum ga_errcode_family f);
const struct ga_errcode_group_info *ga_errcode_group_get(enum ga_errcode_group g);
/* The group of code i by the rules of map.def; GA_ECG__COUNT when no rule maps it. */
enum ga_errcode_group ga_errcode_group_of(size_t i);
/* A code's key for map.def: the name without its family's prefix, lower case, no '_'. */
void ga_errcode_key(const struct ga_errcode *c, char *out, size_t cap);

/* The longest message string a lookup reads (the longest in the tables is shorter). */
#define GA_ERRCODE_MESSAGE_MAX 512 /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES's text is 385 bytes */

struct ga_errcode_index {
	struct ga_strmap map; /* name -> i, "family#value" -> i (the first code with that number) */
	uint8_t *group;       /* per code */
	struct ga_strmap msg; /* "family|message" -> i (the first code with that message) */
	const char **message; /* per code: the vendor's message string (FAMILY.str.def), or NULL */
	size_t msg_max;       /* the longest key text in msg */
};
int ga_errcode_index_init(struct ga_errcode_index *ix); /* 0 or -ENOMEM */
void ga_errcode_index_release(struct ga_errcode_index *ix);
/* The code named by the n bytes at name, or -1. */
long ga_errcode_lookup(const struct ga_errcode_index *ix, const char *name, size_t n);
/* The code of family f with that number, or -1. */
long ga_errcode_lookup_number(const struct ga_errcode_index *ix, enum ga_errcode_family f, int64_t v);
/* The vendor's message string of code i ("no kernel image is available for execution on the
 * device"), NULL when its table has none (docs/explain.md lists the tables that have them). */
const char *ga_errcode_message(const struct ga_errcode_index *ix, size_t i);
/* The code of family f whose message is exactly the n bytes at s, or -1. */
long ga_errcode_lookup_message(const struct ga_errcode_index *ix, enum ga_errcode_family f, const char *s,
                               size_t n);
/* The code of family f whose message starts the n bytes at s and ends at a word's end (the
 * longest such; "unhandled system error (run with ...), NCCL version 2.18.1"), or -1: one hash
 * lookup per word end of the first msg_max bytes, not a scan of the messages. */
long ga_errcode_find_message(const struct ga_errcode_index *ix, enum ga_errcode_family f, const char *s,
                             size_t n);
/* The family whose error prefix starts the n bytes at tok, or GA_ECF__COUNT. */
enum ga_errcode_family ga_errcode_error_prefix(const char *tok, size_t n);

#ifdef __cplusplus
}
#endif
#endif
