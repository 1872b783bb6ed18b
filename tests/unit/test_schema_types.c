/*
 * test_schema_types.c - the schema field types the node-side documents
 * brought (schema.h): NUM (rounded, integral values as integers), CHARS
 * (fixed buffers, "" as null, too long refused), OBJN (an inline object that
 * is null without its presence bit) and MKV (repeated keys as one array);
 * the bench-side ones: DBLV (an array of numbers), TUPLE arrays ([[v, c]]),
 * GA_FF_OMIT (a member left out when absent) and GROUP (members written
 * inline when present); and the fast reader on the sample table agreeing
 * with the slow one.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/schema.h"

struct inner {
	struct ga_odbl v;
	struct ga_ou64 n;
};
struct doc {
	struct ga_odbl pct, t;
	char name[8];
	struct inner opt;
	struct ga_kv *caps;
	size_t n_caps;
};

static const struct ga_field inner_f[] = { GA_FIELD_NUM(struct inner, v, 100.0),
	                                   GA_FIELD(struct inner, n, GA_F_U64) };
static const struct ga_schema inner_s = { "inner", sizeof(struct inner), inner_f, 2 };
static const struct ga_field doc_f[] = {
	GA_FIELD_NUM(struct doc, pct, 100.0),
	GA_FIELD_NUM(struct doc, t, 1000.0),
	GA_FIELD_CHARS(struct doc, name),
	GA_FIELD_OBJN(struct doc, opt, inner_s, offsetof(struct inner, v.set)),
	GA_FIELD_MKV(struct doc, caps),
};
static const struct ga_schema doc_s = { "doc", sizeof(struct doc), doc_f, 5 };

static void write_doc(const struct doc *d, struct ga_buf *b)
{
	struct ga_json w;
	ga_buf_reset(b);
	ga_json_init(&w, b, false);
	ga_schema_write(&w, &doc_s, d);
	assert_int_equal(ga_json_finish(&w), 0);
}

static int read_doc(struct ga_ctx *ctx, const char *text, struct doc *d)
{
	memset(d, 0, sizeof(*d));
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);
	assert_non_null(root);
	int r = ga_schema_read(ctx, &doc_s, root, d);
	json_decref(root);
	return r;
}

static void test_write(void **state)
{
	(void)state;
	struct ga_kv caps[] = { { "xid", "79" }, { "pci", "0000:1b:00.0" }, { "xid", "48" } };
	struct doc d = { 0 };
	GA_SET(d.pct, 98.0);
	GA_SET(d.t, 0.12345);
	memcpy(d.name, "cpu0", 5);
	d.caps = caps;
	d.n_caps = 3;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	write_doc(&d, &b);
	assert_string_equal(b.data, "{\"pct\":98,\"t\":0.123,\"name\":\"cpu0\",\"opt\":null,"
	                            "\"caps\":{\"xid\":[\"79\",\"48\"],\"pci\":\"0000:1b:00.0\"}}");
	GA_SET(d.pct, 1.005e16); /* past rounding: written as it is */
	d.name[0] = '\0';
	GA_SET(d.opt.v, 12.344);
	d.n_caps = 0;
	write_doc(&d, &b);
	assert_string_equal(b.data, "{\"pct\":1.005e+16,\"t\":0.123,\"name\":null,"
	                            "\"opt\":{\"v\":12.34,\"n\":null},\"caps\":{}}");
	ga_buf_release(&b);
}

static void test_read(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct doc d;
	assert_int_equal(read_doc(ctx,
	                          "{\"pct\":1.5,\"name\":\"sda\",\"opt\":{\"v\":3},"
	                          "\"caps\":{\"a\":[\"x\",\"y\"],\"b\":\"z\"}}",
	                          &d),
	                 0);
	assert_true(d.pct.set && d.pct.v == 1.5);
	assert_false(d.t.set);
	assert_string_equal(d.name, "sda");
	assert_true(d.opt.v.set && d.opt.v.v == 3);
	assert_int_equal(d.n_caps, 3);
	assert_string_equal(d.caps[1].key, "a");
	assert_string_equal(d.caps[1].value, "y");
	assert_string_equal(d.caps[2].key, "b");
	ga_schema_release(&doc_s, &d);
	/* a name longer than its buffer (7 bytes and the NUL) is refused, not cut */
	assert_int_equal(read_doc(ctx, "{\"name\":\"12345678\"}", &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "name: expected short string"));
	ga_schema_release(&doc_s, &d);
	assert_int_equal(read_doc(ctx, "{\"caps\":{\"a\":[1]}}", &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "caps: expected object of strings"));
	ga_schema_release(&doc_s, &d);
	ga_ctx_free(ctx);
}

