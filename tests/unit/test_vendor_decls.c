/*
 * test_vendor_decls.c - our own declarations of vendor APIs (lib/dl/
 * opencl_types.h, cuda_types.h) compiled next to the real headers when they
 * are installed: every function type and constant must match, or this file
 * does not compile. OpenCL and CLBlast headers come from Debian
 * (opencl-c-headers, libclblast-dev); the CUDA toolkit's cuda.h, cublas_api.h
 * and nccl.h are used when tests/CMakeLists.txt found /usr/local/cuda/include
 * (GA_HAVE_CUDA_HEADERS). HIP, rocBLAS and ROCm SMI are checked in
 * test_vendor_decls_amd.c: HIP's vector types clash with CUDA's in one
 * translation unit. The run-time test only reports which sets were checked,
 * and skips when none was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dl/cuda_types.h"
#include "dl/opencl_types.h"

#define SAME_TYPE(real, ours) _Static_assert(__builtin_types_compatible_p(__typeof__(real), ours), #real)
#define SAME_VALUE(real, ours) _Static_assert((long long)(real) == (long long)(ours), #real)

#if __has_include(<CL/cl.h>)
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#define HAVE_CL 1
SAME_TYPE(&clGetPlatformIDs, ga_clGetPlatformIDs_fn);
SAME_TYPE(&clGetPlatformInfo, ga_clGetPlatformInfo_fn);
SAME_TYPE(&clGetDeviceIDs, ga_clGetDeviceIDs_fn);
SAME_TYPE(&clGetDeviceInfo, ga_clGetDeviceInfo_fn);
SAME_TYPE(&clCreateContext, ga_clCreateContext_fn);
SAME_TYPE(&clReleaseContext, ga_clReleaseContext_fn);
SAME_TYPE(&clCreateCommandQueue, ga_clCreateCommandQueue_fn);
SAME_TYPE(&clReleaseCommandQueue, ga_clReleaseCommandQueue_fn);
SAME_TYPE(&clCreateBuffer, ga_clCreateBuffer_fn);
SAME_TYPE(&clReleaseMemObject, ga_clReleaseMemObject_fn);
SAME_TYPE(&clEnqueueWriteBuffer, ga_clEnqueueWriteBuffer_fn);
SAME_TYPE(&clEnqueueReadBuffer, ga_clEnqueueReadBuffer_fn);
SAME_TYPE(&clEnqueueCopyBuffer, ga_clEnqueueCopyBuffer_fn);
SAME_TYPE(&clEnqueueMapBuffer, ga_clEnqueueMapBuffer_fn);
SAME_TYPE(&clEnqueueUnmapMemObject, ga_clEnqueueUnmapMemObject_fn);
SAME_TYPE(&clCreateProgramWithSource, ga_clCreateProgramWithSource_fn);
SAME_TYPE(&clBuildProgram, ga_clBuildProgram_fn);
SAME_TYPE(&clGetProgramBuildInfo, ga_clGetProgramBuildInfo_fn);
SAME_TYPE(&clReleaseProgram, ga_clReleaseProgram_fn);
SAME_TYPE(&clCreateKernel, ga_clCreateKernel_fn);
SAME_TYPE(&clReleaseKernel, ga_clReleaseKernel_fn);
SAME_TYPE(&clSetKernelArg, ga_clSetKernelArg_fn);
SAME_TYPE(&clEnqueueNDRangeKernel, ga_clEnqueueNDRangeKernel_fn);
SAME_TYPE(&clFinish, ga_clFinish_fn);
SAME_VALUE(CL_SUCCESS, GA_CL_SUCCESS);
SAME_VALUE(CL_DEVICE_NOT_FOUND, GA_CL_DEVICE_NOT_FOUND);
SAME_VALUE(CL_BUILD_PROGRAM_FAILURE, GA_CL_BUILD_PROGRAM_FAILURE);
SAME_VALUE(CL_PLATFORM_NOT_FOUND_KHR, GA_CL_PLATFORM_NOT_FOUND_KHR);
SAME_VALUE(CL_TRUE, GA_CL_TRUE);
SAME_VALUE(CL_PLATFORM_VERSION, GA_CL_PLATFORM_VERSION);
SAME_VALUE(CL_PLATFORM_NAME, GA_CL_PLATFORM_NAME);
SAME_VALUE(CL_DEVICE_TYPE_CPU, GA_CL_DEVICE_TYPE_CPU);
SAME_VALUE(CL_DEVICE_TYPE_GPU, GA_CL_DEVICE_TYPE_GPU);
SAME_VALUE(CL_DEVICE_TYPE_ALL, GA_CL_DEVICE_TYPE_ALL);
SAME_VALUE(CL_DEVICE_TYPE, GA_CL_DEVICE_TYPE);
SAME_VALUE(CL_DEVICE_MAX_WORK_GROUP_SIZE, GA_CL_DEVICE_MAX_WORK_GROUP_SIZE);
SAME_VALUE(CL_DEVICE_MAX_MEM_ALLOC_SIZE, GA_CL_DEVICE_MAX_MEM_ALLOC_SIZE);
SAME_VALUE(CL_DEVICE_GLOBAL_MEM_SIZE, GA_CL_DEVICE_GLOBAL_MEM_SIZE);
SAME_VALUE(CL_DEVICE_NAME, GA_CL_DEVICE_NAME);
SAME_VALUE(CL_DRIVER_VERSION, GA_CL_DRIVER_VERSION);
SAME_VALUE(CL_DEVICE_VERSION, GA_CL_DEVICE_VERSION);
SAME_VALUE(CL_DEVICE_EXTENSIONS, GA_CL_DEVICE_EXTENSIONS);
SAME_VALUE(CL_DEVICE_DOUBLE_FP_CONFIG, GA_CL_DEVICE_DOUBLE_FP_CONFIG);
SAME_VALUE(CL_MEM_READ_WRITE, GA_CL_MEM_READ_WRITE);
SAME_VALUE(CL_MEM_ALLOC_HOST_PTR, GA_CL_MEM_ALLOC_HOST_PTR);
SAME_VALUE(CL_MAP_READ, GA_CL_MAP_READ);
SAME_VALUE(CL_MAP_WRITE, GA_CL_MAP_WRITE);
SAME_VALUE(CL_PROGRAM_BUILD_LOG, GA_CL_PROGRAM_BUILD_LOG);
#ifdef CL_DEVICE_PCI_BUS_ID_NV
SAME_VALUE(CL_DEVICE_PCI_BUS_ID_NV, GA_CL_DEVICE_PCI_BUS_ID_NV);
SAME_VALUE(CL_DEVICE_PCI_SLOT_ID_NV, GA_CL_DEVICE_PCI_SLOT_ID_NV);
#endif
#ifdef CL_DEVICE_PCI_DOMAIN_ID_NV
SAME_VALUE(CL_DEVICE_PCI_DOMAIN_ID_NV, GA_CL_DEVICE_PCI_DOMAIN_ID_NV);
#endif
#endif

#if defined(HAVE_CL) && __has_include(<clblast_c.h>)
#include <clblast_c.h>
#define HAVE_CLBLAST 1
SAME_VALUE(CLBlastSuccess, GA_CLBLAST_SUCCESS);
SAME_VALUE(CLBlastLayoutRowMajor, GA_CLBLAST_ROW_MAJOR);
SAME_VALUE(CLBlastTransposeNo, GA_CLBLAST_TRANSPOSE_NO);
SAME_TYPE(&CLBlastSgemm, ga_CLBlastSgemm_fn);
SAME_TYPE(&CLBlastDgemm, ga_CLBlastDgemm_fn);
SAME_TYPE(&CLBlastHgemm, ga_CLBlastHgemm_fn);
_Static_assert(sizeof(ga_cl_half) == sizeof(cl_half), "cl_half");
#endif

#ifdef GA_HAVE_CUDA_HEADERS
#include <cublas_api.h>
#include <cuda.h>
#include <nccl.h>
SAME_TYPE(&cuInit, ga_cuInit_fn);
SAME_TYPE(&cuDriverGetVersion, ga_cuDriverGetVersion_fn);
SAME_TYPE(&cuDeviceGetCount, ga_cuDeviceGetCount_fn);
SAME_TYPE(&cuDeviceGet, ga_cuDeviceGet_fn);
SAME_TYPE(&cuDeviceGetName, ga_cuDeviceGetName_fn);
SAME_TYPE(&cuDeviceTotalMem_v2, ga_cuDeviceTotalMem_v2_fn);
SAME_TYPE(&cuDeviceGetPCIBusId, ga_cuDeviceGetPCIBusId_fn);
SAME_TYPE(&cuDevicePrimaryCtxRetain, ga_cuDevicePrimaryCtxRetain_fn);
SAME_TYPE(&cuDevicePrimaryCtxRelease_v2, ga_cuDevicePrimaryCtxRelease_v2_fn);
SAME_TYPE(&cuCtxSetCurrent, ga_cuCtxSetCurrent_fn);
SAME_TYPE(&cuCtxSynchronize, ga_cuCtxSynchronize_fn);
SAME_TYPE(&cuMemAlloc_v2, ga_cuMemAlloc_v2_fn);
SAME_TYPE(&cuMemFree_v2, ga_cuMemFree_v2_fn);
SAME_TYPE(&cuMemAllocHost_v2, ga_cuMemAllocHost_v2_fn);
SAME_TYPE(&cuMemFreeHost, ga_cuMemFreeHost_fn);
SAME_TYPE(&cuMemcpyHtoDAsync_v2, ga_cuMemcpyHtoDAsync_v2_fn);
SAME_TYPE(&cuMemcpyDtoHAsync_v2, ga_cuMemcpyDtoHAsync_v2_fn);
SAME_TYPE(&cuMemcpyDtoDAsync_v2, ga_cuMemcpyDtoDAsync_v2_fn);
SAME_TYPE(&cuMemcpyHtoD_v2, ga_cuMemcpyHtoD_v2_fn);
SAME_TYPE(&cuMemcpyPeerAsync, ga_cuMemcpyPeerAsync_fn);
SAME_TYPE(&cuMemcpyDtoH_v2, ga_cuMemcpyDtoH_v2_fn);
SAME_TYPE(&cuGetErrorString, ga_cuGetErrorString_fn);
SAME_TYPE(&cuModuleLoadData, ga_cuModuleLoadData_fn);
SAME_TYPE(&cuModuleUnload, ga_cuModuleUnload_fn);
SAME_TYPE(&cuModuleGetFunction, ga_cuModuleGetFunction_fn);
SAME_TYPE(&cuLaunchKernel, ga_cuLaunchKernel_fn);
SAME_TYPE(CUmodule, ga_CUmodule);
SAME_TYPE(CUfunction, ga_CUfunction);
SAME_TYPE(CUdeviceptr, ga_CUdeviceptr);
SAME_TYPE(CUdevice, ga_CUdevice);
SAME_TYPE(CUcontext, ga_CUcontext);
SAME_TYPE(CUstream, ga_CUstream);
SAME_VALUE(CUDA_SUCCESS, GA_CUDA_SUCCESS);
SAME_VALUE(CUDA_ERROR_NOT_INITIALIZED, GA_CUDA_ERROR_NOT_INITIALIZED);
SAME_VALUE(CUDA_ERROR_NO_DEVICE, GA_CUDA_ERROR_NO_DEVICE);
SAME_TYPE(&cublasCreate_v2, ga_cublasCreate_v2_fn);
SAME_TYPE(&cublasDestroy_v2, ga_cublasDestroy_v2_fn);
SAME_TYPE(&cublasGetProperty, ga_cublasGetProperty_fn);
/* cublasGemmEx is also a static inline overload in C++ only; in C the declaration is the export. */
SAME_TYPE(&cublasGemmEx, ga_cublasGemmEx_fn);
SAME_VALUE(CUBLAS_STATUS_SUCCESS, GA_CUBLAS_STATUS_SUCCESS);
SAME_VALUE(CUBLAS_OP_N, GA_CUBLAS_OP_N);
SAME_VALUE(CUBLAS_GEMM_DEFAULT, GA_CUBLAS_GEMM_DEFAULT);
SAME_VALUE(CUBLAS_COMPUTE_32F, GA_CUBLAS_COMPUTE_32F);
SAME_VALUE(CUBLAS_COMPUTE_64F, GA_CUBLAS_COMPUTE_64F);
SAME_VALUE(CUDA_R_32F, GA_CUDA_R_32F);
SAME_VALUE(CUDA_R_64F, GA_CUDA_R_64F);
SAME_VALUE(CUDA_R_16F, GA_CUDA_R_16F);
SAME_VALUE(CUDA_R_16BF, GA_CUDA_R_16BF);
SAME_VALUE(MAJOR_VERSION, GA_MAJOR_VERSION);
SAME_VALUE(MINOR_VERSION, GA_MINOR_VERSION);
SAME_VALUE(PATCH_LEVEL, GA_PATCH_LEVEL);
SAME_TYPE(&ncclGetVersion, ga_ncclGetVersion_fn);
SAME_TYPE(&ncclCommInitAll, ga_ncclCommInitAll_fn);
SAME_TYPE(&ncclCommDestroy, ga_ncclCommDestroy_fn);
SAME_TYPE(&ncclGroupStart, ga_ncclGroupStart_fn);
SAME_TYPE(&ncclGroupEnd, ga_ncclGroupEnd_fn);
SAME_TYPE(&ncclGetErrorString, ga_ncclGetErrorString_fn);
SAME_TYPE(&ncclAllReduce, ga_ncclAllReduce_fn);
SAME_TYPE(&ncclAllGather, ga_ncclAllGather_fn);
SAME_VALUE(ncclSuccess, GA_NCCL_SUCCESS);
SAME_VALUE(ncclSum, GA_NCCL_SUM);
SAME_VALUE(ncclFloat32, GA_NCCL_FLOAT32);
#endif

static void checked_sets(void **state)
{
	(void)state;
	int sets = 0;
#ifdef HAVE_CL
	sets++;
	print_message("OpenCL declarations checked against CL/cl.h\n");
#endif
#ifdef HAVE_CLBLAST
	sets++;
	print_message("CLBlast declarations checked against clblast_c.h\n");
#endif
#ifdef GA_HAVE_CUDA_HEADERS
	sets++;
	print_message("CUDA driver, cuBLAS and NCCL declarations checked against the CUDA toolkit\n");
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
