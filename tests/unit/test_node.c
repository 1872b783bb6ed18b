/*
 * test_node.c - the node snapshot: value parsers, JSON round trips of the
 * synthesized fixture machines, reader errors that name the offending member,
 * and out-of-memory at every allocation of the reader and the collector.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"

static void test_pcie_speed(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		double want;
	} cases[] = {
		/* before Linux 5.x: no "PCIe" suffix, integral speeds without ".0" */
		{ "2.5 GT/s", 2.5 },
		{ "5 GT/s", 5 },
		{ "8 GT/s", 8 },
		{ "16 GT/s", 16 },
		/* current form */
		{ "2.5 GT/s PCIe", 2.5 },
		{ "5.0 GT/s PCIe", 5 },
		{ "8.0 GT/s PCIe", 8 },
		{ "16.0 GT/s PCIe", 16 },
		{ "32.0 GT/s PCIe", 32 },
		{ "64.0 GT/s PCIe", 64 },
		/* unknown and garbage */
		{ "Unknown", -1 },
		{ "Unknown speed", -1 },
		{ "", -1 },
		{ "GT/s", -1 },
		{ "16.0 Gb/s", -1 },
		{ "16.0", -1 },
		{ "0 GT/s", -1 },
		{ "-8 GT/s", -1 },
		{ "1.2.3 GT/s", -1 },
		{ "5000 GT/s", -1 },
		{ "8 GT/sx", -1 },
		{ "nan GT/s", -1 },
		{ "00000000000000000000000000000000000000016 GT/s", -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double g = ga_pcie_speed_parse(cases[i].s);
		if (g != cases[i].want)
			fail_msg("ga_pcie_speed_parse(\"%s\") = %g, want %g", cases[i].s, g, cases[i].want);
	}
	assert_true(ga_pcie_speed_parse(NULL) == -1);
}

static void test_cpulist(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		long want;
	} cases[] = {
		{ "0-3,8,10-11", 7 },
		{ "0", 1 },
		{ "0-0", 1 },
		{ "0-255\n", 256 },
		{ "0-27,56-83", 56 },
		{ "", 0 },
		{ "\n", 0 },
		{ "0-1048575", 1048576 },
		{ "0-1048576", -1 },
		{ "0-9223372036854775807", -1 },
		{ "9223372036854775807-9223372036854775807", 1 },
		{ "99999999999999999999", -1 },
		{ "3-1", -1 },
		{ "-1", -1 },
		{ "a", -1 },
		{ "1,", -1 },
		{ "1,,2", -1 },
		{ "0-", -1 },
		{ "0-3 x", -1 },
		{ "0-3;4", -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long k = ga_cpulist_count(cases[i].s);
		if (k != cases[i].want)
			fail_msg("ga_cpulist_count(\"%s\") = %ld, want %ld", cases[i].s, k, cases[i].want);
	}
	/* many big ranges: the total is capped too */
	char many[4096] = "";
	size_t len = 0;
	for (long i = 0; i < 10; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len, "%s%ld-%ld", i ? "," : "", i << 20,
		                        (i << 20) + (1L << 19));
	assert_int_equal(ga_cpulist_count(many), -1);
}

static char *write_node(const struct ga_node *n, bool pretty)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct ga_json w;
	ga_json_init(&w, &b, pretty);
	assert_int_equal(ga_node_write_json(n, &w), 0);
	assert_int_equal(ga_json_finish(&w), 0);
	return ga_buf_detach(&b, NULL);
}

static void round_trip(struct ga_ctx *ctx, const struct ga_node *n, const char *what)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		char *a = write_node(n, pretty);
		struct ga_node *back = NULL;
		int r = ga_node_from_json(ctx, a, strlen(a), &back);
		if (r < 0)
			fail_msg("%s: reading back: %s", what, ga_ctx_errmsg(ctx));
		char *b = write_node(back, pretty);
		if (strcmp(a, b) != 0)
			fail_msg("%s: JSON changed in a round trip", what);
		ga_free(a);
		ga_free(b);
		ga_node_free(back);
	}
}

