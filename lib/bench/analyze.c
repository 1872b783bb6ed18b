/*
 * analyze.c - judging benchmark results (pure: no clock, no files, no
 * vendor calls): expected figures from the policy's smoke: section or the
 * built-in table of device peaks, percent of expected, ratios between
 * backends measuring the same thing on the same device (a performance cliff
 * above GA_BENCH_CLIFF_RATIO), and findings.
 *
 * Policy keys (docs/bench.md): a metric family or a glob over families in
 * the family's unit ("gemm.cuda.bf16: 7.0e14", "stream.*.triad: 4.0e12"),
 * or the aliases the policy documentation already uses:
 *   gemm_tflops_min                -> GPU GEMM, bf16 (fp32 on CPU-only nodes), TFLOP/s
 *   hbm_bw_gbps_min                -> GPU stream triad and on-device copy, GB/s
 *   nccl_allreduce_busbw_gbps_min  -> collective all-reduce bus bandwidth, GB/s
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/internal.h"
#include "bench-internal.h"

/* Dense peaks from the vendors' data sheets (SXM/OAM parts, no sparsity), in FLOP/s and byte/s. */
static const struct peak {
	const char *match; /* case-insensitive substring of the device name */
	double fp64, fp32, fp16, bf16, mem_bw;
} peaks[] = {
	{ "H200", 67e12, 67e12, 989e12, 989e12, 4.8e12 },
	{ "H100 PCIe", 51e12, 51e12, 756e12, 756e12, 2.0e12 },
	{ "H100", 67e12, 67e12, 989e12, 989e12, 3.35e12 },
	{ "A100", 19.5e12, 19.5e12, 312e12, 312e12, 2.039e12 },
	{ "L40S", 1.43e12, 91.6e12, 362e12, 362e12, 0.864e12 },
	{ "A10", 0.976e12, 31.2e12, 125e12, 125e12, 0.6e12 },
	{ "MI300X", 163.4e12, 163.4e12, 1307e12, 1307e12, 5.3e12 },
	{ "MI250X", 95.7e12, 95.7e12, 383e12, 383e12, 3.2e12 },
};

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (!strncasecmp(p, needle, n))
			return true;
	return false;
}

/* The last dot-separated component of a family: "gemm.cuda.bf16" -> "bf16". */
static const char *family_tail(const char *family)
{
	const char *d = strrchr(family, '.');
	return d ? d + 1 : family;
}

double ga_bench_builtin_peak(const char *device_name, bool is_gpu, const char *family)
{
	if (!is_gpu || !device_name)
		return NAN;
	for (size_t i = 0; i < GA_ARRAY_SIZE(peaks); i++) {
		const struct peak *p = &peaks[i];
		if (!contains_ci(device_name, p->match))
			continue;
		const char *t = family_tail(family);
		if (ga_startswith(family, "gemm.") || ga_startswith(family, "inference."))
			return !strcmp(t, "fp64")   ? p->fp64
			       : !strcmp(t, "fp16") ? p->fp16
			       : !strcmp(t, "bf16") ? p->bf16
			                            : p->fp32;
		if (ga_startswith(family, "stream."))
			return p->mem_bw;
		/* on-device copies count each byte once; the peak counts read + write */
		if (ga_startswith(family, "transfer.") && !strcmp(t, "d2d"))
			return p->mem_bw / 2;
		return NAN;
	}
	return NAN;
}

double ga_cpu_peak_flops(const char *cpuinfo, size_t len, bool fp64, unsigned *ret_cores, double *ret_mhz,
                         unsigned *ret_flops_per_cycle)
{
	unsigned cores = 0;
	double mhz = 0;
	bool avx512 = false, avx2 = false, fma = false, amd = false;
	const char *p = cpuinfo, *end = cpuinfo + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[4096];
		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) - 1 ? l : sizeof(line) - 1), p);
		const char *colon = strchr(line, ':');
		if (colon) {
			if (ga_startswith(line, "processor"))
				cores++;
			else if (ga_startswith(line, "cpu MHz") && mhz == 0)
				mhz = strtod(colon + 1, NULL);
			else if (ga_startswith(line, "vendor_id"))
				amd = strstr(colon, "AuthenticAMD") != NULL;
			else if (ga_startswith(line, "flags") && !avx2) {
				char flags[4096];
				snprintf(flags, sizeof(flags), " %s ", colon + 1);
				avx512 = strstr(flags, " avx512f ") != NULL;
				avx2 = strstr(flags, " avx2 ") != NULL;
				fma = strstr(flags, " fma ") != NULL;
			}
		}
		p += l + 1;
	}
	if (!cores || !(mhz > 0) || mhz > 1e5) /* no clock, or not a plausible one */
		return NAN;
	/*
	 * fp32 lanes per FMA: 16 with AVX-512 on Intel (two 512-bit FMA units
	 * on server parts), 8 with AVX2 or on AMD Zen 4 (AVX-512 executed on
	 * 256-bit units); two FMA pipes; an FMA is two FLOPs.
	 */
	unsigned lanes = avx512 && !amd ? 16 : (avx2 || avx512) ? 8 : 4;
	unsigned per_cycle = lanes * 2 * (fma ? 2 : 1);
	if (fp64)
		per_cycle /= 2;
	if (ret_cores)
		*ret_cores = cores;
	if (ret_mhz)
		*ret_mhz = mhz;
	if (ret_flops_per_cycle)
		*ret_flops_per_cycle = per_cycle;
	return (double)cores * mhz * 1e6 * per_cycle;
}

