/*
 * health.c - kernel-log events to findings for `gpuaudit health`.
 *
 * Lines are parsed as they stream in (kevents.c); each event is kept as a
 * small record (times, severity, group) and counted in a group keyed by
 * (kind, code, device), so repeats are counters, not a last value. The window
 * (--since) is applied afterwards, because "now" may be the newest event.
 * Then each group with events in the window becomes one finding, with policy
 * xid overrides applied and addresses mapped to the snapshot's GPU indexes.
 * On a node with NVSwitches the SXid groups go to nvswitch.c instead, which
 * joins them with the fabric findings into one NVSwitch finding.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#include "gpuaudit/kmsg.h"
#include "analyze.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/nodereport-analyze.h"
#include "gpuaudit/findings-analyze.h"

#define MAX_GROUPS 2048
#define HASH_SLOTS 4096 /* power of two, > MAX_GROUPS */
#define MAX_EVENTS (4u << 20)
#define SAMPLE_MAX 240

struct group {
	enum ga_kev_kind kind;
	struct ga_ou64 code;
	char address[16];
	char sample[SAMPLE_MAX + 1]; /* the latest line of the group */
	struct ga_ou64 status;       /* amdgpu VM fault: the latest folded status word */
	struct ga_ou64 link;         /* SXid, NVLink Xids: the link the latest line named */
	char nvl_unit[24];           /* NVLink5 Xids: the latest line's unit and error status */
	struct ga_ou64 nvl_status;
	int64_t last_event; /* index of its latest event, -1 before one */
	int64_t ras_open;   /* amdgpu RAS: its first event no reset outcome followed yet, -1 none */
};

struct event {
	double boot_s;
	int64_t wall_s;
	const char *action;
	uint32_t group;
	uint8_t severity;
	uint8_t line_act; /* Xid: the action the line's own words set (ga_kev_xid_line) */
	bool line_set;
	bool boot_set, wall_set;
	bool recovered;    /* amdgpu reset, RAS: "GPU reset(N) succeeded" followed (on its GPU) */
	bool reset_failed; /* amdgpu RAS: "GPU reset(N) failed" followed on its GPU */
	uint8_t vm_owner;  /* amdgpu VM fault: 1 vmid 0 (the driver's), 2 another vmid, 0 unnamed */
	uint32_t aer_bits; /* PCIe AER: the error types its detail named (status & ~mask) */
};

struct ga_health {
	struct ga_kparse st;
	struct group *groups;
	size_t n_groups;
	int32_t slots[HASH_SLOTS];
	struct event *events;
	size_t n_events, cap_events;
	uint64_t dropped; /* events beyond the caps */
};

int ga_health_new(struct ga_health **ret)
{
	struct ga_health *h = ga_calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->groups = ga_calloc(MAX_GROUPS, sizeof(*h->groups));
	if (!h->groups) {
		ga_free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < HASH_SLOTS; i++)
		h->slots[i] = -1;
	*ret = h;
	return 0;
}

void ga_health_free(struct ga_health *h)
{
	if (!h)
		return;
	ga_free(h->groups);
	ga_free(h->events);
	ga_free(h);
}

uint64_t ga_health_events(const struct ga_health *h)
{
	return h ? h->n_events + h->dropped : 0;
}

static uint32_t hash_key(const struct ga_kevent *ev)
{
	uint32_t x = 2166136261u;
	x = (x ^ (uint32_t)ev->kind) * 16777619u;
	for (int i = 0; i < 8; i++)
		x = (x ^ (uint32_t)((ev->code.v >> (8 * i)) & 0xff)) * 16777619u;
	for (const char *p = ev->address; *p; p++)
		x = (x ^ (uint8_t)*p) * 16777619u;
	return x;
}

static bool same(const struct group *g, const struct ga_kevent *ev)
{
	return g->kind == ev->kind && g->code.set == ev->code.set && g->code.v == ev->code.v &&
	       !strcmp(g->address, ev->address);
}

/* The group of ev's key, or -1; *slot: where it is, or the free slot a new one would take. */
static int32_t group_find(const struct ga_health *h, const struct ga_kevent *ev, uint32_t *slot)
{
	uint32_t i = hash_key(ev) & (HASH_SLOTS - 1);
	int32_t g;
	while ((g = h->slots[i]) >= 0 && !same(&h->groups[g], ev))
		i = (i + 1) & (HASH_SLOTS - 1);
	*slot = i;
	return g;
}

/* The group of ev, created when new; -1 when the table is full. */
static int32_t group_of(struct ga_health *h, const struct ga_kevent *ev)
{
	uint32_t i;
	int32_t found = group_find(h, ev, &i);
	if (found >= 0)
		return found;
	if (h->n_groups >= MAX_GROUPS)
		return -1;
	struct group *g = &h->groups[h->n_groups];
	g->kind = ev->kind;
	g->code = ev->code;
	g->last_event = -1;
	g->ras_open = -1;
	memcpy(g->address, ev->address, sizeof(g->address));
	h->slots[i] = (int32_t)h->n_groups;
	return (int32_t)h->n_groups++;
}

static void set_sample(struct group *g, const struct ga_kevent *ev)
{
	size_t n = ev->message_len < SAMPLE_MAX ? ev->message_len : SAMPLE_MAX;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)ev->message[i];
		g->sample[i] = (char)(c < 0x20 || c == 0x7f ? ' ' : c);
	}
	g->sample[n] = '\0';
}

/*
 * The outcome of the amdgpu reset that followed an uncorrectable RAS error on the same GPU:
 * the driver resets the GPU to recover from one (Documentation/gpu/amdgpu/ras.rst), and its
 * "GPU reset(N) succeeded" or "GPU reset(N) failed" is the outcome of every RAS event of that
 * GPU since the previous outcome. Nothing is marked on a GPU without an open RAS event.
 */
