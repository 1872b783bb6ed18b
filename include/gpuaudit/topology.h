/*
 * topology.h - the topology matrix of a node's accelerators and NICs (issue 30 point 5): for
 * every pair, the path between them as `nvidia-smi topo -m` names it, computed from the PCI
 * tree in sysfs for every vendor, plus each device's NUMA node and CPU affinity. The member
 * "topology" of `discover --json` (docs/schema/node.md). The tables are in
 * lib/model/topology.c; lib/analyze/topology.c fills the struct from a snapshot
 * (topomatrix.h), lib/emit/topology.c writes the text matrix.
 */
#ifndef GPUAUDIT_TOPOLOGY_H
#define GPUAUDIT_TOPOLOGY_H

#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cell names (paths[] of struct ga_topo_device); NV<n> is "NV" and a link count. */
#define GA_TOPO_SELF "X"
#define GA_TOPO_PIX "PIX"   /* at most one PCIe switch (or one bridge) between them */
#define GA_TOPO_PXB "PXB"   /* several PCIe bridges, the host bridge not crossed */
#define GA_TOPO_PHB "PHB"   /* through their common PCIe host bridge (root complex) */
#define GA_TOPO_NODE "NODE" /* between host bridges within one NUMA node */
#define GA_TOPO_SYS "SYS"   /* across NUMA nodes (the SMP interconnect: UPI, xGMI, ...) */
#define GA_TOPO_XGMI "XGMI" /* AMD: both GPUs in one XGMI hive */
#define GA_TOPO_UNKNOWN "unknown"

/* One accelerator or NIC of the matrix. */
struct ga_topo_device {
	char *name;                 /* "GPU0" (accelerator index 0), "NIC0" */
	char *kind;                 /* "accelerator" or "nic" */
	char *pci_address;          /* "0000:07:00.0" */
	char *vendor;               /* accelerators: "nvidia", "amd", "intel", ...; NICs: NULL */
	char *model;                /* the accelerator model or the NIC's pci.ids name; NULL when unnamed */
	struct ga_strv net_devices; /* NICs: RDMA devices then network interfaces ("mlx5_0", "ibp12s0") */
	/* The PCI ancestry from the sysfs path (sys/devices/pciDDDD:BB/...): the root bus of its
	 * host bridge ("0000:00" for pci0000:00) and the bridges from the root port down to its
	 * parent; NULL and [] when the device has no PCI function in the snapshot. */
	char *host_bridge;
	struct ga_strv bridges;
	struct ga_oi64 numa_node; /* sysfs numa_node; null: not known (numa_note says why) */
	char *numa_note;          /* why numa_node is null, or how it was inferred; NULL when read */
	char *cpu_affinity;       /* sysfs local_cpulist; NULL when not read */
	/* The matrix row: one cell per device of the matrix, in its order (GA_TOPO_*, "NV12"):
	 * NV# from NVML, XGMI from amdgpu, the PCIe letters from sysfs (where sysfs cannot
	 * tell and NVML gave a letter for the pair, NVML's) */
	struct ga_strv paths;
	/* Accelerators: where its GPU-to-GPU links were read, "nvml" (NVIDIA) or "amdgpu" (the
	 * xgmi_* files); NULL when not read (no NVML, another vendor): then a PCIe cell to
	 * another GPU says nothing of a link beside it. */
	char *links_from;
};

struct ga_topology {
	struct ga_topo_device *devices;
	size_t n_devices;
	struct ga_ou64 accelerators; /* how many of devices are accelerators (they come first) */
};
extern const struct ga_schema ga_topology_schema;

/* Release what t owns (not t) and zero it. */
void ga_topology_release(struct ga_topology *t);

#ifdef __cplusplus
}
#endif

#endif
