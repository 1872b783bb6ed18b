/*
 * test_pciconf.c - the PCI configuration space parser on blobs built here after the
 * spec's layout (header types 0 and 1, capability pointer at 0x34, PCI Express
 * capability id 0x10, extended capabilities from 0x100: AER 0x0001, ACS 0x000d),
 * hostile capability lists (a capability pointing at itself, a cycle, an extended
 * cycle), the 64 bytes an unprivileged reader gets; the pci.ids scanner; and the
 * collector on a small sysfs tree with no link files (the link comes from config) and
 * the AER counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/pciconf.h"
#include "collect/pciids.h"
#include "gpuaudit/core.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"

static void w16(uint8_t *b, size_t off, unsigned v)
{
	b[off] = (uint8_t)v;
	b[off + 1] = (uint8_t)(v >> 8);
}

static void w32(uint8_t *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/*
 * A function's config space: header type `type`, capabilities PM at 0x40 -> MSI at
 * 0x50 -> PCIe at 0x60 (port type, Link Cap: max speed code 4 = 16 GT/s x16, ASPM L1
 * supported; Link Status: speed code `cur_speed`, width `cur_width`; Link Control ASPM
 * L1; Link Cap 2 speeds 2.5-16), then AER at 0x100 and ACS at 0x148.
 */
static void build(uint8_t *b, size_t len, unsigned type, unsigned port, unsigned cur_speed,
                  unsigned cur_width)
{
	memset(b, 0, len);
	w16(b, 0x00, 0x10de);
	w16(b, 0x02, 0x2330);
	w16(b, 0x06, 0x0010); /* status: capability list */
	b[0x09] = 0x00;
	b[0x0a] = type == 1 ? 0x04 : 0x02;
	b[0x0b] = type == 1 ? 0x06 : 0x03;
	b[0x0e] = (uint8_t)type;
	b[0x34] = 0x40;
	b[0x40] = 0x01; /* power management */
	b[0x41] = 0x50;
	b[0x50] = 0x05; /* MSI */
	b[0x51] = 0x60;
	b[0x60] = 0x10; /* PCI Express, version 2 */
	b[0x61] = 0x00;
	w16(b, 0x62, 0x0002 | (port << 4));
	w32(b, 0x60 + 0x0c, 0x4u | 16u << 4 | 2u << 10);
	w16(b, 0x60 + 0x10, 0x0002);
	w16(b, 0x60 + 0x12, (cur_speed & 0xf) | (cur_width & 0x3f) << 4);
	w32(b, 0x60 + 0x2c, 0x1e); /* 2.5, 5, 8, 16 GT/s */
	if (len < 4096)
		return;
	w32(b, 0x100, 0x0001u | 2u << 16 | 0x148u << 20); /* AER v2 -> 0x148 */
	w32(b, 0x104, 0x00004000);                        /* uncorrectable: completion timeout */
	w32(b, 0x108, 0x00400000);
	w32(b, 0x10c, 0x00462030);
	w32(b, 0x110, 0x00000041); /* correctable: receiver error, bad DLLP */
	w32(b, 0x114, 0x00002000);
	w32(b, 0x148, 0x000du | 1u << 16); /* ACS, last */
	w16(b, 0x14c, 0x005f);
	w16(b, 0x14e, 0x001d); /* SrcValid, ReqRedir, CmpltRedir, UpstreamFwd */
}