/* Policy expectation for a result: exact family, glob, then alias. */
static double policy_expected(const struct ga_bench_config *cfg, const struct ga_bench_result *r,
                              bool any_gpu)
{
	for (size_t i = 0; i < cfg->n_expect; i++)
		if (!strcmp(cfg->expect[i].key, r->family))
			return cfg->expect[i].value;
	for (size_t i = 0; i < cfg->n_expect; i++)
		if (strchr(cfg->expect[i].key, '*') && fnmatch(cfg->expect[i].key, r->family, 0) == 0)
			return cfg->expect[i].value;
	bool gpu = ga_startswith(r->device_key, "pci:") || ga_startswith(r->device_key, "name:");
	const char *t = family_tail(r->family);
	for (size_t i = 0; i < cfg->n_expect; i++) {
		const char *k = cfg->expect[i].key;
		double v = cfg->expect[i].value;
		if (!strcmp(k, "gemm_tflops_min") && !strcmp(r->kind, "gemm") &&
		    (any_gpu ? gpu && !strcmp(t, "bf16") : !strcmp(t, "fp32")))
			return v * 1e12;
		if (!strcmp(k, "hbm_bw_gbps_min") && gpu &&
		    ((!strcmp(r->kind, "stream") && !strcmp(t, "triad")) ||
		     (!strcmp(r->kind, "transfer") && !strcmp(t, "d2d"))))
			return v * 1e9;
		if (!strcmp(k, "nccl_allreduce_busbw_gbps_min") && !strcmp(r->kind, "collective") &&
		    strstr(r->family, "allreduce.busbw"))
			return v * 1e9;
	}
	return NAN;
}

/* An OpenCL backend (PoCL, or CLBlast on it) on the host CPU, against the CPU BLAS. */
static bool portability_pair(const struct ga_bench_ratio *q)
{
	return !strcmp(q->device_key, "cpu") && !strcmp(q->fast, "cblas") &&
	       (!strcmp(q->slow, "opencl") || !strcmp(q->slow, "clblast"));
}

/*
 * A pair of backends on one device. A cliff is a warning to fix the slow
 * backend, except OpenCL slower than the BLAS on the CPU of a node with no
 * accelerator: PoCL is a portability layer, every CPU-only node shows it, and
 * there is nothing to fix, so it is information with what to use instead.
 */
