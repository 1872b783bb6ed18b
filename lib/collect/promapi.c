/*
 * collect/promapi.c - the Prometheus HTTP API's response parser, queries, and
 * the helpers that build them (promapi.h). The transport is promapi-curl.c's
 * or a test's.
 *
 * Why a scanner around ga_json_parse rather than one parse of the body: a
 * fleet's answer holds one series per node, 100,000 of them are 70 MB of
 * JSON and several times that as a jansson tree. The scanner walks only the
 * envelope (the root object, "data", "result") byte by byte, as pieces of the
 * body arrive, and cuts out each element of the result (and each other
 * member) whole; each of those goes through ga_json_parse alone, which
 * checks it strictly. Memory is one series at a time, whatever the fleet.
 * Between the pieces it cuts out, the scanner checks the grammar itself
 * (keys, colons, commas, one root object, nothing after it).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "../core/internal.h"
#include "gpuaudit/promapi.h"

#define ITEM_MAX (16u << 20) /* one series (a range of 11,000 points is ~300 KB) */
#define KEY_MAX 64           /* envelope keys are short: longer ones are not ours */
#define HEAD_MAX 256         /* the body's start, for messages about what it was */
#define SAMPLES_MAX 1000000u

enum frame { F_ROOT, F_DATA, F_RESULT };
enum state {
	S_START,      /* before the root object */
	S_KEY_OR_END, /* after '{' */
	S_KEY,        /* after ',' in an object */
	S_COLON,
	S_VALUE,
	S_VALUE_OR_END, /* after '[' */
	S_NEXT,         /* after a value: ',' or the container's end */
	S_DONE,         /* after the root object: whitespace only */
};
enum dest { D_ROOT, D_DATA, D_ITEM };

struct ga_prom_parser {
	struct ga_ctx *ctx;
	ga_prom_series_fn fn;
	void *ud;
	enum frame frames[3];
	int nf;
	enum state st;
	/* the key being read, and the current key of the root and data objects */
	bool in_key, key_esc, key_long;
	char key[KEY_MAX];
	size_t key_len;
	char root_key[KEY_MAX], data_key[KEY_MAX];
	/* the value being cut out */
	bool cap_on, cap_str, cap_esc, cap_scalar;
	unsigned cap_depth;
	enum dest cap_dest;
	struct ga_buf cap;
	/* what the envelope said */
	char *status, *error_type, *error, *result_type;
	struct ga_buf warnings;
	bool saw_result, data_is_list;
	char head[HEAD_MAX + 1];
	size_t head_len;
	size_t series, items;
	int err;
};

const char *ga_prom_label(const struct ga_prom_series *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (!strcmp(s->labels[i].key, name))
			return s->labels[i].value;
	return NULL;
}

int ga_prom_parser_new(struct ga_ctx *ctx, ga_prom_series_fn fn, void *ud, struct ga_prom_parser **ret)
{
	struct ga_prom_parser *p = ga_calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ctx = ctx;
	p->fn = fn;
	p->ud = ud;
	ga_buf_init(&p->cap, ITEM_MAX);
	ga_buf_init(&p->warnings, 4096);
	*ret = p;
	return 0;
}

void ga_prom_parser_free(struct ga_prom_parser *p)
{
	if (!p)
		return;
	ga_buf_release(&p->cap);
	ga_buf_release(&p->warnings);
	ga_free(p->status);
	ga_free(p->error_type);
	ga_free(p->error);
	ga_free(p->result_type);
	ga_free(p);
}

size_t ga_prom_parser_series(const struct ga_prom_parser *p)
{
	return p->series;
}

static int bad(struct ga_prom_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ga_prom_parser *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->err = ga_err(p->ctx, -EBADMSG, "not a Prometheus API response: %s", msg);
	return p->err;
}

