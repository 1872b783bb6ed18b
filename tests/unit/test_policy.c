/* test_policy.c - policy parser (every error message), version comparison and ranges. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/policy.h"

static void test_version_cmp(void **state)
{
	(void)state;
	static const struct {
		const char *a, *b;
		int want;
	} t[] = {
		{ "550.54.15", "550.135", -1 },
		{ "550.135", "550.54.15", 1 },
		{ "550.54", "550.54.15", -1 },
		{ "12.4", "12.4", 0 },
		{ "12.10", "12.9", 1 },
		{ "535.183.01", "535.183.1", 0 },
		{ "5.15.0-1063-nvidia", "5.15.0-1063-nvidia", 0 },
		{ "5.15.0-142", "5.15.0-99", 1 },
		{ "6.4.0-47", "6.4.0", 1 },
		{ "1.0rc1", "1.0", 1 },
		{ "2", "10", -1 },
		{ "99999999999999999999", "1", 1 },
		{ "", "1", -1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int c = ga_version_cmp(t[i].a, t[i].b);
		c = c < 0 ? -1 : c > 0;
		if (c != t[i].want)
			fail_msg("%s vs %s: got %d want %d", t[i].a, t[i].b, c, t[i].want);
	}
}

static void test_ranges(void **state)
{
	(void)state;
	static const struct {
		const char *range, *version;
		bool want;
	} t[] = {
		{ ">=550.54, <560", "550.135", true },
		{ ">=550.54, <560", "550.54.15", true },
		{ ">=550.54, <560", "560.28", false },
		{ ">=550.54, <560", "535.183.01", false },
		{ ">550.54", "550.54", false },
		{ "<=12.4", "12.4", true },
		{ "==12.4", "12.4", true },
		{ "!=535.54.03", "535.54.03", false },
		{ "580.95.05", "580.95.05", true },
		{ "580.95.05", "580.95.5", true },
		{ "550.*", "550.135", true },
		{ "550.*", "555.42", false },
		{ "6.8.0-*-nvidia", "6.8.0-1015-nvidia", true },
		{ ">= 12.4 ,< 13", "12.8", true },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ga_vrange r;
		char why[128];
		assert_int_equal(ga_vrange_parse(t[i].range, &r, why, sizeof(why)), 0);
		if (ga_vrange_match(&r, t[i].version) != t[i].want)
			fail_msg("'%s' on %s: want %d", t[i].range, t[i].version, t[i].want);
		assert_false(ga_vrange_match(&r, NULL));
		ga_vrange_release(&r);
	}
	static const char *const bad[][2] = {
		{ "", "empty comparator in ''" },
		{ ">=12.4,", "empty comparator in '>=12.4,'" },
		{ "=>550", "'=>550' does not start with >=, >, <=, <, == or !=" },
		{ ">=55 0", "'>=55 0' is not a version (digits and letters separated by . - + _ ~)" },
		{ ">=550.*", "a '*' pattern cannot follow an operator in '>=550.*'" },
		{ ">=", "'>=' is not a version (digits and letters separated by . - + _ ~)" },
		{ "1,2,3,4,5,6,7,8,9", "more than 8 comparators" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ga_vrange r;
		char why[128];
		assert_int_equal(ga_vrange_parse(bad[i][0], &r, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, bad[i][1]);
	}
}

static const char *parse_err(const char *yaml)
{
	static char msg[1024];
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	int r = ga_policy_parse(ctx, "p.yaml", yaml, strlen(yaml), &p);
	snprintf(msg, sizeof(msg), "%s", r < 0 ? ga_ctx_errmsg(ctx) : "ok");
	assert_true(r == 0 || r == -EINVAL);
	assert_true((r == 0) == (p != NULL));
	ga_policy_free(p);
	ga_ctx_free(ctx);
	return msg;
}

static void test_parse_errors(void **state)
{
	(void)state;
	static const char *const t[][2] = {
		{ "",
		  "p.yaml:1:1: expected a mapping with 'version: 1' and 'classes', got an empty document" },
		{ "[1]", "p.yaml:1:2: expected a mapping with 'version: 1' and 'classes', got a list" },
		{ "version: 1\n", "p.yaml:1:1: missing 'classes' (a list of node classes)" },
		{ "classes: []\n", "p.yaml:1:1: missing 'version: 1'" },
		{ "version: 2\nclasses: []\n",
		  "p.yaml:1:10: version: expected 1 (the only policy format so far), got '2'" },
		{ "version: 1\nclasses: {}\n",
		  "p.yaml:2:1: 'classes' must be a list of classes, got a mapping" },
		{ "version: 1\nfoo: 1\n",
		  "p.yaml:2:1: unknown key 'foo' in the policy (expected one of: version, classes, health)" },
		/* health: thresholds and damping for health --state */
		{ "version: 1\nclasses: []\nhealth: {thresholds: [{code: XID-13}]}\n",
		  "p.yaml:3:30: health.thresholds[0].code: expected a finding code (GA-...), got 'XID-13'" },
		{ "version: 1\nclasses: []\nhealth: {thresholds: [{code: GA-XID-13, action: reset}]}\n",
		  "p.yaml:3:49: health.thresholds[0].action: expected an action (none, restart_workload, "
		  "reset_gpu, reboot, drain, replace, fix_config, investigate), got 'reset'" },
		{ "version: 1\nclasses: []\nhealth: {thresholds: [{code: GA-XID-13, window: soon}]}\n",
		  "p.yaml:3:49: health.thresholds[0].window: expected a duration like 30m, 2h, 1d or 1h30m, "
		  "got 'soon'" },
		{ "version: 1\nclasses: []\nhealth: {thresholds: [{code: GA-XID-13, bogus: 1}]}\n",
		  "p.yaml:3:41: health.thresholds[0]: unknown key 'bogus' in a threshold (expected one of: "
		  "code, count, window, action)" },
		{ "version: 1\nclasses: []\nhealth: {thresholds: [{count: 2}]}\n",
		  "p.yaml:3:24: health.thresholds[0]: a threshold needs a 'code'" },
		{ "version: 1\nclasses: []\nhealth: {thresholds: [{code: GA-XID-13}, {code: GA-XID-13}]}\n",
		  "p.yaml:3:43: health.thresholds[1]: duplicate threshold for GA-XID-13 (first at line 3)" },
		{ "version: 1\nclasses: []\nhealth: {clear_after: 0}\n",
		  "p.yaml:3:23: health.clear_after: expected an integer from 1 to 1000, got 0" },
		{ "version: 1\nclasses: []\nhealth: {nope: 1}\n",
		  "p.yaml:3:10: health: unknown key 'nope' in the health section (expected one of: "
		  "clear_after, clear_for, thresholds)" },
		{ "version: 1\nclasses: [{name: a, match: {count: -1}}]\n",
		  "p.yaml:2:36: classes[0].match.count: expected an integer from 0 to 1024, got '-1'" },
		{ "version: 1\nclasses: [{name: a, match: {model: [x]}}]\n",
		  "p.yaml:2:37: classes[0].match.model: expected a string, got a list" },
		{ "version: 1\nclasses: [{name: a, pin: {driver: [1]}}]\n",
		  "p.yaml:2:36: classes[0].pin.driver: expected a version range such as \">=550.54, <560\" "
		  "or null, "
		  "got a list" },
		{ "version: 1\nclasses: [{name: a, pin: {driver_flavor: closed}}]\n",
		  "p.yaml:2:42: classes[0].pin.driver_flavor: expected 'open' or 'proprietary', got "
		  "'closed'" },
		{ "version: 1\nclasses: [{name: a, expect: {memory_min_gib: lots}}]\n",
		  "p.yaml:2:46: classes[0].expect.memory_min_gib: expected a number, got 'lots'" },
		{ "version: 1\nclasses: [{name: a, expect: {pcie_gen_min: 9}}]\n",
		  "p.yaml:2:44: classes[0].expect.pcie_gen_min: expected an integer from 1 to 7, got 9" },
		{ "version: 1\nclasses: [{name: a, expect: {modules: [\"\"]}}]\n",
		  "p.yaml:2:41: classes[0].expect.modules[0]: expected a non-empty string, got ''" },
		{ "version: 1\nclasses: [{name: a, smoke: {x: y}}]\n",
		  "p.yaml:2:32: classes[0].smoke.x: expected a number, got 'y'" },
		{ "version: 1\nclasses: [{name: a, xid: {abc: ignore}}]\n",
		  "p.yaml:2:27: classes[0].xid: expected an integer from 1 to 1000, got 'abc'" },
		{ "version: 1\nclasses: [{name: a, artifacts: {archs: sm_80}}]\n",
		  "p.yaml:2:40: classes[0].artifacts.archs: expected a list of strings, got 'sm_80'" },
		{ "version: 1\nclasses: [{name: a, expect: {gpu_count: 8.5}}]\n",
		  "p.yaml:2:41: classes[0].expect.gpu_count: expected an integer from 0 to 1024, got '8.5'" },
		{ "version: 1\nclasses: [{name: a, expect: {gpu_count: \"8\"}}]\n",
		  "p.yaml:2:42: classes[0].expect.gpu_count: expected an integer from 0 to 1024, got '8'" },
		{ "version: 1\nclasses: [{name: a}, {name: a}]\n",
		  "p.yaml:2:29: classes[1]: duplicate class name 'a' (first defined at line 2)" },
		{ "version: 1\nclasses:\n  - name: a\n   bad\n",
		  "p.yaml:4:4: not valid YAML: invalid scalar at the end of block sequence" },
		/* libfyaml's error positions are 1-based: not shifted again (issue 22) */
		{ "a: b: c\n", "p.yaml:1:5: not valid YAML: invalid nested block mapping on the same line" },
		{ "version: 1\nx: 1\na: b: c\n",
		  "p.yaml:3:5: not valid YAML: invalid nested block mapping on the same line" },
		{ "a: \"\t\" b: c\n",
		  "p.yaml:1:8: not valid YAML: invalid trailing content after double-quoted scalar" },
		{ "a: \"\xc3\xa9\" b: c\n",
		  "p.yaml:1:8: not valid YAML: invalid trailing content after double-quoted scalar" },
		/* duplicate keys are the walk's (libfyaml's own check is quadratic) */
		{ "version: 1\nversion: 1\n", "p.yaml:2:1: duplicate key 'version' in the policy" },
		{ "version: 1\nclasses: [{name: a, smoke: {x: 1, x: 2}}]\n",
		  "p.yaml:2:35: classes[0].smoke: duplicate key 'x' in smoke" },
		{ "version: 1\nclasses: [{name: a, xid: {79: info, 079: error}}]\n",
		  "p.yaml:2:37: classes[0].xid: duplicate Xid 79" },
		/* expect.ib_ports (docs/network.md) */
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: 8}}]\n",
		  "p.yaml:2:40: classes[0].expect.ib_ports: expected expect.ib_ports (a mapping), got '8'" },
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: {rate: 400}}}]\n",
		  "p.yaml:2:41: classes[0].expect.ib_ports: unknown key 'rate' in expect.ib_ports (expected "
		  "one "
		  "of: count, rate_gbps, state, link_layer)" },
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: {state: up}}}]\n",
		  "p.yaml:2:48: classes[0].expect.ib_ports.state: expected active, down, init or armed, got "
		  "'up'" },
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: {link_layer: roce}}}]\n",
		  "p.yaml:2:53: classes[0].expect.ib_ports.link_layer: expected infiniband or ethernet, got "
		  "'roce'" },
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: {count: 65}}}]\n",
		  "p.yaml:2:48: classes[0].expect.ib_ports.count: expected an integer from 0 to 64, got 65" },
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: {rate_gbps: 0}}}]\n",
		  "p.yaml:2:52: classes[0].expect.ib_ports.rate_gbps: expected an integer from 1 to 3200, "
		  "got 0" },
		{ "version: 1\nclasses: [{name: a, expect: {ib_ports: {count: 1, count: 2}}}]\n",
		  "p.yaml:2:51: classes[0].expect.ib_ports: duplicate key 'count' in expect.ib_ports" },
		/* aliases would read as the anchor's name: both are refused */
		{ "version: 1\nclasses:\n  - name: a\n    pin: {driver: *drv}\n",
		  "p.yaml:4:19: aliases are not supported (*drv)" },
		{ "version: 1\nclasses:\n  - name: a\n    pin: {driver: &drv \">=550\"}\n"
		  "  - name: b\n    pin: {driver: *drv}\n",
		  "p.yaml:4:19: anchors are not supported (&drv)" },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = parse_err(t[i][0]);
		if (strncmp(got, t[i][1], strlen(t[i][1])) != 0) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, got, t[i][1]);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static const char *parse_err_n(const char *yaml, size_t len)
{
	static char msg[1024];
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	int r = ga_policy_parse(ctx, "p.yaml", yaml, len, &p);
	snprintf(msg, sizeof(msg), "%s", r < 0 ? ga_ctx_errmsg(ctx) : "ok");
	assert_true((r == 0) == (p != NULL));
	ga_policy_free(p);
	ga_ctx_free(ctx);
	return msg;
}

