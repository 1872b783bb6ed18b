/*
 * test_errcodes.c - the vendors' error-code tables (lib/core/errcodes): each
 * generated table against its header when the header is on this machine, no
 * duplicate names, every code in a group with a class and an action, and the
 * lookups by name and by number.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/errcodes.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/strmap.h"

/* No duplicate names; every family has a table; every code maps to a group. */
static void test_tables(void **state)
{
	(void)state;
	struct ga_strmap seen = { 0 };
	size_t per_family[GA_ECF__COUNT] = { 0 };
	bool bad = false;
	assert_true(ga_errcode_count() > 600);
	for (size_t i = 0; i < ga_errcode_count(); i++) {
		const struct ga_errcode *c = ga_errcode_get(i);
		assert_non_null(c->name);
		assert_true((unsigned)c->family < GA_ECF__COUNT);
		per_family[c->family]++;
		if (ga_strmap_get(&seen, c->name, NULL)) {
			print_message("duplicate name %s\n", c->name);
			bad = true;
		}
		assert_int_equal(ga_strmap_put(&seen, c->name, i, NULL), 0);
		/* the name starts with its family's prefix (the scan looks for those) */
		const struct ga_errcode_family_info *f = ga_errcode_family_get(c->family);
		assert_int_equal(strncmp(c->name, f->prefix, strlen(f->prefix)), 0);
		if (ga_errcode_group_of(i) == GA_ECG__COUNT) {
			print_message("no rule of map.def maps %s\n", c->name);
			bad = true;
		}
	}
	for (unsigned f = 0; f < GA_ECF__COUNT; f++)
		assert_true(per_family[f] > 0);
	assert_null(ga_errcode_get(ga_errcode_count()));
	ga_strmap_release(&seen);
	assert_false(bad);
}

/* Every group has an action; one that names a cause has a class, id, cause, fix and next. */
static void test_groups(void **state)
{
	(void)state;
	for (unsigned g = 0; g < GA_ECG__COUNT; g++) {
		const struct ga_errcode_group_info *gi = ga_errcode_group_get((enum ga_errcode_group)g);
		assert_non_null(gi);
		assert_true((unsigned)gi->action < GA_ACT__COUNT);
		assert_non_null(gi->summary);
		bool names_cause = g != GA_ECG_NOT_ERROR && g != GA_ECG_UNSPECIFIED;
		assert_int_equal(gi->cause_class != GA_CAUSE_UNKNOWN, names_cause);
		if (names_cause) {
			assert_non_null(gi->id);
			assert_int_equal(strncmp(gi->id, "errcode-", 8), 0);
			assert_non_null(gi->cause);
			assert_non_null(gi->fix);
			assert_non_null(gi->next);
			assert_true(gi->weight > 0 && gi->weight <= 100);
		} else {
			assert_null(gi->id);
		}
	}
	assert_null(ga_errcode_group_get(GA_ECG__COUNT));
}

static long lookup(const struct ga_errcode_index *ix, const char *name)
{
	return ga_errcode_lookup(ix, name, strlen(name));
}

static void expect(const struct ga_errcode_index *ix, const char *name, enum ga_errcode_family f, int64_t v,
                   enum ga_errcode_group g)
{
	long k = lookup(ix, name);
	if (k < 0)
		print_message("%s not found\n", name);
	assert_true(k >= 0);
	const struct ga_errcode *c = ga_errcode_get((size_t)k);
	assert_string_equal(c->name, name);
	assert_int_equal(c->family, f);
	assert_int_equal(c->value, v);
	if (ix->group[k] != g)
		print_message("%s: group %u, expected %u\n", name, ix->group[k], g);
	assert_int_equal(ix->group[k], g);
}

