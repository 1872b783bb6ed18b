/*
 * cmd-bench-exec.c - `gpuaudit bench exec`: a command run N times (wall,
 * user, system, peak RSS, exit status; the first run reported as cold start).
 * The runs and their statistics are lib/bench/exec-stats.c; the JSON result
 * (schema gpuaudit.bench/v1, kind exec, the input of `gpuaudit canary`) is
 * lib/bench/load-json.c. This file parses the options and prints text.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-load.h"
#include "bench-report.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/stats.h"

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

struct exec_args {
	long runs, warmup;
	struct ga_exec_opts eo;
	struct bench_out_opts oo;
};

static int exec_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct exec_args *a = st;
	switch (opt) {
	case OPT_RUNS:
		if (bench_parse_count(arg, 1, GA_EXEC_MAX_RUNS, &a->runs) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--runs: a count from 1 to %d",
			                 GA_EXEC_MAX_RUNS);
		return CLI_NEXT;
	case OPT_WARMUP:
		if (bench_parse_count(arg, 0, GA_EXEC_MAX_RUNS, &a->warmup) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--warmup: a count from 0 to %d",
			                 GA_EXEC_MAX_RUNS);
		return CLI_NEXT;
	case OPT_PREPARE:
		a->eo.prepare = arg;
		return CLI_NEXT;
	case OPT_TIMEOUT:
		if (bench_parse_seconds(arg, &a->eo.timeout_s) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--timeout: a duration such as 10s or 500ms");
		return CLI_NEXT;
	case OPT_SHELL:
		a->eo.shell = true;
		return CLI_NEXT;
	case OPT_SHOW:
		a->eo.show_output = true;
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

static void print_column(FILE *o, const char *label, const double *v, const double *sorted, size_t n,
                         const char *unit)
{
	static const double ps[] = { 50, 90, 95, 99, 100 };
	char b[64];
	fprintf(o, "  %-9s", label);
	for (size_t i = 0; i < 5; i++) {
		bench_fmt(b, sizeof(b), ga_stats_percentile(sorted, n, ps[i]), unit);
		fprintf(o, " %9s", b);
	}
	bench_fmt(b, sizeof(b), ga_stats_mean(v, n), unit);
	fprintf(o, " %9s\n", b);
}

static void print_warnings(FILE *o, const struct ga_exec_bench *x)
{
	const struct ga_exec_summary *s = &x->summary;
	char b[64], c[64];
	if (s->failures) {
		size_t first = 0;
		while (first < s->n && !ga_exec_run_failed(&x->runs[first]))
			first++;
		ga_exec_fail_text(c, sizeof(c), &x->runs[first]);
		fprintf(o, "warning: %zu of %zu warm runs failed (first: run %zu, %s)\n", s->failures, s->n,
		        first + 2 + (size_t)x->warmup_runs, c);
	}
	if (s->outliers > 0)
		fprintf(o,
		        "warning: %ld statistical outlier%s (modified z-score > %g): other load on the "
		        "machine, or a run that did different work\n",
		        s->outliers, s->outliers == 1 ? "" : "s", GA_EXEC_OUTLIER_Z);
	if (s->slow_first)
		fprintf(o,
		        "warning: the first run took %.1fx the warm median: a cold start (page cache, "
		        "JIT, lazy loading); measure it on purpose or add --warmup\n",
		        s->cold_factor);
	if (s->rss_at_floor) {
		bench_fmt(b, sizeof(b), (double)s->rss_floor_bytes, "byte");
		fprintf(o,
		        "note: peak RSS is at the measurement floor (%s, this process's own: Linux "
		        "charges it to the child until exec); the command used at most that\n",
		        b);
	}
	static const double need[] = { 90, 95, 99 };
	bench_note_sample_size(o, "runs", s->n, need, 3);
}

static void print_exec_text(FILE *o, const struct ga_exec_bench *x)
{
	const struct ga_exec_summary *s = &x->summary;
	char b[64], c[64];
	fprintf(o, "command:");
	for (char *const *a = x->argv; *a; a++)
		fprintf(o, " %s", *a);
	fputc('\n', o);
	bench_fmt(b, sizeof(b), x->cold.wall_s, "s");
	fprintf(o, "cold start (run 1): %s", b);
	if (ga_exec_run_failed(&x->cold)) {
		ga_exec_fail_text(c, sizeof(c), &x->cold);
		fprintf(o, " (%s)", c);
	}
	fprintf(o, "\n%zu warm runs", s->n);
	if (x->warmup_runs)
		fprintf(o, " after %ld warm-up run%s", x->warmup_runs, x->warmup_runs == 1 ? "" : "s");
	fprintf(o, ":\n               p50       p90       p95       p99       max      mean\n");
	print_column(o, "wall", s->wall, s->wall_sorted, s->n, "s");
	print_column(o, "user+sys", s->cpu, s->cpu_sorted, s->n, "s");
	print_column(o, "peak RSS", s->rss, s->rss_sorted, s->n, "byte");
	print_warnings(o, x);
}

/* --json / -o, the text, --export-hdr and --plot: EXIT_OK or an exit code. */
static int exec_output(struct cli *cli, const char *cmd, const struct bench_out_opts *oo,
                       const struct ga_exec_bench *x)
{
	struct ga_buf pretty, compact;
	ga_buf_init(&pretty, 0);
	ga_buf_init(&compact, 0);
	int code = EXIT_INTERNAL;
	if (oo->json || oo->output) {
		if (ga_exec_bench_json(x, &pretty, true) < 0 || ga_exec_bench_json(x, &compact, false) < 0)
			goto out;
		if ((code = bench_emit_json(cli, cmd, oo, &pretty, &compact)) != EXIT_OK)
			goto out;
	}
	if (!oo->json)
		print_exec_text(cli->out, x);
	if (oo->hdr && (code = bench_export_hdr(cli, cmd, oo->hdr, &x->wall_hist, 1e6)) != EXIT_OK)
		goto out;
	code = EXIT_OK;
	if (oo->plot) {
		struct ga_svg_point *pts = NULL;
		size_t np = 0;
		int err = ga_svg_points_from_sorted(x->summary.wall_sorted, x->summary.n, 5, 1e3, &pts, &np);
		if (err == 0) {
			struct ga_svg_series ser = { "wall time", pts, np };
			err = bench_write_svg(oo->plot, "gpuaudit bench exec: wall time", "ms", &ser, 1);
		}
		ga_free(pts);
		if (err < 0)
			code = cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", oo->plot,
			                 strerror(-err));
	}
