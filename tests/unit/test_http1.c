/*
 * test_http1.c - the native HTTP/1.1 engine's pieces without sockets
 * (lib/bench/http1.c): URL split, the request bytes, and responses fed to the
 * parser glue whole, byte by byte and with a close.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/http1.h"

static struct ga_ctx *ctx;

static int setup(void **state)
{
	(void)state;
	return ga_ctx_new(&ctx) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	ga_ctx_free(ctx);
	return 0;
}

static void test_url(void **state)
{
	(void)state;
	struct h1_url u;
	assert_int_equal(ga_h1_url_split(ctx, "http://127.0.0.1:8080/v1/completions?x=1#frag", &u), 0);
	assert_string_equal(u.host, "127.0.0.1");
	assert_string_equal(u.port, "8080");
	assert_string_equal(u.authority, "127.0.0.1:8080");
	assert_string_equal(u.target, "/v1/completions?x=1");
	ga_h1_url_release(&u);
	assert_int_equal(ga_h1_url_split(ctx, "http://example.org", &u), 0);
	assert_string_equal(u.host, "example.org");
	assert_string_equal(u.port, "80");
	assert_string_equal(u.authority, "example.org");
	assert_string_equal(u.target, "/");
	ga_h1_url_release(&u);
	assert_int_equal(ga_h1_url_split(ctx, "http://[::1]:9000/x", &u), 0);
	assert_string_equal(u.host, "::1");
	assert_string_equal(u.authority, "[::1]:9000");
	ga_h1_url_release(&u);
	assert_int_equal(ga_h1_url_split(ctx, "http://[::1]/", &u), 0);
	assert_string_equal(u.authority, "[::1]");
	assert_string_equal(u.port, "80");
	ga_h1_url_release(&u);
	assert_int_equal(ga_h1_url_split(ctx, "http://host?q", &u), 0);
	assert_string_equal(u.target, "/?q");
	ga_h1_url_release(&u);
	assert_int_equal(ga_h1_url_split(ctx, "https://example.org/", &u), -EINVAL);
	assert_int_equal(ga_h1_url_split(ctx, "http://u:p@example.org/", &u), -EINVAL);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "credentials"));
	assert_int_equal(ga_h1_url_split(ctx, "http://", &u), -EINVAL);
	assert_int_equal(ga_h1_url_split(ctx, "http://a b/", &u), -EINVAL);
}

static void build(const struct ga_http_opts *o, struct ga_buf *b, int want)
{
	struct h1_url u;
	assert_int_equal(ga_h1_url_split(ctx, o->url, &u), 0);
	assert_int_equal(ga_h1_request_build(ctx, o, &u, b), want);
	ga_h1_url_release(&u);
}

static void test_request(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct ga_http_opts o = { .url = "http://10.0.0.5:8000/health" };
	build(&o, &b, 0);
	assert_string_equal(b.data, "GET /health HTTP/1.1\r\nHost: 10.0.0.5:8000\r\nAccept: */*\r\n\r\n");
	/* a body: POST, a default Content-Type (libcurl's), Content-Length, the body bytes */
	static const char body[] = { '{', '}', '\0', 'x' };
	const char *h1[] = { "Content-Type: application/json", "X-Trace: 1" };
	o.body = body;
	o.body_len = sizeof(body);
	o.headers = h1;
	o.n_headers = 2;
	build(&o, &b, 0);
	static const char want[] = "POST /health HTTP/1.1\r\nHost: 10.0.0.5:8000\r\nAccept: */*\r\n"
	                           "Content-Length: 4\r\nContent-Type: application/json\r\nX-Trace: 1\r\n\r\n"
	                           "{}\0x";
	assert_int_equal(b.len, sizeof(want) - 1);
	assert_memory_equal(b.data, want, sizeof(want) - 1);
	o.body = NULL;
	o.body_len = 0;
	/* a header named by the user replaces the default; "Name:" removes it */
	const char *h2[] = { "host: other", "Accept:", "X-Empty:   " };
	o.headers = h2;
	o.n_headers = 3;
	o.method = "HEAD";
	build(&o, &b, 0);
	assert_string_equal(b.data, "HEAD /health HTTP/1.1\r\nhost: other\r\n\r\n");
	/* no header injection, no odd methods */
	const char *h3[] = { "X-A: 1\r\nX-B: 2" };
	o.headers = h3;
	o.n_headers = 1;
	build(&o, &b, -EINVAL);
	o.n_headers = 0;
	o.method = "GET /x";
	build(&o, &b, -EINVAL);
	ga_buf_release(&b);
}