/* Names and numbers as the headers define them, and the groups the vendors' texts give. */
static void test_lookup(void **state)
{
	(void)state;
	struct ga_errcode_index ix;
	assert_int_equal(ga_errcode_index_init(&ix), 0);
	expect(&ix, "cudaSuccess", GA_ECF_CUDART, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "cudaErrorMemoryAllocation", GA_ECF_CUDART, 2, GA_ECG_OOM);
	expect(&ix, "cudaErrorIllegalAddress", GA_ECF_CUDART, 700, GA_ECG_ILLEGAL_ACCESS);
	expect(&ix, "cudaErrorNoKernelImageForDevice", GA_ECF_CUDART, 209, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "cudaErrorInsufficientDriver", GA_ECF_CUDART, 35, GA_ECG_DRIVER_TOO_OLD);
	expect(&ix, "cudaErrorSystemNotReady", GA_ECF_CUDART, 802, GA_ECG_SYSTEM_SERVICE);
	expect(&ix, "cudaErrorUnknown", GA_ECF_CUDART, 999, GA_ECG_UNSPECIFIED);
	expect(&ix, "CUDA_ERROR_ILLEGAL_ADDRESS", GA_ECF_CU, 700, GA_ECG_ILLEGAL_ACCESS);
	expect(&ix, "CUDA_ERROR_ECC_UNCORRECTABLE", GA_ECF_CU, 214, GA_ECG_HARDWARE);
	expect(&ix, "CUDA_ERROR_NO_DEVICE", GA_ECF_CU, 100, GA_ECG_NO_DEVICE);
	expect(&ix, "CUDA_ERROR_LAUNCH_FAILED", GA_ECF_CU, 719, GA_ECG_LAUNCH);
	expect(&ix, "CUBLAS_STATUS_EXECUTION_FAILED", GA_ECF_CUBLAS, 13, GA_ECG_LAUNCH);
	expect(&ix, "CUBLAS_STATUS_INTERNAL_ERROR", GA_ECF_CUBLAS, 14, GA_ECG_UNSPECIFIED);
	expect(&ix, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", GA_ECF_CUDNN, 3007, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "ncclSystemError", GA_ECF_NCCL, 2, GA_ECG_SYSTEM_CALL);
	expect(&ix, "ncclRemoteError", GA_ECF_NCCL, 6, GA_ECG_REMOTE);
	expect(&ix, "ncclInternalError", GA_ECF_NCCL, 3, GA_ECG_UNSPECIFIED);
	expect(&ix, "NVML_ERROR_GPU_IS_LOST", GA_ECF_NVML, 15, GA_ECG_HARDWARE);
	expect(&ix, "NVML_ERROR_RESET_REQUIRED", GA_ECF_NVML, 16, GA_ECG_GPU_RESET);
	expect(&ix, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", GA_ECF_NVML, 18, GA_ECG_DRIVER_MISSING);
	expect(&ix, "hipErrorNoDevice", GA_ECF_HIP, 100, GA_ECG_NO_DEVICE);
	expect(&ix, "hipErrorNoBinaryForGpu", GA_ECF_HIP, 209, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "HSA_STATUS_ERROR_OUT_OF_RESOURCES", GA_ECF_HSA, 0x1008, GA_ECG_RESOURCES);
	expect(&ix, "rocblas_status_memory_error", GA_ECF_ROCBLAS, 5, GA_ECG_OOM);
	expect(&ix, "ZE_RESULT_ERROR_DEVICE_LOST", GA_ECF_ZE, 0x70000001, GA_ECG_HARDWARE);
	expect(&ix, "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", GA_ECF_ZE, 0x70000003, GA_ECG_OOM);
	expect(&ix, "CL_OUT_OF_RESOURCES", GA_ECF_OPENCL, -5, GA_ECG_OOM);
	expect(&ix, "CL_INVALID_VALUE", GA_ECF_OPENCL, -30, GA_ECG_API_MISUSE);
	/* Vulkan: the non-negative codes are success codes (VK_TIMEOUT too, unlike the other tables'
	 * timeouts); the device lost names no one cause in the specification; an alias keeps the
	 * group of its code */
	expect(&ix, "VK_SUCCESS", GA_ECF_VULKAN, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "VK_TIMEOUT", GA_ECF_VULKAN, 2, GA_ECG_NOT_ERROR);
	expect(&ix, "VK_SUBOPTIMAL_KHR", GA_ECF_VULKAN, 1000001003, GA_ECG_NOT_ERROR);
	expect(&ix, "VK_ERROR_PIPELINE_COMPILE_REQUIRED_EXT", GA_ECF_VULKAN, 1000297000, GA_ECG_NOT_ERROR);
	expect(&ix, "VK_ERROR_INCOMPATIBLE_SHADER_BINARY_EXT", GA_ECF_VULKAN, 1000482000, GA_ECG_NOT_ERROR);
	expect(&ix, "VK_ERROR_OUT_OF_DEVICE_MEMORY", GA_ECF_VULKAN, -2, GA_ECG_OOM);
	expect(&ix, "VK_ERROR_INITIALIZATION_FAILED", GA_ECF_VULKAN, -3, GA_ECG_UNSPECIFIED);
	expect(&ix, "VK_ERROR_DEVICE_LOST", GA_ECF_VULKAN, -4, GA_ECG_UNSPECIFIED);
	expect(&ix, "VK_ERROR_LAYER_NOT_PRESENT", GA_ECF_VULKAN, -6, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "VK_ERROR_FEATURE_NOT_PRESENT", GA_ECF_VULKAN, -8, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "VK_ERROR_INCOMPATIBLE_DRIVER", GA_ECF_VULKAN, -9, GA_ECG_DRIVER_MISSING);
	expect(&ix, "VK_ERROR_FRAGMENTED_POOL", GA_ECF_VULKAN, -12, GA_ECG_OOM);
	expect(&ix, "VK_ERROR_UNKNOWN", GA_ECF_VULKAN, -13, GA_ECG_UNSPECIFIED);
	expect(&ix, "VK_ERROR_VALIDATION_FAILED_EXT", GA_ECF_VULKAN, -1000011001, GA_ECG_API_MISUSE);
	expect(&ix, "VK_ERROR_OUT_OF_POOL_MEMORY_KHR", GA_ECF_VULKAN, -1000069000, GA_ECG_OOM);
	expect(&ix, "VK_ERROR_NOT_PERMITTED_KHR", GA_ECF_VULKAN, -1000174001, GA_ECG_PERMISSION);
	expect(&ix, "VK_ERROR_INVALID_SHADER_NV", GA_ECF_VULKAN, -1000012000, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "VK_ERROR_OUT_OF_DATE_KHR", GA_ECF_VULKAN, -1000001004, GA_ECG_API_MISUSE);
	/* NVRTC */
	expect(&ix, "NVRTC_SUCCESS", GA_ECF_NVRTC, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "NVRTC_ERROR_OUT_OF_MEMORY", GA_ECF_NVRTC, 1, GA_ECG_OOM);
	expect(&ix, "NVRTC_ERROR_INVALID_OPTION", GA_ECF_NVRTC, 5, GA_ECG_API_MISUSE);
	expect(&ix, "NVRTC_ERROR_COMPILATION", GA_ECF_NVRTC, 6, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", GA_ECF_NVRTC, 7, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", GA_ECF_NVRTC, 10, GA_ECG_API_MISUSE);
	expect(&ix, "NVRTC_ERROR_INTERNAL_ERROR", GA_ECF_NVRTC, 11, GA_ECG_UNSPECIFIED);
	expect(&ix, "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED", GA_ECF_NVRTC, 13, GA_ECG_NOT_ERROR);
	expect(&ix, "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED", GA_ECF_NVRTC, 14, GA_ECG_OOM);
	expect(&ix, "NVRTC_ERROR_CANCELLED", GA_ECF_NVRTC, 16, GA_ECG_NOT_ERROR);
	expect(&ix, "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED", GA_ECF_NVRTC, 17, GA_ECG_UNSPECIFIED);
	/* CUPTI, cuRAND, nvJitLink (h66-tnvlibs): groups from each enumerator's comment */
	expect(&ix, "CUPTI_SUCCESS", GA_ECF_CUPTI, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "CUPTI_ERROR_INVALID_PARAMETER", GA_ECF_CUPTI, 1, GA_ECG_API_MISUSE);
	expect(&ix, "CUPTI_ERROR_OUT_OF_MEMORY", GA_ECF_CUPTI, 8, GA_ECG_OOM);
	expect(&ix, "CUPTI_ERROR_HARDWARE", GA_ECF_CUPTI, 9, GA_ECG_UNSPECIFIED);
	expect(&ix, "CUPTI_ERROR_API_NOT_IMPLEMENTED", GA_ECF_CUPTI, 11, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "CUPTI_ERROR_NOT_READY", GA_ECF_CUPTI, 13, GA_ECG_NOT_ERROR);
	expect(&ix, "CUPTI_ERROR_NOT_COMPATIBLE", GA_ECF_CUPTI, 14, GA_ECG_API_MISUSE);
	expect(&ix, "CUPTI_ERROR_NOT_INITIALIZED", GA_ECF_CUPTI, 15, GA_ECG_UNSPECIFIED);
	expect(&ix, "CUPTI_ERROR_QUEUE_EMPTY", GA_ECF_CUPTI, 18, GA_ECG_NOT_ERROR);
	expect(&ix, "CUPTI_ERROR_DISABLED", GA_ECF_CUPTI, 23, GA_ECG_DEVICE_BUSY);
	expect(&ix, "CUPTI_ERROR_HARDWARE_BUSY", GA_ECF_CUPTI, 26, GA_ECG_DEVICE_BUSY);
	expect(&ix, "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS", GA_ECF_CUPTI, 31,
	       GA_ECG_NOT_SUPPORTED);
	expect(&ix, "CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE", GA_ECF_CUPTI, 34, GA_ECG_NOT_ERROR);
	expect(&ix, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", GA_ECF_CUPTI, 35, GA_ECG_PERMISSION);
	expect(&ix, "CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE", GA_ECF_CUPTI, 37, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED", GA_ECF_CUPTI, 39, GA_ECG_DEVICE_BUSY);
	expect(&ix, "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES", GA_ECF_CUPTI, 40,
	       GA_ECG_PERMISSION);
	expect(&ix, "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED", GA_ECF_CUPTI, 43, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "CUPTI_ERROR_UNKNOWN", GA_ECF_CUPTI, 999, GA_ECG_UNSPECIFIED);
	expect(&ix, "CURAND_STATUS_SUCCESS", GA_ECF_CURAND, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "CURAND_STATUS_VERSION_MISMATCH", GA_ECF_CURAND, 100, GA_ECG_DRIVER_TOO_OLD);
	expect(&ix, "CURAND_STATUS_NOT_INITIALIZED", GA_ECF_CURAND, 101, GA_ECG_API_MISUSE);
	expect(&ix, "CURAND_STATUS_ALLOCATION_FAILED", GA_ECF_CURAND, 102, GA_ECG_OOM);
	expect(&ix, "CURAND_STATUS_OUT_OF_RANGE", GA_ECF_CURAND, 104, GA_ECG_API_MISUSE);
	expect(&ix, "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED", GA_ECF_CURAND, 106, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "CURAND_STATUS_LAUNCH_FAILURE", GA_ECF_CURAND, 201, GA_ECG_LAUNCH);
	expect(&ix, "CURAND_STATUS_PREEXISTING_FAILURE", GA_ECF_CURAND, 202, GA_ECG_UNSPECIFIED);
	expect(&ix, "CURAND_STATUS_INITIALIZATION_FAILED", GA_ECF_CURAND, 203, GA_ECG_UNSPECIFIED);
	expect(&ix, "CURAND_STATUS_ARCH_MISMATCH", GA_ECF_CURAND, 204, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "CURAND_STATUS_INTERNAL_ERROR", GA_ECF_CURAND, 999, GA_ECG_UNSPECIFIED);
	expect(&ix, "NVJITLINK_SUCCESS", GA_ECF_NVJITLINK, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "NVJITLINK_ERROR_UNRECOGNIZED_OPTION", GA_ECF_NVJITLINK, 1, GA_ECG_API_MISUSE);
	expect(&ix, "NVJITLINK_ERROR_PTX_COMPILE", GA_ECF_NVJITLINK, 4, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "NVJITLINK_ERROR_NVVM_COMPILE", GA_ECF_NVJITLINK, 5, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "NVJITLINK_ERROR_INTERNAL", GA_ECF_NVJITLINK, 6, GA_ECG_UNSPECIFIED);
	expect(&ix, "NVJITLINK_ERROR_UNRECOGNIZED_INPUT", GA_ECF_NVJITLINK, 8, GA_ECG_API_MISUSE);
	expect(&ix, "NVJITLINK_ERROR_FINALIZE", GA_ECF_NVJITLINK, 9, GA_ECG_UNSPECIFIED);
	expect(&ix, "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS", GA_ECF_NVJITLINK, 11, GA_ECG_API_MISUSE);
	expect(&ix, "NVJITLINK_ERROR_ARCH_MISMATCH", GA_ECF_NVJITLINK, 13, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "NVJITLINK_ERROR_OUTDATED_LIBRARY", GA_ECF_NVJITLINK, 14, GA_ECG_DRIVER_TOO_OLD);
	expect(&ix, "NVJITLINK_ERROR_UNSUPPORTED_ARCH", GA_ECF_NVJITLINK, 17, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "NVJITLINK_ERROR_LTO_NOT_ENABLED", GA_ECF_NVJITLINK, 18, GA_ECG_API_MISUSE);
	/* by number, the number's first name where the header has aliases */
	long k = ga_errcode_lookup_number(&ix, GA_ECF_CU, 700);
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "CUDA_ERROR_ILLEGAL_ADDRESS");
	k = ga_errcode_lookup_number(&ix, GA_ECF_HIP, 2);
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "hipErrorOutOfMemory");
	k = ga_errcode_lookup_number(&ix, GA_ECF_VULKAN, -1000069000);
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "VK_ERROR_OUT_OF_POOL_MEMORY");
	assert_int_equal(ga_errcode_lookup_number(&ix, GA_ECF_NCCL, 9), -1);
	assert_int_equal(ga_errcode_lookup_number(&ix, GA_ECF__COUNT, 0), -1);
	/* not a code; a prefix of one; an unknown name with an error prefix */
	assert_int_equal(lookup(&ix, "cudaMalloc"), -1);
	assert_int_equal(ga_errcode_lookup(&ix, "cudaErrorIllegalAddress", 12), -1);
	assert_int_equal(lookup(&ix, "hipErrorSomethingNew"), -1);
	assert_int_equal(ga_errcode_error_prefix("hipErrorSomethingNew", 20), GA_ECF_HIP);
	assert_int_equal(ga_errcode_error_prefix("CUDA_ERROR_X", 12), GA_ECF_CU);
	assert_int_equal(ga_errcode_error_prefix("CUDA_VISIBLE_DEVICES", 20), GA_ECF__COUNT);
	assert_int_equal(ga_errcode_error_prefix("hipError", 8), GA_ECF__COUNT);
	assert_int_equal(ga_errcode_error_prefix("VK_ERROR_SOMETHING_NEW", 22), GA_ECF_VULKAN);
	assert_int_equal(ga_errcode_error_prefix("NVRTC_ERROR_X", 13), GA_ECF_NVRTC);
	assert_int_equal(ga_errcode_error_prefix("CUPTI_ERROR_X", 13), GA_ECF_CUPTI);
	assert_int_equal(ga_errcode_error_prefix("CURAND_STATUS_X", 15), GA_ECF_CURAND);
	assert_int_equal(ga_errcode_error_prefix("NVJITLINK_ERROR_X", 17), GA_ECF_NVJITLINK);
	ga_errcode_index_release(&ix);
}

/* Intel's SYCL runtime (h65-tintel): Unified Runtime's ur_result_t, DPC++'s PI codes, SYCL 2020's
 * errc, with the groups ur_api.h's comments, OpenCL's groups and the specification give */
static void test_lookup_sycl(void **state)
{
	(void)state;
	struct ga_errcode_index ix;
	assert_int_equal(ga_errcode_index_init(&ix), 0);
	expect(&ix, "UR_RESULT_SUCCESS", GA_ECF_UR, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "UR_RESULT_ERROR_INVALID_VALUE", GA_ECF_UR, 4, GA_ECG_API_MISUSE);
	expect(&ix, "UR_RESULT_ERROR_INVALID_BINARY", GA_ECF_UR, 7, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "UR_RESULT_ERROR_COMPILER_NOT_AVAILABLE", GA_ECF_UR, 16, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "UR_RESULT_ERROR_DEVICE_NOT_FOUND", GA_ECF_UR, 18, GA_ECG_NO_DEVICE);
	expect(&ix, "UR_RESULT_ERROR_DEVICE_LOST", GA_ECF_UR, 20, GA_ECG_HARDWARE);
	expect(&ix, "UR_RESULT_ERROR_DEVICE_REQUIRES_RESET", GA_ECF_UR, 21, GA_ECG_GPU_RESET);
	expect(&ix, "UR_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE", GA_ECF_UR, 22, GA_ECG_UNSPECIFIED);
	expect(&ix, "UR_RESULT_ERROR_INVALID_KERNEL_ARGS", GA_ECF_UR, 27, GA_ECG_API_MISUSE);
	expect(&ix, "UR_RESULT_ERROR_OUT_OF_HOST_MEMORY", GA_ECF_UR, 38, GA_ECG_OOM);
	expect(&ix, "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", GA_ECF_UR, 39, GA_ECG_OOM);
	expect(&ix, "UR_RESULT_ERROR_OUT_OF_RESOURCES", GA_ECF_UR, 40, GA_ECG_OOM);
	expect(&ix, "UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE", GA_ECF_UR, 41, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "UR_RESULT_ERROR_PROGRAM_LINK_FAILURE", GA_ECF_UR, 42, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "UR_RESULT_ERROR_UNSUPPORTED_FEATURE", GA_ECF_UR, 44, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "UR_RESULT_ERROR_FUNCTION_ADDRESS_NOT_AVAILABLE", GA_ECF_UR, 58, GA_ECG_UNSPECIFIED);
	expect(&ix, "UR_RESULT_ERROR_PROGRAM_UNLINKED", GA_ECF_UR, 61, GA_ECG_API_MISUSE);
	expect(&ix, "UR_RESULT_ERROR_ADAPTER_SPECIFIC", GA_ECF_UR, 66, GA_ECG_UNSPECIFIED);
	expect(&ix, "UR_RESULT_ERROR_LAYER_NOT_PRESENT", GA_ECF_UR, 67, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "UR_RESULT_ERROR_IN_EVENT_LIST_EXEC_STATUS", GA_ECF_UR, 68, GA_ECG_UNSPECIFIED);
	expect(&ix, "UR_RESULT_ERROR_DEVICE_NOT_AVAILABLE", GA_ECF_UR, 69, GA_ECG_NO_DEVICE);
	expect(&ix, "UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_EXP", GA_ECF_UR, 0x1000, GA_ECG_API_MISUSE);
	expect(&ix, "UR_RESULT_ERROR_UNKNOWN", GA_ECF_UR, 0x7ffffffe, GA_ECG_UNSPECIFIED);
	/* PI: OpenCL's numbers and groups for OpenCL's codes; PI's own */
	expect(&ix, "PI_SUCCESS", GA_ECF_PI, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "PI_ERROR_DEVICE_NOT_FOUND", GA_ECF_PI, -1, GA_ECG_NO_DEVICE);
	expect(&ix, "PI_ERROR_COMPILER_NOT_AVAILABLE", GA_ECF_PI, -3, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "PI_ERROR_OUT_OF_RESOURCES", GA_ECF_PI, -5, GA_ECG_OOM);
	expect(&ix, "PI_ERROR_BUILD_PROGRAM_FAILURE", GA_ECF_PI, -11, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "PI_ERROR_INVALID_QUEUE", GA_ECF_PI, -36, GA_ECG_API_MISUSE);
	expect(&ix, "PI_ERROR_INVALID_BINARY", GA_ECF_PI, -42, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "PI_ERROR_INVALID_KERNEL_NAME", GA_ECF_PI, -46, GA_ECG_API_MISUSE);
	expect(&ix, "PI_ERROR_PLATFORM_NOT_FOUND_KHR", GA_ECF_PI, -1001, GA_ECG_DRIVER_MISSING);
	expect(&ix, "PI_ERROR_D3D11_RESOURCE_NOT_ACQUIRED_KHR", GA_ECF_PI, -1009, GA_ECG_API_MISUSE);
	expect(&ix, "PI_ERROR_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL", GA_ECF_PI, -1097, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "PI_ERROR_UNINITIALIZED", GA_ECF_PI, -1102, GA_ECG_API_MISUSE);
	expect(&ix, "PI_ERROR_UNSUPPORTED_FEATURE", GA_ECF_PI, -995, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "PI_ERROR_PLUGIN_SPECIFIC_ERROR", GA_ECF_PI, -996, GA_ECG_UNSPECIFIED);
	expect(&ix, "PI_ERROR_COMMAND_EXECUTION_FAILURE", GA_ECF_PI, -997, GA_ECG_LAUNCH);
	expect(&ix, "PI_ERROR_FUNCTION_ADDRESS_IS_NOT_AVAILABLE", GA_ECF_PI, -998, GA_ECG_UNSPECIFIED);
	expect(&ix, "PI_ERROR_UNKNOWN", GA_ECF_PI, -999, GA_ECG_UNSPECIFIED);
	/* every PI code of OpenCL's numbers has the OpenCL code's group */
	for (size_t i = 0; i < ga_errcode_count(); i++) {
		const struct ga_errcode *c = ga_errcode_get(i);
		if (c->family != GA_ECF_PI)
			continue;
		long t = ga_errcode_lookup_number(&ix, GA_ECF_OPENCL, c->value);
		if (t < 0 || c->value < -68)
			continue;
		if (ix.group[i] != ix.group[t])
			print_message("%s: group %u, %s: %u\n", c->name, ix.group[i],
			              ga_errcode_get((size_t)t)->name, ix.group[t]);
		assert_int_equal(ix.group[i], ix.group[t]);
	}
	/* SYCL 2020's errc: named errc::NAME, numbered from success = 0 */
	expect(&ix, "errc::success", GA_ECF_SYCL, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "errc::runtime", GA_ECF_SYCL, 1, GA_ECG_UNSPECIFIED);
	expect(&ix, "errc::kernel", GA_ECF_SYCL, 2, GA_ECG_UNSPECIFIED);
	expect(&ix, "errc::accessor", GA_ECF_SYCL, 3, GA_ECG_API_MISUSE);
	expect(&ix, "errc::nd_range", GA_ECF_SYCL, 4, GA_ECG_API_MISUSE);
	expect(&ix, "errc::event", GA_ECF_SYCL, 5, GA_ECG_UNSPECIFIED);
	expect(&ix, "errc::kernel_argument", GA_ECF_SYCL, 6, GA_ECG_API_MISUSE);
	expect(&ix, "errc::build", GA_ECF_SYCL, 7, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "errc::invalid", GA_ECF_SYCL, 8, GA_ECG_API_MISUSE);
	expect(&ix, "errc::memory_allocation", GA_ECF_SYCL, 9, GA_ECG_OOM);
	expect(&ix, "errc::platform", GA_ECF_SYCL, 10, GA_ECG_UNSPECIFIED);
	expect(&ix, "errc::profiling", GA_ECF_SYCL, 11, GA_ECG_UNSPECIFIED);
	expect(&ix, "errc::feature_not_supported", GA_ECF_SYCL, 12, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "errc::kernel_not_supported", GA_ECF_SYCL, 13, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "errc::backend_mismatch", GA_ECF_SYCL, 14, GA_ECG_API_MISUSE);
	/* bare words are no code */
	assert_int_equal(lookup(&ix, "runtime"), -1);
	assert_int_equal(lookup(&ix, "build"), -1);
	assert_int_equal(ga_errcode_error_prefix("UR_RESULT_ERROR_SOMETHING_NEW", 29), GA_ECF_UR);
	assert_int_equal(ga_errcode_error_prefix("PI_ERROR_X", 10), GA_ECF_PI);
	assert_int_equal(ga_errcode_error_prefix("errc::runtime", 13), GA_ECF__COUNT);
	const struct ga_errcode u = { "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", 39, GA_ECF_UR };
	const struct ga_errcode e = { "errc::kernel_not_supported", 13, GA_ECF_SYCL };
	char k[64];
	ga_errcode_key(&u, k, sizeof(k));
	assert_string_equal(k, "outofdevicememory");
	ga_errcode_key(&e, k, sizeof(k));
	assert_string_equal(k, "kernelnotsupported");
	ga_errcode_index_release(&ix);
}

/* The key map.def matches on. */
static void test_keys(void **state)
{
	(void)state;
	const struct ga_errcode a = { "CUDA_ERROR_OUT_OF_MEMORY", 2, GA_ECF_CU };
	const struct ga_errcode b = { "cudaErrorMemoryAllocation", 2, GA_ECF_CUDART };
	const struct ga_errcode c = { "ZE_RESULT_EXP_ERROR_REMOTE_DEVICE", 0, GA_ECF_ZE };
	char k[64];
	ga_errcode_key(&a, k, sizeof(k));
	assert_string_equal(k, "outofmemory");
	ga_errcode_key(&b, k, sizeof(k));
	assert_string_equal(k, "memoryallocation");
	ga_errcode_key(&c, k, sizeof(k));
	assert_string_equal(k, "remotedevice");
	ga_errcode_key(&a, k, 4);
	assert_string_equal(k, "out");
}

/* The repository root from GA_FIXTURES (tests/fixtures), or NULL. */
static const char *src_root(char *buf, size_t cap)
{
	const char *fx = getenv("GA_FIXTURES");
	if (!fx || snprintf(buf, cap, "%s/../..", fx) >= (int)cap)
		return NULL;
	return buf;
}

/*
 * Each table against its header: tools/gen-errcodes.list run in check mode
 * regenerates every table whose header is on this machine and compares it with
 * the checked-in one (a header that is absent is skipped with a message).
 */
static void test_tables_match_headers(void **state)
{
	(void)state;
	char root[4096], cmd[4300];
	if (!src_root(root, sizeof(root))) {
		print_message("skipped: GA_FIXTURES is not set\n");
		return;
	}
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		print_message("skipped: no python3 to run tools/gen-errcodes\n");
		return;
	}
#if defined(__SANITIZE_ADDRESS__)
	/* the check runs python on the headers, nothing of this binary: the normal build's run of
	 * this test makes it; under the sanitizers it would only cost make test half a minute */
	print_message("skipped under AddressSanitizer: the normal build's run checks the tables\n");
	return;
#endif
	snprintf(cmd, sizeof(cmd), "cd '%s' && GEN_ERRCODES_CHECK=1 sh tools/gen-errcodes.list", root);
	int rc = system(cmd);
	assert_int_equal(rc, 0);
}

