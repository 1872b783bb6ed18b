/*
 * cmd-preflight.c - `gpuaudit preflight`: the per-node-class job a deployment
 * pipeline runs before traffic arrives. Discover the node (and check it
 * against a policy), run the warm-up command under a deadline or the built-in
 * matrix-product warm-up, explain a failure from the captured output, and
 * print one report (text, JSON or JUnit XML) with one exit code.
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
#include "gpuaudit/deps.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/junit.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/run.h"
#include "gpuaudit/stats.h"
#include "gpuaudit/warmup.h"

#define MAX_REPEAT 16
#define MAX_SCAN 32
#define OUTPUT_LINES 12 /* lines of captured output shown in the text report */

struct pf {
	struct cli *cli;
	bool times;
	/* step 1 */
	struct ga_node *node;
	struct ga_nodeclass nc;
	struct ga_findings node_findings;
	enum ga_pf_status discover;
	size_t node_errors;
	/* check */
	struct ga_policy *policy;
	const struct ga_policy_class *cls;
	struct ga_check chk;
	bool checked;
	enum ga_pf_status check;
	/* scan (--scan PATH...): the deps audit of what the workload will load */
	const char *scan_paths[MAX_SCAN];
	size_t n_scan;
	struct ga_deps_inventory inv;
	struct ga_deps_target tgt;
	struct ga_findings scan_findings;
	bool scanned;
	enum ga_pf_status scan;
	size_t scan_errors;
	char scan_msg[512];
	/* warm-up */
	char **cmd; /* NULL: built-in */
	bool shell;
	double timeout_s;
	size_t repeat;
	const char *gemm_backend; /* --warmup-backend; NULL = best available */
	struct ga_run_result runs[1 + MAX_REPEAT];
	size_t n_runs;
	struct ga_warmup_result gemm;
	enum ga_pf_status warmup;
	char warmup_msg[512];
	struct ga_explain *ex; /* on a failed command: its output explained */
	enum ga_pf_status result;
	/* inside a container (docs/container.md): what it sees against the node */
	const char *env_nvd; /* NVIDIA_VISIBLE_DEVICES */
	bool env_k8s;        /* KUBERNETES_SERVICE_HOST, on the live node only */
	struct ga_pf_doc_container *container;
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

/* --- helpers --- */

static void cmd_words(const struct pf *p, char *out, size_t n)
{
	size_t l = 0;
	out[0] = '\0';
	for (size_t i = 0; p->cmd && p->cmd[i] && l + 1 < n; i++) {
		snprintf(out + l, n - l, "%s%s", i ? " " : "", p->cmd[i]);
		l = strlen(out);
	}
}

/* Warm runs' median into *ret; false when there are none. */
static bool warm_median(const struct pf *p, double *ret)
{
	double v[MAX_REPEAT];
	size_t n = 0;
	if (p->cmd)
		for (size_t i = 1; i < p->n_runs; i++)
			v[n++] = p->runs[i].wall_s;
	else
		for (size_t i = 0; i < p->gemm.n_warm; i++)
			v[n++] = p->gemm.warm_s[i];
	if (!n)
		return false;
	ga_stats_sort(v, n); /* v is a copy: the runs keep their order */
	*ret = ga_stats_median(v, n);
	return true;
}

/* --- the steps --- */

static void step_discover(struct pf *p)
{
	ga_findings_init(&p->node_findings);
	bool failed = ga_analyze_node(p->node, &p->node_findings) < 0 || p->node_findings.err;
	p->discover = ga_pf_status_of_findings(&p->node_findings, failed, &p->node_errors);
	if (failed)
		return;
	ga_findings_sort(&p->node_findings);
	(void)ga_nodeclass_compute(p->node, &p->nc);
}

/* Inside a container: its view of the node; an error there fails the discover step. */
static int step_container(struct pf *p, bool live)
{
	p->env_nvd = getenv("NVIDIA_VISIBLE_DEVICES");
	p->env_k8s = live && getenv("KUBERNETES_SERVICE_HOST");
	int r = ga_pf_container_view(p->node, p->env_nvd, p->env_k8s, &p->container);
	if (r < 0 || !p->container)
		return r;
	size_t errors = ga_pf_errors(&p->container->findings);
	p->node_errors += errors;
	if (errors && p->discover == GA_PF_PASS)
		p->discover = GA_PF_FAIL;
	return 0;
}

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

static int step_check(struct pf *p, bool vendor_wanted)
{
	if (!p->policy) {
		p->check = GA_PF_SKIP;
		return 0;
	}
	if (!p->cls)
		p->cls = ga_policy_match(p->policy, p->node);
	int r = ga_check_node(p->node, p->cls, vendor_wanted, &p->chk);
	if (r < 0)
		return r;
	p->checked = true;
	p->check = ga_pf_status_of_check(p->chk.result);
	return 0;
}

/*
 * 2. The deps audit of the paths the workload will load, judged against this
 * node (and the policy class's artifacts: rules). A path that cannot be read
 * makes the step unknown; an error-level verdict fails it.
 */
static int step_scan(struct pf *p, struct ga_ctx *ctx)
{
	if (!p->n_scan) {
		p->scan = GA_PF_SKIP;
		return 0;
	}
	p->scanned = true;
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	ga_deps_inventory_init(&p->inv);
	int r = ga_deps_target_from_node(p->node, &p->tgt);
	if (r < 0)
		return r;
	/* this node's GPU: count the kernels it would JIT from PTX (GA-DEPS-PTX-JIT) */
	if (p->tgt.kind == GA_TARGET_CUDA)
		o.elf_flags |= GA_ELF_PTX_ENTRIES | (p->tgt.sm > 0 ? GA_ELF_PTX_SM(p->tgt.sm) : 0);
	for (size_t i = 0; i < p->n_scan; i++) {
		r = ga_deps_scan(ctx, &o, p->scan_paths[i], &p->inv);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			p->scan = GA_PF_UNKNOWN;
			snprintf(p->scan_msg, sizeof(p->scan_msg), "cannot scan %s: %s", p->scan_paths[i],
			         ga_ctx_errmsg(ctx));
			return 0;
		}
	}
	if ((r = ga_deps_signals(&p->inv)) < 0)
		return r;
	if (p->cls && (r = ga_deps_target_add_class_rules(&p->tgt, p->cls)) < 0)
		return r;
	if ((r = ga_deps_judge(&p->inv, &p->tgt, &p->scan_findings)) < 0)
		return r;
	p->scan = ga_pf_status_of_findings(&p->scan_findings, false, &p->scan_errors);
	snprintf(p->scan_msg, sizeof(p->scan_msg),
	         "%zu path%s, %llu file%s, %zu package%s against %s: %zu error finding%s", p->n_scan,
	         p->n_scan == 1 ? "" : "s", (unsigned long long)p->inv.files_seen,
	         p->inv.files_seen == 1 ? "" : "s", p->inv.n_pkgs, p->inv.n_pkgs == 1 ? "" : "s",
	         p->tgt.name ? p->tgt.name : "this node", p->scan_errors, p->scan_errors == 1 ? "" : "s");
	size_t jit = 0;
	for (size_t i = 0; i < p->scan_findings.n; i++)
		jit += p->scan_findings.v[i].id == GA_C_DEPS_PTX_JIT;
	size_t used = strlen(p->scan_msg);
	if (jit && used < sizeof(p->scan_msg))
		snprintf(p->scan_msg + used, sizeof(p->scan_msg) - used,
		         "; %zu file%s this GPU runs from PTX, JIT-compiled at first load (GA-DEPS-PTX-JIT)",
		         jit, jit == 1 ? "" : "s");
	return 0;
}

