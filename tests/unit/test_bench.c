/*
 * test_bench.c - the primitive benchmarks: dtype conversions, statistics, the
 * backend filter, expectations, ratios and cliffs (on hand-made reports), and
 * real runs on the backends this machine has (OpenBLAS, OpenCL/PoCL with the
 * built-in kernels, CLBlast) with their float64 checks, a deliberately
 * corrupted result that must fail, and the CUDA/HIP backends' clean
 * "absent"/"no device" answers; the primitive reports (gemm, smoke) read back
 * through the gpuaudit.bench/v1 model give their bytes again.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/bench.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/core.h"
#include "gpuaudit/model.h"
#include "bench/backend-cuda.h"
#include "bench/bench-internal.h"

#include <unistd.h>

/*
 * LeakSanitizer (ASan builds only; the symbol is otherwise unused): the
 * OpenCL ICD loader, PoCL and its compiled kernels, CLBlast, cuBLAS and HIP keep
 * allocations for the life of the process by design. Ours are still checked.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libOpenCL.so\nleak:libpocl\nleak:/kcache/\nleak:libclblast\nleak:libcublas\n"
	       "leak:libamdhip64\n";
}

static void test_dtypes(void **state)
{
	(void)state;
	assert_int_equal(ga_fp32_to_fp16(1.0f), 0x3c00);
	assert_int_equal(ga_fp32_to_fp16(-2.0f), 0xc000);
	assert_int_equal(ga_fp32_to_fp16(65504.0f), 0x7bff);
	assert_int_equal(ga_fp32_to_fp16(70000.0f), 0x7c00);               /* overflow to infinity */
	assert_int_equal(ga_fp32_to_fp16(5.960464477539063e-08f), 0x0001); /* smallest subnormal */
	assert_int_equal(ga_fp32_to_fp16(1.0f + 1.0f / 2048), 0x3c00);     /* tie rounds to even */
	assert_int_equal(ga_fp32_to_fp16(1.0f + 3.0f / 2048), 0x3c02);
	assert_true(ga_fp16_to_fp32(0x3555) > 0.333f && ga_fp16_to_fp32(0x3555) < 0.3334f);
	assert_true(ga_fp16_to_fp32(0x0001) == 5.960464477539063e-08f);
	assert_true(isinf(ga_fp16_to_fp32(0x7c00)));
	assert_int_equal(ga_fp32_to_bf16(1.0f), 0x3f80);
	assert_int_equal(ga_fp32_to_bf16(1.0f + 1.0f / 256), 0x3f80); /* tie to even */
	assert_int_equal(ga_fp32_to_bf16(1.0f + 3.0f / 256), 0x3f82);
	assert_true(isnan(ga_bf16_to_fp32(ga_fp32_to_bf16(NAN))));
	assert_true(ga_bf16_to_fp32(0xc040) == -3.0f);
	for (float f = -4.0f; f <= 4.0f; f += 0.125f) {
		assert_true(ga_fp16_to_fp32(ga_fp32_to_fp16(f)) == f);
		assert_true(ga_bf16_to_fp32(ga_fp32_to_bf16(f)) == f);
	}
	enum ga_dtype d;
	assert_int_equal(ga_dtype_parse("bf16", &d), 0);
	assert_int_equal(d, GA_DT_BF16);
	assert_int_equal(ga_dtype_parse("fp8", &d), -EINVAL);
	assert_int_equal(ga_dtype_size(GA_DT_FP64), 8);
	assert_true(ga_dtype_tolerance(GA_DT_FP32) <= 1e-5 && ga_dtype_tolerance(GA_DT_BF16) >= 1e-3);
	assert_int_equal(ga_stream_op_arrays(GA_STREAM_TRIAD), 3);
	assert_int_equal(ga_stream_op_arrays(GA_STREAM_DOT), 2);
}

static void test_stats(void **state)
{
	(void)state;
	double med, mn, mx;
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	ga_bench_stats(odd, 3, &med, &mn, &mx);
	assert_true(med == 3 && mn == 1 && mx == 5);
	ga_bench_stats(even, 4, &med, &mn, &mx);
	assert_true(med == 2.5 && mn == 1 && mx == 4);
	assert_true(ga_busbw_factor("allreduce", 8) == 1.75);
	assert_true(ga_busbw_factor("allgather", 8) == 0.875);
	assert_true(ga_busbw_factor("allreduce", 1) == 0);
	assert_true(ga_busbw_factor("broadcast", 4) == 1);
	assert_true(isnan(ga_busbw_factor("bogus", 4)));
}

static void test_select(void **state)
{
	(void)state;
	struct ga_ctx *ctx;
	const struct ga_bench_backend *l[8];
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_bench_backends_select(ctx, NULL, l, 8), 5);
	assert_ptr_equal(l[0], &ga_bench_cuda);
	assert_null(l[5]);
	assert_int_equal(ga_bench_backends_select(ctx, "-cuda,-hip", l, 8), 3);
	assert_ptr_equal(l[0], &ga_bench_clblast);
	assert_int_equal(ga_bench_backends_select(ctx, "cblas", l, 8), 1);
	assert_ptr_equal(l[0], &ga_bench_cblas);
	assert_int_equal(ga_bench_backends_select(ctx, "opencl,cblas,-cblas", l, 8), 1);
	assert_int_equal(ga_bench_backends_select(ctx, "cblas,nosuch", l, 8), -EINVAL);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "nosuch"));
	ga_ctx_free(ctx);
}

