/*
 * result.c - read and write benchmark results (schema gpuaudit.bench/v1, bench.h).
 * The reader is what canary feeds untrusted files to: every field is checked
 * for type and range, and the number of values is capped.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/benchfile.h"
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

static int get_i64(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *ret)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		return -EINVAL;
	json_int_t x = json_integer_value(v);
	if (x < lo || x > hi)
		return -EINVAL;
	*ret = x;
	return 0;
}

/* Counters all histograms of one result may hold together (32 MiB). */
#define MAX_HIST_COUNTERS (4 << 20)

static int read_hist(struct ga_ctx *ctx, const char *name, const json_t *h, struct ga_metric *m,
                     size_t *counters)
{
	int64_t lowest, highest, digits;
	if (!json_is_object(h) || get_i64(h, "lowest_discernible", 1, INT64_MAX / 4, &lowest) < 0 ||
	    get_i64(h, "highest_trackable", 2, INT64_MAX / 4, &highest) < 0 ||
	    get_i64(h, "significant_digits", 1, 4, &digits) < 0)
		return ga_err(ctx, -EINVAL,
		              "metric %s: histogram needs integer lowest_discernible, "
		              "highest_trackable and significant_digits (1..4)",
		              name);
	const json_t *scale = json_object_get(h, "value_scale");
	const json_t *buckets = json_object_get(h, "buckets");
	if (!json_is_number(scale) || !(json_number_value(scale) > 0) || !isfinite(json_number_value(scale)))
		return ga_err(ctx, -EINVAL, "metric %s: histogram value_scale must be a positive number",
		              name);
	if (!json_is_array(buckets))
		return ga_err(ctx, -EINVAL, "metric %s: histogram buckets must be an array", name);
	m->hist = ga_calloc(1, sizeof(*m->hist));
	if (!m->hist)
		return -ENOMEM;
	/* Bound the layout: at most 64 buckets of 2^(digits) sub-buckets. */
	int err = ga_hist_init(m->hist, lowest, highest, (int)digits);
	if (err < 0) {
		ga_free(m->hist);
		m->hist = NULL;
		return err == -ENOMEM ? err
		                      : ga_err(ctx, -EINVAL, "metric %s: invalid histogram range", name);
	}
	*counters += (size_t)m->hist->counts_len;
	if (*counters > MAX_HIST_COUNTERS)
		return ga_err(ctx, -EINVAL, "metric %s: the histograms are too large together", name);
	m->hist_scale = json_number_value(scale);
	size_t i;
	const json_t *b;
	int64_t total = 0;
	json_array_foreach(buckets, i, b)
	{
		const json_t *v = json_array_get(b, 0), *c = json_array_get(b, 1);
		if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_integer(v) ||
		    !json_is_integer(c) || json_integer_value(c) < 0 ||
		    json_integer_value(c) > GA_BENCH_MAX_VALUES)
			return ga_err(ctx, -EINVAL,
			              "metric %s: histogram bucket %zu must be [value, count] integers", name,
			              i);
		total += json_integer_value(c);
		if (total > GA_BENCH_MAX_VALUES)
			return ga_err(ctx, -EINVAL, "metric %s: more than %d values", name,
			              GA_BENCH_MAX_VALUES);
		if (ga_hist_record_n(m->hist, json_integer_value(v), json_integer_value(c)) < 0)
			return ga_err(ctx, -EINVAL, "metric %s: histogram value %lld outside its range", name,
			              (long long)json_integer_value(v));
	}
	return 0;
}

