/*
 * run.c - the child-process runner behind preflight's warm-up (run.h).
 *
 * posix_spawnp, own process group, stdin /dev/null, stdout/stderr through
 * non-blocking pipes into head+tail buffers. The exit is noticed through a
 * pidfd when the kernel has one (exact wall time), else by polling waitpid
 * every few milliseconds. After the child exits, pipes still held open by
 * its descendants are drained for a short while, then the group is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuaudit/core.h"
#include "gpuaudit/run.h"

extern char **environ;

#define DRAIN_AFTER_EXIT_S 0.5

static int cap_init(struct ga_capture *c, size_t head, size_t tail)
{
	memset(c, 0, sizeof(*c));
	c->head_cap = head;
	c->tail_cap = tail;
	c->head = ga_malloc(head + 1);
	c->tail = ga_malloc(tail + 1);
	if (!c->head || !c->tail)
		return -ENOMEM;
	c->head[0] = c->tail[0] = '\0';
	return 0;
}

static void cap_add(struct ga_capture *c, const char *p, size_t n)
{
	c->total_bytes += n;
	size_t h = c->head_cap - c->head_len;
	if (h > n)
		h = n;
	memcpy(c->head + c->head_len, p, h);
	c->head_len += h;
	p += h;
	n -= h;
	if (!n || !c->tail_cap)
		return;
	if (n >= c->tail_cap) { /* only the last tail_cap bytes can survive */
		p += n - c->tail_cap;
		n = c->tail_cap;
	}
	while (n) {
		size_t k = c->tail_cap - c->ring_pos;
		if (k > n)
			k = n;
		memcpy(c->tail + c->ring_pos, p, k);
		c->ring_pos = (c->ring_pos + k) % c->tail_cap;
		c->tail_len = c->tail_len + k > c->tail_cap ? c->tail_cap : c->tail_len + k;
		p += k;
		n -= k;
	}
}

/* Rotate the ring into order and terminate both buffers. */
static int cap_finish(struct ga_capture *c)
{
	if (c->tail_len == c->tail_cap && c->ring_pos) {
		char *lin = ga_malloc(c->tail_cap + 1);
		if (!lin)
			return -ENOMEM;
		size_t first = c->tail_cap - c->ring_pos;
		memcpy(lin, c->tail + c->ring_pos, first);
		memcpy(lin + first, c->tail, c->ring_pos);
		ga_free(c->tail);
		c->tail = lin;
	}
	c->ring_pos = 0;
	c->head[c->head_len] = '\0';
	c->tail[c->tail_len] = '\0';
	c->omitted_bytes = c->total_bytes - c->head_len - c->tail_len;
	return 0;
}

static void cap_release(struct ga_capture *c)
{
	ga_free(c->head);
	ga_free(c->tail);
	memset(c, 0, sizeof(*c));
}

void ga_run_result_release(struct ga_run_result *r)
{
	if (!r)
		return;
	cap_release(&r->out);
	cap_release(&r->err);
}

bool ga_run_ok(const struct ga_run_result *r)
{
	return !r->spawn_error && !r->timed_out && r->exited && r->exit_code == 0;
}

void ga_run_describe(const struct ga_run_result *r, char *buf, size_t n)
{
	if (r->spawn_error == ENOENT)
		snprintf(buf, n, "not started: command not found");
	else if (r->spawn_error)
		snprintf(buf, n, "not started: %s", strerror(r->spawn_error));
	else if (r->timed_out)
		snprintf(buf, n, "timed out: process group sent SIGTERM%s",
		         r->killed ? ", then SIGKILL" : "");
	else if (r->signaled) {
		const char *abbrev = sigabbrev_np(r->signal);
		snprintf(buf, n, "killed by signal SIG%s (%d)", abbrev ? abbrev : "?", r->signal);
	} else
		snprintf(buf, n, "exit status %d", r->exit_code);
}

/* Read what is there; 1 at EOF, 0 otherwise. */
static int drain(int fd, struct ga_capture *c)
{
	char buf[16384];
	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));
		if (k > 0) {
			cap_add(c, buf, (size_t)k);
			continue;
		}
		if (k == 0)
			return 1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : 1;
	}
}

static char *join_words(char *const *argv)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	for (size_t i = 0; argv[i]; i++)
		if ((i && ga_buf_addc(&b, ' ') < 0) || ga_buf_adds(&b, argv[i]) < 0) {
			ga_buf_release(&b);
			return NULL;
		}
	return ga_buf_detach(&b, NULL);
}

/*
 * Wait for the child pid while draining its stdout and stderr (non-blocking
 * pipes out_fd, err_fd) into r: SIGTERM to its group at the timeout, SIGKILL
 * kill_grace_s later, and after it exits a short drain of what its
 * descendants still write. 0 with *status set, or -errno.
 */
