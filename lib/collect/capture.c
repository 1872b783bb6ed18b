/*
 * capture.c - `gpuaudit capture OUTDIR`: copy what discover, lstopo and lspci
 * read from a machine (the context's root) into OUTDIR, in one process.
 *
 * Why in C: tools/capture-node, the shell script this replaces, started a
 * process per file and took ~110 s on a 256-CPU tree; this makes one pass
 * with a few syscalls per file. Why so careful: the source is a live /sys and
 * /proc (or a tree someone handed us), so nothing may block or run away:
 *  - every source path is resolved here, component by component inside the
 *    root, with a hop limit; each symlink met is recreated in OUTDIR as a
 *    relative link whose target stays inside OUTDIR (absolute targets and ".."
 *    past the root are re-rooted, like RESOLVE_IN_ROOT does for reads);
 *  - files are opened O_NONBLOCK|O_NOFOLLOW and fstat'ed before any read;
 *    only regular files are read, each to at most max_file_bytes (PCI config
 *    space to 4096); FIFOs, sockets and devices are listed as skipped, and the
 *    /dev nodes discover looks for become empty files;
 *  - attributes whose read has effects or exposes memory (rom, vpd, resourceN,
 *    reset, remove, rescan, bind, ...) are never opened, and DMI serials and
 *    UUIDs are not on the list of DMI names copied;
 *  - OUTDIR is new, or empty, ours and not writable by others. The capture is
 *    written into a private sibling NAME.partial-XXXXXX (0700, made with
 *    mkdirat relative to the parent, opened once) and renamed over NAME only
 *    when complete, with .gpuaudit-capture written first and
 *    .gpuaudit-capture-complete last, so a killed capture never reads as a
 *    machine (issue 29; ga_capture_root_check refuses such a root). Files
 *    are created O_EXCL|O_NOFOLLOW in directories reached with openat2
 *    RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH (an O_NOFOLLOW walk without it), so
 *    a link planted in OUTDIR cannot redirect a write.
 * What is taken is the list below (docs/capture.md says why each part).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/internal.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/strmap.h"
#include "collect.h"
#include "gpuaudit/capture.h"
#include "gpuaudit/capture-read.h"
#include "gpuaudit/fs.h"

#define CAP_PATH 4096
#define CAP_MAX_HOPS 40
#define CAP_CONFIG_BYTES 4096

/* ------------------------------------------------------------ string set */

/* the library's string map (lib/core/strmap.h) used as a set */
#define strset ga_strmap

static bool set_has(const struct strset *s, const char *k)
{
	return ga_strmap_get(s, k, NULL);
}

/* 1 added, 0 already there, -ENOMEM. */
static int set_add(struct strset *s, const char *k)
{
	if (set_has(s, k))
		return 0;
	return ga_strmap_put(s, k, 0, NULL) < 0 ? -ENOMEM : 1;
}

static void set_release(struct strset *s)
{
	ga_strmap_release(s);
}

/* ------------------------------------------------------------ state */

struct cap {
	struct ga_ctx *ctx;
	struct ga_capture_report *rep;
	int out_fd;
	size_t max_bytes, max_listed;
	char *buf;                       /* max_bytes + 1 */
	struct strset out_dirs;          /* directories that exist in OUTDIR */
	struct strset out_done;          /* files and links written to OUTDIR */
	struct strset src_dirs;          /* source prefixes known to be directories (no link) */
	struct strset pci_done;          /* PCI functions captured */
	int err;                         /* first failed OUTDIR write (fatal) */
	char errmsg[2 * CAP_PATH + 256]; /* its message: later reads must not replace it in ctx */
	int dir_fd;                      /* OUTDIR/dir_rel, the last directory written into */
	char dir_rel[CAP_PATH];
};

static void count(struct ga_ou64 *c, uint64_t n)
{
	c->v += n;
	c->set = true;
}

static void skip(struct cap *c, const char *path, const char *reason)
{
	count(&c->rep->skipped_count, 1);
	if (c->rep->n_skipped >= c->max_listed)
		return;
	struct ga_capture_skip *s = ga_array_push((void **)&c->rep->skipped, &c->rep->n_skipped, sizeof(*s));
	if (!s) {
		c->err = -ENOMEM;
		return;
	}
	s->path = ga_strdup(path);
	s->reason = ga_strdup(reason);
	if (!s->path || !s->reason)
		c->err = -ENOMEM;
}

static const char *type_name(mode_t m)
{
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISDIR(m))
		return "is a directory";
	return "not a regular file";
}

/* a/b + c -> "a/b/c" into out (CAP_PATH); false when too long. */
static bool join(char *out, const char *dir, const char *name)
{
	int n = *dir ? snprintf(out, CAP_PATH, "%s/%s", dir, name) : snprintf(out, CAP_PATH, "%s", name);
	return n > 0 && n < CAP_PATH;
}

/* ------------------------------------------------------------ OUTDIR side */

static int out_fail(struct cap *c, int err, const char *what, const char *rel)
{
	if (!c->err) {
		c->err = err;
		snprintf(c->errmsg, sizeof(c->errmsg), "%s/%s: %s: %s", c->rep->outdir, rel, what,
		         strerror(-err));
	}
	return c->err;
}

/* dir (into out, CAP_PATH) and the last component of rel. */
static const char *split_rel(const char *rel, char *dir)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;
	memcpy(dir, rel, n);
	dir[n] = '\0';
	return slash ? slash + 1 : rel;
}

/*
 * A descriptor of directory rel of OUTDIR ("" is OUTDIR), reached with no
 * symlink and no ".." on the way (ga_open_beneath: openat2 RESOLVE_NO_SYMLINKS|
 * RESOLVE_BENEATH, or an O_NOFOLLOW walk), so nothing swapped in under OUTDIR
 * can redirect a write. Cached: files come a directory at a time. fd or -errno.
 */
static int out_dirfd(struct cap *c, const char *rel)
{
	if (!*rel)
		return c->out_fd;
	if (c->dir_fd >= 0 && !strcmp(c->dir_rel, rel))
		return c->dir_fd;
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	c->dir_fd = ga_open_beneath(c->out_fd, rel, O_RDONLY | O_DIRECTORY, 0, 0);
	if (c->dir_fd < 0) {
		int e = c->dir_fd;
		c->dir_fd = -1;
		return e;
	}
	snprintf(c->dir_rel, sizeof(c->dir_rel), "%s", rel);
	return c->dir_fd;
}

/* Make every directory of rel (itself included) in OUTDIR; each prefix checked once. */
static int out_mkdirs(struct cap *c, const char *rel)
{
	if (!*rel || set_has(&c->out_dirs, rel))
		return c->err;
	char p[CAP_PATH], pd[CAP_PATH];
	size_t len = strlen(rel);
	if (len >= CAP_PATH)
		return -ENAMETOOLONG;
	memcpy(p, rel, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char saved = p[i];
		p[i] = '\0';
		if (!set_has(&c->out_dirs, p)) {
			const char *base = split_rel(p, pd);
			int dfd = out_dirfd(c, pd);
			if (dfd < 0)
				return dfd == -ELOOP || dfd == -ENOTDIR ? -ENOTDIR
				                                        : out_fail(c, dfd, "open", pd);
			if (mkdirat(dfd, base, 0755) == 0) {
				count(&c->rep->dirs, 1);
			} else {
				struct stat st;
				if (errno != EEXIST)
					return out_fail(c, -errno, "mkdir", p);
				if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
					return -ENOTDIR; /* a link or file of ours there: not written through */
			}
			if (set_add(&c->out_dirs, p) < 0)
				return c->err = -ENOMEM;
		}
		p[i] = saved;
	}
	return 0;
}

static int parent_mkdirs(struct cap *c, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	if (!slash)
		return c->err;
	char d[CAP_PATH];
	split_rel(rel, d);
	return out_mkdirs(c, d);
}

/* Create OUTDIR/rel with data; 0, 1 when it was there already, or -errno (fatal set). */
static int out_write(struct cap *c, const char *rel, const char *data, size_t len)
{
	if (c->err)
		return c->err;
	if (set_add(&c->out_done, rel) == 0)
		return 1;
	int r = parent_mkdirs(c, rel);
	if (r < 0)
		return r == -ENOTDIR ? 1 : r;
	char dir[CAP_PATH];
	const char *base = split_rel(rel, dir);
	int dfd = out_dirfd(c, dir);
	if (dfd < 0)
		return dfd == -ELOOP || dfd == -ENOTDIR ? 1 : out_fail(c, dfd, "open", dir);
	int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 1 : out_fail(c, -errno, "create", rel);
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = out_fail(c, n < 0 ? -errno : -ENOSPC, "write", rel);
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 && r == 0)
		r = out_fail(c, -errno, "close", rel);
	if (r == 0) {
		if (len)
			count(&c->rep->files, 1);
		else
			count(&c->rep->empty_files, 1);
		count(&c->rep->bytes, len);
	}
	return r;
}

/*
 * Normalise dir + "/" + target (target absolute: from the root) into out,
 * clamping ".." at the root. *clamped tells whether it tried to leave.
 */
static bool norm_target(char *out, const char *dir, const char *target, bool *clamped)
{
	char tmp[2 * CAP_PATH];
	int n = target[0] == '/' ? snprintf(tmp, sizeof(tmp), "%s", target)
	                         : snprintf(tmp, sizeof(tmp), "%s/%s", dir, target);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return false;
	size_t o = 0;
	*clamped = false;
	for (char *p = tmp; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 1 && p[0] == '.') {
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (!o)
				*clamped = true;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + len + 2 >= CAP_PATH)
				return false;
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
	}
	out[o] = '\0';
	return true;
}

