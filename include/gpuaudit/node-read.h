/*
 * node-read.h - the snapshot collected (lib/collect/collect.c): ga_node_collect. The
 * snapshot's types and the gpuaudit.node/v1 model are node.h's.
 */
#ifndef GPUAUDIT_NODE_READ_H
#define GPUAUDIT_NODE_READ_H

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collect a snapshot of the machine under the context's root. */
int ga_node_collect(struct ga_ctx *ctx, struct ga_node **ret_node);

#ifdef __cplusplus
}
#endif
#endif
