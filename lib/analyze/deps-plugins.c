/*
 * deps-plugins.c - libraries loaded by file name at run time (pure). A name
 * in a library's string data that follows a plug-in convention
 * (lib/deps/plugins.c: ONNX Runtime execution providers, TensorRT plugins,
 * NCCL net plugins, PyTorch's CUDA libraries, cuDNN sub-libraries) and the
 * library each OpenCL / Vulkan ICD file names are looked up in the same
 * tree, as the loader would find them: the chain libonnxruntime.so -> by
 * name -> libonnxruntime_providers_cuda.so -> NEEDS libcudart.so.12. The
 * plug-in's own needs are judged like any file's (deps-verdicts.c); here:
 * a back end named but missing, and the chain on the plug-in's findings.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"

/* For ICD files naming a library the table does not know. */
static const struct ga_deps_plugin_conv icd_opencl = { "", GA_DEP_OPENCL, GA_PLUGIN_ICD, "OpenCL ICD",
	                                               "OpenCL driver" };
static const struct ga_deps_plugin_conv icd_vulkan = { "", GA_DEP_VULKAN, GA_PLUGIN_ICD, "Vulkan ICD",
	                                               "Vulkan driver" };

static long follow_path(struct ga_ldso *ix, size_t tree, const char *dir, const char *name)
{
	char *p = ga_deps_norm_join(dir, name);
	if (!p)
		return -2;
	long k = ga_ldso_follow(ix, tree, p);
	ga_free(p);
	return k;
}

/* Where the loader (or the host's own directory rule) finds name for file f: file index, -1, -2 ENOMEM. */
static long find_plugin(struct ga_ldso *ix, const struct ga_deps_file *f, const char *name,
                        const struct ga_deps_plugin_conv *c)
{
	if (name[0] == '/')
		return follow_path(ix, f->tree, "", name);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", f->tree_path);
	char *sl = strrchr(dir, '/');
	if (sl)
		*sl = '\0';
	else
		dir[0] = '\0';
	if (strchr(name, '/'))
		return follow_path(ix, f->tree, dir, name);
	long k = -1;
	if (c->flags & GA_PLUGIN_SAME_DIR)
		k = follow_path(ix, f->tree, dir, name);
	if (k == -1) {
		k = ga_ldso_own_search(ix, f, name);
		if (k >= 0)
			k = ga_ldso_follow(ix, f->tree, ix->inv->files[k].tree_path);
	}
	return k;
}

