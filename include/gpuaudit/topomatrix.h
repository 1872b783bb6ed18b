/*
 * topomatrix.h - the topology matrix computed from a node snapshot (lib/analyze/topology.c):
 * the model is topology.h, the text lib/emit/topology.c (topotext.h).
 */
#ifndef GPUAUDIT_TOPOMATRIX_H
#define GPUAUDIT_TOPOMATRIX_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"
#include "gpuaudit/topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fill t (zeroed here) from n: the accelerators in snapshot order ("GPU<index>"), then
 * every NIC function with a network interface or an RDMA device ("NIC0"...), each with its
 * PCI ancestry, NUMA node, CPU affinity and its row of the matrix. A cell is NV<n> (NVML's
 * topology, else the active NVLinks whose remote bus id is the other GPU), XGMI (both AMD
 * GPUs in one hive), else the PCIe path (PIX, PXB, PHB, NODE, SYS) from the host bridges,
 * the bridges and the NUMA nodes; "unknown" where the snapshot cannot tell (no PCI
 * function, a NUMA node sysfs does not give). 0 or -ENOMEM (t released).
 */
int ga_topology_build(const struct ga_node *n, struct ga_topology *t);

/*
 * The findings of the matrix (triage's communication step): GA-TOPO-NIC-REMOTE for each
 * GPU whose nearest NIC is across NUMA nodes (every NIC SYS from it), GA-TOPO-GPU-SYS-ONLY
 * once for the GPU pairs whose only path is SYS and that have no NVLink or XGMI. Unknown
 * cells raise nothing. 0 or -ENOMEM.
 */
int ga_topology_findings(const struct ga_topology *t, struct ga_findings *out);

#ifdef __cplusplus
}
#endif

#endif
