/*
 * test_elfscan.c - the ELF and device-code census on files built at test time
 * (tests/fixtures/deps/build-elf.sh: gcc + objcopy) and on the blobs that
 * tests/fixtures/deps/mkdevcode.py writes from the documented layouts; hostile
 * inputs (every truncation, corrupted fields, random mutations), allocation
 * failures, the vendor soname table and $ORIGIN expansion.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/elfscan.h"
#include "gpuaudit/elfscan-analyze.h"

#define GA_ARRAY_SIZE_T(a) (sizeof(a) / sizeof((a)[0]))

static char tmpdir[256];
static struct ga_ctx *ctx;

static const char *fixtures(void)
{
	const char *f = getenv("GA_FIXTURES");
	return f ? f : "tests/fixtures";
}

/* Whole file into a heap block of exactly its size (ASan sees any overread). */
static uint8_t *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*ret_len = (size_t)n;
	return b;
}

static uint8_t *built(const char *rel, size_t *len)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	uint8_t *b = slurp(p, len);
	assert_non_null(b);
	return b;
}

static uint8_t *fixture(const char *rel, size_t *len)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/deps/%s", fixtures(), rel);
	uint8_t *b = slurp(p, len);
	assert_non_null(b);
	return b;
}

static int setup(void **state)
{
	(void)state;
	if (ga_ctx_new(&ctx) < 0)
		return -1;
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/ga-elfscan-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "sh '%s/deps/build-elf.sh' '%s' >'%s/build.log' 2>&1", fixtures(), tmpdir,
	         tmpdir);
	if (system(cmd) != 0) {
		fprintf(stderr, "build-elf.sh failed, see %s/build.log\n", tmpdir);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (tmpdir[0] && system(cmd) != 0)
		return -1;
	ga_ctx_free(ctx);
	return 0;
}

