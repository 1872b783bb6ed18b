/*
 * test_hstate.c - the health state (hstate.h) with a fake clock: a raised
 * condition survives a restart (write, read back) and a reboot (the log is
 * empty: it is added back as sticky), --clear lowers it, count/window
 * thresholds raise only at the count, flap damping keeps it raised until it
 * has stayed clear for N collections and a duration, replace never lowers by
 * itself, and a re-read log does not count the same event twice.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/hstate.h"
#include "gpuaudit/hstate-analyze.h"

static const char *ev(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

/* A kernel-log finding as health.c makes it: evidence count and last_boot_s. */
static void xid(struct ga_findings *f, const char *code, enum ga_severity sev, unsigned count, double last)
{
	struct ga_finding *fd = ga_findings_add_code(f, code, sev, "0000:0f:00.0", "fix", "%s", code);
	assert_non_null(fd);
	assert_int_equal(ga_finding_set_device(fd, "GPU-1", "0000:0f:00.0"), 0);
	assert_int_equal(ga_finding_evidence(fd, "count", "%u", count), 0);
	assert_int_equal(ga_finding_evidence(fd, "last_boot_s", "%.6f", last), 0);
}

static const struct ga_finding *find(const struct ga_findings *f, const char *code)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].code, code))
			return &f->v[i];
	return NULL;
}

/* Write the state and read it back: what a restart of the agent sees. */
static void restart(struct ga_health_state *st)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_hstate_write(st, &b), 0);
	ga_hstate_release(st);
	assert_int_equal(ga_hstate_read(NULL, b.data, b.len, st), 0);
	ga_buf_release(&b);
}

static void test_sticky_across_restart_and_reboot(void **state)
{
	(void)state;
	struct ga_health_state st;
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	struct ga_findings f;
	ga_findings_init(&f);
	xid(&f, "GA-XID-48", GA_SEV_CRITICAL, 1, 10.0);
	int64_t t = 1000000;
	assert_int_equal(ga_hstate_update(&st, &f, NULL, t, "boot-1"), 0);
	assert_string_equal(ev(find(&f, "GA-XID-48"), "condition"), "raised");
	assert_true(ga_finding_is_sticky(find(&f, "GA-XID-48")));
	ga_findings_release(&f);
	restart(&st);
	assert_int_equal(st.n_conditions, 1);
	assert_true(st.conditions[0].raised.v);
	/* after a reboot the log is empty: the condition is still reported */
	ga_findings_init(&f);
	assert_int_equal(ga_hstate_update(&st, &f, NULL, t + 60, "boot-2"), 0);
	const struct ga_finding *fd = find(&f, "GA-XID-48");
	assert_non_null(fd);
	assert_string_equal(ev(fd, "condition"), "sticky");
	assert_int_equal(fd->severity, GA_SEV_CRITICAL);
	assert_int_equal(fd->action, GA_ACT_RESET_GPU);
	assert_string_equal(fd->gpu_uuid, "GPU-1");
	assert_string_equal(fd->pci_address, "0000:0f:00.0");
	ga_findings_release(&f);
	/* the operator clears it */
	assert_int_equal(ga_hstate_clear(&st, "GA-XID-13"), 0);
	assert_int_equal(ga_hstate_clear(&st, "GA-XID-48"), 1);
	restart(&st);
	ga_findings_init(&f);
	assert_int_equal(ga_hstate_update(&st, &f, NULL, t + 120, "boot-2"), 0);
	assert_null(find(&f, "GA-XID-48"));
	ga_findings_release(&f);
	ga_hstate_release(&st);
}

static void test_rereading_the_log(void **state)
{
	(void)state;
	struct ga_health_state st;
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	struct ga_health_threshold th = { .code = "GA-XID-13", .count = 5, .window_s = 3600 };
	th.action_set = true;
	th.action = GA_ACT_INVESTIGATE;
	struct ga_health_policy hp = { .thresholds = &th, .n_thresholds = 1 };
	int64_t t = 2000000;
	/* the same 3 events read again and again are 3, not 3 per read */
	for (int i = 0; i < 4; i++) {
		struct ga_findings f;
		ga_findings_init(&f);
		xid(&f, "GA-XID-13", GA_SEV_WARNING, 3, 30.0);
		assert_int_equal(ga_hstate_update(&st, &f, &hp, t + i * 60, "b"), 0);
		assert_string_equal(ev(find(&f, "GA-XID-13"), "threshold"), "3 of 5 in 3600 s");
		assert_false(ga_finding_is_sticky(find(&f, "GA-XID-13")));
		ga_findings_release(&f);
	}
	/* two more: five in the hour raises it, with the policy's action */
	struct ga_findings f;
	ga_findings_init(&f);
	xid(&f, "GA-XID-13", GA_SEV_WARNING, 5, 90.0);
	assert_int_equal(ga_hstate_update(&st, &f, &hp, t + 300, "b"), 0);
	const struct ga_finding *fd = find(&f, "GA-XID-13");
	assert_string_equal(ev(fd, "condition"), "raised");
	assert_int_equal(fd->action, GA_ACT_INVESTIGATE);
	ga_findings_release(&f);
	ga_hstate_release(&st);
}

