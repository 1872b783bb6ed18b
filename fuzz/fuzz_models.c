/*
 * fuzz_models.c - every registered model's reader (ga_model_read) on
 * arbitrary bytes: byte 0 picks the model (modulo their count), the rest is
 * the document. An accepted document writes back as JSON (compact and
 * pretty), the reader accepts its own output, and write -> read -> write
 * gives the same bytes (the sample model's rounding settles in one write).
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/model.h"

static struct ga_ctx *ctx;

static void *read_doc(const struct ga_model *m, const char *text, size_t len, int *r)
{
	void *obj = calloc(1, m->schema->size);
	FUZZ_CHECK(obj != NULL);
	*r = ga_model_read(ctx, m, text, len, obj);
	return obj;
}

static void free_doc(const struct ga_model *m, void *obj)
{
	ga_model_release(m, obj);
	free(obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	if (size < 1)
		return 0;
	size_t n = 0;
	while (ga_models[n].id)
		n++;
	const struct ga_model *m = &ga_models[data[0] % n];
	int r;
	void *obj = read_doc(m, (const char *)data + 1, size - 1, &r);
	if (r < 0) {
		FUZZ_CHECK(ga_ctx_errmsg(ctx)[0] != '\0');
		free_doc(m, obj);
		return 0;
	}
	struct ga_buf pretty, w1, w2;
	ga_buf_init(&pretty, 0);
	ga_buf_init(&w1, 0);
	ga_buf_init(&w2, 0);
	FUZZ_CHECK(ga_model_write(m, obj, &pretty, true) == 0);
	FUZZ_CHECK(ga_model_write(m, obj, &w1, false) == 0);
	fuzz_check_json(pretty.data, pretty.len, 0);
	fuzz_check_json(w1.data, w1.len, 0);
	free_doc(m, obj);
	obj = read_doc(m, w1.data, w1.len, &r);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(ga_model_write(m, obj, &w2, false) == 0);
	free_doc(m, obj);
	/* once more from w2: rounding and merged keys are settled after one write */
	struct ga_buf w3;
	ga_buf_init(&w3, 0);
	obj = read_doc(m, w2.data, w2.len, &r);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(ga_model_write(m, obj, &w3, false) == 0);
	free_doc(m, obj);
	FUZZ_CHECK(w3.len == w2.len && memcmp(w3.data, w2.data, w2.len) == 0);
	ga_buf_release(&pretty);
	ga_buf_release(&w1);
	ga_buf_release(&w2);
	ga_buf_release(&w3);
	return 0;
}
