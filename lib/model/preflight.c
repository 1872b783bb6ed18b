/*
 * preflight.c - the model of the preflight report (gpuaudit.preflight/v1,
 * preflight.h): the tables `preflight --json` writes through and a reader
 * reads back (docs/schema/preflight.md). The warm-up's members are two
 * inline groups, one per kind, of which the document has one; "explain"
 * embeds the explain model's result (lib/model/explain.c).
 */
#include <assert.h>
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/schema.h"

static_assert(sizeof(enum ga_pf_status) == sizeof(int), "GA_F_ENUM stores an int");
static_assert(sizeof(enum ga_pf_run_status) == sizeof(int), "GA_F_ENUM stores an int");
static_assert(sizeof(enum ga_pf_warmup_kind) == sizeof(int), "GA_F_ENUM stores an int");

const char *const ga_pf_status_names[GA_PF_N_STATUS] = { "pass", "fail", "unknown", "skip" };
static const char *const run_status_names[] = { "exit", "timeout", "signal", "not-started" };
static const char *const kind_names[] = { "command", "builtin" };

#define STATUS_FIELD(st) GA_FIELD_ENUM(st, status, ga_pf_status_names)

#define C struct ga_pf_doc_capture
static const struct ga_field capture_f[] = {
	GA_FIELD(C, total_bytes, GA_F_U64),
	GA_FIELD(C, omitted_bytes, GA_F_U64),
	GA_FIELD(C, head, GA_F_STR),
	GA_FIELD(C, tail, GA_F_STR),
};
#undef C
static const struct ga_schema capture_s = { "ga_pf_doc_capture", sizeof(struct ga_pf_doc_capture), capture_f,
	                                    GA_ARRAY_SIZE(capture_f) };

#define R struct ga_pf_doc_run
static const struct ga_field run_f[] = {
	GA_FIELD_ENUM(R, status, run_status_names),
	GA_FIELD(R, error, GA_F_STR),
	GA_FIELD(R, exit_code, GA_F_I64),
	GA_FIELD(R, signal, GA_F_STR),
	GA_FIELD(R, killed, GA_F_BOOL),
	GA_FIELD(R, wall_s, GA_F_DBL),
	{ "stdout", GA_F_OBJ, offsetof(R, out), &capture_s, 0 },
	{ "stderr", GA_F_OBJ, offsetof(R, err), &capture_s, 0 },
};
#undef R
static const struct ga_schema run_s = { "ga_pf_doc_run", sizeof(struct ga_pf_doc_run), run_f,
	                                GA_ARRAY_SIZE(run_f) };

#define D struct ga_pf_doc_discover
static const struct ga_field discover_f[] = {
	STATUS_FIELD(D),
	GA_FIELD(D, hostname, GA_F_STR),
	GA_FIELD(D, node_class, GA_F_STR),
	GA_FIELD(D, accelerators, GA_F_U64),
	GA_FIELD_FINDINGS(D, findings),
};
#undef D
static const struct ga_schema discover_s = { "ga_pf_doc_discover", sizeof(struct ga_pf_doc_discover),
	                                     discover_f, GA_ARRAY_SIZE(discover_f) };

#define K struct ga_pf_doc_check
static const struct ga_field check_f[] = {
	STATUS_FIELD(K),
	GA_FIELD(K, policy, GA_F_STR),
	{ "class", GA_F_STR, offsetof(K, cls), NULL, 0 },
	GA_FIELD(K, violations, GA_F_U64),
	GA_FIELD(K, unknowns, GA_F_U64),
	GA_FIELD_FINDINGS(K, findings),
};
#undef K
static const struct ga_schema check_s = { "ga_pf_doc_check", sizeof(struct ga_pf_doc_check), check_f,
	                                  GA_ARRAY_SIZE(check_f) };

#define S struct ga_pf_doc_scan
static const struct ga_field scan_f[] = {
	STATUS_FIELD(S),
	GA_FIELD(S, message, GA_F_STR),
	GA_FIELD(S, paths, GA_F_STRV),
	GA_FIELD(S, target, GA_F_STR),
	GA_FIELD(S, files, GA_F_U64),
	GA_FIELD(S, packages, GA_F_U64),
	GA_FIELD_FINDINGS(S, findings),
};
#undef S
static const struct ga_schema scan_s = { "ga_pf_doc_scan", sizeof(struct ga_pf_doc_scan), scan_f,
	                                 GA_ARRAY_SIZE(scan_f) };

