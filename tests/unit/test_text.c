/*
 * test_text.c - the one escaping rule of the text emitters (gpuaudit/text.h):
 * every class of byte (printable ASCII, C0, DEL, newline/tab with and without
 * the keep flags, C1 as UTF-8, bidi controls, valid multi-byte text, every
 * kind of invalid UTF-8), the snprintf-like cut, the ring, the URI encoding,
 * and the fleet's Markdown and CSV writers that use it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/csv.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/markdown.h"
#include "gpuaudit/text.h"

/* s[0..len) escaped under flags, as a NUL-terminated string in out. */
static const char *esc(char *out, size_t cap, const char *s, size_t len, unsigned flags)
{
	size_t need = ga_text_escape(out, cap, s, len, flags);
	assert_true(need < cap);
	/* the buffer form gives the same bytes */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_text_escape_buf(&b, s, len, flags), 0);
	assert_int_equal(b.len, need);
	if (need)
		assert_memory_equal(b.data, out, need);
	ga_buf_release(&b);
	return out;
}

#define ESC(lit, flags) esc(out, sizeof(out), lit, sizeof(lit) - 1, flags)

static void test_every_single_byte(void **state)
{
	(void)state;
	for (unsigned c = 0; c < 256; c++) {
		char in = (char)c, out[16], want[16];
		if (c >= 0x20 && c < 0x7f)
			snprintf(want, sizeof(want), "%c", (int)c);
		else if (c == '\n')
			snprintf(want, sizeof(want), "\\n");
		else if (c == '\r')
			snprintf(want, sizeof(want), "\\r");
		else if (c == '\t')
			snprintf(want, sizeof(want), "\\t");
		else /* the other C0 controls, DEL, and every byte >= 0x80 alone (not UTF-8) */
			snprintf(want, sizeof(want), "\\x%02x", c);
		assert_string_equal(esc(out, sizeof(out), &in, 1, 0), want);
		assert_int_equal(ga_text_is_clean(&in, 1, 0), c >= 0x20 && c < 0x7f);
	}
	/* NUL inside the length is a control byte too */
	char out[32];
	assert_string_equal(ESC("a\0b", 0), "a\\x00b");
}

static void test_terminal_sequences(void **state)
{
	(void)state;
	char out[128];
	assert_string_equal(ESC("\033]0;pwned\007", 0), "\\x1b]0;pwned\\x07");
	assert_string_equal(ESC("\033[2J\033[H", 0), "\\x1b[2J\\x1b[H");
	assert_string_equal(ESC("ok\rresult: PASS", 0), "ok\\rresult: PASS");
	assert_string_equal(ESC("x\x7fy\bz", 0), "x\\x7fy\\x08z");
	/* the backslash itself is kept: the rule makes text safe, it is not an encoding */
	assert_string_equal(ESC("C:\\dir", 0), "C:\\dir");
}

static void test_keep_flags(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(ESC("a\nb\tc", 0), "a\\nb\\tc");
	assert_string_equal(ESC("a\nb\tc", GA_TEXT_KEEP_NL), "a\nb\\tc");
	assert_string_equal(ESC("a\nb\tc", GA_TEXT_KEEP_TAB), "a\\nb\tc");
	assert_string_equal(ESC("a\nb\tc\r", GA_TEXT_KEEP_NL | GA_TEXT_KEEP_TAB), "a\nb\tc\\r");
	assert_true(ga_text_is_clean("a\nb", 3, GA_TEXT_KEEP_NL));
	assert_false(ga_text_is_clean("a\nb", 3, 0));
}

static void test_valid_utf8_kept(void **state)
{
	(void)state;
	char out[64];
	const char *ok[] = { "caf\xc3\xa9",        /* U+00E9 */
		             "\xc2\xa0",           /* U+00A0, the first after C1 */
		             "\xe2\x82\xac",       /* U+20AC */
		             "\xe2\x80\xa9x" + 4,  /* "" */
		             "\xed\x9f\xbf",       /* U+D7FF, below the surrogates */
		             "\xee\x80\x80",       /* U+E000, above them */
		             "\xf0\x9f\x98\x80",   /* U+1F600 */
		             "\xf4\x8f\xbf\xbf" }; /* U+10FFFF */
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_string_equal(esc(out, sizeof(out), ok[i], strlen(ok[i]), 0), ok[i]);
		assert_true(ga_text_is_clean(ok[i], strlen(ok[i]), 0));
	}
}

