/*
 * cmd-serve.c - `gpuaudit serve`: a Prometheus exporter and small read-only
 * JSON API (docs/serve.md, docs/metrics.md). This file parses the options
 * and runs the server: one background thread collects and renders
 * (serve-collect.c), libmicrohttpd's single polling thread answers from the
 * last rendering (serve-http.c), so a scrape never collects and a wedged GPU
 * never blocks one. Safe by default: loopback, GET and HEAD only, no request
 * bodies, a connection limit, a whole-request deadline and a cap on incomplete
 * requests (serve-conns.c, swept from the main thread); nothing here runs a
 * shell. --once collects once and prints /metrics.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve-int.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-analyze.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"

#define DEFAULT_LISTEN "127.0.0.1:9747"

/* "127.0.0.1:9747", "[::1]:9747", "0.0.0.0:9747", "localhost:9747"; port 0 picks a free one. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, bool *v6)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	char *end = NULL;
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port < 0 || port > 65535)
		return -1;
	memset(ss, 0, sizeof(*ss));
	size_t hl = strlen(host);
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -1;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a);
		*v6 = true;
		return 0;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	if (!host[0]) /* ":9747", the exporter toolkit's form: every IPv4 address */
		snprintf(host, sizeof(host), "0.0.0.0");
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
		return -1;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	*len = sizeof(*a);
	*v6 = false;
	return 0;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *ret)
{
	char *end = NULL;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

enum { O_TELEMETRY = 300, O_WEB_CONFIG, O_SYSTEMD_SOCKET };

struct serve_args {
	struct serve *s;
	const char *listen[SERVE_MAX_LISTEN];
	size_t n_listen;
	const char *web_config;
	bool once, openmetrics, systemd_socket;
};

static bool telemetry_path_ok(const char *p)
{
	static const char *const taken[] = { "/",       "/healthz",     "/health",
		                             "/readyz", "/v1/snapshot", "/v1/check" };
	if (p[0] != '/' || strlen(p) > 128 || strpbrk(p, "?# \t\r\n%"))
		return false;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(p, taken[i]))
			return false;
	return true;
}

static int serve_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct serve_args *a = st;
	struct serve *s = a->s;
	int k = snap_opt(cli, cmd, opt, arg, &s->so);
	if (k != 0)
		return k < 0 ? -k : CLI_NEXT;
	unsigned v;
	switch (opt) {
	case 'l':
		if (a->n_listen >= SERVE_MAX_LISTEN)
			return cli_error(cli, cmd, EXIT_USAGE, "at most %d listen addresses",
			                 SERVE_MAX_LISTEN);
		a->listen[a->n_listen++] = arg;
		return CLI_NEXT;
	case O_TELEMETRY:
		if (!telemetry_path_ok(arg))
			return cli_error(
			        cli, cmd, EXIT_USAGE,
			        "--web.telemetry-path wants a path like /metrics (not /, /healthz, /health, "
			        "/readyz or /v1/...), not '%s'",
			        arg);
		s->telemetry_path = arg;
		return CLI_NEXT;
	case O_WEB_CONFIG:
		a->web_config = arg;
		return CLI_NEXT;
	case O_SYSTEMD_SOCKET:
		a->systemd_socket = true;
		return CLI_NEXT;
	case 'i':
		if (ga_duration_parse(arg, &s->interval_s) < 0 || s->interval_s < 1 || s->interval_s > 86400)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--interval wants a duration between 1s and 1d (30s, 5m), not '%s'",
			                 arg);
		return CLI_NEXT;
	case 'P':
		s->policy_file = arg;
		return CLI_NEXT;
	case 'C':
		s->class_name = arg;
		return CLI_NEXT;
	case 'D':
		s->nfd_dir = arg;
		return CLI_NEXT;
	case 'E':
		if (parse_uint(arg, 60, 30u * 86400, &v) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--nfd-expiry wants seconds between 60 and 2592000, not '%s'", arg);
		s->nfd_expiry_s = v;
		return CLI_NEXT;
	case 'K':
		s->kmsg_file = arg;
		return CLI_NEXT;
	case 'S':
		s->state_file = arg;
		return CLI_NEXT;
	case 'W': {
		double w = 0;
		if (ga_duration_parse(arg, &w) < 0 || w < 1 || w > GA_NVML_EVENTS_MAX_WAIT_MS / 1000)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--nvml-events wants a wait between 1s and 10m (30s, 1m), not '%s'",
			                 arg);
		s->ev.wait_ms = (unsigned)(w * 1000);
		return CLI_NEXT;
	}
	case 'm':
		if (parse_uint(arg, 1, 4096, &s->max_conns) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--max-connections wants a number between 1 and 4096, not '%s'",
			                 arg);
		return CLI_NEXT;
	case 'c':
		if (parse_uint(arg, 1, 3600, &s->conn_timeout_s) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--connection-timeout wants seconds between 1 and 3600, not '%s'",
			                 arg);
		return CLI_NEXT;
	case 'T':
		if (parse_uint(arg, 1, 3600, &s->request_timeout_s) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--request-timeout wants seconds between 1 and 3600, not '%s'", arg);
		return CLI_NEXT;
	case 'M':
		if (parse_uint(arg, 1, 4096, &s->max_conns_per_ip) < 0)
			return cli_error(
			        cli, cmd, EXIT_USAGE,
			        "--max-connections-per-ip wants a number between 1 and 4096, not '%s'", arg);
		return CLI_NEXT;
	case 'o':
		a->once = true;
		return CLI_NEXT;
	case 'O':
		a->openmetrics = true;
		return CLI_NEXT;
	}
	return CLI_UNKNOWN;
}

