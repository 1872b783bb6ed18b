/* bench-cli.h - options and output shared by `gpuaudit bench gemm|stream|transfer|collective` and `smoke`. */
#ifndef GA_BENCH_CLI_H
#define GA_BENCH_CLI_H

#include "cli.h"
#include "gpuaudit/bench.h"
#include "gpuaudit/policy.h"

#define GA_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct bench_cli {
	struct snap_opts so;
	struct ga_bench_config cfg;
	const char *backends; /* --backends, else $GPUAUDIT_BACKENDS */
	const char *policy_file;
	const char *class_name;
	const char *nccl_lib;
	bool json;
	double deadline_s; /* --deadline: give up (exit 4) when the run takes longer; 0 = none */
	/* per command */
	unsigned dtypes;
	size_t sizes[32];
	size_t n_sizes;
	size_t elements;
	size_t bytes;
	/* loaded */
	struct ga_policy *policy;
	struct ga_bench_expect *expect;
};

/*
 * Parse the options of `cmd` (usage text for -h). Returns -1 to go on, or an
 * exit code to return now. `extra` names the per-command options allowed:
 * 'd' --dtype, 's' --sizes, 'e' --elements, 'b' --bytes, 'n' --nccl.
 */
int bench_cli_parse(struct cli *cli, const char *cmd, const char *usage, const char *extra, int argc,
                    char **argv, struct bench_cli *o);
/* Context, policy expectations and backend list. EXIT_OK or an exit code (message printed). */
int bench_cli_setup(struct cli *cli, const char *cmd, struct bench_cli *o, struct ga_ctx **ret_ctx,
                    const struct ga_bench_backend **list, size_t max);
void bench_cli_release(struct bench_cli *o);
/* Host CPU peak into the report (reads /proc/cpuinfo under --root). */
void bench_cli_cpu_peak(struct ga_ctx *ctx, struct ga_bench_report *rep);
/* Print text or JSON; returns the exit code the findings call for. */
int bench_cli_output(struct cli *cli, const char *cmd, struct bench_cli *o,
                     const struct ga_bench_report *rep);
/* The exit code for a report: 1 error findings, 3 nothing ran, else 0. */
int bench_cli_exit(const struct ga_bench_report *rep);

int cmd_bench_collective(struct cli *cli, int argc, char **argv);
int cmd_bench_gemm(struct cli *cli, int argc, char **argv);
int cmd_bench_stream(struct cli *cli, int argc, char **argv);
int cmd_bench_transfer(struct cli *cli, int argc, char **argv);

#endif