static void test_endpoint(void **state)
{
	(void)state;
	static uint8_t b[4096];
	build(b, sizeof(b), 0, 0, 4, 8);
	struct ga_pciconf pc;
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.vendor, 0x10de);
	assert_int_equal(pc.device, 0x2330);
	assert_int_equal(pc.class_code, 0x030200);
	assert_int_equal(pc.n_caps, 3);
	assert_int_equal(pc.caps[0], 0x01);
	assert_int_equal(pc.caps[2], 0x10);
	assert_false(pc.cap_loop);
	assert_true(pc.pcie && pc.has_link && pc.has_lnkcap2);
	assert_string_equal(ga_pciconf_port_type_name(pc.pcie_port_type), "endpoint");
	assert_true(ga_pciconf_max_speed_gts(&pc) == 16.0);
	assert_true(ga_pciconf_cur_speed_gts(&pc) == 16.0);
	assert_int_equal(ga_pciconf_max_width(&pc), 16);
	assert_int_equal(ga_pciconf_cur_width(&pc), 8);
	assert_string_equal(ga_pciconf_aspm_name(pc.lnkctl), "l1");
	assert_string_equal(ga_pciconf_aspm_name(pc.lnkcap >> 10), "l1");
	assert_int_equal(pc.n_ext, 2);
	assert_int_equal(pc.ext[0], 0x0001);
	assert_int_equal(pc.ext[1], 0x000d);
	assert_true(pc.aer);
	assert_int_equal(pc.aer_uncor_status, 0x4000);
	assert_int_equal(pc.aer_cor_status, 0x41);
	assert_int_equal(pc.aer_cor_mask, 0x2000);
	assert_true(pc.acs);
	assert_int_equal(pc.acs_ctl, 0x1d);
	const char *names[7];
	size_t n = ga_pciconf_acs_names(pc.acs_ctl, names);
	assert_int_equal(n, 4);
	assert_string_equal(names[0], "SrcValid");
	assert_string_equal(names[1], "ReqRedir");
	assert_string_equal(names[3], "UpstreamFwd");

	/* Link Cap 2 absent (version 1): Link Cap's own code, which only says 2.5 or 5 */
	w16(b, 0x62, 0x0001);
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_false(pc.has_lnkcap2);
	assert_true(ga_pciconf_max_speed_gts(&pc) < 0);
	w32(b, 0x6c, 0x2u | 16u << 4);
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_true(ga_pciconf_max_speed_gts(&pc) == 5.0);
}

static void test_bridge_and_sizes(void **state)
{
	(void)state;
	static uint8_t b[4096];
	build(b, sizeof(b), 1, 6, 3, 16);
	struct ga_pciconf pc;
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.header_type, 1);
	assert_string_equal(ga_pciconf_port_type_name(pc.pcie_port_type), "downstream_port");
	assert_true(ga_pciconf_cur_speed_gts(&pc) == 8.0);
	assert_true(pc.acs && (pc.acs_ctl & GA_PCI_ACS_REQ_REDIR));

	/* 256 bytes (root on a kernel without extended space): capabilities, no AER/ACS */
	assert_int_equal(ga_pciconf_parse(b, 256, &pc), 0);
	assert_true(pc.pcie && pc.has_link);
	assert_int_equal(pc.n_ext, 0);
	assert_false(pc.aer || pc.acs);
	/* 64 bytes (unprivileged): the header only, the pointer leads outside */
	assert_int_equal(ga_pciconf_parse(b, 64, &pc), 0);
	assert_int_equal(pc.vendor, 0x10de);
	assert_int_equal(pc.n_caps, 0);
	assert_false(pc.pcie);
	assert_int_equal(ga_pciconf_parse(b, 63, &pc), -1);
	assert_int_equal(ga_pciconf_parse(NULL, 0, &pc), -1);
	/* the PCIe capability cut inside its link registers: no link */
	assert_int_equal(ga_pciconf_parse(b, 0x70, &pc), 0);
	assert_true(pc.pcie);
	assert_false(pc.has_link);
	/* a root complex integrated endpoint has no link registers */
	build(b, sizeof(b), 0, 9, 4, 8);
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_string_equal(ga_pciconf_port_type_name(pc.pcie_port_type), "rc_integrated_endpoint");
	assert_false(pc.has_link);
	assert_null(ga_pciconf_port_type_name(2));
	assert_null(ga_pciconf_port_type_name(15));
	/* no capability-list bit in status: the pointer is not followed */
	w16(b, 0x06, 0);
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_caps, 0);
}

