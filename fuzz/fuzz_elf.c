/*
 * fuzz_elf.c - ga_elf_inspect on arbitrary bytes, with and without the
 * device-code scan: never reads outside the input (ASan), fails only with
 * -ENOEXEC, and what it reports satisfies elfscan_check; RPATH/RUNPATH
 * values expand without error. The census through pread windows
 * (ga_elf_inspect_fd on a memfd holding the bytes) and the one without the
 * SIMD scan (ga_ctx_set_no_simd) equal the buffer-only census. The version
 * definitions reader (ga_elf_verdef_highest, discover's glibc / libstdc++)
 * stays inside the input and writes a NUL-terminated version or nothing; the
 * PTX kernel count (GA_ELF_PTX_ENTRIES) reads only PTX payloads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfscan_check.h"
#include "gpuaudit/elfscan-analyze.h"

static void other_paths(struct ga_ctx *ctx, const uint8_t *data, size_t size, const struct ga_elf_info *ref)
{
	struct ga_elf_info *info = NULL;
	int fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	if (fd >= 0) {
		size_t done = 0;
		while (done < size) {
			ssize_t w = write(fd, data + done, size - done);
			if (w <= 0)
				break;
			done += (size_t)w;
		}
		if (done == size) {
			FUZZ_CHECK(ga_elf_inspect_fd(ctx, fd, data, size, 0, &info) == 0);
			elfscan_same(ref, info);
			ga_elf_info_free(info);
		}
		close(fd);
	}
	ga_ctx_set_no_simd(ctx, true);
	info = NULL;
	FUZZ_CHECK(ga_elf_inspect(ctx, data, size, 0, &info) == 0);
	ga_ctx_set_no_simd(ctx, false);
	elfscan_same(ref, info);
	ga_elf_info_free(info);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0)
		return 0;
	for (unsigned flags = 0; flags < 2; flags++) {
		struct ga_elf_info *info = NULL;
		int r = ga_elf_inspect(ctx, data, size, flags ? GA_ELF_NO_DEVICE_CODE : 0, &info);
		FUZZ_CHECK(r == 0 || r == -ENOEXEC);
		FUZZ_CHECK((r == 0) == (info != NULL));
		if (!info)
			continue;
		elfscan_check(info, size);
		if (!flags)
			other_paths(ctx, data, size, info);
		if (flags)
			FUZZ_CHECK(info->n_containers == 0 && info->n_dlopen_names == 0);
		const char *paths[2] = { info->rpath, info->runpath };
		for (int k = 0; k < 2; k++) {
			char **d = NULL;
			size_t n = 0;
			if (!paths[k])
				continue;
			FUZZ_CHECK(ga_elf_expand_origin(paths[k], "/pkg/lib", NULL, NULL, &d, &n) == 0);
			for (size_t i = 0; i < n; i++)
				FUZZ_CHECK(d[i][0] != '\0');
			ga_elf_strv_free(d, n);
		}
		ga_elf_info_free(info);
	}
	/* the PTX kernel count (decompressing LZ4 / zstd PTX) on every container and for one SM */
	for (unsigned sm = 0; sm <= 90; sm += 90) {
		struct ga_elf_info *info = NULL;
		if (ga_elf_inspect(ctx, data, size, GA_ELF_PTX_ENTRIES | GA_ELF_PTX_SM(sm), &info) == 0) {
			elfscan_check(info, size);
			for (size_t i = 0; i < info->n_images; i++)
				FUZZ_CHECK(info->images[i].kind == GA_CODE_PTX ||
				           !info->images[i].ptx_entries_known);
		}
		ga_elf_info_free(info);
	}
	char v[16];
	for (int k = 0; k < 2; k++) {
		v[0] = 'x';
		int f = ga_elf_verdef_highest(ctx, data, size, k ? "GLIBCXX_" : "GLIBC_", v, sizeof(v));
		FUZZ_CHECK(f == 0 || (f == 1 && memchr(v, '\0', sizeof(v)) && v[0] >= '0' && v[0] <= '9'));
	}
	ga_ctx_free(ctx);
	return 0;
}
