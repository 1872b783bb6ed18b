/*
 * kevent.c - the names of the kernel-log event kinds (kevent.h): the one table
 * the parser's events, the health report, the findings' evidence and the
 * metrics' "kind" label are written with.
 */
#include <stddef.h>

#include "gpuaudit/kevent.h"

static const char *const kind_names[GA_KEV__COUNT] = {
	[GA_KEV_XID] = "xid",
	[GA_KEV_SXID] = "sxid",
	[GA_KEV_GPU_LOST] = "gpu-lost",
	[GA_KEV_AMDGPU_RESET] = "amdgpu-reset",
	[GA_KEV_AMDGPU_RING_TIMEOUT] = "amdgpu-ring-timeout",
	[GA_KEV_AMDGPU_RAS] = "amdgpu-ras",
	[GA_KEV_AER_CORRECTED] = "aer-corrected",
	[GA_KEV_AER_UNCORRECTED] = "aer-uncorrected",
	[GA_KEV_HUNG_TASK] = "hung-task",
	[GA_KEV_OOM_KILL] = "oom-kill",
	[GA_KEV_MCE] = "mce",
	[GA_KEV_NVRM_INIT_FAILURE] = "nvrm-init-failure",
	[GA_KEV_NVRM_API_MISMATCH] = "nvrm-api-mismatch",
	[GA_KEV_AMDGPU_VM_FAULT] = "amdgpu-vm-fault",
	[GA_KEV_AMDGPU_RAS_RMA] = "amdgpu-ras-rma",
};

const char *ga_kev_kind_name(enum ga_kev_kind k)
{
	return (unsigned)k < GA_KEV__COUNT ? kind_names[k] : NULL;
}
