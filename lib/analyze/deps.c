/*
 * deps.c - backend signals and verdicts over an artifact inventory (pure: it
 * reads only the inventory and the target, never the filesystem).
 *
 * Signals: each ELF file gets one per vendor library it NEEDs (hard), names
 * in its string data or .note.dlopen (soft), and per kind of embedded device
 * code or static CUDA runtime (embedded); each package gets the ones its
 * metadata declares (Requires-Dist nvidia-*, +cu126 / +rocm6.2 local
 * versions, conda __cuda / cuda-version / build strings).
 *
 * Verdicts (docs/deps.md has the catalogue): wrong vendor, CUDA runtime newer
 * than the driver (error 35), no kernel image for the compute capability
 * (209 / 222, judged container by container with the a/f rules), no code
 * object for the gfx target (hipErrorNoBinaryForGpu), driver library bundled,
 * DT_NEEDED the loader would not resolve, x86 ISA level above the CPU's, and
 * the policy's artifacts: rules.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/deps.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/node.h"

#define MAX_ARCH_SIGNALS 64

/* ---- signals ---- */

static int add_signal(struct ga_dep_signal **v, size_t *n, enum ga_dep_backend b, enum ga_dep_strength st,
                      const char *what, int runtime_version)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].backend == b && !strcmp((*v)[i].what, what)) {
			if (st < (*v)[i].strength)
				(*v)[i].strength = st;
			return 0;
		}
	char *w = ga_strdup(what);
	struct ga_dep_signal *s = w ? ga_array_push((void **)v, n, sizeof(*s)) : NULL;
	if (!s) {
		ga_free(w);
		return -ENOMEM;
	}
	s->backend = b;
	s->strength = st;
	s->what = w;
	s->runtime_version = runtime_version;
	return 0;
}

static bool flagged_backend(enum ga_dep_backend b)
{
	return b == GA_DEP_CUDA || b == GA_DEP_ROCM || b == GA_DEP_LEVEL_ZERO || b == GA_DEP_OPENCL ||
	       b == GA_DEP_VULKAN || b == GA_DEP_CPU;
}

static int lib_signal(struct ga_deps_file *f, const char *name, enum ga_dep_strength st)
{
	struct ga_vendor_match m;
	const struct ga_vendor_lib *l = ga_vendor_lib_find(name, &m);
	if (!l || !flagged_backend(l->backend))
		return 0;
	return add_signal(&f->signals, &f->n_signals, l->backend, st, name,
	                  m.runtime_major >= 0 ? m.runtime_major * 1000 : -1);
}

static int file_signals(struct ga_deps_file *f)
{
	const struct ga_elf_info *e = f->elf;
	int r = 0;
	for (size_t i = 0; i < e->n_needed && r == 0; i++)
		r = lib_signal(f, e->needed[i], GA_STRENGTH_HARD);
	for (size_t i = 0; i < e->n_dlopen_names && r == 0; i++)
		r = lib_signal(f, e->dlopen_names[i], GA_STRENGTH_SOFT);
	for (size_t i = 0; i < e->n_note_dlopen && r == 0; i++)
		for (size_t k = 0; k < e->note_dlopen[i].n_sonames && r == 0; k++)
			r = lib_signal(f, e->note_dlopen[i].sonames[k], GA_STRENGTH_SOFT);
	if (r == 0 && e->static_cudart)
		r = add_signal(&f->signals, &f->n_signals, GA_DEP_CUDA, GA_STRENGTH_EMBEDDED,
		               "static CUDA runtime", -1);
	if (r == 0 && e->device_arch && e->device_backend != GA_DEP_NONE) {
		char w[96];
		snprintf(w, sizeof(w), "%s device code", e->device_arch);
		r = add_signal(&f->signals, &f->n_signals, e->device_backend, GA_STRENGTH_EMBEDDED, w, -1);
	}
	size_t distinct = 0;
	const struct ga_devcode_image *last = NULL;
	enum ga_dep_backend last_b = GA_DEP_NONE;
	for (size_t i = 0; i < e->n_images && r == 0 && distinct < MAX_ARCH_SIGNALS; i++) {
		const struct ga_devcode_image *im = &e->images[i];
		if (im->kind == GA_CODE_HOST || !im->arch[0])
			continue;
		const struct ga_devcode_container *c = &e->containers[im->container];
		enum ga_dep_backend b = c->format == GA_DEVCODE_CUDA_FATBIN    ? GA_DEP_CUDA
		                        : c->format == GA_DEVCODE_LLVM_OFFLOAD ? GA_DEP_NONE
		                                                               : GA_DEP_ROCM;
		if (b == GA_DEP_NONE) {
			if (!strncmp(im->arch, "sm_", 3))
				b = GA_DEP_CUDA;
			else if (!strncmp(im->arch, "gfx", 3))
				b = GA_DEP_ROCM;
			else
				continue;
		}
		/* images come in runs of the same arch (cuFFT: 24k images, a few archs): skip repeats cheaply */
		if (last && last->kind == im->kind && last_b == b && !strcmp(last->arch, im->arch))
			continue;
		last = im;
		last_b = b;
		char w[96];
		snprintf(w, sizeof(w), "%s %s", im->arch, ga_devcode_kind_name(im->kind));
		size_t before = f->n_signals;
		r = add_signal(&f->signals, &f->n_signals, b, GA_STRENGTH_EMBEDDED, w, -1);
		distinct += f->n_signals > before;
	}
	return r;
}

/* The distribution or requirement name: up to the first space, ';', '[', '(', or comparison. */
static void req_name(const char *req, char *out, size_t n, bool python)
{
	size_t k = 0;
	while (req[k] && !strchr(" ;[(<>=!~,\t", req[k]) && k + 1 < n) {
		out[k] = (char)(req[k] >= 'A' && req[k] <= 'Z' ? req[k] + 32 : req[k]);
		/* PEP 503 normalisation for Python names; conda names ("__cuda") are kept */
		if (python && (out[k] == '_' || out[k] == '.'))
			out[k] = '-';
		k++;
	}
	out[k] = '\0';
}

/* "cu126" -> 12060, "cu118" -> 11080, "cu130" -> 13000; -1 otherwise. */
static int cu_tag_version(const char *tag)
{
	if (strncmp(tag, "cu", 2))
		return -1;
	size_t n = 0;
	while (tag[2 + n] >= '0' && tag[2 + n] <= '9')
		n++;
	if (n < 2 || n > 4)
		return -1;
	int v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (tag[2 + i] - '0');
	return (v / 10) * 1000 + (v % 10) * 10;
}

/* "6.2", "7.0.1" -> 6020, 7000; -1 otherwise. */
static int dotted_version(const char *s)
{
	char *end;
	long maj = strtol(s, &end, 10);
	if (end == s || maj < 0 || maj > 99)
		return -1;
	long min = 0;
	if (*end == '.') {
		const char *m = end + 1;
		min = strtol(m, &end, 10);
		if (end == m || min < 0 || min > 99)
			min = 0;
	}
	return (int)(maj * 1000 + min * 10);
}

/* Backend a distribution name declares, with the CUDA major its name pins. */
static enum ga_dep_backend dist_backend(const char *name, int *ret_version)
{
	*ret_version = -1;
	const char *cu = strstr(name, "-cu1");
	if (cu && cu[4] >= '0' && cu[4] <= '9' && (!cu[5] || cu[5] == '-' || cu[5] == 'x'))
		*ret_version = (10 + (cu[4] - '0')) * 1000;
	if (!strncmp(name, "nvidia-", 7) || !strncmp(name, "cupy-cuda", 9) || !strncmp(name, "jax-cuda", 8) ||
	    !strcmp(name, "onnxruntime-gpu") || !strncmp(name, "tensorrt", 8) ||
	    !strcmp(name, "paddlepaddle-gpu") || !strcmp(name, "cuda-python") ||
	    !strncmp(name, "cuda-bindings", 13)) {
		if (!strncmp(name, "cupy-cuda", 9) && name[9] >= '1' && name[9] <= '9' && name[10] >= '0' &&
		    name[10] <= '9')
			*ret_version = ((name[9] - '0') * 10 + (name[10] - '0')) * 1000;
		if (!strncmp(name, "jax-cuda", 8) && name[8] >= '1' && name[9] >= '0' && name[9] <= '9')
			*ret_version = ((name[8] - '0') * 10 + (name[9] - '0')) * 1000;
		return GA_DEP_CUDA;
	}
	if (!strncmp(name, "rocm", 4) || !strncmp(name, "jax-rocm", 8) || !strncmp(name, "cupy-rocm", 9) ||
	    !strcmp(name, "onnxruntime-rocm") || !strcmp(name, "onnxruntime-migraphx") ||
	    !strcmp(name, "tensorflow-rocm") || !strcmp(name, "pytorch-triton-rocm") ||
	    !strcmp(name, "hip-python") || !strcmp(name, "amdsmi"))
		return GA_DEP_ROCM;
	if (!strcmp(name, "intel-sycl-rt") || !strncmp(name, "intel-cmplr-lib", 15) ||
	    !strcmp(name, "dpctl") || !strcmp(name, "pytorch-triton-xpu") || !strncmp(name, "oneccl", 6) ||
	    !strcmp(name, "intel-pti"))
		return GA_DEP_LEVEL_ZERO;
	return GA_DEP_NONE;
}

/* conda dependency names that mean CUDA. */
static bool conda_cuda_name(const char *n)
{
	static const char *const names[] = {
		"__cuda",       "cuda-version", "cudatoolkit", "cudnn",       "nccl",
		"libcublas",    "libcufft",     "libcurand",   "libcusparse", "libcusolver",
		"libnvjitlink", "cutensor",     "libcudss",    NULL
	};
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(n, names[i]))
			return true;
	return !strncmp(n, "cuda-", 5);
}

