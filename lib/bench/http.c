/*
 * http.c - open-loop HTTP load for `gpuaudit bench http`: the schedule, the
 * recording of results, and the libcurl engine (multi interface). Plain
 * http:// with HTTP/1.1 goes to the native engine (http_native.c) unless
 * libcurl is asked for.
 *
 * Request i is due at start + i/rate (or after exponential gaps with
 * --poisson). Its latency counts from that intended time, so a server stall
 * that holds back the following requests shows in every one of them
 * (coordinated omission, as wrk2 corrects it); the uncorrected latency (from
 * the actual send) and the generator's lag (actual - intended send) are kept
 * apart. At most `connections` requests are in flight; requests due while all
 * are busy wait in the generator and are sent late, their wait counted.
 * A closed-loop mode (next request when one finishes) exists to show what a
 * closed-loop tool would report.
 *
 * The loop is event driven (epoll and curl_multi_socket_action): curl learns
 * which socket is ready instead of polling every transfer, and a timerfd armed
 * at the next due time wakes the generator without a sleep's granularity.
 */
/*
 * libcurl is loaded with dlopen on the first run, not linked: linking it maps
 * and initialises OpenSSL, nghttp2, LDAP and Kerberos in every gpuaudit process
 * (6.5 MiB of resident memory measured here), which the long-running exporter
 * (`serve`) pays for nothing. The header gives the types and constants; the
 * calls below go through the one libcurl table of lib/dl/curl_dl.h, ga_curl_api
 * (the names are macros).
 */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "../dl/curl_dl.h"
#include "http-run.h"
#include "http1.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/stats.h"

#define MAX_REQUESTS 100000000ULL
#define HIST_HIGHEST_NS BENCH_HTTP_HIST_HIGHEST_NS

/* curl.h defines these four as function-like macros of themselves */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#define curl_easy_setopt ga_curl_api.curl_easy_setopt
#define curl_easy_getinfo ga_curl_api.curl_easy_getinfo
#define curl_easy_strerror ga_curl_api.curl_easy_strerror
#define curl_easy_init ga_curl_api.curl_easy_init
#define curl_easy_cleanup ga_curl_api.curl_easy_cleanup
#define curl_multi_setopt ga_curl_api.curl_multi_setopt
#define curl_multi_strerror ga_curl_api.curl_multi_strerror
#define curl_multi_socket_action ga_curl_api.curl_multi_socket_action
#define curl_multi_remove_handle ga_curl_api.curl_multi_remove_handle
#define curl_multi_add_handle ga_curl_api.curl_multi_add_handle
#define curl_multi_init ga_curl_api.curl_multi_init
#define curl_multi_info_read ga_curl_api.curl_multi_info_read
#define curl_multi_cleanup ga_curl_api.curl_multi_cleanup
#define curl_multi_assign ga_curl_api.curl_multi_assign
#define curl_version_info ga_curl_api.curl_version_info
#define curl_slist_append ga_curl_api.curl_slist_append
#define curl_slist_free_all ga_curl_api.curl_slist_free_all

#define now_ns bench_http_now_ns

struct slot {
	CURL *easy;
	bool busy;
	uint64_t index;
	int64_t intended_ns;
	int64_t sent_ns;
};

static size_t discard(char *p, size_t size, size_t n, void *udata)
{
	(void)p;
	(void)udata;
	return size * n;
}

static bool h2c_no_reuse(const struct ga_http_opts *o)
{
	return o->http2 && strncmp(o->url, "https:", 6) &&
	       curl_version_info(CURLVERSION_NOW)->version_num < 0x080000;
}