#define X struct ga_pf_doc_command
static const struct ga_field command_f[] = {
	GA_FIELD(X, command, GA_F_STRV), GA_FIELD(X, shell, GA_F_BOOL), GA_FIELD_NUM(X, timeout_s, 0),
	GA_FIELD_PTR(X, cold, run_s),    GA_FIELD_ARR(X, warm, run_s),
};
#undef X
static const struct ga_schema command_s = { "ga_pf_doc_command", sizeof(struct ga_pf_doc_command), command_f,
	                                    GA_ARRAY_SIZE(command_f) };

#define B struct ga_pf_doc_builtin
static const struct ga_field builtin_f[] = {
	GA_FIELD(B, backend, GA_F_STR),   GA_FIELD(B, skipped_backends, GA_F_STR),
	GA_FIELD(B, n, GA_F_U64),         GA_FIELD(B, max_rel_err, GA_F_DBL),
	GA_FIELD(B, tolerance, GA_F_DBL), GA_FIELD(B, cold_s, GA_F_DBL),
	GA_FIELD_DBLV(B, warm_s),
};
#undef B
static const struct ga_schema builtin_s = { "ga_pf_doc_builtin", sizeof(struct ga_pf_doc_builtin), builtin_f,
	                                    GA_ARRAY_SIZE(builtin_f) };

/* One group or the other, by kind: the members of the other kind are left out. */
#define W struct ga_pf_doc_warmup
static const struct ga_field warmup_f[] = {
	STATUS_FIELD(W),
	GA_FIELD(W, message, GA_F_STR),
	GA_FIELD_ENUM(W, kind, kind_names),
	GA_FIELD_GROUP(W, cmd, command_s, offsetof(struct ga_pf_doc_command, present)),
	GA_FIELD_GROUP(W, builtin, builtin_s, offsetof(struct ga_pf_doc_builtin, present)),
	GA_FIELD(W, warm_median_s, GA_F_DBL),
};
#undef W
static const struct ga_schema warmup_s = { "ga_pf_doc_warmup", sizeof(struct ga_pf_doc_warmup), warmup_f,
	                                   GA_ARRAY_SIZE(warmup_f) };

/* the container view (docs/container.md) */
static const struct ga_field pf_lib_f[] = { GA_FIELD(struct ga_pf_doc_lib, path, GA_F_STR),
	                                    GA_FIELD(struct ga_pf_doc_lib, version, GA_F_STR) };
static const struct ga_schema pf_lib_s = { "ga_pf_doc_lib", sizeof(struct ga_pf_doc_lib), pf_lib_f,
	                                   GA_ARRAY_SIZE(pf_lib_f) };
#define CT struct ga_pf_doc_container
static const struct ga_field container_f[] = {
	GA_FIELD(CT, detected_by, GA_F_STR),    GA_FIELD(CT, nvidia_visible_devices, GA_F_STR),
	GA_FIELD(CT, node_gpus, GA_F_U64),      GA_FIELD(CT, visible_devices, GA_F_STRV),
	GA_FIELD(CT, driver_version, GA_F_STR), GA_FIELD_ARR(CT, libraries, pf_lib_s),
	GA_FIELD_FINDINGS(CT, findings),
};
#undef CT
const struct ga_schema ga_pf_container_schema = { "ga_pf_doc_container", sizeof(struct ga_pf_doc_container),
	                                          container_f, GA_ARRAY_SIZE(container_f) };

void ga_pf_container_free(struct ga_pf_doc_container *c)
{
	if (!c)
		return;
	ga_schema_release(&ga_pf_container_schema, c);
	ga_free(c);
}

#define P struct ga_pf_doc
static const struct ga_field doc_f[] = {
	GA_FIELD(P, schema, GA_F_STR),
	GA_FIELD_ENUM(P, result, ga_pf_status_names),
	GA_FIELD_OBJ(P, discover, discover_s),
	GA_FIELD_PTR(P, check, check_s),
	GA_FIELD_PTR(P, scan, scan_s),
	GA_FIELD_OBJ(P, warmup, warmup_s),
	GA_FIELD_PTR(P, explain, ga_explain_result_schema),
	GA_FIELD_PTR_OMIT(P, container, ga_pf_container_schema),
};
#undef P
const struct ga_schema ga_pf_doc_schema = { "ga_pf_doc", sizeof(struct ga_pf_doc), doc_f,
	                                    GA_ARRAY_SIZE(doc_f) };
