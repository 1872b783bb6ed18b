/*
 * analyze/fleet-int.h - the aggregator's state, shared by the files that
 * build it (fleet.c), turn it into a report (fleet-report.c) and compare
 * reports (fleet-diff.c). Not installed.
 */
#ifndef GA_ANALYZE_FLEET_INT_H
#define GA_ANALYZE_FLEET_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/strmap.h"
#include "gpuaudit/fleet.h"

/* bounded samples: the `cap` smallest (host, source) pairs */
struct sample {
	char *host;
	char *source;
	char *detail;
	unsigned flags;
};

struct sampleset {
	struct sample *v;
	size_t n, alloc;
};

struct family {
	char *key; /* hardware class JSON with the accelerator counts left out */
};

struct klass {
	char *id, *name, *hw_sha256, *pool;
	size_t fam;
	struct ga_ou64 gpus; /* unset: the PCI devices were not read */
	uint64_t nodes;
	struct ga_ou64 policy_gpus; /* the policy class's gpu_count */
};

struct cell {
	size_t cls;
	char *stack_sha256;
	char *driver, *cuda, *rocm, *kernel, *os;
	uint64_t nodes, links, failing, bad, pins;
	char *pin_detail; /* the pin findings of the first node that violated one */
	struct sampleset all, badset;
};

struct checks {
	char *cls;
	uint64_t pass, fail, unknown;
};

struct ga_fleet {
	struct ga_fleet_opts o;
	struct ga_strmap idx; /* "F"+family key, "C"+hw|pool, "S"+class|stack, "K"+check class */
	struct family *fams;
	size_t n_fams;
	struct klass *classes;
	size_t n_classes;
	struct cell *cells;
	size_t n_cells;
	struct checks *checks;
	size_t n_checks;
	struct sampleset check_fail; /* failing check reports */
	uint64_t nodes, check_reports, check_failing, skipped;
	struct ga_fleet_skip *skips;
	size_t n_skips;
	/* fleet --prometheus */
	char *prometheus;
	char *policy_name; /* o.policy_name points here when the nodes said it */
	struct ga_odbl at_s, since_s;
	uint64_t history_nodes;
	struct ga_fleet_history *history; /* sorted by host, source; at most max_drift */
	size_t n_history;
};

/* Pools are policy classes: a policy here, or nodes checked where they run. */
static inline bool fleet_has_policy(const struct ga_fleet *f)
{
	return f->o.policy || f->o.policy_name;
}

static inline char *fleet_dup_or_null(const char *s)
{
	return s ? ga_strdup(s) : NULL;
}

/* The order of the samples and of the drift list: host, then source. */
static inline int fleet_sample_cmp(const char *h1, const char *s1, const char *h2, const char *s2)
{
	int c = strcmp(h1, h2);
	return c ? c : strcmp(s1, s2);
}

static inline bool fleet_streq_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

#endif
