/*
 * preflight-emit.h - the preflight report written (lib/emit/preflight.c): its document filled
 * from what ga_preflight_run decided, and the JSON. The report's types and model are
 * preflight.h's.
 */
#ifndef GPUAUDIT_PREFLIGHT_EMIT_H
#define GPUAUDIT_PREFLIGHT_EMIT_H

#include "gpuaudit/preflight.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The document of what the steps found, into d (zeroed first); everything
 * copied (the explanation and the container view through their models). Decides
 * nothing: every status, the container view and the explanation come in r.
 * 0 or -ENOMEM.
 */
int ga_pf_doc_fill(const struct ga_pf_report *r, struct ga_pf_doc *d);

/* The report as gpuaudit.preflight/v1 (pretty, final newline) into out, through the model.
 * 0, -ENOMEM, -E2BIG. */
int ga_preflight_write_json(const struct ga_pf_report *r, struct ga_buf *out);

#ifdef __cplusplus
}
#endif
#endif
