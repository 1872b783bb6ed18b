/*
 * canary.c - the canary judge (canary.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/canary.h"
#include "gpuaudit/canary-run.h"
#include "gpuaudit/benchfile-run.h"

/*
 * The default minimum practical effects (docs/canary.md "Minimum practical
 * effect"; measured with bench/canary-aa.sh on the 2-core test VM, results in
 * docs/performance.md):
 *  - exec.wall: consecutive A/A batches of 10 runs of `true`, `sleep 0.01`
 *    and `sleep 0.1` at load 13-17 differed in median by up to 51 ms at
 *    p < 0.02: the load a short batch carries, which averages out over longer
 *    batches: 200 ms / sqrt(runs) (63 ms at 10 runs, 20 ms at 100, 2.8 ms at
 *    5000), and at least 2 ms.
 *  - exec.cpu: CPU time below 10 ms (one clock tick at USER_HZ 100, the
 *    granularity of the kernel's user/system split) is not judged; A/A
 *    batches differed by up to 2.2 ms (+42 %) at 3-6 ms.
 *  - exec.peak_rss: A/A batches differed by up to 291 KB (+10 %; the forked
 *    child's pages before exec count): 1 MiB.
 * Other metrics (http.latency, throughputs) have the relative effect only.
 */
static const struct ga_canary_floor default_floors[] = {
	{ "exec.wall", 0.002, 0.200, false },
	{ "exec.cpu", 0.010, 0, true },
	{ "exec.peak_rss", 1048576, 0, false },
};

const struct ga_canary_floor *ga_canary_floor_find(const struct ga_canary_opts *o, const char *metric)
{
	for (size_t i = 0; i < o->n_floors; i++)
		if (!strcmp(o->floors[i].metric, metric))
			return &o->floors[i];
	for (size_t i = 0; i < sizeof(default_floors) / sizeof(default_floors[0]); i++)
		if (!strcmp(default_floors[i].metric, metric))
			return &default_floors[i];
	return NULL;
}

void ga_canary_opts_init(struct ga_canary_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->confidence = 0.98;
	o->allowed_effect = 0.05;
	o->max_tail_increase = 0.10;
	o->max_error_rate = -1;
	o->tail_pct = 99;
	o->resamples = 2000;
	o->seed = 1;
	o->min_bulk = 5;
}

const char *ga_canary_class_name(enum ga_canary_class c)
{
	static const char *const n[] = { "Pass", "High", "Low", "NoData", "Unjudged" };
	return n[c];
}

const char *ga_canary_tail_name(enum ga_canary_tail t)
{
	static const char *const n[] = { "n/a", "Pass", "Regression", "Inconclusive", "NoData" };
	return n[t];
}

const char *ga_canary_verdict_name(enum ga_canary_verdict v)
{
	static const char *const n[] = { "PASS", "ROLLBACK", "INCONCLUSIVE" };
	return n[v];
}

void ga_canary_report_free(struct ga_canary_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_metrics; i++) {
		ga_free(r->metrics[i].name);
		ga_free(r->metrics[i].unit);
	}
	for (size_t i = 0; i < r->n_reasons; i++)
		ga_free(r->reasons[i]);
	ga_free(r->reasons);
	ga_free(r->metrics);
	ga_free(r->kind);
	ga_free(r);
}