static void ras_outcome(struct ga_health *h, const char *address, bool ok)
{
	struct ga_kevent key;
	memset(&key, 0, sizeof(key));
	key.kind = GA_KEV_AMDGPU_RAS;
	snprintf(key.address, sizeof(key.address), "%s", address);
	uint32_t slot;
	int32_t g = group_find(h, &key, &slot);
	if (g < 0 || h->groups[g].ras_open < 0)
		return;
	for (size_t e = (size_t)h->groups[g].ras_open; e < h->n_events; e++)
		if (h->events[e].group == (uint32_t)g) {
			h->events[e].recovered = ok;
			h->events[e].reset_failed = !ok;
		}
	h->groups[g].ras_open = -1;
}

/*
 * A folded line completes the open event of its kind and device (the group of
 * that event has no code): the VM fault's status word, the reset's success.
 */
static void fold(struct ga_health *h, const struct ga_kevent *ev)
{
	struct ga_kevent key = *ev;
	key.code.set = false;
	key.code.v = 0;
	uint32_t slot;
	int32_t g = group_find(h, &key, &slot);
	if (g < 0)
		return;
	struct group *gr = &h->groups[g];
	if (ev->kind == GA_KEV_AMDGPU_VM_FAULT && ev->code.set)
		gr->status = ev->code;
	if (ev->kind == GA_KEV_AMDGPU_RESET && gr->last_event >= 0)
		h->events[gr->last_event].recovered = true;
	if (ev->kind == GA_KEV_AMDGPU_RESET)
		ras_outcome(h, ev->address, true);
	if ((ev->kind == GA_KEV_AER_CORRECTED || ev->kind == GA_KEV_AER_UNCORRECTED) && gr->last_event >= 0)
		h->events[gr->last_event].aer_bits |= ev->aer_bits;
}

int ga_health_add_line(void *udata, const char *line, size_t len)
{
	struct ga_health *h = udata;
	struct ga_kevent ev;
	if (!ga_kevent_parse(&h->st, line, len, &ev))
		return 0;
	if (ev.folded) {
		fold(h, &ev);
		return 0;
	}
	struct ga_ou64 status = { 0 };
	if (ev.kind == GA_KEV_AMDGPU_VM_FAULT) {
		status = ev.code; /* a status word seen alone: one group per device, not per word */
		ev.code.set = false;
		ev.code.v = 0;
	}
	int32_t g = group_of(h, &ev);
	if (g < 0 || h->n_events >= MAX_EVENTS) {
		h->dropped++;
		return 0;
	}
	if (h->n_events == h->cap_events) {
		size_t cap = h->cap_events ? h->cap_events * 2 : 256;
		struct event *v = ga_realloc(h->events, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		h->events = v;
		h->cap_events = cap;
	}
	struct event *e = &h->events[h->n_events++];
	e->boot_s = ev.boot_s.v;
	e->boot_set = ev.boot_s.set;
	e->wall_s = ev.wall_s.v;
	e->wall_set = ev.wall_s.set;
	e->group = (uint32_t)g;
	e->severity = (uint8_t)ev.severity;
	e->action = ga_kev_action(&ev);
	enum ga_action la;
	enum ga_severity ls;
	e->line_set = ga_kev_xid_line(&ev, &la, &ls) == 1;
	if (ev.kind == GA_KEV_SXID) {
		/* the guide's row and the line's token (ga_sxid_decide) */
		ga_kev_sxid(&ev, &la, &ls);
		e->line_set = true;
	}
	e->line_act = (uint8_t)(e->line_set ? la : GA_ACT_INVESTIGATE);
	e->recovered = false;
	e->reset_failed = false;
	e->vm_owner = !ev.vmid.set ? 0 : ev.vmid.v == 0 ? 1 : 2;
	e->aer_bits = ev.aer_bits;
	if (ev.kind == GA_KEV_MCE) {
		/* a corrected machine check (the status word's UC bit clear, AMD's CE flag,
		 * "Machine check events logged"): investigate, as explain's machine-check-logged;
		 * an uncorrected one: replace the part (CPU or DIMM) the bank names, as explain's
		 * machine-check-uncorrected (GA-KLOG-MCE's default, drain, is the step before it) */
		e->line_set = true;
		e->line_act = (uint8_t)(ev.fatal == GA_KEV_FATAL_NO ? GA_ACT_INVESTIGATE : GA_ACT_REPLACE);
	}
	if (ev.kind == GA_KEV_AER_UNCORRECTED) {
		/* the class's action (ga_aer_decide: drain; fatal is critical) */
		ga_aer_decide(ev.fatal == GA_KEV_FATAL_NO ? GA_AER_NONFATAL : GA_AER_FATAL, NULL, 1, &la,
		              &ls);
		e->line_set = true;
		e->line_act = (uint8_t)la;
	}
	h->groups[g].last_event = (int64_t)(h->n_events - 1);
	if (ev.kind == GA_KEV_AMDGPU_RAS && h->groups[g].ras_open < 0)
		h->groups[g].ras_open = (int64_t)(h->n_events - 1);
	/* a reset's end that no "GPU reset begin" opened, or its failure: the outcome of the
	 * RAS errors before it on that GPU */
	if (ev.kind == GA_KEV_AMDGPU_RESET && ev.code.set)
		ras_outcome(h, ev.address, ev.fatal != GA_KEV_FATAL_YES);
	if (status.set)
		h->groups[g].status = status;
	if (ev.link.set)
		h->groups[g].link = ev.link;
	if (ev.nvl_unit[0] && ev.nvl_status.set) {
		memcpy(h->groups[g].nvl_unit, ev.nvl_unit, sizeof(ev.nvl_unit));
		h->groups[g].nvl_status = ev.nvl_status;
	}
	set_sample(&h->groups[g], &ev);
	return 0;
}

/* --- the clock of the log's writer --- */

void ga_health_set_year_ref(struct ga_health *h, int64_t now_wall_s)
{
	if (h)
		GA_SET(h->st.year_ref_s, now_wall_s);
}

uint64_t ga_health_unplaced(const struct ga_health *h, const struct ga_health_opts *o)
{
	uint64_t n = 0;
	if (!h || (o && o->btime.set))
		return 0;
	for (size_t i = 0; i < h->n_events; i++)
		n += h->events[i].boot_set && !h->events[i].wall_set;
	return n;
}

/* --- findings --- */

struct acc {
	uint64_t count;
	uint64_t resets_after;       /* VM faults: bursts of faults that a ring timeout or reset followed */
	uint64_t after_vm_fault;     /* resets and ring timeouts that followed a VM fault */
	uint64_t recovered;          /* resets that ended with "GPU reset(N) succeeded"; RAS errors
	                              * a successful reset of their GPU followed */
	uint64_t reset_failed;       /* RAS errors a failed reset of their GPU followed */
	uint64_t vm_kernel, vm_user; /* VM faults in vmid 0 (the driver's) and in another vmid */
	bool boot_set, wall_set;
	double first_boot, last_boot;
	int64_t first_wall, last_wall;
	int severity;
	const char *action;
	bool line_set; /* an Xid line's words set the action: the worst of them */
	enum ga_action line_act;
	uint32_t aer_types[32]; /* PCIe AER: events in the window per error type (status bit) */
};

static const char *kind_text(enum ga_kev_kind k)
{
	switch (k) {
	case GA_KEV_GPU_LOST:
		return "GPU has fallen off the bus";
	case GA_KEV_AMDGPU_RESET:
		return "amdgpu GPU reset";
	case GA_KEV_AMDGPU_RING_TIMEOUT:
		return "amdgpu ring timeout (the GPU hung)";
	case GA_KEV_AMDGPU_RAS:
		return "amdgpu uncorrectable RAS error";
	case GA_KEV_AMDGPU_RAS_RMA:
		return "amdgpu retired-page table at amdgpu.bad_page_threshold (RMA)";
	case GA_KEV_AER_CORRECTED:
		return "PCIe AER corrected errors";
	case GA_KEV_AER_UNCORRECTED:
		return "PCIe AER uncorrected error";
	case GA_KEV_HUNG_TASK:
		return "hung task (blocked in the kernel)";
	case GA_KEV_OOM_KILL:
		return "OOM killer killed a process";
	case GA_KEV_MCE:
		return "machine check (CPU/memory hardware error)";
	case GA_KEV_NVRM_INIT_FAILURE:
		return "NVIDIA driver could not initialise the GPU (RmInitAdapter failed)";
	case GA_KEV_NVRM_API_MISMATCH:
		return "NVIDIA driver API mismatch between user space and kernel module";
	case GA_KEV_AMDGPU_VM_FAULT:
		return "amdgpu GPU VM page fault";
	default:
		return ga_kev_kind_name(k);
	}
}

static void fmt_wall(char *out, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, n, "%lld", (long long)t);
}

