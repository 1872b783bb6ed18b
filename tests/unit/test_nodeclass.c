/*
 * test_nodeclass.c - the node class fingerprint: stable over repeated
 * collection and over everything that changes while a node runs or that names
 * one machine; moved by the hardware (count, MIG layout) and the software
 * stack (driver) in the right hash; the cache key follows MIG and driver.
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

#include "gpuaudit/isolate.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"
#include "gpuaudit/node-read.h"

/* A snapshot with n A100s seen by NVML; every argument is something a test varies. */
struct params {
	const char *host, *boot_id, *serial, *uuid, *driver;
	double uptime_s;
	unsigned temp_c, util_pct, power_mw, bus_base;
	unsigned long long used_bytes, ecc_corrected;
	int ngpus;
	const char *mig; /* NULL: MIG off; else the JSON array of MIG device names */
};

static const struct params base = {
	.host = "node-a",
	.boot_id = "0b7f0e30-0000-4000-8000-000000000001",
	.serial = "1564720004631",
	.uuid = "GPU-1ab015c5-9554-fb70-f731-753e18aded3",
	.driver = "550.135",
	.uptime_s = 3600,
	.temp_c = 31,
	.util_pct = 0,
	.power_mw = 52000,
	.bus_base = 0x07,
	.used_bytes = 594542592,
	.ecc_corrected = 0,
	.ngpus = 2,
	.mig = NULL,
};

static char *make_json(const struct params *p)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	ga_buf_addf(&b,
	            "{\"schema\":\"gpuaudit.node/v1\","
	            "\"host\":{\"hostname\":\"%s\",\"kernel_release\":\"5.15.0-1063-nvidia\","
	            "\"boot_id\":\"%s\",\"uptime_s\":%g,\"os\":{\"id\":\"ubuntu\",\"version_id\":\"22.04\"}},"
	            "\"cpu\":{\"arch\":\"x86_64\",\"model_name\":\"AMD EPYC 7742 64-Core Processor\","
	            "\"sockets\":2,\"isa_level\":\"x86-64-v3\",\"mem_total_bytes\":%llu},",
	            p->host, p->boot_id, p->uptime_s,
	            /* a few hundred MiB of difference between nodes must not matter */
	            1081682452480ULL - (unsigned long long)p->temp_c * 4096 * 1024);
	ga_buf_adds(&b, "\"pci\":[");
	for (int i = 0; i < p->ngpus; i++)
		ga_buf_addf(&b,
		            "%s{\"address\":\"0000:%02x:00.0\",\"kind\":\"accelerator\",\"vendor_id\":4318,"
		            "\"device_id\":8368,\"link\":{\"cur_speed_gts\":16,\"cur_width\":16,"
		            "\"max_speed_gts\":16,\"max_width\":16}}",
		            i ? "," : "", p->bus_base + (unsigned)i * 8);
	ga_buf_adds(&b, "],\"accelerators\":[");
	for (int i = 0; i < p->ngpus; i++) {
		ga_buf_addf(&b,
		            "%s{\"index\":%d,\"vendor\":\"nvidia\",\"model\":\"NVIDIA A100-SXM4-40GB\","
		            "\"address\":\"0000:%02x:00.0\",\"driver\":\"nvidia\",\"uuid\":\"%s%d\","
		            "\"interconnect\":[\"nvswitch:6\"],"
		            "\"nvml\":{\"index\":%d,\"name\":\"NVIDIA A100-SXM4-40GB\",\"uuid\":\"%s%d\","
		            "\"serial\":\"%s%d\",\"pci_bus_id\":\"0000:%02x:00.0\","
		            "\"memory_total_bytes\":42949672960,\"memory_used_bytes\":%llu,"
		            "\"memory_free_bytes\":%llu,\"compute_capability\":\"8.0\","
		            "\"temperature_c\":%u,\"utilization_gpu_pct\":%u,\"power_usage_mw\":%u,"
		            "\"ecc_corrected_volatile\":%llu,\"clock_sm_mhz\":%u,\"mig_enabled\":%s",
		            i ? "," : "", i, p->bus_base + (unsigned)i * 8, p->uuid, i, i, p->uuid, i,
		            p->serial, i, p->bus_base + (unsigned)i * 8, p->used_bytes,
		            42949672960ULL - p->used_bytes, p->temp_c + (unsigned)i, p->util_pct, p->power_mw,
		            p->ecc_corrected, 1410 - p->util_pct, p->mig && i == 0 ? "true" : "false");
		if (p->mig && i == 0)
			ga_buf_addf(&b, ",\"mig_instances\":%s", p->mig);
		ga_buf_adds(&b, "}}");
	}
	ga_buf_addf(&b,
	            "],\"drivers\":[{\"name\":\"nvidia\",\"version\":\"%s\",\"flavor\":\"proprietary\"}],"
	            "\"nvml\":{\"driver_version\":\"%s\",\"cuda_driver_version\":\"12.4\"}}",
	            p->driver, p->driver);
	return ga_buf_detach(&b, NULL);
}

