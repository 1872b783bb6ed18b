/*
 * cmd-serve.c - `gpuaudit serve`: a Prometheus exporter and small read-only
 * JSON API (docs/serve.md, docs/metrics.md).
 *
 * One background thread collects the node every --interval (vendor libraries
 * run in a helper process under the --timeout deadline, see isolate.h),
 * renders everything a request can ask for, and swaps it in under a mutex.
 * libmicrohttpd's single polling thread only copies the last rendering out,
 * so a scrape never collects and a wedged GPU never blocks one. Safe by
 * default: loopback, GET and HEAD only, no request bodies, a connection
 * limit and a per-connection timeout; nothing here runs a shell.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/prom.h"
#include "serve-accept.h"

#define DEFAULT_LISTEN "127.0.0.1:9747"
#define MAX_BODY (8u << 20) /* cap on any one rendering */

/* What a request can be answered with: rendered by the collector, read by the server. */
struct rendered {
	struct ga_buf text, om, snapshot, check;
};

struct serve {
	struct cli *cli;
	/* options */
	struct snap_opts so;
	const char *policy_file, *class_name, *nfd_dir, *kmsg_file;
	double interval_s;
	long nfd_expiry_s;
	unsigned max_conns, conn_timeout_s;
	/* collector-only state */
	struct ga_ctx *ctx;
	struct ga_policy *policy;
	struct ga_node *node; /* the last good snapshot */
	struct ga_kev_counter kev;
	struct ga_prom_stats stats;
	struct ga_obool kmsg_readable;
	bool vendor_wanted;
	bool nfd_failed; /* the last collection could not write the NFD file */
	/* shared with the server thread, under lock */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct rendered pub;
	bool have_pub;
	double running_since; /* monotonic seconds; < 0 when no collection runs */
	double last_done_mono;
	bool stop;
};

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void rendered_init(struct rendered *r)
{
	ga_buf_init(&r->text, MAX_BODY);
	ga_buf_init(&r->om, MAX_BODY);
	ga_buf_init(&r->snapshot, MAX_BODY);
	ga_buf_init(&r->check, MAX_BODY);
}

static void rendered_release(struct rendered *r)
{
	ga_buf_release(&r->text);
	ga_buf_release(&r->om);
	ga_buf_release(&r->snapshot);
	ga_buf_release(&r->check);
}

static void warn(struct serve *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct serve *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(s->cli->err, "gpuaudit serve: ");
	vfprintf(s->cli->err, fmt, ap);
	fputc('\n', s->cli->err);
	va_end(ap);
}

/* /v1/check: {policy, class, result, violations, unknowns, findings}; without a policy only the findings. */
static int render_check_json(struct serve *s, const struct ga_check *chk, const struct ga_findings *f,
                             struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, true);
	ga_json_obj_begin(&w);
	ga_json_key(&w, "schema");
	ga_json_str(&w, "gpuaudit.serve-check/v1");
	ga_json_key(&w, "policy");
	ga_json_str(&w, s->policy ? s->policy->file : NULL);
	ga_json_key(&w, "class");
	ga_json_str(&w, chk && chk->cls ? chk->cls->name : NULL);
	ga_json_key(&w, "result");
	ga_json_str(&w, chk ? ga_check_result_name(chk->result) : NULL);
	ga_json_key(&w, "violations");
	if (chk)
		ga_json_u64(&w, chk->violations);
	else
		ga_json_null(&w);
	ga_json_key(&w, "unknowns");
	if (chk)
		ga_json_u64(&w, chk->unknowns);
	else
		ga_json_null(&w);
	ga_json_key(&w, "collected_at");
	if (s->stats.last_collection_s.set)
		ga_json_dbl(&w, s->stats.last_collection_s.v);
	else
		ga_json_null(&w);
	ga_json_key(&w, "findings");
	if (f)
		ga_findings_write_json(f, &w);
	else
		ga_json_null(&w);
	ga_json_obj_end(&w);
	return ga_json_finish(&w);
}

