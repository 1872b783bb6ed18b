/* cli.h - shared pieces of the gpuaudit command line (src/ only). */
#ifndef GA_CLI_H
#define GA_CLI_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "gpuaudit/core.h"

/* Exit codes, one scheme for every command (docs/architecture.md). */
enum {
	EXIT_OK = 0,          /* ok / pass */
	EXIT_PROBLEMS = 1,    /* problems found: fail, rollback, policy violation */
	EXIT_USAGE = 2,       /* usage error or unreadable input */
	EXIT_UNAVAILABLE = 3, /* required backend or environment unavailable */
	EXIT_INCONCLUSIVE = 4,
	EXIT_INTERNAL = 70,
};

struct cli {
	const char *prog;
	FILE *out;
	FILE *err;
	bool color;          /* stdout is a TTY and NO_COLOR is unset */
	char self_exe[4096]; /* this executable, for the vendor-library helper */
};

struct command {
	const char *name;
	int (*fn)(struct cli *cli, int argc, char **argv);
	const char *summary;
	const char *usage;            /* full help text for -h and 'gpuaudit help CMD' */
	bool hidden;                  /* internal: not listed in help */
	void (*more_usage)(FILE *to); /* printed after usage (bench: its subcommands) */
};

/* --deadline SEC (src/deadline.c): exit 4 with one line on stderr once SEC have passed; CLI_NEXT or
 * the usage error's exit code. */
int cli_deadline(struct cli *cli, const char *arg);
/* The command table (main.c), handed to cli.c before any command runs. */
void cli_set_commands(const struct command *commands);

int cmd_discover(struct cli *cli, int argc, char **argv);
int cmd_help(struct cli *cli, int argc, char **argv);
int cmd_class(struct cli *cli, int argc, char **argv);
int cmd_check(struct cli *cli, int argc, char **argv);
int cmd_fleet(struct cli *cli, int argc, char **argv);
int cmd_health(struct cli *cli, int argc, char **argv);
int cmd_record(struct cli *cli, int argc, char **argv);
/* NVML's live counters (through the deadline-bound vendor helper) into one sample line;
 * NVML's failure goes into the line too. 0 or -ENOMEM (cmd-record.c; triage uses it live). */
struct ga_ctx;
struct ga_sample_doc;
int cli_sample_add_nvml(struct ga_ctx *ctx, struct ga_sample_doc *d);
int cmd_triage(struct cli *cli, int argc, char **argv);
int cmd_deps(struct cli *cli, int argc, char **argv);
int cmd_version(struct cli *cli, int argc, char **argv);
int cmd_bench(struct cli *cli, int argc, char **argv);
int cmd_explain(struct cli *cli, int argc, char **argv);
int cmd_preflight(struct cli *cli, int argc, char **argv);
int cmd_serve(struct cli *cli, int argc, char **argv);
int cmd_smoke(struct cli *cli, int argc, char **argv);
/* Workload benchmarks (src/cmd-bench-exec.c, src/cmd-bench-http.c) and the canary judge (src/cmd-canary.c). */
int cmd_bench_exec(struct cli *cli, int argc, char **argv);
int cmd_bench_http(struct cli *cli, int argc, char **argv);
int cmd_canary(struct cli *cli, int argc, char **argv);
/* The bench subcommands with their summaries (src/cmd-bench.c). */
void cli_bench_list(FILE *to);
int cmd_vendor_helper(struct cli *cli, int argc, char **argv);
int cmd_capture(struct cli *cli, int argc, char **argv);

const struct command *cli_find(const char *name);
void cli_main_usage(FILE *to);
void cli_usage(struct cli *cli, const struct command *c, FILE *to);
/*
 * Progress on stderr, only when stderr is a terminal: nothing in a pipe, a file
 * or a journal (bench, deps, smoke, capture, fleet --prometheus). One line
 * rewritten in place ("\r", erase to the end), at most every 100 ms, cleared
 * by cli_progress_end before the report.
 */
