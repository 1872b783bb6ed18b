/*
 * cmd-bench-load.c - workload benchmarks: `gpuaudit bench exec` (a command run
 * N times: wall, user, system, peak RSS, exit status; the first run reported
 * as cold start) and `gpuaudit bench http` (open-loop HTTP load at a fixed or
 * Poisson rate, coordinated-omission safe). Both print text or JSON (schema
 * gpuaudit.bench/v1, the input of `gpuaudit canary`), export the histogram in
 * HdrHistogram's text format and draw the percentile spectrum as SVG.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-report.h"
#include "cli.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/hist.h"
#include "gpuaudit/json.h"
#include "gpuaudit/stats.h"

#define OUTLIER_Z 10.0
#define SLOW_FIRST_FACTOR 1.5
#define MAX_RUNS 1000000

static const char exec_usage[] =
        "usage: gpuaudit bench exec [--runs N] [--warmup N] [--prepare CMD] [--timeout S]\n"
        "                           [--shell] [--show-output] [--json [--compact]]\n"
        "                           [-o FILE] [--export-hdr FILE] [--plot FILE.svg] -- CMD [ARG...]\n"
        "\n"
        "Run a command N times (no shell unless --shell: then CMD is one shell command\n"
        "line) and report per run wall time, user and system CPU time, peak resident\n"
        "memory and exit status. The first run is the cold start and is reported apart\n"
        "from the warm distribution (p50, p90, p95, p99, max of the N runs that\n"
        "follow it and the warm-up runs).\n"
        "\n"
        "  --runs N         measured warm runs (default 10)\n"
        "  --warmup N       runs after the cold start that are not measured (default 0)\n"
        "  --prepare CMD    shell command run before every run, not timed (e.g. drop\n"
        "                   caches); the benchmark stops if it fails\n"
        "  --timeout S      kill a run (its process group) after S seconds; it counts\n"
        "                   as failed\n"
        "  --shell          run CMD with /bin/sh -c\n"
        "  --show-output    keep the command's stdout and stderr (default /dev/null)\n"
        "  --json           print the result as JSON (schema gpuaudit.bench/v1, kind\n"
        "                   exec) with every run\n"
        "  --compact        with --json: one line\n"
        "  -o, --output F   also write the JSON result to F (for gpuaudit canary)\n"
        "  --export-hdr F   write the warm wall-time histogram in HdrHistogram's\n"
        "                   percentile-distribution format (values in ms)\n"
        "  --plot F.svg     draw the warm wall-time percentile spectrum\n"
        "  -h, --help       show this help\n"
        "\n"
        "Warnings: percentiles with fewer runs than they need (MLPerf's early-stopping\n"
        "rule: 64 for p90, 662 for p99), outliers (modified z-score > 10) and a first\n"
        "run much slower than the warm median (missing warm-up).\n"
        "\n"
        "Exit status: 0 every run exited 0, 1 some run failed or timed out, 2 usage\n"
        "error or the command could not be started, 70 internal error.\n";

static const char http_usage[] =
        "usage: gpuaudit bench http URL --rate R --duration D [--connections C]\n"
        "                           [--method M] [--header H]... [--body-file F]\n"
        "                           [--poisson] [--http2] [--closed-loop] [--timeout S]\n"
        "                           [--seed N] [--engine native|curl] [--json [--compact]]\n"
        "                           [-o FILE] [--export-hdr FILE] [--plot FILE.svg]\n"
        "\n"
        "Open-loop load on one URL: request i is due at start + i/R and its latency\n"
        "counts from that intended time, so a stall of the server shows in every request\n"
        "it holds back (coordinated omission corrected). The uncorrected latency (from\n"
        "the actual send) and the generator's own lag are reported too, and the time to\n"
        "the first successful response and the first requests' latencies as cold start.\n"
        "Status codes, errors, timeouts and the error rate are counted. Only the URL you\n"
        "name is contacted, over keep-alive connections: plain http:// with HTTP/1.1\n"
        "through gpuaudit's own client, https:// and HTTP/2 through libcurl.\n"
        "\n"
        "  --rate R         requests per second (required)\n"
        "  --duration D     length of the schedule: 10, 10s, 500ms, 2m (required)\n"
        "  --connections C  most requests in flight, one keep-alive connection each\n"
        "                   (default 8); requests due while all are busy wait and are\n"
        "                   sent late, the wait counted in their latency\n"
        "  --method M       request method (default GET, or POST with --body-file)\n"
        "  --header H       extra request header 'Name: value' (repeatable)\n"
        "  --body-file F    request body\n"
        "  --poisson        exponential gaps between requests (mean 1/R) instead of\n"
        "                   fixed ones\n"
        "  --http2          HTTP/2 (prior knowledge on http://, ALPN on https://)\n"
        "  --closed-loop    send the next request when one finishes, at most C in\n"
        "                   flight, for D or R x D requests, whichever ends first (what\n"
        "                   closed-loop tools such as wrk measure; for comparison)\n"
        "  --timeout S      per-request timeout (default 30s)\n"
        "  --seed N         seed of the Poisson arrivals (default 1)\n"
        "  --engine E       native (default for http:// with HTTP/1.1: epoll, one\n"
        "                   prepared request written with one send, http_parser) or\n"
        "                   curl (libcurl's multi interface; always for https:// and\n"
        "                   --http2); the JSON says which ran\n"
        "  --json, --compact, -o FILE, --export-hdr FILE, --plot FILE.svg\n"
        "                   as for bench exec (the histogram of the corrected latency)\n"
        "  -h, --help       show this help\n"
        "\n"
        "Exit status: 0 every request succeeded, 1 some request failed (transport error,\n"
        "timeout, HTTP status >= 400), 2 usage error, 70 internal error.\n";

enum {
	OPT_RUNS = 256,
	OPT_WARMUP,
	OPT_PREPARE,
	OPT_TIMEOUT,
	OPT_SHELL,
	OPT_SHOW,
	OPT_JSON,
	OPT_COMPACT,
	OPT_HDR,
	OPT_PLOT,
	OPT_RATE,
	OPT_DURATION,
	OPT_CONN,
	OPT_METHOD,
	OPT_HEADER,
	OPT_BODY,
	OPT_POISSON,
	OPT_HTTP2,
	OPT_CLOSED,
	OPT_SEED,
	OPT_ENGINE,
};

struct out_opts {
	bool json, compact;
	const char *output, *hdr, *plot;
};

/* The output options exec and http share; false when opt is not one of them. */
static bool out_opt(struct out_opts *oo, int opt, const char *arg)
{
	switch (opt) {
	case OPT_JSON:
		oo->json = true;
		return true;
	case OPT_COMPACT:
		oo->compact = true;
		return true;
	case 'o':
		oo->output = arg;
		return true;
	case OPT_HDR:
		oo->hdr = arg;
		return true;
	case OPT_PLOT:
		oo->plot = arg;
		return true;
	default:
		return false;
	}
}

