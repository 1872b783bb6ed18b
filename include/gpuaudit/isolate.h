/*
 * isolate.h - vendor libraries, run where they cannot hang us.
 *
 * NVML on a wedged GPU can block forever, and a vendor library may crash or
 * leak. ga_node_collect therefore never calls one in-process: it starts the
 * context's helper executable ("EXE __vendor-helper nvml"), which calls the
 * library and prints its view as JSON, and kills it at the deadline. The
 * helper writes the name of every library call into a shared page first, so
 * a timeout names the call that was in progress.
 */
#ifndef GPUAUDIT_ISOLATE_H
#define GPUAUDIT_ISOLATE_H

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_vendor_mode {
	GA_VENDOR_AUTO = 0, /* only when reading the live machine (root "/") and its GPUs call for it */
	GA_VENDOR_ON = 1,   /* also under --root (tests with fake libraries) */
	GA_VENDOR_OFF = 2,  /* never */
};

/* The executable implementing "__vendor-helper NAME" (the CLI passes /proc/self/exe). */
int ga_ctx_set_helper(struct ga_ctx *ctx, const char *exe);
void ga_ctx_set_vendor(struct ga_ctx *ctx, enum ga_vendor_mode mode, int timeout_ms);

struct ga_isolate_result {
	bool timed_out;
	bool unkillable;     /* still alive after SIGKILL (uninterruptible sleep in a driver) */
	int exit_status;     /* -1 when killed or not started */
	int term_signal;     /* signal that ended it, 0 if none */
	char last_call[128]; /* last call the helper announced */
	double elapsed_ms;
};

/*
 * Run "exe __vendor-helper NAME" with the context's deadline and parse what it
 * prints with schema into obj (zeroed by the caller). Returns 0 when the helper
 * ran to completion and its output parsed; -ETIMEDOUT, -ECHILD (crashed or bad
 * exit), -EBADMSG (unparsable output) or -errno otherwise, with res describing
 * what happened. Uses posix_spawn, so it is safe from a multithreaded caller.
 */
int ga_isolated_collect(struct ga_ctx *ctx, const char *name, const struct ga_schema *schema, void *obj,
                        struct ga_isolate_result *res);

/*
 * The same with one more argument for the helper (NULL: none), its own deadline,
 * and CANCEL_FD (-1: none): when it becomes readable the helper is killed and
 * -ECANCELED returned (serve's shutdown during a long NVML event wait).
 */
int ga_isolated_collect_arg(struct ga_ctx *ctx, const char *name, const char *arg, int timeout_ms,
                            int cancel_fd, const struct ga_schema *schema, void *obj,
                            struct ga_isolate_result *res);

/*
 * The page the helper writes the current call into (fd GA_PROGRESS_FD in the helper).
 * Two slots and an index, so the parent never reads a half-written name.
 */
#define GA_PROGRESS_FD 3
struct ga_progress_page {
	unsigned used;
	unsigned active;
	char slot[2][120];
};
void ga_progress_page_write(struct ga_progress_page *p, const char *call);
void ga_progress_page_read(const struct ga_progress_page *p, char *out, size_t n);

/* In-process collectors, for the helper side only. */
int ga_nvml_collect(struct ga_ctx *ctx, struct ga_nvml_report **ret);
int ga_nvml_collect_from(struct ga_ctx *ctx, const char *const *libs, struct ga_nvml_report **ret);

/* Merge an NVML report into the snapshot (moves the GPUs into the accelerators). */
int ga_node_merge_nvml(struct ga_node *n, struct ga_nvml_report *rep);

#ifdef __cplusplus
}
#endif
#endif
