/*
 * backend-cuda.c - the NVIDIA backend: the CUDA driver API (libcuda.so.1, which the
 * driver installs) for devices, memory and copies, and cuBLAS
 * (libcublas.so.13, .12, .11 from the toolkit or a wheel) for GEMM through
 * cublasGemmEx: fp32 and fp64 with strict compute, fp16 and bf16 inputs with
 * fp32 accumulation. Row-major C = A·B is computed as the column-major
 * C^T = B^T·A^T, so no transposes are needed.
 *
 * Only the driver's libcuda.so.1 is ever loaded, never the toolkit's link
 * stub lib64/stubs/libcuda.so (it fails every call). With no driver the
 * backend is "absent" and says whether cuBLAS itself was found, so a node
 * with the toolkit but no driver gets a precise finding. Declarations:
 * cuda_types.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../dl/dl.h"
#include "backend-cuda.h"
#include "bench-internal.h"
#include "gpuaudit/bench.h"

#define MAX_DEVICES 16
#define STREAM_BLOCK 256 /* threads per block; st_dot's shared array holds one per thread */
#define DOT_BLOCKS 256

/*
 * BabelStream's kernels in PTX, written by hand (fp64; each thread handles one
 * element, st_dot a grid-stride sum reduced per block in shared memory).
 * The driver JIT-compiles them for the GPU at cuModuleLoadData, which is part
 * of the stream's cold start. test_bench assembles this text with the
 * toolkit's ptxas when one is installed.
 */
