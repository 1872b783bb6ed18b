/*
 * analyze/fleet.c - the fleet aggregator: hardware classes, the stacks within
 * each with node counts, and drift, from node snapshots and check reports fed
 * one at a time (see fleet.h).
 *
 * Memory is per class and per (class, stack) cell, never per node: a cell
 * keeps counters and two bounded samples of its nodes, the max_drift smallest
 * (host, source) pairs of all its nodes and of its nodes with a problem of
 * their own (link, check, pin). Whether a whole cell drifts (off the pool's
 * majority stack, fewer GPUs than the pool) is known only at the end; then
 * the drift list is the merge of the right sample of every cell, cut at
 * max_drift. The union of every cell's first N holds the fleet's first N, so
 * the list is exact and independent of input order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"
#include "gpuaudit/promfleet.h"
#include "gpuaudit/reports.h"
#include "fleet-int.h"
#include "gpuaudit/codes.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/fleet-analyze.h"

static const char *const reason_names[GA_FLEET_N_REASONS] = { "stack", "gpus", "link", "check", "no-class" };

const char *ga_fleet_reason_name(unsigned bit)
{
	for (unsigned i = 0; i < GA_FLEET_N_REASONS; i++)
		if (bit == 1u << i)
			return reason_names[i];
	return NULL;
}

/* --- bounded samples: the `cap` smallest (host, source) pairs ------------ */

static void sample_release(struct sample *s)
{
	ga_free(s->host);
	ga_free(s->source);
	ga_free(s->detail);
}