static const struct ga_accel *accel_at(const struct ga_node *n, const char *addr)
{
	if (!n || !addr[0])
		return NULL;
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].address && !strcasecmp(n->accelerators[i].address, addr))
			return &n->accelerators[i];
	return NULL;
}

/* The VM fault and reset incident in a finding's message ... */
static void chain_note(const struct group *g, const struct acc *a, char *out, size_t cap)
{
	size_t l = strlen(out);
	if (g->kind == GA_KEV_AMDGPU_VM_FAULT && a->resets_after)
		snprintf(out + l, cap - l,
		         a->resets_after == 1 ? ", then a GPU reset" : ", then GPU resets (%llu)",
		         (unsigned long long)a->resets_after);
	else if (a->after_vm_fault)
		snprintf(out + l, cap - l, " (after a GPU VM page fault: the faulting job hung the GPU)");
	l = strlen(out);
	if (g->kind == GA_KEV_AMDGPU_RESET && a->recovered)
		snprintf(out + l, cap - l, "; %llu recovered", (unsigned long long)a->recovered);
	if (g->kind == GA_KEV_AMDGPU_RAS)
		snprintf(out + l, cap - l, "%s",
		         a->reset_failed            ? "; the driver's GPU reset after it failed"
		         : a->recovered == a->count ? "; the driver's GPU reset after it succeeded"
		         : a->recovered             ? "; not every one followed by a successful GPU reset"
		                                    : "; no GPU reset outcome after it in the log");
}

/*
 * One decision for an uncorrectable amdgpu RAS error (docs/health.md "AMD uncorrectable RAS
 * errors: one decision"): the driver resets the GPU to recover from one; a failed reset:
 * reboot (critical); every error followed by a successful reset: restart the jobs (error);
 * otherwise the recovery is unconfirmed: the catalogue's drain (critical).
 */
static const char *ras_decide(const struct acc *a, enum ga_action *act, enum ga_severity *sev)
{
	*act = ga_kev_ras_action(a->count, a->recovered, a->reset_failed);
	if (*act == GA_ACT_REBOOT) {
		*sev = GA_SEV_CRITICAL;
		return "drain and reboot the node: the driver's GPU reset after the uncorrectable error "
		       "failed and the GPU stays unusable until the driver loads again; replace the GPU if "
		       "it recurs";
	}
	if (*act == GA_ACT_RESTART_WORKLOAD) {
		if (*sev > GA_SEV_ERROR)
			*sev = GA_SEV_ERROR;
		return "restart the jobs that ran on the GPU: the driver reset it and retired the bad "
		       "pages; check the retired pages (amd-smi bad-pages) against "
		       "amdgpu.bad_page_threshold, replace the GPU at the threshold";
	}
	return NULL; /* drain: the event's text and the catalogue's action */
}

