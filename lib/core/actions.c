/*
 * actions.c - the names and urgency of the closed sets of actions and cause
 * classes; which code takes which is the catalogue's (codes.def, codes.c), so
 * each check only says what it found and a remediator gets a closed set of
 * actions it can switch on.
 */
#include <errno.h>
#include <string.h>

#include "gpuaudit/findings.h"
#include "internal.h"

static const char *const action_names[GA_ACT__COUNT] = {
	[GA_ACT_INVESTIGATE] = "investigate",
	[GA_ACT_NONE] = "none",
	[GA_ACT_RESTART_WORKLOAD] = "restart_workload",
	[GA_ACT_RESET_GPU] = "reset_gpu",
	[GA_ACT_REBOOT] = "reboot",
	[GA_ACT_DRAIN] = "drain",
	[GA_ACT_REPLACE] = "replace",
	[GA_ACT_FIX_CONFIG] = "fix_config",
};

static const char *const cause_names[GA_CAUSE__COUNT] = {
	[GA_CAUSE_UNKNOWN] = "unknown",
	[GA_CAUSE_NODE_HARDWARE] = "node_hardware",
	[GA_CAUSE_DRIVER] = "driver",
	[GA_CAUSE_CONTAINER_RUNTIME] = "container_runtime",
	[GA_CAUSE_APPLICATION] = "application",
	[GA_CAUSE_NETWORK] = "network",
	[GA_CAUSE_CONFIGURATION] = "configuration",
};

const char *ga_action_name(enum ga_action a)
{
	return (unsigned)a < GA_ACT__COUNT ? action_names[a] : action_names[GA_ACT_INVESTIGATE];
}

const char *ga_cause_name(enum ga_cause c)
{
	return (unsigned)c < GA_CAUSE__COUNT ? cause_names[c] : cause_names[GA_CAUSE_UNKNOWN];
}

int ga_action_parse(const char *name, enum ga_action *ret)
{
	for (size_t i = 0; name && i < GA_ACT__COUNT; i++)
		if (!strcmp(name, action_names[i])) {
			*ret = (enum ga_action)i;
			return 0;
		}
	return -EINVAL;
}

int ga_action_rank(enum ga_action a)
{
	static const int rank[GA_ACT__COUNT] = {
		[GA_ACT_NONE] = 0,       [GA_ACT_RESTART_WORKLOAD] = 1, [GA_ACT_INVESTIGATE] = 2,
		[GA_ACT_FIX_CONFIG] = 3, [GA_ACT_RESET_GPU] = 4,        [GA_ACT_REBOOT] = 5,
		[GA_ACT_DRAIN] = 6,      [GA_ACT_REPLACE] = 7,
	};
	return (unsigned)a < GA_ACT__COUNT ? rank[a] : rank[GA_ACT_INVESTIGATE];
}
