/*
 * test_schema_fast.c - the fast snapshot reader (ga_schema_read_fast): every
 * fixture snapshot, compact and pretty, reads back through it to the same
 * bytes as through jansson + ga_schema_read; what it must decline (and leave
 * zeroed, for the slow path) it declines, including valid documents that
 * yajl and jansson would read differently; allocation failures in turn.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gpuaudit/isolate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"

static const char *const fixtures[] = { "a10-x8",      "cpu-vm",      "dgx-a100",         "dgx-h100",
	                                "intel-max",   "mi250x",      "k8s-healthy",      "k8s-cdi-stale",
	                                "k8s-dp-7of8", "k8s-cdi-mig", "k8s-in-container", "gh200",
	                                "gb200-tray",  "dgx-spark",   "mi300x",           "power9-v100",
	                                "ws-rtx4090" };

static struct ga_node *collect(const char *name)
{
	char root[4096];
	snprintf(root, sizeof(root), "%s/nodes/%s/root", getenv("GA_FIXTURES"), name);
	struct ga_ctx *ctx = NULL;
	struct ga_node *n = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	ga_ctx_set_vendor(ctx, GA_VENDOR_OFF, 1000);
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	ga_ctx_free(ctx);
	return n;
}

static char *to_json(const struct ga_node *n, bool pretty, size_t *len)
{
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, pretty);
	assert_int_equal(ga_node_write_json(n, &w), 0);
	assert_int_equal(ga_json_finish(&w), 0);
	return ga_buf_detach(&b, len);
}

/* The slow path's reading, written back compact; NULL when it rejects. */
static char *slow(const char *text)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	json_t *root = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, NULL);
	char *out = NULL;
	struct ga_node n;
	memset(&n, 0, sizeof(n));
	if (root && ga_schema_read(ctx, &ga_node_schema, root, &n) == 0)
		out = to_json(&n, false, NULL);
	ga_schema_release(&ga_node_schema, &n);
	json_decref(root);
	ga_ctx_free(ctx);
	return out;
}

static char *fast(const char *text, size_t len, int *r)
{
	struct ga_node n, zero;
	memset(&n, 0, sizeof(n));
	memset(&zero, 0, sizeof(zero));
	*r = ga_schema_read_fast(&ga_node_schema, text, len, &n);
	if (*r != 0) {
		assert_memory_equal(&n, &zero, sizeof(n)); /* left zeroed for the slow path */
		return NULL;
	}
	char *out = to_json(&n, false, NULL);
	ga_schema_release(&ga_node_schema, &n);
	return out;
}

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct ga_node *n = collect(fixtures[i]);
		size_t len;
		char *compact = to_json(n, false, &len);
		for (int pretty = 0; pretty < 2; pretty++) {
			size_t tl;
			char *text = to_json(n, pretty, &tl);
			int r;
			char *back = fast(text, tl, &r);
			assert_int_equal(r, 0);
			assert_string_equal(back, compact);
			char *ref = slow(text);
			assert_non_null(ref);
			assert_string_equal(back, ref);
			ga_free(back);
			ga_free(ref);
			ga_free(text);
		}
		ga_free(compact);
		ga_node_free(n);
	}
}

/* Read by the fast path, and the same as the slow path's reading. */
static void accepted(const char *text, const char *want_substr)
{
	int r;
	char *back = fast(text, strlen(text), &r);
	if (r != 0)
		fail_msg("declined: %s", text);
	char *ref = slow(text);
	assert_non_null(ref);
	assert_string_equal(back, ref);
	if (!strstr(back, want_substr))
		fail_msg("%s not in %s", want_substr, back);
	ga_free(back);
	ga_free(ref);
}

static void test_accepted(void **state)
{
	(void)state;
	/* nulls are absent; unknown members of any shape are ignored */
	accepted("{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"hostname\":\"h1\",\"virt\":null,\"os\":null},"
	         "\"later\":{\"a\":[[{}],true,false,null,-0,1.5E3,\"s\"],\"b\":{\"c\":{}}},\"gaps\":[]}",
	         "\"hostname\":\"h1\"");
	/* integers into a real, -0, escapes other than \u, UTF-8 */
	accepted("{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"uptime_s\":12,\"hostname\":\"a\\/"
	         "b\\n\\\"c\\\\\","
	         "\"kernel_release\":\"caf\xc3\xa9 \xe2\x82\xac "
	         "\xf0\x9f\x98\x80\"},\"cpu\":{\"sockets\":-0,\"cores\":0}}",
	         "\"uptime_s\":12");
	/* integers at the ends of int64 */
	accepted("{\"schema\":\"gpuaudit.node/v1\",\"cpu\":{\"mem_total_bytes\":9223372036854775807},"
	         "\"pci\":[{\"numa_node\":-9223372036854775808},{\"numa_node\":-1}],\"x\":-"
	         "9223372036854775808}",
	         "\"numa_node\":-9223372036854775808");
	/* members in any order, pretty or not */
	accepted("{ \"cpu\" : { \"numa_nodes\" : [ { \"id\" : 1 } , { \"cpus\" : 4 , \"id\" : 0 } ] } ,\n"
	         "\t\"schema\" : \"gpuaudit.node/v1\" , \"modules\" : [ \"nvidia\" , \"amdgpu\" ] }\r\n",
	         "\"modules\":[\"nvidia\",\"amdgpu\"]");
}

