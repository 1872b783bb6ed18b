/*
 * emit/preflight.c - the preflight report (gpuaudit.preflight/v1, `preflight
 * --json`) from what the steps found: struct ga_pf_report (borrowed plain
 * data) copied into the document struct ga_pf_doc, which the model's table
 * (lib/model/preflight.c) writes, reads back and frees. Serve and library
 * users write the same document through the same two calls. It renders only:
 * the statuses, the container view and the explanation were decided before
 * (lib/bench/preflight.c, ga_preflight_run) and come in the report.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/json.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/preflight-emit.h"
#include "gpuaudit/run.h"
#include "gpuaudit/warmup.h"

/* NULL stays NULL; *ok goes false on ENOMEM. */
static char *dup_or_null(const char *s, bool *ok)
{
	if (!s)
		return NULL;
	char *d = ga_strdup(s);
	*ok &= d != NULL;
	return d;
}

/* A wall time, rounded to the microsecond; unset with --no-times or when there is none. */
static void set_time(const struct ga_pf_report *r, struct ga_odbl *o, double v, bool have)
{
	if (r->times && have)
		GA_SET(*o, round(v * 1e6) / 1e6);
}

/*
 * n bytes of a stream. A NUL (which a JSON string read back cannot hold)
 * becomes U+FFFD, so that the report read back writes the same bytes.
 */
static char *dup_stream(const char *s, size_t n)
{
	size_t nul = 0;
	for (size_t i = 0; i < n; i++)
		nul += !s[i];
	char *d = ga_malloc(n + 2 * nul + 1), *p = d;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (s[i])
			*p++ = s[i];
		else
			memcpy(p, "\xef\xbf\xbd", 3), p += 3;
	*p = '\0';
	return d;
}

static int fill_capture(struct ga_pf_doc_capture *d, const struct ga_capture *c)
{
	GA_SET(d->total_bytes, c->total_bytes);
	GA_SET(d->omitted_bytes, c->omitted_bytes);
	d->head = dup_stream(c->head ? c->head : "", c->head_len);
	d->tail = dup_stream(c->tail ? c->tail : "", c->tail_len);
	return d->head && d->tail ? 0 : -ENOMEM;
}

static int fill_run(const struct ga_pf_report *rep, struct ga_pf_doc_run *d, const struct ga_run_result *r)
{
	bool ok = true;
	d->status = r->spawn_error ? GA_PF_RUN_NOT_STARTED
	            : r->timed_out ? GA_PF_RUN_TIMEOUT
	            : r->signaled  ? GA_PF_RUN_SIGNAL
	                           : GA_PF_RUN_EXIT;
	d->error = dup_or_null(r->spawn_error ? strerror(r->spawn_error) : NULL, &ok);
	if (r->exited)
		GA_SET(d->exit_code, r->exit_code);
	d->signal = dup_or_null(r->signaled ? sigabbrev_np(r->signal) : NULL, &ok);
	GA_SET(d->killed, r->killed);
	set_time(rep, &d->wall_s, r->wall_s, !r->spawn_error);
	if (!ok || fill_capture(&d->out, &r->out) < 0 || fill_capture(&d->err, &r->err) < 0)
		return -ENOMEM;
	return 0;
}

/* A copy of every finding of f into out (initialised by the caller). */
static int copy_findings(struct ga_findings *out, const struct ga_findings *f)
{
	for (size_t i = 0; f && i < f->n; i++) {
		if (!ga_findings_copy(out, &f->v[i]))
			return -ENOMEM;
	}
	return out->err ? -ENOMEM : 0;
}

static int fill_discover(const struct ga_pf_report *r, struct ga_pf_doc_discover *d)
{
	bool ok = true;
	d->status = r->discover;
	d->hostname = dup_or_null(r->node->host.hostname, &ok);
	d->node_class = dup_or_null(r->node_class, &ok);
	GA_SET(d->accelerators, r->node->n_accelerators);
	ga_findings_init(&d->findings);
	if (!ok)
		return -ENOMEM;
	return copy_findings(&d->findings, r->node_findings);
}

static int fill_check(const struct ga_pf_report *r, struct ga_pf_doc *doc)
{
	if (!r->checked)
		return 0;
	struct ga_pf_doc_check *d = doc->check = ga_calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	bool ok = true;
	d->status = r->check;
	d->policy = dup_or_null(r->policy_file, &ok);
	d->cls = dup_or_null(r->chk->cls ? r->chk->cls->name : NULL, &ok);
	GA_SET(d->violations, r->chk->violations);
	GA_SET(d->unknowns, r->chk->unknowns);
	ga_findings_init(&d->findings);
	if (!ok)
		return -ENOMEM;
	return copy_findings(&d->findings, &r->chk->findings);
}

static int fill_scan(const struct ga_pf_report *r, struct ga_pf_doc *doc)
{
	if (!r->scanned)
		return 0;
	struct ga_pf_doc_scan *d = doc->scan = ga_calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	bool ok = true;
	d->status = r->scan;
	d->message = dup_or_null(r->scan_msg, &ok);
	for (size_t i = 0; i < r->n_scan; i++)
		if (ga_strv_push(&d->paths, r->scan_paths[i]) < 0)
			return -ENOMEM;
	d->target = dup_or_null(r->scan_target, &ok);
	GA_SET(d->files, r->scan_files);
	GA_SET(d->packages, r->scan_packages);
	ga_findings_init(&d->findings);
	if (!ok)
		return -ENOMEM;
	return copy_findings(&d->findings, r->scan_findings);
}

