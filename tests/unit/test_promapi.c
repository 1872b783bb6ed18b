/*
 * test_promapi.c - the Prometheus HTTP API client without a server: the
 * streaming response parser fed canned bodies in pieces of every size, the
 * server's errors (status "error", warnings, HTTP error pages, truncation),
 * --match and --at parsing, the form encoding, and the fleet queries
 * (promfleet.c) through a canned transport into the aggregator, including a
 * query that fails after the nodes came (no report).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/fleet.h"
#include "gpuaudit/fleet-analyze.h"
#include "gpuaudit/promapi.h"
#include "gpuaudit/promfleet.h"

struct seen {
	size_t n;
	char names[8][64];
	size_t samples[8];
	double last_v;
};

static int on_series(void *ud, const struct ga_prom_series *s)
{
	struct seen *x = ud;
	if (x->n < 8) {
		const char *h = ga_prom_label(s, "hostname");
		snprintf(x->names[x->n], 64, "%s", h ? h : "");
		x->samples[x->n] = s->n_samples;
	}
	if (s->n_samples)
		x->last_v = s->samples[s->n_samples - 1].v;
	x->n++;
	return 0;
}

/* Parse body in pieces of `piece` bytes; the result, the message in *msg. */
static int parse(const char *body, size_t piece, long status, struct seen *x, char *msg, size_t msgn)
{
	struct ga_ctx *ctx = NULL;
	struct ga_prom_parser *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_prom_parser_new(ctx, on_series, x, &p), 0);
	size_t len = strlen(body);
	int r = 0;
	for (size_t i = 0; i < len; i += piece) /* after an error it only keeps the body's start */
		r = ga_prom_parser_feed(p, body + i, len - i < piece ? len - i : piece);
	r = ga_prom_parser_finish(p, status); /* as ga_prom_query: the HTTP status may say more */
	if (msg)
		snprintf(msg, msgn, "%s", r ? ga_ctx_errmsg(ctx) : "");
	ga_prom_parser_free(p);
	ga_ctx_free(ctx);
	return r;
}

static const char *const VECTOR =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
        "{\"metric\":{\"__name__\":\"gpuaudit_fleet_info\",\"hostname\":\"n1\",\"x\":\"a\\\"b\\\\\"},"
        "\"value\":[1700000000.5,\"1\"]},"
        " {\"metric\":{\"hostname\":\"n2\"},\"value\":[1700000000.5,\"NaN\"]} ,"
        "{\"metric\":{\"hostname\":\"n3\"},\"value\":[1700000000.5,\"+Inf\"]}"
        "]},\"warnings\":[]}\n";

static void test_vector_any_pieces(void **state)
{
	(void)state;
	for (size_t piece = 1; piece < 40; piece++) {
		struct seen x = { 0 };
		assert_int_equal(parse(VECTOR, piece, 200, &x, NULL, 0), 0);
		assert_int_equal(x.n, 3);
		assert_string_equal(x.names[0], "n1");
		assert_string_equal(x.names[2], "n3");
		assert_true(isinf(x.last_v));
	}
}

static void test_matrix_and_series(void **state)
{
	(void)state;
	struct seen x = { 0 };
	assert_int_equal(
	        parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":"
	              "{\"hostname\":\"a\"},\"values\":[[1,\"1\"],[2,\"1\"],[3,\"2.5\"]]}]}}",
	              7, 200, &x, NULL, 0),
	        0);
	assert_int_equal(x.n, 1);
	assert_int_equal(x.samples[0], 3);
	assert_true(x.last_v == 2.5);
	/* /api/v1/series: data is the list of label sets */
	struct seen y = { 0 };
	assert_int_equal(parse("{\"status\":\"success\",\"data\":[{\"__name__\":\"up\",\"hostname\":\"h\"},"
	                       "{\"hostname\":\"i\"}]}",
	                       3, 200, &y, NULL, 0),
	                 0);
	assert_int_equal(y.n, 2);
	assert_string_equal(y.names[1], "i");
	assert_int_equal(y.samples[0], 0);
	/* an empty result is a success */
	struct seen z = { 0 };
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
	                       1, 200, &z, NULL, 0),
	                 0);
	assert_int_equal(z.n, 0);
}

