/*
 * load-json.c - the gpuaudit.bench/v1 documents of the workload benchmarks,
 * kind exec (`bench exec`) and kind http (`bench http`): the results put in
 * the model's form (struct ga_bench_doc, lib/model/bench.c) and written by
 * its table, here in the library rather than in the commands so that serve
 * and library users get the same bytes. The metrics array is the one canary
 * reads (result.c).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/stats.h"

static void run_doc(struct ga_bench_doc_run *d, const struct ga_exec_run *r)
{
	memset(d, 0, sizeof(*d));
	d->set = true;
	GA_SET(d->wall_s, r->wall_s);
	GA_SET(d->user_s, r->user_s);
	GA_SET(d->sys_s, r->sys_s);
	GA_SET(d->max_rss_bytes, r->max_rss_bytes);
	if (r->status >= 0)
		GA_SET(d->exit_status, r->status);
	if (r->signal)
		GA_SET(d->signal, r->signal);
	GA_SET(d->timed_out, r->timed_out);
}

static void summary_doc(struct ga_bench_doc_summary *d, const struct ga_exec_summary *s)
{
	struct ga_odbl *p[] = { &d->wall_s.p50, &d->wall_s.p90, &d->wall_s.p95, &d->wall_s.p99 };
	static const double ps[] = { 50, 90, 95, 99 };
	for (size_t i = 0; i < 4; i++)
		GA_SET(*p[i], ga_stats_percentile(s->wall_sorted, s->n, ps[i]));
	GA_SET(d->wall_s.max, s->n ? s->wall_sorted[s->n - 1] : NAN);
	GA_SET(d->wall_s.mean, ga_stats_mean(s->wall, s->n));
	GA_SET(d->wall_s.stddev, ga_stats_stddev(s->wall, s->n));
	GA_SET(d->failed_runs, s->failures);
	GA_SET(d->outliers, s->outliers);
	GA_SET(d->slow_first_run, s->slow_first);
	if (s->rss_floor_bytes >= 0)
		GA_SET(d->rss_floor_bytes, s->rss_floor_bytes);
}

/* The metrics and histograms a doc built here owns (its strings and samples are borrowed). */
static void doc_clear(struct ga_bench_doc *d)
{
	for (size_t i = 0; i < d->n_metrics; i++)
		ga_bench_doc_metric_clear(&d->metrics[i]);
	ga_bench_doc_hist_clear(&d->exec_tail.wall_histogram);
	ga_free(d->exec_tail.runs);
}

int ga_exec_bench_json(const struct ga_exec_bench *b, struct ga_buf *out, bool pretty)
{
	const struct ga_exec_summary *s = &b->summary;
	struct ga_bench_doc d;
	struct ga_bench_doc_cold cold;
	struct ga_bench_doc_summary sum;
	struct ga_bench_doc_metric metrics[3];
	memset(&d, 0, sizeof(d));
	memset(&cold, 0, sizeof(cold));
	memset(&sum, 0, sizeof(sum));
	int err = -ENOMEM;
	d.kind = (char *)"exec";
	d.exec.set = true;
	size_t argc = 0;
	while (b->argv[argc])
		argc++;
	d.exec.command.v = (char **)b->argv;
	d.exec.command.n = argc;
	GA_SET(d.exec.shell, b->shell);
	GA_SET(d.exec.warmup_runs, b->warmup_runs);
	run_doc(&cold.run, &b->cold);
	d.cold_start = &cold;
	summary_doc(&sum, s);
	d.summary = &sum;
	d.metrics = metrics;
	const double *v[] = { s->wall, s->cpu, s->rss };
	static const char *const names[] = { "exec.wall", "exec.cpu", "exec.peak_rss" };
	for (; d.n_metrics < 3; d.n_metrics++)
		if (ga_bench_doc_metric_set(&metrics[d.n_metrics], names[d.n_metrics],
		                            d.n_metrics == 2 ? "byte" : "s", false, v[d.n_metrics], s->n,
		                            NULL, 0) < 0)
			goto out;
	d.exec_tail.set = true;
	if (ga_bench_doc_hist_set(&d.exec_tail.wall_histogram, &b->wall_hist, 1e-9) < 0)
		goto out;
	if (s->n && !(d.exec_tail.runs = ga_malloc(s->n * sizeof(*d.exec_tail.runs))))
		goto out;
	for (; d.exec_tail.n_runs < s->n; d.exec_tail.n_runs++)
		run_doc(&d.exec_tail.runs[d.exec_tail.n_runs], &b->runs[d.exec_tail.n_runs]);
	err = ga_bench_doc_write(&d, out, pretty);
out:
	doc_clear(&d);
	return err;
}

