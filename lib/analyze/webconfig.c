/*
 * webconfig.c - the exporter toolkit's web configuration file for `serve
 * --web.config.file` (include/gpuaudit/webconfig.h): tls_server_config,
 * http_server_config and basic_auth_users, read as strictly as the policy
 * file. The text passes the same prescan as the policy (ga_yaml_prescan:
 * libfyaml 0.7.12 is kept away from what it mishandles), then libfyaml
 * builds the tree and this walk takes each key it knows: an unknown one, a
 * toolkit key gpuaudit does not implement, a hash that is not bcrypt or a
 * duplicate user is an error at its FILE:LINE:COLUMN. Passwords are checked
 * with libxcrypt's bcrypt (crypt_rn), never by hand.
 */
#include <crypt.h>
#include <errno.h>
#include <libfyaml.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/file.h"
#include "../core/yaml-node.h"
#include "../core/internal.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/webconfig.h"

struct wstate {
	struct ga_ctx *ctx;
	const char *file;
	struct ga_webconfig *wc;
	int err;
};

/* The first error, "FILE:LINE:COLUMN: message", at node AT. Returns -EINVAL. */
static int werr(struct wstate *ws, struct fy_node *at, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int werr(struct wstate *ws, struct fy_node *at, const char *fmt, ...)
{
	if (ws->err)
		return ws->err;
	const struct fy_mark *m = ga_yaml_node_mark(at);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ws->err = ga_err(ws->ctx, -EINVAL, "%s:%d:%d: %s", ws->file, m ? m->line + 1 : 1,
	                 m ? m->column + 1 : 1, msg);
	return ws->err;
}

static int wnomem(struct wstate *ws)
{
	if (!ws->err)
		ws->err = ga_err(ws->ctx, -ENOMEM, "out of memory reading %s", ws->file);
	return ws->err;
}

static int get_text(struct wstate *ws, struct fy_node *v, const char *key, char *buf, size_t bufn)
{
	if (ga_yaml_is_null(v) || !ga_yaml_scalar_text(v, buf, bufn) || !*buf)
		return werr(ws, v, "%s: expected a string of 1 to %zu bytes", key, bufn - 1);
	return 0;
}

/* PATH as written, or joined to the configuration file's directory when relative. */
static int get_path(struct wstate *ws, struct fy_node *v, const char *key, char **out)
{
	char buf[1024];
	int r = get_text(ws, v, key, buf, sizeof(buf));
	if (r < 0)
		return r;
	const char *slash = strrchr(ws->file, '/');
	int dir = buf[0] == '/' || !slash ? 0 : (int)(slash - ws->file);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_buf_addf(&b, "%.*s%s%s", dir, ws->file, dir ? "/" : "", buf) < 0) {
		ga_buf_release(&b);
		return wnomem(ws);
	}
	char *p = ga_buf_detach(&b, NULL);
	ga_free(*out);
	*out = p;
	return 0;
}

static const struct {
	const char *name;
	enum ga_client_auth v;
} client_auths[] = {
	{ "NoClientCert", GA_CLIENT_AUTH_NONE },
	{ "VerifyClientCertIfGiven", GA_CLIENT_AUTH_VERIFY_IF_GIVEN },
	{ "RequireAndVerifyClientCert", GA_CLIENT_AUTH_REQUIRE_VERIFY },
};

static const struct {
	const char *name;
	unsigned v;
} tls_versions[] = { { "TLS10", 0x0301 }, { "TLS11", 0x0302 }, { "TLS12", 0x0303 }, { "TLS13", 0x0304 } };

const char *ga_tls_version_name(unsigned v)
{
	for (size_t i = 0; i < sizeof(tls_versions) / sizeof(tls_versions[0]); i++)
		if (tls_versions[i].v == v)
			return tls_versions[i].name;
	return NULL;
}

