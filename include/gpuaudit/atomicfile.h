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
 * Returns 0 or -errno with the message (naming PATH) in ctx (ctx may be NULL);
 * the first error is the one returned (a full disk is -ENOSPC). Leftover
 * temporaries of PATH from a killed writer are swept first (ga_file_tmp_sweep).
 */
int ga_file_write_atomic(struct ga_ctx *ctx, const char *path, const void *data, size_t len, unsigned mode);

/* The same for NAME (no '/') in the open directory DIRFD; DIR names it in messages. */
int ga_file_write_atomic_at(struct ga_ctx *ctx, int dirfd, const char *dir, const char *name,
                            const void *data, size_t len, unsigned mode);

/*
 * A temporary ".NAME.tmp.XXXXXX" next to PATH, to be written through fd and
 * renamed over PATH by ga_file_tmp_commit (record -o streams into it: the
 * previous file at PATH stays whole until the new one is complete). The
 * temporary is created O_CREAT|O_EXCL|O_NOFOLLOW and held flock(LOCK_EX)
 * while it is open, which tells ga_file_tmp_sweep that its writer lives.
 */
struct ga_file_tmp {
	int fd;    /* the temporary, open for writing */
	int dirfd; /* PATH's directory */
	char name[256];
	char tmp[256];
	char shown[4200]; /* PATH as messages name it */
};
/* Refuse a PATH that is a regular file with more than one hard link (-EMLINK). */
#define GA_FILE_TMP_ONE_LINK 1u
/*
 * Check PATH as ga_file_write_atomic does (absent or a regular file; with
 * GA_FILE_TMP_ONE_LINK not hard-linked elsewhere), sweep leftovers of earlier
 * writers of PATH (ga_file_tmp_sweep), create the temporary. 0 or -errno with
 * the message in ctx; on error nothing is left to release.
 */
int ga_file_tmp_open(struct ga_ctx *ctx, const char *path, unsigned mode, unsigned flags,
                     struct ga_file_tmp *t);
int ga_file_tmp_open_at(struct ga_ctx *ctx, int dirfd, const char *dir, const char *name, unsigned mode,
                        unsigned flags, struct ga_file_tmp *t);
/* fsync, close, rename over PATH, fsync the directory; the temporary is removed on error. 0 or -errno. */
int ga_file_tmp_commit(struct ga_ctx *ctx, struct ga_file_tmp *t);
/* Close and remove the temporary (PATH untouched). */
void ga_file_tmp_abort(struct ga_file_tmp *t);
/*
 * Remove the temporaries of NAME in DIRFD that a killed writer left behind
 * (a kill between create and rename, issue 29): ".NAME.tmp.XXXXXX" that are
 * regular files of ours with one link, at least 2 s old and not locked by a
 * live writer. Best effort; the count removed. Every atomic write and
 * ga_file_tmp_open call it first, so leftovers go at the next write.
 */
int ga_file_tmp_sweep(int dirfd, const char *name);

/*
 * openat(dirfd, rel, flags, mode) where no component of rel may be a symlink
 * or "..": openat2 with RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH (Linux 5.6), and
 * where the kernel (or a seccomp filter) lacks it a walk that opens each
 * directory O_NOFOLLOW|O_DIRECTORY. O_NOFOLLOW and O_CLOEXEC are always
 * added. The descriptor, or -errno: -ELOOP (or -ENOTDIR) for a link met,
 * -EXDEV for "..". HOW: 0, or GA_BENEATH_NO_OPENAT2 to take the walk (tests).
 * capture creates everything in OUTDIR through it (issue 29).
 */
#define GA_BENEATH_NO_OPENAT2 1u
int ga_open_beneath(int dirfd, const char *rel, int flags, unsigned mode, unsigned how);

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