/* One collection: snapshot, class, findings or check, kernel log, NFD file; then render it all. */
static int collect_once(struct serve *s, struct rendered *out)
{
	double t0 = now_mono();
	bool failed = false;
	struct ga_node *node = NULL;
	struct ga_check chk = { 0 };
	struct ga_findings f;
	struct ga_nodeclass nc = { 0 };
	bool have_nc = false, have_chk = false;
	const struct ga_policy_class *pcls = NULL;
	ga_findings_init(&f);

	int r = snap_node(s->ctx, &s->so, &node);
	if (r == -ENOMEM)
		goto out;
	if (r < 0) {
		warn(s, "collection failed: %s", ga_ctx_errmsg(s->ctx));
		failed = true;
	} else {
		ga_node_free(s->node);
		s->node = node;
		node = NULL;
		if (s->node->nvml && s->node->nvml->timed_out.set && s->node->nvml->timed_out.v) {
			s->stats.vendor_timeouts_total++;
			failed = true;
		}
		if (s->node->rocm_smi && s->node->rocm_smi->timed_out.set && s->node->rocm_smi->timed_out.v) {
			s->stats.vendor_timeouts_total++;
			failed = true;
		}
	}
	const struct ga_node *n = s->node; /* this collection's, or the last good one */
	if (n) {
		if ((r = ga_nodeclass_compute(n, &nc)) < 0)
			goto out;
		have_nc = true;
		if (s->policy) {
			pcls = s->class_name ? ga_policy_find_class(s->policy, s->class_name)
			                     : ga_policy_match(s->policy, n);
			if ((r = ga_check_node(n, pcls, s->vendor_wanted, &chk)) < 0)
				goto out;
			have_chk = true;
		} else if ((r = ga_analyze_node(n, &f)) < 0) {
			goto out;
		}
		ga_findings_sort(have_chk ? &chk.findings : &f);
	}

	/* the kernel log: only what is new since the last read is counted */
	if (!s->so.from || s->kmsg_file) {
		if ((r = ga_kev_counter_begin(&s->kev, n ? n->host.boot_id : NULL)) < 0)
			goto out;
		r = s->kmsg_file ? ga_kmsg_read_file(s->ctx, s->kmsg_file, ga_kev_counter_line, &s->kev, NULL)
		                 : ga_kmsg_read_root(s->ctx, "dev/kmsg", ga_kev_counter_line, &s->kev, NULL);
		ga_kev_counter_end(&s->kev);
		if (r == -ENOMEM)
			goto out;
		bool ok = r == 0;
		if (s->kmsg_readable.set && s->kmsg_readable.v && !ok)
			warn(s, "kernel log unreadable: %s", ga_ctx_errmsg(s->ctx));
		s->kmsg_readable.v = ok;
		s->kmsg_readable.set = true;
		r = 0;
	}

	s->nfd_failed = false;
	if (s->nfd_dir && n) {
		struct ga_buf nfd;
		char err[512];
		ga_buf_init(&nfd, 64 * 1024);
		if (cli_nfd_labels(&nfd, "serve", n, have_chk ? &chk : NULL, s->nfd_expiry_s) < 0) {
			warn(s, "NFD labels exceed 64 KiB");
			failed = s->nfd_failed = true;
		} else if (cli_nfd_write(s->nfd_dir, &nfd, err, sizeof(err)) < 0) {
			warn(s, "%s", err);
			failed = s->nfd_failed = true;
		}
		ga_buf_release(&nfd);
	}

	s->stats.collections_total++;
	if (failed)
		s->stats.collection_errors_total++;
	double done = now_wall();
	s->stats.last_collection_s.v = done;
	s->stats.last_collection_s.set = true;
	if (!failed) {
		s->stats.last_success_s.v = done;
		s->stats.last_success_s.set = true;
	}
	s->stats.duration_s.v = now_mono() - t0;
	s->stats.duration_s.set = true;

	struct ga_prom_input in = {
		.version = GA_VERSION,
		.node = n,
		.cls = have_nc ? &nc : NULL,
		.findings = have_chk ? &chk.findings
		            : n      ? &f
		                     : NULL,
		.check = have_chk ? &chk : NULL,
		.pcls = pcls,
		.kev = s->kmsg_readable.set ? &s->kev : NULL,
		.kmsg_readable = s->kmsg_readable,
		.stats = s->stats,
	};
	if ((r = ga_prom_render(&in, GA_PROM_TEXT, &out->text)) < 0)
		goto out;
	if ((r = ga_prom_render(&in, GA_PROM_OPENMETRICS, &out->om)) < 0)
		goto out;
	if (n) {
		struct ga_json w;
		ga_json_init(&w, &out->snapshot, true);
		if ((r = ga_node_write_json(n, &w)) < 0 || (r = ga_json_finish(&w)) < 0)
			goto out;
	}
	r = render_check_json(s, have_chk ? &chk : NULL, n ? (have_chk ? &chk.findings : &f) : NULL,
	                      &out->check);
out:
	ga_node_free(node);
	ga_check_release(&chk);
	ga_findings_release(&f);
	if (have_nc)
		ga_nodeclass_release(&nc);
	return r;
}

