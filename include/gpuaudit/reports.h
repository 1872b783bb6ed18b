/*
 * reports.h - reading node reports for `gpuaudit fleet` (lib/collect/reports.c):
 * files, directories and stdin, each holding one JSON document, several
 * concatenated, or JSON lines, compressed or not. The reader only yields
 * documents, through a sink the caller gives; what is done with them (the
 * fleet aggregator, fleet.h's ga_fleet_sink) is the caller's, a layer above.
 */
#ifndef GPUAUDIT_REPORTS_H
#define GPUAUDIT_REPORTS_H

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A check report (`gpuaudit check --json`), as the reader found it. */
struct ga_reports_check {
	const char *name;   /* its host, or the file's name without extensions */
	const char *cls;    /* the policy class; NULL: none matched */
	const char *result; /* as written: "pass", "fail", "unknown" or anything else */
	const char *detail; /* the codes of the error/critical findings, space-separated; NULL: none */
};

/*
 * Where documents go, in reading order and always in the caller's thread.
 * source names the document ("path", "path:LINE", "stdin:LINE").
 *   node:    a node snapshot. 0; -ENOMEM stops the read; another -errno:
 *            the reader records it as skipped ("cannot classify it").
 *   check:   a check report. 0; -ENOMEM stops; -EINVAL: the result is not
 *            one the sink knows, recorded as skipped.
 *   skipped: a document that could not be used, and why. 0 or -ENOMEM.
 */
struct ga_reports_sink {
	void *ud;
	int (*node)(void *ud, const struct ga_node *n, const char *source);
	int (*check)(void *ud, const struct ga_reports_check *c, const char *source);
	int (*skipped)(void *ud, const char *source, const char *reason);
	/* threads that parse documents; 0 or 1: the caller's thread does all */
	unsigned jobs;
};

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
