/*
 * http_native.c - the native HTTP/1.1 engine of `gpuaudit bench http` for
 * plain http:// URLs: non-blocking sockets on epoll, one keep-alive
 * connection per slot, one request in flight per connection (no pipelining).
 *
 * Why it exists: with libcurl every request re-parses the URL, rebuilds the
 * request, polls the reused connection twice and parses the status line with
 * sscanf; on loopback nginx that held the generator to 0.46-0.73 of wrk's
 * responses per CPU-second (docs/performance.md). Here the request bytes are
 * built once and written with one send(); the response is read with one
 * recv() per readiness event into one shared buffer and followed by
 * http_parser (lib/bench/http1.c), which needs no copy of it. In the steady
 * state a request costs send, recv, a share of one epoll_wait, and two clock
 * reads.
 *
 * Timing means what it means in the libcurl engine: intended (the schedule),
 * sent (the request handed to a connection, connecting included: the service
 * time of the first request on a connection includes the TCP handshake),
 * done (the last byte of the response parsed). A request that fails on a
 * reused keep-alive connection before any byte of its response (the server
 * closed the idle connection as the request went out) is sent again once on a
 * new connection, as browsers and libcurl do; its times still count from the
 * first attempt, and result.retries counts it.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "http-run.h"
#include "http1.h"
#include "gpuaudit/stats.h"

#define RECV_BUF_BYTES 65536
#define MAX_EVENTS 256

enum conn_state {
	C_IDLE,       /* connected (fd >= 0) or not (fd < 0), no request */
	C_CONNECTING, /* non-blocking connect in progress */
	C_SENDING,    /* the request is partly written */
	C_RECEIVING,  /* the request is written, the response not complete */
};

struct conn {
	int fd;
	enum conn_state state;
	uint32_t events; /* registered with epoll; 0: not registered */
	bool busy;       /* a request is assigned */
	bool reused;     /* fd has carried a complete response before */
	bool retried;    /* the request was already sent again once */
	size_t sent_bytes;
	uint64_t index;
	int64_t intended_ns, sent_ns, deadline_ns;
	const struct addrinfo *trying; /* the address being connected to */
	struct h1_resp resp;
};

struct engine {
	const struct ga_http_opts *o;
	struct ga_http_result *r;
	int epfd;
	/*
	 * The address connections go to: the first getaddrinfo gave, or the
	 * first that accepted a connection; NULL: the name did not resolve (every
	 * request fails)
	 */
	const struct addrinfo *addr;
	char addr_error[160];
	const char *req;
	size_t req_len;
	bool head;
	struct conn *conns;
	int *free_stack; /* indexes of conns without a request, most recently used last */
	int n_free;
	int in_flight;
	int64_t start_ns;
	int64_t next_tmo_check; /* no busy request has a deadline before this */
	const struct h1_url *url;
	char *buf;
};

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd); /* also leaves the epoll set */
	c->fd = -1;
	c->events = 0;
	c->reused = false;
	c->state = C_IDLE;
}

/* Register the interest in events, with no system call when it is unchanged. */
static int want_events(struct engine *e, struct conn *c, uint32_t events)
{
	if (c->events == events)
		return 0;
	struct epoll_event ev = { .events = events, .data.ptr = c };
	if (epoll_ctl(e->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) < 0)
		return -errno;
	c->events = events;
	return 0;
}

static void finish(struct engine *e, struct conn *c, enum bench_http_outcome outcome, int status,
                   const char *msg)
{
	int64_t t = bench_http_now_ns();
	ga_bench_http_record(e->r, c->index, c->intended_ns, c->sent_ns, t, e->start_ns, outcome, status,
	                     c->resp.version, msg);
	c->busy = false;
	e->free_stack[e->n_free++] = (int)(c - e->conns);
	e->in_flight--;
}

static void fail(struct engine *e, struct conn *c, enum bench_http_outcome outcome, const char *msg)
{
	conn_close(c);
	finish(e, c, outcome, 0, msg);
}

static void conn_start(struct engine *e, struct conn *c);

/*
 * The connection broke (reset, closed, send failed) while carrying c's
 * request. Retry once on a new connection when it was a reused one and no
 * byte of the response came; otherwise the request failed.
 */
static void broken(struct engine *e, struct conn *c, const char *msg)
{
	bool retry = c->reused && !c->resp.any_byte && !c->retried;
	conn_close(c);
	if (retry) {
		c->retried = true;
		e->r->retries++;
		conn_start(e, c);
		return;
	}
	finish(e, c, BENCH_HTTP_TRANSPORT, 0, msg);
}

