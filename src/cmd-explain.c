/*
 * cmd-explain.c - `gpuaudit explain`: read a log (pod log, dmesg, CI output),
 * match it against the signature catalogue and print the ranked causes; with
 * --for SNAPSHOT, add what that node says about each cause.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "explain-report.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/errcodes.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"

#define READ_CHUNK (1024 * 1024)

/* --print-patterns: the catalogue's regexes, one per line, for grep -E -f (bench/explain.sh). */
static void print_patterns(FILE *o)
{
	for (size_t i = 0; i < ga_sig_pattern_count(); i++)
		fprintf(o, "%s\n", ga_sig_pattern_get(i)->regex);
}

/* --list-codes: every error code of the tables, its group, class and action, in columns as
 * wide as their longest entry (table ids such as rocsparse, names such as Unified Runtime's). */
static const char *code_group_id(size_t i)
{
	enum ga_errcode_group g = ga_errcode_group_of(i);
	const struct ga_errcode_group_info *gi = ga_errcode_group_get(g);
	return gi && gi->id ? gi->id : g == GA_ECG_NOT_ERROR ? "(not an error)" : "(names no cause)";
}

static void print_codes(FILE *o)
{
	int wf = 0, wn = 0, wg = 0;
	for (size_t i = 0; i < ga_errcode_count(); i++) {
		const struct ga_errcode *c = ga_errcode_get(i);
		int f = (int)strlen(ga_errcode_family_get(c->family)->id), n = (int)strlen(c->name),
		    g = (int)strlen(code_group_id(i));
		wf = f > wf ? f : wf;
		wn = n > wn ? n : wn;
		wg = g > wg ? g : wg;
	}
	for (size_t i = 0; i < ga_errcode_count(); i++) {
		const struct ga_errcode *c = ga_errcode_get(i);
		const struct ga_errcode_group_info *gi = ga_errcode_group_get(ga_errcode_group_of(i));
		const char *cls = gi ? ga_cause_class_name(gi->cause_class) : NULL;
		fprintf(o, "%-*s %-*s %11lld  %-*s %-17s %s\n", wf, ga_errcode_family_get(c->family)->id, wn,
		        c->name, (long long)c->value, wg, code_group_id(i), cls ? cls : "-",
		        gi ? ga_action_name(gi->action) : "-");
	}
}

/* --list: the catalogue. */
static void print_list(FILE *o)
{
	for (size_t i = 0; i < ga_signature_count(); i++) {
		const struct ga_signature *s = ga_signature_get(i);
		fprintf(o, "%-32s %-18s %-17s %-16s %3d  %s\n", s->id, s->layer,
		        ga_cause_class_name(s->cause_class), ga_action_name(s->action), s->weight,
		        s->code ? s->code : "-");
	}
}

int explain_stream(int fd, struct ga_explain *ex, char *err, size_t errn)
{
	char *buf = malloc(READ_CHUNK);
	if (!buf) {
		snprintf(err, errn, "out of memory");
		return -ENOMEM;
	}
	int r = 0;
	for (;;) {
		ssize_t k = read(fd, buf, READ_CHUNK);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			snprintf(err, errn, "read failed: %s", strerror(errno));
			break;
		}
		if (k == 0)
			break;
		r = ga_explain_feed(ex, buf, (size_t)k);
		if (r < 0) {
			snprintf(err, errn, "%s",
			         r == -ENOTSUP ? "a UTF-16 log and no iconv converter from UTF-16 here"
			                       : strerror(-r));
			break;
		}
	}
	if (r == 0)
		r = ga_explain_finish(ex);
	free(buf);
	return r;
}

struct explain_opts {
	bool json;
	const char *for_file;
	long max_matches;
};

static int explain_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct explain_opts *o = st;
	switch (opt) {
	case 'j':
		o->json = true;
		return CLI_NEXT;
	case 'F':
		o->for_file = arg;
		return CLI_NEXT;
	case 'm': {
		char *end = NULL;
		errno = 0;
		o->max_matches = strtol(arg, &end, 10);
		if (errno || !end || *end || end == arg || o->max_matches < 0 || o->max_matches > 100000)
			return cli_error(cli, cmd, EXIT_USAGE, "--max-matches wants 0 to 100000, not '%s'",
			                 arg);
		return CLI_NEXT;
	}
	case 'l':
		print_list(cli->out);
		return EXIT_OK;
	case 'P':
		print_patterns(cli->out);
		return EXIT_OK;
	case 'C':
		print_codes(cli->out);
		return EXIT_OK;
	default:
		return CLI_UNKNOWN;
	}
}

static int print_json(struct cli *cli, struct ga_explain *ex, const char *file, const char *for_file)
{
	struct ga_explain_report rep;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_explain_report_fill(ex, file, for_file, &rep);
	if (r == 0)
		r = ga_model_write(ga_model_find(GA_EXPLAIN_SCHEMA), &rep, &b, true);
	if (r == 0)
		fwrite(b.data, 1, b.len, cli->out);
	ga_schema_release(&ga_explain_report_schema, &rep);
	ga_buf_release(&b);
	return r;
}

/*
 * No cause: the most salient error lines, where they seem to come from (a guess
 * from their words) and the code they name; what to run next. true when there
 * was any (the result is inconclusive, not clean).
 */
