/*
 * aer.c - the kernel's PCIe AER error names (aer.def) and the decision on a
 * device's AER messages that health and explain share (docs/health.md).
 */
#include <stdio.h>
#include <string.h>

#include "gpuaudit/aer.h"
#include "internal.h"

static const struct ga_aer_fact facts[] = {
#define AER(unc, bit, name, layer) { unc, bit, name, GA_AER_##layer },
#include "aer.def"
#undef AER
};

const struct ga_aer_fact *ga_aer_facts(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(facts);
	return facts;
}

const struct ga_aer_fact *ga_aer_fact(bool uncorrectable, unsigned bit)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(facts); i++)
		if (facts[i].uncorrectable == uncorrectable && facts[i].bit == bit)
			return &facts[i];
	return NULL;
}

const char *ga_aer_layer_name(enum ga_aer_layer l)
{
	switch (l) {
	case GA_AER_PHYSICAL:
		return "physical";
	case GA_AER_DATA_LINK:
		return "data-link";
	case GA_AER_TRANSACTION:
		break;
	}
	return "transaction";
}

bool ga_aer_decide(enum ga_aer_class c, const uint32_t types[32], uint64_t messages,
                   enum ga_action *ret_action, enum ga_severity *ret_sev)
{
	if (c == GA_AER_FATAL) {
		/*
		 * pcieaer-howto: the link is unreliable; the kernel resets it, and a failed
		 * recovery leaves the device unusable. A person reboots, reseats or replaces:
		 * drain (the recorded incidents of tests/corpus conclude the same, docs/health.md)
		 */
		*ret_action = GA_ACT_DRAIN, *ret_sev = GA_SEV_CRITICAL;
		return false;
	}
	if (c == GA_AER_NONFATAL) {
		/* the transaction is lost, the link still works: take the node out until it is looked at */
		*ret_action = GA_ACT_DRAIN, *ret_sev = GA_SEV_ERROR;
		return false;
	}
	uint32_t most = 0;
	for (unsigned b = 0; types && b < 32; b++)
		if (types[b] > most)
			most = types[b];
	bool storm = most >= GA_AER_STORM || (!most && messages >= GA_AER_STORM);
	if (storm)
		*ret_action = GA_ACT_INVESTIGATE, *ret_sev = GA_SEV_WARNING;
	else
		*ret_action = GA_ACT_NONE, *ret_sev = GA_SEV_INFO;
	return storm;
}

void ga_aer_types_text(bool uncorrectable, const uint32_t types[32], char *out, size_t cap)
{
	bool done[32] = { false };
	size_t l = 0;
	if (!cap)
		return;
	out[0] = '\0';
	for (;;) {
		int pick = -1;
		for (unsigned b = 0; b < 32; b++)
			if (!done[b] && types[b] && (pick < 0 || types[b] > types[pick]))
				pick = (int)b;
		if (pick < 0 || l + 1 >= cap)
			break;
		done[pick] = true;
		const struct ga_aer_fact *f = ga_aer_fact(uncorrectable, (unsigned)pick);
		char name[24];
		if (f)
			snprintf(name, sizeof(name), "%s", f->name);
		else
			snprintf(name, sizeof(name), "bit %d", pick);
		int k = snprintf(out + l, cap - l, "%s%s x%u", l ? ", " : "", name, types[pick]);
		if (k < 0 || (size_t)k >= cap - l) {
			out[l] = '\0';
			break;
		}
		l += (size_t)k;
	}
}
