/* cli.h - shared pieces of the gpuaudit command line (src/ only). */
#ifndef GA_CLI_H
#define GA_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuaudit/core.h"

/* Exit codes, one scheme for every command (docs/architecture.md). */
enum {
	EXIT_OK = 0,          /* ok / pass */
	EXIT_PROBLEMS = 1,    /* problems found: fail, rollback, policy violation */
	EXIT_USAGE = 2,       /* usage error or unreadable input */
	EXIT_UNAVAILABLE = 3, /* required backend or environment unavailable */
	EXIT_INCONCLUSIVE = 4,
	EXIT_INTERNAL = 70,
};

struct cli {
	const char *prog;
	FILE *out;
	FILE *err;
	bool color;          /* stdout is a TTY and NO_COLOR is unset */
	char self_exe[4096]; /* this executable, for the vendor-library helper */
};

struct command {
	const char *name;
	int (*fn)(struct cli *cli, int argc, char **argv);
	const char *summary;
	const char *usage; /* full help text for -h and 'gpuaudit help CMD' */
	bool hidden;       /* internal: not listed in help */
};

extern const struct command commands[];

int cmd_discover(struct cli *cli, int argc, char **argv);
int cmd_help(struct cli *cli, int argc, char **argv);
int cmd_class(struct cli *cli, int argc, char **argv);
int cmd_check(struct cli *cli, int argc, char **argv);
int cmd_version(struct cli *cli, int argc, char **argv);
int cmd_vendor_helper(struct cli *cli, int argc, char **argv);

const struct command *cli_find(const char *name);
void cli_main_usage(FILE *to);
void cli_usage(struct cli *cli, const struct command *c, FILE *to);
/* Print "gpuaudit CMD: message" to stderr; returns code. */
int cli_error(struct cli *cli, const char *cmd, int code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Set up a context from --root / GPUAUDIT_ROOT, GPUAUDIT_PCI_IDS and -v. */
int cli_ctx(struct cli *cli, const char *cmd, const char *root, int verbose, struct ga_ctx **ret);

#endif
