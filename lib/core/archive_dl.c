/* archive_dl.c - the libarchive table of archive_dl.h, filled on first use. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "archive_dl.h"

#undef archive_read_new

struct ga_archive_api ga_archive_api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;

static void load(void)
{
	void *h = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	struct ga_archive_api api;
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field, name) { name, offsetof(struct ga_archive_api, field) }
		SYM(error_string, "archive_error_string"),
		SYM(read_free, "archive_read_free"),
		SYM(entry_pathname, "archive_entry_pathname"),
		SYM(read_next_header, "archive_read_next_header"),
		SYM(read_data, "archive_read_data"),
		SYM(read_open_memory, "archive_read_open_memory"),
		SYM(read_open, "archive_read_open"),
		SYM(read_new, "archive_read_new"),
		SYM(format, "archive_format"),
		SYM(entry_size_is_set, "archive_entry_size_is_set"),
		SYM(entry_size, "archive_entry_size"),
		SYM(support_format_zip, "archive_read_support_format_zip"),
		SYM(support_format_tar, "archive_read_support_format_tar"),
		SYM(support_format_raw, "archive_read_support_format_raw"),
		SYM(support_format_gnutar, "archive_read_support_format_gnutar"),
		SYM(support_format_empty, "archive_read_support_format_empty"),
		SYM(support_format_ar, "archive_read_support_format_ar"),
		SYM(support_filter_zstd, "archive_read_support_filter_zstd"),
		SYM(support_filter_xz, "archive_read_support_filter_xz"),
		SYM(support_filter_gzip, "archive_read_support_filter_gzip"),
		SYM(support_filter_bzip2, "archive_read_support_filter_bzip2"),
		SYM(support_filter_all, "archive_read_support_filter_all"),
		SYM(read_open_filename, "archive_read_open_filename"),
		SYM(read_open_fd, "archive_read_open_fd"),
		SYM(entry_symlink, "archive_entry_symlink"),
		SYM(entry_hardlink, "archive_entry_hardlink"),
		SYM(entry_filetype, "archive_entry_filetype"),
		SYM(support_filter_rpm, "archive_read_support_filter_rpm"),
		SYM(support_filter_lzma, "archive_read_support_filter_lzma"),
		SYM(support_format_cpio, "archive_read_support_format_cpio"),
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
	ga_archive_api = api; /* published whole, only when every symbol resolved */
	loaded = true;        /* and the library stays loaded */
}

struct archive *ga_archive_read_new(void)
{
	pthread_once(&once, load);
	if (!loaded) {
		errno = ENOENT;
		return NULL;
	}
	return ga_archive_api.read_new();
}