/*
 * Backend a Debian package name means (Ubuntu/Debian and the vendors' apt
 * repositories), with the CUDA version that names like cuda-cudart-12-4 pin.
 */
static enum ga_dep_backend deb_backend(const char *n, int *ret_version)
{
	static const char *const cuda[] = {
		"cuda-",       "libcuda",     "libcudnn",    "libcublas", "libcufft",
		"libcurand",   "libcusparse", "libcusolver", "libnccl",   "libnvidia-",
		"nvidia-",     "libnvinfer",  "tensorrt",    "libnpp",    "libnvjitlink",
		"libcutensor", "libnvrtc",    "libnvjpeg",   NULL
	};
	static const char *const rocm[] = { "rocm",
		                            "hip-",
		                            "hipcc",
		                            "libamdhip64",
		                            "rocblas",
		                            "hipblas",
		                            "miopen",
		                            "rccl",
		                            "rocrand",
		                            "hiprand",
		                            "rocfft",
		                            "hipfft",
		                            "librocblas",
		                            "libhipblas",
		                            "librccl",
		                            "librocrand",
		                            "libhsa-runtime64",
		                            "hsa-rocr",
		                            "libhsakmt",
		                            "librocm-smi",
		                            "rocsolver",
		                            "rocsparse",
		                            NULL };
	static const char *const lz[] = { "intel-level-zero-gpu", "level-zero", "libze1",
		                          "libze-intel-gpu",      "libze-dev",  NULL };
	static const char *const versioned[] = { "cuda-cudart-",    "cuda-runtime-", "cuda-toolkit-",
		                                 "cuda-libraries-", "cuda-nvrtc-",   NULL };
	*ret_version = -1;
	if (!strncmp(n, "cuda-keyring", 12) || !strncmp(n, "cuda-compat", 11))
		return GA_DEP_NONE; /* the repository key; the forward-compatibility driver */
	for (size_t i = 0; versioned[i]; i++) {
		size_t k = strlen(versioned[i]);
		int maj, min, end = 0;
		if (!strncmp(n, versioned[i], k) && sscanf(n + k, "%d-%d%n", &maj, &min, &end) == 2 &&
		    !n[k + (size_t)end] && maj >= 7 && maj <= 99 && min >= 0 && min <= 9)
			*ret_version = maj * 1000 + min * 10;
	}
	for (size_t i = 0; cuda[i]; i++)
		if (!strncmp(n, cuda[i], strlen(cuda[i])))
			return GA_DEP_CUDA;
	for (size_t i = 0; rocm[i]; i++)
		if (!strncmp(n, rocm[i], strlen(rocm[i])))
			return GA_DEP_ROCM;
	for (size_t i = 0; lz[i]; i++)
		if (!strncmp(n, lz[i], strlen(lz[i])))
			return GA_DEP_LEVEL_ZERO;
	return GA_DEP_NONE;
}

static int pkg_signals(struct ga_deps_pkg *p)
{
	int r = 0, ver;
	char name[128], what[300];
	if (p->name) {
		req_name(p->name, name, sizeof(name), !strcmp(p->kind, "python"));
		enum ga_dep_backend b =
		        !strcmp(p->kind, "deb") ? deb_backend(name, &ver) : dist_backend(name, &ver);
		if (!strcmp(p->kind, "conda") && conda_cuda_name(name))
			b = GA_DEP_CUDA;
		if (b != GA_DEP_NONE) {
			snprintf(what, sizeof(what), "package %s", p->name);
			r = add_signal(&p->signals, &p->n_signals, b, GA_STRENGTH_DECLARED, what, ver);
		}
	}
	const char *lv = p->local_version;
	if (r == 0 && lv && !strcmp(p->kind, "python")) {
		snprintf(what, sizeof(what), "+%s", lv);
		if (cu_tag_version(lv) > 0)
			r = add_signal(&p->signals, &p->n_signals, GA_DEP_CUDA, GA_STRENGTH_DECLARED, what,
			               cu_tag_version(lv));
		else if (!strncmp(lv, "rocm", 4))
			r = add_signal(&p->signals, &p->n_signals, GA_DEP_ROCM, GA_STRENGTH_DECLARED, what,
			               dotted_version(lv + 4));
		else if (!strcmp(lv, "xpu"))
			r = add_signal(&p->signals, &p->n_signals, GA_DEP_LEVEL_ZERO, GA_STRENGTH_DECLARED,
			               what, -1);
		else if (!strcmp(lv, "cpu"))
			r = add_signal(&p->signals, &p->n_signals, GA_DEP_CPU, GA_STRENGTH_DECLARED, what,
			               -1);
	}
	if (r == 0 && lv && !strcmp(p->kind, "conda") && !strncmp(lv, "cuda", 4) && lv[4] >= '0' &&
	    lv[4] <= '9') {
		char tag[16];
		snprintf(tag, sizeof(tag), "cu%.4s", lv + 4);
		snprintf(what, sizeof(what), "build %s", lv);
		r = add_signal(&p->signals, &p->n_signals, GA_DEP_CUDA, GA_STRENGTH_DECLARED, what,
		               cu_tag_version(tag));
	}
	for (size_t i = 0; i < p->requires.n && r == 0; i++) {
		const char *req = p->requires.v[i];
		/* An optional extra ("; extra == 'cuda'") is not installed by default. */
		const char *semi = strchr(req, ';');
		if (semi && strstr(semi, "extra"))
			continue;
		req_name(req, name, sizeof(name), !strcmp(p->kind, "python"));
		enum ga_dep_backend b =
		        !strcmp(p->kind, "deb") ? deb_backend(name, &ver) : dist_backend(name, &ver);
		if (!strcmp(p->kind, "conda") && conda_cuda_name(name)) {
			b = GA_DEP_CUDA;
			const char *v = req + strlen(name);
			while (*v && !(*v >= '0' && *v <= '9'))
				v++;
			ver = (!strcmp(name, "__cuda") || !strcmp(name, "cuda-version")) && *v
			              ? dotted_version(v)
			              : -1;
		}
		if (b == GA_DEP_NONE)
			continue;
		snprintf(what, sizeof(what), "%s %s",
		         !strcmp(p->kind, "conda") ? "depends"
		         : !strcmp(p->kind, "deb") ? "Depends"
		                                   : "Requires-Dist",
		         req);
		r = add_signal(&p->signals, &p->n_signals, b, GA_STRENGTH_DECLARED, what, ver);
	}
	return r;
}

struct file_key {
	size_t tree;
	const char *path;
	size_t index;
};

static int cmp_key(const void *a, const void *b)
{
	const struct file_key *x = a, *y = b;
	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	return strcmp(x->path, y->path);
}

static char *norm_join(const char *dir, const char *rel)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if ((dir[0] && (ga_buf_adds(&b, dir) < 0 || ga_buf_addc(&b, '/') < 0)) || ga_buf_adds(&b, rel) < 0) {
		ga_buf_release(&b);
		return NULL;
	}
	/* lexical normalisation (RECORD paths may hold "../../bin/x") */
	char *s = b.data, *out = ga_malloc(b.len + 1);
	size_t o = 0;
	if (out) {
		while (*s) {
			while (*s == '/')
				s++;
			char *e = s;
			while (*e && *e != '/')
				e++;
			size_t k = (size_t)(e - s);
			if (k == 2 && s[0] == '.' && s[1] == '.') {
				while (o > 0 && out[o - 1] != '/')
					o--;
				if (o > 0)
					o--;
			} else if (k && !(k == 1 && s[0] == '.')) {
				if (o)
					out[o++] = '/';
				memcpy(out + o, s, k);
				o += k;
			}
			s = e;
		}
		out[o] = '\0';
	}
	ga_buf_release(&b);
	return out;
}

int ga_deps_signals(struct ga_deps_inventory *inv)
{
	int r = 0;
	for (size_t i = 0; i < inv->n_files && r == 0; i++)
		if (inv->files[i].elf && !inv->files[i].n_signals)
			r = file_signals(&inv->files[i]);
	for (size_t i = 0; i < inv->n_pkgs && r == 0; i++)
		if (!inv->pkgs[i].n_signals)
			r = pkg_signals(&inv->pkgs[i]);
	if (r < 0 || !inv->n_files)
		return r;
	struct file_key *keys = ga_calloc(inv->n_files, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_files; i++)
		keys[i] = (struct file_key){ inv->files[i].tree, inv->files[i].tree_path, i };
	qsort(keys, inv->n_files, sizeof(*keys), cmp_key);
	for (size_t p = 0; p < inv->n_pkgs && r == 0; p++) {
		const struct ga_deps_pkg *pk = &inv->pkgs[p];
		if (pk->owns_tree)
			for (size_t i = 0; i < inv->n_files; i++)
				if (inv->files[i].tree == pk->tree && inv->files[i].pkg < 0)
					inv->files[i].pkg = (long)p;
		for (size_t k = 0; k < pk->files.n; k++) {
			char *full = norm_join(pk->tree_dir ? pk->tree_dir : "", pk->files.v[k]);
			if (!full) {
				r = -ENOMEM;
				break;
			}
			struct file_key want = { pk->tree, full, 0 };
			struct file_key *hit = bsearch(&want, keys, inv->n_files, sizeof(*keys), cmp_key);
			if (hit && inv->files[hit->index].pkg < 0)
				inv->files[hit->index].pkg = (long)p;
			ga_free(full);
		}
	}
	ga_free(keys);
	return r;
}

/* ---- targets ---- */

