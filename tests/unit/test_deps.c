/*
 * test_deps.c - deps signals and verdicts on hand-built inventories: the
 * cubin/PTX a/f rules container by container, gfx target ids, wrong vendor,
 * CUDA too new, driver libraries bundled, the loader simulation, ISA level,
 * policy rules; target parsing; metadata parsers; allocation failures.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/deps.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/sarif.h"

/* ---- building inventories ---- */

#define MAX_IMG 8

/* A hand-built ELF description (the inventory does not own it: files are detached before release). */
struct fake_elf {
	struct ga_elf_info info;
	struct ga_devcode_container c[MAX_IMG];
	struct ga_devcode_image im[MAX_IMG];
	char *needed[8];
};

static void fake_init(struct fake_elf *e)
{
	memset(e, 0, sizeof(*e));
	e->info.elf_class = 64;
	e->info.machine = 62;
	e->info.type_name = "dyn";
	e->info.containers = e->c;
	e->info.images = e->im;
	e->info.needed = e->needed;
}

static void add_needed(struct fake_elf *e, const char *n)
{
	e->needed[e->info.n_needed++] = (char *)n;
}

/* One container per call; images given as "sm_90a", "compute_80@8.5", "lto_90", "gfx90a:xnack-", "spirv". */
static void add_container(struct fake_elf *e, enum ga_devcode_format fmt, const char *const *arch, size_t n)
{
	struct ga_devcode_container *c = &e->c[e->info.n_containers];
	c->format = fmt;
	c->section = ".nv_fatbin";
	c->offset = 0x1000 * (e->info.n_containers + 1);
	c->first_image = (uint32_t)e->info.n_images;
	c->n_images = (uint32_t)n;
	c->ids_known = true;
	e->info.n_by_format[fmt]++;
	for (size_t i = 0; i < n; i++) {
		struct ga_devcode_image *im = &e->im[e->info.n_images++];
		im->container = (uint32_t)e->info.n_containers;
		const char *a = arch[i];
		snprintf(im->arch, sizeof(im->arch), "%.*s", (int)strcspn(a, "@"), a);
		if (!strncmp(a, "sm_", 3) || !strncmp(a, "compute_", 8) || !strncmp(a, "lto_", 4)) {
			const char *d = strchr(a, '_') + 1;
			char *end;
			im->sm = (uint16_t)strtoul(d, &end, 10);
			im->arch_specific = *end == 'a';
			im->family = *end == 'f';
			im->kind = a[0] == 's' ? GA_CODE_CUBIN : a[0] == 'c' ? GA_CODE_PTX : GA_CODE_LTOIR;
			const char *at = strchr(a, '@');
			if (at) {
				im->ptx_isa_major = (uint16_t)strtoul(at + 1, &end, 10);
				im->ptx_isa_minor = (uint16_t)strtoul(end + 1, NULL, 10);
			}
		} else if (!strcmp(a, "spirv")) {
			im->kind = GA_CODE_SPIRV;
		} else if (!strncmp(a, "host", 4)) {
			im->kind = GA_CODE_HOST;
		} else {
			im->kind = GA_CODE_CODE_OBJECT;
		}
	}
	e->info.n_containers++;
}

static size_t add_file(struct ga_deps_inventory *inv, const char *tree_path, struct fake_elf *e)
{
	if (!inv->n_trees)
		assert_int_equal(ga_deps_add_tree(inv, "art.whl", "wheel"), 0);
	struct ga_deps_file *f = ga_array_push((void **)&inv->files, &inv->n_files, sizeof(*f));
	assert_non_null(f);
	f->tree_path = ga_strdup(tree_path);
	size_t n = strlen(tree_path) + 16;
	f->path = ga_malloc(n);
	snprintf(f->path, n, "art.whl!/%s", tree_path);
	f->pkg = -1;
	if (e)
		f->elf = &e->info;
	else
		f->link = ga_strdup("x");
	return inv->n_files - 1;
}

static void release(struct ga_deps_inventory *inv)
{
	for (size_t i = 0; i < inv->n_files; i++)
		inv->files[i].elf = NULL; /* not owned */
	ga_deps_inventory_release(inv);
}

/* Judge a single fake file against a target spec; returns the findings (caller releases). */
static void judge_one(struct fake_elf *e, const char *tree_path, const char *target, struct ga_findings *out)
{
	struct ga_deps_inventory inv;
	struct ga_deps_target t;
	char err[200];
	ga_deps_inventory_init(&inv);
	add_file(&inv, tree_path, e);
	assert_int_equal(ga_deps_target_parse(target, &t, err, sizeof(err)), 0);
	ga_findings_init(out);
	assert_int_equal(ga_deps_signals(&inv), 0);
	assert_int_equal(ga_deps_judge(&inv, &t, out), 0);
	ga_deps_target_release(&t);
	release(&inv);
}

static const struct ga_finding *find(const struct ga_findings *f, const char *code)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].code, code))
			return &f->v[i];
	return NULL;
}

/* ---- CUDA: one container, one verdict ---- */

struct cuda_case {
	const char *images; /* space-separated */
	const char *target;
	int want; /* 0 runs, 209, 222 */
};

