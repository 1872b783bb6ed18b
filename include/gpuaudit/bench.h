/*
 * bench.h - primitive benchmarks (GEMM, stream, transfer, collective) run the
 * same way on every compute backend a node has, and the smoke suite built on
 * them (docs/bench.md, docs/smoke.md).
 *
 * A backend is a const ops struct (struct ga_bench_backend) over vendor
 * libraries loaded with dlopen: CPU BLAS, OpenCL (+ CLBlast), CUDA (+ cuBLAS),
 * HIP (+ rocBLAS / hipBLAS). The backend only moves data and launches work;
 * the harness (lib/bench/) owns the timing rules, so every backend is measured
 * alike: a warm-up call reported apart as the cold start, repeated timed runs
 * that each end in a synchronisation, median and min, and every GEMM result
 * checked against a float64 reference computed on the host.
 *
 * Results are plain data (struct ga_bench_report) and serialise as JSON with
 * schema gpuaudit.bench/v1 through its model (benchfile.h, lib/model/bench.c). Each measurement carries metrics with stable names
 * ("gemm.cblas.fp32.n1024"), per-repetition samples, median and min, which is
 * what `gpuaudit canary` compares.
 */
#ifndef GPUAUDIT_BENCH_H
#define GPUAUDIT_BENCH_H

#include "gpuaudit/findings.h"
#include "gpuaudit/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_BENCH_SCHEMA "gpuaudit.bench/v1"
#define GA_BENCH_MAX_REPS 1000
#define GA_BENCH_CLIFF_RATIO 2.0 /* a backend pair further apart than this is a cliff */

enum ga_dtype { GA_DT_FP32 = 0, GA_DT_FP64, GA_DT_FP16, GA_DT_BF16, GA_DT_COUNT };
#define GA_DT_BIT(d) (1u << (d))

const char *ga_dtype_name(enum ga_dtype d);
size_t ga_dtype_size(enum ga_dtype d);
/* Relative Frobenius-norm error allowed for a GEMM result in this dtype. */
double ga_dtype_tolerance(enum ga_dtype d);
/* 0 and *ret, or -EINVAL for a name that is not fp32/fp64/fp16/bf16. */
int ga_dtype_parse(const char *s, enum ga_dtype *ret);
/* Conversions used by the harness and the host references (round to nearest even). */
uint16_t ga_fp32_to_fp16(float f);
float ga_fp16_to_fp32(uint16_t h);
uint16_t ga_fp32_to_bf16(float f);
float ga_bf16_to_fp32(uint16_t h);

/* BabelStream's kernels and how many arrays each moves. */
enum ga_stream_op {
	GA_STREAM_COPY = 0,
	GA_STREAM_MUL,
	GA_STREAM_ADD,
	GA_STREAM_TRIAD,
	GA_STREAM_DOT,
	GA_STREAM_COUNT
};
const char *ga_stream_op_name(enum ga_stream_op op);
unsigned ga_stream_op_arrays(enum ga_stream_op op);
#define GA_STREAM_SCALAR 0.4
#define GA_STREAM_INIT_A 0.1
#define GA_STREAM_INIT_B 0.2
#define GA_STREAM_INIT_C 0.0

enum ga_xfer_dir { GA_XFER_H2D = 0, GA_XFER_D2H, GA_XFER_D2D, GA_XFER_COUNT };
const char *ga_xfer_dir_name(enum ga_xfer_dir d);

/* A device as a backend sees it. */
struct ga_bench_device {
	char name[128];
	/*
	 * The physical device, comparable across backends: "cpu" for the host
	 * CPU, "pci:0000:c1:00.0" for a GPU whose bus id is known, else
	 * "name:<name>". Pairs of backends with the same key give cliff ratios.
	 */
	char key[96];
	bool is_gpu;
	uint64_t mem_bytes;   /* 0 when the backend cannot say (then written as null) */
	unsigned gemm_dtypes; /* GA_DT_BIT set of supported GEMM dtypes */
	bool stream_fp64;     /* stream kernels run in double (BabelStream's default) */
};

struct ga_bench_config;

