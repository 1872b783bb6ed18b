/*
 * sample-read.h - what collect reads for record and health (lib/collect/sample.c): the raw
 * counters, the pressure files' names, the boot time and uptime of /proc. The samples' types
 * and the gpuaudit.sample/v1 model are sample.h's.
 */
#ifndef GPUAUDIT_SAMPLE_READ_H
#define GPUAUDIT_SAMPLE_READ_H

#include "gpuaudit/sample.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const char *const ga_psi_names[GA_PSI_N];

/*
 * Read one point in time under the context's root. Missing or malformed
 * files leave their part empty or absent (logged at debug level); only
 * -ENOMEM is an error. *ret is zeroed first; release with ga_sample_raw_release.
 */
int ga_sample_read(struct ga_ctx *ctx, struct ga_sample_raw *ret);

void ga_sample_raw_release(struct ga_sample_raw *s);

/* The boot clock under the root: proc/stat's btime (epoch seconds) and proc/uptime's
 * first number; each left unset when absent or malformed. */
void ga_proc_btime(struct ga_ctx *ctx, struct ga_oi64 *ret);

void ga_proc_uptime(struct ga_ctx *ctx, struct ga_odbl *ret);

#ifdef __cplusplus
}
#endif
#endif
