/*
 * test_toml.c - the strict TOML reader (lib/core/toml.c): the forms the
 * container runtimes' configuration files use (containerd v2/v3, CRI-O, the
 * NVIDIA toolkit), TOML 1.0's value kinds as JSON, and every refusal with
 * its FILE:LINE:COL message (redefinition, bad escapes, control characters,
 * dates, nesting).
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
#include <jansson.h>

#include "gpuaudit/toml.h"

/* text -> compact sorted JSON, or "ERR <message>" */
static char *conv(const char *text)
{
	json_t *j = NULL;
	char err[512] = "";
	int r = ga_toml_parse(NULL, "t.toml", text, strlen(text), &j, err, sizeof(err));
	if (r < 0) {
		size_t n = strlen(err) + 5;
		char *s = malloc(n);
		snprintf(s, n, "ERR %s", err);
		return s;
	}
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(j);
	return s;
}

#define EXPECT(text, want)                       \
	do {                                     \
		char *got_ = conv(text);         \
		assert_string_equal(got_, want); \
		free(got_);                      \
	} while (0)

static void test_containerd(void **state)
{
	(void)state;
	EXPECT("version = 2\n"
	       "imports = [\"/etc/containerd/conf.d/*.toml\"]\n"
	       "[plugins]\n"
	       "  [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
	       "    default_runtime_name = \"nvidia\" # set by nvidia-ctk\n"
	       "    [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
	       "      runtime_type = 'io.containerd.runc.v2'\n"
	       "      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
	       "        BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"
	       "        SystemdCgroup = true\r\n",
	       "{\"imports\":[\"/etc/containerd/conf.d/*.toml\"],\"plugins\":{\"io.containerd.grpc.v1.cri\":"
	       "{\"containerd\":{\"default_runtime_name\":\"nvidia\",\"runtimes\":{\"nvidia\":{\"options\":"
	       "{\"BinaryName\":\"/usr/bin/nvidia-container-runtime\",\"SystemdCgroup\":true},"
	       "\"runtime_type\":\"io.containerd.runc.v2\"}}}}},\"version\":2}");
	/* CRI-O: dotted table names, a multi-line array with comments and a trailing comma */
	EXPECT("[crio.runtime]\ndefault_runtime = \"crun\"\ndefault_capabilities = [\n  \"CHOWN\", # c\n"
	       "  \"KILL\",\n]\n[crio.runtime.runtimes.nvidia]\nruntime_path = "
	       "\"/usr/bin/nvidia-container-runtime\"\n",
	       "{\"crio\":{\"runtime\":{\"default_capabilities\":[\"CHOWN\",\"KILL\"],\"default_runtime\":"
	       "\"crun\","
	       "\"runtimes\":{\"nvidia\":{\"runtime_path\":\"/usr/bin/nvidia-container-runtime\"}}}}}");
}

static void test_values(void **state)
{
	(void)state;
	EXPECT("a = 0x_1\n", "ERR t.toml:1:7: an underscore in a number must sit between two digits");
	EXPECT("a = 1_000\nb = -17\nc = +3\nd = 0xdead_beef\ne = 0o755\nf = 0b101\ng = 9223372036854775807\n",
	       "{\"a\":1000,\"b\":-17,\"c\":3,\"d\":3735928559,\"e\":493,\"f\":5,\"g\":9223372036854775807}");
	EXPECT("a = 1.5\nb = -2e3\nc = 6.25E-1\nd = true\ne = false\n",
	       "{\"a\":1.5,\"b\":-2000.0,\"c\":0.625,\"d\":true,\"e\":false}");
	EXPECT("a = \"tab\\there \\\"q\\\" \\u00e9 \\U0001F600\"\nb = 'C:\\path'\n",
	       "{\"a\":\"tab\\there \\\"q\\\" \\u00E9 \\uD83D\\uDE00\",\"b\":\"C:\\\\path\"}");
	EXPECT("a = \"\"\"\nline1\nline2 \\\n   joined\"\"\"\nb = '''\nraw \\n '' ok'''\nc = "
	       "\"\"\"x\"\"\"\"\"\n",
	       "{\"a\":\"line1\\nline2 joined\",\"b\":\"raw \\\\n '' ok\",\"c\":\"x\\\"\\\"\"}");
	EXPECT("p = { x = 1, y.z = \"s\" }\nq = [ [1, 2], {k = []}, \"mixed\" ]\nr = {}\n",
	       "{\"p\":{\"x\":1,\"y\":{\"z\":\"s\"}},\"q\":[[1,2],{\"k\":[]},\"mixed\"],\"r\":{}}");
	EXPECT("\"quoted key\" = 1\n'lit.key' = 2\na . b . c = 3\n\"\" = 4\n",
	       "{\"\":4,\"a\":{\"b\":{\"c\":3}},\"lit.key\":2,\"quoted key\":1}");
	EXPECT("[[p]]\nn = 1\n[p.sub]\nx = 1\n[[p]]\nn = 2\n",
	       "{\"p\":[{\"n\":1,\"sub\":{\"x\":1}},{\"n\":2}]}");
	EXPECT("[a.b.c]\nx = 1\n[a]\ny = 2\n", "{\"a\":{\"b\":{\"c\":{\"x\":1}},\"y\":2}}");
	EXPECT("[fruit]\napple.color = 'red'\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = "
	       "true\n",
	       "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true},\"texture\":{\"smooth\":"
	       "true}}}}");
	EXPECT("\xef\xbb\xbf# comment only\n\n", "{}");
	EXPECT("", "{}");
}