const char ga_cuda_stream_ptx[] = ".version 7.0\n"
                                  ".target sm_52\n"
                                  ".address_size 64\n"
                                  "\n"
                                  ".visible .entry st_init(\n"
                                  "	.param .u64 pa,\n"
                                  "	.param .u64 pb,\n"
                                  "	.param .u64 pc,\n"
                                  "	.param .f64 va,\n"
                                  "	.param .f64 vb,\n"
                                  "	.param .f64 vc,\n"
                                  "	.param .u64 pn)\n"
                                  "{\n"
                                  "	.reg .pred %p<4>;\n"
                                  "	.reg .b32 %r<16>;\n"
                                  "	.reg .b64 %rd<32>;\n"
                                  "	.reg .f64 %fd<8>;\n"
                                  "	ld.param.u64 %rd1, [pa];\n"
                                  "	cvta.to.global.u64 %rd1, %rd1;\n"
                                  "	ld.param.u64 %rd2, [pb];\n"
                                  "	cvta.to.global.u64 %rd2, %rd2;\n"
                                  "	ld.param.u64 %rd3, [pc];\n"
                                  "	cvta.to.global.u64 %rd3, %rd3;\n"
                                  "	ld.param.f64 %fd1, [va];\n"
                                  "	ld.param.f64 %fd2, [vb];\n"
                                  "	ld.param.f64 %fd3, [vc];\n"
                                  "	ld.param.u64 %rd9, [pn];\n"
                                  "	mov.u32 %r1, %ctaid.x;\n"
                                  "	mov.u32 %r2, %ntid.x;\n"
                                  "	mov.u32 %r3, %tid.x;\n"
                                  "	cvt.u64.u32 %rd20, %r3;\n"
                                  "	mad.wide.u32 %rd21, %r1, %r2, %rd20;\n"
                                  "	setp.ge.u64 %p1, %rd21, %rd9;\n"
                                  "	@%p1 bra DONE;\n"
                                  "	shl.b64 %rd22, %rd21, 3;\n"
                                  "	add.s64 %rd23, %rd1, %rd22;\n"
                                  "	st.global.f64 [%rd23], %fd1;\n"
                                  "	add.s64 %rd24, %rd2, %rd22;\n"
                                  "	st.global.f64 [%rd24], %fd2;\n"
                                  "	add.s64 %rd25, %rd3, %rd22;\n"
                                  "	st.global.f64 [%rd25], %fd3;\n"
                                  "DONE:\n"
                                  "	ret;\n"
                                  "}\n"
                                  ".visible .entry st_copy(\n"
                                  "	.param .u64 pa,\n"
                                  "	.param .u64 pc,\n"
                                  "	.param .u64 pn)\n"
                                  "{\n"
                                  "	.reg .pred %p<4>;\n"
                                  "	.reg .b32 %r<16>;\n"
                                  "	.reg .b64 %rd<32>;\n"
                                  "	.reg .f64 %fd<8>;\n"
                                  "	ld.param.u64 %rd1, [pa];\n"
                                  "	cvta.to.global.u64 %rd1, %rd1;\n"
                                  "	ld.param.u64 %rd3, [pc];\n"
                                  "	cvta.to.global.u64 %rd3, %rd3;\n"
                                  "	ld.param.u64 %rd9, [pn];\n"
                                  "	mov.u32 %r1, %ctaid.x;\n"
                                  "	mov.u32 %r2, %ntid.x;\n"
                                  "	mov.u32 %r3, %tid.x;\n"
                                  "	cvt.u64.u32 %rd20, %r3;\n"
                                  "	mad.wide.u32 %rd21, %r1, %r2, %rd20;\n"
                                  "	setp.ge.u64 %p1, %rd21, %rd9;\n"
                                  "	@%p1 bra DONE;\n"
                                  "	shl.b64 %rd22, %rd21, 3;\n"
                                  "	add.s64 %rd23, %rd1, %rd22;\n"
                                  "	ld.global.f64 %fd1, [%rd23];\n"
                                  "	add.s64 %rd25, %rd3, %rd22;\n"
                                  "	st.global.f64 [%rd25], %fd1;\n"
                                  "DONE:\n"
                                  "	ret;\n"
                                  "}\n"
                                  ".visible .entry st_mul(\n"
                                  "	.param .u64 pb,\n"
                                  "	.param .u64 pc,\n"
                                  "	.param .f64 ps,\n"
                                  "	.param .u64 pn)\n"
                                  "{\n"
                                  "	.reg .pred %p<4>;\n"
                                  "	.reg .b32 %r<16>;\n"
                                  "	.reg .b64 %rd<32>;\n"
                                  "	.reg .f64 %fd<8>;\n"
                                  "	ld.param.u64 %rd2, [pb];\n"
                                  "	cvta.to.global.u64 %rd2, %rd2;\n"
                                  "	ld.param.u64 %rd3, [pc];\n"
                                  "	cvta.to.global.u64 %rd3, %rd3;\n"
                                  "	ld.param.f64 %fd5, [ps];\n"
                                  "	ld.param.u64 %rd9, [pn];\n"
                                  "	mov.u32 %r1, %ctaid.x;\n"
                                  "	mov.u32 %r2, %ntid.x;\n"
                                  "	mov.u32 %r3, %tid.x;\n"
                                  "	cvt.u64.u32 %rd20, %r3;\n"
                                  "	mad.wide.u32 %rd21, %r1, %r2, %rd20;\n"
                                  "	setp.ge.u64 %p1, %rd21, %rd9;\n"
                                  "	@%p1 bra DONE;\n"
                                  "	shl.b64 %rd22, %rd21, 3;\n"
                                  "	add.s64 %rd25, %rd3, %rd22;\n"
                                  "	ld.global.f64 %fd3, [%rd25];\n"
                                  "	mul.rn.f64 %fd2, %fd5, %fd3;\n"
                                  "	add.s64 %rd24, %rd2, %rd22;\n"
                                  "	st.global.f64 [%rd24], %fd2;\n"
                                  "DONE:\n"
                                  "	ret;\n"
                                  "}\n"
                                  ".visible .entry st_add(\n"
                                  "	.param .u64 pa,\n"
                                  "	.param .u64 pb,\n"
                                  "	.param .u64 pc,\n"
                                  "	.param .u64 pn)\n"
                                  "{\n"
                                  "	.reg .pred %p<4>;\n"
                                  "	.reg .b32 %r<16>;\n"
                                  "	.reg .b64 %rd<32>;\n"
                                  "	.reg .f64 %fd<8>;\n"
                                  "	ld.param.u64 %rd1, [pa];\n"
                                  "	cvta.to.global.u64 %rd1, %rd1;\n"
                                  "	ld.param.u64 %rd2, [pb];\n"
                                  "	cvta.to.global.u64 %rd2, %rd2;\n"
                                  "	ld.param.u64 %rd3, [pc];\n"
                                  "	cvta.to.global.u64 %rd3, %rd3;\n"
                                  "	ld.param.u64 %rd9, [pn];\n"
                                  "	mov.u32 %r1, %ctaid.x;\n"
                                  "	mov.u32 %r2, %ntid.x;\n"
                                  "	mov.u32 %r3, %tid.x;\n"
                                  "	cvt.u64.u32 %rd20, %r3;\n"
                                  "	mad.wide.u32 %rd21, %r1, %r2, %rd20;\n"
                                  "	setp.ge.u64 %p1, %rd21, %rd9;\n"
                                  "	@%p1 bra DONE;\n"
                                  "	shl.b64 %rd22, %rd21, 3;\n"
                                  "	add.s64 %rd23, %rd1, %rd22;\n"
                                  "	ld.global.f64 %fd1, [%rd23];\n"
                                  "	add.s64 %rd24, %rd2, %rd22;\n"
                                  "	ld.global.f64 %fd2, [%rd24];\n"
                                  "	add.rn.f64 %fd3, %fd1, %fd2;\n"
                                  "	add.s64 %rd25, %rd3, %rd22;\n"
                                  "	st.global.f64 [%rd25], %fd3;\n"
                                  "DONE:\n"
                                  "	ret;\n"
                                  "}\n"
                                  ".visible .entry st_triad(\n"
                                  "	.param .u64 pa,\n"
                                  "	.param .u64 pb,\n"
                                  "	.param .u64 pc,\n"
                                  "	.param .f64 ps,\n"
                                  "	.param .u64 pn)\n"
                                  "{\n"
                                  "	.reg .pred %p<4>;\n"
                                  "	.reg .b32 %r<16>;\n"
                                  "	.reg .b64 %rd<32>;\n"
                                  "	.reg .f64 %fd<8>;\n"
                                  "	ld.param.u64 %rd1, [pa];\n"
                                  "	cvta.to.global.u64 %rd1, %rd1;\n"
                                  "	ld.param.u64 %rd2, [pb];\n"
                                  "	cvta.to.global.u64 %rd2, %rd2;\n"
                                  "	ld.param.u64 %rd3, [pc];\n"
                                  "	cvta.to.global.u64 %rd3, %rd3;\n"
                                  "	ld.param.f64 %fd5, [ps];\n"
                                  "	ld.param.u64 %rd9, [pn];\n"
                                  "	mov.u32 %r1, %ctaid.x;\n"
                                  "	mov.u32 %r2, %ntid.x;\n"
                                  "	mov.u32 %r3, %tid.x;\n"
                                  "	cvt.u64.u32 %rd20, %r3;\n"
                                  "	mad.wide.u32 %rd21, %r1, %r2, %rd20;\n"
                                  "	setp.ge.u64 %p1, %rd21, %rd9;\n"
                                  "	@%p1 bra DONE;\n"
                                  "	shl.b64 %rd22, %rd21, 3;\n"
                                  "	add.s64 %rd24, %rd2, %rd22;\n"
                                  "	ld.global.f64 %fd2, [%rd24];\n"
                                  "	add.s64 %rd25, %rd3, %rd22;\n"
                                  "	ld.global.f64 %fd3, [%rd25];\n"
                                  "	fma.rn.f64 %fd1, %fd5, %fd3, %fd2;\n"
                                  "	add.s64 %rd23, %rd1, %rd22;\n"
                                  "	st.global.f64 [%rd23], %fd1;\n"
                                  "DONE:\n"
                                  "	ret;\n"
                                  "}\n"
                                  ".visible .entry st_dot(\n"
                                  "	.param .u64 pa,\n"
                                  "	.param .u64 pb,\n"
                                  "	.param .u64 psums,\n"
                                  "	.param .u64 pn)\n"
                                  "{\n"
                                  "	.reg .pred %p<4>;\n"
                                  "	.reg .b32 %r<16>;\n"
                                  "	.reg .b64 %rd<32>;\n"
                                  "	.reg .f64 %fd<8>;\n"
                                  "	.shared .align 8 .f64 sdata[256];\n"
                                  "	ld.param.u64 %rd1, [pa];\n"
                                  "	cvta.to.global.u64 %rd1, %rd1;\n"
                                  "	ld.param.u64 %rd2, [pb];\n"
                                  "	cvta.to.global.u64 %rd2, %rd2;\n"
                                  "	ld.param.u64 %rd3, [psums];\n"
                                  "	cvta.to.global.u64 %rd3, %rd3;\n"
                                  "	ld.param.u64 %rd9, [pn];\n"
                                  "	mov.u32 %r1, %ctaid.x;\n"
                                  "	mov.u32 %r2, %ntid.x;\n"
                                  "	mov.u32 %r3, %tid.x;\n"
                                  "	mov.u32 %r4, %nctaid.x;\n"
                                  "	cvt.u64.u32 %rd20, %r3;\n"
                                  "	mad.wide.u32 %rd21, %r1, %r2, %rd20;\n"
                                  "	mul.wide.u32 %rd26, %r4, %r2;\n"
                                  "	mov.f64 %fd1, 0d0000000000000000;\n"
                                  "LOOP:\n"
                                  "	setp.ge.u64 %p1, %rd21, %rd9;\n"
                                  "	@%p1 bra REDUCE;\n"
                                  "	shl.b64 %rd22, %rd21, 3;\n"
                                  "	add.s64 %rd23, %rd1, %rd22;\n"
                                  "	ld.global.f64 %fd2, [%rd23];\n"
                                  "	add.s64 %rd24, %rd2, %rd22;\n"
                                  "	ld.global.f64 %fd3, [%rd24];\n"
                                  "	fma.rn.f64 %fd1, %fd2, %fd3, %fd1;\n"
                                  "	add.s64 %rd21, %rd21, %rd26;\n"
                                  "	bra.uni LOOP;\n"
                                  "REDUCE:\n"
                                  "	mov.u32 %r5, sdata;\n"
                                  "	shl.b32 %r6, %r3, 3;\n"
                                  "	add.s32 %r7, %r5, %r6;\n"
                                  "	st.shared.f64 [%r7], %fd1;\n"
                                  "	shr.u32 %r8, %r2, 1;\n"
                                  "STEP:\n"
                                  "	setp.eq.u32 %p2, %r8, 0;\n"
                                  "	@%p2 bra WRITE;\n"
                                  "	bar.sync 0;\n"
                                  "	setp.ge.u32 %p3, %r3, %r8;\n"
                                  "	@%p3 bra NEXT;\n"
                                  "	shl.b32 %r9, %r8, 3;\n"
                                  "	add.s32 %r10, %r7, %r9;\n"
                                  "	ld.shared.f64 %fd4, [%r10];\n"
                                  "	ld.shared.f64 %fd5, [%r7];\n"
                                  "	add.rn.f64 %fd6, %fd4, %fd5;\n"
                                  "	st.shared.f64 [%r7], %fd6;\n"
                                  "NEXT:\n"
                                  "	shr.u32 %r8, %r8, 1;\n"
                                  "	bra.uni STEP;\n"
                                  "WRITE:\n"
                                  "	setp.ne.u32 %p2, %r3, 0;\n"
                                  "	@%p2 bra DONE;\n"
                                  "	ld.shared.f64 %fd7, [%r5];\n"
                                  "	mul.wide.u32 %rd27, %r1, 8;\n"
                                  "	add.s64 %rd28, %rd3, %rd27;\n"
                                  "	st.global.f64 [%rd28], %fd7;\n"
                                  "DONE:\n"
                                  "	ret;\n"
                                  "}\n";