static void test_cuda_rules(void **state)
{
	(void)state;
	static const struct cuda_case cases[] = {
		/* cubin: same major, minor >= */
		{ "sm_80", "cuda:12.4,sm_80", 0 },
		{ "sm_80", "cuda:12.4,sm_86", 0 },
		{ "sm_86", "cuda:12.4,sm_89", 0 },
		{ "sm_86", "cuda:12.4,sm_80", 209 },
		{ "sm_80", "cuda:12.4,sm_90", 209 },
		{ "sm_90", "cuda:13.0,sm_100", 209 },
		/* 'a' runs only on exactly that CC: cuDNN's sm_90a on an H100, not on a B200 */
		{ "sm_90a", "cuda:12.4,sm_90", 0 },
		{ "sm_90a", "cuda:13.0,sm_100", 209 },
		{ "sm_100a", "cuda:13.0,sm_103", 209 },
		/* 'f' runs within the family with minor >= */
		{ "sm_100f", "cuda:13.0,sm_103", 0 },
		{ "sm_100f", "cuda:13.0,sm_100", 0 },
		{ "sm_103f", "cuda:13.0,sm_100", 209 },
		{ "sm_100f", "cuda:13.0,sm_120", 209 },
		/* Tegra parts run only their own cubins */
		{ "sm_80", "cuda:12.4,sm_87", 209 },
		{ "sm_87", "cuda:12.4,sm_87", 0 },
		{ "sm_87", "cuda:12.4,sm_89", 209 },
		/* PTX: any CC >= its own, if the driver knows its ISA */
		{ "compute_80@8.0", "cuda:12.4,sm_90", 0 },
		{ "compute_80@8.4", "cuda:12.4,sm_90", 0 },
		{ "compute_80@8.5", "cuda:12.4,sm_90", 222 },
		{ "compute_120@9.0", "cuda:12.9,sm_120", 222 },
		{ "compute_120@9.0", "cuda:13.0,sm_120", 0 },
		{ "compute_90@8.0", "cuda:12.4,sm_80", 209 },
		{ "compute_90a@8.0", "cuda:12.4,sm_90", 209 }, /* a/f PTX is not portable */
		/* a cubin that runs wins over PTX that is too new */
		{ "sm_90 compute_90@9.1", "cuda:12.4,sm_90", 0 },
		{ "sm_80 compute_80@9.1", "cuda:12.4,sm_90", 222 },
		{ "sm_80 compute_80@8.0", "cuda:12.4,sm_90", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_elf e;
		fake_init(&e);
		char buf[128], *save = NULL;
		const char *arch[MAX_IMG];
		size_t n = 0;
		snprintf(buf, sizeof(buf), "%s", cases[i].images);
		for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			arch[n++] = tok;
		add_container(&e, GA_DEVCODE_CUDA_FATBIN, arch, n);
		struct ga_findings f;
		judge_one(&e, "pkg/libk.so", cases[i].target, &f);
		const struct ga_finding *fd = find(&f, "GA-DEPS-NO-KERNEL-IMAGE");
		if (cases[i].want == 0 && fd)
			fail_msg("case %zu (%s on %s): unexpected %s", i, cases[i].images, cases[i].target,
			         fd->message);
		if (cases[i].want != 0) {
			if (!fd)
				fail_msg("case %zu (%s on %s): no finding", i, cases[i].images,
				         cases[i].target);
			assert_int_equal(fd->severity, GA_SEV_ERROR);
			const char *want = cases[i].want == 209 ? "(cudaError 209)" : "(cudaError 222)";
			if (!strstr(fd->message, want))
				fail_msg("case %zu: '%s' lacks %s", i, fd->message, want);
		}
		ga_findings_release(&f);
	}
}

static void test_cuda_containers(void **state)
{
	(void)state;
	struct fake_elf e;
	fake_init(&e);
	static const char *const c1[] = { "sm_80", "sm_90" };
	static const char *const c2[] = { "sm_80" };
	static const char *const c3[] = { "lto_90" };  /* not a kernel image: ignored */
	static const char *const c4[] = { "sm_100a" }; /* arch-specific: a dispatching library's */
	add_container(&e, GA_DEVCODE_CUDA_FATBIN, c1, 2);
	add_container(&e, GA_DEVCODE_CUDA_FATBIN, c2, 1);
	add_container(&e, GA_DEVCODE_CUDA_FATBIN, c3, 1);
	add_container(&e, GA_DEVCODE_CUDA_FATBIN, c4, 1);
	struct ga_findings f;
	judge_one(&e, "lib/libmix.so", "cuda:13.0,sm_90", &f);
	const struct ga_finding *fd = find(&f, "GA-DEPS-NO-KERNEL-IMAGE");
	assert_non_null(fd);
	/* one of two judged containers fails: the file may still work, a warning */
	assert_int_equal(fd->severity, GA_SEV_WARNING);
	assert_non_null(strstr(fd->message, "1 of 2 CUDA fatbin containers"));
	assert_string_equal(fd->subject, "art.whl!/lib/libmix.so");
	ga_findings_release(&f);
	/* on sm_80 every judged container runs */
	judge_one(&e, "lib/libmix.so", "cuda:13.0,sm_80", &f);
	assert_null(find(&f, "GA-DEPS-NO-KERNEL-IMAGE"));
	ga_findings_release(&f);
}

static void test_gfx_rules(void **state)
{
	(void)state;
	static const struct {
		const char *image, *target;
		bool loads;
	} cases[] = {
		{ "gfx90a:xnack-", "rocm:6.2,gfx90a", true },
		{ "gfx90a:xnack-", "rocm:6.2,gfx90a:xnack-", true },
		{ "gfx90a:xnack+", "rocm:6.2,gfx90a:xnack-", false },
		{ "gfx90a", "rocm:6.2,gfx90a:xnack+", true },
		{ "gfx942:sramecc+:xnack-", "rocm:6.2,gfx942:sramecc-", false },
		{ "gfx942:sramecc+:xnack-", "rocm:6.2,gfx942:sramecc+", true },
		{ "gfx942", "rocm:6.2,gfx90a", false },
		{ "gfx9-4-generic", "rocm:6.2,gfx942", true },
		{ "gfx9-4-generic", "rocm:6.2,gfx90a", false },
		{ "gfx11-generic", "rocm:6.2,gfx1100", true },
		{ "spirv", "rocm:7.0,gfx1201", true },
		{ "gfx1030", "rocm:6.2,gfx1031", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_elf e;
		fake_init(&e);
		const char *arch[2] = { "host-x86_64-unknown-linux", cases[i].image };
		add_container(&e, GA_DEVCODE_HIP_BUNDLE, arch, 2);
		struct ga_findings f;
		judge_one(&e, "lib/libh.so", cases[i].target, &f);
		const struct ga_finding *fd = find(&f, "GA-DEPS-NO-GFX-CODE");
		if (cases[i].loads == (fd != NULL))
			fail_msg("case %zu (%s on %s): %s", i, cases[i].image, cases[i].target,
			         fd ? fd->message : "no finding");
		if (fd)
			assert_non_null(strstr(fd->message,
			                       "hipErrorNoBinaryForGpu: Unable to find code object for all "
			                       "current devices!"));
		ga_findings_release(&f);
	}
	/* a compressed bundle whose ids could not be read is not judged */
	struct fake_elf e;
	fake_init(&e);
	const char *arch[1] = { "gfx803" };
	add_container(&e, GA_DEVCODE_HIP_CCOB, arch, 1);
	e.c[0].ids_known = false;
	struct ga_findings f;
	judge_one(&e, "lib/libh.so", "rocm:6.2,gfx942", &f);
	assert_null(find(&f, "GA-DEPS-NO-GFX-CODE"));
	ga_findings_release(&f);
}

/* ---- vendor, runtime, driver libraries, loader, ISA ---- */

static void test_wrong_vendor(void **state)
{
	(void)state;
	struct fake_elf e;
	fake_init(&e);
	add_needed(&e, "libcudart.so.12");
	add_needed(&e, "libOpenCL.so.1");
	add_needed(&e, "libc.so.6");
	struct ga_findings f;
	judge_one(&e, "hidden/_native.so", "rocm:6.2,gfx942", &f);
	const struct ga_finding *fd = find(&f, "GA-DEPS-WRONG-VENDOR");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_ERROR);
	assert_non_null(strstr(fd->message,
	                       "\"libcudart.so.12: cannot open shared object file: No such file or "
	                       "directory\""));
	assert_int_equal(f.n, 1); /* OpenCL is vendor-neutral; libc is everywhere */
	ga_findings_release(&f);

	/* the same on its own vendor: no wrong vendor, and CUDA 12 on a 12.4 driver is fine */
	judge_one(&e, "hidden/_native.so", "cuda:12.4,sm_90", &f);
	assert_null(find(&f, "GA-DEPS-WRONG-VENDOR"));
	assert_null(find(&f, "GA-DEPS-CUDA-TOO-NEW"));
	/* but the runtime is not in the tree: the loader would not find it */
	fd = find(&f, "GA-DEPS-UNRESOLVED-NEEDED");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_ERROR);
	ga_findings_release(&f);

	/* CUDA 11.8 driver: the 12 runtime is too new (35) */
	judge_one(&e, "hidden/_native.so", "cuda:11.8,sm_80", &f);
	fd = find(&f, "GA-DEPS-CUDA-TOO-NEW");
	assert_non_null(fd);
	assert_non_null(
	        strstr(fd->message, "\"CUDA driver version is insufficient for CUDA runtime version\""));
	ga_findings_release(&f);

	/* a dlopen-only CUDA dependency on a CPU node: dead weight, a warning */
	struct fake_elf s;
	fake_init(&s);
	char *dl[1] = { "libcuda.so.1" };
	s.info.dlopen_names = dl;
	s.info.n_dlopen_names = 1;
	judge_one(&s, "plugin/libep.so", "cpu", &f);
	fd = find(&f, "GA-DEPS-WRONG-VENDOR");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_WARNING);
	ga_findings_release(&f);
}

static void test_driver_bundled_and_isa(void **state)
{
	(void)state;
	struct fake_elf e;
	fake_init(&e);
	e.info.soname = "libcuda.so.1";
	e.info.x86_isa_level = 4;
	struct ga_findings f;
	judge_one(&e, "usr/lib/x86_64-linux-gnu/libcuda.so.1", "cuda:12.4,sm_90,x86-64-v3", &f);
	const struct ga_finding *fd = find(&f, "GA-DEPS-DRIVER-LIB-BUNDLED");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_ERROR);
	fd = find(&f, "GA-DEPS-ISA-LEVEL");
	assert_non_null(fd);
	assert_non_null(strstr(fd->message, "Illegal instruction"));
	ga_findings_release(&f);
	/* the toolkit's stub: a warning naming error 34 */
	judge_one(&e, "usr/local/cuda/lib64/stubs/libcuda.so", "cuda:12.4,sm_90,x86-64-v4", &f);
	fd = find(&f, "GA-DEPS-DRIVER-LIB-BUNDLED");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_WARNING);
	assert_non_null(strstr(fd->message, "(cudaError 34)"));
	assert_null(find(&f, "GA-DEPS-ISA-LEVEL"));
	ga_findings_release(&f);
}

static void test_loader_sim(void **state)
{
	(void)state;
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	struct fake_elf e;
	fake_init(&e);
	add_needed(&e, "libcublas.so.12");
	add_needed(&e, "libfoo.so.1");
	add_needed(&e, "libbar.so.2");
	add_needed(&e, "libstdc++.so.6");
	e.info.rpath = "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN";
	add_file(&inv, "torch/lib/libtorch_cuda.so", &e);
	add_file(&inv, "nvidia/cublas/lib/libcublas.so.12", NULL); /* a link is enough */
	add_file(&inv, "torch/lib/libfoo.so.1", NULL);
	add_file(&inv, "other/libbar.so.2", NULL); /* in the tree but not on the path */
	struct ga_deps_target t;
	char err[100];
	assert_int_equal(ga_deps_target_parse("cuda:12.4,sm_90", &t, err, sizeof(err)), 0);
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_deps_signals(&inv), 0);
	assert_int_equal(ga_deps_judge(&inv, &t, &f), 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].code, "GA-DEPS-UNRESOLVED-NEEDED");
	assert_non_null(strstr(f.v[0].message, "NEEDs libbar.so.2"));
	assert_int_equal(f.v[0].severity, GA_SEV_WARNING); /* not a vendor library */
	ga_findings_release(&f);
	/* RUNPATH replaces RPATH: $ORIGIN alone no longer reaches nvidia/ */
	e.info.runpath = "$ORIGIN";
	ga_findings_init(&f);
	assert_int_equal(ga_deps_judge(&inv, &t, &f), 0);
	assert_int_equal(f.n, 2);
	assert_non_null(find(&f, "GA-DEPS-UNRESOLVED-NEEDED"));
	ga_findings_release(&f);
	ga_deps_target_release(&t);
	release(&inv);
}

