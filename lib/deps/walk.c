/*
 * walk.c - the artifact walk: files and directories on disk (mmapped, never
 * read through a pipe), and the dispatch of every file or archive member to
 * the ELF inspector, the metadata parsers or the archive reader.
 *
 * Directories are walked recursively in name order; symbolic links are
 * recorded (the loader simulation resolves sonames through them) but a
 * symlinked directory is followed only when it is the argument itself.
 * FIFOs, sockets and devices are skipped after lstat, and regular files are
 * opened O_NONBLOCK|O_NOFOLLOW and checked again with fstat, so a file swapped
 * for a FIFO cannot block the scan. What cannot be read becomes a gap.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/internal.h"
#include "walk_int.h"

#define MAX_DIR_DEPTH 256
#define SMALL_FILE_BYTES (1u << 20)
/* a regular file of the walk: never a link, never blocking on a FIFO swapped in */
#define REG_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)

static int add_ldconf(struct deps_scan *s, size_t tree, const char *tp, const uint8_t *buf, size_t len)
{
	struct ga_deps_tree *t = &s->inv->trees[tree];
	bool icd = ga_deps_icd_path(tp); /* ICD files are kept the same way, in their own list */
	struct ga_deps_ldconf **v = icd ? &t->icds : &t->ldconf;
	size_t *nv = icd ? &t->n_icds : &t->n_ldconf;
	for (size_t i = 0; i < *nv; i++)
		if (!strcmp((*v)[i].path, tp))
			return 0; /* an upper layer's copy came first */
	char *p = ga_strdup(tp), *text = ga_strndup((const char *)buf, len);
	struct ga_deps_ldconf *c = p && text ? ga_array_push((void **)v, nv, sizeof(*c)) : NULL;
	if (!c) {
		ga_free(p);
		ga_free(text);
		return -ENOMEM;
	}
	*c = (struct ga_deps_ldconf){ p, text };
	return 0;
}

static char *dir_of(const char *tp)
{
	const char *s = strrchr(tp, '/');
	return s ? ga_strndup(tp, (size_t)(s - tp)) : ga_strdup("");
}

static struct ga_deps_pkg *pkg_for_meta(struct ga_deps_inventory *inv, size_t tree, const char *meta_dir,
                                        const char *kind)
{
	for (size_t i = 0; i < inv->n_pkgs; i++)
		if (inv->pkgs[i].tree == tree && !strcmp(inv->pkgs[i].meta_dir, meta_dir))
			return &inv->pkgs[i];
	char *md = ga_strdup(meta_dir), *k = ga_strdup(kind);
	struct ga_deps_pkg *p = md && k ? ga_array_push((void **)&inv->pkgs, &inv->n_pkgs, sizeof(*p)) : NULL;
	if (!p) {
		ga_free(md);
		ga_free(k);
		return NULL;
	}
	p->meta_dir = md;
	p->kind = k;
	p->tree = tree;
	return p;
}

