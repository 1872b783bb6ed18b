/*
 * analyze/fleet-report.c - the aggregator's state (fleet-int.h) as a report:
 * each pool's majority class and stack, which cells drift, and the drift list
 * merged from the cells' bounded samples, cut at max_drift (see fleet.c for
 * why that list is exact).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-int.h"
#include "gpuaudit/fleet-analyze.h"

struct famstat {
	size_t maj_class; /* SIZE_MAX: none */
	const struct cell *maj_stack;
};

static int cmp_str_null(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : a ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_class_idx(const void *pa, const void *pb, void *ud)
{
	const struct ga_fleet *sort_fleet = ud;
	const struct klass *a = &sort_fleet->classes[*(const size_t *)pa];
	const struct klass *b = &sort_fleet->classes[*(const size_t *)pb];
	int c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->hw_sha256, b->hw_sha256);
	return c ? c : cmp_str_null(a->pool, b->pool);
}

/* Cells by family, then stack: runs of one stack within one family. */
static int cmp_cell_fam(const void *pa, const void *pb, void *ud)
{
	const struct ga_fleet *sort_fleet = ud;
	const struct cell *a = &sort_fleet->cells[*(const size_t *)pa];
	const struct cell *b = &sort_fleet->cells[*(const size_t *)pb];
	size_t fa = sort_fleet->classes[a->cls].fam, fb = sort_fleet->classes[b->cls].fam;
	if (fa != fb)
		return fa < fb ? -1 : 1;
	return strcmp(a->stack_sha256, b->stack_sha256);
}

/* Within a class: most nodes first, then by stack hash. */
static int cmp_cell_nodes(const void *pa, const void *pb, void *ud)
{
	const struct ga_fleet *sort_fleet = ud;
	const struct cell *a = &sort_fleet->cells[*(const size_t *)pa];
	const struct cell *b = &sort_fleet->cells[*(const size_t *)pb];
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->nodes != b->nodes)
		return a->nodes > b->nodes ? -1 : 1;
	return strcmp(a->stack_sha256, b->stack_sha256);
}

static int cmp_drift(const void *pa, const void *pb)
{
	const struct ga_fleet_drift *a = pa, *b = pb;
	return fleet_sample_cmp(a->host, a->source, b->host, b->source);
}

static int cmp_checks(const void *pa, const void *pb)
{
	const struct ga_fleet_checks *a = pa, *b = pb;
	return cmp_str_null(a->class, b->class);
}

static int diff_part(struct ga_buf *b, const char *what, const char *mine, const char *ref)
{
	if (fleet_streq_null(mine, ref))
		return 0;
	return ga_buf_addf(b, "%s%s %s (pool: %s)", b->len ? "; " : "", what, mine ? mine : "none",
	                   ref ? ref : "none");
}

static int stack_vs_majority(const struct cell *c, const struct cell *m, char **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = diff_part(&b, "driver", c->driver, m->driver);
	if (r == 0)
		r = diff_part(&b, "cuda", c->cuda, m->cuda);
	if (r == 0)
		r = diff_part(&b, "rocm", c->rocm, m->rocm);
	if (r == 0)
		r = diff_part(&b, "kernel", c->kernel, m->kernel);
	if (r == 0)
		r = diff_part(&b, "os", c->os, m->os);
	if (r == 0 && !b.len) /* same columns, other facts (e.g. a second driver's flavor) */
		r = ga_buf_addf(&b, "stack %.8s (pool: %.8s)", c->stack_sha256, m->stack_sha256);
	if (r == 0)
		*ret = ga_buf_detach(&b, NULL);
	ga_buf_release(&b);
	return r < 0 ? r : (*ret ? 0 : -ENOMEM);
}

