/*
 * deps-jit.c - the cold start a node pays when its GPU has no cubin: a CUDA
 * fatbin container with no cubin for the target's compute capability but
 * PTX the driver can JIT loads fine, and the driver compiles that PTX at the
 * first load of the module (with lazy loading, CUDA 12.2's default, at the
 * first launch of one of its kernels), on the CPU, while the request waits.
 * GA-DEPS-PTX-JIT says how much: containers, kernels (".entry" directives the
 * census counted, GA_ELF_PTX_ENTRIES), PTX bytes, and an estimate of the
 * compile time from the ptxas rate bench/ptx-jit-rate.sh measured (the
 * driver's JIT is the same back end as ptxas). Pure: inventory and target.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"

/*
 * ptxas -O3 on nvcc -ptx output, CPU time (user + sys), one thread: 1,046,441
 * bytes of PTX per second and 145.5 kernels per second, the same with 4x the
 * kernels (bench/results/ptx-jit-rate.txt, 2-CPU Xeon VM, CUDA 13.0;
 * docs/performance.md "PTX JIT rate"). The estimate uses the byte rate.
 */
#define PTX_JIT_BYTES_PER_S 1046441.0

static bool tegra(int sm)
{
	return sm == 53 || sm == 62 || sm == 72 || sm == 87;
}

/*
 * The CUDA image rules (docs/deps.md, "CUDA rules"), shared with the kernel-image verdict
 * (deps-verdicts.c): a cubin runs within its major at an equal or higher minor, a/f and
 * Tegra cubins only on their own SM; PTX (not a/f) on any SM at or above its own when the
 * driver knows its ISA.
 */
int ga_deps_cuda_image_runs(const struct ga_devcode_image *im, int sm, int cuda_version)
{
	int tmaj = sm / 10, tmin = sm % 10, imaj = im->sm / 10, imin = im->sm % 10;
	if (im->kind == GA_CODE_CUBIN) {
		if (im->arch_specific || tegra(sm) || tegra(im->sm))
			return im->sm == sm ? 1 : 0;
		return imaj == tmaj && tmin >= imin ? 1 : 0;
	}
	if (im->kind == GA_CODE_PTX) {
		if (im->arch_specific || im->family)
			return 0; /* a/f PTX is not portable */
		if (sm < im->sm)
			return 0;
		int need = ga_ptx_isa_min_cuda(im->ptx_isa_major, im->ptx_isa_minor);
		if (cuda_version > 0 && (need < 0 || need > cuda_version))
			return 2;
		return 1;
	}
	return 0;
}

/* One container's PTX the driver would JIT for sm: the image it picks, or NULL when a cubin runs
 * (or nothing does: that is GA-DEPS-NO-KERNEL-IMAGE's case). */
static const struct ga_devcode_image *
jit_image(const struct ga_elf_info *e, const struct ga_devcode_container *ct, int sm, int cuda_version)
{
	const struct ga_devcode_image *best = NULL;
	for (uint32_t k = 0; k < ct->n_images && ct->first_image + k < e->n_images; k++) {
		const struct ga_devcode_image *im = &e->images[ct->first_image + k];
		if (im->kind != GA_CODE_CUBIN && im->kind != GA_CODE_PTX)
			continue;
		if (ga_deps_cuda_image_runs(im, sm, cuda_version) != 1)
			continue;
		if (im->kind == GA_CODE_CUBIN)
			return NULL; /* the runtime loads the cubin: no JIT */
		/* the driver JITs the newest PTX that is not above the GPU */
		if (!best || im->sm > best->sm)
			best = im;
	}
	return best;
}

