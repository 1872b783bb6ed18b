/*
 * run.h - run a command as a child process under a deadline, capturing its
 * output in bounded buffers (preflight's warm-up runner).
 *
 * The command is started with posix_spawn, without a shell unless asked, in
 * its own process group with stdin from /dev/null. At the deadline the whole
 * group gets SIGTERM, then SIGKILL after a grace period. stdout and stderr are
 * each kept as their first head_bytes and their last tail_bytes; the bytes in
 * between are counted, not stored, so any amount of output fits.
 */
#ifndef GPUAUDIT_RUN_H
#define GPUAUDIT_RUN_H

#include <signal.h>

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_RUN_HEAD_BYTES (32 * 1024)
#define GA_RUN_TAIL_BYTES (32 * 1024)

struct ga_capture {
	char *head; /* first bytes, NUL-terminated */
	size_t head_len;
	char *tail; /* last bytes (after head), NUL-terminated */
	size_t tail_len;
	uint64_t total_bytes;   /* everything the stream carried */
	uint64_t omitted_bytes; /* between head and tail, not kept */
	/* internal: ring buffer state while running */
	size_t head_cap, tail_cap, ring_pos;
};

struct ga_run_opts {
	char *const *argv;   /* NULL-terminated; argv[0] is looked up in PATH */
	bool shell;          /* run the words joined by spaces with /bin/sh -c */
	double timeout_s;    /* 0: no deadline */
	double kill_grace_s; /* SIGTERM to SIGKILL; 0 = 2 s */
	size_t head_bytes;   /* per stream; 0 = GA_RUN_HEAD_BYTES */
	size_t tail_bytes;   /* per stream; 0 = GA_RUN_TAIL_BYTES */
	/*
	 * Optional: set to the child's process group while it runs, 0 otherwise, so
	 * that a caller's SIGINT/SIGTERM handler can kill the group before exiting
	 * (the group does not get the terminal's signals).
	 */
	volatile sig_atomic_t *running_pgid;
};

struct ga_run_result {
	int spawn_error; /* errno when the command could not start (ENOENT: not found), else 0 */
	bool exited;
	int exit_code;
	bool signaled;
	int signal;
	bool timed_out; /* the deadline passed: the group got SIGTERM */
	bool killed;    /* ... and SIGKILL after the grace period */
	double wall_s;  /* spawn to exit */
	struct ga_capture out, err;
};

/*
 * Run it. Returns 0 whenever the command's fate is known (including "could
 * not start": see spawn_error), or -errno when this process failed (pipes,
 * memory). *ret is filled only on 0; release with ga_run_result_release.
 */
int ga_run(struct ga_ctx *ctx, const struct ga_run_opts *o, struct ga_run_result *ret);
void ga_run_result_release(struct ga_run_result *r);
/* true when it ran and exited with status 0. */
bool ga_run_ok(const struct ga_run_result *r);
/* "exit 3", "signal SEGV", "timeout (SIGTERM)", "not started: No such file..." into buf. */
void ga_run_describe(const struct ga_run_result *r, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
