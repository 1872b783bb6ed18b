/*
 * offload.c - clang offload bundles (plain "__CLANG_OFFLOAD_BUNDLE__" and
 * compressed "CCOB" v1/v2/v3) and LLVM offload binaries (magic 10 FF 10 AD):
 * validate, read entry ids / target strings, record one image per entry.
 * CCOB ids are only visible after decompression: the first bytes of the
 * stream are inflated (zlib or zstd, loaded on first use) up to a cap,
 * enough for the bundle header. Layout: docs/deps-formats.md.
 */
#include <errno.h>
#include <stdio.h>

#include "../core/internal.h"
#include "../dl/dl.h"
#include "decomp.h"
#include "elfscan_int.h"

/* ---- AMDGPU processors --------------------------------------------------- */

static const struct {
	unsigned mach;
	const char *name;
} amdgpu_mach[] = {
	{ 0x20, "gfx600" },         { 0x21, "gfx601" },          { 0x22, "gfx700" },
	{ 0x23, "gfx701" },         { 0x24, "gfx702" },          { 0x25, "gfx703" },
	{ 0x26, "gfx704" },         { 0x28, "gfx801" },          { 0x29, "gfx802" },
	{ 0x2a, "gfx803" },         { 0x2b, "gfx810" },          { 0x2c, "gfx900" },
	{ 0x2d, "gfx902" },         { 0x2e, "gfx904" },          { 0x2f, "gfx906" },
	{ 0x30, "gfx908" },         { 0x31, "gfx909" },          { 0x32, "gfx90c" },
	{ 0x33, "gfx1010" },        { 0x34, "gfx1011" },         { 0x35, "gfx1012" },
	{ 0x36, "gfx1030" },        { 0x37, "gfx1031" },         { 0x38, "gfx1032" },
	{ 0x39, "gfx1033" },        { 0x3a, "gfx602" },          { 0x3b, "gfx705" },
	{ 0x3c, "gfx805" },         { 0x3d, "gfx1035" },         { 0x3e, "gfx1034" },
	{ 0x3f, "gfx90a" },         { 0x40, "gfx940" },          { 0x41, "gfx1100" },
	{ 0x42, "gfx1013" },        { 0x43, "gfx1150" },         { 0x44, "gfx1103" },
	{ 0x45, "gfx1036" },        { 0x46, "gfx1101" },         { 0x47, "gfx1102" },
	{ 0x48, "gfx1200" },        { 0x4a, "gfx1151" },         { 0x4b, "gfx941" },
	{ 0x4c, "gfx942" },         { 0x4e, "gfx1201" },         { 0x4f, "gfx950" },
	{ 0x51, "gfx9-generic" },   { 0x52, "gfx10-1-generic" }, { 0x53, "gfx10-3-generic" },
	{ 0x54, "gfx11-generic" },  { 0x55, "gfx1152" },         { 0x59, "gfx12-generic" },
	{ 0x5f, "gfx9-4-generic" },
};

const char *ga_dc_amdgpu_mach(unsigned mach)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(amdgpu_mach); i++)
		if (amdgpu_mach[i].mach == mach)
			return amdgpu_mach[i].name;
	return NULL;
}

/* ---- bundle entry ids ---------------------------------------------------- */