static void test_loops(void **state)
{
	(void)state;
	static uint8_t b[4096];
	struct ga_pciconf pc;
	/* a capability pointing at itself */
	build(b, sizeof(b), 0, 0, 4, 16);
	b[0x41] = 0x40;
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_caps, 1);
	assert_true(pc.cap_loop);
	/* a cycle of three: PM -> MSI -> PCIe -> PM (the low 2 bits of a pointer are
	 * reserved: 0x43 is 0x40) */
	build(b, sizeof(b), 0, 0, 4, 16);
	b[0x61] = 0x43;
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_caps, 3);
	assert_true(pc.cap_loop && pc.pcie);
	/* an extended capability pointing at itself, and a cycle of two */
	build(b, sizeof(b), 0, 0, 4, 16);
	w32(b, 0x148, 0x000du | 1u << 16 | 0x148u << 20);
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_ext, 2);
	assert_true(pc.ext_loop && pc.aer && pc.acs);
	w32(b, 0x148, 0x000du | 1u << 16 | 0x100u << 20);
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_ext, 2);
	assert_true(pc.ext_loop);
	/* a pointer into the header, one past the end, a dead device's all-ones */
	build(b, sizeof(b), 0, 0, 4, 16);
	b[0x34] = 0x20;
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_caps, 0);
	b[0x34] = 0xfc;
	b[0xfc] = 0x10;
	b[0xfd] = 0x00;
	assert_int_equal(ga_pciconf_parse(b, 0xfe, &pc), 0);
	assert_int_equal(pc.n_caps, 1);
	assert_false(pc.pcie); /* its flags are beyond the buffer */
	assert_int_equal(ga_pciconf_parse(b, 0x100, &pc), 0);
	assert_true(pc.pcie && !pc.has_link); /* the link registers are */
	memset(b, 0xff, sizeof(b));
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_caps, 0);
	assert_int_equal(pc.n_ext, 0);
	/* every byte a pointer to the next dword: the walk stops at its bound */
	memset(b, 0, sizeof(b));
	w16(b, 0x06, 0x10);
	b[0x34] = 0x40;
	for (size_t at = 0x40; at < 0x100; at += 4) {
		b[at] = 0x09;
		b[at + 1] = (uint8_t)(at + 4 < 0x100 ? at + 4 : 0x40);
	}
	assert_int_equal(ga_pciconf_parse(b, sizeof(b), &pc), 0);
	assert_int_equal(pc.n_caps, GA_PCICONF_MAX_CAPS);
	assert_true(pc.cap_loop);
}

static const char ids[] = "# comment\n"
                          "10de  NVIDIA Corporation\n"
                          "\t2330  GH100 [H100 SXM5 80GB]\n"
                          "\t\t10de 16c1  H100 SXM5 80GB\n"
                          "\t2331  GH100 [H100 PCIe]\r\n"
                          "1000  Broadcom / LSI \n"
                          "\tc010  PEX880xx PCIe Gen 4 Switch\n"
                          "zz bad vendor line\n"
                          "\t2330  not under any vendor\n"
                          "C 03  Display controller\n"
                          "\t02  3D controller\n"
                          "\t\t00  prog-if\n"
                          "C 06  Bridge\n"
                          "\t04  PCI bridge";

