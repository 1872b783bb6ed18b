/*
 * test_container.c - the container layer's readers and decisions: CDI specs
 * parsed from YAML and JSON (what is kept, what a bad spec says and where),
 * the driver version from library file names, the kubelet checkpoint (NUMA-keyed
 * and flat device IDs, Go's null slice, damage), the CDI and device-plugin
 * findings on small hand-made nodes, and preflight's container view.
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

#include "gpuaudit/container-read.h"
#include "gpuaudit/container.h"
#include "gpuaudit/core.h"
#include "gpuaudit/preflight.h"

static const char spec_yaml[] = "---\n"
                                "cdiVersion: 0.5.0\n"
                                "kind: nvidia.com/gpu\n"
                                "containerEdits:\n"
                                "  deviceNodes:\n"
                                "  - path: /dev/nvidiactl\n"
                                "  mounts:\n"
                                "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15\n"
                                "    containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15\n"
                                "    options: [ro, nosuid, nodev, bind]\n"
                                "  - hostPath: /usr/bin/nvidia-smi\n"
                                "    containerPath: /usr/bin/nvidia-smi\n"
                                "  hooks:\n"
                                "  - hookName: createContainer\n"
                                "    path: /usr/bin/nvidia-cdi-hook\n"
                                "    args: [nvidia-cdi-hook, update-ldcache]\n"
                                "devices:\n"
                                "- name: \"0\"\n"
                                "  containerEdits:\n"
                                "    deviceNodes:\n"
                                "    - path: /dev/nvidia0\n"
                                "      major: 195\n"
                                "- name: GPU-aaaa\n"
                                "  containerEdits:\n"
                                "    deviceNodes:\n"
                                "    - {path: /dev/nvidia0}\n"
                                "- name: all\n";

static void test_spec_yaml(void **state)
{
	(void)state;
	struct ga_cdi_spec s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(ga_cdi_spec_parse(spec_yaml, strlen(spec_yaml), true, &s), 0);
	assert_null(s.error);
	assert_string_equal(s.cdi_version, "0.5.0");
	assert_string_equal(s.kind, "nvidia.com/gpu");
	assert_int_equal(s.n_devices, 3);
	assert_string_equal(s.devices[0].name, "0");
	assert_int_equal(s.devices[0].device_nodes.n, 1);
	assert_string_equal(s.devices[2].name, "all");
	assert_int_equal(s.device_nodes.n, 2); /* nvidia0 once, nvidiactl */
	assert_int_equal(s.libraries.n, 1);
	assert_int_equal(s.mounts.n, 1);
	assert_string_equal(s.hooks.v[0], "/usr/bin/nvidia-cdi-hook");
	assert_string_equal(s.driver_version, "550.54.15");
	ga_cdi_spec_release(&s);
}

