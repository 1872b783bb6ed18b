/*
 * cmd-smoke.c - `gpuaudit smoke`: the canary pool's automated smoke test
 * (docs/smoke.md). Discovery, a GEMM per backend, a bandwidth check (stream,
 * and transfers where there is a device), a collective when there are
 * several GPUs, and a minimal inference (an MLP forward pass through each
 * backend's GEMM, checked against the host). Every result is verified; with
 * --policy every figure must reach 95% of the node class's expected value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench-cli.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/node.h"

/* The last lines of the text output: the verdict and what was judged. */
static void print_summary(FILE *out, const struct ga_bench_report *rep, int code, bool policy,
                          bool pci_unknown, bool class_named)
{
	size_t ok = 0, below = 0, with_expect = 0;
	for (size_t i = 0; i < rep->n_results; i++) {
		const struct ga_bench_result *x = &rep->results[i];
		ok += x->status == GA_BENCH_OK;
		if (x->expected_source && !strcmp(x->expected_source, "policy")) {
			with_expect++;
			below += x->rate < 0.95 * x->expected;
		}
	}
	fprintf(out, "\nsmoke: %s (%zu results ok of %zu; %zu with a policy figure, %zu below 95%%)\n",
	        code == EXIT_OK             ? "PASS"
	        : code == EXIT_PROBLEMS     ? "FAIL"
	        : code == EXIT_INCONCLUSIVE ? "INCONCLUSIVE"
	                                    : "UNAVAILABLE",
	        ok, rep->n_results, with_expect, below);
	if (code == EXIT_INCONCLUSIVE && pci_unknown)
		fprintf(out,
		        "smoke: the PCI devices could not be read, so the node's discovery is unknown%s: "
		        "mount /sys (e.g. -v /sys:/sys:ro)\n",
		        policy && !class_named ? " (and without --class no class of the policy could match)"
		                               : "");
	if (!policy)
		fprintf(out, "smoke: no --policy given: correctness only, no figure was judged\n");
}

int cmd_smoke(struct cli *cli, int argc, char **argv)
{
	struct bench_cli o = { 0 };
	snap_opts_init(&o.so);
	ga_bench_config_init(&o.cfg);
	int code = bench_cli_parse(cli, "smoke", cli_find("smoke")->usage, "seb", argc, argv, &o);
	if (code >= 0)
		return code;
	if (o.n_sizes > 1)
		return cli_error(cli, "smoke", EXIT_USAGE, "--size takes one size");
	struct ga_ctx *ctx = NULL;
	struct ga_node *node = NULL;
	const struct ga_bench_backend *list[16];
	struct ga_bench_session *s = NULL;
	struct ga_bench_report rep;
	ga_bench_report_init(&rep, "smoke");
	if ((code = bench_cli_setup(cli, "smoke", &o, &ctx, list, GA_ARRAY_LEN(list))) != EXIT_OK)
		goto out;
	bench_cli_cpu_peak(ctx, &rep);

	/* 1. discovery: the node's own error-level findings fail the smoke test (the step is
	 * announced: a progress line on a terminal, and the watchdog names it at --deadline) */
	ga_progress(ctx, "discover the node");
	int r = snap_node(ctx, &o.so, &node);
	if (r < 0) {
		code = cli_error(cli, "smoke", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
		goto out;
	}
	struct ga_findings nf;
	ga_findings_init(&nf);
	r = ga_analyze_node(node, &nf);
	for (size_t i = 0; r >= 0 && i < nf.n; i++)
		ga_findings_copy(&rep.findings, &nf.v[i]);
	ga_findings_release(&nf);

	/* 2-5. the measurements */
	size_t cpu_size = o.n_sizes ? o.sizes[0] : 512, gpu_size = o.n_sizes ? o.sizes[0] : 8192;
	struct ga_gemm_spec spec = { .dtypes = GA_DT_BIT(GA_DT_FP32) | GA_DT_BIT(GA_DT_BF16),
		                     .quiet_missing = true,
		                     .sizes = &cpu_size,
		                     .n_sizes = 1,
		                     .gpu_sizes = &gpu_size,
		                     .n_gpu_sizes = 1 };
	size_t bytes = o.bytes ? o.bytes : (size_t)64 << 20;
	if (r >= 0)
		r = ga_bench_session_open(ctx, &o.cfg, list, &rep, &s);
	if (r >= 0)
		r = ga_bench_gemm(s, &spec, &rep);
	if (r >= 0)
		r = ga_bench_stream(s, o.elements ? o.elements : (size_t)1 << 24, &rep);
	if (r >= 0)
		r = ga_bench_transfer(s, bytes, &rep);
	if (r >= 0) {
		size_t gpus = 0;
		for (size_t i = 0; i < rep.n_backends; i++)
			if (!strcmp(rep.backends[i].name, "cuda") && !strcmp(rep.backends[i].status, "ok"))
				gpus = rep.backends[i].n_devices;
		if (gpus >= 2)
			r = ga_bench_collective(s, o.nccl_lib, bytes, &rep);
	}
	if (r >= 0)
		r = ga_bench_inference(s, &rep);
	if (r >= 0)
		r = ga_bench_analyze(&rep, &o.cfg, 0.95);
	if (r < 0) {
		code = cli_error(cli, "smoke", cli_exit_for(r), "%s",
		                 r == -ENOMEM ? "out of memory" : ga_ctx_errmsg(ctx));
		goto out;
	}
	code = bench_cli_output(cli, "smoke", &o, &rep);
	/* step 1, discovery, could not see the bus (an unseen bus is not an empty one): its
	 * findings are unknown, and with --policy no class could match; never PASS, as
	 * preflight's discover step */
	bool pci_unknown = !ga_node_pci_known(node);
	if (code == EXIT_OK && pci_unknown)
		code = EXIT_INCONCLUSIVE;
	if (!o.json)
		print_summary(cli->out, &rep, code, o.policy_file != NULL, pci_unknown, o.class_name != NULL);
out:
	ga_bench_session_free(s);
	ga_bench_report_release(&rep);
	ga_node_free(node);
	bench_cli_release(&o);
	ga_ctx_free(ctx);
	return code;
}
