/*
 * registry.c - the compute backends the benchmarks and the warm-up know, in
 * preference order, with what each can do (capability bits), and the
 * GPUAUDIT_BACKENDS-style filter over them. No constructors: the table is the
 * registration, and the only list of backends in the library.
 */
#include <errno.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/bench.h"

#define GEMM GA_BENCH_CAP_GEMM
#define STREAM GA_BENCH_CAP_STREAM
#define XFER GA_BENCH_CAP_TRANSFER
#define PEER GA_BENCH_CAP_PEER
#define WARMUP GA_BENCH_CAP_WARMUP
#define CPU GA_BENCH_CAP_CPU
const struct ga_bench_entry ga_bench_registry[] = {
	{ &ga_bench_cuda, GEMM | STREAM | XFER | PEER | WARMUP },
	{ &ga_bench_hip, GEMM | XFER | WARMUP },
	/* the same OpenCL devices as "opencl": the warm-up uses the built-in kernel there */
	{ &ga_bench_clblast, GEMM },
	{ &ga_bench_opencl, GEMM | STREAM | XFER | WARMUP },
	{ &ga_bench_cblas, GEMM | STREAM | WARMUP | CPU },
	{ NULL, 0 },
};

const struct ga_bench_entry *ga_bench_entry_of(const struct ga_bench_backend *be)
{
	for (size_t i = 0; ga_bench_registry[i].backend; i++)
		if (ga_bench_registry[i].backend == be)
			return &ga_bench_registry[i];
	return NULL;
}

static const struct ga_bench_backend *find(const char *name, size_t len)
{
	for (size_t i = 0; ga_bench_registry[i].backend; i++)
		if (strlen(ga_bench_registry[i].backend->name) == len &&
		    !strncmp(ga_bench_registry[i].backend->name, name, len))
			return ga_bench_registry[i].backend;
	return NULL;
}

int ga_bench_backends_select(struct ga_ctx *ctx, const char *filter, const struct ga_bench_backend **out,
                             size_t max)
{
	size_t total = 0;
	while (ga_bench_registry[total].backend)
		total++;
	bool keep[16] = { 0 }, any_plus = false;
	if (total > GA_ARRAY_SIZE(keep))
		return ga_err(ctx, -EINVAL, "too many backends");
	for (size_t i = 0; i < total; i++)
		keep[i] = true;
	bool plus[16] = { 0 };
	const char *p = filter ? filter : "";
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool minus = len && p[0] == '-';
		const char *name = minus ? p + 1 : p;
		size_t nlen = minus ? len - 1 : len;
		if (nlen) {
			const struct ga_bench_backend *b = find(name, nlen);
			if (!b)
				return ga_err(
				        ctx, -EINVAL,
				        "unknown backend '%.*s' (known: cuda, hip, clblast, opencl, cblas)",
				        (int)nlen, name);
			for (size_t i = 0; i < total; i++)
				if (ga_bench_registry[i].backend == b) {
					if (minus)
						keep[i] = false;
					else
						plus[i] = any_plus = true;
				}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	size_t n = 0;
	for (size_t i = 0; i < total; i++) {
		if (!keep[i] || (any_plus && !plus[i]))
			continue;
		if (n < max)
			out[n] = ga_bench_registry[i].backend;
		n++;
	}
	if (n < max)
		out[n] = NULL;
	return (int)n;
}
