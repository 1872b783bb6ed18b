/*
 * test_triage.c - the "GPUs are slow" playbook (lib/analyze/triage.c) on
 * hand-made nodes, findings and sample points: the order of the steps, the
 * stop at step 1, each threshold, the workload's NUMA placement and NCCL
 * variables, and the cpulist and NCCL-list parsers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/triage.h"
#include "gpuaudit/triage-analyze.h"

static struct ga_odbl D(double v) {
	return (struct ga_odbl){ v, true };
}

static struct ga_triage_point
pt(double gpu, double mem, double iowait, double idle, double util, double await, uint64_t drops)
{
	struct ga_triage_point p;
	memset(&p, 0, sizeof(p));
	p.gpu_busy_pct = D(gpu);
	p.mem_busy_pct = D(mem);
	p.iowait_pct = D(iowait);
	p.idle_pct = D(idle);
	p.disk_util_pct = D(util);
	p.disk_await_ms = D(await);
	snprintf(p.disk, sizeof(p.disk), "%s", "nvme0n1");
	p.net_drops = (struct ga_ou64){ drops, true };
	p.net_errors = (struct ga_ou64){ 0, true };
	if (drops)
		snprintf(p.net_if, sizeof(p.net_if), "%s", "eth0");
	return p;
}

static const char *ev(const struct ga_triage_step *s, const char *key)
{
	for (size_t i = 0; i < s->n_ev; i++)
		if (!strcmp(s->ev[i].key, key))
			return s->ev[i].value;
	return NULL;
}

static void test_compute_bound(void **state)
{
	(void)state;
	struct ga_triage_point p[3] = { pt(95, 40, 0, 80, 2, 1, 0), pt(97, 40, 0, 80, 2, 1, 0),
		                        pt(96, 40, 0, 80, 2, 1, 0) };
	struct ga_triage t;
	ga_triage_run(NULL, NULL, p, 3, NULL, &t);
	assert_int_equal(t.n_steps, 5);
	assert_false(t.node_at_fault);
	for (int i = 0; i < 5; i++)
		assert_int_equal(t.steps[i].step, i + 1);
	assert_string_equal(t.steps[0].verdict, "ok");
	assert_string_equal(t.steps[1].verdict, "workload");
	assert_string_equal(ev(&t.steps[1], "gpu_busy_mean_pct"), "96.0");
	assert_non_null(strstr(t.steps[1].decision, "compute-bound"));
	assert_string_equal(t.steps[2].verdict, "ok");
	assert_string_equal(t.steps[3].verdict, "ok");
	assert_string_equal(t.steps[4].verdict, "ok");
}

static void test_health_stops(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	assert_non_null(ga_findings_add_code(&f, "GA-TEST-WARN", GA_SEV_WARNING, "x", NULL, "a warning"));
	struct ga_triage t;
	ga_triage_run(NULL, &f, NULL, 0, NULL, &t);
	assert_false(t.node_at_fault); /* a warning does not stop it */
	assert_string_equal(t.steps[1].verdict, "unknown");
	assert_non_null(
	        ga_findings_add_code(&f, "GA-TEST-LOST", GA_SEV_CRITICAL, "0000:47:00.0", NULL, "gone"));
	ga_triage_run(NULL, &f, NULL, 0, NULL, &t);
	assert_true(t.node_at_fault);
	assert_string_equal(t.steps[0].verdict, "problem");
	assert_string_equal(ev(&t.steps[0], "worst"), "GA-TEST-LOST 0000:47:00.0");
	assert_non_null(strstr(t.steps[0].decision, "quarantine the node, do not retry"));
	for (int i = 1; i < 5; i++)
		assert_string_equal(t.steps[i].verdict, "skipped");
	ga_findings_release(&f);
}

