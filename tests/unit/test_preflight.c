/*
 * test_preflight.c - preflight's decisions (lib/analyze/preflight.c): step
 * statuses from findings and check results, the overall result, the warm-up
 * as JUnit cases; and the JUnit writer (lib/emit/junit.c) on awkward text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/junit.h"
#include "gpuaudit/preflight.h"

static void test_statuses(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	size_t errors = 99;
	assert_int_equal(ga_pf_status_of_findings(&f, false, &errors), GA_PF_PASS);
	assert_int_equal(errors, 0);
	assert_non_null(ga_findings_add(&f, "GA-W", GA_SEV_WARNING, "x", NULL, "warn"));
	assert_int_equal(ga_pf_status_of_findings(&f, false, &errors), GA_PF_PASS);
	assert_non_null(ga_findings_add(&f, "GA-E", GA_SEV_ERROR, "x", NULL, "err"));
	assert_int_equal(ga_pf_status_of_findings(&f, false, &errors), GA_PF_FAIL);
	assert_int_equal(errors, 1);
	assert_int_equal(ga_pf_status_of_findings(&f, true, &errors), GA_PF_UNKNOWN);
	ga_findings_release(&f);
	assert_int_equal(ga_pf_status_of_check(GA_CHECK_PASS), GA_PF_PASS);
	assert_int_equal(ga_pf_status_of_check(GA_CHECK_FAIL), GA_PF_FAIL);
	assert_int_equal(ga_pf_status_of_check(GA_CHECK_UNKNOWN), GA_PF_UNKNOWN);
	assert_string_equal(ga_pf_status_name(GA_PF_SKIP), "skip");
	assert_string_equal(ga_pf_status_name((enum ga_pf_status)42), "unknown");
}

static void test_result(void **state)
{
	(void)state;
	enum ga_pf_status pass_skip[] = { GA_PF_PASS, GA_PF_SKIP, GA_PF_SKIP, GA_PF_PASS };
	enum ga_pf_status unknown[] = { GA_PF_PASS, GA_PF_UNKNOWN, GA_PF_SKIP, GA_PF_PASS };
	/* a failure wins over an unknown before or after it */
	enum ga_pf_status fail1[] = { GA_PF_UNKNOWN, GA_PF_FAIL, GA_PF_PASS, GA_PF_PASS };
	enum ga_pf_status fail2[] = { GA_PF_FAIL, GA_PF_UNKNOWN, GA_PF_PASS, GA_PF_PASS };
	assert_int_equal(ga_pf_result(pass_skip, 4), GA_PF_PASS);
	assert_int_equal(ga_pf_result(unknown, 4), GA_PF_UNKNOWN);
	assert_int_equal(ga_pf_result(fail1, 4), GA_PF_FAIL);
	assert_int_equal(ga_pf_result(fail2, 4), GA_PF_FAIL);
	size_t fl, un, sk;
	ga_pf_count(fail1, 4, &fl, &un, &sk);
	assert_int_equal(fl, 1);
	assert_int_equal(un, 1);
	assert_int_equal(sk, 0);
	ga_pf_count(pass_skip, 4, &fl, &un, &sk);
	assert_int_equal(sk, 2);
}

static void test_warmup_cases(void **state)
{
	(void)state;
	enum ga_pf_status cold, warm;
	/* a command that failed its cold start: the warm runs never happened */
	ga_pf_warmup_cases(GA_PF_FAIL, true, 1, &cold, &warm);
	assert_int_equal(cold, GA_PF_FAIL);
	assert_int_equal(warm, GA_PF_SKIP);
	/* one that failed a warm run passed its cold start */
	ga_pf_warmup_cases(GA_PF_FAIL, true, 3, &cold, &warm);
	assert_int_equal(cold, GA_PF_PASS);
	assert_int_equal(warm, GA_PF_FAIL);
	/* the built-in warm-up: the step's status */
	ga_pf_warmup_cases(GA_PF_FAIL, false, 0, &cold, &warm);
	assert_int_equal(cold, GA_PF_FAIL);
	assert_int_equal(warm, GA_PF_FAIL);
}

static void test_junit(void **state)
{
	(void)state;
	char head[] = "ok <tag> & \"q\"\x01\r\n\xff\xc3\xa9";
	struct ga_capture out = { .head = head,
		                  .head_len = sizeof(head) - 1,
		                  .tail = (char *)"end",
		                  .tail_len = 3,
		                  .total_bytes = 100,
		                  .omitted_bytes = 80 };
	struct ga_junit_case c[3] = {
		{ .classname = "k",
		  .name = "a<b",
		  .status = GA_JUNIT_PASS,
		  .have_time = true,
		  .time_s = 1.5 },
		{ .classname = "k",
		  .name = "f",
		  .status = GA_JUNIT_FAILURE,
		  .message = "m\"",
		  .detail = "why",
		  .detail_len = 3,
		  .out = &out },
		{ .classname = "k", .name = "s", .status = GA_JUNIT_SKIPPED, .message = "no" },
	};
	struct ga_junit_suite s = { "suite", 3, 1, 0, 1, c, 3 };
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_junit_write(&b, &s), 0);
	assert_non_null(strstr(b.data, "<testsuite name=\"suite\" tests=\"3\" failures=\"1\" errors=\"0\" "
	                               "skipped=\"1\">"));
	assert_non_null(strstr(b.data, "name=\"a&lt;b\" time=\"1.500000\">"));
	assert_non_null(strstr(b.data, "<failure message=\"m&quot;\" type=\"failure\">why</failure>"));
	assert_non_null(strstr(b.data,
	                       "<system-out>ok &lt;tag&gt; &amp; &quot;q&quot;&#13;\n?\xc3\xa9\n[... 80 "
	                       "bytes omitted ...]\nend</system-out>"));
	assert_non_null(strstr(b.data, "<skipped message=\"no\"/>"));
	/* the buffer's cap is reported, not a cut document passed off as whole */
	struct ga_buf small;
	ga_buf_init(&small, 64);
	assert_int_equal(ga_junit_write(&small, &s), -E2BIG);
	ga_buf_release(&small);
	ga_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_result),
		cmocka_unit_test(test_warmup_cases),
		cmocka_unit_test(test_junit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
