/*
 * emit/emit-int.h - what the text emitters share: an output buffer whose
 * first error sticks (so a writer prints without checking every call and
 * reports once), and the small formatting helpers of the fleet writers.
 * Not installed.
 */
#ifndef GA_EMIT_INT_H
#define GA_EMIT_INT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/fleet.h"

struct ga_emit {
	struct ga_buf *b;
	int err; /* the first -ENOMEM/-E2BIG */
};

static inline void ga_emitf(struct ga_emit *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void ga_emitf(struct ga_emit *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = o->err ? 0 : ga_buf_vaddf(o->b, fmt, ap);
	va_end(ap);
	if (r < 0)
		o->err = r;
}

static inline void ga_emits(struct ga_emit *o, const char *s)
{
	int r = o->err ? 0 : ga_buf_adds(o->b, s);
	if (r < 0)
		o->err = r;
}

static inline void ga_emitn(struct ga_emit *o, const char *p, size_t n)
{
	int r = o->err ? 0 : ga_buf_add(o->b, p, n);
	if (r < 0)
		o->err = r;
}

static inline void ga_emitc(struct ga_emit *o, char c)
{
	int r = o->err ? 0 : ga_buf_addc(o->b, c);
	if (r < 0)
		o->err = r;
}

static inline const char *ga_emit_dash(const char *s)
{
	return s && *s ? s : "-";
}

static inline unsigned long long ga_emit_u(const struct ga_ou64 *v)
{
	return (unsigned long long)(v->set ? v->v : 0);
}

static inline size_t ga_emit_fleet_stacks(const struct ga_fleet_report *r)
{
	size_t k = 0;
	for (size_t i = 0; i < r->n_classes; i++)
		k += r->classes[i].n_stacks;
	return k;
}

/* The drift entry's reasons, comma-separated. */
static inline void ga_emit_fleet_reasons(const struct ga_fleet_drift *d, char *out, size_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < d->reasons.n && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "", d->reasons.v[i]);
}

#endif
