/*
 * atomicfile.h - the files gpuaudit writes or reads because the user named
 * them (--state, --nfd-dir, -o, --plot, --junit, --baseline ...), opened so
 * that a planted symlink, hard link or FIFO can neither redirect a write nor
 * block a read (issue 22, items 5, 7 and 8). lib/core/atomic.c.
 */
#ifndef GPUAUDIT_ATOMICFILE_H
#define GPUAUDIT_ATOMICFILE_H

#include <stddef.h>

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Replace PATH by LEN bytes of DATA, atomically: a new temporary file
 * ".NAME.tmp.XXXXXX" created with O_CREAT|O_EXCL|O_NOFOLLOW in PATH's
 * directory (MODE, 0644 when 0, less the umask), all written, fsync, renamed
 * over PATH, the directory fsynced. Readers see the old file or the new one,
 * never a part; nothing at the temporary name is ever opened or followed.
 * PATH itself must be absent or a regular file: a symlink, FIFO, device or
 * directory there is refused (-ELOOP, -EISDIR, -EEXIST), so that neither a link is replaced
 * silently nor /dev/stdout or /dev/null turned into a file when run as root.
 * Returns 0 or -errno with the message (naming PATH) in ctx (ctx may be NULL).
 */
int ga_file_write_atomic(struct ga_ctx *ctx, const char *path, const void *data, size_t len, unsigned mode);

/* The same for NAME (no '/') in the open directory DIRFD; DIR names it in messages. */
int ga_file_write_atomic_at(struct ga_ctx *ctx, int dirfd, const char *dir, const char *name,
                            const void *data, size_t len, unsigned mode);

/*
 * Open PATH for a streamed output that cannot wait for a rename (record's
 * JSON lines): O_WRONLY|O_CREAT|O_NOFOLLOW|O_NONBLOCK (a FIFO without a reader
 * fails with -ENXIO instead of blocking), then a regular file is truncated and
 * the descriptor made blocking again. A symlink at PATH is refused (-ELOOP).
 * Call it only once every argument has been validated. 0 and *ret_fd, or
 * -errno with the message in ctx.
 */
int ga_file_open_output(struct ga_ctx *ctx, const char *path, unsigned mode, int *ret_fd);

/*
 * Open PATH, a file the user named as an input, without blocking: O_RDONLY|
 * O_NONBLOCK|O_NOCTTY, then anything but a regular file is refused (-EINVAL
 * for a FIFO, socket or device, -EISDIR for a directory) with a message that
 * points at "-" (standard input) for streaming; the descriptor is made
 * blocking again. "-" itself is the caller's business. 0 and *ret_fd, or
 * -errno with the message in ctx: "PATH: strerror" for what open(2) or fstat
 * say, "PATH: a FIFO (named pipe), not a regular file: refused ..." for a
 * refused one (-EINVAL). ga_file_read (lib/core/file.c) opens through it too.
 */
int ga_file_open_input(struct ga_ctx *ctx, const char *path, int *ret_fd);

#ifdef __cplusplus
}
#endif
#endif
