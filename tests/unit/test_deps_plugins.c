/*
 * test_deps_plugins.c - the pure tables behind plug-ins loaded by name and
 * CUDA forward compatibility: the convention a library name follows, the GPU
 * class of brands and product names, the NVIDIA target keys (driver:,
 * brand:, nvidia:), the compat directory rule, and the purls of the SBOM.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/cyclonedx.h"
#include "gpuaudit/deps.h"

static void test_plugin_find(void **state)
{
	(void)state;
	const struct ga_deps_plugin_conv *c = ga_deps_plugin_find("libonnxruntime_providers_cuda.so");
	assert_non_null(c);
	assert_int_equal(c->backend, GA_DEP_CUDA);
	assert_true(c->flags & GA_PLUGIN_SAME_DIR);
	assert_true(c->flags & GA_PLUGIN_BACKEND);
	assert_string_equal(c->host, "ONNX Runtime");
	c = ga_deps_plugin_find("/opt/x/libonnxruntime_providers_migraphx.so");
	assert_non_null(c);
	assert_int_equal(c->backend, GA_DEP_ROCM);
	c = ga_deps_plugin_find("libnccl-net-ib.so");
	assert_non_null(c);
	assert_string_equal(c->host, "NCCL");
	assert_non_null(ga_deps_plugin_find("libnccl-net.so"));
	assert_int_equal(ga_deps_plugin_find("librccl-net.so")->backend, GA_DEP_ROCM);
	assert_non_null(ga_deps_plugin_find("libnvinfer_plugin.so.10"));
	assert_int_equal(ga_deps_plugin_find("libtorch_hip.so")->backend, GA_DEP_ROCM);
	assert_non_null(ga_deps_plugin_find("libcudnn_engines_precompiled.so.9"));
	/* exact stems before prefixes; not a plug-in; not a library name */
	assert_string_equal(ga_deps_plugin_find("libtorch_cuda_linalg.so")->stem, "libtorch_cuda_linalg");
	assert_null(ga_deps_plugin_find("libonnxruntime.so.1"));
	assert_null(ga_deps_plugin_find("libtorch_cudax.so"));
	assert_null(ga_deps_plugin_find("onnxruntime_providers_cuda.so"));
	assert_null(ga_deps_plugin_find("libnccl-net.sort"));
	assert_null(ga_deps_plugin_find(NULL));
	size_t n;
	const struct ga_deps_plugin_conv *tab = ga_deps_plugin_table(&n);
	for (size_t i = 0; i < n; i++) {
		assert_true(tab[i].stem[0] && tab[i].host[0] && tab[i].brings[0]);
		assert_int_equal(strncmp(tab[i].stem, "lib", 3), 0);
	}
}

static void test_gpu_class(void **state)
{
	(void)state;
	assert_int_equal(ga_gpu_class_for_brand("Tesla"), GA_GPU_CLASS_DATACENTER);
	assert_int_equal(ga_gpu_class_for_brand("geforcertx"), GA_GPU_CLASS_CONSUMER);
	assert_int_equal(ga_gpu_class_for_brand("nvidiartx"), GA_GPU_CLASS_PRO);
	assert_int_equal(ga_gpu_class_for_brand("nvidia"), GA_GPU_CLASS_UNKNOWN);
	assert_int_equal(ga_gpu_class_for_brand(NULL), GA_GPU_CLASS_UNKNOWN);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA H100 80GB HBM3"), GA_GPU_CLASS_DATACENTER);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA A10G"), GA_GPU_CLASS_DATACENTER);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA L40S"), GA_GPU_CLASS_DATACENTER);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA GeForce RTX 4090"), GA_GPU_CLASS_CONSUMER);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA TITAN V"), GA_GPU_CLASS_CONSUMER);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA RTX A6000"), GA_GPU_CLASS_PRO);
	assert_int_equal(ga_gpu_class_for_model("Quadro RTX 8000"), GA_GPU_CLASS_PRO);
	assert_int_equal(ga_gpu_class_for_model("NVIDIA GB10"), GA_GPU_CLASS_UNKNOWN);
	assert_string_equal(ga_gpu_class_name(GA_GPU_CLASS_PRO), "pro");
}