static bool print_inconclusive(FILE *o, const struct ga_explain *ex, bool text)
{
	size_t n = 0;
	uint64_t total = 0;
	const struct ga_explain_salient *s = ga_explain_salient_lines(ex, &n, &total);
	if (!n)
		return false;
	if (!text)
		return true;
	fprintf(o,
	        "inconclusive: %llu line%s like an error and none names a known cause; the most "
	        "salient (the component is a guess from the line's words):\n",
	        (unsigned long long)total, total == 1 ? " looks" : "s look");
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "  %6llu  [%s] %s\n", (unsigned long long)s[i].line, s[i].component,
		        cli_esc(s[i].text));
		if (s[i].code[0])
			fprintf(o, "          code: %s\n", cli_esc(s[i].code));
	}
	fprintf(o, "next: %s\n", GA_EXPLAIN_NEXT);
	return true;
}

/* Match the log fd (and the --for node) and print; the exit code. */
static int explain_run(struct cli *cli, const struct explain_opts *o, int fd, const char *file,
                       const struct ga_node *node)
{
	struct ga_explain *ex = NULL;
	int r = ga_explain_new((size_t)o->max_matches, &ex);
	if (r < 0)
		return cli_error(cli, "explain", EXIT_INTERNAL, "catalogue: %s", strerror(-r));
	char err[256];
	int code = EXIT_OK;
	if (explain_stream(fd, ex, err, sizeof(err)) < 0)
		code = cli_error(cli, "explain", EXIT_USAGE, "%s: %s", file, err);
	else if (node && ga_explain_for(ex, node) < 0)
		code = cli_error(cli, "explain", EXIT_INTERNAL, "out of memory");
	else if (o->json && print_json(cli, ex, file, o->for_file) < 0)
		code = cli_error(cli, "explain", EXIT_INTERNAL, "JSON output failed");
	if (code == EXIT_OK && !o->json) {
		uint64_t nl = ga_explain_lines(ex), nm = ga_explain_match_count(ex);
		const char *enc = ga_explain_encoding(ex);
		fprintf(cli->out, "%s: %s%s%llu line%s, %llu match%s\n", file, enc ? enc : "",
		        enc ? " read as UTF-8, " : "", (unsigned long long)nl, nl == 1 ? "" : "s",
		        (unsigned long long)nm, nm == 1 ? "" : "es");
		explain_print_text(cli->out, ex, "");
	}
	if (code == EXIT_OK)
		/* notices only (action none) and error-looking lines beside them: inconclusive */
		code = ga_explain_acted_count(ex)                   ? EXIT_PROBLEMS
		       : print_inconclusive(cli->out, ex, !o->json) ? EXIT_INCONCLUSIVE
		       : ga_explain_match_count(ex)                 ? EXIT_PROBLEMS
		                                                    : EXIT_OK;
	ga_explain_free(ex);
	return code;
}

int cmd_explain(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "for", required_argument, NULL, 'F' },
		{ "max-matches", required_argument, NULL, 'm' },
		{ "list", no_argument, NULL, 'l' },
		{ "list-codes", no_argument, NULL, 'C' },
		{ "print-patterns", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct explain_opts o = { .max_matches = 100 };
	/* `explain LOG --json` has always worked: the log may come before the options */
	int code = cli_parse_permute(cli, "explain", argc, argv, "j", opts, explain_opt, &o);
	if (code != CLI_NEXT)
		return code;
	if (argc - optind > 1)
		return cli_error(cli, "explain", EXIT_USAGE, "one log at a time: unexpected '%s' (try -h)",
		                 argv[optind + 1]);
	const char *file = optind < argc ? argv[optind] : "-";
	if (o.for_file && !strcmp(o.for_file, "-") && !strcmp(file, "-"))
		return cli_error(cli, "explain", EXIT_USAGE, "the log and --for cannot both be stdin");

	struct ga_ctx *ctx = NULL;
	struct ga_node *node = NULL;
	int fd = -1;
	code = EXIT_OK;
	/* a context for the messages; --for's snapshot honours GPUAUDIT_ROOT like the other commands */
	if (o.for_file)
		code = cli_ctx(cli, "explain", NULL, 0, &ctx);
	else if (ga_ctx_new(&ctx) < 0)
		code = cli_error(cli, "explain", EXIT_INTERNAL, "out of memory");
	if (code == EXIT_OK && o.for_file) {
		int r = ga_node_load(ctx, o.for_file, &node);
		if (r < 0)
			code = cli_error(cli, "explain", cli_exit_for(r), "--for: %s", ga_ctx_errmsg(ctx));
	}
	if (code == EXIT_OK) {
		/* a named log must be a file: a FIFO could block forever ("-" streams) */
		int r = strcmp(file, "-") ? ga_file_open_input(ctx, file, &fd) : (fd = STDIN_FILENO, 0);
		if (r == -EINVAL) /* refused: the message says why */
			code = cli_error(cli, "explain", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		else if (r < 0)
			code = cli_error(cli, "explain", EXIT_USAGE, "cannot open %s: %s", file,
			                 strerror(-r));
	}
	if (code == EXIT_OK)
		code = explain_run(cli, &o, fd, file, node);
	if (fd > STDIN_FILENO)
		close(fd);
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}
