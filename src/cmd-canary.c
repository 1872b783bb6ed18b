/*
 * cmd-canary.c - `gpuaudit canary`: judge a candidate benchmark result against
 * a baseline (lib/bench/canary.c) and print the per-metric classes, the score
 * and the verdict with its reasons; exit 0 PASS, 1 ROLLBACK, 4 INCONCLUSIVE.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-report.h"
#include "cli.h"
#include "gpuaudit/canary.h"
#include "gpuaudit/canary-run.h"
#include "gpuaudit/model.h"
#include "gpuaudit/benchfile-run.h"

#define MAX_RESULT_BYTES (512u << 20)

enum {
	OPT_BASE = 256,
	OPT_CAND,
	OPT_P99,
	OPT_ERR,
	OPT_CONF,
	OPT_EFFECT,
	OPT_TAILP,
	OPT_NOTAIL,
	OPT_RESAMPLES,
	OPT_SEED,
	OPT_JSON,
	OPT_COMPACT,
	OPT_PLOT,
	OPT_PLOT_METRIC,
	OPT_MIN_EFFECT,
};

#define MAX_FLOORS 16

static int load(struct cli *cli, struct ga_ctx *ctx, const char *what, const char *path,
                struct ga_bench_file **ret)
{
	char *text = NULL;
	size_t n = 0;
	int err = bench_read_file(path, MAX_RESULT_BYTES, &text, &n);
	if (err < 0)
		return cli_error(cli, "canary", EXIT_USAGE, "cannot read %s %s: %s", what, path,
		                 err == -E2BIG    ? "larger than 512 MiB"
		                 : err == -EINVAL ? "not a regular file (a FIFO or device could block "
		                                    "forever; pass - to read standard input)"
		                                  : strerror(-err));
	err = ga_bench_file_from_json(ctx, text, n, ret);
	free(text);
	if (err < 0)
		return cli_error(cli, "canary", cli_exit_for(err), "%s %s: %s", what, path,
		                 ga_ctx_errmsg(ctx));
	return EXIT_OK;
}

static void print_text(FILE *o, const struct ga_canary_report *r, const struct ga_canary_opts *op,
                       const char *base, const char *cand)
{
	char a[32], b[32], c[48];
	/* the kind, the metric names and the reasons come from the result files: the text rule */
	fprintf(o, "canary (%s): baseline %s, candidate %s\n", cli_esc(r->kind), cli_esc(base),
	        cli_esc(cand));
	fprintf(o, "%-24s %7s %7s %13s %13s %8s %8s %-8s %10s %10s %-19s %s\n", "metric", "n base", "n cand",
	        "base p50", "cand p50", "change", "MWU p", "bulk", "base tail", "cand tail",
	        "tail ratio [CI]", "tail");
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_canary_metric *m = &r->metrics[i];
		if (m->missing) {
			fprintf(o, "%-24s only in the %s\n", cli_esc(m->name),
			        m->in_baseline ? "baseline" : "candidate");
			continue;
		}
		bench_fmt(a, sizeof(a), m->base_median, m->unit);
		bench_fmt(b, sizeof(b), m->cand_median, m->unit);
		fprintf(o, "%-24s %7zu %7zu %13s %13s ", cli_esc(m->name), m->n_base, m->n_cand, a, b);
		/* no values on a side: no median, so no change ("-", never "+nan%") */
		if (isfinite(m->median_change))
			fprintf(o, "%+7.1f%% ", 100 * m->median_change);
		else
			fprintf(o, "%8s ", "-");
		if (m->cls != GA_CLASS_NODATA && m->cls != GA_CLASS_UNJUDGED)
			fprintf(o, "%8.2g ", m->mwu.p_two_sided);
		else
			fprintf(o, "%8s ", "-");
		fprintf(o, "%-8s ", ga_canary_class_name(m->cls));
		if (m->tail == GA_TAIL_NA) {
			fprintf(o, "%10s %10s %-19s %s\n", "-", "-", "-", "n/a");
			continue;
		}
		bench_fmt(a, sizeof(a), m->base_tail, m->unit);
		bench_fmt(b, sizeof(b), m->cand_tail, m->unit);
		if (m->tail == GA_TAIL_NODATA)
			snprintf(c, sizeof(c), "-");
		else
			snprintf(c, sizeof(c), "%.2f [%.2f-%.2f]", m->tail_ci.ratio, m->tail_ci.lo,
			         m->tail_ci.hi);
		fprintf(o, "%10s %10s %-19s %s\n", a, b, c, ga_canary_tail_name(m->tail));
	}
	if (r->errors_checked)
		fprintf(o,
		        "errors: baseline %llu/%llu (%.3f%%), candidate %llu/%llu (%.3f%%, %.0f%% upper "
		        "bound %.3f%%): z = %.2f, p = %.2g: %s%s\n",
		        (unsigned long long)r->base_errors, (unsigned long long)r->base_requests,
		        100 * r->errors.rate1, (unsigned long long)r->cand_errors,
		        (unsigned long long)r->cand_requests, 100 * r->errors.rate2, 100 * op->confidence,
		        100 * r->cand_error_upper, r->errors.z, r->errors.p_greater,
		        ga_canary_class_name(r->errors_cls), r->error_slo_broken ? ", over the limit" : "");
	fprintf(o, "tests at %.0f%% confidence; bulk: Mann-Whitney with an allowed change of %.0f%%",
	        100 * op->confidence, 100 * op->allowed_effect);
	if (!op->no_tail)
		fprintf(o, "; tail: bootstrap of the p%g ratio (%d resamples, seed %llu), limit +%.0f%%",
		        op->tail_pct, op->resamples, (unsigned long long)op->seed,
		        100 * op->max_tail_increase);
	fputc('\n', o);
	/* the minimum practical effect of each metric judged (docs/canary.md) */
	bool first = true;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_canary_metric *m = &r->metrics[i];
		if (m->missing || !isfinite(m->min_effect))
			continue;
		bench_fmt(a, sizeof(a), m->min_effect, m->unit);
		fprintf(o, "%s%s %s%s", first ? "minimum effect: " : ", ", cli_esc(m->name), a,
		        m->cls == GA_CLASS_UNJUDGED ? " (below its resolution: not judged)" : "");
		first = false;
	}
	if (!first)
		fputc('\n', o);
	if (isnan(r->score))
		fprintf(o, "score: - (no check decided; %d without data)\n", r->checks_nodata);
	else
		fprintf(o, "score: %.0f (%d pass, %d fail, %d without data or undecided%s)\n", r->score,
		        r->checks_pass, r->checks_fail, r->checks_nodata,
		        r->checks_unjudged ? ", some below resolution" : "");
	fprintf(o, "verdict: %s\n", ga_canary_verdict_name(r->verdict));
	for (size_t i = 0; i < r->n_reasons; i++)
		fprintf(o, "  - %s\n", cli_esc(r->reasons[i]));
}

