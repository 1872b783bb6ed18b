/*
 * fuzz_nvreq.c - the container toolkit's requirement judge (lib/analyze/nvreq.c)
 * on arbitrary text, as one requirement and as an image Env (one entry a
 * line). Checks: a verdict in range, messages terminated, an unsatisfied
 * verdict carrying the toolkit's "unsatisfied condition: " text, and the
 * same answer twice.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/nvreq.h"

static void check(const struct ga_nvreq_result *r)
{
	FUZZ_CHECK(r->verdict >= GA_NVREQ_SATISFIED && r->verdict <= GA_NVREQ_INVALID);
	FUZZ_CHECK(memchr(r->message, '\0', sizeof(r->message)) != NULL);
	FUZZ_CHECK(memchr(r->detail, '\0', sizeof(r->detail)) != NULL);
	if (r->verdict == GA_NVREQ_UNSATISFIED)
		FUZZ_CHECK(!strncmp(r->message, "unsatisfied condition: ", 23));
	if (r->verdict == GA_NVREQ_INVALID)
		FUZZ_CHECK(!strcmp(r->message, "invalid expression"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *s = malloc(size + 1);
	const char **env = malloc((size + 1) * sizeof(*env));
	if (!s || !env)
		goto out;
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	static const struct ga_nvreq_target ts[] = {
		{ "12.4", "550.54.15", "tesla", "9.0" },
		{ "13.0", "580.65.06", NULL, NULL },
		{ NULL, NULL, NULL, NULL },
	};
	for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++) {
		struct ga_nvreq_result a, b;
		ga_nvreq_eval(s, &ts[k], &a);
		ga_nvreq_eval(s, &ts[k], &b);
		check(&a);
		FUZZ_CHECK(a.verdict == b.verdict && !strcmp(a.message, b.message));
	}
	size_t n = 0;
	for (char *p = s, *e; p; p = e) {
		e = strchr(p, '\n');
		if (e)
			*e++ = '\0';
		env[n++] = p;
	}
	struct ga_nvreq_result r;
	int off;
	size_t judged = ga_nvreq_image(env, n, &ts[0], &r, &off);
	check(&r);
	FUZZ_CHECK(judged <= n + 1);
	FUZZ_CHECK(!off || (judged == 0 && r.verdict == GA_NVREQ_SATISFIED));
out:
	free(env);
	free(s);
	return 0;
}
