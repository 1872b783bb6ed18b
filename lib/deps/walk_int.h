/*
 * walk_int.h - shared between the directory walk (walk.c), the archive
 * reader (archive.c) and the inventory helpers both use (inventory.c).
 */
#ifndef GA_DEPS_WALK_INT_H
#define GA_DEPS_WALK_INT_H

#include "gpuaudit/deps-inventory.h"
#include "gpuaudit/strmap.h"

struct archive;

/*
 * An inflated archive member, contiguous (the ELF census needs the section
 * headers at the end together with the sections): an anonymous mapping asked
 * for transparent huge pages and populated a few MiB at a time ahead of the
 * data, so that inflating into it costs no page fault per 4 KiB page
 * (expensive on a VM). Reused from member to member and archive to archive.
 */
struct deps_membuf {
	uint8_t *data;
	size_t len, cap;  /* cap: the mapping's length; data[len] is kept '\0' */
	size_t populated; /* bytes from the start faulted in already */
};
/* Make room for need bytes plus a terminating NUL: 0 or -ENOMEM. */
int ga_deps_membuf_reserve(struct deps_membuf *m, size_t need);
void ga_deps_membuf_release(struct deps_membuf *m);

/* One scan: options, the inventory it fills, and a sticky stop flag (total cap hit). */
#define DEPS_MEMBER_BUFS 16

struct deps_scan;
/* What the walk does with a buffer (ga_deps_scan_buf); the archive reader calls it for every member. */
typedef int (*deps_scan_buf_fn)(struct deps_scan *s, size_t tree, const char *shown, const char *tree_path,
                                const uint8_t *buf, size_t len, unsigned depth);

/*
 * The same as deps_scan_buf_fn for a file mapped whole at buf (fd >= 0: the
 * ELF census reads it through fd in windows, so that resident memory stays
 * one window however large the file): a member spooled to a temporary file
 * (base 0), or stored uncompressed at offset base of a zip on disk.
 */
typedef int (*deps_scan_map_fn)(struct deps_scan *s, int fd, uint64_t base, size_t tree, const char *shown,
                                const char *tree_path, const uint8_t *buf, size_t len, unsigned depth);

struct deps_scan {
	struct ga_ctx *ctx;
	const struct ga_deps_opts *o;
	struct ga_deps_inventory *inv;
	/* ga_deps_scan_buf, through a pointer: archives hold archives, and archive.c calls no walk function */
	deps_scan_buf_fn scan_buf;
	deps_scan_map_fn scan_map;
	bool stopped;
	/*
	 * The input being read (a PATH, or an archive file of a directory): its
	 * size on disk, what its archives inflated so far, and whether it went past
	 * --max-ratio (the rest of it is then not read).
	 */
	uint64_t in_size, in_inflated;
	bool in_stopped;
	/*
	 * A file of the walk mapped whole (walk.c), while ga_deps_archive_mem
	 * reads it: a stream archive (tar, ar, compressed) is then fed to
	 * libarchive from the mapping in blocks whose pages are dropped behind it,
	 * so a 1 GB .deb does not stay resident while it is read.
	 */
	const uint8_t *file_map;
	size_t file_map_len;
	/* bytes of zips held in memory around the member being read (their members get the rest of the room) */
	uint64_t held_bytes;
	/*
	 * The zip on disk being read (ga_deps_archive_fd, depth 1), indexed by
	 * its central directory: a member stored uncompressed (method 0) too
	 * large to hold is scanned in place in the zip's file, not spooled.
	 * NULL: none (a stream, a nested archive, a zip not indexed).
	 */
	struct deps_zip_disk *zip_disk;
	/*
	 * One member buffer per nesting depth, reused from member to member: a fresh
	 * allocation per member would fault its pages in again (costly on a VM).
	 */
	struct deps_membuf member[DEPS_MEMBER_BUFS];
	struct ga_buf small; /* small files on disk are pread into it instead of mapped */
};
void ga_deps_scan_release(struct deps_scan *s);

/* A set of strings (open addressing), for whiteouts and layer shadowing. */

/* What a buffer's first bytes say it is. */
enum deps_magic { MAGIC_NONE = 0, MAGIC_ELF, MAGIC_DEVCODE, MAGIC_ZIP, MAGIC_ARCHIVE, MAGIC_RPM };
enum deps_magic ga_deps_sniff(const uint8_t *buf, size_t len);
/*
 * A static library (ar, not a .deb): its members are relocatable objects with
 * no dynamic section, so a NEEDED-only listing (GA_ELF_NO_DEVICE_CODE) skips it.
 */
