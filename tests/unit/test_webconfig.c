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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	         "    X-Frame-Options: deny\n"
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
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		  "conf/web.yml:2:3: tls_server_config: client_ca_file (or client_ca) is only used with "
		  "client_auth_type" },
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
		  "rate_limit, basic_auth_users)" },
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

/*
 * The rules the exporter toolkit applies (web/tls_config.go, web/handler.go),
 * one case or more each, written here: the toolkit's test files are not copied.
 */
static void test_toolkit_rules(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want; /* want "ok": accepted */
	} t[] = {
		/* client certificates checked without client_ca_file: the system's trust store */
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		  "RequireAndVerifyClientCert\n",
		  "ok" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		  "VerifyClientCertIfGiven\n",
		  "ok" },
		/* "" and null are NoClientCert; a CA without a policy is refused */
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: \"\"\n", "ok" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: \"\"\n  "
		  "client_ca_file: c\n",
		  "conf/web.yml:2:3: tls_server_config: client_ca_file (or client_ca) is only used with "
		  "client_auth_type" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: NoClientcert\n",
		  "conf/web.yml:4:21: tls_server_config.client_auth_type: expected NoClientCert" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		  "RequireClientCert\n",
		  "conf/web.yml:4:21: tls_server_config.client_auth_type: RequireClientCert (a "
		  "certificate no CA checks) is not supported" },
		/* inline cert, key, client_ca; "" is not set */
		{ "tls_server_config:\n  cert: |\n    -----BEGIN CERTIFICATE-----\n    x\n  key: k\n", "ok" },
		{ "tls_server_config:\n  cert: \"\"\n  key_file: b\n",
		  "conf/web.yml:2:3: tls_server_config: cert_file and key_file are both needed" },
		{ "tls_server_config:\n  cert_file: a\n  key: \"\"\n",
		  "conf/web.yml:2:3: tls_server_config: cert_file and key_file are both needed" },
		{ "tls_server_config:\n  cert_file: a\n  key: [k]\n",
		  "conf/web.yml:3:9: tls_server_config.key: expected PEM text" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca: c\n",
		  "conf/web.yml:2:3: tls_server_config: client_ca_file (or client_ca) is only used with" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca: c\n  client_auth_type: "
		  "VerifyClientCertIfGiven\n",
		  "ok" },
		/* TLS versions: the four names, exactly */
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS10\n  max_version: "
		  "TLS13\n",
		  "ok" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: tls12\n",
		  "conf/web.yml:4:16: tls_server_config.min_version: expected TLS10" },
		/* headers: the five names, exactly; two of them with fixed values */
		{ "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    "
		  "Strict-Transport-Security: max-age=31536000; includeSubDomains\n    "
		  "X-Content-Type-Options: nosniff\n    X-XSS-Protection: 1\n    "
		  "Content-Security-Policy: \"default-src 'self'\"\n",
		  "ok" },
		{ "http_server_config:\n  headers:\n    X-Frame-Options: sameorigin\n", "ok" },
		{ "http_server_config:\n  headers:\n    X-XSS-Protection:\n    Content-Security-Policy: "
		  "''\n",
		  "ok" },
		{ "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
		  "conf/web.yml:3:22: X-Frame-Options: expected deny or sameorigin, not 'allow'" },
		{ "http_server_config:\n  headers:\n    X-Frame-Options: DENY\n",
		  "conf/web.yml:3:22: X-Frame-Options: expected deny or sameorigin, not 'DENY'" },
		{ "http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n",
		  "conf/web.yml:3:29: X-Content-Type-Options: expected nosniff, not 'sniff'" },
		{ "http_server_config:\n  headers:\n    X-Content-Type-Options:\n",
		  "conf/web.yml:3:5: X-Content-Type-Options: expected nosniff, not ''" },
		{ "http_server_config:\n  headers:\n    x-frame-options: deny\n",
		  "conf/web.yml:3:5: http_server_config.headers: only Strict-Transport-Security" },
		{ "http_server_config:\n  headers:\n    Authorization: Basic x\n",
		  "conf/web.yml:3:5: http_server_config.headers: only Strict-Transport-Security" },
		{ "http_server_config:\n  headers:\n    Content-Length: 0\n",
		  "conf/web.yml:3:5: http_server_config.headers: only Strict-Transport-Security" },
		{ "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    X-Frame-Options: deny\n",
		  "conf/web.yml:4:5: http_server_config.headers: X-Frame-Options is given twice" },
		/* rate_limit: interval a Go duration or integer nanoseconds, burst an integer */
		{ "rate_limit:\n  interval: 0\n  burst: 0\n", "ok" },
		{ "rate_limit:\n  interval: \"1s\"\n  burst: 0\n", "ok" },
		{ "rate_limit:\n  interval: 1m30.5s\n  burst: 10\n", "ok" },
		{ "rate_limit:\n  interval: 5\n", "ok" },
		{ "rate_limit:\n  interval: \"5\"\n",
		  "conf/web.yml:2:14: rate_limit.interval: expected a duration" },
		{ "rate_limit:\n  interval: 1d\n",
		  "conf/web.yml:2:13: rate_limit.interval: expected a duration" },
		{ "rate_limit:\n  interval: s\n",
		  "conf/web.yml:2:13: rate_limit.interval: expected a duration" },
		{ "rate_limit:\n  interval: 3000000h\n",
		  "conf/web.yml:2:13: rate_limit.interval: expected a duration" },
		{ "rate_limit:\n  burst: many\n",
		  "conf/web.yml:2:10: rate_limit.burst: expected an integer" },
		{ "rate_limit:\n  burst: \"3\"\n",
		  "conf/web.yml:2:11: rate_limit.burst: expected an integer" },
		{ "rate_limit:\n  bursts: 3\n",
		  "conf/web.yml:2:3: unknown key 'bursts' in rate_limit (known: interval, burst)" },
		{ "rate_limit:\n  burst: 3\n  burst: 4\n",
		  "conf/web.yml:3:3: rate_limit: 'burst' is given twice" },
		{ "rate_limit: 5\n", "conf/web.yml:1:13: rate_limit: expected a mapping" },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ga_webconfig *wc = NULL;
		const char *got = parse_err(t[i].text, &wc);
		if (strncmp(got, t[i].want, strlen(t[i].want))) {
			print_error("case %zu:\n got: %s\nwant: %s\n", i, got, t[i].want);
			bad++;
		}
		ga_webconfig_free(wc);
	}
	assert_int_equal(bad, 0);
	/* what is kept */
	struct ga_webconfig *wc = NULL;
	assert_string_equal(parse_err("rate_limit:\n  interval: 1m30.5s\n  burst: 10\n", &wc), "ok");
	assert_true(wc->rate_limit.set);
	assert_true(wc->rate_limit.interval_ns == 90500000000LL);
	assert_true(wc->rate_limit.burst == 10);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("rate_limit:\n  interval: 250ms\n", &wc), "ok");
	assert_true(wc->rate_limit.interval_ns == 250000000LL && wc->rate_limit.burst == 0);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("rate_limit:\n  interval: -1.5us\n", &wc), "ok");
	assert_true(wc->rate_limit.interval_ns == -1500);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("rate_limit:\n  interval: 2h45m3\u00b5s7ns\n", &wc), "ok");
	assert_true(wc->rate_limit.interval_ns == 9900000003007LL);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("basic_auth_users:\n", &wc), "ok");
	assert_false(wc->rate_limit.set);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("tls_server_config:\n  cert_file: a\n  key_file: b\n  "
	                              "client_auth_type: VerifyClientCertIfGiven\n",
	                              &wc),
	                    "ok");
	assert_true(wc->client_ca_system);
	assert_int_equal(wc->client_auth, GA_CLIENT_AUTH_VERIFY_IF_GIVEN);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("tls_server_config:\n  cert_file: a\n  key_file: b\n  "
	                              "client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: c\n",
	                              &wc),
	                    "ok");
	assert_false(wc->client_ca_system);
	ga_webconfig_free(wc);
	wc = NULL;
	assert_string_equal(parse_err("tls_server_config:\n  cert: C\n  key: K\n  client_ca: A\n  "
	                              "client_auth_type: RequireAndVerifyClientCert\n",
	                              &wc),
	                    "ok");
	assert_true(wc->tls);
	assert_null(wc->cert_file);
	assert_string_equal(wc->cert_pem, "C");
	assert_string_equal(wc->key_pem, "K");
	assert_string_equal(wc->ca_pem, "A");
	assert_false(wc->client_ca_system);
	ga_webconfig_free(wc);
	/* a file named wins over the same thing inline (ga_webconfig_load) */
	char dir[] = "/tmp/test_webconfig.XXXXXX", path[256];
	assert_non_null(mkdtemp(dir));
	static const char *const files[][2] = {
		{ "web.yml",
		  "tls_server_config:\n  cert: inline-cert\n  cert_file: c.pem\n  key: inline-key\n" },
		{ "c.pem", "file-cert\n" },
	};
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(files[i][1], f);
		fclose(f);
	}
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	wc = NULL;
	assert_int_equal(ga_webconfig_load(ctx, path, &wc), 0);
	assert_string_equal(wc->cert_pem, "file-cert\n");
	assert_string_equal(wc->key_pem, "inline-key");
	ga_webconfig_free(wc);
	ga_ctx_free(ctx);
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		unlink(path);
	}
	rmdir(dir);
	wc = NULL;
	assert_string_equal(parse_err("http_server_config:\n  headers:\n    X-XSS-Protection:\n", &wc), "ok");
	assert_int_equal(wc->n_headers, 1);
	assert_string_equal(wc->headers[0].value, "");
	ga_webconfig_free(wc);
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
		cmocka_unit_test(test_toolkit_rules),
		cmocka_unit_test(test_bcrypt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
