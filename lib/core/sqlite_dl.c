/* sqlite_dl.c - the libsqlite3 table of sqlite_dl.h, filled on first use. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "sqlite_dl.h"

static struct ga_sqlite_api api_table;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;

static void load(void)
{
	void *h = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	struct ga_sqlite_api api;
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field, name) { name, offsetof(struct ga_sqlite_api, field) }
		SYM(open_v2, "sqlite3_open_v2"),
		SYM(close, "sqlite3_close"),
		SYM(deserialize, "sqlite3_deserialize"),
		SYM(malloc64, "sqlite3_malloc64"),
		SYM(free, "sqlite3_free"),
		SYM(prepare_v2, "sqlite3_prepare_v2"),
		SYM(step, "sqlite3_step"),
		SYM(finalize, "sqlite3_finalize"),
		SYM(column_blob, "sqlite3_column_blob"),
		SYM(column_bytes, "sqlite3_column_bytes"),
		SYM(errmsg, "sqlite3_errmsg"),
		SYM(progress_handler, "sqlite3_progress_handler"),
		SYM(limit, "sqlite3_limit"),
#undef SYM
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(h, syms[i].name);
		if (!p) {
			dlclose(h);
			return;
		}
		*(void **)((char *)&api + syms[i].off) = p;
	}
	api_table = api; /* published whole, only when every symbol resolved */
	loaded = true;   /* and the library stays loaded */
}

const struct ga_sqlite_api *ga_sqlite_api_get(void)
{
	pthread_once(&once, load);
	if (!loaded) {
		errno = ENOENT;
		return NULL;
	}
	return &api_table;
}
