/*
 * prom.c - Prometheus text format 0.0.4 and OpenMetrics 1.0 from a node
 * snapshot (prom.h). Families are written whole (all their samples together)
 * and only when they have at least one sample, so an absent value gives no
 * series at all rather than a made-up 0. docs/metrics.md lists every family.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuaudit/prom.h"

/* --- content negotiation --- */

static bool is_sp(char c)
{
	return c == ' ' || c == '\t';
}

/* Case-insensitive compare of [s, s+n) against a lowercase literal. */
static bool token_is(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	if (n != m)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != lit[i])
			return false;
	}
	return true;
}

/* "q=0.5" -> 500; malformed -> -1. Quality values have at most three decimals (RFC 9110). */
static int parse_q(const char *s, size_t n)
{
	if (n == 0 || n > 5 || (s[0] != '0' && s[0] != '1'))
		return -1;
	int q = (s[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (s[1] != '.')
		return -1;
	int scale = 100;
	for (size_t i = 2; i < n; i++, scale /= 10) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		q += (s[i] - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

enum ga_prom_format ga_prom_negotiate(const char *accept, size_t len)
{
	if (!accept)
		return GA_PROM_TEXT;
	if (len > 4096)
		len = 4096;
	int q_om = -1, q_other = -1;
	size_t i = 0;
	while (i < len) {
		/* one media range up to ',' */
		size_t start = i;
		while (i < len && accept[i] != ',')
			i++;
		size_t end = i;
		if (i < len)
			i++;
		size_t p = start;
		while (p < end && is_sp(accept[p]))
			p++;
		size_t t = p;
		while (p < end && accept[p] != ';' && !is_sp(accept[p]))
			p++;
		size_t tlen = p - t;
		if (tlen == 0)
			continue;
		int q = 1000;
		/* parameters: ;name=value ... */
		while (p < end) {
			while (p < end && (is_sp(accept[p]) || accept[p] == ';'))
				p++;
			size_t k = p;
			while (p < end && accept[p] != '=' && accept[p] != ';' && !is_sp(accept[p]))
				p++;
			size_t klen = p - k;
			while (p < end && is_sp(accept[p]))
				p++;
			if (p < end && accept[p] == '=') {
				p++;
				while (p < end && is_sp(accept[p]))
					p++;
				size_t v = p;
				while (p < end && accept[p] != ';' && !is_sp(accept[p]))
					p++;
				if (token_is(accept + k, klen, "q")) {
					q = parse_q(accept + v, p - v);
					if (q < 0)
						q = 0; /* malformed: not acceptable */
				}
			} else if (klen == 0 && p < end && accept[p] != ';') {
				p++; /* stray byte: skip it */
			}
		}
		if (token_is(accept + t, tlen, "application/openmetrics-text")) {
			if (q > q_om)
				q_om = q;
		} else if (token_is(accept + t, tlen, "text/plain") || token_is(accept + t, tlen, "*/*") ||
		           token_is(accept + t, tlen, "text/*")) {
			if (q > q_other)
				q_other = q;
		}
	}
	return q_om > 0 && q_om >= q_other ? GA_PROM_OPENMETRICS : GA_PROM_TEXT;
}

const char *ga_prom_content_type(enum ga_prom_format fmt)
{
	return fmt == GA_PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	                                  : "text/plain; version=0.0.4; charset=utf-8";
}

int ga_prom_label_escape(struct ga_buf *b, const char *s)
{
	int r = 0;
	const char *run = s;
	for (const char *p = s; *p && r == 0; p++) {
		const char *esc = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : *p == '\n' ? "\\n" : NULL;
		if (!esc)
			continue;
		r = ga_buf_add(b, run, (size_t)(p - run));
		if (r == 0)
			r = ga_buf_adds(b, esc);
		run = p + 1;
	}
	if (r == 0)
		r = ga_buf_adds(b, run);
	return r;
}

/* --- kernel-event counters --- */

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
	if (!ga_kevent_parse(&c->parse, line, len, &ev))
		return 0;
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

/* --- the writer --- */

struct pw {
	struct ga_buf *b;
	enum ga_prom_format fmt;
	int err;
	/* the family whose header is written at its first sample */
	const char *name, *type, *help, *unit;
	bool pending;
	/* labels of the sample being built */
	int nlabels;
};

static void pw_add(struct pw *w, const char *s)
{
	if (w->err == 0)
		w->err = ga_buf_adds(w->b, s);
}

static void pw_addf(struct pw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pw_addf(struct pw *w, const char *fmt, ...)
{
	if (w->err)
		return;
	va_list ap;
	va_start(ap, fmt);
	w->err = ga_buf_vaddf(w->b, fmt, ap);
	va_end(ap);
}

/* Declare a family: NAME as samples carry it (counters with _total); UNIT is OpenMetrics' unit or NULL. */
static void fam(struct pw *w, const char *name, const char *type, const char *unit, const char *help)
{
	w->name = name;
	w->type = type;
	w->unit = unit;
	w->help = help;
	w->pending = true;
}

static void header(struct pw *w)
{
	if (!w->pending)
		return;
	w->pending = false;
	size_t n = strlen(w->name);
	/* OpenMetrics names a counter family without its _total suffix */
	const char *type = w->type;
	if (!strcmp(type, "info")) {
		/* OpenMetrics has an info type (family name without _info); 0.0.4 calls it a gauge */
		if (w->fmt == GA_PROM_OPENMETRICS && n > 5 && !strcmp(w->name + n - 5, "_info"))
			n -= 5;
		else
			type = "gauge";
	}
	if (w->fmt == GA_PROM_OPENMETRICS && !strcmp(type, "counter") && n > 6 &&
	    !strcmp(w->name + n - 6, "_total"))
		n -= 6;
	pw_addf(w, "# HELP %.*s %s\n", (int)n, w->name, w->help);
	pw_addf(w, "# TYPE %.*s %s\n", (int)n, w->name, type);
	if (w->fmt == GA_PROM_OPENMETRICS && w->unit)
		pw_addf(w, "# UNIT %.*s %s\n", (int)n, w->name, w->unit);
}

/* Start a sample of the current family: its header if pending, then the name. */
static void s_begin(struct pw *w)
{
	header(w);
	pw_add(w, w->name);
	w->nlabels = 0;
}

/* A label; an empty value is the same as no label to Prometheus, so it is left out. */
static void s_label(struct pw *w, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	pw_add(w, w->nlabels ? "," : "{");
	w->nlabels++;
	pw_add(w, k);
	pw_add(w, "=\"");
	if (w->err == 0)
		w->err = ga_prom_label_escape(w->b, v);
	pw_add(w, "\"");
}

static void s_labelu(struct pw *w, const char *k, uint64_t v)
{
	char num[24];
	snprintf(num, sizeof(num), "%" PRIu64, v);
	s_label(w, k, num);
}

static void s_value(struct pw *w, double v)
{
	if (w->nlabels)
		pw_add(w, "}");
	if (isnan(v))
		pw_add(w, " NaN\n");
	else if (isinf(v))
		pw_add(w, v > 0 ? " +Inf\n" : " -Inf\n");
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		pw_addf(w, " %.0f\n", v);
	else
		pw_addf(w, " %.15g\n", v);
}

static void s_valueu(struct pw *w, uint64_t v)
{
	if (w->nlabels)
		pw_add(w, "}");
	pw_addf(w, " %" PRIu64 "\n", v);
}

/* --- per-device values --- */

static const struct ga_pci_dev *pci_of(const struct ga_node *n, const char *addr)
{
	if (!addr)
		return NULL;
	for (size_t i = 0; i < n->n_pci; i++)
		if (n->pci[i].address && !strcmp(n->pci[i].address, addr))
			return &n->pci[i];
	return NULL;
}

static void dev_labels(struct pw *w, const struct ga_accel *a, size_t pos)
{
	s_labelu(w, "gpu", a->index.set ? a->index.v : pos);
	s_label(w, "pci_address", a->address ? a->address : "");
}

/* One sample per device for which GET yields a value. */
typedef bool (*dev_get_fn)(const struct ga_node *n, const struct ga_accel *a, double *v);

static void dev_family(struct pw *w, const struct ga_node *n, const char *name, const char *unit,
                       const char *help, dev_get_fn get)
{
	fam(w, name, "gauge", unit, help);
	for (size_t i = 0; i < n->n_accelerators; i++) {
		double v;
		if (!get(n, &n->accelerators[i], &v))
			continue;
		s_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		s_value(w, v);
	}
}

#define OU(x) ((x).set)

static bool get_mem_total(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->memory_total_bytes))
		*v = (double)a->nvml->memory_total_bytes.v;
	else if (a->amd && OU(a->amd->vram_total_bytes))
		*v = (double)a->amd->vram_total_bytes.v;
	else if (a->intel && OU(a->intel->lmem_total_bytes))
		*v = (double)a->intel->lmem_total_bytes.v;
	else if (OU(a->memory_bytes))
		*v = (double)a->memory_bytes.v;
	else
		return false;
	return true;
}

static bool get_mem_used(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->memory_used_bytes))
		*v = (double)a->nvml->memory_used_bytes.v;
	else if (a->amd && OU(a->amd->vram_used_bytes))
		*v = (double)a->amd->vram_used_bytes.v;
	else if (a->intel && OU(a->intel->lmem_total_bytes) && OU(a->intel->lmem_avail_bytes) &&
	         a->intel->lmem_avail_bytes.v <= a->intel->lmem_total_bytes.v)
		*v = (double)(a->intel->lmem_total_bytes.v - a->intel->lmem_avail_bytes.v);
	else
		return false;
	return true;
}

static bool get_util(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->utilization_gpu_pct))
		*v = (double)a->nvml->utilization_gpu_pct.v / 100.0;
	else if (a->amd && OU(a->amd->gpu_busy_pct))
		*v = (double)a->amd->gpu_busy_pct.v / 100.0;
	else
		return false;
	return true;
}