static int push_use(struct ga_deps_plugin_use **v, size_t *n, const struct ga_deps_plugin_use *u)
{
	struct ga_deps_plugin_use *s = ga_array_push((void **)v, n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = *u;
	return 0;
}

/* The library an ICD file names: an .icd file's first line; a manifest's ICD.library_path. */
static int icd_library(const struct ga_deps_ldconf *c, char *out, size_t n)
{
	out[0] = '\0';
	size_t len = strlen(c->text);
	if (len > 4 && !strcmp(c->path + strlen(c->path) - 4, ".icd")) {
		const char *s = c->text;
		while (*s == ' ' || *s == '\t')
			s++;
		size_t k = strcspn(s, "\r\n");
		while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
			k--;
		if (k < n)
			snprintf(out, n, "%.*s", (int)k, s);
		return 0;
	}
	json_t *root = NULL;
	int r = ga_json_parse(NULL, c->text, len, 0, &root, NULL);
	if (r == -ENOMEM)
		return r;
	const char *lp = json_string_value(json_object_get(json_object_get(root, "ICD"), "library_path"));
	if (lp && strlen(lp) < n)
		snprintf(out, n, "%s", lp);
	json_decref(root);
	return 0;
}

static int icd_uses(struct ga_ldso *ix, const struct ga_deps_inventory *inv, struct ga_deps_plugin_use **v,
                    size_t *n)
{
	struct ga_elf_info none;
	memset(&none, 0, sizeof(none));
	for (size_t t = 0; t < inv->n_trees; t++) {
		const struct ga_deps_tree *tr = &inv->trees[t];
		for (size_t i = 0; i < tr->n_icds; i++) {
			char lib[512];
			int r = icd_library(&tr->icds[i], lib, sizeof(lib));
			if (r < 0)
				return r;
			if (!lib[0])
				continue;
			const struct ga_deps_plugin_conv *c = ga_deps_plugin_find(lib);
			bool vulkan = strstr(tr->icds[i].path, "vulkan/") != NULL;
			if (!c || !(c->flags & GA_PLUGIN_ICD))
				c = vulkan ? &icd_vulkan : &icd_opencl;
			/* the ICD's library is opened by the loader (libOpenCL / libvulkan): its search, from the ICD's place */
			struct ga_deps_file pseudo = {
				.tree_path = tr->icds[i].path, .tree = t, .elf = &none, .pkg = -1
			};
			long k = lib[0] == '/' ? follow_path(ix, t, "", lib)
			         : strchr(lib, '/')
			                 ? -1 /* a relative path: relative to the manifest's directory */
			                 : ga_ldso_own_search(ix, &pseudo, lib);
			if (k == -1 && strchr(lib, '/') && lib[0] != '/') {
				char dir[4096];
				snprintf(dir, sizeof(dir), "%s", tr->icds[i].path);
				char *sl = strrchr(dir, '/');
				if (sl)
					*sl = '\0';
				k = follow_path(ix, t, dir, lib);
			} else if (k >= 0 && lib[0] != '/')
				k = ga_ldso_follow(ix, t, inv->files[k].tree_path);
			if (k == -2)
				return -ENOMEM;
			struct ga_deps_plugin_use u = {
				.tree = t, .host = -1, .host_path = tr->icds[i].path, .conv = c, .found = k
			};
			/* a longer name is cut: it only labels the use */
			snprintf(u.name, sizeof(u.name), "%.*s", (int)(sizeof(u.name) - 1), lib);
			if (push_use(v, n, &u) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int ga_deps_plugin_uses(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                        struct ga_deps_plugin_use **ret, size_t *ret_n)
{
	*ret = NULL;
	*ret_n = 0;
	struct ga_ldso ix;
	int r = ga_ldso_init(&ix, inv, t);
	for (size_t i = 0; i < inv->n_files && r == 0; i++) {
		const struct ga_deps_file *f = &inv->files[i];
		if (!f->elf)
			continue;
		for (size_t k = 0; k < f->elf->n_dlopen_names && r == 0; k++) {
			const char *name = f->elf->dlopen_names[k];
			const struct ga_deps_plugin_conv *c = ga_deps_plugin_find(name);
			if (!c || (c->flags & GA_PLUGIN_ICD))
				continue;
			long found = find_plugin(&ix, f, name, c);
			if (found == -2) {
				r = -ENOMEM;
				break;
			}
			if (found == (long)i)
				continue; /* its own name (a SONAME string) */
			struct ga_deps_plugin_use u = { .tree = f->tree,
				                        .host = (long)i,
				                        .host_path = f->path,
				                        .conv = c,
				                        .found = found };
			snprintf(u.name, sizeof(u.name), "%s", name);
			r = push_use(ret, ret_n, &u);
		}
	}
	if (r == 0)
		r = icd_uses(&ix, inv, ret, ret_n);
	ga_ldso_release(&ix);
	if (r < 0) {
		ga_free(*ret);
		*ret = NULL;
		*ret_n = 0;
	}
	return r;
}

static enum ga_dep_backend target_backend(const struct ga_deps_target *t)
{
	return t->kind == GA_TARGET_CUDA         ? GA_DEP_CUDA
	       : t->kind == GA_TARGET_ROCM       ? GA_DEP_ROCM
	       : t->kind == GA_TARGET_LEVEL_ZERO ? GA_DEP_LEVEL_ZERO
	       : t->kind == GA_TARGET_CPU        ? GA_DEP_CPU
	                                         : GA_DEP_NONE;
}

static bool missing_backend(const struct ga_deps_inventory *inv, const struct ga_deps_plugin_use *u,
                            enum ga_dep_backend tb)
{
	return u->host >= 0 && u->found < 0 && (u->conv->flags & GA_PLUGIN_BACKEND) &&
	       u->conv->backend == tb && strcmp(inv->trees[u->tree].kind, "file");
}

/*
 * One finding per host for its back-end plug-ins of the target's vendor that
 * are not in the tree (uses[first] is the first of them): a warning when none
 * of that vendor's is there (the host runs without the back end), info when
 * one is (only the others are unavailable).
 */
static int missing(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                   const struct ga_deps_plugin_use *uses, size_t n_uses, size_t first, enum ga_dep_backend tb,
                   struct ga_findings *out)
{
	const struct ga_deps_plugin_use *u = &uses[first];
	const struct ga_deps_file *f = &inv->files[u->host];
	bool some = false;
	struct ga_buf names, what;
	ga_buf_init(&names, 0);
	ga_buf_init(&what, 0);
	for (size_t k = 0; k < n_uses; k++) {
		const struct ga_deps_plugin_use *o = &uses[k];
		if (o->host != u->host)
			continue;
		if (o->found >= 0 && (o->conv->flags & GA_PLUGIN_BACKEND) && o->conv->backend == tb)
			some = true;
		if (missing_backend(inv, o, tb)) {
			ga_buf_addf(&names, "%s%s", names.len ? ", " : "", o->name);
			ga_buf_addf(&what, "%s%s %s", what.len ? ", " : "", o->conv->host, o->conv->brings);
		}
	}
	struct ga_finding *fd = ga_findings_add(
	        out, GA_C_DEPS_PLUGIN_MISSING, some ? GA_SEV_INFO : GA_SEV_WARNING, f->path,
	        "ship the plug-in with the artifact (the GPU build of the package), or run without that back "
	        "end knowingly",
	        "names %s (%s) but the scanned tree does not carry %s: on this %s target loading it fails "
	        "(\"%s: cannot open shared object file: No such file or directory\") and %s",
	        names.data ? names.data : "", what.data ? what.data : "",
	        strchr(names.data ? names.data : "", ',') ? "them" : "it", ga_dep_backend_name(tb), u->name,
	        some ? "only that back end is unavailable (another of the same vendor is shipped)"
	             : "the host runs without a back end of the target's vendor (on the CPU)");
	ga_buf_release(&names);
	ga_buf_release(&what);
	if (!fd)
		return -ENOMEM;
	ga_finding_evidence(fd, "backend", "%s", ga_dep_backend_name(tb));
	ga_finding_evidence(fd, "target", "%s", t->name ? t->name : "");
	return 0;
}

int ga_deps_judge_plugins(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                          const struct ga_deps_plugin_use *uses, size_t n_uses, struct ga_findings *out,
                          size_t first_finding)
{
	/* the chain: each finding on a plug-in found in the tree says who loads it by name */
	size_t end = out->n;
	for (size_t i = first_finding; i < end; i++) {
		struct ga_finding *fd = &out->v[i];
		for (size_t k = 0; k < n_uses; k++) {
			const struct ga_deps_plugin_use *u = &uses[k];
			if (u->found < 0 || !fd->subject || strcmp(fd->subject, inv->files[u->found].path))
				continue;
			if (ga_finding_evidence(fd, "loaded_by", "%s (by name: %s, %s %s)", u->host_path,
			                        u->name, u->conv->host, u->conv->brings) < 0)
				return -ENOMEM;
		}
	}
	enum ga_dep_backend tb = t ? target_backend(t) : GA_DEP_NONE;
	for (size_t k = 0; k < n_uses && tb != GA_DEP_NONE; k++) {
		if (!missing_backend(inv, &uses[k], tb))
			continue;
		bool first = true; /* one finding per host: at its first missing plug-in */
		for (size_t j = 0; j < k && first; j++)
			first = !(uses[j].host == uses[k].host && missing_backend(inv, &uses[j], tb));
		int r = first ? missing(inv, t, uses, n_uses, k, tb, out) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}
