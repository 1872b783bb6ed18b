/*
 * serve-conns.h - serve's own bookkeeping of its HTTP connections, so that
 * slow clients cannot starve a scrape (issue 22): libmicrohttpd's timeout is
 * an idle timeout that every byte resets, and it refuses the newcomer when a
 * limit is reached. This table gives every request a whole-request deadline
 * and, when too many requests are still incomplete (in all or from one client
 * address), closes the oldest incomplete one instead of turning the new one
 * away. docs/serve.md ("Limits") explains the numbers.
 */
#ifndef GA_SRC_SERVE_CONNS_H
#define GA_SRC_SERVE_CONNS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "serve-dl.h" /* <microhttpd.h>, called through the loaded table */

struct serve_conn; /* one tracked connection (serve-conns.c) */

/* An incomplete request younger than this is never closed to make room (serve-conns.c). */
#define SERVE_CONNS_GRACE_S 0.2

struct serve_conns {
	pthread_mutex_t lock;
	struct serve_conn *head, *tail; /* by the start of the current request, oldest first */
	unsigned n_waiting;             /* incomplete requests not yet cut */
	/* limits */
	double request_timeout_s; /* headers read and answer sent within this of the request's start */
	unsigned max_waiting;     /* incomplete requests in all */
	unsigned max_waiting_ip;  /* incomplete requests from one client address */
	uint64_t n_cut_deadline;  /* closed at the deadline */
	uint64_t n_cut_evicted;   /* closed to make room for a newer request */
};

/*
 * max_conns is libmicrohttpd's connection limit: a quarter of it (at least one
 * slot, when max_conns > 1) is kept for requests whose headers are complete,
 * so incomplete ones can never hold every slot and the daemon always accepts.
 */
void serve_conns_init(struct serve_conns *t, unsigned max_conns, unsigned max_per_ip,
                      double request_timeout_s);
void serve_conns_release(struct serve_conns *t);

/* The number of slots incomplete requests may hold out of max_conns. */
unsigned serve_conns_waiting_share(unsigned max_conns);

/* MHD_OPTION_NOTIFY_CONNECTION (cls: the table): tracks accepts and closes. */
void serve_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe);
/* MHD_OPTION_NOTIFY_COMPLETED (cls: the table): a kept-alive connection waits for its next request. */
void serve_conns_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe);
/* From the request handler: c's request headers are complete. */
void serve_conns_headers_done(struct serve_conns *t, struct MHD_Connection *c);
/* The connections closed so far at the deadline, and to make room. */
void serve_conns_counts(struct serve_conns *t, uint64_t *ret_deadline, uint64_t *ret_evicted);
/* Housekeeping (serve's main thread): cut every request past its deadline at now_mono. */
void serve_conns_sweep(struct serve_conns *t, double now_mono);
/* TCP_DEFER_ACCEPT of idle_s on the daemon's listening socket (best effort): a connection that
 * sends nothing waits in the kernel, not in the accept queue. */
void serve_conns_defer_accept(struct MHD_Daemon *d, unsigned idle_s);

#endif
