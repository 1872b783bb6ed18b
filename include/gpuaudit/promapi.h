/*
 * promapi.h - a client of the Prometheus HTTP API (/api/v1/query,
 * /api/v1/query_range, /api/v1/series), which Thanos, Mimir and
 * VictoriaMetrics serve too (lib/collect/promapi*.c).
 *
 * Three parts, each testable alone:
 *   * a transport: one POST of a form to a path under the server's URL, the
 *     response body handed over in pieces as it arrives. libcurl's
 *     (promapi-curl.c) is one; unit tests and the fuzzer feed canned bodies.
 *   * a response parser fed those pieces: it walks the envelope
 *     ({"status", "data": {"resultType", "result": [...]}, "errorType",
 *     "error", "warnings"}) byte by byte and parses each element of the
 *     result with ga_json_parse on its own, so a response of 100,000 series
 *     is never held whole: memory is one series at a time.
 *   * a query: transport and parser together; every series goes to a
 *     callback; the outcome is the server's, never a partial answer
 *     presented as whole (an error anywhere, even after series went to the
 *     callback, fails the query, and the caller drops what it took).
 */
#ifndef GPUAUDIT_PROMAPI_H
#define GPUAUDIT_PROMAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/core.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- the transport --- */

typedef int (*ga_prom_body_fn)(void *ud, const char *p, size_t n);

struct ga_prom_transport {
	void *ud;
	/*
	 * POST FORM (application/x-www-form-urlencoded) to PATH under the
	 * server's URL, within timeout_ms when > 0 (less than the transport's
	 * own when a run's deadline is nearer; 0: the transport's); each piece of the response body goes to on_body (a
	 * nonzero return stops the transfer and is returned); *ret_status: the
	 * HTTP status. 0, or -errno with the message in ctx (-ETIMEDOUT for a
	 * timeout, -ECONNREFUSED, -EIO, ...).
	 */
	int (*post)(void *ud, struct ga_ctx *ctx, const char *path, const char *form, long timeout_ms,
	            ga_prom_body_fn on_body, void *body_ud, long *ret_status);
	void (*release)(void *ud);
};

/* Options as Prometheus clients (promtool, Grafana, the HTTP SD) take them. */
struct ga_prom_http_opts {
	const char *url;               /* http(s)://host:port[/prefix] */
	const char *bearer_token_file; /* Authorization: Bearer <first line of the file> */
	const char *username;          /* basic auth, with the password's file */
	const char *password_file;
	const char *ca_file;       /* PEM bundle the server's certificate must chain to */
	bool insecure_skip_verify; /* no certificate or host name check */
	long timeout_ms;           /* the whole of one request; also sent as the query's timeout */
};

/*
 * libcurl's transport (libcurl loaded with dlopen on first use; the token
 * and password files read here). 0, or -errno with the message in ctx:
 * -EINVAL for a URL that is not http(s)://, an unreadable or empty secret
 * file; -ELIBACC when libcurl is not installed. Release with ->release(ud).
 */
int ga_prom_curl_transport(struct ga_ctx *ctx, const struct ga_prom_http_opts *o,
                           struct ga_prom_transport *ret);

/* --- one series of a result --- */

struct ga_prom_sample {
	double t_s; /* Unix seconds */
	double v;   /* NaN and Inf as the server wrote them */
};

struct ga_prom_series {
	const struct ga_kv *labels; /* name, value; as sent */
	size_t n_labels;
	const struct ga_prom_sample *samples; /* "value": one; "values": the range; series: none */
	size_t n_samples;
};

/* The value of label NAME; NULL when the series has none (Prometheus drops empty labels). */
const char *ga_prom_label(const struct ga_prom_series *s, const char *name);

/* 0 to go on; a negative errno stops the query and is returned by it. */
typedef int (*ga_prom_series_fn)(void *ud, const struct ga_prom_series *s);

/* --- the response parser --- */

struct ga_prom_parser;

/*
 * A parser whose series go to fn. The result may be a vector, a matrix, a
 * scalar (one series without labels) or /api/v1/series' list of label sets.
 */
int ga_prom_parser_new(struct ga_ctx *ctx, ga_prom_series_fn fn, void *ud, struct ga_prom_parser **ret);
/* The next piece of the body. 0, or -errno (message in ctx) once it is known bad; then stop feeding. */
int ga_prom_parser_feed(struct ga_prom_parser *p, const char *buf, size_t n);
/*
 * The end of the body, and the HTTP status it came with. 0 when the server
 * said "success" without warnings; else -errno with the message in ctx:
 *   -EINVAL     "status":"error" with errorType bad_data (the query)
 *   -ETIMEDOUT  errorType timeout, or canceled
 *   -EPROTO     any other errorType, or warnings (a partial answer)
 *   -EBADMSG    not the API's JSON (truncated, another server, HTTP error page)
 * The message holds the server's own errorType and error.
 */
int ga_prom_parser_finish(struct ga_prom_parser *p, long http_status);
/* Series handed to fn so far. */
size_t ga_prom_parser_series(const struct ga_prom_parser *p);
void ga_prom_parser_free(struct ga_prom_parser *p);

/* --- a query --- */

/*
 * POST form to path through t and parse the answer into fn (see
 * ga_prom_parser_finish for the errors). what names the query in messages.
 */
int ga_prom_query(struct ga_ctx *ctx, const struct ga_prom_transport *t, const char *path, const char *form,
                  const char *what, ga_prom_series_fn fn, void *ud);

/*
 * What a run of queries may read in all: the server decides how much it
 * sends, the budget how much is read (fleet --prometheus against a server,
 * or a man in the middle, that answers with 10 million series or a slow
 * drip). Zero members: no bound. The counters are the run's so far.
 */
struct ga_prom_budget {
	uint64_t max_series;     /* series handed to the callbacks, all queries together */
	uint64_t max_bytes;      /* body bytes (after gzip), all queries together */
	double deadline_s;       /* ga_prom_now_s() by which every query must be done; 0: none */
	double deadline_after_s; /* the run's length, for messages */
	uint64_t series, bytes;
};

/* A monotonic clock in seconds, the one deadline_s is on. */
double ga_prom_now_s(void);

/*
 * ga_prom_query under a budget (NULL: none): each request gets at most what
 * is left of the deadline. Past a bound: -E2BIG (series), -EFBIG (bytes),
 * -ETIME (the deadline), the message naming the bound and its option.
 */
int ga_prom_query_in(struct ga_ctx *ctx, const struct ga_prom_transport *t, struct ga_prom_budget *b,
                     const char *path, const char *form, const char *what, ga_prom_series_fn fn, void *ud);

/* Append "name=value" to a form (with '&' before it when needed), percent-encoded. 0 or -ENOMEM. */
int ga_prom_form_add(struct ga_buf *form, const char *name, const char *value);

/*
 * Check a --match selector: label matchers as in PromQL, with or without
 * braces and a metric name: `cluster="a"`, `{cluster="a", pool=~"h100.*"}`.
 * On success *ret holds the matchers without braces or name (the caller's
 * to free; "" when there is none). -EINVAL with the reason in ctx.
 */
int ga_prom_matchers_parse(struct ga_ctx *ctx, const char *sel, char **ret);

/*
 * A time for ?time=, start or end: RFC 3339 (2026-01-02T03:04:05Z, with
 * fraction and offset) or Unix seconds. -EINVAL when it is neither.
 */
int ga_prom_time_parse(const char *s, double *ret_s);

#ifdef __cplusplus
}
#endif
#endif
