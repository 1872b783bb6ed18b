/*
 * serve-int.h - what the files of `gpuaudit serve` share: the server's state
 * (options, the collector's own state, the rendering published under the
 * lock) and the entry points of the collector thread (serve-collect.c) and
 * the HTTP handlers (serve-http.c); cmd-serve.c parses the options and
 * starts them.
 */
#ifndef GA_SRC_SERVE_INT_H
#define GA_SRC_SERVE_INT_H

#include "gpuaudit/hstate.h"
#include <pthread.h>
#include <stdbool.h>

#include "cli.h"
#include "serve-conns.h"
#include "serve-dl.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/prom.h"
#include "gpuaudit/webconfig.h"

#define SERVE_MAX_BODY (8u << 20) /* cap on any one rendering */
#define SERVE_NVLINK_HOLD_S 600   /* GA-NVLINK-ERRORS-RISING stays this long after the last rise */

/* What a request can be answered with: rendered by the collector, read by the server. */
struct rendered {
	struct ga_buf text, om, snapshot, check;
	char not_ready[192]; /* /readyz: why the node is not ready ("" when it is) */
};

#define SERVE_MAX_LISTEN 16

/* serve-web.c: the exporter toolkit's conventions (TLS, basic auth, socket activation). */
/* serve-auth.c: what a wrong password may cost (a bcrypt budget, the unknown user's hash). */
#define SERVE_AUTH_IP_SLOTS 256 /* client addresses remembered; the stalest is forgotten first */
struct serve_auth_ip {
	unsigned char addr[16]; /* IPv4 as ::ffff:a.b.c.d */
	double tokens, t;
	bool used;
};
/*
 * One request's state across the handler's calls (libmicrohttpd's con_cls),
 * freed when the request ends (serve_conns_completed): whether the first
 * call was seen, and the check of its password, which a worker thread does
 * while libmicrohttpd holds the connection suspended.
 */
#define SERVE_AUTH_FIELD 256 /* bytes of a user name or password that are checked */
enum serve_auth_state { SERVE_AUTH_NONE, SERVE_AUTH_PENDING, SERVE_AUTH_DONE };
struct serve_req {
	bool seen;
	bool rated;    /* took its token of the web config's rate_limit */
	char msg[128]; /* the 429 answer's text */
	enum serve_auth_state auth;
	bool auth_ok;
	bool auth_limited;      /* the worker's queue was closed: answer 429 */
	size_t user_index;      /* into the web config's users; n_users: unknown */
	unsigned char addr[16]; /* the client's, for its bucket */
	unsigned char sum[32];  /* SHA-256 of user and password, for the cache */
	char pass[SERVE_AUTH_FIELD];
	struct MHD_Connection *c;
	struct serve_req *next; /* in the workers' queue */
};
#define SERVE_AUTH_WORKERS 2
#define SERVE_AUTH_QUEUE 64 /* checks waiting for a worker; more: 429 */

struct serve_auth {
	pthread_mutex_t lock;
	bool ready;
	/* the workers that run bcrypt off libmicrohttpd's thread */
	pthread_cond_t work;
	pthread_t workers[SERVE_AUTH_WORKERS];
	size_t n_workers;
	bool stopping;
	struct serve_req *head, *tail;
	size_t queued;
	struct serve_web *web;         /* the cache and the users, for the workers */
	char dummy[64];                /* bcrypt of a random password at the users' highest cost */
	unsigned cost;                 /* that cost */
	double bcrypt_s;               /* one bcrypt at that cost, as measured at start */
	double rate, burst, tokens, t; /* the server's bucket */
	struct serve_auth_ip ip[SERVE_AUTH_IP_SLOTS];
};
/* The budget and the hash for unknown users (cfg NULL or without users: no budget needed). 0 or
 * -errno with the reason in err. */
int serve_auth_init(struct serve_auth *a, const struct ga_webconfig *cfg, char *err, size_t errn);
void serve_auth_release(struct serve_auth *a);
/* The client's address as 16 bytes (IPv4 as ::ffff:a.b.c.d; zeros when unknown). */
void serve_auth_client_addr(struct MHD_Connection *c, unsigned char out[16]);
/* A token for one bcrypt for this address: true, or false with the seconds to wait in *retry_s. */
bool serve_auth_take(struct serve_auth *a, const unsigned char addr[16], unsigned *retry_s);
/* The token of a password that matched, back to both buckets. */
void serve_auth_give_back(struct serve_auth *a, const unsigned char addr[16]);
/* Start the workers (0 or the pthread error); stop them, answering what is queued with 429. */
int serve_auth_start(struct serve_auth *a, struct serve_web *w);
void serve_auth_stop(struct serve_auth *a);
/* Queue rq's check and suspend its connection: false when the queue is full or closed. */
bool serve_auth_queue(struct serve_auth *a, struct serve_req *rq);

