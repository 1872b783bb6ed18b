/*
 * fleet-analyze.h - the fleet aggregator (lib/analyze/fleet.c, fleet-report.c, fleet-diff.c):
 * nodes, checks and history added, the report and the diff, the sinks the readers feed
 * (ga_fleet_sink, ga_fleet_prom_sink), the family and the matrix columns of a class. The
 * report's types and the gpuaudit.fleet/v1 model are fleet.h's.
 */
#ifndef GPUAUDIT_FLEET_ANALYZE_H
#define GPUAUDIT_FLEET_ANALYZE_H

#include "gpuaudit/fleet.h"
#include "gpuaudit/reader-sinks.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *ga_fleet_reason_name(unsigned bit);

int ga_fleet_new(const struct ga_fleet_opts *o, struct ga_fleet **ret);

void ga_fleet_free(struct ga_fleet *f);

/* The opts' jobs. */
unsigned ga_fleet_jobs(const struct ga_fleet *f);

/* Aggregate one node snapshot. source names it in the drift list. 0 or -ENOMEM. */
int ga_fleet_add_node(struct ga_fleet *f, const struct ga_node *n, const char *source);

/*
 * Aggregate one check report: the node's name (its host, or the file's), its
 * policy class (NULL: none matched), the result ("pass", "fail", "unknown")
 * and what failed (codes, for the drift list). 0, -EINVAL (bad result), -ENOMEM.
 */
int ga_fleet_add_check(struct ga_fleet *f, const char *source, const char *name, const char *cls,
                       const char *result, const char *detail);

/* Aggregate one such node. 0 or -ENOMEM (-EINVAL: a name or hash missing). */
int ga_fleet_add_reported(struct ga_fleet *f, const struct ga_fleet_node *n, const char *source);

/*
 * Append a node's history (fleet --since); the fleet keeps the max_drift
 * first by host and counts the rest. Takes the contents of *h (zeroed). 0 or -ENOMEM.
 */
int ga_fleet_add_history(struct ga_fleet *f, struct ga_fleet_history *h);

/* Where the nodes came from, for the report: the URL, the time, the range (unset: none). 0 or -ENOMEM. */
int ga_fleet_set_origin(struct ga_fleet *f, const char *url, struct ga_odbl at_s, struct ga_odbl since_s);

/*
 * The family of a hardware class (its canonical JSON): the hex SHA-256 of
 * the class with the accelerator counts left out. 0, -EINVAL or -ENOMEM.
 */
int ga_fleet_family_sha256(const char *hw_json, char **ret);

int ga_fleet_columns_init(const char *stack_json, struct ga_fleet_columns *out);

void ga_fleet_columns_release(struct ga_fleet_columns *c);

/* Record a document that could not be used. 0 or -ENOMEM. */
int ga_fleet_add_skipped(struct ga_fleet *f, const char *source, const char *reason);

/* The report so far (the fleet can take more reports afterwards). 0 or -ENOMEM. */
int ga_fleet_report(const struct ga_fleet *f, struct ga_fleet_report **ret);

int ga_fleet_diff(const struct ga_fleet_report *old, const struct ga_fleet_report *cur,
                  struct ga_fleet_diff **ret);

void ga_fleet_diff_free(struct ga_fleet_diff *d);

/*
 * A sink for ga_reports_read_* (lib/collect/reports.c) that aggregates into
 * f: the reader yields documents, the fleet takes them.
 */
void ga_fleet_sink(struct ga_fleet *f, struct ga_reports_sink *ret);

/* The same for ga_prom_fleet_read (promfleet.h, lib/collect/promfleet.c). */
void ga_fleet_prom_sink(struct ga_fleet *f, struct ga_prom_fleet_sink *ret);

#ifdef __cplusplus
}
#endif
#endif
