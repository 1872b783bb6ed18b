/*
 * schema.c - the generic walker behind every model struct's JSON writer,
 * JSON reader and destructor (see schema.h).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/codes.h"
#include "gpuaudit/schema.h"
#include "schema-int.h"

#define AT(obj, off, type) ((type *)((char *)(obj) + (off)))
#define CAT(obj, off, type) ((const type *)((const char *)(obj) + (off)))

/* Round to a multiple of 1/scale (no libm: the CLI does not link it). */
static double round_to(double v, double scale)
{
	if (!(scale > 0) || !isfinite(v) || v > 1e15 || v < -1e15)
		return v;
	double x = v * scale;
	long long k = (long long)(x >= 0 ? x + 0.5 : x - 0.5);
	return (double)k / scale;
}

/* GA_F_NUM: integral values as integers (ga_json_dbl would write 1e+02). */
static void write_num(struct ga_json *w, const struct ga_odbl *o, double scale)
{
	if (!o->set) {
		ga_json_null(w);
		return;
	}
	double v = round_to(o->v, scale);
	if (isfinite(v) && v < 1e15 && v > -1e15 && v == (double)(long long)v)
		ga_json_i64(w, (long long)v);
	else
		ga_json_dbl(w, v);
}

/* GA_F_MKV: keys in first-seen order; a repeated key's values as one array. */
static void write_mkv(struct ga_json *w, const struct ga_kv *kv, size_t n)
{
	ga_json_obj_begin(w);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(kv[j].key, kv[i].key);
		if (seen)
			continue;
		size_t same = 0;
		for (size_t j = i; j < n; j++)
			same += !strcmp(kv[j].key, kv[i].key);
		ga_json_key(w, kv[i].key);
		if (same == 1) {
			ga_json_str(w, kv[i].value);
			continue;
		}
		ga_json_arr_begin(w);
		for (size_t j = i; j < n; j++)
			if (!strcmp(kv[j].key, kv[i].key))
				ga_json_str(w, kv[j].value);
		ga_json_arr_end(w);
	}
	ga_json_obj_end(w);
}

void ga_schema_write(struct ga_json *w, const struct ga_schema *s, const void *obj)
{
	ga_json_obj_begin(w);
	ga_schema_write_members(w, s, obj);
	ga_json_obj_end(w);
}

/* GA_FF_OMIT: whether the field holds nothing (schema.h says what absent is per type). */
static bool absent(const struct ga_field *f, const void *obj)
{
	switch (f->type) {
	case GA_F_STR:
	case GA_F_JSON:
	case GA_F_PTR:
		return !*CAT(obj, f->off, char *);
	case GA_F_U64:
		return !CAT(obj, f->off, struct ga_ou64)->set;
	case GA_F_I64:
		return !CAT(obj, f->off, struct ga_oi64)->set;
	case GA_F_DBL:
	case GA_F_NUM:
		return !CAT(obj, f->off, struct ga_odbl)->set;
	case GA_F_BOOL:
		return !CAT(obj, f->off, struct ga_obool)->set;
	case GA_F_OBJN:
	case GA_F_GROUP:
		return !*CAT(obj, f->off + f->count_off, bool);
	case GA_F_CHARS:
		return !*CAT(obj, f->off, char);
	case GA_F_STRV:
		return !CAT(obj, f->off, struct ga_strv)->n;
	case GA_F_DBLV:
		return !CAT(obj, f->off, struct ga_dblv)->v;
	case GA_F_U64V:
		return !CAT(obj, f->off, struct ga_u64v)->v;
	case GA_F_ARR:
	case GA_F_KV:
	case GA_F_MKV:
		return !*CAT(obj, f->count_off, size_t);
	case GA_F_OBJ:
	case GA_F_ENUM:
		break;
	}
	return false;
}

static void write_value(struct ga_json *w, const struct ga_field *f, const void *obj);

/* GA_FF_TUPLE: one element as the array of its fields' values. */
static void write_tuple(struct ga_json *w, const struct ga_schema *s, const void *obj)
{
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->nfields; i++)
		write_value(w, &s->fields[i], obj);
	ga_json_arr_end(w);
}

