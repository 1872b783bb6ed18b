/*
 * hstate.c - the gpuaudit.health-state/v2 model: the file `health --state`
 * keeps between runs (sticky conditions, their hits and high-water marks),
 * as a schema table; and the one-way reading of the v1 file (the Xid repeat
 * memory, {"seen": [{xid, device, boots}]}) so an upgrade keeps its boots.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/hstate.h"
#include "gpuaudit/json.h"

static const char *const sev_names[4] = { "info", "warning", "error", "critical" };
static const char *const act_names[GA_ACT__COUNT] = {
	"investigate", "none", "restart_workload", "reset_gpu", "reboot", "drain", "replace", "fix_config",
};
static const char *const cause_names[GA_CAUSE__COUNT] = {
	"unknown", "node_hardware", "driver", "container_runtime", "application", "network", "configuration",
};

#define H struct ga_hstate_hit
static const struct ga_field hit_f[] = { GA_FIELD(H, t_s, GA_F_I64), GA_FIELD(H, n, GA_F_U64) };
#undef H
static const struct ga_schema hit_s = { "ga_hstate_hit", sizeof(struct ga_hstate_hit), hit_f,
	                                GA_ARRAY_SIZE(hit_f) };

#define C struct ga_hstate_cond
static const struct ga_field cond_f[] = {
	GA_FIELD(C, code, GA_F_STR),
	GA_FIELD(C, subject, GA_F_STR),
	GA_FIELD_ENUM(C, severity, sev_names),
	GA_FIELD_ENUM(C, action, act_names),
	GA_FIELD_ENUM(C, cause, cause_names),
	GA_FIELD(C, message, GA_F_STR),
	GA_FIELD(C, decision, GA_F_STR),
	GA_FIELD(C, gpu_uuid, GA_F_STR),
	GA_FIELD(C, pci_address, GA_F_STR),
	GA_FIELD(C, raised, GA_F_BOOL),
	GA_FIELD(C, raised_s, GA_F_I64),
	GA_FIELD(C, first_s, GA_F_I64),
	GA_FIELD(C, last_s, GA_F_I64),
	GA_FIELD(C, clear_runs, GA_F_U64),
	GA_FIELD(C, log_boot_id, GA_F_STR),
	GA_FIELD(C, log_count, GA_F_U64),
	GA_FIELD(C, log_last_boot_s, GA_F_DBL),
	GA_FIELD(C, boots, GA_F_STRV),
	GA_FIELD_ARR(C, hits, hit_s),
};
#undef C
static const struct ga_schema cond_s = { "ga_hstate_cond", sizeof(struct ga_hstate_cond), cond_f,
	                                 GA_ARRAY_SIZE(cond_f) };

#define S struct ga_health_state
static const struct ga_field state_f[] = {
	GA_FIELD(S, schema, GA_F_STR),       GA_FIELD(S, updated_s, GA_F_I64),
	GA_FIELD(S, boot_id, GA_F_STR),      GA_FIELD(S, collections, GA_F_U64),
	GA_FIELD_ARR(S, conditions, cond_s),
};
#undef S
const struct ga_schema ga_health_state_schema = { "ga_health_state", sizeof(struct ga_health_state), state_f,
	                                          GA_ARRAY_SIZE(state_f) };

void ga_hstate_release(struct ga_health_state *st)
{
	ga_schema_release(&ga_health_state_schema, st);
	memset(st, 0, sizeof(*st));
}

void ga_hstate_cond_release(struct ga_hstate_cond *c)
{
	ga_schema_release(&cond_s, c);
	memset(c, 0, sizeof(*c));
}

/* v1: per (Xid, device) the boots it was seen in; they become lowered conditions. */
static int read_v1(struct ga_health_state *st, const json_t *seen)
{
	size_t i;
	const json_t *e;
	json_array_foreach(seen, i, e)
	{
		const json_t *x = json_object_get(e, "xid"), *d = json_object_get(e, "device"),
		             *boots = json_object_get(e, "boots");
		if (!json_is_integer(x) || json_integer_value(x) < 0 || !json_is_string(d) ||
		    !json_is_array(boots) || st->n_conditions >= GA_HSTATE_MAX_CONDITIONS)
			continue;
		struct ga_hstate_cond *c =
		        ga_array_push((void **)&st->conditions, &st->n_conditions, sizeof(*c));
		if (!c)
			return -ENOMEM;
		char code[40];
		snprintf(code, sizeof(code), "%s%lld", ga_code_str(GA_C_XID),
		         (long long)json_integer_value(x));
		c->code = ga_strdup(code);
		c->subject = ga_strdup(json_string_value(d));
		if (!c->code || !c->subject)
			return -ENOMEM;
		ga_action_default(code, &c->action, &c->cause);
		c->severity = GA_SEV_CRITICAL;
		GA_SET(c->raised, false);
		size_t k;
		const json_t *b;
		json_array_foreach(boots, k,
		                   b) if (json_is_string(b) && c->boots.n < GA_HSTATE_MAX_BOOTS &&
		                          ga_strv_push(&c->boots, json_string_value(b)) < 0) return -ENOMEM;
	}
	return 0;
}

