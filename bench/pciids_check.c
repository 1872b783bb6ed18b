/*
 * pciids_check.c - lib/collect/pciids.c against libpci's pci_lookup_name on one
 * pci.ids file, and the time of one pass (bench/pciids_check.sh builds and runs it).
 *
 *   pciids_check FILE      every vendor, device and class/subclass id the file lists,
 *                          plus a missing device per vendor and a missing subclass per
 *                          class, asked of both; prints the count and each difference
 *                          (exit 1 on any); then the CPU time of one scan for the
 *                          names of a few common vendors' devices.
 *
 * libpci is asked with PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB into a 256-byte
 * buffer, as lib/collect/pci.c asked it before it stopped linking libpci.
 */
#include <pci/pci.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/pciids.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *t = malloc(cap);
	for (size_t got; t && (got = fread(t + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap)
			t = realloc(t, cap *= 2);
	}
	fclose(f);
	*len = n;
	return t;
}

static void add(struct ga_pciids_query **q, size_t *n, size_t *cap, enum ga_pciids_kind k, unsigned a,
                unsigned b)
{
	if (*n == *cap)
		*q = realloc(*q, (*cap = *cap ? *cap * 2 : 1024) * sizeof(**q));
	memset(&(*q)[*n], 0, sizeof(**q));
	(*q)[*n].kind = k;
	(*q)[*n].id1 = a;
	(*q)[(*n)++].id2 = b;
}

static double scan_ms(const char *t, size_t len, struct ga_pciids_query *q, size_t n)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (int i = 0; i < 100; i++)
		ga_pciids_scan(t, len, q, n);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6) / 100;
}

int main(int argc, char **argv)
{
	size_t len = 0;
	char *t = argc == 2 ? slurp(argv[1], &len) : NULL;
	if (!t) {
		fprintf(stderr, "usage: pciids_check PCI.IDS\n");
		return 2;
	}
	struct ga_pciids_query *q = NULL;
	size_t n = 0, cap = 0;
	unsigned vendor = 0, cls = 0;
	int in_vendor = 0, in_class = 0;
	for (char *p = t; p < t + len;) {
		char *e = memchr(p, '\n', (size_t)(t + len - p));
		if (!e)
			e = t + len;
		unsigned a, b;
		if (p[0] == 'C' && p[1] == ' ' && sscanf(p + 2, "%2x", &a) == 1) {
			cls = a;
			in_class = 1;
			in_vendor = 0;
			add(&q, &n, &cap, GA_PCIIDS_CLASS, a << 8 | 0xfe, 0);
		} else if (p[0] != '\t' && p[0] != '#' && e - p > 5 && sscanf(p, "%4x", &a) == 1 &&
		           p[4] == ' ') {
			vendor = a;
			in_vendor = 1;
			in_class = 0;
			add(&q, &n, &cap, GA_PCIIDS_VENDOR, a, 0);
			add(&q, &n, &cap, GA_PCIIDS_DEVICE, a, 0xfffe);
		} else if (p[0] == '\t' && p[1] != '\t' && in_vendor && sscanf(p + 1, "%4x", &b) == 1) {
			add(&q, &n, &cap, GA_PCIIDS_DEVICE, vendor, b);
		} else if (p[0] == '\t' && p[1] != '\t' && in_class && sscanf(p + 1, "%2x", &b) == 1) {
			add(&q, &n, &cap, GA_PCIIDS_CLASS, cls << 8 | b, 0);
		} else if (p[0] != '\t' && p[0] != '#' && e > p) {
			in_vendor = in_class = 0;
		}
		p = e + 1;
	}
	add(&q, &n, &cap, GA_PCIIDS_VENDOR, 0xfffe, 0);
	ga_pciids_scan(t, len, q, n);

	struct pci_access *pa = pci_alloc();
	pa->id_lookup_mode = PCI_LOOKUP_NO_HWDB;
	pci_set_name_list_path(pa, argv[1], 0);
	size_t bad = 0;
	int fl = PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
	for (size_t i = 0; i < n; i++) {
		char buf[256], *r;
		if (q[i].kind == GA_PCIIDS_VENDOR)
			r = pci_lookup_name(pa, buf, 256, fl | PCI_LOOKUP_VENDOR, q[i].id1, 0);
		else if (q[i].kind == GA_PCIIDS_DEVICE)
			r = pci_lookup_name(pa, buf, 256, fl | PCI_LOOKUP_DEVICE, q[i].id1, q[i].id2);
		else
			r = pci_lookup_name(pa, buf, 256, fl | PCI_LOOKUP_CLASS, q[i].id1);
		if ((r != NULL) != q[i].found || (r && strcmp(r, q[i].name))) {
			if (bad++ < 20)
				printf("differs: kind %d %04x %04x: libpci \"%s\", pciids.c \"%s\"\n",
				       q[i].kind, q[i].id1, q[i].id2, r ? r : "(none)",
				       q[i].found ? q[i].name : "(none)");
		}
	}
	pci_cleanup(pa);
	printf("%s: %zu lookups, %zu differ\n", argv[1], n, bad);

	/* one pass, as discover asks: vendor, device and class of a few functions */
	static const unsigned vendors[][2] = { { 0x1af4, 0x1041 }, { 0x8086, 0x0bd5 }, { 0x10de, 0x2330 },
		                               { 0x15b3, 0x1021 }, { 0x1000, 0xc030 }, { 0x144d, 0xa80a } };
	struct ga_pciids_query few[18];
	for (size_t set = 0; set < 2; set++) {
		size_t m = 0;
		for (size_t i = 0; i < 6; i++) {
			/* set 0: the build VM's virtio functions only; set 1: six vendors' */
			unsigned v = set ? vendors[i][0] : 0x1af4, d = set ? vendors[i][1] : 0x1041;
			memset(&few[m], 0, 3 * sizeof(few[0]));
			few[m] = (struct ga_pciids_query){ .kind = GA_PCIIDS_VENDOR, .id1 = v };
			few[m + 1] = (struct ga_pciids_query){ .kind = GA_PCIIDS_DEVICE, .id1 = v, .id2 = d };
			few[m + 2] = (struct ga_pciids_query){ .kind = GA_PCIIDS_CLASS, .id1 = 0x0200 };
			m += 3;
		}
		printf("one pass, %s: %.3f ms CPU (mean of 100)\n",
		       set ? "Red Hat, Intel, NVIDIA, Mellanox, Broadcom, Samsung asked"
		           : "Red Hat only asked",
		       scan_ms(t, len, few, m));
	}
	free(q);
	free(t);
	return bad != 0;
}