void ga_schema_write_members(struct ga_json *w, const struct ga_schema *s, const void *obj)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const struct ga_field *f = &s->fields[i];
		if (f->type == GA_F_GROUP) {
			if (!absent(f, obj))
				ga_schema_write_members(w, f->sub, CAT(obj, f->off, char));
			continue;
		}
		if ((f->flags & GA_FF_OMIT) && absent(f, obj))
			continue;
		ga_json_key(w, f->name);
		write_value(w, f, obj);
	}
}

/* The optional scalars: the value, or null without its presence bit. */
static void write_opt(struct ga_json *w, const struct ga_field *f, const void *obj)
{
	const char *p = CAT(obj, f->off, char);
	switch (f->type) {
	case GA_F_U64: {
		const struct ga_ou64 *o = (const struct ga_ou64 *)p;
		if (o->set)
			ga_json_u64(w, o->v);
		else
			ga_json_null(w);
		break;
	}
	case GA_F_I64: {
		const struct ga_oi64 *o = (const struct ga_oi64 *)p;
		if (o->set)
			ga_json_i64(w, o->v);
		else
			ga_json_null(w);
		break;
	}
	case GA_F_DBL: {
		const struct ga_odbl *o = (const struct ga_odbl *)p;
		if (o->set)
			ga_json_dbl(w, o->v);
		else
			ga_json_null(w);
		break;
	}
	default: {
		const struct ga_obool *o = (const struct ga_obool *)p;
		if (o->set)
			ga_json_bool(w, o->v);
		else
			ga_json_null(w);
		break;
	}
	}
}

/* The value of field f of obj (its key already written). */
static void write_value(struct ga_json *w, const struct ga_field *f, const void *obj)
{
	switch (f->type) {
	case GA_F_STR:
		ga_json_str(w, *CAT(obj, f->off, char *));
		break;
	case GA_F_U64:
	case GA_F_I64:
	case GA_F_DBL:
	case GA_F_BOOL:
		write_opt(w, f, obj);
		break;
	case GA_F_STRV: {
		const struct ga_strv *sv = CAT(obj, f->off, struct ga_strv);
		ga_json_arr_begin(w);
		for (size_t k = 0; k < sv->n; k++)
			ga_json_str(w, sv->v[k]);
		ga_json_arr_end(w);
		break;
	}
	case GA_F_OBJ:
		ga_schema_write(w, f->sub, CAT(obj, f->off, char));
		break;
	case GA_F_OBJN:
		if (*CAT(obj, f->off + f->count_off, bool))
			ga_schema_write(w, f->sub, CAT(obj, f->off, char));
		else
			ga_json_null(w);
		break;
	case GA_F_NUM:
		write_num(w, CAT(obj, f->off, struct ga_odbl), f->scale);
		break;
	case GA_F_MKV:
		write_mkv(w, *CAT(obj, f->off, struct ga_kv *), *CAT(obj, f->count_off, size_t));
		break;
	case GA_F_JSON:
		ga_schema_json_write(w, *CAT(obj, f->off, char *));
		break;
	case GA_F_CHARS: {
		const char *c = CAT(obj, f->off, char);
		ga_json_str(w, *c ? c : NULL);
		break;
	}
	case GA_F_PTR: {
		const char *p = *CAT(obj, f->off, char *);
		if (p)
			ga_schema_write(w, f->sub, p);
		else
			ga_json_null(w);
		break;
	}
	case GA_F_ENUM: {
		int v = *CAT(obj, f->off, int);
		ga_json_str(w, v >= 0 && (size_t)v < f->nnames ? f->names[v] : NULL);
		break;
	}
	case GA_F_KV: {
		const struct ga_kv *kv = *CAT(obj, f->off, struct ga_kv *);
		size_t n = *CAT(obj, f->count_off, size_t);
		ga_json_obj_begin(w);
		for (size_t k = 0; k < n; k++) {
			ga_json_key(w, kv[k].key);
			ga_json_str(w, kv[k].value);
		}
		ga_json_obj_end(w);
		break;
	}
	case GA_F_ARR: {
		const char *arr = *CAT(obj, f->off, char *);
		size_t n = *CAT(obj, f->count_off, size_t);
		ga_json_arr_begin(w);
		for (size_t k = 0; k < n; k++)
			if (f->flags & GA_FF_TUPLE)
				write_tuple(w, f->sub, arr + k * f->sub->size);
			else
				ga_schema_write(w, f->sub, arr + k * f->sub->size);
		ga_json_arr_end(w);
		break;
	}
	case GA_F_DBLV: {
		const struct ga_dblv *dv = CAT(obj, f->off, struct ga_dblv);
		ga_json_arr_begin(w);
		for (size_t k = 0; k < dv->n; k++)
			ga_json_dbl(w, dv->v[k]);
		ga_json_arr_end(w);
		break;
	}
	case GA_F_U64V: {
		const struct ga_u64v *uv = CAT(obj, f->off, struct ga_u64v);
		if (!uv->v) {
			ga_json_null(w);
			break;
		}
		ga_json_arr_begin(w);
		for (size_t k = 0; k < uv->n; k++)
			ga_json_u64(w, uv->v[k]);
		ga_json_arr_end(w);
		break;
	}
	case GA_F_GROUP: /* inline: ga_schema_write_members */
		ga_json_null(w);
		break;
	}
}