static void copy_field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "<offload kind>-<arch>-<vendor>-<os>-<env>[-<target id>]" */
void ga_dc_bundle_id_target(const char *id, size_t id_len, struct ga_devcode_image *img)
{
	const char *f[6] = { 0 };
	size_t fl[6] = { 0 };
	size_t nf = 0;
	const char *p = id, *end = id + id_len;
	while (nf < 6) {
		const char *d = nf < 5 ? memchr(p, '-', (size_t)(end - p)) : NULL;
		f[nf] = p;
		fl[nf] = (size_t)((d ? d : end) - p);
		nf++;
		if (!d)
			break;
		p = d + 1;
	}
	img->arch[0] = '\0';
	img->kind = GA_CODE_UNKNOWN;
	if (nf < 2)
		return;
	const char *triple_arch = f[1];
	size_t tal = fl[1];
	if (fl[0] == 4 && !memcmp(f[0], "host", 4)) {
		img->kind = GA_CODE_HOST;
		/* the triple itself */
		copy_field(img->arch, sizeof(img->arch), f[1], (size_t)(end - f[1]));
		return;
	}
	if (nf == 6)
		copy_field(img->arch, sizeof(img->arch), f[5], fl[5]);
	if (tal >= 6 && !memcmp(triple_arch, "amdgcn", 6))
		img->kind = GA_CODE_CODE_OBJECT;
	else if (tal >= 5 && !memcmp(triple_arch, "spirv", 5))
		img->kind = GA_CODE_SPIRV;
	else if (tal >= 5 && !memcmp(triple_arch, "nvptx", 5))
		img->kind = !strncmp(img->arch, "sm_", 3) ? GA_CODE_CUBIN : GA_CODE_PTX;
	if (nf < 6 && img->kind != GA_CODE_UNKNOWN)
		copy_field(img->arch, sizeof(img->arch), triple_arch, tal);
}

/*
 * Entries of a plain bundle whose header lies in h[0..hlen) (the whole bundle
 * is total bytes: entries may point past hlen when only a decompressed prefix
 * is at hand). Returns the bundle's size, or 0 when invalid.
 */
static uint64_t bundle_entries(struct dc_scan *s, const uint8_t *h, size_t hlen, uint64_t total,
                               uint64_t file_off, enum ga_devcode_compression comp)
{
	if (hlen < DC_BUNDLE_MAGIC_LEN + 8)
		return 0;
	uint64_t n = dc_le64(h + DC_BUNDLE_MAGIC_LEN);
	if (n == 0 || n > GA_DEVCODE_MAX_BUNDLE_ENTRIES)
		return 0;
	size_t p = DC_BUNDLE_MAGIC_LEN + 8;
	uint64_t size = p;
	for (uint64_t i = 0; i < n; i++) {
		if (!dc_range_ok(p, 24, hlen))
			return 0;
		uint64_t eoff = dc_le64(h + p), esz = dc_le64(h + p + 8), idl = dc_le64(h + p + 16);
		p += 24;
		if (idl == 0 || idl > GA_DEVCODE_MAX_ID_LEN || !dc_range_ok(p, idl, hlen) ||
		    !dc_range_ok(eoff, esz, total))
			return 0;
		struct ga_devcode_image *img = ga_dc_add_image(s);
		if (!img)
			return s->err ? 0 : total;
		img->bundle_id = ga_strndup((const char *)h + p, (size_t)idl);
		if (!img->bundle_id) {
			s->err = -ENOMEM;
			return 0;
		}
		ga_dc_bundle_id_target((const char *)h + p, (size_t)idl, img);
		img->compression = comp;
		if (comp == GA_COMP_NONE) {
			img->offset = file_off + eoff;
			img->size = esz;
		} else {
			img->offset = file_off;
			img->uncompressed_size = esz;
		}
		if (eoff + esz > size)
			size = eoff + esz;
		p += (size_t)idl;
	}
	if (p > size)
		size = p;
	return size;
}

uint64_t ga_dc_bundle(struct dc_scan *s, size_t off, size_t end)
{
	if (!dc_range_ok(off, DC_BUNDLE_MAGIC_LEN + 8, end) ||
	    memcmp(s->buf + off, DC_BUNDLE_MAGIC, DC_BUNDLE_MAGIC_LEN) != 0)
		return 0;
	struct ga_devcode_container *c = ga_dc_add_container(s, GA_DEVCODE_HIP_BUNDLE, off);
	if (!c)
		return 0;
	uint64_t size = bundle_entries(s, s->buf + off, end - off, end - off, off, GA_COMP_NONE);
	if (!size) {
		ga_dc_drop_last_container(s);
		s->info->n_bad_containers++;
		return 0;
	}
	c = &s->info->containers[s->info->n_containers - 1];
	c->version = 1;
	c->size = size;
	return size;
}

