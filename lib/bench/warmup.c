/*
 * warmup.c - the built-in warm-up (warmup.h): a float32 GEMM on the best
 * available backend against a float64 reference. The error bound is relative
 * to sum_k |a_ik||b_kj|, which float32 accumulation keeps within about
 * n * 2^-24 whatever the summation order, so a faithful backend passes and a
 * wrong one (garbage, transposed, stale buffers) fails by orders of magnitude.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#include "gpuaudit/bench.h"
#include "gpuaudit/warmup.h"

struct ga_gemm_session {
	size_t n;
	const float *a, *b;
	/* a bench backend's open state; NULL for the plain C loop */
	const struct ga_bench_backend *be;
	struct ga_ctx *ctx;
	void *st, *job;
};

static void sess_why(struct ga_gemm_session *s, int r, char *why, size_t why_len)
{
	snprintf(why, why_len, "%s",
	         s->ctx && ga_ctx_errmsg(s->ctx)[0] ? ga_ctx_errmsg(s->ctx) : strerror(-r));
}

static void gemm_close(struct ga_gemm_session *s)
{
	if (!s)
		return;
	if (s->job)
		s->be->gemm_free(s->job);
	if (s->st)
		s->be->close(s->st);
	ga_ctx_free(s->ctx);
	ga_free(s);
}

/* A session holding n, A and B; NULL (why set) when out of memory. */
static struct ga_gemm_session *sess_new(size_t n, const float *a, const float *b, char *why, size_t why_len)
{
	struct ga_gemm_session *s = ga_calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return NULL;
	}
	s->n = n;
	s->a = a;
	s->b = b;
	return s;
}

static int cpu_open(const struct ga_gemm_backend *self, size_t n, const float *a, const float *b,
                    struct ga_gemm_session **sess, char *why, size_t why_len)
{
	(void)self;
	*sess = sess_new(n, a, b, why, why_len);
	return *sess ? 0 : -ENOMEM;
}

/* Plain C, i-k-j order so the inner loop streams rows of B and C. */
static int cpu_run(struct ga_gemm_session *s, float *c, char *why, size_t why_len)
{
	(void)why;
	(void)why_len;
	size_t n = s->n;
	const float *a = s->a, *b = s->b;
	memset(c, 0, n * n * sizeof(*c));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n; k++) {
			float aik = a[i * n + k];
			const float *brow = b + k * n;
			float *crow = c + i * n;
			for (size_t j = 0; j < n; j++)
				crow[j] += aik * brow[j];
		}
	return 0;
}

const struct ga_gemm_backend ga_gemm_cpu = {
	.name = "cpu", .open = cpu_open, .run = cpu_run, .close = gemm_close
};

/*
 * A bench backend (include/gpuaudit/bench.h) as a warm-up backend: open it,
 * take its first GPU (or, for CPU BLAS, its only device) and set up one
 * float32 GEMM with A and B uploaded; each run multiplies and reads C back.
 */
static int bench_open(const struct ga_gemm_backend *self, size_t n, const float *a, const float *b,
                      struct ga_gemm_session **sess, char *why, size_t why_len)
{
	const struct ga_bench_backend *be = self->bench;
	struct ga_gemm_session *s = sess_new(n, a, b, why, why_len);
	if (!s)
		return -ENOMEM;
	s->be = be;
	int r = ga_ctx_new(&s->ctx);
	if (r < 0) {
		sess_why(s, r, why, why_len);
		goto out;
	}
	struct ga_bench_config cfg;
	ga_bench_config_init(&cfg);
	r = be->open(s->ctx, &cfg, &s->st);
	if (r < 0) {
		/* a backend that cannot even open (absent, no device, library broken) is passed over */
		sess_why(s, r, why, why_len);
		r = r == -ENOMEM ? r : -ENOENT;
		goto out;
	}
	size_t dev = SIZE_MAX, nd = be->n_devices(s->st);
	for (size_t i = 0; i < nd && dev == SIZE_MAX; i++) {
		const struct ga_bench_device *d = be->device(s->st, i);
		if (d && (d->is_gpu || !self->gpu_only) && (d->gemm_dtypes & GA_DT_BIT(GA_DT_FP32)))
			dev = i;
	}
	if (dev == SIZE_MAX || !be->gemm_setup) {
		snprintf(why, why_len, "%s",
		         self->gpu_only ? "no GPU device" : "no device with float32 GEMM");
		r = -ENODEV;
		goto out;
	}
	r = be->gemm_setup(s->st, dev, GA_DT_FP32, n, n, n, a, b, &s->job);
	if (r < 0)
		sess_why(s, r, why, why_len);
out:
	if (r < 0) {
		gemm_close(s);
		return r;
	}
	*sess = s;
	return 0;
}