static int parse_count(const char *s, long lo, long hi, long *ret)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Print the JSON to stdout (--json) and/or write it to -o FILE. */
static int emit_json(struct cli *cli, const char *cmd, const struct out_opts *oo, struct ga_buf *pretty,
                     struct ga_buf *compact)
{
	if (oo->output) {
		int err = bench_write_file(oo->output, pretty->data, pretty->len);
		if (err < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", oo->output,
			                 strerror(-err));
	}
	if (oo->json) {
		struct ga_buf *b = oo->compact ? compact : pretty;
		fwrite(b->data, 1, b->len, cli->out);
		if (oo->compact)
			fputc('\n', cli->out);
	}
	return EXIT_OK;
}

static int export_hdr(struct cli *cli, const char *cmd, const char *path, const struct ga_hist *h,
                      double value_scale)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int err = ga_hist_write_percentiles(h, 5, value_scale, &b);
	if (err == 0)
		err = bench_write_file(path, b.data, b.len);
	ga_buf_release(&b);
	if (err < 0)
		return cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", path, strerror(-err));
	return EXIT_OK;
}

/* Percentiles of a latency histogram (ns) in one text row. */
static void print_hist_row(FILE *o, const char *label, const struct ga_hist *h, const double *ps, size_t n)
{
	char b[32];
	fprintf(o, "  %-26s", label);
	for (size_t i = 0; i < n; i++) {
		bench_fmt(b, sizeof(b), h->total_count ? (double)ga_hist_percentile(h, ps[i]) * 1e-9 : NAN,
		          "s");
		fprintf(o, " %9s", b);
	}
	bench_fmt(b, sizeof(b),
	          h->total_count ? (double)ga_hist_highest_equivalent(h, h->max_value) * 1e-9 : NAN, "s");
	fprintf(o, " %9s\n", b);
}

/* "p99 needs 662, p99.9 needs 6636": the percentiles n values cannot support. */
static void note_sample_size(FILE *o, const char *what, size_t n, const double *ps, size_t k)
{
	bool any = false;
	for (size_t i = 0; i < k; i++) {
		size_t need = ga_stats_min_samples(ps[i], 0.99);
		if (need && n < need) {
			fprintf(o, "%s p%g needs >= %zu", any ? "," : "note:", ps[i], need);
			any = true;
		}
	}
	if (any)
		fprintf(o, " %s to be trusted (MLPerf early-stopping rule, 99%% confidence); have %zu\n",
		        what, n);
}

/* ------------------------------------------------------------------ exec */

/*
 * Our own peak RSS (VmHWM) in bytes, or -1. Linux charges the memory of the
 * spawning process to the child until it execs, so a child's ru_maxrss is
 * never below roughly this figure: reported as the floor of the measurement.
 */
static int64_t own_hwm_bytes(void)
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

