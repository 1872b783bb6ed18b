/*
 * test_rates.c - rate math of `gpuaudit record` (lib/analyze/rates.c) on
 * hand-made raw samples: CPU percentages per core and in total, counter wrap
 * and reset give null, a zero interval gives null, disk await and util, net
 * drops per interval, PSI deltas; and reading a fixture time point
 * (lib/collect/sample.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "gpuaudit/sample.h"
#include "gpuaudit/sample-analyze.h"
#include "gpuaudit/sample-read.h"

#define DBL(o, want)                                     \
	do {                                             \
		assert_true((o).set);                    \
		assert_float_equal((o).v, (want), 1e-9); \
	} while (0)
#define NUL(o) assert_false((o).set)

static struct ga_cpu_raw cpu(const char *name, uint64_t user, uint64_t system, uint64_t idle, uint64_t iowait,
                             uint64_t steal)
{
	struct ga_cpu_raw c;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	c.user = user, c.system = system, c.idle = idle, c.iowait = iowait, c.steal = steal;
	return c;
}

static void test_helpers(void **state)
{
	(void)state;
	DBL(ga_rate_pct(25, 100), 25.0);
	NUL(ga_rate_pct(0, 0));
	DBL(ga_rate_per_s(100, 300, 2.0), 100.0);
	NUL(ga_rate_per_s(300, 100, 2.0));           /* wrapped */
	NUL(ga_rate_per_s(100, 300, 0.0));           /* zero interval */
	NUL(ga_rate_per_s(UINT64_MAX - 5, 10, 1.0)); /* a 64-bit wrap is not guessed */
	DBL(ga_rate_per_s(7, 7, 1.0), 0.0);
}

static void test_cpu_per_core_and_total(void **state)
{
	(void)state;
	struct ga_cpu_raw p[3] = { cpu("cpu", 200, 100, 1000, 0, 0), cpu("cpu0", 100, 50, 500, 0, 0),
		                   cpu("cpu1", 100, 50, 500, 0, 0) };
	struct ga_cpu_raw c[3] = { cpu("cpu", 260, 120, 1100, 20, 0), cpu("cpu0", 150, 60, 530, 10, 0),
		                   cpu("cpu1", 110, 60, 570, 10, 50) };
	c[0].steal = 50; /* the total line carries cpu1's steal */
	struct ga_sample_raw prev = { .cpus = p, .n_cpus = 3 }, cur = { .cpus = c, .n_cpus = 3 };
	struct ga_sample s;
	assert_int_equal(ga_sample_rates(&prev, &cur, 1.0, &s), 0);
	/* total: deltas user 60, system 20, idle 100, iowait 20, steal 50 = 250 */
	assert_string_equal(s.total.name, "cpu");
	DBL(s.total.user_pct, 24.0);
	DBL(s.total.system_pct, 8.0);
	DBL(s.total.idle_pct, 40.0);
	DBL(s.total.iowait_pct, 8.0);
	DBL(s.total.steal_pct, 20.0);
	assert_int_equal(s.n_cores, 2);
	/* cpu0: 50 + 10 + 30 + 10 = 100 */
	assert_string_equal(s.cores[0].name, "cpu0");
	DBL(s.cores[0].user_pct, 50.0);
	DBL(s.cores[0].system_pct, 10.0);
	DBL(s.cores[0].idle_pct, 30.0);
	DBL(s.cores[0].iowait_pct, 10.0);
	DBL(s.cores[0].steal_pct, 0.0);
	/* cpu1: 10 + 10 + 70 + 10 + 50 = 150 */
	DBL(s.cores[1].steal_pct, 100.0 * 50 / 150);
	DBL(s.cores[1].idle_pct, 100.0 * 70 / 150);
	ga_sample_release(&s);
}

