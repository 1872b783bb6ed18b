/*
 * collect/promfleet.c - the queries of `gpuaudit fleet --prometheus`
 * (promfleet.h): serve's gpuaudit_fleet_info per node, the findings that
 * make a node drift, the nodes that report without gpuaudit_fleet_info, and
 * with --since the nodes whose class, stack or pool changed or that stopped
 * reporting, from a range query.
 *
 * Memory: the node series are streamed into the sink one at a time. What is
 * held is the findings of the nodes that have drift findings (joined to
 * their node by job and instance) and the series of the nodes that changed
 * or stopped (the server picks them out: count_over_time over the range),
 * never one record per node of the fleet.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#include "gpuaudit/strmap.h"
#include "gpuaudit/promfleet.h"

#define HISTORY_STEPS 240 /* points per series of the range query (the server allows 11,000) */
#define HISTORY_CHUNK 500 /* instances per range query of --since */

/* --- (job, instance) -> findings of that node --------------------------- */

struct nodefind {
	const char *key; /* the map's copy */
	struct ga_findings f;
	unsigned chunk; /* --since: the range query that asks for this node's instance */
};

struct findmap {
	struct ga_strmap idx; /* key -> index into v */
	struct nodefind *v;   /* in the order first seen */
	size_t n, alloc;
	size_t *held, max; /* the run's count of tracked nodes (both maps) and its cap; 0: none */
};

static struct nodefind *findmap_get(struct findmap *m, const char *key, bool add)
{
	size_t i;
	if (ga_strmap_get(&m->idx, key, &i))
		return &m->v[i];
	if (!add || (m->max && *m->held >= m->max))
		return NULL;
	++*m->held;
	if (m->n == m->alloc) {
		size_t na = m->alloc ? m->alloc * 2 : 64;
		struct nodefind *nv = ga_realloc(m->v, na * sizeof(*nv));
		if (!nv)
			return NULL;
		m->v = nv;
		m->alloc = na;
	}
	const char *k;
	if (ga_strmap_put(&m->idx, key, m->n, &k) < 0)
		return NULL;
	struct nodefind *nf = &m->v[m->n++];
	memset(nf, 0, sizeof(*nf));
	nf->key = k;
	ga_findings_init(&nf->f);
	return nf;
}

static void findmap_release(struct findmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		ga_findings_release(&m->v[i].f);
	ga_free(m->v);
	ga_strmap_release(&m->idx);
	memset(m, 0, sizeof(*m));
}

/* NULL from findmap_get(.., true): the cap, or out of memory. */
static int track_err(struct ga_ctx *ctx, const struct findmap *m)
{
	if (m->max && *m->held >= m->max)
		return ga_err(
		        ctx, -E2BIG,
		        "more than %zu nodes with drift findings or changes to hold (--max-tracked): the "
		        "server claims more than this run will track",
		        m->max);
	return -ENOMEM;
}

/* --- the queries' text --------------------------------------------------- */

struct run {
	struct ga_ctx *ctx;
	const struct ga_prom_fleet_opts *o;
	const struct ga_prom_fleet_sink *sink;
	double at_s;
	struct findmap finds;
	struct findmap changed; /* --since: the nodes that changed or stopped (keys only) */
	size_t held;            /* entries of finds and changed together */
	unsigned chunk;         /* the range query under way */
	bool policy_said;
	size_t n_series;
	/* --since: the series of the nodes that changed or stopped */
	struct hseries {
		char *key, *host, *source, *class_id, *stack, *driver, *cuda, *pool;
		double first_s, last_s;
	} * hs;
	size_t n_hs;
	double end_s, step_s;
};

/* metric{extra, M} for each matcher set M, joined by " or " (the union); range and at appended to each. */
static int selector(struct ga_buf *b, const struct ga_prom_fleet_opts *o, const char *fn, const char *metric,
                    const char *extra, const char *range, const char *at)
{
	size_t n = o->n_matchers ? o->n_matchers : 1;
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		const char *m = o->n_matchers ? o->matchers[i] : "";
		r = ga_buf_addf(b, "%s%s%s%s{%s%s%s}%s%s%s", i ? " or " : "", fn ? fn : "", fn ? "(" : "",
		                metric, extra ? extra : "", extra && *m ? ", " : "", m, range ? range : "",
		                at ? at : "", fn ? ")" : "");
	}
	return r;
}

