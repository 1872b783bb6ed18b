/*
 * snapshot-opts.c - the options every command that reads a node takes
 * (--root, --from, --pci-ids, --vendor, --no-vendor, --timeout, -v), their
 * parsing, and turning them into a context and a snapshot. discover, class and
 * check share this so they cannot drift apart.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuaudit/capture.h"
#include "gpuaudit/capture-read.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node-read.h"

void snap_opts_init(struct snap_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pci_ids = getenv("GPUAUDIT_PCI_IDS");
	o->vendor = GA_VENDOR_AUTO;
	o->timeout_s = 5;
}

int snap_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct snap_opts *o)
{
	switch (opt) {
	case 'r':
		o->root = arg;
		return 1;
	case 'f':
		o->from = arg;
		return 1;
	case 'p':
		o->pci_ids = arg;
		return 1;
	case 'v':
		o->verbose++;
		return 1;
	case 'V':
		o->vendor = GA_VENDOR_ON;
		return 1;
	case 'N':
		o->vendor = GA_VENDOR_OFF;
		return 1;
	case 't': {
		char *end = NULL;
		o->timeout_s = strtod(arg, &end);
		if (!end || *end || !(o->timeout_s > 0) || o->timeout_s > 3600)
			return -cli_error(cli, cmd, EXIT_USAGE,
			                  "--timeout wants seconds between 0 and 3600, not '%s'", arg);
		return 1;
	}
	default:
		return 0;
	}
}

int cli_bad_option(struct cli *cli, const char *cmd, const struct option *opts, char **argv)
{
	for (const struct option *o = opts; o->name; o++)
		if (optopt && o->val == optopt && o->has_arg)
			return cli_error(cli, cmd, EXIT_USAGE, "option '--%s' needs an argument (try -h)",
			                 o->name);
	if (optopt)
		return cli_error(cli, cmd, EXIT_USAGE, "unknown option '-%c' (try -h)", optopt);
	return cli_error(cli, cmd, EXIT_USAGE, "unknown option '%s' (try -h)", argv[optind - 1]);
}

int snap_validate(struct cli *cli, const char *cmd, const struct snap_opts *o)
{
	if (o->from && o->root)
		return cli_error(cli, cmd, EXIT_USAGE, "--from and --root exclude each other");
	return EXIT_OK;
}

int snap_ctx(struct cli *cli, const char *cmd, const struct snap_opts *o, struct ga_ctx **ret)
{
	struct ga_ctx *ctx = NULL;
	int code = cli_ctx(cli, cmd, o->from ? NULL : o->root, o->verbose, &ctx);
	if (code != EXIT_OK)
		return code;
	/* a capture cut short is half a machine: refused, never read as one (issue 29) */
	if (!o->from && ga_capture_root_check(ctx) < 0) {
		code = cli_error(cli, cmd, EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		ga_ctx_free(ctx);
		return code;
	}
	int r = o->pci_ids ? ga_ctx_set_pci_ids(ctx, o->pci_ids) : 0;
	ga_ctx_set_vendor(ctx, (enum ga_vendor_mode)o->vendor, (int)(o->timeout_s * 1000));
	if (r == 0)
		r = ga_ctx_set_helper(ctx, cli->self_exe);
	if (r < 0) {
		ga_ctx_free(ctx);
		return cli_error(cli, cmd, EXIT_INTERNAL, "%s", strerror(-r));
	}
	*ret = ctx;
	return EXIT_OK;
}

int snap_node(struct ga_ctx *ctx, const struct snap_opts *o, struct ga_node **ret)
{
	return o->from ? ga_node_load(ctx, o->from, ret) : ga_node_collect(ctx, ret);
}