static bool get_mem_util(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->utilization_memory_pct))
		*v = (double)a->nvml->utilization_memory_pct.v / 100.0;
	else if (a->amd && OU(a->amd->mem_busy_pct))
		*v = (double)a->amd->mem_busy_pct.v / 100.0;
	else
		return false;
	return true;
}

static bool get_power(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->power_usage_mw))
		*v = (double)a->nvml->power_usage_mw.v / 1e3;
	else if (a->amd && OU(a->amd->power_uw))
		*v = (double)a->amd->power_uw.v / 1e6;
	else
		return false;
	return true;
}

static bool get_power_limit(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->power_limit_mw))
		*v = (double)a->nvml->power_limit_mw.v / 1e3;
	else if (a->amd && OU(a->amd->power_cap_uw))
		*v = (double)a->amd->power_cap_uw.v / 1e6;
	else if (a->intel && OU(a->intel->power_max_uw))
		*v = (double)a->intel->power_max_uw.v / 1e6;
	else
		return false;
	return true;
}

static bool get_energy(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->intel || !OU(a->intel->energy_uj))
		return false;
	*v = (double)a->intel->energy_uj.v / 1e6;
	return true;
}

/* PCIe generation from a link speed in GT/s; 0 when it is no standard speed. */
static unsigned pcie_gen(double gts)
{
	static const double speeds[] = { 2.5, 5, 8, 16, 32, 64 };
	for (unsigned i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (fabs(gts - speeds[i]) < 0.01)
			return i + 1;
	return 0;
}

static bool link_gen(const struct ga_node *n, const struct ga_accel *a, bool max, double *v)
{
	const struct ga_pci_dev *pd = pci_of(n, a->address);
	if (pd) {
		const struct ga_odbl *s = max ? &pd->link.max_speed_gts : &pd->link.cur_speed_gts;
		unsigned g = s->set ? pcie_gen(s->v) : 0;
		if (g) {
			*v = g;
			return true;
		}
	}
	const struct ga_ou64 *g = a->nvml ? (max ? &a->nvml->pcie_gen_max : &a->nvml->pcie_gen) : NULL;
	if (g && g->set) {
		*v = (double)g->v;
		return true;
	}
	return false;
}

static bool link_width(const struct ga_node *n, const struct ga_accel *a, bool max, double *v)
{
	const struct ga_pci_dev *pd = pci_of(n, a->address);
	const struct ga_ou64 *w = pd ? (max ? &pd->link.max_width : &pd->link.cur_width) : NULL;
	if (!w || !w->set || w->v == 0)
		w = a->nvml ? (max ? &a->nvml->pcie_width_max : &a->nvml->pcie_width) : NULL;
	if (!w || !w->set)
		return false;
	*v = (double)w->v;
	return true;
}

static bool get_gen(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_gen(n, a, false, v);
}
static bool get_gen_max(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_gen(n, a, true, v);
}
static bool get_width(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_width(n, a, false, v);
}
static bool get_width_max(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_width(n, a, true, v);
}

/*
 * 1 when the narrowest link between the device and the root complex has fewer lanes
 * than both its ends support. Speed is not compared: GPUs lower their link speed
 * at idle (the same rule as the GA-LINK-DEGRADED finding).
 */
static bool get_degraded(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	const struct ga_pci_dev *pd = pci_of(n, a->address);
	if (!pd || !pd->path_min_width.set || !pd->path_capable_width.set)
		return false;
	*v = pd->path_min_width.v < pd->path_capable_width.v;
	return true;
}

static bool get_replays(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->pcie_replay_count))
		*v = (double)a->nvml->pcie_replay_count.v;
	else if (a->amd && OU(a->amd->pcie_replay_count))
		*v = (double)a->amd->pcie_replay_count.v;
	else
		return false;
	return true;
}