/* ... and in its evidence. */
static int chain_evidence(const struct group *g, const struct acc *a, struct ga_finding *fd)
{
	int r = 0;
	if (g->kind == GA_KEV_AMDGPU_VM_FAULT && g->status.set)
		r = ga_finding_evidence(fd, "status", "0x%08llx", (unsigned long long)g->status.v);
	if (r == 0 && g->kind == GA_KEV_AMDGPU_VM_FAULT)
		r = ga_finding_evidence(fd, "resets_after", "%llu", (unsigned long long)a->resets_after);
	if (r == 0 && g->kind == GA_KEV_AMDGPU_VM_FAULT && (a->vm_kernel || a->vm_user))
		r = ga_finding_evidence(fd, "vmid0_faults", "%llu of %llu", (unsigned long long)a->vm_kernel,
		                        (unsigned long long)a->vm_kernel + (unsigned long long)a->vm_user);
	if (r == 0 && a->after_vm_fault)
		r = ga_finding_evidence(fd, "after_vm_fault", "%llu", (unsigned long long)a->after_vm_fault);
	if (r == 0 && g->kind == GA_KEV_AMDGPU_RESET && a->recovered)
		r = ga_finding_evidence(fd, "recovered", "%llu", (unsigned long long)a->recovered);
	if (r == 0 && g->kind == GA_KEV_AMDGPU_RAS)
		r = ga_finding_evidence(fd, "reset_succeeded", "%llu", (unsigned long long)a->recovered);
	if (r == 0 && g->kind == GA_KEV_AMDGPU_RAS)
		r = ga_finding_evidence(fd, "reset_failed", "%llu", (unsigned long long)a->reset_failed);
	return r;
}

/* "NVSwitch SXid 12028 (egress nonposted PRIV error), link 32" */
static void sxid_what(const struct group *g, char *out, size_t cap)
{
	char words[128];
	size_t l;

	ga_sxid_words(g->code.v, 0, words, sizeof(words));
	snprintf(out, cap, "NVSwitch SXid %llu (%s)", (unsigned long long)g->code.v, words);
	l = strlen(out);
	if (g->link.set)
		snprintf(out + l, cap - l, ", link %llu", (unsigned long long)g->link.v);
}

static int sxid_evidence(const struct group *g, struct ga_finding *fd)
{
	const struct ga_sxid_fact *f = ga_sxid_fact(g->code.v);
	const char *dn = f ? NULL : ga_sxid_driver_name(g->code.v);
	int r = ga_finding_evidence(fd, "sxid_table", "%s",
	                            f ? ga_sxid_table_name(f->table) : "not-in-guide");
	if (r == 0 && dn)
		r = ga_finding_evidence(fd, "driver_name", "%s", dn);
	if (r == 0 && g->link.set)
		r = ga_finding_evidence(fd, "link", "%llu", (unsigned long long)g->link.v);
	return r;
}

/* NVLink5 Xids: ", link 8, RLW_REMAP 0x00000040 (Fatal, RESET_GPU)" (docs/xid.md) */
static void nvl5_what(const struct group *g, char *out, size_t cap)
{
	size_t l = strlen(out);
	if (g->code.v < 144 || g->code.v > 150)
		return;
	if (g->link.set)
		snprintf(out + l, cap - l, ", link %llu", (unsigned long long)g->link.v);
	l = strlen(out);
	if (!g->nvl_unit[0] || !g->nvl_status.set)
		return;
	const struct ga_xid_nvl5_fact *d =
	        ga_xid_nvl5_decode(g->code.v, g->nvl_unit, strlen(g->nvl_unit), (uint32_t)g->nvl_status.v);
	snprintf(out + l, cap - l, ", %s 0x%08llx (%s%s%s)", g->nvl_unit, (unsigned long long)g->nvl_status.v,
	         d ? d->severity : "not in NVIDIA's decode", d ? ", " : "", d ? d->immediate : "");
}

static int nvl5_evidence(const struct group *g, struct ga_finding *fd)
{
	int r = 0;
	if (g->code.v < 144 || g->code.v > 150)
		return 0;
	if (g->link.set)
		r = ga_finding_evidence(fd, "link", "%llu", (unsigned long long)g->link.v);
	if (r == 0 && g->nvl_unit[0] && g->nvl_status.set) {
		r = ga_finding_evidence(fd, "nvlink_unit", "%s", g->nvl_unit);
		if (r == 0)
			r = ga_finding_evidence(fd, "error_status", "0x%08llx",
			                        (unsigned long long)g->nvl_status.v);
	}
	return r;
}

/* "aer_types": "RxErr:10,BadTLP:2" (the kernel's names, docs/health.md) */
static int aer_evidence(const struct group *g, const struct acc *a, struct ga_finding *fd)
{
	char buf[400];
	size_t l = 0;
	buf[0] = '\0';
	bool unc = g->kind == GA_KEV_AER_UNCORRECTED;
	for (unsigned b = 0; b < 32 && l + 32 < sizeof(buf); b++) {
		if (!a->aer_types[b])
			continue;
		const struct ga_aer_fact *f = ga_aer_fact(unc, b);
		int k = f ? snprintf(buf + l, sizeof(buf) - l, "%s%s:%u", l ? "," : "", f->name,
		                     a->aer_types[b])
		          : snprintf(buf + l, sizeof(buf) - l, "%sbit%u:%u", l ? "," : "", b,
		                     a->aer_types[b]);
		if (k > 0)
			l += (size_t)k;
	}
	return buf[0] ? ga_finding_evidence(fd, "aer_types", "%s", buf) : 0;
}

