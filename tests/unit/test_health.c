/*
 * test_health.c - the decisions `health` used to take in src/cmd-health.c,
 * now in the library: the D-state and unreadable-log findings
 * (lib/analyze/health.c), the report's result and kernel-log members
 * (ga_health_report_take), and the boot clock readers (lib/collect/sample.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/nodereport-analyze.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/sample-read.h"

static const char *ev(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

static void test_dstate(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_health_dstate_finding(NULL, 0, &f), 0);
	assert_int_equal(f.n, 0); /* none in D state: no finding */
	char *one[] = { "12 (nvidia-smi)", NULL };
	assert_int_equal(ga_health_dstate_finding(one, 1, &f), 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].code, "GA-PROC-D-STATE");
	assert_int_equal(f.v[0].severity, GA_SEV_WARNING);
	assert_string_equal(f.v[0].message, "1 process in uninterruptible sleep (D): 12 (nvidia-smi)");
	assert_string_equal(ev(&f.v[0], "count"), "1");
	char *many[20];
	char names[20][16];
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "%d (p)", i);
		many[i] = names[i];
	}
	assert_int_equal(ga_health_dstate_finding(many, 20, &f), 0);
	assert_int_equal(f.n, 2);
	/* sixteen named, the rest counted */
	assert_non_null(strstr(f.v[1].message, "20 processes in uninterruptible sleep (D): 0 (p), "));
	assert_non_null(strstr(f.v[1].message, "15 (p), +4 more"));
	assert_null(strstr(f.v[1].message, "16 (p)"));
	assert_string_equal(ev(&f.v[1], "count"), "20");
	ga_findings_release(&f);
}

static void test_report(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_health_klog_unreadable("Operation not permitted", &f), 0);
	assert_string_equal(f.v[0].code, "GA-KLOG-UNREADABLE");
	assert_int_equal(f.v[0].severity, GA_SEV_WARNING);
	struct ga_health_log log = { .note = "dev/kmsg unreadable", .events = 2, .since_s = 0 };
	log.st.lines = 7;
	struct ga_health_report r;
	assert_int_equal(ga_health_report_take(&r, &log, &f), 0);
	assert_int_equal(f.n, 0); /* moved into the report */
	assert_int_equal(r.findings.n, 1);
	assert_string_equal(r.schema, GA_HEALTH_SCHEMA);
	assert_string_equal(r.result, "ok"); /* a warning is not a problem */
	assert_null(r.kernel_log.source);
	assert_string_equal(r.kernel_log.note, "dev/kmsg unreadable");
	assert_true(r.kernel_log.lines.set && r.kernel_log.lines.v == 7);
	assert_false(r.kernel_log.since_s.set); /* no --since: null */
	assert_false(r.kernel_log.btime.set);
	ga_schema_release(&ga_health_report_schema, &r);

	ga_findings_init(&f);
	assert_non_null(
	        ga_findings_add_code(&f, "GA-XID-79", GA_SEV_CRITICAL, "gpu0", NULL, "fell off the bus"));
	log = (struct ga_health_log){ .source = "k.log", .note = "ignored", .since_s = 3600 };
	assert_int_equal(ga_health_report_take(&r, &log, &f), 0);
	assert_string_equal(r.result, "problems");
	assert_string_equal(r.kernel_log.source, "k.log");
	assert_null(r.kernel_log.note); /* a note only when no log was read */
	assert_true(r.kernel_log.since_s.set && r.kernel_log.since_s.v == 3600);
	ga_schema_release(&ga_health_report_schema, &r);
}

/* The verdict over the coverage: unknown without the kernel log, problems first. */
static void test_verdict(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_health_log log = { 0 };
	/* recorded out of order, kept kernel log first */
	ga_health_cover(&log, "processes", GA_HSRC_READ, false, "proc/*/stat", NULL);
	ga_health_cover(&log, "node", GA_HSRC_READ, true, "/", NULL);
	ga_health_cover(&log, "kernel_log", GA_HSRC_MISSING, true, "refused: run as root", "unreadable");
	assert_int_equal(log.n_cov, 3);
	assert_string_equal(log.cov[0].source, "kernel_log");
	assert_string_equal(log.cov[1].source, "node");
	assert_string_equal(log.cov[2].source, "processes");
	assert_false(ga_health_covered(&log));
	const struct ga_health_cov *why = NULL;
	assert_non_null(ga_findings_add_code(&f, "GA-TEST-W", GA_SEV_WARNING, "x", NULL, "w"));
	assert_int_equal(ga_health_verdict(&log, &f, &why), GA_HEALTH_UNKNOWN);
	assert_non_null(why);
	assert_string_equal(why->summary, "unreadable");
	struct ga_health_report r;
	assert_int_equal(ga_health_report_take(&r, &log, &f), 0);
	assert_string_equal(r.result, "unknown");
	assert_string_equal(r.reason, "refused: run as root");
	assert_int_equal(r.n_coverage, 3);
	assert_string_equal(r.coverage[0].state, "missing");
	assert_string_equal(r.coverage[2].state, "read");
	ga_schema_release(&ga_health_report_schema, &r);
	/* an error finding: problems, whatever is missing */
	ga_findings_init(&f);
	assert_non_null(ga_findings_add_code(&f, "GA-TEST-E", GA_SEV_ERROR, "x", NULL, "e"));
	assert_int_equal(ga_health_verdict(&log, &f, &why), GA_HEALTH_PROBLEMS);
	assert_null(why);
	ga_findings_release(&f);
	/* a missing source that does not decide (processes) leaves the verdict ok */
	struct ga_health_log ok = { 0 };
	ga_health_cover(&ok, "kernel_log", GA_HSRC_READ, true, "k.log", NULL);
	ga_health_cover(&ok, "processes", GA_HSRC_MISSING, false, "no proc", NULL);
	ga_findings_init(&f);
	assert_true(ga_health_covered(&ok));
	assert_int_equal(ga_health_verdict(&ok, &f, NULL), GA_HEALTH_OK);
	ga_findings_release(&f);
}

static void test_boot_clock(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	char root[4096];
	snprintf(root, sizeof(root), "%s/samples/idle/t0", fx);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_oi64 bt = { 0 };
	ga_proc_btime(ctx, &bt);
	assert_true(bt.set);
	assert_true(bt.v > 0);
	snprintf(root, sizeof(root), "%s/nodes/a10-x8/root", fx);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_odbl up = { 0 };
	ga_proc_uptime(ctx, &up);
	assert_true(up.set && up.v > 0);
	snprintf(root, sizeof(root), "%s/kmsg", fx); /* a directory without proc/ */
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_oi64 none = { 0 };
	ga_proc_btime(ctx, &none);
	assert_false(none.set); /* absent: unset, never 0 */
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dstate),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_boot_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