static void test_cpu_peak(void **state)
{
	(void)state;
	const char intel[] = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: 2000.000\n"
	                     "flags\t\t: fpu sse avx avx2 fma avx512f\n\n"
	                     "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: 2000.000\n"
	                     "flags\t\t: fpu sse avx avx2 fma avx512f\n";
	unsigned cores = 0, fpc = 0;
	double mhz = 0;
	double p = ga_cpu_peak_flops(intel, strlen(intel), false, &cores, &mhz, &fpc);
	assert_int_equal(cores, 2);
	assert_true(mhz == 2000);
	assert_int_equal(fpc, 64); /* 16 lanes x FMA (2) x 2 units */
	assert_true(p == 2 * 2e9 * 64);
	assert_true(ga_cpu_peak_flops(intel, strlen(intel), true, NULL, NULL, NULL) == 2 * 2e9 * 32);
	const char amd[] = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu MHz\t\t: 3000.0\n"
	                   "flags\t\t: fpu avx2 fma avx512f\n";
	assert_true(ga_cpu_peak_flops(amd, strlen(amd), false, NULL, NULL, &fpc) == 3e9 * 32);
	assert_true(isnan(ga_cpu_peak_flops("garbage", 7, false, NULL, NULL, NULL)));
	assert_true(ga_bench_builtin_peak("NVIDIA H200", true, "gemm.cuda.bf16") == 989e12);
	assert_true(ga_bench_builtin_peak("NVIDIA H100 80GB HBM3", true, "stream.opencl.triad") == 3.35e12);
	assert_true(isnan(ga_bench_builtin_peak("Mystery GPU", true, "gemm.cuda.fp32")));
	assert_true(isnan(ga_bench_builtin_peak("NVIDIA H200", false, "gemm.cuda.fp32")));
}

/* A hand-made result in rep, as the harness would leave it. */
static struct ga_bench_result *fake(struct ga_bench_report *rep, const char *kind, const char *backend,
                                    const char *device, const char *key, const char *what, const char *family,
                                    double rate)
{
	struct ga_bench_result *r = ga_array_push((void **)&rep->results, &rep->n_results, sizeof(*r));
	assert_non_null(r);
	r->kind = ga_strdup(kind);
	r->backend = ga_strdup(backend);
	r->device = ga_strdup(device);
	r->device_key = ga_strdup(key);
	r->what = ga_strdup(what);
	r->family = ga_strdup(family);
	r->status = GA_BENCH_OK;
	r->rate = r->rate_best = rate;
	r->unit = "flop/s";
	r->cold_s = r->expected = r->percent = r->rel_err = r->tolerance = NAN;
	return r;
}

static const struct ga_finding *find(const struct ga_bench_report *rep, const char *code, size_t nth)
{
	for (size_t i = 0; i < rep->findings.n; i++)
		if (!strcmp(rep->findings.v[i].code, code) && nth-- == 0)
			return &rep->findings.v[i];
	return NULL;
}

static void test_analyze(void **state)
{
	(void)state;
	struct ga_bench_report rep;
	ga_bench_report_init(&rep, "gemm");
	rep.cpu_peak_fp32_flops = 100e9;
	fake(&rep, "gemm", "cblas", "EPYC", "cpu", "fp32 256x256x256", "gemm.cblas.fp32", 60e9);
	fake(&rep, "gemm", "clblast", "pocl", "cpu", "fp32 256x256x256", "gemm.clblast.fp32", 20e9);
	fake(&rep, "gemm", "opencl", "pocl", "cpu", "fp32 256x256x256", "gemm.opencl.fp32", 40e9);
	/* same figure on another device: no ratio */
	fake(&rep, "gemm", "cuda", "NVIDIA H200", "pci:0000:c1:00.0", "fp32 256x256x256", "gemm.cuda.fp32",
	     50e12);
	fake(&rep, "gemm", "cuda", "NVIDIA H200", "pci:0000:c1:00.0", "bf16 8192x8192x8192", "gemm.cuda.bf16",
	     700e12);
	struct ga_bench_result *bad =
	        fake(&rep, "gemm", "opencl", "pocl", "cpu", "bf16 64x64x64", "gemm.opencl.bf16", 1e9);
	bad->status = GA_BENCH_FAILED;
	bad->reason = ga_strdup("wrong result: relative error 0.5 exceeds the bf16 tolerance 1e-02");
	bad->rel_err = 0.5;
	const struct ga_bench_expect ex[] = { { "gemm_tflops_min", 750 }, { "gemm.*.fp32", 45e9 } };
	struct ga_bench_config cfg;
	ga_bench_config_init(&cfg);
	cfg.expect = ex;
	cfg.n_expect = 2;
	assert_int_equal(ga_bench_analyze(&rep, &cfg, 0.95), 0);

	/* three CPU backends: three pairs, two of them past 2x */
	assert_int_equal(rep.n_ratios, 3);
	size_t cliffs = 0;
	for (size_t i = 0; i < rep.n_ratios; i++) {
		assert_string_equal(rep.ratios[i].device_key, "cpu");
		cliffs += rep.ratios[i].cliff;
		if (!strcmp(rep.ratios[i].fast, "cblas") && !strcmp(rep.ratios[i].slow, "clblast"))
			assert_true(fabs(rep.ratios[i].ratio - 3.0) < 1e-12);
		if (!strcmp(rep.ratios[i].fast, "opencl") && !strcmp(rep.ratios[i].slow, "clblast"))
			assert_false(rep.ratios[i].cliff); /* exactly 2x is not a cliff */
	}
	assert_int_equal(cliffs, 1);
	assert_non_null(find(&rep, "GA-BENCH-CLIFF", 0));
	assert_null(find(&rep, "GA-BENCH-CLIFF", 1));
	/* the node has a GPU: PoCL slower than the BLAS on its CPU stays a warning */
	assert_int_equal(find(&rep, "GA-BENCH-CLIFF", 0)->severity, GA_SEV_WARNING);

	/* policy glob for fp32, alias for the GPU bf16 figure (TFLOP/s) */
	assert_string_equal(rep.results[0].expected_source, "policy");
	assert_true(rep.results[0].expected == 45e9);
	assert_true(fabs(rep.results[0].percent - 100.0 * 60 / 45) < 1e-9);
	assert_true(rep.results[4].expected == 750e12);
	/* below 95% of a policy figure: clblast and opencl fp32, and the bf16 GPU figure */
	size_t below = 0;
	while (find(&rep, "GA-BENCH-BELOW-EXPECTED", below))
		below++;
	assert_int_equal(below, 3);
	const struct ga_finding *w = find(&rep, "GA-BENCH-WRONG-RESULT", 0);
	assert_non_null(w);
	assert_int_equal(w->severity, GA_SEV_ERROR);
	ga_bench_report_release(&rep);

	/* without a policy: the built-in peak, never a below-expected finding */
	ga_bench_report_init(&rep, "gemm");
	rep.cpu_peak_fp32_flops = 100e9;
	fake(&rep, "gemm", "cblas", "EPYC", "cpu", "fp32 256x256x256", "gemm.cblas.fp32", 60e9);
	fake(&rep, "gemm", "cuda", "NVIDIA H200", "pci:0000:c1:00.0", "bf16 8192x8192x8192", "gemm.cuda.bf16",
	     700e12);
	ga_bench_config_init(&cfg);
	assert_int_equal(ga_bench_analyze(&rep, &cfg, 0.95), 0);
	assert_string_equal(rep.results[0].expected_source, "builtin");
	assert_true(fabs(rep.results[0].percent - 60.0) < 1e-9);
	assert_true(rep.results[1].expected == 989e12);
	assert_null(find(&rep, "GA-BENCH-BELOW-EXPECTED", 0));
	ga_bench_report_release(&rep);
}

