/*
 * test_aer.c - the kernel's AER error names (lib/core/aer.def) against the facts
 * file transcribed from drivers/pci/pcie/aer.c (tests/fixtures/aer/
 * linux-aer-error-strings.tsv); the AER lines of the kernel's format through the
 * kernel-log parser (the class, the device, the error types of the detail and its
 * folding into the message); the one decision health and explain share.
 * The lines are synthesized from the kernel's format strings (aer_print_error).
 */
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
#include "gpuaudit/aer.h"
#include "gpuaudit/kmsg.h"

static void test_facts_equal(void **state)
{
	(void)state;
	struct facts_tsv tsv;
	assert_int_equal(facts_open(&tsv, "aer/linux-aer-error-strings.tsv"), 0);
	size_t n, k = 0, nf;
	const struct ga_aer_fact *t = ga_aer_facts(&n);
	char *f[4];
	while ((nf = facts_row(&tsv, f, 4))) {
		assert_int_equal(nf, 4);
		if (k == n)
			fail_msg("%s bit %s (%s) is missing from lib/core/aer.def", f[0], f[1], f[2]);
		const struct ga_aer_fact *r = &t[k++];
		assert_int_equal(r->uncorrectable, !strcmp(f[0], "uncorrectable"));
		assert_int_equal(r->bit, strtoul(f[1], NULL, 10));
		assert_string_equal(r->name, f[2]);
		assert_string_equal(ga_aer_layer_name(r->layer), f[3]);
		assert_ptr_equal(ga_aer_fact(r->uncorrectable, r->bit), r);
	}
	facts_close(&tsv);
	assert_int_equal(k, n);
	assert_null(ga_aer_fact(false, 1)); /* the kernel names no correctable bit 1 */
}

/* A corrected message with its detail: one event, the detail folded in with its types. */
static void test_lines_fold(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"[  100.000001] pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0",
		"[  100.000002] nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical "
		"Layer, (Receiver ID)",
		"[  100.000003] nvidia 0000:01:00.0:   device [10de:2330] error status/mask=00000041/"
		"0000e000",
		"[  100.000004] nvidia 0000:01:00.0:    [ 0] RxErr                  (First)",
		"[  100.000005] nvidia 0000:01:00.0:    [ 6] BadTLP",
	};
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	struct ga_kevent ev;
	assert_int_equal(ga_kevent_parse(&st, lines[0], strlen(lines[0]), &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_AER_CORRECTED);
	assert_string_equal(ev.address, "0000:01:00.0");
	assert_false(ev.folded);
	assert_int_equal(ga_kevent_parse(&st, lines[1], strlen(lines[1]), &ev), 0);
	assert_int_equal(ga_kevent_parse(&st, lines[2], strlen(lines[2]), &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_AER_CORRECTED);
	assert_true(ev.folded);
	assert_int_equal(ev.aer_bits, 0x41); /* RxErr and BadTLP, nothing masked */
	assert_string_equal(ev.address, "0000:01:00.0");
	/* the bit lines carry nothing more than the status word */
	assert_int_equal(ga_kevent_parse(&st, lines[3], strlen(lines[3]), &ev), 0);
	assert_int_equal(ga_kevent_parse(&st, lines[4], strlen(lines[4]), &ev), 0);
}

/* Newer kernels' words, the uncorrected classes, the mask, a detail without its message. */
static void test_lines_classes(void **state)
{
	(void)state;
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	struct ga_kevent ev;
	const char *l = "pcieport 0000:00:03.1: AER: Uncorrectable (Fatal) error message received "
	                "from 0000:41:00.0";
	assert_int_equal(ga_kevent_parse(&st, l, strlen(l), &ev), 1);
	assert_int_equal(ev.kind, GA_KEV_AER_UNCORRECTED);
	assert_int_equal(ev.fatal, GA_KEV_FATAL_YES);
	assert_string_equal(ev.address, "0000:41:00.0");
	l = "nvidia 0000:41:00.0: AER: PCIe Bus Error: severity=Uncorrectable (Fatal), "
	    "type=Transaction Layer, (Requester ID)";
	assert_int_equal(ga_kevent_parse(&st, l, strlen(l), &ev), 0);
	/* CmpltTO (14) unmasked, UnsupReq (20) masked */
	l = "nvidia 0000:41:00.0: AER:   device [10de:2330] error status/mask=00104000/00100000";
	assert_int_equal(ga_kevent_parse(&st, l, strlen(l), &ev), 1);
	assert_true(ev.folded);
	assert_int_equal(ev.kind, GA_KEV_AER_UNCORRECTED);
	assert_int_equal(ev.aer_bits, 1u << 14);
	/* a detail whose message is not in the log: an event of its own */
	l = "nvidia 0000:42:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction "
	    "Layer, (Requester ID)";
	assert_int_equal(ga_kevent_parse(&st, l, strlen(l), &ev), 0);
	l = "nvidia 0000:42:00.0:   device [10de:2330] error status/mask=00004000/00000000";
	assert_int_equal(ga_kevent_parse(&st, l, strlen(l), &ev), 1);
	assert_false(ev.folded);
	assert_int_equal(ev.fatal, GA_KEV_FATAL_NO);
	assert_string_equal(ev.address, "0000:42:00.0");
	/* a status word with no class before it for the device: not read */
	l = "nvidia 0000:43:00.0:   device [10de:2330] error status/mask=00000001/00000000";
	assert_int_equal(ga_kevent_parse(&st, l, strlen(l), &ev), 0);
	/* the same without state */
	assert_int_equal(ga_kevent_parse(NULL, l, strlen(l), &ev), 0);
}

static void test_decide(void **state)
{
	(void)state;
	uint32_t types[32] = { 0 };
	enum ga_action a;
	enum ga_severity s;
	types[0] = 9;
	types[6] = 9;
	assert_false(ga_aer_decide(GA_AER_CORRECTED, types, 18, &a, &s));
	assert_int_equal(a, GA_ACT_NONE);
	assert_int_equal(s, GA_SEV_INFO);
	types[0] = GA_AER_STORM; /* ten of one type */
	assert_true(ga_aer_decide(GA_AER_CORRECTED, types, 19, &a, &s));
	assert_int_equal(a, GA_ACT_INVESTIGATE);
	assert_int_equal(s, GA_SEV_WARNING);
	/* no detail: the messages count */
	uint32_t none[32] = { 0 };
	assert_true(ga_aer_decide(GA_AER_CORRECTED, none, GA_AER_STORM, &a, &s));
	assert_false(ga_aer_decide(GA_AER_CORRECTED, none, GA_AER_STORM - 1, &a, &s));
	ga_aer_decide(GA_AER_NONFATAL, none, 1, &a, &s);
	assert_int_equal(a, GA_ACT_DRAIN);
	assert_int_equal(s, GA_SEV_ERROR);
	ga_aer_decide(GA_AER_FATAL, none, 1, &a, &s);
	assert_int_equal(a, GA_ACT_DRAIN);
	assert_int_equal(s, GA_SEV_CRITICAL);
	char out[64];
	ga_aer_types_text(false, types, out, sizeof(out));
	assert_string_equal(out, "RxErr x10, BadTLP x9");
	uint32_t odd[32] = { 0 };
	odd[3] = 2;
	ga_aer_types_text(false, odd, out, sizeof(out));
	assert_string_equal(out, "bit 3 x2");
	ga_aer_types_text(false, types, out, 12); /* no room: whole items or none */
	assert_string_equal(out, "RxErr x10");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_equal),
		cmocka_unit_test(test_lines_fold),
		cmocka_unit_test(test_lines_classes),
		cmocka_unit_test(test_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
