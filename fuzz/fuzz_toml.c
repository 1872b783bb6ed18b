/*
 * fuzz_toml.c - the strict TOML reader (lib/core/toml.c) on arbitrary bytes:
 * it either refuses with a "NAME:LINE:COL: ..." message whose line and column
 * lie inside the input, or returns an object that serialises to JSON jansson
 * reads back (so no invalid UTF-8, no NaN, no duplicate member slips through).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/toml.h"

static bool nul_key(json_t *j)
{
	const char *k;
	size_t kl, i;
	json_t *v;
	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
		{
			if (nul_key(v))
				return true;
		}
	}
	json_object_keylen_foreach(j, k, kl, v)
	{
		if (strlen(k) != kl || nul_key(v))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = NULL;
	char err[600] = "";
	int r = ga_toml_parse(NULL, "f", (const char *)data, size, &j, err, sizeof(err));
	if (r < 0) {
		FUZZ_CHECK(r == -EBADMSG || r == -ENOMEM || r == -EFBIG);
		FUZZ_CHECK(j == NULL);
		if (r == -EBADMSG) {
			unsigned line = 0, col = 0;
			FUZZ_CHECK(sscanf(err, "f:%u:%u: ", &line, &col) == 2);
			size_t lines = 1;
			for (size_t i = 0; i < size; i++)
				lines += data[i] == '\n';
			FUZZ_CHECK(line >= 1 && line <= lines && col >= 1 && col <= size + 1);
		}
		return 0;
	}
	FUZZ_CHECK(json_is_object(j));
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	FUZZ_CHECK(s != NULL);
	/* a quoted key may hold NUL (valid TOML), which jansson writes but does not read back */
	if (!nul_key(j))
		fuzz_check_json(s, strlen(s), JSON_REJECT_DUPLICATES);
	free(s);
	json_decref(j);
	return 0;
}
