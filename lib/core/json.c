/*
 * json.c - strict JSON writer. See json.h for the guarantees.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/json.h"

void ga_json_init(struct ga_json *w, struct ga_buf *out, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->pretty = pretty;
}

static void put(struct ga_json *w, const char *s, size_t n)
{
	if (w->err)
		return;
	int r = ga_buf_add(w->out, s, n);
	if (r < 0)
		w->err = r;
}

static void puts_(struct ga_json *w, const char *s)
{
	put(w, s, strlen(s));
}

static void newline(struct ga_json *w)
{
	if (!w->pretty)
		return;
	put(w, "\n", 1);
	for (int i = 0; i < w->depth; i++)
		put(w, "  ", 2);
}

/* Called before any value (scalar or container start). */
static bool before_value(struct ga_json *w)
{
	if (w->err)
		return false;
	if (w->depth == 0) {
		if (w->done) {
			w->err = -EINVAL; /* second top-level value */
			return false;
		}
		return true;
	}
	if (w->kind[w->depth - 1] == 'o') {
		if (!w->have_key) {
			w->err = -EINVAL; /* value without key */
			return false;
		}
		w->have_key = false;
		return true;
	}
	if (w->count[w->depth - 1]++)
		put(w, ",", 1);
	newline(w);
	return true;
}

static void after_value(struct ga_json *w)
{
	if (w->depth == 0)
		w->done = true;
}

static void quoted(struct ga_json *w, const char *s, size_t n);

void ga_json_key(struct ga_json *w, const char *key)
{
	if (w->err)
		return;
	if (w->depth == 0 || w->kind[w->depth - 1] != 'o' || w->have_key || !key) {
		w->err = -EINVAL;
		return;
	}
	if (w->count[w->depth - 1]++)
		put(w, ",", 1);
	newline(w);
	quoted(w, key, strlen(key));
	put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
	w->have_key = true;
}

static void begin(struct ga_json *w, char kind)
{
	if (!before_value(w))
		return;
	if (w->depth >= GA_JSON_MAX_DEPTH) {
		w->err = -EINVAL;
		return;
	}
	put(w, kind == 'o' ? "{" : "[", 1);
	w->kind[w->depth] = (unsigned char)kind;
	w->count[w->depth] = 0;
	w->depth++;
}

static void end(struct ga_json *w, char kind)
{
	if (w->err)
		return;
	if (w->depth == 0 || w->kind[w->depth - 1] != (unsigned char)kind || w->have_key) {
		w->err = -EINVAL;
		return;
	}
	unsigned n = w->count[w->depth - 1];
	w->depth--;
	if (n)
		newline(w);
	put(w, kind == 'o' ? "}" : "]", 1);
	after_value(w);
}

void ga_json_obj_begin(struct ga_json *w)
{
	begin(w, 'o');
}
void ga_json_obj_end(struct ga_json *w)
{
	end(w, 'o');
}
void ga_json_arr_begin(struct ga_json *w)
{
	begin(w, 'a');
}
void ga_json_arr_end(struct ga_json *w)
{
	end(w, 'a');
}

/* Length of a valid UTF-8 sequence at s (max n bytes), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* A quoted, escaped string: the text of a key or of a string value. */
static void quoted(struct ga_json *w, const char *s, size_t n)
{
	if (w->err)
		return;
	const unsigned char *p = (const unsigned char *)s;
	put(w, "\"", 1);
	size_t i = 0;
	while (i < n && !w->err) {
		unsigned char c = p[i];
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(w, esc, 2);
			i++;
		} else if (c == '\n') {
			put(w, "\\n", 2);
			i++;
		} else if (c == '\t') {
			put(w, "\\t", 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(w, esc, 6);
			i++;
		} else {
			size_t l = utf8_len(p + i, n - i);
			if (l == 0) {
				puts_(w, "\\ufffd");
				i++;
			} else {
				put(w, s + i, l);
				i += l;
			}
		}
	}
	put(w, "\"", 1);
}

void ga_json_strn(struct ga_json *w, const char *s, size_t n)
{
	if (!before_value(w))
		return;
	quoted(w, s, n);
	after_value(w);
}

void ga_json_str(struct ga_json *w, const char *s)
{
	if (!s) {
		ga_json_null(w);
		return;
	}
	ga_json_strn(w, s, strlen(s));
}

static void scalar(struct ga_json *w, const char *text)
{
	if (!before_value(w))
		return;
	puts_(w, text);
	after_value(w);
}

void ga_json_u64(struct ga_json *w, uint64_t v)
{
	char t[32];
	snprintf(t, sizeof(t), "%" PRIu64, v);
	scalar(w, t);
}

void ga_json_i64(struct ga_json *w, int64_t v)
{
	char t[32];
	snprintf(t, sizeof(t), "%" PRId64, v);
	scalar(w, t);
}

void ga_json_dbl(struct ga_json *w, double v)
{
	if (!isfinite(v)) {
		scalar(w, "null");
		return;
	}
	char t[40];
	v = v == 0 ? 0 : v; /* "-0" would read back as the integer 0 */
	/* shortest form that reads back to the same double */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(t, sizeof(t), "%.*g", prec, v);
		double back = 0;
		if (sscanf(t, "%lg", &back) == 1 && back == v)
			break;
	}
	/* make sure it is a JSON number (no "inf", keep integral values as is) */
	scalar(w, t);
}

void ga_json_bool(struct ga_json *w, bool v)
{
	scalar(w, v ? "true" : "false");
}

void ga_json_null(struct ga_json *w)
{
	scalar(w, "null");
}

int ga_json_finish(struct ga_json *w)
{
	if (w->err)
		return w->err;
	if (w->depth != 0 || !w->done || w->have_key)
		return -EINVAL;
	if (w->pretty)
		put(w, "\n", 1);
	return w->err;
}
