/*
 * test_nvswitch.c - the NVSwitch view (lib/analyze/nvswitch.c through health.c): on a
 * node with NVSwitches the kernel log's SXids become evidence on the fabric findings,
 * or one GA-NVSWITCH-SXID, whose severity and action are the worst SXid's row of the
 * Fabric Manager guide (lib/core/sxid.def): a fatal one makes it error and reboot; a node without
 * NVSwitch keeps the per-(code, device) GA-KLOG-SXID findings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "gpuaudit/kmsg.h"

static const char *ev(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

static const struct ga_finding *find(const struct ga_findings *f, const char *code)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].code, code))
			return &f->v[i];
	return NULL;
}

static const char *const fatal_log[] = {
	"[ 5000.100000] nvidia-nvswitch2: SXid (PCI:0000:c6:00.0): 12028, Non-fatal, Link 32 egress "
	"non-posted PRIV error (First)",
	"[ 5000.200000] nvidia-nvswitch3: SXid (PCI:0000:c7:00.0): 12028, Non-fatal, Link 2 egress "
	"non-posted PRIV error (First)",
	"[ 5100.200000] nvidia-nvswitch4: SXid (PCI:0000:c8:00.0): 24007, Fatal, Link 44 sourcetrack "
	"TCEN0 crumbstore ECC DBE Error",
};

/* Feed lines (the first n of log) to a health state and judge them on node. */
static void judge(const char *const *log, size_t n, const struct ga_node *node, struct ga_findings *out)
{
	struct ga_health *h = NULL;
	assert_int_equal(ga_health_new(&h), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ga_health_add_line(h, log[i], strlen(log[i])), 0);
	assert_int_equal(ga_health_findings(h, node, NULL, out, NULL), 0);
	ga_health_free(h);
}

static struct ga_pci_dev sw = { .address = "0000:c6:00.0", .kind = "nvswitch" };
static struct ga_pci_dev nic = { .address = "0000:0c:00.0", .kind = "nic" };

static void test_no_nvswitch(void **state)
{
	(void)state;
	struct ga_node node = { .pci = &nic, .n_pci = 1 };
	struct ga_findings f;
	ga_findings_init(&f);
	assert_false(ga_node_has_nvswitch(&node));
	assert_false(ga_node_has_nvswitch(NULL));
	judge(fatal_log, 3, &node, &f);
	assert_int_equal(f.n, 3); /* one per (code, device), as before */
	for (size_t i = 0; i < f.n; i++)
		assert_string_equal(f.v[i].code, "GA-KLOG-SXID");
	assert_null(find(&f, "GA-NVSWITCH-SXID"));
	ga_findings_release(&f);
}

static void test_alone(void **state)
{
	(void)state;
	struct ga_node node = { .pci = &sw, .n_pci = 1 };
	struct ga_findings f;
	ga_findings_init(&f);
	assert_true(ga_node_has_nvswitch(&node));
	judge(fatal_log, 2, &node, &f); /* the two non-fatal ones */
	assert_int_equal(f.n, 1);
	const struct ga_finding *x = find(&f, "GA-NVSWITCH-SXID");
	assert_non_null(x);
	/* 12028: the guide restarts the guest VM on the port; on bare metal, the job */
	assert_int_equal(x->severity, GA_SEV_WARNING);
	assert_int_equal(x->action, GA_ACT_RESTART_WORKLOAD);
	assert_string_equal(x->message,
	                    "NVSwitch SXids: 12028 (egress nonposted PRIV error) on 0000:c6:00.0 link 32 "
	                    "x1, 12028 (egress nonposted PRIV error) on 0000:c7:00.0 link 2 x1 (2 "
	                    "events)");
	assert_int_equal(x->cause, GA_CAUSE_NODE_HARDWARE);
	assert_string_equal(x->subject, "nvswitch");
	assert_string_equal(ev(x, "sxid"), "12028");
	assert_string_equal(ev(x, "sxid_counts"), "12028:2");
	assert_string_equal(ev(x, "sxid_events"), "2");
	assert_string_equal(ev(x, "count"), "2"); /* --state: a kernel-log finding */
	assert_string_equal(ev(x, "nvswitches"), "0000:c6:00.0,0000:c7:00.0");
	assert_null(ev(x, "sxid_fatal"));
	assert_string_equal(ev(x, "first_boot_s"), "5000.100000");
	assert_string_equal(ev(x, "last_boot_s"), "5000.200000");
	assert_null(ev(x, "first_time"));                    /* seconds since boot only: no date */
	assert_non_null(strstr(ev(x, "sample"), "c7:00.0")); /* the latest line */
	ga_findings_release(&f);

	ga_findings_init(&f);
	judge(fatal_log, 3, &node, &f);
	assert_int_equal(f.n, 1);
	x = find(&f, "GA-NVSWITCH-SXID");
	assert_int_equal(x->severity, GA_SEV_ERROR);
	assert_int_equal(x->action, GA_ACT_REBOOT);
	assert_string_equal(ev(x, "sxid"), "12028,24007");
	assert_string_equal(ev(x, "sxid_counts"), "12028:2,24007:1");
	assert_string_equal(ev(x, "sxid_fatal"), "24007");
	assert_string_equal(ev(x, "last_boot_s"), "5100.200000");
	assert_non_null(strstr(ev(x, "sample"), "24007, Fatal")); /* the Fatal line */
	assert_non_null(
	        strstr(x->message, "24007 (sourcetrack timeout error) on 0000:c8:00.0 link 44 x1 Fatal"));
	ga_findings_release(&f);
}

