/* analyze.h - analyzers shared inside lib/analyze. All pure: snapshot in, findings out. */
#ifndef GA_ANALYZE_H
#define GA_ANALYZE_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

/* NVML view: lost GPUs, ECC, row remapping, throttling, NVML failures (lib/analyze/nvml.c). */
void ga_analyze_nvml(const struct ga_node *n, struct ga_findings *out);
void ga_analyze_fabric(const struct ga_node *n, struct ga_findings *out);
/* amdgpu / i915 / xe sysfs depth and ROCm SMI (lib/analyze/amd_intel.c). */
void ga_analyze_amd_intel(const struct ga_node *n, struct ga_findings *out);

/*
 * The container layer (lib/analyze/ctr-runtime.c): toolkit, engine wiring, device access.
 * ga_ctr_device_open_for: may a non-root process in one of groups (names or numeric gids;
 * NULL = render, video) open d read-write? true when the mode is not known.
 */
void ga_analyze_container_runtime(const struct ga_node *n, struct ga_findings *out);
const struct ga_ctr_toolkit *ga_ctr_toolkit_of(const struct ga_node *n, const char *vendor);
const char *ga_ctr_default_runtime(const struct ga_ctr_engine *e);
bool ga_ctr_device_open_for(const struct ga_ctr_device *d, const char *const *groups, size_t n_groups);
/* InfiniBand/RoCE ports, nvidia_peermem, the fabric manager (lib/analyze/ib.c). */
void ga_analyze_ib(const struct ga_node *n, struct ga_findings *out);
/* AMD XGMI hives and link errors (lib/analyze/ib.c too: one table of codes). */
void ga_analyze_xgmi(const struct ga_node *n, struct ga_findings *out);

#endif
