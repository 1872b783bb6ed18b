/*
 * rpm.c - RPM packages as package metadata: an .rpm file (lead, signature
 * header, main header, then a compressed cpio payload that libarchive reads
 * through its rpm filter) and an image's rpm database, var/lib/rpm/rpmdb.sqlite
 * (RHEL 9 and derivatives: table Packages(hnum, blob), each blob a header
 * without lead or magic), read with libsqlite3 loaded on first use.
 *
 * Why: an image built FROM a RHEL/UBI/Rocky base holds its CUDA or ROCm stack
 * as rpms; their Requires (libcuda.so.1()(64bit), cuda-cudart-12-4,
 * rocm-hip-runtime) declare the backend the way a .deb's Depends does, and the
 * database's file lists say which package owns each library of the image.
 *
 * The header layout is rpm's documented format (rpm.org, "Package format v4",
 * https://rpm-software-management.github.io/rpm/manual/format_v4.html; tag
 * numbers from rpmtag.h): big-endian index count and data length, 16-byte
 * index entries (tag, type, offset, count), the data store. The header parser
 * is a pure function over a bounded buffer (fuzz/fuzz_rpmhdr.c): every count,
 * offset and string is checked before it is used.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../dl/sqlite_dl.h"
#include "walk_int.h"

#define RPM_LEAD_BYTES 96
#define MAX_REQUIRES 4096
#define MAX_PROVIDES 4096
#define MAX_FILES 1000000
#define MAX_DB_PACKAGES 100000
/* sqlite virtual-machine steps allowed per database (a hostile schema cannot loop forever) */
#define DB_MAX_PROGRESS_CALLS 20000

enum {
	T_INT32 = 4,
	T_STRING = 6,
	T_BIN = 7,
	T_STRING_ARRAY = 8,
	T_I18NSTRING = 9,
};

