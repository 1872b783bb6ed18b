/*
 * gemm_direct.c - the peer for bench/gemm.sh: OpenBLAS's cblas_sgemm called
 * directly, the way a user would measure it by hand, with the same timing
 * rules as `gpuaudit bench gemm`: row-major N x N x N, random data in [-1, 1),
 * one warm-up call, then REPS timed calls; prints the median and best
 * GFLOP/s. Linked against libopenblas by bench/gemm.sh (not part of the
 * CMake build: it exists only to be compared with).
 *
 *   gemm_direct N REPS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc);

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int n = (int)strtol(argv[1], NULL, 10), reps = (int)strtol(argv[2], NULL, 10);
	if (n < 1 || n > 16384 || reps < 1 || reps > 1000)
		return 2;
	size_t nn = (size_t)n * (size_t)n;
	float *a = malloc(nn * sizeof(float)), *b = malloc(nn * sizeof(float)),
	      *c = malloc(nn * sizeof(float));
	double *gf = malloc((size_t)reps * sizeof(double));
	if (!a || !b || !c || !gf)
		return 1;
	unsigned s = 12345;
	for (size_t i = 0; i < nn; i++) {
		s = s * 1103515245u + 12345u;
		a[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
		s = s * 1103515245u + 12345u;
		b[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
	cblas_sgemm(101, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n); /* warm-up */
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		cblas_sgemm(101, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
		gf[r] = 2.0 * n * (double)n * n / (now() - t0) / 1e9;
	}
	qsort(gf, (size_t)reps, sizeof(*gf), cmp);
	double med = reps % 2 ? gf[reps / 2] : (gf[reps / 2 - 1] + gf[reps / 2]) / 2;
	printf("median_gflops %.3f best_gflops %.3f c0 %.6f\n", med, gf[reps - 1], c[0]);
	free(a);
	free(b);
	free(c);
	free(gf);
	return 0;
}
