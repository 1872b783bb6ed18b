/*
 * kevent.h - the kinds of kernel-log events and their names, as every output
 * writes them (the model: lib/model/kevent.c). What a line is and what an event
 * means is analyze's (kmsg.h); reading the log is collect's (klog.h).
 */
#ifndef GPUAUDIT_KEVENT_H
#define GPUAUDIT_KEVENT_H

#ifdef __cplusplus
extern "C" {
#endif

enum ga_kev_kind {
	GA_KEV_XID = 0,
	GA_KEV_SXID,
	GA_KEV_GPU_LOST,
	GA_KEV_AMDGPU_RESET,
	GA_KEV_AMDGPU_RING_TIMEOUT,
	GA_KEV_AMDGPU_RAS,
	GA_KEV_AER_CORRECTED,
	GA_KEV_AER_UNCORRECTED,
	GA_KEV_HUNG_TASK,
	GA_KEV_OOM_KILL,
	GA_KEV_MCE,
	GA_KEV_NVRM_INIT_FAILURE,
	GA_KEV_NVRM_API_MISMATCH,
	GA_KEV_AMDGPU_VM_FAULT, /* [gfxhub]/[mmhub] page fault, *VM_L2_PROTECTION_FAULT_STATUS */
	GA_KEV_AMDGPU_RAS_RMA,  /* amdgpu's bad-page table reached amdgpu.bad_page_threshold */
	GA_KEV__COUNT
};

/* "xid", "aer-corrected", ...; NULL when out of range. */
const char *ga_kev_kind_name(enum ga_kev_kind k);

#ifdef __cplusplus
}
#endif
#endif
