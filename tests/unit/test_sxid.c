/*
 * test_sxid.c - the SXid table (lib/core/sxid.def) against the facts file
 * transcribed from NVIDIA's Fabric Manager user guide (tests/fixtures/sxid/
 * nvidia-fm-sxid.tsv): every SXid the guide lists is in the table with the same
 * table, name and recovery words, and nothing else is; every row's action follows
 * the one mapping (docs/xid.md "SXids") unless the row says why it departs; a
 * line's Fatal token raises a row that asks less. The driver's own list of NVSwitch
 * error numbers (tests/fixtures/sxid/nvswitch-driver-errors.tsv, from NVIDIA's
 * open-gpu-kernel-modules) is held equal to lib/core/sxid-driver.def, holds every SXid
 * of the guide, and agrees with the guide's words on the unit and the kind of error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "facts-tsv.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/sxid.h"

#define MAX_ROWS 256

struct row {
	unsigned sxid;
	char table[24], name[96], recovery[192];
};

static struct row rows[MAX_ROWS];
static size_t n_rows;

#define MAX_DRV 512
struct drv_row {
	unsigned sxid;
	char name[80];
};
static struct drv_row drv[MAX_DRV];
static size_t n_drv;

static int load_driver(void)
{
	struct facts_tsv tsv;
	if (facts_open(&tsv, "sxid/nvswitch-driver-errors.tsv") < 0)
		return -1;
	char *f[2];
	size_t nf;
	while ((nf = facts_row(&tsv, f, 2))) {
		if (nf != 2 || n_drv == MAX_DRV)
			return facts_close(&tsv), -1;
		char *end;
		drv[n_drv].sxid = (unsigned)strtoul(f[0], &end, 10);
		if (*end)
			return facts_close(&tsv), -1;
		snprintf(drv[n_drv].name, sizeof(drv[n_drv].name), "%s", f[1]);
		n_drv++;
	}
	facts_close(&tsv);
	return n_drv ? 0 : -1;
}

static int load(void **state)
{
	(void)state;
	struct facts_tsv tsv;
	if (facts_open(&tsv, "sxid/nvidia-fm-sxid.tsv") < 0)
		return -1;
	char *f[4];
	size_t nf;
	while ((nf = facts_row(&tsv, f, 4))) {
		if (nf != 4 || n_rows == MAX_ROWS) {
			facts_close(&tsv);
			return -1;
		}
		struct row *r = &rows[n_rows++];
		char *end;
		r->sxid = (unsigned)strtoul(f[0], &end, 10);
		if (*end)
			return facts_close(&tsv), -1;
		snprintf(r->table, sizeof(r->table), "%s", f[1]);
		snprintf(r->name, sizeof(r->name), "%s", f[2]);
		snprintf(r->recovery, sizeof(r->recovery), "%s", f[3]);
	}
	facts_close(&tsv);
	return n_rows && load_driver() == 0 ? 0 : -1;
}

/* Every SXid of the guide is in the table, equal in every fact; the table has nothing else. */
static void test_facts_equal(void **state)
{
	(void)state;
	size_t n;
	const struct ga_sxid_fact *t = ga_sxid_facts(&n);
	for (size_t i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		const struct ga_sxid_fact *f = ga_sxid_fact(r->sxid);
		if (!f)
			fail_msg("SXid %u (%s) is in the guide and missing from lib/core/sxid.def", r->sxid,
			         r->name);
		enum ga_sxid_table tb;
		if (ga_sxid_table_parse(r->table, &tb) < 0)
			fail_msg("SXid %u: table %s has no enum value", r->sxid, r->table);
		if (f->table != tb)
			fail_msg("SXid %u: table %s in sxid.def, %s in the guide", r->sxid,
			         ga_sxid_table_name(f->table), r->table);
		assert_string_equal(f->name, r->name);
		assert_string_equal(f->recovery, r->recovery);
	}
	if (n != n_rows)
		fail_msg("sxid.def has %zu rows, the guide %zu", n, n_rows);
	/* in order, no duplicates: ga_sxid_fact searches them */
	for (size_t i = 1; i < n; i++)
		assert_true(t[i - 1].sxid < t[i].sxid);
	assert_null(ga_sxid_fact(0));
	assert_null(ga_sxid_fact(20009)); /* not in the guide's tables */
	assert_null(ga_sxid_fact(99999));
}

