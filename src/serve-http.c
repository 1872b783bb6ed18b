/*
 * serve-http.c - the HTTP side of `gpuaudit serve`: libmicrohttpd's polling
 * thread calls serve_handle, which only copies the last rendering out under
 * the lock (serve-int.h). Safe by default: GET and HEAD only, no request
 * bodies; the endpoints are /metrics (Prometheus text or OpenMetrics, as
 * Accept asks; --web.telemetry-path moves it), /healthz (and /health),
 * /readyz, /v1/snapshot, /v1/check. With a web configuration every request
 * first passes its client certificate and basic authentication checks
 * (serve-web.c), and its security headers are added to every answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve-accept.h"
#include "serve-int.h"
#include "gpuaudit/process.h"

static enum MHD_Result reply(const struct serve *s, struct MHD_Connection *c, unsigned status,
                             const char *type, char *body, size_t len, bool must_free)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
	        len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"gpuaudit\"");
	if (s->web.cfg)
		for (size_t i = 0; i < s->web.cfg->n_headers; i++)
			MHD_add_response_header(resp, s->web.cfg->headers[i].name,
			                        s->web.cfg->headers[i].value);
	enum MHD_Result ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_text(const struct serve *s, struct MHD_Connection *c, unsigned status,
                                  const char *msg)
{
	return reply(s, c, status, "text/plain; charset=utf-8", (char *)msg, strlen(msg), false);
}

/* A malloc'd copy of one rendering (MHD frees it with free()), plus the per-scrape tail for /metrics. */
static char *copy_out(struct serve *s, const struct ga_buf *b, bool metrics, enum ga_prom_format fmt,
                      size_t *ret_len)
{
	struct ga_buf tail;
	ga_buf_init(&tail, 4096);
	if (metrics) {
		double run = s->running_since >= 0 ? serve_now_mono() - s->running_since : -1;
		struct ga_process_stats ps;
		ga_process_stats_read(&ps);
		struct ga_serve_stats st = {
			.refused_rate_limit = __atomic_load_n(&s->web.n_rate_refused, __ATOMIC_RELAXED),
			.refused_auth_budget = __atomic_load_n(&s->web.n_auth_refused, __ATOMIC_RELAXED),
		};
		serve_conns_counts(&s->conns, &st.closed_deadline, &st.closed_stalled);
		if (ga_prom_render_process(fmt, &ps, &tail) < 0 ||
		    ga_prom_render_serve(fmt, &st, &tail) < 0 || ga_prom_render_tail(fmt, run, &tail) < 0) {
			ga_buf_release(&tail);
			return NULL;
		}
	}
	char *p = malloc(b->len + tail.len + 1);
	if (p) {
		if (b->len)
			memcpy(p, b->data, b->len);
		if (tail.len)
			memcpy(p + b->len, tail.data, tail.len);
		p[b->len + tail.len] = '\0';
		*ret_len = b->len + tail.len;
	}
	ga_buf_release(&tail);
	return p;
}

enum endpoint { EP_METRICS, EP_SNAPSHOT, EP_CHECK, EP_HEALTH, EP_READY, EP_ROOT, EP_NONE };

static enum endpoint endpoint_of(const struct serve *s, const char *url)
{
	return !strcmp(url, s->telemetry_path)                       ? EP_METRICS
	       : !strcmp(url, "/v1/snapshot")                        ? EP_SNAPSHOT
	       : !strcmp(url, "/v1/check")                           ? EP_CHECK
	       : !strcmp(url, "/healthz") || !strcmp(url, "/health") ? EP_HEALTH
	       : !strcmp(url, "/readyz")                             ? EP_READY
	       : !strcmp(url, "/")                                   ? EP_ROOT
	                                                             : EP_NONE;
}

/* /readyz, under the lock: ready once a collection has finished and the class's GPU count is met. */
static char *ready(struct serve *s, unsigned *status, size_t *len)
{
	const char *msg = !s->have_pub          ? "not ready: no collection finished yet\n"
	                  : s->pub.not_ready[0] ? s->pub.not_ready
	                                        : "ready\n";
	if (s->have_pub && !s->pub.not_ready[0])
		*status = MHD_HTTP_OK;
	else
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
	char *body = strdup(msg);
	*len = body ? strlen(body) : 0;
	return body;
}