static int get_version(struct wstate *ws, struct fy_node *v, const char *key, unsigned *out)
{
	char buf[16];
	if (!ga_yaml_is_null(v) && ga_yaml_scalar_text(v, buf, sizeof(buf)))
		for (size_t i = 0; i < sizeof(tls_versions) / sizeof(tls_versions[0]); i++)
			if (!strcmp(buf, tls_versions[i].name)) {
				*out = tls_versions[i].v;
				return 0;
			}
	return werr(ws, v, "%s: expected TLS10, TLS11, TLS12 or TLS13", key);
}

/* Toolkit keys gpuaudit refuses, and why: silently ignoring a security setting would be worse. */
static const struct {
	const char *key, *why;
} unsupported[] = {
	{ "cipher_suites", "not supported: GnuTLS's default suites for the versions allowed are used" },
	{ "curve_preferences", "not supported: GnuTLS's default groups are used" },
	{ "prefer_server_cipher_suites", "not supported (the server's order is GnuTLS's)" },
	{ "client_allowed_sans", "not supported: a client is accepted by its CA alone" },
};

static int unsupported_key(struct wstate *ws, struct fy_node *k, const char *key)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(key, unsupported[i].key))
			return werr(ws, k, "tls_server_config.%s: %s", key, unsupported[i].why);
	return 0;
}

/*
 * An inline PEM (cert, key, client_ca): the text as written, up to 1 MiB like
 * the files; "" and null are the toolkit's "not set". Wiped when it is a key.
 */
static int get_inline(struct wstate *ws, struct fy_node *v, const char *key, char **out)
{
	size_t len = 0;
	const char *t = NULL;
	if (!ga_yaml_is_null(v)) {
		if (!fy_node_is_scalar(v) || !(t = fy_node_get_scalar(v, &len)) || len > (1u << 20) ||
		    memchr(t, '\0', len))
			return werr(ws, v, "tls_server_config.%s: expected PEM text of at most 1 MiB", key);
	}
	if (*out) {
		explicit_bzero(*out, strlen(*out));
		ga_free(*out);
		*out = NULL;
	}
	if (len && !(*out = ga_strndup(t, len)))
		return wnomem(ws);
	return 0;
}

static int tls_member(struct wstate *ws, struct fy_node *k, const char *key, struct fy_node *v)
{
	struct ga_webconfig *wc = ws->wc;
	char buf[64];
	if (!strcmp(key, "cert"))
		return get_inline(ws, v, "cert", &wc->cert_pem);
	if (!strcmp(key, "key"))
		return get_inline(ws, v, "key", &wc->key_pem);
	if (!strcmp(key, "client_ca"))
		return get_inline(ws, v, "client_ca", &wc->ca_pem);
	if (!strcmp(key, "cert_file"))
		return get_path(ws, v, "tls_server_config.cert_file", &wc->cert_file);
	if (!strcmp(key, "key_file"))
		return get_path(ws, v, "tls_server_config.key_file", &wc->key_file);
	if (!strcmp(key, "client_ca_file"))
		return get_path(ws, v, "tls_server_config.client_ca_file", &wc->client_ca_file);
	if (!strcmp(key, "min_version"))
		return get_version(ws, v, "tls_server_config.min_version", &wc->min_version);
	if (!strcmp(key, "max_version"))
		return get_version(ws, v, "tls_server_config.max_version", &wc->max_version);
	if (!strcmp(key, "client_auth_type")) {
		/* null and "" are the toolkit's NoClientCert; RequireClientCert is its old name for
		 * RequireAnyClientCert */
		if (ga_yaml_is_null(v) || (ga_yaml_scalar_text(v, buf, sizeof(buf)) && !*buf)) {
			wc->client_auth = GA_CLIENT_AUTH_NONE;
			return 0;
		}
		if (ga_yaml_scalar_text(v, buf, sizeof(buf)) &&
		    (!strcmp(buf, "RequestClientCert") || !strcmp(buf, "RequireAnyClientCert") ||
		     !strcmp(buf, "RequireClientCert")))
			return werr(
			        ws, v,
			        "tls_server_config.client_auth_type: %s (a certificate no CA checks) is not "
			        "supported: use RequireAndVerifyClientCert or VerifyClientCertIfGiven with "
			        "client_ca_file",
			        buf);
		if (!ga_yaml_is_null(v) && ga_yaml_scalar_text(v, buf, sizeof(buf)))
			for (size_t i = 0; i < sizeof(client_auths) / sizeof(client_auths[0]); i++)
				if (!strcmp(buf, client_auths[i].name)) {
					wc->client_auth = client_auths[i].v;
					return 0;
				}
		return werr(
		        ws, v,
		        "tls_server_config.client_auth_type: expected NoClientCert, VerifyClientCertIfGiven "
		        "or RequireAndVerifyClientCert");
	}
	int r = unsupported_key(ws, k, key);
	if (r < 0)
		return r;
	return werr(ws, k,
	            "unknown key '%s' in tls_server_config (known: cert_file, key_file, client_auth_type, "
	            "client_ca_file, min_version, max_version, cert, key, client_ca)",
	            key);
}

