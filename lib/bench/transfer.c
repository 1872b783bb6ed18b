/*
 * transfer.c - copies between pinned host memory and each device (H2D, D2H)
 * and within a device (D2D), timed the same way on every backend: setup plus
 * one copy per direction is the cold start, then `reps` samples each ended by
 * a synchronisation; the last copy in each direction is checked byte for byte.
 * Bandwidth counts the bytes moved once (D2D: as copied, not read + write).
 * With several devices, backends that can (peer_setup) also copy between each
 * ordered pair of GPUs ("p2p 0->1"), verified on the receiving device.
 */
#include <errno.h>
#include <stdio.h>

#include "../core/internal.h"
#include "bench-internal.h"

/* "256 MiB", or "64 KiB" for sizes below a MiB or not a whole number of them. */
static void size_text(char *out, size_t n, size_t bytes)
{
	if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
		snprintf(out, n, "%zu MiB", bytes >> 20);
	else
		snprintf(out, n, "%zu KiB", bytes >> 10);
}

static int xfer_one(struct ga_bench_session *s, const struct ga_bench_open *o, size_t dev, size_t bytes,
                    struct ga_bench_report *rep)
{
	const struct ga_bench_backend *b = o->b;
	unsigned reps = s->cfg.reps < 1                   ? 1
	                : s->cfg.reps > GA_BENCH_MAX_REPS ? GA_BENCH_MAX_REPS
	                                                  : s->cfg.reps;
	void *job = NULL;
	int err = 0;
	char call[96];
	snprintf(call, sizeof(call), "transfer %s %zu bytes", b->name, bytes);
	ga_progress(s->ctx, call);
	double t0 = ga_bench_now();
	int r = b->xfer_setup(o->state, dev, bytes, &job);
	double setup_s = ga_bench_now() - t0;
	for (int d = 0; d < GA_XFER_COUNT; d++) {
		const char *dn = ga_xfer_dir_name((enum ga_xfer_dir)d);
		char what[64], fam[64], name[128], cname[160];
		char sz[32];
		size_text(sz, sizeof(sz), bytes);
		snprintf(what, sizeof(what), "%s %s", dn, sz);
		snprintf(fam, sizeof(fam), "transfer.%s.%s", b->name, dn);
		struct ga_bench_result *res = ga_bench_result_add(rep, "transfer", o, dev, what, fam);
		if (!res) {
			err = -ENOMEM;
			goto out;
		}
		if (r < 0) {
			if ((err = ga_bench_result_set(res,
			                               r == -ENOTSUP ? GA_BENCH_SKIPPED : GA_BENCH_FAILED,
			                               "%s", ga_ctx_errmsg(s->ctx))) < 0)
				goto out;
			continue;
		}
		double samples[GA_BENCH_MAX_REPS], cold;
		t0 = ga_bench_now();
		int e = b->xfer_run(job, (enum ga_xfer_dir)d, 1);
		cold = ga_bench_now() - t0 + (d == 0 ? setup_s : 0);
		unsigned iters = 1;
		if (e >= 0) {
			t0 = ga_bench_now();
			e = b->xfer_run(job, (enum ga_xfer_dir)d, 1);
			iters = ga_bench_iters_for(&s->cfg, ga_bench_now() - t0);
		}
		for (unsigned i = 0; e >= 0 && i < reps; i++) {
			t0 = ga_bench_now();
			e = b->xfer_run(job, (enum ga_xfer_dir)d, iters);
			double t = (ga_bench_now() - t0) / iters;
			samples[i] = t > 0 ? (double)bytes / t : 0;
		}
		if (e >= 0)
			e = b->xfer_verify(job, (enum ga_xfer_dir)d);
		if (e < 0) {
			if ((err = ga_bench_result_set(res,
			                               e == -ENOTSUP ? GA_BENCH_SKIPPED : GA_BENCH_FAILED,
			                               "%s", ga_ctx_errmsg(s->ctx))) < 0)
				goto out;
			continue;
		}
		if (dev)
			snprintf(name, sizeof(name), "%s.dev%zu", fam, dev);
		else
			snprintf(name, sizeof(name), "%s", fam);
		snprintf(cname, sizeof(cname), "%s.cold_start", name);
		if (!ga_bench_metric_add(res, name, "byte/s", true, samples, reps) ||
		    !ga_bench_metric_add(res, cname, "s", false, &cold, 1)) {
			err = -ENOMEM;
			goto out;
		}
		ga_bench_result_rates(res);
		res->cold_s = cold;
		if ((err = ga_bench_result_set(res, GA_BENCH_OK, NULL)) < 0)
			goto out;
	}
out:
	if (job)
		b->xfer_free(job);
	return err;
}

