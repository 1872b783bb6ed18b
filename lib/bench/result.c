/*
 * result.c - read and write benchmark results (schema gpuaudit.bench/v1,
 * benchfile.h) through their model (lib/model/bench.c). The reader is what
 * canary feeds untrusted files to: the model's table reads the document, then
 * every metric is checked for range and the number of values is capped. The
 * writers' helpers turn a histogram and a metric into the model's form.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/model.h"
#include "gpuaudit/stats.h"

static void metric_release(struct ga_metric *m)
{
	ga_free(m->name);
	ga_free(m->unit);
	ga_free(m->samples);
	if (m->hist) {
		ga_hist_release(m->hist);
		ga_free(m->hist);
	}
}

void ga_bench_file_free(struct ga_bench_file *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_metrics; i++)
		metric_release(&r->metrics[i]);
	ga_free(r->metrics);
	ga_free(r->kind);
	ga_free(r);
}

const struct ga_metric *ga_bench_file_metric(const struct ga_bench_file *r, const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

/* Counters all histograms of one result may hold together (32 MiB). */
#define MAX_HIST_COUNTERS (4 << 20)

static bool i64_in(const struct ga_oi64 *o, int64_t lo, int64_t hi)
{
	return o->set && o->v >= lo && o->v <= hi;
}

static int read_hist(struct ga_ctx *ctx, const char *name, const struct ga_bench_doc_hist *h,
                     struct ga_metric *m, size_t *counters)
{
	if (!i64_in(&h->lowest_discernible, 1, INT64_MAX / 4) ||
	    !i64_in(&h->highest_trackable, 2, INT64_MAX / 4) || !i64_in(&h->significant_digits, 1, 4))
		return ga_err(ctx, -EINVAL,
		              "metric %s: histogram needs integer lowest_discernible, "
		              "highest_trackable and significant_digits (1..4)",
		              name);
	if (!h->value_scale.set || !(h->value_scale.v > 0) || !isfinite(h->value_scale.v))
		return ga_err(ctx, -EINVAL, "metric %s: histogram value_scale must be a positive number",
		              name);
	m->hist = ga_calloc(1, sizeof(*m->hist));
	if (!m->hist)
		return -ENOMEM;
	/* Bound the layout: at most 64 buckets of 2^(digits) sub-buckets. */
	int err = ga_hist_init(m->hist, h->lowest_discernible.v, h->highest_trackable.v,
	                       (int)h->significant_digits.v);
	if (err < 0) {
		ga_free(m->hist);
		m->hist = NULL;
		return err == -ENOMEM ? err
		                      : ga_err(ctx, -EINVAL, "metric %s: invalid histogram range", name);
	}
	*counters += (size_t)m->hist->counts_len;
	if (*counters > MAX_HIST_COUNTERS)
		return ga_err(ctx, -EINVAL, "metric %s: the histograms are too large together", name);
	m->hist_scale = h->value_scale.v;
	int64_t total = 0;
	for (size_t i = 0; i < h->n_buckets; i++) {
		const struct ga_bench_doc_bucket *b = &h->buckets[i];
		if (!b->value.set || !i64_in(&b->count, 0, GA_BENCH_MAX_VALUES))
			return ga_err(ctx, -EINVAL,
			              "metric %s: histogram bucket %zu must be [value, count] integers", name,
			              i);
		total += b->count.v;
		if (total > GA_BENCH_MAX_VALUES)
			return ga_err(ctx, -EINVAL, "metric %s: more than %d values", name,
			              GA_BENCH_MAX_VALUES);
		if (ga_hist_record_n(m->hist, b->value.v, b->count.v) < 0)
			return ga_err(ctx, -EINVAL, "metric %s: histogram value %lld outside its range", name,
			              (long long)b->value.v);
	}
	return 0;
}