/*
 * One backend. Functions a backend lacks are NULL (a CPU has no transfer).
 * All return 0 or a negative errno with the reason in the context:
 * open: -ENOENT library absent, -ENODEV no device, -EIO the library failed.
 * Host matrices are row-major in the dtype's own 2-byte/4-byte/8-byte form.
 */
struct ga_bench_backend {
	const char *name;        /* "cblas", "opencl", "clblast", "cuda", "hip" */
	const char *description; /* one line */
	int (*open)(struct ga_ctx *ctx, const struct ga_bench_config *cfg, void **ret_state);
	void (*close)(void *state);
	/* "OpenBLAS 0.3.21 ...": the library that did the work. */
	const char *(*version)(void *state);
	size_t (*n_devices)(void *state);
	const struct ga_bench_device *(*device)(void *state, size_t i);

	/* C = A·B with A m×k, B k×n (all row-major). gemm_run launches iters times and waits. */
	int (*gemm_setup)(void *state, size_t dev, enum ga_dtype dt, size_t m, size_t n, size_t k,
	                  const void *a, const void *b, void **ret_job);
	int (*gemm_run)(void *job, unsigned iters);
	int (*gemm_read)(void *job, void *c);
	void (*gemm_free)(void *job);

	/* BabelStream on n doubles (float when the device has no fp64) initialised to INIT_A/B/C. */
	int (*stream_setup)(void *state, size_t dev, size_t n, void **ret_job);
	/* Run one kernel and wait; DOT leaves the sum in *ret_dot. */
	int (*stream_run)(void *job, enum ga_stream_op op, double *ret_dot);
	/* Element i of a, b, c, as double. */
	int (*stream_read)(void *job, size_t i, double ret_abc[3]);
	void (*stream_free)(void *job);

	/* Copies of `bytes` between pinned host memory and the device (or within it). */
	int (*xfer_setup)(void *state, size_t dev, size_t bytes, void **ret_job);
	int (*xfer_run)(void *job, enum ga_xfer_dir dir, unsigned iters);
	/* Check the last copy in direction dir arrived intact (pattern compare); 0 or -EIO. */
	int (*xfer_verify)(void *job, enum ga_xfer_dir dir);
	void (*xfer_free)(void *job);
	/*
	 * Between two devices of the backend: a job whose GA_XFER_D2D copies
	 * `bytes` from device src to device dst (peer to peer where the hardware
	 * allows); run, verify and free with the xfer_ functions above.
	 */
	int (*peer_setup)(void *state, size_t src, size_t dst, size_t bytes, void **ret_job);
};

extern const struct ga_bench_backend ga_bench_cblas;
extern const struct ga_bench_backend ga_bench_opencl;
extern const struct ga_bench_backend ga_bench_clblast;
extern const struct ga_bench_backend ga_bench_cuda;
extern const struct ga_bench_backend ga_bench_hip;
/*
 * What a backend of the registry can do. GEMM/STREAM/TRANSFER/PEER say which
 * of the ops above it fills; WARMUP: preflight's warm-up may use it (its GEMM
 * on a GPU device); CPU: its device is the host CPU and counts for the warm-up.
 */
enum ga_bench_cap {
	GA_BENCH_CAP_GEMM = 1u << 0,
	GA_BENCH_CAP_STREAM = 1u << 1,
	GA_BENCH_CAP_TRANSFER = 1u << 2,
	GA_BENCH_CAP_PEER = 1u << 3,
	GA_BENCH_CAP_WARMUP = 1u << 4,
	GA_BENCH_CAP_CPU = 1u << 5,
};
struct ga_bench_entry {
	const struct ga_bench_backend *backend; /* NULL ends the registry */
	unsigned caps;                          /* enum ga_bench_cap bits */
};
/*
 * The one registry of compute backends, in preference order (bench, smoke and
 * the warm-up all walk it), ended by an entry with a NULL backend.
 */
extern const struct ga_bench_entry ga_bench_registry[];
/* The registry entry of a backend, NULL when it is not registered. */
const struct ga_bench_entry *ga_bench_entry_of(const struct ga_bench_backend *be);

