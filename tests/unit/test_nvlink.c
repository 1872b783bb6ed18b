/*
 * test_nvlink.c - NVLink counters between collections (ga_nvlink_watch,
 * ga_nvlink_error_deltas): a rise raises GA-NVLINK-ERRORS-RISING with the
 * deltas, it stays raised while the hold lasts and clears after it, a counter
 * that goes back (reset, driver reload) is no rise, and GPUs are matched by
 * UUID. Also the kernel-log form of an NVML Xid event (ga_nvml_event_kline).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-analyze.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"

/* One GPU at ADDR with UUID, link 3 with the given replay/recovery/crc counters. */
static struct ga_node *node(const char *addr, const char *uuid, unsigned replay, unsigned recovery,
                            unsigned flit)
{
	char json[1024];
	snprintf(json, sizeof(json),
	         "{\"schema\":\"gpuaudit.node/v1\",\"accelerators\":[{\"index\":0,\"vendor\":\"nvidia\","
	         "\"address\":\"%s\",\"nvml\":{\"index\":0,\"uuid\":\"%s\",\"nvlinks\":[{\"link\":3,"
	         "\"active\":true,\"replay_errors\":%u,\"recovery_errors\":%u,\"crc_flit_errors\":%u,"
	         "\"crc_data_errors\":0}]}}]}",
	         addr, uuid, replay, recovery, flit);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_node *n = NULL;
	if (ga_node_from_json(ctx, json, strlen(json), &n) < 0)
		fail_msg("bad test snapshot: %s", ga_ctx_errmsg(ctx));
	ga_ctx_free(ctx);
	return n;
}

static const char *ev(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

/* Feed N at time T; returns the number of findings (the first one in *ret, when any). */
static size_t step(struct ga_nvlink_watch *w, struct ga_node *n, double t, struct ga_findings *f)
{
	ga_findings_release(f);
	ga_findings_init(f);
	assert_int_equal(ga_nvlink_watch(w, n, t, 600, f), 0);
	ga_node_free(n);
	return f->n;
}

static void test_rise_hold_clear(void **state)
{
	(void)state;
	struct ga_nvlink_watch w;
	memset(&w, 0, sizeof(w));
	struct ga_findings f;
	ga_findings_init(&f);
	const char *a = "0000:87:00.0", *u = "GPU-1";
	assert_int_equal(step(&w, node(a, u, 150, 1, 40), 0, &f), 0);  /* first reading: no rise */
	assert_int_equal(step(&w, node(a, u, 150, 1, 40), 30, &f), 0); /* still */
	assert_int_equal(step(&w, node(a, u, 410, 1, 95), 60, &f), 1); /* rose */
	assert_string_equal(f.v[0].code, "GA-NVLINK-ERRORS-RISING");
	assert_string_equal(f.v[0].subject, a);
	assert_int_equal(f.v[0].severity, GA_SEV_WARNING);
	assert_string_equal(ev(&f.v[0], "replay_delta"), "260");
	assert_string_equal(ev(&f.v[0], "crc_flit_delta"), "55");
	assert_string_equal(ev(&f.v[0], "link"), "3");
	assert_string_equal(ev(&f.v[0], "gpu_uuid"), u);
	/* quiet, but inside the hold: still raised, counted from before the rise */
	assert_int_equal(step(&w, node(a, u, 410, 1, 95), 300, &f), 1);
	assert_string_equal(ev(&f.v[0], "replay_delta"), "260");
	/* a recovery: an error */
	assert_int_equal(step(&w, node(a, u, 420, 2, 95), 400, &f), 1);
	assert_int_equal(f.v[0].severity, GA_SEV_ERROR);
	assert_string_equal(ev(&f.v[0], "recovery_delta"), "1");
	/* quiet for the hold after the last rise: cleared */
	assert_int_equal(step(&w, node(a, u, 420, 2, 95), 1000, &f), 0);
	assert_int_equal(step(&w, node(a, u, 420, 2, 95), 1030, &f), 0);
	/* counters back to 0 (GPU reset): no rise, and the next rise counts from there */
	assert_int_equal(step(&w, node(a, u, 0, 0, 0), 1060, &f), 0);
	assert_int_equal(step(&w, node(a, u, 5, 0, 0), 1090, &f), 1);
	assert_string_equal(ev(&f.v[0], "replay_delta"), "5");
	ga_findings_release(&f);
	ga_nvlink_watch_release(&w);
}

static void test_matched_by_uuid(void **state)
{
	(void)state;
	struct ga_nvlink_counters base;
	memset(&base, 0, sizeof(base));
	struct ga_node *a = node("0000:87:00.0", "GPU-1", 10, 0, 0);
	assert_int_equal(ga_nvlink_counters_take(a, 0, &base), 0);
	ga_node_free(a);
	/* another GPU at the same address (a different UUID) is not a rise */
	struct ga_node *b = node("0000:87:00.0", "GPU-2", 99, 0, 0);
	struct ga_findings f;
	ga_findings_init(&f);
	bool rose = true;
	assert_int_equal(ga_nvlink_error_deltas(&base, b, 30, &f, &rose), 0);
	assert_false(rose);
	assert_int_equal(f.n, 0);
	ga_node_free(b);
	/* NULL base or node: nothing */
	assert_int_equal(ga_nvlink_error_deltas(NULL, NULL, 0, &f, &rose), 0);
	ga_findings_release(&f);
	ga_nvlink_counters_release(&base);
}

static void test_kline(void **state)
{
	(void)state;
	struct ga_nvml_event e;
	memset(&e, 0, sizeof(e));
	char bus[] = "0000:4e:00.0", xid[] = "xid", dbe[] = "ecc_dbe";
	e.pci_bus_id = bus;
	e.type = xid;
	GA_SET(e.xid, 79);
	GA_SET(e.after_ms, 250);
	char line[192];
	size_t n = ga_nvml_event_kline(&e, 100.5, line, sizeof(line));
	assert_string_equal(line, "[  100.750000] NVRM: Xid (PCI:0000:4e:00): 79, reported by NVML events");
	struct ga_kevent k;
	assert_int_equal(ga_kevent_parse(NULL, line, n, &k), 1);
	assert_int_equal(k.kind, GA_KEV_XID);
	assert_int_equal(k.code.v, 79);
	assert_string_equal(k.address, "0000:4e:00.0");
	assert_true(k.boot_s.set);
	n = ga_nvml_event_kline(&e, -1, line, sizeof(line));
	assert_string_equal(line, "NVRM: Xid (PCI:0000:4e:00): 79, reported by NVML events");
	e.type = dbe; /* not an Xid: no line */
	assert_int_equal(ga_nvml_event_kline(&e, -1, line, sizeof(line)), 0);
	e.type = xid;
	e.pci_bus_id = NULL; /* no address: no line */
	assert_int_equal(ga_nvml_event_kline(&e, -1, line, sizeof(line)), 0);
	e.pci_bus_id = bus; /* too small a buffer: no line */
	assert_int_equal(ga_nvml_event_kline(&e, -1, line, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rise_hold_clear),
		cmocka_unit_test(test_matched_by_uuid),
		cmocka_unit_test(test_kline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
