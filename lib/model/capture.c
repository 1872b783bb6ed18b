/*
 * capture.c - `capture --json` as a document ("gpuaudit.capture/v1"): what a
 * capture wrote and what it left out and why, so a script that captures many
 * nodes can tell a complete capture from a partial one without reading the tree.
 */
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/capture.h"
#include "gpuaudit/model.h"

static const struct ga_field skip_f[] = {
	GA_FIELD(struct ga_capture_skip, path, GA_F_STR),
	GA_FIELD(struct ga_capture_skip, reason, GA_F_STR),
};
static const struct ga_schema skip_s = { "ga_capture_skip", sizeof(struct ga_capture_skip), skip_f,
	                                 GA_ARRAY_SIZE(skip_f) };

static const struct ga_field capture_f[] = {
	GA_FIELD(struct ga_capture_report, schema, GA_F_STR),
	GA_FIELD(struct ga_capture_report, root, GA_F_STR),
	GA_FIELD(struct ga_capture_report, outdir, GA_F_STR),
	GA_FIELD(struct ga_capture_report, files, GA_F_U64),
	GA_FIELD(struct ga_capture_report, empty_files, GA_F_U64),
	GA_FIELD(struct ga_capture_report, links, GA_F_U64),
	GA_FIELD(struct ga_capture_report, dirs, GA_F_U64),
	GA_FIELD(struct ga_capture_report, bytes, GA_F_U64),
	GA_FIELD(struct ga_capture_report, skipped_count, GA_F_U64),
	GA_FIELD(struct ga_capture_report, truncated_count, GA_F_U64),
	GA_FIELD(struct ga_capture_report, elapsed_ms, GA_F_DBL),
	GA_FIELD_ARR(struct ga_capture_report, skipped, skip_s),
	GA_FIELD(struct ga_capture_report, truncated, GA_F_STRV),
};
const struct ga_schema ga_capture_report_schema = { "ga_capture_report", sizeof(struct ga_capture_report),
	                                            capture_f, GA_ARRAY_SIZE(capture_f) };
