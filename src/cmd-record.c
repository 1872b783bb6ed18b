/*
 * cmd-record.c - `gpuaudit record`: sample CPU, pressure, memory, disks,
 * network and amdgpu busy percentages at an interval and write one JSON
 * object per line (schema gpuaudit.sample/v1, docs/record.md).
 *
 * Live, it reads / (or $GPUAUDIT_ROOT) every --interval, sleeping on
 * CLOCK_MONOTONIC to absolute deadlines, until --count lines, --duration or
 * SIGINT/SIGTERM. With --root DIR it replays the time points DIR/t0, DIR/t1,
 * ... (each a root tree) with the interval in DIR/interval_s, without sleeping,
 * so tests are exact and fast.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/sample.h"

#define MAX_POINTS 100000

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* "1s", "0.05", "500ms", "2m": seconds in (0, 86400]. */
static int parse_interval(const char *s, double *ret)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000.0;
	else if (!strcmp(end, "m"))
		v *= 60.0;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (!(v > 0) || v > 86400)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Round to a multiple of 1/scale (no libm: the CLI does not link it). */
static double round_to(double v, double scale)
{
	if (!isfinite(v) || v > 1e15 || v < -1e15)
		return v;
	double x = v * scale;
	long long k = (long long)(x >= 0 ? x + 0.5 : x - 0.5);
	return (double)k / scale;
}

/* A rounded number; integral values as integers (ga_json_dbl would write 1e+02). */
static void num(struct ga_json *w, double v)
{
	if (isfinite(v) && v < 1e15 && v > -1e15 && v == (double)(long long)v)
		ga_json_i64(w, (long long)v);
	else
		ga_json_dbl(w, v);
}

static void odbl(struct ga_json *w, const char *key, struct ga_odbl o)
{
	ga_json_key(w, key);
	if (o.set)
		num(w, round_to(o.v, 100.0)); /* two decimals: stable goldens */
	else
		ga_json_null(w);
}

static void ou64(struct ga_json *w, const char *key, struct ga_ou64 o)
{
	ga_json_key(w, key);
	if (o.set)
		ga_json_u64(w, o.v);
	else
		ga_json_null(w);
}

static void oi64(struct ga_json *w, const char *key, struct ga_oi64 o)
{
	ga_json_key(w, key);
	if (o.set)
		ga_json_i64(w, o.v);
	else
		ga_json_null(w);
}

static void cpu_members(struct ga_json *w, const struct ga_cpu_rate *c)
{
	odbl(w, "user_pct", c->user_pct);
	odbl(w, "system_pct", c->system_pct);
	odbl(w, "iowait_pct", c->iowait_pct);
	odbl(w, "steal_pct", c->steal_pct);
	odbl(w, "idle_pct", c->idle_pct);
}

static void psi_line(struct ga_json *w, const char *key, const struct ga_psi_line_rate *l)
{
	ga_json_key(w, key);
	if (!l->avg10.set) {
		ga_json_null(w);
		return;
	}
	ga_json_obj_begin(w);
	odbl(w, "avg10", l->avg10);
	ou64(w, "total_delta_us", l->total_delta_us);
	ga_json_obj_end(w);
}

static void write_nvml(struct ga_json *w, const struct ga_nvml_report *nv);