static void test_pciids(void **state)
{
	(void)state;
	struct ga_pciids_query q[9];
	memset(q, 0, sizeof(q));
	q[0] = (struct ga_pciids_query){ .kind = GA_PCIIDS_VENDOR, .id1 = 0x10de };
	q[1] = (struct ga_pciids_query){ .kind = GA_PCIIDS_DEVICE, .id1 = 0x10de, .id2 = 0x2330 };
	q[2] = (struct ga_pciids_query){ .kind = GA_PCIIDS_DEVICE, .id1 = 0x10de, .id2 = 0x2331 };
	q[3] = (struct ga_pciids_query){ .kind = GA_PCIIDS_VENDOR, .id1 = 0x1000 };
	q[4] = (struct ga_pciids_query){ .kind = GA_PCIIDS_CLASS, .id1 = 0x0302 };
	q[5] = (struct ga_pciids_query){ .kind = GA_PCIIDS_CLASS, .id1 = 0x0380 };
	q[6] = (struct ga_pciids_query){ .kind = GA_PCIIDS_CLASS, .id1 = 0x0604 };
	q[7] = (struct ga_pciids_query){ .kind = GA_PCIIDS_DEVICE, .id1 = 0x1000, .id2 = 0x2330 };
	q[8] = (struct ga_pciids_query){ .kind = GA_PCIIDS_VENDOR, .id1 = 0x1234 };
	ga_pciids_scan(ids, strlen(ids), q, 9);
	assert_true(q[0].found);
	assert_string_equal(q[0].name, "NVIDIA Corporation");
	assert_string_equal(q[1].name, "GH100 [H100 SXM5 80GB]");
	assert_string_equal(q[2].name, "GH100 [H100 PCIe]");
	assert_string_equal(q[3].name, "Broadcom / LSI"); /* one trailing blank dropped */
	assert_string_equal(q[4].name, "3D controller");
	assert_true(q[5].found); /* subclass not listed: libpci's "class [number]" */
	assert_string_equal(q[5].name, "Display controller [0380]");
	assert_string_equal(q[6].name, "PCI bridge"); /* last line without a newline */
	assert_false(q[7].found); /* the device after a malformed line belongs to no vendor */
	assert_false(q[8].found);

	/* a name of 256 bytes or more: 252 + "..." as libpci's buffer gives it */
	char big[600];
	int n = snprintf(big, sizeof(big), "abcd  ");
	memset(big + n, 'x', 300);
	big[n + 300] = '\0';
	q[0] = (struct ga_pciids_query){ .kind = GA_PCIIDS_VENDOR, .id1 = 0xabcd };
	ga_pciids_scan(big, strlen(big), q, 1);
	assert_true(q[0].found);
	assert_int_equal(strlen(q[0].name), 255);
	assert_string_equal(q[0].name + 252, "...");
	ga_pciids_scan("", 0, q, 1);
	assert_false(q[0].found);
}

/* --- the collector ------------------------------------------------------------ */

static void put(const char *dir, const char *rel, const void *data, size_t len)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void puts_(const char *dir, const char *rel, const char *text)
{
	put(dir, rel, text, strlen(text));
}

static const struct ga_finding *finding(const struct ga_findings *f, const char *code)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].code, code))
			return &f->v[i];
	return NULL;
}