static void test_window(void **state)
{
	(void)state;
	struct ga_health_state st;
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	struct ga_health_threshold th = { .code = "GA-XID-*", .count = 2, .window_s = 3600 };
	struct ga_health_policy hp = { .thresholds = &th, .n_thresholds = 1 };
	/* one event, then one more two hours later: never two within the hour */
	struct ga_findings f;
	ga_findings_init(&f);
	xid(&f, "GA-XID-31", GA_SEV_WARNING, 1, 10.0);
	assert_int_equal(ga_hstate_update(&st, &f, &hp, 0 + 100000, "b"), 0);
	ga_findings_release(&f);
	ga_findings_init(&f);
	xid(&f, "GA-XID-31", GA_SEV_WARNING, 2, 7300.0);
	assert_int_equal(ga_hstate_update(&st, &f, &hp, 100000 + 7200, "b"), 0);
	assert_string_equal(ev(find(&f, "GA-XID-31"), "threshold"), "1 of 2 in 3600 s");
	ga_findings_release(&f);
	/* a third ten minutes later: two in the hour */
	ga_findings_init(&f);
	xid(&f, "GA-XID-31", GA_SEV_WARNING, 3, 7900.0);
	assert_int_equal(ga_hstate_update(&st, &f, &hp, 100000 + 7800, "b"), 0);
	assert_string_equal(ev(find(&f, "GA-XID-31"), "condition"), "raised");
	ga_findings_release(&f);
	ga_hstate_release(&st);
}

/* A present/absent condition (NVML row remap pending) that flaps is not lowered at once. */
static void test_damping(void **state)
{
	(void)state;
	struct ga_health_state st;
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	struct ga_health_policy hp = { 0 };
	GA_SET(hp.clear_after, 3);
	GA_SET(hp.clear_for_s, 600);
	int64_t t = 3000000;
	struct ga_findings f;
	ga_findings_init(&f);
	assert_non_null(ga_findings_add(&f, GA_C_ROW_REMAP_PENDING, GA_SEV_ERROR, "0000:0f:00.0", NULL, "p"));
	assert_int_equal(ga_hstate_update(&st, &f, &hp, t, "b"), 0);
	assert_true(ga_finding_is_sticky(&f.v[0]));
	ga_findings_release(&f);
	/* absent for 3 collections but only 3 minutes: still raised */
	for (int i = 1; i <= 3; i++) {
		ga_findings_init(&f);
		assert_int_equal(ga_hstate_update(&st, &f, &hp, t + i * 60, "b"), 0);
		assert_non_null(find(&f, "GA-ROW-REMAP-PENDING"));
		ga_findings_release(&f);
	}
	/* back once: the clear run starts over */
	ga_findings_init(&f);
	assert_non_null(ga_findings_add(&f, GA_C_ROW_REMAP_PENDING, GA_SEV_ERROR, "0000:0f:00.0", NULL, "p"));
	assert_int_equal(ga_hstate_update(&st, &f, &hp, t + 900, "b"), 0);
	ga_findings_release(&f);
	for (int i = 1; i <= 2; i++) {
		ga_findings_init(&f);
		assert_int_equal(ga_hstate_update(&st, &f, &hp, t + 900 + i * 600, "b"), 0);
		assert_non_null(find(&f, "GA-ROW-REMAP-PENDING")); /* 2 of 3 clear collections */
		ga_findings_release(&f);
	}
	/* 3 clear collections and 30 minutes: lowered */
	ga_findings_init(&f);
	assert_int_equal(ga_hstate_update(&st, &f, &hp, t + 900 + 1800, "b"), 0);
	assert_null(find(&f, "GA-ROW-REMAP-PENDING"));
	ga_findings_release(&f);
	ga_hstate_release(&st);
}

/* Runs without the kernel log (verdict unknown) are not clear runs: nothing is lowered or forgotten. */
static void test_unknown_runs(void **state)
{
	(void)state;
	struct ga_health_state st;
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	struct ga_health_policy hp = { 0 };
	GA_SET(hp.clear_after, 2);
	GA_SET(hp.clear_for_s, 600);
	int64_t t = 4000000;
	struct ga_findings f;
	ga_findings_init(&f);
	assert_non_null(
	        ga_findings_add_member(&f, GA_C_XID, "79", GA_SEV_CRITICAL, "0000:47:00.0", NULL, "lost"));
	assert_int_equal(ga_hstate_update(&st, &f, &hp, t, "b"), 0);
	ga_findings_release(&f);
	/* ten unknown runs over days: added back each time, clear_runs stays 0 */
	for (int i = 1; i <= 10; i++) {
		ga_findings_init(&f);
		assert_int_equal(ga_hstate_update_unknown(&st, &f, &hp, t + i * 86400, "b"), 0);
		const struct ga_finding *fd = find(&f, "GA-XID-79");
		assert_non_null(fd);
		assert_true(ga_finding_is_sticky(fd));
		ga_findings_release(&f);
	}
	assert_int_equal(st.n_conditions, 1);
	assert_true(st.conditions[0].raised.v);
	assert_int_equal(st.conditions[0].clear_runs.v, 0);
	/* the same absences as covered runs: two of them lower it */
	for (int i = 1; i <= 2; i++) {
		ga_findings_init(&f);
		assert_int_equal(ga_hstate_update(&st, &f, &hp, t + 11 * 86400 + i * 600, "b"), 0);
		if (i == 1)
			assert_non_null(find(&f, "GA-XID-79"));
		else
			assert_null(find(&f, "GA-XID-79"));
		ga_findings_release(&f);
	}
	assert_false(st.conditions[0].raised.v);
	ga_hstate_release(&st);
}