/* What the YAML parser is never shown: bytes outside YAML's character set, depth, size. */
static void test_parse_prescan(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t len;
		const char *want;
	} t[] = {
#define T(s, w) { s, sizeof(s) - 1, w }
		/* libfyaml 0.7.12 spins forever on each of these directives */
		T("%\xfe", "p.yaml:1:2: a byte that is never UTF-8 (byte 0xfe)"),
		T("%YAML 1.2\n%TAG ! \xa6\n", "p.yaml:2:8: a UTF-8 continuation byte without a lead byte"),
		T("%\"\xa6", "p.yaml:1:3: a UTF-8 continuation byte"),
		T("%\xed\xa0\x80", "p.yaml:1:2: a UTF-16 surrogate written as UTF-8 (byte 0xed)"),
		T("a: \xc0\x80\n", "p.yaml:1:4: an overlong UTF-8 sequence (byte 0xc0)"),
		T("a: \xe0\x80\xaf\n", "p.yaml:1:4: an overlong UTF-8 sequence"),
		T("a: \xf4\x90\x80\x80\n", "p.yaml:1:4: a code point above U+10FFFF"),
		T("a: \xc3", "p.yaml:1:4: an incomplete UTF-8 sequence"),
		T("a: b\n\xc3\xa9\xc3\xa9\xff", "p.yaml:2:3: a byte that is never UTF-8 (byte 0xff)"),
		T("a: b\0c\n", "p.yaml:1:5: a NUL byte (U+0000): not allowed in YAML"),
		T("a: \x1b[2J\n", "p.yaml:1:4: a control character (U+001B)"),
		T("a: \x7f\n", "p.yaml:1:4: a control character (U+007F)"),
		T("a: \xc2\x9b\n", "p.yaml:1:4: a control character (U+009B)"),
		T("a: \xef\xbf\xbe\n", "p.yaml:1:4: a noncharacter (U+FFFE)"),
		T("a: 1\r\nb: \xef\xbb\xbf\n", "p.yaml:2:4: a byte order mark after the start"),
		T("a: 1\rb: \x01\n", "p.yaml:2:4: a control character (U+0001)"),
		/* libfyaml 0.7.12 misreads adjacent '' escapes ("x'''" for 'x''''y') and leaks */
		T("a: 'x''''y'\n", "p.yaml:1:6: two escaped quotes ('') in a row in a single-quoted string"),
		T(" '''''''''''''''''''''''''''''''''''''''''''", "p.yaml:1:3: two escaped quotes"),
		T("a: [b, 'c''d''''']\n", "p.yaml:1:13: two escaped quotes"),
		/* explicit keys: libfyaml 0.7.12 crashes in its cleanup on "? ?:\t?" (a fuzz find) */
		T("? ?:\t?", "p.yaml:1:1: an explicit mapping key ('? '): not supported"),
		T("version: 1\nclasses: [{? name: a}]\n", "p.yaml:2:12: an explicit mapping key"),
		T("version: 1\n# ? in a comment\nx: 'a ? b'\ny: what?\n", "p.yaml:3:1: unknown key 'x'"),
		/* one escape at a time, and quotes in double quotes, comments and plain text, are fine */
		T("version: 1\nclasses: []\nb: 'it''s'\nc: ''''\nd: \"''''\"\ne: a''''b # ''''\nzz: 1\n",
		  "p.yaml:3:1: unknown key 'b' in the policy"),
		/* allowed: a leading BOM, TAB, CR, NEL, non-ASCII text */
		T("\xef\xbb\xbfversion: 1\nclasses:\t[]\r\n# \xc2\x85 \xe2\x80\xa8 \xf0\x9f\x98\x80\n", "ok"),
		/* depth, before the parser builds anything */
		T("a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "p.yaml:1:35: nested deeper than 32 levels"),
		T("a: {b: {c: {d: {e: {f: {g: {h: {i: {j: {k: {l: {m: {n: {o: {p: {q: {r: {s: {t: {u: "
		  "{v: {w: {x: {y: {z: {a: {b: {c: {d: {e: {f: {g: {h:",
		  "p.yaml:1:128: nested deeper than 32 levels"),
		T("- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n",
		  "p.yaml:1:63: nested deeper than 32 levels"),
		/* brackets in quotes, comments, plain and block scalars are text */
		T("version: 1\nclasses: []\n# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
		  "x: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"\"\n"
		  "y: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[''['\n"
		  "z: a [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
		  "w: |\n  [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n   'x\n",
		  "p.yaml:4:1: unknown key 'x' in the policy"),
#undef T
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = parse_err_n(t[i].text, t[i].len);
		if (strncmp(got, t[i].want, strlen(t[i].want)) != 0) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, got, t[i].want);
			bad++;
		}
	}
	/* the node bound: a flat flow list of 1 MiB never reaches the parser */
	size_t n = GA_POLICY_MAX_FILE;
	char *big = malloc(n);
	assert_non_null(big);
	big[0] = '[';
	for (size_t i = 1; i + 1 < n; i += 2)
		memcpy(big + i, "a,", 2);
	big[n - 1] = ']';
	const char *got = parse_err_n(big, n);
	if (strncmp(got, "p.yaml:1:131073: more than 65536 characters that can start a YAML node", 70)) {
		print_error("flat list:\n got: %s\n", got);
		bad++;
	}
	free(big);
	assert_int_equal(bad, 0);
}

