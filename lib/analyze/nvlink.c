/*
 * analyze/nvlink.c - findings from the NVIDIA fabric as NVML reports it: a GPU
 * whose registration with the NVSwitch fabric has not completed or failed
 * (CUDA refuses work on it until Fabric Manager finishes), a fabric that says
 * it is degraded, an NVLink that is down where the same link of the other
 * GPUs is up, and NVLink error counters that grew between two collections
 * (serve keeps the previous snapshot; the counters count since the driver
 * loaded, so a single reading says little and a rise says the link is bad now).
 *
 * Pure: snapshots in, findings out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-analyze.h"

static const char *subject_of(const struct ga_accel *a)
{
	return a->address ? a->address : "gpu";
}

static void ids(struct ga_finding *f, const struct ga_accel *a)
{
	if (!f)
		return;
	if (a->index.set)
		ga_finding_evidence(f, "gpu", "%llu", (unsigned long long)a->index.v);
	if (a->nvml && a->nvml->uuid)
		ga_finding_evidence(f, "gpu_uuid", "%s", a->nvml->uuid);
}

static const char *fm_state(const struct ga_node *n)
{
	const struct ga_fabric_manager *fm = n->fabric_manager;
	if (!fm || !fm->running.set)
		return NULL;
	return fm->running.v ? "running" : fm->pid_file ? "not running (stale pid file)" : "not running";
}

static void fabric_findings(const struct ga_node *n, const struct ga_accel *a, const struct ga_nvml_gpu *g,
                            struct ga_findings *out)
{
	const char *subj = subject_of(a);
	if (!g->fabric_state)
		return; /* not an NVSwitch system, or a driver without the call */
	if (!strcmp(g->fabric_state, "not_started") || !strcmp(g->fabric_state, "in_progress")) {
		bool started = !strcmp(g->fabric_state, "in_progress");
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_FABRIC_NOT_READY, started ? GA_SEV_WARNING : GA_SEV_ERROR, subj,
		        "check that nvidia-fabricmanager (and nvlsm on NVLink 5 systems) runs and see "
		        "/var/log/fabricmanager.log; CUDA refuses work on this GPU until registration "
		        "completes",
		        "the GPU's NVLink fabric registration is %s",
		        started ? "still in progress" : "not started");
		ids(f, a);
		ga_finding_evidence(f, "fabric_state", "%s", g->fabric_state);
		if (fm_state(n))
			ga_finding_evidence(f, "fabric_manager", "%s", fm_state(n));
		return;
	}
	if (g->fabric_status.set && g->fabric_status.v != 0) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_FABRIC_FAILED, GA_SEV_ERROR, subj,
		        "drain the node; read /var/log/fabricmanager.log, restart nvidia-fabricmanager and "
		        "reset the GPUs or reboot",
		        "the GPU's NVLink fabric registration finished with an error: %s",
		        g->fabric_status_text ? g->fabric_status_text : "?");
		ids(f, a);
		ga_finding_evidence(f, "fabric_status", "%lld", (long long)g->fabric_status.v);
		return;
	}
	bool bad_summary = g->fabric_health_summary && strcmp(g->fabric_health_summary, "healthy") != 0;
	if (bad_summary || g->fabric_health_flags.n) {
		struct ga_buf b;
		ga_buf_init(&b, 256);
		for (size_t i = 0; i < g->fabric_health_flags.n; i++)
			(void)ga_buf_addf(&b, "%s%s", i ? " " : "", g->fabric_health_flags.v[i]);
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_FABRIC_DEGRADED, GA_SEV_WARNING, subj,
		        "the fabric works at reduced capacity: check the NVSwitch trays and NVLink cables "
		        "and the Fabric Manager log; drain before large all-reduce jobs",
		        "NVLink fabric health is %s%s%s",
		        g->fabric_health_summary ? g->fabric_health_summary : "reduced", b.len ? ": " : "",
		        b.len ? b.data : "");
		ids(f, a);
		if (g->fabric_health_summary)
			ga_finding_evidence(f, "health_summary", "%s", g->fabric_health_summary);
		if (b.len)
			ga_finding_evidence(f, "health_flags", "%s", b.data);
		if (g->fabric_health_mask.set)
			ga_finding_evidence(f, "health_mask", "0x%llx",
			                    (unsigned long long)g->fabric_health_mask.v);
		ga_buf_release(&b);
	}
}

/* How many other GPUs have link LINK present and active. */
static size_t peers_up(const struct ga_node *n, size_t self, uint64_t link)
{
	size_t up = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_nvml_gpu *g = n->accelerators[i].nvml;
		if (i == self || !g)
			continue;
		for (size_t k = 0; k < g->n_nvlinks; k++)
			if (g->nvlinks[k].link.set && g->nvlinks[k].link.v == link &&
			    g->nvlinks[k].active.set && g->nvlinks[k].active.v) {
				up++;
				break;
			}
	}
	return up;
}