static void test_fixture_round_trip(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/nodes", fx ? fx : "");
	DIR *d = fx ? opendir(dir) : NULL;
	if (!d) {
		print_message("no fixtures at %s (GA_FIXTURES unset or not created yet); skipping\n", dir);
		skip();
		return;
	}
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	int seen = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char root[4400];
		snprintf(root, sizeof(root), "%s/%s/root", dir, de->d_name);
		struct stat st;
		if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		assert_int_equal(ga_ctx_set_root(ctx, root), 0);
		struct ga_node *n = NULL;
		if (ga_node_collect(ctx, &n) < 0)
			fail_msg("%s: %s", de->d_name, ga_ctx_errmsg(ctx));
		assert_string_equal(n->schema, GA_NODE_SCHEMA);
		round_trip(ctx, n, de->d_name);
		ga_node_free(n);
		seen++;
	}
	closedir(d);
	ga_ctx_free(ctx);
	if (!seen) {
		print_message("no fixture roots under %s; skipping\n", dir);
		skip();
	}
}

static const char sample[] =
        "{\"schema\":\"gpuaudit.node/v1\",\"future_member\":{\"x\":[1,2]},"
        "\"host\":{\"hostname\":\"n1\",\"uptime_s\":12.5,\"os\":{\"id\":\"ubuntu\",\"pretty_name\":null},"
        "\"virt\":{\"cpu_hypervisor_flag\":false,\"hypervisor\":\"kvm\"},"
        "\"gpu_cmdline_flags\":[\"iommu=pt\",\"pci=realloc\"]},"
        "\"cpu\":{\"arch\":\"x86_64\",\"threads\":8,\"numa_nodes\":[{\"id\":0,\"cpulist\":\"0-3\",\"cpus\":4}"
        ","
        "{\"id\":1,\"cpulist\":\"4-7\",\"cpus\":4,\"mem_total_bytes\":null}]},"
        "\"pci\":[{\"address\":\"0000:01:00.0\",\"kind\":\"accelerator\",\"vendor_id\":4318,"
        "\"numa_node\":-1,\"link\":{\"cur_speed_gts\":16,\"cur_width\":8,\"max_width\":16},"
        "\"upstream\":[{\"address\":\"0000:00:01.0\",\"id\":\"8086:1234\",\"link\":{\"max_width\":16}}],"
        "\"net_interfaces\":[]}],"
        "\"accelerators\":[{\"index\":0,\"vendor\":\"nvidia\",\"address\":\"0000:01:00.0\","
        "\"excluded\":true,\"missing_nodes\":[\"/dev/nvidia-uvm\"]}],"
        "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.54.14\",\"loaded\":true}],"
        "\"modules\":[\"nvidia\"],\"runtimes\":[{\"name\":\"libcuda\",\"version\":\"550.54.15\"}],"
        "\"gaps\":[{\"path\":\"proc/x\",\"reason\":\"missing\"}]}";