static void test_policy_rules(void **state)
{
	(void)state;
	struct fake_elf e;
	fake_init(&e);
	add_needed(&e, "libamdhip64.so.6");
	const char *arch[2] = { "host-x86_64-unknown-linux", "gfx90a:xnack-" };
	add_container(&e, GA_DEVCODE_HIP_BUNDLE, arch, 2);
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	add_file(&inv, "x/_hip.so", &e);
	struct ga_deps_target t;
	char err[100];
	assert_int_equal(ga_deps_target_parse("rocm:6.2,gfx90a", &t, err, sizeof(err)), 0);
	ga_strv_push(&t.allowed_backends, "cuda");
	ga_strv_push(&t.required_archs, "gfx90a");
	ga_strv_push(&t.required_archs, "gfx942");
	t.policy_class = ga_strdup("c1");
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_deps_signals(&inv), 0);
	assert_int_equal(ga_deps_judge(&inv, &t, &f), 0);
	const struct ga_finding *fd = find(&f, "GA-DEPS-POLICY-BACKEND");
	assert_non_null(fd);
	assert_non_null(strstr(fd->message, "class c1 allows only: cuda"));
	fd = find(&f, "GA-DEPS-POLICY-ARCH");
	assert_non_null(fd);
	assert_non_null(strstr(fd->message, "gfx942"));
	assert_null(find(&f, "GA-DEPS-NO-GFX-CODE"));
	ga_findings_release(&f);
	ga_deps_target_release(&t);
	release(&inv);
}

/* ---- targets ---- */

static void test_targets(void **state)
{
	(void)state;
	struct ga_deps_target t;
	char err[200];
	assert_int_equal(ga_deps_target_parse("cuda:12.4,sm_90", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CUDA);
	assert_int_equal(t.cuda_version, 12040);
	assert_int_equal(t.sm, 90);
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("rocm:6.2,gfx942:xnack-", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_ROCM);
	assert_int_equal(t.rocm_major, 6);
	assert_string_equal(t.gfx, "gfx942:xnack-");
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("cpu:x86-64-v2", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CPU);
	assert_int_equal(t.cpu_isa_level, 2);
	ga_deps_target_release(&t);
	static const char *const bad[] = { "tpu",        "cuda:sm_9",     "cuda:12.4,gfx90a",
		                           "rocm:sm_90", "cpu:x86-64-v5", "cuda:12.4,sm_90,banana" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (ga_deps_target_parse(bad[i], &t, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(ga_cuda_for_driver("550.54.15"), 12040);
	assert_int_equal(ga_cuda_for_driver("580.95.05"), 13000);
	assert_int_equal(ga_cuda_for_driver("535.183.01"), 12020);
	assert_int_equal(ga_cuda_for_driver("470.256.02"), 11040);
	assert_int_equal(ga_cuda_for_driver("440.33"), -1);
	assert_int_equal(ga_cuda_for_driver("x"), -1);
	/* NVIDIA's table (CUDA 13.2 release notes, Table 3): 590 runs 13.1, 595 13.2, 600 on unknown */
	assert_int_equal(ga_cuda_for_driver("590.48.01"), 13010);
	assert_int_equal(ga_cuda_for_driver("595.45.04"), 13020);
	assert_int_equal(ga_cuda_for_driver("610.43.02"), -1);
	assert_int_equal(ga_cuda_for_driver("565.57.01"), 12070);
	int at = 0;
	assert_string_equal(ga_driver_for_cuda(13010, &at), "590.44.01");
	assert_int_equal(at, 13010);
	assert_string_equal(ga_driver_for_cuda(12040, NULL), "550.54.14");
	/* no CUDA 12.7 toolkit: the next row, 12.8's */
	assert_string_equal(ga_driver_for_cuda(12070, &at), "570.26");
	assert_int_equal(at, 12080);
	assert_null(ga_driver_for_cuda(13030, &at));
	assert_int_equal(at, -1);
	const char *fam = NULL;
	assert_int_equal(ga_cuda_arch_dropped(70, &fam), 13000);
	assert_string_equal(fam, "Volta");
	assert_int_equal(ga_cuda_arch_dropped(61, NULL), 13000);
	assert_int_equal(ga_cuda_arch_dropped(52, &fam), 13000);
	assert_string_equal(fam, "Maxwell");
	assert_int_equal(ga_cuda_arch_dropped(37, &fam), 12000);
	assert_string_equal(fam, "Kepler");
	assert_int_equal(ga_cuda_arch_dropped(75, NULL), 0);
	assert_int_equal(ga_cuda_arch_dropped(90, NULL), 0);
	assert_int_equal(ga_cc_for_model("NVIDIA H100 80GB HBM3"), 90);
	assert_int_equal(ga_cc_for_model("NVIDIA A100-SXM4-40GB"), 80);
	assert_int_equal(ga_cc_for_model("NVIDIA A10"), 86);
	assert_int_equal(ga_cc_for_model("NVIDIA L40S"), 89);
	assert_int_equal(ga_cc_for_model("NVIDIA GeForce RTX 4090"), 89);
	assert_int_equal(ga_cc_for_model("NVIDIA GH200 480GB"), 90);
	assert_int_equal(ga_cc_for_model("Tesla T4"), 75);
	assert_int_equal(ga_cc_for_model("Some Future GPU"), -1);
}

static void test_target_from_node(void **state)
{
	(void)state;
	const char *fx = getenv("GA_FIXTURES");
	assert_non_null(fx);
	static const struct {
		const char *node;
		enum ga_deps_target_kind kind;
		const char *name;
	} cases[] = {
		{ "mi250x", GA_TARGET_ROCM, "rocm:6,gfx90a,x86-64-v3" },
		{ "dgx-h100", GA_TARGET_CUDA, "cuda:13.0,sm_90,x86-64-v4" },
		{ "cpu-vm", GA_TARGET_CPU, "cpu:x86-64-v4" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ga_ctx *ctx = NULL;
		struct ga_node *n = NULL;
		char root[4096];
		snprintf(root, sizeof(root), "%s/nodes/%s/root", fx, cases[i].node);
		assert_int_equal(ga_ctx_new(&ctx), 0);
		assert_int_equal(ga_ctx_set_root(ctx, root), 0);
		assert_int_equal(ga_node_collect(ctx, &n), 0);
		struct ga_deps_target t;
		assert_int_equal(ga_deps_target_from_node(n, &t), 0);
		assert_int_equal(t.kind, cases[i].kind);
		assert_string_equal(t.name, cases[i].name);
		ga_deps_target_release(&t);
		ga_node_free(n);
		ga_ctx_free(ctx);
	}
}

/* ---- metadata ---- */

static void test_pymeta(void **state)
{
	(void)state;
	static const char meta[] =
	        "Metadata-Version: 2.1\r\nName: torch\r\nVersion: 2.5.1+cu126\r\n"
	        "Summary: Tensors\r\n   and more\r\n"
	        "Requires-Dist: nvidia-cublas-cu12==12.4.5.8; platform_system == \"Linux\"\r\n"
	        "Requires-Dist: nvidia_cudnn_cu12 ==9.1.0.70\r\n"
	        "requires-dist: sympy\r\n"
	        "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\r\n"
	        "\r\nRequires-Dist: not-a-header\r\n";
	struct ga_deps_pkg p = { 0 };
	p.kind = ga_strdup("python");
	assert_int_equal(ga_pymeta_parse_metadata(meta, sizeof(meta) - 1, &p), 0);
	assert_string_equal(p.name, "torch");
	assert_string_equal(p.version, "2.5.1+cu126");
	assert_string_equal(p.local_version, "cu126");
	assert_int_equal(p.requires.n, 4);
	assert_string_equal(p.requires.v[2], "sympy");
	static const char rec[] = "torch/__init__.py,sha256=abc,12\n\"torch/odd,name.so\",sha256=x,3\n"
	                          "\"q\"\"uote.so\",,\n../../bin/torchrun,sha256=y,9\n";
	assert_int_equal(ga_pymeta_parse_record(rec, sizeof(rec) - 1, &p), 0);
	assert_int_equal(p.files.n, 4);
	assert_string_equal(p.files.v[1], "torch/odd,name.so");
	assert_string_equal(p.files.v[2], "q\"uote.so");

	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	assert_int_equal(ga_deps_add_tree(&inv, "t", "dir"), 0);
	struct ga_deps_pkg *slot = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*slot));
	*slot = p;
	struct ga_deps_pkg *c = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*c));
	c->kind = ga_strdup("conda");
	static const char cj[] =
	        "{\"name\":\"pytorch\",\"version\":\"2.5.1\",\"build\":\"cuda126_py311h1\","
	        "\"depends\":[\"__cuda >=12.6\",\"cuda-version >=12.6,<13\",\"python >=3.11\"],"
	        "\"files\":[\"lib/libtorch.so\"]}";
	assert_int_equal(ga_pymeta_parse_conda(cj, sizeof(cj) - 1, c), 0);
	assert_string_equal(c->local_version, "cuda126_py311h1");
	assert_int_equal(c->files.n, 1);
	assert_int_equal(ga_deps_signals(&inv), 0);
	/* python: +cu126 (12.6), nvidia-cublas-cu12 and nvidia_cudnn_cu12 (12); the extra is skipped */
	const struct ga_deps_pkg *tp = &inv.pkgs[0];
	assert_int_equal(tp->n_signals, 3);
	assert_string_equal(tp->signals[0].what, "+cu126");
	assert_int_equal(tp->signals[0].runtime_version, 12060);
	assert_int_equal(tp->signals[1].runtime_version, 12000);
	assert_int_equal(tp->signals[2].strength, GA_STRENGTH_DECLARED);
	/* conda: the build string and __cuda / cuda-version */
	const struct ga_deps_pkg *cp = &inv.pkgs[1];
	assert_int_equal(cp->n_signals, 3);
	assert_int_equal(cp->signals[0].runtime_version, 12060);
	assert_string_equal(cp->signals[1].what, "depends __cuda >=12.6");
	assert_int_equal(cp->signals[1].runtime_version, 12060);
	ga_deps_inventory_release(&inv);

	struct ga_deps_pkg bad = { 0 };
	assert_int_equal(ga_pymeta_parse_metadata("Version: 1\n", 11, &bad), -EINVAL);
	assert_int_equal(ga_pymeta_parse_conda("[1,2]", 5, &bad), -EINVAL);
	assert_int_equal(ga_pymeta_parse_conda("{\"name\":", 8, &bad), -EINVAL);
	ga_deps_pkg_release(&bad);
}

/* Debian control stanzas: continuation lines, alternatives, Status, names that pin a CUDA version. */
static void test_deb_control(void **state)
{
	(void)state;
	static const char status[] = "Package: cuda-cudart-12-4\n"
	                             "Status: install ok installed\n"
	                             "Version: 12.4.127-1\n"
	                             "Depends: libc6 (>= 2.17),\n"
	                             " nvidia-driver-550 | libnvidia-compute-550\n"
	                             "Description: runtime\n"
	                             " more text: Depends: rocm-core\n"
	                             "\n\n"
	                             "Package: old\n"
	                             "Status: deinstall ok config-files\n"
	                             "\n"
	                             "Version: 1\n"
	                             "\n"
	                             "package: hip-runtime-amd\n"
	                             "Pre-Depends: rocm-core";
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	assert_true(ga_deps_add_tree(&inv, "t", "dir") == 0);
	size_t off = 0, used = 0, len = sizeof(status) - 1;
	bool installed = false;
	struct ga_deps_pkg *p = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*p));
	assert_non_null(p);
	p->kind = ga_strdup("deb");
	p->tree_dir = ga_strdup("");
	assert_int_equal(ga_pymeta_parse_deb_control(status, len, p, &used, &installed), 0);
	assert_true(installed);
	assert_string_equal(p->name, "cuda-cudart-12-4");
	assert_string_equal(p->version, "12.4.127-1");
	assert_int_equal(p->requires.n, 3); /* the Description's continuation is not a Depends */
	assert_string_equal(p->requires.v[0], "libc6 (>= 2.17)");
	assert_string_equal(p->requires.v[1], "nvidia-driver-550");
	assert_string_equal(p->requires.v[2], "libnvidia-compute-550");
	off += used;
	struct ga_deps_pkg old = { 0 };
	assert_int_equal(ga_pymeta_parse_deb_control(status + off, len - off, &old, &used, &installed), 0);
	assert_false(installed);
	off += used;
	ga_deps_pkg_release(&old);
	assert_int_equal(ga_pymeta_parse_deb_control(status + off, len - off, &old, &used, &installed),
	                 -EINVAL);
	off += used;
	ga_deps_pkg_release(&old);
	struct ga_deps_pkg *h = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*h));
	assert_non_null(h);
	p = &inv.pkgs[0];
	h->kind = ga_strdup("deb");
	h->tree_dir = ga_strdup("");
	assert_int_equal(ga_pymeta_parse_deb_control(status + off, len - off, h, &used, &installed), 0);
	assert_string_equal(h->name, "hip-runtime-amd"); /* field names are case-insensitive */
	assert_int_equal(h->requires.n, 1);
	off += used;
	assert_int_equal(off, len);
	assert_int_equal(ga_pymeta_parse_deb_control(status + off, 0, &old, &used, &installed), 1);
	assert_int_equal(ga_deps_signals(&inv), 0);
	/* cuda-cudart-12-4 pins CUDA 12.4; the driver packages are CUDA too; libc6 is nothing */
	assert_int_equal(p->n_signals, 3);
	assert_string_equal(p->signals[0].what, "package cuda-cudart-12-4");
	assert_int_equal(p->signals[0].backend, GA_DEP_CUDA);
	assert_int_equal(p->signals[0].runtime_version, 12040);
	assert_string_equal(p->signals[1].what, "Depends nvidia-driver-550");
	assert_int_equal(p->signals[1].runtime_version, -1);
	assert_int_equal(h->n_signals, 2);
	assert_int_equal(h->signals[0].backend, GA_DEP_ROCM);
	ga_deps_inventory_release(&inv);
}