enum {
	TAG_NAME = 1000,
	TAG_VERSION = 1001,
	TAG_RELEASE = 1002,
	TAG_EPOCH = 1003,
	TAG_ARCH = 1022,
	TAG_OLDFILENAMES = 1027,
	TAG_PROVIDENAME = 1047,
	TAG_REQUIRENAME = 1049,
	TAG_DIRINDEXES = 1116,
	TAG_BASENAMES = 1117,
	TAG_DIRNAMES = 1118,
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
	if (err && n) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The blob being read: its index and data store, both inside the buffer. */
struct hdr {
	const uint8_t *index; /* il entries of 16 bytes */
	uint32_t il;
	const uint8_t *data;
	uint32_t dl;
};

struct entry {
	uint32_t tag, type, off, count;
};

static bool find(const struct hdr *h, uint32_t tag, struct entry *e)
{
	for (uint32_t i = 0; i < h->il; i++) {
		const uint8_t *p = h->index + (size_t)i * 16;
		if (be32(p) == tag) {
			*e = (struct entry){ tag, be32(p + 4), be32(p + 8), be32(p + 12) };
			return true;
		}
	}
	return false;
}

static const char *tag_name(uint32_t tag)
{
	switch (tag) {
	case TAG_NAME:
		return "NAME";
	case TAG_VERSION:
		return "VERSION";
	case TAG_RELEASE:
		return "RELEASE";
	case TAG_EPOCH:
		return "EPOCH";
	case TAG_ARCH:
		return "ARCH";
	case TAG_OLDFILENAMES:
		return "OLDFILENAMES";
	case TAG_PROVIDENAME:
		return "PROVIDENAME";
	case TAG_REQUIRENAME:
		return "REQUIRENAME";
	case TAG_DIRINDEXES:
		return "DIRINDEXES";
	case TAG_BASENAMES:
		return "BASENAMES";
	case TAG_DIRNAMES:
		return "DIRNAMES";
	default:
		return "?";
	}
}

/*
 * The strings of a STRING, I18NSTRING or STRING_ARRAY entry: each one
 * NUL-terminated inside the data store; out[i] points into it. *n: how many
 * (at most max; a count above the data store's size is refused, since each
 * string takes at least one byte). 0, -EINVAL with err.
 */
static int strings(const struct hdr *h, const struct entry *e, const char **out, size_t max, size_t *n,
                   char *err, size_t errlen)
{
	*n = 0;
	if (e->type != T_STRING && e->type != T_STRING_ARRAY && e->type != T_I18NSTRING)
		return fail(err, errlen, "tag %u (%s) has type %u, not a string", e->tag, tag_name(e->tag),
		            e->type);
	uint32_t count = e->type == T_STRING ? 1 : e->count;
	if (count == 0 || count > h->dl)
		return fail(err, errlen, "tag %u (%s): count %u does not fit a data store of %u bytes",
		            e->tag, tag_name(e->tag), count, h->dl);
	size_t off = e->off;
	for (uint32_t i = 0; i < count; i++) {
		if (off >= h->dl)
			return fail(err, errlen,
			            "tag %u (%s): string %u at offset %zu past the data store (%u bytes)",
			            e->tag, tag_name(e->tag), i, off, h->dl);
		const uint8_t *z = memchr(h->data + off, '\0', h->dl - off);
		if (!z)
			return fail(err, errlen, "tag %u (%s): string %u at offset %zu is not terminated",
			            e->tag, tag_name(e->tag), i, off);
		if (out && *n < max)
			out[(*n)++] = (const char *)h->data + off;
		else if (!out)
			(*n)++;
		off = (size_t)(z - h->data) + 1;
		if (e->type == T_I18NSTRING)
			break; /* the first (C locale) translation is enough */
	}
	return 0;
}

/* One string (the first of the entry); NULL with *r 0 when the tag is absent. */
static const char *one_string(const struct hdr *h, uint32_t tag, int *r, char *err, size_t errlen)
{
	struct entry e;
	*r = 0;
	if (!find(h, tag, &e))
		return NULL;
	const char *s = NULL;
	size_t n = 0;
	*r = strings(h, &e, &s, 1, &n, err, errlen);
	return *r == 0 && n ? s : NULL;
}

/* Push each string of a STRING_ARRAY tag into out (at most max). */
static int push_array(const struct hdr *h, uint32_t tag, struct ga_strv *out, size_t max, char *err,
                      size_t errlen)
{
	struct entry e;
	if (!find(h, tag, &e))
		return 0;
	size_t n = 0;
	int r = strings(h, &e, NULL, 0, &n, err, errlen);
	if (r < 0)
		return r;
	/* walk again, pushing: the first pass proved every string terminated */
	size_t off = e.off;
	uint32_t count = e.type == T_STRING ? 1 : e.count;
	for (uint32_t i = 0; i < count && out->n < max; i++) {
		const char *s = (const char *)h->data + off;
		size_t k = strlen(s);
		if (ga_strv_push(out, s) < 0)
			return -ENOMEM;
		off += k + 1;
		if (e.type == T_I18NSTRING)
			break;
	}
	return 0;
}

static int add_file(struct ga_deps_pkg *p, const char *dir, const char *base)
{
	struct ga_buf b;
	ga_buf_init(&b, 8192);
	int r = ga_buf_adds(&b, dir);
	if (r == 0 && b.len && b.data[b.len - 1] != '/' && base[0])
		r = ga_buf_addc(&b, '/');
	if (r == 0)
		r = ga_buf_adds(&b, base);
	/* tree paths are relative: strip the root, also when an empty DIRNAME leaves it on the
	 * BASENAME ("" + "/x", found by fuzz_rpmhdr) */
	size_t lead = r == 0 ? strspn(b.data ? b.data : "", "/") : 0;
	if (r == 0 && b.len > lead)
		r = ga_strv_push(&p->files, b.data + lead) < 0 ? -ENOMEM : 0;
	else if (r == -E2BIG)
		r = 0; /* an absurd path: dropped */
	ga_buf_release(&b);
	return r;
}

/* DIRNAMES[DIRINDEXES[i]] + BASENAMES[i] (rpm >= 4.0), else OLDFILENAMES. */
static int file_names(const struct hdr *h, struct ga_deps_pkg *p, char *err, size_t errlen)
{
	struct entry eb, ed, ei;
	if (!find(h, TAG_BASENAMES, &eb)) {
		if (!find(h, TAG_OLDFILENAMES, &eb))
			return 0;
		struct ga_strv old = { 0 };
		int r = push_array(h, TAG_OLDFILENAMES, &old, MAX_FILES, err, errlen);
		for (size_t i = 0; r == 0 && i < old.n; i++)
			r = add_file(p, old.v[i], "");
		ga_strv_release(&old);
		return r;
	}
	if (!find(h, TAG_DIRNAMES, &ed) || !find(h, TAG_DIRINDEXES, &ei))
		return fail(err, errlen, "BASENAMES without DIRNAMES and DIRINDEXES");
	if (ei.type != T_INT32)
		return fail(err, errlen, "tag %u (DIRINDEXES) has type %u, not INT32", TAG_DIRINDEXES,
		            ei.type);
	if (ei.count != eb.count)
		return fail(err, errlen, "DIRINDEXES has %u entries but BASENAMES %u", ei.count, eb.count);
	if ((uint64_t)ei.off + (uint64_t)ei.count * 4 > h->dl)
		return fail(err, errlen,
		            "tag %u (DIRINDEXES): %u entries at offset %u past the data store (%u bytes)",
		            TAG_DIRINDEXES, ei.count, ei.off, h->dl);
	size_t nb = 0, nd = 0;
	int r = strings(h, &eb, NULL, 0, &nb, err, errlen);
	if (r == 0)
		r = strings(h, &ed, NULL, 0, &nd, err, errlen);
	if (r < 0)
		return r;
	if (nb > MAX_FILES || nd > MAX_FILES)
		return fail(err, errlen, "%zu BASENAMES and %zu DIRNAMES: more than %d files", nb, nd,
		            MAX_FILES);
	const char **dirs = ga_calloc(nd, sizeof(*dirs)), **bases = ga_calloc(nb, sizeof(*bases));
	if (!dirs || !bases) {
		r = -ENOMEM;
		goto out;
	}
	size_t k;
	if ((r = strings(h, &ed, dirs, nd, &k, err, errlen)) < 0 ||
	    (r = strings(h, &eb, bases, nb, &k, err, errlen)) < 0)
		goto out;
	for (size_t i = 0; i < nb && p->files.n < MAX_FILES; i++) {
		uint32_t di = be32(h->data + ei.off + i * 4);
		if (di >= nd) {
			r = fail(err, errlen, "DIRINDEXES[%zu] = %u, but there are %zu DIRNAMES", i, di, nd);
			goto out;
		}
		if ((r = add_file(p, dirs[di], bases[i])) < 0)
			goto out;
	}
out:
	ga_free(dirs);
	ga_free(bases);
	return r;
}

static int set_str(char **dst, const char *s)
{
	char *d = ga_strdup(s);
	if (!d)
		return -ENOMEM;
	ga_free(*dst);
	*dst = d;
	return 0;
}

int ga_rpm_parse_header_blob(const uint8_t *buf, size_t len, struct ga_deps_pkg *p, size_t *used, char *err,
                             size_t errlen)
{
	if (len < 8)
		return fail(err, errlen, "header truncated: %zu bytes, the counts alone take 8", len);
	struct hdr h = { .il = be32(buf), .dl = be32(buf + 4) };
	if (h.il == 0 || h.il > GA_RPM_MAX_INDEX)
		return fail(err, errlen, "header index count %u out of range (1..%u)", h.il,
		            GA_RPM_MAX_INDEX);
	if (h.dl > GA_RPM_MAX_DATA_BYTES)
		return fail(err, errlen, "header data store of %u bytes above the %u-byte limit", h.dl,
		            GA_RPM_MAX_DATA_BYTES);
	uint64_t need = 8 + (uint64_t)h.il * 16 + h.dl;
	if (need > len)
		return fail(err, errlen, "header truncated: index and data take %llu bytes, %zu present",
		            (unsigned long long)need, len);
	h.index = buf + 8;
	h.data = h.index + (size_t)h.il * 16;
	*used = (size_t)need;
	int r;
	const char *name = one_string(&h, TAG_NAME, &r, err, errlen);
	if (r < 0)
		return r;
	if (!name || !name[0])
		return fail(err, errlen, "header has no NAME");
	const char *ver = one_string(&h, TAG_VERSION, &r, err, errlen);
	if (r < 0)
		return r;
	const char *rel = one_string(&h, TAG_RELEASE, &r, err, errlen);
	if (r < 0)
		return r;
	const char *arch = one_string(&h, TAG_ARCH, &r, err, errlen);
	if (r < 0)
		return r;
	struct entry e;
	long long epoch = -1;
	if (find(&h, TAG_EPOCH, &e)) {
		if (e.type != T_INT32 || e.count < 1 || (uint64_t)e.off + 4 > h.dl)
			return fail(err, errlen, "tag %u (EPOCH) is not an INT32 inside the data store",
			            TAG_EPOCH);
		epoch = be32(h.data + e.off);
	}
	if ((r = set_str(&p->name, name)) < 0)
		return r;
	if (ver) {
		char v[512];
		int k = epoch > 0 ? snprintf(v, sizeof(v), "%lld:%s%s%s", epoch, ver, rel ? "-" : "",
		                             rel ? rel : "")
		                  : snprintf(v, sizeof(v), "%s%s%s", ver, rel ? "-" : "", rel ? rel : "");
		if (k > 0 && (size_t)k < sizeof(v) && (r = set_str(&p->version, v)) < 0)
			return r;
	}
	if (arch && (r = set_str(&p->arch, arch)) < 0)
		return r;
	if ((r = push_array(&h, TAG_REQUIRENAME, &p->requires, MAX_REQUIRES, err, errlen)) < 0 ||
	    (r = push_array(&h, TAG_PROVIDENAME, &p->provides, MAX_PROVIDES, err, errlen)) < 0)
		return r;
	return file_names(&h, p, err, errlen);
}

static const uint8_t hdr_magic[4] = { 0x8e, 0xad, 0xe8, 0x01 };

int ga_rpm_parse_package(const uint8_t *buf, size_t len, struct ga_deps_pkg *p, size_t *payload_off,
                         char *err, size_t errlen)
{
	if (len < RPM_LEAD_BYTES)
		return fail(err, errlen, "truncated: %zu bytes, the lead alone takes %d", len,
		            RPM_LEAD_BYTES);
	if (memcmp(buf, "\xed\xab\xee\xdb", 4))
		return fail(err, errlen, "not an rpm: no lead magic");
	if (buf[4] < 3 || buf[4] > 4)
		return fail(err, errlen, "rpm lead version %u.%u not understood (3 or 4)", buf[4], buf[5]);
	if (buf[78] != 0 || buf[79] != 5)
		return fail(err, errlen, "lead signature type %u, not 5 (a header-style signature)",
		            (unsigned)buf[78] << 8 | buf[79]);
	size_t off = RPM_LEAD_BYTES;
	/* the signature header: checked for shape, its tags not used; padded to 8 bytes */
	if (len - off < 16 || memcmp(buf + off, hdr_magic, 4))
		return fail(err, errlen, "signature header missing or without its magic at offset %zu", off);
	uint32_t il = be32(buf + off + 8), dl = be32(buf + off + 12);
	if (il > GA_RPM_MAX_INDEX || dl > GA_RPM_MAX_DATA_BYTES)
		return fail(err, errlen, "signature header: %u entries, %u data bytes: out of range", il, dl);
	uint64_t sig = 16 + (uint64_t)il * 16 + dl;
	sig = (sig + 7) & ~(uint64_t)7;
	if (sig > len - off)
		return fail(err, errlen, "signature header truncated: takes %llu bytes, %zu present",
		            (unsigned long long)sig, len - off);
	off += (size_t)sig;
	if (len - off < 16 || memcmp(buf + off, hdr_magic, 4))
		return fail(err, errlen, "main header missing or without its magic at offset %zu", off);
	size_t used = 0;
	int r = ga_rpm_parse_header_blob(buf + off + 8, len - off - 8, p, &used, err, errlen);
	if (r < 0)
		return r;
	*payload_off = off + 8 + used;
	return 0;
}

/* ---- into the inventory ---- */

static struct ga_deps_pkg *new_pkg(struct ga_deps_inventory *inv, size_t tree, const char *meta_dir,
                                   const char *meta_path, const char *root, size_t root_len)
{
	char *md = ga_strdup(meta_dir), *mp = ga_strdup(meta_path), *k = ga_strdup("rpm"),
	     *td = ga_strndup(root, root_len);
	struct ga_deps_pkg *p =
	        md && mp && k && td ? ga_array_push((void **)&inv->pkgs, &inv->n_pkgs, sizeof(*p)) : NULL;
	if (!p) {
		ga_free(md);
		ga_free(mp);
		ga_free(k);
		ga_free(td);
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	p->meta_dir = md;
	p->meta_path = mp;
	p->kind = k;
	p->tree_dir = td;
	p->tree = tree;
	return p;
}

/* Move what the parser filled (tmp) into a fresh inventory package. */
static int take_pkg(struct ga_deps_inventory *inv, size_t tree, const char *meta_dir, const char *meta_path,
                    struct ga_deps_pkg *tmp, bool owns_tree, const char *root, size_t root_len)
{
	struct ga_deps_pkg *p = new_pkg(inv, tree, meta_dir, meta_path, root, root_len);
	if (!p)
		return -ENOMEM;
	p->name = tmp->name;
	p->version = tmp->version;
	p->arch = tmp->arch;
	p->requires = tmp->requires;
	p->provides = tmp->provides;
	p->files = tmp->files;
	p->owns_tree = owns_tree;
	tmp->name = tmp->version = tmp->arch = NULL;
	tmp->requires = tmp->provides = tmp->files = (struct ga_strv){ 0 };
	return 0;
}

int ga_deps_rpm_mem(struct deps_scan *s, const char *shown, const uint8_t *buf, size_t len, unsigned depth)
{
	struct ga_deps_pkg tmp = { 0 };
	char err[256] = "";
	size_t payload = 0;
	int r = ga_rpm_parse_package(buf, len, &tmp, &payload, err, sizeof(err));
	if (r == -EINVAL) {
		r = ga_deps_add_gap(s->inv, shown, "rpm not understood: %s", err);
		goto out;
	}
	if (r < 0)
		goto out;
	long tree = ga_deps_add_tree(s->inv, shown, "rpm");
	if (tree < 0) {
		r = -ENOMEM;
		goto out;
	}
	/* the payload's files are the package's: its header's file list is not needed to own them */
	ga_strv_release(&tmp.files);
	if ((r = take_pkg(s->inv, (size_t)tree, "", shown, &tmp, true, "", 0)) < 0)
		goto out;
	r = ga_deps_archive_rpm(s, shown, buf, len, (size_t)tree, depth);
out:
	ga_deps_pkg_release(&tmp);
	return r;
}

static int db_progress(void *udata)
{
	unsigned *calls = udata;
	return ++*calls > DB_MAX_PROGRESS_CALLS;
}

int ga_deps_rpmdb_scan(struct deps_scan *s, size_t tree, const char *shown, const char *tp,
                       const uint8_t *buf, size_t len)
{
	const struct ga_sqlite_api *q = ga_sqlite_api_get();
	if (!q)
		return ga_deps_add_gap(s->inv, shown,
		                       "rpm database not read: libsqlite3.so.0 is not installed");
	if (len < 100 || memcmp(buf, "SQLite format 3", 16))
		return ga_deps_add_gap(s->inv, shown, "rpm database not read: not an SQLite 3 database");
	for (size_t i = 0; i < s->inv->n_pkgs; i++)
		if (s->inv->pkgs[i].tree == tree && !strcmp(s->inv->pkgs[i].kind, "rpm") &&
		    !strncmp(s->inv->pkgs[i].meta_dir, tp, strlen(tp)) &&
		    s->inv->pkgs[i].meta_dir[strlen(tp)] == '#')
			return 0; /* the other copy came first */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	unsigned char *copy = NULL;
	struct ga_buf key, label;
	ga_buf_init(&key, 0);
	ga_buf_init(&label, 0);
	int r = 0;
	size_t bad = 0, n = 0;
	char first_bad[256] = "";
	unsigned calls = 0;
	int rc;
	/*
	 * sqlite reads the copy in memory (deserialize: nothing is written to
	 * disk). A database left in WAL mode (header bytes 18 and 19 = 2) is
	 * opened as a rollback-journal one: an in-memory database has no WAL, and
	 * what a -wal file held is not in the image's copy of the main file anyway.
	 */
	copy = q->malloc64(len);
	if (!copy) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(copy, buf, len);
	if (copy[18] == 2 && copy[19] == 2)
		copy[18] = copy[19] = 1;
	if (q->open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
		r = ga_deps_add_gap(s->inv, shown, "rpm database not read: %s",
		                    db ? q->errmsg(db) : "no memory");
		goto out;
	}
	/* sqlite owns the copy from here, and frees it on failure too */
	rc = q->deserialize(db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
	                    SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
	copy = NULL;
	if (rc != SQLITE_OK) {
		r = ga_deps_add_gap(s->inv, shown, "rpm database not read: %s", q->errmsg(db));
		goto out;
	}
	/* rows in the table's order (hnum is its rowid); no sort, so a hostile view cannot make one grow */
	q->progress_handler(db, 1000, db_progress, &calls);
	q->limit(db, SQLITE_LIMIT_LENGTH, (int)GA_RPM_MAX_DATA_BYTES);
	if (q->prepare_v2(db, "SELECT blob FROM Packages", -1, &st, NULL) != SQLITE_OK) {
		r = ga_deps_add_gap(s->inv, shown, "rpm database not read: %s", q->errmsg(db));
		goto out;
	}
	while ((rc = q->step(st)) == SQLITE_ROW && n < MAX_DB_PACKAGES) {
		const uint8_t *blob = q->column_blob(st, 0);
		int bl = q->column_bytes(st, 0);
		struct ga_deps_pkg tmp = { 0 };
		char err[200] = "";
		size_t used = 0;
		n++;
		r = blob && bl > 0 ? ga_rpm_parse_header_blob(blob, (size_t)bl, &tmp, &used, err, sizeof(err))
		                   : (snprintf(err, sizeof(err), "empty blob"), -EINVAL);
		if (r == -EINVAL) {
			if (!bad++)
				snprintf(first_bad, sizeof(first_bad), "%s", err);
			r = 0;
		} else if (r == 0 && strcmp(tmp.name, "gpg-pubkey")) { /* a signing key, not a package */
			ga_buf_reset(&key);
			ga_buf_reset(&label);
			if (ga_buf_addf(&key, "%s#%s-%s", tp, tmp.name, tmp.version ? tmp.version : "") < 0 ||
			    ga_buf_addf(&label, "%s#%s", shown, tmp.name) < 0)
				r = -ENOMEM;
			else
				r = take_pkg(s->inv, tree, key.data, label.data, &tmp, false, tp,
				             (size_t)ga_deps_rpmdb_root_len(tp));
		}
		ga_deps_pkg_release(&tmp);
		if (r < 0)
			goto out;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = ga_deps_add_gap(s->inv, shown, "rpm database read stopped after %zu packages: %s", n,
		                    calls > DB_MAX_PROGRESS_CALLS ? "too much work (a hostile schema?)"
		                                                  : q->errmsg(db));
	else if (n >= MAX_DB_PACKAGES)
		r = ga_deps_add_gap(s->inv, shown, "rpm database: more than %d packages, the rest not read",
		                    MAX_DB_PACKAGES);
	if (r == 0 && bad)
		r = ga_deps_add_gap(s->inv, shown,
		                    "rpm database: %zu package headers not understood (first: %s)", bad,
		                    first_bad);
out:
	if (st)
		q->finalize(st);
	if (db)
		q->close(db);
	q->free(copy);
	ga_buf_release(&key);
	ga_buf_release(&label);
	return r;
}
