/*
 * preflight.h - the decisions of `gpuaudit preflight` (lib/analyze/preflight.c):
 * each step's status from what it found, the overall result, and how the
 * warm-up's runs read as test cases; the report of what the steps found and
 * its document, gpuaudit.preflight/v1 (lib/model/preflight.c, written by
 * lib/emit/preflight.c, which renders and decides nothing). The steps
 * themselves run in one library call: preflight-run.h.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in preflight-analyze.h (analyze), preflight-emit.h (emit).
 */
#ifndef GPUAUDIT_PREFLIGHT_H
#define GPUAUDIT_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_pf_status { GA_PF_PASS, GA_PF_FAIL, GA_PF_UNKNOWN, GA_PF_SKIP };
#define GA_PF_N_STATUS 4

/* --- the report: what the steps found and decided (rendered by lib/emit/preflight.c) --- */

#define GA_PREFLIGHT_SCHEMA "gpuaudit.preflight/v1"

struct ga_node;
struct ga_check;
struct ga_run_result;
struct ga_warmup_result;
struct ga_explain_result;
struct ga_pf_doc_container;
struct ga_buf;

/* What the steps found, borrowed from the caller, for ga_pf_doc_fill. */
struct ga_pf_report {
	bool times; /* false (--no-times): every time is null */
	enum ga_pf_status result, discover, check, scan, warmup;
	/* discover */
	const struct ga_node *node;
	const char *node_class; /* `gpuaudit class` id */
	const struct ga_findings *node_findings;
	/* check (checked: with a policy) */
	bool checked;
	const char *policy_file;
	const struct ga_check *chk;
	/* scan (scanned: with --scan) */
	bool scanned;
	const char *const *scan_paths;
	size_t n_scan;
	const char *scan_msg, *scan_target;
	uint64_t scan_files;
	size_t scan_packages;
	const struct ga_findings *scan_findings;
	/* warm-up: a command (cmd, NULL-terminated) or the built-in matrix product (gemm) */
	char *const *cmd;
	bool shell;
	double timeout_s;
	const struct ga_run_result *runs; /* the cold start, then the warm runs */
	size_t n_runs;
	const struct ga_warmup_result *gemm;
	const char *warmup_msg;
	bool have_median;
	double median_s; /* the warm runs' median */
	/* the failed warm-up's output explained (ga_explain_result_fill); NULL: none */
	const struct ga_explain_result *explain;
	/* inside a container (docs/container.md): its view of the node (ga_pf_container_view); NULL: not */
	const struct ga_pf_doc_container *container;
};

/* --- the report as a document: gpuaudit.preflight/v1 (lib/model/preflight.c) --- */

/* "pass", "fail", "unknown", "skip": the names the document gives enum ga_pf_status. */
extern const char *const ga_pf_status_names[GA_PF_N_STATUS];

/* What was kept of one output stream of a warm-up run: head, then tail. */
struct ga_pf_doc_capture {
	struct ga_ou64 total_bytes, omitted_bytes;
	char *head, *tail; /* a NUL byte of the stream is U+FFFD */
};
enum ga_pf_run_status { GA_PF_RUN_EXIT, GA_PF_RUN_TIMEOUT, GA_PF_RUN_SIGNAL, GA_PF_RUN_NOT_STARTED };
/* One run of the warm-up command. */
struct ga_pf_doc_run {
	enum ga_pf_run_status status;
	char *error; /* why it did not start; NULL: it did */
	struct ga_oi64 exit_code;
	char *signal; /* "SEGV"; NULL: not signalled */
	struct ga_obool killed;
	struct ga_odbl wall_s;
	struct ga_pf_doc_capture out, err; /* "stdout", "stderr" */
};
struct ga_pf_doc_discover {
	enum ga_pf_status status;
	char *hostname, *node_class;
	struct ga_ou64 accelerators;
	struct ga_findings findings;
};
struct ga_pf_doc_check {
	enum ga_pf_status status;
	char *policy, *cls; /* "class" */
	struct ga_ou64 violations, unknowns;
	struct ga_findings findings;
};
struct ga_pf_doc_scan {
	enum ga_pf_status status;
	char *message;
	struct ga_strv paths;
	char *target;
	struct ga_ou64 files, packages;
	struct ga_findings findings;
};
enum ga_pf_warmup_kind { GA_PF_WARMUP_COMMAND, GA_PF_WARMUP_BUILTIN };
/* The members of the warm-up command (kind command), inline in "warmup". */
struct ga_pf_doc_command {
	bool present;
	struct ga_strv command;
	struct ga_obool shell;
	struct ga_odbl timeout_s;   /* integral when whole */
	struct ga_pf_doc_run *cold; /* NULL: none started */
	struct ga_pf_doc_run *warm;
	size_t n_warm;
};
/* The members of the built-in matrix product (kind builtin), inline in "warmup". */
struct ga_pf_doc_builtin {
	bool present;
	char *backend, *skipped_backends;
	struct ga_ou64 n;
	struct ga_odbl max_rel_err, tolerance, cold_s;
	struct ga_dblv warm_s; /* NaN (null) each with --no-times */
};
/* The warm-up: the members of its kind only (the other group is absent, and left out). */
struct ga_pf_doc_warmup {
	enum ga_pf_status status;
	char *message;
	enum ga_pf_warmup_kind kind;
	struct ga_pf_doc_command cmd;
	struct ga_pf_doc_builtin builtin;
	struct ga_odbl warm_median_s;
};
/* `preflight --json`. Release with ga_schema_release(&ga_pf_doc_schema, d). */
/* --- preflight inside a container: what it sees against the node (docs/container.md) --- */
struct ga_pf_doc_lib {
	char *path;
	char *version; /* from the file name: libcuda.so.580.95.05 -> "580.95.05" */
};
struct ga_pf_doc_container {
	char *detected_by;               /* "docker", "podman", "kubernetes", "lxc" (files), "env" */
	char *nvidia_visible_devices;    /* NVIDIA_VISIBLE_DEVICES as given; NULL: unset */
	struct ga_ou64 node_gpus;        /* NVIDIA GPUs on the node's PCI bus (sysfs is the host's) */
	struct ga_strv visible_devices;  /* /dev/nvidiaN the container has */
	char *driver_version;            /* the running kernel module's (the host's) */
	struct ga_pf_doc_lib *libraries; /* libcuda, libnvidia-ml the container can load */
	size_t n_libraries;
	struct ga_findings findings; /* GA-CONTAINER-* */
};
void ga_pf_container_free(struct ga_pf_doc_container *c);
extern const struct ga_schema ga_pf_container_schema;

struct ga_pf_doc {
	char *schema; /* GA_PREFLIGHT_SCHEMA */
	enum ga_pf_status result;
	struct ga_pf_doc_discover discover;
	struct ga_pf_doc_check *check; /* NULL: no --policy */
	struct ga_pf_doc_scan *scan;   /* NULL: no --scan */
	struct ga_pf_doc_warmup warmup;
	struct ga_explain_result *explain;     /* NULL: nothing failed, or no output to explain */
	struct ga_pf_doc_container *container; /* NULL (left out): not run inside a container */
};
extern const struct ga_schema ga_pf_doc_schema;

#ifdef __cplusplus
}
#endif
#endif
