/*
 * node-action.h - what one node's findings decide for the node as a whole
 * (lib/analyze/node-action.c): the finding whose action is the node's (the
 * most urgent action among the error-level findings, ga_action_rank) and how
 * many error-level findings there are. The one-line outputs of `check` and
 * `health` (node-problem-detector, Slurm drain reasons) render it; they do not
 * rank or count findings themselves.
 */
#ifndef GPUAUDIT_NODE_ACTION_H
#define GPUAUDIT_NODE_ACTION_H

#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_node_action {
	const struct ga_finding *finding; /* points into the findings; NULL: no error-level finding */
	size_t errors;                    /* error-level (and worse) findings */
};

/* The node's action of findings f (the first of equally urgent ones). */
void ga_node_action_of(const struct ga_findings *f, struct ga_node_action *ret);

#ifdef __cplusplus
}
#endif
#endif