struct cuda {
	struct ga_ctx *ctx;
	void *lib, *blas_lib;
	ga_cuInit_fn cuInit;
	ga_cuDriverGetVersion_fn cuDriverGetVersion;
	ga_cuDeviceGetCount_fn cuDeviceGetCount;
	ga_cuDeviceGet_fn cuDeviceGet;
	ga_cuDeviceGetName_fn cuDeviceGetName;
	ga_cuDeviceTotalMem_v2_fn cuDeviceTotalMem_v2;
	ga_cuDeviceGetPCIBusId_fn cuDeviceGetPCIBusId;
	ga_cuDevicePrimaryCtxRetain_fn cuDevicePrimaryCtxRetain;
	ga_cuDevicePrimaryCtxRelease_v2_fn cuDevicePrimaryCtxRelease_v2;
	ga_cuCtxSetCurrent_fn cuCtxSetCurrent;
	ga_cuCtxSynchronize_fn cuCtxSynchronize;
	ga_cuMemAlloc_v2_fn cuMemAlloc_v2;
	ga_cuMemFree_v2_fn cuMemFree_v2;
	ga_cuMemAllocHost_v2_fn cuMemAllocHost_v2;
	ga_cuMemFreeHost_fn cuMemFreeHost;
	ga_cuMemcpyHtoDAsync_v2_fn cuMemcpyHtoDAsync_v2;
	ga_cuMemcpyDtoHAsync_v2_fn cuMemcpyDtoHAsync_v2;
	ga_cuMemcpyDtoDAsync_v2_fn cuMemcpyDtoDAsync_v2;
	ga_cuMemcpyHtoD_v2_fn cuMemcpyHtoD_v2;
	ga_cuMemcpyPeerAsync_fn cuMemcpyPeerAsync;
	ga_cuMemcpyDtoH_v2_fn cuMemcpyDtoH_v2;
	ga_cuGetErrorString_fn cuGetErrorString;
	ga_cuModuleLoadData_fn cuModuleLoadData;
	ga_cuModuleUnload_fn cuModuleUnload;
	ga_cuModuleGetFunction_fn cuModuleGetFunction;
	ga_cuLaunchKernel_fn cuLaunchKernel;
	ga_cublasCreate_v2_fn cublasCreate_v2;
	ga_cublasDestroy_v2_fn cublasDestroy_v2;
	ga_cublasGetProperty_fn cublasGetProperty;
	ga_cublasGemmEx_fn cublasGemmEx;
	struct {
		ga_CUdevice dev;
		ga_CUcontext cx;
		ga_cublasHandle_t blas;
		struct ga_bench_device info;
	} d[MAX_DEVICES];
	size_t n_dev;
	char version[160];
};

