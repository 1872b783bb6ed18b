/*
 * cmd-explain.c - `gpuaudit explain`: read a log (pod log, dmesg, CI output),
 * match it against the signature catalogue and print the ranked causes; with
 * --for SNAPSHOT, add what that node says about each cause.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "explain-report.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/node.h"

#define READ_CHUNK (1024 * 1024)

/* --print-patterns: the catalogue's regexes, one per line, for grep -E -f (bench/explain.sh). */
static void print_patterns(FILE *o)
{
	for (size_t i = 0; i < ga_sig_pattern_count(); i++)
		fprintf(o, "%s\n", ga_sig_pattern_get(i)->regex);
}

/* --list: the catalogue. */
static void print_list(FILE *o)
{
	for (size_t i = 0; i < ga_signature_count(); i++) {
		const struct ga_signature *s = ga_signature_get(i);
		fprintf(o, "%-32s %-18s %3d  %s\n", s->id, s->layer, s->weight, s->code ? s->code : "-");
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
			snprintf(err, errn, "%s", strerror(-r));
			break;
		}
	}
	if (r == 0)
		r = ga_explain_finish(ex);
	free(buf);
	return r;
}

int cmd_explain(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "for", required_argument, NULL, 'F' },
		{ "max-matches", required_argument, NULL, 'm' },
		{ "list", no_argument, NULL, 'l' },
		{ "print-patterns", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *for_file = NULL;
	long max_matches = 100;
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'F':
			for_file = optarg;
			break;
		case 'm': {
			char *end = NULL;
			errno = 0;
			max_matches = strtol(optarg, &end, 10);
			if (errno || !end || *end || end == optarg || max_matches < 0 || max_matches > 100000)
				return cli_error(cli, "explain", EXIT_USAGE,
				                 "--max-matches wants 0 to 100000, not '%s'", optarg);
			break;
		}
		case 'l':
			print_list(cli->out);
			return EXIT_OK;
		case 'P':
			print_patterns(cli->out);
			return EXIT_OK;
		case 'h':
			cli_usage(cli, cli_find("explain"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "explain", opts, argv);
		}
	}
	if (argc - optind > 1)
		return cli_error(cli, "explain", EXIT_USAGE, "one log at a time: unexpected '%s' (try -h)",
		                 argv[optind + 1]);
	const char *file = optind < argc ? argv[optind] : "-";
	if (for_file && !strcmp(for_file, "-") && !strcmp(file, "-"))
		return cli_error(cli, "explain", EXIT_USAGE, "the log and --for cannot both be stdin");

	int code = EXIT_OK, fd = -1;
	struct ga_ctx *ctx = NULL;
	struct ga_node *node = NULL;
	struct ga_explain *ex = NULL;
	if (for_file) {
		code = cli_ctx(cli, "explain", NULL, 0, &ctx);
		if (code != EXIT_OK)
			goto out;
		int r = ga_node_load(ctx, for_file, &node);
		if (r < 0) {
			code = cli_error(cli, "explain", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE,
			                 "--for: %s", ga_ctx_errmsg(ctx));
			goto out;
		}
	}
	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0) {
		code = cli_error(cli, "explain", EXIT_USAGE, "cannot open %s: %s", file, strerror(errno));
		goto out;
	}
	int r = ga_explain_new((size_t)max_matches, &ex);
	if (r < 0) {
		code = cli_error(cli, "explain", EXIT_INTERNAL, "catalogue: %s", strerror(-r));
		goto out;
	}
	char err[256];
	if (explain_stream(fd, ex, err, sizeof(err)) < 0) {
		code = cli_error(cli, "explain", EXIT_USAGE, "%s: %s", file, err);
		goto out;
	}
	if (node && ga_explain_for(ex, node) < 0) {
		code = cli_error(cli, "explain", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (json) {
		struct ga_buf b;
		struct ga_json w;
		ga_buf_init(&b, 0);
		ga_json_init(&w, &b, true);
		ga_json_obj_begin(&w);
		ga_json_key(&w, "schema");
		ga_json_str(&w, "gpuaudit.explain/v1");
		ga_json_key(&w, "source");
		ga_json_str(&w, file);
		ga_json_key(&w, "for");
		ga_json_str(&w, for_file);
		ga_explain_write_json(ex, &w);
		ga_json_obj_end(&w);
		if (ga_json_finish(&w) == 0)
			fwrite(b.data, 1, b.len, cli->out);
		else
			code = cli_error(cli, "explain", EXIT_INTERNAL, "JSON output failed");
		ga_buf_release(&b);
		if (code != EXIT_OK)
			goto out;
	} else {
		uint64_t nl = ga_explain_lines(ex), nm = ga_explain_match_count(ex);
		fprintf(cli->out, "%s: %llu line%s, %llu match%s\n", file, (unsigned long long)nl,
		        nl == 1 ? "" : "s", (unsigned long long)nm, nm == 1 ? "" : "es");
		explain_print_text(cli->out, ex, "");
	}
	code = ga_explain_match_count(ex) ? EXIT_PROBLEMS : EXIT_OK;
out:
	if (fd > STDIN_FILENO)
		close(fd);
	ga_explain_free(ex);
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}
