/*
 * archive.c - archives read through libarchive, never extracted to disk:
 * zip and wheels (ZIP64 included: a zip in memory is read through its central
 * directory), tar plain or gzip/bzip2/xz/zstd compressed, conda packages
 * (.conda: a zip holding info-*.tar.zst and pkg-*.tar.zst; legacy .tar.bz2),
 * Debian .deb (ar holding control.tar.* and data.tar.*), the cpio payload of
 * an .rpm (libarchive's rpm filter; rpm.c reads the header), nested archives, and
 * container images: OCI image layouts (a directory or a tar with oci-layout +
 * index.json) and `docker save` tarballs (manifest.json), the tar plain or
 * compressed, layers plain, gzip or zstd. The image config's Env
 * LD_LIBRARY_PATH is kept for the loader simulation.
 *
 * Image layers are applied in order with whiteouts honoured. The walk visits
 * them top layer first: a path is visible in a lower layer unless an upper
 * layer already provided it (or a parent of it as a non-directory), deleted it
 * (.wh.NAME) or made a parent opaque (.wh..wh..opq). That gives the same
 * result as unpacking bottom-up, without storing any file content.
 *
 * Members are looked at through their first 512 bytes; only ELF files,
 * device-code blobs, metadata files and zips are read whole (a zip needs its
 * central directory; one larger than the memory cap is streamed instead);
 * other nested archives are streamed from the outer one.
 * Zip bombs: what is held in memory at once (a member read whole and the
 * zips around it) is capped (max_member_bytes, 64 MiB by default: the size
 * of the deploy/ memory limits); streamed and skipped members are only
 * counted against the sum over the scan (max_total_bytes). Nesting: every
 * archive walk, whatever its kind, passes one gate (ga_deps_nest_refused)
 * on entry, so recursion is bounded by max_nesting by construction.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dl/archive_dl.h"
#include "../dl/dl.h"
#include "../core/internal.h"
#include "le.h"
#include "walk_int.h"

#define PEEK_BYTES 512
#define STREAM_BLOCK (64 * 1024)
#define IMAGE_JSON_MAX (4u << 20)
#define IMAGE_MAX_LAYERS 512
#define HUGE_PAGE (2u << 20)
#define POPULATE_STEP (8u << 20)
#define MEMBUF_KEEP_BYTES (16u << 20)
/* members (and the zips around them) held in memory up to this; larger ones are spooled */
#define HOLD_BYTES (32u << 20)
#define SPOOL_BLOCK (1u << 20)

