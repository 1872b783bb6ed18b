/*
 * pciconf.c - the parts of PCI configuration space discover reports, from the raw
 * bytes of sysfs `config`. Kernels without the sysfs link files (current_link_speed
 * and friends came in Linux 4.13 for every device; some vendor kernels and
 * containers' copies of sysfs lack them) still expose config, and config is the only
 * place ACS and the AER status registers can be read.
 *
 * Layout (PCI Local Bus 3.0 and PCI Express Base 4.0+, as summarised in the Linux
 * header include/uapi/linux/pci_regs.h): 0x00 vendor, 0x02 device, 0x06 status (bit 4:
 * a capability list exists), 0x09 class (3 bytes), 0x0e header type, 0x34 the first
 * capability for header types 0 and 1 (0x14 for CardBus). A capability: id, next
 * pointer (low 2 bits reserved), body. PCI Express (id 0x10): +0x02 capabilities
 * (version 3:0, device/port type 7:4), +0x0c Link Capabilities, +0x10 Link Control,
 * +0x12 Link Status, +0x2c Link Capabilities 2 (version 2 on). Extended capabilities
 * from 0x100, each a 32-bit header: id 15:0, version 19:16, next 31:20. AER (0x0001):
 * +0x04 uncorrectable status, +0x08 mask, +0x0c severity, +0x10 correctable status,
 * +0x14 mask. ACS (0x000d): +0x04 capability, +0x06 control.
 *
 * The sysfs file gives 64 bytes to a process without CAP_SYS_ADMIN, 256 or 4096 to
 * root: what is not in the buffer is not read. A hostile or broken device can point a
 * capability at itself or build a cycle; every walk remembers where it has been.
 */
#include <string.h>

#include "pciconf.h"

static uint16_t rd16(const uint8_t *b, size_t off)
{
	return (uint16_t)(b[off] | (unsigned)b[off + 1] << 8);
}

static uint32_t rd32(const uint8_t *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
	       (uint32_t)b[off + 3] << 24;
}

/* inside the buffer: [off, off + n) */
static bool in(const struct ga_pciconf *pc, size_t off, size_t n)
{
	return off <= pc->len && n <= pc->len - off;
}

/* Linux pcie_cap_has_lnkctl(): the port types that have a link */
static bool type_has_link(unsigned t)
{
	return t == 0 || t == 1 || (t >= 4 && t <= 8);
}

static void pcie_cap(const uint8_t *b, struct ga_pciconf *pc, size_t at)
{
	if (pc->pcie || !in(pc, at, 4))
		return; /* the first one counts */
	pc->pcie = true;
	uint16_t flags = rd16(b, at + 2);
	pc->pcie_version = (uint8_t)(flags & 0xf);
	pc->pcie_port_type = (uint8_t)((flags >> 4) & 0xf);
	if (type_has_link(pc->pcie_port_type) && in(pc, at + 0x0c, 8)) {
		pc->has_link = true;
		pc->lnkcap = rd32(b, at + 0x0c);
		pc->lnkctl = rd16(b, at + 0x10);
		pc->lnksta = rd16(b, at + 0x12);
	}
	if (pc->pcie_version >= 2 && in(pc, at + 0x2c, 4)) {
		pc->has_lnkcap2 = true;
		pc->lnkcap2 = rd32(b, at + 0x2c);
	}
}

static void walk_caps(const uint8_t *b, struct ga_pciconf *pc)
{
	if (!(pc->status & 0x10))
		return;
	unsigned type = pc->header_type & 0x7f;
	if (type > 2)
		return; /* no defined place for the pointer */
	size_t ptr = b[type == 2 ? 0x14 : 0x34] & ~3u;
	uint8_t seen[256 / 4] = { 0 };
	while (ptr) {
		if (ptr < 0x40 || !in(pc, ptr, 2))
			break; /* in the header, or beyond what could be read */
		if (seen[ptr / 4] || pc->n_caps == GA_PCICONF_MAX_CAPS) {
			pc->cap_loop = true;
			break;
		}
		seen[ptr / 4] = 1;
		uint8_t id = b[ptr];
		if (id == 0xff)
			break; /* a device that stopped answering reads as all ones */
		pc->caps[pc->n_caps++] = id;
		if (id == 0x10)
			pcie_cap(b, pc, ptr);
		ptr = b[ptr + 1] & ~3u;
	}
}