/* The relative path from directory dir to dest (both normalised, root-relative). */
static bool rel_path(char *out, const char *dir, const char *dest)
{
	size_t i = 0, common = 0; /* common: length of the shared leading components */
	while (dir[i] && dest[i] && dir[i] == dest[i]) {
		i++;
		if (dir[i] == '/' && (dest[i] == '/' || !dest[i]))
			common = i;
	}
	if (!dir[i] && (dest[i] == '/' || !dest[i]))
		common = i;
	if (!*dir)
		common = 0;
	size_t o = 0;
	const char *rest = dir + common;
	if (*dir) {
		for (const char *p = rest; *p; p++)
			if (*p == '/' || p == rest) {
				if (o + 4 >= CAP_PATH)
					return false;
				memcpy(out + o, "../", 3);
				o += 3;
			}
	}
	const char *d = dest + common;
	while (*d == '/')
		d++;
	size_t dl = strlen(d);
	if (o + dl + 1 >= CAP_PATH)
		return false;
	memcpy(out + o, d, dl + 1);
	o += dl;
	if (!o)
		memcpy(out, ".", 2);
	else if (!dl && o)
		out[o - 1] = '\0'; /* drop the trailing slash of "../" */
	return true;
}

/* Recreate the source link rel -> target in OUTDIR, pointing where it points, inside OUTDIR. */
static void make_link(struct cap *c, const char *rel, const char *target)
{
	if (c->err || set_has(&c->out_done, rel))
		return;
	char dir[CAP_PATH], dest[CAP_PATH], t[CAP_PATH];
	const char *slash = strrchr(rel, '/');
	size_t dn = slash ? (size_t)(slash - rel) : 0;
	memcpy(dir, rel, dn);
	dir[dn] = '\0';
	bool clamped;
	if (!norm_target(dest, dir, target, &clamped) || !rel_path(t, dir, dest)) {
		skip(c, rel, "symlink target too long");
		return;
	}
	if (clamped)
		ga_log(c->ctx, GA_LOG_INFO, "%s: symlink target %s leaves the root: re-rooted", rel, target);
	if (set_add(&c->out_done, rel) < 0 || (dn && out_mkdirs(c, dir) < 0))
		return;
	int dfd = out_dirfd(c, dir);
	if (dfd < 0) {
		if (dfd != -ELOOP && dfd != -ENOTDIR)
			out_fail(c, dfd, "open", dir);
		return;
	}
	if (symlinkat(t, dfd, slash ? slash + 1 : rel) == 0)
		count(&c->rep->links, 1);
	else if (errno != EEXIST)
		out_fail(c, -errno, "symlink", rel);
}

/* ------------------------------------------------------------ source side */

/*
 * Resolve rel inside the root, component by component, recreating every link
 * met; the physical path (no link in it) into phys. *ret_mode: the final
 * component's type (0 when it is the root). 0 or -errno (-ELOOP past the hop
 * limit, -ENOENT).
 */
static int resolve(struct cap *c, const char *rel, char *phys, mode_t *ret_mode)
{
	char todo[2 * CAP_PATH], tmp[2 * CAP_PATH];
	if (snprintf(todo, sizeof(todo), "%s", rel) >= (int)sizeof(todo))
		return -ENAMETOOLONG;
	char *p = todo;
	size_t done = 0;
	phys[0] = '\0';
	mode_t mode = S_IFDIR;
	unsigned hops = 0;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (done > 0 && phys[done - 1] != '/')
				done--;
			if (done > 0)
				done--;
			phys[done] = '\0';
			mode = S_IFDIR;
			p += len;
			continue;
		}
		if (done + len + 2 >= CAP_PATH)
			return -ENAMETOOLONG;
		size_t save = done;
		if (done)
			phys[done++] = '/';
		memcpy(phys + done, p, len);
		done += len;
		phys[done] = '\0';
		p += len;
		if (set_has(&c->src_dirs, phys)) {
			mode = S_IFDIR;
			continue;
		}
		struct stat st;
		int r = ga_fs_lstat(c->ctx, phys, &st);
		if (r < 0)
			return r;
		mode = st.st_mode & S_IFMT;
		if (S_ISDIR(st.st_mode)) {
			if (set_add(&c->src_dirs, phys) < 0)
				return -ENOMEM;
			continue;
		}
		if (!S_ISLNK(st.st_mode)) {
			if (*p && strspn(p, "/") != strlen(p))
				return -ENOTDIR;
			continue;
		}
		if (++hops > CAP_MAX_HOPS)
			return -ELOOP;
		char *target = NULL;
		r = ga_fs_readlink(c->ctx, phys, &target);
		if (r < 0)
			return r;
		make_link(c, phys, target);
		int n = snprintf(tmp, sizeof(tmp), "%s%s", target, p);
		bool abs = target[0] == '/';
		ga_free(target);
		if (n < 0 || (size_t)n >= sizeof(tmp))
			return -ENAMETOOLONG;
		memcpy(todo, tmp, (size_t)n + 1);
		p = todo;
		done = abs ? 0 : save;
		phys[done] = '\0';
		mode = S_IFDIR;
	}
	*ret_mode = done ? mode : 0;
	return 0;
}

static const char *reason_of(int err)
{
	switch (err) {
	case -ELOOP:
		return "symlink loop or more than 40 links";
	case -ENAMETOOLONG:
		return "path too long";
	default:
		return ga_fs_reason(err);
	}
}

/* Keeps only the lines of a file that are wanted (proc/self/status, proc/mounts). */
typedef bool (*line_keep_fn)(const char *line, size_t len);

/*
 * A network device's speed that the driver refuses to say: virtual NICs
 * (veth, bridges, tun, virtio without a set speed) fail the read with EINVAL.
 * That is "no speed", as discover reads it, not a file worth a skipped line.
 */
static bool no_net_speed(const char *rel, int err)
{
	size_t n = strlen(rel);
	return err == EINVAL && n > 6 && !strcmp(rel + n - 6, "/speed") && strstr(rel, "/net/");
}

/* Read the open file fd (path rel) to the cap and write it as OUTDIR/out_rel. */
static void copy_fd(struct cap *c, int fd, const char *rel, const char *out_rel, size_t max,
                    line_keep_fn keep)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		skip(c, rel, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		skip(c, rel, type_name(st.st_mode));
		return;
	}
	size_t len = 0;
	bool more = false;
	while (len <= max) {
		ssize_t n = read(fd, c->buf + len, max + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && no_net_speed(rel, errno))
			return; /* left out, silently: no speed */
		if (n < 0) {
			char why[96];
			snprintf(why, sizeof(why), "read error: %s", strerror(errno));
			skip(c, rel, why);
			return;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		len = max;
		more = true;
	}
	if (keep) {
		size_t o = 0;
		for (size_t i = 0; i < len;) {
			const char *nl = memchr(c->buf + i, '\n', len - i);
			size_t ll = nl ? (size_t)(nl - (c->buf + i)) + 1 : len - i;
			if (keep(c->buf + i, ll)) {
				memmove(c->buf + o, c->buf + i, ll);
				o += ll;
			}
			i += ll;
		}
		len = o;
	}
	if (out_write(c, out_rel, c->buf, len) == 0 && more) {
		count(&c->rep->truncated_count, 1);
		if (c->rep->truncated.n < c->max_listed && ga_strv_push(&c->rep->truncated, rel) < 0)
			c->err = -ENOMEM;
	}
}

/* Copy the regular file at physical rel (under the root) to OUTDIR/out_rel. Missing: quietly nothing. */
static void copy_file_as(struct cap *c, const char *rel, const char *out_rel, size_t max, line_keep_fn keep)
{
	if (c->err || set_has(&c->out_done, out_rel))
		return;
	int fd = ga_fs_open(c->ctx, rel, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		if (fd != -ENOENT && fd != -ENOTDIR)
			skip(c, rel, fd == -ELOOP ? "symlink (not followed)" : reason_of(fd));
		return;
	}
	copy_fd(c, fd, rel, out_rel, max, keep);
	close(fd);
}

/* The same for name in the source directory dfd (whose path is dir). */
static void copy_at(struct cap *c, int dfd, const char *dir, const char *name, size_t max)
{
	char rel[CAP_PATH];
	if (c->err || !join(rel, dir, name) || set_has(&c->out_done, rel))
		return;
	int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			skip(c, rel, errno == ELOOP ? "symlink (not followed)" : reason_of(-errno));
		return;
	}
	copy_fd(c, fd, rel, rel, max, NULL);
	close(fd);
}

/*
 * Capture one path: resolve it (recreating links), copy it when it is a file,
 * create it when it is a directory. The physical path into phys (may be NULL).
 * 0 when it was there.
 */
static int grab(struct cap *c, const char *rel, char *phys)
{
	char p[CAP_PATH];
	mode_t mode = 0;
	if (c->err)
		return c->err;
	int r = resolve(c, rel, p, &mode);
	if (r < 0) {
		if (r != -ENOENT && r != -ENOTDIR)
			skip(c, rel, reason_of(r));
		return r;
	}
	if (S_ISREG(mode))
		copy_file_as(c, p, p, c->max_bytes, NULL);
	else if (S_ISDIR(mode) || !mode)
		out_mkdirs(c, p);
	else {
		skip(c, p, type_name(mode));
		return -EINVAL;
	}
	if (phys)
		memcpy(phys, p, strlen(p) + 1);
	return 0;
}

struct ent {
	char *name;
	unsigned char type; /* DT_* (never DT_UNKNOWN) */
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

static void ents_free(struct ent *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ga_free(v[i].name);
	ga_free(v);
}

/* "N files, M MiB: WHERE" through the context's progress callback (capture's terminal line). */
static void note(struct cap *c, const char *where)
{
	char s[320];
	size_t n = strlen(where);
	snprintf(s, sizeof(s), "%llu files, %llu MiB: %s%s", (unsigned long long)c->rep->files.v,
	         (unsigned long long)(c->rep->bytes.v >> 20), n > 120 ? "..." : "",
	         !n        ? "/"
	         : n > 120 ? where + n - 120
	                   : where);
	ga_progress(c->ctx, s);
}

/* The entries of the physical source directory dir, sorted; *ret_dfd stays open (caller closes). */
static int list_dir(struct cap *c, const char *dir, int *ret_dfd, struct ent **ret, size_t *ret_n)
{
	note(c, dir);
	int fd = ga_fs_open(c->ctx, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		int e = -errno;
		if (dfd >= 0)
			close(dfd);
		close(fd);
		return e;
	}
	struct ent *v = NULL;
	size_t n = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n >= 65536) {
			skip(c, dir, "more than 65536 entries: the rest left out");
			break;
		}
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			t = S_ISDIR(st.st_mode)    ? DT_DIR
			    : S_ISLNK(st.st_mode)  ? DT_LNK
			    : S_ISREG(st.st_mode)  ? DT_REG
			    : S_ISFIFO(st.st_mode) ? DT_FIFO
			    : S_ISSOCK(st.st_mode) ? DT_SOCK
			    : S_ISCHR(st.st_mode)  ? DT_CHR
			                           : DT_BLK;
		}
		struct ent *e = ga_array_push((void **)&v, &n, sizeof(*e));
		if (!e || !(e->name = ga_strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		e->type = t;
	}
	closedir(d);
	if (r < 0) {
		ents_free(v, n);
		close(fd);
		return c->err = r;
	}
	if (n)
		qsort(v, n, sizeof(*v), ent_cmp);
	*ret_dfd = fd;
	*ret = v;
	*ret_n = n;
	return 0;
}

