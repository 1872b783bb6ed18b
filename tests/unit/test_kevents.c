/* test_kevents.c - the kernel-log line parser, the Xid catalogue, policy overrides and durations. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/kmsg.h"

static int parse(struct ga_kparse *st, const char *line, struct ga_kevent *ev)
{
	return ga_kevent_parse(st, line, strlen(line), ev);
}

static void test_xid_dmesg(void **state)
{
	(void)state;
	struct ga_kevent ev;
	assert_int_equal(parse(NULL,
	                       "[ 8123.456811] NVRM: Xid (PCI:0000:47:00): 79, pid=2741, name=python3, "
	                       "GPU has fallen off the bus.",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_XID);
	assert_true(ev.boot_s.set);
	assert_true(ev.boot_s.v > 8123.45681 && ev.boot_s.v < 8123.45682);
	assert_false(ev.wall_s.set);
	assert_true(ev.code.set);
	assert_int_equal(ev.code.v, 79);
	assert_string_equal(ev.address, "0000:47:00.0");
	assert_int_equal(ev.severity, GA_SEV_CRITICAL);
	/* NVIDIA: RESTART_BM */
	assert_string_equal(ga_kev_action(&ev), "drain and reboot the node");
	assert_true(ev.message_len > 0 && !strncmp(ev.message, "NVRM: Xid", 9));
}

