/*
 * sqlite_dl.h - libsqlite3, loaded on first use (lib/dl, row SQLITE) instead of linked.
 *
 * Only `deps` needs it, and only for an image's rpm database
 * (var/lib/rpm/rpmdb.sqlite, RHEL 9 and derivatives; lib/deps/rpm.c). Linking it
 * would map it into every gpuaudit process, the long-running `serve` included,
 * for nothing; this follows libarchive's pattern (archive_dl.h): headers at
 * build time only, the library loaded by its soname when first asked for.
 * ga_sqlite_api_get() returns NULL when libsqlite3.so.0 cannot be loaded or
 * lacks a symbol; the table is published whole, only when every symbol resolved.
 */
#ifndef GA_SQLITE_DL_H
#define GA_SQLITE_DL_H

#include <sqlite3.h>

struct ga_sqlite_api {
	__typeof__(&sqlite3_open_v2) open_v2;
	__typeof__(&sqlite3_close) close;
	__typeof__(&sqlite3_deserialize) deserialize;
	__typeof__(&sqlite3_malloc64) malloc64;
	__typeof__(&sqlite3_free) free;
	__typeof__(&sqlite3_prepare_v2) prepare_v2;
	__typeof__(&sqlite3_step) step;
	__typeof__(&sqlite3_finalize) finalize;
	__typeof__(&sqlite3_column_blob) column_blob;
	__typeof__(&sqlite3_column_bytes) column_bytes;
	__typeof__(&sqlite3_errmsg) errmsg;
	__typeof__(&sqlite3_progress_handler) progress_handler;
	__typeof__(&sqlite3_limit) limit;
};
/* The table, or NULL when libsqlite3.so.0 is not there (errno ENOENT). */
const struct ga_sqlite_api *ga_sqlite_api_get(void);

#endif
