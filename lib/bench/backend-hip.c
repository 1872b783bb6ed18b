/*
 * backend-hip.c - the AMD backend: libamdhip64 (ROCm's HIP runtime, .so.6/.so.5)
 * for devices, memory and copies, and rocBLAS (librocblas.so.4/.3/.0) for
 * GEMM through rocblas_gemm_ex (fp32, fp64, and fp16/bf16 inputs with fp32
 * compute), row-major through the column-major C^T = B^T·A^T like backend-cuda.c.
 * Loaded at run time (lib/dl, rows HIP and ROCBLAS); the declarations are
 * our own (lib/dl/hip_types.h, following ROCm 5/6's hip_runtime_api.h and
 * rocblas-types.h; test_vendor_decls checks HIP's against Debian's
 * libamdhip64-dev).
 *
 * With no AMD GPU the runtime answers hipErrorNoDevice and the backend
 * reports "no-device" cleanly (tested against Debian's libamdhip64-5). The
 * GEMM and copy paths have not run on AMD hardware yet. Without rocBLAS the
 * backend still opens for transfers, and GEMM results say rocBLAS is missing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../dl/dl.h"
#include "../dl/hip_types.h"
#include "bench-internal.h"
#include "gpuaudit/bench.h"

#define MAX_DEVICES 16
/* hipDeviceProp_t is large and versioned; only the name at its start is read. */
struct hip {
	struct ga_ctx *ctx;
	void *lib;
	ga_hipGetDeviceCount_fn hipGetDeviceCount;
	ga_hipGetErrorString_fn hipGetErrorString;
	ga_hipRuntimeGetVersion_fn hipRuntimeGetVersion;
	ga_hipDeviceGetName_fn hipDeviceGetName;
	ga_hipDeviceGetPCIBusId_fn hipDeviceGetPCIBusId;
	ga_hipDeviceTotalMem_fn hipDeviceTotalMem;
	ga_hipSetDevice_fn hipSetDevice;
	ga_hipMalloc_fn hipMalloc;
	ga_hipFree_fn hipFree;
	ga_hipHostMalloc_fn hipHostMalloc;
	ga_hipHostFree_fn hipHostFree;
	ga_hipMemcpy_fn hipMemcpy;
	ga_hipMemcpyAsync_fn hipMemcpyAsync;
	ga_hipDeviceSynchronize_fn hipDeviceSynchronize;
	void *blas_lib;
	ga_rocblas_create_handle_fn rocblas_create_handle;
	ga_rocblas_destroy_handle_fn rocblas_destroy_handle;
	ga_rocblas_gemm_ex_fn rocblas_gemm_ex;
	ga_rocblas_handle blas[MAX_DEVICES];
	struct ga_bench_device d[MAX_DEVICES];
	size_t n_dev;
	char version[96];
};

static const struct ga_dl_sym hip_syms[] = {
	GA_DL_SYM(struct hip, hipGetDeviceCount),
	GA_DL_SYM(struct hip, hipGetErrorString),
	GA_DL_OPT(struct hip, hipRuntimeGetVersion),
	GA_DL_OPT(struct hip, hipDeviceGetName),
	GA_DL_OPT(struct hip, hipDeviceGetPCIBusId),
	GA_DL_OPT(struct hip, hipDeviceTotalMem),
	GA_DL_SYM(struct hip, hipSetDevice),
	GA_DL_SYM(struct hip, hipMalloc),
	GA_DL_SYM(struct hip, hipFree),
	GA_DL_SYM(struct hip, hipHostMalloc),
	GA_DL_SYM(struct hip, hipHostFree),
	GA_DL_SYM(struct hip, hipMemcpy),
	GA_DL_SYM(struct hip, hipMemcpyAsync),
	GA_DL_SYM(struct hip, hipDeviceSynchronize),
};
/* rocBLAS: optional; without it the devices still serve transfers */
static const struct ga_dl_sym rocblas_syms[] = {
	GA_DL_SYM(struct hip, rocblas_create_handle),
	GA_DL_SYM(struct hip, rocblas_destroy_handle),
	GA_DL_SYM(struct hip, rocblas_gemm_ex),
};

static int hipfail(struct hip *h, const char *call, ga_hipError_t r)
{
	return ga_err(h->ctx, -EIO, "%s failed: %u (%s)", call, r, h->hipGetErrorString(r));
}