static int fill_command(const struct ga_pf_report *r, struct ga_pf_doc_command *d)
{
	d->present = true;
	for (size_t i = 0; r->cmd[i]; i++)
		if (ga_strv_push(&d->command, r->cmd[i]) < 0)
			return -ENOMEM;
	GA_SET(d->shell, r->shell);
	GA_SET(d->timeout_s, r->timeout_s);
	if (!r->n_runs)
		return 0;
	if (!(d->cold = ga_calloc(1, sizeof(*d->cold))))
		return -ENOMEM;
	int e = fill_run(r, d->cold, &r->runs[0]);
	if (e < 0 || r->n_runs < 2)
		return e;
	if (!(d->warm = ga_calloc(r->n_runs - 1, sizeof(*d->warm))))
		return -ENOMEM;
	for (size_t i = 1; i < r->n_runs; i++) {
		d->n_warm = i; /* the runs filled so far, for the release */
		if ((e = fill_run(r, &d->warm[i - 1], &r->runs[i])) < 0)
			return e;
	}
	return 0;
}

static int fill_builtin(const struct ga_pf_report *r, struct ga_pf_doc_builtin *d)
{
	const struct ga_warmup_result *g = r->gemm;
	bool ok = true;
	d->backend = dup_or_null(g->backend, &ok);
	d->skipped_backends = dup_or_null(g->skipped[0] ? g->skipped : NULL, &ok);
	GA_SET(d->n, g->n);
	if (g->ran)
		GA_SET(d->max_rel_err, g->max_rel_err);
	GA_SET(d->tolerance, g->tolerance);
	set_time(r, &d->cold_s, g->cold_s, g->ran);
	d->present = true;
	if (!ok)
		return -ENOMEM;
	if (g->n_warm && !(d->warm_s.v = ga_calloc(g->n_warm, sizeof(double))))
		return -ENOMEM;
	d->warm_s.n = g->n_warm;
	for (size_t i = 0; i < g->n_warm; i++)
		d->warm_s.v[i] = r->times ? round(g->warm_s[i] * 1e6) / 1e6 : NAN; /* NaN: null */
	return 0;
}

static int fill_warmup(const struct ga_pf_report *r, struct ga_pf_doc_warmup *d)
{
	bool ok = true;
	d->status = r->warmup;
	d->message = dup_or_null(r->warmup_msg, &ok);
	d->kind = r->cmd ? GA_PF_WARMUP_COMMAND : GA_PF_WARMUP_BUILTIN;
	set_time(r, &d->warm_median_s, r->median_s, r->have_median);
	if (!ok)
		return -ENOMEM;
	return r->cmd ? fill_command(r, &d->cmd) : fill_builtin(r, &d->builtin);
}

/*
 * A deep copy of a model's struct through the model itself: written, then read
 * back (the round trip the model's tests hold to). NULL stays NULL. 0 or -ENOMEM.
 */
static int copy_through_model(const struct ga_schema *s, const void *src, void **ret)
{
	*ret = NULL;
	if (!src)
		return 0;
	struct ga_buf b;
	struct ga_json w;
	json_t *j = NULL;
	void *d = NULL;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, false);
	ga_schema_write(&w, s, src);
	int e = ga_json_finish(&w);
	if (e < 0 || (e = ga_json_parse(NULL, b.data, b.len, 0, &j, NULL)) < 0)
		goto out;
	e = -ENOMEM;
	if (!(d = ga_calloc(1, s->size)))
		goto out;
	if ((e = ga_schema_read(NULL, s, j, d)) < 0) {
		ga_schema_release(s, d);
		ga_free(d);
		d = NULL;
		e = e == -ENOMEM ? e : -EINVAL;
		goto out;
	}
	*ret = d;
	e = 0;
out:
	json_decref(j);
	ga_buf_release(&b);
	return e;
}

int ga_pf_doc_fill(const struct ga_pf_report *r, struct ga_pf_doc *d)
{
	memset(d, 0, sizeof(*d));
	int e = -ENOMEM;
	void *container = NULL, *explain = NULL;
	d->result = r->result;
	if (!(d->schema = ga_strdup(GA_PREFLIGHT_SCHEMA)))
		goto out;
	if ((e = fill_discover(r, &d->discover)) < 0 || (e = fill_check(r, d)) < 0 ||
	    (e = fill_scan(r, d)) < 0 || (e = fill_warmup(r, &d->warmup)) < 0)
		goto out;
	if ((e = copy_through_model(&ga_pf_container_schema, r->container, &container)) < 0)
		goto out;
	d->container = container;
	if ((e = copy_through_model(&ga_explain_result_schema, r->explain, &explain)) < 0)
		goto out;
	d->explain = explain;
	e = 0;
out:
	if (e < 0)
		ga_schema_release(&ga_pf_doc_schema, d);
	return e;
}

int ga_preflight_write_json(const struct ga_pf_report *r, struct ga_buf *out)
{
	const struct ga_model *m = ga_model_find(GA_PREFLIGHT_SCHEMA);
	struct ga_pf_doc d;
	if (!m)
		return -EINVAL;
	int e = ga_pf_doc_fill(r, &d);
	if (e < 0)
		return e;
	e = ga_model_write(m, &d, out, true);
	ga_model_release(m, &d);
	return e;
}
