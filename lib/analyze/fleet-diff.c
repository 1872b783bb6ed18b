/*
 * analyze/fleet-diff.c - what changed between two fleet reports (fleet
 * --diff OLD.json): classes and stacks added, removed or with other node
 * counts, and drift entries added, resolved or changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-int.h"
#include "gpuaudit/fleet-analyze.h"

static const struct ga_fleet_class *find_rclass(const struct ga_fleet_report *r,
                                                const struct ga_fleet_class *k)
{
	for (size_t i = 0; i < r->n_classes; i++)
		if (!strcmp(r->classes[i].id, k->id) && fleet_streq_null(r->classes[i].pool, k->pool))
			return &r->classes[i];
	return NULL;
}

static const struct ga_fleet_stack *find_rstack(const struct ga_fleet_class *k, const char *sha)
{
	for (size_t i = 0; k && i < k->n_stacks; i++)
		if (!strcmp(k->stacks[i].stack_sha256, sha))
			return &k->stacks[i];
	return NULL;
}

static int change(struct ga_fleet_diff *d, const char *kind, const char *cls, const char *stack,
                  const char *host, const struct ga_ou64 *o, const struct ga_ou64 *n, const char *detail)
{
	struct ga_fleet_change *c = ga_array_push((void **)&d->changes, &d->n_changes, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->kind = ga_strdup(kind);
	c->class_id = fleet_dup_or_null(cls);
	c->stack_sha256 = fleet_dup_or_null(stack);
	c->host = fleet_dup_or_null(host);
	c->detail = fleet_dup_or_null(detail);
	if (o)
		c->old_nodes = *o;
	if (n)
		c->new_nodes = *n;
	if (!c->kind || (cls && !c->class_id) || (stack && !c->stack_sha256) || (host && !c->host) ||
	    (detail && !c->detail))
		return -ENOMEM;
	return 0;
}

static int classes_diff(struct ga_fleet_diff *d, const struct ga_fleet_report *a,
                        const struct ga_fleet_report *b, bool added)
{
	int r = 0;
	for (size_t i = 0; i < b->n_classes && r == 0; i++) {
		const struct ga_fleet_class *kb = &b->classes[i], *ka = find_rclass(a, kb);
		if (!ka) {
			r = change(d, added ? "class-added" : "class-removed", kb->id, NULL, NULL,
			           added ? NULL : &kb->nodes, added ? &kb->nodes : NULL, kb->pool);
			continue;
		}
		if (added && ka->nodes.v != kb->nodes.v)
			r = change(d, "class-nodes", kb->id, NULL, NULL, &ka->nodes, &kb->nodes, NULL);
		for (size_t s = 0; s < kb->n_stacks && r == 0; s++) {
			const struct ga_fleet_stack *sb = &kb->stacks[s],
			                            *sa = find_rstack(ka, sb->stack_sha256);
			if (!sa)
				r = change(d, added ? "stack-added" : "stack-removed", kb->id,
				           sb->stack_sha256, NULL, added ? NULL : &sb->nodes,
				           added ? &sb->nodes : NULL, sb->driver);
			else if (added && sa->nodes.v != sb->nodes.v)
				r = change(d, "stack-nodes", kb->id, sb->stack_sha256, NULL, &sa->nodes,
				           &sb->nodes, NULL);
		}
	}
	return r;
}

static char *join_reasons(const struct ga_strv *v)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	for (size_t i = 0; i < v->n; i++)
		if (ga_buf_addf(&b, "%s%s", i ? "," : "", v->v[i]) < 0) {
			ga_buf_release(&b);
			return NULL;
		}
	if (!b.len && ga_buf_adds(&b, "") < 0)
		return NULL;
	return ga_buf_detach(&b, NULL);
}

/* Is host within the part of the list both reports hold? */
static bool within(const char *host, const char *cut)
{
	return !cut || strcmp(host, cut) <= 0;
}

static int drift_diff(struct ga_fleet_diff *d, const struct ga_fleet_report *o,
                      const struct ga_fleet_report *n)
{
	const char *cut = NULL;
	bool o_cut = o->n_drift < o->drift_nodes.v, n_cut = n->n_drift < n->drift_nodes.v;
	if (o_cut)
		cut = o->n_drift ? o->drift[o->n_drift - 1].host : "";
	if (n_cut) {
		const char *c2 = n->n_drift ? n->drift[n->n_drift - 1].host : "";
		if (!cut || strcmp(c2, cut) < 0)
			cut = c2;
	}
	GA_SET(d->drift_complete, !o_cut && !n_cut);
	/* both lists are sorted by host: walk them together */
	size_t i = 0, j = 0;
	int r = 0;
	while (r == 0 && (i < o->n_drift || j < n->n_drift)) {
		const struct ga_fleet_drift *a = i < o->n_drift ? &o->drift[i] : NULL;
		const struct ga_fleet_drift *b = j < n->n_drift ? &n->drift[j] : NULL;
		int c = !a ? 1 : !b ? -1 : strcmp(a->host, b->host);
		if (c < 0) {
			if (within(a->host, cut))
				r = change(d, "drift-resolved", a->class_id, a->stack_sha256, a->host, NULL,
				           NULL, a->detail);
			i++;
		} else if (c > 0) {
			if (within(b->host, cut))
				r = change(d, "drift-added", b->class_id, b->stack_sha256, b->host, NULL,
				           NULL, b->detail);
			j++;
		} else {
			char *ra = join_reasons(&a->reasons), *rb = join_reasons(&b->reasons);
			if (!ra || !rb) {
				r = -ENOMEM;
			} else if (strcmp(ra, rb) || !fleet_streq_null(a->class_id, b->class_id) ||
			           !fleet_streq_null(a->stack_sha256, b->stack_sha256)) {
				struct ga_buf t;
				ga_buf_init(&t, 0);
				r = ga_buf_addf(&t, "%s -> %s", *ra ? ra : "-", *rb ? rb : "-");
				if (r == 0)
					r = change(d, "drift-changed", b->class_id, b->stack_sha256, b->host,
					           NULL, NULL, t.data);
				ga_buf_release(&t);
			}
			ga_free(ra);
			ga_free(rb);
			i++;
			j++;
		}
	}
	return r;
}

int ga_fleet_diff(const struct ga_fleet_report *old, const struct ga_fleet_report *cur,
                  struct ga_fleet_diff **ret)
{
	struct ga_fleet_diff *d = ga_calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->old_nodes = old->nodes;
	d->new_nodes = cur->nodes;
	d->old_drift_nodes = old->drift_nodes;
	d->new_drift_nodes = cur->drift_nodes;
	int r = classes_diff(d, old, cur, true);
	if (r == 0)
		r = classes_diff(d, cur, old, false);
	if (r == 0)
		r = drift_diff(d, old, cur);
	if (r < 0) {
		ga_fleet_diff_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

void ga_fleet_diff_free(struct ga_fleet_diff *d)
{
	if (!d)
		return;
	ga_schema_release(&ga_fleet_diff_schema, d);
	ga_free(d);
}