static void do_send(struct engine *e, struct conn *c)
{
	ssize_t n = send(c->fd, e->req + c->sent_bytes, e->req_len - c->sent_bytes, MSG_NOSIGNAL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			char msg[160];
			snprintf(msg, sizeof(msg), "send: %s", strerror(errno));
			broken(e, c, msg);
			return;
		}
		n = 0;
	}
	c->sent_bytes += (size_t)n;
	c->state = c->sent_bytes == e->req_len ? C_RECEIVING : C_SENDING;
	/* Reading stays on while writing: a server may answer (413) before the body is in. */
	int err = want_events(e, c, c->state == C_SENDING ? EPOLLIN | EPOLLOUT : EPOLLIN);
	if (err < 0) {
		char msg[160];
		snprintf(msg, sizeof(msg), "epoll: %s", strerror(-err));
		fail(e, c, BENCH_HTTP_TRANSPORT, msg);
	}
}

static void conn_connect(struct engine *e, struct conn *c, const struct addrinfo *a);

/* Connecting failed: try the name's next address, or fail the request. */
static void connect_failed(struct engine *e, struct conn *c, int errnum)
{
	if (c->trying && c->trying->ai_next) {
		conn_close(c);
		conn_connect(e, c, c->trying->ai_next);
		return;
	}
	char msg[160];
	snprintf(msg, sizeof(msg), "connect to %s port %s: %s", e->url->host, e->url->port, strerror(errnum));
	fail(e, c, BENCH_HTTP_TRANSPORT, msg);
}

static void connected(struct engine *e, struct conn *c)
{
	e->addr = c->trying; /* later connections go straight there */
	do_send(e, c);
}

static void conn_connect(struct engine *e, struct conn *c, const struct addrinfo *a)
{
	c->trying = a;
	c->fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		connect_failed(e, c, errno);
		return;
	}
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, a->ai_addr, a->ai_addrlen) == 0) {
		connected(e, c);
		return;
	}
	if (errno != EINPROGRESS) {
		connect_failed(e, c, errno);
		return;
	}
	c->state = C_CONNECTING;
	int err = want_events(e, c, EPOLLOUT);
	if (err < 0)
		connect_failed(e, c, -err);
}

/* Send c's request: on its connection, or on a new one. */
static void conn_start(struct engine *e, struct conn *c)
{
	c->sent_bytes = 0;
	ga_h1_resp_begin(&c->resp, e->head);
	if (c->fd >= 0) {
		do_send(e, c);
		return;
	}
	if (!e->addr) {
		fail(e, c, BENCH_HTTP_TRANSPORT, e->addr_error);
		return;
	}
	conn_connect(e, c, e->addr);
}

static void response_done(struct engine *e, struct conn *c, bool extra_bytes)
{
	bool keep = c->resp.keep_alive && !extra_bytes;
	if (keep) {
		c->state = C_IDLE;
		c->reused = true;
	} else {
		conn_close(c);
	}
	finish(e, c, BENCH_HTTP_RESPONSE, c->resp.status, NULL);
}

static void on_readable(struct engine *e, struct conn *c)
{
	ssize_t n = recv(c->fd, e->buf, RECV_BUF_BYTES, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		if (!c->busy) {
			conn_close(c);
			return;
		}
		char msg[160];
		snprintf(msg, sizeof(msg), "recv: %s", strerror(errno));
		broken(e, c, msg);
		return;
	}
	if (!c->busy) {
		/* An idle keep-alive connection: the server closed it (or sent junk). */
		conn_close(c);
		return;
	}
	ssize_t used = ga_h1_resp_feed(&c->resp, e->buf, (size_t)n);
	if (c->resp.complete) {
		response_done(e, c, used < n);
		return;
	}
	if (used < 0) {
		char msg[160];
		snprintf(msg, sizeof(msg), "bad HTTP response: %s", c->resp.error);
		fail(e, c, BENCH_HTTP_TRANSPORT, msg);
		return;
	}
	if (n == 0) /* closed before any byte of the response */
		broken(e, c, "the server closed the connection without a response");
}

