/*
 * fuzz_node_json.c - the snapshot reader (--from FILE) on arbitrary bytes.
 * When the input is accepted, the snapshot is written back (compact and
 * pretty); the output must be JSON, the reader must accept it, and writing
 * what it read must give the same bytes again.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/node.h"

static struct ga_ctx *ctx;

static int write_node(const struct ga_node *n, bool pretty, struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	ga_node_write_json(n, &w);
	return ga_json_finish(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	struct ga_node *n = NULL;
	if (ga_node_from_json(ctx, (const char *)data, size, &n) < 0) {
		FUZZ_CHECK(n == NULL);
		FUZZ_CHECK(ga_ctx_errmsg(ctx)[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(n != NULL);

	struct ga_buf compact, pretty, again;
	ga_buf_init(&compact, 0);
	ga_buf_init(&pretty, 0);
	ga_buf_init(&again, 0);
	FUZZ_CHECK(write_node(n, false, &compact) == 0);
	FUZZ_CHECK(write_node(n, true, &pretty) == 0);
	fuzz_check_json(compact.data, compact.len, 0);
	fuzz_check_json(pretty.data, pretty.len, 0);

	struct ga_node *back = NULL;
	FUZZ_CHECK(ga_node_from_json(ctx, compact.data, compact.len, &back) == 0);
	FUZZ_CHECK(write_node(back, false, &again) == 0);
	FUZZ_CHECK(again.len == compact.len && memcmp(again.data, compact.data, again.len) == 0);

	ga_node_free(back);
	ga_node_free(n);
	ga_buf_release(&compact);
	ga_buf_release(&pretty);
	ga_buf_release(&again);
	return 0;
}
