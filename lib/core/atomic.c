/*
 * atomic.c - open and write the files the user names (atomicfile.h) so that
 * someone who can write their directory can neither redirect a write
 * through a planted symlink or hard link, nor make a read block forever on
 * a FIFO (issue 22: health --state followed a symlink at FILE.tmp.PID,
 * record -o truncated before validating, explain/kmsg/canary hung on FIFOs).
 * Every file gpuaudit writes goes through ga_file_write_atomic, every named
 * input through ga_file_open_input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuaudit/atomicfile.h"
#include "internal.h"

#define TMP_TRIES 64
#define TMP_NAME_MAX 200 /* of NAME kept in ".NAME.tmp.XXXXXX": within NAME_MAX */

static int fail(struct ga_ctx *ctx, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct ga_ctx *ctx, int err, const char *fmt, ...)
{
	if (ctx) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ctx->errmsg, sizeof(ctx->errmsg), fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *kind_name(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO (named pipe)"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISLNK(m)  ? "a symbolic link"
	                     : "not a regular file";
}

/* Six random characters of [a-z0-9]: the kernel's, else the clock and the pid mixed. */
static void tmp_suffix(char out[7], unsigned attempt)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 20) ^
		                       ((unsigned long long)attempt * 0x9e3779b97f4a7c15ULL);
		for (size_t i = 0; i < sizeof(rnd); i++, x >>= 8)
			rnd[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		out[i] = abc[rnd[i] % (sizeof(abc) - 1)];
	out[6] = '\0';
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* What is at DIR/NAME now: absent or a regular file is fine; anything else is refused. */
static int check_target(struct ga_ctx *ctx, int dirfd, const char *shown, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return fail(ctx, -errno, "cannot write %s: %s", shown, strerror(errno));
	}
	if (S_ISREG(st.st_mode))
		return 0;
	int err = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	return fail(ctx, err, "cannot write %s: it is %s; refusing to replace it (name a regular file)",
	            shown, kind_name(st.st_mode));
}

int ga_file_write_atomic_at(struct ga_ctx *ctx, int dirfd, const char *dir, const char *name,
                            const void *data, size_t len, unsigned mode)
{
	char shown[4200], tmp[256];
	snprintf(shown, sizeof(shown), "%s%s%s", dir ? dir : "", dir && *dir ? "/" : "", name);
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(ctx, -EINVAL, "cannot write %s: not a file name", shown);
	int r = check_target(ctx, dirfd, shown, name);
	if (r < 0)
		return r;
	int fd = -1;
	for (unsigned i = 0; fd < 0 && i < TMP_TRIES; i++) {
		char sfx[7];
		tmp_suffix(sfx, i);
		snprintf(tmp, sizeof(tmp), ".%.*s.tmp.%s", TMP_NAME_MAX, name, sfx);
		/* O_EXCL|O_NOFOLLOW: whatever is planted at the name is never opened */
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		            (mode_t)(mode ? mode : 0644));
		if (fd < 0 && errno != EEXIST)
			return fail(ctx, -errno, "cannot create a temporary file for %s: %s", shown,
			            strerror(errno));
	}
	if (fd < 0)
		return fail(ctx, -EEXIST, "cannot create a temporary file for %s: %d names taken", shown,
		            TMP_TRIES);
	r = write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		fail(ctx, r, "cannot write %s: %s", shown, strerror(-r));
		goto out;
	}
	/* rename replaces whatever is at NAME by this file: a link there is not followed */
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		r = fail(ctx, -errno, "cannot rename into %s: %s", shown, strerror(errno));
		goto out;
	}
	(void)fsync(dirfd); /* the rename itself durable; EBADF/EINVAL where it cannot be */
out:
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

int ga_file_write_atomic(struct ga_ctx *ctx, const char *path, const void *data, size_t len, unsigned mode)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	const char *name = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return fail(ctx, -ENAMETOOLONG, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (!*name)
		return fail(ctx, -EISDIR, "cannot write %s: %s", path, strerror(EISDIR));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail(ctx, -errno, "cannot write %s: %s", path, strerror(errno));
	int r = ga_file_write_atomic_at(ctx, dfd, slash ? dir : "", name, data, len, mode);
	close(dfd);
	return r;
}

/* Back to blocking reads/writes once the open itself could not block. */
static void set_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

int ga_file_open_output(struct ga_ctx *ctx, const char *path, unsigned mode, int *ret_fd)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
	              (mode_t)(mode ? mode : 0644));
	if (fd < 0 && errno == ELOOP)
		return fail(ctx, -ELOOP,
		            "cannot write %s: it is a symbolic link; refusing to follow it "
		            "(name the file itself, or - for standard output)",
		            path);
	if (fd < 0 && errno == ENXIO)
		return fail(ctx, -ENXIO, "cannot write %s: a FIFO with no reader", path);
	if (fd < 0)
		return fail(ctx, -errno, "cannot write %s: %s", path, strerror(errno));
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = fail(ctx, -errno, "cannot write %s: %s", path, strerror(errno));
	else if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) /* truncated only now: after validation */
		r = fail(ctx, -errno, "cannot write %s: %s", path, strerror(errno));
	if (r < 0) {
		close(fd);
		return r;
	}
	set_blocking(fd);
	*ret_fd = fd;
	return 0;
}

int ga_file_open_input(struct ga_ctx *ctx, const char *path, int *ret_fd)
{
	/* O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(ctx, -errno, "%s: %s", path, strerror(errno));
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = fail(ctx, -errno, "%s: %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		r = fail(ctx, -EISDIR, "%s: %s", path, strerror(EISDIR));
	else if (!S_ISREG(st.st_mode))
		r = fail(ctx, -EINVAL,
		         "%s: %s, not a regular file: refused, it could block forever "
		         "(to stream, pass - and redirect it to standard input)",
		         path, kind_name(st.st_mode));
	if (r < 0) {
		close(fd);
		return r;
	}
	set_blocking(fd);
	*ret_fd = fd;
	return 0;
}
