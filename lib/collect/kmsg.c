/*
 * kmsg.c - read the kernel log: /dev/kmsg under the context's root, or a saved
 * log file (dmesg, dmesg -T, journalctl -k, a copy of /dev/kmsg records).
 *
 * lib/core/fs.c refuses device files on purpose (a FIFO or device in a
 * captured tree must not hang the reader); /dev/kmsg is the one device we
 * want, so it gets its own opener here, resolved inside the root the same way
 * (openat2 RESOLVE_IN_ROOT, openat on older kernels) and opened O_NONBLOCK so
 * that reading stops at EAGAIN instead of waiting for new records. Lines are
 * streamed to a callback through a fixed buffer: memory does not grow with
 * the log, and lines longer than GA_KLINE_MAX are cut.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../core/internal.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/klog.h"
#include <stdio.h>

#if defined(SYS_openat2) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif

#define KMSG_RECORD_MAX 8192 /* a /dev/kmsg read must fit one whole record */
#define CHUNK (64 * 1024)

static int kmsg_open(struct ga_ctx *ctx, const char *path)
{
	while (*path == '/')
		path++;
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
#ifdef HAVE_OPENAT2
	struct open_how how;
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(unsigned int)flags;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	long fd = syscall(SYS_openat2, ctx->root_fd, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
#endif
	int fd2 = openat(ctx->root_fd, path, flags);
	return fd2 < 0 ? -errno : fd2;
}

/* The kernel log device is character device 1:11; any other device is refused. */
static bool is_kmsg_dev(const struct stat *sb)
{
	return S_ISCHR(sb->st_mode) && major(sb->st_rdev) == 1 && minor(sb->st_rdev) == 11;
}

/* Split a stream into lines; cut long ones. */
struct splitter {
	char line[GA_KLINE_MAX];
	size_t len;
	bool cut;
	ga_kline_fn fn;
	void *udata;
	struct ga_kmsg_stats *st;
};

static int split_flush(struct splitter *sp)
{
	int r = 0;
	if (sp->len || sp->cut) {
		sp->st->lines++;
		sp->st->truncated += sp->cut;
		r = sp->fn(sp->udata, sp->line, sp->len);
	}
	sp->len = 0;
	sp->cut = false;
	return r;
}

static int split_feed(struct splitter *sp, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = (size_t)((nl ? nl : end) - p);
		size_t room = sizeof(sp->line) - sp->len;
		if (k > room) {
			memcpy(sp->line + sp->len, p, room);
			sp->len += room;
			sp->cut = true;
		} else {
			memcpy(sp->line + sp->len, p, k);
			sp->len += k;
		}
		if (!nl)
			break;
		int r = split_flush(sp);
		if (r < 0)
			return r;
		p = nl + 1;
	}
	return 0;
}

static int read_stream(struct ga_ctx *ctx, int fd, const char *name, ga_kline_fn fn, void *udata,
                       struct ga_kmsg_stats *st)
{
	struct splitter *sp = ga_malloc(sizeof(*sp));
	char *buf = ga_malloc(CHUNK);
	int r = 0;
	if (!sp || !buf) {
		r = -ENOMEM;
		goto out;
	}
	sp->len = 0;
	sp->cut = false;
	sp->fn = fn;
	sp->udata = udata;
	sp->st = st;
	for (;;) {
		ssize_t k = read(fd, buf, CHUNK);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			break; /* a non-blocking pipe or stdin: what is there */
		if (k < 0) {
			r = ga_err(ctx, -errno, "cannot read %s: %s", name, strerror(errno));
			goto out;
		}
		if (k == 0)
			break;
		r = split_feed(sp, buf, (size_t)k);
		if (r < 0)
			goto out;
	}
	r = split_flush(sp);
out:
	ga_free(buf);
	ga_free(sp);
	return r;
}

/* The character device: one record per read, oldest first, until EAGAIN. */
static int read_device(struct ga_ctx *ctx, int fd, const char *name, ga_kline_fn fn, void *udata,
                       struct ga_kmsg_stats *st)
{
	char *rec = ga_malloc(KMSG_RECORD_MAX);
	int r = 0;
	if (!rec)
		return -ENOMEM;
	st->device = true;
	(void)lseek(fd, 0, SEEK_DATA); /* from the oldest record still in the ring */
	for (;;) {
		ssize_t k = read(fd, rec, KMSG_RECORD_MAX);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EPIPE) {
			st->overwritten++; /* the ring wrapped past us: note it and go on */
			ga_log(ctx, GA_LOG_INFO, "%s: records were overwritten while reading", name);
			continue;
		}
		if (k < 0 && errno == EAGAIN)
			break;
		if (k < 0) {
			r = ga_err(ctx, -errno, "cannot read %s: %s", name, strerror(errno));
			break;
		}
		if (k == 0)
			break;
		/* the first line is the record; " KEY=value" continuation lines follow */
		const char *nl = memchr(rec, '\n', (size_t)k);
		size_t len = nl ? (size_t)(nl - rec) : (size_t)k;
		st->lines++;
		if (len > GA_KLINE_MAX) {
			len = GA_KLINE_MAX;
			st->truncated++;
		}
		r = fn(udata, rec, len);
		if (r < 0)
			break;
	}
	ga_free(rec);
	return r;
}

