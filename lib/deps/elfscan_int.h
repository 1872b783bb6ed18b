/*
 * elfscan_int.h - shared inside the ELF / device-code census (elf.c: ELF
 * structure; scan.c: the section scan; census.c: the census store and file
 * reads; fatbin.c, offload.c: the container parsers, each of which validates
 * one container at a given offset and appends what it finds).
 */
#ifndef GA_ELFSCAN_INT_H
#define GA_ELFSCAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpuaudit/elfscan.h"
#include "le.h"

/*
 * The bytes of the file at offsets [base, lim): the mapping itself (no fd),
 * or a scratch copy read with pread (ga_elf_inspect_fd). Windows are never
 * taken from the mapping: a page-table entry costs more than copying the
 * page on the VMs measured (docs/performance.md, "census at the physical
 * limit"; bench/census-read.sh measures a machine).
 */
struct win {
	const uint8_t *p;
	size_t base, lim;
};

struct dc_scan {
	struct ga_ctx *ctx;
	struct ga_elf_info *info;
	const uint8_t *buf; /* the whole file */
	size_t len;
	unsigned flags;
	const char *section;     /* name of the section being scanned, owned by info (NULL: not copied yet) */
	const char *section_raw; /* the same in the file's string table */
	int err;                 /* first -ENOMEM; parsers stop adding once set */
	int fd;                  /* >= 0: bulk scans pread from it into scratch (ga_elf_inspect_fd) */
	uint64_t fd_base;        /* where buf[0] lies in that file (ga_elf_inspect_fd_at) */
	uint8_t *scratch;
	struct win w;  /* current window of the bulk scan */
	uint8_t *peek; /* read-ahead of ga_dc_peek: file bytes [peek_base, peek_lim) */
	size_t peek_base, peek_lim;
	size_t peek_miss;    /* where the last read-ahead started (0: none yet) */
	size_t win_next;     /* bytes the next window of the bulk scan reads after its start */
	bool simd;           /* the bulk scan uses AVX2 */
	char last_name[192]; /* the last library name looked up (string scan) */
	size_t last_name_len;
};

/* The census of one file: the scan state and the store's capacities (census.c). */
struct dc_state {
	struct dc_scan s; /* first: the parsers' struct dc_scan * is this */
	size_t cap_containers, cap_images;
	char ***secnames; /* where section names are kept (the info block) */
	size_t *n_secnames;
	/* names of the sections that held device code (owned, freed with the info) */
};

#define WIN_BYTES (256u << 10) /* largest pread window */
#define WIN_MIN (32u << 10)    /* first window of a section */
#define WIN_GAP (4u << 10)     /* first window after a container ran past one */
/*
 * Read-ahead of a header outside the window: a container header and its
 * first entry header. A pread costs about as much as copying 4-8 KiB more
 * (docs/performance.md); payloads are never read, so a larger read-ahead
 * copies payload bytes for nothing.
 */
#define PEEK_BYTES 1024u
/*
 * A chain of headers a stride d apart (cuFFT's .ldata: 24,000 containers of
 * 1-80 KiB, one entry each, 16 bytes between them): when the last read-ahead
 * started d <= PEEK_STRIDE bytes before this one, this one reads 2d + 1 KiB,
 * covering the next one or two headers at that stride (the payload bytes
 * between are copied: a pread costs about as much as copying 14 KiB,
 * docs/performance.md).
 */
#define PEEK_STRIDE (8u << 10)
#define PEEK_MAX (2 * PEEK_STRIDE + PEEK_BYTES)
#define WIN_BEFORE 256 /* context kept before a window (names straddling it) */
#define WIN_AFTER 64   /* and after */
#define SCRATCH_WIN (WIN_BYTES + WIN_BEFORE + WIN_AFTER)

/*
 * census.c: make w cover at least [q - WIN_BEFORE, min(q + ahead + WIN_AFTER,
 * end)) clipped to [start, end) (ahead <= WIN_BYTES). Without an fd the
 * mapping covers everything.
 */
int ga_dc_fill_window(struct dc_scan *s, struct win *w, size_t start, size_t q, size_t end, size_t ahead);
/* census.c: the pread buffer (SCRATCH_WIN + PEEK_MAX), kept per thread between files; NULL on ENOMEM. */
uint8_t *ga_dc_scratch_get(void);
void ga_dc_scratch_put(uint8_t *p);

/* scan.c: the bulk scans of [start, end) (fatbins with library names when strings is set; bundles; offload). */
int ga_dc_scan_fatbins(struct dc_scan *s, size_t start, size_t end, bool strings);
int ga_dc_scan_bundles(struct dc_scan *s, size_t start, size_t end);
int ga_dc_scan_offload(struct dc_scan *s, size_t start, size_t end);
/* scan.c: the AVX2 scan for this ctx (the CPU has it and ga_ctx_set_no_simd did not turn it off). */
bool ga_dc_use_simd(const struct ga_ctx *ctx);

/* off + n <= len without overflow */
static inline bool dc_range_ok(uint64_t off, uint64_t n, uint64_t len)
{
	return off <= len && n <= len - off;
}

#define DC_FATBIN_MAGIC 0xBA55ED50u
#define DC_OFFLOAD_MAGIC 0xAD10FF10u /* bytes 10 FF 10 AD */
#define DC_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define DC_BUNDLE_MAGIC_LEN 24
#define DC_CCOB_MAGIC "CCOB"

/*
 * n (<= 64) bytes of the file at off (the caller has range-checked them):
 * from the mapping, the scan window, or pread into tmp. NULL when a pread
 * fails (the caller treats the container as unreadable).
 */
const uint8_t *ga_dc_peek(struct dc_scan *s, size_t off, size_t n, uint8_t tmp[64]);

/*
 * Container parsers: validate the container starting at buf[off] (which must
 * lie inside [off, end)) and record it. Return its size in bytes (> 0) when
 * it was recorded, 0 when the bytes are not a valid container (the caller
 * then keeps searching; n_bad_containers counts it when the magic matched).
 */
uint64_t ga_dc_fatbin(struct dc_scan *s, size_t off, size_t end);
uint64_t ga_dc_bundle(struct dc_scan *s, size_t off, size_t end);
uint64_t ga_dc_ccob(struct dc_scan *s, size_t off, size_t end);
uint64_t ga_dc_offload(struct dc_scan *s, size_t off, size_t end);

/* Append a container / an image (NULL on ENOMEM or cap, s->err / truncation set). */
struct ga_devcode_container *ga_dc_add_container(struct dc_scan *s, enum ga_devcode_format fmt, size_t off);
struct ga_devcode_image *ga_dc_add_image(struct dc_scan *s);
/* Drop the last container and its images (a container that failed half-way). */
void ga_dc_drop_last_container(struct dc_scan *s);

/* Parse a bundle entry id into image->arch/kind ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"). */
void ga_dc_bundle_id_target(const char *id, size_t id_len, struct ga_devcode_image *img);

/* AMDGPU processor name from e_flags & 0xff, NULL when unknown. */
const char *ga_dc_amdgpu_mach(unsigned mach);

#endif