static void test_joined(void **state)
{
	(void)state;
	struct ga_node node = { .pci = &sw, .n_pci = 1 };
	struct ga_findings f;
	/* non-fatal: the fabric finding keeps NVML's severity and action, gains the evidence */
	ga_findings_init(&f);
	assert_non_null(ga_findings_add(&f, GA_C_FABRIC_DEGRADED, GA_SEV_WARNING, "0000:07:00.0", "check",
	                                "NVLink fabric health is limited_capacity"));
	assert_non_null(ga_findings_add(&f, GA_C_NVLINK_DOWN, GA_SEV_ERROR, "0000:07:00.0", NULL, "x"));
	judge(fatal_log, 2, &node, &f);
	assert_int_equal(f.n, 2);
	const struct ga_finding *d = find(&f, "GA-FABRIC-DEGRADED"), *l = find(&f, "GA-NVLINK-DOWN");
	assert_int_equal(d->severity, GA_SEV_WARNING);
	assert_int_equal(d->action, GA_ACT_INVESTIGATE);
	assert_string_equal(d->message,
	                    "NVLink fabric health is limited_capacity; NVSwitch SXids: 12028 (egress "
	                    "nonposted PRIV error) on 0000:c6:00.0 link 32 x1, 12028 (egress nonposted "
	                    "PRIV error) on 0000:c7:00.0 link 2 x1");
	assert_string_equal(d->decision, "check");
	assert_string_equal(ev(d, "sxid_counts"), "12028:2");
	assert_null(ev(d, "count")); /* --state: still NVML's condition, once per collection */
	assert_null(ev(l, "sxid"));  /* only the fabric findings carry it */
	ga_findings_release(&f);

	/* Fatal: error and reboot, on every fabric finding; no finding of its own */
	ga_findings_init(&f);
	assert_non_null(ga_findings_add(&f, GA_C_FABRIC_DEGRADED, GA_SEV_WARNING, "0000:07:00.0", "check",
	                                "degraded"));
	assert_non_null(
	        ga_findings_add(&f, GA_C_FABRIC_FAILED, GA_SEV_ERROR, "0000:0f:00.0", NULL, "failed"));
	judge(fatal_log, 3, &node, &f);
	assert_int_equal(f.n, 2);
	for (size_t i = 0; i < f.n; i++) {
		assert_int_equal(f.v[i].severity, GA_SEV_ERROR);
		assert_int_equal(f.v[i].action, GA_ACT_REBOOT);
		assert_string_equal(ev(&f.v[i], "sxid_fatal"), "24007");
		assert_string_equal(ev(&f.v[i], "sxid_events"), "3");
		assert_non_null(strstr(f.v[i].decision, "NVSwitch SXids: drain and reboot"));
	}
	ga_findings_release(&f);
}

/* Wall stamps: first/last are the times, across switches and codes. */
static void test_wall_times(void **state)
{
	(void)state;
	static const struct ga_sxid_group g[] = {
		{ .code = 12028,
		  .address = "0000:aa:00.0",
		  .count = 1,
		  .wall_set = true,
		  .first_time = "2026-12-01T09:10:02Z",
		  .last_time = "2026-12-01T09:10:02Z",
		  .sample = "a" },
		{ .code = 12028,
		  .address = "0000:ab:00.0",
		  .count = 2,
		  .wall_set = true,
		  .first_time = "2026-12-01T09:00:00Z",
		  .last_time = "2026-12-01T09:30:00Z",
		  .sample = "b" },
		{ .code = 20034,
		  .address = "",
		  .count = 1,
		  .wall_set = true,
		  .first_time = "2026-12-01T09:20:00Z",
		  .last_time = "2026-12-01T09:20:00Z",
		  .sample = "c" },
	};
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_nvswitch_sxid_join(g, 0, &f), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(ga_nvswitch_sxid_join(g, 3, &f), 0);
	assert_int_equal(f.n, 1);
	const struct ga_finding *x = &f.v[0];
	assert_string_equal(ev(x, "first_time"), "2026-12-01T09:00:00Z");
	assert_string_equal(ev(x, "last_time"), "2026-12-01T09:30:00Z");
	assert_string_equal(ev(x, "sxid_counts"), "12028:3,20034:1");
	assert_string_equal(ev(x, "nvswitches"), "0000:aa:00.0,0000:ab:00.0"); /* no address: not listed */
	assert_string_equal(ev(x, "sample"), "b");
	assert_null(ev(x, "first_boot_s"));
	ga_findings_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_nvswitch),
		cmocka_unit_test(test_alone),
		cmocka_unit_test(test_joined),
		cmocka_unit_test(test_wall_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