static int serve_parse(struct cli *cli, int argc, char **argv, struct serve_args *a)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "listen", required_argument, NULL, 'l' },
		{ "web.listen-address", required_argument, NULL, 'l' },
		{ "web.telemetry-path", required_argument, NULL, O_TELEMETRY },
		{ "web.config.file", required_argument, NULL, O_WEB_CONFIG },
		{ "web.systemd-socket", no_argument, NULL, O_SYSTEMD_SOCKET },
		{ "interval", required_argument, NULL, 'i' },
		{ "policy", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "nfd-dir", required_argument, NULL, 'D' },
		{ "nfd-expiry", required_argument, NULL, 'E' },
		{ "kmsg", required_argument, NULL, 'K' },
		{ "state", required_argument, NULL, 'S' },
		{ "nvml-events", required_argument, NULL, 'W' },
		{ "max-connections", required_argument, NULL, 'm' },
		{ "connection-timeout", required_argument, NULL, 'c' },
		{ "request-timeout", required_argument, NULL, 'T' },
		{ "max-connections-per-ip", required_argument, NULL, 'M' },
		{ "once", no_argument, NULL, 'o' },
		{ "openmetrics", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int code = cli_parse(cli, "serve", argc, argv, SNAP_SHORT_OPTIONS, opts, serve_opt, a);
	if (code != CLI_NEXT || (code = cli_no_operands(cli, "serve", argc, argv)) != CLI_NEXT)
		return code;
	if (a->s->class_name && !a->s->policy_file)
		return cli_error(cli, "serve", EXIT_USAGE, "--class needs --policy");
	if (a->s->ev.wait_ms && a->s->so.from)
		return cli_error(cli, "serve", EXIT_USAGE,
		                 "--nvml-events waits on this machine's GPUs; it does not go with --from");
	if (a->openmetrics && !a->once)
		return cli_error(cli, "serve", EXIT_USAGE,
		                 "--openmetrics goes with --once (a server negotiates)");
	if (a->systemd_socket && a->n_listen)
		return cli_error(
		        cli, "serve", EXIT_USAGE,
		        "--web.systemd-socket takes the sockets systemd passes: no --web.listen-address");
	return CLI_NEXT;
}

