/*
 * stats.c - percentiles, sample-size rules, outliers, Mann-Whitney U,
 * bootstrap of percentile ratios and the two-proportion test (stats.h).
 *
 * The Mann-Whitney test follows R's wilcox.test: W = R_x - m(m+1)/2, exact
 * distribution for small samples without ties, else the normal approximation
 * sigma^2 = (mn/12)[(N+1) - sum(t^3 - t)/(N(N-1))] with a continuity
 * correction of 1/2 toward the mean.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuaudit/stats.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void ga_stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_dbl);
}

double ga_stats_percentile(const double *sorted, size_t n, double pct)
{
	if (n == 0)
		return NAN;
	double p = pct < 0 ? 0 : pct > 100 ? 100 : pct;
	double r = floor(p / 100.0 * (double)n + 0.5);
	size_t k = r < 1 ? 1 : (size_t)r;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

double ga_stats_median(const double *sorted, size_t n)
{
	if (n == 0)
		return NAN;
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

double ga_stats_mean(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double ga_stats_stddev(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double mean = ga_stats_mean(v, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - mean) * (v[i] - mean);
	return sqrt(s / (double)(n - 1));
}

size_t ga_stats_min_samples(double pct, double confidence)
{
	double q = 1.0 - pct / 100.0, alpha = 1.0 - confidence;
	if (!(q > 0 && q < 1) || !(alpha > 0 && alpha < 1))
		return 0;
	/* P(Bin(n, q) <= 1) = (1-q)^n + n q (1-q)^(n-1), decreasing in n for n >= 1. */
	for (size_t n = 1; n < 100000000; n++) {
		double ln0 = (double)n * log1p(-q);
		double p = exp(ln0) + (double)n * q * exp(ln0 - log1p(-q));
		if (p <= alpha)
			return n;
	}
	return 0;
}

long ga_stats_outliers(const double *v, size_t n, double threshold, double *z)
{
	if (n == 0)
		return 0;
	double *s = ga_malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	ga_stats_sort(s, n);
	double med = ga_stats_median(s, n);
	for (size_t i = 0; i < n; i++)
		s[i] = fabs(v[i] - med);
	ga_stats_sort(s, n);
	double mad = ga_stats_median(s, n);
	ga_free(s);
	long count = 0;
	for (size_t i = 0; i < n; i++) {
		double d = v[i] - med, zi;
		if (mad > 0)
			zi = d / (1.4826 * mad);
		else
			zi = d == 0 ? 0 : (d > 0 ? INFINITY : -INFINITY);
		if (z)
			z[i] = zi;
		if (fabs(zi) > threshold)
			count++;
	}
	return count;
}

double ga_stats_norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

double ga_stats_norm_isf(double p)
{
	if (!(p > 0 && p < 1))
		return NAN;
	double lo = -40, hi = 40;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (ga_stats_norm_sf(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * Exact null distribution of W for sizes m, n: the coefficients of the
 * Gaussian binomial prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), normalised.
 * Returns the cumulative probabilities P(W <= w), w = 0..mn.
 */
static double *wilcox_cdf(size_t m, size_t n)
{
	size_t top = m * n;
	long double *c = ga_calloc(top + 1, sizeof(*c));
	double *cdf = ga_malloc((top + 1) * sizeof(*cdf));
	if (!c || !cdf) {
		ga_free(c);
		ga_free(cdf);
		return NULL;
	}
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t j = top; j >= n + i && j <= top; j--)
			c[j] -= c[j - n - i];
		for (size_t j = i; j <= top; j++)
			c[j] += c[j - i];
	}
	long double total = 0, run = 0;
	for (size_t j = 0; j <= top; j++)
		total += c[j];
	for (size_t j = 0; j <= top; j++) {
		run += c[j];
		cdf[j] = (double)(run / total);
	}
	ga_free(c);
	return cdf;
}

