/*
 * serve-web.c - the Prometheus exporter toolkit's conventions for `gpuaudit
 * serve` (docs/serve.md, "TLS and authentication"): the web configuration
 * file's TLS (libmicrohttpd's GnuTLS, with the certificate, key and client CA
 * checked with GnuTLS at start so a bad file is a clear error, not a daemon
 * that will not start), client certificates verified per request, HTTP basic
 * authentication against bcrypt hashes (ga_bcrypt_check; a password that matched once is
 * remembered by its SHA-256, so a scrape costs a hash, not a bcrypt, as the
 * toolkit's cache does), and the sockets systemd's socket activation passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <poll.h>
#include <sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve-int.h"

/*
 * An RSA certificate whose keyUsage extension is present without digitalSignature
 * (keyEncipherment only): RFC 8446 4.4.2.4 makes TLS 1.3 sign with the key, so GnuTLS
 * offers only TLS 1.2's static RSA key exchange with it and a TLS 1.3-only client
 * fails, where Go's toolkit (which does not enforce keyUsage) serves TLS 1.3 with the
 * same file. Said once at start, with the fix.
 */
static void check_key_usage(struct serve *s, const gnutls_datum_t *cert)
{
	struct serve_web *w = &s->web;
	gnutls_x509_crt_t crt;
	if (gnutls_x509_crt_init(&crt) < 0)
		return;
	unsigned usage = 0, critical = 0;
	if (gnutls_x509_crt_import(crt, cert, GNUTLS_X509_FMT_PEM) >= 0 &&
	    gnutls_x509_crt_get_pk_algorithm(crt, NULL) == GNUTLS_PK_RSA &&
	    gnutls_x509_crt_get_key_usage(crt, &usage, &critical) >= 0 &&
	    !(usage & GNUTLS_KEY_DIGITAL_SIGNATURE)) {
		bool tls13 = !w->cfg->max_version || w->cfg->max_version >= 0x0304;
		serve_warn(s,
		           "%s: the certificate's keyUsage has no digitalSignature (RSA, keyEncipherment "
		           "only): TLS 1.3 cannot use it, so serve offers only TLS 1.2 with RSA key "
		           "exchange%s; reissue the certificate with keyUsage digitalSignature",
		           w->cfg->cert_file ? w->cfg->cert_file : w->cfg->file,
		           tls13 ? " and TLS 1.3-only clients fail" : "");
	}
	gnutls_x509_crt_deinit(crt);
}

/* The certificate and key must pair, the CA must hold a certificate: GnuTLS says why not. */
static int check_pems(struct serve *s)
{
	struct serve_web *w = &s->web;
	gnutls_certificate_credentials_t cred;
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return cli_error(s->cli, "serve", EXIT_INTERNAL, "out of memory");
	gnutls_datum_t cert = { (unsigned char *)w->cfg->cert_pem, (unsigned)strlen(w->cfg->cert_pem) };
	gnutls_datum_t key = { (unsigned char *)w->cfg->key_pem, (unsigned)strlen(w->cfg->key_pem) };
	int code = EXIT_OK;
	int r = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	if (r < 0) {
		code = cli_error(s->cli, "serve", EXIT_USAGE, "%s: cert_file %s and key_file %s: %s",
		                 w->cfg->file, w->cfg->cert_file ? w->cfg->cert_file : "(inline cert)",
		                 w->cfg->key_file ? w->cfg->key_file : "(inline key)", gnutls_strerror(r));
	} else if (w->cfg->ca_pem) {
		/* client_ca_system: the system's bundle that ga_webconfig_load read */
		const char *ca = w->cfg->client_ca_file     ? w->cfg->client_ca_file
		                 : w->cfg->client_ca_system ? "(the system's trust store)"
		                                            : "(inline client_ca)";
		gnutls_datum_t d = { (unsigned char *)w->cfg->ca_pem, (unsigned)strlen(w->cfg->ca_pem) };
		r = gnutls_certificate_set_x509_trust_mem(cred, &d, GNUTLS_X509_FMT_PEM);
		if (r <= 0)
			code = cli_error(s->cli, "serve", EXIT_USAGE, "%s: client_ca_file %s: %s",
			                 w->cfg->file, ca,
			                 r < 0 ? gnutls_strerror(r) : "no certificate in it");
	}
	gnutls_certificate_free_credentials(cred);
	if (code == EXIT_OK)
		check_key_usage(s, &cert);
	return code;
}

