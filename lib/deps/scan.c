/*
 * scan.c - the section scan of the device-code census: fatbin containers at
 * 4-byte steps with library names in the string data between them (SSE2 /
 * AVX2 candidate search), HIP bundles and LLVM offload binaries by their
 * magic. elf.c chooses the sections; the parsers (fatbin.c, offload.c)
 * validate what the scan finds; census.c stores it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "elfscan_int.h"
#include "gpuaudit/deps-inventory.h"

#define MAX_DLOPEN_NAMES 256

/* ---- library names in string data ---------------------------------------- */

static bool tokc(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.' || c == '+';
}

static int add_dlopen_name(struct ga_elf_info *info, const char *name, size_t n)
{
	for (size_t i = 0; i < info->n_dlopen_names; i++)
		if (strlen(info->dlopen_names[i]) == n && !memcmp(info->dlopen_names[i], name, n))
			return 0;
	if (info->n_dlopen_names >= MAX_DLOPEN_NAMES)
		return 0;
	char *d = ga_strndup(name, n);
	char **slot =
	        d ? ga_array_push((void **)&info->dlopen_names, &info->n_dlopen_names, sizeof(char *)) : NULL;
	if (!slot) {
		ga_free(d);
		return -ENOMEM;
	}
	*slot = d;
	return 0;
}

static inline uint8_t wb(const struct win *w, size_t off)
{
	return w->p[off - w->base];
}

/*
 * A ".so" at offset at: take the library name around it ("libcuda.so.1" in
 * "failed to load libcuda.so.1: %s"), tokens bounded by [lo, hi) (inside the
 * window), and keep it when the vendor table knows it.
 */
static int so_hit(struct dc_scan *s, const struct win *w, size_t lo, size_t at, size_t hi)
{
	if (lo < w->base)
		lo = w->base;
	if (hi > w->lim)
		hi = w->lim;
	/* extend left over token characters (bounded) */
	size_t st = at;
	while (st > lo && at - st < 128 && tokc(wb(w, st - 1)))
		st--;
	/* right: ".so" then ".<digits>" groups */
	size_t en = at + 3;
	while (en + 1 < hi && wb(w, en) == '.' && wb(w, en + 1) >= '0' && wb(w, en + 1) <= '9') {
		en++;
		while (en < hi && en - at < 32 && wb(w, en) >= '0' && wb(w, en) <= '9')
			en++;
	}
	if (en < hi && tokc(wb(w, en)) && wb(w, en) != '.')
		return 0; /* ".so" inside a longer word (".sort", ".som") */
	/* the name starts at the last "lib" before ".so" */
	size_t ls = SIZE_MAX;
	for (size_t q = st; q + 3 <= at; q++)
		if (wb(w, q) == 'l' && wb(w, q + 1) == 'i' && wb(w, q + 2) == 'b')
			ls = q;
	if (ls == SIZE_MAX || ls + 3 >= at)
		return 0;
	char name[192];
	size_t n = en - ls;
	if (n >= sizeof(name))
		return 0;
	memcpy(name, w->p + (ls - w->base), n);
	name[n] = '\0';
	/* the same name again (tables of strings repeat): nothing new to learn */
	if (n == s->last_name_len && !memcmp(s->last_name, name, n))
		return 0;
	memcpy(s->last_name, name, n + 1);
	s->last_name_len = n;
	if (!ga_vendor_lib_find(name, NULL) && !ga_deps_plugin_find(name))
		return 0; /* neither a vendor library nor a plug-in loaded by name (plugins.c) */
	if (!strcmp(name, "libcuda.so.1"))
		s->info->static_cudart_markers |= GA_CUDART_LIBCUDA_STRING;
	return add_dlopen_name(s->info, name, n);
}

/* ---- section scan -------------------------------------------------------- */

