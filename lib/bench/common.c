/*
 * common.c - what every primitive benchmark shares: dtypes and their
 * conversions, sample statistics, the result model and its JSON form
 * (gpuaudit.bench/v1), and the session that holds the opened backends.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#include "bench-internal.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"

static const char *const dtype_names[GA_DT_COUNT] = { "fp32", "fp64", "fp16", "bf16" };

const char *ga_dtype_name(enum ga_dtype d)
{
	return (unsigned)d < GA_DT_COUNT ? dtype_names[d] : "?";
}

size_t ga_dtype_size(enum ga_dtype d)
{
	return d == GA_DT_FP64 ? 8 : d == GA_DT_FP32 ? 4 : 2;
}

double ga_dtype_tolerance(enum ga_dtype d)
{
	/* ../shared/reference/measurement.md: ~1e-5 fp32, ~1e-2 for 16-bit types. */
	switch (d) {
	case GA_DT_FP64:
		return 1e-12;
	case GA_DT_FP32:
		return 1e-5;
	default:
		return 1e-2;
	}
}

int ga_dtype_parse(const char *s, enum ga_dtype *ret)
{
	for (int i = 0; i < GA_DT_COUNT; i++)
		if (!strcmp(s, dtype_names[i])) {
			*ret = (enum ga_dtype)i;
			return 0;
		}
	return -EINVAL;
}

