/*
 * sxid.c - the SXid facts of sxid.def (NVIDIA's Fabric Manager user guide) and
 * the one mapping from the guide's tables to gpuaudit's actions (docs/xid.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/sxid.h"
#include "internal.h"

static const struct ga_sxid_fact facts[] = {
#define SXID(n, table, name, rec, act, sev, why) \
	{ n, GA_SXT_##table, name, rec, GA_ACT_##act, GA_SEV_##sev, why },
#include "sxid.def"
#undef SXID
};

static const struct ga_sxid_driver_row driver_rows[] = {
#define SXDRV(n, name) { n, name },
#include "sxid-driver.def"
#undef SXDRV
};

static const char *const table_names[GA_SXT__COUNT] = {
	[GA_SXT_NONFATAL] = "non-fatal",
	[GA_SXT_FATAL] = "fatal",
	[GA_SXT_ALWAYS_FATAL] = "always-fatal",
	[GA_SXT_NOTABLE] = "notable",
};

const struct ga_sxid_fact *ga_sxid_fact(uint64_t sxid)
{
	/* rows are in SXid order (tests/unit/test_sxid.c): a binary search */
	size_t lo = 0, hi = GA_ARRAY_SIZE(facts);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (facts[mid].sxid == sxid)
			return &facts[mid];
		if (facts[mid].sxid < sxid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ga_sxid_fact *ga_sxid_facts(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(facts);
	return facts;
}

const char *ga_sxid_table_name(enum ga_sxid_table t)
{
	return (unsigned)t < GA_SXT__COUNT ? table_names[t] : "";
}

int ga_sxid_table_parse(const char *name, enum ga_sxid_table *ret)
{
	for (size_t i = 0; name && i < GA_SXT__COUNT; i++)
		if (!strcmp(name, table_names[i])) {
			*ret = (enum ga_sxid_table)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * The mapping (docs/xid.md "SXids" says why for each):
 *   non-fatal     none        info      (corrected, or no impact: "Not Applicable")
 *   fatal         reboot      error     (the port's traffic stops; resetting the NVSwitch
 *                                        and its GPUs, a reboot on bare metal, recovers it)
 *   always-fatal  reboot      critical  (the whole fabric: "restart the host")
 *   notable       investigate warning   (may be followed by fatal ones)
 */
void ga_sxid_table_default(enum ga_sxid_table t, enum ga_action *ret_action, enum ga_severity *ret_sev)
{
	enum ga_action a = GA_ACT_INVESTIGATE;
	enum ga_severity s = GA_SEV_WARNING;
	switch (t) {
	case GA_SXT_NONFATAL:
		a = GA_ACT_NONE, s = GA_SEV_INFO;
		break;
	case GA_SXT_FATAL:
		a = GA_ACT_REBOOT, s = GA_SEV_ERROR;
		break;
	case GA_SXT_ALWAYS_FATAL:
		a = GA_ACT_REBOOT, s = GA_SEV_CRITICAL;
		break;
	case GA_SXT_NOTABLE:
	case GA_SXT__COUNT:
		break;
	}
	*ret_action = a;
	*ret_sev = s;
}

const struct ga_sxid_fact *ga_sxid_decide(uint64_t sxid, int fatal, enum ga_action *ret_action,
                                          enum ga_severity *ret_sev)
{
	const struct ga_sxid_fact *f = ga_sxid_fact(sxid);
	enum ga_action a = GA_ACT_INVESTIGATE;
	enum ga_severity s = GA_SEV_WARNING;
	if (f)
		a = f->action, s = f->severity;
	if (fatal == 1 && s < GA_SEV_ERROR) {
		/* the driver says Fatal: the port's traffic stopped whatever the table says */
		a = GA_ACT_REBOOT, s = GA_SEV_ERROR;
	}
	*ret_action = a;
	*ret_sev = s;
	return f;
}

const char *ga_sxid_driver_name(uint64_t sxid)
{
	/* rows are in number order (tests/unit/test_sxid.c): a binary search */
	size_t lo = 0, hi = GA_ARRAY_SIZE(driver_rows);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (driver_rows[mid].sxid == sxid)
			return driver_rows[mid].name;
		if (driver_rows[mid].sxid < sxid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *ga_sxid_driver_version(void)
{
	return "595.45.04";
}

void ga_sxid_words(uint64_t sxid, int with_table, char *out, size_t cap)
{
	const struct ga_sxid_fact *f = ga_sxid_fact(sxid);
	const char *dn = f ? NULL : ga_sxid_driver_name(sxid);

	if (!cap)
		return;
	if (f && with_table)
		snprintf(out, cap, "%s, %s", f->name, ga_sxid_table_name(f->table));
	else if (f)
		snprintf(out, cap, "%s", f->name);
	else if (dn)
		snprintf(out, cap, "%s in driver %s, not in the Fabric Manager guide", dn,
		         ga_sxid_driver_version());
	else
		snprintf(out, cap, "not an NVSwitch error number of driver %s", ga_sxid_driver_version());
}

const struct ga_sxid_driver_row *ga_sxid_driver_rows(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(driver_rows);
	return driver_rows;
}