#define SYM(f) GA_DL_SYM(struct cuda, f)
static const struct ga_dl_sym drv_syms[] = {
	SYM(cuInit),
	SYM(cuDriverGetVersion),
	SYM(cuDeviceGetCount),
	SYM(cuDeviceGet),
	SYM(cuDeviceGetName),
	SYM(cuDeviceTotalMem_v2),
	SYM(cuDeviceGetPCIBusId),
	SYM(cuDevicePrimaryCtxRetain),
	SYM(cuDevicePrimaryCtxRelease_v2),
	SYM(cuCtxSetCurrent),
	SYM(cuCtxSynchronize),
	SYM(cuMemAlloc_v2),
	SYM(cuMemFree_v2),
	SYM(cuMemAllocHost_v2),
	SYM(cuMemFreeHost),
	SYM(cuMemcpyHtoDAsync_v2),
	SYM(cuMemcpyDtoHAsync_v2),
	SYM(cuMemcpyDtoDAsync_v2),
	SYM(cuMemcpyHtoD_v2),
	SYM(cuMemcpyPeerAsync),
	SYM(cuMemcpyDtoH_v2),
	SYM(cuGetErrorString),
	SYM(cuModuleLoadData),
	SYM(cuModuleUnload),
	SYM(cuModuleGetFunction),
	SYM(cuLaunchKernel),
};
static const struct ga_dl_sym blas_syms[] = {
	SYM(cublasCreate_v2),
	SYM(cublasDestroy_v2),
	SYM(cublasGetProperty),
	SYM(cublasGemmEx),
};

static int cufail(struct cuda *c, const char *call, ga_CUresult r)
{
	const char *s = NULL;
	if (c->cuGetErrorString)
		c->cuGetErrorString(r, &s);
	return ga_err(c->ctx, -EIO, "%s failed: %u (%s)", call, r, s ? s : "?");
}

static void cu_close(void *state)
{
	struct cuda *c = state;
	if (!c)
		return;
	for (size_t i = 0; i < c->n_dev; i++) {
		if (c->d[i].blas) {
			c->cuCtxSetCurrent(c->d[i].cx);
			c->cublasDestroy_v2(c->d[i].blas);
		}
		if (c->d[i].cx)
			c->cuDevicePrimaryCtxRelease_v2(c->d[i].dev);
	}
	/*
	 * libcuda and cuBLAS (C++ with a static runtime and its own exception
	 * pool) are not made to be unloaded: the handles stay open for the
	 * process's life; a second open only takes another reference.
	 */
	ga_free(c);
}