static int form_for(const struct run *run, const char *query, bool instant, struct ga_buf *form)
{
	char num[64];
	int r = ga_prom_form_add(form, "query", query);
	if (r == 0 && instant) {
		snprintf(num, sizeof(num), "%.3f", run->at_s);
		r = ga_prom_form_add(form, "time", num);
	}
	if (r == 0 && run->o->timeout_ms > 0) {
		snprintf(num, sizeof(num), "%.3f", (double)run->o->timeout_ms / 1000.0);
		r = ga_prom_form_add(form, "timeout", num);
	}
	return r;
}

static int node_key(const struct ga_prom_series *s, struct ga_buf *b)
{
	const char *job = ga_prom_label(s, "job"), *inst = ga_prom_label(s, "instance");
	b->len = 0;
	return ga_buf_addf(b, "%s\x1f%s", job ? job : "", inst ? inst : "");
}

static const char *source_of(const struct ga_prom_series *s, char *buf, size_t n, size_t i)
{
	const char *inst = ga_prom_label(s, "instance");
	if (inst && *inst)
		return inst;
	snprintf(buf, n, "series %zu", i);
	return buf;
}

/* --- findings ------------------------------------------------------------ */

static enum ga_severity severity_of(const char *s)
{
	return !s                       ? GA_SEV_INFO
	       : !strcmp(s, "critical") ? GA_SEV_CRITICAL
	       : !strcmp(s, "error")    ? GA_SEV_ERROR
	       : !strcmp(s, "warning")  ? GA_SEV_WARNING
	                                : GA_SEV_INFO;
}

static int on_finding(void *ud, const struct ga_prom_series *s)
{
	struct run *run = ud;
	const char *code = ga_prom_label(s, "code");
	if (!code || !s->n_samples || !(s->samples[0].v > 0))
		return 0;
	struct ga_buf k;
	ga_buf_init(&k, 0);
	int r = node_key(s, &k);
	struct nodefind *nf = r == 0 ? findmap_get(&run->finds, k.data, true) : NULL;
	ga_buf_release(&k);
	if (!nf)
		return r < 0 ? r : track_err(run->ctx, &run->finds);
	/* the code is its own message: a pin's message is not in the series */
	ga_findings_add_code(&nf->f, code, severity_of(ga_prom_label(s, "severity")), NULL, NULL, "%s", code);
	return nf->f.err;
}

/* --- the nodes ----------------------------------------------------------- */