/* The recorded sample read by the fast path writes back as the file (what the slow path gives). */
static void test_fast_sample(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	char path[4096];
	snprintf(path, sizeof(path), "%s/models/sample.json", fx);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof(text), f);
	fclose(f);
	assert_true(len > 100 && len < sizeof(text));
	struct ga_sample_doc d;
	memset(&d, 0, sizeof(d));
	assert_int_equal(ga_schema_read_fast(&ga_sample_doc_schema, text, len, &d), 0);
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, true);
	ga_schema_write(&w, &ga_sample_doc_schema, &d);
	assert_int_equal(ga_json_finish(&w), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, text, len);
	ga_buf_release(&b);
	ga_sample_doc_release(&d);
	/* a name too long for its buffer: the fast path declines, leaving d zeroed */
	static const char longname[] = "{\"disks\":[{\"name\":\"0123456789012345678901234567890123456789"
	                               "012345678901234567890123\"}]}";
	assert_int_equal(ga_schema_read_fast(&ga_sample_doc_schema, longname, sizeof(longname) - 1, &d), 1);
	assert_int_equal(d.n_disks, 0);
}

/* ---- DBLV, TUPLE, OMIT, GROUP ---- */
struct pair {
	struct ga_oi64 v, c;
};
struct part {
	bool set;
	struct ga_ou64 first;
	char *note;
};
struct bdoc {
	char *kind;
	struct part a;
	struct ga_dblv xs;
	struct pair *buckets;
	size_t n_buckets;
	struct ga_odbl max;
	char *opt;
	struct inner *sub;
	struct ga_strv tags;
};

static const struct ga_field pair_f[] = { GA_FIELD(struct pair, v, GA_F_I64),
	                                  GA_FIELD(struct pair, c, GA_F_I64) };
static const struct ga_schema pair_s = { "pair", sizeof(struct pair), pair_f, 2 };
static const struct ga_field part_f[] = { GA_FIELD(struct part, first, GA_F_U64),
	                                  GA_FIELD(struct part, note, GA_F_STR) };
static const struct ga_schema part_s = { "part", sizeof(struct part), part_f, 2 };
static const struct ga_field bdoc_f[] = {
	GA_FIELD(struct bdoc, kind, GA_F_STR),
	GA_FIELD_GROUP(struct bdoc, a, part_s, offsetof(struct part, set)),
	GA_FIELD_FL(struct bdoc, xs, GA_F_DBLV, GA_FF_OMIT),
	GA_FIELD_TUPLES(struct bdoc, buckets, pair_s),
	GA_FIELD_OMIT(struct bdoc, max, GA_F_DBL),
	GA_FIELD_OMIT(struct bdoc, opt, GA_F_STR),
	GA_FIELD_PTR_OMIT(struct bdoc, sub, inner_s),
	GA_FIELD_OMIT(struct bdoc, tags, GA_F_STRV),
};
static const struct ga_schema bdoc_s = { "bdoc", sizeof(struct bdoc), bdoc_f, 8 };

static void write_bdoc(const struct bdoc *d, struct ga_buf *b)
{
	struct ga_json w;
	ga_buf_reset(b);
	ga_json_init(&w, b, false);
	ga_schema_write(&w, &bdoc_s, d);
	assert_int_equal(ga_json_finish(&w), 0);
}

static int read_bdoc(struct ga_ctx *ctx, const char *text, struct bdoc *d)
{
	memset(d, 0, sizeof(*d));
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(root);
	int r = ga_schema_read(ctx, &bdoc_s, root, d);
	json_decref(root);
	return r;
}

