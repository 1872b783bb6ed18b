/*
 * fleet.h - many nodes at once: the compatibility matrix as it really is
 * (hardware classes, and within each the software stacks present with their
 * node counts) and drift (nodes whose stack differs from their pool's pins or
 * majority, nodes with fewer GPUs than their pool, degraded links, failing
 * checks).
 *
 * The aggregator is fed one report at a time and keeps only counters per
 * class and per (class, stack) cell, plus for each cell a bounded sample of
 * its nodes (the max_drift smallest host names). Memory therefore grows with
 * the number of distinct classes and stacks, never with the number of nodes,
 * and the result does not depend on the order the reports arrive in.
 *
 * Classes are `gpuaudit class` (nodeclass.h): the hardware id and the stack
 * hash. A pool is what a node is compared with: with a policy, the policy
 * class it matches (policy.h, the pins are checked by ga_check_node); without
 * one, all hardware classes that differ only in accelerator counts, whose
 * reference is the class and the stack most of its nodes have.
 *
 * The report (struct ga_fleet_report) is plain data with a schema table: it
 * serialises to JSON ("schema": "gpuaudit.fleet/v1") and reads back, which is
 * what `gpuaudit fleet --diff OLD.json` compares against.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in fleet-analyze.h (analyze).
 */
#ifndef GPUAUDIT_FLEET_H
#define GPUAUDIT_FLEET_H

#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_FLEET_SCHEMA "gpuaudit.fleet/v1"
#define GA_FLEET_MAX_DRIFT_DEFAULT 100
#define GA_FLEET_MAX_SKIPPED 100 /* skipped reports listed; the rest are counted */

/* Why a node is in the drift list (bits; names by ga_fleet_reason_name). */
enum ga_fleet_reason {
	GA_FLEET_STACK = 1 << 0,    /* "stack": off the pool's majority stack, or a pin violated */
	GA_FLEET_GPUS = 1 << 1,     /* "gpus": fewer accelerators than the pool */
	GA_FLEET_LINK = 1 << 2,     /* "link": a degraded PCIe link (GA-LINK-DEGRADED) */
	GA_FLEET_CHECK = 1 << 3,    /* "check": a failing check or an error-level finding */
	GA_FLEET_NO_CLASS = 1 << 4, /* "no-class": no policy class matches the node */
};
#define GA_FLEET_N_REASONS 5

/* --- the report: plain data, JSON in and out through a schema table --- */

struct ga_fleet_stack {
	char *stack_sha256;
	char *driver; /* "nvidia 550.135 proprietary", several joined by ", "; NULL = none */
	char *cuda;
	char *rocm;
	char *kernel;
	char *os; /* "ubuntu 22.04" */
	struct ga_ou64 nodes;
	struct ga_ou64 links_degraded; /* nodes with a degraded link */
	struct ga_ou64 failing;        /* nodes with a failing check or no policy class */
	struct ga_obool majority;      /* without a policy: the pool's majority stack */
	struct ga_obool drift;         /* off the majority, or pins violated */
	char *drift_detail;            /* what differs: "driver nvidia 550.90.07 (pool: ...)" */
};

struct ga_fleet_class {
	char *id;   /* `gpuaudit class` name "-" hw_sha256[0..8] */
	char *name; /* "a100-sxm4-40gb-x8-nvswitch" */
	char *hw_sha256;
	char *pool; /* policy class (NULL: none matches); without a policy the pool's majority class id */
	struct ga_ou64 gpus;
	struct ga_ou64 expected_gpus; /* policy gpu_count, else the pool majority's */
	struct ga_ou64 nodes;
	struct ga_fleet_stack *stacks; /* most nodes first */
	size_t n_stacks;
};

struct ga_fleet_drift {
	char *host;
	char *source;       /* file (and line) the report came from */
	char *class_id;     /* NULL for a check report */
	char *stack_sha256; /* NULL for a check report */
	struct ga_strv reasons;
	char *detail;
};

struct ga_fleet_skip {
	char *source;
	char *reason;
};

/* Check reports (`gpuaudit check --json`) per policy class. */
struct ga_fleet_checks {
	char *class; /* NULL: no class matched */
	struct ga_ou64 pass;
	struct ga_ou64 fail;
	struct ga_ou64 unknown;
};

/*
 * Drift in time (fleet --prometheus --since): one state of a node, that is
 * one class, stack and pool it reported with, and when it was first and last
 * seen with it within the range (Unix seconds, at the query's step).
 */
struct ga_fleet_state {
	char *class_id;
	char *stack_sha256;
	char *driver;
	char *cuda;
	char *pool;
	struct ga_odbl first_seen_s;
	struct ga_odbl last_seen_s;
};

/* A node whose class, stack or pool changed within the range, or that stopped reporting. */
struct ga_fleet_history {
	char *host;
	char *source;
	char *status; /* "changed", "stopped" or "changed,stopped" */
	struct ga_odbl first_seen_s;
	struct ga_odbl last_seen_s;    /* of its last state; before the range's end when it stopped */
	struct ga_fleet_state *states; /* oldest first */
	size_t n_states;
};

