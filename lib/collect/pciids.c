/*
 * pciids.c - vendor, device and class names for the PCI functions discover reports,
 * looked up in the text of a pci.ids file in one pass.
 *
 * Why not libpci's pci_lookup_name: its first lookup loads the whole database, parsing
 * every one of the ~40,000 lines of the system's 1.3 MB pci.ids into a hash of
 * allocated entries, to answer the 3 names of each of the few devices a node reports.
 * That was 13 of discover's 21 ms (docs/performance.md, "discover"). Here the queries
 * are known first; one pass over the lines answers them all, looking into a vendor's or
 * class's block only when a query asks for it (the others are skipped 16 bytes at a
 * time), and nothing is allocated: 0.13 ms for the file with the virtio devices of the
 * build VM asked, 0.33 ms with Intel's and NVIDIA's blocks (12,000 lines) asked. (The udev
 * hwdb, which answers one lookup without loading a database, has no hwdb.bin on the
 * Debian build machines and containers this runs in, and libpci reached it only
 * through libudev, which leaked on every collection without one: pci.c.)
 *
 * The line syntax and the names written are libpci 3.9's (lib/names-parse.c and
 * lib/names.c of pciutils, read for the format only): a line ends at '\n' or '\r',
 * one trailing blank is dropped, blank lines and '#' comments are skipped, leading tabs
 * give the nesting; "vvvv  name" vendor, "\tdddd  name" device, "\t\tssss dddd  name"
 * subsystem (not needed here), "C cc  name" class, "\tss  name" subclass, "\t\tpp  name"
 * programming interface, other "X ..." blocks are skipped. Where libpci stops with a
 * parse error (a malformed line, a duplicate id, a line over 1023 bytes) and leaves its
 * answers depending on which lookup came first, this skips the one line and goes on.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pciids.h"

#define LINE_MAX_BYTES 1022 /* libpci reads lines with fgets into 1024 bytes */
#define PER_PASS 256        /* queries answered by one pass over the text */

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* n hex digits at s[0..n) (all inside the line: the caller checked), or -1 */
static long hexn(const char *s, size_t n)
{
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		int h = hexval((unsigned char)s[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static bool white(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Parse "<hex x n><blank><blanks>name" at s (len bytes): the id and the name's span. */
static bool entry(const char *s, size_t len, size_t n, long *id, const char **name, size_t *name_len)
{
	if (len < n + 1 || !white(s[n]) || (*id = hexn(s, n)) < 0)
		return false;
	size_t i = n + 1;
	while (i < len && white(s[i]))
		i++;
	if (i == len)
		return false; /* libpci: an id without a name is a parse error */
	*name = s + i;
	*name_len = len - i;
	return true;
}

/* libpci's format_name truncation: 256 bytes or more become 252 + "..." */
static void set_name(struct ga_pciids_query *q, const char *name, size_t len, const char *suffix)
{
	size_t sl = suffix ? strlen(suffix) : 0;
	size_t total = len + sl;
	char *d = q->name;
	if (total >= GA_PCIIDS_NAME_MAX) {
		size_t keep = GA_PCIIDS_NAME_MAX - 4, a = len < keep ? len : keep;
		memcpy(d, name, a);
		if (a < keep)
			memcpy(d + a, suffix, keep - a);
		memcpy(d + keep, "...", 4);
		return;
	}
	memcpy(d, name, len);
	if (sl)
		memcpy(d + len, suffix, sl);
	d[total] = '\0';
}

enum block { B_NONE, B_VENDOR, B_CLASS, B_OTHER };

struct scan {
	struct ga_pciids_query *q;
	size_t n;
	enum block block;
	bool wanted;               /* some query looks inside the current block */
	uint16_t inside[PER_PASS]; /* which: their indices, n_inside of them */
	size_t n_inside;
	bool fallback[PER_PASS]; /* class queries holding the class name only */
	/* ids some query asks about: most top-level lines are rejected with one bit test */
	uint8_t vendors[65536 / 8];
	uint8_t classes[256 / 8];
};

static bool bit(const uint8_t *set, long id)
{
	return (set[id >> 3] >> (id & 7)) & 1;
}

static void bit_set(uint8_t *set, unsigned id)
{
	set[id >> 3] = (uint8_t)(set[id >> 3] | (1u << (id & 7)));
}

static void top_level(struct scan *st, const char *p, size_t len)
{
	long id;
	const char *name;
	size_t nl;
	st->block = B_OTHER;
	st->wanted = false;
	st->n_inside = 0;
	if (len >= 2 && p[0] == 'C' && p[1] == ' ') {
		if (!entry(p + 2, len - 2, 2, &id, &name, &nl)) {
			st->block = B_NONE;
			return;
		}
		st->block = B_CLASS;
		if (!bit(st->classes, id))
			return;
		for (size_t i = 0; i < st->n; i++) {
			struct ga_pciids_query *q = &st->q[i];
			if (q->kind != GA_PCIIDS_CLASS || q->found || (long)(q->id1 >> 8) != id)
				continue;
			st->wanted = true;
			st->inside[st->n_inside++] = (uint16_t)i;
			if (!st->fallback[i]) {
				/* libpci: a class without the subclass is named with the full number */
				char num[16];
				snprintf(num, sizeof(num), " [%04x]", q->id1 & 0xffff);
				set_name(q, name, nl, num);
				st->fallback[i] = true;
			}
		}
		return;
	}
	if (len >= 2 && p[0] >= 'A' && p[0] <= 'Z' && p[1] == ' ')
		return; /* "S" generic subsystems, blocks for later use: nothing asked there */
	if (!entry(p, len, 4, &id, &name, &nl)) {
		st->block = B_NONE;
		return;
	}
	st->block = B_VENDOR;
	if (!bit(st->vendors, id))
		return;
	for (size_t i = 0; i < st->n; i++) {
		struct ga_pciids_query *q = &st->q[i];
		if (q->found || (long)q->id1 != id)
			continue;
		if (q->kind == GA_PCIIDS_VENDOR) {
			set_name(q, name, nl, NULL);
			q->found = true;
		} else if (q->kind == GA_PCIIDS_DEVICE) {
			st->wanted = true;
			st->inside[st->n_inside++] = (uint16_t)i;
		}
	}
}

static void nested(struct scan *st, const char *p, size_t len)
{
	long id;
	const char *name;
	size_t nl;
	bool vendor = st->block == B_VENDOR;
	if (!entry(p, len, vendor ? 4 : 2, &id, &name, &nl))
		return;
	for (size_t k = 0; k < st->n_inside; k++) {
		struct ga_pciids_query *q = &st->q[st->inside[k]];
		if (q->found)
			continue;
		if (vendor ? (q->kind == GA_PCIIDS_DEVICE && (long)q->id2 == id)
		           : (q->kind == GA_PCIIDS_CLASS && (long)(q->id1 & 0xff) == id)) {
			set_name(q, name, nl, NULL);
			q->found = true;
		}
	}
}

static void line(struct scan *st, const char *p, size_t len)
{
	if (len >= 2 && p[0] == '\t' && p[1] == '\t')
		return; /* subsystems and programming interfaces: never asked for */
	/* a line ends at '\r' too; a NUL inside one is libpci's "line too long" */
	const char *cr = memchr(p, '\r', len);
	if (cr)
		len = (size_t)(cr - p);
	if (len > LINE_MAX_BYTES || memchr(p, '\0', len)) {
		st->block = B_NONE;
		return;
	}
	if (len && white(p[len - 1]))
		len--;
	size_t i = 0;
	while (i < len && white(p[i]))
		i++;
	if (i == len || p[i] == '#')
		return;
	size_t tabs = 0;
	while (tabs < len && p[tabs] == '\t')
		tabs++;
	if (tabs == 0)
		top_level(st, p, len);
	else if (tabs == 1 && st->wanted && (st->block == B_VENDOR || st->block == B_CLASS))
		nested(st, p + 1, len - 1);
}

/*
 * Most lines are entries of blocks no query asks about (a leading tab), and inside a
 * block a query asks about, most are subsystems (two tabs), which no query asks for:
 * skip to the start of the next line that does not begin with `tabs` tabs (1 or 2), or
 * end. Sixteen bytes at a time with GCC's generic vectors (SSE2 on x86-64, NEON on
 * aarch64, VSX on ppc64le): a third of the time of one memchr per line.
 */
typedef unsigned char pciids_v16 __attribute__((vector_size(16)));
typedef signed char pciids_m16 __attribute__((vector_size(16)));

static const char *next_line_above(const char *p, const char *end, int tabs)
{
	const pciids_v16 nl = { '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
		                '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n' };
	const pciids_v16 tab = { '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t',
		                 '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t' };
	/* a hit: a line break, then not the tabs */
	while (end - p > 17) {
		pciids_v16 a, b, c;
		memcpy(&a, p, sizeof(a));
		memcpy(&b, p + 1, sizeof(b));
		memcpy(&c, p + 2, sizeof(c));
		pciids_m16 deeper = tabs == 1 ? (b == tab) : ((b == tab) & (c == tab));
		pciids_m16 hit = (a == nl) & ~deeper;
		uint64_t h[2];
		memcpy(h, &hit, sizeof(h));
		if (h[0] | h[1])
			break;
		p += 16;
	}
	for (; end - p > 1; p++) {
		if (p[0] != '\n')
			continue;
		if (p[1] != '\t' || (tabs == 2 && (end - p < 3 || p[2] != '\t')))
			return p + 1;
	}
	return end;
}

void ga_pciids_scan(const char *text, size_t len, struct ga_pciids_query *q, size_t n)
{
	struct scan st; /* 8 KiB of bits: on the stack, nothing allocated */
	for (size_t i = 0; i < n; i++) {
		q[i].found = false;
		q[i].name[0] = '\0';
	}
	/* a list longer than PER_PASS (85 devices) is answered in more passes */
	for (size_t base = 0; base < n; base += PER_PASS) {
		memset(&st, 0, sizeof(st));
		st.q = q + base;
		st.n = n - base < PER_PASS ? n - base : PER_PASS;
		st.block = B_NONE;
		for (size_t i = 0; i < st.n; i++) {
			if (st.q[i].kind == GA_PCIIDS_CLASS)
				bit_set(st.classes, (st.q[i].id1 >> 8) & 0xff);
			else
				bit_set(st.vendors, st.q[i].id1 & 0xffff);
		}
		const char *p = text, *end = text + len;
		while (p < end) {
			if (*p == '\t' && (!st.wanted || (end - p > 1 && p[1] == '\t'))) {
				p = next_line_above(p, end, st.wanted ? 2 : 1);
				continue;
			}
			const char *nlp = memchr(p, '\n', (size_t)(end - p));
			size_t ll = (size_t)((nlp ? nlp : end) - p);
			line(&st, p, ll);
			p += ll + 1;
		}
		for (size_t i = 0; i < st.n; i++)
			if (!st.q[i].found && st.fallback[i])
				st.q[i].found = true;
	}
}
