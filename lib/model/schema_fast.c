/*
 * schema_fast.c - the fast path of ga_schema_read: JSON text straight into a
 * model struct through yajl's event parser, without building a jansson tree.
 *
 * It is a shortcut, not a second reader with opinions of its own: it takes
 * only input that jansson (json_loadb with JSON_REJECT_DUPLICATES) and
 * ga_schema_read would both accept, and fills the struct exactly as they
 * would. Whatever it is not sure of sends the caller to the slow path, which
 * then gives the error message users see:
 *   * anything yajl rejects (syntax, control characters in strings, ...);
 *   * a "\u" escape (jansson rejects lone surrogates and \u0000, yajl does not);
 *   * non-ASCII bytes that are not strict UTF-8 (yajl accepts overlong forms
 *     and encoded surrogates), \v or \f between tokens (yajl takes them for
 *     white space);
 *   * duplicate keys, at any depth (jansson rejects them everywhere);
 *   * numbers jansson rejects (integers outside int64, reals that overflow),
 *     or text longer than 63 characters;
 *   * any type mismatch with the schema, a non-object in an array of structs,
 *     more than 100,000 items, schema nesting deeper than ga_schema_read's 16;
 *   * nesting deeper than 64 or objects with more than 256 keys (bounds for
 *     the duplicate check; jansson has none this small).
 *   * the newer field types: arrays of numbers (GA_F_DBLV), arrays of tuples
 *     (GA_FF_TUPLE) and, in a struct with inline groups (GA_F_GROUP), any key
 *     that is not one of its own fields.
 * Arrays of unsigned integers (GA_F_U64V, the node's NUMA distances) are read
 * here: non-negative integers only, like the slow path.
 * fuzz/fuzz_schema_fast.c checks exactly this against the slow path.
 *
 * yajl allocates through the library allocator (ga_malloc), so fault
 * injection reaches it; see "yajl's allocations" below for why a failed one
 * jumps back here instead of returning NULL to yajl.
 */
#include <errno.h>
#include <langinfo.h>
#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "../core/internal.h"
#include "gpuaudit/codes.h"
#include "gpuaudit/schema.h"

#define AT(obj, off, type) ((type *)((char *)(obj) + (off)))

#define MAX_ITEMS 100000    /* as ga_schema_read */
#define MAX_SCHEMA_DEPTH 16 /* as ga_schema_read */
#define MAX_DEPTH 64
#define MAX_KEYS 256

enum kind {
	K_OBJ,      /* a struct of schema s at obj */
	K_ARR,      /* the array field f of the struct at obj */
	K_STRV,     /* the string list field f of the struct at obj */
	K_U64V,     /* the integer list field f (GA_F_U64V) of the struct at obj */
	K_SKIP_MAP, /* inside a member the schema does not know */
	K_SKIP_ARR,
};

struct frame {
	enum kind kind;
	int depth; /* ga_schema_read's depth of the struct at obj */
	const struct ga_schema *s;
	char *obj;
	const struct ga_field *f;       /* K_ARR, K_STRV */
	const struct ga_field *pending; /* K_OBJ: the field of the last key; NULL: unknown */
	size_t hint;                    /* K_OBJ: where to look for the next key's field */
	uint64_t seen;                  /* K_OBJ: the fields (the first 64) read so far */
	size_t items;                   /* K_ARR, K_STRV */
	size_t keys0;                   /* this map's first entry in st->keys */
};

struct key {
	uint32_t hash;
	uint32_t len;
	size_t off;
};

/* A block yajl allocated: the links of the list of live blocks, then yajl's bytes. */
union yblock {
	struct {
		union yblock *prev, *next;
	} link;
	max_align_t align;
};

struct state {
	const struct ga_schema *root_s;
	void *root;
	struct frame fr[MAX_DEPTH];
	int n; /* frames in use */
	bool started;
	yajl_handle h;
	size_t root_end; /* just past the top-level object's '}' */
	int err;         /* -ENOMEM */
	struct key *keys;
	size_t n_keys, cap_keys;
	struct ga_buf key_text;
	union yblock *blocks; /* every block yajl holds */
	jmp_buf oom;          /* where a failed yajl allocation lands */
};

static struct frame *top(struct state *st)
{
	return st->n ? &st->fr[st->n - 1] : NULL;
}

static struct frame *push(struct state *st, enum kind k)
{
	if (st->n >= MAX_DEPTH)
		return NULL;
	struct frame *f = &st->fr[st->n++];
	memset(f, 0, sizeof(*f));
	f->kind = k;
	f->keys0 = st->n_keys;
	return f;
}