static void class_of(const struct params *p, struct ga_nodeclass *c)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	char *js = make_json(p);
	assert_non_null(js);
	struct ga_node *n = NULL;
	if (ga_node_from_json(ctx, js, strlen(js), &n) < 0)
		fail_msg("snapshot: %s\n%s", ga_ctx_errmsg(ctx), js);
	assert_int_equal(ga_nodeclass_compute(n, c), 0);
	ga_node_free(n);
	ga_free(js);
	ga_ctx_free(ctx);
}

static void test_same_fixture_same_id(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	if (!fx) {
		print_message("GA_FIXTURES unset; skipping\n");
		skip();
		return;
	}
	static const char *const names[] = { "a10-x8",    "cpu-vm", "dgx-a100",    "dgx-h100",
		                             "intel-max", "mi250x", "gh200",       "gb200-tray",
		                             "dgx-spark", "mi300x", "power9-v100", "ws-rtx4090" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char root[4096], ids[4096];
		snprintf(root, sizeof(root), "%s/nodes/%s/root", fx, names[i]);
		snprintf(ids, sizeof(ids), "%s/pci.ids", fx);
		struct ga_nodeclass c[2] = { { 0 }, { 0 } };
		for (int k = 0; k < 2; k++) {
			struct ga_ctx *ctx = NULL;
			assert_int_equal(ga_ctx_new(&ctx), 0);
			assert_int_equal(ga_ctx_set_root(ctx, root), 0);
			assert_int_equal(ga_ctx_set_pci_ids(ctx, ids), 0);
			ga_ctx_set_vendor(ctx, GA_VENDOR_OFF, 1000);
			struct ga_node *n = NULL;
			if (ga_node_collect(ctx, &n) < 0)
				fail_msg("%s: %s", names[i], ga_ctx_errmsg(ctx));
			assert_int_equal(ga_nodeclass_compute(n, &c[k]), 0);
			ga_node_free(n);
			ga_ctx_free(ctx);
		}
		assert_string_equal(c[0].id, c[1].id);
		assert_string_equal(c[0].hw_json, c[1].hw_json);
		assert_string_equal(c[0].stack_json, c[1].stack_json);
		assert_string_equal(c[0].key, c[1].key);
		assert_int_equal(strlen(c[0].hw_sha256), 64);
		/* id = name "-" hw8 "." stack8 */
		char want[512];
		snprintf(want, sizeof(want), "%s-%.8s.%.8s", c[0].name, c[0].hw_sha256, c[0].stack_sha256);
		assert_string_equal(c[0].id, want);
		/* canonical JSON: no floats, no nulls */
		assert_null(strstr(c[0].hw_json, "null"));
		assert_null(strstr(c[0].stack_json, "null"));
		ga_nodeclass_release(&c[0]);
		ga_nodeclass_release(&c[1]);
	}
}

static void test_volatile_fields_ignored(void **state)
{
	(void)state;
	struct ga_nodeclass a = { 0 }, b = { 0 };
	class_of(&base, &a);
	struct params p = base;
	p.host = "node-b";
	p.boot_id = "9c2d6a11-0000-4000-8000-000000000002";
	p.serial = "1564720009999";
	p.uuid = "GPU-ffffffff-9554-fb70-f731-753e18aded3";
	p.uptime_s = 1234567;
	p.temp_c = 77;
	p.util_pct = 100;
	p.power_mw = 398000;
	p.used_bytes = 40000000000ULL;
	p.ecc_corrected = 12;
	p.bus_base = 0x47;
	class_of(&p, &b);
	assert_string_equal(a.hw_json, b.hw_json);
	assert_string_equal(a.stack_json, b.stack_json);
	assert_string_equal(a.id, b.id);
	assert_string_equal(a.key, b.key);
	assert_string_equal(a.name, "a100-sxm4-40gb-x2-nvswitch");
	assert_non_null(strstr(a.hw_json, "\"memory_gib\":1008"));
	assert_non_null(strstr(a.key, "nvidia-a100-sxm4-40gb-sm80-drv550.135-cuda12.4-"));
	ga_nodeclass_release(&a);
	ga_nodeclass_release(&b);
}

static void test_driver_changes_stack_only(void **state)
{
	(void)state;
	struct ga_nodeclass a = { 0 }, b = { 0 };
	class_of(&base, &a);
	struct params p = base;
	p.driver = "550.163.01";
	class_of(&p, &b);
	assert_string_equal(a.hw_sha256, b.hw_sha256);
	assert_string_not_equal(a.stack_sha256, b.stack_sha256);
	assert_string_not_equal(a.id, b.id);
	assert_string_equal(a.name, b.name);
	assert_string_not_equal(a.key, b.key); /* engines are tied to the driver */
	ga_nodeclass_release(&a);
	ga_nodeclass_release(&b);
}

