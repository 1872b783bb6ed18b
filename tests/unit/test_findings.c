/* test_findings.c - the findings list: add, evidence, sort, max severity, JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/node-action.h"

static void test_add_and_evidence(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_findings_max_severity(&f), -1);
	struct ga_finding *fd =
	        ga_findings_add_code(&f, "GA-X", GA_SEV_WARNING, NULL, NULL, "n=%d s=%s", 3, "a");
	assert_non_null(fd);
	assert_string_equal(fd->code, "GA-X");
	assert_string_equal(fd->subject, "node"); /* NULL subject is the node */
	assert_null(fd->decision);
	assert_string_equal(fd->message, "n=3 s=a");
	assert_int_equal(ga_finding_evidence(fd, "k1", "%u", 7u), 0);
	assert_int_equal(ga_finding_evidence(fd, "k2", "%s", ""), 0);
	assert_int_equal(fd->n_evidence, 2);
	assert_string_equal(fd->evidence[0].key, "k1");
	assert_string_equal(fd->evidence[0].value, "7");
	assert_string_equal(fd->evidence[1].value, "");
	assert_int_equal(ga_finding_evidence(NULL, "k", "x"), -EINVAL);
	assert_int_equal(ga_findings_max_severity(&f), GA_SEV_WARNING);
	ga_findings_add_code(&f, "GA-Y", GA_SEV_CRITICAL, "s", "d", "m");
	assert_int_equal(ga_findings_max_severity(&f), GA_SEV_CRITICAL);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.err, 0);
	ga_findings_release(&f);
	assert_int_equal(f.n, 0);
	assert_null(f.v);
}

/* The node's action: the most urgent action among error-level findings (the first of equals), and their count. */
static void test_node_action(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_node_action na;
	ga_node_action_of(&f, &na);
	assert_null(na.finding);
	assert_int_equal(na.errors, 0);
	static const struct {
		const char *code;
		enum ga_severity sev;
		enum ga_action act;
	} rows[] = {
		{ "GA-A", GA_SEV_WARNING, GA_ACT_REPLACE }, /* below error: never the node's */
		{ "GA-B", GA_SEV_ERROR, GA_ACT_FIX_CONFIG },
		{ "GA-C", GA_SEV_CRITICAL, GA_ACT_DRAIN },
		{ "GA-D", GA_SEV_ERROR, GA_ACT_DRAIN }, /* as urgent as GA-C, later */
		{ "GA-E", GA_SEV_ERROR, GA_ACT_RESTART_WORKLOAD },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ga_finding *fd = ga_findings_add_code(&f, rows[i].code, rows[i].sev, NULL, NULL, "m");
		assert_non_null(fd);
		fd->action = rows[i].act;
	}
	ga_node_action_of(&f, &na);
	assert_ptr_equal(na.finding, &f.v[2]);
	assert_string_equal(na.finding->code, "GA-C");
	assert_int_equal(na.errors, 4);
	/* only warnings: no action, no error */
	f.v[1].severity = f.v[2].severity = f.v[3].severity = f.v[4].severity = GA_SEV_WARNING;
	ga_node_action_of(&f, &na);
	assert_null(na.finding);
	assert_int_equal(na.errors, 0);
	ga_findings_release(&f);
}

static void test_severity_names(void **state)
{
	(void)state;
	assert_string_equal(ga_severity_name(GA_SEV_INFO), "info");
	assert_string_equal(ga_severity_name(GA_SEV_WARNING), "warning");
	assert_string_equal(ga_severity_name(GA_SEV_ERROR), "error");
	assert_string_equal(ga_severity_name(GA_SEV_CRITICAL), "critical");
	assert_string_equal(ga_severity_name((enum ga_severity)7), "unknown");
}

static void test_sort(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	ga_findings_add_code(&f, "GA-B", GA_SEV_INFO, "z", NULL, "1");
	ga_findings_add_code(&f, "GA-B", GA_SEV_ERROR, "b", NULL, "2");
	ga_findings_add_code(&f, "GA-A", GA_SEV_WARNING, "a", NULL, "3");
	ga_findings_add_code(&f, "GA-A", GA_SEV_ERROR, "c", NULL, "4");
	ga_findings_add_code(&f, "GA-B", GA_SEV_ERROR, "a", NULL, "5");
	ga_findings_add_code(&f, "GA-C", GA_SEV_CRITICAL, "x", NULL, "6");
	ga_findings_sort(&f);
	const char *order = "645231";
	/* the count first: a sort that lost or duplicated findings must not pass */
	assert_int_equal(f.n, strlen(order));
	for (size_t i = 0; i < f.n; i++)
		assert_int_equal(f.v[i].message[0], order[i]);
	ga_findings_release(&f);
	ga_findings_sort(&f); /* empty: no-op */
	assert_int_equal(f.n, 0);
}

