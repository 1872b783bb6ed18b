/* test_prom.c - Prometheus exposition (lib/emit): label escaping, serve's Accept negotiation (src/serve-accept.c), the kernel-event counter it exposes (lib/analyze/kev_counter.c), rendering. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/prom.h"
#include "serve-accept.h"

static void test_escape(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_prom_label_escape(&b, "plain"), 0);
	assert_string_equal(b.data, "plain");
	ga_buf_reset(&b);
	assert_int_equal(ga_prom_label_escape(&b, "a\\b\"c\nd\te"), 0);
	assert_string_equal(b.data, "a\\\\b\\\"c\\nd\te");
	ga_buf_reset(&b);
	assert_int_equal(ga_prom_label_escape(&b, ""), 0);
	assert_int_equal(b.len, 0);
	/* a hostname with a terminal escape and a byte that is not UTF-8 (issue 22, item 4):
	 * made visible by the text rule, so the exposition stays UTF-8 with no control bytes */
	ga_buf_reset(&b);
	assert_int_equal(ga_prom_label_escape(&b, "node\x1b]0;t\x07-\xfe\"x"), 0);
	assert_string_equal(b.data, "node\\\\x1b]0;t\\\\x07-\\\\xfe\\\"x");
	/* valid UTF-8 stays as it is */
	ga_buf_reset(&b);
	assert_int_equal(ga_prom_label_escape(&b, "n\xc3\xa9ud"), 0);
	assert_string_equal(b.data, "n\xc3\xa9ud");
	ga_buf_release(&b);
	/* the cap is honoured */
	ga_buf_init(&b, 4);
	assert_int_equal(ga_prom_label_escape(&b, "\"\"\"\""), -E2BIG);
	ga_buf_release(&b);
}

static enum ga_prom_format neg(const char *s)
{
	return ga_prom_negotiate(s, s ? strlen(s) : 0);
}

static void test_negotiate(void **state)
{
	(void)state;
	assert_int_equal(neg(NULL), GA_PROM_TEXT);
	assert_int_equal(neg(""), GA_PROM_TEXT);
	assert_int_equal(neg("*/*"), GA_PROM_TEXT);
	assert_int_equal(neg("text/plain;version=0.0.4"), GA_PROM_TEXT);
	/* what Prometheus 2.x sends */
	assert_int_equal(neg("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
	                     "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
	                 GA_PROM_OPENMETRICS);
	assert_int_equal(neg("Application/OpenMetrics-Text"), GA_PROM_OPENMETRICS);
	/* a lower quality than plain text loses; q=0 means "not acceptable" */
	assert_int_equal(neg("application/openmetrics-text;q=0.3, text/plain;q=0.9"), GA_PROM_TEXT);
	assert_int_equal(neg("application/openmetrics-text;q=0"), GA_PROM_TEXT);
	assert_int_equal(neg("application/openmetrics-text ; q=0.5 , text/plain ; q=0.4"),
	                 GA_PROM_OPENMETRICS);
	/* malformed quality: treated as not acceptable */
	assert_int_equal(neg("application/openmetrics-text;q=2"), GA_PROM_TEXT);
	assert_int_equal(neg("application/openmetrics-text;q=abc"), GA_PROM_TEXT);
	assert_int_equal(neg(",,;;=,application/openmetrics-text"), GA_PROM_OPENMETRICS);
	/* only the first 4096 bytes count */
	char big[5000];
	memset(big, ' ', sizeof(big));
	memcpy(big + 4500, "application/openmetrics-text", 28);
	assert_int_equal(ga_prom_negotiate(big, sizeof(big)), GA_PROM_TEXT);
	assert_string_equal(ga_prom_content_type(GA_PROM_TEXT), "text/plain; version=0.0.4; charset=utf-8");
}

/* Feed a whole log as one read. */
static void read_log(struct ga_kev_counter *c, const char *boot, const char *const *lines, size_t n)
{
	assert_int_equal(ga_kev_counter_begin(c, boot), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ga_kev_counter_line(c, lines[i], strlen(lines[i])), 0);
	ga_kev_counter_end(c);
}

static uint64_t count(const struct ga_kev_counter *c, enum ga_kev_kind kind, uint64_t code, const char *addr)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind == kind && (!c->v[i].code.set || c->v[i].code.v == code) &&
		    !strcmp(c->v[i].address, addr))
			return c->v[i].count;
	return 0;
}

