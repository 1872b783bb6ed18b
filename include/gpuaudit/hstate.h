/*
 * hstate.h - the health state that persists across runs and restarts
 * (`health --state FILE`, gpuaudit.health-state/v2): sticky conditions that a
 * remediator acts on, raised by per-code count/window thresholds from the
 * policy's `health:` section, lowered only after they stay clear for a number
 * of collections and a duration (flap damping), or by an operator
 * (`health --clear CODE|all`). It also keeps, per hardware Xid and GPU, the
 * boots it was seen in: a repeat after reboots becomes `replace`.
 *
 * The model (lib/model/hstate.c) is plain data; the update (lib/analyze/
 * hstate.c) is pure: findings, the state, the clock value and the boot id in;
 * the state and the findings out. The CLI reads and writes the file.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in hstate-analyze.h (analyze).
 */
#ifndef GPUAUDIT_HSTATE_H
#define GPUAUDIT_HSTATE_H

#include "gpuaudit/findings.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_HSTATE_SCHEMA "gpuaudit.health-state/v2"
#define GA_HSTATE_SCHEMA_V1 "gpuaudit.health-state/v1"
#define GA_HSTATE_DEFAULT_PATH "/var/lib/gpuaudit/health-state.json"
#define GA_HSTATE_MAX_CONDITIONS 1024
#define GA_HSTATE_MAX_HITS 64  /* collections with new events kept per condition */
#define GA_HSTATE_MAX_BOOTS 16 /* boot ids kept per condition */
#define GA_HSTATE_REPEAT_BOOTS 2
#define GA_HSTATE_CLEAR_AFTER 2         /* default: collections a condition must stay clear */
#define GA_HSTATE_CLEAR_FOR_S 600.0     /* default: and for this long */
#define GA_HSTATE_FORGET_S (30 * 86400) /* a lowered condition unseen this long is dropped */

/* New events (or presence) seen in one collection. */
struct ga_hstate_hit {
	struct ga_oi64 t_s; /* Unix time of the collection */
	struct ga_ou64 n;   /* new events (1 for a condition finding that is present) */
};

struct ga_hstate_cond {
	char *code;
	char *subject;
	enum ga_severity severity;
	enum ga_action action;
	enum ga_cause cause;
	char *message;
	char *decision;
	char *gpu_uuid;
	char *pci_address;
	struct ga_obool raised;    /* sticky: stays until clear long enough, or --clear */
	struct ga_oi64 raised_s;   /* when it was raised */
	struct ga_oi64 first_s;    /* first collection it was seen in */
	struct ga_oi64 last_s;     /* last collection with new events / presence */
	struct ga_ou64 clear_runs; /* consecutive collections without */
	/* high-water mark of the kernel-log events already counted (the log is re-read) */
	char *log_boot_id;
	struct ga_ou64 log_count;
	struct ga_odbl log_last_boot_s;
	struct ga_strv boots; /* boot ids it was seen in */
	struct ga_hstate_hit *hits;
	size_t n_hits;
};

struct ga_health_state {
	char *schema; /* GA_HSTATE_SCHEMA */
	struct ga_oi64 updated_s;
	char *boot_id;
	struct ga_ou64 collections;
	struct ga_hstate_cond *conditions;
	size_t n_conditions;
};

extern const struct ga_schema ga_health_state_schema;

/* A policy threshold (policy `health: thresholds:`); code may end in '*' (a prefix). */
struct ga_health_threshold {
	char *code;
	uint64_t count;  /* events (or collections present) ... */
	double window_s; /* ... within this window; 0 = since the condition was first seen */
	bool action_set;
	enum ga_action action; /* the action once raised (default: the finding's) */
	unsigned line;
};

/* The policy's `health:` section (policy.h embeds it); zero = the defaults. */
struct ga_health_policy {
	struct ga_ou64 clear_after; /* collections; default GA_HSTATE_CLEAR_AFTER */
	struct ga_odbl clear_for_s; /* seconds; default GA_HSTATE_CLEAR_FOR_S */
	struct ga_health_threshold *thresholds;
	size_t n_thresholds;
};

/*
 * Read a state document (v2, or a v1 file of the Xid repeat memory, whose
 * boots are carried over). text NULL or empty: a new, empty state.
 * -EBADMSG (message in ctx) when it is neither, -ENOMEM.
 */
int ga_hstate_read(struct ga_ctx *ctx, const char *text, size_t len, struct ga_health_state *ret);
/* The document, pretty-printed, with a final newline. */
int ga_hstate_write(const struct ga_health_state *st, struct ga_buf *out);
void ga_hstate_release(struct ga_health_state *st);
/* What one condition owns (not the struct itself). */
void ga_hstate_cond_release(struct ga_hstate_cond *c);

#ifdef __cplusplus
}
#endif
#endif
