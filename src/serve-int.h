/*
 * serve-int.h - what the files of `gpuaudit serve` share: the server's state
 * (options, the collector's own state, the rendering published under the
 * lock) and the entry points of the collector thread (serve-collect.c) and
 * the HTTP handlers (serve-http.c); cmd-serve.c parses the options and
 * starts them.
 */
#ifndef GA_SRC_SERVE_INT_H
#define GA_SRC_SERVE_INT_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>

#include "cli.h"
#include "serve-conns.h"
#include "gpuaudit/prom.h"

#define SERVE_MAX_BODY (8u << 20) /* cap on any one rendering */

/* What a request can be answered with: rendered by the collector, read by the server. */
struct rendered {
	struct ga_buf text, om, snapshot, check;
};

/* A link flap stays in the findings this long after the collection that saw it (docs/network.md). */
#define SERVE_FLAP_HOLD_S 900.0
#define SERVE_MAX_HELD 64

struct serve {
	struct cli *cli;
	/* options */
	struct snap_opts so;
	const char *policy_file, *class_name, *nfd_dir, *kmsg_file;
	double interval_s;
	long nfd_expiry_s;
	unsigned max_conns, conn_timeout_s;
	unsigned max_conns_per_ip, request_timeout_s;
	struct serve_conns conns; /* serve-conns.c: deadlines and caps of the HTTP connections */
	/* collector-only state */
	struct ga_ctx *ctx;
	struct ga_policy *policy;
	struct ga_node *node; /* the last good snapshot */
	struct ga_kev_counter kev;
	struct ga_prom_stats stats;
	struct ga_obool kmsg_readable;
	bool vendor_wanted;
	bool nfd_failed; /* the last collection could not write the NFD file */
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

/* serve-http.c: the libmicrohttpd request handler (cls is the struct serve). */
enum MHD_Result serve_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                             const char *version, const char *upload_data, size_t *upload_data_size,
                             void **con_cls);

#endif
