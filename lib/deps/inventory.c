/*
 * inventory.c - the artifact inventory's records (trees, files, links,
 * packages, gaps; their release) and the helpers every reader of a tree
 * shares: what a buffer is (sniff), which paths are metadata, lexical path
 * normalisation, a string set. Its own file so that the walk (walk.c) and the
 * archive reader (archive.c) both use it without calling each other back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "walk_int.h"

const char *ga_dep_strength_name(enum ga_dep_strength s)
{
	static const char *const names[] = { "hard", "soft", "embedded", "declared" };
	return (unsigned)s < GA_STRENGTH_N ? names[s] : "unknown";
}

void ga_deps_opts_init(struct ga_deps_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_member_bytes = GA_DEPS_MAX_MEMBER_BYTES;
	o->max_total_bytes = GA_DEPS_MAX_TOTAL_BYTES;
	o->max_nesting = GA_DEPS_MAX_NESTING;
	o->max_ratio = GA_DEPS_MAX_RATIO;
}

void ga_deps_inventory_init(struct ga_deps_inventory *inv)
{
	memset(inv, 0, sizeof(*inv));
}

static void signals_free(struct ga_dep_signal *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ga_free(v[i].what);
	ga_free(v);
}

void ga_deps_pkg_release(struct ga_deps_pkg *p)
{
	if (!p)
		return;
	ga_free(p->kind);
	ga_free(p->name);
	ga_free(p->version);
	ga_free(p->local_version);
	ga_free(p->meta_path);
	ga_free(p->meta_dir);
	ga_free(p->tree_dir);
	ga_strv_release(&p->requires);
	ga_strv_release(&p->files);
	signals_free(p->signals, p->n_signals);
	ga_free(p->arch);
	ga_strv_release(&p->provides);
	ga_strv_release(&p->os);
	ga_strv_release(&p->cpu);
	ga_strv_release(&p->libc);
	ga_strv_release(&p->optional);
	ga_strv_release(&p->install_scripts);
	ga_free(p->install_fetch);
	memset(p, 0, sizeof(*p));
}

void ga_deps_inventory_release(struct ga_deps_inventory *inv)
{
	for (size_t i = 0; i < inv->n_trees; i++) {
		ga_free(inv->trees[i].name);
		ga_free(inv->trees[i].kind);
		ga_free(inv->trees[i].ld_library_path);
		ga_strv_release(&inv->trees[i].nvidia_env);
		ga_free(inv->trees[i].cuda_version_label);
		for (size_t k = 0; k < inv->trees[i].n_ldconf; k++) {
			ga_free(inv->trees[i].ldconf[k].path);
			ga_free(inv->trees[i].ldconf[k].text);
		}
		ga_free(inv->trees[i].ldconf);
		for (size_t k = 0; k < inv->trees[i].n_icds; k++) {
			ga_free(inv->trees[i].icds[k].path);
			ga_free(inv->trees[i].icds[k].text);
		}
		ga_free(inv->trees[i].icds);
	}
	for (size_t i = 0; i < inv->n_files; i++) {
		struct ga_deps_file *f = &inv->files[i];
		ga_free(f->path);
		ga_free(f->tree_path);
		ga_free(f->link);
		ga_elf_info_free(f->elf);
		signals_free(f->signals, f->n_signals);
	}
	for (size_t i = 0; i < inv->n_pkgs; i++)
		ga_deps_pkg_release(&inv->pkgs[i]);
	for (size_t i = 0; i < inv->n_gaps; i++) {
		ga_free(inv->gaps[i].path);
		ga_free(inv->gaps[i].reason);
	}
	ga_free(inv->trees);
	ga_free(inv->files);
	ga_free(inv->pkgs);
	ga_free(inv->gaps);
	memset(inv, 0, sizeof(*inv));
}

long ga_deps_add_tree(struct ga_deps_inventory *inv, const char *name, const char *kind)
{
	char *n = ga_strdup(name), *k = ga_strdup(kind);
	struct ga_deps_tree *t =
	        n && k ? ga_array_push((void **)&inv->trees, &inv->n_trees, sizeof(*t)) : NULL;
	if (!t) {
		ga_free(n);
		ga_free(k);
		return -ENOMEM;
	}
	t->name = n;
	t->kind = k;
	return (long)(inv->n_trees - 1);
}

int ga_deps_add_gap(struct ga_deps_inventory *inv, const char *path, const char *fmt, ...)
{
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	va_list ap;
	va_start(ap, fmt);
	int r = ga_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	char *p = ga_strdup(path);
	struct ga_deps_gap *g =
	        r == 0 && p ? ga_array_push((void **)&inv->gaps, &inv->n_gaps, sizeof(*g)) : NULL;
	if (!g) {
		ga_free(p);
		ga_buf_release(&b);
		return -ENOMEM;
	}
	g->path = p;
	g->reason = ga_buf_detach(&b, NULL);
	return 0;
}

/* ---- classification ---- */

