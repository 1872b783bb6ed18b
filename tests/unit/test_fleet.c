/*
 * test_fleet.c - the fleet aggregator: majority and pin drift, fewer GPUs,
 * the bounded drift list (exact first N by host, whatever the input order),
 * check reports, the JSON round trip, the diff, the report reader's
 * splitting and skipping, and every allocation failing in turn.
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

#include "gpuaudit/fleet.h"
#include "gpuaudit/fleet-analyze.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/reports.h"
#include "gpuaudit/node-read.h"

static struct ga_node *collect(const char *name)
{
	char root[4096];
	snprintf(root, sizeof(root), "%s/nodes/%s/root", getenv("GA_FIXTURES"), name);
	struct ga_ctx *ctx = NULL;
	struct ga_node *n = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	ga_ctx_set_vendor(ctx, GA_VENDOR_OFF, 1000);
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	ga_ctx_free(ctx);
	return n;
}

static void set_str(char **p, const char *v)
{
	ga_free(*p);
	*p = ga_strdup(v);
}

/* One node of the dgx-a100 fixture named host, with driver drv and gpus GPUs. */
static int add(struct ga_fleet *f, struct ga_node *n, const char *host, const char *drv, size_t gpus)
{
	char src[64];
	size_t all = n->n_accelerators;
	set_str(&n->host.hostname, host);
	set_str(&n->drivers[0].version, drv);
	n->n_accelerators = gpus;
	snprintf(src, sizeof(src), "%s.json", host);
	int r = ga_fleet_add_node(f, n, src);
	n->n_accelerators = all;
	return r;
}

static char *to_json(const struct ga_fleet_report *r)
{
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, false);
	ga_json_obj_begin(&w);
	ga_fleet_report_write_members(r, &w);
	ga_json_obj_end(&w);
	assert_int_equal(ga_json_finish(&w), 0);
	return ga_buf_detach(&b, NULL);
}

static bool has_reason(const struct ga_fleet_drift *d, const char *r)
{
	return ga_strv_contains(&d->reasons, r);
}

/* 7 nodes on 550.135, 3 on 550.90.07, 2 with 7 GPUs: majority drift and fewer GPUs. */
static struct ga_fleet_report *majority_fleet(struct ga_node *n, size_t max_drift, bool reverse)
{
	static const char *const hosts[] = { "n01", "n02", "n03", "n04", "n05", "n06",
		                             "n07", "n08", "n09", "n10", "n11", "n12" };
	struct ga_fleet_opts o = { .max_drift = max_drift };
	struct ga_fleet *f = NULL;
	assert_int_equal(ga_fleet_new(&o, &f), 0);
	for (size_t k = 0; k < 12; k++) {
		size_t i = reverse ? 11 - k : k;
		const char *drv = i >= 7 && i < 10 ? "550.90.07" : "550.135";
		assert_int_equal(add(f, n, hosts[i], drv, i >= 10 ? 7 : 8), 0);
	}
	struct ga_fleet_report *r = NULL;
	assert_int_equal(ga_fleet_report(f, &r), 0);
	ga_fleet_free(f);
	return r;
}

static void test_majority(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-a100");
	struct ga_fleet_report *r = majority_fleet(n, 100, false);
	assert_int_equal(r->nodes.v, 12);
	assert_int_equal(r->n_classes, 2); /* x7 and x8 */
	const struct ga_fleet_class *x7 = &r->classes[0], *x8 = &r->classes[1];
	assert_non_null(strstr(x7->name, "-x7-"));
	assert_non_null(strstr(x8->name, "-x8-"));
	assert_int_equal(x7->gpus.v, 7);
	assert_int_equal(x7->expected_gpus.v, 8);
	assert_string_equal(x7->pool, x8->id);
	assert_int_equal(x8->n_stacks, 2);
	assert_int_equal(x8->stacks[0].nodes.v, 7);
	assert_true(x8->stacks[0].majority.v);
	assert_false(x8->stacks[0].drift.v);
	assert_int_equal(x8->stacks[1].nodes.v, 3);
	assert_true(x8->stacks[1].drift.v);
	assert_non_null(strstr(x8->stacks[1].drift_detail, "550.90.07"));
	assert_non_null(strstr(x8->stacks[1].drift_detail, "pool: nvidia 550.135"));
	/* 3 off-majority + 2 short of a GPU */
	assert_int_equal(r->drift_nodes.v, 5);
	assert_int_equal(r->n_drift, 5);
	assert_string_equal(r->drift[0].host, "n08");
	assert_true(has_reason(&r->drift[0], "stack"));
	assert_false(has_reason(&r->drift[0], "gpus"));
	assert_string_equal(r->drift[3].host, "n11");
	assert_true(has_reason(&r->drift[3], "gpus"));
	assert_string_equal(r->drift[3].detail, "7 GPUs, pool has 8");
	ga_fleet_report_free(r);
	ga_node_free(n);
}

