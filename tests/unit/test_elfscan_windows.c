/*
 * test_elfscan_windows.c - the census through pread windows (ga_elf_inspect_fd)
 * on an ELF written here whose sections are larger than the windows: fatbin
 * containers and library names placed across window boundaries (32, 96, 224,
 * 480 KiB from a section start: windows start at 32 KiB and double up to
 * 256 KiB), a chain of containers 8 bytes apart (the .cask_resource layout),
 * a library name in a 24-byte gap of such a chain, a container larger than
 * any window, a damaged header between containers,
 * and a writable section whose strings are not searched for library names.
 * Every census (mapping only, pread windows, with and without the SIMD scan)
 * must find exactly what was placed; threads inspecting at once agree. And a
 * dense chain of small containers with short gaps (cuFFT's .ldata layout),
 * and a tighter one (0-60 bytes apart) for the header read-ahead that follows
 * a chain's stride.
 */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/elfscan.h"

#define RODATA_OFF 0x1000u
#define RODATA_LEN (900u << 10)
#define LDATA_LEN (200u << 10)

static struct ga_ctx *ctx;
static char tmpdir[256];

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A fatbin container at p: one cubin entry for sm, payload bytes of filler. */
static size_t put_fatbin(uint8_t *p, unsigned sm, size_t payload)
{
	le(p, 0xBA55ED50u, 4);
	le(p + 4, 1, 2);
	le(p + 6, 16, 2);
	le(p + 8, 64 + payload, 8);
	uint8_t *e = p + 16;
	memset(e, 0, 64);
	le(e, 2, 2); /* cubin */
	le(e + 2, 0x0101, 2);
	le(e + 4, 64, 4);
	le(e + 8, payload, 8);
	le(e + 0x18, 8, 2);
	le(e + 0x1A, 1, 2);
	le(e + 0x1C, sm, 4);
	memset(e + 64, 0x5a, payload);
	return 16 + 64 + payload;
}

struct placed {
	size_t off; /* from the section start; 0: gap bytes after the previous one */
	unsigned sm;
	size_t payload;
	size_t gap;
	const char *gap_text; /* written into that gap */
};

/* .rodata: containers, counted by the test */
static const struct placed rodata_fatbins[] = {
	{ (32u << 10) - 40, 80, 1000, 0, NULL }, /* header straddles the first window's end */
	{ 100u << 10, 86, 40u << 10, 0, NULL },  /* a chain 8 bytes apart */
	{ 0, 87, 50u << 10, 8, NULL },           /* 8 bytes after the previous one */
	{ 0, 89, 30u << 10, 8, NULL },
	{ 0, 61, 1000, 24, "\0libcurand.so.10\0" },     /* a name in a short gap */
	{ 300u << 10, 90, 300u << 10, 0, NULL },        /* larger than any window */
	{ 0, 100, 2000, 8, NULL },                      /* 8 bytes after it */
	{ (700u << 10) + 4, 120, 64, 0, NULL },         /* 4 mod 8 */
	{ RODATA_LEN - 16 - 64 - 96, 75, 96, 0, NULL }, /* the last bytes of the section */
};

/* library names across window ends (the names are placed in the gaps) */
static const struct {
	size_t off;
	const char *text;
} rodata_names[] = {
	{ (32u << 10) - 400, "\0failed to load libcuda.so.1: %s\0" }, /* before the first container */
	{ (96u << 10) - 6, "\0libnvidia-ml.so.1\0" },
	{ (224u << 10) - 9, "\0libcufft.so.12\0" }, /* "lib" before the end, ".so" after */
	{ (660u << 10) - 3, "\0libcublas.so.13\0" },
};

