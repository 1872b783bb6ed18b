/*
 * cmd-fleet.c - `gpuaudit fleet`: many nodes' snapshots and check reports in,
 * the compatibility matrix (hardware classes and the software stacks present
 * in each, with node counts) and the drift list out, as text, Markdown, CSV or
 * JSON, optionally with what changed since a previous JSON report. The
 * reader (reports.h) yields the documents, the aggregator (fleet.h) takes
 * them; Markdown and CSV are lib/emit's, the JSON the fleet model's.
 * With --prometheus the nodes come from a Prometheus server's HTTP API
 * instead (promfleet.h), into the same aggregator, so every output mode and
 * --diff work the same.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/csv.h"
#include "gpuaudit/deps.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/fleet-analyze.h"
#include "gpuaudit/markdown.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/promfleet.h"
#include "gpuaudit/reports.h"

#define OLD_MAX (256u << 20) /* a --diff report: 256 MiB is millions of drift entries */

enum fmt { FMT_TEXT, FMT_JSON, FMT_MARKDOWN, FMT_CSV };

/* Strings of the reports are printed through the text rule (cli_esc): they came from nodes. */
static const char *dash(const char *s)
{
	return s && *s ? cli_esc(s) : "-";
}

static unsigned long long u(const struct ga_ou64 *v)
{
	return (unsigned long long)(v->set ? v->v : 0);
}

static size_t n_stacks(const struct ga_fleet_report *r)
{
	size_t k = 0;
	for (size_t i = 0; i < r->n_classes; i++)
		k += r->classes[i].n_stacks;
	return k;
}

static void reasons(const struct ga_fleet_drift *d, char *out, size_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < d->reasons.n && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "", d->reasons.v[i]);
}

static const char *change_sign(const char *kind)
{
	if (strstr(kind, "-added"))
		return "+";
	if (strstr(kind, "-removed") || strstr(kind, "-resolved"))
		return "-";
	return "~";
}

/* --- text ----------------------------------------------------------------- */

static int width(const char *s, int w)
{
	int l = (int)strlen(dash(s));
	return l > w ? l : w;
}

/*
 * The CUDA column: the stack's own (NVML's cudaDriverVersion), else the
 * highest CUDA the NVIDIA driver's branch runs, from NVIDIA's CUDA Toolkit
 * Release Notes table "CUDA Toolkit and Corresponding Driver Versions"
 * (ga_cuda_for_driver, lib/analyze/deps-target.c; docs/fleet.md), marked
 * "(from driver)": a node without NVML still has a driver version, and the
 * driver alone decides it. "-" when neither says.
 */
static const char *cuda_col(const struct ga_fleet_stack *s, char *buf, size_t n)
{
	if (s->cuda)
		return s->cuda;
	const char *d = s->driver ? strstr(s->driver, "nvidia ") : NULL;
	int cv = d ? ga_cuda_for_driver(d + 7) : -1;
	if (cv <= 0)
		return NULL;
	snprintf(buf, n, "%d.%d (from driver)", cv / 1000, cv % 1000 / 10);
	return buf;
}

