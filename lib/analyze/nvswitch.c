/*
 * analyze/nvswitch.c - one NVSwitch view from two sources. NVML's fabric state gives
 * GA-FABRIC-FAILED / GA-FABRIC-DEGRADED per GPU (nvlink.c); the kernel log gives the
 * NVSwitch driver's SXid lines (kevents.c, health.c). On a node whose snapshot has
 * NVSwitches (PCI class 0x0680 from vendor 0x10de, pci.c's "nvswitch"), the SXids of
 * the window are not findings of their own: they become evidence on the fabric
 * findings, or one GA-NVSWITCH-SXID when NVML reports no fabric problem, so a
 * remediator sees one NVSwitch finding with all the evidence.
 *
 * What an SXid asks for is its row in NVIDIA's Fabric Manager user guide (lib/core/sxid.def,
 * docs/xid.md "SXids"), raised by the line's Fatal token (ga_kev_sxid): the finding takes
 * the worst group's severity and the most urgent group's action. The message lists one
 * item per (SXid, NVSwitch) with the guide's name and the link.
 *
 * Pure: the SXid groups and the findings so far in, findings out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/kmsg.h"

bool ga_node_has_nvswitch(const struct ga_node *n)
{
	for (size_t i = 0; n && i < n->n_pci; i++)
		if (n->pci[i].kind && !strcmp(n->pci[i].kind, "nvswitch"))
			return true;
	return false;
}

/* The SXids folded into evidence values. */
struct sxid_sum {
	struct ga_buf codes, counts, fatal, switches, summary;
	uint64_t events;
	bool any_fatal, boot_set, wall_set;
	enum ga_severity severity; /* the worst group's */
	enum ga_action action;     /* the most urgent group's */
	double first_boot_s, last_boot_s;
	const char *first_time, *last_time, *sample;
	const struct ga_sxid_group *worst; /* the group whose line is the sample */
};

static bool listed(const struct ga_buf *b, const char *item)
{
	size_t l = strlen(item);
	for (const char *p = b->data; p && (p = strstr(p, item)); p += l)
		if ((p == b->data || p[-1] == ',') && (p[l] == ',' || p[l] == '\0'))
			return true;
	return false;
}

static void add_item(struct ga_buf *b, const char *item)
{
	if (item[0] && !listed(b, item))
		(void)ga_buf_addf(b, "%s%s", b->len ? "," : "", item);
}

static void sum_init(struct sxid_sum *s)
{
	memset(s, 0, sizeof(*s));
	ga_buf_init(&s->codes, 0);
	ga_buf_init(&s->counts, 0);
	ga_buf_init(&s->fatal, 0);
	ga_buf_init(&s->switches, 0);
	ga_buf_init(&s->summary, 0);
}

static void sum_release(struct sxid_sum *s)
{
	ga_buf_release(&s->codes);
	ga_buf_release(&s->counts);
	ga_buf_release(&s->fatal);
	ga_buf_release(&s->switches);
	ga_buf_release(&s->summary);
}

/* Did g's latest event come after o's? (the sample is the latest line of the worst kind) */
static bool later(const struct ga_sxid_group *g, const struct ga_sxid_group *o)
{
	if (g->boot_set && o->boot_set)
		return g->last_boot_s > o->last_boot_s;
	if (g->wall_set && o->wall_set)
		return strcmp(g->last_time, o->last_time) > 0;
	return false;
}

/* Groups are (code, switch); the evidence counts per code over all switches. */
static void sum_take(struct sxid_sum *s, const struct ga_sxid_group *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ga_sxid_group *g = &v[i];
		char code[24];
		snprintf(code, sizeof(code), "%llu", (unsigned long long)g->code);
		s->events += g->count;
		add_item(&s->switches, g->address);
		if (i == 0 || g->severity > s->severity)
			s->severity = g->severity;
		if (i == 0 || ga_action_rank(g->action) > ga_action_rank(s->action))
			s->action = g->action;
		/* "12028 (egress nonposted PRIV error) on 0000:05:00.0 link 32 x2 Fatal" */
		const struct ga_sxid_fact *fact = ga_sxid_fact(g->code);
		const char *dn;
		(void)ga_buf_addf(&s->summary, "%s%s", s->summary.len ? ", " : "", code);
		if (fact)
			(void)ga_buf_addf(&s->summary, " (%s)", fact->name);
		else if ((dn = ga_sxid_driver_name(g->code)))
			(void)ga_buf_addf(&s->summary, " (driver: %s)", dn);
		if (g->address && g->address[0])
			(void)ga_buf_addf(&s->summary, " on %s", g->address);
		if (g->link.set)
			(void)ga_buf_addf(&s->summary, " link %llu", (unsigned long long)g->link.v);
		(void)ga_buf_addf(&s->summary, " x%llu%s", (unsigned long long)g->count,
		                  g->fatal ? " Fatal" : "");
		if (g->fatal) {
			s->any_fatal = true;
			add_item(&s->fatal, code);
		}
		if (g->boot_set) {
			if (!s->boot_set || g->first_boot_s < s->first_boot_s)
				s->first_boot_s = g->first_boot_s;
			if (!s->boot_set || g->last_boot_s > s->last_boot_s)
				s->last_boot_s = g->last_boot_s;
			s->boot_set = true;
		}
		if (g->wall_set) {
			/* RFC 3339 UTC strings of one format: text order is time order */
			if (!s->wall_set || strcmp(g->first_time, s->first_time) < 0)
				s->first_time = g->first_time;
			if (!s->wall_set || strcmp(g->last_time, s->last_time) > 0)
				s->last_time = g->last_time;
			s->wall_set = true;
		}
		if (!s->worst || (g->fatal && !s->worst->fatal) ||
		    (g->fatal == s->worst->fatal && later(g, s->worst)))
			s->worst = g;
		if (listed(&s->codes, code))
			continue;
		add_item(&s->codes, code);
		uint64_t count = 0;
		for (size_t k = i; k < n; k++)
			if (v[k].code == g->code)
				count += v[k].count;
		(void)ga_buf_addf(&s->counts, "%s%s:%llu", s->counts.len ? "," : "", code,
		                  (unsigned long long)count);
	}
	s->sample = s->worst ? s->worst->sample : NULL;
}

