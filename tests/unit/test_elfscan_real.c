/*
 * test_elfscan_real.c - the census against real toolchains and libraries,
 * each part skipped with a message when absent:
 *   - nvcc (/usr/local/cuda/bin/nvcc, no GPU needed): a .so with sm_80,
 *     sm_90a and PTX compute_90, and the static CUDA runtime nvcc links;
 *     PTX-only builds (-gencode arch=compute_80,code=compute_80), stored
 *     plain, LZ4 (--compress-mode=speed) and zstd (size): the kernels each
 *     PTX image holds (GA_ELF_PTX_ENTRIES), and the SM filter;
 *   - the CUDA toolkit's libraries (/usr/local/cuda/lib64): facts of the
 *     reference (cuDNN ops has sm_90a but no plain sm_90, cuBLAS cubins and
 *     PTX ISA, NCCL's 100f), and the container count checked against an
 *     independent byte-by-byte search in the test;
 *   - Debian's librocrand1 / libamdhip64-5: HIP bundle target ids;
 *   - clang-offload-bundler: a bundle written by LLVM itself.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/elfscan.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static struct ga_ctx *ctx;
static char tmpdir[256];

struct mapped {
	int fd;
	uint8_t *p;
	size_t len;
};

static bool map_file(const char *path, struct mapped *m)
{
	struct stat st;
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0 || fstat(m->fd, &st) < 0 || st.st_size <= 0) {
		if (m->fd >= 0)
			close(m->fd);
		return false;
	}
	m->len = (size_t)st.st_size;
	m->p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, m->fd, 0);
	if (m->p == MAP_FAILED) {
		close(m->fd);
		return false;
	}
	return true;
}

static void unmap_file(struct mapped *m)
{
	munmap(m->p, m->len);
	close(m->fd);
}

/* Inspect a file through both paths (mapping, pread) and check they agree. */
static struct ga_elf_info *inspect_path(const char *path)
{
	struct mapped m;
	if (!map_file(path, &m))
		return NULL;
	struct ga_elf_info *a = NULL, *b = NULL;
	assert_int_equal(ga_elf_inspect_fd(ctx, m.fd, m.p, m.len, 0, &a), 0);
	assert_int_equal(ga_elf_inspect(ctx, m.p, m.len, 0, &b), 0);
	assert_int_equal(a->n_containers, b->n_containers);
	assert_int_equal(a->n_images, b->n_images);
	for (size_t i = 0; i < a->n_images; i++) {
		assert_string_equal(a->images[i].arch, b->images[i].arch);
		assert_int_equal(a->images[i].offset, b->images[i].offset);
	}
	assert_int_equal(a->n_dlopen_names, b->n_dlopen_names);
	ga_elf_info_free(b);
	unmap_file(&m);
	return a;
}

static size_t count_images(const struct ga_elf_info *info, enum ga_devcode_kind kind, const char *arch)
{
	size_t n = 0;
	for (size_t i = 0; i < info->n_images; i++)
		if (info->images[i].kind == kind && !strcmp(info->images[i].arch, arch))
			n++;
	return n;
}