static char *to_json(const struct ga_findings *f, bool pretty)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct ga_json w;
	ga_json_init(&w, &b, pretty);
	ga_findings_write_json(f, &w);
	assert_int_equal(ga_json_finish(&w), 0);
	json_t *j = json_loadb(b.data, b.len, 0, NULL);
	assert_non_null(j);
	json_decref(j);
	return ga_buf_detach(&b, NULL);
}

static void test_json(void **state)
{
	(void)state;
	struct ga_findings f;
	ga_findings_init(&f);
	char *s = to_json(&f, false);
	assert_string_equal(s, "[]");
	ga_free(s);
	struct ga_finding *fd = ga_findings_add(&f, GA_C_LINK_DEGRADED, GA_SEV_WARNING, "0000:01:00.0",
	                                        "reseat \"it\"", "x%d of x%d", 8, 16);
	ga_finding_evidence(fd, "current_width", "%d", 8);
	ga_finding_evidence(fd, "devices", "%s", "a\tb");
	ga_findings_add(&f, GA_C_NO_ACCELERATOR, GA_SEV_INFO, NULL, NULL, "none");
	s = to_json(&f, false);
	assert_string_equal(s, "[{\"code\":\"GA-LINK-DEGRADED\",\"severity\":\"warning\","
	                       "\"subject\":\"0000:01:00.0\",\"message\":\"x8 of x16\","
	                       "\"evidence\":{\"current_width\":\"8\",\"devices\":\"a\\tb\"},"
	                       "\"decision\":\"reseat \\\"it\\\"\",\"action\":\"drain\","
	                       "\"cause\":\"node_hardware\",\"gpu_uuid\":null,\"pci_address\":null},"
	                       "{\"code\":\"GA-NO-ACCELERATOR\",\"severity\":\"info\",\"subject\":\"node\","
	                       "\"message\":\"none\",\"evidence\":{},\"decision\":null,\"action\":\"none\","
	                       "\"cause\":\"configuration\",\"gpu_uuid\":null,\"pci_address\":null}]");
	ga_free(s);
	s = to_json(&f, true);
	assert_string_equal(s, "[\n"
	                       "  {\n"
	                       "    \"code\": \"GA-LINK-DEGRADED\",\n"
	                       "    \"severity\": \"warning\",\n"
	                       "    \"subject\": \"0000:01:00.0\",\n"
	                       "    \"message\": \"x8 of x16\",\n"
	                       "    \"evidence\": {\n"
	                       "      \"current_width\": \"8\",\n"
	                       "      \"devices\": \"a\\tb\"\n"
	                       "    },\n"
	                       "    \"decision\": \"reseat \\\"it\\\"\",\n"
	                       "    \"action\": \"drain\",\n"
	                       "    \"cause\": \"node_hardware\",\n"
	                       "    \"gpu_uuid\": null,\n"
	                       "    \"pci_address\": null\n"
	                       "  },\n"
	                       "  {\n"
	                       "    \"code\": \"GA-NO-ACCELERATOR\",\n"
	                       "    \"severity\": \"info\",\n"
	                       "    \"subject\": \"node\",\n"
	                       "    \"message\": \"none\",\n"
	                       "    \"evidence\": {},\n"
	                       "    \"decision\": null,\n"
	                       "    \"action\": \"none\",\n"
	                       "    \"cause\": \"configuration\",\n"
	                       "    \"gpu_uuid\": null,\n"
	                       "    \"pci_address\": null\n"
	                       "  }\n"
	                       "]\n");
	ga_free(s);
	ga_findings_release(&f);
}

/* Out of memory at every allocation of add + evidence + sort: sticky err, no crash, no leak. */
static void test_enomem(void **state)
{
	(void)state;
	for (long n = 0;; n++) {
		struct ga_findings f;
		ga_findings_init(&f);
		ga_alloc_fail_after(n);
		ga_findings_add_code(&f, "GA-B", GA_SEV_WARNING, "s1", "d", "m %d", 1);
		struct ga_finding *fd = ga_findings_add_code(&f, "GA-A", GA_SEV_WARNING, "s2", "d", "m");
		int er = ga_finding_evidence(fd, "k", "v");
		ga_findings_add_code(&f, "GA-C", GA_SEV_ERROR, NULL, NULL, "m");
		ga_alloc_fail_after(-1);
		ga_findings_sort(&f);
		char *s = to_json(&f, false);
		ga_free(s);
		bool ok = f.err == 0 && er == 0;
		if (!ok)
			assert_int_equal(f.err ? f.err : er, -ENOMEM);
		ga_findings_release(&f);
		if (ok)
			break;
		assert_true(n < 1000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_evidence),
		cmocka_unit_test(test_severity_names),
		cmocka_unit_test(test_node_action),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_enomem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
