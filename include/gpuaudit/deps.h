/*
 * deps.h - the artifact inventory (what a wheel, image, package or directory
 * holds that ties it to a GPU vendor), the walk that fills it, and the pure
 * verdicts that judge it against a target node.
 *
 * Collect (impure): ga_deps_scan walks files, directories and archives
 * (libarchive, never extracted to disk), inspects every ELF file through
 * elfscan.h and reads Python (*.dist-info) and conda metadata. Analyze (pure):
 * ga_deps_signals derives backend signals per file and per package;
 * ga_deps_judge compares them with a ga_deps_target and emits findings with
 * stable GA-DEPS-* codes (docs/deps.md).
 */
#ifndef GPUAUDIT_DEPS_H
#define GPUAUDIT_DEPS_H

#include "gpuaudit/elfscan.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_DEPS_SCHEMA "gpuaudit.deps/v1"

/* Defaults of the zip-bomb caps (configurable per scan). */
#define GA_DEPS_MAX_MEMBER_BYTES (64ull << 20) /* archive members held in memory at once (ELF, zip) */
#define GA_DEPS_MAX_TOTAL_BYTES (64ull << 30)  /* all archive members of one scan, inflated */
#define GA_DEPS_MAX_NESTING 8                  /* archives inside archives */
#define GA_DEPS_MAX_META_BYTES (16u << 20)     /* one metadata file (METADATA, RECORD, json) */

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
};

