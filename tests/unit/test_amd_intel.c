/*
 * test_amd_intel.c - amdgpu and i915 sysfs depth collected from the mi250x
 * and intel-max fixtures (exact values), an attribute that answers EINVAL
 * (a FIFO in a scratch tree), and the findings drawn from hand-made
 * snapshots: one test per finding code, and "unsupported is not unhealthy".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"

/* --- collection from the fixtures ------------------------------------------- */

static struct ga_node *collect_fixture(const char *name, struct ga_ctx **ret_ctx)
{
	const char *fx = getenv("GA_FIXTURES");
	char root[4096];
	snprintf(root, sizeof(root), "%s/nodes/%s/root", fx ? fx : "", name);
	struct stat st;
	if (!fx || stat(root, &st) < 0)
		return NULL;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_node *n = NULL;
	if (ga_node_collect(ctx, &n) < 0)
		fail_msg("collect %s: %s", name, ga_ctx_errmsg(ctx));
	*ret_ctx = ctx;
	return n;
}

static const struct ga_accel *accel(const struct ga_node *n, const char *addr)
{
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].address && !strcmp(n->accelerators[i].address, addr))
			return &n->accelerators[i];
	fail_msg("no accelerator %s", addr);
	return NULL;
}

#define U(o, want)                               \
	do {                                     \
		assert_true((o).set);            \
		assert_int_equal((o).v, (want)); \
	} while (0)

static void test_mi250x_depth(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	struct ga_node *n = collect_fixture("mi250x", &ctx);
	if (!n) {
		print_message("no mi250x fixture; skipping\n");
		skip();
		return;
	}
	assert_int_equal(n->n_accelerators, 8);
	for (size_t i = 0; i < n->n_gaps; i++)
		fail_msg("unexpected gap %s: %s", n->gaps[i].path, n->gaps[i].reason);

	/* GCD 0: the primary of its OAM, healthy */
	const struct ga_amd_info *ai = accel(n, "0000:c1:00.0")->amd;
	assert_non_null(ai);
	U(ai->gpu_busy_pct, 0);
	U(ai->mem_busy_pct, 0);
	U(ai->vram_total_bytes, 68702699520ULL);
	U(ai->vram_used_bytes, 13451264);
	U(ai->gtt_total_bytes, 269208948736ULL);
	U(ai->gtt_used_bytes, 11841536);
	U(ai->pcie_replay_count, 0);
	assert_string_equal(ai->unique_id, "88051060319f71eb");
	assert_string_equal(ai->serial_number, "692894759848");
	assert_string_equal(ai->product_number, "102-D65209-00");
	assert_null(ai->compute_partition); /* MI300-class only */
	assert_null(ai->memory_partition);
	U(ai->temp_edge_mc, 38000);
	U(ai->temp_junction_mc, 41000);
	U(ai->temp_mem_mc, 45000);
	U(ai->power_uw, 91000000);
	U(ai->power_cap_uw, 500000000);
	assert_int_equal(ai->n_ras, 7);
	for (size_t i = 0; i < ai->n_ras; i++) {
		U(ai->ras[i].ue, 0);
		U(ai->ras[i].ce, 0);
		assert_false(ai->ras[i].de.set);
	}
	assert_string_equal(ai->ras[0].block, "gfx"); /* directory order */
	U(ai->bad_pages, 0);
	assert_int_equal(ai->unsupported.n, 0);

	/* GCD 1: the secondary of the same OAM reads 0 W */
	ai = accel(n, "0000:c6:00.0")->amd;
	U(ai->power_uw, 0);
	U(ai->temp_edge_mc, 39000);

	/* GCD 3: mem_busy_percent absent: absent, not 0, and not a gap */
	ai = accel(n, "0000:ce:00.0")->amd;
	assert_false(ai->mem_busy_pct.set);
	U(ai->gpu_busy_pct, 0);
	U(ai->vram_used_bytes, 13451264 + 3 * 4096);
	assert_int_equal(ai->unsupported.n, 0);

	/* GCD 5: the deliberate fault */
	ai = accel(n, "0000:d6:00.0")->amd;
	size_t umc = SIZE_MAX;
	for (size_t i = 0; i < ai->n_ras; i++)
		if (!strcmp(ai->ras[i].block, "umc"))
			umc = i;
	assert_true(umc != SIZE_MAX);
	U(ai->ras[umc].ue, 1);
	U(ai->ras[umc].ce, 3);
	U(ai->bad_pages, 2);

	struct ga_findings f;
	ga_findings_init(&f);
	ga_analyze_amd_intel(n, &f);
	assert_int_equal(f.err, 0);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.v[0].code, "GA-AMD-RAS-UNCORRECTABLE");
	assert_string_equal(f.v[0].subject, "0000:d6:00.0");
	assert_string_equal(f.v[0].message, "1 uncorrectable RAS error (umc 1)");
	assert_string_equal(f.v[1].code, "GA-AMD-BAD-PAGES");
	assert_string_equal(f.v[1].message, "2 retired VRAM pages (ras/gpu_vram_bad_pages)");
	ga_findings_release(&f);
	ga_node_free(n);
	ga_ctx_free(ctx);
}

