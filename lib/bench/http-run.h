/*
 * http-run.h - what the two engines of `bench http` (libcurl in http.c, the
 * native HTTP/1.1 one in http_native.c) share: the clock, the timerfd, and the
 * recording of a finished request into the result (http-common.c), so that
 * both fill the same histograms, counters and cold-start figures with the
 * same meaning.
 */
#ifndef GA_BENCH_HTTP_RUN_H
#define GA_BENCH_HTTP_RUN_H

#include <stdint.h>
#include <time.h>

#include "gpuaudit/benchfile.h"

#define BENCH_HTTP_HIST_HIGHEST_NS (3600LL * 1000 * 1000 * 1000)

/* CLOCK_MONOTONIC in ns; inline: both engines call it per request. */
static inline int64_t bench_http_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
/* Arm the timerfd at an absolute CLOCK_MONOTONIC time (ns), or disarm it (< 0). */
void ga_bench_http_arm(int tfd, int64_t at_ns);

enum bench_http_outcome {
	BENCH_HTTP_RESPONSE,  /* a complete response with status */
	BENCH_HTTP_TIMEOUT,   /* the per-request timeout expired */
	BENCH_HTTP_TRANSPORT, /* connect, send or receive failed, or the response was not HTTP */
};
/*
 * One finished request: due at intended_ns, handed to a connection at sent_ns
 * (connecting included), finished at done_ns (absolute ns); start_ns is the
 * start of the schedule. version (10, 11, 20) is kept from the first response;
 * errmsg from the first transport error or timeout.
 */
void ga_bench_http_record(struct ga_http_result *r, uint64_t index, int64_t intended_ns, int64_t sent_ns,
                          int64_t done_ns, int64_t start_ns, enum bench_http_outcome outcome, int status,
                          int version, const char *errmsg);

/* The schedule both engines follow (computed by ga_http_run). */
struct bench_http_plan {
	uint64_t total;   /* requests due */
	int64_t tmo_ns;   /* per-request timeout */
	double gap_ns;    /* 1e9 / rate */
	int64_t start_ns; /* filled by the engine when it starts sending */
};

/* The native engine: http:// with HTTP/1.1 only. 0 or -errno (message in ctx). */
int ga_bench_http_run_native(struct ga_ctx *ctx, const struct ga_http_opts *o, struct bench_http_plan *plan,
                             struct ga_http_result *r);

#endif
