/*
 * canary.c - the model of the canary verdict (gpuaudit.canary/v1, canary.h):
 * the schema tables `canary --json` writes through and a reader reads back
 * (docs/schema/canary.md). Names of the enums as lib/bench/canary.c prints
 * them.
 */
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/canary.h"
#include "gpuaudit/schema.h"

static const char *const better_names[] = { "lower", "higher" };
static const char *const class_names[] = { "Pass", "High", "Low", "NoData", "Unjudged" };
static const char *const tail_names[] = { "n/a", "Pass", "Regression", "Inconclusive", "NoData" };
static const char *const verdict_names[] = { "PASS", "ROLLBACK", "INCONCLUSIVE" };

/* "class" is the member's JSON name (cls in C, which C++ readers of the header can include). */
#define CLASS_FIELD(st)                                                                                 \
	{                                                                                               \
		"class", GA_F_ENUM, offsetof(st, cls), NULL, 0, class_names, GA_ARRAY_SIZE(class_names) \
	}

#define M struct ga_canary_doc_metric
static const struct ga_field metric_f[] = {
	GA_FIELD(M, name, GA_F_STR),
	GA_FIELD(M, unit, GA_F_STR),
	GA_FIELD_ENUM(M, better, better_names),
	GA_FIELD(M, missing, GA_F_BOOL),
	GA_FIELD(M, n_baseline, GA_F_U64),
	GA_FIELD(M, n_candidate, GA_F_U64),
	GA_FIELD(M, baseline_median, GA_F_DBL),
	GA_FIELD(M, candidate_median, GA_F_DBL),
	GA_FIELD(M, median_change, GA_F_DBL),
	GA_FIELD(M, mwu_p, GA_F_DBL),
	GA_FIELD(M, mwu_auc, GA_F_DBL),
	GA_FIELD(M, mwu_exact, GA_F_BOOL),
	CLASS_FIELD(M),
	GA_FIELD(M, worse, GA_F_BOOL),
	GA_FIELD(M, min_effect, GA_F_DBL),
	GA_FIELD_ENUM(M, tail, tail_names),
	GA_FIELD(M, baseline_tail, GA_F_DBL),
	GA_FIELD(M, candidate_tail, GA_F_DBL),
	GA_FIELD(M, tail_ratio, GA_F_DBL),
	GA_FIELD(M, tail_ratio_lo, GA_F_DBL),
	GA_FIELD(M, tail_ratio_hi, GA_F_DBL),
};
#undef M
static const struct ga_schema metric_s = { "ga_canary_doc_metric", sizeof(struct ga_canary_doc_metric),
	                                   metric_f, GA_ARRAY_SIZE(metric_f) };

#define E struct ga_canary_doc_errors
static const struct ga_field errors_f[] = {
	GA_FIELD(E, baseline_requests, GA_F_U64),
	GA_FIELD(E, baseline_errors, GA_F_U64),
	GA_FIELD(E, candidate_requests, GA_F_U64),
	GA_FIELD(E, candidate_errors, GA_F_U64),
	GA_FIELD(E, z, GA_F_DBL),
	GA_FIELD(E, p, GA_F_DBL),
	GA_FIELD(E, candidate_rate_upper, GA_F_DBL),
	CLASS_FIELD(E),
	GA_FIELD(E, limit_broken, GA_F_BOOL),
};
#undef E
static const struct ga_schema errors_s = { "ga_canary_doc_errors", sizeof(struct ga_canary_doc_errors),
	                                   errors_f, GA_ARRAY_SIZE(errors_f) };

#define O struct ga_canary_doc_options
static const struct ga_field options_f[] = {
	GA_FIELD(O, confidence, GA_F_DBL),
	GA_FIELD(O, allowed_effect, GA_F_DBL),
	GA_FIELD(O, tail_percentile, GA_F_DBL),
	GA_FIELD(O, max_tail_increase, GA_F_DBL),
	GA_FIELD(O, max_error_rate, GA_F_DBL),
	GA_FIELD(O, resamples, GA_F_I64),
	GA_FIELD(O, seed, GA_F_U64),
};
#undef O
static const struct ga_schema options_s = { "ga_canary_doc_options", sizeof(struct ga_canary_doc_options),
	                                    options_f, GA_ARRAY_SIZE(options_f) };

#define C struct ga_canary_doc_checks
static const struct ga_field checks_f[] = {
	GA_FIELD(C, pass, GA_F_I64),
	GA_FIELD(C, fail, GA_F_I64),
	GA_FIELD(C, nodata, GA_F_I64),
	GA_FIELD(C, unjudged, GA_F_I64),
};
#undef C
static const struct ga_schema checks_s = { "ga_canary_doc_checks", sizeof(struct ga_canary_doc_checks),
	                                   checks_f, GA_ARRAY_SIZE(checks_f) };

#define D struct ga_canary_doc
static const struct ga_field doc_f[] = {
	GA_FIELD(D, schema, GA_F_STR),
	GA_FIELD(D, kind, GA_F_STR),
	GA_FIELD(D, baseline, GA_F_STR),
	GA_FIELD(D, candidate, GA_F_STR),
	GA_FIELD_ENUM(D, verdict, verdict_names),
	GA_FIELD(D, score, GA_F_DBL),
	GA_FIELD(D, reasons, GA_F_STRV),
	GA_FIELD_OBJ(D, options, options_s),
	GA_FIELD_OBJ(D, checks, checks_s),
	GA_FIELD_ARR(D, metrics, metric_s),
	GA_FIELD_PTR(D, errors, errors_s),
};
#undef D
const struct ga_schema ga_canary_doc_schema = { "ga_canary_doc", sizeof(struct ga_canary_doc), doc_f,
	                                        GA_ARRAY_SIZE(doc_f) };
