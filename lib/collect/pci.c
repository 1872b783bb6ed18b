/*
 * pci.c - the PCI functions that matter to an accelerator node (GPUs and
 * other accelerators, NVSwitches, NICs, NVMe, display), with ids, names from
 * pci.ids (through libpci), driver, NUMA, IOMMU group and PCIe links, and the
 * chain of bridges up to the root port so a degraded link is found wherever
 * it sits.
 */
#include <errno.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

#define SYS_PCI "sys/bus/pci/devices"

/* --- names through libpci ------------------------------------------------- */

static jmp_buf pci_jmp;
static bool pci_jmp_armed;

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

static void pci_fatal(char *msg, ...) __attribute__((noreturn));

static void pci_fatal(char *msg, ...)
{
	(void)msg;
	if (pci_jmp_armed)
		longjmp(pci_jmp, 1);
	abort();
}

struct names {
	struct pci_access *pa;
	int flags;
};

static void names_open(struct ga_col *c, struct names *nm)
{
	nm->pa = pci_alloc();
	if (!nm->pa)
		return;
	nm->pa->id_lookup_mode = PCI_LOOKUP_NO_HWDB;
	nm->pa->error = pci_fatal;
	nm->pa->warning = pci_quiet;
	nm->pa->debug = pci_quiet;
	/*
	 * Names come from pci.ids only: libpci's udev-hwdb path leaks memory on every
	 * collection when the system has no hwdb.bin (seen here with libpci 3.9), which a
	 * long-running exporter cannot afford. A pci.ids named by the caller replaces the
	 * system's, so test results do not depend on the host.
	 */
	nm->flags = PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
	if (c->ctx->pci_ids)
		pci_set_name_list_path(nm->pa, c->ctx->pci_ids, 0);
}

static char *names_lookup(struct ga_col *c, struct names *nm, int flags, unsigned vendor, unsigned device)
{
	if (!nm->pa)
		return NULL;
	char buf[256];
	/* volatile: assigned between setjmp and a possible longjmp from pci_fatal */
	char *volatile r = NULL;
	pci_jmp_armed = true;
	if (setjmp(pci_jmp) == 0)
		r = pci_lookup_name(nm->pa, buf, (int)sizeof(buf), flags | nm->flags, vendor, device);
	pci_jmp_armed = false;
	if (!r)
		return NULL;
	char *s = ga_strdup(r);
	ga_col_ok(c, s);
	return s;
}

static void names_close(struct names *nm)
{
	if (nm->pa)
		pci_cleanup(nm->pa);
}

/* --- classification ------------------------------------------------------- */

static bool is_gpu_vendor(uint64_t vendor)
{
	return vendor == 0x10de || vendor == 0x1002 || vendor == 0x8086 || vendor == 0x1da3;
}

static const char *classify(uint64_t vendor, uint64_t cls)
{
	uint64_t base = cls >> 16, sub = (cls >> 8) & 0xff;
	if (base == 0x12 || (base == 0x0b && sub == 0x40))
		return "accelerator";
	if (base == 0x03)
		return is_gpu_vendor(vendor) ? "accelerator" : "display";
	if (vendor == 0x10de && base == 0x06 && sub == 0x80)
		return "nvswitch";
	if (base == 0x02)
		return "nic";
	if ((cls >> 8) == 0x0108)
		return "nvme";
	return NULL;
}

/* --- links ---------------------------------------------------------------- */

static void read_link(struct ga_col *c, const char *dir, struct ga_link *l)
{
	char *s = NULL;
	double g;
	if (ga_col_attr(c, GA_COL_OPT, &s, "%s/current_link_speed", dir) == 0 &&
	    (g = ga_pcie_speed_parse(s)) > 0)
		GA_SET(l->cur_speed_gts, g);
	ga_free(s);
	s = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &s, "%s/max_link_speed", dir) == 0 && (g = ga_pcie_speed_parse(s)) > 0)
		GA_SET(l->max_speed_gts, g);
	ga_free(s);
	ga_col_attr_u64(c, GA_COL_OPT, &l->cur_width, "%s/current_link_width", dir);
	ga_col_attr_u64(c, GA_COL_OPT, &l->max_width, "%s/max_link_width", dir);
	/* A dead device reads LnkSta as all ones: width 63 is not a width. */
	if (l->cur_width.set && (l->cur_width.v == 0 || l->cur_width.v > 32))
		l->cur_width.set = false;
}

