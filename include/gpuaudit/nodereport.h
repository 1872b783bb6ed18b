/*
 * nodereport.h - the documents `check --json` and `health --json` write, as
 * models (model.h): gpuaudit.check/v1 and gpuaudit.health/v1. The tables are
 * in lib/model/check.c and lib/model/health.c; the analyzers fill the structs
 * (ga_check_report_take in lib/analyze/check.c, ga_health_report_take in
 * lib/analyze/health.c), the commands write them, fleet reads check reports.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in nodereport-analyze.h (analyze).
 */
#ifndef GPUAUDIT_NODEREPORT_H
#define GPUAUDIT_NODEREPORT_H

#include "gpuaudit/findings.h"
#include "gpuaudit/klog.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_CHECK_SCHEMA "gpuaudit.check/v1"
#define GA_HEALTH_SCHEMA "gpuaudit.health/v1"

/* What a check decided (policy.h's ga_check_node); its name is the report's "result". */
enum ga_check_result {
	GA_CHECK_PASS = 0,
	GA_CHECK_FAIL = 1,
	GA_CHECK_INCOMPLETE = 2, /* the snapshot holds none of the essential files: no verdict */
	GA_CHECK_UNKNOWN = 3,    /* no violation, but the vendor library was needed and failed */
	/* no violation, but the PCI devices were not read: the accelerators, and so the class
	 * and every expectation about them, are unknown (exit 4) */
	GA_CHECK_INCONCLUSIVE = 4,
};

/* "pass", "fail", "incomplete", "inconclusive" or "unknown" (lib/model/check.c). */
const char *ga_check_result_name(enum ga_check_result r);

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
/* One source health looks at: whether it was read, and what (or why not). */
struct ga_health_source {
	char *source; /* "kernel_log", "node", "processes", "nvml_events" */
	char *state;  /* "read", "missing" (could not be read) or "skipped" (not looked at, by design) */
	char *detail; /* what was read, or why not and what to do */
};
struct ga_health_report {
	char *schema; /* GA_HEALTH_SCHEMA */
	char *result; /* "ok", "problems" (an error or critical finding) or "unknown" */
	char *reason; /* "unknown": the missing source and what to do; NULL otherwise */
	struct ga_health_source *coverage;
	size_t n_coverage;
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

/*
 * Coverage: each source health looks at, read or not. A "missing" source that
 * decides the verdict (the kernel log) makes it unknown unless a finding
 * already says problems; "skipped" is by design (--from has no process
 * table; a foreign --kmsg file gets no local snapshot). Borrowed strings.
 */
enum ga_hsrc_state { GA_HSRC_READ, GA_HSRC_MISSING, GA_HSRC_SKIPPED };
struct ga_health_cov {
	const char *source; /* "kernel_log", "node", "processes", "nvml_events" */
	enum ga_hsrc_state state;
	bool decisive;       /* missing: the verdict is unknown (the kernel log) */
	const char *detail;  /* what was read, or why not and what to do */
	const char *summary; /* missing: a short reason for one-line outputs (NPD, Slurm) */
};
#define GA_HEALTH_COV_MAX 4

enum ga_health_verdict { GA_HEALTH_OK, GA_HEALTH_PROBLEMS, GA_HEALTH_UNKNOWN };

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
	struct ga_health_cov cov[GA_HEALTH_COV_MAX];
	size_t n_cov;
};

#ifdef __cplusplus
}
#endif
#endif