static int scan_meta(struct deps_scan *s, size_t tree, const char *shown, const char *tp, const uint8_t *buf,
                     size_t len)
{
	struct ga_deps_inventory *inv = s->inv;
	const char *b = ga_deps_base_name(tp);
	bool dist = ga_deps_parent_is(tp, ".dist-info");
	char *meta_dir = dist ? dir_of(tp) : ga_strdup(tp);
	if (!meta_dir)
		return -ENOMEM;
	int r = 0;
	struct ga_deps_pkg *p = pkg_for_meta(inv, tree, meta_dir, dist ? "python" : "conda");
	if (!p) {
		r = -ENOMEM;
		goto out;
	}
	if (!p->tree_dir) {
		/* dist-info: files are relative to its parent (site-packages); conda-meta: to the prefix */
		char *d = dir_of(meta_dir);
		if (!d) {
			r = -ENOMEM;
			goto out;
		}
		if (!dist && !strcmp(tp, "info/index.json")) {
			ga_free(d);
			d = ga_strdup("");
			p->owns_tree = true;
		} else if (!dist) {
			char *dd = dir_of(d); /* conda-meta's parent */
			ga_free(d);
			d = dd;
		}
		p->tree_dir = d;
		if (!p->tree_dir) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (!strcmp(b, "RECORD"))
		r = ga_pymeta_parse_record((const char *)buf, len, p);
	else if (dist) {
		r = ga_pymeta_parse_metadata((const char *)buf, len, p);
		if (r == 0 && !p->meta_path && !(p->meta_path = ga_strdup(shown)))
			r = -ENOMEM;
	} else {
		r = ga_pymeta_parse_conda((const char *)buf, len, p);
		if (r == 0 && !p->meta_path && !(p->meta_path = ga_strdup(shown)))
			r = -ENOMEM;
	}
	if (r == -EINVAL) {
		r = ga_deps_add_gap(inv, shown, "metadata not understood");
	}
out:
	ga_free(meta_dir);
	return r;
}

/*
 * dpkg's file list of one package (var/lib/dpkg/info/NAME[:ARCH].list, one
 * absolute path a line): the files the package owns, attached to the package
 * its status stanza describes (the key scan_deb gives it, whichever of the
 * two is read first). The first copy wins (an upper layer's).
 */
static int scan_dpkg_list(struct deps_scan *s, size_t tree, const char *tp, const uint8_t *buf, size_t len)
{
	long root = ga_deps_dpkg_root_len(tp); /* the files are relative to the database's root */
	const char *b = ga_deps_base_name(tp);
	size_t n = strlen(b) - 5, colon = strcspn(b, ":");
	if (colon < n)
		n = colon; /* "libc6:amd64" is libc6 */
	struct ga_buf key;
	ga_buf_init(&key, 0);
	int r = 0;
	struct ga_deps_pkg *p = NULL;
	if (ga_buf_addf(&key, "%.*s%svar/lib/dpkg/status#%.*s", (int)root, tp, root ? "/" : "", (int)n, b) <
	            0 ||
	    !(p = pkg_for_meta(s->inv, tree, key.data, "deb"))) {
		r = -ENOMEM;
		goto out;
	}
	if (p->files.n)
		goto out; /* an upper layer's list came first */
	if (!p->name && !(p->name = ga_strndup(b, n))) {
		r = -ENOMEM;
		goto out;
	}
	if (!p->tree_dir && !(p->tree_dir = ga_strndup(tp, (size_t)root))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < len && r == 0;) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		size_t a = i;
		while (a < e && buf[a] == '/')
			a++;
		if (e > a && !(e - a == 1 && buf[a] == '.')) {
			char *line = ga_strndup((const char *)buf + a, e - a);
			r = line ? ga_strv_push(&p->files, line) : -ENOMEM;
			ga_free(line);
		}
		i = e + 1;
	}
out:
	ga_buf_release(&key);
	return r < 0 ? -ENOMEM : 0;
}

/*
 * A .deb's control file (the package owns its tree), dpkg's status (one
 * package per installed stanza) or one of dpkg's file lists (the files of the
 * package of that name: scan_dpkg_list).
 */