static int plot(struct cli *cli, const char *path, const char *name, const struct ga_bench_file *base,
                const struct ga_bench_file *cand)
{
	const struct ga_metric *bm = name ? ga_bench_file_metric(base, name) : &base->metrics[0];
	const struct ga_metric *cm = bm ? ga_bench_file_metric(cand, bm->name) : NULL;
	if (!bm || !cm)
		return cli_error(cli, "canary", EXIT_USAGE, "--plot: metric %s is not in both results",
		                 name ? name : "(first)");
	const struct ga_metric *ms[2] = { bm, cm };
	struct ga_svg_point *pts[2] = { NULL, NULL };
	size_t np[2] = { 0, 0 };
	double scale = !strcmp(bm->unit, "s") ? 1e3 : 1;
	const char *ylabel = !strcmp(bm->unit, "s") ? "ms" : bm->unit;
	int err = 0;
	for (int k = 0; k < 2 && !err; k++) {
		double *v = NULL;
		size_t n = 0;
		err = ga_metric_values(ms[k], &v, &n);
		if (!err)
			err = ga_svg_points_from_sorted(v, n, 5, scale, &pts[k], &np[k]);
		ga_free(v);
	}
	if (!err) {
		struct ga_svg_series s[2] = { { "baseline", pts[0], np[0] }, { "candidate", pts[1], np[1] } };
		char title[256];
		snprintf(title, sizeof(title), "gpuaudit canary: %s", bm->name);
		err = bench_write_svg(path, title, ylabel, s, 2);
	}
	ga_free(pts[0]);
	ga_free(pts[1]);
	if (err < 0)
		return cli_error(cli, "canary", EXIT_USAGE, "cannot write %s: %s", path,
		                 err == -EINVAL ? "a metric has no values" : strerror(-err));
	return EXIT_OK;
}

/* "98" or "0.98" -> 0.98. */
static int parse_fraction(const char *s, double *ret)
{
	double v;
	if (bench_parse_double(s, 0, 100, &v) < 0)
		return -EINVAL;
	if (v >= 1)
		v /= 100;
	if (!(v > 0.5 && v < 1))
		return -EINVAL;
	*ret = v;
	return 0;
}

