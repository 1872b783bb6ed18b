/*
 * fuzz_bundle.c - offload bundles (plain and CCOB, whose zlib/zstd stream is
 * decompressed up to a cap) and LLVM offload binaries on arbitrary bytes:
 * byte 0 picks the magic put in front of the rest (0 plain bundle, 1 CCOB,
 * 2 LLVM offload binary, else the bytes as they are), so the mutations spend
 * their time past the magic. Checks: elfscan_check; bundle images carry their
 * id; CCOB containers with known ids have images only then.
 */
#include <stdlib.h>
#include <string.h>

#include "elfscan_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const uint8_t offload_magic[4] = { 0x10, 0xFF, 0x10, 0xAD };
	const void *magic = NULL;
	size_t ml = 0;
	switch (data[0]) {
	case 0:
		magic = "__CLANG_OFFLOAD_BUNDLE__", ml = 24;
		break;
	case 1:
		magic = "CCOB", ml = 4;
		break;
	case 2:
		magic = offload_magic, ml = 4;
		break;
	default:
		break;
	}
	size_t len = ml + size - 1;
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	if (ml)
		memcpy(buf, magic, ml);
	memcpy(buf + ml, data + 1, size - 1);
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0) {
		free(buf);
		return 0;
	}
	for (unsigned flags = 0; flags < 2; flags++) {
		struct ga_elf_info *info = NULL;
		FUZZ_CHECK(ga_devcode_inspect_blob(ctx, buf, len, flags ? GA_ELF_NO_DECOMPRESS : 0, &info) ==
		           0);
		elfscan_check(info, len);
		for (size_t i = 0; i < info->n_containers; i++) {
			const struct ga_devcode_container *c = &info->containers[i];
			if (c->format == GA_DEVCODE_HIP_CCOB && !c->ids_known)
				FUZZ_CHECK(c->n_images == 0);
			if (c->format == GA_DEVCODE_HIP_CCOB && flags)
				FUZZ_CHECK(!c->ids_known);
			if (c->format == GA_DEVCODE_HIP_BUNDLE || c->format == GA_DEVCODE_HIP_CCOB)
				for (uint32_t k = 0; k < c->n_images; k++)
					FUZZ_CHECK(info->images[c->first_image + k].bundle_id != NULL);
		}
		ga_elf_info_free(info);
	}
	ga_ctx_free(ctx);
	free(buf);
	return 0;
}