enum deps_magic ga_deps_sniff(const uint8_t *b, size_t len)
{
	if (len >= 4 && !memcmp(b,
	                        "\x7f"
	                        "ELF",
	                        4))
		return MAGIC_ELF;
	if (len >= 4 && !memcmp(b, "\x50\xed\x55\xba", 4))
		return MAGIC_DEVCODE;
	if (len >= 24 && !memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24))
		return MAGIC_DEVCODE;
	if (len >= 8 && !memcmp(b, "CCOB", 4))
		return MAGIC_DEVCODE;
	if (len >= 4 && !memcmp(b, "\xed\xab\xee\xdb", 4))
		return MAGIC_RPM; /* an .rpm's lead */
	if (len >= 4 && (!memcmp(b, "PK\3\4", 4) || !memcmp(b, "PK\5\6", 4)))
		return MAGIC_ZIP;
	if (len >= 3 && !memcmp(b, "\x1f\x8b\x08", 3))
		return MAGIC_ARCHIVE;
	if (len >= 4 && !memcmp(b, "BZh", 3) && b[3] >= '1' && b[3] <= '9')
		return MAGIC_ARCHIVE;
	if (len >= 6 && !memcmp(b,
	                        "\xfd"
	                        "7zXZ\0",
	                        6))
		return MAGIC_ARCHIVE;
	if (len >= 4 && !memcmp(b, "\x28\xb5\x2f\xfd", 4))
		return MAGIC_ARCHIVE;
	if (len >= 8 && !memcmp(b, "!<arch>\n", 8))
		return MAGIC_ARCHIVE;
	if (len >= 263 && !memcmp(b + 257, "ustar", 5))
		return MAGIC_ARCHIVE;
	return MAGIC_NONE;
}

bool ga_deps_skip_static_lib(const struct deps_scan *s, const uint8_t *buf, size_t len)
{
	return (s->o->elf_flags & GA_ELF_NO_DEVICE_CODE) && len >= 8 && !memcmp(buf, "!<arch>\n", 8) &&
	       !(len >= 21 && !memcmp(buf + 8, "debian-binary", 13));
}

const char *ga_deps_base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* The parent directory's name of tree_path ends with suffix ("x/y.dist-info/METADATA", ".dist-info"). */
bool ga_deps_parent_is(const char *tree_path, const char *suffix)
{
	const char *slash = strrchr(tree_path, '/');
	if (!slash)
		return false;
	const char *start = tree_path;
	for (const char *p = tree_path; p < slash; p++)
		if (*p == '/')
			start = p + 1;
	size_t plen = (size_t)(slash - start), k = strlen(suffix);
	return plen >= k && !memcmp(slash - k, suffix, k);
}

static bool parent_eq(const char *tree_path, const char *name)
{
	const char *slash = strrchr(tree_path, '/');
	if (!slash)
		return false;
	size_t k = strlen(name), plen = (size_t)(slash - tree_path);
	return plen >= k && !memcmp(slash - k, name, k) && (plen == k || slash[-(long)k - 1] == '/');
}

/* The loader's configuration: etc/ld.so.conf and etc/ld.so.conf.d/NAME.conf at the tree's root. */
bool ga_deps_ldconf_path(const char *tp)
{
	return !strcmp(tp, "etc/ld.so.conf") || (!strncmp(tp, "etc/ld.so.conf.d/", 17) &&
	                                         !strchr(tp + 17, '/') && ends_with(tp + 17, ".conf"));
}

/*
 * Debian metadata: a .deb's control file (its control.tar is merged at the
 * tree's root), dpkg's status, and the file list dpkg keeps of each installed
 * package (var/lib/dpkg/info/NAME[:ARCH].list).
 */
bool ga_deps_deb_meta_path(const char *tp)
{
	return !strcmp(tp, "control") || ga_deps_dpkg_root_len(tp) >= 0;
}

/*
 * The root of dpkg's database that tp is part of (status or info/NAME.list):
 * the length of the part before "var/lib/dpkg/" less its '/' (0 at the
 * tree's root; a directory scanned as a root has absolute tree paths, as for
 * rpm's database); -1 when tp is neither.
 */
