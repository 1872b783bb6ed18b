/*
 * reader-sinks.h - the sinks the fleet's readers feed, as types only: between
 * collect's readers (reports.h: node snapshots and check reports from files;
 * promfleet.h: the fleet from Prometheus) and whoever takes what they yield
 * (the aggregator's ga_fleet_sink and ga_fleet_prom_sink, fleet-analyze.h).
 * A reader knows the sink, not the fleet; the aggregator knows the sink, not
 * the reader.
 */
#ifndef GPUAUDIT_READER_SINKS_H
#define GPUAUDIT_READER_SINKS_H

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A check report (`gpuaudit check --json`), as the reader found it. */
struct ga_reports_check {
	const char *name;   /* its host, or the file's name without extensions */
	const char *cls;    /* the policy class; NULL: none matched */
	const char *result; /* as written: "pass", "fail", "unknown" or anything else */
	const char *detail; /* the codes of the error/critical findings, space-separated; NULL: none */
};

/*
 * Where documents go, in reading order and always in the caller's thread.
 * source names the document ("path", "path:LINE", "stdin:LINE").
 *   node:    a node snapshot. 0; -ENOMEM stops the read; another -errno:
 *            the reader records it as skipped ("cannot classify it").
 *   check:   a check report. 0; -ENOMEM stops; -EINVAL: the result is not
 *            one the sink knows, recorded as skipped.
 *   skipped: a document that could not be used, and why. 0 or -ENOMEM.
 */
struct ga_reports_sink {
	void *ud;
	int (*node)(void *ud, const struct ga_node *n, const char *source);
	int (*check)(void *ud, const struct ga_reports_check *c, const char *source);
	int (*skipped)(void *ud, const char *source, const char *reason);
	/* threads that parse documents; 0 or 1: the caller's thread does all */
	unsigned jobs;
};

/* Where promfleet.h's reader puts the nodes and histories (fleet.h's types). */
struct ga_fleet_node;
struct ga_fleet_history;

struct ga_prom_fleet_sink {
	void *ud;
	/* 0, or a negative errno that stops the read */
	int (*node)(void *ud, const struct ga_fleet_node *n, const char *source);
	int (*skipped)(void *ud, const char *source, const char *reason);
	int (*history)(void *ud, struct ga_fleet_history *h); /* takes the contents */
	int (*policy)(void *ud, const char *name);            /* the first policy label seen */
};

#ifdef __cplusplus
}
#endif
#endif
