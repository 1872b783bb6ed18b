/*
 * pci.c - the PCI functions that matter to an accelerator node (GPUs and
 * other accelerators, NVSwitches, NICs, NVMe, display), with ids, names from
 * pci.ids (pciids.c: looked up for these devices only), driver, NUMA, IOMMU group and PCIe links, and the
 * chain of bridges up to the root port so a degraded link is found wherever
 * it sits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/fs.h"
#include "pciconf.h"
#include "pciids.h"

#define SYS_PCI "sys/bus/pci/devices"

/* --- names from pci.ids ----------------------------------------------------- */

/*
 * Where a pci.ids is looked for when the caller names none: Debian and Ubuntu (the
 * pci.ids package), Fedora, RHEL, SUSE and Arch (hwdata), then the pciutils default
 * install. A compressed pci.ids.gz is not read (libpci could, when built with zlib);
 * these distributions ship it uncompressed.
 */
static const char *const pci_ids_paths[] = {
	"/usr/share/misc/pci.ids",
	"/usr/share/hwdata/pci.ids",
	"/usr/share/pci.ids",
};

#define PCI_IDS_MAX_BYTES (64u << 20) /* the 2026 file is 1.4 MB */

/*
 * One pci.ids mapped read-only in *ret (munmap *ret_len bytes): 0, or -1 for no names.
 * Mapped, not read: the page cache's pages are used as they are (reading the 1.3 MB
 * into an allocation cost 0.6 ms of discover's 5 in page faults and copying). A file
 * cut short while mapped would fault (SIGBUS); package managers replace pci.ids by
 * renaming a new file over it, which leaves this mapping whole.
 */
static int names_map(struct ga_col *c, const char **ret, size_t *ret_len)
{
	const char *one[1] = { c->ctx->pci_ids };
	const char *const *paths = c->ctx->pci_ids ? one : pci_ids_paths;
	size_t n = c->ctx->pci_ids ? 1 : GA_ARRAY_SIZE(pci_ids_paths);
	for (size_t i = 0; i < n; i++) {
		int fd = -1;
		/* NULL context: a missing names file is no error of the collection (libpci
		 * was silent too); the open refuses FIFOs and devices */
		if (ga_file_open_input(NULL, paths[i], &fd) < 0)
			continue;
		struct stat st;
		void *map = MAP_FAILED;
		if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= PCI_IDS_MAX_BYTES)
			map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (map != MAP_FAILED) {
			*ret = map;
			*ret_len = (size_t)st.st_size;
			return 0;
		}
	}
	return -1;
}