/* After a value: a struct's member is complete. */
static void value_done(struct state *st)
{
	struct frame *f = top(st);
	if (f && f->kind == K_OBJ)
		f->pending = NULL;
}

/* The field a scalar goes to: NULL with *skip set when it is ignored. */
static const struct ga_field *target(struct state *st, bool *skip)
{
	struct frame *f = top(st);
	*skip = false;
	if (!f)
		return NULL; /* a scalar at the top level */
	if (f->kind == K_SKIP_MAP || f->kind == K_SKIP_ARR || (f->kind == K_OBJ && !f->pending)) {
		*skip = true;
		return NULL;
	}
	if (f->kind == K_OBJ)
		return f->pending;
	return NULL; /* K_ARR takes objects only; K_STRV strings (handled by the caller) */
}

static int cb_null(void *ctx)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	if (!f || f->kind == K_ARR || f->kind == K_STRV || f->kind == K_U64V)
		return 0; /* read_obj(null): "expected object"; a null in a string list */
	value_done(st);
	return 1; /* absent, or ignored */
}

static int cb_boolean(void *ctx, int b)
{
	struct state *st = ctx;
	bool skip;
	const struct ga_field *fd = target(st, &skip);
	if (skip) {
		value_done(st);
		return 1;
	}
	if (!fd || fd->type != GA_F_BOOL)
		return 0;
	GA_SET(*AT(top(st)->obj, fd->off, struct ga_obool), b != 0);
	value_done(st);
	return 1;
}

/* jansson's reading of a number: an integer unless it has '.', 'e' or 'E'. */
static int cb_number(void *ctx, const char *s, size_t len)
{
	struct state *st = ctx;
	char text[64];
	if (len >= sizeof(text))
		return 0;
	memcpy(text, s, len);
	text[len] = '\0';
	bool real = false;
	for (size_t k = 0; k < len; k++)
		real |= text[k] == '.' || text[k] == 'e' || text[k] == 'E';
	long long i = 0;
	double d;
	char *end;
	errno = 0;
	if (real) {
		d = strtod(text, &end);
		if (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL))
			return 0; /* jansson: "real number overflow" */
		if (end != text + len)
			return 0;
	} else {
		/* yajl checked the grammar (-?digits); strtoll's result, without its cost */
		bool neg = text[0] == '-';
		uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
		for (size_t k = neg; k < len; k++) {
			unsigned dg = (unsigned)(text[k] - '0');
			if (dg > 9)
				return 0;
			if (u > (lim - dg) / 10)
				return 0; /* jansson: "too big integer" */
			u = u * 10 + dg;
		}
		if (len == (size_t)neg)
			return 0;
		i = neg ? (long long)(0 - u) : (long long)u;
		d = (double)i;
	}
	struct frame *lf = top(st);
	if (lf && lf->kind == K_U64V) {
		if (real || i < 0 || ++lf->items > MAX_ITEMS)
			return 0;
		struct ga_u64v *uv = AT(lf->obj, lf->f->off, struct ga_u64v);
		uint64_t *nv = ga_realloc(uv->v, (uv->n + 1) * sizeof(*nv));
		if (!nv) {
			st->err = -ENOMEM;
			return 0;
		}
		uv->v = nv;
		nv[uv->n++] = (uint64_t)i;
		return 1;
	}
	bool skip;
	const struct ga_field *fd = target(st, &skip);
	if (skip) {
		value_done(st);
		return 1;
	}
	if (!fd)
		return 0;
	char *obj = top(st)->obj;
	switch (fd->type) {
	case GA_F_U64:
		if (real || i < 0)
			return 0;
		GA_SET(*AT(obj, fd->off, struct ga_ou64), (uint64_t)i);
		break;
	case GA_F_I64:
		if (real)
			return 0;
		GA_SET(*AT(obj, fd->off, struct ga_oi64), (int64_t)i);
		break;
	case GA_F_DBL:
	case GA_F_NUM:
		GA_SET(*AT(obj, fd->off, struct ga_odbl), d);
		break;
	default:
		return 0;
	}
	value_done(st);
	return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	if (f && f->kind == K_STRV) {
		if (++f->items > MAX_ITEMS)
			return 0;
		struct ga_strv *sv = AT(f->obj, f->f->off, struct ga_strv);
		char **nv = ga_realloc(sv->v, (sv->n + 2) * sizeof(*nv));
		if (!nv)
			goto nomem;
		sv->v = nv;
		if (!(nv[sv->n] = ga_strndup((const char *)s, len)))
			goto nomem;
		nv[++sv->n] = NULL;
		return 1;
	}
	bool skip;
	const struct ga_field *fd = target(st, &skip);
	if (skip) {
		value_done(st);
		return 1;
	}
	if (fd && fd->type == GA_F_CHARS) {
		if (len >= fd->count_off) /* jansson's "expected short string" */
			return 0;
		memcpy(AT(f->obj, fd->off, char), s, len);
		AT(f->obj, fd->off, char)[len] = '\0';
		value_done(st);
		return 1;
	}
	if (!fd || fd->type != GA_F_STR)
		return 0;
	char **p = AT(f->obj, fd->off, char *);
	if (!(*p = ga_strndup((const char *)s, len)))
		goto nomem;
	if (fd->flags & GA_FF_CODE)
		*AT(f->obj, fd->count_off, int) = (int)ga_code_parse(*p);
	value_done(st);
	return 1;
