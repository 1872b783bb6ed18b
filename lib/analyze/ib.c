/*
 * analyze/ib.c - findings about the node's network and NVIDIA fabric: InfiniBand and RoCE
 * ports that are down, slower than their peers, counting link errors or flapping between
 * two collections; GPUDirect RDMA's nvidia_peermem missing where RDMA NICs and NVIDIA GPUs
 * meet. (The fabric manager is judged with NVML's fabric state, lib/analyze/nvlink.c.)
 *
 * Pure, like every analyzer: snapshots in, findings out. The flap check is the one that
 * needs two snapshots (serve keeps the previous one); docs/network.md explains each check
 * and its fix. Every code's action and cause class is in `codes[]` below, the one place a
 * remediator's mapping is read from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/network.h"

/* A finding with the catalogue's severity and fix for code (lib/core/codes.def). */
static struct ga_finding *add(struct ga_findings *out, enum ga_code code, const char *subject,
                              const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static struct ga_finding *add(struct ga_findings *out, enum ga_code code, const char *subject,
                              const char *fmt, ...)
{
	const struct ga_code_info *ci = ga_code_info(code);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ga_findings_add(out, code, ci ? (enum ga_severity)ci->severity : GA_SEV_WARNING, subject,
	                       ci ? ci->fix : NULL, "%s", msg);
}

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void port_subject(const struct ga_ib_port *p, char *out, size_t n)
{
	snprintf(out, n, "%s/%llu", p->device ? p->device : "?",
	         p->port.set ? (unsigned long long)p->port.v : 0ULL);
}

static void port_evidence(struct ga_finding *f, const struct ga_ib_port *p)
{
	if (!f)
		return;
	if (p->pci_address)
		ga_finding_evidence(f, "pci_address", "%s", p->pci_address);
	if (p->netdev)
		ga_finding_evidence(f, "netdev", "%s", p->netdev);
	if (p->numa_node.set)
		ga_finding_evidence(f, "numa_node", "%lld", (long long)p->numa_node.v);
	if (p->link_layer)
		ga_finding_evidence(f, "link_layer", "%s", p->link_layer);
}

static bool active(const struct ga_ib_port *p)
{
	return p->state_code.set && (p->state_code.v == 4 || p->state_code.v == 5);
}

/* --- one snapshot --- */

static void state_findings(const struct ga_ib_port *p, struct ga_findings *out)
{
	if (!p->state_code.set || active(p))
		return;
	char subj[96];
	port_subject(p, subj, sizeof(subj));
	const char *st = p->state ? p->state : "?", *ph = p->phys_state ? p->phys_state : "?";
	struct ga_finding *f;
	if (p->phys_state_code.set && p->phys_state_code.v == 3)
		f = add(out, GA_C_IB_PORT_DISABLED, subj, "%s port %s is disabled (state %s, phys_state %s)",
		        p->link_layer ? p->link_layer : "RDMA", subj, st, ph);
	else if (p->state_code.v == 2 || p->state_code.v == 3)
		f = add(out, GA_C_IB_PORT_INIT, subj,
		        "%s port %s is %s: the physical link is up (%s) but not activated",
		        p->link_layer ? p->link_layer : "RDMA", subj, st, ph);
	else
		f = add(out, GA_C_IB_PORT_DOWN, subj, "%s port %s is %s (phys_state %s)",
		        p->link_layer ? p->link_layer : "RDMA", subj, st, ph);
	if (f) {
		ga_finding_evidence(f, "state", "%s", st);
		ga_finding_evidence(f, "phys_state", "%s", ph);
	}
	port_evidence(f, p);
}

/*
 * Peers: the active ports of the same link layer and HCA type. The rate most of them run
 * at (held by more than half, at least 3 ports) is what each should run at; one below it
 * trained down. Two ports, or no majority, decide nothing: the policy's rate does.
 */
static void rate_findings(const struct ga_node *n, struct ga_findings *out)
{
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		const struct ga_ib_port *p = &n->ib_ports[i];
		if (!active(p) || !p->rate_mbps.set)
			continue;
		size_t peers = 0, same = 0;
		uint64_t best = 0;
		size_t best_count = 0;
		for (size_t j = 0; j < n->n_ib_ports; j++) {
			const struct ga_ib_port *q = &n->ib_ports[j];
			if (!active(q) || !q->rate_mbps.set || !streq(q->link_layer, p->link_layer) ||
			    (p->hca_type && !streq(q->hca_type, p->hca_type)))
				continue;
			peers++;
			same = 0;
			for (size_t k = 0; k < n->n_ib_ports; k++) {
				const struct ga_ib_port *r = &n->ib_ports[k];
				same += active(r) && r->rate_mbps.set && r->rate_mbps.v == q->rate_mbps.v &&
				        streq(r->link_layer, p->link_layer) &&
				        (!p->hca_type || streq(r->hca_type, p->hca_type));
			}
			if (same > best_count || (same == best_count && q->rate_mbps.v > best)) {
				best_count = same;
				best = q->rate_mbps.v;
			}
		}
		if (peers < 3 || best_count * 2 <= peers || p->rate_mbps.v >= best)
			continue;
		char subj[96];
		port_subject(p, subj, sizeof(subj));
		struct ga_finding *f = add(
		        out, GA_C_IB_PORT_SLOW, subj, "port %s runs at %s, %zu of its %zu peers at %llu Gb/s",
		        subj, p->rate ? p->rate : "?", best_count, peers, (unsigned long long)(best / 1000));
		if (f) {
			ga_finding_evidence(f, "rate_mbps", "%llu", (unsigned long long)p->rate_mbps.v);
			ga_finding_evidence(f, "peer_rate_mbps", "%llu", (unsigned long long)best);
			if (p->width.set)
				ga_finding_evidence(f, "width", "%llu", (unsigned long long)p->width.v);
		}
		port_evidence(f, p);
	}
}

