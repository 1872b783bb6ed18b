/*
 * klog.h - what collect reads of the kernel log (lib/collect/kmsg.c): the
 * sources (/dev/kmsg under the root, a saved log, stdin), line by line to a
 * callback, with the reader's counts; and the processes in uninterruptible
 * sleep. Nothing here decides: the events, the Xid catalogue and the health
 * analysis are analyze's (kmsg.h).
 */
#ifndef GPUAUDIT_KLOG_H
#define GPUAUDIT_KLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ga_ctx;

#define GA_KLINE_MAX 4096 /* longer lines are truncated to this (the reader and the parser) */

typedef int (*ga_kline_fn)(void *udata, const char *line, size_t len);

struct ga_kmsg_stats {
	uint64_t lines;       /* lines or records handed to the callback */
	uint64_t truncated;   /* lines longer than GA_KLINE_MAX */
	uint64_t overwritten; /* /dev/kmsg EPIPE: records lost before we read them */
	bool device;          /* read from the kmsg character device */
};

/*
 * Read PATH under the context's root (normally "dev/kmsg"): the character
 * device non-blocking from the oldest record until EAGAIN, or a regular file
 * (a captured log) line by line. A callback returning <0 stops the read with
 * that value. -ENOENT, -EACCES/-EPERM (dmesg_restrict), -EIO, ...
 */
int ga_kmsg_read_root(struct ga_ctx *ctx, const char *path, ga_kline_fn fn, void *udata,
                      struct ga_kmsg_stats *st);
/* Read a log file given on the command line ("-" = stdin), line by line. */
int ga_kmsg_read_file(struct ga_ctx *ctx, const char *file, ga_kline_fn fn, void *udata,
                      struct ga_kmsg_stats *st);

/*
 * Processes in uninterruptible sleep (state 'D' in proc/<pid>/stat under the
 * root), as "comm[pid]". *ret_names is NULL-terminated (ga_strv_free).
 */
int ga_proc_dstate(struct ga_ctx *ctx, char ***ret_names, size_t *ret_n);

#ifdef __cplusplus
}
#endif
#endif