static bool has_str(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static const struct ga_devcode_image *find_image(const struct ga_elf_info *info, enum ga_devcode_format fmt,
                                                 const char *arch)
{
	for (size_t i = 0; i < info->n_images; i++)
		if (info->containers[info->images[i].container].format == fmt &&
		    !strcmp(info->images[i].arch, arch))
			return &info->images[i];
	return NULL;
}

/* ---- vendor table, $ORIGIN, PTX ISA ---------------------------------------------------- */

static void test_vendor_table(void **state)
{
	(void)state;
	struct ga_vendor_match m;
	const struct ga_vendor_lib *l = ga_vendor_lib_find("libcudart.so.12", &m);
	assert_non_null(l);
	assert_int_equal(l->backend, GA_DEP_CUDA);
	assert_false(l->flags & GA_VLIB_DRIVER);
	assert_int_equal(m.soname_major, 12);
	assert_int_equal(m.runtime_major, 12);
	assert_false(m.renamed);

	l = ga_vendor_lib_find("/opt/x/libcuda.so.1", &m);
	assert_non_null(l);
	assert_true(l->flags & GA_VLIB_DRIVER);
	assert_int_equal(m.runtime_major, -1); /* libcuda's soname does not tell the CUDA version */
	assert_non_null(ga_vendor_lib_find("libnvidia-ml.so.1", NULL));
	assert_true(ga_vendor_lib_find("libnvidia-ml.so.1", NULL)->flags & GA_VLIB_DRIVER);

	/* auditwheel rename */
	l = ga_vendor_lib_find("libcudart-1a2b3c4d.so.11.0", &m);
	assert_non_null(l);
	assert_string_equal(l->stem, "libcudart");
	assert_true(m.renamed);
	assert_int_equal(m.soname_major, 11);
	assert_int_equal(m.soname_minor, 0);
	assert_int_equal(m.runtime_major, 11);

	/* CUDA 13 ships libcufft.so.12: no runtime major from it */
	l = ga_vendor_lib_find("libcufft.so.12", &m);
	assert_non_null(l);
	assert_int_equal(m.soname_major, 12);
	assert_int_equal(m.runtime_major, -1);

	l = ga_vendor_lib_find("libamdhip64.so.6", &m);
	assert_non_null(l);
	assert_int_equal(l->backend, GA_DEP_ROCM);
	assert_int_equal(m.runtime_major, 6);
	assert_int_equal(ga_vendor_lib_find("libze_loader.so.1", NULL)->backend, GA_DEP_LEVEL_ZERO);
	assert_true(ga_vendor_lib_find("libOpenCL.so.1", NULL)->flags & GA_VLIB_NEUTRAL);
	assert_int_equal(ga_vendor_lib_find("libOpenCL.so.1", NULL)->backend, GA_DEP_OPENCL);
	assert_int_equal(ga_vendor_lib_find("libvulkan.so.1", NULL)->backend, GA_DEP_VULKAN);
	assert_int_equal(ga_vendor_lib_find("libopenblas.so.0", NULL)->backend, GA_DEP_CPU);
	/* prefix rules, and exact names before them */
	assert_string_equal(ga_vendor_lib_find("libcudnn_ops.so.9", NULL)->stem, "libcudnn_*");
	assert_string_equal(ga_vendor_lib_find("libnppial.so.13", NULL)->stem, "libnpp*");
	assert_string_equal(ga_vendor_lib_find("libcublasLt.so.13", NULL)->stem, "libcublasLt");
	assert_string_equal(ga_vendor_lib_find("libnvrtc-builtins.alt.so.13.0", NULL)->stem,
	                    "libnvrtc-builtins*");
	/* dev symlink without a version */
	l = ga_vendor_lib_find("libcublas.so", &m);
	assert_non_null(l);
	assert_int_equal(m.soname_major, -1);
	/* not vendor libraries */
	assert_null(ga_vendor_lib_find("libc.so.6", NULL));
	assert_null(ga_vendor_lib_find("libcudartx.so.12", NULL));
	assert_null(ga_vendor_lib_find("cudart.so.12", NULL));
	assert_null(ga_vendor_lib_find("libcuda.sox", NULL));
	assert_null(ga_vendor_lib_find("libcuda-zzzzzzzz.so.1", NULL)); /* not hex */
	assert_null(ga_vendor_lib_find(NULL, NULL));
	size_t n = 0;
	assert_non_null(ga_vendor_lib_table(&n));
	assert_true(n > 80);
	assert_string_equal(ga_dep_backend_name(GA_DEP_LEVEL_ZERO), "level-zero");
	assert_string_equal(ga_dep_backend_name((enum ga_dep_backend)99), "none");
}

static void expect_dirs(const char *list, const char *origin, const char *const *want, size_t n_want)
{
	char **d = NULL;
	size_t n = 0;
	assert_int_equal(ga_elf_expand_origin(list, origin, NULL, NULL, &d, &n), 0);
	assert_int_equal(n, n_want);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(d[i], want[i]);
	ga_elf_strv_free(d, n);
}

static void test_expand_origin(void **state)
{
	(void)state;
	const char *w1[] = { "/site-packages/nvidia/cublas/lib" };
	expect_dirs("$ORIGIN/../../nvidia/cublas/lib", "/site-packages/torch/lib", w1, 1);
	const char *w2[] = { "/a/b", "/a/b/lib", "/opt/rocm/lib", "/usr/lib/x86_64-linux-gnu/x86_64" };
	expect_dirs("$ORIGIN:${ORIGIN}/lib::/opt/rocm/lib/:/usr/$LIB/$PLATFORM", "/a/b", w2, 4);
	/* $ORIGINX is not $ORIGIN; .. above the root stays at the root */
	const char *w3[] = { "/x/$ORIGINX", "/" };
	expect_dirs("/x/$ORIGINX:$ORIGIN/../../..", "/a", w3, 2);
	/* relative origin (a path inside an archive) */
	const char *w4[] = { "pkg/nvidia/cu13/lib", "../lib" };
	expect_dirs("$ORIGIN/../nvidia/cu13/lib:../lib", "pkg/torch", w4, 2);
	const char *w5[] = { "." };
	expect_dirs("$ORIGIN/x/..", NULL, w5, 1);
	char **d = NULL;
	size_t n = 9;
	assert_int_equal(ga_elf_expand_origin("", "/a", NULL, NULL, &d, &n), 0);
	assert_int_equal(n, 0);
	ga_elf_strv_free(d, n);
}

static void test_ptx_isa(void **state)
{
	(void)state;
	assert_int_equal(ga_ptx_isa_min_cuda(8, 4), 12040);
	assert_int_equal(ga_ptx_isa_min_cuda(8, 6), 12070);
	assert_int_equal(ga_ptx_isa_min_cuda(9, 1), 13010);
	assert_int_equal(ga_ptx_isa_min_cuda(9, 2), 13020);
	assert_int_equal(ga_ptx_isa_min_cuda(7, 0), 11000);
	assert_int_equal(ga_ptx_isa_min_cuda(6, 4), -1);
	assert_int_equal(ga_ptx_isa_min_cuda(9, 9), -1);
}

/* ---- files built at test time --------------------------------------------------------- */

static void check_user_devcode(const struct ga_elf_info *info)
{
	/* .rodata container (1), .nv_fatbin chain (2), .hip_fatbin bundle (1), 2 offload binaries */
	assert_int_equal(info->n_by_format[GA_DEVCODE_CUDA_FATBIN], 3);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_BUNDLE], 1);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_CCOB], 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_LLVM_OFFLOAD], 2);
	assert_int_equal(info->n_containers, 6);
	assert_int_equal(info->n_images, 2 + 6 + 4 + 2);
	assert_int_equal(info->n_bad_containers, 0);
	assert_false(info->devcode_truncated);

	const struct ga_devcode_image *im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_86");
	assert_non_null(im);
	assert_string_equal(info->containers[im->container].section, ".rodata");
	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "compute_89");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_PTX);
	assert_int_equal(im->ptx_isa_major, 8);
	assert_int_equal(im->ptx_isa_minor, 8);

	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_80");
	assert_non_null(im);
	const struct ga_devcode_container *c = &info->containers[im->container];
	assert_string_equal(c->section, ".nv_fatbin");
	assert_int_equal(c->n_images, 5);
	assert_int_equal(c->size, 16 + 0x218);
	assert_int_equal(im->kind, GA_CODE_CUBIN);
	assert_int_equal(im->sm, 80);
	assert_false(im->arch_specific);
	assert_false(im->family);
	assert_int_equal(im->code_version_major, 1);
	assert_int_equal(im->code_version_minor, 8);
	assert_int_equal(im->compression, GA_COMP_NONE);
	assert_int_equal(im->offset, c->offset + 16 + 64);

	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_90a");
	assert_non_null(im);
	assert_int_equal(im->sm, 90);
	assert_true(im->arch_specific);
	assert_null(find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_90"));

	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "compute_90");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_PTX);
	assert_int_equal(im->ptx_isa_major, 8);
	assert_int_equal(im->ptx_isa_minor, 4);

	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "lto_100f");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_LTOIR);
	assert_true(im->family);

	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_120");
	assert_non_null(im);
	assert_int_equal(im->compression, GA_COMP_ZSTD);
	assert_int_equal(im->size, 24);
	assert_int_equal(im->uncompressed_size, 4096);

	/* second container of the chain: 72-byte entry header honoured */
	im = find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_75");
	assert_non_null(im);
	c = &info->containers[im->container];
	assert_int_equal(c->n_images, 1);
	assert_int_equal(im->offset, c->offset + 16 + 72);

	im = find_image(info, GA_DEVCODE_HIP_BUNDLE, "gfx90a:xnack+");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_CODE_OBJECT);
	assert_string_equal(im->bundle_id, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
	assert_string_equal(info->containers[im->container].section, ".hip_fatbin");
	assert_int_equal(im->size, 64);
	im = find_image(info, GA_DEVCODE_HIP_BUNDLE, "gfx942:sramecc+:xnack-");
	assert_non_null(im);
	im = find_image(info, GA_DEVCODE_HIP_BUNDLE, "x86_64-unknown-linux");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_HOST);
	im = find_image(info, GA_DEVCODE_HIP_BUNDLE, "amdgcnspirv");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_SPIRV);

	im = find_image(info, GA_DEVCODE_LLVM_OFFLOAD, "gfx90a");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_CODE_OBJECT);
	assert_string_equal(im->bundle_id, "amdgcn-amd-amdhsa");
	im = find_image(info, GA_DEVCODE_LLVM_OFFLOAD, "sm_90a");
	assert_non_null(im);
	assert_int_equal(im->kind, GA_CODE_CUBIN);
	assert_int_equal(im->sm, 90);
	assert_true(im->arch_specific);
	assert_int_equal(im->size, 64);
}

