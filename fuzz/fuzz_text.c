/*
 * fuzz_text.c - the text escaping rule (gpuaudit/text.h) on arbitrary bytes.
 * Byte 0: bits 0-1 are the flags (GA_TEXT_KEEP_NL, GA_TEXT_KEEP_TAB), the
 * rest of byte 0 a cut for the snprintf-like form; the rest is the string.
 * Checks: the escaped text holds no control byte (but kept '\n'/'\t'), no
 * DEL and no invalid UTF-8, escaping it again changes nothing, it is never
 * shorter than the input; the cut form is a NUL-terminated prefix on a unit
 * boundary with the same length needed; the URI path holds only RFC 3986
 * path characters and percent-decodes back to the input.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/text.h"

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void check_uri(const char *s, size_t len)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	FUZZ_CHECK(ga_text_uri_path(&b, s, len) == 0);
	size_t k = 0;
	for (size_t i = 0; i < b.len; i++, k++) {
		char c = b.data[i];
		FUZZ_CHECK(c > 0x20 && c < 0x7f && !strchr("\"<>\\^`{|}[]#?:", c));
		if (c == '%') {
			FUZZ_CHECK(i + 2 < b.len);
			int h = hexval(b.data[i + 1]), l = hexval(b.data[i + 2]);
			FUZZ_CHECK(h >= 0 && l >= 0);
			FUZZ_CHECK(k < len && (unsigned char)s[k] == (unsigned)(h * 16 + l));
			i += 2;
		} else {
			FUZZ_CHECK(k < len && s[k] == c);
		}
	}
	FUZZ_CHECK(k == len);
	ga_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned flags = data[0] & 3u, cut = data[0] >> 2;
	const char *s = (const char *)data + 1;
	size_t len = size - 1;

	struct ga_buf b;
	ga_buf_init(&b, 0);
	FUZZ_CHECK(ga_text_escape_buf(&b, s, len, flags) == 0);
	const char *out = b.data ? b.data : "";
	FUZZ_CHECK(b.len >= len);
	for (size_t i = 0; i < b.len; i++) {
		unsigned char c = (unsigned char)out[i];
		FUZZ_CHECK(c >= 0x20 || (c == '\n' && (flags & GA_TEXT_KEEP_NL)) ||
		           (c == '\t' && (flags & GA_TEXT_KEEP_TAB)));
		FUZZ_CHECK(c != 0x7f);
	}
	/* valid UTF-8 with nothing invisible: a second pass has nothing to do */
	FUZZ_CHECK(ga_text_is_clean(out, b.len, flags));
	FUZZ_CHECK(ga_text_is_clean(s, len, flags) == (b.len == len && !memcmp(out, s, len)));

	size_t need = ga_text_escape(NULL, 0, s, len, flags);
	FUZZ_CHECK(need == b.len);
	char *dst = malloc(cut + 1);
	if (dst) {
		size_t got = ga_text_escape(dst, cut + 1, s, len, flags);
		FUZZ_CHECK(got == need);
		size_t w = strlen(dst);
		FUZZ_CHECK(w <= cut && w <= need && memcmp(dst, out, w) == 0);
		FUZZ_CHECK(need <= cut ? w == need : w + GA_TEXT_UNIT_MAX > cut);
		free(dst);
	}
	check_uri(s, len);
	ga_buf_release(&b);
	return 0;
}
