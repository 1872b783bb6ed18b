/*
 * test_xid.c - the Xid table (lib/core/xid.def) against the facts file
 * transcribed from NVIDIA's Xid catalogue (tests/fixtures/xid/
 * nvidia-xid-catalog.tsv): every published Xid is in the table with the same
 * mnemonic, description and buckets; every row's action follows the one
 * mapping (docs/xid.md) unless the row says why it departs; the code catalogue
 * carries each row as GA-XID-<n>.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "facts-tsv.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/xid.h"

#define MAX_ROWS 512

struct row {
	unsigned xid;
	char mnemonic[96], description[160], immediate[48], investigatory[96];
};

static struct row rows[MAX_ROWS];
static size_t n_rows;

static int load(void **state)
{
	(void)state;
	struct facts_tsv tsv;
	if (facts_open(&tsv, "xid/nvidia-xid-catalog.tsv") < 0)
		return -1;
	char *f[5];
	size_t nf;
	while ((nf = facts_row(&tsv, f, 5))) {
		if (nf != 5 || n_rows == MAX_ROWS) {
			facts_close(&tsv);
			return -1;
		}
		struct row *r = &rows[n_rows++];
		char *end;
		r->xid = (unsigned)strtoul(f[0], &end, 10);
		if (*end)
			return facts_close(&tsv), -1;
		snprintf(r->mnemonic, sizeof(r->mnemonic), "%s", f[1]);
		snprintf(r->description, sizeof(r->description), "%s", f[2]);
		snprintf(r->immediate, sizeof(r->immediate), "%s", f[3]);
		snprintf(r->investigatory, sizeof(r->investigatory), "%s", strcmp(f[4], "-") ? f[4] : "");
	}
	facts_close(&tsv);
	return n_rows ? 0 : -1;
}

/* Every published Xid is in the table, equal in every fact, and the table has nothing else. */
static void test_facts_equal(void **state)
{
	(void)state;
	size_t n;
	const struct ga_xid_fact *t = ga_xid_facts(&n);
	assert_int_equal(n, n_rows);
	for (size_t i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		const struct ga_xid_fact *f = ga_xid_fact(r->xid);
		if (!f)
			fail_msg("Xid %u (%s) is published and missing from lib/core/xid.def", r->xid,
			         r->mnemonic);
		assert_int_equal(f->xid, r->xid);
		assert_string_equal(f->mnemonic, r->mnemonic);
		assert_string_equal(f->description, r->description);
		enum ga_xid_bucket b;
		if (ga_xid_bucket_parse(r->immediate, &b) < 0)
			fail_msg("Xid %u: bucket %s has no enum value", r->xid, r->immediate);
		if (f->immediate != b)
			fail_msg("Xid %u: immediate bucket %s in the table, %s in the catalogue", r->xid,
			         ga_xid_bucket_name(f->immediate), r->immediate);
		assert_string_equal(f->investigatory, r->investigatory);
		assert_int_equal(ga_xid_unused(f), !strcmp(r->description, "Unused"));
	}
	/* rows are in order without gaps: ga_xid_fact indexes them */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i].xid, i + 1);
	assert_null(ga_xid_fact(0));
	assert_null(ga_xid_fact(n + 1));
}

/* The mapping is applied to every row; a departure is documented and real. */
static void test_mapping_applied(void **state)
{
	(void)state;
	size_t n;
	const struct ga_xid_fact *t = ga_xid_facts(&n);
	for (size_t i = 0; i < n; i++) {
		enum ga_action a;
		enum ga_severity s;
		ga_xid_bucket_default(t[i].immediate, &a, &s);
		bool same = a == t[i].action && s == t[i].severity;
		if (!same && !t[i].departure[0])
			fail_msg("Xid %u departs from the mapping (%s -> %s) without a reason", t[i].xid,
			         ga_xid_bucket_name(t[i].immediate), ga_action_name(a));
		if (same && t[i].departure[0])
			fail_msg("Xid %u has a departure reason but follows the mapping", t[i].xid);
		/* an unused Xid is never driver-fatal */
		if (ga_xid_unused(&t[i])) {
			assert_true(t[i].action == GA_ACT_INVESTIGATE || t[i].action == GA_ACT_NONE);
			assert_true(t[i].severity <= GA_SEV_WARNING);
		}
		/* the code catalogue carries the row */
		char code[32];
		enum ga_action da;
		enum ga_cause dc;
		snprintf(code, sizeof(code), "GA-XID-%u", t[i].xid);
		assert_int_equal(ga_action_default(code, &da, &dc), 2);
		assert_int_equal(da, t[i].action);
		assert_int_equal(dc, t[i].cause);
		/* the kernel-log lookup reads the same row */
		struct ga_xid_info x;
		assert_int_equal(ga_xid_lookup(t[i].xid, &x), 1);
		assert_int_equal(x.act, t[i].action);
		assert_int_equal(x.severity, t[i].severity);
		assert_string_equal(x.mnemonic, t[i].mnemonic);
	}
}