static void on_event(struct engine *e, struct conn *c, uint32_t events)
{
	if (c->state == C_CONNECTING) {
		int soerr = 0;
		socklen_t len = sizeof(soerr);
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			soerr = errno;
		if (soerr) {
			connect_failed(e, c, soerr);
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		connected(e, c);
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		on_readable(e, c);
		if (!c->busy || c->fd < 0)
			return;
	}
	if (c->state == C_SENDING && (events & EPOLLOUT))
		do_send(e, c);
}

/* Fail every request past its deadline; keep the earliest deadline left. */
static void check_timeouts(struct engine *e, int64_t now)
{
	int64_t next = INT64_MAX;
	int n_conns = e->o->connections;
	for (int i = 0; i < n_conns; i++) {
		struct conn *c = &e->conns[i];
		if (!c->busy)
			continue;
		if (c->deadline_ns <= now) {
			char msg[160];
			snprintf(msg, sizeof(msg), "timed out after %lld ms",
			         (long long)((c->deadline_ns - c->sent_ns) / 1000000));
			fail(e, c, BENCH_HTTP_TIMEOUT, msg);
		} else if (c->deadline_ns < next) {
			next = c->deadline_ns;
		}
	}
	e->next_tmo_check = next;
}

static int resolve(struct engine *e, struct addrinfo **ret)
{
	struct addrinfo hints;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	int rc = getaddrinfo(e->url->host, e->url->port, &hints, ret);
	if (rc == 0)
		return 0;
	*ret = NULL;
	if (rc == EAI_MEMORY)
		return -ENOMEM;
	/* As with libcurl: every request fails with the reason, the run goes on. */
	snprintf(e->addr_error, sizeof(e->addr_error), "could not resolve host %s: %s", e->url->host,
	         rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	return 0;
}

/* Connections, the free stack, the receive buffer, epoll and the timerfd. 0 or -errno (message in ctx). */
static int engine_open(struct ga_ctx *ctx, struct engine *e, int *tfd)
{
	int n = e->o->connections;
	e->conns = ga_calloc((size_t)n, sizeof(*e->conns));
	e->free_stack = ga_calloc((size_t)n, sizeof(int));
	e->buf = ga_malloc(RECV_BUF_BYTES);
	for (int i = 0; e->conns && i < n; i++)
		e->conns[i].fd = -1; /* before any return: the caller closes every conn */
	if (!e->conns || !e->free_stack || !e->buf)
		return -ENOMEM;
	/* Slot 0 on top of the stack: with few requests in flight, few connections open. */
	for (int i = 0; i < n; i++)
		e->free_stack[i] = n - 1 - i;
	e->n_free = n;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	*tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (e->epfd < 0 || *tfd < 0)
		return ga_err(ctx, -errno, "epoll/timerfd: %s", strerror(errno));
	struct epoll_event tev = { .events = EPOLLIN, .data.ptr = NULL };
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, *tfd, &tev) < 0)
		return ga_err(ctx, -errno, "epoll: %s", strerror(errno));
	return 0;
}

/* Where the schedule stands: the next request's index and due time. */
struct schedule {
	struct ga_rng rng;
	uint64_t total, next;
	double gap_ns, next_due; /* next_due: ns after start */
	int64_t start, end_ns, tmo_ns;
};

/* Send everything that is due at t, while a connection is free; returns the time after the last send. */
static int64_t send_due(struct engine *e, struct schedule *sc, int64_t t)
{
	const struct ga_http_opts *o = e->o;
	while (sc->next < sc->total && e->n_free > 0) {
		int64_t intended;
		if (o->closed_loop) {
			/* (connections refused at once would otherwise loop here) */
			if (t > sc->end_ns) {
				sc->total = sc->next;
				break;
			}
			intended = t;
		} else {
			intended = sc->start + (int64_t)sc->next_due;
			if (intended > t)
				break;
		}
		struct conn *c = &e->conns[e->free_stack[--e->n_free]];
		c->busy = true;
		c->retried = false;
		c->index = sc->next;
		c->intended_ns = intended;
		c->sent_ns = t;
		c->deadline_ns = t + sc->tmo_ns;
		if (c->deadline_ns < e->next_tmo_check)
			e->next_tmo_check = c->deadline_ns;
		ga_hist_record(&e->r->lag, t - intended);
		e->in_flight++;
		e->r->sent++;
		sc->next++;
		sc->next_due += o->poisson ? ga_rng_exponential(&sc->rng, 1.0) * sc->gap_ns : sc->gap_ns;
		conn_start(e, c);
		t = bench_http_now_ns();
	}
	return t;
}