static void text_class(FILE *o, const struct ga_fleet_class *k)
{
	fprintf(o, "\n%s: %llu node%s, ", cli_esc(k->id), u(&k->nodes), u(&k->nodes) == 1 ? "" : "s");
	if (k->gpus.set)
		fprintf(o, "%llu GPU%s", u(&k->gpus), u(&k->gpus) == 1 ? "" : "s");
	else
		fprintf(o, "GPUs UNKNOWN (PCI devices not read)");
	if (k->gpus.set && u(&k->gpus) < u(&k->expected_gpus))
		fprintf(o, " (FEWER than the pool's %llu)", u(&k->expected_gpus));
	fprintf(o, ", pool %s\n", k->pool ? cli_esc(k->pool) : "none (no policy class matches)");
	int wd = 6, wc = 4, wr = 4, wk = 6, wo = 2;
	for (size_t i = 0; i < k->n_stacks; i++) {
		const struct ga_fleet_stack *s = &k->stacks[i];
		char cb[48];
		wd = width(s->driver, wd), wc = width(cuda_col(s, cb, sizeof(cb)), wc);
		wr = width(s->rocm, wr);
		wk = width(s->kernel, wk), wo = width(s->os, wo);
	}
	fprintf(o, "  %7s  %-8s  %-*s  %-*s  %-*s  %-*s  %-*s  %5s  %5s\n", "NODES", "STACK", wd, "DRIVER",
	        wc, "CUDA", wr, "ROCM", wk, "KERNEL", wo, "OS", "LINK", "FAIL");
	for (size_t i = 0; i < k->n_stacks; i++) {
		const struct ga_fleet_stack *s = &k->stacks[i];
		const char *note = s->drift.set && s->drift.v         ? "  drift"
		                   : s->majority.set && s->majority.v ? "  majority"
		                                                      : "";
		char cb[48];
		fprintf(o, "  %7llu  %.8s  %-*s  %-*s  %-*s  %-*s  %-*s  %5llu  %5llu%s\n", u(&s->nodes),
		        dash(s->stack_sha256), wd, dash(s->driver), wc, dash(cuda_col(s, cb, sizeof(cb))), wr,
		        dash(s->rocm), wk, dash(s->kernel), wo, dash(s->os), u(&s->links_degraded),
		        u(&s->failing), note);
		if (s->drift.set && s->drift.v && s->drift_detail)
			fprintf(o, "  %7s  %8s  %s\n", "", "", cli_esc(s->drift_detail));
	}
}

static void text_diff(FILE *o, const struct ga_fleet_diff *d, const char *old)
{
	fprintf(o, "\nchanges since %s: nodes %llu -> %llu, drift %llu -> %llu, %zu change%s\n", cli_esc(old),
	        u(&d->old_nodes), u(&d->new_nodes), u(&d->old_drift_nodes), u(&d->new_drift_nodes),
	        d->n_changes, d->n_changes == 1 ? "" : "s");
	if (d->drift_complete.set && !d->drift_complete.v)
		fprintf(o, "  (a drift list was cut at --max-drift: hosts past the cut are not compared)\n");
	for (size_t i = 0; i < d->n_changes; i++) {
		const struct ga_fleet_change *c = &d->changes[i];
		fprintf(o, "  %s %-14s", change_sign(c->kind), cli_esc(c->kind));
		if (c->host)
			fprintf(o, " %s", cli_esc(c->host));
		if (c->class_id)
			fprintf(o, " %s", cli_esc(c->class_id));
		if (c->stack_sha256)
			fprintf(o, " stack %.8s", cli_esc(c->stack_sha256));
		if (c->old_nodes.set && c->new_nodes.set)
			fprintf(o, ": %llu -> %llu nodes", u(&c->old_nodes), u(&c->new_nodes));
		else if (c->new_nodes.set)
			fprintf(o, ": %llu node%s", u(&c->new_nodes), u(&c->new_nodes) == 1 ? "" : "s");
		else if (c->old_nodes.set)
			fprintf(o, ": was %llu node%s", u(&c->old_nodes), u(&c->old_nodes) == 1 ? "" : "s");
		if (c->detail)
			fprintf(o, " (%s)", cli_esc(c->detail));
		fputc('\n', o);
	}
}

