/*
 * backend-nccl.c - collectives across the local GPUs through NCCL (libnccl.so.2),
 * loaded at run time (lib/dl, row NCCL), one process driving every device (ncclCommInitAll).
 * Buffers live in the CUDA backend's contexts (backend-cuda.c). All-reduce (sum of
 * fp32) and all-gather, each warmed up once (the cold start includes
 * communicator setup), timed `reps` times with every device synchronised,
 * and checked: after the all-reduce every element equals n(n+1)/2 when rank r
 * contributed r+1. Bandwidths as nccl-tests define them: algbw = size / time
 * (size: the all-reduce buffer, the all-gather output), busbw = algbw x
 * 2(n-1)/n for all-reduce and (n-1)/n for all-gather.
 *
 * RCCL (librccl.so.1) exports the same API but needs HIP buffers, which the
 * HIP backend does not provide yet; it is reported as not supported.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench-internal.h"
#include "../core/internal.h"
#include "../dl/dl.h"
#include "backend-cuda.h"

#define MAX_RANKS 16

double ga_busbw_factor(const char *op, unsigned n)
{
	if (n == 0)
		return NAN;
	if (!strcmp(op, "allreduce"))
		return 2.0 * (n - 1) / n;
	if (!strcmp(op, "allgather") || !strcmp(op, "reducescatter") || !strcmp(op, "alltoall"))
		return (double)(n - 1) / n;
	if (!strcmp(op, "broadcast") || !strcmp(op, "reduce"))
		return 1.0;
	return NAN;
}

struct nccl {
	void *lib;
	ga_ncclGetVersion_fn ncclGetVersion;
	ga_ncclCommInitAll_fn ncclCommInitAll;
	ga_ncclCommDestroy_fn ncclCommDestroy;
	ga_ncclGroupStart_fn ncclGroupStart;
	ga_ncclGroupEnd_fn ncclGroupEnd;
	ga_ncclGetErrorString_fn ncclGetErrorString;
	ga_ncclAllReduce_fn ncclAllReduce;
	ga_ncclAllGather_fn ncclAllGather;
};

#define NSYM(f) GA_DL_SYM(struct nccl, f)
static const struct ga_dl_sym nccl_syms[] = {
	NSYM(ncclGetVersion), NSYM(ncclCommInitAll),    NSYM(ncclCommDestroy), NSYM(ncclGroupStart),
	NSYM(ncclGroupEnd),   NSYM(ncclGetErrorString), NSYM(ncclAllReduce),   NSYM(ncclAllGather),
};

/* Collective results belong to NCCL across all GPUs, not to one backend's device. */
static struct ga_bench_result *coll_result(struct ga_bench_report *rep, const struct ga_bench_open *o,
                                           const char *what, const char *fam)
{
	struct ga_bench_result *r = ga_bench_result_add(rep, "collective", o, 0, what, fam);
	if (!r)
		return NULL;
	char *b = ga_strdup("nccl"), *d = ga_strdup("all GPUs"), *k = ga_strdup("node");
	if (!b || !d || !k) {
		ga_free(b);
		ga_free(d);
		ga_free(k);
		return NULL; /* the result stays, named after the backend */
	}
	ga_free(r->backend);
	ga_free(r->device);
	ga_free(r->device_key);
	r->backend = b;
	r->device = d;
	r->device_key = k;
	return r;
}

static int skip_all(struct ga_bench_report *rep, const struct ga_bench_open *o, const char *fmt_reason)
{
	static const char *const ops[] = { "allreduce", "allgather" };
	for (size_t i = 0; i < 2; i++) {
		char fam[64];
		snprintf(fam, sizeof(fam), "collective.nccl.%s.busbw", ops[i]);
		struct ga_bench_result *r = coll_result(rep, o, ops[i], fam);
		if (!r || ga_bench_result_set(r, GA_BENCH_SKIPPED, "%s", fmt_reason) < 0)
			return -ENOMEM;
	}
	return 0;
}

struct coll {
	struct ga_bench_session *s;
	struct cuda *cu;
	struct nccl *nc;
	ga_ncclComm_t comm[MAX_RANKS];
	ga_CUdeviceptr send[MAX_RANKS], recv[MAX_RANKS];
	size_t n;
	size_t count; /* fp32 elements per rank's send buffer */
};

