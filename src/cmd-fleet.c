/*
 * cmd-fleet.c - `gpuaudit fleet`: many nodes' snapshots and check reports in,
 * the compatibility matrix (hardware classes and the software stacks present
 * in each, with node counts) and the drift list out, as text, Markdown, CSV or
 * JSON, optionally with what changed since a previous JSON report.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/policy.h"

#define OLD_MAX (256u << 20) /* a --diff report: 256 MiB is millions of drift entries */

enum fmt { FMT_TEXT, FMT_JSON, FMT_MARKDOWN, FMT_CSV };

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
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
	fprintf(o, "\n%s: %llu node%s, %llu GPU%s", k->id, u(&k->nodes), u(&k->nodes) == 1 ? "" : "s",
	        u(&k->gpus), u(&k->gpus) == 1 ? "" : "s");
	if (u(&k->gpus) < u(&k->expected_gpus))
		fprintf(o, " (FEWER than the pool's %llu)", u(&k->expected_gpus));
	fprintf(o, ", pool %s\n", k->pool ? k->pool : "none (no policy class matches)");
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
			fprintf(o, "  %7s  %8s  %s\n", "", "", s->drift_detail);
	}
}

static void text_diff(FILE *o, const struct ga_fleet_diff *d, const char *old)
{
	fprintf(o, "\nchanges since %s: nodes %llu -> %llu, drift %llu -> %llu, %zu change%s\n", old,
	        u(&d->old_nodes), u(&d->new_nodes), u(&d->old_drift_nodes), u(&d->new_drift_nodes),
	        d->n_changes, d->n_changes == 1 ? "" : "s");
	if (d->drift_complete.set && !d->drift_complete.v)
		fprintf(o, "  (a drift list was cut at --max-drift: hosts past the cut are not compared)\n");
	for (size_t i = 0; i < d->n_changes; i++) {
		const struct ga_fleet_change *c = &d->changes[i];
		fprintf(o, "  %s %-14s", change_sign(c->kind), c->kind);
		if (c->host)
			fprintf(o, " %s", c->host);
		if (c->class_id)
			fprintf(o, " %s", c->class_id);
		if (c->stack_sha256)
			fprintf(o, " stack %.8s", c->stack_sha256);
		if (c->old_nodes.set && c->new_nodes.set)
			fprintf(o, ": %llu -> %llu nodes", u(&c->old_nodes), u(&c->new_nodes));
		else if (c->new_nodes.set)
			fprintf(o, ": %llu node%s", u(&c->new_nodes), u(&c->new_nodes) == 1 ? "" : "s");
		else if (c->old_nodes.set)
			fprintf(o, ": was %llu node%s", u(&c->old_nodes), u(&c->old_nodes) == 1 ? "" : "s");
		if (c->detail)
			fprintf(o, " (%s)", c->detail);
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
		        r->policy);
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
		fprintf(o, "  %-20s %-14s %s", e->host, rs, e->class_id ? e->class_id : "(check report)");
		if (e->stack_sha256)
			fprintf(o, " stack %.8s", e->stack_sha256);
		if (e->detail)
			fprintf(o, ": %s", e->detail);
		fputc('\n', o);
	}
	if (u(&r->skipped)) {
		fprintf(o, "\nskipped: %llu report%s\n", u(&r->skipped), u(&r->skipped) == 1 ? "" : "s");
		for (size_t i = 0; i < r->n_skipped_reports; i++)
			fprintf(o, "  %s: %s\n", r->skipped_reports[i].source, r->skipped_reports[i].reason);
		if (r->n_skipped_reports < u(&r->skipped))
			fprintf(o, "  ... and %llu more\n", u(&r->skipped) - r->n_skipped_reports);
	}
	if (d)
		text_diff(o, d, old);
}

/* --- Markdown --------------------------------------------------------------- */

/* A table cell: '|' escaped, newlines (never expected) as spaces, empty as "-". */
static void md(FILE *o, const char *s)
{
	s = dash(s);
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_' || *s == '<')
			fputc('\\', o);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, o);
	}
}

