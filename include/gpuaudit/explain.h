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
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in explain-analyze.h (analyze).
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

uint64_t ga_explain_long_lines(const struct ga_explain *ex); /* lines cut at GA_EXPLAIN_LINE_MAX */

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
	long code_index;                    /* that code in the tables (errcodes.h), -1: none */
};

/* Add what the node snapshot says to each cause and re-rank. 0 or -ENOMEM. */
struct ga_node;

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
	char *encoding;                  /* "UTF-16LE"/"UTF-16BE" when converted; NULL (left out): as is */
	char *for_file;                  /* "for": --for's snapshot, NULL without it */
	struct ga_explain_result result; /* its members, inline */
	/* left out unless no cause matched and some line looks like an error (exit 4) */
	struct ga_explain_doc_inconclusive *inconclusive;
};
extern const struct ga_schema ga_explain_report_schema;

#ifdef __cplusplus
}
#endif
#endif