void ga_deps_target_release(struct ga_deps_target *t)
{
	ga_free(t->name);
	ga_free(t->policy_class);
	ga_free(t->ld_library_path);
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
static int parse_sm(const char *s)
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

int ga_deps_target_parse(const char *spec, struct ga_deps_target *t, char *errbuf, size_t errlen)
{
	target_init(t);
	char *copy = ga_strdup(spec);
	if (!copy || !(t->name = ga_strdup(spec))) {
		ga_free(copy);
		return -ENOMEM;
	}
	int r = -EINVAL;
	char *rest = strchr(copy, ':');
	char *kind = copy;
	if (rest)
		*rest++ = '\0';
	if (!strcmp(kind, "cpu"))
		t->kind = GA_TARGET_CPU;
	else if (!strcmp(kind, "cuda"))
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
		if (!strncmp(tok, "x86-64-v", 8) && tok[8] >= '1' && tok[8] <= '4' && !tok[9]) {
			t->cpu_isa_level = tok[8] - '0';
		} else if (t->kind == GA_TARGET_CUDA && !strncmp(tok, "sm_", 3)) {
			if ((t->sm = parse_sm(tok)) < 0) {
				snprintf(errbuf, errlen, "'%s' is not a compute capability (sm_90, sm_100)",
				         tok);
				goto out;
			}
		} else if (t->kind == GA_TARGET_CUDA && dotted_version(tok) > 0 && t->cuda_version < 0) {
			t->cuda_version = dotted_version(tok);
		} else if (t->kind == GA_TARGET_ROCM && !strncmp(tok, "gfx", 3)) {
			if (strlen(tok) >= sizeof(t->gfx)) {
				snprintf(errbuf, errlen, "'%s' is too long for a gfx target", tok);
				goto out;
			}
			snprintf(t->gfx, sizeof(t->gfx), "%s", tok);
		} else if (t->kind == GA_TARGET_ROCM && dotted_version(tok) > 0 && t->rocm_major < 0) {
			t->rocm_major = dotted_version(tok) / 1000;
		} else {
			snprintf(errbuf, errlen,
			         "'%s' is not understood in a %s target (examples: cuda:12.4,sm_90 "
			         "rocm:6.2,gfx942 cpu:x86-64-v3)",
			         tok, kind);
			goto out;
		}
	}
	r = 0;
out:
	ga_free(copy);
	if (r < 0) {
		ga_deps_target_release(t);
	}
	return r;
}

int ga_cuda_for_driver(const char *dv)
{
	static const struct {
		int branch, cuda;
	} tab[] = { { 580, 13000 }, { 575, 12090 }, { 570, 12080 }, { 565, 12070 }, { 560, 12060 },
		    { 555, 12050 }, { 550, 12040 }, { 545, 12030 }, { 535, 12020 }, { 530, 12010 },
		    { 525, 12000 }, { 520, 11080 }, { 515, 11070 }, { 510, 11060 }, { 495, 11050 },
		    { 470, 11040 }, { 465, 11030 }, { 460, 11020 }, { 455, 11010 }, { 450, 11000 } };
	if (!dv)
		return -1;
	char *end;
	long major = strtol(dv, &end, 10);
	if (end == dv || major <= 0)
		return -1;
	for (size_t i = 0; i < GA_ARRAY_SIZE(tab); i++)
		if (major >= tab[i].branch)
			return i == 0 && major >= 590 ? -1 : tab[i].cuda;
	return -1;
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
	if (!a || !a->vendor)
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
			t->cuda_version = dotted_version(n->nvml->cuda_driver_version);
		if (t->cuda_version < 0)
			t->cuda_version = ga_cuda_for_driver(a->driver_version);
		if (a->nvml && a->nvml->compute_capability)
			t->sm = parse_sm(a->nvml->compute_capability);
		if (t->sm < 0)
			t->sm = ga_cc_for_model(a->model);
	}
	if (t->kind == GA_TARGET_ROCM) {
		if (a->gfx_target)
			snprintf(t->gfx, sizeof(t->gfx), "%s", a->gfx_target);
		for (size_t i = 0; i < n->n_runtimes; i++) {
			const struct ga_runtime *rt = &n->runtimes[i];
			if (rt->name && rt->version &&
			    (!strcmp(rt->name, "rocm") || !strcmp(rt->name, "libamdhip64")) &&
			    t->rocm_major < 0)
				t->rocm_major = dotted_version(rt->version) / 1000;
		}
	}
	if (n->cpu.isa_level && !strncmp(n->cpu.isa_level, "x86-64-v", 8))
		t->cpu_isa_level = n->cpu.isa_level[8] - '0';
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
	t->name = ga_buf_detach(&b, NULL);
	return t->name ? 0 : -ENOMEM;
}

/* ---- verdicts ---- */

static enum ga_dep_backend target_backend(const struct ga_deps_target *t)
{
	switch (t->kind) {
	case GA_TARGET_CUDA:
		return GA_DEP_CUDA;
	case GA_TARGET_ROCM:
		return GA_DEP_ROCM;
	case GA_TARGET_LEVEL_ZERO:
		return GA_DEP_LEVEL_ZERO;
	case GA_TARGET_CPU:
		return GA_DEP_CPU;
	default:
		return GA_DEP_NONE;
	}
}

static bool gpu_backend(enum ga_dep_backend b)
{
	return b == GA_DEP_CUDA || b == GA_DEP_ROCM || b == GA_DEP_LEVEL_ZERO;
}

static const char *vendor_word(enum ga_dep_backend b)
{
	return b == GA_DEP_CUDA         ? "an NVIDIA"
	       : b == GA_DEP_ROCM       ? "an AMD"
	       : b == GA_DEP_LEVEL_ZERO ? "an Intel"
	                                : "a CPU-only";
}

static const char *pkg_label(const struct ga_deps_inventory *inv, const struct ga_deps_file *f, char *buf,
                             size_t n)
{
	if (f->pkg < 0)
		return "";
	const struct ga_deps_pkg *p = &inv->pkgs[f->pkg];
	snprintf(buf, n, "%s %s", p->name ? p->name : "?", p->version ? p->version : "");
	return buf;
}

/* hard, then embedded (it loads but cannot run), then soft, then declared */
static int strength_rank(enum ga_dep_strength s)
{
	static const int rank[] = { 0, 2, 1, 3 };
	return (unsigned)s < GA_STRENGTH_N ? rank[s] : 4;
}

static const struct ga_dep_signal *strongest(const struct ga_dep_signal *v, size_t n, enum ga_dep_backend b)
{
	const struct ga_dep_signal *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (v[i].backend == b &&
		    (!best || strength_rank(v[i].strength) < strength_rank(best->strength)))
			best = &v[i];
	return best;
}

static int wrong_vendor_file(const struct ga_deps_inventory *inv, const struct ga_deps_file *f,
                             const struct ga_deps_target *t, struct ga_findings *out)
{
	enum ga_dep_backend tb = target_backend(t);
	static const enum ga_dep_backend gpus[] = { GA_DEP_CUDA, GA_DEP_ROCM, GA_DEP_LEVEL_ZERO };
	for (size_t g = 0; g < GA_ARRAY_SIZE(gpus); g++) {
		if (gpus[g] == tb)
			continue;
		const struct ga_dep_signal *s = strongest(f->signals, f->n_signals, gpus[g]);
		if (!s)
			continue;
		char pk[300];
		struct ga_finding *fd;
		const char *be = ga_dep_backend_name(s->backend);
		if (s->strength == GA_STRENGTH_HARD)
			fd = ga_findings_add(
			        out, "GA-DEPS-WRONG-VENDOR", GA_SEV_ERROR, f->path,
			        "ship the build for the target's backend, or keep this artifact off these "
			        "nodes",
			        "needs %s (%s, DT_NEEDED) but the target %s is %s node: loading it fails "
			        "with "
			        "\"%s: cannot open shared object file: No such file or directory\"",
			        s->what, be, t->name, vendor_word(tb), s->what);
		else if (s->strength == GA_STRENGTH_EMBEDDED)
			fd = ga_findings_add(
			        out, "GA-DEPS-WRONG-VENDOR", GA_SEV_WARNING, f->path,
			        "ship the build for the target's backend",
			        "carries %s (%s) that %s node cannot run: it loads, then fails at the first "
			        "GPU call%s",
			        s->what, be, vendor_word(tb),
			        s->backend == GA_DEP_CUDA ? " (\"CUDA driver version is insufficient for "
			                                    "CUDA runtime version\", "
			                                    "error 35, when no NVIDIA driver is present)"
			                                  : "");
		else
			fd = ga_findings_add(
			        out, "GA-DEPS-WRONG-VENDOR", GA_SEV_WARNING, f->path,
			        "dead weight on this node: drop the plugin or ship the target's build",
			        "dlopens %s (%s) at run time: on %s node the first use fails with \"%s: "
			        "cannot "
			        "open shared object file: No such file or directory\"",
			        s->what, be, vendor_word(tb), s->what);
		if (!fd)
			return -ENOMEM;
		ga_finding_evidence(fd, "strength", "%s", ga_dep_strength_name(s->strength));
		ga_finding_evidence(fd, "backend", "%s", be);
		if (f->pkg >= 0)
			ga_finding_evidence(fd, "package", "%s", pkg_label(inv, f, pk, sizeof(pk)));
	}
	return 0;
}

static int wrong_vendor_pkg(const struct ga_deps_pkg *p, const struct ga_deps_target *t,
                            struct ga_findings *out)
{
	enum ga_dep_backend tb = target_backend(t);
	static const enum ga_dep_backend gpus[] = { GA_DEP_CUDA, GA_DEP_ROCM, GA_DEP_LEVEL_ZERO };
	for (size_t g = 0; g < GA_ARRAY_SIZE(gpus); g++) {
		if (gpus[g] == tb)
			continue;
		const struct ga_dep_signal *s = strongest(p->signals, p->n_signals, gpus[g]);
		if (!s)
			continue;
		bool torch = p->name && !strcmp(p->name, "torch");
		struct ga_finding *fd = ga_findings_add(
		        out, "GA-DEPS-WRONG-VENDOR", GA_SEV_WARNING, p->meta_path ? p->meta_path : p->name,
		        "install the build for the target's backend (e.g. the +rocm / +cpu wheel index)",
		        "%s %s declares %s (%s) but the target %s is %s node%s", p->name ? p->name : "?",
		        p->version ? p->version : "", s->what, ga_dep_backend_name(s->backend), t->name,
		        vendor_word(tb),
		        torch && s->backend == GA_DEP_CUDA
		                ? ": torch reports \"Found no NVIDIA driver on your system\""
		                : "");
		if (!fd)
			return -ENOMEM;
		ga_finding_evidence(fd, "strength", "declared");
		ga_finding_evidence(fd, "backend", "%s", ga_dep_backend_name(s->backend));
	}
	return 0;
}

