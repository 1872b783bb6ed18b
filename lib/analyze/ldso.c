/*
 * ldso.c - the loader simulation: where glibc's ld.so would find each
 * DT_NEEDED name inside a scanned tree, with $ORIGIN/$LIB/$PLATFORM
 * expansion (ga_elf_expand_origin), so that GA-DEPS-UNRESOLVED-NEEDED
 * (deps-verdicts.c) is judged as the loader judges it. Pure: it reads the
 * inventory (files, links, ld.so.conf texts), never the filesystem.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"
#include "gpuaudit/elfscan-analyze.h"

/*
 * The loader simulation (glibc ld.so's search order, docs/deps.md): a NEEDED
 * name of object X is looked for in X's DT_RPATH (only when X has no
 * DT_RUNPATH) and then the DT_RPATHs of the objects that load X, up the
 * chain; LD_LIBRARY_PATH (the target's and the image config's); X's own
 * DT_RUNPATH (never inherited); the directories the tree's etc/ld.so.conf
 * configures (with its include globs); the default and multiarch system
 * directories. $ORIGIN, $LIB and $PLATFORM are expanded per object.
 */
static long lookup(const struct ga_ldso *ix, size_t tree, const char *path)
{
	if (!ix->n)
		return -1; /* no files (an inventory of ICD files only): bsearch wants a non-null array */
	struct ga_deps_file_key want = { tree, path, 0 };
	const struct ga_deps_file_key *k =
	        bsearch(&want, ix->keys, ix->n, sizeof(*ix->keys), ga_deps_cmp_file_key);
	return k ? (long)k->index : -1;
}

/* The file a path names, through symlinks in the tree (8 hops at most); -1 none. */
static long follow(const struct ga_ldso *ix, size_t tree, const char *path)
{
	long i = lookup(ix, tree, path);
	for (int hop = 0; i >= 0 && ix->inv->files[i].link && hop < 8; hop++) {
		const struct ga_deps_file *f = &ix->inv->files[i];
		char *dir = ga_strdup(f->tree_path);
		if (!dir)
			return -1;
		char *sl = strrchr(dir, '/');
		if (sl)
			*sl = '\0';
		else
			dir[0] = '\0';
		char *next = ga_deps_norm_join(f->link[0] == '/' ? "" : dir, f->link);
		ga_free(dir);
		if (!next)
			return -1;
		i = lookup(ix, tree, next);
		ga_free(next);
	}
	return i;
}

/* The entry (file or link) name is found as in dirs; -1 none. */
static long find_in(const struct ga_ldso *ix, size_t tree, char *const *dirs, size_t n, const char *name)
{
	char path[4096];
	for (size_t i = 0; i < n; i++) {
		const char *d = dirs[i];
		while (*d == '/')
			d++;
		long k;
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", d, *d ? "/" : "", name) < sizeof(path) &&
		    (k = lookup(ix, tree, path)) >= 0)
			return k;
	}
	return -1;
}

static bool resolve_in(const struct ga_ldso *ix, size_t tree, char **dirs, size_t n, const char *name)
{
	return find_in(ix, tree, dirs, n, name) >= 0;
}

static const char *const system_dirs[] = { "lib",
	                                   "usr/lib",
	                                   "lib64",
	                                   "usr/lib64",
	                                   "lib/x86_64-linux-gnu",
	                                   "usr/lib/x86_64-linux-gnu",
	                                   "lib/aarch64-linux-gnu",
	                                   "usr/lib/aarch64-linux-gnu",
	                                   "usr/local/lib" };

/* Split a LD_LIBRARY_PATH-style list (':' or ';') into normalised tree directories. */
static int split_dirs(const char *list, struct ga_strv *out)
{
	while (list && *list) {
		size_t k = strcspn(list, ":;");
		if (k) {
			char *e = ga_strndup(list, k);
			char *d = e ? ga_deps_norm_join("", e) : NULL;
			ga_free(e);
			if (!d || ga_strv_push(out, d) < 0) {
				ga_free(d);
				return -ENOMEM;
			}
			ga_free(d);
		}
		list += k;
		if (*list)
			list++;
	}
	return 0;
}

