/*
 * canary-doc.c - a canary report (canary.c) as its document
 * (gpuaudit.canary/v1, the model in lib/model/canary.c): which figures are
 * null when a check did not run is decided here, once, for every writer.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "gpuaudit/canary.h"
#include "gpuaudit/canary-run.h"

/* A number, or absent (null) when it is not finite or the check did not produce it. */
static void num(struct ga_odbl *o, bool have, double v)
{
	if (have && isfinite(v))
		GA_SET(*o, v);
}

static void metric_doc(struct ga_canary_doc_metric *d, const struct ga_canary_metric *m)
{
	d->better = m->higher_better ? 1 : 0;
	GA_SET(d->missing, m->missing);
	GA_SET(d->n_baseline, m->n_base);
	GA_SET(d->n_candidate, m->n_cand);
	num(&d->baseline_median, true, m->base_median);
	num(&d->candidate_median, true, m->cand_median);
	num(&d->median_change, true, m->median_change);
	bool tested = m->cls != GA_CLASS_NODATA && m->cls != GA_CLASS_UNJUDGED; /* no MWU ran */
	num(&d->mwu_p, tested, m->mwu.p_two_sided);
	num(&d->mwu_auc, tested, m->mwu.auc);
	if (tested)
		GA_SET(d->mwu_exact, m->mwu.exact);
	d->cls = (int)m->cls;
	GA_SET(d->worse, m->worse);
	num(&d->min_effect, !m->missing, m->min_effect);
	d->tail = (int)m->tail;
	bool boot =
	        m->tail == GA_TAIL_PASS || m->tail == GA_TAIL_REGRESSION || m->tail == GA_TAIL_INCONCLUSIVE;
	num(&d->baseline_tail, m->tail != GA_TAIL_NA, m->base_tail);
	num(&d->candidate_tail, m->tail != GA_TAIL_NA, m->cand_tail);
	num(&d->tail_ratio, boot, m->tail_ci.ratio);
	num(&d->tail_ratio_lo, boot, m->tail_ci.lo);
	num(&d->tail_ratio_hi, boot, m->tail_ci.hi);
}

static int errors_doc(struct ga_canary_doc *d, const struct ga_canary_report *r)
{
	struct ga_canary_doc_errors *e = ga_calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	GA_SET(e->baseline_requests, r->base_requests);
	GA_SET(e->baseline_errors, r->base_errors);
	GA_SET(e->candidate_requests, r->cand_requests);
	GA_SET(e->candidate_errors, r->cand_errors);
	num(&e->z, true, r->errors.z);
	num(&e->p, true, r->errors.p_greater);
	num(&e->candidate_rate_upper, true, r->cand_error_upper);
	e->cls = (int)r->errors_cls;
	GA_SET(e->limit_broken, r->error_slo_broken);
	d->errors = e;
	return 0;
}

static void options_doc(struct ga_canary_doc_options *d, const struct ga_canary_opts *o)
{
	num(&d->confidence, true, o->confidence);
	num(&d->allowed_effect, true, o->allowed_effect);
	num(&d->tail_percentile, !o->no_tail, o->tail_pct);
	num(&d->max_tail_increase, true, o->max_tail_increase);
	num(&d->max_error_rate, o->max_error_rate >= 0, o->max_error_rate);
	GA_SET(d->resamples, o->resamples);
	GA_SET(d->seed, o->seed);
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *c = s ? ga_strdup(s) : NULL;
	if (s && !c)
		*oom = true;
	return c;
}

int ga_canary_doc_init(struct ga_canary_doc *d, const struct ga_canary_report *r,
                       const struct ga_canary_opts *o, const char *baseline, const char *candidate)
{
	bool oom = false;
	d->schema = dup_or_null(GA_CANARY_SCHEMA, &oom);
	d->kind = dup_or_null(r->kind, &oom);
	d->baseline = dup_or_null(baseline, &oom);
	d->candidate = dup_or_null(candidate, &oom);
	d->verdict = (int)r->verdict;
	num(&d->score, true, r->score);
	for (size_t i = 0; !oom && i < r->n_reasons; i++)
		oom = ga_strv_push(&d->reasons, r->reasons[i]) < 0;
	options_doc(&d->options, o);
	GA_SET(d->checks.pass, r->checks_pass);
	GA_SET(d->checks.fail, r->checks_fail);
	GA_SET(d->checks.nodata, r->checks_nodata);
	GA_SET(d->checks.unjudged, r->checks_unjudged);
	if (!oom && r->n_metrics && !(d->metrics = ga_calloc(r->n_metrics, sizeof(*d->metrics))))
		oom = true;
	for (size_t i = 0; !oom && i < r->n_metrics; i++, d->n_metrics++) {
		struct ga_canary_doc_metric *m = &d->metrics[i];
		m->name = dup_or_null(r->metrics[i].name, &oom);
		m->unit = dup_or_null(r->metrics[i].unit, &oom);
		metric_doc(m, &r->metrics[i]);
	}
	if (!oom && r->errors_checked && errors_doc(d, r) < 0)
		oom = true;
	return oom ? -ENOMEM : 0;
}

void ga_canary_doc_release(struct ga_canary_doc *d)
{
	ga_schema_release(&ga_canary_doc_schema, d);
	memset(d, 0, sizeof(*d));
}