static int skip(struct run *run, const char *source, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int skip(struct run *run, const char *source, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return run->sink->skipped(run->sink->ud, source, why);
}

static int on_node(void *ud, const struct ga_prom_series *s)
{
	struct run *run = ud;
	char sbuf[48], os[256];
	const char *source = source_of(s, sbuf, sizeof(sbuf), run->n_series++);
	static const char *const need[] = { "name", "hw_sha256", "family", "stack_sha256" };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!ga_prom_label(s, need[i]))
			return skip(run, source, "gpuaudit_fleet_info without the %s label", need[i]);
	uint64_t exp;
	const char *os_id = ga_prom_label(s, "os_id"), *os_v = ga_prom_label(s, "os_version");
	snprintf(os, sizeof(os), "%s%s%s", os_id ? os_id : "", os_id && os_v ? " " : "", os_v ? os_v : "");
	struct ga_fleet_node n = {
		.host = ga_prom_label(s, "hostname"),
		.class_name = ga_prom_label(s, "name"),
		.hw_sha256 = ga_prom_label(s, "hw_sha256"),
		.family = ga_prom_label(s, "family"),
		.stack_sha256 = ga_prom_label(s, "stack_sha256"),
		.driver = ga_prom_label(s, "driver"),
		.cuda = ga_prom_label(s, "cuda"),
		.rocm = ga_prom_label(s, "rocm"),
		.kernel = ga_prom_label(s, "kernel"),
		.os = *os ? os : NULL,
		.pool = ga_prom_label(s, "pool"),
	};
	/* no gpus label (or an empty one, which Prometheus drops): the node could not count its GPUs */
	const char *g = ga_prom_label(s, "gpus");
	if (g && *g) {
		if (ga_parse_u64(g, 10, &n.gpus.v) < 0)
			return skip(run, source, "gpuaudit_fleet_info: gpus=\"%.40s\" is not a count", g);
		n.gpus.set = true;
	}
	const char *e = ga_prom_label(s, "expected_gpus");
	if (e && ga_parse_u64(e, 10, &exp) == 0)
		GA_SET(n.expected_gpus, exp);
	const char *pol = ga_prom_label(s, "policy");
	int r = 0;
	if (pol && !run->policy_said && run->sink->policy) {
		run->policy_said = true;
		if ((r = run->sink->policy(run->sink->ud, pol)) < 0)
			return r;
	}
	struct ga_buf k;
	ga_buf_init(&k, 0);
	if ((r = node_key(s, &k)) < 0)
		goto out;
	struct nodefind *nf = findmap_get(&run->finds, k.data, false);
	n.findings = nf ? &nf->f : NULL;
	r = run->sink->node(run->sink->ud, &n, source);
	if (r == -EINVAL)
		r = skip(run, source, "gpuaudit_fleet_info: a name or hash is missing");
	else if (r == -E2BIG)
		r = ga_err(
		        run->ctx, r,
		        "more classes and stacks than --max-classes allows: the server claims a fleet this "
		        "run will not hold");
out:
	ga_buf_release(&k);
	return r;
}

static int on_old(void *ud, const struct ga_prom_series *s)
{
	struct run *run = ud;
	char sbuf[48];
	return skip(run, source_of(s, sbuf, sizeof(sbuf), run->n_series++),
	            "reports gpuaudit_node_info but no gpuaudit_fleet_info (a serve older than fleet "
	            "--prometheus, or no class could be computed)");
}

static int instant(struct run *run, const char *query, const char *what, ga_prom_series_fn fn);

/* --- drift in time ------------------------------------------------------- */

static char *dup_label(const struct ga_prom_series *s, const char *name, bool *oom)
{
	const char *v = ga_prom_label(s, name);
	char *d = v ? ga_strdup(v) : NULL;
	*oom |= v && !d;
	return d;
}

static void hseries_release(struct hseries *h)
{
	ga_free(h->key);
	ga_free(h->host);
	ga_free(h->source);
	ga_free(h->class_id);
	ga_free(h->stack);
	ga_free(h->driver);
	ga_free(h->cuda);
	ga_free(h->pool);
}

static int on_range(void *ud, const struct ga_prom_series *s)
{
	struct run *run = ud;
	if (!s->n_samples)
		return 0;
	struct ga_buf k;
	ga_buf_init(&k, 0);
	char sbuf[48];
	int r = node_key(s, &k);
	struct nodefind *nf = r == 0 ? findmap_get(&run->changed, k.data, false) : NULL;
	if (r == 0 && (!nf || nf->chunk != run->chunk)) {
		ga_buf_release(&k);
		return 0; /* the same instance in another job, or asked by another chunk */
	}
	struct hseries h = { .key = r == 0 ? ga_buf_detach(&k, NULL) : NULL };
	ga_buf_release(&k);
	bool oom = !h.key;
	h.host = dup_label(s, "hostname", &oom);
	h.source = ga_strdup(source_of(s, sbuf, sizeof(sbuf), run->n_hs));
	h.class_id = dup_label(s, "class", &oom);
	h.stack = dup_label(s, "stack_sha256", &oom);
	h.driver = dup_label(s, "driver", &oom);
	h.cuda = dup_label(s, "cuda", &oom);
	h.pool = dup_label(s, "pool", &oom);
	h.first_s = s->samples[0].t_s;
	h.last_s = s->samples[s->n_samples - 1].t_s;
	struct hseries *slot =
	        oom || !h.source ? NULL : ga_array_push((void **)&run->hs, &run->n_hs, sizeof(*slot));
	if (!slot) {
		hseries_release(&h);
		return -ENOMEM;
	}
	*slot = h;
	return 0;
}

