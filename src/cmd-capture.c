/*
 * cmd-capture.c - `gpuaudit capture OUTDIR [--root SRC]`: copy what discover,
 * lstopo and lspci read from this machine (or SRC) into OUTDIR, and say what
 * was written and what was left out. The work is ga_capture (lib/collect/capture.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuaudit/core.h"
#include "gpuaudit/capture.h"
#include "gpuaudit/capture-read.h"
#include "gpuaudit/model.h"

struct capture_opts {
	const char *root;
	bool json, compact;
	int verbose;
	long max_kib;
};

static int capture_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct capture_opts *o = st;
	switch (opt) {
	case 'r':
		o->root = arg;
		return CLI_NEXT;
	case 'j':
		o->json = true;
		return CLI_NEXT;
	case 'c':
		o->compact = true;
		return CLI_NEXT;
	case 'v':
		o->verbose++;
		return CLI_NEXT;
	case 'm':
		return cli_parse_long(cli, cmd, "--max-file-kib", "KiB", arg, 4, 1024L * 1024, &o->max_kib);
	default:
		return CLI_UNKNOWN;
	}
}

static void print_text(struct cli *cli, const struct ga_capture_report *rep, int verbose)
{
	FILE *o = cli->out;
	fprintf(o, "captured %s into %s in %.0f ms\n", cli_esc(rep->root), cli_esc(rep->outdir),
	        rep->elapsed_ms.v);
	fprintf(o, "  %llu files (%llu bytes), %llu links, %llu empty (device nodes, libraries), %llu dirs\n",
	        (unsigned long long)rep->files.v, (unsigned long long)rep->bytes.v,
	        (unsigned long long)rep->links.v, (unsigned long long)rep->empty_files.v,
	        (unsigned long long)rep->dirs.v);
	fprintf(o, "  %llu skipped, %llu truncated\n", (unsigned long long)rep->skipped_count.v,
	        (unsigned long long)rep->truncated_count.v);
	size_t show = verbose ? rep->n_skipped : rep->n_skipped < 10 ? rep->n_skipped : 10;
	for (size_t i = 0; i < show; i++)
		fprintf(o, "  skipped %s: %s\n", cli_esc(rep->skipped[i].path),
		        cli_esc(rep->skipped[i].reason));
	if (show < rep->skipped_count.v)
		fprintf(o, "  ... %llu more skipped (-v or --json lists them)\n",
		        (unsigned long long)(rep->skipped_count.v - show));
	for (size_t i = 0; i < rep->truncated.n; i++)
		fprintf(o, "  truncated %s\n", cli_esc(rep->truncated.v[i]));
}

int cmd_capture(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "compact", no_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-file-kib", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct capture_opts o = { 0 };
	int code = cli_parse_permute(cli, "capture", argc, argv, "vr:", opts, capture_opt, &o);
	if (code != CLI_NEXT)
		return code;
	if (optind >= argc)
		return cli_error(cli, "capture", EXIT_USAGE, "missing OUTDIR (try -h)");
	const char *outdir = argv[optind++];
	if (cli_no_operands(cli, "capture", argc, argv) != CLI_NEXT)
		return EXIT_USAGE;
	if (o.compact && !o.json)
		return cli_error(cli, "capture", EXIT_USAGE, "--compact needs --json");
	struct ga_ctx *ctx = NULL;
	code = cli_ctx(cli, "capture", o.root, o.verbose, &ctx);
	if (code != EXIT_OK)
		return code;
	if (ga_capture_root_check(ctx) < 0) { /* copying half a machine would hide that it is half */
		code = cli_error(cli, "capture", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		ga_ctx_free(ctx);
		return code;
	}
	struct ga_capture_opts co = { .outdir = outdir, .max_file_bytes = (size_t)o.max_kib * 1024 };
	struct ga_capture_report rep = { 0 };
	double t0 = ga_mono_ms();
	struct cli_progress prog; /* files and MiB so far and the directory, on a terminal only */
	if (cli_progress_init(&prog, cli, "capture"))
		ga_ctx_set_progress(ctx, cli_progress_ctx, &prog);
	int r = ga_capture(ctx, &co, &rep);
	ga_ctx_set_progress(ctx, NULL, NULL);
	cli_progress_end(&prog);
	GA_SET(rep.elapsed_ms, ga_mono_ms() - t0);
	if (r < 0) {
		code = cli_error(cli, "capture", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
		goto out;
	}
	if (o.json) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		r = ga_model_write(ga_model_find(GA_CAPTURE_SCHEMA), &rep, &b, !o.compact);
		if (r == 0) {
			fwrite(b.data, 1, b.len, cli->out);
			if (o.compact)
				fputc('\n', cli->out);
		}
		ga_buf_release(&b);
		if (r < 0) {
			code = cli_error(cli, "capture", EXIT_INTERNAL, "out of memory");
			goto out;
		}
	} else {
		print_text(cli, &rep, o.verbose);
	}
	code = EXIT_OK;
out:
	ga_capture_report_release(&rep);
	ga_ctx_free(ctx);
	return code;
}
