/*
 * test_pkgmeta.c - the npm and rpm metadata readers (lib/deps/npm.c,
 * lib/deps/rpm.c) on hand-built inputs: every field they keep, every way a
 * header can lie about its sizes (each refused with its message), the signals
 * and ownership derived from them, GA-DEPS-INSTALL-SCRIPT, and allocation
 * failures at every step.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/internal.h"
#include "gpuaudit/deps.h"

/* ---- an rpm header blob, written as rpm writes one (big-endian counts, index, data store) ---- */

struct hb {
	uint8_t index[64 * 16], data[4096];
	uint32_t il, dl;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void entry(struct hb *h, uint32_t tag, uint32_t type, uint32_t off, uint32_t count)
{
	uint8_t *e = h->index + h->il++ * 16;
	put32(e, tag);
	put32(e + 4, type);
	put32(e + 8, off);
	put32(e + 12, count);
}

/* strings one after the other, NUL-terminated: an entry of type (6 or 8) */
static void strs(struct hb *h, uint32_t tag, uint32_t type, const char *const *v, uint32_t n)
{
	entry(h, tag, type, h->dl, n);
	for (uint32_t i = 0; i < n; i++) {
		size_t k = strlen(v[i]) + 1;
		memcpy(h->data + h->dl, v[i], k);
		h->dl += (uint32_t)k;
	}
}

static void int32s(struct hb *h, uint32_t tag, const uint32_t *v, uint32_t n)
{
	h->dl = (h->dl + 3) & ~3u;
	entry(h, tag, 4, h->dl, n);
	for (uint32_t i = 0; i < n; i++, h->dl += 4)
		put32(h->data + h->dl, v[i]);
}

static size_t finish(const struct hb *h, uint8_t *out)
{
	put32(out, h->il);
	put32(out + 4, h->dl);
	memcpy(out + 8, h->index, (size_t)h->il * 16);
	memcpy(out + 8 + h->il * 16, h->data, h->dl);
	return 8 + (size_t)h->il * 16 + h->dl;
}

static size_t sample(uint8_t *out)
{
	struct hb h = { 0 };
	const char *name[] = { "cudaapp" }, *ver[] = { "1.0" }, *rel[] = { "1.el9" }, *arch[] = { "x86_64" };
	const char *req[] = { "libcuda.so.1()(64bit)", "cuda-cudart-12-4", "rpmlib(CompressedFileNames)" };
	const char *prov[] = { "cudaapp" }, *base[] = { "libcudaapp.so.1", "README" };
	const char *dirs[] = { "/usr/lib64/", "/usr/share/doc/cudaapp/" };
	const uint32_t epoch = 3, di[] = { 0, 1 };
	strs(&h, 1000, 6, name, 1);
	strs(&h, 1001, 6, ver, 1);
	strs(&h, 1002, 6, rel, 1);
	strs(&h, 1022, 6, arch, 1);
	int32s(&h, 1003, &epoch, 1);
	strs(&h, 1049, 8, req, 3);
	strs(&h, 1047, 8, prov, 1);
	int32s(&h, 1116, di, 2);
	strs(&h, 1117, 8, base, 2);
	strs(&h, 1118, 8, dirs, 2);
	return finish(&h, out);
}

static void test_rpm_blob_fields(void **state)
{
	(void)state;
	uint8_t b[8192];
	size_t n = sample(b), used = 0;
	struct ga_deps_pkg p = { 0 };
	char err[200] = "";
	assert_int_equal(ga_rpm_parse_header_blob(b, n, &p, &used, err, sizeof(err)), 0);
	assert_int_equal(used, n);
	assert_string_equal(p.name, "cudaapp");
	assert_string_equal(p.version, "3:1.0-1.el9");
	assert_string_equal(p.arch, "x86_64");
	assert_int_equal(p.requires.n, 3);
	assert_string_equal(p.requires.v[0], "libcuda.so.1()(64bit)");
	assert_int_equal(p.provides.n, 1);
	assert_int_equal(p.files.n, 2);
	assert_string_equal(p.files.v[0], "usr/lib64/libcudaapp.so.1");
	assert_string_equal(p.files.v[1], "usr/share/doc/cudaapp/README");
	ga_deps_pkg_release(&p);
	/* every prefix of it is refused with a reason, never read past */
	for (size_t k = 0; k < n; k++) {
		uint8_t *cut = malloc(k ? k : 1);
		memcpy(cut, b, k);
		struct ga_deps_pkg q = { 0 };
		err[0] = '\0';
		int r = ga_rpm_parse_header_blob(cut, k, &q, &used, err, sizeof(err));
		assert_int_equal(r, -EINVAL);
		assert_true(err[0] != '\0');
		ga_deps_pkg_release(&q);
		free(cut);
	}
}

/* a blob with one lie in it: the message names it */
static void expect_refused(const uint8_t *b, size_t n, const char *want)
{
	struct ga_deps_pkg p = { 0 };
	char err[200] = "";
	size_t used;
	assert_int_equal(ga_rpm_parse_header_blob(b, n, &p, &used, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("message \"%s\" lacks \"%s\"", err, want);
	ga_deps_pkg_release(&p);
}

static void test_rpm_blob_lies(void **state)
{
	(void)state;
	uint8_t b[8192];
	size_t n = sample(b);
	uint8_t c[8192];
	/* counts */
	memcpy(c, b, n);
	put32(c, 0);
	expect_refused(c, n, "index count 0 out of range");
	put32(c, 0xffffffffu);
	expect_refused(c, n, "index count 4294967295 out of range");
	memcpy(c, b, n);
	put32(c + 4, 0x7fffffffu);
	expect_refused(c, n, "above the");
	memcpy(c, b, n);
	put32(c + 4, 300u << 20);
	expect_refused(c, n, "above the");
	/* NAME's offset past the data store, its count huge, its type wrong */
	memcpy(c, b, n);
	put32(c + 8 + 8, 0x10000000u);
	expect_refused(c, n, "past the data store");
	memcpy(c, b, n);
	put32(c + 8 + 4, 4);
	expect_refused(c, n, "not a string");
	/* the REQUIRENAME array (6th entry) claims more strings than the store holds */
	memcpy(c, b, n);
	put32(c + 8 + 5 * 16 + 12, 0xfffffff0u);
	expect_refused(c, n, "count 4294967280 does not fit");
	memcpy(c, b, n);
	put32(c + 8 + 5 * 16 + 12, 40);
	expect_refused(c, n, "REQUIRENAME");
	/* DIRINDEXES (8th) with more entries than BASENAMES, and past the store */
	memcpy(c, b, n);
	put32(c + 8 + 7 * 16 + 12, 3);
	expect_refused(c, n, "DIRINDEXES has 3 entries but BASENAMES 2");
	memcpy(c, b, n);
	put32(c + 8 + 7 * 16 + 8, 0xfffffffcu);
	expect_refused(c, n, "DIRINDEXES");
	/* a last string without its NUL */
	memcpy(c, b, n);
	c[n - 1] = 'x';
	expect_refused(c, n, "not terminated");
	/* no NAME at all */
	struct hb h = { 0 };
	const char *ver[] = { "1" };
	strs(&h, 1001, 6, ver, 1);
	size_t k = finish(&h, c);
	expect_refused(c, k, "no NAME");
}

static void test_rpm_package_lead(void **state)
{
	(void)state;
	uint8_t blob[8192], f[9000];
	size_t n = sample(blob);
	memset(f, 0, sizeof(f));
	memcpy(f, "\xed\xab\xee\xdb\x03\x00", 6);
	f[79] = 5;
	/* an empty signature header: 16 bytes, already 8-aligned */
	memcpy(f + 96, "\x8e\xad\xe8\x01", 4);
	put32(f + 96 + 8, 1);
	put32(f + 96 + 12, 0);
	memset(f + 96 + 16, 0, 16); /* one index entry (tag 0) */
	size_t at = 96 + 32;
	memcpy(f + at, "\x8e\xad\xe8\x01\0\0\0\0", 8);
	memcpy(f + at + 8, blob, n);
	size_t total = at + 8 + n, payload = 0;
	struct ga_deps_pkg p = { 0 };
	char err[200] = "";
	assert_int_equal(ga_rpm_parse_package(f, total + 10, &p, &payload, err, sizeof(err)), 0);
	assert_int_equal(payload, total);
	assert_string_equal(p.name, "cudaapp");
	ga_deps_pkg_release(&p);
	f[79] = 1;
	assert_int_equal(ga_rpm_parse_package(f, total, &p, &payload, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "signature type 1"));
	f[79] = 5;
	f[96] = 0;
	assert_int_equal(ga_rpm_parse_package(f, total, &p, &payload, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "signature header missing"));
	assert_int_equal(ga_rpm_parse_package(f, 50, &p, &payload, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the lead alone takes 96"));
	ga_deps_pkg_release(&p);
}

/* ---- npm ---- */

static int npm(const char *json, struct ga_deps_pkg *p, char *err, size_t n)
{
	return ga_npm_parse_package_json(json, strlen(json), p, err, n);
}

static void test_npm_fields(void **state)
{
	(void)state;
	struct ga_deps_pkg p = { 0 };
	char err[200] = "";
	assert_int_equal(
	        npm("{\"name\": \"@x/y\", \"version\": \"1.2.3\", \"os\": [\"linux\", \"!win32\"], "
	            "\"cpu\": \"x64\", \"libc\": [\"glibc\", 7], \"dependencies\": {\"a\": \"^1\", "
	            "\"global-agent\": \"^3\"}, \"optionalDependencies\": {\"@n/linux-x64-cuda\": \"1\"}, "
	            "\"scripts\": {\"test\": \"x\", \"postinstall\": \"node ./script/install\\nrm -rf x\"}}",
	            &p, err, sizeof(err)),
	        0);
	assert_string_equal(p.name, "@x/y");
	assert_string_equal(p.version, "1.2.3");
	assert_int_equal(p.os.n, 2);
	assert_string_equal(p.os.v[1], "!win32");
	assert_int_equal(p.cpu.n, 1);
	assert_int_equal(p.libc.n, 1);
	assert_int_equal(p.requires.n, 2);
	assert_string_equal(p.requires.v[0], "a@^1");
	assert_int_equal(p.optional.n, 1);
	assert_int_equal(p.install_scripts.n, 1);
	assert_string_equal(p.install_scripts.v[0], "postinstall: node ./script/install rm -rf x");
	assert_string_equal(p.install_fetch, "dependency global-agent");
	ga_deps_pkg_release(&p);

	assert_int_equal(npm("{\"type\": \"module\"}", &p, err, sizeof(err)), 1);
	ga_deps_pkg_release(&p);
	assert_int_equal(npm("{\"name\": 3}", &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "\"name\" is not a non-empty string");
	assert_int_equal(npm("[1]", &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "not a JSON object");
	assert_int_equal(npm("{\"name\": \"x\",", &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "invalid JSON at line 1"));
	ga_deps_pkg_release(&p);
	/* node-pre-gyp's binary field alone says it downloads */
	assert_int_equal(
	        npm("{\"name\": \"b\", \"binary\": {\"module_name\": \"m\", \"host\": \"https://h\"}}", &p,
	            err, sizeof(err)),
	        0);
	assert_string_equal(p.install_fetch, "binary");
	ga_deps_pkg_release(&p);
}

/* An npm package in tree 0 at dir, parsed from json. */
static void add_npm(struct ga_deps_inventory *inv, const char *dir, const char *json)
{
	struct ga_deps_pkg *p = ga_array_push((void **)&inv->pkgs, &inv->n_pkgs, sizeof(*p));
	assert_non_null(p);
	memset(p, 0, sizeof(*p));
	char err[100];
	assert_int_equal(npm(json, p, err, sizeof(err)), 0);
	p->kind = ga_strdup("npm");
	p->tree_dir = ga_strdup(dir);
	p->meta_dir = ga_strdup(dir);
	p->meta_path = ga_strdup(dir);
	p->owns_dir = true;
}

static void add_plain_file(struct ga_deps_inventory *inv, const char *tp)
{
	struct ga_deps_file *f = ga_array_push((void **)&inv->files, &inv->n_files, sizeof(*f));
	assert_non_null(f);
	memset(f, 0, sizeof(*f));
	f->path = ga_strdup(tp);
	f->tree_path = ga_strdup(tp);
	f->pkg = -1;
}

static void test_npm_signals_ownership(void **state)
{
	(void)state;
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	assert_int_equal(ga_deps_add_tree(&inv, "app", "dir"), 0);
	add_npm(&inv, "app", "{\"name\": \"app\"}");
	add_npm(&inv, "app/node_modules/a",
	        "{\"name\": \"a\", \"optionalDependencies\": {\"@n/linux-x64-cuda\": \"1\", "
	        "\"@n/mac-arm64-metal\": \"1\", "
	        "\"@n/win-x64-cuda\": \"1\", \"@n/linux-x64-vulkan\": \"1\"}, \"scripts\": {\"install\": "
	        "\"prebuild-install "
	        "|| node-gyp rebuild\"}}");
	add_npm(&inv, "app/node_modules/a/node_modules/b", "{\"name\": \"b-rocm\"}");
	add_plain_file(&inv, "app/x.node");
	add_plain_file(&inv, "app/node_modules/a/build/a.node");
	add_plain_file(&inv, "app/node_modules/a/node_modules/b/b.node");
	add_plain_file(&inv, "app/node_modules/ab/c.node"); /* "a" is not a directory above it */
	add_plain_file(&inv, "elsewhere/d.node");
	assert_int_equal(ga_deps_signals(&inv), 0);
	assert_int_equal(inv.files[0].pkg, 0);
	assert_int_equal(inv.files[1].pkg, 1);
	assert_int_equal(inv.files[2].pkg, 2);
	assert_int_equal(inv.files[3].pkg, 0);
	assert_int_equal(inv.files[4].pkg, -1);
	const struct ga_deps_pkg *a = &inv.pkgs[1];
	assert_int_equal(a->n_signals, 2); /* linux cuda and vulkan; not mac metal, not win cuda */
	assert_int_equal(a->signals[0].backend, GA_DEP_CUDA);
	assert_string_equal(a->signals[0].what, "optionalDependencies @n/linux-x64-cuda@1");
	assert_int_equal(a->signals[1].backend, GA_DEP_VULKAN);
	assert_int_equal(inv.pkgs[2].n_signals, 1);
	assert_int_equal(inv.pkgs[2].signals[0].backend, GA_DEP_ROCM);
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_deps_judge(&inv, NULL, &f), 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].code, "GA-DEPS-INSTALL-SCRIPT");
	assert_int_equal(f.v[0].severity, GA_SEV_WARNING);
	assert_int_equal(f.v[0].action, GA_ACT_INVESTIGATE);
	ga_findings_release(&f);
	ga_deps_inventory_release(&inv);
}

static void test_rpm_signals(void **state)
{
	(void)state;
	uint8_t b[8192];
	size_t n = sample(b), used;
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	assert_int_equal(ga_deps_add_tree(&inv, "x.rpm", "rpm"), 0);
	struct ga_deps_pkg *p = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*p));
	assert_non_null(p);
	memset(p, 0, sizeof(*p));
	char err[100];
	assert_int_equal(ga_rpm_parse_header_blob(b, n, p, &used, err, sizeof(err)), 0);
	p->kind = ga_strdup("rpm");
	p->tree_dir = ga_strdup("");
	assert_int_equal(ga_deps_signals(&inv), 0);
	assert_int_equal(p->n_signals, 2); /* the soname and the CUDA package; rpmlib() is not a signal */
	assert_string_equal(p->signals[0].what, "Requires libcuda.so.1()(64bit)");
	assert_string_equal(p->signals[1].what, "Requires cuda-cudart-12-4");
	assert_int_equal(p->signals[1].runtime_version, 12040);
	ga_deps_inventory_release(&inv);
}

static void test_alloc_failures(void **state)
{
	(void)state;
	uint8_t b[8192];
	size_t n = sample(b), used;
	const char *json =
	        "{\"name\": \"a\", \"version\": \"1\", \"os\": [\"linux\"], \"optionalDependencies\": "
	        "{\"x-cuda\": \"1\"}, \"scripts\": {\"postinstall\": \"curl -O https://x\"}}";
	for (long k = 0; k < 200; k++) {
		struct ga_deps_pkg p = { 0 }, q = { 0 };
		char err[100];
		ga_alloc_fail_after(k);
		int r1 = ga_rpm_parse_header_blob(b, n, &p, &used, err, sizeof(err));
		ga_alloc_fail_after(k);
		int r2 = ga_npm_parse_package_json(json, strlen(json), &q, err, sizeof(err));
		ga_alloc_fail_after(-1);
		assert_true(r1 == 0 || r1 == -ENOMEM);
		assert_true(r2 == 0 || r2 == -ENOMEM ||
		            r2 == -EINVAL); /* jansson's own failure reads as invalid */
		ga_deps_pkg_release(&p);
		ga_deps_pkg_release(&q);
		if (r1 == 0 && r2 == 0)
			break;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rpm_blob_fields),       cmocka_unit_test(test_rpm_blob_lies),
		cmocka_unit_test(test_rpm_package_lead),      cmocka_unit_test(test_npm_fields),
		cmocka_unit_test(test_npm_signals_ownership), cmocka_unit_test(test_rpm_signals),
		cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