static uint32_t f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint16_t ga_fp32_to_bf16(float f)
{
	uint32_t u = f2u(f);
	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN stays NaN */
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float ga_bf16_to_fp32(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

uint16_t ga_fp32_to_fp16(float f)
{
	uint32_t u = f2u(f);
	uint32_t sign = (u >> 16) & 0x8000u;
	uint32_t absu = u & 0x7fffffffu;
	if (absu > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u);
	if (absu >= 0x477ff000u) /* rounds to >= 65520: infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (absu < 0x38800000u) { /* below 2^-14: subnormal or zero */
		float a = u2f(absu);
		/* a * 2^24 rounded to nearest even is the subnormal's mantissa */
		float m = a * 16777216.0f;
		uint32_t r = (uint32_t)lrintf(m);
		return (uint16_t)(sign | r);
	}
	uint32_t exp = (absu >> 23) - 127 + 15;
	uint32_t mant = absu & 0x7fffffu;
	uint32_t h = (exp << 10) | (mant >> 13);
	uint32_t rest = mant & 0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
		h++;
	return (uint16_t)(sign | h);
}

float ga_fp16_to_fp32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
	if (exp == 0) {
		float v = (float)mant / 16777216.0f;
		return sign ? -v : v;
	}
	if (exp == 31)
		return u2f(sign | 0x7f800000u | (mant << 13));
	return u2f(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

static const char *const stream_names[GA_STREAM_COUNT] = { "copy", "mul", "add", "triad", "dot" };
static const unsigned stream_arrays[GA_STREAM_COUNT] = { 2, 2, 3, 3, 2 };

const char *ga_stream_op_name(enum ga_stream_op op)
{
	return (unsigned)op < GA_STREAM_COUNT ? stream_names[op] : "?";
}

unsigned ga_stream_op_arrays(enum ga_stream_op op)
{
	return (unsigned)op < GA_STREAM_COUNT ? stream_arrays[op] : 0;
}

const char *ga_xfer_dir_name(enum ga_xfer_dir d)
{
	static const char *const n[GA_XFER_COUNT] = { "h2d", "d2h", "d2d" };
	return (unsigned)d < GA_XFER_COUNT ? n[d] : "?";
}

const char *ga_bench_status_name(enum ga_bench_status s)
{
	return s == GA_BENCH_OK ? "ok" : s == GA_BENCH_SKIPPED ? "skipped" : "failed";
}

void ga_bench_config_init(struct ga_bench_config *c)
{
	memset(c, 0, sizeof(*c));
	c->reps = 5;
	c->min_sample_s = 0.005;
	c->seed = 1;
}

double ga_bench_now(void)
{
	return ga_mono_s();
}

double ga_bench_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	uint64_t r = (x * 0x2545f4914f6cdd1dull) >> 11; /* 53 bits */
	double v = (double)r / 9007199254740992.0 * 2.0 - 1.0;
	return v == 0.0 ? 0.5 : v;
}

unsigned ga_bench_iters_for(const struct ga_bench_config *cfg, double one_s)
{
	if (!(one_s > 0) || one_s >= cfg->min_sample_s)
		return 1;
	double it = ceil(cfg->min_sample_s / one_s);
	return it > 1e6 ? 1000000u : (unsigned)it;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void ga_bench_stats(const double *v, size_t n, double *ret_median, double *ret_min, double *ret_max)
{
	double tmp[GA_BENCH_MAX_REPS];
	if (n == 0 || n > GA_BENCH_MAX_REPS) {
		*ret_median = *ret_min = *ret_max = NAN;
		return;
	}
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_dbl);
	*ret_min = tmp[0];
	*ret_max = tmp[n - 1];
	*ret_median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* --- report model --- */

void ga_bench_report_init(struct ga_bench_report *r, const char *kind)
{
	memset(r, 0, sizeof(*r));
	r->kind = ga_strdup(kind);
	ga_findings_init(&r->findings);
	r->cpu_peak_fp32_flops = r->cpu_peak_fp64_flops = NAN;
}

static void result_release(struct ga_bench_result *r)
{
	ga_free(r->kind);
	ga_free(r->backend);
	ga_free(r->impl);
	ga_free(r->device);
	ga_free(r->device_key);
	ga_free(r->what);
	ga_free(r->family);
	ga_free(r->reason);
	for (size_t i = 0; i < r->n_metrics; i++) {
		ga_free(r->metrics[i].name);
		ga_free(r->metrics[i].samples);
	}
	ga_free(r->metrics);
}

void ga_bench_report_release(struct ga_bench_report *r)
{
	ga_free(r->kind);
	for (size_t i = 0; i < r->n_backends; i++) {
		ga_free(r->backends[i].name);
		ga_free(r->backends[i].status);
		ga_free(r->backends[i].reason);
		ga_free(r->backends[i].version);
	}
	ga_free(r->backends);
	for (size_t i = 0; i < r->n_results; i++)
		result_release(&r->results[i]);
	ga_free(r->results);
	for (size_t i = 0; i < r->n_ratios; i++) {
		ga_free(r->ratios[i].device_key);
		ga_free(r->ratios[i].what);
		ga_free(r->ratios[i].fast);
		ga_free(r->ratios[i].slow);
	}
	ga_free(r->ratios);
	ga_findings_release(&r->findings);
	memset(r, 0, sizeof(*r));
}

struct ga_bench_result *ga_bench_result_add(struct ga_bench_report *rep, const char *kind,
                                            const struct ga_bench_open *o, size_t dev, const char *what,
                                            const char *family)
{
	struct ga_bench_result *r = ga_array_push((void **)&rep->results, &rep->n_results, sizeof(*r));
	if (!r)
		return NULL;
	r->cold_s = r->rate = r->rate_best = r->expected = r->percent = r->rel_err = r->tolerance = NAN;
	r->device_index = dev;
	const struct ga_bench_device *d = o && o->b->device ? o->b->device(o->state, dev) : NULL;
	const char *ver = o && o->b->version ? o->b->version(o->state) : NULL;
	r->kind = ga_strdup(kind);
	r->backend = ga_strdup(o ? o->b->name : "host");
	r->impl = ver ? ga_strdup(ver) : NULL;
	r->device = ga_strdup(d ? d->name : "host");
	r->device_key = ga_strdup(d ? d->key : "cpu");
	r->what = ga_strdup(what);
	r->family = ga_strdup(family);
	if (!r->kind || !r->backend || (ver && !r->impl) || !r->device || !r->device_key || !r->what ||
	    !r->family) {
		result_release(r);
		rep->n_results--;
		return NULL;
	}
	return r;
}

int ga_bench_result_set(struct ga_bench_result *r, enum ga_bench_status st, const char *fmt, ...)
{
	r->status = st;
	ga_free(r->reason);
	r->reason = NULL;
	if (!fmt)
		return 0;
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	va_list ap;
	va_start(ap, fmt);
	int e = ga_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (e < 0 && e != -E2BIG) {
		ga_buf_release(&b);
		return e;
	}
	r->reason = ga_buf_detach(&b, NULL);
	return r->reason ? 0 : -ENOMEM;
}

struct ga_bench_metric *ga_bench_metric_add(struct ga_bench_result *r, const char *name, const char *unit,
                                            bool higher_better, const double *samples, size_t n)
{
	if (n == 0 || n > GA_BENCH_MAX_REPS)
		return NULL;
	char *nm = ga_strdup(name);
	double *s = ga_malloc(n * sizeof(*s));
	struct ga_bench_metric *m =
	        nm && s ? ga_array_push((void **)&r->metrics, &r->n_metrics, sizeof(*m)) : NULL;
	if (!m) {
		ga_free(nm);
		ga_free(s);
		return NULL;
	}
	memcpy(s, samples, n * sizeof(*s));
	m->name = nm;
	m->unit = unit;
	m->higher_better = higher_better;
	m->samples = s;
	m->n_samples = n;
	ga_bench_stats(s, n, &m->median, &m->min, &m->max);
	return m;
}

void ga_bench_result_rates(struct ga_bench_result *r)
{
	if (!r->n_metrics)
		return;
	const struct ga_bench_metric *m = &r->metrics[0];
	r->unit = m->unit;
	r->rate = m->median;
	r->rate_best = m->higher_better ? m->max : m->min;
}

/* --- JSON: the report in the model's form (lib/model/bench.c) --- */

/* NaN (not measured) is written as null by the model's number writer. */
static struct ga_odbl num(double v)
{
	struct ga_odbl o = { v, true };
	return o;
}

static void result_doc(struct ga_bench_doc_result *d, const struct ga_bench_result *r)
{
	memset(d, 0, sizeof(*d));
	d->kind = r->kind;
	d->backend = r->backend;
	d->impl = r->impl;
	GA_SET(d->device_index, r->device_index);
	d->device = r->device;
	d->device_key = r->device_key;
	d->what = r->what;
	d->family = r->family;
	d->status = (char *)ga_bench_status_name(r->status);
	d->reason = r->reason;
	d->unit = (char *)r->unit;
	d->median = num(r->rate);
	d->best = num(r->rate_best);
	d->cold_start_s = num(r->cold_s);
	d->expected = num(r->expected);
	d->expected_source = (char *)r->expected_source;
	d->percent_of_expected = num(r->percent);
	d->rel_err = num(r->rel_err);
	d->tolerance = num(r->tolerance);
}

static void metric_doc(struct ga_bench_doc_metric *d, const struct ga_bench_metric *m)
{
	static double none; /* no sample: [] */
	memset(d, 0, sizeof(*d));
	d->name = m->name;
	d->unit = (char *)m->unit;
	d->better = (char *)(m->higher_better ? "higher" : "lower");
	d->samples.v = m->n_samples ? m->samples : &none;
	d->samples.n = m->n_samples;
	d->median = num(m->median);
	d->min = num(m->min);
	d->max = num(m->max);
}

int ga_bench_report_json(const struct ga_bench_report *r, struct ga_buf *out, bool pretty)
{
	struct ga_bench_doc d;
	memset(&d, 0, sizeof(d));
	d.kind = r->kind;
	d.prim.set = d.prim_tail.set = true;
	d.prim.host.cpu_peak_fp32_flops = num(r->cpu_peak_fp32_flops);
	d.prim.host.cpu_peak_fp64_flops = num(r->cpu_peak_fp64_flops);
	size_t n_metrics = 0;
	for (size_t i = 0; i < r->n_results; i++)
		n_metrics += r->results[i].n_metrics;
	/* one allocation for the arrays of structs (strings, samples, findings are borrowed) */
	size_t nb = r->n_backends, nr = r->n_results, nx = r->n_ratios;
	char *mem = ga_malloc(nb * sizeof(*d.prim.backends) + nr * sizeof(*d.prim.results) +
	                      n_metrics * sizeof(*d.metrics) + nx * sizeof(*d.prim_tail.ratios) + 1);
	if (!mem)
		return -ENOMEM;
	d.prim.backends = (void *)mem;
	d.prim.results = (void *)(d.prim.backends + nb);
	d.metrics = (void *)(d.prim.results + nr);
	d.prim_tail.ratios = (void *)(d.metrics + n_metrics);
	for (size_t i = 0; i < nb; i++) {
		const struct ga_bench_backend_state *b = &r->backends[i];
		struct ga_bench_doc_backend *o = &d.prim.backends[d.prim.n_backends++];
		memset(o, 0, sizeof(*o));
		o->name = b->name;
		o->status = b->status;
		o->reason = b->reason;
		o->version = b->version;
		GA_SET(o->devices, b->n_devices);
	}
	for (size_t i = 0; i < nr; i++) {
		result_doc(&d.prim.results[d.prim.n_results++], &r->results[i]);
		for (size_t j = 0; j < r->results[i].n_metrics; j++)
			metric_doc(&d.metrics[d.n_metrics++], &r->results[i].metrics[j]);
	}
	for (size_t i = 0; i < nx; i++) {
		const struct ga_bench_ratio *x = &r->ratios[i];
		struct ga_bench_doc_ratio *o = &d.prim_tail.ratios[d.prim_tail.n_ratios++];
		o->device_key = x->device_key;
		o->what = x->what;
		o->fast = x->fast;
		o->slow = x->slow;
		o->ratio = num(x->ratio);
		GA_SET(o->cliff, x->cliff);
	}
	d.prim_tail.findings = r->findings;
	int err = ga_bench_doc_write(&d, out, pretty);
	ga_free(mem);
	return err;
}

/* --- session --- */

static int add_state(struct ga_bench_report *rep, const char *name, const char *status, const char *reason,
                     const char *version, size_t n_dev)
{
	struct ga_bench_backend_state *s =
	        ga_array_push((void **)&rep->backends, &rep->n_backends, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->name = ga_strdup(name);
	s->status = ga_strdup(status);
	s->reason = reason && *reason ? ga_strdup(reason) : NULL;
	s->version = version ? ga_strdup(version) : NULL;
	s->n_devices = n_dev;
	if (!s->name || !s->status || (reason && *reason && !s->reason) || (version && !s->version))
		return -ENOMEM;
	return 0;
}

int ga_bench_session_open(struct ga_ctx *ctx, const struct ga_bench_config *cfg,
                          const struct ga_bench_backend *const *list, struct ga_bench_report *rep,
                          struct ga_bench_session **ret)
{
	int err = 0;
	struct ga_bench_session *s = ga_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->cfg = *cfg;
	for (size_t i = 0; list[i]; i++) {
		const struct ga_bench_backend *b = list[i];
		void *state = NULL;
		ga_log(ctx, GA_LOG_INFO, "bench: opening backend %s", b->name);
		int r = b->open(ctx, cfg, &state);
		if (r < 0) {
			const char *st = r == -ENOENT ? "absent" : r == -ENODEV ? "no-device" : "error";
			if ((err = add_state(rep, b->name, st, ga_ctx_errmsg(ctx), NULL, 0)) < 0)
				goto out;
			continue;
		}
		struct ga_bench_open *o = ga_array_push((void **)&s->open, &s->n_open, sizeof(*o));
		if (!o) {
			b->close(state);
			err = -ENOMEM;
			goto out;
		}
		o->b = b;
		o->state = state;
		if ((err = add_state(rep, b->name, "ok", NULL, b->version(state), b->n_devices(state))) < 0)
			goto out;
	}
	*ret = s;
	s = NULL;
out:
	ga_bench_session_free(s);
	return err;
}

void ga_bench_session_free(struct ga_bench_session *s)
{
	if (!s)
		return;
	for (size_t i = s->n_open; i-- > 0;)
		s->open[i].b->close(s->open[i].state);
	ga_free(s->open);
	ga_free(s);
}

void ga_bench_device_name_key(struct ga_bench_device *d)
{
	char name[sizeof(d->name)];
	memcpy(name, d->name, sizeof(name));
	name[sizeof(name) - 1] = 0;
	snprintf(d->key, sizeof(d->key), "name:%.80s", name);
}