static int add_ratio(struct ga_bench_report *rep, const struct ga_bench_result *x,
                     const struct ga_bench_result *y, bool any_gpu)
{
	/* best samples: on a shared machine the least disturbed run is the stable figure */
	const struct ga_bench_result *fast = x->rate_best >= y->rate_best ? x : y, *slow = fast == x ? y : x;
	struct ga_bench_ratio *q = ga_array_push((void **)&rep->ratios, &rep->n_ratios, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->device_key = ga_strdup(x->device_key);
	q->what = ga_strdup(x->what);
	q->fast = ga_strdup(fast->backend);
	q->slow = ga_strdup(slow->backend);
	q->ratio = slow->rate_best > 0 ? fast->rate_best / slow->rate_best : NAN;
	q->cliff = q->ratio > GA_BENCH_CLIFF_RATIO;
	if (!q->device_key || !q->what || !q->fast || !q->slow)
		return -ENOMEM;
	if (q->cliff) {
		char subj[200];
		snprintf(subj, sizeof(subj), "%s %s", x->kind, x->what);
		bool portable = !any_gpu && portability_pair(q);
		struct ga_finding *f = ga_findings_add(
		        &rep->findings, GA_C_BENCH_CLIFF, portable ? GA_SEV_INFO : GA_SEV_WARNING, subj,
		        portable ? "use the BLAS backend (cblas) for CPU work on this node: OpenCL on a "
		                   "CPU (PoCL) is a portability layer, not a fast path; nothing to fix"
		                 : "prefer the fast path for this operation, or fix the slow backend's "
		                   "install/tuning",
		        "%s is %.1fx slower than %s on the same device (%s)%s", q->slow, q->ratio, q->fast,
		        x->device, portable ? " on a node without an accelerator" : "");
		if (!f || ga_finding_evidence(f, "ratio", "%.2f", q->ratio) < 0 ||
		    ga_finding_evidence(f, "device_key", "%s", x->device_key) < 0)
			return -ENOMEM;
	}
	return 0;
}

int ga_bench_analyze(struct ga_bench_report *rep, const struct ga_bench_config *cfg, double min_fraction)
{
	bool any_gpu = false;
	for (size_t i = 0; i < rep->n_results; i++)
		if (ga_startswith(rep->results[i].device_key, "pci:") ||
		    ga_startswith(rep->results[i].device_key, "name:"))
			any_gpu = true;
	for (size_t i = 0; i < rep->n_results; i++) {
		struct ga_bench_result *r = &rep->results[i];
		char subj[200];
		snprintf(subj, sizeof(subj), "%s.%s %s", r->kind, r->backend, r->what);
		if (r->status == GA_BENCH_FAILED) {
			bool wrong = r->reason && ga_startswith(r->reason, "wrong result");
			struct ga_finding *f = ga_findings_add(
			        &rep->findings, wrong ? GA_C_BENCH_WRONG_RESULT : GA_C_BENCH_FAILED,
			        GA_SEV_ERROR, subj,
			        wrong ? "take the device out of service and run the vendor diagnostics (e.g. "
			                "dcgmi diag -r 3)"
			              : "check the backend's installation and the device's health",
			        "%s on %s: %s", r->backend, r->device, r->reason ? r->reason : "failed");
			if (!f || (wrong && ga_finding_evidence(f, "rel_err", "%.3g", r->rel_err) < 0))
				return -ENOMEM;
			continue;
		}
		if (r->status != GA_BENCH_OK || isnan(r->rate))
			continue;
		double pol = policy_expected(cfg, r, any_gpu);
		if (!isnan(pol)) {
			r->expected = pol;
			r->expected_source = "policy";
		} else {
			bool gpu = !!strcmp(r->device_key, "cpu");
			double pk = ga_bench_builtin_peak(r->device, gpu, r->family);
			if (!gpu && !strcmp(r->kind, "gemm"))
				pk = !strcmp(family_tail(r->family), "fp64") ? rep->cpu_peak_fp64_flops
				                                             : rep->cpu_peak_fp32_flops;
			if (!isnan(pk)) {
				r->expected = pk;
				r->expected_source = "builtin";
			}
		}
		if (!isnan(r->expected) && r->expected > 0)
			r->percent = 100.0 * r->rate / r->expected;
		if (r->expected_source && !strcmp(r->expected_source, "policy") && min_fraction > 0 &&
		    r->rate < min_fraction * r->expected) {
			struct ga_finding *f = ga_findings_add(
			        &rep->findings, GA_C_BENCH_BELOW_EXPECTED, GA_SEV_ERROR, subj,
			        "check clocks, power and thermal throttling, PCIe/NVLink width and the "
			        "software stack",
			        "%s on %s reached %.1f%% of the expected %.4g %s (needs %.0f%%)", r->backend,
			        r->device, r->percent, r->expected, r->unit, 100 * min_fraction);
			if (!f || ga_finding_evidence(f, "expected", "%.6g", r->expected) < 0 ||
			    ga_finding_evidence(f, "actual", "%.6g", r->rate) < 0)
				return -ENOMEM;
		}
	}
	/* Pairs of backends on the same device measuring the same thing. */
	for (size_t i = 0; i < rep->n_results; i++) {
		const struct ga_bench_result *x = &rep->results[i];
		if (x->status != GA_BENCH_OK || !(x->rate_best > 0) || !strcmp(x->kind, "inference"))
			continue;
		for (size_t j = i + 1; j < rep->n_results; j++) {
			const struct ga_bench_result *y = &rep->results[j];
			if (y->status != GA_BENCH_OK || !(y->rate_best > 0) || strcmp(x->kind, y->kind) ||
			    strcmp(x->what, y->what) || strcmp(x->device_key, y->device_key) ||
			    !strcmp(x->backend, y->backend))
				continue;
			int e = add_ratio(rep, x, y, any_gpu);
			if (e < 0)
				return e;
		}
	}
	for (size_t i = 0; i < rep->n_backends; i++) {
		const struct ga_bench_backend_state *b = &rep->backends[i];
		if (!strcmp(b->status, "ok"))
			continue;
		struct ga_finding *f = ga_findings_add(
		        &rep->findings, GA_C_BENCH_BACKEND_UNAVAILABLE,
		        strcmp(b->status, "error") ? GA_SEV_INFO : GA_SEV_WARNING, b->name,
		        !strcmp(b->status, "absent")
		                ? "install the backend's libraries if this node class should have it"
		                : "check the driver and the device",
		        "%s backend %s: %s", b->name, b->status, b->reason ? b->reason : "-");
		if (!f)
			return -ENOMEM;
	}
	ga_findings_sort(&rep->findings);
	return rep->findings.err;
}
