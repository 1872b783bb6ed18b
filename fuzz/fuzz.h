/*
 * fuzz.h - shared helpers of the libFuzzer targets: the entry point's
 * prototype and a check that writer output is JSON that jansson accepts.
 * A failed check aborts, which libFuzzer and the replay runner report.
 */
#ifndef GA_FUZZ_H
#define GA_FUZZ_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                         \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

/* Split an input into a block size taken from its first byte (1..97, the sizes a stream is fed
 * in) and the rest (s, n); false for an empty input. */
static inline bool fuzz_split_chunk(const uint8_t *data, size_t size, size_t *chunk, const char **s,
                                    size_t *n)
{
	if (size < 1)
		return false;
	*chunk = (size_t)data[0] % 97 + 1;
	*s = (const char *)data + 1;
	*n = size - 1;
	return true;
}

/* Abort unless text[0..len) is one JSON value jansson accepts. */
static inline void fuzz_check_json(const char *text, size_t len, size_t flags)
{
	json_error_t jerr;
	json_t *j = json_loadb(text, len, flags | JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!j) {
		fprintf(stderr, "writer output is not JSON (line %d column %d: %s):\n%.*s\n", jerr.line,
		        jerr.column, jerr.text, (int)(len > 4096 ? 4096 : len), text);
		abort();
	}
	json_decref(j);
}

#endif
