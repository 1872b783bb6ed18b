/*
 * test_actions.c - the catalogue of codes (lib/core/codes.def, xid.def): one
 * row per enum ga_code, string <-> id both ways, families and their members,
 * every Xid and kernel event kind of the kernel-log catalogue has an exact
 * fact, unknown codes fall back to investigate, a finding read back from JSON
 * has the id of the one raised, the generated fleet regex, and the model
 * writes the same names as ga_action_name.
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
#include <jansson.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/schema.h"

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
	struct ga_finding *fd =
	        ga_findings_add_code(&f, "GA-XID-79", GA_SEV_CRITICAL, "0000:47:00.0", NULL, "x");
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
		struct ga_finding *fd = ga_findings_add_code(&f, "GA-X", GA_SEV_INFO, NULL, NULL, "x");
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
			fail_msg("%s (%s) has no row in lib/core/xid.def", code, info.name);
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
			fail_msg("%s has no row in lib/core/codes.def", code);
		assert_true(ga_code_in(ga_code_parse(code), GA_C_KLOG));
	}
}

/*
 * Every complete "GA-..." literal left in lib/ and src/ (the files
 * tools/codes-convert allow-lists; a prefix ends in '-') has a row: a typo
 * there would be a code no output knows. Returns the files read.
 */
static size_t scan_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = 1;
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
				fail_msg("%s: %s has no row in lib/core/codes.def", path, code);
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
	assert_true(n > 100); /* the scan read the code base */
}

/* One row per enum value, in order; string -> id -> string; every row says what it means. */
static void test_catalogue_rows(void **state)
{
	(void)state;
	size_t n;
	const struct ga_code_info *rows = ga_code_rows(&n);
	assert_int_equal(n, GA_C__COUNT - 1);
	assert_null(ga_code_info(GA_C_NONE));
	assert_null(ga_code_info(GA_C__COUNT));
	assert_string_equal(ga_code_str(GA_C_NONE), "");
	for (size_t i = 0; i < n; i++) {
		const struct ga_code_info *r = &rows[i];
		assert_int_equal(r->id, (int)i + 1);
		assert_ptr_equal(ga_code_info(r->id), r);
		assert_true(ga_code_wellformed(r->code));
		assert_true(r->rule && r->rule[0]);
		assert_true(r->severity >= GA_SEV_INFO && r->severity <= GA_SEV_CRITICAL);
		size_t l = strlen(r->code);
		assert_int_equal(r->len, l);
		/* a family is a prefix, a code is not */
		assert_int_equal(r->family, r->code[l - 1] == '-');
		if (!r->family) {
			assert_int_equal(ga_code_parse(r->code), r->id);
		} else {
			char member[96];
			snprintf(member, sizeof(member), "%sSOMETHING-NEW", r->code);
			assert_int_equal(ga_code_parse(member), r->id);
			assert_string_equal(ga_code_suffix(member, r->id), "SOMETHING-NEW");
			assert_int_equal(ga_code_parse(r->code), GA_C_NONE); /* the bare prefix is no code */
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(rows[k].code, r->code))
				fail_msg("%s has two rows", r->code);
	}
	assert_int_equal(ga_code_parse("GA-NOT-A-CODE"), GA_C_NONE);
	assert_int_equal(ga_code_parse(NULL), GA_C_NONE);
	assert_int_equal(ga_code_parse("GA-XID-79"), GA_C_XID);
	assert_int_equal(ga_code_parse("GA-XID-NO-SOURCE"), GA_C_XID_NO_SOURCE); /* a row beats a family */
	assert_int_equal(ga_code_parse("GA-KLOG-MCE"), GA_C_KLOG_MCE);
	assert_string_equal(ga_code_str(GA_C_LINK_DEGRADED), "GA-LINK-DEGRADED");
	assert_true(ga_code_in(GA_C_CDI_STALE, GA_C_CDI));
	assert_true(ga_code_in(GA_C_EXPECT_CTR_MODE, GA_C_EXPECT));
	assert_false(ga_code_in(GA_C_DP_NOT_REGISTERED, GA_C_CDI));
	assert_false(ga_code_in(GA_C_CDI_STALE, GA_C_CDI_INVALID)); /* not a family */
	assert_null(ga_code_suffix("GA-XID-", GA_C_XID));
	assert_false(ga_code_wellformed("GA-"));
	assert_false(ga_code_wellformed("XID-79"));
	/* the columns the other outputs read */
	assert_int_equal(ga_code_info(GA_C_CDI_PATH_MISSING)->nfd, GA_CODE_NFD_CDI_STALE);
	assert_int_equal(ga_code_info(GA_C_DP_GPU_UNREGISTERED)->nfd, GA_CODE_NFD_DP_PARTIAL);
	assert_int_equal(ga_code_info(GA_C_PIN_CUDA)->fleet, GA_CODE_FLEET_STACK);
	assert_int_equal(ga_code_info(GA_C_EXPECT_GPU_COUNT)->fleet, GA_CODE_FLEET_GPUS);
	assert_int_equal(ga_code_info(GA_C_IB_PORT_DISABLED)->severity, GA_SEV_INFO);
	assert_non_null(ga_code_info(GA_C_XID)->source);
	assert_string_equal(ga_code_rule("GA-DEPS-PTX-JIT"), ga_code_info(GA_C_DEPS_PTX_JIT)->rule);
	assert_string_equal(ga_code_rule("GA-NOT-A-CODE"), "GA-NOT-A-CODE");
}

