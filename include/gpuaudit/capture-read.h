/*
 * capture-read.h - gpuaudit capture (lib/collect/capture.c): the copy of a node's files and
 * its checks of the root. The report's types and the gpuaudit.capture/v1 model are
 * capture.h's.
 */
#ifndef GPUAUDIT_CAPTURE_READ_H
#define GPUAUDIT_CAPTURE_READ_H

#include "gpuaudit/capture.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Capture the context's root into o->outdir, through a private partial
 * directory renamed into place once complete. 0, or -errno with the message in
 * ctx: -EEXIST/-ENOTEMPTY/-EPERM/-EINVAL for an OUTDIR that may not be used
 * (checked before anything is written), other errors for OUTDIR writes that
 * failed: the first one (-ENOSPC for a full disk) is the one returned and
 * named, and the partial directory is removed (OUTDIR untouched). Files that cannot be read are no error: they are listed in
 * rep->skipped. rep is zeroed by the caller and filled even on error; release
 * it with ga_capture_report_release.
 */
int ga_capture(struct ga_ctx *ctx, const struct ga_capture_opts *o, struct ga_capture_report *rep);

void ga_capture_report_release(struct ga_capture_report *rep);

/*
 * Is the context's root a capture that was cut short (GA_CAPTURE_META without
 * GA_CAPTURE_COMPLETE, or an "OUTDIR.partial-XXXXXX" without the latter)?
 * 0 for any other root (a live machine, a finished capture, a hand-made
 * tree), -EBADMSG with "incomplete capture: ROOT has no ... (capture was
 * interrupted; capture again)" in ctx. discover, class, check and capture
 * --root refuse such a root (exit 2) instead of reading half a machine.
 */
int ga_capture_root_check(struct ga_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
