/*
 * serve-events.c - `serve --nvml-events WAIT`: NVML events as a second Xid
 * source. A thread of its own keeps one helper process waiting on NVML's event
 * set at a time ("__vendor-helper nvml-events MS", killed at WAIT plus
 * --timeout, or at once on shutdown through a cancel pipe); each helper run
 * registers Xid and ECC events on every GPU, so an event is delivered once.
 * Xid events are queued as the kernel's lines; the collector drains the queue
 * into the same counters as the kernel log (serve_events_drain). With --once
 * one helper run happens before the collection instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve-int.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-read.h"
#include "gpuaudit/kmsg.h"

#define QUEUE_MAX 4096
#define RETRY_MS 5000 /* after a helper run that could not wait: NVML absent, GPU lost */

/* Queue the Xid lines of one helper run and its liveness; under s->lock when threaded. */
static int take_run(struct serve_events *ev, const struct ga_nvml_events *e)
{
	GA_SET(ev->live, e->live.set && e->live.v);
	ev->runs++;
	for (size_t i = 0; i < e->n_events; i++) {
		char line[SERVE_EVENT_LINE];
		size_t len = ga_nvml_event_kline(&e->events[i], -1, line, sizeof(line));
		if (!len)
			continue;
		if (ev->n_queue >= QUEUE_MAX) {
			ev->dropped++;
			continue;
		}
		char(*q)[SERVE_EVENT_LINE] = ga_array_push((void **)&ev->queue, &ev->n_queue, sizeof(*q));
		if (!q)
			return -ENOMEM;
		memcpy(*q, line, len + 1);
	}
	return 0;
}

static void *events_thread(void *arg)
{
	struct serve *s = arg;
	struct serve_events *ev = &s->ev;
	unsigned wait_ms = 1000; /* the first run is short: liveness is known early */
	for (;;) {
		struct ga_nvml_events e;
		memset(&e, 0, sizeof(e));
		int r = ga_nvml_events_isolated(ev->ctx, wait_ms, ev->cancel[0], &e);
		if (r == -ECANCELED)
			break;
		pthread_mutex_lock(&s->lock);
		if (r == 0)
			r = take_run(ev, &e);
		bool stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		bool live = e.live.set && e.live.v;
		if (!live && !stop && r == 0) { /* not serve_warn: no file cycle with serve-collect.c */
			fprintf(s->cli->err, "gpuaudit serve: NVML events are not live: %s\n",
			        e.error ? e.error : "no GPU registered");
			fflush(s->cli->err);
		}
		ga_nvml_events_release(&e);
		if (stop || r < 0)
			break;
		wait_ms = ev->wait_ms;
		if (!live) { /* do not spin on a library that cannot wait */
			struct pollfd p = { ev->cancel[0], POLLIN, 0 };
			if (poll(&p, 1, RETRY_MS) > 0)
				break;
		}
	}
	return NULL;
}

int serve_events_start(struct serve *s)
{
	struct serve_events *ev = &s->ev;
	if (!ev->wait_ms)
		return EXIT_OK;
	int code = snap_ctx(s->cli, "serve", &s->so, &ev->ctx);
	if (code != EXIT_OK)
		return code;
	if (pipe2(ev->cancel, O_CLOEXEC) < 0) {
		ev->cancel[0] = ev->cancel[1] = -1;
		return cli_error(s->cli, "serve", EXIT_INTERNAL, "pipe: %s", strerror(errno));
	}
	int r = pthread_create(&ev->thr, NULL, events_thread, s);
	if (r != 0)
		return cli_error(s->cli, "serve", EXIT_INTERNAL, "cannot start the NVML event thread: %s",
		                 strerror(r));
	ev->started = true;
	return EXIT_OK;
}

void serve_events_stop(struct serve *s)
{
	struct serve_events *ev = &s->ev;
	if (ev->started) {
		char c = 1;
		ssize_t w = write(ev->cancel[1], &c, 1); /* the helper in progress is killed */
		(void)w;
		pthread_join(ev->thr, NULL);
		ev->started = false;
	}
	for (int i = 0; i < 2; i++)
		if (ev->cancel[i] >= 0) {
			close(ev->cancel[i]);
			ev->cancel[i] = -1;
		}
	ga_free(ev->queue);
	ev->queue = NULL;
	ev->n_queue = 0;
	ga_ctx_free(ev->ctx);
	ev->ctx = NULL;
}

int serve_events_once(struct serve *s)
{
	struct serve_events *ev = &s->ev;
	if (!ev->wait_ms)
		return 0;
	struct ga_nvml_events e;
	memset(&e, 0, sizeof(e));
	int r = ga_nvml_events_isolated(s->ctx, ev->wait_ms, -1, &e);
	if (r == 0)
		r = take_run(ev, &e);
	ga_nvml_events_release(&e);
	return r;
}

int serve_events_drain(struct serve *s, struct ga_obool *ret_live)
{
	struct serve_events *ev = &s->ev;
	memset(ret_live, 0, sizeof(*ret_live));
	if (!ev->wait_ms)
		return 0;
	if (ev->started)
		pthread_mutex_lock(&s->lock);
	char(*q)[SERVE_EVENT_LINE] = ev->queue;
	size_t n = ev->n_queue;
	ev->queue = NULL;
	ev->n_queue = 0;
	*ret_live = ev->live;
	if (ev->started)
		pthread_mutex_unlock(&s->lock);
	int r = 0;
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < n && r == 0; i++) {
		struct ga_kevent kev;
		if (ga_kevent_parse(&st, q[i], strlen(q[i]), &kev))
			r = ga_kev_counter_add_once(&s->kev, &kev);
	}
	ga_free(q);
	return r;
}
