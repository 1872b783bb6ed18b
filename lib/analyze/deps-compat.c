/*
 * deps-compat.c - CUDA forward compatibility (pure). NVIDIA's cuda-compat
 * package puts a newer user-mode driver (libcuda.so.<driver>,
 * libnvidia-ptxjitcompiler...) in /usr/local/cuda-X.Y/compat/ so that a
 * CUDA X.Y runtime runs on an older kernel driver; this is supported only on
 * data-centre GPUs (and select professional RTX SKUs) with a driver of a
 * long-term or production branch. On such a target those libraries are the
 * fix, neither a "bundled driver" nor a reason for "runtime too new"; on a
 * GeForce, an unsupported branch, or a driver already newer, this file says
 * why they will not help. Facts and sources: docs/deps.md "Forward
 * compatibility".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/internal.h"
#include "deps_int.h"

/* Data-centre driver branches forward compatibility runs on (long-term support and production branches). */
static bool supported_branch(int branch)
{
	static const int br[] = { 470, 525, 535, 550, 570, 580, 595, 620 };
	for (size_t i = 0; i < GA_ARRAY_SIZE(br); i++)
		if (br[i] == branch)
			return true;
	return false;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The name of the directory component that ends just before end (p .. end-1 is "a/b/NAME"). */
static size_t dir_name(const char *p, const char *end, const char **start)
{
	const char *s = end;
	while (s > p && s[-1] != '/')
		s--;
	*start = s;
	return (size_t)(end - s);
}

bool ga_deps_compat_file(const struct ga_deps_file *f)
{
	const char *tp = f->tree_path, *b = base_of(tp);
	if (b == tp || strncmp(b, "lib", 3))
		return false;
	const char *pn;
	size_t pl = dir_name(tp, b - 1, &pn);
	if (pl == 11 && !memcmp(pn, "cuda-compat", 11))
		return true; /* conda's cuda-compat: $PREFIX/cuda-compat/ */
	if (pl != 6 || memcmp(pn, "compat", 6) || pn == tp)
		return false;
	const char *gn;
	size_t gl = dir_name(tp, pn - 1, &gn);
	return gl >= 4 && !memcmp(gn, "cuda", 4);
}

/*
 * Every tree's compat libraries in one pass over the packages and the files
 * (n_trees entries; .where NULL for a tree without any); NULL out of memory.
 */
static struct ga_deps_compat *find_all(const struct ga_deps_inventory *inv)
{
	struct ga_deps_compat *v = ga_calloc(inv->n_trees ? inv->n_trees : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t t = 0; t < inv->n_trees; t++) {
		v[t].tree = t;
		v[t].cuda_version = -1;
	}
	for (size_t i = 0; i < inv->n_pkgs; i++) {
		const struct ga_deps_pkg *p = &inv->pkgs[i];
		int maj, min, end = 0;
		if (p->tree < inv->n_trees && p->name &&
		    sscanf(p->name, "cuda-compat-%d-%d%n", &maj, &min, &end) == 2 && !p->name[end] &&
		    maj > 0 && maj < 100 && min >= 0 && min < 10) {
			struct ga_deps_compat *c = &v[p->tree];
			c->cuda_version = maj * 1000 + min * 10;
			c->pkg = p->name;
			c->where = p->meta_path ? p->meta_path : p->name;
		}
	}
	for (size_t i = 0; i < inv->n_files; i++) {
		const struct ga_deps_file *f = &inv->files[i];
		if (f->tree >= inv->n_trees || !ga_deps_compat_file(f))
			continue;
		struct ga_deps_compat *c = &v[f->tree];
		const char *b = base_of(f->tree_path);
		if (!c->where || (!c->pkg && !f->link && !c->driver[0]))
			c->where = f->path;
		/* libcuda.so.570.124.06: the compat driver's version, hence the CUDA it runs */
		if (!strncmp(b, "libcuda.so.", 11) && strchr(b + 11, '.') && !c->driver[0]) {
			snprintf(c->driver, sizeof(c->driver), "%s", b + 11);
			int cv = ga_cuda_for_driver(c->driver);
			if (cv > 0)
				c->cuda_version = cv;
			c->where = f->path;
		}
		/* usr/local/cuda-12.8/compat/: the toolkit directory's version */
		const char *cd = strstr(f->tree_path, "cuda-");
		if (c->cuda_version < 0 && cd && cd[5] >= '0' && cd[5] <= '9')
			c->cuda_version = ga_deps_dotted_version(cd + 5);
	}
	return v;
}

enum state { ST_SUPPORTED, ST_CONSUMER, ST_BRANCH, ST_NOT_NEWER, ST_UNKNOWN };

static enum state judge_state(const struct ga_deps_target *t, const struct ga_deps_compat *c, int *branch)
{
	*branch = t->driver_version ? (int)strtol(t->driver_version, NULL, 10) : -1;
	if (c->cuda_version > 0 && t->cuda_version > 0 && c->cuda_version <= t->cuda_version)
		return ST_NOT_NEWER;
	if (t->gpu_class == GA_GPU_CLASS_CONSUMER)
		return ST_CONSUMER;
	if (t->gpu_class == GA_GPU_CLASS_UNKNOWN || *branch <= 0)
		return ST_UNKNOWN;
	if (!supported_branch(*branch))
		return ST_BRANCH;
	return ST_SUPPORTED;
}

int ga_deps_compat_cudas(const struct ga_deps_inventory *inv, const struct ga_deps_target *t, int *out)
{
	for (size_t i = 0; i < inv->n_trees; i++)
		out[i] = t->cuda_version;
	if (t->kind != GA_TARGET_CUDA)
		return 0;
	struct ga_deps_compat *v = find_all(inv);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_trees; i++) {
		int branch;
		if (v[i].where && judge_state(t, &v[i], &branch) == ST_SUPPORTED &&
		    v[i].cuda_version > t->cuda_version)
			out[i] = v[i].cuda_version;
	}
	ga_free(v);
	return 0;
}

