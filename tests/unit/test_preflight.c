/*
 * test_preflight.c - preflight's decisions (lib/analyze/preflight.c): step
 * statuses from findings and check results, the overall result, the warm-up
 * as JUnit cases; the JUnit writer (lib/emit/junit.c) on awkward text; and
 * the report as a document (gpuaudit.preflight/v1): filled from what the
 * steps found, written through the model, read back and written again.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"
#include "gpuaudit/junit.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/preflight-emit.h"
#include "gpuaudit/preflight-analyze.h"
#include "gpuaudit/run.h"
#include "gpuaudit/warmup.h"

static void test_statuses(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	size_t errors = 99;
	assert_int_equal(ga_pf_status_of_findings(&f, false, &errors), GA_PF_PASS);
	assert_int_equal(errors, 0);
	assert_non_null(ga_findings_add_code(&f, "GA-W", GA_SEV_WARNING, "x", NULL, "warn"));
	assert_int_equal(ga_pf_status_of_findings(&f, false, &errors), GA_PF_PASS);
	assert_non_null(ga_findings_add_code(&f, "GA-E", GA_SEV_ERROR, "x", NULL, "err"));
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

/* The document written, read back through the model into *d, and written again: the same bytes. */
static char *roundtrip(const struct ga_pf_report *rep, struct ga_pf_doc *d)
{
	const struct ga_model *m = ga_model_find(GA_PREFLIGHT_SCHEMA);
	assert_non_null(m);
	struct ga_buf a, b;
	ga_buf_init(&a, 0);
	ga_buf_init(&b, 0);
	assert_int_equal(ga_preflight_write_json(rep, &a), 0);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	memset(d, 0, sizeof(*d));
	assert_int_equal(ga_model_read(ctx, m, a.data, a.len, d), 0);
	ga_ctx_free(ctx);
	assert_int_equal(ga_model_write(m, d, &b, true), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	ga_buf_release(&b);
	char *text = ga_strndup(a.data, a.len);
	ga_buf_release(&a);
	return text;
}

static void test_doc_command(void **state)
{
	(void)state;
	struct ga_node node;
	memset(&node, 0, sizeof(node));
	node.host.hostname = (char *)"node-7";
	node.n_accelerators = 2;
	struct ga_findings nf, sf;
	ga_findings_init(&nf);
	ga_findings_init(&sf);
	struct ga_finding *fd =
	        ga_findings_add_code(&nf, "GA-E", GA_SEV_ERROR, "gpu0", "drain it", "bad %d", 1);
	assert_non_null(fd);
	assert_int_equal(ga_finding_evidence(fd, "xid", "%d", 79), 0);
	struct ga_check chk = { .cls = NULL, .result = GA_CHECK_FAIL, .violations = 1 };
	ga_findings_init(&chk.findings);
	/* a cold start whose stdout has a NUL byte, then a warm run killed by SIGSEGV */
	char out0[] = "a\0b", empty[] = "",
	     err1[] = "ImportError: libcudart.so.12: cannot open shared object file\n";
	struct ga_run_result runs[2] = {
		{ .exited = true,
		  .exit_code = 0,
		  .wall_s = 0.1234567891,
		  .out = { .head = out0, .head_len = 3, .tail = empty, .total_bytes = 3 },
		  .err = { .head = empty, .tail = empty } },
		{ .signaled = true,
		  .signal = 11,
		  .wall_s = 2,
		  .out = { .head = empty, .tail = empty },
		  .err = { .head = err1,
		           .head_len = sizeof(err1) - 1,
		           .tail = empty,
		           .total_bytes = 70,
		           .omitted_bytes = 10 } },
	};
	struct ga_explain *ex = NULL;
	assert_int_equal(ga_explain_new(10, &ex), 0);
	assert_int_equal(ga_explain_feed(ex, err1, sizeof(err1) - 1), 0);
	assert_int_equal(ga_explain_finish(ex), 0);
	struct ga_explain_result exr;
	assert_int_equal(ga_explain_result_fill(ex, &exr), 0);
	const char *paths[] = { "site", "app.whl" };
	char *cmd[] = { (char *)"python3", (char *)"warmup.py", NULL };
	struct ga_pf_report rep = { .times = true,
		                    .result = GA_PF_FAIL,
		                    .discover = GA_PF_FAIL,
		                    .check = GA_PF_FAIL,
		                    .scan = GA_PF_PASS,
		                    .warmup = GA_PF_FAIL,
		                    .node = &node,
		                    .node_class = "nc-1",
		                    .node_findings = &nf,
		                    .checked = true,
		                    .policy_file = "fleet.yaml",
		                    .chk = &chk,
		                    .scanned = true,
		                    .scan_paths = paths,
		                    .n_scan = 2,
		                    .scan_msg = "2 paths",
		                    .scan_target = "rocm:6",
		                    .scan_files = 12,
		                    .scan_packages = 3,
		                    .scan_findings = &sf,
		                    .cmd = cmd,
		                    .timeout_s = 0.5,
		                    .runs = runs,
		                    .n_runs = 2,
		                    .warmup_msg = "failed",
		                    .have_median = true,
		                    .median_s = 2,
		                    .explain = &exr };
	struct ga_pf_doc d;
	char *text = roundtrip(&rep, &d);
	assert_int_equal(d.result, GA_PF_FAIL);
	assert_string_equal(d.schema, GA_PREFLIGHT_SCHEMA);
	assert_string_equal(d.discover.hostname, "node-7");
	assert_int_equal(d.discover.accelerators.v, 2);
	assert_int_equal(d.discover.findings.n, 1);
	assert_string_equal(d.discover.findings.v[0].decision, "drain it");
	assert_string_equal(d.discover.findings.v[0].evidence[0].value, "79");
	assert_non_null(d.check);
	assert_null(d.check->cls);
	assert_string_equal(d.check->policy, "fleet.yaml");
	assert_int_equal(d.check->violations.v, 1);
	assert_non_null(d.scan);
	assert_int_equal(d.scan->paths.n, 2);
	assert_string_equal(d.scan->paths.v[1], "app.whl");
	assert_int_equal(d.warmup.kind, GA_PF_WARMUP_COMMAND);
	assert_true(d.warmup.cmd.present);
	assert_false(d.warmup.builtin.present);
	assert_string_equal(d.warmup.cmd.command.v[0], "python3");
	assert_true(d.warmup.cmd.timeout_s.set);
	assert_true(d.warmup.cmd.timeout_s.v == 0.5);
	assert_non_null(d.warmup.cmd.cold);
	assert_int_equal(d.warmup.cmd.cold->status, GA_PF_RUN_EXIT);
	assert_true(d.warmup.cmd.cold->wall_s.v == 0.123457); /* rounded to the microsecond */
	/* the NUL is the replacement character */
	assert_string_equal(d.warmup.cmd.cold->out.head, "a\xef\xbf\xbd"
	                                                 "b");
	assert_int_equal(d.warmup.cmd.n_warm, 1);
	assert_int_equal(d.warmup.cmd.warm[0].status, GA_PF_RUN_SIGNAL);
	assert_string_equal(d.warmup.cmd.warm[0].signal, "SEGV");
	assert_false(d.warmup.cmd.warm[0].exit_code.set);
	assert_int_equal(d.warmup.cmd.warm[0].err.omitted_bytes.v, 10);
	assert_true(d.warmup.warm_median_s.v == 2);
	assert_non_null(d.explain);
	assert_true(d.explain->n_causes >= 1);
	assert_string_equal(d.explain->causes[0].id, "loader-soname");
	/* the built-in warm-up's members are not there at all */
	assert_non_null(strstr(text, "\"timeout_s\": 0.5,"));
	assert_non_null(strstr(text, "\"head\": \"a\xef\xbf\xbd"
	                             "b\""));
	assert_null(strstr(text, "\"backend\""));
	assert_null(strstr(text, "\"warm_s\""));
	ga_free(text);
	ga_model_release(ga_model_find(GA_PREFLIGHT_SCHEMA), &d);
	ga_schema_release(&ga_explain_result_schema, &exr);
	ga_explain_free(ex);
	ga_findings_release(&nf);
	ga_findings_release(&sf);
}

static void test_doc_builtin(void **state)
{
	(void)state;
	struct ga_node node;
	memset(&node, 0, sizeof(node));
	struct ga_findings nf;
	ga_findings_init(&nf);
	struct ga_warmup_result g = { .backend = NULL, .n = 256, .tolerance = 6.103515625e-05 };
	snprintf(g.error, sizeof(g.error), "no backend");
	struct ga_pf_report rep = { .times = false,
		                    .result = GA_PF_FAIL,
		                    .discover = GA_PF_PASS,
		                    .check = GA_PF_SKIP,
		                    .scan = GA_PF_SKIP,
		                    .warmup = GA_PF_FAIL,
		                    .node = &node,
		                    .node_findings = &nf,
		                    .gemm = &g,
		                    .warmup_msg = "no backend" };
	struct ga_pf_doc d;
	char *text = roundtrip(&rep, &d);
	assert_null(d.check);
	assert_null(d.scan);
	assert_null(d.explain);
	assert_int_equal(d.warmup.kind, GA_PF_WARMUP_BUILTIN);
	assert_false(d.warmup.cmd.present);
	assert_true(d.warmup.builtin.present);
	assert_null(d.warmup.builtin.backend); /* none could run: null, but there */
	assert_non_null(strstr(text, "\"backend\": null,"));
	assert_non_null(strstr(text, "\"max_rel_err\": null,"));
	assert_non_null(strstr(text, "\"warm_s\": [],"));
	assert_null(strstr(text, "\"command\""));
	assert_null(strstr(text, "\"cold\""));
	ga_free(text);
	ga_model_release(ga_model_find(GA_PREFLIGHT_SCHEMA), &d);

	/* three warm products with --no-times: three nulls */
	g.backend = "cpu";
	g.ran = g.passed = true;
	g.n_warm = 3;
	rep.warmup = rep.result = GA_PF_PASS;
	text = roundtrip(&rep, &d);
	assert_int_equal(d.warmup.builtin.warm_s.n, 3);
	assert_true(isnan(d.warmup.builtin.warm_s.v[2]));
	assert_non_null(strstr(text, "\"warm_s\": [\n      null,\n      null,\n      null\n    ],"));
	ga_free(text);
	ga_model_release(ga_model_find(GA_PREFLIGHT_SCHEMA), &d);
	ga_findings_release(&nf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statuses),     cmocka_unit_test(test_result),
		cmocka_unit_test(test_warmup_cases), cmocka_unit_test(test_junit),
		cmocka_unit_test(test_doc_command),  cmocka_unit_test(test_doc_builtin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
