/*
 * archive_dl.h - libarchive, loaded on first use (lib/dl, row ARCHIVE) instead of linked.
 *
 * Linking libarchive maps and initialises it and its compressors and libxml2 in
 * every gpuaudit process (3.6 MiB of resident memory measured here), which the
 * long-running exporter (`serve`) would pay for nothing; only `deps` and `fleet`
 * read archives. Include this instead of <archive.h>: the libarchive names used
 * in the tree become calls through a table that ga_archive_read_new() fills on
 * its first call. ga_archive_read_new() returns NULL (errno ENOENT) when
 * libarchive.so.13 cannot be loaded, and every other call needs the archive it
 * returned, so nothing is called through an empty table.
 */
#ifndef GA_ARCHIVE_DL_H
#define GA_ARCHIVE_DL_H

#include <archive.h>
#include <archive_entry.h>

struct ga_archive_api {
	__typeof__(&archive_error_string) error_string;
	__typeof__(&archive_read_free) read_free;
	__typeof__(&archive_entry_pathname) entry_pathname;
	__typeof__(&archive_read_next_header) read_next_header;
	__typeof__(&archive_read_data) read_data;
	__typeof__(&archive_read_open_memory) read_open_memory;
	__typeof__(&archive_read_open) read_open;
	__typeof__(&archive_read_new) read_new;
	__typeof__(&archive_format) format;
	__typeof__(&archive_entry_size_is_set) entry_size_is_set;
	__typeof__(&archive_entry_size) entry_size;
	__typeof__(&archive_read_support_format_zip) support_format_zip;
	__typeof__(&archive_read_support_format_tar) support_format_tar;
	__typeof__(&archive_read_support_format_raw) support_format_raw;
	__typeof__(&archive_read_support_format_gnutar) support_format_gnutar;
	__typeof__(&archive_read_support_format_empty) support_format_empty;
	__typeof__(&archive_read_support_format_ar) support_format_ar;
	__typeof__(&archive_read_support_filter_zstd) support_filter_zstd;
	__typeof__(&archive_read_support_filter_xz) support_filter_xz;
	__typeof__(&archive_read_support_filter_gzip) support_filter_gzip;
	__typeof__(&archive_read_support_filter_bzip2) support_filter_bzip2;
	__typeof__(&archive_read_support_filter_all) support_filter_all;
	__typeof__(&archive_read_open_filename) read_open_filename;
	__typeof__(&archive_read_open_fd) read_open_fd;
	__typeof__(&archive_entry_symlink) entry_symlink;
	__typeof__(&archive_entry_hardlink) entry_hardlink;
	__typeof__(&archive_entry_filetype) entry_filetype;
	/* .rpm payloads (lib/deps/rpm.c): the rpm filter skips lead and headers, cpio holds the files */
	__typeof__(&archive_read_support_filter_rpm) support_filter_rpm;
	__typeof__(&archive_read_support_filter_lzma) support_filter_lzma;
	__typeof__(&archive_read_support_format_cpio) support_format_cpio;
};
extern struct ga_archive_api ga_archive_api;
struct archive *ga_archive_read_new(void);

#define archive_read_new ga_archive_read_new
#define archive_error_string ga_archive_api.error_string
#define archive_read_free ga_archive_api.read_free
#define archive_entry_pathname ga_archive_api.entry_pathname
#define archive_read_next_header ga_archive_api.read_next_header
#define archive_read_data ga_archive_api.read_data
#define archive_read_open_memory ga_archive_api.read_open_memory
#define archive_read_open ga_archive_api.read_open
#define archive_format ga_archive_api.format
#define archive_entry_size_is_set ga_archive_api.entry_size_is_set
#define archive_entry_size ga_archive_api.entry_size
#define archive_read_support_format_zip ga_archive_api.support_format_zip
#define archive_read_support_format_tar ga_archive_api.support_format_tar
#define archive_read_support_format_raw ga_archive_api.support_format_raw
#define archive_read_support_format_gnutar ga_archive_api.support_format_gnutar
#define archive_read_support_format_empty ga_archive_api.support_format_empty
#define archive_read_support_format_ar ga_archive_api.support_format_ar
#define archive_read_support_filter_zstd ga_archive_api.support_filter_zstd
#define archive_read_support_filter_xz ga_archive_api.support_filter_xz
#define archive_read_support_filter_gzip ga_archive_api.support_filter_gzip
#define archive_read_support_filter_bzip2 ga_archive_api.support_filter_bzip2
#define archive_read_support_filter_all ga_archive_api.support_filter_all
#define archive_read_open_filename ga_archive_api.read_open_filename
#define archive_read_open_fd ga_archive_api.read_open_fd
#define archive_entry_symlink ga_archive_api.entry_symlink
#define archive_entry_hardlink ga_archive_api.entry_hardlink
#define archive_entry_filetype ga_archive_api.entry_filetype
#define archive_read_support_filter_rpm ga_archive_api.support_filter_rpm
#define archive_read_support_filter_lzma ga_archive_api.support_filter_lzma
#define archive_read_support_format_cpio ga_archive_api.support_format_cpio

#endif
