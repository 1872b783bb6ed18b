/*
 * test_nvreq.c - the container toolkit's requirement grammar (lib/analyze/nvreq.c):
 * alternatives and terms as the toolkit evaluates them, its error text, the
 * version comparison, unknown target facts, malformed text (a verdict, never
 * a crash) and an image's Env (disable, legacy CUDA_VERSION, JETPACK).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/nvreq.h"

#define CUDA_MSG ", please update your driver to a newer version, or use an earlier cuda container"

static const struct ga_nvreq_target t124 = { "12.4", "550.54.15", "tesla", "9.0" };
static const struct ga_nvreq_target t130 = { "13.0", "580.65.06", "tesla", "9.0" };
static const struct ga_nvreq_target bare = { "12.4", "550.54.15", NULL, NULL };

static enum ga_nvreq_verdict v(const char *pred, const struct ga_nvreq_target *t)
{
	struct ga_nvreq_result r;
	ga_nvreq_eval(pred, t, &r);
	return r.verdict;
}

static void test_version_cmp(void **state)
{
	(void)state;
	assert_int_equal(ga_nvreq_version_cmp("12.4", ">=", "12.8"), 0);
	assert_int_equal(ga_nvreq_version_cmp("12.10", ">", "12.9"), 1);
	assert_int_equal(ga_nvreq_version_cmp("12", "=", "12.0.0"), 1);
	assert_int_equal(ga_nvreq_version_cmp("12.0.5", ">", "12"), 1);
	assert_int_equal(ga_nvreq_version_cmp("535.104.05", "<", "536"), 1);
	assert_int_equal(ga_nvreq_version_cmp("535.104.05", ">=", "535"), 1);
	assert_int_equal(ga_nvreq_version_cmp("535", "!=", "535.0"), 0);
	assert_int_equal(ga_nvreq_version_cmp("9.0", "<=", "8.9"), 0);
	assert_int_equal(ga_nvreq_version_cmp("12.x", ">=", "12"), -1);
	assert_int_equal(ga_nvreq_version_cmp("12", ">=", ".5"), -1);
	assert_int_equal(ga_nvreq_version_cmp("12", "==", "12"), -1);
	assert_int_equal(ga_nvreq_version_cmp("12", ">=", "99999999999999999999999"), -1);
	assert_int_equal(ga_nvreq_version_cmp(NULL, ">=", "1"), -1);
}

static void test_cuda_images(void **state)
{
	(void)state;
	/* the shape of the nvidia/cuda images: cuda OR (tesla AND a driver branch) */
	const char *p = "cuda>=12.8 brand=tesla,driver>=535,driver<536 brand=tesla,driver>=550,driver<551";
	struct ga_nvreq_result r;
	ga_nvreq_eval(p, &t130, &r);
	assert_int_equal(r.verdict, GA_NVREQ_SATISFIED);
	assert_string_equal(r.message, "");
	/* 12.4 driver of the 550 branch on a tesla: the branch alternative holds */
	ga_nvreq_eval(p, &t124, &r);
	assert_int_equal(r.verdict, GA_NVREQ_SATISFIED);
	/* a 12.4 driver outside the listed branches: refused with the toolkit's text */
	struct ga_nvreq_target t = { "12.4", "552.1", "tesla", "9.0" };
	ga_nvreq_eval(p, &t, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: cuda>=12.8" CUDA_MSG);
	assert_non_null(strstr(r.detail, "cuda>=12.8 is false for cuda 12.4"));
	/* a geforce with the 550 driver: not a tesla, refused */
	t = (struct ga_nvreq_target){ "12.4", "550.54.15", "geforce", "8.9" };
	assert_int_equal(v(p, &t), GA_NVREQ_UNSATISFIED);
	/* brand not known: the branch alternative may or may not hold */
	ga_nvreq_eval(p, &bare, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNKNOWN);
	assert_non_null(strstr(r.detail, "brand"));
	/* ... but a new enough driver needs no brand */
	t = (struct ga_nvreq_target){ "13.0", "580.65.06", NULL, NULL };
	assert_int_equal(v(p, &t), GA_NVREQ_SATISFIED);
}