static void test_c1_and_invisible(void **state)
{
	(void)state;
	char out[64];
	for (unsigned cp = 0x80; cp <= 0x9f; cp++) {
		char in[2] = { (char)(0xc0 | (cp >> 6)), (char)(0x80 | (cp & 0x3f)) }, want[8];
		snprintf(want, sizeof(want), "\\u%04x", cp);
		assert_string_equal(esc(out, sizeof(out), in, 2, 0), want);
	}
	assert_string_equal(ESC("\xc2\x9b"
	                        "2J",
	                        0),
	                    "\\u009b2J"); /* 8-bit CSI */
	assert_string_equal(ESC("\xe2\x80\xae"
	                        "evil",
	                        0),
	                    "\\u202eevil"); /* RLO */
	assert_string_equal(ESC("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", 0), "\\u202a\\u2066\\u2069");
	assert_string_equal(ESC("a\xe2\x80\xa8"
	                        "b\xe2\x80\xa9",
	                        0),
	                    "a\\u2028b\\u2029");
	assert_string_equal(ESC("\xe2\x80\xa9x"
	                        "\xe2\x80\xab",
	                        0),
	                    "\\u2029x\\u202b");
	/* neighbours stay text */
	assert_string_equal(ESC("\xe2\x80\xa7\xe2\x80\xaf", 0), "\xe2\x80\xa7\xe2\x80\xaf");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(ESC("\x80", 0), "\\x80");                   /* stray continuation */
	assert_string_equal(ESC("\xc0\x80", 0), "\\xc0\\x80");          /* overlong NUL */
	assert_string_equal(ESC("\xc1\xbf", 0), "\\xc1\\xbf");          /* overlong */
	assert_string_equal(ESC("\xe0\x80\xaf", 0), "\\xe0\\x80\\xaf"); /* overlong '/' */
	assert_string_equal(ESC("\xf0\x80\x80\xaf", 0), "\\xf0\\x80\\x80\\xaf");
	assert_string_equal(ESC("\xed\xa0\x80", 0), "\\xed\\xa0\\x80");          /* surrogate U+D800 */
	assert_string_equal(ESC("\xf4\x90\x80\x80", 0), "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	assert_string_equal(ESC("\xf5\xf8\xfe\xff", 0), "\\xf5\\xf8\\xfe\\xff");
	assert_string_equal(ESC("\xe2\x82", 0), "\\xe2\\x82"); /* cut at the end */
	assert_string_equal(ESC("\xe2\x82"
	                        "A\xc3\xa9",
	                        0),
	                    "\\xe2\\x82A\xc3\xa9"); /* resync */
	assert_string_equal(ESC("\xc3\xc3\xa9", 0), "\\xc3\xc3\xa9");
	assert_false(ga_text_is_clean("\xfe", 1, 0));
}

static void test_cut(void **state)
{
	(void)state;
	char out[8];
	/* "ab\x1b" needs 6: with cap 5 the escape is not split, "ab" and the NUL are written */
	assert_int_equal(ga_text_escape(out, 5, "ab\033", 3, 0), 6);
	assert_string_equal(out, "ab");
	assert_int_equal(ga_text_escape(out, 7, "ab\033", 3, 0), 6);
	assert_string_equal(out, "ab\\x1b");
	/* a multi-byte character is not split either */
	assert_int_equal(ga_text_escape(out, 3, "a\xc3\xa9", 3, 0), 3);
	assert_string_equal(out, "a");
	assert_int_equal(ga_text_escape(NULL, 0, "\033\033", 2, 0), 8);
	assert_int_equal(ga_text_escape(out, sizeof(out), "", 0, 0), 0);
	assert_string_equal(out, "");
	struct ga_buf b;
	ga_buf_init(&b, 4);
	assert_int_equal(ga_text_escape_buf(&b, "\033\033", 2, 0), -E2BIG);
	ga_buf_release(&b);
}

static void test_unit(void **state)
{
	(void)state;
	char u[GA_TEXT_UNIT_MAX];
	size_t n = 99;
	assert_int_equal(ga_text_unit("", 0, 0, u, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ga_text_unit("\xf0\x9f\x98\x80z", 5, 0, u, &n), 4);
	assert_int_equal(n, 4);
	assert_int_equal(ga_text_unit("\xe2\x80\xae", 3, 0, u, &n), 3);
	assert_int_equal(n, 6);
	assert_memory_equal(u, "\\u202e", 6);
	assert_int_equal(ga_text_unit("\xfe", 1, 0, u, &n), 1);
	assert_memory_equal(u, "\\xfe", 4);
}

static void test_ring(void **state)
{
	(void)state;
	struct ga_text_ring r;
	ga_text_ring_init(&r, 0);
	assert_null(ga_text_ring_esc(&r, NULL));
	const char *clean = "plain text";
	assert_ptr_equal(ga_text_ring_esc(&r, clean), clean); /* nothing to escape: no copy */
	const char *v[GA_TEXT_RING_N];
	char want[GA_TEXT_RING_N][16];
	for (int i = 0; i < GA_TEXT_RING_N; i++) {
		char in[16];
		snprintf(in, sizeof(in), "%d\033", i);
		snprintf(want[i], sizeof(want[i]), "%d\\x1b", i);
		v[i] = ga_text_ring_esc(&r, in);
	}
	/* the last GA_TEXT_RING_N copies are all still valid */
	for (int i = 0; i < GA_TEXT_RING_N; i++)
		assert_string_equal(v[i], want[i]);
	ga_text_ring_release(&r);
}

static void test_uri_path(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	const char *in = "usr/lib/libstdc++.so.6!x y%\033]:@~_-.\xc3\xa9?#[]";
	assert_int_equal(ga_text_uri_path(&b, in, strlen(in)), 0);
	assert_string_equal(b.data, "usr/lib/libstdc++.so.6!x%20y%25%1B%5D%3A@~_-.%C3%A9%3F%23%5B%5D");
	ga_buf_release(&b);
}

/* A fleet report with one hostile drift entry and a hostile skipped report. */
static void hostile_report(struct ga_fleet_report *r, struct ga_fleet_drift *d, struct ga_fleet_skip *sk,
                           char **reason)
{
	memset(r, 0, sizeof(*r));
	memset(d, 0, sizeof(*d));
	d->host = "h|`\033[2J\007\nresult: PASS\xfe";
	d->source = "a,\"b\"\r\n";
	d->class_id = "c";
	d->stack_sha256 = "0123456789abcdef";
	d->reasons.v = reason;
	d->reasons.n = 1;
	d->detail = "x\xc2\x9by";
	sk->source = "bad\033.json";
	sk->reason = "text\touter";
	r->drift = d;
	r->n_drift = 1;
	r->skipped_reports = sk;
	r->n_skipped_reports = 1;
	r->drift_nodes = (struct ga_ou64){ 1, true };
	r->skipped = (struct ga_ou64){ 1, true };
}

static void no_raw_controls(const struct ga_buf *b, int csv)
{
	for (size_t i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->data[i];
		if (c == '\n' && (!csv || (i > 0 && b->data[i - 1] == '\r')))
			continue; /* CSV: only the record separator CRLF */
		if (c == '\r' && csv && i + 1 < b->len && b->data[i + 1] == '\n')
			continue;
		assert_false(c < 0x20 || c == 0x7f || c == 0xfe);
	}
}

static void test_markdown_and_csv(void **state)
{
	(void)state;
	struct ga_fleet_report r;
	struct ga_fleet_drift d;
	struct ga_fleet_skip sk;
	char *reason = "stack";
	hostile_report(&r, &d, &sk, &reason);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_markdown_fleet(&b, &r, NULL, NULL), 0);
	no_raw_controls(&b, 0);
	assert_non_null(strstr(b.data, "| h\\|\\`\\x1b[2J\\x07\\nresult: PASS\\xfe | stack |"));
	assert_non_null(strstr(b.data, "x\\u009by"));
	assert_non_null(strstr(b.data, "| bad\\x1b.json | text\\touter |"));
	ga_buf_release(&b);

	ga_buf_init(&b, 0);
	assert_int_equal(ga_csv_fleet(&b, &r, NULL), 0);
	no_raw_controls(&b, 1);
	/* the header and two records: every record on one line */
	size_t lines = 0;
	for (size_t i = 0; i < b.len; i++)
		lines += b.data[i] == '\n';
	assert_int_equal(lines, 3);
	assert_non_null(strstr(
	        b.data, ",h|`\\x1b[2J\\x07\\nresult: PASS\\xfe,\"a,\"\"b\"\"\\r\\n\",stack,x\\u009by,"));
	assert_non_null(strstr(b.data, ",bad\\x1b.json,,text\\touter,"));
	ga_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_single_byte),
		cmocka_unit_test(test_terminal_sequences),
		cmocka_unit_test(test_keep_flags),
		cmocka_unit_test(test_valid_utf8_kept),
		cmocka_unit_test(test_c1_and_invisible),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_unit),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_uri_path),
		cmocka_unit_test(test_markdown_and_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
