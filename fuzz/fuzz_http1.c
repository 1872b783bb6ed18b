/*
 * fuzz_http1.c - the native HTTP/1.1 engine's parsing glue (lib/bench/http1.c)
 * on arbitrary bytes.
 *
 * Input: byte 0 selects the mode and byte 1 the piece size; the rest is the
 * subject.
 *  - mode & 0x80: the subject is a URL: ga_h1_url_split, then ga_h1_request_build;
 *    an accepted URL gives a request line "GET <target> HTTP/1.1" and a
 *    request that ends in an empty line.
 *  - otherwise: the subject is what a server sent (mode & 1: in answer to
 *    HEAD). It is fed to ga_h1_resp_feed whole, and again in pieces of 1 + byte 1
 *    bytes (then the close): both must reach the same end (complete or not,
 *    status, version, keep-alive, body bytes, bytes used, error or not), and
 *    no feed may claim more bytes than it was given.
 */
#include <errno.h>
#include <string.h>

#include "bench/http1.h"
#include "fuzz.h"

struct outcome {
	bool complete, keep_alive, error;
	int status, version;
	uint64_t body_bytes;
	size_t used;
};

static struct outcome run(const char *p, size_t n, size_t piece, bool head)
{
	struct h1_resp r;
	struct outcome o;
	memset(&o, 0, sizeof(o));
	ga_h1_resp_begin(&r, head);
	size_t off = 0;
	while (off < n && !r.complete) {
		size_t k = n - off < piece ? n - off : piece;
		ssize_t used = ga_h1_resp_feed(&r, p + off, k);
		if (used < 0) {
			FUZZ_CHECK(used == -EPROTO && r.error);
			o.error = true;
			break;
		}
		FUZZ_CHECK((size_t)used <= k);
		FUZZ_CHECK(r.complete || (size_t)used == k);
		o.used += (size_t)used;
		off += k;
	}
	if (!o.error && !r.complete) {
		/* the server closes */
		ssize_t used = ga_h1_resp_feed(&r, p + n, 0);
		FUZZ_CHECK(used == 0 || used == -EPROTO);
		if (used < 0)
			o.error = true;
		FUZZ_CHECK(!r.complete || !o.error);
	}
	o.complete = r.complete;
	if (r.complete) {
		FUZZ_CHECK(r.headers_done && r.any_byte);
		FUZZ_CHECK(!r.head || r.body_bytes == 0);
		o.keep_alive = r.keep_alive;
		o.status = r.status;
		o.version = r.version;
		o.body_bytes = r.body_bytes;
		FUZZ_CHECK(o.version == 10 || o.version == 11);
	} else {
		o.used = 0; /* how far an incomplete response got may depend on the pieces */
	}
	return o;
}

static void url_mode(const char *s, size_t n)
{
	static struct ga_ctx *ctx;
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	char *url = strndup(s, n);
	FUZZ_CHECK(url);
	struct h1_url u;
	if (ga_h1_url_split(ctx, url, &u) == 0) {
		FUZZ_CHECK(u.host && u.port && u.authority && u.target && u.target[0] == '/');
		struct ga_http_opts o = { .url = url };
		struct ga_buf req;
		ga_buf_init(&req, 0);
		int err = ga_h1_request_build(ctx, &o, &u, &req);
		/* a target with CR or LF cannot pass http_parser's URL check; the request is sane */
		FUZZ_CHECK(err == 0);
		FUZZ_CHECK(!strncmp(req.data, "GET ", 4));
		FUZZ_CHECK(req.len >= 4 && !memcmp(req.data + req.len - 4, "\r\n\r\n", 4));
		FUZZ_CHECK(strstr(req.data, " HTTP/1.1\r\nHost: "));
		ga_buf_release(&req);
		ga_h1_url_release(&u);
	}
	free(url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned mode = data[0];
	size_t piece = 1 + (size_t)data[1];
	const char *p = (const char *)data + 2;
	size_t n = size - 2;
	if (mode & 0x80) {
		url_mode(p, n);
		return 0;
	}
	bool head = mode & 1;
	struct outcome whole = run(p, n, n ? n : 1, head);
	struct outcome pieces = run(p, n, piece, head);
	FUZZ_CHECK(whole.complete == pieces.complete);
	FUZZ_CHECK(whole.error == pieces.error);
	FUZZ_CHECK(whole.status == pieces.status && whole.version == pieces.version);
	FUZZ_CHECK(whole.keep_alive == pieces.keep_alive && whole.body_bytes == pieces.body_bytes);
	FUZZ_CHECK(whole.used == pieces.used);
	return 0;
}