/* "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2": the versions from min to max (TLS12..TLS13 by default). */
static void priorities(struct serve_web *w)
{
	unsigned lo = w->cfg->min_version ? w->cfg->min_version : 0x0303;
	unsigned hi = w->cfg->max_version ? w->cfg->max_version : 0x0304;
	int n = snprintf(w->priorities, sizeof(w->priorities), "NORMAL:-VERS-ALL");
	for (unsigned v = hi; v >= lo && v >= 0x0301 && n > 0 && (size_t)n < sizeof(w->priorities); v--)
		n += snprintf(w->priorities + n, sizeof(w->priorities) - (size_t)n, ":+VERS-TLS1.%u",
		              v - 0x0301);
}

int serve_web_load(struct serve *s, const char *file)
{
	struct serve_web *w = &s->web;
	pthread_mutex_init(&w->cache_lock, NULL);
	if (!file)
		return EXIT_OK;
	int r = ga_webconfig_load(s->ctx, file, &w->cfg);
	if (r < 0)
		return cli_error(s->cli, "serve", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                 ga_ctx_errmsg(s->ctx));
	char why[256];
	if ((r = serve_auth_init(&w->auth, w->cfg, why, sizeof(why))) < 0)
		return cli_error(s->cli, "serve", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s: %s", file,
		                 why);
	if (!w->cfg->tls)
		return EXIT_OK;
	if (w->cfg->client_ca_system &&
	    (r = ga_webconfig_read_system_cas(s->ctx, w->cfg, getenv("SSL_CERT_FILE"))) < 0)
		return cli_error(s->cli, "serve", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s: %s", file,
		                 ga_ctx_errmsg(s->ctx));
	priorities(w);
	return check_pems(s);
}

void serve_web_release(struct serve_web *w)
{
	ga_webconfig_free(w->cfg);
	serve_auth_release(&w->auth);
	explicit_bzero(w->cache, sizeof(w->cache));
	pthread_mutex_destroy(&w->cache_lock);
}

size_t serve_web_tls_options(const struct serve *s, struct MHD_OptionItem *opts)
{
	const struct serve_web *w = &s->web;
	if (!w->cfg || !w->cfg->tls)
		return 0;
	size_t n = 0;
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, w->cfg->key_pem };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, w->cfg->cert_pem };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)w->priorities };
	if (w->cfg->ca_pem) /* libmicrohttpd then asks the client for a certificate */
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, w->cfg->ca_pem };
	return n;
}

int serve_web_systemd_fds(struct cli *cli, int *fds, size_t max, size_t *n)
{
	const char *pid = getenv("LISTEN_PID"), *nfds = getenv("LISTEN_FDS");
	char *end = NULL;
	long p = pid ? strtol(pid, &end, 10) : 0;
	if (!pid || !nfds || *end || p != (long)getpid())
		return cli_error(
		        cli, "serve", EXIT_USAGE,
		        "--web.systemd-socket: no socket from systemd (LISTEN_PID/LISTEN_FDS are not "
		        "set for this process: start it from a .socket unit or systemd-socket-activate)");
	long k = strtol(nfds, &end, 10);
	if (*end || k < 1 || (size_t)k > max)
		return cli_error(cli, "serve", EXIT_USAGE,
		                 "--web.systemd-socket: LISTEN_FDS=%s: 1 to %zu sockets", nfds, max);
	for (int i = 0; i < (int)k; i++) {
		int fd = 3 + i, on = 0;
		socklen_t len = sizeof(on);
		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) < 0 || !on)
			return cli_error(cli, "serve", EXIT_USAGE,
			                 "--web.systemd-socket: descriptor %d is not a listening socket", fd);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		fds[i] = fd;
	}
	*n = (size_t)k;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return EXIT_OK;
}