/* No accelerators, no kernel log, no utilization: inconclusive, never "ok". */
static void test_inconclusive(void **state)
{
	(void)state;
	struct ga_triage_point p[2] = { pt(95, 40, 0, 80, 2, 1, 0), pt(97, 40, 0, 80, 2, 1, 0) };
	struct ga_accel acc[2];
	memset(acc, 0, sizeof(acc));
	struct ga_node nd;
	memset(&nd, 0, sizeof(nd));
	struct ga_triage t;
	/* a CPU-only node: steps 1 and 2 n/a, inconclusive */
	struct ga_triage_klog read = { .source = "k.log" };
	ga_triage_run_klog(&nd, NULL, &read, p, 2, NULL, &t);
	assert_false(t.node_at_fault);
	assert_true(t.inconclusive);
	assert_true(t.no_accelerators);
	assert_string_equal(t.steps[0].verdict, "n/a");
	assert_string_equal(ev(&t.steps[0], "accelerators"), "0");
	assert_null(strstr(t.steps[0].decision, "healthy"));
	assert_string_equal(t.steps[1].verdict, "n/a");
	assert_string_equal(t.steps[4].verdict, "skipped");
	assert_non_null(strstr(t.reason, "no accelerators"));
	/* GPUs and the log: a conclusion */
	nd.accelerators = acc;
	nd.n_accelerators = 2;
	ga_triage_run_klog(&nd, NULL, &read, p, 2, NULL, &t);
	assert_false(t.inconclusive);
	assert_string_equal(t.steps[0].verdict, "ok");
	assert_string_equal(ev(&t.steps[0], "kernel_log"), "k.log");
	assert_string_equal(t.steps[4].verdict, "ok");
	/* no kernel log: step 1 unknown, the reason names why */
	struct ga_triage_klog none = { .missing = "no dev/kmsg under --root" };
	ga_triage_run_klog(&nd, NULL, &none, p, 2, NULL, &t);
	assert_true(t.inconclusive);
	assert_string_equal(t.steps[0].verdict, "unknown");
	assert_string_equal(ev(&t.steps[0], "kernel_log"), "not read");
	assert_non_null(strstr(t.reason, "no dev/kmsg under --root"));
	/* no utilization in the samples: step 2 unknown, record with --nvml */
	p[0].gpu_busy_pct.set = p[1].gpu_busy_pct.set = false;
	ga_triage_run_klog(&nd, NULL, &read, p, 2, NULL, &t);
	assert_true(t.inconclusive);
	assert_string_equal(t.steps[1].verdict, "unknown");
	assert_non_null(strstr(t.reason, "record --nvml"));
	/* a node-side problem wins over missing evidence */
	struct ga_triage_point d[2] = { pt(0, 0, 0, 80, 95, 1, 0), pt(0, 0, 0, 80, 96, 1, 0) };
	d[0].gpu_busy_pct.set = d[1].gpu_busy_pct.set = false;
	ga_triage_run_klog(&nd, NULL, &none, d, 2, NULL, &t);
	assert_true(t.node_at_fault);
	assert_false(t.inconclusive);
	struct ga_triage_report r;
	struct ga_findings f;
	ga_findings_init(&f);
	ga_triage_run_klog(&nd, NULL, &none, p, 2, NULL, &t);
	assert_int_equal(ga_triage_report_take(&r, &t, 2, &f), 0);
	assert_string_equal(r.result, "inconclusive");
	assert_non_null(r.reason);
	ga_schema_release(&ga_triage_report_schema, &r);
}

static void test_thresholds(void **state)
{
	(void)state;
	struct ga_triage t;
	/* underutilized, memory-bound */
	struct ga_triage_point m[2] = { pt(30, 80, 0, 80, 2, 1, 0), pt(30, 75, 0, 80, 2, 1, 0) };
	ga_triage_run(NULL, NULL, m, 2, NULL, &t);
	assert_non_null(strstr(t.steps[1].decision, "memory-bound"));
	/* underutilized, CPUs saturated: the workload, not the node */
	struct ga_triage_point c[2] = { pt(20, 10, 0, 3, 2, 1, 0), pt(20, 10, 0, 4, 2, 1, 0) };
	ga_triage_run(NULL, NULL, c, 2, NULL, &t);
	assert_non_null(strstr(t.steps[1].decision, "input pipeline"));
	assert_string_equal(t.steps[2].verdict, "workload");
	assert_false(t.node_at_fault);
	/* disk saturated */
	struct ga_triage_point d[2] = { pt(20, 10, 5, 50, 99, 1, 0), pt(20, 10, 5, 50, 91, 1, 0) };
	ga_triage_run(NULL, NULL, d, 2, NULL, &t);
	assert_string_equal(t.steps[2].verdict, "problem");
	assert_true(t.node_at_fault);
	assert_string_equal(t.steps[4].verdict, "skipped");
	/* exactly 90% is not saturated; await rising (3 points, doubling) is */
	struct ga_triage_point a[3] = { pt(20, 10, 5, 50, 90, 10, 0), pt(20, 10, 5, 50, 90, 15, 0),
		                        pt(20, 10, 5, 50, 90, 20, 0) };
	ga_triage_run(NULL, NULL, a, 2, NULL, &t);
	assert_string_equal(t.steps[2].verdict, "ok");
	ga_triage_run(NULL, NULL, a, 3, NULL, &t);
	assert_non_null(strstr(t.steps[2].decision, "disk await rising"));
	/* iowait */
	struct ga_triage_point w[1] = { pt(20, 10, 21, 50, 10, 1, 0) };
	ga_triage_run(NULL, NULL, w, 1, NULL, &t);
	assert_non_null(strstr(t.steps[2].decision, "CPU waiting on I/O"));
	/* drops in one interval */
	struct ga_triage_point n[2] = { pt(96, 10, 0, 80, 2, 1, 0), pt(96, 10, 0, 80, 2, 1, 7) };
	ga_triage_run(NULL, NULL, n, 2, NULL, &t);
	assert_string_equal(t.steps[3].verdict, "problem");
	assert_string_equal(ev(&t.steps[3], "interface"), "eth0");
	assert_string_equal(ev(&t.steps[3], "intervals_with_drops_or_errors"), "1 of 2");
	assert_true(t.node_at_fault);
}