static void json_run(struct ga_json *w, const struct ga_exec_run *r)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "wall_s");
	ga_json_dbl(w, r->wall_s);
	ga_json_key(w, "user_s");
	ga_json_dbl(w, r->user_s);
	ga_json_key(w, "sys_s");
	ga_json_dbl(w, r->sys_s);
	ga_json_key(w, "max_rss_bytes");
	ga_json_i64(w, r->max_rss_bytes);
	ga_json_key(w, "exit_status");
	if (r->status >= 0)
		ga_json_i64(w, r->status);
	else
		ga_json_null(w);
	ga_json_key(w, "signal");
	if (r->signal)
		ga_json_i64(w, r->signal);
	else
		ga_json_null(w);
	ga_json_key(w, "timed_out");
	ga_json_bool(w, r->timed_out);
	ga_json_obj_end(w);
}

static bool run_failed(const struct ga_exec_run *r)
{
	return r->timed_out || r->status != 0;
}

static void fail_text(char *b, size_t n, const struct ga_exec_run *r)
{
	if (r->timed_out)
		snprintf(b, n, "timed out");
	else if (r->status < 0)
		snprintf(b, n, "killed by signal %d", r->signal);
	else
		snprintf(b, n, "exit %d", r->status);
}

struct exec_summary {
	double *wall, *cpu, *rss; /* warm runs, in order */
	double *wall_sorted;
	size_t n;
	long outliers;
	size_t failures;
	bool slow_first;
	double cold_factor;
	int64_t rss_floor_bytes;
};

static void write_exec_json(struct ga_json *w, char *const *argv, bool shell, long warmup,
                            const struct ga_exec_run *cold, const struct ga_exec_run *runs,
                            const struct exec_summary *s, const struct ga_hist *h)
{
	static const double ps[] = { 50, 90, 95, 99 };
	static const char *const pn[] = { "p50", "p90", "p95", "p99" };
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, GA_BENCH_SCHEMA);
	ga_json_key(w, "kind");
	ga_json_str(w, "exec");
	ga_json_key(w, "command");
	ga_json_arr_begin(w);
	for (char *const *a = argv; *a; a++)
		ga_json_str(w, *a);
	ga_json_arr_end(w);
	ga_json_key(w, "shell");
	ga_json_bool(w, shell);
	ga_json_key(w, "warmup_runs");
	ga_json_i64(w, warmup);
	ga_json_key(w, "cold_start");
	json_run(w, cold);
	ga_json_key(w, "summary");
	ga_json_obj_begin(w);
	ga_json_key(w, "wall_s");
	ga_json_obj_begin(w);
	for (size_t i = 0; i < 4; i++) {
		ga_json_key(w, pn[i]);
		ga_json_dbl(w, ga_stats_percentile(s->wall_sorted, s->n, ps[i]));
	}
	ga_json_key(w, "max");
	ga_json_dbl(w, s->n ? s->wall_sorted[s->n - 1] : NAN);
	ga_json_key(w, "mean");
	ga_json_dbl(w, ga_stats_mean(s->wall, s->n));
	ga_json_key(w, "stddev");
	ga_json_dbl(w, ga_stats_stddev(s->wall, s->n));
	ga_json_obj_end(w);
	ga_json_key(w, "failed_runs");
	ga_json_u64(w, s->failures);
	ga_json_key(w, "outliers");
	ga_json_i64(w, s->outliers);
	ga_json_key(w, "slow_first_run");
	ga_json_bool(w, s->slow_first);
	ga_json_key(w, "rss_floor_bytes");
	if (s->rss_floor_bytes >= 0)
		ga_json_i64(w, s->rss_floor_bytes);
	else
		ga_json_null(w);
	ga_json_obj_end(w);
	ga_json_key(w, "metrics");
	ga_json_arr_begin(w);
	ga_metric_write_json(w, "exec.wall", "s", false, s->wall, s->n, NULL, 0);
	ga_metric_write_json(w, "exec.cpu", "s", false, s->cpu, s->n, NULL, 0);
	ga_metric_write_json(w, "exec.peak_rss", "byte", false, s->rss, s->n, NULL, 0);
	ga_json_arr_end(w);
	ga_json_key(w, "wall_histogram");
	ga_hist_write_json(w, h, 1e-9);
	ga_json_key(w, "runs");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->n; i++)
		json_run(w, &runs[i]);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

