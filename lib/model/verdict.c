/*
 * verdict.c - the model of a node's verdict (verdict.h): the schema tables the
 * member "verdict" of `discover --json` is written through and read back by
 * (docs/schema/verdict.md), and the names of its states, which the writers
 * (NFD labels, /readyz) print as they are.
 */
#include <stddef.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/schema.h"
#include "gpuaudit/topology.h"
#include "gpuaudit/verdict.h"

const char *const ga_vd_link_names[3] = { "unknown", "ok", "degraded" };
const char *const ga_vd_cdi_names[6] = { "absent", "none", "current", "stale", "incomplete", "invalid" };
const char *const ga_vd_dp_names[5] = { "absent", "ok", "partial", "missing", "unknown" };
const char *const ga_vd_ready_names[3] = { "unknown", "ready", "not_ready" };

static const struct ga_field device_f[] = {
	GA_FIELD(struct ga_vd_device, pci_address, GA_F_STR),
	GA_FIELD(struct ga_vd_device, kind, GA_F_STR),
	GA_FIELD_ENUM(struct ga_vd_device, link, ga_vd_link_names),
	GA_FIELD(struct ga_vd_device, link_at, GA_F_STR),
	GA_FIELD(struct ga_vd_device, link_source, GA_F_STR),
	GA_FIELD(struct ga_vd_device, width, GA_F_U64),
	GA_FIELD(struct ga_vd_device, capable_width, GA_F_U64),
	GA_FIELD(struct ga_vd_device, speed_gts, GA_F_DBL),
	GA_FIELD(struct ga_vd_device, capable_speed_gts, GA_F_DBL),
	GA_FIELD(struct ga_vd_device, slow, GA_F_BOOL),
	GA_FIELD(struct ga_vd_device, memory_bytes, GA_F_U64),
	GA_FIELD(struct ga_vd_device, cdi_listed, GA_F_BOOL),
};
static const struct ga_schema device_s = { "ga_vd_device", sizeof(struct ga_vd_device), device_f,
	                                   GA_ARRAY_SIZE(device_f) };

static const struct ga_field spec_f[] = {
	GA_FIELD(struct ga_vd_cdi_spec, path, GA_F_STR),
	GA_FIELD(struct ga_vd_cdi_spec, valid, GA_F_BOOL),
	GA_FIELD(struct ga_vd_cdi_spec, stale, GA_F_BOOL),
	GA_FIELD(struct ga_vd_cdi_spec, missing_paths, GA_F_U64),
};
static const struct ga_schema spec_s = { "ga_vd_cdi_spec", sizeof(struct ga_vd_cdi_spec), spec_f,
	                                 GA_ARRAY_SIZE(spec_f) };

static const struct ga_field stack_f[] = {
	GA_FIELD(struct ga_vd_stack, driver, GA_F_STR), GA_FIELD(struct ga_vd_stack, cuda, GA_F_STR),
	GA_FIELD(struct ga_vd_stack, rocm, GA_F_STR),   GA_FIELD(struct ga_vd_stack, kernel, GA_F_STR),
	GA_FIELD(struct ga_vd_stack, os_id, GA_F_STR),  GA_FIELD(struct ga_vd_stack, os_version, GA_F_STR),
};
static const struct ga_schema stack_s = { "ga_vd_stack", sizeof(struct ga_vd_stack), stack_f,
	                                  GA_ARRAY_SIZE(stack_f) };

static const struct ga_field engine_f[] = {
	GA_FIELD(struct ga_vd_engine, name, GA_F_STR),
	GA_FIELD(struct ga_vd_engine, default_runtime, GA_F_STR),
};
static const struct ga_schema engine_s = { "ga_vd_engine", sizeof(struct ga_vd_engine), engine_f,
	                                   GA_ARRAY_SIZE(engine_f) };

static const struct ga_field devnode_f[] = {
	GA_FIELD(struct ga_vd_device_node, path, GA_F_STR),
	GA_FIELD(struct ga_vd_device_node, accessible, GA_F_BOOL),
};
static const struct ga_schema devnode_s = { "ga_vd_device_node", sizeof(struct ga_vd_device_node), devnode_f,
	                                    GA_ARRAY_SIZE(devnode_f) };