static void test_workload(void **state)
{
	(void)state;
	struct ga_numa_node numa[2] = { { .id = { 0, true }, .cpulist = "0-3" },
		                        { .id = { 1, true }, .cpulist = "4-7" } };
	struct ga_accel acc[2] = { { .index = { 0, true }, .numa_node = { 0, true } },
		                   { .index = { 1, true }, .numa_node = { 1, true } } };
	char *ifs[] = { "ib0", "eth0" }, *hcas[] = { "mlx5_0" };
	struct ga_pci_dev nic = { .net_interfaces = { ifs, 2 }, .rdma_devices = { hcas, 1 } };
	struct ga_node nd;
	memset(&nd, 0, sizeof(nd));
	nd.cpu.numa_nodes = numa;
	nd.cpu.n_numa_nodes = 2;
	nd.accelerators = acc;
	nd.n_accelerators = 2;
	nd.pci = &nic;
	nd.n_pci = 1;
	struct ga_triage_point p[1] = { pt(96, 10, 0, 80, 2, 1, 0) };
	struct ga_triage_workload w = { .pid = 1, .cpus_allowed = "4-5", .visible_devices = "0" };
	struct ga_triage t;
	ga_triage_run(&nd, NULL, p, 1, &w, &t);
	assert_string_equal(t.steps[2].verdict, "workload");
	assert_string_equal(ev(&t.steps[2], "workload_cpus_on_gpu_nodes"), "0 of 2");
	assert_string_equal(ev(&t.steps[3], "gpus_span_numa_nodes"), "0 and 1");
	w.visible_devices = NULL; /* both GPUs: node 1's CPUs are local to one */
	ga_triage_run(&nd, NULL, p, 1, &w, &t);
	assert_string_equal(t.steps[2].verdict, "ok");
	w.nccl_socket_ifname = "ib";
	w.nccl_ib_hca = "=mlx5_0:1";
	ga_triage_run(&nd, NULL, p, 1, &w, &t);
	assert_string_equal(t.steps[3].verdict, "ok");
	w.nccl_socket_ifname = "bond0";
	ga_triage_run(&nd, NULL, p, 1, &w, &t);
	assert_string_equal(t.steps[3].verdict, "problem");
	assert_non_null(strstr(t.steps[3].decision, "'bond0'"));
	assert_true(t.node_at_fault);
	w.nccl_socket_ifname = "^docker,lo";
	w.nccl_ib_hca = "mlx5_1";
	ga_triage_run(&nd, NULL, p, 1, &w, &t);
	assert_non_null(strstr(t.steps[3].decision, "HCA 'mlx5_1'"));
}