static void test_collect(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-pciconf-XXXXXX";
	assert_non_null(mkdtemp(root));
	const char *port = "sys/devices/pci0000:00/0000:00:01.0";
	const char *gpu = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	char d[4096], p[8192];
	static uint8_t b[4096];
	/* the root port: sysfs link files present, ACS redirecting */
	snprintf(d, sizeof(d), "%s/%s", root, port);
	build(b, sizeof(b), 1, 4, 4, 16);
	put(d, "config", b, sizeof(b));
	puts_(d, "vendor", "0x8086\n");
	puts_(d, "device", "0x0db0\n");
	puts_(d, "current_link_speed", "16.0 GT/s PCIe\n");
	puts_(d, "current_link_width", "16\n");
	puts_(d, "max_link_speed", "16.0 GT/s PCIe\n");
	puts_(d, "max_link_width", "16\n");
	/* the GPU: no link files, trained at 8 GT/s x8 of 16 GT/s x16 */
	snprintf(d, sizeof(d), "%s/%s", root, gpu);
	build(b, sizeof(b), 0, 0, 3, 8);
	put(d, "config", b, sizeof(b));
	puts_(d, "vendor", "0x10de\n");
	puts_(d, "device", "0x2330\n");
	puts_(d, "class", "0x030200\n");
	puts_(d, "aer_dev_correctable", "RxErr 3\nBadTLP 0\nTOTAL_ERR_COR 3\n");
	puts_(d, "aer_dev_nonfatal", "Undefined 0\nTOTAL_ERR_NONFATAL 0\n");
	puts_(d, "aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL x\n");
	puts_(root, "sys/bus/pci/devices/.keep", "");
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/.keep", root);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:01:00.0", root);
	assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", p), 0);
	snprintf(p, sizeof(p), "%s/ids", root);
	puts_(root, "ids", ids);

	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	assert_int_equal(ga_ctx_set_pci_ids(ctx, p), 0);
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	assert_int_equal(n->n_pci, 1);
	const struct ga_pci_dev *pd = &n->pci[0];
	assert_string_equal(pd->vendor_name, "NVIDIA Corporation");
	assert_string_equal(pd->device_name, "GH100 [H100 SXM5 80GB]");
	assert_string_equal(pd->class_name, "3D controller");
	assert_true(pd->config_bytes.set && pd->config_bytes.v == 4096);
	assert_int_equal(pd->capabilities.n, 5);
	assert_string_equal(pd->capabilities.v[2], "10");
	assert_string_equal(pd->capabilities.v[3], "ext:0001");
	assert_true(pd->config_cap_loop.set && !pd->config_cap_loop.v);
	assert_string_equal(pd->pcie_port_type, "endpoint");
	assert_true(pd->link_from_config.set && pd->link_from_config.v);
	assert_true(pd->link.cur_speed_gts.set && pd->link.cur_speed_gts.v == 8.0);
	assert_true(pd->link.cur_width.set && pd->link.cur_width.v == 8);
	assert_true(pd->link.max_speed_gts.set && pd->link.max_speed_gts.v == 16.0);
	assert_true(pd->link.max_width.set && pd->link.max_width.v == 16);
	assert_true(pd->link_config.cur_width.v == 8);
	assert_string_equal(pd->link_aspm, "l1");
	assert_true(pd->aer_uncor_status.set && pd->aer_uncor_status.v == 0x4000);
	assert_true(pd->aer_cor_status.v == 0x41);
	assert_true(pd->aer_correctable.set && pd->aer_correctable.v == 3);
	assert_true(pd->aer_nonfatal.set && pd->aer_nonfatal.v == 0);
	assert_false(pd->aer_fatal.set); /* not a number */
	assert_int_equal(pd->n_upstream, 1);
	const struct ga_pci_hop *h = &pd->upstream[0];
	assert_string_equal(h->pcie_port_type, "root_port");
	assert_true(h->acs_ctl.set && h->acs_ctl.v == 0x1d);
	assert_int_equal(h->acs_ctl_flags.n, 4);
	assert_string_equal(h->acs_ctl_flags.v[1], "ReqRedir");
	/* the path: the GPU's x8 from config is the narrowest */
	assert_true(pd->path_min_width.set && pd->path_min_width.v == 8);
	assert_true(pd->path_capable_width.set && pd->path_capable_width.v == 16);
	/* the x8 link seen only in config space is found degraded; ACS on a root port is
	 * no finding (peer traffic between root ports goes through the root complex anyway) */
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	assert_non_null(finding(&f, "GA-LINK-DEGRADED"));
	assert_null(finding(&f, "GA-PCI-ACS-REDIRECT"));
	ga_findings_release(&f);
	ga_node_free(n);

	/* the same port as a switch downstream port: ACS redirect is a finding */
	snprintf(d, sizeof(d), "%s/%s", root, port);
	build(b, sizeof(b), 1, 6, 4, 16);
	put(d, "config", b, sizeof(b));
	n = NULL;
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	assert_string_equal(n->pci[0].upstream[0].pcie_port_type, "downstream_port");
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	const struct ga_finding *acs = finding(&f, "GA-PCI-ACS-REDIRECT");
	assert_non_null(acs);
	assert_string_equal(acs->subject, "0000:00:01.0");
	assert_int_equal(acs->action, GA_ACT_FIX_CONFIG);
	ga_findings_release(&f);
	ga_node_free(n);
	ga_ctx_free(ctx);

	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint), cmocka_unit_test(test_bridge_and_sizes),
		cmocka_unit_test(test_loops),    cmocka_unit_test(test_pciids),
		cmocka_unit_test(test_collect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