/* Unix seconds as RFC 3339 UTC. */
static const char *utc(const struct ga_odbl *t, char *buf, size_t n)
{
	struct tm tm;
	time_t s = t->set ? (time_t)t->v : 0;
	if (!t->set || !gmtime_r(&s, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, n, "-");
	return buf;
}

static void text_history(FILE *o, const struct ga_fleet_report *r)
{
	fprintf(o, "\ndrift in time (%.0f s before %s): %llu node%s changed or stopped", r->since_s.v,
	        utc(&r->at_s, (char[32]){ 0 }, 32), u(&r->history_nodes),
	        u(&r->history_nodes) == 1 ? "" : "s");
	if (r->n_history < u(&r->history_nodes))
		fprintf(o, " (first %zu by host; --max-drift N for more)", r->n_history);
	fputc('\n', o);
	for (size_t i = 0; i < r->n_history; i++) {
		const struct ga_fleet_history *h = &r->history[i];
		char l[32];
		fprintf(o, "  %-20s %-15s last seen %s (%s)\n", cli_esc(h->host), cli_esc(h->status),
		        utc(&h->last_seen_s, l, sizeof(l)), cli_esc(h->source));
		for (size_t k = 0; k < h->n_states; k++) {
			const struct ga_fleet_state *st = &h->states[k];
			char f[32];
			fprintf(o, "    %s stack %.8s %s, pool %s: %s .. %s\n", dash(st->class_id),
			        dash(st->stack_sha256), dash(st->driver), dash(st->pool),
			        utc(&st->first_seen_s, f, sizeof(f)), utc(&st->last_seen_s, l, sizeof(l)));
		}
	}
}

static void print_text(FILE *o, const struct ga_fleet_report *r, const struct ga_fleet_diff *d,
                       const char *old)
{
	fprintf(o, "fleet: %llu node%s in %zu class%s with %zu stack%s, %llu check report%s, %llu skipped\n",
	        u(&r->nodes), u(&r->nodes) == 1 ? "" : "s", r->n_classes, r->n_classes == 1 ? "" : "es",
	        n_stacks(r), n_stacks(r) == 1 ? "" : "s", u(&r->check_reports),
	        u(&r->check_reports) == 1 ? "" : "s", u(&r->skipped));
	if (r->prometheus)
		fprintf(o, "from: %s at %s\n", cli_esc(r->prometheus), utc(&r->at_s, (char[32]){ 0 }, 32));
	if (r->policy)
		fprintf(o, "policy: %s (drift: pins violated, fewer GPUs, degraded links, failing checks)\n",
		        cli_esc(r->policy));
	else
		fprintf(o, "policy: none (drift: off the pool's majority stack, fewer GPUs, degraded links, "
		           "failing checks)\n");
	for (size_t i = 0; i < r->n_classes; i++)
		text_class(o, &r->classes[i]);
	if (r->n_checks) {
		fprintf(o, "\ncheck reports:\n  %-24s %7s %7s %7s\n", "CLASS", "PASS", "FAIL", "UNKNOWN");
		for (size_t i = 0; i < r->n_checks; i++)
			fprintf(o, "  %-24s %7llu %7llu %7llu\n", dash(r->checks[i].class),
			        u(&r->checks[i].pass), u(&r->checks[i].fail), u(&r->checks[i].unknown));
	}
	fprintf(o, "\ndrift: %llu node%s", u(&r->drift_nodes), u(&r->drift_nodes) == 1 ? "" : "s");
	if (r->n_drift < u(&r->drift_nodes))
		fprintf(o, " (first %zu by host; --max-drift N for more)", r->n_drift);
	fputc('\n', o);
	for (size_t i = 0; i < r->n_drift; i++) {
		const struct ga_fleet_drift *e = &r->drift[i];
		char rs[128];
		reasons(e, rs, sizeof(rs));
		fprintf(o, "  %-20s %-14s %s", cli_esc(e->host), cli_esc(rs),
		        e->class_id ? cli_esc(e->class_id) : "(check report)");
		if (e->stack_sha256)
			fprintf(o, " stack %.8s", cli_esc(e->stack_sha256));
		if (e->detail)
			fprintf(o, ": %s", cli_esc(e->detail));
		fputc('\n', o);
	}
	if (u(&r->skipped)) {
		fprintf(o, "\nskipped: %llu report%s\n", u(&r->skipped), u(&r->skipped) == 1 ? "" : "s");
		for (size_t i = 0; i < r->n_skipped_reports; i++)
			fprintf(o, "  %s: %s\n", cli_esc(r->skipped_reports[i].source),
			        cli_esc(r->skipped_reports[i].reason));
		if (r->n_skipped_reports < u(&r->skipped))
			fprintf(o, "  ... and %llu more\n", u(&r->skipped) - r->n_skipped_reports);
	}
	if (r->since_s.set)
		text_history(o, r);
	if (d)
		text_diff(o, d, old);
}

/* Render the report in the chosen format (text straight to out). 0 or -ENOMEM. */
static int emit(FILE *out, enum fmt fmt, const struct ga_fleet_report *r, const struct ga_fleet_diff *d,
                const char *old)
{
	if (fmt == FMT_TEXT) {
		print_text(out, r, d, old);
		return 0;
	}
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int rc = fmt == FMT_JSON       ? ga_fleet_write_json(r, d, &b)
	         : fmt == FMT_MARKDOWN ? ga_markdown_fleet(&b, r, d, old)
	                               : ga_csv_fleet(&b, r, d);
	if (rc == 0 && b.len)
		fwrite(b.data, 1, b.len, out);
	ga_buf_release(&b);
	return rc;
}

static int load_old(struct ga_ctx *ctx, const char *file, struct ga_fleet_report **ret)
{
	/* a FIFO or device is refused, not waited on (ga_file_open_input) */
	int fd = -1;
	int r = ga_file_open_input(ctx, file, &fd);
	if (r < 0)
		return r;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		r = ga_err(ctx, -errno, "%s: %s", file, strerror(errno));
		close(fd);
		return r;
	}
	struct ga_buf b;
	ga_buf_init(&b, OLD_MAX);
	char chunk[65536];
	size_t got;
	while (r == 0 && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		r = ga_buf_add(&b, chunk, got);
	if (r == -E2BIG)
		r = ga_err(ctx, -EFBIG, "%s: larger than %u bytes", file, OLD_MAX);
	else if (r == 0 && ferror(f))
		r = ga_err(ctx, -EIO, "%s: read error", file);
	fclose(f);
	if (r == 0) {
		r = ga_fleet_report_from_json(ctx, b.data ? b.data : "", b.len, ret);
		if (r == -EBADMSG) {
			char msg[1100];
			snprintf(msg, sizeof(msg), "%s", ga_ctx_errmsg(ctx));
			ga_err(ctx, r, "%s: %s", file, msg);
		}
	}
	ga_buf_release(&b);
	return r;
}

/* A count in [min, max]; a sign is refused even on "-0". */
static int count(struct cli *cli, const char *cmd, const char *what, const char *arg, long min, long max,
                 long *ret)
{
	if (arg[0] == '-' || arg[0] == '+')
		return cli_error(cli, cmd, EXIT_USAGE, "%s wants a count between %ld and %ld, not '%s'", what,
		                 min, max, arg);
	return cli_parse_long(cli, cmd, what, "a count", arg, min, max, ret);
}

#define MAX_MATCH 64

/*
 * The bounds of a read from Prometheus (docs/fleet.md, "A hostile server"):
 * a fleet of 100,000 nodes is ~200,000 series and ~60 MB of answers, a few
 * hundred classes; the defaults leave 5-10x room above that and hold
 * resident memory under 100 MiB whatever the server sends.
 */
#define FLEET_MAX_SERIES 2000000ull
#define FLEET_MAX_BYTES (1ull << 30)
#define FLEET_MAX_TRACKED 100000
#define FLEET_MAX_CLASSES 10000

struct fleet_args {
	const char *policy_file, *old_file;
	enum fmt fmt;
	int fmts, verbose;
	size_t max_drift;
	unsigned jobs;
	/* --prometheus */
	struct ga_prom_http_opts http;
	const char *match[MAX_MATCH];
	size_t n_match;
	const char *at, *since, *basic_auth;
	bool timeout_set;
	/* the run's bounds (docs/fleet.md, "A hostile server") */
	struct ga_prom_budget budget;
	size_t max_tracked, max_classes;
	double deadline_s; /* 0: 3 x --timeout */
	bool bounds_set;
};

/* --basic-auth USER:PASSWORD-FILE: the user, and the file after the first ':'. */
static int basic_auth(struct cli *cli, struct fleet_args *a, char *user, size_t n)
{
	const char *colon = strchr(a->basic_auth, ':');
	if (!colon || colon == a->basic_auth || !colon[1] || (size_t)(colon - a->basic_auth) >= n)
		return cli_error(cli, "fleet", EXIT_USAGE, "--basic-auth wants USER:PASSWORD-FILE, not '%s'",
		                 a->basic_auth);
	if (a->http.username || a->http.password_file)
		return cli_error(cli, "fleet", EXIT_USAGE,
		                 "--basic-auth and --username/--password-file exclude each other");
	memcpy(user, a->basic_auth, (size_t)(colon - a->basic_auth));
	user[colon - a->basic_auth] = '\0';
	a->http.username = user;
	a->http.password_file = colon + 1;
	return CLI_NEXT;
}

/* --max-series, --max-bytes, --max-tracked, --max-classes, --deadline */
static int bound_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct fleet_args *a)
{
	long v;
	int r = CLI_NEXT;
	double d;
	switch (opt) {
	case 'N':
		if ((r = cli_parse_long(cli, cmd, "--max-series", "a count", arg, 1, 1000000000L, &v)) ==
		    CLI_NEXT)
			a->budget.max_series = (uint64_t)v;
		break;
	case 'Y':
		if (cli_size_parse(arg, &a->budget.max_bytes) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--max-bytes wants a size such as 512M or 4G, not '%s'", arg);
		break;
	case 'K':
		if ((r = cli_parse_long(cli, cmd, "--max-tracked", "a count", arg, 1, 100000000L, &v)) ==
		    CLI_NEXT)
			a->max_tracked = (size_t)v;
		break;
	case 'L':
		if ((r = cli_parse_long(cli, cmd, "--max-classes", "a count", arg, 1, 100000000L, &v)) ==
		    CLI_NEXT)
			a->max_classes = (size_t)v;
		break;
	case 'D':
		if (ga_duration_parse(arg, &d) < 0 || !(d >= 1) || d > 86400)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--deadline wants a duration between 1s and 1d (90s, 10m), not '%s'",
			                 arg);
		a->deadline_s = d;
		break;
	default:
		return CLI_UNKNOWN;
	}
	a->bounds_set = true;
	return r;
}

