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
#include "gpuaudit/json.h"

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
};

static int load(struct cli *cli, struct ga_ctx *ctx, const char *what, const char *path,
                struct ga_bench_file **ret)
{
	char *text = NULL;
	size_t n = 0;
	int err = bench_read_file(path, MAX_RESULT_BYTES, &text, &n);
	if (err < 0)
		return cli_error(cli, "canary", EXIT_USAGE, "cannot read %s %s: %s", what, path,
		                 err == -E2BIG ? "larger than 512 MiB" : strerror(-err));
	err = ga_bench_file_from_json(ctx, text, n, ret);
	free(text);
	if (err < 0)
		return cli_error(cli, "canary", err == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s %s: %s",
		                 what, path, ga_ctx_errmsg(ctx));
	return EXIT_OK;
}

static void json_num_or_null(struct ga_json *w, const char *key, double v)
{
	ga_json_key(w, key);
	ga_json_dbl(w, v);
}

static void write_json(struct ga_json *w, const struct ga_canary_report *r, const struct ga_canary_opts *o,
                       const char *base, const char *cand)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, "gpuaudit.canary/v1");
	ga_json_key(w, "kind");
	ga_json_str(w, r->kind);
	ga_json_key(w, "baseline");
	ga_json_str(w, base);
	ga_json_key(w, "candidate");
	ga_json_str(w, cand);
	ga_json_key(w, "verdict");
	ga_json_str(w, ga_canary_verdict_name(r->verdict));
	json_num_or_null(w, "score", r->score);
	ga_json_key(w, "reasons");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < r->n_reasons; i++)
		ga_json_str(w, r->reasons[i]);
	ga_json_arr_end(w);
	ga_json_key(w, "options");
	ga_json_obj_begin(w);
	json_num_or_null(w, "confidence", o->confidence);
	json_num_or_null(w, "allowed_effect", o->allowed_effect);
	json_num_or_null(w, "tail_percentile", o->no_tail ? NAN : o->tail_pct);
	json_num_or_null(w, "max_tail_increase", o->max_tail_increase);
	json_num_or_null(w, "max_error_rate", o->max_error_rate >= 0 ? o->max_error_rate : NAN);
	ga_json_key(w, "resamples");
	ga_json_i64(w, o->resamples);
	ga_json_key(w, "seed");
	ga_json_u64(w, o->seed);
	ga_json_obj_end(w);
	ga_json_key(w, "checks");
	ga_json_obj_begin(w);
	ga_json_key(w, "pass");
	ga_json_i64(w, r->checks_pass);
	ga_json_key(w, "fail");
	ga_json_i64(w, r->checks_fail);
	ga_json_key(w, "nodata");
	ga_json_i64(w, r->checks_nodata);
	ga_json_obj_end(w);
	ga_json_key(w, "metrics");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_canary_metric *m = &r->metrics[i];
		ga_json_obj_begin(w);
		ga_json_key(w, "name");
		ga_json_str(w, m->name);
		ga_json_key(w, "unit");
		ga_json_str(w, m->unit);
		ga_json_key(w, "better");
		ga_json_str(w, m->higher_better ? "higher" : "lower");
		ga_json_key(w, "missing");
		ga_json_bool(w, m->missing);
		ga_json_key(w, "n_baseline");
		ga_json_u64(w, m->n_base);
		ga_json_key(w, "n_candidate");
		ga_json_u64(w, m->n_cand);
		json_num_or_null(w, "baseline_median", m->base_median);
		json_num_or_null(w, "candidate_median", m->cand_median);
		json_num_or_null(w, "median_change", m->median_change);
		bool tested = m->cls != GA_CLASS_NODATA;
		json_num_or_null(w, "mwu_p", tested ? m->mwu.p_two_sided : NAN);
		json_num_or_null(w, "mwu_auc", tested ? m->mwu.auc : NAN);
		ga_json_key(w, "mwu_exact");
		if (tested)
			ga_json_bool(w, m->mwu.exact);
		else
			ga_json_null(w);
		ga_json_key(w, "class");
		ga_json_str(w, ga_canary_class_name(m->cls));
		ga_json_key(w, "worse");
		ga_json_bool(w, m->worse);
		ga_json_key(w, "tail");
		ga_json_str(w, ga_canary_tail_name(m->tail));
		bool boot = m->tail == GA_TAIL_PASS || m->tail == GA_TAIL_REGRESSION ||
		            m->tail == GA_TAIL_INCONCLUSIVE;
		json_num_or_null(w, "baseline_tail", m->tail != GA_TAIL_NA ? m->base_tail : NAN);
		json_num_or_null(w, "candidate_tail", m->tail != GA_TAIL_NA ? m->cand_tail : NAN);
		json_num_or_null(w, "tail_ratio", boot ? m->tail_ci.ratio : NAN);
		json_num_or_null(w, "tail_ratio_lo", boot ? m->tail_ci.lo : NAN);
		json_num_or_null(w, "tail_ratio_hi", boot ? m->tail_ci.hi : NAN);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "errors");
	if (r->errors_checked) {
		ga_json_obj_begin(w);
		ga_json_key(w, "baseline_requests");
		ga_json_u64(w, r->base_requests);
		ga_json_key(w, "baseline_errors");
		ga_json_u64(w, r->base_errors);
		ga_json_key(w, "candidate_requests");
		ga_json_u64(w, r->cand_requests);
		ga_json_key(w, "candidate_errors");
		ga_json_u64(w, r->cand_errors);
		json_num_or_null(w, "z", r->errors.z);
		json_num_or_null(w, "p", r->errors.p_greater);
		json_num_or_null(w, "candidate_rate_upper", r->cand_error_upper);
		ga_json_key(w, "class");
		ga_json_str(w, ga_canary_class_name(r->errors_cls));
		ga_json_key(w, "limit_broken");
		ga_json_bool(w, r->error_slo_broken);
		ga_json_obj_end(w);
	} else {
		ga_json_null(w);
	}
	ga_json_obj_end(w);
}

