/*
 * canary.h - judge a candidate benchmark result against a baseline (no I/O).
 *
 * Per metric, matched by name: a Mann-Whitney U test on the bulk (classified
 * Pass/High/Low/NoData at the confidence, with an allowed relative effect, as
 * Kayenta's judge does) and, for lower-is-better metrics, a bootstrap
 * confidence interval of the tail-percentile ratio (MWU can miss a pure tail
 * regression). For http results the error rates are compared with a
 * two-proportion test. Absolute limits (p99 increase, error rate) apply on
 * top. Every failed check means ROLLBACK; otherwise missing data or an
 * interval that straddles a limit means INCONCLUSIVE; else PASS. The score is
 * Kayenta's: 100 * passed checks / decided checks.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in canary-run.h (bench).
 */
#ifndef GPUAUDIT_CANARY_H
#define GPUAUDIT_CANARY_H

#include "gpuaudit/benchfile.h"
#include "gpuaudit/schema.h"
#include "gpuaudit/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unjudged: both medians below the metric's resolution (CPU time under a clock tick): not judged at all */
enum ga_canary_class { GA_CLASS_PASS, GA_CLASS_HIGH, GA_CLASS_LOW, GA_CLASS_NODATA, GA_CLASS_UNJUDGED };
enum ga_canary_tail {
	GA_TAIL_NA,           /* higher-is-better metric, or --no-tail */
	GA_TAIL_PASS,         /* the CI's upper bound is under the limit */
	GA_TAIL_REGRESSION,   /* the CI's lower bound is over the limit */
	GA_TAIL_INCONCLUSIVE, /* the CI straddles the limit */
	GA_TAIL_NODATA,       /* too few values for the percentile */
};
enum ga_canary_verdict { GA_VERDICT_PASS, GA_VERDICT_ROLLBACK, GA_VERDICT_INCONCLUSIVE };

/*
 * The minimum practical effect of one metric, in its unit: a change of the
 * median (and of the tail) must exceed max(allowed_effect x baseline median,
 * min_abs, batch_abs / sqrt(runs of the smaller arm)) to fail, whatever the
 * p-value. batch_abs is the load a short batch of runs carries on a shared
 * machine (consecutive A/A batches differ by it; it averages out over longer
 * batches); resolution: min_abs is what the measurement can resolve, and a
 * metric whose medians are both below it is not judged (class Unjudged).
 * Defaults in lib/bench/canary.c, measured by bench/canary-aa.sh
 * (docs/canary.md "Minimum practical effect").
 */
struct ga_canary_floor {
	const char *metric; /* "exec.wall" */
	double min_abs;
	double batch_abs;
	bool resolution;
};

struct ga_canary_opts {
	double confidence;        /* of every test, default 0.98 (Kayenta's) */
	double allowed_effect;    /* relative median change tolerated, default 0.05 */
	double max_tail_increase; /* relative tail-percentile increase tolerated, default 0.10 */
	double max_error_rate;    /* absolute limit on the candidate's error rate; < 0: none */
	double tail_pct;          /* default 99 */
	bool no_tail;
	int resamples;   /* default 2000 */
	uint64_t seed;   /* default 1 */
	size_t min_bulk; /* values per arm for the MWU class, default 5 */
	/* per-metric floors that replace the defaults (canary --min-effect NAME=VALUE); may be NULL */
	const struct ga_canary_floor *floors;
	size_t n_floors;
};

struct ga_canary_metric {
	char *name;
	char *unit;
	bool higher_better;
	bool missing; /* in one of the results only */
	bool in_baseline;
	size_t n_base, n_cand;
	double base_median, cand_median;
	double median_change; /* cand/base - 1 */
	struct ga_mwu mwu;
	enum ga_canary_class cls;
	bool worse;        /* cls is a change in the bad direction */
	double min_effect; /* the smallest median change that can fail, in the unit (NAN: relative only) */
	double floor_abs;  /* its absolute part (0: none), also the tail's */
	enum ga_canary_tail tail;
	size_t tail_needed; /* values per arm the tail check needs */
	double base_tail, cand_tail;
	struct ga_boot_ci tail_ci;
};

struct ga_canary_report {
	char *kind;
	struct ga_canary_metric *metrics;
	size_t n_metrics;
	bool errors_checked;
	uint64_t base_requests, base_errors, cand_requests, cand_errors;
	struct ga_prop_test errors;
	double cand_error_upper; /* one-sided upper bound of the candidate's rate */
	enum ga_canary_class errors_cls;
	bool error_slo_broken;
	int checks_pass, checks_fail, checks_nodata;
	int checks_unjudged; /* below the metric's resolution: neither pass nor fail */
	double score;        /* NAN when no check decided */
	enum ga_canary_verdict verdict;
	char **reasons; /* why the verdict, one sentence each */
	size_t n_reasons;
};

/*
 * The verdict as a document (gpuaudit.canary/v1, `canary --json`; the model's
 * tables are lib/model/canary.c, docs/schema/canary.md): plain data, absent
 * numbers null. Built from a report with ga_canary_doc_init.
 */
#define GA_CANARY_SCHEMA "gpuaudit.canary/v1"
struct ga_canary_doc_metric {
	char *name;
	char *unit;
	int better; /* 0 "lower", 1 "higher" */
	struct ga_obool missing;
	struct ga_ou64 n_baseline, n_candidate;
	struct ga_odbl baseline_median, candidate_median, median_change;
	struct ga_odbl mwu_p, mwu_auc; /* null when the bulk was not tested (NoData) */
	struct ga_obool mwu_exact;
	int cls; /* "class": enum ga_canary_class */
	struct ga_obool worse;
	struct ga_odbl min_effect; /* the smallest median change that can fail; null: none (missing) */
	int tail;                  /* enum ga_canary_tail */
	struct ga_odbl baseline_tail, candidate_tail;
	struct ga_odbl tail_ratio, tail_ratio_lo, tail_ratio_hi; /* null without a bootstrap */
};
struct ga_canary_doc_errors {
	struct ga_ou64 baseline_requests, baseline_errors, candidate_requests, candidate_errors;
	struct ga_odbl z, p, candidate_rate_upper;
	int cls; /* "class": enum ga_canary_class */
	struct ga_obool limit_broken;
};
struct ga_canary_doc_options {
	struct ga_odbl confidence, allowed_effect, tail_percentile, max_tail_increase, max_error_rate;
	struct ga_oi64 resamples;
	struct ga_ou64 seed;
};
struct ga_canary_doc_checks {
	struct ga_oi64 pass, fail, nodata, unjudged;
};
struct ga_canary_doc {
	char *schema; /* GA_CANARY_SCHEMA */
	char *kind;
	char *baseline; /* the files as named on the command line */
	char *candidate;
	int verdict;            /* enum ga_canary_verdict */
	struct ga_odbl score;   /* null when no check decided */
	struct ga_strv reasons; /* one sentence each */
	struct ga_canary_doc_options options;
	struct ga_canary_doc_checks checks;
	struct ga_canary_doc_metric *metrics;
	size_t n_metrics;
	struct ga_canary_doc_errors *errors; /* NULL (null) when the results have no error counts */
};
extern const struct ga_schema ga_canary_doc_schema;

#ifdef __cplusplus
}
#endif
#endif
