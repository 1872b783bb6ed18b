/*
 * archive_dl.c - the libarchive table of archive_dl.h, filled on first use
 * through the one loader (dl.h, row ARCHIVE of libs.def).
 */
#include <errno.h>
#include <stddef.h>

#include "archive_dl.h"
#include "dl.h"

#undef archive_read_new

struct ga_archive_api ga_archive_api;

struct archive *ga_archive_read_new(void)
{
	static const struct ga_dl_sym syms[] = {
#define S(field, name) { { name }, offsetof(struct ga_archive_api, field), true }
		S(error_string, "archive_error_string"),
		S(read_free, "archive_read_free"),
		S(entry_pathname, "archive_entry_pathname"),
		S(read_next_header, "archive_read_next_header"),
		S(read_data, "archive_read_data"),
		S(read_open_memory, "archive_read_open_memory"),
		S(read_open, "archive_read_open"),
		S(read_new, "archive_read_new"),
		S(format, "archive_format"),
		S(entry_size_is_set, "archive_entry_size_is_set"),
		S(entry_size, "archive_entry_size"),
		S(support_format_zip, "archive_read_support_format_zip"),
		S(support_format_tar, "archive_read_support_format_tar"),
		S(support_format_raw, "archive_read_support_format_raw"),
		S(support_format_gnutar, "archive_read_support_format_gnutar"),
		S(support_format_empty, "archive_read_support_format_empty"),
		S(support_format_ar, "archive_read_support_format_ar"),
		S(support_filter_zstd, "archive_read_support_filter_zstd"),
		S(support_filter_xz, "archive_read_support_filter_xz"),
		S(support_filter_gzip, "archive_read_support_filter_gzip"),
		S(support_filter_bzip2, "archive_read_support_filter_bzip2"),
		S(support_filter_all, "archive_read_support_filter_all"),
		S(read_open_filename, "archive_read_open_filename"),
		S(read_open_fd, "archive_read_open_fd"),
		S(entry_symlink, "archive_entry_symlink"),
		S(entry_hardlink, "archive_entry_hardlink"),
		S(entry_filetype, "archive_entry_filetype"),
		S(support_filter_rpm, "archive_read_support_filter_rpm"),
		S(support_filter_lzma, "archive_read_support_filter_lzma"),
		S(support_format_cpio, "archive_read_support_format_cpio"),
#undef S
	};
	/* published whole, only when every symbol resolved; the library then stays loaded */
	if (!ga_dl_shared(GA_DL_ARCHIVE, syms, sizeof(syms) / sizeof(syms[0]), &ga_archive_api, NULL)) {
		errno = ENOENT;
		return NULL;
	}
	return ga_archive_api.read_new();
}