/*
 * The security headers the toolkit lets a configuration set (web/handler.go
 * extraHTTPHeaders), by their exact names, and the values it allows where it
 * restricts them (exact, case-sensitive); NULL: any value, empty included.
 */
static const struct {
	const char *name;
	const char *values[3];
	const char *expect;
} header_rules[] = {
	{ "Strict-Transport-Security", { NULL }, NULL },
	{ "X-Content-Type-Options", { "nosniff", NULL }, "nosniff" },
	{ "X-Frame-Options", { "deny", "sameorigin", NULL }, "deny or sameorigin" },
	{ "X-XSS-Protection", { NULL }, NULL },
	{ "Content-Security-Policy", { NULL }, NULL },
};

static int add_header(struct wstate *ws, struct fy_node *k, struct fy_node *v)
{
	struct ga_webconfig *wc = ws->wc;
	char name[64], value[1024];
	const char *canon = NULL;
	size_t h_i = 0;
	if (ga_yaml_scalar_text(k, name, sizeof(name)))
		for (size_t i = 0; i < sizeof(header_rules) / sizeof(header_rules[0]); i++)
			if (!strcmp(name, header_rules[i].name))
				canon = header_rules[i].name, h_i = i;
	if (!canon)
		return werr(ws, k,
		            "http_server_config.headers: only Strict-Transport-Security, "
		            "X-Content-Type-Options, X-Frame-Options, X-XSS-Protection and "
		            "Content-Security-Policy may be set (spelled so)");
	/* null is Go's empty string: the toolkit sends the header empty */
	value[0] = '\0';
	if (!ga_yaml_is_null(v) && !ga_yaml_scalar_text(v, value, sizeof(value)))
		return werr(ws, v, "%s: expected a string of at most %zu bytes", canon, sizeof(value) - 1);
	if (strpbrk(value, "\r\n"))
		return werr(ws, v, "%s: a header value is one line", canon);
	if (header_rules[h_i].values[0]) {
		bool ok = false;
		for (size_t j = 0; header_rules[h_i].values[j]; j++)
			ok = ok || !strcmp(value, header_rules[h_i].values[j]);
		if (!ok)
			return werr(ws, ga_yaml_is_null(v) ? k : v, "%s: expected %s, not '%s'", canon,
			            header_rules[h_i].expect, value);
	}
	for (size_t i = 0; i < wc->n_headers; i++)
		if (!strcmp(wc->headers[i].name, canon))
			return werr(ws, k, "http_server_config.headers: %s is given twice", canon);
	if (wc->n_headers >= GA_WEBCONFIG_MAX_HEADERS)
		return werr(ws, k, "http_server_config.headers: more than %u", GA_WEBCONFIG_MAX_HEADERS);
	struct ga_webconfig_header *h = ga_array_push((void **)&wc->headers, &wc->n_headers, sizeof(*h));
	if (!h)
		return wnomem(ws);
	h->name = ga_strdup(canon);
	h->value = ga_strdup(value);
	return h->name && h->value ? 0 : wnomem(ws);
}

/*
 * A Go duration (time.ParseDuration): an optional sign, then one or more
 * NUMBER UNIT with NUMBER decimal (a fraction allowed) and UNIT one of ns, us,
 * \u00b5s, \u03bcs, ms, s, m, h; "0" alone needs no unit. Nanoseconds, or false.
 */
