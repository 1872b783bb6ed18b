/*
 * container.h - the container layer's readers that take a buffer (CDI specs,
 * the kubelet's device-plugin checkpoint), so that fuzzers and tests reach
 * them without a tree, and the pure view of the node they are checked against.
 * The collectors (lib/collect/cdi.c, lib/collect/devplugin.c) fill the node's
 * `cdi` and `device_plugins` sections; lib/analyze/container.c decides.
 */
#ifndef GPUAUDIT_CONTAINER_H
#define GPUAUDIT_CONTAINER_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_CDI_MAX_SPEC_BYTES (4u << 20)       /* a spec for 8 GPUs is ~20 KiB */
#define GA_CDI_MAX_DEVICES 4096                /* devices[] entries read from one spec */
#define GA_CDI_MAX_PATHS 4096                  /* paths kept per list of a spec */
#define GA_DP_MAX_CHECKPOINT_BYTES (16u << 20) /* the checkpoint of a busy node is a few KiB */

/*
 * Parse one CDI spec (JSON when yaml is false, else YAML through libfyaml after
 * the prescan of lib/core/yaml-scan.c) into spec (zeroed by the caller; path and
 * format are the caller's). Bad input is not an error of the call: spec->error
 * says what is wrong ("LINE:COL: ..." or "devices[2].name: expected a string")
 * and what was read before it stays. A spec that reads well is then held to
 * the rules the CDI library applies when it loads one (its keys and their
 * types, the version and the features it needs, kind, device names, edits:
 * docs/container.md, "The format's rules"); the first rule broken is the
 * error. Only out of memory returns -ENOMEM; else 0.
 * The paths are recorded, not checked: ga_cdi_spec_check_paths does that.
 */
int ga_cdi_spec_parse(const char *text, size_t len, bool yaml, struct ga_cdi_spec *spec);

/*
 * Parse the kubelet's kubelet_internal_checkpoint (JSON) into dp's resources
 * and pod_entries; a damaged checkpoint sets dp->checkpoint_error. 0 or -ENOMEM.
 */
int ga_dp_checkpoint_parse(const char *text, size_t len, struct ga_device_plugins *dp);

/*
 * The version suffix of a driver library file name ("libcuda.so.550.54.15" ->
 * "550.54.15"; "libnvidia-ml.so.1" -> NULL: a soname link, not a version). The
 * result points into name.
 */
const char *ga_cdi_lib_version(const char *path, const char *stem);

/* CDI findings (GA-CDI-*) and device-plugin findings (GA-DP-*) of a snapshot (pure). */
void ga_analyze_cdi(const struct ga_node *n, struct ga_findings *out);
void ga_analyze_device_plugins(const struct ga_node *n, struct ga_findings *out);

/* The NVIDIA GPUs of the node as the container layer names them (lib/analyze/container.c). */
struct ga_cnt_gpu {
	const char *address; /* PCI address */
	uint64_t index;      /* NVML's index when known, else the order among NVIDIA GPUs */
	const char *uuid;    /* "GPU-..." or NULL */
	uint64_t minor;      /* /dev/nvidiaN; UINT64_MAX when unknown */
	bool healthy;        /* driver bound, not excluded, no NVML device error */
	size_t n_mig;        /* MIG devices on it (NVML's view, else the driver's capabilities in procfs) */
	const struct ga_nvml_gpu *nvml; /* NVML's view (MIG UUIDs), NULL when not collected */
};
/* Fill up to max GPUs; returns how many the node has (may exceed max). */
size_t ga_cnt_nvidia_gpus(const struct ga_node *n, struct ga_cnt_gpu *out, size_t max);
/* The running NVIDIA driver version (kernel module, else NVML), or NULL. */
const char *ga_cnt_driver_version(const struct ga_node *n);

#ifdef __cplusplus
}
#endif
#endif