out:
	ga_buf_release(&pretty);
	ga_buf_release(&compact);
	return code;
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
		BENCH_OUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench exec";
	struct exec_args a = { .runs = 10 };
	const struct bench_load_parse p = { exec_usage, "+ho:", opts, exec_opt, &a.oo, &a };
	int code = bench_load_parse(cli, cmd, argc, argv, &p);
	if (code != CLI_NEXT)
		return code;
	if (optind >= argc)
		return cli_error(cli, cmd, EXIT_USAGE, "no command to run (try -h)");
	if (a.oo.compact && !a.oo.json)
		return cli_error(cli, cmd, EXIT_USAGE, "--compact needs --json");
	if (a.eo.shell && argc - optind != 1)
		return cli_error(cli, cmd, EXIT_USAGE, "with --shell, give the command line as one argument");
	a.eo.argv = argv + optind;

	struct ga_ctx *ctx = NULL;
	struct ga_exec_bench x = { 0 };
	long failed_at = -1;
	code = EXIT_INTERNAL;
	if (ga_ctx_new(&ctx) < 0)
		goto out;
	int r = ga_exec_bench_run(ctx, &a.eo, a.warmup, a.runs, &x, &failed_at);
	if (r < 0 && failed_at >= 0) {
		code = cli_error(cli, cmd, failed_at == 0 ? EXIT_USAGE : EXIT_PROBLEMS, "%s",
		                 ga_ctx_errmsg(ctx));
		goto out;
	}
	if (r < 0)
		goto out;
	code = exec_output(cli, cmd, &a.oo, &x);
	if (code == EXIT_OK)
		code = (x.summary.failures || ga_exec_run_failed(&x.cold)) ? EXIT_PROBLEMS : EXIT_OK;
out:
	if (code == EXIT_INTERNAL)
		cli_error(cli, cmd, code, "out of memory");
	ga_exec_bench_release(&x);
	ga_ctx_free(ctx);
	return code;
}
