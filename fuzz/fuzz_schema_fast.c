/*
 * fuzz_schema_fast.c - the fast reader (ga_schema_read_fast: the fleet's
 * snapshot path and triage's sample lines) against the slow one (jansson
 * with duplicate keys rejected, then ga_schema_read) on arbitrary bytes, for
 * both the node snapshot and the gpuaudit.sample/v1 table. Whenever the fast
 * path accepts, the slow path must accept too and both must give the same
 * struct (written back byte for byte); when it declines, it must leave the
 * struct zeroed, as the caller's slow path expects.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/node.h"
#include "gpuaudit/sample.h"

static struct ga_ctx *ctx;

static void to_json(const struct ga_schema *s, const void *obj, struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, false);
	ga_schema_write(&w, s, obj);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
}

static void check(const struct ga_schema *s, const uint8_t *data, size_t size)
{
	char *fast = calloc(1, s->size), *slow = calloc(1, s->size), *zero = calloc(1, s->size);
	FUZZ_CHECK(fast && slow && zero);
	int r = ga_schema_read_fast(s, (const char *)data, size, fast);
	FUZZ_CHECK(r == 0 || r == 1);
	if (r == 1) {
		FUZZ_CHECK(memcmp(fast, zero, s->size) == 0);
		goto out;
	}
	json_error_t jerr;
	json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		fprintf(stderr, "%s: fast path accepted what jansson rejects: %s\n", s->name, jerr.text);
		abort();
	}
	int k = ga_schema_read(ctx, s, root, slow);
	if (k != 0) {
		fprintf(stderr, "%s: fast path accepted what ga_schema_read rejects: %s\n", s->name,
		        ga_ctx_errmsg(ctx));
		abort();
	}
	struct ga_buf a, b;
	ga_buf_init(&a, 0);
	ga_buf_init(&b, 0);
	to_json(s, fast, &a);
	to_json(s, slow, &b);
	FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	ga_buf_release(&a);
	ga_buf_release(&b);
	ga_schema_release(s, fast);
	ga_schema_release(s, slow);
	json_decref(root);
out:
	free(fast);
	free(slow);
	free(zero);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	check(&ga_node_schema, data, size);
	check(&ga_sample_doc_schema, data, size);
	return 0;
}