/* /healthz, under the lock: live when the last collection is recent enough. */
static char *health(struct serve *s, unsigned *status, size_t *len)
{
	char msg[160];
	double limit = 2 * s->interval_s + s->so.timeout_s + 10;
	double age = s->have_pub ? serve_now_mono() - s->last_done_mono : -1;
	if (!s->have_pub) {
		snprintf(msg, sizeof(msg), "starting: no collection finished yet\n");
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
	} else if (age > limit) {
		snprintf(msg, sizeof(msg), "stale: last collection %.0f s ago (limit %.0f s)\n", age, limit);
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
	} else {
		snprintf(msg, sizeof(msg), "ok\n");
	}
	char *body = strdup(msg);
	*len = body ? strlen(body) : 0;
	return body;
}

/* The body of ep under the lock (NULL: none, *status says why). */
static char *body_of(struct serve *s, enum endpoint ep, enum ga_prom_format fmt, unsigned *status,
                     const char **type, size_t *len)
{
	if (ep == EP_HEALTH || ep == EP_READY) {
		*type = "text/plain; charset=utf-8";
		return ep == EP_HEALTH ? health(s, status, len) : ready(s, status, len);
	}
	if (!s->have_pub && ep != EP_METRICS) {
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
		return NULL;
	}
	const struct ga_buf *b = ep == EP_METRICS ? (fmt == GA_PROM_OPENMETRICS ? &s->pub.om : &s->pub.text)
	                         : ep == EP_SNAPSHOT ? &s->pub.snapshot
	                                             : &s->pub.check;
	if (ep == EP_METRICS)
		*type = ga_prom_content_type(fmt);
	if (ep == EP_SNAPSHOT && b->len == 0) {
		*status = MHD_HTTP_SERVICE_UNAVAILABLE; /* no snapshot could be taken yet */
		return NULL;
	}
	return copy_out(s, b, ep == EP_METRICS, fmt, len);
}

enum MHD_Result serve_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                             const char *version, const char *upload_data, size_t *upload_data_size,
                             void **con_cls)
{
	struct serve *s = cls;
	(void)version;
	(void)upload_data;
	serve_conns_headers_done(&s->conns, c); /* called once the request's headers are complete */
	struct serve_req *rq = *con_cls;
	if (!rq) { /* the request's state, freed when it ends (serve_conns_completed) */
		if (!(rq = calloc(1, sizeof(*rq))))
			return reply_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		*con_cls = rq;
	}
	unsigned refused = 0;
	const char *why = serve_web_refuse(s, c, rq, &refused);
	if (why == SERVE_WEB_SUSPENDED)
		return MHD_YES; /* a worker checks the password; called again when it resumes us */
	if (why)
		return reply_text(s, c, refused, why);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
	if ((cl && strcmp(cl, "0")) || te || *upload_data_size)
		return reply_text(s, c, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted\n");
	/* answer on the second call, when the request is complete, so the connection stays open */
	if (!rq->seen) {
		rq->seen = true;
		return MHD_YES;
	}
	enum endpoint ep = endpoint_of(s, url);
	if (ep == EP_NONE || ep == EP_ROOT) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s%s /healthz /readyz /v1/snapshot /v1/check\n",
		         ep == EP_NONE ? "not found: try " : "gpuaudit serve: ", s->telemetry_path);
		char *body = strdup(msg);
		if (!body)
			return reply_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		return reply(s, c, ep == EP_NONE ? MHD_HTTP_NOT_FOUND : MHD_HTTP_OK,
		             "text/plain; charset=utf-8", body, strlen(body), true);
	}
	enum ga_prom_format fmt = GA_PROM_TEXT;
	if (ep == EP_METRICS) {
		const char *acc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
		fmt = ga_prom_negotiate(acc, acc ? strlen(acc) : 0);
	}
	size_t len = 0;
	unsigned status = MHD_HTTP_OK;
	const char *type = "application/json";
	pthread_mutex_lock(&s->lock);
	char *body = body_of(s, ep, fmt, &status, &type, &len);
	pthread_mutex_unlock(&s->lock);
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE && !body)
		return reply_text(s, c, status, "no collection finished yet\n");
	if (!body)
		return reply_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(s, c, status, type, body, len, true);
}