struct ga_deps_opts {
	unsigned elf_flags; /* GA_ELF_* (GA_ELF_NO_DEVICE_CODE for --no-device-code) */
	uint64_t max_member_bytes;
	uint64_t max_total_bytes;
	unsigned max_nesting;
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

/* ---- signals, targets and verdicts (lib/analyze/deps-signals.c, deps-target.c, deps-verdicts.c, ldso.c): pure ---- */

/* Fill the signals of every file and package; then assign files to packages. Returns 0 or -ENOMEM. */
int ga_deps_signals(struct ga_deps_inventory *inv);

enum ga_deps_target_kind {
	GA_TARGET_NONE = 0,
	GA_TARGET_CUDA,
	GA_TARGET_ROCM,
	GA_TARGET_LEVEL_ZERO,
	GA_TARGET_CPU
};

struct ga_deps_target {
	enum ga_deps_target_kind kind;
	char *name;        /* for messages: "cuda:12.4,sm_90", "dgx-h100 (snapshot)" */
	int cuda_version;  /* highest CUDA the driver runs, 1000*maj+10*min; -1 unknown */
	int sm;            /* compute capability as 10*major+minor (90 = 9.0); -1 unknown */
	int rocm_major;    /* -1 unknown */
	char gfx[64];      /* "gfx942", "gfx90a:xnack-"; "" unknown */
	int cpu_isa_level; /* 1..4; 0 unknown */
	/* policy artifacts: rules (NULL / empty: not checked) */
	struct ga_strv allowed_backends; /* "cuda", "rocm" (or "hip"), "level-zero" (or "sycl"), "cpu", ... */
	struct ga_strv required_archs;   /* "sm_90", "gfx942" */
	char *policy_class;
	/* directories the target's environment puts on LD_LIBRARY_PATH (':' separated); NULL none */
	char *ld_library_path;
	/* nvreq: the driver version from a node snapshot ("550.54.15"); NULL unknown */
	char *driver_version;
	/* the target's glibc ("2.31") and libstdc++ as its highest GLIBCXX_ version ("3.4.30"); "" unknown */
	char glibc[GA_SYMVER_LEN];
	char libstdcxx[GA_SYMVER_LEN];
	/* forward compatibility: the GPU brand as the toolkit / NVML names it ("tesla"; "" unknown) and
	 * the GPU's class (from the brand, or from the snapshot's product name) */
	char brand[32];
	int gpu_class; /* enum ga_gpu_class */
	bool musl;     /* the target's C library is musl ("musl", a musllinux tag): no GLIBC_ versions */
};

void ga_deps_target_release(struct ga_deps_target *t);
/* "cuda:12.4,sm_90", "rocm:6.2,gfx942", "cpu", "cuda:13.0,sm_100" ... -EINVAL with errbuf. */
int ga_deps_target_parse(const char *spec, struct ga_deps_target *t, char *errbuf, size_t errlen);
/* From a node snapshot: vendor of the accelerators, CC / gfx, driver's highest CUDA, ROCm, CPU ISA. */
int ga_deps_target_from_node(const struct ga_node *n, struct ga_deps_target *t);
struct ga_policy_class;
/*
 * Add a policy class's artifacts: rules (allowed backends, required archs) to
 * t and name the class in it. Returns 0 or -ENOMEM.
 */
int ga_deps_target_add_class_rules(struct ga_deps_target *t, const struct ga_policy_class *c);
/* Highest CUDA a driver version supports ("550.54.15" -> 12040); -1 unknown. */
int ga_cuda_for_driver(const char *driver_version);
/* Compute capability of a product name ("NVIDIA H100 80GB HBM3" -> 90); -1 unknown. */
int ga_cc_for_model(const char *model);

/*
 * Judge the inventory against target t (kind NONE: only the target-free checks:
 * driver libraries bundled, NEEDED unresolved inside the tree). Findings are
 * appended to out. Returns 0 or -ENOMEM.
 */
int ga_deps_judge(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                  struct ga_findings *out);

/*
 * The result of a scan, one decision for every output (text, JSON, SARIF,
 * CycloneDX, the exit status), in this order of precedence:
 *   ERROR       a PATH could not be read at all (exit 2)
 *   FAIL        error-level findings in what was read (exit 1)
 *   INCOMPLETE  part of the input could not be read: gaps (exit 4)
 *   UNKNOWN     nothing was scanned: no regular file in any PATH (exit 4)
 *   PASS        everything was read, no error-level finding (exit 0)
 */
enum ga_deps_result {
	GA_DEPS_RESULT_PASS,
	GA_DEPS_RESULT_FAIL,
	GA_DEPS_RESULT_INCOMPLETE,
	GA_DEPS_RESULT_UNKNOWN,
	GA_DEPS_RESULT_ERROR,
};
enum ga_deps_result ga_deps_result_of(const struct ga_deps_inventory *inv, const struct ga_findings *fs);
/* "pass", "fail", "incomplete", "unknown", "error" (the JSON's names; the text upper-cases them) */
const char *ga_deps_result_name(enum ga_deps_result r);
/*
 * Why the result is not PASS or FAIL, and what to do, into buf (one
 * sentence); "" for PASS and FAIL. Returns buf.
 */
const char *ga_deps_result_reason(enum ga_deps_result r, const struct ga_deps_inventory *inv, char *buf,
                                  size_t len);

/* Rule text of a GA-DEPS-* code for SARIF and help: the catalogue's (lib/core/codes.def; the code
 * itself when unknown). */
const char *ga_deps_rule_text(const char *code);

/*
 * Fill the target from a policy class's artifacts: rules when no node or
 * --target gave one (have_target false): the first backend and its first
 * sm_ / gfx arch, named "class NAME"; then add the class rules in any case.
 * -EINVAL with errbuf (no or unknown backend), -ENOMEM.
 */
int ga_deps_target_from_class(struct ga_deps_target *t, const struct ga_policy_class *c, bool have_target,
                              char *errbuf, size_t errlen);

/* ---- the report: gpuaudit.deps/v1 (lib/model/deps.c, docs/schema/deps.md) ---- */

struct ga_deps_report_signal {
	char *backend;         /* ga_dep_backend_name */
	char *strength;        /* ga_dep_strength_name */
	char *what;            /* as in ga_dep_signal */
	char *runtime_version; /* "12.6"; NULL when the signal does not pin one */
};

struct ga_deps_report_target {
	char *name;
	char *backend;      /* "cuda", "rocm", "level-zero", "cpu" */
	char *cuda_version; /* "12.4"; NULL unknown */
	char *sm;           /* "sm_90"; NULL unknown */
	struct ga_ou64 rocm_major;
	char *gfx; /* NULL unknown */
	struct ga_ou64 cpu_isa_level;
	char *policy_class;
	struct ga_strv allowed_backends;
	struct ga_strv required_archs;
	char *glibc;     /* "2.31"; NULL (key left out) unknown */
	char *libstdcxx; /* GLIBCXX_ version the target's libstdc++ has, "3.4.30"; NULL unknown */
	char *driver;    /* "550.54.15"; NULL (key left out) unknown */
	char *brand;     /* "tesla"; NULL (key left out) unknown */
	char *gpu_class; /* "datacenter", "pro", "consumer"; NULL (key left out) unknown */
};

struct ga_deps_report_scanned {
	struct ga_ou64 paths;        /* PATH arguments */
	struct ga_ou64 paths_unread; /* of them, not readable at all (each also a gap) */
	struct ga_ou64 files;
	struct ga_ou64 bytes;
	struct ga_ou64 archive_bytes_inflated;
	struct ga_obool truncated;
};

struct ga_deps_report_tree {
	char *name;
	char *kind;
	/* nvreq: as in struct ga_deps_tree; left out of the JSON when absent */
	struct ga_strv nvidia_env; /* v NULL: none */
	char *cuda_version_label;
};

struct ga_deps_report_pkg {
	char *kind;
	char *name;
	char *version;
	char *local_version;
	char *metadata; /* the metadata file, as shown */
	char *tree;     /* the tree's name */
	struct ga_deps_report_signal *signals;
	size_t n_signals;
	/* as in struct ga_deps_pkg; left out of the JSON when absent or empty */
	char *arch;                     /* rpm */
	struct ga_strv provides;        /* rpm */
	struct ga_strv requires;        /* rpm Requires, npm dependencies */
	struct ga_strv optional;        /* npm optionalDependencies */
	struct ga_strv os, cpu, libc;   /* npm */
	struct ga_strv install_scripts; /* npm */
	char *install_fetch;            /* npm */
};

/* Distinct (format, kind, arch, PTX ISA) of a file's images, with their count, in order of first appearance. */
struct ga_deps_report_image {
	char *format;
	char *kind;
	char *arch;    /* NULL when unknown */
	char *ptx_isa; /* "8.5" for PTX, NULL otherwise */
	struct ga_ou64 count;
};

struct ga_deps_report_devcode {
	struct ga_ou64 containers[GA_DEVCODE_FORMAT_N]; /* per format, keyed by ga_devcode_format_name */
	struct ga_obool truncated;
	struct ga_ou64 bad_containers;
	struct ga_deps_report_image *images;
	size_t n_images;
};

struct ga_deps_report_elf {
	struct ga_ou64 elf_class; /* "class": 32, 64; null for a raw device-code blob */
	char *machine;
	char *osabi;
	char *type;
	char *soname;
	struct ga_strv needed;
	char *rpath;
	char *runpath;
	struct ga_strv dlopen;
	struct ga_obool static_cudart;
	struct ga_ou64 x86_isa_level; /* null when absent */
	char *device_arch;
	struct ga_deps_report_devcode device_code;
	/* highest symbol versions needed ("2.34", "3.4.32"); NULL (key left out) when none */
	char *glibc_needed;
	char *glibcxx_needed;
	char *cxxabi_needed;
	char *gcc_needed;
};

/* A library a file loads by name (plug-in convention), and where the scan found it. */
struct ga_deps_report_plugin {
	char *name;           /* as named: "libonnxruntime_providers_cuda.so" */
	char *host;           /* the convention's loader: "ONNX Runtime" */
	char *brings;         /* "CUDA execution provider" */
	char *backend;        /* ga_dep_backend_name */
	char *found;          /* the plug-in's shown path in the same tree; NULL not in the scanned tree */
	struct ga_strv needs; /* the plug-in's vendor DT_NEEDED names (found only) */
};

struct ga_deps_report_file {
	char *path;
	char *package; /* the owning package's name; NULL when none */
	struct ga_ou64 size_bytes;
	struct ga_deps_report_elf elf;
	struct ga_deps_report_signal *signals;
	size_t n_signals;
	struct ga_deps_report_plugin *plugins; /* libraries it loads by name (key left out when none) */
	size_t n_plugins;
};

struct ga_deps_report {
	char *schema;                         /* GA_DEPS_SCHEMA */
	int result;                           /* enum ga_deps_result, from ga_deps_result_of */
	char *result_reason;                  /* ga_deps_result_reason; NULL (null) for pass and fail */
	struct ga_deps_report_target *target; /* NULL: no target (only the target-free checks) */
	struct ga_deps_report_scanned scanned;
	struct ga_deps_report_tree *trees;
	size_t n_trees;
	struct ga_deps_report_pkg *packages;
	size_t n_packages;
	struct ga_deps_report_file *files; /* ELF files and device-code blobs only */
	size_t n_files;
	struct ga_deps_gap *gaps;
	size_t n_gaps;
	struct ga_findings findings;
};

extern const struct ga_schema ga_deps_report_schema;

/*
 * The report of inv judged against t (NULL or kind NONE: no target) with the
 * findings fs, which the report takes over (*fs is left empty). Everything
 * else is copied: the report outlives inv and t. Release it with
 * ga_deps_report_release. 0 or -ENOMEM (rep then holds what was built).
 */
int ga_deps_report_build(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *fs, struct ga_deps_report *rep);
void ga_deps_report_release(struct ga_deps_report *rep);

/* ---- symbol versions (lib/analyze/deps-symver.c, issue 19): pure ---- */

/*
 * GA-DEPS-SYMBOL-VERSION: a file needs a GLIBC_ / GLIBCXX_ version above the
 * target's glibc / libstdc++ (t NULL or unknown versions: not checked);
 * GA-DEPS-MANYLINUX-TAG: a file of a wheel needs a GLIBC_ version above the
 * one its manylinux tag claims. Called by ga_deps_judge. 0 or -ENOMEM.
 */
int ga_deps_judge_symver(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *out);
/*
 * The glibc a wheel's file name claims ("x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
 * -> "2.28"; manylinux1 2.5, manylinux2010 2.12, manylinux2014 2.17; the lowest
 * of a compressed tag set), directories and "outer!/" prefixes ignored: 1 and
 * out filled, 0 when the name has no manylinux tag.
 */
int ga_deps_manylinux_glibc(const char *wheel, char *out, size_t outlen);
/* A wheel whose platform tags include musllinux_X_Y (PEP 656). */
bool ga_deps_musllinux_wheel(const char *wheel);
/*
 * A platform tag as a target token: "manylinux_2_28[_ARCH]", "manylinux2014" set
 * the target's glibc and libstdc++ (GLIBCXX_ limit of that level); "musl",
 * "musllinux_1_2" make the target musl. 1 when tok was one of them, 0 not.
 */
int ga_deps_tag_target(const char *tok, struct ga_deps_target *t);
/*
 * The highest GLIBCXX_ (family 0), CXXABI_ (1) or GCC_ (2) version a
 * manylinux level (its glibc, "2.28") allows, per auditwheel's policy; NULL
 * below manylinux1 or for a bad family. aarch64 has its own GCC_ limits.
 */
const char *ga_deps_manylinux_cxx_limit(const char *glibc, bool aarch64, int family);

/* ---- plug-ins loaded by name (lib/deps/plugins.c table, lib/analyze/deps-plugins.c): pure ---- */

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

/* One library named by another (or by an ICD file) that follows a convention of the table. */
struct ga_deps_plugin_use {
	size_t tree;
	long host;             /* file index of the ELF file naming it; -1 for an ICD file */
	const char *host_path; /* as shown (points into the inventory) */
	char name[256];        /* the name as written ("libonnxruntime_providers_cuda.so") */
	const struct ga_deps_plugin_conv *conv;
	long found; /* file index of the plug-in inside the same tree (symlinks followed); -1 not there */
};
/*
 * Every plug-in use of inv: the dlopen names of its ELF files and the library
 * each ICD file names, looked up in the same tree (the host's directory for
 * GA_PLUGIN_SAME_DIR, else the loader's search from the host, t's
 * LD_LIBRARY_PATH included when t is given). *ret is freed with ga_free.
 * 0 or -ENOMEM.
 */
int ga_deps_plugin_uses(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                        struct ga_deps_plugin_use **ret, size_t *ret_n);
/*
 * GA-DEPS-PLUGIN-MISSING (a back-end plug-in of the target's vendor named but
 * not in the tree) and the chain evidence ("loaded_by") on the findings of
 * plug-ins found in the tree. Called by ga_deps_judge. 0 or -ENOMEM.
 */
int ga_deps_judge_plugins(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                          const struct ga_deps_plugin_use *uses, size_t n_uses, struct ga_findings *out,
                          size_t first_finding);

/* ---- CUDA forward compatibility (lib/analyze/deps-compat.c): pure ---- */

enum ga_gpu_class {
	GA_GPU_CLASS_UNKNOWN = 0,
	GA_GPU_CLASS_DATACENTER, /* NVIDIA data-centre GPUs (brand tesla; H100, A100, L40 ...) */
	GA_GPU_CLASS_PRO,        /* professional RTX / Quadro: forward compatibility on select SKUs */
	GA_GPU_CLASS_CONSUMER,   /* GeForce, TITAN: no forward compatibility (error 804) */
};
/* "datacenter", "pro", "consumer", "unknown". */
const char *ga_gpu_class_name(enum ga_gpu_class c);
/* The class of a toolkit / NVML brand name ("tesla", "geforce", "nvidiartx"; case ignored). */
enum ga_gpu_class ga_gpu_class_for_brand(const char *brand);
/* The class of a product name ("NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090"). */
enum ga_gpu_class ga_gpu_class_for_model(const char *model);

/* A tree's CUDA forward-compatibility libraries (cuda-compat). */
struct ga_deps_compat {
	size_t tree;
	int cuda_version;  /* the CUDA the compat driver runs (1000*maj+10*min); -1 unknown */
	char driver[32];   /* the compat libcuda's driver version ("570.124.06"); "" unknown */
	const char *where; /* a compat file or the cuda-compat package's metadata, as shown */
	const char *pkg;   /* "cuda-compat-12-8" when a package says so; NULL */
};
/* Is this file one of the forward-compatibility libraries (.../cuda-X.Y/compat/libcuda.so.N)? */
bool ga_deps_compat_file(const struct ga_deps_file *f);
/*
 * What forward compatibility gives each tree on t: out[tree] (n_trees entries)
 * is the CUDA version to judge its runtimes and PTX against (t->cuda_version
 * when none applies). 0 or -ENOMEM.
 */
int ga_deps_compat_cudas(const struct ga_deps_inventory *inv, const struct ga_deps_target *t, int *out);
/* GA-DEPS-CUDA-COMPAT per tree with compat libraries on a CUDA target. 0 or -ENOMEM. */
int ga_deps_judge_compat(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *out);

#ifdef __cplusplus
}
#endif
#endif
