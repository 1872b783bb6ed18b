/*
 * prom.h - Prometheus exposition of a node: the text format 0.0.4 and
 * OpenMetrics 1.0, rendered from a node snapshot, its class, its findings and
 * kernel-event counters into a ga_buf. docs/metrics.md lists every family.
 *
 * Pure: no I/O, no clock (timestamps come in through ga_prom_stats). The
 * kernel-event counter accumulates events across repeated reads of the same
 * kernel log so that an exposed counter only ever grows within a process.
 */
#ifndef GPUAUDIT_PROM_H
#define GPUAUDIT_PROM_H

#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_prom_format {
	GA_PROM_TEXT = 0,    /* text/plain; version=0.0.4 */
	GA_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/*
 * The format an HTTP Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text with a quality at least that of every other
 * acceptable range, the text format otherwise (also for NULL, empty or
 * malformed headers). Looks at no more than 4096 bytes.
 */
enum ga_prom_format ga_prom_negotiate(const char *accept, size_t len);
const char *ga_prom_content_type(enum ga_prom_format fmt);

/* Append s as a label value: '\\', '"' and newline escaped; other bytes as they are. */
int ga_prom_label_escape(struct ga_buf *b, const char *s);

/* --- kernel-event counters --- */

#define GA_KEV_SERIES_MAX 1024 /* distinct (kind, code, device, severity) series kept */

struct ga_kev_series {
	enum ga_kev_kind kind;
	struct ga_ou64 code;
	char address[16];
	enum ga_severity severity; /* the catalogue's, before any policy override */
	uint64_t count;
};

/*
 * Counts of kernel-log events by kind, code, PCI address and severity, accumulated over
 * repeated reads of a log that still holds what was read before (the kmsg
 * ring buffer, a growing file). A read counts only events newer than the last
 * read's newest (by boot time; ties and untimed lines by their position), so
 * each event is counted once. A new boot id starts the high-water mark over
 * but keeps the counts. Events past GA_KEV_SERIES_MAX series go to `dropped`.
 */
struct ga_kev_counter {
	struct ga_kev_series *v;
	size_t n;
	uint64_t dropped;
	uint64_t reads;
	char *boot_id;
	/* high-water mark of what was counted */
	bool mark_set;
	double mark_boot_s;
	uint64_t at_mark;      /* events counted whose time is exactly mark_boot_s */
	uint64_t untimed_seen; /* events without a time counted so far */
	/* the read in progress */
	bool in_read;
	bool read_max_set;
	double read_max_s;
	uint64_t read_at_max;
	uint64_t read_at_mark;
	uint64_t read_untimed;
	struct ga_kparse parse;
};

void ga_kev_counter_init(struct ga_kev_counter *c);
void ga_kev_counter_release(struct ga_kev_counter *c);
/* Start a read of the log of boot BOOT_ID (NULL: unknown, same as before). 0 / -ENOMEM. */
int ga_kev_counter_begin(struct ga_kev_counter *c, const char *boot_id);
/* Feed one line (a ga_kline_fn, udata = the counter). 0 / -ENOMEM. */
int ga_kev_counter_line(void *c, const char *line, size_t len);
/* Feed one parsed event: 1 counted, 0 already counted before. */
int ga_kev_counter_add(struct ga_kev_counter *c, const struct ga_kevent *ev);
/* Finish the read: move the high-water mark. */
void ga_kev_counter_end(struct ga_kev_counter *c);

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
	const struct ga_policy_class *pcls; /* the matched policy class, for expectations */
	const struct ga_kev_counter *kev;   /* NULL when the kernel log is not read */
	struct ga_obool kmsg_readable;      /* unset: not attempted */
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

#ifdef __cplusplus
}
#endif
#endif
