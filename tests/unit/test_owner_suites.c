/*
 * test_owner_suites.c - the format owners' own test suites, run through
 * gpuaudit's readers when a copy of them is at hand: nothing of them is in
 * this repository and CI has no network, so without GA_OWNER_SUITES (a
 * directory holding toml-test/ and exporter-toolkit/ checkouts) each test says
 * so and is skipped. Our own cases for every rule are in test_toml.c,
 * test_webconfig.c and test_container.c; this is the cross-check against the
 * owners' files.
 *
 *   toml-test (github.com/toml-lang/toml-test): every file that
 *   tests/files-toml-1.0.0 lists; an invalid document must be refused; a valid
 *   one must parse to the values its .json file gives, except documents with
 *   dates, times, inf or nan, which gpuaudit refuses by design
 *   (docs/dependencies.md) and which must then be refused.
 *
 *   exporter-toolkit (github.com/prometheus/exporter-toolkit): web/testdata;
 *   what each file must give is in the table below (the toolkit's own verdict,
 *   or the departure docs/serve.md lists, with its reason).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gpuaudit/core.h"
#include "gpuaudit/toml.h"
#include "gpuaudit/webconfig.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = NULL;
	long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)len + 1)) &&
	    fread(b, 1, (size_t)len, f) == (size_t)len) {
		b[len] = '\0';
		*n = (size_t)len;
	} else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* The suites' directory, or NULL (and the test is skipped with why). */
static const char *suite_dir(const char *sub, char *buf, size_t n)
{
	const char *root = getenv("GA_OWNER_SUITES");
	if (!root || !*root) {
		print_message("GA_OWNER_SUITES is not set: the owners' suites are not run (skipped)\n");
		return NULL;
	}
	snprintf(buf, n, "%s/%s", root, sub);
	DIR *d = opendir(buf);
	if (!d) {
		print_message("%s: %s: skipped\n", buf, strerror(errno));
		return NULL;
	}
	closedir(d);
	return buf;
}

/* --- toml-test --- */

/* A tagged value of toml-test's JSON that gpuaudit refuses by design. */
static bool refused_by_design(const json_t *e)
{
	const char *k;
	size_t i;
	json_t *v;
	if (json_is_array(e)) {
		json_array_foreach(e, i, v)
		{
			if (refused_by_design(v))
				return true;
		}
		return false;
	}
	if (!json_is_object(e))
		return false;
	const char *type = json_string_value(json_object_get(e, "type"));
	const char *val = json_string_value(json_object_get(e, "value"));
	if (type && val && json_object_size(e) == 2)
		return !strncmp(type, "date", 4) || !strncmp(type, "time", 4) ||
		       (!strcmp(type, "float") && (strstr(val, "inf") || strstr(val, "nan")));
	json_object_foreach((json_t *)e, k, v)
	{
		if (refused_by_design(v))
			return true;
	}
	return false;
}

/* Our plain tree against toml-test's tagged one. */
static bool same(const json_t *got, const json_t *want)
{
	size_t i;
	json_t *v;
	const char *k;
	if (json_is_array(want)) {
		if (!json_is_array(got) || json_array_size(got) != json_array_size(want))
			return false;
		json_array_foreach(want, i, v)
		{
			if (!same(json_array_get(got, i), v))
				return false;
		}
		return true;
	}
	if (!json_is_object(want))
		return false;
	const char *type = json_string_value(json_object_get(want, "type"));
	const char *val = json_string_value(json_object_get(want, "value"));
	if (type && val && json_object_size(want) == 2) {
		size_t vl = json_string_length(json_object_get(want, "value"));
		if (!strcmp(type, "string"))
			return json_is_string(got) && json_string_length(got) == vl &&
			       !memcmp(json_string_value(got), val, vl);
		if (!strcmp(type, "integer"))
			return json_is_integer(got) && json_integer_value(got) == strtoll(val, NULL, 10);
		if (!strcmp(type, "float"))
			return json_is_number(got) && fabs(json_number_value(got) - strtod(val, NULL)) <=
			                                      1e-12 * fabs(strtod(val, NULL));
		if (!strcmp(type, "bool"))
			return json_is_boolean(got) && json_is_true(got) == !strcmp(val, "true");
		return false;
	}
	if (!json_is_object(got) || json_object_size(got) != json_object_size(want))
		return false;
	size_t kl;
	json_object_keylen_foreach((json_t *)want, k, kl, v)
	{
		if (!same(json_object_getn(got, k, kl), v))
			return false;
	}
	return true;
}