/* ---- decompression (loaded at run time) -------------------------------------------- */

static struct {
	ga_inflateInit_fn inflateInit_;
	ga_inflate_fn inflate;
	ga_inflateEnd_fn inflateEnd;
	ga_ZSTD_createDStream_fn createDStream;
	ga_ZSTD_freeDStream_fn freeDStream;
	ga_ZSTD_initDStream_fn initDStream;
	ga_ZSTD_decompressStream_fn decompressStream;
	ga_ZSTD_isError_fn isError;
} dz;
/* each library loaded on its first use through the one loader (lib/dl, rows ZLIB and ZSTD) */
static const struct ga_dl_sym zlib_syms[] = {
	{ { "inflateInit_" }, offsetof(__typeof__(dz), inflateInit_), true },
	{ { "inflate" }, offsetof(__typeof__(dz), inflate), true },
	{ { "inflateEnd" }, offsetof(__typeof__(dz), inflateEnd), true },
};
static const struct ga_dl_sym zstd_syms[] = {
	{ { "ZSTD_createDStream" }, offsetof(__typeof__(dz), createDStream), true },
	{ { "ZSTD_freeDStream" }, offsetof(__typeof__(dz), freeDStream), true },
	{ { "ZSTD_initDStream" }, offsetof(__typeof__(dz), initDStream), true },
	{ { "ZSTD_decompressStream" }, offsetof(__typeof__(dz), decompressStream), true },
	{ { "ZSTD_isError" }, offsetof(__typeof__(dz), isError), true },
};

long ga_decompress_prefix(int method, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap)
{
	if (method == 0) {
		if (!ga_dl_shared(GA_DL_ZLIB, zlib_syms, GA_ARRAY_SIZE(zlib_syms), &dz, NULL))
			return -ENOSYS;
		struct ga_z_stream zs;
		memset(&zs, 0, sizeof(zs));
		if (dz.inflateInit_(&zs, "1.2.11", (int)sizeof(zs)) != GA_Z_OK)
			return -ENOMEM;
		size_t done = 0;
		long r = 0;
		while (done < cap) {
			size_t ain = in_len > 1u << 30 ? 1u << 30 : in_len;
			size_t aout = cap - done > 1u << 30 ? 1u << 30 : cap - done;
			zs.next_in = in;
			zs.avail_in = (unsigned)ain;
			zs.next_out = out + done;
			zs.avail_out = (unsigned)aout;
			int zr = dz.inflate(&zs, GA_Z_NO_FLUSH);
			size_t used = ain - zs.avail_in, made = aout - zs.avail_out;
			in += used;
			in_len -= used;
			done += made;
			if (zr == GA_Z_STREAM_END)
				break;
			if (zr != GA_Z_OK && zr != GA_Z_BUF_ERROR) {
				r = -EBADMSG;
				break;
			}
			if (!used && !made) {
				/* no progress: input exhausted (truncated stream) */
				if (!done)
					r = -EBADMSG;
				break;
			}
		}
		dz.inflateEnd(&zs);
		return r < 0 ? r : (long)done;
	}
	if (method == 1) {
		if (!ga_dl_shared(GA_DL_ZSTD, zstd_syms, GA_ARRAY_SIZE(zstd_syms), &dz, NULL))
			return -ENOSYS;
		void *ds = dz.createDStream();
		if (!ds)
			return -ENOMEM;
		long r = 0;
		if (dz.isError(dz.initDStream(ds))) {
			dz.freeDStream(ds);
			return -ENOMEM;
		}
		struct ga_zstd_in zin = { in, in_len, 0 };
		struct ga_zstd_out zout = { out, cap, 0 };
		while (zout.pos < zout.size) {
			size_t in_pos = zin.pos, out_pos = zout.pos;
			size_t zr = dz.decompressStream(ds, &zout, &zin);
			if (dz.isError(zr)) {
				r = -EBADMSG;
				break;
			}
			if (zr == 0)
				break; /* frame complete */
			if (zin.pos == in_pos && zout.pos == out_pos)
				break; /* truncated input */
		}
		dz.freeDStream(ds);
		return r < 0 ? r : (long)zout.pos;
	}
	return -ENOTSUP;
}