int ga_deps_membuf_reserve(struct deps_membuf *m, size_t need)
{
	if (need < SIZE_MAX - HUGE_PAGE && need + 1 <= m->cap)
		return 0;
	if (need >= SIZE_MAX - 2 * HUGE_PAGE)
		return -ENOMEM;
	/* whole huge pages, at least doubling: a member of unknown size grows in few steps */
	size_t cap = (need + 1 + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	if (m->cap && cap < 2 * m->cap && m->cap < SIZE_MAX / 4)
		cap = 2 * m->cap;
	void *p;
	if (m->data)
		p = mremap(m->data, m->cap, cap, MREMAP_MAYMOVE);
	else
		p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* huge pages where the kernel offers them (THP "madvise" mode); a hint: errors ignored */
	(void)madvise((uint8_t *)p + m->cap, cap - m->cap, MADV_HUGEPAGE);
	m->data = p;
	m->cap = cap;
	return 0;
}

/*
 * Populate the buffer up to upto (in whole huge pages) in one call, ahead of
 * the data: faulting 4 KiB at a time while inflating cost more than the
 * inflating on a VM. Step by step as data arrives, never from the header's
 * size alone, so a member whose header lies commits no memory it does not
 * fill. A hint: errors ignored.
 */
static void membuf_populate(struct deps_membuf *m, size_t upto)
{
	if (upto <= m->populated)
		return;
	size_t end = upto > m->cap - HUGE_PAGE ? m->cap : (upto + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	(void)madvise(m->data + m->populated, end - m->populated, MADV_POPULATE_WRITE);
	m->populated = end;
}

void ga_deps_membuf_release(struct deps_membuf *m)
{
	if (m->data)
		munmap(m->data, m->cap);
	*m = (struct deps_membuf){ 0 };
}

struct layer_filter {
	struct ga_strmap hidden;      /* paths provided or deleted by upper layers */
	struct ga_strmap opaque;      /* directories an upper layer made opaque */
	struct ga_strmap pend_hidden; /* this layer's whiteouts: apply below it */
	struct ga_strmap pend_opaque;
};

static void filter_release(struct layer_filter *f)
{
	ga_strmap_release(&f->hidden);
	ga_strmap_release(&f->opaque);
	ga_strmap_release(&f->pend_hidden);
	ga_strmap_release(&f->pend_opaque);
}

static bool filter_hidden(const struct layer_filter *f, const char *p)
{
	if (ga_strmap_get(&f->hidden, p, NULL))
		return true;
	for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		size_t n = (size_t)(s - p);
		if (ga_strmap_get_n(&f->hidden, p, n, NULL) || ga_strmap_get_n(&f->opaque, p, n, NULL))
			return true;
	}
	return false;
}

static int filter_merge(struct layer_filter *f)
{
	for (size_t i = 0; i < f->pend_hidden.cap; i++)
		if (f->pend_hidden.keys[i] && ga_strmap_put(&f->hidden, f->pend_hidden.keys[i], 0, NULL) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < f->pend_opaque.cap; i++)
		if (f->pend_opaque.keys[i] && ga_strmap_put(&f->opaque, f->pend_opaque.keys[i], 0, NULL) < 0)
			return -ENOMEM;
	ga_strmap_release(&f->pend_hidden);
	ga_strmap_release(&f->pend_opaque);
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static struct archive *new_reader(void)
{
	struct archive *a = archive_read_new();
	if (!a)
		return NULL;
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	archive_read_support_format_zip(a);
	archive_read_support_format_ar(a);
	return a;
}

void ga_deps_input_begin(struct deps_scan *s, uint64_t size)
{
	s->in_size = size;
	s->in_inflated = 0;
	s->in_stopped = false;
}

/* The scan, or the input being read, stopped at a bound: read nothing more of it. */
static bool halted(const struct deps_scan *s)
{
	return s->stopped || s->in_stopped;
}

/*
 * Count inflated bytes against the scan's total cap and the input's
 * expansion bound; false once either is exceeded.
 */
static bool charge(struct deps_scan *s, const char *shown, uint64_t n)
{
	s->inv->bytes_inflated += n;
	s->in_inflated += n;
	if (s->inv->bytes_inflated > s->o->max_total_bytes && !s->stopped) {
		s->stopped = true;
		s->inv->truncated = true;
		ga_deps_add_gap(
		        s->inv, shown,
		        "archives inflate to more than %llu bytes in total (--max-total-bytes): scan stopped",
		        (unsigned long long)s->o->max_total_bytes);
	}
	/* past the floor, more than max_ratio bytes out per byte in: a bomb, not a package */
	if (!halted(s) && s->o->max_ratio && s->in_size && s->in_inflated > GA_DEPS_RATIO_FLOOR &&
	    s->in_inflated / s->in_size >= s->o->max_ratio) {
		s->in_stopped = true;
		s->inv->truncated = true;
		ga_deps_add_gap(
		        s->inv, shown,
		        "archive inflates to more than %u times its %llu bytes on disk (--max-ratio): "
		        "rest not read",
		        s->o->max_ratio, (unsigned long long)s->in_size);
	}
	return !halted(s);
}

/* Stream source for an archive nested in another: the peeked head, then the outer member's data. */
struct nest_src {
	struct deps_scan *s;
	struct archive *outer;
	const char *shown;
	const uint8_t *head;
	size_t head_len;
	bool head_done;
	uint64_t read_bytes;
	uint8_t block[STREAM_BLOCK];
};

static la_ssize_t nest_read(struct archive *a, void *cd, const void **ret)
{
	(void)a;
	struct nest_src *n = cd;
	if (!n->head_done) {
		n->head_done = true;
		if (n->head_len) {
			*ret = n->head;
			return (la_ssize_t)n->head_len;
		}
	}
	la_ssize_t got = archive_read_data(n->outer, n->block, sizeof(n->block));
	if (got <= 0)
		return got < 0 ? -1 : 0;
	n->read_bytes += (uint64_t)got;
	if (!charge(n->s, n->shown, (uint64_t)got))
		return -1;
	*ret = n->block;
	return got;
}

static int walk_entries(struct deps_scan *s, struct archive *a, size_t tree, const char *prefix,
                        unsigned depth, struct layer_filter *lf, bool inner_into_tree);

int ga_deps_nest_refused(struct deps_scan *s, const char *shown, unsigned depth)
{
	unsigned cap = s->o->max_nesting < DEPS_NESTING_CEILING ? s->o->max_nesting : DEPS_NESTING_CEILING;
	if (depth <= cap)
		return 0;
	if (cap < DEPS_NESTING_CEILING)
		return ga_deps_add_gap(s->inv, shown,
		                       "archive nested deeper than %u levels: not opened (--max-nesting "
		                       "raises the bound)",
		                       cap)
		               ?: 1;
	return ga_deps_add_gap(s->inv, shown,
	                       "archive nested deeper than %u levels: not opened (the most that is read)",
	                       cap)
	               ?: 1;
}

/*
 * Archive members whose name says they are source, text, images or JVM/Python
 * bytecode are not even peeked at: in a compressed archive the peek inflates
 * the member's start, which for a jar of small classes is the whole jar.
 * Files on disk are always sniffed (a 512-byte pread costs nothing).
 */
static bool boring_member(const char *tp)
{
	static const char *const ext[] = { ".class", ".py",    ".pyc", ".pyi",  ".txt", ".md",         ".rst",
		                           ".html",  ".htm",   ".css", ".js",   ".ts",  ".png",        ".jpg",
		                           ".jpeg",  ".gif",   ".svg", ".ico",  ".xml", ".properties", ".h",
		                           ".hpp",   ".c",     ".cc",  ".cpp",  ".cu",  ".cuh",        ".mo",
		                           ".po",    ".typed", ".csv", ".yaml", ".yml", ".toml",       ".cfg",
		                           ".ini",   ".pem",   ".MF",  ".SF",   NULL };
	const char *dot = strrchr(tp, '.'), *slash = strrchr(tp, '/');
	if (!dot || (slash && dot < slash))
		return false;
	for (size_t i = 0; ext[i]; i++)
		if (!strcmp(dot, ext[i]))
			return true;
	return false;
}

static const char *tree_kind(const char *name, int format)
{
	if (ends_with(name, ".whl"))
		return "wheel";
	if (ends_with(name, ".conda"))
		return "conda";
	if (ends_with(name, ".deb"))
		return "deb";
	if ((format & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP)
		return "zip";
	if ((format & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_AR)
		return "ar";
	return "tar";
}

/*
 * Read the rest of the current member into b (after the head already read):
 * straight into the buffer while it has room (it is sized from the header),
 * through a block when it must grow.
 */
static int read_rest(struct deps_scan *s, struct archive *a, const char *shown, struct ga_buf *b)
{
	uint8_t block[STREAM_BLOCK];
	for (;;) {
		size_t room = b->cap > b->len + 1 ? b->cap - b->len - 1 : 0;
		la_ssize_t got = archive_read_data(a, room ? (void *)(b->data + b->len) : block,
		                                   room ? room : sizeof(block));
		if (got == 0)
			return 0;
		if (got < 0)
			return ga_deps_add_gap(s->inv, shown, "cannot read member: %s",
			                       archive_error_string(a))
			               ?: 1;
		if (!charge(s, shown, (uint64_t)got))
			return 1;
		int r = 0;
		if (room) {
			b->len += (size_t)got;
			b->data[b->len] = '\0';
		} else
			r = ga_buf_add(b, block, (size_t)got);
		if (r == -E2BIG)
			return ga_deps_add_gap(s->inv, shown,
			                       "member inflates to more than %zu bytes: not read", b->max)
			               ?: 1;
		if (r < 0)
			return r;
	}
}

/*
 * Read the rest of the current member into b, straight into the buffer (no
 * intermediate copy), while it fits in room bytes: 0 read whole, 1 not read
 * (gap recorded), 2 longer than room (b holds its first bytes, more than
 * room), <0.
 */
static int read_member(struct deps_scan *s, struct archive *a, const char *shown, struct deps_membuf *b,
                       uint64_t room)
{
	while (b->len <= room) {
		if (b->len + 1 >= b->cap) {
			int r = ga_deps_membuf_reserve(b, b->len + STREAM_BLOCK);
			if (r < 0)
				return r;
		}
		size_t n = b->cap - b->len - 1;
		if (n > POPULATE_STEP)
			n = POPULATE_STEP;
		membuf_populate(b, b->len + n + 1);
		la_ssize_t got = archive_read_data(a, b->data + b->len, n);
		if (got == 0)
			return 0;
		if (got < 0)
			return ga_deps_add_gap(s->inv, shown, "cannot read member: %s",
			                       archive_error_string(a))
			               ?: 1;
		if (!charge(s, shown, (uint64_t)got))
			return 1;
		b->len += (size_t)got;
		b->data[b->len] = '\0';
	}
	return 2;
}

/* A member over its cap (size is what its header says, or what it inflated to so far): gap, 1. */
static int member_over(struct deps_scan *s, const char *shown, bool meta_only, uint64_t size, bool claimed)
{
	if (meta_only)
		return ga_deps_add_gap(s->inv, shown, "metadata file larger than %u bytes: not read",
		                       GA_DEPS_MAX_META_BYTES)
		               ?: 1;
	if (claimed)
		return ga_deps_add_gap(s->inv, shown,
		                       "member is %llu bytes, more than --max-member-bytes %llu: not read",
		                       (unsigned long long)size, (unsigned long long)s->o->max_member_bytes)
		               ?: 1;
	return ga_deps_add_gap(s->inv, shown,
	                       "member inflates to more than %llu bytes (--max-member-bytes): not read",
	                       (unsigned long long)s->o->max_member_bytes)
	               ?: 1;
}

/*
 * An unlinked temporary file in dir: O_TMPFILE, else mkstemp then unlink,
 * else a memfd (memory, not disk: the last resort). The fd, or -errno of the
 * first way tried.
 */
static int spool_open(const char *dir)
{
	int fd, err = 0;
#ifdef O_TMPFILE
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600)) >= 0)
		return fd;
	err = errno;
#endif
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/gpuaudit-member-XXXXXX", dir) < sizeof(path)) {
		if ((fd = mkostemp(path, O_CLOEXEC)) >= 0) {
			(void)unlink(path);
			return fd;
		}
		if (!err)
			err = errno;
	}
	if ((fd = memfd_create("gpuaudit-member", MFD_CLOEXEC)) >= 0)
		return fd;
	return -(err ? err : errno);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * A member too large to hold in memory: its first bytes (already read), then
 * the rest of it streamed to an unlinked temporary file (s->o->spool_dir).
 * Resident memory stays one block whatever the member's size. 0 with *ret_fd
 * and *ret_len, 1 not read (gap recorded), <0.
 */
static int spool_member(struct deps_scan *s, struct archive *a, const char *shown, const uint8_t *first,
                        size_t first_len, int *ret_fd, uint64_t *ret_len)
{
	const char *dir = s->o->spool_dir && s->o->spool_dir[0] ? s->o->spool_dir : "/tmp";
	int fd = spool_open(dir);
	if (fd < 0)
		return ga_deps_add_gap(s->inv, shown,
		                       "member too large to hold in memory and no temporary file in %s: %s "
		                       "(set TMPDIR to a writable directory)",
		                       dir, strerror(-fd))
		               ?: 1;
	uint8_t *block = ga_malloc(SPOOL_BLOCK);
	uint64_t len = first_len;
	int r = 0, werr = block ? write_all(fd, first, first_len) : 0;
	if (!block)
		r = -ENOMEM;
	while (r == 0 && werr == 0) {
		la_ssize_t got = archive_read_data(a, block, SPOOL_BLOCK);
		if (got == 0)
			break;
		if (got < 0) {
			r = ga_deps_add_gap(s->inv, shown, "cannot read member: %s", archive_error_string(a))
			            ?: 1;
			break;
		}
		if (!charge(s, shown, (uint64_t)got)) {
			r = 1;
			break;
		}
		if ((len += (uint64_t)got) > s->o->max_member_bytes) {
			r = member_over(s, shown, false, len, false);
			break;
		}
		werr = write_all(fd, block, (size_t)got);
	}
	ga_free(block);
	if (r == 0 && werr)
		r = ga_deps_add_gap(s->inv, shown,
		                    "cannot write the member to a temporary file in %s: %s "
		                    "(set TMPDIR to a filesystem with room for it)",
		                    dir, strerror(-werr))
		            ?: 1;
	if (r == 0 && len > SIZE_MAX)
		r = ga_deps_add_gap(s->inv, shown, "member too large to map") ?: 1;
	if (r != 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	*ret_len = len;
	return 0;
}

/* ---- stored members of a zip on disk, read in place (issue 28) ---- */

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* One central directory entry: what the in-place check compares. */
struct zip_cd_entry {
	uint64_t lho, csize, usize;
	uint32_t crc;
	size_t name_off;
	uint16_t name_len, method, flags;
};

struct deps_zip_disk {
	int fd;
	uint64_t size;
	struct archive *a; /* the reader walking this zip: only its members are looked up */
	uint8_t *cd;       /* the central directory, read whole */
	struct zip_cd_entry *e;
	size_t n;
	uint32_t located_crc; /* the CRC-32 of the member zip_disk_locate found last */
};

/* a central directory larger than this is not indexed (its members are spooled as before) */
#define ZIP_CD_MAX (64u << 20)

static void zip_disk_free(struct deps_zip_disk *z)
{
	if (!z)
		return;
	ga_free(z->cd);
	ga_free(z->e);
	ga_free(z);
}

/*
 * The zip64 extra field (0x0001) of a central directory entry: the 64-bit
 * values of the fields stored as 0xFFFFFFFF, in their order (APPNOTE 4.5.3).
 * false when a field it should hold is missing.
 */
static bool zip64_extra(const uint8_t *x, size_t xl, uint64_t *usize, uint64_t *csize, uint64_t *lho)
{
	uint64_t *want[3] = { *usize == 0xffffffffu ? usize : NULL, *csize == 0xffffffffu ? csize : NULL,
		              lho && *lho == 0xffffffffu ? lho : NULL };
	if (!want[0] && !want[1] && !want[2])
		return true;
	for (size_t i = 0; i + 4 <= xl;) {
		uint16_t id = dc_le16(x + i), sz = dc_le16(x + i + 2);
		if (sz > xl - i - 4)
			return false;
		if (id == 1) {
			size_t q = i + 4, end = q + sz;
			for (int k = 0; k < 3; k++) {
				if (!want[k])
					continue;
				if (end - q < 8)
					return false;
				*want[k] = dc_le64(x + q);
				q += 8;
			}
			return true;
		}
		i += 4u + sz;
	}
	return false;
}

/*
 * Index the central directory of the zip on disk (fd, size): NULL when it
 * cannot be read or is not plain (several disks, a comment that does not
 * end the file, entries that do not parse, their count not the one the end
 * record gives). NULL costs nothing but speed: every member is then read
 * through libarchive as before.
 */
static struct deps_zip_disk *zip_disk_index(int fd, uint64_t size)
{
	enum { EOCD = 22, TAIL = EOCD + 65535 };
	struct deps_zip_disk *z = NULL;
	uint8_t *tail = NULL;
	size_t tl = size < TAIL ? (size_t)size : TAIL;
	if (tl < EOCD || !(tail = ga_malloc(tl)) || pread_all(fd, tail, tl, size - tl) < 0)
		goto fail;
	size_t i = tl - EOCD + 1;
	bool found = false;
	while (i-- > 0)
		if (!memcmp(tail + i, "PK\5\6", 4) && i + EOCD + dc_le16(tail + i + 20) == tl) {
			found = true;
			break;
		}
	if (!found || dc_le16(tail + i + 4) != 0 || dc_le16(tail + i + 6) != 0)
		goto fail;
	uint64_t eocd = size - tl + i, n = dc_le16(tail + i + 10), cd_size = dc_le32(tail + i + 12),
	         cd_off = dc_le32(tail + i + 16);
	if (n == 0xffff || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {
		uint8_t loc[20], rec[56];
		if (eocd < 20 || pread_all(fd, loc, 20, eocd - 20) < 0 || memcmp(loc, "PK\6\7", 4))
			goto fail;
		uint64_t at = dc_le64(loc + 8);
		if (at > eocd - 20 || eocd - 20 - at < 56 || pread_all(fd, rec, 56, at) < 0 ||
		    memcmp(rec, "PK\6\6", 4))
			goto fail;
		n = dc_le64(rec + 32), cd_size = dc_le64(rec + 40), cd_off = dc_le64(rec + 48);
	}
	if (cd_off > size || cd_size > size - cd_off || cd_size > ZIP_CD_MAX || n > cd_size / 46)
		goto fail;
	if (!(z = ga_calloc(1, sizeof(*z))) || !(z->cd = ga_malloc(cd_size ? (size_t)cd_size : 1)) ||
	    !(z->e = ga_calloc(n ? (size_t)n : 1, sizeof(*z->e))) ||
	    pread_all(fd, z->cd, (size_t)cd_size, cd_off) < 0)
		goto fail;
	const uint8_t *cd = z->cd;
	size_t off = 0;
	for (; z->n < n; z->n++) {
		if (cd_size - off < 46 || memcmp(cd + off, "PK\1\2", 4))
			goto fail;
		const uint8_t *p = cd + off;
		size_t nl = dc_le16(p + 28), xl = dc_le16(p + 30), cl = dc_le16(p + 32);
		if (cd_size - off - 46 < nl + xl + cl)
			goto fail;
		struct zip_cd_entry *e = &z->e[z->n];
		*e = (struct zip_cd_entry){ .lho = dc_le32(p + 42),
			                    .csize = dc_le32(p + 20),
			                    .usize = dc_le32(p + 24),
			                    .crc = dc_le32(p + 16),
			                    .name_off = off + 46,
			                    .name_len = (uint16_t)nl,
			                    .method = dc_le16(p + 10),
			                    .flags = dc_le16(p + 8) };
		if (!zip64_extra(p + 46 + nl, xl, &e->usize, &e->csize, &e->lho))
			goto fail;
		off += 46 + nl + xl + cl;
	}
	ga_free(tail);
	z->fd = fd;
	z->size = size;
	return z;
fail:
	ga_free(tail);
	zip_disk_free(z);
	return NULL;
}

/*
 * Where the bytes of member name (size bytes, by libarchive's header) lie in
 * the zip on disk, when they can be read there as they are: exactly one
 * central directory entry of that name, stored (method 0), not encrypted,
 * both sizes equal to size; its local file header at the offset the entry
 * gives, inside the file, with the signature, method 0, the same name, sizes
 * that agree (or are left to a data descriptor: flag bit 3), and the data
 * [offset, offset + size) inside the file; its CRC-32 in z->located_crc
 * (scan_in_place checks it before the scan). -1 otherwise (the member is
 * then read through libarchive and spooled, as before: lying headers get the
 * verdict they always had).
 */
static int64_t zip_disk_locate(struct deps_zip_disk *z, const char *name, int64_t size)
{
	size_t nl = strlen(name);
	const struct zip_cd_entry *e = NULL;
	if (size < 0 || nl > 0xffff)
		return -1;
	for (size_t i = 0; i < z->n; i++)
		if (z->e[i].name_len == nl && !memcmp(z->cd + z->e[i].name_off, name, nl)) {
			if (e)
				return -1; /* two members of that name: not ours to choose */
			e = &z->e[i];
		}
	if (!e || e->method != 0 || (e->flags & 1) || e->csize != (uint64_t)size ||
	    e->usize != (uint64_t)size || e->lho > z->size || z->size - e->lho < 30)
		return -1;
	uint8_t h[30];
	if (pread_all(z->fd, h, sizeof(h), e->lho) < 0 || memcmp(h, "PK\3\4", 4) || dc_le16(h + 8) != 0 ||
	    dc_le16(h + 26) != nl)
		return -1;
	size_t xl = dc_le16(h + 28);
	uint64_t data = e->lho + 30 + nl + xl;
	if (data > z->size || z->size - data < (uint64_t)size)
		return -1;
	uint8_t *lx = ga_malloc(nl + xl + 1);
	if (!lx)
		return -1;
	uint64_t lcs = dc_le32(h + 18), lus = dc_le32(h + 22);
	bool ok = pread_all(z->fd, lx, nl + xl, e->lho + 30) == 0 && !memcmp(lx, name, nl) &&
	          zip64_extra(lx + nl, xl, &lus, &lcs, NULL);
	ga_free(lx);
	if (!ok)
		return -1;
	if (!((dc_le16(h + 6) & 8) && lcs == 0 && lus == 0) &&
	    (lcs != (uint64_t)size || lus != (uint64_t)size))
		return -1;
	z->located_crc = e->crc;
	return (int64_t)data;
}

/* zlib's crc32, loaded on first use through the one loader (lib/dl, row ZLIB) */
static struct {
	unsigned long (*crc32)(unsigned long crc, const unsigned char *buf, unsigned len);
} zc;
static const struct ga_dl_sym zc_syms[] = {
	{ { "crc32" }, offsetof(__typeof__(zc), crc32), true },
};

/*
 * Whether size bytes at offset at of fd have CRC-32 want, read in blocks into
 * one buffer (the page cache, not this process, holds them): 1 they do, 0
 * they do not, -1 it could not be checked (zlib missing, a read or an
 * allocation failed: the caller reads the member through libarchive, which
 * checks it).
 */
static int crc_matches(int fd, uint64_t at, uint64_t size, uint32_t want)
{
	if (!ga_dl_shared(GA_DL_ZLIB, zc_syms, GA_ARRAY_SIZE(zc_syms), &zc, NULL))
		return -1;
	uint8_t *buf = ga_malloc(SPOOL_BLOCK);
	if (!buf)
		return -1;
	unsigned long crc = zc.crc32(0, NULL, 0);
	int r = 1;
	for (uint64_t off = 0; off < size;) {
		size_t n = size - off < SPOOL_BLOCK ? (size_t)(size - off) : SPOOL_BLOCK;
		if (pread_all(fd, buf, n, at + off) < 0) {
			r = -1;
			break;
		}
		crc = zc.crc32(crc, buf, (unsigned)n);
		off += n;
	}
	ga_free(buf);
	return r < 0 ? r : (uint32_t)crc == want;
}

/*
 * The member (ELF or device code, size bytes at offset at of the zip on
 * disk) scanned where it lies: mapped read-only for the headers, its census
 * windows pread from the zip's fd. Charged like the bytes read through
 * libarchive (done already: the first `done` bytes). 0, 1 not mapped (the
 * caller spools it as before), <0.
 */
static int scan_in_place(struct deps_scan *s, size_t tree, const char *shown, const char *tp, unsigned depth,
                         uint64_t at, uint64_t size, uint64_t done)
{
	const struct deps_zip_disk *z = s->zip_disk;
	if (size > SIZE_MAX / 2)
		return 1;
	/* every byte is checked as libarchive would on the way out: damaged is a gap, not a verdict */
	int crc = crc_matches(z->fd, at, size, z->located_crc);
	if (crc < 0)
		return 1;
	if (!crc) {
		for (uint64_t left = size - done; left;) { /* read, as libarchive would have */
			uint64_t n = left < SPOOL_BLOCK ? left : SPOOL_BLOCK;
			left -= n;
			if (!charge(s, shown, n))
				return 0;
		}
		return ga_deps_add_gap(s->inv, shown,
		                       "cannot read member: ZIP bad CRC (stored member "
		                       "read in place; the archive is damaged)") < 0
		               ? -ENOMEM
		               : 0;
	}
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo = at - at % page;
	size_t maplen = (size_t)(at - lo + size);
	void *map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, z->fd, (off_t)lo);
	if (map == MAP_FAILED)
		return 1;
	/* the bytes count as read, in the blocks the spool would have read them in */
	for (uint64_t left = size - done; left;) {
		uint64_t n = left < SPOOL_BLOCK ? left : SPOOL_BLOCK;
		left -= n;
		if (!charge(s, shown, n)) {
			munmap(map, maplen);
			return 0;
		}
	}
	s->inv->members_in_place++;
	int r = s->scan_map(s, z->fd, at, tree, shown, tp, (const uint8_t *)map + (at - lo), (size_t)size,
	                    depth);
	munmap(map, maplen);
	return r < 0 ? r : 0;
}

static int archive_fd_into(struct deps_scan *s, int fd, const char *shown, const char *name_for_kind,
                           long into_tree, unsigned depth);

/*
 * The spooled member: a zip through its central directory (libarchive's
 * seekable reader on the file), anything else mapped read-only for the walk
 * (the ELF census reads the mapping in windows through fd and drops them).
 */
static int scan_spooled(struct deps_scan *s, int fd, uint64_t len, enum deps_magic m, size_t tree,
                        const char *shown, const char *tp, unsigned depth, bool outer_is_pkg)
{
	if (m == MAGIC_ZIP) {
		if (lseek(fd, 0, SEEK_SET) < 0)
			return ga_deps_add_gap(s->inv, shown, "cannot read the spooled member: %s",
			                       strerror(errno));
		return archive_fd_into(s, fd, shown, tp, outer_is_pkg ? (long)tree : -1, depth + 1);
	}
	void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return ga_deps_add_gap(s->inv, shown, "cannot map the spooled member: %s", strerror(errno));
	int r = s->scan_map(s, fd, 0, tree, shown, tp, map, (size_t)len, depth);
	munmap(map, (size_t)len);
	return r;
}

static int scan_member(struct deps_scan *s, struct archive *a, size_t tree, const char *shown, const char *tp,
                       unsigned depth, bool outer_is_pkg, int64_t size_hint, int64_t at)
{
	uint8_t head[PEEK_BYTES];
	size_t hl = 0;
	while (hl < sizeof(head)) {
		la_ssize_t got = archive_read_data(a, head + hl, sizeof(head) - hl);
		if (got < 0)
			return ga_deps_add_gap(s->inv, shown, "cannot read member: %s",
			                       archive_error_string(a));
		if (got == 0)
			break;
		hl += (size_t)got;
	}
	if (!charge(s, shown, hl))
		return 0;
	enum deps_magic m = ga_deps_sniff(head, hl);
	bool meta = ga_deps_is_meta_path(tp);
	if ((m == MAGIC_NONE && !meta) || ga_deps_skip_static_lib(s, head, hl))
		return 0; /* libarchive skips the rest at the next header */
	int r = 0;
	/* every nested archive, streamed or held, passes the one nesting gate before anything is read */
	if ((m == MAGIC_ARCHIVE || m == MAGIC_ZIP) && (r = ga_deps_nest_refused(s, shown, depth + 1)) != 0)
		return r < 0 ? r : 0;
	/*
	 * What may be held in memory: HOLD_BYTES less what the zips around it
	 * hold, and never more than the member may be (metadata files stop at
	 * GA_DEPS_MAX_META_BYTES, anything at the optional --max-member-bytes).
	 */
	bool meta_only = m == MAGIC_NONE && !ga_deps_rpmdb_path(tp);
	uint64_t limit = meta_only ? GA_DEPS_MAX_META_BYTES : s->o->max_member_bytes;
	uint64_t room = HOLD_BYTES > s->held_bytes ? HOLD_BYTES - s->held_bytes : 0;
	if (room > limit)
		room = limit;
	/*
	 * A zip larger than that room is streamed like the other nested
	 * archives (through its local headers) instead of held for its central
	 * directory: its members are still read, nothing big is held.
	 */
	if (m == MAGIC_ARCHIVE || (m == MAGIC_ZIP && size_hint >= 0 && (uint64_t)size_hint > room)) {
		struct nest_src *n = ga_calloc(1, sizeof(*n));
		struct archive *in = new_reader();
		if (!n || !in) {
			r = -ENOMEM;
			goto nest_out;
		}
		*n = (struct nest_src){ .s = s, .outer = a, .shown = shown, .head = head, .head_len = hl };
		if (archive_read_open(in, n, NULL, nest_read, NULL) != ARCHIVE_OK) {
			/* a compressed file that is not an archive (a .gz man page): not ours */
			if (hl >= 8 &&
			    (!memcmp(head, "!<arch>\n", 8) || (hl >= 263 && !memcmp(head + 257, "ustar", 5))))
				r = ga_deps_add_gap(s->inv, shown, "not a readable archive: %s",
				                    archive_error_string(in));
			goto nest_out;
		}
		long t = (long)tree;
		if (!outer_is_pkg) {
			t = ga_deps_add_tree(s->inv, shown, tree_kind(tp, 0));
			if (t < 0) {
				r = -ENOMEM;
				goto nest_out;
			}
		}
		r = walk_entries(s, in, (size_t)t, shown, depth + 1, NULL, false);
	nest_out:
		if (in)
			archive_read_free(in);
		ga_free(n);
		return r;
	}
	/*
	 * ELF, device code, metadata and zips are read whole (random access): in
	 * memory up to the room left, spooled to a temporary file beyond it.
	 * Metadata files stop at GA_DEPS_MAX_META_BYTES, anything at the
	 * optional --max-member-bytes.
	 */
	if (size_hint >= 0 && (uint64_t)size_hint > limit)
		return member_over(s, shown, meta_only, (uint64_t)size_hint, true) < 0 ? -ENOMEM : 0;
	struct deps_membuf local = { 0 }, *b = depth < DEPS_MEMBER_BUFS ? &s->member[depth] : &local;
	b->len = 0;
	bool spool = size_hint >= 0 && (uint64_t)size_hint > room;
	if (!spool) {
		/* the header's size sizes the buffer: one mapping, no copies */
		size_t want = size_hint > (int64_t)hl ? (size_t)size_hint : hl + STREAM_BLOCK;
		r = ga_deps_membuf_reserve(b, want);
		if (r < 0 &&
		    want > hl + STREAM_BLOCK) /* a size the address space refuses: grow as data comes */
			r = ga_deps_membuf_reserve(b, hl + STREAM_BLOCK);
		if (r < 0)
			goto out;
		membuf_populate(b, hl + 1);
		memcpy(b->data, head, hl);
		b->len = hl;
		b->data[b->len] = '\0';
		r = read_member(s, a, shown, b, room);
		if (r < 0 || r == 1) {
			r = r < 0 ? r : 0;
			goto out;
		}
		if (r == 2 && b->len > limit) { /* longer than its header said, past the cap */
			r = member_over(s, shown, meta_only, b->len, false) < 0 ? -ENOMEM : 0;
			goto out;
		}
	}
	if (spool && at >= 0 && (m == MAGIC_ELF || m == MAGIC_DEVCODE) &&
	    (r = scan_in_place(s, tree, shown, tp, depth, (uint64_t)at, (uint64_t)size_hint, hl)) != 1)
		goto out;
	if (spool || r == 2) {
		s->inv->members_spooled++;
		int fd = -1;
		uint64_t len = 0;
		r = spool_member(s, a, shown, spool ? head : b->data, spool ? hl : b->len, &fd, &len);
		if (b->cap > MEMBUF_KEEP_BYTES)
			ga_deps_membuf_release(b);
		if (r == 0) {
			r = scan_spooled(s, fd, len, m, tree, shown, tp, depth, outer_is_pkg);
			close(fd);
		}
		r = r < 0 ? r : 0;
		goto out;
	}
	if (m == MAGIC_ZIP) {
		/* held while its members are read: they get what is left of the room */
		s->held_bytes += b->len;
		r = ga_deps_archive_mem(s, shown, tp, b->data, b->len, outer_is_pkg ? (long)tree : -1,
		                        depth + 1);
		s->held_bytes -= b->len;
	} else {
		r = s->scan_buf(s, tree, shown, tp, b->data, b->len, depth);
	}
out:
	/* a large buffer is not kept for the next member: resident memory stays near the member's size */
	if (b->cap > MEMBUF_KEEP_BYTES)
		ga_deps_membuf_release(b);
	ga_deps_membuf_release(&local);
	return r;
}

static int walk_entries(struct deps_scan *s, struct archive *a, size_t tree, const char *prefix,
                        unsigned depth, struct layer_filter *lf, bool inner_into_tree)
{
	/* every archive walk, of every kind and from every caller, starts here: the nesting bound */
	int r = ga_deps_nest_refused(s, prefix, depth);
	if (r != 0)
		return r < 0 ? r : 0;
	struct ga_buf shown;
	ga_buf_init(&shown, 0);
	char *tp = NULL;
	int retries = 0;
	bool first = true;
	while (!halted(s)) {
		struct archive_entry *e;
		int h = archive_read_next_header(a, &e);
		if (h == ARCHIVE_EOF)
			break;
		if (h == ARCHIVE_RETRY && ++retries < 16)
			continue;
		if (h < ARCHIVE_WARN) {
			r = ga_deps_add_gap(s->inv, prefix, "archive damaged: %s",
			                    archive_error_string(a) ? archive_error_string(a)
			                                            : "unreadable header");
			break;
		}
		if (first) {
			first = false;
			if (!strcmp(s->inv->trees[tree].kind, "tar") &&
			    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR) {
				char *k = ga_strdup(tree_kind(s->inv->trees[tree].name, archive_format(a)));
				if (k) {
					ga_free(s->inv->trees[tree].kind);
					s->inv->trees[tree].kind = k;
				}
			}
		}
		const char *name = archive_entry_pathname(e);
		if (!name)
			continue;
		ga_free(tp);
		if (!(tp = ga_deps_norm_path(name))) {
			r = -ENOMEM;
			break;
		}
		if (!tp[0])
			continue;
		ga_buf_reset(&shown);
		if (ga_buf_addf(&shown, "%s!/%s", prefix, tp) < 0) {
			r = -ENOMEM;
			break;
		}
		mode_t type = archive_entry_filetype(e);
		if (lf) {
			const char *b = strrchr(tp, '/');
			const char *base = b ? b + 1 : tp;
			size_t dirlen = b ? (size_t)(b - tp) : 0;
			if (!strncmp(base, ".wh.", 4)) {
				char *x = NULL;
				if (!strcmp(base, ".wh..wh..opq"))
					x = ga_strndup(tp, dirlen);
				else if ((x = ga_malloc(strlen(tp))))
					snprintf(x, strlen(tp), "%.*s%s%s", (int)dirlen, tp,
					         dirlen ? "/" : "", base + 4);
				if (!x || ga_strmap_put(!strcmp(base, ".wh..wh..opq") ? &lf->pend_opaque
				                                                      : &lf->pend_hidden,
				                        x, 0, NULL) < 0) {
					ga_free(x);
					r = -ENOMEM;
					break;
				}
				ga_free(x);
				continue;
			}
			if (filter_hidden(lf, tp))
				continue;
			if (type != AE_IFDIR && ga_strmap_put(&lf->hidden, tp, 0, NULL) < 0) {
				r = -ENOMEM;
				break;
			}
		}
		const char *hard = archive_entry_hardlink(e);
		if (type == AE_IFLNK || hard) {
			const char *target = hard ? hard : archive_entry_symlink(e);
			if ((r = ga_deps_add_link(s, tree, shown.data, tp, target)) < 0)
				break;
			continue;
		}
		if (type != AE_IFREG)
			continue;
		s->inv->files_seen++;
		/* sizes are checked against the memory cap once the member is known to be held (scan_member) */
		if (archive_entry_size_is_set(e))
			s->inv->bytes_seen += (uint64_t)archive_entry_size(e);
		if (boring_member(tp))
			continue;
		bool pkg_inner =
		        inner_into_tree && (ends_with(tp, ".tar.zst") || !strncmp(tp, "data.tar", 8) ||
		                            !strncmp(tp, "control.tar", 11));
		int64_t hint = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
		/* a member of the zip on disk too large to hold: stored bytes are read where they lie */
		int64_t at = s->zip_disk && s->zip_disk->a == a && hint > (int64_t)HOLD_BYTES
		                     ? zip_disk_locate(s->zip_disk, name, hint)
		                     : -1;
		if ((r = scan_member(s, a, tree, shown.data, tp, depth, pkg_inner, hint, at)) < 0)
			break;
	}
	ga_free(tp);
	ga_buf_release(&shown);
	return r;
}

/* ---- images ---- */

/* Read one small member of a tar in memory (or file of a directory) into out. 0, 1 absent, <0. */
static int image_read(struct deps_scan *s, const uint8_t *buf, size_t len, const char *dir, const char *name,
                      struct ga_buf *out)
{
	ga_buf_reset(out);
	if (dir) {
		char path[4096];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
			return 1;
		FILE *f = fopen(path, "rb");
		if (!f)
			return 1;
		char block[8192];
		size_t got;
		int r = 0;
		while ((got = fread(block, 1, sizeof(block), f)) > 0)
			if ((r = ga_buf_add(out, block, got)) < 0)
				break;
		fclose(f);
		return r;
	}
	struct archive *a = new_reader();
	if (!a)
		return -ENOMEM;
	int r = 1;
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK)
		goto out;
	struct archive_entry *e;
	while (archive_read_next_header(a, &e) >= ARCHIVE_WARN) {
		char *n = archive_entry_pathname(e) ? ga_deps_norm_path(archive_entry_pathname(e)) : NULL;
		bool hit = n && !strcmp(n, name);
		ga_free(n);
		if (!hit)
			continue;
		r = read_rest(s, a, name, out);
		r = r < 0 ? r : r > 0 ? 1 : 0;
		break;
	}
out:
	archive_read_free(a);
	return r;
}

/* "sha256:abc" -> "blobs/sha256/abc" */
static int digest_path(const char *digest, char *out, size_t n)
{
	const char *c = digest ? strchr(digest, ':') : NULL;
	if (!c || strchr(c + 1, '/') || strstr(digest, ".."))
		return -EINVAL;
	return (size_t)snprintf(out, n, "blobs/%.*s/%s", (int)(c - digest), digest, c + 1) < n ? 0 : -EINVAL;
}

/*
 * An image's JSON member (manifest.json, index.json, a manifest or config
 * blob) parsed through ga_json_parse into *ret; *ret is NULL when the member
 * cannot be read or is not JSON (the image is then read as far as it goes).
 * 0, or -ENOMEM.
 */
static int load_json(struct deps_scan *s, const uint8_t *buf, size_t len, const char *dir, const char *name,
                     json_t **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, IMAGE_JSON_MAX);
	int r = 0;
	*ret = NULL;
	if (image_read(s, buf, len, dir, name, &b) == 0)
		r = ga_json_parse(NULL, b.data, b.len, 0, ret, NULL);
	ga_buf_release(&b);
	return r == -ENOMEM ? r : 0;
}