static void link_down_findings(const struct ga_node *n, size_t idx, struct ga_findings *out)
{
	const struct ga_accel *a = &n->accelerators[idx];
	const struct ga_nvml_gpu *g = a->nvml;
	struct ga_buf b;
	ga_buf_init(&b, 512);
	size_t down = 0, active = 0, min_peers = (size_t)-1;
	for (size_t k = 0; k < g->n_nvlinks; k++) {
		const struct ga_nvml_link *l = &g->nvlinks[k];
		if (!l->link.set || !l->active.set)
			continue;
		if (l->active.v) {
			active++;
			continue;
		}
		size_t up = peers_up(n, idx, l->link.v);
		if (up == 0)
			continue; /* the same link is down everywhere: not wired on this system */
		if (up < min_peers)
			min_peers = up;
		(void)ga_buf_addf(&b, "%s%llu", down ? "," : "", (unsigned long long)l->link.v);
		down++;
	}
	if (down) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_NVLINK_DOWN, GA_SEV_ERROR, subject_of(a),
		        "drain the node and reset the GPU (or reboot); if the link stays down, have the "
		        "NVLink/NVSwitch path inspected",
		        "NVLink %s %s down while the same link is up on %zu other GPU%s", b.data,
		        down == 1 ? "is" : "are", min_peers, min_peers == 1 ? "" : "s");
		ids(f, a);
		ga_finding_evidence(f, "links_down", "%s", b.data);
		ga_finding_evidence(f, "links_active", "%zu of %zu", active, g->n_nvlinks);
	}
	ga_buf_release(&b);
}

/* An NVSwitch system whose Fabric Manager is not running: GPUs cannot (re)join the fabric. */
static void fabric_manager_finding(const struct ga_node *n, struct ga_findings *out)
{
	const struct ga_fabric_manager *fm = n->fabric_manager;
	if (!fm || !fm->running.set || fm->running.v)
		return;
	size_t gpus = 0, unready = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_nvml_gpu *g = n->accelerators[i].nvml;
		if (!g || !g->fabric_state)
			continue;
		gpus++;
		unready += strcmp(g->fabric_state, "completed") != 0 ||
		           (g->fabric_status.set && g->fabric_status.v);
	}
	struct ga_finding *f = ga_findings_add(
	        out, GA_C_FABRICMANAGER_DOWN, unready ? GA_SEV_ERROR : GA_SEV_WARNING, "nvidia-fabricmanager",
	        fm->unit_file ? "start it (systemctl enable --now nvidia-fabricmanager) and read "
	                        "/var/log/fabricmanager.log; its version must match the driver's"
	                      : "install nvidia-fabricmanager for this driver version and start it; an "
	                        "NVSwitch system needs it for its GPUs to join the fabric",
	        "NVIDIA Fabric Manager is %s on an NVSwitch system: %zu of %zu GPUs %s", fm_state(n),
	        unready ? unready : gpus, gpus,
	        unready ? "not registered with the fabric"
	                : "registered, but the fabric is unmanaged (GPU resets need it)");
	if (!f)
		return;
	ga_finding_evidence(f, "unit_file", "%s", fm->unit_file ? fm->unit_file : "none");
	if (fm->pid_file)
		ga_finding_evidence(f, "pid_file", "%s", fm->pid_file);
}

void ga_analyze_fabric(const struct ga_node *n, struct ga_findings *out)
{
	fabric_manager_finding(n, out);
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_nvml_gpu *g = n->accelerators[i].nvml;
		if (!g || g->error)
			continue;
		fabric_findings(n, &n->accelerators[i], g, out);
		link_down_findings(n, i, out);
	}
}

/* --- counters between collections --- */

static const char *gpu_key(const struct ga_accel *a)
{
	return a->nvml && a->nvml->uuid ? a->nvml->uuid : a->address;
}

void ga_nvlink_counters_release(struct ga_nvlink_counters *c)
{
	for (size_t i = 0; i < c->n; i++)
		ga_free(c->v[i].gpu);
	ga_free(c->v);
	memset(c, 0, sizeof(*c));
}

int ga_nvlink_counters_take(const struct ga_node *n, double at_s, struct ga_nvlink_counters *out)
{
	ga_nvlink_counters_release(out);
	out->taken = true;
	out->at_s = at_s;
	for (size_t i = 0; n && i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml || a->nvml->error || !gpu_key(a))
			continue;
		for (size_t k = 0; k < a->nvml->n_nvlinks; k++) {
			const struct ga_nvml_link *l = &a->nvml->nvlinks[k];
			if (!l->link.set)
				continue;
			struct ga_nvlink_sample *s = ga_array_push((void **)&out->v, &out->n, sizeof(*s));
			if (!s || !(s->gpu = ga_strdup(gpu_key(a)))) {
				ga_nvlink_counters_release(out);
				return -ENOMEM;
			}
			s->link = l->link.v;
			s->c[0] = l->replay_errors;
			s->c[1] = l->recovery_errors;
			s->c[2] = l->crc_flit_errors;
			s->c[3] = l->crc_data_errors;
		}
	}
	return 0;
}

static const struct ga_nvlink_sample *base_of(const struct ga_nvlink_counters *b, const char *gpu,
                                              uint64_t link)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].link == link && !strcmp(b->v[i].gpu, gpu))
			return &b->v[i];
	return NULL;
}

