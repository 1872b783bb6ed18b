/*
 * benchfile-run.h - the bench results and workloads run (lib/bench): the gpuaudit.bench/v1
 * document built and read, exec and HTTP load runs and their summaries. The types and the
 * model's table are benchfile.h's.
 */
#ifndef GPUAUDIT_BENCHFILE_RUN_H
#define GPUAUDIT_BENCHFILE_RUN_H

#include "gpuaudit/benchfile.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read a result through the model (ga_model_read), then check what canary
 * judges. Unknown members are ignored; a wrong schema, a missing or
 * mistyped field, a metric without samples or histogram, a negative or
 * non-finite sample, or more than GA_BENCH_MAX_VALUES values fail with
 * -EINVAL and a message in ctx. *ret untouched on failure.
 */
int ga_bench_file_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_bench_file **ret);

void ga_bench_file_free(struct ga_bench_file *r);

const struct ga_metric *ga_bench_file_metric(const struct ga_bench_file *r, const char *name);

/*
 * The metric's values, sorted, in its unit (a histogram gives each count its
 * bucket's highest equivalent value, so percentiles agree with the
 * histogram's). *ret is ga_malloc'ed. 0 or -ENOMEM.
 */
int ga_metric_values(const struct ga_metric *m, double **ret, size_t *ret_n);

/* Number of values without expanding. */
size_t ga_metric_count(const struct ga_metric *m);

/* Write d (its schema member is not looked at: GA_BENCH_SCHEMA is written). 0 or -ENOMEM. */
int ga_bench_doc_write(const struct ga_bench_doc *d, struct ga_buf *out, bool pretty);

/*
 * Fill hd with h's layout and non-empty buckets (hd->buckets ga_malloc'ed:
 * release with ga_bench_doc_hist_clear). 0 or -ENOMEM.
 */
int ga_bench_doc_hist_set(struct ga_bench_doc_hist *hd, const struct ga_hist *h, double value_scale);

void ga_bench_doc_hist_clear(struct ga_bench_doc_hist *hd);

/*
 * A metric over borrowed name, unit and samples (samples NULL: hist), its
 * median and min computed; a histogram metric's hist is ga_malloc'ed (free
 * with ga_bench_doc_metric_clear). 0 or -ENOMEM.
 */
int ga_bench_doc_metric_set(struct ga_bench_doc_metric *m, const char *name, const char *unit,
                            bool higher_better, const double *samples, size_t n, const struct ga_hist *hist,
                            double hist_scale);

void ga_bench_doc_metric_clear(struct ga_bench_doc_metric *m);

/*
 * One run: posix_spawn (no shell unless opts->shell), wait4 for rusage, SIGKILL
 * at the timeout (the process group). 0, or -errno when it could not be started
 * (ENOENT: no such command), with a message in ctx.
 */
int ga_exec_once(struct ga_ctx *ctx, const struct ga_exec_opts *opts, struct ga_exec_run *ret);

/* Run the prepare command through /bin/sh; 0 when it exited 0, else -ECHILD with a message. */
int ga_exec_prepare(struct ga_ctx *ctx, const struct ga_exec_opts *opts);

/* The summary of n warm runs. 0 or -ENOMEM (then *ret holds nothing to release). */
int ga_exec_summarize(const struct ga_exec_run *cold, const struct ga_exec_run *runs, size_t n,
                      int64_t rss_floor_bytes, struct ga_exec_summary *ret);

void ga_exec_summary_release(struct ga_exec_summary *s);

bool ga_exec_run_failed(const struct ga_exec_run *r);

/* "timed out", "killed by signal 9", "exit 3". */
void ga_exec_fail_text(char *buf, size_t n, const struct ga_exec_run *r);

/*
 * This process's peak RSS (VmHWM) in bytes, or -1. Linux charges the memory of
 * the spawning process to the child until it execs, so a child's ru_maxrss is
 * never below roughly this figure: reported as the floor of the measurement.
 */
int64_t ga_exec_own_hwm_bytes(void);

/*
 * 1 + warmup + runs runs and their summary. 0, -ENOMEM, or -errno from the
 * run (index in *ret_failed_at: 0 is the cold start) that could not be
 * started or whose --prepare failed, with a message in ctx.
 */
int ga_exec_bench_run(struct ga_ctx *ctx, const struct ga_exec_opts *o, long warmup, long runs,
                      struct ga_exec_bench *ret, long *ret_failed_at);

void ga_exec_bench_release(struct ga_exec_bench *b);

/* The gpuaudit.bench/v1 document of kind exec. 0 or -ENOMEM. */
int ga_exec_bench_json(const struct ga_exec_bench *b, struct ga_buf *out, bool pretty);

/* 0 or -errno with a message in ctx; the result is filled even when requests failed. */
int ga_http_run(struct ga_ctx *ctx, const struct ga_http_opts *opts, struct ga_http_result *ret);

void ga_http_result_release(struct ga_http_result *r);

/* The percentiles the http result reports: p50, p90, p99, p99.9, p99.99. */
extern const double ga_http_percentiles[5];

/* The method sent: o->method, or POST with a body, else GET. */
const char *ga_http_method(const struct ga_http_opts *o);

/* The gpuaudit.bench/v1 document of kind http. 0 or -ENOMEM. */
int ga_http_result_json(const struct ga_http_opts *o, const struct ga_http_result *r, struct ga_buf *out,
                        bool pretty);

#ifdef __cplusplus
}
#endif
#endif