static void test_bench_types_write(void **state)
{
	(void)state;
	double xs[] = { 1.5, 2, 0.1, NAN, 1e-9 };
	struct pair bk[] = { { { 3, true }, { 7, true } }, { { 1024, true }, { 1, true } } };
	struct bdoc d = { 0 };
	d.kind = "x";
	d.xs.v = xs;
	d.xs.n = 5;
	d.buckets = bk;
	d.n_buckets = 2;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	/* absent OMIT members and an absent group are left out; DBLV as ga_json_dbl writes */
	write_bdoc(&d, &b);
	assert_string_equal(b.data,
	                    "{\"kind\":\"x\",\"xs\":[1.5,2,0.1,null,1e-09],\"buckets\":[[3,7],[1024,1]]}");
	d.a.set = true;
	GA_SET(d.a.first, 4);
	GA_SET(d.max, 2.5);
	d.opt = "o";
	struct inner in = { 0 };
	d.sub = &in;
	char *tv[] = { "t", NULL };
	d.tags.v = tv;
	d.tags.n = 1;
	d.xs.n = 0;
	d.n_buckets = 0;
	/* a present group's members inline (its null ones as null); empty arrays kept without OMIT */
	write_bdoc(&d, &b);
	assert_string_equal(b.data,
	                    "{\"kind\":\"x\",\"first\":4,\"note\":null,\"xs\":[],\"buckets\":[],"
	                    "\"max\":2.5,\"opt\":\"o\",\"sub\":{\"v\":null,\"n\":null},\"tags\":[\"t\"]}");
	/* an OMIT DBLV is absent only without v: [] above, nothing here */
	d.xs.v = NULL;
	d.a.set = false;
	d.sub = NULL;
	write_bdoc(&d, &b);
	assert_string_equal(b.data,
	                    "{\"kind\":\"x\",\"buckets\":[],\"max\":2.5,\"opt\":\"o\",\"tags\":[\"t\"]}");
	ga_buf_release(&b);
}

static void test_bench_types_read(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct bdoc d;
	const char *text = "{\"kind\":\"x\",\"first\":4,\"note\":\"n\",\"xs\":[1.5,2,null],"
	                   "\"buckets\":[[3,7],[1024,1]],\"max\":2.5,\"tags\":[\"t\"]}";
	assert_int_equal(read_bdoc(ctx, text, &d), 0);
	assert_true(d.a.set && d.a.first.set && d.a.first.v == 4);
	assert_string_equal(d.a.note, "n");
	assert_int_equal(d.xs.n, 3);
	assert_true(d.xs.v[0] == 1.5 && d.xs.v[1] == 2 && isnan(d.xs.v[2]));
	assert_int_equal(d.n_buckets, 2);
	assert_true(d.buckets[1].v.v == 1024 && d.buckets[1].c.v == 1);
	assert_true(d.max.set && d.max.v == 2.5);
	assert_null(d.opt);
	assert_null(d.sub);
	/* read -> write gives the text back */
	write_bdoc(&d, &b);
	assert_string_equal(b.data, text);
	ga_schema_release(&bdoc_s, &d);
	assert_null(d.xs.v);
	assert_null(d.buckets);
	/* [] read is present (v non-NULL) */
	assert_int_equal(read_bdoc(ctx, "{\"xs\":[]}", &d), 0);
	assert_non_null(d.xs.v);
	assert_int_equal(d.xs.n, 0);
	ga_schema_release(&bdoc_s, &d);
	/* any of its members makes the group present; none, no group */
	assert_int_equal(read_bdoc(ctx, "{\"note\":\"n\"}", &d), 0);
	assert_true(d.a.set);
	assert_false(d.a.first.set);
	ga_schema_release(&bdoc_s, &d);
	assert_int_equal(read_bdoc(ctx, "{\"kind\":\"k\"}", &d), 0);
	assert_false(d.a.set);
	ga_schema_release(&bdoc_s, &d);
	/* wrong shapes name the path */
	assert_int_equal(read_bdoc(ctx, "{\"xs\":[1,\"a\"]}", &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "xs: expected array of numbers"));
	ga_schema_release(&bdoc_s, &d);
	assert_int_equal(read_bdoc(ctx, "{\"buckets\":[[1,2],[3]]}", &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "buckets[1]: expected array of 2 values"));
	ga_schema_release(&bdoc_s, &d);
	assert_int_equal(read_bdoc(ctx, "{\"buckets\":[[1,2.5]]}", &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "buckets[0].c: expected integer"));
	ga_schema_release(&bdoc_s, &d);
	assert_int_equal(read_bdoc(ctx, "{\"first\":-1}", &d), -EBADMSG);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "first: expected non-negative integer"));
	ga_schema_release(&bdoc_s, &d);
	/* the fast reader declines DBLV, tuples and group members (the slow path reads them) */
	memset(&d, 0, sizeof(d));
	assert_int_equal(ga_schema_read_fast(&bdoc_s, text, strlen(text), &d), 1);
	assert_null(d.kind);
	assert_int_equal(ga_schema_read_fast(&bdoc_s, "{\"first\":1}", 11, &d), 1);
	assert_int_equal(ga_schema_read_fast(&bdoc_s, "{\"kind\":\"k\",\"max\":1}", 20, &d), 0);
	assert_string_equal(d.kind, "k");
	ga_schema_release(&bdoc_s, &d);
	ga_buf_release(&b);
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_fast_sample),
		cmocka_unit_test(test_bench_types_write),
		cmocka_unit_test(test_bench_types_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
