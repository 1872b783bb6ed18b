/*
 * fuzz_pciconf.c - the PCI configuration space parser (lib/collect/pciconf.c) on any
 * bytes, as sysfs `config` of a hostile or broken device could read: byte 0 picks the
 * length parsed (64, 256, 4096 or all of the rest), the rest is the space. Checks:
 * inputs under 64 bytes are refused; capability counts stay within their bounds (every
 * list walk ends, also on cycles); link values are sysfs's (a known speed, width 0..63);
 * names are known or NULL; the ACS flag names match the set bits.
 */
#include <string.h>

#include "collect/pciconf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const size_t lens[4] = { 64, 256, 4096, 0 };
	size_t want = lens[data[0] & 3];
	const uint8_t *b = data + 1;
	size_t len = size - 1;
	if (want && want < len)
		len = want;
	struct ga_pciconf pc;
	int r = ga_pciconf_parse(b, len, &pc);
	if (len < 64) {
		FUZZ_CHECK(r == -1);
		return 0;
	}
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(pc.len == (len > 4096 ? 4096 : len));
	FUZZ_CHECK(pc.n_caps <= GA_PCICONF_MAX_CAPS && pc.n_ext <= GA_PCICONF_MAX_EXT);
	FUZZ_CHECK(pc.vendor == (uint16_t)(b[0] | b[1] << 8));
	if (!pc.pcie)
		FUZZ_CHECK(pc.n_ext == 0 && !pc.has_link && !pc.aer && !pc.acs);
	if (pc.aer || pc.acs)
		FUZZ_CHECK(pc.len > 0x100);
	double s = ga_pciconf_cur_speed_gts(&pc), m = ga_pciconf_max_speed_gts(&pc);
	FUZZ_CHECK(s == -1 || (s >= 2.5 && s <= 64));
	FUZZ_CHECK(m == -1 || (m >= 2.5 && m <= 64));
	FUZZ_CHECK(ga_pciconf_cur_width(&pc) <= 63 && ga_pciconf_max_width(&pc) <= 63);
	if (!pc.has_link)
		FUZZ_CHECK(s == -1 && ga_pciconf_cur_width(&pc) == 0);
	const char *t = ga_pciconf_port_type_name(pc.pcie_port_type);
	FUZZ_CHECK(!t || strlen(t) < 32);
	FUZZ_CHECK(ga_pciconf_aspm_name(pc.lnkctl) != NULL);
	const char *names[7];
	size_t n = ga_pciconf_acs_names(pc.acs_ctl, names);
	size_t bits = 0;
	for (unsigned i = 0; i < 7; i++)
		bits += (pc.acs_ctl >> i) & 1u;
	FUZZ_CHECK(n == bits);
	return 0;
}
