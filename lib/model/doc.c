/*
 * doc.c - reading, writing and freeing a versioned document through its
 * model's schema table, and the registry of models (model.h).
 */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/canary.h"
#include "gpuaudit/capture.h"
#include "gpuaudit/deps-report.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/hstate.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/serve.h"
#include "gpuaudit/triage.h"

const struct ga_model ga_models[] = {
	{ GA_NODE_SCHEMA, &ga_node_schema, "node snapshot: discover --json, serve /v1/snapshot" },
	{ GA_FLEET_SCHEMA, &ga_fleet_report_schema, "fleet report: fleet --json" },
	{ GA_CANARY_SCHEMA, &ga_canary_doc_schema, "canary verdict: canary --json" },
	{ GA_DEPS_SCHEMA, &ga_deps_report_schema, "artifact dependency report: deps --json" },
	{ GA_SERVE_CHECK_SCHEMA, &ga_serve_check_schema, "serve check: serve /v1/check" },
	{ GA_SAMPLE_SCHEMA, &ga_sample_doc_schema,
	  "sample: one line of record (JSON lines), read by triage --samples" },
	{ GA_CHECK_SCHEMA, &ga_check_report_schema, "check report: check --json, read by fleet" },
	{ GA_HEALTH_SCHEMA, &ga_health_report_schema, "health report: health --json" },
	{ GA_HSTATE_SCHEMA, &ga_health_state_schema,
	  "health state: health --state FILE (sticky conditions across runs and restarts)" },
	{ GA_EXPLAIN_SCHEMA, &ga_explain_report_schema, "explain report: explain --json" },
	{ GA_TRIAGE_SCHEMA, &ga_triage_report_schema, "triage report: triage --json" },
	{ GA_CLASS_SCHEMA, &ga_class_doc_schema, "node class: class --json" },
	{ GA_VERSION_SCHEMA, &ga_version_doc_schema, "version: version --json" },
	{ GA_PREFLIGHT_SCHEMA, &ga_pf_doc_schema, "preflight report: preflight --json" },
	{ GA_BENCH_SCHEMA, &ga_bench_doc_schema, "benchmark result: bench --json/-o, smoke, canary" },
	{ GA_CAPTURE_SCHEMA, &ga_capture_report_schema, "capture summary: capture --json" },
	{ NULL, NULL, NULL },
};

const struct ga_model *ga_model_find(const char *id)
{
	for (const struct ga_model *m = ga_models; m->id; m++)
		if (!strcmp(m->id, id))
			return m;
	return NULL;
}

static int load(struct ga_ctx *ctx, const char *text, size_t len, json_t **ret, const char **id)
{
	json_t *root = NULL;
	int pr = ga_json_parse(ctx, text, len, JSON_REJECT_DUPLICATES, &root, NULL);
	if (pr < 0)
		return pr;
	const json_t *schema = json_object_get(root, "schema");
	if (!json_is_string(schema)) {
		json_decref(root);
		return ga_err(ctx, -EBADMSG, "not a gpuaudit document: no \"schema\" member");
	}
	*id = json_string_value(schema);
	*ret = root;
	return 0;
}

int ga_model_detect(struct ga_ctx *ctx, const char *text, size_t len, const struct ga_model **ret)
{
	json_t *root = NULL;
	const char *id = NULL;
	int r = load(ctx, text, len, &root, &id);
	if (r < 0)
		return r;
	*ret = ga_model_find(id);
	if (!*ret)
		r = ga_err(ctx, -ENOENT, "unknown schema \"%s\"", id);
	json_decref(root);
	return r;
}

int ga_model_read(struct ga_ctx *ctx, const struct ga_model *m, const char *text, size_t len, void *obj)
{
	json_t *root = NULL;
	const char *id = NULL;
	int r = load(ctx, text, len, &root, &id);
	if (r < 0)
		return r;
	if (strcmp(id, m->id) != 0)
		r = ga_err(ctx, -EBADMSG, "unsupported schema \"%s\" (this build reads %s here)", id, m->id);
	else
		r = ga_schema_read(ctx, m->schema, root, obj);
	json_decref(root);
	return r;
}

int ga_model_write(const struct ga_model *m, const void *obj, struct ga_buf *out, bool pretty)
{
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	ga_schema_write(&w, m->schema, obj);
	return ga_json_finish(&w);
}

void ga_model_release(const struct ga_model *m, void *obj)
{
	ga_schema_release(m->schema, obj);
}