/*
 * Apply a filter like GPUAUDIT_BACKENDS: comma-separated names; "-name"
 * removes one, a list of plain names keeps only those ("cblas,opencl"), both
 * may mix ("-cuda,-hip"). Writes at most max entries to out (NULL-terminated
 * when room). Returns the count, or -EINVAL for an unknown name (message in ctx).
 */
int ga_bench_backends_select(struct ga_ctx *ctx, const char *filter, const struct ga_bench_backend **out,
                             size_t max);

struct ga_bench_config {
	unsigned reps;           /* timed repetitions (default 5) */
	double min_sample_s;     /* a sample loops until it lasts this long (default 0.005) */
	uint64_t seed;           /* random data (default 1) */
	const char *blas_lib;    /* --blas: the CPU BLAS library to load, NULL = search */
	const char *cuda_libdir; /* extra directory for libcublas etc. (NULL: /usr/local/cuda/lib64) */
	int threads;             /* CPU threads for BLAS and host stream, 0 = library default */
	/* Test hook: perturb one element of each GEMM/stream result before the check. */
	bool corrupt_result;
	/* Expected figures by metric-family name (see ga_bench_expected). */
	const struct ga_bench_expect *expect;
	size_t n_expect;
};
void ga_bench_config_init(struct ga_bench_config *c);

/* An expected figure: key is a metric family ("gemm.cuda.bf16") or a policy alias. */
struct ga_bench_expect {
	const char *key;
	double value; /* in the metric's unit (flop/s, byte/s) */
};

/* --- results --- */

struct ga_bench_metric {
	char *name;       /* stable id: "gemm.cblas.fp32.n1024" */
	const char *unit; /* "flop/s", "byte/s", "s" */
	bool higher_better;
	double *samples; /* one per timed repetition */
	size_t n_samples;
	double median, min, max;
};

enum ga_bench_status {
	GA_BENCH_OK = 0,
	GA_BENCH_SKIPPED, /* not available on this backend/device (reason says why) */
	GA_BENCH_FAILED,  /* an error, or a result that failed verification */
};
const char *ga_bench_status_name(enum ga_bench_status s);

/* One measurement: a kind on one backend and device with one configuration. */
struct ga_bench_result {
	char *kind;    /* "gemm", "stream", "transfer", "collective", "inference" */
	char *backend; /* "cblas" */
	char *impl;    /* the library that did the work ("OpenBLAS 0.3.21") or NULL */
	size_t device_index;
	char *device;     /* device name */
	char *device_key; /* see ga_bench_device.key */
	char *what;       /* "fp32 1024x1024x1024", "triad", "h2d 256 MiB" */
	char *family;     /* metric family for expectations and ratios: "gemm.cblas.fp32" */
	enum ga_bench_status status;
	char *reason;     /* why skipped or failed; NULL when ok */
	double cold_s;    /* the warm-up call (first use: JIT, module load), NaN if not measured */
	double rate;      /* best-of-median primary figure in unit: the median sample */
	double rate_best; /* the best sample */
	const char *unit;
	double expected;             /* NaN when there is none */
	const char *expected_source; /* "policy", "builtin", NULL */
	double percent;              /* 100·rate/expected, NaN without expected */
	double rel_err;              /* verification error, NaN when not checked */
	double tolerance;            /* NaN when not checked */
	struct ga_bench_metric *metrics;
	size_t n_metrics;
};

/* Backends tried and what came of it. */
struct ga_bench_backend_state {
	char *name;
	char *status; /* "ok", "absent", "no-device", "error", "disabled" */
	char *reason;
	char *version;
	size_t n_devices;
};

/* For each device and figure measured by two backends: their ratio. */
struct ga_bench_ratio {
	char *device_key;
	char *what;        /* "gemm fp32 256x256x256" */
	char *fast, *slow; /* backend names */
	double ratio;      /* fast / slow of the best samples, >= 1 */
	bool cliff;        /* ratio > GA_BENCH_CLIFF_RATIO */
};

struct ga_bench_report {
	char *kind; /* "gemm", "stream", "transfer", "collective", "smoke" */
	struct ga_bench_backend_state *backends;
	size_t n_backends;
	struct ga_bench_result *results;
	size_t n_results;
	struct ga_bench_ratio *ratios;
	size_t n_ratios;
	struct ga_findings findings;
	/* Host facts for context. */
	double cpu_peak_fp32_flops; /* NaN when unknown */
	double cpu_peak_fp64_flops;
};

