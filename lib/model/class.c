/*
 * class.c - the node class as a document (`class --json`,
 * "gpuaudit.class/v1"): the ids and hashes as strings, the canonical hardware,
 * stack and key JSON as the objects they are (GA_F_JSON), so that a class
 * computed on one machine can be read and compared on another.
 */
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/schema.h"

#define C(member)                                                                   \
	{                                                                           \
#member, GA_F_STR, offsetof(struct ga_class_doc, c.member), NULL, 0 \
	}
#define J(name, member)                                                           \
	{                                                                         \
		name, GA_F_JSON, offsetof(struct ga_class_doc, c.member), NULL, 0 \
	}
static const struct ga_field class_f[] = {
	GA_FIELD(struct ga_class_doc, schema, GA_F_STR),
	C(id),
	C(name),
	C(hw_sha256),
	C(stack_sha256),
	J("hw", hw_json),
	J("stack", stack_json),
	C(key),
	J("key_json", key_json),
};
#undef C
#undef J
const struct ga_schema ga_class_doc_schema = { "ga_class_doc", sizeof(struct ga_class_doc), class_f,
	                                       GA_ARRAY_SIZE(class_f) };

int ga_class_write_json(const struct ga_nodeclass *c, struct ga_buf *out, bool pretty)
{
	static char id[] = GA_CLASS_SCHEMA;
	struct ga_class_doc doc = { .schema = id, .c = *c }; /* borrowed: not released */
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	ga_schema_write(&w, &ga_class_doc_schema, &doc);
	return ga_json_finish(&w);
}