static int sampleset_offer(struct sampleset *s, size_t cap, const char *host, const char *source,
                           unsigned flags, const char *detail)
{
	if (!cap)
		return 0;
	if (s->n == cap && fleet_sample_cmp(host, source, s->v[cap - 1].host, s->v[cap - 1].source) >= 0)
		return 0;
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 4;
		if (na > cap)
			na = cap;
		struct sample *nv = ga_realloc(s->v, na * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->alloc = na;
	}
	struct sample x = { ga_strdup(host), ga_strdup(source), detail && *detail ? ga_strdup(detail) : NULL,
		            flags };
	if (!x.host || !x.source || (detail && *detail && !x.detail)) {
		sample_release(&x);
		return -ENOMEM;
	}
	if (s->n == cap)
		sample_release(&s->v[--s->n]);
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (fleet_sample_cmp(s->v[mid].host, s->v[mid].source, host, source) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
	s->v[lo] = x;
	s->n++;
	return 0;
}

static void sampleset_release(struct sampleset *s)
{
	for (size_t i = 0; i < s->n; i++)
		sample_release(&s->v[i]);
	ga_free(s->v);
	memset(s, 0, sizeof(*s));
}

int ga_fleet_new(const struct ga_fleet_opts *o, struct ga_fleet **ret)
{
	struct ga_fleet *f = ga_calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	if (o)
		f->o = *o;
	*ret = f;
	return 0;
}

unsigned ga_fleet_jobs(const struct ga_fleet *f)
{
	return f->o.jobs;
}

/*
 * Room for one more family, class or stack: -E2BIG past the opts' max_rows
 * (fleet --prometheus: the server decides how many it sends, the cap how
 * many are held).
 */
static int room(const struct ga_fleet *f)
{
	return f->o.max_rows && f->n_fams + f->n_classes + f->n_cells >= f->o.max_rows ? -E2BIG : 0;
}

void ga_fleet_free(struct ga_fleet *f)
{
	if (!f)
		return;
	ga_strmap_release(&f->idx);
	for (size_t i = 0; i < f->n_fams; i++)
		ga_free(f->fams[i].key);
	ga_free(f->fams);
	for (size_t i = 0; i < f->n_classes; i++) {
		struct klass *k = &f->classes[i];
		ga_free(k->id);
		ga_free(k->name);
		ga_free(k->hw_sha256);
		ga_free(k->pool);
	}
	ga_free(f->classes);
	for (size_t i = 0; i < f->n_cells; i++) {
		struct cell *c = &f->cells[i];
		ga_free(c->stack_sha256);
		ga_free(c->driver);
		ga_free(c->cuda);
		ga_free(c->rocm);
		ga_free(c->kernel);
		ga_free(c->os);
		ga_free(c->pin_detail);
		sampleset_release(&c->all);
		sampleset_release(&c->badset);
	}
	ga_free(f->cells);
	for (size_t i = 0; i < f->n_checks; i++)
		ga_free(f->checks[i].cls);
	ga_free(f->checks);
	sampleset_release(&f->check_fail);
	for (size_t i = 0; i < f->n_history; i++)
		ga_schema_release(&ga_fleet_history_schema, &f->history[i]);
	ga_free(f->history);
	ga_free(f->prometheus);
	ga_free(f->policy_name);
	for (size_t i = 0; i < f->n_skips; i++)
		ga_schema_release(&ga_fleet_skip_schema, &f->skips[i]);
	ga_free(f->skips);
	ga_free(f);
}

/* The family: given (a reported node), or from the hardware class JSON. */
static int find_family(struct ga_fleet *f, const char *family, const char *hw_json, size_t *ret)
{
	char *key = NULL;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = family ? 0 : ga_fleet_family_sha256(hw_json, &key);
	if (r < 0)
		goto out;
	r = ga_buf_addf(&b, "F%s", family ? family : key);
	if (r < 0)
		goto out;
	if (ga_strmap_get(&f->idx, b.data, ret) || (r = room(f)) < 0)
		goto out;
	struct family *fam = ga_array_push((void **)&f->fams, &f->n_fams, sizeof(*fam));
	if (!fam) {
		r = -ENOMEM;
		goto out;
	}
	r = ga_strmap_put(&f->idx, b.data, f->n_fams - 1, NULL);
	if (r < 0) {
		f->n_fams--;
		goto out;
	}
	fam->key = ga_strdup(b.data + 1);
	if (!fam->key) {
		r = -ENOMEM;
		goto out;
	}
	*ret = f->n_fams - 1;
out:
	ga_free(key);
	ga_buf_release(&b);
	return r;
}

/* A node as the aggregator sees it: the reported fields, or a snapshot's JSON to derive the rest from. */
struct seen {
	const struct ga_fleet_node *n;
	const char *hw_json;    /* NULL: n->family is given */
	const char *stack_json; /* NULL: n's columns are given */
	struct ga_ou64 policy_gpus;
};

static int find_class(struct ga_fleet *f, const struct seen *sn, size_t *ret)
{
	const struct ga_fleet_node *n = sn->n;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_addf(&b, "C%s|%s", n->hw_sha256, n->pool ? n->pool : "");
	if (r < 0)
		goto out;
	if (ga_strmap_get(&f->idx, b.data, ret) || (r = room(f)) < 0)
		goto out;
	size_t fam;
	r = find_family(f, n->family, sn->hw_json, &fam);
	if (r < 0)
		goto out;
	struct klass k = { 0 };
	size_t idlen = strlen(n->class_name) + 10;
	k.id = ga_malloc(idlen);
	if (k.id)
		snprintf(k.id, idlen, "%s-%.8s", n->class_name, n->hw_sha256);
	k.name = ga_strdup(n->class_name);
	k.hw_sha256 = ga_strdup(n->hw_sha256);
	k.pool = n->pool ? ga_strdup(n->pool) : NULL;
	k.fam = fam;
	k.gpus = n->gpus;
	if (n->pool)
		k.policy_gpus = sn->policy_gpus;
	struct klass *slot = NULL;
	if (k.id && k.name && k.hw_sha256 && (!n->pool || k.pool))
		slot = ga_array_push((void **)&f->classes, &f->n_classes, sizeof(*slot));
	if (slot && ga_strmap_put(&f->idx, b.data, f->n_classes - 1, NULL) < 0) {
		f->n_classes--;
		slot = NULL;
	}
	if (!slot) {
		ga_free(k.id);
		ga_free(k.name);
		ga_free(k.hw_sha256);
		ga_free(k.pool);
		r = -ENOMEM;
		goto out;
	}
	*slot = k;
	*ret = f->n_classes - 1;
out:
	ga_buf_release(&b);
	return r;
}

/* "ubuntu 22.04": the os column from its parts; NULL when both are missing. */
static char *os_column(const char *id, const char *version)
{
	if ((!id || !*id) && (!version || !*version))
		return NULL;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_buf_addf(&b, "%s%s%s", id ? id : "", id && *id && version && *version ? " " : "",
	                version ? version : "") < 0) {
		ga_buf_release(&b);
		return NULL;
	}
	return ga_buf_detach(&b, NULL);
}