static const char *dtype_name(unsigned char t)
{
	switch (t) {
	case DT_FIFO:
		return "fifo";
	case DT_SOCK:
		return "socket";
	case DT_CHR:
		return "character device";
	case DT_BLK:
		return "block device";
	default:
		return "not a regular file";
	}
}

static bool in_list(const char *name, const char *const *list)
{
	for (; list && *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* Attributes never opened: their read has side effects, dumps device memory or waits on hardware. */
static bool dangerous(const char *name)
{
	static const char *const never[] = { "rom",    "vpd",       "reset",         "reset_method",
		                             "remove", "rescan",    "bind",          "unbind",
		                             "new_id", "remove_id", "error",         "config",
		                             "edid",   "suspend",   "suspend_depth", NULL };
	if (in_list(name, never))
		return true;
	return !strncmp(name, "resource", 8) && name[8] >= '0' && name[8] <= '9';
}

static void take_link_at(struct cap *c, int dfd, const char *rel, const char *name, bool make_target_dir)
{
	char target[CAP_PATH];
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (n < 0) {
		skip(c, rel, reason_of(-errno));
		return;
	}
	target[n] = '\0';
	make_link(c, rel, target);
	if (make_target_dir) {
		char p[CAP_PATH];
		mode_t mode = 0;
		if (resolve(c, rel, p, &mode) == 0 && S_ISDIR(mode))
			out_mkdirs(c, p);
	}
}

/* Named entries of the physical directory dir: files copied, links recreated (their target
 * directory created, not walked). */
static void grab_names(struct cap *c, const char *dir, const char *const *names)
{
	if (c->err)
		return;
	int dfd = ga_fs_open(c->ctx, *dir ? dir : ".", O_PATH | O_DIRECTORY | O_NOFOLLOW);
	if (dfd < 0)
		return;
	out_mkdirs(c, dir);
	for (; *names && !c->err; names++) {
		char rel[CAP_PATH];
		struct stat st;
		if (!join(rel, dir, *names) || fstatat(dfd, *names, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			take_link_at(c, dfd, rel, *names, true);
		else if (S_ISREG(st.st_mode))
			copy_at(c, dfd, dir, *names, c->max_bytes);
		else if (!S_ISDIR(st.st_mode))
			skip(c, rel, type_name(st.st_mode));
	}
	close(dfd);
}

/* Every regular file directly in the physical directory dir but the dangerous ones and skip[]. */
static void grab_files(struct cap *c, const char *dir, const char *const *skipped)
{
	int dfd;
	struct ent *v;
	size_t n;
	if (c->err || list_dir(c, dir, &dfd, &v, &n) < 0)
		return;
	out_mkdirs(c, dir);
	for (size_t i = 0; i < n && !c->err; i++) {
		if (dangerous(v[i].name) || in_list(v[i].name, skipped))
			continue;
		char rel[CAP_PATH];
		if (v[i].type == DT_REG)
			copy_at(c, dfd, dir, v[i].name, c->max_bytes);
		else if (v[i].type != DT_DIR && v[i].type != DT_LNK && join(rel, dir, v[i].name))
			skip(c, rel, dtype_name(v[i].type));
	}
	ents_free(v, n);
	close(dfd);
}

/* A whole physical tree to depth: files copied, links recreated (not followed), dirs walked. */
static void grab_tree(struct cap *c, const char *dir, int depth, const char *const *skipped)
{
	int dfd;
	struct ent *v;
	size_t n;
	if (c->err || depth < 0 || list_dir(c, dir, &dfd, &v, &n) < 0)
		return;
	out_mkdirs(c, dir);
	for (size_t i = 0; i < n && !c->err; i++) {
		char rel[CAP_PATH];
		if (dangerous(v[i].name) || in_list(v[i].name, skipped) || !join(rel, dir, v[i].name))
			continue;
		if (v[i].type == DT_LNK)
			take_link_at(c, dfd, rel, v[i].name, false);
		else if (v[i].type == DT_REG)
			copy_at(c, dfd, dir, v[i].name, c->max_bytes);
		else if (v[i].type == DT_DIR)
			grab_tree(c, rel, depth - 1, skipped);
		else
			skip(c, rel, dtype_name(v[i].type));
	}
	ents_free(v, n);
	close(dfd);
}

/* Resolve dir (links recreated) and grab_files it. */
static void grab_dir_files(struct cap *c, const char *dir, const char *const *skipped)
{
	char p[CAP_PATH];
	if (grab(c, dir, p) == 0)
		grab_files(c, p, skipped);
}

static void grab_dir_names(struct cap *c, const char *dir, const char *const *names)
{
	char p[CAP_PATH];
	if (grab(c, dir, p) == 0)
		grab_names(c, p, names);
}

/* Entries of the physical directory dir whose names start with prefix, as (rel path) strings. */
static void each_entry(struct cap *c, const char *dir, const char *prefix, unsigned types,
                       void (*fn)(struct cap *, const char *rel, const char *name, unsigned char type))
{
	int dfd;
	struct ent *v;
	size_t n;
	char p[CAP_PATH];
	if (c->err || grab(c, dir, p) < 0 || list_dir(c, p, &dfd, &v, &n) < 0)
		return;
	for (size_t i = 0; i < n && !c->err; i++) {
		char rel[CAP_PATH];
		unsigned bit = v[i].type == DT_DIR   ? 1u
		               : v[i].type == DT_LNK ? 2u
		               : v[i].type == DT_REG ? 4u
		                                     : 8u;
		if (!(types & bit) || strncmp(v[i].name, prefix, strlen(prefix)) || !join(rel, p, v[i].name))
			continue;
		fn(c, rel, v[i].name, v[i].type);
	}
	ents_free(v, n);
	close(dfd);
}

#define T_DIR 1u
#define T_LNK 2u
#define T_REG 4u
#define T_ANY 15u

static bool digits_after(const char *name, size_t k)
{
	if (!name[k])
		return false;
	for (const char *p = name + k; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* ------------------------------------------------------------ what is taken */

static const char *const dmi_names[] = {
	"sys_vendor",   "product_name",   "product_version", "product_family", "product_sku", "board_vendor",
	"board_name",   "board_version",  "bios_vendor",     "bios_version",   "bios_date",   "bios_release",
	"chassis_type", "chassis_vendor", "chassis_version", "modalias",       NULL
}; /* no *_serial, product_uuid, *_asset_tag */

static const char *const pci_attrs[] = { "vendor",
	                                 "device",
	                                 "subsystem_vendor",
	                                 "subsystem_device",
	                                 "class",
	                                 "revision",
	                                 "irq",
	                                 "numa_node",
	                                 "local_cpulist",
	                                 "local_cpus",
	                                 "enable",
	                                 "modalias",
	                                 "resource",
	                                 "uevent",
	                                 "driver_override",
	                                 "current_link_speed",
	                                 "max_link_speed",
	                                 "current_link_width",
	                                 "max_link_width",
	                                 "secondary_bus_number",
	                                 "subordinate_bus_number",
	                                 "boot_vga",
	                                 "dma_mask_bits",
	                                 "consistent_dma_mask_bits",
	                                 "d3cold_allowed",
	                                 "broken_parity_status",
	                                 "msi_bus",
	                                 "ari_enabled",
	                                 "power_state",
	                                 "sriov_numvfs",
	                                 "sriov_totalvfs",
	                                 "sriov_drivers_autoprobe",
	                                 "aer_dev_correctable",
	                                 "aer_dev_fatal",
	                                 "aer_dev_nonfatal",
	                                 "aer_rootport_total_err_cor",
	                                 "aer_rootport_total_err_fatal",
	                                 "aer_rootport_total_err_nonfatal",
	                                 "mem_info_vram_total",
	                                 "mem_info_vram_used",
	                                 "mem_info_vis_vram_total",
	                                 "mem_info_vis_vram_used",
	                                 "mem_info_gtt_total",
	                                 "mem_info_gtt_used",
	                                 "product_name",
	                                 "product_number",
	                                 "vbios_version",
	                                 "unique_id",
	                                 "serial_number",
	                                 "gpu_busy_percent",
	                                 "mem_busy_percent",
	                                 "pcie_replay_count",
	                                 "current_compute_partition",
	                                 "available_compute_partition",
	                                 "current_memory_partition",
	                                 "label",
	                                 "index",
	                                 "acpi_index",
	                                 "driver",
	                                 "iommu_group",
	                                 "subsystem",
	                                 "physfn",
	                                 "firmware_node",
	                                 "xgmi_device_id",
	                                 "xgmi_physical_id",
	                                 "xgmi_num_links",
	                                 "xgmi_error",
	                                 NULL };

static void pci_virtfn(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	(void)type;
	const char *slash = strrchr(rel, '/');
	char dir[CAP_PATH];
	size_t dn = (size_t)(slash - rel);
	memcpy(dir, rel, dn);
	dir[dn] = '\0';
	const char *names[] = { name, NULL };
	grab_names(c, dir, names);
}

static void drm_card(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const card_skip[] = { "error", "edid", "uevent", NULL };
	static const char *const links[] = { "device", "subsystem", NULL };
	(void)type;
	if (strchr(name, '-')) /* connectors (card0-DP-1) */
		return;
	if (strncmp(name, "renderD", 7) && !digits_after(name, 4))
		return;
	grab_files(c, rel, card_skip);
	grab_names(c, rel, links);
	char gt[CAP_PATH];
	if (join(gt, rel, "gt") && ga_fs_is_dir(c->ctx, gt)) {
		int dfd;
		struct ent *v;
		size_t n;
		if (list_dir(c, gt, &dfd, &v, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				char g[CAP_PATH];
				if (v[i].type == DT_DIR && !strncmp(v[i].name, "gt", 2) &&
				    join(g, gt, v[i].name))
					grab_files(c, g, NULL);
			}
			ents_free(v, n);
			close(dfd);
		}
	}
}

static void hwmon_dir(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "uevent", NULL };
	(void)type;
	if (digits_after(name, 5))
		grab_files(c, rel, s);
}

static void xgmi_node(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	pci_virtfn(c, rel, name, type);
}

static void xe_freq(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	(void)name;
	(void)type;
	char f[CAP_PATH];
	if (join(f, rel, "freq0") && ga_fs_is_dir(c->ctx, f))
		grab_files(c, f, NULL);
}

static void xe_tile(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "physical_vram_size_bytes", NULL };
	(void)type;
	if (!digits_after(name, 4))
		return;
	grab_names(c, rel, s);
	each_entry(c, rel, "gt", T_DIR, xe_freq);
}

/* One PCI function directory (physical path): attributes, 4 KiB of config space, DRM, hwmon, RAS. */
static void pci_dev(struct cap *c, const char *dev)
{
	if (c->err || set_has(&c->pci_done, dev) || set_add(&c->pci_done, dev) < 0)
		return;
	grab_names(c, dev, pci_attrs);
	int dfd = ga_fs_open(c->ctx, dev, O_PATH | O_DIRECTORY | O_NOFOLLOW);
	if (dfd >= 0) {
		struct stat st;
		/* lspci and hwloc read the header and capability lists; 4096 is PCIe's extended space */
		if (fstatat(dfd, "config", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			copy_at(c, dfd, dev, "config", CAP_CONFIG_BYTES);
		close(dfd);
	}
	each_entry(c, dev, "virtfn", T_LNK, pci_virtfn);
	char sub[CAP_PATH];
	if (join(sub, dev, "drm") && ga_fs_is_dir(c->ctx, sub)) {
		each_entry(c, sub, "card", T_DIR, drm_card);
		each_entry(c, sub, "renderD", T_DIR, drm_card);
	}
	if (join(sub, dev, "hwmon") && ga_fs_is_dir(c->ctx, sub))
		each_entry(c, sub, "hwmon", T_DIR, hwmon_dir);
	if (join(sub, dev, "ras") && ga_fs_is_dir(c->ctx, sub))
		grab_files(c, sub, NULL);
	if (join(sub, dev, "xgmi_hive_info") && ga_fs_is_dir(c->ctx, sub)) {
		static const char *const hive[] = { "xgmi_hive_id", NULL };
		grab_names(c, sub, hive);
		each_entry(c, sub, "node", T_LNK, xgmi_node);
	}
	each_entry(c, dev, "tile", T_DIR, xe_tile);
}

static bool is_bdf(const char *s)
{
	/* DDDD:BB:DD.F (hex, lower case as sysfs writes it) */
	size_t n = strlen(s);
	if (n < 7 || strspn(s, "0123456789abcdef:.") != n)
		return false;
	return s[n - 2] == '.' && s[n - 5] == ':' && s[n - 1] >= '0' && s[n - 1] <= '7';
}

static void pci_function(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	(void)name;
	(void)type;
	char p[CAP_PATH];
	if (grab(c, rel, p) < 0)
		return;
	/* every bridge from sys/devices/pciDDDD:BB down to the function */
	char acc[CAP_PATH];
	size_t len = strlen(p);
	memcpy(acc, p, len + 1);
	for (size_t i = 0; i <= len; i++) {
		if (acc[i] != '/' && acc[i] != '\0')
			continue;
		char saved = acc[i];
		acc[i] = '\0';
		const char *last = strrchr(acc, '/');
		last = last ? last + 1 : acc;
		if (is_bdf(last))
			pci_dev(c, acc);
		else
			out_mkdirs(c, acc);
		acc[i] = saved;
	}
}

static void pci_driver(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	(void)name;
	(void)type;
	out_mkdirs(c, rel);
}

static void pci_slot(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "address", "max_bus_speed", "cur_bus_speed", NULL };
	(void)name;
	(void)type;
	grab_names(c, rel, s);
}

static void net_dev(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const attrs[] = { "speed",   "mtu",      "operstate", "type",      "address",
		                             "carrier", "duplex",   "addr_len",  "ifindex",   "tx_queue_len",
		                             "dev_id",  "dev_port", "device",    "subsystem", NULL };
	(void)name;
	(void)type;
	char p[CAP_PATH], s[CAP_PATH];
	if (grab(c, rel, p) < 0)
		return;
	grab_names(c, p, attrs);
	if (join(s, p, "statistics"))
		grab_dir_files(c, s, NULL);
}

static void ib_port(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const attrs[] = { "state",  "phys_state",     "rate",     "link_layer", "lid",
		                             "sm_lid", "lid_mask_count", "cap_mask", NULL };
	static const char *const ndev[] = { "0", NULL };
	(void)type;
	if (!digits_after(name, 0))
		return;
	char s[CAP_PATH];
	grab_names(c, rel, attrs);
	if (join(s, rel, "counters") && ga_fs_is_dir(c->ctx, s))
		grab_files(c, s, NULL);
	if (join(s, rel, "hw_counters") && ga_fs_is_dir(c->ctx, s))
		grab_files(c, s, NULL);
	if (join(s, rel, "gid_attrs/ndevs") && ga_fs_is_dir(c->ctx, s))
		grab_names(c, s, ndev);
}

static void ib_dev(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const attrs[] = { "hca_type", "fw_ver", "node_guid", "sys_image_guid", "node_type",
		                             "board_id", "hw_rev", "node_desc", "device",         NULL };
	(void)name;
	(void)type;
	char p[CAP_PATH], s[CAP_PATH];
	if (grab(c, rel, p) < 0)
		return;
	grab_names(c, p, attrs);
	if (join(s, p, "ports") && ga_fs_is_dir(c->ctx, s))
		each_entry(c, s, "", T_DIR, ib_port);
}

static void drm_class(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "error", "edid", "uevent", NULL };
	(void)type;
	if (!strncmp(name, "card", 4) && strchr(name, '-'))
		return;
	char p[CAP_PATH], dev[CAP_PATH];
	if (grab(c, rel, p) < 0)
		return;
	if (join(dev, p, "dev") && !set_has(&c->out_done, dev))
		grab_files(c, p, s);
}

/* Block devices, which lstopo places under their PCI controller (no serial, no udev data). */
static void block_dev(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const attrs[] = { "dev", "size", "removable", "ro", "uevent", "device", NULL };
	static const char *const queue[] = { "hw_sector_size", "logical_block_size", "rotational", NULL };
	static const char *const dev[] = { "devtype", "vendor", "model", NULL };
	(void)name;
	(void)type;
	char p[CAP_PATH], s[CAP_PATH];
	if (grab(c, rel, p) < 0)
		return;
	grab_names(c, p, attrs);
	if (join(s, p, "queue") && ga_fs_is_dir(c->ctx, s))
		grab_names(c, s, queue);
	if (join(s, p, "device") && ga_fs_exists(c->ctx, s))
		grab_dir_names(c, s, dev);
}

/* ---- CPU topology, caches, NUMA (what lstopo reads, and discover's CPU collector) ---- */

static void cpu_cache_index(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "uevent", NULL };
	(void)type;
	if (digits_after(name, 5))
		grab_files(c, rel, s);
}

static void cpu_n(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const top[] = { "online", "cpu_capacity", NULL };
	static const char *const midr[] = { "midr_el1", "revidr_el1", NULL };
	static const char *const freq[] = { "base_frequency", "cpuinfo_max_freq", "cpuinfo_min_freq", NULL };
	(void)type;
	if (!digits_after(name, 3))
		return;
	char s[CAP_PATH];
	grab_names(c, rel, top);
	if (join(s, rel, "topology"))
		grab_dir_files(c, s, NULL);
	if (join(s, rel, "cache") && ga_fs_exists(c->ctx, s))
		each_entry(c, s, "index", T_DIR, cpu_cache_index);
	if (join(s, rel, "regs/identification") && ga_fs_exists(c->ctx, s))
		grab_dir_names(c, s, midr);
	if (join(s, rel, "cpufreq") && ga_fs_exists(c->ctx, s))
		grab_dir_names(c, s, freq);
}

static void hugepage_dir(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "nr_hugepages", "free_hugepages", "surplus_hugepages", NULL };
	(void)name;
	(void)type;
	grab_names(c, rel, s);
}

static void node_n(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const s[] = { "cpulist", "cpumap", "distance", "meminfo", NULL };
	(void)type;
	if (!digits_after(name, 4))
		return;
	char p[CAP_PATH];
	grab_names(c, rel, s);
	if (join(p, rel, "hugepages") && ga_fs_is_dir(c->ctx, p))
		each_entry(c, p, "hugepages-", T_DIR, hugepage_dir);
	for (int k = 0; k < 2; k++) {
		char a[CAP_PATH];
		snprintf(a, sizeof(a), "%s/access%d/initiators", rel, k);
		if (ga_fs_is_dir(c->ctx, a))
			grab_files(c, a, NULL);
	}
}

static void take_cpu_numa(struct cap *c)
{
	static const char *const cpu[] = { "online",   "offline",    "possible",  "present",
		                           "isolated", "kernel_max", "nohz_full", NULL };
	static const char *const smt[] = { "active", "control", NULL };
	static const char *const node[] = { "online",     "possible",          "has_cpu",
		                            "has_memory", "has_normal_memory", "has_generic_initiator",
		                            NULL };
	static const char *const cpus[] = { "cpus", NULL };
	char p[CAP_PATH];
	if (grab(c, "sys/devices/system/cpu", p) == 0) {
		grab_names(c, p, cpu);
		each_entry(c, p, "cpu", T_DIR, cpu_n);
	}
	if (ga_fs_exists(c->ctx, "sys/devices/system/cpu/smt"))
		grab_dir_names(c, "sys/devices/system/cpu/smt", smt);
	if (ga_fs_exists(c->ctx, "sys/devices/cpu_core"))
		grab_dir_names(c, "sys/devices/cpu_core", cpus);
	if (ga_fs_exists(c->ctx, "sys/devices/cpu_atom"))
		grab_dir_names(c, "sys/devices/cpu_atom", cpus);
	if (ga_fs_exists(c->ctx, "sys/devices/cpu_lowpower"))
		grab_dir_names(c, "sys/devices/cpu_lowpower", cpus);
	if (grab(c, "sys/devices/system/node", p) == 0) {
		grab_names(c, p, node);
		each_entry(c, p, "node", T_DIR, node_n);
	}
	if (ga_fs_exists(c->ctx, "sys/kernel/mm/hugepages"))
		each_entry(c, "sys/kernel/mm/hugepages", "hugepages-", T_DIR, hugepage_dir);
}

/* ---- this process's CPU set: proc/self/status lines, its cgroup's cpuset ---- */

static bool keep_allowed(const char *l, size_t n)
{
	(void)n;
	return !strncmp(l, "Cpus_allowed", 12) || !strncmp(l, "Mems_allowed", 12);
}

static bool keep_cgroup_mount(const char *l, size_t n)
{
	/* "DEV MOUNTPOINT FSTYPE ...": hwloc finds the cpuset hierarchy from these */
	const char *sp = memchr(l, ' ', n);
	sp = sp ? memchr(sp + 1, ' ', n - (size_t)(sp + 1 - l)) : NULL;
	return sp && (!strncmp(sp + 1, "cgroup ", 7) || !strncmp(sp + 1, "cgroup2 ", 8));
}

static bool safe_cgroup_path(const char *p, size_t n)
{
	if (!n || p[0] != '/' || n >= 1024)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '.' && (i == 0 || p[i - 1] == '/') &&
		    (i + 1 == n || p[i + 1] == '/' || p[i + 1] == '.'))
			return false;
	return true;
}

/* The cpuset files of the cgroup at path (under hierarchy dir base) and of each ancestor. */
static void cgroup_cpuset(struct cap *c, const char *base, const char *path, size_t len)
{
	static const char *const v2[] = { "cpuset.cpus.effective",
		                          "cpuset.cpus",
		                          "cpuset.mems.effective",
		                          "cpuset.mems",
		                          "cpuset.cpus.isolated",
		                          "cgroup.controllers",
		                          NULL };
	static const char *const v1[] = { "cpuset.cpus", "cpuset.effective_cpus", "cpuset.mems",
		                          "cpuset.effective_mems", NULL };
	char p[CAP_PATH];
	if (!safe_cgroup_path(path, len))
		return;
	while (len > 0 && path[len - 1] == '/')
		len--;
	for (;;) {
		int n = snprintf(p, sizeof(p), "%s%.*s", base, (int)len, path);
		if (n > 0 && n < (int)sizeof(p) && ga_fs_is_dir(c->ctx, p))
			grab_dir_names(c, p, strstr(base, "/cpuset") ? v1 : v2);
		if (!len)
			break;
		while (len > 0 && path[len - 1] != '/')
			len--;
		while (len > 0 && path[len - 1] == '/')
			len--;
	}
}

static void take_self(struct cap *c)
{
	/* proc/self is a link to this process: written as a directory, so the tree names no pid */
	copy_file_as(c, "proc/self/status", "proc/self/status", c->max_bytes, keep_allowed);
	copy_file_as(c, "proc/self/cgroup", "proc/self/cgroup", c->max_bytes, NULL);
	copy_file_as(c, "proc/self/cpuset", "proc/self/cpuset", c->max_bytes, NULL);
	copy_file_as(c, "proc/self/mounts", "proc/mounts", c->max_bytes, keep_cgroup_mount);
	if (!set_has(&c->out_done, "proc/mounts"))
		copy_file_as(c, "proc/mounts", "proc/mounts", c->max_bytes, keep_cgroup_mount);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(c->ctx, "proc/self/cgroup", 65536, &b) == 0 && b.data) {
		/* "0::/path" (v2) or "N:cpuset:/path" (v1) */
		for (char *l = b.data; *l;) {
			char *nl = strchr(l, '\n');
			size_t ll = nl ? (size_t)(nl - l) : strlen(l);
			char *c1 = memchr(l, ':', ll);
			char *c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - l)) : NULL;
			if (c2) {
				const char *path = c2 + 1;
				size_t plen = ll - (size_t)(path - l);
				size_t clen = (size_t)(c2 - c1 - 1);
				if (c1 - l == 1 && l[0] == '0' && clen == 0) {
					cgroup_cpuset(c, "sys/fs/cgroup", path, plen);
					cgroup_cpuset(c, "sys/fs/cgroup/unified", path, plen);
				} else if (clen >= 6 && memmem(c1 + 1, clen, "cpuset", 6)) {
					cgroup_cpuset(c, "sys/fs/cgroup/cpuset", path, plen);
				}
			}
			l += ll + (nl ? 1 : 0);
		}
	}
	ga_buf_release(&b);
}