static int read_metric(struct ga_ctx *ctx, size_t idx, const json_t *o, struct ga_metric *m, size_t *counters)
{
	if (!json_is_object(o))
		return ga_err(ctx, -EINVAL, "metrics[%zu] must be an object", idx);
	const json_t *name = json_object_get(o, "name"), *unit = json_object_get(o, "unit"),
	             *better = json_object_get(o, "better"), *samples = json_object_get(o, "samples"),
	             *hist = json_object_get(o, "histogram");
	if (!json_is_string(name) || json_string_length(name) == 0 || json_string_length(name) > 200)
		return ga_err(ctx, -EINVAL, "metrics[%zu]: name must be a string of 1..200 bytes", idx);
	const char *nm = json_string_value(name);
	if (strlen(nm) != json_string_length(name))
		return ga_err(ctx, -EINVAL, "metrics[%zu]: name contains a NUL byte", idx);
	if (!json_is_string(unit) || json_string_length(unit) > 32 ||
	    strlen(json_string_value(unit)) != json_string_length(unit))
		return ga_err(ctx, -EINVAL, "metric %s: unit must be a short string", nm);
	if (!json_is_string(better) ||
	    (strcmp(json_string_value(better), "higher") && strcmp(json_string_value(better), "lower")))
		return ga_err(ctx, -EINVAL, "metric %s: better must be \"higher\" or \"lower\"", nm);
	m->name = ga_strdup(nm);
	m->unit = ga_strdup(json_string_value(unit));
	if (!m->name || !m->unit)
		return -ENOMEM;
	m->higher_better = !strcmp(json_string_value(better), "higher");
	if (samples && !json_is_null(samples)) {
		if (!json_is_array(samples))
			return ga_err(ctx, -EINVAL, "metric %s: samples must be an array", nm);
		size_t n = json_array_size(samples);
		if (n > GA_BENCH_MAX_VALUES)
			return ga_err(ctx, -EINVAL, "metric %s: more than %d samples", nm,
			              GA_BENCH_MAX_VALUES);
		if (n) {
			m->samples = ga_malloc(n * sizeof(double));
			if (!m->samples)
				return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			const json_t *v = json_array_get(samples, i);
			double x = json_number_value(v);
			if (!json_is_number(v) || !isfinite(x) || x < 0)
				return ga_err(ctx, -EINVAL,
				              "metric %s: samples[%zu] must be a finite number >= 0", nm, i);
			m->samples[i] = x;
		}
		m->n_samples = n;
	} else if (hist && !json_is_null(hist)) {
		return read_hist(ctx, nm, hist, m, counters);
	} else {
		return ga_err(ctx, -EINVAL, "metric %s: neither samples nor histogram", nm);
	}
	return 0;
}

int ga_bench_file_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_bench_file **ret)
{
	json_error_t jerr;
	struct ga_bench_file *r = NULL;
	json_t *root = NULL;
	int err = ga_json_parse(ctx, text, len, JSON_REJECT_DUPLICATES, &root, &jerr);
	if (err == -ENOMEM)
		goto out;
	if (!root) {
		err = ga_err(ctx, -EINVAL, "not JSON: line %d column %d: %s", jerr.line, jerr.column,
		             jerr.text);
		goto out;
	}
	const json_t *schema = json_object_get(root, "schema");
	if (!json_is_object(root) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), GA_BENCH_SCHEMA)) {
		err = ga_err(ctx, -EINVAL, "not a benchmark result (schema %s expected)", GA_BENCH_SCHEMA);
		goto out;
	}
	const json_t *kind = json_object_get(root, "kind"), *metrics = json_object_get(root, "metrics");
	if (!json_is_string(kind) || json_string_length(kind) == 0 || json_string_length(kind) > 64 ||
	    strlen(json_string_value(kind)) != json_string_length(kind)) {
		err = ga_err(ctx, -EINVAL, "kind must be a short string");
		goto out;
	}
	if (!json_is_array(metrics) || json_array_size(metrics) > GA_BENCH_MAX_METRICS) {
		err = ga_err(ctx, -EINVAL, "metrics must be an array of at most %d", GA_BENCH_MAX_METRICS);
		goto out;
	}
	r = ga_calloc(1, sizeof(*r));
	if (!r || !(r->kind = ga_strdup(json_string_value(kind)))) {
		err = -ENOMEM;
		goto out;
	}
	size_t total = 0, counters = 0;
	for (size_t i = 0; i < json_array_size(metrics); i++) {
		struct ga_metric *m = ga_array_push((void **)&r->metrics, &r->n_metrics, sizeof(*m));
		if (!m) {
			err = -ENOMEM;
			goto out;
		}
		err = read_metric(ctx, i, json_array_get(metrics, i), m, &counters);
		if (err < 0)
			goto out;
		for (size_t j = 0; j + 1 < r->n_metrics; j++)
			if (!strcmp(r->metrics[j].name, m->name)) {
				err = ga_err(ctx, -EINVAL, "metric %s appears twice", m->name);
				goto out;
			}
		total += ga_metric_count(m);
		if (total > GA_BENCH_MAX_VALUES) {
			err = ga_err(ctx, -EINVAL, "more than %d values in all metrics", GA_BENCH_MAX_VALUES);
			goto out;
		}
	}
	const json_t *req = json_object_get(root, "requests"), *errs = json_object_get(root, "errors");
	if (req || errs) {
		if (!json_is_integer(req) || !json_is_integer(errs) || json_integer_value(req) < 0 ||
		    json_integer_value(errs) < 0 || json_integer_value(errs) > json_integer_value(req)) {
			err = ga_err(ctx, -EINVAL,
			             "requests and errors must be integers with 0 <= errors <= requests");
			goto out;
		}
		r->has_requests = true;
		r->requests = (uint64_t)json_integer_value(req);
		r->errors = (uint64_t)json_integer_value(errs);
	}
	*ret = r;
	r = NULL;
	err = 0;