/*
 * A node without an accelerator: OpenCL (PoCL) slower than the CPU BLAS is
 * information with what to use instead (every CPU-only node shows it); two
 * OpenCL paths far apart on that CPU are still a warning.
 */
static void test_cliff_cpu_only(void **state)
{
	(void)state;
	struct ga_bench_report rep;
	ga_bench_report_init(&rep, "gemm");
	rep.cpu_peak_fp32_flops = 100e9;
	fake(&rep, "gemm", "cblas", "EPYC", "cpu", "fp32 256x256x256", "gemm.cblas.fp32", 90e9);
	fake(&rep, "gemm", "opencl", "pocl", "cpu", "fp32 256x256x256", "gemm.opencl.fp32", 30e9);
	fake(&rep, "gemm", "clblast", "pocl", "cpu", "fp32 256x256x256", "gemm.clblast.fp32", 10e9);
	struct ga_bench_config cfg;
	ga_bench_config_init(&cfg);
	assert_int_equal(ga_bench_analyze(&rep, &cfg, 0.95), 0);
	size_t info = 0, warn = 0;
	const struct ga_finding *f;
	for (size_t i = 0; (f = find(&rep, "GA-BENCH-CLIFF", i)); i++) {
		if (f->severity == GA_SEV_INFO) {
			info++;
			assert_non_null(strstr(f->decision, "use the BLAS backend (cblas)"));
			assert_non_null(strstr(f->message, "slower than cblas"));
			assert_non_null(strstr(f->message, "without an accelerator"));
		} else {
			warn++;
			assert_int_equal(f->severity, GA_SEV_WARNING);
			assert_non_null(strstr(f->message, "clblast is 3.0x slower than opencl"));
		}
	}
	assert_int_equal(info, 2); /* opencl/cblas 3x, clblast/cblas 9x */
	assert_int_equal(warn, 1); /* clblast/opencl 3x: not the portability pair */
	ga_bench_report_release(&rep);
}

/* --- real runs --- */

struct run {
	struct ga_ctx *ctx;
	struct ga_bench_config cfg;
	struct ga_bench_report rep;
	struct ga_bench_session *s;
};

static int open_run(struct run *r, const char *kind, const struct ga_bench_backend *b, bool corrupt)
{
	const struct ga_bench_backend *list[2] = { b, NULL };
	assert_int_equal(ga_ctx_new(&r->ctx), 0);
	ga_bench_config_init(&r->cfg);
	r->cfg.reps = 3;
	r->cfg.min_sample_s = 0.001;
	r->cfg.corrupt_result = corrupt;
	ga_bench_report_init(&r->rep, kind);
	assert_int_equal(ga_bench_session_open(r->ctx, &r->cfg, list, &r->rep, &r->s), 0);
	assert_int_equal(r->rep.n_backends, 1);
	return strcmp(r->rep.backends[0].status, "ok") ? -1 : 0;
}

static void close_run(struct run *r)
{
	ga_bench_session_free(r->s);
	ga_bench_report_release(&r->rep);
	ga_ctx_free(r->ctx);
}