/* One element of the result as a series: labels and samples from the parsed JSON. */
static int item_series(struct ga_prom_parser *p, json_t *item)
{
	if (!json_is_object(item)) {
		/* a scalar or string result is [time, "value"]: not series, nothing of ours */
		if (p->result_type &&
		    (!strcmp(p->result_type, "scalar") || !strcmp(p->result_type, "string")))
			return 0;
		return bad(p, "result[%s] is not an object", "");
	}
	json_t *metric = p->data_is_list ? item : json_object_get(item, "metric");
	json_t *value = json_object_get(item, "value");
	json_t *values = json_object_get(item, "values");
	if (!json_is_object(metric))
		return bad(p, "a series without %s", "\"metric\"");
	size_t nl = json_object_size(metric), ns = value                   ? 1
	                                           : json_is_array(values) ? json_array_size(values)
	                                                                   : 0;
	if (ns > SAMPLES_MAX)
		return bad(p, "a series with more than %s samples", "1,000,000");
	struct ga_kv *labels = ga_calloc(nl ? nl : 1, sizeof(*labels));
	struct ga_prom_sample *samples = ga_calloc(ns ? ns : 1, sizeof(*samples));
	int r = 0;
	if (!labels || !samples) {
		r = p->err = ga_err(p->ctx, -ENOMEM, "out of memory");
		goto out;
	}
	size_t i = 0;
	const char *k;
	json_t *v;
	json_object_foreach(metric, k, v)
	{
		if (!json_is_string(v)) {
			r = bad(p, "label %s is not a string", k);
			goto out;
		}
		labels[i].key = (char *)k;
		labels[i].value = (char *)json_string_value(v);
		i++;
	}
	for (size_t s = 0; s < ns; s++) {
		json_t *pt = value ? value : json_array_get(values, s);
		json_t *t = json_array_get(pt, 0), *sv = json_array_get(pt, 1);
		if (!json_is_array(pt) || json_array_size(pt) != 2 || !json_is_number(t) ||
		    !json_is_string(sv) || ga_parse_dbl(json_string_value(sv), &samples[s].v) < 0) {
			r = bad(p, "a sample is not [time, \"value\"]%s", "");
			goto out;
		}
		samples[s].t_s = json_number_value(t);
	}
	struct ga_prom_series se = { labels, nl, samples, ns };
	p->series++;
	r = p->fn(p->ud, &se);
	if (r < 0)
		p->err = r;
out:
	ga_free(labels);
	ga_free(samples);
	return r;
}

static int set_str(struct ga_prom_parser *p, char **slot, json_t *v)
{
	if (!json_is_string(v))
		return 0; /* not ours to judge: the status check says what is missing */
	char *s = ga_strdup(json_string_value(v));
	if (!s)
		return p->err = ga_err(p->ctx, -ENOMEM, "out of memory");
	ga_free(*slot);
	*slot = s;
	return 0;
}