FILE *cli_progress_to(struct cli *cli); /* cli->err when it is a terminal, else NULL */
struct cli_progress {
	FILE *to; /* NULL: progress off */
	const char *prog, *cmd;
	double t0, last; /* monotonic seconds: the start, the last line */
	bool shown;      /* a line is on the terminal */
};
/* Whether progress is shown (stderr a terminal). */
bool cli_progress_init(struct cli_progress *p, struct cli *cli, const char *cmd);
void cli_progress_show(struct cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A ga_ctx progress callback (ga_ctx_set_progress): udata is the struct cli_progress. */
void cli_progress_ctx(void *udata, const char *call);
void cli_progress_end(struct cli_progress *p);

/* Print "gpuaudit CMD: message" to stderr; returns code. */
int cli_error(struct cli *cli, const char *cmd, int code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Options of every command that reads a node (src/snapshot-opts.c). */
struct snap_opts {
	const char *root;
	const char *from;
	const char *pci_ids;
	int vendor; /* enum ga_vendor_mode */
	double timeout_s;
	int verbose;
};
/* getopt_long entries for them; a command adds its own and ends the table. */
#define SNAP_LONG_OPTIONS                                                                           \
	{ "root", required_argument, NULL, 'r' }, { "from", required_argument, NULL, 'f' },         \
	        { "pci-ids", required_argument, NULL, 'p' }, { "verbose", no_argument, NULL, 'v' }, \
	        { "vendor", no_argument, NULL, 'V' }, { "no-vendor", no_argument, NULL, 'N' },      \
	{                                                                                           \
		"timeout", required_argument, NULL, 't'                                             \
	}
#define SNAP_SHORT_OPTIONS "vr:f:"
struct option;
void snap_opts_init(struct snap_opts *o);
/* 1: the option was one of these; 0: not ours; negative: -(exit code), message printed. */
int snap_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct snap_opts *o);
/* The getopt error case: a missing argument or an unknown option. Returns EXIT_USAGE. */
int cli_bad_option(struct cli *cli, const char *cmd, const struct option *opts, char **argv);
int snap_validate(struct cli *cli, const char *cmd, const struct snap_opts *o);
/* Context with root, pci.ids, vendor mode, timeout and helper set; EXIT_OK or an exit code. */
int snap_ctx(struct cli *cli, const char *cmd, const struct snap_opts *o, struct ga_ctx **ret);
/* Collect (or load with --from) the snapshot: 0 or -errno with the message in ctx. */
struct ga_node;
int snap_node(struct ga_ctx *ctx, const struct snap_opts *o, struct ga_node **ret);

/* node-problem-detector's message limit, and the shared one-line / early-failure helpers. */
#define CLI_NPD_MAX 80
/* Control bytes to spaces, then cut to max bytes on a UTF-8 boundary ending in "...". */
void cli_one_line(char *s, size_t max);
/* Print the error; in NPD mode also one "gpuaudit: NPD_WHAT: msg" line and return 2. */
int cli_report_fail(struct cli *cli, const char *cmd, const char *npd_what, bool npd, int code,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/*
 * Node Feature Discovery labels (src/nfd.c): the feature file text for node N,
 * its verdict V (verdict.h: the class ids and the container layer's states are
 * rendered from it) and check C (NULL: no policy, so no class/check labels),
 * expiring after expiry_s; and writing it atomically as DIR/gpuaudit (0, or -1
 * with err set).
 */
struct ga_buf;
struct ga_check;
struct ga_node_verdict;
int cli_nfd_labels(struct ga_buf *b, const char *writer, const struct ga_node *n,
                   const struct ga_node_verdict *v, const struct ga_check *c, long expiry_s);
int cli_nfd_write(const char *dir, const struct ga_buf *b, char *err, size_t errn);

/* Set up a context from --root / GPUAUDIT_ROOT, GPUAUDIT_PCI_IDS and -v. */
int cli_ctx(struct cli *cli, const char *cmd, const char *root, int verbose, struct ga_ctx **ret);

/*
 * Shared option loop (src/cli-parse.c). A handler gets each option but -h and
 * returns CLI_NEXT (taken), CLI_UNKNOWN (not its option: a usage error) or an
 * exit code to stop with. cli_parse returns CLI_NEXT when the options are
 * done (optind indexes the first operand) or the exit code to return, having
 * printed usage for -h/--help (EXIT_OK) or the error.
 */
#define CLI_NEXT (-1)
#define CLI_UNKNOWN (-2)
typedef int (*cli_opt_fn)(struct cli *cli, const char *cmd, int opt, const char *arg, void *st);
int cli_parse(struct cli *cli, const char *cmd, int argc, char **argv, const char *shortopts,
              const struct option *opts, cli_opt_fn fn, void *st);
/* The same, for commands whose options may follow their operands (deps PATH --json,
 * explain LOG --json): getopt moves the operands to argv[optind..argc), in order;
 * "--" still ends the options. */
int cli_parse_permute(struct cli *cli, const char *cmd, int argc, char **argv, const char *shortopts,
                      const struct option *opts, cli_opt_fn fn, void *st);
/* CLI_NEXT when no operand is left, else the usage error's exit code. */
int cli_no_operands(struct cli *cli, const char *cmd, int argc, char **argv);
/* "123", "64K", "100M", "4G" -> bytes (K, M, G: powers of 1024; 0 refused); -1 on error. */
int cli_size_parse(const char *s, uint64_t *ret);
/* A decimal integer in [min, max] for option what ("--x wants UNIT between ..."): CLI_NEXT or EXIT_USAGE. */
int cli_parse_long(struct cli *cli, const char *cmd, const char *what, const char *unit, const char *arg,
                   long min, long max, long *ret);
/* The exit code for a library error: out of memory is ours, anything else is the input's. */
static inline int cli_exit_for(int r)
{
	return r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
}
/*
 * Load --policy FILE and pick the class: --class NAME when given (a name the
 * policy lacks is an error), else the class node matches (none when node is
 * NULL). 0, or -errno with the message in ctx; *pol is the caller's to free.
 */
struct ga_policy;
struct ga_policy_class;
int cli_policy(struct ga_ctx *ctx, const char *file, const char *class_name, const struct ga_node *node,
               struct ga_policy **pol, const struct ga_policy_class **cls);

/* --- h-escape (issue 22 item 4): src/cli-text.c, the rule of gpuaudit/text.h --- */
/*
 * s with control bytes, newlines and bytes that are not UTF-8 made visible,
 * for one %s of a printf: valid until 16 later calls; NULL gives NULL.
 */
const char *cli_esc(const char *s);
/* s escaped (flags: GA_TEXT_KEEP_NL, GA_TEXT_KEEP_TAB) written to f. */
void cli_fputs_esc(FILE *f, const char *s, unsigned flags);
/* "INDENTaction: reset_gpu  cause: node_hardware  gpu: GPU-...  pci: ..." (the ids when known;
 * pci only when it is not the subject already). */
struct ga_finding;
void cli_print_action(FILE *o, const char *indent, const struct ga_finding *fd);

/* src/state-file.c: the health state file. Load: absent = a new state; 0 or -errno with
 * the reason in why. Write: atomically; 0 or -errno with the reason in why. */
struct ga_health_state;
int cli_state_load(struct ga_ctx *ctx, const char *file, struct ga_health_state *st, char *why,
                   size_t why_len);
int cli_state_write(struct ga_ctx *ctx, const char *file, const struct ga_health_state *st, char *why,
                    size_t why_len);

#endif