static bool has_str(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static int setup(void **state)
{
	(void)state;
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/ga-elfreal-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	return ga_ctx_new(&ctx);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		return -1;
	ga_ctx_free(ctx);
	return 0;
}

static void test_nvcc(void **state)
{
	(void)state;
	const char *nvcc = "/usr/local/cuda/bin/nvcc";
	if (access(nvcc, X_OK) != 0) {
		print_message("%s not found: nvcc census test skipped\n", nvcc);
		skip();
	}
	char cu[512], so[512], cmd[2048];
	snprintf(cu, sizeof(cu), "%s/k.cu", tmpdir);
	snprintf(so, sizeof(so), "%s/libk.so", tmpdir);
	FILE *f = fopen(cu, "w");
	assert_non_null(f);
	fputs("__global__ void ga_k(float *x) { x[threadIdx.x] *= 2.0f; }\n"
	      "extern \"C\" void ga_launch(float *x) { ga_k<<<1, 32>>>(x); }\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
	         "%s -shared -Xcompiler -fPIC -o '%s' '%s' -gencode arch=compute_80,code=sm_80 "
	         "-gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90 "
	         ">'%s/nvcc.log' 2>&1",
	         nvcc, so, cu, tmpdir);
	if (system(cmd) != 0)
		fail_msg("nvcc failed: see %s/nvcc.log", tmpdir);
	struct ga_elf_info *info = inspect_path(so);
	assert_non_null(info);
	/* our kernel's container: exactly sm_80, sm_90a and PTX compute_90 */
	bool found = false;
	for (size_t c = 0; c < info->n_containers; c++) {
		const struct ga_devcode_container *ct = &info->containers[c];
		if (ct->n_images != 3)
			continue;
		const struct ga_devcode_image *im = &info->images[ct->first_image];
		if (strcmp(im[0].arch, "sm_80") || strcmp(im[1].arch, "sm_90a") ||
		    strcmp(im[2].arch, "compute_90"))
			continue;
		found = true;
		assert_string_equal(ct->section, ".nv_fatbin");
		assert_int_equal(im[0].kind, GA_CODE_CUBIN);
		assert_int_equal(im[1].sm, 90);
		assert_true(im[1].arch_specific);
		assert_int_equal(im[2].kind, GA_CODE_PTX);
		/* the toolkit's PTX ISA: 9.x for CUDA 13, 8.x for CUDA 12 */
		assert_true(im[2].ptx_isa_major >= 8);
		assert_true(ga_ptx_isa_min_cuda(im[2].ptx_isa_major, im[2].ptx_isa_minor) > 0);
	}
	assert_true(found);
	assert_int_equal(count_images(info, GA_CODE_CUBIN, "sm_90"), 0);
	assert_int_equal(info->n_bad_containers, 0);
	/* nvcc links cudart statically: no CUDA DT_NEEDED, libcuda.so.1 dlopened */
	assert_true(info->static_cudart);
	assert_true(info->static_cudart_markers & GA_CUDART_FATBIN_SEGMENT);
	for (size_t i = 0; i < info->n_needed; i++)
		assert_null(ga_vendor_lib_find(info->needed[i], NULL));
	assert_true(has_str(info->dlopen_names, info->n_dlopen_names, "libcuda.so.1"));
	ga_elf_info_free(info);
}

/* The PTX image of the one container holding only compute_80 PTX, or NULL. */
static const struct ga_devcode_image *ptx80(const struct ga_elf_info *info)
{
	for (size_t c = 0; c < info->n_containers; c++) {
		const struct ga_devcode_container *ct = &info->containers[c];
		const struct ga_devcode_image *im = &info->images[ct->first_image];
		if (ct->n_images == 1 && im->kind == GA_CODE_PTX && !strcmp(im->arch, "compute_80"))
			return im;
	}
	return NULL;
}

static void test_nvcc_ptx_only(void **state)
{
	(void)state;
	const char *nvcc = "/usr/local/cuda/bin/nvcc";
	if (access(nvcc, X_OK) != 0) {
		print_message("%s not found: PTX-only census test skipped\n", nvcc);
		skip();
	}
	char cu[512], so[512], cmd[2048];
	snprintf(cu, sizeof(cu), "%s/jit.cu", tmpdir);
	FILE *f = fopen(cu, "w");
	assert_non_null(f);
	for (int i = 0; i < 5; i++)
		fprintf(f, "extern \"C\" __global__ void ga_k%d(float *x) { x[threadIdx.x] += %d.0f; }\n", i,
		        i);
	fclose(f);
	static const struct {
		const char *mode;
		enum ga_devcode_compression comp;
	} modes[] = { { "none", GA_COMP_NONE }, { "speed", GA_COMP_LZ4 }, { "size", GA_COMP_ZSTD } };
	for (size_t m = 0; m < N_OF(modes); m++) {
		snprintf(so, sizeof(so), "%s/libjit-%s.so", tmpdir, modes[m].mode);
		snprintf(cmd, sizeof(cmd),
		         "%s -shared -Xcompiler -fPIC -cudart none -o '%s' '%s' "
		         "-gencode arch=compute_80,code=compute_80 %s--compress-mode=%s >'%s/nvcc.log' 2>&1",
		         nvcc, so, cu, m ? "-Xfatbin -compress-all " : "", modes[m].mode, tmpdir);
		if (system(cmd) != 0)
			fail_msg("nvcc failed: see %s/nvcc.log", tmpdir);
		struct mapped mp;
		assert_true(map_file(so, &mp));
		/* every PTX image (no SM), for sm_90 (no cubin there: counted) */
		unsigned flags[2] = { GA_ELF_PTX_ENTRIES, GA_ELF_PTX_ENTRIES | GA_ELF_PTX_SM(90) };
		for (int k = 0; k < 2; k++) {
			struct ga_elf_info *info = NULL;
			assert_int_equal(ga_elf_inspect_fd(ctx, mp.fd, mp.p, mp.len, flags[k], &info), 0);
			const struct ga_devcode_image *im = ptx80(info);
			assert_non_null(im);
			assert_int_equal(im->compression, modes[m].comp);
			assert_true(im->ptx_entries_known);
			assert_int_equal(im->ptx_entries, 5);
			ga_elf_info_free(info);
		}
		/* sm_75 is below the PTX: not counted; without the flag: not counted */
		unsigned off[2] = { GA_ELF_PTX_ENTRIES | GA_ELF_PTX_SM(75), 0 };
		for (int k = 0; k < 2; k++) {
			struct ga_elf_info *info = NULL;
			assert_int_equal(ga_elf_inspect_fd(ctx, mp.fd, mp.p, mp.len, off[k], &info), 0);
			assert_false(ptx80(info)->ptx_entries_known);
			ga_elf_info_free(info);
		}
		unmap_file(&mp);
	}
}

/*
 * Independent count of fatbin containers: every 50 ED 55 BA at any offset
 * with version 1, header size 16 and a fat size inside the file, skipping
 * over each container found (the census must find the same ones).
 */
static size_t bytewise_containers(const uint8_t *p, size_t len)
{
	static const uint8_t magic[4] = { 0x50, 0xED, 0x55, 0xBA };
	size_t n = 0, at = 0;
	while (at + 16 <= len) {
		const uint8_t *h = memmem(p + at, len - at, magic, 4);
		if (!h || (size_t)(h - p) + 16 > len)
			break;
		at = (size_t)(h - p);
		uint64_t fs = 0;
		for (int i = 7; i >= 0; i--)
			fs = (fs << 8) | h[8 + i];
		if (h[4] == 1 && h[5] == 0 && h[6] == 16 && h[7] == 0 && fs <= len - at - 16) {
			n++;
			at += 16 + (size_t)fs;
		} else {
			at++;
		}
	}
	return n;
}

static const char *cuda_lib(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "/usr/local/cuda/lib64/%s", name);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

static void test_cuda_toolkit(void **state)
{
	(void)state;
	char path[512];
	if (!cuda_lib("libcublas.so.13", path, sizeof(path)) &&
	    !cuda_lib("libcublas.so.12", path, sizeof(path))) {
		print_message("no CUDA toolkit libraries in /usr/local/cuda/lib64: skipped\n");
		skip();
	}
	struct ga_elf_info *info;
	if (cuda_lib("libcudnn_ops.so.9", path, sizeof(path))) {
		/* reference: cuDNN 9 ops carries sm_90a only, no plain sm_90 */
		info = inspect_path(path);
		assert_non_null(info);
		assert_true(info->n_by_format[GA_DEVCODE_CUDA_FATBIN] > 0);
		assert_true(count_images(info, GA_CODE_CUBIN, "sm_90a") > 0);
		assert_int_equal(count_images(info, GA_CODE_CUBIN, "sm_90"), 0);
		assert_true(count_images(info, GA_CODE_CUBIN, "sm_80") > 0);
		assert_true(count_images(info, GA_CODE_CUBIN, "sm_100f") > 0);
		assert_true(count_images(info, GA_CODE_CUBIN, "sm_120f") > 0);
		assert_true(has_str(info->dlopen_names, info->n_dlopen_names, "libcuda.so.1"));
		ga_elf_info_free(info);
	} else {
		print_message("libcudnn_ops.so.9 absent: cuDNN facts not checked\n");
	}
	if (cuda_lib("libcublas.so.13", path, sizeof(path))) {
		info = inspect_path(path);
		const char *cubins[] = { "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120" };
		for (size_t i = 0; i < N_OF(cubins); i++)
			assert_true(count_images(info, GA_CODE_CUBIN, cubins[i]) > 0);
		assert_true(count_images(info, GA_CODE_PTX, "compute_120") > 0);
		for (size_t i = 0; i < info->n_images; i++)
			if (info->images[i].kind == GA_CODE_PTX) {
				assert_int_equal(info->images[i].ptx_isa_major, 9);
				assert_int_equal(info->images[i].ptx_isa_minor, 0);
			}
		assert_true(info->static_cudart); /* math libraries link cudart statically */
		assert_string_equal(info->soname, "libcublas.so.13");
		ga_elf_info_free(info);
	}
	if (cuda_lib("libnccl.so.2", path, sizeof(path))) {
		info = inspect_path(path);
		assert_true(count_images(info, GA_CODE_CUBIN, "sm_100f") > 0);
		assert_true(count_images(info, GA_CODE_CUBIN, "sm_110") > 0);
		assert_true(has_str(info->dlopen_names, info->n_dlopen_names, "libnvidia-ml.so.1"));
		ga_elf_info_free(info);
	}
	/* container counts against the byte-by-byte search, where containers live in
	 * .ldata (cuFFT), .rodata (cuSPARSE), .cask_resource (cuBLASLt) */
	const char *libs[] = { "libcufft.so.12", "libcusparse.so.12", "libcudnn_ops.so.9", "libcupti.so.13" };
	for (size_t i = 0; i < N_OF(libs); i++) {
		if (!cuda_lib(libs[i], path, sizeof(path)))
			continue;
		struct mapped m;
		assert_true(map_file(path, &m));
		size_t want = bytewise_containers(m.p, m.len);
		assert_int_equal(ga_elf_inspect_fd(ctx, m.fd, m.p, m.len, 0, &info), 0);
		print_message("%s: %zu fatbin containers (byte search: %zu)\n", libs[i],
		              info->n_by_format[GA_DEVCODE_CUDA_FATBIN], want);
		assert_int_equal(info->n_by_format[GA_DEVCODE_CUDA_FATBIN], want);
		assert_int_equal(info->n_bad_containers, 0);
		ga_elf_info_free(info);
		unmap_file(&m);
	}
}

static void test_debian_rocm(void **state)
{
	(void)state;
	const char *rocrand = "/usr/lib/x86_64-linux-gnu/librocrand.so.1";
	const char *hip = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5";
	if (access(rocrand, R_OK) != 0) {
		print_message("%s absent (Debian librocrand1): skipped\n", rocrand);
		skip();
	}
	struct ga_elf_info *info = inspect_path(rocrand);
	assert_non_null(info);
	/* reference: librocrand 5.3.3 bundle ids */
	const char *want[] = { "x86_64-unknown-linux", "gfx1030",       "gfx803",        "gfx900:xnack-",
		               "gfx906:xnack-",        "gfx908:xnack-", "gfx90a:xnack+", "gfx90a:xnack-" };
	assert_int_equal(info->n_by_format[GA_DEVCODE_HIP_BUNDLE], 1);
	assert_int_equal(info->n_images, N_OF(want));
	for (size_t i = 0; i < N_OF(want); i++) {
		assert_string_equal(info->images[i].arch, want[i]);
		assert_int_equal(info->images[i].kind, i == 0 ? GA_CODE_HOST : GA_CODE_CODE_OBJECT);
	}
	assert_string_equal(info->containers[0].section, ".hip_fatbin");
	assert_true(has_str(info->needed, info->n_needed, "libamdhip64.so.5"));
	struct ga_vendor_match m;
	assert_non_null(ga_vendor_lib_find("libamdhip64.so.5", &m));
	assert_int_equal(m.runtime_major, 5);
	ga_elf_info_free(info);
	if (access(hip, R_OK) == 0) {
		info = inspect_path(hip);
		assert_string_equal(info->soname, "libamdhip64.so.5");
		assert_true(has_str(info->needed, info->n_needed, "libhsa-runtime64.so.1"));
		assert_true(has_str(info->dlopen_names, info->n_dlopen_names, "libamd_comgr.so.2"));
		ga_elf_info_free(info);
	}
}

static void test_llvm_bundler(void **state)
{
	(void)state;
	if (system("command -v clang-offload-bundler-14 >/dev/null 2>&1") != 0) {
		print_message("clang-offload-bundler-14 not installed: skipped\n");
		skip();
	}
	char cmd[2048], out[300];
	snprintf(out, sizeof(out), "%s/b.bundle", tmpdir);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && printf host >h.bin && printf device >d.bin && clang-offload-bundler-14 -type=bc "
	         "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+,"
	         "hip-amdgcn-amd-amdhsa--gfx1100 -inputs=h.bin,d.bin,d.bin -outputs=b.bundle",
	         tmpdir);
	assert_int_equal(system(cmd), 0);
	struct mapped m;
	assert_true(map_file(out, &m));
	struct ga_elf_info *info = NULL;
	assert_int_equal(ga_devcode_inspect_blob(ctx, m.p, m.len, 0, &info), 0);
	assert_int_equal(info->n_images, 3);
	assert_string_equal(info->images[1].arch, "gfx90a:xnack+");
	assert_string_equal(info->images[2].arch, "gfx1100");
	assert_int_equal(info->images[2].size, 6);
	assert_memory_equal(m.p + info->images[2].offset, "device", 6);
	ga_elf_info_free(info);
	unmap_file(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvcc),         cmocka_unit_test(test_nvcc_ptx_only),
		cmocka_unit_test(test_cuda_toolkit), cmocka_unit_test(test_debian_rocm),
		cmocka_unit_test(test_llvm_bundler),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