/* Every result ok, verified, with metrics named and sampled as the canary contract says. */
static void assert_all_ok(const struct ga_bench_report *rep, size_t want)
{
	assert_int_equal(rep->n_results, want);
	for (size_t i = 0; i < rep->n_results; i++) {
		const struct ga_bench_result *x = &rep->results[i];
		if (x->status != GA_BENCH_OK)
			fail_msg("%s %s: %s", x->backend, x->what, x->reason ? x->reason : "?");
		assert_true(x->rate > 0 &&
		            x->rate_best >= x->rate * (x->n_metrics && x->metrics[0].higher_better ? 1 : 0));
		assert_true(x->cold_s > 0);
		if (strcmp(x->kind, "transfer"))
			assert_true(x->rel_err <= x->tolerance);
		assert_true(x->n_metrics >= 2);
		assert_int_equal(x->metrics[0].n_samples, 3);
		assert_true(!strncmp(x->metrics[0].name, x->family, strlen(x->family)));
	}
}

static void gemm_on(const struct ga_bench_backend *b, unsigned dtypes, size_t n, size_t want)
{
	struct run r;
	if (open_run(&r, "gemm", b, false) < 0) {
		print_message("%s: %s\n", b->name, r.rep.backends[0].reason);
		close_run(&r);
		skip();
	}
	struct ga_gemm_spec spec = { .dtypes = dtypes, .sizes = &n, .n_sizes = 1 };
	assert_int_equal(ga_bench_gemm(r.s, &spec, &r.rep), 0);
	assert_all_ok(&r.rep, want);
	close_run(&r);

	/* the same with one element of C perturbed: every result must fail loudly */
	open_run(&r, "gemm", b, true);
	assert_int_equal(ga_bench_gemm(r.s, &spec, &r.rep), 0);
	assert_int_equal(r.rep.n_results, want);
	for (size_t i = 0; i < r.rep.n_results; i++) {
		assert_int_equal(r.rep.results[i].status, GA_BENCH_FAILED);
		assert_non_null(strstr(r.rep.results[i].reason, "wrong result"));
		assert_true(r.rep.results[i].rel_err > r.rep.results[i].tolerance);
	}
	assert_int_equal(ga_bench_analyze(&r.rep, &r.cfg, 0), 0);
	assert_int_equal(ga_findings_max_severity(&r.rep.findings), GA_SEV_ERROR);
	close_run(&r);
}

static void test_gemm_cblas(void **state)
{
	(void)state;
	/* fp32 and fp64; 72 is no multiple of a tile or vector width */
	gemm_on(&ga_bench_cblas, GA_DT_BIT(GA_DT_FP32) | GA_DT_BIT(GA_DT_FP64), 72, 2);
}

static void test_gemm_opencl(void **state)
{
	(void)state;
	/* all four dtypes through the built-in kernel; 40 exercises the edge tiles */
	gemm_on(&ga_bench_opencl, (1u << GA_DT_COUNT) - 1, 40, 4);
}

static void test_gemm_clblast(void **state)
{
	(void)state;
	gemm_on(&ga_bench_clblast, GA_DT_BIT(GA_DT_FP32), 64, 1);
}

static void test_gemm_unsupported_dtype(void **state)
{
	(void)state;
	struct run r;
	if (open_run(&r, "gemm", &ga_bench_cblas, false) < 0) {
		close_run(&r);
		skip();
	}
	size_t n = 16;
	struct ga_gemm_spec spec = { .dtypes = GA_DT_BIT(GA_DT_BF16), .sizes = &n, .n_sizes = 1 };
	assert_int_equal(ga_bench_gemm(r.s, &spec, &r.rep), 0);
	assert_int_equal(r.rep.n_results, 1);
	assert_int_equal(r.rep.results[0].status, GA_BENCH_SKIPPED);
	assert_non_null(strstr(r.rep.results[0].reason, "no bf16 GEMM"));
	close_run(&r);
	open_run(&r, "gemm", &ga_bench_cblas, false);
	spec.quiet_missing = true;
	assert_int_equal(ga_bench_gemm(r.s, &spec, &r.rep), 0);
	assert_int_equal(r.rep.n_results, 0);
	close_run(&r);
}

static void stream_on(const struct ga_bench_backend *b)
{
	struct run r;
	if (open_run(&r, "stream", b, false) < 0) {
		close_run(&r);
		skip();
	}
	assert_int_equal(ga_bench_stream(r.s, 4096, &r.rep), 0);
	assert_all_ok(&r.rep, GA_STREAM_COUNT);
	char fam[64];
	snprintf(fam, sizeof(fam), "stream.%s.triad", b->name);
	assert_string_equal(r.rep.results[GA_STREAM_TRIAD].family, fam);
	close_run(&r);
	open_run(&r, "stream", b, true);
	assert_int_equal(ga_bench_stream(r.s, 4096, &r.rep), 0);
	for (size_t i = 0; i < GA_STREAM_DOT; i++)
		assert_int_equal(r.rep.results[i].status, GA_BENCH_FAILED);
	close_run(&r);
}

static void test_stream_cblas(void **state)
{
	(void)state;
	stream_on(&ga_bench_cblas);
}

static void test_stream_opencl(void **state)
{
	(void)state;
	stream_on(&ga_bench_opencl);
}