static int evidence(struct ga_finding *f, const struct sxid_sum *s)
{
	int r = ga_finding_evidence(f, "sxid", "%s", s->codes.data ? s->codes.data : "");
	if (r == 0)
		r = ga_finding_evidence(f, "sxid_counts", "%s", s->counts.data ? s->counts.data : "");
	if (r == 0 && s->fatal.len)
		r = ga_finding_evidence(f, "sxid_fatal", "%s", s->fatal.data);
	if (r == 0)
		r = ga_finding_evidence(f, "sxid_events", "%llu", (unsigned long long)s->events);
	if (r == 0 && s->switches.len)
		r = ga_finding_evidence(f, "nvswitches", "%s", s->switches.data);
	if (r == 0 && s->boot_set)
		r = ga_finding_evidence(f, "first_boot_s", "%.6f", s->first_boot_s);
	if (r == 0 && s->boot_set)
		r = ga_finding_evidence(f, "last_boot_s", "%.6f", s->last_boot_s);
	if (r == 0 && s->wall_set)
		r = ga_finding_evidence(f, "first_time", "%s", s->first_time);
	if (r == 0 && s->wall_set)
		r = ga_finding_evidence(f, "last_time", "%s", s->last_time);
	if (r == 0 && s->sample)
		r = ga_finding_evidence(f, "sample", "%s", s->sample);
	return r;
}

/* "..." + "; NVSwitch SXids: 12028 (egress nonposted PRIV error) on 0000:05:00.0 link 32 x2" */
static int append_message(char **msg, const char *what, const char *more)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_addf(&b, "%s; %s%s", *msg ? *msg : "", what, more);
	char *s = r == 0 ? ga_buf_detach(&b, NULL) : NULL;
	ga_buf_release(&b);
	if (!s)
		return -ENOMEM;
	ga_free(*msg);
	*msg = s;
	return 0;
}

static bool is_fabric(const struct ga_finding *f)
{
	return f->id == GA_C_FABRIC_FAILED || f->id == GA_C_FABRIC_DEGRADED;
}

int ga_nvswitch_sxid_join(const struct ga_sxid_group *v, size_t n, struct ga_findings *out)
{
	if (n == 0)
		return 0;
	struct sxid_sum s;
	sum_init(&s);
	sum_take(&s, v, n);
	int r = s.codes.data && s.counts.data && s.summary.data ? 0 : -ENOMEM;
	size_t joined = 0;
	for (size_t i = 0; i < out->n && r == 0; i++) {
		struct ga_finding *f = &out->v[i];
		if (!is_fabric(f))
			continue;
		joined++;
		r = append_message(&f->message, "NVSwitch SXids: ", s.summary.data);
		if (r == 0 && s.severity > f->severity)
			f->severity = s.severity;
		if (r == 0 && s.severity >= GA_SEV_ERROR) {
			/* the guide's row for the worst SXid (docs/xid.md), when it asks more */
			if (ga_action_rank(s.action) > ga_action_rank(f->action))
				f->action = s.action;
			r = append_message(&f->decision, "NVSwitch SXids: ", ga_sxid_action_text(s.action));
		}
		if (r == 0)
			r = evidence(f, &s);
	}
	if (r == 0 && !joined) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_NVSWITCH_SXID, s.severity, "nvswitch", ga_sxid_action_text(s.action),
		        "NVSwitch SXids: %s (%llu event%s)", s.summary.data, (unsigned long long)s.events,
		        s.events == 1 ? "" : "s");
		if (!f)
			r = -ENOMEM;
		if (f)
			f->action = s.action; /* the guide's row, raised by a Fatal token */
		if (r == 0)
			r = ga_finding_evidence(f, "kind", "sxid");
		/* a kernel-log finding: --state counts its events above the high-water mark */
		if (r == 0)
			r = ga_finding_evidence(f, "count", "%llu", (unsigned long long)s.events);
		if (r == 0)
			r = evidence(f, &s);
	}
	sum_release(&s);
	return r;
}
