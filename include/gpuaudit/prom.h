/*
 * prom.h - Prometheus exposition of a node: the text format 0.0.4 and
 * OpenMetrics 1.0, rendered from a node snapshot, its class, its findings and
 * kernel-event counters into a ga_buf. docs/metrics.md lists every family.
 *
 * Pure: no I/O, no clock (timestamps come in through ga_prom_stats). The
 * kernel-event counter it exposes (struct ga_kev_counter) is kmsg.h's.
 */
#ifndef GPUAUDIT_PROM_H
#define GPUAUDIT_PROM_H

#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_prom_format {
	GA_PROM_TEXT = 0,    /* text/plain; version=0.0.4 */
	GA_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* Content-Type of FMT (HTTP Accept negotiation is serve's: src/serve-accept.c). */
const char *ga_prom_content_type(enum ga_prom_format fmt);

/* Append s as a label value: '\\', '"' and newline escaped; other bytes as they are. */
int ga_prom_label_escape(struct ga_buf *b, const char *s);

/* --- rendering --- */

/* Numbers about the collector itself (the caller's clock). */
struct ga_prom_stats {
	uint64_t collections_total;
	uint64_t collection_errors_total;
	uint64_t vendor_timeouts_total;
	struct ga_odbl last_collection_s; /* Unix time the last collection finished */
	struct ga_odbl last_success_s;    /* ... the last one without error */
	struct ga_odbl duration_s;        /* how long the last collection took */
	struct ga_odbl interval_s;
};

struct ga_prom_input {
	const char *version;                /* build info */
	const struct ga_node *node;         /* NULL when no snapshot could be taken */
	const struct ga_nodeclass *cls;     /* NULL when not computed */
	const struct ga_findings *findings; /* the node's (or the check's) findings; may be NULL */
	const struct ga_check *check;       /* with a policy: the check result; else NULL */
	/* the node's verdict (verdict.h): link, memory and CDI families render it; NULL: left out */
	const struct ga_node_verdict *verdict;
	const struct ga_policy_class *pcls; /* the matched policy class, for expectations */
	const char *policy_name;            /* with a policy: its name (gpuaudit_fleet_info's policy) */
	const struct ga_kev_counter *kev;   /* NULL when the kernel log is not read */
	struct ga_obool kmsg_readable;      /* unset: not attempted */
	struct ga_obool nvml_events_up;     /* the NVML event wait is live; unset: not attempted */
	struct ga_prom_stats stats;
};

/*
 * Append the exposition of IN to OUT. For OpenMetrics the closing "# EOF" is
 * not written: append ga_prom_render_tail after anything rendered per scrape.
 * 0, -ENOMEM or -E2BIG (OUT's cap).
 */
int ga_prom_render(const struct ga_prom_input *in, enum ga_prom_format fmt, struct ga_buf *out);
/*
 * The per-scrape part: whether a collection is running now and for how long
 * (running_s < 0: none), then "# EOF" for OpenMetrics.
 */
int ga_prom_render_tail(enum ga_prom_format fmt, double running_s, struct ga_buf *out);
/* The process_* self-metrics of this process (process.h), rendered per scrape before the tail. */
struct ga_process_stats;
int ga_prom_render_process(enum ga_prom_format fmt, const struct ga_process_stats *ps, struct ga_buf *out);
/*
 * serve's own defences since it started, rendered per scrape beside the
 * process_* families: requests answered 429 (the web configuration's
 * rate_limit; the budget of password checks) and connections serve closed
 * (at the request deadline; stalled ones closed to make room).
 */
struct ga_serve_stats {
	uint64_t refused_rate_limit, refused_auth_budget;
	uint64_t closed_deadline, closed_stalled;
};
int ga_prom_render_serve(enum ga_prom_format fmt, const struct ga_serve_stats *st, struct ga_buf *out);

#ifdef __cplusplus
}
#endif
#endif