static void test_user_library(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = built("lib/libuser.so", &len);
	struct ga_elf_info *info = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->elf_class, 64);
	assert_false(info->big_endian);
	assert_int_equal(info->machine, 62);
	assert_string_equal(info->machine_name, "x86-64");
	assert_string_equal(info->type_name, "dyn");
	assert_null(info->device_arch);
	assert_string_equal(info->soname, "libuser.so.1");
	assert_true(has_str(info->needed, info->n_needed, "libcudart.so.12"));
	assert_true(has_str(info->needed, info->n_needed, "libcublas.so.12"));
	assert_true(has_str(info->needed, info->n_needed, "libc.so.6"));
	assert_string_equal(info->needed[0], "libcudart.so.12"); /* link order kept */
	assert_string_equal(info->rpath, "$ORIGIN/../../nvidia/cublas/lib");
	assert_null(info->runpath);
	assert_null(info->interp);

	/* soft dependencies: vendor names from string data, sorted, no "libnotavendor.so.3" */
	const char *want[] = { "libamdhip64.so.6",  "libcuda.so.1",   "libcudart.so.12",
		               "libnvidia-ml.so.1", "libnvrtc.so.13", "libze_loader.so.1" };
	assert_int_equal(info->n_dlopen_names, GA_ARRAY_SIZE_T(want));
	for (size_t i = 0; i < info->n_dlopen_names; i++)
		assert_string_equal(info->dlopen_names[i], want[i]);

	assert_int_equal(info->n_note_dlopen, 2);
	assert_string_equal(info->note_dlopen[0].feature, "gpu");
	assert_string_equal(info->note_dlopen[0].priority, "recommended");
	assert_string_equal(info->note_dlopen[0].description, "CUDA acceleration");
	assert_int_equal(info->note_dlopen[0].n_sonames, 2);
	assert_string_equal(info->note_dlopen[0].sonames[1], "libcudart.so.12");
	assert_string_equal(info->note_dlopen[1].sonames[0], "libamdhip64.so.6");
	assert_null(info->note_dlopen[1].description);
	assert_non_null(strstr(info->note_dlopen[1].json, "\"suggested\""));

	assert_int_equal(info->x86_isa_level, 3);
	assert_true(info->x86_isa_needed & 4);
	assert_false(info->static_cudart); /* links libcudart dynamically */
	assert_true(info->static_cudart_markers & GA_CUDART_LIBCUDA_STRING);
	check_user_devcode(info);
	assert_true(info->bytes_skipped > 0);
	ga_elf_info_free(info);

	/* through pread: the same census */
	char p[512];
	snprintf(p, sizeof(p), "%s/lib/libuser.so", tmpdir);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ga_elf_inspect_fd(ctx, fd, b, len, 0, &info), 0);
	check_user_devcode(info);
	assert_int_equal(info->n_dlopen_names, GA_ARRAY_SIZE_T(want));
	ga_elf_info_free(info);
	close(fd);

	/* fast listing: no scan */
	assert_int_equal(ga_elf_inspect(ctx, b, len, GA_ELF_NO_DEVICE_CODE, &info), 0);
	assert_int_equal(info->n_containers, 0);
	assert_int_equal(info->n_dlopen_names, 0);
	assert_int_equal(info->n_needed >= 3, 1);
	assert_string_equal(info->rpath, "$ORIGIN/../../nvidia/cublas/lib");
	assert_int_equal(info->x86_isa_level, 3);
	assert_int_equal(info->n_note_dlopen, 2);
	ga_elf_info_free(info);
	free(b);
}

static void test_runpath_and_static(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = built("lib/librunpath.so", &len);
	struct ga_elf_info *info = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_null(info->rpath);
	assert_string_equal(info->runpath, "$ORIGIN/../lib:/opt/rocm/lib");
	assert_null(info->soname);
	assert_int_equal(info->n_containers, 0);
	assert_int_equal(info->n_dlopen_names, 0);
	assert_false(info->static_cudart);
	assert_int_equal(info->static_cudart_markers, 0);
	ga_elf_info_free(info);
	free(b);

	b = built("lib/libstatic.so", &len);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_true(info->static_cudart);
	assert_int_equal(info->static_cudart_markers, GA_CUDART_SYM_STATIC | GA_CUDART_SYM_REGISTER |
	                                                      GA_CUDART_FATBIN_SEGMENT |
	                                                      GA_CUDART_LIBCUDA_STRING);
	assert_true(has_str(info->dlopen_names, info->n_dlopen_names, "libcuda.so.1"));
	ga_elf_info_free(info);
	free(b);
}

static void test_ccob(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = built("lib/libccob.so", &len);
	struct ga_elf_info *info = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_CCOB], 2);
	assert_int_equal(info->n_images, 6);
	const struct ga_devcode_container *c = &info->containers[0];
	assert_int_equal(c->version, 2);
	assert_int_equal(c->compression, GA_COMP_ZLIB);
	assert_true(c->ids_known);
	assert_int_equal(c->n_images, 3);
	c = &info->containers[1];
	assert_int_equal(c->version, 3);
	assert_int_equal(c->compression, GA_COMP_ZSTD);
	assert_true(c->ids_known);
	assert_int_equal(c->offset, info->containers[0].offset + 4096);
	const struct ga_devcode_image *im = &info->images[c->first_image + 1];
	assert_string_equal(im->arch, "gfx1100");
	assert_string_equal(im->bundle_id, "hipv4-amdgcn-amd-amdhsa--gfx1100");
	assert_int_equal(im->compression, GA_COMP_ZSTD);
	assert_int_equal(im->uncompressed_size, 64);
	assert_int_equal(info->images[c->first_image].kind, GA_CODE_HOST);
	assert_true(has_str(info->needed, info->n_needed, "libcudart.so.12"));
	ga_elf_info_free(info);

	assert_int_equal(ga_elf_inspect(ctx, b, len, GA_ELF_NO_DECOMPRESS, &info), 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_CCOB], 2);
	assert_int_equal(info->n_images, 0);
	assert_false(info->containers[0].ids_known);
	assert_int_equal(info->containers[1].uncompressed_size, info->containers[0].uncompressed_size);
	ga_elf_info_free(info);
	free(b);
}

static void test_blobs(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		enum ga_devcode_format fmt;
		size_t containers, images;
	} cases[] = {
		{ "fatbin.bin", GA_DEVCODE_CUDA_FATBIN, 2, 6 },
		{ "bundle.bin", GA_DEVCODE_HIP_BUNDLE, 1, 4 },
		{ "ccob-v2-zlib.bin", GA_DEVCODE_HIP_CCOB, 1, 3 },
		{ "ccob-v3-zstd.bin", GA_DEVCODE_HIP_CCOB, 1, 3 },
		{ "offload.bin", GA_DEVCODE_LLVM_OFFLOAD, 2, 2 },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE_T(cases); i++) {
		size_t len;
		uint8_t *b = fixture(cases[i].file, &len);
		struct ga_elf_info *info = NULL;
		assert_int_equal(ga_devcode_inspect_blob(ctx, b, len, 0, &info), 0);
		assert_int_equal(info->elf_class, 0);
		assert_int_equal(info->n_containers, cases[i].containers);
		assert_int_equal(info->n_by_format[cases[i].fmt], cases[i].containers);
		assert_int_equal(info->n_images, cases[i].images);
		assert_int_equal(info->n_bad_containers, 0);
		assert_string_equal(info->containers[0].section, "");
		ga_elf_info_free(info);
		free(b);
	}
	/* not device code at all */
	struct ga_elf_info *info = NULL;
	assert_int_equal(ga_devcode_inspect_blob(ctx, (const uint8_t *)"hello world", 11, 0, &info), 0);
	assert_int_equal(info->n_containers, 0);
	ga_elf_info_free(info);
	assert_int_equal(ga_devcode_inspect_blob(ctx, NULL, 0, 0, &info), 0);
	ga_elf_info_free(info);
}

