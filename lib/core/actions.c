/*
 * actions.c - the default action and cause class of every finding code, from
 * the one table in actions.def, so that each check only says what it found
 * and a remediator gets a closed set of actions it can switch on.
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

#define ACTION(code, act, cause) { code, GA_ACT_##act, GA_CAUSE_##cause },
static const struct ga_action_rule rules[] = {
#include "actions.def"
};
#undef ACTION

const struct ga_action_rule *ga_action_rules(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(rules);
	return rules;
}

int ga_action_default(const char *code, enum ga_action *ret_action, enum ga_cause *ret_cause)
{
	const struct ga_action_rule *best = NULL;
	size_t best_len = 0;
	int how = 0;
	for (size_t i = 0; code && i < GA_ARRAY_SIZE(rules); i++) {
		const char *c = rules[i].code;
		size_t n = strlen(c);
		if (n && c[n - 1] == '*') {
			if (n - 1 >= best_len && !strncmp(code, c, n - 1) && how < 2)
				best = &rules[i], best_len = n - 1, how = 1;
		} else if (!strcmp(code, c)) {
			best = &rules[i], how = 2;
			break;
		}
	}
	*ret_action = best ? best->action : GA_ACT_INVESTIGATE;
	*ret_cause = best ? best->cause : GA_CAUSE_UNKNOWN;
	return how;
}
