/*
 * hist.c - log-linear histogram with HdrHistogram's layout (see hist.h).
 *
 * The index arithmetic follows HdrHistogram's published design: a value's
 * bucket is the power of two above the sub-bucket range it falls in, the
 * sub-bucket is the value shifted down by that bucket (plus the unit
 * magnitude), and the counts array stores the lower half of every bucket
 * after the first only once (the lower half of bucket b+1 covers the same
 * values as the upper half of bucket b at half the resolution).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/hist.h"

static int clz64(uint64_t v)
{
	return v ? __builtin_clzll(v) : 64;
}

static int32_t buckets_needed(int64_t highest, int32_t sub_bucket_count, int unit_magnitude)
{
	int64_t smallest_untrackable = (int64_t)sub_bucket_count << unit_magnitude;
	int32_t needed = 1;
	while (smallest_untrackable <= highest) {
		if (smallest_untrackable > INT64_MAX / 2)
			return needed + 1;
		smallest_untrackable <<= 1;
		needed++;
	}
	return needed;
}

int ga_hist_init(struct ga_hist *h, int64_t lowest, int64_t highest, int sig_digits)
{
	memset(h, 0, sizeof(*h));
	if (lowest < 1 || sig_digits < 1 || sig_digits > 5 || highest < 2 * lowest)
		return -EINVAL;
	int64_t largest_single_unit = 2;
	for (int i = 0; i < sig_digits; i++)
		largest_single_unit *= 10;
	int sub_bucket_count_magnitude = 64 - clz64((uint64_t)largest_single_unit - 1); /* ceil(log2) */
	int half_mag = (sub_bucket_count_magnitude > 1 ? sub_bucket_count_magnitude : 1) - 1;
	int unit_magnitude = 63 - clz64((uint64_t)lowest); /* floor(log2) */
	if (unit_magnitude + half_mag > 61)
		return -EINVAL;
	h->lowest_discernible = lowest;
	h->highest_trackable = highest;
	h->sig_digits = sig_digits;
	h->unit_magnitude = unit_magnitude;
	h->sub_bucket_half_count_magnitude = half_mag;
	h->sub_bucket_count = (int32_t)1 << (half_mag + 1);
	h->sub_bucket_half_count = h->sub_bucket_count / 2;
	h->sub_bucket_mask = ((int64_t)h->sub_bucket_count - 1) << unit_magnitude;
	h->bucket_count = buckets_needed(highest, h->sub_bucket_count, unit_magnitude);
	h->counts_len = (h->bucket_count + 1) * h->sub_bucket_half_count;
	h->counts = ga_calloc((size_t)h->counts_len, sizeof(int64_t));
	if (!h->counts) {
		memset(h, 0, sizeof(*h));
		return -ENOMEM;
	}
	h->min_value = INT64_MAX;
	return 0;
}

void ga_hist_release(struct ga_hist *h)
{
	if (!h)
		return;
	ga_free(h->counts);
	memset(h, 0, sizeof(*h));
}

void ga_hist_reset(struct ga_hist *h)
{
	if (h->counts)
		memset(h->counts, 0, (size_t)h->counts_len * sizeof(int64_t));
	h->total_count = 0;
	h->min_value = INT64_MAX;
	h->max_value = 0;
	h->out_of_range = 0;
}

static int32_t bucket_index(const struct ga_hist *h, int64_t value)
{
	int pow2ceiling = 64 - clz64((uint64_t)(value | h->sub_bucket_mask));
	return pow2ceiling - h->unit_magnitude - (h->sub_bucket_half_count_magnitude + 1);
}

static int32_t sub_bucket_index(int64_t value, int32_t bucket, int unit_magnitude)
{
	return (int32_t)(value >> (bucket + unit_magnitude));
}

static int32_t counts_index(const struct ga_hist *h, int32_t bucket, int32_t sub)
{
	int32_t base = (bucket + 1) << h->sub_bucket_half_count_magnitude;
	return base + (sub - h->sub_bucket_half_count);
}

int32_t ga_hist_counts_index(const struct ga_hist *h, int64_t value)
{
	int32_t b = bucket_index(h, value);
	return counts_index(h, b, sub_bucket_index(value, b, h->unit_magnitude));
}