static void hip_close(void *state)
{
	struct hip *h = state;
	if (!h)
		return;
	for (size_t i = 0; i < h->n_dev; i++)
		if (h->blas[i] && h->hipSetDevice((int)i) == 0)
			h->rocblas_destroy_handle(h->blas[i]);
	/* ROCm's C++ runtime is not made to be unloaded: the handle stays open. */
	ga_free(h);
}

static int hip_open(struct ga_ctx *ctx, const struct ga_bench_config *cfg, void **ret_state)
{
	(void)cfg;
	struct hip *h = ga_calloc(1, sizeof(*h));
	const char *used = NULL;
	int err, n = 0, v = 0;
	if (!h)
		return -ENOMEM;
	h->ctx = ctx;
	struct ga_dl_status st;
	ga_progress(ctx, "dlopen libamdhip64");
	h->lib = ga_dl_open(GA_DL_HIP, NULL, NULL, hip_syms, GA_ARRAY_SIZE(hip_syms), h, &st);
	if (!st.loaded) {
		err = ga_err(ctx, -ENOENT, "HIP runtime not found (libamdhip64.so.6/.so.5)");
		goto out;
	}
	used = st.loaded;
	if (!h->lib) {
		err = ga_err(ctx, -EIO,
		             "%s lacks part of the HIP API (hipGetDeviceCount, hipMalloc, hipMemcpy...)",
		             used);
		goto out;
	}
	if (h->hipRuntimeGetVersion)
		h->hipRuntimeGetVersion(&v);
	snprintf(h->version, sizeof(h->version), "HIP runtime %d.%d.%d (%s)", v / 10000000,
	         (v / 100000) % 100, v % 100000, used);
	ga_progress(ctx, "hipGetDeviceCount");
	ga_hipError_t r = h->hipGetDeviceCount(&n);
	if (r == GA_HIP_ERROR_NO_DEVICE || (r == 0 && n <= 0)) {
		err = ga_err(ctx, -ENODEV, "%s: no AMD GPU (hipGetDeviceCount: %s)", h->version,
		             h->hipGetErrorString(r));
		goto out;
	}
	if (r != 0) {
		err = ga_err(ctx, -EIO, "hipGetDeviceCount failed: %u (%s)", r, h->hipGetErrorString(r));
		goto out;
	}
	for (int i = 0; i < n && h->n_dev < MAX_DEVICES; i++) {
		struct ga_bench_device *d = &h->d[h->n_dev++];
		char bus[32] = "";
		snprintf(d->name, sizeof(d->name), "HIP device %d", i);
		if (h->hipDeviceGetName)
			h->hipDeviceGetName(d->name, (int)sizeof(d->name) - 1, i);
		if (h->hipDeviceGetPCIBusId && h->hipDeviceGetPCIBusId(bus, (int)sizeof(bus), i) == 0) {
			for (char *p = bus; *p; p++)
				*p = (char)((*p >= 'A' && *p <= 'F') ? *p - 'A' + 'a' : *p);
			snprintf(d->key, sizeof(d->key), "pci:%s",
			         strlen(bus) > 12 ? bus + strlen(bus) - 12 : bus);
		} else
			ga_bench_device_name_key(d);
		d->is_gpu = true;
		size_t mem = 0;
		if (h->hipDeviceTotalMem && h->hipDeviceTotalMem(&mem, i) == 0)
			d->mem_bytes = mem;
	}
	h->blas_lib =
	        ga_dl_open(GA_DL_ROCBLAS, NULL, NULL, rocblas_syms, GA_ARRAY_SIZE(rocblas_syms), h, NULL);
	for (size_t i = 0;
	     h->rocblas_create_handle && h->rocblas_destroy_handle && h->rocblas_gemm_ex && i < h->n_dev;
	     i++) {
		if (h->hipSetDevice((int)i) != 0 || h->rocblas_create_handle(&h->blas[i]) != 0) {
			h->blas[i] = NULL;
			continue;
		}
		h->d[i].gemm_dtypes = GA_DT_BIT(GA_DT_FP32) | GA_DT_BIT(GA_DT_FP64) | GA_DT_BIT(GA_DT_FP16) |
		                      GA_DT_BIT(GA_DT_BF16);
	}
	if (!h->blas[0])
		snprintf(h->version + strlen(h->version), sizeof(h->version) - strlen(h->version),
		         ", no rocBLAS");
	*ret_state = h;
	h = NULL;
	err = 0;
out:
	hip_close(h);
	return err;
}

static const char *hip_version(void *state)
{
	return ((struct hip *)state)->version;
}

static size_t hip_n_devices(void *state)
{
	return ((struct hip *)state)->n_dev;
}