/* The client's certificate, as client_auth_type asks: NULL when it passes. */
static const char *refuse_cert(const struct serve_web *w, struct MHD_Connection *c)
{
	enum ga_client_auth ca = w->cfg->client_auth;
	if (!w->cfg->tls || ca == GA_CLIENT_AUTH_NONE)
		return NULL;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	gnutls_session_t sess = ci ? (gnutls_session_t)ci->tls_session : NULL;
	unsigned n = 0;
	if (!sess || !gnutls_certificate_get_peers(sess, &n) || n == 0)
		return ca == GA_CLIENT_AUTH_REQUIRE_VERIFY ? "a client certificate is required\n" : NULL;
	unsigned status = 0;
	if (gnutls_certificate_verify_peers2(sess, &status) < 0 || status != 0)
		return "the client certificate is not signed by the configured client CA\n";
	return NULL;
}

const char SERVE_WEB_SUSPENDED[] = "";

enum auth_result { AUTH_OK, AUTH_BAD, AUTH_LIMITED, AUTH_QUEUED };

/*
 * A pair that matched before costs a SHA-256, here; any other a token of the
 * bcrypt budget and a bcrypt on a worker thread (serve-auth.c), an unknown
 * user's against the hash of the same cost made at start.
 */
static enum auth_result password_ok(struct serve_web *w, struct MHD_Connection *c, struct serve_req *rq,
                                    const char *user, const char *pass, unsigned *retry_s)
{
	size_t i = 0;
	while (i < w->cfg->n_users && strcmp(w->cfg->users[i].name, user))
		i++;
	unsigned char sum[SHA256_DIGEST_LENGTH];
	SHA2_CTX h;
	SHA256Init(&h);
	SHA256Update(&h, (const uint8_t *)user, strlen(user) + 1);
	SHA256Update(&h, (const uint8_t *)pass, strlen(pass));
	SHA256Final(sum, &h);
	bool known = i < w->cfg->n_users, hit = false;
	if (known) {
		pthread_mutex_lock(&w->cache_lock);
		unsigned char diff = 0;
		for (size_t k = 0; k < sizeof(sum); k++)
			diff |= (unsigned char)(w->cache[i][k] ^ sum[k]);
		hit = w->cached[i] && diff == 0;
		pthread_mutex_unlock(&w->cache_lock);
	}
	enum auth_result res = AUTH_OK;
	if (hit)
		goto out;
	serve_auth_client_addr(c, rq->addr);
	if (strlen(pass) >= sizeof(rq->pass) || !serve_auth_take(&w->auth, rq->addr, retry_s)) {
		*retry_s = *retry_s ? *retry_s : 1;
		res = strlen(pass) >= sizeof(rq->pass) ? AUTH_BAD : AUTH_LIMITED;
		goto out;
	}
	rq->user_index = i;
	memcpy(rq->sum, sum, sizeof(sum));
	memcpy(rq->pass, pass, strlen(pass) + 1);
	rq->c = c;
	if (serve_auth_queue(&w->auth, rq)) {
		res = AUTH_QUEUED;
		goto out;
	}
	/* the queue is full (or serve stops): the token back, and the client retries */
	explicit_bzero(rq->pass, sizeof(rq->pass));
	serve_auth_give_back(&w->auth, rq->addr);
	*retry_s = 1;
	res = AUTH_LIMITED;
out:
	explicit_bzero(sum, sizeof(sum));
	return res;
}

