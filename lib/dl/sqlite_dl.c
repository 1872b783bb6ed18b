/*
 * sqlite_dl.c - the libsqlite3 table of sqlite_dl.h, filled on first use
 * through the one loader (dl.h, row SQLITE of libs.def).
 */
#include <errno.h>
#include <stddef.h>

#include "dl.h"
#include "sqlite_dl.h"

static struct ga_sqlite_api api_table;

const struct ga_sqlite_api *ga_sqlite_api_get(void)
{
	static const struct ga_dl_sym syms[] = {
#define S(field, name) { { name }, offsetof(struct ga_sqlite_api, field), true }
		S(open_v2, "sqlite3_open_v2"),
		S(close, "sqlite3_close"),
		S(deserialize, "sqlite3_deserialize"),
		S(malloc64, "sqlite3_malloc64"),
		S(free, "sqlite3_free"),
		S(prepare_v2, "sqlite3_prepare_v2"),
		S(step, "sqlite3_step"),
		S(finalize, "sqlite3_finalize"),
		S(column_blob, "sqlite3_column_blob"),
		S(column_bytes, "sqlite3_column_bytes"),
		S(errmsg, "sqlite3_errmsg"),
		S(progress_handler, "sqlite3_progress_handler"),
		S(limit, "sqlite3_limit"),
#undef S
	};
	/* published whole, only when every symbol resolved; the library then stays loaded */
	if (!ga_dl_shared(GA_DL_SQLITE, syms, sizeof(syms) / sizeof(syms[0]), &api_table, NULL)) {
		errno = ENOENT;
		return NULL;
	}
	return &api_table;
}