static int emit(const struct group *g, const struct acc *a, const struct ga_node *n, struct ga_findings *out)
{
	char code[48], on[48] = "", what[192]; /* code: the suffix of GA-XID-<n> or GA-KLOG-<KIND> */
	enum ga_code family = GA_C_XID;
	const struct ga_accel *ac = accel_at(n, g->address);
	if (ac && ac->index.set)
		snprintf(on, sizeof(on), " on GPU %llu", (unsigned long long)ac->index.v);
	if (g->kind == GA_KEV_XID) {
		struct ga_xid_info x;
		ga_xid_lookup(g->code.v, &x);
		snprintf(code, sizeof(code), "%llu", (unsigned long long)g->code.v);
		if (x.name[0])
			snprintf(what, sizeof(what), "Xid %llu (%s)", (unsigned long long)g->code.v, x.name);
		else
			snprintf(what, sizeof(what), "Xid %llu", (unsigned long long)g->code.v);
		nvl5_what(g, what, sizeof(what));
	} else {
		family = GA_C_KLOG;
		code[0] = '\0';
		for (const char *p = ga_kev_kind_name(g->kind); *p && strlen(code) + 1 < sizeof(code); p++) {
			char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
			size_t l = strlen(code);
			code[l] = c;
			code[l + 1] = '\0';
		}
		if (g->kind == GA_KEV_SXID)
			sxid_what(g, what, sizeof(what));
		else
			snprintf(what, sizeof(what), "%s", kind_text(g->kind));
	}
	enum ga_severity sev = (enum ga_severity)a->severity;
	char storm[224] = "";
	bool aer = g->kind == GA_KEV_AER_CORRECTED || g->kind == GA_KEV_AER_UNCORRECTED;
	if (aer) {
		/* the error types the detail lines named, counted per device (docs/health.md) */
		char types[160];
		ga_aer_types_text(g->kind == GA_KEV_AER_UNCORRECTED, a->aer_types, types, sizeof(types));
		if (types[0])
			snprintf(storm, sizeof(storm), " (%s)", types);
	}
	if (g->kind == GA_KEV_AER_CORRECTED) {
		enum ga_action aa;
		enum ga_severity as;
		if (ga_aer_decide(GA_AER_CORRECTED, a->aer_types, a->count, &aa, &as) && sev < as) {
			sev = as;
			size_t l = strlen(storm);
			snprintf(storm + l, sizeof(storm) - l, " (storm)");
		}
	}
	chain_note(g, a, storm, sizeof(storm));
	enum ga_action ras_act = GA_ACT_DRAIN;
	const char *fix = a->action;
	if (g->kind == GA_KEV_AMDGPU_RAS) {
		const char *t = ras_decide(a, &ras_act, &sev);
		if (t)
			fix = t;
	}
	/* every fault in vmid 0: the driver's or firmware's own, as explain decides (vm_detail) */
	enum ga_cause vm_cause = GA_CAUSE_APPLICATION;
	enum ga_action vm_act = GA_ACT_RESTART_WORKLOAD;
	bool vm_driver = g->kind == GA_KEV_AMDGPU_VM_FAULT &&
	                 ga_kev_vm_fault_driver(a->vm_kernel, a->vm_user, &vm_cause, &vm_act);
	if (vm_driver) {
		size_t l = strlen(storm);
		snprintf(storm + l, sizeof(storm) - l,
		         " (every one in vmid 0, the kernel driver's or firmware's address space)");
	}
	struct ga_finding *fd = ga_findings_add_member(
	        out, family, code, sev, g->address[0] ? g->address : "node", fix, "%s%s: %llu event%s%s",
	        what, on, (unsigned long long)a->count, a->count == 1 ? "" : "s", storm);
	if (!fd)
		return -ENOMEM;
	/* the catalogue's default (codes.def, xid.def), refined by what the events said */
	if (g->kind == GA_KEV_SXID && a->line_set)
		fd->action = a->line_act; /* the guide's row, a Fatal token raises it (docs/xid.md) */
	else if (g->kind == GA_KEV_AER_CORRECTED && sev >= GA_SEV_WARNING)
		fd->action = GA_ACT_INVESTIGATE; /* a storm, or a policy raised it */
	else if (g->kind == GA_KEV_MCE && a->line_set)
		fd->action = a->line_act; /* replace only when one was uncorrected */
	else if (g->kind == GA_KEV_AER_UNCORRECTED && a->line_set)
		fd->action = a->line_act; /* ga_aer_decide: drain */
	else if (g->kind == GA_KEV_XID && a->line_set)
		fd->action =
		        a->line_act; /* Xid 154's recovery action, NVLink5's Fatal/Nonfatal (docs/xid.md) */
	else if (g->kind == GA_KEV_XID && sev >= GA_SEV_ERROR && fd->action == GA_ACT_NONE)
		fd->action = GA_ACT_INVESTIGATE; /* a policy promoted an informational Xid */
	else if (vm_driver)
		fd->action = vm_act, fd->cause = vm_cause; /* a driver or firmware bug */
	else if (g->kind == GA_KEV_AMDGPU_RAS)
		fd->action = ras_act; /* the outcome of the driver's reset (ras_decide) */
	int r = ga_finding_evidence(fd, "kind", "%s", ga_kev_kind_name(g->kind));
	if (r == 0 && g->code.set)
		r = ga_finding_evidence(fd,
		                        g->kind == GA_KEV_XID    ? "xid"
		                        : g->kind == GA_KEV_SXID ? "sxid"
		                                                 : "code",
		                        "%llu", (unsigned long long)g->code.v);
	if (r == 0 && g->kind == GA_KEV_SXID)
		r = sxid_evidence(g, fd);
	if (r == 0 && g->kind == GA_KEV_XID)
		r = nvl5_evidence(g, fd);
	if (r == 0 && aer)
		r = aer_evidence(g, a, fd);
	if (r == 0 && ac && ac->index.set)
		r = ga_finding_evidence(fd, "gpu", "%llu", (unsigned long long)ac->index.v);
	if (r == 0)
		r = ga_finding_evidence(fd, "count", "%llu", (unsigned long long)a->count);
	if (r == 0 && a->boot_set)
		r = ga_finding_evidence(fd, "first_boot_s", "%.6f", a->first_boot);
	if (r == 0 && a->boot_set)
		r = ga_finding_evidence(fd, "last_boot_s", "%.6f", a->last_boot);
	char t[40];
	if (r == 0 && a->wall_set) {
		fmt_wall(t, sizeof(t), a->first_wall);
		r = ga_finding_evidence(fd, "first_time", "%s", t);
	}
	if (r == 0 && a->wall_set) {
		fmt_wall(t, sizeof(t), a->last_wall);
		r = ga_finding_evidence(fd, "last_time", "%s", t);
	}
	if (r == 0)
		r = chain_evidence(g, a, fd);
	if (r == 0)
		r = ga_finding_evidence(fd, "sample", "%s", g->sample);
	return r;
}

