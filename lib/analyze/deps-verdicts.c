/*
 * deps-verdicts.c - the verdicts over an artifact inventory and a target
 * (pure; docs/deps.md has the catalogue): wrong vendor, CUDA runtime newer
 * than the driver (error 35), no kernel image for the compute capability
 * (209 / 222, judged container by container with the a/f rules), no code
 * object for the gfx target (hipErrorNoBinaryForGpu), driver library bundled,
 * DT_NEEDED the loader would not resolve (ldso.c simulates the search), x86
 * ISA level above the CPU's, and the policy's artifacts: rules.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"
#include "gpuaudit/nvreq.h"
#include "gpuaudit/policy.h"

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

/*
 * A plug-in's name (deps-plugins.c) is loaded only when the host is asked for
 * that back end: no vendor verdict on the name; the plug-in's own file, when
 * shipped, is judged on its needs.
 */
static bool plugin_name(const struct ga_dep_signal *s)
{
	return s->strength == GA_STRENGTH_SOFT && !ga_vendor_lib_find(s->what, NULL) &&
	       ga_deps_plugin_find(s->what);
}

static const struct ga_dep_signal *strongest(const struct ga_dep_signal *v, size_t n, enum ga_dep_backend b)
{
	const struct ga_dep_signal *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (v[i].backend == b && !plugin_name(&v[i]) &&
		    (!best || strength_rank(v[i].strength) < strength_rank(best->strength)))
			best = &v[i];
	return best;
}