struct canary_args {
	const char *base_path, *cand_path, *plot_path, *plot_metric;
	bool json, compact;
	struct ga_canary_opts o;
	struct ga_canary_floor floors[MAX_FLOORS]; /* --min-effect; names point into names */
	char names[MAX_FLOORS][128];
};

/*
 * --min-effect NAME=VALUE: metric NAME's absolute floor in its unit (seconds,
 * bytes); it replaces the default floor, its batch term and its resolution
 * (0: the relative effect only). Repeated for other metrics.
 */
static int parse_min_effect(struct cli *cli, const char *cmd, const char *arg, struct canary_args *a)
{
	const char *eq = strchr(arg, '=');
	double v;
	size_t n = eq ? (size_t)(eq - arg) : 0;
	if (!eq || !n || n >= sizeof(a->names[0]) || bench_parse_double(eq + 1, 0, 1e18, &v) < 0)
		return cli_error(cli, cmd, EXIT_USAGE,
		                 "--min-effect: METRIC=VALUE in the metric's unit (exec.wall=0.005 for "
		                 "5 ms), not '%s'",
		                 arg);
	size_t i = 0; /* the same metric again replaces its value */
	while (i < a->o.n_floors && (strlen(a->names[i]) != n || strncmp(a->names[i], arg, n)))
		i++;
	if (i == MAX_FLOORS)
		return cli_error(cli, cmd, EXIT_USAGE, "--min-effect: at most %d metrics", MAX_FLOORS);
	memcpy(a->names[i], arg, n);
	a->names[i][n] = '\0';
	a->floors[i] = (struct ga_canary_floor){ a->names[i], v, 0, false };
	if (i == a->o.n_floors)
		a->o.n_floors++;
	a->o.floors = a->floors;
	return CLI_NEXT;
}

