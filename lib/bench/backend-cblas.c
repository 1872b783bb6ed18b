/*
 * backend-cblas.c - the CPU backend: GEMM through a CBLAS library loaded at run time (lib/dl,
 * row CBLAS: OpenBLAS, BLIS, MKL or the reference libcblas: the first found, or the
 * one named with --blas), and BabelStream's kernels as plain loops over host
 * memory. No BLAS header is needed: the few declarations are below.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../dl/dl.h"
#include "gpuaudit/bench.h"
#include "gpuaudit/fs.h"

/* CBLAS's enum values (the netlib cblas.h constants every implementation uses). */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };

typedef void (*cblas_sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                               int lda, const float *b, int ldb, float beta, float *c, int ldc);
typedef void (*cblas_dgemm_fn)(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                               int lda, const double *b, int ldb, double beta, double *c, int ldc);

struct cblas {
	struct ga_ctx *ctx;
	void *lib;
	cblas_sgemm_fn sgemm;
	cblas_dgemm_fn dgemm;
	char *(*openblas_get_config)(void);
	void (*openblas_set_num_threads)(int);
	const char *(*bli_info_get_version_str)(void);
	void (*MKL_Get_Version_String)(char *, int);
	char version[192];
	struct ga_bench_device dev;
};

/* the library: --blas LIB, or the first of libs.def's CBLAS row (OpenBLAS, BLIS, MKL, libcblas) */
static const struct ga_dl_sym cblas_syms[] = {
	{ { "cblas_sgemm" }, offsetof(struct cblas, sgemm), true },
	{ { "cblas_dgemm" }, offsetof(struct cblas, dgemm), true },
	GA_DL_OPT(struct cblas, openblas_get_config),
	GA_DL_OPT(struct cblas, openblas_set_num_threads),
	GA_DL_OPT(struct cblas, bli_info_get_version_str),
	GA_DL_OPT(struct cblas, MKL_Get_Version_String),
};

static void cpu_name(struct ga_ctx *ctx, char *out, size_t len)
{
	struct ga_buf b;
	ga_buf_init(&b, 1 << 20);
	snprintf(out, len, "host CPU");
	if (ga_fs_read(ctx, "proc/cpuinfo", 0, &b) >= 0) {
		const char *p = strstr(b.data, "model name");
		const char *colon = p ? strchr(p, ':') : NULL;
		if (colon) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			size_t n = strcspn(colon, "\n");
			snprintf(out, len, "%.*s", (int)(n > 100 ? 100 : n), colon);
		}
	}
	ga_buf_release(&b);
}

static void cb_close(void *state)
{
	struct cblas *c = state;
	if (!c)
		return;
	ga_dl_close(c->lib);
	ga_free(c);
}

static int cb_open(struct ga_ctx *ctx, const struct ga_bench_config *cfg, void **ret_state)
{
	const char *one[2] = { cfg->blas_lib, NULL };
	const char *const *libs = cfg->blas_lib ? one : ga_dl_libs[GA_DL_CBLAS].sonames;
	struct cblas *c = ga_calloc(1, sizeof(*c));
	const char *used = NULL;
	int err;
	if (!c)
		return -ENOMEM;
	c->ctx = ctx;
	ga_progress(ctx, libs[0]);
	struct ga_dl_status st;
	c->lib = ga_dl_open(GA_DL_CBLAS, libs, NULL, cblas_syms, GA_ARRAY_SIZE(cblas_syms), c, &st);
	if (!st.loaded) {
		char tried[512] = "";
		for (size_t i = 0; libs[i]; i++)
			snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s",
			         *tried ? ", " : "", libs[i]);
		err = ga_err(ctx, -ENOENT, "no CBLAS library found (tried %s)", tried);
		goto out;
	}
	used = st.loaded;
	if (!c->lib) {
		err = ga_err(ctx, -EIO, "%s has no cblas_sgemm/cblas_dgemm", used);
		goto out;
	}
	if (c->openblas_get_config)
		snprintf(c->version, sizeof(c->version), "%s (%s)", c->openblas_get_config(), used);
	else if (c->bli_info_get_version_str)
		snprintf(c->version, sizeof(c->version), "BLIS %s (%s)", c->bli_info_get_version_str(), used);
	else if (c->MKL_Get_Version_String) {
		char v[160] = "";
		c->MKL_Get_Version_String(v, (int)sizeof(v));
		snprintf(c->version, sizeof(c->version), "%s (%s)", v, used);
	} else
		snprintf(c->version, sizeof(c->version), "%s", used);
	if (cfg->threads > 0 && c->openblas_set_num_threads)
		c->openblas_set_num_threads(cfg->threads);
	cpu_name(ctx, c->dev.name, sizeof(c->dev.name));
	snprintf(c->dev.key, sizeof(c->dev.key), "cpu");
	c->dev.gemm_dtypes = GA_DT_BIT(GA_DT_FP32) | GA_DT_BIT(GA_DT_FP64);
	c->dev.stream_fp64 = true;
	*ret_state = c;
	c = NULL;
	err = 0;
out:
	cb_close(c);
	return err;
}

static const char *cb_version(void *state)
{
	return ((struct cblas *)state)->version;
}

static size_t cb_n_devices(void *state)
{
	(void)state;
	return 1;
}

static const struct ga_bench_device *cb_device(void *state, size_t i)
{
	(void)i;
	return &((struct cblas *)state)->dev;
}