static int too_new(const char *subject, const struct ga_dep_signal *v, size_t n,
                   const struct ga_deps_target *t, struct ga_findings *out)
{
	const struct ga_dep_signal *worst = NULL;
	struct ga_buf via;
	ga_buf_init(&via, 4096);
	for (size_t i = 0; i < n; i++) {
		const struct ga_dep_signal *s = &v[i];
		if (s->backend != GA_DEP_CUDA || s->runtime_version <= 0 || s->strength == GA_STRENGTH_SOFT)
			continue;
		/* Minor-version compatibility: a 12.x runtime runs on any 12.y driver (PTX JIT aside). */
		if (s->runtime_version / 1000 <= t->cuda_version / 1000)
			continue;
		if (!worst || s->runtime_version > worst->runtime_version)
			worst = s;
		ga_buf_addf(&via, "%s%s", via.len ? ", " : "", s->what);
	}
	int r = 0;
	if (worst) {
		struct ga_finding *fd = ga_findings_add(
		        out, "GA-DEPS-CUDA-TOO-NEW", GA_SEV_ERROR, subject,
		        "upgrade the driver, or pick a build for CUDA <= the driver's (e.g. a lower +cuXYZ)",
		        "%s needs CUDA %d but the target's driver runs at most CUDA %d.%d: \"CUDA driver "
		        "version is "
		        "insufficient for CUDA runtime version\" (cudaError 35)",
		        worst->what, worst->runtime_version / 1000, t->cuda_version / 1000,
		        t->cuda_version % 1000 / 10);
		if (fd) {
			ga_finding_evidence(fd, "runtime_cuda", "%d", worst->runtime_version / 1000);
			ga_finding_evidence(fd, "driver_cuda", "%d.%d", t->cuda_version / 1000,
			                    t->cuda_version % 1000 / 10);
			ga_finding_evidence(fd, "via", "%s", via.data ? via.data : "");
		} else
			r = -ENOMEM;
	}
	ga_buf_release(&via);
	return r;
}

static bool tegra(int sm)
{
	return sm == 53 || sm == 62 || sm == 72 || sm == 87;
}

enum run { RUN_NO = 0, RUN_YES, RUN_PTX_TOO_NEW };

static enum run cuda_image_runs(const struct ga_devcode_image *im, int sm, int cuda_version)
{
	int tmaj = sm / 10, tmin = sm % 10, imaj = im->sm / 10, imin = im->sm % 10;
	if (im->kind == GA_CODE_CUBIN) {
		if (im->arch_specific || tegra(sm) || tegra(im->sm))
			return im->sm == sm ? RUN_YES : RUN_NO;
		return imaj == tmaj && tmin >= imin ? RUN_YES : RUN_NO;
	}
	if (im->kind == GA_CODE_PTX) {
		if (im->arch_specific || im->family)
			return RUN_NO; /* a/f PTX is not portable */
		if (sm < im->sm)
			return RUN_NO;
		int need = ga_ptx_isa_min_cuda(im->ptx_isa_major, im->ptx_isa_minor);
		if (cuda_version > 0 && (need < 0 || need > cuda_version))
			return RUN_PTX_TOO_NEW;
		return RUN_YES;
	}
	return RUN_NO;
}

static void arch_list(const struct ga_elf_info *e, enum ga_devcode_format fmt, struct ga_buf *b)
{
	size_t shown = 0;
	for (size_t i = 0; i < e->n_images && shown < 24; i++) {
		const struct ga_devcode_image *im = &e->images[i];
		bool cuda = e->containers[im->container].format == GA_DEVCODE_CUDA_FATBIN;
		if ((fmt == GA_DEVCODE_CUDA_FATBIN) != cuda || !im->arch[0] || im->kind == GA_CODE_HOST)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = !strcmp(e->images[k].arch, im->arch) &&
			      (e->containers[e->images[k].container].format == GA_DEVCODE_CUDA_FATBIN) ==
			              cuda;
		if (dup)
			continue;
		ga_buf_addf(b, "%s%s", shown ? " " : "", im->arch);
		shown++;
	}
}

static int cuda_kernels(const struct ga_deps_inventory *inv, const struct ga_deps_file *f, int sm,
                        int cuda_version, const char *code, struct ga_findings *out)
{
	const struct ga_elf_info *e = f->elf;
	size_t total = 0, failing = 0, too_new_ptx = 0, first_bad = SIZE_MAX, dispatch_only = 0;
	for (size_t c = 0; c < e->n_containers; c++) {
		const struct ga_devcode_container *ct = &e->containers[c];
		if (ct->format != GA_DEVCODE_CUDA_FATBIN)
			continue;
		bool runnable_kind = false, portable = false;
		enum run best = RUN_NO;
		for (uint32_t k = 0; k < ct->n_images; k++) {
			const struct ga_devcode_image *im = &e->images[ct->first_image + k];
			if (im->kind != GA_CODE_CUBIN && im->kind != GA_CODE_PTX)
				continue;
			runnable_kind = true;
			portable |= !im->arch_specific && !im->family;
			enum run rr = cuda_image_runs(im, sm, cuda_version);
			if (rr == RUN_YES || (rr == RUN_PTX_TOO_NEW && best == RUN_NO))
				best = rr;
		}
		if (!runnable_kind)
			continue; /* LTO IR only: consumed by nvJitLink, not a kernel image */
		/* Only sm_XYa / sm_XYf images: kernels a dispatching library launches on that arch alone. */
		if (!portable && best != RUN_YES) {
			dispatch_only++;
			continue;
		}
		total++;
		if (best != RUN_YES) {
			failing++;
			too_new_ptx += best == RUN_PTX_TOO_NEW;
			if (first_bad == SIZE_MAX)
				first_bad = c;
		}
	}
	/* Nothing but arch-specific containers, none for this arch: nothing in the file can run. */
	if (!total && dispatch_only) {
		total = failing = dispatch_only;
		dispatch_only = 0;
		for (size_t c = 0; c < e->n_containers && first_bad == SIZE_MAX; c++)
			if (e->containers[c].format == GA_DEVCODE_CUDA_FATBIN)
				first_bad = c;
	}
	if (!failing)
		return 0;
	struct ga_buf archs;
	ga_buf_init(&archs, 4096);
	arch_list(e, GA_DEVCODE_CUDA_FATBIN, &archs);
	bool all_ptx = too_new_ptx == failing;
	/*
	 * Every container failing: nothing in the file can run. Some failing: those
	 * kernels fail when launched; a library that picks kernels per arch may never
	 * launch them, so it is a warning.
	 */
	struct ga_finding *fd = ga_findings_add(
	        out, code, failing == total ? GA_SEV_ERROR : GA_SEV_WARNING, f->path,
	        all_ptx ? "upgrade the driver, or build cubins for the target's compute capability"
	                : "rebuild with the target's arch (e.g. -gencode arch=compute_XY,code=sm_XY) or ship "
	                  "PTX",
	        "%zu of %zu CUDA fatbin containers have no cubin for sm_%d %s: their kernels fail with %s",
	        failing, total, sm,
	        all_ptx ? "and only PTX newer than the driver can JIT" : "and no PTX the driver can JIT",
	        all_ptx ? "\"the provided PTX was compiled with an unsupported toolchain.\" (cudaError 222)"
	                : "\"no kernel image is available for execution on the device\" (cudaError 209)");
	if (fd) {
		ga_finding_evidence(fd, "archs", "%s", archs.data ? archs.data : "");
		ga_finding_evidence(fd, "target_sm", "sm_%d", sm);
		if (dispatch_only)
			ga_finding_evidence(fd, "arch_specific_containers_skipped", "%zu", dispatch_only);
		const struct ga_devcode_container *ct = &e->containers[first_bad];
		ga_finding_evidence(fd, "first_container", "%s+0x%llx", ct->section ? ct->section : "",
		                    (unsigned long long)ct->offset);
		char pk[300];
		if (f->pkg >= 0)
			ga_finding_evidence(fd, "package", "%s", pkg_label(inv, f, pk, sizeof(pk)));
	}
	ga_buf_release(&archs);
	return fd ? 0 : -ENOMEM;
}

/* Generic AMDGPU targets and the processors they cover. */
static bool gfx_generic_covers(const char *generic, const char *proc)
{
	static const struct {
		const char *generic;
		const char *procs;
	} tab[] = { { "gfx9-generic", " gfx900 gfx902 gfx904 gfx906 gfx909 gfx90c " },
		    { "gfx9-4-generic", " gfx940 gfx941 gfx942 gfx950 " },
		    { "gfx10-1-generic", " gfx1010 gfx1011 gfx1012 gfx1013 " },
		    { "gfx10-3-generic", " gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 " },
		    { "gfx11-generic", " gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 " },
		    { "gfx12-generic", " gfx1200 gfx1201 " } };
	char key[64];
	snprintf(key, sizeof(key), " %s ", proc);
	for (size_t i = 0; i < GA_ARRAY_SIZE(tab); i++)
		if (!strcmp(generic, tab[i].generic))
			return strstr(tab[i].procs, key) != NULL;
	return false;
}

/* Feature value in a target id ("gfx90a:sramecc+:xnack-", "xnack") -> '+', '-' or 0 (any). */
static char feature(const char *id, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strchr(id, ':'); p; p = strchr(p + 1, ':'))
		if (!strncmp(p + 1, name, n) && (p[1 + n] == '+' || p[1 + n] == '-'))
			return p[1 + n];
	return 0;
}