int64_t ga_hist_value_at_index(const struct ga_hist *h, int32_t index)
{
	int32_t bucket = (index >> h->sub_bucket_half_count_magnitude) - 1;
	int32_t sub = (index & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
	if (bucket < 0) {
		sub -= h->sub_bucket_half_count;
		bucket = 0;
	}
	return (int64_t)sub << (bucket + h->unit_magnitude);
}

static int64_t equivalent_range(const struct ga_hist *h, int64_t value)
{
	int32_t b = bucket_index(h, value);
	int32_t sub = sub_bucket_index(value, b, h->unit_magnitude);
	int32_t adjusted = sub >= h->sub_bucket_count ? b + 1 : b;
	return (int64_t)1 << (h->unit_magnitude + adjusted);
}

int64_t ga_hist_lowest_equivalent(const struct ga_hist *h, int64_t value)
{
	int32_t b = bucket_index(h, value);
	int32_t sub = sub_bucket_index(value, b, h->unit_magnitude);
	return (int64_t)sub << (b + h->unit_magnitude);
}

int64_t ga_hist_highest_equivalent(const struct ga_hist *h, int64_t value)
{
	return ga_hist_lowest_equivalent(h, value) + equivalent_range(h, value) - 1;
}

int64_t ga_hist_median_equivalent(const struct ga_hist *h, int64_t value)
{
	return ga_hist_lowest_equivalent(h, value) + (equivalent_range(h, value) >> 1);
}

int ga_hist_record_n(struct ga_hist *h, int64_t value, int64_t count)
{
	if (value < 0 || value > h->highest_trackable || count < 0) {
		h->out_of_range++;
		return -ERANGE;
	}
	int32_t i = ga_hist_counts_index(h, value);
	if (i < 0 || i >= h->counts_len) {
		h->out_of_range++;
		return -ERANGE;
	}
	if (count == 0)
		return 0;
	h->counts[i] += count;
	h->total_count += count;
	if (value < h->min_value)
		h->min_value = value;
	if (value > h->max_value)
		h->max_value = value;
	return 0;
}

int64_t ga_hist_merge(struct ga_hist *dst, const struct ga_hist *src)
{
	int64_t dropped = 0;
	for (int32_t i = 0; i < src->counts_len; i++) {
		int64_t c = src->counts[i];
		if (!c)
			continue;
		int64_t v = ga_hist_value_at_index(src, i);
		if (ga_hist_record_n(dst, v, c) < 0)
			dropped += c;
	}
	/* Keep the exact extremes of src where they fit. */
	if (src->total_count && dropped == 0) {
		if (src->min_value < dst->min_value)
			dst->min_value = src->min_value;
		if (src->max_value > dst->max_value)
			dst->max_value = src->max_value;
	}
	return dropped;
}

int64_t ga_hist_percentile(const struct ga_hist *h, double percentile)
{
	if (h->total_count == 0)
		return 0;
	double p = percentile < 0 ? 0 : percentile > 100 ? 100 : percentile;
	int64_t want = (int64_t)((p / 100.0) * (double)h->total_count + 0.5);
	if (want < 1)
		want = 1;
	int64_t run = 0;
	for (int32_t i = 0; i < h->counts_len; i++) {
		run += h->counts[i];
		if (run >= want) {
			int64_t v = ga_hist_value_at_index(h, i);
			return p == 0.0 ? ga_hist_lowest_equivalent(h, v) : ga_hist_highest_equivalent(h, v);
		}
	}
	return 0;
}

int64_t ga_hist_count_at_or_below(const struct ga_hist *h, int64_t value)
{
	if (value < 0)
		return 0;
	if (value > h->highest_trackable)
		return h->total_count;
	int32_t last = ga_hist_counts_index(h, value);
	int64_t run = 0;
	for (int32_t i = 0; i <= last && i < h->counts_len; i++)
		run += h->counts[i];
	return run;
}

double ga_hist_mean(const struct ga_hist *h)
{
	if (h->total_count == 0)
		return 0;
	double sum = 0;
	for (int32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i])
			sum += (double)h->counts[i] *
			       (double)ga_hist_median_equivalent(h, ga_hist_value_at_index(h, i));
	return sum / (double)h->total_count;
}

