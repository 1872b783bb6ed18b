/*
 * deadline.c - `gpuaudit --deadline SEC COMMAND ...`: an overall bound on
 * any command, for inputs the command itself cannot bound (a parser stuck in
 * a third-party library, a filesystem that stops answering). A one-shot
 * ITIMER_REAL delivers SIGALRM at the deadline; the handler writes one line
 * with write(2) and leaves with _exit(EXIT_INCONCLUSIVE): no result is better
 * than a wedged health check. Child processes the command started (vendor
 * helper, workloads) have deadlines of their own and are not killed here.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"

static char line[128];
static size_t line_len;

static void on_deadline(int sig)
{
	(void)sig;
	ssize_t w = write(STDERR_FILENO, line, line_len);
	(void)w;
	_exit(EXIT_INCONCLUSIVE);
}

int cli_deadline(struct cli *cli, const char *arg)
{
	char *end = NULL;
	errno = 0;
	double s = strtod(arg, &end);
	if (errno || !end || *end || end == arg || !(s > 0) || s > 7 * 86400.0)
		return cli_error(cli, NULL, EXIT_USAGE,
		                 "--deadline wants seconds between 0 and 604800, not '%s'", arg);
	int n = snprintf(line, sizeof(line), "%s: deadline of %s s exceeded: stopped (exit %d)\n", cli->prog,
	                 arg, EXIT_INCONCLUSIVE);
	line_len = n > 0 && (size_t)n < sizeof(line) ? (size_t)n : 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_deadline;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		return cli_error(cli, NULL, EXIT_INTERNAL, "--deadline: %s", strerror(errno));
	struct itimerval it;
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)floor(s);
	it.it_value.tv_usec = (suseconds_t)((s - floor(s)) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		return cli_error(cli, NULL, EXIT_INTERNAL, "--deadline: %s", strerror(errno));
	return CLI_NEXT;
}
