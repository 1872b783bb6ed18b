/*
 * emit/topology.c - the topology matrix as text (topotext.h), laid out like
 * `nvidia-smi topo -m`: a row per accelerator and NIC, a column per device, then each
 * row's CPU and NUMA affinity; the NICs' names, what could not be told, and the legend.
 */
#include <errno.h>
#include <string.h>

#include "gpuaudit/text.h"
#include "gpuaudit/topology.h"
#include "gpuaudit/topotext.h"

static size_t n_accels(const struct ga_topology *t)
{
	size_t na = t->accelerators.set ? (size_t)t->accelerators.v : 0;
	return na < t->n_devices ? na : t->n_devices;
}

bool ga_topology_shown(const struct ga_topology *t)
{
	size_t na = n_accels(t);
	return na >= 2 || (na == 1 && t->n_devices > 1);
}

static int esc(struct ga_buf *b, const char *s)
{
	return ga_text_escape_buf(b, s, strlen(s), 0);
}

/* s escaped, then spaces to width (at least one). */
static int cell(struct ga_buf *b, const char *s, size_t width)
{
	size_t before = b->len;
	int r = esc(b, s);
	size_t k = b->len - before;
	do
		r = r ? r : ga_buf_addc(b, ' ');
	while (r == 0 && ++k < width);
	return r;
}

static const char *const legend[] = {
	"X       = self",
	"SYS     = across NUMA nodes: PCIe and the interconnect between them (QPI/UPI, Infinity Fabric)",
	"NODE    = across PCIe host bridges within one NUMA node",
	"PHB     = through one PCIe host bridge (the root complex)",
	"PXB     = through several PCIe bridges, not the host bridge",
	"PIX     = through at most one PCIe bridge (one switch, or a root port)",
	"NV#     = NVLink: # links (NVML)",
	"XGMI    = AMD XGMI: both GPUs in one hive (amdgpu sysfs)",
	"unknown = sysfs cannot tell (no PCI function, or no NUMA node for a path across host bridges)",
};

int ga_topology_text(struct ga_buf *b, const struct ga_topology *t)
{
	if (!ga_topology_shown(t))
		return 0;
	const size_t w = 9;
	size_t aw = strlen("CPU Affinity");
	for (size_t i = 0; i < t->n_devices; i++)
		if (t->devices[i].cpu_affinity && strlen(t->devices[i].cpu_affinity) > aw)
			aw = strlen(t->devices[i].cpu_affinity);
	int r = ga_buf_adds(b, "topology (PCI tree in sysfs):\n        ");
	for (size_t j = 0; r == 0 && j < t->n_devices; j++)
		r = cell(b, t->devices[j].name, w);
	if (r == 0)
		r = cell(b, "CPU Affinity", aw + 2);
	if (r == 0)
		r = ga_buf_adds(b, "NUMA Affinity\n");
	for (size_t i = 0; r == 0 && i < t->n_devices; i++) {
		const struct ga_topo_device *d = &t->devices[i];
		r = ga_buf_adds(b, "  ");
		if (r == 0)
			r = cell(b, d->name, 6);
		for (size_t j = 0; r == 0 && j < t->n_devices; j++)
			r = cell(b, j < d->paths.n ? d->paths.v[j] : "unknown", w);
		if (r == 0)
			r = cell(b, d->cpu_affinity && *d->cpu_affinity ? d->cpu_affinity : "unknown",
			         aw + 2);
		if (r == 0 && d->numa_node.set)
			r = ga_buf_addf(b, "%lld\n", (long long)d->numa_node.v);
		else if (r == 0)
			r = ga_buf_adds(b, "unknown\n");
	}
	for (size_t i = 0; r == 0 && i < t->n_devices; i++) {
		const struct ga_topo_device *d = &t->devices[i];
		if (d->kind && !strcmp(d->kind, "nic")) {
			r = ga_buf_addf(b, "  %s:", d->name);
			for (size_t k = 0; r == 0 && k < d->net_devices.n; k++)
				if ((r = ga_buf_addc(b, ' ')) == 0)
					r = esc(b, d->net_devices.v[k]);
			if (r == 0 && d->pci_address && (r = ga_buf_adds(b, " (")) == 0 &&
			    (r = esc(b, d->pci_address)) == 0)
				r = ga_buf_addc(b, ')');
			if (r == 0)
				r = ga_buf_addc(b, '\n');
		}
	}
	bool nv_unread = false;
	for (size_t i = 0; r == 0 && i < t->n_devices; i++) {
		const struct ga_topo_device *d = &t->devices[i];
		if (d->vendor && !strcmp(d->vendor, "nvidia") && !d->links_from)
			nv_unread = true;
		if (d->numa_note && (r = ga_buf_addf(b, "  %s: ", d->name)) == 0 &&
		    (r = esc(b, d->numa_note)) == 0)
			r = ga_buf_addc(b, '\n');
	}
	if (r == 0 && nv_unread && n_accels(t) >= 2)
		r = ga_buf_adds(
		        b, "  NVLink not read (NVML not loaded: --vendor): GPU pairs show their PCIe path\n");
	if (r == 0)
		r = ga_buf_adds(b, "  legend:\n");
	for (size_t k = 0; r == 0 && k < sizeof(legend) / sizeof(legend[0]); k++)
		r = ga_buf_addf(b, "    %s\n", legend[k]);
	return r;
}
