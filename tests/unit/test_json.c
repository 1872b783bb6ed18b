/*
 * test_json.c - the strict JSON writer: exact output, escaping, numbers,
 * misuse, and validity of everything it accepts (checked with jansson).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gpuaudit/json.h"

struct wr {
	struct ga_buf b;
	struct ga_json w;
};

static void wr_init(struct wr *x, bool pretty)
{
	ga_buf_init(&x->b, 0);
	ga_json_init(&x->w, &x->b, pretty);
}

/* Finish, require success, check jansson parses it, return the text (owned by x). */
static const char *wr_ok(struct wr *x)
{
	assert_int_equal(ga_json_finish(&x->w), 0);
	json_error_t e;
	json_t *j = json_loadb(x->b.data, x->b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
	if (!j)
		fail_msg("not JSON: %s: %s", e.text, x->b.data);
	json_decref(j);
	return x->b.data;
}

static void wr_release(struct wr *x)
{
	ga_buf_release(&x->b);
}

static void write_sample(struct ga_json *w)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "a");
	ga_json_u64(w, 1);
	ga_json_key(w, "b");
	ga_json_arr_begin(w);
	ga_json_i64(w, -2);
	ga_json_str(w, "x");
	ga_json_obj_begin(w);
	ga_json_obj_end(w);
	ga_json_arr_begin(w);
	ga_json_arr_end(w);
	ga_json_null(w);
	ga_json_arr_end(w);
	ga_json_key(w, "c");
	ga_json_obj_begin(w);
	ga_json_key(w, "d");
	ga_json_bool(w, true);
	ga_json_key(w, "e");
	ga_json_bool(w, false);
	ga_json_key(w, "f");
	ga_json_str(w, NULL);
	ga_json_obj_end(w);
	ga_json_obj_end(w);
}

static void test_compact(void **state)
{
	(void)state;
	struct wr x;
	wr_init(&x, false);
	write_sample(&x.w);
	assert_string_equal(
	        wr_ok(&x), "{\"a\":1,\"b\":[-2,\"x\",{},[],null],\"c\":{\"d\":true,\"e\":false,\"f\":null}}");
	wr_release(&x);
}

static void test_pretty(void **state)
{
	(void)state;
	struct wr x;
	wr_init(&x, true);
	write_sample(&x.w);
	assert_string_equal(wr_ok(&x), "{\n"
	                               "  \"a\": 1,\n"
	                               "  \"b\": [\n"
	                               "    -2,\n"
	                               "    \"x\",\n"
	                               "    {},\n"
	                               "    [],\n"
	                               "    null\n"
	                               "  ],\n"
	                               "  \"c\": {\n"
	                               "    \"d\": true,\n"
	                               "    \"e\": false,\n"
	                               "    \"f\": null\n"
	                               "  }\n"
	                               "}\n");
	wr_release(&x);
}

static void test_top_level_scalars(void **state)
{
	(void)state;
	struct wr x;
	wr_init(&x, false);
	ga_json_u64(&x.w, UINT64_MAX);
	/* valid JSON, though beyond what jansson reads */
	assert_int_equal(ga_json_finish(&x.w), 0);
	assert_string_equal(x.b.data, "18446744073709551615");
	wr_release(&x);
	wr_init(&x, false);
	ga_json_i64(&x.w, INT64_MIN);
	assert_string_equal(wr_ok(&x), "-9223372036854775808");
	wr_release(&x);
	wr_init(&x, false);
	ga_json_str(&x.w, "");
	assert_string_equal(wr_ok(&x), "\"\"");
	wr_release(&x);
}

/* Write s (n bytes) as a top-level string value and return the output. */
static char *str_out(const char *s, size_t n)
{
	struct wr x;
	wr_init(&x, false);
	ga_json_arr_begin(&x.w);
	ga_json_strn(&x.w, s, n);
	ga_json_arr_end(&x.w);
	wr_ok(&x);
	/* strip the brackets */
	assert_true(x.b.len >= 2);
	char *r = strndup(x.b.data + 1, x.b.len - 2);
	wr_release(&x);
	return r;
}

static void test_escape_controls(void **state)
{
	(void)state;
	for (unsigned c = 0; c < 0x20; c++) {
		char in[3] = { 'a', (char)c, 'b' };
		char *out = str_out(in, 3);
		char want[16];
		if (c == '\n')
			snprintf(want, sizeof(want), "\"a\\nb\"");
		else if (c == '\t')
			snprintf(want, sizeof(want), "\"a\\tb\"");
		else
			snprintf(want, sizeof(want), "\"a\\u%04xb\"", c);
		assert_string_equal(out, want);
		free(out);
	}
	char *out = str_out("\"\\\x7f/", 4);
	assert_string_equal(out, "\"\\\"\\\\\\u007f/\"");
	free(out);
	/* through ga_json_str and as a key too */
	struct wr x;
	wr_init(&x, false);
	ga_json_obj_begin(&x.w);
	ga_json_key(&x.w, "k\"\x01");
	ga_json_str(&x.w, "v\\\x1f");
	ga_json_obj_end(&x.w);
	assert_string_equal(wr_ok(&x), "{\"k\\\"\\u0001\":\"v\\\\\\u001f\"}");
	wr_release(&x);
}