/* The counters that mean a bad link; their names are the kernel's. */
static const struct {
	const char *name;
	size_t off;
} link_counters[] = {
	{ "link_downed", offsetof(struct ga_ib_port, link_downed) },
	{ "link_error_recovery", offsetof(struct ga_ib_port, link_error_recovery) },
	{ "symbol_error", offsetof(struct ga_ib_port, symbol_error) },
	{ "port_rcv_errors", offsetof(struct ga_ib_port, port_rcv_errors) },
	{ "port_rcv_remote_physical_errors", offsetof(struct ga_ib_port, port_rcv_remote_physical_errors) },
	{ "local_link_integrity_errors", offsetof(struct ga_ib_port, local_link_integrity_errors) },
	{ "excessive_buffer_overrun_errors", offsetof(struct ga_ib_port, excessive_buffer_overrun_errors) },
};

static const struct ga_ou64 *counter(const struct ga_ib_port *p, size_t i)
{
	return (const struct ga_ou64 *)((const char *)p + link_counters[i].off);
}

static void error_findings(const struct ga_ib_port *p, struct ga_findings *out)
{
	char list[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < GA_ARRAY_SIZE(link_counters); i++) {
		const struct ga_ou64 *c = counter(p, i);
		if (!c->set || !c->v)
			continue;
		int k = snprintf(list + len, sizeof(list) - len, "%s%s %llu", len ? ", " : "",
		                 link_counters[i].name, (unsigned long long)c->v);
		if (k > 0 && (size_t)k < sizeof(list) - len)
			len += (size_t)k;
	}
	if (!len)
		return;
	char subj[96];
	port_subject(p, subj, sizeof(subj));
	struct ga_finding *f =
	        add(out, GA_C_IB_LINK_ERRORS, subj, "port %s counted link errors: %s", subj, list);
	for (size_t i = 0; f && i < GA_ARRAY_SIZE(link_counters); i++) {
		const struct ga_ou64 *c = counter(p, i);
		if (c->set && c->v)
			ga_finding_evidence(f, link_counters[i].name, "%llu", (unsigned long long)c->v);
	}
	/* counts since the last clear are weak evidence on a long-running node; a link that went
	 * down at least once is worth a warning (serve's deltas say when it happens) */
	if (f && !(p->link_downed.set && p->link_downed.v))
		f->severity = GA_SEV_INFO;
	port_evidence(f, p);
}

static bool any_accel(const struct ga_node *n, const char *vendor)
{
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (streq(n->accelerators[i].vendor, vendor))
			return true;
	return false;
}

static bool nvidia_open(const struct ga_node *n)
{
	for (size_t i = 0; i < n->n_drivers; i++)
		if (streq(n->drivers[i].name, "nvidia") && streq(n->drivers[i].flavor, "open"))
			return true;
	return false;
}