static int cu_open(struct ga_ctx *ctx, const struct ga_bench_config *cfg, void **ret_state)
{
	struct cuda *c = ga_calloc(1, sizeof(*c));
	struct ga_dl_status st;
	char blas_used[600] = "";
	int blas_ver[3] = { 0 };
	int err;
	ga_CUresult r;
	if (!c)
		return -ENOMEM;
	c->ctx = ctx;
	ga_progress(ctx, "dlopen libcublas");
	/* by soname, then under the toolkit's libdir (NULL: /usr/local/cuda/lib64) */
	const char *libdir = cfg->cuda_libdir ? cfg->cuda_libdir : "/usr/local/cuda/lib64";
	c->blas_lib = ga_dl_open(GA_DL_CUBLAS, NULL, libdir, blas_syms, GA_ARRAY_SIZE(blas_syms), c, &st);
	if (st.loaded)
		snprintf(blas_used, sizeof(blas_used), "%s%s%s", st.in_dir ? libdir : "",
		         st.in_dir ? "/" : "", st.loaded);
	if (!c->blas_lib && st.missing) {
		err = ga_err(ctx, -EIO, "%s lacks %s", blas_used, st.missing);
		goto out;
	}
	if (c->blas_lib)
		for (unsigned i = 0; i < 3; i++)
			c->cublasGetProperty(GA_MAJOR_VERSION + i, &blas_ver[i]);
	ga_progress(ctx, "dlopen libcuda.so.1");
	c->lib = ga_dl_open(GA_DL_CUDA, NULL, NULL, drv_syms, GA_ARRAY_SIZE(drv_syms), c, &st);
	if (!c->lib && !st.loaded) {
		if (c->blas_lib)
			err = ga_err(ctx, -ENOENT,
			             "NVIDIA driver library libcuda.so.1 not found; cuBLAS %d.%d.%d is "
			             "installed (%s) "
			             "but cannot run without the driver",
			             blas_ver[0], blas_ver[1], blas_ver[2], blas_used);
		else
			err = ga_err(ctx, -ENOENT,
			             "NVIDIA driver library libcuda.so.1 not found (and no cuBLAS)");
		goto out;
	}
	if (!c->lib) {
		err = ga_err(ctx, -EIO, "libcuda.so.1 lacks %s", st.missing);
		goto out;
	}
	ga_progress(ctx, "cuInit");
	if ((r = c->cuInit(0)) != GA_CUDA_SUCCESS) {
		err = r == GA_CUDA_ERROR_NO_DEVICE ? ga_err(ctx, -ENODEV, "cuInit: no CUDA device")
		                                   : cufail(c, "cuInit", r);
		goto out;
	}
	int n = 0, drv = 0;
	c->cuDriverGetVersion(&drv);
	if ((r = c->cuDeviceGetCount(&n)) != GA_CUDA_SUCCESS) {
		err = cufail(c, "cuDeviceGetCount", r);
		goto out;
	}
	if (n <= 0) {
		err = ga_err(ctx, -ENODEV, "no CUDA device");
		goto out;
	}
	if (!c->blas_lib) {
		err = ga_err(ctx, -ENOENT, "cuBLAS not found (libcublas.so.13/12/11)");
		goto out;
	}
	snprintf(c->version, sizeof(c->version), "cuBLAS %d.%d.%d, CUDA driver %d.%d", blas_ver[0],
	         blas_ver[1], blas_ver[2], drv / 1000, (drv % 1000) / 10);
	for (int i = 0; i < n && c->n_dev < MAX_DEVICES; i++) {
		size_t k = c->n_dev;
		char bus[32] = "";
		size_t mem = 0;
		if ((r = c->cuDeviceGet(&c->d[k].dev, i)) != GA_CUDA_SUCCESS) {
			err = cufail(c, "cuDeviceGet", r);
			goto out;
		}
		c->cuDeviceGetName(c->d[k].info.name, (int)sizeof(c->d[k].info.name) - 1, c->d[k].dev);
		if (c->cuDeviceTotalMem_v2(&mem, c->d[k].dev) == GA_CUDA_SUCCESS)
			c->d[k].info.mem_bytes = mem;
		if (c->cuDeviceGetPCIBusId(bus, (int)sizeof(bus), c->d[k].dev) == GA_CUDA_SUCCESS) {
			for (char *p = bus; *p; p++)
				*p = (char)((*p >= 'A' && *p <= 'F') ? *p - 'A' + 'a' : *p);
			/* "00000000:C1:00.0" -> "pci:0000:c1:00.0" */
			const char *b = strlen(bus) > 12 ? bus + strlen(bus) - 12 : bus;
			snprintf(c->d[k].info.key, sizeof(c->d[k].info.key), "pci:%s", b);
		} else
			ga_bench_device_name_key(&c->d[k].info);
		c->d[k].info.is_gpu = true;
		c->d[k].info.stream_fp64 = true;
		c->d[k].info.gemm_dtypes = GA_DT_BIT(GA_DT_FP32) | GA_DT_BIT(GA_DT_FP64) |
		                           GA_DT_BIT(GA_DT_FP16) | GA_DT_BIT(GA_DT_BF16);
		if ((r = c->cuDevicePrimaryCtxRetain(&c->d[k].cx, c->d[k].dev)) != GA_CUDA_SUCCESS) {
			err = cufail(c, "cuDevicePrimaryCtxRetain", r);
			goto out;
		}
		c->n_dev++;
		c->cuCtxSetCurrent(c->d[k].cx);
		ga_cublasStatus_t s = c->cublasCreate_v2(&c->d[k].blas);
		if (s != GA_CUBLAS_STATUS_SUCCESS) {
			c->d[k].blas = NULL;
			err = ga_err(ctx, -EIO, "cublasCreate failed: status %u", s);
			goto out;
		}
	}
	*ret_state = c;
	c = NULL;
	err = 0;
out:
	cu_close(c);
	return err;
}

static const char *cu_version(void *state)
{
	return ((struct cuda *)state)->version;
}

static size_t cu_n_devices(void *state)
{
	return ((struct cuda *)state)->n_dev;
}

static const struct ga_bench_device *cu_device(void *state, size_t i)
{
	return &((struct cuda *)state)->d[i].info;
}

/* --- helpers shared with backend-nccl.c --- */

size_t ga_cuda_devices(struct cuda *c)
{
	return c->n_dev;
}