bool ga_deps_skip_static_lib(const struct deps_scan *s, const uint8_t *buf, size_t len);
/* Metadata files the walk reads by name (METADATA, RECORD, conda json). */
bool ga_deps_is_meta_path(const char *tree_path);
/* The last component of p. */
const char *ga_deps_base_name(const char *p);
/* The parent directory's name of tree_path ends with suffix ("x/y.dist-info/METADATA", ".dist-info"). */
bool ga_deps_parent_is(const char *tree_path, const char *suffix);
/* The loader's configuration: etc/ld.so.conf and etc/ld.so.conf.d/NAME.conf at the tree's root. */
bool ga_deps_ldconf_path(const char *tree_path);
/* etc/OpenCL/vendors/NAME.icd, {usr/share,etc}/vulkan/icd.d/NAME.json */
bool ga_deps_icd_path(const char *tree_path);
/* Debian metadata: a .deb's control file (its control.tar is merged at the tree's root), dpkg's status. */
bool ga_deps_deb_meta_path(const char *tree_path);
/* dpkg's file list of one installed package: [ROOT/]var/lib/dpkg/info/NAME[:ARCH].list */
bool ga_deps_dpkg_list_path(const char *tree_path);
/* [ROOT/]var/lib/dpkg/status or a file list: the length of ROOT (0 none), -1 neither */
long ga_deps_dpkg_root_len(const char *tree_path);
/* Append a file record (no ELF info, no package yet); NULL on ENOMEM. */
struct ga_deps_file *ga_deps_add_file(struct deps_scan *s, size_t tree, const char *shown,
                                      const char *tree_path, uint64_t size);

/* walk.c: inspect one buffer (ELF, device code, metadata, or an archive to walk). */
int ga_deps_scan_buf(struct deps_scan *s, size_t tree, const char *shown, const char *tree_path,
                     const uint8_t *buf, size_t len, unsigned depth);
/* Record a symlink found in a tree (the loader simulation resolves names through it). */
int ga_deps_add_link(struct deps_scan *s, size_t tree, const char *shown, const char *tree_path,
                     const char *target);

/*
 * archive.c: the nesting gate. depth is the level of the archive about to be
 * opened (1: the PATH itself); beyond --max-nesting (never beyond
 * DEPS_NESTING_CEILING) it records a gap on shown and returns 1; 0 when
 * allowed, <0. Every archive walk passes it on entry, so the recursion is
 * bounded whatever opens the archive; callers also ask it first so that a
 * refused member is not read at all.
 */
#define DEPS_NESTING_CEILING GA_DEPS_NESTING_CEILING
int ga_deps_nest_refused(struct deps_scan *s, const char *shown, unsigned depth);

/*
 * archive.c: a new input begins (an archive file of size bytes at depth 1):
 * the --max-ratio accounting starts again.
 */
void ga_deps_input_begin(struct deps_scan *s, uint64_t size);

/* archive.c: walk an archive held in memory as a new tree (or into tree when into_tree >= 0). */
int ga_deps_archive_mem(struct deps_scan *s, const char *shown, const char *name_for_kind, const uint8_t *buf,
                        size_t len, long into_tree, unsigned depth);
/*
 * archive.c: walk a zip on disk (fd, a regular file) as a new tree, read through
 * libarchive's seekable zip reader (central directory) rather than mapped.
 */
int ga_deps_archive_fd(struct deps_scan *s, int fd, const char *shown, const char *name_for_kind,
                       unsigned depth);
/* archive.c: an OCI image layout directory (oci-layout + index.json + blobs/). */
int ga_deps_oci_dir(struct deps_scan *s, const char *dir, const char *shown);

/*
 * archive.c: walk an .rpm's payload (libarchive's rpm filter, then the cpio it
 * holds) into tree. 0 or <0; what cannot be read is a gap.
 */
int ga_deps_archive_rpm(struct deps_scan *s, const char *shown, const uint8_t *buf, size_t len, size_t tree,
                        unsigned depth);

/* rpm.c: an .rpm in memory: its header as a package owning a new tree, its payload walked into it. */
int ga_deps_rpm_mem(struct deps_scan *s, const char *shown, const uint8_t *buf, size_t len, unsigned depth);
/* inventory.c: the rpm database's paths (var/lib/rpm/rpmdb.sqlite, usr/lib/sysimage/rpm/rpmdb.sqlite). */
bool ga_deps_rpmdb_path(const char *tree_path);
/* inventory.c: the length of the root the database's file names are relative to; -1 not a database. */
long ga_deps_rpmdb_root_len(const char *tree_path);
/* rpm.c: an rpmdb.sqlite in memory: one package per header blob, owning the files it lists. */
int ga_deps_rpmdb_scan(struct deps_scan *s, size_t tree, const char *shown, const char *tree_path,
                       const uint8_t *buf, size_t len);
/* inventory.c: a package.json (basename) anywhere in a tree. */
bool ga_deps_npm_path(const char *tree_path);
/* npm.c: a package.json in memory: an npm package owning the files under its directory. */
int ga_deps_npm_scan(struct deps_scan *s, size_t tree, const char *shown, const char *tree_path,
                     const uint8_t *buf, size_t len);

/* Lexically normalise an archive member or path: drop "./", leading '/', "." and ".." (never above the root). */
char *ga_deps_norm_path(const char *p);

#endif
