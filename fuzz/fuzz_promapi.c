/*
 * fuzz_promapi.c - the Prometheus API response parser (lib/collect/promapi.c)
 * on arbitrary bytes: the first byte picks the size of the pieces the rest is
 * fed in. Whatever the pieces, the outcome (the error code and the series
 * handed out) is the one of the body fed whole; every series has string
 * labels, and no input crashes, leaks or reads out of bounds.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/promapi.h"

struct count {
	size_t series, labels, samples;
};

static int on_series(void *ud, const struct ga_prom_series *s)
{
	struct count *c = ud;
	c->series++;
	c->samples += s->n_samples;
	for (size_t i = 0; i < s->n_labels; i++) {
		FUZZ_CHECK(s->labels[i].key && s->labels[i].value);
		FUZZ_CHECK(ga_prom_label(s, s->labels[i].key) != NULL);
		c->labels++;
	}
	return 0;
}

static int parse(const char *body, size_t len, size_t piece, long status, struct count *c)
{
	struct ga_ctx *ctx = NULL;
	struct ga_prom_parser *p = NULL;
	if (ga_ctx_new(&ctx) < 0)
		return -ENOMEM;
	int r = ga_prom_parser_new(ctx, on_series, c, &p);
	for (size_t i = 0; r == 0 && i < len; i += piece)
		r = ga_prom_parser_feed(p, body + i, len - i < piece ? len - i : piece);
	if (p)
		r = ga_prom_parser_finish(p, status);
	if (r)
		FUZZ_CHECK(*ga_ctx_errmsg(ctx));
	ga_prom_parser_free(p);
	ga_ctx_free(ctx);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t piece = (size_t)(data[0] % 64) + 1;
	long status = data[0] & 0x80 ? 400 : 200;
	const char *body = (const char *)data + 1;
	size_t len = size - 1;
	struct count a = { 0 }, b = { 0 };
	int ra = parse(body, len, piece, status, &a);
	int rb = parse(body, len, len ? len : 1, status, &b);
	if (ra == -ENOMEM || rb == -ENOMEM)
		return 0;
	FUZZ_CHECK(ra == rb);
	FUZZ_CHECK(a.series == b.series && a.labels == b.labels && a.samples == b.samples);
	return 0;
}
