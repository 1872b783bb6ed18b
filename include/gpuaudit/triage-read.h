/*
 * triage-read.h - what collect reads of a process for triage --pid (lib/collect/workload.c).
 * The types are triage.h's.
 */
#ifndef GPUAUDIT_TRIAGE_READ_H
#define GPUAUDIT_TRIAGE_READ_H

#include "gpuaudit/triage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* proc/PID/status and proc/PID/environ: 0, or -errno (no such process) with nothing read. */
int ga_workload_read(struct ga_ctx *ctx, long pid, struct ga_workload *wl);

void ga_workload_release(struct ga_workload *wl);

#ifdef __cplusplus
}
#endif
#endif