static void write_sample(struct ga_json *w, const struct ga_sample *s, uint64_t seq, double mono_s,
                         const char *wall, const struct ga_nvml_report *nv)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, GA_SAMPLE_SCHEMA);
	ga_json_key(w, "seq");
	ga_json_u64(w, seq);
	ga_json_key(w, "time");
	ga_json_obj_begin(w);
	ga_json_key(w, "mono_s");
	num(w, round_to(mono_s, 1000.0));
	ga_json_key(w, "interval_s");
	num(w, round_to(s->interval_s, 1000.0));
	ga_json_key(w, "wall");
	ga_json_str(w, wall);
	ga_json_obj_end(w);

	ga_json_key(w, "cpu");
	ga_json_obj_begin(w);
	ga_json_key(w, "total");
	ga_json_obj_begin(w);
	cpu_members(w, &s->total);
	ga_json_obj_end(w);
	ga_json_key(w, "cores");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->n_cores; i++) {
		ga_json_obj_begin(w);
		ga_json_key(w, "cpu");
		ga_json_str(w, s->cores[i].name);
		cpu_members(w, &s->cores[i]);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_obj_end(w);

	ga_json_key(w, "pressure");
	ga_json_obj_begin(w);
	for (int i = 0; i < GA_PSI_N; i++) {
		ga_json_key(w, ga_psi_names[i]);
		ga_json_obj_begin(w);
		psi_line(w, "some", &s->psi[i].some);
		psi_line(w, "full", &s->psi[i].full);
		ga_json_obj_end(w);
	}
	ga_json_obj_end(w);

	ga_json_key(w, "memory");
	ga_json_obj_begin(w);
	ou64(w, "total_bytes", s->mem.total_bytes);
	ou64(w, "available_bytes", s->mem.available_bytes);
	ou64(w, "cached_bytes", s->mem.cached_bytes);
	ou64(w, "dirty_bytes", s->mem.dirty_bytes);
	ga_json_obj_end(w);

	ga_json_key(w, "disks");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->n_disks; i++) {
		const struct ga_disk_rate *d = &s->disks[i];
		ga_json_obj_begin(w);
		ga_json_key(w, "name");
		ga_json_str(w, d->name);
		odbl(w, "reads_per_s", d->reads_per_s);
		odbl(w, "writes_per_s", d->writes_per_s);
		odbl(w, "read_bytes_per_s", d->read_bytes_per_s);
		odbl(w, "write_bytes_per_s", d->write_bytes_per_s);
		odbl(w, "await_ms", d->await_ms);
		odbl(w, "util_pct", d->util_pct);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);

	ga_json_key(w, "net");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->n_nets; i++) {
		const struct ga_net_rate *n = &s->nets[i];
		ga_json_obj_begin(w);
		ga_json_key(w, "name");
		ga_json_str(w, n->name);
		odbl(w, "rx_bytes_per_s", n->rx_bytes_per_s);
		odbl(w, "tx_bytes_per_s", n->tx_bytes_per_s);
		odbl(w, "rx_packets_per_s", n->rx_packets_per_s);
		odbl(w, "tx_packets_per_s", n->tx_packets_per_s);
		ou64(w, "rx_dropped", n->rx_dropped);
		ou64(w, "tx_dropped", n->tx_dropped);
		ou64(w, "rx_errors", n->rx_errors);
		ou64(w, "tx_errors", n->tx_errors);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);

	ga_json_key(w, "accelerators");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->n_gpus; i++) {
		const struct ga_gpu_raw *g = &s->gpus[i];
		ga_json_obj_begin(w);
		ga_json_key(w, "card");
		ga_json_str(w, g->card);
		ga_json_key(w, "address");
		ga_json_str(w, g->address[0] ? g->address : NULL);
		ga_json_key(w, "vendor");
		ga_json_str(w, g->vendor[0] ? g->vendor : NULL);
		oi64(w, "gpu_busy_pct", g->gpu_busy_pct);
		oi64(w, "mem_busy_pct", g->mem_busy_pct);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "nvml");
	write_nvml(w, nv);
	ga_json_obj_end(w);
}

static void ou64_field(struct ga_json *w, const char *key, struct ga_ou64 v)
{
	ga_json_key(w, key);
	if (v.set)
		ga_json_u64(w, v.v);
	else
		ga_json_null(w);
}

