/*
 * fuzz_schema_fast.c - the fast snapshot reader (ga_schema_read_fast, the
 * fleet's yajl path) against the slow one (jansson with duplicate keys
 * rejected, then ga_schema_read) on arbitrary bytes. Whenever the fast path
 * accepts, the slow path must accept too and both must give the same
 * snapshot (written back byte for byte); when it declines, it must leave the
 * struct zeroed, as the caller's slow path expects.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/node.h"

static struct ga_ctx *ctx;

static void to_json(const struct ga_node *n, struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, false);
	ga_node_write_json(n, &w);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	struct ga_node fast, slow, zero;
	memset(&fast, 0, sizeof(fast));
	memset(&slow, 0, sizeof(slow));
	memset(&zero, 0, sizeof(zero));
	int r = ga_schema_read_fast(&ga_node_schema, (const char *)data, size, &fast);
	FUZZ_CHECK(r == 0 || r == 1);
	if (r == 1) {
		FUZZ_CHECK(memcmp(&fast, &zero, sizeof(fast)) == 0);
		return 0;
	}
	json_error_t jerr;
	json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		fprintf(stderr, "fast path accepted what jansson rejects: %s\n", jerr.text);
		abort();
	}
	int k = ga_schema_read(ctx, &ga_node_schema, root, &slow);
	if (k != 0) {
		fprintf(stderr, "fast path accepted what ga_schema_read rejects: %s\n", ga_ctx_errmsg(ctx));
		abort();
	}
	struct ga_buf a, b;
	ga_buf_init(&a, 0);
	ga_buf_init(&b, 0);
	to_json(&fast, &a);
	to_json(&slow, &b);
	FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	ga_buf_release(&a);
	ga_buf_release(&b);
	ga_schema_release(&ga_node_schema, &fast);
	ga_schema_release(&ga_node_schema, &slow);
	json_decref(root);
	return 0;
}