static void test_forms(void **state)
{
	(void)state;
	struct ga_kevent ev;
	/* /dev/kmsg record */
	assert_int_equal(parse(NULL, "4,1022,8123500000,-;NVRM: Xid (PCI:0000:90:00): 48, pid=1, x", &ev), 1);
	assert_true(ev.boot_s.set);
	assert_true(ev.boot_s.v > 8123.4999 && ev.boot_s.v < 8123.5001);
	assert_int_equal(ev.code.v, 48);
	assert_string_equal(ev.address, "0000:90:00.0");
	/* short-iso */
	assert_int_equal(parse(NULL,
	                       "2025-06-01T08:00:00+0000 n17 kernel: NVRM: Xid (PCI:0008:01:00): 149, "
	                       "NETIR_LINK_EVT Fatal XC0 i0 Link 08 (0x0)",
	                       &ev),
	                 1);
	assert_true(ev.wall_s.set);
	assert_int_equal(ev.wall_s.v, 1748764800);
	assert_false(ev.boot_s.set);
	assert_int_equal(ev.fatal, GA_KEV_FATAL_YES);
	assert_int_equal(ev.severity, GA_SEV_ERROR);
	assert_string_equal(ev.address, "0008:01:00.0");
	assert_int_equal(parse(NULL, "NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT Nonfatal XC0", &ev), 1);
	assert_int_equal(ev.fatal, GA_KEV_FATAL_NO);
	assert_int_equal(ev.severity, GA_SEV_INFO); /* the 144-150 decode: non-fatal is IGNORE */
	assert_string_equal(ga_kev_action(&ev), "record");
	/* short (no year: no time) */
	assert_int_equal(
	        parse(NULL, "Mar 04 11:00:01 host kernel: NVRM: Xid (PCI:0000:07:00): 13, pid=1", &ev), 1);
	assert_false(ev.wall_s.set);
	assert_false(ev.boot_s.set);
	assert_int_equal(ev.severity, GA_SEV_WARNING);
	assert_string_equal(ga_kev_action(&ev), "restart the job; check the application if it repeats");
	/* short-monotonic */
	assert_int_equal(parse(NULL,
	                       "[  12.500000] host kernel: INFO: task x:1 blocked for more than 120 seconds.",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_HUNG_TASK);
	assert_true(ev.boot_s.set && ev.boot_s.v == 12.5);
	/* dmesg -T (TZ=UTC in ctest? use the parse only for the kind) */
	assert_int_equal(parse(NULL, "[Tue Mar  4 10:15:02 2025] NVRM: Xid (PCI:0000:0f:00): 48, x", &ev), 1);
	assert_true(ev.wall_s.set);
	assert_int_equal(ev.code.v, 48);
}

static void test_other_kinds(void **state)
{
	(void)state;
	struct ga_kevent ev;
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	assert_int_equal(
	        parse(&st, "[ 5100.2] nvidia-nvswitch4: SXid (PCI:0000:c8:00.0): 24007, Fatal, Link 44", &ev),
	        1);
	assert_int_equal(ev.kind, GA_KEV_SXID);
	assert_int_equal(ev.code.v, 24007);
	assert_string_equal(ev.address, "0000:c8:00.0");
	assert_int_equal(ev.severity, GA_SEV_ERROR);
	assert_int_equal(parse(&st, "[ 9000.5] NVRM: The NVIDIA GPU 0000:b7:00.0", &ev), 0);
	assert_int_equal(parse(&st, "               NVRM: fallen off the bus and is not responding", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_GPU_LOST);
	assert_string_equal(ev.address, "0000:b7:00.0");
	assert_true(ev.boot_s.set && ev.boot_s.v == 9000.5);
	assert_int_equal(parse(&st, "NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.", &ev), 1);
	assert_string_equal(ev.address, "0000:18:00.0");
	assert_int_equal(ev.severity, GA_SEV_CRITICAL);
	/* as people retell it, no address: a lost GPU all the same */
	assert_int_equal(parse(&st, "GPU has fallen off of the bus", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_GPU_LOST);
	assert_string_equal(ev.address, "");
	assert_int_equal(parse(&st, "the cable has fallen off the desk", &ev), 0);
	assert_int_equal(parse(&st, "amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_AMDGPU_RESET);
	assert_string_equal(ev.address, "0000:c1:00.0");
	/* the end of the reset that began: folded into it, not a second event */
	assert_int_equal(parse(&st, "amdgpu 0000:c1:00.0: amdgpu: GPU reset(2) succeeded!", &ev), 1);
	assert_true(ev.folded);
	assert_int_equal(ev.code.v, 2);
	assert_int_equal(parse(&st, "amdgpu 0000:c6:00.0: amdgpu: GPU reset(3) failed", &ev), 1);
	assert_int_equal(ev.severity, GA_SEV_CRITICAL);
	assert_int_equal(ev.code.v, 3);
	assert_int_equal(parse(&st,
	                       "amdgpu 0000:c1:00.0: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring "
	                       "gfx_0.0.0 timeout, signaled seq=1",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_AMDGPU_RING_TIMEOUT);
	assert_int_equal(
	        parse(&st,
	              "amdgpu 0000:d6:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block",
	              &ev),
	        1);
	assert_int_equal(ev.kind, GA_KEV_AMDGPU_RAS);
	assert_int_equal(parse(&st,
	                       "amdgpu 0000:d6:00.0: amdgpu: 3 correctable hardware errors detected in total "
	                       "in gfx block",
	                       &ev),
	                 0);
	assert_int_equal(
	        parse(&st, "pcieport 0000:16:01.0: AER: Corrected error received: 0000:17:00.0", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_AER_CORRECTED);
	assert_string_equal(ev.address, "0000:17:00.0");
	assert_int_equal(ev.severity, GA_SEV_INFO);
	assert_int_equal(
	        parse(&st, "pcieport 0000:00:03.0: AER: Correctable error message received from 0000:31:00.1",
	              &ev),
	        1);
	assert_string_equal(ev.address, "0000:31:00.1");
	assert_int_equal(parse(&st,
	                       "pcieport 0000:16:01.0: AER: Uncorrected (Fatal) error received: 0000:17:00.0",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_AER_UNCORRECTED);
	assert_int_equal(ev.severity, GA_SEV_CRITICAL);
	assert_int_equal(
	        parse(&st, "pcieport 0000:00:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:07:00.0",
	              &ev),
	        1);
	assert_int_equal(ev.severity, GA_SEV_ERROR);
	assert_int_equal(parse(&st, "Out of memory: Killed process 60123 (python3) total-vm:1kB", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_OOM_KILL);
	assert_int_equal(parse(&st, "mce: [Hardware Error]: Machine check events logged", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_MCE);
	assert_int_equal(ev.severity, GA_SEV_WARNING);
	/* the bank status word's UC bit (bit 61): d = VAL|OVER|EN, corrected; b = VAL|UC|EN */
	assert_int_equal(parse(&st, "mce: [Hardware Error]: CPU 12: Machine Check: 0 Bank 17: dc20", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_MCE);
	assert_int_equal(ev.fatal, GA_KEV_FATAL_NO);
	assert_int_equal(ev.severity, GA_SEV_WARNING);
	assert_int_equal(
	        parse(&st, "mce: [Hardware Error]: CPU 9: Machine Check: 0 Bank 5: bea0000000000108", &ev),
	        1);
	assert_int_equal(ev.fatal, GA_KEV_FATAL_YES);
	assert_int_equal(ev.severity, GA_SEV_ERROR);
	/* no status word: uncorrected, as before */
	assert_int_equal(parse(&st, "[Hardware Error]: Machine Check Exception: 5 Bank 0", &ev), 1);
	assert_int_equal(ev.severity, GA_SEV_ERROR);
	/* AMD's decoder: the CE / UE flag */
	assert_int_equal(parse(&st,
	                       "[Hardware Error]: CPU:1 (19:18:1) "
	                       "MC17_STATUS[Over|CE|MiscV|-|-|-|SyndV|-|-|-]: 0xd820000000060150",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_MCE);
	assert_int_equal(ev.severity, GA_SEV_WARNING);
	assert_int_equal(parse(&st,
	                       "[Hardware Error]: CPU:6 (19:1:1) MC5_STATUS[-|UE|MiscV|AddrV|PCC|-|-|-|-|-]: "
	                       "0xbea0000000000108",
	                       &ev),
	                 1);
	assert_int_equal(ev.severity, GA_SEV_ERROR);
	assert_int_equal(parse(&st, "[Hardware Error]: Corrected error, no action required.", &ev), 0);
	assert_int_equal(parse(&st, "mce: [Hardware Error]: TSC 0 ADDR 1ffe8a7c0", &ev), 0);
	assert_int_equal(parse(&st, "NVRM: API mismatch: the client has the version 550.90.07, but", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_NVRM_API_MISMATCH);
	assert_int_equal(parse(&st, "NVRM: GPU 0000:87:00.0: RmInitAdapter failed! (0x22:0x56:762)", &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_NVRM_INIT_FAILURE);
	assert_string_equal(ev.address, "0000:87:00.0");
	assert_int_equal(parse(&st, "nvidia 0000:17:00.0:    [ 0] RxErr                  (First)", &ev), 0);
	assert_string_equal(ga_kev_kind_name(GA_KEV_AER_CORRECTED), "aer-corrected");
	assert_null(ga_kev_kind_name(GA_KEV__COUNT));
}

static void test_garbage(void **state)
{
	(void)state;
	struct ga_kevent ev;
	char big[GA_KLINE_MAX + 100];
	memset(big, 'A', sizeof(big));
	assert_int_equal(ga_kevent_parse(NULL, big, sizeof(big), &ev), 0);
	assert_int_equal(parse(NULL, "", &ev), 0);
	assert_int_equal(ga_kevent_parse(NULL, NULL, 5, &ev), 0);
	assert_int_equal(parse(NULL, "NVRM: Xid (PCI:0000:07:00): abc", &ev), 0);
	assert_int_equal(parse(NULL, "NVRM: Xid (PCI:", &ev), 0);
	assert_int_equal(parse(NULL, "99999999999999999999999,1,1,-;x", &ev), 0);
	/* a long line cut at the limit: an Xid past it is not seen */
	memcpy(big + GA_KLINE_MAX + 2, "NVRM: Xid", 9);
	assert_int_equal(ga_kevent_parse(NULL, big, sizeof(big), &ev), 0);
}

static void test_addr(void **state)
{
	(void)state;
	char out[16];
	assert_int_equal(ga_pci_addr_normalize("PCI:0000:41:00", 14, out), 0);
	assert_string_equal(out, "0000:41:00.0");
	assert_int_equal(ga_pci_addr_normalize("0000:C1:00.1", 12, out), 0);
	assert_string_equal(out, "0000:c1:00.1");
	assert_int_equal(ga_pci_addr_normalize("41:00.0", 7, out), 0);
	assert_string_equal(out, "0000:41:00.0");
	assert_int_equal(ga_pci_addr_normalize("0000:41:00.0x", 13, out), -EINVAL);
	assert_int_equal(ga_pci_addr_normalize("zz", 2, out), -EINVAL);
}

static void test_catalogue(void **state)
{
	(void)state;
	struct ga_xid_info x;
	assert_int_equal(ga_xid_lookup(79, &x), 1); /* RESTART_BM */
	assert_int_equal(x.group, GA_XID_HARDWARE);
	assert_int_equal(x.severity, GA_SEV_CRITICAL);
	assert_int_equal(x.act, GA_ACT_REBOOT);
	assert_string_equal(x.mnemonic, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
	/* NVIDIA lists 28 as unused: not driver-fatal, investigate, warning */
	assert_int_equal(ga_xid_lookup(28, &x), 1);
	assert_true(x.unused);
	assert_int_equal(x.group, GA_XID_UNKNOWN);
	assert_int_equal(x.act, GA_ACT_INVESTIGATE);
	assert_int_equal(x.severity, GA_SEV_WARNING);
	assert_string_equal(x.action, "investigate: NVIDIA lists this Xid as unused");
	assert_int_equal(ga_xid_lookup(31, &x), 1);
	assert_int_equal(x.group, GA_XID_APP);
	assert_int_equal(ga_xid_lookup(92, &x), 1); /* IGNORE */
	assert_int_equal(x.severity, GA_SEV_INFO);
	assert_string_equal(x.action, "record");
	/* the old table's mistakes (issue 27): 64/143 reset, 46/155/156/158 reset, 38/44/63/121 ignore */
	static const unsigned reset[] = { 46, 64, 143, 155, 156, 158 }, ignore[] = { 38, 44, 63, 121 };
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++) {
		assert_int_equal(ga_xid_lookup(reset[i], &x), 1);
		assert_int_equal(x.act, GA_ACT_RESET_GPU);
	}
	for (size_t i = 0; i < sizeof(ignore) / sizeof(ignore[0]); i++) {
		assert_int_equal(ga_xid_lookup(ignore[i], &x), 1);
		assert_int_equal(x.act, GA_ACT_NONE);
	}
	assert_int_equal(ga_xid_lookup(54, &x), 1); /* CHECK_MECHANICALS */
	assert_int_equal(x.act, GA_ACT_DRAIN);
	assert_int_equal(ga_xid_lookup(154, &x), 1); /* the line decides */
	assert_int_equal(x.act, GA_ACT_INVESTIGATE);
	assert_int_equal(x.group, GA_XID_EXTRA);
	assert_int_equal(ga_xid_lookup(9999, &x), 0);
	assert_int_equal(x.group, GA_XID_UNKNOWN);
	assert_int_equal(x.severity, GA_SEV_WARNING);
}

/* Xid 154 and recovery-action words act on the words; NVLink5 on Fatal/Nonfatal. */
static void test_line_words(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		enum ga_action act;
		enum ga_severity sev;
	} cases[] = {
		{ "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
		  "(Node Reboot Required)",
		  GA_ACT_REBOOT, GA_SEV_CRITICAL },
		{ "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 "
		  "(GPU Reset Required)",
		  GA_ACT_RESET_GPU, GA_SEV_CRITICAL },
		{ "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x1 (GPU Reset "
		  "Required) to 0x4 (Drain and Reset)",
		  GA_ACT_RESET_GPU, GA_SEV_CRITICAL },
		{ "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 "
		  "(Drain P2P)",
		  GA_ACT_DRAIN, GA_SEV_ERROR },
		{ "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x2 (Node Reboot "
		  "Required) to 0x0 (None)",
		  GA_ACT_NONE, GA_SEV_INFO },
		/* the words without the number */
		{ "NVRM: Xid (PCI:0000:41:00): 154, GPU recovery action changed to Node Reboot Required",
		  GA_ACT_REBOOT, GA_SEV_CRITICAL },
		{ "NVRM: Xid (PCI:0000:41:00): 48, An uncorrectable double bit error (DBE) has been "
		  "detected on GPU in the framebuffer. GPU Reset Required.",
		  GA_ACT_RESET_GPU, GA_SEV_CRITICAL },
		{ "NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 08 (0x4)",
		  GA_ACT_RESET_GPU, GA_SEV_ERROR },
		{ "NVRM: Xid (PCI:0008:01:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 01 (0x0)", GA_ACT_NONE,
		  GA_SEV_INFO },
		/* Xid 63 of Dynamic Page Retirement: the page stays in use until the driver reloads */
		{ "NVRM: Xid (PCI:0000:3b:00): 63, Dynamic Page Retirement: New page retired, reboot to "
		  "activate (0x00000000001a2b3c).",
		  GA_ACT_REBOOT, GA_SEV_CRITICAL },
		{ "NVRM: Xid (PCI:0000:3b:00): 63, New retired page, reload the driver to activate",
		  GA_ACT_REBOOT, GA_SEV_CRITICAL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ga_kevent ev;
		enum ga_action a;
		enum ga_severity s;
		assert_int_equal(parse(NULL, cases[i].line, &ev), 1);
		if (ga_kev_xid_line(&ev, &a, &s) != 1)
			fail_msg("no action from the words: %s", cases[i].line);
		assert_int_equal(a, cases[i].act);
		assert_int_equal(s, cases[i].sev);
		assert_int_equal(ev.severity, cases[i].sev);
		assert_string_equal(ga_kev_action(&ev), ga_xid_action_text(a));
	}
	/* the driver's own line without an Xid: Xid 154's words for that GPU */
	struct ga_kevent rv;
	enum ga_action ra;
	enum ga_severity rs;
	assert_int_equal(parse(NULL,
	                       "[ 9.5] nvidia: GPU 0008:01:00.0: GPU recovery action changed from 0x0 to 0x1",
	                       &rv),
	                 1);
	assert_int_equal(rv.kind, GA_KEV_XID);
	assert_int_equal(rv.code.v, 154);
	assert_string_equal(rv.address, "0008:01:00.0");
	assert_int_equal(ga_kev_xid_line(&rv, &ra, &rs), 1);
	assert_int_equal(ra, GA_ACT_RESET_GPU);
	assert_int_equal(parse(NULL, "nvidia: GPU 0008:01:00.0: GPU recovery action changed", &rv), 0);
	/* no words, no token: the row (154 alone investigates; 149 without a token too) */
	struct ga_kevent ev;
	enum ga_action a;
	enum ga_severity s;
	assert_int_equal(parse(NULL, "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed", &ev), 1);
	assert_int_equal(ga_kev_xid_line(&ev, &a, &s), 0);
	assert_int_equal(ev.severity, GA_SEV_WARNING);
	assert_int_equal(parse(NULL, "NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT XC0", &ev), 1);
	assert_int_equal(ga_kev_xid_line(&ev, &a, &s), 0);
	/* Row Remapper's "reset gpu to activate" is not read: Xid 63 keeps the catalogue's IGNORE */
	assert_int_equal(
	        parse(NULL,
	              "NVRM: Xid (PCI:0000:c1:00): 63, pid=40512, name=python3, Row Remapper: New row "
	              "(0x000000000001c2e4) marked for remapping, reset gpu to activate.",
	              &ev),
	        1);
	assert_int_equal(ga_kev_xid_line(&ev, &a, &s), 0);
	/* a "Fatal" word on a non-NVLink5 Xid does not set the action from the token */
	assert_int_equal(parse(NULL, "NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception Fatal", &ev), 1);
	assert_int_equal(ga_kev_xid_line(&ev, &a, &s), 0);
}

static void test_overrides(void **state)
{
	(void)state;
	struct ga_policy_xid xids[] = { { 13, "ignore" }, { 31, "critical" }, { 79, "info" } };
	struct ga_policy_class cls;
	memset(&cls, 0, sizeof(cls));
	cls.xid = xids;
	cls.n_xid = 3;
	enum ga_severity s = GA_SEV_WARNING;
	assert_int_equal(ga_xid_override(&cls, 13, &s), 0);
	assert_int_equal(ga_xid_override(&cls, 31, &s), 1);
	assert_int_equal(s, GA_SEV_CRITICAL);
	s = GA_SEV_CRITICAL;
	assert_int_equal(ga_xid_override(&cls, 79, &s), 1);
	assert_int_equal(s, GA_SEV_INFO);
	s = GA_SEV_ERROR;
	assert_int_equal(ga_xid_override(&cls, 48, &s), 1);
	assert_int_equal(s, GA_SEV_ERROR);
	assert_int_equal(ga_xid_override(NULL, 13, &s), 1);
	assert_int_equal(ga_xid_override_parse("fatal", &s), -EINVAL);
}

static void test_duration(void **state)
{
	(void)state;
	double d;
	assert_int_equal(ga_duration_parse("2h", &d), 0);
	assert_true(d == 7200);
	assert_int_equal(ga_duration_parse("30m", &d), 0);
	assert_true(d == 1800);
	assert_int_equal(ga_duration_parse("1d", &d), 0);
	assert_true(d == 86400);
	assert_int_equal(ga_duration_parse("1h30m", &d), 0);
	assert_true(d == 5400);
	assert_int_equal(ga_duration_parse("45", &d), 0);
	assert_true(d == 45);
	assert_int_equal(ga_duration_parse("", &d), -EINVAL);
	assert_int_equal(ga_duration_parse("0s", &d), -EINVAL);
	assert_int_equal(ga_duration_parse("2x", &d), -EINVAL);
	assert_int_equal(ga_duration_parse("1h30", &d), -EINVAL);
	assert_int_equal(ga_duration_parse("-1h", &d), -EINVAL);
}

static void test_health_window(void **state)
{
	(void)state;
	struct ga_health *h = NULL;
	assert_int_equal(ga_health_new(&h), 0);
	const char *lines[] = {
		"[ 100.0] NVRM: Xid (PCI:0000:07:00): 13, pid=1",
		"[ 7000.0] NVRM: Xid (PCI:0000:07:00): 13, pid=1",
		"[ 7200.0] NVRM: Xid (PCI:0000:07:00): 79, pid=1",
	};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(ga_health_add_line(h, lines[i], strlen(lines[i])), 0);
	assert_int_equal(ga_health_events(h), 3);
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_health_opts o = { .since_s = 3600, .btime = { 1700000000, true } };
	uint64_t in = 0;
	assert_int_equal(ga_health_findings(h, NULL, &o, &f, &in), 0);
	assert_int_equal(in, 2);
	assert_int_equal(f.n, 2);
	ga_findings_sort(&f);
	assert_string_equal(f.v[0].code, "GA-XID-79");
	assert_string_equal(f.v[1].code, "GA-XID-13");
	ga_findings_release(&f);
	ga_health_free(h);
}

/* Wall-clock stamps: dmesg -T, syslog and journalctl short/short-precise (year from the reference). */
static void test_wall_stamps(void **state)
{
	(void)state;
	struct ga_kevent ev;
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	/* no reference: a year-less stamp gets no wall time, but its kernel stamp is kept */
	assert_int_equal(
	        parse(&st, "Dec  1 09:10:02 n7 kernel: [35604.5] NVRM: Xid (PCI:0000:47:00): 79, x", &ev), 1);
	assert_false(ev.wall_s.set);
	assert_true(ev.boot_s.set && ev.boot_s.v == 35604.5);
	GA_SET(st.year_ref_s, 1796126400); /* 2026-12-01T12:00:00Z (TZ=UTC under ctest) */
	assert_int_equal(parse(&st, "Dec  1 09:10:02 n7 kernel: NVRM: Xid (PCI:0000:47:00): 79, x", &ev), 1);
	assert_true(ev.wall_s.set);
	assert_int_equal(ev.wall_s.v, 1796116202);
	/* short-precise; a stamp later in the year than the reference is last year's */
	assert_int_equal(
	        parse(&st, "Dec 25 10:00:00.250000 n7 kernel: NVRM: Xid (PCI:0000:47:00): 48, x", &ev), 1);
	assert_true(ev.wall_s.set);
	assert_int_equal(ev.wall_s.v, 1766656800); /* 2025-12-25T10:00:00Z */
	/* the next day is still this year (clocks and zones) */
	assert_int_equal(parse(&st, "Dec 02 10:00:00 n7 kernel: NVRM: Xid (PCI:0000:47:00): 48, x", &ev), 1);
	assert_int_equal(ev.wall_s.v, 1796205600);
	/* dmesg -T */
	assert_int_equal(parse(&st, "[Tue Dec  1 09:10:02 2026] NVRM: Xid (PCI:0000:47:00): 79, x", &ev), 1);
	assert_true(ev.wall_s.set && !ev.boot_s.set);
	assert_int_equal(ev.wall_s.v, 1796116202);
	/* not a stamp: no time at all */
	assert_int_equal(parse(&st, "Dec 1 09:10:02 n7 kernel: NVRM: Xid (PCI:0000:47:00): 79, x", &ev), 1);
	assert_false(ev.wall_s.set);
}

static void test_wall_time_parse(void **state)
{
	(void)state;
	int64_t t = 0;
	assert_int_equal(ga_wall_time_parse("1796112000", &t), 0);
	assert_int_equal(t, 1796112000);
	assert_int_equal(ga_wall_time_parse("1796112000.75", &t), 0);
	assert_int_equal(t, 1796112000);
	assert_int_equal(ga_wall_time_parse("2026-12-01T08:00:00Z", &t), 0);
	assert_int_equal(t, 1796112000);
	assert_int_equal(ga_wall_time_parse("2026-12-01 09:00:00.5+01:00", &t), 0);
	assert_int_equal(t, 1796112000);
	assert_int_equal(ga_wall_time_parse("2026-12-01t03:00:00-0500", &t), 0);
	assert_int_equal(t, 1796112000);
	const char *bad[] = { "",
		              "yesterday",
		              "2026-12-01T08:00:00",
		              "2026-12-01",
		              "12.",
		              "-5",
		              "2026-12-01T08:00:00Zjunk",
		              "2026-13-01T08:00:00Z",
		              "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ga_wall_time_parse(bad[i], &t), -EINVAL);
	assert_int_equal(ga_wall_time_parse(NULL, &t), -EINVAL);
}

/* amdgpu VM faults: the header is the event, the status word folds into it. */
static void test_vm_fault(void **state)
{
	(void)state;
	struct ga_kevent ev;
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	assert_int_equal(parse(&st,
	                       "[ 4778.9] amdgpu 0000:c1:00.0: amdgpu: [gfxhub0] no-retry page fault "
	                       "(src_id:0 ring:24 vmid:3 pasid:32769)",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_AMDGPU_VM_FAULT);
	assert_false(ev.folded);
	assert_string_equal(ev.address, "0000:c1:00.0");
	assert_int_equal(ev.severity, GA_SEV_WARNING);
	assert_string_equal(ga_kev_kind_name(ev.kind), "amdgpu-vm-fault");
	assert_int_equal(
	        parse(&st, "[ 4778.9] amdgpu 0000:c1:00.0: amdgpu:   in page starting at address 0x1", &ev),
	        0);
	assert_int_equal(
	        parse(&st, "[ 4778.9] amdgpu 0000:c1:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031",
	              &ev),
	        1);
	assert_true(ev.folded);
	assert_true(ev.code.set);
	assert_int_equal(ev.code.v, 0x00301031);
	/* a status word alone (grep), or on another device: its own event */
	assert_int_equal(parse(&st, "amdgpu 0000:c1:00.0: GCVM_L2_PROTECTION_FAULT_STATUS:0x00C01A30", &ev),
	                 1);
	assert_false(ev.folded);
	assert_int_equal(ev.code.v, 0xC01A30);
	assert_int_equal(parse(&st,
	                       "drmn0: [mmhub0] retry page fault (src_id:0 ring:0 vmid:3 pasid:32770, "
	                       "for process  pid 101779 thread  pid 101779)",
	                       &ev),
	                 1);
	assert_int_equal(ev.kind, GA_KEV_AMDGPU_VM_FAULT);
	assert_string_equal(ev.address, "");
	/* the status word must come within a few lines of the header */
	for (int i = 0; i < 8; i++)
		assert_int_equal(parse(&st, "drmn0: \t MORE_FAULTS: 0x1", &ev), 0);
	assert_int_equal(parse(&st, "drmn0: VM_L2_PROTECTION_FAULT_STATUS:0x00341051", &ev), 1);
	assert_false(ev.folded);
}

/* A VM fault and the reset after it are one incident; the reset's success is folded. */
static void test_health_vm_fault_reset(void **state)
{
	(void)state;
	struct ga_health *h = NULL;
	assert_int_equal(ga_health_new(&h), 0);
	const char *lines[] = {
		"[ 10.0] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:4 pasid:10)",
		"[ 10.0] amdgpu 0000:c1:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00401031",
		"[ 20.0] amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=5, emitted seq=7",
		"[ 20.1] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!",
		"[ 22.0] amdgpu 0000:c1:00.0: amdgpu: GPU reset(1) succeeded!",
		"[ 900.0] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(ga_health_add_line(h, lines[i], strlen(lines[i])), 0);
	assert_int_equal(ga_health_events(h), 4); /* status word and success folded */
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_health_findings(h, NULL, NULL, &f, NULL), 0);
	assert_int_equal(f.n, 3);
	for (size_t i = 0; i < f.n; i++) {
		const struct ga_finding *fd = &f.v[i];
		if (!strcmp(fd->code, "GA-KLOG-AMDGPU-VM-FAULT")) {
			assert_non_null(strstr(fd->message, "then a GPU reset"));
		} else if (!strcmp(fd->code, "GA-KLOG-AMDGPU-RESET")) {
			/* two resets: the first after the fault (and recovered), the second 880 s later */
			assert_non_null(strstr(fd->message, "2 events (after a GPU VM page fault"));
			assert_non_null(strstr(fd->message, "1 recovered"));
		} else {
			assert_string_equal(fd->code, "GA-KLOG-AMDGPU-RING-TIMEOUT");
			assert_non_null(strstr(fd->message, "after a GPU VM page fault"));
		}
	}
	ga_findings_release(&f);
	/* the events' boot stamps cannot be dated without a boot time */
	struct ga_health_opts o = { .since_s = 60 };
	assert_int_equal(ga_health_unplaced(h, &o), 4);
	GA_SET(o.btime, 1796000000);
	assert_int_equal(ga_health_unplaced(h, &o), 0);
	ga_health_free(h);
}

/*
 * An uncorrectable RAS error takes the outcome of the driver's reset on its GPU after it
 * (docs/health.md "AMD uncorrectable RAS errors: one decision"): succeeded: restart the jobs
 * (error); failed: reboot (critical); none in the log: drain (critical). The bad-page
 * threshold's lines are their own kind: replace. Lines synthesized from amdgpu's formats.
 */
static void test_health_ras_outcome(void **state)
{
	(void)state;
	struct ga_health *h = NULL;
	assert_int_equal(ga_health_new(&h), 0);
	const char *lines[] = {
		"[ 5.0] amdgpu 0000:d6:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block",
		"[ 6.0] amdgpu 0000:d6:00.0: amdgpu: no uncorrectable hardware errors detected in gfx block",
		"[ 10.0] amdgpu 0000:c1:00.0: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) "
		"detected!",
		"[ 10.1] amdgpu 0000:c1:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block",
		"[ 10.2] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!",
		"[ 12.0] amdgpu 0000:c1:00.0: amdgpu: GPU reset(1) succeeded!",
		"[ 20.0] amdgpu 0000:c6:00.0: amdgpu: 1 uncorrectable hardware errors detected in gfx block",
		"[ 20.1] amdgpu 0000:c6:00.0: amdgpu: GPU reset begin!",
		"[ 21.0] amdgpu 0000:c6:00.0: amdgpu: GPU reset(2) failed",
		"[ 30.0] amdgpu 0000:8e:00.0: amdgpu: Saved bad pages 20 reaches threshold value 20",
		"[ 30.1] amdgpu 0000:8e:00.0: amdgpu: RAS records:18 exceeds 90% of threshold:20",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(ga_health_add_line(h, lines[i], strlen(lines[i])), 0);
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_health_findings(h, NULL, NULL, &f, NULL), 0);
	int seen = 0;
	for (size_t i = 0; i < f.n; i++) {
		const struct ga_finding *fd = &f.v[i];
		if (!strcmp(fd->code, "GA-KLOG-AMDGPU-RAS") && !strcmp(fd->subject, "0000:c1:00.0")) {
			assert_int_equal(fd->action, GA_ACT_RESTART_WORKLOAD);
			assert_int_equal(fd->severity, GA_SEV_ERROR);
			assert_non_null(
			        strstr(fd->message, "2 events; the driver's GPU reset after it succeeded"));
			seen |= 1;
		} else if (!strcmp(fd->code, "GA-KLOG-AMDGPU-RAS") && !strcmp(fd->subject, "0000:c6:00.0")) {
			assert_int_equal(fd->action, GA_ACT_REBOOT);
			assert_int_equal(fd->severity, GA_SEV_CRITICAL);
			assert_non_null(strstr(fd->message, "reset after it failed"));
			seen |= 2;
		} else if (!strcmp(fd->code, "GA-KLOG-AMDGPU-RAS")) {
			/* the all-clear line is no event; no reset followed on this GPU */
			assert_string_equal(fd->subject, "0000:d6:00.0");
			assert_int_equal(fd->action, GA_ACT_DRAIN);
			assert_int_equal(fd->severity, GA_SEV_CRITICAL);
			assert_non_null(strstr(fd->message, "1 event; no GPU reset outcome"));
			seen |= 4;
		} else if (!strcmp(fd->code, "GA-KLOG-AMDGPU-RAS-RMA")) {
			assert_string_equal(fd->subject, "0000:8e:00.0");
			assert_int_equal(fd->action, GA_ACT_REPLACE);
			assert_int_equal(fd->severity, GA_SEV_CRITICAL);
			assert_non_null(strstr(fd->message, ": 1 event")); /* not the 90 % warning */
			seen |= 8;
		}
	}
	assert_int_equal(seen, 15);
	ga_findings_release(&f);
	ga_health_free(h);
}

/* The one RAS rule of health and explain, and the line's address it pairs by. */
static void test_ras_action(void **state)
{
	(void)state;
	assert_int_equal(ga_kev_ras_action(1, 0, false), GA_ACT_DRAIN);
	assert_int_equal(ga_kev_ras_action(2, 1, false), GA_ACT_DRAIN);
	assert_int_equal(ga_kev_ras_action(2, 2, false), GA_ACT_RESTART_WORKLOAD);
	assert_int_equal(ga_kev_ras_action(2, 2, true), GA_ACT_REBOOT);
	assert_int_equal(ga_kev_ras_action(1, 0, true), GA_ACT_REBOOT);
	assert_int_equal(ga_kev_ras_action(0, 0, false), GA_ACT_DRAIN); /* no error seen: unconfirmed */
	char addr[16];
	const char *l = "amdgpu 0000:C3:00.0: amdgpu: GPU reset(1) succeeded!";
	assert_true(ga_kev_line_address(l, strlen(l), addr));
	assert_string_equal(addr, "0000:c3:00.0");
	l = "amdgpu: GPU reset(1) succeeded!";
	assert_false(ga_kev_line_address(l, strlen(l), addr));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid_dmesg),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_other_kinds),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_line_words),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_health_window),
		cmocka_unit_test(test_wall_stamps),
		cmocka_unit_test(test_wall_time_parse),
		cmocka_unit_test(test_vm_fault),
		cmocka_unit_test(test_health_vm_fault_reset),
		cmocka_unit_test(test_health_ras_outcome),
		cmocka_unit_test(test_ras_action),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
