/* analyze.h - analyzers shared inside lib/analyze. All pure: snapshot in, findings out. */
#ifndef GA_ANALYZE_H
#define GA_ANALYZE_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

/* NVML view: lost GPUs, ECC, row remapping, throttling, NVML failures (lib/analyze/nvml.c). */
void ga_analyze_nvml(const struct ga_node *n, struct ga_findings *out);
/* amdgpu / i915 / xe sysfs depth and ROCm SMI (lib/analyze/amd_intel.c). */
void ga_analyze_amd_intel(const struct ga_node *n, struct ga_findings *out);

/* InfiniBand/RoCE ports, nvidia_peermem, the fabric manager (lib/analyze/ib.c). */
void ga_analyze_ib(const struct ga_node *n, struct ga_findings *out);
/* AMD XGMI hives and link errors (lib/analyze/ib.c too: one table of codes). */
void ga_analyze_xgmi(const struct ga_node *n, struct ga_findings *out);

#endif