static int cell_columns(struct cell *c, const struct seen *sn)
{
	const struct ga_fleet_node *n = sn->n;
	if (sn->stack_json) {
		struct ga_fleet_columns col;
		int r = ga_fleet_columns_init(sn->stack_json, &col);
		if (r < 0)
			return r;
		c->driver = col.driver, c->cuda = col.cuda, c->rocm = col.rocm, c->kernel = col.kernel;
		col.driver = col.cuda = col.rocm = col.kernel = NULL;
		c->os = os_column(col.os_id, col.os_version);
		bool oom = (col.os_id || col.os_version) && !c->os;
		ga_fleet_columns_release(&col);
		return oom ? -ENOMEM : 0;
	}
	c->driver = fleet_dup_or_null(n->driver);
	c->cuda = fleet_dup_or_null(n->cuda);
	c->rocm = fleet_dup_or_null(n->rocm);
	c->kernel = fleet_dup_or_null(n->kernel);
	c->os = n->os && *n->os ? ga_strdup(n->os) : NULL;
	if ((n->driver && !c->driver) || (n->cuda && !c->cuda) || (n->rocm && !c->rocm) ||
	    (n->kernel && !c->kernel) || (n->os && *n->os && !c->os))
		return -ENOMEM;
	return 0;
}

static int find_cell(struct ga_fleet *f, size_t cls, const struct seen *sn, size_t *ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_addf(&b, "S%zu|%s", cls, sn->n->stack_sha256);
	if (r < 0)
		goto out;
	if (ga_strmap_get(&f->idx, b.data, ret) || (r = room(f)) < 0)
		goto out;
	struct cell *c = ga_array_push((void **)&f->cells, &f->n_cells, sizeof(*c));
	if (!c) {
		r = -ENOMEM;
		goto out;
	}
	c->cls = cls;
	c->stack_sha256 = ga_strdup(sn->n->stack_sha256);
	r = c->stack_sha256 ? cell_columns(c, sn) : -ENOMEM;
	if (r == 0)
		r = ga_strmap_put(&f->idx, b.data, f->n_cells - 1, NULL);
	if (r < 0) {
		ga_free(c->stack_sha256);
		ga_free(c->driver);
		ga_free(c->cuda);
		ga_free(c->rocm);
		ga_free(c->kernel);
		ga_free(c->os);
		f->n_cells--;
		goto out;
	}
	*ret = f->n_cells - 1;
out:
	ga_buf_release(&b);
	return r;
}

static int add_word(struct ga_buf *b, const char *sep, const char *w)
{
	/* distinct words only; a detail line stays short */
	size_t wl = strlen(w);
	for (const char *p = b->data; p && (p = strstr(p, w)); p += wl)
		if ((p == b->data || p[-1] == ' ') && (p[wl] == '\0' || p[wl] == ' ' || p[wl] == ';'))
			return 0;
	if (b->len > 200)
		return 0;
	return ga_buf_addf(b, "%s%s", b->len ? sep : "", w);
}

/* Sort one node's findings into drift reasons: the catalogue's fleet column (codes.def). */
static int classify(const struct ga_findings *fs, unsigned *flags, struct ga_buf *detail, struct ga_buf *pins)
{
	int r = 0;
	for (size_t i = 0; i < fs->n && r == 0; i++) {
		const struct ga_finding *fd = &fs->v[i];
		const char *code = fd->code ? fd->code : "";
		const struct ga_code_info *ci = ga_code_info(fd->id);
		switch (ci ? ci->fleet : GA_CODE_FLEET_NONE) {
		case GA_CODE_FLEET_LINK:
			/* an error when the class's expect.pcie_width_min is its evidence (check.c) */
			*flags |= GA_FLEET_LINK | (fd->severity >= GA_SEV_ERROR ? GA_FLEET_CHECK : 0u);
			r = add_word(detail, " ", code);
			break;
		case GA_CODE_FLEET_STACK:
			*flags |= GA_FLEET_STACK;
			if (pins->len < 400)
				r = ga_buf_addf(pins, "%s%s", pins->len ? "; " : "", fd->message);
			break;
		case GA_CODE_FLEET_GPUS:
			*flags |= GA_FLEET_GPUS;
			r = add_word(detail, " ", code);
			break;
		case GA_CODE_FLEET_NO_CLASS:
			*flags |= GA_FLEET_NO_CLASS;
			r = add_word(detail, " ", code);
			break;
		case GA_CODE_FLEET_CHECK:
			*flags |= GA_FLEET_CHECK;
			r = add_word(detail, " ", code);
			break;
		case GA_CODE_FLEET_NONE:
			if (fd->severity >= GA_SEV_ERROR) {
				*flags |= GA_FLEET_CHECK;
				r = add_word(detail, " ", code);
			}
			break;
		}
	}
	return r;
}