/* The mapping itself, bucket by bucket (docs/xid.md). */
static void test_mapping(void **state)
{
	(void)state;
	static const struct {
		const char *bucket;
		enum ga_action act;
		enum ga_severity sev;
	} want[] = {
		{ "RESTART_APP", GA_ACT_RESTART_WORKLOAD, GA_SEV_WARNING },
		{ "RESET_GPU", GA_ACT_RESET_GPU, GA_SEV_CRITICAL },
		{ "RESTART_BM", GA_ACT_REBOOT, GA_SEV_CRITICAL },
		{ "RESTART_VM", GA_ACT_REBOOT, GA_SEV_CRITICAL },
		{ "IGNORE", GA_ACT_NONE, GA_SEV_INFO },
		{ "CHECK_MECHANICALS", GA_ACT_DRAIN, GA_SEV_ERROR },
		{ "CHECK_UVM", GA_ACT_INVESTIGATE, GA_SEV_WARNING },
		{ "UPDATE_SWFW", GA_ACT_FIX_CONFIG, GA_SEV_ERROR },
		{ "CONTACT_SUPPORT", GA_ACT_INVESTIGATE, GA_SEV_WARNING },
		{ "WORKFLOW_XID_45", GA_ACT_INVESTIGATE, GA_SEV_INFO },
		{ "WORKFLOW_XID_48", GA_ACT_RESET_GPU, GA_SEV_CRITICAL },
		{ "WORKFLOW_NVLINK_ERR", GA_ACT_RESET_GPU, GA_SEV_ERROR },
		{ "WORKFLOW_NVLINK5_ERR", GA_ACT_INVESTIGATE, GA_SEV_WARNING },
		{ "XID_154", GA_ACT_INVESTIGATE, GA_SEV_WARNING },
		{ "-", GA_ACT_INVESTIGATE, GA_SEV_WARNING },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum ga_xid_bucket b;
		enum ga_action a;
		enum ga_severity s;
		assert_int_equal(ga_xid_bucket_parse(want[i].bucket, &b), 0);
		ga_xid_bucket_default(b, &a, &s);
		assert_int_equal(a, want[i].act);
		assert_int_equal(s, want[i].sev);
	}
	enum ga_xid_bucket b;
	assert_int_equal(ga_xid_bucket_parse("REBOOT_PLEASE", &b), -EINVAL);
	/* the NVML recovery actions */
	static const enum ga_action rec[] = { GA_ACT_NONE,      GA_ACT_RESET_GPU, GA_ACT_REBOOT,
		                              GA_ACT_DRAIN,     GA_ACT_RESET_GPU, GA_ACT_INVESTIGATE,
		                              GA_ACT_RESET_GPU, GA_ACT_REBOOT };
	for (int r = 0; r < 8; r++) {
		enum ga_action a;
		enum ga_severity s;
		ga_xid_recovery_default(r, &a, &s);
		assert_int_equal(a, rec[r]);
	}
}

/* The NVLink5 decode table (xid_nvlink5.def) against its facts file, row by row. */
static void test_nvl5_facts(void **state)
{
	(void)state;
	struct facts_tsv tsv;
	assert_int_equal(facts_open(&tsv, "xid/nvidia-xid-nvlink5-decode.tsv"), 0);
	size_t n;
	const struct ga_xid_nvl5_fact *t = ga_xid_nvl5_facts(&n);
	size_t k = 0, nf;
	char *f[7];
	while ((nf = facts_row(&tsv, f, 7))) {
		assert_int_equal(nf, 7);
		if (k == n)
			fail_msg("the decode sheet row %s %s %s is missing from xid_nvlink5.def", f[0], f[1],
			         f[2]);
		const struct ga_xid_nvl5_fact *r = &t[k++];
		assert_int_equal(r->xid, strtoul(f[0], NULL, 10));
		assert_string_equal(r->unit, f[1]);
		assert_int_equal(r->status, strtoul(f[2], NULL, 16));
		assert_string_equal(r->severity, f[3]);
		assert_string_equal(r->immediate, f[4]);
		assert_string_equal(r->investigatory, f[5]);
		assert_string_equal(r->action2, f[6]);
		/* the mapping, or a documented departure */
		enum ga_action a;
		enum ga_severity s;
		if (ga_xid_nvl5_default(r->immediate, &a, &s) < 0)
			fail_msg("Xid %u %s: resolution %s has no mapping", r->xid, r->unit, r->immediate);
		bool same = a == r->action && s == r->gseverity;
		if (same == (r->departure[0] != '\0'))
			fail_msg("Xid %u %s 0x%08x: departure and mapping disagree", r->xid, r->unit,
			         r->status);
		/* every row is an NVLink5 Xid of the catalogue */
		const struct ga_xid_fact *x = ga_xid_fact(r->xid);
		assert_non_null(x);
		assert_int_equal(x->immediate, GA_XB_WORKFLOW_NVLINK5_ERR);
		/* the sheet's Fatal rows are the ones that reset the GPU */
		assert_int_equal(!strncmp(r->severity, "Fatal", 5), r->action == GA_ACT_RESET_GPU);
	}
	facts_close(&tsv);
	assert_int_equal(k, n);
}

