/*
 * test_dl.c - the one loader (lib/dl): the table of libs.def names every
 * library once (unique names, unique sonames, each with a purpose and a
 * soname); ga_dl_open loads the fake NVML of tests/fakes through the NVML row
 * and binds a symbol table, leaves optional symbols NULL, and on a missing
 * required symbol publishes nothing and unloads the library again (checked
 * with RTLD_NOLOAD); a name that does not load says why; ga_dl_shared loads
 * once and gives every caller, threads included, the same handle.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dl/dl.h"

#ifndef GA_FAKE_NVML_DIR
#error "tests/CMakeLists.txt defines GA_FAKE_NVML_DIR for test_dl"
#endif
#define FAKE GA_FAKE_NVML_DIR "/libnvidia-ml.so.1"

struct fake_api {
	void *nvmlInit_v2;
	void *nvmlShutdown;
	void *absent;
};

static bool fake_loaded(void)
{
	void *h = dlopen(FAKE, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return false;
	dlclose(h); /* the reference RTLD_NOLOAD took */
	return true;
}

static void test_table(void **state)
{
	(void)state;
	size_t sonames = 0;
	assert_int_equal(GA_DL_N, 18);
	for (size_t i = 0; i < GA_DL_N; i++) {
		const struct ga_dl_lib *a = &ga_dl_libs[i];
		assert_non_null(a->name);
		assert_non_null(a->what);
		assert_true(strlen(a->what) > 10);
		assert_non_null(a->sonames);
		assert_non_null(a->sonames[0]);
		for (size_t j = i + 1; j < GA_DL_N; j++)
			assert_string_not_equal(a->name, ga_dl_libs[j].name);
		for (const char *const *s = a->sonames; *s; s++) {
			sonames++;
			assert_non_null(strstr(*s, ".so"));
			/* no soname twice, in this row or any other */
			for (size_t j = i; j < GA_DL_N; j++)
				for (const char *const *t = ga_dl_libs[j].sonames; *t; t++)
					if (t != s)
						assert_string_not_equal(*s, *t);
		}
	}
	assert_true(sonames >= GA_DL_N);
	/* the package Depends on exactly the two serve cannot run without */
	for (size_t i = 0; i < GA_DL_N; i++)
		assert_int_equal(ga_dl_libs[i].optional, i != GA_DL_MHD && i != GA_DL_GNUTLS);
}

static void test_open_fake(void **state)
{
	(void)state;
	static const struct ga_dl_sym t[] = {
		GA_DL_SYM(struct fake_api, nvmlInit_v2),
		GA_DL_SYM(struct fake_api, nvmlShutdown),
		{ { "gaNoSuchSymbol", "gaNorThisOne" }, offsetof(struct fake_api, absent), false },
	};
	static const char *const names[] = { "libgpuaudit-no-such-nvml.so.1", FAKE, NULL };
	struct fake_api api;
	memset(&api, 0xa5, sizeof(api));
	struct ga_dl_status st;
	void *h = ga_dl_open(GA_DL_NVML, names, NULL, t, 3, &api, &st);
	assert_non_null(h);
	assert_string_equal(st.loaded, FAKE);
	assert_null(st.missing);
	assert_false(st.in_dir);
	/* the first name's failure is kept for the message */
	assert_non_null(strstr(st.error, "libgpuaudit-no-such-nvml.so.1"));
	assert_ptr_equal(api.nvmlInit_v2, dlsym(h, "nvmlInit_v2"));
	assert_non_null(api.nvmlShutdown);
	assert_null(api.absent);
	char path[4096];
	assert_true(ga_dl_path(h, path, sizeof(path)));
	assert_non_null(strstr(path, "libnvidia-ml.so.1"));
	assert_true(fake_loaded());
	ga_dl_close(h);
	assert_false(fake_loaded());
	ga_dl_close(NULL);
}