/* A minimal ELF64 header (no sections, no segments) for a device-code object. */
static void device_header(uint8_t h[64], uint16_t machine, uint8_t osabi, uint32_t flags)
{
	memset(h, 0, 64);
	memcpy(h, "\177ELF\2\1\1", 7);
	h[7] = osabi;
	h[16] = 1; /* ET_REL... a cubin is ET_EXEC; irrelevant here */
	h[18] = (uint8_t)machine;
	h[19] = (uint8_t)(machine >> 8);
	h[48] = (uint8_t)flags;
	h[49] = (uint8_t)(flags >> 8);
	h[50] = (uint8_t)(flags >> 16);
	h[51] = (uint8_t)(flags >> 24);
}

static void test_device_objects(void **state)
{
	(void)state;
	uint8_t *h = malloc(64);
	assert_non_null(h);
	struct ga_elf_info *info = NULL;
	static const struct {
		uint16_t machine;
		uint8_t osabi;
		uint32_t flags;
		const char *arch;
		enum ga_dep_backend backend;
	} cases[] = {
		{ 190, 0x41, 90u << 8, "sm_90", GA_DEP_CUDA },             /* CUDA 13 ABI */
		{ 190, 0x33, 0x50050, "sm_80", GA_DEP_CUDA },              /* old ABI: bits 0-7 */
		{ 224, 0x40, 0x3f | 0x300, "gfx90a:xnack+", GA_DEP_ROCM }, /* code object */
		{ 224, 0x40, 0x4c | 0xC00 | 0x200, "gfx942:sramecc+:xnack-", GA_DEP_ROCM },
		{ 224, 0x40, 0x36 | 0x100 | 0x400, "gfx1030", GA_DEP_ROCM }, /* any/any: no suffix */
		{ 224, 0x40, 0x7e, "amdgcn-0x7e", GA_DEP_ROCM },
		{ 205, 0, 0, "intel-gt", GA_DEP_LEVEL_ZERO },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE_T(cases); i++) {
		device_header(h, cases[i].machine, cases[i].osabi, cases[i].flags);
		assert_int_equal(ga_elf_inspect(ctx, h, 64, 0, &info), 0);
		assert_string_equal(info->device_arch, cases[i].arch);
		assert_int_equal(info->device_backend, cases[i].backend);
		assert_int_equal(info->n_needed, 0);
		ga_elf_info_free(info);
	}
	free(h);
}

/* ---- bad input ------------------------------------------------------------------------ */

static void test_not_elf(void **state)
{
	(void)state;
	struct ga_elf_info *info = (struct ga_elf_info *)&info; /* must stay untouched */
	assert_int_equal(ga_elf_inspect(ctx, (const uint8_t *)"hello", 5, 0, &info), -ENOEXEC);
	assert_ptr_equal(info, (struct ga_elf_info *)&info);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "not an ELF"));
	assert_int_equal(ga_elf_inspect(ctx, (const uint8_t *)"\177ELF\2\1", 6, 0, &info), -ENOEXEC);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "truncated"));
	uint8_t h[64];
	device_header(h, 62, 0, 0);
	h[4] = 3; /* bad class */
	assert_int_equal(ga_elf_inspect(ctx, h, 64, 0, &info), -ENOEXEC);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "class"));
	assert_false(ga_elf_probe(NULL, 0));
	assert_false(ga_elf_probe((const uint8_t *)"\177EL", 3));
}

/* Inspect a private copy of exactly len bytes (ASan catches any read past it). */
static int inspect_copy(const uint8_t *src, size_t len, unsigned flags)
{
	uint8_t *c = malloc(len ? len : 1);
	assert_non_null(c);
	memcpy(c, src, len);
	struct ga_elf_info *info = NULL;
	int r = ga_elf_inspect(ctx, c, len, flags, &info);
	if (r == 0) {
		/* every reported range lies inside the buffer */
		for (size_t i = 0; i < info->n_containers; i++)
			assert_true(info->containers[i].offset + info->containers[i].size <= len);
		for (size_t i = 0; i < info->n_images; i++)
			assert_true(info->images[i].compression != GA_COMP_NONE ||
			            info->images[i].offset + info->images[i].size <= len);
	}
	ga_elf_info_free(info);
	free(c);
	return r;
}

/* ---- both classes, both byte orders: a minimal ELF written here ----------------------- */

struct wr {
	uint8_t *b;
	bool be, is64;
};