static void test_utf8(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		size_t n;
		const char *want;
	} cases[] = {
		/* valid multibyte passes through */
		{ "\xc3\xa9", 2, "\"\xc3\xa9\"" },
		{ "\xe2\x82\xac", 3, "\"\xe2\x82\xac\"" },
		{ "\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"" },
		{ "\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"" }, /* U+10FFFF */
		/* invalid: each bad byte becomes U+FFFD */
		{ "\xff", 1, "\"\\ufffd\"" },
		{ "\x80", 1, "\"\\ufffd\"" },
		{ "\xc3", 1, "\"\\ufffd\"" },                                  /* truncated */
		{ "\xc3(", 2, "\"\\ufffd(\"" },                                /* bad continuation */
		{ "\xc0\xaf", 2, "\"\\ufffd\\ufffd\"" },                       /* overlong */
		{ "\xe0\x80\xaf", 3, "\"\\ufffd\\ufffd\\ufffd\"" },            /* overlong 3-byte */
		{ "\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"" },            /* surrogate */
		{ "\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "\xf5\x80", 2, "\"\\ufffd\\ufffd\"" },
		{ "a\xe2\x82", 3, "\"a\\ufffd\\ufffd\"" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = str_out(cases[i].in, cases[i].n);
		assert_string_equal(out, cases[i].want);
		free(out);
	}
}

static void test_numbers(void **state)
{
	(void)state;
	struct wr x;
	wr_init(&x, false);
	ga_json_arr_begin(&x.w);
	ga_json_dbl(&x.w, NAN);
	ga_json_dbl(&x.w, INFINITY);
	ga_json_dbl(&x.w, -INFINITY);
	ga_json_dbl(&x.w, 16.0);
	ga_json_dbl(&x.w, 2.5);
	ga_json_dbl(&x.w, 0.1);
	ga_json_dbl(&x.w, -0.0);
	ga_json_arr_end(&x.w);
	assert_string_equal(wr_ok(&x), "[null,null,null,16,2.5,0.1,0]");
	wr_release(&x);

	/* doubles read back exactly */
	const double vals[] = {
		1.0 / 3.0,           1e300, -1e-300, 5e-324, 1.7976931348623157e308, 123456.789, 1843212.45,
		0.30000000000000004, 1e21,  3.0e-7
	};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		wr_init(&x, false);
		ga_json_arr_begin(&x.w);
		ga_json_dbl(&x.w, vals[i]);
		ga_json_arr_end(&x.w);
		wr_ok(&x);
		json_t *j = json_loads(x.b.data, 0, NULL);
		assert_non_null(j);
		double back = json_number_value(json_array_get(j, 0));
		if (back != vals[i])
			fail_msg("%.17g written as %s", vals[i], x.b.data);
		json_decref(j);
		wr_release(&x);
	}
}

/* Run a writer sequence that must end in -EINVAL from ga_json_finish. */
#define EXPECT_MISUSE(body)                                   \
	do {                                                  \
		struct wr x_;                                 \
		wr_init(&x_, false);                          \
		struct ga_json *w = &x_.w;                    \
		body;                                         \
		assert_int_equal(ga_json_finish(w), -EINVAL); \
		wr_release(&x_);                              \
	} while (0)

static void test_misuse(void **state)
{
	(void)state;
	/* key outside an object */
	EXPECT_MISUSE(ga_json_key(w, "k"); ga_json_null(w));
	EXPECT_MISUSE(ga_json_arr_begin(w); ga_json_key(w, "k"); ga_json_null(w); ga_json_arr_end(w));
	/* value without a key */
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_u64(w, 1); ga_json_obj_end(w));
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_arr_begin(w); ga_json_arr_end(w); ga_json_obj_end(w));
	/* two keys in a row, NULL key, key without value at the end */
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_key(w, "a"); ga_json_key(w, "b"); ga_json_null(w);
	              ga_json_obj_end(w));
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_key(w, NULL); ga_json_null(w); ga_json_obj_end(w));
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_key(w, "a"); ga_json_obj_end(w));
	/* unbalanced and mismatched ends */
	EXPECT_MISUSE(ga_json_obj_end(w));
	EXPECT_MISUSE(ga_json_arr_begin(w); ga_json_arr_end(w); ga_json_arr_end(w));
	EXPECT_MISUSE(ga_json_arr_begin(w); ga_json_obj_end(w));
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_arr_end(w));
	/* two top-level values */
	EXPECT_MISUSE(ga_json_null(w); ga_json_null(w));
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_obj_end(w); ga_json_arr_begin(w); ga_json_arr_end(w));
	/* open containers at finish, and nothing written at all */
	EXPECT_MISUSE(ga_json_obj_begin(w));
	EXPECT_MISUSE(ga_json_arr_begin(w); ga_json_arr_begin(w); ga_json_arr_end(w));
	EXPECT_MISUSE((void)w);
	/* the error is sticky: later correct calls do not clear it */
	EXPECT_MISUSE(ga_json_arr_begin(w); ga_json_obj_end(w); ga_json_arr_end(w));
}