int ga_kmsg_read_root(struct ga_ctx *ctx, const char *path, ga_kline_fn fn, void *udata,
                      struct ga_kmsg_stats *st)
{
	struct ga_kmsg_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	int fd = kmsg_open(ctx, path);
	if (fd < 0)
		return ga_err(ctx, fd, "cannot open %s under %s: %s", path, ga_ctx_root(ctx), strerror(-fd));
	struct stat sb;
	int r;
	if (fstat(fd, &sb) < 0)
		r = ga_err(ctx, -errno, "cannot stat %s: %s", path, strerror(errno));
	else if (is_kmsg_dev(&sb))
		r = read_device(ctx, fd, path, fn, udata, st);
	else if (S_ISREG(sb.st_mode))
		r = read_stream(ctx, fd, path, fn, udata, st); /* a captured copy in a tree */
	else
		r = ga_err(ctx, -EINVAL, "%s is neither the kmsg device nor a regular file", path);
	close(fd);
	return r;
}

int ga_kmsg_read_file(struct ga_ctx *ctx, const char *file, ga_kline_fn fn, void *udata,
                      struct ga_kmsg_stats *st)
{
	struct ga_kmsg_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	bool in = !strcmp(file, "-");
	/* O_NONBLOCK: a FIFO named here neither blocks the open nor gets read (stdin streams) */
	int fd = in ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return ga_err(ctx, -errno, "cannot open %s: %s", file, strerror(errno));
	struct stat sb;
	int r;
	if (fstat(fd, &sb) < 0)
		r = ga_err(ctx, -errno, "cannot stat %s: %s", file, strerror(errno));
	else if (S_ISDIR(sb.st_mode))
		r = ga_err(ctx, -EISDIR, "%s is a directory", file);
	else if (is_kmsg_dev(&sb)) {
		/* --kmsg /dev/kmsg: the device itself, read without blocking */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		r = read_device(ctx, fd, file, fn, udata, st);
	} else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode))
		r = ga_err(ctx, -EINVAL, "%s is a device but not the kmsg device", file);
	else if (!in && !S_ISREG(sb.st_mode))
		r = ga_err(ctx, -EINVAL,
		           "%s is a FIFO or socket, not a regular file: refused, it could block forever "
		           "(to stream, pass --kmsg - and redirect it to standard input)",
		           file);
	else
		r = read_stream(ctx, fd, in ? "stdin" : file, fn, udata, st);
	if (!in)
		close(fd);
	return r;
}

int ga_proc_dstate(struct ga_ctx *ctx, char ***ret_names, size_t *ret_n)
{
	char **pids = NULL, **names = NULL;
	size_t n_pids = 0, n = 0;
	int r = ga_fs_list(ctx, "proc", &pids, &n_pids);
	if (r < 0)
		return r;
	names = ga_calloc(1, sizeof(char *));
	if (!names) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_pids; i++) {
		const char *pid = pids[i];
		if (!pid[0] || strspn(pid, "0123456789") != strlen(pid))
			continue;
		char path[64], *stat = NULL;
		snprintf(path, sizeof(path), "proc/%s/stat", pid);
		if (ga_fs_read_attr(ctx, path, &stat) < 0)
			continue; /* gone, or a captured tree without it */
		/* "pid (comm) S ...": comm may hold spaces and parentheses; the last ')' ends it */
		char *open = strchr(stat, '('), *close = strrchr(stat, ')');
		if (open && close && close > open && close[1] == ' ' && close[2] == 'D') {
			char **nv = ga_realloc(names, (n + 2) * sizeof(char *));
			if (!nv) {
				ga_free(stat);
				r = -ENOMEM;
				goto out;
			}
			names = nv;
			names[n] = NULL;
			*close = '\0';
			struct ga_buf b;
			ga_buf_init(&b, 0);
			if (ga_buf_addf(&b, "%s[%s]", open + 1, pid) < 0) {
				ga_buf_release(&b);
				ga_free(stat);
				r = -ENOMEM;
				goto out;
			}
			names[n++] = ga_buf_detach(&b, NULL);
			names[n] = NULL;
		}
		ga_free(stat);
	}
	*ret_names = names;
	*ret_n = n;
	names = NULL;
	r = 0;
out:
	ga_strv_free(names);
	ga_strv_free(pids);
	return r;
}