static void publish(struct serve *s, struct rendered *next)
{
	pthread_mutex_lock(&s->lock);
	struct rendered old = s->pub;
	s->pub = *next;
	s->have_pub = true;
	s->running_since = -1;
	s->last_done_mono = now_mono();
	pthread_mutex_unlock(&s->lock);
	rendered_release(&old);
	rendered_init(next);
}

static void *collector(void *arg)
{
	struct serve *s = arg;
	struct rendered next;
	rendered_init(&next);
	for (;;) {
		double t0 = now_mono();
		pthread_mutex_lock(&s->lock);
		bool stop = s->stop;
		if (!stop)
			s->running_since = t0;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		int r = collect_once(s, &next);
		if (r < 0) {
			/* out of memory or a rendering over the cap: keep serving the last one */
			warn(s, "rendering failed: %s", strerror(-r));
			rendered_release(&next);
			rendered_init(&next);
			pthread_mutex_lock(&s->lock);
			s->running_since = -1;
			pthread_mutex_unlock(&s->lock);
		} else {
			publish(s, &next);
		}
		/* sleep until the next interval, or until told to stop */
		double until = t0 + s->interval_s;
		struct timespec ts = { .tv_sec = (time_t)until,
			               .tv_nsec = (long)((until - floor(until)) * 1e9) };
		pthread_mutex_lock(&s->lock);
		while (!s->stop && now_mono() < until)
			if (pthread_cond_timedwait(&s->wake, &s->lock, &ts) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&s->lock);
	}
	rendered_release(&next);
	return NULL;
}

/* --- HTTP --- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body,
                             size_t len, bool must_free)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
	        len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *msg)
{
	return reply(c, status, "text/plain; charset=utf-8", (char *)msg, strlen(msg), false);
}

/* A malloc'd copy of one rendering (MHD frees it with free()), plus the per-scrape tail for /metrics. */
static char *copy_out(struct serve *s, const struct ga_buf *b, bool metrics, enum ga_prom_format fmt,
                      size_t *ret_len)
{
	struct ga_buf tail;
	ga_buf_init(&tail, 4096);
	if (metrics) {
		double run = s->running_since >= 0 ? now_mono() - s->running_since : -1;
		if (ga_prom_render_tail(fmt, run, &tail) < 0) {
			ga_buf_release(&tail);
			return NULL;
		}
	}
	char *p = malloc(b->len + tail.len + 1);
	if (p) {
		if (b->len)
			memcpy(p, b->data, b->len);
		if (tail.len)
			memcpy(p + b->len, tail.data, tail.len);
		p[b->len + tail.len] = '\0';
		*ret_len = b->len + tail.len;
	}
	ga_buf_release(&tail);
	return p;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
	struct serve *s = cls;
	(void)version;
	(void)upload_data;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
	if ((cl && strcmp(cl, "0")) || te || *upload_data_size)
		return reply_text(c, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted\n");
	/* answer on the second call, when the request is complete, so the connection stays open */
	static int seen;
	if (!*con_cls) {
		*con_cls = &seen;
		return MHD_YES;
	}

	enum { EP_METRICS, EP_SNAPSHOT, EP_CHECK, EP_HEALTH, EP_ROOT, EP_NONE } ep;
	ep = !strcmp(url, "/metrics")       ? EP_METRICS
	     : !strcmp(url, "/v1/snapshot") ? EP_SNAPSHOT
	     : !strcmp(url, "/v1/check")    ? EP_CHECK
	     : !strcmp(url, "/healthz")     ? EP_HEALTH
	     : !strcmp(url, "/")            ? EP_ROOT
	                                    : EP_NONE;
	if (ep == EP_NONE)
		return reply_text(c, MHD_HTTP_NOT_FOUND,
		                  "not found: try /metrics, /healthz, /v1/snapshot, /v1/check\n");
	if (ep == EP_ROOT)
		return reply_text(c, MHD_HTTP_OK,
		                  "gpuaudit serve: /metrics /healthz /v1/snapshot /v1/check\n");

	enum ga_prom_format fmt = GA_PROM_TEXT;
	if (ep == EP_METRICS) {
		const char *acc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
		fmt = ga_prom_negotiate(acc, acc ? strlen(acc) : 0);
	}
	char *body = NULL;
	size_t len = 0;
	unsigned status = MHD_HTTP_OK;
	const char *type = "application/json";
	char msg[160];
	pthread_mutex_lock(&s->lock);
	if (ep == EP_HEALTH) {
		/* the exporter is live when its last collection is recent enough */
		double limit = 2 * s->interval_s + s->so.timeout_s + 10;
		double age = s->have_pub ? now_mono() - s->last_done_mono : -1;
		if (!s->have_pub) {
			snprintf(msg, sizeof(msg), "starting: no collection finished yet\n");
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
		} else if (age > limit) {
			snprintf(msg, sizeof(msg), "stale: last collection %.0f s ago (limit %.0f s)\n", age,
			         limit);
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
		} else {
			snprintf(msg, sizeof(msg), "ok\n");
		}
		body = strdup(msg);
		len = body ? strlen(body) : 0;
		type = "text/plain; charset=utf-8";
	} else if (!s->have_pub && ep != EP_METRICS) {
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	} else {
		const struct ga_buf *b = ep == EP_METRICS
		                                 ? (fmt == GA_PROM_OPENMETRICS ? &s->pub.om : &s->pub.text)
		                         : ep == EP_SNAPSHOT ? &s->pub.snapshot
		                                             : &s->pub.check;
		if (ep == EP_SNAPSHOT && b->len == 0)
			status = MHD_HTTP_SERVICE_UNAVAILABLE; /* no snapshot could be taken yet */
		else
			body = copy_out(s, b, ep == EP_METRICS, fmt, &len);
		if (ep == EP_METRICS)
			type = ga_prom_content_type(fmt);
	}
	pthread_mutex_unlock(&s->lock);
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE && !body)
		return reply_text(c, status, "no collection finished yet\n");
	if (!body)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(c, status, type, body, len, true);
}