nomem:
	st->err = -ENOMEM;
	return 0;
}

static uint32_t hash(const unsigned char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* The field named s[0..len) in f's schema, from where the last one was found. */
static const struct ga_field *field_of(struct frame *f, const unsigned char *s, size_t len, size_t *idx)
{
	size_t nf = f->s->nfields;
	for (size_t k = 0; k < nf; k++) {
		size_t i = f->hint + k < nf ? f->hint + k : f->hint + k - nf;
		const char *name = f->s->fields[i].name;
		size_t m = 0; /* s holds no NUL (no \u escape gets here): this stops at name's end */
		while (m < len && name[m] == (char)s[m])
			m++;
		if (m == len && name[len] == '\0') {
			f->hint = i + 1 < nf ? i + 1 : 0;
			*idx = i;
			return &f->s->fields[i];
		}
	}
	return NULL;
}

/* Whether s has inline groups (GA_F_GROUP), whose members the fast path does not read. */
static bool has_group(const struct ga_schema *s)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].type == GA_F_GROUP)
			return true;
	return false;
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	if (!f || (f->kind != K_OBJ && f->kind != K_SKIP_MAP) || len > UINT32_MAX)
		return 0;
	/* a duplicate key anywhere: jansson rejects the document */
	if (f->kind == K_OBJ) {
		/* the schema's fields: one bit each (the first 64) */
		size_t i;
		f->pending = field_of(f, s, len, &i);
		if (f->pending && i < 64) {
			if (f->seen & (UINT64_C(1) << i))
				return 0;
			f->seen |= UINT64_C(1) << i;
			return 1;
		}
		if (!f->pending && has_group(f->s))
			return 0; /* maybe a group's member: the slow path reads groups */
	}
	uint32_t h = hash(s, len);
	if (st->n_keys - f->keys0 >= MAX_KEYS)
		return 0;
	for (size_t i = f->keys0; i < st->n_keys; i++)
		if (st->keys[i].hash == h && st->keys[i].len == len &&
		    (!len || !memcmp(st->key_text.data + st->keys[i].off, s, len)))
			return 0;
	if (st->n_keys == st->cap_keys) {
		size_t cap = st->cap_keys ? st->cap_keys * 2 : 64;
		struct key *nk = ga_realloc(st->keys, cap * sizeof(*nk));
		if (!nk)
			goto nomem;
		st->keys = nk;
		st->cap_keys = cap;
	}
	size_t off = st->key_text.len;
	if (len && ga_buf_add(&st->key_text, (const char *)s, len) < 0)
		goto nomem;
	st->keys[st->n_keys++] = (struct key){ h, (uint32_t)len, off };
	return 1;
nomem:
	st->err = -ENOMEM;
	return 0;
}