/* --once: one collection, the exposition on stdout. An exit code. */
static int serve_once(struct serve *s, bool openmetrics)
{
	struct cli *cli = s->cli;
	struct rendered first;
	serve_rendered_init(&first);
	int code = EXIT_OK;
	int r = serve_events_once(s);
	if (r == 0)
		r = serve_collect_once(s, &first);
	if (r < 0) {
		code = cli_error(cli, "serve", EXIT_INTERNAL, "rendering failed: %s", strerror(-r));
		goto out;
	}
	if (!s->node || s->nfd_failed || s->state_failed) { /* the reason was printed */
		code = EXIT_USAGE;
		goto out;
	}
	enum ga_prom_format fmt = openmetrics ? GA_PROM_OPENMETRICS : GA_PROM_TEXT;
	struct ga_buf *b = openmetrics ? &first.om : &first.text;
	if ((r = ga_prom_render_tail(fmt, -1, b)) < 0) {
		code = cli_error(cli, "serve", EXIT_INTERNAL, "rendering failed: %s", strerror(-r));
		goto out;
	}
	fwrite(b->data, 1, b->len, cli->out);
out:
	serve_rendered_release(&first);
	return code;
}

/* One listening socket: an address of --web.listen-address, or a socket systemd passed. */
struct listener {
	const char *spec; /* as given; NULL for a systemd socket */
	struct sockaddr_storage addr;
	bool v6;
	int fd; /* systemd's or ours (bind_listener), -1 before */
	struct MHD_Daemon *d;
};

/*
 * Bind and listen on l->addr ourselves, so that a port another process holds
 * is refused with the reason (libmicrohttpd's own bind loses errno). Only
 * SO_REUSEADDR, as every server: a restart may rebind over connections in
 * TIME_WAIT, but a second listener on the same port fails with EADDRINUSE.
 * Never SO_REUSEPORT: with it, a second serve on the port also "listens" and
 * the kernel splits the connections between the two. 0 or -errno.
 */
static int bind_listener(struct listener *l)
{
	int fd = socket(l->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), on = 1, r = 0;
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (l->v6) /* [::]:P is IPv6 only; 0.0.0.0:P is its own listener */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
	socklen_t len = l->v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if (bind(fd, (const struct sockaddr *)&l->addr, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	l->fd = fd;
	return 0;
}

/*
 * The daemon: MHD's connection limit and idle timeout, and our table
 * (serve-conns.c) told of every accept, close and finished request. No
 * MHD_OPTION_PER_IP_CONNECTION_LIMIT: it refuses the newcomer, which would
 * turn away a scraper sharing an address with slow clients; the table closes
 * that address's oldest incomplete request instead (docs/serve.md, "Limits").
 */
static struct MHD_Daemon *start_daemon(struct serve *s, const struct listener *l)
{
	struct MHD_OptionItem o[16];
	size_t n = serve_web_tls_options(s, o);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
	                 (l->v6 ? MHD_USE_IPv6 : 0) | (n ? MHD_USE_TLS : 0);
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, l->fd, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, s->max_conns, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, s->conn_timeout_s, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32 * 1024, NULL };
	o[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return MHD_start_daemon(flags, 0, NULL, NULL, serve_handle, s, MHD_OPTION_ARRAY, o,
	                        MHD_OPTION_NOTIFY_CONNECTION, serve_conns_notify, &s->conns,
	                        MHD_OPTION_NOTIFY_COMPLETED, serve_conns_completed, &s->conns,
	                        MHD_OPTION_END);
}

/* At most once a minute: how many connections the limits closed since the last report. */
static void report_cuts(struct serve *s, double now, double *last_mono, uint64_t last[2])
{
	if (now - *last_mono < 60)
		return;
	*last_mono = now;
	uint64_t n[2];
	serve_conns_counts(&s->conns, &n[0], &n[1]);
	if (n[0] == last[0] && n[1] == last[1])
		return;
	serve_warn(s,
	           "closed %llu connection(s) at the %u s request deadline and %llu stalled one(s) "
	           "to make room, in the last minute",
	           (unsigned long long)(n[0] - last[0]), s->request_timeout_s,
	           (unsigned long long)(n[1] - last[1]));
	fflush(s->cli->err);
	last[0] = n[0];
	last[1] = n[1];
}

/* This thread: wait for SIGINT or SIGTERM (SIGHUP is ignored), sweeping the deadlines 4 times a second. */
static int wait_for_stop(struct serve *s, const sigset_t *sigs)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 250 * 1000 * 1000 };
	double last_mono = serve_now_mono();
	uint64_t last[2] = { 0, 0 };
	for (;;) {
		int sig = sigtimedwait(sigs, NULL, &tick);
		double now = serve_now_mono();
		serve_conns_sweep(&s->conns, now);
		report_cuts(s, now, &last_mono, last);
		if (sig == SIGINT || sig == SIGTERM)
			return sig;
	}
}

