/*
 * test_models.c - every registered model (model.h) has a recorded example in
 * tests/fixtures/models/<name>.json and a field page docs/schema/<name>.md,
 * and each example survives
 * read -> write -> read -> write with the two writes identical; unknown and
 * mismatched schema ids are refused with a message.
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

#include "gpuaudit/core.h"
#include "gpuaudit/model.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				b = NULL;
			}
			b = nb;
		}
	}
	fclose(f);
	*len = n;
	return b;
}

/* "gpuaudit.node/v1" -> "node" */
static void model_name(const char *id, char *out, size_t n)
{
	const char *a = strchr(id, '.'), *z = strchr(id, '/');
	assert_non_null(a);
	assert_non_null(z);
	snprintf(out, n, "%.*s", (int)(z - a - 1), a + 1);
}

static void write_doc(struct ga_ctx *ctx, const struct ga_model *m, const char *text, size_t len,
                      struct ga_buf *out)
{
	void *obj = calloc(1, m->schema->size);
	assert_non_null(obj);
	int r = ga_model_read(ctx, m, text, len, obj);
	if (r < 0)
		fail_msg("%s: %s", m->id, ga_ctx_errmsg(ctx));
	assert_int_equal(ga_model_write(m, obj, out, true), 0);
	ga_model_release(m, obj);
	free(obj);
}

static void test_roundtrip_every_model(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	size_t count = 0;
	for (const struct ga_model *m = ga_models; m->id; m++, count++) {
		char name[64], path[4096];
		model_name(m->id, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/models/%s.json", fx, name);
		size_t len = 0;
		char *text = slurp(path, &len);
		if (!text)
			fail_msg("model %s has no recorded example %s", m->id, path);
		char doc[4096];
		snprintf(doc, sizeof(doc), "%s/../../docs/schema/%s.md", fx, name);
		FILE *df = fopen(doc, "r");
		if (!df)
			fail_msg("model %s has no field page %s", m->id, doc);
		fclose(df);
		const struct ga_model *found = NULL;
		assert_int_equal(ga_model_detect(ctx, text, len, &found), 0);
		assert_ptr_equal(found, m);
		struct ga_buf w1, w2;
		ga_buf_init(&w1, 0);
		ga_buf_init(&w2, 0);
		write_doc(ctx, m, text, len, &w1);
		write_doc(ctx, m, w1.data, w1.len, &w2);
		assert_true(w1.len > 20);
		if (w1.len != w2.len || memcmp(w1.data, w2.data, w1.len))
			fail_msg("%s: the second write differs from the first", m->id);
		/* the example is what gpuaudit wrote: the first write gives it back byte for byte */
		if (w1.len != len || memcmp(w1.data, text, len))
			fail_msg("%s: writing %s back does not give the file (a member the model lacks?)",
			         m->id, path);
		ga_buf_release(&w1);
		ga_buf_release(&w2);
		free(text);
	}
	/* the ten of docs/schema.md at least; every model added later brings its example */
	assert_true(count >= 10);
	ga_ctx_free(ctx);
}

static void test_refusals(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	const struct ga_model *m = NULL;
	const char *unknown = "{\"schema\": \"gpuaudit.nothing/v9\"}";
	assert_int_equal(ga_model_detect(ctx, unknown, strlen(unknown), &m), -ENOENT);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "gpuaudit.nothing/v9"));
	const char *none = "{\"host\": {}}";
	assert_int_equal(ga_model_detect(ctx, none, strlen(none), &m), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "no \"schema\""));
	const struct ga_model *node = ga_model_find("gpuaudit.node/v1");
	assert_non_null(node);
	const char *fleet = "{\"schema\": \"gpuaudit.fleet/v1\"}";
	void *obj = calloc(1, node->schema->size);
	assert_int_equal(ga_model_read(ctx, node, fleet, strlen(fleet), obj), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "gpuaudit.fleet/v1"));
	ga_model_release(node, obj);
	free(obj);
	const char *bad = "{\"schema\": \"gpuaudit.node/v1\",";
	assert_int_equal(ga_model_read(ctx, node, bad, strlen(bad), NULL), -EBADMSG);
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_every_model),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