static void test_count_changes_hw(void **state)
{
	(void)state;
	struct ga_nodeclass a = { 0 }, b = { 0 };
	class_of(&base, &a);
	struct params p = base;
	p.ngpus = 3;
	class_of(&p, &b);
	assert_string_not_equal(a.hw_sha256, b.hw_sha256);
	assert_string_equal(a.stack_sha256, b.stack_sha256);
	assert_string_equal(b.name, "a100-sxm4-40gb-x3-nvswitch");
	/* the same device type: compiled code is reusable */
	assert_string_equal(a.key, b.key);
	ga_nodeclass_release(&a);
	ga_nodeclass_release(&b);
}

static void test_mig_changes_hw_and_key(void **state)
{
	(void)state;
	struct ga_nodeclass off = { 0 }, a = { 0 }, b = { 0 }, a2 = { 0 };
	class_of(&base, &off);
	struct params p = base;
	p.mig = "[{\"name\":\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\",\"uuid\":\"MIG-1\"},"
	        "{\"name\":\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\",\"uuid\":\"MIG-2\"}]";
	class_of(&p, &a);
	/* the same layout listed in another order, other UUIDs */
	struct params p2 = p;
	p2.mig = "[{\"name\":\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\",\"uuid\":\"MIG-9\"},"
	         "{\"name\":\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\",\"uuid\":\"MIG-8\"}]";
	class_of(&p2, &a2);
	p.mig = "[{\"name\":\"NVIDIA A100-SXM4-40GB MIG 1g.5gb\",\"uuid\":\"MIG-1\"},"
	        "{\"name\":\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\",\"uuid\":\"MIG-2\"},"
	        "{\"name\":\"NVIDIA A100-SXM4-40GB MIG 2g.10gb\",\"uuid\":\"MIG-3\"}]";
	class_of(&p, &b);
	assert_string_not_equal(off.hw_sha256, a.hw_sha256);
	assert_string_not_equal(a.hw_sha256, b.hw_sha256);
	assert_string_not_equal(off.key, a.key);
	assert_string_not_equal(a.key, b.key);
	assert_string_equal(a.stack_sha256, b.stack_sha256);
	assert_string_equal(a.id, a2.id);
	assert_string_equal(a.key, a2.key);
	assert_string_equal(a.name, "a100-sxm4-40gb-x2-nvswitch-mig");
	assert_non_null(strstr(b.key, "-mig1g.5gb+2g.10gb+3g.20gb-"));
	assert_non_null(strstr(b.hw_json, "\"instances\":[\"1g.5gb\",\"2g.10gb\",\"3g.20gb\"]"));
	ga_nodeclass_release(&off);
	ga_nodeclass_release(&a);
	ga_nodeclass_release(&a2);
	ga_nodeclass_release(&b);
}

static void test_write_json(void **state)
{
	(void)state;
	struct ga_nodeclass c = { 0 };
	class_of(&base, &c);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_class_write_json(&c, &b, false), 0);
	assert_non_null(strstr(b.data, "{\"schema\":\"gpuaudit.class/v1\",\"id\":"));
	char hw[8192];
	snprintf(hw, sizeof(hw), "\"hw\":%s,", c.hw_json);
	assert_non_null(strstr(b.data, hw));
	snprintf(hw, sizeof(hw), "\"key_json\":%s}", c.key_json);
	assert_non_null(strstr(b.data, hw));
	ga_buf_release(&b);
	ga_nodeclass_release(&c);
	ga_nodeclass_release(&c); /* released twice: NULL-safe */
	ga_nodeclass_release(NULL);
}

static void test_enomem(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct params p = base;
	p.mig = "[{\"name\":\"NVIDIA A100-SXM4-40GB MIG 1g.5gb\"},{\"name\":\"MIG 2g.10gb\"}]";
	char *js = make_json(&p);
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_from_json(ctx, js, strlen(js), &n), 0);
	struct ga_nodeclass want = { 0 };
	assert_int_equal(ga_nodeclass_compute(n, &want), 0);
	int ok = 0;
	for (long k = 0; k < 10000 && !ok; k++) {
		struct ga_nodeclass c = { 0 };
		ga_alloc_fail_after(k);
		int r = ga_nodeclass_compute(n, &c);
		ga_alloc_fail_after(-1);
		if (r == 0) {
			assert_string_equal(c.id, want.id);
			assert_string_equal(c.key, want.key);
			ok = 1;
		} else {
			assert_int_equal(r, -ENOMEM);
			assert_null(c.id); /* untouched on failure */
		}
		ga_nodeclass_release(&c);
	}
	assert_true(ok);
	ga_nodeclass_release(&want);
	ga_node_free(n);
	ga_free(js);
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_fixture_same_id),
		cmocka_unit_test(test_volatile_fields_ignored),
		cmocka_unit_test(test_driver_changes_stack_only),
		cmocka_unit_test(test_count_changes_hw),
		cmocka_unit_test(test_mig_changes_hw_and_key),
		cmocka_unit_test(test_write_json),
		cmocka_unit_test(test_enomem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
