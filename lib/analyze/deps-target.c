/*
 * deps-target.c - the node an artifact is judged against: parsed from
 * --target, derived from a node snapshot (driver -> highest CUDA, product ->
 * compute capability) or from a policy class's artifacts: rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"

void ga_deps_target_release(struct ga_deps_target *t)
{
	ga_free(t->name);
	ga_free(t->policy_class);
	ga_free(t->ld_library_path);
	ga_free(t->driver_version);
	ga_strv_release(&t->allowed_backends);
	ga_strv_release(&t->required_archs);
	memset(t, 0, sizeof(*t));
	t->cuda_version = t->sm = t->rocm_major = -1;
}

static void target_init(struct ga_deps_target *t)
{
	memset(t, 0, sizeof(*t));
	t->cuda_version = t->sm = t->rocm_major = -1;
}

/* "sm_90" / "sm_100" / "9.0" / "12.1" -> 90 / 100 / 90 / 121; -1 otherwise. */
int ga_deps_parse_sm(const char *s)
{
	char *end;
	if (!strncmp(s, "sm_", 3)) {
		long v = strtol(s + 3, &end, 10);
		return end != s + 3 && !*end && v >= 10 && v < 1000 ? (int)v : -1;
	}
	long maj = strtol(s, &end, 10);
	if (end == s || *end != '.')
		return -1;
	const char *m = end + 1;
	long min = strtol(m, &end, 10);
	return end != m && !*end && maj > 0 && maj < 100 && min >= 0 && min < 10 ? (int)(maj * 10 + min) : -1;
}

/*
 * "glibc:2.31" / "glibc=2.31", "libstdc++:3.4.30" (or glibcxx:): 1 with the
 * version in t, 0 when tok is not one of them, -1 (errbuf) when its version is bad.
 */
static const char *const libc_words[] = { "glibc", "libstdc++", "glibcxx" };

/* 1 + index of the word tok starts with ("glibc:" ...), 0 none. */
static size_t libc_word(const char *tok)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(libc_words); i++) {
		size_t n = strlen(libc_words[i]);
		if (!strncmp(tok, libc_words[i], n) && (tok[n] == ':' || tok[n] == '='))
			return i + 1;
	}
	return 0;
}

static int libc_token(const char *tok, struct ga_deps_target *t, char *errbuf, size_t errlen)
{
	if (ga_deps_tag_target(tok, t))
		return 1;
	size_t w = libc_word(tok);
	if (w--) {
		const char *v = tok + strlen(libc_words[w]) + 1;
		bool ok = *v >= '0' && *v <= '9' && strlen(v) < GA_SYMVER_LEN;
		for (const char *c = v; ok && *c; c++)
			ok = (*c >= '0' && *c <= '9') || (*c == '.' && c[1] >= '0' && c[1] <= '9');
		if (!ok) {
			snprintf(errbuf, errlen, "'%s' is not a version (glibc:2.31, libstdc++:3.4.30)", tok);
			return -1;
		}
		snprintf(w == 0 ? t->glibc : t->libstdcxx, GA_SYMVER_LEN, "%s", v);
		return 1;
	}
	return 0;
}

/*
 * "driver:550.54.15" / "brand:tesla" (':' or '='): 1 with the value in t, 0
 * not one of them, -1 (errbuf) a bad value, -2 out of memory.
 */
static int nvidia_token(const char *tok, struct ga_deps_target *t, char *errbuf, size_t errlen)
{
	if ((!strncmp(tok, "driver", 6) && (tok[6] == ':' || tok[6] == '='))) {
		const char *v = tok + 7;
		bool ok = *v >= '0' && *v <= '9' && strlen(v) < 32;
		for (const char *c = v; ok && *c; c++)
			ok = (*c >= '0' && *c <= '9') || (*c == '.' && c[1] >= '0' && c[1] <= '9');
		if (!ok) {
			snprintf(errbuf, errlen,
			         "'%s' is not a driver version (driver:550.54.15, driver:550)", tok);
			return -1;
		}
		ga_free(t->driver_version);
		return (t->driver_version = ga_strdup(v)) ? 1 : -2;
	}
	if (!strncmp(tok, "brand", 5) && (tok[5] == ':' || tok[5] == '=')) {
		const char *v = tok + 6;
		bool ok = *v && strlen(v) < sizeof(t->brand);
		for (const char *c = v; ok && *c; c++)
			ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
		if (!ok) {
			snprintf(errbuf, errlen,
			         "'%s' is not a GPU brand (brand:tesla, brand:geforce, brand:nvidiartx ...)",
			         tok);
			return -1;
		}
		for (size_t i = 0; v[i]; i++)
			t->brand[i] = (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] + 32 : v[i]);
		t->brand[strlen(v)] = '\0';
		t->gpu_class = (int)ga_gpu_class_for_brand(t->brand);
		return 1;
	}
	return 0;
}

