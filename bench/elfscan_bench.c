/*
 * elfscan_bench.c - drives ga_elf_inspect over files (mmapped, like the deps
 * walk) for bench/elfscan.sh and for eyeballing a census:
 *   elfscan_bench [-n] [-v] [-j] [-m] [-d] FILE... | @LIST (one path a line)
 * -n: GA_ELF_NO_DEVICE_CODE; -v: one line per container/image kind;
 * -j: everything the census records, one line per container and image
 *     (bench/elfscan_check.sh diffs it between two builds);
 * -m: scan through the mapping only (ga_elf_inspect), not pread (the default);
 * -d: debug log (per-section scan statistics) on stderr.
 * Prints totals (files, containers, images, bytes) and the wall time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuaudit/elfscan.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void census(const char *path, const struct ga_elf_info *info)
{
	/* distinct (format, kind, arch) with counts, in first-seen order */
	enum { MAXD = 256 };
	struct {
		int fmt, kind;
		const char *arch;
		unsigned isa_major, isa_minor;
		size_t n;
	} d[MAXD];
	size_t nd = 0;
	for (size_t i = 0; i < info->n_images; i++) {
		const struct ga_devcode_image *im = &info->images[i];
		int fmt = (int)info->containers[im->container].format;
		size_t k;
		for (k = 0; k < nd; k++)
			if (d[k].fmt == fmt && d[k].kind == (int)im->kind && !strcmp(d[k].arch, im->arch))
				break;
		if (k == nd) {
			if (nd == MAXD)
				continue;
			d[nd].fmt = fmt;
			d[nd].kind = (int)im->kind;
			d[nd].arch = im->arch;
			d[nd].isa_major = im->ptx_isa_major;
			d[nd].isa_minor = im->ptx_isa_minor;
			d[nd].n = 0;
			nd++;
		}
		d[k].n++;
	}
	printf("%s: containers %zu (fatbin %zu, bundle %zu, ccob %zu, offload %zu) images %zu bad %zu%s\n",
	       path, info->n_containers, info->n_by_format[GA_DEVCODE_CUDA_FATBIN],
	       info->n_by_format[GA_DEVCODE_HIP_BUNDLE], info->n_by_format[GA_DEVCODE_HIP_CCOB],
	       info->n_by_format[GA_DEVCODE_LLVM_OFFLOAD], info->n_images, info->n_bad_containers,
	       info->static_cudart ? " static-cudart" : "");
	for (size_t k = 0; k < nd; k++) {
		printf("  %s %s %s", ga_devcode_format_name((enum ga_devcode_format)d[k].fmt),
		       ga_devcode_kind_name((enum ga_devcode_kind)d[k].kind), d[k].arch);
		if (d[k].kind == GA_CODE_PTX)
			printf(" isa %u.%u", d[k].isa_major, d[k].isa_minor);
		printf(" x%zu\n", d[k].n);
	}
	for (size_t i = 0; i < info->n_needed; i++)
		printf("  needed %s\n", info->needed[i]);
	for (size_t i = 0; i < info->n_dlopen_names; i++)
		printf("  dlopen %s\n", info->dlopen_names[i]);
	if (info->soname)
		printf("  soname %s\n", info->soname);
	if (info->rpath)
		printf("  rpath %s\n", info->rpath);
	if (info->runpath)
		printf("  runpath %s\n", info->runpath);
	if (info->x86_isa_level)
		printf("  x86-64 isa level %d\n", info->x86_isa_level);
}

/* Every field of the census, in a stable text form (no timing, no pointers). */
static void dump(const char *path, const struct ga_elf_info *info)
{
	printf("file %s class %d machine %u containers %zu images %zu bad %zu truncated %d markers %u "
	       "static-cudart %d scanned %llu skipped %llu\n",
	       path, info->elf_class, info->machine, info->n_containers, info->n_images,
	       info->n_bad_containers, info->devcode_truncated, info->static_cudart_markers,
	       info->static_cudart, (unsigned long long)info->bytes_scanned,
	       (unsigned long long)info->bytes_skipped);
	for (size_t i = 0; i < info->n_containers; i++) {
		const struct ga_devcode_container *c = &info->containers[i];
		printf(" c %s %s off %llu size %llu v %u first %u n %u comp %d usize %llu ids %d\n",
		       ga_devcode_format_name(c->format), c->section, (unsigned long long)c->offset,
		       (unsigned long long)c->size, c->version, c->first_image, c->n_images,
		       (int)c->compression, (unsigned long long)c->uncompressed_size, c->ids_known);
	}
	for (size_t i = 0; i < info->n_images; i++) {
		const struct ga_devcode_image *im = &info->images[i];
		printf(" i %u %s %s sm %u a %d f %d isa %u.%u cv %u.%u flags %llx comp %d dbg %d off %llu "
		       "size %llu usize %llu id %s\n",
		       im->container, ga_devcode_kind_name(im->kind), im->arch, im->sm, im->arch_specific,
		       im->family, im->ptx_isa_major, im->ptx_isa_minor, im->code_version_major,
		       im->code_version_minor, (unsigned long long)im->cuda_flags, (int)im->compression,
		       im->debug, (unsigned long long)im->offset, (unsigned long long)im->size,
		       (unsigned long long)im->uncompressed_size, im->bundle_id ? im->bundle_id : "-");
	}
	for (size_t i = 0; i < info->n_needed; i++)
		printf(" needed %s\n", info->needed[i]);
	for (size_t i = 0; i < info->n_dlopen_names; i++)
		printf(" dlopen %s\n", info->dlopen_names[i]);
	for (size_t i = 0; i < info->n_note_dlopen; i++)
		printf(" note-dlopen %s\n", info->note_dlopen[i].json);
}

