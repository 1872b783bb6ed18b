/*
 * test_verdict.c - the node verdict (verdict.h) on small hand-made nodes where the
 * writers' old rules and the findings disagreed: a link degraded below a narrower
 * upstream link (the old metric compared the narrowest width with the narrowest
 * capability and said 0), a GPU whose link only NVML sees, a non-NVIDIA CDI spec
 * for another driver (the old metric said stale, the finding did not), a damaged
 * kubelet checkpoint (the old label said ok), and readiness against a class, whose
 * reason is GA-EXPECT-GPU-COUNT's message. Each case checks the state, the finding
 * and the rendered metric together. The values the metrics once asked an analyzer
 * for (the engines' default runtimes, the device nodes' access, the fleet family and
 * the stack's columns) are checked the same way: in the verdict, and rendered from it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/prom.h"
#include "gpuaudit/verdict.h"
#include "gpuaudit/verdict-analyze.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/fleet-analyze.h"
#include "gpuaudit/nodeclass-analyze.h"

static struct ga_node *node_of(const char *members)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	char text[4096];
	snprintf(text, sizeof(text), "{\"schema\":\"gpuaudit.node/v1\",%s}", members);
	struct ga_node *n = NULL;
	if (ga_node_from_json(ctx, text, strlen(text), &n) != 0)
		fail_msg("%s", ga_ctx_errmsg(ctx));
	ga_ctx_free(ctx);
	return n;
}

static const struct ga_finding *finding(const struct ga_findings *f, const char *code, const char *subject)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].code, code) && (!subject || !strcmp(f->v[i].subject, subject)))
			return &f->v[i];
	return NULL;
}

/* The exposition line of family NAME that holds NEEDLE, or NULL. */
static char *metric_line(const struct ga_node *n, const struct ga_node_verdict *v, const char *name,
                         const char *needle, char *buf, size_t bufn)
{
	struct ga_prom_input in = { .version = "test", .node = n, .verdict = v };
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_prom_render(&in, GA_PROM_TEXT, &b), 0);
	assert_int_equal(ga_buf_addf(&b, "%c", '\0'), 0);
	char *found = NULL;
	for (char *line = b.data; line && *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (!strncmp(line, name, strlen(name)) && line[strlen(name)] == '{' && strstr(line, needle) &&
		    strstr(line, needle) < line + len && len < bufn) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			found = buf;
			break;
		}
		line = end ? end + 1 : NULL;
	}
	ga_buf_release(&b);
	return found;
}

#define GPU_A "0000:07:00.0"

static void test_link_below_narrow_upstream(void **state)
{
	(void)state;
	/* the GPU's own link x8 of x16, the switch's uplink x4 of x4: the narrowest width (4) equals
	 * the narrowest capability (4), but the GPU's link is degraded */
	struct ga_node *n = node_of(
	        "\"accelerators\":[{\"vendor\":\"nvidia\",\"address\":\"" GPU_A "\",\"driver\":\"nvidia\"}],"
	        "\"pci\":[{\"address\":\"" GPU_A "\",\"kind\":\"accelerator\","
	        "\"link\":{\"cur_width\":8,\"max_width\":16,\"cur_speed_gts\":16,\"max_speed_gts\":16},"
	        "\"path_min_width\":4,\"path_capable_width\":4,\"upstream\":["
	        "{\"address\":\"0000:06:00.0\",\"link\":{\"cur_width\":8,\"max_width\":16}},"
	        "{\"address\":\"0000:05:00.0\",\"link\":{\"cur_width\":4,\"max_width\":4}},"
	        "{\"address\":\"0000:00:01.0\",\"link\":{\"cur_width\":4,\"max_width\":4}}]}]");
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, &f), 0);
	const struct ga_vd_device *d = ga_node_verdict_device(&v, GPU_A);
	assert_non_null(d);
	assert_int_equal(d->link, GA_VD_LINK_DEGRADED);
	assert_string_equal(d->link_at, GPU_A);
	assert_int_equal(d->width.v, 8);
	assert_int_equal(d->capable_width.v, 16);
	assert_non_null(finding(&f, "GA-LINK-DEGRADED", GPU_A));
	char line[512];
	assert_non_null(metric_line(n, &v, "gpuaudit_gpu_pcie_link_degraded", GPU_A, line, sizeof(line)));
	assert_non_null(strstr(line, "} 1"));
	/* the drift names the link */
	assert_int_equal(ga_node_verdict_drift(&v), GA_VD_DRIFT_LINK);
	ga_node_verdict_release(&v);
	ga_findings_release(&f);
	ga_node_free(n);
}

