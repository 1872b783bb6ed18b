/*
 * benchfile.h - benchmark result files (schema gpuaudit.bench/v1) and the workload
 * runners behind `gpuaudit bench exec` and `gpuaudit bench http`.
 *
 * Every result is a JSON object with "schema": "gpuaudit.bench/v1", "kind"
 * ("exec", "http", "gemm", ...) and "metrics": an array of
 *   {"name", "unit", "better": "higher"|"lower", "samples": [...], "median", "min"}
 * where a metric may carry a "histogram" instead of samples (http latencies).
 * An http result also has "requests" and "errors" for the error-rate test.
 * The reader accepts any kind, so canary judges results of every bench.
 * Every kind is written and read through one model (struct ga_bench_doc
 * below, lib/model/bench.c, docs/schema/bench.md).
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in benchfile-run.h (bench).
 */
#ifndef GPUAUDIT_BENCHFILE_H
#define GPUAUDIT_BENCHFILE_H

#include <sys/types.h>

#include "gpuaudit/core.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/hist.h"
#include "gpuaudit/json.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_BENCH_SCHEMA "gpuaudit.bench/v1"
/* Most values a metric may hold (samples, or histogram counts once expanded). */
#define GA_BENCH_MAX_VALUES 20000000
#define GA_BENCH_MAX_METRICS 1024

struct ga_metric {
	char *name;
	char *unit;
	bool higher_better;
	double *samples; /* in unit; NULL when the metric has a histogram */
	size_t n_samples;
	struct ga_hist *hist; /* counts of integer values; value * hist_scale is in unit */
	double hist_scale;
};

struct ga_bench_file {
	char *kind;
	struct ga_metric *metrics;
	size_t n_metrics;
	bool has_requests; /* requests/errors present (http) */
	uint64_t requests;
	uint64_t errors;
};

/*
 * ---- the document as a model (lib/model/bench.c, docs/schema/bench.md) ----
 * One struct for every kind under the one id: the members a kind has are
 * inline groups (GA_F_GROUP) or fields left out when absent (GA_FF_OMIT), so
 * each kind's bytes are its own. Written by ga_bench_doc_write; read by
 * ga_bench_file_from_json (canary) through the same table.
 */
