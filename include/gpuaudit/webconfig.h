/*
 * webconfig.h - the Prometheus exporter toolkit's web configuration file
 * (`serve --web.config.file`): TLS for the server (certificate, key, minimum
 * and maximum version, client certificates checked against a CA) and HTTP
 * basic authentication with bcrypt hashes. The same YAML keys as the toolkit;
 * an unknown key is an error with FILE:LINE:COLUMN, as in the policy file, and
 * a toolkit key gpuaudit does not implement is an error that says so
 * (docs/serve.md, "TLS and authentication").
 */
#ifndef GPUAUDIT_WEBCONFIG_H
#define GPUAUDIT_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/core.h"

#define GA_WEBCONFIG_MAX_FILE (256u << 10)
#define GA_WEBCONFIG_MAX_USERS 256
#define GA_WEBCONFIG_MAX_HEADERS 32

/* tls_server_config.client_auth_type, as the toolkit names them */
enum ga_client_auth {
	GA_CLIENT_AUTH_NONE,            /* NoClientCert (the default) */
	GA_CLIENT_AUTH_VERIFY_IF_GIVEN, /* VerifyClientCertIfGiven */
	GA_CLIENT_AUTH_REQUIRE_VERIFY,  /* RequireAndVerifyClientCert */
};

struct ga_webconfig_user {
	char *name;
	char *hash; /* "$2a$", "$2b$" or "$2y$" bcrypt */
};

struct ga_webconfig_header {
	char *name, *value;
};

struct ga_webconfig {
	char *file;
	bool tls;                                    /* tls_server_config is present */
	char *cert_file, *key_file, *client_ca_file; /* resolved against the file's directory */
	/* their contents (ga_webconfig_load), or the inline cert, key, client_ca (a file named wins) */
	char *cert_pem, *key_pem, *ca_pem;
	enum ga_client_auth client_auth;
	unsigned min_version, max_version; /* 0x0301 TLS 1.0 ... 0x0304 TLS 1.3; 0 = not set */
	struct ga_webconfig_user *users;
	size_t n_users;
	struct ga_webconfig_header *headers; /* http_server_config.headers */
	size_t n_headers;
	/*
	 * client_auth_type VerifyClientCertIfGiven or RequireAndVerifyClientCert
	 * without client_ca_file: the toolkit (Go's crypto/tls with no ClientCAs)
	 * checks client certificates against the system's trust store.
	 */
	bool client_ca_system;
	/*
	 * rate_limit, as the toolkit reads it (web/tls_config.go RateLimiterConfig,
	 * used in web/handler.go): a token bucket of `burst` tokens that gains one
	 * token every `interval`; a request takes a token, and one that finds the
	 * bucket empty is answered 429 Too Many Requests. interval 0 (or absent)
	 * is no limit; a negative interval is an unlimited rate (golang.org/x/time
	 * rate.Every); a burst of 0 or less with a positive interval refuses every
	 * request. One bucket for the whole server, not one per client.
	 */
	struct {
		bool set;            /* rate_limit is present */
		int64_t interval_ns; /* Go duration ("1s", "500ms", "1m30s") or an integer of nanoseconds */
		int64_t burst;
	} rate_limit;
};

/*
 * Parse a web configuration from a buffer; `file` names it in messages and
 * relative paths in it are taken from its directory. 0, -EINVAL with
 * "FILE:LINE:COLUMN: what" in the context's message, or -ENOMEM. Free with
 * ga_webconfig_free.
 */
int ga_webconfig_parse(struct ga_ctx *ctx, const char *file, const char *text, size_t len,
                       struct ga_webconfig **ret);
/*
 * Read FILE (a regular file of at most GA_WEBCONFIG_MAX_FILE bytes), parse it,
 * and read the certificate, key and CA files it names (1 MiB each at most).
 */
int ga_webconfig_load(struct ga_ctx *ctx, const char *file, struct ga_webconfig **ret);
/*
 * client_ca_system: read the system's trust store into wc->ca_pem, as Go's
 * crypto/x509 finds it on Linux: the file ssl_cert_file names (the caller's
 * SSL_CERT_FILE; NULL or "" for none), else the first readable of the
 * distributions' bundle files. 0, or -errno with the message in ctx (-ENOENT:
 * none found).
 */
int ga_webconfig_read_system_cas(struct ga_ctx *ctx, struct ga_webconfig *wc, const char *ssl_cert_file);
void ga_webconfig_free(struct ga_webconfig *wc);

/* The user's bcrypt hash, or NULL when there is no such user. */
const char *ga_webconfig_user_hash(const struct ga_webconfig *wc, const char *user);
/*
 * Whether PASSWORD matches a bcrypt HASH (libxcrypt's crypt_rn; a constant-time
 * comparison of the result). 1 yes, 0 no, -ENOMEM.
 */
int ga_bcrypt_check(const char *hash, const char *password);
/* The TLS version name the toolkit uses ("TLS12"), or NULL. */
const char *ga_tls_version_name(unsigned v);

#endif