/* One ld.so.conf file: directories, and include globs (relative ones to the file's directory). */
static int conf_file(const struct ga_deps_tree *tr, const char *path, struct ga_strv *out, unsigned depth)
{
	const struct ga_deps_ldconf *c = NULL;
	for (size_t i = 0; i < tr->n_ldconf && !c; i++)
		if (!strcmp(tr->ldconf[i].path, path))
			c = &tr->ldconf[i];
	if (!c || depth > 8)
		return 0;
	int r = 0;
	for (const char *line = c->text; line && *line && r == 0;) {
		size_t k = strcspn(line, "\n");
		char *l = ga_strndup(line, k);
		line += k + (line[k] == '\n');
		if (!l)
			return -ENOMEM;
		char *hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		char *save = NULL, *w = strtok_r(l, " \t\r,:", &save);
		if (w && !strcmp(w, "include")) {
			while (r == 0 && (w = strtok_r(NULL, " \t\r", &save))) {
				char dir[4096], pat[4096];
				snprintf(dir, sizeof(dir), "%s", path);
				char *sl = strrchr(dir, '/');
				if (sl)
					*sl = '\0';
				else
					dir[0] = '\0';
				if ((size_t)snprintf(pat, sizeof(pat), "%s%s%s", w[0] == '/' ? "" : dir,
				                     w[0] == '/' || !dir[0] ? "" : "/",
				                     w + (w[0] == '/')) >= sizeof(pat))
					continue;
				for (size_t i = 0; i < tr->n_ldconf && r == 0; i++)
					if (fnmatch(pat, tr->ldconf[i].path, FNM_PATHNAME) == 0)
						r = conf_file(tr, tr->ldconf[i].path, out, depth + 1);
			}
		} else if (w && strcmp(w, "hwcap")) {
			for (; w && r == 0; w = strtok_r(NULL, " \t\r,:", &save)) {
				char *eq = strchr(w, '='); /* legacy "DIR=TYPE" */
				if (eq)
					*eq = '\0';
				if (w[0] == '/')
					r = split_dirs(w, out);
			}
		}
		ga_free(l);
	}
	return r;
}

static const struct ga_strv *conf_dirs(struct ga_ldso *ix, size_t tree)
{
	if (!ix->conf_done[tree]) {
		ix->conf_done[tree] = true;
		if (conf_file(&ix->inv->trees[tree], "etc/ld.so.conf", &ix->conf[tree], 0) < 0)
			ga_strv_release(&ix->conf[tree]); /* out of memory: search without it */
	}
	return &ix->conf[tree];
}

/* The directory of f as $ORIGIN ("/opt/app"), and RPATH/RUNPATH list expanded for f's machine. */
static int expand_for(const struct ga_deps_file *f, const char *list, char ***dirs, size_t *n)
{
	char origin[4096];
	snprintf(origin, sizeof(origin), "/%s", f->tree_path);
	char *slash = strrchr(origin, '/');
	if (slash == origin)
		slash[1] = '\0';
	else
		*slash = '\0';
	const char *lib = NULL, *platform = NULL;
	if (f->elf->machine == 183) { /* EM_AARCH64 */
		lib = "lib/aarch64-linux-gnu";
		platform = "aarch64";
	} else if (f->elf->machine == 3) { /* EM_386 */
		lib = "lib/i386-linux-gnu";
		platform = "i686";
	}
	*dirs = NULL;
	*n = 0;
	return list ? ga_elf_expand_origin(list, origin, lib, platform, dirs, n) : 0;
}

/* Where the loader finds name for f without inherited RPATHs: the entry's index, -1 none, -ENOMEM as -2. */
long ga_ldso_own_search(struct ga_ldso *ix, const struct ga_deps_file *f, const char *name)
{
	const struct ga_elf_info *e = f->elf;
	char **dirs = NULL;
	size_t n = 0;
	long k = -1;
	/* RPATH (ignored when RUNPATH is present), LD_LIBRARY_PATH, RUNPATH, ld.so.conf, defaults */
	if (expand_for(f, e->runpath ? NULL : e->rpath, &dirs, &n) < 0)
		return -2;
	k = find_in(ix, f->tree, dirs, n, name);
	ga_elf_strv_free(dirs, n);
	struct ga_strv ld = { 0 };
	if (k < 0 && (split_dirs(ix->t ? ix->t->ld_library_path : NULL, &ld) < 0 ||
	              split_dirs(ix->inv->trees[f->tree].ld_library_path, &ld) < 0)) {
		ga_strv_release(&ld);
		return -2;
	}
	if (k < 0)
		k = find_in(ix, f->tree, ld.v, ld.n, name);
	ga_strv_release(&ld);
	if (k < 0 && e->runpath) {
		if (expand_for(f, e->runpath, &dirs, &n) < 0)
			return -2;
		k = find_in(ix, f->tree, dirs, n, name);
		ga_elf_strv_free(dirs, n);
	}
	if (k < 0) {
		const struct ga_strv *c = conf_dirs(ix, f->tree);
		k = find_in(ix, f->tree, c->v, c->n, name);
	}
	if (k < 0)
		k = find_in(ix, f->tree, (char *const *)system_dirs, GA_ARRAY_SIZE(system_dirs), name);
	/* A host directory stands for a configured library directory (ld.so.conf): its own dir counts. */
	if (k < 0 && !strcmp(ix->inv->trees[f->tree].kind, "dir")) {
		char own[4096];
		snprintf(own, sizeof(own), "%s", f->tree_path);
		char *sl = strrchr(own, '/');
		if (sl)
			*sl = '\0';
		else
			own[0] = '\0';
		char *d[1] = { own };
		k = find_in(ix, f->tree, d, 1, name);
	}
	return k;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct ga_ldso_edge *x = a, *y = b;
	if (x->loaded != y->loaded)
		return x->loaded < y->loaded ? -1 : 1;
	return x->loader < y->loader ? -1 : x->loader > y->loader;
}