static void wput(const struct wr *w, size_t off, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		w->b[off + (size_t)(w->be ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void waddr(const struct wr *w, size_t off, uint64_t v)
{
	wput(w, off, v, w->is64 ? 8 : 4);
}

/*
 * ELF header, PT_LOAD over the whole file at vaddr 0x10000, PT_DYNAMIC, a
 * string table and a dynamic section; no section headers (the loader's view).
 */
static size_t build_minimal(uint8_t *b, bool is64, bool be, uint16_t machine)
{
	struct wr w = { b, be, is64 };
	const size_t eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, dyn = is64 ? 16 : 8;
	static const char strs[] = "\0libfoo.so.1\0libcudart.so.11.0\0$ORIGIN/../lib\0libbe.so.2";
	const size_t str_off = eh + 2 * ph, dyn_off = (str_off + sizeof(strs) + 7) & ~(size_t)7;
	const size_t len = dyn_off + 7 * dyn;
	const uint64_t base = 0x10000;
	memset(b, 0, len);
	memcpy(b, "\177ELF", 4);
	b[4] = is64 ? 2 : 1;
	b[5] = be ? 2 : 1;
	b[6] = 1;
	wput(&w, 16, 3, 2); /* ET_DYN */
	wput(&w, 18, machine, 2);
	wput(&w, 20, 1, 4);
	waddr(&w, is64 ? 32 : 28, eh); /* e_phoff */
	wput(&w, is64 ? 52 : 40, eh, 2);
	wput(&w, is64 ? 54 : 42, ph, 2);
	wput(&w, is64 ? 56 : 44, 2, 2); /* e_phnum */
	wput(&w, is64 ? 58 : 46, is64 ? 64 : 40, 2);
	for (int i = 0; i < 2; i++) {
		size_t p = eh + (size_t)i * ph;
		uint64_t off = i ? dyn_off : 0, sz = i ? 7 * dyn : len;
		wput(&w, p, i ? 2 : 1, 4); /* PT_DYNAMIC / PT_LOAD */
		if (is64) {
			wput(&w, p + 8, off, 8);
			wput(&w, p + 16, base + off, 8);
			wput(&w, p + 32, sz, 8);
			wput(&w, p + 40, sz, 8);
		} else {
			wput(&w, p + 4, off, 4);
			wput(&w, p + 8, base + off, 4);
			wput(&w, p + 16, sz, 4);
			wput(&w, p + 20, sz, 4);
		}
	}
	memcpy(b + str_off, strs, sizeof(strs));
	const uint64_t dt[7][2] = {
		{ 1, 1 },              /* DT_NEEDED libfoo.so.1 */
		{ 1, 13 },             /* DT_NEEDED libcudart.so.11.0 */
		{ 14, 46 },            /* DT_SONAME libbe.so.2 */
		{ 29, 31 },            /* DT_RUNPATH $ORIGIN/../lib */
		{ 5, base + str_off }, /* DT_STRTAB (a virtual address) */
		{ 10, sizeof(strs) },  /* DT_STRSZ */
		{ 0, 0 },
	};
	for (int i = 0; i < 7; i++) {
		waddr(&w, dyn_off + (size_t)i * dyn, dt[i][0]);
		waddr(&w, dyn_off + (size_t)i * dyn + dyn / 2, dt[i][1]);
	}
	return len;
}

/* ---- symbol versions (.gnu.version_r) ------------------------------------------------ */

static void test_symver_names(void **state)
{
	(void)state;
	assert_true(ga_symver_cmp("2.9", "2.34") < 0);
	assert_true(ga_symver_cmp("2.34", "2.34") == 0);
	assert_true(ga_symver_cmp("3.4.32", "3.4.9") > 0);
	assert_true(ga_symver_cmp("3.4", "3.4.1") < 0);
	assert_true(ga_symver_cmp("2.2.5", "2.3") < 0);
	struct ga_elf_info *info = calloc(1, sizeof(*info));
	assert_non_null(info);
	const char *names[] = { "GLIBC_2.2.5",    "GLIBC_2.34",        "GLIBC_PRIVATE",
		                "GLIBC_2.9",      "GLIBC_ABI_DT_RELR", "GLIBCXX_3.4.9",
		                "GLIBCXX_3.4.32", "GLIBCXX_TUNABLES",  "CXXABI_1.3.15",
		                "CXXABI_TM_1",    "GCC_3.0",           "GCC_4.2.0",
		                "GCC_",           "GLIBC_2.",          "GLIBC_2..3",
		                "OTHER_9.9" };
	for (size_t i = 0; i < GA_ARRAY_SIZE_T(names); i++)
		ga_symver_note(info, names[i]);
	assert_string_equal(info->glibc_needed, "2.34");
	assert_string_equal(info->glibcxx_needed, "3.4.32");
	assert_string_equal(info->cxxabi_needed, "1.3.15");
	assert_string_equal(info->gcc_needed, "4.2.0");
	free(info);
}

/*
 * The highest versions readelf -V lists under "Version needs section", filed
 * the same way, into want. false when readelf is missing or failed.
 */
static bool readelf_needs(const char *path, struct ga_elf_info *want)
{
	char cmd[1024], line[1024];
	snprintf(cmd, sizeof(cmd), "readelf -V --wide '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	bool in_needs = false, any = false;
	while (fgets(line, sizeof(line), p)) {
		any = true;
		if (strstr(line, "section '")) {
			in_needs = strstr(line, "Version needs section") != NULL;
			continue;
		}
		const char *n = in_needs ? strstr(line, "Name: ") : NULL;
		if (!n)
			continue;
		n += 6;
		char name[128];
		size_t k = 0;
		while (n[k] && n[k] != ' ' && n[k] != '\n' && k < sizeof(name) - 1) {
			name[k] = n[k];
			k++;
		}
		name[k] = '\0';
		ga_symver_note(want, name);
	}
	return pclose(p) == 0 && any;
}

/* path's versions as ga_elf_inspect reads them equal readelf's; false when skipped. */
static bool check_against_readelf(const char *path, struct ga_elf_info **ret)
{
	size_t len;
	uint8_t *b = slurp(path, &len);
	if (!b)
		return false;
	struct ga_elf_info *want = calloc(1, sizeof(*want));
	assert_non_null(want);
	bool ok = readelf_needs(path, want);
	if (ok) {
		struct ga_elf_info *info = NULL;
		assert_int_equal(ga_elf_inspect(ctx, b, len, GA_ELF_NO_DEVICE_CODE, &info), 0);
		assert_null(info->damage);
		assert_string_equal(info->glibc_needed, want->glibc_needed);
		assert_string_equal(info->glibcxx_needed, want->glibcxx_needed);
		assert_string_equal(info->cxxabi_needed, want->cxxabi_needed);
		assert_string_equal(info->gcc_needed, want->gcc_needed);
		if (ret)
			*ret = info;
		else
			ga_elf_info_free(info);
	}
	free(want);
	free(b);
	return ok;
}

static void test_symver_real(void **state)
{
	(void)state;
	if (system("command -v readelf >/dev/null 2>&1") != 0) {
		print_message("readelf not installed: symbol versions check skipped\n");
		skip();
	}
	const char *libs[] = { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		               "/usr/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		               "/usr/lib/aarch64-linux-gnu/libstdc++.so.6",
		               "/usr/lib/aarch64-linux-gnu/libm.so.6" };
	int checked = 0;
	for (size_t i = 0; i < GA_ARRAY_SIZE_T(libs); i++)
		checked += check_against_readelf(libs[i], NULL);
	/* a library built here that calls memcpy: GLIBC_2.14 on x86-64 (memcpy@@GLIBC_2.14) */
	char src[512], so[512], cmd[2048];
	snprintf(src, sizeof(src), "%s/symver.c", tmpdir);
	snprintf(so, sizeof(so), "%s/libsymver.so", tmpdir);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs("#include <string.h>\nvoid *cp(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -O1 -fno-builtin -o '%s' '%s' 2>/dev/null", so, src);
	if (system(cmd) == 0) {
		struct ga_elf_info *info = NULL;
		assert_true(check_against_readelf(so, &info));
		assert_true(info->glibc_needed[0]);
#if defined(__x86_64__)
		assert_string_equal(info->glibc_needed, "2.14");
#endif
		assert_string_equal(info->glibcxx_needed, "");
		/* without program headers (e_phnum 0): the .gnu.version_r section says the same */
		size_t len;
		uint8_t *b = slurp(so, &len);
		assert_non_null(b);
		assert_true(len > 64 && b[4] == 2 && b[5] == 1);
		b[56] = b[57] = 0;
		struct ga_elf_info *nophdr = NULL;
		assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &nophdr), 0);
		assert_string_equal(nophdr->glibc_needed, info->glibc_needed);
		assert_string_equal(nophdr->gcc_needed, info->gcc_needed);
		ga_elf_info_free(nophdr);
		free(b);
		ga_elf_info_free(info);
		checked++;
	}
	assert_true(checked > 0);
}

/*
 * A minimal ELF64 LE with DT_VERNEED: libc.so.6 {GLIBC_2.34, GLIBC_PRIVATE}
 * and libstdc++.so.6 {GLIBCXX_3.4.32}; aux2 is the second Verneed's vn_aux.
 */
static size_t build_verneed(uint8_t *b, uint32_t aux2)
{
	struct wr w = { b, false, true };
	static const char strs[] = "\0libc.so.6\0GLIBC_2.34\0GLIBC_PRIVATE\0GLIBCXX_3.4.32\0libstdc++.so.6";
	enum { S_LIBC = 1, S_234 = 11, S_PRIV = 22, S_CXX = 36, S_STDCXX = 51 };
	const size_t str_off = 64 + 2 * 56, vn_off = (str_off + sizeof(strs) + 7) & ~(size_t)7;
	const size_t dyn_off = vn_off + 80, len = dyn_off + 6 * 16;
	const uint64_t base = 0x10000;
	memset(b, 0, len);
	memcpy(b, "\177ELF", 4);
	b[4] = 2;
	b[5] = 1;
	b[6] = 1;
	wput(&w, 16, 3, 2);
	wput(&w, 18, 62, 2);
	wput(&w, 20, 1, 4);
	wput(&w, 32, 64, 8);
	wput(&w, 52, 64, 2);
	wput(&w, 54, 56, 2);
	wput(&w, 56, 2, 2);
	wput(&w, 58, 64, 2);
	for (int i = 0; i < 2; i++) {
		size_t p = 64 + (size_t)i * 56;
		uint64_t off = i ? dyn_off : 0, sz = i ? 6 * 16 : len;
		wput(&w, p, i ? 2 : 1, 4);
		wput(&w, p + 8, off, 8);
		wput(&w, p + 16, base + off, 8);
		wput(&w, p + 32, sz, 8);
		wput(&w, p + 40, sz, 8);
	}
	memcpy(b + str_off, strs, sizeof(strs));
	/* Verneed {version, cnt, file, aux, next}, Vernaux {hash, flags, other, name, next} */
	wput(&w, vn_off, 1, 2);
	wput(&w, vn_off + 2, 2, 2);
	wput(&w, vn_off + 4, S_LIBC, 4);
	wput(&w, vn_off + 8, 16, 4);
	wput(&w, vn_off + 12, 48, 4);
	wput(&w, vn_off + 16 + 8, S_234, 4);
	wput(&w, vn_off + 16 + 12, 16, 4);
	wput(&w, vn_off + 32 + 8, S_PRIV, 4);
	wput(&w, vn_off + 48, 1, 2);
	wput(&w, vn_off + 50, 1, 2);
	wput(&w, vn_off + 52, S_STDCXX, 4);
	wput(&w, vn_off + 56, aux2, 4);
	wput(&w, vn_off + 64 + 8, S_CXX, 4);
	const uint64_t dt[6][2] = {
		{ 1, S_LIBC },        { 5, base + str_off },
		{ 10, sizeof(strs) }, { 0x6ffffffe, base + vn_off },
		{ 0x6fffffff, 2 },    { 0, 0 },
	};
	for (int i = 0; i < 6; i++) {
		wput(&w, dyn_off + (size_t)i * 16, dt[i][0], 8);
		wput(&w, dyn_off + (size_t)i * 16 + 8, dt[i][1], 8);
	}
	return len;
}

static void test_symver_chains(void **state)
{
	(void)state;
	uint8_t *b = calloc(1, 1024);
	assert_non_null(b);
	size_t len = build_verneed(b, 16);
	struct ga_elf_info *info = NULL;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_null(info->damage);
	assert_string_equal(info->glibc_needed, "2.34");
	assert_string_equal(info->glibcxx_needed, "3.4.32");
	assert_string_equal(info->cxxabi_needed, "");
	ga_elf_info_free(info);
	/* the second entry's Vernaux out of the file: damage, what came before is kept */
	len = build_verneed(b, 0x100000);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_non_null(info->damage);
	assert_non_null(strstr(info->damage, "damaged: version need entries beyond end of file"));
	assert_string_equal(info->glibc_needed, "2.34");
	assert_string_equal(info->glibcxx_needed, "");
	ga_elf_info_free(info);
	/* every truncation and byte mutation of it stays inside the buffer */
	len = build_verneed(b, 16);
	for (size_t n = 0; n < len; n++)
		assert_true(inspect_copy(b, n, 0) == 0 || n < 64);
	for (size_t at = 64; at < len; at++) {
		uint8_t *c = malloc(len);
		assert_non_null(c);
		memcpy(c, b, len);
		c[at] ^= 0xA5;
		assert_int_equal(inspect_copy(c, len, 0), 0);
		free(c);
	}
	free(b);
}

static void test_classes_and_byte_orders(void **state)
{
	(void)state;
	static const struct {
		bool is64, be;
		uint16_t machine;
		const char *name;
	} cases[] = {
		{ false, false, 3, "i386" },
		{ false, true, 20, "ppc" },
		{ true, true, 21, "ppc64" },
		{ true, false, 183, "aarch64" },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE_T(cases); i++) {
		uint8_t *b = calloc(1, 512);
		assert_non_null(b);
		size_t len = build_minimal(b, cases[i].is64, cases[i].be, cases[i].machine);
		struct ga_elf_info *info = NULL;
		assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
		assert_int_equal(info->elf_class, cases[i].is64 ? 64 : 32);
		assert_int_equal(info->big_endian, cases[i].be);
		assert_string_equal(info->machine_name, cases[i].name);
		assert_int_equal(info->n_needed, 2);
		assert_string_equal(info->needed[0], "libfoo.so.1");
		assert_string_equal(info->needed[1], "libcudart.so.11.0");
		assert_string_equal(info->soname, "libbe.so.2");
		assert_string_equal(info->runpath, "$ORIGIN/../lib");
		ga_elf_info_free(info);
		/* every truncation of it */
		for (size_t n = 0; n < len; n++)
			assert_true(inspect_copy(b, n, 0) == 0 || n < (cases[i].is64 ? 64u : 52u));
		free(b);
	}
}

/* The same through ga_elf_inspect_fd: a temporary file, pread windows, and the
 * census must equal the buffer-only one. */
static int inspect_fd_copy(const uint8_t *src, size_t len)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/mutant", tmpdir);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(src, 1, len, f), len);
	fclose(f);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	struct ga_elf_info *a = NULL, *b = NULL;
	int r = ga_elf_inspect_fd(ctx, fd, src, len, 0, &a);
	close(fd);
	assert_int_equal(ga_elf_inspect(ctx, src, len, 0, &b), r);
	if (r == 0) {
		assert_int_equal(a->n_containers, b->n_containers);
		assert_int_equal(a->n_images, b->n_images);
		assert_int_equal(a->n_bad_containers, b->n_bad_containers);
		assert_int_equal(a->n_dlopen_names, b->n_dlopen_names);
	}
	ga_elf_info_free(a);
	ga_elf_info_free(b);
	return r;
}

static void test_truncations(void **state)
{
	(void)state;
	const char *files[] = { "lib/libuser.so", "lib/libccob.so", "lib/libstatic.so" };
	for (size_t f = 0; f < GA_ARRAY_SIZE_T(files); f++) {
		size_t len;
		uint8_t *b = built(files[f], &len);
		for (size_t n = 0; n < len; n += (n < 256 ? 1 : 61)) {
			int r = inspect_copy(b, n, 0);
			assert_true(r == 0 || r == -ENOEXEC);
			if (n < 64)
				assert_int_equal(r, -ENOEXEC);
		}
		/* issue 22: every cut past the header says so (the walk makes it a gap), the whole file does not */
		struct ga_elf_info *info = NULL;
		assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
		assert_null(info->damage);
		ga_elf_info_free(info);
		for (size_t n = 64; n < len; n += (n < 1024 ? 7 : 509)) {
			uint8_t *c = malloc(n);
			assert_non_null(c);
			memcpy(c, b, n);
			info = NULL;
			assert_int_equal(ga_elf_inspect(ctx, c, n, 0, &info), 0);
			assert_non_null(info->damage);
			assert_non_null(strstr(info->damage, "truncated: "));
			ga_elf_info_free(info);
			free(c);
		}
		free(b);
	}
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static size_t find_bytes(const uint8_t *b, size_t len, const void *pat, size_t n)
{
	const uint8_t *m = memmem(b, len, pat, n);
	assert_non_null(m);
	return (size_t)(m - b);
}

static void test_corruptions(void **state)
{
	(void)state;
	size_t len;
	uint8_t *orig = built("lib/libuser.so", &len);
	uint8_t *b = malloc(len);
	assert_non_null(b);
	struct ga_elf_info *info = NULL;

	/* section header table far outside the file: sections ignored, dynamic info kept */
	memcpy(b, orig, len);
	put64(b + 40, UINT64_MAX - 8);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_string_equal(info->soname, "libuser.so.1");
	assert_int_equal(info->n_containers, 0);
	assert_non_null(strstr(info->damage, "section headers beyond end of file"));
	ga_elf_info_free(info);

	/* e_shnum huge */
	memcpy(b, orig, len);
	b[60] = 0xff;
	b[61] = 0xfe;
	assert_int_equal(inspect_copy(b, len, 0), 0);

	/* program headers out of range: the dynamic section is found through the sections */
	memcpy(b, orig, len);
	put64(b + 32, len - 8);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_non_null(strstr(info->damage, "program headers beyond end of file"));
	assert_string_equal(info->soname, "libuser.so.1");
	assert_string_equal(info->rpath, "$ORIGIN/../../nvidia/cublas/lib");
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_BUNDLE], 1);
	ga_elf_info_free(info);
	/* and with the section headers gone too: identification only */
	put64(b + 40, len + 1);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->machine, 62);
	assert_null(info->soname);
	assert_int_equal(info->n_needed, 0);
	assert_int_equal(info->n_containers, 0);
	assert_non_null(info->damage); /* no dependencies read: never a clean "no NEEDED" */
	ga_elf_info_free(info);

	/* fatbin fat_size overflowing: the .nv_fatbin chain is bad, the rest intact */
	static const uint8_t fb_magic[4] = { 0x50, 0xED, 0x55, 0xBA };
	memcpy(b, orig, len);
	size_t rod = find_bytes(b, len, fb_magic, 4); /* the .rodata one comes first */
	size_t nv = rod + 4 + find_bytes(b + rod + 4, len - rod - 4, fb_magic, 4);
	put64(b + nv + 8, UINT64_MAX - 15);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_true(info->n_bad_containers >= 1);
	assert_int_equal(info->n_by_format[GA_DEVCODE_CUDA_FATBIN], 2); /* .rodata + chained 2nd */
	ga_elf_info_free(info);

	/* an entry header size that points past the container */
	memcpy(b, orig, len);
	b[nv + 16 + 4] = 0xff;
	b[nv + 16 + 5] = 0xff;
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_true(info->n_bad_containers >= 1);
	assert_null(find_image(info, GA_DEVCODE_CUDA_FATBIN, "sm_80"));
	ga_elf_info_free(info);

	/* bundle: entry count huge, then an id length huge */
	size_t bo = find_bytes(orig, len, "__CLANG_OFFLOAD_BUNDLE__", 24);
	memcpy(b, orig, len);
	put64(b + bo + 24, UINT64_MAX);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_BUNDLE], 0);
	assert_int_equal(info->n_bad_containers, 1);
	ga_elf_info_free(info);
	memcpy(b, orig, len);
	put64(b + bo + 32 + 16, 1u << 30);
	assert_int_equal(inspect_copy(b, len, 0), 0);
	memcpy(b, orig, len);
	put64(b + bo + 32, UINT64_MAX - 2); /* entry offset */
	assert_int_equal(inspect_copy(b, len, 0), 0);

	/* offload binary: size past the section */
	static const uint8_t ob_magic[4] = { 0x10, 0xFF, 0x10, 0xAD };
	size_t oo = find_bytes(orig, len, ob_magic, 4);
	memcpy(b, orig, len);
	put64(b + oo + 8, UINT64_MAX);
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_LLVM_OFFLOAD], 1);
	ga_elf_info_free(info);
	memcpy(b, orig, len);
	put64(b + oo + 32 + 16, UINT64_MAX); /* string count */
	assert_int_equal(inspect_copy(b, len, 0), 0);

	/* every section covering the whole file (overlapping sections): the scan stops
	 * once it has read as many bytes as the file holds */
	memcpy(b, orig, len);
	{
		uint64_t shoff = 0;
		for (int k = 7; k >= 0; k--)
			shoff = (shoff << 8) | b[40 + k];
		unsigned shnum = (unsigned)(b[60] | (b[61] << 8));
		for (unsigned k = 1; k < shnum; k++) {
			uint8_t *sh = b + shoff + 64 * k;
			if (k != (unsigned)(b[62] | (b[63] << 8))) { /* keep .shstrtab */
				sh[4] = 1;                           /* SHT_PROGBITS */
				memset(sh + 5, 0, 3);
				memset(sh + 8, 0, 8); /* flags */
				put64(sh + 24, 0);
				put64(sh + 32, len);
			}
		}
	}
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_true(info->devcode_truncated);
	assert_true(info->bytes_scanned + info->bytes_skipped <= 2 * len);
	ga_elf_info_free(info);

	/* .note.dlopen with non-JSON payload: ignored */
	size_t no = find_bytes(orig, len, "[{\"feature\"", 11);
	memcpy(b, orig, len);
	b[no] = '{';
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->n_note_dlopen, 0);
	ga_elf_info_free(info);
	free(b);
	free(orig);

	/* CCOB: sizes past the section, wrong method, corrupt stream */
	orig = built("lib/libccob.so", &len);
	b = malloc(len);
	assert_non_null(b);
	size_t co = find_bytes(orig, len, "CCOB", 4);
	memcpy(b, orig, len);
	b[co + 6] = 7; /* method */
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_CCOB], 1);
	ga_elf_info_free(info);
	memcpy(b, orig, len);
	memset(b + co + 24, 0x5a, 16); /* zlib stream garbage */
	assert_int_equal(ga_elf_inspect(ctx, b, len, 0, &info), 0);
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_CCOB], 2);
	assert_false(info->containers[0].ids_known);
	assert_int_equal(info->containers[0].n_images, 0);
	assert_true(info->containers[1].ids_known);
	ga_elf_info_free(info);
	memcpy(b, orig, len);
	b[co + 12] = 0xff; /* uncompressed size larger than the stream gives */
	b[co + 13] = 0xff;
	assert_int_equal(inspect_copy(b, len, 0), 0);
	free(b);
	free(orig);
}

