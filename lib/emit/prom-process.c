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