static int scan_deb(struct deps_scan *s, size_t tree, const char *shown, const char *tp, const uint8_t *buf,
                    size_t len)
{
	if (ga_deps_dpkg_list_path(tp))
		return scan_dpkg_list(s, tree, tp, buf, len);
	bool status = strcmp(tp, "control") != 0;
	if (!status && strcmp(s->inv->trees[tree].kind, "deb"))
		return 0; /* a file named control elsewhere */
	size_t off = 0, bad = 0;
	int r = 0;
	struct ga_buf key;
	ga_buf_init(&key, 0);
	while (off < len && r == 0) {
		struct ga_deps_pkg tmp = { 0 };
		size_t used = 0;
		bool installed = true;
		r = ga_pymeta_parse_deb_control((const char *)buf + off, len - off, &tmp, &used, &installed);
		off += used ? used : len - off;
		if (r == 1 || r == -EINVAL || (r == 0 && !installed)) {
			bad += r == -EINVAL;
			r = r == 1 ? 1 : 0;
			ga_deps_pkg_release(&tmp);
			continue;
		}
		if (r < 0) {
			ga_deps_pkg_release(&tmp);
			break;
		}
		ga_buf_reset(&key);
		struct ga_deps_pkg *p = NULL;
		if (ga_buf_addf(&key, status ? "%s#%s" : "%s", tp, tmp.name) < 0 ||
		    !(p = pkg_for_meta(s->inv, tree, key.data, "deb"))) {
			ga_deps_pkg_release(&tmp);
			r = -ENOMEM;
			break;
		}
		if (!p->meta_path) { /* the first copy wins (an upper layer's); a file list may have named it */
			ga_free(p->name);
			ga_free(p->tree_dir);
			p->name = tmp.name;
			p->version = tmp.version;
			p->requires = tmp.requires;
			tmp.name = tmp.version = NULL;
			tmp.requires = (struct ga_strv){ 0 };
			p->owns_tree = !status;
			/* one status file, many packages: "…/status#NAME" names each (findings group by it) */
			ga_buf_reset(&key);
			if (!(p->tree_dir = ga_strndup(tp, status ? (size_t)ga_deps_dpkg_root_len(tp) : 0)) ||
			    ga_buf_addf(&key, status ? "%s#%s" : "%s", shown, p->name) < 0 ||
			    !(p->meta_path = ga_strdup(key.data)))
				r = -ENOMEM;
		}
		ga_deps_pkg_release(&tmp);
	}
	ga_buf_release(&key);
	if (r >= 0 && bad)
		r = ga_deps_add_gap(s->inv, shown, "metadata not understood (%zu stanzas without Package)",
		                    bad);
	return r < 0 ? r : 0;
}

/*
 * fd >= 0: buf maps that file at offset 0 (the ELF census then reads it in
 * windows through fd, see elfscan.h); elf_map: GA_ELF_BUF_IS_MAP when those
 * windows may come from the mapping itself, 0 for pread into a scratch buffer.
 */
static int scan_buf_at(struct deps_scan *s, int fd, uint64_t base, unsigned elf_map, size_t tree,
                       const char *shown, const char *tp, const uint8_t *buf, size_t len, unsigned depth);

static int scan_buf_fd(struct deps_scan *s, int fd, size_t tree, const char *shown, const char *tp,
                       const uint8_t *buf, size_t len, unsigned depth)
{
	return scan_buf_at(s, fd, 0, fd >= 0 ? GA_ELF_BUF_IS_MAP : 0, tree, shown, tp, buf, len, depth);
}

/*
 * An archive member spooled to a temporary file (archive.c): its census
 * windows are pread, not populated from the mapping. Measured on an 80 MiB
 * member just written (issue 28): the populated windows left its page-cache
 * pages in the process's RSS (74 MiB peak, 2.0 s) where pread kept it at
 * 8.5 MiB (0.66 s). The same for a member stored uncompressed in a zip on
 * disk, read in place at offset base of the zip's fd (archive.c).
 */
static int scan_spooled(struct deps_scan *s, int fd, uint64_t base, size_t tree, const char *shown,
                        const char *tp, const uint8_t *buf, size_t len, unsigned depth)
{
	return scan_buf_at(s, fd, base, 0, tree, shown, tp, buf, len, depth);
}

int ga_deps_scan_buf(struct deps_scan *s, size_t tree, const char *shown, const char *tp, const uint8_t *buf,
                     size_t len, unsigned depth)
{
	return scan_buf_fd(s, -1, tree, shown, tp, buf, len, depth);
}

