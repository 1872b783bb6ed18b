/*
 * test_actions.c - the action table (lib/core/actions.def): every finding
 * code any part of the code base can emit has a line, every Xid and kernel
 * event kind of the catalogue has an exact one, unknown codes fall back to
 * investigate, and the model writes the same names as ga_action_name.
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

#include <cmocka.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"

static void test_fallback_and_prefix(void **state)
{
	(void)state;
	enum ga_action a;
	enum ga_cause c;
	assert_int_equal(ga_action_default("GA-NOT-A-CODE", &a, &c), 0);
	assert_int_equal(a, GA_ACT_INVESTIGATE);
	assert_int_equal(c, GA_CAUSE_UNKNOWN);
	assert_int_equal(ga_action_default(NULL, &a, &c), 0);
	assert_int_equal(a, GA_ACT_INVESTIGATE);
	/* generated codes take their family's prefix line */
	assert_int_equal(ga_action_default("GA-EXPECT-SOMETHING-NEW", &a, &c), 1);
	assert_int_equal(a, GA_ACT_FIX_CONFIG);
	assert_int_equal(ga_action_default("GA-XID-999", &a, &c), 1);
	assert_int_equal(a, GA_ACT_INVESTIGATE);
	/* exact lines win over the prefix */
	assert_int_equal(ga_action_default("GA-EXPECT-GPU-COUNT", &a, &c), 2);
	assert_int_equal(a, GA_ACT_DRAIN);
	assert_int_equal(c, GA_CAUSE_NODE_HARDWARE);
	/* NVIDIA's catalogue: application Xids restart the job, 79 reboots, 64 is an RMA */
	static const struct {
		const char *code;
		enum ga_action a;
		enum ga_cause c;
	} want[] = {
		{ "GA-XID-13", GA_ACT_RESTART_WORKLOAD, GA_CAUSE_APPLICATION },
		{ "GA-XID-31", GA_ACT_RESTART_WORKLOAD, GA_CAUSE_APPLICATION },
		{ "GA-XID-43", GA_ACT_NONE, GA_CAUSE_APPLICATION }, /* NVIDIA: IGNORE */
		{ "GA-XID-48", GA_ACT_RESET_GPU, GA_CAUSE_NODE_HARDWARE },
		{ "GA-XID-64", GA_ACT_RESET_GPU, GA_CAUSE_NODE_HARDWARE }, /* NVIDIA: RESET_GPU */
		{ "GA-XID-79", GA_ACT_REBOOT, GA_CAUSE_NODE_HARDWARE },
		{ "GA-XID-94", GA_ACT_RESTART_WORKLOAD, GA_CAUSE_NODE_HARDWARE },
		{ "GA-ROW-REMAP-FAILED", GA_ACT_REPLACE, GA_CAUSE_NODE_HARDWARE },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(ga_action_default(want[i].code, &a, &c), 2);
		assert_int_equal(a, want[i].a);
		assert_int_equal(c, want[i].c);
	}
	/* ga_findings_add applies the table */
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_finding *fd = ga_findings_add(&f, "GA-XID-79", GA_SEV_CRITICAL, "0000:47:00.0", NULL, "x");
	assert_non_null(fd);
	assert_int_equal(fd->action, GA_ACT_REBOOT);
	ga_findings_release(&f);
}

