/*
 * text.h - the one escaping rule of every text emitter (lib/emit/text.c).
 *
 * Strings that come from artifacts, nodes and logs (file paths, archive
 * member names, DT_NEEDED strings, hostnames, report fields) reach a
 * terminal, a Markdown page or a spreadsheet. Printed raw, one of them can
 * clear the screen, set the terminal title or forge a "result: PASS" line.
 * Here every byte that is not printable text is made visible:
 *
 *   C0 controls and DEL     \xHH (\n, \r, \t for those three)
 *   C1 controls (U+0080..U+009F, as UTF-8), the bidirectional overrides
 *   and isolates (U+202A..U+202E, U+2066..U+2069), U+2028 and U+2029
 *                           \uHHHH
 *   bytes that are not UTF-8 (stray continuation bytes, truncated or
 *   overlong sequences, surrogates, beyond U+10FFFF)
 *                           \xHH, one per byte
 *
 * Valid printable UTF-8 (and the backslash) is kept as it is: the rule makes
 * output safe to show, it is not a reversible encoding (JSON is). Newline and
 * tab are escaped unless the flags keep them (a field must stay on its line).
 * Pure: no I/O.
 */
#ifndef GPUAUDIT_TEXT_H
#define GPUAUDIT_TEXT_H

#include <stddef.h>

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	GA_TEXT_KEEP_NL = 1u << 0,  /* '\n' kept (multi-line text) */
	GA_TEXT_KEEP_TAB = 1u << 1, /* '\t' kept */
};

/* The longest visible form of one unit ("\u202e", "\xfe"), without a NUL. */
#define GA_TEXT_UNIT_MAX 6

/*
 * One unit of s[0..len): a valid UTF-8 sequence or one byte. Its visible
 * form goes to out (GA_TEXT_UNIT_MAX bytes, no NUL), its length to
 * *out_len; returns how many bytes of s it took (1..4; 0 when len is 0).
 */
size_t ga_text_unit(const char *s, size_t len, unsigned flags, char out[GA_TEXT_UNIT_MAX], size_t *out_len);

/* 1 when s[0..len) is printed unchanged under flags (nothing to escape). */
int ga_text_is_clean(const char *s, size_t len, unsigned flags);

/*
 * snprintf-like: s[0..len) escaped into dst[cap], cut on a unit boundary,
 * always NUL-terminated when cap > 0. Returns the length the whole escaped
 * text needs (without the NUL), so a return >= cap means it was cut.
 */
size_t ga_text_escape(char *dst, size_t cap, const char *s, size_t len, unsigned flags);

/* s[0..len) escaped, appended to b. 0, -ENOMEM or -E2BIG (b's cap). */
int ga_text_escape_buf(struct ga_buf *b, const char *s, size_t len, unsigned flags);

/*
 * For printf-style printers: escaped copies of the last GA_TEXT_RING_N
 * strings, so that one fprintf can take several of them:
 *
 *     fprintf(o, "  %s: %s\n", ga_text_ring_esc(&r, path), ga_text_ring_esc(&r, why));
 *
 * NULL gives NULL (so "s ? s : fallback" still works); out of memory gives
 * "?". A copy stays valid until GA_TEXT_RING_N later calls or the release.
 */
#define GA_TEXT_RING_N 16
struct ga_text_ring {
	struct ga_buf v[GA_TEXT_RING_N];
	unsigned next;
	unsigned flags;
};
void ga_text_ring_init(struct ga_text_ring *r, unsigned flags);
const char *ga_text_ring_esc(struct ga_text_ring *r, const char *s);
void ga_text_ring_release(struct ga_text_ring *r);

/* The RFC 3986 path of a URI reference: unreserved bytes, '/' and the sub-delims kept, others %HH. */
int ga_text_uri_path(struct ga_buf *b, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