static int reason(struct ga_canary_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reason(struct ga_canary_report *r, const char *fmt, ...)
{
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	va_list ap;
	va_start(ap, fmt);
	int err = ga_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	char **slot = err ? NULL : ga_array_push((void **)&r->reasons, &r->n_reasons, sizeof(char *));
	if (!slot) {
		ga_buf_release(&b);
		return -ENOMEM;
	}
	*slot = ga_buf_detach(&b, NULL);
	return 0;
}

static double pct_conf(double c)
{
	return c * 100;
}

/* Judge one metric present in both results. */
static int judge_metric(const struct ga_metric *bm, const struct ga_metric *cm,
                        const struct ga_canary_opts *o, struct ga_canary_metric *out)
{
	double *x = NULL, *y = NULL;
	size_t m = 0, n = 0;
	int err = ga_metric_values(bm, &x, &m);
	if (err == 0)
		err = ga_metric_values(cm, &y, &n);
	if (err < 0)
		goto out;
	out->n_base = m;
	out->n_cand = n;
	out->base_median = ga_stats_median(x, m);
	out->cand_median = ga_stats_median(y, n);
	out->median_change = out->base_median > 0 ? out->cand_median / out->base_median - 1 : NAN;
	out->cls = GA_CLASS_NODATA;
	/* the minimum practical effect: relative and absolute (the floor shrinks with longer batches) */
	const struct ga_canary_floor *fl = ga_canary_floor_find(o, bm->name);
	size_t runs = m < n ? m : n;
	out->floor_abs = 0;
	if (fl) {
		out->floor_abs = fl->min_abs;
		if (fl->batch_abs > 0 && runs && fl->batch_abs / sqrt((double)runs) > out->floor_abs)
			out->floor_abs = fl->batch_abs / sqrt((double)runs);
	}
	out->min_effect = isfinite(out->base_median) ? fabs(out->base_median) * o->allowed_effect : NAN;
	if (out->floor_abs > 0 && !(out->min_effect >= out->floor_abs))
		out->min_effect = out->floor_abs;
	if (fl && fl->resolution && m && n && out->base_median < fl->min_abs &&
	    out->cand_median < fl->min_abs) {
		out->cls = GA_CLASS_UNJUDGED; /* below what the measurement resolves: not judged at all */
		out->worse = false;
		out->tail = GA_TAIL_NA;
		goto out;
	}
	if (m >= o->min_bulk && n >= o->min_bulk) {
		/* x = candidate, y = baseline: "greater" means the candidate is higher. */
		err = ga_stats_mwu(y, n, x, m, true, &out->mwu);
		if (err < 0)
			goto out;
		out->cls = GA_CLASS_PASS;
		double alpha = 1 - o->confidence;
		bool big = !isfinite(out->median_change) ||
		           fabs(out->cand_median - out->base_median) > out->min_effect;
		if (out->mwu.p_two_sided < alpha && big)
			out->cls = out->mwu.w > (double)m * (double)n / 2 ? GA_CLASS_HIGH : GA_CLASS_LOW;
	}
	out->worse = (out->cls == GA_CLASS_HIGH && !out->higher_better) ||
	             (out->cls == GA_CLASS_LOW && out->higher_better);
	out->tail = GA_TAIL_NA;
	if (!out->higher_better && !o->no_tail) {
		/* The bootstrap of a percentile needs about 10 values beyond it per arm. */
		out->tail_needed = (size_t)ceil(10.0 / (1 - o->tail_pct / 100) - 1e-9);
		out->base_tail = ga_stats_percentile(x, m, o->tail_pct);
		out->cand_tail = ga_stats_percentile(y, n, o->tail_pct);
		if (m < out->tail_needed || n < out->tail_needed || !(x[0] > 0) || !(out->base_tail > 0)) {
			out->tail = GA_TAIL_NODATA;
		} else {
			err = ga_stats_boot_ratio(x, m, y, n, o->tail_pct, o->confidence, o->resamples,
			                          o->seed, &out->tail_ci);
			if (err < 0)
				goto out;
			double limit = 1 + o->max_tail_increase;
			out->tail = out->tail_ci.lo > limit   ? GA_TAIL_REGRESSION
			            : out->tail_ci.hi < limit ? GA_TAIL_PASS
			                                      : GA_TAIL_INCONCLUSIVE;
			/* a tail that grew by no more than the absolute floor is practically the same */
			if (out->tail != GA_TAIL_PASS && out->cand_tail - out->base_tail <= out->floor_abs)
				out->tail = GA_TAIL_PASS;
		}
	}
out:
	ga_free(x);
	ga_free(y);
	return err;
}

static int add_metric(struct ga_canary_report *r, const struct ga_metric *src, struct ga_canary_metric **ret)
{
	struct ga_canary_metric *cm = ga_array_push((void **)&r->metrics, &r->n_metrics, sizeof(*cm));
	if (!cm)
		return -ENOMEM;
	cm->name = ga_strdup(src->name);
	cm->unit = ga_strdup(src->unit);
	cm->higher_better = src->higher_better;
	cm->base_median = cm->cand_median = cm->median_change = NAN;
	cm->min_effect = NAN;
	cm->base_tail = cm->cand_tail = NAN;
	if (!cm->name || !cm->unit)
		return -ENOMEM;
	*ret = cm;
	return 0;
}

/* Baseline metrics in order (judged where the candidate has them too), then the candidate's new ones. */
static int collect_metrics(struct ga_canary_report *r, const struct ga_bench_file *base,
                           const struct ga_bench_file *cand, const struct ga_canary_opts *o)
{
	int err;
	for (size_t i = 0; i < base->n_metrics; i++) {
		const struct ga_metric *bm = &base->metrics[i];
		const struct ga_metric *cmm = ga_bench_file_metric(cand, bm->name);
		struct ga_canary_metric *cm;
		if ((err = add_metric(r, bm, &cm)) < 0)
			return err;
		cm->in_baseline = true;
		if (!cmm || cmm->higher_better != bm->higher_better || strcmp(cmm->unit, bm->unit)) {
			cm->missing = true;
			cm->cls = GA_CLASS_NODATA;
			cm->tail = bm->higher_better || o->no_tail ? GA_TAIL_NA : GA_TAIL_NODATA;
			continue;
		}
		if ((err = judge_metric(bm, cmm, o, cm)) < 0)
			return err;
	}
	for (size_t i = 0; i < cand->n_metrics; i++) {
		if (ga_bench_file_metric(base, cand->metrics[i].name))
			continue;
		struct ga_canary_metric *cm;
		if ((err = add_metric(r, &cand->metrics[i], &cm)) < 0)
			return err;
		cm->missing = true;
		cm->cls = GA_CLASS_NODATA;
		cm->tail = GA_TAIL_NA;
	}
	return 0;
}

/* The two-proportion test of the error rates, when both results count requests. */
static int judge_errors(struct ga_canary_report *r, const struct ga_bench_file *base,
                        const struct ga_bench_file *cand, const struct ga_canary_opts *o)
{
	r->errors_cls = GA_CLASS_NODATA;
	if (!(base->has_requests && cand->has_requests && base->requests && cand->requests))
		return 0;
	r->errors_checked = true;
	r->base_requests = base->requests;
	r->base_errors = base->errors;
	r->cand_requests = cand->requests;
	r->cand_errors = cand->errors;
	int err = ga_stats_two_prop(base->errors, base->requests, cand->errors, cand->requests, &r->errors);
	if (err < 0)
		return err;
	r->cand_error_upper = ga_stats_rate_upper(cand->errors, cand->requests, o->confidence);
	r->errors_cls = r->errors.p_greater < 1 - o->confidence ? GA_CLASS_HIGH : GA_CLASS_PASS;
	if (o->max_error_rate >= 0 && r->errors.rate2 > o->max_error_rate)
		r->error_slo_broken = true;
	return 0;
}

/* What the checks found so far: a failure forces ROLLBACK, an undecided check INCONCLUSIVE. */
struct tally {
	bool fail, unsure;
};

/* v in the metric's unit for a reason: seconds as ms, bytes as KiB/MiB. */
static const char *fmt_unit(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "s"))
		snprintf(buf, len, "%.3g ms", v * 1e3);
	else if (!strcmp(unit, "byte") || !strcmp(unit, "bytes"))
		snprintf(buf, len, fabs(v) >= 1048576 ? "%.3g MiB" : "%.3g KiB",
		         fabs(v) >= 1048576 ? v / 1048576 : v / 1024);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
	return buf;
}