static void print_exec_text(FILE *o, char *const *argv, long warmup, const struct ga_exec_run *cold,
                            const struct ga_exec_run *runs, const struct exec_summary *s)
{
	char b[64], c[64];
	fprintf(o, "command:");
	for (char *const *a = argv; *a; a++)
		fprintf(o, " %s", *a);
	fputc('\n', o);
	bench_fmt(b, sizeof(b), cold->wall_s, "s");
	fprintf(o, "cold start (run 1): %s", b);
	if (run_failed(cold)) {
		fail_text(c, sizeof(c), cold);
		fprintf(o, " (%s)", c);
	}
	fprintf(o, "\n%zu warm runs", s->n);
	if (warmup)
		fprintf(o, " after %ld warm-up run%s", warmup, warmup == 1 ? "" : "s");
	fprintf(o, ":\n               p50       p90       p95       p99       max      mean\n");
	static const double ps[] = { 50, 90, 95, 99, 100 };
	const char *labels[] = { "wall", "user+sys", "peak RSS" };
	double *cols[] = { s->wall, s->cpu, s->rss };
	const char *units[] = { "s", "s", "byte" };
	double *tmp = malloc((s->n ? s->n : 1) * sizeof(double));
	for (int k = 0; k < 3 && tmp; k++) {
		memcpy(tmp, cols[k], s->n * sizeof(double));
		ga_stats_sort(tmp, s->n);
		fprintf(o, "  %-9s", labels[k]);
		for (size_t i = 0; i < 5; i++) {
			bench_fmt(b, sizeof(b), ga_stats_percentile(tmp, s->n, ps[i]), units[k]);
			fprintf(o, " %9s", b);
		}
		bench_fmt(b, sizeof(b), ga_stats_mean(cols[k], s->n), units[k]);
		fprintf(o, " %9s\n", b);
	}
	free(tmp);
	if (s->failures) {
		size_t first = 0;
		while (first < s->n && !run_failed(&runs[first]))
			first++;
		fail_text(c, sizeof(c), &runs[first]);
		fprintf(o, "warning: %zu of %zu warm runs failed (first: run %zu, %s)\n", s->failures, s->n,
		        first + 2 + (size_t)warmup, c);
	}
	if (s->outliers > 0)
		fprintf(o,
		        "warning: %ld statistical outlier%s (modified z-score > %g): other load on the "
		        "machine, or a run that did different work\n",
		        s->outliers, s->outliers == 1 ? "" : "s", OUTLIER_Z);
	if (s->slow_first)
		fprintf(o,
		        "warning: the first run took %.1fx the warm median: a cold start (page cache, "
		        "JIT, lazy loading); measure it on purpose or add --warmup\n",
		        s->cold_factor);
	if (s->rss_floor_bytes > 0 && s->n &&
	    ga_stats_median(s->rss, s->n) <= 1.05 * (double)s->rss_floor_bytes) {
		bench_fmt(b, sizeof(b), (double)s->rss_floor_bytes, "byte");
		fprintf(o,
		        "note: peak RSS is at the measurement floor (%s, this process's own: Linux "
		        "charges it to the child until exec); the command used at most that\n",
		        b);
	}
	static const double need[] = { 90, 95, 99 };
	note_sample_size(o, "runs", s->n, need, 3);
}