static void test_transfer_opencl(void **state)
{
	(void)state;
	struct run r;
	if (open_run(&r, "transfer", &ga_bench_opencl, false) < 0) {
		close_run(&r);
		skip();
	}
	assert_int_equal(ga_bench_transfer(r.s, 1 << 20, &r.rep), 0);
	assert_all_ok(&r.rep, GA_XFER_COUNT);
	assert_string_equal(r.rep.results[0].family, "transfer.opencl.h2d");
	assert_string_equal(r.rep.results[2].family, "transfer.opencl.d2d");
	close_run(&r);
}

static void test_inference(void **state)
{
	(void)state;
	struct run r;
	if (open_run(&r, "smoke", &ga_bench_cblas, false) < 0) {
		close_run(&r);
		skip();
	}
	assert_int_equal(ga_bench_inference(r.s, &r.rep), 0);
	assert_int_equal(r.rep.n_results, 1);
	assert_int_equal(r.rep.results[0].status, GA_BENCH_OK);
	assert_true(r.rep.results[0].rel_err < 1e-5);
	assert_string_equal(r.rep.results[0].metrics[0].unit, "s");
	assert_false(r.rep.results[0].metrics[0].higher_better);
	close_run(&r);
	open_run(&r, "smoke", &ga_bench_cblas, true);
	assert_int_equal(ga_bench_inference(r.s, &r.rep), 0);
	assert_int_equal(r.rep.results[0].status, GA_BENCH_FAILED);
	close_run(&r);
}

static void test_cuda_absent(void **state)
{
	(void)state;
	struct run r;
	int st = open_run(&r, "gemm", &ga_bench_cuda, false);
	const struct ga_bench_backend_state *b = &r.rep.backends[0];
	if (st == 0) {
		print_message("a CUDA device is present: %s\n", b->version);
		close_run(&r);
		skip();
	}
	/* this machine: CUDA 13 toolkit, no driver */
	assert_string_equal(b->status, "absent");
	assert_non_null(strstr(b->reason, "libcuda.so.1"));
	print_message("cuda: %s\n", b->reason);
	/* a collective needs the cuda backend: clean skipped results, no crash */
	assert_int_equal(ga_bench_collective(r.s, NULL, 1 << 20, &r.rep), 0);
	assert_int_equal(r.rep.n_results, 2);
	assert_int_equal(r.rep.results[0].status, GA_BENCH_SKIPPED);
	assert_string_equal(r.rep.results[0].backend, "nccl");
	assert_int_equal(ga_bench_analyze(&r.rep, &r.cfg, 0.95), 0);
	assert_non_null(find(&r.rep, "GA-BENCH-BACKEND-UNAVAILABLE", 0));
	close_run(&r);
}

static void test_hip_no_device(void **state)
{
	(void)state;
	struct run r;
	int st = open_run(&r, "gemm", &ga_bench_hip, false);
	const struct ga_bench_backend_state *b = &r.rep.backends[0];
	if (st == 0) {
		close_run(&r);
		skip();
	}
	/* Debian's libamdhip64-5 without an AMD GPU answers hipErrorNoDevice */
	assert_true(!strcmp(b->status, "no-device") || !strcmp(b->status, "absent"));
	print_message("hip: %s: %s\n", b->status, b->reason);
	if (!strcmp(b->status, "no-device"))
		assert_non_null(strstr(b->reason, "no AMD GPU"));
	close_run(&r);
}

