/*
 * emit/text.c - the one escaping rule of every text emitter (text.h): what
 * comes from an artifact, a node or a log is made visible byte by byte
 * before it reaches a terminal, a Markdown table or a CSV cell, so that no
 * input can move the cursor, set a title or forge a line. SARIF's artifact
 * URIs are percent-encoded here too.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "gpuaudit/text.h"

static const char hex[] = "0123456789abcdef", HEX[] = "0123456789ABCDEF";

static size_t put_x(char *out, unsigned char c)
{
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

static size_t put_u(char *out, uint32_t cp)
{
	out[0] = '\\';
	out[1] = 'u';
	for (int i = 0; i < 4; i++)
		out[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
	return 6;
}

/* The length of the valid UTF-8 sequence at s (2..4) and its code point, or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1fu, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0fu, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07u, min = 0x10000;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Code points that are valid but not text to show: C1, bidi overrides and isolates, line separators. */
static int invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

size_t ga_text_unit(const char *s, size_t len, unsigned flags, char out[GA_TEXT_UNIT_MAX], size_t *out_len)
{
	const unsigned char *u = (const unsigned char *)s;
	if (!len) {
		*out_len = 0;
		return 0;
	}
	unsigned char c = u[0];
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		*out_len = 1;
		return 1;
	}
	if ((c == '\n' && (flags & GA_TEXT_KEEP_NL)) || (c == '\t' && (flags & GA_TEXT_KEEP_TAB))) {
		out[0] = (char)c;
		*out_len = 1;
		return 1;
	}
	if (c == '\n' || c == '\r' || c == '\t') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		*out_len = 2;
		return 1;
	}
	if (c < 0x80) { /* the other C0 controls and DEL */
		*out_len = put_x(out, c);
		return 1;
	}
	uint32_t cp = 0;
	size_t n = utf8_seq(u, len, &cp);
	if (!n) {
		*out_len = put_x(out, c);
		return 1;
	}
	if (invisible(cp)) {
		*out_len = put_u(out, cp);
		return n;
	}
	memcpy(out, s, n);
	*out_len = n;
	return n;
}

int ga_text_is_clean(const char *s, size_t len, unsigned flags)
{
	char tmp[GA_TEXT_UNIT_MAX];
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f) { /* the common case, without the unit's copy */
			i++;
			continue;
		}
		size_t tl = 0, n = ga_text_unit(s + i, len - i, flags, tmp, &tl);
		if (tl != n || memcmp(tmp, s + i, n) != 0)
			return 0;
		i += n;
	}
	return 1;
}

size_t ga_text_escape(char *dst, size_t cap, const char *s, size_t len, unsigned flags)
{
	size_t need = 0, i = 0;
	int cut = 0;
	while (i < len) {
		char tmp[GA_TEXT_UNIT_MAX];
		size_t tl = 0;
		i += ga_text_unit(s + i, len - i, flags, tmp, &tl);
		if (!cut && cap && need + tl < cap)
			memcpy(dst + need, tmp, tl);
		else if (cap && !cut) {
			cut = 1;
			dst[need] = '\0';
		}
		need += tl;
	}
	if (cap && !cut)
		dst[need] = '\0';
	return need;
}

int ga_text_escape_buf(struct ga_buf *b, const char *s, size_t len, unsigned flags)
{
	size_t i = 0;
	while (i < len) {
		size_t run = i; /* printable ASCII runs in one copy */
		while (run < len && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f)
			run++;
		if (run > i) {
			int r = ga_buf_add(b, s + i, run - i);
			if (r < 0)
				return r;
			i = run;
			continue;
		}
		char tmp[GA_TEXT_UNIT_MAX];
		size_t tl = 0;
		i += ga_text_unit(s + i, len - i, flags, tmp, &tl);
		int r = ga_buf_add(b, tmp, tl);
		if (r < 0)
			return r;
	}
	return 0;
}

void ga_text_ring_init(struct ga_text_ring *r, unsigned flags)
{
	for (size_t i = 0; i < GA_TEXT_RING_N; i++)
		ga_buf_init(&r->v[i], 0);
	r->next = 0;
	r->flags = flags;
}

const char *ga_text_ring_esc(struct ga_text_ring *r, const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	if (ga_text_is_clean(s, len, r->flags))
		return s;
	struct ga_buf *b = &r->v[r->next];
	r->next = (r->next + 1) % GA_TEXT_RING_N;
	ga_buf_reset(b);
	if (ga_text_escape_buf(b, s, len, r->flags) < 0 || !b->data)
		return "?";
	return b->data;
}

void ga_text_ring_release(struct ga_text_ring *r)
{
	for (size_t i = 0; i < GA_TEXT_RING_N; i++)
		ga_buf_release(&r->v[i]);
	r->next = 0;
}

int ga_text_uri_path(struct ga_buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		           (c && strchr("-._~/!$&'()*+,;=@", c) != NULL);
		const char pct[3] = { '%', HEX[c >> 4], HEX[c & 15] }; /* RFC 3986 prefers upper case */
		int r = keep ? ga_buf_addc(b, (char)c) : ga_buf_add(b, pct, 3);
		if (r < 0)
			return r;
	}
	return 0;
}