/* The bulk check of one metric: counted, with its reason. 0 or -ENOMEM. */
static int tally_bulk(struct ga_canary_report *r, const struct ga_canary_metric *m,
                      const struct ga_canary_opts *o, struct tally *t)
{
	char a[32], b[32], c[32];
	if (m->cls == GA_CLASS_UNJUDGED) {
		r->checks_unjudged++;
		return reason(r, "%s: medians %s and %s are below its resolution %s: not judged", m->name,
		              fmt_unit(a, sizeof(a), m->base_median, m->unit),
		              fmt_unit(b, sizeof(b), m->cand_median, m->unit),
		              fmt_unit(c, sizeof(c), m->floor_abs, m->unit));
	}
	if (m->cls == GA_CLASS_NODATA) {
		r->checks_nodata++;
		t->unsure = true;
		return reason(r, "%s: too few values for the Mann-Whitney test (%zu and %zu, need %zu each)",
		              m->name, m->n_base, m->n_cand, o->min_bulk);
	}
	if (m->worse) {
		r->checks_fail++;
		t->fail = true;
		char floor[64] = "";
		if (m->floor_abs > 0)
			snprintf(floor, sizeof(floor), ", at least %s",
			         fmt_unit(c, sizeof(c), m->floor_abs, m->unit));
		return reason(r,
		              "%s: median %+.1f%% (%s%s, %s is better), Mann-Whitney p = %.2g < %.2g and "
		              "more than the minimum effect %s (%.0f%% of the baseline%s)",
		              m->name, 100 * m->median_change, m->cand_median > m->base_median ? "+" : "",
		              fmt_unit(a, sizeof(a), m->cand_median - m->base_median, m->unit),
		              m->higher_better ? "higher" : "lower", m->mwu.p_two_sided, 1 - o->confidence,
		              fmt_unit(b, sizeof(b), m->min_effect, m->unit), 100 * o->allowed_effect, floor);
	}
	r->checks_pass++;
	return 0;
}