static bool go_duration(const char *s, int64_t *out)
{
	static const struct {
		const char *u;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 },       { "us", 1000 },         { "\xc2\xb5s", 1000 },   { "\xce\xbcs", 1000 },
		{ "ms", 1000000 }, { "s", 1000000000ull }, { "m", 60000000000ull }, { "h", 3600000000000ull }
	};
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, "0")) {
		*out = 0;
		return true;
	}
	if (!*s)
		return false;
	uint64_t total = 0;
	while (*s) {
		uint64_t whole = 0, frac = 0, scale = 1;
		bool digits = false;
		for (; *s >= '0' && *s <= '9'; s++, digits = true) {
			if (whole > (UINT64_MAX - 9) / 10)
				return false;
			whole = whole * 10 + (uint64_t)(*s - '0');
		}
		if (*s == '.') {
			for (s++; *s >= '0' && *s <= '9'; s++, digits = true)
				if (scale < 1000000000000000000ull) { /* digits past 10^-18 cannot count */
					frac = frac * 10 + (uint64_t)(*s - '0');
					scale *= 10;
				}
		}
		if (!digits)
			return false;
		size_t k = 0, ul = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t l = strlen(units[i].u);
			if (!strncmp(s, units[i].u, l) && l > ul)
				k = i, ul = l;
		}
		if (!ul)
			return false; /* a missing or unknown unit */
		s += ul;
		uint64_t u = units[k].ns;
		if (whole > (uint64_t)INT64_MAX / u)
			return false;
		uint64_t v = whole * u + (uint64_t)((long double)frac * (long double)u / (long double)scale);
		if (v > (uint64_t)INT64_MAX - total)
			return false;
		total += v;
	}
	*out = neg ? -(int64_t)total : (int64_t)total;
	return true;
}

static int rate_member(struct wstate *ws, struct fy_node *k, const char *key, struct fy_node *v)
{
	struct ga_webconfig *wc = ws->wc;
	char buf[64];
	if (!strcmp(key, "interval")) {
		if (ga_yaml_is_null(v)) {
			wc->rate_limit.interval_ns = 0;
			return 0;
		}
		int64_t ns = 0;
		bool ok = ga_yaml_scalar_text(v, buf, sizeof(buf));
		/* a plain integer is nanoseconds (YAML's int into Go's time.Duration) */
		if (ok && fy_node_get_style(v) == FYNS_PLAIN && buf[strspn(buf, "-+0123456789")] == '\0' &&
		    strpbrk(buf, "0123456789")) {
			ok = ga_parse_i64(buf, 10, &ns) == 0;
		} else {
			ok = ok && go_duration(buf, &ns);
		}
		if (!ok)
			return werr(ws, v,
			            "rate_limit.interval: expected a duration such as 1s, 500ms or 1m30s");
		wc->rate_limit.interval_ns = ns;
		return 0;
	}
	if (!strcmp(key, "burst")) {
		int64_t n = 0;
		if (!ga_yaml_is_null(v) &&
		    (!ga_yaml_scalar_text(v, buf, sizeof(buf)) || fy_node_get_style(v) != FYNS_PLAIN ||
		     ga_parse_i64(buf, 10, &n) < 0))
			return werr(ws, v, "rate_limit.burst: expected an integer");
		wc->rate_limit.burst = n;
		return 0;
	}
	return werr(ws, k, "unknown key '%s' in rate_limit (known: interval, burst)", key);
}

static int http_member(struct wstate *ws, struct fy_node *k, const char *key, struct fy_node *v)
{
	if (!strcmp(key, "http2")) {
		char buf[8];
		if (!ga_yaml_is_null(v) && ga_yaml_scalar_text(v, buf, sizeof(buf)) && !strcmp(buf, "false"))
			return 0;
		if (!ga_yaml_is_null(v) && ga_yaml_scalar_text(v, buf, sizeof(buf)) && !strcmp(buf, "true"))
			return werr(ws, v,
			            "http_server_config.http2: HTTP/2 is not supported: leave it out or set "
			            "false");
		return werr(ws, v, "http_server_config.http2: expected true or false");
	}
	if (!strcmp(key, "headers")) {
		if (ga_yaml_is_null(v))
			return 0;
		if (!fy_node_is_mapping(v))
			return werr(ws, v, "http_server_config.headers: expected a mapping of header: value");
		void *it = NULL;
		struct fy_node_pair *pr;
		while ((pr = fy_node_mapping_iterate(v, &it)))
			if (add_header(ws, fy_node_pair_key(pr), fy_node_pair_value(pr)) < 0)
				return ws->err;
		return 0;
	}
	return werr(ws, k, "unknown key '%s' in http_server_config (known: headers, http2)", key);
}

