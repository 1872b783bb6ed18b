/*
 * hip_types.h - the subset of the HIP runtime (libamdhip64.so.6/.5) and
 * rocBLAS (librocblas.so.4/.3/.0) that lib/bench/backend-hip.c calls, declared
 * here so that no ROCm header is needed to build. Enums are declared as their
 * underlying integer type (all of hipError_t's and hipMemcpyKind's values are
 * non-negative, so unsigned int), which C treats as compatible;
 * tests/unit/test_vendor_decls.c compiles these next to Debian's
 * hip/hip_runtime_api.h (libamdhip64-dev) and rocblas/rocblas.h (when
 * installed: Debian 12 has no librocblas-dev) and checks every function type
 * and constant.
 */
#ifndef GA_HIP_TYPES_H
#define GA_HIP_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned int ga_hipError_t;    /* enum hipError_t */
typedef unsigned int ga_hipMemcpyKind; /* enum hipMemcpyKind */
typedef int ga_hipDevice_t;
typedef struct ihipStream_t *ga_hipStream_t;

#define GA_HIP_SUCCESS 0
#define GA_HIP_ERROR_NO_DEVICE 100
#define GA_HIP_MEMCPY_H2D 1 /* hipMemcpyHostToDevice */
#define GA_HIP_MEMCPY_D2H 2 /* hipMemcpyDeviceToHost */
#define GA_HIP_MEMCPY_D2D 3 /* hipMemcpyDeviceToDevice */

typedef ga_hipError_t (*ga_hipGetDeviceCount_fn)(int *);
typedef const char *(*ga_hipGetErrorString_fn)(ga_hipError_t);
typedef ga_hipError_t (*ga_hipRuntimeGetVersion_fn)(int *);
typedef ga_hipError_t (*ga_hipDeviceGetName_fn)(char *, int, ga_hipDevice_t);
typedef ga_hipError_t (*ga_hipDeviceGetPCIBusId_fn)(char *, int, int);
typedef ga_hipError_t (*ga_hipDeviceTotalMem_fn)(size_t *, ga_hipDevice_t);
typedef ga_hipError_t (*ga_hipSetDevice_fn)(int);
typedef ga_hipError_t (*ga_hipMalloc_fn)(void **, size_t);
typedef ga_hipError_t (*ga_hipFree_fn)(void *);
typedef ga_hipError_t (*ga_hipHostMalloc_fn)(void **, size_t, unsigned int);
typedef ga_hipError_t (*ga_hipHostFree_fn)(void *);
typedef ga_hipError_t (*ga_hipMemcpy_fn)(void *, const void *, size_t, ga_hipMemcpyKind);
typedef ga_hipError_t (*ga_hipMemcpyAsync_fn)(void *, const void *, size_t, ga_hipMemcpyKind, ga_hipStream_t);
typedef ga_hipError_t (*ga_hipDeviceSynchronize_fn)(void);

/* rocBLAS (rocblas-types.h, rocblas-functions.h) */
typedef unsigned int ga_rocblas_status;    /* enum rocblas_status */
typedef unsigned int ga_rocblas_operation; /* enum rocblas_operation */
typedef unsigned int ga_rocblas_datatype;  /* enum rocblas_datatype */
typedef unsigned int ga_rocblas_gemm_algo; /* enum rocblas_gemm_algo */
typedef int32_t ga_rocblas_int;
typedef struct _rocblas_handle *ga_rocblas_handle;

#define GA_ROCBLAS_STATUS_SUCCESS 0
#define GA_ROCBLAS_OP_NONE 111
#define GA_ROCBLAS_GEMM_ALGO_STANDARD 0
#define GA_ROCBLAS_DATATYPE_F16_R 150
#define GA_ROCBLAS_DATATYPE_F32_R 151
#define GA_ROCBLAS_DATATYPE_F64_R 152
#define GA_ROCBLAS_DATATYPE_BF16_R 168

typedef ga_rocblas_status (*ga_rocblas_create_handle_fn)(ga_rocblas_handle *);
typedef ga_rocblas_status (*ga_rocblas_destroy_handle_fn)(ga_rocblas_handle);
typedef ga_rocblas_status (*ga_rocblas_gemm_ex_fn)(ga_rocblas_handle, ga_rocblas_operation,
                                                   ga_rocblas_operation, ga_rocblas_int, ga_rocblas_int,
                                                   ga_rocblas_int, const void *, const void *,
                                                   ga_rocblas_datatype, ga_rocblas_int, const void *,
                                                   ga_rocblas_datatype, ga_rocblas_int, const void *,
                                                   const void *, ga_rocblas_datatype, ga_rocblas_int, void *,
                                                   ga_rocblas_datatype, ga_rocblas_int, ga_rocblas_datatype,
                                                   ga_rocblas_gemm_algo, int32_t, uint32_t);

#endif
