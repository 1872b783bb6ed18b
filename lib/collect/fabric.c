/*
 * fabric.c - the NVIDIA fabric manager service as its files show it: the systemd unit
 * (nvidia-fabricmanager.service), whether a *.wants/ link enables it, and its pid file
 * (/var/run/nvidia-fabricmanager/nv-fabricmanager.pid, written by nv-fabricmanager; paths
 * from the nvidia-fabricmanager package file list and NVIDIA's gpu-driver-container, see
 * docs/network.md). On NVSwitch systems CUDA cannot start until it has configured the fabric.
 *
 * No systemctl, no D-Bus: under --root, in a container or on a captured tree only files
 * exist. A pid whose proc/<pid>/comm cannot be read leaves `running` absent, not false,
 * unless proc/<pid> is plainly missing while this root's proc is mounted (a stale pid file).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

static const char *const unit_dirs[] = { "etc/systemd/system", "lib/systemd/system",
	                                 "usr/lib/systemd/system" };
static const char *const pid_files[] = { "run/nvidia-fabricmanager/nv-fabricmanager.pid",
	                                 "var/run/nvidia-fabricmanager/nv-fabricmanager.pid" };
#define FM_UNIT "nvidia-fabricmanager.service"

void ga_collect_fabric(struct ga_col *c)
{
	struct ga_fabric_manager fm = { 0 };
	char path[512];
	for (size_t i = 0; i < GA_ARRAY_SIZE(unit_dirs) && !fm.unit_path; i++) {
		snprintf(path, sizeof(path), "%s/" FM_UNIT, unit_dirs[i]);
		if (ga_fs_exists(c->ctx, path) && !(fm.unit_path = ga_strdup(path))) {
			c->err = -ENOMEM;
			return;
		}
	}
	for (size_t i = 0; i < GA_ARRAY_SIZE(pid_files) && !fm.pid_file; i++) {
		struct ga_ou64 pid = { 0 };
		if (!ga_fs_exists(c->ctx, pid_files[i]))
			continue;
		ga_col_attr_u64(c, GA_COL_REQ, &pid, "%s", pid_files[i]);
		fm.pid = pid;
		if (!(fm.pid_file = ga_strdup(pid_files[i])))
			c->err = -ENOMEM;
	}
	if (!fm.unit_path && !fm.pid_file) /* nothing installed, or nothing of it visible */
		return;
	if (fm.unit_path) {
		snprintf(path, sizeof(path), "etc/systemd/system/multi-user.target.wants/" FM_UNIT);
		GA_SET(fm.enabled, ga_fs_exists(c->ctx, path));
	}
	if (fm.pid.set && fm.pid.v > 0) {
		char *comm = NULL;
		int r = ga_col_attr(c, GA_COL_OPT, &comm, "proc/%llu/comm", (unsigned long long)fm.pid.v);
		if (r == 0)
			GA_SET(fm.running, ga_startswith(comm, "nv-fabricmanage")); /* comm: 15 bytes */
		else if (r == -ENOENT && ga_fs_is_dir(c->ctx, "proc/1")) /* proc is there, the pid not */
			GA_SET(fm.running, false);
		ga_free(comm);
	} else if (fm.pid_file) {
		GA_SET(fm.running, false);
	}
	struct ga_fabric_manager *p = ga_calloc(1, sizeof(*p));
	if (!ga_col_ok(c, p)) {
		ga_free(fm.unit_path);
		ga_free(fm.pid_file);
		return;
	}
	*p = fm;
	c->node->fabric_manager = p;
}
