/*
 * http1.h - the pieces of the native HTTP/1.1 engine of `bench http` that do
 * not touch sockets: splitting an http:// URL, building the request bytes once,
 * and following one response through http_parser (a streaming parser: bytes
 * are fed as they arrive, in pieces of any size). lib/bench/http_native.c runs
 * them on non-blocking sockets; the unit test and the fuzz target feed them
 * directly.
 */
#ifndef GA_BENCH_HTTP1_H
#define GA_BENCH_HTTP1_H

#include <http_parser.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpuaudit/benchfile.h"
#include "gpuaudit/core.h"

/* The parts of an http:// URL the engine needs (owned strings). */
struct h1_url {
	char *host;      /* without IPv6 brackets: "127.0.0.1", "::1", "example.org" */
	char *port;      /* "80" when the URL names none */
	char *authority; /* the Host header's value: "example.org:8080", "[::1]:80" as written */
	char *target;    /* path and query: "/v1/x?y=1" ("/" when empty); no fragment */
};
/*
 * Split url. -EINVAL (message in ctx) for a URL that is not http://, that
 * carries user:password (the native engine does not send credentials) or that
 * http_parser rejects.
 */
int ga_h1_url_split(struct ga_ctx *ctx, const char *url, struct h1_url *ret);
void ga_h1_url_release(struct h1_url *u);

/*
 * The request, as sent on every request: "METHOD target HTTP/1.1", Host,
 * Accept: * / *, Content-Length and Content-Type for a body (a body without
 * a Content-Type header gets application/x-www-form-urlencoded, as libcurl
 * sends), then the --header lines. A header given in o->headers replaces the
 * default of the same name; "Name:" with nothing after the colon removes it
 * (libcurl's conventions). 0, -ENOMEM or -EINVAL (a header with CR or LF).
 */
int ga_h1_request_build(struct ga_ctx *ctx, const struct ga_http_opts *o, const struct h1_url *u,
                        struct ga_buf *out);

/* One response being received. */
struct h1_resp {
	http_parser p;
	bool head;         /* the request was HEAD: the response has no body */
	bool any_byte;     /* a byte of the response arrived */
	bool headers_done; /* the final (non-1xx) response's headers are complete */
	bool complete;     /* the response is complete */
	bool keep_alive;   /* when complete: the connection may carry the next request */
	int status;        /* of the final response, 0 before its headers */
	int version;       /* 10 or 11 (HTTP/1.0, 1.1), 0 before the headers */
	uint64_t body_bytes;
	const char *error; /* a parse error's description (static), NULL */
};
/* Start expecting a response (head: the request was HEAD). */
void ga_h1_resp_begin(struct h1_resp *r, bool head);
/*
 * Feed n bytes received (n == 0: the server closed the connection). Returns the
 * bytes used (fewer than n when the response completed before the end: what
 * is left over is not part of it) or -EPROTO when the bytes are not a valid
 * response (r->error says why). After a close, r->complete says whether the
 * response was complete (a response delimited by the close is).
 */
ssize_t ga_h1_resp_feed(struct h1_resp *r, const char *buf, size_t n);

#endif
