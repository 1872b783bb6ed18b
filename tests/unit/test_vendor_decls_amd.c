/*
 * test_vendor_decls_amd.c - our own declarations of AMD's APIs (lib/dl/
 * hip_types.h, rocm_smi_types.h) compiled next to the real headers when they
 * are installed: every function type, constant and struct layout must match,
 * or this file does not compile. The headers come from Debian
 * (libamdhip64-dev, librocm-smi-dev; rocBLAS's rocblas/rocblas.h when a
 * package provides it: Debian 12 has none). Apart from test_vendor_decls.c
 * because HIP's vector types clash with the CUDA toolkit's in one translation
 * unit. The run-time test only reports which sets were checked, and skips
 * when none was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dl/hip_types.h"
#include "dl/rocm_smi_types.h"

#define SAME_TYPE(real, ours) _Static_assert(__builtin_types_compatible_p(__typeof__(real), ours), #real)
#define SAME_VALUE(real, ours) _Static_assert((long long)(real) == (long long)(ours), #real)

#if __has_include(<hip/hip_runtime_api.h>)
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#define HAVE_HIP 1
SAME_TYPE(&hipGetDeviceCount, ga_hipGetDeviceCount_fn);
SAME_TYPE(&hipGetErrorString, ga_hipGetErrorString_fn);
SAME_TYPE(&hipRuntimeGetVersion, ga_hipRuntimeGetVersion_fn);
SAME_TYPE(&hipDeviceGetName, ga_hipDeviceGetName_fn);
SAME_TYPE(&hipDeviceGetPCIBusId, ga_hipDeviceGetPCIBusId_fn);
SAME_TYPE(&hipDeviceTotalMem, ga_hipDeviceTotalMem_fn);
SAME_TYPE(&hipSetDevice, ga_hipSetDevice_fn);
SAME_TYPE(&hipMalloc, ga_hipMalloc_fn);
SAME_TYPE(&hipFree, ga_hipFree_fn);
SAME_TYPE(&hipHostMalloc, ga_hipHostMalloc_fn);
SAME_TYPE(&hipHostFree, ga_hipHostFree_fn);
SAME_TYPE(&hipMemcpy, ga_hipMemcpy_fn);
SAME_TYPE(&hipMemcpyAsync, ga_hipMemcpyAsync_fn);
SAME_TYPE(&hipDeviceSynchronize, ga_hipDeviceSynchronize_fn);
SAME_TYPE(hipError_t, ga_hipError_t);
SAME_TYPE(hipMemcpyKind, ga_hipMemcpyKind);
SAME_TYPE(hipDevice_t, ga_hipDevice_t);
SAME_TYPE(hipStream_t, ga_hipStream_t);
SAME_VALUE(hipSuccess, GA_HIP_SUCCESS);
SAME_VALUE(hipErrorNoDevice, GA_HIP_ERROR_NO_DEVICE);
SAME_VALUE(hipMemcpyHostToDevice, GA_HIP_MEMCPY_H2D);
SAME_VALUE(hipMemcpyDeviceToHost, GA_HIP_MEMCPY_D2H);
SAME_VALUE(hipMemcpyDeviceToDevice, GA_HIP_MEMCPY_D2D);
#endif

#if defined(HAVE_HIP) && __has_include(<rocblas/rocblas.h>)
#include <rocblas/rocblas.h>
#define HAVE_ROCBLAS 1
SAME_TYPE(&rocblas_create_handle, ga_rocblas_create_handle_fn);
SAME_TYPE(&rocblas_destroy_handle, ga_rocblas_destroy_handle_fn);
SAME_TYPE(&rocblas_gemm_ex, ga_rocblas_gemm_ex_fn);
SAME_TYPE(rocblas_handle, ga_rocblas_handle);
SAME_TYPE(rocblas_status, ga_rocblas_status);
SAME_TYPE(rocblas_operation, ga_rocblas_operation);
SAME_TYPE(rocblas_datatype, ga_rocblas_datatype);
SAME_TYPE(rocblas_gemm_algo, ga_rocblas_gemm_algo);
SAME_TYPE(rocblas_int, ga_rocblas_int);
SAME_VALUE(rocblas_status_success, GA_ROCBLAS_STATUS_SUCCESS);
SAME_VALUE(rocblas_operation_none, GA_ROCBLAS_OP_NONE);
SAME_VALUE(rocblas_gemm_algo_standard, GA_ROCBLAS_GEMM_ALGO_STANDARD);
SAME_VALUE(rocblas_datatype_f16_r, GA_ROCBLAS_DATATYPE_F16_R);
SAME_VALUE(rocblas_datatype_f32_r, GA_ROCBLAS_DATATYPE_F32_R);
SAME_VALUE(rocblas_datatype_f64_r, GA_ROCBLAS_DATATYPE_F64_R);
SAME_VALUE(rocblas_datatype_bf16_r, GA_ROCBLAS_DATATYPE_BF16_R);
#endif

#if __has_include(<rocm_smi/rocm_smi.h>)
#include <rocm_smi/rocm_smi.h>
#define HAVE_ROCM_SMI 1
SAME_TYPE(&rsmi_init, ga_rsmi_init_fn);
SAME_TYPE(&rsmi_shut_down, ga_rsmi_shut_down_fn);
SAME_TYPE(&rsmi_num_monitor_devices, ga_rsmi_num_monitor_devices_fn);
SAME_TYPE(&rsmi_status_string, ga_rsmi_status_string_fn);
/* our version struct is a type of its own: the call is checked with the header's, the layouts below */
SAME_TYPE(&rsmi_version_get, ga_rsmi_status_t (*)(rsmi_version_t *));
SAME_TYPE(&rsmi_dev_pci_id_get, ga_rsmi_dev_pci_id_get_fn);
SAME_TYPE(&rsmi_dev_name_get, ga_rsmi_dev_name_get_fn);
SAME_TYPE(&rsmi_dev_memory_total_get, ga_rsmi_dev_memory_total_get_fn);
SAME_TYPE(&rsmi_dev_memory_usage_get, ga_rsmi_dev_memory_usage_get_fn);
SAME_TYPE(&rsmi_dev_busy_percent_get, ga_rsmi_dev_busy_percent_get_fn);
SAME_TYPE(&rsmi_dev_temp_metric_get, ga_rsmi_dev_temp_metric_get_fn);
SAME_TYPE(&rsmi_dev_power_ave_get, ga_rsmi_dev_power_ave_get_fn);
SAME_TYPE(rsmi_status_t, ga_rsmi_status_t);
SAME_TYPE(rsmi_memory_type_t, ga_rsmi_memory_type_t);
SAME_TYPE(rsmi_temperature_metric_t, ga_rsmi_temperature_metric_t);
SAME_VALUE(RSMI_STATUS_SUCCESS, GA_RSMI_STATUS_SUCCESS);
SAME_VALUE(RSMI_MEM_TYPE_VRAM, GA_RSMI_MEM_TYPE_VRAM);
SAME_VALUE(RSMI_TEMP_TYPE_EDGE, GA_RSMI_TEMP_TYPE_EDGE);
SAME_VALUE(RSMI_TEMP_CURRENT, GA_RSMI_TEMP_CURRENT);
/* rsmi_version_t is filled by the library: the same layout */
_Static_assert(sizeof(rsmi_version_t) == sizeof(ga_rsmi_version_t), "rsmi_version_t");
_Static_assert(offsetof(rsmi_version_t, major) == offsetof(ga_rsmi_version_t, major), "major");
_Static_assert(offsetof(rsmi_version_t, minor) == offsetof(ga_rsmi_version_t, minor), "minor");
_Static_assert(offsetof(rsmi_version_t, patch) == offsetof(ga_rsmi_version_t, patch), "patch");
_Static_assert(offsetof(rsmi_version_t, build) == offsetof(ga_rsmi_version_t, build), "build");
#endif

static void checked_sets(void **state)
{
	(void)state;
	int sets = 0;
#ifdef HAVE_HIP
	sets++;
	print_message("HIP runtime declarations checked against hip/hip_runtime_api.h\n");
#endif
#ifdef HAVE_ROCBLAS
	sets++;
	print_message("rocBLAS declarations checked against rocblas/rocblas.h\n");
#endif
#ifdef HAVE_ROCM_SMI
	sets++;
	print_message("ROCm SMI declarations checked against rocm_smi/rocm_smi.h\n");
#endif
	if (!sets)
		skip();
	assert_true(sets > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checked_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
