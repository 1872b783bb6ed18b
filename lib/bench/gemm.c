/*
 * gemm.c - the GEMM benchmark: the same timing and checking for every backend.
 *
 * Per backend, device, dtype and size: random data in [-1, 1) (never zeros),
 * setup and a first call timed together as the cold start (uploads, JIT,
 * module load), one more call to size a sample so it lasts min_sample_s, then
 * `reps` timed samples each ended by the backend's synchronisation. FLOP/s =
 * 2·M·N·K / t. The result is compared with a float64 product of the very
 * values the backend received (rows sampled when the matrix is large); an
 * error above the dtype's tolerance, or NaN, fails the result.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "bench-internal.h"

static double get(const void *p, enum ga_dtype dt, size_t i)
{
	switch (dt) {
	case GA_DT_FP32:
		return ((const float *)p)[i];
	case GA_DT_FP64:
		return ((const double *)p)[i];
	case GA_DT_FP16:
		return ga_fp16_to_fp32(((const uint16_t *)p)[i]);
	default:
		return ga_bf16_to_fp32(((const uint16_t *)p)[i]);
	}
}

static void put(void *p, enum ga_dtype dt, size_t i, double v)
{
	switch (dt) {
	case GA_DT_FP32:
		((float *)p)[i] = (float)v;
		break;
	case GA_DT_FP64:
		((double *)p)[i] = v;
		break;
	case GA_DT_FP16:
		((uint16_t *)p)[i] = ga_fp32_to_fp16((float)v);
		break;
	default:
		((uint16_t *)p)[i] = ga_fp32_to_bf16((float)v);
		break;
	}
}

/*
 * Relative Frobenius error of C over `rows` rows spread evenly, against the
 * float64 product of A and B as stored. NaN when C holds NaN/Inf.
 */
static double check(enum ga_dtype dt, size_t m, size_t n, size_t k, const void *a, const void *b,
                    const void *c, size_t rows, double *row_buf)
{
	double num = 0, den = 0;
	for (size_t r = 0; r < rows; r++) {
		size_t i = rows >= m ? r : r * (m - 1) / (rows > 1 ? rows - 1 : 1);
		for (size_t j = 0; j < n; j++)
			row_buf[j] = 0;
		for (size_t p = 0; p < k; p++) {
			double av = get(a, dt, i * k + p);
			if (dt == GA_DT_FP32) {
				const float *bp = (const float *)b + p * n;
				for (size_t j = 0; j < n; j++)
					row_buf[j] += av * bp[j];
			} else if (dt == GA_DT_FP64) {
				const double *bp = (const double *)b + p * n;
				for (size_t j = 0; j < n; j++)
					row_buf[j] += av * bp[j];
			} else {
				for (size_t j = 0; j < n; j++)
					row_buf[j] += av * get(b, dt, p * n + j);
			}
		}
		for (size_t j = 0; j < n; j++) {
			double cv = get(c, dt, i * n + j);
			if (!isfinite(cv))
				return NAN;
			num += (cv - row_buf[j]) * (cv - row_buf[j]);
			den += row_buf[j] * row_buf[j];
		}
	}
	return den > 0 ? sqrt(num / den) : NAN;
}

static size_t check_rows(size_t m, size_t n, size_t k)
{
	double work = (double)n * (double)k;
	double rows = (double)(1u << 27) / (work > 0 ? work : 1);
	if (rows >= (double)m)
		return m;
	return rows < 4 ? (m < 4 ? m : 4) : (size_t)rows;
}

static void metric_name(char *buf, size_t len, const char *family, size_t dev, const char *tail)
{
	if (dev)
		snprintf(buf, len, "%s.dev%zu.%s", family, dev, tail);
	else
		snprintf(buf, len, "%s.%s", family, tail);
}

/*
 * One GEMM measurement. On success *ret_res is the result added (ok or
 * failed); with ret_c the caller also gets C (free with ga_free).
 * -ENOMEM is the only error returned; backend failures become results.
 */
static int bench_gemm_one(struct ga_bench_session *s, const struct ga_bench_open *o, size_t dev,
                          enum ga_dtype dt, size_t m, size_t n, size_t k, struct ga_bench_report *rep,
                          struct ga_bench_result **ret_res, void **ret_c)
{
	const struct ga_bench_backend *b = o->b;
	const struct ga_bench_config *cfg = &s->cfg;
	char what[96], family[64], name[128], tail[32];
	snprintf(what, sizeof(what), "%s %zux%zux%zu", ga_dtype_name(dt), m, n, k);
	snprintf(family, sizeof(family), "gemm.%s.%s", b->name, ga_dtype_name(dt));
	if (m == n && n == k)
		snprintf(tail, sizeof(tail), "n%zu", n);
	else
		snprintf(tail, sizeof(tail), "m%zun%zuk%zu", m, n, k);
	struct ga_bench_result *res = ga_bench_result_add(rep, "gemm", o, dev, what, family);
	if (!res)
		return -ENOMEM;
	char call[160];
	snprintf(call, sizeof(call), "gemm %s %s", b->name, what);
	ga_progress(s->ctx, call);
	int err = 0;
	size_t es = ga_dtype_size(dt);
	void *a = ga_malloc(m * k * es), *bm = ga_malloc(k * n * es), *c = ga_malloc(m * n * es);
	double *row = ga_malloc(n * sizeof(double));
	void *job = NULL;
	double samples[GA_BENCH_MAX_REPS];
	unsigned reps = cfg->reps < 1 ? 1 : cfg->reps > GA_BENCH_MAX_REPS ? GA_BENCH_MAX_REPS : cfg->reps;
	if (!a || !bm || !c || !row) {
		err = ga_bench_result_set(res, GA_BENCH_FAILED, "out of memory for %s host matrices", what);
		goto out;
	}
	uint64_t seed = cfg->seed ^ ((uint64_t)dt << 32) ^ (m * 2654435761u);
	for (size_t i = 0; i < m * k; i++)
		put(a, dt, i, ga_bench_rand(&seed));
	for (size_t i = 0; i < k * n; i++)
		put(bm, dt, i, ga_bench_rand(&seed));

