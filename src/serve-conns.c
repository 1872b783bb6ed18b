/*
 * serve-conns.c - the connection table of `gpuaudit serve` (serve-conns.h):
 * a whole-request deadline and a cap on incomplete requests, enforced by us
 * because libmicrohttpd only has an idle timeout (reset by every byte) and
 * limits that refuse the newcomer (so 64 slowloris clients starved every
 * scrape). libmicrohttpd's thread adds and removes entries through its
 * notification callbacks; serve's main thread sweeps for deadlines. A
 * connection is cut with shutdown(2) on its socket, under the table's lock:
 * libmicrohttpd reports MHD_CONNECTION_NOTIFY_CLOSED (which takes the lock
 * and unlinks the entry) before it closes the descriptor, so a descriptor in
 * the table is always still the connection's own (libmicrohttpd 0.9.75,
 * MHD_cleanup_connections). The daemon then sees the end of the stream and
 * closes the connection in its own thread.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>

#include "serve-int.h"

struct serve_conn {
	struct serve_conn *prev, *next;
	int fd;
	sa_family_t family;
	unsigned char addr[16]; /* the client's address, without the port */
	double since_mono;      /* accept, or the end of the previous answer on a kept-alive connection */
	bool answering;         /* headers complete, the answer not yet sent */
	bool cut;               /* shut down by us; libmicrohttpd has yet to close it */
};

unsigned serve_conns_waiting_share(unsigned max_conns)
{
	unsigned reserved = (max_conns + 3) / 4;
	return max_conns > reserved ? max_conns - reserved : 1;
}

void serve_conns_init(struct serve_conns *t, unsigned max_conns, unsigned max_per_ip,
                      double request_timeout_s)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->request_timeout_s = request_timeout_s;
	t->max_waiting = serve_conns_waiting_share(max_conns);
	t->max_waiting_ip = max_per_ip < t->max_waiting ? max_per_ip : t->max_waiting;
}

void serve_conns_release(struct serve_conns *t)
{
	/* the daemon is stopped: what is left was never reported closed */
	struct serve_conn *e = t->head;
	while (e) {
		struct serve_conn *next = e->next;
		free(e);
		e = next;
	}
	t->head = t->tail = NULL;
	pthread_mutex_destroy(&t->lock);
}

static void unlink_conn(struct serve_conns *t, struct serve_conn *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		t->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		t->tail = e->prev;
	e->prev = e->next = NULL;
}

static void append_conn(struct serve_conns *t, struct serve_conn *e)
{
	e->prev = t->tail;
	e->next = NULL;
	if (t->tail)
		t->tail->next = e;
	else
		t->head = e;
	t->tail = e;
}

static bool is_waiting(const struct serve_conn *e)
{
	return !e->cut && !e->answering;
}

/* Close e (under the lock): the daemon reads the end of the stream and closes it. */
static void cut(struct serve_conns *t, struct serve_conn *e)
{
	if (e->cut)
		return;
	if (is_waiting(e))
		t->n_waiting--;
	e->cut = true;
	shutdown(e->fd, SHUT_RDWR);
}