int ga_cuda_use(struct cuda *c, size_t dev)
{
	ga_CUresult r = c->cuCtxSetCurrent(c->d[dev].cx);
	return r == GA_CUDA_SUCCESS ? 0 : cufail(c, "cuCtxSetCurrent", r);
}

int ga_cuda_alloc(struct cuda *c, size_t dev, size_t bytes, ga_CUdeviceptr *ret)
{
	int e = ga_cuda_use(c, dev);
	if (e < 0)
		return e;
	ga_CUresult r = c->cuMemAlloc_v2(ret, bytes);
	return r == GA_CUDA_SUCCESS ? 0 : cufail(c, "cuMemAlloc", r);
}

void ga_cuda_free(struct cuda *c, size_t dev, ga_CUdeviceptr p)
{
	if (p && ga_cuda_use(c, dev) == 0)
		c->cuMemFree_v2(p);
}

int ga_cuda_upload(struct cuda *c, size_t dev, ga_CUdeviceptr dst, const void *src, size_t bytes)
{
	int e = ga_cuda_use(c, dev);
	if (e < 0)
		return e;
	ga_CUresult r = c->cuMemcpyHtoD_v2(dst, src, bytes);
	return r == GA_CUDA_SUCCESS ? 0 : cufail(c, "cuMemcpyHtoD", r);
}

int ga_cuda_download(struct cuda *c, size_t dev, void *dst, ga_CUdeviceptr src, size_t bytes)
{
	int e = ga_cuda_use(c, dev);
	if (e < 0)
		return e;
	ga_CUresult r = c->cuMemcpyDtoH_v2(dst, src, bytes);
	return r == GA_CUDA_SUCCESS ? 0 : cufail(c, "cuMemcpyDtoH", r);
}

int ga_cuda_sync(struct cuda *c, size_t dev)
{
	int e = ga_cuda_use(c, dev);
	if (e < 0)
		return e;
	ga_CUresult r = c->cuCtxSynchronize();
	return r == GA_CUDA_SUCCESS ? 0 : cufail(c, "cuCtxSynchronize", r);
}

/* --- GEMM --- */

struct cu_gemm {
	struct cuda *c;
	size_t dev;
	enum ga_dtype dt;
	size_t m, n, k;
	ga_CUdeviceptr a, b, out;
};

static void cu_gemm_free(void *job)
{
	struct cu_gemm *g = job;
	if (!g)
		return;
	ga_cuda_free(g->c, g->dev, g->a);
	ga_cuda_free(g->c, g->dev, g->b);
	ga_cuda_free(g->c, g->dev, g->out);
	ga_free(g);
}

static int cu_gemm_setup(void *state, size_t dev, enum ga_dtype dt, size_t m, size_t n, size_t k,
                         const void *a, const void *b, void **ret_job)
{
	struct cuda *c = state;
	size_t es = ga_dtype_size(dt);
	int err;
	if (m > 1u << 20 || n > 1u << 20 || k > 1u << 20)
		return ga_err(c->ctx, -EINVAL, "GEMM size too large");
	struct cu_gemm *g = ga_calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct cu_gemm){ .c = c, .dev = dev, .dt = dt, .m = m, .n = n, .k = k };
	if ((err = ga_cuda_alloc(c, dev, m * k * es, &g->a)) < 0 ||
	    (err = ga_cuda_alloc(c, dev, k * n * es, &g->b)) < 0 ||
	    (err = ga_cuda_alloc(c, dev, m * n * es, &g->out)) < 0 ||
	    (err = ga_cuda_upload(c, dev, g->a, a, m * k * es)) < 0 ||
	    (err = ga_cuda_upload(c, dev, g->b, b, k * n * es)) < 0)
		goto out;
	*ret_job = g;
	g = NULL;
out:
	cu_gemm_free(g);
	return err;
}

static int cu_gemm_run(void *job, unsigned iters)
{
	struct cu_gemm *g = job;
	struct cuda *c = g->c;
	int e = ga_cuda_use(c, g->dev);
	if (e < 0)
		return e;
	static const unsigned types[GA_DT_COUNT] = { GA_CUDA_R_32F, GA_CUDA_R_64F, GA_CUDA_R_16F,
		                                     GA_CUDA_R_16BF };
	float f1 = 1.0f, f0 = 0.0f;
	double d1 = 1.0, d0 = 0.0;
	bool dbl = g->dt == GA_DT_FP64;
	unsigned t = types[g->dt];
	for (unsigned i = 0; i < iters; i++) {
		/* column-major C^T (n x m) = B^T (n x k) * A^T (k x m) */
		ga_cublasStatus_t s = c->cublasGemmEx(
		        c->d[g->dev].blas, GA_CUBLAS_OP_N, GA_CUBLAS_OP_N, (int)g->n, (int)g->m, (int)g->k,
		        dbl ? (const void *)&d1 : (const void *)&f1, (const void *)(uintptr_t)g->b, t,
		        (int)g->n, (const void *)(uintptr_t)g->a, t, (int)g->k,
		        dbl ? (const void *)&d0 : (const void *)&f0, (void *)(uintptr_t)g->out, t, (int)g->n,
		        dbl ? GA_CUBLAS_COMPUTE_64F : GA_CUBLAS_COMPUTE_32F, GA_CUBLAS_GEMM_DEFAULT);
		if (s != GA_CUBLAS_STATUS_SUCCESS)
			return ga_err(c->ctx, -EIO, "cublasGemmEx (%s) failed: status %u",
			              ga_dtype_name(g->dt), s);
	}
	return ga_cuda_sync(c, g->dev);
}