static int setup_easy(struct ga_ctx *ctx, const struct ga_http_opts *o, struct curl_slist *headers, CURL *e)
{
	long tmo_ms = (long)((o->timeout_s > 0 ? o->timeout_s : 30.0) * 1000);
	CURLcode rc = CURLE_OK;
#define SET(opt, val)                                       \
	do {                                                \
		if (rc == CURLE_OK)                         \
			rc = curl_easy_setopt(e, opt, val); \
	} while (0)
	SET(CURLOPT_URL, o->url);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_WRITEFUNCTION, discard);
	SET(CURLOPT_TIMEOUT_MS, tmo_ms);
	SET(CURLOPT_TCP_NODELAY, 1L);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	/* The target named, not a proxy from the environment (and no getenv per request). */
	SET(CURLOPT_PROXY, "");
	if (o->http2)
		SET(CURLOPT_HTTP_VERSION, !strncmp(o->url, "https:", 6)
		                                  ? (long)CURL_HTTP_VERSION_2TLS
		                                  : (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
	else
		SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	if (o->http2 && !h2c_no_reuse(o))
		SET(CURLOPT_PIPEWAIT, 1L);
	if (h2c_no_reuse(o)) {
		/*
		 * libcurl before 8.0 fails every transfer on a reused HTTP/2
		 * prior-knowledge connection ("Error in the HTTP2 framing layer",
		 * curl issue 10634, fixed in 8.0): a connection per request there.
		 */
		SET(CURLOPT_FORBID_REUSE, 1L);
	}
	if (headers)
		SET(CURLOPT_HTTPHEADER, headers);
	if (o->body) {
		SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->body_len);
		SET(CURLOPT_POSTFIELDS, o->body);
	}
	if (o->method)
		SET(CURLOPT_CUSTOMREQUEST, o->method);
#undef SET
	if (rc != CURLE_OK)
		return ga_err(ctx, -EINVAL, "libcurl: %s", curl_easy_strerror(rc));
	return 0;
}

static void finish_one(struct ga_http_result *r, struct slot *s, CURLcode code, int64_t start_ns)
{
	long status = 0;
	curl_off_t total_us = 0;
	long v = 0;
	curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(s->easy, CURLINFO_TOTAL_TIME_T, &total_us);
	curl_easy_getinfo(s->easy, CURLINFO_HTTP_VERSION, &v);
	int version = v == CURL_HTTP_VERSION_1_0   ? 10
	              : v == CURL_HTTP_VERSION_1_1 ? 11
	              : v == CURL_HTTP_VERSION_2_0 ? 20
	                                           : 0;
	enum bench_http_outcome outcome = code == CURLE_OK                   ? BENCH_HTTP_RESPONSE
	                                  : code == CURLE_OPERATION_TIMEDOUT ? BENCH_HTTP_TIMEOUT
	                                                                     : BENCH_HTTP_TRANSPORT;
	ga_bench_http_record(r, s->index, s->intended_ns, s->sent_ns, s->sent_ns + (int64_t)total_us * 1000,
	                     start_ns, outcome, (int)status, version,
	                     code == CURLE_OK ? NULL : curl_easy_strerror(code));
	s->busy = false;
}

struct loop {
	CURLM *multi;
	int epfd;
	int64_t curl_deadline_ns; /* -1: no curl timer */
};

static int on_socket(CURL *e, curl_socket_t fd, int what, void *udata, void *sockp)
{
	(void)e;
	struct loop *l = udata;
	/* sockp remembers the events registered (plus a marker bit), so that
	 * unchanged interest costs no epoll_ctl. */
	uintptr_t had = (uintptr_t)sockp;
	if (what == CURL_POLL_REMOVE) {
		if (had)
			epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
		return 0;
	}
	uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
	uintptr_t want = (uintptr_t)events | 0x10000u;
	if (had == want)
		return 0;
	struct epoll_event ev = { .events = events, .data.fd = fd };
	if (epoll_ctl(l->epfd, had ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) < 0 &&
	    epoll_ctl(l->epfd, had ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev) < 0)
		return -1;
	curl_multi_assign(l->multi, fd, (void *)want);
	return 0;
}

static int on_timer(CURLM *m, long timeout_ms, void *udata)
{
	(void)m;
	struct loop *l = udata;
	l->curl_deadline_ns = timeout_ms < 0 ? -1 : now_ns() + (int64_t)timeout_ms * 1000000;
	return 0;
}