/* The CUDA stream kernels are PTX text: the toolkit's assembler must accept them. */
static void test_cuda_ptx(void **state)
{
	(void)state;
	const char *ptxas = "/usr/local/cuda/bin/ptxas";
	if (access(ptxas, X_OK) != 0)
		skip();
	char dir[] = "/tmp/ga-ptx-XXXXXX", file[64], cmd[256];
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/stream.ptx", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs(ga_cuda_stream_ptx, f);
	fclose(f);
	for (size_t i = 0; i < 2; i++) {
		static const char *const arch[] = { "sm_75", "sm_90" };
		snprintf(cmd, sizeof(cmd), "%s -arch=%s %s -o %s/out.cubin", ptxas, arch[i], file, dir);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* --- a fake two-device backend: the harness's multi-device paths (peer copies) without GPUs --- */

struct fake_state {
	struct ga_bench_device d[2];
	struct ga_ctx *ctx;
	bool break_peer; /* peer copies deliver wrong bytes */
};
struct fake_xfer {
	struct fake_state *st;
	size_t bytes;
	unsigned char *host, *d1, *d2, *back;
};
static struct fake_state fake_st;

static int fake_open(struct ga_ctx *ctx, const struct ga_bench_config *cfg, void **ret)
{
	(void)cfg;
	for (int i = 0; i < 2; i++) {
		snprintf(fake_st.d[i].name, sizeof(fake_st.d[i].name), "Fake GPU %d", i);
		snprintf(fake_st.d[i].key, sizeof(fake_st.d[i].key), "pci:0000:0%d:00.0", i + 1);
		fake_st.d[i].is_gpu = true;
	}
	fake_st.ctx = ctx;
	*ret = &fake_st;
	return 0;
}
static void fake_close(void *st)
{
	(void)st;
}
static const char *fake_version(void *st)
{
	(void)st;
	return "fake 1.0";
}
static size_t fake_n(void *st)
{
	(void)st;
	return 2;
}
static const struct ga_bench_device *fake_dev(void *st, size_t i)
{
	return &((struct fake_state *)st)->d[i];
}
static void fake_xfer_free(void *job)
{
	struct fake_xfer *x = job;
	free(x->host);
	free(x->d1);
	free(x->d2);
	free(x->back);
	free(x);
}
static int fake_xfer_setup(void *st, size_t dev, size_t bytes, void **ret)
{
	(void)dev;
	struct fake_xfer *x = calloc(1, sizeof(*x));
	x->st = st;
	x->bytes = bytes;
	x->host = malloc(bytes);
	x->d1 = malloc(bytes);
	x->d2 = malloc(bytes);
	x->back = malloc(bytes);
	for (size_t i = 0; i < bytes; i++)
		x->host[i] = (unsigned char)(i * 7);
	*ret = x;
	return 0;
}
static int fake_peer_setup(void *st, size_t src, size_t dst, size_t bytes, void **ret)
{
	assert_true(src != dst && src < 2 && dst < 2);
	int r = fake_xfer_setup(st, src, bytes, ret);
	struct fake_xfer *x = *ret;
	memcpy(x->d1, x->host, bytes);
	return r;
}
static int fake_xfer_run(void *job, enum ga_xfer_dir dir, unsigned iters)
{
	struct fake_xfer *x = job;
	for (unsigned i = 0; i < iters; i++) {
		if (dir == GA_XFER_H2D)
			memcpy(x->d1, x->host, x->bytes);
		else if (dir == GA_XFER_D2H)
			memcpy(x->back, x->d1, x->bytes);
		else
			memcpy(x->d2, x->d1, x->bytes);
	}
	if (dir == GA_XFER_D2D && x->st->break_peer)
		x->d2[x->bytes / 2] ^= 1;
	return 0;
}
static int fake_xfer_verify(void *job, enum ga_xfer_dir dir)
{
	struct fake_xfer *x = job;
	const unsigned char *got = dir == GA_XFER_D2H ? x->back : dir == GA_XFER_D2D ? x->d2 : x->d1;
	return memcmp(got, x->host, x->bytes)
	               ? ga_err(x->st->ctx, -EIO, "%s copy corrupted data", ga_xfer_dir_name(dir))
	               : 0;
}
static const struct ga_bench_backend fake_backend = {
	.name = "fake",
	.open = fake_open,
	.close = fake_close,
	.version = fake_version,
	.n_devices = fake_n,
	.device = fake_dev,
	.xfer_setup = fake_xfer_setup,
	.xfer_run = fake_xfer_run,
	.xfer_verify = fake_xfer_verify,
	.xfer_free = fake_xfer_free,
	.peer_setup = fake_peer_setup,
};

static void test_transfer_peers(void **state)
{
	(void)state;
	struct run r;
	fake_st.break_peer = false;
	assert_int_equal(open_run(&r, "transfer", &fake_backend, false), 0);
	assert_int_equal(ga_bench_transfer(r.s, 64 << 10, &r.rep), 0);
	/* three directions on each of two devices, then 0->1 and 1->0 */
	assert_all_ok(&r.rep, 8);
	assert_string_equal(r.rep.results[6].what, "p2p 0->1 64 KiB");
	assert_string_equal(r.rep.results[6].family, "transfer.fake.p2p");
	assert_string_equal(r.rep.results[6].metrics[0].name, "transfer.fake.p2p.0to1");
	assert_string_equal(r.rep.results[7].metrics[0].name, "transfer.fake.p2p.1to0");
	assert_string_equal(r.rep.results[3].metrics[0].name, "transfer.fake.h2d.dev1");
	assert_int_equal(ga_bench_analyze(&r.rep, &r.cfg, 0), 0);
	assert_int_equal(r.rep.n_ratios, 0); /* one backend: nothing to compare */
	close_run(&r);

	/* a peer copy that delivers wrong bytes fails, the others stay ok */
	fake_st.break_peer = true;
	assert_int_equal(open_run(&r, "transfer", &fake_backend, false), 0);
	assert_int_equal(ga_bench_transfer(r.s, 64 << 10, &r.rep), 0);
	assert_int_equal(r.rep.n_results, 8);
	assert_int_equal(r.rep.results[0].status, GA_BENCH_OK);
	assert_int_equal(r.rep.results[2].status, GA_BENCH_FAILED); /* d2d on the device uses the same copy */
	assert_int_equal(r.rep.results[6].status, GA_BENCH_FAILED);
	assert_non_null(strstr(r.rep.results[6].reason, "corrupted"));
	fake_st.break_peer = false;
	close_run(&r);
}

static void test_blas_option(void **state)
{
	(void)state;
	struct ga_ctx *ctx;
	struct ga_bench_config cfg;
	void *st = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	ga_bench_config_init(&cfg);
	cfg.blas_lib = "libnosuchblas.so.9";
	assert_int_equal(ga_bench_cblas.open(ctx, &cfg, &st), -ENOENT);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "libnosuchblas.so.9"));
	cfg.blas_lib = "libm.so.6"; /* loads, but is no BLAS */
	assert_int_equal(ga_bench_cblas.open(ctx, &cfg, &st), -EIO);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "cblas_sgemm"));
	ga_ctx_free(ctx);
}