struct ga_bench_doc_bucket {
	struct ga_oi64 value, count; /* written as [value, count] */
};
struct ga_bench_doc_hist {
	struct ga_oi64 lowest_discernible, highest_trackable, significant_digits;
	struct ga_odbl value_scale; /* a recorded value times this is in the metric's unit */
	struct ga_oi64 total_count;
	struct ga_bench_doc_bucket *buckets; /* non-empty buckets only */
	size_t n_buckets;
};
struct ga_bench_doc_metric {
	char *name, *unit, *better;          /* better: "higher" or "lower" */
	struct ga_dblv samples;              /* left out when v is NULL */
	struct ga_bench_doc_hist *histogram; /* left out when NULL */
	struct ga_odbl median, min;
	struct ga_odbl max; /* left out when absent (the primitives have it) */
};
/* A bench exec run; set: the cold start group of cold_start. */
struct ga_bench_doc_run {
	bool set;
	struct ga_odbl wall_s, user_s, sys_s;
	struct ga_oi64 max_rss_bytes, exit_status, signal; /* exit_status null: killed; signal null: none */
	struct ga_obool timed_out;
};
struct ga_bench_doc_http_cold {
	bool set;
	struct ga_odbl first_ok_s;
	struct ga_dblv first_latencies_s;
};
/* cold_start: a run (exec) or the first responses (http), by the members present. */
struct ga_bench_doc_cold {
	struct ga_bench_doc_run run;
	struct ga_bench_doc_http_cold http;
};
struct ga_bench_doc_wall {
	struct ga_odbl p50, p90, p95, p99, max, mean, stddev;
};
struct ga_bench_doc_summary {
	struct ga_bench_doc_wall wall_s;
	struct ga_ou64 failed_runs;
	struct ga_oi64 outliers;
	struct ga_obool slow_first_run;
	struct ga_oi64 rss_floor_bytes;
};
struct ga_bench_doc_latency {
	struct ga_odbl p50, p90, p99, p99_9, p99_99, max, mean; /* "p99.9", "p99.99" */
};
struct ga_bench_doc_status_classes {
	struct ga_ou64 none, c1xx, c2xx, c3xx, c4xx, c5xx; /* "1xx" ... */
};
struct ga_bench_doc_exec_head {
	bool set;
	struct ga_strv command;
	struct ga_obool shell;
	struct ga_oi64 warmup_runs;
};
struct ga_bench_doc_http_head {
	bool set;
	char *url, *method;
	struct ga_odbl rate_per_s, duration_s;
	struct ga_oi64 connections;
	char *arrivals, *http_version;
	struct ga_ou64 requests, errors;
	struct ga_odbl error_rate;
	struct ga_ou64 ok, timeouts, transport_errors, not_sent;
	struct ga_obool h2_connection_per_request;
	char *engine;
	struct ga_ou64 retries;
	char *first_error;
	struct ga_bench_doc_status_classes status_classes;
	struct ga_odbl elapsed_s, achieved_rate_per_s;
};
struct ga_bench_doc_http_latency {
	bool set;
	struct ga_bench_doc_latency latency_s, uncorrected_latency_s, generator_lag_s;
};
struct ga_bench_doc_exec_tail {
	bool set;
	struct ga_bench_doc_hist wall_histogram;
	struct ga_bench_doc_run *runs;
	size_t n_runs;
};
struct ga_bench_doc_backend {
	char *name, *status, *reason, *version;
	struct ga_ou64 devices;
};
struct ga_bench_doc_result {
	char *kind, *backend, *impl;
	struct ga_ou64 device_index;
	char *device, *device_key, *what, *family, *status, *reason, *unit;
	struct ga_odbl median, best, cold_start_s, expected;
	char *expected_source;
	struct ga_odbl percent_of_expected, rel_err, tolerance;
};
struct ga_bench_doc_ratio {
	char *device_key, *what, *fast, *slow;
	struct ga_odbl ratio;
	struct ga_obool cliff;
};
struct ga_bench_doc_host {
	struct ga_odbl cpu_peak_fp32_flops, cpu_peak_fp64_flops;
};
struct ga_bench_doc_prim_head {
	bool set;
	struct ga_bench_doc_host host;
	struct ga_bench_doc_backend *backends;
	size_t n_backends;
	struct ga_bench_doc_result *results;
	size_t n_results;
};
struct ga_bench_doc_prim_tail {
	bool set;
	struct ga_bench_doc_ratio *ratios;
	size_t n_ratios;
	struct ga_findings findings;
};
struct ga_bench_doc {
	char *schema; /* GA_BENCH_SCHEMA */
	char *kind;   /* "exec", "http", "gemm", "stream", "transfer", "collective", "smoke" */
	struct ga_bench_doc_prim_head prim;   /* host, backends, results */
	struct ga_bench_doc_exec_head exec;   /* command, shell, warmup_runs */
	struct ga_bench_doc_http_head http;   /* url ... achieved_rate_per_s */
	struct ga_bench_doc_cold *cold_start; /* exec, http; left out when NULL */
	struct ga_bench_doc_summary *summary; /* exec; left out when NULL */
	struct ga_bench_doc_http_latency
	        latency; /* http: latency_s, uncorrected_latency_s, generator_lag_s */
	struct ga_bench_doc_metric *metrics;
	size_t n_metrics;
	struct ga_bench_doc_exec_tail exec_tail; /* wall_histogram, runs */
	struct ga_bench_doc_prim_tail prim_tail; /* ratios, findings */
};
extern const struct ga_schema ga_bench_doc_schema;

/* ---- bench exec: run a command N times. ---- */
struct ga_exec_opts {
	char *const *argv;   /* the command; argv[0] looked up in PATH */
	const char *prepare; /* shell command run before every run, or NULL */
	bool shell;          /* run argv[0] with /bin/sh -c */
	double timeout_s;    /* per run; 0 = none */
	bool show_output;    /* keep the child stdout and stderr (default: /dev/null) */
};
struct ga_exec_run {
	double wall_s;
	double user_s;
	double sys_s;
	int64_t max_rss_bytes;
	int status; /* exit status 0..255, or -1 when killed by a signal */
	int signal; /* the signal, or 0 */
	bool timed_out;
};

/*
 * ---- bench exec: the whole benchmark and its statistics (exec-stats.c). ----
 * Run 1 is the cold start, then warmup unmeasured runs, then the measured warm
 * runs; the summary is computed over the warm runs only.
 */
