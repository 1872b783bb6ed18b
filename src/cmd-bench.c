/*
 * cmd-bench.c - `gpuaudit bench SUBCOMMAND ...`: dispatch to the benchmark
 * subcommands. Primitive benchmarks (gemm, stream, transfer, collective) live in
 * src/cmd-bench-prim.c, workload benchmarks in src/cmd-bench-exec.c and src/cmd-bench-http.c.
 */
#include <string.h>

#include "bench-cli.h"
#include "cli.h"

static const struct bench_sub {
	const char *name;
	int (*fn)(struct cli *cli, int argc, char **argv);
	const char *summary;
} subs[] = {
	/* Entries are added by the files that implement them; keep alphabetical. */
	{ "collective", cmd_bench_collective, "all-reduce/all-gather across local GPUs (NCCL), algbw/busbw" },
	{ "exec", cmd_bench_exec, "run a command N times: cold start, wall/CPU/RSS percentiles" },
	{ "gemm", cmd_bench_gemm, "matrix multiply per backend and dtype, FLOP/s, checked results" },
	{ "http", cmd_bench_http, "open-loop HTTP load: latency percentiles, errors, cold start" },
	{ "stream", cmd_bench_stream, "BabelStream copy/mul/add/triad/dot memory bandwidth" },
	{ "transfer", cmd_bench_transfer, "pinned host<->device and on-device copy bandwidth" },
	{ NULL, NULL, NULL },
};

void cli_bench_list(FILE *to)
{
	for (const struct bench_sub *s = subs; s->name; s++)
		fprintf(to, "  %-11s %s\n", s->name, s->summary);
}

int cmd_bench(struct cli *cli, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *to = argc < 2 ? cli->err : cli->out;
		cli_usage(cli, cli_find("bench"), to);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	for (const struct bench_sub *s = subs; s->name; s++)
		if (!strcmp(s->name, argv[1]))
			return s->fn(cli, argc - 1, argv + 1);
	return cli_error(cli, "bench", EXIT_USAGE, "unknown benchmark '%s' (see 'gpuaudit bench -h')",
	                 argv[1]);
}
