/*
 * deps-pkgs.c - what npm and rpm package metadata declare (pure: it reads
 * only the inventory), which npm package owns each file (the deepest package
 * directory above it), ga_deps_signals (the signals of deps-signals.c, then
 * these), and GA-DEPS-INSTALL-SCRIPT: an npm package that runs
 * a script at install time, above all one that fetches binaries then, is not
 * fully in the artifact.
 *
 * npm: the GPU variant is chosen by package name (node-llama-cpp's
 * @node-llama-cpp/linux-x64-cuda and -vulkan optional packages,
 * @tensorflow/tfjs-node-gpu); a name naming another OS (mac-, darwin-, win-,
 * win32-) is an optional package npm does not install on Linux, so it declares
 * nothing for a Linux node. rpm: the name (NVIDIA's and AMD's rpm repositories
 * name packages as their apt ones: cuda-cudart-12-4, rocm-hip-runtime) and
 * each Requires, a soname dependency ("libcuda.so.1()(64bit)", rpm's
 * automatic ELF requires) judged by the vendor library table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"

/* A token of an npm name ("@node-llama-cpp/linux-x64-cuda": node, llama, cpp, linux, x64, cuda). */
static bool has_token(const char *name, const char *tok)
{
	size_t k = strlen(tok);
	for (const char *p = name; (p = strstr(p, tok)); p++) {
		bool left = p == name || strchr("@/-_.", p[-1]);
		bool right = !p[k] || strchr("@/-_.", p[k]);
		if (left && right)
			return true;
	}
	return false;
}

/* An optional per-platform package for another OS: npm skips it on Linux. */
static bool other_os(const char *name)
{
	static const char *const os[] = { "mac",     "macos",   "darwin",  "win", "win32",
		                          "windows", "android", "freebsd", NULL };
	for (size_t i = 0; os[i]; i++)
		if (has_token(name, os[i]))
			return true;
	return false;
}

static enum ga_dep_backend npm_backend(const char *name)
{
	if (has_token(name, "cuda") || !strcmp(name, "@tensorflow/tfjs-node-gpu") ||
	    !strcmp(name, "onnxruntime-node-gpu"))
		return GA_DEP_CUDA;
	if (has_token(name, "rocm") || has_token(name, "hip") || has_token(name, "hipblas"))
		return GA_DEP_ROCM;
	if (has_token(name, "sycl") || has_token(name, "oneapi"))
		return GA_DEP_LEVEL_ZERO;
	if (has_token(name, "vulkan"))
		return GA_DEP_VULKAN;
	if (has_token(name, "opencl"))
		return GA_DEP_OPENCL;
	return GA_DEP_NONE;
}

/* "name@range" (a scoped "@scope/name@range" included) -> name */
static void npm_dep_name(const char *dep, char *out, size_t n)
{
	const char *at = strchr(dep + (dep[0] == '@'), '@');
	size_t k = at ? (size_t)(at - dep) : strlen(dep);
	snprintf(out, n, "%.*s", (int)k, dep);
}

static int npm_signals(struct ga_deps_pkg *p)
{
	char what[300], name[256];
	int r = 0;
	enum ga_dep_backend b = npm_backend(p->name);
	if (b != GA_DEP_NONE && !other_os(p->name)) {
		snprintf(what, sizeof(what), "package %s", p->name);
		r = ga_deps_pkg_signal(p, b, what, -1);
	}
	const struct ga_strv *lists[] = { &p->requires, &p->optional };
	const char *label[] = { "dependencies", "optionalDependencies" };
	for (size_t l = 0; l < 2 && r == 0; l++)
		for (size_t i = 0; i < lists[l]->n && r == 0; i++) {
			npm_dep_name(lists[l]->v[i], name, sizeof(name));
			if ((b = npm_backend(name)) == GA_DEP_NONE || other_os(name))
				continue;
			snprintf(what, sizeof(what), "%s %s", label[l], lists[l]->v[i]);
			r = ga_deps_pkg_signal(p, b, what, -1);
		}
	return r;
}

static bool flagged(enum ga_dep_backend b)
{
	return b == GA_DEP_CUDA || b == GA_DEP_ROCM || b == GA_DEP_LEVEL_ZERO || b == GA_DEP_OPENCL ||
	       b == GA_DEP_VULKAN;
}

static int rpm_signals(struct ga_deps_pkg *p)
{
	char what[300], name[256];
	int r = 0, ver = -1;
	enum ga_dep_backend b = ga_deps_deb_backend(p->name, &ver);
	if (b != GA_DEP_NONE) {
		snprintf(what, sizeof(what), "package %s", p->name);
		r = ga_deps_pkg_signal(p, b, what, ver);
	}
	for (size_t i = 0; i < p->requires.n && r == 0; i++) {
		const char *req = p->requires.v[i];
		if (req[0] == '/' || !strncmp(req, "rpmlib(", 7) || !strncmp(req, "config(", 7))
			continue;
		/* "libcuda.so.1()(64bit)", "libcudart.so.12(libcudart.so.12)(64bit)" -> the soname */
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(req, "( "), req);
		struct ga_vendor_match m;
		const struct ga_vendor_lib *l = strstr(name, ".so") ? ga_vendor_lib_find(name, &m) : NULL;
		ver = -1;
		if (l && flagged(l->backend)) {
			b = l->backend;
			ver = m.runtime_major >= 0 ? m.runtime_major * 1000 : -1;
		} else if (l) {
			continue;
		} else {
			b = ga_deps_deb_backend(name, &ver);
		}
		if (b == GA_DEP_NONE)
			continue;
		snprintf(what, sizeof(what), "Requires %s", req);
		r = ga_deps_pkg_signal(p, b, what, ver);
	}
	return r;
}

