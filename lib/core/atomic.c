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
#include <stdint.h>
#include <stdio.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpuaudit/atomicfile.h"
#include "internal.h"

#define TMP_TRIES 64
#define TMP_NAME_MAX 200 /* of NAME kept in ".NAME.tmp.XXXXXX": within NAME_MAX */
#define TMP_MIN_AGE_S 2  /* a leftover younger than this may be a writer between open and flock */

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

/*
 * What is at DIR/NAME now: absent or a regular file is fine; anything else is
 * refused, and with GA_FILE_TMP_ONE_LINK a regular file with other hard links.
 */
static int check_target(struct ga_ctx *ctx, int dirfd, const char *shown, const char *name, unsigned flags)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return fail(ctx, -errno, "cannot write %s: %s", shown, strerror(errno));
	}
	if (S_ISREG(st.st_mode) && (flags & GA_FILE_TMP_ONE_LINK) && st.st_nlink > 1)
		return fail(ctx, -EMLINK,
		            "cannot write %s: it has %ju hard links (another name shares this file); "
		            "refusing to replace it (remove it or name a new file)",
		            shown, (uintmax_t)st.st_nlink);
	if (S_ISREG(st.st_mode))
		return 0;
	int err = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	return fail(ctx, err, "cannot write %s: it is %s; refusing to replace it (name a regular file)",
	            shown, kind_name(st.st_mode));
}

/* ".NAME.tmp." + six of [a-z0-9]: the temporary of NAME as tmp_open names it. */
static bool is_tmp_of(const char *ent, const char *name)
{
	size_t n = strlen(name);
	if (n > TMP_NAME_MAX)
		n = TMP_NAME_MAX;
	if (ent[0] != '.' || strncmp(ent + 1, name, n) || strncmp(ent + 1 + n, ".tmp.", 5))
		return false;
	const char *sfx = ent + 1 + n + 5;
	return strlen(sfx) == 6 && strspn(sfx, "abcdefghijklmnopqrstuvwxyz0123456789") == 6;
}

int ga_file_tmp_sweep(int dirfd, const char *name)
{
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	int removed = 0;
	time_t now = time(NULL);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		struct stat st, st2;
		if (!is_tmp_of(de->d_name, name) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid() || st.st_nlink != 1 || st.st_mtime > now - TMP_MIN_AGE_S)
			continue;
		/* a live writer holds its temporary locked (tmp_open): only an abandoned one is taken */
		int fd = openat(dirfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			continue;
		if (fstat(fd, &st2) == 0 && st2.st_ino == st.st_ino && st2.st_dev == st.st_dev &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ino == st2.st_ino &&
		    unlinkat(dirfd, de->d_name, 0) == 0)
			removed++;
		close(fd);
	}
	closedir(d);
	return removed;
}

