/*
 * census_read.c - how the device-code census should read the bytes it scans,
 * measured on this machine (issue 28): the sections `gpuaudit deps` scans for
 * fatbin magics (PROGBITS, not code, not .nv_fatbin / __nv_relfatbin, not the
 * sections it skips) of every ELF file given, read four ways, single thread,
 * CPU time (user + system) of each:
 *
 *   pread     pread 256 KiB windows into one reused buffer, scan it
 *   map       mmap the file, MADV_POPULATE_READ each window, scan, MADV_DONTNEED
 *             it (gpuaudit 0.x before issue 28)
 *   map-keep  mmap, MADV_POPULATE_READ each window, scan, munmap at the end
 *   fault     mmap, scan (page faults), munmap at the end
 *   cat       pread every byte of every file (what `cat` reads), no scan
 *   needed    as many bytes as the census must look at (issue 28, item 6:
 *             every byte of those sections and of .nv_fatbin / __nv_relfatbin
 *             that lies outside a fatbin container, since a container can start
 *             at any 4-byte step of them), read as if they lay together: from
 *             the file's start, 256 KiB a call, scanned; no header. What copying
 *             those bytes costs at the least
 *   floor     the same bytes plus every container and entry header, the reads
 *             merged wherever less than 16 KiB lies between two of them (a
 *             plan that knows every header's place in advance: no census can
 *             read less with as few calls), scanned
 *
 * needed and floor are computed beforehand (mapped, not timed) with the
 * census's container test: magic, version 1, header size 16..256, fits the
 * section; entries walked by their header and payload sizes.
 * The scan is the census's test for a fatbin magic at 4-byte steps (the
 * compiler vectorizes it). bench/census-read.sh builds and runs it.
 *
 *   census_read ROUNDS FILE...
 *   census_read -c FILE     the cost of one pread by size, and of a first touch
 *                           of a mapped page by stride (FILE in the page cache)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define WIN (256u << 10)
#define MAX_RANGES 4096

struct range {
	uint64_t off, len;
};

struct file {
	const char *path;
	uint64_t size;
	struct range r[MAX_RANGES];
	size_t n;
	struct range fb[64]; /* .nv_fatbin, __nv_relfatbin: walked by header, gaps scanned */
	size_t nfb;
	struct range *need, *plan; /* bytes outside containers; merged plan with the headers */
	size_t n_need, n_plan, cap_need, cap_plan;
};

#define MERGE_GAP (16u << 10) /* a pread costs about as much as copying 14 KiB (census_read -c) */

/* what the census passes over (lib/deps/elf.c), and the fatbin sections it walks by header */
static const char *const skip[] = {
#define GA_ELF_SKIP(p) p,
#include "../lib/deps/elf-skip.def"
#undef GA_ELF_SKIP
	".nv_fatbin",
	"__nv_relfatbin",
};

static int load(struct file *f)
{
	int fd = open(f->path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	f->size = (uint64_t)st.st_size;
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum) {
		close(fd);
		return -1;
	}
	Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
	                   (ssize_t)(eh.e_shnum * sizeof(*sh))) {
		free(sh);
		close(fd);
		return -1;
	}
	Elf64_Shdr *ss = &sh[eh.e_shstrndx < eh.e_shnum ? eh.e_shstrndx : 0];
	char *names = malloc(ss->sh_size + 1);
	if (!names || pread(fd, names, ss->sh_size, (off_t)ss->sh_offset) != (ssize_t)ss->sh_size) {
		free(names);
		free(sh);
		close(fd);
		return -1;
	}
	names[ss->sh_size] = '\0';
	for (unsigned i = 0; i < eh.e_shnum && f->n < MAX_RANGES; i++) {
		const char *nm = sh[i].sh_name < ss->sh_size ? names + sh[i].sh_name : "";
		bool ok = sh[i].sh_type == SHT_PROGBITS && !(sh[i].sh_flags & SHF_EXECINSTR) &&
		          sh[i].sh_size && sh[i].sh_offset + sh[i].sh_size <= f->size;
		for (size_t k = 0; ok && k < sizeof(skip) / sizeof(skip[0]); k++)
			if (!strncmp(nm, skip[k], strlen(skip[k])))
				ok = false;
		if (ok)
			f->r[f->n++] = (struct range){ sh[i].sh_offset, sh[i].sh_size };
		else if (sh[i].sh_type == SHT_PROGBITS && sh[i].sh_size &&
		         sh[i].sh_offset + sh[i].sh_size <= f->size && f->nfb < 64 &&
		         (!strcmp(nm, ".nv_fatbin") || !strcmp(nm, "__nv_relfatbin")))
			f->fb[f->nfb++] = (struct range){ sh[i].sh_offset, sh[i].sh_size };
	}
	free(names);
	free(sh);
	close(fd);
	return 0;
}

static uint64_t scan(const uint8_t *p, size_t n)
{
	uint64_t hits = 0;
	for (size_t i = 0; i + 4 <= n; i += 4) {
		uint32_t v;
		memcpy(&v, p + i, 4);
		hits += v == 0xBA55ED50u;
	}
	return hits;
}