int cmd_bench_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "prepare", required_argument, NULL, OPT_PREPARE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "show-output", no_argument, NULL, OPT_SHOW },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "output", required_argument, NULL, 'o' },
		{ "export-hdr", required_argument, NULL, OPT_HDR },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench exec";
	long runs_n = 10, warmup = 0;
	struct ga_exec_opts eo = { 0 };
	struct out_opts oo = { 0 };
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
		if (out_opt(&oo, opt, optarg))
			continue;
		switch (opt) {
		case OPT_RUNS:
			if (parse_count(optarg, 1, MAX_RUNS, &runs_n) < 0)
				return cli_error(cli, cmd, EXIT_USAGE, "--runs: a count from 1 to %d",
				                 MAX_RUNS);
			break;
		case OPT_WARMUP:
			if (parse_count(optarg, 0, MAX_RUNS, &warmup) < 0)
				return cli_error(cli, cmd, EXIT_USAGE, "--warmup: a count from 0 to %d",
				                 MAX_RUNS);
			break;
		case OPT_PREPARE:
			eo.prepare = optarg;
			break;
		case OPT_TIMEOUT:
			if (bench_parse_seconds(optarg, &eo.timeout_s) < 0)
				return cli_error(cli, cmd, EXIT_USAGE,
				                 "--timeout: a duration such as 10s or 500ms");
			break;
		case OPT_SHELL:
			eo.shell = true;
			break;
		case OPT_SHOW:
			eo.show_output = true;
			break;
		case 'h':
			fputs(exec_usage, cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, cmd, opts, argv);
		}
	}
	if (optind >= argc)
		return cli_error(cli, cmd, EXIT_USAGE, "no command to run (try -h)");
	if (oo.compact && !oo.json)
		return cli_error(cli, cmd, EXIT_USAGE, "--compact needs --json");
	if (eo.shell && argc - optind != 1)
		return cli_error(cli, cmd, EXIT_USAGE, "with --shell, give the command line as one argument");
	eo.argv = argv + optind;

	struct ga_ctx *ctx = NULL;
	int code = EXIT_INTERNAL;
	struct ga_exec_run cold, *runs = NULL;
	struct exec_summary s = { 0 };
	struct ga_hist h = { 0 };
	struct ga_buf pretty, compact;
	ga_buf_init(&pretty, 0);
	ga_buf_init(&compact, 0);
	if (ga_ctx_new(&ctx) < 0)
		goto out;
	runs = calloc((size_t)runs_n, sizeof(*runs));
	s.wall = calloc((size_t)runs_n, sizeof(double));
	s.cpu = calloc((size_t)runs_n, sizeof(double));
	s.rss = calloc((size_t)runs_n, sizeof(double));
	s.wall_sorted = calloc((size_t)runs_n, sizeof(double));
	if (!runs || !s.wall || !s.cpu || !s.rss || !s.wall_sorted ||
	    ga_hist_init(&h, 1, 3600LL * 1000 * 1000 * 1000, 3) < 0)
		goto out;
	s.rss_floor_bytes = own_hwm_bytes();
	long total = 1 + warmup + runs_n;
	for (long i = 0; i < total; i++) {
		struct ga_exec_run r;
		int err = ga_exec_prepare(ctx, &eo);
		if (err == 0)
			err = ga_exec_once(ctx, &eo, &r);
		if (err < 0) {
			code = cli_error(cli, cmd, i == 0 ? EXIT_USAGE : EXIT_PROBLEMS, "%s",
			                 ga_ctx_errmsg(ctx));
			goto out;
		}
		if (i == 0)
			cold = r;
		else if (i > warmup)
			runs[s.n++] = r;
	}
	for (size_t i = 0; i < s.n; i++) {
		s.wall[i] = runs[i].wall_s;
		s.cpu[i] = runs[i].user_s + runs[i].sys_s;
		s.rss[i] = (double)runs[i].max_rss_bytes;
		s.wall_sorted[i] = runs[i].wall_s;
		s.failures += run_failed(&runs[i]);
		ga_hist_record(&h, (int64_t)llround(runs[i].wall_s * 1e9));
	}
	ga_stats_sort(s.wall_sorted, s.n);
	s.outliers = s.n >= 3 ? ga_stats_outliers(s.wall, s.n, OUTLIER_Z, NULL) : 0;
	double med = ga_stats_median(s.wall_sorted, s.n);
	s.cold_factor = med > 0 ? cold.wall_s / med : NAN;
	s.slow_first = med > 0 && cold.wall_s > SLOW_FIRST_FACTOR * med;

	if (oo.json || oo.output) {
		struct ga_json w;
		ga_json_init(&w, &pretty, true);
		write_exec_json(&w, eo.argv, eo.shell, warmup, &cold, runs, &s, &h);
		if (ga_json_finish(&w) < 0)
			goto out;
		ga_json_init(&w, &compact, false);
		write_exec_json(&w, eo.argv, eo.shell, warmup, &cold, runs, &s, &h);
		if (ga_json_finish(&w) < 0)
			goto out;
		code = emit_json(cli, cmd, &oo, &pretty, &compact);
		if (code != EXIT_OK)
			goto out;
	}
	if (!oo.json)
		print_exec_text(cli->out, eo.argv, warmup, &cold, runs, &s);
	if (oo.hdr && (code = export_hdr(cli, cmd, oo.hdr, &h, 1e6)) != EXIT_OK)
		goto out;
	if (oo.plot) {
		struct ga_svg_point *pts = NULL;
		size_t np = 0;
		int err = ga_svg_points_from_sorted(s.wall_sorted, s.n, 5, 1e3, &pts, &np);
		if (err == 0) {
			struct ga_svg_series ser = { "wall time", pts, np };
			err = bench_write_svg(oo.plot, "gpuaudit bench exec: wall time", "ms", &ser, 1);
		}
		ga_free(pts);
		if (err < 0) {
			code = cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", oo.plot,
			                 strerror(-err));
			goto out;
		}
	}
	code = (s.failures || run_failed(&cold)) ? EXIT_PROBLEMS : EXIT_OK;
out:
	if (code == EXIT_INTERNAL)
		cli_error(cli, cmd, code, "out of memory");
	ga_buf_release(&pretty);
	ga_buf_release(&compact);
	ga_hist_release(&h);
	free(runs);
	free(s.wall);
	free(s.cpu);
	free(s.rss);
	free(s.wall_sorted);
	ga_ctx_free(ctx);
	return code;
}

/* ------------------------------------------------------------------ http */

static const double http_ps[] = { 50, 90, 99, 99.9, 99.99 };

static void json_hist_summary(struct ga_json *w, const char *key, const struct ga_hist *h)
{
	static const char *const names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	ga_json_key(w, key);
	ga_json_obj_begin(w);
	for (size_t i = 0; i < 5; i++) {
		ga_json_key(w, names[i]);
		ga_json_dbl(w, h->total_count ? (double)ga_hist_percentile(h, http_ps[i]) * 1e-9 : NAN);
	}
	ga_json_key(w, "max");
	ga_json_dbl(w, h->total_count ? (double)ga_hist_highest_equivalent(h, h->max_value) * 1e-9 : NAN);
	ga_json_key(w, "mean");
	ga_json_dbl(w, h->total_count ? ga_hist_mean(h) * 1e-9 : NAN);
	ga_json_obj_end(w);
}