/* expect.container_runtime (issue 21): its keys, values and errors; the example policy. */
static void test_parse_container(void **state)
{
	(void)state;
	static const char *const t[][2] = {
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: {mode: hybrid}}}]\n",
		  "p.yaml:2:56: classes[0].expect.container_runtime.mode: expected a toolkit mode (one of: "
		  "auto, "
		  "legacy, cdi, csv, jit-cdi), got 'hybrid'" },
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: {wired: [podman]}}}]\n",
		  "p.yaml:2:58: classes[0].expect.container_runtime.wired: expected a container engine (one "
		  "of: "
		  "containerd, docker, crio), got 'podman'" },
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: {toolkit: yes}}}]\n",
		  "p.yaml:2:59: classes[0].expect.container_runtime.toolkit: expected true or false, got "
		  "'yes'" },
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: {runtimes: [docker]}}}]\n",
		  "p.yaml:2:50: classes[0].expect.container_runtime: unknown key 'runtimes' in "
		  "expect.container_runtime (expected one of: toolkit, mode, wired, default_runtime, "
		  "device_groups)" },
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: [docker]}}]\n",
		  "p.yaml:2:50: classes[0].expect.container_runtime: expected expect.container_runtime (a "
		  "mapping), "
		  "got a list" },
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: {device_groups: render}}}]\n",
		  "p.yaml:2:65: classes[0].expect.container_runtime.device_groups: expected a list of "
		  "strings, got "
		  "'render'" },
		{ "version: 1\nclasses: [{name: a, expect: {container_runtime: {mode: cdi, mode: csv}}}]\n",
		  "p.yaml:2:61: classes[0].expect.container_runtime: duplicate key 'mode' in "
		  "expect.container_runtime" },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = parse_err(t[i][0]);
		if (strncmp(got, t[i][1], strlen(t[i][1])) != 0) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, got, t[i][1]);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	char path[4096];
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	snprintf(path, sizeof(path), "%s/policies/container.yaml", fx);
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_policy_load(ctx, path, &p), 0);
	const struct ga_policy_class *c = ga_policy_find_class(p, "a10-k8s");
	assert_non_null(c);
	const struct ga_policy_ctr *x = &c->expect.container_runtime;
	assert_true(x->set);
	assert_true(x->toolkit.set && x->toolkit.v);
	assert_string_equal(x->mode, "auto");
	assert_int_equal(x->wired.n, 1);
	assert_string_equal(x->wired.v[0], "containerd");
	assert_string_equal(x->default_runtime, "nvidia");
	c = ga_policy_find_class(p, "mi250x-k8s");
	assert_non_null(c);
	assert_int_equal(c->expect.container_runtime.device_groups.n, 2);
	assert_null(c->expect.container_runtime.mode);
	assert_true(ga_policy_find_class(p, "a10-docker")->expect.container_runtime.toolkit.v);
	ga_policy_free(p);
	ga_ctx_free(ctx);
}

