/*
 * topology.c - the topology matrix of a node's accelerators and NICs (topomatrix.h), for
 * every vendor, from what the snapshot holds of the PCI tree in sysfs: each function's
 * sysfs path (sys/devices/pciDDDD:BB/<root port>/.../<bdf>) gives its host bridge and the
 * bridges above it (struct ga_pci_dev.upstream, nearest first), its numa_node and
 * local_cpulist its locality. The path names are those of `nvidia-smi topo -m` (NVML's
 * nvmlGpuTopologyLevel_t: internal, single, multiple, host bridge, node, system):
 *
 *   PIX   the lowest bridge both sit under is at most one bridge above each of them: one
 *         PCIe switch (its upstream port and one downstream port a side) or a root port
 *   PXB   a common bridge further up: several switches, the host bridge not crossed
 *   PHB   no common bridge, the same host bridge (root complex)
 *   NODE  different host bridges, one NUMA node
 *   SYS   different host bridges on different NUMA nodes
 *
 * Pure: the snapshot in, the matrix out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/topomatrix.h"

struct dev {
	const struct ga_accel *a;    /* NULL for a NIC */
	const struct ga_pci_dev *pd; /* NULL when the snapshot has no PCI function for it */
	bool ancestry;               /* host_bridge and bridges are known */
	bool numa_known;
	int64_t numa;
};

static bool nv_known(const struct ga_accel *a)
{
	return a && a->nvml && !a->nvml->error;
}

/* "0000:07:00.0" -> "0000:07" (its bus): the root bus of a host bridge when it is a root port. */
static char *bus_of(const char *addr)
{
	const char *c = addr ? strchr(addr, ':') : NULL;
	c = c ? strchr(c + 1, ':') : NULL;
	return c ? ga_strndup(addr, (size_t)(c - addr)) : NULL;
}

/* The NV<n> cell of a pair of NVIDIA GPUs (as NVML's own topology names it), or 0. */
static unsigned nvlinks_between(const struct ga_accel *x, const struct ga_accel *y)
{
	const struct ga_nvml_gpu *a = x->nvml, *b = y->nvml;
	unsigned direct = 0, sw_a = 0, sw_b = 0;
	for (size_t k = 0; k < a->n_nvlinks; k++) {
		const struct ga_nvml_link *l = &a->nvlinks[k];
		if (!l->active.set || !l->active.v)
			continue;
		if (l->remote_bus_id && b->pci_bus_id && !strcmp(l->remote_bus_id, b->pci_bus_id))
			direct++;
		if (l->remote_type && !strcmp(l->remote_type, "switch"))
			sw_a++;
	}
	for (size_t k = 0; k < b->n_nvlinks; k++)
		if (b->nvlinks[k].active.set && b->nvlinks[k].active.v && b->nvlinks[k].remote_type &&
		    !strcmp(b->nvlinks[k].remote_type, "switch"))
			sw_b++;
	return direct ? direct : (sw_a && sw_b ? (sw_a < sw_b ? sw_a : sw_b) : 0);
}

static bool in_hive(const struct ga_accel *a)
{
	return a && a->amd && a->amd->xgmi && a->amd->xgmi->hive_id && *a->amd->xgmi->hive_id &&
	       strcmp(a->amd->xgmi->hive_id, "0") != 0;
}

/* A GPU-to-GPU link between x and y (NV<n>, XGMI) into cell; false when none is seen. */
static bool link_cell(const struct dev *x, const struct dev *y, char *cell, size_t len)
{
	if (!x->a || !y->a)
		return false;
	if (nv_known(x->a) && nv_known(y->a)) {
		const struct ga_nvml_gpu *a = x->a->nvml, *b = y->a->nvml;
		if (b->index.set && b->index.v < a->topology.n) {
			const char *s = a->topology.v[b->index.v];
			if (s && !strncmp(s, "NV", 2) && s[2] >= '0' && s[2] <= '9') {
				snprintf(cell, len, "%s", s);
				return true;
			}
		}
		unsigned nv = nvlinks_between(x->a, y->a);
		if (nv) {
			snprintf(cell, len, "NV%u", nv);
			return true;
		}
	}
	if (in_hive(x->a) && in_hive(y->a) && !strcmp(x->a->amd->xgmi->hive_id, y->a->amd->xgmi->hive_id)) {
		snprintf(cell, len, "%s", GA_TOPO_XGMI);
		return true;
	}
	return false;
}