long ga_deps_dpkg_root_len(const char *tp)
{
	const char *hit = NULL;
	for (const char *p = strstr(tp, "var/lib/dpkg/"); p; p = strstr(p + 1, "var/lib/dpkg/"))
		if (p == tp || p[-1] == '/')
			hit = p;
	if (!hit)
		return -1;
	const char *rest = hit + 13;
	bool ok = !strcmp(rest, "status") || (!strncmp(rest, "info/", 5) && !strchr(rest + 5, '/') &&
	                                      strlen(rest + 5) > 5 && ends_with(rest + 5, ".list"));
	return !ok ? -1 : hit == tp ? 0 : (long)(hit - tp - 1);
}

bool ga_deps_dpkg_list_path(const char *tp)
{
	return ga_deps_dpkg_root_len(tp) >= 0 && ends_with(tp, ".list");
}

/* OpenCL ICD files and Vulkan ICD manifests: they name the vendor library the loader opens. */
bool ga_deps_icd_path(const char *tp)
{
	static const char *const dirs[] = { "etc/OpenCL/vendors/", "usr/share/vulkan/icd.d/",
		                            "etc/vulkan/icd.d/" };
	for (size_t i = 0; i < GA_ARRAY_SIZE(dirs); i++) {
		size_t k = strlen(dirs[i]);
		if (!strncmp(tp, dirs[i], k) && !strchr(tp + k, '/') &&
		    ends_with(tp + k, i == 0 ? ".icd" : ".json"))
			return true;
	}
	return false;
}

/* rpm's database (lib/deps/rpm.c) */
static const char *const rpmdb_paths[] = { "var/lib/rpm/rpmdb.sqlite", "usr/lib/sysimage/rpm/rpmdb.sqlite",
	                                   NULL };

/* The root the database's file names are relative to: tp less the database's path; -1 not a database. */
long ga_deps_rpmdb_root_len(const char *tp)
{
	size_t n = strlen(tp);
	for (size_t i = 0; rpmdb_paths[i]; i++) {
		size_t k = strlen(rpmdb_paths[i]);
		if (n == k && !strcmp(tp, rpmdb_paths[i]))
			return 0;
		if (n > k && tp[n - k - 1] == '/' && !strcmp(tp + n - k, rpmdb_paths[i]))
			return (long)(n - k - 1);
	}
	return -1;
}

/* at a tree's root, or under a directory scanned as one (tree paths of a directory are absolute) */
bool ga_deps_rpmdb_path(const char *tp)
{
	return ga_deps_rpmdb_root_len(tp) >= 0;
}

/* npm (lib/deps/npm.c) */
bool ga_deps_npm_path(const char *tp)
{
	return !strcmp(ga_deps_base_name(tp), "package.json");
}

bool ga_deps_is_meta_path(const char *tp)
{
	const char *b = ga_deps_base_name(tp);
	if (ga_deps_ldconf_path(tp) || ga_deps_deb_meta_path(tp) || ga_deps_icd_path(tp) ||
	    ga_deps_rpmdb_path(tp) || ga_deps_npm_path(tp))
		return true;
	if ((!strcmp(b, "METADATA") || !strcmp(b, "RECORD")) && ga_deps_parent_is(tp, ".dist-info"))
		return true;
	if (ends_with(b, ".json") && parent_eq(tp, "conda-meta"))
		return true;
	return !strcmp(tp, "info/index.json");
}

char *ga_deps_norm_path(const char *p)
{
	size_t n = strlen(p);
	char *out = ga_malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	const char *s = p;
	while (*s) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t k = (size_t)(e - s);
		if (k == 0 || (k == 1 && s[0] == '.')) {
			/* skip */
		} else if (k == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o)
				out[o++] = '/';
			memcpy(out + o, s, k);
			o += k;
		}
		s = e;
	}
	out[o] = '\0';
	return out;
}

struct ga_deps_file *ga_deps_add_file(struct deps_scan *s, size_t tree, const char *shown, const char *tp,
                                      uint64_t size)
{
	char *a = ga_strdup(shown), *b = ga_strdup(tp);
	struct ga_deps_file *f =
	        a && b ? ga_array_push((void **)&s->inv->files, &s->inv->n_files, sizeof(*f)) : NULL;
	if (!f) {
		ga_free(a);
		ga_free(b);
		return NULL;
	}
	f->path = a;
	f->tree_path = b;
	f->tree = tree;
	f->size_bytes = size;
	f->pkg = -1;
	return f;
}

int ga_deps_add_link(struct deps_scan *s, size_t tree, const char *shown, const char *tp, const char *target)
{
	char *t = ga_strdup(target ? target : "");
	if (!t)
		return -ENOMEM;
	struct ga_deps_file *f = ga_deps_add_file(s, tree, shown, tp, 0);
	if (!f) {
		ga_free(t);
		return -ENOMEM;
	}
	f->link = t;
	return 0;
}
