/*
 * explain.h - turn error logs into causes: the signature catalogue
 * (lib/analyze/signatures.def) and a streaming matcher over it.
 *
 * The matcher is pure: it takes bytes, never reads files or the clock. Feed it
 * a log in chunks of any size; it splits lines itself, keeps only the first
 * GA_EXPLAIN_LINE_MAX bytes of each line, and stores a bounded number of
 * matches, so a log of any size streams in constant memory. Each signature has
 * one required literal; a single pass over the input looks for a byte pair of
 * every literal at once (a 64 Ki-bit table), and only lines that contain a
 * literal are given to the POSIX regex that captures the variable parts. The
 * cost is linear in the input.
 */
#ifndef GPUAUDIT_EXPLAIN_H
#define GPUAUDIT_EXPLAIN_H

#include "gpuaudit/findings.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_EXPLAIN_LINE_MAX 8192      /* bytes of a line that are matched; the rest is skipped */
#define GA_EXPLAIN_TEXT_MAX 400       /* bytes of a matched line kept for the report */
#define GA_EXPLAIN_MAX_CAPTURES 4     /* named captures per pattern */
#define GA_EXPLAIN_VALUES_PER_CAUSE 6 /* distinct captured values kept per cause */

/*
 * What is at fault, the first thing whoever acts on a cause needs: the node's
 * hardware (drain, repair), the driver (reboot, reinstall), the container
 * runtime (its setup on the node), the application (the job's own bug: Xid
 * 13/31/43 are the job's, not the GPU's), the network (links, cables,
 * switches), or the configuration (what was deployed does not fit where: an
 * image for a newer driver, a build for another GPU).
 */
/* The classes are enum ga_cause (findings.h): the same set for findings and causes. */
/* "node_hardware", "driver", "container_runtime", "application", "network", "configuration"; NULL
 * for GA_CAUSE_UNKNOWN and out of range (every signature has a class). */
const char *ga_cause_class_name(enum ga_cause c);

/* One catalogue entry (signatures.def). */
struct ga_signature {
	const char *id;            /* stable, kebab-case: "loader-soname" */
	const char *layer;         /* "loader", "CUDA", "PyTorch", "HIP", "NCCL", ... */
	enum ga_cause cause_class; /* the usual class; a cause may refine it (Xid numbers) */
	enum ga_action action;     /* the decision: what to do first; refined like the class */
	int weight;                /* how directly it names a root cause: 100 definite .. 10 noise */
	const char *code; /* the library's error code when it has one: "cudaErrorInsufficientDriver (35)" */
	const char *cause;
	const char *fix;
	const char *next; /* what to check next */
};

/* One pattern of a signature: a required literal and the regex that captures. */
struct ga_sig_pattern {
	unsigned sig;                                      /* index into the catalogue */
	const char *literal;                               /* must occur in the line (case-sensitive) */
	const char *regex;                                 /* POSIX ERE, run on lines with the literal */
	const char *captures[GA_EXPLAIN_MAX_CAPTURES + 4]; /* name per group, NULL/"" = unnamed */
};

size_t ga_signature_count(void);
const struct ga_signature *ga_signature_get(size_t i);
size_t ga_sig_pattern_count(void);
const struct ga_sig_pattern *ga_sig_pattern_get(size_t i);

struct ga_capture_kv {
	char key[24];
	char value[128];
};

struct ga_explain_match {
	uint64_t line; /* 1-based */
	unsigned sig;
	char text[GA_EXPLAIN_TEXT_MAX + 1]; /* the line, control bytes as spaces, cut */
	struct ga_capture_kv cap[GA_EXPLAIN_MAX_CAPTURES];
	size_t n_cap;
};

/* A cause: every match of one signature, aggregated. */
struct ga_explain_cause {
	unsigned sig;
	uint64_t count;
	uint64_t first_line;
	uint64_t last_line;
	struct ga_capture_kv values[GA_EXPLAIN_VALUES_PER_CAUSE]; /* distinct, first seen first */
	size_t n_values;
	int score;                 /* weight, adjusted by what the node says */
	enum ga_cause cause_class; /* the signature's, refined by captured values (Xid numbers) */
	enum ga_action action;     /* likewise: the Xid catalogue's, the IB status's */
	char detail[2048];         /* catalogue detail (every (GPU, Xid) with its action), "" when none */
	char *node_note;           /* what the node snapshot says about it (ga_explain_for), or NULL */
};

struct ga_explain;

