/*
 * collect.h - shared state and helpers of the node collectors (the helpers:
 * util.c; the entry point that runs the collectors: collect.c).
 *
 * Collectors gather; they never decide. A file that cannot be read is not an
 * error of the collection: it becomes a gap (path + reason) in the snapshot.
 * Only running out of memory aborts a collection.
 */
#ifndef GA_COLLECT_H
#define GA_COLLECT_H

#include "../core/internal.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/node.h"

struct ga_col {
	struct ga_ctx *ctx;
	struct ga_node *node;
	int err; /* sticky -ENOMEM */
};

#define GA_COL_OPT 0 /* absence is information: no gap when missing */
#define GA_COL_REQ 1 /* a missing file is a gap */

void ga_col_gap(struct ga_col *c, const char *path, const char *reason);
/* Record that SOURCE was examined at PATH (coverage, node.h): err 0 read, -ENOENT missing,
 * another -errno unreadable (its reason from ga_fs_reason). util.c. */
void ga_col_source(struct ga_col *c, const char *source, const char *path, int err);
/* The same with the state ("read", "missing", "unreadable") and reason given (util.c). */
void ga_col_source_state(struct ga_col *c, const char *source, const char *path, const char *state,
                         const char *reason);
/* Note an allocation result; returns false (and remembers -ENOMEM) when p is NULL. */
bool ga_col_ok(struct ga_col *c, const void *p);
int ga_col_strv_push(struct ga_col *c, struct ga_strv *sv, const char *s);

/* Read a whole file / a stripped attribute; on failure record a gap as described above. */
int ga_col_read(struct ga_col *c, int flags, struct ga_buf *b, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
int ga_col_attr(struct ga_col *c, int flags, char **ret, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Attribute parsed as an integer (base 0 accepts 0x...); unparsable text is a gap. */
int ga_col_attr_u64(struct ga_col *c, int flags, struct ga_ou64 *out, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
int ga_col_attr_i64(struct ga_col *c, int flags, struct ga_oi64 *out, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Sorted directory listing; missing directory = empty list, other errors a gap. */
int ga_col_list(struct ga_col *c, char ***ret, size_t *ret_n, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* basename of a symlink's target, or NULL. */
char *ga_col_link_base(struct ga_col *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Value of "key<sep>value" lines ("Model: \t\t NVIDIA A100" or "KEY=value"). */
char *ga_col_kv(const char *text, const char *key, char sep);

/* Vendor depth from sysfs (lib/collect/amdgpu.c, lib/collect/intel.c). phys is the PCI device's
 * resolved sysfs directory; card the DRM card name ("card1") or NULL. Fill a->amd / a->intel. */
void ga_collect_amd_depth(struct ga_col *c, struct ga_accel *a, const char *phys);
void ga_collect_intel_depth(struct ga_col *c, struct ga_accel *a, const char *phys, const char *card);

void ga_collect_host(struct ga_col *c);
void ga_collect_cpu(struct ga_col *c);
/* After ga_collect_pci and ga_collect_accel: what each CPU-less NUMA node is (cpu.c). */
void ga_collect_numa_kinds(struct ga_col *c);

/* aarch64 MIDR_EL1 names (midr.c): the implementer's and the part's name, or NULL. */
const char *ga_midr_vendor(uint64_t impl);
const char *ga_midr_part_name(uint64_t impl, uint64_t part);

/* What /proc/cpuinfo said of one processor, for the sysfs pass (cpu.c -> cputopo.c). */
struct ga_cpuinfo_row {
	uint64_t cpu;
	struct ga_ou64 part; /* aarch64 "CPU part" */
};
/*
 * The sysfs topology pass (cputopo.c): present/online/offline/isolated CPUs, packages,
 * dies, clusters, cores and online threads from cpuN/topology, hybrid core kinds and the
 * process's cpuset. Overrides what /proc/cpuinfo gave where sysfs has it.
 */
void ga_collect_cpu_topology(struct ga_col *c, const struct ga_cpuinfo_row *rows, size_t n_rows);
void ga_collect_pci(struct ga_col *c);
void ga_collect_modules(struct ga_col *c);
void ga_collect_accel(struct ga_col *c);
void ga_collect_runtimes(struct ga_col *c);
/* After ga_collect_runtimes: the NVIDIA module file installed for the running kernel, when the
 * loaded module and the driver libraries differ (accel.c). */
void ga_collect_nvidia_module_file(struct ga_col *c);
/* The version in the .modinfo of the module image data[0, n), fed in blocks of chunk bytes (0:
 * whole) as a stream is (accel.c); NULL when it holds none. For the tests and fuzz_modinfo. */
char *ga_modinfo_version(const char *data, size_t n, size_t chunk);
/* Container toolkits, engines and device access (lib/collect/ctr-runtime.c); after accel. */
void ga_collect_container_runtime(struct ga_col *c);
void ga_collect_vendor(struct ga_col *c);
/* Container layer (lib/collect/devplugin.c, lib/collect/cdi.c): the kubelet's device plugins,
 * then the CDI specs (and the driver's MIG devices, when either is on the node). */
void ga_collect_device_plugins(struct ga_col *c);
void ga_collect_cdi(struct ga_col *c);
/* fabricmgr.c: nvidia-fabricmanager and nvlsm, where NVML reports a GPU fabric state */
void ga_collect_fabric_manager(struct ga_col *c);
/* InfiniBand / RoCE ports (ib.c). */
void ga_collect_ib(struct ga_col *c);

/* Where the loader's libc.so.6 and libstdc++.so.6 are looked for (host.c, NULL-terminated),
 * and how much of them is read: capture.c copies what host.c reads. */
extern const char *const ga_collect_libc_dirs[];
#define GA_COLLECT_LIBC_MAX_BYTES (64u << 20)

#endif