static const char *limited(struct serve_web *w, struct serve_req *rq, unsigned retry_s, unsigned *status)
{
	__atomic_fetch_add(&w->n_auth_refused, 1, __ATOMIC_RELAXED);
	*status = MHD_HTTP_TOO_MANY_REQUESTS;
	snprintf(rq->msg, sizeof(rq->msg),
	         "too many failed authentications from this address or in all: retry in %u s\n", retry_s);
	return rq->msg;
}

/*
 * rate_limit as the exporter toolkit applies it (golang.org/x/time/rate
 * behind web/handler.go): one bucket for the server, full at start, `burst`
 * tokens, one more every `interval`; each request takes one before anything
 * else is checked, and finds it or gets 429. interval 0: no limit; below 0:
 * an unlimited rate; a burst of 0 or less: every request refused.
 */
static bool rate_allow(struct serve_web *w)
{
	const struct ga_webconfig *cfg = w->cfg;
	if (!cfg->rate_limit.set || cfg->rate_limit.interval_ns == 0 || cfg->rate_limit.interval_ns < 0)
		return true;
	if (cfg->rate_limit.burst <= 0)
		return false;
	double burst = (double)cfg->rate_limit.burst, now = serve_now_mono();
	pthread_mutex_lock(&w->cache_lock);
	if (!w->rl_started) {
		w->rl_started = true;
		w->rl_tokens = burst;
		w->rl_t = now;
	}
	w->rl_tokens += (now - w->rl_t) * 1e9 / (double)cfg->rate_limit.interval_ns;
	w->rl_t = now;
	if (w->rl_tokens > burst)
		w->rl_tokens = burst;
	bool ok = w->rl_tokens >= 1;
	if (ok)
		w->rl_tokens -= 1;
	pthread_mutex_unlock(&w->cache_lock);
	return ok;
}

static const char unauthorized[] =
        "unauthorized: basic authentication with a user of the web configuration is required\n";

const char *serve_web_refuse(struct serve *s, struct MHD_Connection *c, struct serve_req *rq,
                             unsigned *status)
{
	struct serve_web *w = &s->web;
	if (!w->cfg)
		return NULL;
	if (!rq->rated) {
		rq->rated = true;
		if (!rate_allow(w)) {
			__atomic_fetch_add(&w->n_rate_refused, 1, __ATOMIC_RELAXED);
			*status = MHD_HTTP_TOO_MANY_REQUESTS;
			return "Too Many Requests\n";
		}
	}
	const char *why = refuse_cert(w, c);
	if (why) {
		*status = MHD_HTTP_FORBIDDEN;
		return why;
	}
	if (!w->cfg->n_users)
		return NULL;
	if (rq->auth == SERVE_AUTH_DONE) { /* a worker checked it, or an earlier call of this request */
		if (rq->auth_ok)
			return NULL;
		if (rq->auth_limited)
			return limited(w, rq, 1, status);
		*status = MHD_HTTP_UNAUTHORIZED;
		return unauthorized;
	}
	if (rq->auth == SERVE_AUTH_PENDING)
		return SERVE_WEB_SUSPENDED; /* not resumed yet (a spurious call) */
	char *pass = NULL;
	char *user = MHD_basic_auth_get_username_password(c, &pass);
	unsigned retry_s = 0;
	enum auth_result res = user && pass ? password_ok(w, c, rq, user, pass, &retry_s) : AUTH_BAD;
	if (pass)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	if (res == AUTH_QUEUED)
		return SERVE_WEB_SUSPENDED;
	rq->auth = SERVE_AUTH_DONE;
	rq->auth_ok = res == AUTH_OK;
	rq->auth_limited = res == AUTH_LIMITED;
	if (res == AUTH_OK)
		return NULL;
	if (res == AUTH_LIMITED)
		return limited(w, rq, retry_s, status);
	*status = MHD_HTTP_UNAUTHORIZED;
	return unauthorized;
}