static bool obool(const struct ga_obool *b, double *v)
{
	if (!b->set)
		return false;
	*v = b->v;
	return true;
}

static bool get_remap_pending(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->remap_pending, v);
}
static bool get_remap_failure(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->remap_failure, v);
}
static bool get_retired_pending(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->retired_pages_pending, v);
}
static bool get_ecc_enabled(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->ecc_enabled, v);
}
static bool get_persistence(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->persistence_mode, v);
}
static bool get_mig(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->mig_enabled, v);
}
/* NVLinks NVML reports for the GPU, and how many of them are active. */
static bool get_nvlinks(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->nvml || !a->nvml->n_nvlinks)
		return false;
	*v = (double)a->nvml->n_nvlinks;
	return true;
}
static bool get_nvlinks_active(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->nvml || !a->nvml->n_nvlinks)
		return false;
	size_t k = 0;
	for (size_t i = 0; i < a->nvml->n_nvlinks; i++)
		k += a->nvml->nvlinks[i].active.set && a->nvml->nvlinks[i].active.v;
	*v = (double)k;
	return true;
}
static bool get_amd_bad_pages(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->amd || !OU(a->amd->bad_pages))
		return false;
	*v = (double)a->amd->bad_pages.v;
	return true;
}

/* A device family with one extra label: a list of (label value, getter) pairs. */
struct sub {
	const char *value;
	bool (*get)(const struct ga_accel *a, double *v);
};