/* The list is cut at max_drift, keeps the first hosts, and input order does not matter. */
static void test_cap_and_order(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-a100");
	struct ga_fleet_report *a = majority_fleet(n, 2, false), *b = majority_fleet(n, 2, true);
	assert_int_equal(a->drift_nodes.v, 5);
	assert_int_equal(a->n_drift, 2);
	assert_string_equal(a->drift[0].host, "n08");
	assert_string_equal(a->drift[1].host, "n09");
	char *ja = to_json(a), *jb = to_json(b);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	ga_fleet_report_free(a);
	ga_fleet_report_free(b);
	ga_node_free(n);
}

/* With a policy the pins decide: the majority does not matter. */
static void test_policy_pins(void **state)
{
	(void)state;
	static const char yaml[] = "version: 1\n"
	                           "classes:\n"
	                           "  - name: a100\n"
	                           "    match: {vendor: nvidia, model: \"*A100*\"}\n"
	                           "    pin: {driver: \">=550.54, <560\"}\n"
	                           "    expect: {gpu_count: 8}\n";
	struct ga_node *n = collect("dgx-a100");
	struct ga_policy *p = NULL;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_policy_parse(ctx, "p.yaml", yaml, sizeof(yaml) - 1, &p), 0);
	struct ga_fleet_opts o = { .policy = p, .max_drift = 10 };
	struct ga_fleet *f = NULL;
	assert_int_equal(ga_fleet_new(&o, &f), 0);
	/* the pinned-out driver is the majority here */
	assert_int_equal(add(f, n, "a", "550.40.07", 8), 0);
	assert_int_equal(add(f, n, "b", "550.40.07", 8), 0);
	assert_int_equal(add(f, n, "c", "550.135", 8), 0);
	assert_int_equal(add(f, n, "d", "550.135", 6), 0);
	struct ga_fleet_report *r = NULL;
	assert_int_equal(ga_fleet_report(f, &r), 0);
	assert_string_equal(r->policy, "p.yaml");
	assert_int_equal(r->drift_nodes.v, 3);
	assert_string_equal(r->drift[0].host, "a");
	assert_true(has_reason(&r->drift[0], "stack"));
	assert_non_null(strstr(r->drift[0].detail, "550.40.07"));
	assert_string_equal(r->drift[2].host, "d");
	assert_true(has_reason(&r->drift[2], "gpus"));
	assert_false(has_reason(&r->drift[2], "stack"));
	for (size_t i = 0; i < r->n_classes; i++) {
		assert_string_equal(r->classes[i].pool, "a100");
		assert_int_equal(r->classes[i].expected_gpus.v, 8);
		for (size_t k = 0; k < r->classes[i].n_stacks; k++)
			assert_false(r->classes[i].stacks[k].majority.set);
	}
	ga_fleet_report_free(r);
	ga_fleet_free(f);
	ga_policy_free(p);
	ga_ctx_free(ctx);
	ga_node_free(n);
}