/*
 * Plain HTTP sent to a TLS listener. GnuTLS would fail the handshake and
 * libmicrohttpd close the connection without a word, so `curl http://` to an
 * https port saw an empty reply. Instead, as Go's net/http server does, the
 * first bytes of each TLS connection are looked at before GnuTLS has them: a
 * TLS record starts with its content type (20..24, a ClientHello 22; an SSLv2
 * hello has the top bit set), an HTTP request line with an upper-case method
 * letter. On a letter the request is read off, a 400 with a hint is written in
 * the clear and the read fails, so libmicrohttpd closes the connection.
 *
 * How: libmicrohttpd 0.9.75 hands GnuTLS the socket itself
 * (gnutls_transport_set_int) and GnuTLS reads it with recv(2). At
 * MHD_CONNECTION_NOTIFY_STARTED, before the handshake, the session's pull
 * functions are replaced by guard_pull/guard_wait, whose transport pointer is
 * the session (to find the socket and swap themselves out): after the first
 * read they hand over to plain_pull/plain_wait on the socket, GnuTLS's own
 * behaviour. A libmicrohttpd that sets its own transport is left alone.
 */
static const char plain_answer[] = "HTTP/1.0 400 Bad Request\r\n"
                                   "Content-Type: text/plain; charset=utf-8\r\n"
                                   "Connection: close\r\n"
                                   "\r\n"
                                   "This port speaks HTTPS (TLS): the request was sent as plain "
                                   "HTTP. Use https:// in the URL (Prometheus: scheme: https).\n";

static int session_fd(gnutls_session_t sess)
{
	int r = -1, w = -1;
	gnutls_transport_get_int2(sess, &r, &w);
	return w; /* the send side stays the socket */
}

static ssize_t plain_pull(gnutls_transport_ptr_t p, void *buf, size_t n)
{
	return recv((int)(intptr_t)p, buf, n, 0);
}

static int plain_wait(gnutls_transport_ptr_t p, unsigned ms)
{
	struct pollfd pfd = { .fd = (int)(intptr_t)p, .events = POLLIN };
	return poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);
}

static int guard_wait(gnutls_transport_ptr_t p, unsigned ms)
{
	return plain_wait((gnutls_transport_ptr_t)(intptr_t)session_fd(p), ms);
}

/* The first byte of a connection: an HTTP method's letter, not a TLS record. */
static bool plain_http(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static ssize_t guard_pull(gnutls_transport_ptr_t p, void *buf, size_t n)
{
	gnutls_session_t sess = p;
	int fd = session_fd(sess);
	ssize_t got = recv(fd, buf, n, 0);
	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return got; /* nothing yet: look at the first byte when it comes */
	gnutls_transport_set_int2(sess, fd, fd);
	gnutls_transport_set_pull_function(sess, plain_pull);
	gnutls_transport_set_pull_timeout_function(sess, plain_wait);
	if (got <= 0 || !plain_http(((const unsigned char *)buf)[0]))
		return got;
	/* read the request off (a bounded amount) so closing does not reset the answer away */
	char junk[4096];
	for (int i = 0; i < 16 && recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0; i++)
		;
	(void)!send(fd, plain_answer, sizeof(plain_answer) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
	errno = ECONNRESET;
	return -1;
}

void serve_web_guard_plain(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	const union MHD_ConnectionInfo *fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	gnutls_session_t sess = ci ? (gnutls_session_t)ci->tls_session : NULL;
	if (!sess || !fi)
		return; /* not TLS */
	int r = -1, w = -1;
	gnutls_transport_get_int2(sess, &r, &w);
	if (r != fi->connect_fd || w != fi->connect_fd)
		return; /* libmicrohttpd has its own transport: leave it be */
	gnutls_transport_set_ptr2(sess, sess, (gnutls_transport_ptr_t)(intptr_t)fi->connect_fd);
	gnutls_transport_set_pull_function(sess, guard_pull);
	gnutls_transport_set_pull_timeout_function(sess, guard_wait);
}