/* The document read through the bench model and written again: the same bytes; canary reads it. */
static void model_roundtrip(const struct ga_buf *b, bool pretty)
{
	const struct ga_model *m = ga_model_find(GA_BENCH_SCHEMA);
	assert_non_null(m);
	struct ga_ctx *ctx;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_bench_doc d;
	memset(&d, 0, sizeof(d));
	assert_int_equal(ga_model_read(ctx, m, b->data, b->len, &d), 0);
	struct ga_buf again;
	ga_buf_init(&again, 0);
	assert_int_equal(ga_model_write(m, &d, &again, pretty), 0);
	assert_int_equal(again.len, b->len);
	assert_memory_equal(again.data, b->data, b->len);
	ga_model_release(m, &d);
	struct ga_bench_file *f = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, b->data, b->len, &f), 0);
	ga_bench_file_free(f);
	ga_buf_release(&again);
	ga_ctx_free(ctx);
}

static void test_json(void **state)
{
	(void)state;
	struct run r;
	if (open_run(&r, "gemm", &ga_bench_cblas, false) < 0) {
		close_run(&r);
		skip();
	}
	size_t n = 32;
	struct ga_gemm_spec spec = { .dtypes = GA_DT_BIT(GA_DT_FP32), .sizes = &n, .n_sizes = 1 };
	assert_int_equal(ga_bench_gemm(r.s, &spec, &r.rep), 0);
	assert_int_equal(ga_bench_analyze(&r.rep, &r.cfg, 0), 0);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_bench_report_json(&r.rep, &b, false), 0);
	json_error_t je;
	json_t *doc = json_loads(b.data, 0, &je);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "gpuaudit.bench/v1");
	assert_string_equal(json_string_value(json_object_get(doc, "kind")), "gemm");
	json_t *metrics = json_object_get(doc, "metrics");
	assert_int_equal(json_array_size(metrics), 2);
	json_t *m = json_array_get(metrics, 0);
	assert_string_equal(json_string_value(json_object_get(m, "name")), "gemm.cblas.fp32.n32");
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "flop/s");
	assert_string_equal(json_string_value(json_object_get(m, "better")), "higher");
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 3);
	assert_true(json_real_value(json_object_get(m, "median")) > 0);
	assert_true(json_real_value(json_object_get(m, "min")) > 0);
	json_t *cold = json_array_get(metrics, 1);
	assert_string_equal(json_string_value(json_object_get(cold, "name")),
	                    "gemm.cblas.fp32.n32.cold_start");
	assert_string_equal(json_string_value(json_object_get(cold, "better")), "lower");
	json_t *res = json_array_get(json_object_get(doc, "results"), 0);
	assert_string_equal(json_string_value(json_object_get(res, "status")), "ok");
	assert_true(json_is_null(json_object_get(res, "reason")));
	json_decref(doc);
	model_roundtrip(&b, false);
	ga_buf_reset(&b);
	assert_int_equal(ga_bench_report_json(&r.rep, &b, true), 0);
	model_roundtrip(&b, true);
	ga_buf_release(&b);
	close_run(&r);
}

/*
 * A hand-made report with every member a primitive report has (a skipped
 * result, an absent backend, a ratio, a finding), its exact bytes, and an
 * empty smoke report: both read back through the model to the same bytes.
 */