/* A value cut out whole: parse it and put it where it belongs. */
static int captured(struct ga_prom_parser *p)
{
	p->cap_on = false;
	json_t *v = NULL;
	int r = ga_json_parse(p->ctx, p->cap.data ? p->cap.data : "", p->cap.len, JSON_DECODE_ANY, &v, NULL);
	p->cap.len = 0;
	if (r < 0) {
		p->err = r == -ENOMEM ? r
		                      : ga_err(p->ctx, -EBADMSG, "not a Prometheus API response: %s",
		                               ga_ctx_errmsg(p->ctx));
		return p->err;
	}
	if (p->cap_dest == D_ITEM) {
		p->items++;
		r = item_series(p, v);
	} else if (p->cap_dest == D_ROOT) {
		if (!strcmp(p->root_key, "status"))
			r = set_str(p, &p->status, v);
		else if (!strcmp(p->root_key, "errorType"))
			r = set_str(p, &p->error_type, v);
		else if (!strcmp(p->root_key, "error"))
			r = set_str(p, &p->error, v);
		else if (!strcmp(p->root_key, "warnings"))
			for (size_t i = 0; r == 0 && json_is_array(v) && i < json_array_size(v); i++) {
				const char *w = json_string_value(json_array_get(v, i));
				if (w && p->warnings.len < 2000 &&
				    ga_buf_addf(&p->warnings, "%s%s", p->warnings.len ? "; " : "", w) < 0)
					r = p->err = -ENOMEM;
			}
	} else if (!strcmp(p->data_key, "resultType")) {
		r = set_str(p, &p->result_type, v);
	} else if (!strcmp(p->data_key, "result")) {
		r = bad(p, "data.result is not a list%s", "");
	}
	json_decref(v);
	return r;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void push(struct ga_prom_parser *p, enum frame f)
{
	p->frames[p->nf++] = f;
}

static void pop(struct ga_prom_parser *p)
{
	p->nf--;
	p->st = p->nf ? S_NEXT : S_DONE;
}

/* A value starts with c: descend into the envelope's containers, cut out anything else. */
static int value_start(struct ga_prom_parser *p, char c)
{
	enum frame top = p->frames[p->nf - 1];
	if (top == F_ROOT && !strcmp(p->root_key, "data") && (c == '{' || c == '[')) {
		push(p, c == '{' ? F_DATA : F_RESULT);
		p->data_is_list = c == '[';
		p->saw_result |= c == '[';
		p->st = c == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
		return 0;
	}
	if (top == F_DATA && !strcmp(p->data_key, "result") && c == '[') {
		push(p, F_RESULT);
		p->saw_result = true;
		p->st = S_VALUE_OR_END;
		return 0;
	}
	if (!strchr("{[\"-0123456789tfn", c))
		return bad(p, "unexpected '%s' where a value belongs", (char[]){ c, 0 });
	p->cap_on = true;
	p->cap_dest = top == F_ROOT ? D_ROOT : top == F_DATA ? D_DATA : D_ITEM;
	p->cap_str = c == '"';
	p->cap_esc = false;
	p->cap_depth = c == '{' || c == '[';
	p->cap_scalar = !p->cap_str && !p->cap_depth;
	p->cap.len = 0;
	if (ga_buf_add(&p->cap, &c, 1) < 0)
		return p->err = -ENOMEM;
	return 0;
}

/* One byte of a value being cut out; 1 when it ended the value. */
static int cap_byte(struct ga_prom_parser *p, char c)
{
	if (ga_buf_add(&p->cap, &c, 1) < 0) {
		p->err = p->cap.max && p->cap.len >= p->cap.max
		                 ? ga_err(p->ctx, -EBADMSG, "a series larger than %u bytes", ITEM_MAX)
		                 : -ENOMEM;
		return p->err;
	}
	if (p->cap_str) {
		if (p->cap_esc)
			p->cap_esc = false;
		else if (c == '\\')
			p->cap_esc = true;
		else if (c == '"') {
			p->cap_str = false;
			if (!p->cap_depth)
				return 1;
		}
		return 0;
	}
	if (c == '"')
		p->cap_str = true;
	else if (c == '{' || c == '[')
		p->cap_depth++;
	else if ((c == '}' || c == ']') && --p->cap_depth == 0)
		return 1;
	return 0;
}

static int key_byte(struct ga_prom_parser *p, char c)
{
	if (p->key_esc) {
		p->key_esc = false;
	} else if (c == '\\') {
		p->key_esc = true;
		p->key_long = true; /* an escaped key is not one of ours */
	} else if (c == '"') {
		p->in_key = false;
		p->key[p->key_len] = '\0';
		char *slot = p->frames[p->nf - 1] == F_ROOT ? p->root_key : p->data_key;
		snprintf(slot, KEY_MAX, "%s", p->key_long ? "" : p->key);
		p->st = S_COLON;
		return 0;
	} else if ((unsigned char)c < 0x20) {
		return bad(p, "a control byte in a key%s", "");
	}
	if (p->key_len + 1 < KEY_MAX)
		p->key[p->key_len++] = c;
	else
		p->key_long = true;
	return 0;
}

static int byte(struct ga_prom_parser *p, char c)
{
	if (p->cap_on) {
		if (p->cap_scalar && (is_ws(c) || c == ',' || c == '}' || c == ']')) {
			p->st = S_NEXT;
			if (captured(p) < 0)
				return p->err;
			/* c belongs to the envelope: fall through */
		} else {
			int e = cap_byte(p, c);
			if (e < 0)
				return e;
			if (e == 1) {
				p->st = S_NEXT;
				return captured(p);
			}
			return 0;
		}
	}
	if (p->in_key)
		return key_byte(p, c);
	if (is_ws(c))
		return 0;
	bool obj = p->nf && p->frames[p->nf - 1] != F_RESULT;
	switch (p->st) {
	case S_START:
		if (c != '{')
			return bad(p, "it does not start with '{'%s", "");
		push(p, F_ROOT);
		p->st = S_KEY_OR_END;
		return 0;
	case S_KEY_OR_END:
		if (c == '}') {
			pop(p);
			return 0;
		}
		/* fall through */
	case S_KEY:
		if (c != '"')
			return bad(p, "a key expected, not '%s'", (char[]){ c, 0 });
		p->in_key = true;
		p->key_esc = p->key_long = false;
		p->key_len = 0;
		return 0;
	case S_COLON:
		if (c != ':')
			return bad(p, "':' expected, not '%s'", (char[]){ c, 0 });
		p->st = S_VALUE;
		return 0;
	case S_VALUE_OR_END:
		if (c == ']') {
			pop(p);
			return 0;
		}
		/* fall through */
	case S_VALUE:
		return value_start(p, c);
	case S_NEXT:
		if (c == ',') {
			p->st = obj ? S_KEY : S_VALUE;
			return 0;
		}
		if ((obj && c == '}') || (!obj && c == ']')) {
			pop(p);
			return 0;
		}
		return bad(p, "',' or the end expected, not '%s'", (char[]){ c, 0 });
	case S_DONE:
		return bad(p, "bytes after the end%s", "");
	}
	return 0;
}

int ga_prom_parser_feed(struct ga_prom_parser *p, const char *buf, size_t n)
{
	if (p->head_len < HEAD_MAX) {
		size_t k = n < HEAD_MAX - p->head_len ? n : HEAD_MAX - p->head_len;
		memcpy(p->head + p->head_len, buf, k);
		p->head_len += k;
		p->head[p->head_len] = '\0';
	}
	for (size_t i = 0; i < n && !p->err; i++)
		byte(p, buf[i]);
	return p->err;
}

/* The body's start, printable, for a message about a body that was not the API's. */
static void head_text(const struct ga_prom_parser *p, char *out, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < p->head_len && k + 1 < n && k < 160; i++) {
		unsigned char c = (unsigned char)p->head[i];
		out[k++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
	}
	out[k] = '\0';
}

int ga_prom_parser_finish(struct ga_prom_parser *p, long http_status)
{
	char head[200];
	head_text(p, head, sizeof(head));
	bool http_ok = !http_status || (http_status >= 200 && http_status <= 299);
	if (p->err == -EBADMSG && !http_ok) /* an error page: the status says more than its grammar */
		return p->err = ga_err(p->ctx, -EBADMSG, "HTTP %ld: %s", http_status,
		                       p->head_len ? head : "(no body)");
	if (p->err)
		return p->err;
	if (p->st != S_DONE || !p->status) {
		if (http_status && (http_status < 200 || http_status > 299))
			return p->err = ga_err(p->ctx, -EBADMSG, "HTTP %ld: %s", http_status,
			                       p->head_len ? head : "(no body)");
		return p->err = ga_err(p->ctx, -EBADMSG, "not a Prometheus API response (%s): %s",
		                       p->head_len ? "truncated or another format" : "empty",
		                       p->head_len ? head : "(no body)");
	}
	if (!strcmp(p->status, "error")) {
		const char *et = p->error_type ? p->error_type : "(no errorType)";
		int e = !strcmp(et, "bad_data")                             ? -EINVAL
		        : !strcmp(et, "timeout") || !strcmp(et, "canceled") ? -ETIMEDOUT
		                                                            : -EPROTO;
		return p->err = ga_err(p->ctx, e, "the server answered %s: %s (HTTP %ld)", et,
		                       p->error ? p->error : "(no error message)", http_status);
	}
	if (strcmp(p->status, "success"))
		return p->err = ga_err(p->ctx, -EBADMSG, "status \"%.40s\", neither success nor error",
		                       p->status);
	if (http_status && (http_status < 200 || http_status > 299))
		return p->err = ga_err(p->ctx, -EBADMSG, "HTTP %ld with a success body", http_status);
	if (p->warnings.len)
		return p->err = ga_err(p->ctx, -EPROTO,
		                       "the server answered with warnings, so the answer may be partial: %s",
		                       p->warnings.data);
	if (!p->saw_result)
		return p->err = ga_err(p->ctx, -EBADMSG, "a success without data.result%s", "");
	return 0;
}

/* --- a query ------------------------------------------------------------- */

double ga_prom_now_s(void)
{
	return ga_mono_s();
}

/* A query under a budget: the parser, and what the budget counts. */
struct metered {
	struct ga_prom_parser *p;
	struct ga_prom_budget *b;
	struct ga_ctx *ctx;
	ga_prom_series_fn fn;
	void *ud;
	const char *what; /* the query, for progress notes */
};

static int over_deadline(struct metered *m)
{
	return ga_err(
	        m->ctx, -ETIME, "the run's deadline passed (--deadline %.0f s): %llu series, %llu bytes read",
	        m->b->deadline_after_s, (unsigned long long)m->b->series, (unsigned long long)m->b->bytes);
}

static int feed_body(void *ud, const char *buf, size_t n)
{
	struct metered *m = ud;
	struct ga_prom_budget *b = m->b;
	if (b) {
		b->bytes += n;
		if (b->max_bytes && b->bytes > b->max_bytes)
			return ga_err(
			        m->ctx, -EFBIG,
			        "the answers passed %llu bytes (--max-bytes): the server sends more than "
			        "this run will read",
			        (unsigned long long)b->max_bytes);
		if (b->deadline_s > 0 && ga_mono_s() > b->deadline_s)
			return over_deadline(m);
	}
	return ga_prom_parser_feed(m->p, buf, n);
}

/* "WHAT: N series, K KiB read": the query under way, through the context's progress callback. */
static void progress(const struct metered *m, uint64_t series)
{
	char note[240];
	snprintf(note, sizeof(note), "%s: %llu series, %llu KiB read", m->what, (unsigned long long)series,
	         (unsigned long long)(m->b->bytes >> 10));
	ga_progress(m->ctx, note);
}

static int on_series(void *ud, const struct ga_prom_series *s)
{
	struct metered *m = ud;
	if (++m->b->series > m->b->max_series && m->b->max_series)
		return ga_err(
		        m->ctx, -E2BIG,
		        "the answers passed %llu series (--max-series): the server sends more than this run "
		        "will read",
		        (unsigned long long)m->b->max_series);
	if (m->b->series % 1000 == 0) /* a progress note every thousand series (fleet's terminal line) */
		progress(m, m->b->series);
	return m->fn(m->ud, s);
}

int ga_prom_query_in(struct ga_ctx *ctx, const struct ga_prom_transport *t, struct ga_prom_budget *b,
                     const char *path, const char *form, const char *what, ga_prom_series_fn fn, void *ud)
{
	struct metered m = { .b = b, .ctx = ctx, .fn = fn, .ud = ud, .what = what };
	long timeout_ms = 0;
	if (b)
		progress(&m, b->series);
	else
		ga_progress(ctx, what);
	if (b && b->deadline_s > 0) {
		double left = b->deadline_s - ga_mono_s();
		if (left <= 0) {
			int r = over_deadline(&m);
			return ga_err(ctx, r, "%s (%s): %s", what, path, ga_ctx_errmsg(ctx));
		}
		timeout_ms = (long)ceil(left * 1000);
	}
	int r = ga_prom_parser_new(ctx, b ? on_series : fn, b ? (void *)&m : ud, &m.p);
	if (r < 0)
		return r;
	long status = 0;
	r = t->post(t->ud, ctx, path, form, timeout_ms, feed_body, &m, &status);
	if (r == 0 || r == m.p->err)
		r = ga_prom_parser_finish(m.p, status);
	/* the deadline cut the request short: say so, not "no answer within --timeout" */
	if (r == -ETIMEDOUT && b && b->deadline_s > 0 && ga_mono_s() >= b->deadline_s - 0.05)
		r = over_deadline(&m);
	if (r < 0 && r != -ENOMEM) {
		char msg[1200];
		snprintf(msg, sizeof(msg), "%s", ga_ctx_errmsg(ctx));
		ga_err(ctx, r, "%s (%s): %s", what, path, msg);
	}
	ga_prom_parser_free(m.p);
	return r;
}

int ga_prom_query(struct ga_ctx *ctx, const struct ga_prom_transport *t, const char *path, const char *form,
                  const char *what, ga_prom_series_fn fn, void *ud)
{
	return ga_prom_query_in(ctx, t, NULL, path, form, what, fn, ud);
}

int ga_prom_form_add(struct ga_buf *form, const char *name, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	int r = form->len ? ga_buf_add(form, "&", 1) : 0;
	for (int part = 0; part < 2 && r == 0; part++) {
		const char *s = part ? value : name;
		if (part)
			r = ga_buf_add(form, "=", 1);
		for (; *s && r == 0; s++) {
			unsigned char c = (unsigned char)*s;
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    strchr("-._~", c)) {
				r = ga_buf_add(form, s, 1);
			} else {
				char e[3] = { '%', hex[c >> 4], hex[c & 15] };
				r = ga_buf_add(form, e, 3);
			}
		}
	}
	return r;
}