static void test_intel_max_depth(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	struct ga_node *n = collect_fixture("intel-max", &ctx);
	if (!n) {
		print_message("no intel-max fixture; skipping\n");
		skip();
		return;
	}
	assert_int_equal(n->n_accelerators, 4);
	for (size_t i = 0; i < n->n_gaps; i++)
		fail_msg("unexpected gap %s: %s", n->gaps[i].path, n->gaps[i].reason);
	static const char *const addrs[] = { "0000:29:00.0", "0000:3a:00.0", "0000:9a:00.0", "0000:ab:00.0" };
	for (unsigned i = 0; i < 4; i++) {
		const struct ga_accel *a = accel(n, addrs[i]);
		assert_null(a->amd);
		const struct ga_intel_info *ii = a->intel;
		assert_non_null(ii);
		U(ii->freq_cur_mhz, 1600);
		U(ii->freq_act_mhz, 0);
		U(ii->freq_max_mhz, 1600);
		U(ii->freq_min_mhz, 900);
		U(ii->lmem_total_bytes, 137438953472ULL);
		U(ii->lmem_avail_bytes, 137438953472ULL - 1073741824ULL * (1 + i));
		U(ii->energy_uj, 81234567890ULL + 1000003ULL * i);
		U(ii->power_max_uw, 600000000);
	}
	ga_node_free(n);
	ga_ctx_free(ctx);
}

/* --- an attribute that answers EINVAL --------------------------------------- */

static void put(const char *dir, const char *rel, const char *text)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A fixture file cannot fail with EINVAL, but the reader refuses a FIFO with
 * EINVAL, which is what amdgpu answers for an attribute the ASIC lacks.
 */
static void test_unsupported_einval(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-amd-XXXXXX";
	assert_non_null(mkdtemp(root));
	const char *dev = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	char d[4096], p[8192];
	snprintf(d, sizeof(d), "%s/%s", root, dev);
	put(d, "vendor", "0x1002\n");
	put(d, "device", "0x7408\n");
	put(d, "class", "0x038000\n");
	put(d, "gpu_busy_percent", "7\n");
	put(d, "ras/umc_err_count", "ue: 0\nce: 250\nde: 0\n");
	put(d, "hwmon/hwmon3/name", "amdgpu\n");
	put(d, "hwmon/hwmon3/temp2_label", "junction\n");
	put(d, "hwmon/hwmon3/temp2_input", "52000\n");
	put(d, "hwmon/hwmon3/power1_input", "350000000\n");
	snprintf(p, sizeof(p), "%s/mem_busy_percent", d);
	assert_int_equal(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/hwmon/hwmon3/power1_average", d);
	assert_int_equal(mkfifo(p, 0644), 0);
	put(root, "sys/bus/pci/devices/.keep", "");
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/.keep", root);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:01:00.0", root);
	assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", p), 0);

	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	assert_int_equal(n->n_accelerators, 1);
	const struct ga_amd_info *ai = n->accelerators[0].amd;
	assert_non_null(ai);
	U(ai->gpu_busy_pct, 7);
	assert_false(ai->mem_busy_pct.set);
	assert_int_equal(ai->unsupported.n, 2);
	assert_string_equal(ai->unsupported.v[0], "mem_busy_percent");
	assert_string_equal(ai->unsupported.v[1], "power1_average");
	U(ai->power_uw, 350000000); /* power1_input stands in (MI300-class) */
	assert_false(ai->temp_edge_mc.set);
	U(ai->temp_junction_mc, 52000);
	assert_int_equal(ai->n_ras, 1);
	U(ai->ras[0].ce, 250);
	U(ai->ras[0].de, 0);
	assert_false(ai->bad_pages.set);
	for (size_t i = 0; i < n->n_gaps; i++)
		if (strstr(n->gaps[i].path, "0000:01:00.0"))
			fail_msg("unsupported attribute became a gap: %s: %s", n->gaps[i].path,
			         n->gaps[i].reason);
	ga_node_free(n);
	ga_ctx_free(ctx);

	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* --- findings from hand-made snapshots -------------------------------------- */

#define HEAD "{\"schema\":\"gpuaudit.node/v1\","
#define AMD(addr, depth) \
	"{\"vendor\":\"amd\",\"address\":\"" addr "\",\"driver\":\"amdgpu\",\"amd\":" depth "}"

/* One line per finding: "CODE severity subject: message". */
static char *analyze(const char *json)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_node *n = NULL;
	if (ga_node_from_json(ctx, json, strlen(json), &n) < 0)
		fail_msg("bad test snapshot: %s", ga_ctx_errmsg(ctx));
	struct ga_findings f;
	ga_findings_init(&f);
	ga_analyze_amd_intel(n, &f);
	assert_int_equal(f.err, 0);
	ga_findings_sort(&f);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	for (size_t i = 0; i < f.n; i++) {
		assert_non_null(f.v[i].decision);
		assert_true(f.v[i].n_evidence > 0);
		assert_int_equal(ga_buf_addf(&b, "%s %s %s: %s\n", f.v[i].code,
		                             ga_severity_name(f.v[i].severity), f.v[i].subject,
		                             f.v[i].message),
		                 0);
	}
	ga_findings_release(&f);
	ga_node_free(n);
	ga_ctx_free(ctx);
	char *s = ga_buf_detach(&b, NULL);
	return s ? s : ga_strdup("");
}