static const struct ga_field verdict_f[] = {
	GA_FIELD_ENUM(struct ga_node_verdict, readiness, ga_vd_ready_names),
	GA_FIELD(struct ga_node_verdict, readiness_reason, GA_F_STR),
	GA_FIELD(struct ga_node_verdict, gpus_expected, GA_F_U64),
	GA_FIELD(struct ga_node_verdict, gpus_usable, GA_F_U64),
	GA_FIELD(struct ga_node_verdict, drift, GA_F_STRV),
	GA_FIELD(struct ga_node_verdict, class_matched, GA_F_BOOL),
	GA_FIELD(struct ga_node_verdict, class_name, GA_F_STR),
	GA_FIELD(struct ga_node_verdict, node_class, GA_F_STR),
	GA_FIELD(struct ga_node_verdict, hw_class, GA_F_STR),
	GA_FIELD(struct ga_node_verdict, stack_class, GA_F_STR),
	GA_FIELD(struct ga_node_verdict, hw_family, GA_F_STR),
	GA_FIELD_OBJ(struct ga_node_verdict, stack, stack_s),
	GA_FIELD_ARR(struct ga_node_verdict, devices, device_s),
	GA_FIELD_ENUM(struct ga_node_verdict, cdi, ga_vd_cdi_names),
	GA_FIELD_ARR(struct ga_node_verdict, cdi_specs, spec_s),
	GA_FIELD(struct ga_node_verdict, cdi_unlisted, GA_F_U64),
	GA_FIELD(struct ga_node_verdict, cdi_gone, GA_F_U64),
	GA_FIELD_ENUM(struct ga_node_verdict, device_plugin, ga_vd_dp_names),
	GA_FIELD(struct ga_node_verdict, dp_registered, GA_F_U64),
	GA_FIELD(struct ga_node_verdict, dp_expected, GA_F_U64),
	GA_FIELD(struct ga_node_verdict, runtime_wired, GA_F_STRV),
	GA_FIELD(struct ga_node_verdict, runtime_default_nvidia, GA_F_BOOL),
	GA_FIELD_ARR(struct ga_node_verdict, runtime_engines, engine_s),
	GA_FIELD_ARR(struct ga_node_verdict, device_nodes, devnode_s),
};
const struct ga_schema ga_node_verdict_schema = { "ga_node_verdict", sizeof(struct ga_node_verdict),
	                                          verdict_f, GA_ARRAY_SIZE(verdict_f) };

void ga_node_verdict_release(struct ga_node_verdict *v)
{
	if (!v)
		return;
	ga_schema_release(&ga_node_verdict_schema, v);
	*v = (struct ga_node_verdict){ 0 };
}

const struct ga_vd_device *ga_node_verdict_device(const struct ga_node_verdict *v, const char *pci_address)
{
	for (size_t i = 0; pci_address && i < v->n_devices; i++)
		if (v->devices[i].pci_address && !strcmp(v->devices[i].pci_address, pci_address))
			return &v->devices[i];
	return NULL;
}

unsigned ga_node_verdict_drift(const struct ga_node_verdict *v)
{
	unsigned d = 0;
	for (size_t i = 0; i < v->n_devices; i++)
		d |= v->devices[i].link == GA_VD_LINK_DEGRADED ? GA_VD_DRIFT_LINK : 0u;
	d |= v->readiness == GA_VD_NOT_READY ? GA_VD_DRIFT_GPUS : 0u;
	d |= v->class_matched.set && !v->class_matched.v ? GA_VD_DRIFT_CLASS : 0u;
	return d;
}

/* `discover --json`: the snapshot's members, then "findings", "verdict" and "topology". */
struct node_report {
	struct ga_findings findings;
	const struct ga_node_verdict *verdict;
	const struct ga_topology *topology;
};
static const struct ga_field node_report_f[] = {
	GA_FIELD_FINDINGS(struct node_report, findings),
	GA_FIELD_PTR(struct node_report, verdict, ga_node_verdict_schema),
	GA_FIELD_PTR(struct node_report, topology, ga_topology_schema),
};
static const struct ga_schema node_report_s = { "node_report", sizeof(struct node_report), node_report_f,
	                                        GA_ARRAY_SIZE(node_report_f) };

int ga_node_write_report(const struct ga_node *n, const struct ga_findings *f,
                         const struct ga_node_verdict *v, const struct ga_topology *topo, struct ga_json *w)
{
	struct node_report nr = { *f, v, topo };
	ga_json_obj_begin(w);
	ga_schema_write_members(w, &ga_node_schema, n);
	ga_schema_write_members(w, &node_report_s, &nr);
	ga_json_obj_end(w);
	return w->err;
}
