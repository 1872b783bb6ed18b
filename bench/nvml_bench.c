/*
 * nvml_bench.c - cost of one NVML collection in-process against the same
 * collection through the isolated helper (spawn + deadline + JSON over a
 * pipe). Run by bench/nvml.sh with a fake or real libnvidia-ml.
 *
 *   nvml_bench GPUAUDIT_EXE RUNS
 *
 * Prints medians in ms and the per-GPU cost, one "key value" per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuaudit/isolate.h"

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
		fprintf(stderr, "usage: nvml_bench GPUAUDIT_EXE RUNS\n");
		return 2;
	}
	char *end = NULL;
	long n = strtol(argv[2], &end, 10);
	int runs = end && !*end && n > 0 && n <= 100000 ? (int)n : 20;
	double *in = calloc((size_t)runs, sizeof(double)), *iso = calloc((size_t)runs, sizeof(double));
	double *nul = calloc((size_t)runs, sizeof(double));
	struct ga_ctx *ctx = NULL;
	if (!in || !iso || !nul || ga_ctx_new(&ctx) < 0 || ga_ctx_set_helper(ctx, argv[1]) < 0)
		return 70;
	ga_ctx_set_vendor(ctx, GA_VENDOR_ON, 30000);
	size_t gpus = 0;
	for (int i = 0; i < runs; i++) {
		struct ga_nvml_report *rep = NULL;
		double t0 = now_ms();
		if (ga_nvml_collect(ctx, &rep) < 0)
			return 70;
		in[i] = now_ms() - t0;
		if (rep->sys.error) {
			fprintf(stderr, "nvml: %s\n", rep->sys.error);
			return 3;
		}
		gpus = rep->n_gpus;
		ga_schema_release(&ga_nvml_report_schema, rep);
		free(rep);

		struct ga_nvml_report r2;
		memset(&r2, 0, sizeof(r2));
		struct ga_isolate_result res;
		t0 = now_ms();
		if (ga_isolated_collect(ctx, "nvml", &ga_nvml_report_schema, &r2, &res) < 0) {
			fprintf(stderr, "isolated: %s\n", ga_ctx_errmsg(ctx));
			return 3;
		}
		iso[i] = now_ms() - t0;
		ga_schema_release(&ga_nvml_report_schema, &r2);

		/* the same isolation around no library at all: spawn, start-up, pipe */
		struct ga_nvml_report r3;
		memset(&r3, 0, sizeof(r3));
		t0 = now_ms();
		if (ga_isolated_collect(ctx, "null", &ga_nvml_report_schema, &r3, &res) < 0) {
			fprintf(stderr, "isolated null: %s\n", ga_ctx_errmsg(ctx));
			return 3;
		}
		nul[i] = now_ms() - t0;
	}
	double mi = median(in, runs), ms = median(iso, runs), mn = median(nul, runs);
	printf("gpus %zu\nruns %d\ninprocess_ms %.3f\nisolated_ms %.3f\noverhead_ms %.3f\n"
	       "isolated_empty_helper_ms %.3f\nper_gpu_ms %.3f\n",
	       gpus, runs, mi, ms, ms - mi, mn, gpus ? mi / (double)gpus : 0.0);
	ga_ctx_free(ctx);
	free(in);
	free(iso);
	free(nul);
	return 0;
}
