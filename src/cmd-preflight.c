/*
 * cmd-preflight.c - `gpuaudit preflight`: the per-node-class job a deployment
 * pipeline runs before traffic arrives. The steps (discover, check, scan,
 * warm-up, explain) run in the library, ga_preflight_run (preflight-run.h);
 * the command parses its options, collects the node, loads the policy, reads
 * the environment, calls it, prints one report (text, JSON or JUnit XML) of
 * the result and picks the one exit code.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "explain-report.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/junit.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/preflight-emit.h"
#include "gpuaudit/preflight-analyze.h"
#include "gpuaudit/preflight-run.h"
#include "gpuaudit/run.h"
#include "gpuaudit/warmup.h"

#define MAX_SCAN 32
#define OUTPUT_LINES 12 /* lines of captured output shown in the text report */

struct pf {
	struct cli *cli;
	bool times;
	struct ga_node *node;
	struct ga_policy *policy;
	const char *scan_paths[MAX_SCAN];
	struct ga_pf_opts o;  /* what ga_preflight_run runs */
	struct ga_pf_run run; /* what it found and decided: rendered here */
};

/* --- a signal to preflight ends the warm-up's process group too --- */

static volatile sig_atomic_t child_pgid;

static void on_signal(int sig)
{
	if (child_pgid > 0)
		kill(-(pid_t)child_pgid, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void forward_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* --- text --- */

static void print_container(FILE *o, const struct ga_pf_doc_container *c)
{
	fprintf(o, "    container (%s): sees %zu of the node's %llu NVIDIA GPU%s", cli_esc(c->detected_by),
	        c->visible_devices.n, (unsigned long long)c->node_gpus.v, c->node_gpus.v == 1 ? "" : "s");
	for (size_t i = 0; i < c->visible_devices.n; i++)
		fprintf(o, "%s%s", i ? " " : " (", cli_esc(c->visible_devices.v[i]));
	fprintf(o, "%s; NVIDIA_VISIBLE_DEVICES%s%s\n", c->visible_devices.n ? ")" : "",
	        c->nvidia_visible_devices ? "=" : " unset",
	        c->nvidia_visible_devices ? cli_esc(c->nvidia_visible_devices) : "");
	fprintf(o, "    driver %s; libraries:", c->driver_version ? cli_esc(c->driver_version) : "unknown");
	if (!c->n_libraries)
		fputs(" none", o);
	for (size_t i = 0; i < c->n_libraries; i++)
		fprintf(o, " %s", cli_esc(c->libraries[i].path));
	fputc('\n', o);
	for (size_t i = 0; i < c->findings.n; i++) {
		const struct ga_finding *f = &c->findings.v[i];
		fprintf(o, "    %s %s: %s\n", ga_severity_name(f->severity), cli_esc(f->code),
		        cli_esc(f->message));
		if (f->decision)
			fprintf(o, "      fix: %s\n", cli_esc(f->decision));
	}
}

static void print_findings(FILE *o, const struct ga_findings *f, enum ga_severity min)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct ga_finding *fd = &f->v[i];
		if (fd->severity < min)
			continue;
		fprintf(o, "         %-8s %s %s: %s [%s]\n", ga_severity_name(fd->severity), fd->code,
		        cli_esc(fd->subject), cli_esc(fd->message), ga_action_name(fd->action));
	}
}

/* The last OUTPUT_LINES lines that were kept of a stream. */
static void print_output(FILE *o, const char *name, const struct ga_capture *c)
{
	if (!c->total_bytes)
		return;
	const char *s = c->tail_len ? c->tail : c->head;
	size_t len = c->tail_len ? c->tail_len : c->head_len;
	while (len && s[len - 1] == '\n')
		len--;
	size_t start = len, lines = 0;
	while (start > 0 && lines < OUTPUT_LINES)
		if (s[--start] == '\n' && ++lines == OUTPUT_LINES)
			start++;
	fprintf(o, "         %s: %llu bytes", name, (unsigned long long)c->total_bytes);
	if (c->omitted_bytes)
		fprintf(o, " (kept the first %zu and the last %zu)", c->head_len, c->tail_len);
	fprintf(o, ", last lines:\n");
	const char *p = s + start, *end = s + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		/* the workload's own bytes: made visible by the text rule, cut at 200 */
		char *line = strndup(p, l > 200 ? 200 : l);
		fprintf(o, "           | %s\n", line ? cli_esc(line) : "(out of memory)");
		free(line);
		p += l + 1;
	}
}