#define GA_EXEC_OUTLIER_Z 10.0        /* modified z-score of an outlier wall time */
#define GA_EXEC_SLOW_FIRST_FACTOR 1.5 /* cold start over warm median: missing warm-up */
#define GA_EXEC_RSS_FLOOR_MARGIN 1.05 /* warm median peak RSS within 5% of the floor */
#define GA_EXEC_MAX_RUNS 1000000

struct ga_exec_summary {
	double *wall, *cpu, *rss; /* warm runs in run order: s, user+sys s, bytes */
	double *wall_sorted, *cpu_sorted, *rss_sorted;
	size_t n;
	size_t failures;         /* warm runs that timed out or exited non-zero */
	long outliers;           /* wall times with |modified z| > GA_EXEC_OUTLIER_Z (n >= 3) */
	double wall_median_s;    /* NAN when n == 0 */
	double rss_median_bytes; /* NAN when n == 0 */
	double cold_factor;      /* cold wall / warm median wall; NAN when the median is 0 */
	bool slow_first;         /* cold_factor > GA_EXEC_SLOW_FIRST_FACTOR */
	int64_t rss_floor_bytes; /* our own peak RSS before the runs (the floor); -1 unknown */
	bool rss_at_floor;       /* rss_median_bytes <= GA_EXEC_RSS_FLOOR_MARGIN * floor */
};

struct ga_exec_bench {
	char *const *argv; /* borrowed from the options */
	bool shell;
	long warmup_runs;
	struct ga_exec_run cold;
	struct ga_exec_run *runs; /* the warm runs, summary.n of them */
	struct ga_exec_summary summary;
	struct ga_hist wall_hist; /* warm wall times, ns */
};

/* ---- bench http: open-loop load through libcurl's multi interface. ---- */
/* Which client sends the requests (docs/bench-workloads.md). */
enum ga_http_engine {
	GA_HTTP_ENGINE_AUTO = 0, /* native for http:// HTTP/1.1, libcurl otherwise */
	GA_HTTP_ENGINE_CURL,     /* libcurl's multi interface (HTTP/1.1, HTTP/2, TLS) */
	GA_HTTP_ENGINE_NATIVE,   /* in-tree HTTP/1.1 over plain TCP (epoll, http_parser) */
};
struct ga_http_opts {
	const char *url;
	double rate;        /* requests per second (> 0) */
	double duration_s;  /* schedule length */
	int connections;    /* most requests in flight (and keep-alive connections) */
	const char *method; /* NULL: GET, or POST with a body */
	const char *const *headers;
	size_t n_headers;
	const char *body; /* request body or NULL */
	size_t body_len;
	bool poisson;         /* exponential inter-arrival times instead of a fixed gap */
	bool http2;           /* negotiate HTTP/2 (h2c prior knowledge for http://) */
	bool closed_loop;     /* send the next request when one completes (for comparison) */
	double timeout_s;     /* per request; 0 = 30 s */
	uint64_t seed;        /* Poisson arrivals */
	size_t cold_requests; /* how many first requests count as cold start (default 10) */
	enum ga_http_engine engine;
};
struct ga_http_result {
	struct ga_hist latency; /* ns, from the intended send time (coordinated-omission safe) */
	struct ga_hist service; /* ns, from the actual send time (uncorrected) */
	struct ga_hist lag;     /* ns, how late the generator sent each request */
	uint64_t sent;
	uint64_t completed; /* finished, any status */
	uint64_t ok;        /* 2xx and 3xx */
	uint64_t errors;    /* transport errors + timeouts + 4xx/5xx */
	uint64_t timeouts;
	uint64_t transport_errors;
	uint64_t status_counts[6]; /* [1]..[5]: 1xx..5xx, [0]: no status */
	uint64_t not_sent;         /* due requests not sent before the end (connection limit) */
	double elapsed_s;
	double first_ok_s;      /* time from start to the first successful response; <0 none */
	double *cold_latency_s; /* latencies of the first cold_requests requests (by schedule) */
	size_t n_cold;
	int http_version;      /* of the first response: 10, 11, 20; 0 unknown */
	char first_error[160]; /* the first transport error (the engine's message), or "" */
	bool h2_no_reuse;      /* HTTP/2 without TLS on libcurl < 8.0: a connection per request */
	const char *engine;    /* "native" or "libcurl" (static) */
	/*
	 * Requests sent again on a new connection because a reused keep-alive
	 * connection failed before any byte of the response (native engine; libcurl
	 * does the same without saying)
	 */
	uint64_t retries;
};

#ifdef __cplusplus
}
#endif
#endif