static void test_parse_fleet(void **state)
{
	(void)state;
	char path[4096];
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	snprintf(path, sizeof(path), "%s/policies/fleet.yaml", fx);
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_policy_load(ctx, path, &p), 0);
	assert_int_equal(p->version, 1);
	assert_true(p->n_classes >= 6);
	const struct ga_policy_class *c = ga_policy_find_class(p, "a100-train");
	assert_non_null(c);
	assert_string_equal(c->match.vendor, "nvidia");
	assert_int_equal(c->match.count.v, 8);
	assert_int_equal(c->driver.kind, GA_PIN_RANGE);
	assert_int_equal(c->driver.range.n_terms, 2);
	assert_int_equal(c->rocm.kind, GA_PIN_ABSENT);
	assert_int_equal(c->expect.mig, GA_MIG_DISABLED);
	assert_true(c->expect.mig_profiles_set);
	assert_int_equal(c->expect.mig_profiles.n, 0);
	assert_true(c->expect.ecc.set && c->expect.ecc.v);
	assert_int_equal(c->n_xid, 3);
	assert_null(ga_policy_find_class(p, "nope"));
	assert_false(c->expect.ib_ports.set);
	ga_policy_free(p);
	/* expect.ib_ports (tests/fixtures/policies/ib.yaml) */
	snprintf(path, sizeof(path), "%s/policies/ib.yaml", fx);
	assert_int_equal(ga_policy_load(ctx, path, &p), 0);
	c = ga_policy_find_class(p, "a100-ib");
	assert_non_null(c);
	assert_true(c->expect.ib_ports.set);
	assert_int_equal(c->expect.ib_ports.count.v, 8);
	assert_int_equal(c->expect.ib_ports.rate_gbps.v, 200);
	assert_string_equal(c->expect.ib_ports.state, "active");
	assert_string_equal(c->expect.ib_ports.link_layer, "infiniband");
	ga_policy_free(p);
	/* an unreadable file */
	assert_true(ga_policy_load(ctx, "/nonexistent/p.yaml", &p) < 0);
	ga_ctx_free(ctx);
}