static void test_checks(void **state)
{
	(void)state;
	struct ga_fleet_opts o = { .max_drift = 10 };
	struct ga_fleet *f = NULL;
	assert_int_equal(ga_fleet_new(&o, &f), 0);
	assert_int_equal(ga_fleet_add_check(f, "x.json", "x", "a100", "pass", NULL), 0);
	assert_int_equal(ga_fleet_add_check(f, "y.json", "y", "a100", "fail", "GA-PIN-DRIVER"), 0);
	assert_int_equal(ga_fleet_add_check(f, "z.json", "z", NULL, "unknown", NULL), 0);
	assert_int_equal(ga_fleet_add_check(f, "w.json", "w", "a100", "maybe", NULL), -EINVAL);
	assert_int_equal(ga_fleet_add_skipped(f, "v.json", "truncated"), 0);
	struct ga_fleet_report *r = NULL;
	assert_int_equal(ga_fleet_report(f, &r), 0);
	assert_int_equal(r->check_reports.v, 3);
	assert_int_equal(r->skipped.v, 1);
	assert_int_equal(r->reports.v, 4);
	assert_int_equal(r->n_checks, 2);
	assert_string_equal(r->checks[0].class, "a100");
	assert_int_equal(r->checks[0].pass.v, 1);
	assert_int_equal(r->checks[0].fail.v, 1);
	assert_null(r->checks[1].class);
	assert_int_equal(r->checks[1].unknown.v, 1);
	assert_int_equal(r->drift_nodes.v, 1);
	assert_string_equal(r->drift[0].host, "y");
	assert_null(r->drift[0].class_id);
	assert_string_equal(r->drift[0].detail, "GA-PIN-DRIVER");
	ga_fleet_report_free(r);
	ga_fleet_free(f);
}

/* --json reads back to the same report, and a diff names what changed. */
static void test_json_and_diff(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-a100");
	struct ga_fleet_report *a = majority_fleet(n, 100, false);
	char *ja = to_json(a);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_fleet_report *back = NULL;
	assert_int_equal(ga_fleet_report_from_json(ctx, ja, strlen(ja), &back), 0);
	char *jb = to_json(back);
	assert_string_equal(ja, jb);
	free(jb);
	assert_int_equal(ga_fleet_report_from_json(ctx, "{\"schema\":\"gpuaudit.node/v1\"}", 29, &back),
	                 -EBADMSG);
	assert_int_equal(ga_fleet_report_from_json(ctx, "{", 1, &back), -EBADMSG);

	/* later: n08-n10 fixed, n13 new with the old driver, the x7 nodes gone */
	struct ga_fleet_opts o = { .max_drift = 100 };
	struct ga_fleet *f = NULL;
	assert_int_equal(ga_fleet_new(&o, &f), 0);
	static const char *const hosts[] = { "n01", "n02", "n03", "n04", "n05",
		                             "n06", "n07", "n08", "n09", "n10" };
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(add(f, n, hosts[i], "550.135", 8), 0);
	assert_int_equal(add(f, n, "n13", "550.90.07", 8), 0);
	struct ga_fleet_report *b = NULL;
	assert_int_equal(ga_fleet_report(f, &b), 0);
	struct ga_fleet_diff *d = NULL;
	assert_int_equal(ga_fleet_diff(back, b, &d), 0);
	assert_true(d->drift_complete.v);
	size_t k = 0;
	const char *want[][2] = {
		{ "class-nodes", NULL },     { "stack-nodes", NULL },     { "stack-nodes", NULL },
		{ "class-removed", NULL },   { "drift-resolved", "n08" }, { "drift-resolved", "n09" },
		{ "drift-resolved", "n10" }, { "drift-resolved", "n11" }, { "drift-resolved", "n12" },
		{ "drift-added", "n13" },
	};
	assert_int_equal(d->n_changes, sizeof(want) / sizeof(want[0]));
	for (k = 0; k < d->n_changes; k++) {
		assert_string_equal(d->changes[k].kind, want[k][0]);
		if (want[k][1])
			assert_string_equal(d->changes[k].host, want[k][1]);
	}
	assert_int_equal(d->changes[0].old_nodes.v, 10);
	assert_int_equal(d->changes[0].new_nodes.v, 11);
	ga_fleet_diff_free(d);
	ga_fleet_report_free(b);
	ga_fleet_free(f);
	ga_fleet_report_free(back);
	ga_ctx_free(ctx);
	free(ja);
	ga_fleet_report_free(a);
	ga_node_free(n);
}