static int cmp_hs(const void *pa, const void *pb)
{
	const struct hseries *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return a->first_s < b->first_s ? -1 : a->first_s > b->first_s ? 1 : 0;
}

/* The series of one node [i, j) as its history. */
static int history_of(struct run *run, size_t i, size_t j)
{
	struct ga_fleet_history h = { 0 };
	int r = 0;
	h.states = ga_calloc(j - i, sizeof(*h.states));
	if (!h.states)
		return -ENOMEM;
	h.n_states = j - i;
	double first = INFINITY, last = -INFINITY;
	for (size_t k = i; k < j; k++) {
		struct hseries *s = &run->hs[k];
		struct ga_fleet_state *st = &h.states[k - i];
		st->class_id = s->class_id, st->stack_sha256 = s->stack, st->driver = s->driver;
		st->cuda = s->cuda, st->pool = s->pool;
		s->class_id = s->stack = s->driver = s->cuda = s->pool = NULL;
		GA_SET(st->first_seen_s, s->first_s);
		GA_SET(st->last_seen_s, s->last_s);
		first = s->first_s < first ? s->first_s : first;
		last = s->last_s > last ? s->last_s : last;
	}
	/* a live node has a point at the range's last step (the end itself) */
	bool stopped = last < run->end_s - run->step_s / 2;
	const struct hseries *latest = &run->hs[j - 1];
	for (size_t k = i; k < j; k++)
		if (run->hs[k].last_s >= latest->last_s)
			latest = &run->hs[k];
	h.host = ga_strdup(latest->host ? latest->host : latest->source);
	h.source = ga_strdup(latest->source);
	h.status = ga_strdup(j - i > 1 && stopped ? "changed,stopped" : stopped ? "stopped" : "changed");
	GA_SET(h.first_seen_s, first);
	GA_SET(h.last_seen_s, last);
	if (!h.host || !h.source || !h.status)
		r = -ENOMEM;
	if (r == 0)
		r = run->sink->history(run->sink->ud, &h);
	ga_schema_release(&ga_fleet_history_schema, &h);
	return r;
}

/*
 * instance=~"a|b|..." for the instances of the changed nodes from the *i-th
 * on, at most HISTORY_CHUNK of them: regex metacharacters escaped for RE2,
 * then backslash and quote for the PromQL string.
 */
static int instance_regex(struct ga_buf *b, struct findmap *m, size_t *i, unsigned chunk)
{
	size_t n = 0;
	int r = ga_buf_adds(b, "instance=~\"");
	for (; r == 0 && *i < m->n && n < HISTORY_CHUNK; (*i)++) {
		const char *key = m->v[*i].key;
		m->v[*i].chunk = chunk;
		const char *inst = strchr(key, '\x1f');
		inst = inst ? inst + 1 : "";
		if (n++)
			r = ga_buf_adds(b, "|");
		for (const char *c = inst; r == 0 && *c; c++) {
			if (strchr(".+*?()|[]{}^$\\", *c))
				r = ga_buf_adds(b, "\\\\");
			if (r == 0 && (*c == '"' || *c == '\\'))
				r = ga_buf_adds(b, "\\");
			if (r == 0)
				r = *c == '\n' ? ga_buf_adds(b, "\\n") : ga_buf_addf(b, "%c", *c);
		}
	}
	if (r == 0)
		r = ga_buf_adds(b, "\"");
	return r;
}

static int on_changed(void *ud, const struct ga_prom_series *s)
{
	struct run *run = ud;
	struct ga_buf k;
	ga_buf_init(&k, 0);
	int r = node_key(s, &k);
	if (r == 0 && !findmap_get(&run->changed, k.data, true))
		r = track_err(run->ctx, &run->changed);
	ga_buf_release(&k);
	return r;
}