/* Collect layer member names of the image, bottom first. 0, 1 when not an image, <0. */
static int image_layers(struct deps_scan *s, const uint8_t *buf, size_t len, const char *dir,
                        struct ga_strv *layers, const char **ret_kind, char *config, size_t config_len)
{
	config[0] = '\0';
	int r = 1;
	json_t *m = NULL, *idx = NULL, *man = NULL;
	if (!dir && (r = load_json(s, buf, len, dir, "manifest.json", &m)) < 0)
		goto out;
	r = 1;
	if (m && json_is_array(m) && json_array_size(m) > 0) {
		json_t *ls = json_object_get(json_array_get(m, 0), "Layers");
		if (json_is_array(ls)) {
			const char *c = json_string_value(json_object_get(json_array_get(m, 0), "Config"));
			if (c && strlen(c) < config_len)
				memcpy(config, c, strlen(c) + 1);
			*ret_kind = "docker";
			r = 0;
			for (size_t i = 0; i < json_array_size(ls) && i < IMAGE_MAX_LAYERS && r == 0; i++)
				if (json_is_string(json_array_get(ls, i)))
					r = ga_strv_push(layers, json_string_value(json_array_get(ls, i)));
			goto out;
		}
	}
	if ((r = load_json(s, buf, len, dir, "index.json", &idx)) < 0)
		goto out;
	r = 1;
	for (int hop = 0; idx && hop < 3; hop++) {
		json_t *ms = json_object_get(idx, "manifests");
		json_t *pick = NULL;
		for (size_t i = 0; json_is_array(ms) && i < json_array_size(ms); i++) {
			json_t *p = json_object_get(json_array_get(ms, i), "platform");
			const char *arch = json_string_value(json_object_get(p, "architecture"));
			if (!pick || (arch && !strcmp(arch, "amd64")))
				pick = json_array_get(ms, i);
			if (arch && !strcmp(arch, "amd64"))
				break;
		}
		char path[512];
		if (!pick ||
		    digest_path(json_string_value(json_object_get(pick, "digest")), path, sizeof(path)) < 0)
			break;
		if ((r = load_json(s, buf, len, dir, path, &man)) < 0)
			goto out;
		r = 1;
		if (!man)
			break;
		json_t *ls = json_object_get(man, "layers");
		if (json_is_array(ls)) {
			if (digest_path(json_string_value(
			                        json_object_get(json_object_get(man, "config"), "digest")),
			                path, sizeof(path)) == 0 &&
			    strlen(path) < config_len)
				memcpy(config, path, strlen(path) + 1);
			*ret_kind = "oci";
			r = 0;
			for (size_t i = 0; i < json_array_size(ls) && i < IMAGE_MAX_LAYERS && r == 0; i++) {
				if (digest_path(json_string_value(
				                        json_object_get(json_array_get(ls, i), "digest")),
				                path, sizeof(path)) == 0)
					r = ga_strv_push(layers, path);
			}
			goto out;
		}
		json_decref(idx); /* a nested index: follow it */
		idx = man;
		man = NULL;
	}
out:
	json_decref(m);
	json_decref(idx);
	json_decref(man);
	return r;
}