static int cb_start_map(void *ctx)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	struct frame *nf;
	if (!f) {
		if (st->started)
			return 0;
		st->started = true;
		if (!(nf = push(st, K_OBJ)))
			return 0;
		nf->s = st->root_s;
		nf->obj = st->root;
		return 1;
	}
	if (f->kind == K_SKIP_MAP || f->kind == K_SKIP_ARR || (f->kind == K_OBJ && !f->pending))
		return push(st, K_SKIP_MAP) != NULL;
	if (f->kind == K_STRV || f->kind == K_U64V)
		return 0;
	if (f->kind == K_ARR) {
		if (++f->items > MAX_ITEMS || f->depth + 1 > MAX_SCHEMA_DEPTH)
			return 0;
		const struct ga_field *fd = f->f;
		char *e = ga_array_push(AT(f->obj, fd->off, void *), AT(f->obj, fd->count_off, size_t),
		                        fd->sub->size);
		if (!e) {
			st->err = -ENOMEM;
			return 0;
		}
		int depth = f->depth + 1;
		if (!(nf = push(st, K_OBJ)))
			return 0;
		nf->s = fd->sub;
		nf->obj = e;
		nf->depth = depth;
		return 1;
	}
	/* K_OBJ with a known field */
	const struct ga_field *fd = f->pending;
	char *sub;
	if (fd->type == GA_F_OBJ || fd->type == GA_F_OBJN) {
		sub = AT(f->obj, fd->off, char);
	} else if (fd->type == GA_F_PTR) {
		char **pp = AT(f->obj, fd->off, char *);
		if (!*pp && !(*pp = ga_calloc(1, fd->sub->size))) {
			st->err = -ENOMEM;
			return 0;
		}
		sub = *pp;
	} else {
		return 0;
	}
	if (f->depth + 1 > MAX_SCHEMA_DEPTH)
		return 0;
	int depth = f->depth + 1;
	if (!(nf = push(st, K_OBJ)))
		return 0;
	nf->s = fd->sub;
	nf->obj = sub;
	nf->depth = depth;
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	if (!f || (f->kind != K_OBJ && f->kind != K_SKIP_MAP))
		return 0;
	if (f->keys0 < st->n_keys)
		st->key_text.len = st->keys[f->keys0].off;
	st->n_keys = f->keys0;
	if (--st->n == 0)
		st->root_end = yajl_get_bytes_consumed(st->h);
	value_done(st);
	return 1;
}

static int cb_start_array(void *ctx)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	if (!f)
		return 0; /* the top level must be an object */
	if (f->kind == K_SKIP_MAP || f->kind == K_SKIP_ARR || (f->kind == K_OBJ && !f->pending))
		return push(st, K_SKIP_ARR) != NULL;
	if (f->kind != K_OBJ)
		return 0; /* an array in a struct array or a string list */
	const struct ga_field *fd = f->pending;
	if (fd->type != GA_F_ARR && fd->type != GA_F_STRV && fd->type != GA_F_U64V)
		return 0;
	char *obj = f->obj;
	int depth = f->depth;
	if (fd->type == GA_F_U64V) {
		/* [] is present, as the slow path reads it: v non-NULL */
		struct ga_u64v *uv = AT(obj, fd->off, struct ga_u64v);
		if (!uv->v && !(uv->v = ga_malloc(sizeof(uint64_t)))) {
			st->err = -ENOMEM;
			return 0;
		}
	}
	struct frame *nf = push(st, fd->type == GA_F_ARR ? K_ARR : fd->type == GA_F_STRV ? K_STRV : K_U64V);
	if (!nf)
		return 0;
	nf->obj = obj;
	nf->f = fd;
	nf->depth = depth;
	return 1;
}

static int cb_end_array(void *ctx)
{
	struct state *st = ctx;
	struct frame *f = top(st);
	if (!f || (f->kind != K_ARR && f->kind != K_STRV && f->kind != K_U64V && f->kind != K_SKIP_ARR))
		return 0;
	st->n--;
	value_done(st);
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_boolean,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end_map,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end_array,
};

/* jansson's UTF-8 rules: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool utf8_strict(const unsigned char *p, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned c = p[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t n;
		uint32_t cp;
		if (c >= 0xc2 && c <= 0xdf) {
			n = 2;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 3;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i < n)
			return false;
		for (size_t k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n;
	}
	return true;
}

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
#define HAS_ZERO(w) (((w)-ONES) & ~(w)&HIGHS)

/* What yajl and jansson read differently: a "\u" escape, non-ASCII bytes, \v or \f. */
static bool plain_text(const char *text, size_t len, bool *ascii)
{
	for (size_t k = 0; k < len;) {
		const char *p = memchr(text + k, '\\', len - k);
		if (!p)
			break;
		k = (size_t)(p - text) + 2; /* past the escaped character */
		if (k <= len && p[1] == 'u')
			return false;
	}
	uint64_t high = 0, vf = 0;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, text + i, 8);
		high |= w & HIGHS;
		vf |= HAS_ZERO(w ^ (ONES * 0x0b)) | HAS_ZERO(w ^ (ONES * 0x0c));
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		high |= c & 0x80;
		vf |= c == 0x0b || c == 0x0c;
	}
	*ascii = !high;
	return !vf;
}

