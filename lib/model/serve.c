/*
 * model/serve.c - serve's /v1/check document (gpuaudit.serve-check/v1) as a
 * schema table: written and read by the same table, like every other
 * document (model.h).
 */
#include "../core/internal.h"
#include "gpuaudit/model.h"
#include "gpuaudit/serve.h"

static const struct ga_field xid_sources_f[] = {
	GA_FIELD(struct ga_serve_xid_sources, kmsg, GA_F_BOOL),
	GA_FIELD(struct ga_serve_xid_sources, nvml_events, GA_F_BOOL),
};
static const struct ga_schema xid_sources_s = { "ga_serve_xid_sources", sizeof(struct ga_serve_xid_sources),
	                                        xid_sources_f, GA_ARRAY_SIZE(xid_sources_f) };

static const struct ga_field serve_check_f[] = {
	GA_FIELD(struct ga_serve_check, schema, GA_F_STR),
	GA_FIELD(struct ga_serve_check, policy, GA_F_STR),
	GA_FIELD(struct ga_serve_check, class, GA_F_STR),
	GA_FIELD(struct ga_serve_check, result, GA_F_STR),
	GA_FIELD(struct ga_serve_check, violations, GA_F_U64),
	GA_FIELD(struct ga_serve_check, unknowns, GA_F_U64),
	GA_FIELD(struct ga_serve_check, collected_at, GA_F_DBL),
	GA_FIELD_OBJ(struct ga_serve_check, xid_sources, xid_sources_s),
	GA_FIELD_FINDINGS(struct ga_serve_check, findings),
};
const struct ga_schema ga_serve_check_schema = { "ga_serve_check", sizeof(struct ga_serve_check),
	                                         serve_check_f, GA_ARRAY_SIZE(serve_check_f) };

int ga_serve_check_write(const struct ga_serve_check *d, struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, true);
	ga_schema_write(&w, &ga_serve_check_schema, d);
	return ga_json_finish(&w);
}