static void test_kev_counter(void **state)
{
	(void)state;
	static const char *const log1[] = {
		"[  100.000001] NVRM: Xid (PCI:0000:47:00): 79, pid=1, name=a, GPU has fallen off the bus.",
		"[  100.000001] NVRM: Xid (PCI:0000:47:00): 79, pid=2, name=b, GPU has fallen off the bus.",
		"[  100.500000] some unrelated line",
		"[  101.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=3, name=c, Graphics Exception",
	};
	/* the same ring buffer read again, with one more event at the same time as the last and one later */
	static const char *const log2[] = {
		"[  100.000001] NVRM: Xid (PCI:0000:47:00): 79, pid=1, name=a, GPU has fallen off the bus.",
		"[  100.000001] NVRM: Xid (PCI:0000:47:00): 79, pid=2, name=b, GPU has fallen off the bus.",
		"[  101.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=3, name=c, Graphics Exception",
		"[  101.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=4, name=d, Graphics Exception",
		"[  102.000000] NVRM: Xid (PCI:0000:47:00): 79, pid=5, name=e, GPU has fallen off the bus.",
	};
	/* the ring buffer wrapped: the oldest records are gone, nothing new */
	static const char *const log3[] = {
		"[  101.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=4, name=d, Graphics Exception",
		"[  102.000000] NVRM: Xid (PCI:0000:47:00): 79, pid=5, name=e, GPU has fallen off the bus.",
	};
	struct ga_kev_counter c;
	ga_kev_counter_init(&c);
	read_log(&c, "boot-a", log1, 4);
	assert_int_equal(count(&c, GA_KEV_XID, 79, "0000:47:00.0"), 2);
	assert_int_equal(count(&c, GA_KEV_XID, 13, "0000:07:00.0"), 1);
	read_log(&c, "boot-a", log1, 4); /* nothing new */
	assert_int_equal(count(&c, GA_KEV_XID, 79, "0000:47:00.0"), 2);
	assert_int_equal(count(&c, GA_KEV_XID, 13, "0000:07:00.0"), 1);
	read_log(&c, "boot-a", log2, 5);
	assert_int_equal(count(&c, GA_KEV_XID, 79, "0000:47:00.0"), 3);
	assert_int_equal(count(&c, GA_KEV_XID, 13, "0000:07:00.0"), 2);
	read_log(&c, "boot-a", log3, 2);
	assert_int_equal(count(&c, GA_KEV_XID, 79, "0000:47:00.0"), 3);
	assert_int_equal(count(&c, GA_KEV_XID, 13, "0000:07:00.0"), 2);
	/* another boot: its log starts over at low times, counts keep growing */
	read_log(&c, "boot-b", log1, 4);
	assert_int_equal(count(&c, GA_KEV_XID, 79, "0000:47:00.0"), 5);
	assert_int_equal(count(&c, GA_KEV_XID, 13, "0000:07:00.0"), 3);
	assert_int_equal(c.reads, 5);
	assert_int_equal(c.dropped, 0);
	ga_kev_counter_release(&c);
}

static void test_kev_untimed(void **state)
{
	(void)state;
	static const char *const log[] = {
		"NVRM: Xid (PCI:0000:47:00): 48, pid=1, name=a, DBE (double bit error)",
		"NVRM: Xid (PCI:0000:47:00): 48, pid=1, name=a, DBE (double bit error)",
		"NVRM: Xid (PCI:0000:47:00): 48, pid=1, name=a, DBE (double bit error)",
	};
	struct ga_kev_counter c;
	ga_kev_counter_init(&c);
	read_log(&c, NULL, log, 2);
	assert_int_equal(count(&c, GA_KEV_XID, 48, "0000:47:00.0"), 2);
	read_log(&c, NULL, log, 3); /* the file grew by one line */
	assert_int_equal(count(&c, GA_KEV_XID, 48, "0000:47:00.0"), 3);
	read_log(&c, NULL, log, 3);
	assert_int_equal(count(&c, GA_KEV_XID, 48, "0000:47:00.0"), 3);
	ga_kev_counter_release(&c);
}

static void test_kev_cap(void **state)
{
	(void)state;
	struct ga_kev_counter c;
	ga_kev_counter_init(&c);
	assert_int_equal(ga_kev_counter_begin(&c, "b"), 0);
	for (uint64_t i = 0; i < GA_KEV_SERIES_MAX + 10; i++) {
		struct ga_kevent ev = { .kind = GA_KEV_XID,
			                .code = { i, true },
			                .boot_s = { (double)i, true } };
		assert_int_equal(ga_kev_counter_add(&c, &ev), 1);
	}
	ga_kev_counter_end(&c);
	assert_int_equal(c.n, GA_KEV_SERIES_MAX);
	assert_int_equal(c.dropped, 10);
	ga_kev_counter_release(&c);
}

