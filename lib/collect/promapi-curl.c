/*
 * collect/promapi-curl.c - the Prometheus API client's transport over
 * libcurl (promapi.h): one POST per query, the body handed to the parser as
 * it arrives, bearer token or basic auth, TLS options as Prometheus clients
 * take them, and a timeout for the whole request.
 *
 * libcurl is loaded on first use through the one libcurl table that
 * lib/bench/http.c uses too (lib/dl/curl_dl.h: linking it would map OpenSSL,
 * nghttp2, LDAP and Kerberos into every gpuaudit process, serve included).
 * The header gives types and constants only.
 */
#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1 /* CURLOPT_PROTOCOLS: the fallback for libcurl before 7.85 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/file.h"
#include "../core/internal.h"
#include "../dl/curl_dl.h"
#include "gpuaudit/promapi.h"

#define SECRET_MAX 65536

struct transport {
	char *url; /* without a trailing '/' */
	char *auth_header;
	char *username, *password;
	char *ca_file;
	bool insecure;
	long timeout_ms;
};

struct body {
	ga_prom_body_fn fn;
	void *ud;
	int err;
};

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
	struct body *b = ud;
	if (b->err)
		return 0;
	b->err = b->fn(b->ud, p, size * n);
	return b->err ? 0 : size * n;
}

static int curl_err(struct ga_ctx *ctx, CURLcode c, const char *ebuf, const struct transport *t)
{
	const char *m = *ebuf ? ebuf : ga_curl_api.curl_easy_strerror(c);
	int e = c == CURLE_OPERATION_TIMEDOUT     ? -ETIMEDOUT
	        : c == CURLE_COULDNT_CONNECT      ? -ECONNREFUSED
	        : c == CURLE_COULDNT_RESOLVE_HOST ? -EHOSTUNREACH
	                                          : -EIO;
	if (e == -ETIMEDOUT)
		return ga_err(ctx, e, "no answer within %ld ms (--timeout): %s", t->timeout_ms, m);
	return ga_err(ctx, e, "%s", m); /* the caller names the server */
}

static int post(void *ud, struct ga_ctx *ctx, const char *path, const char *form, long timeout_ms,
                ga_prom_body_fn on_body, void *body_ud, long *ret_status)
{
	struct transport *t = ud;
	struct ga_buf url;
	ga_buf_init(&url, 0);
	struct curl_slist *hdr = NULL;
	char ebuf[CURL_ERROR_SIZE] = "";
	struct body b = { on_body, body_ud, 0 };
	int r = ga_buf_addf(&url, "%s%s", t->url, path);
	CURL *e = r == 0 ? ga_curl_api.curl_easy_init() : NULL;
	if (!e) {
		r = ga_err(ctx, -ENOMEM, "out of memory (curl_easy_init)");
		goto out;
	}
	hdr = ga_curl_api.curl_slist_append(NULL, "Accept: application/json");
	if (hdr && t->auth_header) {
		struct curl_slist *h2 = ga_curl_api.curl_slist_append(hdr, t->auth_header);
		if (!h2)
			ga_curl_api.curl_slist_free_all(hdr);
		hdr = h2;
	}
	if (!hdr) {
		r = ga_err(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	CURLcode c = CURLE_OK;
#define SET(opt, val)                                                  \
	do {                                                           \
		if (c == CURLE_OK)                                     \
			c = ga_curl_api.curl_easy_setopt(e, opt, val); \
	} while (0)
	SET(CURLOPT_URL, url.data);
	SET(CURLOPT_ERRORBUFFER, ebuf);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	if (c == CURLE_UNKNOWN_OPTION) { /* libcurl before 7.85 */
		c = CURLE_OK;
		SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	}
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_POSTFIELDS, form);
	SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(form));
	SET(CURLOPT_HTTPHEADER, hdr);
	SET(CURLOPT_ACCEPT_ENCODING, ""); /* gzip when the server offers it: a fleet's answer shrinks 10x */
	SET(CURLOPT_USERAGENT, "gpuaudit/" GA_VERSION);
	SET(CURLOPT_WRITEFUNCTION, on_write);
	SET(CURLOPT_WRITEDATA, &b);
	if (timeout_ms <= 0 || (t->timeout_ms > 0 && t->timeout_ms < timeout_ms))
		timeout_ms = t->timeout_ms;
	if (timeout_ms > 0)
		SET(CURLOPT_TIMEOUT_MS, timeout_ms);
	if (t->username) {
		SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SET(CURLOPT_USERNAME, t->username);
		SET(CURLOPT_PASSWORD, t->password ? t->password : "");
	}
	if (t->ca_file)
		SET(CURLOPT_CAINFO, t->ca_file);
	if (t->insecure) {
		SET(CURLOPT_SSL_VERIFYPEER, 0L);
		SET(CURLOPT_SSL_VERIFYHOST, 0L);
	}
#undef SET
	if (c != CURLE_OK) {
		r = ga_err(ctx, -EINVAL, "libcurl: %s", ga_curl_api.curl_easy_strerror(c));
		goto out;
	}
	c = ga_curl_api.curl_easy_perform(e);
	long status = 0;
	ga_curl_api.curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	*ret_status = status;
	if (b.err)
		r = b.err; /* the parser's own error, its message already in ctx */
	else if (c != CURLE_OK)
		r = curl_err(ctx, c, ebuf, t);
out:
	if (hdr)
		ga_curl_api.curl_slist_free_all(hdr);
	if (e)
		ga_curl_api.curl_easy_cleanup(e);
	ga_buf_release(&url);
	return r;
}