/* Judge one real file from the system (skipped when absent): returns the findings' codes joined. */
static bool judge_real(const char *path, const char *target, struct ga_findings *f,
                       struct ga_deps_inventory *inv)
{
	FILE *probe = fopen(path, "rb");
	if (!probe)
		return false;
	fclose(probe);
	struct ga_ctx *ctx = NULL;
	struct ga_deps_opts o;
	struct ga_deps_target t;
	char err[100];
	assert_int_equal(ga_ctx_new(&ctx), 0);
	ga_deps_opts_init(&o);
	ga_deps_inventory_init(inv);
	assert_int_equal(ga_deps_scan(ctx, &o, path, inv), 0);
	assert_int_equal(ga_deps_signals(inv), 0);
	assert_int_equal(ga_deps_target_parse(target, &t, err, sizeof(err)), 0);
	ga_findings_init(f);
	assert_int_equal(ga_deps_judge(inv, &t, f), 0);
	ga_deps_target_release(&t);
	ga_ctx_free(ctx);
	return true;
}

static bool has_signal(const struct ga_deps_inventory *inv, const char *what)
{
	for (size_t i = 0; i < inv->n_files; i++)
		for (size_t k = 0; k < inv->files[i].n_signals; k++)
			if (!strcmp(inv->files[i].signals[k].what, what))
				return true;
	return false;
}

/*
 * The real CUDA 13 toolkit: cuDNN ops carries sm_90a but no plain sm_90 cubin
 * (gpu-code-formats.md), so an H100 runs it and an sm_89 part only through
 * the other cubins or PTX; an sm_80-only target is fine (sm_80 cubins).
 */
static void test_real_cuda_toolkit(void **state)
{
	(void)state;
	struct ga_findings f;
	struct ga_deps_inventory inv;
	if (!judge_real("/usr/local/cuda/lib64/libcudnn_ops.so.9", "cuda:13.0,sm_90", &f, &inv))
		skip();
	assert_true(has_signal(&inv, "sm_90a cubin"));
	assert_false(has_signal(&inv, "sm_90 cubin"));
	const struct ga_finding *fd = find(&f, "GA-DEPS-NO-KERNEL-IMAGE");
	assert_true(!fd || fd->severity < GA_SEV_ERROR);
	assert_null(find(&f, "GA-DEPS-WRONG-VENDOR"));
	ga_findings_release(&f);
	ga_deps_inventory_release(&inv);
	/* on an AMD node the CUDA libraries it NEEDs are the wrong vendor */
	assert_true(judge_real("/usr/local/cuda/lib64/libcudnn_ops.so.9", "rocm:6.2,gfx942", &f, &inv));
	assert_non_null(find(&f, "GA-DEPS-WRONG-VENDOR"));
	ga_findings_release(&f);
	ga_deps_inventory_release(&inv);
}

