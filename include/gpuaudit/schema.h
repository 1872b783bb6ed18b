/*
 * schema.h - field descriptors that drive JSON writing, JSON reading and
 * freeing of the plain-data model structs.
 *
 * Every model struct has one table of fields; one generic walker serialises
 * it, parses it back (through jansson) and releases it. Adding a field is one
 * line in the table, and the writer, reader and destructor cannot disagree.
 * Optional scalars carry a presence bit: absent is written as null, never 0,
 * or, for a field flagged GA_FF_OMIT, left out of the object.
 */
#ifndef GPUAUDIT_SCHEMA_H
#define GPUAUDIT_SCHEMA_H

#include "gpuaudit/json.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_ou64 {
	uint64_t v;
	bool set;
};
struct ga_oi64 {
	int64_t v;
	bool set;
};
struct ga_odbl {
	double v;
	bool set;
};
struct ga_obool {
	bool v;
	bool set;
};
/*
 * A list of numbers (GA_F_DBLV); NaN is written as null and read back as NaN.
 * v == NULL is absent (GA_FF_OMIT); an empty list read has v non-NULL.
 */
struct ga_dblv {
	double *v;
	size_t n;
};
/* A list of unsigned integers (GA_F_U64V); v == NULL is absent (null, or left out with GA_FF_OMIT). */
struct ga_u64v {
	uint64_t *v;
	size_t n;
};
/* struct ga_strv, a list of strings (GA_F_STRV), is core's (core.h). */

enum ga_ftype {
	GA_F_STR,   /* char *, NULL = absent */
	GA_F_U64,   /* struct ga_ou64 */
	GA_F_I64,   /* struct ga_oi64 */
	GA_F_DBL,   /* struct ga_odbl */
	GA_F_BOOL,  /* struct ga_obool */
	GA_F_STRV,  /* struct ga_strv */
	GA_F_OBJ,   /* embedded struct described by sub */
	GA_F_ARR,   /* pointer to array of sub structs, count at count_off (size_t) */
	GA_F_PTR,   /* pointer to one sub struct, NULL = absent (null) */
	GA_F_ENUM,  /* int (an enum), written as names[value]; always present */
	GA_F_KV,    /* pointer to array of struct ga_kv, count at count_off: a JSON object of strings */
	GA_F_NUM,   /* struct ga_odbl rounded to 1/scale on write; integral values as integers */
	GA_F_CHARS, /* char[count_off] inside the struct; "" is written as null */
	GA_F_OBJN, /* embedded struct described by sub, null when its bool at sub offset count_off is false */
	GA_F_MKV,  /* like GA_F_KV, but a key repeated is one member whose value is the array of its values */
	GA_F_JSON, /* char * holding compact JSON text, written as that JSON value; NULL = null */
	GA_F_DBLV, /* struct ga_dblv: an array of numbers, each written as ga_json_dbl writes it */
	/*
	 * Embedded struct described by sub whose members are written inline, in
	 * this object (no key of its own), when its bool at sub offset count_off is
	 * true, and left out otherwise; read (and the bool set) when the object has
	 * any of sub's members. The members of one struct's groups must not share a
	 * name. For documents whose members depend on a kind (gpuaudit.bench/v1).
	 */
	GA_F_GROUP,
	GA_F_U64V, /* struct ga_u64v: an array of unsigned integers (each <= INT64_MAX) */
};

/* Field flags (struct ga_field.flags). */
enum {
	/*
	 * Absent: the member is left out of the object instead of written as null.
	 * Absent is NULL (STR, PTR), a clear presence bit (scalars, OBJN), "" (CHARS)
	 * no element (STRV, ARR, KV, MKV) or v == NULL (DBLV: [] is kept); OBJ and
	 * ENUM are never absent.
	 */
	GA_FF_OMIT = 1u << 0,
	/* GA_F_ARR: each element is written as an array of its fields' values in order, no keys. */
	GA_FF_TUPLE = 1u << 1,
	/* GA_F_ARR: read up to GA_SCHEMA_MAX_LARGE elements instead of GA_SCHEMA_MAX_ITEMS. */
	GA_FF_LARGE = 1u << 2,
	/* GA_F_STR: a finding code; reading it also stores its enum ga_code (ga_code_parse) in the int
	 * at count_off, so a finding read back has the same id as one raised (GA_FIELD_CODE). */
	GA_FF_CODE = 1u << 3,
};
/* Most elements read into one array, object or string list (a bound on what a reader allocates). */
#define GA_SCHEMA_MAX_ITEMS 100000
/* Most elements of a DBLV, a TUPLE array or a GA_FF_LARGE array (benchmark samples). */
#define GA_SCHEMA_MAX_LARGE 20000000

/* One member of a GA_F_KV object (struct ga_evidence has the same layout). */
struct ga_kv {
	char *key;
	char *value;
};

struct ga_schema;

struct ga_field {
	const char *name;
	enum ga_ftype type;
	size_t off;
	const struct ga_schema *sub;
	size_t count_off;
	const char *const *names; /* GA_F_ENUM: the value's name, indexed by value */
	size_t nnames;
	double scale;   /* GA_F_NUM: written rounded to a multiple of 1/scale (0: not rounded) */
	unsigned flags; /* GA_FF_* */
};

struct ga_schema {
	const char *name;
	size_t size;
	const struct ga_field *fields;
	size_t nfields;
};