#define arm ga_bench_http_arm

/* What one libcurl run holds: a slot (easy handle) per connection, the multi handle, epoll and the timerfd. */
struct curl_engine {
	struct slot *slots;
	int n_slots;
	struct curl_slist *headers;
	CURLM *multi;
	struct loop lp;
	int tfd;
};

static void curl_engine_close(struct curl_engine *e)
{
	for (int i = 0; e->slots && i < e->n_slots; i++) {
		if (e->slots[i].easy) {
			if (e->multi && e->slots[i].busy)
				curl_multi_remove_handle(e->multi, e->slots[i].easy);
			curl_easy_cleanup(e->slots[i].easy);
		}
	}
	if (e->multi)
		curl_multi_cleanup(e->multi);
	curl_slist_free_all(e->headers);
	ga_free(e->slots);
	if (e->lp.epfd >= 0)
		close(e->lp.epfd);
	if (e->tfd >= 0)
		close(e->tfd);
}

/* The multi handle with its socket and timer callbacks on epoll. 0 or -errno (message in ctx). */
static int curl_engine_multi(struct ga_ctx *ctx, const struct ga_http_opts *o, struct curl_engine *e)
{
	e->multi = curl_multi_init();
	if (!e->multi)
		return ga_err(ctx, -ENOMEM, "libcurl: cannot create a multi handle");
	e->lp.epfd = epoll_create1(EPOLL_CLOEXEC);
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (e->lp.epfd < 0 || e->tfd < 0)
		return ga_err(ctx, -errno, "epoll/timerfd: %s", strerror(errno));
	struct epoll_event tev = { .events = EPOLLIN, .data.fd = e->tfd };
	if (epoll_ctl(e->lp.epfd, EPOLL_CTL_ADD, e->tfd, &tev) < 0)
		return ga_err(ctx, -errno, "epoll: %s", strerror(errno));
	CURLM *multi = e->multi;
	e->lp.multi = multi;
	curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &e->lp);
	curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &e->lp);
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)o->connections);
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)o->connections);
	/* Multiplexing onto a busy h2c connection hits the same libcurl < 8.0 bug. */
	curl_multi_setopt(multi, CURLMOPT_PIPELINING,
	                  o->http2 && !h2c_no_reuse(o) ? (long)CURLPIPE_MULTIPLEX : (long)CURLPIPE_NOTHING);
	return 0;
}

/* Slots, headers, the multi handle and an easy handle per connection. 0 or -errno (message in ctx). */
static int curl_engine_open(struct ga_ctx *ctx, const struct ga_http_opts *o, struct curl_engine *e)
{
	e->slots = ga_calloc((size_t)o->connections, sizeof(*e->slots));
	if (!e->slots)
		return -ENOMEM;
	e->n_slots = o->connections;
	for (size_t i = 0; i < o->n_headers; i++) {
		struct curl_slist *n = curl_slist_append(e->headers, o->headers[i]);
		if (!n)
			return -ENOMEM;
		e->headers = n;
	}
	int err = curl_engine_multi(ctx, o, e);
	if (err < 0)
		return err;
	for (int i = 0; i < o->connections; i++) {
		e->slots[i].easy = curl_easy_init();
		if (!e->slots[i].easy)
			return ga_err(ctx, -ENOMEM, "libcurl: cannot create a handle");
		if ((err = setup_easy(ctx, o, e->headers, e->slots[i].easy)) < 0)
			return err;
		curl_easy_setopt(e->slots[i].easy, CURLOPT_PRIVATE, &e->slots[i]);
	}
	return 0;
}

/*
 * Hand the ready sockets and an expired curl timer to libcurl and record the
 * transfers that finished. 0 or -EIO (message in ctx).
 */