static void test_spec_errors(void **state)
{
	(void)state;
	static const char *const t[][3] = {
		/* yaml?, text, error */
		{ "y", "cdiVersion: 0.5.0\nkind: [x\n", "not valid YAML" },
		{ "y", "cdiVersion: 0.5.0\nkind: &k nvidia.com/gpu\nx: *k\n", "3:4: YAML aliases" },
		{ "y", "kind: 'a''''b'\n", "1:9: two escaped quotes" },
		{ "y", "%\xfe\n", "1:2: a byte that is never UTF-8" },
		{ "j", "{\"cdiVersion\": \"0.5.0\",", "1:23: invalid JSON" },
		{ "j", "{\"cdiVersion\": 5, \"kind\": \"a/b\", \"devices\": []}",
		  "cdiVersion: expected a string" },
		{ "j", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"a/b\"}", "devices: missing" },
		{ "j",
		  "{\"cdiVersion\": \"0.5.0\", \"kind\": \"a/b\", \"devices\": [{\"containerEdits\": {}}]}",
		  "devices[0]: a device needs a name" },
		{ "j",
		  "{\"cdiVersion\": \"0.5.0\", \"kind\": \"a/b\", \"devices\": [{\"name\": \"0\", "
		  "\"containerEdits\": {\"mounts\": [{\"hostPath\": \"/x\"}]}}]}",
		  "devices[0].containerEdits.mounts[0]: a mount needs hostPath and containerPath" },
		{ "j", "[]", "spec: expected a mapping" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ga_cdi_spec s;
		memset(&s, 0, sizeof(s));
		assert_int_equal(ga_cdi_spec_parse(t[i][1], strlen(t[i][1]), t[i][0][0] == 'y', &s), 0);
		if (!s.error || !strstr(s.error, t[i][2]))
			fail_msg("case %zu: got \"%s\"", i, s.error ? s.error : "(no error)");
		ga_cdi_spec_release(&s);
	}
}

static void test_lib_version(void **state)
{
	(void)state;
	assert_string_equal(ga_cdi_lib_version("/usr/lib/libcuda.so.550.54.15", "libcuda"), "550.54.15");
	assert_string_equal(ga_cdi_lib_version("libnvidia-ml.so.580.95.05", "libnvidia-ml"), "580.95.05");
	assert_null(ga_cdi_lib_version("/usr/lib/libcuda.so.1", "libcuda"));
	assert_null(ga_cdi_lib_version("/usr/lib/libcudart.so.12.4.127", "libcuda"));
	assert_null(ga_cdi_lib_version("/usr/lib/libcuda.so.550.x", "libcuda"));
}

static void test_checkpoint(void **state)
{
	(void)state;
	static const char numa[] =
	        "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"p\",\"ContainerName\":\"c\","
	        "\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":{\"0\":[\"GPU-a\"],\"1\":[\"GPU-b\"]},"
	        "\"AllocResp\":\"\"},{\"PodUID\":\"q\",\"ContainerName\":\"c\",\"ResourceName\":"
	        "\"nvidia.com/gpu\",\"DeviceIDs\":[\"GPU-a\"]}],\"RegisteredDevices\":{\"nvidia.com/gpu\":"
	        "[\"GPU-a\",\"GPU-b\",\"GPU-c\"],\"amd.com/gpu\":[]}},\"Checksum\":42}";
	struct ga_device_plugins dp;
	memset(&dp, 0, sizeof(dp));
	assert_int_equal(ga_dp_checkpoint_parse(numa, strlen(numa), &dp), 0);
	assert_null(dp.checkpoint_error);
	assert_int_equal(dp.n_resources, 2);
	assert_string_equal(dp.resources[0].name, "nvidia.com/gpu");
	assert_int_equal(dp.resources[0].devices.n, 3);
	assert_true(dp.resources[0].allocated.set);
	assert_int_equal(dp.resources[0].allocated.v, 2); /* GPU-a counted once */
	assert_int_equal(dp.resources[1].allocated.v, 0);
	assert_int_equal(dp.pod_entries.v, 2);
	ga_schema_release(&ga_device_plugins_schema, &dp);

	static const char nil[] = "{\"Data\":{\"PodDeviceEntries\":null,\"RegisteredDevices\":{\"x.com/y\":"
	                          "[\"1\"]}},\"Checksum\":1}";
	memset(&dp, 0, sizeof(dp));
	assert_int_equal(ga_dp_checkpoint_parse(nil, strlen(nil), &dp), 0);
	assert_true(dp.pod_entries.set);
	assert_int_equal(dp.pod_entries.v, 0);
	assert_true(dp.resources[0].allocated.set);
	ga_schema_release(&ga_device_plugins_schema, &dp);

	static const char *const bad[][2] = {
		{ "{\"Data\":", "invalid JSON" },
		{ "{\"Checksum\":1}", "no \"Data\" mapping" },
		{ "{\"Data\":{\"RegisteredDevices\":[]}}", "Data.RegisteredDevices: expected a mapping" },
		{ "{\"Data\":{\"RegisteredDevices\":{\"a/b\":[1]}}}", "a device ID is not a string" },
		{ "{\"Data\":{\"PodDeviceEntries\":[{}]}}", "an entry without ResourceName" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&dp, 0, sizeof(dp));
		assert_int_equal(ga_dp_checkpoint_parse(bad[i][0], strlen(bad[i][0]), &dp), 0);
		if (!dp.checkpoint_error || !strstr(dp.checkpoint_error, bad[i][1]))
			fail_msg("case %zu: got \"%s\"", i,
			         dp.checkpoint_error ? dp.checkpoint_error : "(none)");
		ga_schema_release(&ga_device_plugins_schema, &dp);
	}
}

/* A node of two NVIDIA GPUs (minors 0, 1; GPU 1 has one MIG device) read from JSON, plus one spec. */
static struct ga_node *node_with(struct ga_ctx *ctx, const char *spec_json, const char *dp_json)
{
	char text[4096];
	snprintf(text, sizeof(text),
	         "{\"schema\":\"gpuaudit.node/v1\",\"accelerators\":["
	         "{\"vendor\":\"nvidia\",\"address\":\"0000:07:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-"
	         "a\","
	         "\"minor\":0},"
	         "{\"vendor\":\"nvidia\",\"address\":\"0000:0f:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-"
	         "b\","
	         "\"minor\":1}],"
	         "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"580.95.05\"}]"
	         "%s%s%s%s}",
	         spec_json ? ",\"cdi\":{\"dirs\":[\"/etc/cdi\"],\"mig_devices\":[{\"gpu_minor\":1,\"gi\":1,"
	                     "\"ci\":0}],\"specs\":["
	                   : "",
	         spec_json ? spec_json : "", spec_json ? "]}" : "", dp_json ? dp_json : "");
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_from_json(ctx, text, strlen(text), &n), 0);
	return n;
}

static size_t count(const struct ga_findings *f, const char *code)
{
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		k += !strcmp(f->v[i].code, code);
	return k;
}

static void test_cdi_findings(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	/* current, complete: index names for GPU 0, UUID for GPU 1, 1:0 for its MIG device */
	struct ga_node *n =
	        node_with(ctx,
	                  "{\"path\":\"/etc/cdi/nvidia.yaml\",\"cdi_version\":\"0.5.0\",\"kind\":"
	                  "\"nvidia.com/gpu\",\"driver_version\":\"580.95.05\",\"devices\":["
	                  "{\"name\":\"0\"},{\"name\":\"GPU-b\"},{\"name\":\"1:0\"},{\"name\":\"all\"}]}",
	                  NULL);
	struct ga_findings f;
	ga_findings_init(&f);
	ga_analyze_cdi(n, &f);
	assert_int_equal(f.n, 0);
	ga_findings_release(&f);
	ga_node_free(n);
	/* stale, a missing MIG device, entries for a GPU and a MIG device that are gone, a missing path */
	n = node_with(
	        ctx,
	        "{\"path\":\"/etc/cdi/nvidia.yaml\",\"cdi_version\":\"0.5.0\",\"kind\":\"nvidia.com/gpu\","
	        "\"driver_version\":\"570.172.08\",\"missing\":[\"/usr/lib/libcuda.so.570.172.08\"],"
	        "\"devices\":[{\"name\":\"gpu0\"},{\"name\":\"1\"},{\"name\":\"2\"},{\"name\":\"1:1\"},"
	        "{\"name\":\"GPU-zzz\"},{\"name\":\"x\",\"device_nodes\":[\"/dev/nvidia9\"]}]}",
	        NULL);
	ga_findings_init(&f);
	ga_analyze_cdi(n, &f);
	assert_int_equal(count(&f, "GA-CDI-STALE"), 1);
	assert_int_equal(count(&f, "GA-CDI-PATH-MISSING"), 1);
	assert_int_equal(count(&f, "GA-CDI-DEVICE-MISSING"), 1); /* 1:0 */
	assert_int_equal(count(&f, "GA-CDI-DEVICE-GONE"), 4);    /* 2, 1:1, GPU-zzz, x */
	ga_findings_release(&f);
	ga_node_free(n);
	/* invalid specs: bad version, bad kind, bad and duplicate names */
	static const char *const bad[] = {
		"{\"path\":\"/a\",\"cdi_version\":\"2.0.0\",\"kind\":\"nvidia.com/gpu\"}",
		"{\"path\":\"/a\",\"cdi_version\":\"0.5.0\",\"kind\":\"nvidia.com\"}",
		"{\"path\":\"/a\",\"cdi_version\":\"0.5.0\",\"kind\":\"9vendor/gpu\"}",
		"{\"path\":\"/a\",\"cdi_version\":\"0.5.0\",\"kind\":\"a.com/"
		"b\",\"devices\":[{\"name\":\"-x\"}]}",
		"{\"path\":\"/a\",\"cdi_version\":\"0.5.0\",\"kind\":\"a.com/"
		"b\",\"devices\":[{\"name\":\"x\"},"
		"{\"name\":\"x\"}]}",
		"{\"path\":\"/a\",\"error\":\"1:1: invalid JSON\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = node_with(ctx, bad[i], NULL);
		ga_findings_init(&f);
		ga_analyze_cdi(n, &f);
		if (count(&f, "GA-CDI-INVALID") != 1)
			fail_msg("case %zu: %zu findings", i, f.n);
		ga_findings_release(&f);
		ga_node_free(n);
	}
	ga_ctx_free(ctx);
}

static void test_dp_findings(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct {
		const char *dp;
		const char *code;
		size_t n;
	} t[] = {
		{ ",\"device_plugins\":{\"kubelet_socket\":true,\"sockets\":[\"nvidia-gpu.sock\"],"
		  "\"checkpoint\":"
		  "\"/c\",\"resources\":[{\"name\":\"nvidia.com/gpu\",\"devices\":[\"GPU-a\",\"GPU-b\"]}]}",
		  NULL, 0 },
		{ ",\"device_plugins\":{\"kubelet_socket\":true,\"sockets\":[\"nvidia-gpu.sock\"],"
		  "\"checkpoint\":"
		  "\"/c\",\"resources\":[{\"name\":\"nvidia.com/gpu\",\"devices\":[\"GPU-a\"]}]}",
		  "GA-DP-GPU-UNREGISTERED", 1 },
		{ ",\"device_plugins\":{\"kubelet_socket\":true,\"checkpoint\":\"/c\",\"resources\":[]}",
		  "GA-DP-NOT-REGISTERED", 1 },
		{ ",\"device_plugins\":{\"kubelet_socket\":false,\"resources\":[]}", NULL, 0 },
		{ ",\"device_plugins\":{\"kubelet_socket\":true,\"checkpoint\":\"/"
		  "c\",\"resources\":[{\"name\":"
		  "\"nvidia.com/gpu\",\"devices\":[\"GPU-a\",\"GPU-b\"]}]}",
		  "GA-DP-SOCKET-MISSING", 1 },
		{ ",\"device_plugins\":{\"kubelet_socket\":true,\"sockets\":[\"nvidia-gpu.sock\"],"
		  "\"checkpoint\":"
		  "\"/c\",\"resources\":[{\"name\":\"nvidia.com/gpu\",\"devices\":[\"GPU-a::0\",\"GPU-a::1\","
		  "\"GPU-b::0\",\"GPU-old\"]}]}",
		  "GA-DP-DEVICE-GONE", 1 },
		{ ",\"device_plugins\":{\"checkpoint\":\"/c\",\"checkpoint_error\":\"bad\"}",
		  "GA-DP-CHECKPOINT-INVALID", 1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ga_node *n = node_with(ctx, NULL, t[i].dp);
		struct ga_findings f;
		ga_findings_init(&f);
		ga_analyze_device_plugins(n, &f);
		size_t got = t[i].code ? count(&f, t[i].code) : f.n;
		if (got != t[i].n)
			fail_msg("case %zu: %zu findings (%s)", i, f.n, f.n ? f.v[0].code : "");
		ga_findings_release(&f);
		ga_node_free(n);
	}
	ga_ctx_free(ctx);
}

static void test_container_view(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	static const char base[] =
	        "{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"virt\":{\"container\":%s}},\"accelerators\":["
	        "{\"vendor\":\"nvidia\",\"address\":\"0000:07:00.0\",\"driver\":\"nvidia\"},"
	        "{\"vendor\":\"nvidia\",\"address\":\"0000:0f:00.0\",\"driver\":\"nvidia\"}],"
	        "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"580.95.05\"}],\"device_nodes\":[%s],"
	        "\"runtimes\":[%s]}";
	struct {
		const char *container, *nodes, *libs, *nvd;
		bool env;
		const char *code; /* NULL: no view; "": a view without findings */
	} t[] = {
		{ "null", "\"/dev/nvidia0\"", "", NULL, false, NULL },
		{ "null", "\"/dev/nvidia0\"",
		  "{\"name\":\"libcuda\",\"version\":\"580.95.05\",\"path\":\"/usr/lib/"
		  "libcuda.so.580.95.05\"}",
		  NULL, true, "" },
		{ "\"docker\"", "", "", NULL, false, "GA-CONTAINER-NO-GPU" },
		{ "\"docker\"", "", "", "all", false, "GA-CONTAINER-NO-GPU" },
		{ "\"docker\"", "", "", "void", false, "" },
		{ "\"kubernetes\"", "\"/dev/nvidia0\",\"/dev/nvidiactl\"",
		  "{\"name\":\"libcuda\",\"version\":\"580.95.05\",\"path\":\"/usr/lib/"
		  "libcuda.so.580.95.05\"}",
		  "all", false, "GA-CONTAINER-VISIBLE-MISMATCH" },
		{ "\"kubernetes\"", "\"/dev/nvidia0\"",
		  "{\"name\":\"libcuda\",\"version\":\"580.95.05\",\"path\":\"/usr/lib/"
		  "libcuda.so.580.95.05\"}",
		  "GPU-a,GPU-b", false, "GA-CONTAINER-VISIBLE-MISMATCH" },
		{ "\"kubernetes\"", "\"/dev/nvidia0\"",
		  "{\"name\":\"libcuda\",\"version\":\"570.1.2\",\"path\":\"/usr/lib/libcuda.so.570.1.2\"}",
		  NULL, false, "GA-CONTAINER-LIB-MISMATCH" },
		{ "\"kubernetes\"", "\"/dev/nvidia0\"", "", NULL, false, "GA-CONTAINER-NO-DRIVER-LIB" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text), base, t[i].container, t[i].nodes, t[i].libs);
		struct ga_node *n = NULL;
		assert_int_equal(ga_node_from_json(ctx, text, strlen(text), &n), 0);
		struct ga_pf_doc_container *c = NULL;
		assert_int_equal(ga_pf_container_view(n, t[i].nvd, t[i].env, &c), 0);
		if (!t[i].code) {
			assert_null(c);
		} else {
			assert_non_null(c);
			assert_int_equal(c->node_gpus.v, 2);
			if (!*t[i].code ? c->findings.n != 0 : count(&c->findings, t[i].code) != 1)
				fail_msg("case %zu: %zu findings (%s)", i, c->findings.n,
				         c->findings.n ? c->findings.v[0].code : "");
		}
		ga_pf_container_free(c);
		ga_node_free(n);
	}
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_yaml),      cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_lib_version),    cmocka_unit_test(test_checkpoint),
		cmocka_unit_test(test_cdi_findings),   cmocka_unit_test(test_dp_findings),
		cmocka_unit_test(test_container_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