static void push(struct range **a, size_t *n, size_t *cap, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*a = realloc(*a, *cap * sizeof(**a));
		if (!*a)
			exit(1);
	}
	(*a)[(*n)++] = (struct range){ off, len };
}

/* a range of the floor plan: joined to the last one when less than MERGE_GAP lies between */
static void plan_add(struct file *f, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	if (f->n_plan) {
		struct range *l = &f->plan[f->n_plan - 1];
		uint64_t le = l->off + l->len;
		if (off >= l->off && (off <= le || off - le < MERGE_GAP)) {
			if (off + len > le)
				l->len = off + len - l->off;
			return;
		}
	}
	push(&f->plan, &f->n_plan, &f->cap_plan, off, len);
}

/* The bytes of [a, b) outside containers, and the container and entry headers (2-byte and
 * 8-byte fields read with memcpy: x86-64, little-endian like the files). */
static void walk(struct file *f, const uint8_t *m, uint64_t a, uint64_t b)
{
	uint64_t gap = a, q = a;
	while (q + 16 <= b) {
		uint32_t v;
		uint16_t ver, hs;
		uint64_t fs;
		memcpy(&v, m + q, 4);
		memcpy(&ver, m + q + 4, 2);
		memcpy(&hs, m + q + 6, 2);
		memcpy(&fs, m + q + 8, 8);
		if (v != 0xBA55ED50u || ver != 1 || hs < 16 || hs > 256 || hs > b - q || fs > b - q - hs) {
			q += 4;
			continue;
		}
		push(&f->need, &f->n_need, &f->cap_need, gap, q - gap);
		plan_add(f, gap, q - gap);
		plan_add(f, q, hs);
		uint64_t p = q + hs, ce = q + hs + fs;
		while (p + 64 <= ce) {
			uint32_t ehs;
			uint64_t ps;
			memcpy(&ehs, m + p + 4, 4);
			memcpy(&ps, m + p + 8, 8);
			plan_add(f, p, 64);
			if (ehs < 64 || ehs > 4096 || ps > ce - p - ehs)
				break;
			p += ehs + ps;
		}
		gap = ce;
		q = a + ((ce - a + 3) & ~(uint64_t)3);
	}
	push(&f->need, &f->n_need, &f->cap_need, gap, b - gap);
	plan_add(f, gap, b - gap);
}

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;
	return (a->off > b->off) - (a->off < b->off);
}

/* needed and floor of one file (mapped, before any timing) */
static int plan(struct file *f)
{
	struct range all[MAX_RANGES + 64];
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		all[n++] = f->r[i];
	for (size_t i = 0; i < f->nfb; i++)
		all[n++] = f->fb[i];
	qsort(all, n, sizeof(all[0]), cmp_range);
	int fd = open(f->path, O_RDONLY);
	if (fd < 0)
		return -1;
	const uint8_t *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < n; i++)
		walk(f, m, all[i].off, all[i].off + all[i].len);
	munmap((void *)(uintptr_t)m, f->size);
	return 0;
}

enum how { PREAD, MAP, MAP_KEEP, FAULT, NEEDED, FLOOR, CAT, N_HOW };
static const char *const how_name[N_HOW] = { "pread", "map", "map-keep", "fault", "needed", "floor", "cat" };

static uint64_t calls[N_HOW]; /* preads of the last round (needed, floor) */