static int image_layer(struct deps_scan *s, const uint8_t *buf, size_t len, const char *dir,
                       const char *layer, size_t tree, const char *shown, struct layer_filter *lf,
                       unsigned depth)
{
	struct archive *outer = NULL, *in = new_reader();
	struct nest_src *n = NULL;
	int r = 0;
	if (!in)
		return -ENOMEM;
	if (dir) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, layer);
		struct stat st;
		/* each layer file of an image directory is an input of its own (--max-ratio) */
		ga_deps_input_begin(s, stat(path, &st) == 0 ? (uint64_t)st.st_size : 0);
		if (archive_read_open_filename(in, path, STREAM_BLOCK) != ARCHIVE_OK) {
			r = ga_deps_add_gap(s->inv, path, "layer not readable: %s", archive_error_string(in));
			goto out;
		}
	} else {
		outer = new_reader();
		n = ga_calloc(1, sizeof(*n));
		if (!outer || !n) {
			r = -ENOMEM;
			goto out;
		}
		bool found = false;
		struct archive_entry *e;
		if (archive_read_open_memory(outer, buf, len) == ARCHIVE_OK)
			while (!found && archive_read_next_header(outer, &e) >= ARCHIVE_WARN) {
				char *nm = archive_entry_pathname(e)
				                   ? ga_deps_norm_path(archive_entry_pathname(e))
				                   : NULL;
				found = nm && !strcmp(nm, layer);
				ga_free(nm);
			}
		if (!found) {
			r = ga_deps_add_gap(s->inv, shown, "layer %s named by the manifest is missing",
			                    layer);
			goto out;
		}
		*n = (struct nest_src){ .s = s, .outer = outer, .shown = shown, .head_done = true };
		if (archive_read_open(in, n, NULL, nest_read, NULL) != ARCHIVE_OK) {
			r = ga_deps_add_gap(s->inv, shown, "layer %s not readable: %s", layer,
			                    archive_error_string(in));
			goto out;
		}
	}
	r = walk_entries(s, in, tree, shown, depth, lf, false);
	if (r == 0)
		r = filter_merge(lf);
