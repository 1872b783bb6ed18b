/*
 * fuzz_fatbin.c - the fatbin container walk on arbitrary bytes (a raw blob:
 * ga_devcode_inspect_blob scans it for containers at 4-byte steps), plus the
 * vendor soname lookup on the input as a string: ranges stay inside the
 * input, counts add up (elfscan_check).
 */
#include <stdlib.h>
#include <string.h>

#include "elfscan_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0)
		return 0;
	struct ga_elf_info *info = NULL;
	FUZZ_CHECK(ga_devcode_inspect_blob(ctx, data, size, 0, &info) == 0);
	elfscan_check(info, size);
	for (size_t i = 0; i < info->n_images; i++) {
		const struct ga_devcode_image *im = &info->images[i];
		if (info->containers[im->container].format != GA_DEVCODE_CUDA_FATBIN)
			continue;
		FUZZ_CHECK(!(im->arch_specific && im->family) || strchr(im->arch, 'a'));
	}
	ga_elf_info_free(info);
	/* the soname table on the same bytes as a name */
	char name[128];
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	memcpy(name, data, n);
	name[n] = '\0';
	struct ga_vendor_match m;
	const struct ga_vendor_lib *l = ga_vendor_lib_find(name, &m);
	if (l) {
		FUZZ_CHECK(m.lib == l);
		FUZZ_CHECK(m.runtime_major == -1 || m.runtime_major == m.soname_major);
	}
	ga_ctx_free(ctx);
	return 0;
}