static void dev_family_sub(struct pw *w, const struct ga_node *n, const char *name, const char *type,
                           const char *unit, const char *help, const char *key, const struct sub *subs,
                           size_t nsubs)
{
	fam(w, name, type, unit, help);
	for (size_t i = 0; i < n->n_accelerators; i++)
		for (size_t j = 0; j < nsubs; j++) {
			double v;
			if (!subs[j].get(&n->accelerators[i], &v))
				continue;
			s_begin(w);
			dev_labels(w, &n->accelerators[i], i);
			s_label(w, key, subs[j].value);
			s_value(w, v);
		}
}

#define NV_U64(fn, field, scale)                            \
	static bool fn(const struct ga_accel *a, double *v) \
	{                                                   \
		if (!a->nvml || !a->nvml->field.set)        \
			return false;                       \
		*v = (double)a->nvml->field.v * (scale);    \
		return true;                                \
	}
#define AMD_U64(fn, field, scale)                           \
	static bool fn(const struct ga_accel *a, double *v) \
	{                                                   \
		if (!a->amd || !a->amd->field.set)          \
			return false;                       \
		*v = (double)a->amd->field.v * (scale);     \
		return true;                                \
	}

NV_U64(nv_temp, temperature_c, 1)
AMD_U64(amd_temp_edge, temp_edge_mc, 1e-3)
AMD_U64(amd_temp_junction, temp_junction_mc, 1e-3)
AMD_U64(amd_temp_mem, temp_mem_mc, 1e-3)
NV_U64(nv_clk_sm, clock_sm_mhz, 1e6)
NV_U64(nv_clk_mem, clock_mem_mhz, 1e6)
NV_U64(nv_clk_sm_max, clock_sm_max_mhz, 1e6)
NV_U64(nv_clk_mem_max, clock_mem_max_mhz, 1e6)
NV_U64(nv_ecc_c_vol, ecc_corrected_volatile, 1)
NV_U64(nv_ecc_u_vol, ecc_uncorrected_volatile, 1)
NV_U64(nv_ecc_c_agg, ecc_corrected_aggregate, 1)
NV_U64(nv_ecc_u_agg, ecc_uncorrected_aggregate, 1)
NV_U64(nv_retired_sbe, retired_pages_sbe, 1)
NV_U64(nv_retired_dbe, retired_pages_dbe, 1)
NV_U64(nv_remap_c, remapped_rows_correctable, 1)
NV_U64(nv_remap_u, remapped_rows_uncorrectable, 1)

static bool intel_clk(const struct ga_accel *a, double *v)
{
	if (!a->intel || !a->intel->freq_act_mhz.set)
		return false;
	*v = (double)a->intel->freq_act_mhz.v * 1e6;
	return true;
}
static bool intel_clk_max(const struct ga_accel *a, double *v)
{
	if (!a->intel || !a->intel->freq_max_mhz.set)
		return false;
	*v = (double)a->intel->freq_max_mhz.v * 1e6;
	return true;
}

/* --- node-level families --- */