/* Debian's librocrand1 5.3.3: bundles for gfx803..gfx90a (xnack+ and -), none for gfx942. */
static void test_real_rocrand(void **state)
{
	(void)state;
	struct ga_findings f;
	struct ga_deps_inventory inv;
	if (!judge_real("/usr/lib/x86_64-linux-gnu/librocrand.so.1", "rocm:5.3,gfx90a:xnack-", &f, &inv))
		skip();
	assert_true(has_signal(&inv, "gfx90a:xnack- code-object"));
	assert_true(has_signal(&inv, "gfx90a:xnack+ code-object"));
	assert_null(find(&f, "GA-DEPS-NO-GFX-CODE"));
	ga_findings_release(&f);
	ga_deps_inventory_release(&inv);
	assert_true(judge_real("/usr/lib/x86_64-linux-gnu/librocrand.so.1", "rocm:5.3,gfx942", &f, &inv));
	const struct ga_finding *fd = find(&f, "GA-DEPS-NO-GFX-CODE");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_ERROR);
	ga_findings_release(&f);
	ga_deps_inventory_release(&inv);
}

/* Every allocation in signals and judge may fail: -ENOMEM or success, never a crash or leak. */
static void test_oom(void **state)
{
	(void)state;
	for (long k = 0; k < 400; k++) {
		struct fake_elf e;
		fake_init(&e);
		add_needed(&e, "libcudart.so.12");
		add_needed(&e, "libmissing.so.3");
		e.info.rpath = "$ORIGIN/../lib";
		const char *arch[2] = { "sm_80", "compute_80@9.1" };
		add_container(&e, GA_DEVCODE_CUDA_FATBIN, arch, 2);
		struct ga_deps_inventory inv;
		ga_deps_inventory_init(&inv);
		add_file(&inv, "a/b/libx.so", &e);
		struct ga_deps_target t;
		char err[100];
		assert_int_equal(ga_deps_target_parse("cuda:11.8,sm_90,x86-64-v1", &t, err, sizeof(err)), 0);
		struct ga_findings f;
		ga_findings_init(&f);
		ga_alloc_fail_after(k);
		int r = ga_deps_signals(&inv);
		if (r == 0)
			r = ga_deps_judge(&inv, &t, &f);
		ga_alloc_fail_after(-1);
		assert_true(r == 0 || r == -ENOMEM);
		ga_findings_release(&f);
		ga_deps_target_release(&t);
		release(&inv);
		if (r == 0 && k > 0)
			break;
	}
}

/* ---- the report (gpuaudit.deps/v1) and SARIF ---- */

/* An inventory with a package, one ELF file with grouped images, a link and a gap. */
static void report_inventory(struct ga_deps_inventory *inv, struct fake_elf *e)
{
	fake_init(e);
	add_needed(e, "libcudart.so.12");
	const char *arch[4] = { "sm_80", "compute_80@8.5", "sm_80", "sm_90a" };
	add_container(e, GA_DEVCODE_CUDA_FATBIN, arch, 4);
	ga_deps_inventory_init(inv);
	size_t fi = add_file(inv, "torch/lib/libx.so", e);
	add_file(inv, "torch/lib/liby.so", NULL); /* a link: not a result */
	struct ga_deps_pkg *p = ga_array_push((void **)&inv->pkgs, &inv->n_pkgs, sizeof(*p));
	assert_non_null(p);
	p->kind = ga_strdup("python");
	p->name = ga_strdup("torch");
	p->version = ga_strdup("2.5.1+cu126");
	p->local_version = ga_strdup("cu126");
	p->meta_path = ga_strdup("art.whl!/torch-2.5.1.dist-info/METADATA");
	p->meta_dir = ga_strdup("torch-2.5.1.dist-info");
	inv->files[fi].pkg = 0;
	inv->files[fi].size_bytes = 4096;
	inv->files_seen = 3;
	inv->bytes_seen = 5000;
	assert_int_equal(ga_deps_add_gap(inv, "art.whl!/bad.so", "cannot read member: %s", "damaged"), 0);
}

/* One result, in precedence: a PATH unread, error findings, gaps, nothing scanned, pass (issue 26). */
static void test_result(void **state)
{
	(void)state;
	struct ga_deps_inventory inv;
	struct ga_findings f;
	char why[512];
	ga_deps_inventory_init(&inv);
	ga_findings_init(&f);
	inv.paths = 1;
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_UNKNOWN); /* nothing scanned */
	assert_string_equal(ga_deps_result_name(GA_DEPS_RESULT_UNKNOWN), "unknown");
	assert_non_null(strstr(ga_deps_result_reason(GA_DEPS_RESULT_UNKNOWN, &inv, why, sizeof(why)),
	                       "nothing was scanned"));
	inv.files_seen = 1;
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_UNKNOWN); /* an empty file */
	inv.bytes_seen = 11;
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_PASS);
	assert_string_equal(ga_deps_result_reason(GA_DEPS_RESULT_PASS, &inv, why, sizeof(why)), "");
	assert_int_equal(ga_deps_add_gap(&inv, "a.whl!/x.so", "truncated"), 0);
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_INCOMPLETE);
	assert_non_null(ga_findings_add(&f, GA_C_DEPS_WRONG_VENDOR, GA_SEV_WARNING, "x", NULL, "w"));
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_INCOMPLETE); /* a warning: no fail */
	assert_non_null(ga_findings_add(&f, GA_C_DEPS_WRONG_VENDOR, GA_SEV_ERROR, "x", NULL, "e"));
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_FAIL);
	inv.paths = 2;
	inv.paths_unread = 1;
	assert_int_equal(ga_deps_result_of(&inv, &f), GA_DEPS_RESULT_ERROR);
	assert_string_equal(ga_deps_result_reason(GA_DEPS_RESULT_ERROR, &inv, why, sizeof(why)),
	                    "1 of 2 PATHs could not be read: nothing in it is judged; give files or "
	                    "directories that exist and can be read");
	/* the report carries it */
	struct ga_deps_report rep;
	assert_int_equal(ga_deps_report_build(&inv, NULL, &f, &rep), 0);
	assert_int_equal(rep.result, GA_DEPS_RESULT_ERROR);
	assert_non_null(rep.result_reason);
	assert_int_equal(rep.scanned.paths_unread.v, 1);
	ga_deps_report_release(&rep);
	ga_findings_release(&f);
	ga_deps_inventory_release(&inv);
}

/* ga_deps_scan on a PATH that does not exist: an error, and the PATH a gap counted as unread. */
static void test_scan_unread_path(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	struct ga_deps_opts o;
	struct ga_deps_inventory inv;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	ga_deps_opts_init(&o);
	ga_deps_inventory_init(&inv);
	assert_int_equal(ga_deps_scan(ctx, &o, "/nonexistent/gpuaudit-test.whl", &inv), -ENOENT);
	assert_int_equal(inv.paths, 1);
	assert_int_equal(inv.paths_unread, 1);
	assert_int_equal(inv.n_gaps, 1);
	assert_true(inv.gaps[0].whole_path);
	assert_string_equal(inv.gaps[0].path, "/nonexistent/gpuaudit-test.whl");
	assert_string_equal(inv.gaps[0].reason, "No such file or directory");
	ga_deps_inventory_release(&inv);
	ga_ctx_free(ctx);
}

static void test_report(void **state)
{
	(void)state;
	struct fake_elf e;
	struct ga_deps_inventory inv;
	report_inventory(&inv, &e);
	struct ga_deps_target t;
	char err[100];
	assert_int_equal(ga_deps_target_parse("cuda:12.4,sm_90", &t, err, sizeof(err)), 0);
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_deps_signals(&inv), 0);
	assert_int_equal(ga_deps_judge(&inv, &t, &f), 0);
	size_t n_findings = f.n;
	struct ga_deps_report rep;
	assert_int_equal(ga_deps_report_build(&inv, &t, &f, &rep), 0);
	assert_int_equal(f.n, 0); /* taken over */
	assert_int_equal(rep.findings.n, n_findings);
	assert_string_equal(rep.schema, GA_DEPS_SCHEMA);
	assert_non_null(rep.target);
	assert_string_equal(rep.target->cuda_version, "12.4");
	assert_string_equal(rep.target->sm, "sm_90");
	assert_false(rep.target->rocm_major.set);
	assert_int_equal(rep.n_files, 1); /* the link is left out */
	assert_string_equal(rep.files[0].package, "torch");
	const struct ga_deps_report_devcode *d = &rep.files[0].elf.device_code;
	assert_int_equal(d->containers[GA_DEVCODE_CUDA_FATBIN].v, 1);
	assert_int_equal(d->n_images, 3); /* sm_80 twice, in order of first appearance */
	assert_string_equal(d->images[0].arch, "sm_80");
	assert_int_equal(d->images[0].count.v, 2);
	assert_string_equal(d->images[1].ptx_isa, "8.5");
	assert_null(d->images[2].ptx_isa);
	assert_int_equal(rep.n_packages, 1);
	assert_string_equal(rep.packages[0].tree, "art.whl");
	assert_int_equal(rep.n_gaps, 1);

	/* write, read back, write: the same bytes */
	const struct ga_model *m = ga_model_find(GA_DEPS_SCHEMA);
	assert_non_null(m);
	struct ga_buf a, b;
	ga_buf_init(&a, 0);
	ga_buf_init(&b, 0);
	assert_int_equal(ga_model_write(m, &rep, &a, true), 0);
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_deps_report back;
	memset(&back, 0, sizeof(back));
	assert_int_equal(ga_model_read(ctx, m, a.data, a.len, &back), 0);
	assert_int_equal(ga_model_write(m, &back, &b, true), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	assert_non_null(strstr(a.data, "\"cuda-fatbin\": 1"));

	/* SARIF: a member is located on its archive, with the member as the logical location */
	ga_buf_reset(&b);
	assert_int_equal(ga_sarif_write(&rep.findings, ga_deps_rule_text, &b, false), 0);
	assert_non_null(strstr(b.data, "\"uri\":\"art.whl\""));
	assert_non_null(strstr(b.data, "\"fullyQualifiedName\":\"art.whl!/torch/lib/libx.so\""));
	assert_true(rep.findings.n > 0);
	const char *text = ga_deps_rule_text(rep.findings.v[0].code);
	assert_string_not_equal(text, rep.findings.v[0].code);
	assert_non_null(strstr(b.data, text));

	ga_ctx_free(ctx);
	ga_buf_release(&a);
	ga_buf_release(&b);
	ga_deps_report_release(&back);
	ga_deps_report_release(&rep);
	ga_findings_release(&f);
	ga_deps_target_release(&t);
	release(&inv);
}