static void test_depth(void **state)
{
	(void)state;
	struct wr x;
	wr_init(&x, false);
	for (int i = 0; i < GA_JSON_MAX_DEPTH; i++)
		ga_json_arr_begin(&x.w);
	for (int i = 0; i < GA_JSON_MAX_DEPTH; i++)
		ga_json_arr_end(&x.w);
	wr_ok(&x); /* exactly the maximum is fine */
	assert_int_equal(x.b.len, 2 * GA_JSON_MAX_DEPTH);
	wr_release(&x);

	EXPECT_MISUSE(for (int i = 0; i <= GA_JSON_MAX_DEPTH; i++) ga_json_arr_begin(w);
	              for (int i = 0; i <= GA_JSON_MAX_DEPTH; i++) ga_json_arr_end(w));
	EXPECT_MISUSE(for (int i = 0; i <= GA_JSON_MAX_DEPTH; i++) {
		ga_json_obj_begin(w);
		ga_json_key(w, "k");
	} for (int i = 0; i <= GA_JSON_MAX_DEPTH; i++) ga_json_obj_end(w));
}

/* ga_json_strn is a value like ga_json_str: commas in arrays, a key required in objects. */
static void test_strn_is_a_value(void **state)
{
	(void)state;
	struct wr x;
	wr_init(&x, false);
	ga_json_arr_begin(&x.w);
	ga_json_strn(&x.w, "a\0b", 3);
	ga_json_strn(&x.w, "cd", 1);
	ga_json_arr_end(&x.w);
	assert_string_equal(wr_ok(&x), "[\"a\\u0000b\",\"c\"]");
	wr_release(&x);
	EXPECT_MISUSE(ga_json_obj_begin(w); ga_json_strn(w, "v", 1); ga_json_obj_end(w));
	EXPECT_MISUSE(ga_json_strn(w, "v", 1); ga_json_strn(w, "v", 1));
}

static void test_cap_and_enomem(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 10);
	struct ga_json w;
	ga_json_init(&w, &b, false);
	ga_json_arr_begin(&w);
	ga_json_str(&w, "0123456789abcdef");
	ga_json_arr_end(&w);
	assert_int_equal(ga_json_finish(&w), -E2BIG);
	ga_buf_release(&b);

	for (long n = 0;; n++) {
		struct wr x;
		wr_init(&x, true);
		ga_alloc_fail_after(n);
		write_sample(&x.w);
		ga_alloc_fail_after(-1);
		int r = ga_json_finish(&x.w);
		if (r == 0) {
			wr_ok(&x);
			wr_release(&x);
			break;
		}
		assert_int_equal(r, -ENOMEM);
		wr_release(&x);
		assert_true(n < 100);
	}
}

static uint32_t rng = 12345;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void test_random_strings(void **state)
{
	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		unsigned char s[64];
		size_t n = next_rand() % sizeof(s);
		for (size_t i = 0; i < n; i++) {
			uint32_t r = next_rand();
			/* bias towards interesting bytes */
			s[i] = (unsigned char)((r >> 8) % 4 == 0 ? 0x80 + r % 0x80 : r);
		}
		char z[sizeof(s) + 1];
		for (size_t i = 0; i < n; i++)
			z[i] = s[i] ? (char)s[i] : 'z';
		z[n] = '\0';
		struct wr x;
		wr_init(&x, iter & 1);
		ga_json_obj_begin(&x.w);
		ga_json_key(&x.w, "k");
		ga_json_str(&x.w, z);
		ga_json_key(&x.w, z);
		ga_json_arr_begin(&x.w);
		ga_json_str(&x.w, z);
		ga_json_dbl(&x.w, (double)next_rand() / 7.0);
		ga_json_arr_end(&x.w);
		ga_json_obj_end(&x.w);
		wr_ok(&x);
		json_t *j = json_loadb(x.b.data, x.b.len, 0, NULL);
		assert_non_null(j);
		const json_t *v = json_object_get(j, "k");
		assert_true(json_is_string(v));
		/* every input byte is at least one output character */
		assert_true(json_string_length(v) >= n);
		json_decref(j);
		wr_release(&x);
	}
	/* every 2-byte and a sample of 3-byte sequences */
	for (unsigned a = 0; a < 256; a++)
		for (unsigned b = 0; b < 256; b++) {
			char in[3] = { (char)a, (char)b, (char)(a ^ b) };
			char *out = str_out(in, (a + b) % 2 ? 2 : 3);
			free(out);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_top_level_scalars),
		cmocka_unit_test(test_escape_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_strn_is_a_value),
		cmocka_unit_test(test_cap_and_enomem),
		cmocka_unit_test(test_random_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