static void render_node(struct pw *w, const struct ga_prom_input *in)
{
	const struct ga_node *n = in->node;
	fam(w, "gpuaudit_node_info", "info", NULL,
	    "The node this exporter describes: hostname, kernel and OS (value 1).");
	s_begin(w);
	s_label(w, "hostname", n->host.hostname ? n->host.hostname : "");
	s_label(w, "kernel", n->host.kernel_release ? n->host.kernel_release : "");
	s_label(w, "os", n->host.os.pretty_name ? n->host.os.pretty_name : "");
	s_label(w, "cpu", n->cpu.model_name ? n->cpu.model_name : "");
	s_value(w, 1);

	if (in->cls && in->cls->id) {
		fam(w, "gpuaudit_node_class_info", "info", NULL,
		    "The node class (gpuaudit class): id, readable name, hardware and stack hashes, cache "
		    "key (value 1).");
		s_begin(w);
		s_label(w, "class", in->cls->id);
		s_label(w, "name", in->cls->name ? in->cls->name : "");
		char hw[16], st[16];
		snprintf(hw, sizeof(hw), "%.12s", in->cls->hw_sha256 ? in->cls->hw_sha256 : "");
		snprintf(st, sizeof(st), "%.12s", in->cls->stack_sha256 ? in->cls->stack_sha256 : "");
		s_label(w, "hw", hw);
		s_label(w, "stack", st);
		s_label(w, "key", in->cls->key ? in->cls->key : "");
		s_value(w, 1);
	}

	fam(w, "gpuaudit_driver_info", "info", NULL,
	    "GPU kernel drivers loaded, with their versions (value 1).");
	for (size_t i = 0; i < n->n_drivers; i++) {
		const struct ga_driver *d = &n->drivers[i];
		if (!d->name)
			continue;
		s_begin(w);
		s_label(w, "driver", d->name);
		s_label(w, "version", d->version ? d->version : "");
		s_label(w, "flavor", d->flavor ? d->flavor : "");
		s_value(w, 1);
	}

	/* accelerators by vendor, every vendor listed (0 included) so a lost GPU shows as a drop */
	fam(w, "gpuaudit_gpus", "gauge", NULL, "Accelerators the snapshot found, by vendor.");
	static const char *const vendors[] = { "nvidia", "amd", "intel", "habana", "other" };
	size_t nv = sizeof(vendors) / sizeof(vendors[0]);
	for (size_t v = 0; v < nv; v++) {
		size_t k = 0;
		for (size_t i = 0; i < n->n_accelerators; i++) {
			const char *av = n->accelerators[i].vendor ? n->accelerators[i].vendor : "other";
			size_t u = 0;
			while (u + 1 < nv && strcmp(av, vendors[u]))
				u++;
			k += u == v;
		}
		s_begin(w);
		s_label(w, "vendor", vendors[v]);
		s_valueu(w, k);
	}
	if (in->pcls) {
		const struct ga_ou64 *exp =
		        in->pcls->expect.gpu_count.set ? &in->pcls->expect.gpu_count : &in->pcls->match.count;
		fam(w, "gpuaudit_gpus_expected", "gauge", NULL,
		    "Accelerators the matched policy class expects (expect.gpu_count, else match.count).");
		if (exp->set) {
			s_begin(w);
			s_label(w, "policy_class", in->pcls->name ? in->pcls->name : "");
			s_valueu(w, exp->v);
		}
	}

	/* vendor libraries */
	fam(w, "gpuaudit_vendor_library_up", "gauge", NULL,
	    "1 when the vendor library (NVML, ROCm SMI) answered in the last collection, 0 when it failed or "
	    "timed out; absent when not attempted.");
	if (n->nvml) {
		s_begin(w);
		s_label(w, "library", "nvml");
		s_value(w, n->nvml->error || (n->nvml->timed_out.set && n->nvml->timed_out.v) ? 0 : 1);
	}
	if (n->rocm_smi) {
		s_begin(w);
		s_label(w, "library", "rocm_smi");
		s_value(w, n->rocm_smi->error || (n->rocm_smi->timed_out.set && n->rocm_smi->timed_out.v)
		                   ? 0
		                   : 1);
	}
	if (n->nvml && !n->nvml->error && (n->nvml->driver_version || n->nvml->cuda_driver_version)) {
		fam(w, "gpuaudit_nvml_info", "info", NULL,
		    "NVML's driver, CUDA driver API and NVML versions (value 1).");
		s_begin(w);
		s_label(w, "driver_version", n->nvml->driver_version ? n->nvml->driver_version : "");
		s_label(w, "cuda_version", n->nvml->cuda_driver_version ? n->nvml->cuda_driver_version : "");
		s_label(w, "nvml_version", n->nvml->nvml_version ? n->nvml->nvml_version : "");
		s_value(w, 1);
	}
	if (n->nvml && n->nvml->device_count.set) {
		fam(w, "gpuaudit_nvml_devices", "gauge", NULL, "GPUs NVML counts (nvmlDeviceGetCount).");
		s_begin(w);
		s_valueu(w, n->nvml->device_count.v);
	}
}