/* The tail check of one metric: counted, with its reason. 0 or -ENOMEM. */
static int tally_tail(struct ga_canary_report *r, const struct ga_canary_metric *m,
                      const struct ga_canary_opts *o, struct tally *t)
{
	double lim = 100 * o->max_tail_increase, cp = pct_conf(o->confidence);
	switch (m->tail) {
	case GA_TAIL_NA:
		return 0;
	case GA_TAIL_PASS:
		r->checks_pass++;
		return 0;
	case GA_TAIL_REGRESSION:
		r->checks_fail++;
		t->fail = true;
		return reason(
		        r, "%s: p%g is %.2fx the baseline's (%.0f%% CI %.2f-%.2f), above the allowed +%.0f%%",
		        m->name, o->tail_pct, m->tail_ci.ratio, cp, m->tail_ci.lo, m->tail_ci.hi, lim);
	case GA_TAIL_INCONCLUSIVE:
		r->checks_nodata++;
		t->unsure = true;
		return reason(r,
		              "%s: p%g ratio %.2f, %.0f%% CI %.2f-%.2f includes the +%.0f%% limit: more "
		              "values needed to decide",
		              m->name, o->tail_pct, m->tail_ci.ratio, cp, m->tail_ci.lo, m->tail_ci.hi, lim);
	case GA_TAIL_NODATA: /* one reason for all of them: tally_tail_nodata */
		r->checks_nodata++;
		t->unsure = true;
		return 0;
	}
	return 0;
}

/*
 * The tails too short to judge, as one reason: with the default p99 every
 * metric of a run under 1000 repetitions has one, and a line each said the
 * same thing three times. 0 or -ENOMEM.
 */