/*
 * ga_policy_load reads the file through lib/core/file.c and hands the text to
 * ga_policy_parse (the analyzer opens no file): the messages name the file.
 */
static void test_load_errors(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_policy_load(ctx, "/nonexistent/p.yaml", &p), -ENOENT);
	assert_string_equal(ga_ctx_errmsg(ctx),
	                    "cannot read policy /nonexistent/p.yaml: No such file or directory");
	assert_int_equal(ga_policy_load(ctx, "/", &p), -EISDIR);
	assert_string_equal(ga_ctx_errmsg(ctx), "cannot read policy /: Is a directory");
	char path[] = "/tmp/test_policy.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static char big[GA_POLICY_MAX_FILE + 1];
	memset(big, '#', sizeof(big));
	assert_int_equal(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	close(fd);
	assert_int_equal(ga_policy_load(ctx, path, &p), -EINVAL);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), ": larger than 1048576 bytes"));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	const char *yaml = "version: 1\nclasses: []\n";
	assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	assert_int_equal(ga_policy_load(ctx, path, &p), 0);
	assert_string_equal(p->file, path);
	assert_int_equal(p->n_classes, 0);
	ga_policy_free(p);
	unlink(path);
	ga_ctx_free(ctx);
}

/* Every allocation failure is reported, never crashes or leaks (ASan checks the leaks). */
static void test_parse_oom(void **state)
{
	(void)state;
	const char *y = "version: 1\nclasses:\n  - name: a\n    match: {vendor: nvidia, model: \"*A100*\"}\n"
	                "    pin: {driver: \">=550, <560\", cuda: null}\n"
	                "    expect: {modules: [nvidia], device_nodes: [/dev/nvidiactl]}\n"
	                "    smoke: {x: 1}\n    xid: {79: critical}\n";
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	for (long n = 0; n < 200; n++) {
		struct ga_policy *p = NULL;
		ga_alloc_fail_after(n);
		int r = ga_policy_parse(ctx, "p.yaml", y, strlen(y), &p);
		ga_alloc_fail_after(-1);
		assert_true(r == 0 || r == -ENOMEM);
		ga_policy_free(p);
		if (r == 0)
			break;
	}
	ga_ctx_free(ctx);
}