/* ---- modules, NVIDIA procfs, fabric manager, /dev, libraries ---- */

static void take_modules(struct cap *c)
{
	static const char *const fixed[] = { "nvidia",     "nvidia_uvm",     "nvidia_modeset",
		                             "nvidia_drm", "nvidia_peermem", "nvidia_fs",
		                             "amdgpu",     "amdkfd",         "i915",
		                             "xe",         "mlx5_core",      "mlx5_ib",
		                             "ib_core",    "habanalabs",     NULL };
	static const char *const attrs[] = { "version", "initstate", "refcnt", "taint", "srcversion", NULL };
	if (!ga_fs_is_dir(c->ctx, "sys/module"))
		return;
	out_mkdirs(c, "sys/module");
	char p[CAP_PATH];
	for (const char *const *m = fixed; *m; m++)
		if (join(p, "sys/module", *m) && ga_fs_is_dir(c->ctx, p))
			grab_names(c, p, attrs);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(c->ctx, "proc/modules", c->max_bytes, &b) == 0 && b.data) {
		for (char *l = b.data; *l;) {
			size_t n = strcspn(l, " \n");
			char name[128];
			if (n && n < sizeof(name) &&
			    strspn(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") >=
			            n) {
				memcpy(name, l, n);
				name[n] = '\0';
				if (join(p, "sys/module", name) && ga_fs_is_dir(c->ctx, p))
					grab_names(c, p, attrs);
			}
			char *nl = strchr(l, '\n');
			if (!nl)
				break;
			l = nl + 1;
		}
	}
	ga_buf_release(&b);
}

