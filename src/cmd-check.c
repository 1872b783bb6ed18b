/*
 * cmd-check.c - `gpuaudit check`: the node against its class in a golden-image
 * policy (docs/policy.md), printed as text, JSON, a node-problem-detector
 * plugin line or a Slurm drain reason, optionally also written as NFD labels.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node-action.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/nodereport-analyze.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/verdict.h"
#include "gpuaudit/verdict-analyze.h"

#define NPD_MAX CLI_NPD_MAX /* node-problem-detector's default max_output_length */
#define SLURM_MAX 160       /* a drain reason that still reads in `sinfo -R` */

enum mode { MODE_TEXT, MODE_JSON, MODE_NPD, MODE_SLURM };

#define one_line cli_one_line

static const char *evidence(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

static void print_text(FILE *o, const struct ga_policy *p, const struct ga_check *c, bool pci_known,
                       bool color)
{
	const char *res = c->result == GA_CHECK_PASS           ? "PASS"
	                  : c->result == GA_CHECK_FAIL         ? "FAIL"
	                  : c->result == GA_CHECK_INCOMPLETE   ? "INCOMPLETE"
	                  : c->result == GA_CHECK_INCONCLUSIVE ? "INCONCLUSIVE"
	                                                       : "UNKNOWN";
	/* the INCOMPLETE finding already lists what was read */
	const char *pci = "";
	if (!pci_known && c->result != GA_CHECK_INCOMPLETE)
		pci = c->cls ? "; PCI devices not read" : "; PCI devices not read, so no class matches";
	fprintf(o, "class %s: %s%s%s (policy %s: %zu violation%s, %zu unknown%s)\n",
	        c->cls ? cli_esc(c->cls->name) : "-",
	        color ? (c->result == GA_CHECK_PASS ? "\033[32m" : "\033[31m") : "", res,
	        color ? "\033[0m" : "", cli_esc(p->file), c->violations, c->violations == 1 ? "" : "s",
	        c->unknowns, pci);
	fprintf(o, "findings: %zu\n", c->findings.n);
	for (size_t i = 0; i < c->findings.n; i++) {
		const struct ga_finding *fd = &c->findings.v[i];
		fprintf(o, "  %-8s %s %s: %s\n", ga_severity_name(fd->severity), cli_esc(fd->code),
		        cli_esc(fd->subject), cli_esc(fd->message));
		const char *e = evidence(fd, "expected"), *a = evidence(fd, "actual");
		if (e || a)
			fprintf(o, "           expected %s, actual %s\n", e ? cli_esc(e) : "-",
			        a ? cli_esc(a) : "-");
		if (fd->decision)
			fprintf(o, "           fix: %s\n", cli_esc(fd->decision));
		cli_print_action(o, "           ", fd);
	}
}

/* The report names the checked node's host, so that fleet can tell check reports apart. */
static int print_json(struct cli *cli, const struct ga_policy *p, struct ga_check *c, const struct ga_node *n)
{
	struct ga_check_report rep;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_check_report_take(&rep, c, p->file, n->host.hostname);
	if (r == 0)
		r = ga_model_write(ga_model_find(GA_CHECK_SCHEMA), &rep, &b, true);
	if (r == 0)
		fwrite(b.data, 1, b.len, cli->out);
	ga_schema_release(&ga_check_report_schema, &rep);
	ga_buf_release(&b);
	return r;
}

/* The node's action (node-action.h) as one line; rendered, not decided here. */
static void reason(const struct ga_check *c, char *out, size_t n)
{
	struct ga_node_action na;
	ga_node_action_of(&c->findings, &na);
	const struct ga_finding *f = na.finding;
	if (f && na.errors > 1)
		snprintf(out, n, "%s %s %s: %s (+%zu more)", ga_action_name(f->action), f->code, f->subject,
		         f->message, na.errors - 1);
	else if (f)
		snprintf(out, n, "%s %s %s: %s", ga_action_name(f->action), f->code, f->subject, f->message);
	else
		snprintf(out, n, "check failed");
}

static void print_npd(FILE *o, const struct ga_check *c)
{
	char line[512], why[400];
	const char *name = c->cls ? c->cls->name : "no class";
	if (c->result == GA_CHECK_PASS) {
		snprintf(line, sizeof(line), "gpuaudit: %s: pass", name);
	} else if (c->result == GA_CHECK_FAIL) {
		reason(c, why, sizeof(why));
		snprintf(line, sizeof(line), "gpuaudit: %s: %s", name, why);
	} else if (c->result == GA_CHECK_INCOMPLETE) {
		snprintf(line, sizeof(line), "gpuaudit: %s: incomplete: nothing of /proc or /sys read", name);
	} else if (c->result == GA_CHECK_INCONCLUSIVE) {
		snprintf(line, sizeof(line), "gpuaudit: %s: inconclusive: PCI not read, mount /sys", name);
	} else {
		snprintf(line, sizeof(line), "gpuaudit: %s: unknown: vendor library unavailable", name);
	}
	one_line(line, NPD_MAX);
	fprintf(o, "%s\n", line);
}

static void print_slurm(FILE *o, const struct ga_check *c)
{
	if (c->result != GA_CHECK_FAIL)
		return;
	char line[512], why[400];
	reason(c, why, sizeof(why));
	snprintf(line, sizeof(line), "gpuaudit: %s", why);
	for (char *p = line; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '`' || *p == '$')
			*p = '\'';
	one_line(line, SLURM_MAX);
	fprintf(o, "%s\n", line);
}

/* In --npd mode every outcome is one stdout line and exit 0/1/2 (NPD: anything else is Unknown too). */
#define fail_early(cli, mode, code, ...) \
	cli_report_fail(cli, "check", "cannot check", (mode) == MODE_NPD, code, __VA_ARGS__)

struct check_opts {
	struct snap_opts so;
	const char *policy_file, *class_name, *nfd_dir;
	enum mode mode;
	int modes;
	long expiry_s;
};

static int check_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct check_opts *o = st;
	int k = snap_opt(cli, cmd, opt, arg, &o->so);
	if (k)
		return k < 0 ? -k : CLI_NEXT;
	switch (opt) {
	case 'P':
		o->policy_file = arg;
		return CLI_NEXT;
	case 'C':
		o->class_name = arg;
		return CLI_NEXT;
	case 'j':
		o->mode = MODE_JSON, o->modes |= 1;
		return CLI_NEXT;
	case 'n':
		o->mode = MODE_NPD, o->modes |= 2;
		return CLI_NEXT;
	case 's':
		o->mode = MODE_SLURM, o->modes |= 4;
		return CLI_NEXT;
	case 'D':
		o->nfd_dir = arg;
		return CLI_NEXT;
	case 'E':
		return cli_parse_long(cli, cmd, "--nfd-expiry", "seconds", arg, 60, 30L * 86400,
		                      &o->expiry_s);
	default:
		return CLI_UNKNOWN;
	}
}

