/*
 * isolate.c - run a vendor collector in a helper process under a deadline.
 *
 * The parent spawns "EXE __vendor-helper NAME" with posix_spawn (no fork in a
 * possibly multithreaded caller), reads the JSON the helper prints on stdout,
 * and kills it with SIGKILL at the deadline. Before each library call the
 * helper writes the call's name into a shared page (a memfd passed as fd 3):
 * no system call per library call, and the parent reads the name of the call
 * in progress when the deadline fires. The helper's stderr (vendor libraries
 * print there) is drained and logged at debug level. A process stuck in uninterruptible
 * sleep inside a driver cannot be reaped until the kernel lets it go; we wait
 * a bounded time for that and report it instead of blocking.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/internal.h"
#include "gpuaudit/isolate.h"

extern char **environ;

#define MAX_OUTPUT (32u << 20)
#define REAP_WAIT_MS 2000

int ga_ctx_set_helper(struct ga_ctx *ctx, const char *exe)
{
	char *copy = exe ? ga_strdup(exe) : NULL;
	if (exe && !copy)
		return -ENOMEM;
	ga_free(ctx->helper_exe);
	ctx->helper_exe = copy;
	return 0;
}

void ga_ctx_set_vendor(struct ga_ctx *ctx, enum ga_vendor_mode mode, int timeout_ms)
{
	ctx->vendor_mode = (int)mode;
	if (timeout_ms > 0)
		ctx->vendor_timeout_ms = timeout_ms;
}

static bool reap(pid_t pid, int *status, int wait_ms)
{
	/* The child is usually already exiting (its pipes closed): poll quickly at
	 * first, then back off, so a clean exit costs microseconds, not a tick. */
	double end = ga_mono_ms() + wait_ms;
	long nap_ns = 20 * 1000;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return true;
		if (w < 0 && errno != EINTR)
			return true; /* not our child any more */
		if (ga_mono_ms() >= end)
			return false;
		struct timespec ts = { 0, nap_ns };
		nanosleep(&ts, NULL);
		if (nap_ns < 10 * 1000 * 1000)
			nap_ns *= 2;
	}
}

int ga_isolated_collect(struct ga_ctx *ctx, const char *name, const struct ga_schema *schema, void *obj,
                        struct ga_isolate_result *res)
{
	return ga_isolated_collect_arg(ctx, name, NULL, ctx->vendor_timeout_ms, -1, schema, obj, res);
}