static int scan_buf_at(struct deps_scan *s, int fd, uint64_t base, unsigned elf_map, size_t tree,
                       const char *shown, const char *tp, const uint8_t *buf, size_t len, unsigned depth)
{
	enum deps_magic m = ga_deps_sniff(buf, len);
	int r;
	if (m == MAGIC_ELF || m == MAGIC_DEVCODE) {
		if (s->o->progress)
			s->o->progress(s->o->progress_udata, s->inv, shown);
		struct ga_elf_info *info = NULL;
		r = m == MAGIC_ELF ? ga_elf_inspect_fd_at(s->ctx, fd, base, buf, len,
		                                          s->o->elf_flags | elf_map, &info)
		                   : ga_devcode_inspect_blob(s->ctx, buf, len, s->o->elf_flags, &info);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return ga_deps_add_gap(s->inv, shown, "%s", ga_ctx_errmsg(s->ctx));
		if (m == MAGIC_DEVCODE && info->n_containers == 0) {
			ga_elf_info_free(info);
			return 0;
		}
		struct ga_deps_file *f = ga_deps_add_file(s, tree, shown, tp, len);
		if (!f) {
			ga_elf_info_free(info);
			return -ENOMEM;
		}
		f->elf = info;
		return info->damage ? ga_deps_add_gap(s->inv, shown, "%s", info->damage) : 0;
	}
	if (m == MAGIC_RPM) {
		if ((r = ga_deps_nest_refused(s, shown, depth + 1)) != 0)
			return r < 0 ? r : 0;
		return ga_deps_rpm_mem(s, shown, buf, len, depth + 1);
	}
	if ((m == MAGIC_ZIP || m == MAGIC_ARCHIVE)) {
		if ((r = ga_deps_nest_refused(s, shown, depth + 1)) != 0)
			return r < 0 ? r : 0;
		return ga_deps_archive_mem(s, shown, tp, buf, len, -1, depth + 1);
	}
	if (ga_deps_is_meta_path(tp)) {
		if (ga_deps_rpmdb_path(tp)) /* a database, not a text: up to the member cap */
			return len > s->o->max_member_bytes
			               ? ga_deps_add_gap(
			                         s->inv, shown,
			                         "rpm database larger than --max-member-bytes: not read")
			               : ga_deps_rpmdb_scan(s, tree, shown, tp, buf, len);
		if (len > GA_DEPS_MAX_META_BYTES)
			return ga_deps_add_gap(s->inv, shown, "metadata file larger than %u bytes: not read",
			                       GA_DEPS_MAX_META_BYTES);
		if (ga_deps_ldconf_path(tp) || ga_deps_icd_path(tp))
			return add_ldconf(s, tree, tp, buf, len);
		if (ga_deps_deb_meta_path(tp))
			return scan_deb(s, tree, shown, tp, buf, len);
		if (ga_deps_npm_path(tp))
			return ga_deps_npm_scan(s, tree, shown, tp, buf, len);
		return scan_meta(s, tree, shown, tp, buf, len);
	}
	return 0;
}

void ga_deps_scan_release(struct deps_scan *s)
{
	for (size_t i = 0; i < DEPS_MEMBER_BUFS; i++)
		ga_deps_membuf_release(&s->member[i]);
	ga_buf_release(&s->small);
}

int ga_deps_scan_buffer(struct ga_ctx *ctx, const struct ga_deps_opts *o, struct ga_deps_inventory *inv,
                        size_t tree, const char *shown_path, const char *tree_path, const uint8_t *buf,
                        size_t len)
{
	struct deps_scan s = {
		.ctx = ctx, .o = o, .inv = inv, .scan_buf = ga_deps_scan_buf, .scan_map = scan_spooled
	};
	int r = ga_deps_scan_buf(&s, tree, shown_path, tree_path, buf, len, 0);
	ga_deps_scan_release(&s);
	return r;
}

/* ---- files and directories on disk ---- */