static void print_markdown(FILE *o, const struct ga_fleet_report *r, const struct ga_fleet_diff *d,
                           const char *old)
{
	fprintf(o, "# Fleet compatibility matrix\n\n");
	fprintf(o,
	        "%llu nodes in %zu hardware classes with %zu stacks; %llu check reports; "
	        "%llu reports skipped; **%llu nodes drift**.\n",
	        u(&r->nodes), r->n_classes, n_stacks(r), u(&r->check_reports), u(&r->skipped),
	        u(&r->drift_nodes));
	if (r->policy) {
		fprintf(o, "Policy: ");
		md(o, r->policy);
		fprintf(o, " (drift: pins violated, fewer GPUs, degraded links, failing checks).\n");
	} else {
		fprintf(o, "No policy: drift is against each pool's majority stack.\n");
	}
	for (size_t i = 0; i < r->n_classes; i++) {
		const struct ga_fleet_class *k = &r->classes[i];
		fprintf(o, "\n## ");
		md(o, k->id);
		fprintf(o, "\n\n%llu node%s, %llu GPU%s", u(&k->nodes), u(&k->nodes) == 1 ? "" : "s",
		        u(&k->gpus), u(&k->gpus) == 1 ? "" : "s");
		if (u(&k->gpus) < u(&k->expected_gpus))
			fprintf(o, " (**fewer** than the pool's %llu)", u(&k->expected_gpus));
		fprintf(o, ", pool ");
		md(o, k->pool ? k->pool : "none (no policy class matches)");
		fprintf(o, ".\n\n| Nodes | Stack | Driver | CUDA | ROCm | Kernel | OS | Degraded links | "
		           "Failing | Status |\n|---:|---|---|---|---|---|---|---:|---:|---|\n");
		for (size_t s = 0; s < k->n_stacks; s++) {
			const struct ga_fleet_stack *st = &k->stacks[s];
			char sha[16];
			snprintf(sha, sizeof(sha), "%.8s", dash(st->stack_sha256));
			fprintf(o, "| %llu | ", u(&st->nodes));
			md(o, sha);
			const char *cols[] = { st->driver, st->cuda, st->rocm, st->kernel, st->os };
			for (size_t c = 0; c < 5; c++) {
				fprintf(o, " | ");
				md(o, cols[c]);
			}
			fprintf(o, " | %llu | %llu | ", u(&st->links_degraded), u(&st->failing));
			if (st->drift.set && st->drift.v) {
				fprintf(o, "drift: ");
				md(o, st->drift_detail);
			} else {
				fprintf(o, "%s", st->majority.set && st->majority.v ? "majority" : "ok");
			}
			fprintf(o, " |\n");
		}
	}
	if (r->n_checks) {
		fprintf(o, "\n## Check reports\n\n| Policy class | Pass | Fail | Unknown "
		           "|\n|---|---:|---:|---:|\n");
		for (size_t i = 0; i < r->n_checks; i++) {
			fprintf(o, "| ");
			md(o, r->checks[i].class);
			fprintf(o, " | %llu | %llu | %llu |\n", u(&r->checks[i].pass), u(&r->checks[i].fail),
			        u(&r->checks[i].unknown));
		}
	}
	fprintf(o, "\n## Drift\n\n%llu nodes", u(&r->drift_nodes));
	if (r->n_drift < u(&r->drift_nodes))
		fprintf(o, "; the first %zu by host are listed", r->n_drift);
	fprintf(o, ".\n");
	if (r->n_drift) {
		fprintf(o, "\n| Host | Reasons | Class | Stack | Detail |\n|---|---|---|---|---|\n");
		for (size_t i = 0; i < r->n_drift; i++) {
			const struct ga_fleet_drift *e = &r->drift[i];
			char rs[128], sha[16];
			reasons(e, rs, sizeof(rs));
			snprintf(sha, sizeof(sha), "%.8s", dash(e->stack_sha256));
			const char *cols[] = { e->host, rs, e->class_id ? e->class_id : "(check report)", sha,
				               e->detail };
			for (size_t c = 0; c < 5; c++) {
				fprintf(o, "| ");
				md(o, cols[c]);
				fprintf(o, " ");
			}
			fprintf(o, "|\n");
		}
	}
	if (u(&r->skipped)) {
		fprintf(o,
		        "\n## Skipped reports\n\n%llu reports could not be used.\n\n| Source | Reason "
		        "|\n|---|---|\n",
		        u(&r->skipped));
		for (size_t i = 0; i < r->n_skipped_reports; i++) {
			fprintf(o, "| ");
			md(o, r->skipped_reports[i].source);
			fprintf(o, " | ");
			md(o, r->skipped_reports[i].reason);
			fprintf(o, " |\n");
		}
	}
	if (d) {
		fprintf(o, "\n## Changes since ");
		md(o, old);
		fprintf(o, "\n\nNodes %llu → %llu, drift %llu → %llu.", u(&d->old_nodes), u(&d->new_nodes),
		        u(&d->old_drift_nodes), u(&d->new_drift_nodes));
		if (d->drift_complete.set && !d->drift_complete.v)
			fprintf(o,
			        " A drift list was cut at --max-drift: hosts past the cut are not compared.");
		fprintf(o, "\n");
		if (d->n_changes)
			fprintf(o, "\n| Change | Host | Class | Stack | Nodes | Detail "
			           "|\n|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < d->n_changes; i++) {
			const struct ga_fleet_change *c = &d->changes[i];
			char sha[16], nodes[64] = "";
			snprintf(sha, sizeof(sha), "%.8s", dash(c->stack_sha256));
			if (c->old_nodes.set && c->new_nodes.set)
				snprintf(nodes, sizeof(nodes), "%llu → %llu", u(&c->old_nodes),
				         u(&c->new_nodes));
			else if (c->new_nodes.set || c->old_nodes.set)
				snprintf(nodes, sizeof(nodes), "%llu",
				         u(c->new_nodes.set ? &c->new_nodes : &c->old_nodes));
			const char *cols[] = { c->kind, c->host, c->class_id, sha, nodes, c->detail };
			for (size_t k = 0; k < 6; k++) {
				fprintf(o, "| ");
				if (k == 4)
					fprintf(o, "%s", *nodes ? nodes : "-");
				else
					md(o, cols[k]);
				fprintf(o, " ");
			}
			fprintf(o, "|\n");
		}
	}
}

