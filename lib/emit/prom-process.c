/*
 * prom-process.c - the process_* families every Prometheus exporter serves
 * about itself (the client libraries' process collector): names, types and
 * units as they define them, so dashboards and alerts written for any
 * exporter work on gpuaudit serve too. Rendered per scrape, before the tail.
 */
#include "gpuaudit/process.h"
#include "prom-writer.h"

int ga_prom_render_process(enum ga_prom_format fmt, const struct ga_process_stats *ps, struct ga_buf *out)
{
	struct ga_pw w = { .b = out, .fmt = fmt };
	if (ps->have_stat) {
		ga_pw_family(&w, "process_cpu_seconds_total", "counter", "seconds",
		             "Total user and system CPU time spent in seconds.");
		ga_pw_begin(&w);
		ga_pw_value(&w, ps->cpu_seconds);
		ga_pw_family(&w, "process_resident_memory_bytes", "gauge", "bytes",
		             "Resident memory size in bytes.");
		ga_pw_begin(&w);
		ga_pw_valueu(&w, ps->resident_bytes);
		ga_pw_family(&w, "process_virtual_memory_bytes", "gauge", "bytes",
		             "Virtual memory size in bytes.");
		ga_pw_begin(&w);
		ga_pw_valueu(&w, ps->virtual_bytes);
		if (ps->start_time_s > 0) {
			ga_pw_family(&w, "process_start_time_seconds", "gauge", "seconds",
			             "Start time of the process since unix epoch in seconds.");
			ga_pw_begin(&w);
			ga_pw_value(&w, ps->start_time_s);
		}
	}
	if (ps->have_fds) {
		ga_pw_family(&w, "process_open_fds", "gauge", NULL, "Number of open file descriptors.");
		ga_pw_begin(&w);
		ga_pw_valueu(&w, ps->open_fds);
	}
	if (ps->have_limit) {
		ga_pw_family(&w, "process_max_fds", "gauge", NULL,
		             "Maximum number of open file descriptors.");
		ga_pw_begin(&w);
		ga_pw_valueu(&w, ps->max_fds);
	}
	return w.err;
}

int ga_prom_render_serve(enum ga_prom_format fmt, const struct ga_serve_stats *st, struct ga_buf *out)
{
	struct ga_pw w = { .b = out, .fmt = fmt };
	ga_pw_family(&w, "gpuaudit_serve_requests_refused_total", "counter", NULL,
	             "HTTP requests serve answered 429 Too Many Requests since it started, by reason "
	             "(rate_limit: the web configuration's rate_limit; auth_budget: the budget of "
	             "password checks per address and in all).");
	ga_pw_begin(&w);
	ga_pw_label(&w, "reason", "rate_limit");
	ga_pw_valueu(&w, st->refused_rate_limit);
	ga_pw_begin(&w);
	ga_pw_label(&w, "reason", "auth_budget");
	ga_pw_valueu(&w, st->refused_auth_budget);
	ga_pw_family(&w, "gpuaudit_serve_connections_closed_total", "counter", NULL,
	             "Connections serve closed itself since it started, by reason (request_deadline: "
	             "a request not complete within --request-timeout; stalled: an idle or slow "
	             "connection closed to make room at --max-connections).");
	ga_pw_begin(&w);
	ga_pw_label(&w, "reason", "request_deadline");
	ga_pw_valueu(&w, st->closed_deadline);
	ga_pw_begin(&w);
	ga_pw_label(&w, "reason", "stalled");
	ga_pw_valueu(&w, st->closed_stalled);
	return w.err;
}
