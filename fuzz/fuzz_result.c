/*
 * fuzz_result.c - the benchmark-result reader (gpuaudit canary's input) on
 * arbitrary bytes. An accepted result is written back metric by metric through
 * the model; the output must be JSON the reader accepts again with the same
 * values, and the canary judge must run on it (result against itself).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/canary.h"
#include "gpuaudit/canary-run.h"

static struct ga_ctx *ctx;

/* The result written back through the model (lib/model/bench.c), metric by metric. */
static void write_back(const struct ga_bench_file *r, struct ga_buf *out)
{
	struct ga_bench_doc d;
	memset(&d, 0, sizeof(d));
	d.kind = r->kind;
	if (r->has_requests) {
		d.http.set = true;
		GA_SET(d.http.requests, r->requests);
		GA_SET(d.http.errors, r->errors);
	}
	struct ga_bench_doc_metric *ms = calloc(r->n_metrics + 1, sizeof(*ms));
	FUZZ_CHECK(ms != NULL);
	d.metrics = ms;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_metric *m = &r->metrics[i];
		FUZZ_CHECK(ga_bench_doc_metric_set(&ms[i], m->name, m->unit, m->higher_better, m->samples,
		                                   m->n_samples, m->hist, m->hist_scale) == 0);
		d.n_metrics++;
	}
	FUZZ_CHECK(ga_bench_doc_write(&d, out, false) == 0);
	for (size_t i = 0; i < d.n_metrics; i++)
		ga_bench_doc_metric_clear(&ms[i]);
	free(ms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	struct ga_bench_file *r = NULL;
	if (ga_bench_file_from_json(ctx, (const char *)data, size, &r) < 0) {
		FUZZ_CHECK(r == NULL);
		FUZZ_CHECK(ga_ctx_errmsg(ctx)[0] != '\0');
		return 0;
	}
	struct ga_buf out;
	ga_buf_init(&out, 0);
	write_back(r, &out);
	fuzz_check_json(out.data, out.len, 0);
	struct ga_bench_file *back = NULL;
	FUZZ_CHECK(ga_bench_file_from_json(ctx, out.data, out.len, &back) == 0);
	FUZZ_CHECK(back->n_metrics == r->n_metrics);
	size_t total = 0;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ga_metric *a = &r->metrics[i], *b = &back->metrics[i];
		FUZZ_CHECK(!strcmp(a->name, b->name));
		FUZZ_CHECK(ga_metric_count(a) == ga_metric_count(b));
		if (a->samples)
			FUZZ_CHECK(memcmp(a->samples, b->samples, a->n_samples * sizeof(double)) == 0);
		if (a->hist)
			FUZZ_CHECK(memcmp(a->hist->counts, b->hist->counts,
			                  (size_t)a->hist->counts_len * sizeof(int64_t)) == 0);
		total += ga_metric_count(a);
	}
	if (total <= 20000) {
		struct ga_canary_opts o;
		ga_canary_opts_init(&o);
		o.resamples = 100;
		o.tail_pct = 90;
		struct ga_canary_report *rep = NULL;
		FUZZ_CHECK(ga_canary_judge(ctx, r, back, &o, &rep) == 0);
		FUZZ_CHECK(rep->verdict != GA_VERDICT_ROLLBACK); /* a result is no regression of itself */
		ga_canary_report_free(rep);
	}
	ga_bench_file_free(back);
	ga_bench_file_free(r);
	ga_buf_release(&out);
	return 0;
}