bool gfx_loads(const char *image_arch, const char *target);
bool gfx_loads(const char *image_arch, const char *target)
{
	char ip[48], tp[48];
	snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(image_arch, ":"), image_arch);
	snprintf(tp, sizeof(tp), "%.*s", (int)strcspn(target, ":"), target);
	if (strcmp(ip, tp) && !gfx_generic_covers(ip, tp))
		return false;
	static const char *const feats[] = { "xnack", "sramecc" };
	for (size_t i = 0; i < 2; i++) {
		char a = feature(image_arch, feats[i]), b = feature(target, feats[i]);
		if (a && b && a != b)
			return false;
	}
	return true;
}

static int hip_code(const struct ga_deps_inventory *inv, const struct ga_deps_file *f, const char *gfx,
                    const char *code, struct ga_findings *out)
{
	const struct ga_elf_info *e = f->elf;
	size_t total = 0, failing = 0, unknown = 0;
	for (size_t c = 0; c < e->n_containers; c++) {
		const struct ga_devcode_container *ct = &e->containers[c];
		if (ct->format != GA_DEVCODE_HIP_BUNDLE && ct->format != GA_DEVCODE_HIP_CCOB)
			continue;
		if (ct->format == GA_DEVCODE_HIP_CCOB && !ct->ids_known) {
			unknown++;
			continue;
		}
		bool device = false, ok = false;
		for (uint32_t k = 0; k < ct->n_images; k++) {
			const struct ga_devcode_image *im = &e->images[ct->first_image + k];
			if (im->kind == GA_CODE_HOST)
				continue;
			device = true;
			if (im->kind == GA_CODE_SPIRV ||
			    (im->kind == GA_CODE_CODE_OBJECT && gfx_loads(im->arch, gfx)))
				ok = true;
		}
		if (!device)
			continue;
		total++;
		failing += !ok;
	}
	if (e->device_arch && e->device_backend == GA_DEP_ROCM && !e->n_containers) {
		/* a loose code object file (.hsaco, .co) */
		total++;
		failing += !gfx_loads(e->device_arch, gfx);
	}
	if (!failing)
		return 0;
	struct ga_buf archs;
	ga_buf_init(&archs, 4096);
	arch_list(e, GA_DEVCODE_HIP_BUNDLE, &archs);
	if (!archs.len && e->device_arch)
		ga_buf_adds(&archs, e->device_arch);
	char pk[300];
	struct ga_finding *fd =
	        ga_findings_add(out, code, GA_SEV_ERROR, f->path,
	                        "rebuild with --offload-arch for the target's gfx (and its xnack mode)",
	                        "%zu of %zu HIP code containers have no code object for %s: "
	                        "\"hipErrorNoBinaryForGpu: Unable to find "
	                        "code object for all current devices!\"",
	                        failing, total, gfx);
	if (fd) {
		ga_finding_evidence(fd, "archs", "%s", archs.data ? archs.data : "");
		ga_finding_evidence(fd, "target_gfx", "%s", gfx);
		if (unknown)
			ga_finding_evidence(fd, "compressed_unread", "%zu", unknown);
		if (f->pkg >= 0)
			ga_finding_evidence(fd, "package", "%s", pkg_label(inv, f, pk, sizeof(pk)));
	}
	ga_buf_release(&archs);
	return fd ? 0 : -ENOMEM;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int driver_bundled(const struct ga_deps_file *f, struct ga_findings *out)
{
	const char *names[2] = { base_name(f->tree_path), f->elf->soname };
	for (size_t i = 0; i < 2; i++) {
		const struct ga_vendor_lib *l = names[i] ? ga_vendor_lib_find(names[i], NULL) : NULL;
		if (!l || !(l->flags & GA_VLIB_DRIVER))
			continue;
		bool stub = strstr(f->tree_path, "/stubs/") != NULL;
		struct ga_finding *fd =
		        stub ? ga_findings_add(
		                       out, "GA-DEPS-DRIVER-LIB-BUNDLED", GA_SEV_WARNING, f->path,
		                       "keep lib64/stubs off LD_LIBRARY_PATH and out of runtime images",
		                       "is the toolkit's link-time stub of %s: found at run time it fails "
		                       "every "
		                       "call with \"CUDA driver is a stub library\" (cudaError 34)",
		                       names[i])
		             : ga_findings_add(
		                       out, "GA-DEPS-DRIVER-LIB-BUNDLED", GA_SEV_ERROR, f->path,
		                       "remove it: the node's driver provides it (NVIDIA container toolkit "
		                       "mounts "
		                       "the matching copy)",
		                       "bundles %s (%s), which the GPU driver installs: a copy that does not "
		                       "match "
		                       "the node's kernel module fails with \"system has unsupported display "
		                       "driver "
		                       "/ cuda driver combination\" (803) or NVML \"Driver/library version "
		                       "mismatch\"",
		                       names[i], l->component);
		return fd ? 0 : -ENOMEM;
	}
	return 0;
}

/* Libraries every Linux target provides (glibc, the GCC runtime: the manylinux base set). */
static bool base_lib(const char *n)
{
	static const char *const libs[] = { "libc.so.6",
		                            "libm.so.6",
		                            "libdl.so.2",
		                            "librt.so.1",
		                            "libpthread.so.0",
		                            "libutil.so.1",
		                            "libresolv.so.2",
		                            "libnsl.so.1",
		                            "libcrypt.so.1",
		                            "libgcc_s.so.1",
		                            "libstdc++.so.6",
		                            "ld-linux-x86-64.so.2",
		                            "ld-linux-aarch64.so.1",
		                            "libz.so.1",
		                            "libanl.so.1",
		                            "libmvec.so.1",
		                            "libatomic.so.1",
		                            "libgomp.so.1",
		                            NULL };
	for (size_t i = 0; libs[i]; i++)
		if (!strcmp(n, libs[i]))
			return true;
	return false;
}

/*
 * The loader simulation (glibc ld.so's search order, docs/deps.md): a NEEDED
 * name of object X is looked for in X's DT_RPATH (only when X has no
 * DT_RUNPATH) and then the DT_RPATHs of the objects that load X, up the
 * chain; LD_LIBRARY_PATH (the target's and the image config's); X's own
 * DT_RUNPATH (never inherited); the directories the tree's etc/ld.so.conf
 * configures (with its include globs); the default and multiarch system
 * directories. $ORIGIN, $LIB and $PLATFORM are expanded per object.
 */
struct edge {
	size_t loaded, loader; /* file indexes */
};

struct tree_index {
	struct file_key *keys; /* every file and link, sorted */
	size_t n;
	const struct ga_deps_inventory *inv;
	const struct ga_deps_target *t;
	struct ga_strv *conf; /* per tree: ld.so.conf directories */
	bool *conf_done;
	struct edge *edges; /* who loads whom, sorted by loaded; built on first need */
	size_t n_edges;
	bool edges_done;
};

static long lookup(const struct tree_index *ix, size_t tree, const char *path)
{
	struct file_key want = { tree, path, 0 };
	const struct file_key *k = bsearch(&want, ix->keys, ix->n, sizeof(*ix->keys), cmp_key);
	return k ? (long)k->index : -1;
}

/* The file a path names, through symlinks in the tree (8 hops at most); -1 none. */
static long follow(const struct tree_index *ix, size_t tree, const char *path)
{
	long i = lookup(ix, tree, path);
	for (int hop = 0; i >= 0 && ix->inv->files[i].link && hop < 8; hop++) {
		const struct ga_deps_file *f = &ix->inv->files[i];
		char *dir = ga_strdup(f->tree_path);
		if (!dir)
			return -1;
		char *sl = strrchr(dir, '/');
		if (sl)
			*sl = '\0';
		else
			dir[0] = '\0';
		char *next = norm_join(f->link[0] == '/' ? "" : dir, f->link);
		ga_free(dir);
		if (!next)
			return -1;
		i = lookup(ix, tree, next);
		ga_free(next);
	}
	return i;
}

/* The entry (file or link) name is found as in dirs; -1 none. */
static long find_in(const struct tree_index *ix, size_t tree, char *const *dirs, size_t n, const char *name)
{
	char path[4096];
	for (size_t i = 0; i < n; i++) {
		const char *d = dirs[i];
		while (*d == '/')
			d++;
		long k;
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", d, *d ? "/" : "", name) < sizeof(path) &&
		    (k = lookup(ix, tree, path)) >= 0)
			return k;
	}
	return -1;
}

static bool resolve_in(const struct tree_index *ix, size_t tree, char **dirs, size_t n, const char *name)
{
	return find_in(ix, tree, dirs, n, name) >= 0;
}

static const char *const system_dirs[] = { "lib",
	                                   "usr/lib",
	                                   "lib64",
	                                   "usr/lib64",
	                                   "lib/x86_64-linux-gnu",
	                                   "usr/lib/x86_64-linux-gnu",
	                                   "lib/aarch64-linux-gnu",
	                                   "usr/lib/aarch64-linux-gnu",
	                                   "usr/local/lib" };

/* Split a LD_LIBRARY_PATH-style list (':' or ';') into normalised tree directories. */
static int split_dirs(const char *list, struct ga_strv *out)
{
	while (list && *list) {
		size_t k = strcspn(list, ":;");
		if (k) {
			char *e = ga_strndup(list, k);
			char *d = e ? norm_join("", e) : NULL;
			ga_free(e);
			if (!d || ga_strv_push(out, d) < 0) {
				ga_free(d);
				return -ENOMEM;
			}
			ga_free(d);
		}
		list += k;
		if (*list)
			list++;
	}
	return 0;
}