static void test_names(void **state)
{
	(void)state;
	enum ga_action a;
	for (int i = 0; i < GA_ACT__COUNT; i++) {
		assert_int_equal(ga_action_parse(ga_action_name((enum ga_action)i), &a), 0);
		assert_int_equal((int)a, i);
	}
	assert_int_equal(ga_action_parse("reset", &a), -EINVAL);
	assert_string_equal(ga_action_name(GA_ACT__COUNT), "investigate");
	assert_string_equal(ga_cause_name(GA_CAUSE_CONTAINER_RUNTIME), "container_runtime");
	assert_true(ga_action_rank(GA_ACT_REPLACE) > ga_action_rank(GA_ACT_DRAIN));
	assert_true(ga_action_rank(GA_ACT_DRAIN) > ga_action_rank(GA_ACT_REBOOT));
	assert_true(ga_action_rank(GA_ACT_NONE) < ga_action_rank(GA_ACT_RESTART_WORKLOAD));
	/* the model's names are the same (findings JSON) */
	struct ga_findings f;
	ga_findings_init(&f);
	for (int i = 0; i < GA_ACT__COUNT; i++) {
		struct ga_finding *fd = ga_findings_add(&f, "GA-X", GA_SEV_INFO, NULL, NULL, "x");
		assert_non_null(fd);
		fd->action = (enum ga_action)i;
		fd->cause = (enum ga_cause)(i % GA_CAUSE__COUNT);
	}
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct ga_json w;
	ga_json_init(&w, &b, false);
	ga_findings_write_json(&f, &w);
	assert_int_equal(ga_json_finish(&w), 0);
	for (int i = 0; i < GA_ACT__COUNT; i++) {
		char want[64];
		snprintf(want, sizeof(want), "\"action\":\"%s\",\"cause\":\"%s\"",
		         ga_action_name((enum ga_action)i),
		         ga_cause_name((enum ga_cause)(i % GA_CAUSE__COUNT)));
		assert_non_null(strstr(b.data, want));
	}
	ga_buf_release(&b);
	ga_findings_release(&f);
}

/* Every Xid the catalogue knows and every event kind has an exact line. */
static void test_catalogue_covered(void **state)
{
	(void)state;
	enum ga_action a;
	enum ga_cause c;
	for (uint64_t x = 0; x < 1024; x++) {
		struct ga_xid_info info;
		if (!ga_xid_lookup(x, &info))
			continue;
		char code[32];
		snprintf(code, sizeof(code), "GA-XID-%llu", (unsigned long long)x);
		if (ga_action_default(code, &a, &c) != 2)
			fail_msg("%s (%s) has no line in lib/core/actions.def", code, info.name);
		if (!info.unused) /* an Xid NVIDIA lists as unused has no known cause */
			assert_int_not_equal(c, GA_CAUSE_UNKNOWN);
	}
	for (int k = 0; k < GA_KEV__COUNT; k++) {
		if (k == GA_KEV_XID)
			continue;
		char code[64] = "GA-KLOG-";
		size_t at = strlen(code);
		for (const char *p = ga_kev_kind_name((enum ga_kev_kind)k); *p && at + 1 < sizeof(code); p++)
			code[at++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
		code[at] = '\0';
		if (ga_action_default(code, &a, &c) != 2)
			fail_msg("%s has no line in lib/core/actions.def", code);
	}
}

/* Every complete "GA-..." literal in lib/ and src/ (a prefix ends in '-') has a line. */
static size_t scan_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = 0;
	char line[8192];
	while (fgets(line, sizeof(line), f)) {
		for (char *p = line; (p = strstr(p, "\"GA-")); p++) {
			char *q = p + 1;
			while ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '-')
				q++;
			if (*q != '"' || q[-1] == '-')
				continue;
			char code[128];
			size_t len = (size_t)(q - p - 1);
			if (len >= sizeof(code))
				continue;
			memcpy(code, p + 1, len);
			code[len] = '\0';
			enum ga_action a;
			enum ga_cause c;
			if (ga_action_default(code, &a, &c) != 2)
				fail_msg("%s: %s has no exact line in lib/core/actions.def", path, code);
			n++;
		}
	}
	fclose(f);
	return n;
}

static size_t scan_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 3)
		return d ? (closedir(d), 0) : 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t l = strlen(e->d_name);
		if (l > 2 && !strcmp(e->d_name + l - 2, ".c"))
			n += scan_file(path);
		else if (!strchr(e->d_name, '.'))
			n += scan_dir(path, depth + 1);
	}
	closedir(d);
	return n;
}

static void test_every_emitted_code(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/../../lib", fx);
	size_t n = scan_dir(dir, 0);
	snprintf(dir, sizeof(dir), "%s/../../src", fx);
	n += scan_dir(dir, 0);
	assert_true(n > 50); /* the scan found the code base */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback_and_prefix),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_catalogue_covered),
		cmocka_unit_test(test_every_emitted_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
