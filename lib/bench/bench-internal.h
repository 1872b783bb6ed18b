/* bench-internal.h - pieces shared by the benchmark harness files (lib/bench/). */
#ifndef GA_BENCH_INTERNAL_H
#define GA_BENCH_INTERNAL_H

#include "gpuaudit/bench.h"

struct ga_bench_open {
	const struct ga_bench_backend *b;
	void *state;
};

struct ga_bench_session {
	struct ga_ctx *ctx;
	struct ga_bench_config cfg;
	struct ga_bench_open *open;
	size_t n_open;
};

/* Monotonic clock in seconds. */
double ga_bench_now(void);
/* xorshift64* in [-1, 1), never exactly 0. */
double ga_bench_rand(uint64_t *state);

/* Append a result with every optional figure NaN; NULL on ENOMEM. */
struct ga_bench_result *ga_bench_result_add(struct ga_bench_report *rep, const char *kind,
                                            const struct ga_bench_open *o, size_t dev, const char *what,
                                            const char *family);
/* Set status and a formatted reason. 0 or -ENOMEM. */
int ga_bench_result_set(struct ga_bench_result *r, enum ga_bench_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Append a metric copying samples; stats computed. NULL on ENOMEM. */
struct ga_bench_metric *ga_bench_metric_add(struct ga_bench_result *r, const char *name, const char *unit,
                                            bool higher_better, const double *samples, size_t n);
/* rate/rate_best from the first metric. */
void ga_bench_result_rates(struct ga_bench_result *r);

/*
 * How many launches make one sample last at least cfg->min_sample_s, given
 * that one launch took one_s; at least 1, at most 1e6.
 */
unsigned ga_bench_iters_for(const struct ga_bench_config *cfg, double one_s);

/* d->key = "name:<d->name>" for a device whose bus address is unknown. */
void ga_bench_device_name_key(struct ga_bench_device *d);

#endif