static bool is_bdf(const char *s)
{
	unsigned d, b, dev, f;
	char tail;
	return sscanf(s, "%x:%2x:%2x.%1x%c", &d, &b, &dev, &f, &tail) == 4 && strlen(s) >= 12;
}

static void upstream(struct ga_col *c, struct ga_pci_dev *pd, const char *physical)
{
	/* physical: sys/devices/pci0000:00/0000:00:01.1/0000:02:00.0/0000:07:00.0 */
	char *path = ga_strdup(physical);
	if (!ga_col_ok(c, path))
		return;
	char *slash;
	while ((slash = strrchr(path, '/')) != NULL) {
		*slash = '\0';
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (!is_bdf(base))
			break;
		struct ga_pci_hop *h = ga_array_push((void **)&pd->upstream, &pd->n_upstream, sizeof(*h));
		if (!ga_col_ok(c, h))
			break;
		h->address = ga_strdup(base);
		ga_col_ok(c, h->address);
		struct ga_ou64 v = { 0 }, d = { 0 };
		ga_col_attr_u64(c, GA_COL_OPT, &v, "%s/vendor", path);
		ga_col_attr_u64(c, GA_COL_OPT, &d, "%s/device", path);
		if (v.set && d.set) {
			char id[16];
			snprintf(id, sizeof(id), "%04llx:%04llx", (unsigned long long)v.v,
			         (unsigned long long)d.v);
			h->id = ga_strdup(id);
			ga_col_ok(c, h->id);
		}
		read_link(c, path, &h->link);
	}
	ga_free(path);

	/* Slowest current link on the path, and the least any link could train at. */
	struct ga_pci_link_view links[40];
	size_t nl = ga_pci_path_links(pd, links, GA_ARRAY_SIZE(links));
	for (size_t i = 0; i < nl; i++) {
		const struct ga_link *l = links[i].lo;
		if (l->cur_width.set && (!pd->path_min_width.set || l->cur_width.v < pd->path_min_width.v)) {
			GA_SET(pd->path_min_width, l->cur_width.v);
			ga_free(pd->path_min_at);
			pd->path_min_at = ga_strdup(links[i].at);
			ga_col_ok(c, pd->path_min_at);
		}
		if (l->cur_speed_gts.set &&
		    (!pd->path_min_speed_gts.set || l->cur_speed_gts.v < pd->path_min_speed_gts.v))
			GA_SET(pd->path_min_speed_gts, l->cur_speed_gts.v);
		if (links[i].cap_width &&
		    (!pd->path_capable_width.set || links[i].cap_width < pd->path_capable_width.v))
			GA_SET(pd->path_capable_width, links[i].cap_width);
		if (links[i].cap_speed_gts > 0 && (!pd->path_capable_speed_gts.set ||
		                                   links[i].cap_speed_gts < pd->path_capable_speed_gts.v))
			GA_SET(pd->path_capable_speed_gts, links[i].cap_speed_gts);
	}
}

/* --- NIC extras ----------------------------------------------------------- */

static void class_devices(struct ga_col *c, const char *cls, struct ga_pci_dev *pd, struct ga_strv *out)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "sys/class/%s", cls) < 0)
		return;
	for (char **p = names; *p; p++) {
		/* The PCI function the class device's `device` link resolves to: the link's own
		 * text can be any relative path ("../../../0000:0c:00.0" on the kernel's, "../.."
		 * in a copied tree), so its basename is not the address; the resolved path's is. */
		char link[4096 + 16], *cdev = NULL, *real = NULL;
		snprintf(link, sizeof(link), "sys/class/%s/%s", cls, *p);
		int r = ga_fs_resolve_link(c->ctx, link, &cdev); /* the entry is a link itself */
		if (r == 0) {
			snprintf(link, sizeof(link), "%s/device", cdev);
			r = ga_fs_resolve_link(c->ctx, link, &real);
		}
		if (r == -ENOMEM)
			c->err = r;
		const char *slash = r == 0 ? strrchr(real, '/') : NULL;
		char *dev = slash ? ga_strdup(slash + 1) : NULL;
		ga_free(cdev);
		ga_free(real);
		if (dev && !strcmp(dev, pd->address)) {
			ga_col_strv_push(c, out, *p);
			if (!strcmp(cls, "net") && !pd->net_speed_mbps.set) {
				struct ga_oi64 sp = { 0 };
				ga_col_attr_i64(c, GA_COL_OPT, &sp, "sys/class/net/%s/speed", *p);
				if (sp.set && sp.v > 0)
					GA_SET(pd->net_speed_mbps, (uint64_t)sp.v);
			}
		}
		ga_free(dev);
	}
	ga_strv_free(names);
}