/* cur - base when both were read and the counter did not go back (a reset or driver reload). */
static uint64_t rise(struct ga_ou64 base, struct ga_ou64 cur)
{
	return base.set && cur.set && cur.v > base.v ? cur.v - base.v : 0;
}

int ga_nvlink_error_deltas(const struct ga_nvlink_counters *base, const struct ga_node *cur, double now_s,
                           struct ga_findings *out, bool *ret_rose)
{
	if (ret_rose)
		*ret_rose = false;
	if (!base || !base->taken || !cur)
		return 0;
	for (size_t i = 0; i < cur->n_accelerators; i++) {
		const struct ga_accel *a = &cur->accelerators[i];
		if (!a->nvml || a->nvml->error || !gpu_key(a))
			continue;
		for (size_t k = 0; k < a->nvml->n_nvlinks; k++) {
			const struct ga_nvml_link *l = &a->nvml->nvlinks[k];
			const struct ga_nvlink_sample *o =
			        l->link.set ? base_of(base, gpu_key(a), l->link.v) : NULL;
			if (!o)
				continue;
			uint64_t replay = rise(o->c[0], l->replay_errors),
			         recovery = rise(o->c[1], l->recovery_errors),
			         flit = rise(o->c[2], l->crc_flit_errors),
			         data = rise(o->c[3], l->crc_data_errors);
			if (!replay && !recovery && !flit && !data)
				continue;
			if (ret_rose)
				*ret_rose = true;
			if (!out)
				continue;
			/* recoveries take the link down for a moment: worse than replays */
			struct ga_finding *f = ga_findings_add(
			        out, GA_C_NVLINK_ERRORS_RISING, recovery ? GA_SEV_ERROR : GA_SEV_WARNING,
			        subject_of(a),
			        "the link is retrying and retraining now: drain the node and have the NVLink "
			        "path (GPU baseboard, NVSwitch tray, cables) inspected if it keeps rising",
			        "NVLink %llu error counters rose in the last %.0f s: %llu replay, %llu "
			        "recovery, "
			        "%llu CRC flit, %llu CRC data",
			        (unsigned long long)l->link.v, now_s - base->at_s, (unsigned long long)replay,
			        (unsigned long long)recovery, (unsigned long long)flit,
			        (unsigned long long)data);
			ids(f, a);
			ga_finding_evidence(f, "link", "%llu", (unsigned long long)l->link.v);
			ga_finding_evidence(f, "replay_delta", "%llu", (unsigned long long)replay);
			ga_finding_evidence(f, "recovery_delta", "%llu", (unsigned long long)recovery);
			ga_finding_evidence(f, "crc_flit_delta", "%llu", (unsigned long long)flit);
			ga_finding_evidence(f, "crc_data_delta", "%llu", (unsigned long long)data);
			ga_finding_evidence(f, "since_s", "%.0f", now_s - base->at_s);
		}
	}
	return out ? out->err : 0;
}

int ga_nvlink_watch(struct ga_nvlink_watch *w, const struct ga_node *cur, double now_s, double hold_s,
                    struct ga_findings *out)
{
	struct ga_nvlink_counters next = { 0 };
	int r = ga_nvlink_counters_take(cur, now_s, &next);
	if (r < 0)
		return r;
	bool rose = false;
	ga_nvlink_error_deltas(&w->prev, cur, now_s, NULL, &rose);
	if (rose)
		w->last_rise_s = now_s;
	/* quiet for hold_s (or the first reading): the baseline moves up and the finding clears */
	if (!w->base.taken || (!rose && now_s - w->last_rise_s >= hold_s)) {
		if ((r = ga_nvlink_counters_take(cur, now_s, &w->base)) < 0)
			goto out;
	}
	r = ga_nvlink_error_deltas(&w->base, cur, now_s, out, NULL);
out:
	ga_nvlink_counters_release(&w->prev);
	w->prev = next;
	return r;
}

void ga_nvlink_watch_release(struct ga_nvlink_watch *w)
{
	ga_nvlink_counters_release(&w->prev);
	ga_nvlink_counters_release(&w->base);
}

/* --- Xid sources --- */

int ga_xid_no_source_finding(const char *kmsg_why, const char *nvml_why, struct ga_findings *out)
{
	struct ga_finding *f = ga_findings_add(
	        out, GA_C_XID_NO_SOURCE, GA_SEV_WARNING, "node",
	        "Xid errors on this node go unseen: give the agent the kernel log (CAP_SYSLOG, or "
	        "kernel.dmesg_restrict=0, or mount /dev/kmsg) or turn on NVML events (--nvml-events)",
	        "no Xid source is live (kernel log: %s; NVML events: %s)", kmsg_why ? kmsg_why : "unreadable",
	        nvml_why ? nvml_why : "off");
	if (f) {
		ga_finding_evidence(f, "kmsg", "%s", kmsg_why ? kmsg_why : "unreadable");
		ga_finding_evidence(f, "nvml_events", "%s", nvml_why ? nvml_why : "off");
	}
	return f ? 0 : -ENOMEM;
}