void ga_schema_release(const struct ga_schema *s, void *obj)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const struct ga_field *f = &s->fields[i];
		switch (f->type) {
		case GA_F_STR:
		case GA_F_JSON:
			ga_free(*AT(obj, f->off, char *));
			*AT(obj, f->off, char *) = NULL;
			break;
		case GA_F_STRV:
			ga_strv_release(AT(obj, f->off, struct ga_strv));
			break;
		case GA_F_OBJ:
		case GA_F_OBJN:
		case GA_F_GROUP:
			ga_schema_release(f->sub, AT(obj, f->off, char));
			break;
		case GA_F_DBLV: {
			struct ga_dblv *dv = AT(obj, f->off, struct ga_dblv);
			ga_free(dv->v);
			dv->v = NULL;
			dv->n = 0;
			break;
		}
		case GA_F_U64V: {
			struct ga_u64v *uv = AT(obj, f->off, struct ga_u64v);
			ga_free(uv->v);
			uv->v = NULL;
			uv->n = 0;
			break;
		}
		case GA_F_PTR: {
			char *p = *AT(obj, f->off, char *);
			if (p) {
				ga_schema_release(f->sub, p);
				ga_free(p);
				*AT(obj, f->off, char *) = NULL;
			}
			break;
		}
		case GA_F_ARR: {
			char *arr = *AT(obj, f->off, char *);
			size_t n = *AT(obj, f->count_off, size_t);
			for (size_t k = 0; k < n; k++)
				ga_schema_release(f->sub, arr + k * f->sub->size);
			ga_free(arr);
			*AT(obj, f->off, char *) = NULL;
			*AT(obj, f->count_off, size_t) = 0;
			break;
		}
		case GA_F_KV:
		case GA_F_MKV: {
			struct ga_kv *kv = *AT(obj, f->off, struct ga_kv *);
			size_t n = *AT(obj, f->count_off, size_t);
			for (size_t k = 0; k < n; k++) {
				ga_free(kv[k].key);
				ga_free(kv[k].value);
			}
			ga_free(kv);
			*AT(obj, f->off, struct ga_kv *) = NULL;
			*AT(obj, f->count_off, size_t) = 0;
			break;
		}
		default:
			break;
		}
	}
}

#define MAX_ITEMS GA_SCHEMA_MAX_ITEMS

static int type_err(struct ga_ctx *ctx, const char *path, const char *name, const char *want)
{
	return ga_err(ctx, -EBADMSG, "%s%s%s: expected %s", path, *path ? "." : "", name, want);
}

static int read_obj(struct ga_ctx *ctx, const struct ga_schema *s, const json_t *in, void *obj,
                    const char *path, int depth);
static int read_field(struct ga_ctx *ctx, const struct ga_field *f, const json_t *v, void *obj,
                      const char *path, int depth);