/* Declined by the fast path; slow_ok says whether the slow path reads it. */
static void declined(const char *text, size_t len, bool slow_ok)
{
	int r;
	assert_null(fast(text, len, &r));
	if (r != 1)
		fail_msg("not declined (%d): %s", r, text);
	if (len == strlen(text)) {
		char *ref = slow(text);
		if (slow_ok != (ref != NULL))
			fail_msg("slow path %s: %s", ref ? "reads it" : "rejects it", text);
		ga_free(ref);
	}
}
#define DECLINED(text, slow_ok) declined(text, sizeof(text) - 1, slow_ok)

static void test_declined(void **state)
{
	(void)state;
	/* valid, but yajl and jansson differ on such input: left to jansson */
	DECLINED("{\"host\":{\"hostname\":\"caf\\u00e9\"}}", true);
	DECLINED("{\"host\":{\"hostname\":\"\\ud800\"}}", false); /* lone surrogate: yajl takes it */
	DECLINED("{\"host\":{\"hostname\":\"a\\u0000b\"}}", false);
	DECLINED("{\"host\":\v{}}", false);                            /* \v: white space to yajl only */
	DECLINED("{\"host\":{\"hostname\":\"\xc0\xaf\"}}", false);     /* overlong */
	DECLINED("{\"host\":{\"hostname\":\"\xed\xa0\x80\"}}", false); /* encoded surrogate */
	/* duplicates, known and unknown, at any depth */
	DECLINED("{\"host\":{\"hostname\":\"a\",\"hostname\":\"b\"}}", false);
	DECLINED("{\"x\":{\"k\":[1,{\"k\":2,\"k\":3}]}}", false);
	DECLINED("{\"x\":1,\"x\":1}", false);
	/* numbers jansson rejects */
	DECLINED("{\"x\":99999999999999999999}", false);
	DECLINED("{\"x\":9223372036854775808}", false);
	DECLINED("{\"x\":-9223372036854775809}", false);
	DECLINED("{\"cpu\":{\"mem_total_bytes\":18446744073709551615}}", false);
	DECLINED("{\"x\":1e400}", false);
	/* wrong types: the slow path names them */
	DECLINED("{\"cpu\":{\"sockets\":-1}}", false);
	DECLINED("{\"cpu\":{\"sockets\":1.0}}", false);
	DECLINED("{\"host\":{\"uptime_s\":\"1\"}}", false);
	DECLINED("{\"host\":[]}", false);
	DECLINED("{\"accelerators\":[null]}", false);
	DECLINED("{\"accelerators\":[1]}", false);
	DECLINED("{\"modules\":[\"a\",null]}", false);
	DECLINED("{\"modules\":\"a\"}", false);
	DECLINED("{\"schema\":true}", false);
	/* not one object */
	DECLINED("[]", false);
	DECLINED("{} {}", false);
	DECLINED("{}\":[:", false); /* an open string after the object: yajl waits for more */
	DECLINED("{} \"x", false);
	DECLINED("{\"host\":{}", false);
	DECLINED("{\"a\":01}", false);
	DECLINED("{\"a\":tru}", false);
	DECLINED("{\"a\":1,}", false);
	DECLINED("{\"a\":/*c*/1}", false);
	DECLINED("{\"a\":\"x\ty\"}", false);
	DECLINED("", false);
	DECLINED("{\"a\":\"x\"}\0", false);
	/* nesting past the duplicate check's bound (jansson takes 2048 levels) */
	char deep[300];
	size_t k = 0;
	deep[k++] = '{';
	memcpy(deep + k, "\"x\":", 4);
	k += 4;
	for (int i = 0; i < 100; i++)
		deep[k++] = '[';
	for (int i = 0; i < 100; i++)
		deep[k++] = ']';
	deep[k++] = '}';
	deep[k] = '\0';
	declined(deep, k, true);
}

/* Every allocation failing in turn: -ENOMEM and a zeroed struct, never a leak (ASan). */
static void test_alloc_failures(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-h100");
	size_t len;
	char *text = to_json(n, false, &len);
	ga_node_free(n);
	struct ga_node got, zero;
	memset(&zero, 0, sizeof(zero));
	for (long k = 0;; k++) {
		memset(&got, 0, sizeof(got));
		ga_alloc_fail_after(k);
		int r = ga_schema_read_fast(&ga_node_schema, text, len, &got);
		ga_alloc_fail_after(-1);
		if (r == 0) {
			size_t bl;
			char *back = to_json(&got, false, &bl);
			assert_int_equal(bl, len);
			assert_memory_equal(back, text, len);
			ga_free(back);
			ga_schema_release(&ga_node_schema, &got);
			break;
		}
		assert_int_equal(r, -ENOMEM);
		assert_memory_equal(&got, &zero, sizeof(got));
	}
	ga_free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_declined),
		cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
