/*
 * deps-inventory.h - what `gpuaudit deps` found in an artifact (a wheel,
 * image, package or directory): its trees, files, ELF facts, device-code
 * archs, packages and the gaps of what could not be read; the walk that fills
 * it (lib/deps/walk.c: libarchive, never extracted to disk; ELF through
 * elfscan.h) and the bounded metadata parsers (Python, conda, deb, npm, rpm);
 * the table of plug-in conventions (lib/deps/plugins.c). Nothing here judges:
 * the verdicts are deps.h's (analyze), the report document deps-report.h's.
 */
#ifndef GPUAUDIT_DEPS_INVENTORY_H
#define GPUAUDIT_DEPS_INVENTORY_H

#include "gpuaudit/elfscan.h"
#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Defaults of the zip-bomb bounds (configurable per scan). A member of any
 * size is read (spooled to an unlinked temporary file past a few MiB, so
 * memory stays bounded); what stops a hostile archive is what makes it
 * hostile: its expansion, its nesting, the total work.
 */
#define GA_DEPS_MAX_MEMBER_BYTES UINT64_MAX   /* one archive member: no cap unless asked */
#define GA_DEPS_MAX_TOTAL_BYTES (64ull << 30) /* all archive members of one scan, inflated */
#define GA_DEPS_MAX_NESTING 8                 /* archives inside archives */
#define GA_DEPS_NESTING_CEILING 16            /* what max_nesting may be raised to */
/*
 * One PATH (or one archive file met in a directory) may inflate to this many
 * times its size on disk, once past GA_DEPS_RATIO_FLOOR bytes: real
 * packages inflate 2-10 times, a zip bomb over 200 times.
 */
#define GA_DEPS_MAX_RATIO 100u
#define GA_DEPS_RATIO_FLOOR (256ull << 20)
#define GA_DEPS_MAX_META_BYTES (16u << 20) /* one metadata file (METADATA, RECORD, json) */

enum ga_dep_strength {
	GA_STRENGTH_HARD = 0, /* DT_NEEDED: the loader needs it before any code runs */
	GA_STRENGTH_SOFT,     /* dlopen (library name in the string data, .note.dlopen) */
	GA_STRENGTH_EMBEDDED, /* device code or a statically linked runtime inside the file */
	GA_STRENGTH_DECLARED, /* package metadata (Requires-Dist, local version, conda depends) */
	GA_STRENGTH_N
};
/* "hard", "soft", "embedded", "declared". */
const char *ga_dep_strength_name(enum ga_dep_strength s);

struct ga_dep_signal {
	enum ga_dep_backend backend;
	enum ga_dep_strength strength;
	char *what; /* "libcudart.so.12", "sm_90a cubin", "Requires-Dist: nvidia-cublas-cu12", "+cu126" */
	/* Runtime version it pins, 1000*major + 10*minor (12060 = 12.6); -1 when it does not tell. */
	int runtime_version;
};

/* One file found (on disk or as an archive member). */
struct ga_deps_file {
	char *path;      /* as shown: "dist/x.whl!/torch/lib/libtorch.so" */
	char *tree_path; /* path inside its tree, no leading '/': "torch/lib/libtorch.so" */
	size_t tree;     /* index into ga_deps_inventory.trees */
	uint64_t size_bytes;
	struct ga_elf_info *elf; /* NULL when not ELF and not a device-code blob */
	char *link;              /* a symbolic link: its target as stored; NULL otherwise */
	long pkg;                /* index into ga_deps_inventory.pkgs, -1 when no package owns it */
	struct ga_dep_signal *signals;
	size_t n_signals;
};

/*
 * A Python distribution (*.dist-info), a conda package (conda-meta, info/index.json), a Debian
 * package, an rpm (.rpm, an image's rpmdb.sqlite) or an npm package (package.json).
 */
struct ga_deps_pkg {
	char *kind; /* "python", "conda", "deb", "rpm", "npm" */
	char *name;
	char *version;       /* as written: "2.5.1+cu126" */
	char *local_version; /* the part after '+': "cu126", "rocm6.2", "cpu"; NULL when none */
	char *meta_path;     /* the metadata file, as shown */
	char *meta_dir;      /* tree path of the *.dist-info directory or the conda json file */
	size_t tree;
	bool owns_tree;          /* a conda package archive: every file of its tree is its own */
	char *tree_dir;          /* where its file list is relative to ("" = tree root) */
	struct ga_strv requires; /* Requires-Dist / depends entries, as written */
	struct ga_strv files;    /* RECORD / conda "files", relative to tree_dir */
	struct ga_dep_signal *signals;
	size_t n_signals;
	/* rpm (lib/deps/rpm.c): the header's ARCH ("x86_64", "noarch"; NULL none) and PROVIDENAME */
	char *arch;
	struct ga_strv provides;
	/* npm (lib/deps/npm.c): package.json "os", "cpu", "libc" (as written, "!win32" included) */
	struct ga_strv os, cpu, libc;
	struct ga_strv optional; /* npm optionalDependencies, "NAME@RANGE" */
	/* npm install-time scripts, "postinstall: node-pre-gyp install --fallback-to-build" */
	struct ga_strv install_scripts;
	/* npm: a script (or the node-pre-gyp "binary" field) that downloads binaries at install time:
	 * what it fetches is not in the artifact; NULL none, else why ("node-pre-gyp", "https://") */
	char *install_fetch;
	/* every file under tree_dir is its own (npm: the package's directory; a nested
	 * node_modules package is deeper and wins for its files) */
	bool owns_dir;
};

