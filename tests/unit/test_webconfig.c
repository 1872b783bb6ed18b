/*
 * test_webconfig.c - the exporter toolkit's web configuration (serve
 * --web.config.file): every key, paths taken from the file's directory, each
 * error with its FILE:LINE:COLUMN, and bcrypt checking against hashes made by
 * another implementation (Apache's htpasswd -B, recorded here) and by
 * libxcrypt's own salt generator.
 */
#include <crypt.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/webconfig.h"

static const char *parse_err(const char *text, struct ga_webconfig **ret)
{
	static char msg[1024];
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	int r = ga_webconfig_parse(ctx, "conf/web.yml", text, strlen(text), ret);
	snprintf(msg, sizeof(msg), "%s", r == 0 ? "ok" : ga_ctx_errmsg(ctx));
	ga_ctx_free(ctx);
	return msg;
}

/* `htpasswd -nbBC 10 prom 's3cret pass'` (apache2-utils 2.4.71-1~deb12u1, APR's bcrypt) */
static const char htpasswd_hash[] = "$2y$10$jg5EpS/.h.VyNtY1QvlyDuvDTcgffUCwc4i8Ca/RGcqUzOtW6m0f2";

static void test_full(void **state)
{
	(void)state;
	struct ga_webconfig *wc = NULL;
	char text[2048];
	snprintf(text, sizeof(text),
	         "tls_server_config:\n"
	         "  cert_file: server.pem\n"
	         "  key_file: /etc/keys/server.key\n"
	         "  client_auth_type: RequireAndVerifyClientCert\n"
	         "  client_ca_file: ca/clients.pem\n"
	         "  min_version: TLS13\n"
	         "http_server_config:\n"
	         "  http2: false\n"
	         "  headers:\n"
	         "    x-frame-options: deny\n"
	         "    Strict-Transport-Security: max-age=31536000\n"
	         "basic_auth_users:\n"
	         "  prom: '%s'\n"
	         "  \"alice\": %s\n",
	         htpasswd_hash, htpasswd_hash);
	assert_string_equal(parse_err(text, &wc), "ok");
	assert_true(wc->tls);
	assert_string_equal(wc->cert_file, "conf/server.pem");
	assert_string_equal(wc->key_file, "/etc/keys/server.key");
	assert_string_equal(wc->client_ca_file, "conf/ca/clients.pem");
	assert_int_equal(wc->client_auth, GA_CLIENT_AUTH_REQUIRE_VERIFY);
	assert_int_equal(wc->min_version, 0x0304);
	assert_int_equal(wc->max_version, 0);
	assert_int_equal(wc->n_headers, 2);
	assert_string_equal(wc->headers[0].name, "X-Frame-Options");
	assert_string_equal(wc->headers[0].value, "deny");
	assert_int_equal(wc->n_users, 2);
	assert_string_equal(ga_webconfig_user_hash(wc, "alice"), htpasswd_hash);
	assert_null(ga_webconfig_user_hash(wc, "bob"));
	ga_webconfig_free(wc);
	/* empty: no TLS, no users, as the toolkit reads it */
	wc = NULL;
	assert_string_equal(parse_err("", &wc), "ok");
	assert_false(wc->tls);
	assert_int_equal(wc->n_users, 0);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("# nothing\nbasic_auth_users:\n", &wc), "ok");
	ga_webconfig_free(wc);
}

