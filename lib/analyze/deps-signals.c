/*
 * deps-signals.c - backend signals of an artifact inventory (pure: it reads
 * only the inventory, never the filesystem), and which package owns each file.
 *
 * Each ELF file gets one signal per vendor library it NEEDs (hard), names in
 * its string data or .note.dlopen (soft), and per kind of embedded device
 * code or static CUDA runtime (embedded); each package gets the ones its
 * metadata declares (Requires-Dist nvidia-*, +cu126 / +rocm6.2 local
 * versions, conda __cuda / cuda-version / build strings).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"

#define MAX_ARCH_SIGNALS 64

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
	if (!l && st == GA_STRENGTH_SOFT) {
		/* a plug-in loaded by name (plugins.c): a soft signal of the back end it brings */
		const struct ga_deps_plugin_conv *c = ga_deps_plugin_find(name);
		return c && flagged_backend(c->backend)
		               ? add_signal(&f->signals, &f->n_signals, c->backend, st, name, -1)
		               : 0;
	}
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
int ga_deps_dotted_version(const char *s)
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

int ga_deps_pkg_signal(struct ga_deps_pkg *p, enum ga_dep_backend b, const char *what, int runtime_version)
{
	return add_signal(&p->signals, &p->n_signals, b, GA_STRENGTH_DECLARED, what, runtime_version);
}

enum ga_dep_backend ga_deps_deb_backend(const char *name, int *ret_version)
{
	return deb_backend(name, ret_version);
}

static int pkg_signals(struct ga_deps_pkg *p)
{
	int r = 0, ver;
	char name[128], what[300];
	if (!strcmp(p->kind, "npm") || !strcmp(p->kind, "rpm"))
		return 0; /* deps-pkgs.c */
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
			               ga_deps_dotted_version(lv + 4));
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
			              ? ga_deps_dotted_version(v)
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

int ga_deps_cmp_file_key(const void *a, const void *b)
{
	const struct ga_deps_file_key *x = a, *y = b;
	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	return strcmp(x->path, y->path);
}

char *ga_deps_norm_join(const char *dir, const char *rel)
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

int ga_deps_signals_base(struct ga_deps_inventory *inv)
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
	struct ga_deps_file_key *keys = ga_calloc(inv->n_files, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_files; i++)
		keys[i] = (struct ga_deps_file_key){ inv->files[i].tree, inv->files[i].tree_path, i };
	qsort(keys, inv->n_files, sizeof(*keys), ga_deps_cmp_file_key);
	for (size_t p = 0; p < inv->n_pkgs && r == 0; p++) {
		const struct ga_deps_pkg *pk = &inv->pkgs[p];
		if (pk->owns_tree)
			for (size_t i = 0; i < inv->n_files; i++)
				if (inv->files[i].tree == pk->tree && inv->files[i].pkg < 0)
					inv->files[i].pkg = (long)p;
		for (size_t k = 0; k < pk->files.n; k++) {
			char *full = ga_deps_norm_join(pk->tree_dir ? pk->tree_dir : "", pk->files.v[k]);
			if (!full) {
				r = -ENOMEM;
				break;
			}
			struct ga_deps_file_key want = { pk->tree, full, 0 };
			struct ga_deps_file_key *hit =
			        bsearch(&want, keys, inv->n_files, sizeof(*keys), ga_deps_cmp_file_key);
			/* merged /usr: dpkg lists /lib/x/libfoo.so.1 where the tree holds usr/lib/x/... */
			char *usr = NULL;
			const char *rel = pk->files.v[k];
			while (*rel == '/')
				rel++;
			if (!hit && pk->kind && !strcmp(pk->kind, "deb") &&
			    (!strncmp(rel, "lib", 3) || !strncmp(rel, "bin/", 4) ||
			     !strncmp(rel, "sbin/", 5))) {
				size_t n = strlen(rel) + 5;
				char *u = ga_malloc(n);
				if (u)
					snprintf(u, n, "usr/%s", rel);
				usr = u ? ga_deps_norm_join(pk->tree_dir ? pk->tree_dir : "", u) : NULL;
				ga_free(u);
				if (!usr) {
					ga_free(full);
					r = -ENOMEM;
					break;
				}
				want.path = usr;
				hit = bsearch(&want, keys, inv->n_files, sizeof(*keys), ga_deps_cmp_file_key);
			}
			if (hit && inv->files[hit->index].pkg < 0)
				inv->files[hit->index].pkg = (long)p;
			ga_free(usr);
			ga_free(full);
		}
	}
	ga_free(keys);
	return r;
}