/* "[k]" and a NUL at p (at most 23 bytes). */
static void put_index(char *p, size_t k)
{
	char d[21];
	size_t n = 0;
	do
		d[n++] = (char)('0' + k % 10);
	while ((k /= 10) && n < sizeof(d));
	*p++ = '[';
	while (n)
		*p++ = d[--n];
	*p++ = ']';
	*p = '\0';
}

/* GA_F_DBLV: an array of numbers; null is NaN (what the writer makes of NaN). */
static int read_dblv(struct ga_ctx *ctx, const struct ga_field *f, const json_t *v, void *obj,
                     const char *path)
{
	size_t n = json_is_array(v) ? json_array_size(v) : 0;
	if (!json_is_array(v) || n > GA_SCHEMA_MAX_LARGE)
		return type_err(ctx, path, f->name, "array of numbers");
	struct ga_dblv *dv = AT(obj, f->off, struct ga_dblv);
	if (!(dv->v = ga_malloc((n ? n : 1) * sizeof(double)))) /* [] is present: v non-NULL */
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		const json_t *e = json_array_get(v, k);
		if (!json_is_number(e) && !json_is_null(e))
			return type_err(ctx, path, f->name, "array of numbers");
		dv->v[dv->n++] = json_is_null(e) ? NAN : json_number_value(e);
	}
	return 0;
}

/* GA_F_U64V: an array of non-negative integers (each within INT64_MAX, as jansson reads them). */
static int read_u64v(struct ga_ctx *ctx, const struct ga_field *f, const json_t *v, void *obj,
                     const char *path)
{
	size_t n = json_is_array(v) ? json_array_size(v) : 0;
	if (!json_is_array(v) || n > MAX_ITEMS)
		return type_err(ctx, path, f->name, "array of non-negative integers");
	struct ga_u64v *uv = AT(obj, f->off, struct ga_u64v);
	if (!(uv->v = ga_malloc((n ? n : 1) * sizeof(uint64_t)))) /* [] is present: v non-NULL */
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		const json_t *e = json_array_get(v, k);
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			return type_err(ctx, path, f->name, "array of non-negative integers");
		uv->v[uv->n++] = (uint64_t)json_integer_value(e);
	}
	return 0;
}

/* GA_FF_TUPLE: an element given as the array of its fields' values. */
static int read_tuple(struct ga_ctx *ctx, const struct ga_schema *s, const json_t *in, void *obj,
                      const char *path, int depth)
{
	if (!json_is_array(in) || json_array_size(in) != s->nfields)
		return ga_err(ctx, -EBADMSG, "%s: expected array of %zu values", path, s->nfields);
	for (size_t i = 0; i < s->nfields; i++) {
		int r = read_field(ctx, &s->fields[i], json_array_get(in, i), obj, path, depth);
		if (r < 0)
			return r;
	}
	return 0;
}

static int push_kv(void *obj, const struct ga_field *f, const char *key, const json_t *val)
{
	struct ga_kv *e =
	        ga_array_push(AT(obj, f->off, void *), AT(obj, f->count_off, size_t), sizeof(struct ga_kv));
	if (!e)
		return -ENOMEM;
	e->key = ga_strdup(key);
	e->value = ga_strndup(json_string_value(val), json_string_length(val));
	return e->key && e->value ? 0 : -ENOMEM;
}

