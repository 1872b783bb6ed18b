/*
 * fuzz_values.c - the small value parsers on arbitrary text: PCIe speed
 * strings, cpulists (count and bitmap) and lexical path normalisation. Checks their
 * contracts: speeds are -1 or in (0, 1000], counts -1 or non-negative, a parsed
 * cpulist agrees with its count and ends on its highest id, and a normalised
 * path never starts with '/', never has an empty, "." or ".." component,
 * and normalising it again changes nothing.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/node.h"

static void check_path(const char *in)
{
	char *p = ga_path_normalize(in);
	FUZZ_CHECK(p != NULL);
	FUZZ_CHECK(p[0] != '/');
	size_t len = strlen(p);
	FUZZ_CHECK(len <= strlen(in));
	FUZZ_CHECK(len == 0 || p[len - 1] != '/');
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(!(n == 1 && c[0] == '.'));
		FUZZ_CHECK(!(n == 2 && c[0] == '.' && c[1] == '.'));
		c += n;
		if (*c == '/')
			c++;
	}
	char *again = ga_path_normalize(p);
	FUZZ_CHECK(again != NULL && strcmp(again, p) == 0);
	ga_free(again);
	ga_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';

	double g = ga_pcie_speed_parse(s);
	FUZZ_CHECK(g == -1 || (g > 0 && g <= 1000));

	long k = ga_cpulist_count(s);
	FUZZ_CHECK(k >= -1);
	/* the bitmap parser takes only lists the counter takes, and sets at most k bits (overlaps count twice) */
	uint64_t *w = NULL;
	size_t nbits = 0;
	int r = ga_cpulist_parse(s, &w, &nbits);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0) {
		FUZZ_CHECK(k != -1 || strlen(s) > 20); /* -1 only from the counter's total cap */
		FUZZ_CHECK(nbits <= GA_CPULIST_MAX_ID);
		long bits = 0;
		for (size_t i = 0; i < (nbits + 63) / 64; i++)
			bits += __builtin_popcountll(w[i]);
		FUZZ_CHECK(k == -1 || (bits <= k && (k == 0) == (bits == 0)));
		FUZZ_CHECK(!nbits || (w[(nbits - 1) / 64] >> ((nbits - 1) % 64)) & 1);
	}
	ga_free(w);

	check_path(s);
	free(s);
	return 0;
}