out:
	archive_read_free(in);
	if (outer)
		archive_read_free(outer);
	ga_free(n);
	return r;
}

/* An Env entry the container toolkit reads before it starts a container (lib/analyze/nvreq.c). */
static bool nvidia_env_name(const char *v)
{
	return !strncmp(v, "NVIDIA_REQUIRE_", 15) || !strncmp(v, "NVIDIA_DISABLE_REQUIRE=", 23) ||
	       !strncmp(v, "CUDA_VERSION=", 13);
}

/* nvreq: the toolkit's Env entries and the com.nvidia.cuda.version label, into the tree. */
static int image_nvidia(struct ga_deps_tree *t, const json_t *cfg)
{
	const json_t *env = json_object_get(cfg, "Env");
	for (size_t i = 0; json_is_array(env) && i < json_array_size(env); i++) {
		const char *v = json_string_value(json_array_get(env, i));
		if (v && nvidia_env_name(v) && ga_strv_push(&t->nvidia_env, v) < 0)
			return -ENOMEM;
	}
	const char *label =
	        json_string_value(json_object_get(json_object_get(cfg, "Labels"), "com.nvidia.cuda.version"));
	if (label && !t->cuda_version_label && !(t->cuda_version_label = ga_strdup(label)))
		return -ENOMEM;
	return 0;
}