static void peermem_findings(const struct ga_node *n, struct ga_findings *out)
{
	if (!n->n_ib_ports || !n->modules_source || !any_accel(n, "nvidia"))
		return;
	if (ga_strv_contains(&n->modules, "nvidia_peermem") || ga_strv_contains(&n->modules, "nv_peer_mem"))
		return;
	size_t act = 0;
	for (size_t i = 0; i < n->n_ib_ports; i++)
		act += active(&n->ib_ports[i]);
	struct ga_finding *f =
	        add(out, GA_C_IB_PEERMEM_MISSING, "nvidia_peermem",
	            "%zu RDMA port%s (%zu active) and NVIDIA GPUs, but neither nvidia_peermem "
	            "nor nv_peer_mem is loaded: no GPUDirect RDMA through peer memory%s",
	            n->n_ib_ports, n->n_ib_ports == 1 ? "" : "s", act,
	            nvidia_open(n) ? " (the open kernel modules can use DMA-BUF instead)" : "");
	bool ib = false; /* Ethernet-only RDMA devices (every mlx5 NIC has them) may not carry RoCE */
	for (size_t i = 0; i < n->n_ib_ports && !ib; i++)
		ib = active(&n->ib_ports[i]) && streq(n->ib_ports[i].link_layer, "InfiniBand");
	if (f) {
		if (nvidia_open(n) || !ib)
			f->severity = GA_SEV_INFO;
		ga_finding_evidence(f, "rdma_ports", "%zu", n->n_ib_ports);
	}
}

void ga_analyze_ib(const struct ga_node *n, struct ga_findings *out)
{
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		state_findings(&n->ib_ports[i], out);
		error_findings(&n->ib_ports[i], out);
	}
	rate_findings(n, out);
	peermem_findings(n, out);
	/* the fabric manager: lib/analyze/nvlink.c (GA-FABRICMANAGER-DOWN), from NVML's fabric state */
}

/* --- two snapshots --- */

static const struct ga_ib_port *find_port(const struct ga_node *n, const struct ga_ib_port *p)
{
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		const struct ga_ib_port *q = &n->ib_ports[i];
		if (streq(q->device, p->device) && q->port.set == p->port.set && q->port.v == p->port.v &&
		    (!p->node_guid || !q->node_guid || streq(p->node_guid, q->node_guid)))
			return q;
	}
	return NULL;
}

int ga_analyze_ib_delta(const struct ga_node *prev, const struct ga_node *cur, struct ga_findings *out)
{
	if (!prev || !cur)
		return out->err;
	for (size_t i = 0; i < cur->n_ib_ports; i++) {
		const struct ga_ib_port *p = &cur->ib_ports[i];
		const struct ga_ib_port *q = find_port(prev, p);
		if (!q)
			continue;
		char subj[96];
		port_subject(p, subj, sizeof(subj));
		/* a counter lower than before was cleared (perfquery -x -R, a driver reload): no delta */
		if (p->link_downed.set && q->link_downed.set && p->link_downed.v > q->link_downed.v) {
			uint64_t d = p->link_downed.v - q->link_downed.v;
			struct ga_finding *f = add(
			        out, GA_C_IB_LINK_FLAP, subj,
			        "port %s went down %llu time%s since the previous collection "
			        "(link_downed %llu -> %llu)",
			        subj, (unsigned long long)d, d == 1 ? "" : "s",
			        (unsigned long long)q->link_downed.v, (unsigned long long)p->link_downed.v);
			if (f) {
				ga_finding_evidence(f, "link_downed_delta", "%llu", (unsigned long long)d);
				ga_finding_evidence(f, "link_downed", "%llu",
				                    (unsigned long long)p->link_downed.v);
			}
			port_evidence(f, p);
		}
		char list[512] = "";
		size_t len = 0;
		for (size_t k = 1; k < GA_ARRAY_SIZE(link_counters); k++) { /* 0 is link_downed */
			const struct ga_ou64 *a = counter(q, k), *b = counter(p, k);
			if (!a->set || !b->set || b->v <= a->v)
				continue;
			int w = snprintf(list + len, sizeof(list) - len, "%s%s +%llu", len ? ", " : "",
			                 link_counters[k].name, (unsigned long long)(b->v - a->v));
			if (w > 0 && (size_t)w < sizeof(list) - len)
				len += (size_t)w;
		}
		if (len) {
			struct ga_finding *f = add(
			        out, GA_C_IB_ERRORS_RISING, subj,
			        "port %s error counters rose since the previous collection: %s", subj, list);
			port_evidence(f, p);
		}
	}
	return out->err;
}

/* --- AMD XGMI --- */

static size_t zero_links(const struct ga_amd_xgmi *x)
{
	size_t z = 0;
	for (size_t i = 0; i < x->num_links.n; i++)
		z += !strcmp(x->num_links.v[i], "00") || !strcmp(x->num_links.v[i], "0");
	return z;
}