/* One drift entry from a sample, its cell's own reasons added. */
static int drift_entry(struct ga_fleet_drift *d, const struct sample *s, unsigned flags,
                       const struct klass *k, const struct cell *c, uint64_t expected,
                       const char *stack_detail)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = 0;
	d->host = ga_strdup(s->host);
	d->source = ga_strdup(s->source);
	d->class_id = k ? ga_strdup(k->id) : NULL;
	d->stack_sha256 = c ? ga_strdup(c->stack_sha256) : NULL;
	if (!d->host || !d->source || (k && !d->class_id) || (c && !d->stack_sha256))
		r = -ENOMEM;
	for (unsigned i = 0; i < GA_FLEET_N_REASONS && r == 0; i++)
		if (flags & (1u << i))
			r = ga_strv_push(&d->reasons, ga_fleet_reason_name(1u << i));
	if (r == 0 && k && (flags & GA_FLEET_GPUS) && k->gpus.set && k->gpus.v < expected)
		r = ga_buf_addf(&b, "%llu GPUs, pool has %llu", (unsigned long long)k->gpus.v,
		                (unsigned long long)expected);
	if (r == 0 && (flags & GA_FLEET_STACK) && stack_detail)
		r = ga_buf_addf(&b, "%s%s", b.len ? "; " : "", stack_detail);
	if (r == 0 && s->detail)
		r = ga_buf_addf(&b, "%s%s", b.len ? "; " : "", s->detail);
	if (r == 0 && b.len && !(d->detail = ga_buf_detach(&b, NULL)))
		r = -ENOMEM;
	ga_buf_release(&b);
	return r;
}

/* The report being built, and the scratch it needs. */
struct build {
	const struct ga_fleet *f;
	struct ga_fleet_report *rep;
	struct famstat *fs;         /* per pool (family) */
	size_t *corder;             /* classes in report order */
	size_t *sorder;             /* cells, in the order of the step at hand */
	size_t *crow;               /* class index -> row in rep->classes */
	char **sdetail;             /* per cell: what its stack drifts by */
	struct ga_fleet_drift *all; /* every cell's drift sample, before the cut */
	size_t n_all;
};

/* Each pool's majority class (most nodes, then most GPUs, then hash) and stack, over all its classes. */
static void majorities(struct build *b)
{
	const struct ga_fleet *f = b->f;
	struct famstat *fs = b->fs;
	for (size_t i = 0; i < f->n_fams; i++)
		fs[i].maj_class = SIZE_MAX;
	for (size_t i = 0; i < f->n_classes; i++) {
		const struct klass *k = &f->classes[i];
		size_t *m = &fs[k->fam].maj_class;
		const struct klass *o = *m == SIZE_MAX ? NULL : &f->classes[*m];
		/* the most nodes, then the most GPUs (an unknown count, .v 0, ranks last), then the hash */
		if (!o || k->nodes > o->nodes ||
		    (k->nodes == o->nodes &&
		     (k->gpus.v > o->gpus.v ||
		      (k->gpus.v == o->gpus.v && strcmp(k->hw_sha256, o->hw_sha256) < 0))))
			*m = i;
	}
	size_t *sorder = b->sorder;
	for (size_t i = 0; i < f->n_cells; i++)
		sorder[i] = i;
	if (f->n_cells)
		qsort_r(sorder, f->n_cells, sizeof(*sorder), cmp_cell_fam, (void *)f);
	uint64_t best = 0;
	size_t prev_fam = SIZE_MAX;
	for (size_t i = 0; i < f->n_cells;) {
		const struct cell *c = &f->cells[sorder[i]];
		size_t fam = f->classes[c->cls].fam;
		uint64_t cnt = 0;
		size_t j = i;
		for (; j < f->n_cells; j++) {
			const struct cell *x = &f->cells[sorder[j]];
			if (f->classes[x->cls].fam != fam || strcmp(x->stack_sha256, c->stack_sha256))
				break;
			cnt += x->nodes;
		}
		if (fam != prev_fam)
			best = 0, prev_fam = fam;
		if (!fs[fam].maj_stack || cnt > best) /* runs come in hash order: ties keep the first */
			fs[fam].maj_stack = c, best = cnt;
		i = j;
	}
}