/*
 * Candidates in the 16 bytes at p (p + 18 bytes readable): bit i (i = 0, 4,
 * 8, 12) of *magic for a fatbin magic at p + i, bit i of the result for a
 * ".so" starting at p + i. SSE2 where available (every x86-64), else scalar.
 */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline unsigned chunk_marks(const uint8_t *p, bool strings, unsigned *magic)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	unsigned mm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi32(v, _mm_set1_epi32((int)DC_FATBIN_MAGIC)));
	*magic = mm & 0x1111u;
	if (!strings)
		return 0;
	__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
	__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 2));
	__m128i d = _mm_cmpeq_epi8(v, _mm_set1_epi8('.'));
	__m128i t =
	        _mm_and_si128(_mm_cmpeq_epi8(v1, _mm_set1_epi8('s')), _mm_cmpeq_epi8(v2, _mm_set1_epi8('o')));
	return (unsigned)_mm_movemask_epi8(_mm_and_si128(d, t));
}
#else
static inline unsigned chunk_marks(const uint8_t *p, bool strings, unsigned *magic)
{
	*magic =
	        (dc_le32(p) == DC_FATBIN_MAGIC ? 1u : 0u) | (dc_le32(p + 8) == DC_FATBIN_MAGIC ? 0x100u : 0u);
	unsigned m = 0;
	if (strings)
		for (unsigned i = 0; i < 16; i++)
			if (p[i] == '.' && p[i + 1] == 's' && p[i + 2] == 'o')
				m |= 1u << i;
	return m;
}
#endif

/*
 * How many of the nb 64-byte blocks at p (p + 64 * nb + 2 bytes readable)
 * hold no candidate (chunk_marks), counted from the first.
 */
static size_t clean_blocks_base(const uint8_t *p, size_t nb, bool strings)
{
	size_t i;
	for (i = 0; i < nb; i++, p += 64) {
		unsigned m0, m1, m2, m3;
		unsigned a = chunk_marks(p, strings, &m0) | chunk_marks(p + 16, strings, &m1) |
		             chunk_marks(p + 32, strings, &m2) | chunk_marks(p + 48, strings, &m3);
		if (a | m0 | m1 | m2 | m3)
			break;
	}
	return i;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* The same test, 32 bytes a step (CPUs with AVX2; chosen at run time). */
__attribute__((target("avx2"))) static size_t clean_blocks_avx2(const uint8_t *p, size_t nb, bool strings)
{
	const __m256i mag = _mm256_set1_epi32((int)DC_FATBIN_MAGIC);
	const __m256i dot = _mm256_set1_epi8('.'), ess = _mm256_set1_epi8('s'), oh = _mm256_set1_epi8('o');
	size_t i;
	if (!strings) {
		for (i = 0; i < nb; i++, p += 64) {
			__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
			__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
			__m256i m = _mm256_or_si256(_mm256_cmpeq_epi32(a, mag), _mm256_cmpeq_epi32(b, mag));
			if (!_mm256_testz_si256(m, m))
				break;
		}
		return i;
	}
	for (i = 0; i < nb; i++, p += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
		__m256i m = _mm256_or_si256(_mm256_cmpeq_epi32(a, mag), _mm256_cmpeq_epi32(b, mag));
		__m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 1));
		__m256i a2 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 2));
		__m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 33));
		__m256i b2 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 34));
		__m256i ta = _mm256_and_si256(
		        _mm256_cmpeq_epi8(a, dot),
		        _mm256_and_si256(_mm256_cmpeq_epi8(a1, ess), _mm256_cmpeq_epi8(a2, oh)));
		__m256i tb = _mm256_and_si256(
		        _mm256_cmpeq_epi8(b, dot),
		        _mm256_and_si256(_mm256_cmpeq_epi8(b1, ess), _mm256_cmpeq_epi8(b2, oh)));
		m = _mm256_or_si256(m, _mm256_or_si256(ta, tb));
		if (!_mm256_testz_si256(m, m))
			break;
	}
	return i;
}

static bool cpu_avx2(void)
{
	/* 0: not probed yet, 1: no, 2: yes (a benign race: every thread stores the same) */
	static int have;
	int k = __atomic_load_n(&have, __ATOMIC_RELAXED);
	if (!k) {
		__builtin_cpu_init();
		k = __builtin_cpu_supports("avx2") ? 2 : 1;
		__atomic_store_n(&have, k, __ATOMIC_RELAXED);
	}
	return k == 2;
}