	double t0 = ga_bench_now();
	int r = b->gemm_setup(o->state, dev, dt, m, n, k, a, bm, &job);
	if (r >= 0)
		r = b->gemm_run(job, 1);
	double cold = ga_bench_now() - t0;
	if (r < 0) {
		err = ga_bench_result_set(res, r == -ENOTSUP ? GA_BENCH_SKIPPED : GA_BENCH_FAILED, "%s",
		                          ga_ctx_errmsg(s->ctx));
		goto out;
	}
	res->cold_s = cold;
	t0 = ga_bench_now();
	if ((r = b->gemm_run(job, 1)) < 0)
		goto fail;
	unsigned iters = ga_bench_iters_for(cfg, ga_bench_now() - t0);
	double flop = 2.0 * (double)m * (double)n * (double)k;
	for (unsigned i = 0; i < reps; i++) {
		t0 = ga_bench_now();
		if ((r = b->gemm_run(job, iters)) < 0)
			goto fail;
		double t = (ga_bench_now() - t0) / iters;
		samples[i] = t > 0 ? flop / t : NAN;
	}
	if ((r = b->gemm_read(job, c)) < 0)
		goto fail;
	if (cfg->corrupt_result)
		put(c, dt, 0, get(c, dt, 0) + 8.0);
	res->tolerance = ga_dtype_tolerance(dt);
	res->rel_err = check(dt, m, n, k, a, bm, c, check_rows(m, n, k), row);
	metric_name(name, sizeof(name), family, dev, tail);
	if (!ga_bench_metric_add(res, name, "flop/s", true, samples, reps)) {
		err = -ENOMEM;
		goto out;
	}
	{
		char cname[160];
		snprintf(cname, sizeof(cname), "%s.cold_start", name);
		if (!ga_bench_metric_add(res, cname, "s", false, &cold, 1)) {
			err = -ENOMEM;
			goto out;
		}
	}
	ga_bench_result_rates(res);
	if (!(res->rel_err <= res->tolerance))
		err = ga_bench_result_set(res, GA_BENCH_FAILED,
		                          "wrong result: relative error %.3g exceeds the %s tolerance %.0e",
		                          res->rel_err, ga_dtype_name(dt), res->tolerance);
	else
		err = ga_bench_result_set(res, GA_BENCH_OK, NULL);
	if (ret_c) {
		*ret_c = c;
		c = NULL;
	}
	goto out;
fail:
	err = ga_bench_result_set(res, GA_BENCH_FAILED, "%s", ga_ctx_errmsg(s->ctx));
out:
	if (job)
		b->gemm_free(job);
	ga_free(a);
	ga_free(bm);
	ga_free(c);
	ga_free(row);
	if (ret_res)
		*ret_res = res;
	return err;
}

int ga_bench_gemm(struct ga_bench_session *s, const struct ga_gemm_spec *spec, struct ga_bench_report *rep)
{
	for (size_t i = 0; i < s->n_open; i++) {
		const struct ga_bench_open *o = &s->open[i];
		if (!o->b->gemm_setup)
			continue;
		for (size_t d = 0; d < o->b->n_devices(o->state); d++) {
			const struct ga_bench_device *dv = o->b->device(o->state, d);
			for (int dt = 0; dt < GA_DT_COUNT; dt++) {
				if (spec->dtypes && !(spec->dtypes & GA_DT_BIT(dt)))
					continue;
				if (!(dv->gemm_dtypes & GA_DT_BIT(dt))) {
					if (!spec->dtypes || spec->quiet_missing)
						continue; /* not asked for by name: not worth a line */
					char what[64], fam[96];
					snprintf(what, sizeof(what), "%s", ga_dtype_name((enum ga_dtype)dt));
					snprintf(fam, sizeof(fam), "gemm.%s.%s", o->b->name, what);
					struct ga_bench_result *r =
					        ga_bench_result_add(rep, "gemm", o, d, what, fam);
					if (!r || ga_bench_result_set(r, GA_BENCH_SKIPPED,
					                              "%s has no %s GEMM on %s", o->b->name,
					                              what, dv->name) < 0)
						return -ENOMEM;
					continue;
				}
				bool gpu = dv->is_gpu && spec->n_gpu_sizes;
				size_t nz = gpu ? spec->n_gpu_sizes : spec->n_sizes;
				for (size_t z = 0; z < nz; z++) {
					size_t nn = gpu ? spec->gpu_sizes[z] : spec->sizes[z];
					int r = bench_gemm_one(s, o, d, (enum ga_dtype)dt, nn, nn, nn, rep,
					                       NULL, NULL);
					if (r < 0)
						return r;
				}
			}
		}
	}
	return 0;
}
