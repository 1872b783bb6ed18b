/*
 * explain.c - the gpuaudit.explain/v1 model: the ranked causes and matched
 * lines of `explain --json`; its result part is what preflight embeds as
 * "explain".
 */
#include "../core/internal.h"
#include "gpuaudit/explain.h"

#define C struct ga_explain_doc_cause
static const struct ga_field cause_f[] = {
	GA_FIELD(C, rank, GA_F_U64),      GA_FIELD(C, id, GA_F_STR),
	GA_FIELD(C, layer, GA_F_STR),     { "class", GA_F_STR, offsetof(C, cause_class), NULL, 0 },
	GA_FIELD(C, action, GA_F_STR),    GA_FIELD(C, score, GA_F_I64),
	GA_FIELD(C, count, GA_F_U64),     GA_FIELD(C, first_line, GA_F_U64),
	GA_FIELD(C, last_line, GA_F_U64), GA_FIELD(C, error_code, GA_F_STR),
	GA_FIELD_MKV(C, captured),        GA_FIELD(C, cause, GA_F_STR),
	GA_FIELD(C, detail, GA_F_STR),    GA_FIELD(C, node, GA_F_STR),
	GA_FIELD(C, fix, GA_F_STR),       GA_FIELD(C, next, GA_F_STR),
};
#undef C
static const struct ga_schema cause_s = { "ga_explain_doc_cause", sizeof(struct ga_explain_doc_cause),
	                                  cause_f, GA_ARRAY_SIZE(cause_f) };

static const struct ga_field match_f[] = {
	GA_FIELD(struct ga_explain_doc_match, line, GA_F_U64),
	GA_FIELD(struct ga_explain_doc_match, id, GA_F_STR),
	GA_FIELD_MKV(struct ga_explain_doc_match, captured),
	GA_FIELD(struct ga_explain_doc_match, text, GA_F_STR),
};
static const struct ga_schema match_s = { "ga_explain_doc_match", sizeof(struct ga_explain_doc_match),
	                                  match_f, GA_ARRAY_SIZE(match_f) };

#define RESULT_FIELDS(st, at)                                                                            \
	{ "lines", GA_F_U64, offsetof(st, at lines), NULL, 0 },                                          \
	        { "match_count", GA_F_U64, offsetof(st, at match_count), NULL, 0 },                      \
	        { "causes", GA_F_ARR, offsetof(st, at causes), &cause_s, offsetof(st, at n_causes) },    \
	        { "matches", GA_F_ARR, offsetof(st, at matches), &match_s, offsetof(st, at n_matches) }, \
	{                                                                                                \
		"matches_omitted", GA_F_U64, offsetof(st, at matches_omitted), NULL, 0                   \
	}

static const struct ga_field result_f[] = { RESULT_FIELDS(struct ga_explain_result, ) };
const struct ga_schema ga_explain_result_schema = { "ga_explain_result", sizeof(struct ga_explain_result),
	                                            result_f, GA_ARRAY_SIZE(result_f) };

static const struct ga_field line_f[] = {
	GA_FIELD(struct ga_explain_doc_line, line, GA_F_U64),
	GA_FIELD(struct ga_explain_doc_line, component, GA_F_STR),
	GA_FIELD(struct ga_explain_doc_line, code, GA_F_STR),
	GA_FIELD(struct ga_explain_doc_line, text, GA_F_STR),
};
static const struct ga_schema line_s = { "ga_explain_doc_line", sizeof(struct ga_explain_doc_line), line_f,
	                                 GA_ARRAY_SIZE(line_f) };
static const struct ga_field inconclusive_f[] = {
	GA_FIELD(struct ga_explain_doc_inconclusive, error_lines, GA_F_U64),
	GA_FIELD_ARR(struct ga_explain_doc_inconclusive, lines, line_s),
	GA_FIELD(struct ga_explain_doc_inconclusive, next, GA_F_STR),
};
static const struct ga_schema inconclusive_s = { "ga_explain_doc_inconclusive",
	                                         sizeof(struct ga_explain_doc_inconclusive), inconclusive_f,
	                                         GA_ARRAY_SIZE(inconclusive_f) };

static const struct ga_field report_f[] = {
	GA_FIELD(struct ga_explain_report, schema, GA_F_STR),
	GA_FIELD(struct ga_explain_report, source, GA_F_STR),
	GA_FIELD_OMIT(struct ga_explain_report, encoding, GA_F_STR),
	{ "for", GA_F_STR, offsetof(struct ga_explain_report, for_file), NULL, 0 },
	RESULT_FIELDS(struct ga_explain_report, result.),
	GA_FIELD_PTR_OMIT(struct ga_explain_report, inconclusive, inconclusive_s),
};
const struct ga_schema ga_explain_report_schema = { "ga_explain_report", sizeof(struct ga_explain_report),
	                                            report_f, GA_ARRAY_SIZE(report_f) };