static int read_history(struct run *run)
{
	const struct ga_prom_fleet_opts *o = run->o;
	/* whole milliseconds, so that the range query's step and the subqueries' agree */
	double since_ms = ceil(o->since_s.v * 1000);
	double step_ms = ceil(since_ms / HISTORY_STEPS) < 1000 ? 1000 : ceil(since_ms / HISTORY_STEPS);
	double steps = ceil(since_ms / step_ms);
	run->step_s = step_ms / 1000;
	run->end_s = run->at_s;
	double start = run->end_s - steps * run->step_s;
	char range[64], at[48], at_start[48], num[64];
	/*
	 * A subquery at the step, not the raw samples: a week of 100,000 nodes
	 * scraped every 30 s is 2e9 samples, past the server's --query.max-samples;
	 * at 240 steps it is 2.4e7 points, and a state shorter than a step is
	 * missed by the range query anyway.
	 */
	snprintf(range, sizeof(range), "[%.0fms:%.0fms]", steps * step_ms, step_ms);
	snprintf(at, sizeof(at), " @ %.3f", run->at_s);
	snprintf(at_start, sizeof(at_start), " @ %.3f", start);
	struct ga_buf q, form;
	ga_buf_init(&q, 0);
	ga_buf_init(&form, 0);
	/*
	 * 1. Which nodes, as one instant query at the end:
	 *   sum by (job, instance) (count by (job, instance) (C or X @ at * 1 or X @ start * 1)
	 *     or label_replace(group by (job, instance) (X @ end), "ga_at_end", "1", "", "") * -1) > 0
	 * C: count_over_time of X over the range (a subquery at the step), at its
	 * end: one per series a node had. Its steps are multiples of S (the
	 * server aligns a subquery's steps), the range query's end at `at` and
	 * start at `at` - D: the series at those two instants are counted too
	 * (`or X @ t * 1`, the name dropped as count_over_time drops it, so a
	 * series already counted is not counted again), or a change within the
	 * last step before --at would not be seen. The sum is that count less 1 where the
	 * node reports at the end, so > 0 keeps the nodes with more than one
	 * series and those that stopped (the label keeps `or` from matching the
	 * two sides), with C evaluated once and the arithmetic on (job, instance)
	 * pairs, not on the info series' label sets. The range query used to
	 * carry this as `X and on(job, instance) (...)`, which made the server
	 * evaluate X of every node at every step (at 100,000 nodes 2.4e7 points
	 * and most of the time: docs/performance.md, "fleet at scale").
	 */
	int r = ga_buf_adds(&q, "sum by (job, instance) (count by (job, instance) ((");
	if (r == 0)
		r = selector(&q, o, "count_over_time", "gpuaudit_fleet_info", NULL, range, at);
	if (r == 0)
		r = ga_buf_adds(&q, ") or (");
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_fleet_info", NULL, NULL, at);
	if (r == 0)
		r = ga_buf_adds(&q, ") * 1 or (");
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_fleet_info", NULL, NULL, at_start);
	if (r == 0)
		r = ga_buf_adds(&q, ") * 1) or label_replace(group by (job, instance) (");
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_fleet_info", NULL, NULL, at);
	if (r == 0)
		r = ga_buf_adds(&q, "), \"ga_at_end\", \"1\", \"\", \"\") * -1) > 0");
	if (r == 0)
		r = instant(run, q.data, "the nodes that changed or stopped within --since", on_changed);
	/*
	 * 2. Their series over the range, HISTORY_CHUNK instances a query; a
	 * series of another job with the same instance is dropped by on_range.
	 */
	size_t i = 0;
	while (r == 0) {
		if (i >= run->changed.n)
			break;
		struct ga_buf re;
		ga_buf_init(&re, 0);
		q.len = 0;
		form.len = 0;
		r = instance_regex(&re, &run->changed, &i, ++run->chunk);
		if (r == 0)
			r = selector(&q, o, NULL, "gpuaudit_fleet_info", re.data, NULL, NULL);
		ga_buf_release(&re);
		if (r == 0)
			r = form_for(run, q.data, false, &form);
		snprintf(num, sizeof(num), "%.3f", start);
		if (r == 0)
			r = ga_prom_form_add(&form, "start", num);
		snprintf(num, sizeof(num), "%.3f", run->end_s);
		if (r == 0)
			r = ga_prom_form_add(&form, "end", num);
		snprintf(num, sizeof(num), "%.3f", run->step_s);
		if (r == 0)
			r = ga_prom_form_add(&form, "step", num);
		if (r == 0)
			r = ga_prom_query_in(run->ctx, o->t, o->budget, "/api/v1/query_range", form.data,
			                     "the series of the nodes that changed or stopped within --since",
			                     on_range, run);
	}
	if (r == 0 && run->n_hs)
		qsort(run->hs, run->n_hs, sizeof(*run->hs), cmp_hs);
	for (i = 0; r == 0 && i < run->n_hs;) {
		size_t j = i + 1;
		while (j < run->n_hs && !strcmp(run->hs[j].key, run->hs[i].key))
			j++;
		r = history_of(run, i, j);
		i = j;
	}
	ga_buf_release(&q);
	ga_buf_release(&form);
	return r;
}