/* GA_F_MKV: an object whose values are strings or arrays of strings. */
static int read_mkv(struct ga_ctx *ctx, const struct ga_field *f, const json_t *v, void *obj,
                    const char *path)
{
	if (!json_is_object(v) || json_object_size(v) > MAX_ITEMS)
		return type_err(ctx, path, f->name, "object of strings or arrays of strings");
	const char *key;
	const json_t *val;
	json_object_foreach((json_t *)v, key, val)
	{
		size_t n = json_is_array(val) ? json_array_size(val) : 1;
		if (n > MAX_ITEMS)
			return type_err(ctx, path, f->name, "object of strings or arrays of strings");
		for (size_t k = 0; k < n; k++) {
			const json_t *e = json_is_array(val) ? json_array_get(val, k) : val;
			if (!json_is_string(e))
				return type_err(ctx, path, f->name, "object of strings or arrays of strings");
			int r = push_kv(obj, f, key, e);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* GA_F_ARR: an array of sub structs (or of tuples, GA_FF_TUPLE). */
static int read_arr(struct ga_ctx *ctx, const struct ga_field *f, const json_t *v, void *obj,
                    const char *path, int depth)
{
	size_t max = f->flags & GA_FF_LARGE ? GA_SCHEMA_MAX_LARGE : MAX_ITEMS;
	if (!json_is_array(v) || json_array_size(v) > max)
		return type_err(ctx, path, f->name, "array");
	void **arr = AT(obj, f->off, void *);
	size_t *n = AT(obj, f->count_off, size_t);
	/* one allocation for the whole array: ga_array_push grows by one element */
	size_t cnt = json_array_size(v), cap = 0;
	if (cnt && !*arr && !*n) {
		if (!(*arr = ga_calloc(cnt, f->sub->size)))
			return -ENOMEM;
		cap = cnt;
	}
	/* the element's path for messages: the prefix once, then only "[k]" (no snprintf per element) */
	char sub[512];
	int pre = snprintf(sub, sizeof(sub) - 24, "%s%s%s", path, *path ? "." : "", f->name);
	size_t at = pre < 0 ? 0 : (size_t)pre < sizeof(sub) - 24 ? (size_t)pre : sizeof(sub) - 25;
	for (size_t k = 0; k < cnt; k++) {
		char *e =
		        *n < cap ? (char *)*arr + (*n)++ * f->sub->size : ga_array_push(arr, n, f->sub->size);
		if (!e)
			return -ENOMEM;
		put_index(sub + at, k);
		const json_t *ev = json_array_get(v, k);
		int r = f->flags & GA_FF_TUPLE ? read_tuple(ctx, f->sub, ev, e, sub, depth + 1)
		                               : read_obj(ctx, f->sub, ev, e, sub, depth + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_field(struct ga_ctx *ctx, const struct ga_field *f, const json_t *v, void *obj,
                      const char *path, int depth)
{
	if (json_is_null(v))
		return 0; /* absent */
	switch (f->type) {
	case GA_F_STR:
		if (!json_is_string(v))
			return type_err(ctx, path, f->name, "string");
		*AT(obj, f->off, char *) = ga_strndup(json_string_value(v), json_string_length(v));
		if (*AT(obj, f->off, char *) && (f->flags & GA_FF_CODE))
			*AT(obj, f->count_off, int) = (int)ga_code_parse(*AT(obj, f->off, char *));
		return *AT(obj, f->off, char *) ? 0 : -ENOMEM;
	case GA_F_U64: {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return type_err(ctx, path, f->name, "non-negative integer");
		GA_SET(*AT(obj, f->off, struct ga_ou64), (uint64_t)json_integer_value(v));
		return 0;
	}
	case GA_F_I64:
		if (!json_is_integer(v))
			return type_err(ctx, path, f->name, "integer");
		GA_SET(*AT(obj, f->off, struct ga_oi64), (int64_t)json_integer_value(v));
		return 0;
	case GA_F_DBL:
	case GA_F_NUM:
		if (!json_is_number(v))
			return type_err(ctx, path, f->name, "number");
		GA_SET(*AT(obj, f->off, struct ga_odbl), json_number_value(v));
		return 0;
	case GA_F_CHARS:
		if (!json_is_string(v) || json_string_length(v) >= f->count_off)
			return type_err(ctx, path, f->name, "short string");
		memcpy(AT(obj, f->off, char), json_string_value(v), json_string_length(v) + 1);
		return 0;
	case GA_F_BOOL:
		if (!json_is_boolean(v))
			return type_err(ctx, path, f->name, "boolean");
		GA_SET(*AT(obj, f->off, struct ga_obool), json_is_true(v));
		return 0;
	case GA_F_STRV: {
		if (!json_is_array(v) || json_array_size(v) > MAX_ITEMS)
			return type_err(ctx, path, f->name, "array of strings");
		struct ga_strv *sv = AT(obj, f->off, struct ga_strv);
		for (size_t k = 0; k < json_array_size(v); k++) {
			const json_t *e = json_array_get(v, k);
			if (!json_is_string(e))
				return type_err(ctx, path, f->name, "array of strings");
			int r = ga_strv_push(sv, json_string_value(e));
			if (r < 0)
				return r;
		}
		return 0;
	}
	case GA_F_ENUM: {
		if (json_is_string(v))
			for (size_t k = 0; k < f->nnames; k++)
				if (f->names[k] && !strcmp(f->names[k], json_string_value(v))) {
					*AT(obj, f->off, int) = (int)k;
					return 0;
				}
		char want[256];
		size_t at = 0;
		for (size_t k = 0; k < f->nnames && at < sizeof(want); k++) {
			int m = snprintf(want + at, sizeof(want) - at, "%s%s", k ? ", " : "one of ",
			                 f->names[k] ? f->names[k] : "?");
			at += m > 0 ? (size_t)m : 0;
		}
		return type_err(ctx, path, f->name, want);
	}
	case GA_F_MKV:
		return read_mkv(ctx, f, v, obj, path);
	case GA_F_JSON:
		*AT(obj, f->off, char *) = ga_schema_json_read(v);
		return *AT(obj, f->off, char *) ? 0 : -ENOMEM;
	case GA_F_KV: {
		if (!json_is_object(v) || json_object_size(v) > MAX_ITEMS)
			return type_err(ctx, path, f->name, "object of strings");
		void **arr = AT(obj, f->off, void *);
		size_t *n = AT(obj, f->count_off, size_t);
		const char *key;
		const json_t *val;
		json_object_foreach((json_t *)v, key, val)
		{
			if (!json_is_string(val))
				return type_err(ctx, path, f->name, "object of strings");
			struct ga_kv *e = ga_array_push(arr, n, sizeof(struct ga_kv));
			if (!e)
				return -ENOMEM;
			e->key = ga_strdup(key);
			e->value = ga_strndup(json_string_value(val), json_string_length(val));
			if (!e->key || !e->value)
				return -ENOMEM;
		}
		return 0;
	}
	case GA_F_OBJ:
	case GA_F_OBJN: {
		char sub[512];
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", f->name);
		return read_obj(ctx, f->sub, v, AT(obj, f->off, char), sub, depth + 1);
	}
	case GA_F_PTR: {
		char sub[512];
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", f->name);
		char **pp = AT(obj, f->off, char *);
		if (!*pp && !(*pp = ga_calloc(1, f->sub->size)))
			return -ENOMEM;
		return read_obj(ctx, f->sub, v, *pp, sub, depth + 1);
	}
	case GA_F_ARR:
		return read_arr(ctx, f, v, obj, path, depth);
	case GA_F_DBLV:
		return read_dblv(ctx, f, v, obj, path);
	case GA_F_U64V:
		return read_u64v(ctx, f, v, obj, path);
	case GA_F_GROUP: /* read_obj reads a group from the object itself */
		return 0;
	}
	return -EINVAL;
}

static int read_obj(struct ga_ctx *ctx, const struct ga_schema *s, const json_t *in, void *obj,
                    const char *path, int depth)
{
	if (depth > 16)
		return ga_err(ctx, -EBADMSG, "%s: nested too deeply", path);
	if (!json_is_object(in))
		return ga_err(ctx, -EBADMSG, "%s: expected object", *path ? path : "top level");
	for (size_t i = 0; i < s->nfields; i++) {
		const struct ga_field *f = &s->fields[i];
		if (f->type == GA_F_GROUP) {
			/* present when the object has any of the group's members */
			size_t k = 0;
			while (k < f->sub->nfields && !json_object_get(in, f->sub->fields[k].name))
				k++;
			if (k == f->sub->nfields)
				continue;
			*AT(obj, f->off + f->count_off, bool) = true;
			int r = read_obj(ctx, f->sub, in, AT(obj, f->off, char), path, depth + 1);
			if (r < 0)
				return r;
			continue;
		}
		const json_t *v = json_object_get(in, f->name);
		if (!v)
			continue;
		int r = read_field(ctx, f, v, obj, path, depth);
		if (r < 0)
			return r;
	}
	return 0;
}

int ga_schema_read(struct ga_ctx *ctx, const struct ga_schema *s, const struct json_t *in, void *obj)
{
	return read_obj(ctx, s, in, obj, "", 0);
}