static int cu_gemm_read(void *job, void *out)
{
	struct cu_gemm *g = job;
	return ga_cuda_download(g->c, g->dev, out, g->out, g->m * g->n * ga_dtype_size(g->dt));
}

/* --- stream (BabelStream in PTX) --- */

static const char *const cu_kernels[GA_STREAM_COUNT] = { "st_copy", "st_mul", "st_add", "st_triad",
	                                                 "st_dot" };

struct cu_stream {
	struct cuda *c;
	size_t dev, n;
	ga_CUmodule mod;
	ga_CUfunction f[GA_STREAM_COUNT];
	ga_CUdeviceptr a, b, cc, sums;
};

static void cu_stream_free(void *job)
{
	struct cu_stream *s = job;
	if (!s)
		return;
	ga_cuda_free(s->c, s->dev, s->a);
	ga_cuda_free(s->c, s->dev, s->b);
	ga_cuda_free(s->c, s->dev, s->cc);
	ga_cuda_free(s->c, s->dev, s->sums);
	if (s->mod && ga_cuda_use(s->c, s->dev) == 0)
		s->c->cuModuleUnload(s->mod);
	ga_free(s);
}

static int launch(struct cu_stream *s, ga_CUfunction f, unsigned blocks, void **args)
{
	ga_CUresult r = s->c->cuLaunchKernel(f, blocks, 1, 1, STREAM_BLOCK, 1, 1, 0, NULL, args, NULL);
	return r == GA_CUDA_SUCCESS ? 0 : cufail(s->c, "cuLaunchKernel", r);
}

static unsigned blocks_for(size_t n)
{
	return (unsigned)((n + STREAM_BLOCK - 1) / STREAM_BLOCK);
}

static int cu_stream_setup(void *state, size_t dev, size_t n, void **ret_job)
{
	struct cuda *c = state;
	int err;
	ga_CUresult r;
	if (n > (size_t)UINT32_MAX * STREAM_BLOCK)
		return ga_err(c->ctx, -EINVAL, "stream arrays too long");
	struct cu_stream *s = ga_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct cu_stream){ .c = c, .dev = dev, .n = n };
	if ((err = ga_cuda_use(c, dev)) < 0)
		goto out;
	ga_progress(c->ctx, "cuModuleLoadData");
	if ((r = c->cuModuleLoadData(&s->mod, ga_cuda_stream_ptx)) != GA_CUDA_SUCCESS) {
		s->mod = NULL;
		err = cufail(c, "cuModuleLoadData (stream kernels)", r);
		goto out;
	}
	for (int i = 0; i < GA_STREAM_COUNT; i++)
		if ((r = c->cuModuleGetFunction(&s->f[i], s->mod, cu_kernels[i])) != GA_CUDA_SUCCESS) {
			err = cufail(c, "cuModuleGetFunction", r);
			goto out;
		}
	ga_CUfunction init;
	if ((r = c->cuModuleGetFunction(&init, s->mod, "st_init")) != GA_CUDA_SUCCESS) {
		err = cufail(c, "cuModuleGetFunction", r);
		goto out;
	}
	if ((err = ga_cuda_alloc(c, dev, n * 8, &s->a)) < 0 ||
	    (err = ga_cuda_alloc(c, dev, n * 8, &s->b)) < 0 ||
	    (err = ga_cuda_alloc(c, dev, n * 8, &s->cc)) < 0 ||
	    (err = ga_cuda_alloc(c, dev, DOT_BLOCKS * 8, &s->sums)) < 0)
		goto out;
	double va = GA_STREAM_INIT_A, vb = GA_STREAM_INIT_B, vc = GA_STREAM_INIT_C;
	unsigned long long nn = n;
	void *args[] = { &s->a, &s->b, &s->cc, &va, &vb, &vc, &nn };
	if ((err = launch(s, init, blocks_for(n), args)) < 0 || (err = ga_cuda_sync(c, dev)) < 0)
		goto out;
	*ret_job = s;
	s = NULL;
out:
	cu_stream_free(s);
	return err;
}

static int cu_stream_run(void *job, enum ga_stream_op op, double *ret_dot)
{
	struct cu_stream *s = job;
	double k = GA_STREAM_SCALAR;
	unsigned long long n = s->n;
	int e = ga_cuda_use(s->c, s->dev);
	if (e < 0)
		return e;
	void *copy[] = { &s->a, &s->cc, &n }, *mul[] = { &s->b, &s->cc, &k, &n },
	     *add[] = { &s->a, &s->b, &s->cc, &n }, *triad[] = { &s->a, &s->b, &s->cc, &k, &n },
	     *dot[] = { &s->a, &s->b, &s->sums, &n };
	void **args[GA_STREAM_COUNT] = { copy, mul, add, triad, dot };
	if ((e = launch(s, s->f[op], op == GA_STREAM_DOT ? DOT_BLOCKS : blocks_for(s->n), args[op])) < 0)
		return e;
	if (op != GA_STREAM_DOT)
		return ga_cuda_sync(s->c, s->dev);
	double sums[DOT_BLOCKS];
	if ((e = ga_cuda_download(s->c, s->dev, sums, s->sums, sizeof(sums))) < 0)
		return e;
	double t = 0;
	for (size_t i = 0; i < DOT_BLOCKS; i++)
		t += sums[i];
	*ret_dot = t;
	return 0;
}

