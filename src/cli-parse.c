/*
 * cli-parse.c - the option loop, policy loading and exit-code mapping that
 * every command shares, so that -h, a missing argument, an unknown option, a
 * stray operand and a library error read the same in all of them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuaudit/policy.h"

static int parse(struct cli *cli, const char *cmd, int argc, char **argv, const char *shortopts,
                 const struct option *opts, cli_opt_fn fn, void *st, bool permute)
{
	char spec[128];
	/* "+" stops at the first operand (bench exec CMD ARGS); without it getopt moves the
	 * operands behind the options (deps PATH --json). No ":": a missing argument is '?'. */
	int n = snprintf(spec, sizeof(spec), "%sh%s", permute ? "" : "+", shortopts ? shortopts : "");
	if (n < 0 || (size_t)n >= sizeof(spec))
		return cli_error(cli, cmd, EXIT_INTERNAL, "option table too long");
	optind = 0;
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, spec, opts, NULL)) != -1) {
		if (opt == 'h') {
			cli_usage(cli, cli_find(cmd), cli->out);
			return EXIT_OK;
		}
		int r = opt == '?' || opt == ':' ? CLI_UNKNOWN
		        : fn                     ? fn(cli, cmd, opt, optarg, st)
		                                 : CLI_UNKNOWN;
		if (r == CLI_NEXT)
			continue;
		if (r == CLI_UNKNOWN)
			return cli_bad_option(cli, cmd, opts, argv);
		return r;
	}
	return CLI_NEXT;
}

int cli_parse(struct cli *cli, const char *cmd, int argc, char **argv, const char *shortopts,
              const struct option *opts, cli_opt_fn fn, void *st)
{
	return parse(cli, cmd, argc, argv, shortopts, opts, fn, st, false);
}

int cli_parse_permute(struct cli *cli, const char *cmd, int argc, char **argv, const char *shortopts,
                      const struct option *opts, cli_opt_fn fn, void *st)
{
	return parse(cli, cmd, argc, argv, shortopts, opts, fn, st, true);
}

int cli_no_operands(struct cli *cli, const char *cmd, int argc, char **argv)
{
	if (optind < argc)
		return cli_error(cli, cmd, EXIT_USAGE, "unexpected argument '%s' (try -h)", argv[optind]);
	return CLI_NEXT;
}

int cli_parse_long(struct cli *cli, const char *cmd, const char *what, const char *unit, const char *arg,
                   long min, long max, long *ret)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || !end || *end || end == arg || v < min || v > max)
		return cli_error(cli, cmd, EXIT_USAGE, "%s wants %s between %ld and %ld, not '%s'", what,
		                 unit, min, max, arg);
	*ret = v;
	return CLI_NEXT;
}

int cli_policy(struct ga_ctx *ctx, const char *file, const char *class_name, const struct ga_node *node,
               struct ga_policy **pol, const struct ga_policy_class **cls)
{
	*cls = NULL;
	int r = ga_policy_load(ctx, file, pol);
	if (r < 0)
		return r;
	if (class_name) {
		if (!(*cls = ga_policy_find_class(*pol, class_name)))
			return ga_err(ctx, -ENOENT, "no class '%s' in %s", class_name, file);
	} else if (node) {
		*cls = ga_policy_match(*pol, node);
	}
	return 0;
}

/* "123", "64K", "100M", "4G" -> bytes; -1 on error. */
int cli_size_parse(const char *s, uint64_t *ret)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || v == 0 || (shift && v > (~0ull >> shift)))
		return -1;
	*ret = (uint64_t)v << shift;
	return 0;
}