/* weak: bench/elfscan_check.sh links this file against an older library too */
void ga_ctx_set_no_simd(struct ga_ctx *ctx, bool no_simd) __attribute__((weak));

static void log_stderr(void *udata, enum ga_log_level level, const char *msg)
{
	(void)udata;
	(void)level;
	fprintf(stderr, "%s\n", msg);
}

int main(int argc, char **argv)
{
	unsigned flags = 0;
	int verbose = 0, debug = 0, use_fd = 1, i = 1, full = 0;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n"))
			flags |= GA_ELF_NO_DEVICE_CODE;
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-j"))
			full = 1;
		else if (!strcmp(argv[i], "-m"))
			use_fd = 0;
		else if (!strcmp(argv[i], "-d"))
			debug = 1;
	}
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0)
		return 70;
	if (debug)
		ga_ctx_set_log(ctx, log_stderr, NULL, GA_LOG_DEBUG);
	/* GA_ELFSCAN_NO_SIMD: the census without AVX2 (a library older than the setter reads it itself) */
	if (getenv("GA_ELFSCAN_NO_SIMD") && ga_ctx_set_no_simd)
		ga_ctx_set_no_simd(ctx, true);
	size_t files = 0, elves = 0, containers = 0, images = 0;
	unsigned long long bytes = 0, skipped = 0, scanned = 0;
	double t0 = now_s();
	char **paths = NULL;
	size_t n_paths = 0, cap_paths = 0;
	for (; i < argc; i++) {
		FILE *lf = argv[i][0] == '@' ? fopen(argv[i] + 1, "r") : NULL;
		char line[4096];
		for (;;) {
			const char *pth = argv[i];
			if (lf) {
				if (!fgets(line, sizeof(line), lf))
					break;
				line[strcspn(line, "\n")] = '\0';
				pth = line;
			}
			if (n_paths == cap_paths) {
				cap_paths = cap_paths ? cap_paths * 2 : 256;
				paths = realloc(paths, cap_paths * sizeof(*paths));
				if (!paths)
					return 70;
			}
			paths[n_paths++] = strdup(pth);
			if (!lf)
				break;
		}
		if (lf)
			fclose(lf);
	}
	for (size_t k = 0; k < n_paths; k++) {
		const char *path = paths[k];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		files++;
		size_t len = (size_t)st.st_size;
		void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			continue;
		}
		bytes += len;
		struct ga_elf_info *info = NULL;
		int r = ga_elf_probe(m, len) ? ga_elf_inspect_fd(ctx, use_fd ? fd : -1, m, len, flags, &info)
		                             : ga_devcode_inspect_blob(ctx, m, len, flags, &info);
		if (r == 0) {
			elves += info->elf_class != 0;
			containers += info->n_containers;
			images += info->n_images;
			skipped += info->bytes_skipped;
			scanned += info->bytes_scanned;
			if (verbose)
				census(path, info);
			if (full)
				dump(path, info);
			ga_elf_info_free(info);
		} else if (verbose || full) {
			printf("%s: %s\n", path, ga_ctx_errmsg(ctx));
		}
		munmap(m, len);
		close(fd);
	}
	double t = now_s() - t0;
	printf("files %zu elf %zu containers %zu images %zu bytes %llu scanned %llu skipped %llu seconds "
	       "%.3f\n",
	       files, elves, containers, images, bytes, scanned, skipped, t);
	for (size_t k = 0; k < n_paths; k++)
		free(paths[k]);
	free(paths);
	ga_ctx_free(ctx);
	return 0;
}
