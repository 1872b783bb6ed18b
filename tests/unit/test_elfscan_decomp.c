/*
 * test_elfscan_decomp.c - our zlib/zstd declarations (lib/deps/decomp.h,
 * used through dlopen) against the real <zlib.h> and <zstd.h>, and the
 * prefix decompressor on the committed CCOB blobs, truncated and corrupt.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "deps/decomp.h"

static void test_declarations(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct ga_z_stream), sizeof(z_stream));
#define SAME(f) assert_int_equal(offsetof(struct ga_z_stream, f), offsetof(z_stream, f))
	SAME(next_in);
	SAME(avail_in);
	SAME(total_in);
	SAME(next_out);
	SAME(avail_out);
	SAME(total_out);
	SAME(msg);
	SAME(state);
	SAME(zalloc);
	SAME(zfree);
	SAME(opaque);
	SAME(data_type);
	SAME(adler);
	SAME(reserved);
#undef SAME
	assert_int_equal(GA_Z_OK, Z_OK);
	assert_int_equal(GA_Z_STREAM_END, Z_STREAM_END);
	assert_int_equal(GA_Z_BUF_ERROR, Z_BUF_ERROR);
	assert_int_equal(GA_Z_NO_FLUSH, Z_NO_FLUSH);
	assert_int_equal(ZLIB_VERSION[0], '1'); /* inflateInit_ checks the major only */
	assert_int_equal(sizeof(struct ga_zstd_in), sizeof(ZSTD_inBuffer));
	assert_int_equal(offsetof(struct ga_zstd_in, pos), offsetof(ZSTD_inBuffer, pos));
	assert_int_equal(sizeof(struct ga_zstd_out), sizeof(ZSTD_outBuffer));
	assert_int_equal(offsetof(struct ga_zstd_out, pos), offsetof(ZSTD_outBuffer, pos));
	/* a function type without our struct types in it (unevaluated: nothing is linked) */
	_Static_assert(__builtin_types_compatible_p(__typeof__(&ZSTD_isError), ga_ZSTD_isError_fn),
	               "ZSTD_isError");
	_Static_assert(
	        __builtin_types_compatible_p(__typeof__(ZSTD_decompressStream(NULL, NULL, NULL)), size_t),
	        "ZSTD_decompressStream returns size_t");
	_Static_assert(__builtin_types_compatible_p(__typeof__(inflate(NULL, 0)), int),
	               "inflate returns int");
}

static uint8_t *load(const char *name, size_t *len)
{
	char p[512];
	const char *f = getenv("GA_FIXTURES");
	snprintf(p, sizeof(p), "%s/deps/%s", f ? f : "tests/fixtures", name);
	FILE *fp = fopen(p, "rb");
	assert_non_null(fp);
	uint8_t *b = malloc(4096);
	assert_non_null(b);
	*len = fread(b, 1, 4096, fp);
	fclose(fp);
	return b;
}

static void check_blob(const char *name, int method, size_t hdr)
{
	size_t len;
	uint8_t *b = load(name, &len);
	uint8_t out[256];
	long n = ga_decompress_prefix(method, b + hdr, len - hdr, out, sizeof(out));
	if (n == -ENOSYS) {
		print_message("decompression library not available: %s skipped\n", name);
		free(b);
		return;
	}
	assert_true(n >= 32);
	assert_memory_equal(out, "__CLANG_OFFLOAD_BUNDLE__", 24);
	/* a prefix only: asking for 40 bytes gives exactly 40 */
	assert_int_equal(ga_decompress_prefix(method, b + hdr, len - hdr, out, 40), 40);
	/* truncated stream: what was there, never more than the cap */
	n = ga_decompress_prefix(method, b + hdr, (len - hdr) / 2, out, sizeof(out));
	assert_true(n == -EBADMSG || (n >= 0 && n <= (long)sizeof(out)));
	/* garbage */
	memset(b + hdr, 0x5a, len - hdr);
	assert_int_equal(ga_decompress_prefix(method, b + hdr, len - hdr, out, sizeof(out)), -EBADMSG);
	free(b);
}

static void test_prefix(void **state)
{
	(void)state;
	check_blob("ccob-v2-zlib.bin", 0, 24);
	check_blob("ccob-v3-zstd.bin", 1, 32);
	uint8_t out[8];
	assert_int_equal(ga_decompress_prefix(2, (const uint8_t *)"x", 1, out, sizeof(out)), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
