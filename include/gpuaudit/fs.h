/*
 * fs.h - the one root-relative reader for sysfs, procfs, /dev and /etc.
 *
 * Every path is relative to the context's root (leading '/' is ignored) and
 * is resolved inside it: absolute symlinks in a captured tree point back into
 * the tree (openat2 RESOLVE_IN_ROOT where the kernel has it). Reads are
 * size-capped, and FIFOs, sockets and device files are refused, so a hostile
 * or broken tree can neither hang nor exhaust the reader.
 */
#ifndef GPUAUDIT_FS_H
#define GPUAUDIT_FS_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read a whole regular file into out (appended, NUL-terminated).
 * max = 0 uses the context's max file size.
 * Errors: -ENOENT, -EACCES, -ELOOP, -EINVAL (not a regular file),
 * -EFBIG (larger than max), -EIO, -ENOMEM. The context's message names the path.
 */
int ga_fs_read(struct ga_ctx *ctx, const char *path, size_t max, struct ga_buf *out);

/*
 * Read a one-line attribute (sysfs style) and strip surrounding whitespace.
 * *ret is allocated with ga_malloc. Cap: 64 KiB.
 */
int ga_fs_read_attr(struct ga_ctx *ctx, const char *path, char **ret);

/* Target of a symlink (not followed). *ret is allocated. */
int ga_fs_readlink(struct ga_ctx *ctx, const char *path, char **ret);

/* Does path exist (symlinks not followed)? Any file type counts. */
bool ga_fs_exists(struct ga_ctx *ctx, const char *path);
/*
 * lstat(2) of path under the root (the last component is not followed): the
 * type, permission bits and owner of a device node without opening it.
 * 0 or -errno.
 */
struct stat;
int ga_fs_lstat(struct ga_ctx *ctx, const char *path, struct stat *st);
/* Is path (followed) a directory? */
bool ga_fs_is_dir(struct ga_ctx *ctx, const char *path);

/*
 * Sorted names in a directory, without "." and "..". *ret_names is a
 * NULL-terminated array; free with ga_strv_free. Capped at 65536 entries.
 */
int ga_fs_list(struct ga_ctx *ctx, const char *path, char ***ret_names, size_t *ret_n);
void ga_strv_free(char **v);

/*
 * Resolve a path whose last component is a relative or absolute symlink,
 * lexically: "sys/bus/pci/devices/0000:07:00.0" ->
 * "sys/devices/pci0000:00/.../0000:07:00.0". Follows up to 8 links.
 */
int ga_fs_resolve_link(struct ga_ctx *ctx, const char *path, char **ret);

/* Lexically normalise a relative path ("a/./b/../c" -> "a/c"); never escapes above "". */
char *ga_path_normalize(const char *path);

/*
 * Open path under the root with open(2) flags (O_CLOEXEC and, unless O_PATH,
 * O_NOCTTY are added), resolved in the root like every read here: for readers
 * that must fstat before reading or read only a prefix (gpuaudit capture).
 * The caller checks the file type. An fd or -errno; no message is set.
 */
int ga_fs_open(struct ga_ctx *ctx, const char *path, int flags);

/* Short description of a negative errno as used in snapshot gaps. */
const char *ga_fs_reason(int err);

#ifdef __cplusplus
}
#endif
#endif
