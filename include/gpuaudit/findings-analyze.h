/*
 * findings-analyze.h - the node's own findings (lib/analyze/node.c): the analysis of one
 * snapshot and the binding of findings to its devices. The findings list and its model are
 * findings.h's.
 */
#ifndef GPUAUDIT_FINDINGS_ANALYZE_H
#define GPUAUDIT_FINDINGS_ANALYZE_H

#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

int ga_analyze_node(const struct ga_node *n, struct ga_findings *out);

/*
 * Give every finding about one of n's accelerators that accelerator's UUID and
 * PCI address: the subject is its address (any case, with or without the PCI
 * domain), "gpuN", or evidence "gpu" names its index. 0 or -ENOMEM.
 */
int ga_findings_bind_devices(struct ga_findings *f, const struct ga_node *n);

#ifdef __cplusplus
}
#endif
#endif