static int prom_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct fleet_args *a)
{
	double d;
	switch (opt) {
	case 'U':
		a->http.url = arg;
		return CLI_NEXT;
	case 'x':
		if (a->n_match == MAX_MATCH)
			return cli_error(cli, cmd, EXIT_USAGE, "--match: at most %d", MAX_MATCH);
		a->match[a->n_match++] = arg;
		return CLI_NEXT;
	case 'A':
		a->at = arg;
		return CLI_NEXT;
	case 'S':
		a->since = arg;
		return CLI_NEXT;
	case 'T':
		a->http.bearer_token_file = arg;
		return CLI_NEXT;
	case 'B':
		a->basic_auth = arg;
		return CLI_NEXT;
	case 'u':
		a->http.username = arg;
		return CLI_NEXT;
	case 'p':
		a->http.password_file = arg;
		return CLI_NEXT;
	case 'C':
		a->http.ca_file = arg;
		return CLI_NEXT;
	case 'k':
		a->http.insecure_skip_verify = true;
		return CLI_NEXT;
	case 't':
		if (ga_duration_parse(arg, &d) < 0 || !(d >= 1) || d > 3600)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--timeout wants a duration between 1s and 1h (30s, 2m), not '%s'",
			                 arg);
		a->http.timeout_ms = (long)(d * 1000);
		a->timeout_set = true;
		return CLI_NEXT;
	}
	return bound_opt(cli, cmd, opt, arg, a);
}