static void test_parse_health(void **state)
{
	(void)state;
	static const char y[] = "version: 1\n"
	                        "classes: [{name: a}]\n"
	                        "health:\n"
	                        "  clear_after: 3\n"
	                        "  clear_for: 30m\n"
	                        "  thresholds:\n"
	                        "    - code: GA-XID-48\n"
	                        "      count: 1\n"
	                        "      window: 1h\n"
	                        "      action: replace\n"
	                        "    - {code: GA-XID-13, count: 5, window: 1h, action: investigate}\n"
	                        "    - {code: GA-KLOG-*}\n";
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_policy_parse(ctx, "p.yaml", y, strlen(y), &p), 0);
	const struct ga_health_policy *h = &p->health;
	assert_true(h->clear_after.set);
	assert_int_equal(h->clear_after.v, 3);
	assert_true(h->clear_for_s.set);
	assert_true(h->clear_for_s.v == 1800.0);
	assert_int_equal(h->n_thresholds, 3);
	assert_string_equal(h->thresholds[0].code, "GA-XID-48");
	assert_int_equal(h->thresholds[0].count, 1);
	assert_true(h->thresholds[0].window_s == 3600.0);
	assert_true(h->thresholds[0].action_set);
	assert_int_equal(h->thresholds[0].action, GA_ACT_REPLACE);
	assert_int_equal(h->thresholds[0].line, 7);
	assert_int_equal(h->thresholds[1].count, 5);
	assert_int_equal(h->thresholds[1].action, GA_ACT_INVESTIGATE);
	assert_int_equal(h->thresholds[2].count, 1); /* the default */
	assert_false(h->thresholds[2].action_set);
	assert_true(h->thresholds[2].window_s == 0);
	ga_policy_free(p);
	ga_ctx_free(ctx);
}