static void write_http_json(struct ga_json *w, const struct ga_http_opts *o, const struct ga_http_result *r)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, GA_BENCH_SCHEMA);
	ga_json_key(w, "kind");
	ga_json_str(w, "http");
	ga_json_key(w, "url");
	ga_json_str(w, o->url);
	ga_json_key(w, "method");
	ga_json_str(w, o->method ? o->method : o->body ? "POST" : "GET");
	ga_json_key(w, "rate_per_s");
	ga_json_dbl(w, o->rate);
	ga_json_key(w, "duration_s");
	ga_json_dbl(w, o->duration_s);
	ga_json_key(w, "connections");
	ga_json_i64(w, o->connections);
	ga_json_key(w, "arrivals");
	ga_json_str(w, o->closed_loop ? "closed-loop" : o->poisson ? "poisson" : "fixed");
	ga_json_key(w, "http_version");
	if (r->http_version)
		ga_json_str(w, r->http_version == 20 ? "2" : r->http_version == 11 ? "1.1" : "1.0");
	else
		ga_json_null(w);
	ga_json_key(w, "requests");
	ga_json_u64(w, r->sent + r->not_sent);
	ga_json_key(w, "errors");
	ga_json_u64(w, r->errors);
	ga_json_key(w, "error_rate");
	ga_json_dbl(w, r->sent + r->not_sent ? (double)r->errors / (double)(r->sent + r->not_sent) : NAN);
	ga_json_key(w, "ok");
	ga_json_u64(w, r->ok);
	ga_json_key(w, "timeouts");
	ga_json_u64(w, r->timeouts);
	ga_json_key(w, "transport_errors");
	ga_json_u64(w, r->transport_errors);
	ga_json_key(w, "not_sent");
	ga_json_u64(w, r->not_sent);
	ga_json_key(w, "h2_connection_per_request");
	ga_json_bool(w, r->h2_no_reuse);
	ga_json_key(w, "engine");
	ga_json_str(w, r->engine);
	ga_json_key(w, "retries");
	ga_json_u64(w, r->retries);
	ga_json_key(w, "first_error");
	ga_json_str(w, r->first_error[0] ? r->first_error : NULL);
	ga_json_key(w, "status_classes");
	ga_json_obj_begin(w);
	static const char *const cls[] = { "none", "1xx", "2xx", "3xx", "4xx", "5xx" };
	for (int i = 0; i < 6; i++) {
		ga_json_key(w, cls[i]);
		ga_json_u64(w, r->status_counts[i]);
	}
	ga_json_obj_end(w);
	ga_json_key(w, "elapsed_s");
	ga_json_dbl(w, r->elapsed_s);
	ga_json_key(w, "achieved_rate_per_s");
	ga_json_dbl(w, r->elapsed_s > 0 ? (double)r->completed / r->elapsed_s : NAN);
	ga_json_key(w, "cold_start");
	ga_json_obj_begin(w);
	ga_json_key(w, "first_ok_s");
	ga_json_dbl(w, r->first_ok_s >= 0 ? r->first_ok_s : NAN);
	ga_json_key(w, "first_latencies_s");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < r->n_cold; i++)
		ga_json_dbl(w, r->cold_latency_s[i]);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	json_hist_summary(w, "latency_s", &r->latency);
	json_hist_summary(w, "uncorrected_latency_s", &r->service);
	json_hist_summary(w, "generator_lag_s", &r->lag);
	ga_json_key(w, "metrics");
	ga_json_arr_begin(w);
	ga_metric_write_json(w, "http.latency", "s", false, NULL, 0, &r->latency, 1e-9);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

