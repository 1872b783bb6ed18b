/*
 * findings.c - the one JSON form of a finding, as a schema table, so that
 * every document that carries findings writes and reads them the same way.
 */
#include <assert.h>
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/schema.h"

static_assert(sizeof(enum ga_severity) == sizeof(int), "GA_F_ENUM stores an int");
static_assert(offsetof(struct ga_evidence, key) == offsetof(struct ga_kv, key) &&
                      offsetof(struct ga_evidence, value) == offsetof(struct ga_kv, value) &&
                      sizeof(struct ga_evidence) == sizeof(struct ga_kv),
              "evidence is written as a GA_F_KV object");

static_assert(sizeof(enum ga_code) == sizeof(int), "GA_FIELD_CODE stores an int");
static_assert(sizeof(enum ga_action) == sizeof(int) && sizeof(enum ga_cause) == sizeof(int),
              "GA_F_ENUM stores an int");

static const char *const severity_names[4] = { "info", "warning", "error", "critical" };
/* the same names as ga_action_name / ga_cause_name, indexed by value (test_actions checks) */
static const char *const action_names[GA_ACT__COUNT] = {
	"investigate", "none", "restart_workload", "reset_gpu", "reboot", "drain", "replace", "fix_config",
};
static const char *const cause_names[GA_CAUSE__COUNT] = {
	"unknown", "node_hardware", "driver", "container_runtime", "application", "network", "configuration",
};

static const struct ga_field finding_f[] = {
	GA_FIELD_CODE(struct ga_finding, code, id),
	GA_FIELD_ENUM(struct ga_finding, severity, severity_names),
	GA_FIELD(struct ga_finding, subject, GA_F_STR),
	GA_FIELD(struct ga_finding, message, GA_F_STR),
	GA_FIELD_KV(struct ga_finding, evidence),
	GA_FIELD(struct ga_finding, decision, GA_F_STR),
	GA_FIELD_ENUM(struct ga_finding, action, action_names),
	GA_FIELD_ENUM(struct ga_finding, cause, cause_names),
	GA_FIELD(struct ga_finding, gpu_uuid, GA_F_STR),
	GA_FIELD(struct ga_finding, pci_address, GA_F_STR),
};
const struct ga_schema ga_finding_schema = { "ga_finding", sizeof(struct ga_finding), finding_f,
	                                     GA_ARRAY_SIZE(finding_f) };

void ga_findings_write_json(const struct ga_findings *f, struct ga_json *w)
{
	ga_json_arr_begin(w);
	for (size_t i = 0; i < f->n; i++)
		ga_schema_write(w, &ga_finding_schema, &f->v[i]);
	ga_json_arr_end(w);
}