static void print_text(struct pf *p, FILE *o)
{
	fprintf(o, "preflight: %s\n",
	        p->run.result == GA_PF_PASS   ? "PASS"
	        : p->run.result == GA_PF_FAIL ? "FAIL"
	                                      : "UNKNOWN");
	size_t nvid = p->node->n_accelerators;
	fprintf(o, "  [%s] discover: %s, %zu accelerator%s, node class %s; %zu error finding%s\n",
	        ga_pf_status_name(p->run.discover),
	        p->node->host.hostname ? cli_esc(p->node->host.hostname) : "(no hostname)", nvid,
	        nvid == 1 ? "" : "s", p->run.nc.name ? p->run.nc.name : "unknown", p->run.node_errors,
	        p->run.node_errors == 1 ? "" : "s");
	/* an unknown step says why: the warnings that made it so (the PCI devices unread) */
	print_findings(o, &p->run.node_findings,
	               p->run.discover == GA_PF_UNKNOWN ? GA_SEV_WARNING : GA_SEV_ERROR);
	if (p->run.container)
		print_container(o, p->run.container);
	if (p->run.checked) {
		fprintf(o, "  [%s] check: class %s: %zu violation%s, %zu unknown (policy %s)\n",
		        ga_pf_status_name(p->run.check), p->run.chk.cls ? p->run.chk.cls->name : "none",
		        p->run.chk.violations, p->run.chk.violations == 1 ? "" : "s", p->run.chk.unknowns,
		        p->policy->file);
		print_findings(o, &p->run.chk.findings, GA_SEV_WARNING);
	} else {
		fprintf(o, "  [skip] check: no --policy\n");
	}
	if (p->run.scanned) {
		fprintf(o, "  [%s] scan: %s\n", ga_pf_status_name(p->run.scan), cli_esc(p->run.scan_msg));
		print_findings(o, &p->run.scan_findings, GA_SEV_WARNING);
	} else {
		fprintf(o, "  [skip] scan: no --scan\n");
	}
	fprintf(o, "  [%s] warm-up: %s\n", ga_pf_status_name(p->run.warmup), cli_esc(p->run.warmup_msg));
	if (p->times) {
		bool ran = p->o.cmd ? p->run.n_runs && !p->run.runs[0].spawn_error : p->run.gemm.ran;
		if (ran) {
			fprintf(o, "         cold start %.3f s",
			        p->o.cmd ? p->run.runs[0].wall_s : p->run.gemm.cold_s);
			if (p->run.have_median)
				fprintf(o, ", warm median %.3f s over %zu run%s", p->run.median_s,
				        p->o.cmd ? p->run.n_runs - 1 : p->run.gemm.n_warm,
				        (p->o.cmd ? p->run.n_runs - 1 : p->run.gemm.n_warm) == 1 ? "" : "s");
			fputc('\n', o);
		}
	}
	if (p->o.cmd && p->run.warmup == GA_PF_FAIL && p->run.n_runs) {
		const struct ga_run_result *r = &p->run.runs[p->run.n_runs - 1];
		print_output(o, "stderr", &r->err);
		print_output(o, "stdout", &r->out);
	}
	if (p->run.ex) {
		fprintf(o, "  explain (the failed warm-up's stderr, then stdout):\n");
		explain_print_text(o, p->run.ex, "    ");
	}
}

/* --- JSON: gpuaudit.preflight/v1, filled in lib/emit/preflight.c, written by its model --- */

static int print_json(struct pf *p)
{
	struct ga_pf_report rep;
	ga_pf_run_report(&p->run, &p->o, p->policy ? p->policy->file : NULL, p->times, &rep);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_preflight_write_json(&rep, &b);
	if (r == 0)
		fwrite(b.data, 1, b.len, p->cli->out);
	ga_buf_release(&b);
	return r;
}

/* --- JUnit XML (lib/emit/junit.c) --- */

