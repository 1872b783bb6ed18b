/*
 * cli.c - what every command shares: the error line, the usage text, the
 * command lookup, and the library context with root, pci.ids and log level.
 * main.c hands over the command table (cli_set_commands) so that the command
 * files, which call these, never refer back to main.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/core.h"
#include "gpuaudit/text.h"

static const struct command *table;

void cli_set_commands(const struct command *commands)
{
	table = commands;
}

const struct command *cli_find(const char *name)
{
	for (const struct command *c = table; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cli_usage(struct cli *cli, const struct command *c, FILE *to)
{
	(void)cli;
	fputs(c->usage, to);
	if (c->more_usage)
		c->more_usage(to);
}

void cli_main_usage(FILE *to)
{
	fputs("usage: gpuaudit [--version] [-h] [--deadline SEC] COMMAND [ARGS]\n"
	      "\n"
	      "Prove that GPU and accelerator nodes are what you think they are.\n"
	      "\n"
	      "Commands:\n",
	      to);
	for (const struct command *c = table; c && c->name; c++)
		if (!c->hidden)
			fprintf(to, "  %-10s %s\n", c->name, c->summary);
	fputs("\n"
	      "'gpuaudit help COMMAND' or 'gpuaudit COMMAND -h' shows a command's options.\n"
	      "--deadline SEC stops any command after SEC seconds (exit 4), for inputs it cannot bound.\n"
	      "Exit status: 0 ok, 1 problems found, 2 usage or unreadable input,\n"
	      "3 backend unavailable, 4 inconclusive, 70 internal error.\n",
	      to);
}

int cli_error(struct cli *cli, const char *cmd, int code, const char *fmt, ...)
{
	fprintf(cli->err, "%s%s%s: ", cli->prog, cmd ? " " : "", cmd ? cmd : "");
	struct ga_buf msg; /* a message quotes paths and inputs: through the text rule (cli_esc) */
	ga_buf_init(&msg, 0);
	va_list ap;
	va_start(ap, fmt);
	int r = ga_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	cli_fputs_esc(cli->err, r == 0 && msg.data ? msg.data : "(out of memory)", GA_TEXT_KEEP_TAB);
	ga_buf_release(&msg);
	fputc('\n', cli->err);
	return code;
}

FILE *cli_progress_to(struct cli *cli)
{
	int fd = cli->err ? fileno(cli->err) : -1;
	return fd >= 0 && isatty(fd) ? cli->err : NULL;
}

bool cli_progress_init(struct cli_progress *p, struct cli *cli, const char *cmd)
{
	memset(p, 0, sizeof(*p));
	p->to = cli_progress_to(cli);
	p->prog = cli->prog;
	p->cmd = cmd;
	p->t0 = ga_mono_s();
	return p->to != NULL;
}

void cli_progress_show(struct cli_progress *p, const char *fmt, ...)
{
	if (!p->to)
		return;
	double now = ga_mono_s();
	if (p->shown && now - p->last < 0.1) /* a line a tenth of a second at most */
		return;
	p->last = now;
	p->shown = true;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(p->to, "\r\033[K%s %s: [%5.1f s] %s", p->prog, p->cmd, now - p->t0, cli_esc(msg));
	fflush(p->to);
}

void cli_progress_ctx(void *udata, const char *call)
{
	cli_progress_show(udata, "%s", call);
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->to && p->shown) {
		fputs("\r\033[K", p->to);
		fflush(p->to);
	}
	p->shown = false;
}

static void log_stderr(void *udata, enum ga_log_level level, const char *msg)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	struct cli *cli = udata;
	fprintf(cli->err, "%s: %s: %s\n", cli->prog, names[level], cli_esc(msg));
}

int cli_ctx(struct cli *cli, const char *cmd, const char *root, int verbose, struct ga_ctx **ret)
{
	struct ga_ctx *ctx = NULL;
	int r = ga_ctx_new(&ctx);
	if (r < 0)
		return cli_error(cli, cmd, EXIT_INTERNAL, "cannot create context: %s", strerror(-r));
	enum ga_log_level lvl = verbose >= 2 ? GA_LOG_DEBUG : verbose == 1 ? GA_LOG_INFO : GA_LOG_WARN;
	ga_ctx_set_log(ctx, log_stderr, cli, lvl);
	if (!root || !*root)
		root = getenv("GPUAUDIT_ROOT");
	if (root && *root && ga_ctx_set_root(ctx, root) < 0) {
		int code = cli_error(cli, cmd, EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		ga_ctx_free(ctx);
		return code;
	}
	*ret = ctx;
	return EXIT_OK;
}