struct ga_fleet_report {
	char *schema;
	char *policy;           /* file, NULL without */
	struct ga_ou64 reports; /* documents read, skipped ones included */
	struct ga_ou64 nodes;   /* node snapshots aggregated */
	struct ga_ou64 check_reports;
	struct ga_ou64 skipped;         /* malformed, truncated or unknown documents */
	struct ga_ou64 drift_nodes;     /* all drifting nodes and failing check reports */
	struct ga_fleet_class *classes; /* by name, then hw hash */
	size_t n_classes;
	struct ga_fleet_checks *checks;
	size_t n_checks;
	struct ga_fleet_drift *drift; /* by host then source; at most max_drift */
	size_t n_drift;
	struct ga_fleet_skip *skipped_reports; /* in reading order; at most GA_FLEET_MAX_SKIPPED */
	size_t n_skipped_reports;
	/* fleet --prometheus only (left out of the JSON otherwise) */
	char *prometheus;                 /* the server's URL */
	struct ga_odbl at_s;              /* the evaluation time (Unix seconds); unset: the server's now */
	struct ga_odbl since_s;           /* --since: the range history covers */
	struct ga_ou64 history_nodes;     /* nodes that changed or stopped within it */
	struct ga_fleet_history *history; /* by host then source; at most max_drift */
	size_t n_history;
};

/* The tables (lib/model/fleet.c). */
extern const struct ga_schema ga_fleet_report_schema;
extern const struct ga_schema ga_fleet_drift_schema;
extern const struct ga_schema ga_fleet_skip_schema;
extern const struct ga_schema ga_fleet_history_schema;

void ga_fleet_report_free(struct ga_fleet_report *r);
/* The report's members into an object the caller opened (so it can append its own). */
void ga_fleet_report_write_members(const struct ga_fleet_report *r, struct ga_json *w);
/* Parse a report written by --json. -EBADMSG with the reason in ctx, or -ENOMEM. */
int ga_fleet_report_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_fleet_report **ret);

/* --- the aggregator --- */

struct ga_fleet_opts {
	const struct ga_policy *policy; /* NULL: drift against each pool's majority */
	size_t max_drift;               /* drift entries listed (the rest counted); 0 = none */
	/*
	 * Families, classes and stacks held in all; past it the add that needs
	 * one more fails with -E2BIG (fleet --prometheus --max-classes: memory
	 * bounded whatever the server sends). 0: no cap.
	 */
	size_t max_rows;
	/*
	 * Threads that parse documents for ga_reports_read_* (the reader takes
	 * them from ga_fleet_jobs); 0 or 1: none, the caller's thread does all.
	 * The documents are still aggregated one at a time in reading order, so
	 * the report does not depend on it.
	 */
	unsigned jobs;
	/*
	 * Pools are policy classes although no policy is here: the nodes were
	 * checked where they run (fleet --prometheus, serve --policy). Its name
	 * goes in the report's policy member.
	 */
	const char *policy_name;
};

struct ga_fleet;

/*
 * A node known by what it reports rather than by its snapshot (fleet
 * --prometheus: serve's gpuaudit_fleet_info series and its findings). The
 * aggregator derives the same from a snapshot in ga_fleet_add_node.
 */
struct ga_fleet_node {
	const char *host; /* NULL or "": the source names it */
	const char *class_name;
	const char *hw_sha256;
	const char *family; /* equal for hardware classes that differ only in accelerator counts */
	const char *stack_sha256;
	const char *driver, *cuda, *rocm, *kernel, *os; /* the matrix columns, NULL: none */
	struct ga_ou64 gpus;          /* unset: the node's PCI devices were not read (ga_node_pci_known) */
	const char *pool;             /* the policy class it matched; NULL: none or no policy */
	struct ga_ou64 expected_gpus; /* that class's expect.gpu_count */
	const struct ga_findings *findings; /* code and severity count; a pin's message is its detail */
};

/* The matrix columns of a stack (its canonical JSON), as the report writes them. */
struct ga_fleet_columns {
	char *driver, *cuda, *rocm, *kernel, *os_id, *os_version;
};

/* --- what changed between two reports --- */

struct ga_fleet_change {
	char *kind; /* "class-added", "class-removed", "class-nodes", "stack-added", "stack-removed",
	               "stack-nodes", "drift-added", "drift-resolved", "drift-changed" */
	char *class_id;
	char *stack_sha256;
	char *host;
	struct ga_ou64 old_nodes;
	struct ga_ou64 new_nodes;
	char *detail;
};

struct ga_fleet_diff {
	struct ga_ou64 old_nodes;
	struct ga_ou64 new_nodes;
	struct ga_ou64 old_drift_nodes;
	struct ga_ou64 new_drift_nodes;
	/* false when a drift list was cut at max_drift: hosts past the cut are not compared */
	struct ga_obool drift_complete;
	struct ga_fleet_change *changes;
	size_t n_changes;
};

extern const struct ga_schema ga_fleet_diff_schema;

/*
 * The document `fleet --json` prints: the report, with a "diff" member after
 * its own when d is not NULL (pretty JSON, final newline). 0 or -ENOMEM.
 */
int ga_fleet_write_json(const struct ga_fleet_report *r, const struct ga_fleet_diff *d, struct ga_buf *out);

#ifdef __cplusplus
}
#endif
#endif