static void dev_node(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const exact[] = {
		"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "nvidia-nvlink", "kfd", NULL
	};
	(void)type;
	bool take = in_list(name, exact) || (!strncmp(name, "nvidia", 6) && digits_after(name, 6)) ||
	            !strncmp(name, "nvidia-nvswitch", 15) || !strncmp(rel, "dev/nvidia-caps/", 16) ||
	            (!strncmp(rel, "dev/dri/", 8) &&
	             (digits_after(name, 4) ? !strncmp(name, "card", 4) : !strncmp(name, "renderD", 7)));
	if (take)
		out_write(c, rel, "", 0); /* the node itself is never opened */
}

static void take_dev(struct cap *c)
{
	if (ga_fs_is_dir(c->ctx, "dev"))
		each_entry(c, "dev", "", T_ANY & ~T_DIR, dev_node);
	if (ga_fs_is_dir(c->ctx, "dev/nvidia-caps"))
		each_entry(c, "dev/nvidia-caps", "", T_ANY & ~T_DIR, dev_node);
	if (ga_fs_is_dir(c->ctx, "dev/dri"))
		each_entry(c, "dev/dri", "", T_ANY & ~T_DIR, dev_node);
}

static void runtime_lib(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	static const char *const libs[] = { "libcuda.so",      "libnvidia-ml.so", "libamdhip64.so",
		                            "libze_loader.so", "libOpenCL.so",    NULL };
	bool want = false;
	for (const char *const *l = libs; *l && !want; l++)
		want = !strncmp(name, *l, strlen(*l));
	if (!want)
		return;
	if (type == DT_LNK) {
		char t[CAP_PATH];
		ssize_t n = -1;
		int fd = ga_fs_open(c->ctx, rel, O_PATH | O_NOFOLLOW);
		if (fd >= 0) {
			n = readlinkat(fd, "", t, sizeof(t) - 1);
			close(fd);
		}
		if (n >= 0) {
			t[n] = '\0';
			make_link(c, rel, t);
		}
	} else if (type == DT_REG) {
		out_write(c, rel, "", 0); /* discover reads the version from the name, not the file */
	}
}

/*
 * The C and C++ runtimes, whole (up to what host.c reads): discover takes the node's glibc and
 * libstdc++ versions from their version definitions, which can sit anywhere in the file.
 */