/* Feed stderr then stdout (head, then tail) of a run to a fresh matcher. */
static int explain_run(struct pf *p, const struct ga_run_result *r)
{
	int e = ga_explain_new(20, &p->ex);
	if (e < 0)
		return e;
	const struct ga_capture *c[2] = { &r->err, &r->out };
	for (int i = 0; i < 2; i++) {
		/* line numbers count in stderr, then stdout; a cut between head and tail ends a line */
		ga_explain_feed(p->ex, c[i]->head, c[i]->head_len);
		if (c[i]->tail_len && c[i]->head_len && c[i]->head[c[i]->head_len - 1] != '\n')
			ga_explain_feed(p->ex, "\n", 1);
		ga_explain_feed(p->ex, c[i]->tail, c[i]->tail_len);
		ga_explain_finish(p->ex);
	}
	if (r->signaled) { /* the shell would have printed this line */
		char line[128];
		snprintf(line, sizeof(line), "killed by signal SIG%s: %s\n",
		         sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?",
		         r->signal == SIGILL ? "Illegal instruction" : "signal");
		ga_explain_feed(p->ex, line, strlen(line));
	}
	ga_explain_finish(p->ex);
	return ga_explain_for(p->ex, p->node);
}

static int step_warmup(struct pf *p, struct ga_ctx *ctx)
{
	if (!p->cmd) {
		int r = ga_warmup_gemm(p->gemm_backend, 256, p->repeat, 42, &p->gemm);
		if (r < 0)
			return r;
		p->warmup = p->gemm.ran && p->gemm.passed ? GA_PF_PASS : GA_PF_FAIL;
		if (!p->gemm.ran)
			snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s", p->gemm.error);
		else
			snprintf(p->warmup_msg, sizeof(p->warmup_msg),
			         "built-in %zux%zu float32 matrix product on %s: max relative error %.1e "
			         "(tolerance %.1e)%s%s; %zu warm run%s",
			         p->gemm.n, p->gemm.n, p->gemm.backend, p->gemm.max_rel_err,
			         p->gemm.tolerance, p->gemm.passed ? "" : ": ",
			         p->gemm.passed ? "" : p->gemm.error, p->gemm.n_warm,
			         p->gemm.n_warm == 1 ? "" : "s");
		return 0;
	}
	struct ga_run_opts o = {
		.argv = p->cmd, .shell = p->shell, .timeout_s = p->timeout_s, .running_pgid = &child_pgid
	};
	forward_signals();
	for (size_t i = 0; i < 1 + p->repeat; i++) {
		int r = ga_run(ctx, &o, &p->runs[p->n_runs]);
		if (r < 0)
			return r;
		p->n_runs++;
		if (!ga_run_ok(&p->runs[i]))
			break;
	}
	const struct ga_run_result *last = &p->runs[p->n_runs - 1];
	char words[256], how[160];
	cmd_words(p, words, sizeof(words));
	ga_run_describe(last, how, sizeof(how));
	if (ga_run_ok(last)) {
		p->warmup = GA_PF_PASS;
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s: %s; %zu warm run%s", words, how,
		         p->n_runs - 1, p->n_runs == 2 ? "" : "s");
		return 0;
	}
	p->warmup = GA_PF_FAIL;
	const char *which = p->n_runs == 1 ? "" : " (warm run)";
	if (last->spawn_error == ENOENT)
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s%s: command '%s' not found", words, which,
		         p->shell ? "/bin/sh" : p->cmd[0]);
	else if (last->timed_out)
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s%s: %s after --timeout %g s", words, which,
		         how, p->timeout_s);
	else
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s%s: %s", words, which, how);
	bool output = last->out.total_bytes || last->err.total_bytes;
	if (last->spawn_error || (!output && !(last->signaled && last->signal == SIGILL)))
		return 0;
	return explain_run(p, last);
}