/* One ld.so.conf file: directories, and include globs (relative ones to the file's directory). */
static int conf_file(const struct ga_deps_tree *tr, const char *path, struct ga_strv *out, unsigned depth)
{
	const struct ga_deps_ldconf *c = NULL;
	for (size_t i = 0; i < tr->n_ldconf && !c; i++)
		if (!strcmp(tr->ldconf[i].path, path))
			c = &tr->ldconf[i];
	if (!c || depth > 8)
		return 0;
	int r = 0;
	for (const char *line = c->text; line && *line && r == 0;) {
		size_t k = strcspn(line, "\n");
		char *l = ga_strndup(line, k);
		line += k + (line[k] == '\n');
		if (!l)
			return -ENOMEM;
		char *hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		char *save = NULL, *w = strtok_r(l, " \t\r,:", &save);
		if (w && !strcmp(w, "include")) {
			while (r == 0 && (w = strtok_r(NULL, " \t\r", &save))) {
				char dir[4096], pat[4096];
				snprintf(dir, sizeof(dir), "%s", path);
				char *sl = strrchr(dir, '/');
				if (sl)
					*sl = '\0';
				else
					dir[0] = '\0';
				if ((size_t)snprintf(pat, sizeof(pat), "%s%s%s", w[0] == '/' ? "" : dir,
				                     w[0] == '/' || !dir[0] ? "" : "/",
				                     w + (w[0] == '/')) >= sizeof(pat))
					continue;
				for (size_t i = 0; i < tr->n_ldconf && r == 0; i++)
					if (fnmatch(pat, tr->ldconf[i].path, FNM_PATHNAME) == 0)
						r = conf_file(tr, tr->ldconf[i].path, out, depth + 1);
			}
		} else if (w && strcmp(w, "hwcap")) {
			for (; w && r == 0; w = strtok_r(NULL, " \t\r,:", &save)) {
				char *eq = strchr(w, '='); /* legacy "DIR=TYPE" */
				if (eq)
					*eq = '\0';
				if (w[0] == '/')
					r = split_dirs(w, out);
			}
		}
		ga_free(l);
	}
	return r;
}

static const struct ga_strv *conf_dirs(struct tree_index *ix, size_t tree)
{
	if (!ix->conf_done[tree]) {
		ix->conf_done[tree] = true;
		if (conf_file(&ix->inv->trees[tree], "etc/ld.so.conf", &ix->conf[tree], 0) < 0)
			ga_strv_release(&ix->conf[tree]); /* out of memory: search without it */
	}
	return &ix->conf[tree];
}

/* The directory of f as $ORIGIN ("/opt/app"), and RPATH/RUNPATH list expanded for f's machine. */
static int expand_for(const struct ga_deps_file *f, const char *list, char ***dirs, size_t *n)
{
	char origin[4096];
	snprintf(origin, sizeof(origin), "/%s", f->tree_path);
	char *slash = strrchr(origin, '/');
	if (slash == origin)
		slash[1] = '\0';
	else
		*slash = '\0';
	const char *lib = NULL, *platform = NULL;
	if (f->elf->machine == 183) { /* EM_AARCH64 */
		lib = "lib/aarch64-linux-gnu";
		platform = "aarch64";
	} else if (f->elf->machine == 3) { /* EM_386 */
		lib = "lib/i386-linux-gnu";
		platform = "i686";
	}
	*dirs = NULL;
	*n = 0;
	return list ? ga_elf_expand_origin(list, origin, lib, platform, dirs, n) : 0;
}

/* Where the loader finds name for f without inherited RPATHs: the entry's index, -1 none, -ENOMEM as -2. */
static long own_search(struct tree_index *ix, const struct ga_deps_file *f, const char *name)
{
	const struct ga_elf_info *e = f->elf;
	char **dirs = NULL;
	size_t n = 0;
	long k = -1;
	/* RPATH (ignored when RUNPATH is present), LD_LIBRARY_PATH, RUNPATH, ld.so.conf, defaults */
	if (expand_for(f, e->runpath ? NULL : e->rpath, &dirs, &n) < 0)
		return -2;
	k = find_in(ix, f->tree, dirs, n, name);
	ga_elf_strv_free(dirs, n);
	struct ga_strv ld = { 0 };
	if (k < 0 && (split_dirs(ix->t ? ix->t->ld_library_path : NULL, &ld) < 0 ||
	              split_dirs(ix->inv->trees[f->tree].ld_library_path, &ld) < 0)) {
		ga_strv_release(&ld);
		return -2;
	}
	if (k < 0)
		k = find_in(ix, f->tree, ld.v, ld.n, name);
	ga_strv_release(&ld);
	if (k < 0 && e->runpath) {
		if (expand_for(f, e->runpath, &dirs, &n) < 0)
			return -2;
		k = find_in(ix, f->tree, dirs, n, name);
		ga_elf_strv_free(dirs, n);
	}
	if (k < 0) {
		const struct ga_strv *c = conf_dirs(ix, f->tree);
		k = find_in(ix, f->tree, c->v, c->n, name);
	}
	if (k < 0)
		k = find_in(ix, f->tree, (char *const *)system_dirs, GA_ARRAY_SIZE(system_dirs), name);
	/* A host directory stands for a configured library directory (ld.so.conf): its own dir counts. */
	if (k < 0 && !strcmp(ix->inv->trees[f->tree].kind, "dir")) {
		char own[4096];
		snprintf(own, sizeof(own), "%s", f->tree_path);
		char *sl = strrchr(own, '/');
		if (sl)
			*sl = '\0';
		else
			own[0] = '\0';
		char *d[1] = { own };
		k = find_in(ix, f->tree, d, 1, name);
	}
	return k;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->loaded != y->loaded)
		return x->loaded < y->loaded ? -1 : 1;
	return x->loader < y->loader ? -1 : x->loader > y->loader;
}

static int build_edges(struct tree_index *ix)
{
	ix->edges_done = true;
	const struct ga_deps_inventory *inv = ix->inv;
	for (size_t i = 0; i < inv->n_files; i++) {
		const struct ga_deps_file *f = &inv->files[i];
		if (!f->elf || !f->elf->n_needed)
			continue;
		for (size_t k = 0; k < f->elf->n_needed; k++) {
			if (strchr(f->elf->needed[k], '/'))
				continue;
			long hit = own_search(ix, f, f->elf->needed[k]);
			if (hit == -2)
				return -ENOMEM;
			if (hit >= 0)
				hit = follow(ix, f->tree, inv->files[hit].tree_path);
			if (hit < 0 || !inv->files[hit].elf || (size_t)hit == i)
				continue;
			struct edge *e = ga_array_push((void **)&ix->edges, &ix->n_edges, sizeof(*e));
			if (!e)
				return -ENOMEM;
			*e = (struct edge){ (size_t)hit, i };
		}
	}
	if (ix->n_edges)
		qsort(ix->edges, ix->n_edges, sizeof(*ix->edges), cmp_edge);
	return 0;
}

/*
 * name found through the DT_RPATH of an object that loads f, directly or up
 * the chain (f has no DT_RUNPATH): 1, 0 not found, -ENOMEM.
 */