static void test_mutations(void **state)
{
	(void)state;
	const char *files[] = { "lib/libuser.so", "lib/libccob.so" };
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	for (size_t f = 0; f < GA_ARRAY_SIZE_T(files); f++) {
		size_t len;
		uint8_t *orig = built(files[f], &len);
		uint8_t *b = malloc(len);
		assert_non_null(b);
		for (int iter = 0; iter < 400; iter++) {
			memcpy(b, orig, len);
			for (int k = 0; k < 8; k++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				/* half the mutations hit the headers, half anywhere */
				size_t at = (size_t)(seed >> 16) % (k & 1 ? len : (len < 4096 ? len : 4096));
				b[at] = (uint8_t)(seed >> 8);
			}
			int r = inspect_copy(b, len, iter & 1 ? GA_ELF_NO_DECOMPRESS : 0);
			assert_true(r == 0 || r == -ENOEXEC);
			if (iter % 4 == 0)
				assert_int_equal(inspect_fd_copy(b, len), r);
		}
		free(b);
		free(orig);
	}
}

static void test_alloc_failures(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = built("lib/libuser.so", &len);
	int ok = 0;
	for (long n = 0; n < 2000 && !ok; n++) {
		struct ga_elf_info *info = NULL;
		ga_alloc_fail_after(n);
		int r = ga_elf_inspect(ctx, b, len, 0, &info);
		ga_alloc_fail_after(-1);
		assert_true(r == 0 || r == -ENOMEM);
		if (r == 0) {
			check_user_devcode(info);
			ok = 1;
		} else {
			assert_null(info);
		}
		ga_elf_info_free(info);
	}
	assert_true(ok);
	free(b);
	ok = 0;
	for (long n = 0; n < 100 && !ok; n++) {
		char **d = NULL;
		size_t nd = 0;
		ga_alloc_fail_after(n);
		int r = ga_elf_expand_origin("$ORIGIN/a:$ORIGIN/b", "/x", NULL, NULL, &d, &nd);
		ga_alloc_fail_after(-1);
		assert_true(r == 0 || r == -ENOMEM);
		ok = r == 0;
		if (ok)
			assert_int_equal(nd, 2);
		ga_elf_strv_free(d, nd);
	}
	assert_true(ok);
}