static void test_messages(void **state)
{
	(void)state;
	struct ga_nvreq_result r;
	ga_nvreq_eval("driver>=560", &t124, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: driver>=560");
	/* the message names the first word, whichever term failed */
	ga_nvreq_eval("cuda>=12.0,arch>=10.0", &t124, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: cuda>=12.0,arch>=10.0" CUDA_MSG);
	ga_nvreq_eval("arch>=10.0,cuda>=12.0", &t124, &r);
	assert_string_equal(r.message, "unsatisfied condition: arch>=10.0,cuda>=12.0");
	/* the suffix only for a first word starting "cuda>=" exactly */
	ga_nvreq_eval("CUDA>=12.8", &t124, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: CUDA>=12.8");
	ga_nvreq_eval("cuda>12.4", &t124, &r);
	assert_string_equal(r.message, "unsatisfied condition: cuda>12.4");
	/* a leading space: the first word is empty */
	ga_nvreq_eval(" cuda>=12.8", &t124, &r);
	assert_string_equal(r.message, "unsatisfied condition: ");
}

static void test_terms(void **state)
{
	(void)state;
	assert_int_equal(v("cuda=12.4", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("cuda!=12.4", &t124), GA_NVREQ_UNSATISFIED);
	assert_int_equal(v("cuda<12.4", &t124), GA_NVREQ_UNSATISFIED);
	assert_int_equal(v("cuda<=12.4", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("cuda>12.3", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("arch>=8.0", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("arch=9.0", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("brand=TESLA", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("Brand!=geforce", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("DRIVER>=550", &t124), GA_NVREQ_SATISFIED);
	/* empty text, empty alternatives and terms: nothing to hold */
	assert_int_equal(v("", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("   ", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v(NULL, &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v(",,cuda>=12,,", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("  cuda>=13  cuda>=12 ", &t124), GA_NVREQ_SATISFIED);
	/* an alternative of empty terms ends the evaluation with the previous outcome */
	assert_int_equal(v(",", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("cuda>=13 , cuda>=12", &t124), GA_NVREQ_UNSATISFIED);
	/* no target facts at all */
	assert_int_equal(v("cuda>=12", NULL), GA_NVREQ_UNKNOWN);
	/* a false term decides the alternative even after an unknown one */
	assert_int_equal(v("brand=tesla,driver>=999", &bare), GA_NVREQ_UNSATISFIED);
	assert_int_equal(v("brand=tesla,driver>=500", &bare), GA_NVREQ_UNKNOWN);
}

static void test_malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"cuda",       "cuda>=",     ">=12",       "cuda==12.8", "cuda=>12",
		"cuda<>12",   "cuda>=12.x", "cuda>=.5",   "gpu>=1",     "brand>tesla",
		"brand<=a",   "cuda>=-1",   "cuda >= 12", "cuda>=1e3",  "toolongkeyxxxxxxxx>=1",
		"cuda>=12\t", "driver!>1",  "=",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ga_nvreq_result r;
		ga_nvreq_eval(bad[i], &t124, &r);
		if (r.verdict != GA_NVREQ_INVALID)
			print_error("not invalid: \"%s\"\n", bad[i]);
		assert_int_equal(r.verdict, GA_NVREQ_INVALID);
		assert_string_equal(r.message, "invalid expression");
	}
	/* not reached: the toolkit stops at the first alternative that holds, or the first false term */
	assert_int_equal(v("cuda>=12 gpu>=1", &t124), GA_NVREQ_SATISFIED);
	assert_int_equal(v("cuda>=13,gpu>=1 cuda>=12", &t124), GA_NVREQ_SATISFIED);
	/* reached after a failed alternative */
	assert_int_equal(v("cuda>=13 gpu>=1", &t124), GA_NVREQ_INVALID);
	/* a bad brand operator is bad whatever the brand */
	assert_int_equal(v("brand>tesla", &bare), GA_NVREQ_INVALID);
	/* after an unknown term: may be reached */
	struct ga_nvreq_result r;
	ga_nvreq_eval("brand=tesla,gpu>=1", &bare, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNKNOWN);
	assert_non_null(strstr(r.message, "malformed"));
	/* a false term longer than the toolkit's 128-byte buffer is invalid */
	char longv[200] = "driver>=9";
	memset(longv + 9, '9', 150);
	longv[159] = '\0';
	assert_int_equal(v(longv, &t124), GA_NVREQ_INVALID);
	/* a very long text, many alternatives */
	char big[4096];
	size_t n = 0;
	while (n + 12 < sizeof(big)) {
		memcpy(big + n, "cuda>=99.0 ", 11);
		n += 11;
	}
	big[n] = '\0';
	ga_nvreq_eval(big, &t124, &r);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: cuda>=99.0" CUDA_MSG);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(v(big, &t124), GA_NVREQ_INVALID);
}

static void test_image(void **state)
{
	(void)state;
	struct ga_nvreq_result r;
	int off;
	const char *env[] = { "PATH=/usr/bin", "CUDA_VERSION=12.8.1",
		              "NVIDIA_REQUIRE_CUDA=cuda>=12.8 brand=tesla,driver>=535,driver<536" };
	assert_int_equal(ga_nvreq_image(env, 3, &t124, &r, &off), 1);
	assert_int_equal(off, 0);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: cuda>=12.8" CUDA_MSG);
	assert_non_null(strstr(r.detail, "NVIDIA_REQUIRE_CUDA: "));
	assert_int_equal(ga_nvreq_image(env, 3, &t130, &r, &off), 1);
	assert_int_equal(r.verdict, GA_NVREQ_SATISFIED);
	/* disabled: only a true boolean */
	const char *dis[] = { env[2], "NVIDIA_DISABLE_REQUIRE=true" };
	assert_int_equal(ga_nvreq_image(dis, 2, &t124, &r, &off), 0);
	assert_int_equal(off, 1);
	assert_int_equal(r.verdict, GA_NVREQ_SATISFIED);
	const char *dis0[] = { env[2], "NVIDIA_DISABLE_REQUIRE=no" };
	assert_int_equal(ga_nvreq_image(dis0, 2, &t124, &r, &off), 1);
	assert_int_equal(off, 0);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	/* legacy image: CUDA_VERSION alone is cuda>=major.minor */
	const char *leg[] = { "CUDA_VERSION=12.6.3" };
	assert_int_equal(ga_nvreq_image(leg, 1, &t124, &r, NULL), 1);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: cuda>=12.6" CUDA_MSG);
	/* every NVIDIA_REQUIRE_* must hold; JETPACK ones are not the toolkit's; the last entry wins */
	const char *many[] = { "NVIDIA_REQUIRE_JETPACK=csv-mounts=all", "NVIDIA_REQUIRE_CUDA=cuda>=13",
		               "NVIDIA_REQUIRE_ARCH=arch>=9.0", "NVIDIA_REQUIRE_CUDA=cuda>=12.0",
		               "NVIDIA_REQUIRE_DRV=driver>=600" };
	assert_int_equal(ga_nvreq_image(many, 5, &t124, &r, NULL), 3);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	assert_string_equal(r.message, "unsatisfied condition: driver>=600");
	assert_non_null(strstr(r.detail, "NVIDIA_REQUIRE_DRV"));
	/* an unsatisfied requirement outranks an unknown one */
	const char *mix[] = { "NVIDIA_REQUIRE_A=brand=tesla", "NVIDIA_REQUIRE_B=cuda>=13" };
	assert_int_equal(ga_nvreq_image(mix, 2, &bare, &r, NULL), 2);
	assert_int_equal(r.verdict, GA_NVREQ_UNSATISFIED);
	/* no requirements, odd entries */
	const char *none[] = { NULL, "NVIDIA_REQUIRE_X", "=", "" };
	assert_int_equal(ga_nvreq_image(none, 4, &t124, &r, NULL), 0);
	assert_int_equal(r.verdict, GA_NVREQ_SATISFIED);
	assert_int_equal(ga_nvreq_image(NULL, 0, &t124, &r, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_cmp), cmocka_unit_test(test_cuda_images),
		cmocka_unit_test(test_messages),    cmocka_unit_test(test_terms),
		cmocka_unit_test(test_malformed),   cmocka_unit_test(test_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