/* One node into its class and cell, with the findings that make it drift. */
static int aggregate(struct ga_fleet *f, const struct seen *sn, const struct ga_findings *fs,
                     const char *source)
{
	struct ga_buf detail, pins;
	ga_buf_init(&detail, 0);
	ga_buf_init(&pins, 0);
	unsigned flags = 0;
	size_t cls = 0, ci = 0;
	int r = classify(fs, &flags, &detail, &pins);
	if (r == 0)
		r = find_class(f, sn, &cls);
	if (r == 0)
		r = find_cell(f, cls, sn, &ci);
	if (r < 0)
		goto out;
	struct cell *c = &f->cells[ci];
	const char *host = sn->n->host && *sn->n->host ? sn->n->host : source;
	r = sampleset_offer(&c->all, f->o.max_drift, host, source, flags, detail.data);
	if (r == 0 && flags)
		r = sampleset_offer(&c->badset, f->o.max_drift, host, source, flags, detail.data);
	if (r == 0 && (flags & GA_FLEET_STACK) && !c->pin_detail && !(c->pin_detail = ga_strdup(pins.data)))
		r = -ENOMEM;
	if (r < 0)
		goto out;
	f->classes[cls].nodes++;
	f->nodes++;
	c->nodes++;
	c->links += !!(flags & GA_FLEET_LINK);
	c->failing += !!(flags & (GA_FLEET_CHECK | GA_FLEET_NO_CLASS));
	c->pins += !!(flags & GA_FLEET_STACK);
	c->bad += !!flags;
out:
	ga_buf_release(&detail);
	ga_buf_release(&pins);
	return r;
}

int ga_fleet_add_node(struct ga_fleet *f, const struct ga_node *n, const char *source)
{
	struct ga_nodeclass nc = { 0 };
	struct ga_check chk = { 0 };
	struct ga_findings own;
	ga_findings_init(&own);
	const struct ga_policy_class *pc = NULL;
	const struct ga_findings *fs;
	int r = ga_nodeclass_compute(n, &nc);
	if (r < 0)
		goto out;
	if (f->o.policy) {
		pc = ga_policy_match(f->o.policy, n);
		r = ga_check_node(n, pc, false, &chk);
		fs = &chk.findings;
	} else {
		r = ga_analyze_node(n, &own);
		fs = &own;
	}
	if (r == 0)
		r = fs->err;
	if (r < 0)
		goto out;
	struct ga_fleet_node gn = { .host = n->host.hostname,
		                    .class_name = nc.name,
		                    .hw_sha256 = nc.hw_sha256,
		                    .stack_sha256 = nc.stack_sha256,
		                    .pool = pc ? pc->name : NULL };
	if (ga_node_pci_known(n))
		GA_SET(gn.gpus, n->n_accelerators);
	struct seen sn = { .n = &gn, .hw_json = nc.hw_json, .stack_json = nc.stack_json };
	if (pc)
		sn.policy_gpus = pc->expect.gpu_count;
	r = aggregate(f, &sn, fs, source);
out:
	ga_nodeclass_release(&nc);
	ga_check_release(&chk);
	ga_findings_release(&own);
	return r < 0 ? (r == -ENOMEM ? r : -EINVAL) : 0;
}

int ga_fleet_add_reported(struct ga_fleet *f, const struct ga_fleet_node *n, const char *source)
{
	static const struct ga_findings none = { 0 };
	if (!n->class_name || !n->hw_sha256 || !n->family || !n->stack_sha256 || !source)
		return -EINVAL;
	struct seen sn = { .n = n, .policy_gpus = n->expected_gpus };
	return aggregate(f, &sn, n->findings ? n->findings : &none, source);
}

int ga_fleet_add_history(struct ga_fleet *f, struct ga_fleet_history *h)
{
	f->history_nodes++;
	size_t cap = f->o.max_drift;
	size_t n = f->n_history;
	bool full = n >= cap;
	if (!cap || (full && fleet_sample_cmp(h->host, h->source, f->history[n - 1].host,
	                                      f->history[n - 1].source) >= 0)) {
		ga_schema_release(&ga_fleet_history_schema, h);
		memset(h, 0, sizeof(*h));
		return 0;
	}
	if (full) {
		ga_schema_release(&ga_fleet_history_schema, &f->history[n - 1]);
		f->n_history--;
	} else if (!ga_array_push((void **)&f->history, &f->n_history, sizeof(*h))) {
		return -ENOMEM;
	} else {
		f->n_history--;
	}
	/* sorted insert: the list stays the first max_drift by (host, source) */
	size_t lo = 0, hi = f->n_history;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (fleet_sample_cmp(f->history[mid].host, f->history[mid].source, h->host, h->source) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&f->history[lo + 1], &f->history[lo], (f->n_history - lo) * sizeof(*h));
	f->history[lo] = *h;
	f->n_history++;
	memset(h, 0, sizeof(*h));
	return 0;
}