static void take_libc(struct cap *c)
{
	static const char *const libs[] = { "libc.so.6", "libstdc++.so.6" };
	for (size_t l = 0; l < GA_ARRAY_SIZE(libs); l++) {
		for (size_t i = 0; ga_collect_libc_dirs[i] && !c->err; i++) {
			char rel[CAP_PATH], p[CAP_PATH];
			mode_t mode = 0;
			if (!join(rel, ga_collect_libc_dirs[i], libs[l]) || resolve(c, rel, p, &mode) < 0)
				continue;
			if (S_ISREG(mode) && !set_has(&c->out_done, p)) {
				/* bigger than the per-file buffer: read into its own, bounded as host.c reads */
				struct ga_buf b;
				ga_buf_init(&b, 0);
				int r = ga_fs_read(c->ctx, p, GA_COLLECT_LIBC_MAX_BYTES, &b);
				if (r == 0)
					out_write(c, p, b.data, b.len);
				else
					skip(c, p, reason_of(r));
				ga_buf_release(&b);
			}
			break; /* the first directory that has it is the loader's, as in host.c */
		}
	}
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void take_libs(struct cap *c)
{
	static const char *const defaults[] = { "/lib",
		                                "/lib64",
		                                "/usr/lib",
		                                "/usr/lib64",
		                                "/lib/x86_64-linux-gnu",
		                                "/usr/lib/x86_64-linux-gnu",
		                                "/lib/aarch64-linux-gnu",
		                                "/usr/lib/aarch64-linux-gnu",
		                                "/usr/local/lib",
		                                "/opt/rocm/lib",
		                                "/opt/rocm/lib64",
		                                NULL };
	struct strset dirs = { 0 };
	struct ga_buf conf;
	ga_buf_init(&conf, 0);
	grab(c, "etc/ld.so.conf", NULL);
	(void)ga_fs_read(c->ctx, "etc/ld.so.conf", c->max_bytes, &conf);
	int dfd;
	struct ent *v = NULL;
	size_t n = 0;
	char p[CAP_PATH];
	if (grab(c, "etc/ld.so.conf.d", p) == 0 && list_dir(c, p, &dfd, &v, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(v[i].name);
			char rel[CAP_PATH];
			if (l > 5 && !strcmp(v[i].name + l - 5, ".conf") &&
			    join(rel, "etc/ld.so.conf.d", v[i].name)) {
				grab(c, rel, NULL);
				ga_buf_addc(&conf, '\n');
				(void)ga_fs_read(c->ctx, rel, c->max_bytes, &conf);
			}
		}
		ents_free(v, n);
		close(dfd);
	}
	for (char *tok = conf.data; tok && *tok;) {
		size_t l = strcspn(tok, " \t\n:,#");
		if (tok[0] == '#') {
			tok += strcspn(tok, "\n");
			continue;
		}
		if (l && tok[0] == '/' && l < 1024) {
			char d[1024];
			memcpy(d, tok, l);
			d[l] = '\0';
			if (!strchr(d, '*') && !strstr(d, ".."))
				set_add(&dirs, d);
		}
		tok += l;
		tok += strspn(tok, " \t\n:,");
	}
	for (const char *const *d = defaults; *d; d++)
		set_add(&dirs, *d);
	/* in a fixed order: the defaults' table order after the configured ones sorted */
	char **all = ga_calloc(dirs.n + 1, sizeof(*all));
	size_t k = 0;
	for (size_t i = 0; all && i < dirs.cap; i++)
		if (dirs.keys[i])
			all[k++] = dirs.keys[i];
	if (all && k)
		qsort(all, k, sizeof(*all), strcmp_ptr);
	for (size_t i = 0; all && i < k && !c->err; i++) {
		mode_t mode;
		if (resolve(c, all[i] + 1, p, &mode) == 0 && S_ISDIR(mode)) {
			out_mkdirs(c, p);
			each_entry(c, p, "lib", T_REG | T_LNK, runtime_lib);
		}
	}
	ga_free(all);
	set_release(&dirs);
	ga_buf_release(&conf);
	take_libc(c);
}

static void take_fabric_manager(struct cap *c)
{
	static const char *const units[] = { "lib/systemd/system/nvidia-fabricmanager.service",
		                             "usr/lib/systemd/system/nvidia-fabricmanager.service",
		                             "etc/systemd/system/nvidia-fabricmanager.service", NULL };
	static const char *const pids[] = { "run/nvidia-fabricmanager/nv-fabricmanager.pid",
		                            "var/run/nvidia-fabricmanager/nv-fabricmanager.pid",
		                            "run/nvidia-fabricmanager/nvlsm.pid",
		                            "var/run/nvidia-fabricmanager/nvlsm.pid", NULL };
	for (const char *const *u = units; *u; u++)
		if (ga_fs_exists(c->ctx, *u))
			grab(c, *u, NULL);
	const char *w = "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service";
	char *t = NULL;
	if (ga_fs_readlink(c->ctx, w, &t) == 0) {
		char p[CAP_PATH];
		mode_t mode;
		if (resolve(c, "etc/systemd/system/multi-user.target.wants", p, &mode) == 0) {
			out_mkdirs(c, p);
			make_link(c, w, t);
		}
	}
	ga_free(t);
	for (const char *const *f = pids; *f; f++) {
		char *pid = NULL;
		if (!ga_fs_exists(c->ctx, *f) || grab(c, *f, NULL) < 0 ||
		    ga_fs_read_attr(c->ctx, *f, &pid) < 0)
			continue;
		char comm[64];
		if (*pid && strspn(pid, "0123456789") == strlen(pid) && strlen(pid) < 16) {
			snprintf(comm, sizeof(comm), "proc/%s/comm", pid);
			copy_file_as(c, comm, comm, 4096, NULL);
		}
		ga_free(pid);
	}
}

/* ---- the container layer: toolkits, engines, CDI, device plugins, device access ---- */

/*
 * Mark an absolute path that a configuration names (a runtime binary, a CDI
 * spec's device node or library): discover asks only whether it exists, so
 * it is written as an empty file (a directory stays a directory, links are
 * recreated); its content is never read.
 */
static void mark_path(struct cap *c, const char *abs_path)
{
	char p[CAP_PATH];
	mode_t mode = 0;
	if (c->err || resolve(c, abs_path + 1, p, &mode) < 0 || !*p)
		return;
	if (S_ISDIR(mode))
		out_mkdirs(c, p);
	else
		out_write(c, p, "", 0);
}

/* Every "/abs/path" token in text (YAML, JSON, TOML alike), at most 4096 of them. */
static void mark_paths_in(struct cap *c, const char *text)
{
	size_t n = 0;
	for (const char *t = text; t && *t && n < 4096; t++) {
		if (*t != '/' ||
		    (t > text && (t[-1] == '/' || t[-1] == '.' || (t[-1] >= 'a' && t[-1] <= 'z') ||
		                  (t[-1] >= 'A' && t[-1] <= 'Z') || (t[-1] >= '0' && t[-1] <= '9'))))
			continue;
		size_t l = strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-/:@");
		if (l > 1 && l < 1024) {
			char path[1024];
			memcpy(path, t, l);
			path[l] = '\0';
			if (!strstr(path, "/../") && !strstr(path, "//")) {
				mark_path(c, path);
				n++;
			}
		}
		t += l ? l - 1 : 0;
	}
}

/* Copy a text file and mark the paths it names. */
static void grab_config(struct cap *c, const char *rel)
{
	if (!ga_fs_exists(c->ctx, rel) || grab(c, rel, NULL) < 0)
		return;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(c->ctx, rel, c->max_bytes, &b) == 0)
		mark_paths_in(c, b.data);
	ga_buf_release(&b);
}

static void config_dir_file(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	(void)type;
	if (name[0] != '.')
		grab_config(c, rel);
}

/* The dpkg status stanzas of the container packages only (the file is megabytes). */
static void take_dpkg(struct cap *c)
{
	static const char *const pkgs[] = { "nvidia-container-toolkit",  "nvidia-container-toolkit-base",
		                            "libnvidia-container-tools", "libnvidia-container1",
		                            "amd-container-toolkit",     NULL };
	struct ga_buf b, o;
	ga_buf_init(&b, 0);
	ga_buf_init(&o, 0);
	if (ga_fs_read(c->ctx, "var/lib/dpkg/status", 64u << 20, &b) == 0 && b.data) {
		for (const char *st = b.data; *st;) {
			const char *end = strstr(st, "\n\n");
			size_t len = end ? (size_t)(end - st) + 2 : strlen(st);
			for (const char *const *p = pkgs; *p; p++) {
				size_t pl = strlen(*p);
				if (len > 9 + pl && !strncmp(st, "Package: ", 9) &&
				    !strncmp(st + 9, *p, pl) && st[9 + pl] == '\n') {
					ga_buf_add(&o, st, len);
					break;
				}
			}
			st += len;
		}
		char d[CAP_PATH], p[CAP_PATH];
		mode_t mode;
		if (resolve(c, "var/lib/dpkg", d, &mode) == 0 && S_ISDIR(mode) && join(p, d, "status"))
			out_write(c, p, o.data ? o.data : "", o.len);
	}
	ga_buf_release(&b);
	ga_buf_release(&o);
}

/* /etc/passwd and /etc/group reduced to "name:x:id:" for the owners of the device nodes taken. */
static void take_ids(struct cap *c, const char *rel, const uint64_t *ids, size_t n, bool group)
{
	struct ga_buf b, o;
	ga_buf_init(&b, 0);
	ga_buf_init(&o, 0);
	if (ga_fs_read(c->ctx, rel, c->max_bytes, &b) == 0 && b.data) {
		for (char *l = b.data; *l;) {
			char *nl = strchr(l, '\n');
			size_t ll = nl ? (size_t)(nl - l) : strlen(l);
			char *c1 = memchr(l, ':', ll);
			char *c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - l)) : NULL;
			if (c2) {
				unsigned long long id = strtoull(c2 + 1, NULL, 10);
				for (size_t i = 0; i < n; i++)
					if (ids[i] == id) {
						ga_buf_addf(&o, "%.*s:x:%llu:%s\n", (int)(c1 - l), l, id,
						            group ? "" : "0:::");
						break;
					}
			}
			l += ll + (nl ? 1 : 0);
		}
		char d[CAP_PATH], p[CAP_PATH];
		mode_t mode;
		const char *slash = strrchr(rel, '/');
		char dir[64];
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
		if (resolve(c, dir, d, &mode) == 0 && join(p, d, slash + 1))
			out_write(c, p, o.data ? o.data : "", o.len);
	}
	ga_buf_release(&b);
	ga_buf_release(&o);
}

/*
 * /dev/kfd and /dev/dri/renderD* become empty files: their mode and owner go
 * into dev/.fixture-perms, the sidecar discover reads for such markers, and
 * their owners' names into the reduced passwd and group.
 */