/* The drift query of `fleet --prometheus` is generated from the fleet column. */
static void test_fleet_regex(void **state)
{
	(void)state;
	char buf[256];
	int n = ga_code_fleet_regex(buf, sizeof(buf));
	assert_true(n > 0);
	assert_string_equal(buf, "GA-LINK-DEGRADED|GA-PIN-.+|GA-EXPECT-.+|GA-CHECK-NO-CLASS");
	assert_int_equal((size_t)n, strlen(buf));
	assert_int_equal(ga_code_fleet_regex(buf, 10), -ENOSPC);
}

/* Raising by id and by family member, and reading back: the same code string and id. */
static void test_raise_and_read_back(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_finding *fd =
	        ga_findings_add(&f, GA_C_LINK_DEGRADED, GA_SEV_WARNING, "0000:01:00.0", NULL, "x");
	assert_non_null(fd);
	assert_string_equal(fd->code, "GA-LINK-DEGRADED");
	assert_int_equal(fd->id, GA_C_LINK_DEGRADED);
	assert_int_equal(fd->action, GA_ACT_DRAIN);
	fd = ga_findings_add_member(&f, GA_C_KLOG, "MCE", GA_SEV_ERROR, NULL, NULL, "mce");
	assert_non_null(fd);
	assert_string_equal(fd->code, "GA-KLOG-MCE");
	assert_int_equal(fd->id, GA_C_KLOG_MCE);
	assert_int_equal(fd->action, GA_ACT_DRAIN);
	fd = ga_findings_add_member(&f, GA_C_XID, "64", GA_SEV_CRITICAL, NULL, NULL, "xid");
	assert_non_null(fd);
	assert_string_equal(fd->code, "GA-XID-64");
	assert_int_equal(fd->id, GA_C_XID);
	assert_int_equal(fd->action,
	                 GA_ACT_RESET_GPU); /* xid.def's fact (NVIDIA: RESET_GPU), not the family's */
	fd = ga_findings_add_member(&f, GA_C_KLOG, "NEW-KIND", GA_SEV_WARNING, NULL, NULL, "new");
	assert_non_null(fd);
	assert_int_equal(fd->id, GA_C_KLOG);
	fd = ga_findings_add_code(&f, "GA-FROM-ELSEWHERE", GA_SEV_INFO, NULL, NULL, "other");
	assert_non_null(fd);
	assert_int_equal(fd->id, GA_C_NONE);
	assert_int_equal(fd->action, GA_ACT_INVESTIGATE);
	struct ga_findings c;
	ga_findings_init(&c);
	for (size_t i = 0; i < f.n; i++)
		assert_non_null(ga_findings_copy(&c, &f.v[i]));
	for (size_t i = 0; i < f.n; i++)
		assert_int_equal(c.v[i].id, f.v[i].id);
	ga_findings_release(&c);

	/* a finding read back from JSON (--from, fleet) maps its string to the id, both readers */
	for (size_t i = 0; i < f.n; i++) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		struct ga_json w;
		ga_json_init(&w, &b, false);
		ga_schema_write(&w, &ga_finding_schema, &f.v[i]);
		assert_int_equal(ga_json_finish(&w), 0);
		struct ga_finding back, fast;
		memset(&back, 0, sizeof(back));
		memset(&fast, 0, sizeof(fast));
		json_error_t err;
		json_t *j = json_loadb(b.data, b.len, 0, &err);
		assert_non_null(j);
		assert_int_equal(ga_schema_read(NULL, &ga_finding_schema, j, &back), 0);
		json_decref(j);
		/* the fast reader hands a finding (enum fields) to the slow one: 1, obj left zeroed */
		int rf = ga_schema_read_fast(&ga_finding_schema, b.data, b.len, &fast);
		assert_true(rf == 0 || rf == 1);
		assert_string_equal(back.code, f.v[i].code);
		assert_int_equal(back.id, f.v[i].id);
		if (rf == 0)
			assert_int_equal(fast.id, f.v[i].id);
		ga_schema_release(&ga_finding_schema, &back);
		ga_schema_release(&ga_finding_schema, &fast);
		ga_buf_release(&b);
	}
	ga_findings_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback_and_prefix), cmocka_unit_test(test_names),
		cmocka_unit_test(test_catalogue_covered),   cmocka_unit_test(test_every_emitted_code),
		cmocka_unit_test(test_catalogue_rows),      cmocka_unit_test(test_fleet_regex),
		cmocka_unit_test(test_raise_and_read_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