/* The driver's list: equal to sxid-driver.def, in order, every number once. */
static void test_driver_equal(void **state)
{
	(void)state;
	size_t n;
	const struct ga_sxid_driver_row *t = ga_sxid_driver_rows(&n);
	if (n != n_drv)
		fail_msg("sxid-driver.def has %zu rows, the driver's header %zu", n, n_drv);
	for (size_t i = 0; i < n; i++) {
		if (t[i].sxid != drv[i].sxid || strcmp(t[i].name, drv[i].name))
			fail_msg("row %zu: %u %s in sxid-driver.def, %u %s in the header", i, t[i].sxid,
			         t[i].name, drv[i].sxid, drv[i].name);
		if (i)
			assert_true(t[i - 1].sxid < t[i].sxid);
		assert_string_equal(ga_sxid_driver_name(drv[i].sxid), drv[i].name);
	}
	assert_string_equal(ga_sxid_driver_name(12028), "NPORT_EGRESS_PRIVRSPERR");
	assert_string_equal(ga_sxid_driver_name(20009), "DLPL_RX_SHORT_ERROR_RATE");
	assert_null(ga_sxid_driver_name(0));
	assert_null(ga_sxid_driver_name(9999));
	assert_null(ga_sxid_driver_name(99999));
	assert_string_equal(ga_sxid_driver_version(), "595.45.04");
}

/* The words health and explain both print for an SXid (one function, one wording). */
static void test_words(void **state)
{
	(void)state;
	char w[128], small[8];
	ga_sxid_words(12028, 1, w, sizeof(w));
	assert_string_equal(w, "egress nonposted PRIV error, non-fatal");
	ga_sxid_words(12028, 0, w, sizeof(w));
	assert_string_equal(w, "egress nonposted PRIV error");
	ga_sxid_words(20009, 1, w, sizeof(w));
	assert_string_equal(w,
	                    "DLPL_RX_SHORT_ERROR_RATE in driver 595.45.04, not in the Fabric Manager guide");
	ga_sxid_words(9999, 0, w, sizeof(w));
	assert_string_equal(w, "not an NVSwitch error number of driver 595.45.04");
	ga_sxid_words(12028, 1, small, sizeof(small));
	assert_string_equal(small, "egress ");
	ga_sxid_words(12028, 1, small, 0); /* nothing written, no crash */
}

/*
 * The guide (as transcribed) against the driver: every SXid the guide lists is a number
 * the driver defines, and where the guide's words name the unit or the kind of error, the
 * driver's name says the same. One known disagreement is listed with its reason.
 */