/* ---- CCOB ---------------------------------------------------------------- */

/* Bytes of a CCOB bundle decompressed to read its header (entry table and ids). */
#define CCOB_PREFIX GA_DEVCODE_MAX_INFLATE

uint64_t ga_dc_ccob(struct dc_scan *s, size_t off, size_t end)
{
	const uint8_t *h = s->buf + off;
	if (!dc_range_ok(off, 20, end) || memcmp(h, DC_CCOB_MAGIC, 4) != 0)
		return 0;
	uint16_t version = dc_le16(h + 4), method = dc_le16(h + 6);
	uint64_t hdr, total, usize;
	if (version == 1) {
		hdr = 20;
		usize = dc_le32(h + 8);
		total = end - off; /* v1 does not say: the rest of the region */
	} else if (version == 2 && dc_range_ok(off, 24, end)) {
		hdr = 24;
		total = dc_le32(h + 8);
		usize = dc_le32(h + 12);
	} else if (version == 3 && dc_range_ok(off, 32, end)) {
		hdr = 32;
		total = dc_le64(h + 8);
		usize = dc_le64(h + 16);
	} else {
		s->info->n_bad_containers++;
		return 0;
	}
	if (method > 1 || total < hdr || !dc_range_ok(off, total, end) || usize < DC_BUNDLE_MAGIC_LEN + 8) {
		s->info->n_bad_containers++;
		return 0;
	}
	struct ga_devcode_container *c = ga_dc_add_container(s, GA_DEVCODE_HIP_CCOB, off);
	if (!c)
		return 0;
	c->version = version;
	c->size = total;
	c->compression = method == 0 ? GA_COMP_ZLIB : GA_COMP_ZSTD;
	c->uncompressed_size = usize;
	c->ids_known = false;
	if (s->flags & GA_ELF_NO_DECOMPRESS)
		return total;
	size_t cap = usize < CCOB_PREFIX ? (size_t)usize : CCOB_PREFIX;
	uint8_t *tmp = ga_malloc(cap);
	if (!tmp) {
		s->err = -ENOMEM;
		return 0;
	}
	long got = ga_decompress_prefix(method, h + hdr, (size_t)(total - hdr), tmp, cap);
	if (got > 0 && (size_t)got >= DC_BUNDLE_MAGIC_LEN + 8 &&
	    !memcmp(tmp, DC_BUNDLE_MAGIC, DC_BUNDLE_MAGIC_LEN)) {
		uint64_t bs = bundle_entries(s, tmp, (size_t)got, usize, off, c->compression);
		c = &s->info->containers[s->info->n_containers - 1];
		if (bs) {
			c->ids_known = true;
		} else {
			/* drop any half-read images; keep the container with unknown ids */
			while (s->info->n_images > c->first_image) {
				s->info->n_images--;
				ga_free(s->info->images[s->info->n_images].bundle_id);
			}
			c->n_images = 0;
			if (!s->err)
				s->info->n_bad_containers++;
		}
	} else if (got == -ENOSYS) {
		ga_log(s->ctx, GA_LOG_DEBUG, "CCOB at 0x%zx: %s not available, target ids unknown", off,
		       method == 0 ? "libz.so.1" : "libzstd.so.1");
	} else {
		s->info->n_bad_containers++;
	}
	ga_free(tmp);
	return s->err ? 0 : total;
}

/* ---- LLVM offload binary ------------------------------------------------- */

#define OB_HDR 32
#define OB_ENTRY 40
#define OB_MAX_ENTRIES 1024
#define OB_MAX_STRINGS 256