/*
 * Without python: every name of a table whose header is here occurs in it, with
 * the table's number where the header writes one ("NAME = 700", "#define NAME -5").
 */
static const struct {
	enum ga_errcode_family fam;
	const char *path;
} local_headers[] = {
	{ GA_ECF_CUDART, "/usr/local/cuda/include/driver_types.h" },
	{ GA_ECF_CU, "/usr/local/cuda/include/cuda.h" },
	{ GA_ECF_CUBLAS, "/usr/local/cuda/include/cublas_api.h" },
	{ GA_ECF_NCCL, "/usr/local/cuda/include/nccl.h" },
	{ GA_ECF_HIP, "/usr/include/hip/hip_runtime_api.h" },
	{ GA_ECF_HSA, "/usr/include/hsa/hsa.h" },
	{ GA_ECF_OPENCL, "/usr/include/CL/cl.h" },
	{ GA_ECF_NVRTC, "/usr/local/cuda/include/nvrtc.h" },
	{ GA_ECF_CUPTI, "/usr/local/cuda/include/cupti_result.h" },
	{ GA_ECF_CURAND, "/usr/local/cuda/include/curand.h" },
	{ GA_ECF_NVJITLINK, "/usr/local/cuda/include/nvJitLink.h" },
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0, k;
	char *b = malloc(cap);
	while (b && (k = fread(b + len, 1, cap - len - 1, f)) > 0) {
		len += k;
		if (cap - len < 2)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	if (b)
		b[len] = '\0';
	return b;
}

static bool ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void test_names_in_headers(void **state)
{
	(void)state;
	for (size_t h = 0; h < sizeof(local_headers) / sizeof(local_headers[0]); h++) {
		char *text = slurp(local_headers[h].path);
		if (!text) {
			print_message("skipped: %s is not on this machine\n", local_headers[h].path);
			continue;
		}
		size_t checked = 0;
		for (size_t i = 0; i < ga_errcode_count(); i++) {
			const struct ga_errcode *c = ga_errcode_get(i);
			if (c->family != local_headers[h].fam)
				continue;
			size_t nl = strlen(c->name);
			const char *p = text;
			bool found = false;
			while ((p = strstr(p, c->name)) != NULL) {
				if ((p > text && ident(p[-1])) || ident(p[nl])) {
					p += nl;
					continue;
				}
				found = true;
				const char *q = p + nl;
				while (*q == ' ' || *q == '\t')
					q++;
				bool def = c->family == GA_ECF_OPENCL;
				if (*q == '=' ||
				    (def && q > p + nl && (*q == '-' || (*q >= '0' && *q <= '9')))) {
					q += *q == '=';
					char *end = NULL;
					long long v = strtoll(q, &end, 0);
					if (end && end != q && !ident(*end)) {
						if (v != c->value)
							print_message("%s: header %lld, table %lld\n",
							              c->name, v, (long long)c->value);
						assert_int_equal(v, c->value);
						checked++;
						break;
					}
				}
				p += nl;
			}
			if (!found)
				print_message("%s not in %s\n", c->name, local_headers[h].path);
			assert_true(found);
		}
		print_message("%s: %zu numbers checked\n", local_headers[h].path, checked);
		free(text);
	}
}

static struct ga_explain *explain_text(const char *text, size_t chunk)
{
	struct ga_explain *ex = NULL;
	assert_int_equal(ga_explain_new(16, &ex), 0);
	size_t n = strlen(text);
	for (size_t i = 0; i < n; i += chunk)
		assert_int_equal(ga_explain_feed(ex, text + i, n - i < chunk ? n - i : chunk), 0);
	assert_int_equal(ga_explain_finish(ex), 0);
	return ex;
}

static const struct ga_explain_cause *cause_of(struct ga_explain *ex, const char *id)
{
	size_t n = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ga_explain_sig(c[i].sig)->id, id))
			return &c[i];
	return NULL;
}

