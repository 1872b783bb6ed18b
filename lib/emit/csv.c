/*
 * emit/csv.c - reports as CSV (RFC 4180: CRLF, fields quoted when they hold a
 * comma or a quote; line breaks and control bytes made visible by the text
 * rule of text.h, so a record is one line), one record per row for a spreadsheet or a
 * script: the fleet's stacks, checks, drift, skipped reports and changes
 * (`fleet --csv`). Here rather than in the command so that serve and library
 * users can render the same.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "emit-int.h"
#include "gpuaudit/csv.h"
#include "gpuaudit/text.h"

/*
 * A field: through the text rule first (text.h: control bytes, CR, LF, tab and
 * bytes that are not UTF-8 made visible, so every record stays on its line and
 * no cell carries a terminal escape), then quoted per RFC 4180 when it holds a
 * comma or a quote. A field a spreadsheet would run as a formula ('=', '+',
 * '-', '@' first) is not rewritten: CSV is data here, not a sheet.
 */
static void csv(struct ga_emit *o, const char *s, bool last)
{
	if (s) {
		struct ga_buf t;
		ga_buf_init(&t, 0);
		int r = ga_text_escape_buf(&t, s, strlen(s), 0);
		const char *v = t.data ? t.data : "";
		if (r < 0) {
			if (!o->err)
				o->err = r;
		} else if (strpbrk(v, ",\"")) {
			ga_emitc(o, '"');
			for (; *v; v++) {
				if (*v == '"')
					ga_emitc(o, '"');
				ga_emitc(o, *v);
			}
			ga_emitc(o, '"');
		} else {
			ga_emits(o, v);
		}
		ga_buf_release(&t);
	}
	ga_emits(o, last ? "\r\n" : ",");
}

static void csv_u(struct ga_emit *o, const struct ga_ou64 *v)
{
	if (v->set)
		ga_emitf(o, "%llu", (unsigned long long)v->v);
	ga_emitc(o, ',');
}

static void csv_b(struct ga_emit *o, const struct ga_obool *v)
{
	if (v->set)
		ga_emits(o, v->v ? "true" : "false");
	ga_emitc(o, ',');
}

#define CSV_HEADER                                                                                    \
	"record,class,pool,gpus,expected_gpus,stack,driver,cuda,rocm,kernel,os,nodes,links_degraded," \
	"failing,majority,drift,host,source,reasons,detail,change,old_nodes,new_nodes\r\n"

int ga_csv_fleet(struct ga_buf *out, const struct ga_fleet_report *r, const struct ga_fleet_diff *d)
{
	struct ga_emit em = { out, 0 };
	struct ga_emit *o = &em;
	ga_emits(o, CSV_HEADER);
	for (size_t i = 0; i < r->n_classes; i++) {
		const struct ga_fleet_class *k = &r->classes[i];
		for (size_t s = 0; s < k->n_stacks; s++) {
			const struct ga_fleet_stack *st = &k->stacks[s];
			csv(o, "stack", false);
			csv(o, k->id, false);
			csv(o, k->pool, false);
			csv_u(o, &k->gpus);
			csv_u(o, &k->expected_gpus);
			csv(o, st->stack_sha256, false);
			csv(o, st->driver, false);
			csv(o, st->cuda, false);
			csv(o, st->rocm, false);
			csv(o, st->kernel, false);
			csv(o, st->os, false);
			csv_u(o, &st->nodes);
			csv_u(o, &st->links_degraded);
			csv_u(o, &st->failing);
			csv_b(o, &st->majority);
			csv_b(o, &st->drift);
			ga_emits(o, ",,,");
			csv(o, st->drift_detail, false);
			ga_emits(o, ",,\r\n");
		}
	}
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct ga_fleet_checks *c = &r->checks[i];
		char detail[96];
		snprintf(detail, sizeof(detail), "pass %llu, fail %llu, unknown %llu", ga_emit_u(&c->pass),
		         ga_emit_u(&c->fail), ga_emit_u(&c->unknown));
		struct ga_ou64 total = { ga_emit_u(&c->pass) + ga_emit_u(&c->fail) + ga_emit_u(&c->unknown),
			                 true };
		csv(o, "check", false);
		ga_emits(o, ",");
		csv(o, c->class, false);
		ga_emits(o, ",,,,,,,,");
		csv_u(o, &total);
		ga_emits(o, ",");
		csv_u(o, &c->fail);
		ga_emits(o, ",,,,,");
		csv(o, detail, false);
		ga_emits(o, ",,\r\n");
	}
	for (size_t i = 0; i < r->n_drift; i++) {
		const struct ga_fleet_drift *e = &r->drift[i];
		char rs[128];
		ga_emit_fleet_reasons(e, rs, sizeof(rs));
		csv(o, "drift", false);
		csv(o, e->class_id, false);
		ga_emits(o, ",,,");
		csv(o, e->stack_sha256, false);
		ga_emits(o, ",,,,,,,,,,");
		csv(o, e->host, false);
		csv(o, e->source, false);
		csv(o, rs, false);
		csv(o, e->detail, false);
		ga_emits(o, ",,\r\n");
	}
	for (size_t i = 0; i < r->n_history; i++) {
		const struct ga_fleet_history *h = &r->history[i];
		for (size_t k = 0; k < h->n_states; k++) {
			const struct ga_fleet_state *st = &h->states[k];
			char detail[96];
			snprintf(detail, sizeof(detail), "first_seen_s %.3f, last_seen_s %.3f",
			         st->first_seen_s.v, st->last_seen_s.v);
			csv(o, "history", false);
			csv(o, st->class_id, false);
			csv(o, st->pool, false);
			ga_emits(o, ",,");
			csv(o, st->stack_sha256, false);
			csv(o, st->driver, false);
			csv(o, st->cuda, false);
			ga_emits(o, ",,,,,,,,");
			csv(o, h->host, false);
			csv(o, h->source, false);
			csv(o, h->status, false);
			csv(o, detail, false);
			ga_emits(o, ",,\r\n");
		}
	}
	for (size_t i = 0; i < r->n_skipped_reports; i++) {
		csv(o, "skipped", false);
		ga_emits(o, ",,,,,,,,,,,,,,,,");
		csv(o, r->skipped_reports[i].source, false);
		ga_emits(o, ",");
		csv(o, r->skipped_reports[i].reason, false);
		ga_emits(o, ",,\r\n");
	}
	for (size_t i = 0; d && i < d->n_changes; i++) {
		const struct ga_fleet_change *c = &d->changes[i];
		csv(o, "change", false);
		csv(o, c->class_id, false);
		ga_emits(o, ",,,");
		csv(o, c->stack_sha256, false);
		ga_emits(o, ",,,,,,,,,,");
		csv(o, c->host, false);
		ga_emits(o, ",,");
		csv(o, c->detail, false);
		csv(o, c->kind, false);
		csv_u(o, &c->old_nodes);
		if (c->new_nodes.set)
			ga_emitf(o, "%llu", ga_emit_u(&c->new_nodes));
		ga_emits(o, "\r\n");
	}
	return em.err;
}