static bool in_hive(const struct ga_amd_xgmi *x)
{
	return x->hive_id && strcmp(x->hive_id, "0") != 0;
}

static const struct ga_amd_xgmi *xgmi_of(const struct ga_accel *a)
{
	return a->amd ? a->amd->xgmi : NULL;
}

/*
 * A hive is split when a GPU that speaks XGMI is in no hive while others are, when the
 * members of one hive disagree on its size or count fewer members than GPUs claim it, or
 * when the node's hives differ in size (8 = 4 + 4 is a design, 7 + 1 is a failure).
 */
static void hive_findings(const struct ga_node *n, struct ga_findings *out)
{
	size_t lonely = 0, with = 0, first_size = 0;
	const char *lonely_at = NULL;
	bool split = false, sizes_differ = false;
	char why[256] = "";
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_amd_xgmi *x = xgmi_of(&n->accelerators[i]);
		if (!x)
			continue;
		if (!in_hive(x)) {
			lonely++;
			lonely_at = lonely_at ? lonely_at : n->accelerators[i].address;
			continue;
		}
		with++;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			const struct ga_amd_xgmi *y = xgmi_of(&n->accelerators[j]);
			seen = y && in_hive(y) && !strcmp(y->hive_id, x->hive_id);
		}
		if (seen)
			continue;
		size_t k = 0;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (size_t j = i; j < n->n_accelerators; j++) {
			const struct ga_amd_xgmi *y = xgmi_of(&n->accelerators[j]);
			if (!y || !in_hive(y) || strcmp(y->hive_id, x->hive_id) != 0)
				continue;
			k++;
			if (y->hive_members.set) {
				lo = y->hive_members.v < lo ? y->hive_members.v : lo;
				hi = y->hive_members.v > hi ? y->hive_members.v : hi;
			}
		}
		if (hi && (lo != hi || hi < k) && !split) {
			split = true;
			snprintf(why, sizeof(why),
			         "hive %s: %zu GPUs claim it, its members list %llu to %llu", x->hive_id, k,
			         (unsigned long long)lo, (unsigned long long)hi);
		}
		if (!first_size)
			first_size = k;
		else if (k != first_size)
			sizes_differ = true;
	}
	if (lonely && with && !split) {
		split = true;
		snprintf(why, sizeof(why), "%zu XGMI GPU%s in no hive (first %s) while %zu are", lonely,
		         lonely == 1 ? "" : "s", lonely_at ? lonely_at : "?", with);
	}
	if (sizes_differ && !split) {
		split = true;
		snprintf(why, sizeof(why), "the node's XGMI hives differ in size");
	}
	if (!split)
		return;
	struct ga_finding *f = add(out, GA_C_XGMI_HIVE_SPLIT, "xgmi", "XGMI hive split: %s", why);
	if (f)
		ga_finding_evidence(f, "gpus_in_hives", "%zu", with);
}

static void xgmi_link_findings(const struct ga_node *n, struct ga_findings *out)
{
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		const struct ga_amd_xgmi *x = xgmi_of(a);
		if (!x)
			continue;
		if (x->error_count.set && x->error_count.v) {
			struct ga_finding *f =
			        add(out, GA_C_XGMI_ERRORS, a->address ? a->address : "?",
			            "xgmi_error reports %llu XGMI link error%s since the previous read",
			            (unsigned long long)x->error_count.v, x->error_count.v == 1 ? "" : "s");
			if (f)
				ga_finding_evidence(f, "xgmi_error", "%llu",
				                    (unsigned long long)x->error_count.v);
		}
		if (!in_hive(x) || !x->num_links.n)
			continue;
		size_t mine = zero_links(x), least = mine;
		for (size_t j = 0; j < n->n_accelerators; j++) {
			const struct ga_amd_xgmi *y = xgmi_of(&n->accelerators[j]);
			if (y && j != i && in_hive(y) && !strcmp(y->hive_id, x->hive_id) &&
			    y->num_links.n == x->num_links.n && zero_links(y) < least)
				least = zero_links(y);
		}
		if (mine > least) {
			struct ga_finding *f =
			        add(out, GA_C_XGMI_LINK_MISSING, a->address ? a->address : "?",
			            "no XGMI link to %zu hive peer%s that the other GPUs reach", mine - least,
			            mine - least == 1 ? "" : "s");
			if (f)
				ga_finding_evidence(f, "peers_without_link", "%zu", mine - least);
		}
	}
}

void ga_analyze_xgmi(const struct ga_node *n, struct ga_findings *out)
{
	hive_findings(n, out);
	xgmi_link_findings(n, out);
}