static int curl_engine_pump(struct ga_ctx *ctx, struct curl_engine *e, const struct epoll_event *evs, int nev,
                            struct ga_http_result *r, int64_t start, int *in_flight)
{
	CURLM *multi = e->multi;
	int running = 0;
	for (int k = 0; k < nev; k++) {
		if (evs[k].data.fd == e->tfd) {
			uint64_t ticks;
			if (read(e->tfd, &ticks, sizeof(ticks)) < 0) {
				/* EAGAIN: already drained */
			}
			continue;
		}
		int flags = (evs[k].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
		            (evs[k].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
		            (evs[k].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
		CURLMcode mc = curl_multi_socket_action(multi, evs[k].data.fd, flags, &running);
		if (mc != CURLM_OK)
			return ga_err(ctx, -EIO, "libcurl: %s", curl_multi_strerror(mc));
	}
	if (e->lp.curl_deadline_ns >= 0 && e->lp.curl_deadline_ns <= now_ns()) {
		e->lp.curl_deadline_ns = -1;
		CURLMcode mc = curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
		if (mc != CURLM_OK)
			return ga_err(ctx, -EIO, "libcurl: %s", curl_multi_strerror(mc));
	}
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(multi, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct slot *s = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
		CURLcode code = msg->data.result;
		curl_multi_remove_handle(multi, msg->easy_handle);
		finish_one(r, s, code, start);
		(*in_flight)--;
	}
	return 0;
}

/* How long epoll_wait may sleep until wake (absolute ns, < 0: nothing due): -1 arms the timerfd. */
static int wait_ms_until(int64_t wake)
{
	if (wake < 0)
		return 1000;
	return wake <= now_ns() ? 0 : -1;
}

static int curl_run(struct ga_ctx *ctx, const struct ga_http_opts *o, struct bench_http_plan *plan,
                    struct ga_http_result *r)
{
	struct curl_engine e = { .lp = { .epfd = -1, .curl_deadline_ns = -1 }, .tfd = -1 };
	uint64_t total = plan->total;
	char why[256];
	if (!ga_curl_api_get(why, sizeof(why)))
		return ga_err(ctx, -ENOENT, "%s", why);
	r->engine = "libcurl";
	r->h2_no_reuse = h2c_no_reuse(o);
	int err = curl_engine_open(ctx, o, &e);
	if (err < 0)
		goto out;

	struct ga_rng rng;
	ga_rng_seed(&rng, o->seed);
	double gap_ns = plan->gap_ns;
	int64_t start = now_ns();
	plan->start_ns = start;
	double next_due = 0; /* ns after start */
	uint64_t next = 0;
	int in_flight = 0;
	int64_t tmo_ns = plan->tmo_ns;
	/* Give up on requests not sent by the end of the schedule plus one timeout. */
	int64_t hard_end = start + (int64_t)(o->duration_s * 1e9) + tmo_ns;
	for (;;) {
		int64_t t = now_ns();
		/* A closed loop sends for the duration, as fast as answers come back. */
		if (o->closed_loop && next < total && t > start + (int64_t)(o->duration_s * 1e9))
			total = next;
		if (next < total && t > hard_end) {
			r->not_sent = total - next;
			r->errors += r->not_sent;
			total = next;
		}
		/* Send everything that is due, while a connection is free. */
		for (int i = 0; i < o->connections && next < total; i++) {
			struct slot *s = &e.slots[i];
			if (s->busy)
				continue;
			int64_t intended;
			if (o->closed_loop) {
				intended = t;
			} else {
				intended = start + (int64_t)next_due;
				if (intended > t)
					break;
			}
			s->busy = true;
			s->index = next;
			s->intended_ns = intended;
			s->sent_ns = t;
			ga_hist_record(&r->lag, t - intended);
			CURLMcode mc = curl_multi_add_handle(e.multi, s->easy);
			if (mc != CURLM_OK) {
				err = ga_err(ctx, -EIO, "libcurl: %s", curl_multi_strerror(mc));
				goto out;
			}
			in_flight++;
			r->sent++;
			next++;
			next_due += o->poisson ? ga_rng_exponential(&rng, 1.0) * gap_ns : gap_ns;
		}
		if (next >= total && in_flight == 0)
			break;
		/* Wait for sockets, curl's timer or the next due request (timerfd). */
		int64_t due = -1;
		if (next < total && in_flight < o->connections)
			due = o->closed_loop ? now_ns() : start + (int64_t)next_due;
		int64_t wake = e.lp.curl_deadline_ns;
		if (due >= 0 && (wake < 0 || due < wake))
			wake = due;
		int wait_ms = wait_ms_until(wake);
		if (wait_ms == -1)
			arm(e.tfd, wake); /* the timerfd wakes us, precisely */
		struct epoll_event evs[64];
		int nev = epoll_wait(e.lp.epfd, evs, 64, wait_ms);
		if (nev < 0 && errno != EINTR) {
			err = ga_err(ctx, -errno, "epoll_wait: %s", strerror(errno));
			goto out;
		}
		if ((err = curl_engine_pump(ctx, &e, evs, nev, r, start, &in_flight)) < 0)
			goto out;
	}
	r->elapsed_s = (double)(now_ns() - start) * 1e-9;
out:
	curl_engine_close(&e);
	return err;
}

/*
 * The native engine applies: plain http://, HTTP/1.1, a URL it can split
 * (no credentials; libcurl takes what http_parser would refuse, such as an
 * empty port).
 */
static bool native_fits(struct ga_ctx *ctx, const struct ga_http_opts *o)
{
	if (strncmp(o->url, "http://", 7) || o->http2)
		return false;
	struct h1_url u;
	if (ga_h1_url_split(ctx, o->url, &u) < 0)
		return false;
	ga_h1_url_release(&u);
	return true;
}

int ga_http_run(struct ga_ctx *ctx, const struct ga_http_opts *o, struct ga_http_result *ret)
{
	struct ga_http_result r;
	memset(&r, 0, sizeof(r));
	int err = 0;
	if (!o->url || !(o->rate > 0) || !(o->duration_s > 0) || o->connections < 1 || o->connections > 10000)
		return ga_err(ctx, -EINVAL, "bad load options");
	bool native = o->engine == GA_HTTP_ENGINE_NATIVE ||
	              (o->engine == GA_HTTP_ENGINE_AUTO && native_fits(ctx, o));
	if (o->engine == GA_HTTP_ENGINE_NATIVE && (strncmp(o->url, "http://", 7) || o->http2))
		return ga_err(ctx, -EINVAL,
		              "the native engine speaks HTTP/1.1 on http:// only "
		              "(libcurl does https:// and HTTP/2)");
	double want = o->rate * o->duration_s;
	if (want > (double)MAX_REQUESTS)
		return ga_err(ctx, -EINVAL, "rate x duration is more than %llu requests",
		              (unsigned long long)MAX_REQUESTS);
	struct bench_http_plan plan = {
		.total = (uint64_t)ceil(want - 1e-9),
		.tmo_ns = (int64_t)((o->timeout_s > 0 ? o->timeout_s : 30.0) * 1e9),
		.gap_ns = 1e9 / o->rate,
	};
	if (plan.total == 0)
		plan.total = 1;
	r.first_ok_s = -1;
	if ((err = ga_hist_init(&r.latency, 1, HIST_HIGHEST_NS, 3)) < 0 ||
	    (err = ga_hist_init(&r.service, 1, HIST_HIGHEST_NS, 3)) < 0 ||
	    (err = ga_hist_init(&r.lag, 1, HIST_HIGHEST_NS, 3)) < 0)
		goto out;
	r.n_cold = o->cold_requests ? o->cold_requests : 10;
	if (r.n_cold > plan.total)
		r.n_cold = plan.total;
	r.cold_latency_s = ga_calloc(r.n_cold, sizeof(double));
	if (!r.cold_latency_s) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r.n_cold; i++)
		r.cold_latency_s[i] = NAN;
	err = native ? ga_bench_http_run_native(ctx, o, &plan, &r) : curl_run(ctx, o, &plan, &r);
	if (err < 0)
		goto out;
	*ret = r;
	memset(&r, 0, sizeof(r));
out:
	ga_http_result_release(&r);
	return err;
}