/* Classes in name order. 0 or -ENOMEM. */
static int report_classes(struct build *b)
{
	const struct ga_fleet *f = b->f;
	struct ga_fleet_report *rep = b->rep;
	int r = 0;
	for (size_t i = 0; i < f->n_classes; i++)
		b->corder[i] = i;
	if (f->n_classes)
		qsort_r(b->corder, f->n_classes, sizeof(*b->corder), cmp_class_idx, (void *)f);
	for (size_t i = 0; i < f->n_classes && r == 0; i++) {
		const struct klass *k = &f->classes[b->corder[i]];
		struct ga_fleet_class *rc =
		        ga_array_push((void **)&rep->classes, &rep->n_classes, sizeof(*rc));
		if (!rc)
			return -ENOMEM;
		b->crow[b->corder[i]] = i;
		const struct klass *mk = &f->classes[b->fs[k->fam].maj_class];
		rc->id = ga_strdup(k->id);
		rc->name = ga_strdup(k->name);
		rc->hw_sha256 = ga_strdup(k->hw_sha256);
		/* with a policy, a class no policy class matches has no pool */
		rc->pool = k->pool ? ga_strdup(k->pool) : fleet_has_policy(f) ? NULL : ga_strdup(mk->id);
		if (!rc->id || !rc->name || !rc->hw_sha256 ||
		    (!rc->pool && (k->pool || !fleet_has_policy(f))))
			r = -ENOMEM;
		/* a class whose PCI devices were not read has no GPU count, and gives none to its pool */
		rc->gpus = k->gpus;
		if (k->policy_gpus.set)
			GA_SET(rc->expected_gpus, k->policy_gpus.v);
		else
			rc->expected_gpus = mk->gpus;
		GA_SET(rc->nodes, k->nodes);
	}
	return r;
}

/* Cell c (index ci) as a stack row of its class, and its drifting nodes into b->all. 0 or -ENOMEM. */
static int report_stack(struct build *b, size_t ci)
{
	const struct ga_fleet *f = b->f;
	const struct cell *c = &f->cells[ci];
	const struct klass *k = &f->classes[c->cls];
	const struct cell *maj = b->fs[k->fam].maj_stack;
	struct ga_fleet_class *rc = &b->rep->classes[b->crow[c->cls]];
	struct ga_fleet_stack *st = ga_array_push((void **)&rc->stacks, &rc->n_stacks, sizeof(*st));
	if (!st)
		return -ENOMEM;
	unsigned cflags = 0;
	char *detail = NULL;
	int r = 0;
	if (!fleet_has_policy(f) && strcmp(maj->stack_sha256, c->stack_sha256)) {
		cflags |= GA_FLEET_STACK;
		r = stack_vs_majority(c, maj, &detail);
	} else if (c->pin_detail && !(detail = ga_strdup(c->pin_detail))) {
		r = -ENOMEM;
	}
	b->sdetail[ci] = detail;
	if (k->gpus.set && k->gpus.v < rc->expected_gpus.v)
		cflags |= GA_FLEET_GPUS;
	st->stack_sha256 = ga_strdup(c->stack_sha256);
	st->driver = fleet_dup_or_null(c->driver);
	st->cuda = fleet_dup_or_null(c->cuda);
	st->rocm = fleet_dup_or_null(c->rocm);
	st->kernel = fleet_dup_or_null(c->kernel);
	st->os = fleet_dup_or_null(c->os);
	st->drift_detail = fleet_dup_or_null(detail);
	if (!st->stack_sha256 || (c->driver && !st->driver) || (c->cuda && !st->cuda) ||
	    (c->rocm && !st->rocm) || (c->kernel && !st->kernel) || (c->os && !st->os) ||
	    (detail && !st->drift_detail))
		r = -ENOMEM;
	GA_SET(st->nodes, c->nodes);
	GA_SET(st->links_degraded, c->links);
	GA_SET(st->failing, c->failing);
	if (!fleet_has_policy(f))
		GA_SET(st->majority, !strcmp(maj->stack_sha256, c->stack_sha256));
	GA_SET(st->drift, (cflags & GA_FLEET_STACK) || c->pins > 0);

	/* drifting nodes: the whole cell, or its nodes with problems of their own */
	const struct sampleset *src = cflags ? &c->all : &c->badset;
	b->rep->drift_nodes.v += cflags ? c->nodes : c->bad;
	for (size_t s = 0; s < src->n && r == 0; s++) {
		struct ga_fleet_drift *d = ga_array_push((void **)&b->all, &b->n_all, sizeof(*d));
		r = d ? drift_entry(d, &src->v[s], src->v[s].flags | cflags, k, c, rc->expected_gpus.v,
		                    detail)
		      : -ENOMEM;
	}
	return r;
}