static int scan_fd(struct deps_scan *s, int fd, size_t tree, const char *shown, const char *tp, uint64_t size)
{
	s->inv->files_seen++;
	s->inv->bytes_seen += size;
	if (size == 0)
		return 0;
	if (size > SIZE_MAX)
		return ga_deps_add_gap(s->inv, shown, "file too large to map");
	/* Peek first: most files are neither ELF, archives nor metadata. */
	uint8_t head[512];
	ssize_t got = pread(fd, head, sizeof(head), 0);
	if (got < 0)
		return ga_deps_add_gap(s->inv, shown, "cannot read: %s", strerror(errno));
	enum deps_magic hm = ga_deps_sniff(head, (size_t)got);
	if ((hm == MAGIC_NONE && !ga_deps_is_meta_path(tp)) ||
	    ga_deps_skip_static_lib(s, head, (size_t)got) ||
	    (s->o->no_archives && (hm == MAGIC_ZIP || hm == MAGIC_ARCHIVE)))
		return 0;
	/*
	 * Small files are read into one reused buffer: mapping each one costs page
	 * faults on a fresh mapping (expensive on a VM) for a file read once.
	 */
	if (size <= SMALL_FILE_BYTES) {
		ga_buf_reset(&s->small);
		if (ga_buf_add(&s->small, head, (size_t)got) < 0)
			return -ENOMEM;
		while (s->small.len < (size_t)size) {
			if (s->small.cap < (size_t)size + 1) {
				char *d = ga_realloc(s->small.data, (size_t)size + 1);
				if (!d)
					return -ENOMEM;
				s->small.data = d;
				s->small.cap = (size_t)size + 1;
			}
			ssize_t k = pread(fd, s->small.data + s->small.len, (size_t)size - s->small.len,
			                  (off_t)s->small.len);
			if (k < 0)
				return ga_deps_add_gap(s->inv, shown, "cannot read: %s", strerror(errno));
			if (k == 0)
				break; /* truncated since fstat: scan what is there */
			s->small.len += (size_t)k;
		}
		return scan_buf_fd(s, -1, tree, shown, tp, (const uint8_t *)s->small.data, s->small.len, 0);
	}
	void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return ga_deps_add_gap(s->inv, shown, "cannot map: %s", strerror(errno));
	s->file_map = map;
	s->file_map_len = (size_t)size;
	int r = scan_buf_fd(s, fd, tree, shown, tp, map, (size_t)size, 0);
	s->file_map = NULL;
	munmap(map, (size_t)size);
	return r;
}

static int open_regular(struct deps_scan *s, int dirfd, const char *name, const char *shown, int *ret_fd,
                        struct stat *st)
{
	int fd = openat(dirfd, name, REG_OPEN_FLAGS);
	if (fd < 0)
		return ga_deps_add_gap(s->inv, shown, "cannot open: %s", strerror(errno)) ?: 1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return 1; /* swapped for something else since lstat: skip silently */
	}
	*ret_fd = fd;
	return 0;
}

/* a directory entry: its name and the type readdir gave (DT_UNKNOWN where the file system gives none) */
struct dent {
	char *name;
	unsigned char type;
};

static int cmp_dent(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name, ((const struct dent *)b)->name);
}

static int join(struct ga_buf *b, const char *a, const char *c)
{
	ga_buf_reset(b);
	if (ga_buf_adds(b, a) < 0)
		return -ENOMEM;
	if (b->len && b->data[b->len - 1] != '/' && ga_buf_addc(b, '/') < 0)
		return -ENOMEM;
	return ga_buf_adds(b, c) < 0 ? -ENOMEM : 0;
}

/*
 * ---- the census of a directory's large shared libraries, on every CPU ----
 *
 * A CUDA library directory is a few dozen files of 10 MB to 1 GB, and the
 * census of each is independent. Before walking a directory, the large
 * shared libraries in it (a name with ".so", at least PAR_MIN_BYTES; sized with
 * one fstatat each, only for such names) are censused by a few threads; the
 * walk then takes each result in its turn, so the inventory, its order and
 * every message are what the one-thread walk gives. A file that a worker
 * could not open, map or recognise is left to the walk, which then reports it
 * as it always did.
 */
#define PAR_MIN_BYTES (4u << 20)
#define PAR_MAX_THREADS 8

struct pre {
	size_t idx; /* into the directory's entries */
	bool done;  /* the census ran: err and info or msg are set */
	int err;
	uint64_t size;
	struct ga_elf_info *info;
	char msg[256];
};

/* a large library's place in the work list: largest first */
struct pre_order {
	uint64_t size;
	size_t i; /* into the candidates */
};

struct pre_job {
	const struct deps_scan *s;
	int dfd;
	const struct dent *names;
	struct pre *v;
	const struct pre_order *order; /* largest first: no thread is left with the largest at the end */
	size_t n;
	atomic_size_t next;
};