static void test_link_nvml_only(void **state)
{
	(void)state;
	/* sysfs has no link widths: NVML's view of the GPU's own link decides, for both */
	struct ga_node *n =
	        node_of("\"accelerators\":[{\"vendor\":\"nvidia\",\"address\":\"" GPU_A "\",\"driver\":"
	                "\"nvidia\",\"nvml\":{\"pcie_width\":8,\"pcie_width_max\":16}}],"
	                "\"pci\":[{\"address\":\"" GPU_A "\",\"kind\":\"accelerator\"}]");
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	const struct ga_finding *fd = finding(&f, "GA-LINK-DEGRADED", GPU_A);
	assert_non_null(fd);
	assert_non_null(strstr(fd->message, "as NVML reports it"));
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, NULL), 0);
	const struct ga_vd_device *d = ga_node_verdict_device(&v, GPU_A);
	assert_int_equal(d->link, GA_VD_LINK_DEGRADED);
	assert_string_equal(d->link_source, "nvml");
	char line[512];
	assert_non_null(metric_line(n, &v, "gpuaudit_gpu_pcie_link_degraded", GPU_A, line, sizeof(line)));
	assert_non_null(strstr(line, "} 1"));
	ga_node_verdict_release(&v);
	ga_findings_release(&f);
	/* the same GPU at full width: ok, no finding, metric 0 */
	ga_node_free(n);
	n = node_of("\"accelerators\":[{\"vendor\":\"nvidia\",\"address\":\"" GPU_A "\",\"driver\":"
	            "\"nvidia\",\"nvml\":{\"pcie_width\":16,\"pcie_width_max\":16}}],"
	            "\"pci\":[{\"address\":\"" GPU_A "\",\"kind\":\"accelerator\"}]");
	ga_findings_init(&f);
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, &f), 0);
	assert_null(finding(&f, "GA-LINK-DEGRADED", NULL));
	assert_int_equal(ga_node_verdict_device(&v, GPU_A)->link, GA_VD_LINK_OK);
	assert_non_null(metric_line(n, &v, "gpuaudit_gpu_pcie_link_degraded", GPU_A, line, sizeof(line)));
	assert_non_null(strstr(line, "} 0"));
	ga_node_verdict_release(&v);
	ga_findings_release(&f);
	ga_node_free(n);
}

static void test_cdi_other_vendor(void **state)
{
	(void)state;
	/* a valid spec of another vendor that names a driver version: not NVIDIA's, not stale */
	struct ga_node *n = node_of(
	        "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"580.95.05\"}],"
	        "\"cdi\":{\"dirs\":[\"/etc/cdi\"],\"specs\":[{\"path\":\"/etc/cdi/x.yaml\",\"cdi_version\":"
	        "\"0.5.0\",\"kind\":\"example.com/fpga\",\"driver_version\":\"1.2.3\",\"devices\":[{\"name\":"
	        "\"a\"}]}]}");
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, &f), 0);
	assert_null(finding(&f, "GA-CDI-STALE", NULL));
	assert_int_equal(v.cdi, GA_VD_CDI_CURRENT);
	assert_int_equal(v.n_cdi_specs, 1);
	assert_false(v.cdi_specs[0].stale.set);
	char line[512];
	assert_null(metric_line(n, &v, "gpuaudit_cdi_spec_stale", "x.yaml", line, sizeof(line)));
	ga_node_verdict_release(&v);
	ga_findings_release(&f);
	ga_node_free(n);
	/* the same as an NVIDIA spec: stale, its finding and its metric */
	n = node_of(
	        "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"580.95.05\"}],"
	        "\"cdi\":{\"dirs\":[\"/etc/cdi\"],\"specs\":[{\"path\":\"/etc/cdi/x.yaml\",\"cdi_version\":"
	        "\"0.5.0\",\"kind\":\"nvidia.com/gpu\",\"driver_version\":\"1.2.3\",\"devices\":[{"
	        "\"name\":\"all\"}]}]}");
	ga_findings_init(&f);
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, &f), 0);
	assert_non_null(finding(&f, "GA-CDI-STALE", "/etc/cdi/x.yaml"));
	assert_int_equal(v.cdi, GA_VD_CDI_STALE);
	assert_non_null(metric_line(n, &v, "gpuaudit_cdi_spec_stale", "x.yaml", line, sizeof(line)));
	assert_non_null(strstr(line, "} 1"));
	ga_node_verdict_release(&v);
	ga_findings_release(&f);
	ga_node_free(n);
}