static void test_server_errors(void **state)
{
	(void)state;
	char msg[512];
	struct seen x = { 0 };
	assert_int_equal(
	        parse("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter "
	              "\\\"query\\\": 1:5: parse error\"}",
	              5, 400, &x, msg, sizeof(msg)),
	        -EINVAL);
	assert_non_null(strstr(msg, "bad_data"));
	assert_non_null(strstr(msg, "parse error"));
	assert_non_null(strstr(msg, "HTTP 400"));
	assert_int_equal(
	        parse("{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out in "
	              "expression evaluation\"}",
	              64, 503, &x, msg, sizeof(msg)),
	        -ETIMEDOUT);
	assert_non_null(strstr(msg, "query timed out"));
	assert_int_equal(
	        parse("{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing would "
	              "load too many samples\"}",
	              64, 422, &x, msg, sizeof(msg)),
	        -EPROTO);
	/* an error after series went out: the query fails all the same */
	size_t before = x.n;
	assert_int_equal(parse("{\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,"
	                       "\"1\"]}]},"
	                       "\"status\":\"error\",\"errorType\":\"internal\",\"error\":\"boom\"}",
	                       9, 500, &x, msg, sizeof(msg)),
	                 -EPROTO);
	assert_int_equal(x.n, before + 1);
	/* a partial answer (Thanos with a store down) is not presented as whole */
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]},"
	                       "\"warnings\":[\"No StoreAPIs matched for this query\"]}",
	                       4, 200, &x, msg, sizeof(msg)),
	                 -EPROTO);
	assert_non_null(strstr(msg, "No StoreAPIs"));
	assert_int_equal(parse("<html><body>502 Bad Gateway</body></html>", 8, 502, &x, msg, sizeof(msg)),
	                 -EBADMSG);
	assert_non_null(strstr(msg, "HTTP 502"));
	assert_non_null(strstr(msg, "Bad Gateway"));
	assert_int_equal(
	        parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\"",
	              3, 200, &x, msg, sizeof(msg)),
	        -EBADMSG);
	assert_int_equal(parse("", 1, 200, &x, msg, sizeof(msg)), -EBADMSG);
	assert_int_equal(parse("{\"status\":\"success\"}", 1, 200, &x, msg, sizeof(msg)), -EBADMSG);
}

static void test_bad_grammar(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"{\"status\":\"success\" \"data\":{}}",
		"{\"status\":\"success\",\"data\":{\"result\":[{\"metric\":{}} {\"metric\":{}}]}}",
		"{\"status\":\"success\",\"data\":{\"result\":[{\"metric\":{\"a\":1},\"value\":[1,\"1\"]}]}}",
		"{\"status\":\"success\",\"data\":{\"result\":[{\"metric\":{},\"value\":[1,\"x\"]}]}}",
		"{\"status\":\"success\",\"data\":{\"result\":[{\"metric\":{},\"value\":[1]}]}}",
		"{\"status\":\"success\",\"data\":{\"result\":[]}} trailing",
		"{\"status\":\"success\",\"data\":{\"result\":[tru]}}",
		"{\"status\":\"success\",\"data\":{\"result\":{}}}",
		"[1,2]",
		"{\"status\":\"success\",\"data\":{\"result\":[]},}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct seen x = { 0 };
		int r = parse(bad[i], 2, 200, &x, NULL, 0);
		if (r != -EBADMSG)
			print_error("input %zu: %d\n", i, r);
		assert_int_equal(r, -EBADMSG);
	}
}