int ga_deps_target_parse(const char *spec, struct ga_deps_target *t, char *errbuf, size_t errlen)
{
	target_init(t);
	char *copy = ga_strdup(spec);
	if (!copy || !(t->name = ga_strdup(spec))) {
		ga_free(copy);
		return -ENOMEM;
	}
	int r = -EINVAL;
	/* the kind ends at ':' or ',' ("cpu,glibc:2.31" as "cpu:glibc:2.31") */
	char *rest = copy + strcspn(copy, ":,");
	if (!*rest)
		rest = NULL;
	char *kind = copy;
	/* "glibc:2.31[,libstdc++:3.4.30]" alone: no accelerator, only the loader's view */
	bool libc_only = libc_word(copy) > 0 || !strncmp(copy, "musl", 4) || !strncmp(copy, "manylinux", 9);
	/* "driver:550[,brand:tesla]" alone: an NVIDIA node known by its driver */
	bool nv_only = (!strncmp(copy, "driver", 6) && (copy[6] == ':' || copy[6] == '=')) ||
	               (!strncmp(copy, "brand", 5) && (copy[5] == ':' || copy[5] == '='));
	if (rest && !libc_only && !nv_only)
		*rest++ = '\0';
	if (libc_only) {
		t->kind = GA_TARGET_NONE;
		rest = copy;
	} else if (nv_only) {
		t->kind = GA_TARGET_CUDA;
		rest = copy;
	} else if (!strcmp(kind, "cpu"))
		t->kind = GA_TARGET_CPU;
	else if (!strcmp(kind, "cuda") || !strcmp(kind, "nvidia"))
		t->kind = GA_TARGET_CUDA;
	else if (!strcmp(kind, "rocm") || !strcmp(kind, "hip"))
		t->kind = GA_TARGET_ROCM;
	else if (!strcmp(kind, "level-zero") || !strcmp(kind, "sycl") || !strcmp(kind, "xpu"))
		t->kind = GA_TARGET_LEVEL_ZERO;
	else {
		snprintf(errbuf, errlen, "'%s': the target kind is cuda, rocm, level-zero or cpu", kind);
		goto out;
	}
	for (char *save = NULL, *tok = rest ? strtok_r(rest, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int lt = libc_token(tok, t, errbuf, errlen);
		if (lt < 0)
			goto out;
		if (lt > 0)
			continue;
		int nt = t->kind == GA_TARGET_CUDA ? nvidia_token(tok, t, errbuf, errlen) : 0;
		if (nt < 0) {
			if (nt == -2)
				r = -ENOMEM;
			goto out;
		}
		if (nt > 0)
			continue;
		if (libc_only) {
			snprintf(errbuf, errlen,
			         "'%s' is not understood after glibc: (examples: glibc:2.31,libstdc++:3.4.30 "
			         "manylinux_2_28 musl)",
			         tok);
			goto out;
		}
		if (!strncmp(tok, "x86-64-v", 8) && tok[8] >= '1' && tok[8] <= '4' && !tok[9]) {
			t->cpu_isa_level = tok[8] - '0';
		} else if (t->kind == GA_TARGET_CUDA && !strncmp(tok, "sm_", 3)) {
			if ((t->sm = ga_deps_parse_sm(tok)) < 0) {
				snprintf(errbuf, errlen, "'%s' is not a compute capability (sm_90, sm_100)",
				         tok);
				goto out;
			}
		} else if (t->kind == GA_TARGET_CUDA && ga_deps_dotted_version(tok) > 0 &&
		           t->cuda_version < 0) {
			t->cuda_version = ga_deps_dotted_version(tok);
		} else if (t->kind == GA_TARGET_ROCM && !strncmp(tok, "gfx", 3)) {
			if (strlen(tok) >= sizeof(t->gfx)) {
				snprintf(errbuf, errlen, "'%s' is too long for a gfx target", tok);
				goto out;
			}
			snprintf(t->gfx, sizeof(t->gfx), "%s", tok);
		} else if (t->kind == GA_TARGET_ROCM && ga_deps_dotted_version(tok) > 0 &&
		           t->rocm_major < 0) {
			t->rocm_major = ga_deps_dotted_version(tok) / 1000;
		} else {
			snprintf(errbuf, errlen,
			         "'%s' is not understood in a %s target (examples: cuda:12.4,sm_90 "
			         "rocm:6.2,gfx942 cpu:x86-64-v3)",
			         tok, kind);
			goto out;
		}
	}
	/* the driver's branch tells its highest CUDA when the spec does not */
	if (t->kind == GA_TARGET_CUDA && t->cuda_version < 0 && t->driver_version)
		t->cuda_version = ga_cuda_for_driver(t->driver_version);
	r = 0;
out:
	ga_free(copy);
	if (r < 0) {
		ga_deps_target_release(t);
	}
	return r;
}

/*
 * NVIDIA's CUDA Toolkit Release Notes, table "CUDA Toolkit and Corresponding
 * Driver Versions" (docs.nvidia.com/cuda/cuda-toolkit-release-notes, Linux
 * x86_64 column; each row the toolkit's GA minimum; checked against the CUDA
 * 13.2 release notes' Table 3): CUDA 13.2 GA >= 595.45.04, 13.1 GA >= 590.44.01,
 * 13.0 GA >= 580.65.06, 12.9 GA >= 575.51.03, 12.8 GA >= 570.26, 12.6 GA >=
 * 560.28.03, 12.5 GA >= 555.42.02, 12.4 GA >= 550.54.14, 12.3 GA >= 545.23.06,
 * 12.2 GA >= 535.54.03, 12.1 GA >= 530.30.02, 12.0 GA >= 525.60.13, 11.8 GA >=
 * 520.61.05 ... 11.0 GA >= 450.36.06. There was no CUDA 12.7 toolkit: the 565
 * branch reports CUDA 12.7 itself (cuDriverGetVersion 12070, the "CUDA Version"
 * nvidia-smi prints), which is the PTX ISA 8.6 level; it has no row in the
 * table, so a driver for 12.7 is named by the next row (12.8's).
 */
static const struct {
	int branch, cuda;
	const char *min_driver; /* the toolkit's GA minimum; NULL: no toolkit of that version */
} driver_tab[] = { { 595, 13020, "595.45.04" }, { 590, 13010, "590.44.01" }, { 580, 13000, "580.65.06" },
	           { 575, 12090, "575.51.03" }, { 570, 12080, "570.26" },    { 565, 12070, NULL },
	           { 560, 12060, "560.28.03" }, { 555, 12050, "555.42.02" }, { 550, 12040, "550.54.14" },
	           { 545, 12030, "545.23.06" }, { 535, 12020, "535.54.03" }, { 530, 12010, "530.30.02" },
	           { 525, 12000, "525.60.13" }, { 520, 11080, "520.61.05" }, { 515, 11070, "515.43.04" },
	           { 510, 11060, "510.39.01" }, { 495, 11050, "495.29.05" }, { 470, 11040, "470.42.01" },
	           { 465, 11030, "465.19.01" }, { 460, 11020, "460.27.03" }, { 455, 11010, "455.23" },
	           { 450, 11000, "450.36.06" } };

/*
 * The highest CUDA a Linux driver runs, by driver branch (the table above): a
 * branch runs the newest toolkit whose GA minimum falls in it; branches past
 * the table (600 on) are unknown (-1), not guessed. Used by deps --target and
 * fleet's CUDA column (docs/fleet.md).
 */
int ga_cuda_for_driver(const char *dv)
{
	if (!dv)
		return -1;
	char *end;
	long major = strtol(dv, &end, 10);
	if (end == dv || major <= 0)
		return -1;
	for (size_t i = 0; i < GA_ARRAY_SIZE(driver_tab); i++)
		if (major >= driver_tab[i].branch)
			return i == 0 && major >= 600 ? -1 : driver_tab[i].cuda;
	return -1;
}

const char *ga_driver_for_cuda(int cuda, int *ret_cuda)
{
	const char *best = NULL;
	int at = -1;
	for (size_t i = 0; i < GA_ARRAY_SIZE(driver_tab); i++)
		if (driver_tab[i].cuda >= cuda && driver_tab[i].min_driver) {
			best = driver_tab[i].min_driver;
			at = driver_tab[i].cuda;
		}
	if (ret_cuda)
		*ret_cuda = at;
	return best;
}

/*
 * The CUDA release that dropped a compute capability (no toolkit from it on
 * builds for it, and its libraries carry no code for it): CUDA 12.0 dropped
 * Kepler sm_35 / sm_37 ("Starting from CUDA 12.0: GPU architectures SM35 and
 * SM37 are no longer supported. The minimum required architecture is SM50",
 * docs.nvidia.com/cuda/cufft/deprecated-functionality.html); CUDA 13.0
 * dropped Maxwell (sm_50, 52, 53), Pascal (sm_60, 61, 62) and Volta (sm_70,
 * 72) (CUDA Toolkit Release Notes 13.x, "Deprecated Architectures": "Offline
 * compilation and library support for these architectures have been removed
 * in CUDA Toolkit 13.0 major version release"; the CUDA Features Archive, CUDA
 * 13.0: "supports all NVIDIA architectures from Turing through Grace
 * Blackwell"). 0 for an arch still supported.
 */
int ga_cuda_arch_dropped(int sm, const char **ret_family)
{
	static const struct {
		int lo, hi, cuda;
		const char *family;
	} tab[] = { { 35, 37, 12000, "Kepler" },
		    { 50, 53, 13000, "Maxwell" },
		    { 60, 62, 13000, "Pascal" },
		    { 70, 72, 13000, "Volta" } };
	for (size_t i = 0; i < GA_ARRAY_SIZE(tab); i++)
		if (sm >= tab[i].lo && sm <= tab[i].hi) {
			if (ret_family)
				*ret_family = tab[i].family;
			return tab[i].cuda;
		}
	return 0;
}

int ga_cc_for_model(const char *model)
{
	static const struct {
		const char *needle;
		int cc;
	} tab[] = { { "GB10", 121 },  { "RTX PRO", 120 }, { "RTX 50", 120 }, { "Thor", 110 },
		    { "GB300", 103 }, { "B300", 103 },    { "GB200", 100 },  { "B200", 100 },
		    { "GH200", 90 },  { "H200", 90 },     { "H100", 90 },    { "H800", 90 },
		    { "L40", 89 },    { "L4", 89 },       { "RTX 40", 89 },  { "Orin", 87 },
		    { "A100", 80 },   { "A800", 80 },     { "A30", 80 },     { "A40", 86 },
		    { "A10", 86 },    { "A16", 86 },      { "A2", 86 },      { "RTX 30", 86 },
		    { "T4", 75 },     { "RTX 20", 75 },   { "V100", 70 } };
	if (!model)
		return -1;
	for (size_t i = 0; i < GA_ARRAY_SIZE(tab); i++) {
		const char *p = strstr(model, tab[i].needle);
		size_t n = strlen(tab[i].needle);
		/* whole token: "A10" must not match "A100"; "L40S" is an L40 part; RTX 4090 is an "RTX 40" */
		bool rtx = !strncmp(tab[i].needle, "RTX", 3);
		if (p && (p == model || p[-1] == ' ' || p[-1] == '-') &&
		    (rtx || !(p[n] >= '0' && p[n] <= '9')))
			return tab[i].cc;
	}
	return -1;
}

int ga_deps_target_add_class_rules(struct ga_deps_target *t, const struct ga_policy_class *c)
{
	for (size_t i = 0; i < c->artifact_backends.n; i++)
		if (ga_strv_push(&t->allowed_backends, c->artifact_backends.v[i]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < c->artifact_archs.n; i++)
		if (ga_strv_push(&t->required_archs, c->artifact_archs.v[i]) < 0)
			return -ENOMEM;
	ga_free(t->policy_class);
	t->policy_class = ga_strdup(c->name);
	return t->policy_class ? 0 : -ENOMEM;
}

int ga_deps_target_from_node(const struct ga_node *n, struct ga_deps_target *t)
{
	target_init(t);
	const struct ga_accel *a = n->n_accelerators ? &n->accelerators[0] : NULL;
	if (!a && !ga_node_pci_known(n)) {
		t->kind = GA_TARGET_NONE;
		t->accel_unknown = true;
	} else if (!a || !a->vendor)
		t->kind = GA_TARGET_CPU;
	else if (!strcmp(a->vendor, "nvidia"))
		t->kind = GA_TARGET_CUDA;
	else if (!strcmp(a->vendor, "amd"))
		t->kind = GA_TARGET_ROCM;
	else if (!strcmp(a->vendor, "intel"))
		t->kind = GA_TARGET_LEVEL_ZERO;
	else
		t->kind = GA_TARGET_CPU;
	if (t->kind == GA_TARGET_CUDA) {
		if (n->nvml && n->nvml->cuda_driver_version)
			t->cuda_version = ga_deps_dotted_version(n->nvml->cuda_driver_version);
		if (t->cuda_version < 0)
			t->cuda_version = ga_cuda_for_driver(a->driver_version);
		if (a->nvml && a->nvml->compute_capability)
			t->sm = ga_deps_parse_sm(a->nvml->compute_capability);
		if (t->sm < 0)
			t->sm = ga_cc_for_model(a->model);
		if (a->driver_version && !(t->driver_version = ga_strdup(a->driver_version)))
			return -ENOMEM;
		t->gpu_class = (int)ga_gpu_class_for_model(a->model); /* the snapshot has no NVML brand */
	}
	if (t->kind == GA_TARGET_ROCM) {
		if (a->gfx_target)
			snprintf(t->gfx, sizeof(t->gfx), "%s", a->gfx_target);
		for (size_t i = 0; i < n->n_runtimes; i++) {
			const struct ga_runtime *rt = &n->runtimes[i];
			if (rt->name && rt->version &&
			    (!strcmp(rt->name, "rocm") || !strcmp(rt->name, "libamdhip64")) &&
			    t->rocm_major < 0)
				t->rocm_major = ga_deps_dotted_version(rt->version) / 1000;
		}
	}
	if (n->cpu.isa_level && !strncmp(n->cpu.isa_level, "x86-64-v", 8))
		t->cpu_isa_level = n->cpu.isa_level[8] - '0';
	/* the node's loader libraries (discover records them): symbol versions are judged on them */
	if (n->host.glibc && strlen(n->host.glibc) < sizeof(t->glibc))
		snprintf(t->glibc, sizeof(t->glibc), "%s", n->host.glibc);
	if (n->host.libstdcxx && strlen(n->host.libstdcxx) < sizeof(t->libstdcxx))
		snprintf(t->libstdcxx, sizeof(t->libstdcxx), "%s", n->host.libstdcxx);
	struct ga_buf b;
	ga_buf_init(&b, 256);
	static const char *const kinds[] = { "none", "cuda", "rocm", "level-zero", "cpu" };
	ga_buf_adds(&b, kinds[t->kind]);
	if (t->cuda_version > 0)
		ga_buf_addf(&b, ":%d.%d", t->cuda_version / 1000, t->cuda_version % 1000 / 10);
	if (t->sm > 0)
		ga_buf_addf(&b, ",sm_%d", t->sm);
	if (t->rocm_major > 0)
		ga_buf_addf(&b, ":%d", t->rocm_major);
	if (t->gfx[0])
		ga_buf_addf(&b, ",%s", t->gfx);
	if (t->cpu_isa_level)
		ga_buf_addf(&b, "%sx86-64-v%d", t->kind == GA_TARGET_CPU ? ":" : ",", t->cpu_isa_level);
	if (t->glibc[0])
		ga_buf_addf(&b, ",glibc:%s", t->glibc);
	if (t->libstdcxx[0])
		ga_buf_addf(&b, ",libstdc++:%s", t->libstdcxx);
	t->name = ga_buf_detach(&b, NULL);
	return t->name ? 0 : -ENOMEM;
}

int ga_deps_target_from_class(struct ga_deps_target *t, const struct ga_policy_class *c, bool have_target,
                              char *errbuf, size_t errlen)
{
	if (!have_target) {
		ga_deps_target_release(t);
		target_init(t);
		const char *b = c->artifact_backends.n ? c->artifact_backends.v[0] : NULL;
		if (!b) {
			snprintf(errbuf, errlen,
			         "class %s has no artifacts.backends: give --for SNAPSHOT or --target too",
			         c->name);
			return -EINVAL;
		}
		t->kind = !strcmp(b, "cuda")                        ? GA_TARGET_CUDA
		          : !strcmp(b, "hip") || !strcmp(b, "rocm") ? GA_TARGET_ROCM
		          : !strcmp(b, "sycl") || !strcmp(b, "level-zero") || !strcmp(b, "xpu")
		                  ? GA_TARGET_LEVEL_ZERO
		          : !strcmp(b, "cpu") ? GA_TARGET_CPU
		                              : GA_TARGET_NONE;
		if (t->kind == GA_TARGET_NONE) {
			snprintf(errbuf, errlen, "class %s: backend '%s' is not cuda, hip, sycl or cpu",
			         c->name, b);
			return -EINVAL;
		}
		for (size_t i = 0; i < c->artifact_archs.n; i++) {
			const char *a = c->artifact_archs.v[i];
			if (t->kind == GA_TARGET_CUDA && !strncmp(a, "sm_", 3) && t->sm < 0)
				t->sm = (int)strtol(a + 3, NULL, 10);
			if (t->kind == GA_TARGET_ROCM && !strncmp(a, "gfx", 3) && !t->gfx[0])
				snprintf(t->gfx, sizeof(t->gfx), "%s", a);
		}
		size_t n = strlen(c->name) + 16;
		t->name = ga_malloc(n);
		if (t->name)
			snprintf(t->name, n, "class %s", c->name);
	}
	return ga_deps_target_add_class_rules(t, c);
}