static void scrub_free(char *s)
{
	if (s) {
		volatile char *v = s;
		while (*v)
			*v++ = '\0';
	}
	ga_free(s);
}

static void release(void *ud)
{
	struct transport *t = ud;
	if (!t)
		return;
	ga_free(t->url);
	scrub_free(t->auth_header);
	ga_free(t->username);
	scrub_free(t->password);
	ga_free(t->ca_file);
	ga_free(t);
}

/* A secret's first line, from its file. */
static int read_secret(struct ga_ctx *ctx, const char *what, const char *file, char **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, SECRET_MAX);
	int r = ga_file_read(ctx, file, SECRET_MAX, &b);
	if (r < 0) {
		if (r != -ENOMEM) {
			char msg[600];
			snprintf(msg, sizeof(msg), "%s", ga_ctx_errmsg(ctx));
			r = ga_err(ctx, -EINVAL, "%s: %s", what, msg);
		}
		goto out;
	}
	size_t n = 0;
	while (n < b.len && b.data[n] != '\n' && b.data[n] != '\r')
		n++;
	while (n && (b.data[n - 1] == ' ' || b.data[n - 1] == '\t'))
		n--;
	if (!n || memchr(b.data, '\0', n)) {
		r = ga_err(ctx, -EINVAL, "%s %s: empty, or a NUL byte in its first line", what, file);
		goto out;
	}
	*ret = ga_malloc(n + 1);
	if (!*ret) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(*ret, b.data, n);
	(*ret)[n] = '\0';
out:
	if (b.data)
		memset(b.data, 0, b.len);
	ga_buf_release(&b);
	return r;
}

int ga_prom_curl_transport(struct ga_ctx *ctx, const struct ga_prom_http_opts *o,
                           struct ga_prom_transport *ret)
{
	if (!o->url || (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8)))
		return ga_err(ctx, -EINVAL, "--prometheus '%s': an http:// or https:// URL expected",
		              o->url ? o->url : "");
	if (o->bearer_token_file && o->username)
		return ga_err(ctx, -EINVAL, "a bearer token and basic auth exclude each other");
	char why[256];
	if (!ga_curl_api_get(why, sizeof(why)))
		return ga_err(ctx, -ELIBACC, "%s", why);
	struct transport *t = ga_calloc(1, sizeof(*t));
	char *token = NULL;
	int r = 0;
	if (!t)
		return -ENOMEM;
	size_t ul = strlen(o->url);
	while (ul > 8 && o->url[ul - 1] == '/')
		ul--;
	t->url = ga_malloc(ul + 1);
	if (!t->url) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(t->url, o->url, ul);
	t->url[ul] = '\0';
	t->insecure = o->insecure_skip_verify;
	t->timeout_ms = o->timeout_ms;
	if (o->bearer_token_file) {
		if ((r = read_secret(ctx, "--bearer-token-file", o->bearer_token_file, &token)) < 0)
			goto out;
		struct ga_buf h;
		ga_buf_init(&h, 0);
		r = ga_buf_addf(&h, "Authorization: Bearer %s", token);
		t->auth_header = r == 0 ? ga_buf_detach(&h, NULL) : NULL;
		ga_buf_release(&h);
		if (r < 0 || !t->auth_header) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (o->username) {
		if (!(t->username = ga_strdup(o->username))) {
			r = -ENOMEM;
			goto out;
		}
		if (o->password_file &&
		    (r = read_secret(ctx, "--password-file", o->password_file, &t->password)) < 0)
			goto out;
	}
	if (o->ca_file && !(t->ca_file = ga_strdup(o->ca_file))) {
		r = -ENOMEM;
		goto out;
	}
	*ret = (struct ga_prom_transport){ .ud = t, .post = post, .release = release };
	t = NULL;
out:
	scrub_free(token);
	release(t);
	return r;
}