double ga_hist_stddev(const struct ga_hist *h)
{
	if (h->total_count == 0)
		return 0;
	double mean = ga_hist_mean(h), sq = 0;
	for (int32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i]) {
			double d = (double)ga_hist_median_equivalent(h, ga_hist_value_at_index(h, i)) - mean;
			sq += d * d * (double)h->counts[i];
		}
	return sqrt(sq / (double)h->total_count);
}

int ga_hist_spectrum(const struct ga_hist *h, int ticks_per_half, struct ga_hist_row **ret, size_t *ret_n)
{
	struct ga_hist_row *rows = NULL;
	size_t n = 0;
	*ret = NULL;
	*ret_n = 0;
	if (h->total_count == 0)
		return 0;
	if (ticks_per_half < 1)
		ticks_per_half = 1;
	double next = 0.0; /* percentile to iterate to */
	int64_t run = 0, last_value = 0;
	for (int32_t i = 0; i < h->counts_len && run < h->total_count; i++) {
		if (!h->counts[i])
			continue;
		run += h->counts[i];
		double cur = 100.0 * (double)run / (double)h->total_count;
		int64_t value = ga_hist_highest_equivalent(h, ga_hist_value_at_index(h, i));
		last_value = value;
		/* Rows while the target percentile is reached; one only for the last bucket. */
		while (next <= cur) {
			struct ga_hist_row *r = ga_array_push((void **)&rows, &n, sizeof(*rows));
			if (!r) {
				ga_free(rows);
				return -ENOMEM;
			}
			r->value = value;
			r->percentile = next;
			r->total_count = run;
			double halvings = floor(log(100.0 / (100.0 - next)) / log(2.0)) + 1;
			double ticks = ticks_per_half * pow(2.0, halvings);
			next += 100.0 / ticks;
			if (run >= h->total_count)
				break;
		}
	}
	struct ga_hist_row *r = ga_array_push((void **)&rows, &n, sizeof(*rows));
	if (!r) {
		ga_free(rows);
		return -ENOMEM;
	}
	r->value = last_value;
	r->percentile = 100.0;
	r->total_count = h->total_count;
	*ret = rows;
	*ret_n = n;
	return 0;
}

int ga_hist_write_percentiles(const struct ga_hist *h, int ticks_per_half, double value_scale,
                              struct ga_buf *out)
{
	struct ga_hist_row *rows = NULL;
	size_t n = 0;
	int err = ga_hist_spectrum(h, ticks_per_half, &rows, &n);
	if (err < 0)
		return err;
	int d = h->sig_digits;
	err = ga_buf_addf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
	                  "1/(1-Percentile)");
	for (size_t i = 0; i < n && err == 0; i++) {
		double p = rows[i].percentile / 100.0;
		if (rows[i].percentile < 100.0)
			err = ga_buf_addf(out, "%12.*f %2.12f %10lld %14.2f\n", d,
			                  (double)rows[i].value / value_scale, p,
			                  (long long)rows[i].total_count, 1.0 / (1.0 - p));
		else
			err = ga_buf_addf(out, "%12.*f %2.12f %10lld\n", d,
			                  (double)rows[i].value / value_scale, p,
			                  (long long)rows[i].total_count);
	}
	if (err == 0)
		err = ga_buf_addf(out,
		                  "#[Mean    = %12.*f, StdDeviation   = %12.*f]\n"
		                  "#[Max     = %12.*f, Total count    = %12lld]\n"
		                  "#[Buckets = %12d, SubBuckets     = %12d]\n",
		                  d, ga_hist_mean(h) / value_scale, d, ga_hist_stddev(h) / value_scale, d,
		                  (double)(h->total_count ? ga_hist_highest_equivalent(h, h->max_value) : 0) /
		                          value_scale,
		                  (long long)h->total_count, (int)h->bucket_count, (int)h->sub_bucket_count);
	ga_free(rows);
	return err;
}
