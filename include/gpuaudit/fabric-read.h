/*
 * fabric-read.h - what collect reads of the NVML events (lib/collect/nvml-events.c): the
 * events collected through the helper process. The events' types and model are fabric.h's;
 * what analyze decides of them is fabric-analyze.h's.
 */
#ifndef GPUAUDIT_FABRIC_READ_H
#define GPUAUDIT_FABRIC_READ_H

#include "gpuaudit/fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Helper side: open NVML, register Xid and ECC events on every GPU, wait up to
 * wait_ms (in slices, so a wait that NVML never returns from is the parent's to
 * kill), close. Failures are described in the result, not returned; -ENOMEM only.
 */
int ga_nvml_events_collect(struct ga_ctx *ctx, unsigned wait_ms, struct ga_nvml_events **ret);

/*
 * Parent side: run the helper for wait_ms; the deadline is wait_ms plus the
 * context's vendor timeout. *out (zeroed by the caller) describes what
 * happened; returns 0, -ENOMEM, or -ECANCELED when cancel_fd (-1: none) became
 * readable (the helper is killed; *out is empty).
 */
int ga_nvml_events_isolated(struct ga_ctx *ctx, unsigned wait_ms, int cancel_fd, struct ga_nvml_events *out);

#ifdef __cplusplus
}
#endif
#endif
