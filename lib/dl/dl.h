/*
 * dl.h - inside lib/ (and src/serve-dl.c) only: the one way gpuaudit loads a
 * library at run time. Every library it may dlopen is a row of libs.def (its
 * sonames, what it is for, whether the package Depends on it); ga_dl_open and
 * ga_dl_shared open a row's library and bind the caller's symbol table into
 * the caller's struct. dl.c is the only file that calls dlopen, dlsym and
 * dlclose.
 *
 * A symbol table lists, per function pointer, the names to try and where the
 * pointer goes in the caller's struct; the loader fills it.
 */
#ifndef GA_DL_H
#define GA_DL_H

#include <stdbool.h>
#include <stddef.h>

enum ga_dl_id {
#define GA_DL_LIB(id, ...) GA_DL_##id,
#include "libs.def"
#undef GA_DL_LIB
	GA_DL_N
};

struct ga_dl_lib {
	const char *name;           /* "nvml" */
	bool optional;              /* false: the package Depends on it */
	const char *what;           /* who loads it, for what */
	const char *const *sonames; /* tried in order, NULL-terminated */
};
extern const struct ga_dl_lib ga_dl_libs[GA_DL_N];

struct ga_dl_sym {
	const char *names[3]; /* tried in order: the preferred (versioned) name first */
	size_t off;           /* offset of the function pointer in the caller's struct */
	bool required;        /* a missing one stops the binding */
};

/* A required symbol of one name, stored in field FIELD of TYPE. */
#define GA_DL_SYM(type, field)                          \
	{                                               \
		{ #field }, offsetof(type, field), true \
	}
/* The same, optional (left NULL when the library lacks it). */
#define GA_DL_OPT(type, field)                           \
	{                                                \
		{ #field }, offsetof(type, field), false \
	}

/* What one load did, for the caller's message. */
struct ga_dl_status {
	const char *loaded;  /* the name dlopen accepted; NULL when none did */
	const char *missing; /* the first required symbol not found; NULL when none */
	bool in_dir;         /* loaded is the name under the DIR of ga_dl_open */
	char error[256];     /* dlerror() of the first name that failed to load, or "" */
};

/*
 * Open library ID and bind t[0..n) into OBJ. NAMES (NULL-terminated) replaces
 * the row's sonames when not NULL (a --blas LIB, a test's fake); a name
 * dlopen does not take is retried under DIR when DIR is not NULL (cuBLAS
 * under the CUDA toolkit). Returns the handle (ga_dl_close it, or keep it for
 * the process's life), or NULL with why in *ST (ST may be NULL): no name
 * loaded (st->loaded NULL), or a required symbol is missing (st->missing;
 * the library is dlclosed again). On either, every entry of t in OBJ is NULL:
 * nothing of a partial table is ever published.
 */
void *ga_dl_open(enum ga_dl_id id, const char *const *names, const char *dir, const struct ga_dl_sym *t,
                 size_t n, void *obj, struct ga_dl_status *st);
void ga_dl_close(void *lib);

/*
 * The process-wide copy of library ID: the first call opens it (the row's
 * sonames) and binds t into OBJ, which must be static storage and the same
 * for every call; later calls return what the first found. Thread-safe; the
 * library, once loaded, stays loaded (libcurl, GnuTLS and the rest keep
 * global state). Returns the handle or NULL; *ST, when ST is not NULL, points
 * at the first call's status.
 */
void *ga_dl_shared(enum ga_dl_id id, const struct ga_dl_sym *t, size_t n, void *obj,
                   const struct ga_dl_status **st);

/* The path of the file handle LIB was loaded from, in PATH; false when the loader does not say. */
bool ga_dl_path(void *lib, char *path, size_t len);

#endif
