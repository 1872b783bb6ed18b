/* test_buf.c - struct ga_buf, ga_array_push and the failing allocator. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"

static void test_add_and_terminate(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_null(b.data);
	assert_int_equal(ga_buf_add(&b, "abc", 3), 0);
	assert_int_equal(ga_buf_adds(&b, "def"), 0);
	assert_int_equal(ga_buf_addc(&b, 'g'), 0);
	assert_int_equal(ga_buf_add(&b, NULL, 0), 0);
	assert_int_equal(b.len, 7);
	assert_string_equal(b.data, "abcdefg");
	assert_true(b.cap > b.len);
	/* embedded NUL bytes are kept and the length counts them */
	assert_int_equal(ga_buf_add(&b, "x\0y", 3), 0);
	assert_int_equal(b.len, 10);
	assert_memory_equal(b.data + 7, "x\0y", 4);
	ga_buf_release(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void test_addf(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_buf_addf(&b, "%d-%s-%zu", 42, "x", (size_t)7), 0);
	assert_string_equal(b.data, "42-x-7");
	/* longer than the 256-byte fast path */
	char big[1000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(ga_buf_addf(&b, "[%s]", big), 0);
	assert_int_equal(b.len, 6 + 1001);
	assert_int_equal(b.data[6], '[');
	assert_int_equal(b.data[b.len - 1], ']');
	assert_int_equal(b.data[b.len], '\0');
	assert_int_equal(strlen(b.data), b.len);
	ga_buf_release(&b);
}

static void test_cap(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 8);
	assert_int_equal(ga_buf_adds(&b, "12345"), 0);
	/* over the cap: -E2BIG and nothing changes */
	assert_int_equal(ga_buf_adds(&b, "6789"), -E2BIG);
	assert_int_equal(b.len, 5);
	assert_string_equal(b.data, "12345");
	assert_int_equal(ga_buf_addf(&b, "%s", "abcd"), -E2BIG);
	assert_string_equal(b.data, "12345");
	char big[600];
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(ga_buf_addf(&b, "%s", big), -E2BIG);
	assert_int_equal(b.len, 5);
	assert_string_equal(b.data, "12345");
	/* exactly the cap fits */
	assert_int_equal(ga_buf_adds(&b, "678"), 0);
	assert_string_equal(b.data, "12345678");
	assert_int_equal(ga_buf_addc(&b, '9'), -E2BIG);
	assert_int_equal(b.len, 8);
	assert_true(b.cap <= 9);
	/* SIZE_MAX extra cannot wrap the length check */
	assert_int_equal(ga_buf_add(&b, "x", SIZE_MAX), -E2BIG);
	ga_buf_release(&b);
	assert_int_equal(b.max, 8); /* release keeps the cap */
}

static void test_detach_reset(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 100);
	size_t len = 99;
	char *s = ga_buf_detach(&b, &len);
	assert_non_null(s); /* an empty buffer detaches as "" */
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	ga_free(s);

	assert_int_equal(ga_buf_adds(&b, "hello"), 0);
	s = ga_buf_detach(&b, &len);
	assert_string_equal(s, "hello");
	assert_int_equal(len, 5);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.max, 100);
	ga_free(s);

	assert_int_equal(ga_buf_adds(&b, "again"), 0);
	char *before = b.data;
	ga_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_ptr_equal(b.data, before); /* reset keeps the storage */
	assert_string_equal(b.data, "");
	assert_int_equal(ga_buf_adds(&b, "x"), 0);
	assert_string_equal(b.data, "x");
	ga_buf_release(&b);
	ga_buf_reset(&b); /* on an empty buffer: no crash */
	assert_null(b.data);
}

struct item {
	int a;
	char pad[13];
};

static void test_array_push(void **state)
{
	(void)state;
	struct item *v = NULL;
	size_t n = 0;
	for (int i = 0; i < 100; i++) {
		struct item *e = ga_array_push((void **)&v, &n, sizeof(*v));
		assert_non_null(e);
		assert_int_equal(n, (size_t)i + 1);
		assert_ptr_equal(e, &v[i]);
		assert_int_equal(e->a, 0); /* zeroed */
		e->a = i;
	}
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i].a, i);
	/* a count that would overflow the size is refused, array unchanged */
	size_t huge = SIZE_MAX / sizeof(*v);
	struct item *keep = v;
	assert_null(ga_array_push((void **)&v, &huge, sizeof(*v)));
	assert_ptr_equal(v, keep);
	assert_int_equal(huge, SIZE_MAX / sizeof(*v));
	ga_free(v);
}

static void test_alloc_failure(void **state)
{
	(void)state;
	/* first allocation fails: buffer untouched */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	ga_alloc_fail_after(0);
	assert_int_equal(ga_buf_adds(&b, "abc"), -ENOMEM);
	ga_alloc_fail_after(-1);
	assert_null(b.data);
	assert_int_equal(b.len, 0);

	/* growth fails after some successes: contents kept, no leak */
	assert_int_equal(ga_buf_adds(&b, "abc"), 0);
	char big[4096];
	memset(big, 'y', sizeof(big));
	ga_alloc_fail_after(0);
	assert_int_equal(ga_buf_add(&b, big, sizeof(big)), -ENOMEM);
	assert_int_equal(ga_buf_addf(&b, "%.*s", 300, big), -ENOMEM);
	ga_alloc_fail_after(-1);
	assert_int_equal(b.len, 3);
	assert_string_equal(b.data, "abc");
	ga_buf_release(&b);

	/* detach of an empty buffer needs an allocation */
	ga_alloc_fail_after(0);
	size_t len = 7;
	assert_null(ga_buf_detach(&b, &len));
	ga_alloc_fail_after(-1);
	assert_int_equal(len, 0);

	/* array push */
	int *v = NULL;
	size_t n = 0;
	assert_non_null(ga_array_push((void **)&v, &n, sizeof(*v)));
	ga_alloc_fail_after(0);
	assert_null(ga_array_push((void **)&v, &n, sizeof(*v)));
	ga_alloc_fail_after(-1);
	assert_int_equal(n, 1);
	ga_free(v);

	/* countdown: N successes then failures until reset */
	ga_alloc_fail_after(2);
	void *p1 = ga_malloc(1), *p2 = ga_strdup("x"), *p3 = ga_calloc(1, 1), *p4 = ga_malloc(1);
	ga_alloc_fail_after(-1);
	assert_non_null(p1);
	assert_non_null(p2);
	assert_null(p3);
	assert_null(p4);
	ga_free(p1);
	ga_free(p2);
	assert_null(ga_strdup(NULL));
	char *d = ga_strndup("abcdef", 3);
	assert_string_equal(d, "abc");
	ga_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_terminate),
		cmocka_unit_test(test_addf),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_detach_reset),
		cmocka_unit_test(test_array_push),
		cmocka_unit_test(test_alloc_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