/* --- text --- */

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
	        p->result == GA_PF_PASS   ? "PASS"
	        : p->result == GA_PF_FAIL ? "FAIL"
	                                  : "UNKNOWN");
	size_t nvid = p->node->n_accelerators;
	fprintf(o, "  [%s] discover: %s, %zu accelerator%s, node class %s; %zu error finding%s\n",
	        ga_pf_status_name(p->discover),
	        p->node->host.hostname ? cli_esc(p->node->host.hostname) : "(no hostname)", nvid,
	        nvid == 1 ? "" : "s", p->nc.name ? p->nc.name : "unknown", p->node_errors,
	        p->node_errors == 1 ? "" : "s");
	print_findings(o, &p->node_findings, GA_SEV_ERROR);
	if (p->container)
		print_container(o, p->container);
	if (p->checked) {
		fprintf(o, "  [%s] check: class %s: %zu violation%s, %zu unknown (policy %s)\n",
		        ga_pf_status_name(p->check), p->chk.cls ? p->chk.cls->name : "none",
		        p->chk.violations, p->chk.violations == 1 ? "" : "s", p->chk.unknowns,
		        p->policy->file);
		print_findings(o, &p->chk.findings, GA_SEV_WARNING);
	} else {
		fprintf(o, "  [skip] check: no --policy\n");
	}
	if (p->scanned) {
		fprintf(o, "  [%s] scan: %s\n", ga_pf_status_name(p->scan), cli_esc(p->scan_msg));
		print_findings(o, &p->scan_findings, GA_SEV_WARNING);
	} else {
		fprintf(o, "  [skip] scan: no --scan\n");
	}
	fprintf(o, "  [%s] warm-up: %s\n", ga_pf_status_name(p->warmup), cli_esc(p->warmup_msg));
	if (p->times) {
		double med = 0;
		bool ran = p->cmd ? p->n_runs && !p->runs[0].spawn_error : p->gemm.ran;
		if (ran) {
			fprintf(o, "         cold start %.3f s", p->cmd ? p->runs[0].wall_s : p->gemm.cold_s);
			if (warm_median(p, &med))
				fprintf(o, ", warm median %.3f s over %zu run%s", med,
				        p->cmd ? p->n_runs - 1 : p->gemm.n_warm,
				        (p->cmd ? p->n_runs - 1 : p->gemm.n_warm) == 1 ? "" : "s");
			fputc('\n', o);
		}
	}
	if (p->cmd && p->warmup == GA_PF_FAIL && p->n_runs) {
		const struct ga_run_result *r = &p->runs[p->n_runs - 1];
		print_output(o, "stderr", &r->err);
		print_output(o, "stdout", &r->out);
	}
	if (p->ex) {
		fprintf(o, "  explain (the failed warm-up's stderr, then stdout):\n");
		explain_print_text(o, p->ex, "    ");
	}
}