/* The explanation as the failure's text: what the text report prints, without indent. */
static char *explain_text(const struct pf *p, size_t *len)
{
	char *buf = NULL;
	*len = 0;
	FILE *m = p->run.ex ? open_memstream(&buf, len) : NULL;
	if (!m)
		return NULL;
	explain_print_text(m, p->run.ex, "");
	fclose(m);
	return buf;
}

static void junit_case(struct ga_junit_case *c, const struct pf *p, const char *name, enum ga_pf_status st,
                       const char *msg, double t, bool have_t, const struct ga_run_result *r)
{
	static const enum ga_junit_status js[] = { GA_JUNIT_PASS, GA_JUNIT_FAILURE, GA_JUNIT_ERROR,
		                                   GA_JUNIT_SKIPPED };
	*c = (struct ga_junit_case){ .classname = "gpuaudit.preflight",
		                     .name = name,
		                     .status = js[st],
		                     .message = msg,
		                     .have_time = p->times && have_t,
		                     .time_s = t,
		                     .out = r ? &r->out : NULL,
		                     .err = r ? &r->err : NULL };
}

static int write_junit(struct pf *p, struct ga_buf *b)
{
	enum ga_pf_status st[4] = { p->run.discover, p->run.checked ? p->run.check : GA_PF_SKIP,
		                    p->run.warmup, p->run.scanned ? p->run.scan : GA_PF_SKIP };
	struct ga_junit_case c[5];
	struct ga_junit_suite s = { .name = "gpuaudit preflight",
		                    .tests = p->o.cmd && p->o.repeat ? 5u : 4u,
		                    .cases = c };
	ga_pf_count(st, 4, &s.failures, &s.errors, &s.skipped);
	char msg[2][512];
	snprintf(msg[0], sizeof(msg[0]), "node class %s: %zu error finding%s",
	         p->run.nc.name ? p->run.nc.name : "unknown", p->run.node_errors,
	         p->run.node_errors == 1 ? "" : "s");
	junit_case(&c[s.n_cases++], p, "discover", p->run.discover, msg[0], 0, false, NULL);
	if (p->run.checked)
		snprintf(msg[1], sizeof(msg[1]), "class %s: %zu violations, %zu unknown",
		         p->run.chk.cls ? p->run.chk.cls->name : "none", p->run.chk.violations,
		         p->run.chk.unknowns);
	else
		snprintf(msg[1], sizeof(msg[1]), "no --policy");
	junit_case(&c[s.n_cases++], p, "check", st[1], msg[1], 0, false, NULL);
	junit_case(&c[s.n_cases++], p, "scan", st[3], p->run.scanned ? p->run.scan_msg : "no --scan", 0,
	           false, NULL);
	const struct ga_run_result *cold = p->o.cmd && p->run.n_runs ? &p->run.runs[0] : NULL;
	enum ga_pf_status cold_st, warm_st;
	ga_pf_warmup_cases(p->run.warmup, p->o.cmd != NULL, p->run.n_runs, &cold_st, &warm_st);
	junit_case(&c[s.n_cases++], p, "warm-up (cold start)", cold_st, p->run.warmup_msg,
	           p->o.cmd ? (cold ? cold->wall_s : 0) : p->run.gemm.cold_s,
	           p->o.cmd ? cold && !cold->spawn_error : p->run.gemm.ran, cold);
	if (p->o.cmd && p->o.repeat) {
		junit_case(&c[s.n_cases++], p, "warm-up (warm runs)", warm_st,
		           warm_st == GA_PF_SKIP ? "the cold start failed" : p->run.warmup_msg,
		           p->run.median_s, p->run.have_median,
		           p->run.n_runs > 1 ? &p->run.runs[p->run.n_runs - 1] : NULL);
	}
	/* the explanation goes with the failing run's case */
	size_t len = 0;
	char *ex = explain_text(p, &len);
	for (size_t i = 0; ex && i < s.n_cases; i++)
		if (c[i].out && (c[i].status == GA_JUNIT_FAILURE || c[i].status == GA_JUNIT_ERROR))
			c[i].detail = ex, c[i].detail_len = len;
	int r = ga_junit_write(b, &s);
	free(ex);
	return r;
}