/* AVX2 when the CPU has it, unless the ctx says no (ga_ctx_set_no_simd: tests compare both paths). */
bool ga_dc_use_simd(const struct ga_ctx *ctx)
{
	return cpu_avx2() && !(ctx && ctx->no_simd);
}

static size_t clean_blocks(const struct dc_scan *s, const uint8_t *p, size_t nb, bool strings)
{
	return s->simd ? clean_blocks_avx2(p, nb, strings) : clean_blocks_base(p, nb, strings);
}
#else
bool ga_dc_use_simd(const struct ga_ctx *ctx)
{
	(void)ctx;
	return false;
}

static size_t clean_blocks(const struct dc_scan *s, const uint8_t *p, size_t nb, bool strings)
{
	(void)s;
	return clean_blocks_base(p, nb, strings);
}
#endif

#define CHAIN_SLACK 64u

/*
 * A chain of containers that ended at next (no container starts there): the
 * offset of a container magic a few bytes further, when the bytes before it
 * hold nothing the scan looks at (no magic at next, no ".so"), else 0. The
 * scan then reads no window for a few bytes of padding (.cask_resource keeps
 * 8 bytes between its containers). next is 4-aligned from the section start.
 */
static size_t chain_slack(struct dc_scan *s, size_t next, size_t end, bool strings)
{
	uint8_t tmp[64];
	if (next >= end || end - next < 8)
		return 0;
	size_t n = end - next < CHAIN_SLACK ? end - next : CHAIN_SLACK;
	const uint8_t *b = ga_dc_peek(s, next, n, tmp);
	if (!b || dc_le32(b) == DC_FATBIN_MAGIC)
		return 0;
	for (size_t k = 4; k + 4 <= n; k += 4) {
		for (size_t j = k - 4; strings && j < k; j++)
			if (b[j] == '.' && b[j + 1] == 's' && b[j + 2] == 'o')
				return 0;
		if (dc_le32(b + k) == DC_FATBIN_MAGIC)
			return next + k;
	}
	return 0;
}

/*
 * One pass over [start, end): fatbin containers at 4-byte steps from the
 * section start (containers are 8-aligned in the file, but cuFFT's .ldata
 * starts at 4 mod 8, and sections added by objcopy may start anywhere),
 * their payloads skipped, never read; and when strings is set,
 * library names in the bytes between containers.
 */
