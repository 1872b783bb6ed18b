/*
 * deps_int.h - shared inside the artifact analysis (deps-signals.c,
 * deps-target.c, deps-verdicts.c, ldso.c): the sorted file index, the
 * lexical path join, and the loader simulation's interface.
 */
#ifndef GA_DEPS_INT_H
#define GA_DEPS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuaudit/deps.h"

/* A file or link of the inventory by (tree, tree path), for bsearch. */
struct ga_deps_file_key {
	size_t tree;
	const char *path;
	size_t index; /* into ga_deps_inventory.files */
};
int ga_deps_cmp_file_key(const void *a, const void *b);
/* dir + "/" + rel, normalised lexically ("a/b/../c" -> "a/c", no leading '/'); NULL on ENOMEM. */
char *ga_deps_norm_join(const char *dir, const char *rel);
/* "sm_90" / "sm_100" / "9.0" / "12.1" -> 90 / 100 / 90 / 121; -1 otherwise. */
int ga_deps_parse_sm(const char *s);
/* "6.2", "7.0.1" -> 6020, 7000; -1 otherwise. */
int ga_deps_dotted_version(const char *s);

/* ---- the loader simulation (ldso.c) ---- */

struct ga_ldso_edge {
	size_t loaded, loader; /* file indexes */
};

struct ga_ldso {
	struct ga_deps_file_key *keys; /* every file and link, sorted */
	size_t n;
	const struct ga_deps_inventory *inv;
	const struct ga_deps_target *t;
	struct ga_strv *conf; /* per tree: ld.so.conf directories */
	bool *conf_done;
	struct ga_ldso_edge *edges; /* who loads whom, sorted by loaded; built on first need */
	size_t n_edges;
	bool edges_done;
};

/* Index inv's files for t (which may be NULL). 0 or -ENOMEM; release in any case. */
int ga_ldso_init(struct ga_ldso *ix, const struct ga_deps_inventory *inv, const struct ga_deps_target *t);
void ga_ldso_release(struct ga_ldso *ix);
/*
 * Where the loader finds name for f without inherited RPATHs (f's RPATH,
 * LD_LIBRARY_PATH, RUNPATH, ld.so.conf, system directories): the entry's
 * index, -1 none, -2 out of memory.
 */
long ga_ldso_own_search(struct ga_ldso *ix, const struct ga_deps_file *f, const char *name);
/* name found through the DT_RPATH of an object that loads file fi, up the chain: 1, 0 no, -ENOMEM. */
int ga_ldso_inherited(struct ga_ldso *ix, size_t fi, const char *name);
/* The file a tree path names, through symlinks in the tree (plug-ins: deps-plugins.c); -1 none. */
long ga_ldso_follow(const struct ga_ldso *ix, size_t tree, const char *path);

#endif
