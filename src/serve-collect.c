/*
 * serve-collect.c - the collector of `gpuaudit serve`: one thread that
 * collects the node every --interval (vendor libraries in a helper process
 * under the --timeout deadline, see isolate.h), judges it, counts the kernel
 * log, writes the NFD file, renders everything a request can ask for and
 * swaps it in under the lock (serve-int.h). A scrape never collects.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve-int.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/serve.h"

double serve_now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void serve_rendered_init(struct rendered *r)
{
	ga_buf_init(&r->text, SERVE_MAX_BODY);
	ga_buf_init(&r->om, SERVE_MAX_BODY);
	ga_buf_init(&r->snapshot, SERVE_MAX_BODY);
	ga_buf_init(&r->check, SERVE_MAX_BODY);
}

void serve_rendered_release(struct rendered *r)
{
	ga_buf_release(&r->text);
	ga_buf_release(&r->om);
	ga_buf_release(&r->snapshot);
	ga_buf_release(&r->check);
}

void serve_warn(struct serve *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(s->cli->err, "gpuaudit serve: ");
	vfprintf(s->cli->err, fmt, ap);
	fputc('\n', s->cli->err);
	va_end(ap);
}

/* What one collection found, for the renderings. */
struct found {
	struct ga_node *node; /* this collection's, before it replaces s->node */
	struct ga_check chk;
	struct ga_findings f;
	struct ga_nodeclass nc;
	bool have_nc, have_chk, failed;
	const struct ga_policy_class *pcls;
};

static void found_release(struct found *x)
{
	ga_node_free(x->node);
	ga_check_release(&x->chk);
	ga_findings_release(&x->f);
	if (x->have_nc)
		ga_nodeclass_release(&x->nc);
}

static bool vendor_timed_out(const struct ga_node *n)
{
	return (n->nvml && n->nvml->timed_out.set && n->nvml->timed_out.v) ||
	       (n->rocm_smi && n->rocm_smi->timed_out.set && n->rocm_smi->timed_out.v);
}

/* The snapshot: a new one replaces the last good one; a failure keeps it. -ENOMEM or 0. */
static int take_snapshot(struct serve *s, struct found *x)
{
	int r = snap_node(s->ctx, &s->so, &x->node);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		serve_warn(s, "collection failed: %s", ga_ctx_errmsg(s->ctx));
		x->failed = true;
		return 0;
	}
	ga_node_free(s->node);
	s->node = x->node;
	x->node = NULL;
	const struct ga_node *n = s->node;
	if (n->nvml && n->nvml->timed_out.set && n->nvml->timed_out.v)
		s->stats.vendor_timeouts_total++;
	if (n->rocm_smi && n->rocm_smi->timed_out.set && n->rocm_smi->timed_out.v)
		s->stats.vendor_timeouts_total++;
	x->failed |= vendor_timed_out(n);
	return 0;
}

/* Class, and the check against the policy or the node's own analysis. 0 or -errno. */
static int judge(struct serve *s, const struct ga_node *n, struct found *x)
{
	int r = ga_nodeclass_compute(n, &x->nc);
	if (r < 0)
		return r;
	x->have_nc = true;
	if (s->policy) {
		x->pcls = s->class_name ? ga_policy_find_class(s->policy, s->class_name)
		                        : ga_policy_match(s->policy, n);
		if ((r = ga_check_node(n, x->pcls, s->vendor_wanted, &x->chk)) < 0)
			return r;
		x->have_chk = true;
	} else if ((r = ga_analyze_node(n, &x->f)) < 0) {
		return r;
	}
	ga_findings_sort(x->have_chk ? &x->chk.findings : &x->f);
	return 0;
}

/* The kernel log: only what is new since the last read is counted. -ENOMEM or 0. */
static int count_kmsg(struct serve *s, const struct ga_node *n)
{
	if (s->so.from && !s->kmsg_file)
		return 0;
	int r = ga_kev_counter_begin(&s->kev, n ? n->host.boot_id : NULL);
	if (r < 0)
		return r;
	r = s->kmsg_file ? ga_kmsg_read_file(s->ctx, s->kmsg_file, ga_kev_counter_line, &s->kev, NULL)
	                 : ga_kmsg_read_root(s->ctx, "dev/kmsg", ga_kev_counter_line, &s->kev, NULL);
	ga_kev_counter_end(&s->kev);
	if (r == -ENOMEM)
		return r;
	bool ok = r == 0;
	if (s->kmsg_readable.set && s->kmsg_readable.v && !ok)
		serve_warn(s, "kernel log unreadable: %s", ga_ctx_errmsg(s->ctx));
	s->kmsg_readable.v = ok;
	s->kmsg_readable.set = true;
	return 0;
}

static void write_nfd(struct serve *s, const struct ga_node *n, struct found *x)
{
	s->nfd_failed = false;
	if (!s->nfd_dir || !n)
		return;
	struct ga_buf nfd;
	char err[512];
	ga_buf_init(&nfd, 64 * 1024);
	if (cli_nfd_labels(&nfd, "serve", n, x->have_chk ? &x->chk : NULL, s->nfd_expiry_s) < 0) {
		serve_warn(s, "NFD labels exceed 64 KiB");
		x->failed = s->nfd_failed = true;
	} else if (cli_nfd_write(s->nfd_dir, &nfd, err, sizeof(err)) < 0) {
		serve_warn(s, "%s", err);
		x->failed = s->nfd_failed = true;
	}
	ga_buf_release(&nfd);
}