static void render_devices(struct pw *w, const struct ga_node *n)
{
	fam(w, "gpuaudit_gpu_info", "info", NULL,
	    "One series per accelerator: vendor, model, UUID, driver and compute capability or gfx target "
	    "(value 1).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		s_begin(w);
		dev_labels(w, a, i);
		s_label(w, "vendor", a->vendor ? a->vendor : "");
		s_label(w, "model", a->model ? a->model : "");
		s_label(w, "uuid", a->uuid ? a->uuid : a->nvml && a->nvml->uuid ? a->nvml->uuid : "");
		s_label(w, "driver", a->driver ? a->driver : "");
		s_label(w, "driver_version", a->driver_version ? a->driver_version : "");
		s_label(w, "compute_capability",
		        a->nvml && a->nvml->compute_capability ? a->nvml->compute_capability : "");
		s_label(w, "gfx_target", a->gfx_target ? a->gfx_target : "");
		s_value(w, 1);
	}
	dev_family(w, n, "gpuaudit_gpu_memory_total_bytes", "bytes", "Device memory size.", get_mem_total);
	dev_family(w, n, "gpuaudit_gpu_memory_used_bytes", "bytes", "Device memory in use.", get_mem_used);
	dev_family(w, n, "gpuaudit_gpu_utilization_ratio", "ratio",
	           "Fraction of the last sample period the GPU was busy (NVML utilization.gpu, amdgpu "
	           "gpu_busy_percent).",
	           get_util);
	dev_family(w, n, "gpuaudit_gpu_memory_utilization_ratio", "ratio",
	           "Fraction of the last sample period device memory was being read or written.",
	           get_mem_util);
	static const struct sub temps[] = {
		{ "gpu", nv_temp },
		{ "edge", amd_temp_edge },
		{ "junction", amd_temp_junction },
		{ "memory", amd_temp_mem },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_temperature_celsius", "gauge", "celsius",
	               "GPU temperature by sensor.", "sensor", temps, sizeof(temps) / sizeof(temps[0]));
	dev_family(w, n, "gpuaudit_gpu_power_watts", "watts", "Power draw.", get_power);
	dev_family(w, n, "gpuaudit_gpu_power_limit_watts", "watts", "Enforced power limit (cap).",
	           get_power_limit);
	fam(w, "gpuaudit_gpu_energy_joules_total", "counter", "joules",
	    "Energy used since the driver loaded (Intel hwmon energy).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		double v;
		if (!get_energy(n, &n->accelerators[i], &v))
			continue;
		s_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		s_value(w, v);
	}
	static const struct sub clocks[] = {
		{ "sm", nv_clk_sm },
		{ "memory", nv_clk_mem },
		{ "gt", intel_clk },
	};
	static const struct sub clocks_max[] = {
		{ "sm", nv_clk_sm_max },
		{ "memory", nv_clk_mem_max },
		{ "gt", intel_clk_max },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_clock_hertz", "gauge", "hertz", "Current clock frequency.",
	               "clock", clocks, sizeof(clocks) / sizeof(clocks[0]));
	dev_family_sub(w, n, "gpuaudit_gpu_clock_max_hertz", "gauge", "hertz", "Highest clock frequency.",
	               "clock", clocks_max, sizeof(clocks_max) / sizeof(clocks_max[0]));

	fam(w, "gpuaudit_gpu_clock_event_reasons", "gauge", NULL,
	    "NVML clock event (throttle) reasons active now, one series per active reason (value 1).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml)
			continue;
		for (size_t j = 0; j < a->nvml->clock_event_names.n; j++) {
			s_begin(w);
			dev_labels(w, a, i);
			s_label(w, "reason", a->nvml->clock_event_names.v[j]);
			s_value(w, 1);
		}
	}
	fam(w, "gpuaudit_gpu_clock_event_reasons_mask", "gauge", NULL,
	    "NVML clock event reasons as NVML's bit mask (0: none).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml || !a->nvml->clock_event_reasons.set)
			continue;
		s_begin(w);
		dev_labels(w, a, i);
		s_valueu(w, a->nvml->clock_event_reasons.v);
	}

	dev_family(w, n, "gpuaudit_gpu_pcie_link_generation", NULL, "PCIe generation the link runs at now.",
	           get_gen);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_max_generation", NULL,
	           "Highest PCIe generation of the device.", get_gen_max);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_width", NULL, "PCIe lanes the link runs with now.",
	           get_width);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_max_width", NULL, "Most PCIe lanes the device supports.",
	           get_width_max);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_degraded", NULL,
	           "1 when the slowest link between the device and the root complex runs below the speed or "
	           "width both its ends support.",
	           get_degraded);
	fam(w, "gpuaudit_gpu_pcie_replays_total", "counter", NULL, "PCIe replay counter of the device.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		double v;
		if (!get_replays(n, &n->accelerators[i], &v))
			continue;
		s_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		s_value(w, v);
	}

	static const struct sub ecc[] = {
		{ "corrected", nv_ecc_c_agg },
		{ "uncorrected", nv_ecc_u_agg },
	};
	static const struct sub ecc_vol[] = {
		{ "corrected", nv_ecc_c_vol },
		{ "uncorrected", nv_ecc_u_vol },
	};
	dev_family(w, n, "gpuaudit_gpu_ecc_enabled", NULL, "1 when ECC is enabled.", get_ecc_enabled);
	dev_family_sub(w, n, "gpuaudit_gpu_ecc_errors_total", "counter", NULL,
	               "ECC errors over the GPU's lifetime (NVML aggregate counters).", "type", ecc, 2);
	dev_family_sub(w, n, "gpuaudit_gpu_ecc_errors_volatile", "gauge", NULL,
	               "ECC errors since the driver loaded (NVML volatile counters; reset on driver reload).",
	               "type", ecc_vol, 2);
	static const struct sub retired[] = {
		{ "single_bit", nv_retired_sbe },
		{ "double_bit", nv_retired_dbe },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_retired_pages", "gauge", NULL, "Pages retired, by cause.", "cause",
	               retired, 2);
	dev_family(w, n, "gpuaudit_gpu_retired_pages_pending", NULL,
	           "1 when a page retirement waits for the next driver reload.", get_retired_pending);
	static const struct sub remap[] = {
		{ "correctable", nv_remap_c },
		{ "uncorrectable", nv_remap_u },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_remapped_rows", "gauge", NULL,
	               "Memory rows remapped, by error type.", "type", remap, 2);
	dev_family(w, n, "gpuaudit_gpu_row_remap_pending", NULL, "1 when a row remap waits for a GPU reset.",
	           get_remap_pending);
	dev_family(w, n, "gpuaudit_gpu_row_remap_failed", NULL,
	           "1 when a row remap failed (replace the GPU).", get_remap_failure);
	dev_family(w, n, "gpuaudit_gpu_persistence_mode", NULL, "1 when NVIDIA persistence mode is on.",
	           get_persistence);
	dev_family(w, n, "gpuaudit_gpu_mig_enabled", NULL, "1 when MIG mode is enabled.", get_mig);
	dev_family(w, n, "gpuaudit_gpu_nvlinks", NULL, "NVLinks NVML reports for the GPU.", get_nvlinks);
	dev_family(w, n, "gpuaudit_gpu_nvlinks_active", NULL,
	           "NVLinks that are active; fewer than gpuaudit_gpu_nvlinks on an NVSwitch system is a link "
	           "down.",
	           get_nvlinks_active);
	dev_family(w, n, "gpuaudit_gpu_bad_pages", NULL, "amdgpu: retired (bad) VRAM pages.",
	           get_amd_bad_pages);

	fam(w, "gpuaudit_gpu_ras_errors", "gauge", NULL,
	    "amdgpu RAS error counts by block and type (ue uncorrectable, ce correctable, de deferred).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->amd)
			continue;
		for (size_t j = 0; j < a->amd->n_ras; j++) {
			const struct ga_amd_ras_block *rb = &a->amd->ras[j];
			const struct ga_ou64 *vals[] = { &rb->ue, &rb->ce, &rb->de };
			static const char *const types[] = { "ue", "ce", "de" };
			for (size_t k = 0; k < 3; k++) {
				if (!vals[k]->set)
					continue;
				s_begin(w);
				dev_labels(w, a, i);
				s_label(w, "block", rb->block ? rb->block : "");
				s_label(w, "type", types[k]);
				s_valueu(w, vals[k]->v);
			}
		}
	}

	fam(w, "gpuaudit_gpu_device_error", "gauge", NULL,
	    "1 when the vendor library reported the device itself failed (\"GPU is lost\"), with its text.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml || !a->nvml->error)
			continue;
		s_begin(w);
		dev_labels(w, a, i);
		s_label(w, "error", a->nvml->error);
		s_value(w, 1);
	}
	fam(w, "gpuaudit_gpu_missing_device_nodes", "gauge", NULL,
	    "Device nodes (/dev/nvidiaN, /dev/dri/renderD*) expected for the accelerator but absent.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		s_begin(w);
		dev_labels(w, a, i);
		s_valueu(w, a->missing_nodes.n);
	}
}