/* An SXid group as nvswitch.c takes it; its strings stay the group's. */
static void sxid_group(const struct group *g, const struct acc *a, struct ga_sxid_group *out)
{
	out->code = g->code.v;
	out->address = g->address;
	out->count = a->count;
	out->fatal = a->severity >= (int)GA_SEV_ERROR; /* the guide's fatal tables, a Fatal token */
	out->severity = (enum ga_severity)a->severity;
	out->action = a->line_set ? a->line_act : GA_ACT_INVESTIGATE;
	out->link = g->link;
	out->boot_set = a->boot_set;
	out->first_boot_s = a->first_boot;
	out->last_boot_s = a->last_boot;
	out->wall_set = a->wall_set;
	if (a->wall_set) {
		fmt_wall(out->first_time, sizeof(out->first_time), a->first_wall);
		fmt_wall(out->last_time, sizeof(out->last_time), a->last_wall);
	}
	out->sample = g->sample;
}

static int gpu_count(const struct ga_node *n, const struct ga_policy_class *c, struct ga_findings *out)
{
	if (!n || !c || !c->expect.gpu_count.set)
		return 0;
	if (!ga_node_pci_known(n)) {
		/* an unseen bus is not an empty one: never "0 GPUs visible, drain" (cmd-health's
		 * coverage marks the PCI devices missing, which makes the verdict unknown) */
		struct ga_finding *fd = ga_findings_add(
		        out, GA_C_CHECK_UNKNOWN, GA_SEV_WARNING, "node", GA_SOURCE_PCI_FIX,
		        "not checked: the PCI devices could not be read, so the GPU count is unknown "
		        "(class %s expects %llu)",
		        c->name, (unsigned long long)c->expect.gpu_count.v);
		return fd ? ga_finding_evidence(fd, "expected", "%llu",
		                                (unsigned long long)c->expect.gpu_count.v)
		          : -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (c->match.vendor && (!a->vendor || strcmp(a->vendor, c->match.vendor)))
			continue;
		if (a->excluded.set && a->excluded.v)
			continue;
		k++;
	}
	if (k == c->expect.gpu_count.v)
		return 0;
	struct ga_finding *fd = ga_findings_add(
	        out, GA_C_EXPECT_GPU_COUNT, GA_SEV_ERROR, "node",
	        "drain the node: a GPU is missing, lost or excluded; reset, reseat or replace it",
	        "%zu GPU%s visible, class %s expects %llu", k, k == 1 ? "" : "s", c->name,
	        (unsigned long long)c->expect.gpu_count.v);
	if (!fd)
		return -ENOMEM;
	int r = ga_finding_evidence(fd, "expected", "%llu", (unsigned long long)c->expect.gpu_count.v);
	if (r == 0)
		r = ga_finding_evidence(fd, "actual", "%zu", k);
	return r;
}

/*
 * An amdgpu VM fault and the GPU reset that follows it are one incident: the
 * faulting job hung the GPU and the driver reset it. Walking the events in
 * log order, a fault stays open on its device until a reset ends it; a ring
 * timeout or reset within LINK_WINDOW_S of it (when both have a time) is
 * counted as following the fault.
 */
#define LINK_WINDOW_S 120.0
#define LINK_DEVICES 64

struct open_fault {
	char address[16];
	uint32_t group;
	bool counted; /* the fault group already counted a reset for this fault */
	bool boot_set, wall_set;
	double boot_s;
	int64_t wall_s;
};

struct links {
	struct open_fault v[LINK_DEVICES];
	size_t n;
};

static struct open_fault *open_fault_at(struct links *l, const char *addr)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].address, addr))
			return &l->v[i];
	return NULL;
}

static void link_event(struct links *l, const struct ga_health *h, const struct event *e, double b, bool bs,
                       int64_t w, bool ws, struct acc *acc)
{
	const struct group *g = &h->groups[e->group];
	struct open_fault *f = open_fault_at(l, g->address);
	if (g->kind == GA_KEV_AMDGPU_VM_FAULT) {
		if (!f && l->n < LINK_DEVICES)
			f = &l->v[l->n++];
		if (!f)
			return;
		memcpy(f->address, g->address, sizeof(f->address));
		f->group = e->group;
		f->counted = false;
		f->boot_set = bs, f->boot_s = b;
		f->wall_set = ws, f->wall_s = w;
		return;
	}
	if (!f || (g->kind != GA_KEV_AMDGPU_RESET && g->kind != GA_KEV_AMDGPU_RING_TIMEOUT))
		return;
	double gap = 0;
	if (bs && f->boot_set)
		gap = b - f->boot_s;
	else if (ws && f->wall_set)
		gap = (double)(w - f->wall_s);
	if (gap >= 0 && gap <= LINK_WINDOW_S) {
		acc[e->group].after_vm_fault++;
		if (!f->counted)
			acc[f->group].resets_after++;
		f->counted = true;
	}
	if (g->kind == GA_KEV_AMDGPU_RESET || gap > LINK_WINDOW_S)
		*f = l->v[--l->n]; /* the reset closes the incident */
}