/* --- options --- */

/* "127.0.0.1:9747", "[::1]:9747", "0.0.0.0:9747", "localhost:9747"; port 0 picks a free one. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, bool *v6)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
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

int cmd_serve(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "listen", required_argument, NULL, 'l' },
		{ "interval", required_argument, NULL, 'i' },
		{ "policy", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "nfd-dir", required_argument, NULL, 'D' },
		{ "nfd-expiry", required_argument, NULL, 'E' },
		{ "kmsg", required_argument, NULL, 'K' },
		{ "max-connections", required_argument, NULL, 'm' },
		{ "connection-timeout", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, 'o' },
		{ "openmetrics", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct serve s;
	memset(&s, 0, sizeof(s));
	s.cli = cli;
	snap_opts_init(&s.so);
	s.interval_s = 30;
	s.nfd_expiry_s = 3600;
	s.max_conns = 64;
	s.conn_timeout_s = 10;
	s.running_since = -1;
	const char *listen = DEFAULT_LISTEN;
	bool once = false, openmetrics = false;
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h" SNAP_SHORT_OPTIONS, opts, NULL)) != -1) {
		int k = snap_opt(cli, "serve", opt, optarg, &s.so);
		if (k < 0)
			return -k;
		if (k > 0)
			continue;
		switch (opt) {
		case 'l':
			listen = optarg;
			break;
		case 'i':
			if (ga_duration_parse(optarg, &s.interval_s) < 0 || s.interval_s < 1 ||
			    s.interval_s > 86400)
				return cli_error(
				        cli, "serve", EXIT_USAGE,
				        "--interval wants a duration between 1s and 1d (30s, 5m), not '%s'",
				        optarg);
			break;
		case 'P':
			s.policy_file = optarg;
			break;
		case 'C':
			s.class_name = optarg;
			break;
		case 'D':
			s.nfd_dir = optarg;
			break;
		case 'E': {
			unsigned v;
			if (parse_uint(optarg, 60, 30u * 86400, &v) < 0)
				return cli_error(
				        cli, "serve", EXIT_USAGE,
				        "--nfd-expiry wants seconds between 60 and 2592000, not '%s'",
				        optarg);
			s.nfd_expiry_s = v;
			break;
		}
		case 'K':
			s.kmsg_file = optarg;
			break;
		case 'm':
			if (parse_uint(optarg, 1, 4096, &s.max_conns) < 0)
				return cli_error(
				        cli, "serve", EXIT_USAGE,
				        "--max-connections wants a number between 1 and 4096, not '%s'",
				        optarg);
			break;
		case 'c':
			if (parse_uint(optarg, 1, 3600, &s.conn_timeout_s) < 0)
				return cli_error(
				        cli, "serve", EXIT_USAGE,
				        "--connection-timeout wants seconds between 1 and 3600, not '%s'",
				        optarg);
			break;
		case 'o':
			once = true;
			break;
		case 'O':
			openmetrics = true;
			break;
		case 'h':
			cli_usage(cli, cli_find("serve"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "serve", opts, argv);
		}
	}
	if (optind < argc)
		return cli_error(cli, "serve", EXIT_USAGE, "unexpected argument '%s' (try -h)", argv[optind]);
	if (s.class_name && !s.policy_file)
		return cli_error(cli, "serve", EXIT_USAGE, "--class needs --policy");
	if (openmetrics && !once)
		return cli_error(cli, "serve", EXIT_USAGE,
		                 "--openmetrics goes with --once (a server negotiates)");
	struct sockaddr_storage addr;
	socklen_t addr_len = 0;
	bool v6 = false;
	if (parse_listen(listen, &addr, &addr_len, &v6) < 0)
		return cli_error(cli, "serve", EXIT_USAGE,
		                 "--listen wants ADDRESS:PORT (127.0.0.1:9747, [::1]:9747), not '%s'",
		                 listen);
	int code = snap_validate(cli, "serve", &s.so);
	if (code != EXIT_OK)
		return code;
	code = snap_ctx(cli, "serve", &s.so, &s.ctx);
	if (code != EXIT_OK)
		return code;

	struct MHD_Daemon *d = NULL;
	pthread_t thr;
	bool thr_started = false, locks = false;
	struct rendered first;
	rendered_init(&first);
	rendered_init(&s.pub);
	ga_kev_counter_init(&s.kev);

	int r;
	if (s.policy_file && (r = ga_policy_load(s.ctx, s.policy_file, &s.policy)) < 0) {
		code = cli_error(cli, "serve", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                 ga_ctx_errmsg(s.ctx));
		goto out;
	}
	if (s.class_name && !ga_policy_find_class(s.policy, s.class_name)) {
		code = cli_error(cli, "serve", EXIT_USAGE, "no class '%s' in %s", s.class_name,
		                 s.policy_file);
		goto out;
	}
	bool live = !s.so.from && !strcmp(ga_ctx_root(s.ctx), "/");
	s.vendor_wanted = s.so.vendor == GA_VENDOR_ON || (s.so.vendor == GA_VENDOR_AUTO && live);
	s.stats.interval_s.v = s.interval_s;
	s.stats.interval_s.set = true;

	if (once) {
		r = collect_once(&s, &first);
		if (r < 0) {
			code = cli_error(cli, "serve", EXIT_INTERNAL, "rendering failed: %s", strerror(-r));
			goto out;
		}
		if (!s.node || s.nfd_failed) { /* the reason was printed */
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
		code = EXIT_OK;
		goto out;
	}

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
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.wake, &ca);
	pthread_condattr_destroy(&ca);
	locks = true;

	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | (v6 ? MHD_USE_IPv6 : 0);
	d = MHD_start_daemon(flags, 0, NULL, NULL, handle, &s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
	                     MHD_OPTION_CONNECTION_LIMIT, s.max_conns, MHD_OPTION_CONNECTION_TIMEOUT,
	                     s.conn_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
	                     MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, MHD_OPTION_END);
	if (!d) {
		code = cli_error(cli, "serve", EXIT_UNAVAILABLE, "cannot listen on %s: %s", listen,
		                 errno ? strerror(errno) : "libmicrohttpd failed to start");
		goto out;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char shown[160];
	snprintf(shown, sizeof(shown), "%.*s:%u", (int)(strrchr(listen, ':') - listen), listen,
	         di ? (unsigned)di->port : 0u);
	if ((r = pthread_create(&thr, NULL, collector, &s)) != 0) {
		code = cli_error(cli, "serve", EXIT_INTERNAL, "cannot start the collector: %s", strerror(r));
		goto out;
	}
	thr_started = true;
	fprintf(cli->err, "gpuaudit serve: listening on http://%s/metrics (every %g s)\n", shown,
	        s.interval_s);
	fflush(cli->err);

	int sig = 0;
	while (sigwait(&sigs, &sig) == 0 && sig == SIGHUP)
		; /* nothing to reload: the policy is read once */
	fprintf(cli->err, "gpuaudit serve: %s: shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	code = EXIT_OK;
out:
	if (thr_started) {
		pthread_mutex_lock(&s.lock);
		s.stop = true;
		pthread_cond_signal(&s.wake);
		pthread_mutex_unlock(&s.lock);
		pthread_join(thr, NULL);
	}
	if (d)
		MHD_stop_daemon(d);
	if (locks) {
		pthread_cond_destroy(&s.wake);
		pthread_mutex_destroy(&s.lock);
	}
	rendered_release(&first);
	rendered_release(&s.pub);
	ga_kev_counter_release(&s.kev);
	ga_node_free(s.node);
	ga_policy_free(s.policy);
	ga_ctx_free(s.ctx);
	return code;
}