int ga_dc_scan_fatbins(struct dc_scan *s, size_t start, size_t end, bool strings)
{
	struct ga_elf_info *info = s->info;
	size_t gap = start; /* start of the bytes not inside a container */
	size_t q = start;   /* 4-byte steps from the section start */
	int r = 0;
	struct win *w = &s->w;
	memset(w, 0, sizeof(*w));
	s->win_next = WIN_MIN;
	while (r == 0 && !s->err && q < end) {
		if (q < w->base || q >= w->lim || (w->lim < end && q + 66 > w->lim)) {
			/*
			 * Windows grow while they hold no container: a container that
			 * runs past its window means the bytes after its header were
			 * read for nothing, so the window after it starts at WIN_GAP:
			 * the gap to the next container and that container's headers
			 * in one read (cuFFT's .ldata: containers of ~12 KiB ~500 bytes
			 * apart; .cask_resource: ~200 KiB between gaps).
			 */
			ga_dc_fill_window(s, w, start, q, end, s->win_next);
			s->win_next = s->win_next >= WIN_BYTES / 2 ? WIN_BYTES : s->win_next * 2;
		}
		size_t stop = w->lim < end ? w->lim - WIN_AFTER : end; /* where this window's scan ends */
		unsigned magic = 0, so = 0;
		/* fast path: 64-byte blocks with nothing in them (each block reads 66 bytes) */
		if (q + 66 <= w->lim && q < stop) {
			size_t nb = (w->lim - 66 - q) / 64 + 1, ns = (stop - q + 63) / 64;
			q += 64 * clean_blocks(s, w->p + (q - w->base), nb < ns ? nb : ns, strings);
		}
		if (q >= stop && w->lim < end)
			continue; /* next window */
		if (q >= end)
			break;
		if (q + 18 <= w->lim) {
			so = chunk_marks(w->p + (q - w->base), strings, &magic);
		} else if (w->lim < end) {
			continue; /* next window */
		} else {
			/* tail of the region: scalar */
			for (size_t i = q; i < end && i - q < 16; i++) {
				if (strings && i + 3 <= end && wb(w, i) == '.' && wb(w, i + 1) == 's' &&
				    wb(w, i + 2) == 'o')
					so |= 1u << (i - q);
				if ((i - q) % 4 == 0 && i + 4 <= end &&
				    dc_le32(w->p + (i - w->base)) == DC_FATBIN_MAGIC)
					magic |= 1u << (i - q);
			}
		}
		if (!(magic | so)) {
			q += 16;
			continue;
		}
		size_t next = q + 16;
		for (unsigned i = 0; i < 16 && r == 0; i++) {
			if (magic & (1u << i)) {
				/* container headers are read with ga_dc_peek: only their bytes are touched */
				size_t wbase = w->base, wlim = w->lim;
				uint64_t used = ga_dc_fatbin(s, q + i, end);
				if (!used && (w->base != wbase || w->lim != wlim)) {
					/* a failed container moved the window: rescan after its magic */
					next = q + i + 4;
					break;
				}
				if (used) {
					info->bytes_scanned += q + i - gap;
					info->bytes_skipped += used;
					gap = (size_t)(q + i + used);
					next = start + ((gap - start + 3) & ~(size_t)3);
					/* walk the chain: containers usually follow each other */
					for (;;) {
						while (next + 16 <= end &&
						       (used = ga_dc_fatbin(s, next, end)) != 0) {
							info->bytes_scanned += next - gap;
							info->bytes_skipped += used;
							gap = (size_t)(next + used);
							next = start + ((gap - start + 3) & ~(size_t)3);
						}
						size_t at = chain_slack(s, next, end, strings);
						if (!at)
							break;
						if (!(used = ga_dc_fatbin(s, at, end))) {
							next = at +
							       4; /* counted as bad once, as the scan would */
							break;
						}
						info->bytes_scanned += at - gap;
						info->bytes_skipped += used;
						gap = (size_t)(at + used);
						next = start + ((gap - start + 3) & ~(size_t)3);
					}
					if (gap > w->lim)
						s->win_next = WIN_GAP;
					break;
				}
			}
			if (so & (1u << i))
				r = so_hit(s, w, start, q + i, end);
		}
		q = next;
	}
	if (gap < end)
		info->bytes_scanned += end - gap;
	memset(w, 0, sizeof(*w));
	return r < 0 ? r : s->err;
}

/* HIP bundles (plain and CCOB) anywhere in [start, end). */
int ga_dc_scan_bundles(struct dc_scan *s, size_t start, size_t end)
{
	const uint8_t *buf = s->buf;
	size_t p = start;
	while (p + 4 <= end && !s->err) {
		const uint8_t *b = memmem(buf + p, end - p, DC_BUNDLE_MAGIC, DC_BUNDLE_MAGIC_LEN);
		const uint8_t *c = memmem(buf + p, end - p, DC_CCOB_MAGIC, 4);
		if (!b && !c)
			break;
		size_t at = (size_t)((b && (!c || b < c)) ? b - buf : c - buf);
		uint64_t used =
		        (b && at == (size_t)(b - buf)) ? ga_dc_bundle(s, at, end) : ga_dc_ccob(s, at, end);
		if (used) {
			s->info->bytes_skipped += used;
			p = at + (size_t)used;
		} else {
			p = at + 1;
		}
	}
	return s->err;
}

int ga_dc_scan_offload(struct dc_scan *s, size_t start, size_t end)
{
	const uint8_t *buf = s->buf;
	static const uint8_t magic[4] = { 0x10, 0xFF, 0x10, 0xAD };
	size_t p = start;
	while (p + 4 <= end && !s->err) {
		const uint8_t *m = memmem(buf + p, end - p, magic, 4);
		if (!m)
			break;
		size_t at = (size_t)(m - buf);
		uint64_t used = ga_dc_offload(s, at, end);
		if (used) {
			s->info->bytes_skipped += used;
			p = at + (size_t)used;
		} else {
			p = at + 1;
		}
	}
	return s->err;
}
