/*
 * emit/preflight.c - the preflight report as JSON (gpuaudit.preflight/v1,
 * `preflight --json`), from the plain data of struct ga_pf_report
 * (preflight.h), so that serve and library users write the same document.
 *
 * Written member by member rather than through a schema table: the document
 * has members the table types cannot express yet (the warm-up's members
 * depend on its kind, timeout_s is an integer when it is whole, warm_s is an
 * array of numbers, and explain's captures turn repeated keys into arrays,
 * which explain's own writer does). The findings go through their table.
 */
#include <math.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/deps.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/run.h"
#include "gpuaudit/warmup.h"

static void json_time(const struct ga_pf_report *r, struct ga_json *w, const char *key, double v, bool have)
{
	if (key)
		ga_json_key(w, key);
	if (r->times && have)
		ga_json_dbl(w, round(v * 1e6) / 1e6);
	else
		ga_json_null(w);
}

static void json_capture(struct ga_json *w, const char *key, const struct ga_capture *c)
{
	ga_json_key(w, key);
	ga_json_obj_begin(w);
	ga_json_key(w, "total_bytes");
	ga_json_u64(w, c->total_bytes);
	ga_json_key(w, "omitted_bytes");
	ga_json_u64(w, c->omitted_bytes);
	ga_json_key(w, "head");
	ga_json_strn(w, c->head, c->head_len);
	ga_json_key(w, "tail");
	ga_json_strn(w, c->tail, c->tail_len);
	ga_json_obj_end(w);
}

static void json_run(const struct ga_pf_report *rep, struct ga_json *w, const struct ga_run_result *r)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "status");
	ga_json_str(w, r->spawn_error ? "not-started"
	               : r->timed_out ? "timeout"
	               : r->signaled  ? "signal"
	                              : "exit");
	ga_json_key(w, "error");
	ga_json_str(w, r->spawn_error ? strerror(r->spawn_error) : NULL);
	ga_json_key(w, "exit_code");
	if (r->exited)
		ga_json_i64(w, r->exit_code);
	else
		ga_json_null(w);
	ga_json_key(w, "signal");
	ga_json_str(w, r->signaled ? sigabbrev_np(r->signal) : NULL);
	ga_json_key(w, "killed");
	ga_json_bool(w, r->killed);
	json_time(rep, w, "wall_s", r->wall_s, !r->spawn_error);
	json_capture(w, "stdout", &r->out);
	json_capture(w, "stderr", &r->err);
	ga_json_obj_end(w);
}

static void json_discover(const struct ga_pf_report *r, struct ga_json *w)
{
	ga_json_key(w, "discover");
	ga_json_obj_begin(w);
	ga_json_key(w, "status");
	ga_json_str(w, ga_pf_status_name(r->discover));
	ga_json_key(w, "hostname");
	ga_json_str(w, r->node->host.hostname);
	ga_json_key(w, "node_class");
	ga_json_str(w, r->node_class);
	ga_json_key(w, "accelerators");
	ga_json_u64(w, r->node->n_accelerators);
	ga_json_key(w, "findings");
	ga_findings_write_json(r->node_findings, w);
	ga_json_obj_end(w);
}

static void json_check(const struct ga_pf_report *r, struct ga_json *w)
{
	ga_json_key(w, "check");
	if (r->checked) {
		ga_json_obj_begin(w);
		ga_json_key(w, "status");
		ga_json_str(w, ga_pf_status_name(r->check));
		ga_json_key(w, "policy");
		ga_json_str(w, r->policy_file);
		ga_json_key(w, "class");
		ga_json_str(w, r->chk->cls ? r->chk->cls->name : NULL);
		ga_json_key(w, "violations");
		ga_json_u64(w, r->chk->violations);
		ga_json_key(w, "unknowns");
		ga_json_u64(w, r->chk->unknowns);
		ga_json_key(w, "findings");
		ga_findings_write_json(&r->chk->findings, w);
		ga_json_obj_end(w);
	} else {
		ga_json_null(w);
	}
}

