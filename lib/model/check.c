/*
 * check.c - the gpuaudit.check/v1 model: the report of `check --json`, with
 * the checked node's host, read back by fleet.
 */
#include "../core/internal.h"
#include "gpuaudit/nodereport.h"

const char *ga_check_result_name(enum ga_check_result r)
{
	return r == GA_CHECK_PASS           ? "pass"
	       : r == GA_CHECK_FAIL         ? "fail"
	       : r == GA_CHECK_INCOMPLETE   ? "incomplete"
	       : r == GA_CHECK_INCONCLUSIVE ? "inconclusive"
	                                    : "unknown";
}

static const struct ga_field check_f[] = {
	GA_FIELD(struct ga_check_report, schema, GA_F_STR),
	GA_FIELD(struct ga_check_report, host, GA_F_STR),
	{ "class", GA_F_STR, offsetof(struct ga_check_report, cls), NULL, 0 },
	GA_FIELD(struct ga_check_report, result, GA_F_STR),
	GA_FIELD(struct ga_check_report, policy, GA_F_STR),
	GA_FIELD(struct ga_check_report, violations, GA_F_U64),
	GA_FIELD(struct ga_check_report, unknowns, GA_F_U64),
	GA_FIELD_FINDINGS(struct ga_check_report, findings),
};
const struct ga_schema ga_check_report_schema = { "ga_check_report", sizeof(struct ga_check_report), check_f,
	                                          GA_ARRAY_SIZE(check_f) };
