/*
 * findings.h - the one result type every command emits.
 *
 * A finding has a stable code (e.g. GA-LINK-DEGRADED), a severity, a subject
 * (device address, file, metric), a message, evidence (named values) and the
 * decision or fix to take. Writers (text, JSON, and later Prometheus, NPD,
 * Slurm) all take the same list.
 */
#ifndef GPUAUDIT_FINDINGS_H
#define GPUAUDIT_FINDINGS_H

#include "gpuaudit/json.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_severity { GA_SEV_INFO = 0, GA_SEV_WARNING = 1, GA_SEV_ERROR = 2, GA_SEV_CRITICAL = 3 };

struct ga_evidence {
	char *key;
	char *value; /* rendered as a string; numbers keep their text form */
};

struct ga_finding {
	char *code;
	enum ga_severity severity;
	char *subject;
	char *message;
	char *decision;
	struct ga_evidence *evidence;
	size_t n_evidence;
};

struct ga_findings {
	struct ga_finding *v;
	size_t n;
	int err; /* sticky -ENOMEM from an add */
};

const char *ga_severity_name(enum ga_severity s);
void ga_findings_init(struct ga_findings *f);
void ga_findings_release(struct ga_findings *f);
/* Add a finding; returns it for evidence, or NULL (and sets f->err) on ENOMEM. */
struct ga_finding *ga_findings_add(struct ga_findings *f, const char *code, enum ga_severity sev,
                                   const char *subject, const char *decision, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));
int ga_finding_evidence(struct ga_finding *fd, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Highest severity present, or -1 when empty. */
int ga_findings_max_severity(const struct ga_findings *f);
/* Stable order: severity descending, then code, then subject. */
void ga_findings_sort(struct ga_findings *f);
void ga_findings_write_json(const struct ga_findings *f, struct ga_json *w);
/* The schema of one finding (lib/model/findings.c); a model embeds a struct ga_findings member
 * as GA_FIELD_FINDINGS(struct x, findings): the same JSON array, read back by the same table. */
struct ga_schema;
extern const struct ga_schema ga_finding_schema;
#define GA_FIELD_FINDINGS(st, member) GA_FIELD_VEC(st, member, ga_finding_schema)

/* Analyzer for discover: pure, reads only the snapshot. */
struct ga_node;
int ga_analyze_node(const struct ga_node *n, struct ga_findings *out);

#ifdef __cplusplus
}
#endif
#endif
