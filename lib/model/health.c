/*
 * health.c - the gpuaudit.health/v1 model: the report of `health --json`
 * (the verdict and its coverage, kernel-log statistics and the findings).
 */
#include "../core/internal.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/nodereport.h"

#define U(m) GA_FIELD(struct ga_health_klog, m, GA_F_U64)
static const struct ga_field klog_f[] = {
	GA_FIELD(struct ga_health_klog, source, GA_F_STR),
	GA_FIELD(struct ga_health_klog, note, GA_F_STR),
	U(lines),
	U(truncated_lines),
	U(overwritten),
	U(events),
	U(in_window),
	GA_FIELD(struct ga_health_klog, since_s, GA_F_DBL),
	GA_FIELD(struct ga_health_klog, btime, GA_F_I64),
	GA_FIELD(struct ga_health_klog, boot_id, GA_F_STR),
};
static const struct ga_schema klog_s = { "ga_health_klog", sizeof(struct ga_health_klog), klog_f,
	                                 GA_ARRAY_SIZE(klog_f) };

static const struct ga_field source_f[] = {
	GA_FIELD(struct ga_health_source, source, GA_F_STR),
	GA_FIELD(struct ga_health_source, state, GA_F_STR),
	GA_FIELD(struct ga_health_source, detail, GA_F_STR),
};
static const struct ga_schema source_s = { "ga_health_source", sizeof(struct ga_health_source), source_f,
	                                   GA_ARRAY_SIZE(source_f) };

static const struct ga_field health_f[] = {
	GA_FIELD(struct ga_health_report, schema, GA_F_STR),
	GA_FIELD(struct ga_health_report, result, GA_F_STR),
	GA_FIELD(struct ga_health_report, reason, GA_F_STR),
	GA_FIELD_ARR(struct ga_health_report, coverage, source_s),
	GA_FIELD_OBJ(struct ga_health_report, kernel_log, klog_s),
	GA_FIELD_PTR(struct ga_health_report, nvml_events, ga_nvml_events_schema),
	GA_FIELD_FINDINGS(struct ga_health_report, findings),
};
const struct ga_schema ga_health_report_schema = { "ga_health_report", sizeof(struct ga_health_report),
	                                           health_f, GA_ARRAY_SIZE(health_f) };
