/*
 * opencl_types.h - the subset of the OpenCL 1.2 API and CLBlast's C API that
 * lib/bench/backend-opencl.c calls, declared here so no vendor header is needed to
 * build. Names carry a GA prefix so tests/unit/test_vendor_decls.c can compile
 * them next to the real CL/cl.h and clblast_c.h and compare every signature
 * and constant. Handles use the same struct tags as the real headers.
 */
#ifndef GA_OPENCL_TYPES_H
#define GA_OPENCL_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t ga_cl_int;
typedef uint32_t ga_cl_uint;
typedef uint64_t ga_cl_ulong;
typedef uint16_t ga_cl_half;
typedef ga_cl_ulong ga_cl_bitfield;
typedef ga_cl_bitfield ga_cl_device_type;
typedef ga_cl_bitfield ga_cl_mem_flags;
typedef ga_cl_bitfield ga_cl_map_flags;
typedef ga_cl_bitfield ga_cl_command_queue_properties;
typedef ga_cl_uint ga_cl_bool;
typedef ga_cl_uint ga_cl_platform_info;
typedef ga_cl_uint ga_cl_device_info;
typedef ga_cl_uint ga_cl_program_build_info;
typedef intptr_t ga_cl_context_properties;
typedef struct _cl_platform_id *ga_cl_platform_id;
typedef struct _cl_device_id *ga_cl_device_id;
typedef struct _cl_context *ga_cl_context;
typedef struct _cl_command_queue *ga_cl_command_queue;
typedef struct _cl_mem *ga_cl_mem;
typedef struct _cl_program *ga_cl_program;
typedef struct _cl_kernel *ga_cl_kernel;
typedef struct _cl_event *ga_cl_event;

#define GA_CL_SUCCESS 0
#define GA_CL_DEVICE_NOT_FOUND -1
#define GA_CL_BUILD_PROGRAM_FAILURE -11
#define GA_CL_PLATFORM_NOT_FOUND_KHR -1001
#define GA_CL_TRUE 1
#define GA_CL_PLATFORM_VERSION 0x0901
#define GA_CL_PLATFORM_NAME 0x0902
#define GA_CL_DEVICE_TYPE_CPU (1 << 1)
#define GA_CL_DEVICE_TYPE_GPU (1 << 2)
#define GA_CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define GA_CL_DEVICE_TYPE 0x1000
#define GA_CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004
#define GA_CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010
#define GA_CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define GA_CL_DEVICE_NAME 0x102B
#define GA_CL_DRIVER_VERSION 0x102D
#define GA_CL_DEVICE_VERSION 0x102F
#define GA_CL_DEVICE_EXTENSIONS 0x1030
#define GA_CL_DEVICE_DOUBLE_FP_CONFIG 0x1032
#define GA_CL_MEM_READ_WRITE (1 << 0)
#define GA_CL_MEM_ALLOC_HOST_PTR (1 << 4)
#define GA_CL_MAP_READ (1 << 0)
#define GA_CL_MAP_WRITE (1 << 1)
#define GA_CL_PROGRAM_BUILD_LOG 0x1183
/* cl_nv_device_attribute_query: where an NVIDIA device sits on the PCI bus. */
#define GA_CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define GA_CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define GA_CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A

typedef ga_cl_int (*ga_clGetPlatformIDs_fn)(ga_cl_uint, ga_cl_platform_id *, ga_cl_uint *);
typedef ga_cl_int (*ga_clGetPlatformInfo_fn)(ga_cl_platform_id, ga_cl_platform_info, size_t, void *,
                                             size_t *);
typedef ga_cl_int (*ga_clGetDeviceIDs_fn)(ga_cl_platform_id, ga_cl_device_type, ga_cl_uint, ga_cl_device_id *,
                                          ga_cl_uint *);
typedef ga_cl_int (*ga_clGetDeviceInfo_fn)(ga_cl_device_id, ga_cl_device_info, size_t, void *, size_t *);
typedef ga_cl_context (*ga_clCreateContext_fn)(const ga_cl_context_properties *, ga_cl_uint,
                                               const ga_cl_device_id *,
                                               void (*)(const char *, const void *, size_t, void *), void *,
                                               ga_cl_int *);
typedef ga_cl_int (*ga_clReleaseContext_fn)(ga_cl_context);
typedef ga_cl_command_queue (*ga_clCreateCommandQueue_fn)(ga_cl_context, ga_cl_device_id,
                                                          ga_cl_command_queue_properties, ga_cl_int *);