/* A tiny node rendered in both formats. */
static void test_render(void **state)
{
	(void)state;
	struct ga_node *n = ga_node_new();
	assert_non_null(n);
	n->host.hostname = ga_strdup("node\"1\\\n");
	struct ga_accel *a = ga_array_push((void **)&n->accelerators, &n->n_accelerators, sizeof(*a));
	assert_non_null(a);
	a->vendor = ga_strdup("amd");
	a->model = ga_strdup("MI250X");
	a->address = ga_strdup("0000:c1:00.0");
	a->index.v = 3, a->index.set = true;
	a->amd = ga_calloc(1, sizeof(*a->amd));
	a->amd->gpu_busy_pct.v = 42, a->amd->gpu_busy_pct.set = true;
	a->amd->temp_edge_mc.v = 45000, a->amd->temp_edge_mc.set = true;
	a->amd->power_uw.v = 91500000, a->amd->power_uw.set = true;

	struct ga_kev_counter kev;
	ga_kev_counter_init(&kev);
	assert_int_equal(ga_kev_counter_begin(&kev, "x"), 0);
	struct ga_kevent ev = { .kind = GA_KEV_AMDGPU_RESET, .boot_s = { 5, true } };
	snprintf(ev.address, sizeof(ev.address), "0000:c1:00.0");
	assert_int_equal(ga_kev_counter_add(&kev, &ev), 1);
	ga_kev_counter_end(&kev);

	struct ga_findings f;
	ga_findings_init(&f);
	assert_non_null(ga_findings_add_code(&f, "GA-X", GA_SEV_ERROR, "s", NULL, "m"));
	assert_non_null(ga_findings_add_code(&f, "GA-X", GA_SEV_ERROR, "t", NULL, "m"));

	struct ga_prom_input in = {
		.version = "9.9",
		.node = n,
		.findings = &f,
		.kev = &kev,
		.kmsg_readable = { true, true },
		.stats = { .collections_total = 2, .duration_s = { 0.25, true } },
	};
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_prom_render(&in, GA_PROM_TEXT, &b), 0);
	assert_non_null(strstr(b.data, "gpuaudit_build_info{version=\"9.9\"} 1\n"));
	assert_non_null(strstr(b.data, "gpuaudit_node_info{hostname=\"node\\\"1\\\\\\n\"} 1\n"));
	assert_non_null(strstr(
	        b.data, "# TYPE gpuaudit_gpu_utilization_ratio gauge\n"
	                "gpuaudit_gpu_utilization_ratio{gpu=\"3\",pci_address=\"0000:c1:00.0\"} 0.42\n"));
	assert_non_null(strstr(b.data, "gpuaudit_gpu_temperature_celsius{gpu=\"3\",pci_address=\"0000:c1:00."
	                               "0\",sensor=\"edge\"} 45\n"));
	assert_non_null(
	        strstr(b.data, "gpuaudit_gpu_power_watts{gpu=\"3\",pci_address=\"0000:c1:00.0\"} 91.5\n"));
	assert_non_null(strstr(b.data,
	                       "# TYPE gpuaudit_kernel_events_total counter\n"
	                       "gpuaudit_kernel_events_total{kind=\"amdgpu-reset\",pci_address=\"0000:c1:00."
	                       "0\",gpu=\"3\",severity=\"info\"} 1\n"));
	assert_non_null(strstr(
	        b.data, "gpuaudit_findings{code=\"GA-X\",severity=\"error\",action=\"investigate\"} 2\n"));
	assert_non_null(strstr(b.data, "gpuaudit_collection_duration_seconds 0.25\n"));
	/* absent values make no series: no NVML, so no clocks and no ECC */
	assert_null(strstr(b.data, "gpuaudit_gpu_clock_hertz"));
	assert_null(strstr(b.data, "gpuaudit_gpu_ecc"));
	assert_null(strstr(b.data, "# EOF"));

	ga_buf_reset(&b);
	assert_int_equal(ga_prom_render(&in, GA_PROM_OPENMETRICS, &b), 0);
	assert_int_equal(ga_prom_render_tail(GA_PROM_OPENMETRICS, 1.5, &b), 0);
	assert_non_null(
	        strstr(b.data, "# TYPE gpuaudit_build info\ngpuaudit_build_info{version=\"9.9\"} 1\n"));
	assert_non_null(strstr(b.data, "# TYPE gpuaudit_kernel_events counter\n"));
	assert_non_null(strstr(b.data, "# UNIT gpuaudit_gpu_temperature_celsius celsius\n"));
	assert_non_null(strstr(b.data, "gpuaudit_collection_running 1\n"));
	assert_non_null(strstr(b.data, "gpuaudit_collection_running_seconds 1.5\n"));
	size_t len = strlen(b.data);
	assert_true(len > 6 && !strcmp(b.data + len - 6, "# EOF\n"));

	/* a cap too small fails cleanly */
	struct ga_buf small;
	ga_buf_init(&small, 100);
	assert_int_equal(ga_prom_render(&in, GA_PROM_TEXT, &small), -E2BIG);
	ga_buf_release(&small);

	ga_buf_release(&b);
	ga_findings_release(&f);
	ga_kev_counter_release(&kev);
	ga_node_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),      cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_kev_counter), cmocka_unit_test(test_kev_untimed),
		cmocka_unit_test(test_kev_cap),     cmocka_unit_test(test_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
