/*
 * deps.h - the verdicts of `gpuaudit deps` (lib/analyze/deps-*.c, ldso.c):
 * pure functions of an inventory (deps-inventory.h) and a target node.
 * ga_deps_signals derives backend signals per file and per package;
 * ga_deps_judge compares them with a ga_deps_target and emits findings with
 * the catalogue's GA-DEPS-* codes (docs/deps.md); the result of a scan, the
 * symbol-version, plug-in and forward-compatibility rules, and the report
 * (deps-report.h) built from all of them.
 */
#ifndef GPUAUDIT_DEPS_H
#define GPUAUDIT_DEPS_H

#include "gpuaudit/deps-inventory.h"
#include "gpuaudit/deps-report.h"
#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

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
	/* from a node snapshot whose PCI devices were not read: its accelerators are unknown, so
	 * the kind is GA_TARGET_NONE (never "cpu": an unseen bus is not an empty one), a
	 * GA-PCI-UNKNOWN finding says so and the result is unknown, not pass */
	bool accel_unknown;
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
/*
 * The lowest Linux driver that runs CUDA cuda (1000*maj+10*min): the GA
 * minimum of the first toolkit at or above it in NVIDIA's table ("580.65.06"
 * for 13000); *ret_cuda (may be NULL) that toolkit's version. NULL when the
 * table has no toolkit that new.
 */
const char *ga_driver_for_cuda(int cuda, int *ret_cuda);
/* The CUDA release (13000) that dropped compute capability sm (70), the family ("Volta") in
 * *ret_family (may be NULL); 0 when no release has dropped it. */
int ga_cuda_arch_dropped(int sm, const char **ret_family);
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
/*
 * The same with FAIL at findings of severity fail_on or above (--fail-on:
 * GA_SEV_WARNING fails on warnings too, GA_SEV_INFO on any finding);
 * ga_deps_result_of is fail_on GA_SEV_ERROR.
 */
enum ga_deps_result ga_deps_result_at(const struct ga_deps_inventory *inv, const struct ga_findings *fs,
                                      enum ga_severity fail_on);
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

/*
 * The report of inv judged against t (NULL or kind NONE: no target) with the
 * findings fs, which the report takes over (*fs is left empty). Everything
 * else is copied: the report outlives inv and t. Release it with
 * ga_deps_report_release. 0 or -ENOMEM (rep then holds what was built).
 */
int ga_deps_report_build(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *fs, struct ga_deps_report *rep);

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

/* ---- plug-ins loaded by name: their uses and the verdict (lib/analyze/deps-plugins.c): pure ---- */

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