static int fleet_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct fleet_args *a = st;
	long v;
	int r;
	switch (opt) {
	case 'P':
		a->policy_file = arg;
		return CLI_NEXT;
	case 'j':
		a->fmt = FMT_JSON, a->fmts |= 1;
		return CLI_NEXT;
	case 'm':
		a->fmt = FMT_MARKDOWN, a->fmts |= 2;
		return CLI_NEXT;
	case 'c':
		a->fmt = FMT_CSV, a->fmts |= 4;
		return CLI_NEXT;
	case 'd':
		a->old_file = arg;
		return CLI_NEXT;
	case 'M':
		if ((r = count(cli, cmd, "--max-drift", arg, 0, 10000000, &v)) == CLI_NEXT)
			a->max_drift = (size_t)v;
		return r;
	case 'J':
		if ((r = count(cli, cmd, "--jobs", arg, 1, 64, &v)) == CLI_NEXT)
			a->jobs = (unsigned)v;
		return r;
	case 'v':
		a->verbose++;
		return CLI_NEXT;
	}
	return prom_opt(cli, cmd, opt, arg, a);
}

/* The operands: files, directories, '-' at most once. CLI_NEXT or the usage error's code. */
static int check_operands(struct cli *cli, const struct fleet_args *a, int argc, char **argv)
{
	bool prom_only = a->n_match || a->at || a->since || a->http.bearer_token_file || a->basic_auth ||
	                 a->http.username || a->http.password_file || a->http.ca_file ||
	                 a->http.insecure_skip_verify || a->timeout_set || a->bounds_set;
	if (a->http.url) {
		if (optind < argc)
			return cli_error(
			        cli, "fleet", EXIT_USAGE,
			        "--prometheus reads the nodes from the server: no files or directories "
			        "with it ('%s')",
			        argv[optind]);
		if (a->policy_file)
			return cli_error(cli, "fleet", EXIT_USAGE,
			                 "--policy: with --prometheus the nodes were checked where they run "
			                 "(serve --policy); the pools are the classes they matched");
		return CLI_NEXT;
	}
	if (prom_only)
		return cli_error(cli, "fleet", EXIT_USAGE,
		                 "--match, --at, --since, the bounds and the HTTP options need --prometheus "
		                 "URL");
	if (optind >= argc)
		return cli_error(cli, "fleet", EXIT_USAGE,
		                 "no reports: name files, directories or '-' for stdin (try -h)");
	int stdin_uses = 0;
	for (int i = optind; i < argc; i++)
		stdin_uses += !strcmp(argv[i], "-");
	if (stdin_uses > 1)
		return cli_error(cli, "fleet", EXIT_USAGE, "'-' (stdin) can be named only once");
	return CLI_NEXT;
}