/* --- JSON: gpuaudit.preflight/v1, filled in lib/emit/preflight.c, written by its model --- */

static void report_of(const struct pf *p, struct ga_pf_report *r)
{
	*r = (struct ga_pf_report){
		.times = p->times,
		.result = p->result,
		.discover = p->discover,
		.check = p->check,
		.scan = p->scan,
		.warmup = p->warmup,
		.node = p->node,
		.node_class = p->nc.id,
		.node_findings = &p->node_findings,
		.checked = p->checked,
		.policy_file = p->policy ? p->policy->file : NULL,
		.chk = &p->chk,
		.scanned = p->scanned,
		.scan_paths = p->scan_paths,
		.n_scan = p->n_scan,
		.scan_msg = p->scan_msg,
		.scan_target = p->tgt.name,
		.scan_files = p->inv.files_seen,
		.scan_packages = p->inv.n_pkgs,
		.scan_findings = &p->scan_findings,
		.cmd = p->cmd,
		.shell = p->shell,
		.timeout_s = p->timeout_s,
		.runs = p->runs,
		.n_runs = p->n_runs,
		.gemm = &p->gemm,
		.warmup_msg = p->warmup_msg,
		.ex = p->ex,
		.env_nvidia_visible_devices = p->env_nvd,
		.env_kubernetes = p->env_k8s,
	};
	r->have_median = warm_median(p, &r->median_s);
}

static int print_json(struct pf *p)
{
	struct ga_pf_report rep;
	report_of(p, &rep);
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
	FILE *m = p->ex ? open_memstream(&buf, len) : NULL;
	if (!m)
		return NULL;
	explain_print_text(m, p->ex, "");
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
	enum ga_pf_status st[4] = { p->discover, p->checked ? p->check : GA_PF_SKIP, p->warmup,
		                    p->scanned ? p->scan : GA_PF_SKIP };
	struct ga_junit_case c[5];
	struct ga_junit_suite s = { .name = "gpuaudit preflight",
		                    .tests = p->cmd && p->repeat ? 5u : 4u,
		                    .cases = c };
	ga_pf_count(st, 4, &s.failures, &s.errors, &s.skipped);
	char msg[2][512];
	snprintf(msg[0], sizeof(msg[0]), "node class %s: %zu error finding%s",
	         p->nc.name ? p->nc.name : "unknown", p->node_errors, p->node_errors == 1 ? "" : "s");
	junit_case(&c[s.n_cases++], p, "discover", p->discover, msg[0], 0, false, NULL);
	if (p->checked)
		snprintf(msg[1], sizeof(msg[1]), "class %s: %zu violations, %zu unknown",
		         p->chk.cls ? p->chk.cls->name : "none", p->chk.violations, p->chk.unknowns);
	else
		snprintf(msg[1], sizeof(msg[1]), "no --policy");
	junit_case(&c[s.n_cases++], p, "check", st[1], msg[1], 0, false, NULL);
	junit_case(&c[s.n_cases++], p, "scan", st[3], p->scanned ? p->scan_msg : "no --scan", 0, false, NULL);
	const struct ga_run_result *cold = p->cmd && p->n_runs ? &p->runs[0] : NULL;
	enum ga_pf_status cold_st, warm_st;
	ga_pf_warmup_cases(p->warmup, p->cmd != NULL, p->n_runs, &cold_st, &warm_st);
	junit_case(&c[s.n_cases++], p, "warm-up (cold start)", cold_st, p->warmup_msg,
	           p->cmd ? (cold ? cold->wall_s : 0) : p->gemm.cold_s,
	           p->cmd ? cold && !cold->spawn_error : p->gemm.ran, cold);
	if (p->cmd && p->repeat) {
		double med = 0;
		bool have = warm_median(p, &med);
		junit_case(&c[s.n_cases++], p, "warm-up (warm runs)", warm_st,
		           warm_st == GA_PF_SKIP ? "the cold start failed" : p->warmup_msg, med, have,
		           p->n_runs > 1 ? &p->runs[p->n_runs - 1] : NULL);
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
	p->gemm_backend = arg;
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
		p->timeout_s = strtod(arg, &end);
		if (!end || *end || !(p->timeout_s > 0) || p->timeout_s > 86400)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--timeout wants seconds between 0 and 86400, not '%s'", arg);
		return CLI_NEXT;
	case 'R':
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || !end || *end || end == arg || n < 0 || n > MAX_REPEAT)
			return cli_error(cli, cmd, EXIT_USAGE, "--repeat wants 0 to %d, not '%s'", MAX_REPEAT,
			                 arg);
		p->repeat = (size_t)n;
		return CLI_NEXT;
	case 'S':
		p->shell = true;
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
		if (p->n_scan == MAX_SCAN)
			return cli_error(cli, cmd, EXIT_USAGE, "at most %d --scan paths", MAX_SCAN);
		p->scan_paths[p->n_scan++] = arg;
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
		a->p->cmd = argv + optind;
	if (a->p->shell && !a->p->cmd)
		return cli_error(cli, "preflight", EXIT_USAGE, "--shell needs a command after --");
	if (a->class_name && !a->policy_file)
		return cli_error(cli, "preflight", EXIT_USAGE, "--class needs --policy");
	if (a->json && a->junit && !strcmp(a->junit, "-"))
		return cli_error(cli, "preflight", EXIT_USAGE, "--json and --junit - both want stdout");
	code = snap_validate(cli, "preflight", &a->so);
	return code == EXIT_OK ? CLI_NEXT : code;
}

