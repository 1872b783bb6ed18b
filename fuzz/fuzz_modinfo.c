/*
 * fuzz_modinfo.c - the kernel module .modinfo reader of discover (lib/collect/accel.c,
 * ga_modinfo_version) on any bytes, as a module file on a hostile or broken node could hold:
 * the first byte picks a block size (1..97) and the rest is fed in blocks of it, as the
 * decompressed stream comes, and whole. Checks: both reads agree (an entry cut between two
 * blocks is found as it is in one), and a version found is 1 to 47 digits and dots.
 */
#include <string.h>

#include "collect/collect.h"
#include "fuzz.h"
#include "gpuaudit/core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t chunk, n;
	const char *s;
	if (!fuzz_split_chunk(data, size, &chunk, &s, &n))
		return 0;
	char *a = ga_modinfo_version(s, n, chunk), *b = ga_modinfo_version(s, n, 0);
	FUZZ_CHECK((a == NULL) == (b == NULL));
	if (a) {
		FUZZ_CHECK(!strcmp(a, b));
		size_t l = strlen(a);
		FUZZ_CHECK(l >= 1 && l <= 47);
		FUZZ_CHECK(strspn(a, "0123456789.") == l);
	}
	ga_free(a);
	ga_free(b);
	return 0;
}
