/*
 * toml.c - a strict TOML 1.0 reader into a jansson tree (include/gpuaudit/toml.h).
 *
 * Why our own: containerd, CRI-O and the NVIDIA container toolkit keep their
 * configuration in TOML, and Debian 12 packages no C TOML library (only the
 * C++ cpptoml); docs/dependencies.md. The reader covers what those files use
 * and what TOML 1.0 defines except dates/times and inf/nan, which have no JSON
 * form: tables, arrays of tables, dotted and quoted keys, the four string
 * kinds, integers (decimal, hex, octal, binary), floats, booleans, arrays and
 * inline tables. It is a parser of untrusted input (a file under --root):
 * one pass over a buffer, bounded nesting (GA_TOML_MAX_DEPTH), bounded size
 * (GA_TOML_MAX_BYTES), every error with its line and column, fuzzed by
 * fuzz/fuzz_toml.c.
 *
 * TOML's rules about redefinition need to know how each table came to be (a
 * [header], an intermediate of a header, a dotted key, an inline table, an
 * array of tables); jansson objects have no room for that, so a small
 * pointer-keyed hash (struct smap) remembers it during the parse.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "gpuaudit/toml.h"

enum tstate {
	T_NONE = 0,
	T_IMPLICIT, /* created as an intermediate of a [header]: may still be defined once */
	T_HEADER,   /* defined by a [header] */
	T_DOTTED,   /* created by a dotted key: more dotted keys may extend it, a header may not define it */
	T_FROZEN,   /* an inline table: never extended */
	T_AOT,      /* an array created by [[header]]: more [[header]]s append */
};

struct smap {
	const void **k;
	unsigned char *v;
	size_t cap, n;
};

static size_t phash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)(x & (cap - 1));
}

static enum tstate smap_get(const struct smap *m, const void *p)
{
	if (!m->cap)
		return T_NONE;
	for (size_t i = phash(p, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->k[i])
			return T_NONE;
		if (m->k[i] == p)
			return (enum tstate)m->v[i];
	}
}

static int smap_set(struct smap *m, const void *p, enum tstate st)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		const void **k = ga_calloc(cap, sizeof(*k));
		unsigned char *v = ga_calloc(cap, 1);
		if (!k || !v) {
			ga_free(k);
			ga_free(v);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->k[i])
				continue;
			size_t j = phash(m->k[i], cap);
			while (k[j])
				j = (j + 1) & (cap - 1);
			k[j] = m->k[i];
			v[j] = m->v[i];
		}
		ga_free(m->k);
		ga_free(m->v);
		m->k = k;
		m->v = v;
		m->cap = cap;
	}
	size_t i = phash(p, m->cap);
	while (m->k[i] && m->k[i] != p)
		i = (i + 1) & (m->cap - 1);
	if (!m->k[i])
		m->n++;
	m->k[i] = p;
	m->v[i] = (unsigned char)st;
	return 0;
}

struct tp {
	struct ga_ctx *ctx;
	const char *name;
	const char *s, *p, *end;
	struct smap map;
	char *errbuf;
	size_t errbuf_len;
	int err;
	struct ga_buf sb; /* scratch for strings and numbers */
	unsigned depth;
	size_t n_keys;   /* members inserted into objects, against GA_TOML_MAX_KEYS */
	size_t n_values; /* array elements, against GA_TOML_MAX_VALUES */
};

__attribute__((format(printf, 3, 4))) static int perr(struct tp *t, const char *at, const char *fmt, ...)
{
	if (t->err)
		return t->err;
	unsigned line = 1;
	const char *ls = t->s;
	if (at > t->end)
		at = t->end;
	for (const char *q = t->s; q < at; q++)
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t col = (size_t)(at - ls) + 1;
	if (t->errbuf && t->errbuf_len)
		snprintf(t->errbuf, t->errbuf_len, "%s:%u:%zu: %s", t->name, line, col, msg);
	if (t->ctx)
		ga_err(t->ctx, -EBADMSG, "%s:%u:%zu: %s", t->name, line, col, msg);
	t->err = -EBADMSG;
	return t->err;
}