static void test_from_json(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_from_json(ctx, sample, strlen(sample), &n), 0);
	assert_string_equal(n->host.hostname, "n1");
	assert_true(n->host.uptime_s.set && n->host.uptime_s.v == 12.5);
	assert_string_equal(n->host.os.id, "ubuntu");
	assert_null(n->host.os.pretty_name); /* null = absent */
	assert_null(n->host.kernel_release); /* missing = absent */
	assert_true(n->host.virt.cpu_hypervisor_flag.set);
	assert_false(n->host.virt.cpu_hypervisor_flag.v);
	assert_int_equal(n->host.gpu_cmdline_flags.n, 2);
	assert_string_equal(n->host.gpu_cmdline_flags.v[1], "pci=realloc");
	assert_null(n->host.gpu_cmdline_flags.v[2]);
	assert_int_equal(n->cpu.n_numa_nodes, 2);
	assert_true(n->cpu.numa_nodes[1].id.set && n->cpu.numa_nodes[1].id.v == 1);
	assert_false(n->cpu.numa_nodes[1].mem_total_bytes.set);
	assert_false(n->cpu.sockets.set);
	assert_int_equal(n->n_pci, 1);
	assert_true(n->pci[0].numa_node.set && n->pci[0].numa_node.v == -1);
	assert_true(n->pci[0].link.cur_speed_gts.set && n->pci[0].link.cur_speed_gts.v == 16);
	assert_false(n->pci[0].link.max_speed_gts.set);
	assert_int_equal(n->pci[0].n_upstream, 1);
	assert_string_equal(n->pci[0].upstream[0].id, "8086:1234");
	assert_true(n->accelerators[0].excluded.v);
	assert_int_equal(n->n_runtimes, 1);
	assert_int_equal(n->n_gaps, 1);
	round_trip(ctx, n, "sample");
	ga_node_free(n);
	ga_node_free(NULL);
	ga_ctx_free(ctx);
}

static void expect_error(struct ga_ctx *ctx, const char *json, const char *msg)
{
	struct ga_node *n = NULL;
	int r = ga_node_from_json(ctx, json, strlen(json), &n);
	if (r != -EBADMSG)
		fail_msg("%s: got %d, want -EBADMSG", json, r);
	assert_null(n);
	if (!strstr(ga_ctx_errmsg(ctx), msg))
		fail_msg("%s: message \"%s\" lacks \"%s\"", json, ga_ctx_errmsg(ctx), msg);
}

static void test_from_json_errors(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	expect_error(ctx, "", "invalid JSON");
	expect_error(ctx, "{\"schema\":", "invalid JSON");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"schema\":\"x\"}", "invalid JSON");
	expect_error(ctx, "[1,2]", "no \"schema\"");
	expect_error(ctx, "{}", "no \"schema\"");
	expect_error(ctx, "{\"schema\":1}", "no \"schema\"");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v2\"}", "unsupported schema \"gpuaudit.node/v2\"");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"cpu\":{\"numa_nodes\":[{\"id\":-1}]}}",
	             "cpu.numa_nodes[0].id: expected non-negative integer");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"cpu\":{\"numa_nodes\":[{},{\"id\":\"1\"}]}}",
	             "cpu.numa_nodes[1].id: expected non-negative integer");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"hostname\":5}}",
	             "host.hostname: expected string");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"uptime_s\":\"5\"}}",
	             "host.uptime_s: expected number");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"virt\":{\"cpu_hypervisor_flag\":1}}}",
	             "host.virt.cpu_hypervisor_flag: expected boolean");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"pci\":[{\"numa_node\":1.5}]}",
	             "pci[0].numa_node: expected integer");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"pci\":[{\"upstream\":[{\"link\":[]}]}]}",
	             "pci[0].upstream[0].link: expected object");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"modules\":[\"a\",1]}",
	             "modules: expected array of strings");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"modules\":\"nvidia\"}",
	             "modules: expected array of strings");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"pci\":{}}", "pci: expected array");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"pci\":[5]}", "pci[0]: expected object");
	expect_error(ctx, "{\"schema\":\"gpuaudit.node/v1\",\"cpu\":5}", "cpu: expected object");

	/* nulls everywhere are absent values; unknown members are ignored */
	const char *nulls = "{\"schema\":\"gpuaudit.node/v1\",\"host\":null,\"cpu\":null,\"pci\":null,"
	                    "\"modules\":null,\"new\":[{\"deep\":{}}]}";
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_from_json(ctx, nulls, strlen(nulls), &n), 0);
	assert_null(n->host.hostname);
	assert_int_equal(n->n_pci, 0);
	assert_int_equal(n->modules.n, 0);
	ga_node_free(n);
	ga_ctx_free(ctx);
}

