/*
 * http1.c - URL split, request bytes and response parsing (through
 * http_parser) for the native HTTP/1.1 engine of `bench http`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http1.h"

void ga_h1_url_release(struct h1_url *u)
{
	if (!u)
		return;
	ga_free(u->host);
	ga_free(u->port);
	ga_free(u->authority);
	ga_free(u->target);
	memset(u, 0, sizeof(*u));
}

int ga_h1_url_split(struct ga_ctx *ctx, const char *url, struct h1_url *ret)
{
	struct http_parser_url pu;
	struct h1_url u;
	struct ga_buf target;
	int err = 0;
	memset(&u, 0, sizeof(u));
	ga_buf_init(&target, 0);
	http_parser_url_init(&pu);
	size_t len = strlen(url);
	if (strncmp(url, "http://", 7) || http_parser_parse_url(url, len, 0, &pu) ||
	    !(pu.field_set & (1u << UF_HOST))) {
		err = ga_err(ctx, -EINVAL, "not an http:// URL the native engine can use: %s", url);
		goto out;
	}
	if (pu.field_set & (1u << UF_USERINFO)) {
		err = ga_err(ctx, -EINVAL, "the native engine sends no credentials (user:password@ in %s)",
		             url);
		goto out;
	}
	size_t h_off = pu.field_data[UF_HOST].off, h_len = pu.field_data[UF_HOST].len;
	u.host = ga_strndup(url + h_off, h_len);
	if (pu.field_set & (1u << UF_PORT)) {
		u.port = ga_strndup(url + pu.field_data[UF_PORT].off, pu.field_data[UF_PORT].len);
	} else {
		u.port = ga_strdup("80");
	}
	/* The authority as written: from after "//" to the end of the port or host. */
	size_t a_end = (pu.field_set & (1u << UF_PORT))
	                       ? (size_t)pu.field_data[UF_PORT].off + pu.field_data[UF_PORT].len
	                       : h_off + h_len;
	if (a_end < len && url[a_end] == ']')
		a_end++; /* an IPv6 literal without a port ends in the bracket */
	u.authority = ga_strndup(url + 7, a_end - 7);
	if (pu.field_set & (1u << UF_PATH))
		err = ga_buf_add(&target, url + pu.field_data[UF_PATH].off, pu.field_data[UF_PATH].len);
	else
		err = ga_buf_addc(&target, '/');
	if (!err && (pu.field_set & (1u << UF_QUERY))) {
		err = ga_buf_addc(&target, '?');
		if (!err)
			err = ga_buf_add(&target, url + pu.field_data[UF_QUERY].off,
			                 pu.field_data[UF_QUERY].len);
	}
	if (err < 0)
		goto out;
	u.target = ga_buf_detach(&target, NULL);
	if (!u.host || !u.port || !u.authority || !u.target) {
		err = -ENOMEM;
		goto out;
	}
	*ret = u;
	memset(&u, 0, sizeof(u));
out:
	ga_h1_url_release(&u);
	ga_buf_release(&target);
	return err;
}

static bool has_crlf(const char *s)
{
	return strpbrk(s, "\r\n") != NULL;
}

/* The user's header that names `name` (case-insensitive), or NULL. */
static const char *user_header(const struct ga_http_opts *o, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < o->n_headers; i++)
		if (!strncasecmp(o->headers[i], name, n) && o->headers[i][n] == ':')
			return o->headers[i];
	return NULL;
}