static int tally_tail_nodata(struct ga_canary_report *r, const struct ga_canary_opts *o)
{
	size_t k = 0, needed = 0, nb = SIZE_MAX, nc = SIZE_MAX;
	char names[512];
	int len = 0;
	names[0] = '\0';
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_canary_metric *m = &r->metrics[i];
		if (m->missing || m->tail != GA_TAIL_NODATA)
			continue;
		needed = m->tail_needed > needed ? m->tail_needed : needed;
		nb = m->n_base < nb ? m->n_base : nb;
		nc = m->n_cand < nc ? m->n_cand : nc;
		if (len >= 0 && (size_t)len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - (size_t)len, "%s%s", k ? ", " : "",
			                m->name);
		k++;
	}
	if (!k)
		return 0;
	return reason(r,
	              "p%g not judged (%s): needs %zu values per arm, have %zu and %zu (more runs, or "
	              "--no-tail to judge the bulk only)",
	              o->tail_pct, names, needed, nb, nc);
}

/* The error-rate checks: the test and the absolute limit. 0 or -ENOMEM. */
static int tally_errors(struct ga_canary_report *r, const struct ga_canary_opts *o, struct tally *t)
{
	int err = 0;
	if (!r->errors_checked)
		return 0;
	if (r->errors_cls == GA_CLASS_HIGH) {
		r->checks_fail++;
		t->fail = true;
		err = reason(
		        r, "error rate %.3g%% vs %.3g%% in the baseline (two-proportion z = %.2f, p = %.2g)",
		        100 * r->errors.rate2, 100 * r->errors.rate1, r->errors.z, r->errors.p_greater);
	} else {
		r->checks_pass++;
	}
	if (!err && r->error_slo_broken) {
		r->checks_fail++;
		t->fail = true;
		err = reason(r, "error rate %.3g%% is above the limit %.3g%%", 100 * r->errors.rate2,
		             100 * o->max_error_rate);
	}
	return err;
}

/* Checks, score, verdict and reasons. 0 or -ENOMEM. */
static int verdict(struct ga_canary_report *r, const struct ga_canary_opts *o)
{
	struct tally t = { false, false };
	int err = 0;
	for (size_t i = 0; i < r->n_metrics && !err; i++) {
		const struct ga_canary_metric *m = &r->metrics[i];
		if (m->missing) {
			r->checks_nodata++;
			t.unsure = true;
			err = reason(r, "%s: only in the %s, or with a different unit or direction", m->name,
			             m->in_baseline ? "baseline" : "candidate");
			continue;
		}
		err = tally_bulk(r, m, o, &t);
		if (!err)
			err = tally_tail(r, m, o, &t);
	}
	if (!err)
		err = tally_tail_nodata(r, o);
	if (!err)
		err = tally_errors(r, o, &t);
	if (err)
		return err;
	int decided = r->checks_pass + r->checks_fail;
	r->score = decided ? 100.0 * r->checks_pass / decided : NAN;
	if (t.fail) {
		r->score = 0; /* every check is critical: one failure forces 0, as in Kayenta */
		r->verdict = GA_VERDICT_ROLLBACK;
	} else if (t.unsure || decided == 0) {
		r->verdict = GA_VERDICT_INCONCLUSIVE;
		if (decided == 0)
			return reason(r, "no check could be decided");
	} else {
		r->verdict = GA_VERDICT_PASS;
	}
	return 0;
}

int ga_canary_judge(struct ga_ctx *ctx, const struct ga_bench_file *base, const struct ga_bench_file *cand,
                    const struct ga_canary_opts *o, struct ga_canary_report **ret)
{
	if (strcmp(base->kind, cand->kind))
		return ga_err(ctx, -EINVAL,
		              "results of different benchmarks: baseline kind %s, candidate kind %s",
		              base->kind, cand->kind);
	int err = -ENOMEM;
	struct ga_canary_report *r = ga_calloc(1, sizeof(*r));
	if (!r || !(r->kind = ga_strdup(base->kind)))
		goto out;
	if ((err = collect_metrics(r, base, cand, o)) < 0 || (err = judge_errors(r, base, cand, o)) < 0 ||
	    (err = verdict(r, o)) < 0)
		goto out;
	*ret = r;
	r = NULL;
	err = 0;
out:
	ga_canary_report_free(r);
	return err;
}
