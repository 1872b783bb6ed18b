/*
 * test_analyze.c - the findings ga_analyze_node draws from a snapshot,
 * exactly: code, severity, subject and message, in order. Snapshots are
 * written as small JSON documents and read with ga_node_from_json.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/node.h"

#define HEAD "{\"schema\":\"gpuaudit.node/v1\","

/* One line per finding: "CODE severity subject: message". */
static char *analyze(const char *json, struct ga_findings *ret)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_node *n = NULL;
	if (ga_node_from_json(ctx, json, strlen(json), &n) < 0)
		fail_msg("bad test snapshot: %s", ga_ctx_errmsg(ctx));
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	for (size_t i = 0; i < f.n; i++)
		assert_int_equal(ga_buf_addf(&b, "%s %s %s: %s\n", f.v[i].code,
		                             ga_severity_name(f.v[i].severity), f.v[i].subject,
		                             f.v[i].message),
		                 0);
	if (ret)
		*ret = f;
	else
		ga_findings_release(&f);
	ga_node_free(n);
	ga_ctx_free(ctx);
	return ga_buf_detach(&b, NULL);
}

#define EXPECT(json, want)                                                \
	do {                                                              \
		char *got_ = analyze(json, NULL);                         \
		if (strcmp(got_, want) != 0)                              \
			fail_msg("findings:\n%s\nwant:\n%s", got_, want); \
		ga_free(got_);                                            \
	} while (0)

/* A healthy NVIDIA GPU, so accelerator findings stay out of the link tests. */
#define GPU_OK(addr) "{\"vendor\":\"nvidia\",\"address\":\"" addr "\",\"driver\":\"nvidia\"}"

/* The action of the snapshot's GA-DRIVER-MISMATCH finding (it must have one). */
static enum ga_action mismatch_action(const char *json)
{
	struct ga_findings f;
	ga_free(analyze(json, &f));
	size_t k = 0;
	while (k < f.n && strcmp(f.v[k].code, "GA-DRIVER-MISMATCH"))
		k++;
	assert_true(k < f.n);
	enum ga_action a = f.v[k].action;
	ga_findings_release(&f);
	return a;
}

static void test_degraded_at_device(void **state)
{
	(void)state;
	EXPECT(HEAD "\"accelerators\":[" GPU_OK(
	               "0000:01:00.0") "],"
	                               "\"pci\":[{\"address\":\"0000:01:00.0\",\"kind\":\"accelerator\","
	                               "\"link\":{\"cur_speed_gts\":16,\"max_speed_gts\":16,\"cur_width\":8,"
	                               "\"max_width\":16},"
	                               "\"upstream\":[{\"address\":\"0000:00:01.0\",\"link\":{\"cur_width\":"
	                               "16,"
	                               "\"max_width\":16}}]}]}",
	       "GA-LINK-DEGRADED warning 0000:01:00.0: PCIe link trained at x8 of x16 (16.0 GT/s); "
	       "affects 0000:01:00.0\n");
}

static void test_degraded_upstream_once(void **state)
{
	(void)state;
	/* two GPUs behind a switch whose uplink trained at x4: one finding, both named */
#define BEHIND(addr)                                                                                       \
	"{\"address\":\"" addr "\",\"kind\":\"accelerator\",\"link\":{\"cur_width\":16,\"max_width\":16}," \
	"\"upstream\":[{\"address\":\"0000:02:00.0\",\"link\":{\"cur_width\":16,\"max_width\":16}},"       \
	"{\"address\":\"0000:01:00.0\",\"link\":{\"cur_speed_gts\":8,\"cur_width\":4,\"max_width\":16}},"  \
	"{\"address\":\"0000:00:01.0\",\"link\":{\"cur_width\":16,\"max_width\":16}}]}"
	struct ga_findings f;
	char *got = analyze(
	        HEAD "\"accelerators\":[" GPU_OK("0000:03:00.0") "," GPU_OK(
	                "0000:04:00.0") "],\"pci\":[" BEHIND("0000:03:00.0") "," BEHIND("0000:04:00.0") "]}",
	        &f);
	assert_string_equal(got, "GA-LINK-DEGRADED warning 0000:01:00.0: PCIe link trained at x4 of x16 "
	                         "(8.0 GT/s); affects 0000:03:00.0 0000:04:00.0\n");
	ga_free(got);
	assert_int_equal(f.n, 1);
	static const char *const ev[][2] = {
		{ "current_width", "4" },
		{ "capable_width", "16" },
		{ "current_speed", "8.0 GT/s" },
		{ "capable_speed", "unknown speed" },
		{ "devices", "0000:03:00.0 0000:04:00.0" },
	};
	assert_int_equal(f.v[0].n_evidence, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(f.v[0].evidence[i].key, ev[i][0]);
		assert_string_equal(f.v[0].evidence[i].value, ev[i][1]);
	}
	assert_non_null(f.v[0].decision);
	ga_findings_release(&f);
}