/* The result in the mode asked for; code is the check's exit code, returned as the mode wants it. */
static int check_print(struct cli *cli, enum mode mode, const struct ga_policy *policy, struct ga_check *chk,
                       const struct ga_node *node, int code)
{
	switch (mode) {
	case MODE_JSON:
		if (print_json(cli, policy, chk, node) < 0)
			code = cli_error(cli, "check", EXIT_INTERNAL, "JSON output failed");
		break;
	case MODE_NPD:
		print_npd(cli->out, chk);
		code = code == EXIT_OK ? 0 : code == EXIT_PROBLEMS ? 1 : 2;
		break;
	case MODE_SLURM:
		print_slurm(cli->out, chk);
		break;
	default:
		print_text(cli->out, policy, chk, ga_node_pci_known(node), cli->color);
	}
	return code;
}

int cmd_check(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "policy", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "nfd-dir", required_argument, NULL, 'D' },
		{ "nfd-expiry", required_argument, NULL, 'E' },
		{ "npd", no_argument, NULL, 'n' },
		{ "slurm", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_opts o = { .mode = MODE_TEXT, .expiry_s = 3600 };
	snap_opts_init(&o.so);
	int code = cli_parse(cli, "check", argc, argv, "j" SNAP_SHORT_OPTIONS, opts, check_opt, &o);
	if (code == CLI_NEXT)
		code = cli_no_operands(cli, "check", argc, argv);
	if (code != CLI_NEXT)
		return code;
	struct snap_opts so = o.so;
	const char *policy_file = o.policy_file, *class_name = o.class_name, *nfd_dir = o.nfd_dir;
	enum mode mode = o.mode;
	long expiry_s = o.expiry_s;
	if (o.modes & (o.modes - 1))
		return cli_error(cli, "check", EXIT_USAGE, "--json, --npd and --slurm exclude each other");
	if (!policy_file)
		return fail_early(cli, mode, EXIT_USAGE, "--policy FILE is required (try -h)");
	code = snap_validate(cli, "check", &so);
	if (code != EXIT_OK)
		return code;

	struct ga_ctx *ctx = NULL;
	code = snap_ctx(cli, "check", &so, &ctx);
	if (code != EXIT_OK)
		return mode == MODE_NPD ? 2 : code;
	struct ga_policy *policy = NULL;
	struct ga_node *node = NULL;
	struct ga_check chk = { 0 };
	struct ga_buf nfd;
	ga_buf_init(&nfd, 64 * 1024); /* NFD's limit per feature file */
	const struct ga_policy_class *cls = NULL;

	int r = snap_node(ctx, &so, &node);
	if (r == 0)
		r = cli_policy(ctx, policy_file, class_name, node, &policy, &cls);
	if (r < 0) {
		code = fail_early(cli, mode, cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
		goto out;
	}
	/* the vendor libraries were wanted: forced, or the default on the live machine */
	bool live = !so.from && !strcmp(ga_ctx_root(ctx), "/");
	bool vendor_wanted = so.vendor == GA_VENDOR_ON || (so.vendor == GA_VENDOR_AUTO && live);
	r = ga_check_node(node, cls, vendor_wanted, &chk);
	if (r < 0) {
		code = fail_early(cli, mode, EXIT_INTERNAL, "check failed: %s", strerror(-r));
		goto out;
	}
	code = chk.result == GA_CHECK_PASS           ? EXIT_OK
	       : chk.result == GA_CHECK_FAIL         ? EXIT_PROBLEMS
	       : chk.result == GA_CHECK_INCOMPLETE   ? EXIT_USAGE /* like an unreadable snapshot */
	       : chk.result == GA_CHECK_INCONCLUSIVE ? EXIT_INCONCLUSIVE
	                                             : EXIT_UNAVAILABLE;

	if (nfd_dir) {
		char err[512];
		struct ga_node_verdict vd;
		if (ga_node_verdict_build(node, cls, true, &vd, NULL) < 0) {
			code = fail_early(cli, mode, EXIT_INTERNAL, "out of memory");
			goto out;
		}
		r = cli_nfd_labels(&nfd, "check", node, &vd, &chk, expiry_s);
		ga_node_verdict_release(&vd);
		if (r < 0) {
			code = fail_early(cli, mode, EXIT_INTERNAL, "NFD labels exceed 64 KiB");
			goto out;
		}
		if (cli_nfd_write(nfd_dir, &nfd, err, sizeof(err)) < 0) {
			code = fail_early(cli, mode, EXIT_USAGE, "%s", err);
			goto out;
		}
	}

	code = check_print(cli, mode, policy, &chk, node, code);
out:
	ga_buf_release(&nfd);
	ga_check_release(&chk);
	ga_node_free(node);
	ga_policy_free(policy);
	ga_ctx_free(ctx);
	return code;
}