static void print_http_text(FILE *o, const struct ga_http_opts *op, const struct ga_http_result *r)
{
	char b[64];
	uint64_t requests = r->sent + r->not_sent;
	fprintf(o, "target: %s %s, %g/s for %gs (%s), %d connection%s, HTTP/%s (%s)\n",
	        op->method ? op->method
	        : op->body ? "POST"
	                   : "GET",
	        op->url, op->rate, op->duration_s,
	        op->closed_loop ? "closed loop"
	        : op->poisson   ? "open loop, Poisson arrivals"
	                        : "open loop, fixed gaps",
	        op->connections, op->connections == 1 ? "" : "s",
	        r->http_version == 20   ? "2"
	        : r->http_version == 10 ? "1.0"
	        : r->http_version == 11 ? "1.1"
	                                : "?",
	        r->engine ? r->engine : "?");
	fprintf(o,
	        "requests: %llu, ok %llu, errors %llu (%.2f%%): timeouts %llu, transport %llu, "
	        "not sent %llu\n",
	        (unsigned long long)requests, (unsigned long long)r->ok, (unsigned long long)r->errors,
	        requests ? 100.0 * (double)r->errors / (double)requests : 0.0,
	        (unsigned long long)r->timeouts, (unsigned long long)r->transport_errors,
	        (unsigned long long)r->not_sent);
	if (r->first_error[0])
		fprintf(o, "first transport error: %s\n", r->first_error);
	if (r->retries)
		fprintf(o, "sent again on a new connection (a reused one closed first): %llu\n",
		        (unsigned long long)r->retries);
	if (r->h2_no_reuse)
		fprintf(o, "note: this libcurl (before 8.0) cannot reuse HTTP/2 prior-knowledge "
		           "connections (curl issue 10634): one connection per request\n");
	fprintf(o, "status:");
	static const char *const cls[] = { "none", "1xx", "2xx", "3xx", "4xx", "5xx" };
	for (int i = 1; i < 6; i++)
		if (r->status_counts[i])
			fprintf(o, " %s %llu", cls[i], (unsigned long long)r->status_counts[i]);
	fprintf(o, "\nachieved: %.1f responses/s over %.2f s\n",
	        r->elapsed_s > 0 ? (double)r->completed / r->elapsed_s : 0.0, r->elapsed_s);
	if (r->first_ok_s >= 0) {
		bench_fmt(b, sizeof(b), r->first_ok_s, "s");
		fprintf(o, "cold start: first successful response after %s; first %zu latencies:", b,
		        r->n_cold);
	} else {
		fprintf(o, "cold start: no successful response; first %zu latencies:", r->n_cold);
	}
	for (size_t i = 0; i < r->n_cold; i++) {
		bench_fmt(b, sizeof(b), r->cold_latency_s[i], "s");
		fprintf(o, " %s", b);
	}
	fprintf(o, "\n                                   p50       p90       p99     p99.9    p99.99       "
	           "max\n");
	print_hist_row(o, "latency (from intended)", &r->latency, http_ps, 5);
	print_hist_row(o, "uncorrected (from send)", &r->service, http_ps, 5);
	print_hist_row(o, "generator lag", &r->lag, http_ps, 5);
	note_sample_size(o, "requests", (size_t)r->latency.total_count, http_ps + 2, 3);
}

