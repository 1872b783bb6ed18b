/*
 * test_alloc.c - the hookable allocator reaches the third-party parsers:
 * jansson (json_set_alloc_funcs in lib/core/alloc.c) and yajl (the
 * yajl_alloc_funcs of lib/model/schema_fast.c), so a failing Nth allocation
 * inside them surfaces as -ENOMEM from the library call, never as a parse
 * error or a crash. libfyaml 0.7.12 cannot be hooked (docs/dependencies.md).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/file.h"
#include "gpuaudit/core.h"
#include "gpuaudit/node.h"
#include "gpuaudit/schema.h"

static struct ga_ctx *ctx;
static struct ga_buf node_json; /* tests/fixtures/models/node.json */

static int setup(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	char path[4096];
	assert_non_null(fx);
	assert_int_equal(ga_ctx_new(&ctx), 0);
	snprintf(path, sizeof(path), "%s/models/node.json", fx);
	ga_buf_init(&node_json, 0);
	assert_int_equal(ga_file_read(ctx, path, 0, &node_json), 0);
	assert_true(node_json.len > 100);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ga_buf_release(&node_json);
	ga_ctx_free(ctx);
	return 0;
}

/* jansson's own calls count down and fail with the library's allocator. */
static void test_jansson_hooked(void **state)
{
	(void)state;
	ga_alloc_fail_after(0);
	json_t *o = json_object();
	ga_alloc_fail_after(-1);
	assert_null(o);
	ga_alloc_fail_after(1);
	o = json_pack("{s:s}", "k", "v");
	ga_alloc_fail_after(-1);
	assert_null(o);
}

/*
 * The first allocations of ga_node_from_json are json_loadb's: each of them
 * failing in turn is -ENOMEM and no node. jansson 2.14 itself calls most of
 * them a syntax error ("invalid token near ...") or leaves the text empty:
 * the reader tells them apart with ga_alloc_failures.
 */
static bool loads_with_failure_at(long k)
{
	ga_alloc_fail_after(k);
	json_t *j = json_loadb(node_json.data, node_json.len, JSON_REJECT_DUPLICATES, NULL);
	ga_alloc_fail_after(-1);
	json_decref(j);
	return j != NULL;
}

static void test_jansson_enomem_surfaces(void **state)
{
	(void)state;
	/* json_loadb with the k-th allocation failing succeeds exactly when k is at least
	 * the number of allocations it makes: found by bisection (not k = 0, 1, 2, ...,
	 * which re-parses the 80 KB document thousands of times). */
	long lo = 0, hi = 1;
	while (!loads_with_failure_at(hi))
		lo = hi, hi *= 2;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (loads_with_failure_at(mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	long in_jansson = lo;
	assert_false(loads_with_failure_at(in_jansson - 1));
	assert_true(in_jansson > 10); /* one per object, array and string of the document */
	/* Every one of the first 256 (the document's first objects, arrays and strings of
	 * each kind), then every 7th and the last: the 80 KB document makes thousands, and
	 * failing each in turn re-parses it each time (quadratic: 20 s, 40 s under ASan). */
	for (long k = 0; k < in_jansson; k = k < 256 || k + 7 >= in_jansson - 1 ? k + 1 : k + 7) {
		struct ga_node *n = NULL;
		ga_alloc_fail_after(k);
		int r = ga_node_from_json(ctx, node_json.data, node_json.len, &n);
		ga_alloc_fail_after(-1);
		assert_int_equal(r, -ENOMEM);
		assert_null(n);
	}
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_from_json(ctx, node_json.data, node_json.len, &n), 0);
	ga_node_free(n);
}

/*
 * yajl: an empty object allocates nothing of the reader's own, so the only
 * allocations are yajl's (its handle, lexer, buffers); each failing is -ENOMEM
 * and frees what yajl held (ASan's leak check), then the parse goes through.
 */
static void test_yajl_hooked(void **state)
{
	(void)state;
	const char *text = "{}";
	long failures = 0;
	for (long k = 0;; k++) {
		struct ga_node got;
		memset(&got, 0, sizeof(got));
		ga_alloc_fail_after(k);
		int r = ga_schema_read_fast(&ga_node_schema, text, strlen(text), &got);
		ga_alloc_fail_after(-1);
		ga_schema_release(&ga_node_schema, &got);
		if (r != -ENOMEM) {
			assert_true(r == 0 || r == 1);
			break;
		}
		failures++;
		assert_true(k < 1000);
	}
	assert_true(failures >= 2); /* yajl_alloc's handle and the lexer of the first yajl_parse */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jansson_hooked),
		cmocka_unit_test(test_jansson_enomem_surfaces),
		cmocka_unit_test(test_yajl_hooked),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
