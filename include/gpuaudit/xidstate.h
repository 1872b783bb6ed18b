/*
 * xidstate.h - memory across boots for `health --state FILE`: a hardware Xid
 * that returns on the same GPU after GA_XID_REPEAT_BOOTS earlier boots is
 * escalated to hardware inspection.
 */
#ifndef GPUAUDIT_XIDSTATE_H
#define GPUAUDIT_XIDSTATE_H

#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_XID_STATE_SCHEMA "gpuaudit.health-state/v1"
#define GA_XID_REPEAT_BOOTS 2

/*
 * prev_text: the previous state file (NULL or empty: none). Records this
 * boot's hardware Xid findings in the state, escalates the repeats in place,
 * and returns the new state text in *ret_state (free with ga_free).
 * -EBADMSG when prev_text is not a state document, -ENOMEM.
 */
int ga_xid_state_apply(struct ga_ctx *ctx, const char *prev_text, size_t prev_len, const char *boot_id,
                       struct ga_findings *f, char **ret_state);

#ifdef __cplusplus
}
#endif
#endif
