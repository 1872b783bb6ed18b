/*
 * deps-report.h - the report of `gpuaudit deps`, gpuaudit.deps/v1, as a
 * model (lib/model/deps.c, docs/schema/deps.md). ga_deps_report_build (deps.h,
 * analyze) fills it from an inventory and its verdicts.
 */
#ifndef GPUAUDIT_DEPS_REPORT_H
#define GPUAUDIT_DEPS_REPORT_H

#include "gpuaudit/deps-inventory.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_DEPS_SCHEMA "gpuaudit.deps/v1"

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

void ga_deps_report_release(struct ga_deps_report *rep);

#ifdef __cplusplus
}
#endif
#endif