/* ------------------------------------------------------------------ http */

const double ga_http_percentiles[5] = { 50, 90, 99, 99.9, 99.99 };

const char *ga_http_method(const struct ga_http_opts *o)
{
	return o->method ? o->method : o->body ? "POST" : "GET";
}

static void latency_doc(struct ga_bench_doc_latency *d, const struct ga_hist *h)
{
	struct ga_odbl *p[] = { &d->p50, &d->p90, &d->p99, &d->p99_9, &d->p99_99 };
	for (size_t i = 0; i < 5; i++)
		GA_SET(*p[i],
		       h->total_count ? (double)ga_hist_percentile(h, ga_http_percentiles[i]) * 1e-9 : NAN);
	GA_SET(d->max, h->total_count ? (double)ga_hist_highest_equivalent(h, h->max_value) * 1e-9 : NAN);
	GA_SET(d->mean, h->total_count ? ga_hist_mean(h) * 1e-9 : NAN);
}

static void http_head_doc(struct ga_bench_doc_http_head *d, const struct ga_http_opts *o,
                          const struct ga_http_result *r)
{
	uint64_t requests = r->sent + r->not_sent;
	d->set = true;
	d->url = (char *)o->url;
	d->method = (char *)ga_http_method(o);
	GA_SET(d->rate_per_s, o->rate);
	GA_SET(d->duration_s, o->duration_s);
	GA_SET(d->connections, o->connections);
	d->arrivals = (char *)(o->closed_loop ? "closed-loop" : o->poisson ? "poisson" : "fixed");
	if (r->http_version)
		d->http_version = (char *)(r->http_version == 20   ? "2"
		                           : r->http_version == 11 ? "1.1"
		                                                   : "1.0");
	GA_SET(d->requests, requests);
	GA_SET(d->errors, r->errors);
	GA_SET(d->error_rate, requests ? (double)r->errors / (double)requests : NAN);
	GA_SET(d->ok, r->ok);
	GA_SET(d->timeouts, r->timeouts);
	GA_SET(d->transport_errors, r->transport_errors);
	GA_SET(d->not_sent, r->not_sent);
	GA_SET(d->h2_connection_per_request, r->h2_no_reuse);
	d->engine = (char *)r->engine;
	GA_SET(d->retries, r->retries);
	d->first_error = r->first_error[0] ? (char *)r->first_error : NULL;
	struct ga_ou64 *c[] = { &d->status_classes.none, &d->status_classes.c1xx, &d->status_classes.c2xx,
		                &d->status_classes.c3xx, &d->status_classes.c4xx, &d->status_classes.c5xx };
	for (int i = 0; i < 6; i++)
		GA_SET(*c[i], r->status_counts[i]);
	GA_SET(d->elapsed_s, r->elapsed_s);
	GA_SET(d->achieved_rate_per_s, r->elapsed_s > 0 ? (double)r->completed / r->elapsed_s : NAN);
}

int ga_http_result_json(const struct ga_http_opts *o, const struct ga_http_result *r, struct ga_buf *out,
                        bool pretty)
{
	static double none; /* first_latencies_s of no request: [] */
	struct ga_bench_doc d;
	struct ga_bench_doc_cold cold;
	struct ga_bench_doc_metric latency;
	memset(&d, 0, sizeof(d));
	memset(&cold, 0, sizeof(cold));
	d.kind = (char *)"http";
	http_head_doc(&d.http, o, r);
	cold.http.set = true;
	GA_SET(cold.http.first_ok_s, r->first_ok_s >= 0 ? r->first_ok_s : NAN);
	cold.http.first_latencies_s.v = r->n_cold ? r->cold_latency_s : &none;
	cold.http.first_latencies_s.n = r->n_cold;
	d.cold_start = &cold;
	d.latency.set = true;
	latency_doc(&d.latency.latency_s, &r->latency);
	latency_doc(&d.latency.uncorrected_latency_s, &r->service);
	latency_doc(&d.latency.generator_lag_s, &r->lag);
	int err = ga_bench_doc_metric_set(&latency, "http.latency", "s", false, NULL, 0, &r->latency, 1e-9);
	if (err < 0)
		return err;
	d.metrics = &latency;
	d.n_metrics = 1;
	err = ga_bench_doc_write(&d, out, pretty);
	doc_clear(&d);
	return err;
}