void ga_bench_report_init(struct ga_bench_report *r, const char *kind);
void ga_bench_report_release(struct ga_bench_report *r);
/* Full gpuaudit.bench/v1 document, written through the model (ga_bench_doc_write). 0 or -ENOMEM. */
int ga_bench_report_json(const struct ga_bench_report *r, struct ga_buf *out, bool pretty);

/* --- running --- */

/*
 * Open each backend in list (NULL-terminated), recording its state in the
 * report; the opened handles are kept in sess for the measurements below.
 * Returns 0 or -ENOMEM; a backend that does not open is a state, not an error.
 */
struct ga_bench_session;
int ga_bench_session_open(struct ga_ctx *ctx, const struct ga_bench_config *cfg,
                          const struct ga_bench_backend *const *list, struct ga_bench_report *rep,
                          struct ga_bench_session **ret);
void ga_bench_session_free(struct ga_bench_session *s);

struct ga_gemm_spec {
	unsigned dtypes;     /* GA_DT_BIT set; 0 = every dtype each backend has */
	bool quiet_missing;  /* a dtype asked for that a device lacks: no "skipped" result */
	const size_t *sizes; /* square sizes n (M=N=K=n) */
	size_t n_sizes;
	const size_t *gpu_sizes; /* for GPU devices when n_gpu_sizes > 0 */
	size_t n_gpu_sizes;
};
/* Run GEMM on every open backend and device. 0 or -ENOMEM; failures are results. */
int ga_bench_gemm(struct ga_bench_session *s, const struct ga_gemm_spec *spec, struct ga_bench_report *rep);
/* Stream with arrays of n elements. */
int ga_bench_stream(struct ga_bench_session *s, size_t n, struct ga_bench_report *rep);
/* Host<->device and on-device copies of bytes each. */
int ga_bench_transfer(struct ga_bench_session *s, size_t bytes, struct ga_bench_report *rep);

/*
 * Collectives through NCCL/RCCL over all local GPUs of the CUDA backend:
 * all-reduce and all-gather of bytes, algbw and busbw as nccl-tests define them.
 * lib: NULL = search libnccl.so.2 then librccl.so.1.
 */
int ga_bench_collective(struct ga_bench_session *s, const char *lib, size_t bytes,
                        struct ga_bench_report *rep);
/* nccl-tests' bus-bandwidth factor for an operation on n ranks. */
double ga_busbw_factor(const char *op, unsigned n_ranks);

/*
 * A small MLP forward pass (3 layers, ReLU) through each backend's fp32 GEMM,
 * checked against the host reference.
 */
int ga_bench_inference(struct ga_bench_session *s, struct ga_bench_report *rep);

/*
 * After the measurements: fill expected figures and percent (policy first,
 * then the built-in table of device peaks), backend-pair ratios per device
 * and findings (GA-BENCH-*). min_fraction: the share of a policy figure a
 * result must reach (0.95 for smoke). Returns 0 or -ENOMEM.
 */
int ga_bench_analyze(struct ga_bench_report *rep, const struct ga_bench_config *cfg, double min_fraction);

/* Built-in peak for a device name and family ("gemm.*.bf16", "stream.*"): NaN when unknown. */
double ga_bench_builtin_peak(const char *device_name, bool is_gpu, const char *family);
/*
 * Theoretical CPU peak from /proc/cpuinfo-style text: cores x clock x FLOP per
 * cycle (FMA width from avx512f/avx2/fma flags). NaN when the text lacks them.
 */
double ga_cpu_peak_flops(const char *cpuinfo, size_t len, bool fp64, unsigned *ret_cores, double *ret_mhz,
                         unsigned *ret_flops_per_cycle);

/* Sample statistics: median and min/max of n values (n >= 1). */
void ga_bench_stats(const double *v, size_t n, double *ret_median, double *ret_min, double *ret_max);

#ifdef __cplusplus
}
#endif
#endif