/* The cause id must be there, first seen on first_line, with code captured (NULL: not checked). */
static const struct ga_explain_cause *expect_cause(struct ga_explain *ex, const char *id, uint64_t first_line,
                                                   const char *code)
{
	const struct ga_explain_cause *c = cause_of(ex, id);
	assert_non_null(c);
	assert_int_equal(c->first_line, first_line);
	if (code)
		assert_string_equal(ga_capture_get(c->values, c->n_values, "code"), code);
	return c;
}

/* Each (cause id, first line, code captured) of a table must be among ex's causes. */
struct want_cause {
	const char *id;
	uint64_t line;
	const char *code;
};

static void expect_causes(struct ga_explain *ex, const struct want_cause *w, size_t n)
{
	assert_int_equal(ga_explain_match_count(ex), n);
	for (size_t i = 0; i < n; i++)
		expect_cause(ex, w[i].id, w[i].line, w[i].code);
}

/* A line that names a code no signature matches gets the code's cause: its group's, or the
 * signature the code belongs to (the CUDA driver API twin of a runtime code too). */
static void test_explain_codes(void **state)
{
	(void)state;
	const char *log = "start\n"
	                  "step 3: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE from cuLaunchCooperativeKernel\n"
	                  "init: cuInit returned CUDA_ERROR_NO_DEVICE\n"
	                  "x.cu:12 CUDA error code 209\n"
	                  "ok: ncclSuccess\n"
	                  "queue: ZE_RESULT_ERROR_DEVICE_LOST\n";
	struct ga_explain *ex = explain_text(log, 1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 4);
	const struct ga_explain_cause *c = cause_of(ex, "errcode-launch-failed");
	assert_non_null(c);
	assert_int_equal(c->first_line, 2);
	assert_int_equal(c->cause_class, GA_CAUSE_APPLICATION);
	assert_string_equal(ga_capture_get(c->values, c->n_values, "code"),
	                    "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE");
	assert_non_null(strstr(c->detail,
	                       "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720 (CUDA driver API CUresult)"));
	assert_non_null(strstr(c->detail, "action: restart_workload"));
	c = cause_of(ex, "cuda-no-device");
	assert_non_null(c);
	assert_int_equal(c->first_line, 3);
	c = cause_of(ex, "cuda-no-kernel-image");
	assert_non_null(c);
	assert_int_equal(c->first_line, 4);
	c = cause_of(ex, "errcode-hardware");
	assert_non_null(c);
	assert_int_equal(c->cause_class, GA_CAUSE_NODE_HARDWARE);
	ga_explain_free(ex);
}