/* --- all of it ----------------------------------------------------------- */

static int instant(struct run *run, const char *query, const char *what, ga_prom_series_fn fn)
{
	struct ga_buf form;
	ga_buf_init(&form, 0);
	int r = form_for(run, query, true, &form);
	if (r == 0)
		r = ga_prom_query_in(run->ctx, run->o->t, run->o->budget, "/api/v1/query", form.data, what,
		                     fn, run);
	ga_buf_release(&form);
	return r;
}

static int read_all(struct run *run)
{
	const struct ga_prom_fleet_opts *o = run->o;
	struct ga_buf q;
	ga_buf_init(&q, 0);
	/* 1. the findings that make a node drift (the catalogue's fleet column): few nodes have them,
	 * those are held */
	char drift[512], match[544];
	int r = ga_code_fleet_regex(drift, sizeof(drift));
	if (r >= 0)
		r = snprintf(match, sizeof(match), "code=~\"%s\"", drift) < (int)sizeof(match) ? 0 : -ENOSPC;
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_findings", match, NULL, NULL);
	if (r == 0)
		r = ga_buf_adds(&q, " or ");
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_findings", "severity=~\"error|critical\"", NULL, NULL);
	if (r == 0)
		r = instant(run, q.data, "the drift findings", on_finding);
	/* 2. every node, streamed into the sink */
	q.len = 0;
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_fleet_info", NULL, NULL, NULL);
	if (r == 0)
		r = instant(run, q.data, "the nodes (gpuaudit_fleet_info)", on_node);
	/* 3. nodes that report, but not what the matrix needs: skipped, by name */
	q.len = 0;
	run->n_series = 0;
	if (r == 0)
		r = ga_buf_adds(&q, "group by (job, instance) (");
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_node_info", NULL, NULL, NULL);
	if (r == 0)
		r = ga_buf_adds(&q, ") unless on(job, instance) (");
	if (r == 0)
		r = selector(&q, o, NULL, "gpuaudit_fleet_info", NULL, NULL, NULL);
	if (r == 0)
		r = ga_buf_adds(&q, ")");
	if (r == 0)
		r = instant(run, q.data, "the nodes without gpuaudit_fleet_info", on_old);
	if (r == 0 && o->since_s.set)
		r = read_history(run);
	ga_buf_release(&q);
	return r;
}

int ga_prom_fleet_read(struct ga_ctx *ctx, const struct ga_prom_fleet_opts *o,
                       const struct ga_prom_fleet_sink *sink, double *ret_at_s)
{
	struct run run = { .ctx = ctx, .o = o, .sink = sink };
	run.finds.held = run.changed.held = &run.held;
	run.finds.max = run.changed.max = o->max_tracked;
	if (o->at_s.set) {
		run.at_s = o->at_s.v;
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		run.at_s = (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1e3; /* the API's ms */
	}
	if (o->since_s.set && !(o->since_s.v >= 1))
		return ga_err(ctx, -EINVAL, "--since: at least 1 s");
	int r = read_all(&run);
	if (r == -ENOMEM)
		r = ga_err(ctx, -ENOMEM, "out of memory");
	findmap_release(&run.finds);
	findmap_release(&run.changed);
	for (size_t i = 0; i < run.n_hs; i++)
		hseries_release(&run.hs[i]);
	ga_free(run.hs);
	if (ret_at_s)
		*ret_at_s = run.at_s;
	return r;
}