/* NVML's view at this point (--nvml): per GPU the live counters; null when not asked for. */
static void write_nvml(struct ga_json *w, const struct ga_nvml_report *nv)
{
	if (!nv) {
		ga_json_null(w);
		return;
	}
	ga_json_obj_begin(w);
	ga_json_key(w, "error");
	ga_json_str(w, nv->sys.error);
	ga_json_key(w, "timed_out");
	ga_json_bool(w, nv->sys.timed_out.set && nv->sys.timed_out.v);
	ga_json_key(w, "gpus");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < nv->n_gpus; i++) {
		const struct ga_nvml_gpu *g = &nv->gpus[i];
		ga_json_obj_begin(w);
		ou64_field(w, "index", g->index);
		ga_json_key(w, "address");
		ga_json_str(w, g->pci_bus_id);
		ga_json_key(w, "error");
		ga_json_str(w, g->error);
		ou64_field(w, "utilization_gpu_pct", g->utilization_gpu_pct);
		ou64_field(w, "utilization_memory_pct", g->utilization_memory_pct);
		ou64_field(w, "memory_used_bytes", g->memory_used_bytes);
		ou64_field(w, "pcie_rx_kbps", g->pcie_rx_kbps);
		ou64_field(w, "pcie_tx_kbps", g->pcie_tx_kbps);
		ou64_field(w, "power_usage_mw", g->power_usage_mw);
		ou64_field(w, "clock_sm_mhz", g->clock_sm_mhz);
		ou64_field(w, "clock_mem_mhz", g->clock_mem_mhz);
		ou64_field(w, "temperature_c", g->temperature_c);
		ga_json_key(w, "clock_event_names");
		ga_json_arr_begin(w);
		for (size_t k = 0; k < g->clock_event_names.n; k++)
			ga_json_str(w, g->clock_event_names.v[k]);
		ga_json_arr_end(w);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wall_now(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	char base[32];
	if (!gmtime_r(&ts.tv_sec, &tm) || !strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(out, n, "1970-01-01T00:00:00Z");
		return;
	}
	snprintf(out, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

/* Sleep until absolute CLOCK_MONOTONIC time t; false when a signal asked to stop. */
static bool sleep_until(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	if (ts.tv_nsec < 0)
		ts.tv_nsec = 0;
	while (!stop_signal) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r == 0)
			return !stop_signal;
		if (r != EINTR)
			return false;
	}
	return false;
}

struct rec {
	struct cli *cli;
	struct ga_ctx *ctx;
	FILE *out;
	struct ga_buf line;
	uint64_t seq;
	bool nvml; /* query NVML (through the deadline helper) at every point */
};

/* Rates from prev to cur, one line; 0, or an exit code. */
static int emit(struct rec *rc, const struct ga_sample_raw *prev, const struct ga_sample_raw *cur,
                double interval_s, double mono_s, const char *wall)
{
	struct ga_sample s;
	if (ga_sample_rates(prev, cur, interval_s, &s) < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "out of memory");
	struct ga_nvml_report nv;
	memset(&nv, 0, sizeof(nv));
	if (rc->nvml) {
		struct ga_isolate_result res;
		int e = ga_isolated_collect(rc->ctx, "nvml", &ga_nvml_report_schema, &nv, &res);
		if (e == -ENOMEM) {
			ga_sample_release(&s);
			return cli_error(rc->cli, "record", EXIT_INTERNAL, "out of memory");
		}
		if (e < 0) { /* the sample still goes out, with NVML's failure in it */
			ga_schema_release(&ga_nvml_report_schema, &nv);
			memset(&nv, 0, sizeof(nv));
			nv.sys.error = ga_strdup(ga_ctx_errmsg(rc->ctx));
			GA_SET(nv.sys.timed_out, res.timed_out);
		}
	}
	struct ga_json w;
	ga_buf_reset(&rc->line);
	ga_json_init(&w, &rc->line, false);
	write_sample(&w, &s, ++rc->seq, mono_s, wall, rc->nvml ? &nv : NULL);
	int r = ga_json_finish(&w);
	ga_sample_release(&s);
	ga_schema_release(&ga_nvml_report_schema, &nv);
	if (r < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "JSON writer: %s", strerror(-r));
	if (ga_buf_addc(&rc->line, '\n') < 0 ||
	    fwrite(rc->line.data, 1, rc->line.len, rc->out) != rc->line.len || fflush(rc->out) != 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "write failed: %s", strerror(errno));
	return EXIT_OK;
}

/* Fixture replay: DIR/t0 .. DIR/tN, interval from DIR/interval_s. */
static int record_root(struct rec *rc, struct ga_ctx *ctx, const char *dir, double interval_s, long count,
                       double duration_s)
{
	char *iv = NULL;
	if (ga_fs_read_attr(ctx, "interval_s", &iv) == 0) {
		int pr = parse_interval(iv, &interval_s);
		ga_free(iv);
		if (pr < 0)
			return cli_error(rc->cli, "record", EXIT_USAGE,
			                 "%s/interval_s: not a positive number of seconds", dir);
	}
	size_t points = 0;
	for (; points < MAX_POINTS; points++) {
		char name[32];
		snprintf(name, sizeof(name), "t%zu", points);
		if (!ga_fs_is_dir(ctx, name))
			break;
	}
	if (points < 2)
		return cli_error(rc->cli, "record", EXIT_USAGE,
		                 "--root %s: needs time points t0, t1, ... (at least two directories)", dir);
	struct ga_sample_raw prev, cur;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	struct ga_buf path;
	ga_buf_init(&path, 0);
	int code = EXIT_OK;
	for (size_t k = 0; k < points && code == EXIT_OK; k++) {
		if (k > 0 && count > 0 && rc->seq >= (uint64_t)count)
			break;
		if (duration_s > 0 && (double)k * interval_s > duration_s + 1e-9)
			break;
		ga_buf_reset(&path);
		if (ga_buf_addf(&path, "%s/t%zu", dir, k) < 0 || ga_ctx_set_root(ctx, path.data) < 0 ||
		    ga_sample_read(ctx, &cur) < 0) {
			code = cli_error(rc->cli, "record", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
			break;
		}
		if (k > 0)
			code = emit(rc, &prev, &cur, interval_s, (double)k * interval_s, NULL);
		ga_sample_raw_release(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	ga_sample_raw_release(&prev);
	ga_sample_raw_release(&cur);
	ga_buf_release(&path);
	return code;
}

static int record_live(struct rec *rc, struct ga_ctx *ctx, double interval_s, long count, double duration_s)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: the sleep returns EINTR */
	sigaction(SIGTERM, &sa, NULL);

	struct ga_sample_raw prev, cur;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	int code = EXIT_OK;
	double t0 = mono_now(), tprev = t0;
	if (ga_sample_read(ctx, &prev) < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "%s", ga_ctx_errmsg(ctx));
	for (uint64_t k = 1; !stop_signal; k++) {
		if (count > 0 && rc->seq >= (uint64_t)count)
			break;
		double next = t0 + (double)k * interval_s;
		if (duration_s > 0 && next - t0 > duration_s + 1e-9)
			break;
		if (!sleep_until(next))
			break;
		double t = mono_now();
		char wall[48];
		wall_now(wall, sizeof(wall));
		if (ga_sample_read(ctx, &cur) < 0) {
			code = cli_error(rc->cli, "record", EXIT_INTERNAL, "%s", ga_ctx_errmsg(ctx));
			break;
		}
		code = emit(rc, &prev, &cur, t - tprev, t - t0, wall);
		ga_sample_raw_release(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		tprev = t;
		if (code != EXIT_OK)
			break;
	}
	ga_sample_raw_release(&prev);
	ga_sample_raw_release(&cur);
	fflush(rc->out);
	return code;
}

int cmd_record(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "root", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "nvml", no_argument, NULL, 'N' },
		{ "no-nvml", no_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double interval_s = 1.0, duration_s = 0;
	long count = 0;
	const char *root = NULL, *output = NULL;
	int verbose = 0, opt, nvml = -1; /* -1: auto (live NVIDIA driver), 0 off, 1 on */
	double timeout_s = 5;
	bool have_count = false, have_duration = false;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+hvi:c:d:o:r:", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_interval(optarg, &interval_s) < 0)
				return cli_error(cli, "record", EXIT_USAGE,
				                 "--interval wants seconds like 1s, 0.5 or 200ms (at most "
				                 "1d), not '%s'",
				                 optarg);
			break;
		case 'c': {
			char *end = NULL;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 || v > 100000000L)
				return cli_error(cli, "record", EXIT_USAGE,
				                 "--count wants a positive integer, not '%s'", optarg);
			count = v;
			have_count = true;
			break;
		}
		case 'd':
			if (ga_duration_parse(optarg, &duration_s) < 0 || !(duration_s > 0))
				return cli_error(cli, "record", EXIT_USAGE,
				                 "--duration wants a duration like 30s, 10m or 1h, not '%s'",
				                 optarg);
			have_duration = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'v':
			verbose++;
			break;
		case 'N':
			nvml = 1;
			break;
		case 'n':
			nvml = 0;
			break;
		case 't': {
			char *end = NULL;
			timeout_s = strtod(optarg, &end);
			if (!end || *end || !(timeout_s > 0) || timeout_s > 3600)
				return cli_error(cli, "record", EXIT_USAGE,
				                 "--timeout wants seconds between 0 and 3600, not '%s'",
				                 optarg);
			break;
		}
		case 'h':
			cli_usage(cli, cli_find("record"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "record", opts, argv);
		}
	}
	if (optind < argc)
		return cli_error(cli, "record", EXIT_USAGE, "unexpected argument '%s' (try -h)",
		                 argv[optind]);
	if (have_count && have_duration)
		return cli_error(cli, "record", EXIT_USAGE, "--count and --duration exclude each other");

	struct ga_ctx *ctx = NULL;
	int code = cli_ctx(cli, "record", root, verbose, &ctx);
	struct rec rc = { 0 };
	ga_buf_init(&rc.line, 0);
	if (code != EXIT_OK)
		return code;
	rc.cli = cli;
	rc.ctx = ctx;
	rc.out = cli->out;
	/* NVML by default only on a live machine whose NVIDIA driver is loaded */
	rc.nvml = nvml == 1 ||
	          (nvml < 0 && !(root && *root) && ga_fs_exists(ctx, "proc/driver/nvidia/version"));
	ga_ctx_set_vendor(ctx, GA_VENDOR_ON, (int)(timeout_s * 1000));
	if (ga_ctx_set_helper(ctx, cli->self_exe) < 0) {
		code = cli_error(cli, "record", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (output && strcmp(output, "-") && !(rc.out = fopen(output, "w"))) {
		code = cli_error(cli, "record", EXIT_USAGE, "cannot write %s: %s", output, strerror(errno));
		goto out;
	}
	if (root && *root)
		code = record_root(&rc, ctx, root, interval_s, count, duration_s);
	else
		code = record_live(&rc, ctx, interval_s, count, duration_s);
out:
	if (rc.out && rc.out != cli->out && fclose(rc.out) != 0 && code == EXIT_OK)
		code = cli_error(cli, "record", EXIT_INTERNAL, "cannot write %s: %s", output,
		                 strerror(errno));
	ga_buf_release(&rc.line);
	ga_ctx_free(ctx);
	return code;
}