/* The exit code of a failed read from Prometheus (docs/fleet.md). */
static int prom_exit(int r)
{
	return r == -ENOMEM                     ? EXIT_INTERNAL
	       : r == -ETIMEDOUT || r == -ETIME ? EXIT_INCONCLUSIVE
	       : r == -EINVAL                   ? EXIT_USAGE
	                                        : EXIT_UNAVAILABLE;
}

/* The fleet from the server: 0, or the exit code (the error said on stderr). */
static int read_prometheus(struct cli *cli, struct ga_ctx *ctx, struct ga_fleet *fleet, struct fleet_args *a)
{
	char *matchers[MAX_MATCH] = { 0 };
	char user[256];
	struct ga_prom_transport t = { 0 };
	struct ga_prom_fleet_opts po = { .t = &t, .matchers = matchers, .n_matchers = a->n_match };
	double at = 0, since = 0;
	int code = 0, r = 0;
	if (a->at && ga_prom_time_parse(a->at, &at) < 0) {
		code = cli_error(cli, "fleet", EXIT_USAGE,
		                 "--at wants RFC 3339 (2026-01-02T03:04:05Z) or Unix "
		                 "seconds, not '%s'",
		                 a->at);
		goto out;
	}
	if (a->since && (ga_duration_parse(a->since, &since) < 0 || since < 1 || since > 366 * 86400.0)) {
		code = cli_error(cli, "fleet", EXIT_USAGE,
		                 "--since wants a duration between 1s and 366d (1h, 7d), "
		                 "not '%s'",
		                 a->since);
		goto out;
	}
	if (a->basic_auth && (code = basic_auth(cli, a, user, sizeof(user))) != CLI_NEXT)
		goto out;
	code = 0;
	for (size_t i = 0; i < a->n_match && r == 0; i++)
		r = ga_prom_matchers_parse(ctx, a->match[i], &matchers[i]);
	if (r == 0)
		r = ga_prom_curl_transport(ctx, &a->http, &t);
	if (r < 0) {
		code = cli_error(cli, "fleet", r == -ELIBACC ? EXIT_UNAVAILABLE : cli_exit_for(r), "%s",
		                 ga_ctx_errmsg(ctx));
		goto out;
	}
	if (a->at)
		GA_SET(po.at_s, at);
	if (a->since)
		GA_SET(po.since_s, since);
	po.timeout_ms = a->http.timeout_ms;
	/* the whole run: by default three requests' worth, whatever the server claims */
	a->budget.deadline_after_s =
	        a->deadline_s > 0 ? a->deadline_s : 3.0 * (double)a->http.timeout_ms / 1000;
	a->budget.deadline_s = ga_prom_now_s() + a->budget.deadline_after_s;
	po.budget = &a->budget;
	po.max_tracked = a->max_tracked;
	struct ga_prom_fleet_sink sink;
	ga_fleet_prom_sink(fleet, &sink);
	struct cli_progress prog; /* the query under way, on a terminal only */
	if (cli_progress_init(&prog, cli, "fleet"))
		ga_ctx_set_progress(ctx, cli_progress_ctx, &prog);
	r = ga_prom_fleet_read(ctx, &po, &sink, &at);
	ga_ctx_set_progress(ctx, NULL, NULL);
	cli_progress_end(&prog);
	if (r < 0) {
		code = cli_error(cli, "fleet", prom_exit(r), "%s: %s (no report: it would be partial)",
		                 a->http.url, ga_ctx_errmsg(ctx));
		goto out;
	}
	struct ga_odbl at_s = { at, true };
	if (ga_fleet_set_origin(fleet, a->http.url, at_s, po.since_s) < 0)
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory");
out:
	for (size_t i = 0; i < a->n_match; i++)
		ga_free(matchers[i]);
	if (t.release)
		t.release(t.ud);
	return code;
}