static void test_errors(void **state)
{
	(void)state;
	EXPECT("a = 1\na = 2\n", "ERR t.toml:2:1: key \"a\" defined twice");
	EXPECT("[t]\n[t]\n", "ERR t.toml:2:1: table \"t\" defined twice");
	EXPECT("[t]\nx.y = 1\n[t.x]\n", "ERR t.toml:3:1: table \"x\" defined twice");
	EXPECT("p = {x = 1}\n[p]\n", "ERR t.toml:2:1: table \"p\" defined twice");
	EXPECT("p = {x = 1}\np.y = 2\n",
	       "ERR t.toml:2:1: key \"p\" is already defined: a dotted key cannot extend it");
	EXPECT("p = {x = 1}\n[p.q]\n",
	       "ERR t.toml:2:2: \"p\" is already a value, not a table that a header can extend");
	EXPECT("a = []\n[[a]]\n", "ERR t.toml:2:1: \"a\" is already defined and is not an array of tables");
	EXPECT("[a.b]\n[a]\nb.c = 1\n",
	       "ERR t.toml:3:1: key \"b\" is already defined: a dotted key cannot extend it");
	EXPECT("a = \"x\\q\"\n", "ERR t.toml:1:7: invalid escape sequence \\q");
	EXPECT("a = \"\\uD800\"\n", "ERR t.toml:1:6: \\uD800 is not a Unicode scalar value");
	EXPECT("a = \"open\nb = 1\n",
	       "ERR t.toml:1:5: unterminated string (newline before the closing quote)");
	EXPECT("a = \"ctl\x01\"\n", "ERR t.toml:1:9: control character 0x01 in a string");
	EXPECT("# c\x7f\n", "ERR t.toml:1:4: control character 0x7f in a comment");
	EXPECT("a = \"\xc3\x28\"\n", "ERR t.toml:1:6: invalid UTF-8");
	EXPECT("d = 1979-05-27\n", "ERR t.toml:1:5: dates and times are not supported (no JSON form)");
	EXPECT("t = 07:32:00\n", "ERR t.toml:1:5: dates and times are not supported (no JSON form)");
	EXPECT("f = -inf\n", "ERR t.toml:1:5: inf and nan are not supported (no JSON form)");
	EXPECT("n = 012\n", "ERR t.toml:1:5: leading zeros are not allowed in a decimal number");
	EXPECT("n = 1__0\n", "ERR t.toml:1:6: an underscore in a number must sit between two digits");
	EXPECT("n = 99999999999999999999\n", "ERR t.toml:1:5: integer out of range (64-bit signed)");
	EXPECT("n = 1.\n", "ERR t.toml:1:7: expected digits in the fraction");
	EXPECT("n = 12abc\n", "ERR t.toml:1:5: invalid number");
	EXPECT("a = 1 b = 2\n", "ERR t.toml:1:7: expected the end of the line, found 'b'");
	EXPECT("a =\n", "ERR t.toml:1:4: expected a value after '='");
	EXPECT("a = [1, 2\n", "ERR t.toml:1:5: unterminated array");
	EXPECT("a = [1 2]\n", "ERR t.toml:1:8: expected ',' or ']' in an array");
	EXPECT("a = {x = 1,}\n", "ERR t.toml:1:12: trailing comma in an inline table");
	EXPECT("a = {x = 1\n}\n", "ERR t.toml:1:11: an inline table must end on its own line with '}'");
	EXPECT("[a\n", "ERR t.toml:1:3: expected ']' to close the table header");
	EXPECT("[[a]\n", "ERR t.toml:1:4: expected ']]' to close the array-of-tables header");
	EXPECT("= 1\n", "ERR t.toml:1:1: expected a key, found '='");
	EXPECT("a\n", "ERR t.toml:1:2: expected '=' after the key");
	EXPECT("a = 1\r\r\n", "ERR t.toml:1:6: expected the end of the line, found byte 0x0d");
	EXPECT("a = 'x\"\"\"", "ERR t.toml:1:5: unterminated string");
	/* a quoted key may hold NUL (TOML 1.0; toml-test's valid/key/quoted-unicode): it is its own key */
	EXPECT("\"k\\u0000\" = 1\nk = 2\n", "{\"k\":2,\"k\\u0000\":1}");
	EXPECT("\"\\u0000\" = 1\n", "{\"\\u0000\":1}");
	EXPECT("[\"a\\u0000b\"]\nc = 1\n[a]\n", "{\"a\":{},\"a\\u0000b\":{\"c\":1}}");
	EXPECT("x.\"a\\u0000\".y = 1\n", "{\"x\":{\"a\\u0000\":{\"y\":1}}}");
	EXPECT("\"k\\u0000\" = 1\n\"k\\u0000\" = 2\n", "ERR t.toml:2:1: key \"k\\u0000\" defined twice");
	EXPECT("[\"t\\u0000\"]\n[\"t\\u0000\"]\n", "ERR t.toml:2:1: table \"t\\u0000\" defined twice");
}