static const struct ga_bench_device *hip_device(void *state, size_t i)
{
	return &((struct hip *)state)->d[i];
}

/* --- GEMM (rocBLAS) --- */

struct hip_gemm {
	struct hip *h;
	size_t dev, m, n, k;
	enum ga_dtype dt;
	void *a, *b, *c;
};

static void hip_gemm_free(void *job)
{
	struct hip_gemm *g = job;
	if (!g)
		return;
	if (g->h->hipSetDevice((int)g->dev) == 0) {
		if (g->a)
			g->h->hipFree(g->a);
		if (g->b)
			g->h->hipFree(g->b);
		if (g->c)
			g->h->hipFree(g->c);
	}
	ga_free(g);
}

static int hip_gemm_setup(void *state, size_t dev, enum ga_dtype dt, size_t m, size_t n, size_t k,
                          const void *a, const void *b, void **ret_job)
{
	struct hip *h = state;
	size_t es = ga_dtype_size(dt);
	ga_hipError_t r;
	int err;
	if (!h->blas[dev])
		return ga_err(h->ctx, -ENOTSUP, "rocBLAS not found (librocblas.so.4/.3/.0)");
	if (m > 1u << 20 || n > 1u << 20 || k > 1u << 20)
		return ga_err(h->ctx, -EINVAL, "GEMM size too large");
	struct hip_gemm *g = ga_calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct hip_gemm){ .h = h, .dev = dev, .m = m, .n = n, .k = k, .dt = dt };
	if ((r = h->hipSetDevice((int)dev)) != 0 || (r = h->hipMalloc(&g->a, m * k * es)) != 0 ||
	    (r = h->hipMalloc(&g->b, k * n * es)) != 0 || (r = h->hipMalloc(&g->c, m * n * es)) != 0 ||
	    (r = h->hipMemcpy(g->a, a, m * k * es, GA_HIP_MEMCPY_H2D)) != 0 ||
	    (r = h->hipMemcpy(g->b, b, k * n * es, GA_HIP_MEMCPY_H2D)) != 0) {
		err = hipfail(h, "hipMalloc/hipMemcpy", r);
		goto out;
	}
	*ret_job = g;
	g = NULL;
	err = 0;
out:
	hip_gemm_free(g);
	return err;
}

static int hip_gemm_run(void *job, unsigned iters)
{
	struct hip_gemm *g = job;
	struct hip *h = g->h;
	static const ga_rocblas_datatype types[GA_DT_COUNT] = { GA_ROCBLAS_DATATYPE_F32_R,
		                                                GA_ROCBLAS_DATATYPE_F64_R,
		                                                GA_ROCBLAS_DATATYPE_F16_R,
		                                                GA_ROCBLAS_DATATYPE_BF16_R };
	float f1 = 1.0f, f0 = 0.0f;
	double d1 = 1.0, d0 = 0.0;
	bool dbl = g->dt == GA_DT_FP64;
	ga_rocblas_datatype t = types[g->dt];
	ga_hipError_t r;
	if ((r = h->hipSetDevice((int)g->dev)) != 0)
		return hipfail(h, "hipSetDevice", r);
	for (unsigned i = 0; i < iters; i++) {
		/* column-major C^T (n x m) = B^T (n x k) * A^T (k x m); D = C in place */
		ga_rocblas_status s = h->rocblas_gemm_ex(
		        h->blas[g->dev], GA_ROCBLAS_OP_NONE, GA_ROCBLAS_OP_NONE, (int32_t)g->n, (int32_t)g->m,
		        (int32_t)g->k, dbl ? (const void *)&d1 : (const void *)&f1, g->b, t, (int32_t)g->n,
		        g->a, t, (int32_t)g->k, dbl ? (const void *)&d0 : (const void *)&f0, g->c, t,
		        (int32_t)g->n, g->c, t, (int32_t)g->n,
		        dbl ? GA_ROCBLAS_DATATYPE_F64_R : GA_ROCBLAS_DATATYPE_F32_R,
		        GA_ROCBLAS_GEMM_ALGO_STANDARD, 0, 0);
		if (s != 0)
			return ga_err(h->ctx, -EIO, "rocblas_gemm_ex (%s) failed: status %u",
			              ga_dtype_name(g->dt), s);
	}
	r = h->hipDeviceSynchronize();
	return r == 0 ? 0 : hipfail(h, "hipDeviceSynchronize", r);
}

