/*
 * http-common.c - what both engines of `bench http` call (http.c: libcurl,
 * http_native.c: the native HTTP/1.1 one): the timerfd and the recording of
 * a finished request into the result. Kept apart from either engine so that
 * neither file calls into the other (no call cycle between them).
 */
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

#include "http-run.h"
#include "gpuaudit/benchfile-run.h"

#define HIST_HIGHEST_NS BENCH_HTTP_HIST_HIGHEST_NS

void ga_http_result_release(struct ga_http_result *r)
{
	if (!r)
		return;
	ga_hist_release(&r->latency);
	ga_hist_release(&r->service);
	ga_hist_release(&r->lag);
	ga_free(r->cold_latency_s);
	memset(r, 0, sizeof(*r));
}

void ga_bench_http_record(struct ga_http_result *r, uint64_t index, int64_t intended_ns, int64_t sent_ns,
                          int64_t done_ns, int64_t start_ns, enum bench_http_outcome outcome, int status,
                          int version, const char *errmsg)
{
	int64_t service_ns = done_ns - sent_ns;
	int64_t latency_ns = done_ns - intended_ns;
	if (service_ns < 0)
		service_ns = 0;
	if (latency_ns < 0)
		latency_ns = 0;
	r->completed++;
	if (outcome == BENCH_HTTP_RESPONSE) {
		int cls = status >= 100 && status < 600 ? status / 100 : 0;
		r->status_counts[cls]++;
		if (cls == 2 || cls == 3) {
			r->ok++;
			if (r->first_ok_s < 0)
				r->first_ok_s = (double)(done_ns - start_ns) * 1e-9;
		} else {
			r->errors++;
		}
		if (!r->http_version)
			r->http_version = version;
	} else {
		r->errors++;
		r->status_counts[0]++;
		if (outcome == BENCH_HTTP_TIMEOUT)
			r->timeouts++;
		else
			r->transport_errors++;
		if (!r->first_error[0] && errmsg)
			snprintf(r->first_error, sizeof(r->first_error), "%s", errmsg);
	}
	/* Latencies of failed requests count too: a timeout is a very slow answer. */
	ga_hist_record(&r->latency, latency_ns > HIST_HIGHEST_NS ? HIST_HIGHEST_NS : latency_ns);
	ga_hist_record(&r->service, service_ns > HIST_HIGHEST_NS ? HIST_HIGHEST_NS : service_ns);
	if (index < r->n_cold)
		r->cold_latency_s[index] = (double)latency_ns * 1e-9;
}

void ga_bench_http_arm(int tfd, int64_t at_ns)
{
	struct itimerspec its;
	memset(&its, 0, sizeof(its));
	if (at_ns >= 0) {
		if (at_ns == 0)
			at_ns = 1;
		its.it_value.tv_sec = at_ns / 1000000000;
		its.it_value.tv_nsec = at_ns % 1000000000;
	}
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}
