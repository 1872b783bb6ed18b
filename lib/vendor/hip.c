/*
 * hip.c - the AMD backend's discovery: libamdhip64 (ROCm's HIP runtime,
 * .so.6/.so.5 or unversioned) loaded with dlopen, devices counted and named.
 * With no AMD GPU the runtime answers hipErrorNoDevice and the backend
 * reports "no-device" cleanly (tested against Debian's libamdhip64-5).
 *
 * Not implemented yet: the measurements themselves (rocBLAS/hipBLAS GEMM,
 * HIP copies). With a device present the backend opens, lists its devices and
 * reports every measurement as skipped with that reason, so the gap is
 * visible in results instead of silently absent.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../bench/bench-internal.h"
#include "gpuaudit/bench.h"

#define MAX_DEVICES 16
#define HIP_ERROR_NO_DEVICE 100

/* hipDeviceProp_t is large and versioned; only the name at its start is read. */
struct hip {
	struct ga_ctx *ctx;
	void *lib;
	int (*hipGetDeviceCount)(int *);
	const char *(*hipGetErrorString)(int);
	int (*hipRuntimeGetVersion)(int *);
	int (*hipDeviceGetName)(char *, int, int);
	int (*hipDeviceGetPCIBusId)(char *, int, int);
	struct ga_bench_device d[MAX_DEVICES];
	size_t n_dev;
	char version[96];
};

static const char *const hip_libs[] = { "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL };

static void hip_close(void *state)
{
	struct hip *h = state;
	if (!h)
		return;
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
	for (size_t i = 0; hip_libs[i] && !h->lib; i++) {
		ga_progress(ctx, hip_libs[i]);
		if ((h->lib = dlopen(hip_libs[i], RTLD_NOW | RTLD_LOCAL)))
			used = hip_libs[i];
	}
	if (!h->lib) {
		err = ga_err(ctx, -ENOENT, "HIP runtime not found (libamdhip64.so.6/.so.5)");
		goto out;
	}
	*(void **)&h->hipGetDeviceCount = dlsym(h->lib, "hipGetDeviceCount");
	*(void **)&h->hipGetErrorString = dlsym(h->lib, "hipGetErrorString");
	*(void **)&h->hipRuntimeGetVersion = dlsym(h->lib, "hipRuntimeGetVersion");
	*(void **)&h->hipDeviceGetName = dlsym(h->lib, "hipDeviceGetName");
	*(void **)&h->hipDeviceGetPCIBusId = dlsym(h->lib, "hipDeviceGetPCIBusId");
	if (!h->hipGetDeviceCount || !h->hipGetErrorString) {
		err = ga_err(ctx, -EIO, "%s lacks hipGetDeviceCount", used);
		goto out;
	}
	if (h->hipRuntimeGetVersion)
		h->hipRuntimeGetVersion(&v);
	snprintf(h->version, sizeof(h->version), "HIP runtime %d.%d.%d (%s)", v / 10000000,
	         (v / 100000) % 100, v % 100000, used);
	ga_progress(ctx, "hipGetDeviceCount");
	int r = h->hipGetDeviceCount(&n);
	if (r == HIP_ERROR_NO_DEVICE || (r == 0 && n <= 0)) {
		err = ga_err(ctx, -ENODEV, "%s: no AMD GPU (hipGetDeviceCount: %s)", h->version,
		             h->hipGetErrorString(r));
		goto out;
	}
	if (r != 0) {
		err = ga_err(ctx, -EIO, "hipGetDeviceCount failed: %d (%s)", r, h->hipGetErrorString(r));
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
			bench_device_name_key(d);
		d->is_gpu = true;
		d->gemm_dtypes = GA_DT_BIT(GA_DT_FP32);
	}
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

static int hip_gemm_setup(void *state, size_t dev, enum ga_dtype dt, size_t m, size_t n, size_t k,
                          const void *a, const void *b, void **ret_job)
{
	(void)dev, (void)dt, (void)m, (void)n, (void)k, (void)a, (void)b, (void)ret_job;
	return ga_err(((struct hip *)state)->ctx, -ENOTSUP,
	              "rocBLAS/hipBLAS GEMM is not implemented in this gpuaudit version");
}

static int hip_gemm_run(void *job, unsigned iters)
{
	(void)job, (void)iters;
	return -ENOTSUP;
}

static int hip_gemm_read(void *job, void *c)
{
	(void)job, (void)c;
	return -ENOTSUP;
}

static void hip_gemm_free(void *job)
{
	(void)job;
}

const struct ga_bench_backend ga_bench_hip = {
	.name = "hip",
	.description = "AMD: HIP runtime (discovery; rocBLAS GEMM not yet)",
	.open = hip_open,
	.close = hip_close,
	.version = hip_version,
	.n_devices = hip_n_devices,
	.device = hip_device,
	.gemm_setup = hip_gemm_setup,
	.gemm_run = hip_gemm_run,
	.gemm_read = hip_gemm_read,
	.gemm_free = hip_gemm_free,
};