/* The PCIe path between two devices of the matrix (their JSON rows hold the ancestry). */
static const char *pcie_cell(const struct dev *x, const struct ga_topo_device *tx, const struct dev *y,
                             const struct ga_topo_device *ty)
{
	if (!x->ancestry || !y->ancestry)
		return GA_TOPO_UNKNOWN;
	if (!strcmp(tx->host_bridge, ty->host_bridge)) {
		size_t k = 0;
		while (k < tx->bridges.n && k < ty->bridges.n && !strcmp(tx->bridges.v[k], ty->bridges.v[k]))
			k++;
		if (!k)
			return GA_TOPO_PHB;
		return tx->bridges.n - k <= 1 && ty->bridges.n - k <= 1 ? GA_TOPO_PIX : GA_TOPO_PXB;
	}
	if (!x->numa_known || !y->numa_known)
		return GA_TOPO_UNKNOWN;
	return x->numa == y->numa ? GA_TOPO_NODE : GA_TOPO_SYS;
}

/* The NUMA node of d as sysfs gives it, and a note when it is not plainly read. */
static int locality(const struct ga_node *n, struct dev *d, struct ga_topo_device *t)
{
	struct ga_oi64 v = d->pd ? d->pd->numa_node : (struct ga_oi64){ 0 };
	if (!v.set && d->a)
		v = d->a->numa_node;
	const char *note = NULL;
	if (v.set && v.v >= 0) {
		d->numa_known = true;
		d->numa = v.v;
	} else if (v.set && n->cpu.n_numa_nodes == 1 && n->cpu.numa_nodes[0].id.set) {
		d->numa_known = true;
		d->numa = (int64_t)n->cpu.numa_nodes[0].id.v;
		note = "numa_node -1 (no locality from the firmware); the machine has one NUMA node";
	} else if (v.set) {
		note = "numa_node -1: the firmware gives this device no NUMA locality (no ACPI _PXM), so "
		       "paths to other host bridges are unknown";
	} else {
		note = d->pd ? "numa_node not read" : "no PCI function in the snapshot";
	}
	if (d->numa_known)
		GA_SET(t->numa_node, d->numa);
	if (note && !(t->numa_note = ga_strdup(note)))
		return -ENOMEM;
	if (d->pd && d->pd->local_cpulist && !(t->cpu_affinity = ga_strdup(d->pd->local_cpulist)))
		return -ENOMEM;
	return 0;
}

static int ancestry(struct dev *d, struct ga_topo_device *t)
{
	const struct ga_pci_dev *pd = d->pd;
	/* device_id is read right after the sysfs path resolved: without it there is no path */
	if (!pd || !pd->address || !pd->device_id.set)
		return 0;
	const char *top = pd->n_upstream ? pd->upstream[pd->n_upstream - 1].address : pd->address;
	if (!(t->host_bridge = bus_of(top)))
		return top && strchr(top, ':') ? -ENOMEM : 0;
	for (size_t k = pd->n_upstream; k-- > 0;)
		if (!pd->upstream[k].address || ga_strv_push(&t->bridges, pd->upstream[k].address) < 0)
			return pd->upstream[k].address ? -ENOMEM : 0;
	d->ancestry = true;
	return 0;
}