static void test_parsers(void **state)
{
	(void)state;
	unsigned char b[16];
	assert_int_equal(ga_triage_cpulist("0-3,8,10-11\n", b, 128), 7);
	assert_int_equal(b[0], 0x0f);
	assert_int_equal(b[1], 0x0d);
	assert_int_equal(ga_triage_cpulist("", b, 128), 0);
	assert_int_equal(ga_triage_cpulist("3-1", b, 128), -1);
	assert_int_equal(ga_triage_cpulist("1,,2", b, 128), -1);
	assert_int_equal(ga_triage_cpulist("x", b, 128), -1);
	assert_int_equal(ga_triage_cpulist("0-99999999", b, 128), -1);
	assert_int_equal(ga_triage_cpulist("120-200", b, 128), 8); /* past nbits: ignored */
	const char *c[] = { "ib0", "eth0" };
	char miss[16];
	assert_int_equal(ga_triage_nccl_missing("ib,eth", c, 2, miss, sizeof(miss)), 0);
	assert_int_equal(ga_triage_nccl_missing("=ib", c, 2, miss, sizeof(miss)), 1);
	assert_string_equal(miss, "ib");
	assert_int_equal(ga_triage_nccl_missing("^ib9", c, 2, miss, sizeof(miss)), 0);
	assert_int_equal(ga_triage_nccl_missing("eth0:1,,", c, 2, miss, sizeof(miss)), 0);
	assert_int_equal(ga_triage_nccl_missing("a-very-long-interface-name", c, 2, miss, sizeof(miss)), 1);
	assert_string_equal(miss, "a-very-long-int");
}

/* A sample line reduced to a point: the means, the busiest disk, the NIC sums; and a line
 * that is not a sample is refused with the message triage prints. */
static void test_point_from_sample(void **state)
{
	(void)state;
	static const char line[] =
	        "{\"schema\":\"gpuaudit.sample/v1\",\"cpu\":{\"total\":{\"iowait_pct\":30.5,\"idle_pct\":2}},"
	        "\"disks\":[{\"name\":\"sda\",\"util_pct\":40,\"await_ms\":3},"
	        "{\"name\":\"nvme0n1\",\"util_pct\":99.5,\"await_ms\":48},{\"name\":\"sdb\",\"util_pct\":"
	        "null}],"
	        "\"net\":[{\"name\":\"lo\",\"rx_dropped\":0,\"tx_dropped\":0},"
	        "{\"name\":\"eth0\",\"rx_dropped\":5,\"tx_dropped\":null,\"rx_errors\":1,\"tx_errors\":2}],"
	        "\"accelerators\":[{\"card\":\"card0\",\"gpu_busy_pct\":20,\"mem_busy_pct\":null}],"
	        "\"nvml\":{\"error\":null,\"timed_out\":false,\"gpus\":[{\"index\":0,"
	        "\"utilization_gpu_pct\":80,\"utilization_memory_pct\":60}]}}";
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_sample_doc d;
	assert_int_equal(ga_sample_doc_read(ctx, line, sizeof(line) - 1, &d), 0);
	struct ga_triage_point p;
	ga_triage_point_from_sample(&d, &p);
	ga_sample_doc_release(&d);
	assert_true(p.iowait_pct.set && p.iowait_pct.v == 30.5);
	assert_true(p.idle_pct.set && p.idle_pct.v == 2);
	/* amdgpu's card and NVML's GPU together */
	assert_true(p.gpu_busy_pct.set && p.gpu_busy_pct.v == 50);
	assert_true(p.mem_busy_pct.set && p.mem_busy_pct.v == 60);
	assert_string_equal(p.disk, "nvme0n1");
	assert_true(p.disk_util_pct.v == 99.5 && p.disk_await_ms.v == 48);
	assert_true(p.net_drops.set && p.net_drops.v == 5);
	assert_true(p.net_errors.set && p.net_errors.v == 3);
	assert_string_equal(p.net_if, "eth0");

	static const char other[] = "{\"schema\":\"other/v1\"}";
	assert_int_equal(ga_sample_doc_read(ctx, other, sizeof(other) - 1, &d), -EBADMSG);
	assert_string_equal(ga_ctx_errmsg(ctx), "not a gpuaudit.sample/v1 line");
	static const char bad[] = "{\"schema\":\"gpuaudit.sample/v1\",\"seq\":\"one\"}";
	assert_int_equal(ga_sample_doc_read(ctx, bad, sizeof(bad) - 1, &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "not a gpuaudit.sample/v1 line: seq"));
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compute_bound),     cmocka_unit_test(test_health_stops),
		cmocka_unit_test(test_inconclusive),      cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_workload),          cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_point_from_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