int ga_health_findings(const struct ga_health *h, const struct ga_node *n, const struct ga_health_opts *o,
                       struct ga_findings *out, uint64_t *ret_in_window)
{
	struct ga_health_opts none = { 0 };
	if (!o)
		o = &none;
	struct acc *acc = NULL;
	struct links *links = NULL;
	struct ga_sxid_group *sx = NULL;
	size_t n_sx = 0;
	uint64_t in_window = 0;
	int r = gpu_count(n, o->cls, out);
	if (r < 0 || !h)
		goto out;

	/* "now": the clock when the caller knows it, else the newest event */
	bool nb_set = o->now_boot_s.set, nw_set = o->now_wall_s.set;
	double now_boot = o->now_boot_s.v;
	int64_t now_wall = o->now_wall_s.v;
	for (size_t i = 0; i < h->n_events; i++) {
		const struct event *e = &h->events[i];
		double b = e->boot_s;
		int64_t w = e->wall_s;
		bool bs = e->boot_set, ws = e->wall_set;
		if (!bs && ws && o->btime.set)
			b = (double)(w - o->btime.v), bs = true;
		if (!ws && bs && o->btime.set)
			w = o->btime.v + (int64_t)b, ws = true;
		if (!o->now_boot_s.set && bs && (!nb_set || b > now_boot))
			now_boot = b, nb_set = true;
		if (!o->now_wall_s.set && ws && (!nw_set || w > now_wall))
			now_wall = w, nw_set = true;
	}

	acc = ga_calloc(h->n_groups ? h->n_groups : 1, sizeof(*acc));
	links = ga_calloc(1, sizeof(*links));
	if (!acc || !links) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < h->n_events; i++) {
		const struct event *e = &h->events[i];
		double b = e->boot_s;
		int64_t w = e->wall_s;
		bool bs = e->boot_set, ws = e->wall_set;
		if (!bs && ws && o->btime.set)
			b = (double)(w - o->btime.v), bs = true;
		if (!ws && bs && o->btime.set)
			w = o->btime.v + (int64_t)b, ws = true;
		if (o->since_s > 0) {
			/* an event without any time cannot be placed: it is kept */
			if (bs && nb_set && b < now_boot - o->since_s)
				continue;
			if (!bs && ws && nw_set && (double)w < (double)now_wall - o->since_s)
				continue;
		}
		const struct group *g = &h->groups[e->group];
		enum ga_severity sev = (enum ga_severity)e->severity;
		if (g->kind == GA_KEV_XID && !ga_xid_override(o->cls, g->code.v, &sev))
			continue;
		struct acc *a = &acc[e->group];
		if (!a->count || (int)sev > a->severity) {
			a->severity = (int)sev;
			a->action = e->action;
		}
		if (e->line_set && (!a->line_set || ga_action_rank((enum ga_action)e->line_act) >
		                                            ga_action_rank(a->line_act))) {
			a->line_set = true;
			a->line_act = (enum ga_action)e->line_act;
		}
		if (bs) {
			if (!a->boot_set || b < a->first_boot)
				a->first_boot = b;
			if (!a->boot_set || b > a->last_boot)
				a->last_boot = b;
			a->boot_set = true;
		}
		if (ws) {
			if (!a->wall_set || w < a->first_wall)
				a->first_wall = w;
			if (!a->wall_set || w > a->last_wall)
				a->last_wall = w;
			a->wall_set = true;
		}
		a->count++;
		a->recovered += e->recovered;
		a->reset_failed += e->reset_failed;
		a->vm_kernel += e->vm_owner == 1;
		a->vm_user += e->vm_owner == 2;
		for (unsigned bit = 0; bit < 32; bit++)
			a->aer_types[bit] += (e->aer_bits >> bit) & 1u;
		in_window++;
		link_event(links, h, e, b, bs, w, ws, acc);
	}
	/* on an NVSwitch node the SXids join the fabric finding (nvswitch.c) */
	bool nvsw = ga_node_has_nvswitch(n);
	sx = nvsw ? ga_calloc(h->n_groups ? h->n_groups : 1, sizeof(*sx)) : NULL;
	if (nvsw && !sx) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t g = 0; g < h->n_groups && r == 0; g++) {
		if (!acc[g].count)
			continue;
		if (nvsw && h->groups[g].kind == GA_KEV_SXID)
			sxid_group(&h->groups[g], &acc[g], &sx[n_sx++]);
		else
			r = emit(&h->groups[g], &acc[g], n, out);
	}
	if (r == 0 && n_sx)
		r = ga_nvswitch_sxid_join(sx, n_sx, out);
	if (r == 0 && h->dropped) {
		if (!ga_findings_add(out, GA_C_KLOG_TRUNCATED, GA_SEV_INFO, "node", NULL,
		                     "%llu kernel-log events were not counted (more than %u kinds or "
		                     "%u events)",
		                     (unsigned long long)h->dropped, MAX_GROUPS, MAX_EVENTS))
			r = -ENOMEM;
	}
	if (r == 0)
		r = ga_findings_bind_devices(out, n);
out:
	ga_free(sx);
	ga_free(links);
	ga_free(acc);
	if (r == 0 && out->err)
		r = out->err;
	if (r == 0 && ret_in_window)
		*ret_in_window = in_window;
	return r;
}

