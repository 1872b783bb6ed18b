/*
 * topotext.h - the topology matrix as text (lib/emit/topology.c): the section of
 * `discover` that `nvidia-smi topo -m` would print, for every vendor.
 */
#ifndef GPUAUDIT_TOPOTEXT_H
#define GPUAUDIT_TOPOTEXT_H

#include "gpuaudit/core.h"
#include "gpuaudit/topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* true when the matrix is worth a section: two accelerators, or one and a NIC. */
bool ga_topology_shown(const struct ga_topology *t);

/*
 * The matrix (rows and columns in t's order, then CPU and NUMA affinity), the NICs' names,
 * each NUMA note and the legend, appended to b; nothing when !ga_topology_shown(t). Every
 * string from the node goes through the text rule (text.h). 0, -ENOMEM or -E2BIG.
 */
int ga_topology_text(struct ga_buf *b, const struct ga_topology *t);

#ifdef __cplusplus
}
#endif

#endif