/* A process's exit status is no runtime's code, even on a line that names CUDA (held-out batch in:
 * a Windows build's "...\\CUDA\\v12.4\\bin\\nvcc' failed with exit code 2" was read as
 * cudaErrorMemoryAllocation); the same number after "CUDA error code" on the next line still is. */
static void test_explain_exit_status(void **state)
{
	(void)state;
	struct ga_explain *ex = explain_text(
	        "error: command 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\nvcc' "
	        "failed with exit code 2\n"
	        "make[2]: *** [CMakeFiles/CUDA_kernels.dir/kernel.cu.o] Error 2\n"
	        "CUDA process exited with code 2; exit_code=2\n",
	        1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	ga_explain_free(ex);
	ex = explain_text("nvcc failed with exit code 2\nx.cu:12 CUDA error code 2\n", 1 << 20);
	const struct ga_explain_cause *c = cause_of(ex, "gpu-out-of-memory");
	assert_non_null(c);
	assert_int_equal(c->first_line, 2);
	ga_explain_free(ex);
	/* only make's "*** [...]" form is an exit status: a bracketed location before "Error 2" is not */
	ex = explain_text("CUDA call failed at [kernel.cu:42] Error 2\n", 1 << 20);
	c = cause_of(ex, "gpu-out-of-memory");
	assert_non_null(c);
	assert_int_equal(c->first_line, 1);
	ga_explain_free(ex);
	/* the CUT_SAFE_CALL-style macros' "CUDA error! %d" (a cudaError_t) names its code too; an
	 * exclamation with no number after it names none */
	ex = explain_text("loading\nCUDA error! 2 \n", 1 << 20);
	c = cause_of(ex, "gpu-out-of-memory");
	assert_non_null(c);
	assert_int_equal(c->first_line, 2);
	ga_explain_free(ex);
	ex = explain_text("CUDA error! see above\n", 1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	ga_explain_free(ex);
	/* a loose "CUDA error" and punctuation or a bracketed code number before the runtime's
	 * message: SPECFEM3D's "CUDA error !!!!! <out of memory> !!!!!", hypre's "CUDA Error
	 * Code[11]: invalid argument"; no separator ("CUDA errors") and a message of no code
	 * name none */
	ex = explain_text("CUDA error !!!!! <out of memory> !!!!! at CUDA call error code: # 2402\n",
	                  1 << 20);
	c = cause_of(ex, "gpu-out-of-memory");
	assert_non_null(c);
	assert_int_equal(c->first_line, 1);
	ga_explain_free(ex);
	ex = explain_text("run\nCUDA Error Code[11]: invalid argument\n", 1 << 20);
	c = cause_of(ex, "errcode-invalid-usage");
	assert_non_null(c);
	assert_int_equal(c->first_line, 2);
	ga_explain_free(ex);
	ex = explain_text("CUDA errors: out of memory\n", 1 << 20);
	assert_null(cause_of(ex, "gpu-out-of-memory"));
	ga_explain_free(ex);
	ex = explain_text("CUDA error <<< see the log above >>>\n", 1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	ga_explain_free(ex);
}

/* The vendors' message strings (FAMILY.str.def): looked up exactly, at a word's end, per family. */
static void test_messages(void **state)
{
	(void)state;
	struct ga_errcode_index ix;
	assert_int_equal(ga_errcode_index_init(&ix), 0);
	const char *m = "no kernel image is available for execution on the device";
	long k = ga_errcode_lookup_message(&ix, GA_ECF_CUDART, m, strlen(m));
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "cudaErrorNoKernelImageForDevice");
	assert_int_equal(ga_errcode_get((size_t)k)->value, 209);
	assert_string_equal(ga_errcode_message(&ix, (size_t)k), m);
	/* the same text is HIP's hipErrorNoBinaryForGpu: the family decides */
	k = ga_errcode_lookup_message(&ix, GA_ECF_HIP, m, strlen(m));
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "hipErrorNoBinaryForGpu");
	m = "invalid device function";
	k = ga_errcode_lookup_message(&ix, GA_ECF_HIP, m, strlen(m));
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "hipErrorInvalidDeviceFunction");
	/* a prefix of a message is not the message; nor is another family's */
	assert_int_equal(ga_errcode_lookup_message(&ix, GA_ECF_CUDART, m, 7), -1);
	assert_int_equal(ga_errcode_lookup_message(&ix, GA_ECF_NVML, m, strlen(m)), -1);
	/* text (its first n bytes, 0: all of it) -> the code ga_errcode_find_message names, or none */
	static const struct {
		enum ga_errcode_family fam;
		const char *text;
		size_t n;
		const char *code;
	} finds[] = {
		/* NCCL 2.28's text with its note, and the text before the note */
		{ GA_ECF_NCCL,
		  "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5", 0,
		  "ncclSystemError" },
		{ GA_ECF_NCCL, "unhandled system error, NCCL version 2.7.8", 0, "ncclSystemError" },
		/* the longest message wins: "unspecified launch failure in prior launch" (HIP) */
		{ GA_ECF_HIP, "unspecified launch failure in prior launch", 0, "hipErrorPriorLaunchFailure" },
		{ GA_ECF_HIP, "unspecified launch failure in prior launch", 26, "hipErrorLaunchFailure" },
		/* a message ends at a word's end: "out of memoryX" is none */
		{ GA_ECF_CUDART, "out of memoryX", 0, NULL },
		{ GA_ECF_CUDART, "out of memoryX", 13, "cudaErrorMemoryAllocation" },
		/* the driver API's texts (cuGetErrorString of Debian's libcuda1 555.58.02): the same
		 * words as the runtime's twin, told apart by the family the line's prefix names */
		{ GA_ECF_CU, "device kernel image is invalid", 0, "CUDA_ERROR_INVALID_IMAGE" },
		{ GA_ECF_CUDART, "device kernel image is invalid", 0, "cudaErrorInvalidKernelImage" },
		/* NVML's (nvmlErrorString of libnvidia-ml 555.58.02) without case: nvidia-smi prints
		 * them as they are, libnvidia-container lower-cased */
		{ GA_ECF_NVML, "Driver/library version mismatch", 0, "NVML_ERROR_LIB_RM_VERSION_MISMATCH" },
		{ GA_ECF_NVML, "gpu access blocked by the operating system: unknown", 0,
		  "NVML_ERROR_OPERATING_SYSTEM" },
		/* only NVML's keys fold case: the driver API's message in capitals is none */
		{ GA_ECF_CU, "DEVICE KERNEL IMAGE IS INVALID", 0, NULL },
	};
	for (size_t i = 0; i < sizeof(finds) / sizeof(finds[0]); i++) {
		size_t n = finds[i].n ? finds[i].n : strlen(finds[i].text);
		k = ga_errcode_find_message(&ix, finds[i].fam, finds[i].text, n);
		if (!finds[i].code) {
			assert_int_equal(k, -1);
			continue;
		}
		assert_true(k >= 0);
		assert_string_equal(ga_errcode_get((size_t)k)->name, finds[i].code);
	}
	/* a code newer than the library the strings came from has no message, never the library's
	 * "Unknown Error" for a number it lacks (tools/dump-errstrings) */
	k = ga_errcode_lookup(&ix, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", 35);
	assert_true(k >= 0);
	assert_null(ga_errcode_message(&ix, (size_t)k));
	m = "Unknown Error";
	k = ga_errcode_find_message(&ix, GA_ECF_NVML, m, strlen(m));
	assert_string_equal(ga_errcode_get((size_t)k)->name, "NVML_ERROR_UNKNOWN");
	/* every message of a table is found again, and names a code of its own family */
	size_t with = 0;
	for (size_t i = 0; i < ga_errcode_count(); i++) {
		const char *t = ga_errcode_message(&ix, i);
		if (!t)
			continue;
		with++;
		k = ga_errcode_lookup_message(&ix, ga_errcode_get(i)->family, t, strlen(t));
		assert_true(k >= 0);
		assert_int_equal(ga_errcode_get((size_t)k)->family, ga_errcode_get(i)->family);
		assert_string_equal(ga_errcode_message(&ix, (size_t)k), t);
	}
	assert_true(with > 200);
	ga_errcode_index_release(&ix);
}

/* explain: a runtime's message after its prefix is that code, with the code's cause. */
static void test_explain_messages(void **state)
{
	(void)state;
	const char *log = "start\n"
	                  "RuntimeError: CUDA error: too many blocks in cooperative launch\n"
	                  "RuntimeError: HIP error: too many blocks in cooperative launch\n"
	                  "CUDA error: this is not a message of libcudart\n";
	struct ga_explain *ex = explain_text(log, 1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 2);
	const struct ga_explain_cause *c = cause_of(ex, "errcode-launch-failed");
	assert_non_null(c);
	assert_int_equal(c->first_line, 2);
	assert_string_equal(ga_capture_get(c->values, c->n_values, "code"),
	                    "cudaErrorCooperativeLaunchTooLarge");
	assert_non_null(
	        strstr(c->detail, "cudaErrorCooperativeLaunchTooLarge = 720 (CUDA runtime API cudaError_t)"));
	assert_non_null(strstr(c->detail, "hipErrorCooperativeLaunchTooLarge"));
	ga_explain_free(ex);
	/* the driver API's and NVML's texts after the prefixes that print them, and pynvml's class
	 * per code (NVMLError_GpuIsLost is NVML_ERROR_GPU_IS_LOST); "NVML error, code 1" (T-Rex) is
	 * NVML_ERROR_UNINITIALIZED, whose description names no cause: no cause, the line is salient */
	ex = explain_text("RuntimeError: Triton Error [CUDA]: device kernel image is invalid\n"
	                  "pynvml.nvml.NVMLError_GpuIsLost: GPU is lost\n"
	                  "nvidia-container-cli: initialization error: nvml error: insufficient resources\n"
	                  "WARN: NVML error, code 1\n"
	                  "pynvml.nvml.NVMLError_NoSuchThing: no such thing\n",
	                  1 << 20);
	static const struct want_cause driver_msgs[] = {
		{ "errcode-no-kernel-image", 1, "CUDA_ERROR_INVALID_IMAGE" },
		{ "errcode-hardware", 2, "NVML_ERROR_GPU_IS_LOST" },
		{ "errcode-out-of-memory", 3, "NVML_ERROR_INSUFFICIENT_RESOURCES" },
	};
	expect_causes(ex, driver_msgs, sizeof(driver_msgs) / sizeof(driver_msgs[0]));
	assert_int_equal(cause_of(ex, "errcode-hardware")->action, GA_ACT_DRAIN);
	ga_explain_free(ex);
	/* the status lines that print a number for the code: ONNX Runtime's and TensorRT's (after its
	 * file.cpp::function::line location only); hipBLAS's and MIOpen's statuses by name; a number in
	 * no table is an unknown code, never guessed */
	ex = explain_text(
	        "x.py: onnxruntime.capi.onnxruntime_pybind11_state.NoSuchFile: [ONNXRuntimeError] : 3 : "
	        "NO_SUCHFILE : Load model from m.onnx failed\n"
	        "[TRT] [E] 5: [allocator.cpp::allocate::20] Error Code 5: Internal Error (no memory)\n"
	        "hipblasSgemm returned HIPBLAS_STATUS_ARCH_MISMATCH\n"
	        "MIOpen Error: miopenStatusUnsupportedOp\n"
	        "Error Code 5: not TensorRT's form without its location\n",
	        1 << 20);
	static const struct want_cause status_forms[] = {
		{ "errcode-runtime-incomplete", 1, "ORT_NO_SUCHFILE" },
		{ "errcode-out-of-memory", 2, "kFAILED_ALLOCATION" },
		{ "errcode-no-kernel-image", 3, "HIPBLAS_STATUS_ARCH_MISMATCH" },
		{ "errcode-not-supported", 4, "miopenStatusUnsupportedOp" },
	};
	expect_causes(ex, status_forms, sizeof(status_forms) / sizeof(status_forms[0]));
	ga_explain_free(ex);
	ex = explain_text("[ONNXRuntimeError] : 99 : NO_SUCH_CODE : x\n", 1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	size_t ns = 0;
	size_t all = 0;
	const struct ga_explain_salient *sl = ga_explain_salient_lines(ex, &ns, &all);
	assert_int_equal(ns, 1);
	assert_non_null(strstr(sl[0].code, "OrtErrorCode 99: not in the tables"));
	ga_explain_free(ex);
	/* a code a signature names takes the signature's cause, not its group's: the launch
	 * timeout is the display watchdog's (cuda-launch-timeout-watchdog), by name or message */
	ex = explain_text("CUDA_ERROR_LAUNCH_TIMEOUT from cuLaunchKernel\n"
	                  "RuntimeError: CUDA error: the launch timed out and was terminated\n",
	                  1 << 20);
	assert_null(cause_of(ex, "errcode-launch-failed"));
	c = cause_of(ex, "cuda-launch-timeout-watchdog");
	assert_non_null(c);
	assert_int_equal(c->first_line, 1);
	assert_int_equal(c->action, GA_ACT_FIX_CONFIG);
	ga_explain_free(ex);
	/* the THC form (PyTorch before 1.0, Lua Torch's cutorch): the message after "cuda runtime
	 * error (N) : " or "THCudaCheck FAIL ... : " names the code, whatever N was in that CUDA
	 * release (invalid device function was 8 before 98); a text that is no message stays unmatched */
	ex = explain_text(
	        "THCudaCheck FAIL file=/a/THCTensorCopy.cu line=204 error=8 : invalid device function\n"
	        "RuntimeError: cuda runtime error (2) : out of memory at /a/THCStorage.cu:58\n"
	        "RuntimeError: cuda runtime error (7) : not a message of libcudart at /a/b.cu:1\n",
	        1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 2);
	/* "invalid device function" in any wording is cuda-no-kernel-image's own pattern (h36-train),
	 * which outranks the code's group row (the same class and action) */
	c = cause_of(ex, "cuda-no-kernel-image");
	assert_non_null(c);
	assert_int_equal(c->first_line, 1);
	assert_int_equal(c->action, GA_ACT_FIX_CONFIG);
	/* the out-of-memory line is read through its message: the code is captured */
	c = cause_of(ex, "gpu-out-of-memory");
	assert_non_null(c);
	assert_int_equal(c->first_line, 2);
	assert_int_equal(c->last_line, 2);
	assert_string_equal(ga_capture_get(c->values, c->n_values, "code"), "cudaErrorMemoryAllocation");
	ga_explain_free(ex);
	/* "unknown error" is cudaErrorUnknown's own text (not a fallback of another code): after the
	 * THC prefix with CUDA 9's number 30, and after darknet's "CUDA Error: " */
	ex = explain_text("RuntimeError: cuda runtime error (30) : unknown error at /a/THCGeneral.cpp:51\n"
	                  "CUDA Error: unknown error: No error\n",
	                  1 << 20);
	c = expect_cause(ex, "cuda-unknown-error", 1, "cudaErrorUnknown");
	assert_int_equal(c->last_line, 2);
	ga_explain_free(ex);
}

/* No cause: the salient lines, the same however the input is cut; unknown codes stay unknown. */
static void test_explain_inconclusive(void **state)
{
	(void)state;
	const char *log = "INFO start (no errors)\n"
	                  "WARN fetch failed, retrying\n"
	                  "ERROR rank 3: hipErrorSomethingNew\n"
	                  "Traceback (most recent call last):\n"
	                  "ValueError: shapes do not match\n"
	                  "ERROR cublasLt returned CUBLAS_STATUS_INTERNAL_ERROR\n"
	                  "FATAL: worker died\n"
	                  "error: a\nerror: b\n";
	struct ga_explain *whole = explain_text(log, 1 << 20), *cut = explain_text(log, 7);
	assert_int_equal(ga_explain_match_count(whole), 0);
	size_t n = 0, m = 0;
	uint64_t total = 0, total2 = 0;
	size_t nc = 0;
	ga_explain_causes(whole, &nc);
	ga_explain_causes(cut, &nc);
	assert_int_equal(nc, 0);
	const struct ga_explain_salient *s = ga_explain_salient_lines(whole, &n, &total);
	const struct ga_explain_salient *t = ga_explain_salient_lines(cut, &m, &total2);
	assert_int_equal(n, GA_EXPLAIN_SALIENT_MAX);
	assert_int_equal(total, 8);
	assert_int_equal(n, m);
	assert_int_equal(total, total2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].line, t[i].line);
		assert_int_equal(s[i].score, t[i].score);
		assert_string_equal(s[i].code, t[i].code);
		assert_string_equal(s[i].text, t[i].text);
	}
	/* kept: the fatal line, the exception, the two codes, the first plain error; in line order */
	assert_int_equal(s[0].line, 3);
	assert_string_equal(s[0].code, "hipErrorSomethingNew: not in the tables (unknown code)");
	assert_string_equal(s[0].component, "HIP runtime");
	assert_int_equal(s[1].line, 5);
	assert_int_equal(s[2].line, 6);
	assert_non_null(strstr(s[2].code, "names no cause"));
	assert_int_equal(s[3].line, 7);
	assert_int_equal(s[4].line, 8);
	ga_explain_free(whole);
	ga_explain_free(cut);
}

