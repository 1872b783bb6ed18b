/*
 * kev_counter.c - the kernel-event counter (kmsg.h): events of repeated reads
 * of one kernel log, each counted once, by kind, code, device and severity.
 * Which line is new is a decision, so it lives with the analyzers; the
 * exporter (lib/emit/prom.c) only writes the counts. Pure: no I/O, no clock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/kmsg.h"

void ga_kev_counter_init(struct ga_kev_counter *c)
{
	memset(c, 0, sizeof(*c));
}

void ga_kev_counter_release(struct ga_kev_counter *c)
{
	if (!c)
		return;
	ga_free(c->v);
	ga_free(c->boot_id);
	memset(c, 0, sizeof(*c));
}

int ga_kev_counter_begin(struct ga_kev_counter *c, const char *boot_id)
{
	if (boot_id && (!c->boot_id || strcmp(c->boot_id, boot_id))) {
		char *b = ga_strdup(boot_id);
		if (!b)
			return -ENOMEM;
		/* another boot (or the first read): its log starts over */
		if (c->boot_id) {
			c->mark_set = false;
			c->mark_boot_s = 0;
			c->at_mark = 0;
			c->untimed_seen = 0;
		}
		ga_free(c->boot_id);
		c->boot_id = b;
	}
	c->in_read = true;
	c->read_max_set = false;
	c->read_max_s = 0;
	c->read_at_max = 0;
	c->read_at_mark = 0;
	c->read_untimed = 0;
	memset(&c->parse, 0, sizeof(c->parse));
	return 0;
}

static int bump(struct ga_kev_counter *c, const struct ga_kevent *ev)
{
	for (size_t i = 0; i < c->n; i++) {
		struct ga_kev_series *s = &c->v[i];
		if (s->kind == ev->kind && s->code.set == ev->code.set &&
		    (!s->code.set || s->code.v == ev->code.v) && !strcmp(s->address, ev->address)) {
			s->count++;
			return 0;
		}
	}
	if (c->n >= GA_KEV_SERIES_MAX) {
		c->dropped++;
		return 0;
	}
	struct ga_kev_series *s = ga_array_push((void **)&c->v, &c->n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->kind = ev->kind;
	s->code = ev->code;
	s->severity = ev->severity;
	snprintf(s->address, sizeof(s->address), "%s", ev->address);
	s->count = 1;
	return 0;
}

int ga_kev_counter_add(struct ga_kev_counter *c, const struct ga_kevent *ev)
{
	bool fresh;
	if (ev->boot_s.set) {
		double t = ev->boot_s.v;
		if (!c->read_max_set || t > c->read_max_s) {
			c->read_max_set = true;
			c->read_max_s = t;
			c->read_at_max = 0;
		}
		if (t == c->read_max_s)
			c->read_at_max++;
		if (!c->mark_set || t > c->mark_boot_s)
			fresh = true;
		else if (t < c->mark_boot_s)
			fresh = false;
		else
			fresh = ++c->read_at_mark > c->at_mark;
	} else {
		fresh = ++c->read_untimed > c->untimed_seen;
	}
	if (!fresh)
		return 0;
	int r = bump(c, ev);
	return r < 0 ? r : 1;
}

int ga_kev_counter_line(void *udata, const char *line, size_t len)
{
	struct ga_kev_counter *c = udata;
	struct ga_kevent ev;
	if (!ga_kevent_parse(&c->parse, line, len, &ev) || ev.folded)
		return 0; /* a folded line completes an event already counted */
	if (ev.kind == GA_KEV_AMDGPU_VM_FAULT)
		ev.code.set = false, ev.code.v = 0; /* one series per device, not per status word */
	int r = ga_kev_counter_add(c, &ev);
	return r < 0 ? r : 0;
}

void ga_kev_counter_end(struct ga_kev_counter *c)
{
	if (!c->in_read)
		return;
	if (c->read_max_set) {
		if (!c->mark_set || c->read_max_s > c->mark_boot_s) {
			c->mark_set = true;
			c->mark_boot_s = c->read_max_s;
			c->at_mark = c->read_at_max;
		} else if (c->read_max_s == c->mark_boot_s && c->read_at_max > c->at_mark) {
			c->at_mark = c->read_at_max;
		}
	}
	if (c->read_untimed > c->untimed_seen)
		c->untimed_seen = c->read_untimed;
	c->reads++;
	c->in_read = false;
}

int ga_kev_counter_add_once(struct ga_kev_counter *c, const struct ga_kevent *ev)
{
	return bump(c, ev);
}