static uint64_t run_file(const struct file *f, enum how h, uint8_t *buf, uint64_t *bytes)
{
	int fd = open(f->path, O_RDONLY);
	if (fd < 0)
		return 0;
	uint64_t hits = 0;
	if (h == CAT) {
		for (uint64_t o = 0; o < f->size;) {
			ssize_t r = pread(fd, buf, WIN, (off_t)o);
			if (r <= 0)
				break;
			o += (uint64_t)r;
			*bytes += (uint64_t)r;
		}
		close(fd);
		return 0;
	}
	if (h == NEEDED || h == FLOOR) {
		struct range all = { 0, 0 };
		for (size_t i = 0; i < f->n_need; i++)
			all.len += f->need[i].len;
		const struct range *r = h == NEEDED ? &all : f->plan;
		size_t nr = h == NEEDED ? 1 : f->n_plan;
		for (size_t i = 0; i < nr; i++)
			for (uint64_t o = r[i].off, end = r[i].off + r[i].len; o < end;) {
				size_t n = end - o < WIN ? (size_t)(end - o) : WIN;
				if (pread(fd, buf, n, (off_t)o) != (ssize_t)n)
					break;
				hits += scan(buf, n);
				*bytes += n;
				o += n;
				calls[h]++;
			}
		close(fd);
		return hits;
	}
	uint8_t *map = NULL;
	if (h != PREAD) {
		map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			close(fd);
			return 0;
		}
	}
	for (size_t i = 0; i < f->n; i++) {
		for (uint64_t o = f->r[i].off, end = f->r[i].off + f->r[i].len; o < end;) {
			size_t n = end - o < WIN ? (size_t)(end - o) : WIN;
			if (h == PREAD) {
				if (pread(fd, buf, n, (off_t)o) != (ssize_t)n)
					break;
				hits += scan(buf, n);
			} else {
				uintptr_t a = (uintptr_t)(map + o) & ~(uintptr_t)4095;
				uintptr_t z = ((uintptr_t)(map + o + n) + 4095) & ~(uintptr_t)4095;
				if (h == MAP || h == MAP_KEEP)
					madvise((void *)a, z - a, MADV_POPULATE_READ);
				hits += scan(map + o, n);
				if (h == MAP)
					madvise((void *)a, z - a, MADV_DONTNEED);
			}
			*bytes += n;
			o += n;
		}
	}
	if (map)
		munmap(map, f->size);
	close(fd);
	return hits;
}

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* CPU per pread of n bytes (offsets 3 pages apart) and per first touch of a mapped page. */
static int call_costs(const char *path)
{
	static uint8_t b[256u << 10];
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < (1 << 24))
		return 1;
	uint64_t sz = (uint64_t)st.st_size;
	static const size_t sizes[] = { 64, 512, 1024, 4096, 16384, 65536, 262144 };
	printf("%s: one pread (median of 5 batches)\n", path);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		long iters = (long)(100e6 / (double)n);
		if (iters > 50000)
			iters = 50000;
		double t[5];
		for (int r = 0; r < 5; r++) {
			double t0 = cpu_now();
			uint64_t off = 0;
			for (long i = 0; i < iters; i++) {
				if (pread(fd, b, n, (off_t)off) < 0)
					return 1;
				off += n + 3 * 4096;
				if (off + n > sz)
					off = 0;
			}
			t[r] = (cpu_now() - t0) / (double)iters;
		}
		qsort(t, 5, sizeof(double), cmp_d);
		printf("  pread %6zu B: %6.2f us, %6.3f ns/B\n", n, t[2] * 1e6, t[2] / (double)n * 1e9);
	}
	static const size_t strides[] = { 4096, 16384, 65536, 262144 };
	printf("%s: first touch of a mapped page (median of 5 mappings)\n", path);
	for (size_t k = 0; k < sizeof(strides) / sizeof(strides[0]); k++) {
		double t[5];
		for (int r = 0; r < 5; r++) {
			double t0 = cpu_now();
			volatile const uint8_t *m = mmap(NULL, sz, PROT_READ, MAP_PRIVATE, fd, 0);
			if (m == MAP_FAILED)
				return 1;
			long n = 0;
			unsigned sum = 0;
			for (uint64_t o = 0; o < sz; o += strides[k], n++)
				sum += m[o];
			munmap((void *)(uintptr_t)m, sz);
			t[r] = (cpu_now() - t0) / (double)n;
			(void)sum;
		}
		qsort(t, 5, sizeof(double), cmp_d);
		printf("  stride %6zu B: %6.2f us a touch\n", strides[k], t[2] * 1e6);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-c"))
		return call_costs(argv[2]);
	if (argc < 3) {
		fprintf(stderr, "usage: census_read ROUNDS FILE...\n");
		return 2;
	}
	int rounds = (int)strtol(argv[1], NULL, 10);
	if (rounds < 1 || rounds > 100)
		rounds = 5;
	size_t nf = 0;
	struct file *fs = calloc((size_t)argc, sizeof(*fs));
	uint8_t *buf = aligned_alloc(4096, WIN);
	if (!fs || !buf)
		return 1;
	for (int i = 2; i < argc; i++) {
		fs[nf].path = argv[i];
		if (load(&fs[nf]) == 0 && plan(&fs[nf]) == 0)
			nf++;
	}
	double t[N_HOW][100];
	uint64_t bytes[N_HOW] = { 0 }, hits[N_HOW] = { 0 };
	for (int r = 0; r < rounds; r++)
		for (int h = 0; h < N_HOW; h++) { /* interleaved: load changes hit every way alike */
			double t0 = cpu_now();
			bytes[h] = hits[h] = calls[h] = 0;
			for (size_t i = 0; i < nf; i++)
				hits[h] += run_file(&fs[i], (enum how)h, buf, &bytes[h]);
			t[h][r] = cpu_now() - t0;
		}
	printf("%zu ELF files; median CPU (user + system) of %d rounds, one thread\n", nf, rounds);
	for (int h = 0; h < N_HOW; h++)
		qsort(t[h], (size_t)rounds, sizeof(double), cmp_d);
	for (int h = 0; h < N_HOW; h++) {
		printf("  %-9s %8.1f MiB  cpu %6.3f s  (%.2fx cat)  magics %llu", how_name[h],
		       (double)bytes[h] / 1048576.0, t[h][rounds / 2],
		       t[h][rounds / 2] / (t[CAT][rounds / 2] > 0 ? t[CAT][rounds / 2] : 1e-9),
		       (unsigned long long)hits[h]);
		if (calls[h])
			printf("  in %llu preads", (unsigned long long)calls[h]);
		printf("\n");
	}
	return 0;
}
