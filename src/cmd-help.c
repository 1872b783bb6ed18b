/* cmd-help.c - `gpuaudit help [COMMAND]`: the command list or one command's help. */
#include <string.h>

#include "cli.h"

int cmd_help(struct cli *cli, int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cli_usage(cli, cli_find("help"), cli->out);
		return EXIT_OK;
	}
	if (argc > 2)
		return cli_error(cli, "help", EXIT_USAGE, "too many arguments");
	if (argc == 1) {
		cli_main_usage(cli->out);
		return EXIT_OK;
	}
	const struct command *c = cli_find(argv[1]);
	if (!c)
		return cli_error(cli, "help", EXIT_USAGE, "unknown command '%s' (see 'gpuaudit help')",
		                 argv[1]);
	cli_usage(cli, c, cli->out);
	return EXIT_OK;
}
