/*
 * findings.h - the one result type every command emits.
 *
 * A finding has a stable code (e.g. GA-LINK-DEGRADED), a severity, a subject
 * (device address, file, metric), a message, evidence (named values) and the
 * decision or fix to take. Writers (text, JSON, and later Prometheus, NPD,
 * Slurm) all take the same list.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in findings-analyze.h (analyze).
 */
#ifndef GPUAUDIT_FINDINGS_H
#define GPUAUDIT_FINDINGS_H

#include "gpuaudit/codes.h"
#include "gpuaudit/json.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_severity { GA_SEV_INFO = 0, GA_SEV_WARNING = 1, GA_SEV_ERROR = 2, GA_SEV_CRITICAL = 3 };

/*
 * What a machine should do about a finding: a closed set, so a remediator
 * (node-problem-detector + a drain controller, Slurm's drain, a repair agent)
 * can switch on it. Zero is `investigate`, the safe default: a finding that no
 * table classified (or a document from an older gpuaudit) asks a person.
 * Names: ga_action_name(); order of urgency: ga_action_rank().
 */
enum ga_action {
	GA_ACT_INVESTIGATE = 0,  /* a person looks; no automatic step is known */
	GA_ACT_NONE,             /* informational: nothing to do */
	GA_ACT_RESTART_WORKLOAD, /* the job failed (its own fault or a transient): restart it */
	GA_ACT_RESET_GPU,        /* drain the GPU, reset it (nvidia-smi -r / amdgpu reset), resume */
	GA_ACT_REBOOT,           /* drain the node and reboot it */
	GA_ACT_DRAIN,            /* take the node out of scheduling until a person clears it */
	GA_ACT_REPLACE,          /* hardware out of service: RMA / replace the part */
	GA_ACT_FIX_CONFIG,       /* change configuration (driver, modules, image, policy) */
	GA_ACT__COUNT
};

/* Where the cause lies (issue 18: every cause has a class). Zero: not classified. */
enum ga_cause {
	GA_CAUSE_UNKNOWN = 0,
	GA_CAUSE_NODE_HARDWARE,
	GA_CAUSE_DRIVER,
	GA_CAUSE_CONTAINER_RUNTIME,
	GA_CAUSE_APPLICATION,
	GA_CAUSE_NETWORK,
	GA_CAUSE_CONFIGURATION,
	GA_CAUSE__COUNT
};

/* "reset_gpu", ...; "investigate" when out of range. */
const char *ga_action_name(enum ga_action a);
/* "node_hardware", ...; "unknown" when out of range. */
const char *ga_cause_name(enum ga_cause c);
/* Name to value: 0, or -EINVAL for a name that is not in the set. */
int ga_action_parse(const char *name, enum ga_action *ret);
/* Urgency for picking the one action of a node: none < restart_workload < investigate <
 * fix_config < reset_gpu < reboot < drain < replace. */
int ga_action_rank(enum ga_action a);

/*
 * The default action and cause of a finding code string, from the catalogue
 * (lib/core/codes.def; GA-XID-<n> from lib/core/xid.def): a code's own row (or
 * Xid number) wins over its family's ("GA-EXPECT-" covers a GA-EXPECT-<what>
 * a newer document carries); a code in neither gets investigate/unknown.
 * Returns 2 exact, 1 family, 0 fallback.
 */
int ga_action_default(const char *code, enum ga_action *ret_action, enum ga_cause *ret_cause);

struct ga_evidence {
	char *key;
	char *value; /* rendered as a string; numbers keep their text form */
};

struct ga_finding {
	char *code; /* the code string every writer prints: ga_code_str(id), or a family's prefix + suffix */
	enum ga_code id; /* its catalogue row (GA_C_XID for any GA-XID-<n>); GA_C_NONE for a code the
	                  * catalogue does not know (a document from another gpuaudit) */
	enum ga_severity severity;
	char *subject;
	char *message;
	char *decision;
	struct ga_evidence *evidence;
	size_t n_evidence;
	enum ga_action action; /* set from the table by ga_findings_add; callers may refine it */
	enum ga_cause cause;
	/* the device a remediator joins on (NVML/DCGM UUID, sysfs PCI address); NULL when the
	 * finding is not about one device or the snapshot does not know it */
	char *gpu_uuid;
	char *pci_address;
};

struct ga_findings {
	struct ga_finding *v;
	size_t n;
	int err; /* sticky -ENOMEM from an add */
};

const char *ga_severity_name(enum ga_severity s);
void ga_findings_init(struct ga_findings *f);
void ga_findings_release(struct ga_findings *f);
/* Add a finding with code id (string, action and cause from the catalogue, codes.def); returns it
 * for evidence, or NULL (and sets f->err) on ENOMEM. */
struct ga_finding *ga_findings_add(struct ga_findings *f, enum ga_code id, enum ga_severity sev,
                                   const char *subject, const char *decision, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));
/* The same for a member of a family: code = family's prefix + suffix (GA_C_XID, "79": "GA-XID-79"),
 * id = the member's own row when it has one (GA_C_KLOG, "MCE": GA_C_KLOG_MCE), else the family. */
struct ga_finding *ga_findings_add_member(struct ga_findings *f, enum ga_code family, const char *suffix,
                                          enum ga_severity sev, const char *subject, const char *decision,
                                          const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* The same for a code string read back (a state file, another node's findings): id = ga_code_parse. */
struct ga_finding *ga_findings_add_code(struct ga_findings *f, const char *code, enum ga_severity sev,
                                        const char *subject, const char *decision, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));
int ga_finding_evidence(struct ga_finding *fd, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Set the device ids (either may be NULL: left as is). 0 or -ENOMEM. */
int ga_finding_set_device(struct ga_finding *fd, const char *gpu_uuid, const char *pci_address);
/* A copy of src appended to f (every field); NULL and f->err on ENOMEM. */
struct ga_finding *ga_findings_copy(struct ga_findings *f, const struct ga_finding *src);
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

#ifdef __cplusplus
}
#endif
#endif