void ga_health_cover(struct ga_health_log *log, const char *source, enum ga_hsrc_state state, bool decisive,
                     const char *detail, const char *summary)
{
	static const char *const order[] = { "kernel_log", "node", "pci", "processes", "nvml_events" };
	if (log->n_cov >= GA_HEALTH_COV_MAX)
		return;
	size_t rank = GA_ARRAY_SIZE(order), at = log->n_cov;
	for (size_t i = 0; i < GA_ARRAY_SIZE(order); i++)
		if (!strcmp(order[i], source))
			rank = i;
	/* kept in that order, whatever order the sources were read in */
	while (at > 0) {
		size_t prev = GA_ARRAY_SIZE(order);
		for (size_t i = 0; i < GA_ARRAY_SIZE(order); i++)
			if (!strcmp(order[i], log->cov[at - 1].source))
				prev = i;
		if (prev <= rank)
			break;
		log->cov[at] = log->cov[at - 1];
		at--;
	}
	log->cov[at] = (struct ga_health_cov){ source, state, decisive, detail, summary };
	log->n_cov++;
}

static const struct ga_health_cov *first_missing(const struct ga_health_log *log)
{
	for (size_t i = 0; log && i < log->n_cov; i++)
		if (log->cov[i].state == GA_HSRC_MISSING && log->cov[i].decisive)
			return &log->cov[i];
	return NULL;
}

bool ga_health_covered(const struct ga_health_log *log)
{
	return first_missing(log) == NULL;
}

enum ga_health_verdict ga_health_verdict(const struct ga_health_log *log, const struct ga_findings *f,
                                         const struct ga_health_cov **why)
{
	if (why)
		*why = NULL;
	if (ga_findings_max_severity(f) >= GA_SEV_ERROR)
		return GA_HEALTH_PROBLEMS;
	const struct ga_health_cov *m = first_missing(log);
	if (why)
		*why = m;
	return m ? GA_HEALTH_UNKNOWN : GA_HEALTH_OK;
}

const char *ga_health_verdict_name(enum ga_health_verdict v)
{
	return v == GA_HEALTH_PROBLEMS ? "problems" : v == GA_HEALTH_UNKNOWN ? "unknown" : "ok";
}

const char *ga_hsrc_state_name(enum ga_hsrc_state s)
{
	return s == GA_HSRC_MISSING ? "missing" : s == GA_HSRC_SKIPPED ? "skipped" : "read";
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *c = s ? ga_strdup(s) : NULL;
	if (s && !c)
		*oom = true;
	return c;
}

static int take_coverage(struct ga_health_report *r, const struct ga_health_log *log)
{
	if (!log->n_cov)
		return 0;
	r->coverage = ga_calloc(log->n_cov, sizeof(*r->coverage));
	if (!r->coverage)
		return -ENOMEM;
	r->n_coverage = log->n_cov;
	bool oom = false;
	for (size_t i = 0; i < log->n_cov; i++) {
		r->coverage[i].source = dup_or_null(log->cov[i].source, &oom);
		r->coverage[i].state = dup_or_null(ga_hsrc_state_name(log->cov[i].state), &oom);
		r->coverage[i].detail = dup_or_null(log->cov[i].detail, &oom);
	}
	return oom ? -ENOMEM : 0;
}

int ga_health_report_take(struct ga_health_report *r, const struct ga_health_log *log, struct ga_findings *f)
{
	memset(r, 0, sizeof(*r));
	struct ga_health_klog *k = &r->kernel_log;
	const struct ga_health_cov *why = NULL;
	enum ga_health_verdict v = ga_health_verdict(log, f, &why);
	bool oom = false;
	r->schema = ga_strdup(GA_HEALTH_SCHEMA);
	r->result = ga_strdup(ga_health_verdict_name(v));
	r->reason = why ? dup_or_null(why->detail ? why->detail : why->source, &oom) : NULL;
	k->source = log->source ? ga_strdup(log->source) : NULL;
	k->note = !log->source && log->note ? ga_strdup(log->note) : NULL;
	k->boot_id = log->boot_id ? ga_strdup(log->boot_id) : NULL;
	GA_SET(k->lines, log->st.lines);
	GA_SET(k->truncated_lines, log->st.truncated);
	GA_SET(k->overwritten, log->st.overwritten);
	GA_SET(k->events, log->events);
	GA_SET(k->in_window, log->in_window);
	if (log->since_s > 0)
		GA_SET(k->since_s, log->since_s);
	k->btime = log->btime;
	r->nvml_events = log->nvml_events; /* moved */
	r->findings = *f;
	memset(f, 0, sizeof(*f));
	if (oom || take_coverage(r, log) < 0 || !r->schema || !r->result || (log->source && !k->source) ||
	    (!log->source && log->note && !k->note) || (log->boot_id && !k->boot_id)) {
		ga_schema_release(&ga_health_report_schema, r);
		return -ENOMEM;
	}
	return 0;
}

int ga_health_dstate_finding(char *const *names, size_t n, struct ga_findings *f)
{
	if (n == 0)
		return 0;
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	for (size_t i = 0; i < n && i < 16; i++)
		(void)ga_buf_addf(&b, "%s%s", i ? ", " : "", names[i]);
	if (n > 16)
		(void)ga_buf_addf(&b, ", +%zu more", n - 16);
	struct ga_finding *fd = ga_findings_add(
	        f, GA_C_PROC_D_STATE, GA_SEV_WARNING, "node",
	        "see what they wait on (cat /proc/PID/stack); a driver call on a wedged GPU never returns",
	        "%zu process%s in uninterruptible sleep (D): %s", n, n == 1 ? "" : "es",
	        b.data ? b.data : "");
	if (fd)
		ga_finding_evidence(fd, "count", "%zu", n);
	ga_buf_release(&b);
	return fd ? 0 : -ENOMEM;
}

int ga_health_klog_unreadable(const char *why, struct ga_findings *f)
{
	return ga_findings_add(f, GA_C_KLOG_UNREADABLE, GA_SEV_WARNING, "/dev/kmsg",
	                       "run as root (dmesg_restrict) or pass --kmsg FILE",
	                       "the kernel log could not be read: %s", why)
	               ? 0
	               : -ENOMEM;
}