static void test_matchers(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	static const char *const good[][2] = {
		{ "{cluster=\"a\"}", "cluster=\"a\"" },
		{ "cluster=\"a\"", "cluster=\"a\"" },
		{ " { a = \"x\" , b=~'h100.*', c!=`z`, d!~\"q\\\"\" } ",
		  "a=\"x\", b=~'h100.*', c!=`z`, d!~\"q\\\"\"" },
		{ "{a=\"1\",}", "a=\"1\"" },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *m = NULL;
		assert_int_equal(ga_prom_matchers_parse(ctx, good[i][0], &m), 0);
		assert_string_equal(m, good[i][1]);
		ga_free(m);
	}
	static const char *const bad[] = { "",
		                           "{}",
		                           "up",
		                           "up{a=\"b\"}",
		                           "{a=b}",
		                           "{a=\"b\"",
		                           "a=\"b\"}",
		                           "{a==\"b\"}",
		                           "{a=\"b\" c=\"d\"}",
		                           "{1a=\"b\"}",
		                           "{a=\"b\"} x",
		                           "{a=\"b\nc\"}" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *m = NULL;
		int r = ga_prom_matchers_parse(ctx, bad[i], &m);
		if (r != -EINVAL)
			print_error("'%s' accepted\n", bad[i]);
		assert_int_equal(r, -EINVAL);
		assert_non_null(strstr(ga_ctx_errmsg(ctx), "--match"));
	}
	ga_ctx_free(ctx);
}

static void test_time_and_form(void **state)
{
	(void)state;
	double t = 0;
	assert_int_equal(ga_prom_time_parse("2026-01-02T03:04:05Z", &t), 0);
	assert_true(t == 1767323045.0);
	assert_int_equal(ga_prom_time_parse("2026-01-02T04:04:05.25+01:00", &t), 0);
	assert_true(t == 1767323045.25);
	assert_int_equal(ga_prom_time_parse("1700000000.5", &t), 0);
	assert_true(t == 1700000000.5);
	assert_int_equal(ga_prom_time_parse("1970-01-01T00:00:00Z", &t), 0);
	assert_true(t == 0);
	static const char *const bad[] = { "",
		                           "now",
		                           "2026-13-01T00:00:00Z",
		                           "2026-01-02T03:04:05",
		                           "-5",
		                           "2026-01-02T03:04:05Zx",
		                           "2026-01-02 03:04" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ga_prom_time_parse(bad[i], &t), -EINVAL);
	struct ga_buf f;
	ga_buf_init(&f, 0);
	assert_int_equal(ga_prom_form_add(&f, "query", "a{b=\"c d\"} or e&f"), 0);
	assert_int_equal(ga_prom_form_add(&f, "time", "1.5"), 0);
	assert_string_equal(f.data, "query=a%7Bb%3D%22c%20d%22%7D%20or%20e%26f&time=1.5");
	ga_buf_release(&f);
}

/* --- the fleet queries through a canned transport ---------------------------------------- */

struct canned {
	int fail_on; /* the Nth request answers a server error (0: none) */
	int requests;
	char last_form[4096];
	char since_form[4096]; /* --since: the instant query that picks the nodes */
};

#define INFO(host, inst, extra)                                                                           \
	"{\"metric\":{\"__name__\":\"gpuaudit_fleet_info\",\"job\":\"gpuaudit\",\"instance\":\"" inst     \
	"\",\"hostname\":\"" host "\",\"class\":\"a100-x8-f4325545\",\"name\":\"a100-x8\",\"hw_sha256\":" \
	"\"f43255451307c1b8\",\"family\":\"c0589502\",\"gpus\":\"8\",\"kernel\":\"5.15\",\"os_id\":"      \
	"\"ubuntu\","                                                                                     \
	"\"os_version\":\"22.04\"" extra "},\"value\":[1700000000,\"1\"]}"