static bool same_addr(const struct serve_conn *a, const struct serve_conn *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Bytes the client sent that the daemon has yet to read: such a request is merely not read yet. */
static bool has_unread(const struct serve_conn *e)
{
	int n = 0;
	return ioctl(e->fd, FIONREAD, &n) == 0 && n > 0;
}

/*
 * The oldest incomplete request that is stalled on its client (from like's
 * address when like is given), NULL if none: waiting for at least
 * SERVE_CONNS_GRACE_S (a request sent right after connecting, or right after
 * the previous answer, is not slow merely because the daemon has yet to read
 * it) and nothing unread in the socket.
 */
static struct serve_conn *oldest_stalled(struct serve_conns *t, const struct serve_conn *like,
                                         double now_mono)
{
	for (struct serve_conn *e = t->head; e && now_mono - e->since_mono >= SERVE_CONNS_GRACE_S;
	     e = e->next)
		if (is_waiting(e) && (!like || same_addr(e, like)) && !has_unread(e))
			return e;
	return NULL;
}

/* Hold the caps (the per-address one for like's address, when given) by closing the oldest stalled requests. */
static void enforce(struct serve_conns *t, const struct serve_conn *like, double now_mono)
{
	unsigned from_ip = 0;
	if (like)
		for (struct serve_conn *p = t->head; p; p = p->next)
			if (is_waiting(p) && same_addr(p, like))
				from_ip++;
	struct serve_conn *v;
	for (; from_ip > t->max_waiting_ip && (v = oldest_stalled(t, like, now_mono)); from_ip--) {
		cut(t, v);
		t->n_cut_evicted++;
	}
	while (t->n_waiting > t->max_waiting && (v = oldest_stalled(t, NULL, now_mono))) {
		cut(t, v);
		t->n_cut_evicted++;
	}
}

static void set_addr(struct serve_conn *e, const struct sockaddr *sa)
{
	if (!sa)
		return;
	e->family = sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(e->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(e->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
}

static void conn_started(struct serve_conns *t, struct MHD_Connection *c, void **socket_context)
{
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *ad = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!fd)
		return;
	struct serve_conn *e = calloc(1, sizeof(*e));
	if (!e) {
		shutdown(fd->connect_fd, SHUT_RDWR); /* untracked would mean unbounded: refuse */
		return;
	}
	e->fd = fd->connect_fd;
	set_addr(e, ad ? ad->client_addr : NULL);
	*socket_context = e;
	pthread_mutex_lock(&t->lock);
	e->since_mono = serve_now_mono();
	append_conn(t, e);
	t->n_waiting++;
	enforce(t, e, e->since_mono);
	pthread_mutex_unlock(&t->lock);
}

void serve_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe)
{
	struct serve_conns *t = cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_started(t, c, socket_context);
		serve_web_guard_plain(c);
		return;
	}
	struct serve_conn *e = *socket_context;
	if (!e)
		return;
	pthread_mutex_lock(&t->lock);
	if (is_waiting(e))
		t->n_waiting--;
	unlink_conn(t, e);
	pthread_mutex_unlock(&t->lock);
	*socket_context = NULL;
	free(e);
}

static struct serve_conn *entry_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

void serve_conns_headers_done(struct serve_conns *t, struct MHD_Connection *c)
{
	struct serve_conn *e = entry_of(c);
	if (!e)
		return;
	pthread_mutex_lock(&t->lock);
	if (is_waiting(e))
		t->n_waiting--;
	e->answering = true;
	pthread_mutex_unlock(&t->lock);
}

void serve_conns_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
	struct serve_conns *t = cls;
	struct serve_req *rq = con_cls ? *con_cls : NULL;
	if (rq) { /* the handler's state of this request (serve-http.c) */
		explicit_bzero(rq, sizeof(*rq));
		free(rq);
		*con_cls = NULL;
	}
	struct serve_conn *e = entry_of(c);
	if (!e || toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		return; /* otherwise the connection is being closed */
	pthread_mutex_lock(&t->lock);
	if (e->answering && !e->cut) {
		/* kept alive: the next request has the whole deadline from now, and is incomplete */
		e->answering = false;
		e->since_mono = serve_now_mono();
		unlink_conn(t, e);
		append_conn(t, e);
		t->n_waiting++;
	}
	pthread_mutex_unlock(&t->lock);
}

void serve_conns_counts(struct serve_conns *t, uint64_t *ret_deadline, uint64_t *ret_evicted)
{
	pthread_mutex_lock(&t->lock);
	*ret_deadline = t->n_cut_deadline;
	*ret_evicted = t->n_cut_evicted;
	pthread_mutex_unlock(&t->lock);
}

void serve_conns_sweep(struct serve_conns *t, double now_mono)
{
	pthread_mutex_lock(&t->lock);
	/* the list is ordered by since_mono: stop at the first request still within its deadline */
	for (struct serve_conn *e = t->head; e && now_mono - e->since_mono >= t->request_timeout_s;
	     e = e->next) {
		if (!e->cut)
			t->n_cut_deadline++;
		cut(t, e);
	}
	enforce(t, NULL, now_mono); /* kept-alive connections may have gone over the share since */
	pthread_mutex_unlock(&t->lock);
}

/*
 * TCP_DEFER_ACCEPT on the listening socket: the kernel hands over a
 * connection once its first bytes arrive (a scrape sends its request, TLS
 * its ClientHello, at once), so connections that send nothing wait in the
 * kernel for the idle timeout, not in the accept queue ahead of a scraper's
 * (issue 29: 2,000 idle reconnecting clients). Linux still hands an idle one
 * over when the time is up (at its next SYN-ACK retransmission); then the
 * idle timeout runs again and the table cuts it as before.
 * Best effort: another system, or a socket that is not TCP, keeps the default.
 */
void serve_conns_defer_accept(struct MHD_Daemon *d, unsigned idle_s)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	int secs = idle_s > 0 && idle_s < 3600 ? (int)idle_s : 10;
	if (i && i->listen_fd >= 0)
		(void)setsockopt(i->listen_fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs, sizeof(secs));
}