/* --- --match and --at --------------------------------------------------- */

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

static const char *skip_ws(const char *s)
{
	while (is_ws(*s))
		s++;
	return s;
}

/* A quoted label value ("..." or '...' with escapes, or `...`): past its end, or NULL. */
static const char *quoted(const char *s)
{
	char q = *s++;
	if (q != '"' && q != '\'' && q != '`')
		return NULL;
	for (; *s && *s != q; s++) {
		if (*s == '\n')
			return NULL;
		if (*s == '\\' && q != '`' && !*++s)
			return NULL;
	}
	return *s == q ? s + 1 : NULL;
}

int ga_prom_matchers_parse(struct ga_ctx *ctx, const char *sel, char **ret)
{
	const char *s = skip_ws(sel), *why = NULL;
	struct ga_buf out;
	ga_buf_init(&out, 0);
	int r = 0;
	const char *t = s;
	while (name_char(*t) || *t == ':')
		t++;
	t = skip_ws(t);
	if ((name_start(*s) || *s == ':') && (!*t || *t == '{')) {
		/* a metric name: ours are fixed, so none may be given */
		why = "a metric name (fleet chooses the series; give label matchers only)";
		goto out;
	}
	bool braces = *s == '{';
	if (braces)
		s = skip_ws(s + 1);
	size_t n = 0;
	while (*s && *s != '}') {
		const char *b = s;
		if (!name_start(*s)) {
			why = "a label name expected";
			goto out;
		}
		while (name_char(*s))
			s++;
		const char *ne = s;
		s = skip_ws(s);
		size_t ol =
		        !strncmp(s, "=~", 2) || !strncmp(s, "!=", 2) || !strncmp(s, "!~", 2) ? 2 : *s == '=';
		if (!ol) {
			why = "an operator expected (=, !=, =~, !~)";
			goto out;
		}
		const char *op = s;
		s = skip_ws(s + ol);
		const char *ve = quoted(s);
		if (!ve) {
			why = "a quoted value expected";
			goto out;
		}
		r = ga_buf_addf(&out, "%s%.*s%.*s%.*s", n++ ? ", " : "", (int)(ne - b), b, (int)ol, op,
		                (int)(ve - s), s);
		if (r < 0)
			goto out;
		s = skip_ws(ve);
		if (*s == ',')
			s = skip_ws(s + 1);
		else if (*s && *s != '}') {
			why = "',' expected between matchers";
			goto out;
		}
	}
	if (braces != (*s == '}')) {
		why = braces ? "'}' missing" : "a '}' without '{'";
		goto out;
	}
	if (*s == '}')
		s = skip_ws(s + 1);
	if (*s) {
		why = "text after the matchers";
		goto out;
	}
	if (!n) {
		why = "no matcher";
		goto out;
	}
	if (!out.data && ga_buf_adds(&out, "") < 0)
		r = -ENOMEM;
out:
	if (why)
		r = ga_err(ctx, -EINVAL, "--match '%s': %s (PromQL label matchers, e.g. '{cluster=\"a\"}')",
		           sel, why);
	if (r == 0)
		*ret = ga_buf_detach(&out, NULL);
	ga_buf_release(&out);
	return r == 0 && !*ret ? -ENOMEM : r;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3u : 9u)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

static bool digits(const char *s, int n, unsigned *ret)
{
	unsigned v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*ret = v;
	return true;
}

int ga_prom_time_parse(const char *s, double *ret_s)
{
	double v;
	if (ga_parse_dbl(s, &v) == 0) {
		if (!isfinite(v) || v < 0 || v > 1e11)
			return -EINVAL;
		*ret_s = v;
		return 0;
	}
	unsigned y, mo, d, h, mi, sec;
	if (strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
	    !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
	    !digits(s + 17, 2, &sec))
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -EINVAL;
	const char *p = s + 19;
	double frac = 0, scale = 0.1;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	long off_s = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		unsigned oh, om;
		if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 || om > 59)
			return -EINVAL;
		off_s = (long)(oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	long long days = days_from_civil(y, mo, d);
	double t = (double)(days * 86400 + h * 3600 + mi * 60 + sec - off_s) + frac;
	if (t < 0)
		return -EINVAL;
	*ret_s = t;
	return 0;
}