static void test_dp_damaged_checkpoint(void **state)
{
	(void)state;
	struct ga_node *n =
	        node_of("\"device_plugins\":{\"checkpoint\":\"/c\",\"checkpoint_error\":\"bad\"}");
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, &f), 0);
	assert_non_null(finding(&f, "GA-DP-CHECKPOINT-INVALID", NULL));
	assert_int_equal(v.device_plugin, GA_VD_DP_UNKNOWN);
	assert_string_equal(ga_vd_dp_names[v.device_plugin], "unknown");
	ga_node_verdict_release(&v);
	ga_findings_release(&f);
	ga_node_free(n);
}

static void test_readiness(void **state)
{
	(void)state;
	struct ga_node *n = node_of("\"accelerators\":[{\"vendor\":\"nvidia\",\"address\":\"" GPU_A
	                            "\",\"driver\":\"nvidia\"},"
	                            "{\"vendor\":\"nvidia\",\"address\":\"0000:0f:00.0\",\"excluded\":true,"
	                            "\"driver\":\"nvidia\"}]");
	struct ga_policy_class cls = { .name = "two" };
	cls.expect.gpu_count = (struct ga_ou64){ 2, true };
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, &cls, true, &v, NULL), 0);
	assert_int_equal(v.readiness, GA_VD_NOT_READY);
	assert_int_equal(v.gpus_usable.v, 1);
	assert_int_equal(ga_node_verdict_drift(&v), GA_VD_DRIFT_GPUS);
	struct ga_check chk;
	assert_int_equal(ga_check_node(n, &cls, false, &chk), 0);
	/* one problem, one finding: the excluded GPU's own finding carries the class's count */
	assert_null(finding(&chk.findings, "GA-EXPECT-GPU-COUNT", NULL));
	const struct ga_finding *fd = finding(&chk.findings, "GA-GPU-EXCLUDED", "0000:0f:00.0");
	assert_non_null(fd);
	assert_true(fd->severity >= GA_SEV_ERROR);
	bool counted = false;
	for (size_t i = 0; i < fd->n_evidence; i++)
		counted = counted || (!strcmp(fd->evidence[i].key, "policy") &&
		                      !strcmp(fd->evidence[i].value, "expect.gpu_count"));
	assert_true(counted);
	assert_string_equal(v.readiness_reason, "1 usable GPU (2 on the bus), the class expects 2");
	char line[512];
	assert_non_null(metric_line(n, &v, "gpuaudit_node_ready", "two", line, sizeof(line)));
	assert_non_null(strstr(line, "} 0"));
	ga_check_release(&chk);
	ga_node_verdict_release(&v);
	/* three expected, two on the bus: the count itself is the problem, in readiness's words */
	cls.expect.gpu_count.v = 3;
	assert_int_equal(ga_node_verdict_build(n, &cls, true, &v, NULL), 0);
	assert_int_equal(v.readiness, GA_VD_NOT_READY);
	assert_int_equal(ga_check_node(n, &cls, false, &chk), 0);
	fd = finding(&chk.findings, "GA-EXPECT-GPU-COUNT", NULL);
	assert_non_null(fd);
	assert_string_equal(fd->message, v.readiness_reason);
	ga_check_release(&chk);
	ga_node_verdict_release(&v);
	/* one GPU expected: ready, no finding */
	cls.expect.gpu_count.v = 1;
	assert_int_equal(ga_node_verdict_build(n, &cls, true, &v, NULL), 0);
	assert_int_equal(v.readiness, GA_VD_READY);
	assert_int_equal(ga_check_node(n, &cls, false, &chk), 0);
	assert_null(finding(&chk.findings, "GA-EXPECT-GPU-COUNT", NULL));
	ga_check_release(&chk);
	ga_node_verdict_release(&v);
	/* a policy without a matching class: readiness unknown, the no-class drift */
	assert_int_equal(ga_node_verdict_build(n, NULL, true, &v, NULL), 0);
	assert_int_equal(v.readiness, GA_VD_READY_UNKNOWN);
	assert_int_equal(ga_node_verdict_drift(&v), GA_VD_DRIFT_CLASS);
	ga_node_verdict_release(&v);
	ga_node_free(n);
}

