/*
 * verdict-analyze.h - what analyze decides of a node's verdict (lib/analyze/verdict.c):
 * ga_node_verdict_build and the GPU count behind GA-EXPECT-GPU-COUNT and /readyz. The
 * verdict's types, its model and the names of its states are verdict.h's.
 */
#ifndef GPUAUDIT_VERDICT_ANALYZE_H
#define GPUAUDIT_VERDICT_ANALYZE_H

#include "gpuaudit/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The verdict of node n, checked against class cls (NULL: no policy class; with
 * policy_given, that is the no-class drift). The link, CDI, device-plugin and
 * readiness findings are added to out (NULL: not wanted) by the same code that
 * decides the state. v is zeroed here; release it with ga_node_verdict_release.
 * 0, or -ENOMEM (v released).
 */
int ga_node_verdict_build(const struct ga_node *n, const struct ga_policy_class *cls, bool policy_given,
                          struct ga_node_verdict *v, struct ga_findings *out);

/*
 * GPUs of class cls on node n: usable (driver bound, not excluded, not lost to NVML)
 * and on the bus. The one count behind GA-EXPECT-GPU-COUNT and /readyz.
 */
size_t ga_vd_class_gpus(const struct ga_node *n, const struct ga_policy_class *cls, size_t *on_bus);

/* A GPU that can take work: driver bound, not excluded, not lost to NVML. */
bool ga_vd_accel_usable(const struct ga_accel *a);

/* "N usable GPUs (M on the bus), the class expects K": the finding's message and /readyz's reason. */
void ga_vd_gpu_count_reason(char *buf, size_t n, size_t usable, size_t on_bus, uint64_t expected);

#ifdef __cplusplus
}
#endif
#endif
