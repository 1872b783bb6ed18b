/*
 * fuzz_fleet.c - the fleet report reader (lib/collect/reports.c) on arbitrary
 * bytes: JSON lines, concatenated and pretty documents, node snapshots and
 * check reports, cut or garbled anywhere. Every document is counted exactly
 * once (a node, a check report or a skipped one), the report serialises to
 * JSON that reads back to the same text, and a diff against itself is empty.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/fleet-analyze.h"
#include "gpuaudit/reports.h"

static struct ga_ctx *ctx;

static char *to_json(const struct ga_fleet_report *r, size_t *len)
{
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, false);
	ga_json_obj_begin(&w);
	ga_fleet_report_write_members(r, &w);
	ga_json_obj_end(&w);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
	return ga_buf_detach(&b, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	ga_ctx_set_max_file(ctx, 1 << 20);
	struct ga_fleet_opts o = { .max_drift = 4 };
	struct ga_fleet *f = NULL;
	struct ga_fleet_report *r = NULL, *back = NULL;
	struct ga_fleet_diff *d = NULL;
	FUZZ_CHECK(ga_fleet_new(&o, &f) == 0);
	struct ga_reports_sink sink;
	ga_fleet_sink(f, &sink);
	FUZZ_CHECK(ga_reports_read_buffer(ctx, &sink, "fuzz", data, size) == 0);
	FUZZ_CHECK(ga_fleet_report(f, &r) == 0);
	FUZZ_CHECK(r->reports.v == r->nodes.v + r->check_reports.v + r->skipped.v);
	FUZZ_CHECK(r->n_drift <= 4 && r->n_drift <= r->drift_nodes.v);
	uint64_t in_classes = 0;
	for (size_t i = 0; i < r->n_classes; i++)
		in_classes += r->classes[i].nodes.v;
	FUZZ_CHECK(in_classes == r->nodes.v);
	size_t len = 0, len2 = 0;
	char *j = to_json(r, &len);
	fuzz_check_json(j, len, 0);
	FUZZ_CHECK(ga_fleet_report_from_json(ctx, j, len, &back) == 0);
	char *j2 = to_json(back, &len2);
	FUZZ_CHECK(len == len2 && memcmp(j, j2, len) == 0);
	FUZZ_CHECK(ga_fleet_diff(back, r, &d) == 0);
	FUZZ_CHECK(d->n_changes == 0);
	ga_free(j);
	ga_free(j2);
	ga_fleet_diff_free(d);
	ga_fleet_report_free(back);
	ga_fleet_report_free(r);
	ga_fleet_free(f);
	return 0;
}