struct tagged {
	double v;
	int from_x;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_dbl(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

static double hodges_lehmann(const double *x, size_t m, const double *y, size_t n)
{
	if ((double)m * (double)n > 4e6)
		return NAN;
	double *d = ga_malloc(m * n * sizeof(*d));
	if (!d)
		return NAN;
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			d[k++] = x[i] - y[j];
	ga_stats_sort(d, k);
	double med = ga_stats_median(d, k);
	ga_free(d);
	return med;
}

int ga_stats_mwu(const double *x, size_t m, const double *y, size_t n, bool allow_exact, struct ga_mwu *ret)
{
	if (m == 0 || n == 0)
		return -EINVAL;
	size_t N = m + n;
	struct tagged *t = ga_malloc(N * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++) {
		if (isnan(x[i]))
			goto bad;
		t[i] = (struct tagged){ x[i], 1 };
	}
	for (size_t j = 0; j < n; j++) {
		if (isnan(y[j]))
			goto bad;
		t[m + j] = (struct tagged){ y[j], 0 };
	}
	qsort(t, N, sizeof(*t), cmp_tagged);
	double rank_x = 0, tie_sum = 0;
	bool ties = false;
	for (size_t i = 0; i < N;) {
		size_t j = i;
		size_t nx = 0;
		while (j < N && t[j].v == t[i].v) {
			nx += (size_t)t[j].from_x;
			j++;
		}
		double len = (double)(j - i);
		double avg = ((double)i + 1 + (double)j) / 2.0; /* ranks i+1..j */
		rank_x += avg * (double)nx;
		if (j - i > 1) {
			ties = true;
			tie_sum += len * len * len - len;
		}
		i = j;
	}
	ga_free(t);
	struct ga_mwu r;
	memset(&r, 0, sizeof(r));
	double dm = (double)m, dn = (double)n, dN = (double)N;
	r.w = rank_x - dm * (dm + 1) / 2;
	r.auc = r.w / (dm * dn);
	r.ties = ties;
	r.hl_shift = hodges_lehmann(x, m, y, n);
	double mu = dm * dn / 2;
	double var = dm * dn / 12.0 * ((dN + 1) - tie_sum / (dN * (dN - 1)));
	double sigma = sqrt(var > 0 ? var : 0);
	double d = r.w - mu;
	if (sigma > 0) {
		double corr = d > 0 ? 0.5 : d < 0 ? -0.5 : 0;
		r.z_two = (d - corr) / sigma;
	}
	if (allow_exact && m < 50 && n < 50 && !ties) {
		double *cdf = wilcox_cdf(m, n);
		if (!cdf)
			return -ENOMEM;
		size_t w = (size_t)llround(r.w);
		r.p_less = cdf[w];
		r.p_greater = w == 0 ? 1.0 : 1.0 - cdf[w - 1];
		double p = r.w > mu ? r.p_greater : r.p_less;
		r.p_two_sided = fmin(1.0, 2 * p);
		r.exact = true;
		ga_free(cdf);
	} else if (sigma > 0) {
		r.p_greater = ga_stats_norm_sf((d - 0.5) / sigma);
		r.p_less = 1.0 - ga_stats_norm_sf((d + 0.5) / sigma);
		double z = r.z_two;
		r.p_two_sided = fmin(1.0, 2 * fmin(1.0 - ga_stats_norm_sf(z), ga_stats_norm_sf(z)));
	} else {
		/* Every value tied: no evidence of a difference. */
		r.p_greater = r.p_less = r.p_two_sided = 1.0;
	}
	*ret = r;
	return 0;
bad:
	ga_free(t);
	return -EINVAL;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ga_rng_seed(struct ga_rng *r, uint64_t seed)
{
	/* splitmix64 expands the seed into the state. */
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		r->s[i] = z ^ (z >> 31);
	}
}

uint64_t ga_rng_next(struct ga_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double ga_rng_uniform(struct ga_rng *r)
{
	return ((double)(ga_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

double ga_rng_normal(struct ga_rng *r)
{
	/* Marsaglia's polar method (the second value is dropped: simpler state). */
	for (;;) {
		double u = 2 * ga_rng_uniform(r) - 1, v = 2 * ga_rng_uniform(r) - 1;
		double s = u * u + v * v;
		if (s > 0 && s < 1)
			return u * sqrt(-2 * log(s) / s);
	}
}

double ga_rng_gamma(struct ga_rng *r, double shape)
{
	/* Marsaglia and Tsang (2000). */
	double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9 * d);
	for (;;) {
		double x, v;
		do {
			x = ga_rng_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = ga_rng_uniform(r);
		if (u < 1 - 0.0331 * x * x * x * x)
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

double ga_rng_exponential(struct ga_rng *r, double rate)
{
	return -log(ga_rng_uniform(r)) / rate;
}

static size_t rank_of(double pct, size_t n)
{
	double r = floor(pct / 100.0 * (double)n + 0.5);
	size_t k = r < 1 ? 1 : (size_t)r;
	return k > n ? n : k;
}

/* One bootstrap draw of the k-th order statistic of a resample of sorted[0..n). */
static double draw_order_stat(struct ga_rng *rng, const double *sorted, size_t n, size_t k)
{
	double a = ga_rng_gamma(rng, (double)k), b = ga_rng_gamma(rng, (double)(n - k + 1));
	double u = a / (a + b);
	double idx = ceil(u * (double)n);
	size_t i = idx < 1 ? 1 : idx > (double)n ? n : (size_t)idx;
	return sorted[i - 1];
}

static int finish_ci(double *ratios, int resamples, double confidence, struct ga_boot_ci *ret)
{
	ga_stats_sort(ratios, (size_t)resamples);
	double tail = (1 - confidence) / 2 * 100;
	ret->lo = ga_stats_percentile(ratios, (size_t)resamples, tail);
	ret->hi = ga_stats_percentile(ratios, (size_t)resamples, 100 - tail);
	ret->resamples = resamples;
	return 0;
}

static int check_boot(const double *x, size_t m, const double *y, size_t n, double pct, double confidence,
                      int resamples)
{
	if (m == 0 || n == 0 || resamples < 100 || !(confidence > 0 && confidence < 1) ||
	    !(pct >= 0 && pct <= 100))
		return -EINVAL;
	/* Every possible resample quantile of the denominator must be > 0 for the ratio. */
	if (!(x[0] > 0) || !(y[0] >= 0))
		return -EINVAL;
	return 0;
}

int ga_stats_boot_ratio(const double *x, size_t m, const double *y, size_t n, double pct, double confidence,
                        int resamples, uint64_t seed, struct ga_boot_ci *ret)
{
	int err = check_boot(x, m, y, n, pct, confidence, resamples);
	if (err < 0)
		return err;
	double *ratios = ga_malloc((size_t)resamples * sizeof(*ratios));
	if (!ratios)
		return -ENOMEM;
	struct ga_rng rng;
	ga_rng_seed(&rng, seed);
	size_t kx = rank_of(pct, m), ky = rank_of(pct, n);
	for (int b = 0; b < resamples; b++) {
		double qx = draw_order_stat(&rng, x, m, kx);
		double qy = draw_order_stat(&rng, y, n, ky);
		ratios[b] = qy / qx;
	}
	struct ga_boot_ci ci = { .ratio = y[ky - 1] / x[kx - 1] };
	finish_ci(ratios, resamples, confidence, &ci);
	ga_free(ratios);
	*ret = ci;
	return 0;
}

static double naive_quantile(struct ga_rng *rng, const double *s, size_t n, double pct, double *buf)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = s[ga_rng_next(rng) % n];
	ga_stats_sort(buf, n);
	return ga_stats_percentile(buf, n, pct);
}

int ga_stats_boot_ratio_naive(const double *x, size_t m, const double *y, size_t n, double pct,
                              double confidence, int resamples, uint64_t seed, struct ga_boot_ci *ret)
{
	int err = check_boot(x, m, y, n, pct, confidence, resamples);
	if (err < 0)
		return err;
	double *ratios = ga_malloc((size_t)resamples * sizeof(*ratios));
	double *buf = ga_malloc((m > n ? m : n) * sizeof(*buf));
	if (!ratios || !buf) {
		ga_free(ratios);
		ga_free(buf);
		return -ENOMEM;
	}
	struct ga_rng rng;
	ga_rng_seed(&rng, seed);
	for (int b = 0; b < resamples; b++) {
		double qx = naive_quantile(&rng, x, m, pct, buf);
		double qy = naive_quantile(&rng, y, n, pct, buf);
		ratios[b] = qy / qx;
	}
	struct ga_boot_ci ci = { .ratio = ga_stats_percentile(y, n, pct) / ga_stats_percentile(x, m, pct) };
	finish_ci(ratios, resamples, confidence, &ci);
	ga_free(ratios);
	ga_free(buf);
	*ret = ci;
	return 0;
}

int ga_stats_two_prop(uint64_t e1, uint64_t n1, uint64_t e2, uint64_t n2, struct ga_prop_test *ret)
{
	if (n1 == 0 || n2 == 0 || e1 > n1 || e2 > n2)
		return -EINVAL;
	struct ga_prop_test t = { 0 };
	t.rate1 = (double)e1 / (double)n1;
	t.rate2 = (double)e2 / (double)n2;
	double pool = (double)(e1 + e2) / (double)(n1 + n2);
	double se = sqrt(pool * (1 - pool) * (1.0 / (double)n1 + 1.0 / (double)n2));
	if (se > 0) {
		t.z = (t.rate2 - t.rate1) / se;
		t.p_greater = ga_stats_norm_sf(t.z);
		t.p_two_sided = fmin(1.0, 2 * ga_stats_norm_sf(fabs(t.z)));
	} else {
		t.p_greater = t.p_two_sided = 1.0;
	}
	*ret = t;
	return 0;
}

double ga_stats_rate_upper(uint64_t e, uint64_t n, double confidence)
{
	if (n == 0 || e > n)
		return NAN;
	double z = ga_stats_norm_isf(1 - confidence);
	double dn = (double)n, p = (double)e / dn, z2 = z * z;
	double center = (p + z2 / (2 * dn)) / (1 + z2 / dn);
	double half = z / (1 + z2 / dn) * sqrt(p * (1 - p) / dn + z2 / (4 * dn * dn));
	return fmin(1.0, center + half);
}