struct serve_web {
	struct ga_webconfig *cfg; /* --web.config.file, or NULL */
	struct serve_auth auth;
	char priorities[160]; /* GnuTLS priority string from min_version/max_version */
	pthread_mutex_t cache_lock;
	unsigned char cache[GA_WEBCONFIG_MAX_USERS][32]; /* SHA-256 of a password that matched */
	bool cached[GA_WEBCONFIG_MAX_USERS];
	/* the web config's rate_limit: one bucket for the server (under cache_lock: one
	 * libmicrohttpd thread per listener) */
	double rl_tokens, rl_t;
	bool rl_started;
	/* 429 answers since start, by cause (atomics): rate_limit, the bcrypt budget */
	uint64_t n_rate_refused, n_auth_refused;
};

/* serve-events.c: NVML events as a second Xid source (--nvml-events WAIT). */
#define SERVE_EVENT_LINE 192
struct serve_events {
	unsigned wait_ms; /* one helper run's wait; 0: off */
	struct ga_ctx *ctx;
	pthread_t thr;
	bool started;
	int cancel[2];
	/* under the serve lock while the thread runs */
	char (*queue)[SERVE_EVENT_LINE]; /* Xid events as the kernel's lines, not yet counted */
	size_t n_queue;
	uint64_t dropped, runs;
	struct ga_obool live; /* the last helper run had an event set with GPUs registered */
};

/* A link flap stays in the findings this long after the collection that saw it (docs/network.md). */
#define SERVE_FLAP_HOLD_S 900.0
#define SERVE_MAX_HELD 64

struct serve {
	struct cli *cli;
	/* options */
	struct snap_opts so;
	const char *policy_file, *class_name, *nfd_dir, *kmsg_file, *state_file;
	double interval_s;
	long nfd_expiry_s;
	unsigned max_conns, conn_timeout_s;
	unsigned max_conns_per_ip, request_timeout_s;
	const char *telemetry_path; /* --web.telemetry-path (default /metrics) */
	struct serve_web web;
	struct serve_conns conns; /* serve-conns.c: deadlines and caps of the HTTP connections */
	/* collector-only state */
	struct ga_ctx *ctx;
	struct ga_policy *policy;
	struct ga_node *node; /* the last good snapshot */
	struct ga_kev_counter kev;
	struct ga_prom_stats stats;
	struct ga_obool kmsg_readable;
	struct ga_obool nvml_events_up; /* unset: --nvml-events off, or its first run not back yet */
	bool vendor_wanted;
	bool nfd_failed;               /* the last collection could not write the NFD file */
	bool state_failed;             /* the last collection could not write --state FILE */
	struct ga_health_state hstate; /* --state: the sticky conditions, written every collection */
	int kmsg_err;                  /* the last kernel-log read's -errno, 0 when it was read */
	struct serve_events ev;
	struct ga_nvlink_watch nvlink; /* NVLink counters between collections (fabric.h) */
	/* serve-collect.c: flaps (GA-IB-LINK-FLAP) seen by a delta, re-reported until `until` */
	struct serve_held {
		struct ga_findings f; /* one finding */
		double until;         /* monotonic seconds */
	} held[SERVE_MAX_HELD];
	size_t n_held;
	/* shared with the server thread, under lock */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct rendered pub;
	bool have_pub;
	double running_since; /* monotonic seconds; < 0 when no collection runs */
	double last_done_mono;
	bool stop;
};

double serve_now_mono(void);
void serve_rendered_init(struct rendered *r);
void serve_rendered_release(struct rendered *r);
void serve_warn(struct serve *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void serve_held_release(struct serve *s);

/* serve-collect.c: one collection rendered into out (0 or -errno), and the thread that repeats it. */
int serve_collect_once(struct serve *s, struct rendered *out);
void *serve_collector(void *arg);

/*
 * serve-web.c: read --web.config.file and the files it names (0 or an exit code,
 * the message printed); the listening sockets systemd passed (LISTEN_FDS);
 * and, per request, whether the client may have an answer: NULL when it may,
 * else the status and text to refuse it with (401 asks for basic auth).
 */
int serve_web_load(struct serve *s, const char *file);
void serve_web_release(struct serve_web *w);
int serve_web_systemd_fds(struct cli *cli, int *fds, size_t max, size_t *n);
/* On a TLS connection, answer a plain HTTP request with a 400 and a hint (serve-web.c). */
void serve_web_guard_plain(struct MHD_Connection *c);
/* NULL to go on; a text to answer with *status; SERVE_WEB_SUSPENDED when a worker checks the
 * password (the handler returns MHD_YES and is called again when it is done). */
extern const char SERVE_WEB_SUSPENDED[];
const char *serve_web_refuse(struct serve *s, struct MHD_Connection *c, struct serve_req *rq,
                             unsigned *status);
/* Fill opts (at least 5 slots) with the daemon's TLS options; the count. */
size_t serve_web_tls_options(const struct serve *s, struct MHD_OptionItem *opts);
/* serve-events.c: start/stop the event thread (EXIT_OK or an exit code), one run for --once,
 * and the collector's drain of queued Xids into s->kev (0 / -ENOMEM) with the liveness. */
int serve_events_start(struct serve *s);
void serve_events_stop(struct serve *s);
int serve_events_once(struct serve *s);
int serve_events_drain(struct serve *s, struct ga_obool *ret_live);

/* serve-http.c: the libmicrohttpd request handler (cls is the struct serve). */
enum MHD_Result serve_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                             const char *version, const char *upload_data, size_t *upload_data_size,
                             void **con_cls);

#endif