static size_t build(uint8_t *b)
{
	const size_t ldata_off = RODATA_OFF + RODATA_LEN, shstr_off = ldata_off + LDATA_LEN;
	static const char shstr[] = "\0.rodata\0.ldata\0.shstrtab";
	const size_t sh_off = (shstr_off + sizeof(shstr) + 7) & ~(size_t)7, len = sh_off + 4 * 64;
	memset(b, 0, len);
	memcpy(b, "\177ELF", 4);
	b[4] = 2;
	b[5] = 1;
	b[6] = 1;
	le(b + 16, 3, 2);
	le(b + 18, 62, 2);
	le(b + 20, 1, 4);
	le(b + 40, sh_off, 8);
	le(b + 52, 64, 2);
	le(b + 58, 64, 2);
	le(b + 60, 4, 2);
	le(b + 62, 3, 2);
	/* .rodata */
	uint8_t *ro = b + RODATA_OFF;
	memset(ro, 0x11, RODATA_LEN);
	for (size_t i = 0; i < sizeof(rodata_names) / sizeof(rodata_names[0]); i++) {
		const char *t = rodata_names[i].text;
		size_t n = 1 + strlen(t + 1) + 1;
		memcpy(ro + rodata_names[i].off, t, n);
	}
	size_t next = 0;
	for (size_t i = 0; i < sizeof(rodata_fatbins) / sizeof(rodata_fatbins[0]); i++) {
		size_t at = rodata_fatbins[i].off ? rodata_fatbins[i].off : next + rodata_fatbins[i].gap;
		if (rodata_fatbins[i].gap_text)
			memcpy(ro + next, rodata_fatbins[i].gap_text,
			       2 + strlen(rodata_fatbins[i].gap_text + 1));
		next = at + put_fatbin(ro + at, rodata_fatbins[i].sm, rodata_fatbins[i].payload);
	}
	/* a damaged header (version 2) in a gap: counted as bad, not as a container */
	le(ro + (250u << 10), 0xBA55ED50u, 4);
	le(ro + (250u << 10) + 4, 2, 2);
	/* .ldata (writable): a container is found, a library name is not looked for */
	uint8_t *ld = b + ldata_off;
	memset(ld, 0x22, LDATA_LEN);
	memcpy(ld + 1000, "\0libcusparse.so.12\0", 19);
	put_fatbin(ld + (64u << 10) - 24, 52, 5000);
	memcpy(b + shstr_off, shstr, sizeof(shstr));
	const struct {
		uint32_t name, type;
		uint64_t flags, off, size;
	} sh[4] = {
		{ 0, 0, 0, 0, 0 },
		{ 1, 1, 0x2, RODATA_OFF, RODATA_LEN },  /* PROGBITS, ALLOC */
		{ 9, 1, 0x3, ldata_off, LDATA_LEN },    /* PROGBITS, WRITE|ALLOC */
		{ 16, 3, 0, shstr_off, sizeof(shstr) }, /* STRTAB */
	};
	for (int i = 0; i < 4; i++) {
		uint8_t *s = b + sh_off + (size_t)i * 64;
		le(s, sh[i].name, 4);
		le(s + 4, sh[i].type, 4);
		le(s + 8, sh[i].flags, 8);
		le(s + 24, sh[i].off, 8);
		le(s + 32, sh[i].size, 8);
		le(s + 48, 1, 8);
	}
	return len;
}

