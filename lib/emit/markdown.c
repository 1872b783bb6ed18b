/*
 * emit/markdown.c - reports as Markdown (GitHub tables), for a wiki page or a
 * pull request: the fleet's compatibility matrix, drift and changes (`fleet
 * --markdown`). Here rather than in the command so that serve and library
 * users can render the same.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "emit-int.h"
#include "gpuaudit/markdown.h"
#include "gpuaudit/text.h"

/*
 * A table cell or heading: Markdown's own characters ('|', '\\', '`', '*', '_',
 * '<') backslash-escaped, everything else through the text rule (text.h):
 * control bytes, newlines and bytes that are not UTF-8 made visible. Empty is "-".
 */
static void md(struct ga_emit *o, const char *s)
{
	s = ga_emit_dash(s);
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		char c = s[i];
		if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '_' || c == '<') {
			ga_emitc(o, '\\');
			ga_emitc(o, c);
			i++;
			continue;
		}
		char unit[GA_TEXT_UNIT_MAX];
		size_t n = 0;
		i += ga_text_unit(s + i, len - i, 0, unit, &n);
		ga_emitn(o, unit, n);
	}
}

static void md_class(struct ga_emit *o, const struct ga_fleet_class *k)
{
	ga_emitf(o, "\n## ");
	md(o, k->id);
	ga_emitf(o, "\n\n%llu node%s, ", ga_emit_u(&k->nodes), ga_emit_u(&k->nodes) == 1 ? "" : "s");
	if (k->gpus.set)
		ga_emitf(o, "%llu GPU%s", ga_emit_u(&k->gpus), ga_emit_u(&k->gpus) == 1 ? "" : "s");
	else
		ga_emitf(o, "GPUs **unknown** (PCI devices not read)");
	if (k->gpus.set && ga_emit_u(&k->gpus) < ga_emit_u(&k->expected_gpus))
		ga_emitf(o, " (**fewer** than the pool's %llu)", ga_emit_u(&k->expected_gpus));
	ga_emitf(o, ", pool ");
	md(o, k->pool ? k->pool : "none (no policy class matches)");
	ga_emitf(o, ".\n\n| Nodes | Stack | Driver | CUDA | ROCm | Kernel | OS | Degraded links | "
	            "Failing | Status |\n|---:|---|---|---|---|---|---|---:|---:|---|\n");
	for (size_t s = 0; s < k->n_stacks; s++) {
		const struct ga_fleet_stack *st = &k->stacks[s];
		char sha[16];
		snprintf(sha, sizeof(sha), "%.8s", ga_emit_dash(st->stack_sha256));
		ga_emitf(o, "| %llu | ", ga_emit_u(&st->nodes));
		md(o, sha);
		const char *cols[] = { st->driver, st->cuda, st->rocm, st->kernel, st->os };
		for (size_t c = 0; c < 5; c++) {
			ga_emitf(o, " | ");
			md(o, cols[c]);
		}
		ga_emitf(o, " | %llu | %llu | ", ga_emit_u(&st->links_degraded), ga_emit_u(&st->failing));
		if (st->drift.set && st->drift.v) {
			ga_emitf(o, "drift: ");
			md(o, st->drift_detail);
		} else {
			ga_emitf(o, "%s", st->majority.set && st->majority.v ? "majority" : "ok");
		}
		ga_emitf(o, " |\n");
	}
}

static void md_drift(struct ga_emit *o, const struct ga_fleet_report *r)
{
	if (r->n_checks) {
		ga_emitf(o, "\n## Check reports\n\n| Policy class | Pass | Fail | Unknown "
		            "|\n|---|---:|---:|---:|\n");
		for (size_t i = 0; i < r->n_checks; i++) {
			ga_emitf(o, "| ");
			md(o, r->checks[i].class);
			ga_emitf(o, " | %llu | %llu | %llu |\n", ga_emit_u(&r->checks[i].pass),
			         ga_emit_u(&r->checks[i].fail), ga_emit_u(&r->checks[i].unknown));
		}
	}
	ga_emitf(o, "\n## Drift\n\n%llu node%s", ga_emit_u(&r->drift_nodes),
	         ga_emit_u(&r->drift_nodes) == 1 ? "" : "s");
	if (r->n_drift < ga_emit_u(&r->drift_nodes))
		ga_emitf(o, "; the first %zu by host are listed", r->n_drift);
	ga_emitf(o, ".\n");
	if (r->n_drift) {
		ga_emitf(o, "\n| Host | Reasons | Class | Stack | Detail |\n|---|---|---|---|---|\n");
		for (size_t i = 0; i < r->n_drift; i++) {
			const struct ga_fleet_drift *e = &r->drift[i];
			char rs[128], sha[16];
			ga_emit_fleet_reasons(e, rs, sizeof(rs));
			snprintf(sha, sizeof(sha), "%.8s", ga_emit_dash(e->stack_sha256));
			const char *cols[] = { e->host, rs, e->class_id ? e->class_id : "(check report)", sha,
				               e->detail };
			for (size_t c = 0; c < 5; c++) {
				ga_emitf(o, "| ");
				md(o, cols[c]);
				ga_emitf(o, " ");
			}
			ga_emitf(o, "|\n");
		}
	}
	if (ga_emit_u(&r->skipped)) {
		ga_emitf(o,
		         "\n## Skipped reports\n\n%llu reports could not be used.\n\n| Source | Reason "
		         "|\n|---|---|\n",
		         ga_emit_u(&r->skipped));
		for (size_t i = 0; i < r->n_skipped_reports; i++) {
			ga_emitf(o, "| ");
			md(o, r->skipped_reports[i].source);
			ga_emitf(o, " | ");
			md(o, r->skipped_reports[i].reason);
			ga_emitf(o, " |\n");
		}
	}
}