/*
 * The highest bcrypt cost accepted (issue 29). A check costs 2^cost rounds:
 * cost 10 (htpasswd's default) takes 50-100 ms, 14 about 1-1.5 s, and every
 * request with a new or wrong password (an unknown user too) pays one, so a
 * higher cost lets a handful of requests stall the server; 31 would be ~2 days.
 */
#define GA_WEBCONFIG_MAX_BCRYPT_COST 14

/*
 * "$2a$", "$2b$" or "$2y$", a two-digit cost from 04 to 31, 53 characters of
 * bcrypt's base64 (add_user then bounds the cost at GA_WEBCONFIG_MAX_BCRYPT_COST).
 */
static bool is_bcrypt(const char *h)
{
	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[6] != '$')
		return false;
	int cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || cost < 4 || cost > 31)
		return false;
	return strspn(h + 7, "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == 53;
}

static int add_user(struct wstate *ws, struct fy_node *k, struct fy_node *v)
{
	struct ga_webconfig *wc = ws->wc;
	char name[256], hash[128];
	if (ga_yaml_is_null(k) || !ga_yaml_scalar_text(k, name, sizeof(name)) || !*name || strchr(name, ':'))
		return werr(ws, k, "basic_auth_users: a user name is 1 to 255 bytes without ':'");
	if (ga_yaml_is_null(v) || !ga_yaml_scalar_text(v, hash, sizeof(hash)) || !is_bcrypt(hash))
		return werr(ws, v,
		            "basic_auth_users.%s: expected a bcrypt hash ($2y$10$... from htpasswd -nBC 10 "
		            "USER, or Python's bcrypt)",
		            name);
	int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
	if (cost > GA_WEBCONFIG_MAX_BCRYPT_COST)
		return werr(ws, v,
		            "basic_auth_users.%s: bcrypt cost %d is above %d: every check of a new or "
		            "wrong password would take about %.0f s of CPU (cost 10 takes 50-100 ms and "
		            "each step doubles it), so a few requests could stall the server; hash it "
		            "again with htpasswd -nBC 10 USER",
		            name, cost, GA_WEBCONFIG_MAX_BCRYPT_COST, 0.075 * (double)(1u << (cost - 10)));
	if (ga_webconfig_user_hash(wc, name))
		return werr(ws, k, "basic_auth_users: user '%s' is given twice", name);
	if (wc->n_users >= GA_WEBCONFIG_MAX_USERS)
		return werr(ws, k, "basic_auth_users: more than %u users", GA_WEBCONFIG_MAX_USERS);
	struct ga_webconfig_user *u = ga_array_push((void **)&wc->users, &wc->n_users, sizeof(*u));
	if (!u)
		return wnomem(ws);
	u->name = ga_strdup(name);
	u->hash = ga_strdup(hash);
	return u->name && u->hash ? 0 : wnomem(ws);
}

typedef int (*member_fn)(struct wstate *ws, struct fy_node *k, const char *key, struct fy_node *v);