static int ptx_jit_file(const struct ga_deps_file *f, const struct ga_deps_target *t, struct ga_findings *out)
{
	const struct ga_elf_info *e = f->elf;
	size_t total = 0, jit = 0, counted = 0;
	uint64_t kernels = 0, bytes = 0;
	char ptx_archs[128] = "";
	for (size_t c = 0; c < e->n_containers; c++) {
		const struct ga_devcode_container *ct = &e->containers[c];
		if (ct->format != GA_DEVCODE_CUDA_FATBIN)
			continue;
		total++;
		const struct ga_devcode_image *im = jit_image(e, ct, t->sm, t->cuda_version);
		if (!im)
			continue;
		jit++;
		bytes += im->uncompressed_size ? im->uncompressed_size : im->size;
		if (im->ptx_entries_known) {
			kernels += im->ptx_entries;
			counted++;
		}
		if (!strstr(ptx_archs, im->arch) &&
		    strlen(ptx_archs) + strlen(im->arch) + 2 < sizeof(ptx_archs))
			snprintf(ptx_archs + strlen(ptx_archs), sizeof(ptx_archs) - strlen(ptx_archs), "%s%s",
			         ptx_archs[0] ? " " : "", im->arch);
	}
	if (!jit)
		return 0;
	double est_s = (double)bytes / PTX_JIT_BYTES_PER_S;
	char est[32];
	if (est_s < 0.1)
		snprintf(est, sizeof(est), "%.0f ms", est_s * 1000);
	else
		snprintf(est, sizeof(est), "%.1f s", est_s);
	char kern[64];
	if (counted == jit)
		snprintf(kern, sizeof(kern), "%llu kernel%s", (unsigned long long)kernels,
		         kernels == 1 ? "" : "s");
	else if (counted)
		snprintf(kern, sizeof(kern), "at least %llu kernels", (unsigned long long)kernels);
	else
		snprintf(kern, sizeof(kern), "kernels not counted");
	/* the persistent cache must hold the JIT output: the cubins came to 0.64x of their PTX in
	 * bench/ptx-jit-rate.sh; twice the PTX leaves room for the rest of the cache */
	unsigned long long cache_mib = (unsigned long long)((bytes + (1u << 20) - 1) >> 20) * 2;
	if (cache_mib < 256)
		cache_mib = 256;
	char fix[512];
	snprintf(fix, sizeof(fix),
	         "build the cubin for sm_%d (-gencode arch=compute_%d,code=sm_%d); until then keep the JIT "
	         "output: CUDA_CACHE_PATH on persistent storage shared by the pods, CUDA_CACHE_MAXSIZE of at "
	         "least %llu MiB, and warm up at deployment (launch each kernel once before taking traffic)",
	         t->sm, t->sm, t->sm, cache_mib);
	struct ga_finding *fd = ga_findings_add(
	        out, GA_C_DEPS_PTX_JIT, GA_SEV_WARNING, f->path, fix,
	        "%zu of %zu CUDA fatbin containers have no cubin for sm_%d: the driver JIT-compiles their "
	        "PTX (%s; %s, %llu bytes) when they load: up to about %s of CPU per process without a "
	        "warm cache (lazy loading compiles only the modules used)",
	        jit, total, t->sm, ptx_archs, kern, (unsigned long long)bytes, est);
	if (!fd)
		return -ENOMEM;
	int r = 0;
	r |= ga_finding_evidence(fd, "target_sm", "sm_%d", t->sm);
	r |= ga_finding_evidence(fd, "jit_containers", "%zu", jit);
	r |= ga_finding_evidence(fd, "ptx_archs", "%s", ptx_archs);
	if (counted == jit)
		r |= ga_finding_evidence(fd, "kernels", "%llu", (unsigned long long)kernels);
	r |= ga_finding_evidence(fd, "ptx_bytes", "%llu", (unsigned long long)bytes);
	r |= ga_finding_evidence(fd, "estimated_jit_s", "%.3f", est_s);
	return r < 0 ? -ENOMEM : 0;
}

int ga_deps_judge_ptx_jit(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                          struct ga_findings *out)
{
	if (!t || t->kind != GA_TARGET_CUDA || t->sm <= 0)
		return 0;
	int r = 0;
	for (size_t i = 0; i < inv->n_files && r == 0; i++)
		if (inv->files[i].elf && inv->files[i].elf->n_by_format[GA_DEVCODE_CUDA_FATBIN])
			r = ptx_jit_file(&inv->files[i], t, out);
	return r;
}