static int inherited(struct tree_index *ix, size_t fi, const char *name)
{
	if (!ix->edges_done && build_edges(ix) < 0)
		return -ENOMEM;
	const struct ga_deps_inventory *inv = ix->inv;
	size_t *queue = ga_calloc(inv->n_files, sizeof(*queue));
	bool *seen = ga_calloc(inv->n_files, sizeof(*seen));
	int r = 0;
	if (!queue || !seen) {
		r = -ENOMEM;
		goto out;
	}
	size_t head = 0, tail = 0;
	queue[tail++] = fi;
	seen[fi] = true;
	while (head < tail && r == 0) {
		size_t cur = queue[head++];
		struct edge want = { cur, 0 };
		size_t lo = 0, hi = ix->n_edges;
		while (lo < hi) { /* first edge of cur */
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_edge(&ix->edges[mid], &want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < ix->n_edges && ix->edges[k].loaded == cur && r == 0; k++) {
			size_t a = ix->edges[k].loader;
			if (seen[a])
				continue;
			seen[a] = true;
			queue[tail++] = a;
			const struct ga_deps_file *af = &inv->files[a];
			if (!af->elf->rpath || af->elf->runpath)
				continue; /* RPATH is ignored where RUNPATH is present; the chain goes on */
			char **dirs;
			size_t n;
			if (expand_for(af, af->elf->rpath, &dirs, &n) < 0) {
				r = -ENOMEM;
				break;
			}
			if (resolve_in(ix, inv->files[fi].tree, dirs, n, name))
				r = 1;
			ga_elf_strv_free(dirs, n);
		}
	}
out:
	ga_free(queue);
	ga_free(seen);
	return r;
}

static bool target_provides(const struct ga_deps_target *t, const char *name)
{
	struct ga_vendor_match m;
	const struct ga_vendor_lib *l = ga_vendor_lib_find(name, &m);
	if (!l)
		return false;
	if (l->flags & GA_VLIB_NEUTRAL)
		return true; /* loaders (libOpenCL, libvulkan) and plumbing: part of the base system */
	if (t->kind == GA_TARGET_CUDA && l->backend == GA_DEP_CUDA && (l->flags & GA_VLIB_DRIVER))
		return true;
	if (t->kind == GA_TARGET_ROCM && l->backend == GA_DEP_ROCM &&
	    (m.runtime_major < 0 || t->rocm_major < 0 || m.runtime_major == t->rocm_major))
		return true;
	return false;
}

static int unresolved(const struct ga_deps_inventory *inv, struct tree_index *ix, size_t fi,
                      const struct ga_deps_target *t, struct ga_findings *out)
{
	const struct ga_deps_file *f = &inv->files[fi];
	const struct ga_elf_info *e = f->elf;
	if (!e->n_needed)
		return 0;
	const char *list = e->runpath ? e->runpath : e->rpath;
	int r = 0;
	for (size_t i = 0; i < e->n_needed && r == 0; i++) {
		const char *nd = e->needed[i];
		if (strchr(nd, '/') || base_lib(nd))
			continue;
		long k = own_search(ix, f, nd);
		if (k == -2)
			return -ENOMEM;
		if (k >= 0 || target_provides(t, nd))
			continue;
		if (!e->runpath && (r = inherited(ix, fi, nd)) != 0) {
			r = r < 0 ? r : 0;
			continue;
		}
		const struct ga_vendor_lib *l = ga_vendor_lib_find(nd, NULL);
		enum ga_dep_backend tb = target_backend(t);
		if (l && gpu_backend(l->backend) && tb != GA_DEP_NONE && l->backend != tb)
			continue; /* reported as GA-DEPS-WRONG-VENDOR */
		bool vendor = l && gpu_backend(l->backend);
		char pk[300];
		struct ga_finding *fd = ga_findings_add(
		        out, "GA-DEPS-UNRESOLVED-NEEDED",
		        vendor && tb != GA_DEP_NONE ? GA_SEV_ERROR : GA_SEV_WARNING, f->path,
		        vendor ? "install the redistributable that provides it (e.g. the nvidia-* wheel) or "
		                 "fix RPATH"
		               : "bundle it, depend on the package that provides it, or fix RPATH/RUNPATH",
		        "NEEDs %s, which is neither in the scanned tree on its %s nor in the target's system "
		        "directories: \"error while loading shared libraries: %s: cannot open shared object "
		        "file: No such "
		        "file or directory\"",
		        nd,
		        e->runpath ? "RUNPATH"
		        : e->rpath ? "RPATH"
		                   : "search path",
		        nd);
		if (!fd) {
			r = -ENOMEM;
			break;
		}
		if (list)
			ga_finding_evidence(fd, e->runpath ? "runpath" : "rpath", "%s", list);
		if (f->pkg >= 0)
			ga_finding_evidence(fd, "package", "%s", pkg_label(inv, f, pk, sizeof(pk)));
	}
	return r;
}

static int isa_level(const struct ga_deps_file *f, const struct ga_deps_target *t, struct ga_findings *out)
{
	if (!t->cpu_isa_level || f->elf->x86_isa_level <= t->cpu_isa_level)
		return 0;
	struct ga_finding *fd = ga_findings_add(out, "GA-DEPS-ISA-LEVEL", GA_SEV_ERROR, f->path,
	                                        "build for the fleet's baseline ISA level (-march=x86-64-vN)",
	                                        "needs x86-64-v%d (GNU_PROPERTY_X86_ISA_1_NEEDED) but the "
	                                        "target CPU is x86-64-v%d: \"Illegal "
	                                        "instruction (core dumped)\"",
	                                        f->elf->x86_isa_level, t->cpu_isa_level);
	return fd ? 0 : -ENOMEM;
}

/* Policy backend names: "hip" = rocm, "sycl" / "xpu" = level-zero. */
static bool backend_allowed(const struct ga_deps_target *t, enum ga_dep_backend b)
{
	const char *n = ga_dep_backend_name(b);
	for (size_t i = 0; i < t->allowed_backends.n; i++) {
		const char *a = t->allowed_backends.v[i];
		if (!strcmp(a, n) || (b == GA_DEP_ROCM && !strcmp(a, "hip")) ||
		    (b == GA_DEP_LEVEL_ZERO && (!strcmp(a, "sycl") || !strcmp(a, "xpu"))))
			return true;
	}
	return false;
}

static int policy_backends(const char *subject, const struct ga_dep_signal *v, size_t n,
                           const struct ga_deps_target *t, struct ga_findings *out)
{
	if (!t->allowed_backends.n)
		return 0;
	for (int b = GA_DEP_CUDA; b <= GA_DEP_LEVEL_ZERO; b++) {
		const struct ga_dep_signal *s = strongest(v, n, (enum ga_dep_backend)b);
		if (!s || backend_allowed(t, (enum ga_dep_backend)b))
			continue;
		struct ga_finding *fd = ga_findings_add(
		        out, "GA-DEPS-POLICY-BACKEND",
		        s->strength == GA_STRENGTH_SOFT ? GA_SEV_WARNING : GA_SEV_ERROR, subject,
		        "replace it with a build for an allowed backend, or change the policy",
		        "pulls in %s through %s (%s) but class %s allows only: %s",
		        ga_dep_backend_name(s->backend), s->what, ga_dep_strength_name(s->strength),
		        t->policy_class ? t->policy_class : "?",
		        t->allowed_backends.n ? t->allowed_backends.v[0] : "");
		if (!fd)
			return -ENOMEM;
		for (size_t i = 1; i < t->allowed_backends.n; i++)
			ga_finding_evidence(fd, "allowed", "%s", t->allowed_backends.v[i]);
	}
	return 0;
}

static bool has_format(const struct ga_elf_info *e, bool cuda)
{
	for (size_t c = 0; c < e->n_containers; c++)
		if ((e->containers[c].format == GA_DEVCODE_CUDA_FATBIN) == cuda &&
		    e->containers[c].format != GA_DEVCODE_LLVM_OFFLOAD)
			return true;
	return !cuda && e->device_arch && e->device_backend == GA_DEP_ROCM;
}

int ga_deps_judge(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                  struct ga_findings *out)
{
	struct tree_index ix = { .inv = inv, .t = t };
	int r = 0;
	if ((inv->n_files && !(ix.keys = ga_calloc(inv->n_files, sizeof(*ix.keys)))) ||
	    (inv->n_trees && (!(ix.conf = ga_calloc(inv->n_trees, sizeof(*ix.conf))) ||
	                      !(ix.conf_done = ga_calloc(inv->n_trees, sizeof(*ix.conf_done)))))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < inv->n_files; i++)
		ix.keys[ix.n++] = (struct file_key){ inv->files[i].tree, inv->files[i].tree_path, i };
	if (ix.n)
		qsort(ix.keys, ix.n, sizeof(*ix.keys), cmp_key);
	bool have = t && t->kind != GA_TARGET_NONE;
	for (size_t i = 0; i < inv->n_files && r == 0; i++) {
		const struct ga_deps_file *f = &inv->files[i];
		if (!f->elf)
			continue;
		r = driver_bundled(f, out);
		if (r == 0 && f->elf->type_name && strcmp(f->elf->type_name, "rel"))
			r = unresolved(inv, &ix, i, t, out);
		if (!have)
			continue;
		if (r == 0)
			r = wrong_vendor_file(inv, f, t, out);
		if (r == 0 && t->kind == GA_TARGET_CUDA && t->cuda_version > 0)
			r = too_new(f->path, f->signals, f->n_signals, t, out);
		if (r == 0 && t->kind == GA_TARGET_CUDA && t->sm > 0)
			r = cuda_kernels(inv, f, t->sm, t->cuda_version, "GA-DEPS-NO-KERNEL-IMAGE", out);
		if (r == 0 && t->kind == GA_TARGET_ROCM && t->gfx[0])
			r = hip_code(inv, f, t->gfx, "GA-DEPS-NO-GFX-CODE", out);
		if (r == 0)
			r = isa_level(f, t, out);
		if (r == 0)
			r = policy_backends(f->path, f->signals, f->n_signals, t, out);
		/* policy archs: every device-code file must run on each required arch */
		for (size_t a = 0; a < t->required_archs.n && r == 0; a++) {
			const char *arch = t->required_archs.v[a];
			if (!strncmp(arch, "sm_", 3) && parse_sm(arch) > 0 && has_format(f->elf, true) &&
			    parse_sm(arch) != t->sm)
				r = cuda_kernels(inv, f, parse_sm(arch), t->cuda_version,
				                 "GA-DEPS-POLICY-ARCH", out);
			else if (!strncmp(arch, "gfx", 3) && has_format(f->elf, false) &&
			         strcmp(arch, t->gfx))
				r = hip_code(inv, f, arch, "GA-DEPS-POLICY-ARCH", out);
		}
	}
	for (size_t i = 0; have && i < inv->n_pkgs && r == 0; i++) {
		const struct ga_deps_pkg *p = &inv->pkgs[i];
		const char *subject = p->meta_path ? p->meta_path : p->name ? p->name : "?";
		r = wrong_vendor_pkg(p, t, out);
		if (r == 0 && t->kind == GA_TARGET_CUDA && t->cuda_version > 0)
			r = too_new(subject, p->signals, p->n_signals, t, out);
		if (r == 0)
			r = policy_backends(subject, p->signals, p->n_signals, t, out);
	}
out:
	ga_free(ix.keys);
	for (size_t i = 0; ix.conf && i < inv->n_trees; i++)
		ga_strv_release(&ix.conf[i]);
	ga_free(ix.conf);
	ga_free(ix.conf_done);
	ga_free(ix.edges);
	if (r == 0 && out->err)
		r = out->err;
	return r;
}

/* ---- JSON ---- */

static void write_signals(struct ga_json *w, const struct ga_dep_signal *v, size_t n)
{
	ga_json_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		ga_json_obj_begin(w);
		ga_json_key(w, "backend");
		ga_json_str(w, ga_dep_backend_name(v[i].backend));
		ga_json_key(w, "strength");
		ga_json_str(w, ga_dep_strength_name(v[i].strength));
		ga_json_key(w, "what");
		ga_json_str(w, v[i].what);
		ga_json_key(w, "runtime_version");
		if (v[i].runtime_version > 0) {
			char b[16];
			snprintf(b, sizeof(b), "%d.%d", v[i].runtime_version / 1000,
			         v[i].runtime_version % 1000 / 10);
			ga_json_str(w, b);
		} else
			ga_json_null(w);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
}

static void write_strs(struct ga_json *w, char *const *v, size_t n)
{
	ga_json_arr_begin(w);
	for (size_t i = 0; i < n; i++)
		ga_json_str(w, v[i]);
	ga_json_arr_end(w);
}

struct img_key {
	const struct ga_devcode_image *im;
	enum ga_devcode_format fmt;
	size_t first, count;
};

static int img_key_cmp(const struct img_key *x, const struct img_key *y)
{
	if (x->fmt != y->fmt)
		return x->fmt < y->fmt ? -1 : 1;
	if (x->im->kind != y->im->kind)
		return x->im->kind < y->im->kind ? -1 : 1;
	int c = strcmp(x->im->arch, y->im->arch);
	if (c)
		return c;
	if (x->im->ptx_isa_major != y->im->ptx_isa_major)
		return x->im->ptx_isa_major < y->im->ptx_isa_major ? -1 : 1;
	if (x->im->ptx_isa_minor != y->im->ptx_isa_minor)
		return x->im->ptx_isa_minor < y->im->ptx_isa_minor ? -1 : 1;
	return 0;
}

static bool img_key_eq(const struct img_key *x, const struct img_key *y)
{
	return img_key_cmp(x, y) == 0;
}

static int cmp_img_key(const void *a, const void *b)
{
	const struct img_key *x = a, *y = b;
	int c = img_key_cmp(x, y);
	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int cmp_img_first(const void *a, const void *b)
{
	const struct img_key *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

static void write_devcode(struct ga_json *w, const struct ga_elf_info *e)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "containers");
	ga_json_obj_begin(w);
	for (int f = 0; f < GA_DEVCODE_FORMAT_N; f++) {
		ga_json_key(w, ga_devcode_format_name((enum ga_devcode_format)f));
		ga_json_u64(w, e->n_by_format[f]);
	}
	ga_json_obj_end(w);
	ga_json_key(w, "truncated");
	ga_json_bool(w, e->devcode_truncated);
	ga_json_key(w, "bad_containers");
	ga_json_u64(w, e->n_bad_containers);
	/*
	 * distinct (format, kind, arch, ptx isa) with counts, in the order of first
	 * appearance: cuFFT alone has ~24k images, so they are grouped by sorting
	 * (n log n) rather than by comparing each with all the others.
	 */
	ga_json_key(w, "images");
	ga_json_arr_begin(w);
	struct img_key *keys = e->n_images ? ga_malloc(e->n_images * sizeof(*keys)) : NULL;
	if (e->n_images && !keys) {
		ga_json_arr_end(w);
		ga_json_obj_end(w);
		if (!w->err)
			w->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < e->n_images; i++)
		keys[i] = (struct img_key){ .im = &e->images[i],
			                    .fmt = e->containers[e->images[i].container].format,
			                    .first = i,
			                    .count = 1 };
	if (e->n_images) /* qsort's base must not be NULL, even for 0 elements */
		qsort(keys, e->n_images, sizeof(*keys), cmp_img_key);
	/* collapse runs of equal keys into their first element (the lowest index, as the sort breaks ties by it) */
	size_t ng = 0;
	for (size_t i = 0; i < e->n_images; i++) {
		if (ng && img_key_eq(&keys[ng - 1], &keys[i]))
			keys[ng - 1].count++;
		else
			keys[ng++] = keys[i];
	}
	if (ng)
		qsort(keys, ng, sizeof(*keys), cmp_img_first);
	for (size_t g = 0; g < ng; g++) {
		const struct ga_devcode_image *im = keys[g].im;
		ga_json_obj_begin(w);
		ga_json_key(w, "format");
		ga_json_str(w, ga_devcode_format_name(keys[g].fmt));
		ga_json_key(w, "kind");
		ga_json_str(w, ga_devcode_kind_name(im->kind));
		ga_json_key(w, "arch");
		ga_json_str(w, im->arch[0] ? im->arch : NULL);
		ga_json_key(w, "ptx_isa");
		if (im->kind == GA_CODE_PTX) {
			char b[16];
			snprintf(b, sizeof(b), "%u.%u", im->ptx_isa_major, im->ptx_isa_minor);
			ga_json_str(w, b);
		} else
			ga_json_null(w);
		ga_json_key(w, "count");
		ga_json_u64(w, keys[g].count);
		ga_json_obj_end(w);
	}
	ga_free(keys);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

static void write_elf(struct ga_json *w, const struct ga_elf_info *e)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "class");
	if (e->elf_class)
		ga_json_u64(w, e->elf_class);
	else
		ga_json_null(w);
	ga_json_key(w, "machine");
	ga_json_str(w, e->machine_name);
	ga_json_key(w, "osabi");
	ga_json_str(w, e->osabi_name);
	ga_json_key(w, "type");
	ga_json_str(w, e->type_name);
	ga_json_key(w, "soname");
	ga_json_str(w, e->soname);
	ga_json_key(w, "needed");
	write_strs(w, e->needed, e->n_needed);
	ga_json_key(w, "rpath");
	ga_json_str(w, e->rpath);
	ga_json_key(w, "runpath");
	ga_json_str(w, e->runpath);
	ga_json_key(w, "dlopen");
	write_strs(w, e->dlopen_names, e->n_dlopen_names);
	ga_json_key(w, "static_cudart");
	ga_json_bool(w, e->static_cudart);
	ga_json_key(w, "x86_isa_level");
	if (e->x86_isa_level)
		ga_json_u64(w, (uint64_t)e->x86_isa_level);
	else
		ga_json_null(w);
	ga_json_key(w, "device_arch");
	ga_json_str(w, e->device_arch);
	ga_json_key(w, "device_code");
	write_devcode(w, e);
	ga_json_obj_end(w);
}