/* Every cell's stack row, by node count; the failing check reports; the drift list cut at max_drift. */
static int report_stacks_and_drift(struct build *b)
{
	const struct ga_fleet *f = b->f;
	struct ga_fleet_report *rep = b->rep;
	int r = 0;
	for (size_t i = 0; i < f->n_cells; i++)
		b->sorder[i] = i;
	if (f->n_cells)
		qsort_r(b->sorder, f->n_cells, sizeof(*b->sorder), cmp_cell_nodes, (void *)f);
	for (size_t i = 0; i < f->n_cells && r == 0; i++)
		r = report_stack(b, b->sorder[i]);
	for (size_t s = 0; s < f->check_fail.n && r == 0; s++) {
		struct ga_fleet_drift *d = ga_array_push((void **)&b->all, &b->n_all, sizeof(*d));
		r = d ? drift_entry(d, &f->check_fail.v[s], GA_FLEET_CHECK, NULL, NULL, 0, NULL) : -ENOMEM;
	}
	if (r < 0)
		return r;
	rep->drift_nodes.v += f->check_failing;
	rep->drift_nodes.set = true;
	if (b->n_all)
		qsort(b->all, b->n_all, sizeof(*b->all), cmp_drift);
	size_t keep = b->n_all < f->o.max_drift ? b->n_all : f->o.max_drift;
	for (size_t i = keep; i < b->n_all; i++)
		ga_schema_release(&ga_fleet_drift_schema, &b->all[i]);
	rep->drift = b->all;
	rep->n_drift = keep;
	b->all = NULL;
	b->n_all = 0;
	if (!keep) {
		ga_free(rep->drift);
		rep->drift = NULL;
	}
	return 0;
}

/* The check reports per class, and the skipped reports. 0 or -ENOMEM. */
static int report_checks_and_skips(struct build *b)
{
	const struct ga_fleet *f = b->f;
	struct ga_fleet_report *rep = b->rep;
	for (size_t i = 0; i < f->n_checks; i++) {
		struct ga_fleet_checks *e = ga_array_push((void **)&rep->checks, &rep->n_checks, sizeof(*e));
		if (!e || (f->checks[i].cls && !(e->class = ga_strdup(f->checks[i].cls))))
			return -ENOMEM;
		GA_SET(e->pass, f->checks[i].pass);
		GA_SET(e->fail, f->checks[i].fail);
		GA_SET(e->unknown, f->checks[i].unknown);
	}
	if (rep->n_checks)
		qsort(rep->checks, rep->n_checks, sizeof(*rep->checks), cmp_checks);
	for (size_t i = 0; i < f->n_skips; i++) {
		struct ga_fleet_skip *e =
		        ga_array_push((void **)&rep->skipped_reports, &rep->n_skipped_reports, sizeof(*e));
		if (!e || !(e->source = ga_strdup(f->skips[i].source)) ||
		    !(e->reason = ga_strdup(f->skips[i].reason)))
			return -ENOMEM;
	}
	return 0;
}

