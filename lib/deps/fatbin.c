/*
 * fatbin.c - CUDA fatbin containers: validate a container header, walk its
 * entry headers (honouring each header_size) and record kind, SM, a/f,
 * PTX ISA and compression of every entry without touching the payloads;
 * with GA_ELF_PTX_ENTRIES, the kernels of each PTX payload too (the PTX JIT
 * estimate). Layout: gpu-code-formats.md (reference), docs/deps-formats.md.
 */
#include <errno.h>
#include <string.h>

#include "../core/internal.h"
#include "../dl/dl.h"
#include "decomp.h"
#include "elfscan_int.h"

#define PTX_MAX_BYTES (64u << 20) /* largest PTX text decompressed to count its kernels */

#define FATBIN_HDR 16
#define ENTRY_MIN 0x40 /* every field the census reads lies in the first 64 bytes */
#define ENTRY_MAX 4096 /* observed 64..128; larger is corruption */

#define FB_KIND_PTX 1
#define FB_KIND_CUBIN 2
#define FB_KIND_OLD_CUBIN 4
#define FB_KIND_LTOIR 8

#define FB_FLAG_DEBUG 0x2ull
#define FB_FLAG_LZ4 0x2000ull
#define FB_FLAG_ZSTD 0x8000ull
#define FB_FLAG_ARCH_SPECIFIC 0x100000ull
#define FB_FLAG_FAMILY 0x200000ull

static const char *const format_names[GA_DEVCODE_FORMAT_N] = {
	[GA_DEVCODE_CUDA_FATBIN] = "cuda-fatbin",
	[GA_DEVCODE_HIP_BUNDLE] = "hip-bundle",
	[GA_DEVCODE_HIP_CCOB] = "hip-ccob",
	[GA_DEVCODE_LLVM_OFFLOAD] = "llvm-offload",
};

const char *ga_devcode_format_name(enum ga_devcode_format f)
{
	return (unsigned)f < GA_DEVCODE_FORMAT_N ? format_names[f] : "unknown";
}

static const char *const kind_names[GA_CODE_KIND_N] = {
	[GA_CODE_UNKNOWN] = "unknown",
	[GA_CODE_CUBIN] = "cubin",
	[GA_CODE_PTX] = "ptx",
	[GA_CODE_LTOIR] = "ltoir",
	[GA_CODE_CODE_OBJECT] = "code-object",
	[GA_CODE_HOST] = "host",
	[GA_CODE_SPIRV] = "spirv",
	[GA_CODE_BITCODE] = "bitcode",
	[GA_CODE_FATBIN] = "fatbin",
};

const char *ga_devcode_kind_name(enum ga_devcode_kind k)
{
	return (unsigned)k < GA_CODE_KIND_N ? kind_names[k] : "unknown";
}

const char *ga_devcode_compression_name(enum ga_devcode_compression c)
{
	switch (c) {
	case GA_COMP_NONE:
		return "none";
	case GA_COMP_LZ4:
		return "lz4";
	case GA_COMP_ZSTD:
		return "zstd";
	case GA_COMP_ZLIB:
		return "zlib";
	default:
		return "other";
	}
}

int ga_ptx_isa_min_cuda(unsigned isa_major, unsigned isa_minor)
{
	static const struct {
		unsigned maj, min;
		int cuda;
	} t[] = {
		{ 7, 0, 11000 }, { 7, 1, 11010 }, { 7, 2, 11020 }, { 7, 3, 11030 }, { 7, 4, 11040 },
		{ 7, 5, 11050 }, { 7, 6, 11060 }, { 7, 7, 11070 }, { 7, 8, 11080 }, { 8, 0, 12000 },
		{ 8, 1, 12010 }, { 8, 2, 12020 }, { 8, 3, 12030 }, { 8, 4, 12040 }, { 8, 5, 12050 },
		{ 8, 6, 12070 }, { 8, 7, 12080 }, { 8, 8, 12090 }, { 9, 0, 13000 }, { 9, 1, 13010 },
		{ 9, 2, 13020 },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE(t); i++)
		if (t[i].maj == isa_major && t[i].min == isa_minor)
			return t[i].cuda;
	return -1;
}

/* "<prefix>_<sm>[a|f]" (prefix at most 7 characters: fits img->arch); formatted by
 * hand: one per entry, tens of thousands per library directory */
