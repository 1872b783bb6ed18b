/*
 * serve.h - the documents `gpuaudit serve` answers with that are its own:
 * /v1/check (gpuaudit.serve-check/v1, lib/model/serve.c). /v1/snapshot is
 * the node snapshot (node.h), /metrics the Prometheus exposition (prom.h).
 */
#ifndef GPUAUDIT_SERVE_H
#define GPUAUDIT_SERVE_H

#include "gpuaudit/findings.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_SERVE_CHECK_SCHEMA "gpuaudit.serve-check/v1"

/* /v1/check: the last collection's check (with --policy) or findings (without). */
/* Which Xid sources were live at the last collection; null: not attempted (--from, or off). */
struct ga_serve_xid_sources {
	struct ga_obool kmsg;        /* the kernel log could be read */
	struct ga_obool nvml_events; /* the helper's NVML event wait is registered and running */
};

struct ga_serve_check {
	char *schema;
	char *policy; /* the policy file; NULL without --policy */
	char *class;  /* the policy class checked; NULL: none matched, or no policy */
	char *result; /* "pass", "fail", "unknown"; NULL without a policy or a snapshot */
	struct ga_ou64 violations;
	struct ga_ou64 unknowns;
	struct ga_odbl collected_at; /* Unix seconds of the last collection */
	struct ga_serve_xid_sources xid_sources;
	struct ga_findings findings; /* the check's findings, or the node's analysis */
};

extern const struct ga_schema ga_serve_check_schema;

/* d as pretty JSON (final newline) into out. 0, -ENOMEM, -E2BIG (out's cap). */
int ga_serve_check_write(const struct ga_serve_check *d, struct ga_buf *out);

#ifdef __cplusplus
}
#endif
#endif
