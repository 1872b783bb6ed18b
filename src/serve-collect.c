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
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-analyze.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/klog.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/network.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/serve.h"
#include "gpuaudit/verdict.h"
#include "gpuaudit/verdict-analyze.h"
#include "gpuaudit/hstate-analyze.h"

double serve_now_mono(void)
{
	return ga_mono_s();
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
	r->not_ready[0] = '\0';
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
	struct ga_node *prev; /* the previous collection's, for counter deltas (link flaps) */
	struct ga_check chk;
	struct ga_findings f;
	struct ga_nodeclass nc;
	struct ga_node_verdict vd; /* what the writers render: metrics, NFD labels, /readyz */
	bool have_nc, have_chk, have_vd, failed;
	const struct ga_policy_class *pcls;
};

static void found_release(struct found *x)
{
	ga_node_free(x->node);
	ga_node_free(x->prev);
	ga_check_release(&x->chk);
	ga_findings_release(&x->f);
	if (x->have_nc)
		ga_nodeclass_release(&x->nc);
	if (x->have_vd)
		ga_node_verdict_release(&x->vd);
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
	x->prev = s->node; /* kept until this collection is judged: the IB counter deltas */
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

/*
 * --state FILE: the findings folded into the sticky conditions (as `health --state`), the
 * raised ones reported until they clear; the file rewritten atomically. A write that fails
 * is a failed collection (the state in memory goes on).
 */
static void fold_state(struct serve *s, const struct ga_node *n, struct ga_findings *f, struct found *x)
{
	/*
	 * Without the kernel log (as of the last read: it is read after this) the run saw no
	 * Xids: an unknown run, never a clear one (health --state does the same).
	 */
	bool known = s->kmsg_readable.set && s->kmsg_readable.v;
	const struct ga_health_policy *hp = s->policy ? &s->policy->health : NULL;
	if ((known ? ga_hstate_update(&s->hstate, f, hp, (int64_t)now_wall(), n->host.boot_id)
	           : ga_hstate_update_unknown(&s->hstate, f, hp, (int64_t)now_wall(), n->host.boot_id)) < 0) {
		serve_warn(s, "health state: out of memory");
		x->failed = s->state_failed = true;
		return;
	}
	char why[600];
	s->state_failed = cli_state_write(s->ctx, s->state_file, &s->hstate, why, sizeof(why)) < 0;
	if (s->state_failed) {
		serve_warn(s, "%s", why);
		x->failed = true;
	}
}

/* A deep copy of F appended to OUT. */
static void copy_finding(struct ga_findings *out, const struct ga_finding *f)
{
	struct ga_finding *c =
	        ga_findings_add_code(out, f->code, f->severity, f->subject, f->decision, "%s", f->message);
	for (size_t i = 0; c && i < f->n_evidence; i++)
		ga_finding_evidence(c, f->evidence[i].key, "%s", f->evidence[i].value);
}

void serve_held_release(struct serve *s)
{
	for (size_t i = 0; i < s->n_held; i++)
		ga_findings_release(&s->held[i].f);
	s->n_held = 0;
}

static bool same_finding(const struct ga_finding *a, const struct ga_finding *b)
{
	return !strcmp(a->code, b->code) && !strcmp(a->subject, b->subject);
}

/*
 * A flap is one moment between two collections; a scraper or node-problem-detector that
 * looks a minute later must still see it. Each new GA-IB-LINK-FLAP is held (replacing an
 * older one of the same port) for SERVE_FLAP_HOLD_S; held ones this collection did not see
 * again are added back. -ENOMEM or 0.
 */
static int hold_flaps(struct serve *s, struct ga_findings *f, size_t first_new)
{
	double now = serve_now_mono();
	for (size_t i = 0; i < s->n_held;) /* expire */
		if (s->held[i].until <= now) {
			ga_findings_release(&s->held[i].f);
			s->held[i] = s->held[--s->n_held];
		} else {
			i++;
		}
	size_t n_new = f->n;
	for (size_t i = first_new; i < n_new; i++) {
		if (f->v[i].id != GA_C_IB_LINK_FLAP)
			continue;
		size_t k = 0;
		while (k < s->n_held && !same_finding(&s->held[k].f.v[0], &f->v[i]))
			k++;
		if (k == s->n_held) {
			if (s->n_held == SERVE_MAX_HELD)
				continue;
			s->n_held++;
		} else {
			ga_findings_release(&s->held[k].f);
		}
		ga_findings_init(&s->held[k].f);
		copy_finding(&s->held[k].f, &f->v[i]);
		if (s->held[k].f.err || s->held[k].f.n != 1) {
			int e = s->held[k].f.err ? s->held[k].f.err : -ENOMEM;
			ga_findings_release(&s->held[k].f);
			s->held[k] = s->held[--s->n_held];
			return e;
		}
		s->held[k].until = now + SERVE_FLAP_HOLD_S;
	}
	for (size_t k = 0; k < s->n_held; k++) {
		bool seen = false;
		for (size_t i = first_new; i < n_new && !seen; i++)
			seen = same_finding(&s->held[k].f.v[0], &f->v[i]);
		if (!seen)
			copy_finding(f, &s->held[k].f.v[0]);
	}
	return f->err;
}

/*
 * What only two collections show: InfiniBand link flaps and rising error counters. An
 * error among them (or a flap still held) fails a check that had passed, as any
 * error-level node finding does.
 */
static int judge_deltas(struct serve *s, struct found *x, const struct ga_node *n)
{
	struct ga_findings *f = x->have_chk ? &x->chk.findings : &x->f;
	size_t before = f->n;
	int r = ga_analyze_ib_delta(x->prev, n, f);
	if (r == 0)
		r = hold_flaps(s, f, before);
	if (r < 0)
		return r;
	for (size_t i = before; x->have_chk && i < f->n; i++)
		if (f->v[i].severity >= GA_SEV_ERROR && x->chk.result != GA_CHECK_INCOMPLETE)
			x->chk.result = GA_CHECK_FAIL;
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
	if ((r = ga_node_verdict_build(n, x->pcls, s->policy != NULL, &x->vd, NULL)) < 0)
		return r;
	x->have_vd = true;
	if ((r = judge_deltas(s, x, n)) < 0)
		return r;
	/* NVLink error counters that rose, held for a while after the last rise (fabric.h) */
	if ((r = ga_nvlink_watch(&s->nvlink, n, serve_now_mono(), SERVE_NVLINK_HOLD_S,
	                         x->have_chk ? &x->chk.findings : &x->f)) < 0)
		return r;
	if (s->state_file)
		fold_state(s, n, x->have_chk ? &x->chk.findings : &x->f, x);
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
	s->kmsg_err = r;
	bool ok = r == 0;
	if (s->kmsg_readable.set && s->kmsg_readable.v && !ok)
		serve_warn(s, "kernel log unreadable: %s", ga_ctx_errmsg(s->ctx));
	s->kmsg_readable.v = ok;
	s->kmsg_readable.set = true;
	return 0;
}

static bool has_nvidia(const struct ga_node *n)
{
	for (size_t i = 0; n && i < n->n_accelerators; i++)
		if (n->accelerators[i].vendor && !strcmp(n->accelerators[i].vendor, "nvidia"))
			return true;
	return false;
}

/*
 * The second Xid source: NVML events queued by serve-events.c, counted like
 * kernel-log Xids; then GA-XID-NO-SOURCE when neither source is live on a node
 * with NVIDIA GPUs (a recorded tree without dev/kmsg is no news). -ENOMEM or 0.
 */
static int count_nvml_events(struct serve *s, const struct ga_node *n, struct found *x)
{
	int r = serve_events_drain(s, &s->nvml_events_up);
	if (r < 0 || !n || !s->kmsg_readable.set || s->kmsg_readable.v)
		return r;
	bool pending = s->ev.wait_ms && !s->nvml_events_up.set; /* the first helper run is on its way */
	if (pending || (s->nvml_events_up.set && s->nvml_events_up.v) || !has_nvidia(n))
		return 0;
	bool live_root = !s->so.from && !strcmp(ga_ctx_root(s->ctx), "/");
	if (!live_root && !s->ev.wait_ms && s->kmsg_err == -ENOENT)
		return 0;
	struct ga_findings *f = x->have_chk ? &x->chk.findings : &x->f;
	char why[160];
	snprintf(why, sizeof(why), "%s", s->kmsg_err == -ENOENT ? "no dev/kmsg" : strerror(-s->kmsg_err));
	r = ga_xid_no_source_finding(why, s->ev.wait_ms ? "not live" : "off", f);
	ga_findings_sort(f);
	return r;
}

static void write_nfd(struct serve *s, const struct ga_node *n, struct found *x)
{
	s->nfd_failed = false;
	if (!s->nfd_dir || !n)
		return;
	struct ga_buf nfd;
	char err[512];
	ga_buf_init(&nfd, 64 * 1024);
	if (!x->have_vd ||
	    cli_nfd_labels(&nfd, "serve", n, &x->vd, x->have_chk ? &x->chk : NULL, s->nfd_expiry_s) < 0) {
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
		.xid_sources = { .kmsg = s->kmsg_readable, .nvml_events = s->nvml_events_up },
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
		.verdict = x->have_vd ? &x->vd : NULL,
		.pcls = x->pcls,
		.policy_name = policy_name(s->policy_file),
		.kev = s->kmsg_readable.set ? &s->kev : NULL,
		.kmsg_readable = s->kmsg_readable,
		.nvml_events_up = s->nvml_events_up,
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

/*
 * /readyz: not ready while the class's GPU count is not met, as the verdict says
 * (the count behind GA-EXPECT-GPU-COUNT), nor while it cannot be seen (the PCI devices
 * unread: the class expects GPUs nobody can count). Unknown for want of a count to
 * gate on (no policy class, or one without a GPU count) serves as ready: readiness
 * gates on GPUs a class expects.
 */
static void not_ready(const struct found *x, struct rendered *out)
{
	out->not_ready[0] = '\0';
	if (!x->have_chk || !x->have_vd)
		return;
	bool unseen = x->vd.readiness == GA_VD_READY_UNKNOWN && x->vd.gpus_expected.set;
	if (x->vd.readiness != GA_VD_NOT_READY && !unseen)
		return;
	snprintf(out->not_ready, sizeof(out->not_ready), "not ready: %s (%s)\n",
	         x->vd.readiness_reason ? x->vd.readiness_reason : "",
	         x->vd.class_name ? x->vd.class_name : "no class");
}

/* One collection: snapshot, class, findings or check, kernel log, NFD file; then render it all. */
int serve_collect_once(struct serve *s, struct rendered *out)
{
	double t0 = serve_now_mono();
	struct found x = { 0 };
	ga_findings_init(&x.f);
	int r = take_snapshot(s, &x);
	const struct ga_node *n = s->node; /* this collection's, or the last good one */
	if (r < 0 || (n && (r = judge(s, n, &x)) < 0) || (r = count_kmsg(s, n)) < 0 ||
	    (r = count_nvml_events(s, n, &x)) < 0)
		goto out;
	write_nfd(s, n, &x);
	count_collection(s, x.failed, t0);
	r = render(s, &x, n, out);
	not_ready(&x, out);
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