/* --- CSV (RFC 4180) ------------------------------------------------------------ */

static void csv(FILE *o, const char *s, bool last)
{
	if (s && strpbrk(s, ",\"\r\n")) {
		fputc('"', o);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', o);
			fputc(*s, o);
		}
		fputc('"', o);
	} else if (s) {
		fputs(s, o);
	}
	fputs(last ? "\r\n" : ",", o);
}

static void csv_u(FILE *o, const struct ga_ou64 *v)
{
	if (v->set)
		fprintf(o, "%llu", (unsigned long long)v->v);
	fputc(',', o);
}

static void csv_b(FILE *o, const struct ga_obool *v)
{
	if (v->set)
		fputs(v->v ? "true" : "false", o);
	fputc(',', o);
}

#define CSV_HEADER                                                                                    \
	"record,class,pool,gpus,expected_gpus,stack,driver,cuda,rocm,kernel,os,nodes,links_degraded," \
	"failing,majority,drift,host,source,reasons,detail,change,old_nodes,new_nodes\r\n"

static void print_csv(FILE *o, const struct ga_fleet_report *r, const struct ga_fleet_diff *d)
{
	fputs(CSV_HEADER, o);
	for (size_t i = 0; i < r->n_classes; i++) {
		const struct ga_fleet_class *k = &r->classes[i];
		for (size_t s = 0; s < k->n_stacks; s++) {
			const struct ga_fleet_stack *st = &k->stacks[s];
			csv(o, "stack", false);
			csv(o, k->id, false);
			csv(o, k->pool, false);
			csv_u(o, &k->gpus);
			csv_u(o, &k->expected_gpus);
			csv(o, st->stack_sha256, false);
			csv(o, st->driver, false);
			csv(o, st->cuda, false);
			csv(o, st->rocm, false);
			csv(o, st->kernel, false);
			csv(o, st->os, false);
			csv_u(o, &st->nodes);
			csv_u(o, &st->links_degraded);
			csv_u(o, &st->failing);
			csv_b(o, &st->majority);
			csv_b(o, &st->drift);
			fputs(",,,", o);
			csv(o, st->drift_detail, false);
			fputs(",,\r\n", o);
		}
	}
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct ga_fleet_checks *c = &r->checks[i];
		char detail[96];
		snprintf(detail, sizeof(detail), "pass %llu, fail %llu, unknown %llu", u(&c->pass),
		         u(&c->fail), u(&c->unknown));
		struct ga_ou64 total = { u(&c->pass) + u(&c->fail) + u(&c->unknown), true };
		csv(o, "check", false);
		fputs(",", o);
		csv(o, c->class, false);
		fputs(",,,,,,,,", o);
		csv_u(o, &total);
		fputs(",", o);
		csv_u(o, &c->fail);
		fputs(",,,,,", o);
		csv(o, detail, false);
		fputs(",,\r\n", o);
	}
	for (size_t i = 0; i < r->n_drift; i++) {
		const struct ga_fleet_drift *e = &r->drift[i];
		char rs[128];
		reasons(e, rs, sizeof(rs));
		csv(o, "drift", false);
		csv(o, e->class_id, false);
		fputs(",,,", o);
		csv(o, e->stack_sha256, false);
		fputs(",,,,,,,,,,", o);
		csv(o, e->host, false);
		csv(o, e->source, false);
		csv(o, rs, false);
		csv(o, e->detail, false);
		fputs(",,\r\n", o);
	}
	for (size_t i = 0; i < r->n_skipped_reports; i++) {
		csv(o, "skipped", false);
		fputs(",,,,,,,,,,,,,,,,", o);
		csv(o, r->skipped_reports[i].source, false);
		fputs(",", o);
		csv(o, r->skipped_reports[i].reason, false);
		fputs(",,\r\n", o);
	}
	for (size_t i = 0; d && i < d->n_changes; i++) {
		const struct ga_fleet_change *c = &d->changes[i];
		csv(o, "change", false);
		csv(o, c->class_id, false);
		fputs(",,,", o);
		csv(o, c->stack_sha256, false);
		fputs(",,,,,,,,,,", o);
		csv(o, c->host, false);
		fputs(",,", o);
		csv(o, c->detail, false);
		csv(o, c->kind, false);
		csv_u(o, &c->old_nodes);
		if (c->new_nodes.set)
			fprintf(o, "%llu", u(&c->new_nodes));
		fputs("\r\n", o);
	}
}