/* replace is never lowered by itself; a hardware Xid back after two reboots becomes replace. */
static void test_replace_and_repeats(void **state)
{
	(void)state;
	struct ga_health_state st;
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	int64_t t = 4000000;
	const char *boots[] = { "b1", "b2", "b3" };
	struct ga_findings f;
	for (int i = 0; i < 3; i++) {
		ga_findings_init(&f);
		xid(&f, "GA-XID-79", GA_SEV_CRITICAL, 1, 5.0);
		assert_int_equal(ga_hstate_update(&st, &f, NULL, t + i * 86400, boots[i]), 0);
		const struct ga_finding *fd = find(&f, "GA-XID-79");
		assert_int_equal(fd->action, i < 2 ? GA_ACT_REBOOT : GA_ACT_REPLACE);
		if (i == 2)
			assert_string_equal(ev(fd, "earlier_boots"), "2");
		ga_findings_release(&f);
	}
	for (int i = 1; i <= 5; i++) {
		ga_findings_init(&f);
		assert_int_equal(ga_hstate_update(&st, &f, NULL, t + 3 * 86400 + i * 86400, "b4"), 0);
		assert_non_null(find(&f, "GA-XID-79"));
		assert_int_equal(find(&f, "GA-XID-79")->action, GA_ACT_REPLACE);
		ga_findings_release(&f);
	}
	assert_int_equal(ga_hstate_clear(&st, "all"), 1);
	ga_hstate_release(&st);
	/* an AMD uncorrectable RAS error on the same GPU in a third boot: replace, as an Xid */
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	for (int i = 0; i < 3; i++) {
		ga_findings_init(&f);
		xid(&f, "GA-KLOG-AMDGPU-RAS", GA_SEV_CRITICAL, 1, 5.0);
		assert_int_equal(ga_hstate_update(&st, &f, NULL, t + i * 86400, boots[i]), 0);
		const struct ga_finding *fd = find(&f, "GA-KLOG-AMDGPU-RAS");
		assert_int_equal(fd->action, i < 2 ? GA_ACT_DRAIN : GA_ACT_REPLACE);
		ga_findings_release(&f);
	}
	ga_hstate_release(&st);
	/* a kernel-log kind that is no memory error is not escalated */
	assert_int_equal(ga_hstate_read(NULL, NULL, 0, &st), 0);
	for (int i = 0; i < 3; i++) {
		ga_findings_init(&f);
		xid(&f, "GA-KLOG-AMDGPU-RING-TIMEOUT", GA_SEV_ERROR, 1, 5.0);
		assert_int_equal(ga_hstate_update(&st, &f, NULL, t + i * 86400, boots[i]), 0);
		assert_int_not_equal(find(&f, "GA-KLOG-AMDGPU-RING-TIMEOUT")->action, GA_ACT_REPLACE);
		ga_findings_release(&f);
	}
	ga_hstate_release(&st);
}

static void test_bad_files(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_health_state st;
	const char *bad = "{\"schema\": \"something/else\"}";
	assert_int_equal(ga_hstate_read(ctx, bad, strlen(bad), &st), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "gpuaudit.health-state/v2"));
	const char *nocode = "{\"schema\": \"gpuaudit.health-state/v2\", \"conditions\": [{}]}";
	assert_int_equal(ga_hstate_read(ctx, nocode, strlen(nocode), &st), -EBADMSG);
	/* v1: its boots are carried over */
	const char *v1 = "{\"schema\": \"gpuaudit.health-state/v1\", \"seen\": [{\"xid\": 79, "
	                 "\"device\": \"0000:47:00.0\", \"boots\": [\"a\", \"b\"]}]}";
	assert_int_equal(ga_hstate_read(ctx, v1, strlen(v1), &st), 0);
	assert_int_equal(st.n_conditions, 1);
	assert_string_equal(st.conditions[0].code, "GA-XID-79");
	assert_int_equal(st.conditions[0].boots.n, 2);
	assert_string_equal(st.schema, GA_HSTATE_SCHEMA);
	ga_hstate_release(&st);
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sticky_across_restart_and_reboot),
		cmocka_unit_test(test_rereading_the_log),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_damping),
		cmocka_unit_test(test_unknown_runs),
		cmocka_unit_test(test_replace_and_repeats),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