static int launch(struct coll *c, bool allreduce)
{
	ga_ncclResult_t r = c->nc->ncclGroupStart();
	for (size_t d = 0; d < c->n && r == GA_NCCL_SUCCESS; d++) {
		int e = ga_cuda_use(c->cu, d);
		if (e < 0) {
			c->nc->ncclGroupEnd();
			return e;
		}
		r = allreduce ? c->nc->ncclAllReduce((const void *)(uintptr_t)c->send[d],
		                                     (void *)(uintptr_t)c->recv[d], c->count, GA_NCCL_FLOAT32,
		                                     GA_NCCL_SUM, c->comm[d], NULL)
		              : c->nc->ncclAllGather((const void *)(uintptr_t)c->send[d],
		                                     (void *)(uintptr_t)c->recv[d], c->count / c->n,
		                                     GA_NCCL_FLOAT32, c->comm[d], NULL);
	}
	ga_ncclResult_t r2 = c->nc->ncclGroupEnd();
	if (r == GA_NCCL_SUCCESS)
		r = r2;
	if (r != GA_NCCL_SUCCESS)
		return ga_err(c->s->ctx, -EIO, "NCCL %s failed: %s",
		              allreduce ? "ncclAllReduce" : "ncclAllGather", c->nc->ncclGetErrorString(r));
	for (size_t d = 0; d < c->n; d++) {
		int e = ga_cuda_sync(c->cu, d);
		if (e < 0)
			return e;
	}
	return 0;
}

static int measure(struct coll *c, const struct ga_bench_open *o, bool allreduce, double cold_setup,
                   struct ga_bench_report *rep)
{
	const char *op = allreduce ? "allreduce" : "allgather";
	size_t bytes = c->count * sizeof(float);
	char what[64], fam[64], name[96];
	snprintf(what, sizeof(what), "%s %zu MiB x%zu", op, bytes >> 20, c->n);
	snprintf(fam, sizeof(fam), "collective.nccl.%s.busbw", op);
	struct ga_bench_result *res = coll_result(rep, o, what, fam);
	if (!res)
		return -ENOMEM;
	ga_progress(c->s->ctx, allreduce ? "ncclAllReduce" : "ncclAllGather");
	unsigned reps = c->s->cfg.reps < 1                   ? 1
	                : c->s->cfg.reps > GA_BENCH_MAX_REPS ? GA_BENCH_MAX_REPS
	                                                     : c->s->cfg.reps;
	double busbw[GA_BENCH_MAX_REPS], algbw[GA_BENCH_MAX_REPS];
	double t0 = ga_bench_now();
	int e = launch(c, allreduce);
	double cold = ga_bench_now() - t0 + cold_setup;
	for (unsigned i = 0; e >= 0 && i < reps; i++) {
		t0 = ga_bench_now();
		e = launch(c, allreduce);
		double t = ga_bench_now() - t0;
		algbw[i] = t > 0 ? (double)bytes / t : NAN;
		busbw[i] = algbw[i] * ga_busbw_factor(op, (unsigned)c->n);
	}
	if (e < 0)
		return ga_bench_result_set(res, GA_BENCH_FAILED, "%s", ga_ctx_errmsg(c->s->ctx));
	/* Check rank 0's output. */
	float probe[4];
	size_t at[2] = { 0, c->count - 4 };
	double worst = 0;
	for (size_t k = 0; k < 2; k++) {
		if ((e = ga_cuda_download(c->cu, 0, probe, c->recv[0] + at[k] * sizeof(float),
		                          sizeof(probe))) < 0)
			return ga_bench_result_set(res, GA_BENCH_FAILED, "%s", ga_ctx_errmsg(c->s->ctx));
		if (c->s->cfg.corrupt_result && k == 0)
			probe[0] += 1.0f;
		for (size_t j = 0; j < 4; j++) {
			size_t idx = at[k] + j;
			double want = allreduce ? (double)(c->n * (c->n + 1)) / 2.0
			                        : (double)(idx / (c->count / c->n) + 1);
			double err = fabs(probe[j] - want) / want;
			if (!(err <= worst))
				worst = err;
		}
	}
	res->rel_err = worst;
	res->tolerance = 1e-6;
	res->cold_s = cold;
	snprintf(name, sizeof(name), "%s", fam);
	if (!ga_bench_metric_add(res, name, "byte/s", true, busbw, reps))
		return -ENOMEM;
	snprintf(name, sizeof(name), "collective.nccl.%s.algbw", op);
	if (!ga_bench_metric_add(res, name, "byte/s", true, algbw, reps))
		return -ENOMEM;
	snprintf(name, sizeof(name), "collective.nccl.%s.cold_start", op);
	if (!ga_bench_metric_add(res, name, "s", false, &cold, 1))
		return -ENOMEM;
	ga_bench_result_rates(res);
	if (!(worst <= res->tolerance))
		return ga_bench_result_set(res, GA_BENCH_FAILED, "wrong result: %s output off by %.3g", op,
		                           worst);
	return ga_bench_result_set(res, GA_BENCH_OK, NULL);
}