static int bench_run(struct ga_gemm_session *s, float *c, char *why, size_t why_len)
{
	int r = s->be->gemm_run(s->job, 1);
	if (r >= 0)
		r = s->be->gemm_read(s->job, c);
	if (r < 0) {
		sess_why(s, r, why, why_len);
		return r;
	}
	return 0;
}

int ga_gemm_once(const struct ga_gemm_backend *be, size_t n, const float *a, const float *b, float *c,
                 char *why, size_t why_len)
{
	struct ga_gemm_session *s = NULL;
	int r = be->open(be, n, a, b, &s, why, why_len);
	if (r < 0)
		return r;
	r = be->run(s, c, why, why_len);
	be->close(s);
	return r;
}

/*
 * The warm-up's backends: every registry entry with GA_BENCH_CAP_WARMUP, in
 * the registry's order (GPU devices only unless the entry is GA_BENCH_CAP_CPU),
 * then the plain C loop. Writes at most max rows; returns how many.
 */
static size_t warmup_rows(struct ga_gemm_backend *rows, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; ga_bench_registry[i].backend && n + 1 < max; i++) {
		const struct ga_bench_entry *e = &ga_bench_registry[i];
		if (!(e->caps & GA_BENCH_CAP_WARMUP))
			continue;
		rows[n++] = (struct ga_gemm_backend){ .name = e->backend->name,
			                              .open = bench_open,
			                              .run = bench_run,
			                              .close = gemm_close,
			                              .bench = e->backend,
			                              .gpu_only = !(e->caps & GA_BENCH_CAP_CPU) };
	}
	if (n < max)
		rows[n++] = ga_gemm_cpu;
	return n;
}

bool ga_warmup_backend_known(const char *name)
{
	if (!strcmp(name, "auto") || !strcmp(name, ga_gemm_cpu.name))
		return true;
	for (size_t i = 0; ga_bench_registry[i].backend; i++)
		if ((ga_bench_registry[i].caps & GA_BENCH_CAP_WARMUP) &&
		    !strcmp(ga_bench_registry[i].backend->name, name))
			return true;
	return false;
}

/* splitmix64: reproducible data for a given seed */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double compare(size_t n, const float *a, const float *b, const float *c)
{
	double worst = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double ref = 0, mag = 0;
			for (size_t k = 0; k < n; k++) {
				double x = (double)a[i * n + k] * (double)b[k * n + j];
				ref += x;
				mag += fabs(x);
			}
			double e = fabs((double)c[i * n + j] - ref) / (mag > 0 ? mag : 1);
			if (!(e <= worst)) /* NaN counts as the worst */
				worst = isnan(e) ? INFINITY : e;
		}
	return worst;
}

