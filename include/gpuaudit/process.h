/*
 * process.h - this process's own resource use, for the standard process_*
 * self-metrics every Prometheus exporter serves (CPU seconds, resident and
 * virtual memory, open and maximum file descriptors, start time), read from
 * /proc/self on each scrape (lib/collect/process.c).
 */
#ifndef GPUAUDIT_PROCESS_H
#define GPUAUDIT_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

struct ga_process_stats {
	double cpu_seconds;      /* user + system */
	uint64_t resident_bytes; /* VmRSS */
	uint64_t virtual_bytes;  /* VmSize */
	double start_time_s;     /* Unix time */
	uint64_t open_fds, max_fds;
	bool have_stat, have_fds, have_limit;
};

/* Read /proc/self/stat, /proc/stat's btime, /proc/self/fd and RLIMIT_NOFILE; what fails is left unset. */
void ga_process_stats_read(struct ga_process_stats *ps);

#endif