static void test_report_oom(void **state)
{
	(void)state;
	for (long k = 0; k < 400; k++) {
		struct fake_elf e;
		struct ga_deps_inventory inv;
		report_inventory(&inv, &e);
		struct ga_deps_target t;
		char err[100];
		assert_int_equal(ga_deps_target_parse("cuda:12.4,sm_90,x86-64-v2", &t, err, sizeof(err)), 0);
		struct ga_findings f;
		ga_findings_init(&f);
		struct ga_deps_report rep;
		ga_alloc_fail_after(k);
		int r = ga_deps_report_build(&inv, &t, &f, &rep);
		ga_alloc_fail_after(-1);
		assert_true(r == 0 || r == -ENOMEM);
		ga_deps_report_release(&rep);
		ga_findings_release(&f);
		ga_deps_target_release(&t);
		release(&inv);
		if (r == 0)
			break;
	}
}

static void test_target_from_class(void **state)
{
	(void)state;
	struct ga_policy_class c;
	memset(&c, 0, sizeof(c));
	c.name = "h100-train";
	assert_int_equal(ga_strv_push(&c.artifact_backends, "cuda"), 0);
	assert_int_equal(ga_strv_push(&c.artifact_archs, "gfx942"), 0);
	assert_int_equal(ga_strv_push(&c.artifact_archs, "sm_90"), 0);
	struct ga_deps_target t;
	memset(&t, 0, sizeof(t));
	t.cuda_version = t.sm = t.rocm_major = -1;
	char err[200] = "";
	assert_int_equal(ga_deps_target_from_class(&t, &c, false, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CUDA);
	assert_int_equal(t.sm, 90);
	assert_string_equal(t.name, "class h100-train");
	assert_string_equal(t.policy_class, "h100-train");
	ga_deps_target_release(&t);
	/* an unknown backend is the caller's error, with the message */
	ga_strv_release(&c.artifact_backends);
	assert_int_equal(ga_strv_push(&c.artifact_backends, "vulkan"), 0);
	assert_int_equal(ga_deps_target_from_class(&t, &c, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'vulkan'"));
	ga_deps_target_release(&t);
	ga_strv_release(&c.artifact_backends);
	ga_strv_release(&c.artifact_archs);
}

/* ---- archive limits (issue 22): nesting and the memory cap, through ga_deps_scan_buffer ---- */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A stored zip holding one member (name, data): malloc'd, length in *ret_len. */
static uint8_t *stored_zip(const char *name, const uint8_t *data, size_t len, size_t *ret_len)
{
	size_t nl = strlen(name), total = 30 + nl + len + 46 + nl + 22;
	uint8_t *z = calloc(1, total);
	assert_non_null(z);
	uint32_t crc = crc32_of(data, len);
	uint8_t *p = z;
	le(p, 0x04034b50, 4), le(p + 4, 10, 2), le(p + 14, crc, 4), le(p + 18, len, 4), le(p + 22, len, 4);
	le(p + 26, nl, 2);
	memcpy(p + 30, name, nl);
	memcpy(p + 30 + nl, data, len);
	p += 30 + nl + len;
	le(p, 0x02014b50, 4), le(p + 4, 20, 2), le(p + 6, 10, 2), le(p + 16, crc, 4), le(p + 20, len, 4);
	le(p + 24, len, 4), le(p + 28, nl, 2);
	memcpy(p + 46, name, nl);
	p += 46 + nl;
	le(p, 0x06054b50, 4), le(p + 8, 1, 2), le(p + 10, 1, 2), le(p + 12, 46 + nl, 4);
	le(p + 16, 30 + nl + len, 4);
	*ret_len = total;
	return z;
}

/* levels zips, each holding the next as "self.zip", the innermost an ELF start of elf_len bytes. */
static uint8_t *nested_zips(unsigned levels, size_t elf_len, size_t *ret_len)
{
	uint8_t *cur = calloc(1, elf_len);
	assert_non_null(cur);
	memcpy(cur, "\177ELF\2\1\1", 7);
	size_t n = elf_len;
	const char *name = "lib/libx.so";
	for (unsigned i = 0; i < levels; i++) {
		size_t zl;
		uint8_t *z = stored_zip(name, cur, n, &zl);
		free(cur);
		cur = z, n = zl, name = "self.zip";
	}
	*ret_len = n;
	return cur;
}

static size_t count_str(const char *s, const char *pat)
{
	size_t k = 0;
	for (const char *p = strstr(s, pat); p; p = strstr(p + 1, pat))
		k++;
	return k;
}

static void scan_zip(const struct ga_deps_opts *o, const uint8_t *z, size_t len,
                     struct ga_deps_inventory *inv)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	ga_deps_inventory_init(inv);
	assert_int_equal(ga_deps_add_tree(inv, "t.zip", "file"), 0);
	assert_int_equal(ga_deps_scan_buffer(ctx, o, inv, 0, "t.zip", "t.zip", z, len), 0);
	ga_ctx_free(ctx);
}

/* scan_zip with the default options */
static void scan_zip_buf(const uint8_t *z, size_t len, struct ga_deps_inventory *inv)
{
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	scan_zip(&o, z, len, inv);
}

static void test_archive_nesting(void **state)
{
	(void)state;
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	size_t len;
	/* 200 levels (a stack overflow before the fix): one gap, at level 9 */
	uint8_t *z = nested_zips(200, 64, &len);
	struct ga_deps_inventory inv;
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 1);
	assert_non_null(strstr(inv.gaps[0].reason, "nested deeper than 8 levels"));
	assert_int_equal(count_str(inv.gaps[0].path, "!/"), 8);
	assert_int_equal(inv.n_files, 0);
	ga_deps_inventory_release(&inv);
	/* exactly 8 levels: read, the ELF at the bottom found, no gap */
	free(z);
	z = nested_zips(8, 64, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	ga_deps_inventory_release(&inv);
	free(z);
	/* a library caller's huge max_nesting is still bounded (the ceiling) */
	o.max_nesting = 1000000;
	z = nested_zips(100, 64, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 1);
	assert_non_null(strstr(inv.gaps[0].reason, "nested deeper than 16 levels"));
	ga_deps_inventory_release(&inv);
	free(z);
}

static void test_archive_memory_cap(void **state)
{
	(void)state;
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	/* no cap by default (members too large for memory are spooled); the cap is optional */
	assert_true(o.max_member_bytes == UINT64_MAX);
	assert_int_equal(o.max_ratio, GA_DEPS_MAX_RATIO);
	o.max_member_bytes = 1u << 20;
	size_t len;
	struct ga_deps_inventory inv;
	/* an ELF member over the cap: a gap, not read */
	uint8_t *z = nested_zips(1, (1u << 20) + 1, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 1);
	assert_non_null(strstr(inv.gaps[0].reason, "more than --max-member-bytes 1048576"));
	ga_deps_inventory_release(&inv);
	free(z);
	/* the cap is per member: a 600 KiB ELF in a 600 KiB zip is read (memory is bounded by spooling) */
	z = nested_zips(2, 600u << 10, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	ga_deps_inventory_release(&inv);
	free(z);
	/* a nested zip larger than the cap is streamed, not held: its members are still read */
	o.max_member_bytes = 3u << 10;
	z = nested_zips(2, 3000, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	ga_deps_inventory_release(&inv);
	free(z);
	o.max_member_bytes = 1u << 20;
	/* under the cap: read */
	z = nested_zips(2, 300u << 10, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	ga_deps_inventory_release(&inv);
	free(z);
}

/*
 * Issue 28: a member larger than the memory left for it (32 MiB less the zips
 * held around it) is spooled to an unlinked temporary file and read from
 * there: a 20 MiB ELF inside a 20 MiB zip is read, no gap; with a spool
 * directory that cannot be written, the memfd fallback still reads it.
 */
static void test_archive_spool(void **state)
{
	(void)state;
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	size_t len;
	struct ga_deps_inventory inv;
	uint8_t *z = nested_zips(2, 20u << 20, &len);
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	assert_true(inv.files[0].size_bytes == 20u << 20);
	ga_deps_inventory_release(&inv);
	o.spool_dir = "/nonexistent-gpuaudit-spool";
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	ga_deps_inventory_release(&inv);
	/* the optional cap applies to spooled members too */
	o.max_member_bytes = 16u << 20;
	scan_zip(&o, z, len, &inv);
	assert_int_equal(inv.n_gaps, 1);
	assert_non_null(strstr(inv.gaps[0].reason, "more than --max-member-bytes 16777216"));
	ga_deps_inventory_release(&inv);
	free(z);
}

/*
 * Issue 28: a member stored uncompressed (method 0) in a zip on disk, too
 * large to hold in memory, is scanned where it lies in the zip's file: no
 * temporary file (inv.members_spooled stays 0), the census's windows pread
 * at the member's offset in the zip. Synthesized: a minimal ELF whose
 * .nv_fatbin section holds the fatbin fixture, padded to 40 MiB.
 */
static uint8_t *fatbin_elf(size_t len)
{
	char path[512];
	const char *fx = getenv("GA_FIXTURES");
	snprintf(path, sizeof(path), "%s/deps/fatbin.bin", fx ? fx : "tests/fixtures");
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t *e = calloc(1, len);
	assert_non_null(e);
	size_t fl = fread(e + 0x10000, 1, 1u << 20, f);
	fclose(f);
	assert_true(fl > 0 && fl < (1u << 20));
	static const char shstr[] = "\0.nv_fatbin\0.shstrtab";
	memcpy(e, "\177ELF\2\1\1", 7);
	le(e + 16, 3, 2), le(e + 18, 62, 2), le(e + 20, 1, 4), le(e + 40, 0x1000, 8), le(e + 52, 64, 2);
	le(e + 58, 64, 2), le(e + 60, 3, 2), le(e + 62, 2, 2);
	uint8_t *sh = e + 0x1000 + 64; /* section 1: .nv_fatbin */
	le(sh, 1, 4), le(sh + 4, 1, 4), le(sh + 8, 2, 8), le(sh + 24, 0x10000, 8), le(sh + 32, fl, 8);
	le(sh + 48, 8, 8);
	sh += 64; /* section 2: the section names */
	le(sh, 12, 4), le(sh + 4, 3, 4), le(sh + 24, 0x800, 8), le(sh + 32, sizeof(shstr), 8),
	        le(sh + 48, 1, 8);
	memcpy(e + 0x800, shstr, sizeof(shstr));
	return e;
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void scan_path(const char *path, struct ga_deps_inventory *inv)
{
	struct ga_ctx *ctx = NULL;
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	assert_int_equal(ga_ctx_new(&ctx), 0);
	ga_deps_inventory_init(inv);
	assert_int_equal(ga_deps_scan(ctx, &o, path, inv), 0);
	ga_ctx_free(ctx);
}

static void test_archive_stored_in_place(void **state)
{
	(void)state;
	const size_t elf_len = 40u << 20;
	uint8_t *elf = fatbin_elf(elf_len);
	size_t len;
	uint8_t *z = stored_zip("lib/libx.so", elf, elf_len, &len);
	free(elf);
	char path[] = "/tmp/gpuaudit-test-stored-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path, z, len);
	/* in place: found, its fatbin read, nothing spooled */
	struct ga_deps_inventory inv, ref;
	scan_path(path, &inv);
	assert_int_equal(inv.n_gaps, 0);
	assert_int_equal(inv.n_files, 1);
	assert_true(inv.members_in_place == 1 && inv.members_spooled == 0);
	assert_true(inv.files[0].size_bytes == elf_len);
	assert_non_null(inv.files[0].elf);
	assert_true(inv.files[0].elf->n_containers >= 1 && inv.files[0].elf->n_images >= 1);
	/* the same zip in memory is spooled (the path it had before): the same census */
	scan_zip_buf(z, len, &ref);
	assert_true(ref.members_in_place == 0 && ref.members_spooled == 1);
	assert_int_equal(ref.n_files, 1);
	assert_int_equal(ref.files[0].elf->n_containers, inv.files[0].elf->n_containers);
	assert_int_equal(ref.files[0].elf->n_images, inv.files[0].elf->n_images);
	assert_true(ref.bytes_inflated == inv.bytes_inflated);
	ga_deps_inventory_release(&ref);
	ga_deps_inventory_release(&inv);
	/*
	 * A CRC-32 that does not match the data: in place every byte is checked
	 * before the census, as libarchive checks a spooled member as its last
	 * bytes are read: a gap either way, no file, no verdict on damaged bytes.
	 */
	size_t nl = strlen("lib/libx.so");
	uint8_t *cdh = z + 30 + nl + elf_len;
	z[14] ^= 1, cdh[16] ^= 1;
	write_file(path, z, len);
	scan_path(path, &inv);
	assert_true(inv.members_in_place == 0 && inv.members_spooled == 0);
	assert_int_equal(inv.n_gaps, 1);
	assert_non_null(strstr(inv.gaps[0].reason, "ZIP bad CRC"));
	assert_int_equal(inv.n_files, 0);
	ga_deps_inventory_release(&inv);
	scan_zip_buf(z, len, &ref);
	assert_int_equal(ref.n_gaps, 1);
	assert_non_null(strstr(ref.gaps[0].reason, "ZIP bad CRC"));
	ga_deps_inventory_release(&ref);
	z[14] ^= 1, cdh[16] ^= 1;
	/*
	 * Lying headers (hostile): the size in both headers past the end of the
	 * file, then in the local header only. Not read in place; read through
	 * libarchive as before, which reports a gap: no crash, no file.
	 */
	le(z + 18, 0x7fffffffu, 4), le(z + 22, 0x7fffffffu, 4);
	le(cdh + 20, 0x7fffffffu, 4), le(cdh + 24, 0x7fffffffu, 4);
	write_file(path, z, len);
	scan_path(path, &inv);
	assert_true(inv.members_in_place == 0);
	assert_int_equal(inv.n_files, 0);
	assert_int_equal(inv.n_gaps, 1);
	ga_deps_inventory_release(&inv);
	le(cdh + 20, elf_len, 4), le(cdh + 24, elf_len, 4);
	write_file(path, z, len);
	scan_path(path, &inv);
	assert_true(inv.members_in_place == 0);
	assert_int_equal(inv.n_files, 0);
	assert_int_equal(inv.n_gaps, 1);
	ga_deps_inventory_release(&inv);
	/*
	 * The local header's name and extra lengths put the data past the end of
	 * the file: not read in place, and libarchive (as before) finds no file.
	 */
	le(z + 18, elf_len, 4), le(z + 22, elf_len, 4), le(z + 26, 0xffff, 2), le(z + 28, 0xffff, 2);
	write_file(path, z, len);
	scan_path(path, &inv);
	assert_true(inv.members_in_place == 0);
	assert_int_equal(inv.n_files, 0);
	ga_deps_inventory_release(&inv);
	unlink(path);
	free(z);
}

/* ---- symbol versions: GA-DEPS-SYMBOL-VERSION, GA-DEPS-MANYLINUX-TAG ---- */

/* manylinux levels' C++ limits (auditwheel's policy), musllinux tags, tags as targets */
static void test_platform_tags(void **state)
{
	(void)state;
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.17", false, 0), "3.4.19");
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.17", false, 1), "1.3.7");
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.17", false, 2), "4.8.0");
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.17", true, 2), "4.7.0");
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.28", false, 0), "3.4.24");
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.30", false, 0), "3.4.24"); /* lower row */
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.34", true, 2), "11.0");
	assert_string_equal(ga_deps_manylinux_cxx_limit("2.40", false, 1), "1.3.15");
	assert_null(ga_deps_manylinux_cxx_limit("2.4", false, 0));
	assert_null(ga_deps_manylinux_cxx_limit("2.17", false, 3));
	assert_true(ga_deps_musllinux_wheel("x-1.0-cp312-cp312-musllinux_1_2_x86_64.whl"));
	assert_true(
	        ga_deps_musllinux_wheel("d/x-1.0-py3-none-manylinux_2_17_x86_64.musllinux_1_1_x86_64.whl"));
	assert_false(ga_deps_musllinux_wheel("x-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
	assert_false(ga_deps_musllinux_wheel("musllinux_1_2_x86_64.tar"));
	struct ga_deps_target t;
	char err[200];
	assert_int_equal(ga_deps_target_parse("manylinux2014", &t, err, sizeof(err)), 0);
	assert_string_equal(t.glibc, "2.17");
	assert_string_equal(t.libstdcxx, "3.4.19");
	assert_false(t.musl);
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("cuda:12.4,sm_90,manylinux_2_28_aarch64", &t, err, sizeof(err)),
	                 0);
	assert_string_equal(t.glibc, "2.28");
	assert_string_equal(t.libstdcxx, "3.4.24");
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("musllinux_1_2", &t, err, sizeof(err)), 0);
	assert_true(t.musl);
	assert_string_equal(t.glibc, "");
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("cpu,musl", &t, err, sizeof(err)), 0);
	assert_true(t.musl);
	assert_int_equal(t.kind, GA_TARGET_CPU);
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("manylinux_x_y", &t, err, sizeof(err)), -EINVAL);
}

static void test_symver_targets(void **state)
{
	(void)state;
	struct ga_deps_target t;
	char err[200];
	assert_int_equal(ga_deps_target_parse("glibc:2.31", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_NONE);
	assert_string_equal(t.glibc, "2.31");
	assert_string_equal(t.libstdcxx, "");
	ga_deps_target_release(&t);
	assert_int_equal(
	        ga_deps_target_parse("cuda:13.0,sm_90,glibc:2.28,libstdc++:3.4.25", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CUDA);
	assert_int_equal(t.cuda_version, 13000);
	assert_int_equal(t.sm, 90);
	assert_string_equal(t.glibc, "2.28");
	assert_string_equal(t.libstdcxx, "3.4.25");
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("cpu,glibc:2.17", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GA_TARGET_CPU);
	assert_string_equal(t.glibc, "2.17");
	ga_deps_target_release(&t);
	assert_int_equal(ga_deps_target_parse("glibcxx=3.4.30,glibc=2.35", &t, err, sizeof(err)), 0);
	assert_string_equal(t.glibc, "2.35");
	assert_string_equal(t.libstdcxx, "3.4.30");
	ga_deps_target_release(&t);
	static const char *const bad[] = { "glibc:x",          "glibc:",
		                           "glibc:2.31,sm_90", "cuda:12.4,glibc:2..3",
		                           "glibc:2.31.",      "cuda:12.4,libstdc++:12345678901234567" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (ga_deps_target_parse(bad[i], &t, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(err[0] != '\0');
	}
	char v[16];
	static const struct {
		const char *name, *want;
	} tags[] = {
		{ "x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", "2.28" },
		{ "dist/x-1.0-cp311-cp311-manylinux2014_x86_64.whl", "2.17" },
		{ "o.tar!/x-1.0-1-cp39-cp39-manylinux2010_x86_64.whl", "2.12" },
		{ "x-1.0-py3-none-manylinux1_x86_64.whl", "2.5" },
		{ "x-1.0-cp311-cp311-manylinux_2_28_x86_64.manylinux_2_17_x86_64.whl", "2.17" },
		{ "x-1.0-cp312-cp312-manylinux_2_17_aarch64.manylinux2014_aarch64.whl", "2.17" },
		{ "x-1.0-cp311-cp311-musllinux_1_2_x86_64.whl", NULL },
		{ "x-1.0-cp311-cp311-linux_x86_64.whl", NULL },
		{ "x-1.0-py3-none-any.whl", NULL },
		{ "manylinux_2_28_x86_64.tar", NULL },
		{ "x-1.0-cp311-cp311-manylinux_2_x86_64.whl", NULL },
	};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		v[0] = '\0';
		int got = ga_deps_manylinux_glibc(tags[i].name, v, sizeof(v));
		if (got != (tags[i].want != NULL) || (got && strcmp(v, tags[i].want)))
			fail_msg("%s: got %d '%s'", tags[i].name, got, v);
	}
}

static void test_symbol_versions(void **state)
{
	(void)state;
	struct fake_elf e;
	fake_init(&e);
	snprintf(e.info.glibc_needed, sizeof(e.info.glibc_needed), "2.34");
	snprintf(e.info.glibcxx_needed, sizeof(e.info.glibcxx_needed), "3.4.32");
	struct ga_findings f;
	judge_one(&e, "lib/libx.so", "glibc:2.31", &f);
	const struct ga_finding *fd = find(&f, "GA-DEPS-SYMBOL-VERSION");
	assert_non_null(fd);
	assert_int_equal(fd->severity, GA_SEV_ERROR);
	assert_non_null(
	        strstr(fd->message, "version `GLIBC_2.34' not found (required by art.whl!/lib/libx.so)"));
	assert_null(find(&f, "GA-DEPS-MANYLINUX-TAG")); /* art.whl has no tag */
	ga_findings_release(&f);
	/* the same glibc, a newer one: loads */
	judge_one(&e, "lib/libx.so", "glibc:2.34", &f);
	assert_null(find(&f, "GA-DEPS-SYMBOL-VERSION"));
	ga_findings_release(&f);
	judge_one(&e, "lib/libx.so", "cuda:12.4,sm_90,glibc:2.39", &f);
	assert_null(find(&f, "GA-DEPS-SYMBOL-VERSION"));
	ga_findings_release(&f);
	/* libstdc++ too old */
	judge_one(&e, "lib/libx.so", "cuda:12.4,sm_90,glibc:2.39,libstdc++:3.4.30", &f);
	fd = find(&f, "GA-DEPS-SYMBOL-VERSION");
	assert_non_null(fd);
	assert_non_null(
	        strstr(fd->message, "version `GLIBCXX_3.4.32' not found (required by art.whl!/lib/libx.so)"));
	ga_findings_release(&f);
	/* no versions known for the target: nothing said */
	judge_one(&e, "lib/libx.so", "cuda:12.4,sm_90", &f);
	assert_null(find(&f, "GA-DEPS-SYMBOL-VERSION"));
	ga_findings_release(&f);
	assert_string_equal(ga_deps_rule_text("GA-DEPS-SYMBOL-VERSION"),
	                    "A symbol version (GLIBC_, GLIBCXX_) above the target's glibc or libstdc++");
}

static void test_manylinux_tag(void **state)
{
	(void)state;
	static const struct {
		const char *wheel, *needed;
		bool want;
	} cases[] = {
		{ "dist/t-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", "2.34", true },
		{ "dist/t-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", "2.28", false },
		{ "dist/t-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "2.18", true },
		{ "dist/t-1.0-cp311-cp311-manylinux_2_34_x86_64.whl", "2.17", false },
		{ "dist/t-1.0-cp311-cp311-linux_x86_64.whl", "2.39", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_elf e;
		fake_init(&e);
		snprintf(e.info.glibc_needed, sizeof(e.info.glibc_needed), "%s", cases[i].needed);
		struct ga_deps_inventory inv;
		ga_deps_inventory_init(&inv);
		assert_int_equal(ga_deps_add_tree(&inv, cases[i].wheel, "wheel"), 0);
		add_file(&inv, "t/_C.so", &e);
		struct ga_findings f;
		ga_findings_init(&f);
		assert_int_equal(ga_deps_signals(&inv), 0);
		assert_int_equal(ga_deps_judge(&inv, NULL, &f), 0); /* target-free */
		const struct ga_finding *fd = find(&f, "GA-DEPS-MANYLINUX-TAG");
		if ((fd != NULL) != cases[i].want)
			fail_msg("%s needing %s: finding %s", cases[i].wheel, cases[i].needed,
			         fd ? "made" : "missing");
		if (fd) {
			assert_int_equal(fd->severity, GA_SEV_ERROR);
			char want[128];
			snprintf(want, sizeof(want), "version `GLIBC_%s' not found", cases[i].needed);
			assert_non_null(strstr(fd->message, want));
		}
		assert_null(find(&f, "GA-DEPS-SYMBOL-VERSION"));
		ga_findings_release(&f);
		release(&inv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_rules),
		cmocka_unit_test(test_cuda_containers),
		cmocka_unit_test(test_gfx_rules),
		cmocka_unit_test(test_wrong_vendor),
		cmocka_unit_test(test_driver_bundled_and_isa),
		cmocka_unit_test(test_loader_sim),
		cmocka_unit_test(test_policy_rules),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_symver_targets),
		cmocka_unit_test(test_platform_tags),
		cmocka_unit_test(test_symbol_versions),
		cmocka_unit_test(test_manylinux_tag),
		cmocka_unit_test(test_target_from_node),
		cmocka_unit_test(test_pymeta),
		cmocka_unit_test(test_deb_control),
		cmocka_unit_test(test_oom),
		cmocka_unit_test(test_result),
		cmocka_unit_test(test_scan_unread_path),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_oom),
		cmocka_unit_test(test_target_from_class),
		cmocka_unit_test(test_archive_nesting),
		cmocka_unit_test(test_archive_memory_cap),
		cmocka_unit_test(test_archive_spool),
		cmocka_unit_test(test_archive_stored_in_place),
		cmocka_unit_test(test_real_cuda_toolkit),
		cmocka_unit_test(test_real_rocrand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
