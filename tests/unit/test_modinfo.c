/* test_modinfo.c - discover's reader of a kernel module's .modinfo version (lib/collect/accel.c,
 * ga_modinfo_version), on module images built here (the same shape as
 * tests/fixtures/nodes/mk-modinfo-ko.py's): fed whole and in every block size from 1 to 100
 * bytes, as the decompressed stream comes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/collect.h"
#include "gpuaudit/core.h"

static void put(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* An ELF64 relocatable object: .text, .rodata.str1.1 (rodata; flags AMS), a section with
 * modinfo's bytes and the given flags, .shstrtab, then the section headers (as ld -r lays them
 * out). Its size in *n; free() it. */
static unsigned char *image(const char *rodata, size_t rl, const char *modinfo, size_t ml, uint64_t mflags,
                            size_t *n)
{
	static const char names[] = "\0.text\0.rodata.str1.1\0.modinfo\0.shstrtab";
	const size_t noff[5] = { 0, 1, 7, 22, 31 };
	size_t tl = 64, body = tl + rl + ml + sizeof(names), shoff = 64 + body;
	*n = shoff + 5 * 64;
	unsigned char *b = calloc(1, *n);
	assert_non_null(b);
	memcpy(b, "\177ELF\2\1\1", 7);
	put(b + 0x10, 1, 2);  /* ET_REL */
	put(b + 0x12, 62, 2); /* x86-64 */
	put(b + 0x28, shoff, 8);
	put(b + 0x3a, 64, 2);
	put(b + 0x3c, 5, 2);
	put(b + 0x3e, 4, 2);
	size_t off[4] = { 64, 64 + tl, 64 + tl + rl, 64 + tl + rl + ml };
	memset(b + off[0], 0x90, tl);
	memcpy(b + off[1], rodata, rl);
	memcpy(b + off[2], modinfo, ml);
	memcpy(b + off[3], names, sizeof(names));
	const uint64_t type[5] = { 0, 1, 1, 1, 3 }, flags[5] = { 0, 0x6, 0x32, mflags, 0 },
	               size[5] = { 0, tl, rl, ml, sizeof(names) }, align[5] = { 0, 16, 1, 1, 1 };
	for (size_t i = 1; i < 5; i++) {
		unsigned char *h = b + shoff + i * 64;
		put(h, noff[i], 4);
		put(h + 4, type[i], 4);
		put(h + 8, flags[i], 8);
		put(h + 0x18, off[i - 1], 8);
		put(h + 0x20, size[i], 8);
		put(h + 0x30, align[i], 8);
	}
	return b;
}

/* ga_modinfo_version whole and in every block size 1..100 gives want (NULL: none). */
static void expect(const unsigned char *b, size_t n, const char *want)
{
	for (size_t chunk = 0; chunk <= 100; chunk++) {
		char *v = ga_modinfo_version((const char *)b, n, chunk);
		if (!want) {
			if (v)
				fail_msg("block %zu: found %s", chunk, v);
		} else {
			if (!v)
				fail_msg("block %zu: nothing found", chunk);
			assert_string_equal(v, want);
		}
		ga_free(v);
	}
}

static void test_modinfo(void **state)
{
	(void)state;
	static const char ro[] = "\0version=9.9.9\0NVRM: loading\0";
	static const char mi[] =
	        "license=NVIDIA\0version=580.105.08\0srcversion=0123456789ABCDEF\0name=nvidia";
	size_t n;
	/* the version in .modinfo, not the decoy in .rodata's merged strings before it */
	unsigned char *b = image(ro, sizeof(ro), mi, sizeof(mi), 0x2, &n);
	expect(b, n, "580.105.08");
	/* truncated before the section headers end: no verdict */
	expect(b, n - 1, NULL);
	free(b);
	/* the entry first in its section, right after the NUL that ends .rodata */
	static const char mi2[] = "version=550.54.15\0name=nvidia";
	b = image(ro, sizeof(ro), mi2, sizeof(mi2), 0x2, &n);
	expect(b, n, "550.54.15");
	free(b);
	/* a section of another shape (writable): none; no entry of the form: none */
	b = image(ro, sizeof(ro), mi, sizeof(mi), 0x3, &n);
	expect(b, n, NULL);
	free(b);
	static const char mi3[] = "license=NVIDIA\0version=\0version=5x\0name=nvidia";
	b = image(ro, sizeof(ro), mi3, sizeof(mi3), 0x2, &n);
	expect(b, n, NULL);
	free(b);
	/* not an ELF, and nothing at all */
	expect((const unsigned char *)"\0version=1.2\0", 14, NULL);
	expect((const unsigned char *)"", 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_modinfo) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