static int read_metric(struct ga_ctx *ctx, size_t idx, const struct ga_bench_doc_metric *o,
                       struct ga_metric *m, size_t *counters)
{
	size_t len = o->name ? strlen(o->name) : 0;
	if (len == 0 || len > 200)
		return ga_err(ctx, -EINVAL, "metrics[%zu]: name must be a string of 1..200 bytes", idx);
	const char *nm = o->name;
	if (!o->unit || strlen(o->unit) > 32)
		return ga_err(ctx, -EINVAL, "metric %s: unit must be a short string", nm);
	if (!o->better || (strcmp(o->better, "higher") && strcmp(o->better, "lower")))
		return ga_err(ctx, -EINVAL, "metric %s: better must be \"higher\" or \"lower\"", nm);
	m->name = ga_strdup(nm);
	m->unit = ga_strdup(o->unit);
	if (!m->name || !m->unit)
		return -ENOMEM;
	m->higher_better = !strcmp(o->better, "higher");
	if (o->samples.v) {
		size_t n = o->samples.n;
		if (n > GA_BENCH_MAX_VALUES)
			return ga_err(ctx, -EINVAL, "metric %s: more than %d samples", nm,
			              GA_BENCH_MAX_VALUES);
		for (size_t i = 0; i < n; i++) {
			double x = o->samples.v[i];
			if (!isfinite(x) || x < 0)
				return ga_err(ctx, -EINVAL,
				              "metric %s: samples[%zu] must be a finite number >= 0", nm, i);
		}
		if (n) {
			m->samples = ga_malloc(n * sizeof(double));
			if (!m->samples)
				return -ENOMEM;
			memcpy(m->samples, o->samples.v, n * sizeof(double));
		}
		m->n_samples = n;
	} else if (o->histogram) {
		return read_hist(ctx, nm, o->histogram, m, counters);
	} else {
		return ga_err(ctx, -EINVAL, "metric %s: neither samples nor histogram", nm);
	}
	return 0;
}

/* The metrics and counts canary judges, from the document read through the model. */
static int from_doc(struct ga_ctx *ctx, const struct ga_bench_doc *d, struct ga_bench_file *r)
{
	if (!d->kind || !*d->kind || strlen(d->kind) > 64)
		return ga_err(ctx, -EINVAL, "kind must be a short string");
	if (d->n_metrics > GA_BENCH_MAX_METRICS)
		return ga_err(ctx, -EINVAL, "metrics must be an array of at most %d", GA_BENCH_MAX_METRICS);
	if (!(r->kind = ga_strdup(d->kind)))
		return -ENOMEM;
	size_t total = 0, counters = 0;
	for (size_t i = 0; i < d->n_metrics; i++) {
		struct ga_metric *m = ga_array_push((void **)&r->metrics, &r->n_metrics, sizeof(*m));
		if (!m)
			return -ENOMEM;
		int err = read_metric(ctx, i, &d->metrics[i], m, &counters);
		if (err < 0)
			return err;
		for (size_t j = 0; j + 1 < r->n_metrics; j++)
			if (!strcmp(r->metrics[j].name, m->name))
				return ga_err(ctx, -EINVAL, "metric %s appears twice", m->name);
		total += ga_metric_count(m);
		if (total > GA_BENCH_MAX_VALUES)
			return ga_err(ctx, -EINVAL, "more than %d values in all metrics",
			              GA_BENCH_MAX_VALUES);
	}
	const struct ga_bench_doc_http_head *h = &d->http;
	if (h->requests.set || h->errors.set) {
		if (!h->requests.set || !h->errors.set || h->errors.v > h->requests.v)
			return ga_err(ctx, -EINVAL,
			              "requests and errors must be integers with 0 <= errors <= requests");
		r->has_requests = true;
		r->requests = h->requests.v;
		r->errors = h->errors.v;
	}
	return 0;
}

/*
 * The messages canary has always given for a file that is not JSON, not a
 * benchmark result or without a metrics array; 0 when none applies. Only on
 * the rare paths (the model refused the file, or read no metric): the common
 * one parses once, in ga_model_read.
 */
static int diagnose(struct ga_ctx *ctx, const char *text, size_t len)
{
	json_error_t jerr;
	json_t *root = NULL;
	int err = ga_json_parse(ctx, text, len, JSON_REJECT_DUPLICATES, &root, &jerr);
	if (err == -ENOMEM)
		return err;
	if (!root)
		return ga_err(ctx, -EINVAL, "not JSON: line %d column %d: %s", jerr.line, jerr.column,
		              jerr.text);
	const json_t *schema = json_object_get(root, "schema");
	if (!json_is_object(root) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), GA_BENCH_SCHEMA))
		err = ga_err(ctx, -EINVAL, "not a benchmark result (schema %s expected)", GA_BENCH_SCHEMA);
	else if (!json_is_array(json_object_get(root, "metrics")))
		err = ga_err(ctx, -EINVAL, "metrics must be an array of at most %d", GA_BENCH_MAX_METRICS);
	json_decref(root);
	return err;
}