static int hip_gemm_read(void *job, void *c)
{
	struct hip_gemm *g = job;
	ga_hipError_t r = g->h->hipSetDevice((int)g->dev);
	if (r == 0)
		r = g->h->hipMemcpy(c, g->c, g->m * g->n * ga_dtype_size(g->dt), GA_HIP_MEMCPY_D2H);
	return r == 0 ? 0 : hipfail(g->h, "hipMemcpy", r);
}

/* --- transfer --- */

struct hip_xfer {
	struct hip *h;
	size_t dev, bytes;
	unsigned char *src, *dst; /* pinned (hipHostMalloc) */
	void *d1, *d2;
};

static void hip_xfer_free(void *job)
{
	struct hip_xfer *x = job;
	if (!x)
		return;
	if (x->h->hipSetDevice((int)x->dev) == 0) {
		if (x->d1)
			x->h->hipFree(x->d1);
		if (x->d2)
			x->h->hipFree(x->d2);
	}
	if (x->src)
		x->h->hipHostFree(x->src);
	if (x->dst)
		x->h->hipHostFree(x->dst);
	ga_free(x);
}

static int hip_xfer_setup(void *state, size_t dev, size_t bytes, void **ret_job)
{
	struct hip *h = state;
	ga_hipError_t r;
	int err;
	struct hip_xfer *x = ga_calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	*x = (struct hip_xfer){ .h = h, .dev = dev, .bytes = bytes };
	if ((r = h->hipSetDevice((int)dev)) != 0 || (r = h->hipMalloc(&x->d1, bytes)) != 0 ||
	    (r = h->hipMalloc(&x->d2, bytes)) != 0 ||
	    (r = h->hipHostMalloc((void **)&x->src, bytes, 0)) != 0 ||
	    (r = h->hipHostMalloc((void **)&x->dst, bytes, 0)) != 0) {
		err = hipfail(h, "hipMalloc/hipHostMalloc", r);
		goto out;
	}
	for (size_t i = 0; i < bytes; i++)
		x->src[i] = (unsigned char)(i * 131u + 7u);
	*ret_job = x;
	x = NULL;
	err = 0;
out:
	hip_xfer_free(x);
	return err;
}

static int hip_xfer_run(void *job, enum ga_xfer_dir dir, unsigned iters)
{
	struct hip_xfer *x = job;
	struct hip *h = x->h;
	ga_hipError_t r = h->hipSetDevice((int)x->dev);
	for (unsigned i = 0; r == 0 && i < iters; i++)
		r = dir == GA_XFER_H2D   ? h->hipMemcpyAsync(x->d1, x->src, x->bytes, GA_HIP_MEMCPY_H2D, NULL)
		    : dir == GA_XFER_D2H ? h->hipMemcpyAsync(x->dst, x->d1, x->bytes, GA_HIP_MEMCPY_D2H, NULL)
		                         : h->hipMemcpyAsync(x->d2, x->d1, x->bytes, GA_HIP_MEMCPY_D2D, NULL);
	if (r == 0)
		r = h->hipDeviceSynchronize();
	return r == 0 ? 0 : hipfail(h, "hipMemcpyAsync", r);
}

static int hip_xfer_verify(void *job, enum ga_xfer_dir dir)
{
	struct hip_xfer *x = job;
	if (dir == GA_XFER_H2D)
		return 0; /* read back by the D2H check */
	if (dir == GA_XFER_D2D) {
		memset(x->dst, 0, x->bytes);
		ga_hipError_t r = x->h->hipMemcpy(x->dst, x->d2, x->bytes, GA_HIP_MEMCPY_D2H);
		if (r != 0)
			return hipfail(x->h, "hipMemcpy", r);
	}
	if (memcmp(x->src, x->dst, x->bytes))
		return ga_err(x->h->ctx, -EIO, "%s copy corrupted data", ga_xfer_dir_name(dir));
	return 0;
}

const struct ga_bench_backend ga_bench_hip = {
	.name = "hip",
	.description = "AMD: HIP runtime and rocBLAS",
	.open = hip_open,
	.close = hip_close,
	.version = hip_version,
	.n_devices = hip_n_devices,
	.device = hip_device,
	.gemm_setup = hip_gemm_setup,
	.gemm_run = hip_gemm_run,
	.gemm_read = hip_gemm_read,
	.gemm_free = hip_gemm_free,
	.xfer_setup = hip_xfer_setup,
	.xfer_run = hip_xfer_run,
	.xfer_verify = hip_xfer_verify,
	.xfer_free = hip_xfer_free,
};