/* fleet --prometheus: the server, the time, the range and the history (copies). */
static int report_origin(const struct ga_fleet *f, struct ga_fleet_report *rep)
{
	if (f->prometheus && !(rep->prometheus = ga_strdup(f->prometheus)))
		return -ENOMEM;
	rep->at_s = f->at_s;
	rep->since_s = f->since_s;
	if (!f->since_s.set)
		return 0;
	GA_SET(rep->history_nodes, f->history_nodes);
	if (!f->n_history)
		return 0;
	rep->history = ga_calloc(f->n_history, sizeof(*rep->history));
	if (!rep->history)
		return -ENOMEM;
	rep->n_history = f->n_history;
	for (size_t i = 0; i < f->n_history; i++) {
		const struct ga_fleet_history *h = &f->history[i];
		struct ga_fleet_history *d = &rep->history[i];
		d->host = fleet_dup_or_null(h->host);
		d->source = fleet_dup_or_null(h->source);
		d->status = fleet_dup_or_null(h->status);
		d->first_seen_s = h->first_seen_s;
		d->last_seen_s = h->last_seen_s;
		if ((h->host && !d->host) || (h->source && !d->source) || (h->status && !d->status))
			return -ENOMEM;
		if (!h->n_states)
			continue;
		d->states = ga_calloc(h->n_states, sizeof(*d->states));
		if (!d->states)
			return -ENOMEM;
		d->n_states = h->n_states;
		for (size_t k = 0; k < h->n_states; k++) {
			const struct ga_fleet_state *a = &h->states[k];
			struct ga_fleet_state *z = &d->states[k];
			z->class_id = fleet_dup_or_null(a->class_id);
			z->stack_sha256 = fleet_dup_or_null(a->stack_sha256);
			z->driver = fleet_dup_or_null(a->driver);
			z->cuda = fleet_dup_or_null(a->cuda);
			z->pool = fleet_dup_or_null(a->pool);
			z->first_seen_s = a->first_seen_s;
			z->last_seen_s = a->last_seen_s;
			if ((a->class_id && !z->class_id) || (a->stack_sha256 && !z->stack_sha256) ||
			    (a->driver && !z->driver) || (a->cuda && !z->cuda) || (a->pool && !z->pool))
				return -ENOMEM;
		}
	}
	return 0;
}

int ga_fleet_report(const struct ga_fleet *f, struct ga_fleet_report **ret)
{
	struct build b = {
		.f = f,
		.rep = ga_calloc(1, sizeof(*b.rep)),
		.fs = f->n_fams ? ga_calloc(f->n_fams, sizeof(*b.fs)) : NULL,
		.corder = f->n_classes ? ga_calloc(f->n_classes, sizeof(*b.corder)) : NULL,
		.sorder = f->n_cells ? ga_calloc(f->n_cells, sizeof(*b.sorder)) : NULL,
		.crow = f->n_classes ? ga_calloc(f->n_classes, sizeof(*b.crow)) : NULL,
		.sdetail = f->n_cells ? ga_calloc(f->n_cells, sizeof(*b.sdetail)) : NULL,
	};
	struct ga_fleet_report *rep = b.rep;
	int r = 0;
	if (!rep || (f->n_fams && !b.fs) || (f->n_classes && (!b.corder || !b.crow)) ||
	    (f->n_cells && (!b.sorder || !b.sdetail))) {
		r = -ENOMEM;
		goto out;
	}
	rep->schema = ga_strdup(GA_FLEET_SCHEMA);
	const char *pname = f->o.policy && f->o.policy->file ? f->o.policy->file : f->o.policy_name;
	rep->policy = pname ? ga_strdup(pname) : NULL;
	if (!rep->schema || (pname && !rep->policy) || report_origin(f, rep) < 0) {
		r = -ENOMEM;
		goto out;
	}
	GA_SET(rep->nodes, f->nodes);
	GA_SET(rep->check_reports, f->check_reports);
	GA_SET(rep->skipped, f->skipped);
	GA_SET(rep->reports, f->nodes + f->check_reports + f->skipped);
	majorities(&b);
	if ((r = report_classes(&b)) < 0 || (r = report_stacks_and_drift(&b)) < 0 ||
	    (r = report_checks_and_skips(&b)) < 0)
		goto out;
	*ret = rep;
	rep = NULL;
out:
	for (size_t i = 0; i < b.n_all; i++)
		ga_schema_release(&ga_fleet_drift_schema, &b.all[i]);
	ga_free(b.all);
	for (size_t i = 0; b.sdetail && i < f->n_cells; i++)
		ga_free(b.sdetail[i]);
	ga_free(b.sdetail);
	ga_free(b.crow);
	ga_free(b.sorder);
	ga_free(b.corder);
	ga_free(b.fs);
	ga_fleet_report_free(rep);
	return r < 0 ? -ENOMEM : 0;
}