static int pnomem(struct tp *t)
{
	if (!t->err)
		t->err = t->ctx ? ga_err(t->ctx, -ENOMEM, "%s: out of memory", t->name) : -ENOMEM;
	return t->err;
}

static json_t *nomem_null(struct tp *t)
{
	pnomem(t);
	return NULL;
}

static bool at_end(const struct tp *t)
{
	return t->p >= t->end;
}

static int peek(const struct tp *t, size_t off)
{
	return t->p + off < t->end ? (unsigned char)t->p[off] : -1;
}

static void ws(struct tp *t)
{
	while (!at_end(t) && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

/* A control character TOML forbids in comments and strings (tab is allowed). */
static bool bad_ctl(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

static bool is_newline(const struct tp *t)
{
	return peek(t, 0) == '\n' || (peek(t, 0) == '\r' && peek(t, 1) == '\n');
}

static void eat_newline(struct tp *t)
{
	t->p += peek(t, 0) == '\r' ? 2 : 1;
}

/* An optional comment, then a newline or the end: what ends every line. */
static int line_end(struct tp *t)
{
	ws(t);
	if (peek(t, 0) == '#') {
		while (!at_end(t) && !is_newline(t)) {
			if (bad_ctl(peek(t, 0)))
				return perr(t, t->p, "control character 0x%02x in a comment", peek(t, 0));
			t->p++;
		}
	}
	if (at_end(t))
		return 0;
	if (!is_newline(t)) {
		int c = peek(t, 0);
		if (c >= 0x20 && c < 0x7f)
			return perr(t, t->p, "expected the end of the line, found '%c'", c);
		return perr(t, t->p, "expected the end of the line, found byte 0x%02x", c);
	}
	eat_newline(t);
	return 0;
}

/* Whitespace, comments and newlines (inside arrays). */
static int ws_nl(struct tp *t)
{
	for (;;) {
		ws(t);
		if (peek(t, 0) == '#' || is_newline(t)) {
			if (line_end(t) < 0)
				return t->err;
			continue;
		}
		if (peek(t, 0) == '\r')
			return perr(t, t->p, "carriage return without a line feed");
		return 0;
	}
}

/* Invalid UTF-8 anywhere (TOML documents are UTF-8): NULL when the text is valid. */
static const char *utf8_bad(const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s, *e = (const unsigned char *)end;
	while (p < e) {
		unsigned c = *p;
		size_t n;
		uint32_t cp, min;
		if (c < 0x80) {
			p++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return (const char *)p;
		}
		if ((size_t)(e - p) <= n)
			return (const char *)p;
		for (size_t i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return (const char *)p;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (const char *)p;
		p += n + 1;
	}
	return NULL;
}

static int put_utf8(struct ga_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18)), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	}
	return ga_buf_add(b, u, n);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape after '\' in a basic string, appended to t->sb. */
static int escape(struct tp *t)
{
	const char *at = t->p - 1;
	int c = peek(t, 0);
	char out;
	switch (c) {
	case 'b':
		out = '\b';
		break;
	case 't':
		out = '\t';
		break;
	case 'n':
		out = '\n';
		break;
	case 'f':
		out = '\f';
		break;
	case 'r':
		out = '\r';
		break;
	case '"':
		out = '"';
		break;
	case '\\':
		out = '\\';
		break;
	case 'u':
	case 'U': {
		size_t n = c == 'u' ? 4 : 8;
		uint32_t cp = 0;
		for (size_t i = 1; i <= n; i++) {
			int h = hexval(peek(t, i));
			if (h < 0)
				return perr(t, at, "\\%c needs %zu hexadecimal digits", c, n);
			cp = (cp << 4) | (uint32_t)h;
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return perr(t, at, "\\%c%0*X is not a Unicode scalar value", c, (int)n, (unsigned)cp);
		t->p += n + 1;
		return put_utf8(&t->sb, cp) < 0 ? pnomem(t) : 0;
	}
	default:
		if (c < 0x20 || c > 0x7e)
			return perr(t, at, "invalid escape sequence");
		return perr(t, at, "invalid escape sequence \\%c", c);
	}
	t->p++;
	return ga_buf_addc(&t->sb, out) < 0 ? pnomem(t) : 0;
}

/*
 * A string of any kind at t->p (the opening quote) into t->sb (NUL-terminated);
 * multiline only where allow_ml (values, not keys).
 */
static int string(struct tp *t, bool allow_ml)
{
	const char *start = t->p;
	char q = *t->p;
	bool ml = allow_ml && peek(t, 1) == q && peek(t, 2) == q;
	ga_buf_reset(&t->sb);
	t->p += ml ? 3 : 1;
	if (ml && is_newline(t))
		eat_newline(t); /* a newline right after the opening delimiter is trimmed */
	for (;;) {
		if (at_end(t))
			return perr(t, start, "unterminated string");
		int c = peek(t, 0);
		if (c == q) {
			if (!ml) {
				t->p++;
				break;
			}
			size_t n = 0;
			while (peek(t, n) == q)
				n++;
			if (n >= 3) {
				if (n > 5)
					return perr(t, t->p,
					            "too many quotes at the end of a multi-line string");
				for (size_t i = 3; i < n; i++)
					if (ga_buf_addc(&t->sb, q) < 0)
						return pnomem(t);
				t->p += n;
				break;
			}
			for (size_t i = 0; i < n; i++)
				if (ga_buf_addc(&t->sb, q) < 0)
					return pnomem(t);
			t->p += n;
			continue;
		}
		if (is_newline(t)) {
			if (!ml)
				return perr(t, start,
				            "unterminated string (newline before the closing quote)");
			size_t n = peek(t, 0) == '\r' ? 2 : 1;
			if (ga_buf_add(&t->sb, t->p, n) < 0)
				return pnomem(t);
			t->p += n;
			continue;
		}
		if (bad_ctl(c))
			return perr(t, t->p, "control character 0x%02x in a string", c);
		if (c == '\\' && q == '"') {
			t->p++;
			if (ml) { /* a line-ending backslash trims the newline and the whitespace after it */
				const char *save = t->p;
				ws(t);
				if (is_newline(t)) {
					while (!at_end(t) &&
					       (is_newline(t) || peek(t, 0) == ' ' || peek(t, 0) == '\t')) {
						if (is_newline(t))
							eat_newline(t);
						else
							t->p++;
					}
					continue;
				}
				t->p = save;
			}
			if (escape(t) < 0)
				return t->err;
			continue;
		}
		if (ga_buf_addc(&t->sb, (char)c) < 0)
			return pnomem(t);
		t->p++;
	}
	if (ga_buf_addc(&t->sb, '\0') < 0)
		return pnomem(t);
	t->sb.len--;
	return 0;
}

static bool bare_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

/*
 * The parts of a key. A quoted key may hold NUL ("k\u0000" is a valid key in
 * TOML 1.0), so each part carries its length and goes into jansson with
 * json_object_getn/setn (jansson 2.14 keeps an object key's length); the
 * NUL-terminated copy is for messages, which show the key up to its first NUL.
 */
struct keyp {
	char *part[GA_TOML_MAX_DEPTH];
	size_t len[GA_TOML_MAX_DEPTH];
	const char *at[GA_TOML_MAX_DEPTH];
	size_t n;
};

static void keyp_release(struct keyp *k)
{
	for (size_t i = 0; i < k->n; i++)
		ga_free(k->part[i]);
	k->n = 0;
}

/* A key: simple keys joined by '.', each bare or quoted. */
static int key(struct tp *t, struct keyp *k)
{
	for (;;) {
		ws(t);
		const char *at = t->p;
		char *part = NULL;
		size_t plen = 0;
		int c = peek(t, 0);
		if (c == '"' || c == '\'') {
			if (string(t, false) < 0)
				return t->err;
			plen = t->sb.len;
			if ((part = ga_malloc(plen + 1)))
				memcpy(part, t->sb.data, plen + 1);
		} else if (bare_char(c)) {
			while (bare_char(peek(t, 0)))
				t->p++;
			plen = (size_t)(t->p - at);
			part = ga_strndup(at, plen);
		} else if (c < 0) {
			return perr(t, at, "expected a key, found the end of the file");
		} else if (c >= 0x20 && c < 0x7f) {
			return perr(t, at, "expected a key, found '%c'", c);
		} else {
			return perr(t, at, "expected a key, found byte 0x%02x", c);
		}
		if (!part)
			return pnomem(t);
		if (k->n == GA_TOML_MAX_DEPTH) {
			ga_free(part);
			return perr(t, at, "a key of more than %d parts", GA_TOML_MAX_DEPTH);
		}
		k->at[k->n] = at;
		k->len[k->n] = plen;
		k->part[k->n++] = part;
		ws(t);
		if (peek(t, 0) != '.')
			return 0;
		t->p++;
	}
}

static json_t *new_obj(struct tp *t, enum tstate st)
{
	json_t *o = json_object();
	if (!o || (st != T_NONE && smap_set(&t->map, o, st) < 0)) {
		json_decref(o);
		pnomem(t);
		return NULL;
	}
	return o;
}

/* The member of obj named by part i of k (its length counts: it may hold NUL). */
static json_t *kget(json_t *obj, const struct keyp *k, size_t i)
{
	return json_object_getn(obj, k->part[i], k->len[i]);
}

/* Part i of k for a message: a NUL inside it is shown as \u0000; cut to the buffer. */
static const char *kshow(const struct keyp *k, size_t i, char *buf, size_t n)
{
	size_t o = 0;
	for (size_t j = 0; j < k->len[i] && o + 7 < n; j++) {
		if (k->part[i][j] == '\0') {
			memcpy(buf + o, "\\u0000", 6);
			o += 6;
		} else {
			buf[o++] = k->part[i][j];
		}
	}
	buf[o] = '\0';
	return buf;
}

/* Insert v (a new reference, consumed) under part i of k into obj. */
static int insert(struct tp *t, json_t *obj, const struct keyp *k, size_t i, json_t *v)
{
	if (++t->n_keys > GA_TOML_MAX_KEYS) {
		json_decref(v);
		return perr(t, k->at[i], "more than %d keys and tables", GA_TOML_MAX_KEYS);
	}
	if (json_object_setn_new(obj, k->part[i], k->len[i], v) < 0)
		return pnomem(t);
	return 0;
}

static json_t *value(struct tp *t);

/* key = value inside tbl: intermediates are dotted tables; the last part must be new. */
static int keyval(struct tp *t, json_t *tbl)
{
	struct keyp k = { .n = 0 };
	json_t *v = NULL;
	char shown[256];
	if (key(t, &k) < 0)
		goto out;
	if (t->depth + k.n > 2 * GA_TOML_MAX_DEPTH) {
		perr(t, k.at[0], "nesting deeper than %d", 2 * GA_TOML_MAX_DEPTH);
		goto out;
	}
	if (peek(t, 0) != '=') {
		perr(t, t->p, "expected '=' after the key");
		goto out;
	}
	t->p++;
	ws(t);
	json_t *obj = tbl;
	for (size_t i = 0; i + 1 < k.n; i++) {
		json_t *sub = kget(obj, &k, i);
		if (!sub) {
			if (!(sub = new_obj(t, T_DOTTED)) || insert(t, obj, &k, i, sub) < 0)
				goto out;
		} else if (!json_is_object(sub) || smap_get(&t->map, sub) != T_DOTTED) {
			perr(t, k.at[i], "key \"%s\" is already defined: a dotted key cannot extend it",
			     kshow(&k, i, shown, sizeof(shown)));
			goto out;
		}
		obj = sub;
	}
	if (kget(obj, &k, k.n - 1)) {
		perr(t, k.at[k.n - 1], "key \"%s\" defined twice", kshow(&k, k.n - 1, shown, sizeof(shown)));
		goto out;
	}
	if (!(v = value(t)))
		goto out;
	insert(t, obj, &k, k.n - 1, v); /* consumes v, also on failure */
	v = NULL;
out:
	json_decref(v);
	keyp_release(&k);
	return t->err;
}

static json_t *array(struct tp *t)
{
	const char *start = t->p++;
	json_t *a = json_array();
	if (!a) {
		pnomem(t);
		return NULL;
	}
	for (;;) {
		if (ws_nl(t) < 0)
			goto fail;
		if (peek(t, 0) == ']') {
			t->p++;
			return a;
		}
		if (at_end(t)) {
			perr(t, start, "unterminated array");
			goto fail;
		}
		const char *vat = t->p;
		json_t *v = value(t);
		if (!v)
			goto fail;
		if (++t->n_values > GA_TOML_MAX_VALUES) {
			json_decref(v);
			perr(t, vat, "more than %d array elements", GA_TOML_MAX_VALUES);
			goto fail;
		}
		if (json_array_append_new(a, v) < 0) {
			pnomem(t);
			goto fail;
		}
		if (ws_nl(t) < 0)
			goto fail;
		if (peek(t, 0) == ',') {
			t->p++;
			continue;
		}
		if (peek(t, 0) == ']') {
			t->p++;
			return a;
		}
		if (at_end(t))
			perr(t, start, "unterminated array");
		else
			perr(t, t->p, "expected ',' or ']' in an array");
		goto fail;
	}
fail:
	json_decref(a);
	return NULL;
}

static json_t *inline_table(struct tp *t)
{
	const char *start = t->p++;
	json_t *o = new_obj(t, T_FROZEN);
	if (!o)
		return NULL;
	ws(t);
	if (peek(t, 0) == '}') {
		t->p++;
		return o;
	}
	for (;;) {
		if (keyval(t, o) < 0)
			goto fail;
		ws(t);
		if (peek(t, 0) == ',') {
			t->p++;
			ws(t);
			if (peek(t, 0) == '}') {
				perr(t, t->p, "trailing comma in an inline table");
				goto fail;
			}
			continue;
		}
		if (peek(t, 0) == '}') {
			t->p++;
			break;
		}
		if (at_end(t) || is_newline(t))
			perr(t, at_end(t) ? start : t->p,
			     "an inline table must end on its own line with '}'");
		else
			perr(t, t->p, "expected ',' or '}' in an inline table");
		goto fail;
	}
	/* its dotted sub-tables need no mark: every way into them passes the frozen table */
	return o;
fail:
	json_decref(o);
	return NULL;
}

/* Digits with single underscores between them, from t->p, copied (without '_') to sb. */
static int digits(struct tp *t, int base, const char *what)
{
	const char *at = t->p;
	bool prev_digit = false;
	size_t n = 0;
	for (;;) {
		int c = peek(t, 0);
		bool d = base == 16 ? hexval(c) >= 0 : (c >= '0' && c < '0' + (base < 10 ? base : 10));
		if (d) {
			if (ga_buf_addc(&t->sb, (char)c) < 0)
				return pnomem(t);
			prev_digit = true;
			n++;
		} else if (c == '_') {
			if (!prev_digit ||
			    !(base == 16 ? hexval(peek(t, 1)) >= 0
			                 : (peek(t, 1) >= '0' && peek(t, 1) < '0' + (base < 10 ? base : 10))))
				return perr(t, t->p, "an underscore in a number must sit between two digits");
			prev_digit = false;
		} else {
			break;
		}
		t->p++;
	}
	if (!n)
		return perr(t, at, "expected digits in %s", what);
	return 0;
}

static json_t *number(struct tp *t)
{
	const char *start = t->p;
	/* dates and times: 1979-05-27, 07:32:00 */
	const char *q = t->p;
	size_t nd = 0;
	while (q + nd < t->end && q[nd] >= '0' && q[nd] <= '9')
		nd++;
	if ((nd == 4 && q + 4 < t->end && q[4] == '-') || (nd == 2 && q + 2 < t->end && q[2] == ':')) {
		perr(t, start, "dates and times are not supported (no JSON form)");
		return NULL;
	}
	ga_buf_reset(&t->sb);
	int c = peek(t, 0);
	if (c == '0' && (peek(t, 1) == 'x' || peek(t, 1) == 'o' || peek(t, 1) == 'b')) {
		int base = peek(t, 1) == 'x' ? 16 : peek(t, 1) == 'o' ? 8 : 2;
		t->p += 2;
		if (digits(t, base, "an integer") < 0)
			return NULL;
		if (ga_buf_addc(&t->sb, '\0') < 0)
			return nomem_null(t);
		uint64_t u;
		if (ga_parse_u64(t->sb.data, base, &u) < 0 || u > (uint64_t)INT64_MAX) {
			perr(t, start, "integer out of range (64-bit signed)");
			return NULL;
		}
		json_t *j = json_integer((json_int_t)u);
		if (!j)
			pnomem(t);
		return j;
	}
	bool is_float = false;
	if (c == '+' || c == '-') {
		if (ga_buf_addc(&t->sb, (char)c) < 0)
			return nomem_null(t);
		t->p++;
		c = peek(t, 0);
	}
	if (c == 'i' || c == 'n') {
		perr(t, start, "inf and nan are not supported (no JSON form)");
		return NULL;
	}
	const char *int_at = t->p;
	if (digits(t, 10, "a number") < 0)
		return NULL;
	if (*int_at == '0' && t->p - int_at > 1) {
		perr(t, start, "leading zeros are not allowed in a decimal number");
		return NULL;
	}
	if (peek(t, 0) == '.') {
		is_float = true;
		t->p++;
		if (ga_buf_addc(&t->sb, '.') < 0)
			return nomem_null(t);
		if (digits(t, 10, "the fraction") < 0)
			return NULL;
	}
	if (peek(t, 0) == 'e' || peek(t, 0) == 'E') {
		is_float = true;
		t->p++;
		if (ga_buf_addc(&t->sb, 'e') < 0)
			return nomem_null(t);
		if (peek(t, 0) == '+' || peek(t, 0) == '-') {
			if (ga_buf_addc(&t->sb, *t->p) < 0)
				return nomem_null(t);
			t->p++;
		}
		if (digits(t, 10, "the exponent") < 0)
			return NULL;
	}
	if (bare_char(peek(t, 0)) || peek(t, 0) == '.' || peek(t, 0) == ':') {
		perr(t, start, "invalid number");
		return NULL;
	}
	if (ga_buf_addc(&t->sb, '\0') < 0)
		return nomem_null(t);
	json_t *j;
	if (is_float) {
		double d;
		if (ga_parse_dbl(t->sb.data, &d) < 0 || !isfinite(d)) {
			perr(t, start, "float out of range");
			return NULL;
		}
		j = json_real(d);
	} else {
		int64_t i;
		if (ga_parse_i64(t->sb.data, 10, &i) < 0) {
			perr(t, start, "integer out of range (64-bit signed)");
			return NULL;
		}
		j = json_integer((json_int_t)i);
	}
	if (!j)
		pnomem(t);
	return j;
}

static bool word(const struct tp *t, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(t->end - t->p) >= n && !memcmp(t->p, w, n) && !bare_char(peek(t, n));
}

static json_t *value(struct tp *t)
{
	if (++t->depth > GA_TOML_MAX_DEPTH) {
		perr(t, t->p, "nesting deeper than %d", GA_TOML_MAX_DEPTH);
		return NULL;
	}
	json_t *v = NULL;
	int c = peek(t, 0);
	if (c == '"' || c == '\'') {
		if (string(t, true) == 0 && !(v = json_stringn(t->sb.data, t->sb.len)))
			pnomem(t);
	} else if (c == '[') {
		v = array(t);
	} else if (c == '{') {
		v = inline_table(t);
	} else if (word(t, "true") || word(t, "false")) {
		v = json_boolean(*t->p == 't');
		t->p += *t->p == 't' ? 4 : 5;
	} else if ((c >= '0' && c <= '9') || c == '+' || c == '-' || word(t, "inf") || word(t, "nan")) {
		v = number(t);
	} else if (c < 0 || is_newline(t) || c == '#') {
		perr(t, t->p, "expected a value after '='");
	} else {
		perr(t, t->p, "expected a value (string, number, boolean, array or inline table)");
	}
	t->depth--;
	return v;
}

/* [a.b] or [[a.b]] (at t->p, the first '['): the table that key/value lines go into next. */
static int header(struct tp *t, json_t *root, json_t **cur)
{
	const char *start = t->p;
	bool aot = peek(t, 1) == '[';
	t->p += aot ? 2 : 1;
	struct keyp k = { .n = 0 };
	char shown[256];
	if (key(t, &k) < 0)
		goto out;
	if (peek(t, 0) != ']' || (aot && peek(t, 1) != ']')) {
		perr(t, t->p,
		     aot ? "expected ']]' to close the array-of-tables header"
		         : "expected ']' to close the table header");
		goto out;
	}
	t->p += aot ? 2 : 1;
	json_t *obj = root;
	for (size_t i = 0; i + 1 < k.n; i++) {
		json_t *sub = kget(obj, &k, i);
		if (!sub) {
			if (!(sub = new_obj(t, T_IMPLICIT)) || insert(t, obj, &k, i, sub) < 0)
				goto out;
		} else if (json_is_array(sub) && smap_get(&t->map, sub) == T_AOT) {
			sub = json_array_get(sub, json_array_size(sub) - 1);
		} else if (!json_is_object(sub) || smap_get(&t->map, sub) == T_FROZEN) {
			perr(t, k.at[i], "\"%s\" is already a value, not a table that a header can extend",
			     kshow(&k, i, shown, sizeof(shown)));
			goto out;
		}
		obj = sub;
	}
	const char *last = kshow(&k, k.n - 1, shown, sizeof(shown));
	json_t *v = kget(obj, &k, k.n - 1);
	if (!aot) {
		if (!v) {
			if (!(v = new_obj(t, T_HEADER)) || insert(t, obj, &k, k.n - 1, v) < 0)
				goto out;
		} else if (json_is_object(v) && smap_get(&t->map, v) == T_IMPLICIT) {
			if (smap_set(&t->map, v, T_HEADER) < 0) {
				pnomem(t);
				goto out;
			}
		} else {
			perr(t, start, "table \"%s\" defined twice", last);
			goto out;
		}
		*cur = v;
	} else {
		if (!v) {
			v = json_array();
			if (!v || smap_set(&t->map, v, T_AOT) < 0) {
				json_decref(v);
				pnomem(t);
				goto out;
			}
			if (insert(t, obj, &k, k.n - 1, v) < 0)
				goto out;
		} else if (!json_is_array(v) || smap_get(&t->map, v) != T_AOT) {
			perr(t, start, "\"%s\" is already defined and is not an array of tables", last);
			goto out;
		}
		json_t *el = new_obj(t, T_HEADER);
		if (!el)
			goto out;
		if (json_array_append_new(v, el) < 0) {
			pnomem(t);
			goto out;
		}
		*cur = el;
	}
out:
	keyp_release(&k);
	return t->err;
}

int ga_toml_parse(struct ga_ctx *ctx, const char *name, const char *text, size_t len, json_t **ret,
                  char *errbuf, size_t errbuf_len)
{
	struct tp t = { .ctx = ctx,
		        .name = name ? name : "(toml)",
		        .s = text ? text : "",
		        .errbuf = errbuf,
		        .errbuf_len = errbuf_len };
	t.p = t.end = t.s;
	ga_buf_init(&t.sb, 0);
	json_t *root = NULL;
	if (len > GA_TOML_MAX_BYTES) {
		if (errbuf && errbuf_len)
			snprintf(errbuf, errbuf_len, "%s: larger than %u bytes", t.name, GA_TOML_MAX_BYTES);
		t.err = ctx ? ga_err(ctx, -EFBIG, "%s: larger than %u bytes", t.name, GA_TOML_MAX_BYTES)
		            : -EFBIG;
		goto out;
	}
	t.end = t.s + (text ? len : 0);
	const char *bad = utf8_bad(t.s, t.end);
	if (bad) {
		perr(&t, bad, "invalid UTF-8");
		goto out;
	}
	if (t.end - t.p >= 3 && !memcmp(t.p, "\xef\xbb\xbf", 3))
		t.p += 3;
	if (!(root = new_obj(&t, T_HEADER)))
		goto out;
	json_t *cur = root;
	while (!at_end(&t)) {
		ws(&t);
		if (at_end(&t))
			break;
		int c = peek(&t, 0);
		if (c == '#' || is_newline(&t)) {
			if (line_end(&t) < 0)
				goto out;
			continue;
		}
		if (c == '[') {
			if (header(&t, root, &cur) < 0)
				goto out;
		} else if (keyval(&t, cur) < 0) {
			goto out;
		}
		if (line_end(&t) < 0)
			goto out;
	}
	*ret = root;
	root = NULL;
out:
	json_decref(root);
	ga_buf_release(&t.sb);
	ga_free(t.map.k);
	ga_free(t.map.v);
	return t.err;
}