/*
 * After the top-level object only white space: yajl takes an unterminated
 * string after it ('{}"x') for the end of a chunk, not for garbage.
 */
static bool trailer_ok(const char *text, size_t len, size_t end)
{
	if (end == 0 || end > len || text[end - 1] != '}')
		return false;
	for (size_t i = end; i < len; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
			return false;
	return true;
}

/*
 * yajl's allocations. yajl does not check what its allocator returns
 * (yajl_buf.c, yajl_lex.c and yajl_bytestack.h write through the pointer), so
 * a failed allocation must never return to it: the hook longjmps back to
 * parse() instead. yajl's handle is then half-built and yajl_free cannot be
 * trusted with it, so every block yajl holds is on a list and parse() frees
 * the list. Only yajl's own code runs between the jump and its target (the
 * callbacks allocate with ga_malloc and report failure through st->err).
 */
static void yblock_link(struct state *st, union yblock *b)
{
	b->link.prev = NULL;
	b->link.next = st->blocks;
	if (st->blocks)
		st->blocks->link.prev = b;
	st->blocks = b;
}

static void yblock_unlink(struct state *st, union yblock *b)
{
	if (b->link.prev)
		b->link.prev->link.next = b->link.next;
	else
		st->blocks = b->link.next;
	if (b->link.next)
		b->link.next->link.prev = b->link.prev;
}

static void *yajl_malloc_hook(void *ctx, size_t n)
{
	struct state *st = ctx;
	union yblock *b = n <= SIZE_MAX - sizeof(*b) ? ga_malloc(sizeof(*b) + n) : NULL;
	if (!b)
		longjmp(st->oom, 1);
	yblock_link(st, b);
	return b + 1;
}

static void *yajl_realloc_hook(void *ctx, void *p, size_t n)
{
	struct state *st = ctx;
	if (!p)
		return yajl_malloc_hook(ctx, n);
	union yblock *old = (union yblock *)p - 1;
	if (n > SIZE_MAX - sizeof(*old))
		longjmp(st->oom, 1);
	yblock_unlink(st, old);
	union yblock *b = ga_realloc(old, sizeof(*b) + n);
	if (!b) {
		yblock_link(st, old); /* still allocated: freed with the rest */
		longjmp(st->oom, 1);
	}
	yblock_link(st, b);
	return b + 1;
}

static void yajl_free_hook(void *ctx, void *p)
{
	if (!p)
		return;
	union yblock *b = (union yblock *)p - 1;
	yblock_unlink(ctx, b);
	ga_free(b);
}

static void yblocks_free(struct state *st)
{
	while (st->blocks) {
		union yblock *b = st->blocks;
		st->blocks = b->link.next;
		ga_free(b);
	}
}

/* One yajl parse of the whole text: 0, 1 (take the slow path) or -ENOMEM. */
static int parse(struct state *st, const char *text, size_t len)
{
	if (setjmp(st->oom)) {
		st->h = NULL;
		yblocks_free(st);
		return -ENOMEM;
	}
	yajl_alloc_funcs afs = { yajl_malloc_hook, yajl_realloc_hook, yajl_free_hook, st };
	int r = 1;
	st->h = yajl_alloc(&callbacks, &afs, st);
	if (!st->h)
		return -ENOMEM;
	if (yajl_parse(st->h, (const unsigned char *)text, len) == yajl_status_ok &&
	    yajl_complete_parse(st->h) == yajl_status_ok && st->started && st->n == 0 &&
	    trailer_ok(text, len, st->root_end))
		r = 0;
	else if (st->err)
		r = st->err;
	yajl_free(st->h);
	st->h = NULL;
	yblocks_free(st); /* none left: yajl_free returned them all */
	return r;
}

int ga_schema_read_fast(const struct ga_schema *s, const char *text, size_t len, void *obj)
{
	struct state st = { .root_s = s, .root = obj };
	ga_buf_init(&st.key_text, 0);
	int r = 1;
	bool ascii;
	const char *radix = nl_langinfo(RADIXCHAR); /* localeconv() is not thread-safe */
	if (!radix || strcmp(radix, "."))
		goto out; /* strtod would not read "1.5" the way jansson does */
	if (!plain_text(text, len, &ascii) || (!ascii && !utf8_strict((const unsigned char *)text, len)))
		goto out;
	r = parse(&st, text, len);
out:
	ga_free(st.keys);
	ga_buf_release(&st.key_text);
	if (r != 0) {
		ga_schema_release(s, obj);
		memset(obj, 0, s->size);
	}
	return r;
}
