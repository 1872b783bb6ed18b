/*
 * preflight-run.h - `gpuaudit preflight`'s steps as one library call
 * (lib/bench/preflight.c): discover (the node's findings, its class and, inside
 * a container, its view of the node), check against a policy, scan what the
 * workload will load, and warm up (a command under a deadline, or the built-in
 * matrix product: a bench, hence the layer), with the failed warm-up's output
 * explained. The result holds every step's status and evidence; the overall
 * result is decided here, once. The caller collects the node and loads the
 * policy before, and renders the result after (text, JUnit: src/; JSON:
 * ga_pf_run_report then ga_preflight_write_json, preflight.h). It reads no
 * environment and prints nothing.
 */
#ifndef GPUAUDIT_PREFLIGHT_RUN_H
#define GPUAUDIT_PREFLIGHT_RUN_H

#include <signal.h>

#include "gpuaudit/deps.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/run.h"
#include "gpuaudit/warmup.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_PF_MAX_REPEAT 16 /* warm runs after the cold start */
#define GA_PF_MSG 512       /* a step's one-line message, with its terminator */

/* What to run (borrowed for the call). */
struct ga_pf_opts {
	const struct ga_policy *policy;    /* NULL: the check step is skipped */
	const struct ga_policy_class *cls; /* NULL: the class the policy matches to the node */
	bool vendor_wanted;                /* the check may ask the vendor's library */
	const char *const *scan_paths;     /* --scan; n_scan 0: the scan step is skipped */
	size_t n_scan;
	char *const *cmd; /* the warm-up command, NULL-terminated; NULL: the built-in matrix product */
	bool shell;
	double timeout_s;
	size_t repeat;                       /* warm runs, at most GA_PF_MAX_REPEAT */
	const char *gemm_backend;            /* the built-in's backend; NULL: the best available */
	volatile sig_atomic_t *running_pgid; /* ga_run_opts' (a signal handler's kill target); may be NULL */
	/* inside a container (docs/container.md): the environment as the caller read it */
	const char *env_nvidia_visible_devices; /* NVIDIA_VISIBLE_DEVICES; NULL: unset */
	bool env_kubernetes;                    /* KUBERNETES_SERVICE_HOST set (live node only) */
};

/* What the steps found and decided; release with ga_pf_run_release. */
struct ga_pf_run {
	enum ga_pf_status result; /* the overall result (ga_pf_result of the four steps) */
	/* discover */
	const struct ga_node *node; /* borrowed from the caller */
	enum ga_pf_status discover;
	struct ga_findings node_findings; /* sorted */
	size_t node_errors;               /* error-level findings, the container view's included */
	struct ga_nodeclass nc;
	struct ga_pf_doc_container *container; /* NULL: not inside a container */
	/* check */
	enum ga_pf_status check;
	bool checked;
	const struct ga_policy_class *cls;
	struct ga_check chk;
	/* scan */
	enum ga_pf_status scan;
	bool scanned;
	struct ga_deps_inventory inv;
	struct ga_deps_target tgt;
	struct ga_findings scan_findings;
	size_t scan_errors;
	char scan_msg[GA_PF_MSG];
	/* warm-up */
	enum ga_pf_status warmup;
	struct ga_run_result runs[1 + GA_PF_MAX_REPEAT]; /* command: the cold start, then the warm runs */
	size_t n_runs;
	struct ga_warmup_result gemm; /* built-in */
	char warmup_msg[GA_PF_MSG];
	bool have_median;
	double median_s;                   /* the warm runs' median */
	struct ga_explain *ex;             /* the failed command's output explained; NULL: none */
	struct ga_explain_result *explain; /* ex's result as the report carries it; NULL: none */
};

/*
 * Run the steps in order on node n (borrowed: it must outlive *ret) into *ret
 * (zeroed first). 0 with every step's status in *ret (a step that could not
 * see its evidence is unknown, not an error of the call), or -ENOMEM and
 * errors of the call (message in ctx); *ret is to be released in both cases.
 */
int ga_preflight_run(struct ga_ctx *ctx, const struct ga_node *n, const struct ga_pf_opts *o,
                     struct ga_pf_run *ret);
void ga_pf_run_release(struct ga_pf_run *r);

/* The report of a run (for ga_preflight_write_json): borrows from r and o. */
void ga_pf_run_report(const struct ga_pf_run *r, const struct ga_pf_opts *o, const char *policy_file,
                      bool times, struct ga_pf_report *ret);

#ifdef __cplusplus
}
#endif
#endif
