/*
 * triage.c - the gpuaudit.triage/v1 model: the playbook's steps with their
 * evidence and decisions, and the node's findings (`triage --json`).
 */
#include "../core/internal.h"
#include "gpuaudit/triage.h"

static const struct ga_field step_f[] = {
	GA_FIELD(struct ga_triage_doc_step, step, GA_F_I64),
	GA_FIELD(struct ga_triage_doc_step, title, GA_F_STR),
	GA_FIELD(struct ga_triage_doc_step, verdict, GA_F_STR),
	GA_FIELD_KV(struct ga_triage_doc_step, evidence),
	GA_FIELD(struct ga_triage_doc_step, decision, GA_F_STR),
};
static const struct ga_schema step_s = { "ga_triage_doc_step", sizeof(struct ga_triage_doc_step), step_f,
	                                 GA_ARRAY_SIZE(step_f) };

static const struct ga_field report_f[] = {
	GA_FIELD(struct ga_triage_report, schema, GA_F_STR),
	GA_FIELD(struct ga_triage_report, result, GA_F_STR),
	GA_FIELD(struct ga_triage_report, reason, GA_F_STR),
	GA_FIELD(struct ga_triage_report, samples, GA_F_U64),
	GA_FIELD_ARR(struct ga_triage_report, steps, step_s),
	GA_FIELD_FINDINGS(struct ga_triage_report, findings),
};
const struct ga_schema ga_triage_report_schema = { "ga_triage_report", sizeof(struct ga_triage_report),
	                                           report_f, GA_ARRAY_SIZE(report_f) };
