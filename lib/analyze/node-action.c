/*
 * analyze/node-action.c - the node's action from its findings (node-action.h).
 */
#include "gpuaudit/node-action.h"

void ga_node_action_of(const struct ga_findings *f, struct ga_node_action *ret)
{
	ret->finding = NULL;
	ret->errors = 0;
	for (size_t i = 0; f && i < f->n; i++) {
		const struct ga_finding *x = &f->v[i];
		if (x->severity < GA_SEV_ERROR)
			continue;
		ret->errors++;
		if (!ret->finding || ga_action_rank(x->action) > ga_action_rank(ret->finding->action))
			ret->finding = x;
	}
}
