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
#include "gpuaudit/preflight-analyze.h"

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
                                "- name: all\n"
                                "  containerEdits:\n"
                                "    env: [NVIDIA_VISIBLE_DEVICES=void]\n";

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

/*
 * The rules tags.cncf.io/container-device-interface applies when it loads a
 * spec (docs/container.md lists them), one case or more each, written here:
 * the owners' test files are not copied. NULL: the spec is valid.
 */
#define SPEC(ver, kind, rest) "{\"cdiVersion\":\"" ver "\",\"kind\":\"" kind "\"," rest "}"
#define DEV1(edits) "\"devices\":[{\"name\":\"d\",\"containerEdits\":" edits "}]"
#define ENV1 "{\"env\":[\"A=1\"]}"

static void test_spec_rules(void **state)
{
	(void)state;
	static const char *const t[][2] = {
		/* versions: the known ones, an optional leading v, 0.3.0 at least */
		{ SPEC("0.3.0", "vendor.com/class", DEV1(ENV1)), NULL },
		{ SPEC("v1.1.0", "vendor.com/class", DEV1(ENV1)), NULL },
		{ SPEC("1.0.0", "vendor.com/class", DEV1(ENV1)), NULL },
		{ SPEC("1.2.0", "vendor.com/class", DEV1(ENV1)),
		  "cdiVersion '1.2.0' is not a released CDI version" },
		{ SPEC("vv1.1.0", "vendor.com/class", DEV1(ENV1)), "is not a released CDI version" },
		{ SPEC("V1.1.0", "vendor.com/class", DEV1(ENV1)), "is not a released CDI version" },
		{ SPEC("0.2.0", "vendor.com/class", DEV1(ENV1)),
		  "cdiVersion '0.2.0' is older than the spec needs: 0.3.0 (the oldest runtimes read)" },
		/* each feature and the version it needs (specs-go/version.go) */
		{ SPEC("0.3.0", "vendor.com/class",
		       DEV1("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/"
		            "a\",\"type\":\"bind\"}]}")),
		  "older than the spec needs: 0.4.0 for type on a mount" },
		{ SPEC("0.4.0", "vendor.com/class",
		       DEV1("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/"
		            "a\",\"type\":\"bind\"}]}")),
		  NULL },
		{ SPEC("0.4.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/x\",\"hostPath\":\"/dev/y\"}]}")),
		  "needs: 0.5.0 for hostPath on a device node" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/x\",\"hostPath\":\"/dev/y\"}]}")),
		  NULL },
		{ SPEC("0.4.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"0\",\"containerEdits\":" ENV1 "}]"),
		  "needs: 0.5.0 for a device name that starts with a digit" },
		{ SPEC("0.5.0", "vendor.com/class", "\"annotations\":{\"a\":\"b\"}," DEV1(ENV1)),
		  "needs: 0.6.0 for annotations" },
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"d\",\"annotations\":{\"a\":\"b\"},\"containerEdits\":" ENV1
		       "}]"),
		  "needs: 0.6.0 for annotations on a device" },
		{ SPEC("0.5.0", "vendor.com/cl.ass", DEV1(ENV1)),
		  "needs: 0.6.0 for a '.' in the kind's class" },
		{ SPEC("0.6.0", "vendor.com/cl.ass", DEV1(ENV1)), NULL },
		{ SPEC("0.6.0", "vendor.com/class", DEV1("{\"intelRdt\":{}}")), "needs: 0.7.0 for intelRdt" },
		{ SPEC("0.6.0", "vendor.com/class", DEV1("{\"additionalGids\":[5]}")),
		  "needs: 0.7.0 for additionalGids" },
		{ SPEC("0.7.0", "vendor.com/class",
		       "\"containerEdits\":{\"additionalGids\":[5]}," DEV1(ENV1)),
		  NULL },
		{ SPEC("1.0.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"enableMonitoring\":true}}")),
		  "needs: 1.1.0 for intelRdt schemata or enableMonitoring" },
		{ SPEC("1.0.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"schemata\":[]}}")),
		  "needs: 1.1.0 for intelRdt schemata" },
		{ SPEC("1.0.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"schemata\":null}}")), NULL },
		{ SPEC("1.0.0", "vendor.com/class",
		       DEV1("{\"netDevices\":[{\"hostInterfaceName\":\"eth1\",\"name\":\"n\"}]}")),
		  "needs: 1.1.0 for netDevices" },
		{ SPEC("1.1.0", "vendor.com/class",
		       DEV1("{\"netDevices\":[{\"hostInterfaceName\":\"eth1\",\"name\":\"n\"}]}")),
		  NULL },
		/* the kind: VENDOR/CLASS, a letter first, alphanumeric last, - _ . inside */
		{ SPEC("0.3.0", "vendor.com", DEV1(ENV1)), "a kind is VENDOR/CLASS" },
		{ SPEC("0.3.0", "/class", DEV1(ENV1)), "a kind is VENDOR/CLASS" },
		{ SPEC("0.3.0", "vendor.com/", DEV1(ENV1)), "a kind is VENDOR/CLASS" },
		{ SPEC("0.3.0", "a/b/c", DEV1(ENV1)), "a kind is VENDOR/CLASS" },
		{ SPEC("0.3.0", "9vendor.com/class", DEV1(ENV1)), "the vendor starts with a letter" },
		{ SPEC("0.3.0", "vendor.com-/class", DEV1(ENV1)), "the vendor starts with a letter" },
		{ SPEC("0.3.0", "ven dor/class", DEV1(ENV1)), "the vendor starts with a letter" },
		{ SPEC("0.3.0", "v/c", DEV1(ENV1)), NULL },
		{ SPEC("0.3.0", "v_e-n.d/c_l-s", DEV1(ENV1)), NULL },
		{ SPEC("0.3.0", "vendor.com/_class", DEV1(ENV1)), "the class starts with a letter" },
		{ SPEC("0.3.0", "vendor.com/c:d", DEV1(ENV1)), "the class starts with a letter" },
		/* device names: alphanumeric at both ends, - _ . : inside; each once; one at least */
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"a:0.b_c-d\",\"containerEdits\":" ENV1 "}]"),
		  NULL },
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"x-\",\"containerEdits\":" ENV1 "}]"),
		  "device name 'x-' must start and end alphanumeric" },
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\":x\",\"containerEdits\":" ENV1 "}]"),
		  "device name ':x'" },
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"a/b\",\"containerEdits\":" ENV1 "}]"),
		  "device name 'a/b'" },
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"\",\"containerEdits\":" ENV1 "}]"),
		  "device name ''" },
		{ SPEC("0.5.0", "vendor.com/class",
		       "\"devices\":[{\"name\":\"x\",\"containerEdits\":" ENV1
		       "},{\"name\":\"x\",\"containerEdits\":" ENV1 "}]"),
		  "device 'x' is defined twice" },
		{ SPEC("0.5.0", "vendor.com/class", "\"devices\":[]"), "devices: empty" },
		/* a device edits something */
		{ SPEC("0.5.0", "vendor.com/class", "\"devices\":[{\"name\":\"x\"}]"),
		  "devices[0].containerEdits: a device needs at least one edit" },
		{ SPEC("0.5.0", "vendor.com/class", DEV1("{}")), "a device needs at least one edit" },
		{ SPEC("0.5.0", "vendor.com/class", DEV1("{\"env\":[],\"mounts\":null}")),
		  "a device needs at least one edit" },
		{ SPEC("0.5.0", "vendor.com/class", "\"containerEdits\":{}," DEV1(ENV1)), NULL },
		/* env: NAME=value */
		{ SPEC("0.5.0", "vendor.com/class", DEV1("{\"env\":[\"A=\",\"B==c\"]}")), NULL },
		{ SPEC("0.5.0", "vendor.com/class", DEV1("{\"env\":[\"A=1\",\"NOVALUE\"]}")),
		  "devices[0].containerEdits.env[1]: an environment entry is NAME=value" },
		{ SPEC("0.5.0", "vendor.com/class", "\"containerEdits\":{\"env\":[\"=x\"]}," DEV1(ENV1)),
		  "containerEdits.env[0]: an environment entry is NAME=value" },
		/* device nodes: a path; type b, c, u, p; permissions of r, w, m or "none" */
		{ SPEC("0.5.0", "vendor.com/class", DEV1("{\"deviceNodes\":[{\"path\":\"\"}]}")),
		  "deviceNodes[0]: a device node's path is empty" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"type\":\"c\",\"permissions\":\"mrw\"},"
		            "{\"path\":\"/dev/b\",\"type\":\"u\",\"permissions\":\"none\"},{\"path\":\"/dev/"
		            "c\",\"type\":\"p\","
		            "\"permissions\":\"\",\"major\":-1,\"fileMode\":438,\"uid\":0,\"gid\":4294967295}"
		            "]}")),
		  NULL },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"type\":\"x\"}]}")),
		  "type is b, c, u or p" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"type\":\"cb\"}]}")),
		  "type is b, c, u or p" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"permissions\":\"rwx\"}]}")),
		  "permissions are made of r, w and m" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"permissions\":\"NONE\"}]}")),
		  "permissions are made of r, w and m" },
		/* hooks: one of the OCI hook names, a path, env NAME=value */
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"hooks\":[{\"hookName\":\"prestart\",\"path\":\"/"
		            "h\"},{\"hookName\":\"createRuntime\",\"path\":\"/h\"},"
		            "{\"hookName\":\"createContainer\",\"path\":\"/"
		            "h\"},{\"hookName\":\"startContainer\",\"path\":\"/h\"},"
		            "{\"hookName\":\"poststart\",\"path\":\"/"
		            "h\"},{\"hookName\":\"poststop\",\"path\":\"/h\",\"timeout\":5}]}")),
		  NULL },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"hooks\":[{\"hookName\":\"preStart\",\"path\":\"/h\"}]}")),
		  "hooks[0]: hookName is one of prestart" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"\"}]}")),
		  "hooks[0]: a hook's path is empty" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"hooks\":[{\"hookName\":\"poststop\",\"path\":\"/h\",\"env\":[\"X\"]}]}")),
		  "hooks[0].env[0]: an environment entry is NAME=value" },
		/* mounts: both paths */
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"mounts\":[{\"hostPath\":\"\",\"containerPath\":\"/a\"}]}")),
		  "mounts[0]: a mount's hostPath is empty" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"\"}]}")),
		  "mounts[0]: a mount's containerPath is empty" },
		/* intelRdt closID: a resctrl group name, or "/" */
		{ SPEC("0.7.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"closID\":\"/\"}}")), NULL },
		{ SPEC("0.7.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"closID\":\"a/b\"}}")),
		  "intelRdt.closID: not a name for a resctrl group" },
		{ SPEC("0.7.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"closID\":\"..\"}}")),
		  "intelRdt.closID" },
		/* netDevices: both names, each once */
		{ SPEC("1.1.0", "vendor.com/class",
		       DEV1("{\"netDevices\":[{\"hostInterfaceName\":\"\",\"name\":\"n\"}]}")),
		  "netDevices[0]: hostInterfaceName is empty" },
		{ SPEC("1.1.0", "vendor.com/class",
		       DEV1("{\"netDevices\":[{\"hostInterfaceName\":\"e\",\"name\":\"\"}]}")),
		  "netDevices[0]: name is empty" },
		{ SPEC("1.1.0", "vendor.com/class",
		       DEV1("{\"netDevices\":[{\"hostInterfaceName\":\"e\",\"name\":\"a\"},{"
		            "\"hostInterfaceName\":\"e\",\"name\":\"b\"}]}")),
		  "netDevices[1]: hostInterfaceName is given twice" },
		{ SPEC("1.1.0", "vendor.com/class",
		       DEV1("{\"netDevices\":[{\"hostInterfaceName\":\"e\",\"name\":\"a\"},{"
		            "\"hostInterfaceName\":\"f\",\"name\":\"a\"}]}")),
		  "netDevices[1]: name is given twice" },
		/* only the format's keys, with their types (specs-go/config.go) */
		{ SPEC("0.5.0", "vendor.com/class", "\"extra\":1," DEV1(ENV1)),
		  "extra: not a key of the CDI format" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"Major\":1}]}")),
		  "devices[0].containerEdits.deviceNodes[0].Major: not a key of the CDI format" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"minor\":\"1\"}]}")),
		  "deviceNodes[0].minor: expected an integer" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"deviceNodes\":[{\"path\":\"/dev/a\",\"uid\":-1}]}")),
		  "deviceNodes[0].uid: expected an integer from 0 to 4294967295" },
		{ SPEC("0.7.0", "vendor.com/class", DEV1("{\"additionalGids\":[4294967296]}")),
		  "additionalGids[0]: expected an integer from 0 to 4294967295" },
		{ SPEC("0.6.0", "vendor.com/class", "\"annotations\":{\"a\":1}," DEV1(ENV1)),
		  "annotations.a: expected a string" },
		{ SPEC("1.1.0", "vendor.com/class", DEV1("{\"intelRdt\":{\"enableMonitoring\":\"yes\"}}")),
		  "intelRdt.enableMonitoring: expected true or false" },
		{ SPEC("0.5.0", "vendor.com/class",
		       DEV1("{\"mounts\":[{\"hostPath\":\"/a\",\"containerPath\":\"/a\",\"options\":[1]}]}")),
		  "mounts[0].options[0]: expected a string" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ga_cdi_spec s;
		memset(&s, 0, sizeof(s));
		assert_int_equal(ga_cdi_spec_parse(t[i][0], strlen(t[i][0]), false, &s), 0);
		if (!t[i][1] && s.error)
			fail_msg("case %zu: valid, got \"%s\"", i, s.error);
		if (t[i][1] && (!s.error || !strstr(s.error, t[i][1])))
			fail_msg("case %zu: want \"%s\", got \"%s\"", i, t[i][1],
			         s.error ? s.error : "(no error)");
		ga_cdi_spec_release(&s);
	}
	/* netDevices are compared pairwise: a list longer than 4096 is refused, not walked */
	size_t cap = 64 + 4097 * 48, len = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	len += (size_t)snprintf(big + len, cap - len,
	                        "{\"cdiVersion\":\"1.1.0\",\"kind\":\"v/c\",\"devices\":[{\"name\":\"d\","
	                        "\"containerEdits\":{\"netDevices\":[");
	for (int i = 0; i < 4097; i++)
		len += (size_t)snprintf(big + len, cap - len,
		                        "%s{\"hostInterfaceName\":\"h%d\",\"name\":\"n%d\"}", i ? "," : "", i,
		                        i);
	len += (size_t)snprintf(big + len, cap - len, "]}}]}");
	struct ga_cdi_spec bs;
	memset(&bs, 0, sizeof(bs));
	assert_int_equal(ga_cdi_spec_parse(big, len, false, &bs), 0);
	assert_non_null(bs.error);
	assert_non_null(
	        strstr(bs.error, "devices[0].containerEdits.netDevices: more entries than gpuaudit reads"));
	ga_cdi_spec_release(&bs);
	free(big);
	/* YAML reaches the same rules: "v1.1.0" and a device without edits */
	static const char *const y[][2] = {
		{ "cdiVersion: \"v1.1.0\"\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n"
		  "    deviceNodes:\n    - path: /dev/nvidia0\n",
		  NULL },
		{ "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n",
		  "devices[0].containerEdits: a device needs at least one edit" },
		{ "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n"
		  "    mounts:\n    - hostPath: /a\n      containerPath: \"\"\n",
		  "mounts[0]: a mount's containerPath is empty" },
	};
	for (size_t i = 0; i < sizeof(y) / sizeof(y[0]); i++) {
		struct ga_cdi_spec s;
		memset(&s, 0, sizeof(s));
		assert_int_equal(ga_cdi_spec_parse(y[i][0], strlen(y[i][0]), true, &s), 0);
		if (!y[i][1] && s.error)
			fail_msg("yaml case %zu: valid, got \"%s\"", i, s.error);
		if (y[i][1] && (!s.error || !strstr(s.error, y[i][1])))
			fail_msg("yaml case %zu: got \"%s\"", i, s.error ? s.error : "(no error)");
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
		cmocka_unit_test(test_spec_yaml),   cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_spec_rules),  cmocka_unit_test(test_lib_version),
		cmocka_unit_test(test_checkpoint),  cmocka_unit_test(test_cdi_findings),
		cmocka_unit_test(test_dp_findings), cmocka_unit_test(test_container_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