/* A loader configuration file found in a tree (etc/ld.so.conf, etc/ld.so.conf.d/NAME.conf). */
struct ga_deps_ldconf {
	char *path; /* tree path */
	char *text;
};

/* A tree: a scanned argument, an archive, or an image's merged layers. */
struct ga_deps_tree {
	char *name;            /* the argument, or "outer!/inner.whl" */
	char *kind;            /* "dir", "file", "zip", "wheel", "tar", "conda", "deb", "oci", "docker" */
	char *ld_library_path; /* an image config's Env LD_LIBRARY_PATH; NULL when none */
	struct ga_deps_ldconf *ldconf; /* the tree's ld.so.conf files (the loader's configured dirs) */
	size_t n_ldconf;
	/* nvreq: the image config's NVIDIA_REQUIRE_*, NVIDIA_DISABLE_REQUIRE and CUDA_VERSION Env entries
	 * ("KEY=value", in order; empty when none) and its com.nvidia.cuda.version label (NULL none) */
	struct ga_strv nvidia_env;
	char *cuda_version_label;
	/* plug-ins: the tree's OpenCL ICD files (etc/OpenCL/vendors/NAME.icd) and Vulkan ICD manifests
	 * ({usr/share,etc}/vulkan/icd.d/NAME.json), path and text as for ld.so.conf */
	struct ga_deps_ldconf *icds;
	size_t n_icds;
};

struct ga_deps_gap {
	char *path;
	char *reason;
	bool whole_path; /* a PATH argument that could not be opened at all (not in the JSON) */
};

struct ga_deps_inventory {
	struct ga_deps_tree *trees;
	size_t n_trees;
	struct ga_deps_file *files;
	size_t n_files;
	struct ga_deps_pkg *pkgs;
	size_t n_pkgs;
	struct ga_deps_gap *gaps;
	size_t n_gaps;
	uint64_t files_seen;     /* regular files and members looked at */
	uint64_t bytes_seen;     /* their sizes */
	uint64_t bytes_inflated; /* archive member bytes decompressed or skipped */
	bool truncated;          /* a cap stopped part of the scan (see gaps) */
	size_t paths;            /* PATH arguments given to ga_deps_scan */
	size_t paths_unread;     /* of them, those that could not be opened (each also a gap) */
	/* archive members too large to hold in memory: copied to a temporary file, or (stored
	 * uncompressed in a zip on disk) scanned in place in the zip's file (issue 28) */
	uint64_t members_spooled;
	uint64_t members_in_place;
};

struct ga_deps_opts {
	unsigned elf_flags;        /* GA_ELF_* (GA_ELF_NO_DEVICE_CODE for --no-device-code) */
	uint64_t max_member_bytes; /* UINT64_MAX: no cap */
	uint64_t max_total_bytes;
	unsigned max_nesting;
	unsigned max_ratio; /* inflated bytes per byte on disk, past GA_DEPS_RATIO_FLOOR; 0: no bound */
	/* where members too large to hold in memory are spooled (unlinked); NULL: /tmp */
	const char *spool_dir;
	/* Called for each file before it is inspected (progress line); may be NULL. */
	void (*progress)(void *udata, const struct ga_deps_inventory *inv, const char *path);
	void *progress_udata;
	/* archives (zip, jar, wheel, tar, ar, compressed) met in a directory walk are not
	 * opened (--no-archives): the files a NEEDED scanner such as scanelf reads; an
	 * archive named as a PATH is still opened */
	bool no_archives;
};

void ga_deps_opts_init(struct ga_deps_opts *o);
void ga_deps_inventory_init(struct ga_deps_inventory *inv);
void ga_deps_inventory_release(struct ga_deps_inventory *inv);

/*
 * Scan PATH (file, directory, archive, OCI layout directory) into inv. What
 * cannot be read is recorded in inv->gaps and the scan goes on. Returns 0,
 * -ENOENT etc. when PATH itself cannot be opened (message in ctx; PATH is
 * then a gap too and counted in inv->paths_unread), -ENOMEM.
 */
int ga_deps_scan(struct ga_ctx *ctx, const struct ga_deps_opts *o, const char *path,
                 struct ga_deps_inventory *inv);

/*
 * Inspect one in-memory file (an ELF, a device-code blob, a metadata file) as
 * if found at tree_path in tree `tree`; archives in memory are walked too.
 * Used by the walk and by tests. Returns 0 or -ENOMEM.
 */
int ga_deps_scan_buffer(struct ga_ctx *ctx, const struct ga_deps_opts *o, struct ga_deps_inventory *inv,
                        size_t tree, const char *shown_path, const char *tree_path, const uint8_t *buf,
                        size_t len);