static const char *gpu_of_address(const struct ga_node *n, const char *addr, char *buf, size_t len)
{
	if (!n || !*addr)
		return NULL;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (a->address && !strcmp(a->address, addr)) {
			snprintf(buf, len, "%" PRIu64, a->index.set ? a->index.v : (uint64_t)i);
			return buf;
		}
	}
	return NULL;
}

static void render_kev(struct pw *w, const struct ga_prom_input *in)
{
	if (in->kmsg_readable.set) {
		fam(w, "gpuaudit_kernel_log_readable", "gauge", NULL,
		    "1 when the last collection could read the kernel log (/dev/kmsg needs CAP_SYSLOG when "
		    "dmesg_restrict=1).");
		s_begin(w);
		s_value(w, in->kmsg_readable.v);
	}
	const struct ga_kev_counter *c = in->kev;
	if (!c)
		return;
	fam(w, "gpuaudit_kernel_events_total", "counter", NULL,
	    "Kernel-log events (Xid, SXid, GPU lost, amdgpu resets and RAS, PCIe AER, hung tasks, OOM kills, "
	    "MCE, NVRM failures) by kind, code, device and catalogue severity, counted once each since the "
	    "exporter started.");
	for (size_t i = 0; i < c->n; i++) {
		const struct ga_kev_series *s = &c->v[i];
		char gpu[24];
		s_begin(w);
		s_label(w, "kind", ga_kev_kind_name(s->kind));
		if (s->code.set)
			s_labelu(w, "code", s->code.v);
		else
			s_label(w, "code", "");
		s_label(w, "pci_address", s->address);
		const char *g = gpu_of_address(in->node, s->address, gpu, sizeof(gpu));
		s_label(w, "gpu", g ? g : "");
		s_label(w, "severity", ga_severity_name(s->severity));
		s_valueu(w, s->count);
	}
	fam(w, "gpuaudit_kernel_events_dropped_total", "counter", NULL,
	    "Kernel-log events not counted because the number of distinct series hit its cap.");
	s_begin(w);
	s_valueu(w, c->dropped);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void render_findings(struct pw *w, const struct ga_prom_input *in)
{
	if (in->check) {
		const char *pc = in->check->cls && in->check->cls->name ? in->check->cls->name : "";
		fam(w, "gpuaudit_check_passed", "gauge", NULL,
		    "1 when the node passes its policy class (gpuaudit check), 0 when it fails or is "
		    "unknown.");
		s_begin(w);
		s_label(w, "policy_class", pc);
		s_label(w, "result", ga_check_result_name(in->check->result));
		s_value(w, in->check->result == GA_CHECK_PASS);
		fam(w, "gpuaudit_check_violations", "gauge", NULL,
		    "Policy violations (GA-PIN-*, GA-EXPECT-*, GA-CHECK-NO-CLASS).");
		s_begin(w);
		s_label(w, "policy_class", pc);
		s_valueu(w, in->check->violations);
	}
	const struct ga_findings *f = in->findings;
	if (!f)
		return;
	fam(w, "gpuaudit_findings", "gauge", NULL,
	    "Findings of the last collection by code and severity (with --policy: those of gpuaudit check).");
	/* count by (code, severity) in a stable order: sort pointers to "severity\tcode" keys */
	char **keys = ga_calloc(f->n ? f->n : 1, sizeof(*keys));
	if (!keys) {
		w->err = -ENOMEM;
		return;
	}
	size_t nk = 0;
	for (size_t i = 0; i < f->n; i++) {
		struct ga_buf k;
		ga_buf_init(&k, 0);
		if (ga_buf_addf(&k, "%s\t%s", f->v[i].code ? f->v[i].code : "",
		                ga_severity_name(f->v[i].severity)) < 0) {
			ga_buf_release(&k);
			w->err = -ENOMEM;
			goto out;
		}
		keys[nk++] = ga_buf_detach(&k, NULL);
	}
	qsort(keys, nk, sizeof(*keys), cmp_str);
	for (size_t i = 0; i < nk;) {
		size_t j = i;
		while (j < nk && !strcmp(keys[j], keys[i]))
			j++;
		char *tab = strchr(keys[i], '\t');
		*tab = '\0';
		s_begin(w);
		s_label(w, "code", keys[i]);
		s_label(w, "severity", tab + 1);
		s_valueu(w, j - i);
		*tab = '\t';
		i = j;
	}
	static const enum ga_severity sevs[] = { GA_SEV_INFO, GA_SEV_WARNING, GA_SEV_ERROR, GA_SEV_CRITICAL };
	fam(w, "gpuaudit_findings_by_severity", "gauge", NULL,
	    "Findings of the last collection by severity (all severities, 0 included).");
	for (size_t s = 0; s < 4; s++) {
		size_t k = 0;
		for (size_t i = 0; i < f->n; i++)
			k += f->v[i].severity == sevs[s];
		s_begin(w);
		s_label(w, "severity", ga_severity_name(sevs[s]));
		s_valueu(w, k);
	}
out:
	for (size_t i = 0; i < nk; i++)
		ga_free(keys[i]);
	ga_free(keys);
}

static void render_stats(struct pw *w, const struct ga_prom_input *in)
{
	const struct ga_prom_stats *s = &in->stats;
	fam(w, "gpuaudit_collections_total", "counter", NULL,
	    "Collections finished since the exporter started.");
	s_begin(w);
	s_valueu(w, s->collections_total);
	fam(w, "gpuaudit_collection_errors_total", "counter", NULL,
	    "Collections that failed: no snapshot could be taken, or a vendor library timed out.");
	s_begin(w);
	s_valueu(w, s->collection_errors_total);
	fam(w, "gpuaudit_vendor_library_timeouts_total", "counter", NULL,
	    "Vendor library helpers killed at the deadline (a wedged GPU or driver).");
	s_begin(w);
	s_valueu(w, s->vendor_timeouts_total);
	if (s->last_collection_s.set) {
		fam(w, "gpuaudit_last_collection_timestamp_seconds", "gauge", "seconds",
		    "Unix time the last collection finished.");
		s_begin(w);
		s_value(w, s->last_collection_s.v);
	}
	if (s->last_success_s.set) {
		fam(w, "gpuaudit_last_success_timestamp_seconds", "gauge", "seconds",
		    "Unix time the last collection without error finished.");
		s_begin(w);
		s_value(w, s->last_success_s.v);
	}
	if (s->duration_s.set) {
		fam(w, "gpuaudit_collection_duration_seconds", "gauge", "seconds",
		    "How long the last collection took.");
		s_begin(w);
		s_value(w, s->duration_s.v);
	}
	if (s->interval_s.set) {
		fam(w, "gpuaudit_collection_interval_seconds", "gauge", "seconds",
		    "Time between collections (--interval).");
		s_begin(w);
		s_value(w, s->interval_s.v);
	}
}

int ga_prom_render(const struct ga_prom_input *in, enum ga_prom_format fmt, struct ga_buf *out)
{
	struct pw w = { .b = out, .fmt = fmt };
	fam(&w, "gpuaudit_build_info", "info", NULL, "gpuaudit's version (value 1).");
	s_begin(&w);
	s_label(&w, "version", in->version ? in->version : GA_VERSION);
	s_value(&w, 1);
	if (in->node) {
		render_node(&w, in);
		render_devices(&w, in->node);
	}
	render_kev(&w, in);
	render_findings(&w, in);
	render_stats(&w, in);
	return w.err;
}

int ga_prom_render_tail(enum ga_prom_format fmt, double running_s, struct ga_buf *out)
{
	struct pw w = { .b = out, .fmt = fmt };
	fam(&w, "gpuaudit_collection_running", "gauge", NULL, "1 while a collection is in progress.");
	s_begin(&w);
	s_value(&w, running_s >= 0);
	if (running_s >= 0) {
		fam(&w, "gpuaudit_collection_running_seconds", "gauge", "seconds",
		    "How long the collection in progress has run so far.");
		s_begin(&w);
		s_value(&w, running_s);
	}
	if (fmt == GA_PROM_OPENMETRICS)
		pw_add(&w, "# EOF\n");
	return w.err;
}
