/*
 * version.c - `version --json` as a document ("gpuaudit.version/v1"), so that
 * a fleet tool reads the version of the binary on a node the way it reads
 * everything else gpuaudit writes.
 */
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/model.h"

static const struct ga_field version_f[] = {
	GA_FIELD(struct ga_version_doc, schema, GA_F_STR),
	GA_FIELD(struct ga_version_doc, name, GA_F_STR),
	GA_FIELD(struct ga_version_doc, version, GA_F_STR),
};
const struct ga_schema ga_version_doc_schema = { "ga_version_doc", sizeof(struct ga_version_doc), version_f,
	                                         GA_ARRAY_SIZE(version_f) };

int ga_version_write_json(struct ga_buf *out)
{
	static char id[] = GA_VERSION_SCHEMA, name[] = "gpuaudit", version[] = GA_VERSION;
	const struct ga_version_doc doc = { id, name, version };
	struct ga_json w;
	ga_json_init(&w, out, true);
	ga_schema_write(&w, &ga_version_doc_schema, &doc);
	return ga_json_finish(&w);
}