static int canned_post(void *ud, struct ga_ctx *ctx, const char *path, const char *form, long timeout_ms,
                       ga_prom_body_fn on_body, void *body_ud, long *ret_status)
{
	(void)ctx;
	(void)timeout_ms;
	struct canned *c = ud;
	c->requests++;
	snprintf(c->last_form, sizeof(c->last_form), "%s", form);
	const char *body;
	*ret_status = 200;
	if (c->requests == c->fail_on) {
		*ret_status = 422;
		body = "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"many-to-many matching "
		       "not allowed\"}";
	} else if (strcmp(path, "/api/v1/query")) {
		/* --since: n1 upgraded its stack half-way, n9 stopped before the end */
		body = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
		       "{\"metric\":{\"job\":\"gpuaudit\",\"instance\":\"10.0.0.1:9747\",\"hostname\":\"n1\","
		       "\"class\":\"a100-x8-f4325545\",\"stack_sha256\":\"cccc\",\"driver\":\"nvidia 565\"},"
		       "\"values\":[[1699999901,\"1\"],[1700000000,\"1\"]]},"
		       "{\"metric\":{\"job\":\"gpuaudit\",\"instance\":\"10.0.0.1:9747\",\"hostname\":\"n1\","
		       "\"class\":\"a100-x8-f4325545\",\"stack_sha256\":\"aaaa\",\"driver\":\"nvidia 550\"},"
		       "\"values\":[[1699999800,\"1\"],[1699999900,\"1\"]]},"
		       "{\"metric\":{\"job\":\"gpuaudit\",\"instance\":\"10.0.0.9:9747\",\"hostname\":\"n9\","
		       "\"class\":\"a100-x8-f4325545\",\"stack_sha256\":\"aaaa\"},"
		       "\"values\":[[1699999800,\"1\"],[1699999850,\"1\"]]},"
		       /* the same instance in another job: not one of the nodes asked for */
		       "{\"metric\":{\"job\":\"other\",\"instance\":\"10.0.0.1:9747\",\"hostname\":\"n1\","
		       "\"class\":\"a100-x8-f4325545\",\"stack_sha256\":\"dddd\"},"
		       "\"values\":[[1699999800,\"1\"],[1699999850,\"1\"]]}]}}";
	} else if (strstr(form, "gpuaudit_findings")) {
		body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		       "{\"metric\":{\"__name__\":\"gpuaudit_findings\",\"job\":\"gpuaudit\",\"instance\":"
		       "\"10.0.0.3:9747\","
		       "\"code\":\"GA-LINK-DEGRADED\",\"severity\":\"warning\"},\"value\":[1700000000,\"2\"]}"
		       "]}}";
	} else if (strstr(form, "count_over_time")) {
		/* --since, first: which nodes changed or stopped */
		snprintf(c->since_form, sizeof(c->since_form), "%s", form);
		body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		       "{\"metric\":{\"job\":\"gpuaudit\",\"instance\":\"10.0.0.1:9747\"},\"value\":["
		       "1700000000,\"2\"]},"
		       "{\"metric\":{\"job\":\"gpuaudit\",\"instance\":\"10.0.0.9:9747\"},\"value\":["
		       "1700000000,\"1\"]}]}}";
	} else if (strstr(form, "unless")) {
		body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		       "{\"metric\":{\"job\":\"gpuaudit\",\"instance\":\"10.0.0.9:9747\"},\"value\":["
		       "1700000000,\"1\"]}]}}";
	} else {
		body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" INFO(
		        "n1", "10.0.0.1:9747",
		        ",\"stack_sha256\":\"aaaa\",\"driver\":\"nvidia 550.135 proprietary\"") "," INFO("n2",
		                                                                                         "10."
		                                                                                         "0."
		                                                                                         "0."
		                                                                                         "2:"
		                                                                                         "974"
		                                                                                         "7",
		                                                                                         ",\""
		                                                                                         "sta"
		                                                                                         "ck_"
		                                                                                         "sha"
		                                                                                         "256"
		                                                                                         "\":"
		                                                                                         "\"a"
		                                                                                         "aaa"
		                                                                                         "\","
		                                                                                         "\"d"
		                                                                                         "riv"
		                                                                                         "er"
		                                                                                         "\":"
		                                                                                         "\"n"
		                                                                                         "vid"
		                                                                                         "ia "
		                                                                                         "550"
		                                                                                         ".13"
		                                                                                         "5 "
		                                                                                         "pro"
		                                                                                         "pri"
		                                                                                         "eta"
		                                                                                         "ry"
		                                                                                         "\"") "," INFO("n3",
		                                                                                                        "10.0.0.3:9747",
		                                                                                                        ",\"stack_sha256\":\"bbbb\",\"driver\":\"nvidia 535.183.01 proprietary\"") "]}}";
	}
	/* in pieces of 5 bytes, as a network would */
	size_t len = strlen(body);
	for (size_t i = 0; i < len; i += 5) {
		int r = on_body(body_ud, body + i, len - i < 5 ? len - i : 5);
		if (r)
			return r;
	}
	return 0;
}

