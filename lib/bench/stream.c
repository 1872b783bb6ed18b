/*
 * stream.c - BabelStream's five kernels on every backend that has them.
 *
 * Arrays a, b, c start at 0.1, 0.2, 0.0; each iteration runs copy (c = a),
 * mul (b = s·c), add (c = a + b), triad (a = b + s·c) and dot (Σ a·b), with
 * BabelStream's byte counts (2, 2, 3, 3, 2 arrays). The first iteration is the
 * warm-up, reported as the cold start; the next `reps` are the samples.
 * Afterwards the arrays and the last dot are checked against the same
 * recurrence run on scalars (all elements are equal by construction).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "bench-internal.h"

static int stream_one(struct ga_bench_session *s, const struct ga_bench_open *o, size_t dev, size_t n,
                      struct ga_bench_report *rep)
{
	const struct ga_bench_backend *b = o->b;
	const struct ga_bench_device *dv = b->device(o->state, dev);
	unsigned reps = s->cfg.reps < 1                   ? 1
	                : s->cfg.reps > GA_BENCH_MAX_REPS ? GA_BENCH_MAX_REPS
	                                                  : s->cfg.reps;
	size_t es = dv->stream_fp64 ? 8 : 4;
	size_t first = rep->n_results; /* results move when the array grows: keep indices */
	double samples[GA_STREAM_COUNT][GA_BENCH_MAX_REPS];
	double cold[GA_STREAM_COUNT] = { 0 };
	void *job = NULL;
	int err = 0;
	for (int op = 0; op < GA_STREAM_COUNT; op++) {
		char what[64], fam[64];
		snprintf(what, sizeof(what), "%s %s n=%zu", ga_stream_op_name((enum ga_stream_op)op),
		         es == 8 ? "fp64" : "fp32", n);
		snprintf(fam, sizeof(fam), "stream.%s.%s", b->name, ga_stream_op_name((enum ga_stream_op)op));
		if (!ga_bench_result_add(rep, "stream", o, dev, what, fam))
			return -ENOMEM;
	}
	char call[96];
	snprintf(call, sizeof(call), "stream %s n=%zu", b->name, n);
	ga_progress(s->ctx, call);
	double t0 = ga_bench_now();
	int r = b->stream_setup(o->state, dev, n, &job);
	double setup_s = ga_bench_now() - t0;
	double dot = 0, gold_dot = 0;
	double ga = GA_STREAM_INIT_A, gb = GA_STREAM_INIT_B, gc = GA_STREAM_INIT_C, sc = GA_STREAM_SCALAR;
	for (unsigned it = 0; r >= 0 && it <= reps; it++) {
		for (int op = 0; op < GA_STREAM_COUNT && r >= 0; op++) {
			t0 = ga_bench_now();
			r = b->stream_run(job, (enum ga_stream_op)op, &dot);
			double t = ga_bench_now() - t0;
			if (it == 0)
				cold[op] = t + (op == 0 ? setup_s : 0);
			else
				samples[op][it - 1] =
				        t > 0 ? (double)ga_stream_op_arrays((enum ga_stream_op)op) *
				                        (double)n * (double)es / t
				              : NAN;
		}
		gc = ga;
		gb = sc * gc;
		gc = ga + gb;
		ga = gb + sc * gc;
		gold_dot = ga * gb * (double)n;
	}
	if (r < 0) {
		for (int op = 0; op < GA_STREAM_COUNT; op++)
			if ((err = ga_bench_result_set(&rep->results[first + (size_t)op],
			                               r == -ENOTSUP ? GA_BENCH_SKIPPED : GA_BENCH_FAILED,
			                               "%s", ga_ctx_errmsg(s->ctx))) < 0)
				goto out;
		goto out;
	}
	/* Check a spread of elements and the dot product. */
	double tol = es == 8 ? 1e-8 : 1e-4, worst = 0;
	size_t idx[5] = { 0, n / 4, n / 2, (3 * n) / 4, n - 1 };
	for (size_t i = 0; i < GA_ARRAY_SIZE(idx); i++) {
		double v[3];
		if ((r = b->stream_read(job, idx[i], v)) < 0) {
			for (int op = 0; op < GA_STREAM_COUNT; op++)
				if ((err = ga_bench_result_set(&rep->results[first + (size_t)op],
				                               GA_BENCH_FAILED, "%s",
				                               ga_ctx_errmsg(s->ctx))) < 0)
					goto out;
			goto out;
		}
		if (s->cfg.corrupt_result && i == 0)
			v[0] += 1.0;
		const double gold[3] = { ga, gb, gc };
		for (int j = 0; j < 3; j++) {
			double e = fabs(v[j] - gold[j]) / fabs(gold[j]);
			if (isnan(e) || isnan(worst))
				worst = NAN;
			else if (e > worst)
				worst = e;
		}
	}
	double dot_err = fabs(dot - gold_dot) / fabs(gold_dot);
	double dot_tol = es == 8 ? 1e-8 : 1e-3;
	for (int op = 0; op < GA_STREAM_COUNT; op++) {
		struct ga_bench_result *x = &rep->results[first + (size_t)op];
		char name[128], cname[160];
		if (dev)
			snprintf(name, sizeof(name), "%s.dev%zu", x->family, dev);
		else
			snprintf(name, sizeof(name), "%s", x->family);
		snprintf(cname, sizeof(cname), "%s.cold_start", name);
		if (!ga_bench_metric_add(x, name, "byte/s", true, samples[op], reps) ||
		    !ga_bench_metric_add(x, cname, "s", false, &cold[op], 1)) {
			err = -ENOMEM;
			goto out;
		}
		ga_bench_result_rates(x);
		x->cold_s = cold[op];
		x->rel_err = op == GA_STREAM_DOT ? dot_err : worst;
		x->tolerance = op == GA_STREAM_DOT ? dot_tol : tol;
		if (!(x->rel_err <= x->tolerance))
			err = ga_bench_result_set(x, GA_BENCH_FAILED,
			                          "wrong result: relative error %.3g against BabelStream's "
			                          "recurrence exceeds %.0e",
			                          x->rel_err, x->tolerance);
		else
			err = ga_bench_result_set(x, GA_BENCH_OK, NULL);
		if (err < 0)
			goto out;
	}
out:
	if (job)
		b->stream_free(job);
	return err;
}

int ga_bench_stream(struct ga_bench_session *s, size_t n, struct ga_bench_report *rep)
{
	if (n < 8)
		return ga_err(s->ctx, -EINVAL, "stream arrays need at least 8 elements");
	for (size_t i = 0; i < s->n_open; i++) {
		const struct ga_bench_open *o = &s->open[i];
		if (!o->b->stream_setup)
			continue;
		for (size_t d = 0; d < o->b->n_devices(o->state); d++) {
			int r = stream_one(s, o, d, n, rep);
			if (r < 0)
				return r;
		}
	}
	return 0;
}