/* Vulkan's codes by name, in Vulkan-Hpp's two forms, after TVM's VK_SUCCESS check; NVRTC's by name;
 * the device lost is inconclusive (no one cause), a number is never guessed into a Vulkan code */
static void test_explain_vulkan_nvrtc(void **state)
{
	(void)state;
	struct ga_explain *ex =
	        explain_text("vkCreateInstance failed: VK_ERROR_LAYER_NOT_PRESENT\n"
	                     "what():  vk::PhysicalDevice::createDevice: ErrorFeatureNotPresent\n"
	                     "terminate called after throwing an instance of 'vk::IncompatibleDriverError'\n"
	                     "Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code=-1: "
	                     "VK_ERROR_OUT_OF_HOST_MEMORY\n"
	                     "cupy.cuda.compiler.CompileException: NVRTC_ERROR_COMPILATION (6)\n"
	                     "vk::Queue::submit: ErrorSomethingNew\n"
	                     "ErrorFeatureNotPresent without the binding's namespace\n",
	                     1 << 20);
	static const struct want_cause w[] = {
		{ "errcode-runtime-incomplete", 1, "VK_ERROR_LAYER_NOT_PRESENT" },
		{ "errcode-not-supported", 2, "VK_ERROR_FEATURE_NOT_PRESENT" },
		{ "vulkan-loader-no-driver", 3, "VK_ERROR_INCOMPATIBLE_DRIVER" },
		{ "errcode-out-of-memory", 4, "VK_ERROR_OUT_OF_HOST_MEMORY" },
		{ "errcode-no-kernel-image", 5, "NVRTC_ERROR_COMPILATION" },
	};
	expect_causes(ex, w, sizeof(w) / sizeof(w[0]));
	ga_explain_free(ex);
	ex = explain_text("terminate called after throwing an instance of 'vk::DeviceLostError'\n"
	                  "  what():  vk::Queue::submit: ErrorDeviceLost\n",
	                  1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	size_t ns = 0, all = 0;
	const struct ga_explain_salient *sl = ga_explain_salient_lines(ex, &ns, &all);
	assert_true(ns >= 1);
	assert_non_null(strstr(sl[0].code, "VK_ERROR_DEVICE_LOST = -4 (Vulkan VkResult)"));
	assert_non_null(strstr(sl[0].code, "names no cause"));
	ga_explain_free(ex);
}

/* Intel's SYCL runtime (h65-tintel): UR and PI names from their own tables (DPC++'s "Native API
 * returns: N (NAME)" and Unified Runtime's "... failed with error: N [NAME]"), UR_RESULT_SUCCESS
 * before the error skipped, errc only as errc::NAME (a bare "build" or "runtime" is no code) */
static void test_explain_sycl(void **state)
{
	(void)state;
	struct ga_explain *ex = explain_text(
	        "level_zero backend failed with error: 42 (UR_RESULT_ERROR_PROGRAM_LINK_FAILURE)\n"
	        "what():  Native API failed. Native API returns: -997 (PI_ERROR_COMMAND_EXECUTION_FAILURE)\n"
	        "check failed: expected UR_RESULT_SUCCESS, got UR_RESULT_ERROR_LAYER_NOT_PRESENT\n"
	        "caught sycl::exception, code() == sycl::errc::kernel_not_supported\n"
	        "the runtime build event failed on this platform\n"
	        "Native API returns: -1001 (PI_ERROR_PLATFORM_NOT_FOUND_KHR)\n",
	        1 << 20);
	static const struct want_cause w[] = {
		{ "errcode-no-kernel-image", 1, "UR_RESULT_ERROR_PROGRAM_LINK_FAILURE" },
		{ "errcode-launch-failed", 2, "PI_ERROR_COMMAND_EXECUTION_FAILURE" },
		{ "errcode-runtime-incomplete", 3, "UR_RESULT_ERROR_LAYER_NOT_PRESENT" },
		{ "errcode-not-supported", 4, "errc::kernel_not_supported" },
		{ "errcode-driver-missing", 6, "PI_ERROR_PLATFORM_NOT_FOUND_KHR" },
	};
	expect_causes(ex, w, sizeof(w) / sizeof(w[0]));
	ga_explain_free(ex);
	/* the errc that names no cause is inconclusive */
	ex = explain_text("terminate called after throwing an instance of 'sycl::_V1::exception'\n"
	                  "  what():  errc::runtime raised\n",
	                  1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	ga_explain_free(ex);
}

/* CUPTI's, cuRAND's and nvJitLink's codes by name (h66-tnvlibs): the profiler's permission case
 * (the row cupti-counters-restricted, the code's own; its VIRTUALIZED twin keeps errcode-permission),
 * another tool holding CUPTI, nvJitLink's PTX compile, cuRAND's version mismatch; cuRAND's
 * initialization failure keeps the signature curand-init-failed; CUPTI's message string (from
 * cuptiGetErrorMessage) is its code's */
static void test_explain_cupti_curand_nvjitlink(void **state)
{
	(void)state;
	struct ga_explain *ex = explain_text(
	        "cupti_tracer.cc:1730] function cupti_interface_->Subscribe( &subscriber_, "
	        "(CUpti_CallbackFunc)ApiCallback, this)failed with error "
	        "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES\n"
	        "CUPTI call failed with error CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\n"
	        "RuntimeError: nvJitLink error: NVJITLINK_ERROR_PTX_COMPILE\n"
	        "curandCreateGenerator failed: CURAND_STATUS_VERSION_MISMATCH\n"
	        "ERROR: CURANDError: initialization of CUDA failed (code 203, "
	        "CURAND_STATUS_INITIALIZATION_FAILED)\n"
	        "warning: CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE\n"
	        "cuptiProfilerInitialize: CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES\n",
	        1 << 20);
	static const struct want_cause w[] = {
		{ "cupti-counters-restricted", 1, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" },
		{ "cupti-profiler-conflict", 2, NULL },
		{ "errcode-no-kernel-image", 3, "NVJITLINK_ERROR_PTX_COMPILE" },
		{ "errcode-driver-too-old", 4, "CURAND_STATUS_VERSION_MISMATCH" },
		{ "curand-init-failed", 5, NULL },
		{ "errcode-permission", 7, "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES" },
	};
	expect_causes(ex, w, sizeof(w) / sizeof(w[0]));
	ga_explain_free(ex);
	/* no cause named: CUPTI_ERROR_NOT_INITIALIZED says what failed, not why */
	ex = explain_text("cupti_tracer.cc:1000] failed with error CUPTI_ERROR_NOT_INITIALIZED\n", 1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	ga_explain_free(ex);
	struct ga_errcode_index ix;
	assert_int_equal(ga_errcode_index_init(&ix), 0);
	long k = ga_errcode_lookup(&ix, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", 35);
	assert_true(k >= 0);
	assert_non_null(ga_errcode_message(&ix, (size_t)k));
	assert_non_null(strstr(ga_errcode_message(&ix, (size_t)k), "NVIDIA GPU performance counters"));
	k = ga_errcode_lookup(&ix, "CUPTI_ERROR_NOT_INITIALIZED", 27);
	assert_true(k >= 0);
	assert_null(ga_errcode_message(&ix, (size_t)k));
	ga_errcode_index_release(&ix);
}

/* h67-trocm: ROCm SMI's and AMD SMI's statuses, rocSPARSE's, hipSPARSE's, rocFFT's, hipFFT's,
 * rocRAND's, hipRAND's and hipSOLVER's: names and numbers as the headers define them, the groups
 * their comments give (the hip* twins of cuSPARSE's and cuFFT's codes keep the twin's group), and
 * explain's answer for a line that names one */
static void test_rocm_smi_libs(void **state)
{
	(void)state;
	struct ga_errcode_index ix;
	assert_int_equal(ga_errcode_index_init(&ix), 0);
	expect(&ix, "RSMI_STATUS_SUCCESS", GA_ECF_RSMI, 0, GA_ECG_NOT_ERROR);
	expect(&ix, "RSMI_STATUS_NOT_SUPPORTED", GA_ECF_RSMI, 2, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "RSMI_STATUS_FILE_ERROR", GA_ECF_RSMI, 3, GA_ECG_UNSPECIFIED);
	expect(&ix, "RSMI_STATUS_PERMISSION", GA_ECF_RSMI, 4, GA_ECG_PERMISSION);
	expect(&ix, "RSMI_STATUS_INIT_ERROR", GA_ECF_RSMI, 8, GA_ECG_UNSPECIFIED);
	expect(&ix, "RSMI_INITIALIZATION_ERROR", GA_ECF_RSMI, 8, GA_ECG_UNSPECIFIED);
	expect(&ix, "RSMI_STATUS_INSUFFICIENT_SIZE", GA_ECF_RSMI, 11, GA_ECG_API_MISUSE);
	expect(&ix, "RSMI_STATUS_NO_DATA", GA_ECF_RSMI, 14, GA_ECG_NOT_ERROR);
	expect(&ix, "RSMI_STATUS_BUSY", GA_ECF_RSMI, 16, GA_ECG_DEVICE_BUSY);
	expect(&ix, "RSMI_STATUS_AMDGPU_RESTART_ERR", GA_ECF_RSMI, 19, GA_ECG_DRIVER_MISSING);
	expect(&ix, "RSMI_STATUS_DRM_ERROR", GA_ECF_RSMI, 20, GA_ECG_UNSPECIFIED);
	expect(&ix, "RSMI_STATUS_FAIL_LOAD_MODULE", GA_ECF_RSMI, 21, GA_ECG_RUNTIME_INSTALL);
	expect(&ix, "RSMI_STATUS_UNKNOWN_ERROR", GA_ECF_RSMI, 0xFFFFFFFFll, GA_ECG_UNSPECIFIED);
	expect(&ix, "AMDSMI_STATUS_INVAL", GA_ECF_AMDSMI, 1, GA_ECG_API_MISUSE);
	expect(&ix, "AMDSMI_STATUS_NO_PERM", GA_ECF_AMDSMI, 10, GA_ECG_PERMISSION);
	expect(&ix, "AMDSMI_STATUS_OUT_OF_RESOURCES", GA_ECF_AMDSMI, 15, GA_ECG_OOM);
	expect(&ix, "AMDSMI_STATUS_NOT_FOUND", GA_ECF_AMDSMI, 31, GA_ECG_NO_DEVICE);
	expect(&ix, "AMDSMI_STATUS_NOT_INIT", GA_ECF_AMDSMI, 32, GA_ECG_UNSPECIFIED);
	expect(&ix, "AMDSMI_STATUS_DRIVER_NOT_LOADED", GA_ECF_AMDSMI, 34, GA_ECG_DRIVER_MISSING);
	expect(&ix, "AMDSMI_STATUS_NO_HSMP_DRV", GA_ECF_AMDSMI, 47, GA_ECG_DRIVER_MISSING);
	expect(&ix, "AMDSMI_STATUS_FILE_NOT_FOUND", GA_ECF_AMDSMI, 52, GA_ECG_UNSPECIFIED);
	expect(&ix, "AMDSMI_STATUS_MAP_ERROR", GA_ECF_AMDSMI, 0xFFFFFFFEll, GA_ECG_UNSPECIFIED);
	expect(&ix, "rocsparse_status_memory_error", GA_ECF_ROCSPARSE, 5, GA_ECG_OOM);
	expect(&ix, "rocsparse_status_arch_mismatch", GA_ECF_ROCSPARSE, 8, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "rocsparse_status_requires_sorted_storage", GA_ECF_ROCSPARSE, 12, GA_ECG_API_MISUSE);
	expect(&ix, "HIPSPARSE_STATUS_ARCH_MISMATCH", GA_ECF_HIPSPARSE, 4, GA_ECG_NO_KERNEL_IMAGE);
	expect(&ix, "HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES", GA_ECF_HIPSPARSE, 11, GA_ECG_OOM);
	expect(&ix, "rocfft_status_failure", GA_ECF_ROCFFT, 1, GA_ECG_UNSPECIFIED);
	expect(&ix, "rocfft_status_invalid_work_buffer", GA_ECF_ROCFFT, 8, GA_ECG_API_MISUSE);
	expect(&ix, "HIPFFT_EXEC_FAILED", GA_ECF_HIPFFT, 6, GA_ECG_LAUNCH);
	expect(&ix, "HIPFFT_PARSE_ERROR", GA_ECF_HIPFFT, 12, GA_ECG_UNSPECIFIED);
	expect(&ix, "HIPFFT_NOT_SUPPORTED", GA_ECF_HIPFFT, 16, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "ROCRAND_STATUS_VERSION_MISMATCH", GA_ECF_ROCRAND, 100, GA_ECG_DRIVER_TOO_OLD);
	expect(&ix, "ROCRAND_STATUS_DOUBLE_PRECISION_REQUIRED", GA_ECF_ROCRAND, 106, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "ROCRAND_STATUS_LAUNCH_FAILURE", GA_ECF_ROCRAND, 107, GA_ECG_LAUNCH);
	expect(&ix, "HIPRAND_STATUS_INITIALIZATION_FAILED", GA_ECF_HIPRAND, 203, GA_ECG_DRIVER_MISSING);
	expect(&ix, "HIPRAND_STATUS_ARCH_MISMATCH", GA_ECF_HIPRAND, 204, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "HIPRAND_STATUS_NOT_IMPLEMENTED", GA_ECF_HIPRAND, 1000, GA_ECG_NOT_SUPPORTED);
	expect(&ix, "HIPSOLVER_STATUS_HANDLE_IS_NULLPTR", GA_ECF_HIPSOLVER, 9, GA_ECG_API_MISUSE);
	expect(&ix, "HIPSOLVER_STATUS_UNKNOWN", GA_ECF_HIPSOLVER, 11, GA_ECG_UNSPECIFIED);
	expect(&ix, "HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", GA_ECF_HIPSOLVER, 13, GA_ECG_NOT_SUPPORTED);
	/* the alias keeps its number's first name; a transform direction is no code */
	long k = ga_errcode_lookup_number(&ix, GA_ECF_RSMI, 8);
	assert_true(k >= 0);
	assert_string_equal(ga_errcode_get((size_t)k)->name, "RSMI_STATUS_INIT_ERROR");
	assert_int_equal(lookup(&ix, "HIPFFT_FORWARD"), -1);
	assert_int_equal(ga_errcode_error_prefix("RSMI_STATUS_SOMETHING_NEW", 25), GA_ECF_RSMI);
	assert_int_equal(ga_errcode_error_prefix("AMDSMI_STATUS_X", 15), GA_ECF_AMDSMI);
	assert_int_equal(ga_errcode_error_prefix("AMDSMI_CLK_TYPE_SYS", 19), GA_ECF__COUNT);
	assert_int_equal(ga_errcode_error_prefix("HIPFFT_SOMETHING", 16), GA_ECF__COUNT);
	ga_errcode_index_release(&ix);

	struct ga_explain *ex =
	        explain_text("rsmi_dev_power_cap_set returned RSMI_STATUS_PERMISSION\n"
	                     "AmdSmiLibraryException: Error code: 34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - "
	                     "Processor driver not loaded\n"
	                     "rocsparse_spmv failed: rocsparse_status_arch_mismatch\n"
	                     "hipfftExecC2C returned HIPFFT_ALLOC_FAILED\n"
	                     "rocrand_generate_normal_double: ROCRAND_STATUS_DOUBLE_PRECISION_REQUIRED\n"
	                     "hipsolverDnDgetrf failed with HIPSOLVER_STATUS_HANDLE_IS_NULLPTR\n",
	                     1 << 20);
	static const struct want_cause w[] = {
		{ "errcode-permission", 1, "RSMI_STATUS_PERMISSION" },
		{ "errcode-driver-missing", 2, "AMDSMI_STATUS_DRIVER_NOT_LOADED" },
		{ "errcode-no-kernel-image", 3, "rocsparse_status_arch_mismatch" },
		{ "errcode-out-of-memory", 4, "HIPFFT_ALLOC_FAILED" },
		{ "errcode-not-supported", 5, "ROCRAND_STATUS_DOUBLE_PRECISION_REQUIRED" },
		{ "errcode-invalid-usage", 6, "HIPSOLVER_STATUS_HANDLE_IS_NULLPTR" },
	};
	expect_causes(ex, w, sizeof(w) / sizeof(w[0]));
	ga_explain_free(ex);
	/* the init error names no cause: inconclusive, with the code and its table */
	ex = explain_text("- status #8: RSMI_STATUS_INIT_ERROR: An error occurred during initialization\n",
	                  1 << 20);
	assert_int_equal(ga_explain_match_count(ex), 0);
	size_t ns = 0, all = 0;
	const struct ga_explain_salient *sl = ga_explain_salient_lines(ex, &ns, &all);
	assert_true(ns >= 1);
	assert_non_null(strstr(sl[0].code, "RSMI_STATUS_INIT_ERROR = 8 (ROCm SMI rsmi_status_t)"));
	assert_non_null(strstr(sl[0].code, "names no cause"));
	ga_explain_free(ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_names_in_headers),
		cmocka_unit_test(test_tables_match_headers),
		cmocka_unit_test(test_explain_codes),
		cmocka_unit_test(test_explain_exit_status),
		cmocka_unit_test(test_explain_inconclusive),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_explain_messages),
		cmocka_unit_test(test_explain_vulkan_nvrtc),
		cmocka_unit_test(test_lookup_sycl),
		cmocka_unit_test(test_explain_sycl),
		cmocka_unit_test(test_explain_cupti_curand_nvjitlink),
		cmocka_unit_test(test_rocm_smi_libs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