static void test_x8_slot_not_degraded(void **state)
{
	(void)state;
	/* an x16 card in an x8-wired slot: the port's max width is 8, so x8 is all it can do */
	EXPECT(HEAD "\"accelerators\":[" GPU_OK(
	               "0000:01:00.0") "],"
	                               "\"pci\":[{\"address\":\"0000:01:00.0\",\"kind\":\"accelerator\","
	                               "\"link\":{\"cur_width\":8,\"max_width\":16},"
	                               "\"upstream\":[{\"address\":\"0000:00:01.0\",\"link\":{\"cur_width\":"
	                               "8,"
	                               "\"max_width\":8}}]}]}",
	       "");
	/* display devices are never reported */
	EXPECT(HEAD "\"accelerators\":[" GPU_OK(
	               "0000:01:00.0") "],"
	                               "\"pci\":[{\"address\":\"0000:05:00.0\",\"kind\":\"display\","
	                               "\"link\":{\"cur_width\":1,\"max_width\":16}}]}",
	       "");
}

static void test_slow_link(void **state)
{
	(void)state;
	/* GPUs drop their link speed at idle: not a finding; a NIC at half speed is */
#define SLOW(addr, kind)                                         \
	"{\"address\":\"" addr "\",\"kind\":\"" kind             \
	"\",\"link\":{\"cur_speed_gts\":8,\"max_speed_gts\":16," \
	"\"cur_width\":16,\"max_width\":16},\"path_min_speed_gts\":8,\"path_capable_speed_gts\":16}"
	EXPECT(HEAD "\"accelerators\":[" GPU_OK(
	               "0000:01:00.0") "],"
	                               "\"pci\":[" SLOW("0000:01:00.0",
	                                                "accelerator") "," SLOW("0000:41:00.0", "nic") "]}",
	       "GA-LINK-SLOW warning 0000:41:00.0: nic link runs at 8.0 GT/s, capable of 16.0 GT/s\n");
}

#define UVM_MISSING                                                                                     \
	"\"accelerators\":[{\"vendor\":\"nvidia\",\"address\":\"0000:01:00.0\",\"driver\":\"nvidia\","  \
	"\"missing_nodes\":[\"/dev/nvidia-uvm\"]},{\"vendor\":\"nvidia\",\"address\":\"0000:02:00.0\"," \
	"\"driver\":\"nvidia\",\"missing_nodes\":[\"/dev/nvidia-uvm\"]}],\"modules_source\":\"/proc/"   \
	"modules\","

static void test_uvm_missing(void **state)
{
	(void)state;
	struct ga_findings f;
	char *got = analyze(HEAD UVM_MISSING "\"modules\":[\"nvidia\",\"nvidia_uvm\"]}", &f);
	assert_string_equal(got, "GA-DEVNODE-MISSING error /dev/nvidia-uvm: device node /dev/nvidia-uvm "
	                         "is missing (nvidia_uvm is loaded); needed by 0000:01:00.0 0000:02:00.0\n");
	assert_non_null(strstr(f.v[0].decision, "nvidia-modprobe -u"));
	assert_null(strstr(f.v[0].decision, "modprobe nvidia_uvm"));
	ga_free(got);
	ga_findings_release(&f);

	got = analyze(HEAD UVM_MISSING "\"modules\":[\"nvidia\"]}", &f);
	assert_string_equal(got,
	                    "GA-DEVNODE-MISSING error /dev/nvidia-uvm: device node /dev/nvidia-uvm "
	                    "is missing (nvidia_uvm is not loaded); needed by 0000:01:00.0 0000:02:00.0\n");
	assert_non_null(strstr(f.v[0].decision, "modprobe nvidia_uvm"));
	ga_free(got);
	ga_findings_release(&f);
}

