/*
 * nvml-events.c - the parent side of NVML events: run "__vendor-helper
 * nvml-events MS" with a deadline of the wait plus the vendor timeout, and
 * describe whatever happened (events, a helper that NVML hung and that was
 * killed, no library) in the result. The helper side is in nvml.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-read.h"
#include "gpuaudit/isolate.h"

int ga_nvml_events_isolated(struct ga_ctx *ctx, unsigned wait_ms, int cancel_fd, struct ga_nvml_events *out)
{
	if (wait_ms > GA_NVML_EVENTS_MAX_WAIT_MS)
		wait_ms = GA_NVML_EVENTS_MAX_WAIT_MS;
	char arg[16];
	snprintf(arg, sizeof(arg), "%u", wait_ms);
	struct ga_isolate_result res;
	int timeout_ms = (int)wait_ms + ctx->vendor_timeout_ms;
	int r = ga_isolated_collect_arg(ctx, "nvml-events", arg, timeout_ms, cancel_fd,
	                                &ga_nvml_events_schema, out, &res);
	if (r == -ENOMEM || r == -ECANCELED) {
		ga_nvml_events_release(out);
		memset(out, 0, sizeof(*out));
		return r;
	}
	if (r == 0)
		return 0;
	/* killed at the deadline, crashed, or unreadable: only what went wrong is kept */
	ga_nvml_events_release(out);
	memset(out, 0, sizeof(*out));
	GA_SET(out->live, false);
	GA_SET(out->timed_out, res.timed_out);
	out->error = ga_strdup(ga_ctx_errmsg(ctx));
	out->error_call = ga_strdup(res.last_call[0] ? res.last_call : "helper");
	if (!out->error || !out->error_call)
		return -ENOMEM;
	ga_log(ctx, GA_LOG_INFO, "NVML events: %s", out->error);
	return 0;
}