static int build_edges(struct ga_ldso *ix)
{
	ix->edges_done = true;
	const struct ga_deps_inventory *inv = ix->inv;
	for (size_t i = 0; i < inv->n_files; i++) {
		const struct ga_deps_file *f = &inv->files[i];
		if (!f->elf || !f->elf->n_needed)
			continue;
		for (size_t k = 0; k < f->elf->n_needed; k++) {
			if (strchr(f->elf->needed[k], '/'))
				continue;
			long hit = ga_ldso_own_search(ix, f, f->elf->needed[k]);
			if (hit == -2)
				return -ENOMEM;
			if (hit >= 0)
				hit = follow(ix, f->tree, inv->files[hit].tree_path);
			if (hit < 0 || !inv->files[hit].elf || (size_t)hit == i)
				continue;
			struct ga_ldso_edge *e = ga_array_push((void **)&ix->edges, &ix->n_edges, sizeof(*e));
			if (!e)
				return -ENOMEM;
			*e = (struct ga_ldso_edge){ (size_t)hit, i };
		}
	}
	if (ix->n_edges)
		qsort(ix->edges, ix->n_edges, sizeof(*ix->edges), cmp_edge);
	return 0;
}

/*
 * name found through the DT_RPATH of an object that loads f, directly or up
 * the chain (f has no DT_RUNPATH): 1, 0 not found, -ENOMEM.
 */
int ga_ldso_inherited(struct ga_ldso *ix, size_t fi, const char *name)
{
	if (!ix->edges_done && build_edges(ix) < 0)
		return -ENOMEM;
	const struct ga_deps_inventory *inv = ix->inv;
	size_t *queue = ga_calloc(inv->n_files, sizeof(*queue));
	bool *seen = ga_calloc(inv->n_files, sizeof(*seen));
	int r = 0;
	if (!queue || !seen) {
		r = -ENOMEM;
		goto out;
	}
	size_t head = 0, tail = 0;
	queue[tail++] = fi;
	seen[fi] = true;
	while (head < tail && r == 0) {
		size_t cur = queue[head++];
		struct ga_ldso_edge want = { cur, 0 };
		size_t lo = 0, hi = ix->n_edges;
		while (lo < hi) { /* first edge of cur */
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_edge(&ix->edges[mid], &want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < ix->n_edges && ix->edges[k].loaded == cur && r == 0; k++) {
			size_t a = ix->edges[k].loader;
			if (seen[a])
				continue;
			seen[a] = true;
			queue[tail++] = a;
			const struct ga_deps_file *af = &inv->files[a];
			if (!af->elf->rpath || af->elf->runpath)
				continue; /* RPATH is ignored where RUNPATH is present; the chain goes on */
			char **dirs;
			size_t n;
			if (expand_for(af, af->elf->rpath, &dirs, &n) < 0) {
				r = -ENOMEM;
				break;
			}
			if (resolve_in(ix, inv->files[fi].tree, dirs, n, name))
				r = 1;
			ga_elf_strv_free(dirs, n);
		}
	}
out:
	ga_free(queue);
	ga_free(seen);
	return r;
}

int ga_ldso_init(struct ga_ldso *ix, const struct ga_deps_inventory *inv, const struct ga_deps_target *t)
{
	memset(ix, 0, sizeof(*ix));
	ix->inv = inv;
	ix->t = t;
	if ((inv->n_files && !(ix->keys = ga_calloc(inv->n_files, sizeof(*ix->keys)))) ||
	    (inv->n_trees && (!(ix->conf = ga_calloc(inv->n_trees, sizeof(*ix->conf))) ||
	                      !(ix->conf_done = ga_calloc(inv->n_trees, sizeof(*ix->conf_done))))))
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_files; i++)
		ix->keys[ix->n++] =
		        (struct ga_deps_file_key){ inv->files[i].tree, inv->files[i].tree_path, i };
	if (ix->n)
		qsort(ix->keys, ix->n, sizeof(*ix->keys), ga_deps_cmp_file_key);
	return 0;
}