/* Lines built from the documented form decode to the sheet's row. */
static void test_nvl5_lines(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		const char *unit;
		uint64_t link;
		enum ga_action act;
		enum ga_severity sev;
	} cases[] = {
		/* a fatal bit of RLW_REMAP: reset the GPU */
		{ "NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Fatal XC0 i0 Link 07 (0x00000004 0x00000040 "
		  "0x00000000 0x00000000)",
		  "RLW_REMAP", 7, GA_ACT_RESET_GPU, GA_SEV_ERROR },
		/* a non-fatal bit: nothing to do */
		{ "NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 07 (0x00000004 "
		  "0x00000100 0x00000000 0x00000000)",
		  "RLW_REMAP", 7, GA_ACT_NONE, GA_SEV_INFO },
		/* XID_154_EVAL: the Xid 154 line that follows decides */
		{ "NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 02 (0x00000004 "
		  "0x00000001 0x00000000 0x00000000)",
		  "RLW_REMAP", 2, GA_ACT_INVESTIGATE, GA_SEV_WARNING },
		/* two bits, one fatal: the most urgent row */
		{ "NVRM: Xid (PCI:0000:04:00): 144, SAW_MVB Fatal XC0 i0 Link 00 (0x00000001 0x00000003 "
		  "0x00000000 0x00000000)",
		  "SAW_MVB", 0, GA_ACT_RESET_GPU, GA_SEV_ERROR },
		/* NETIR's status is a value: 3 is its own (non-fatal) row, not bits 1 and 2 */
		{ "NVRM: Xid (PCI:0008:01:00): 149, NETIR_MFDE_EVENT Nonfatal XC0 i0 Link 08 (0x004505c6 "
		  "0x00000003 0x00000000 0x00000000)",
		  "NETIR_MFDE_EVENT", 8, GA_ACT_NONE, GA_SEV_INFO },
		{ "NVRM: Xid (PCI:0008:01:00): 149, NETIR_MFDE_EVENT Fatal XC0 i0 Link 08 (0x004505c6 "
		  "0x00000005 0x00000000 0x00000000)",
		  "NETIR_MFDE_EVENT", 8, GA_ACT_RESET_GPU, GA_SEV_ERROR },
		/* a unit the sheet does not decode: the Fatal token decides (docs/xid.md) */
		{ "NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 08 (0x004505c6 "
		  "0x00000000 0x00000000 0x00000000)",
		  "NETIR_LINK_EVT", 8, GA_ACT_RESET_GPU, GA_SEV_ERROR },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ga_kevent ev;
		assert_int_equal(ga_kevent_parse(NULL, cases[i].line, strlen(cases[i].line), &ev), 1);
		assert_int_equal(ev.kind, GA_KEV_XID);
		assert_string_equal(ev.nvl_unit, cases[i].unit);
		assert_true(ev.link.set);
		assert_int_equal(ev.link.v, cases[i].link);
		enum ga_action a;
		enum ga_severity s;
		assert_int_equal(ga_kev_xid_line(&ev, &a, &s), 1);
		if (a != cases[i].act || s != cases[i].sev)
			fail_msg("case %zu: %s/%d, want %s/%d", i, ga_action_name(a), (int)s,
			         ga_action_name(cases[i].act), (int)cases[i].sev);
	}
	/* the decode itself: an unknown unit, a status with no row */
	assert_null(ga_xid_nvl5_decode(145, "NO_SUCH_UNIT", 12, 0x40));
	assert_null(ga_xid_nvl5_decode(146, "TLW_CTRL", 8, 0x00000100));
	assert_non_null(ga_xid_nvl5_decode(150, "MSE_WATCHDOG", 12, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_equal), cmocka_unit_test(test_mapping_applied),
		cmocka_unit_test(test_mapping),     cmocka_unit_test(test_nvl5_facts),
		cmocka_unit_test(test_nvl5_lines),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