out:
	ga_bench_file_free(r);
	json_decref(root);
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
		memcpy(v, m->samples, n * sizeof(*v));
		k = n;
		ga_stats_sort(v, k);
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

void ga_hist_write_json(struct ga_json *w, const struct ga_hist *h, double value_scale)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "lowest_discernible");
	ga_json_i64(w, h->lowest_discernible);
	ga_json_key(w, "highest_trackable");
	ga_json_i64(w, h->highest_trackable);
	ga_json_key(w, "significant_digits");
	ga_json_i64(w, h->sig_digits);
	ga_json_key(w, "value_scale");
	ga_json_dbl(w, value_scale);
	ga_json_key(w, "total_count");
	ga_json_i64(w, h->total_count);
	ga_json_key(w, "buckets");
	ga_json_arr_begin(w);
	for (int32_t i = 0; i < h->counts_len; i++) {
		if (!h->counts[i])
			continue;
		ga_json_arr_begin(w);
		ga_json_i64(w, ga_hist_value_at_index(h, i));
		ga_json_i64(w, h->counts[i]);
		ga_json_arr_end(w);
	}
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

void ga_metric_write_json(struct ga_json *w, const char *name, const char *unit, bool higher_better,
                          const double *samples, size_t n, const struct ga_hist *hist, double hist_scale)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "name");
	ga_json_str(w, name);
	ga_json_key(w, "unit");
	ga_json_str(w, unit);
	ga_json_key(w, "better");
	ga_json_str(w, higher_better ? "higher" : "lower");
	double median = NAN, min = NAN;
	if (hist) {
		ga_json_key(w, "histogram");
		ga_hist_write_json(w, hist, hist_scale);
		if (hist->total_count) {
			median = (double)ga_hist_percentile(hist, 50) * hist_scale;
			min = (double)hist->min_value * hist_scale;
		}
	} else {
		ga_json_key(w, "samples");
		ga_json_arr_begin(w);
		for (size_t i = 0; i < n; i++)
			ga_json_dbl(w, samples[i]);
		ga_json_arr_end(w);
		double *s = n ? ga_malloc(n * sizeof(*s)) : NULL;
		if (s) {
			memcpy(s, samples, n * sizeof(*s));
			ga_stats_sort(s, n);
			median = ga_stats_median(s, n);
			min = s[0];
			ga_free(s);
		}
	}
	ga_json_key(w, "median");
	ga_json_dbl(w, median);
	ga_json_key(w, "min");
	ga_json_dbl(w, min);
	ga_json_obj_end(w);
}