static int wrong_vendor_file(const struct ga_deps_inventory *inv, const struct ga_deps_file *f,
                             const struct ga_deps_target *t, const struct ga_deps_plugin_use *plugin,
                             struct ga_findings *out)
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
		if (s->strength == GA_STRENGTH_HARD && plugin)
			/* a plug-in: it fails to load only when its host is asked for this back end */
			fd = ga_findings_add(
			        out, GA_C_DEPS_WRONG_VENDOR, GA_SEV_WARNING, f->path,
			        "dead weight on this node: drop the plug-in or ship the target's build",
			        "needs %s (%s, DT_NEEDED) but the target %s is %s node: it is a plug-in %s "
			        "loads by name (%s), so only asking for that back end fails, with \"%s: "
			        "cannot "
			        "open shared object file: No such file or directory\"",
			        s->what, be, t->name, vendor_word(tb), plugin->conv->host,
			        plugin->conv->brings, s->what);
		else if (s->strength == GA_STRENGTH_HARD)
			fd = ga_findings_add(
			        out, GA_C_DEPS_WRONG_VENDOR, GA_SEV_ERROR, f->path,
			        "ship the build for the target's backend, or keep this artifact off these "
			        "nodes",
			        "needs %s (%s, DT_NEEDED) but the target %s is %s node: loading it fails "
			        "with "
			        "\"%s: cannot open shared object file: No such file or directory\"",
			        s->what, be, t->name, vendor_word(tb), s->what);
		else if (s->strength == GA_STRENGTH_EMBEDDED)
			fd = ga_findings_add(
			        out, GA_C_DEPS_WRONG_VENDOR, GA_SEV_WARNING, f->path,
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
			        out, GA_C_DEPS_WRONG_VENDOR, GA_SEV_WARNING, f->path,
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
		char fix[300];
		const char *k = p->kind ? p->kind : "";
		if (!strcmp(k, "python"))
			snprintf(fix, sizeof(fix),
			         "install the build for the target's backend (the %s wheel index)",
			         tb == GA_DEP_ROCM         ? "+rocm"
			         : tb == GA_DEP_CUDA       ? "+cuXYZ"
			         : tb == GA_DEP_LEVEL_ZERO ? "+xpu"
			                                   : "+cpu");
		else if (!strcmp(k, "deb") || !strcmp(k, "rpm"))
			snprintf(fix, sizeof(fix),
			         "install the distribution's %s package built for the target's backend, or "
			         "keep "
			         "%s off these nodes",
			         !strcmp(k, "deb") ? "Debian" : "rpm", p->name ? p->name : "it");
		else if (!strcmp(k, "conda"))
			snprintf(fix, sizeof(fix),
			         "install the conda build for the target's backend (its build string names "
			         "it)");
		else
			snprintf(fix, sizeof(fix), "install the package's build for the target's backend");
		struct ga_finding *fd = ga_findings_add(
		        out, GA_C_DEPS_WRONG_VENDOR, GA_SEV_WARNING, p->meta_path ? p->meta_path : p->name,
		        fix, "%s %s declares %s (%s) but the target %s is %s node%s", p->name ? p->name : "?",
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
                   const struct ga_deps_target *t, int driver_cuda, struct ga_findings *out)
{
	const struct ga_dep_signal *worst = NULL;
	struct ga_buf via;
	ga_buf_init(&via, 4096);
	for (size_t i = 0; i < n; i++) {
		const struct ga_dep_signal *s = &v[i];
		if (s->backend != GA_DEP_CUDA || s->runtime_version <= 0 || s->strength == GA_STRENGTH_SOFT)
			continue;
		/* Minor-version compatibility: a 12.x runtime runs on any 12.y driver (PTX JIT aside). */
		if (s->runtime_version / 1000 <= driver_cuda / 1000)
			continue;
		if (!worst || s->runtime_version > worst->runtime_version)
			worst = s;
		ga_buf_addf(&via, "%s%s", via.len ? ", " : "", s->what);
	}
	int r = 0;
	if (worst) {
		struct ga_finding *fd = ga_findings_add(
		        out, GA_C_DEPS_CUDA_TOO_NEW, GA_SEV_ERROR, subject,
		        "upgrade the driver, or pick a build for CUDA <= the driver's (e.g. a lower +cuXYZ)",
		        "%s needs CUDA %d but the target's driver runs at most CUDA %d.%d: \"CUDA driver "
		        "version is "
		        "insufficient for CUDA runtime version\" (cudaError 35)",
		        worst->what, worst->runtime_version / 1000, driver_cuda / 1000,
		        driver_cuda % 1000 / 10);
		if (fd) {
			ga_finding_evidence(fd, "runtime_cuda", "%d", worst->runtime_version / 1000);
			ga_finding_evidence(fd, "driver_cuda", "%d.%d", driver_cuda / 1000,
			                    driver_cuda % 1000 / 10);
			if (driver_cuda != t->cuda_version)
				ga_finding_evidence(fd, "forward_compat", "CUDA %d.%d through cuda-compat",
				                    driver_cuda / 1000, driver_cuda % 1000 / 10);
			ga_finding_evidence(fd, "via", "%s", via.data ? via.data : "");
		} else
			r = -ENOMEM;
	}
	ga_buf_release(&via);
	return r;
}

enum run { RUN_NO = 0, RUN_YES, RUN_PTX_TOO_NEW };

/* the CUDA image rules live in deps-jit.c (ga_deps_cuda_image_runs), which the JIT judge shares */
static enum run cuda_image_runs(const struct ga_devcode_image *im, int sm, int cuda_version)
{
	return (enum run)ga_deps_cuda_image_runs(im, sm, cuda_version);
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

/* One of NVIDIA's own libraries (cuBLAS, cuDNN, NCCL ...: the vendor table, by file name or soname). */
static const struct ga_vendor_lib *nvidia_own(const struct ga_deps_file *f, struct ga_vendor_match *m)
{
	const char *b = strrchr(f->tree_path, '/');
	const char *names[2] = { b ? b + 1 : f->tree_path, f->elf->soname };
	for (size_t i = 0; i < 2; i++) {
		const struct ga_vendor_lib *l = names[i] ? ga_vendor_lib_find(names[i], m) : NULL;
		if (l && l->backend == GA_DEP_CUDA)
			return l;
	}
	return NULL;
}

/*
 * The name to tell one of NVIDIA's libraries by (its component, "cuBLAS"), or
 * NULL when the file is not NVIDIA's: the vendor table by name, else a file
 * of NVIDIA's packaging: a CUDA toolkit directory (".../cuda-13.0/...",
 * ".../cuda/targets/..."), an nvidia-* wheel's "site-packages/nvidia/"
 * directory, or a Debian / rpm package whose name says CUDA (libcublas-13-0,
 * cuda-nvrtc-13-0). The file's base name in buf then.
 */
static const char *nvidia_lib_name(const struct ga_deps_inventory *inv, const struct ga_deps_file *f,
                                   char *buf, size_t n)
{
	struct ga_vendor_match m;
	const struct ga_vendor_lib *l = nvidia_own(f, &m);
	if (l)
		return l->component;
	/* the shown path: a file given alone has its base name as tree path */
	const char *tp = f->path, *c = strstr(tp, "cuda-");
	bool nv = (c && (c == tp || c[-1] == '/') && c[5] >= '1' && c[5] <= '9') ||
	          strstr(tp, "cuda/targets/") || strstr(tp, "site-packages/nvidia/");
	const struct ga_deps_pkg *p = f->pkg >= 0 ? &inv->pkgs[f->pkg] : NULL;
	int ver = -1;
	if (!nv && p && p->name && p->kind && (!strcmp(p->kind, "deb") || !strcmp(p->kind, "rpm")))
		nv = ga_deps_deb_backend(p->name, &ver) == GA_DEP_CUDA;
	if (!nv && p && p->name && p->kind && !strcmp(p->kind, "python"))
		nv = !strncmp(p->name, "nvidia-", 7);
	if (!nv)
		return NULL;
	const char *b = strrchr(tp, '/');
	snprintf(buf, n, "%s", b ? b + 1 : tp);
	return buf;
}

/*
 * The CUDA major a file was built with, as far as it tells: its own soname
 * (libcublas.so.13), the runtimes it links (libcudart.so.13), the PTX ISA of
 * its PTX (9.0 is CUDA 13.0's). -1 unknown.
 */
static int built_cuda_major(const struct ga_deps_file *f)
{
	int best = -1;
	struct ga_vendor_match m;
	if (nvidia_own(f, &m) && m.runtime_major > 0)
		best = m.runtime_major;
	for (size_t i = 0; i < f->n_signals; i++) {
		const struct ga_dep_signal *s = &f->signals[i];
		if (s->backend == GA_DEP_CUDA && s->runtime_version > 0 && s->strength != GA_STRENGTH_SOFT &&
		    s->runtime_version / 1000 > best)
			best = s->runtime_version / 1000;
	}
	for (size_t i = 0; i < f->elf->n_images; i++) {
		const struct ga_devcode_image *im = &f->elf->images[i];
		int c = im->kind == GA_CODE_PTX ? ga_ptx_isa_min_cuda(im->ptx_isa_major, im->ptx_isa_minor)
		                                : -1;
		if (c > 0 && c / 1000 > best)
			best = c / 1000;
	}
	return best;
}

static int cuda_kernels(const struct ga_deps_inventory *inv, const struct ga_deps_file *f, int sm,
                        int cuda_version, enum ga_code code, struct ga_findings *out)
{
	const struct ga_elf_info *e = f->elf;
	size_t total = 0, failing = 0, too_new_ptx = 0, first_bad = SIZE_MAX, dispatch_only = 0, legacy = 0;
	const struct ga_devcode_image *newest_ptx = NULL; /* the highest PTX ISA the driver cannot JIT */
	for (size_t c = 0; c < e->n_containers; c++) {
		const struct ga_devcode_container *ct = &e->containers[c];
		if (ct->format != GA_DEVCODE_CUDA_FATBIN)
			continue;
		bool runnable_kind = false, portable = false, old = true;
		enum run best = RUN_NO;
		const struct ga_devcode_image *ptx = NULL;
		for (uint32_t k = 0; k < ct->n_images; k++) {
			const struct ga_devcode_image *im = &e->images[ct->first_image + k];
			if (im->kind != GA_CODE_CUBIN && im->kind != GA_CODE_PTX)
				continue;
			runnable_kind = true;
			portable |= !im->arch_specific && !im->family;
			old &= im->sm / 10 < sm / 10;
			enum run rr = cuda_image_runs(im, sm, cuda_version);
			if (rr == RUN_PTX_TOO_NEW &&
			    (!ptx || im->ptx_isa_major * 100 + im->ptx_isa_minor >
			                     ptx->ptx_isa_major * 100 + ptx->ptx_isa_minor))
				ptx = im;
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
			legacy += old && best == RUN_NO;
			if (ptx && (!newest_ptx ||
			            ptx->ptx_isa_major * 100 + ptx->ptx_isa_minor >
			                    newest_ptx->ptx_isa_major * 100 + newest_ptx->ptx_isa_minor))
				newest_ptx = ptx;
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
	/* the CUDA release that dropped the target's arch, when the file was built with it or later */
	const char *family = NULL;
	int dropped = ga_cuda_arch_dropped(sm, &family), built = built_cuda_major(f);
	bool gone = dropped > 0 && built > 0 && built * 1000 >= dropped;
	/*
	 * Every container failing: nothing in the file can run. Some failing: those
	 * kernels fail when launched; a library that picks kernels per arch may never
	 * launch them, so it is a warning. NVIDIA's own libraries pick their kernels
	 * per arch (their sm_XYa cubins and their few containers for one older arch
	 * are launched on that arch alone): a note, unless the target can load
	 * nothing of the library (several containers, none for it) or the target's
	 * arch is one the library's CUDA dropped.
	 */
	char ownbuf[128];
	const char *own = nvidia_lib_name(inv, f, ownbuf, sizeof(ownbuf));
	enum ga_severity sev = failing == total ? GA_SEV_ERROR : GA_SEV_WARNING;
	if (own && !gone && (failing < total || (failing == 1 && legacy == 1)))
		sev = GA_SEV_INFO;
	char fix[400], ptxneed[160] = "";
	int need =
	        newest_ptx ? ga_ptx_isa_min_cuda(newest_ptx->ptx_isa_major, newest_ptx->ptx_isa_minor) : -1;
	int drv_cuda = -1;
	const char *drv = need > 0 ? ga_driver_for_cuda(need, &drv_cuda) : NULL;
	if (need > 0 && drv && drv_cuda != need)
		snprintf(ptxneed, sizeof(ptxneed),
		         "; PTX ISA %u.%u needs CUDA %d.%d, which no toolkit shipped: a driver >= %s (CUDA "
		         "%d.%d's)",
		         newest_ptx->ptx_isa_major, newest_ptx->ptx_isa_minor, need / 1000, need % 1000 / 10,
		         drv, drv_cuda / 1000, drv_cuda % 1000 / 10);
	else if (need > 0)
		snprintf(ptxneed, sizeof(ptxneed), "; PTX ISA %u.%u needs CUDA %d.%d, a driver >= %s",
		         newest_ptx->ptx_isa_major, newest_ptx->ptx_isa_minor, need / 1000, need % 1000 / 10,
		         drv ? drv : "newer than NVIDIA's table");
	if (gone)
		snprintf(fix, sizeof(fix),
		         "CUDA %d.0 dropped %s (sm_%d): no CUDA %d toolkit builds for it; use a build made "
		         "with CUDA %d.x for this GPU, or run it on a newer GPU",
		         dropped / 1000, family, sm, built, dropped / 1000 - 1);
	else if (sev == GA_SEV_INFO)
		snprintf(
		        fix, sizeof(fix),
		        "nothing to do: %s picks its kernels per arch and has kernels for sm_%d in its other "
		        "containers",
		        own, sm);
	else if (own && !all_ptx)
		snprintf(fix, sizeof(fix),
		         "the target can load none of %s's kernels: use a %s release that ships kernels for "
		         "sm_%d, or run it on a GPU it was built for",
		         own, own, sm);
	else if (all_ptx && drv)
		snprintf(fix, sizeof(fix),
		         "upgrade the driver to >= %s (CUDA %d.%d), or build cubins for the target's compute "
		         "capability",
		         drv, drv_cuda / 1000, drv_cuda % 1000 / 10);
	else if (all_ptx)
		snprintf(fix, sizeof(fix),
		         "upgrade the driver, or build cubins for the target's compute capability");
	else
		snprintf(fix, sizeof(fix),
		         "rebuild with the target's arch (e.g. -gencode arch=compute_XY,code=sm_XY) or ship "
		         "PTX");
	if (sev == GA_SEV_INFO && failing == 1 && legacy == 1 && failing == total)
		snprintf(fix, sizeof(fix),
		         "nothing to do: the one container of %s without sm_%d code holds kernels for an "
		         "older arch only, which it launches there",
		         own, sm);
	struct ga_finding *fd = ga_findings_add(
	        out, code, sev, f->path, fix,
	        "%zu of %zu CUDA fatbin containers have no cubin for sm_%d %s: their kernels fail with %s%s",
	        failing, total, sm,
	        all_ptx ? "and only PTX newer than the driver can JIT" : "and no PTX the driver can JIT",
	        all_ptx ? "\"the provided PTX was compiled with an unsupported toolchain.\" (cudaError 222)"
	                : "\"no kernel image is available for execution on the device\" (cudaError 209)",
	        all_ptx ? ptxneed : "");
	if (fd) {
		ga_finding_evidence(fd, "archs", "%s", archs.data ? archs.data : "");
		ga_finding_evidence(fd, "target_sm", "sm_%d", sm);
		if (dispatch_only)
			ga_finding_evidence(fd, "arch_specific_containers_skipped", "%zu", dispatch_only);
		const struct ga_devcode_container *ct = &e->containers[first_bad];
		ga_finding_evidence(fd, "first_container", "%s+0x%llx", ct->section ? ct->section : "",
		                    (unsigned long long)ct->offset);
		if (own)
			ga_finding_evidence(fd, "vendor_library", "NVIDIA %s", own);
		if (own && legacy)
			ga_finding_evidence(fd, "older_arch_containers", "%zu", legacy);
		if (gone) {
			ga_finding_evidence(fd, "arch_dropped_in", "CUDA %d.0 (%s)", dropped / 1000, family);
			ga_finding_evidence(fd, "built_with_cuda", "%d", built);
		}
		if (need > 0) {
			ga_finding_evidence(fd, "ptx_isa", "%u.%u", newest_ptx->ptx_isa_major,
			                    newest_ptx->ptx_isa_minor);
			ga_finding_evidence(fd, "ptx_needs_cuda", "%d.%d", need / 1000, need % 1000 / 10);
			if (drv)
				ga_finding_evidence(fd, "ptx_needs_driver", ">= %s", drv);
		}
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

static bool gfx_loads(const char *image_arch, const char *target)
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
                    enum ga_code code, struct ga_findings *out)
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
	if (ga_deps_compat_file(f))
		return 0; /* the forward-compatibility driver: GA-DEPS-CUDA-COMPAT judges it (deps-compat.c) */
	const char *names[2] = { base_name(f->tree_path), f->elf->soname };
	for (size_t i = 0; i < 2; i++) {
		const struct ga_vendor_lib *l = names[i] ? ga_vendor_lib_find(names[i], NULL) : NULL;
		if (!l || !(l->flags & GA_VLIB_DRIVER))
			continue;
		bool stub = strstr(f->tree_path, "/stubs/") != NULL;
		struct ga_finding *fd =
		        stub ? ga_findings_add(
		                       out, GA_C_DEPS_DRIVER_LIB_BUNDLED, GA_SEV_WARNING, f->path,
		                       "keep lib64/stubs off LD_LIBRARY_PATH and out of runtime images",
		                       "is the toolkit's link-time stub of %s: found at run time it fails "
		                       "every "
		                       "call with \"CUDA driver is a stub library\" (cudaError 34)",
		                       names[i])
		             : ga_findings_add(
		                       out, GA_C_DEPS_DRIVER_LIB_BUNDLED, GA_SEV_ERROR, f->path,
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

/* "libtorch.so.1.13" -> stem "libtorch" (ret), version "1.13" in *ver; NULL when no ".so." version. */
static size_t soname_split(const char *so, const char **ver)
{
	const char *p = strstr(so, ".so.");
	if (!p || !p[4])
		return 0;
	*ver = p + 4;
	return (size_t)(p - so);
}

/* A dependency's name as written: up to white space, '(', ':' (a Debian arch) or a PEP 508 operator. */
static size_t dep_name_len(const char *d)
{
	return strcspn(d, " \t(:;<>=!~[,");
}

/*
 * Does the dependency d, declared by a package of kind, provide the library
 * soname? Debian: the library package naming of Debian Policy 8.1 (libfoo.so.N
 * in libfooN, libfoo2.so.N in libfoo2-N; a "t64" / "v5" ABI suffix allowed),
 * or an exact "(= VERSION)" dependency on a lib* package named for the
 * soname's version (libtorch1.13 ships libc10.so.1.13 too: one source, one
 * version); rpm: the soname itself ("libfoo.so.1()(64bit)"); Python: the
 * NVIDIA wheel named for it (nvidia-cublas-cu12 ships libcublas.so.12,
 * nvidia-cuda-runtime-cu12 libcudart); conda: the package named like the stem.
 */
static bool dep_provides(const char *kind, const char *d, const char *soname)
{
	const char *ver = NULL;
	size_t sl = soname_split(soname, &ver), nl = dep_name_len(d);
	if (!strcmp(kind, "rpm")) {
		size_t k = strlen(soname);
		return !strncmp(d, soname, k) && (d[k] == '(' || d[k] == '\0' || d[k] == ' ');
	}
	if (!sl)
		return false;
	char stem[128], name[160];
	if (sl >= sizeof(stem) || nl >= sizeof(name))
		return false;
	memcpy(stem, soname, sl);
	stem[sl] = '\0';
	for (size_t i = 0; i < nl; i++) /* package names compare without case; '_' is '-' in PEP 503 */
		name[i] = d[i] == '_' ? '-' : (char)(d[i] >= 'A' && d[i] <= 'Z' ? d[i] + 32 : d[i]);
	name[nl] = '\0';
	if (!strcmp(kind, "deb")) {
		char want[200];
		bool digit = stem[sl - 1] >= '0' && stem[sl - 1] <= '9';
		snprintf(want, sizeof(want), "%s%s%s", stem, digit ? "-" : "", ver);
		for (char *c = want; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c + 32);
		size_t wl = strlen(want);
		if (!strncmp(name, want, wl) &&
		    (!name[wl] || !strcmp(name + wl, "t64") || !strcmp(name + wl, "v5")))
			return true;
		/* an exact dependency on a library package of the soname's version */
		size_t vl = strlen(ver);
		const char *eq = strstr(d + nl, "(=");
		return eq && !strncmp(name, "lib", 3) && nl > vl + 3 && !strcmp(name + nl - vl, ver) &&
		       !(name[nl - vl - 1] == '.' || (name[nl - vl - 1] >= '0' && name[nl - vl - 1] <= '9'));
	}
	const char *bare = !strncmp(stem, "lib", 3) ? stem + 3 : stem;
	if (!strcmp(kind, "python")) {
		char a[160], b[160];
		snprintf(a, sizeof(a), "nvidia-%s-cu", !strcmp(bare, "cudart") ? "cuda-runtime" : bare);
		snprintf(b, sizeof(b), "nvidia-cuda-%s-cu", bare);
		return !strncmp(name, a, strlen(a)) || !strncmp(name, b, strlen(b));
	}
	if (!strcmp(kind, "conda"))
		return !strcmp(name, stem) || !strcmp(name, bare);
	return false;
}

/* The declared dependency of p that provides soname (as written), or NULL. */
static const char *declared_provider(const struct ga_deps_pkg *p, const char *soname)
{
	if (!p->kind)
		return NULL;
	for (size_t i = 0; i < p->requires.n; i++)
		if (dep_provides(p->kind, p->requires.v[i], soname))
	return p->requires.v[i];
	return NULL;
}

/* The field a package kind declares its dependencies in. */
static const char *requires_field(const char *kind)
{
	return !strcmp(kind, "deb")      ? "Depends"
	       : !strcmp(kind, "rpm")    ? "Requires"
	       : !strcmp(kind, "python") ? "Requires-Dist"
	       : !strcmp(kind, "npm")    ? "dependencies"
	                                 : "depends";
}

/*
 * The format an artifact's fix is told in: its package's kind, else its tree's
 * ("wheel", "deb", "conda", "rpm"; an image or directory "image").
 */
static const char *artifact_format(const struct ga_deps_inventory *inv, const struct ga_deps_file *f)
{
	const char *k = f->pkg >= 0 ? inv->pkgs[f->pkg].kind : NULL;
	if (k)
		return !strcmp(k, "python") ? "wheel" : k;
	k = f->tree < inv->n_trees ? inv->trees[f->tree].kind : NULL;
	if (k && (!strcmp(k, "wheel") || !strcmp(k, "deb") || !strcmp(k, "conda") || !strcmp(k, "rpm")))
		return k;
	return "image";
}

/*
 * What to do about a NEEDed library nobody provides, by the artifact's format
 * and the library's vendor (NVIDIA, AMD, Intel; none: a system library).
 */
static void missing_fix(const char *fmt, enum ga_dep_backend vendor, const char *nd, char *buf, size_t n)
{
	if (!strcmp(fmt, "deb"))
		snprintf(buf, n,
		         "install the Debian package that ships %s (apt-file search %s) and add it to "
		         "Depends, or fix RPATH",
		         nd, nd);
	else if (!strcmp(fmt, "rpm"))
		snprintf(buf, n,
		         "install the rpm that ships %s (dnf provides '*/%s') and add it to Requires, or fix "
		         "RPATH",
		         nd, nd);
	else if (!strcmp(fmt, "conda"))
		snprintf(buf, n,
		         "add the conda package that ships %s to the environment and to the recipe's "
		         "run requirements, or fix RPATH",
		         nd);
	else if (!strcmp(fmt, "npm"))
		snprintf(buf, n,
		         "install the runtime that ships %s on the node, or use the package's build without "
		         "it",
		         nd);
	else if (!strcmp(fmt, "wheel") && vendor == GA_DEP_CUDA)
		snprintf(buf, n,
		         "pip install the NVIDIA wheel that ships %s (nvidia-<library>-cuNN, e.g. "
		         "nvidia-cublas-cu12 for libcublas.so.12) and declare it in Requires-Dist, or fix "
		         "RPATH",
		         nd);
	else if (!strcmp(fmt, "wheel") && vendor == GA_DEP_ROCM)
		snprintf(buf, n,
		         "install the ROCm release that ships %s on the node, or the wheel's ROCm build "
		         "from the ROCm wheel index that bundles it",
		         nd);
	else if (!strcmp(fmt, "wheel") && vendor == GA_DEP_LEVEL_ZERO)
		snprintf(buf, n,
		         "install Intel's runtime that ships %s (the oneAPI / Level Zero packages) on the "
		         "node, or bundle it",
		         nd);
	else if (!strcmp(fmt, "wheel"))
		snprintf(buf, n, "bundle %s in the wheel (auditwheel repair) or fix RPATH/RUNPATH", nd);
	else if (vendor == GA_DEP_CUDA)
		snprintf(buf, n,
		         "install NVIDIA's CUDA package that ships %s (apt-file search / dnf provides), or "
		         "fix RPATH",
		         nd);
	else if (vendor == GA_DEP_ROCM)
		snprintf(buf, n,
		         "install AMD's ROCm package that ships %s (apt-file search / dnf "
		         "provides), or fix RPATH",
		         nd);
	else if (vendor == GA_DEP_LEVEL_ZERO)
		snprintf(buf, n,
		         "install Intel's oneAPI / Level Zero package that ships %s, or fix "
		         "RPATH",
		         nd);
	else
		snprintf(buf, n, "bundle %s, install the package that provides it, or fix RPATH/RUNPATH", nd);
}

static int unresolved(const struct ga_deps_inventory *inv, struct ga_ldso *ix, size_t fi,
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
		long k = ga_ldso_own_search(ix, f, nd);
		if (k == -2)
			return -ENOMEM;
		if (k >= 0 || target_provides(t, nd))
			continue;
		if (!e->runpath && (r = ga_ldso_inherited(ix, fi, nd)) != 0) {
			r = r < 0 ? r : 0;
			continue;
		}
		const struct ga_vendor_lib *l = ga_vendor_lib_find(nd, NULL);
		enum ga_dep_backend tb = target_backend(t);
		if (l && gpu_backend(l->backend) && tb != GA_DEP_NONE && l->backend != tb)
			continue; /* reported as GA-DEPS-WRONG-VENDOR */
		bool vendor = l && gpu_backend(l->backend);
		char pk[300], fix[512];
		const struct ga_deps_pkg *p = f->pkg >= 0 ? &inv->pkgs[f->pkg] : NULL;
		const char *prov = p ? declared_provider(p, nd) : NULL;
		const char *how = e->runpath ? "RUNPATH" : e->rpath ? "RPATH" : "search path";
		struct ga_finding *fd;
		if (prov) {
			/* the package manager installs it with the package: a note, not a defect */
			snprintf(fix, sizeof(fix),
			         "nothing to do where %s is installed with its dependencies; scan %s with it "
			         "to judge the pair",
			         p->name ? p->name : "the package", p->name ? p->name : "the package");
			fd = ga_findings_add(out, GA_C_DEPS_UNRESOLVED_NEEDED, GA_SEV_INFO, f->path, fix,
			                     "NEEDs %s, which is not in the scanned tree on its %s: %s %s "
			                     "declares %s: %.*s, which provides it",
			                     nd, how, p->name ? p->name : "?", p->version ? p->version : "",
			                     requires_field(p->kind), (int)strcspn(prov, ";"), prov);
		} else {
			missing_fix(artifact_format(inv, f), vendor ? l->backend : GA_DEP_NONE, nd, fix,
			            sizeof(fix));
			fd = ga_findings_add(
			        out, GA_C_DEPS_UNRESOLVED_NEEDED,
			        vendor && tb != GA_DEP_NONE ? GA_SEV_ERROR : GA_SEV_WARNING, f->path, fix,
			        "NEEDs %s, which is neither in the scanned tree on its %s nor in the "
			        "target's system directories: \"error while loading shared libraries: %s: "
			        "cannot open shared object file: No such file or directory\"",
			        nd, how, nd);
		}
		if (!fd) {
			r = -ENOMEM;
			break;
		}
		if (list)
			ga_finding_evidence(fd, e->runpath ? "runpath" : "rpath", "%s", list);
		if (f->pkg >= 0)
			ga_finding_evidence(fd, "package", "%s", pkg_label(inv, f, pk, sizeof(pk)));
		if (prov)
			ga_finding_evidence(fd, "provided_by", "%s", prov);
	}
	return r;
}

static int isa_level(const struct ga_deps_file *f, const struct ga_deps_target *t, struct ga_findings *out)
{
	if (!t->cpu_isa_level || f->elf->x86_isa_level <= t->cpu_isa_level)
		return 0;
	struct ga_finding *fd = ga_findings_add(out, GA_C_DEPS_ISA_LEVEL, GA_SEV_ERROR, f->path,
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
		        out, GA_C_DEPS_POLICY_BACKEND,
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

/*
 * nvreq: each image's NVIDIA_REQUIRE_* judged as the container toolkit would on
 * the target's driver (lib/analyze/nvreq.c); the toolkit's own text as message.
 * The GPU brand is never known here, so alternatives on it are "not known".
 */
static int nvidia_require(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                          struct ga_findings *out)
{
	char cuda[16] = "", arch[16] = "";
	if (t->cuda_version > 0)
		snprintf(cuda, sizeof(cuda), "%d.%d", t->cuda_version / 1000, t->cuda_version % 1000 / 10);
	if (t->sm > 0)
		snprintf(arch, sizeof(arch), "%d.%d", t->sm / 10, t->sm % 10);
	const struct ga_nvreq_target nt = { cuda, t->driver_version, t->brand[0] ? t->brand : NULL, arch };
	for (size_t i = 0; i < inv->n_trees; i++) {
		const struct ga_deps_tree *tr = &inv->trees[i];
		struct ga_nvreq_result res;
		if (!tr->nvidia_env.n ||
		    ga_nvreq_image((const char *const *)tr->nvidia_env.v, tr->nvidia_env.n, &nt, &res,
		                   NULL) == 0 ||
		    res.verdict == GA_NVREQ_SATISFIED)
			continue;
		bool refused = res.verdict != GA_NVREQ_UNKNOWN;
		struct ga_finding *fd = ga_findings_add(
		        out, GA_C_DEPS_NVIDIA_REQUIRE, refused ? GA_SEV_ERROR : GA_SEV_WARNING, tr->name,
		        refused ? "run it on a driver that meets the image's NVIDIA_REQUIRE_* (or pick an "
		                  "image "
		                  "built for an older CUDA); NVIDIA_DISABLE_REQUIRE=true skips the check"
		                : "check the node's GPU brand and driver against the image's alternatives, "
		                  "or use "
		                  "a driver new enough for its cuda>= one",
		        "%s%s",
		        refused ? "the NVIDIA container toolkit will refuse to start it: "
		                : "the NVIDIA container toolkit may refuse to start it: ",
		        res.message);
		if (!fd)
			return -ENOMEM;
		ga_finding_evidence(fd, "image", "%s", tr->name);
		ga_finding_evidence(fd, "why", "%s", res.detail);
		ga_finding_evidence(fd, "driver", "%s", t->driver_version ? t->driver_version : "unknown");
		ga_finding_evidence(fd, "driver_cuda", "%s", cuda[0] ? cuda : "unknown");
	}
	return 0;
}

int ga_deps_judge(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                  struct ga_findings *out)
{
	struct ga_ldso ix;
	struct ga_deps_plugin_use *uses = NULL;
	size_t n_uses = 0, first = out->n;
	const struct ga_deps_plugin_use **plugin_of = NULL; /* per file: a use that found it */
	int *driver_cuda = NULL;
	if (t && t->accel_unknown &&
	    !ga_findings_add(out, GA_C_PCI_UNKNOWN, GA_SEV_WARNING, "target",
	                     "take the snapshot where /sys is readable (gpuaudit discover --json on the "
	                     "node, or gpuaudit capture), or name the target with --target",
	                     "the target's accelerators are unknown: the PCI devices of its snapshot were "
	                     "not read, so only the checks that need no target ran"))
		return -ENOMEM;
	int r = ga_ldso_init(&ix, inv, t);
	if (r < 0 || (r = ga_deps_plugin_uses(inv, t, &uses, &n_uses)) < 0)
		goto out;
	if (inv->n_files && !(plugin_of = ga_calloc(inv->n_files, sizeof(*plugin_of)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < n_uses; k++)
		if (uses[k].found >= 0 && !plugin_of[uses[k].found])
			plugin_of[uses[k].found] = &uses[k];
	bool have = t && t->kind != GA_TARGET_NONE;
	/* per tree: the driver's CUDA, or what forward compatibility lifts it to (deps-compat.c) */
	if (have && !(driver_cuda = ga_calloc(inv->n_trees ? inv->n_trees : 1, sizeof(*driver_cuda)))) {
		r = -ENOMEM;
		goto out;
	}
	if (have && (r = ga_deps_compat_cudas(inv, t, driver_cuda)) < 0)
		goto out;
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
			r = wrong_vendor_file(inv, f, t, plugin_of[i], out);
		if (r == 0 && t->kind == GA_TARGET_CUDA && t->cuda_version > 0)
			r = too_new(f->path, f->signals, f->n_signals, t, driver_cuda[f->tree], out);
		if (r == 0 && t->kind == GA_TARGET_CUDA && t->sm > 0)
			r = cuda_kernels(inv, f, t->sm, driver_cuda[f->tree], GA_C_DEPS_NO_KERNEL_IMAGE, out);
		if (r == 0 && t->kind == GA_TARGET_ROCM && t->gfx[0])
			r = hip_code(inv, f, t->gfx, GA_C_DEPS_NO_GFX_CODE, out);
		if (r == 0)
			r = isa_level(f, t, out);
		if (r == 0)
			r = policy_backends(f->path, f->signals, f->n_signals, t, out);
		/* policy archs: every device-code file must run on each required arch */
		for (size_t a = 0; a < t->required_archs.n && r == 0; a++) {
			const char *arch = t->required_archs.v[a];
			if (!strncmp(arch, "sm_", 3) && ga_deps_parse_sm(arch) > 0 &&
			    has_format(f->elf, true) && ga_deps_parse_sm(arch) != t->sm)
				r = cuda_kernels(inv, f, ga_deps_parse_sm(arch), t->cuda_version,
				                 GA_C_DEPS_POLICY_ARCH, out);
			else if (!strncmp(arch, "gfx", 3) && has_format(f->elf, false) &&
			         strcmp(arch, t->gfx))
				r = hip_code(inv, f, arch, GA_C_DEPS_POLICY_ARCH, out);
		}
	}
	if (r == 0 && have && t->kind == GA_TARGET_CUDA && (t->cuda_version > 0 || t->driver_version))
		r = nvidia_require(inv, t, out);
	for (size_t i = 0; have && i < inv->n_pkgs && r == 0; i++) {
		const struct ga_deps_pkg *p = &inv->pkgs[i];
		const char *subject = p->meta_path ? p->meta_path : p->name ? p->name : "?";
		r = wrong_vendor_pkg(p, t, out);
		if (r == 0 && t->kind == GA_TARGET_CUDA && t->cuda_version > 0)
			r = too_new(subject, p->signals, p->n_signals, t, driver_cuda[p->tree], out);
		if (r == 0)
			r = policy_backends(subject, p->signals, p->n_signals, t, out);
	}
	if (r == 0)
		r = ga_deps_judge_symver(inv, t, out);
	if (r == 0 && have)
		r = ga_deps_judge_compat(inv, t, out);
	if (r == 0 && have)
		r = ga_deps_judge_ptx_jit(inv, t, out);
	if (r == 0)
		r = ga_deps_judge_plugins(inv, have ? t : NULL, uses, n_uses, out, first);
	if (r == 0)
		r = ga_deps_judge_install_scripts(inv, out);
out:
	ga_free(driver_cuda);
	ga_free(plugin_of);
	ga_free(uses);
	ga_ldso_release(&ix);
	if (r == 0 && out->err)
		r = out->err;
	return r;
}

const char *ga_deps_rule_text(const char *code)
{
	return ga_code_rule(code);
}