#define EXPECT(json, want)                                                \
	do {                                                              \
		char *got_ = analyze(json);                               \
		if (strcmp(got_, want) != 0)                              \
			fail_msg("findings:\n%s\nwant:\n%s", got_, want); \
		ga_free(got_);                                            \
	} while (0)

static void test_ras(void **state)
{
	(void)state;
	EXPECT(HEAD
	       "\"accelerators\":[" AMD("0000:c1:00.0", "{\"ras\":[{\"block\":\"umc\",\"ue\":2,\"ce\":60},"
	                                                "{\"block\":\"gfx\",\"ue\":1,\"ce\":40}]}") "]}",
	       "GA-AMD-RAS-UNCORRECTABLE error 0000:c1:00.0: 3 uncorrectable RAS errors (umc 2, gfx 1)\n"
	       "GA-AMD-RAS-CORRECTABLE warning 0000:c1:00.0: 100 correctable RAS errors since boot "
	       "(threshold 100; umc 60, gfx 40)\n");
	/* below the threshold, and no ue: nothing */
	EXPECT(HEAD "\"accelerators\":[" AMD(
	               "0000:c1:00.0", "{\"ras\":[{\"block\":\"umc\",\"ue\":0,\"ce\":99,\"de\":0}]}") "]}",
	       "");
}

static void test_bad_pages(void **state)
{
	(void)state;
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0", "{\"bad_pages\":1}") "]}",
	       "GA-AMD-BAD-PAGES warning 0000:c1:00.0: 1 retired VRAM page (ras/gpu_vram_bad_pages)\n");
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0", "{\"bad_pages\":0}") "]}", "");
}

static void test_pcie_replays(void **state)
{
	(void)state;
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0", "{\"pcie_replay_count\":250}") "]}",
	       "GA-AMD-PCIE-REPLAYS warning 0000:c1:00.0: 250 PCIe replays since boot (threshold 10): "
	       "the link keeps retransmitting\n");
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0", "{\"pcie_replay_count\":9}") "]}", "");
}