/* The fleet through the canned transport (with --since when since_s > 0); may fail anywhere (-ENOMEM). */
static int fleet_try(struct canned *c, double since_s, struct ga_fleet_report **ret, char *msg, size_t msgn)
{
	struct ga_ctx *ctx = NULL;
	struct ga_fleet *f = NULL;
	struct ga_fleet_opts fo = { .max_drift = 10 };
	int r = ga_ctx_new(&ctx);
	if (r == 0)
		r = ga_fleet_new(&fo, &f);
	if (r < 0)
		goto out;
	struct ga_prom_transport t = { .ud = c, .post = canned_post };
	char *m[1] = { "cluster=\"a\"" };
	struct ga_prom_fleet_opts o = { .t = &t, .matchers = m, .n_matchers = 1 };
	GA_SET(o.at_s, 1700000000.0);
	if (since_s > 0)
		GA_SET(o.since_s, since_s);
	struct ga_prom_fleet_sink sink;
	ga_fleet_prom_sink(f, &sink);
	double at = 0;
	r = ga_prom_fleet_read(ctx, &o, &sink, &at);
	if (msg)
		snprintf(msg, msgn, "%s", r ? ga_ctx_errmsg(ctx) : "");
	if (r == 0) {
		assert_true(at == 1700000000.0);
		r = ga_fleet_set_origin(f, "http://p", o.at_s, o.since_s);
	}
	if (r == 0)
		r = ga_fleet_report(f, ret);
out:
	ga_fleet_free(f);
	ga_ctx_free(ctx);
	return r;
}

static int fleet_from_canned(struct canned *c, struct ga_fleet_report **ret, char *msg, size_t msgn)
{
	return fleet_try(c, 0, ret, msg, msgn);
}

static void test_fleet_history(void **state)
{
	(void)state;
	struct canned c = { 0 };
	struct ga_fleet_report *rep = NULL;
	assert_int_equal(fleet_try(&c, 200, &rep, NULL, 0), 0);
	assert_int_equal(c.requests, 5);
	/* the range counted by a subquery at the step: [200000ms:1000ms] @ 1700000000.000 */
	assert_non_null(strstr(c.since_form, "%5B200000ms%3A1000ms%5D%20%40%201700000000.000"));
	/* and the series at the range query's start and end, off the subquery's aligned steps */
	assert_non_null(
	        strstr(c.since_form, "gpuaudit_fleet_info%7Bcluster%3D%22a%22%7D%20%40%201699999800.000"));
	/* then the range query over those nodes' instances only, regex-escaped */
	assert_null(strstr(c.last_form, "count_over_time"));
	assert_non_null(strstr(c.last_form, "step=1.000"));
	assert_non_null(strstr(c.last_form, "10%5C%5C.0%5C%5C.0%5C%5C.9%3A9747"));
	assert_non_null(strstr(c.last_form, "10%5C%5C.0%5C%5C.0%5C%5C.1%3A9747"));
	assert_int_equal(rep->history_nodes.v, 2);
	assert_int_equal(rep->n_history, 2);
	const struct ga_fleet_history *h = &rep->history[0];
	assert_string_equal(h->host, "n1");
	assert_string_equal(h->status, "changed");
	assert_int_equal(h->n_states, 2);
	assert_string_equal(h->states[0].stack_sha256, "aaaa");
	assert_string_equal(h->states[1].stack_sha256, "cccc");
	assert_true(h->states[1].first_seen_s.v == 1699999901);
	assert_true(h->last_seen_s.v == 1700000000);
	h = &rep->history[1];
	assert_string_equal(h->host, "n9");
	assert_string_equal(h->status, "stopped");
	assert_true(h->last_seen_s.v == 1699999850);
	assert_string_equal(rep->prometheus, "http://p");
	/* and it reads back through the model */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_fleet_write_json(rep, NULL, &b), 0);
	struct ga_fleet_report *back = NULL;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_fleet_report_from_json(ctx, b.data, b.len, &back), 0);
	assert_int_equal(back->n_history, 2);
	assert_true(back->since_s.v == 200);
	ga_fleet_report_free(back);
	ga_ctx_free(ctx);
	ga_buf_release(&b);
	ga_fleet_report_free(rep);
}