static void print_text(FILE *o, const struct ga_canary_report *r, const struct ga_canary_opts *op,
                       const char *base, const char *cand)
{
	char a[32], b[32], c[48];
	fprintf(o, "canary (%s): baseline %s, candidate %s\n", r->kind, base, cand);
	fprintf(o, "%-24s %7s %7s %13s %13s %8s %8s %-6s %10s %10s %-19s %s\n", "metric", "n base", "n cand",
	        "base p50", "cand p50", "change", "MWU p", "bulk", "base tail", "cand tail",
	        "tail ratio [CI]", "tail");
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_canary_metric *m = &r->metrics[i];
		if (m->missing) {
			fprintf(o, "%-24s only in the %s\n", m->name,
			        m->in_baseline ? "baseline" : "candidate");
			continue;
		}
		bench_fmt(a, sizeof(a), m->base_median, m->unit);
		bench_fmt(b, sizeof(b), m->cand_median, m->unit);
		fprintf(o, "%-24s %7zu %7zu %13s %13s %+7.1f%% ", m->name, m->n_base, m->n_cand, a, b,
		        100 * m->median_change);
		if (m->cls != GA_CLASS_NODATA)
			fprintf(o, "%8.2g ", m->mwu.p_two_sided);
		else
			fprintf(o, "%8s ", "-");
		fprintf(o, "%-6s ", ga_canary_class_name(m->cls));
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
	if (isnan(r->score))
		fprintf(o, "score: - (no check decided; %d without data)\n", r->checks_nodata);
	else
		fprintf(o, "score: %.0f (%d pass, %d fail, %d without data or undecided)\n", r->score,
		        r->checks_pass, r->checks_fail, r->checks_nodata);
	fprintf(o, "verdict: %s\n", ga_canary_verdict_name(r->verdict));
	for (size_t i = 0; i < r->n_reasons; i++)
		fprintf(o, "  - %s\n", r->reasons[i]);
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

int cmd_canary(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, OPT_BASE },
		{ "candidate", required_argument, NULL, OPT_CAND },
		{ "max-p99-increase", required_argument, NULL, OPT_P99 },
		{ "max-error-rate", required_argument, NULL, OPT_ERR },
		{ "confidence", required_argument, NULL, OPT_CONF },
		{ "allowed-effect", required_argument, NULL, OPT_EFFECT },
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
	const char *cmd = "canary", *base_path = NULL, *cand_path = NULL, *plot_path = NULL,
	           *plot_metric = NULL;
	bool json = false, compact = false;
	struct ga_canary_opts o;
	ga_canary_opts_init(&o);
	double v;
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_BASE:
			base_path = optarg;
			break;
		case OPT_CAND:
			cand_path = optarg;
			break;
		case OPT_P99:
			if (bench_parse_double(optarg, 0, 10000, &v) < 0)
				return cli_error(cli, cmd, EXIT_USAGE,
				                 "--max-p99-increase: a percentage >= 0");
			o.max_tail_increase = v / 100;
			break;
		case OPT_ERR:
			if (bench_parse_double(optarg, 0, 100, &v) < 0)
				return cli_error(cli, cmd, EXIT_USAGE,
				                 "--max-error-rate: a percentage 0..100");
			o.max_error_rate = v / 100;
			break;
		case OPT_CONF:
			if (parse_fraction(optarg, &o.confidence) < 0)
				return cli_error(cli, cmd, EXIT_USAGE,
				                 "--confidence: between 0.5 and 1 (or 50 and 100)");
			break;
		case OPT_EFFECT:
			if (bench_parse_double(optarg, 0, 1000, &v) < 0)
				return cli_error(cli, cmd, EXIT_USAGE, "--allowed-effect: a percentage >= 0");
			o.allowed_effect = v / 100;
			break;
		case OPT_TAILP:
			if (bench_parse_double(optarg, 50, 99.999, &o.tail_pct) < 0)
				return cli_error(cli, cmd, EXIT_USAGE, "--tail-percentile: 50 to 99.999");
			break;
		case OPT_NOTAIL:
			o.no_tail = true;
			break;
		case OPT_RESAMPLES:
			if (bench_parse_double(optarg, 100, 1000000, &v) < 0 || v != floor(v))
				return cli_error(cli, cmd, EXIT_USAGE, "--resamples: 100 to 1000000");
			o.resamples = (int)v;
			break;
		case OPT_SEED:
			if (bench_parse_double(optarg, 0, 9007199254740992.0, &v) < 0 || v != floor(v))
				return cli_error(cli, cmd, EXIT_USAGE, "--seed: a non-negative integer");
			o.seed = (uint64_t)v;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_COMPACT:
			compact = true;
			break;
		case OPT_PLOT:
			plot_path = optarg;
			break;
		case OPT_PLOT_METRIC:
			plot_metric = optarg;
			break;
		case 'h':
			cli_usage(cli, cli_find("canary"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, cmd, opts, argv);
		}
	}
	if (optind < argc)
		return cli_error(cli, cmd, EXIT_USAGE, "unexpected argument '%s' (try -h)", argv[optind]);
	if (!base_path || !cand_path)
		return cli_error(cli, cmd, EXIT_USAGE, "--baseline and --candidate are required (try -h)");
	if (compact && !json)
		return cli_error(cli, cmd, EXIT_USAGE, "--compact needs --json");

	struct ga_ctx *ctx = NULL;
	struct ga_bench_file *base = NULL, *cand = NULL;
	struct ga_canary_report *r = NULL;
	struct ga_buf out;
	ga_buf_init(&out, 0);
	int code = EXIT_INTERNAL;
	if (ga_ctx_new(&ctx) < 0)
		goto out;
	if ((code = load(cli, ctx, "baseline", base_path, &base)) != EXIT_OK ||
	    (code = load(cli, ctx, "candidate", cand_path, &cand)) != EXIT_OK)
		goto out;
	if (plot_path && plot_metric &&
	    (!ga_bench_file_metric(base, plot_metric) || !ga_bench_file_metric(cand, plot_metric))) {
		code = cli_error(cli, cmd, EXIT_USAGE, "--plot-metric: %s is not in both results",
		                 plot_metric);
		goto out;
	}
	int err = ga_canary_judge(ctx, base, cand, &o, &r);
	if (err < 0) {
		code = cli_error(cli, cmd, err == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                 err == -ENOMEM ? "out of memory" : ga_ctx_errmsg(ctx));
		goto out;
	}
	if (json) {
		struct ga_json w;
		ga_json_init(&w, &out, !compact);
		write_json(&w, r, &o, base_path, cand_path);
		if (ga_json_finish(&w) < 0) {
			code = cli_error(cli, cmd, EXIT_INTERNAL, "JSON output failed");
			goto out;
		}
		fwrite(out.data, 1, out.len, cli->out);
		if (compact)
			fputc('\n', cli->out);
	} else {
		print_text(cli->out, r, &o, base_path, cand_path);
	}
	if (plot_path) {
		if (base->n_metrics == 0) {
			code = cli_error(cli, cmd, EXIT_USAGE, "--plot: the baseline has no metrics");
			goto out;
		}
		if ((code = plot(cli, plot_path, plot_metric, base, cand)) != EXIT_OK)
			goto out;
	}
	code = r->verdict == GA_VERDICT_PASS       ? EXIT_OK
	       : r->verdict == GA_VERDICT_ROLLBACK ? EXIT_PROBLEMS
	                                           : EXIT_INCONCLUSIVE;
out:
	ga_buf_release(&out);
	ga_canary_report_free(r);
	ga_bench_file_free(base);
	ga_bench_file_free(cand);
	ga_ctx_free(ctx);
	return code;
}
