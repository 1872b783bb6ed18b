/*
 * deps.c - the artifact dependency report (gpuaudit.deps/v1, `gpuaudit deps
 * --json`) as a schema table, so one table writes, reads and frees it
 * (docs/schema/deps.md). lib/analyze/deps-report.c fills the struct from an
 * inventory; the key order here is the document's.
 */
#include <assert.h>
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/deps-report.h"

#define S(st, m) GA_FIELD(st, m, GA_F_STR)
#define U(st, m) GA_FIELD(st, m, GA_F_U64)
#define B(st, m) GA_FIELD(st, m, GA_F_BOOL)
#define V(st, m) GA_FIELD(st, m, GA_F_STRV)
#define SCHEMA(var, st, tbl) \
	static const struct ga_schema var = { #st, sizeof(struct st), tbl, GA_ARRAY_SIZE(tbl) }

static const struct ga_field signal_f[] = {
	S(struct ga_deps_report_signal, backend),
	S(struct ga_deps_report_signal, strength),
	S(struct ga_deps_report_signal, what),
	S(struct ga_deps_report_signal, runtime_version),
};
SCHEMA(signal_s, ga_deps_report_signal, signal_f);

#define T struct ga_deps_report_target
static const struct ga_field target_f[] = {
	S(T, name),
	S(T, backend),
	S(T, cuda_version),
	S(T, sm),
	U(T, rocm_major),
	S(T, gfx),
	U(T, cpu_isa_level),
	S(T, policy_class),
	V(T, allowed_backends),
	V(T, required_archs),
	GA_FIELD_OMIT(T, glibc, GA_F_STR),
	GA_FIELD_OMIT(T, libstdcxx, GA_F_STR),
	GA_FIELD_OMIT(T, driver, GA_F_STR),
	GA_FIELD_OMIT(T, brand, GA_F_STR),
	GA_FIELD_OMIT(T, gpu_class, GA_F_STR),
};
#undef T
SCHEMA(target_s, ga_deps_report_target, target_f);

static const struct ga_field scanned_f[] = {
	U(struct ga_deps_report_scanned, files),
	U(struct ga_deps_report_scanned, bytes),
	U(struct ga_deps_report_scanned, archive_bytes_inflated),
	B(struct ga_deps_report_scanned, truncated),
	U(struct ga_deps_report_scanned, paths),
	U(struct ga_deps_report_scanned, paths_unread),
};
SCHEMA(scanned_s, ga_deps_report_scanned, scanned_f);

static const struct ga_field tree_f[] = {
	S(struct ga_deps_report_tree, name),
	S(struct ga_deps_report_tree, kind),
	GA_FIELD_OMIT(struct ga_deps_report_tree, nvidia_env, GA_F_STRV),
	GA_FIELD_OMIT(struct ga_deps_report_tree, cuda_version_label, GA_F_STR),
};
SCHEMA(tree_s, ga_deps_report_tree, tree_f);

#define P struct ga_deps_report_pkg
static const struct ga_field pkg_f[] = {
	S(P, kind),
	S(P, name),
	S(P, version),
	S(P, local_version),
	S(P, metadata),
	S(P, tree),
	GA_FIELD_ARR(P, signals, signal_s),
	GA_FIELD_OMIT(P, arch, GA_F_STR),
	GA_FIELD_OMIT(P, provides, GA_F_STRV),
	GA_FIELD_OMIT(P, requires, GA_F_STRV),
	GA_FIELD_OMIT(P, optional, GA_F_STRV),
	GA_FIELD_OMIT(P, os, GA_F_STRV),
	GA_FIELD_OMIT(P, cpu, GA_F_STRV),
	GA_FIELD_OMIT(P, libc, GA_F_STRV),
	GA_FIELD_OMIT(P, install_scripts, GA_F_STRV),
	GA_FIELD_OMIT(P, install_fetch, GA_F_STR),
};
#undef P
SCHEMA(pkg_s, ga_deps_report_pkg, pkg_f);

static const struct ga_field image_f[] = {
	S(struct ga_deps_report_image, format), S(struct ga_deps_report_image, kind),
	S(struct ga_deps_report_image, arch),   S(struct ga_deps_report_image, ptx_isa),
	U(struct ga_deps_report_image, count),
};
SCHEMA(image_s, ga_deps_report_image, image_f);

/* The containers object: one count per format, named as ga_devcode_format_name names them. */
static_assert(GA_DEVCODE_FORMAT_N == 4, "a new device-code format needs its key here");
#define C(i, name)                                                    \
	{                                                             \
		name, GA_F_U64, sizeof(struct ga_ou64) * (i), NULL, 0 \
	}
static const struct ga_field containers_f[] = {
	C(GA_DEVCODE_CUDA_FATBIN, "cuda-fatbin"),
	C(GA_DEVCODE_HIP_BUNDLE, "hip-bundle"),
	C(GA_DEVCODE_HIP_CCOB, "hip-ccob"),
	C(GA_DEVCODE_LLVM_OFFLOAD, "llvm-offload"),
};
#undef C
static const struct ga_schema containers_s = { "ga_deps_report_containers",
	                                       sizeof(struct ga_ou64) * GA_DEVCODE_FORMAT_N, containers_f,
	                                       GA_ARRAY_SIZE(containers_f) };

#define D struct ga_deps_report_devcode
static const struct ga_field devcode_f[] = {
	GA_FIELD_OBJ(D, containers, containers_s),
	B(D, truncated),
	U(D, bad_containers),
	GA_FIELD_ARR(D, images, image_s),
};
#undef D
SCHEMA(devcode_s, ga_deps_report_devcode, devcode_f);

#define E struct ga_deps_report_elf
static const struct ga_field elf_f[] = {
	{ "class", GA_F_U64, offsetof(E, elf_class), NULL, 0 },
	S(E, machine),
	S(E, osabi),
	S(E, type),
	S(E, soname),
	V(E, needed),
	S(E, rpath),
	S(E, runpath),
	V(E, dlopen),
	B(E, static_cudart),
	U(E, x86_isa_level),
	S(E, device_arch),
	GA_FIELD_OBJ(E, device_code, devcode_s),
	GA_FIELD_OMIT(E, glibc_needed, GA_F_STR),
	GA_FIELD_OMIT(E, glibcxx_needed, GA_F_STR),
	GA_FIELD_OMIT(E, cxxabi_needed, GA_F_STR),
	GA_FIELD_OMIT(E, gcc_needed, GA_F_STR),
};
#undef E
SCHEMA(elf_s, ga_deps_report_elf, elf_f);

static const struct ga_field plugin_f[] = {
	S(struct ga_deps_report_plugin, name),   S(struct ga_deps_report_plugin, host),
	S(struct ga_deps_report_plugin, brings), S(struct ga_deps_report_plugin, backend),
	S(struct ga_deps_report_plugin, found),  V(struct ga_deps_report_plugin, needs),
};
SCHEMA(plugin_s, ga_deps_report_plugin, plugin_f);

#define F struct ga_deps_report_file
static const struct ga_field file_f[] = {
	S(F, path),
	S(F, package),
	U(F, size_bytes),
	GA_FIELD_OBJ(F, elf, elf_s),
	GA_FIELD_ARR(F, signals, signal_s),
	GA_FIELD_ARR_FL(F, plugins, plugin_s, GA_FF_OMIT),
};
#undef F
SCHEMA(file_s, ga_deps_report_file, file_f);

static const struct ga_field gap_f[] = { S(struct ga_deps_gap, path), S(struct ga_deps_gap, reason) };
SCHEMA(gap_s, ga_deps_gap, gap_f);

/* as ga_deps_result_name writes them (enum ga_deps_result) */
static const char *const result_names[] = { "pass", "fail", "incomplete", "unknown", "error" };

#define R struct ga_deps_report
static const struct ga_field report_f[] = {
	S(R, schema),
	GA_FIELD_ENUM(R, result, result_names),
	S(R, result_reason),
	GA_FIELD_PTR(R, target, target_s),
	GA_FIELD_OBJ(R, scanned, scanned_s),
	GA_FIELD_ARR(R, trees, tree_s),
	GA_FIELD_ARR(R, packages, pkg_s),
	GA_FIELD_ARR(R, files, file_s),
	GA_FIELD_ARR(R, gaps, gap_s),
	GA_FIELD_FINDINGS(R, findings),
};
#undef R
const struct ga_schema ga_deps_report_schema = { "ga_deps_report", sizeof(struct ga_deps_report), report_f,
	                                         GA_ARRAY_SIZE(report_f) };

void ga_deps_report_release(struct ga_deps_report *rep)
{
	if (rep)
		ga_schema_release(&ga_deps_report_schema, rep);
}