typedef ga_cl_int (*ga_clReleaseCommandQueue_fn)(ga_cl_command_queue);
typedef ga_cl_mem (*ga_clCreateBuffer_fn)(ga_cl_context, ga_cl_mem_flags, size_t, void *, ga_cl_int *);
typedef ga_cl_int (*ga_clReleaseMemObject_fn)(ga_cl_mem);
typedef ga_cl_int (*ga_clEnqueueWriteBuffer_fn)(ga_cl_command_queue, ga_cl_mem, ga_cl_bool, size_t, size_t,
                                                const void *, ga_cl_uint, const ga_cl_event *, ga_cl_event *);
typedef ga_cl_int (*ga_clEnqueueReadBuffer_fn)(ga_cl_command_queue, ga_cl_mem, ga_cl_bool, size_t, size_t,
                                               void *, ga_cl_uint, const ga_cl_event *, ga_cl_event *);
typedef ga_cl_int (*ga_clEnqueueCopyBuffer_fn)(ga_cl_command_queue, ga_cl_mem, ga_cl_mem, size_t, size_t,
                                               size_t, ga_cl_uint, const ga_cl_event *, ga_cl_event *);
typedef void *(*ga_clEnqueueMapBuffer_fn)(ga_cl_command_queue, ga_cl_mem, ga_cl_bool, ga_cl_map_flags, size_t,
                                          size_t, ga_cl_uint, const ga_cl_event *, ga_cl_event *,
                                          ga_cl_int *);
typedef ga_cl_int (*ga_clEnqueueUnmapMemObject_fn)(ga_cl_command_queue, ga_cl_mem, void *, ga_cl_uint,
                                                   const ga_cl_event *, ga_cl_event *);
typedef ga_cl_program (*ga_clCreateProgramWithSource_fn)(ga_cl_context, ga_cl_uint, const char **,
                                                         const size_t *, ga_cl_int *);
typedef ga_cl_int (*ga_clBuildProgram_fn)(ga_cl_program, ga_cl_uint, const ga_cl_device_id *, const char *,
                                          void (*)(ga_cl_program, void *), void *);
typedef ga_cl_int (*ga_clGetProgramBuildInfo_fn)(ga_cl_program, ga_cl_device_id, ga_cl_program_build_info,
                                                 size_t, void *, size_t *);
typedef ga_cl_int (*ga_clReleaseProgram_fn)(ga_cl_program);
typedef ga_cl_kernel (*ga_clCreateKernel_fn)(ga_cl_program, const char *, ga_cl_int *);
typedef ga_cl_int (*ga_clReleaseKernel_fn)(ga_cl_kernel);
typedef ga_cl_int (*ga_clSetKernelArg_fn)(ga_cl_kernel, ga_cl_uint, size_t, const void *);
typedef ga_cl_int (*ga_clEnqueueNDRangeKernel_fn)(ga_cl_command_queue, ga_cl_kernel, ga_cl_uint,
                                                  const size_t *, const size_t *, const size_t *, ga_cl_uint,
                                                  const ga_cl_event *, ga_cl_event *);
typedef ga_cl_int (*ga_clFinish_fn)(ga_cl_command_queue);

/* CLBlast's C API (clblast_c.h). */
enum { GA_CLBLAST_SUCCESS = 0, GA_CLBLAST_ROW_MAJOR = 101, GA_CLBLAST_TRANSPOSE_NO = 111 };
/* Enums as their underlying types: CLBlastStatusCode has negative codes (int), layout and
 * transpose do not (unsigned int), which is how GCC and Clang lay them out. */
typedef int ga_clblast_status;
typedef ga_clblast_status (*ga_CLBlastSgemm_fn)(unsigned int, unsigned int, unsigned int, size_t, size_t,
                                                size_t, float, ga_cl_mem, size_t, size_t, ga_cl_mem, size_t,
                                                size_t, float, ga_cl_mem, size_t, size_t,
                                                ga_cl_command_queue *, ga_cl_event *);
typedef ga_clblast_status (*ga_CLBlastDgemm_fn)(unsigned int, unsigned int, unsigned int, size_t, size_t,
                                                size_t, double, ga_cl_mem, size_t, size_t, ga_cl_mem, size_t,
                                                size_t, double, ga_cl_mem, size_t, size_t,
                                                ga_cl_command_queue *, ga_cl_event *);
typedef ga_clblast_status (*ga_CLBlastHgemm_fn)(unsigned int, unsigned int, unsigned int, size_t, size_t,
                                                size_t, ga_cl_half, ga_cl_mem, size_t, size_t, ga_cl_mem,
                                                size_t, size_t, ga_cl_half, ga_cl_mem, size_t, size_t,
                                                ga_cl_command_queue *, ga_cl_event *);

#endif