static void walk_ext(const uint8_t *b, struct ga_pciconf *pc)
{
	size_t at = 0x100;
	uint8_t seen[4096 / 4] = { 0 };
	while (at) {
		if (at < 0x100 || !in(pc, at, 4))
			break;
		uint32_t h = rd32(b, at);
		if (h == 0 || h == 0xffffffffu)
			break;
		if (seen[at / 4] || pc->n_ext == GA_PCICONF_MAX_EXT) {
			pc->ext_loop = true;
			break;
		}
		seen[at / 4] = 1;
		uint16_t id = (uint16_t)(h & 0xffff);
		pc->ext[pc->n_ext++] = id;
		if (id == 0x0001 && !pc->aer && in(pc, at + 4, 0x14)) {
			pc->aer = true;
			pc->aer_uncor_status = rd32(b, at + 0x04);
			pc->aer_uncor_mask = rd32(b, at + 0x08);
			pc->aer_uncor_severity = rd32(b, at + 0x0c);
			pc->aer_cor_status = rd32(b, at + 0x10);
			pc->aer_cor_mask = rd32(b, at + 0x14);
		} else if (id == 0x000d && !pc->acs && in(pc, at + 4, 4)) {
			pc->acs = true;
			pc->acs_cap = rd16(b, at + 4);
			pc->acs_ctl = rd16(b, at + 6);
		}
		at = (h >> 20) & ~3u;
	}
}

int ga_pciconf_parse(const uint8_t *buf, size_t len, struct ga_pciconf *out)
{
	memset(out, 0, sizeof(*out));
	if (!buf || len < 64)
		return -1;
	/* beyond 4096 there is nothing (the extended space ends there) */
	out->len = len > 4096 ? 4096 : len;
	out->vendor = rd16(buf, 0x00);
	out->device = rd16(buf, 0x02);
	out->status = rd16(buf, 0x06);
	out->class_code = (uint32_t)buf[0x09] | (uint32_t)buf[0x0a] << 8 | (uint32_t)buf[0x0b] << 16;
	out->header_type = buf[0x0e];
	walk_caps(buf, out);
	/* an extended space exists only on PCI Express functions */
	if (out->pcie)
		walk_ext(buf, out);
	return 0;
}

const char *ga_pciconf_port_type_name(unsigned type)
{
	static const char *const names[] = {
		"endpoint",
		"legacy_endpoint",
		"",
		"",
		"root_port",
		"upstream_port",
		"downstream_port",
		"pcie_to_pci_bridge",
		"pci_to_pcie_bridge",
		"rc_integrated_endpoint",
		"rc_event_collector",
	};
	if (type >= sizeof(names) / sizeof(names[0]) || !names[type][0])
		return NULL;
	return names[type];
}

double ga_pciconf_speed_gts(unsigned code)
{
	static const double gts[] = { -1, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	return code < sizeof(gts) / sizeof(gts[0]) ? gts[code] : -1;
}

double ga_pciconf_max_speed_gts(const struct ga_pciconf *pc)
{
	/* Linux pcie_get_speed_cap(): the highest bit of Link Capabilities 2's supported
	 * speeds vector (bits 7:1) where it is not zero, else Link Capabilities' 2.5/5 */
	if (pc->has_lnkcap2 && (pc->lnkcap2 & 0xfe)) {
		for (unsigned bitn = 7; bitn >= 1; bitn--)
			if (pc->lnkcap2 & (1u << bitn))
				return ga_pciconf_speed_gts(bitn);
		return -1;
	}
	if (!pc->has_link)
		return -1;
	unsigned sls = pc->lnkcap & 0xf;
	return sls == 1 || sls == 2 ? ga_pciconf_speed_gts(sls) : -1;
}

double ga_pciconf_cur_speed_gts(const struct ga_pciconf *pc)
{
	return pc->has_link ? ga_pciconf_speed_gts(pc->lnksta & 0xf) : -1;
}

unsigned ga_pciconf_max_width(const struct ga_pciconf *pc)
{
	return pc->has_link ? (pc->lnkcap >> 4) & 0x3f : 0;
}

unsigned ga_pciconf_cur_width(const struct ga_pciconf *pc)
{
	return pc->has_link ? (pc->lnksta >> 4) & 0x3f : 0u;
}

const char *ga_pciconf_aspm_name(unsigned bits)
{
	static const char *const names[] = { "disabled", "l0s", "l1", "l0s_l1" };
	return names[bits & 3];
}

size_t ga_pciconf_acs_names(uint16_t bits, const char *names[7])
{
	static const char *const all[7] = { "SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
		                            "UpstreamFwd", "EgressCtrl", "DirectTrans" };
	size_t n = 0;
	for (unsigned i = 0; i < 7; i++)
		if (bits & (1u << i))
			names[n++] = all[i];
	return n;
}