static int cu_stream_read(void *job, size_t i, double ret_abc[3])
{
	struct cu_stream *s = job;
	ga_CUdeviceptr p[3] = { s->a, s->b, s->cc };
	for (int j = 0; j < 3; j++) {
		int e = ga_cuda_download(s->c, s->dev, &ret_abc[j], p[j] + i * 8, 8);
		if (e < 0)
			return e;
	}
	return 0;
}

/* --- transfer --- */

struct cu_xfer {
	struct cuda *c;
	size_t dev, bytes;
	size_t dev2;              /* where d2 lives: dev, or the peer's index */
	unsigned char *src, *dst; /* pinned */
	ga_CUdeviceptr d1, d2;
};

static void cu_xfer_free(void *job)
{
	struct cu_xfer *x = job;
	if (!x)
		return;
	ga_cuda_free(x->c, x->dev, x->d1);
	ga_cuda_free(x->c, x->dev2, x->d2);
	if (x->src)
		x->c->cuMemFreeHost(x->src);
	if (x->dst)
		x->c->cuMemFreeHost(x->dst);
	ga_free(x);
}

static int cu_xfer_setup(void *state, size_t dev, size_t bytes, void **ret_job)
{
	struct cuda *c = state;
	int err;
	struct cu_xfer *x = ga_calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	*x = (struct cu_xfer){ .c = c, .dev = dev, .bytes = bytes, .dev2 = dev };
	if ((err = ga_cuda_alloc(c, dev, bytes, &x->d1)) < 0 ||
	    (err = ga_cuda_alloc(c, dev, bytes, &x->d2)) < 0)
		goto out;
	ga_CUresult r = c->cuMemAllocHost_v2((void **)&x->src, bytes);
	if (r == GA_CUDA_SUCCESS)
		r = c->cuMemAllocHost_v2((void **)&x->dst, bytes);
	if (r != GA_CUDA_SUCCESS) {
		err = cufail(c, "cuMemAllocHost", r);
		goto out;
	}
	for (size_t i = 0; i < bytes; i++)
		x->src[i] = (unsigned char)(i * 131u + 7u);
	*ret_job = x;
	x = NULL;
	err = 0;
out:
	cu_xfer_free(x);
	return err;
}

/* Device src -> device dst: d1 on src holds the pattern, d2 lives on dst. */
static int cu_peer_setup(void *state, size_t src, size_t dst, size_t bytes, void **ret_job)
{
	struct cuda *c = state;
	struct cu_xfer *x = NULL;
	int err = cu_xfer_setup(state, src, bytes, (void **)&x);
	if (err < 0)
		return err;
	ga_cuda_free(c, src, x->d2);
	x->d2 = 0;
	x->dev2 = dst;
	if ((err = ga_cuda_alloc(c, dst, bytes, &x->d2)) < 0 ||
	    (err = ga_cuda_upload(c, src, x->d1, x->src, bytes)) < 0) {
		cu_xfer_free(x);
		return err;
	}
	*ret_job = x;
	return 0;
}

static int cu_xfer_run(void *job, enum ga_xfer_dir dir, unsigned iters)
{
	struct cu_xfer *x = job;
	struct cuda *c = x->c;
	int e = ga_cuda_use(c, x->dev);
	if (e < 0)
		return e;
	for (unsigned i = 0; i < iters; i++) {
		ga_CUresult r = dir == GA_XFER_H2D   ? c->cuMemcpyHtoDAsync_v2(x->d1, x->src, x->bytes, NULL)
		                : dir == GA_XFER_D2H ? c->cuMemcpyDtoHAsync_v2(x->dst, x->d1, x->bytes, NULL)
		                : x->dev2 != x->dev  ? c->cuMemcpyPeerAsync(x->d2, c->d[x->dev2].cx, x->d1,
		                                                            c->d[x->dev].cx, x->bytes, NULL)
		                                     : c->cuMemcpyDtoDAsync_v2(x->d2, x->d1, x->bytes, NULL);
		if (r != GA_CUDA_SUCCESS)
			return cufail(c, "cuMemcpyAsync", r);
	}
	return ga_cuda_sync(c, x->dev);
}

static int cu_xfer_verify(void *job, enum ga_xfer_dir dir)
{
	struct cu_xfer *x = job;
	if (dir == GA_XFER_H2D)
		return 0; /* read back by the D2H check */
	if (dir == GA_XFER_D2D) {
		memset(x->dst, 0, x->bytes);
		int e = ga_cuda_download(x->c, x->dev2, x->dst, x->d2, x->bytes);
		if (e < 0)
			return e;
	}
	if (memcmp(x->src, x->dst, x->bytes))
		return ga_err(x->c->ctx, -EIO, "%s copy corrupted data", ga_xfer_dir_name(dir));
	return 0;
}

const struct ga_bench_backend ga_bench_cuda = {
	.name = "cuda",
	.description = "NVIDIA: CUDA driver API and cuBLAS",
	.open = cu_open,
	.close = cu_close,
	.version = cu_version,
	.n_devices = cu_n_devices,
	.device = cu_device,
	.gemm_setup = cu_gemm_setup,
	.gemm_run = cu_gemm_run,
	.gemm_read = cu_gemm_read,
	.gemm_free = cu_gemm_free,
	.stream_setup = cu_stream_setup,
	.stream_run = cu_stream_run,
	.stream_read = cu_stream_read,
	.stream_free = cu_stream_free,
	.xfer_setup = cu_xfer_setup,
	.xfer_run = cu_xfer_run,
	.xfer_verify = cu_xfer_verify,
	.xfer_free = cu_xfer_free,
	.peer_setup = cu_peer_setup,
};