/*
 * Policy and class, then the steps in order; the overall result in p->result.
 * The exit code; *ran tells whether there is a report to print.
 */
static int pf_run(struct cli *cli, struct ga_ctx *ctx, struct pf_args *a, bool *ran)
{
	struct pf *p = a->p;
	int r = 0;
	if (a->policy_file &&
	    (r = cli_policy(ctx, a->policy_file, a->class_name, NULL, &p->policy, &p->cls)) < 0)
		return cli_error(cli, "preflight", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	/* 1. discover (and check) */
	if ((r = snap_node(ctx, &a->so, &p->node)) < 0)
		return cli_error(cli, "preflight", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	step_discover(p);
	bool live = !a->so.from && !strcmp(ga_ctx_root(ctx), "/");
	if (step_container(p, live) < 0)
		return cli_error(cli, "preflight", EXIT_INTERNAL, "out of memory");
	bool vendor_wanted = a->so.vendor == GA_VENDOR_ON || (a->so.vendor == GA_VENDOR_AUTO && live);
	if (step_check(p, vendor_wanted) < 0 || step_scan(p, ctx) < 0 || step_warmup(p, ctx) < 0)
		return cli_error(cli, "preflight", EXIT_INTERNAL, "%s",
		                 *ga_ctx_errmsg(ctx) ? ga_ctx_errmsg(ctx) : "out of memory");
	enum ga_pf_status all[4] = { p->discover, p->check, p->scan, p->warmup };
	p->result = ga_pf_result(all, 4);
	*ran = true;
	return p->result == GA_PF_PASS ? EXIT_OK : p->result == GA_PF_FAIL ? EXIT_PROBLEMS : EXIT_UNAVAILABLE;
}

static void pf_release(struct pf *p)
{
	for (size_t i = 0; i < p->n_runs; i++)
		ga_run_result_release(&p->runs[i]);
	ga_explain_free(p->ex);
	ga_pf_container_free(p->container);
	ga_check_release(&p->chk);
	ga_findings_release(&p->node_findings);
	if (p->scanned)
		ga_deps_inventory_release(&p->inv);
	ga_deps_target_release(&p->tgt);
	ga_findings_release(&p->scan_findings);
	ga_nodeclass_release(&p->nc);
	ga_node_free(p->node);
	ga_policy_free(p->policy);
}

int cmd_preflight(struct cli *cli, int argc, char **argv)
{
	struct pf p;
	memset(&p, 0, sizeof(p));
	p.cli = cli;
	p.times = true;
	p.timeout_s = 600;
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