static void test_driver_mismatch(void **state)
{
	(void)state;
	EXPECT(HEAD "\"accelerators\":[" GPU_OK(
	               "0000:01:00.0") "],"
	                               "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.54.14\","
	                               "\"proc_version\":\"550.54.14\",\"module_version\":\"550.90.07\"}],"
	                               "\"runtimes\":[{\"name\":\"libcuda\",\"version\":\"550.90.07\","
	                               "\"path\":\"/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07\"},"
	                               "{\"name\":\"libnvidia-ml\",\"version\":\"550.54.14\",\"path\":\"/usr/"
	                               "lib/libnvidia-ml.so.550.54.14\"},"
	                               "{\"name\":\"libamdhip64\",\"version\":\"6.1.0\",\"path\":\"/opt/rocm/"
	                               "lib/libamdhip64.so.6.1.0\"}]}",
	       "GA-DRIVER-MISMATCH error /usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07: libcuda is version "
	       "550.90.07 but the NVIDIA kernel module is 550.54.14\n"
	       "GA-DRIVER-MISMATCH error nvidia: running NVIDIA kernel module 550.54.14 differs from the "
	       "module version 550.90.07\n");
	/* a DKMS tree decides the action: the libraries' version built for the running kernel:
	 * reboot (the code's); only another version built: fix_config (a reboot would not help);
	 * in a container the tree is the host's business: the code's */
	static const struct {
		const char *built, *container;
		enum ga_action want;
	} dk[] = { { "[\"550.90.07\"]", "null", GA_ACT_REBOOT },
		   { "[\"550.54.14\"]", "null", GA_ACT_FIX_CONFIG },
		   { "[]", "null", GA_ACT_FIX_CONFIG },
		   { "[]", "\"docker\"", GA_ACT_REBOOT } };
	for (size_t i = 0; i < sizeof(dk) / sizeof(dk[0]); i++) {
		char json[1024];
		snprintf(json, sizeof(json),
		         HEAD
		         "\"host\":{\"kernel_release\":\"6.8.0-45-generic\",\"virt\":{\"container\":%s}},"
		         "\"accelerators\":[" GPU_OK(
		                 "0000:01:00.0") "],"
		                                 "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.54."
		                                 "14\",\"dkms_tree\":"
		                                 "\"/var/lib/dkms/nvidia\",\"dkms_installed\":%s}],"
		                                 "\"runtimes\":[{\"name\":\"libnvidia-ml\",\"version\":\"550."
		                                 "90.07\","
		                                 "\"path\":\"/x\"}]}",
		         dk[i].container, dk[i].built);
		assert_int_equal(mismatch_action(json), dk[i].want);
	}
	/* without a DKMS tree, the module file installed for the running kernel decides the same
	 * way: the libraries' version: reboot; another: fix_config; in a container: the code's */
	static const struct {
		const char *file_version, *container;
		enum ga_action want;
	} mf[] = { { "550.90.07", "null", GA_ACT_REBOOT },
		   { "550.54.14", "null", GA_ACT_FIX_CONFIG },
		   { "550.54.14", "\"docker\"", GA_ACT_REBOOT } };
	for (size_t i = 0; i < sizeof(mf) / sizeof(mf[0]); i++) {
		char json[1024];
		snprintf(
		        json, sizeof(json),
		        HEAD
		        "\"host\":{\"kernel_release\":\"6.8.0-45-generic\",\"virt\":{\"container\":%s}},"
		        "\"accelerators\":[" GPU_OK(
		                "0000:01:00.0") "],"
		                                "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.54.14\","
		                                "\"module_file\":\"/lib/modules/6.8.0-45-generic/updates/"
		                                "dkms/nvidia.ko.zst\","
		                                "\"module_file_version\":\"%s\"}],"
		                                "\"runtimes\":[{\"name\":\"libnvidia-ml\",\"version\":\"550."
		                                "90.07\",\"path\":\"/x\"}]}",
		        mf[i].container, mf[i].file_version);
		assert_int_equal(mismatch_action(json), mf[i].want);
	}
	/* all the same version: nothing */
	EXPECT(HEAD "\"accelerators\":[" GPU_OK(
	               "0000:01:00.0") "],"
	                               "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.54.14\","
	                               "\"proc_version\":\"550.54.14\",\"module_version\":\"550.54.14\"}],"
	                               "\"runtimes\":[{\"name\":\"libcuda\",\"version\":\"550.54.14\","
	                               "\"path\":\"/x\"}]}",
	       "");
}

