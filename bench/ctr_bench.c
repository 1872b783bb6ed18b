/*
 * ctr_bench.c - in-process cost of the container-layer collection
 * (lib/collect/ctr-runtime.c) against the whole node collection, on one root,
 * so the figure is not lost in process start and machine noise. Run by
 * bench/container.sh.
 *
 *   ctr_bench ROOT RUNS
 *
 * Prints medians in ms, one "key value" per line: collect_ms (ga_node_collect,
 * vendor libraries off), ctr_ms (the container collector alone, on a node
 * already collected), ctr_share (ctr_ms / collect_ms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/collect.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node-read.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ctr_bench ROOT RUNS\n");
		return 2;
	}
	char *end = NULL;
	long runs = strtol(argv[2], &end, 10);
	if (end == argv[2] || *end || runs < 1 || runs > 100000) {
		fprintf(stderr, "ctr_bench: RUNS wants 1 to 100000, not '%s'\n", argv[2]);
		return 2;
	}
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0 || ga_ctx_set_root(ctx, argv[1]) < 0) {
		fprintf(stderr, "ctr_bench: %s\n", ctx ? ga_ctx_errmsg(ctx) : "no memory");
		return 1;
	}
	ga_ctx_set_vendor(ctx, GA_VENDOR_OFF, 0);
	double *all = calloc((size_t)runs, sizeof(double)), *ctr = calloc((size_t)runs, sizeof(double));
	if (!all || !ctr)
		return 1;
	for (int i = 0; i < runs; i++) {
		struct ga_node *n = NULL;
		double t0 = now_ms();
		if (ga_node_collect(ctx, &n) < 0)
			return 1;
		double t1 = now_ms();
		struct ga_container_runtime *keep = n->container_runtime;
		n->container_runtime = NULL;
		struct ga_col c = { .ctx = ctx, .node = n, .err = 0 };
		double t2 = now_ms();
		ga_collect_container_runtime(&c);
		double t3 = now_ms();
		if (n->container_runtime) {
			ga_schema_release(&ga_container_runtime_schema, n->container_runtime);
			ga_free(n->container_runtime);
		}
		n->container_runtime = keep;
		ga_node_free(n);
		all[i] = t1 - t0;
		ctr[i] = t3 - t2;
	}
	double a = median(all, runs), b = median(ctr, runs);
	printf("collect_ms %.4f\nctr_ms %.4f\nctr_share %.4f\n", a, b, a > 0 ? b / a : 0);
	free(all);
	free(ctr);
	ga_ctx_free(ctx);
	return 0;
}