int ga_fleet_set_origin(struct ga_fleet *f, const char *url, struct ga_odbl at_s, struct ga_odbl since_s)
{
	char *u = url ? ga_strdup(url) : NULL;
	if (url && !u)
		return -ENOMEM;
	ga_free(f->prometheus);
	f->prometheus = u;
	f->at_s = at_s;
	f->since_s = since_s;
	return 0;
}

int ga_fleet_add_check(struct ga_fleet *f, const char *source, const char *name, const char *cls,
                       const char *result, const char *detail)
{
	int res = !strcmp(result, "pass")           ? 0
	          : !strcmp(result, "fail")         ? 1
	          : !strcmp(result, "unknown")      ? 2
	          : !strcmp(result, "incomplete")   ? 2 /* no verdict either */
	          : !strcmp(result, "inconclusive") ? 2 /* PCI not read */
	                                            : -1;
	if (res < 0)
		return -EINVAL;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	size_t k;
	int r = ga_buf_addf(&b, "K%s%s", cls ? "=" : "", cls ? cls : "");
	if (r < 0)
		goto out;
	if (!ga_strmap_get(&f->idx, b.data, &k)) {
		char *c = cls ? ga_strdup(cls) : NULL;
		struct checks *e =
		        (!cls || c) ? ga_array_push((void **)&f->checks, &f->n_checks, sizeof(*e)) : NULL;
		if (e && ga_strmap_put(&f->idx, b.data, f->n_checks - 1, NULL) < 0) {
			f->n_checks--;
			e = NULL;
		}
		if (!e) {
			ga_free(c);
			r = -ENOMEM;
			goto out;
		}
		e->cls = c;
		k = f->n_checks - 1;
	}
	if (res == 1) {
		r = sampleset_offer(&f->check_fail, f->o.max_drift, name, source, GA_FLEET_CHECK, detail);
		if (r < 0)
			goto out;
		f->check_failing++;
	}
	struct checks *e = &f->checks[k];
	if (res == 0)
		e->pass++;
	else if (res == 1)
		e->fail++;
	else
		e->unknown++;
	f->check_reports++;
out:
	ga_buf_release(&b);
	return r;
}

int ga_fleet_add_skipped(struct ga_fleet *f, const char *source, const char *reason)
{
	if (f->n_skips < GA_FLEET_MAX_SKIPPED) {
		struct ga_fleet_skip s = { ga_strdup(source), ga_strdup(reason) };
		struct ga_fleet_skip *e = NULL;
		if (s.source && s.reason)
			e = ga_array_push((void **)&f->skips, &f->n_skips, sizeof(*e));
		if (!e) {
			ga_free(s.source);
			ga_free(s.reason);
			return -ENOMEM;
		}
		*e = s;
	}
	f->skipped++;
	return 0;
}

/* --- the report reader's sink (reports.h) ------------------------------- */

static int sink_node(void *ud, const struct ga_node *n, const char *source)
{
	return ga_fleet_add_node(ud, n, source);
}

static int sink_check(void *ud, const struct ga_reports_check *c, const char *source)
{
	return ga_fleet_add_check(ud, source, c->name, c->cls, c->result, c->detail);
}

static int sink_skipped(void *ud, const char *source, const char *reason)
{
	return ga_fleet_add_skipped(ud, source, reason);
}

void ga_fleet_sink(struct ga_fleet *f, struct ga_reports_sink *ret)
{
	*ret = (struct ga_reports_sink){
		.ud = f, .node = sink_node, .check = sink_check, .skipped = sink_skipped, .jobs = f->o.jobs
	};
}

/* --- the Prometheus reader's sink (promfleet.h) ------------------------- */

static int psink_node(void *ud, const struct ga_fleet_node *n, const char *source)
{
	return ga_fleet_add_reported(ud, n, source);
}

static int psink_history(void *ud, struct ga_fleet_history *h)
{
	return ga_fleet_add_history(ud, h);
}

static int psink_policy(void *ud, const char *name)
{
	struct ga_fleet *f = ud;
	char *c = ga_strdup(name);
	if (!c)
		return -ENOMEM;
	ga_free(f->policy_name);
	f->policy_name = c;
	f->o.policy_name = c;
	return 0;
}

void ga_fleet_prom_sink(struct ga_fleet *f, struct ga_prom_fleet_sink *ret)
{
	*ret = (struct ga_prom_fleet_sink){ .ud = f,
		                            .node = psink_node,
		                            .skipped = sink_skipped,
		                            .history = psink_history,
		                            .policy = psink_policy };
}
