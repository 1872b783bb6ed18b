/* cmd-version.c - `gpuaudit version [--json]` (also `gpuaudit --version`). */
#include <string.h>

#include "cli.h"

int cmd_version(struct cli *cli, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_usage(cli, cli_find("version"), cli->out);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return cli_error(cli, "version", EXIT_USAGE, "unknown option '%s'", argv[i]);
	}
	if (json)
		fprintf(cli->out, "{\"name\": \"gpuaudit\", \"version\": \"%s\"}\n", GA_VERSION);
	else
		fprintf(cli->out, "gpuaudit %s\n", GA_VERSION);
	return EXIT_OK;
}