/*
 * The container engines' default runtimes and the device nodes' access are the
 * verdict's (ctr-runtime.c's rules), and the container families render them; without
 * a verdict those two families are left out, not recomputed.
 */
static void test_container_access(void **state)
{
	(void)state;
	struct ga_node *n = node_of(
	        "\"container_runtime\":{\"engines\":[{\"name\":\"crio\"},{\"name\":\"docker\","
	        "\"default_runtime\":\"nvidia\",\"default_nvidia\":true}],\"devices\":[{\"path\":"
	        "\"/dev/kfd\",\"mode\":\"0600\",\"group\":\"render\"},{\"path\":\"/dev/dri/renderD128\","
	        "\"mode\":\"0660\",\"group\":\"render\"}]}");
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, NULL), 0);
	assert_int_equal(v.n_runtime_engines, 2);
	assert_string_equal(v.runtime_engines[0].name, "crio");
	assert_string_equal(v.runtime_engines[0].default_runtime, "(CRI-O built-in)");
	assert_string_equal(v.runtime_engines[1].default_runtime, "nvidia");
	assert_int_equal(v.n_device_nodes, 2);
	assert_true(v.device_nodes[0].accessible.set && !v.device_nodes[0].accessible.v);
	assert_true(v.device_nodes[1].accessible.set && v.device_nodes[1].accessible.v);
	char buf[512];
	assert_non_null(metric_line(n, &v, "gpuaudit_container_engine_default_nvidia",
	                            "engine=\"crio\",default_runtime=\"(CRI-O built-in)\"} 0", buf,
	                            sizeof(buf)));
	assert_non_null(metric_line(n, &v, "gpuaudit_container_engine_default_nvidia",
	                            "engine=\"docker\",default_runtime=\"nvidia\"} 1", buf, sizeof(buf)));
	assert_non_null(metric_line(n, &v, "gpuaudit_container_device_accessible",
	                            "path=\"/dev/kfd\",group=\"render\"} 0", buf, sizeof(buf)));
	assert_non_null(metric_line(n, &v, "gpuaudit_container_device_accessible",
	                            "path=\"/dev/dri/renderD128\",group=\"render\"} 1", buf, sizeof(buf)));
	assert_null(metric_line(n, NULL, "gpuaudit_container_device_accessible", "kfd", buf, sizeof(buf)));
	assert_null(
	        metric_line(n, NULL, "gpuaudit_container_engine_default_nvidia", "crio", buf, sizeof(buf)));
	ga_node_verdict_release(&v);
	ga_node_free(n);
}

/* The fleet family and the stack's columns are the verdict's, as fleet.c computes them. */
static void test_fleet_family(void **state)
{
	(void)state;
	struct ga_node *n = node_of("\"host\":{\"hostname\":\"h\",\"kernel_release\":\"6.8.0\"}");
	struct ga_node_verdict v;
	assert_int_equal(ga_node_verdict_build(n, NULL, false, &v, NULL), 0);
	struct ga_nodeclass nc = { 0 };
	assert_int_equal(ga_nodeclass_compute(n, &nc), 0);
	char *fam = NULL;
	assert_int_equal(ga_fleet_family_sha256(nc.hw_json, &fam), 0);
	assert_non_null(v.hw_family);
	assert_string_equal(v.hw_family, fam);
	struct ga_fleet_columns col;
	assert_int_equal(ga_fleet_columns_init(nc.stack_json, &col), 0);
	assert_true(col.kernel ? v.stack.kernel && !strcmp(col.kernel, v.stack.kernel) : !v.stack.kernel);
	char needle[128], buf[2048];
	snprintf(needle, sizeof(needle), "family=\"%s\"", fam);
	assert_non_null(metric_line(n, &v, "gpuaudit_fleet_info", needle, buf, sizeof(buf)));
	assert_null(metric_line(n, NULL, "gpuaudit_fleet_info", "family=", buf, sizeof(buf)));
	ga_fleet_columns_release(&col);
	ga_free(fam);
	ga_nodeclass_release(&nc);
	ga_node_verdict_release(&v);
	ga_node_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_below_narrow_upstream),
		cmocka_unit_test(test_link_nvml_only),
		cmocka_unit_test(test_cdi_other_vendor),
		cmocka_unit_test(test_dp_damaged_checkpoint),
		cmocka_unit_test(test_readiness),
		cmocka_unit_test(test_container_access),
		cmocka_unit_test(test_fleet_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