static void count_collection(struct serve *s, bool failed, double t0)
{
	s->stats.collections_total++;
	if (failed)
		s->stats.collection_errors_total++;
	double done = now_wall();
	GA_SET(s->stats.last_collection_s, done);
	if (!failed)
		GA_SET(s->stats.last_success_s, done);
	GA_SET(s->stats.duration_s, serve_now_mono() - t0);
}

/* /v1/check: the check (with a policy) or the findings; null members where there is none. */
static int render_check(struct serve *s, const struct found *x, const struct ga_node *n, struct ga_buf *out)
{
	const struct ga_check *chk = x->have_chk ? &x->chk : NULL;
	struct ga_serve_check d = {
		.schema = (char *)GA_SERVE_CHECK_SCHEMA,
		.policy = s->policy ? s->policy->file : NULL,
		.class = chk && chk->cls ? chk->cls->name : NULL,
		.result = chk ? (char *)ga_check_result_name(chk->result) : NULL,
		.collected_at = s->stats.last_collection_s,
	};
	if (chk) {
		GA_SET(d.violations, chk->violations);
		GA_SET(d.unknowns, chk->unknowns);
	}
	if (n)
		d.findings = chk ? chk->findings : x->f; /* borrowed: d is written, never released */
	return ga_serve_check_write(&d, out);
}

/* The policy's file name without its directory: gpuaudit_fleet_info's policy label. */
static const char *policy_name(const char *file)
{
	const char *sl = file ? strrchr(file, '/') : NULL;
	return sl ? sl + 1 : file;
}

static int render(struct serve *s, const struct found *x, const struct ga_node *n, struct rendered *out)
{
	struct ga_prom_input in = {
		.version = GA_VERSION,
		.node = n,
		.cls = x->have_nc ? &x->nc : NULL,
		.findings = x->have_chk ? &x->chk.findings
		            : n         ? &x->f
		                        : NULL,
		.check = x->have_chk ? &x->chk : NULL,
		.pcls = x->pcls,
		.policy_name = policy_name(s->policy_file),
		.kev = s->kmsg_readable.set ? &s->kev : NULL,
		.kmsg_readable = s->kmsg_readable,
		.stats = s->stats,
	};
	int r;
	if ((r = ga_prom_render(&in, GA_PROM_TEXT, &out->text)) < 0 ||
	    (r = ga_prom_render(&in, GA_PROM_OPENMETRICS, &out->om)) < 0)
		return r;
	if (n) {
		struct ga_json w;
		ga_json_init(&w, &out->snapshot, true);
		if ((r = ga_node_write_json(n, &w)) < 0 || (r = ga_json_finish(&w)) < 0)
			return r;
	}
	return render_check(s, x, n, &out->check);
}

/* One collection: snapshot, class, findings or check, kernel log, NFD file; then render it all. */
int serve_collect_once(struct serve *s, struct rendered *out)
{
	double t0 = serve_now_mono();
	struct found x = { 0 };
	ga_findings_init(&x.f);
	int r = take_snapshot(s, &x);
	const struct ga_node *n = s->node; /* this collection's, or the last good one */
	if (r < 0 || (n && (r = judge(s, n, &x)) < 0) || (r = count_kmsg(s, n)) < 0)
		goto out;
	write_nfd(s, n, &x);
	count_collection(s, x.failed, t0);
	r = render(s, &x, n, out);
out:
	found_release(&x);
	return r;
}

static void publish(struct serve *s, struct rendered *next)
{
	pthread_mutex_lock(&s->lock);
	struct rendered old = s->pub;
	s->pub = *next;
	s->have_pub = true;
	s->running_since = -1;
	s->last_done_mono = serve_now_mono();
	pthread_mutex_unlock(&s->lock);
	serve_rendered_release(&old);
	serve_rendered_init(next);
}

void *serve_collector(void *arg)
{
	struct serve *s = arg;
	struct rendered next;
	serve_rendered_init(&next);
	for (;;) {
		double t0 = serve_now_mono();
		pthread_mutex_lock(&s->lock);
		bool stop = s->stop;
		if (!stop)
			s->running_since = t0;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		int r = serve_collect_once(s, &next);
		if (r < 0) {
			/* out of memory or a rendering over the cap: keep serving the last one */
			serve_warn(s, "rendering failed: %s", strerror(-r));
			serve_rendered_release(&next);
			serve_rendered_init(&next);
			pthread_mutex_lock(&s->lock);
			s->running_since = -1;
			pthread_mutex_unlock(&s->lock);
		} else {
			publish(s, &next);
		}
		/* sleep until the next interval, or until told to stop */
		double until = t0 + s->interval_s;
		struct timespec ts = { .tv_sec = (time_t)until,
			               .tv_nsec = (long)((until - floor(until)) * 1e9) };
		pthread_mutex_lock(&s->lock);
		while (!s->stop && serve_now_mono() < until)
			if (pthread_cond_timedwait(&s->wake, &s->lock, &ts) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&s->lock);
	}
	serve_rendered_release(&next);
	return NULL;
}
