/*
 * test_ib.c - the InfiniBand/RoCE pieces: the sysfs value parsers, the collector on the
 * dgx-a100-ib fixture, and the two-snapshot check (link flaps, rising errors, cleared
 * counters) that serve runs between collections.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpuaudit/core.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/network.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"

static void test_parsers(void **state)
{
	(void)state;
	double g = 0;
	uint64_t w = 0, code = 0;
	char sp[8], name[32];
	assert_int_equal(ga_ib_rate_parse("400 Gb/sec (4X NDR)", &g, &w, sp), 0);
	assert_true(g == 400 && w == 4 && !strcmp(sp, "NDR"));
	assert_int_equal(ga_ib_rate_parse("2.5 Gb/sec (1X SDR)", &g, &w, sp), 0);
	assert_true(g == 2.5 && w == 1 && !strcmp(sp, "SDR"));
	assert_int_equal(ga_ib_rate_parse("40 Gb/sec (4X FDR10)", &g, &w, sp), 0);
	assert_string_equal(sp, "FDR10");
	static const char *const bad_rates[] = { "",
		                                 "400",
		                                 "400 Gb/sec",
		                                 "400 Gb/sec (0X NDR)",
		                                 "400 Gb/sec (4X )",
		                                 "400 Gb/sec (4X NDR",
		                                 "-1 Gb/sec (4X NDR)",
		                                 "400 Gb/sec (4X NDRXXXXX)" };
	for (size_t i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++)
		assert_int_equal(ga_ib_rate_parse(bad_rates[i], &g, &w, sp), -EINVAL);
	assert_int_equal(ga_ib_state_parse("4: ACTIVE", &code, name), 0);
	assert_true(code == 4 && !strcmp(name, "ACTIVE"));
	assert_int_equal(ga_ib_state_parse("7: Phy Test", &code, name), 0);
	assert_string_equal(name, "Phy Test");
	assert_int_equal(ga_ib_state_parse("ACTIVE", &code, name), -EINVAL);
	assert_int_equal(ga_ib_state_parse("4:", &code, name), -EINVAL);
	assert_int_equal(ga_ib_state_parse("4: ", &code, name), -EINVAL);
}

static struct ga_node *collect(const char *fixture)
{
	char root[4096];
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	snprintf(root, sizeof(root), "%s/nodes/%s/root", fx, fixture);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	ga_ctx_free(ctx);
	return n;
}

static struct ga_ib_port *port_of(struct ga_node *n, const char *dev)
{
	for (size_t i = 0; i < n->n_ib_ports; i++)
		if (!strcmp(n->ib_ports[i].device, dev))
			return &n->ib_ports[i];
	fail_msg("no port %s", dev);
	return NULL;
}

static size_t count_code(const struct ga_findings *f, const char *code, const char *subject)
{
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		k += !strcmp(f->v[i].code, code) && (!subject || !strcmp(f->v[i].subject, subject));
	return k;
}

static void test_collect(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-a100-ib");
	assert_int_equal(n->n_ib_ports, 10);
	struct ga_ib_port *p = port_of(n, "mlx5_2");
	assert_string_equal(p->state, "DOWN");
	assert_string_equal(p->phys_state, "Polling");
	assert_string_equal(p->pci_address, "0000:4b:00.0");
	assert_string_equal(p->netdev, "ibp75s0");
	assert_true(p->numa_node.set && p->numa_node.v == 1);
	p = port_of(n, "mlx5_6");
	assert_true(p->rate_mbps.v == 100000 && p->width.v == 2);
	p = port_of(n, "mlx5_8");
	assert_true(p->link_downed.set && p->link_downed.v == 3);
	assert_true(p->n_hw_counters > 0);
	/* the fabric manager is read where NVML reports a fabric state (lib/collect/fabricmgr.c) */
	assert_null(n->fabric_manager);
	ga_node_free(n);
}

static void test_delta(void **state)
{
	(void)state;
	struct ga_node *prev = collect("dgx-a100-ib"), *cur = collect("dgx-a100-ib");
	struct ga_findings f;
	ga_findings_init(&f);
	/* the same counters twice: nothing */
	assert_int_equal(ga_analyze_ib_delta(prev, cur, &f), 0);
	assert_int_equal(f.n, 0);
	/* mlx5_8 flaps twice more and counts symbol errors; mlx5_0's counters were cleared */
	port_of(cur, "mlx5_8")->link_downed.v = 5;
	port_of(cur, "mlx5_8")->symbol_error.v = 90;
	port_of(prev, "mlx5_0")->link_downed.v = 7;
	assert_int_equal(ga_analyze_ib_delta(prev, cur, &f), 0);
	assert_int_equal(count_code(&f, "GA-IB-LINK-FLAP", "mlx5_8/1"), 1);
	assert_int_equal(count_code(&f, "GA-IB-ERRORS-RISING", "mlx5_8/1"), 1);
	assert_int_equal(count_code(&f, "GA-IB-LINK-FLAP", "mlx5_0/1"), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.v[0].severity, GA_SEV_ERROR);
	/* no previous collection: nothing to compare */
	ga_findings_release(&f);
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_ib_delta(NULL, cur, &f), 0);
	assert_int_equal(f.n, 0);
	ga_findings_release(&f);
	ga_node_free(prev);
	ga_node_free(cur);
	/* every network code carries an action and a cause class (the catalogue, codes.def) */
	const struct ga_code_info *ci = ga_code_info(GA_C_IB_LINK_FLAP);
	assert_non_null(ci);
	assert_string_equal(ga_action_name((enum ga_action)ci->action), "drain");
	assert_string_equal(ga_cause_name((enum ga_cause)ci->cause), "network");
	assert_int_equal(ci->severity, GA_SEV_ERROR);
	assert_non_null(ci->fix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_delta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