static void test_guide_in_driver(void **state)
{
	(void)state;
	static const struct {
		const char *guide_word; /* in the guide's name, any case */
		const char *driver_word;
	} agree[] = {
		{ "single bit ecc", "ECC_LIMIT" }, /* a corrected error over its threshold */
		{ "dbe", "DBE" },                  /* double-bit error */
		{ "host_", "HOST_" },
		{ "ingress", "INGRESS" },
		{ "egress", "EGRESS" },
		{ "route", "ROUTE" },
		{ "ts ", "TSTATE" },
		{ "sourcetrack", "SOURCETRACK" },
		{ "minion", "MINION" },
		{ "parity", "PAR" },
		{ "heartbeat", "HEARTBEAT" },
		{ "thermal", "THERMAL" },
		{ "replay", "REPLAY" },
		{ "ltssm", "LTSSM" },
	};
	/*
	 * 23017: the guide's words (as transcribed) say "ingress credit parity error", the
	 * driver names it NXBAR_TILEOUT_EGRESS_CDT_PARITY_ERROR. The row is always-fatal
	 * either way, so the action does not depend on it (docs/xid.md "SXids").
	 */
	static const unsigned known[] = { 23017 };
	size_t n;
	const struct ga_sxid_fact *t = ga_sxid_facts(&n);
	size_t disagree = 0;
	for (size_t i = 0; i < n; i++) {
		const char *dn = ga_sxid_driver_name(t[i].sxid);
		if (!dn)
			fail_msg("SXid %u (%s) is in the guide and not among the driver's numbers", t[i].sxid,
			         t[i].name);
		char lower[96];
		size_t k = 0;
		for (; t[i].name[k] && k + 1 < sizeof(lower); k++)
			lower[k] = (char)((t[i].name[k] >= 'A' && t[i].name[k] <= 'Z') ? t[i].name[k] + 32
			                                                               : t[i].name[k]);
		lower[k] = 0;
		bool ok = true;
		for (size_t j = 0; j < sizeof(agree) / sizeof(agree[0]); j++)
			if (strstr(lower, agree[j].guide_word) && !strstr(dn, agree[j].driver_word))
				ok = false;
		bool is_known = false;
		for (size_t j = 0; j < sizeof(known) / sizeof(known[0]); j++)
			is_known |= known[j] == t[i].sxid;
		if (!ok && !is_known)
			fail_msg("SXid %u: the guide says '%s', the driver %s", t[i].sxid, t[i].name, dn);
		if (is_known && ok)
			fail_msg("SXid %u is listed as a disagreement but agrees", t[i].sxid);
		disagree += !ok;
	}
	assert_int_equal(disagree, sizeof(known) / sizeof(known[0]));
}

/* The mapping is applied to every row; a departure is documented and real. */
static void test_mapping_applied(void **state)
{
	(void)state;
	size_t n;
	const struct ga_sxid_fact *t = ga_sxid_facts(&n);
	for (size_t i = 0; i < n; i++) {
		enum ga_action a;
		enum ga_severity s;
		ga_sxid_table_default(t[i].table, &a, &s);
		bool same = a == t[i].action && s == t[i].severity;
		if (!same && !t[i].departure[0])
			fail_msg("SXid %u departs from the mapping (%s -> %s) without a reason", t[i].sxid,
			         ga_sxid_table_name(t[i].table), ga_action_name(a));
		if (same && t[i].departure[0])
			fail_msg("SXid %u has a departure reason but follows the mapping", t[i].sxid);
		/* the guide's fatal tables are never less than error */
		if (t[i].table == GA_SXT_FATAL || t[i].table == GA_SXT_ALWAYS_FATAL)
			assert_true(t[i].severity >= GA_SEV_ERROR);
	}
}

/* The mapping itself, and what a line's token does to it. */
static void test_mapping(void **state)
{
	(void)state;
	static const struct {
		const char *table;
		enum ga_action act;
		enum ga_severity sev;
	} want[] = {
		{ "non-fatal", GA_ACT_NONE, GA_SEV_INFO },
		{ "fatal", GA_ACT_REBOOT, GA_SEV_ERROR },
		{ "always-fatal", GA_ACT_REBOOT, GA_SEV_CRITICAL },
		{ "notable", GA_ACT_INVESTIGATE, GA_SEV_WARNING },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum ga_sxid_table tb;
		enum ga_action a;
		enum ga_severity s;
		assert_int_equal(ga_sxid_table_parse(want[i].table, &tb), 0);
		assert_string_equal(ga_sxid_table_name(tb), want[i].table);
		ga_sxid_table_default(tb, &a, &s);
		assert_int_equal(a, want[i].act);
		assert_int_equal(s, want[i].sev);
	}
	enum ga_sxid_table tb;
	assert_int_equal(ga_sxid_table_parse("sometimes-fatal", &tb), -EINVAL);
	assert_string_equal(ga_sxid_table_name(GA_SXT__COUNT), "");

	enum ga_action a;
	enum ga_severity s;
	/* a corrected ECC error: nothing to do; the same number said Fatal: reboot */
	assert_non_null(ga_sxid_decide(11012, 0, &a, &s));
	assert_int_equal(a, GA_ACT_NONE);
	assert_int_equal(s, GA_SEV_INFO);
	assert_non_null(ga_sxid_decide(11012, 1, &a, &s));
	assert_int_equal(a, GA_ACT_REBOOT);
	assert_int_equal(s, GA_SEV_ERROR);
	/* always fatal stays critical whatever the token */
	assert_non_null(ga_sxid_decide(22003, 0, &a, &s));
	assert_int_equal(a, GA_ACT_REBOOT);
	assert_int_equal(s, GA_SEV_CRITICAL);
	/* check the cables: drain, and a Fatal token does not lower it to reboot */
	assert_non_null(ga_sxid_decide(20012, 1, &a, &s));
	assert_int_equal(a, GA_ACT_DRAIN);
	assert_int_equal(s, GA_SEV_ERROR);
	/* an SXid the guide does not list: the token decides */
	assert_null(ga_sxid_decide(20009, -1, &a, &s));
	assert_int_equal(a, GA_ACT_INVESTIGATE);
	assert_int_equal(s, GA_SEV_WARNING);
	assert_null(ga_sxid_decide(20009, 1, &a, &s));
	assert_int_equal(a, GA_ACT_REBOOT);
	assert_int_equal(s, GA_SEV_ERROR);
}