static void test_accelerator_state(void **state)
{
	(void)state;
	EXPECT(HEAD
	       "\"accelerators\":["
	       "{\"vendor\":\"nvidia\",\"model\":\"A100\",\"address\":\"0000:01:00.0\"},"
	       "{\"vendor\":\"nvidia\",\"address\":\"0000:02:00.0\",\"driver\":\"vfio-pci\"},"
	       "{\"vendor\":\"nvidia\",\"address\":\"0000:03:00.0\",\"driver\":\"nvidia\",\"excluded\":true},"
	       "{\"vendor\":\"nvidia\",\"address\":\"0000:04:00.0\",\"driver\":\"nvidia\",\"excluded\":false}"
	       ","
	       "{\"vendor\":\"nvidia\",\"address\":\"0000:05:00.0\",\"driver\":\"nouveau\"}]}",
	       "GA-ACCEL-NO-DRIVER error 0000:01:00.0: nvidia accelerator A100 has no driver bound\n"
	       "GA-ACCEL-WRONG-DRIVER error 0000:05:00.0: NVIDIA GPU is driven by nouveau, which cannot run "
	       "CUDA\n"
	       "GA-GPU-EXCLUDED error 0000:03:00.0: the NVIDIA driver reports this GPU as excluded\n"
	       "GA-ACCEL-PASSTHROUGH info 0000:02:00.0: accelerator is bound to vfio-pci (device "
	       "passthrough)\n");
}

static void test_cpu_only_and_gaps(void **state)
{
	(void)state;
	EXPECT(HEAD "\"gaps\":[{\"path\":\"sys/bus/pci/devices\",\"reason\":\"permission denied\"},"
	            "{\"path\":\"proc/cpuinfo\",\"reason\":\"missing\"}]}",
	       "GA-PCI-UNKNOWN warning node: the PCI devices could not be read (/sys/bus/pci/devices: "
	       "permission denied): the accelerator count is unknown\n"
	       "GA-SNAPSHOT-GAP warning /proc/cpuinfo: could not read /proc/cpuinfo: missing\n");
	/* the bus read and empty: a CPU-only node */
	EXPECT(HEAD "\"gaps\":[{\"path\":\"proc/cpuinfo\",\"reason\":\"missing\"}]}",
	       "GA-SNAPSHOT-GAP warning /proc/cpuinfo: could not read /proc/cpuinfo: missing\n"
	       "GA-NO-ACCELERATOR info node: no GPU or other accelerator found on the PCI bus\n");
}

static void test_ordering(void **state)
{
	(void)state;
	/* severity descending, then code, then subject, whatever the order they were found in */
	struct ga_findings f;
	char *got = analyze(
	        HEAD
	        "\"gaps\":[{\"path\":\"b\",\"reason\":\"missing\"}],"
	        "\"accelerators\":[{\"address\":\"0000:09:00.0\",\"driver\":\"vfio-pci\"},"
	        "{\"address\":\"0000:08:00.0\"},{\"address\":\"0000:07:00.0\"}],"
	        "\"pci\":[{\"address\":\"0000:09:00.0\",\"kind\":\"nic\",\"link\":{\"cur_speed_gts\":2.5,"
	        "\"cur_width\":1,\"max_width\":4},\"path_min_speed_gts\":2.5,"
	        "\"path_capable_speed_gts\":8}]}",
	        &f);
	assert_string_equal(
	        got, "GA-ACCEL-NO-DRIVER error 0000:07:00.0:  accelerator  has no driver bound\n"
	             "GA-ACCEL-NO-DRIVER error 0000:08:00.0:  accelerator  has no driver bound\n"
	             "GA-LINK-DEGRADED warning 0000:09:00.0: PCIe link trained at x1 of x4 (2.5 GT/s); "
	             "affects 0000:09:00.0\n"
	             "GA-LINK-SLOW warning 0000:09:00.0: nic link runs at 2.5 GT/s, capable of 8.0 GT/s\n"
	             "GA-SNAPSHOT-GAP warning /b: could not read /b: missing\n"
	             "GA-ACCEL-PASSTHROUGH info 0000:09:00.0: accelerator is bound to vfio-pci (device "
	             "passthrough)\n");
	assert_int_equal(ga_findings_max_severity(&f), GA_SEV_ERROR);
	ga_free(got);
	ga_findings_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_degraded_at_device),
		cmocka_unit_test(test_degraded_upstream_once),
		cmocka_unit_test(test_x8_slot_not_degraded),
		cmocka_unit_test(test_slow_link),
		cmocka_unit_test(test_uvm_missing),
		cmocka_unit_test(test_driver_mismatch),
		cmocka_unit_test(test_accelerator_state),
		cmocka_unit_test(test_cpu_only_and_gaps),
		cmocka_unit_test(test_ordering),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