static void test_from_json_enomem(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	long n;
	for (n = 0;; n++) {
		struct ga_node *node = NULL;
		ga_alloc_fail_after(n);
		int r = ga_node_from_json(ctx, sample, strlen(sample), &node);
		ga_alloc_fail_after(-1);
		if (r == 0) {
			assert_non_null(node);
			round_trip(ctx, node, "after ENOMEM loop");
			ga_node_free(node);
			break;
		}
		assert_int_equal(r, -ENOMEM);
		assert_null(node);
		assert_true(n < 10000);
	}
	assert_true(n > 20); /* the sample needs many allocations: the loop did walk them */
	ga_ctx_free(ctx);
}

/* The collector under out-of-memory: -ENOMEM, no leak, no crash, until it succeeds. */
static void test_collect_enomem(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	char root[4096];
	snprintf(root, sizeof(root), "%s/nodes/cpu-vm/root", fx ? fx : "");
	struct stat st;
	if (!fx || stat(root, &st) < 0) {
		print_message("no fixture at %s; skipping\n", root);
		skip();
		return;
	}
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	for (long n = 0;; n++) {
		struct ga_node *node = NULL;
		ga_alloc_fail_after(n);
		int r = ga_node_collect(ctx, &node);
		ga_alloc_fail_after(-1);
		if (r == 0) {
			ga_node_free(node);
			break;
		}
		assert_int_equal(r, -ENOMEM);
		assert_null(node);
		assert_true(n < 100000);
	}
	ga_ctx_free(ctx);
}

/* --- coverage (issue 26): what the collector read travels in the snapshot --- */

static void put(const char *dir, const char *rel, const char *text)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *q = p + strlen(dir) + 1; *q; q++)
		if (*q == '/') {
			*q = '\0';
			mkdir(p, 0755);
			*q = '/';
		}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const struct ga_source *source_of(const struct ga_node *n, const char *name)
{
	for (size_t i = 0; i < n->n_coverage; i++)
		if (!strcmp(n->coverage[i].source, name))
			return &n->coverage[i];
	return NULL;
}

/* Collect DIR, check the pci entry, and that a JSON round trip keeps what was recorded. */
static void collect_pci(struct ga_ctx *ctx, const char *dir, const char *state, const char *reason,
                        enum ga_source_state want)
{
	assert_int_equal(ga_ctx_set_root(ctx, dir), 0);
	struct ga_node *n = NULL;
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	const struct ga_source *s = source_of(n, "pci");
	assert_non_null(s);
	assert_string_equal(s->path, "sys/bus/pci/devices");
	assert_string_equal(s->state, state);
	if (reason)
		assert_string_equal(s->reason, reason);
	else
		assert_null(s->reason);
	assert_int_equal(ga_node_source_state(n, "pci", NULL, NULL), want);
	assert_int_equal(n->accelerator_count.set, want == GA_SOURCE_READ);
	/* the cpu entry: proc/cpuinfo was written, proc/meminfo was not */
	assert_string_equal(source_of(n, "cpu")->state, "read");
	assert_string_equal(source_of(n, "memory")->state, "missing");
	assert_string_equal(source_of(n, "memory")->reason, "missing");

	char *a = write_node(n, false);
	assert_non_null(
	        strstr(a, want == GA_SOURCE_READ ? "\"accelerator_count\":0" : "\"accelerator_count\":null"));
	assert_non_null(strstr(a, "\"coverage\":[{\"source\":\"pci\""));
	struct ga_node *back = NULL;
	assert_int_equal(ga_node_from_json(ctx, a, strlen(a), &back), 0);
	assert_int_equal(back->n_coverage, n->n_coverage);
	const char *path = NULL, *why = NULL;
	assert_int_equal(ga_node_source_state(back, "pci", &path, &why), want);
	assert_string_equal(path, "sys/bus/pci/devices");
	if (reason)
		assert_string_equal(why, reason);
	assert_int_equal(back->accelerator_count.set, want == GA_SOURCE_READ);
	assert_int_equal(ga_node_pci_known(back), want == GA_SOURCE_READ);
	round_trip(ctx, n, dir);
	ga_free(a);
	ga_node_free(back);
	ga_node_free(n);
}