static void json_scan(const struct ga_pf_report *r, struct ga_json *w)
{
	ga_json_key(w, "scan");
	if (r->scanned) {
		ga_json_obj_begin(w);
		ga_json_key(w, "status");
		ga_json_str(w, ga_pf_status_name(r->scan));
		ga_json_key(w, "message");
		ga_json_str(w, r->scan_msg);
		ga_json_key(w, "paths");
		ga_json_arr_begin(w);
		for (size_t i = 0; i < r->n_scan; i++)
			ga_json_str(w, r->scan_paths[i]);
		ga_json_arr_end(w);
		ga_json_key(w, "target");
		ga_json_str(w, r->scan_target);
		ga_json_key(w, "files");
		ga_json_u64(w, r->scan_files);
		ga_json_key(w, "packages");
		ga_json_u64(w, r->scan_packages);
		ga_json_key(w, "findings");
		ga_findings_write_json(r->scan_findings, w);
		ga_json_obj_end(w);
	} else {
		ga_json_null(w);
	}
}

static void json_command(const struct ga_pf_report *r, struct ga_json *w)
{
	ga_json_key(w, "command");
	ga_json_arr_begin(w);
	for (size_t i = 0; r->cmd[i]; i++)
		ga_json_str(w, r->cmd[i]);
	ga_json_arr_end(w);
	ga_json_key(w, "shell");
	ga_json_bool(w, r->shell);
	ga_json_key(w, "timeout_s");
	if (r->timeout_s == floor(r->timeout_s))
		ga_json_u64(w, (uint64_t)r->timeout_s);
	else
		ga_json_dbl(w, r->timeout_s);
	ga_json_key(w, "cold");
	if (r->n_runs)
		json_run(r, w, &r->runs[0]);
	else
		ga_json_null(w);
	ga_json_key(w, "warm");
	ga_json_arr_begin(w);
	for (size_t i = 1; i < r->n_runs; i++)
		json_run(r, w, &r->runs[i]);
	ga_json_arr_end(w);
}

static void json_builtin(const struct ga_pf_report *r, struct ga_json *w)
{
	ga_json_key(w, "backend");
	ga_json_str(w, r->gemm->backend);
	ga_json_key(w, "skipped_backends");
	ga_json_str(w, r->gemm->skipped[0] ? r->gemm->skipped : NULL);
	ga_json_key(w, "n");
	ga_json_u64(w, r->gemm->n);
	ga_json_key(w, "max_rel_err");
	if (r->gemm->ran)
		ga_json_dbl(w, r->gemm->max_rel_err);
	else
		ga_json_null(w);
	ga_json_key(w, "tolerance");
	ga_json_dbl(w, r->gemm->tolerance);
	json_time(r, w, "cold_s", r->gemm->cold_s, r->gemm->ran);
	ga_json_key(w, "warm_s");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < r->gemm->n_warm; i++)
		json_time(r, w, NULL, r->gemm->warm_s[i], true);
	ga_json_arr_end(w);
}

static void json_warmup(const struct ga_pf_report *r, struct ga_json *w)
{
	ga_json_key(w, "warmup");
	ga_json_obj_begin(w);
	ga_json_key(w, "status");
	ga_json_str(w, ga_pf_status_name(r->warmup));
	ga_json_key(w, "message");
	ga_json_str(w, r->warmup_msg);
	ga_json_key(w, "kind");
	ga_json_str(w, r->cmd ? "command" : "builtin");
	if (r->cmd)
		json_command(r, w);
	else
		json_builtin(r, w);
	json_time(r, w, "warm_median_s", r->median_s, r->have_median);
	ga_json_obj_end(w);
}

int ga_preflight_write_json(const struct ga_pf_report *r, struct ga_buf *out)
{
	struct ga_json w;
	ga_json_init(&w, out, true);
	ga_json_obj_begin(&w);
	ga_json_key(&w, "schema");
	ga_json_str(&w, GA_PREFLIGHT_SCHEMA);
	ga_json_key(&w, "result");
	ga_json_str(&w, ga_pf_status_name(r->result));
	json_discover(r, &w);
	json_check(r, &w);
	json_scan(r, &w);
	json_warmup(r, &w);
	ga_json_key(&w, "explain");
	if (r->ex) {
		ga_json_obj_begin(&w);
		ga_explain_write_json(r->ex, &w);
		ga_json_obj_end(&w);
	} else {
		ga_json_null(&w);
	}
	ga_json_obj_end(&w);
	return ga_json_finish(&w);
}
