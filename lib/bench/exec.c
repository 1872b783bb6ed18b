/*
 * exec.c - one timed run of a command for `gpuaudit bench exec`.
 *
 * posix_spawn (no shell unless asked) into its own process group, stdin and
 * by default stdout/stderr on /dev/null; the wall time runs from just before
 * the spawn to the moment wait4 reaps the child, which also gives user and
 * system time and the peak resident set. The timeout waits on a pidfd, so the
 * reaping is not delayed by a polling interval; the whole process group is
 * killed when it expires.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuaudit/benchfile.h"
#include "gpuaudit/core.h"
#include "gpuaudit/benchfile-run.h"

extern char **environ;

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Wait for pid until deadline (0: none); true when it exited in time. */
static bool wait_deadline(pid_t pid, double deadline)
{
	if (deadline <= 0)
		return true;
	int pfd = pidfd_open_compat(pid);
	bool exited = false;
	for (;;) {
		double left = deadline - ga_mono_s();
		if (left <= 0)
			break;
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
			int rc = poll(&p, 1, ms);
			if (rc > 0) {
				exited = true;
				break;
			}
			if (rc < 0 && errno != EINTR)
				break;
		} else {
			/* No pidfd (old kernel): check every millisecond. */
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == pid) {
				exited = true;
				break;
			}
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	if (pfd >= 0)
		close(pfd);
	return exited;
}

static int spawn_and_wait(struct ga_ctx *ctx, char *const *argv, bool use_path, bool show_output,
                          double timeout_s, struct ga_exec_run *ret)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int err = 0;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!show_output) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	posix_spawnattr_setpgroup(&attr, 0);
	sigset_t def;
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

	pid_t pid;
	struct ga_exec_run run;
	memset(&run, 0, sizeof(run));
	double t0 = ga_mono_s();
	int rc = use_path ? posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ)
	                  : posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
	if (rc != 0) {
		err = ga_err(ctx, -rc, "cannot run %s: %s", argv[0], strerror(rc));
		goto out;
	}
	if (!wait_deadline(pid, timeout_s > 0 ? t0 + timeout_s : 0)) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		run.timed_out = true;
	}
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	pid_t w;
	do
		w = wait4(pid, &status, 0, &ru);
	while (w < 0 && errno == EINTR);
	double t1 = ga_mono_s();
	if (w < 0) {
		err = ga_err(ctx, -errno, "wait for %s: %s", argv[0], strerror(errno));
		goto out;
	}
	/* The group may have stragglers after a timeout; they go too. */
	if (run.timed_out)
		kill(-pid, SIGKILL);
	run.wall_s = t1 - t0;
	run.user_s = tv_s(ru.ru_utime);
	run.sys_s = tv_s(ru.ru_stime);
	run.max_rss_bytes = (int64_t)ru.ru_maxrss * 1024;
	if (WIFEXITED(status)) {
		run.status = WEXITSTATUS(status);
	} else {
		run.status = -1;
		run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	*ret = run;
out:
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return err;
}

int ga_exec_once(struct ga_ctx *ctx, const struct ga_exec_opts *opts, struct ga_exec_run *ret)
{
	if (!opts->argv || !opts->argv[0])
		return ga_err(ctx, -EINVAL, "no command");
	if (opts->shell) {
		char *sh[] = { "/bin/sh", "-c", opts->argv[0], NULL };
		return spawn_and_wait(ctx, sh, false, opts->show_output, opts->timeout_s, ret);
	}
	return spawn_and_wait(ctx, opts->argv, true, opts->show_output, opts->timeout_s, ret);
}

int ga_exec_prepare(struct ga_ctx *ctx, const struct ga_exec_opts *opts)
{
	if (!opts->prepare)
		return 0;
	char *sh[] = { "/bin/sh", "-c", (char *)opts->prepare, NULL };
	struct ga_exec_run run;
	int err = spawn_and_wait(ctx, sh, false, opts->show_output, opts->timeout_s, &run);
	if (err < 0)
		return err;
	if (run.timed_out)
		return ga_err(ctx, -ETIMEDOUT, "--prepare command timed out");
	if (run.status != 0)
		return ga_err(ctx, -ECHILD, "--prepare command failed (exit %d)", run.status);
	return 0;
}
