/*
 * warmup.h - preflight's built-in warm-up: one batch of a small float32
 * matrix product on the best backend available, checked against a float64
 * CPU reference on random data.
 *
 * Backends are a tiny ops table in order of preference: the entries of the
 * bench registry (ga_bench_registry in bench.h) marked GA_BENCH_CAP_WARMUP, in
 * the registry's order (CUDA + cuBLAS, HIP + rocBLAS, OpenCL's built-in kernel
 * on a GPU device, CPU BLAS), then a plain C loop that always runs.
 */
#ifndef GPUAUDIT_WARMUP_H
#define GPUAUDIT_WARMUP_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_bench_backend;
struct ga_gemm_session;
struct ga_gemm_backend {
	const char *name; /* "cpu", "cblas", "opencl", "cuda", "hip" */
	/*
	 * Prepare C = A * B, n x n row-major float32: load the library, pick the
	 * device, upload A and B. a and b must outlive the session. 0, or -ENOENT
	 * (library absent), -ENODEV (no suitable device), -ENOTSUP (cannot do it):
	 * the warm-up tries the next backend; any other -errno is a failure. The
	 * reason goes to why.
	 */
	int (*open)(const struct ga_gemm_backend *self, size_t n, const float *a, const float *b,
	            struct ga_gemm_session **sess, char *why, size_t why_len);
	/* One product into c (n x n); what is set up stays set up. */
	int (*run)(struct ga_gemm_session *sess, float *c, char *why, size_t why_len);
	void (*close)(struct ga_gemm_session *sess); /* NULL is fine */
	const struct ga_bench_backend *bench;        /* the bench backend behind it, NULL for "cpu" */
	bool gpu_only;                               /* use only a GPU device of that backend */
};

/* open, one run, close: the whole cold path in one call. */
int ga_gemm_once(const struct ga_gemm_backend *be, size_t n, const float *a, const float *b, float *c,
                 char *why, size_t why_len);

extern const struct ga_gemm_backend ga_gemm_cpu;
/* At most this many warm-up backends (the registry's plus "cpu"). */
#define GA_WARMUP_MAX_BACKENDS 16
/* name is "auto", "cpu" or a registry backend the warm-up may use. */
bool ga_warmup_backend_known(const char *name);

struct ga_warmup_result {
	const char *backend; /* the one used; NULL when none could run */
	size_t n;
	bool ran;
	bool passed;        /* every element within tolerance */
	double max_rel_err; /* max |c - ref| / (sum_k |a_ik||b_kj|) */
	double tolerance;   /* what passed means */
	double cold_s;      /* first batch, including the backend's setup */
	double warm_s[16];  /* repeats on the same open session: product + read back only */
	size_t n_warm;
	char error[256];   /* why it did not run or failed */
	char skipped[512]; /* backends passed over and why */
};

/*
 * Run the warm-up: n x n (0 = 256), repeat warm runs (at most 16), on the
 * backend named (NULL or "auto": the first usable one in preference order).
 * 0, or -ENOMEM/-EINVAL (an unknown backend name, n or repeat out of range).
 */
int ga_warmup_gemm(const char *backend, size_t n, size_t repeat, uint64_t seed, struct ga_warmup_result *ret);

#ifdef __cplusplus
}
#endif
#endif