static void check_census(const struct ga_elf_info *info)
{
	const size_t n_ro = sizeof(rodata_fatbins) / sizeof(rodata_fatbins[0]);
	assert_int_equal(info->n_containers, n_ro + 1);
	assert_int_equal(info->n_images, n_ro + 1);
	assert_int_equal(info->n_bad_containers, 1);
	size_t next = 0;
	for (size_t i = 0; i < n_ro; i++) {
		size_t at = rodata_fatbins[i].off ? rodata_fatbins[i].off : next + rodata_fatbins[i].gap;
		next = at + 80 + rodata_fatbins[i].payload;
		assert_int_equal(info->containers[i].offset, RODATA_OFF + at);
		assert_string_equal(info->containers[i].section, ".rodata");
		char arch[16];
		snprintf(arch, sizeof(arch), "sm_%u", rodata_fatbins[i].sm);
		assert_string_equal(info->images[i].arch, arch);
	}
	assert_string_equal(info->containers[n_ro].section, ".ldata");
	assert_int_equal(info->containers[n_ro].offset, RODATA_OFF + RODATA_LEN + (64u << 10) - 24);
	assert_string_equal(info->images[n_ro].arch, "sm_52");
	static const char *const names[] = { "libcublas.so.13", "libcuda.so.1", "libcufft.so.12",
		                             "libcurand.so.10", "libnvidia-ml.so.1" };
	assert_int_equal(info->n_dlopen_names, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(info->dlopen_names[i], names[i]);
}

static void same(const struct ga_elf_info *a, const struct ga_elf_info *b)
{
	assert_int_equal(a->n_containers, b->n_containers);
	assert_int_equal(a->n_images, b->n_images);
	assert_int_equal(a->n_bad_containers, b->n_bad_containers);
	assert_int_equal(a->bytes_scanned, b->bytes_scanned);
	assert_int_equal(a->bytes_skipped, b->bytes_skipped);
	for (size_t i = 0; i < a->n_containers; i++) {
		assert_int_equal(a->containers[i].offset, b->containers[i].offset);
		assert_int_equal(a->containers[i].size, b->containers[i].size);
	}
	for (size_t i = 0; i < a->n_images; i++) {
		assert_string_equal(a->images[i].arch, b->images[i].arch);
		assert_int_equal(a->images[i].offset, b->images[i].offset);
	}
	assert_int_equal(a->n_dlopen_names, b->n_dlopen_names);
	for (size_t i = 0; i < a->n_dlopen_names; i++)
		assert_string_equal(a->dlopen_names[i], b->dlopen_names[i]);
}

static void test_windows(void **state)
{
	(void)state;
	size_t cap = RODATA_OFF + RODATA_LEN + LDATA_LEN + 4096;
	uint8_t *b = malloc(cap);
	assert_non_null(b);
	size_t len = build(b);
	char path[512];
	snprintf(path, sizeof(path), "%s/windows.so", tmpdir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct ga_elf_info *map = NULL, *win = NULL, *plain = NULL, *plain_win = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &map), 0);
	check_census(map);
	assert_int_equal(ga_elf_inspect_fd(ctx, fd, b, len, 0, &win), 0);
	check_census(win);
	same(map, win);
	ga_ctx_set_no_simd(ctx, true);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &plain), 0);
	assert_int_equal(ga_elf_inspect_fd(ctx, fd, b, len, 0, &plain_win), 0);
	ga_ctx_set_no_simd(ctx, false);
	same(map, plain);
	same(map, plain_win);
	/* a second pass reuses the pread buffer of the first */
	struct ga_elf_info *again = NULL;
	assert_int_equal(ga_elf_inspect_fd(ctx, fd, b, len, 0, &again), 0);
	same(map, again);
	ga_elf_info_free(again);
	ga_elf_info_free(map);
	ga_elf_info_free(win);
	ga_elf_info_free(plain);
	ga_elf_info_free(plain_win);
	close(fd);
	unlink(path);
	free(b);
}

struct worker {
	const uint8_t *b;
	size_t len;
	int fd;
	const struct ga_elf_info *want;
	int mismatches;
};

static void *work(void *arg)
{
	struct worker *wk = arg;
	struct ga_ctx *c = NULL;
	if (ga_ctx_new(&c) < 0) {
		wk->mismatches = -1;
		return NULL;
	}
	for (int i = 0; i < 20; i++) {
		struct ga_elf_info *info = NULL;
		if (ga_elf_inspect_fd(c, wk->fd, wk->b, wk->len, 0, &info) < 0) {
			wk->mismatches++;
			continue;
		}
		if (info->n_containers != wk->want->n_containers ||
		    info->bytes_scanned != wk->want->bytes_scanned ||
		    info->n_dlopen_names != wk->want->n_dlopen_names)
			wk->mismatches++;
		for (size_t k = 0; k < info->n_containers && k < wk->want->n_containers; k++)
			if (info->containers[k].offset != wk->want->containers[k].offset)
				wk->mismatches++;
		ga_elf_info_free(info);
	}
	ga_ctx_free(c);
	return NULL;
}

