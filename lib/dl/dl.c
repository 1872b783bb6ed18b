/*
 * dl.c - the one loader (dl.h): the table of libs.def, opening a row's
 * library by its sonames, binding a symbol table, and the process-wide
 * copies of the libraries that stay loaded. The only file of the tree that
 * calls dlopen, dlsym, dlinfo and dlclose.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"

#define GA_DL_LIB(id, name_, optional_, what_, ...) \
	static const char *const sonames_##id[] = { __VA_ARGS__, NULL };
#include "libs.def"
#undef GA_DL_LIB

const struct ga_dl_lib ga_dl_libs[GA_DL_N] = {
#define GA_DL_LIB(id, name_, optional_, what_, ...) \
	[GA_DL_##id] = { .name = name_, .optional = optional_, .what = what_, .sonames = sonames_##id },
#include "libs.def"
#undef GA_DL_LIB
};

/*
 * Resolve t[0..n) from LIB into OBJ: each entry gets the first of its names
 * that dlsym finds, NULL when none is. Returns n, or the index of the first
 * required entry not found (the binding stops there).
 */
static size_t bind_table(void *lib, const struct ga_dl_sym *t, size_t n, void *obj)
{
	for (size_t i = 0; i < n; i++) {
		void *p = NULL;
		for (size_t k = 0; k < 3 && t[i].names[k] && !p; k++)
			p = dlsym(lib, t[i].names[k]);
		if (!p && t[i].required)
			return i;
		/* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
		memcpy((char *)obj + t[i].off, &p, sizeof(p));
	}
	return n;
}

static void *load(const char *name, const char *dir, struct ga_dl_status *st)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h && !st->error[0])
		snprintf(st->error, sizeof(st->error), "%s", dlerror());
	if (!h && dir && !strchr(name, '/')) {
		char path[512];
		int w = snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (w > 0 && (size_t)w < sizeof(path))
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		st->in_dir = h != NULL;
	}
	return h;
}

void *ga_dl_open(enum ga_dl_id id, const char *const *names, const char *dir, const struct ga_dl_sym *t,
                 size_t n, void *obj, struct ga_dl_status *st)
{
	struct ga_dl_status scratch;
	if (!st)
		st = &scratch;
	memset(st, 0, sizeof(*st));
	if ((unsigned)id >= GA_DL_N)
		return NULL;
	if (!names)
		names = ga_dl_libs[id].sonames;
	void *h = NULL;
	for (size_t i = 0; names[i] && !h; i++)
		if ((h = load(names[i], dir, st)))
			st->loaded = names[i];
	size_t bound = h ? bind_table(h, t, n, obj) : 0;
	if (h && bound == n)
		return h;
	if (h) {
		st->missing = t[bound].names[0];
		dlclose(h);
	}
	void *null = NULL;
	for (size_t i = 0; i < n; i++) /* publish nothing of a partial table */
		memcpy((char *)obj + t[i].off, &null, sizeof(null));
	return NULL;
}

void ga_dl_close(void *lib)
{
	if (lib)
		dlclose(lib);
}

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool tried;
	void *lib;
	struct ga_dl_status st;
} shared[GA_DL_N];

void *ga_dl_shared(enum ga_dl_id id, const struct ga_dl_sym *t, size_t n, void *obj,
                   const struct ga_dl_status **st)
{
	if ((unsigned)id >= GA_DL_N)
		return NULL;
	pthread_mutex_lock(&shared_lock);
	if (!shared[id].tried) {
		shared[id].lib = ga_dl_open(id, NULL, NULL, t, n, obj, &shared[id].st);
		shared[id].tried = true;
	}
	void *h = shared[id].lib;
	pthread_mutex_unlock(&shared_lock);
	if (st)
		*st = &shared[id].st;
	return h;
}

bool ga_dl_path(void *lib, char *path, size_t len)
{
	struct link_map *lm = NULL;
	if (!lib || dlinfo(lib, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name || !*lm->l_name)
		return false;
	int w = snprintf(path, len, "%s", lm->l_name);
	return w > 0 && (size_t)w < len;
}