static void pre_one(const struct pre_job *j, struct pre *p)
{
	int fd = openat(j->dfd, j->names[p->idx].name, REG_OPEN_FLAGS);
	if (fd < 0)
		return;
	struct stat st;
	uint8_t head[512];
	ssize_t got;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < PAR_MIN_BYTES ||
	    (uint64_t)st.st_size > SIZE_MAX || (got = pread(fd, head, sizeof(head), 0)) < 0 ||
	    ga_deps_sniff(head, (size_t)got) != MAGIC_ELF) {
		close(fd);
		return;
	}
	size_t size = (size_t)st.st_size;
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	struct ga_ctx *ctx = NULL;
	if (map != MAP_FAILED && ga_ctx_new(&ctx) == 0) {
		p->err = ga_elf_inspect_fd(ctx, fd, map, size, j->s->o->elf_flags | GA_ELF_BUF_IS_MAP,
		                           &p->info);
		if (p->err < 0)
			snprintf(p->msg, sizeof(p->msg), "%s", ga_ctx_errmsg(ctx));
		p->size = size;
		p->done = true;
	}
	ga_ctx_free(ctx);
	if (map != MAP_FAILED)
		munmap(map, size);
	close(fd);
}

static void *pre_worker(void *arg)
{
	struct pre_job *j = arg;
	size_t i;
	while ((i = atomic_fetch_add(&j->next, 1)) < j->n)
		pre_one(j, &j->v[j->order[i].i]);
	return NULL;
}

static int cmp_pre_order(const void *a, const void *b)
{
	const struct pre_order *x = a, *y = b;
	return (x->size < y->size) - (x->size > y->size);
}

/* The ctx's thread count (ga_ctx_set_threads; 1: the one-thread walk), else one per online CPU. */
static unsigned par_threads(const struct ga_ctx *ctx)
{
	long n = ctx->threads ? (long)ctx->threads : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (unsigned)n;
}

/* The census of the directory's large libraries, or nothing (*ret_v NULL) when it is not worth it. */
static void pre_census(const struct deps_scan *s, int dfd, const struct dent *names, size_t n,
                       struct pre **ret_v, size_t *ret_n)
{
	*ret_v = NULL;
	*ret_n = 0;
	unsigned threads = par_threads(s->ctx);
	if (threads < 2)
		return;
	struct pre *v = NULL;
	size_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if ((names[i].type != DT_REG && names[i].type != DT_UNKNOWN) ||
		    !strstr(names[i].name, ".so") ||
		    fstatat(dfd, names[i].name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_size < PAR_MIN_BYTES)
			continue;
		struct pre *p = ga_array_push((void **)&v, &nv, sizeof(*p));
		if (!p)
			break; /* out of memory: the walk does the rest */
		memset(p, 0, sizeof(*p));
		p->idx = i;
		p->size = (uint64_t)st.st_size; /* for the order; the census sets what it read */
	}
	struct pre_order *order = nv >= 2 ? ga_malloc(nv * sizeof(*order)) : NULL;
	if (!order) {
		ga_free(v);
		return;
	}
	for (size_t i = 0; i < nv; i++)
		order[i] = (struct pre_order){ v[i].size, i };
	qsort(order, nv, sizeof(*order), cmp_pre_order);
	struct pre_job j = { .s = s, .dfd = dfd, .names = names, .v = v, .order = order, .n = nv };
	atomic_init(&j.next, 0);
	pthread_t tid[PAR_MAX_THREADS];
	unsigned started = 0;
	while (started + 1 < threads && started + 1 < nv &&
	       pthread_create(&tid[started], NULL, pre_worker, &j) == 0)
		started++;
	pre_worker(&j);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	ga_free(order);
	*ret_v = v;
	*ret_n = nv;
}

/* The walk's turn for a file the workers censused: what scan_fd and scan_buf_fd do with their result. */
static int pre_take(struct deps_scan *s, struct pre *p, size_t tree, const char *shown, const char *tp)
{
	s->inv->files_seen++;
	s->inv->bytes_seen += p->size;
	if (s->o->progress)
		s->o->progress(s->o->progress_udata, s->inv, shown);
	if (p->err == -ENOMEM)
		return p->err;
	if (p->err < 0)
		return ga_deps_add_gap(s->inv, shown, "%s", p->msg);
	struct ga_deps_file *f = ga_deps_add_file(s, tree, shown, tp, p->size);
	if (!f)
		return -ENOMEM;
	f->elf = p->info;
	p->info = NULL;
	return f->elf->damage ? ga_deps_add_gap(s->inv, shown, "%s", f->elf->damage) : 0;
}

