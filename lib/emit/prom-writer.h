/*
 * prom-writer.h - inside lib/emit only: the exposition writer (prom-writer.c)
 * that prom.c and prom-devices.c build their families with. Errors stick:
 * after the first failure every call is a no-op and err holds it.
 */
#ifndef GA_EMIT_PROM_WRITER_H
#define GA_EMIT_PROM_WRITER_H

#include "gpuaudit/prom.h"
#include "gpuaudit/verdict.h"

struct ga_pw {
	struct ga_buf *b;
	enum ga_prom_format fmt;
	int err;
	/* the family whose header is written at its first sample */
	const char *name, *type, *help, *unit;
	bool pending;
	/* labels of the sample being built */
	int nlabels;
};

void ga_pw_add(struct ga_pw *w, const char *s);
void ga_pw_addf(struct ga_pw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Declare a family: NAME as samples carry it (counters with _total); UNIT is OpenMetrics' unit or NULL. */
void ga_pw_family(struct ga_pw *w, const char *name, const char *type, const char *unit, const char *help);
/* Start a sample of the current family: its header if pending, then the name. */
void ga_pw_begin(struct ga_pw *w);
/* A label; an empty value is the same as no label to Prometheus, so it is left out. */
void ga_pw_label(struct ga_pw *w, const char *k, const char *v);
void ga_pw_labelu(struct ga_pw *w, const char *k, uint64_t v);
/* End the sample with its value. */
void ga_pw_value(struct ga_pw *w, double v);
void ga_pw_valueu(struct ga_pw *w, uint64_t v);

/* The per-accelerator families (prom-devices.c). */
void ga_prom_render_devices(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd);
/* The container layer's families (lib/emit/prom-ctr.c); nothing without the section. */
void ga_prom_render_ctr(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd);
/* The container layer's families: CDI specs, device plugins (prom-container.c). */
void ga_prom_render_container(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd);
/* prom-nvlink.c: NVLink state and counters, fabric registration (called by the above) */
void ga_prom_render_nvlink(struct ga_pw *w, const struct ga_node *n);
/* The InfiniBand/RoCE port, XGMI and fabric manager families (prom-ib.c). */
void ga_prom_render_ib(struct ga_pw *w, const struct ga_node *n);

#endif