struct cb_gemm {
	struct cblas *c;
	enum ga_dtype dt;
	int m, n, k;
	void *a, *b, *out;
};

static void cb_gemm_free(void *job)
{
	struct cb_gemm *g = job;
	if (!g)
		return;
	ga_free(g->a);
	ga_free(g->b);
	ga_free(g->out);
	ga_free(g);
}

static int cb_gemm_setup(void *state, size_t dev, enum ga_dtype dt, size_t m, size_t n, size_t k,
                         const void *a, const void *b, void **ret_job)
{
	struct cblas *cb = state;
	(void)dev;
	if (dt != GA_DT_FP32 && dt != GA_DT_FP64)
		return ga_err(cb->ctx, -ENOTSUP, "CBLAS has no %s GEMM", ga_dtype_name(dt));
	if (m > 1u << 20 || n > 1u << 20 || k > 1u << 20)
		return ga_err(cb->ctx, -EINVAL, "GEMM size too large");
	size_t es = ga_dtype_size(dt);
	struct cb_gemm *g = ga_calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->c = state;
	g->dt = dt;
	g->m = (int)m;
	g->n = (int)n;
	g->k = (int)k;
	g->a = ga_malloc(m * k * es);
	g->b = ga_malloc(k * n * es);
	g->out = ga_malloc(m * n * es);
	if (!g->a || !g->b || !g->out) {
		cb_gemm_free(g);
		return ga_err(cb->ctx, -ENOMEM, "out of memory for the GEMM buffers");
	}
	memcpy(g->a, a, m * k * es);
	memcpy(g->b, b, k * n * es);
	*ret_job = g;
	return 0;
}

static int cb_gemm_run(void *job, unsigned iters)
{
	struct cb_gemm *g = job;
	for (unsigned i = 0; i < iters; i++) {
		if (g->dt == GA_DT_FP32)
			g->c->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, g->m, g->n, g->k, 1.0f,
			            g->a, g->k, g->b, g->n, 0.0f, g->out, g->n);
		else
			g->c->dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, g->m, g->n, g->k, 1.0,
			            g->a, g->k, g->b, g->n, 0.0, g->out, g->n);
	}
	return 0;
}

static int cb_gemm_read(void *job, void *c)
{
	struct cb_gemm *g = job;
	memcpy(c, g->out, (size_t)g->m * (size_t)g->n * ga_dtype_size(g->dt));
	return 0;
}

/* Host stream: BabelStream's loops on double arrays. */
struct cb_stream {
	double *a, *b, *c;
	size_t n;
};

static void cb_stream_free(void *job)
{
	struct cb_stream *s = job;
	if (!s)
		return;
	ga_free(s->a);
	ga_free(s->b);
	ga_free(s->c);
	ga_free(s);
}

static int cb_stream_setup(void *state, size_t dev, size_t n, void **ret_job)
{
	(void)dev;
	struct cb_stream *s = ga_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->n = n;
	s->a = ga_malloc(n * sizeof(double));
	s->b = ga_malloc(n * sizeof(double));
	s->c = ga_malloc(n * sizeof(double));
	if (!s->a || !s->b || !s->c) {
		cb_stream_free(s);
		return ga_err(((struct cblas *)state)->ctx, -ENOMEM, "out of memory for the stream arrays");
	}
	for (size_t i = 0; i < n; i++) {
		s->a[i] = GA_STREAM_INIT_A;
		s->b[i] = GA_STREAM_INIT_B;
		s->c[i] = GA_STREAM_INIT_C;
	}
	*ret_job = s;
	return 0;
}

static int cb_stream_run(void *job, enum ga_stream_op op, double *ret_dot)
{
	struct cb_stream *s = job;
	double *restrict a = s->a, *restrict b = s->b, *restrict c = s->c;
	const double k = GA_STREAM_SCALAR;
	size_t n = s->n;
	switch (op) {
	case GA_STREAM_COPY:
		for (size_t i = 0; i < n; i++)
			c[i] = a[i];
		break;
	case GA_STREAM_MUL:
		for (size_t i = 0; i < n; i++)
			b[i] = k * c[i];
		break;
	case GA_STREAM_ADD:
		for (size_t i = 0; i < n; i++)
			c[i] = a[i] + b[i];
		break;
	case GA_STREAM_TRIAD:
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + k * c[i];
		break;
	case GA_STREAM_DOT: {
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += a[i] * b[i];
		*ret_dot = sum;
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static int cb_stream_read(void *job, size_t i, double ret_abc[3])
{
	struct cb_stream *s = job;
	if (i >= s->n)
		return -EINVAL;
	ret_abc[0] = s->a[i];
	ret_abc[1] = s->b[i];
	ret_abc[2] = s->c[i];
	return 0;
}

const struct ga_bench_backend ga_bench_cblas = {
	.name = "cblas",
	.description = "CPU: CBLAS GEMM (OpenBLAS, BLIS, MKL) and host-memory stream loops",
	.open = cb_open,
	.close = cb_close,
	.version = cb_version,
	.n_devices = cb_n_devices,
	.device = cb_device,
	.gemm_setup = cb_gemm_setup,
	.gemm_run = cb_gemm_run,
	.gemm_read = cb_gemm_read,
	.gemm_free = cb_gemm_free,
	.stream_setup = cb_stream_setup,
	.stream_run = cb_stream_run,
	.stream_read = cb_stream_read,
	.stream_free = cb_stream_free,
};