static const char *ob_string(const uint8_t *b, uint64_t size, uint64_t off)
{
	if (off >= size || !memchr(b + off, '\0', (size_t)(size - off)))
		return NULL;
	return (const char *)b + off;
}

uint64_t ga_dc_offload(struct dc_scan *s, size_t off, size_t end)
{
	const uint8_t *b = s->buf + off;
	if (!dc_range_ok(off, OB_HDR, end) || dc_le32(b) != DC_OFFLOAD_MAGIC)
		return 0;
	uint32_t version = dc_le32(b + 4);
	uint64_t size = dc_le64(b + 8), eoff = dc_le64(b + 16), esize = dc_le64(b + 24);
	uint64_t n = esize / OB_ENTRY;
	if (version == 0 || version > 16 || size < OB_HDR || !dc_range_ok(off, size, end) ||
	    !dc_range_ok(eoff, esize, size) || n == 0 || n > OB_MAX_ENTRIES) {
		s->info->n_bad_containers++;
		return 0;
	}
	struct ga_devcode_container *c = ga_dc_add_container(s, GA_DEVCODE_LLVM_OFFLOAD, off);
	if (!c)
		return 0;
	c->version = version;
	c->size = size;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *e = b + eoff + i * OB_ENTRY;
		uint16_t ikind = dc_le16(e), okind = dc_le16(e + 2);
		uint64_t soff = dc_le64(e + 8), ns = dc_le64(e + 16), ioff = dc_le64(e + 24),
		         isz = dc_le64(e + 32);
		if (ns > OB_MAX_STRINGS || !dc_range_ok(soff, ns * 16, size) || !dc_range_ok(ioff, isz, size))
			goto bad;
		const char *triple = NULL, *arch = NULL;
		for (uint64_t k = 0; k < ns; k++) {
			const char *key = ob_string(b, size, dc_le64(b + soff + k * 16));
			const char *val = ob_string(b, size, dc_le64(b + soff + k * 16 + 8));
			if (!key || !val)
				goto bad;
			if (!strcmp(key, "triple"))
				triple = val;
			else if (!strcmp(key, "arch"))
				arch = val;
		}
		struct ga_devcode_image *img = ga_dc_add_image(s);
		if (!img)
			return s->err ? 0 : size;
		img->offset = off + ioff;
		img->size = isz;
		(void)okind;
		bool nv = triple && !strncmp(triple, "nvptx", 5);
		bool amd = triple && !strncmp(triple, "amdgcn", 6);
		switch (ikind) {
		case 1:
			img->kind = nv ? GA_CODE_CUBIN : amd ? GA_CODE_CODE_OBJECT : GA_CODE_UNKNOWN;
			break;
		case 2:
			img->kind = GA_CODE_BITCODE;
			break;
		case 3:
			img->kind = GA_CODE_CUBIN;
			break;
		case 4:
			img->kind = GA_CODE_FATBIN;
			break;
		case 5:
			img->kind = GA_CODE_PTX;
			break;
		case 6:
			img->kind = GA_CODE_SPIRV;
			break;
		default:
			img->kind = GA_CODE_UNKNOWN;
			break;
		}
		if (arch)
			copy_field(img->arch, sizeof(img->arch), arch, strlen(arch));
		unsigned sm = 0;
		char suffix = 0;
		if (arch && (sscanf(arch, "sm_%u%c", &sm, &suffix) >= 1) && sm < 10000) {
			img->sm = (uint16_t)sm;
			img->arch_specific = suffix == 'a';
			img->family = suffix == 'f';
		}
		if (triple) {
			size_t tl = strnlen(triple, GA_DEVCODE_MAX_ID_LEN);
			img->bundle_id = ga_strndup(triple, tl);
			if (!img->bundle_id) {
				s->err = -ENOMEM;
				return 0;
			}
		}
	}
	return size;
bad:
	ga_dc_drop_last_container(s);
	s->info->n_bad_containers++;
	return 0;
}
