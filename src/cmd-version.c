/* cmd-version.c - `gpuaudit version [--json]` (also `gpuaudit --version`). */
#include <string.h>

#include "cli.h"
#include "gpuaudit/model.h"

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
	if (json) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		int r = ga_version_write_json(&b);
		if (r == 0)
			fwrite(b.data, 1, b.len, cli->out);
		ga_buf_release(&b);
		if (r < 0)
			return cli_error(cli, "version", EXIT_INTERNAL, "out of memory");
	} else
		fprintf(cli->out, "gpuaudit %s\n", GA_VERSION);
	return EXIT_OK;
}