int ga_bench_collective(struct ga_bench_session *s, const char *lib, size_t bytes,
                        struct ga_bench_report *rep)
{
	const struct ga_bench_open *cuo = NULL;
	for (size_t i = 0; i < s->n_open; i++)
		if (s->open[i].b == &ga_bench_cuda)
			cuo = &s->open[i];
	if (!cuo)
		return skip_all(rep, NULL, "needs the cuda backend, which did not open (see backends)");
	struct coll c = { .s = s, .cu = cuo->state };
	struct nccl nc = { 0 };
	c.nc = &nc;
	c.n = ga_cuda_devices(c.cu);
	if (c.n > MAX_RANKS)
		c.n = MAX_RANKS;
	const char *one[] = { lib, NULL }; /* --nccl LIB; NULL: libs.def's sonames */
	struct ga_dl_status st;
	int err = 0;
	nc.lib =
	        ga_dl_open(GA_DL_NCCL, lib ? one : NULL, NULL, nccl_syms, GA_ARRAY_SIZE(nccl_syms), &nc, &st);
	if (!st.loaded)
		return skip_all(rep, cuo, "NCCL not found (libnccl.so.2)");
	if (!nc.lib) {
		char why[160];
		snprintf(why, sizeof(why), "%s lacks %s", st.loaded, st.missing);
		return skip_all(rep, cuo, why);
	}
	c.count = bytes / sizeof(float) / c.n * c.n;
	if (c.count < 4 * c.n) {
		err = ga_err(s->ctx, -EINVAL, "collective buffer too small");
		goto out;
	}
	ga_progress(s->ctx, "ncclCommInitAll");
	double t0 = ga_bench_now();
	ga_ncclResult_t r = nc.ncclCommInitAll(c.comm, (int)c.n, NULL);
	if (r != GA_NCCL_SUCCESS) {
		char why[200];
		snprintf(why, sizeof(why), "ncclCommInitAll failed: %s", nc.ncclGetErrorString(r));
		memset(c.comm, 0, sizeof(c.comm));
		err = skip_all(rep, cuo, why);
		goto out;
	}
	float *host = ga_malloc(c.count * sizeof(float));
	if (!host) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t d = 0; d < c.n && err >= 0; d++) {
		for (size_t i = 0; i < c.count; i++)
			host[i] = (float)(d + 1);
		if (ga_cuda_alloc(c.cu, d, c.count * sizeof(float), &c.send[d]) < 0 ||
		    ga_cuda_alloc(c.cu, d, c.count * sizeof(float), &c.recv[d]) < 0 ||
		    ga_cuda_upload(c.cu, d, c.send[d], host, c.count * sizeof(float)) < 0)
			err = -EIO;
	}
	ga_free(host);
	double setup = ga_bench_now() - t0;
	if (err < 0) {
		err = skip_all(rep, cuo, ga_ctx_errmsg(s->ctx));
		goto out;
	}
	if ((err = measure(&c, cuo, true, setup, rep)) < 0)
		goto out;
	/* all-gather: rank d's first count/n elements land in slot d of everyone's output */
	err = measure(&c, cuo, false, 0, rep);
out:
	for (size_t d = 0; d < c.n; d++) {
		ga_cuda_free(c.cu, d, c.send[d]);
		ga_cuda_free(c.cu, d, c.recv[d]);
		if (c.comm[d])
			nc.ncclCommDestroy(c.comm[d]);
	}
	/* NCCL (C++, with its own threads) stays loaded, like the other vendor libraries. */
	return err;
}
