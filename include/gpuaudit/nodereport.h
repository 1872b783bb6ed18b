/*
 * nodereport.h - the documents `check --json` and `health --json` write, as
 * models (model.h): gpuaudit.check/v1 and gpuaudit.health/v1. The tables are
 * in lib/model/check.c and lib/model/health.c; the analyzers fill the structs
 * (ga_check_report_take in lib/analyze/check.c, ga_health_report_take in
 * lib/analyze/health.c), the commands write them, fleet reads check reports.
 */
#ifndef GPUAUDIT_NODEREPORT_H
#define GPUAUDIT_NODEREPORT_H

#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_CHECK_SCHEMA "gpuaudit.check/v1"
#define GA_HEALTH_SCHEMA "gpuaudit.health/v1"

/* The node against its class in a policy (docs/schema/check.md). */
struct ga_check_report {
	char *schema; /* GA_CHECK_SCHEMA */
	char *host;   /* the checked node's hostname; NULL when the snapshot has none */
	char *cls;    /* "class": the class checked against; NULL when none matched */
	char *result; /* "pass", "fail" or "unknown" */
	char *policy; /* the policy file as given */
	struct ga_ou64 violations, unknowns;
	struct ga_findings findings;
};
extern const struct ga_schema ga_check_report_schema;

/* What the kernel log gave `health` (docs/schema/health.md). */
struct ga_nvml_events; /* fabric.h */
struct ga_health_klog {
	char *source; /* what was read; NULL when no log */
	char *note;   /* why there is none; NULL when a log was read */
	struct ga_ou64 lines, truncated_lines, overwritten, events, in_window;
	struct ga_odbl since_s; /* --since; null without it */
	struct ga_oi64 btime;   /* proc/stat btime; null from a saved snapshot */
	char *boot_id;          /* the boot the events belong to (the snapshot's) */
};
struct ga_health_report {
	char *schema; /* GA_HEALTH_SCHEMA */
	char *result; /* "ok" or "problems" (an error or critical finding) */
	struct ga_health_klog kernel_log;
	struct ga_nvml_events *nvml_events; /* health --nvml-events: what NVML delivered; NULL without */
	struct ga_findings findings;
};
extern const struct ga_schema ga_health_report_schema;

/*
 * The check report of c against policy_file for host (NULL: none): c's
 * findings move into r (c keeps none). r is zeroed first; release with
 * ga_schema_release(&ga_check_report_schema, r). 0 or -ENOMEM.
 */
struct ga_check;
int ga_check_report_take(struct ga_check_report *r, struct ga_check *c, const char *policy_file,
                         const char *host);

/* What `health` read of the kernel log (borrowed strings), for the report. */
struct ga_health_log {
	const char *source; /* what was read, NULL when no log */
	const char *note;   /* why there is none */
	struct ga_kmsg_stats st;
	uint64_t events, in_window;
	double since_s; /* 0: no --since */
	struct ga_oi64 btime;
	const char *boot_id;                /* NULL when unknown */
	struct ga_nvml_events *nvml_events; /* moved into the report by ga_health_report_take */
};
/*
 * The health report: log's values copied, f's findings moved into r (sorted
 * as they are); the result is "problems" when one is an error or worse.
 * r is zeroed first; release with ga_schema_release. 0 or -ENOMEM.
 */
int ga_health_report_take(struct ga_health_report *r, const struct ga_health_log *log, struct ga_findings *f);

/* GA-PROC-D-STATE (warning) for the n processes names in uninterruptible sleep; none when n is 0. */
int ga_health_dstate_finding(char *const *names, size_t n, struct ga_findings *f);
/* GA-KLOG-UNREADABLE (warning): the kernel log exists but could not be read, for reason why. */
int ga_health_klog_unreadable(const char *why, struct ga_findings *f);

#ifdef __cplusplus
}
#endif
#endif