static int supervise(struct ga_ctx *ctx, const struct ga_run_opts *o, pid_t pid, int pidfd, int out_fd,
                     int err_fd, double t0, struct ga_run_result *r, int *status)
{
	bool eof_out = false, eof_err = false, reaped = false;
	double deadline = o->timeout_s > 0 ? t0 + o->timeout_s : 0, kill_at = 0, drain_until = 0;
	double grace = o->kill_grace_s > 0 ? o->kill_grace_s : 2.0;
	for (;;) {
		double t = ga_mono_s();
		if (!reaped && deadline > 0 && !r->timed_out && t >= deadline) {
			kill(-pid, SIGTERM);
			r->timed_out = true;
			kill_at = t + grace;
		}
		if (!reaped && r->timed_out && !r->killed && t >= kill_at) {
			kill(-pid, SIGKILL);
			r->killed = true;
		}
		if (!reaped) {
			pid_t w = waitpid(pid, status, WNOHANG);
			if (w == pid) {
				reaped = true;
				r->wall_s = ga_mono_s() - t0;
				drain_until = ga_mono_s() + DRAIN_AFTER_EXIT_S;
			} else if (w < 0 && errno != EINTR) {
				return ga_err(ctx, -errno, "waitpid: %s", strerror(errno));
			}
		}
		if (reaped && ((eof_out && eof_err) || ga_mono_s() >= drain_until))
			break;
		/* how long to wait: until the next event we must act on */
		double until = 0.1;
		if (!reaped && deadline > 0 && !r->timed_out)
			until = deadline - t < until ? deadline - t : until;
		if (!reaped && r->timed_out && !r->killed)
			until = kill_at - t < until ? kill_at - t : until;
		if (reaped)
			until = drain_until - t < until ? drain_until - t : until;
		if (!reaped && pidfd < 0 && eof_out && eof_err)
			until = until > 0.002 ? 0.002 : until; /* no pidfd: poll waitpid */
		struct pollfd pf[3];
		nfds_t np = 0;
		int iout = -1, ierr = -1;
		if (!eof_out)
			iout = (int)np, pf[np++] = (struct pollfd){ .fd = out_fd, .events = POLLIN };
		if (!eof_err)
			ierr = (int)np, pf[np++] = (struct pollfd){ .fd = err_fd, .events = POLLIN };
		if (!reaped && pidfd >= 0)
			pf[np++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		int ms = until > 0 ? (int)(until * 1000) + 1 : 0;
		if (poll(pf, np, ms) < 0 && errno != EINTR) {
			return ga_err(ctx, -errno, "poll: %s", strerror(errno));
		}
		if (iout >= 0 && pf[iout].revents)
			eof_out = drain(out_fd, &r->out);
		if (ierr >= 0 && pf[ierr].revents)
			eof_err = drain(err_fd, &r->err);
	}
	return 0;
}

int ga_run(struct ga_ctx *ctx, const struct ga_run_opts *o, struct ga_run_result *ret)
{
	struct ga_run_result r;
	memset(&r, 0, sizeof(r));
	int pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, pidfd = -1, err = 0;
	char *joined = NULL;
	bool fa_ok = false, at_ok = false;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid = -1;

	if (!o->argv || !o->argv[0])
		return ga_err(ctx, -EINVAL, "no command to run");
	if (cap_init(&r.out, o->head_bytes ? o->head_bytes : GA_RUN_HEAD_BYTES,
	             o->tail_bytes ? o->tail_bytes : GA_RUN_TAIL_BYTES) < 0 ||
	    cap_init(&r.err, o->head_bytes ? o->head_bytes : GA_RUN_HEAD_BYTES,
	             o->tail_bytes ? o->tail_bytes : GA_RUN_TAIL_BYTES) < 0) {
		err = -ENOMEM;
		goto out;
	}
	if (pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
		err = ga_err(ctx, -errno, "pipe: %s", strerror(errno));
		goto out;
	}
	char *sh_argv[4] = { (char *)"/bin/sh", (char *)"-c", NULL, NULL };
	char *const *argv = o->argv;
	if (o->shell) {
		if (!(joined = join_words(o->argv))) {
			err = -ENOMEM;
			goto out;
		}
		sh_argv[2] = joined;
		argv = sh_argv;
	}
	if (posix_spawn_file_actions_init(&fa) != 0) {
		err = -ENOMEM;
		goto out;
	}
	fa_ok = true;
	if (posix_spawnattr_init(&at) != 0) {
		err = -ENOMEM;
		goto out;
	}
	at_ok = true;
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, pout[1], 1) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, perr[1], 2) != 0 ||
	    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
	                                          POSIX_SPAWN_SETSIGDEF) != 0 ||
	    posix_spawnattr_setpgroup(&at, 0) != 0 || posix_spawnattr_setsigmask(&at, &none) != 0 ||
	    posix_spawnattr_setsigdefault(&at, &all) != 0) {
		err = -ENOMEM;
		goto out;
	}
	double t0 = ga_mono_s();
	int se = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	close(pout[1]);
	close(perr[1]);
	pout[1] = perr[1] = -1;
	if (se != 0) {
		pid = -1;
		r.spawn_error = se;
		goto done;
	}
	if (o->running_pgid)
		*o->running_pgid = (sig_atomic_t)pid;
	ga_log(ctx, GA_LOG_DEBUG, "started %s as pid %d", argv[0], (int)pid);
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	fcntl(pout[0], F_SETFL, O_NONBLOCK);
	fcntl(perr[0], F_SETFL, O_NONBLOCK);

	int status = 0;
	if ((err = supervise(ctx, o, pid, pidfd, pout[0], perr[0], t0, &r, &status)) < 0)
		goto out;
	/* descendants may still run (and hold the pipes): the group ends with the warm-up */
	kill(-pid, SIGKILL);
	if (o->running_pgid)
		*o->running_pgid = 0;
	pid = -1;
	if (WIFEXITED(status)) {
		r.exited = true;
		r.exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r.signaled = true;
		r.signal = WTERMSIG(status);
	}
done:
	if (cap_finish(&r.out) < 0 || cap_finish(&r.err) < 0) {
		err = -ENOMEM;
		goto out;
	}
	*ret = r;
	memset(&r, 0, sizeof(r));
out:
	if (pid > 0) { /* failed while it ran: do not leave it behind */
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (o->running_pgid)
			*o->running_pgid = 0;
	}
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (at_ok)
		posix_spawnattr_destroy(&at);
	for (int i = 0; i < 2; i++) {
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
	ga_free(joined);
	ga_run_result_release(&r);
	return err;
}