static void test_limits(void **state)
{
	(void)state;
	char deep[512];
	size_t n = 0;
	n += (size_t)snprintf(deep + n, sizeof(deep) - n, "a = ");
	for (int i = 0; i < GA_TOML_MAX_DEPTH + 1; i++)
		deep[n++] = '[';
	deep[n] = '\0';
	char *got = conv(deep);
	assert_non_null(strstr(got, "nesting deeper than 64"));
	free(got);
	/* exactly GA_TOML_MAX_DEPTH - 1 nested arrays below the key's value are fine */
	n = (size_t)snprintf(deep, sizeof(deep), "a = ");
	for (int i = 0; i < GA_TOML_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < GA_TOML_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n++] = '\n';
	deep[n] = '\0';
	got = conv(deep);
	assert_int_equal(strncmp(got, "{\"a\":", 5), 0);
	assert_int_equal(strspn(got + 5, "["), GA_TOML_MAX_DEPTH);
	free(got);
	/* GA_TOML_MAX_KEYS members fit, one more does not */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	for (int i = 0; i < GA_TOML_MAX_KEYS; i++)
		assert_int_equal(ga_buf_addf(&b, "k%d = %d\n", i, i), 0);
	json_t *j = NULL;
	char err[128];
	assert_int_equal(ga_toml_parse(NULL, "many", b.data, b.len, &j, err, sizeof(err)), 0);
	assert_int_equal(json_object_size(j), GA_TOML_MAX_KEYS);
	json_decref(j);
	j = NULL;
	assert_int_equal(ga_buf_adds(&b, "[one.more]\n"), 0);
	assert_int_equal(ga_toml_parse(NULL, "many", b.data, b.len, &j, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "many:16385:2: more than 16384 keys and tables");
	ga_buf_reset(&b);
	assert_int_equal(ga_buf_adds(&b, "a = ["), 0);
	for (int i = 0; i < GA_TOML_MAX_VALUES; i++)
		assert_int_equal(ga_buf_adds(&b, "1,"), 0);
	assert_int_equal(ga_buf_adds(&b, "2]\n"), 0);
	assert_int_equal(ga_toml_parse(NULL, "arr", b.data, b.len, &j, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "arr:1:131078: more than 65536 array elements");
	ga_buf_release(&b);
	assert_int_equal(ga_toml_parse(NULL, "big", "", (size_t)GA_TOML_MAX_BYTES + 1, &j, err, sizeof(err)),
	                 -EFBIG);
	assert_string_equal(err, "big: larger than 4194304 bytes");
	assert_null(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_containerd),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
