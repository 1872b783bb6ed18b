/*
 * fuzz_pciids.c - the pci.ids scanner (lib/collect/pciids.c) on any text, with queries
 * taken from the input's first 24 bytes (8 queries of kind, id1, id2 as 3 bytes each:
 * kind % 3, ids widened so that small ones occur). Checks: every name found is
 * NUL-terminated, under 256 bytes, non-empty and holds no line break; a name not found
 * is empty; scanning twice gives the same answers; scanning only a prefix of the text
 * (cut after a line break) never finds a vendor the whole text lacks.
 */
#include <string.h>

#include "collect/pciids.h"
#include "fuzz.h"

#define NQ 8

static void queries(const uint8_t *d, struct ga_pciids_query *q)
{
	memset(q, 0, sizeof(*q) * NQ);
	for (size_t i = 0; i < NQ; i++) {
		q[i].kind = (enum ga_pciids_kind)(d[3 * i] % 3);
		q[i].id1 = (unsigned)d[3 * i + 1] * 0x101u & 0xffffu;
		q[i].id2 = (unsigned)d[3 * i + 2] * 0x101u & 0xffffu;
		if (q[i].kind == GA_PCIIDS_CLASS)
			q[i].id1 = (unsigned)d[3 * i + 1] << 8 | d[3 * i + 2];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 * NQ)
		return 0;
	const char *text = (const char *)data + 3 * NQ;
	size_t len = size - 3 * NQ;
	struct ga_pciids_query a[NQ], b[NQ];
	queries(data, a);
	queries(data, b);
	ga_pciids_scan(text, len, a, NQ);
	ga_pciids_scan(text, len, b, NQ);
	for (size_t i = 0; i < NQ; i++) {
		size_t nl = strnlen(a[i].name, sizeof(a[i].name));
		FUZZ_CHECK(nl < sizeof(a[i].name));
		FUZZ_CHECK(a[i].found == (nl > 0));
		FUZZ_CHECK(!memchr(a[i].name, '\n', nl) && !memchr(a[i].name, '\r', nl));
		FUZZ_CHECK(a[i].found == b[i].found && !strcmp(a[i].name, b[i].name));
	}
	queries(data, b);
	size_t cut = len / 2;
	while (cut && text[cut - 1] != '\n')
		cut--;
	ga_pciids_scan(text, cut, b, NQ);
	for (size_t i = 0; i < NQ; i++)
		if (b[i].kind == GA_PCIIDS_VENDOR && b[i].found)
			FUZZ_CHECK(a[i].found);
	return 0;
}