int ga_warmup_gemm(const char *backend, size_t n, size_t repeat, uint64_t seed, struct ga_warmup_result *ret)
{
	struct ga_warmup_result r;
	memset(&r, 0, sizeof(r));
	n = n ? n : 256;
	if (n > 4096 || repeat > sizeof(r.warm_s) / sizeof(r.warm_s[0]))
		return -EINVAL;
	if (backend && !ga_warmup_backend_known(backend))
		return -EINVAL;
	if (backend && !strcmp(backend, "auto"))
		backend = NULL;
	struct ga_gemm_backend rows[GA_WARMUP_MAX_BACKENDS];
	size_t n_rows = warmup_rows(rows, GA_ARRAY_SIZE(rows));
	r.n = n;
	r.tolerance = (double)n * 0x1p-24 * 4;
	float *a = ga_malloc(n * n * sizeof(float)), *b = ga_malloc(n * n * sizeof(float)),
	      *c = ga_malloc(n * n * sizeof(float));
	int err = 0;
	if (!a || !b || !c) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n * n; i++) {
		a[i] = (float)((double)(next_u64(&seed) >> 11) * 0x1p-53 * 2 - 1);
		b[i] = (float)((double)(next_u64(&seed) >> 11) * 0x1p-53 * 2 - 1);
	}
	/*
	 * The first backend whose first batch runs is the one used: one attempt
	 * per backend, no separate probe that would open it twice. A backend that
	 * is absent (-ENOENT), has no suitable device (-ENODEV) or cannot do it
	 * (-ENOTSUP) is passed over with its reason; any other failure is the
	 * warm-up's failure.
	 */
	const struct ga_gemm_backend *be = NULL;
	struct ga_gemm_session *sess = NULL;
	double t = 0;
	for (size_t i = 0; i < n_rows && !be; i++) {
		const struct ga_gemm_backend *cand = &rows[i];
		char why[160] = "";
		if (backend && strcmp(backend, cand->name))
			continue;
		t = ga_mono_s();
		int e = cand->open(cand, n, a, b, &sess, why, sizeof(why));
		if (e == 0) {
			e = cand->run(sess, c, why, sizeof(why));
			if (e == 0) {
				be = cand;
				break;
			}
			cand->close(sess);
			sess = NULL;
		}
		if (e != -ENOENT && e != -ENODEV && e != -ENOTSUP) {
			r.backend = cand->name;
			snprintf(r.error, sizeof(r.error), "%s", why[0] ? why : strerror(-e));
			goto done;
		}
		size_t l = strlen(r.skipped);
		snprintf(r.skipped + l, sizeof(r.skipped) - l, "%s%s: %s", l ? "; " : "", cand->name,
		         why[0] ? why : "unavailable");
	}
	if (!be) {
		snprintf(r.error, sizeof(r.error), "no backend available");
		goto done;
	}
	r.backend = be->name;
	r.cold_s = ga_mono_s() - t;
	r.ran = true;
	r.max_rel_err = compare(n, a, b, c);
	r.passed = r.max_rel_err <= r.tolerance;
	if (!r.passed) {
		snprintf(r.error, sizeof(r.error),
		         "result differs from the float64 reference: max relative error %.3g > %.3g",
		         r.max_rel_err, r.tolerance);
		goto done;
	}
	/* warm runs: the same session, so only the product and the read-back are timed */
	for (size_t k = 0; k < repeat; k++) {
		t = ga_mono_s();
		if (be->run(sess, c, r.error, sizeof(r.error)) < 0) {
			r.passed = false;
			goto done;
		}
		r.warm_s[r.n_warm++] = ga_mono_s() - t;
	}
	if (repeat) {
		/* the last warm product must still be right (stale or overwritten buffers) */
		double e = compare(n, a, b, c);
		r.max_rel_err = e > r.max_rel_err || isnan(e) ? e : r.max_rel_err;
		r.passed = r.max_rel_err <= r.tolerance;
		if (!r.passed)
			snprintf(r.error, sizeof(r.error),
			         "a warm run's result differs from the float64 reference: max relative error "
			         "%.3g > %.3g",
			         r.max_rel_err, r.tolerance);
	}
done:
	if (be)
		be->close(sess);
	*ret = r;
out:
	ga_free(a);
	ga_free(b);
	ga_free(c);
	return err;
}