static void test_cpu_wrap_zero_and_new(void **state)
{
	(void)state;
	struct ga_cpu_raw p[2] = { cpu("cpu", 200, 100, 1000, 0, 0), cpu("cpu0", 100, 50, 500, 0, 0) };
	struct ga_cpu_raw c[3] = { cpu("cpu", 100, 120, 1100, 0, 0), /* user went backwards */
		                   cpu("cpu0", 100, 50, 500, 0, 0),  /* no ticks at all */
		                   cpu("cpu1", 1, 1, 1, 0, 0) };     /* came online */
	struct ga_sample_raw prev = { .cpus = p, .n_cpus = 2 }, cur = { .cpus = c, .n_cpus = 3 };
	struct ga_sample s;
	assert_int_equal(ga_sample_rates(&prev, &cur, 1.0, &s), 0);
	NUL(s.total.user_pct);
	NUL(s.total.idle_pct);
	NUL(s.cores[0].user_pct);
	NUL(s.cores[0].idle_pct);
	assert_string_equal(s.cores[1].name, "cpu1");
	NUL(s.cores[1].idle_pct);
	ga_sample_release(&s);
	/* zero interval: nothing */
	struct ga_cpu_raw c2[1] = { cpu("cpu", 300, 200, 2000, 0, 0) };
	cur.cpus = c2, cur.n_cpus = 1;
	assert_int_equal(ga_sample_rates(&prev, &cur, 0.0, &s), 0);
	NUL(s.total.user_pct);
	ga_sample_release(&s);
}

static void test_disk(void **state)
{
	(void)state;
	struct ga_disk_raw p = { "nvme0n1", 1000, 8000, 500, 2000, 16000, 1000, 10000 };
	struct ga_disk_raw c = { "nvme0n1", 1200, 9600, 2500, 2600, 20800, 8200, 11990 };
	struct ga_disk_raw w = { "sda", 10, 10, 10, 10, 10, 10, 5 };
	struct ga_disk_raw wp = { "sda", 20, 10, 10, 10, 10, 10, 10 };
	struct ga_disk_raw pd[2] = { p, wp }, cd[2] = { c, w };
	struct ga_sample_raw prev = { .disks = pd, .n_disks = 2 }, cur = { .disks = cd, .n_disks = 2 };
	struct ga_sample s;
	assert_int_equal(ga_sample_rates(&prev, &cur, 2.0, &s), 0);
	assert_int_equal(s.n_disks, 2);
	DBL(s.disks[0].reads_per_s, 100.0);
	DBL(s.disks[0].writes_per_s, 300.0);
	DBL(s.disks[0].read_bytes_per_s, 1600.0 * 512 / 2);
	DBL(s.disks[0].write_bytes_per_s, 4800.0 * 512 / 2);
	DBL(s.disks[0].await_ms, (2000.0 + 7200.0) / 800.0);
	DBL(s.disks[0].util_pct, 99.5);
	/* sda: reads and io_ticks went backwards (device replaced): null, no I/O: await null */
	NUL(s.disks[1].reads_per_s);
	NUL(s.disks[1].await_ms);
	NUL(s.disks[1].util_pct);
	DBL(s.disks[1].writes_per_s, 0.0);
	ga_sample_release(&s);
	/* util is capped at 100 (io_ticks can run slightly ahead of the clock) */
	c.io_ticks_ms = p.io_ticks_ms + 2100;
	struct ga_sample_raw cur2 = { .disks = &c, .n_disks = 1 };
	assert_int_equal(ga_sample_rates(&prev, &cur2, 2.0, &s), 0);
	DBL(s.disks[0].util_pct, 100.0);
	ga_sample_release(&s);
	assert_int_equal(ga_sample_rates(&prev, &cur2, 0.0, &s), 0);
	NUL(s.disks[0].reads_per_s);
	NUL(s.disks[0].util_pct);
	ga_sample_release(&s);
}

static struct ga_net_raw net(const char *name, uint64_t rxb, uint64_t rxd)
{
	struct ga_net_raw n;
	memset(&n, 0, sizeof(n));
	snprintf(n.name, sizeof(n.name), "%s", name);
	GA_SET(n.rx_bytes, rxb);
	GA_SET(n.rx_dropped, rxd);
	GA_SET(n.tx_bytes, 0);
	return n;
}