/* The image config's Env LD_LIBRARY_PATH (what the loader searches in a container of the image). */
static int image_env(struct deps_scan *s, const uint8_t *buf, size_t len, const char *dir, const char *config,
                     size_t tree)
{
	json_t *c = NULL;
	int r = load_json(s, buf, len, dir, config, &c);
	if (r < 0)
		return r;
	json_t *env = json_object_get(json_object_get(c, "config"), "Env");
	r = image_nvidia(&s->inv->trees[tree], json_object_get(c, "config"));
	for (size_t i = 0; r == 0 && json_is_array(env) && i < json_array_size(env); i++) {
		const char *v = json_string_value(json_array_get(env, i));
		if (v && !strncmp(v, "LD_LIBRARY_PATH=", 16)) {
			char *d = ga_strdup(v + 16);
			if (!d) {
				r = -ENOMEM;
				break;
			}
			ga_free(s->inv->trees[tree].ld_library_path);
			s->inv->trees[tree].ld_library_path = d;
		}
	}
	json_decref(c);
	return r;
}

static int image_scan(struct deps_scan *s, const uint8_t *buf, size_t len, const char *dir, const char *shown,
                      unsigned depth)
{
	struct ga_strv layers = { 0 };
	struct layer_filter lf = { 0 };
	const char *kind = "oci";
	char config[512];
	int r = image_layers(s, buf, len, dir, &layers, &kind, config, sizeof(config));
	if (r != 0)
		goto out;
	long tree = ga_deps_add_tree(s->inv, shown, kind);
	if (tree < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (config[0] && (r = image_env(s, buf, len, dir, config, (size_t)tree)) < 0)
		goto out;
	for (size_t i = layers.n; i-- > 0 && !halted(s) && r == 0;)
		r = image_layer(s, buf, len, dir, layers.v[i], (size_t)tree, shown, &lf, depth);
out:
	ga_strv_release(&layers);
	filter_release(&lf);
	return r;
}

int ga_deps_oci_dir(struct deps_scan *s, const char *dir, const char *shown)
{
	int r = image_scan(s, NULL, 0, dir, shown, 1);
	if (r == 1)
		return ga_err(s->ctx, -EINVAL, "%s: oci-layout present but no image manifest with layers",
		              dir);
	return r;
}

/* A member name found only in container images: blobs/, oci-layout, index.json, manifest.json, repositories, <64 hex>... */
static bool image_member_name(const char *name)
{
	char *n = ga_deps_norm_path(name);
	if (!n)
		return false;
	size_t first = strcspn(n, "/");
	bool hex = first >= 64;
	for (size_t i = 0; i < 64 && hex; i++)
		hex = (n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f');
	bool yes = hex || (first == 5 && !strncmp(n, "blobs", 5)) || !strcmp(n, "oci-layout") ||
	           !strcmp(n, "index.json") || !strcmp(n, "manifest.json") || !strcmp(n, "repositories");
	ga_free(n);
	return yes;
}

/* A gzip/bzip2/xz/zstd stream whose first member is named as an image's. */
static bool compressed_image(const uint8_t *buf, size_t len)
{
	if (len < 6 || !(!memcmp(buf, "\x1f\x8b", 2) || !memcmp(buf, "BZh", 3) ||
	                 !memcmp(buf,
	                         "\xfd"
	                         "7zXZ",
	                         5) ||
	                 !memcmp(buf, "\x28\xb5\x2f\xfd", 4)))
		return false;
	struct archive *a = new_reader();
	if (!a)
		return false;
	struct archive_entry *e;
	bool yes = archive_read_open_memory(a, buf, len) == ARCHIVE_OK &&
	           archive_read_next_header(a, &e) >= ARCHIVE_WARN &&
	           (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR &&
	           archive_entry_pathname(e) && image_member_name(archive_entry_pathname(e));
	archive_read_free(a);
	return yes;
}

/* A file mapping read as a stream, the pages of each block dropped once libarchive moved past it. */
struct map_src {
	const uint8_t *buf;
	size_t len, off, prev;
};

static la_ssize_t map_read(struct archive *a, void *cd, const void **ret)
{
	(void)a;
	struct map_src *m = cd;
	/* libarchive is done with the block it had before this call: its whole pages leave our RSS */
	uintptr_t lo = ((uintptr_t)(m->buf + m->prev) + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = (uintptr_t)(m->buf + m->off) & ~(uintptr_t)4095;
	if (hi > lo)
		(void)madvise((void *)lo, (size_t)(hi - lo), MADV_DONTNEED);
	m->prev = m->off;
	size_t n = m->len - m->off < SPOOL_BLOCK ? m->len - m->off : SPOOL_BLOCK;
	*ret = m->buf + m->off;
	m->off += n;
	return (la_ssize_t)n;
}

int ga_deps_archive_mem(struct deps_scan *s, const char *shown, const char *name_for_kind, const uint8_t *buf,
                        size_t len, long into_tree, unsigned depth)
{
	/*
	 * An uncompressed tar may be a container image, and so may a compressed
	 * one whose first member is an image's (`docker save | gzip`): try the
	 * manifests first. A compressed image is read in passes over the stream
	 * (manifests, then one per layer), never inflated whole into memory.
	 */
	if (depth == 1)
		ga_deps_input_begin(s, len);
	if (into_tree < 0 && ((len >= 263 && !memcmp(buf + 257, "ustar", 5)) || compressed_image(buf, len))) {
		int r = image_scan(s, buf, len, NULL, shown, depth);
		if (r <= 0)
			return r;
	}
	struct archive *a = new_reader();
	if (!a)
		return -ENOMEM;
	int r = 0;
	/* gzip/bzip2/xz/zstd around something that is not an archive (a .gz man page, a .mod): not ours */
	bool container = (len >= 4 && !memcmp(buf, "PK", 2)) || (len >= 8 && !memcmp(buf, "!<arch>\n", 8)) ||
	                 (len >= 263 && !memcmp(buf + 257, "ustar", 5));
	/*
	 * A file of the walk mapped whole and a stream archive (not a zip, which
	 * seeks to its central directory): read in blocks dropped behind the read.
	 */
	struct map_src ms = { .buf = buf, .len = len };
	bool stream = buf == s->file_map && len == s->file_map_len && !(len >= 2 && !memcmp(buf, "PK", 2));
	if ((stream ? archive_read_open(a, &ms, NULL, map_read, NULL)
	            : archive_read_open_memory(a, buf, len)) != ARCHIVE_OK) {
		if (container)
			r = ga_deps_add_gap(s->inv, shown, "not a readable archive: %s",
			                    archive_error_string(a));
		goto out;
	}
	long tree = into_tree;
	if (tree < 0 && (tree = ga_deps_add_tree(s->inv, shown, tree_kind(name_for_kind, 0))) < 0) {
		r = -ENOMEM;
		goto out;
	}
	bool pkg = ends_with(name_for_kind, ".conda") || ends_with(name_for_kind, ".deb");
	r = walk_entries(s, a, (size_t)tree, shown, depth, NULL, pkg);
out:
	archive_read_free(a);
	return r;
}

static int archive_fd_into(struct deps_scan *s, int fd, const char *shown, const char *name_for_kind,
                           long into_tree, unsigned depth)
{
	struct archive *a = new_reader();
	if (!a)
		return -ENOMEM;
	int r = 0;
	if (depth == 1 && s->zip_disk && !s->zip_disk->a)
		s->zip_disk->a = a; /* the zip indexed by ga_deps_archive_fd */
	/* read() into libarchive's block rather than mapped: the archive's pages stay out of our RSS */
	if (archive_read_open_fd(a, fd, 1u << 20) != ARCHIVE_OK) {
		r = ga_deps_add_gap(s->inv, shown, "not a readable archive: %s", archive_error_string(a));
		goto out;
	}
	long tree = into_tree;
	if (tree < 0 && (tree = ga_deps_add_tree(s->inv, shown, tree_kind(name_for_kind, 0))) < 0) {
		r = -ENOMEM;
		goto out;
	}
	bool pkg = ends_with(name_for_kind, ".conda") || ends_with(name_for_kind, ".deb");
	r = walk_entries(s, a, (size_t)tree, shown, depth, NULL, pkg);
out:
	archive_read_free(a);
	return r;
}

int ga_deps_archive_fd(struct deps_scan *s, int fd, const char *shown, const char *name_for_kind,
                       unsigned depth)
{
	struct stat st;
	bool st_ok = fstat(fd, &st) == 0;
	if (depth == 1)
		ga_deps_input_begin(s, st_ok ? (uint64_t)st.st_size : 0);
	/* a zip file larger than what is held in memory may have stored members worth reading in place */
	struct deps_zip_disk *z = NULL, *saved = s->zip_disk;
	if (depth == 1 && st_ok && S_ISREG(st.st_mode) && (uint64_t)st.st_size > HOLD_BYTES)
		z = zip_disk_index(fd, (uint64_t)st.st_size);
	s->zip_disk = z;
	int r = archive_fd_into(s, fd, shown, name_for_kind, -1, depth);
	s->zip_disk = saved;
	zip_disk_free(z);
	return r;
}

int ga_deps_archive_rpm(struct deps_scan *s, const char *shown, const uint8_t *buf, size_t len, size_t tree,
                        unsigned depth)
{
	struct archive *a = archive_read_new();
	if (!a)
		return -ENOMEM;
	/* the rpm filter skips the lead and both headers; the payload is a compressed cpio */
	archive_read_support_filter_rpm(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_format_cpio(a);
	int r = 0;
	if (depth == 1)
		ga_deps_input_begin(s, len);
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK)
		r = ga_deps_add_gap(s->inv, shown, "rpm payload not readable: %s", archive_error_string(a));
	else
		r = walk_entries(s, a, tree, shown, depth, NULL, false);
	archive_read_free(a);
	return r;
}