static void md_diff(struct ga_emit *o, const struct ga_fleet_diff *d, const char *old)
{
	ga_emitf(o, "\n## Changes since ");
	md(o, old);
	ga_emitf(o, "\n\nNodes %llu → %llu, drift %llu → %llu.", ga_emit_u(&d->old_nodes),
	         ga_emit_u(&d->new_nodes), ga_emit_u(&d->old_drift_nodes), ga_emit_u(&d->new_drift_nodes));
	if (d->drift_complete.set && !d->drift_complete.v)
		ga_emitf(o, " A drift list was cut at --max-drift: hosts past the cut are not compared.");
	ga_emitf(o, "\n");
	if (d->n_changes)
		ga_emitf(o, "\n| Change | Host | Class | Stack | Nodes | Detail "
		            "|\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < d->n_changes; i++) {
		const struct ga_fleet_change *c = &d->changes[i];
		char sha[16], nodes[64] = "";
		snprintf(sha, sizeof(sha), "%.8s", ga_emit_dash(c->stack_sha256));
		if (c->old_nodes.set && c->new_nodes.set)
			snprintf(nodes, sizeof(nodes), "%llu → %llu", ga_emit_u(&c->old_nodes),
			         ga_emit_u(&c->new_nodes));
		else if (c->new_nodes.set || c->old_nodes.set)
			snprintf(nodes, sizeof(nodes), "%llu",
			         ga_emit_u(c->new_nodes.set ? &c->new_nodes : &c->old_nodes));
		const char *cols[] = { c->kind, c->host, c->class_id, sha, nodes, c->detail };
		for (size_t k = 0; k < 6; k++) {
			ga_emitf(o, "| ");
			if (k == 4)
				ga_emitf(o, "%s", *nodes ? nodes : "-");
			else
				md(o, cols[k]);
			ga_emitf(o, " ");
		}
		ga_emitf(o, "|\n");
	}
}

/* Unix seconds as RFC 3339 UTC, to the second. */
static const char *utc(const struct ga_odbl *t, char *buf, size_t n)
{
	struct tm tm;
	time_t s = t->set ? (time_t)t->v : 0;
	if (!t->set || !gmtime_r(&s, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, n, "-");
	return buf;
}

/* fleet --prometheus --since: nodes that changed or stopped. */
static void md_history(struct ga_emit *o, const struct ga_fleet_report *r)
{
	if (!r->since_s.set)
		return;
	ga_emitf(o,
	         "\n## Drift in time\n\n%llu nodes changed class, stack or pool, or stopped reporting, "
	         "within %.0f s",
	         ga_emit_u(&r->history_nodes), r->since_s.v);
	if (r->n_history < ga_emit_u(&r->history_nodes))
		ga_emitf(o, "; the first %zu by host are listed", r->n_history);
	ga_emitf(o, ".\n");
	if (!r->n_history)
		return;
	ga_emitf(o, "\n| Host | Status | Class | Stack | Driver | First seen | Last seen |\n"
	            "|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n_history; i++) {
		const struct ga_fleet_history *h = &r->history[i];
		for (size_t k = 0; k < h->n_states; k++) {
			const struct ga_fleet_state *st = &h->states[k];
			char sha[16], f[32], l[32];
			snprintf(sha, sizeof(sha), "%.8s", ga_emit_dash(st->stack_sha256));
			const char *cols[] = { k ? "" : h->host,
				               k ? "" : h->status,
				               st->class_id,
				               sha,
				               st->driver,
				               utc(&st->first_seen_s, f, sizeof(f)),
				               utc(&st->last_seen_s, l, sizeof(l)) };
			for (size_t c = 0; c < 7; c++) {
				ga_emitf(o, "| ");
				md(o, cols[c]);
				ga_emitf(o, " ");
			}
			ga_emitf(o, "|\n");
		}
	}
}

int ga_markdown_fleet(struct ga_buf *out, const struct ga_fleet_report *r, const struct ga_fleet_diff *d,
                      const char *old)
{
	struct ga_emit em = { out, 0 };
	struct ga_emit *o = &em;
	ga_emitf(o, "# Fleet compatibility matrix\n\n");
	unsigned long long nn = ga_emit_u(&r->nodes), nd = ga_emit_u(&r->drift_nodes);
	unsigned long long nc = ga_emit_u(&r->check_reports), ns = ga_emit_u(&r->skipped);
	size_t nst = ga_emit_fleet_stacks(r);
	ga_emitf(o, "%llu node%s in %zu hardware class%s with %zu stack%s; %llu check report%s; ", nn,
	         nn == 1 ? "" : "s", r->n_classes, r->n_classes == 1 ? "" : "es", nst, nst == 1 ? "" : "s",
	         nc, nc == 1 ? "" : "s");
	ga_emitf(o, "%llu report%s skipped; **%llu node%s drift%s**.\n", ns, ns == 1 ? "" : "s", nd,
	         nd == 1 ? "" : "s", nd == 1 ? "s" : "");
	if (r->policy) {
		ga_emitf(o, "Policy: ");
		md(o, r->policy);
		ga_emitf(o, " (drift: pins violated, fewer GPUs, degraded links, failing checks).\n");
	} else {
		ga_emitf(o, "No policy: drift is against each pool's majority stack.\n");
	}
	if (r->prometheus) {
		char at[32];
		ga_emitf(o, "From Prometheus ");
		md(o, r->prometheus);
		ga_emitf(o, " at %s.\n", utc(&r->at_s, at, sizeof(at)));
	}
	for (size_t i = 0; i < r->n_classes; i++)
		md_class(o, &r->classes[i]);
	md_drift(o, r);
	md_history(o, r);
	if (d)
		md_diff(o, d, old);
	return em.err;
}