static int scan_dir(struct deps_scan *s, int dfd, size_t tree, const char *shown, const char *tp,
                    unsigned depth)
{
	int r = 0;
	struct dent *names = NULL;
	size_t n = 0;
	struct pre *pre = NULL;
	size_t n_pre = 0, k_pre = 0;
	struct ga_buf sp, tpp;
	ga_buf_init(&sp, 0);
	ga_buf_init(&tpp, 0);
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return ga_deps_add_gap(s->inv, shown, "cannot list: %s", strerror(errno));
	}
	if (depth > MAX_DIR_DEPTH) {
		r = ga_deps_add_gap(s->inv, shown, "directories nested deeper than %d levels: not walked",
		                    MAX_DIR_DEPTH);
		goto out;
	}
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct dent *slot = ga_array_push((void **)&names, &n, sizeof(*slot));
		if (slot)
			slot->type = e->d_type;
		if (!slot || !(slot->name = ga_strdup(e->d_name))) {
			if (slot)
				n--;
			r = -ENOMEM;
			goto out;
		}
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_dent);
	pre_census(s, dirfd(d), names, n, &pre, &n_pre);
	for (size_t i = 0; i < n && !s->stopped; i++) {
		if (join(&sp, shown, names[i].name) < 0 ||
		    (tp[0] ? join(&tpp, tp, names[i].name) : join(&tpp, "", names[i].name)) < 0) {
			r = -ENOMEM;
			goto out;
		}
		/*
		 * The type from readdir spares an lstat per entry (two thirds of the
		 * system calls of a /usr/lib walk); each path below re-checks it
		 * (O_NOFOLLOW | O_DIRECTORY, fstat after open), so an entry swapped
		 * since readdir is still handled safely.
		 */
		struct stat st = { 0 };
		switch (names[i].type) {
		case DT_LNK:
			st.st_mode = S_IFLNK;
			break;
		case DT_DIR:
			st.st_mode = S_IFDIR;
			break;
		case DT_REG:
			st.st_mode = S_IFREG;
			break;
		case DT_UNKNOWN:
			break;
		default:
			continue; /* FIFOs, sockets, devices: skipped without opening them */
		}
		if (!st.st_mode && fstatat(dirfd(d), names[i].name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if ((r = ga_deps_add_gap(s->inv, sp.data, "cannot stat: %s", strerror(errno))) < 0)
				goto out;
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t k = readlinkat(dirfd(d), names[i].name, target, sizeof(target) - 1);
			target[k < 0 ? 0 : k] = '\0';
			if ((r = ga_deps_add_link(s, tree, sp.data, tpp.data, target)) < 0)
				goto out;
		} else if (S_ISDIR(st.st_mode)) {
			int cfd = openat(dirfd(d), names[i].name,
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0) {
				if ((r = ga_deps_add_gap(s->inv, sp.data, "cannot open directory: %s",
				                         strerror(errno))) < 0)
					goto out;
				continue;
			}
			char *sp_copy = ga_strdup(sp.data), *tp_copy = ga_strdup(tpp.data);
			r = sp_copy && tp_copy ? scan_dir(s, cfd, tree, sp_copy, tp_copy, depth + 1)
			                       : -ENOMEM;
			if (!sp_copy || !tp_copy)
				close(cfd);
			ga_free(sp_copy);
			ga_free(tp_copy);
			if (r < 0)
				goto out;
		} else if (S_ISREG(st.st_mode)) {
			while (k_pre < n_pre && pre[k_pre].idx < i)
				k_pre++;
			if (k_pre < n_pre && pre[k_pre].idx == i && pre[k_pre].done) {
				if ((r = pre_take(s, &pre[k_pre], tree, sp.data, tpp.data)) < 0)
					goto out;
				continue;
			}
			int fd = -1;
			struct stat fst;
			r = open_regular(s, dirfd(d), names[i].name, sp.data, &fd, &fst);
			if (r < 0)
				goto out;
			if (r > 0) {
				r = 0;
				continue;
			}
			r = scan_fd(s, fd, tree, sp.data, tpp.data, (uint64_t)fst.st_size);
			close(fd);
			if (r < 0)
				goto out;
		}
		/* FIFOs, sockets, devices: skipped without opening them */
	}
out:
	for (size_t i = 0; i < n_pre; i++)
		ga_elf_info_free(pre[i].info);
	ga_free(pre);
	for (size_t i = 0; i < n; i++)
		ga_free(names[i].name);
	ga_free(names);
	ga_buf_release(&sp);
	ga_buf_release(&tpp);
	closedir(d);
	return r;
}

