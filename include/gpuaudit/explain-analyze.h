/*
 * explain-analyze.h - the explanation of a log (lib/analyze/explain.c with signatures.def):
 * the signature catalogue, the matcher fed line by line, the causes and the reports filled
 * from a result. The reports' types and the gpuaudit.explain/v1 model are explain.h's.
 */
#ifndef GPUAUDIT_EXPLAIN_ANALYZE_H
#define GPUAUDIT_EXPLAIN_ANALYZE_H

#include "gpuaudit/explain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "node_hardware", "driver", "container_runtime", "application", "network", "configuration"; NULL
 * for GA_CAUSE_UNKNOWN and out of range (every signature has a class). */
const char *ga_cause_class_name(enum ga_cause c);

size_t ga_signature_count(void);

const struct ga_signature *ga_signature_get(size_t i);

size_t ga_sig_pattern_count(void);

const struct ga_sig_pattern *ga_sig_pattern_get(size_t i);

/* max_matches: matches kept for the report (the counts go on regardless). -ENOMEM. The regexes
 * are compiled as their literals first hit a line (unit/test_explain compiles every one). */
int ga_explain_new(size_t max_matches, struct ga_explain **ret);

void ga_explain_free(struct ga_explain *ex);

/* Forget the input seen so far; the compiled catalogue is kept (cheaper than _free + _new). */
void ga_explain_reset(struct ga_explain *ex);

/* Any chunking; a line may span calls. 0, -ENOMEM, or -ENOTSUP for a UTF-16 input (a byte-order
 * mark, or two ASCII characters each beside a NUL) where iconv has no converter from UTF-16 (the
 * input cannot be read: no clean result). */
int ga_explain_feed(struct ga_explain *ex, const char *buf, size_t len);

/* The input's encoding when explain converted it: "UTF-16LE" or "UTF-16BE" (a byte-order mark at
 * its start, or none before ASCII text); NULL when it was read as is (UTF-8, ASCII, other bytes). */
const char *ga_explain_encoding(const struct ga_explain *ex);

/* One complete line (no newline). */
int ga_explain_line(struct ga_explain *ex, const char *line, size_t len);

/* End the last line when it had no newline (call at the end; more feeding may follow: it is
 * another input, whose first bytes decide its encoding again). */
int ga_explain_finish(struct ga_explain *ex);

uint64_t ga_explain_lines(const struct ga_explain *ex);

uint64_t ga_explain_match_count(const struct ga_explain *ex);

/* Matches of signatures whose action is not none: 0 when the log holds notices only. */
uint64_t ga_explain_acted_count(const struct ga_explain *ex);

const struct ga_explain_match *ga_explain_matches(const struct ga_explain *ex, size_t *n);

/*
 * The causes, most likely first: score (signature weight, raised when the node
 * confirms it), then count, then first line. Valid until the next feed.
 */
const struct ga_explain_cause *ga_explain_causes(struct ga_explain *ex, size_t *n);

/*
 * The signature of a cause or match: sig < ga_signature_count() is the
 * catalogue's; past it, the error-code groups' (lib/core/errcodes/groups.def:
 * id "errcode-...", layer "error code", no code of their own: the detail names
 * the codes). NULL out of range.
 */
const struct ga_signature *ga_explain_sig(unsigned sig);

/* n kept, *total: every error-looking line seen while no cause was known. */
const struct ga_explain_salient *ga_explain_salient_lines(const struct ga_explain *ex, size_t *n,
                                                          uint64_t *total);

int ga_explain_for(struct ga_explain *ex, const struct ga_node *node);

/* The matcher's result (causes ranked) into r, zeroed first; release with
 * ga_schema_release(&ga_explain_result_schema, r). 0 or -ENOMEM. */
int ga_explain_result_fill(struct ga_explain *ex, struct ga_explain_result *r);

/* The whole document; release with ga_schema_release(&ga_explain_report_schema, r). */
int ga_explain_report_fill(struct ga_explain *ex, const char *source, const char *for_file,
                           struct ga_explain_report *r);

/* Value of a captured key in a match or cause list, NULL when absent. */
const char *ga_capture_get(const struct ga_capture_kv *kv, size_t n, const char *key);

#ifdef __cplusplus
}
#endif
#endif