/* Feed s whole or byte by byte; then a close when not complete. */
static void feed(struct h1_resp *r, const char *s, size_t n, bool bytewise, bool head, ssize_t *ret_used)
{
	ga_h1_resp_begin(r, head);
	ssize_t used = 0;
	if (bytewise) {
		for (size_t i = 0; i < n && !r->complete; i++) {
			ssize_t k = ga_h1_resp_feed(r, s + i, 1);
			if (k < 0) {
				used = k;
				break;
			}
			used += k;
		}
	} else {
		used = ga_h1_resp_feed(r, s, n);
	}
	if (used >= 0 && !r->complete) {
		ssize_t k = ga_h1_resp_feed(r, s + n, 0);
		if (k < 0)
			used = k;
	}
	*ret_used = used;
}

#define S(x) x, sizeof(x) - 1

static void test_responses(void **state)
{
	(void)state;
	struct h1_resp r;
	ssize_t used;
	for (int bw = 0; bw < 2; bw++) {
		static const char cl[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
		feed(&r, S(cl), bw, false, &used);
		assert_true(r.complete);
		assert_int_equal(used, sizeof(cl) - 1);
		assert_int_equal(r.status, 200);
		assert_int_equal(r.version, 11);
		assert_true(r.keep_alive);
		assert_int_equal(r.body_bytes, 3);

		static const char chunked[] = "HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n"
		                              "2\r\nno\r\na;ext=1\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
		feed(&r, S(chunked), bw, false, &used);
		assert_true(r.complete);
		assert_int_equal(used, sizeof(chunked) - 1);
		assert_int_equal(r.status, 503);
		assert_int_equal(r.body_bytes, 12);

		/* HEAD: a Content-Length and no body */
		static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
		feed(&r, S(head), bw, true, &used);
		assert_true(r.complete);
		assert_int_equal(r.body_bytes, 0);
		assert_true(r.keep_alive);

		/* 100 Continue, then the answer; 204 and 304 have no body */
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
		feed(&r, S(cont), bw, false, &used);
		assert_true(r.complete);
		assert_int_equal(r.status, 204);
		assert_int_equal(used, sizeof(cont) - 1);
		static const char nm[] = "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n";
		feed(&r, S(nm), bw, false, &used);
		assert_true(r.complete);
		assert_int_equal(r.status, 304);

		/* Connection: close, and HTTP/1.0 without keep-alive: the connection ends */
		static const char close_[] =
		        "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
		feed(&r, S(close_), bw, false, &used);
		assert_true(r.complete);
		assert_false(r.keep_alive);
		static const char h10[] = "HTTP/1.0 200 OK\r\n\r\nuntil the close";
		feed(&r, S(h10), bw, false, &used);
		assert_true(r.complete);
		assert_false(r.keep_alive);
		assert_int_equal(r.version, 10);
		assert_int_equal(r.body_bytes, 15);
		static const char h10ka[] =
		        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx";
		feed(&r, S(h10ka), bw, false, &used);
		assert_true(r.complete);
		assert_true(r.keep_alive);

		/* bytes after the response are not used (the engine closes the connection) */
		static const char extra[] =
		        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n";
		feed(&r, S(extra), bw, false, &used);
		assert_true(r.complete);
		assert_int_equal(used, sizeof(extra) - 1 - strlen("HTTP/1.1 200 OK\r\n"));

		/* truncated by a close, and not HTTP */
		static const char trunc[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort";
		feed(&r, S(trunc), bw, false, &used);
		assert_false(r.complete);
		assert_int_equal(used, -EPROTO);
		assert_non_null(r.error);
		static const char junk[] = "SMTP ready\r\n\r\n";
		feed(&r, S(junk), bw, false, &used);
		assert_false(r.complete);
		assert_int_equal(used, -EPROTO);
	}
	/* a close before any byte is not an error of the parser: the engine decides (retry) */
	ga_h1_resp_begin(&r, false);
	assert_int_equal(ga_h1_resp_feed(&r, "", 0), 0);
	assert_false(r.complete);
	assert_false(r.any_byte);
	assert_null(r.error);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_responses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