void ga_deps_write_json(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                        const struct ga_findings *f, struct ga_json *w)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, GA_DEPS_SCHEMA);
	ga_json_key(w, "target");
	if (t && t->kind != GA_TARGET_NONE) {
		static const char *const kinds[] = { "none", "cuda", "rocm", "level-zero", "cpu" };
		ga_json_obj_begin(w);
		ga_json_key(w, "name");
		ga_json_str(w, t->name);
		ga_json_key(w, "backend");
		ga_json_str(w, kinds[t->kind]);
		char b[16];
		ga_json_key(w, "cuda_version");
		snprintf(b, sizeof(b), "%d.%d", t->cuda_version / 1000, t->cuda_version % 1000 / 10);
		ga_json_str(w, t->cuda_version > 0 ? b : NULL);
		ga_json_key(w, "sm");
		snprintf(b, sizeof(b), "sm_%d", t->sm);
		ga_json_str(w, t->sm > 0 ? b : NULL);
		ga_json_key(w, "rocm_major");
		if (t->rocm_major >= 0)
			ga_json_u64(w, (uint64_t)t->rocm_major);
		else
			ga_json_null(w);
		ga_json_key(w, "gfx");
		ga_json_str(w, t->gfx[0] ? t->gfx : NULL);
		ga_json_key(w, "cpu_isa_level");
		if (t->cpu_isa_level)
			ga_json_u64(w, (uint64_t)t->cpu_isa_level);
		else
			ga_json_null(w);
		ga_json_key(w, "policy_class");
		ga_json_str(w, t->policy_class);
		ga_json_key(w, "allowed_backends");
		write_strs(w, t->allowed_backends.v, t->allowed_backends.n);
		ga_json_key(w, "required_archs");
		write_strs(w, t->required_archs.v, t->required_archs.n);
		ga_json_obj_end(w);
	} else
		ga_json_null(w);
	ga_json_key(w, "scanned");
	ga_json_obj_begin(w);
	ga_json_key(w, "files");
	ga_json_u64(w, inv->files_seen);
	ga_json_key(w, "bytes");
	ga_json_u64(w, inv->bytes_seen);
	ga_json_key(w, "archive_bytes_inflated");
	ga_json_u64(w, inv->bytes_inflated);
	ga_json_key(w, "truncated");
	ga_json_bool(w, inv->truncated);
	ga_json_obj_end(w);
	ga_json_key(w, "trees");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < inv->n_trees; i++) {
		ga_json_obj_begin(w);
		ga_json_key(w, "name");
		ga_json_str(w, inv->trees[i].name);
		ga_json_key(w, "kind");
		ga_json_str(w, inv->trees[i].kind);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "packages");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < inv->n_pkgs; i++) {
		const struct ga_deps_pkg *p = &inv->pkgs[i];
		ga_json_obj_begin(w);
		ga_json_key(w, "kind");
		ga_json_str(w, p->kind);
		ga_json_key(w, "name");
		ga_json_str(w, p->name);
		ga_json_key(w, "version");
		ga_json_str(w, p->version);
		ga_json_key(w, "local_version");
		ga_json_str(w, p->local_version);
		ga_json_key(w, "metadata");
		ga_json_str(w, p->meta_path);
		ga_json_key(w, "tree");
		ga_json_str(w, inv->trees[p->tree].name);
		ga_json_key(w, "signals");
		write_signals(w, p->signals, p->n_signals);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "files");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < inv->n_files; i++) {
		const struct ga_deps_file *fl = &inv->files[i];
		if (!fl->elf)
			continue; /* links and metadata files are inputs, not results */
		ga_json_obj_begin(w);
		ga_json_key(w, "path");
		ga_json_str(w, fl->path);
		ga_json_key(w, "package");
		ga_json_str(w, fl->pkg >= 0 ? inv->pkgs[fl->pkg].name : NULL);
		ga_json_key(w, "size_bytes");
		ga_json_u64(w, fl->size_bytes);
		ga_json_key(w, "elf");
		write_elf(w, fl->elf);
		ga_json_key(w, "signals");
		write_signals(w, fl->signals, fl->n_signals);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "gaps");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < inv->n_gaps; i++) {
		ga_json_obj_begin(w);
		ga_json_key(w, "path");
		ga_json_str(w, inv->gaps[i].path);
		ga_json_key(w, "reason");
		ga_json_str(w, inv->gaps[i].reason);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "findings");
	ga_findings_write_json(f, w);
	ga_json_obj_end(w);
}