static void test_hot(void **state)
{
	(void)state;
	EXPECT(HEAD
	       "\"accelerators\":[" AMD("0000:c1:00.0", "{\"temp_edge_mc\":80000,\"temp_junction_mc\":101500,"
	                                                "\"temp_mem_mc\":85000}") "]}",
	       "GA-GPU-HOT warning 0000:c1:00.0: GPU runs hot: junction 101 C (limit 100 C)\n");
	EXPECT(HEAD
	       "\"accelerators\":[" AMD("0000:c1:00.0", "{\"temp_edge_mc\":95000,\"temp_junction_mc\":99999,"
	                                                "\"temp_mem_mc\":96000}") "]}",
	       "GA-GPU-HOT warning 0000:c1:00.0: GPU runs hot: edge 95 C (limit 95 C), memory 96 C "
	       "(limit 95 C)\n");
	/* ROCm SMI's edge reading stands in when sysfs has none */
	EXPECT(HEAD "\"accelerators\":[{\"vendor\":\"amd\",\"address\":\"0000:c1:00.0\","
	            "\"rocm_smi\":{\"temp_edge_mc\":97000}}]}",
	       "GA-GPU-HOT warning 0000:c1:00.0: GPU runs hot: edge 97 C (limit 95 C)\n");
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0",
	                                     "{\"temp_edge_mc\":94999,\"temp_junction_mc\":99999}") "]}",
	       "");
}

static void test_rocm_smi_failed(void **state)
{
	(void)state;
	/* next to amdgpu GPUs: a warning carrying the library's own text */
	EXPECT(HEAD "\"accelerators\":[" AMD(
	               "0000:c1:00.0",
	               "{}") "],"
	                     "\"rocm_smi\":{\"library\":\"/opt/rocm/lib/librocm_smi64.so.7\",\"error\":\"An "
	                     "error "
	                     "occurred during "
	                     "initialization\",\"error_call\":\"rsmi_init\",\"error_code\":8}}",
	       "GA-ROCM-SMI-FAILED warning rocm_smi: ROCm SMI failed in rsmi_init: An error occurred "
	       "during initialization\n");
	/* without AMD GPUs, or without the library: information */
	EXPECT(HEAD "\"rocm_smi\":{\"error\":\"An error occurred during initialization\","
	            "\"error_call\":\"rsmi_init\",\"error_code\":8}}",
	       "GA-ROCM-SMI-FAILED info rocm_smi: ROCm SMI failed in rsmi_init: An error occurred during "
	       "initialization\n");
	EXPECT(HEAD "\"accelerators\":[" AMD(
	               "0000:c1:00.0",
	               "{}") "],"
	                     "\"rocm_smi\":{\"error\":\"library not found: librocm_smi64.so.1\","
	                     "\"error_call\":\"dlopen\"}}",
	       "GA-ROCM-SMI-FAILED info rocm_smi: ROCm SMI failed in dlopen: library not found: "
	       "librocm_smi64.so.1\n");
	/* success: nothing */
	EXPECT(HEAD "\"rocm_smi\":{\"library\":\"x\",\"version\":\"1.0.0\",\"device_count\":0}}", "");
}

static void test_vendor_timeout(void **state)
{
	(void)state;
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0",
	                                     "{}") "],"
	                                           "\"rocm_smi\":{\"error\":\"deadline "
	                                           "exceeded\",\"error_call\":\"rsmi_dev_busy_percent_get\","
	                                           "\"timed_out\":true}}",
	       "GA-VENDOR-TIMEOUT error rocm_smi: ROCm SMI did not answer in time (in "
	       "rsmi_dev_busy_percent_get)\n");
}

/* Unsupported or absent attributes, and a secondary GCD's 0 W, are not faults. */
static void test_unsupported_not_unhealthy(void **state)
{
	(void)state;
	EXPECT(HEAD "\"accelerators\":[" AMD("0000:c1:00.0",
	                                     "{\"unsupported\":[\"mem_busy_percent\",\"pcie_replay_count\","
	                                     "\"power1_average\",\"ras/umc_err_count\",\"temp1_input\"],"
	                                     "\"power_uw\":0,\"gpu_busy_pct\":0}") "," AMD("0000:c6:00.0",
	                                                                                   "{}") "]}",
	       "");
	/* Intel depth never yields findings on its own */
	EXPECT(HEAD
	       "\"accelerators\":[{\"vendor\":\"intel\",\"address\":\"0000:29:00.0\",\"driver\":\"i915\","
	       "\"intel\":{\"freq_act_mhz\":0,\"energy_uj\":0}}]}",
	       "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mi250x_depth),
		cmocka_unit_test(test_intel_max_depth),
		cmocka_unit_test(test_unsupported_einval),
		cmocka_unit_test(test_ras),
		cmocka_unit_test(test_bad_pages),
		cmocka_unit_test(test_pcie_replays),
		cmocka_unit_test(test_hot),
		cmocka_unit_test(test_rocm_smi_failed),
		cmocka_unit_test(test_vendor_timeout),
		cmocka_unit_test(test_unsupported_not_unhealthy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