static int scan_path(struct deps_scan *sp, const char *path)
{
	struct ga_ctx *ctx = sp->ctx;
	struct ga_deps_inventory *inv = sp->inv;
	struct stat st;
	int r = 0;
	if (stat(path, &st) < 0)
		return ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		char oci[PATH_MAX];
		if ((size_t)snprintf(oci, sizeof(oci), "%s/oci-layout", path) < sizeof(oci) &&
		    access(oci, F_OK) == 0)
			return ga_deps_oci_dir(sp, path, path);
		char *real = realpath(path, NULL);
		if (!real)
			return ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
		int dfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			r = ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
			free(real);
			return r;
		}
		long tree = ga_deps_add_tree(inv, path, "dir");
		/* Tree paths are absolute (without the leading '/'), so system directories line up. */
		r = tree < 0 ? -ENOMEM : scan_dir(sp, dfd, (size_t)tree, path, real + 1, 0);
		if (tree < 0)
			close(dfd);
		free(real);
		return r;
	}
	if (!S_ISREG(st.st_mode))
		return ga_err(ctx, -EINVAL, "%s: not a regular file or directory", path);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
	struct stat fst;
	if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode)) {
		close(fd);
		return ga_err(ctx, -EINVAL, "%s: not a regular file", path);
	}
	uint8_t head[512];
	ssize_t got = pread(fd, head, sizeof(head), 0);
	enum deps_magic m = got > 0 ? ga_deps_sniff(head, (size_t)got) : MAGIC_NONE;
	if (m == MAGIC_ZIP) { /* wheels, .conda, jars: streamed, not mapped */
		inv->files_seen++;
		inv->bytes_seen += (uint64_t)fst.st_size;
		r = ga_deps_archive_fd(sp, fd, path, path, 1);
		close(fd);
		return r;
	}
	if (m == MAGIC_ARCHIVE || m == MAGIC_RPM) {
		inv->files_seen++;
		inv->bytes_seen += (uint64_t)fst.st_size;
		void *map = mmap(NULL, (size_t)fst.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			r = ga_err(ctx, -errno, "%s: cannot map: %s", path, strerror(errno));
			close(fd);
			return r;
		}
		sp->file_map = map;
		sp->file_map_len = (size_t)fst.st_size;
		r = m == MAGIC_RPM ? ga_deps_rpm_mem(sp, path, map, (size_t)fst.st_size, 1)
		                   : ga_deps_archive_mem(sp, path, path, map, (size_t)fst.st_size, -1, 1);
		sp->file_map = NULL;
		munmap(map, (size_t)fst.st_size);
		close(fd);
		return r;
	}
	long tree = ga_deps_add_tree(inv, path, "file");
	if (tree < 0) {
		close(fd);
		return -ENOMEM;
	}
	const char *b = ga_deps_base_name(path);
	r = scan_fd(sp, fd, (size_t)tree, path, b, (uint64_t)fst.st_size);
	close(fd);
	return r;
}

int ga_deps_scan(struct ga_ctx *ctx, const struct ga_deps_opts *o, const char *path,
                 struct ga_deps_inventory *inv)
{
	struct deps_scan s = {
		.ctx = ctx, .o = o, .inv = inv, .scan_buf = ga_deps_scan_buf, .scan_map = scan_spooled
	};
	int r = scan_path(&s, path);
	ga_deps_scan_release(&s);
	inv->paths++;
	if (r < 0 && r != -ENOMEM) {
		/* PATH itself is a gap too, so that every output says what was not read */
		const char *msg = ga_ctx_errmsg(ctx);
		size_t n = strlen(path);
		if (!strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2))
			msg += n + 2;
		inv->paths_unread++;
		if (ga_deps_add_gap(inv, path, "%s", msg) < 0)
			return -ENOMEM;
		inv->gaps[inv->n_gaps - 1].whole_path = true;
	}
	return r;
}