static void test_net_and_psi(void **state)
{
	(void)state;
	struct ga_net_raw p[2] = { net("eth0", 1000, 5), net("ib0", 5000, 9) };
	struct ga_net_raw c[3] = { net("eth0", 3000, 12), net("ib0", 10, 0), net("new0", 1, 1) };
	struct ga_sample_raw prev = { .nets = p, .n_nets = 2 }, cur = { .nets = c, .n_nets = 3 };
	prev.psi[GA_PSI_IO].some = (struct ga_psi_line_raw){ true, 10.0, 1000 };
	cur.psi[GA_PSI_IO].some = (struct ga_psi_line_raw){ true, 20.5, 251000 };
	cur.psi[GA_PSI_IO].full = (struct ga_psi_line_raw){ true, 1.0, 10 }; /* no previous full */
	struct ga_sample s;
	assert_int_equal(ga_sample_rates(&prev, &cur, 0.5, &s), 0);
	DBL(s.nets[0].rx_bytes_per_s, 4000.0);
	assert_true(s.nets[0].rx_dropped.set);
	assert_int_equal(s.nets[0].rx_dropped.v, 7);
	NUL(s.nets[0].rx_packets_per_s); /* absent in both */
	NUL(s.nets[1].rx_bytes_per_s);   /* counters reset */
	NUL(s.nets[1].rx_dropped);
	NUL(s.nets[2].rx_bytes_per_s); /* not there before */
	DBL(s.psi[GA_PSI_IO].some.avg10, 20.5);
	assert_true(s.psi[GA_PSI_IO].some.total_delta_us.set);
	assert_int_equal(s.psi[GA_PSI_IO].some.total_delta_us.v, 250000);
	DBL(s.psi[GA_PSI_IO].full.avg10, 1.0);
	NUL(s.psi[GA_PSI_IO].full.total_delta_us);
	NUL(s.psi[GA_PSI_CPU].some.avg10);
	ga_sample_release(&s);
}

static void test_read_fixture(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	char root[4096];
	snprintf(root, sizeof(root), "%s/samples/idle/t0", fx ? fx : "");
	struct stat st;
	if (!fx || stat(root, &st) < 0)
		skip();
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	struct ga_sample_raw r;
	assert_int_equal(ga_sample_read(ctx, &r), 0);
	assert_int_equal(r.n_cpus, 3);
	assert_string_equal(r.cpus[0].name, "cpu");
	assert_int_equal(r.cpus[1].user, 1000);
	assert_int_equal(r.n_disks, 1); /* loop0 skipped */
	assert_string_equal(r.disks[0].name, "nvme0n1");
	assert_int_equal(r.disks[0].io_ticks_ms, 9000);
	assert_true(r.mem.total_bytes.set);
	assert_int_equal(r.mem.total_bytes.v, 65536000ull * 1024);
	assert_true(r.psi[GA_PSI_IO].full.set);
	assert_int_equal(r.psi[GA_PSI_IO].full.total_us, 40000);
	assert_int_equal(r.n_nets, 2);
	assert_string_equal(r.nets[0].name, "eth0");
	assert_int_equal(r.n_gpus, 1);
	assert_string_equal(r.gpus[0].address, "0000:c1:00.0");
	assert_true(r.gpus[0].gpu_busy_pct.set);
	ga_sample_raw_release(&r);
	/* an empty root: nothing, no error */
	assert_int_equal(ga_ctx_set_root(ctx, fx), 0);
	assert_int_equal(ga_sample_read(ctx, &r), 0);
	assert_int_equal(r.n_cpus, 0);
	assert_false(r.mem.total_bytes.set);
	ga_sample_raw_release(&r);
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_cpu_per_core_and_total),
		cmocka_unit_test(test_cpu_wrap_zero_and_new),
		cmocka_unit_test(test_disk),
		cmocka_unit_test(test_net_and_psi),
		cmocka_unit_test(test_read_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
