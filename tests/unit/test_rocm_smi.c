/*
 * test_rocm_smi.c - ROCm SMI through dlopen: the real Debian library
 * (librocm-smi64-1) on a machine without AMD GPUs must give a clean result
 * (no devices, or rsmi_init's own error text), a missing library must say so,
 * the 64-bit BDF id must become the sysfs address, and out-of-memory at any
 * allocation must return -ENOMEM without a leak.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/vendor.h"

static bool have_real_library(void)
{
	void *h = dlopen("librocm_smi64.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return false;
	dlclose(h);
	return true;
}

static void check_bdf(const char *s)
{
	unsigned dom, bus, dev, fn;
	char tail;
	assert_non_null(s);
	assert_int_equal(strlen(s), 12);
	assert_int_equal(sscanf(s, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail), 4);
}

static void test_real_library(void **state)
{
	(void)state;
	if (!have_real_library()) {
		print_message("librocm_smi64.so.1 not present (apt-get install librocm-smi64-1); skipping\n");
		skip();
		return;
	}
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_rocm_smi *r = NULL;
	assert_int_equal(ga_rocm_smi_collect(ctx, &r), 0);
	assert_non_null(r);
	assert_non_null(r->library);
	assert_non_null(strstr(r->library, "librocm_smi64.so"));
	assert_false(r->timed_out.set);
	if (r->error) {
		/* No AMD GPU here: rsmi_init fails, and we carry the library's own text. */
		print_message("ROCm SMI %s (%s): %s: %s (%lld)\n", r->version ? r->version : "?", r->library,
		              r->error_call, r->error, (long long)r->error_code.v);
		assert_string_equal(r->error_call, "rsmi_init");
		assert_true(r->error_code.set);
		assert_true(r->error_code.v != 0);
		assert_true(strlen(r->error) > 0);
		assert_int_equal(r->n_gpus, 0);
		assert_false(r->device_count.set);
	} else {
		/* A machine with AMD GPUs (or a library that enumerates none without failing). */
		assert_null(r->error_call);
		assert_true(r->device_count.set);
		assert_int_equal(r->n_gpus, r->device_count.v);
		for (size_t i = 0; i < r->n_gpus; i++) {
			assert_int_equal(r->gpus[i].index.v, i);
			if (r->gpus[i].pci_bus_id)
				check_bdf(r->gpus[i].pci_bus_id);
		}
	}
	/* A second round in the same process: init/shut-down reference counts stay balanced. */
	struct ga_rocm_smi *r2 = NULL;
	assert_int_equal(ga_rocm_smi_collect(ctx, &r2), 0);
	assert_true((r->error == NULL) == (r2->error == NULL));
	if (r->error)
		assert_string_equal(r->error, r2->error);
	ga_rocm_smi_free(r2);
	ga_rocm_smi_free(r);
	ga_ctx_free(ctx);
}

static void test_missing_library(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	static const char *const names[] = { "libgpuaudit-no-such-rocm-smi.so.1", "libgpuaudit-no-such.so",
		                             NULL };
	struct ga_rocm_smi *r = NULL;
	assert_int_equal(ga_rocm_smi_collect_from(ctx, names, &r), 0);
	assert_non_null(r);
	assert_string_equal(r->error, "library not found: libgpuaudit-no-such-rocm-smi.so.1");
	assert_string_equal(r->error_call, "dlopen");
	assert_false(r->error_code.set);
	assert_null(r->library);
	assert_null(r->version);
	assert_false(r->device_count.set);
	assert_int_equal(r->n_gpus, 0);
	ga_rocm_smi_free(r);

	/* a library without the ROCm SMI symbols: nothing is called, nothing published */
	static const char *const wrong[] = { "libc.so.6", NULL };
	assert_int_equal(ga_rocm_smi_collect_from(ctx, wrong, &r), 0);
	assert_string_equal(r->error, "missing symbol: rsmi_init");
	assert_string_equal(r->error_call, "dlsym");
	assert_non_null(r->library);
	assert_null(r->version);
	ga_rocm_smi_free(r);
	ga_rocm_smi_free(NULL);
	ga_ctx_free(ctx);
}

static void test_bdf(void **state)
{
	(void)state;
	char b[32];
	/* domain << 32 | bus << 8 | device << 3 | function */
	assert_int_equal(ga_rocm_smi_bdf(((uint64_t)0xc1 << 8), b, sizeof(b)), 0);
	assert_string_equal(b, "0000:c1:00.0");
	assert_int_equal(ga_rocm_smi_bdf(((uint64_t)1 << 32) | (0x47 << 8) | (0x1f << 3) | 7, b, sizeof(b)),
	                 0);
	assert_string_equal(b, "0001:47:1f.7");
	/* ROCm 6 keeps a partition id in bits 28-31: not part of the address */
	assert_int_equal(ga_rocm_smi_bdf(((uint64_t)3 << 28) | (0xde << 8), b, sizeof(b)), 0);
	assert_string_equal(b, "0000:de:00.0");
	assert_int_equal(ga_rocm_smi_bdf(0, b, 12), -ENOSPC);
	assert_int_equal(ga_rocm_smi_bdf(0, b, 13), 0);
}

static void enomem_walk(const char *const *names)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	for (long n = 0;; n++) {
		struct ga_rocm_smi *r = NULL;
		ga_alloc_fail_after(n);
		int rc = names ? ga_rocm_smi_collect_from(ctx, names, &r) : ga_rocm_smi_collect(ctx, &r);
		ga_alloc_fail_after(-1);
		if (rc == 0) {
			assert_non_null(r);
			ga_rocm_smi_free(r);
			break;
		}
		assert_int_equal(rc, -ENOMEM);
		assert_null(r);
		assert_true(n < 1000);
	}
	ga_ctx_free(ctx);
}

static void test_enomem(void **state)
{
	(void)state;
	static const char *const missing[] = { "libgpuaudit-no-such-rocm-smi.so.1", NULL };
	enomem_walk(missing);
	if (have_real_library())
		enomem_walk(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_library),
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_bdf),
		cmocka_unit_test(test_enomem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
