/*
 * model/fleet.c - the fleet report's model (gpuaudit.fleet/v1) and the diff
 * that --diff appends: the schema tables, reading a report back, freeing it,
 * and writing it with or without the diff. The tables live here, below the
 * aggregator (lib/analyze/fleet*.c), so the model registry (doc.c) needs
 * nothing from a higher layer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../core/internal.h"
#include "gpuaudit/fleet.h"

#define S(st, m) GA_FIELD(st, m, GA_F_STR)
#define U(st, m) GA_FIELD(st, m, GA_F_U64)
#define B(st, m) GA_FIELD(st, m, GA_F_BOOL)
#define V(st, m) GA_FIELD(st, m, GA_F_STRV)
#define SCHEMA(var, st, tbl) \
	static const struct ga_schema var = { #st, sizeof(struct st), tbl, GA_ARRAY_SIZE(tbl) }

static const struct ga_field stack_f[] = {
	S(struct ga_fleet_stack, stack_sha256), S(struct ga_fleet_stack, driver),
	S(struct ga_fleet_stack, cuda),         S(struct ga_fleet_stack, rocm),
	S(struct ga_fleet_stack, kernel),       S(struct ga_fleet_stack, os),
	U(struct ga_fleet_stack, nodes),        U(struct ga_fleet_stack, links_degraded),
	U(struct ga_fleet_stack, failing),      B(struct ga_fleet_stack, majority),
	B(struct ga_fleet_stack, drift),        S(struct ga_fleet_stack, drift_detail),
};
SCHEMA(stack_s, ga_fleet_stack, stack_f);

static const struct ga_field class_f[] = {
	S(struct ga_fleet_class, id),        S(struct ga_fleet_class, name),
	S(struct ga_fleet_class, hw_sha256), S(struct ga_fleet_class, pool),
	U(struct ga_fleet_class, gpus),      U(struct ga_fleet_class, expected_gpus),
	U(struct ga_fleet_class, nodes),     GA_FIELD_ARR(struct ga_fleet_class, stacks, stack_s),
};
SCHEMA(class_s, ga_fleet_class, class_f);

static const struct ga_field drift_f[] = {
	S(struct ga_fleet_drift, host),     S(struct ga_fleet_drift, source),
	S(struct ga_fleet_drift, class_id), S(struct ga_fleet_drift, stack_sha256),
	V(struct ga_fleet_drift, reasons),  S(struct ga_fleet_drift, detail),
};
const struct ga_schema ga_fleet_drift_schema = { "ga_fleet_drift", sizeof(struct ga_fleet_drift), drift_f,
	                                         GA_ARRAY_SIZE(drift_f) };

static const struct ga_field skip_f[] = { S(struct ga_fleet_skip, source), S(struct ga_fleet_skip, reason) };
const struct ga_schema ga_fleet_skip_schema = { "ga_fleet_skip", sizeof(struct ga_fleet_skip), skip_f,
	                                        GA_ARRAY_SIZE(skip_f) };

static const struct ga_field checks_f[] = {
	S(struct ga_fleet_checks, class),
	U(struct ga_fleet_checks, pass),
	U(struct ga_fleet_checks, fail),
	U(struct ga_fleet_checks, unknown),
};
SCHEMA(checks_s, ga_fleet_checks, checks_f);

/* times in Unix seconds, to the millisecond (the API's resolution); integral ones as integers */
#define D(st, m) GA_FIELD_NUM(st, m, 1000)
#define D_OMIT(st, m)                                                             \
	{                                                                         \
#m, GA_F_NUM, offsetof(st, m), NULL, 0, NULL, 0, 1000, GA_FF_OMIT \
	}
static const struct ga_field state_f[] = {
	S(struct ga_fleet_state, class_id),    S(struct ga_fleet_state, stack_sha256),
	S(struct ga_fleet_state, driver),      S(struct ga_fleet_state, cuda),
	S(struct ga_fleet_state, pool),        D(struct ga_fleet_state, first_seen_s),
	D(struct ga_fleet_state, last_seen_s),
};
SCHEMA(state_s, ga_fleet_state, state_f);

static const struct ga_field history_f[] = {
	S(struct ga_fleet_history, host),        S(struct ga_fleet_history, source),
	S(struct ga_fleet_history, status),      D(struct ga_fleet_history, first_seen_s),
	D(struct ga_fleet_history, last_seen_s), GA_FIELD_ARR(struct ga_fleet_history, states, state_s),
};
const struct ga_schema ga_fleet_history_schema = { "ga_fleet_history", sizeof(struct ga_fleet_history),
	                                           history_f, GA_ARRAY_SIZE(history_f) };