/* Kernel-log lines in the driver's form: number, switch, token and link; the row decides. */
static void test_lines(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		const char *address;
		uint64_t sxid, link;
		enum ga_kev_fatal fatal;
		enum ga_action act;
		enum ga_severity sev;
	} cases[] = {
		{ "[ 1234.567890] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 "
		  "egress non-posted PRIV error (First)",
		  "0000:05:00.0", 12028, 32, GA_KEV_FATAL_NO, GA_ACT_RESTART_WORKLOAD, GA_SEV_WARNING },
		{ "nvidia-nvswitch3: SXid (PCI:0000:8a:00.0): 11012, Non-fatal, Link 61 single bit ECC "
		  "error",
		  "0000:8a:00.0", 11012, 61, GA_KEV_FATAL_NO, GA_ACT_NONE, GA_SEV_INFO },
		{ "nvidia-nvswitch0: SXid (PCI:0000:a9:00.0): 20034, Fatal, Link 30 LTSSM Fault Up",
		  "0000:a9:00.0", 20034, 30, GA_KEV_FATAL_YES, GA_ACT_REBOOT, GA_SEV_ERROR },
		{ "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 22003, Fatal, Link 04 Minion Halt",
		  "0000:06:00.0", 22003, 4, GA_KEV_FATAL_YES, GA_ACT_REBOOT, GA_SEV_CRITICAL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ga_kevent ev;
		assert_int_equal(ga_kevent_parse(NULL, cases[i].line, strlen(cases[i].line), &ev), 1);
		assert_int_equal(ev.kind, GA_KEV_SXID);
		assert_string_equal(ev.address, cases[i].address);
		assert_int_equal(ev.code.v, cases[i].sxid);
		assert_true(ev.link.set);
		assert_int_equal(ev.link.v, cases[i].link);
		assert_int_equal(ev.fatal, cases[i].fatal);
		enum ga_action a;
		enum ga_severity s;
		assert_non_null(ga_kev_sxid(&ev, &a, &s));
		assert_int_equal(a, cases[i].act);
		assert_int_equal(s, cases[i].sev);
		assert_int_equal(ga_kev_severity(&ev), cases[i].sev);
		assert_string_equal(ga_kev_action(&ev), ga_sxid_action_text(cases[i].act));
	}
	/* no link named: unset */
	const char *l = "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 10004, Non-fatal, thermal event";
	struct ga_kevent ev;
	assert_int_equal(ga_kevent_parse(NULL, l, strlen(l), &ev), 1);
	assert_false(ev.link.set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_equal),     cmocka_unit_test(test_driver_equal),
		cmocka_unit_test(test_guide_in_driver), cmocka_unit_test(test_mapping_applied),
		cmocka_unit_test(test_mapping),         cmocka_unit_test(test_lines),
		cmocka_unit_test(test_words),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