/* --- devices -------------------------------------------------------------- */

static void device(struct ga_col *c, struct names *nm, const char *bdf)
{
	struct ga_ou64 cls = { 0 }, vendor = { 0 };
	if (ga_col_attr_u64(c, GA_COL_REQ, &cls, SYS_PCI "/%s/class", bdf) < 0 ||
	    ga_col_attr_u64(c, GA_COL_REQ, &vendor, SYS_PCI "/%s/vendor", bdf) < 0)
		return;
	const char *kind = classify(vendor.v, cls.v);
	if (!kind)
		return;
	struct ga_node *n = c->node;
	struct ga_pci_dev *pd = ga_array_push((void **)&n->pci, &n->n_pci, sizeof(*pd));
	if (!ga_col_ok(c, pd))
		return;
	pd->address = ga_strdup(bdf);
	pd->kind = ga_strdup(kind);
	if (!ga_col_ok(c, pd->address) || !ga_col_ok(c, pd->kind))
		return;
	pd->class_code = cls;
	pd->vendor_id = vendor;

	char link[4096];
	snprintf(link, sizeof(link), SYS_PCI "/%s", bdf);
	char *phys = NULL;
	int r = ga_fs_resolve_link(c->ctx, link, &phys);
	if (r == -ENOMEM)
		c->err = r;
	if (r < 0) {
		ga_col_gap(c, link, ga_fs_reason(r));
		return;
	}
	ga_col_attr_u64(c, GA_COL_REQ, &pd->device_id, "%s/device", phys);
	ga_col_attr_u64(c, GA_COL_OPT, &pd->subsystem_vendor_id, "%s/subsystem_vendor", phys);
	ga_col_attr_u64(c, GA_COL_OPT, &pd->subsystem_device_id, "%s/subsystem_device", phys);
	ga_col_attr_u64(c, GA_COL_OPT, &pd->revision, "%s/revision", phys);
	ga_col_attr_i64(c, GA_COL_OPT, &pd->numa_node, "%s/numa_node", phys);
	ga_col_attr(c, GA_COL_OPT, &pd->local_cpulist, "%s/local_cpulist", phys);
	pd->driver = ga_col_link_base(c, "%s/driver", phys);
	pd->iommu_group = ga_col_link_base(c, "%s/iommu_group", phys);
	pd->vendor_name = names_lookup(c, nm, PCI_LOOKUP_VENDOR, (unsigned)vendor.v, 0);
	pd->class_name = names_lookup(c, nm, PCI_LOOKUP_CLASS, (unsigned)(cls.v >> 8), 0);
	if (pd->device_id.set)
		pd->device_name =
		        names_lookup(c, nm, PCI_LOOKUP_DEVICE, (unsigned)vendor.v, (unsigned)pd->device_id.v);
	read_link(c, phys, &pd->link);
	upstream(c, pd, phys);
	if (!strcmp(kind, "nic")) {
		class_devices(c, "net", pd, &pd->net_interfaces);
		class_devices(c, "infiniband", pd, &pd->rdma_devices);
	}
	ga_free(phys);
}

void ga_collect_pci(struct ga_col *c)
{
	char **bdfs = NULL;
	if (ga_col_list(c, &bdfs, NULL, SYS_PCI) < 0) {
		if (!ga_fs_is_dir(c->ctx, SYS_PCI))
			ga_col_gap(c, SYS_PCI, "missing");
		return;
	}
	struct names nm = { 0 };
	names_open(c, &nm);
	for (char **p = bdfs; *p && c->err == 0; p++)
		if (is_bdf(*p))
			device(c, &nm, *p);
	names_close(&nm);
	ga_strv_free(bdfs);
}
