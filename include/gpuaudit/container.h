/*
 * container.h - what analyze decides of the container layer
 * (lib/analyze/container.c): the CDI and device-plugin findings of a snapshot
 * and the pure view of the node's NVIDIA GPUs they are checked against. What
 * the collectors read (the node's `cdi` and `device_plugins` sections, their
 * limits and the readers that take a buffer) is container-read.h's.
 */
#ifndef GPUAUDIT_CONTAINER_H
#define GPUAUDIT_CONTAINER_H

#include "gpuaudit/container-read.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

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