static void set_cuda_arch(struct ga_devcode_image *img, const char *prefix)
{
	char digits[8];
	size_t nd = 0, n = 0;
	unsigned v = img->sm;
	do {
		digits[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && nd < sizeof(digits));
	while (*prefix && n < 8)
		img->arch[n++] = *prefix++;
	img->arch[n++] = '_';
	while (nd)
		img->arch[n++] = digits[--nd];
	if (img->arch_specific)
		img->arch[n++] = 'a';
	else if (img->family)
		img->arch[n++] = 'f';
	img->arch[n] = '\0';
}

/* ".entry" directives (a kernel each) in PTX text: the token, after white space or at the start. */
static uint32_t count_entries(const uint8_t *p, size_t n)
{
	uint32_t k = 0;
	const uint8_t *end = p + n;
	for (const uint8_t *q = p; q + 7 <= end;) {
		const uint8_t *d = memchr(q, '.', (size_t)(end - q));
		if (!d || d + 7 > end)
			break;
		if (!memcmp(d, ".entry", 6) && (d[6] == ' ' || d[6] == '\t' || d[6] == '\n') &&
		    (d == p || d[-1] == ' ' || d[-1] == '\t' || d[-1] == '\n'))
			k++;
		q = d + 1;
	}
	return k;
}

/*
 * LZ4 (fatbin flag 0x2000, CUDA 12 and older) stores each entry as one raw
 * LZ4 block; liblz4's LZ4_decompress_safe(src, dst, src_size, dst_cap) reads
 * it. Loaded on first use like zlib and zstd (offload.c), so libgpuaudit does
 * not link it; without it LZ4 PTX stays uncounted.
 */
typedef int (*lz4_decompress_fn)(const char *src, char *dst, int src_size, int dst_cap);
static struct {
	lz4_decompress_fn LZ4_decompress_safe;
} lz4;
static const struct ga_dl_sym lz4_syms[] = {
	{ { "LZ4_decompress_safe" }, offsetof(__typeof__(lz4), LZ4_decompress_safe), true },
};

/* The kernels of one PTX image: its text as stored, or decompressed (zstd: CUDA 13, LZ4: 12). */
static void ptx_entries(struct dc_scan *s, struct ga_devcode_image *img)
{
	if (!s->buf || !dc_range_ok(img->offset, img->size, s->len))
		return;
	const uint8_t *p = s->buf + img->offset;
	if (img->compression == GA_COMP_NONE) {
		img->ptx_entries = count_entries(p, (size_t)img->size);
		img->ptx_entries_known = true;
		return;
	}
	if ((img->compression != GA_COMP_ZSTD && img->compression != GA_COMP_LZ4) ||
	    !img->uncompressed_size || img->uncompressed_size > PTX_MAX_BYTES || img->size > PTX_MAX_BYTES)
		return;
	if (img->compression == GA_COMP_LZ4) {
		if (!ga_dl_shared(GA_DL_LZ4, lz4_syms, GA_ARRAY_SIZE(lz4_syms), &lz4, NULL))
			return;
	}
	uint8_t *out = ga_malloc((size_t)img->uncompressed_size);
	if (!out)
		return;
	long got =
	        img->compression == GA_COMP_ZSTD
	                ? ga_decompress_prefix(1, p, (size_t)img->size, out, (size_t)img->uncompressed_size)
	                : lz4.LZ4_decompress_safe((const char *)p, (char *)out, (int)img->size,
	                                          (int)img->uncompressed_size);
	if (got > 0) {
		img->ptx_entries = count_entries(out, (size_t)got);
		img->ptx_entries_known = true;
	}
	ga_free(out);
}

/*
 * With GA_ELF_PTX_ENTRIES: count the kernels of the container's PTX images,
 * only where the JIT can happen. A target SM in the flags (GA_ELF_PTX_SM)
 * skips containers with a cubin that runs there (same major, minor not above
 * it; a/f and Tegra cubins only on their own SM: a wider net than the
 * verdict's, never a narrower one) and PTX above it. Decompressing is the
 * cost: cuFFT alone has 8,000 LZ4 PTX entries.
 */
static void container_ptx_entries(struct dc_scan *s, const struct ga_devcode_container *c)
{
	unsigned sm = (s->flags >> GA_ELF_PTX_SM_SHIFT) & 0xffffu;
	struct ga_devcode_image *im = s->info->images + c->first_image;
	if (sm)
		for (uint32_t k = 0; k < c->n_images; k++)
			if (im[k].kind == GA_CODE_CUBIN &&
			    (im[k].sm == sm ||
			     (!im[k].arch_specific && !im[k].family && im[k].sm / 10 == sm / 10 &&
			      im[k].sm <= sm && sm != 87 && sm != 72 && sm != 62 && sm != 53)))
				return;
	for (uint32_t k = 0; k < c->n_images; k++)
		if (im[k].kind == GA_CODE_PTX && (!sm || im[k].sm <= sm))
			ptx_entries(s, &im[k]);
}

uint64_t ga_dc_fatbin(struct dc_scan *s, size_t off, size_t end)
{
	uint8_t tmp[64];
	if (!dc_range_ok(off, FATBIN_HDR, end))
		return 0;
	const uint8_t *h = ga_dc_peek(s, off, FATBIN_HDR, tmp);
	if (!h || dc_le32(h) != DC_FATBIN_MAGIC)
		return 0;
	uint16_t version = dc_le16(h + 4), hsize = dc_le16(h + 6);
	uint64_t fat_size = dc_le64(h + 8);
	if (version != 1 || hsize < FATBIN_HDR || hsize > 256 || !dc_range_ok(off, hsize, end) ||
	    !dc_range_ok(off + hsize, fat_size, end)) {
		s->info->n_bad_containers++;
		return 0;
	}
	struct ga_devcode_container *c = ga_dc_add_container(s, GA_DEVCODE_CUDA_FATBIN, off);
	if (!c)
		return 0;
	c->version = version;
	c->size = hsize + fat_size;
	size_t p = off + hsize, cend = (size_t)(off + hsize + fat_size);
	while (p < cend) {
		if (!dc_range_ok(p, ENTRY_MIN, cend))
			goto bad;
		const uint8_t *e = ga_dc_peek(s, p, ENTRY_MIN, tmp);
		if (!e)
			goto bad;
		uint16_t kind = dc_le16(e);
		uint32_t ehs = dc_le32(e + 4);
		uint64_t psize = dc_le64(e + 8);
		if (ehs < ENTRY_MIN || ehs > ENTRY_MAX || !dc_range_ok(p, ehs, cend) ||
		    !dc_range_ok(p + ehs, psize, cend))
			goto bad;
		if (kind != FB_KIND_PTX && kind != FB_KIND_CUBIN && kind != FB_KIND_OLD_CUBIN &&
		    kind != FB_KIND_LTOIR)
			goto bad;
		struct ga_devcode_image *img = ga_dc_add_image(s);
		if (!img)
			return s->err ? 0 : c->size; /* cap: keep what was read */
		uint64_t flags = dc_le64(e + 0x28);
		img->kind = kind == FB_KIND_PTX     ? GA_CODE_PTX
		            : kind == FB_KIND_LTOIR ? GA_CODE_LTOIR
		                                    : GA_CODE_CUBIN;
		img->code_version_minor = dc_le16(e + 0x18);
		img->code_version_major = dc_le16(e + 0x1A);
		uint32_t sm = dc_le32(e + 0x1C);
		img->sm = sm > 0xffff ? 0 : (uint16_t)sm;
		img->cuda_flags = flags;
		img->arch_specific = (flags & FB_FLAG_ARCH_SPECIFIC) != 0;
		img->family = (flags & FB_FLAG_FAMILY) != 0;
		img->debug = (flags & FB_FLAG_DEBUG) != 0;
		uint32_t csize = dc_le32(e + 0x10);
		if (flags & FB_FLAG_ZSTD)
			img->compression = GA_COMP_ZSTD;
		else if (flags & FB_FLAG_LZ4)
			img->compression = GA_COMP_LZ4;
		else if (csize)
			img->compression = GA_COMP_OTHER;
		if (img->compression != GA_COMP_NONE)
			img->uncompressed_size = dc_le64(e + 0x38);
		if (img->kind == GA_CODE_PTX) {
			img->ptx_isa_major = img->code_version_major;
			img->ptx_isa_minor = img->code_version_minor;
			set_cuda_arch(img, "compute");
		} else if (img->kind == GA_CODE_LTOIR) {
			set_cuda_arch(img, "lto");
		} else {
			set_cuda_arch(img, "sm");
		}
		img->offset = p + ehs;
		img->size = csize && csize <= psize ? csize : psize;
		p = (size_t)(p + ehs + psize);
	}
	if (s->flags & GA_ELF_PTX_ENTRIES)
		container_ptx_entries(s, c);
	return c->size;
bad:
	ga_dc_drop_last_container(s);
	s->info->n_bad_containers++;
	return 0;
}