/* Every operand into the fleet: 0, -ENOMEM, or 1 when one could not be read (said on stderr). */
static int read_reports(struct cli *cli, struct ga_ctx *ctx, struct ga_fleet *fleet, int argc, char **argv)
{
	struct ga_reports_sink sink;
	ga_fleet_sink(fleet, &sink);
	int unreadable = 0;
	for (int i = optind; i < argc; i++) {
		int r = ga_reports_read_path(ctx, &sink, argv[i]);
		if (r == -ENOMEM) {
			cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory reading %s", argv[i]);
			return r;
		}
		if (r < 0) {
			cli_error(cli, "fleet", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
			unreadable = 1;
		}
	}
	return unreadable;
}

static unsigned long long u64(const struct ga_ou64 *v)
{
	return (unsigned long long)(v->set ? v->v : 0);
}

/* The skipped reports, on stderr. */
static void say_skipped(struct cli *cli, const struct ga_fleet_report *rep)
{
	for (size_t i = 0; i < rep->n_skipped_reports; i++)
		cli_error(cli, "fleet", 0, "skipped %s: %s", rep->skipped_reports[i].source,
		          rep->skipped_reports[i].reason);
	if (rep->n_skipped_reports < u64(&rep->skipped))
		cli_error(cli, "fleet", 0, "skipped %llu more reports",
		          u64(&rep->skipped) - rep->n_skipped_reports);
}

/* Usage when something could not be read or nothing was, else problems when anything drifts. */
static int exit_code(struct cli *cli, const struct ga_fleet_report *rep, int unreadable)
{
	if (u64(&rep->nodes) + u64(&rep->check_reports) == 0)
		return cli_error(cli, "fleet", EXIT_USAGE, "%s",
		                 rep->prometheus ? "no node reports gpuaudit_fleet_info there (--match?)"
		                                 : "no node snapshot or check report was read");
	if (unreadable || u64(&rep->skipped))
		return EXIT_USAGE;
	return u64(&rep->drift_nodes) || u64(&rep->history_nodes) ? EXIT_PROBLEMS : EXIT_OK;
}

int cmd_fleet(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "csv", no_argument, NULL, 'c' },
		{ "diff", required_argument, NULL, 'd' },
		{ "max-drift", required_argument, NULL, 'M' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "prometheus", required_argument, NULL, 'U' },
		{ "match", required_argument, NULL, 'x' },
		{ "at", required_argument, NULL, 'A' },
		{ "since", required_argument, NULL, 'S' },
		{ "bearer-token-file", required_argument, NULL, 'T' },
		{ "basic-auth", required_argument, NULL, 'B' },
		{ "username", required_argument, NULL, 'u' },
		{ "password-file", required_argument, NULL, 'p' },
		{ "ca-file", required_argument, NULL, 'C' },
		{ "insecure-skip-verify", no_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "max-series", required_argument, NULL, 'N' },
		{ "max-bytes", required_argument, NULL, 'Y' },
		{ "max-tracked", required_argument, NULL, 'K' },
		{ "max-classes", required_argument, NULL, 'L' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct fleet_args a = { .max_drift = GA_FLEET_MAX_DRIFT_DEFAULT,
		                .http = { .timeout_ms = 120000 },
		                .budget = { .max_series = FLEET_MAX_SERIES, .max_bytes = FLEET_MAX_BYTES },
		                .max_tracked = FLEET_MAX_TRACKED,
		                .max_classes = FLEET_MAX_CLASSES,
		                .jobs = cpus < 1    ? 1
		                        : cpus > 64 ? 64
		                                    : (unsigned)cpus };
	int code = cli_parse(cli, "fleet", argc, argv, "jv", opts, fleet_opt, &a);
	if (code != CLI_NEXT)
		return code;
	if (a.fmts & (a.fmts - 1))
		return cli_error(cli, "fleet", EXIT_USAGE, "--json, --markdown and --csv exclude each other");
	if ((code = check_operands(cli, &a, argc, argv)) != CLI_NEXT)
		return code;
	struct ga_ctx *ctx = NULL;
	if ((code = cli_ctx(cli, "fleet", NULL, a.verbose, &ctx)) != EXIT_OK)
		return code;
	struct ga_policy *policy = NULL;
	struct ga_fleet *fleet = NULL;
	struct ga_fleet_report *rep = NULL, *old = NULL;
	struct ga_fleet_diff *diff = NULL;
	int r = 0;
	if (a.policy_file && (r = ga_policy_load(ctx, a.policy_file, &policy)) < 0) {
		code = cli_error(cli, "fleet", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
		goto out;
	}
	if (a.old_file && (r = load_old(ctx, a.old_file, &old)) < 0) {
		code = cli_error(cli, "fleet", cli_exit_for(r), "--diff: %s", ga_ctx_errmsg(ctx));
		goto out;
	}
	struct ga_fleet_opts fo = { .policy = policy,
		                    .max_drift = a.max_drift,
		                    .jobs = a.jobs,
		                    .max_rows = a.http.url ? a.max_classes : 0 };
	if (ga_fleet_new(&fo, &fleet) < 0) {
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	int unreadable = 0;
	if (a.http.url && (code = read_prometheus(cli, ctx, fleet, &a)) != 0)
		goto out;
	if (!a.http.url && (unreadable = read_reports(cli, ctx, fleet, argc, argv)) < 0) {
		code = EXIT_INTERNAL;
		goto out;
	}
	if (ga_fleet_report(fleet, &rep) < 0 || (old && ga_fleet_diff(old, rep, &diff) < 0)) {
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	say_skipped(cli, rep);
	if (emit(cli->out, a.fmt, rep, diff, a.old_file) < 0) {
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "%s output failed",
		                 a.fmt == FMT_JSON ? "JSON" : "report");
		goto out;
	}
	code = exit_code(cli, rep, unreadable);
out:
	ga_fleet_diff_free(diff);
	ga_fleet_report_free(old);
	ga_fleet_report_free(rep);
	ga_fleet_free(fleet);
	ga_policy_free(policy);
	ga_ctx_free(ctx);
	return code;
}