/* Threads inspecting at once each use their own read buffer. */
static void test_threads(void **state)
{
	(void)state;
	uint8_t *b = malloc(RODATA_OFF + RODATA_LEN + LDATA_LEN + 4096);
	assert_non_null(b);
	size_t len = build(b);
	char path[512];
	snprintf(path, sizeof(path), "%s/threads.so", tmpdir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	struct ga_elf_info *want = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &want), 0);
	struct worker wk[3];
	pthread_t t[3];
	for (int i = 0; i < 3; i++) {
		wk[i] = (struct worker){ b, len, open(path, O_RDONLY), want, 0 };
		assert_true(wk[i].fd >= 0);
		assert_int_equal(pthread_create(&t[i], NULL, work, &wk[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(wk[i].mismatches, 0);
		close(wk[i].fd);
	}
	ga_elf_info_free(want);
	unlink(path);
	free(b);
}

/*
 * A dense chain as cuFFT keeps in .ldata (issue 28): 300 small containers with
 * gaps of 8 bytes to ~6 KiB between them (across the 4 KiB window the scan
 * reads after a container, and the 1 KiB header read-ahead), every third with
 * a second entry after its first payload, and library names in the gaps of
 * the read-only copy. The pread census finds exactly what the mapping census
 * finds, and both find what was placed.
 */
#define DENSE_N 300
#define DENSE_LEN (6u << 20)

/* 1: the tight layout: payloads of 700 B to 4 KiB, 0 to 60 bytes between containers,
 * so the header read-ahead that follows a chain's stride (2d + 1 KiB after a
 * read-ahead d <= 8 KiB back) ends anywhere in the next containers' headers */
static int dense_tight;

static size_t dense_gap(size_t i)
{
	if (dense_tight)
		return ((i * 13) % 64) & ~(size_t)3;
	return (8 + (i * 797) % 6200) & ~(size_t)3;
}

static size_t put_dense(uint8_t *p, size_t i)
{
	size_t payload =
	        dense_tight ? (700 + (i * 331) % 3400) & ~(size_t)3 : (3000 + (i * 331) % 12000) & ~(size_t)3;
	size_t n = put_fatbin(p, 80 + (unsigned)(i % 3), payload);
	if (i % 3 == 0) {
		/* a second entry after the first payload (its header read on its own) */
		uint8_t *e = p + n;
		memset(e, 0, 64);
		le(e, 1, 2); /* PTX */
		le(e + 4, 64, 4);
		le(e + 8, 500, 8);
		le(e + 0x18, 8, 2);
		le(e + 0x1A, 8, 2);
		le(e + 0x1C, 90, 4);
		memset(e + 64, 0x5b, 500);
		n += 64 + 500;
		le(p + 8, n - 16, 8);
	}
	return n;
}

static size_t build_dense(uint8_t *b, size_t *offs)
{
	static const char shstr[] = "\0.rodata\0.ldata\0.shstrtab";
	static const char *const names[] = { "libcuda.so.1", "libcufft.so.12", "libnvidia-ml.so.1" };
	const size_t ro_off = 0x1000, ld_off = ro_off + DENSE_LEN, shstr_off = ld_off + DENSE_LEN;
	const size_t sh_off = (shstr_off + sizeof(shstr) + 7) & ~(size_t)7, len = sh_off + 4 * 64;
	memset(b, 0, len);
	memcpy(b, "\177ELF", 4);
	b[4] = 2;
	b[5] = 1;
	b[6] = 1;
	le(b + 16, 3, 2);
	le(b + 18, 62, 2);
	le(b + 20, 1, 4);
	le(b + 40, sh_off, 8);
	le(b + 52, 64, 2);
	le(b + 58, 64, 2);
	le(b + 60, 4, 2);
	le(b + 62, 3, 2);
	memset(b + ro_off, 0x33, 2 * DENSE_LEN);
	size_t k = 0;
	for (int sec = 0; sec < 2; sec++) {
		uint8_t *base = b + (sec ? ld_off : ro_off);
		size_t at = 64;
		for (size_t i = 0; i < DENSE_N; i++) {
			size_t n = put_dense(base + at, i);
			offs[k++] = (size_t)(base - b) + at;
			size_t gap = dense_gap(i);
			if (gap >= 40 && i % 7 == 0) {
				const char *nm = names[(i / 7) % 3];
				memcpy(base + at + n + 4, nm, strlen(nm) + 1);
			}
			at += n + gap;
		}
		assert_true(at < DENSE_LEN);
	}
	memcpy(b + shstr_off, shstr, sizeof(shstr));
	const struct {
		uint32_t name, type;
		uint64_t flags, off, size;
	} sh[4] = {
		{ 0, 0, 0, 0, 0 },
		{ 1, 1, 0x2, ro_off, DENSE_LEN }, /* PROGBITS, ALLOC */
		{ 9, 1, 0x3, ld_off, DENSE_LEN }, /* PROGBITS, WRITE|ALLOC */
		{ 16, 3, 0, shstr_off, sizeof(shstr) },
	};
	for (int i = 0; i < 4; i++) {
		uint8_t *s = b + sh_off + (size_t)i * 64;
		le(s, sh[i].name, 4);
		le(s + 4, sh[i].type, 4);
		le(s + 8, sh[i].flags, 8);
		le(s + 24, sh[i].off, 8);
		le(s + 32, sh[i].size, 8);
		le(s + 48, 1, 8);
	}
	return len;
}

static void dense_chain(void)
{
	uint8_t *b = malloc(0x1000 + 2 * DENSE_LEN + 4096);
	size_t *offs = malloc(2 * DENSE_N * sizeof(size_t));
	assert_non_null(b);
	assert_non_null(offs);
	size_t len = build_dense(b, offs);
	char path[512];
	snprintf(path, sizeof(path), "%s/dense.so", tmpdir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct ga_elf_info *map = NULL, *win = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &map), 0);
	assert_int_equal(ga_elf_inspect_fd(ctx, fd, b, len, 0, &win), 0);
	const size_t n_img = 2 * (DENSE_N + (DENSE_N + 2) / 3);
	for (int k = 0; k < 2; k++) {
		const struct ga_elf_info *info = k ? win : map;
		assert_int_equal(info->n_containers, 2 * DENSE_N);
		assert_int_equal(info->n_images, n_img);
		assert_int_equal(info->n_bad_containers, 0);
		for (size_t i = 0; i < 2 * DENSE_N; i++)
			assert_int_equal(info->containers[i].offset, offs[i]);
		/* names in the read-only copy only */
		assert_int_equal(info->n_dlopen_names, 3);
		assert_string_equal(info->dlopen_names[0], "libcuda.so.1");
		assert_string_equal(info->dlopen_names[1], "libcufft.so.12");
		assert_string_equal(info->dlopen_names[2], "libnvidia-ml.so.1");
	}
	same(map, win);
	ga_elf_info_free(map);
	ga_elf_info_free(win);
	close(fd);
	unlink(path);
	free(offs);
	free(b);
}

static void test_dense_chain(void **state)
{
	(void)state;
	dense_tight = 0;
	dense_chain();
}

static void test_dense_chain_tight(void **state)
{
	(void)state;
	dense_tight = 1;
	dense_chain();
	dense_tight = 0;
}

static int setup(void **state)
{
	(void)state;
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/ga-elfwin-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	return ga_ctx_new(&ctx);
}

static int teardown(void **state)
{
	(void)state;
	rmdir(tmpdir);
	ga_ctx_free(ctx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_dense_chain),
		cmocka_unit_test(test_dense_chain_tight),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
