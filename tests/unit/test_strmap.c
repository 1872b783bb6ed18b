/* test_strmap.c - the one string map and FNV-1a (include/gpuaudit/strmap.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/strmap.h"

/* FNV-1a 64 test vectors published with the algorithm (draft-eastlake-fnv, Appendix C) */
static void test_fnv1a64_vectors(void **state)
{
	(void)state;
	assert_true(ga_fnv1a64("", 0) == 0xcbf29ce484222325ull);
	assert_true(ga_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(ga_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
	/* continuing a hash is hashing the concatenation */
	assert_true(ga_fnv1a64_add(ga_fnv1a64("foo", 3), "bar", 3) == ga_fnv1a64("foobar", 6));
}

static void test_put_get_grow(void **state)
{
	(void)state;
	struct ga_strmap m = { 0 };
	char k[32];
	assert_false(ga_strmap_get(&m, "x", NULL));
	for (size_t i = 0; i < 5000; i++) {
		snprintf(k, sizeof(k), "key-%zu", i);
		assert_int_equal(ga_strmap_put(&m, k, i * 3, NULL), 0);
	}
	assert_int_equal(m.n, 5000);
	assert_true(m.n * 2 <= m.cap);
	for (size_t i = 0; i < 5000; i++) {
		size_t v = 0;
		snprintf(k, sizeof(k), "key-%zu", i);
		assert_true(ga_strmap_get(&m, k, &v));
		assert_int_equal(v, i * 3);
	}
	assert_false(ga_strmap_get(&m, "key-5000", NULL));
	/* a key given by length matches only the whole key */
	assert_true(ga_strmap_get_n(&m, "key-12/rest", 6, NULL));
	assert_true(ga_strmap_get_n(&m, "key-1234", 5, NULL)); /* "key-1" */
	assert_false(ga_strmap_get_n(&m, "key-", 4, NULL));
	/* replacing a value keeps one key */
	const char *own = NULL;
	assert_int_equal(ga_strmap_put(&m, "key-7", 99, &own), 0);
	assert_string_equal(own, "key-7");
	assert_int_equal(m.n, 5000);
	size_t v = 0;
	assert_true(ga_strmap_get(&m, "key-7", &v));
	assert_int_equal(v, 99);
	/* every key is in exactly one slot */
	size_t seen = 0;
	for (size_t i = 0; i < m.cap; i++)
		seen += m.keys[i] != NULL;
	assert_int_equal(seen, m.n);
	ga_strmap_release(&m);
	assert_null(m.keys);
	assert_int_equal(m.n, 0);
}

static void test_enomem_leaves_map(void **state)
{
	(void)state;
	struct ga_strmap m = { 0 };
	char k[32];
	for (size_t i = 0; i < 32; i++) {
		snprintf(k, sizeof(k), "k%zu", i);
		assert_int_equal(ga_strmap_put(&m, k, i, NULL), 0);
	}
	/* the 33rd key needs a bigger table: every failing allocation leaves the map as it was */
	for (long n = 0; n < 4; n++) {
		ga_alloc_fail_after(n);
		int r = ga_strmap_put(&m, "new", 1, NULL);
		ga_alloc_fail_after(-1);
		if (r == 0)
			break;
		assert_int_equal(r, -ENOMEM);
		assert_int_equal(m.n, 32);
		assert_false(ga_strmap_get(&m, "new", NULL));
		assert_true(ga_strmap_get(&m, "k31", NULL));
	}
	assert_true(ga_strmap_get(&m, "new", NULL));
	ga_strmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv1a64_vectors),
		cmocka_unit_test(test_put_get_grow),
		cmocka_unit_test(test_enomem_leaves_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
