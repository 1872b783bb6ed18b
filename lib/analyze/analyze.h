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

/*
 * NVSwitch SXids joined with the fabric findings (lib/analyze/nvswitch.c): one
 * (SXid code, NVSwitch) group of kernel-log events in the window, as health.c counted it.
 * ga_nvswitch_sxid_join adds the SXids as evidence to the GA-FABRIC-FAILED/DEGRADED
 * findings already in out (raised to the worst SXid's severity and action from the
 * Fabric Manager guide's table, lib/core/sxid.def), else adds one GA-NVSWITCH-SXID.
 */
struct ga_sxid_group {
	uint64_t code;
	const char *address; /* the NVSwitch's PCI address, "" when the line had none */
	uint64_t count;
	bool fatal;                /* error or worse: the guide's fatal tables, or a line said Fatal */
	enum ga_severity severity; /* the worst line's (ga_kev_sxid) */
	enum ga_action action;     /* the most urgent line's (ga_kev_sxid) */
	struct ga_ou64 link;       /* the link the latest line named */
	bool boot_set, wall_set;
	double first_boot_s, last_boot_s;
	char first_time[40], last_time[40]; /* RFC 3339 UTC, when wall_set */
	const char *sample;                 /* the group's latest line */
};
bool ga_node_has_nvswitch(const struct ga_node *n);
int ga_nvswitch_sxid_join(const struct ga_sxid_group *v, size_t n, struct ga_findings *out);

#endif