static int add_device(const struct ga_node *n, struct ga_topology *t, struct dev *devs, struct dev d,
                      const char *kind, const char *name)
{
	struct ga_topo_device *td = ga_array_push((void **)&t->devices, &t->n_devices, sizeof(*td));
	if (!td)
		return -ENOMEM;
	const char *addr = d.a ? d.a->address : d.pd->address;
	const char *model = d.a ? d.a->model : d.pd->device_name;
	if (!(td->name = ga_strdup(name)) || !(td->kind = ga_strdup(kind)) ||
	    (addr && !(td->pci_address = ga_strdup(addr))) ||
	    (d.a && d.a->vendor && !(td->vendor = ga_strdup(d.a->vendor))) ||
	    (model && *model && !(td->model = ga_strdup(model))))
		return -ENOMEM;
	for (size_t k = 0; !d.a && k < d.pd->rdma_devices.n; k++)
		if (ga_strv_push(&td->net_devices, d.pd->rdma_devices.v[k]) < 0)
			return -ENOMEM;
	for (size_t k = 0; !d.a && k < d.pd->net_interfaces.n; k++)
		if (ga_strv_push(&td->net_devices, d.pd->net_interfaces.v[k]) < 0)
			return -ENOMEM;
	/* links read: NVML with its NVLinks (or none expected), amdgpu's xgmi files (a hive, or
	 * no XGMI link KFD knows of) */
	const char *lf = nv_known(d.a) && (d.a->nvml->n_nvlinks || !d.a->interconnect.n) ? "nvml"
	                 : d.a && d.a->amd && (in_hive(d.a) || !d.a->interconnect.n)     ? "amdgpu"
	                                                                                 : NULL;
	if (lf && !(td->links_from = ga_strdup(lf)))
		return -ENOMEM;
	int r = ancestry(&d, td);
	if (r == 0)
		r = locality(n, &d, td);
	devs[t->n_devices - 1] = d;
	return r;
}

static bool is_nic(const struct ga_pci_dev *pd)
{
	return pd->kind && !strcmp(pd->kind, "nic") && (pd->net_interfaces.n || pd->rdma_devices.n);
}

int ga_topology_build(const struct ga_node *n, struct ga_topology *t)
{
	*t = (struct ga_topology){ 0 };
	size_t cap = n->n_accelerators;
	for (size_t i = 0; i < n->n_pci; i++)
		cap += is_nic(&n->pci[i]);
	struct dev *devs = cap ? ga_calloc(cap, sizeof(*devs)) : NULL;
	int r = cap && !devs ? -ENOMEM : 0;
	char name[32];
	for (size_t i = 0; r == 0 && i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		snprintf(name, sizeof(name), "GPU%llu", (unsigned long long)(a->index.set ? a->index.v : i));
		r = add_device(n, t, devs, (struct dev){ .a = a, .pd = ga_node_pci_find(n, a->address) },
		               "accelerator", name);
	}
	GA_SET(t->accelerators, t->n_devices);
	size_t nics = 0;
	for (size_t i = 0; r == 0 && i < n->n_pci; i++) {
		if (!is_nic(&n->pci[i]))
			continue;
		snprintf(name, sizeof(name), "NIC%zu", nics++);
		r = add_device(n, t, devs, (struct dev){ .pd = &n->pci[i] }, "nic", name);
	}
	for (size_t i = 0; r == 0 && i < t->n_devices; i++) {
		struct ga_topo_device *ti = &t->devices[i];
		for (size_t j = 0; r == 0 && j < t->n_devices; j++) {
			char cell[24];
			if (i == j)
				snprintf(cell, sizeof(cell), "%s", GA_TOPO_SELF);
			else if (!link_cell(&devs[i], &devs[j], cell, sizeof(cell)))
				snprintf(cell, sizeof(cell), "%s",
				         pcie_cell(&devs[i], ti, &devs[j], &t->devices[j]));
			/* sysfs cannot tell: NVML's own PCIe letter, when it gave one */
			if (!strcmp(cell, GA_TOPO_UNKNOWN) && nv_known(devs[i].a) && nv_known(devs[j].a) &&
			    devs[j].a->nvml->index.set &&
			    devs[j].a->nvml->index.v < devs[i].a->nvml->topology.n) {
				const char *s = devs[i].a->nvml->topology.v[devs[j].a->nvml->index.v];
				if (s && strcmp(s, "?") != 0) {
					snprintf(cell, sizeof(cell), "%s", s);
				}
			}
			if (ga_strv_push(&ti->paths, cell) < 0)
				r = -ENOMEM;
		}
	}
	ga_free(devs);
	if (r < 0)
		ga_topology_release(t);
	return r;
}

/* --- findings ------------------------------------------------------------------------------ */

