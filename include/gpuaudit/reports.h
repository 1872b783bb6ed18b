/*
 * reports.h - reading node reports for `gpuaudit fleet` (lib/collect/reports.c):
 * files, directories and stdin, each holding one JSON document, several
 * concatenated, or JSON lines, compressed or not. The reader only yields
 * documents, through a sink the caller gives (its type is the model's:
 * reader-sinks.h); what is done with them (the fleet aggregator,
 * fleet-analyze.h's ga_fleet_sink) is the caller's, a layer above.
 */
#ifndef GPUAUDIT_REPORTS_H
#define GPUAUDIT_REPORTS_H

#include "gpuaudit/node.h"
#include "gpuaudit/reader-sinks.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read the reports in PATH into the sink: a file (one JSON document, several
 * concatenated, or JSON lines; gzip-, zstd-, xz-... compressed or not), a
 * directory (its *.json, *.jsonl, *.ndjson files, compressed or not,
 * recursively, in name order) or "-" (stdin). Decompression streams; each
 * document is capped at the context's max file size. A malformed, truncated,
 * oversized or unknown document goes to sink->skipped and reading goes on.
 * Returns 0, -ENOMEM, or -errno when PATH itself cannot be opened or read
 * (message in ctx; what was read so far has reached the sink).
 */
int ga_reports_read_path(struct ga_ctx *ctx, const struct ga_reports_sink *sink, const char *path);
/* The same for a buffer (already decompressed); name is the source prefix. */
int ga_reports_read_buffer(struct ga_ctx *ctx, const struct ga_reports_sink *sink, const char *name,
                           const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
