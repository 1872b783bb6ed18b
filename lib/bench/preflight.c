/*
 * bench/preflight.c - `gpuaudit preflight`'s steps as one library call
 * (preflight-run.h): discover, check, scan, warm up, explain; each step's
 * status decided by lib/analyze/preflight.c, the overall result here. It sits
 * in the bench layer because its built-in warm-up is a bench (warmup.h); it
 * calls the analyzers below it and renders nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/preflight-run.h"
#include "gpuaudit/stats.h"
#include "gpuaudit/nodeclass-analyze.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/explain-analyze.h"
#include "gpuaudit/preflight-analyze.h"

/* The warm-up command as one line of words. */
static void cmd_words(const struct ga_pf_opts *o, char *out, size_t n)
{
	size_t l = 0;
	out[0] = '\0';
	for (size_t i = 0; o->cmd && o->cmd[i] && l + 1 < n; i++) {
		snprintf(out + l, n - l, "%s%s", i ? " " : "", o->cmd[i]);
		l = strlen(out);
	}
}

/* Warm runs' median into *ret; false when there are none. */
static bool warm_median(const struct ga_pf_opts *o, const struct ga_pf_run *p, double *ret)
{
	double v[GA_PF_MAX_REPEAT];
	size_t n = 0;
	if (o->cmd)
		for (size_t i = 1; i < p->n_runs && n < GA_PF_MAX_REPEAT; i++)
			v[n++] = p->runs[i].wall_s;
	else
		for (size_t i = 0; i < p->gemm.n_warm && n < GA_PF_MAX_REPEAT; i++)
			v[n++] = p->gemm.warm_s[i];
	if (!n)
		return false;
	ga_stats_sort(v, n); /* v is a copy: the runs keep their order */
	*ret = ga_stats_median(v, n);
	return true;
}

/* 1. The node's findings and class. */
static int step_discover(struct ga_pf_run *p)
{
	ga_findings_init(&p->node_findings);
	/* an analysis that failed (out of memory included) leaves the step unknown */
	bool failed = ga_analyze_node(p->node, &p->node_findings) < 0 || p->node_findings.err;
	p->discover = ga_pf_status_of_findings(&p->node_findings, failed, &p->node_errors);
	if (failed)
		return 0;
	/* an unseen bus is not an empty one: with the PCI devices unread the accelerators
	 * are unknown, so the step is too (GA-PCI-UNKNOWN says why), never PASS */
	if (p->discover == GA_PF_PASS && !ga_node_pci_known(p->node))
		p->discover = GA_PF_UNKNOWN;
	ga_findings_sort(&p->node_findings);
	(void)ga_nodeclass_compute(p->node, &p->nc);
	return 0;
}

/* Inside a container: its view of the node; an error there fails the discover step. */
static int step_container(struct ga_pf_run *p, const struct ga_pf_opts *o)
{
	int r = ga_pf_container_view(p->node, o->env_nvidia_visible_devices, o->env_kubernetes,
	                             &p->container);
	if (r < 0 || !p->container)
		return r;
	size_t errors = ga_pf_errors(&p->container->findings);
	p->node_errors += errors;
	if (errors && p->discover == GA_PF_PASS)
		p->discover = GA_PF_FAIL;
	return 0;
}