/* The catalogue's fix text of code (lib/core/codes.def). */
static const char *fix(enum ga_code code)
{
	const struct ga_code_info *ci = ga_code_info(code);
	return ci ? ci->fix : NULL;
}

static const char *nic_label(const struct ga_topo_device *d)
{
	return d->net_devices.n ? d->net_devices.v[0] : d->pci_address ? d->pci_address : d->name;
}

static void numa_text(char *out, size_t len, const struct ga_topo_device *d)
{
	if (d->numa_node.set)
		snprintf(out, len, "%lld", (long long)d->numa_node.v);
	else
		snprintf(out, len, "unknown");
}

int ga_topology_findings(const struct ga_topology *t, struct ga_findings *out)
{
	size_t na = t->accelerators.set ? (size_t)t->accelerators.v : 0;
	if (na > t->n_devices)
		na = t->n_devices;
	/* each GPU against every NIC: all of them SYS (none unknown) */
	for (size_t i = 0; i < na && t->n_devices > na; i++) {
		const struct ga_topo_device *g = &t->devices[i];
		bool all_sys = g->paths.n == t->n_devices;
		for (size_t j = na; all_sys && j < t->n_devices; j++)
			all_sys = !strcmp(g->paths.v[j], GA_TOPO_SYS);
		if (!all_sys)
			continue;
		const struct ga_topo_device *nic = &t->devices[na];
		char gn[24], nn[24];
		numa_text(gn, sizeof(gn), g);
		numa_text(nn, sizeof(nn), nic);
		struct ga_finding *fd = ga_findings_add(
		        out, GA_C_TOPO_NIC_REMOTE, GA_SEV_WARNING, g->pci_address ? g->pci_address : g->name,
		        fix(GA_C_TOPO_NIC_REMOTE),
		        "%s (NUMA node %s) has no NIC on its NUMA node: every NIC is across NUMA nodes "
		        "(SYS), %s %s on NUMA node %s among them",
		        g->name, gn, nic->name, nic_label(nic), nn);
		if (fd && (ga_finding_evidence(fd, "gpu", "%s", g->name + 3) < 0 ||
		           ga_finding_evidence(fd, "gpu_numa_node", "%s", gn) < 0 ||
		           ga_finding_evidence(fd, "nics", "%zu", t->n_devices - na) < 0))
			return -ENOMEM;
	}
	/* GPU pairs whose only path is SYS, with no GPU-to-GPU link seen: cells from sysfs only
	 * mean no link where the link state was read (NVML for NVIDIA, amdgpu's xgmi for AMD) */
	char pairs[400] = "";
	size_t n_pairs = 0, used = 0;
	for (size_t i = 0; i < na; i++) {
		const struct ga_topo_device *g = &t->devices[i];
		for (size_t j = i + 1; j < na && j < g->paths.n; j++) {
			if (strcmp(g->paths.v[j], GA_TOPO_SYS) || !g->links_from || !t->devices[j].links_from)
				continue;
			n_pairs++;
			if (n_pairs <= 8 && used < sizeof(pairs)) {
				int w = snprintf(pairs + used, sizeof(pairs) - used, "%s%s-%s",
				                 used ? ", " : "", g->name, t->devices[j].name);
				used += w > 0 ? (size_t)w : 0;
			}
		}
	}
	if (n_pairs) {
		struct ga_finding *fd = ga_findings_add(
		        out, GA_C_TOPO_GPU_SYS_ONLY, GA_SEV_WARNING, "node", fix(GA_C_TOPO_GPU_SYS_ONLY),
		        "%zu GPU pair%s meet only across NUMA nodes (SYS) with no NVLink or "
		        "XGMI: %s%s; their peer traffic crosses the socket interconnect (NCCL uses P2P "
		        "there only with NCCL_P2P_LEVEL=SYS, else it goes through host memory)",
		        n_pairs, n_pairs == 1 ? "" : "s", pairs, n_pairs > 8 ? ", ..." : "");
		if (fd && ga_finding_evidence(fd, "pairs", "%zu", n_pairs) < 0)
			return -ENOMEM;
	}
	return out->err;
}