int ga_file_tmp_open_at(struct ga_ctx *ctx, int dirfd, const char *dir, const char *name, unsigned mode,
                        unsigned flags, struct ga_file_tmp *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->dirfd = -1;
	snprintf(t->shown, sizeof(t->shown), "%s%s%s", dir ? dir : "", dir && *dir ? "/" : "", name);
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(ctx, -EINVAL, "cannot write %s: not a file name", t->shown);
	if (strlen(name) >= sizeof(t->name))
		return fail(ctx, -ENAMETOOLONG, "cannot write %s: %s", t->shown, strerror(ENAMETOOLONG));
	int r = check_target(ctx, dirfd, t->shown, name, flags);
	if (r < 0)
		return r;
	(void)ga_file_tmp_sweep(dirfd, name); /* what a killed writer left: best effort */
	int fd = -1;
	for (unsigned i = 0; fd < 0 && i < TMP_TRIES; i++) {
		char sfx[7];
		ga_rand_suffix(sfx, i);
		snprintf(t->tmp, sizeof(t->tmp), ".%.*s.tmp.%s", TMP_NAME_MAX, name, sfx);
		/* O_EXCL|O_NOFOLLOW: whatever is planted at the name is never opened */
		fd = openat(dirfd, t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		            (mode_t)(mode ? mode : 0644));
		if (fd < 0 && errno != EEXIST)
			return fail(ctx, -errno, "cannot create a temporary file for %s: %s", t->shown,
			            strerror(errno));
	}
	if (fd < 0)
		return fail(ctx, -EEXIST, "cannot create a temporary file for %s: %d names taken", t->shown,
		            TMP_TRIES);
	(void)flock(fd, LOCK_EX | LOCK_NB); /* ours while we live: a sweeper leaves it alone */
	t->dirfd = dup(dirfd);
	if (t->dirfd < 0) {
		r = fail(ctx, -errno, "cannot write %s: %s", t->shown, strerror(errno));
		unlinkat(dirfd, t->tmp, 0);
		close(fd);
		return r;
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->fd = fd;
	return 0;
}

/*
 * PATH's directory opened (*ret_dfd), its last component (*ret_name, into
 * path) and the directory as written for messages (dir, "" when PATH has no
 * slash). 0, or -errno with the message in ctx.
 */
static int open_parent(struct ga_ctx *ctx, const char *path, char *dir, size_t n, const char **ret_name,
                       int *ret_dfd)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else if ((size_t)(slash - path) >= n)
		return fail(ctx, -ENAMETOOLONG, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
	if (!*name)
		return fail(ctx, -EISDIR, "cannot write %s: %s", path, strerror(EISDIR));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail(ctx, -errno, "cannot write %s: %s", path, strerror(errno));
	if (!slash)
		dir[0] = '\0';
	*ret_name = name;
	*ret_dfd = dfd;
	return 0;
}

int ga_file_tmp_open(struct ga_ctx *ctx, const char *path, unsigned mode, unsigned flags,
                     struct ga_file_tmp *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = t->dirfd = -1;
	char dir[4096];
	const char *name = NULL;
	int dfd = -1;
	int e = open_parent(ctx, path, dir, sizeof(dir), &name, &dfd);
	if (e < 0)
		return e;
	int r = ga_file_tmp_open_at(ctx, dfd, dir, name, mode, flags, t);
	close(dfd);
	return r;
}

int ga_file_tmp_commit(struct ga_ctx *ctx, struct ga_file_tmp *t)
{
	int r = 0;
	if (t->fd < 0)
		return fail(ctx, -EBADF, "cannot write %s: not open", t->shown);
	if (fsync(t->fd) < 0)
		r = -errno;
	if (close(t->fd) < 0 && r == 0)
		r = -errno;
	t->fd = -1;
	if (r < 0) {
		fail(ctx, r, "cannot write %s: %s", t->shown, strerror(-r));
		goto out;
	}
	/* rename replaces whatever is at NAME by this file: a link there is not followed */
	if (renameat(t->dirfd, t->tmp, t->dirfd, t->name) < 0) {
		r = fail(ctx, -errno, "cannot rename into %s: %s", t->shown, strerror(errno));
		goto out;
	}
	(void)fsync(t->dirfd); /* the rename itself durable; EBADF/EINVAL where it cannot be */
out:
	if (r < 0)
		unlinkat(t->dirfd, t->tmp, 0);
	close(t->dirfd);
	t->dirfd = -1;
	return r;
}

void ga_file_tmp_abort(struct ga_file_tmp *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->dirfd >= 0) {
		unlinkat(t->dirfd, t->tmp, 0);
		close(t->dirfd);
	}
	t->fd = t->dirfd = -1;
}

int ga_file_write_atomic_at(struct ga_ctx *ctx, int dirfd, const char *dir, const char *name,
                            const void *data, size_t len, unsigned mode)
{
	struct ga_file_tmp t;
	int r = ga_file_tmp_open_at(ctx, dirfd, dir, name, mode, 0, &t);
	if (r < 0)
		return r;
	r = write_all(t.fd, data, len);
	if (r < 0) {
		fail(ctx, r, "cannot write %s: %s", t.shown, strerror(-r));
		ga_file_tmp_abort(&t);
		return r;
	}
	return ga_file_tmp_commit(ctx, &t);
}

int ga_file_write_atomic(struct ga_ctx *ctx, const char *path, const void *data, size_t len, unsigned mode)
{
	char dir[4096];
	const char *name = NULL;
	int dfd = -1;
	int e = open_parent(ctx, path, dir, sizeof(dir), &name, &dfd);
	if (e < 0)
		return e;
	int r = ga_file_write_atomic_at(ctx, dfd, dir, name, data, len, mode);
	close(dfd);
	return r;
}

/* Each component of rel in turn, O_NOFOLLOW|O_DIRECTORY, the last with flags: no link, no "..". */
static int open_walk(int dirfd, const char *rel, int flags, mode_t mode)
{
	int cur = dirfd, r = -EINVAL;
	const char *p = rel;
	for (;;) {
		while (*p == '/')
			p++;
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *rest = e;
		while (rest && *rest == '/')
			rest++;
		bool last = !rest || !*rest;
		char name[256];
		if (n == 0 || n >= sizeof(name)) {
			r = n ? -ENAMETOOLONG : -EINVAL;
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!strcmp(name, "..")) {
			r = -EXDEV;
			break;
		}
		int fd = last ? openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
		              : openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
		if (last)
			return cur;
		p = rest;
	}
	if (cur != dirfd)
		close(cur);
	return r;
}

int ga_open_beneath(int dirfd, const char *rel, int flags, unsigned mode, unsigned how)
{
	if (!*rel || rel[0] == '/')
		return -EINVAL;
	for (const char *p = rel; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == rel || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return -EXDEV; /* as the walk: no "..", even one that stays beneath */
	if (!(how & GA_BENEATH_NO_OPENAT2)) {
		struct open_how oh = { .flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
			               .mode = (flags & O_CREAT) ? mode : 0,
			               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		long fd = syscall(SYS_openat2, dirfd, rel, &oh, sizeof(oh));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS && errno != EPERM) /* EPERM: a seccomp filter that does not know it */
			return -errno;
	}
	return open_walk(dirfd, rel, flags, (mode_t)mode);
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