int cmd_bench_http(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "connections", required_argument, NULL, OPT_CONN },
		{ "method", required_argument, NULL, OPT_METHOD },
		{ "header", required_argument, NULL, OPT_HEADER },
		{ "body-file", required_argument, NULL, OPT_BODY },
		{ "poisson", no_argument, NULL, OPT_POISSON },
		{ "http2", no_argument, NULL, OPT_HTTP2 },
		{ "closed-loop", no_argument, NULL, OPT_CLOSED },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "output", required_argument, NULL, 'o' },
		{ "export-hdr", required_argument, NULL, OPT_HDR },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench http";
	struct ga_http_opts ho = { .connections = 8, .seed = 1 };
	struct out_opts oo = { 0 };
	const char **headers = NULL;
	size_t n_headers = 0;
	const char *body_file = NULL;
	char *body = NULL;
	long v;
	int opt, code = EXIT_INTERNAL;
	optind = 0;
	opterr = 0;
	struct ga_ctx *ctx = NULL;
	struct ga_http_result r = { 0 };
	struct ga_buf pretty, compact;
	ga_buf_init(&pretty, 0);
	ga_buf_init(&compact, 0);
	while ((opt = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (out_opt(&oo, opt, optarg))
			continue;
		switch (opt) {
		case OPT_RATE:
			if (bench_parse_double(optarg, 1e-3, 1e7, &ho.rate) < 0) {
				code = cli_error(cli, cmd, EXIT_USAGE,
				                 "--rate: requests per second, 0.001 to 1e7");
				goto out;
			}
			break;
		case OPT_DURATION:
			if (bench_parse_seconds(optarg, &ho.duration_s) < 0) {
				code = cli_error(cli, cmd, EXIT_USAGE,
				                 "--duration: such as 10, 10s, 500ms, 2m");
				goto out;
			}
			break;
		case OPT_CONN:
			if (parse_count(optarg, 1, 10000, &v) < 0) {
				code = cli_error(cli, cmd, EXIT_USAGE, "--connections: 1 to 10000");
				goto out;
			}
			ho.connections = (int)v;
			break;
		case OPT_METHOD:
			ho.method = optarg;
			break;
		case OPT_HEADER: {
			if (!strchr(optarg, ':')) {
				code = cli_error(cli, cmd, EXIT_USAGE, "--header: 'Name: value'");
				goto out;
			}
			const char **nh = realloc(headers, (n_headers + 1) * sizeof(*headers));
			if (!nh)
				goto out;
			headers = nh;
			headers[n_headers++] = optarg;
			break;
		}
		case OPT_BODY:
			body_file = optarg;
			break;
		case OPT_POISSON:
			ho.poisson = true;
			break;
		case OPT_HTTP2:
			ho.http2 = true;
			break;
		case OPT_CLOSED:
			ho.closed_loop = true;
			break;
		case OPT_TIMEOUT:
			if (bench_parse_seconds(optarg, &ho.timeout_s) < 0) {
				code = cli_error(cli, cmd, EXIT_USAGE, "--timeout: such as 10s or 500ms");
				goto out;
			}
			break;
		case OPT_SEED:
			if (parse_count(optarg, 0, LONG_MAX, &v) < 0) {
				code = cli_error(cli, cmd, EXIT_USAGE, "--seed: a non-negative integer");
				goto out;
			}
			ho.seed = (uint64_t)v;
			break;
		case OPT_ENGINE:
			if (!strcmp(optarg, "native")) {
				ho.engine = GA_HTTP_ENGINE_NATIVE;
			} else if (!strcmp(optarg, "curl") || !strcmp(optarg, "libcurl")) {
				ho.engine = GA_HTTP_ENGINE_CURL;
			} else {
				code = cli_error(cli, cmd, EXIT_USAGE, "--engine: native or curl");
				goto out;
			}
			break;
		case 'h':
			fputs(http_usage, cli->out);
			code = EXIT_OK;
			goto out;
		default:
			code = cli_bad_option(cli, cmd, opts, argv);
			goto out;
		}
	}
	if (optind != argc - 1) {
		code = cli_error(cli, cmd, EXIT_USAGE, "give exactly one URL (try -h)");
		goto out;
	}
	ho.url = argv[optind];
	if (strncmp(ho.url, "http://", 7) && strncmp(ho.url, "https://", 8)) {
		code = cli_error(cli, cmd, EXIT_USAGE, "the URL must start with http:// or https://");
		goto out;
	}
	if (!(ho.rate > 0) || !(ho.duration_s > 0)) {
		code = cli_error(cli, cmd, EXIT_USAGE, "--rate and --duration are required (try -h)");
		goto out;
	}
	if (ho.rate * ho.duration_s > 1e8) {
		code = cli_error(cli, cmd, EXIT_USAGE, "--rate x --duration is more than 1e8 requests");
		goto out;
	}
	if (oo.compact && !oo.json) {
		code = cli_error(cli, cmd, EXIT_USAGE, "--compact needs --json");
		goto out;
	}
	if (ho.engine == GA_HTTP_ENGINE_NATIVE && (strncmp(ho.url, "http://", 7) || ho.http2)) {
		code = cli_error(
		        cli, cmd, EXIT_USAGE,
		        "--engine native: HTTP/1.1 on http:// only (https:// and --http2 need curl)");
		goto out;
	}
	if (body_file) {
		size_t n = 0;
		int err = bench_read_file(body_file, 256 << 20, &body, &n);
		if (err < 0) {
			code = cli_error(cli, cmd, EXIT_USAGE, "cannot read %s: %s", body_file,
			                 strerror(-err));
			goto out;
		}
		ho.body = body;
		ho.body_len = n;
	}
	ho.headers = headers;
	ho.n_headers = n_headers;
	if (ga_ctx_new(&ctx) < 0)
		goto out;
	int err = ga_http_run(ctx, &ho, &r);
	if (err < 0) {
		code = cli_error(cli, cmd, err == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                 ga_ctx_errmsg(ctx));
		goto out;
	}
	if (oo.json || oo.output) {
		struct ga_json w;
		ga_json_init(&w, &pretty, true);
		write_http_json(&w, &ho, &r);
		if (ga_json_finish(&w) < 0)
			goto out;
		ga_json_init(&w, &compact, false);
		write_http_json(&w, &ho, &r);
		if (ga_json_finish(&w) < 0)
			goto out;
		if ((code = emit_json(cli, cmd, &oo, &pretty, &compact)) != EXIT_OK)
			goto out;
	}
	if (!oo.json)
		print_http_text(cli->out, &ho, &r);
	if (oo.hdr && (code = export_hdr(cli, cmd, oo.hdr, &r.latency, 1e6)) != EXIT_OK)
		goto out;
	if (oo.plot) {
		struct ga_hist_row *rows = NULL;
		size_t nr = 0;
		struct ga_svg_point *pts = NULL;
		err = ga_hist_spectrum(&r.latency, 5, &rows, &nr);
		if (err == 0 && nr == 0)
			err = -ENODATA;
		if (err == 0 && !(pts = calloc(nr, sizeof(*pts))))
			err = -ENOMEM;
		for (size_t i = 0; err == 0 && i < nr; i++)
			pts[i] = (struct ga_svg_point){ rows[i].percentile, (double)rows[i].value * 1e-6 };
		if (err == 0) {
			struct ga_svg_series ser = { "latency from intended send", pts, nr };
			err = bench_write_svg(oo.plot, "gpuaudit bench http: latency", "ms", &ser, 1);
		}
		ga_free(rows);
		free(pts);
		if (err < 0) {
			code = cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", oo.plot,
			                 strerror(-err));
			goto out;
		}
	}
	code = r.errors ? EXIT_PROBLEMS : EXIT_OK;
out:
	if (code == EXIT_INTERNAL)
		cli_error(cli, cmd, code, "out of memory");
	ga_http_result_release(&r);
	ga_buf_release(&pretty);
	ga_buf_release(&compact);
	free(headers);
	free(body);
	ga_ctx_free(ctx);
	return code;
}
