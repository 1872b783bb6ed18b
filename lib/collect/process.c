/*
 * process.c - the numbers behind the process_* self-metrics (process.h), as
 * the Prometheus client libraries define them: utime+stime and the start
 * time from /proc/self/stat (clock ticks, the start relative to /proc/stat's
 * btime), resident and virtual size from the same line, open descriptors by
 * counting /proc/self/fd, the maximum from RLIMIT_NOFILE's soft limit. This
 * process's own /proc, never a --root tree.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gpuaudit/process.h"

static bool read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t k = read(fd, buf, n - 1);
	close(fd);
	if (k <= 0)
		return false;
	buf[k] = '\0';
	return true;
}

static bool boot_time(double *out)
{
	char buf[8192];
	if (!read_small("/proc/stat", buf, sizeof(buf)))
		return false;
	const char *p = strstr(buf, "\nbtime ");
	if (!p)
		return false;
	*out = strtod(p + 7, NULL);
	return *out > 0;
}

/* Fields 14, 15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss) of /proc/self/stat. */
static void read_stat(struct ga_process_stats *ps)
{
	char buf[1024];
	if (!read_small("/proc/self/stat", buf, sizeof(buf)))
		return;
	const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
	if (!p)
		return;
	unsigned long long f[25] = { 0 };
	int field = 2; /* p points at the end of field 2 */
	for (const char *q = p + 1; *q && field < 24;) {
		while (*q == ' ')
			q++;
		field++;
		char *end = NULL;
		f[field] = strtoull(q, &end, 10);
		if (end == q) { /* the state letter (field 3) */
			while (*q && *q != ' ')
				q++;
		} else {
			q = end;
		}
	}
	if (field < 24)
		return;
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	double btime = 0;
	if (tick <= 0 || page <= 0)
		return;
	ps->cpu_seconds = (double)(f[14] + f[15]) / (double)tick;
	ps->virtual_bytes = f[23];
	ps->resident_bytes = f[24] * (unsigned long long)page;
	if (boot_time(&btime))
		ps->start_time_s = btime + (double)f[22] / (double)tick;
	ps->have_stat = true;
}

void ga_process_stats_read(struct ga_process_stats *ps)
{
	memset(ps, 0, sizeof(*ps));
	read_stat(ps);
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		uint64_t n = 0;
		struct dirent *e;
		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		ps->open_fds = n > 0 ? n - 1 : 0; /* less the one opendir holds */
		ps->have_fds = true;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		ps->max_fds = rl.rlim_cur;
		ps->have_limit = true;
	}
}
