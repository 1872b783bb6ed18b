/*
 * smoke.c - the minimal inference of the smoke suite: a 3-layer MLP forward
 * pass (batch 64, 512 -> 512 -> 512 -> 64, bias + ReLU between layers) whose
 * matrix products run through each backend's fp32 GEMM, checked against the
 * same network evaluated in float64 on the host. Activations go back to the
 * host between layers (bias and ReLU run there), which is what a minimal
 * "does the device compute a model correctly" check needs; the latency it
 * reports is therefore not a serving figure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "bench-internal.h"

#define BATCH 64
#define N_LAYERS 3
static const size_t dims[N_LAYERS + 1] = { 512, 512, 512, 64 };

struct mlp {
	float *w[N_LAYERS], *bias[N_LAYERS];
	float *x;
	double *ref; /* BATCH x dims[N_LAYERS] */
};

static void mlp_release(struct mlp *m)
{
	for (int l = 0; l < N_LAYERS; l++) {
		ga_free(m->w[l]);
		ga_free(m->bias[l]);
	}
	ga_free(m->x);
	ga_free(m->ref);
}

static int mlp_init(struct mlp *m, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	if (!(m->x = ga_malloc(BATCH * dims[0] * sizeof(float))) ||
	    !(m->ref = ga_malloc(BATCH * dims[N_LAYERS] * sizeof(double))))
		return -ENOMEM;
	for (size_t i = 0; i < BATCH * dims[0]; i++)
		m->x[i] = (float)ga_bench_rand(&seed);
	for (int l = 0; l < N_LAYERS; l++) {
		size_t in = dims[l], out = dims[l + 1];
		if (!(m->w[l] = ga_malloc(in * out * sizeof(float))) ||
		    !(m->bias[l] = ga_malloc(out * sizeof(float))))
			return -ENOMEM;
		double scale = 1.0 / sqrt((double)in);
		for (size_t i = 0; i < in * out; i++)
			m->w[l][i] = (float)(ga_bench_rand(&seed) * scale * 1.7);
		for (size_t i = 0; i < out; i++)
			m->bias[l][i] = (float)(ga_bench_rand(&seed) * 0.1);
	}
	/* float64 reference */
	double *cur = ga_malloc(BATCH * 512 * sizeof(double)), *nxt = ga_malloc(BATCH * 512 * sizeof(double));
	if (!cur || !nxt) {
		ga_free(cur);
		ga_free(nxt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < BATCH * dims[0]; i++)
		cur[i] = m->x[i];
	for (int l = 0; l < N_LAYERS; l++) {
		size_t in = dims[l], out = dims[l + 1];
		for (size_t b = 0; b < BATCH; b++)
			for (size_t j = 0; j < out; j++) {
				double s = m->bias[l][j];
				for (size_t p = 0; p < in; p++)
					s += cur[b * in + p] * (double)m->w[l][p * out + j];
				nxt[b * out + j] = l < N_LAYERS - 1 && s < 0 ? 0 : s;
			}
		double *t = cur;
		cur = nxt;
		nxt = t;
	}
	memcpy(m->ref, cur, BATCH * dims[N_LAYERS] * sizeof(double));
	ga_free(cur);
	ga_free(nxt);
	return 0;
}

/* One forward pass; out gets BATCH x dims[N_LAYERS]. Buffers act[2] hold BATCH x 512 floats. */
static int forward(const struct ga_bench_open *o, size_t dev, const struct mlp *m, float *act[2], float *out)
{
	const struct ga_bench_backend *b = o->b;
	const float *in_act = m->x;
	for (int l = 0; l < N_LAYERS; l++) {
		size_t in = dims[l], outd = dims[l + 1];
		void *job = NULL;
		float *dst = l == N_LAYERS - 1 ? out : act[l % 2];
		int r = b->gemm_setup(o->state, dev, GA_DT_FP32, BATCH, outd, in, in_act, m->w[l], &job);
		if (r >= 0)
			r = b->gemm_run(job, 1);
		if (r >= 0)
			r = b->gemm_read(job, dst);
		if (job)
			b->gemm_free(job);
		if (r < 0)
			return r;
		for (size_t i = 0; i < BATCH; i++)
			for (size_t j = 0; j < outd; j++) {
				float v = dst[i * outd + j] + m->bias[l][j];
				dst[i * outd + j] = l < N_LAYERS - 1 && v < 0 ? 0 : v;
			}
		in_act = dst;
	}
	return 0;
}

int ga_bench_inference(struct ga_bench_session *s, struct ga_bench_report *rep)
{
	struct mlp m;
	float *act[2] = { ga_malloc(BATCH * 512 * sizeof(float)), ga_malloc(BATCH * 512 * sizeof(float)) };
	float *out = ga_malloc(BATCH * dims[N_LAYERS] * sizeof(float));
	int err = mlp_init(&m, s->cfg.seed ^ 0x5eed);
	if (!err && (!act[0] || !act[1] || !out))
		err = -ENOMEM;
	unsigned reps = s->cfg.reps < 1                   ? 1
	                : s->cfg.reps > GA_BENCH_MAX_REPS ? GA_BENCH_MAX_REPS
	                                                  : s->cfg.reps;
	for (size_t i = 0; err == 0 && i < s->n_open; i++) {
		const struct ga_bench_open *o = &s->open[i];
		if (!o->b->gemm_setup)
			continue;
		for (size_t d = 0; err == 0 && d < o->b->n_devices(o->state); d++) {
			if (!(o->b->device(o->state, d)->gemm_dtypes & GA_DT_BIT(GA_DT_FP32)))
				continue;
			char fam[64], name[96], cname[128];
			snprintf(fam, sizeof(fam), "inference.%s.mlp", o->b->name);
			struct ga_bench_result *res =
			        ga_bench_result_add(rep, "inference", o, d, "mlp fp32 batch 64", fam);
			if (!res) {
				err = -ENOMEM;
				break;
			}
			double samples[GA_BENCH_MAX_REPS];
			char call[96];
			snprintf(call, sizeof(call), "inference %s", o->b->name);
			ga_progress(s->ctx, call);
			double t0 = ga_bench_now();
			int r = forward(o, d, &m, act, out);
			double cold = ga_bench_now() - t0;
			for (unsigned k = 0; r >= 0 && k < reps; k++) {
				t0 = ga_bench_now();
				r = forward(o, d, &m, act, out);
				samples[k] = ga_bench_now() - t0;
			}
			if (r < 0) {
				err = ga_bench_result_set(res,
				                          r == -ENOTSUP ? GA_BENCH_SKIPPED : GA_BENCH_FAILED,
				                          "%s", ga_ctx_errmsg(s->ctx));
				continue;
			}
			if (s->cfg.corrupt_result)
				out[0] += 1.0f;
			double num = 0, den = 0;
			for (size_t k = 0; k < BATCH * dims[N_LAYERS]; k++) {
				double dlt = out[k] - m.ref[k];
				num += dlt * dlt;
				den += m.ref[k] * m.ref[k];
			}
			res->rel_err = den > 0 ? sqrt(num / den) : NAN;
			res->tolerance = 1e-4;
			res->cold_s = cold;
			if (d)
				snprintf(name, sizeof(name), "%s.dev%zu.latency", fam, d);
			else
				snprintf(name, sizeof(name), "%s.latency", fam);
			snprintf(cname, sizeof(cname), "%s.cold_start", fam);
			if (!ga_bench_metric_add(res, name, "s", false, samples, reps) ||
			    !ga_bench_metric_add(res, cname, "s", false, &cold, 1)) {
				err = -ENOMEM;
				break;
			}
			ga_bench_result_rates(res);
			if (!(res->rel_err <= res->tolerance))
				err = ga_bench_result_set(
				        res, GA_BENCH_FAILED,
				        "wrong result: MLP output relative error %.3g exceeds %.0e",
				        res->rel_err, res->tolerance);
			else
				err = ga_bench_result_set(res, GA_BENCH_OK, NULL);
		}
	}
	mlp_release(&m);
	ga_free(act[0]);
	ga_free(act[1]);
	ga_free(out);
	return err;
}