static void test_target_keys(void **state)
{
	(void)state;
	struct ga_deps_target t;
	char err[256];
	assert_int_equal(
	        ga_deps_target_parse("nvidia:sm_90,driver:550.54.15,brand:Tesla", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CUDA);
	assert_int_equal(t.sm, 90);
	assert_int_equal(t.cuda_version, 12040); /* from the R550 branch */
	assert_string_equal(t.driver_version, "550.54.15");
	assert_string_equal(t.brand, "tesla");
	assert_int_equal(t.gpu_class, GA_GPU_CLASS_DATACENTER);
	ga_deps_target_release(&t);
	/* an explicit CUDA version wins over the branch's */
	assert_int_equal(ga_deps_target_parse("cuda:12.8,driver:550", &t, err, sizeof(err)), 0);
	assert_int_equal(t.cuda_version, 12080);
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("driver:470", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CUDA);
	assert_int_equal(t.cuda_version, 11040);
	assert_int_equal(t.gpu_class, GA_GPU_CLASS_UNKNOWN);
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("brand:geforce,driver:535.183.06", &t, err, sizeof(err)), 0);
	assert_int_equal(t.gpu_class, GA_GPU_CLASS_CONSUMER);
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("driver:5x", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "driver version"));
	assert_int_equal(ga_deps_target_parse("cuda:12.4,brand:", &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(ga_deps_target_parse("rocm:6.2,brand:tesla", &t, err, sizeof(err)), -EINVAL);
}

static void test_compat_file(void **state)
{
	(void)state;
	struct ga_deps_file f = { .pkg = -1 };
	f.tree_path = (char *)"usr/local/cuda-12.8/compat/libcuda.so.570.124.06";
	assert_true(ga_deps_compat_file(&f));
	f.tree_path = (char *)"usr/local/cuda/compat/libnvidia-ptxjitcompiler.so.1";
	assert_true(ga_deps_compat_file(&f));
	f.tree_path = (char *)"opt/conda/cuda-compat/libcuda.so.1";
	assert_true(ga_deps_compat_file(&f));
	f.tree_path = (char *)"usr/lib/x86_64-linux-gnu/libcuda.so.1";
	assert_false(ga_deps_compat_file(&f));
	f.tree_path = (char *)"opt/app/compat/libcuda.so.1";
	assert_false(ga_deps_compat_file(&f));
	f.tree_path = (char *)"compat/libcuda.so.1";
	assert_false(ga_deps_compat_file(&f));
}

static void test_purl(void **state)
{
	(void)state;
	char out[256];
	struct ga_deps_report_pkg p = { .kind = (char *)"python",
		                        .name = (char *)"Foo_Bar.baz",
		                        .version = (char *)"2.5.1+cu126" };
	ga_cdx_purl(&p, out, sizeof(out));
	assert_string_equal(out, "pkg:pypi/foo-bar-baz@2.5.1%2Bcu126");
	p = (struct ga_deps_report_pkg){ .kind = (char *)"npm",
		                         .name = (char *)"@img/sharp-linux-x64",
		                         .version = (char *)"0.34.1" };
	ga_cdx_purl(&p, out, sizeof(out));
	assert_string_equal(out, "pkg:npm/%40img/sharp-linux-x64@0.34.1");
	p = (struct ga_deps_report_pkg){ .kind = (char *)"deb",
		                         .name = (char *)"libc6",
		                         .version = (char *)"1:2.36-9+deb12u4" };
	ga_cdx_purl(&p, out, sizeof(out));
	assert_string_equal(out, "pkg:deb/debian/libc6@1%3A2.36-9%2Bdeb12u4");
	p = (struct ga_deps_report_pkg){ .kind = (char *)"conda", .name = (char *)"pytorch" };
	ga_cdx_purl(&p, out, sizeof(out));
	assert_string_equal(out, "pkg:conda/pytorch");
	p = (struct ga_deps_report_pkg){ .kind = (char *)"weird", .name = (char *)"x" };
	ga_cdx_purl(&p, out, sizeof(out));
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plugin_find), cmocka_unit_test(test_gpu_class),
		cmocka_unit_test(test_target_keys), cmocka_unit_test(test_compat_file),
		cmocka_unit_test(test_purl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