/* Every allocation failing in turn: -ENOMEM or success, never a crash or a leak (ASan). */
static void test_alloc_failures(void **state)
{
	(void)state;
	int ok = 0;
	for (long k = 0; k < 100000 && !ok; k++) {
		struct canned c = { 0 };
		struct ga_fleet_report *rep = NULL;
		ga_alloc_fail_after(k);
		int r = fleet_try(&c, 200, &rep, NULL, 0);
		ga_alloc_fail_after(-1);
		if (r != 0 && r != -ENOMEM)
			print_error("allocation %ld: %d\n", k, r);
		assert_true(r == 0 || r == -ENOMEM);
		ok = r == 0;
		ga_fleet_report_free(rep);
	}
	assert_true(ok);
}

static void test_fleet_canned(void **state)
{
	(void)state;
	struct canned c = { 0 };
	struct ga_fleet_report *rep = NULL;
	assert_int_equal(fleet_from_canned(&c, &rep, NULL, 0), 0);
	assert_int_equal(c.requests, 3);
	assert_int_equal(rep->nodes.v, 3);
	assert_int_equal(rep->n_classes, 1);
	assert_string_equal(rep->classes[0].id, "a100-x8-f4325545");
	assert_int_equal(rep->classes[0].n_stacks, 2);
	assert_string_equal(rep->classes[0].stacks[0].stack_sha256, "aaaa");
	assert_int_equal(rep->classes[0].stacks[0].nodes.v, 2);
	assert_string_equal(rep->classes[0].stacks[0].os, "ubuntu 22.04");
	/* n3: off the majority stack, and its link finding joined by job and instance */
	assert_int_equal(rep->drift_nodes.v, 1);
	assert_string_equal(rep->drift[0].host, "n3");
	assert_string_equal(rep->drift[0].source, "10.0.0.3:9747");
	assert_int_equal(rep->drift[0].reasons.n, 2);
	assert_string_equal(rep->drift[0].reasons.v[0], "stack");
	assert_string_equal(rep->drift[0].reasons.v[1], "link");
	/* the node without gpuaudit_fleet_info is skipped by name */
	assert_int_equal(rep->skipped.v, 1);
	assert_string_equal(rep->skipped_reports[0].source, "10.0.0.9:9747");
	assert_null(rep->policy);
	/* the --match selector went into the query, the time with it */
	assert_non_null(strstr(c.last_form, "cluster%3D%22a%22"));
	assert_non_null(strstr(c.last_form, "time=1700000000.000"));
	ga_fleet_report_free(rep);
	/* any query failing, the nodes' included: an error with the server's message, no report */
	for (int n = 1; n <= 3; n++) {
		struct canned d = { .fail_on = n };
		char msg[512];
		rep = NULL;
		assert_int_equal(fleet_from_canned(&d, &rep, msg, sizeof(msg)), -EPROTO);
		assert_null(rep);
		assert_non_null(strstr(msg, "many-to-many matching not allowed"));
		assert_non_null(strstr(msg, "execution"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector_any_pieces), cmocka_unit_test(test_matrix_and_series),
		cmocka_unit_test(test_server_errors),     cmocka_unit_test(test_bad_grammar),
		cmocka_unit_test(test_matchers),          cmocka_unit_test(test_time_and_form),
		cmocka_unit_test(test_fleet_canned),      cmocka_unit_test(test_fleet_history),
		cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