static void take_dev_perms(struct cap *c)
{
	struct ga_buf o;
	ga_buf_init(&o, 0);
	uint64_t uids[64], gids[64];
	size_t n = 0;
	if (ga_fs_exists(c->ctx, "dev/.fixture-perms")) { /* a fixture being re-captured: its sidecar */
		grab(c, "dev/.fixture-perms", NULL);
		if (ga_fs_read(c->ctx, "dev/.fixture-perms", 65536, &o) == 0 && o.data)
			for (char *l = o.data; *l && n < 64;) {
				char path[256], mode[16];
				unsigned long long u, g;
				if (sscanf(l, "%255s %15s %llu %llu", path, mode, &u, &g) == 4) {
					uids[n] = u;
					gids[n++] = g;
				}
				char *nl = strchr(l, '\n');
				if (!nl)
					break;
				l = nl + 1;
			}
		if (n) {
			take_ids(c, "etc/passwd", uids, n, false);
			take_ids(c, "etc/group", gids, n, true);
		}
		ga_buf_release(&o);
		return;
	}
	char **names = NULL;
	const char *paths[66] = { "dev/kfd" };
	char store[64][300];
	size_t np = 1;
	if (ga_fs_list(c->ctx, "dev/dri", &names, NULL) == 0)
		for (char **p = names; *p && np < 65; p++)
			if (!strncmp(*p, "renderD", 7) && strlen(*p) < 200) {
				snprintf(store[np - 1], sizeof(store[0]), "dev/dri/%s", *p);
				paths[np] = store[np - 1];
				np++;
			}
	ga_strv_free(names);
	for (size_t i = 0; i < np && n < 64; i++) {
		struct stat st;
		if (ga_fs_lstat(c->ctx, paths[i], &st) < 0 || !S_ISCHR(st.st_mode))
			continue;
		ga_buf_addf(&o, "/%s %04o %llu %llu\n", paths[i], (unsigned)(st.st_mode & 07777),
		            (unsigned long long)st.st_uid, (unsigned long long)st.st_gid);
		uids[n] = st.st_uid;
		gids[n] = st.st_gid;
		n++;
	}
	if (n) {
		out_write(c, "dev/.fixture-perms", o.data, o.len);
		take_ids(c, "etc/passwd", uids, n, false);
		take_ids(c, "etc/group", gids, n, true);
	}
	ga_buf_release(&o);
}

static void dp_entry(struct cap *c, const char *rel, const char *name, unsigned char type)
{
	if (!strcmp(name, "kubelet_internal_checkpoint") && type == DT_REG)
		grab(c, rel, NULL);
	else if (type != DT_DIR)
		out_write(c, rel, "", 0); /* sockets: discover lists their names only */
}

static void take_container(struct cap *c)
{
	static const char *const bin_dirs[] = { "usr/bin", "usr/local/bin", "usr/sbin",
		                                "bin",     "sbin",          "usr/local/nvidia/toolkit",
		                                NULL };
	static const char *const bins[] = { "nvidia-container-runtime",
		                            "nvidia-container-cli",
		                            "nvidia-ctk",
		                            "nvidia-container-runtime-hook",
		                            "nvidia-container-toolkit",
		                            "nvidia-cdi-hook",
		                            "nvidia-container-runtime.cdi",
		                            "nvidia-container-runtime.legacy",
		                            "amd-container-runtime",
		                            "amd-ctk",
		                            "containerd",
		                            "dockerd",
		                            "crio",
		                            "runc",
		                            "crun",
		                            "runsc",
		                            "youki",
		                            "kata-runtime",
		                            NULL };
	static const char *const configs[] = { "etc/nvidia-container-runtime/config.toml",
		                               "etc/containerd/config.toml",
		                               "var/lib/rancher/rke2/agent/etc/containerd/config.toml",
		                               "var/lib/rancher/k3s/agent/etc/containerd/config.toml",
		                               "etc/docker/daemon.json",
		                               "etc/crio/crio.conf",
		                               NULL };
	static const char *const conf_dirs[] = { "etc/containerd/conf.d", "etc/containerd/config.d",
		                                 "etc/crio/crio.conf.d",  "etc/cdi",
		                                 "var/run/cdi",           NULL };
	for (const char *const *d = bin_dirs; *d && !c->err; d++)
		for (const char *const *b = bins; *b; b++) {
			char rel[CAP_PATH];
			if (join(rel, *d, *b) && ga_fs_exists(c->ctx, rel)) {
				char abs[CAP_PATH + 1];
				snprintf(abs, sizeof(abs), "/%s", rel);
				mark_path(c, abs);
			}
		}
	take_dpkg(c);
	for (const char *const *f = configs; *f; f++)
		grab_config(c, *f);
	for (const char *const *d = conf_dirs; *d; d++)
		if (ga_fs_is_dir(c->ctx, *d))
			each_entry(c, *d, "", T_REG | T_LNK, config_dir_file);
	if (ga_fs_is_dir(c->ctx, "var/lib/kubelet/device-plugins"))
		each_entry(c, "var/lib/kubelet/device-plugins", "", T_ANY, dp_entry);
	if (ga_fs_exists(c->ctx, "var/run/secrets/kubernetes.io")) {
		char p[CAP_PATH];
		mode_t mode;
		if (resolve(c, "var/run/secrets/kubernetes.io", p, &mode) == 0)
			out_mkdirs(c, p); /* its presence says "in a pod"; the token is never read */
	}
	take_dev_perms(c);
}

/* ---- the list, in order ---- */

static void take_identity(struct cap *c)
{
	static const char *const files[] = { "proc/version",
		                             "proc/cmdline",
		                             "proc/uptime",
		                             "proc/cpuinfo",
		                             "proc/meminfo",
		                             "proc/modules",
		                             "proc/devices",
		                             "proc/1/cgroup",
		                             "proc/sys/kernel/hostname",
		                             "proc/sys/kernel/osrelease",
		                             "proc/sys/kernel/version",
		                             "proc/sys/kernel/random/boot_id",
		                             "etc/os-release",
		                             "usr/lib/os-release",
		                             "etc/hostname",
		                             "etc/dgx-release",
		                             "opt/rocm/.info/version",
		                             "opt/rocm/.info/version-dev",
		                             NULL };
	static const char *const markers[] = { ".dockerenv", "run/.containerenv", NULL };
	for (const char *const *f = files; *f && !c->err; f++)
		grab(c, *f, NULL);
	for (const char *const *m = markers; *m; m++)
		if (ga_fs_exists(c->ctx, *m))
			out_write(c, *m, "", 0); /* only its presence counts */
	char p[CAP_PATH];
	if (grab(c, "sys/class/dmi/id", p) == 0)
		grab_names(c, p, dmi_names);
	if (ga_fs_is_dir(c->ctx, "sys/devices/virtual/dmi/id"))
		grab_dir_names(c, "sys/devices/virtual/dmi/id", dmi_names);
}

static void take_devices(struct cap *c)
{
	static const char *const nvproc[] = { "proc/driver/nvidia", "proc/driver/nvidia-nvswitch",
		                              "proc/driver/nvidia-caps", "proc/driver/nvidia-uvm", NULL };
	static const char *const vendors[] = { "etc/OpenCL/vendors", NULL };
	char p[CAP_PATH];
	if (ga_fs_is_dir(c->ctx, "sys/bus/pci/devices"))
		each_entry(c, "sys/bus/pci/devices", "", T_LNK | T_DIR, pci_function);
	if (ga_fs_is_dir(c->ctx, "sys/bus/pci/drivers"))
		each_entry(c, "sys/bus/pci/drivers", "", T_DIR, pci_driver);
	if (ga_fs_is_dir(c->ctx, "sys/bus/pci/slots"))
		each_entry(c, "sys/bus/pci/slots", "", T_DIR, pci_slot);
	if (ga_fs_is_dir(c->ctx, "sys/class/net"))
		each_entry(c, "sys/class/net", "", T_LNK | T_DIR, net_dev);
	if (ga_fs_is_dir(c->ctx, "sys/class/block"))
		each_entry(c, "sys/class/block", "", T_LNK, block_dev);
	if (ga_fs_is_dir(c->ctx, "sys/class/infiniband"))
		each_entry(c, "sys/class/infiniband", "", T_LNK | T_DIR, ib_dev);
	if (ga_fs_is_dir(c->ctx, "sys/class/drm")) {
		grab(c, "sys/class/drm/version", NULL);
		each_entry(c, "sys/class/drm", "", T_LNK, drm_class);
	}
	if (ga_fs_exists(c->ctx, "sys/class/kfd/kfd/topology") &&
	    grab(c, "sys/class/kfd/kfd/topology", p) == 0)
		grab_tree(c, p, 4, NULL);
	take_modules(c);
	for (const char *const *d = nvproc; *d; d++)
		if (ga_fs_is_dir(c->ctx, *d) && grab(c, *d, p) == 0)
			grab_tree(c, p, 6, NULL); /* capabilities/gpuN/mig/giN/ciN/access */
	take_dev(c);
	for (const char *const *d = vendors; *d; d++)
		if (ga_fs_is_dir(c->ctx, *d) && grab(c, *d, p) == 0)
			grab_files(c, p, NULL);
	take_libs(c);
	take_fabric_manager(c);
	take_container(c);
}

/*
 * Where the capture goes: OUTDIR's parent, opened once (created first, parents
 * too), OUTDIR's name in it, and the private sibling "NAME.partial-XXXXXX"
 * (mode 0700, created with mkdirat relative to the parent) that is filled and
 * renamed over NAME only once complete. Every later name is relative to these
 * descriptors, so nothing done to the paths meanwhile redirects a write.
 */
struct outdir {
	int parent_fd;
	char name[NAME_MAX + 1];
	char partial[NAME_MAX + 1];
	bool made; /* partial created: removed on failure */
};

/* Is directory fd empty? 1, 0, or -errno. */
static int dir_empty(int fd)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		int e = -errno;
		if (dfd >= 0)
			close(dfd);
		return e;
	}
	struct dirent *de;
	bool empty = true;
	while (empty && (de = readdir(d)) != NULL)
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