int ga_bench_file_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_bench_file **ret)
{
	struct ga_bench_file *r = NULL;
	struct ga_bench_doc doc;
	memset(&doc, 0, sizeof(doc));
	const struct ga_model *model = ga_model_find(GA_BENCH_SCHEMA);
	int err = ga_model_read(ctx, model, text, len, &doc);
	if (err == -ENOMEM)
		goto out;
	if (err < 0 || !doc.n_metrics) {
		int d = diagnose(ctx, text, len);
		if (d < 0 || err < 0) {
			err = d < 0 ? d : -EINVAL; /* else the model's message: a member of the wrong type */
			goto out;
		}
	}
	r = ga_calloc(1, sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	err = from_doc(ctx, &doc, r);
	if (err < 0)
		goto out;
	*ret = r;
	r = NULL;
out:
	ga_bench_file_free(r);
	ga_model_release(model, &doc);
	return err;
}

size_t ga_metric_count(const struct ga_metric *m)
{
	return m->hist ? (size_t)m->hist->total_count : m->n_samples;
}

int ga_metric_values(const struct ga_metric *m, double **ret, size_t *ret_n)
{
	size_t n = ga_metric_count(m), k = 0;
	double *v = ga_malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (m->hist) {
		const struct ga_hist *h = m->hist;
		for (int32_t i = 0; i < h->counts_len; i++)
			for (int64_t c = 0; c < h->counts[i]; c++)
				v[k++] = (double)ga_hist_highest_equivalent(h, ga_hist_value_at_index(h, i)) *
				         m->hist_scale;
	} else {
		if (n) /* a result without values has no samples array (memcpy's NULL is undefined) */
			memcpy(v, m->samples, n * sizeof(*v));
		k = n;
		ga_stats_sort(v, k);
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

/* ------------------------------------------------------------------ writing */

int ga_bench_doc_write(const struct ga_bench_doc *d, struct ga_buf *out, bool pretty)
{
	struct ga_bench_doc doc = *d;
	doc.schema = (char *)GA_BENCH_SCHEMA;
	return ga_model_write(ga_model_find(GA_BENCH_SCHEMA), &doc, out, pretty);
}

int ga_bench_doc_hist_set(struct ga_bench_doc_hist *hd, const struct ga_hist *h, double value_scale)
{
	memset(hd, 0, sizeof(*hd));
	GA_SET(hd->lowest_discernible, h->lowest_discernible);
	GA_SET(hd->highest_trackable, h->highest_trackable);
	GA_SET(hd->significant_digits, h->sig_digits);
	GA_SET(hd->value_scale, value_scale);
	GA_SET(hd->total_count, h->total_count);
	size_t n = 0;
	for (int32_t i = 0; i < h->counts_len; i++)
		n += h->counts[i] != 0;
	if (!n)
		return 0;
	hd->buckets = ga_malloc(n * sizeof(*hd->buckets));
	if (!hd->buckets)
		return -ENOMEM;
	for (int32_t i = 0; i < h->counts_len; i++) {
		if (!h->counts[i])
			continue;
		struct ga_bench_doc_bucket *b = &hd->buckets[hd->n_buckets++];
		GA_SET(b->value, ga_hist_value_at_index(h, i));
		GA_SET(b->count, h->counts[i]);
	}
	return 0;
}

void ga_bench_doc_hist_clear(struct ga_bench_doc_hist *hd)
{
	ga_free(hd->buckets);
	hd->buckets = NULL;
	hd->n_buckets = 0;
}

int ga_bench_doc_metric_set(struct ga_bench_doc_metric *m, const char *name, const char *unit,
                            bool higher_better, const double *samples, size_t n, const struct ga_hist *hist,
                            double hist_scale)
{
	static double none; /* samples of an empty list: written as [] */
	memset(m, 0, sizeof(*m));
	m->name = (char *)name;
	m->unit = (char *)unit;
	m->better = (char *)(higher_better ? "higher" : "lower");
	double median = NAN, min = NAN;
	if (hist) {
		m->histogram = ga_calloc(1, sizeof(*m->histogram));
		if (!m->histogram || ga_bench_doc_hist_set(m->histogram, hist, hist_scale) < 0) {
			ga_free(m->histogram);
			m->histogram = NULL;
			return -ENOMEM;
		}
		if (hist->total_count) {
			median = (double)ga_hist_percentile(hist, 50) * hist_scale;
			min = (double)hist->min_value * hist_scale;
		}
	} else {
		m->samples.v = n ? (double *)samples : &none;
		m->samples.n = n;
		double *s = n ? ga_malloc(n * sizeof(*s)) : NULL;
		if (n && !s)
			return -ENOMEM;
		if (s) {
			memcpy(s, samples, n * sizeof(*s));
			ga_stats_sort(s, n);
			median = ga_stats_median(s, n);
			min = s[0];
			ga_free(s);
		}
	}
	GA_SET(m->median, median);
	GA_SET(m->min, min);
	return 0;
}

void ga_bench_doc_metric_clear(struct ga_bench_doc_metric *m)
{
	if (m->histogram) {
		ga_bench_doc_hist_clear(m->histogram);
		ga_free(m->histogram);
		m->histogram = NULL;
	}
}