static void stop_collector(struct serve *s, pthread_t thr)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(thr, NULL);
}

/* Where a listener listens, as a URL for the log line. */
static void listener_url(const struct serve *s, const struct listener *l, char *buf, size_t n)
{
	const char *scheme = s->web.cfg && s->web.cfg->tls ? "https" : "http";
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_BIND_PORT);
	unsigned port = di ? (unsigned)di->port : 0u;
	if (l->spec) {
		const char *colon = strrchr(l->spec, ':');
		int hl = (int)(colon - l->spec);
		snprintf(buf, n, "%s://%.*s:%u%s", scheme, hl ? hl : 7, hl ? l->spec : "0.0.0.0", port,
		         s->telemetry_path);
	} else {
		snprintf(buf, n, "%s://(systemd socket %d, port %u)%s", scheme, l->fd, port,
		         s->telemetry_path);
	}
}

/* The server: signals to this thread, the HTTP daemons, the collector; until SIGINT or SIGTERM. */
static int serve_run(struct serve *s, struct listener *ls, size_t n)
{
	struct cli *cli = s->cli;
	/* signals: handled by this thread only (sigwait); the others inherit the mask */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	serve_conns_init(&s->conns, s->max_conns, s->max_conns_per_ip, s->request_timeout_s);
	int code = EXIT_OK, r;
	pthread_t thr;
	if ((r = serve_auth_start(&s->web.auth, &s->web)) != 0) {
		code = cli_error(cli, "serve", EXIT_INTERNAL, "cannot start the password checkers: %s",
		                 strerror(r));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (ls[i].fd < 0 && (r = bind_listener(&ls[i])) < 0) {
			if (r == -EADDRINUSE)
				code = cli_error(cli, "serve", EXIT_UNAVAILABLE,
				                 "cannot listen on %s: address already in use (another "
				                 "process listens on that port: stop it, or pick another "
				                 "port with --web.listen-address)",
				                 ls[i].spec);
			else
				code = cli_error(cli, "serve", EXIT_UNAVAILABLE, "cannot listen on %s: %s",
				                 ls[i].spec, strerror(-r));
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		errno = 0;
		if (!(ls[i].d = start_daemon(s, &ls[i]))) {
			code = cli_error(cli, "serve", EXIT_UNAVAILABLE, "cannot listen on %s: %s",
			                 ls[i].spec ? ls[i].spec : "the systemd socket",
			                 errno ? strerror(errno) : "libmicrohttpd failed to start");
			goto out;
		}
		serve_conns_defer_accept(ls[i].d, s->conn_timeout_s);
	}
	if ((code = serve_events_start(s)) != EXIT_OK)
		goto out;
	if ((r = pthread_create(&thr, NULL, serve_collector, s)) != 0) {
		code = cli_error(cli, "serve", EXIT_INTERNAL, "cannot start the collector: %s", strerror(r));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char url[256];
		listener_url(s, &ls[i], url, sizeof(url));
		fprintf(cli->err, "gpuaudit serve: listening on %s (every %g s)\n", url, s->interval_s);
	}
	fflush(cli->err);
	int sig = wait_for_stop(s, &sigs); /* nothing to reload on SIGHUP: the policy is read once */
	fprintf(cli->err, "gpuaudit serve: %s: shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	stop_collector(s, thr);
out:
	serve_events_stop(s);          /* kills a helper in its event wait */
	serve_auth_stop(&s->web.auth); /* resumes every suspended request before the daemons stop */
	for (size_t i = 0; i < n; i++) /* a socket no daemon took is left to the exit */
		if (ls[i].d)
			MHD_stop_daemon(ls[i].d); /* closes the listening socket it was given */
	serve_conns_release(&s->conns);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	return code;
}

/* The listeners: each --web.listen-address (default 127.0.0.1:9747), or systemd's sockets. */
static int listeners(struct serve *s, const struct serve_args *a, struct listener *ls, size_t *n)
{
	struct cli *cli = s->cli;
	memset(ls, 0, SERVE_MAX_LISTEN * sizeof(*ls));
	if (a->systemd_socket) {
		int fds[SERVE_MAX_LISTEN];
		int code = serve_web_systemd_fds(cli, fds, SERVE_MAX_LISTEN, n);
		for (size_t i = 0; code == EXIT_OK && i < *n; i++)
			ls[i].fd = fds[i];
		return code;
	}
	size_t k = a->n_listen ? a->n_listen : 1;
	for (size_t i = 0; i < k; i++) {
		socklen_t len = 0;
		ls[i].spec = a->n_listen ? a->listen[i] : DEFAULT_LISTEN;
		ls[i].fd = -1;
		if (parse_listen(ls[i].spec, &ls[i].addr, &len, &ls[i].v6) < 0)
			return cli_error(
			        cli, "serve", EXIT_USAGE,
			        "--web.listen-address (--listen) wants ADDRESS:PORT (127.0.0.1:9747, "
			        "[::1]:9747, :9747), not '%s'",
			        ls[i].spec);
	}
	*n = k;
	return EXIT_OK;
}

int cmd_serve(struct cli *cli, int argc, char **argv)
{
	struct serve s;
	memset(&s, 0, sizeof(s));
	s.cli = cli;
	snap_opts_init(&s.so);
	s.interval_s = 30;
	s.nfd_expiry_s = 3600;
	s.max_conns = 512;
	s.conn_timeout_s = 10;
	s.max_conns_per_ip = 16;
	s.request_timeout_s = 5;
	s.running_since = -1;
	s.telemetry_path = "/metrics";
	s.ev.cancel[0] = s.ev.cancel[1] = -1;
	struct serve_args a = { .s = &s };
	int code = serve_parse(cli, argc, argv, &a);
	if (code != CLI_NEXT)
		return code;
	char dl_err[512];
	if (serve_dl_load(dl_err, sizeof(dl_err)) < 0)
		return cli_error(cli, "serve", EXIT_UNAVAILABLE, "%s", dl_err);
	struct listener ls[SERVE_MAX_LISTEN];
	size_t n_ls = 0;
	if ((!a.once && (code = listeners(&s, &a, ls, &n_ls)) != EXIT_OK) ||
	    (code = snap_validate(cli, "serve", &s.so)) != EXIT_OK ||
	    (code = snap_ctx(cli, "serve", &s.so, &s.ctx)) != EXIT_OK)
		return code;
	serve_rendered_init(&s.pub);
	ga_kev_counter_init(&s.kev);
	if ((code = serve_web_load(&s, a.web_config)) != EXIT_OK)
		goto out;
	const struct ga_policy_class *cls = NULL;
	int r = s.policy_file ? cli_policy(s.ctx, s.policy_file, s.class_name, NULL, &s.policy, &cls) : 0;
	if (r < 0) {
		code = cli_error(cli, "serve", cli_exit_for(r), "%s", ga_ctx_errmsg(s.ctx));
		goto out;
	}
	char why[600];
	if (s.state_file && (r = cli_state_load(s.ctx, s.state_file, &s.hstate, why, sizeof(why))) < 0) {
		code = cli_error(cli, "serve", cli_exit_for(r), "%s", why);
		goto out;
	}
	bool live = !s.so.from && !strcmp(ga_ctx_root(s.ctx), "/");
	s.vendor_wanted = s.so.vendor == GA_VENDOR_ON || (s.so.vendor == GA_VENDOR_AUTO && live);
	GA_SET(s.stats.interval_s, s.interval_s);
	code = a.once ? serve_once(&s, a.openmetrics) : serve_run(&s, ls, n_ls);
out:
	serve_web_release(&s.web);
	serve_rendered_release(&s.pub);
	ga_kev_counter_release(&s.kev);
	ga_node_free(s.node);
	serve_held_release(&s);
	ga_policy_free(s.policy);
	ga_hstate_release(&s.hstate);
	serve_events_stop(&s);
	ga_nvlink_watch_release(&s.nvlink);
	ga_ctx_free(s.ctx);
	return code;
}