int ga_isolated_collect_arg(struct ga_ctx *ctx, const char *name, const char *arg, int timeout_ms,
                            int cancel_fd, const struct ga_schema *schema, void *obj,
                            struct ga_isolate_result *res)
{
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	if (!ctx->helper_exe)
		return ga_err(ctx, -ENOEXEC, "no helper executable to run vendor libraries in");
	int out[2] = { -1, -1 }, prog[2] = { -1, -1 }, memfd = -1;
	struct ga_progress_page *page = MAP_FAILED;
	int r = 0, status = 0;
	pid_t pid = -1;
	struct ga_buf b;
	ga_buf_init(&b, MAX_OUTPUT);
	posix_spawn_file_actions_t fa;
	bool fa_ok = false;
	double start = ga_mono_ms();

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(prog, O_CLOEXEC) < 0) {
		r = ga_err(ctx, -errno, "pipe: %s", strerror(errno));
		goto out;
	}
	memfd = memfd_create("gpuaudit-progress", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, sizeof(*page)) < 0 ||
	    (page = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0)) == MAP_FAILED) {
		r = ga_err(ctx, -errno, "progress page: %s", strerror(errno));
		goto out;
	}
	if ((r = -posix_spawn_file_actions_init(&fa)) < 0)
		goto out;
	fa_ok = true;
	if ((r = -posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO)) < 0 ||
	    (r = -posix_spawn_file_actions_adddup2(&fa, prog[1], STDERR_FILENO)) < 0 ||
	    (r = -posix_spawn_file_actions_adddup2(&fa, memfd, GA_PROGRESS_FD)) < 0 ||
	    (r = -posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) < 0)
		goto out;
	char *argv[] = { ctx->helper_exe, (char *)"__vendor-helper", (char *)name, (char *)arg, NULL };
	int e = posix_spawn(&pid, ctx->helper_exe, &fa, NULL, argv, environ);
	if (e != 0) {
		pid = -1;
		r = ga_err(ctx, -e, "cannot start %s: %s", ctx->helper_exe, strerror(e));
		goto out;
	}
	close(out[1]);
	close(prog[1]);
	out[1] = prog[1] = -1;

	bool out_open = true, prog_open = true;
	double deadline = start + timeout_ms;
	while (out_open || prog_open) {
		double left = deadline - ga_mono_ms();
		if (left <= 0) {
			res->timed_out = true;
			break;
		}
		struct pollfd pfd[3] = { { out_open ? out[0] : -1, POLLIN, 0 },
			                 { prog_open ? prog[0] : -1, POLLIN, 0 },
			                 { cancel_fd, POLLIN, 0 } };
		int pr = poll(pfd, 3, (int)left + 1);
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			r = ga_err(ctx, -errno, "poll: %s", strerror(errno));
			break;
		}
		if (cancel_fd >= 0 && pfd[2].revents) {
			r = ga_err(ctx, -ECANCELED, "vendor helper %s: cancelled", name);
			break;
		}
		char chunk[65536];
		if (out_open && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(out[0], chunk, sizeof(chunk));
			if (n > 0) {
				if (ga_buf_add(&b, chunk, (size_t)n) < 0) {
					r = ga_err(ctx, -EFBIG, "vendor helper %s printed more than %u bytes",
					           name, MAX_OUTPUT);
					break;
				}
			} else if (n == 0 || errno != EINTR) {
				out_open = false;
			}
		}
		if (prog_open && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(prog[0], chunk, sizeof(chunk) - 1);
			if (n > 0) {
				chunk[n] = '\0';
				ga_log(ctx, GA_LOG_DEBUG, "%s helper: %s", name, chunk);
			} else if (n == 0 || errno != EINTR) {
				prog_open = false;
			}
		}
	}
	if (res->timed_out || r < 0) {
		kill(pid, SIGKILL);
		if (!reap(pid, &status, REAP_WAIT_MS))
			res->unkillable = true;
	} else if (!reap(pid, &status, timeout_ms + REAP_WAIT_MS)) {
		/* closed its pipes but did not exit */
		kill(pid, SIGKILL);
		res->timed_out = true;
		if (!reap(pid, &status, REAP_WAIT_MS))
			res->unkillable = true;
	}
	pid = -1;
	res->elapsed_ms = ga_mono_ms() - start;
	ga_progress_page_read(page, res->last_call, sizeof(res->last_call));
	if (WIFEXITED(status))
		res->exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		res->term_signal = WTERMSIG(status);
	if (r < 0)
		goto out;
	if (res->timed_out) {
		r = ga_err(ctx, -ETIMEDOUT, "vendor helper %s did not finish within %d ms (in %s)", name,
		           timeout_ms, res->last_call[0] ? res->last_call : "startup");
		goto out;
	}
	if (res->term_signal || res->exit_status != 0) {
		r = ga_err(ctx, -ECHILD, "vendor helper %s %s %d (last call %s)", name,
		           res->term_signal ? "died of signal" : "exited with status",
		           res->term_signal ? res->term_signal : res->exit_status,
		           res->last_call[0] ? res->last_call : "none");
		goto out;
	}
	json_error_t jerr;
	json_t *root = NULL;
	r = ga_json_parse(ctx, b.data, b.len, 0, &root, &jerr);
	if (r == -ENOMEM)
		goto out;
	if (!root) {
		r = ga_err(ctx, -EBADMSG, "vendor helper %s printed invalid JSON: %s", name, jerr.text);
		goto out;
	}
	r = ga_schema_read(ctx, schema, root, obj);
	json_decref(root);
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		reap(pid, &status, REAP_WAIT_MS);
	}
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (page != MAP_FAILED)
		munmap(page, sizeof(*page));
	if (memfd >= 0)
		close(memfd);
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (prog[i] >= 0)
			close(prog[i]);
	}
	ga_buf_release(&b);
	return r;
}

void ga_progress_page_write(struct ga_progress_page *p, const char *call)
{
	unsigned slot = (__atomic_load_n(&p->active, __ATOMIC_RELAXED) + 1) & 1;
	size_t n = strnlen(call, sizeof(p->slot[0]) - 1);
	memcpy(p->slot[slot], call, n);
	p->slot[slot][n] = '\0';
	__atomic_store_n(&p->active, slot, __ATOMIC_RELEASE); /* the other slot stays whole */
	__atomic_store_n(&p->used, 1u, __ATOMIC_RELEASE);
}

void ga_progress_page_read(const struct ga_progress_page *p, char *out, size_t n)
{
	out[0] = '\0';
	if (p == MAP_FAILED || !p || !__atomic_load_n(&p->used, __ATOMIC_ACQUIRE))
		return;
	unsigned slot = __atomic_load_n(&p->active, __ATOMIC_ACQUIRE) & 1;
	snprintf(out, n, "%.*s", (int)sizeof(p->slot[0]) - 1, p->slot[slot]);
}
