/*
 * cmd-fleet.c - `gpuaudit fleet`: many nodes' snapshots and check reports in,
 * the compatibility matrix (hardware classes and the software stacks present
 * in each, with node counts) and the drift list out, as text, Markdown, CSV or
 * JSON, optionally with what changed since a previous JSON report. The
 * reader (reports.h) yields the documents, the aggregator (fleet.h) takes
 * them; Markdown and CSV are lib/emit's, the JSON the fleet model's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/csv.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/markdown.h"
#include "gpuaudit/policy.h"
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

static void text_class(FILE *o, const struct ga_fleet_class *k)
{
	fprintf(o, "\n%s: %llu node%s, %llu GPU%s", cli_esc(k->id), u(&k->nodes),
	        u(&k->nodes) == 1 ? "" : "s", u(&k->gpus), u(&k->gpus) == 1 ? "" : "s");
	if (u(&k->gpus) < u(&k->expected_gpus))
		fprintf(o, " (FEWER than the pool's %llu)", u(&k->expected_gpus));
	fprintf(o, ", pool %s\n", k->pool ? cli_esc(k->pool) : "none (no policy class matches)");
	int wd = 6, wc = 4, wr = 4, wk = 6, wo = 2;
	for (size_t i = 0; i < k->n_stacks; i++) {
		const struct ga_fleet_stack *s = &k->stacks[i];
		wd = width(s->driver, wd), wc = width(s->cuda, wc), wr = width(s->rocm, wr);
		wk = width(s->kernel, wk), wo = width(s->os, wo);
	}
	fprintf(o, "  %7s  %-8s  %-*s  %-*s  %-*s  %-*s  %-*s  %5s  %5s\n", "NODES", "STACK", wd, "DRIVER",
	        wc, "CUDA", wr, "ROCM", wk, "KERNEL", wo, "OS", "LINK", "FAIL");
	for (size_t i = 0; i < k->n_stacks; i++) {
		const struct ga_fleet_stack *s = &k->stacks[i];
		const char *note = s->drift.set && s->drift.v         ? "  drift"
		                   : s->majority.set && s->majority.v ? "  majority"
		                                                      : "";
		fprintf(o, "  %7llu  %.8s  %-*s  %-*s  %-*s  %-*s  %-*s  %5llu  %5llu%s\n", u(&s->nodes),
		        dash(s->stack_sha256), wd, dash(s->driver), wc, dash(s->cuda), wr, dash(s->rocm), wk,
		        dash(s->kernel), wo, dash(s->os), u(&s->links_degraded), u(&s->failing), note);
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

static void print_text(FILE *o, const struct ga_fleet_report *r, const struct ga_fleet_diff *d,
                       const char *old)
{
	fprintf(o, "fleet: %llu node%s in %zu class%s with %zu stack%s, %llu check report%s, %llu skipped\n",
	        u(&r->nodes), u(&r->nodes) == 1 ? "" : "s", r->n_classes, r->n_classes == 1 ? "" : "es",
	        n_stacks(r), n_stacks(r) == 1 ? "" : "s", u(&r->check_reports),
	        u(&r->check_reports) == 1 ? "" : "s", u(&r->skipped));
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

struct fleet_args {
	const char *policy_file, *old_file;
	enum fmt fmt;
	int fmts, verbose;
	size_t max_drift;
	unsigned jobs;
};

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
	return CLI_UNKNOWN;
}

/* The operands: files, directories, '-' at most once. CLI_NEXT or the usage error's code. */
static int check_operands(struct cli *cli, int argc, char **argv)
{
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
		return cli_error(cli, "fleet", EXIT_USAGE, "no node snapshot or check report was read");
	if (unreadable || u64(&rep->skipped))
		return EXIT_USAGE;
	return u64(&rep->drift_nodes) ? EXIT_PROBLEMS : EXIT_OK;
}

int cmd_fleet(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'P' }, { "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },     { "csv", no_argument, NULL, 'c' },
		{ "diff", required_argument, NULL, 'd' },   { "max-drift", required_argument, NULL, 'M' },
		{ "jobs", required_argument, NULL, 'J' },   { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct fleet_args a = { .max_drift = GA_FLEET_MAX_DRIFT_DEFAULT,
		                .jobs = cpus < 1    ? 1
		                        : cpus > 64 ? 64
		                                    : (unsigned)cpus };
	int code = cli_parse(cli, "fleet", argc, argv, "jv", opts, fleet_opt, &a);
	if (code != CLI_NEXT)
		return code;
	if (a.fmts & (a.fmts - 1))
		return cli_error(cli, "fleet", EXIT_USAGE, "--json, --markdown and --csv exclude each other");
	if ((code = check_operands(cli, argc, argv)) != CLI_NEXT)
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
	struct ga_fleet_opts fo = { .policy = policy, .max_drift = a.max_drift, .jobs = a.jobs };
	if (ga_fleet_new(&fo, &fleet) < 0) {
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	int unreadable = read_reports(cli, ctx, fleet, argc, argv);
	if (unreadable < 0) {
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