/* Add a tree; returns its index or -ENOMEM. */
long ga_deps_add_tree(struct ga_deps_inventory *inv, const char *name, const char *kind);
int ga_deps_add_gap(struct ga_deps_inventory *inv, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* ---- metadata parsers (lib/deps/pymeta.c): pure, bounded ---- */

/* Parse a *.dist-info/METADATA text into pkg (name, version, local_version, requires). -EINVAL when no Name. */
int ga_pymeta_parse_metadata(const char *text, size_t len, struct ga_deps_pkg *pkg);
/* Parse a RECORD (CSV: path,hash,size) into pkg->files. */
int ga_pymeta_parse_record(const char *text, size_t len, struct ga_deps_pkg *pkg);
/* Parse a conda-meta/<pkg>.json or info/index.json: name, version, build, depends, files. */
int ga_pymeta_parse_conda(const char *text, size_t len, struct ga_deps_pkg *pkg);
/*
 * Parse one Debian control stanza at text (a .deb's control file, or the next
 * stanza of dpkg's var/lib/dpkg/status): Package, Version, Depends and
 * Pre-Depends (alternatives split at '|'), and Status (installed is false for
 * "deinstall ok config-files" and the like). *consumed: bytes used (parse on
 * from there). Returns 0, 1 at the end (no stanza left), -EINVAL when the
 * stanza has no Package, -ENOMEM.
 */
int ga_pymeta_parse_deb_control(const char *text, size_t len, struct ga_deps_pkg *pkg, size_t *consumed,
                                bool *installed);
void ga_deps_pkg_release(struct ga_deps_pkg *pkg);

/* ---- npm and rpm metadata (lib/deps/npm.c, lib/deps/rpm.c): pure, bounded ---- */

/*
 * Parse an npm package.json into pkg (kind left to the caller): name, version,
 * dependencies (pkg->requires, "NAME@RANGE"), optionalDependencies, os, cpu,
 * libc, the preinstall/install/postinstall scripts and whether one of them, or
 * a node-pre-gyp "binary" field, fetches binaries at install time. 0; 1 when
 * it is valid JSON without a "name" (a package.json that only sets "type" in
 * a subdirectory); -EINVAL with errbuf (not JSON, not an object, a name that
 * is not a string); -ENOMEM.
 */
int ga_npm_parse_package_json(const char *text, size_t len, struct ga_deps_pkg *pkg, char *errbuf,
                              size_t errlen);

/* Limits of the rpm header reader. */
#define GA_RPM_MAX_INDEX 65536             /* index entries of one header (rpm's own cap is lower) */
#define GA_RPM_MAX_DATA_BYTES (256u << 20) /* a header's data store */

/*
 * Parse an rpm header blob as stored in the rpm database (index count, data
 * length, index entries, data store; no magic) into pkg: NAME, EPOCH:VERSION-
 * RELEASE as version, ARCH, REQUIRENAME, PROVIDENAME and the file names
 * (DIRNAMES[DIRINDEXES[i]] + BASENAMES[i], or OLDFILENAMES; stored without the
 * leading '/'). *used: the blob's size. Every count, offset and string is
 * checked against the blob: -EINVAL with errbuf on anything out of range or
 * unterminated, or no NAME; -ENOMEM.
 */
int ga_rpm_parse_header_blob(const uint8_t *buf, size_t len, struct ga_deps_pkg *pkg, size_t *used,
                             char *errbuf, size_t errlen);
/*
 * Parse an .rpm file's 96-byte lead, its signature header (skipped, padded to
 * 8 bytes) and its main header (magic 8e ad e8 01, then a blob as above) into
 * pkg. *payload_off: where the compressed cpio payload starts. -EINVAL with
 * errbuf, -ENOMEM.
 */
int ga_rpm_parse_package(const uint8_t *buf, size_t len, struct ga_deps_pkg *pkg, size_t *payload_off,
                         char *errbuf, size_t errlen);

/* ---- plug-ins loaded by name: the table of conventions (lib/deps/plugins.c; their uses are judged in deps.h) ---- */

enum {
	GA_PLUGIN_SAME_DIR =
	        1u << 0, /* loaded from the directory of the library that names it (ONNX Runtime) */
	GA_PLUGIN_BACKEND = 1u << 1, /* without it the host's back end of that vendor is not available */
	GA_PLUGIN_ICD = 1u << 2,     /* a vendor library an OpenCL / Vulkan ICD file names */
};

struct ga_deps_plugin_conv {
	const char *stem; /* "libonnxruntime_providers_cuda"; a trailing '*' matches a prefix */
	enum ga_dep_backend backend;
	unsigned flags;     /* GA_PLUGIN_* */
	const char *host;   /* who loads it: "ONNX Runtime", "NCCL", "OpenCL ICD" */
	const char *brings; /* "CUDA execution provider" */
};
/* The convention a library name follows ("libnccl-net-ib.so", "/x/libonnxruntime_providers_cuda.so"); NULL none. */
const struct ga_deps_plugin_conv *ga_deps_plugin_find(const char *name);
const struct ga_deps_plugin_conv *ga_deps_plugin_table(size_t *ret_n);

#ifdef __cplusplus
}
#endif
#endif
