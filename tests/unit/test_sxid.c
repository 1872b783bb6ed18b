/*
 * test_sxid.c - the SXid table (lib/core/sxid.def) against the facts file
 * transcribed from NVIDIA's Fabric Manager user guide (tests/fixtures/sxid/
 * nvidia-fm-sxid.tsv): every SXid the guide lists is in the table with the same
 * table, name and recovery words, and nothing else is; every row's action follows
 * the one mapping (docs/xid.md "SXids") unless the row says why it departs; a
 * line's Fatal token raises a row that asks less.
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
	return n_rows ? 0 : -1;
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
		cmocka_unit_test(test_facts_equal),
		cmocka_unit_test(test_mapping_applied),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_lines),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
