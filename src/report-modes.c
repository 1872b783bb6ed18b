/*
 * report-modes.c - pieces shared by the commands that speak to
 * node-problem-detector and Slurm (check, health): one-line messages and the
 * early-failure report that keeps NPD's protocol (one line, exit 2 = unknown).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_one_line(char *s, size_t max)
{
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	size_t len = strlen(s);
	while (len && s[len - 1] == ' ')
		s[--len] = '\0';
	if (len <= max)
		return;
	size_t cut = max - 3;
	while (cut && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	while (cut && s[cut - 1] == ' ')
		cut--;
	memcpy(s + cut, "...", 4);
}

int cli_report_fail(struct cli *cli, const char *cmd, const char *npd_what, bool npd, int code,
                    const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_error(cli, cmd, code, "%s", msg);
	if (!npd)
		return code;
	char line[1100];
	snprintf(line, sizeof(line), "gpuaudit: %s: %s", npd_what, msg);
	cli_one_line(line, CLI_NPD_MAX);
	fprintf(cli->out, "%s\n", line);
	return 2;
}