static const struct ga_field report_f[] = {
	S(struct ga_fleet_report, schema),
	S(struct ga_fleet_report, policy),
	U(struct ga_fleet_report, reports),
	U(struct ga_fleet_report, nodes),
	U(struct ga_fleet_report, check_reports),
	U(struct ga_fleet_report, skipped),
	U(struct ga_fleet_report, drift_nodes),
	GA_FIELD_ARR(struct ga_fleet_report, classes, class_s),
	GA_FIELD_ARR(struct ga_fleet_report, checks, checks_s),
	GA_FIELD_ARR(struct ga_fleet_report, drift, ga_fleet_drift_schema),
	GA_FIELD_ARR(struct ga_fleet_report, skipped_reports, ga_fleet_skip_schema),
	GA_FIELD_OMIT(struct ga_fleet_report, prometheus, GA_F_STR),
	D_OMIT(struct ga_fleet_report, at_s),
	D_OMIT(struct ga_fleet_report, since_s),
	GA_FIELD_OMIT(struct ga_fleet_report, history_nodes, GA_F_U64),
	GA_FIELD_ARR_FL(struct ga_fleet_report, history, ga_fleet_history_schema, GA_FF_OMIT),
};
const struct ga_schema ga_fleet_report_schema = { "ga_fleet_report", sizeof(struct ga_fleet_report), report_f,
	                                          GA_ARRAY_SIZE(report_f) };

static const struct ga_field change_f[] = {
	S(struct ga_fleet_change, kind),         S(struct ga_fleet_change, class_id),
	S(struct ga_fleet_change, stack_sha256), S(struct ga_fleet_change, host),
	U(struct ga_fleet_change, old_nodes),    U(struct ga_fleet_change, new_nodes),
	S(struct ga_fleet_change, detail),
};
SCHEMA(change_s, ga_fleet_change, change_f);

static const struct ga_field diff_f[] = {
	U(struct ga_fleet_diff, old_nodes),       U(struct ga_fleet_diff, new_nodes),
	U(struct ga_fleet_diff, old_drift_nodes), U(struct ga_fleet_diff, new_drift_nodes),
	B(struct ga_fleet_diff, drift_complete),  GA_FIELD_ARR(struct ga_fleet_diff, changes, change_s),
};
const struct ga_schema ga_fleet_diff_schema = { "ga_fleet_diff", sizeof(struct ga_fleet_diff), diff_f,
	                                        GA_ARRAY_SIZE(diff_f) };

void ga_fleet_report_free(struct ga_fleet_report *r)
{
	if (!r)
		return;
	ga_schema_release(&ga_fleet_report_schema, r);
	ga_free(r);
}

void ga_fleet_report_write_members(const struct ga_fleet_report *r, struct ga_json *w)
{
	ga_schema_write_members(w, &ga_fleet_report_schema, r);
}

int ga_fleet_report_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_fleet_report **ret)
{
	json_t *root = NULL;
	int pr = ga_json_parse(ctx, text, len, JSON_REJECT_DUPLICATES, &root, NULL);
	if (pr < 0)
		return pr;
	int r = 0;
	struct ga_fleet_report *rep = NULL;
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, GA_FLEET_SCHEMA)) {
		r = ga_err(ctx, -EBADMSG,
		           "not a fleet report (schema %s): write one with 'gpuaudit fleet --json'",
		           schema ? schema : "missing");
		goto out;
	}
	rep = ga_calloc(1, sizeof(*rep));
	if (!rep) {
		r = -ENOMEM;
		goto out;
	}
	r = ga_schema_read(ctx, &ga_fleet_report_schema, root, rep);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < rep->n_classes && r == 0; i++) {
		if (!rep->classes[i].id)
			r = ga_err(ctx, -EBADMSG, "classes[%zu].id: expected string", i);
		for (size_t k = 0; k < rep->classes[i].n_stacks && r == 0; k++)
			if (!rep->classes[i].stacks[k].stack_sha256)
				r = ga_err(ctx, -EBADMSG,
				           "classes[%zu].stacks[%zu].stack_sha256: expected string", i, k);
	}
	for (size_t i = 0; i < rep->n_drift && r == 0; i++)
		if (!rep->drift[i].host || !rep->drift[i].source)
			r = ga_err(ctx, -EBADMSG, "drift[%zu]: host and source must be strings", i);
	if (r < 0)
		goto out;
	*ret = rep;
	rep = NULL;
out:
	ga_fleet_report_free(rep);
	json_decref(root);
	return r;
}

int ga_fleet_write_json(const struct ga_fleet_report *r, const struct ga_fleet_diff *d, struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, true);
	ga_json_obj_begin(&w);
	ga_schema_write_members(&w, &ga_fleet_report_schema, r);
	if (d) {
		ga_json_key(&w, "diff");
		ga_schema_write(&w, &ga_fleet_diff_schema, d);
	}
	ga_json_obj_end(&w);
	return ga_json_finish(&w);
}