int ga_h1_request_build(struct ga_ctx *ctx, const struct ga_http_opts *o, const struct h1_url *u,
                        struct ga_buf *out)
{
	const char *method = o->method ? o->method : o->body ? "POST" : "GET";
	int err = 0;
	if (!*method || strpbrk(method, " \t\r\n"))
		return ga_err(ctx, -EINVAL, "bad request method '%s'", method);
	for (size_t i = 0; i < o->n_headers; i++) {
		const char *colon = strchr(o->headers[i], ':');
		if (!colon || colon == o->headers[i] || has_crlf(o->headers[i]))
			return ga_err(ctx, -EINVAL, "bad request header '%s'", o->headers[i]);
	}
	ga_buf_reset(out);
	err = ga_buf_addf(out, "%s %s HTTP/1.1\r\n", method, u->target);
	if (!err && !user_header(o, "Host"))
		err = ga_buf_addf(out, "Host: %s\r\n", u->authority);
	if (!err && !user_header(o, "Accept"))
		err = ga_buf_adds(out, "Accept: */*\r\n");
	if (!err && o->body && !user_header(o, "Content-Type"))
		err = ga_buf_adds(out, "Content-Type: application/x-www-form-urlencoded\r\n");
	if (!err && o->body && !user_header(o, "Content-Length"))
		err = ga_buf_addf(out, "Content-Length: %zu\r\n", o->body_len);
	for (size_t i = 0; !err && i < o->n_headers; i++) {
		const char *h = o->headers[i];
		const char *v = strchr(h, ':') + 1;
		v += strspn(v, " \t");
		if (!*v)
			continue; /* "Name:" removes a default header and sends nothing */
		err = ga_buf_add(out, h, (size_t)(strchr(h, ':') - h));
		if (!err)
			err = ga_buf_addf(out, ": %s\r\n", v);
	}
	if (!err)
		err = ga_buf_adds(out, "\r\n");
	if (!err && o->body)
		err = ga_buf_add(out, o->body, o->body_len);
	return err;
}

static int on_headers_complete(http_parser *p)
{
	struct h1_resp *r = p->data;
	if (p->status_code / 100 == 1 && p->status_code != 101)
		return 0; /* an interim response (100 Continue): the final one follows */
	r->headers_done = true;
	r->status = p->status_code;
	r->version = p->http_major == 1 && p->http_minor == 0 ? 10 : 11;
	/*
	 * 1: the response has no body: a HEAD request's, and 204 and 304 whatever
	 * their Content-Length says (RFC 9112 section 6.3; http_parser 2.9 would
	 * wait for a 304's Content-Length bytes)
	 */
	return r->head || p->status_code == 204 || p->status_code == 304 ? 1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	(void)at;
	((struct h1_resp *)p->data)->body_bytes += n;
	return 0;
}

static int on_message_complete(http_parser *p)
{
	struct h1_resp *r = p->data;
	if (!r->headers_done)
		return 0; /* the end of an interim response */
	r->complete = true;
	r->keep_alive = http_should_keep_alive(p) != 0;
	/* Stop here: what follows is not part of this response. */
	http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings h1_settings = {
	.on_headers_complete = on_headers_complete,
	.on_body = on_body,
	.on_message_complete = on_message_complete,
};

void ga_h1_resp_begin(struct h1_resp *r, bool head)
{
	memset(r, 0, sizeof(*r));
	http_parser_init(&r->p, HTTP_RESPONSE);
	r->p.data = r;
	r->head = head;
}

ssize_t ga_h1_resp_feed(struct h1_resp *r, const char *buf, size_t n)
{
	if (r->complete)
		return 0;
	if (r->error)
		return -EPROTO;
	if (n)
		r->any_byte = true;
	size_t used = http_parser_execute(&r->p, &h1_settings, buf, n);
	enum http_errno e = HTTP_PARSER_ERRNO(&r->p);
	if (e != HPE_OK && e != HPE_PAUSED) {
		r->error = http_errno_description(e);
		return -EPROTO;
	}
	if (n == 0 && !r->complete && r->any_byte && !r->error) {
		/* a close that does not end the response */
		r->error = "the server closed the connection before the response was complete";
		return -EPROTO;
	}
	if (!r->complete && used < n) {
		/* http_parser stopped early without saying why (an upgrade) */
		r->error = "the response does not end where HTTP/1.1 says it ends";
		return -EPROTO;
	}
	return (ssize_t)used;
}