/* The request loop: 0 or -errno (message in ctx). */
static int engine_loop(struct ga_ctx *ctx, struct engine *e, struct bench_http_plan *plan, int tfd)
{
	const struct ga_http_opts *o = e->o;
	struct ga_http_result *r = e->r;
	struct schedule sc = { .total = plan->total, .gap_ns = plan->gap_ns, .tmo_ns = plan->tmo_ns };
	ga_rng_seed(&sc.rng, o->seed);
	sc.start = bench_http_now_ns();
	plan->start_ns = sc.start;
	e->start_ns = sc.start;
	e->next_tmo_check = INT64_MAX;
	sc.end_ns = sc.start + (int64_t)(o->duration_s * 1e9);
	/* Give up on requests not sent by the end of the schedule plus one timeout. */
	int64_t hard_end = sc.end_ns + plan->tmo_ns;
	int64_t armed = -1;
	struct epoll_event evs[MAX_EVENTS];
	for (;;) {
		int64_t t = bench_http_now_ns();
		/* A closed loop sends for the duration, as fast as answers come back. */
		if (o->closed_loop && sc.next < sc.total && t > sc.end_ns)
			sc.total = sc.next;
		if (sc.next < sc.total && t > hard_end) {
			r->not_sent = sc.total - sc.next;
			r->errors += r->not_sent;
			sc.total = sc.next;
		}
		if (t >= e->next_tmo_check)
			check_timeouts(e, t);
		t = send_due(e, &sc, t);
		if (sc.next >= sc.total && e->in_flight == 0)
			break;
		/* Wait for sockets, the next due request or the next deadline (timerfd). */
		int64_t wake = e->next_tmo_check;
		if (sc.next < sc.total && e->n_free > 0) {
			int64_t due = o->closed_loop ? t : sc.start + (int64_t)sc.next_due;
			if (due < wake)
				wake = due;
		}
		int wait_ms = -1;
		if (wake <= t) {
			wait_ms = 0;
		} else if (wake == INT64_MAX) {
			wait_ms = 1000; /* cannot happen with a request in flight; a safety net */
		} else if (wake != armed) {
			ga_bench_http_arm(tfd, wake);
			armed = wake;
		}
		int nev = epoll_wait(e->epfd, evs, MAX_EVENTS, wait_ms);
		if (nev < 0 && errno != EINTR)
			return ga_err(ctx, -errno, "epoll_wait: %s", strerror(errno));
		for (int k = 0; k < nev; k++) {
			struct conn *c = evs[k].data.ptr;
			if (!c) {
				uint64_t ticks;
				if (read(tfd, &ticks, sizeof(ticks)) < 0) {
					/* EAGAIN: already drained */
				}
				armed = -1;
				continue;
			}
			on_event(e, c, evs[k].events);
		}
	}
	r->elapsed_s = (double)(bench_http_now_ns() - sc.start) * 1e-9;
	return 0;
}

int ga_bench_http_run_native(struct ga_ctx *ctx, const struct ga_http_opts *o, struct bench_http_plan *plan,
                             struct ga_http_result *r)
{
	struct engine e;
	struct h1_url url;
	struct ga_buf req;
	struct addrinfo *ai = NULL;
	int tfd = -1;
	int err = 0;
	memset(&e, 0, sizeof(e));
	memset(&url, 0, sizeof(url));
	ga_buf_init(&req, 0);
	e.epfd = -1;
	e.o = o;
	e.r = r;
	r->engine = "native";
	if ((err = ga_h1_url_split(ctx, o->url, &url)) < 0)
		goto out;
	e.url = &url;
	if ((err = ga_h1_request_build(ctx, o, &url, &req)) < 0)
		goto out;
	e.req = req.data;
	e.req_len = req.len;
	e.head = o->method && !strcmp(o->method, "HEAD");
	if ((err = resolve(&e, &ai)) < 0)
		goto out;
	e.addr = ai;
	if ((err = engine_open(ctx, &e, &tfd)) < 0)
		goto out;
	err = engine_loop(ctx, &e, plan, tfd);
out:
	if (e.conns)
		for (int i = 0; i < o->connections; i++)
			conn_close(&e.conns[i]);
	if (e.epfd >= 0)
		close(e.epfd);
	if (tfd >= 0)
		close(tfd);
	if (ai)
		freeaddrinfo(ai);
	ga_free(e.conns);
	ga_free(e.free_stack);
	ga_free(e.buf);
	ga_buf_release(&req);
	ga_h1_url_release(&url);
	return err;
}
