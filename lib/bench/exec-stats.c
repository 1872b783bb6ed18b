/*
 * exec-stats.c - `gpuaudit bench exec` as a library call: the runs (cold
 * start, warm-up, measured) and the statistics of the warm runs (percentiles,
 * outliers, the slow first run, the RSS floor). Kept out of the command so
 * that unit tests reach every decision (tests/unit/test_exec_stats.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/stats.h"

bool ga_exec_run_failed(const struct ga_exec_run *r)
{
	return r->timed_out || r->status != 0;
}

void ga_exec_fail_text(char *buf, size_t n, const struct ga_exec_run *r)
{
	if (r->timed_out)
		snprintf(buf, n, "timed out");
	else if (r->status < 0)
		snprintf(buf, n, "killed by signal %d", r->signal);
	else
		snprintf(buf, n, "exit %d", r->status);
}

int64_t ga_exec_own_hwm_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long long kib = -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6)) {
			char *end = NULL;
			kib = strtoll(line + 6, &end, 10);
			break;
		}
	fclose(f);
	return kib < 0 ? -1 : (int64_t)kib * 1024;
}

void ga_exec_summary_release(struct ga_exec_summary *s)
{
	ga_free(s->wall);
	ga_free(s->cpu);
	ga_free(s->rss);
	ga_free(s->wall_sorted);
	ga_free(s->cpu_sorted);
	ga_free(s->rss_sorted);
	memset(s, 0, sizeof(*s));
}

static double *sorted_copy(const double *v, size_t n)
{
	double *c = ga_malloc((n ? n : 1) * sizeof(*c));
	if (c) {
		memcpy(c, v, n * sizeof(*c));
		ga_stats_sort(c, n);
	}
	return c;
}

int ga_exec_summarize(const struct ga_exec_run *cold, const struct ga_exec_run *runs, size_t n,
                      int64_t rss_floor_bytes, struct ga_exec_summary *ret)
{
	struct ga_exec_summary s = { .n = n, .rss_floor_bytes = rss_floor_bytes };
	int err = -ENOMEM;
	size_t bytes = (n ? n : 1) * sizeof(double);
	if (!(s.wall = ga_malloc(bytes)) || !(s.cpu = ga_malloc(bytes)) || !(s.rss = ga_malloc(bytes)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		s.wall[i] = runs[i].wall_s;
		s.cpu[i] = runs[i].user_s + runs[i].sys_s;
		s.rss[i] = (double)runs[i].max_rss_bytes;
		s.failures += ga_exec_run_failed(&runs[i]);
	}
	if (!(s.wall_sorted = sorted_copy(s.wall, n)) || !(s.cpu_sorted = sorted_copy(s.cpu, n)) ||
	    !(s.rss_sorted = sorted_copy(s.rss, n)))
		goto out;
	s.outliers = n >= 3 ? ga_stats_outliers(s.wall, n, GA_EXEC_OUTLIER_Z, NULL) : 0;
	if (s.outliers < 0)
		goto out;
	/* ga_stats_median takes sorted values: the sorted copies, never the run order */
	s.wall_median_s = ga_stats_median(s.wall_sorted, n);
	s.rss_median_bytes = ga_stats_median(s.rss_sorted, n);
	double med = s.wall_median_s;
	s.cold_factor = med > 0 ? cold->wall_s / med : NAN;
	s.slow_first = med > 0 && cold->wall_s > GA_EXEC_SLOW_FIRST_FACTOR * med;
	s.rss_at_floor = rss_floor_bytes > 0 && n &&
	                 s.rss_median_bytes <= GA_EXEC_RSS_FLOOR_MARGIN * (double)rss_floor_bytes;
	*ret = s;
	memset(&s, 0, sizeof(s));
	err = 0;
out:
	ga_exec_summary_release(&s);
	return err;
}

void ga_exec_bench_release(struct ga_exec_bench *b)
{
	ga_free(b->runs);
	ga_exec_summary_release(&b->summary);
	ga_hist_release(&b->wall_hist);
	memset(b, 0, sizeof(*b));
}

int ga_exec_bench_run(struct ga_ctx *ctx, const struct ga_exec_opts *o, long warmup, long runs,
                      struct ga_exec_bench *ret, long *ret_failed_at)
{
	memset(ret, 0, sizeof(*ret));
	ret->argv = o->argv;
	ret->shell = o->shell;
	ret->warmup_runs = warmup;
	*ret_failed_at = -1;
	size_t n = 0;
	ret->runs = ga_calloc(runs > 0 ? (size_t)runs : 1, sizeof(*ret->runs));
	if (!ret->runs || ga_hist_init(&ret->wall_hist, 1, 3600LL * 1000 * 1000 * 1000, 3) < 0)
		return -ENOMEM;
	long total = 1 + warmup + runs;
	for (long i = 0; i < total; i++) {
		struct ga_exec_run r;
		int err = ga_exec_prepare(ctx, o);
		if (err == 0)
			err = ga_exec_once(ctx, o, &r);
		if (err < 0) {
			*ret_failed_at = i;
			return err;
		}
		if (i == 0)
			ret->cold = r;
		else if (i > warmup)
			ret->runs[n++] = r;
	}
	for (size_t i = 0; i < n; i++)
		ga_hist_record(&ret->wall_hist, (int64_t)llround(ret->runs[i].wall_s * 1e9));
	/*
	 * The floor is this process's peak after the runs, not before: posix_spawn
	 * shares our memory until exec (CLONE_VM), so a child's ru_maxrss is our peak
	 * at its spawn, and that peak grows while the runs are recorded. Read before,
	 * it sat a few per cent under what the children report and hid the note.
	 */
	int64_t floor_bytes = ga_exec_own_hwm_bytes();
	return ga_exec_summarize(&ret->cold, ret->runs, n, floor_bytes, &ret->summary);
}