#define HERR(err, ...) ga_err(ctx, (err), __VA_ARGS__)

static int read_state(struct ga_ctx *ctx, const char *text, size_t len, struct ga_health_state *ret)
{
	memset(ret, 0, sizeof(*ret));
	json_t *root = NULL;
	int r = 0;
	if (text && len) {
		json_error_t jerr;
		r = ga_json_parse(NULL, text, len, JSON_REJECT_DUPLICATES, &root, &jerr);
		if (r == -ENOMEM)
			return HERR(-ENOMEM, "out of memory");
		const json_t *schema = root ? json_object_get(root, "schema") : NULL;
		const char *id = json_is_string(schema) ? json_string_value(schema) : "";
		if (root && !strcmp(id, GA_HSTATE_SCHEMA)) {
			r = ga_schema_read(ctx, &ga_health_state_schema, root, ret);
		} else if (root && !strcmp(id, GA_HSTATE_SCHEMA_V1) &&
		           json_is_array(json_object_get(root, "seen"))) {
			r = read_v1(ret, json_object_get(root, "seen"));
			if (r < 0)
				HERR(r, "out of memory");
		} else {
			r = HERR(-EBADMSG, "state file is not a %s document%s%s", GA_HSTATE_SCHEMA,
			         root ? "" : ": ", root ? "" : jerr.text);
		}
		json_decref(root);
	}
	if (r == 0 && ret->n_conditions > GA_HSTATE_MAX_CONDITIONS)
		r = HERR(-EBADMSG, "state file holds more than %d conditions", GA_HSTATE_MAX_CONDITIONS);
	for (size_t i = 0; r == 0 && i < ret->n_conditions; i++)
		if (!ret->conditions[i].code || !ret->conditions[i].subject)
			r = HERR(-EBADMSG, "conditions[%zu]: a condition needs a code and a subject", i);
	if (r == 0 && !ret->schema && !(ret->schema = ga_strdup(GA_HSTATE_SCHEMA)))
		r = -ENOMEM;
	if (r == 0 && strcmp(ret->schema, GA_HSTATE_SCHEMA)) {
		ga_free(ret->schema);
		if (!(ret->schema = ga_strdup(GA_HSTATE_SCHEMA)))
			r = -ENOMEM;
	}
	if (r < 0)
		ga_hstate_release(ret);
	return r;
}

int ga_hstate_write(const struct ga_health_state *st, struct ga_buf *out)
{
	struct ga_json w; /* not ga_model_write: doc.c's registry refers to this file */
	ga_json_init(&w, out, true);
	ga_schema_write(&w, &ga_health_state_schema, st);
	return ga_json_finish(&w);
}

int ga_hstate_read(struct ga_ctx *ctx, const char *text, size_t len, struct ga_health_state *ret)
{
	struct ga_ctx *own = NULL; /* the schema reader needs a context for its messages */
	if (!ctx && ga_ctx_new(&own) < 0) {
		memset(ret, 0, sizeof(*ret));
		return -ENOMEM;
	}
	int r = read_state(ctx ? ctx : own, text, len, ret);
	ga_ctx_free(own);
	return r;
}
