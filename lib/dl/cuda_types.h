/*
 * cuda_types.h - the subset of the CUDA driver API (libcuda.so.1), cuBLAS
 * (libcublas.so.13/12) and NCCL (libnccl.so.2, or RCCL) that the benchmarks
 * call, declared here so that no vendor header is needed to build. Enums are
 * declared as their underlying integer types, which C treats as compatible;
 * tests/unit/test_vendor_decls.c compiles these next to the CUDA toolkit's
 * cuda.h, cublas_api.h and nccl.h (when present) and checks every function
 * type and constant.
 */
#ifndef GA_CUDA_TYPES_H
#define GA_CUDA_TYPES_H

#include <stddef.h>

typedef unsigned int ga_CUresult; /* enum cudaError_enum */
typedef int ga_CUdevice;
typedef unsigned long long ga_CUdeviceptr;
typedef struct CUctx_st *ga_CUcontext;
typedef struct CUstream_st *ga_CUstream;
typedef struct CUmod_st *ga_CUmodule;
typedef struct CUfunc_st *ga_CUfunction;

#define GA_CUDA_SUCCESS 0
#define GA_CUDA_ERROR_NOT_INITIALIZED 3
#define GA_CUDA_ERROR_NO_DEVICE 100

typedef ga_CUresult (*ga_cuInit_fn)(unsigned int);
typedef ga_CUresult (*ga_cuDriverGetVersion_fn)(int *);
typedef ga_CUresult (*ga_cuDeviceGetCount_fn)(int *);
typedef ga_CUresult (*ga_cuDeviceGet_fn)(ga_CUdevice *, int);
typedef ga_CUresult (*ga_cuDeviceGetName_fn)(char *, int, ga_CUdevice);
typedef ga_CUresult (*ga_cuDeviceTotalMem_v2_fn)(size_t *, ga_CUdevice);
typedef ga_CUresult (*ga_cuDeviceGetPCIBusId_fn)(char *, int, ga_CUdevice);
typedef ga_CUresult (*ga_cuDevicePrimaryCtxRetain_fn)(ga_CUcontext *, ga_CUdevice);
typedef ga_CUresult (*ga_cuDevicePrimaryCtxRelease_v2_fn)(ga_CUdevice);
typedef ga_CUresult (*ga_cuCtxSetCurrent_fn)(ga_CUcontext);
typedef ga_CUresult (*ga_cuCtxSynchronize_fn)(void);
typedef ga_CUresult (*ga_cuMemAlloc_v2_fn)(ga_CUdeviceptr *, size_t);
typedef ga_CUresult (*ga_cuMemFree_v2_fn)(ga_CUdeviceptr);
typedef ga_CUresult (*ga_cuMemAllocHost_v2_fn)(void **, size_t);
typedef ga_CUresult (*ga_cuMemFreeHost_fn)(void *);
typedef ga_CUresult (*ga_cuMemcpyHtoDAsync_v2_fn)(ga_CUdeviceptr, const void *, size_t, ga_CUstream);
typedef ga_CUresult (*ga_cuMemcpyDtoHAsync_v2_fn)(void *, ga_CUdeviceptr, size_t, ga_CUstream);
typedef ga_CUresult (*ga_cuMemcpyDtoDAsync_v2_fn)(ga_CUdeviceptr, ga_CUdeviceptr, size_t, ga_CUstream);
typedef ga_CUresult (*ga_cuMemcpyPeerAsync_fn)(ga_CUdeviceptr, ga_CUcontext, ga_CUdeviceptr, ga_CUcontext,
                                               size_t, ga_CUstream);
typedef ga_CUresult (*ga_cuMemcpyHtoD_v2_fn)(ga_CUdeviceptr, const void *, size_t);
typedef ga_CUresult (*ga_cuMemcpyDtoH_v2_fn)(void *, ga_CUdeviceptr, size_t);
typedef ga_CUresult (*ga_cuGetErrorString_fn)(ga_CUresult, const char **);
typedef ga_CUresult (*ga_cuModuleLoadData_fn)(ga_CUmodule *, const void *);
typedef ga_CUresult (*ga_cuModuleUnload_fn)(ga_CUmodule);
typedef ga_CUresult (*ga_cuModuleGetFunction_fn)(ga_CUfunction *, ga_CUmodule, const char *);
typedef ga_CUresult (*ga_cuLaunchKernel_fn)(ga_CUfunction, unsigned int, unsigned int, unsigned int,
                                            unsigned int, unsigned int, unsigned int, unsigned int,
                                            ga_CUstream, void **, void **);

/* cuBLAS */
typedef struct cublasContext *ga_cublasHandle_t;
typedef unsigned int ga_cublasStatus_t;
#define GA_CUBLAS_STATUS_SUCCESS 0
#define GA_CUBLAS_OP_N 0
#define GA_CUBLAS_GEMM_DEFAULT (-1)
#define GA_CUBLAS_COMPUTE_32F 68
#define GA_CUBLAS_COMPUTE_64F 70
#define GA_CUDA_R_32F 0
#define GA_CUDA_R_64F 1
#define GA_CUDA_R_16F 2
#define GA_CUDA_R_16BF 14
#define GA_MAJOR_VERSION 0
#define GA_MINOR_VERSION 1
#define GA_PATCH_LEVEL 2
typedef ga_cublasStatus_t (*ga_cublasCreate_v2_fn)(ga_cublasHandle_t *);
typedef ga_cublasStatus_t (*ga_cublasDestroy_v2_fn)(ga_cublasHandle_t);
typedef ga_cublasStatus_t (*ga_cublasGetProperty_fn)(unsigned int, int *);
typedef ga_cublasStatus_t (*ga_cublasGemmEx_fn)(ga_cublasHandle_t, unsigned int, unsigned int, int, int, int,
                                                const void *, const void *, unsigned int, int, const void *,
                                                unsigned int, int, const void *, void *, unsigned int, int,
                                                unsigned int, int);

/* NCCL / RCCL */
typedef struct ncclComm *ga_ncclComm_t;
typedef unsigned int ga_ncclResult_t;
#define GA_NCCL_SUCCESS 0
#define GA_NCCL_SUM 0
#define GA_NCCL_FLOAT32 7
typedef ga_ncclResult_t (*ga_ncclGetVersion_fn)(int *);
typedef ga_ncclResult_t (*ga_ncclCommInitAll_fn)(ga_ncclComm_t *, int, const int *);
typedef ga_ncclResult_t (*ga_ncclCommDestroy_fn)(ga_ncclComm_t);
typedef ga_ncclResult_t (*ga_ncclGroupStart_fn)(void);
typedef ga_ncclResult_t (*ga_ncclGroupEnd_fn)(void);
typedef const char *(*ga_ncclGetErrorString_fn)(ga_ncclResult_t);
typedef ga_ncclResult_t (*ga_ncclAllReduce_fn)(const void *, void *, size_t, unsigned int, unsigned int,
                                               ga_ncclComm_t, ga_CUstream);
typedef ga_ncclResult_t (*ga_ncclAllGather_fn)(const void *, void *, size_t, unsigned int, ga_ncclComm_t,
                                               ga_CUstream);

#endif