/* Every pair of mapping M through fn; keys are scalars, each once. */
static int walk(struct wstate *ws, struct fy_node *m, const char *what, member_fn fn)
{
	if (ga_yaml_is_null(m))
		return 0;
	if (!fy_node_is_mapping(m))
		return werr(ws, m, "%s: expected a mapping", what);
	void *it = NULL;
	struct fy_node_pair *pr;
	while ((pr = fy_node_mapping_iterate(m, &it))) {
		struct fy_node *k = fy_node_pair_key(pr);
		char key[64];
		if (!ga_yaml_scalar_text(k, key, sizeof(key)))
			return werr(ws, k, "%s: a key is a short string", what);
		void *it2 = NULL;
		struct fy_node_pair *q;
		while ((q = fy_node_mapping_iterate(m, &it2)) != pr) {
			char other[64];
			if (ga_yaml_scalar_text(fy_node_pair_key(q), other, sizeof(other)) &&
			    !strcmp(other, key))
				return werr(ws, k, "%s: '%s' is given twice", what, key);
		}
		if (fn(ws, k, key, fy_node_pair_value(pr)) < 0)
			return ws->err;
	}
	return 0;
}

static int top_member(struct wstate *ws, struct fy_node *k, const char *key, struct fy_node *v)
{
	if (!strcmp(key, "tls_server_config")) {
		ws->wc->tls = !ga_yaml_is_null(v);
		return walk(ws, v, "tls_server_config", tls_member);
	}
	if (!strcmp(key, "http_server_config"))
		return walk(ws, v, "http_server_config", http_member);
	if (!strcmp(key, "rate_limit")) {
		ws->wc->rate_limit.set = !ga_yaml_is_null(v);
		return walk(ws, v, "rate_limit", rate_member);
	}
	if (!strcmp(key, "basic_auth_users")) {
		if (ga_yaml_is_null(v))
			return 0;
		if (!fy_node_is_mapping(v))
			return werr(ws, v, "basic_auth_users: expected a mapping of user: bcrypt hash");
		void *it = NULL;
		struct fy_node_pair *pr;
		while ((pr = fy_node_mapping_iterate(v, &it)))
			if (add_user(ws, fy_node_pair_key(pr), fy_node_pair_value(pr)) < 0)
				return ws->err;
		return 0;
	}
	return werr(ws, k,
	            "unknown key '%s' (known: tls_server_config, http_server_config, rate_limit, "
	            "basic_auth_users)",
	            key);
}

/* What the keys must say together. */
static int check_whole(struct wstate *ws, struct fy_node *root)
{
	struct ga_webconfig *wc = ws->wc;
	struct fy_node *tls = fy_node_mapping_lookup_by_string(root, "tls_server_config", FY_NT);
	if (!wc->tls)
		return 0;
	/* the toolkit's "missing one of cert or cert_file" / "... key or key_file" */
	if ((!wc->cert_file && !wc->cert_pem) || (!wc->key_file && !wc->key_pem))
		return werr(ws, tls,
		            "tls_server_config: cert_file and key_file are both needed (or cert and key "
		            "inline)");
	bool verify = wc->client_auth == GA_CLIENT_AUTH_VERIFY_IF_GIVEN ||
	              wc->client_auth == GA_CLIENT_AUTH_REQUIRE_VERIFY;
	/* as the toolkit: no client_ca_file means the system's trust store (crypto/tls, nil ClientCAs) */
	wc->client_ca_system = verify && !wc->client_ca_file && !wc->ca_pem;
	if ((wc->client_ca_file || wc->ca_pem) && !verify)
		return werr(
		        ws, tls,
		        "tls_server_config: client_ca_file (or client_ca) is only used with client_auth_type "
		        "RequireAndVerifyClientCert or VerifyClientCertIfGiven");
	if (wc->min_version && wc->max_version && wc->min_version > wc->max_version)
		return werr(ws, tls, "tls_server_config: min_version %s is above max_version %s",
		            ga_tls_version_name(wc->min_version), ga_tls_version_name(wc->max_version));
	return 0;
}

static void diag_quiet(struct fy_diag *d, void *user, const char *buf, size_t len)
{
	(void)d;
	(void)user;
	(void)buf;
	(void)len;
}