/* The splitter: pretty, JSON lines, a cut line, garbage, an unknown document. */
/* The reader into the fleet through the fleet's sink (what cmd-fleet does). */
static int read_buffer(struct ga_ctx *ctx, struct ga_fleet *f, const char *name, const void *buf, size_t len)
{
	struct ga_reports_sink sink;
	ga_fleet_sink(f, &sink);
	return ga_reports_read_buffer(ctx, &sink, name, buf, len);
}

/* A sink of our own: the reader yields documents in order, with or without threads. */
struct seen {
	struct ga_buf log;
};

static int seen_node(void *ud, const struct ga_node *n, const char *source)
{
	struct seen *s = ud;
	return ga_buf_addf(&s->log, "node %s %s\n", n->host.hostname ? n->host.hostname : "-", source);
}

static int seen_check(void *ud, const struct ga_reports_check *c, const char *source)
{
	struct seen *s = ud;
	if (strcmp(c->result, "pass") && strcmp(c->result, "fail"))
		return -EINVAL;
	return ga_buf_addf(&s->log, "check %s %s %s %s\n", c->name, c->cls ? c->cls : "-", c->result, source);
}

static int seen_skipped(void *ud, const char *source, const char *reason)
{
	struct seen *s = ud;
	return ga_buf_addf(&s->log, "skip %s %.20s\n", source, reason);
}

static void test_reader_sink(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-a100");
	struct ga_buf one, in;
	struct ga_json w;
	ga_buf_init(&one, 0);
	ga_buf_init(&in, 0);
	ga_json_init(&w, &one, false);
	assert_int_equal(ga_node_write_json(n, &w), 0);
	assert_int_equal(ga_json_finish(&w), 0);
	for (int i = 0; i < 40; i++) {
		ga_buf_addf(&in, "%s\n", one.data);
		if (i % 7 == 3)
			ga_buf_addf(&in, "{\"result\": \"%s\", \"class\": \"c\", \"findings\": []}\n",
			            i % 2 ? "fail" : "maybe");
	}
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct seen a, b;
	ga_buf_init(&a.log, 0);
	ga_buf_init(&b.log, 0);
	struct ga_reports_sink s1 = { &a, seen_node, seen_check, seen_skipped, 0 };
	struct ga_reports_sink s4 = { &b, seen_node, seen_check, seen_skipped, 4 };
	assert_int_equal(ga_reports_read_buffer(ctx, &s1, "in", in.data, in.len), 0);
	assert_int_equal(ga_reports_read_buffer(ctx, &s4, "in", in.data, in.len), 0);
	assert_non_null(strstr(a.log.data, "node "));
	assert_non_null(strstr(a.log.data, "check in:5 c fail in:5\n"));
	assert_non_null(strstr(a.log.data, "skip in:13 check report: result"));
	assert_string_equal(a.log.data, b.log.data);
	ga_buf_release(&a.log);
	ga_buf_release(&b.log);
	ga_buf_release(&one);
	ga_buf_release(&in);
	ga_ctx_free(ctx);
	ga_node_free(n);
}

