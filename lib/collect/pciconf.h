/*
 * pciconf.h - what discover takes from a PCI function's configuration space (the
 * bytes of sysfs `config`): the capability lists, the PCI Express capability's link
 * registers, ACS and AER. A pure parser over a buffer (pciconf.c), fuzzed by
 * fuzz/fuzz_pciconf.c.
 */
#ifndef GA_COLLECT_PCICONF_H
#define GA_COLLECT_PCICONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GA_PCICONF_MAX_CAPS 48 /* 192 bytes of capability space hold at most 48 */
#define GA_PCICONF_MAX_EXT 64  /* extended capabilities recorded (the walk is bounded too) */

struct ga_pciconf {
	size_t len; /* bytes parsed: 64 unprivileged, 256 or 4096 as root */
	uint16_t vendor, device, status;
	uint32_t class_code; /* 24 bits */
	uint8_t header_type; /* bits 6:0: 0 endpoint, 1 PCI-to-PCI bridge, 2 CardBus */
	/* capability ids in list order; ext ids in the same way from 0x100 */
	uint8_t caps[GA_PCICONF_MAX_CAPS];
	size_t n_caps;
	uint16_t ext[GA_PCICONF_MAX_EXT];
	size_t n_ext;
	bool cap_loop; /* a list pointed back into itself (or ran past its bound): cut there */
	bool ext_loop;

	/* PCI Express capability (id 0x10) */
	bool pcie;
	uint8_t pcie_version;   /* capability version, bits 3:0 */
	uint8_t pcie_port_type; /* bits 7:4, see ga_pciconf_port_type_name */
	bool has_link;          /* the link registers exist for this port type and were read */
	uint32_t lnkcap;
	uint16_t lnkctl, lnksta;
	bool has_lnkcap2;
	uint32_t lnkcap2;

	/* Access Control Services (extended id 0x000d) */
	bool acs;
	uint16_t acs_cap, acs_ctl;

	/* Advanced Error Reporting (extended id 0x0001) */
	bool aer;
	uint32_t aer_uncor_status, aer_uncor_mask, aer_uncor_severity, aer_cor_status, aer_cor_mask;
};

/*
 * Parse len bytes of configuration space. 0, or -1 when there are fewer than the
 * 64 bytes of the common header (out is then zeroed). Capabilities are read only
 * where their bytes are inside buf; every walk is bounded and loop-safe.
 */
int ga_pciconf_parse(const uint8_t *buf, size_t len, struct ga_pciconf *out);

/* "endpoint", "root_port", "downstream_port", ...; NULL for a reserved value */
const char *ga_pciconf_port_type_name(unsigned type);
/* GT/s of a Link Status / Link Capabilities speed code (1 = 2.5 ... 6 = 64), or -1 */
double ga_pciconf_speed_gts(unsigned code);
/* The link as Linux's sysfs would give it: -1 / 0 where unknown. */
double ga_pciconf_max_speed_gts(const struct ga_pciconf *pc);
double ga_pciconf_cur_speed_gts(const struct ga_pciconf *pc);
unsigned ga_pciconf_max_width(const struct ga_pciconf *pc);
unsigned ga_pciconf_cur_width(const struct ga_pciconf *pc);
/* ASPM as "disabled", "l0s", "l1", "l0s_l1" from a 2-bit field */
const char *ga_pciconf_aspm_name(unsigned bits);
/*
 * The ACS control bits that are set, in lspci's names (SrcValid, TransBlk, ReqRedir,
 * CmpltRedir, UpstreamFwd, EgressCtrl, DirectTrans), into names[] (at most 7).
 */
size_t ga_pciconf_acs_names(uint16_t bits, const char *names[7]);

#define GA_PCI_ACS_REQ_REDIR 0x0004u
#define GA_PCI_ACS_CMPLT_REDIR 0x0008u

#endif