/* expect.cdi and expect.allocatable (docs/container.md): parsed strictly, errors at FILE:LINE:COL. */
static void test_parse_cdi(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	struct ga_policy *p = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	static const char ok[] = "version: 1\n"
	                         "classes:\n"
	                         "  - name: k8s\n"
	                         "    expect:\n"
	                         "      cdi: {present: true, current: true}\n"
	                         "      allocatable:\n"
	                         "        nvidia.com/gpu: 8\n"
	                         "        nvidia.com/mig-1g.10gb: 7\n";
	assert_int_equal(ga_policy_parse(ctx, "p.yaml", ok, strlen(ok), &p), 0);
	const struct ga_policy_class *c = &p->classes[0];
	assert_true(c->expect.cdi_present.set && c->expect.cdi_present.v);
	assert_true(c->expect.cdi_current.set && c->expect.cdi_current.v);
	assert_int_equal(c->expect.n_allocatable, 2);
	assert_string_equal(c->expect.allocatable[0].resource, "nvidia.com/gpu");
	assert_int_equal(c->expect.allocatable[0].count, 8);
	assert_string_equal(c->expect.allocatable[1].resource, "nvidia.com/mig-1g.10gb");
	assert_int_equal(c->expect.allocatable[1].count, 7);
	ga_policy_free(p);
	static const char *const bad[][2] = {
		{ "version: 1\nclasses: [{name: a, expect: {cdi: {present: yes}}}]\n",
		  "p.yaml:2:45: classes[0].expect.cdi.present: expected true or false, got 'yes'" },
		{ "version: 1\nclasses: [{name: a, expect: {cdi: {fresh: true}}}]\n",
		  "p.yaml:2:36: classes[0].expect.cdi: unknown key 'fresh' in cdi (expected one of: "
		  "present, current)" },
		{ "version: 1\nclasses: [{name: a, expect: {cdi: true}}]\n",
		  "p.yaml:2:35: classes[0].expect.cdi: expected cdi (a mapping), got 'true'" },
		{ "version: 1\nclasses: [{name: a, expect: {allocatable: {gpu: 8}}}]\n",
		  "p.yaml:2:44: classes[0].expect.allocatable: expected a resource name such as "
		  "nvidia.com/gpu (DOMAIN/NAME, at most 127 bytes)" },
		{ "version: 1\nclasses: [{name: a, expect: {allocatable: {nvidia.com/gpu: -1}}}]\n",
		  "p.yaml:2:60: classes[0].expect.allocatable.nvidia.com/gpu: expected an integer from 0 "
		  "to 65536, got '-1'" },
		{ "version: 1\nclasses: [{name: a, expect: {allocatable: {amd.com/gpu: 1, amd.com/gpu: "
		  "2}}}]\n",
		  "p.yaml:2:60: classes[0].expect.allocatable: duplicate key 'amd.com/gpu' in allocatable" },
		{ "version: 1\nclasses: [{name: a, expect: {allocatable: [nvidia.com/gpu]}}]\n",
		  "p.yaml:2:44: classes[0].expect.allocatable: expected a mapping of resource names to "
		  "device counts, got a list" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = NULL;
		assert_int_equal(ga_policy_parse(ctx, "p.yaml", bad[i][0], strlen(bad[i][0]), &p), -EINVAL);
		assert_null(p);
		if (strcmp(ga_ctx_errmsg(ctx), bad[i][1]) != 0)
			fail_msg("case %zu: got \"%s\"", i, ga_ctx_errmsg(ctx));
	}
	ga_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_cmp),     cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_parse_errors),    cmocka_unit_test(test_parse_fleet),
		cmocka_unit_test(test_parse_oom),       cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_parse_prescan),   cmocka_unit_test(test_parse_health),
		cmocka_unit_test(test_parse_container), cmocka_unit_test(test_parse_cdi),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