/* an owns_dir package by (tree, directory), for bsearch */
struct dir_key {
	size_t tree;
	const char *dir;
	size_t len;
	long pkg;
};

static int cmp_dir_key(const void *a, const void *b)
{
	const struct dir_key *x = a, *y = b;
	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->dir, y->dir, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/*
 * Files under a package directory (owns_dir) not owned otherwise: the deepest
 * such package. Each file's parent directories are looked up, deepest first,
 * in the sorted package directories: files x depth x log(packages), not
 * files x packages (an image holds thousands of node_modules packages).
 */
static int own_dirs(struct ga_deps_inventory *inv)
{
	size_t n = 0;
	for (size_t p = 0; p < inv->n_pkgs; p++)
		n += inv->pkgs[p].owns_dir && inv->pkgs[p].tree_dir;
	if (!n)
		return 0;
	struct dir_key *keys = ga_calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	n = 0;
	for (size_t p = 0; p < inv->n_pkgs; p++)
		if (inv->pkgs[p].owns_dir && inv->pkgs[p].tree_dir)
			keys[n++] = (struct dir_key){ inv->pkgs[p].tree, inv->pkgs[p].tree_dir,
				                      strlen(inv->pkgs[p].tree_dir), (long)p };
	qsort(keys, n, sizeof(*keys), cmp_dir_key);
	for (size_t i = 0; i < inv->n_files; i++) {
		struct ga_deps_file *f = &inv->files[i];
		if (f->pkg >= 0)
			continue;
		const char *tp = f->tree_path;
		for (size_t k = strlen(tp); f->pkg < 0;) {
			while (k > 0 && tp[k - 1] != '/')
				k--; /* the parent directory: tp[0, k - 1) */
			struct dir_key want = { f->tree, tp, k ? k - 1 : 0, -1 };
			const struct dir_key *hit = bsearch(&want, keys, n, sizeof(*keys), cmp_dir_key);
			if (hit)
				f->pkg = hit->pkg; /* equal keys: one directory, one package.json */
			if (k == 0)
				break;
			k--;
		}
	}
	ga_free(keys);
	return 0;
}

int ga_deps_signals(struct ga_deps_inventory *inv)
{
	int r = ga_deps_signals_base(inv);
	for (size_t i = 0; i < inv->n_pkgs && r == 0; i++) {
		struct ga_deps_pkg *p = &inv->pkgs[i];
		if (p->name && !p->n_signals && !strcmp(p->kind, "npm"))
			r = npm_signals(p);
		else if (p->name && !p->n_signals && !strcmp(p->kind, "rpm"))
			r = rpm_signals(p);
	}
	if (r == 0)
		r = own_dirs(inv);
	return r;
}

int ga_deps_judge_install_scripts(const struct ga_deps_inventory *inv, struct ga_findings *out)
{
	for (size_t i = 0; i < inv->n_pkgs; i++) {
		const struct ga_deps_pkg *p = &inv->pkgs[i];
		if (strcmp(p->kind, "npm") || (!p->install_scripts.n && !p->install_fetch))
			continue;
		const char *subject = p->meta_path ? p->meta_path : p->name;
		const char *first = p->install_scripts.n ? p->install_scripts.v[0] : "binary";
		struct ga_finding *fd;
		if (p->install_fetch)
			fd = ga_findings_add(
			        out, GA_C_DEPS_INSTALL_SCRIPT, GA_SEV_WARNING, subject,
			        "audit the installed tree (node_modules after npm ci on the target's "
			        "platform), or "
			        "ship the prebuilt binaries in the artifact",
			        "%s %s fetches binaries at install time (%s): not in the artifact: audit the "
			        "installed tree",
			        p->name, p->version ? p->version : "", first);
		else
			fd = ga_findings_add(
			        out, GA_C_DEPS_INSTALL_SCRIPT, GA_SEV_INFO, subject,
			        "audit the installed tree (node_modules after npm ci), where its output "
			        "is",
			        "%s %s runs a script at install time (%s): what it builds or fetches is "
			        "not in the artifact: audit the installed tree",
			        p->name, p->version ? p->version : "", first);
		if (!fd)
			return -ENOMEM;
		if (p->install_fetch)
			ga_finding_evidence(fd, "fetches_with", "%s", p->install_fetch);
		for (size_t k = 1; k < p->install_scripts.n; k++)
			ga_finding_evidence(fd, "script", "%s", p->install_scripts.v[k]);
	}
	return 0;
}