/* The committed blobs are what the committed script writes. */
static void test_generator_reproducible(void **state)
{
	(void)state;
	if (system("command -v python3 >/dev/null && command -v zstd >/dev/null") != 0) {
		print_message("python3 or zstd not installed: generator check skipped\n");
		skip();
	}
	char cmd[2048], dir[300];
	snprintf(dir, sizeof(dir), "%s/gen", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && python3 '%s/deps/mkdevcode.py' '%s'", dir, fixtures(),
	         dir);
	assert_int_equal(system(cmd), 0);
	const char *files[] = { "fatbin.bin",  "bundle.bin",      "ccob-v2-zlib.bin", "ccob-v3-zstd.bin",
		                "offload.bin", "note-dlopen.bin", "rodata_fatbin.c" };
	for (size_t i = 0; i < GA_ARRAY_SIZE_T(files); i++) {
		snprintf(cmd, sizeof(cmd), "cmp -s '%s/%s' '%s/deps/%s'", dir, files[i], fixtures(),
		         files[i]);
		if (system(cmd) != 0)
			fail_msg("%s differs from what mkdevcode.py writes", files[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vendor_table),
		cmocka_unit_test(test_expand_origin),
		cmocka_unit_test(test_ptx_isa),
		cmocka_unit_test(test_user_library),
		cmocka_unit_test(test_runpath_and_static),
		cmocka_unit_test(test_ccob),
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_device_objects),
		cmocka_unit_test(test_classes_and_byte_orders),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_alloc_failures),
		cmocka_unit_test(test_generator_reproducible),
		cmocka_unit_test(test_symver_names),
		cmocka_unit_test(test_symver_real),
		cmocka_unit_test(test_symver_chains),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
