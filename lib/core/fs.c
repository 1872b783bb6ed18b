/*
 * fs.c - root-relative, size-capped file access for every collector.
 *
 * Paths resolve inside the context's root with openat2(RESOLVE_IN_ROOT) when
 * the kernel has it (Linux >= 5.6); otherwise with openat relative to the root
 * descriptor, which is equivalent for the relative symlinks sysfs uses.
 * Non-regular files are refused after an O_NONBLOCK open (a FIFO cannot block
 * us) and before any read; reads stop at the cap.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpuaudit/fs.h"
#include "internal.h"

#ifndef RESOLVE_IN_ROOT
struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_IN_ROOT 0x10
#else
#include <linux/openat2.h>
#endif

static int have_openat2 = -1; /* unknown until first call */

static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

/* Open path under the root. Returns an fd or -errno. */
static int root_open(struct ga_ctx *ctx, const char *path, int flags)
{
	const char *p = rel(path);
	flags |= O_CLOEXEC;
	if (!(flags & O_PATH))
		flags |= O_NOCTTY; /* openat2 rejects anything but O_DIRECTORY/O_NOFOLLOW with O_PATH */
#ifdef SYS_openat2
	if (have_openat2 != 0) {
		struct open_how how;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)flags;
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		long fd;
		/*
		 * With RESOLVE_IN_ROOT the kernel answers EAGAIN when a rename or mount
		 * anywhere on the system raced with resolving a ".." (sysfs's device
		 * links are full of them): a retry is what openat2(2) asks for. Seen
		 * as spurious "read error" gaps while other processes renamed files.
		 */
		int tries = 0;
		do
			fd = syscall(SYS_openat2, ctx->root_fd, p, &how, sizeof(how));
		while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 64);
		if (fd >= 0) {
			have_openat2 = 1;
			return (int)fd;
		}
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		have_openat2 = 0; /* kernel or seccomp says no: fall back */
	}
#endif
	int fd = openat(ctx->root_fd, p, flags);
	return fd < 0 ? -errno : fd;
}

const char *ga_fs_reason(int err)
{
	switch (err) {
	case -ENOENT:
		return "missing";
	case -EACCES:
	case -EPERM:
		return "permission denied";
	case -ELOOP:
		return "symlink loop";
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
	case -E2BIG:
		return "too large";
	case -ENOMEM:
		return "out of memory";
	case -EISDIR:
		return "is a directory";
	case -ENOTDIR:
		return "not a directory";
	case -EBADMSG:
		return "unparsable";
	case -ENODATA:
		return "empty";
	default:
		return "read error";
	}
}

int ga_fs_open(struct ga_ctx *ctx, const char *path, int flags)
{
	return root_open(ctx, path, flags);
}

int ga_fs_read(struct ga_ctx *ctx, const char *path, size_t max, struct ga_buf *out)
{
	if (!max)
		max = ctx->max_file;
	int fd = root_open(ctx, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return ga_err(ctx, fd, "%s: %s", path, ga_fs_reason(fd));
	int r = 0;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		r = ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		r = ga_err(ctx, -EISDIR, "%s: is a directory", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = ga_err(ctx, -EINVAL, "%s: not a regular file", path);
		goto out;
	}
	/* sysfs reports 4096 and procfs 0: st_size is only a hint. */
	size_t start = out->len;
	char chunk[8192];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (out->len - start + (size_t)n > max) {
			r = ga_err(ctx, -EFBIG, "%s: larger than %zu bytes", path, max);
			break;
		}
		r = ga_buf_add(out, chunk, (size_t)n);
		if (r < 0) {
			r = ga_err(ctx, r == -E2BIG ? -EFBIG : r, "%s: %s", path, ga_fs_reason(r));
			break;
		}
	}
	if (r < 0) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
	} else if (!out->data) {
		r = ga_buf_add(out, "", 0);
	}
out:
	close(fd);
	return r;
}

int ga_fs_read_attr(struct ga_ctx *ctx, const char *path, char **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(ctx, path, 65536, &b);
	if (r < 0) {
		ga_buf_release(&b);
		return r;
	}
	char *s = ga_buf_detach(&b, NULL);
	if (!s)
		return -ENOMEM;
	ga_strstrip(s);
	*ret = s;
	return 0;
}