static void test_coverage(void **state)
{
	(void)state;
	char dir[] = "/tmp/ga-test-coverage-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	put(dir, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n");
	/* no sys/bus/pci at all: missing */
	collect_pci(ctx, dir, "missing", "missing", GA_SOURCE_MISSING);
	/* a file where the directory should be: unreadable, with the reader's reason */
	put(dir, "sys/bus/pci/devices", "x\n");
	collect_pci(ctx, dir, "unreadable", "not a directory", GA_SOURCE_UNREADABLE);
	/* an empty bus that was read: 0 accelerators, known */
	char p[4200];
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices", dir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	collect_pci(ctx, dir, "read", NULL, GA_SOURCE_READ);
	ga_ctx_free(ctx);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Snapshots written before coverage was recorded answer from their gaps. */
static void test_coverage_old_snapshots(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_node *n = NULL;
	/* the sample: no coverage, no PCI gap: read, and its one accelerator counted */
	assert_int_equal(ga_node_from_json(ctx, sample, strlen(sample), &n), 0);
	assert_int_equal(n->n_coverage, 0);
	assert_true(ga_node_pci_known(n));
	assert_true(n->accelerator_count.set && n->accelerator_count.v == 1);
	ga_node_free(n);
	/* a gap at the PCI directory: missing / unreadable, count unknown */
	static const char missing[] = "{\"schema\":\"gpuaudit.node/v1\",\"gaps\":[{\"path\":"
	                              "\"sys/bus/pci/devices\",\"reason\":\"missing\"}]}";
	assert_int_equal(ga_node_from_json(ctx, missing, strlen(missing), &n), 0);
	assert_int_equal(ga_node_source_state(n, "pci", NULL, NULL), GA_SOURCE_MISSING);
	assert_false(n->accelerator_count.set);
	ga_node_free(n);
	static const char denied[] = "{\"schema\":\"gpuaudit.node/v1\",\"gaps\":[{\"path\":"
	                             "\"sys/bus/pci/devices\",\"reason\":\"permission denied\"}]}";
	assert_int_equal(ga_node_from_json(ctx, denied, strlen(denied), &n), 0);
	const char *why = NULL;
	assert_int_equal(ga_node_source_state(n, "pci", NULL, &why), GA_SOURCE_UNREADABLE);
	assert_string_equal(why, "permission denied");
	ga_node_free(n);
	/* a coverage entry wins over the gaps; an unknown source is read (nothing says otherwise) */
	static const char cov[] = "{\"schema\":\"gpuaudit.node/v1\",\"accelerator_count\":null,"
	                          "\"coverage\":[{\"source\":\"pci\",\"path\":\"sys/bus/pci/devices\","
	                          "\"state\":\"unreadable\",\"reason\":\"symlink loop\"}]}";
	assert_int_equal(ga_node_from_json(ctx, cov, strlen(cov), &n), 0);
	assert_int_equal(ga_node_source_state(n, "pci", NULL, &why), GA_SOURCE_UNREADABLE);
	assert_string_equal(why, "symlink loop");
	assert_false(n->accelerator_count.set);
	assert_int_equal(ga_node_source_state(n, "kmsg", NULL, NULL), GA_SOURCE_READ);
	round_trip(ctx, n, "coverage");
	ga_node_free(n);
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcie_speed),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_fixture_round_trip),
		cmocka_unit_test(test_from_json),
		cmocka_unit_test(test_from_json_errors),
		cmocka_unit_test(test_from_json_enomem),
		cmocka_unit_test(test_collect_enomem),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_coverage_old_snapshots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