/*
 * Where --junit FILE will go, checked before anything runs (a bad path is an
 * error first): a regular file or nothing at FILE, in a directory that exists.
 * The report itself is written at the end through ga_file_write_atomic.
 */
static int junit_target(struct cli *cli, const char *file)
{
	struct stat st;
	if (lstat(file, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return cli_error(cli, "preflight", EXIT_USAGE, "cannot write --junit %s: %s", file,
			                 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
		return EXIT_OK;
	}
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", file);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	int e = stat(dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (e)
		return cli_error(cli, "preflight", EXIT_USAGE, "cannot write --junit %s: %s", file,
		                 strerror(e));
	return EXIT_OK;
}

/* The JUnit report to stdout ("-") or atomically to its file: EXIT_OK or the exit code. */
static int emit_junit(struct cli *cli, struct ga_ctx *ctx, struct pf *p, const char *file)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int code = EXIT_OK;
	if (write_junit(p, &b) < 0)
		code = cli_error(cli, "preflight", EXIT_INTERNAL, "writing --junit %s failed", file);
	else if (!strcmp(file, "-"))
		fwrite(b.data, 1, b.len, cli->out);
	else if (ga_file_write_atomic(ctx, file, b.data, b.len, 0644) < 0)
		code = cli_error(cli, "preflight", EXIT_USAGE, "--junit: %s", ga_ctx_errmsg(ctx));
	ga_buf_release(&b);
	return code;
}

/* --- the command --- */

struct pf_args {
	struct pf *p;
	struct snap_opts so;
	const char *policy_file, *class_name, *junit;
	bool json;
};

static int pf_backend(struct cli *cli, struct pf *p, const char *arg)
{
	if (!ga_warmup_backend_known(arg))
		return cli_error(cli, "preflight", EXIT_USAGE,
		                 "--warmup-backend wants auto, cuda, hip, opencl, cblas or cpu, not '%s'",
		                 arg);
	p->o.gemm_backend = arg;
	return CLI_NEXT;
}

static int pf_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct pf_args *a = st;
	struct pf *p = a->p;
	int k = snap_opt(cli, cmd, opt, arg, &a->so);
	if (k != 0)
		return k < 0 ? -k : CLI_NEXT;
	char *end = NULL;
	long n;
	switch (opt) {
	case 'P':
		a->policy_file = arg;
		return CLI_NEXT;
	case 'C':
		a->class_name = arg;
		return CLI_NEXT;
	case 'T':
		p->o.timeout_s = strtod(arg, &end);
		if (!end || *end || !(p->o.timeout_s > 0) || p->o.timeout_s > 86400)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--timeout wants seconds between 0 and 86400, not '%s'", arg);
		return CLI_NEXT;
	case 'R':
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || !end || *end || end == arg || n < 0 || n > GA_PF_MAX_REPEAT)
			return cli_error(cli, cmd, EXIT_USAGE, "--repeat wants 0 to %d, not '%s'",
			                 GA_PF_MAX_REPEAT, arg);
		p->o.repeat = (size_t)n;
		return CLI_NEXT;
	case 'S':
		p->o.shell = true;
		return CLI_NEXT;
	case 'j':
		a->json = true;
		return CLI_NEXT;
	case 'J':
		a->junit = arg;
		return CLI_NEXT;
	case 'Z':
		p->times = false;
		return CLI_NEXT;
	case 'A':
		if (p->o.n_scan == MAX_SCAN)
			return cli_error(cli, cmd, EXIT_USAGE, "at most %d --scan paths", MAX_SCAN);
		p->scan_paths[p->o.n_scan++] = arg;
		return CLI_NEXT;
	case 'B':
		return pf_backend(cli, p, arg);
	}
	return CLI_UNKNOWN;
}

