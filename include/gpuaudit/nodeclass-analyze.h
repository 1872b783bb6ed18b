/*
 * nodeclass-analyze.h - the class of a node computed (lib/analyze/nodeclass.c). The class's
 * types and its gpuaudit.class/v1 model are nodeclass.h's.
 */
#ifndef GPUAUDIT_NODECLASS_ANALYZE_H
#define GPUAUDIT_NODECLASS_ANALYZE_H

#include "gpuaudit/nodeclass.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Compute the class of n into *out (all members set, owned by *out; release
 * with ga_nodeclass_release). Returns 0 or -ENOMEM; *out is untouched on failure.
 */
int ga_nodeclass_compute(const struct ga_node *n, struct ga_nodeclass *out);

/* Free the members and zero *c. NULL-safe. */
void ga_nodeclass_release(struct ga_nodeclass *c);

#ifdef __cplusplus
}
#endif
#endif