static void vstr(char *b, size_t n, int v)
{
	if (v > 0)
		snprintf(b, n, "%d.%d", v / 1000, v % 1000 / 10);
	else
		snprintf(b, n, "unknown");
}

int ga_deps_judge_compat(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *out)
{
	if (!t || t->kind != GA_TARGET_CUDA)
		return 0;
	struct ga_deps_compat *all = find_all(inv);
	if (!all)
		return -ENOMEM;
	int r = 0;
	for (size_t tree = 0; tree < inv->n_trees && r == 0; tree++) {
		const struct ga_deps_compat c = all[tree];
		if (!c.where)
			continue;
		int branch;
		enum state st = judge_state(t, &c, &branch);
		char cc[16], dc[16];
		vstr(cc, sizeof(cc), c.cuda_version);
		vstr(dc, sizeof(dc), t->cuda_version);
		const char *cls = ga_gpu_class_name((enum ga_gpu_class)t->gpu_class);
		const char *subject = inv->trees[tree].name;
		struct ga_finding *fd = NULL;
		switch (st) {
		case ST_SUPPORTED:
			fd = ga_findings_add(
			        out, GA_C_DEPS_CUDA_COMPAT, GA_SEV_INFO, subject,
			        "keep the compat package matched to the CUDA of the image; upgrade the "
			        "node's "
			        "driver in time (forward compatibility covers the user-mode driver only)",
			        "forward compatibility: cuda-compat (CUDA %s) runs on this %s GPU's R%d "
			        "driver "
			        "(CUDA %s): its libraries are the supported fix, and runtimes up to CUDA %s "
			        "are "
			        "judged against it%s",
			        cc, cls, branch, dc, cc,
			        t->gpu_class == GA_GPU_CLASS_PRO
			                ? " (professional RTX: only the select NGC Server "
			                  "Ready SKUs are supported)"
			                : "");
			break;
		case ST_CONSUMER:
			fd = ga_findings_add(out, GA_C_DEPS_CUDA_COMPAT, GA_SEV_WARNING, subject,
			                     "upgrade the node's driver to one that runs the image's CUDA, "
			                     "or use an image built "
			                     "for the driver's CUDA",
			                     "cuda-compat (CUDA %s) will not help on a consumer GPU (GeForce "
			                     "/ TITAN): forward "
			                     "compatibility is supported on data-centre GPUs and select "
			                     "professional RTX SKUs "
			                     "only; CUDA fails with \"forward compatibility was attempted on "
			                     "non supported HW\" "
			                     "(cudaErrorCompatNotSupportedOnDevice, 804)",
			                     cc);
			break;
		case ST_BRANCH:
			fd = ga_findings_add(out, GA_C_DEPS_CUDA_COMPAT, GA_SEV_WARNING, subject,
			                     "move the node to a long-term support or production driver "
			                     "branch (R535, R570, "
			                     "R580...), or upgrade it to run the image's CUDA",
			                     "cuda-compat (CUDA %s) on an R%d driver: forward compatibility "
			                     "is supported on the "
			                     "data-centre long-term support and production branches only, "
			                     "and R%d is not one",
			                     cc, branch, branch);
			break;
		case ST_NOT_NEWER:
			fd = ga_findings_add(out, GA_C_DEPS_CUDA_COMPAT, GA_SEV_WARNING, subject,
			                     "drop cuda-compat from the image (the NVIDIA container toolkit "
			                     "mounts the node's "
			                     "driver), or keep it off the library path",
			                     "cuda-compat (CUDA %s) is not newer than the driver's CUDA %s: "
			                     "it is not needed, and a "
			                     "compat libcuda older than the kernel driver, if loaded, can "
			                     "fail with \"system has "
			                     "unsupported display driver / cuda driver combination\" (803)",
			                     cc, dc);
			break;
		case ST_UNKNOWN:
			fd = ga_findings_add(out, GA_C_DEPS_CUDA_COMPAT, GA_SEV_WARNING, subject,
			                     "say the GPU and driver: --target ...,brand:tesla,driver:550.54 "
			                     "or --for a node "
			                     "snapshot",
			                     "cuda-compat (CUDA %s) helps only on a data-centre GPU with a "
			                     "long-term support or "
			                     "production driver branch, which the target does not say (GPU "
			                     "class %s, driver %s): "
			                     "runtimes are judged against the driver's CUDA %s",
			                     cc, cls, t->driver_version ? t->driver_version : "unknown", dc);
			break;
		}
		if (!fd) {
			r = -ENOMEM;
			break;
		}
		ga_finding_evidence(fd, "compat", "%s", c.where);
		if (c.driver[0])
			ga_finding_evidence(fd, "compat_driver", "%s", c.driver);
		ga_finding_evidence(fd, "compat_cuda", "%s", cc);
		ga_finding_evidence(fd, "gpu_class", "%s", cls);
		ga_finding_evidence(fd, "driver", "%s", t->driver_version ? t->driver_version : "unknown");
	}
	ga_free(all);
	return r;
}