/* --- JSON ----------------------------------------------------------------------- */

static int print_json(FILE *o, const struct ga_fleet_report *r, const struct ga_fleet_diff *d)
{
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, true);
	ga_json_obj_begin(&w);
	ga_fleet_report_write_members(r, &w);
	if (d) {
		ga_json_key(&w, "diff");
		ga_schema_write(&w, &ga_fleet_diff_schema, d);
	}
	ga_json_obj_end(&w);
	int rc = ga_json_finish(&w);
	if (rc == 0)
		fwrite(b.data, 1, b.len, o);
	ga_buf_release(&b);
	return rc;
}

static int load_old(struct ga_ctx *ctx, const char *file, struct ga_fleet_report **ret)
{
	FILE *f = fopen(file, "rb");
	if (!f)
		return ga_err(ctx, -errno, "%s: %s", file, strerror(errno));
	struct ga_buf b;
	ga_buf_init(&b, OLD_MAX);
	char chunk[65536];
	size_t got;
	int r = 0;
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

int cmd_fleet(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'P' }, { "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },     { "csv", no_argument, NULL, 'c' },
		{ "diff", required_argument, NULL, 'd' },   { "max-drift", required_argument, NULL, 'M' },
		{ "jobs", required_argument, NULL, 'J' },   { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	const char *policy_file = NULL, *old_file = NULL;
	enum fmt fmt = FMT_TEXT;
	int fmts = 0, verbose = 0, opt;
	size_t max_drift = GA_FLEET_MAX_DRIFT_DEFAULT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = cpus < 1 ? 1 : cpus > 64 ? 64 : (unsigned)cpus;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+hjv", opts, NULL)) != -1) {
		switch (opt) {
		case 'P':
			policy_file = optarg;
			break;
		case 'j':
			fmt = FMT_JSON, fmts |= 1;
			break;
		case 'm':
			fmt = FMT_MARKDOWN, fmts |= 2;
			break;
		case 'c':
			fmt = FMT_CSV, fmts |= 4;
			break;
		case 'd':
			old_file = optarg;
			break;
		case 'M': {
			char *end = NULL;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || !end || *end || end == optarg || optarg[0] == '-' || v > 10000000)
				return cli_error(cli, "fleet", EXIT_USAGE,
				                 "--max-drift wants a count between 0 and 10000000, not '%s'",
				                 optarg);
			max_drift = (size_t)v;
			break;
		}
		case 'J': {
			char *end = NULL;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || !end || *end || end == optarg || optarg[0] == '-' || v < 1 || v > 64)
				return cli_error(cli, "fleet", EXIT_USAGE,
				                 "--jobs wants a count between 1 and 64, not '%s'", optarg);
			jobs = (unsigned)v;
			break;
		}
		case 'v':
			verbose++;
			break;
		case 'h':
			cli_usage(cli, cli_find("fleet"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "fleet", opts, argv);
		}
	}
	if (fmts & (fmts - 1))
		return cli_error(cli, "fleet", EXIT_USAGE, "--json, --markdown and --csv exclude each other");
	if (optind >= argc)
		return cli_error(cli, "fleet", EXIT_USAGE,
		                 "no reports: name files, directories or '-' for stdin (try -h)");
	int stdin_uses = 0;
	for (int i = optind; i < argc; i++)
		stdin_uses += !strcmp(argv[i], "-");
	if (stdin_uses > 1)
		return cli_error(cli, "fleet", EXIT_USAGE, "'-' (stdin) can be named only once");

	struct ga_ctx *ctx = NULL;
	int code = cli_ctx(cli, "fleet", NULL, verbose, &ctx);
	if (code != EXIT_OK)
		return code;
	struct ga_policy *policy = NULL;
	struct ga_fleet *fleet = NULL;
	struct ga_fleet_report *rep = NULL, *old = NULL;
	struct ga_fleet_diff *diff = NULL;
	bool unreadable = false;
	int r = 0;
	if (policy_file && (r = ga_policy_load(ctx, policy_file, &policy)) < 0) {
		code = cli_error(cli, "fleet", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                 ga_ctx_errmsg(ctx));
		goto out;
	}
	if (old_file && (r = load_old(ctx, old_file, &old)) < 0) {
		code = cli_error(cli, "fleet", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "--diff: %s",
		                 ga_ctx_errmsg(ctx));
		goto out;
	}
	struct ga_fleet_opts fo = { .policy = policy, .max_drift = max_drift, .jobs = jobs };
	if (ga_fleet_new(&fo, &fleet) < 0) {
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		r = ga_reports_read_path(ctx, fleet, argv[i]);
		if (r == -ENOMEM) {
			code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory reading %s", argv[i]);
			goto out;
		}
		if (r < 0) {
			cli_error(cli, "fleet", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
			unreadable = true;
		}
	}
	if (ga_fleet_report(fleet, &rep) < 0 || (old && ga_fleet_diff(old, rep, &diff) < 0)) {
		code = cli_error(cli, "fleet", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rep->n_skipped_reports; i++)
		cli_error(cli, "fleet", 0, "skipped %s: %s", rep->skipped_reports[i].source,
		          rep->skipped_reports[i].reason);
	if (rep->n_skipped_reports < u(&rep->skipped))
		cli_error(cli, "fleet", 0, "skipped %llu more reports",
		          u(&rep->skipped) - rep->n_skipped_reports);

	switch (fmt) {
	case FMT_JSON:
		if (print_json(cli->out, rep, diff) < 0) {
			code = cli_error(cli, "fleet", EXIT_INTERNAL, "JSON output failed");
			goto out;
		}
		break;
	case FMT_MARKDOWN:
		print_markdown(cli->out, rep, diff, old_file);
		break;
	case FMT_CSV:
		print_csv(cli->out, rep, diff);
		break;
	default:
		print_text(cli->out, rep, diff, old_file);
	}
	if (unreadable || u(&rep->skipped) || u(&rep->nodes) + u(&rep->check_reports) == 0) {
		if (u(&rep->nodes) + u(&rep->check_reports) == 0)
			cli_error(cli, "fleet", EXIT_USAGE, "no node snapshot or check report was read");
		code = EXIT_USAGE;
	} else {
		code = u(&rep->drift_nodes) ? EXIT_PROBLEMS : EXIT_OK;
	}
out:
	ga_fleet_diff_free(diff);
	ga_fleet_report_free(old);
	ga_fleet_report_free(rep);
	ga_fleet_free(fleet);
	ga_policy_free(policy);
	ga_ctx_free(ctx);
	return code;
}