/* max_matches: matches kept for the report (the counts go on regardless). -ENOMEM / -EINVAL. */
int ga_explain_new(size_t max_matches, struct ga_explain **ret);
void ga_explain_free(struct ga_explain *ex);
/* Forget the input seen so far; the compiled catalogue is kept (cheaper than _free + _new). */
void ga_explain_reset(struct ga_explain *ex);
/* Any chunking; a line may span calls. 0 or -ENOMEM. */
int ga_explain_feed(struct ga_explain *ex, const char *buf, size_t len);
/* One complete line (no newline). */
int ga_explain_line(struct ga_explain *ex, const char *line, size_t len);
/* End the last line when it had no newline (call at the end; more feeding may follow). */
int ga_explain_finish(struct ga_explain *ex);

uint64_t ga_explain_lines(const struct ga_explain *ex);
uint64_t ga_explain_long_lines(const struct ga_explain *ex); /* lines cut at GA_EXPLAIN_LINE_MAX */
uint64_t ga_explain_match_count(const struct ga_explain *ex);
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

/*
 * While no cause is known, the lines that look like errors (error, fatal,
 * failed, exception, a crash, an error code that names no cause or is in no
 * table): the most salient GA_EXPLAIN_SALIENT_MAX, in line order. Shown when
 * the log ends with no cause (explain's inconclusive report).
 */
#define GA_EXPLAIN_SALIENT_MAX 5
struct ga_explain_salient {
	uint64_t line;
	int score;                          /* 4 crash/fatal .. 1 failed/exception */
	char text[GA_EXPLAIN_TEXT_MAX + 1]; /* as a match's */
	const char *component;              /* a guess from the line's words, "unknown" */
	char code[224];                     /* the code it names, described; "" when none */
};
/* n kept, *total: every error-looking line seen while no cause was known. */
const struct ga_explain_salient *ga_explain_salient_lines(const struct ga_explain *ex, size_t *n,
                                                          uint64_t *total);

/* Add what the node snapshot says to each cause and re-rank. 0 or -ENOMEM. */
struct ga_node;
int ga_explain_for(struct ga_explain *ex, const struct ga_node *node);

/* --- the result as a document (lib/model/explain.c) --- */

#define GA_EXPLAIN_SCHEMA "gpuaudit.explain/v1"

struct ga_explain_doc_cause {
	struct ga_ou64 rank; /* 1 = most likely */
	char *id, *layer;
	char *cause_class; /* "class": ga_cause_class_name */
	char *action;      /* ga_action_name of the cause's action */
	struct ga_oi64 score;
	struct ga_ou64 count, first_line, last_line;
	char *error_code;       /* the signature's code, NULL when it has none */
	struct ga_kv *captured; /* distinct captured values; a repeated key is an array */
	size_t n_captured;
	char *cause;
	char *detail; /* NULL when none */
	char *node;   /* what --for's snapshot says, NULL without it */
	char *fix, *next;
};
struct ga_explain_doc_match {
	struct ga_ou64 line;
	char *id;
	struct ga_kv *captured;
	size_t n_captured;
	char *text;
};
/* What the matcher found: the members of the explain document (and of preflight's "explain"). */
struct ga_explain_result {
	struct ga_ou64 lines, match_count;
	struct ga_explain_doc_cause *causes;
	size_t n_causes;
	struct ga_explain_doc_match *matches;
	size_t n_matches;
	struct ga_ou64 matches_omitted;
};
extern const struct ga_schema ga_explain_result_schema;
/* No cause, but lines that look like errors: ga_explain_salient_lines as a document. */
struct ga_explain_doc_line {
	struct ga_ou64 line;
	char *component; /* a guess from the line's words */
	char *code;      /* NULL when the line names none */
	char *text;
};
struct ga_explain_doc_inconclusive {
	struct ga_ou64 error_lines; /* every error-looking line */
	struct ga_explain_doc_line *lines;
	size_t n_lines;
	char *next; /* GA_EXPLAIN_NEXT */
};
/* What to run when a log names no known cause. */
#define GA_EXPLAIN_NEXT                                                                         \
	"gpuaudit health (the node's GPUs, driver and kernel log), gpuaudit deps PROGRAM (its " \
	"libraries against the node), gpuaudit discover (what the node has)"
/* `explain --json`: gpuaudit.explain/v1. */
struct ga_explain_report {
	char *schema;                    /* GA_EXPLAIN_SCHEMA */
	char *source;                    /* the log as given ("-": stdin) */
	char *for_file;                  /* "for": --for's snapshot, NULL without it */
	struct ga_explain_result result; /* its members, inline */
	/* left out unless no cause matched and some line looks like an error (exit 4) */
	struct ga_explain_doc_inconclusive *inconclusive;
};
extern const struct ga_schema ga_explain_report_schema;

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