static void test_report_model(void **state)
{
	(void)state;
	struct ga_bench_report rep;
	ga_bench_report_init(&rep, "gemm");
	rep.cpu_peak_fp32_flops = 1.5e12;
	struct ga_bench_backend_state *bs =
	        ga_array_push((void **)&rep.backends, &rep.n_backends, sizeof(*bs));
	assert_non_null(bs);
	bs->name = ga_strdup("cblas");
	bs->status = ga_strdup("ok");
	bs->version = ga_strdup("OpenBLAS 0.3");
	bs->n_devices = 1;
	struct ga_bench_result *res =
	        ga_bench_result_add(&rep, "gemm", NULL, 0, "fp32 64x64x64", "gemm.host.fp32");
	assert_non_null(res);
	double s[] = { 1e9, 1.25e9, 0.5e9 };
	assert_non_null(ga_bench_metric_add(res, "gemm.host.fp32.n64", "flop/s", true, s, 3));
	ga_bench_result_rates(res);
	res->rel_err = 1e-7;
	res->tolerance = 1e-5;
	res = ga_bench_result_add(&rep, "gemm", NULL, 0, "bf16 64x64x64", "gemm.host.bf16");
	assert_non_null(res);
	assert_int_equal(ga_bench_result_set(res, GA_BENCH_SKIPPED, "no %s", "bf16"), 0);
	struct ga_bench_ratio *ra = ga_array_push((void **)&rep.ratios, &rep.n_ratios, sizeof(*ra));
	assert_non_null(ra);
	ra->device_key = ga_strdup("cpu");
	ra->what = ga_strdup("gemm fp32");
	ra->fast = ga_strdup("cblas");
	ra->slow = ga_strdup("opencl");
	ra->ratio = 2.5;
	ra->cliff = true;
	assert_non_null(
	        ga_findings_add_code(&rep.findings, "BENCH_CLIFF", GA_SEV_WARNING, "cpu", "check", "cliff"));
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_bench_report_json(&rep, &b, false), 0);
	assert_string_equal(
	        b.data,
	        "{\"schema\":\"gpuaudit.bench/"
	        "v1\",\"kind\":\"gemm\",\"host\":{\"cpu_peak_fp32_flops\":1.5e+12,"
	        "\"cpu_peak_fp64_flops\":null},\"backends\":[{\"name\":\"cblas\",\"status\":\"ok\","
	        "\"reason\":null,"
	        "\"version\":\"OpenBLAS "
	        "0.3\",\"devices\":1}],\"results\":[{\"kind\":\"gemm\",\"backend\":\"host\","
	        "\"impl\":null,\"device_index\":0,\"device\":\"host\",\"device_key\":\"cpu\",\"what\":\"fp32 "
	        "64x64x64\",\"family\":\"gemm.host.fp32\",\"status\":\"ok\",\"reason\":null,\"unit\":\"flop/"
	        "s\","
	        "\"median\":1e+09,\"best\":1.25e+09,\"cold_start_s\":null,\"expected\":null,\"expected_"
	        "source\":null,"
	        "\"percent_of_expected\":null,\"rel_err\":1e-07,\"tolerance\":1e-05},{\"kind\":\"gemm\","
	        "\"backend\":"
	        "\"host\",\"impl\":null,\"device_index\":0,\"device\":\"host\",\"device_key\":\"cpu\","
	        "\"what\":"
	        "\"bf16 64x64x64\",\"family\":\"gemm.host.bf16\",\"status\":\"skipped\",\"reason\":\"no "
	        "bf16\","
	        "\"unit\":null,\"median\":null,\"best\":null,\"cold_start_s\":null,\"expected\":null,"
	        "\"expected_source\":null,\"percent_of_expected\":null,\"rel_err\":null,\"tolerance\":null}],"
	        "\"metrics\":[{\"name\":\"gemm.host.fp32.n64\",\"unit\":\"flop/s\",\"better\":\"higher\","
	        "\"samples\":[1e+09,1.25e+09,5e+08],\"median\":1e+09,\"min\":5e+08,\"max\":1.25e+09}],"
	        "\"ratios\":[{\"device_key\":\"cpu\",\"what\":\"gemm fp32\",\"fast\":\"cblas\",\"slow\":"
	        "\"opencl\",\"ratio\":2.5,\"cliff\":true}],\"findings\":[{\"code\":\"BENCH_CLIFF\","
	        "\"severity\":"
	        "\"warning\",\"subject\":\"cpu\",\"message\":\"cliff\",\"evidence\":{},\"decision\":"
	        "\"check\",\"action\":\"investigate\",\"cause\":\"unknown\",\"gpu_uuid\":null,"
	        "\"pci_address\":null}]}");
	model_roundtrip(&b, false);
	ga_buf_reset(&b);
	assert_int_equal(ga_bench_report_json(&rep, &b, true), 0);
	model_roundtrip(&b, true);
	ga_bench_report_release(&rep);
	ga_bench_report_init(&rep, "smoke");
	ga_buf_reset(&b);
	assert_int_equal(ga_bench_report_json(&rep, &b, true), 0);
	model_roundtrip(&b, true);
	ga_bench_report_release(&rep);
	ga_buf_release(&b);
}

/* Every allocation failing in turn: errors come back, nothing leaks (ASan build), no crash. */
static void test_alloc_failures(void **state)
{
	(void)state;
	int enomem = 0;
	for (long k = 0; k < 400; k++) {
		struct ga_ctx *ctx;
		assert_int_equal(ga_ctx_new(&ctx), 0);
		struct ga_bench_config cfg;
		ga_bench_config_init(&cfg);
		cfg.reps = 1;
		cfg.min_sample_s = 0;
		const struct ga_bench_backend *list[2] = { &ga_bench_cblas, NULL };
		struct ga_bench_report rep;
		struct ga_bench_session *s = NULL;
		ga_bench_report_init(&rep, "gemm");
		size_t n = 8;
		struct ga_gemm_spec spec = { .dtypes = GA_DT_BIT(GA_DT_FP32), .sizes = &n, .n_sizes = 1 };
		struct ga_buf b;
		ga_buf_init(&b, 0);
		ga_alloc_fail_after(k);
		int e = ga_bench_session_open(ctx, &cfg, list, &rep, &s);
		if (e == 0)
			e = ga_bench_gemm(s, &spec, &rep);
		if (e == 0)
			e = ga_bench_analyze(&rep, &cfg, 0);
		if (e == 0)
			e = ga_bench_report_json(&rep, &b, false);
		ga_alloc_fail_after(-1);
		assert_true(e == 0 || e == -ENOMEM);
		enomem += e == -ENOMEM;
		ga_buf_release(&b);
		ga_bench_session_free(s);
		ga_bench_report_release(&rep);
		ga_ctx_free(ctx);
		if (e == 0 && k > 50)
			break;
	}
	assert_true(enomem > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dtypes),          cmocka_unit_test(test_stats),
		cmocka_unit_test(test_select),          cmocka_unit_test(test_cpu_peak),
		cmocka_unit_test(test_analyze),         cmocka_unit_test(test_cliff_cpu_only),
		cmocka_unit_test(test_gemm_cblas),      cmocka_unit_test(test_gemm_opencl),
		cmocka_unit_test(test_gemm_clblast),    cmocka_unit_test(test_gemm_unsupported_dtype),
		cmocka_unit_test(test_stream_cblas),    cmocka_unit_test(test_stream_opencl),
		cmocka_unit_test(test_transfer_opencl), cmocka_unit_test(test_transfer_peers),
		cmocka_unit_test(test_inference),       cmocka_unit_test(test_cuda_absent),
		cmocka_unit_test(test_hip_no_device),   cmocka_unit_test(test_cuda_ptx),
		cmocka_unit_test(test_blas_option),     cmocka_unit_test(test_json),
		cmocka_unit_test(test_report_model),    cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