static int pf_parse(struct cli *cli, int argc, char **argv, struct pf_args *a)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "from", required_argument, NULL, 'f' },
		{ "pci-ids", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "vendor", no_argument, NULL, 'V' },
		{ "no-vendor", no_argument, NULL, 'N' },
		{ "vendor-timeout", required_argument, NULL, 't' },
		{ "policy", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "shell", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "junit", required_argument, NULL, 'J' },
		{ "no-times", no_argument, NULL, 'Z' },
		{ "warmup-backend", required_argument, NULL, 'B' },
		{ "scan", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int code = cli_parse(cli, "preflight", argc, argv, "j" SNAP_SHORT_OPTIONS, opts, pf_opt, a);
	if (code != CLI_NEXT)
		return code;
	if (optind < argc)
		a->p->o.cmd = argv + optind;
	if (a->p->o.shell && !a->p->o.cmd)
		return cli_error(cli, "preflight", EXIT_USAGE, "--shell needs a command after --");
	if (a->class_name && !a->policy_file)
		return cli_error(cli, "preflight", EXIT_USAGE, "--class needs --policy");
	if (a->json && a->junit && !strcmp(a->junit, "-"))
		return cli_error(cli, "preflight", EXIT_USAGE, "--json and --junit - both want stdout");
	code = snap_validate(cli, "preflight", &a->so);
	return code == EXIT_OK ? CLI_NEXT : code;
}

/*
 * Policy and class, the node, then the steps in order (ga_preflight_run);
 * the exit code from the overall result. *ran tells whether there is a
 * report to print.
 */
static int pf_run(struct cli *cli, struct ga_ctx *ctx, struct pf_args *a, bool *ran)
{
	struct pf *p = a->p;
	int r = 0;
	const struct ga_policy_class *cls = NULL;
	if (a->policy_file &&
	    (r = cli_policy(ctx, a->policy_file, a->class_name, NULL, &p->policy, &cls)) < 0)
		return cli_error(cli, "preflight", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	if ((r = snap_node(ctx, &a->so, &p->node)) < 0)
		return cli_error(cli, "preflight", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	bool live = !a->so.from && !strcmp(ga_ctx_root(ctx), "/");
	p->o.policy = p->policy;
	p->o.cls = cls;
	p->o.vendor_wanted = a->so.vendor == GA_VENDOR_ON || (a->so.vendor == GA_VENDOR_AUTO && live);
	p->o.env_nvidia_visible_devices = getenv("NVIDIA_VISIBLE_DEVICES");
	p->o.env_kubernetes = live && getenv("KUBERNETES_SERVICE_HOST");
	p->o.running_pgid = &child_pgid;
	if (p->o.cmd)
		forward_signals();
	if (ga_preflight_run(ctx, p->node, &p->o, &p->run) < 0)
		return cli_error(cli, "preflight", EXIT_INTERNAL, "%s",
		                 *ga_ctx_errmsg(ctx) ? ga_ctx_errmsg(ctx) : "out of memory");
	*ran = true;
	enum ga_pf_status res = p->run.result;
	return res == GA_PF_PASS ? EXIT_OK : res == GA_PF_FAIL ? EXIT_PROBLEMS : EXIT_INCONCLUSIVE;
}

static void pf_release(struct pf *p)
{
	ga_pf_run_release(&p->run);
	ga_node_free(p->node);
	ga_policy_free(p->policy);
}

int cmd_preflight(struct cli *cli, int argc, char **argv)
{
	struct pf p;
	memset(&p, 0, sizeof(p));
	p.cli = cli;
	p.times = true;
	p.o.timeout_s = 600;
	p.o.scan_paths = p.scan_paths;
	struct pf_args a = { .p = &p };
	snap_opts_init(&a.so);
	int code = pf_parse(cli, argc, argv, &a);
	if (code != CLI_NEXT)
		return code;
	if (a.junit && strcmp(a.junit, "-") && (code = junit_target(cli, a.junit)) != EXIT_OK)
		return code;
	struct ga_ctx *ctx = NULL;
	code = snap_ctx(cli, "preflight", &a.so, &ctx);
	if (code != EXIT_OK)
		goto out;
	bool ran = false;
	code = pf_run(cli, ctx, &a, &ran);
	if (!ran)
		goto out;
	if (a.junit) {
		int jc = emit_junit(cli, ctx, &p, a.junit);
		if (jc != EXIT_OK)
			code = jc;
	}
	if (a.json) {
		if (print_json(&p) < 0)
			code = cli_error(cli, "preflight", EXIT_INTERNAL, "JSON output failed");
	} else if (!a.junit || strcmp(a.junit, "-")) {
		print_text(&p, cli->out);
	}
out:
	pf_release(&p);
	ga_ctx_free(ctx);
	return code;
}