static void test_missing_required(void **state)
{
	(void)state;
	static const struct ga_dl_sym t[] = {
		GA_DL_SYM(struct fake_api, nvmlInit_v2),
		{ { "gaNoSuchSymbol" }, offsetof(struct fake_api, absent), true },
		GA_DL_SYM(struct fake_api, nvmlShutdown),
	};
	static const char *const names[] = { FAKE, NULL };
	struct fake_api api;
	memset(&api, 0xa5, sizeof(api));
	struct ga_dl_status st;
	assert_false(fake_loaded());
	assert_null(ga_dl_open(GA_DL_NVML, names, NULL, t, 3, &api, &st));
	assert_string_equal(st.loaded, FAKE);
	assert_string_equal(st.missing, "gaNoSuchSymbol");
	/* nothing of the partial table is published, and the library is gone again */
	assert_null(api.nvmlInit_v2);
	assert_null(api.absent);
	assert_null(api.nvmlShutdown);
	assert_false(fake_loaded());
	/* a NULL status is allowed */
	assert_null(ga_dl_open(GA_DL_NVML, names, NULL, t, 3, &api, NULL));
	assert_false(fake_loaded());
}

static void test_not_found(void **state)
{
	(void)state;
	static const char *const names[] = { "libgpuaudit-no-such-a.so.1", "libgpuaudit-no-such-b.so.1",
		                             NULL };
	struct fake_api api = { 0 };
	struct ga_dl_status st;
	assert_null(ga_dl_open(GA_DL_CBLAS, names, NULL, NULL, 0, &api, &st));
	assert_null(st.loaded);
	assert_null(st.missing);
	assert_non_null(strstr(st.error, "libgpuaudit-no-such-a.so.1"));
	assert_null(ga_dl_open(GA_DL_N, names, NULL, NULL, 0, &api, &st));
}

static void test_dir_retry(void **state)
{
	(void)state;
	/* libnvidia-ml.so.1 exists only under the fakes' directory here */
	void *real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!real)
		real = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (real) {
		dlclose(real);
		skip();
	}
	static const struct ga_dl_sym t[] = { GA_DL_SYM(struct fake_api, nvmlInit_v2) };
	struct fake_api api = { 0 };
	struct ga_dl_status st;
	void *h = ga_dl_open(GA_DL_NVML, NULL, GA_FAKE_NVML_DIR, t, 1, &api, &st);
	assert_non_null(h);
	assert_true(st.in_dir);
	assert_string_equal(st.loaded, "libnvidia-ml.so.1");
	assert_non_null(api.nvmlInit_v2);
	ga_dl_close(h);
	/* without the directory, the row's sonames alone find nothing */
	assert_null(ga_dl_open(GA_DL_NVML, NULL, NULL, t, 1, &api, &st));
	assert_null(st.loaded);
	assert_null(api.nvmlInit_v2);
}

/* zlib through its shared row: the library every Debian system has */
static struct {
	void *inflate;
	void *inflateEnd;
} z;
static const struct ga_dl_sym z_syms[] = {
	{ { "inflate" }, offsetof(__typeof__(z), inflate), true },
	{ { "inflateEnd" }, offsetof(__typeof__(z), inflateEnd), true },
};

static void *shared_thread(void *arg)
{
	(void)arg;
	return ga_dl_shared(GA_DL_ZLIB, z_syms, 2, &z, NULL);
}

static void test_shared(void **state)
{
	(void)state;
	pthread_t th[8];
	void *got[8];
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&th[i], NULL, shared_thread, NULL), 0);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(pthread_join(th[i], &got[i]), 0);
	const struct ga_dl_status *st = NULL;
	void *h = ga_dl_shared(GA_DL_ZLIB, z_syms, 2, &z, &st);
	assert_non_null(st);
	for (size_t i = 0; i < 8; i++)
		assert_ptr_equal(got[i], h);
	if (!h) {
		assert_null(z.inflate); /* no zlib here: nothing published */
		skip();
	}
	assert_string_equal(st->loaded, "libz.so.1");
	assert_ptr_equal(z.inflate, dlsym(h, "inflate"));
	assert_non_null(z.inflateEnd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_open_fake),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_dir_retry),
		cmocka_unit_test(test_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
