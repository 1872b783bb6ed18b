/*
 * vendor.h - views from vendor libraries loaded at run time (dlopen).
 *
 * Vendor libraries can hang, crash or leak; callers run these in an isolated
 * helper process with a deadline and merge the result into the node snapshot.
 */
#ifndef GPUAUDIT_VENDOR_H
#define GPUAUDIT_VENDOR_H

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ROCm SMI's view: dlopen librocm_smi64.so.1 (then librocm_smi64.so), init,
 * enumerate, shut down, dlclose. Always returns 0 with *ret filled: either
 * the library, version, device_count and gpus[], or error/error_call/error_code
 * saying what failed ("library not found: librocm_smi64.so.1", the library's
 * own rsmi_status_string text for a failed call). Returns -ENOMEM only, and
 * then leaves *ret untouched. Free with ga_rocm_smi_free.
 */
int ga_rocm_smi_collect(struct ga_ctx *ctx, struct ga_rocm_smi **ret);
/* The same with an explicit NULL-terminated list of library names, tried in order. */
int ga_rocm_smi_collect_from(struct ga_ctx *ctx, const char *const *sonames, struct ga_rocm_smi **ret);
/* NULL-safe. */
void ga_rocm_smi_free(struct ga_rocm_smi *r);
/*
 * ROCm SMI's 64-bit BDF id (domain << 32 | bus << 8 | device << 3 | function;
 * ROCm 6 keeps a partition id in bits 28-31, ignored here) as the sysfs
 * address "0000:c1:00.0". Returns 0, or -ENOSPC when buf is too small.
 */
int ga_rocm_smi_bdf(uint64_t id, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