/* Device src to device dst (GPU to GPU), one direction, verified. */
static int peer_one(struct ga_bench_session *s, const struct ga_bench_open *o, size_t src, size_t dst,
                    size_t bytes, struct ga_bench_report *rep)
{
	const struct ga_bench_backend *b = o->b;
	unsigned reps = s->cfg.reps < 1                   ? 1
	                : s->cfg.reps > GA_BENCH_MAX_REPS ? GA_BENCH_MAX_REPS
	                                                  : s->cfg.reps;
	char what[64], fam[64], name[128], cname[160];
	char sz[32];
	size_text(sz, sizeof(sz), bytes);
	snprintf(what, sizeof(what), "p2p %zu->%zu %s", src, dst, sz);
	snprintf(fam, sizeof(fam), "transfer.%s.p2p", b->name);
	struct ga_bench_result *res = ga_bench_result_add(rep, "transfer", o, src, what, fam);
	if (!res)
		return -ENOMEM;
	ga_progress(s->ctx, what);
	void *job = NULL;
	double samples[GA_BENCH_MAX_REPS];
	double t0 = ga_bench_now();
	int e = b->peer_setup(o->state, src, dst, bytes, &job);
	if (e >= 0)
		e = b->xfer_run(job, GA_XFER_D2D, 1);
	double cold = ga_bench_now() - t0;
	unsigned iters = 1;
	if (e >= 0) {
		t0 = ga_bench_now();
		e = b->xfer_run(job, GA_XFER_D2D, 1);
		iters = ga_bench_iters_for(&s->cfg, ga_bench_now() - t0);
	}
	for (unsigned i = 0; e >= 0 && i < reps; i++) {
		t0 = ga_bench_now();
		e = b->xfer_run(job, GA_XFER_D2D, iters);
		double t = (ga_bench_now() - t0) / iters;
		samples[i] = t > 0 ? (double)bytes / t : 0;
	}
	if (e >= 0)
		e = b->xfer_verify(job, GA_XFER_D2D);
	int err = 0;
	if (e < 0) {
		err = ga_bench_result_set(res, e == -ENOTSUP ? GA_BENCH_SKIPPED : GA_BENCH_FAILED, "%s",
		                          ga_ctx_errmsg(s->ctx));
		goto out;
	}
	snprintf(name, sizeof(name), "%s.%zuto%zu", fam, src, dst);
	snprintf(cname, sizeof(cname), "%s.cold_start", name);
	if (!ga_bench_metric_add(res, name, "byte/s", true, samples, reps) ||
	    !ga_bench_metric_add(res, cname, "s", false, &cold, 1)) {
		err = -ENOMEM;
		goto out;
	}
	ga_bench_result_rates(res);
	res->cold_s = cold;
	err = ga_bench_result_set(res, GA_BENCH_OK, NULL);
out:
	if (job)
		b->xfer_free(job);
	return err;
}

int ga_bench_transfer(struct ga_bench_session *s, size_t bytes, struct ga_bench_report *rep)
{
	if (bytes < 4096)
		return ga_err(s->ctx, -EINVAL, "transfers need at least 4096 bytes");
	for (size_t i = 0; i < s->n_open; i++) {
		const struct ga_bench_open *o = &s->open[i];
		if (!o->b->xfer_setup)
			continue;
		size_t n = o->b->n_devices(o->state);
		for (size_t d = 0; d < n; d++) {
			int r = xfer_one(s, o, d, bytes, rep);
			if (r < 0)
				return r;
		}
		/* between GPUs: every ordered pair up to 8 devices, else to and from device 0 */
		for (size_t a = 0; o->b->peer_setup && n >= 2 && a < n; a++)
			for (size_t c = 0; c < n; c++) {
				if (a == c || (n > 8 && a != 0 && c != 0))
					continue;
				int r = peer_one(s, o, a, c, bytes, rep);
				if (r < 0)
					return r;
			}
	}
	return 0;
}
