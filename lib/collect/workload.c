/*
 * workload.c - what `triage --pid` reads of the workload's process:
 * Cpus_allowed_list from proc/PID/status and the NCCL and *_VISIBLE_DEVICES
 * variables from proc/PID/environ, under the context's root.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/fs.h"
#include "gpuaudit/triage.h"
#include "gpuaudit/triage-read.h"

int ga_workload_read(struct ga_ctx *ctx, long pid, struct ga_workload *wl)
{
	char path[64];
	struct ga_buf b;
	wl->w.pid = pid;
	snprintf(path, sizeof(path), "proc/%ld/status", pid);
	ga_buf_init(&b, 0);
	int r = ga_fs_read(ctx, path, 1 << 20, &b);
	if (r < 0) {
		ga_buf_release(&b);
		return r;
	}
	const char *p = b.data ? strstr(b.data, "Cpus_allowed_list:") : NULL;
	if (p) {
		p += strlen("Cpus_allowed_list:");
		p += strspn(p, " \t");
		size_t len = strcspn(p, "\n");
		wl->cpus = ga_malloc(len + 1);
		if (!wl->cpus) {
			ga_buf_release(&b);
			return -ENOMEM;
		}
		memcpy(wl->cpus, p, len);
		wl->cpus[len] = '\0';
		wl->w.cpus_allowed = wl->cpus;
	}
	ga_buf_release(&b);
	snprintf(path, sizeof(path), "proc/%ld/environ", pid);
	ga_buf_init(&b, 0);
	if (ga_fs_read(ctx, path, 1 << 20, &b) == 0 && b.data) {
		for (size_t off = 0; off < b.len;) {
			const char *e = b.data + off;
			size_t len = strnlen(e, b.len - off);
			if (!strncmp(e, "NCCL_SOCKET_IFNAME=", 19)) {
				snprintf(wl->ifname, sizeof(wl->ifname), "%.*s", (int)(len - 19), e + 19);
				wl->w.nccl_socket_ifname = wl->ifname;
			} else if (!wl->w.visible_devices && (!strncmp(e, "CUDA_VISIBLE_DEVICES=", 21) ||
			                                      !strncmp(e, "HIP_VISIBLE_DEVICES=", 20) ||
			                                      !strncmp(e, "ROCR_VISIBLE_DEVICES=", 21))) {
				const char *v = strchr(e, '=') + 1;
				snprintf(wl->visible, sizeof(wl->visible), "%.*s",
				         (int)(len - (size_t)(v - e)), v);
				wl->w.visible_devices = wl->visible;
			} else if (!strncmp(e, "NCCL_IB_HCA=", 12)) {
				snprintf(wl->hca, sizeof(wl->hca), "%.*s", (int)(len - 12), e + 12);
				wl->w.nccl_ib_hca = wl->hca;
			}
			off += len + 1;
		}
	}
	ga_buf_release(&b);
	return 0;
}

void ga_workload_release(struct ga_workload *wl)
{
	ga_free(wl->cpus);
	memset(wl, 0, sizeof(*wl));
}