static int step_check(struct ga_pf_run *p, const struct ga_pf_opts *o)
{
	if (!o->policy) {
		p->check = GA_PF_SKIP;
		return 0;
	}
	p->cls = o->cls ? o->cls : ga_policy_match(o->policy, p->node);
	int r = ga_check_node(p->node, p->cls, o->vendor_wanted, &p->chk);
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
static int step_scan(struct ga_pf_run *p, const struct ga_pf_opts *o, struct ga_ctx *ctx)
{
	if (!o->n_scan) {
		p->scan = GA_PF_SKIP;
		return 0;
	}
	p->scanned = true;
	struct ga_deps_opts dopts;
	ga_deps_opts_init(&dopts);
	ga_deps_inventory_init(&p->inv);
	int r = ga_deps_target_from_node(p->node, &p->tgt);
	if (r < 0)
		return r;
	/* this node's GPU: count the kernels it would JIT from PTX (GA-DEPS-PTX-JIT) */
	if (p->tgt.kind == GA_TARGET_CUDA)
		dopts.elf_flags |= GA_ELF_PTX_ENTRIES | (p->tgt.sm > 0 ? GA_ELF_PTX_SM(p->tgt.sm) : 0);
	for (size_t i = 0; i < o->n_scan; i++) {
		r = ga_deps_scan(ctx, &dopts, o->scan_paths[i], &p->inv);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			p->scan = GA_PF_UNKNOWN;
			snprintf(p->scan_msg, sizeof(p->scan_msg), "cannot scan %s: %s", o->scan_paths[i],
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
	         "%zu path%s, %llu file%s, %zu package%s against %s: %zu error finding%s", o->n_scan,
	         o->n_scan == 1 ? "" : "s", (unsigned long long)p->inv.files_seen,
	         p->inv.files_seen == 1 ? "" : "s", p->inv.n_pkgs, p->inv.n_pkgs == 1 ? "" : "s",
	         p->tgt.name ? p->tgt.name : "this node", p->scan_errors, p->scan_errors == 1 ? "" : "s");
	size_t jit = 0;
	for (size_t i = 0; i < p->scan_findings.n; i++)
		jit += p->scan_findings.v[i].id == GA_C_DEPS_PTX_JIT;
	size_t used = strlen(p->scan_msg);
	if (jit && used < sizeof(p->scan_msg))
		snprintf(p->scan_msg + used, sizeof(p->scan_msg) - used,
		         "; %zu file%s this GPU runs from PTX, JIT-compiled at first load (%s)", jit,
		         jit == 1 ? "" : "s", ga_code_str(GA_C_DEPS_PTX_JIT));
	return 0;
}

/* Feed stderr then stdout (head, then tail) of a run to a fresh matcher; its result into p->explain. */
static int explain_run(struct ga_pf_run *p, const struct ga_run_result *r)
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
	if ((e = ga_explain_for(p->ex, p->node)) < 0)
		return e;
	if (!(p->explain = ga_calloc(1, sizeof(*p->explain))))
		return -ENOMEM;
	return ga_explain_result_fill(p->ex, p->explain);
}

static int step_builtin(struct ga_pf_run *p, const struct ga_pf_opts *o)
{
	int r = ga_warmup_gemm(o->gemm_backend, 256, o->repeat, 42, &p->gemm);
	if (r < 0)
		return r;
	const struct ga_warmup_result *g = &p->gemm;
	p->warmup = g->ran && g->passed ? GA_PF_PASS : GA_PF_FAIL;
	if (!g->ran)
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s", g->error);
	else
		snprintf(p->warmup_msg, sizeof(p->warmup_msg),
		         "built-in %zux%zu float32 matrix product on %s: max relative error %.1e "
		         "(tolerance %.1e)%s%s; %zu warm run%s",
		         g->n, g->n, g->backend, g->max_rel_err, g->tolerance, g->passed ? "" : ": ",
		         g->passed ? "" : g->error, g->n_warm, g->n_warm == 1 ? "" : "s");
	return 0;
}

static int step_warmup(struct ga_pf_run *p, const struct ga_pf_opts *o, struct ga_ctx *ctx)
{
	if (!o->cmd)
		return step_builtin(p, o);
	struct ga_run_opts ro = {
		.argv = o->cmd, .shell = o->shell, .timeout_s = o->timeout_s, .running_pgid = o->running_pgid
	};
	size_t repeat = o->repeat > GA_PF_MAX_REPEAT ? GA_PF_MAX_REPEAT : o->repeat;
	for (size_t i = 0; i < 1 + repeat; i++) {
		int r = ga_run(ctx, &ro, &p->runs[p->n_runs]);
		if (r < 0)
			return r;
		p->n_runs++;
		if (!ga_run_ok(&p->runs[i]))
			break;
	}
	const struct ga_run_result *last = &p->runs[p->n_runs - 1];
	char words[256], how[160];
	cmd_words(o, words, sizeof(words));
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
		         o->shell ? "/bin/sh" : o->cmd[0]);
	else if (last->timed_out)
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s%s: %s after --timeout %g s", words, which,
		         how, o->timeout_s);
	else
		snprintf(p->warmup_msg, sizeof(p->warmup_msg), "%s%s: %s", words, which, how);
	bool output = last->out.total_bytes || last->err.total_bytes;
	if (last->spawn_error || (!output && !(last->signaled && last->signal == SIGILL)))
		return 0;
	return explain_run(p, last);
}

int ga_preflight_run(struct ga_ctx *ctx, const struct ga_node *n, const struct ga_pf_opts *o,
                     struct ga_pf_run *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->node = n;
	ga_findings_init(&ret->node_findings);
	ga_findings_init(&ret->scan_findings);
	int r;
	if ((r = step_discover(ret)) < 0 || (r = step_container(ret, o)) < 0 ||
	    (r = step_check(ret, o)) < 0 || (r = step_scan(ret, o, ctx)) < 0 ||
	    (r = step_warmup(ret, o, ctx)) < 0)
		return r;
	ret->have_median = warm_median(o, ret, &ret->median_s);
	enum ga_pf_status all[4] = { ret->discover, ret->check, ret->scan, ret->warmup };
	ret->result = ga_pf_result(all, 4);
	return 0;
}

void ga_pf_run_release(struct ga_pf_run *p)
{
	for (size_t i = 0; i < p->n_runs; i++)
		ga_run_result_release(&p->runs[i]);
	ga_explain_free(p->ex);
	if (p->explain) {
		ga_schema_release(&ga_explain_result_schema, p->explain);
		ga_free(p->explain);
	}
	ga_pf_container_free(p->container);
	ga_check_release(&p->chk);
	ga_findings_release(&p->node_findings);
	if (p->scanned)
		ga_deps_inventory_release(&p->inv);
	ga_deps_target_release(&p->tgt);
	ga_findings_release(&p->scan_findings);
	ga_nodeclass_release(&p->nc);
	memset(p, 0, sizeof(*p));
}

void ga_pf_run_report(const struct ga_pf_run *p, const struct ga_pf_opts *o, const char *policy_file,
                      bool times, struct ga_pf_report *r)
{
	*r = (struct ga_pf_report){
		.times = times,
		.result = p->result,
		.discover = p->discover,
		.check = p->check,
		.scan = p->scan,
		.warmup = p->warmup,
		.node = p->node,
		.node_class = p->nc.id,
		.node_findings = &p->node_findings,
		.checked = p->checked,
		.policy_file = policy_file,
		.chk = &p->chk,
		.scanned = p->scanned,
		.scan_paths = o->scan_paths,
		.n_scan = o->n_scan,
		.scan_msg = p->scan_msg,
		.scan_target = p->tgt.name,
		.scan_files = p->inv.files_seen,
		.scan_packages = p->inv.n_pkgs,
		.scan_findings = &p->scan_findings,
		.cmd = o->cmd,
		.shell = o->shell,
		.timeout_s = o->timeout_s,
		.runs = p->runs,
		.n_runs = p->n_runs,
		.gemm = &p->gemm,
		.warmup_msg = p->warmup_msg,
		.have_median = p->have_median,
		.median_s = p->median_s,
		.explain = p->explain,
		.container = p->container,
	};
}