/* Names for the devices [first, n_pci) collected by this call, in one pass over pci.ids. */
static void names_resolve(struct ga_col *c, size_t first)
{
	struct ga_node *n = c->node;
	if (first >= n->n_pci)
		return;
	const char *text = NULL;
	size_t len = 0;
	size_t nq = (n->n_pci - first) * 3;
	struct ga_pciids_query *q = ga_calloc(nq, sizeof(*q));
	if (!ga_col_ok(c, q) || names_map(c, &text, &len) < 0)
		goto out;
	for (size_t i = first; i < n->n_pci; i++) {
		const struct ga_pci_dev *pd = &n->pci[i];
		struct ga_pciids_query *d = &q[(i - first) * 3];
		d[0].kind = GA_PCIIDS_VENDOR;
		d[0].id1 = (unsigned)pd->vendor_id.v;
		d[1].kind = GA_PCIIDS_CLASS;
		d[1].id1 = (unsigned)(pd->class_code.v >> 8);
		d[2].kind = GA_PCIIDS_DEVICE;
		d[2].id1 = (unsigned)pd->vendor_id.v;
		/* an absent device id asks for nothing: id2 beyond 16 bits matches no line */
		d[2].id2 = pd->device_id.set ? (unsigned)pd->device_id.v : 0x10000u;
	}
	ga_pciids_scan(text, len, q, nq);
	for (size_t i = first; i < n->n_pci && !c->err; i++) {
		struct ga_pci_dev *pd = &n->pci[i];
		const struct ga_pciids_query *d = &q[(i - first) * 3];
		char **dst[3] = { &pd->vendor_name, &pd->class_name, &pd->device_name };
		for (int k = 0; k < 3; k++)
			if (d[k].found && !*dst[k]) {
				*dst[k] = ga_strdup(d[k].name);
				ga_col_ok(c, *dst[k]);
			}
	}
out:
	ga_free(q);
	if (text)
		munmap((void *)(uintptr_t)text, len);
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

/* --- configuration space ------------------------------------------------------ */

/* pread all of len at off; the bytes read. */
static size_t pread_full(int fd, uint8_t *buf, size_t len, size_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/*
 * The config space the parser needs, into buf (GA_PCI_CONFIG_MAX bytes, zeroed): the 64-byte
 * header, the chain of capabilities with the PCI Express capability's registers, the chain
 * of extended capability headers with the AER and ACS registers; every other byte stays 0.
 * Each config read is a slow access in the kernel (a trap to the hypervisor in a VM, 9 us a
 * dword on the build VM): reading all of every function's space was 39 % of discover's time.
 * How far the file can be read (64 bytes unprivileged, 256, 4096) into *ret_len, as a whole
 * read would have said it.
 */
#define GA_PCI_CONFIG_MAX 4096u
static int read_config_bytes(int fd, uint8_t *buf, size_t *ret_len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	size_t n = pread_full(fd, buf, 64, 0);
	*ret_len = n;
	size_t size = (uint64_t)st.st_size > GA_PCI_CONFIG_MAX ? GA_PCI_CONFIG_MAX : (size_t)st.st_size;
	size_t std_size = size < 256 ? size : 256;
	/* beyond the header only for root: one dword tells */
	if (n < 64 || std_size <= 64 || pread_full(fd, buf + 0x40, 4, 0x40) != 4)
		return 0;
	*ret_len = std_size;
	unsigned type = buf[0x0e] & 0x7f;
	uint8_t seen[256 / 4] = { 0 };
	size_t ptr = (buf[0x06] & 0x10) && type <= 2 ? buf[type == 2 ? 0x14 : 0x34] & ~3u : 0;
	while (ptr >= 0x40 && ptr + 2 <= std_size && !seen[ptr / 4]) {
		seen[ptr / 4] = 1;
		if (ptr != 0x40 && pread_full(fd, buf + ptr, 2, ptr) != 2)
			break;
		if (buf[ptr] == 0xff)
			break;
		if (buf[ptr] == 0x10) { /* PCI Express: flags to Link Capabilities 2 */
			size_t body = std_size - ptr - 2 < 0x2e ? std_size - ptr - 2 : 0x2e;
			pread_full(fd, buf + ptr + 2, body, ptr + 2);
		}
		ptr = buf[ptr + 1] & ~3u;
	}
	if (size <= 256)
		return 0;
	uint8_t eseen[GA_PCI_CONFIG_MAX / 4] = { 0 };
	size_t at = 0x100;
	while (at >= 0x100 && at + 4 <= size && !eseen[at / 4]) {
		eseen[at / 4] = 1;
		if (pread_full(fd, buf + at, 4, at) != 4)
			break;
		*ret_len = size;
		uint32_t h = (uint32_t)buf[at] | (uint32_t)buf[at + 1] << 8 | (uint32_t)buf[at + 2] << 16 |
		             (uint32_t)buf[at + 3] << 24;
		if (h == 0 || h == 0xffffffffu)
			break;
		unsigned id = h & 0xffffu;
		size_t body = id == 0x0001   ? 0x14
		              : id == 0x000d ? 4
		                             : 0; /* AER, ACS: what the parser reads */
		if (body && at + 4 + body <= size)
			pread_full(fd, buf + at + 4, body, at + 4);
		at = (h >> 20) & ~3u;
	}
	return 0;
}

/*
 * The function's config space parsed into *pc: true when the file was there. At most
 * 4096 bytes (what the kernel gives root for a PCI Express function), read sparsely.
 */
static bool read_config(struct ga_col *c, const char *dir, struct ga_pciconf *pc, size_t *ret_len)
{
	char path[4096 + 16];
	snprintf(path, sizeof(path), "%s/config", dir);
	int fd = ga_fs_open(c->ctx, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		if (fd != -ENOENT)
			ga_col_gap(c, path, ga_fs_reason(fd));
		return false;
	}
	uint8_t *buf = ga_calloc(1, GA_PCI_CONFIG_MAX);
	size_t len = 0;
	bool ok = false;
	int r = buf ? read_config_bytes(fd, buf, &len) : -ENOMEM;
	close(fd);
	if (r == -ENOMEM)
		c->err = r;
	else if (r < 0)
		ga_col_gap(c, path, ga_fs_reason(r));
	else if (ga_pciconf_parse(buf, len, pc) == 0) {
		ok = true;
		*ret_len = len;
	} else
		ga_col_gap(c, path, "shorter than the 64-byte header");
	ga_free(buf);
	return ok;
}

/* The link from config space, as the sysfs files would have said it. */
static void config_link(const struct ga_pciconf *pc, struct ga_link *l)
{
	double g;
	unsigned w;
	if ((g = ga_pciconf_cur_speed_gts(pc)) > 0)
		GA_SET(l->cur_speed_gts, g);
	if ((g = ga_pciconf_max_speed_gts(pc)) > 0)
		GA_SET(l->max_speed_gts, g);
	if ((w = ga_pciconf_cur_width(pc)) > 0 && w <= 32)
		GA_SET(l->cur_width, w);
	if ((w = ga_pciconf_max_width(pc)) > 0)
		GA_SET(l->max_width, w);
}

/* Fill what the sysfs link files did not give; true when something was filled. */
static bool link_fallback(struct ga_link *l, const struct ga_link *cfg)
{
	bool any = false;
#define FILL(m)                        \
	if (!l->m.set && cfg->m.set) { \
		l->m = cfg->m;         \
		any = true;            \
	}
	FILL(cur_speed_gts)
	FILL(max_speed_gts)
	FILL(cur_width)
	FILL(max_width)
#undef FILL
	return any;
}

static void acs_flags(struct ga_col *c, uint16_t ctl, struct ga_strv *out)
{
	const char *names[7];
	size_t n = ga_pciconf_acs_names(ctl, names);
	for (size_t i = 0; i < n; i++)
		ga_col_strv_push(c, out, names[i]);
}

static void pd_config(struct ga_col *c, struct ga_pci_dev *pd, const char *phys)
{
	struct ga_pciconf pc;
	size_t len = 0;
	if (!read_config(c, phys, &pc, &len))
		return;
	GA_SET(pd->config_bytes, (uint64_t)len);
	for (size_t i = 0; i < pc.n_caps; i++) {
		char id[8];
		snprintf(id, sizeof(id), "%02x", pc.caps[i]);
		ga_col_strv_push(c, &pd->capabilities, id);
	}
	for (size_t i = 0; i < pc.n_ext; i++) {
		char id[16];
		snprintf(id, sizeof(id), "ext:%04x", pc.ext[i]);
		ga_col_strv_push(c, &pd->capabilities, id);
	}
	if (pc.n_caps || pc.cap_loop || pc.ext_loop)
		GA_SET(pd->config_cap_loop, pc.cap_loop || pc.ext_loop);
	if (pc.pcie) {
		const char *t = ga_pciconf_port_type_name(pc.pcie_port_type);
		if (t) {
			pd->pcie_port_type = ga_strdup(t);
			ga_col_ok(c, pd->pcie_port_type);
		}
		GA_SET(pd->pcie_cap_version, pc.pcie_version);
	}
	if (pc.has_link) {
		config_link(&pc, &pd->link_config);
		pd->link_aspm = ga_strdup(ga_pciconf_aspm_name(pc.lnkctl));
		pd->link_aspm_support = ga_strdup(ga_pciconf_aspm_name(pc.lnkcap >> 10));
		ga_col_ok(c, pd->link_aspm);
		ga_col_ok(c, pd->link_aspm_support);
		GA_SET(pd->link_from_config, link_fallback(&pd->link, &pd->link_config));
	}
	if (pc.acs) {
		GA_SET(pd->acs_cap, pc.acs_cap);
		GA_SET(pd->acs_ctl, pc.acs_ctl);
		acs_flags(c, pc.acs_ctl, &pd->acs_ctl_flags);
	}
	if (pc.aer) {
		GA_SET(pd->aer_uncor_status, pc.aer_uncor_status);
		GA_SET(pd->aer_uncor_mask, pc.aer_uncor_mask);
		GA_SET(pd->aer_uncor_severity, pc.aer_uncor_severity);
		GA_SET(pd->aer_cor_status, pc.aer_cor_status);
		GA_SET(pd->aer_cor_mask, pc.aer_cor_mask);
	}
}

/* A hop's port type and ACS control, and its link where sysfs has no link files. */
static void hop_config(struct ga_col *c, struct ga_pci_hop *h, const char *path)
{
	struct ga_pciconf pc;
	size_t len = 0;
	if (!read_config(c, path, &pc, &len))
		return;
	const char *t = pc.pcie ? ga_pciconf_port_type_name(pc.pcie_port_type) : NULL;
	if (t) {
		h->pcie_port_type = ga_strdup(t);
		ga_col_ok(c, h->pcie_port_type);
	}
	if (pc.acs) {
		GA_SET(h->acs_ctl, pc.acs_ctl);
		acs_flags(c, pc.acs_ctl, &h->acs_ctl_flags);
	}
	if (pc.has_link) {
		struct ga_link cfg = { 0 };
		config_link(&pc, &cfg);
		link_fallback(&h->link, &cfg);
	}
}

/*
 * The AER counters since boot (Linux 4.17+, drivers/pci/pcie/aer.c): lines "NAME COUNT",
 * the last "TOTAL_ERR_COR" / "TOTAL_ERR_NONFATAL" / "TOTAL_ERR_FATAL".
 */
static void aer_total(struct ga_col *c, struct ga_ou64 *out, const char *phys, const char *file,
                      const char *key)
{
	struct ga_buf b;
	ga_buf_init(&b, 1 << 16);
	if (ga_col_read(c, GA_COL_OPT, &b, "%s/%s", phys, file) == 0) {
		size_t kl = strlen(key);
		for (const char *p = b.data; p && *p;) {
			const char *nl = strchr(p, '\n');
			if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\t')) {
				char num[32];
				size_t n = (size_t)((nl ? nl : p + strlen(p)) - (p + kl));
				uint64_t v;
				if (n < sizeof(num)) {
					memcpy(num, p + kl, n);
					num[n] = '\0';
					if (ga_parse_u64(ga_strstrip(num), 10, &v) == 0)
						GA_SET(*out, v);
				}
			}
			p = nl ? nl + 1 : NULL;
		}
	}
	ga_buf_release(&b);
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
		hop_config(c, h, path);
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

static void device(struct ga_col *c, const char *bdf)
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
	read_link(c, phys, &pd->link);
	pd_config(c, pd, phys);
	aer_total(c, &pd->aer_correctable, phys, "aer_dev_correctable", "TOTAL_ERR_COR");
	aer_total(c, &pd->aer_nonfatal, phys, "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL");
	aer_total(c, &pd->aer_fatal, phys, "aer_dev_fatal", "TOTAL_ERR_FATAL");
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
	int r = ga_col_list(c, &bdfs, NULL, SYS_PCI);
	if (r < 0) {
		/* not there, or there but not a listable directory (a file, a FIFO, no access):
		 * either way the accelerator count is unknown, never 0 */
		if (r == -ENOENT && !ga_fs_is_dir(c->ctx, SYS_PCI))
			ga_col_gap(c, SYS_PCI, "missing");
		else if (r == -ENOTDIR)
			ga_col_gap(c, SYS_PCI, ga_fs_reason(r));
		ga_col_source(c, GA_SOURCE_PCI, SYS_PCI, r);
		return;
	}
	ga_col_source(c, GA_SOURCE_PCI, SYS_PCI, 0);
	size_t first = c->node->n_pci;
	for (char **p = bdfs; *p && c->err == 0; p++)
		if (is_bdf(*p))
			device(c, *p);
	if (c->err == 0)
		names_resolve(c, first);
	ga_strv_free(bdfs);
}