void ga_ldso_release(struct ga_ldso *ix)
{
	ga_free(ix->keys);
	for (size_t i = 0; ix->conf && i < ix->inv->n_trees; i++)
		ga_strv_release(&ix->conf[i]);
	ga_free(ix->conf);
	ga_free(ix->conf_done);
	ga_free(ix->edges);
	memset(ix, 0, sizeof(*ix));
}

/* ---- $ORIGIN ------------------------------------------------------------- */

static bool idc(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Replace $NAME / ${NAME} at s (s[0] == '$'); returns chars consumed, 0 if no match. */
static size_t dst_token(const char *s, size_t n, const char *name, const char *val, struct ga_buf *out,
                        int *r)
{
	size_t nl = strlen(name);
	size_t used = 0;
	if (n >= nl + 3 && s[1] == '{' && !strncmp(s + 2, name, nl) && s[2 + nl] == '}')
		used = nl + 3;
	else if (n >= nl + 1 && !strncmp(s + 1, name, nl) && (n == nl + 1 || !idc(s[1 + nl])))
		used = nl + 1;
	if (used)
		*r = ga_buf_adds(out, val);
	return used;
}

/* Lexical normalisation of a path in place ("a/./b/../c" -> "a/c"). */
static void normalize(char *p)
{
	bool abs = p[0] == '/';
	char *comp[256];
	size_t nc = 0;
	char *save = NULL;
	size_t len = strlen(p);
	char *tmp = ga_strndup(p, len);
	if (!tmp)
		return;
	for (char *t = strtok_r(tmp, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..")) {
			if (nc && strcmp(comp[nc - 1], ".."))
				nc--;
			else if (!abs && nc < GA_ARRAY_SIZE(comp))
				comp[nc++] = t;
			continue;
		}
		if (nc < GA_ARRAY_SIZE(comp))
			comp[nc++] = t;
	}
	size_t o = 0;
	if (abs)
		p[o++] = '/';
	for (size_t i = 0; i < nc; i++) {
		size_t cl = strlen(comp[i]);
		if (i)
			p[o++] = '/';
		memcpy(p + o, comp[i], cl); /* never longer than the input */
		o += cl;
	}
	if (o == 0)
		p[o++] = '.';
	p[o] = '\0';
	ga_free(tmp);
}

int ga_elf_expand_origin(const char *path_list, const char *origin_dir, const char *lib_dir,
                         const char *platform, char ***ret_dirs, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0;
	int r = 0;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (!lib_dir)
		lib_dir = "lib/x86_64-linux-gnu";
	if (!platform)
		platform = "x86_64";
	if (!origin_dir || !*origin_dir)
		origin_dir = ".";
	const char *p = path_list ? path_list : "";
	while (*p || p == path_list) {
		const char *e = strchr(p, ':');
		size_t el = e ? (size_t)(e - p) : strlen(p);
		ga_buf_reset(&b);
		for (size_t i = 0; i < el && r == 0;) {
			size_t used = 0;
			if (p[i] == '$') {
				used = dst_token(p + i, el - i, "ORIGIN", origin_dir, &b, &r);
				if (!used)
					used = dst_token(p + i, el - i, "LIB", lib_dir, &b, &r);
				if (!used)
					used = dst_token(p + i, el - i, "PLATFORM", platform, &b, &r);
			}
			if (!used) {
				r = ga_buf_addc(&b, p[i]);
				used = 1;
			}
			i += used;
		}
		if (r < 0)
			goto out;
		if (b.len) {
			normalize(b.data);
			char *d = ga_strdup(b.data);
			char **slot = d ? ga_array_push((void **)&v, &n, sizeof(char *)) : NULL;
			if (!slot) {
				ga_free(d);
				r = -ENOMEM;
				goto out;
			}
			*slot = d;
		}
		if (!e)
			break;
		p = e + 1;
	}
	*ret_dirs = v;
	*ret_n = n;
	v = NULL;
	n = 0;
out:
	ga_buf_release(&b);
	ga_elf_strv_free(v, n);
	return r;
}

long ga_ldso_follow(const struct ga_ldso *ix, size_t tree, const char *path)
{
	return follow(ix, tree, path);
}