int ga_webconfig_parse(struct ga_ctx *ctx, const char *file, const char *text, size_t len,
                       struct ga_webconfig **ret)
{
	struct wstate ws = { .ctx = ctx, .file = file ? file : "<web config>" };
	struct fy_diag *diag = NULL;
	struct fy_document *doc = NULL;
	int r;
	if (len > GA_WEBCONFIG_MAX_FILE)
		return ga_err(ctx, -EINVAL, "%s: larger than %u bytes", ws.file, GA_WEBCONFIG_MAX_FILE);
	if ((r = ga_policy_yaml_check(ctx, ws.file, text, len)) < 0)
		return r;
	ws.wc = ga_calloc(1, sizeof(*ws.wc));
	if (!ws.wc || !(ws.wc->file = ga_strdup(ws.file))) {
		r = ga_err(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	struct fy_diag_cfg dcfg;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = diag_quiet;
	dcfg.colorize = false;
	if (!(diag = fy_diag_create(&dcfg))) {
		r = ga_err(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	fy_diag_set_collect_errors(diag, true);
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_ALLOW_DUPLICATE_KEYS,
		                    .diag = diag };
	doc = len ? fy_document_build_from_string(&cfg, text, len) : NULL;
	struct fy_node *root = doc ? fy_document_root(doc) : NULL;
	if (!doc) {
		void *it = NULL;
		struct fy_diag_error *e = len ? fy_diag_errors_iterate(diag, &it) : NULL;
		if (e) {
			r = ga_err(ctx, -EINVAL, "%s:%d:%d: not valid YAML: %s", ws.file,
			           e->line > 0 ? e->line : 1, e->column > 0 ? e->column : 1,
			           e->msg ? e->msg : "syntax error");
			goto out;
		}
	} else if (fy_node_get_anchor(root) || (!ga_yaml_is_null(root) && !fy_node_is_mapping(root))) {
		r = werr(&ws, root,
		         "expected a mapping (tls_server_config, http_server_config, basic_auth_users)");
		goto out;
	}
	/* an empty file is the toolkit's "no TLS, no authentication" */
	if (root && !ga_yaml_is_null(root) &&
	    ((r = walk(&ws, root, "the web configuration", top_member)) < 0 ||
	     (r = check_whole(&ws, root)) < 0))
		goto out;
	*ret = ws.wc;
	ws.wc = NULL;
	r = 0;
out:
	if (doc)
		fy_document_destroy(doc);
	if (diag)
		fy_diag_destroy(diag);
	ga_webconfig_free(ws.wc);
	return r;
}

/* A certificate or key file as a NUL-terminated string (what libmicrohttpd takes). */
static int read_pem(struct ga_ctx *ctx, const char *what, const char *path, char **out)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_file_read(ctx, path, 1u << 20, &b);
	if (r == -EINVAL) {
		char why[512];
		snprintf(why, sizeof(why), "%s", ga_ctx_errmsg(ctx));
		r = ga_err(ctx, r, "tls_server_config.%s: %s", what, why);
	} else if (r < 0) {
		r = ga_err(ctx, r, "tls_server_config.%s %s: %s", what, path,
		           r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
	} else {
		if (*out) { /* the inline text the file replaces */
			explicit_bzero(*out, strlen(*out));
			ga_free(*out);
		}
		if (!(*out = ga_buf_detach(&b, NULL)))
			r = ga_err(ctx, -ENOMEM, "out of memory");
	}
	ga_buf_release(&b);
	return r;
}

/*
 * The system's trust store, where Go's crypto/x509 looks for it on Linux (root_linux.go:
 * SSL_CERT_FILE first, then the distributions' bundle files in this order): what the
 * toolkit checks client certificates against when client_ca_file is not set.
 */
static const char *const system_ca_files[] = {
	"/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Gentoo, Arch */
	"/etc/pki/tls/certs/ca-bundle.crt",                  /* Fedora, RHEL 6 */
	"/etc/ssl/ca-bundle.pem",                            /* openSUSE */
	"/etc/pki/tls/cacert.pem",                           /* OpenELEC */
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* CentOS, RHEL 7 */
	"/etc/ssl/cert.pem",                                 /* Alpine */
};

int ga_webconfig_read_system_cas(struct ga_ctx *ctx, struct ga_webconfig *wc, const char *ssl_cert_file)
{
	if (ssl_cert_file && *ssl_cert_file)
		return read_pem(ctx, "client_ca_file (the system's, SSL_CERT_FILE)", ssl_cert_file,
		                &wc->ca_pem);
	for (size_t i = 0; i < sizeof(system_ca_files) / sizeof(system_ca_files[0]); i++)
		if (access(system_ca_files[i], R_OK) == 0)
			return read_pem(ctx, "client_ca_file (the system's)", system_ca_files[i],
			                &wc->ca_pem);
	return ga_err(ctx, -ENOENT,
	              "tls_server_config: client_auth_type %s without client_ca_file means the "
	              "system's trust store, and none was found (SSL_CERT_FILE is not set and no "
	              "bundle such as /etc/ssl/certs/ca-certificates.crt is readable): install "
	              "ca-certificates or set client_ca_file",
	              wc->client_auth == GA_CLIENT_AUTH_REQUIRE_VERIFY ? "RequireAndVerifyClientCert"
	                                                               : "VerifyClientCertIfGiven");
}

int ga_webconfig_load(struct ga_ctx *ctx, const char *file, struct ga_webconfig **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = !strcmp(file, "-")
	                ? ga_err(ctx, -EINVAL, "--web.config.file wants a file, not standard input")
	                : ga_file_read(ctx, file, GA_WEBCONFIG_MAX_FILE, &b);
	if (r == -EFBIG)
		r = ga_err(ctx, -EINVAL, "%s: larger than %u bytes", file, GA_WEBCONFIG_MAX_FILE);
	else if (r == -EINVAL || r == -ENOMEM)
		; /* the message says it */
	else if (r < 0)
		r = ga_err(ctx, r, "cannot read web configuration %s: %s", file, strerror(-r));
	else
		r = ga_webconfig_parse(ctx, file, b.data ? b.data : "", b.len, ret);
	ga_buf_release(&b);
	/* a file named wins over the same thing inline, as in the toolkit */
	if (r == 0 && (*ret)->tls &&
	    (((*ret)->cert_file &&
	      (r = read_pem(ctx, "cert_file", (*ret)->cert_file, &(*ret)->cert_pem)) < 0) ||
	     ((*ret)->key_file && (r = read_pem(ctx, "key_file", (*ret)->key_file, &(*ret)->key_pem)) < 0) ||
	     ((*ret)->client_ca_file &&
	      (r = read_pem(ctx, "client_ca_file", (*ret)->client_ca_file, &(*ret)->ca_pem)) < 0))) {
		ga_webconfig_free(*ret);
		*ret = NULL;
	}
	return r;
}

void ga_webconfig_free(struct ga_webconfig *wc)
{
	if (!wc)
		return;
	for (size_t i = 0; i < wc->n_users; i++) {
		ga_free(wc->users[i].name);
		ga_free(wc->users[i].hash);
	}
	for (size_t i = 0; i < wc->n_headers; i++) {
		ga_free(wc->headers[i].name);
		ga_free(wc->headers[i].value);
	}
	ga_free(wc->users);
	ga_free(wc->headers);
	ga_free(wc->file);
	ga_free(wc->cert_file);
	ga_free(wc->key_file);
	ga_free(wc->client_ca_file);
	ga_free(wc->cert_pem);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	ga_free(wc->key_pem);
	ga_free(wc->ca_pem);
	ga_free(wc);
}

const char *ga_webconfig_user_hash(const struct ga_webconfig *wc, const char *user)
{
	for (size_t i = 0; wc && i < wc->n_users; i++)
		if (!strcmp(wc->users[i].name, user))
			return wc->users[i].hash;
	return NULL;
}

int ga_bcrypt_check(const char *hash, const char *password)
{
	struct crypt_data *cd = ga_calloc(1, sizeof(*cd));
	if (!cd)
		return -ENOMEM;
	const char *out = crypt_rn(password, hash, cd, (int)sizeof(*cd));
	int ok = 0;
	size_t n = strlen(hash);
	if (out && strlen(out) == n) {
		unsigned char diff = 0;
		for (size_t i = 0; i < n; i++)
			diff |= (unsigned char)(out[i] ^ hash[i]);
		ok = diff == 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	ga_free(cd);
	return ok;
}
