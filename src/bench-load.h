/*
 * bench-load.h - what `bench exec` (cmd-bench-exec.c) and `bench http`
 * (cmd-bench-http.c) share: the option loop with their own usage text, the
 * output options (--json, --compact, -o, --export-hdr, --plot) and the text
 * rows of percentiles (src/ only).
 */
#ifndef GA_BENCH_LOAD_H
#define GA_BENCH_LOAD_H

#include <stdio.h>

#include "cli.h"
#include "gpuaudit/hist.h"

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

/* getopt_long entries of the output options; a command adds its own and ends the table. */
#define BENCH_OUT_LONG_OPTIONS                                                                  \
	{ "json", no_argument, NULL, OPT_JSON }, { "compact", no_argument, NULL, OPT_COMPACT }, \
	        { "output", required_argument, NULL, 'o' },                                     \
	        { "export-hdr", required_argument, NULL, OPT_HDR },                             \
	{                                                                                       \
		"plot", required_argument, NULL, OPT_PLOT                                       \
	}

struct bench_out_opts {
	bool json, compact;
	const char *output, *hdr, *plot;
};

struct bench_load_parse {
	const char *usage;     /* printed for -h/--help */
	const char *shortopts; /* the getopt spec, "h" and "o:" in it ("+" first: stop at operands) */
	const struct option *opts;
	cli_opt_fn fn; /* the command's own options, as for cli_parse */
	struct bench_out_opts *oo;
	void *st;
};
/*
 * cli_parse with the subcommand's usage text (bench subcommands are not in
 * the command table): CLI_NEXT when the options are done, else the exit code.
 */
int bench_load_parse(struct cli *cli, const char *cmd, int argc, char **argv,
                     const struct bench_load_parse *p);
/* A count in [lo, hi]: 0 or -EINVAL. */
int bench_parse_count(const char *s, long lo, long hi, long *ret);
/* Print the JSON to stdout (--json, compact when asked) and/or write the pretty one to -o FILE. */
int bench_emit_json(struct cli *cli, const char *cmd, const struct bench_out_opts *oo,
                    const struct ga_buf *pretty, const struct ga_buf *compact);
/* --export-hdr: the histogram in HdrHistogram's percentile format; EXIT_OK or an exit code. */
int bench_export_hdr(struct cli *cli, const char *cmd, const char *path, const struct ga_hist *h,
                     double value_scale);
/* Percentiles of a latency histogram (ns) in one text row, then its max. */
void bench_print_hist_row(FILE *o, const char *label, const struct ga_hist *h, const double *ps, size_t n);
/* "p99 needs 662, p99.9 needs 6636": the percentiles n values cannot support. */
void bench_note_sample_size(FILE *o, const char *what, size_t n, const double *ps, size_t k);

#endif