/* The options that are percentages or counts; CLI_UNKNOWN for the others. */
static int canary_number_opt(struct cli *cli, const char *cmd, int opt, const char *arg,
                             struct ga_canary_opts *o)
{
	double v;
	switch (opt) {
	case OPT_P99:
		if (bench_parse_double(arg, 0, 10000, &v) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--max-p99-increase: a percentage >= 0");
		o->max_tail_increase = v / 100;
		return CLI_NEXT;
	case OPT_ERR:
		if (bench_parse_double(arg, 0, 100, &v) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--max-error-rate: a percentage 0..100");
		o->max_error_rate = v / 100;
		return CLI_NEXT;
	case OPT_CONF:
		if (parse_fraction(arg, &o->confidence) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--confidence: between 0.5 and 1 (or 50 and 100)");
		return CLI_NEXT;
	case OPT_EFFECT:
		if (bench_parse_double(arg, 0, 1000, &v) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--allowed-effect: a percentage >= 0");
		o->allowed_effect = v / 100;
		return CLI_NEXT;
	case OPT_TAILP:
		if (bench_parse_double(arg, 50, 99.999, &o->tail_pct) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--tail-percentile: 50 to 99.999");
		return CLI_NEXT;
	case OPT_RESAMPLES:
		if (bench_parse_double(arg, 100, 1000000, &v) < 0 || v != floor(v))
			return cli_error(cli, cmd, EXIT_USAGE, "--resamples: 100 to 1000000");
		o->resamples = (int)v;
		return CLI_NEXT;
	case OPT_SEED:
		if (bench_parse_double(arg, 0, 9007199254740992.0, &v) < 0 || v != floor(v))
			return cli_error(cli, cmd, EXIT_USAGE, "--seed: a non-negative integer");
		o->seed = (uint64_t)v;
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

static int canary_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct canary_args *a = st;
	switch (opt) {
	case OPT_BASE:
		a->base_path = arg;
		return CLI_NEXT;
	case OPT_CAND:
		a->cand_path = arg;
		return CLI_NEXT;
	case OPT_NOTAIL:
		a->o.no_tail = true;
		return CLI_NEXT;
	case OPT_JSON:
		a->json = true;
		return CLI_NEXT;
	case OPT_COMPACT:
		a->compact = true;
		return CLI_NEXT;
	case OPT_PLOT:
		a->plot_path = arg;
		return CLI_NEXT;
	case OPT_PLOT_METRIC:
		a->plot_metric = arg;
		return CLI_NEXT;
	case OPT_MIN_EFFECT:
		return parse_min_effect(cli, cmd, arg, a);
	default:
		return canary_number_opt(cli, cmd, opt, arg, &a->o);
	}
}

/* The verdict as gpuaudit.canary/v1 on stdout, through the model. EXIT_OK or EXIT_INTERNAL. */
static int write_doc(struct cli *cli, const struct canary_args *a, const struct ga_canary_report *r)
{
	struct ga_canary_doc d = { 0 };
	struct ga_buf out;
	ga_buf_init(&out, 0);
	int err = ga_canary_doc_init(&d, r, &a->o, a->base_path, a->cand_path);
	if (err == 0)
		err = ga_model_write(ga_model_find(GA_CANARY_SCHEMA), &d, &out, !a->compact);
	if (err == 0) {
		fwrite(out.data, 1, out.len, cli->out);
		if (a->compact)
			fputc('\n', cli->out);
	}
	ga_canary_doc_release(&d);
	ga_buf_release(&out);
	return err < 0 ? cli_error(cli, "canary", EXIT_INTERNAL, "JSON output failed") : EXIT_OK;
}

/* Judge, print and plot: the exit code. */
static int canary_run(struct cli *cli, struct ga_ctx *ctx, const struct canary_args *a,
                      const struct ga_bench_file *base, const struct ga_bench_file *cand)
{
	const char *cmd = "canary";
	struct ga_canary_report *r = NULL;
	int code = EXIT_OK;
	int err = ga_canary_judge(ctx, base, cand, &a->o, &r);
	if (err < 0)
		return cli_error(cli, cmd, cli_exit_for(err), "%s",
		                 err == -ENOMEM ? "out of memory" : ga_ctx_errmsg(ctx));
	if (a->json)
		code = write_doc(cli, a, r);
	else
		print_text(cli->out, r, &a->o, a->base_path, a->cand_path);
	if (code == EXIT_OK && a->plot_path) {
		if (base->n_metrics == 0)
			code = cli_error(cli, cmd, EXIT_USAGE, "--plot: the baseline has no metrics");
		else
			code = plot(cli, a->plot_path, a->plot_metric, base, cand);
	}
	if (code == EXIT_OK)
		code = r->verdict == GA_VERDICT_PASS       ? EXIT_OK
		       : r->verdict == GA_VERDICT_ROLLBACK ? EXIT_PROBLEMS
		                                           : EXIT_INCONCLUSIVE;
	ga_canary_report_free(r);
	return code;
}

int cmd_canary(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, OPT_BASE },
		{ "candidate", required_argument, NULL, OPT_CAND },
		{ "max-p99-increase", required_argument, NULL, OPT_P99 },
		{ "max-error-rate", required_argument, NULL, OPT_ERR },
		{ "confidence", required_argument, NULL, OPT_CONF },
		{ "allowed-effect", required_argument, NULL, OPT_EFFECT },
		{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
		{ "tail-percentile", required_argument, NULL, OPT_TAILP },
		{ "no-tail", no_argument, NULL, OPT_NOTAIL },
		{ "resamples", required_argument, NULL, OPT_RESAMPLES },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "plot-metric", required_argument, NULL, OPT_PLOT_METRIC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "canary";
	struct canary_args a = { 0 };
	ga_canary_opts_init(&a.o);
	int code = cli_parse(cli, cmd, argc, argv, "", opts, canary_opt, &a);
	if (code != CLI_NEXT || (code = cli_no_operands(cli, cmd, argc, argv)) != CLI_NEXT)
		return code;
	if (!a.base_path || !a.cand_path)
		return cli_error(cli, cmd, EXIT_USAGE, "--baseline and --candidate are required (try -h)");
	if (a.compact && !a.json)
		return cli_error(cli, cmd, EXIT_USAGE, "--compact needs --json");

	struct ga_ctx *ctx = NULL;
	struct ga_bench_file *base = NULL, *cand = NULL;
	code = EXIT_INTERNAL;
	if (ga_ctx_new(&ctx) < 0)
		goto out;
	if ((code = load(cli, ctx, "baseline", a.base_path, &base)) != EXIT_OK ||
	    (code = load(cli, ctx, "candidate", a.cand_path, &cand)) != EXIT_OK)
		goto out;
	if (a.plot_path && a.plot_metric &&
	    (!ga_bench_file_metric(base, a.plot_metric) || !ga_bench_file_metric(cand, a.plot_metric))) {
		code = cli_error(cli, cmd, EXIT_USAGE, "--plot-metric: %s is not in both results",
		                 a.plot_metric);
		goto out;
	}
	code = canary_run(cli, ctx, &a, base, cand);
out:
	ga_bench_file_free(base);
	ga_bench_file_free(cand);
	ga_ctx_free(ctx);
	return code;
}