/* Open the parent directory of path; *ret_base points into path. */
static int open_parent(struct ga_ctx *ctx, const char *path, char **ret_dir, const char **ret_base)
{
	const char *p = rel(path);
	const char *slash = strrchr(p, '/');
	char *dir = slash ? ga_strndup(p, (size_t)(slash - p)) : ga_strdup(".");
	if (!dir)
		return -ENOMEM;
	int fd = root_open(ctx, dir, O_PATH | O_DIRECTORY);
	*ret_base = slash ? slash + 1 : p;
	*ret_dir = dir;
	return fd;
}

int ga_fs_readlink(struct ga_ctx *ctx, const char *path, char **ret)
{
	char *dir = NULL;
	const char *base;
	int fd = open_parent(ctx, path, &dir, &base);
	ga_free(dir);
	if (fd < 0)
		return fd;
	char target[PATH_MAX];
	ssize_t n = readlinkat(fd, base, target, sizeof(target) - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	target[n] = '\0';
	char *s = ga_strdup(target);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

bool ga_fs_exists(struct ga_ctx *ctx, const char *path)
{
	char *dir = NULL;
	const char *base;
	int fd = open_parent(ctx, path, &dir, &base);
	ga_free(dir);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	close(fd);
	return ok;
}

int ga_fs_lstat(struct ga_ctx *ctx, const char *path, struct stat *st)
{
	char *dir = NULL;
	const char *base;
	int fd = open_parent(ctx, path, &dir, &base);
	ga_free(dir);
	if (fd < 0)
		return fd;
	int r = fstatat(fd, base, st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
	close(fd);
	return r;
}

bool ga_fs_is_dir(struct ga_ctx *ctx, const char *path)
{
	int fd = root_open(ctx, path, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void ga_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		ga_free(*p);
	ga_free(v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ga_fs_list(struct ga_ctx *ctx, const char *path, char ***ret_names, size_t *ret_n)
{
	int fd = root_open(ctx, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = -errno;
		close(fd);
		return e;
	}
	char **v = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n >= 65536) {
			r = ga_err(ctx, -E2BIG, "%s: too many entries", path);
			break;
		}
		if (n + 2 > cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nv = ga_realloc(v, nc * sizeof(*v));
			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		v[n] = ga_strdup(de->d_name);
		if (!v[n]) {
			r = -ENOMEM;
			break;
		}
		v[++n] = NULL;
	}
	closedir(d);
	if (r < 0) {
		if (v) {
			v[n] = NULL;
			ga_strv_free(v);
		}
		return r;
	}
	if (!v) {
		v = ga_calloc(1, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	*ret_names = v;
	if (ret_n)
		*ret_n = n;
	return 0;
}

char *ga_path_normalize(const char *path)
{
	size_t len = strlen(path);
	char *out = ga_malloc(len + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--; /* drop the slash */
		} else {
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
	}
	out[o] = '\0';
	return out;
}

int ga_fs_resolve_link(struct ga_ctx *ctx, const char *path, char **ret)
{
	char *cur = ga_path_normalize(rel(path));
	if (!cur)
		return -ENOMEM;
	for (int hop = 0; hop < 8; hop++) {
		char *target = NULL;
		int r = ga_fs_readlink(ctx, cur, &target);
		if (r == -EINVAL) { /* not a symlink: done */
			*ret = cur;
			return 0;
		}
		if (r < 0) {
			ga_free(cur);
			return r;
		}
		struct ga_buf b;
		ga_buf_init(&b, 0);
		if (target[0] == '/') {
			r = ga_buf_adds(&b, target + 1);
		} else {
			const char *slash = strrchr(cur, '/');
			if (slash)
				r = ga_buf_add(&b, cur, (size_t)(slash - cur + 1));
			if (r == 0)
				r = ga_buf_adds(&b, target);
		}
		ga_free(target);
		ga_free(cur);
		cur = r == 0 && b.data ? ga_path_normalize(b.data) : NULL;
		ga_buf_release(&b);
		if (!cur)
			return r < 0 ? r : -ENOMEM;
	}
	ga_free(cur);
	return -ELOOP;
}
