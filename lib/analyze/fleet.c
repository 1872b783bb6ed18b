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

#include <jansson.h>

#include "../core/internal.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/nodeclass.h"

/* --- schema tables ------------------------------------------------------ */

#define S(st, m) GA_FIELD(st, m, GA_F_STR)
#define U(st, m) GA_FIELD(st, m, GA_F_U64)
#define B(st, m) GA_FIELD(st, m, GA_F_BOOL)
#define V(st, m) GA_FIELD(st, m, GA_F_STRV)
#define SCHEMA(var, st, tbl) \
	static const struct ga_schema var = { #st, sizeof(struct st), tbl, GA_ARRAY_SIZE(tbl) }

static const struct ga_field stack_f[] = {
	S(struct ga_fleet_stack, stack_sha256), S(struct ga_fleet_stack, driver),
	S(struct ga_fleet_stack, cuda),         S(struct ga_fleet_stack, rocm),
	S(struct ga_fleet_stack, kernel),       S(struct ga_fleet_stack, os),
	U(struct ga_fleet_stack, nodes),        U(struct ga_fleet_stack, links_degraded),
	U(struct ga_fleet_stack, failing),      B(struct ga_fleet_stack, majority),
	B(struct ga_fleet_stack, drift),        S(struct ga_fleet_stack, drift_detail),
};
SCHEMA(stack_s, ga_fleet_stack, stack_f);

static const struct ga_field class_f[] = {
	S(struct ga_fleet_class, id),        S(struct ga_fleet_class, name),
	S(struct ga_fleet_class, hw_sha256), S(struct ga_fleet_class, pool),
	U(struct ga_fleet_class, gpus),      U(struct ga_fleet_class, expected_gpus),
	U(struct ga_fleet_class, nodes),     GA_FIELD_ARR(struct ga_fleet_class, stacks, stack_s),
};
SCHEMA(class_s, ga_fleet_class, class_f);

static const struct ga_field drift_f[] = {
	S(struct ga_fleet_drift, host),     S(struct ga_fleet_drift, source),
	S(struct ga_fleet_drift, class_id), S(struct ga_fleet_drift, stack_sha256),
	V(struct ga_fleet_drift, reasons),  S(struct ga_fleet_drift, detail),
};
SCHEMA(drift_s, ga_fleet_drift, drift_f);

static const struct ga_field skip_f[] = { S(struct ga_fleet_skip, source), S(struct ga_fleet_skip, reason) };
SCHEMA(skip_s, ga_fleet_skip, skip_f);

static const struct ga_field checks_f[] = {
	S(struct ga_fleet_checks, class),
	U(struct ga_fleet_checks, pass),
	U(struct ga_fleet_checks, fail),
	U(struct ga_fleet_checks, unknown),
};
SCHEMA(checks_s, ga_fleet_checks, checks_f);

static const struct ga_field report_f[] = {
	S(struct ga_fleet_report, schema),
	S(struct ga_fleet_report, policy),
	U(struct ga_fleet_report, reports),
	U(struct ga_fleet_report, nodes),
	U(struct ga_fleet_report, check_reports),
	U(struct ga_fleet_report, skipped),
	U(struct ga_fleet_report, drift_nodes),
	GA_FIELD_ARR(struct ga_fleet_report, classes, class_s),
	GA_FIELD_ARR(struct ga_fleet_report, checks, checks_s),
	GA_FIELD_ARR(struct ga_fleet_report, drift, drift_s),
	GA_FIELD_ARR(struct ga_fleet_report, skipped_reports, skip_s),
};
const struct ga_schema ga_fleet_report_schema = { "ga_fleet_report", sizeof(struct ga_fleet_report), report_f,
	                                          GA_ARRAY_SIZE(report_f) };

static const struct ga_field change_f[] = {
	S(struct ga_fleet_change, kind),         S(struct ga_fleet_change, class_id),
	S(struct ga_fleet_change, stack_sha256), S(struct ga_fleet_change, host),
	U(struct ga_fleet_change, old_nodes),    U(struct ga_fleet_change, new_nodes),
	S(struct ga_fleet_change, detail),
};
SCHEMA(change_s, ga_fleet_change, change_f);

static const struct ga_field diff_f[] = {
	U(struct ga_fleet_diff, old_nodes),       U(struct ga_fleet_diff, new_nodes),
	U(struct ga_fleet_diff, old_drift_nodes), U(struct ga_fleet_diff, new_drift_nodes),
	B(struct ga_fleet_diff, drift_complete),  GA_FIELD_ARR(struct ga_fleet_diff, changes, change_s),
};
const struct ga_schema ga_fleet_diff_schema = { "ga_fleet_diff", sizeof(struct ga_fleet_diff), diff_f,
	                                        GA_ARRAY_SIZE(diff_f) };

static const char *const reason_names[GA_FLEET_N_REASONS] = { "stack", "gpus", "link", "check", "no-class" };

const char *ga_fleet_reason_name(unsigned bit)
{
	for (unsigned i = 0; i < GA_FLEET_N_REASONS; i++)
		if (bit == 1u << i)
			return reason_names[i];
	return NULL;
}

/* --- a string -> index map (open addressing, FNV-1a) --------------------- */

struct map {
	char **keys;
	size_t *vals;
	size_t cap, n; /* cap a power of two, at most half full */
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool map_get(const struct map *m, const char *key, size_t *ret)
{
	if (!m->cap)
		return false;
	for (size_t i = fnv1a(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return false;
		if (!strcmp(m->keys[i], key)) {
			*ret = m->vals[i];
			return true;
		}
	}
}

static int map_put(struct map *m, const char *key, size_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		char **nk = ga_calloc(ncap, sizeof(*nk));
		size_t *nv = ga_calloc(ncap, sizeof(*nv));
		if (!nk || !nv) {
			ga_free(nk);
			ga_free(nv);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = fnv1a(m->keys[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		ga_free(m->keys);
		ga_free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	char *k = ga_strdup(key);
	if (!k)
		return -ENOMEM;
	size_t i = fnv1a(key) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = k;
	m->vals[i] = val;
	m->n++;
	return 0;
}

static void map_release(struct map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		ga_free(m->keys[i]);
	ga_free(m->keys);
	ga_free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* --- bounded samples: the `cap` smallest (host, source) pairs ------------ */

struct sample {
	char *host;
	char *source;
	char *detail;
	unsigned flags;
};

struct sampleset {
	struct sample *v;
	size_t n, alloc;
};

static int sample_cmp(const char *h1, const char *s1, const char *h2, const char *s2)
{
	int c = strcmp(h1, h2);
	return c ? c : strcmp(s1, s2);
}

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
	if (s->n == cap && sample_cmp(host, source, s->v[cap - 1].host, s->v[cap - 1].source) >= 0)
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
		if (sample_cmp(s->v[mid].host, s->v[mid].source, host, source) <= 0)
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

/* --- the aggregator ----------------------------------------------------- */

struct family {
	char *key; /* hardware class JSON with the accelerator counts left out */
};

struct klass {
	char *id, *name, *hw_sha256, *pool;
	size_t fam;
	uint64_t gpus, nodes;
	struct ga_ou64 policy_gpus; /* the policy class's gpu_count */
};

struct cell {
	size_t cls;
	char *stack_sha256;
	char *driver, *cuda, *rocm, *kernel, *os;
	uint64_t nodes, links, failing, bad, pins;
	char *pin_detail; /* the pin findings of the first node that violated one */
	struct sampleset all, badset;
};

struct checks {
	char *cls;
	uint64_t pass, fail, unknown;
};

struct ga_fleet {
	struct ga_fleet_opts o;
	struct map idx; /* "F"+family key, "C"+hw|pool, "S"+class|stack, "K"+check class */
	struct family *fams;
	size_t n_fams;
	struct klass *classes;
	size_t n_classes;
	struct cell *cells;
	size_t n_cells;
	struct checks *checks;
	size_t n_checks;
	struct sampleset check_fail; /* failing check reports */
	uint64_t nodes, check_reports, check_failing, skipped;
	struct ga_fleet_skip *skips;
	size_t n_skips;
};

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

void ga_fleet_free(struct ga_fleet *f)
{
	if (!f)
		return;
	map_release(&f->idx);
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
	for (size_t i = 0; i < f->n_skips; i++)
		ga_schema_release(&skip_s, &f->skips[i]);
	ga_free(f->skips);
	ga_free(f);
}

static char *dup_or_null(const char *s)
{
	return s ? ga_strdup(s) : NULL;
}

/* The family key: the hardware class JSON without accelerator counts. */
static int family_key(const char *hw_json, char **ret)
{
	unsigned long oom = ga_alloc_failures();
	json_t *hw = json_loads(hw_json, 0, NULL);
	if (!hw)
		return ga_alloc_failures() != oom ? -ENOMEM : -EINVAL;
	json_t *acc = json_object_get(hw, "accelerators");
	for (size_t i = 0; json_is_array(acc) && i < json_array_size(acc); i++)
		json_object_del(json_array_get(acc, i), "count");
	char *s = json_dumps(hw, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(hw);
	if (!s)
		return -ENOMEM;
	*ret = ga_strdup(s);
	free(s);
	return *ret ? 0 : -ENOMEM;
}

static int find_family(struct ga_fleet *f, const char *hw_json, size_t *ret)
{
	char *key = NULL;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = family_key(hw_json, &key);
	if (r < 0)
		goto out;
	r = ga_buf_addf(&b, "F%s", key);
	if (r < 0)
		goto out;
	if (map_get(&f->idx, b.data, ret))
		goto out;
	struct family *fam = ga_array_push((void **)&f->fams, &f->n_fams, sizeof(*fam));
	if (!fam) {
		r = -ENOMEM;
		goto out;
	}
	r = map_put(&f->idx, b.data, f->n_fams - 1);
	if (r < 0) {
		f->n_fams--;
		goto out;
	}
	fam->key = key;
	key = NULL;
	*ret = f->n_fams - 1;
out:
	ga_free(key);
	ga_buf_release(&b);
	return r;
}

static int find_class(struct ga_fleet *f, const struct ga_node *n, const struct ga_nodeclass *nc,
                      const struct ga_policy_class *pc, size_t *ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_addf(&b, "C%s|%s", nc->hw_sha256, pc ? pc->name : "");
	if (r < 0)
		goto out;
	if (map_get(&f->idx, b.data, ret))
		goto out;
	size_t fam;
	r = find_family(f, nc->hw_json, &fam);
	if (r < 0)
		goto out;
	struct klass k = { 0 };
	size_t idlen = strlen(nc->name) + 10;
	k.id = ga_malloc(idlen);
	if (k.id)
		snprintf(k.id, idlen, "%s-%.8s", nc->name, nc->hw_sha256);
	k.name = ga_strdup(nc->name);
	k.hw_sha256 = ga_strdup(nc->hw_sha256);
	k.pool = pc ? ga_strdup(pc->name) : NULL;
	k.fam = fam;
	k.gpus = n->n_accelerators;
	if (pc)
		k.policy_gpus = pc->expect.gpu_count;
	struct klass *slot = NULL;
	if (k.id && k.name && k.hw_sha256 && (!pc || k.pool))
		slot = ga_array_push((void **)&f->classes, &f->n_classes, sizeof(*slot));
	if (slot && map_put(&f->idx, b.data, f->n_classes - 1) < 0) {
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

/* The stack's components for the matrix columns, from its canonical JSON. */
static int stack_columns(struct cell *c, const char *stack_json)
{
	unsigned long oom = ga_alloc_failures();
	json_t *st = json_loads(stack_json, 0, NULL);
	if (!st)
		return ga_alloc_failures() != oom ? -ENOMEM : -EINVAL;
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	int r = 0;
	const json_t *drivers = json_object_get(st, "drivers");
	const char *name;
	json_t *d;
	json_object_foreach((json_t *)drivers, name, d)
	{
		const char *v = json_string_value(json_object_get(d, "version"));
		const char *fl = json_string_value(json_object_get(d, "flavor"));
		if (r == 0)
			r = ga_buf_addf(&b, "%s%s%s%s%s%s", b.len ? ", " : "", name, v ? " " : "", v ? v : "",
			                fl ? " " : "", fl ? fl : "");
	}
	const json_t *os = json_object_get(st, "os");
	const char *os_id = json_string_value(json_object_get(os, "id"));
	const char *os_v = json_string_value(json_object_get(os, "version_id"));
	char osbuf[256];
	snprintf(osbuf, sizeof(osbuf), "%s%s%s", os_id ? os_id : "", os_id && os_v ? " " : "",
	         os_v ? os_v : "");
	if (r == 0) {
		c->driver = b.len ? ga_strdup(b.data) : NULL;
		c->cuda = dup_or_null(json_string_value(json_object_get(st, "cuda")));
		c->rocm = dup_or_null(json_string_value(json_object_get(st, "rocm")));
		c->kernel = dup_or_null(json_string_value(json_object_get(st, "kernel")));
		c->os = *osbuf ? ga_strdup(osbuf) : NULL;
		if ((b.len && !c->driver) || (*osbuf && !c->os))
			r = -ENOMEM;
	}
	ga_buf_release(&b);
	json_decref(st);
	return r;
}

static int find_cell(struct ga_fleet *f, size_t cls, const struct ga_nodeclass *nc, size_t *ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_addf(&b, "S%zu|%s", cls, nc->stack_sha256);
	if (r < 0)
		goto out;
	if (map_get(&f->idx, b.data, ret))
		goto out;
	struct cell *c = ga_array_push((void **)&f->cells, &f->n_cells, sizeof(*c));
	if (!c) {
		r = -ENOMEM;
		goto out;
	}
	c->cls = cls;
	c->stack_sha256 = ga_strdup(nc->stack_sha256);
	r = c->stack_sha256 ? stack_columns(c, nc->stack_json) : -ENOMEM;
	if (r == 0)
		r = map_put(&f->idx, b.data, f->n_cells - 1);
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

/* Sort one node's findings into drift reasons. */
static int classify(const struct ga_findings *fs, unsigned *flags, struct ga_buf *detail, struct ga_buf *pins)
{
	int r = 0;
	for (size_t i = 0; i < fs->n && r == 0; i++) {
		const struct ga_finding *fd = &fs->v[i];
		const char *code = fd->code ? fd->code : "";
		if (!strcmp(code, "GA-LINK-DEGRADED")) {
			*flags |= GA_FLEET_LINK;
			r = add_word(detail, " ", code);
		} else if (ga_startswith(code, "GA-PIN-")) {
			*flags |= GA_FLEET_STACK;
			if (pins->len < 400)
				r = ga_buf_addf(pins, "%s%s", pins->len ? "; " : "", fd->message);
		} else if (!strcmp(code, "GA-EXPECT-GPU-COUNT")) {
			*flags |= GA_FLEET_GPUS;
			r = add_word(detail, " ", code);
		} else if (!strcmp(code, "GA-CHECK-NO-CLASS")) {
			*flags |= GA_FLEET_NO_CLASS;
			r = add_word(detail, " ", code);
		} else if (fd->severity >= GA_SEV_ERROR || ga_startswith(code, "GA-EXPECT-")) {
			*flags |= GA_FLEET_CHECK;
			r = add_word(detail, " ", code);
		}
	}
	return r;
}

int ga_fleet_add_node(struct ga_fleet *f, const struct ga_node *n, const char *source)
{
	struct ga_nodeclass nc = { 0 };
	struct ga_check chk = { 0 };
	struct ga_findings own;
	struct ga_buf detail, pins;
	ga_findings_init(&own);
	ga_buf_init(&detail, 0);
	ga_buf_init(&pins, 0);
	const struct ga_policy_class *pc = NULL;
	const struct ga_findings *fs;
	unsigned flags = 0;
	size_t cls = 0, ci = 0;
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
	if (r == 0)
		r = classify(fs, &flags, &detail, &pins);
	if (r == 0)
		r = find_class(f, n, &nc, pc, &cls);
	if (r == 0)
		r = find_cell(f, cls, &nc, &ci);
	if (r < 0)
		goto out;
	struct cell *c = &f->cells[ci];
	const char *host = n->host.hostname && *n->host.hostname ? n->host.hostname : source;
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
	ga_nodeclass_release(&nc);
	ga_check_release(&chk);
	ga_findings_release(&own);
	ga_buf_release(&detail);
	ga_buf_release(&pins);
	return r < 0 ? (r == -ENOMEM ? r : -EINVAL) : 0;
}

int ga_fleet_add_check(struct ga_fleet *f, const char *source, const char *name, const char *cls,
                       const char *result, const char *detail)
{
	int res = !strcmp(result, "pass")      ? 0
	          : !strcmp(result, "fail")    ? 1
	          : !strcmp(result, "unknown") ? 2
	                                       : -1;
	if (res < 0)
		return -EINVAL;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	size_t k;
	int r = ga_buf_addf(&b, "K%s%s", cls ? "=" : "", cls ? cls : "");
	if (r < 0)
		goto out;
	if (!map_get(&f->idx, b.data, &k)) {
		char *c = cls ? ga_strdup(cls) : NULL;
		struct checks *e =
		        (!cls || c) ? ga_array_push((void **)&f->checks, &f->n_checks, sizeof(*e)) : NULL;
		if (e && map_put(&f->idx, b.data, f->n_checks - 1) < 0) {
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

/* --- the report --------------------------------------------------------- */

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
	return sample_cmp(a->host, a->source, b->host, b->source);
}

static int cmp_checks(const void *pa, const void *pb)
{
	const struct ga_fleet_checks *a = pa, *b = pb;
	return cmp_str_null(a->class, b->class);
}

static bool streq_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int diff_part(struct ga_buf *b, const char *what, const char *mine, const char *ref)
{
	if (streq_null(mine, ref))
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
			r = ga_strv_push(&d->reasons, reason_names[i]);
	if (r == 0 && k && (flags & GA_FLEET_GPUS) && k->gpus < expected)
		r = ga_buf_addf(&b, "%llu GPUs, pool has %llu", (unsigned long long)k->gpus,
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

int ga_fleet_report(const struct ga_fleet *f, struct ga_fleet_report **ret)
{
	struct ga_fleet_report *rep = ga_calloc(1, sizeof(*rep));
	struct famstat *fs = f->n_fams ? ga_calloc(f->n_fams, sizeof(*fs)) : NULL;
	size_t *corder = f->n_classes ? ga_calloc(f->n_classes, sizeof(*corder)) : NULL;
	size_t *sorder = f->n_cells ? ga_calloc(f->n_cells, sizeof(*sorder)) : NULL;
	size_t *crow = f->n_classes ? ga_calloc(f->n_classes, sizeof(*crow)) : NULL;
	char **sdetail = f->n_cells ? ga_calloc(f->n_cells, sizeof(*sdetail)) : NULL;
	struct ga_fleet_drift *all = NULL;
	size_t n_all = 0;
	int r = 0;
	if (!rep || (f->n_fams && !fs) || (f->n_classes && (!corder || !crow)) ||
	    (f->n_cells && (!sorder || !sdetail))) {
		r = -ENOMEM;
		goto out;
	}
	rep->schema = ga_strdup(GA_FLEET_SCHEMA);
	rep->policy = f->o.policy && f->o.policy->file ? ga_strdup(f->o.policy->file) : NULL;
	if (!rep->schema || (f->o.policy && f->o.policy->file && !rep->policy)) {
		r = -ENOMEM;
		goto out;
	}
	GA_SET(rep->nodes, f->nodes);
	GA_SET(rep->check_reports, f->check_reports);
	GA_SET(rep->skipped, f->skipped);
	GA_SET(rep->reports, f->nodes + f->check_reports + f->skipped);

	/* each pool's majority class: most nodes, then most GPUs, then hash */
	for (size_t i = 0; i < f->n_fams; i++)
		fs[i].maj_class = SIZE_MAX;
	for (size_t i = 0; i < f->n_classes; i++) {
		const struct klass *k = &f->classes[i];
		size_t *m = &fs[k->fam].maj_class;
		const struct klass *o = *m == SIZE_MAX ? NULL : &f->classes[*m];
		if (!o || k->nodes > o->nodes ||
		    (k->nodes == o->nodes &&
		     (k->gpus > o->gpus || (k->gpus == o->gpus && strcmp(k->hw_sha256, o->hw_sha256) < 0))))
			*m = i;
	}
	/* each pool's majority stack, over all its classes */
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

	/* classes in name order, their stacks by node count */
	for (size_t i = 0; i < f->n_classes; i++)
		corder[i] = i;
	if (f->n_classes)
		qsort_r(corder, f->n_classes, sizeof(*corder), cmp_class_idx, (void *)f);
	for (size_t i = 0; i < f->n_classes && r == 0; i++) {
		const struct klass *k = &f->classes[corder[i]];
		struct ga_fleet_class *rc =
		        ga_array_push((void **)&rep->classes, &rep->n_classes, sizeof(*rc));
		if (!rc) {
			r = -ENOMEM;
			break;
		}
		crow[corder[i]] = i;
		const struct klass *mk = &f->classes[fs[k->fam].maj_class];
		rc->id = ga_strdup(k->id);
		rc->name = ga_strdup(k->name);
		rc->hw_sha256 = ga_strdup(k->hw_sha256);
		/* with a policy, a class no policy class matches has no pool */
		rc->pool = k->pool ? ga_strdup(k->pool) : f->o.policy ? NULL : ga_strdup(mk->id);
		if (!rc->id || !rc->name || !rc->hw_sha256 || (!rc->pool && (k->pool || !f->o.policy)))
			r = -ENOMEM;
		GA_SET(rc->gpus, k->gpus);
		GA_SET(rc->expected_gpus, k->policy_gpus.set ? k->policy_gpus.v : mk->gpus);
		GA_SET(rc->nodes, k->nodes);
	}
	for (size_t i = 0; i < f->n_cells; i++)
		sorder[i] = i;
	if (f->n_cells)
		qsort_r(sorder, f->n_cells, sizeof(*sorder), cmp_cell_nodes, (void *)f);
	for (size_t i = 0; i < f->n_cells && r == 0; i++) {
		const struct cell *c = &f->cells[sorder[i]];
		const struct klass *k = &f->classes[c->cls];
		const struct cell *maj = fs[k->fam].maj_stack;
		struct ga_fleet_class *rc = &rep->classes[crow[c->cls]];
		struct ga_fleet_stack *st = ga_array_push((void **)&rc->stacks, &rc->n_stacks, sizeof(*st));
		if (!st) {
			r = -ENOMEM;
			break;
		}
		unsigned cflags = 0;
		char *detail = NULL;
		if (!f->o.policy && strcmp(maj->stack_sha256, c->stack_sha256)) {
			cflags |= GA_FLEET_STACK;
			r = stack_vs_majority(c, maj, &detail);
		} else if (c->pin_detail && !(detail = ga_strdup(c->pin_detail))) {
			r = -ENOMEM;
		}
		sdetail[sorder[i]] = detail;
		if (k->gpus < rc->expected_gpus.v)
			cflags |= GA_FLEET_GPUS;
		st->stack_sha256 = ga_strdup(c->stack_sha256);
		st->driver = dup_or_null(c->driver);
		st->cuda = dup_or_null(c->cuda);
		st->rocm = dup_or_null(c->rocm);
		st->kernel = dup_or_null(c->kernel);
		st->os = dup_or_null(c->os);
		st->drift_detail = dup_or_null(detail);
		if (!st->stack_sha256 || (c->driver && !st->driver) || (c->cuda && !st->cuda) ||
		    (c->rocm && !st->rocm) || (c->kernel && !st->kernel) || (c->os && !st->os) ||
		    (detail && !st->drift_detail))
			r = -ENOMEM;
		GA_SET(st->nodes, c->nodes);
		GA_SET(st->links_degraded, c->links);
		GA_SET(st->failing, c->failing);
		if (!f->o.policy)
			GA_SET(st->majority, !strcmp(maj->stack_sha256, c->stack_sha256));
		GA_SET(st->drift, (cflags & GA_FLEET_STACK) || c->pins > 0);

		/* drifting nodes: the whole cell, or its nodes with problems of their own */
		const struct sampleset *src = cflags ? &c->all : &c->badset;
		rep->drift_nodes.v += cflags ? c->nodes : c->bad;
		for (size_t s = 0; s < src->n && r == 0; s++) {
			struct ga_fleet_drift *d = ga_array_push((void **)&all, &n_all, sizeof(*d));
			r = d ? drift_entry(d, &src->v[s], src->v[s].flags | cflags, k, c,
			                    rc->expected_gpus.v, detail)
			      : -ENOMEM;
		}
	}
	for (size_t s = 0; s < f->check_fail.n && r == 0; s++) {
		struct ga_fleet_drift *d = ga_array_push((void **)&all, &n_all, sizeof(*d));
		r = d ? drift_entry(d, &f->check_fail.v[s], GA_FLEET_CHECK, NULL, NULL, 0, NULL) : -ENOMEM;
	}
	if (r < 0)
		goto out;
	rep->drift_nodes.v += f->check_failing;
	rep->drift_nodes.set = true;
	if (n_all)
		qsort(all, n_all, sizeof(*all), cmp_drift);
	size_t keep = n_all < f->o.max_drift ? n_all : f->o.max_drift;
	for (size_t i = keep; i < n_all; i++)
		ga_schema_release(&drift_s, &all[i]);
	rep->drift = all;
	rep->n_drift = keep;
	all = NULL;
	n_all = 0;
	if (!keep) {
		ga_free(rep->drift);
		rep->drift = NULL;
	}

	for (size_t i = 0; i < f->n_checks && r == 0; i++) {
		struct ga_fleet_checks *e = ga_array_push((void **)&rep->checks, &rep->n_checks, sizeof(*e));
		if (!e || (f->checks[i].cls && !(e->class = ga_strdup(f->checks[i].cls)))) {
			r = -ENOMEM;
			break;
		}
		GA_SET(e->pass, f->checks[i].pass);
		GA_SET(e->fail, f->checks[i].fail);
		GA_SET(e->unknown, f->checks[i].unknown);
	}
	if (r == 0 && rep->n_checks)
		qsort(rep->checks, rep->n_checks, sizeof(*rep->checks), cmp_checks);
	for (size_t i = 0; i < f->n_skips && r == 0; i++) {
		struct ga_fleet_skip *e =
		        ga_array_push((void **)&rep->skipped_reports, &rep->n_skipped_reports, sizeof(*e));
		if (!e || !(e->source = ga_strdup(f->skips[i].source)) ||
		    !(e->reason = ga_strdup(f->skips[i].reason)))
			r = -ENOMEM;
	}
	if (r < 0)
		goto out;
	*ret = rep;
	rep = NULL;
out:
	for (size_t i = 0; i < n_all; i++)
		ga_schema_release(&drift_s, &all[i]);
	ga_free(all);
	for (size_t i = 0; sdetail && i < f->n_cells; i++)
		ga_free(sdetail[i]);
	ga_free(sdetail);
	ga_free(crow);
	ga_free(sorder);
	ga_free(corder);
	ga_free(fs);
	ga_fleet_report_free(rep);
	return r < 0 ? -ENOMEM : 0;
}

void ga_fleet_report_free(struct ga_fleet_report *r)
{
	if (!r)
		return;
	ga_schema_release(&ga_fleet_report_schema, r);
	ga_free(r);
}

void ga_fleet_report_write_members(const struct ga_fleet_report *r, struct ga_json *w)
{
	ga_schema_write_members(w, &ga_fleet_report_schema, r);
}

int ga_fleet_report_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_fleet_report **ret)
{
	json_error_t jerr;
	unsigned long oom = ga_alloc_failures();
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root && ga_alloc_failures() != oom)
		return ga_err(ctx, -ENOMEM, "out of memory");
	if (!root)
		return ga_err(ctx, -EBADMSG, "invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
		              jerr.text);
	int r = 0;
	struct ga_fleet_report *rep = NULL;
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, GA_FLEET_SCHEMA)) {
		r = ga_err(ctx, -EBADMSG,
		           "not a fleet report (schema %s): write one with 'gpuaudit fleet --json'",
		           schema ? schema : "missing");
		goto out;
	}
	rep = ga_calloc(1, sizeof(*rep));
	if (!rep) {
		r = -ENOMEM;
		goto out;
	}
	r = ga_schema_read(ctx, &ga_fleet_report_schema, root, rep);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < rep->n_classes && r == 0; i++) {
		if (!rep->classes[i].id)
			r = ga_err(ctx, -EBADMSG, "classes[%zu].id: expected string", i);
		for (size_t k = 0; k < rep->classes[i].n_stacks && r == 0; k++)
			if (!rep->classes[i].stacks[k].stack_sha256)
				r = ga_err(ctx, -EBADMSG,
				           "classes[%zu].stacks[%zu].stack_sha256: expected string", i, k);
	}
	for (size_t i = 0; i < rep->n_drift && r == 0; i++)
		if (!rep->drift[i].host || !rep->drift[i].source)
			r = ga_err(ctx, -EBADMSG, "drift[%zu]: host and source must be strings", i);
	if (r < 0)
		goto out;
	*ret = rep;
	rep = NULL;
out:
	ga_fleet_report_free(rep);
	json_decref(root);
	return r;
}

/* --- diff --------------------------------------------------------------- */

static const struct ga_fleet_class *find_rclass(const struct ga_fleet_report *r,
                                                const struct ga_fleet_class *k)
{
	for (size_t i = 0; i < r->n_classes; i++)
		if (!strcmp(r->classes[i].id, k->id) && streq_null(r->classes[i].pool, k->pool))
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
	c->class_id = dup_or_null(cls);
	c->stack_sha256 = dup_or_null(stack);
	c->host = dup_or_null(host);
	c->detail = dup_or_null(detail);
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
			} else if (strcmp(ra, rb) || !streq_null(a->class_id, b->class_id) ||
			           !streq_null(a->stack_sha256, b->stack_sha256)) {
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
