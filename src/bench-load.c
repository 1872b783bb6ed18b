/*
 * bench-load.c - the option loop, output options and text rows shared by the
 * workload benchmarks `bench exec` and `bench http` (bench-load.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-load.h"
#include "bench-report.h"
#include "gpuaudit/stats.h"

/* The output options exec and http share; CLI_UNKNOWN when opt is not one of them. */
static int out_opt(struct bench_out_opts *oo, int opt, const char *arg)
{
	switch (opt) {
	case OPT_JSON:
		oo->json = true;
		return CLI_NEXT;
	case OPT_COMPACT:
		oo->compact = true;
		return CLI_NEXT;
	case 'o':
		oo->output = arg;
		return CLI_NEXT;
	case OPT_HDR:
		oo->hdr = arg;
		return CLI_NEXT;
	case OPT_PLOT:
		oo->plot = arg;
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

int bench_load_parse(struct cli *cli, const char *cmd, int argc, char **argv,
                     const struct bench_load_parse *p)
{
	optind = 0;
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, p->shortopts, p->opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(p->usage, cli->out);
			return EXIT_OK;
		}
		int r = opt == '?' || opt == ':' ? CLI_UNKNOWN : out_opt(p->oo, opt, optarg);
		if (r == CLI_UNKNOWN && opt != '?' && opt != ':')
			r = p->fn(cli, cmd, opt, optarg, p->st);
		if (r == CLI_NEXT)
			continue;
		if (r == CLI_UNKNOWN)
			return cli_bad_option(cli, cmd, p->opts, argv);
		return r;
	}
	return CLI_NEXT;
}

int bench_parse_count(const char *s, long lo, long hi, long *ret)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}

int bench_emit_json(struct cli *cli, const char *cmd, const struct bench_out_opts *oo,
                    const struct ga_buf *pretty, const struct ga_buf *compact)
{
	if (oo->output) {
		int err = bench_write_file(oo->output, pretty->data, pretty->len);
		if (err < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", oo->output,
			                 strerror(-err));
	}
	if (oo->json) {
		const struct ga_buf *b = oo->compact ? compact : pretty;
		fwrite(b->data, 1, b->len, cli->out);
		if (oo->compact)
			fputc('\n', cli->out);
	}
	return EXIT_OK;
}

int bench_export_hdr(struct cli *cli, const char *cmd, const char *path, const struct ga_hist *h,
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

void bench_print_hist_row(FILE *o, const char *label, const struct ga_hist *h, const double *ps, size_t n)
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

void bench_note_sample_size(FILE *o, const char *what, size_t n, const double *ps, size_t k)
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