// clang-format off
#define GA_FIELD(st, member, t) {#member, t, offsetof(st, member), NULL, 0}
#define GA_FIELD_CODE(st, member, idm) \
	{#member, GA_F_STR, offsetof(st, member), NULL, offsetof(st, idm), NULL, 0, 0, GA_FF_CODE}
#define GA_FIELD_OBJ(st, member, s) {#member, GA_F_OBJ, offsetof(st, member), &(s), 0}
#define GA_FIELD_PTR(st, member, s) {#member, GA_F_PTR, offsetof(st, member), &(s), 0}
#define GA_FIELD_ARR(st, member, s) \
	{#member, GA_F_ARR, offsetof(st, member), &(s), offsetof(st, n_##member)}
#define GA_FIELD_ENUM(st, member, tbl) \
	{#member, GA_F_ENUM, offsetof(st, member), NULL, 0, (tbl), sizeof(tbl) / sizeof((tbl)[0])}
#define GA_FIELD_KV(st, member) \
	{#member, GA_F_KV, offsetof(st, member), NULL, offsetof(st, n_##member)}
#define GA_FIELD_MKV(st, member) \
	{#member, GA_F_MKV, offsetof(st, member), NULL, offsetof(st, n_##member)}
/* An array kept as {v, n} (struct ga_findings and its kind), written as the JSON array member. */
#define GA_FIELD_VEC(st, member, s) \
	{#member, GA_F_ARR, offsetof(st, member.v), &(s), offsetof(st, member.n)}
/* A double written compactly: rounded to 1/scale, 100.0 as 100 (gpuaudit.sample/v1). */
#define GA_FIELD_NUM(st, member, sc) {#member, GA_F_NUM, offsetof(st, member), NULL, 0, NULL, 0, (sc)}
/* A fixed char array member: NUL-terminated, "" written as null; longer strings are refused. */
#define GA_FIELD_CHARS(st, member) \
	{#member, GA_F_CHARS, offsetof(st, member), NULL, sizeof(((st *)0)->member)}
/* An embedded struct that is null when the presence bit at sub's offset boff is false. */
#define GA_FIELD_OBJN(st, member, s, boff) {#member, GA_F_OBJN, offsetof(st, member), &(s), (boff)}
#define GA_FIELD_JSON(st, member) {#member, GA_F_JSON, offsetof(st, member), NULL, 0}
/* Any of the plain types (STR, U64, I64, DBL, BOOL, STRV, DBLV) with GA_FF_* flags. */
#define GA_FIELD_FL(st, member, t, fl) {#member, t, offsetof(st, member), NULL, 0, NULL, 0, 0, (fl)}
/* A plain field left out when absent (GA_FF_OMIT). */
#define GA_FIELD_OMIT(st, member, t) GA_FIELD_FL(st, member, t, GA_FF_OMIT)
#define GA_FIELD_PTR_OMIT(st, member, s) \
	{#member, GA_F_PTR, offsetof(st, member), &(s), 0, NULL, 0, 0, GA_FF_OMIT}
/* A struct ga_dblv member: [1.5, 2, null]. */
#define GA_FIELD_DBLV(st, member) GA_FIELD_FL(st, member, GA_F_DBLV, 0)
/* An array of sub structs written as arrays of their fields ([[1, 2], [3, 4]]), up to GA_SCHEMA_MAX_LARGE. */
#define GA_FIELD_TUPLES(st, member, s) \
	{#member, GA_F_ARR, offsetof(st, member), &(s), offsetof(st, n_##member), NULL, 0, 0, \
	 GA_FF_TUPLE | GA_FF_LARGE}
/* A struct ga_u64v member: [10, 21]. */
#define GA_FIELD_U64V(st, member) GA_FIELD_FL(st, member, GA_F_U64V, 0)
/* GA_FIELD_ARR with flags (GA_FF_OMIT, GA_FF_LARGE). */
#define GA_FIELD_ARR_FL(st, member, s, fl) \
	{#member, GA_F_ARR, offsetof(st, member), &(s), offsetof(st, n_##member), NULL, 0, 0, (fl)}
/* An inline group (GA_F_GROUP): written when the bool at sub's offset boff is true. */
#define GA_FIELD_GROUP(st, member, s, boff) {#member, GA_F_GROUP, offsetof(st, member), &(s), (boff)}
// clang-format on

/* Write obj as a JSON object (all fields, absent ones as null or, GA_FF_OMIT, left out). */
void ga_schema_write(struct ga_json *w, const struct ga_schema *s, const void *obj);
/* The members only, inside an object the caller opened (to append members of its own). */
void ga_schema_write_members(struct ga_json *w, const struct ga_schema *s, const void *obj);
/*
 * Fill obj (zeroed by the caller) from a jansson object. Unknown keys are
 * ignored (forward compatibility); a key of the wrong type is an error that
 * names the path, e.g. "pci[3].numa_node: expected integer".
 */
struct json_t;
int ga_schema_read(struct ga_ctx *ctx, const struct ga_schema *s, const struct json_t *in, void *obj);
/*
 * The fast path of json_loadb(text, JSON_REJECT_DUPLICATES) + ga_schema_read
 * (lib/model/schema_fast.c): an event parse straight into obj (zeroed by the
 * caller), no tree. It accepts only what the slow path accepts and fills obj
 * exactly as it would; on anything else (invalid JSON, a wrong type, and a few
 * valid but rare forms such as "\u" escapes) it leaves obj zeroed and returns
 * 1: take the slow path, which gives the error message. 0 (obj filled), 1, or
 * -ENOMEM. DBLV, TUPLE arrays and GROUP members always take the slow path.
 */
int ga_schema_read_fast(const struct ga_schema *s, const char *text, size_t len, void *obj);
/* Release everything obj owns (not obj itself). */
void ga_schema_release(const struct ga_schema *s, void *obj);

#define GA_SET(o, val)          \
	do {                    \
		(o).v = (val);  \
		(o).set = true; \
	} while (0)

#ifdef __cplusplus
}
#endif
#endif