/* rm -r of NAME in dirfd, never following a link (our own partial capture). */
static void remove_tree(int pfd, const char *name, int depth)
{
	if (unlinkat(pfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 64)
		return;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_tree(dirfd(d), de->d_name, depth + 1);
	closedir(d);
	unlinkat(pfd, name, AT_REMOVEDIR);
}

/*
 * OUTDIR: new (its parents created), or an empty directory of ours no one else
 * can write (replaced by the rename at the end). The partial directory is
 * made and opened (*ret_fd) with no symlink followed.
 */
static int open_outdir(struct ga_ctx *ctx, const char *out, struct outdir *od, int *ret_fd)
{
	char p[CAP_PATH];
	if (snprintf(p, sizeof(p), "%s", out) >= (int)sizeof(p))
		return ga_err(ctx, -ENAMETOOLONG, "%s: path too long", out);
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	char *slash = strrchr(p, '/');
	const char *name = slash ? slash + 1 : p;
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) + 16 > NAME_MAX)
		return ga_err(ctx, -EINVAL, "%s: name a new directory (its last component is not usable)",
		              out);
	/* checked above: the name and the partial suffix fit NAME_MAX */
	const int name_max = NAME_MAX - 16;
	snprintf(od->name, sizeof(od->name), "%.*s", name_max, name);
	const char *parent = ".";
	if (slash == p) {
		parent = "/";
	} else if (slash) {
		*slash = '\0';
		parent = p;
		for (char *s = p + 1; *s; s++) { /* the parents, as the user named them */
			if (*s != '/')
				continue;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return ga_err(ctx, -errno, "cannot create %s: %s", p, strerror(errno));
			*s = '/';
		}
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return ga_err(ctx, -errno, "cannot create %s: %s", p, strerror(errno));
	}
	od->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (od->parent_fd < 0)
		return ga_err(ctx, -errno, "%s: %s", parent, strerror(errno));
	struct stat st;
	if (fstatat(od->parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISDIR(st.st_mode))
			return ga_err(ctx, -ENOTDIR, "%s exists and is not a directory", out);
		if (st.st_uid != geteuid() || (st.st_mode & 022))
			return ga_err(ctx, -EPERM,
			              "%s is not yours or is writable by group or others; refusing (use a "
			              "new directory)",
			              out);
		int fd = ga_open_beneath(od->parent_fd, name, O_RDONLY | O_DIRECTORY, 0, 0);
		int e = fd < 0 ? fd : dir_empty(fd);
		if (fd >= 0)
			close(fd);
		if (e < 0)
			return ga_err(ctx, e, "%s: %s", out, strerror(-e));
		if (!e)
			return ga_err(ctx, -ENOTEMPTY, "%s exists and is not empty; refusing to overwrite",
			              out);
	} else if (errno != ENOENT) {
		return ga_err(ctx, -errno, "%s: %s", out, strerror(errno));
	}
	for (unsigned i = 0; !od->made; i++) {
		char sfx[7];
		ga_rand_suffix(sfx, i);
		snprintf(od->partial, sizeof(od->partial), "%.*s%s%s", name_max, name, GA_CAPTURE_PARTIAL,
		         sfx);
		if (mkdirat(od->parent_fd, od->partial, 0700) == 0)
			od->made = true;
		else if (errno != EEXIST || i >= 64)
			return ga_err(ctx, -errno, "cannot create %s%s: %s", out, GA_CAPTURE_PARTIAL,
			              strerror(errno));
	}
	int fd = ga_open_beneath(od->parent_fd, od->partial, O_RDONLY | O_DIRECTORY, 0, 0);
	if (fd < 0)
		return ga_err(ctx, fd, "%s: %s", od->partial, strerror(-fd));
	*ret_fd = fd;
	return 0;
}

/* The marker files' text: what wrote them. */
static int write_marker(struct cap *c, const char *name, const char *state)
{
	char text[256];
	int n = snprintf(text, sizeof(text), "schema %s\nversion %s\nstate %s\n", GA_CAPTURE_SCHEMA,
	                 GA_VERSION, state);
	int r = out_write(c, name, text, (size_t)n);
	return r == 1 ? out_fail(c, -EEXIST, "create", name) : r;
}

/* Complete: the marker last, then the directory made readable and renamed into place. */
static int finish_outdir(struct cap *c, struct outdir *od)
{
	int r = write_marker(c, GA_CAPTURE_COMPLETE, "complete");
	if (r < 0)
		return r;
	if (fsync(c->out_fd) < 0 || fchmod(c->out_fd, 0755) < 0)
		return out_fail(c, -errno, "finish", ".");
	/* the name must still be our directory: one swapped in by whoever can write the parent is not renamed */
	struct stat mine, there;
	if (fstat(c->out_fd, &mine) < 0 ||
	    fstatat(od->parent_fd, od->partial, &there, AT_SYMLINK_NOFOLLOW) < 0 ||
	    mine.st_ino != there.st_ino || mine.st_dev != there.st_dev) {
		snprintf(c->errmsg, sizeof(c->errmsg),
		         "%s: the partial directory %s was replaced while the capture ran; refusing to "
		         "rename it into place",
		         c->rep->outdir, od->partial);
		od->made = false; /* not ours any more: left alone */
		return c->err = -EXDEV;
	}
	if (renameat(od->parent_fd, od->partial, od->parent_fd, od->name) < 0) {
		int e = -errno;
		snprintf(c->errmsg, sizeof(c->errmsg), "cannot rename the finished capture into %s: %s",
		         c->rep->outdir, strerror(-e));
		return c->err = e;
	}
	od->made = false;
	(void)fsync(od->parent_fd);
	return 0;
}

/* realpath of out, which need not exist yet: its nearest existing ancestor resolved, the rest appended. */
static char *abs_of(const char *out)
{
	char p[CAP_PATH];
	if (snprintf(p, sizeof(p), "%s", out) >= (int)sizeof(p))
		return NULL;
	size_t len = strlen(p);
	for (;;) {
		char *r = realpath(len ? p : ".", NULL);
		if (r) {
			struct ga_buf b;
			ga_buf_init(&b, 0);
			int e = ga_buf_adds(&b, r);
			if (e == 0 && out[len])
				e = ga_buf_addf(&b, "%s%s", out[len] == '/' ? "" : "/", out + len);
			free(r);
			char *s = e == 0 ? ga_buf_detach(&b, NULL) : NULL;
			ga_buf_release(&b);
			return s;
		}
		if (errno != ENOENT || !len)
			return NULL;
		while (len > 0 && p[len - 1] == '/')
			len--;
		while (len > 0 && p[len - 1] != '/')
			len--;
		p[len] = '\0';
	}
}

/* OUTDIR inside the source root would be read back while it is written: refused before it is made. */
static int check_not_inside(struct ga_ctx *ctx, const char *out)
{
	char *real = abs_of(out), *root = realpath(ctx->root ? ctx->root : "/", NULL);
	int r = 0;
	if (real && root && strcmp(root, "/")) {
		size_t n = strlen(root);
		if (!strncmp(real, root, n) && (real[n] == '/' || !real[n]))
			r = ga_err(ctx, -EINVAL, "OUTDIR %s must not be inside the source root %s", out,
			           ctx->root);
	}
	ga_free(real);
	free(root);
	return r;
}

int ga_capture(struct ga_ctx *ctx, const struct ga_capture_opts *o, struct ga_capture_report *rep)
{
	struct cap c = { .ctx = ctx, .rep = rep, .out_fd = -1, .dir_fd = -1 };
	struct outdir od = { .parent_fd = -1 };
	int r = 0;
	rep->schema = ga_strdup(GA_CAPTURE_SCHEMA);
	rep->root = ga_strdup(ctx->root ? ctx->root : "/");
	rep->outdir = ga_strdup(o->outdir);
	if (!rep->schema || !rep->root || !rep->outdir) {
		r = -ENOMEM;
		goto out;
	}
	GA_SET(rep->files, 0);
	GA_SET(rep->empty_files, 0);
	GA_SET(rep->links, 0);
	GA_SET(rep->dirs, 0);
	GA_SET(rep->bytes, 0);
	GA_SET(rep->skipped_count, 0);
	GA_SET(rep->truncated_count, 0);
	c.max_bytes = o->max_file_bytes ? o->max_file_bytes : GA_CAPTURE_MAX_FILE_BYTES;
	c.max_listed = o->max_listed ? o->max_listed : 1000;
	r = check_not_inside(ctx, o->outdir);
	if (r < 0)
		goto out;
	r = open_outdir(ctx, o->outdir, &od, &c.out_fd);
	if (r < 0)
		goto out;
	c.buf = ga_malloc(c.max_bytes + 1);
	if (!c.buf) {
		r = -ENOMEM;
		goto out;
	}
	/* first: a directory with this and without the completion marker is a cut capture */
	write_marker(&c, GA_CAPTURE_META, "incomplete until " GA_CAPTURE_COMPLETE " exists");
	note(&c, "identity");
	take_identity(&c);
	note(&c, "CPUs and NUMA");
	take_cpu_numa(&c);
	take_self(&c);
	note(&c, "devices");
	take_devices(&c);
	if (!c.err)
		finish_outdir(&c, &od);
	r = c.err;
	if (r == -ENOMEM)
		ga_err(ctx, r, "out of memory");
	else if (r < 0) /* the first failure (a full disk), not what later reads said */
		ga_err(ctx, r, "%s (nothing was left at %s)", c.errmsg, o->outdir);
out:
	if (c.dir_fd >= 0)
		close(c.dir_fd);
	if (c.out_fd >= 0)
		close(c.out_fd);
	if (od.made)
		remove_tree(od.parent_fd, od.partial, 0);
	if (od.parent_fd >= 0)
		close(od.parent_fd);
	ga_free(c.buf);
	set_release(&c.out_dirs);
	set_release(&c.out_done);
	set_release(&c.src_dirs);
	set_release(&c.pci_done);
	return r;
}

/* Does root's last component look like "NAME.partial-XXXXXX"? */
static bool partial_name(const char *root)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	size_t k = strlen(GA_CAPTURE_PARTIAL);
	if (n < k + 7)
		return false;
	const char *t = root + n - 6 - k;
	if (strncmp(t, GA_CAPTURE_PARTIAL, k))
		return false;
	for (size_t i = 0; i < 6; i++)
		if (!t[k + i] || !strchr("abcdefghijklmnopqrstuvwxyz0123456789", t[k + i]))
			return false;
	return t[-1] != '/';
}

int ga_capture_root_check(struct ga_ctx *ctx)
{
	if (!ctx->root)
		return 0;
	bool meta = ga_fs_exists(ctx, GA_CAPTURE_META), done = ga_fs_exists(ctx, GA_CAPTURE_COMPLETE);
	if ((meta || partial_name(ctx->root)) && !done)
		return ga_err(ctx, -EBADMSG,
		              "incomplete capture: %s has no %s (capture was interrupted; capture again)",
		              ctx->root, GA_CAPTURE_COMPLETE);
	/* killed between its last file and the rename: whole, but never published under its name */
	if (partial_name(ctx->root))
		return ga_err(
		        ctx, -EBADMSG,
		        "incomplete capture: %s is a capture's private directory that was never renamed "
		        "into place (capture was interrupted at its end; capture again)",
		        ctx->root);
	return 0;
}

void ga_capture_report_release(struct ga_capture_report *rep)
{
	if (rep)
		ga_schema_release(&ga_capture_report_schema, rep);
}