static void test_toml_test(void **state)
{
	(void)state;
	char dir[1024], path[2048], list[2048];
	if (!suite_dir("toml-test/tests", dir, sizeof(dir)))
		skip();
	snprintf(list, sizeof(list), "%s/files-toml-1.0.0", dir);
	FILE *f = fopen(list, "r");
	assert_non_null(f);
	char line[1024];
	int valid = 0, valid_ok = 0, by_design = 0, invalid = 0, invalid_ok = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		size_t l = strlen(line);
		if (l < 5 || strcmp(line + l - 5, ".toml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, line);
		size_t n;
		char *text = slurp(path, &n), err[512] = "";
		assert_non_null(text);
		json_t *got = NULL;
		int r = ga_toml_parse(NULL, line, text, n, &got, err, sizeof(err));
		if (!strncmp(line, "invalid/", 8)) {
			invalid++;
			invalid_ok += r < 0;
			if (r == 0)
				print_error("accepted %s\n", line);
		} else {
			snprintf(path + strlen(path) - 5, 6, ".json");
			json_error_t je;
			json_t *want = json_load_file(path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
			/* jansson reads no NUL in an object key (valid/key/quoted-unicode.json): that
			 * document must parse, its values are not compared */
			if (!want && !strstr(je.text, "NUL byte in object key"))
				fail_msg("%s: %s", path, je.text);
			bool design = want && refused_by_design(want);
			valid++;
			by_design += design;
			if (design ? r < 0 : r == 0 && (!want || same(got, want)))
				valid_ok++;
			else
				print_error("%s %s: %s\n", design ? "accepted (refused by design)" : "wrong",
				            line, r < 0 ? err : "values differ");
			json_decref(want);
		}
		json_decref(got);
		free(text);
	}
	fclose(f);
	print_message("toml-test: valid %d/%d as expected (%d refused by design: dates, times, inf, "
	              "nan), invalid refused %d/%d\n",
	              valid_ok, valid, by_design, invalid_ok, invalid);
	assert_int_equal(valid_ok, valid);
	assert_int_equal(invalid_ok, invalid);
}

/* --- exporter-toolkit --- */

/*
 * Each web/testdata configuration and what ga_webconfig_parse must say: NULL
 * accepted, else a part of the error. The toolkit refuses some only when it
 * reads the files they name or at the handshake (ga_webconfig_load and serve do
 * that here); the departures are docs/serve.md's.
 */
static const struct {
	const char *file, *want;
} toolkit[] = {
	{ "tls_config_noAuth.requireandverifyclientcert.good.yml", NULL },
	{ "tls_config_noAuth.requireanyclientcert.good.yml", "is not supported" },          /* departure */
	{ "tls_config_noAuth.requireanyclientcertkeyinline.good.yml", "is not supported" }, /* departure */
	{ "web_config_auth_clientCAs_invalid.bad.yml", "only used with client_auth_type" },
	{ "web_config_auth_clientCAs_missing.bad.yml",
	  NULL }, /* the system's CAs; no test of the toolkit uses it */
	{ "web_config_auth_client_san.bad.yaml", "client_allowed_sans: not supported" },
	{ "web_config_auth_client_san.good.yaml", "client_allowed_sans: not supported" }, /* departure */
	{ "web_config_auth_user_list_invalid.bad.yml", "expected a bcrypt hash" },
	{ "web_config_empty.yml", NULL },
	{ "web_config_headers.good.yml", NULL },
	{ "web_config_headers_content_type_options.bad.yml", "expected nosniff" },
	{ "web_config_headers_extra_header.bad.yml", "only Strict-Transport-Security" },
	{ "web_config_headers_frame_options.bad.yml", "expected deny or sameorigin" },
	{ "web_config_junk.yml", "expected a mapping" },
	{ "web_config_junk_key.yml", "unknown key" },
	{ "web_config_noAuth.bad.yml", "only used with client_auth_type" },
	{ "web_config_noAuth.good.blocking.yml", NULL },
	{ "web_config_noAuth.good.yml", NULL },
	{ "web_config_noAuth_allCiphers.good.yml", "cipher_suites: not supported" },    /* departure */
	{ "web_config_noAuth_allCurves.good.yml", "curve_preferences: not supported" }, /* departure */
	{ "web_config_noAuth_certPath_empty.bad.yml", "cert_file: expected a string" },
	{ "web_config_noAuth_certPath_invalid.bad.yml", NULL }, /* the file is missing: load refuses */
	{ "web_config_noAuth_certPath_keyPath_empty.bad.yml", "cert_file: expected a string" },
	{ "web_config_noAuth_certPath_keyPath_invalid.bad.yml", NULL }, /* load refuses */
	{ "web_config_noAuth_cert_empty.bad.yml", "cert_file and key_file are both needed" },
	{ "web_config_noAuth_inventedCiphers.bad.yml", "cipher_suites: not supported" },
	{ "web_config_noAuth_inventedCurves.bad.yml", "curve_preferences: not supported" },
	{ "web_config_noAuth_keyPath_empty.bad.yml", "key_file: expected a string" },
	{ "web_config_noAuth_keyPath_invalid.bad.yml", NULL }, /* load refuses */
	{ "web_config_noAuth_key_empty.bad.yml", "cert_file and key_file are both needed" },
	{ "web_config_noAuth_noHTTP2.good.yml", "cipher_suites: not supported" }, /* departure */
	{ "web_config_noAuth_noHTTP2Cipher.bad.yml", "cipher_suites: not supported" },
	{ "web_config_noAuth_someCiphers.good.yml", "cipher_suites: not supported" },         /* departure */
	{ "web_config_noAuth_someCiphers_noOrder.good.yml", "cipher_suites: not supported" }, /* departure */
	{ "web_config_noAuth_someCurves.good.yml", "curve_preferences: not supported" },      /* departure */
	{ "web_config_noAuth_tlsInline.good.yml", NULL },
	{ "web_config_noAuth_wrongTLSVersion.bad.yml", "expected TLS10, TLS11, TLS12 or TLS13" },
	{ "web_config_rate_limiter_nonblocking.yaml", NULL },
	{ "web_config_rate_limiter_one_second.yaml", NULL },
	{ "web_config_users.good.yml", "bcrypt cost 18 is above 14" },       /* departure (issue 29) */
	{ "web_config_users_noTLS.good.yml", "bcrypt cost 18 is above 14" }, /* departure (issue 29) */
};

static void test_exporter_toolkit(void **state)
{
	(void)state;
	char dir[1024], path[2048];
	if (!suite_dir("exporter-toolkit/web/testdata", dir, sizeof(dir)))
		skip();
	int ok = 0, n = 0;
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || (strcmp(de->d_name + l - 4, ".yml") && strcmp(de->d_name + l - 5, ".yaml")))
			continue;
		size_t i = 0;
		while (i < sizeof(toolkit) / sizeof(toolkit[0]) && strcmp(toolkit[i].file, de->d_name))
			i++;
		n++;
		if (i == sizeof(toolkit) / sizeof(toolkit[0])) {
			print_error("%s: a file this test does not know: add what it must give\n",
			            de->d_name);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		size_t len;
		char *text = slurp(path, &len);
		assert_non_null(text);
		struct ga_ctx *ctx = NULL;
		assert_int_equal(ga_ctx_new(&ctx), 0);
		struct ga_webconfig *wc = NULL;
		int r = ga_webconfig_parse(ctx, path, text, len, &wc);
		const char *msg = r < 0 ? ga_ctx_errmsg(ctx) : "accepted";
		if (toolkit[i].want ? r < 0 && strstr(msg, toolkit[i].want) : r == 0)
			ok++;
		else
			print_error("%s: want %s, got %s\n", de->d_name,
			            toolkit[i].want ? toolkit[i].want : "accepted", msg);
		ga_webconfig_free(wc);
		ga_ctx_free(ctx);
		free(text);
	}
	closedir(d);
	print_message("exporter-toolkit web/testdata: %d/%d as expected\n", ok, n);
	assert_int_equal(ok, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toml_test),
		cmocka_unit_test(test_exporter_toolkit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