static void test_reader(void **state)
{
	(void)state;
	struct ga_node *n = collect("cpu-vm");
	struct ga_buf b, one;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_buf_init(&one, 0);
	ga_json_init(&w, &one, false);
	assert_int_equal(ga_node_write_json(n, &w), 0);
	assert_int_equal(ga_json_finish(&w), 0);
	ga_buf_addf(&b, "%s\n%.100s\n%s\nnot json\n{\"a\": [1, \"}\"]}\n", one.data, one.data, one.data);
	ga_buf_addf(&b, "{\"result\": \"fail\", \"class\": \"cpu\", \"findings\": "
	                "[{\"code\": \"GA-X\", \"severity\": \"error\"}]}\n");
	ga_buf_addf(&b, "%.200s", one.data); /* cut at the end */
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_fleet_opts o = { .max_drift = 10 };
	struct ga_fleet *f = NULL;
	assert_int_equal(ga_fleet_new(&o, &f), 0);
	assert_int_equal(read_buffer(ctx, f, "in", b.data, b.len), 0);
	struct ga_fleet_report *r = NULL;
	assert_int_equal(ga_fleet_report(f, &r), 0);
	assert_int_equal(r->nodes.v, 2);
	assert_int_equal(r->check_reports.v, 1);
	assert_int_equal(r->skipped.v, 4);
	assert_string_equal(r->skipped_reports[0].source, "in:2");
	assert_non_null(strstr(r->skipped_reports[0].reason, "truncated"));
	assert_string_equal(r->skipped_reports[1].source, "in:4");
	assert_string_equal(r->skipped_reports[1].reason, "text outside a JSON document");
	assert_string_equal(r->skipped_reports[2].source, "in:5");
	assert_non_null(strstr(r->skipped_reports[2].reason, "neither"));
	assert_string_equal(r->skipped_reports[3].source, "in:7");
	assert_non_null(strstr(r->skipped_reports[3].reason, "input ends inside"));
	assert_string_equal(r->drift[0].host, "in:6");
	assert_string_equal(r->drift[0].detail, "GA-X");
	ga_fleet_report_free(r);
	ga_fleet_free(f);

	/* a document over the context's cap is skipped, the next one is read */
	ga_ctx_set_max_file(ctx, one.len);
	ga_buf_reset(&b);
	ga_buf_addf(&b, "[%s]\n%s\n", one.data, one.data);
	assert_int_equal(ga_fleet_new(&o, &f), 0);
	assert_int_equal(read_buffer(ctx, f, "in", b.data, b.len), 0);
	assert_int_equal(ga_fleet_report(f, &r), 0);
	assert_int_equal(r->nodes.v, 1);
	assert_int_equal(r->skipped.v, 1);
	assert_non_null(strstr(r->skipped_reports[0].reason, "larger than"));
	ga_fleet_report_free(r);
	ga_fleet_free(f);
	ga_ctx_free(ctx);
	ga_buf_release(&b);
	ga_buf_release(&one);
	ga_node_free(n);
}

/* Every allocation failing in turn: -ENOMEM or success, never a crash or a leak. */
static void test_alloc_failures(void **state)
{
	(void)state;
	struct ga_node *n = collect("dgx-a100");
	int failures = 0;
	for (long k = 0; k < 100000; k++) {
		struct ga_fleet_opts o = { .max_drift = 3 };
		struct ga_fleet *f = NULL;
		struct ga_fleet_report *r = NULL, *old = NULL;
		struct ga_fleet_diff *d = NULL;
		ga_alloc_fail_after(k);
		int rc = ga_fleet_new(&o, &f);
		if (rc == 0)
			rc = add(f, n, "a", "550.135", 8);
		if (rc == 0)
			rc = add(f, n, "b", "550.90.07", 7);
		if (rc == 0)
			rc = ga_fleet_add_check(f, "c.json", "c", "x", "fail", "GA-X");
		if (rc == 0)
			rc = ga_fleet_add_skipped(f, "d.json", "bad");
		if (rc == 0)
			rc = ga_fleet_report(f, &r);
		if (rc == 0)
			rc = ga_fleet_report(f, &old);
		if (rc == 0)
			rc = ga_fleet_diff(old, r, &d);
		ga_alloc_fail_after(-1);
		ga_fleet_diff_free(d);
		ga_fleet_report_free(old);
		ga_fleet_report_free(r);
		ga_fleet_free(f);
		if (rc == 0)
			break;
		assert_int_equal(rc, -ENOMEM);
		failures++;
	}
	assert_true(failures > 50);
	ga_node_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_majority),      cmocka_unit_test(test_cap_and_order),
		cmocka_unit_test(test_policy_pins),   cmocka_unit_test(test_checks),
		cmocka_unit_test(test_json_and_diff), cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_sink),   cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