static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} t[] = {
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suite: [x]\n",
		  "conf/web.yml:4:3: unknown key 'cipher_suite' in tls_server_config (known: cert_file, "
		  "key_file" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: "
		  "[TLS_AES_128_GCM_SHA256]\n",
		  "conf/web.yml:4:3: tls_server_config.cipher_suites: not supported" },
		{ "tls_server_config:\n  cert_file: a\n",
		  "conf/web.yml:2:3: tls_server_config: cert_file and key_file are both needed" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
		  "conf/web.yml:4:16: tls_server_config.min_version: expected TLS10, TLS11, TLS12 or TLS13" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: "
		  "TLS12\n",
		  "conf/web.yml:2:3: tls_server_config: min_version TLS13 is above max_version TLS12" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		  "RequireAndVerifyClientCert\n",
		  "conf/web.yml:2:3: tls_server_config: client_auth_type RequireAndVerifyClientCert needs "
		  "client_ca_file" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		  "conf/web.yml:2:3: tls_server_config: client_ca_file is only used with client_auth_type" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		  "RequireAnyClientCert\n",
		  "conf/web.yml:4:21: tls_server_config.client_auth_type: RequireAnyClientCert (a "
		  "certificate no CA "
		  "checks) is not supported" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  cert_file: c\n",
		  "conf/web.yml:4:3: tls_server_config: 'cert_file' is given twice" },
		{ "basic_auth_users:\n  prom: s3cret\n",
		  "conf/web.yml:2:9: basic_auth_users.prom: expected a bcrypt hash" },
		{ "basic_auth_users:\n  prom: $1$abcdefgh$0123456789012345678901\n",
		  "conf/web.yml:2:9: basic_auth_users.prom: expected a bcrypt hash" },
		{ "basic_auth_users:\n  'a:b': "
		  "$2y$10$jg5EpS/.h.VyNtY1QvlyDuvDTcgffUCwc4i8Ca/RGcqUzOtW6m0f2\n",
		  "conf/web.yml:2:4: basic_auth_users: a user name is 1 to 255 bytes without ':'" },
		{ "basic_auth_users: [prom]\n", "conf/web.yml:1:20: basic_auth_users: expected a mapping" },
		{ "http_server_config:\n  http2: true\n",
		  "conf/web.yml:2:10: http_server_config.http2: HTTP/2 is not supported" },
		{ "http_server_config:\n  headers:\n    Server: gpuaudit\n",
		  "conf/web.yml:3:5: http_server_config.headers: only Strict-Transport-Security" },
		{ "http_server_config:\n  headers:\n    X-Frame-Options: \"deny\\r\\nX: y\"\n",
		  "conf/web.yml:3:23: X-Frame-Options: a header value is one line" },
		{ "tls_config:\n  cert_file: a\n",
		  "conf/web.yml:1:1: unknown key 'tls_config' (known: tls_server_config, http_server_config, "
		  "basic_auth_users)" },
		{ "- a\n", "conf/web.yml:1:3: expected a mapping" },
		{ "a: [\n", "conf/web.yml:2:1: not valid YAML" },
		{ "a: \x01\n", "conf/web.yml:1:4: a control character (U+0001)" },
		{ "? ?:\t?\n", "conf/web.yml:1:1: an explicit mapping key ('? ')" },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ga_webconfig *wc = NULL;
		const char *got = parse_err(t[i].text, &wc);
		if (strncmp(got, t[i].want, strlen(t[i].want))) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, got, t[i].want);
			bad++;
		}
		assert_null(wc);
	}
	assert_int_equal(bad, 0);
}

static void test_bcrypt(void **state)
{
	(void)state;
	/* a hash from another implementation */
	assert_int_equal(ga_bcrypt_check(htpasswd_hash, "s3cret pass"), 1);
	assert_int_equal(ga_bcrypt_check(htpasswd_hash, "s3cret pasS"), 0);
	assert_int_equal(ga_bcrypt_check(htpasswd_hash, ""), 0);
	/* and one libxcrypt makes now, $2b$ at cost 4 */
	char salt[64], hash[128];
	assert_non_null(crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)));
	struct crypt_data cd;
	memset(&cd, 0, sizeof(cd));
	const char *h = crypt_rn("hunter2", salt, &cd, sizeof(cd));
	assert_non_null(h);
	snprintf(hash, sizeof(hash), "%s", h);
	assert_int_equal(ga_bcrypt_check(hash, "hunter2"), 1);
	assert_int_equal(ga_bcrypt_check(hash, "hunter3"), 0);
	/* not a hash at all: never a match */
	assert_int_equal(ga_bcrypt_check("*0", "*0"), 0);
	assert_string_equal(ga_tls_version_name(0x0303), "TLS12");
	assert_null(ga_tls_version_name(0x0305));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bcrypt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
