/*
 * fabricmgr.c - the fabric daemons of an NVSwitch system, read from their
 * files under the root: the nvidia-fabricmanager systemd unit, its pid file
 * and, on NVLink 5 systems, the NVLink subnet manager's (nvlsm) pid file, each
 * checked against proc/PID/comm. Paths: the NVIDIA driver container and the
 * Ubuntu fabricmanager package (shared/reference/node-topology-fabric-
 * containers.md §7.4). Read only where NVML reports a GPU fabric state, so a
 * node without NVSwitch fabric gets no member at all.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

static const char *const units[] = {
	"etc/systemd/system/nvidia-fabricmanager.service",
	"lib/systemd/system/nvidia-fabricmanager.service",
	"usr/lib/systemd/system/nvidia-fabricmanager.service",
};
static const char *const fm_pids[] = {
	"var/run/nvidia-fabricmanager/nv-fabricmanager.pid",
	"run/nvidia-fabricmanager/nv-fabricmanager.pid",
};
static const char *const nvlsm_pids[] = {
	"var/run/nvidia-fabricmanager/nvlsm.pid",
	"run/nvidia-fabricmanager/nvlsm.pid",
};

static bool wants(const struct ga_node *n)
{
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].nvml && n->accelerators[i].nvml->fabric_state)
			return true;
	return false;
}

/* The first pid file of LIST that exists: its path, pid and whether proc/PID/comm is COMM. */
static int daemon_state(struct ga_col *c, const char *const *list, size_t n, const char *comm,
                        char **ret_file, struct ga_ou64 *ret_pid, struct ga_obool *ret_running)
{
	for (size_t i = 0; i < n; i++) {
		struct ga_ou64 pid = { 0 };
		int r = ga_col_attr_u64(c, GA_COL_OPT, &pid, "%s", list[i]);
		if (r == -ENOMEM)
			return r;
		if (r == -ENOENT)
			continue;
		if (!(*ret_file = ga_strdup(list[i])))
			return -ENOMEM;
		GA_SET(*ret_running, false);
		if (!pid.set || pid.v == 0 || pid.v > 0x3fffffff)
			return 0; /* unreadable or nonsense: not running as far as we can tell */
		if (ret_pid)
			*ret_pid = pid;
		char *got = NULL;
		r = ga_col_attr(c, GA_COL_OPT, &got, "proc/%llu/comm", (unsigned long long)pid.v);
		if (r == -ENOMEM)
			return r;
		/* the kernel cuts comm at 15 bytes: "nv-fabricmanage" */
		size_t want = strlen(comm) < 15 ? strlen(comm) : 15;
		GA_SET(*ret_running, r == 0 && got && strlen(got) == want && !strncmp(got, comm, want));
		ga_free(got);
		return 0;
	}
	return 0;
}

void ga_collect_fabric_manager(struct ga_col *c)
{
	struct ga_node *n = c->node;
	if (!wants(n) || n->fabric_manager)
		return;
	struct ga_fabric_manager *fm = ga_calloc(1, sizeof(*fm));
	if (!ga_col_ok(c, fm))
		return;
	n->fabric_manager = fm;
	for (size_t i = 0; i < GA_ARRAY_SIZE(units) && !fm->unit_file; i++)
		if (ga_fs_exists(c->ctx, units[i]) && !ga_col_ok(c, fm->unit_file = ga_strdup(units[i])))
			return;
	if (daemon_state(c, fm_pids, GA_ARRAY_SIZE(fm_pids), "nv-fabricmanager", &fm->pid_file, &fm->pid,
	                 &fm->running) < 0 ||
	    daemon_state(c, nvlsm_pids, GA_ARRAY_SIZE(nvlsm_pids), "nvlsm", &fm->nvlsm_pid_file, NULL,
	                 &fm->nvlsm_running) < 0) {
		c->err = -ENOMEM;
		return;
	}
	if (!fm->pid_file)
		GA_SET(fm->running, false); /* no pid file: the daemon is not running */
}
