/*
 * elf.c - the bounded ELF reader behind ga_elf_inspect: identification,
 * dynamic section (as the loader sees it, through PT_DYNAMIC), notes (x86 ISA
 * level, .note.dlopen), static CUDA runtime markers, and which sections the
 * device-code census scans (scan.c scans them, census.c stores what is found).
 *
 * Why not libelf: buffers here are read-only mmaps or archive members, and
 * libelf's elf_memory() takes a writable image that it may convert in place
 * (foreign byte order); it also allocates per section. The few structures
 * needed are read directly, both classes and both byte orders, with every
 * offset range-checked against the buffer (pax-utils style).
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "elfscan_int.h"

/* ELF constants (own definitions: the reader must not depend on <elf.h> details) */
#define EI_NIDENT 16
#define ELFCLASS32 1
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ELFDATA2MSB 2
#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_NOTE 4
#define SHT_PROGBITS 1
#define SHT_SYMTAB 2
#define SHT_NOTE 7
#define SHT_NOBITS 8
#define SHT_DYNSYM 11
#define SHF_WRITE 0x1
#define SHF_EXECINSTR 0x4
#define SHN_UNDEF 0
#define SHN_LORESERVE 0xff00
#define SHN_XINDEX 0xffff
#define DT_NULL 0
#define DT_NEEDED 1
#define DT_STRTAB 5
#define DT_STRSZ 10
#define DT_SONAME 14
#define DT_RPATH 15
#define DT_RUNPATH 29
#define DT_VERNEED 0x6ffffffe
#define DT_VERNEEDNUM 0x6fffffff
#define SHT_GNU_VERNEED 0x6ffffffe
#define SHT_GNU_VERDEF 0x6ffffffd
#define MAX_VERDEF 4096   /* Verdef entries followed per file (libc.so.6 has ~45) */
#define MAX_VERNEED 4096  /* Verneed entries followed per file */
#define MAX_VERNAUX 65536 /* Vernaux entries followed per file, over all Verneed entries */
#define MAX_VERNAME 64    /* longest version name looked at ("GLIBCXX_3.4.32" is 14) */
#define NT_GNU_PROPERTY_TYPE_0 5
#define GNU_PROPERTY_X86_ISA_1_NEEDED 0xc0008002u
#define NT_FDO_DLOPEN 0x407c0c0au
#define EM_CUDA 190
#define EM_AMDGPU 224
#define EM_INTELGT 205

#define MAX_PHDRS 4096
#define MAX_DYN 65536
#define MAX_NOTES 4096
#define MAX_STR 4096 /* longest dynamic string kept */

struct elf {
	const uint8_t *buf;
	size_t len;
	bool is64, be;
	uint64_t shoff, phoff;
	uint32_t shnum, phnum, shentsize, phentsize, shstrndx;
};

static uint16_t rd16(const struct elf *e, const uint8_t *p)
{
	return (uint16_t)(e->be ? (p[0] << 8) | p[1] : dc_le16(p));
}
static uint32_t rd32(const struct elf *e, const uint8_t *p)
{
	if (!e->be)
		return dc_le32(p);
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static uint64_t rd64(const struct elf *e, const uint8_t *p)
{
	if (!e->be)
		return dc_le64(p);
	return ((uint64_t)rd32(e, p) << 32) | rd32(e, p + 4);
}
/* address-sized field */
static uint64_t rdaddr(const struct elf *e, const uint8_t *p)
{
	return e->is64 ? rd64(e, p) : rd32(e, p);
}

struct shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link;
	uint64_t addralign, entsize;
};

struct phdr {
	uint32_t type;
	uint64_t offset, vaddr, filesz, align;
};

static bool get_shdr(const struct elf *e, uint32_t i, struct shdr *s)
{
	if (i >= e->shnum)
		return false;
	const uint8_t *p = e->buf + e->shoff + (uint64_t)i * e->shentsize;
	s->name = rd32(e, p);
	s->type = rd32(e, p + 4);
	if (e->is64) {
		s->flags = rd64(e, p + 8);
		s->addr = rd64(e, p + 16);
		s->offset = rd64(e, p + 24);
		s->size = rd64(e, p + 32);
		s->link = rd32(e, p + 40);
		s->addralign = rd64(e, p + 48);
		s->entsize = rd64(e, p + 56);
	} else {
		s->flags = rd32(e, p + 8);
		s->addr = rd32(e, p + 12);
		s->offset = rd32(e, p + 16);
		s->size = rd32(e, p + 20);
		s->link = rd32(e, p + 24);
		s->addralign = rd32(e, p + 32);
		s->entsize = rd32(e, p + 36);
	}
	return true;
}

static bool get_phdr(const struct elf *e, uint32_t i, struct phdr *ph)
{
	if (i >= e->phnum)
		return false;
	const uint8_t *p = e->buf + e->phoff + (uint64_t)i * e->phentsize;
	ph->type = rd32(e, p);
	if (e->is64) {
		ph->offset = rd64(e, p + 8);
		ph->vaddr = rd64(e, p + 16);
		ph->filesz = rd64(e, p + 32);
		ph->align = rd64(e, p + 48);
	} else {
		ph->offset = rd32(e, p + 4);
		ph->vaddr = rd32(e, p + 8);
		ph->filesz = rd32(e, p + 16);
		ph->align = rd32(e, p + 28);
	}
	return true;
}

/* The section's bytes when they lie in the file (NOBITS: none). */
static bool sect_range(const struct elf *e, const struct shdr *s)
{
	return s->type != SHT_NOBITS && dc_range_ok(s->offset, s->size, e->len);
}

/* NUL-terminated string at off inside table [tab, tab+tabsz) of the file, or NULL. */
static const char *str_at(const struct elf *e, uint64_t tab, uint64_t tabsz, uint64_t off)
{
	if (!dc_range_ok(tab, tabsz, e->len) || off >= tabsz)
		return NULL;
	const char *s = (const char *)e->buf + tab + off;
	size_t max = (size_t)(tabsz - off);
	if (!memchr(s, '\0', max))
		return NULL;
	return s;
}

static const char *sect_name(const struct elf *e, const struct shdr *shstr, const struct shdr *s)
{
	if (!shstr)
		return NULL;
	return str_at(e, shstr->offset, shstr->size, s->name);
}

/* ---- identification ------------------------------------------------------ */

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case 3:
		return "i386";
	case 8:
		return "mips";
	case 20:
		return "ppc";
	case 21:
		return "ppc64";
	case 22:
		return "s390";
	case 40:
		return "arm";
	case 50:
		return "ia64";
	case 62:
		return "x86-64";
	case 183:
		return "aarch64";
	case EM_CUDA:
		return "cuda";
	case EM_INTELGT:
		return "intel-gt";
	case EM_AMDGPU:
		return "amdgpu";
	case 243:
		return "riscv";
	case 247:
		return "bpf";
	case 258:
		return "loongarch";
	default:
		return NULL;
	}
}

static const char *osabi_name(uint8_t a)
{
	switch (a) {
	case 0:
		return "sysv";
	case 3:
		return "gnu";
	case 9:
		return "freebsd";
	case 0x33:
		return "cuda";
	case 0x40:
		return "amdgpu-hsa";
	case 0x41:
		return "cuda";
	case 97:
		return "arm";
	case 255:
		return "standalone";
	default:
		return NULL;
	}
}

static const char *type_name(uint16_t t)
{
	switch (t) {
	case 1:
		return "rel";
	case 2:
		return "exec";
	case 3:
		return "dyn";
	case 4:
		return "core";
	default:
		return NULL;
	}
}

bool ga_elf_probe(const uint8_t *buf, size_t len)
{
	return buf && len >= 4 && buf[0] == 0x7f && buf[1] == 'E' && buf[2] == 'L' && buf[3] == 'F';
}

/*
 * Record the first damage found (a table or segment beyond the end of the
 * file, a count past a cap): the walk turns it into a gap on the file, so a
 * cut library is INCOMPLETE, never an ELF with no dependencies. 0 or -ENOMEM.
 */
static int set_damage(struct ga_ctx *ctx, const struct elf *e, struct ga_elf_info *info, const char *what)
{
	ga_log(ctx, GA_LOG_DEBUG, "ELF %s", what);
	if (info->damage)
		return 0;
	char msg[160];
	snprintf(msg, sizeof(msg), "%s (file is %zu bytes)", what, e->len);
	info->damage = ga_strdup(msg);
	return info->damage ? 0 : -ENOMEM;
}

/* A PT_LOAD segment whose file bytes end past the end of the file: the file was cut. */
static bool load_beyond_end(const struct elf *e)
{
	struct phdr ph;
	for (uint32_t i = 0; i < e->phnum; i++)
		if (get_phdr(e, i, &ph) && ph.type == PT_LOAD && !dc_range_ok(ph.offset, ph.filesz, e->len))
			return true;
	return false;
}

static int read_ehdr(struct ga_ctx *ctx, struct elf *e, struct ga_elf_info *info)
{
	const uint8_t *b = e->buf;
	if (!ga_elf_probe(b, e->len))
		return ga_err(ctx, -ENOEXEC, "not an ELF file");
	if (e->len < 52)
		return ga_err(ctx, -ENOEXEC, "truncated ELF header (%zu bytes)", e->len);
	if (b[4] != ELFCLASS32 && b[4] != ELFCLASS64)
		return ga_err(ctx, -ENOEXEC, "bad ELF class %u", b[4]);
	if (b[5] != ELFDATA2LSB && b[5] != ELFDATA2MSB)
		return ga_err(ctx, -ENOEXEC, "bad ELF data encoding %u", b[5]);
	e->is64 = b[4] == ELFCLASS64;
	e->be = b[5] == ELFDATA2MSB;
	if (e->is64 && e->len < 64)
		return ga_err(ctx, -ENOEXEC, "truncated ELF64 header (%zu bytes)", e->len);
	info->elf_class = e->is64 ? 64 : 32;
	info->big_endian = e->be;
	info->osabi = b[7];
	info->osabi_name = osabi_name(b[7]);
	info->abi_version = b[8];
	info->type = rd16(e, b + 16);
	info->type_name = type_name(info->type);
	info->machine = rd16(e, b + 18);
	info->machine_name = machine_name(info->machine);
	if (e->is64) {
		e->phoff = rd64(e, b + 32);
		e->shoff = rd64(e, b + 40);
		info->e_flags = rd32(e, b + 48);
		e->phentsize = rd16(e, b + 54);
		e->phnum = rd16(e, b + 56);
		e->shentsize = rd16(e, b + 58);
		e->shnum = rd16(e, b + 60);
		e->shstrndx = rd16(e, b + 62);
	} else {
		e->phoff = rd32(e, b + 28);
		e->shoff = rd32(e, b + 32);
		info->e_flags = rd32(e, b + 36);
		e->phentsize = rd16(e, b + 42);
		e->phnum = rd16(e, b + 44);
		e->shentsize = rd16(e, b + 46);
		e->shnum = rd16(e, b + 48);
		e->shstrndx = rd16(e, b + 50);
	}
	uint32_t sh_min = e->is64 ? 64 : 40, ph_min = e->is64 ? 56 : 32;
	/* program headers: unusable ones are dropped and said (a .o has none) */
	int r = 0;
	if (e->phnum && (e->phentsize < ph_min || e->phnum > MAX_PHDRS)) {
		r = set_damage(ctx, e, info, "damaged: program header table unusable");
		e->phnum = 0;
	} else if (e->phnum && !dc_range_ok(e->phoff, (uint64_t)e->phnum * e->phentsize, e->len)) {
		r = set_damage(ctx, e, info, "truncated: program headers beyond end of file");
		e->phnum = 0;
	} else if (load_beyond_end(e)) {
		r = set_damage(ctx, e, info, "truncated: a loadable segment ends beyond end of file");
	}
	if (r < 0)
		return r;
	if (e->shoff == 0 || e->shentsize < sh_min) {
		if (e->shoff && e->shnum)
			r = set_damage(ctx, e, info, "damaged: section header table unusable");
		e->shnum = 0;
		return r;
	}
	if (!dc_range_ok(e->shoff, sh_min, e->len)) {
		e->shnum = 0;
		return set_damage(ctx, e, info, "truncated: section headers beyond end of file");
	}
	/* extended numbering: counts in section 0 */
	struct shdr s0;
	uint32_t saved = e->shnum;
	e->shnum = 1;
	get_shdr(e, 0, &s0);
	e->shnum = saved;
	if (saved == 0)
		e->shnum = s0.size > GA_ELF_MAX_SECTIONS ? GA_ELF_MAX_SECTIONS + 1 : (uint32_t)s0.size;
	if (e->shstrndx == SHN_XINDEX)
		e->shstrndx = s0.link;
	if (e->shnum > GA_ELF_MAX_SECTIONS) {
		e->shnum = 0;
		return set_damage(ctx, e, info, "damaged: more sections than the cap");
	}
	if (!dc_range_ok(e->shoff, (uint64_t)e->shnum * e->shentsize, e->len)) {
		e->shnum = 0;
		return set_damage(ctx, e, info, "truncated: section headers beyond end of file");
	}
	return 0;
}

/* A section with file bytes (not NOBITS) ending past the end of the file: the file was cut. */
static bool section_beyond_end(const struct elf *e)
{
	/* every header of every file: only the three fields it needs, not get_shdr's nine */
	const unsigned off_at = e->is64 ? 24 : 16, size_at = e->is64 ? 32 : 20;
	for (uint32_t i = 1; i < e->shnum; i++) {
		const uint8_t *p = e->buf + e->shoff + (uint64_t)i * e->shentsize;
		if (rd32(e, p + 4) == SHT_NOBITS)
			continue;
		uint64_t size = e->is64 ? rd64(e, p + size_at) : rd32(e, p + size_at);
		if (size && !dc_range_ok(e->is64 ? rd64(e, p + off_at) : rd32(e, p + off_at), size, e->len))
			return true;
	}
	return false;
}

/* When the file itself is device code: its target. */
static int device_self(struct ga_elf_info *info)
{
	char arch[64];
	arch[0] = '\0';
	uint32_t f = info->e_flags;
	if (info->machine == EM_CUDA) {
		/* old ABI (code version 1.7): SM in bits 0-7; new ABI (OSABI 0x41): bits 8-15 */
		unsigned sm = info->osabi == 0x41 ? (f >> 8) & 0xff : f & 0xff;
		snprintf(arch, sizeof(arch), "sm_%u", sm);
		info->device_backend = GA_DEP_CUDA;
	} else if (info->machine == EM_AMDGPU) {
		const char *m = ga_dc_amdgpu_mach(f & 0xff);
		if (m)
			snprintf(arch, sizeof(arch), "%s", m);
		else
			snprintf(arch, sizeof(arch), "amdgcn-0x%02x", f & 0xff);
		/* features in the canonical order of target ids: sramecc then xnack */
		unsigned sramecc = f & 0xC00, xnack = f & 0x300;
		size_t n = strlen(arch);
		if (sramecc == 0x800 || sramecc == 0xC00)
			n += (size_t)snprintf(arch + n, sizeof(arch) - n, ":sramecc%c",
			                      sramecc == 0xC00 ? '+' : '-');
		if (n < sizeof(arch) && (xnack == 0x200 || xnack == 0x300))
			snprintf(arch + n, sizeof(arch) - n, ":xnack%c", xnack == 0x300 ? '+' : '-');
		info->device_backend = GA_DEP_ROCM;
	} else if (info->machine == EM_INTELGT) {
		snprintf(arch, sizeof(arch), "intel-gt");
		info->device_backend = GA_DEP_LEVEL_ZERO;
	} else {
		return 0;
	}
	info->device_arch = ga_strdup(arch);
	return info->device_arch ? 0 : -ENOMEM;
}

/* ---- dynamic section ----------------------------------------------------- */

/* Map a virtual address to a file offset through PT_LOAD segments. */
static bool vaddr_to_off(const struct elf *e, uint64_t va, uint64_t *ret)
{
	struct phdr ph;
	for (uint32_t i = 0; i < e->phnum; i++) {
		if (!get_phdr(e, i, &ph) || ph.type != PT_LOAD)
			continue;
		if (va >= ph.vaddr && va - ph.vaddr < ph.filesz) {
			uint64_t off = ph.offset + (va - ph.vaddr);
			if (off < ph.offset || off >= e->len)
				return false;
			*ret = off;
			return true;
		}
	}
	return false;
}

static char *dup_bounded(const char *s)
{
	return ga_strndup(s, strnlen(s, MAX_STR));
}

/*
 * The Verneed chain at file offset off (count entries, as DT_VERNEEDNUM or
 * the section's sh_info says), names in the string table [str_off,
 * +str_size): each needed version name goes to ga_symver_note. Elf32 and
 * Elf64 Verneed / Vernaux have the same 16-byte layout. An entry or a name
 * outside the file is damage; the chain stops there. 0 or -ENOMEM.
 */
static int read_verneed(struct ga_ctx *ctx, const struct elf *e, struct ga_elf_info *info, uint64_t off,
                        uint64_t count, uint64_t str_off, uint64_t str_size)
{
	if (count > MAX_VERNEED)
		count = MAX_VERNEED;
	if (!dc_range_ok(str_off, str_size, e->len))
		return 0;
	uint64_t budget = MAX_VERNAUX; /* Vernaux entries over the whole chain: a looping one stops */
	for (uint64_t i = 0; i < count; i++) {
		if (!dc_range_ok(off, 16, e->len))
			return set_damage(ctx, e, info, "damaged: version needs beyond end of file");
		const uint8_t *vn = e->buf + off;
		uint16_t cnt = rd16(e, vn + 2);
		uint32_t aux = rd32(e, vn + 8), next = rd32(e, vn + 12);
		uint64_t a = off + aux;
		for (uint32_t j = 0; j < cnt && budget; j++, budget--) {
			if (!dc_range_ok(a, 16, e->len))
				return set_damage(ctx, e, info,
				                  "damaged: version need entries beyond end of file");
			const uint8_t *vna = e->buf + a;
			uint32_t name_off = rd32(e, vna + 8);
			if (name_off >= str_size)
				return set_damage(ctx, e, info,
				                  "damaged: version name outside the dynamic string table");
			/* names that matter are short: look at most MAX_VERNAME bytes for the NUL */
			const char *name = (const char *)e->buf + str_off + name_off;
			uint64_t room = str_size - name_off;
			if (memchr(name, '\0', (size_t)(room < MAX_VERNAME ? room : MAX_VERNAME)))
				ga_symver_note(info, name);
			uint32_t an = rd32(e, vna + 12);
			if (!an)
				break;
			a += an;
		}
		if (!next)
			break;
		off += next;
	}
	return 0;
}

/* DT_VERNEED in a file without program headers: the SHT_GNU_verneed section and its string table. */
static int read_verneed_section(struct ga_ctx *ctx, const struct elf *e, struct ga_elf_info *info)
{
	for (uint32_t i = 0; i < e->shnum; i++) {
		struct shdr s, l;
		if (!get_shdr(e, i, &s) || s.type != SHT_GNU_VERNEED)
			continue;
		if (!sect_range(e, &s) || !get_shdr(e, s.link, &l) || !sect_range(e, &l))
			return set_damage(ctx, e, info, "damaged: version needs beyond end of file");
		/* sh_info holds the entry count; the shdr reader does not keep it */
		const uint8_t *p = e->buf + e->shoff + (uint64_t)i * e->shentsize;
		uint32_t count = rd32(e, p + (e->is64 ? 44 : 28));
		return read_verneed(ctx, e, info, s.offset, count, l.offset, l.size);
	}
	return 0;
}

/*
 * The highest version a library DEFINES under one prefix (.gnu.version_d:
 * libc.so.6 defines GLIBC_2.2.5 .. GLIBC_2.36, libstdc++.so.6 GLIBCXX_3.4 ..
 * 3.4.30): what the node's loader can satisfy. Verdef entries are 20 bytes
 * (vd_cnt at 6, vd_aux at 12, vd_next at 16), their first Verdaux names the
 * version (vda_name at 0); the rest name parents and are skipped.
 */
int ga_elf_verdef_highest(struct ga_ctx *ctx, const uint8_t *buf, size_t len, const char *prefix, char *out,
                          size_t outlen)
{
	struct elf e = { .buf = buf, .len = len };
	struct ga_elf_info tmp;
	memset(&tmp, 0, sizeof(tmp));
	int found = 0;
	if (!out || outlen == 0 || read_ehdr(ctx, &e, &tmp) < 0)
		goto out;
	size_t plen = strlen(prefix);
	for (uint32_t i = 0; i < e.shnum; i++) {
		struct shdr s, l;
		if (!get_shdr(&e, i, &s) || s.type != SHT_GNU_VERDEF)
			continue;
		if (!sect_range(&e, &s) || !get_shdr(&e, s.link, &l) || !sect_range(&e, &l))
			break;
		const uint8_t *sh = e.buf + e.shoff + (uint64_t)i * e.shentsize;
		uint32_t count = rd32(&e, sh + (e.is64 ? 44 : 28));
		uint64_t off = s.offset;
		for (uint32_t k = 0; k < count && k < MAX_VERDEF; k++) {
			if (!dc_range_ok(off, 20, e.len))
				break;
			const uint8_t *vd = e.buf + off;
			uint32_t aux = rd32(&e, vd + 12), next = rd32(&e, vd + 16);
			if (rd16(&e, vd + 6) && dc_range_ok(off + aux, 8, e.len)) {
				const char *name = str_at(&e, l.offset, l.size, rd32(&e, e.buf + off + aux));
				const char *v = name && !strncmp(name, prefix, plen) ? name + plen : NULL;
				/* "GLIBC_PRIVATE": not a release; only dotted digits count */
				if (v && *v >= '0' && *v <= '9' && strspn(v, "0123456789.") == strlen(v) &&
				    strlen(v) < outlen && (!found || ga_symver_cmp(v, out) > 0)) {
					memcpy(out, v, strlen(v) + 1);
					found = 1;
				}
			}
			if (!next)
				break;
			off += next;
		}
		break;
	}
out:
	ga_free(tmp.damage);
	return found;
}

static int read_dynamic(struct ga_ctx *ctx, const struct elf *e, struct ga_elf_info *info,
                        const struct shdr *shstr)
{
	uint64_t dyn_off = 0, dyn_size = 0, str_off = 0, str_size = 0;
	bool have_dyn = false, have_str = false;
	struct phdr ph;
	for (uint32_t i = 0; i < e->phnum; i++) {
		if (!get_phdr(e, i, &ph))
			continue;
		if (ph.type == PT_DYNAMIC && !have_dyn) {
			dyn_off = ph.offset;
			dyn_size = ph.filesz;
			have_dyn = true;
		} else if (ph.type == PT_INTERP && !info->interp &&
		           dc_range_ok(ph.offset, ph.filesz, e->len) && ph.filesz > 0) {
			size_t n = strnlen((const char *)e->buf + ph.offset, (size_t)ph.filesz);
			info->interp =
			        ga_strndup((const char *)e->buf + ph.offset, n > MAX_STR ? MAX_STR : n);
			if (!info->interp)
				return -ENOMEM;
		}
	}
	/* no program headers (stripped of them, or a .o): the .dynamic section and its link */
	uint64_t sect_str_off = 0, sect_str_size = 0;
	bool have_sect_str = false;
	for (uint32_t i = 0; i < e->shnum; i++) {
		struct shdr s, l;
		if (!get_shdr(e, i, &s) || s.type != 6 /* SHT_DYNAMIC */)
			continue;
		if (!have_dyn && sect_range(e, &s)) {
			dyn_off = s.offset;
			dyn_size = s.size;
			have_dyn = true;
		}
		if (get_shdr(e, s.link, &l) && sect_range(e, &l)) {
			sect_str_off = l.offset;
			sect_str_size = l.size;
			have_sect_str = true;
		}
		break;
	}
	(void)shstr;
	if (!have_dyn)
		return 0;
	if (!dc_range_ok(dyn_off, dyn_size, e->len))
		return set_damage(ctx, e, info, "truncated: dynamic section beyond end of file");
	size_t entsz = e->is64 ? 16 : 8;
	uint64_t n = dyn_size / entsz;
	if (n > MAX_DYN)
		n = MAX_DYN;
	/* first pass: the string table */
	uint64_t strtab_va = 0, strsz = 0, verneed_va = 0, verneed_n = 0;
	bool have_strtab_va = false, have_verneed = false;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = e->buf + dyn_off + i * entsz;
		uint64_t tag = rdaddr(e, p), val = rdaddr(e, p + entsz / 2);
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB) {
			strtab_va = val;
			have_strtab_va = true;
		} else if (tag == DT_STRSZ) {
			strsz = val;
		} else if (tag == DT_VERNEED) {
			verneed_va = val;
			have_verneed = true;
		} else if (tag == DT_VERNEEDNUM) {
			verneed_n = val;
		}
	}
	if (have_strtab_va && vaddr_to_off(e, strtab_va, &str_off)) {
		str_size = strsz;
		if (!dc_range_ok(str_off, str_size, e->len)) {
			str_size = e->len - str_off;
			if (set_damage(ctx, e, info, "truncated: dynamic string table beyond end of file") <
			    0)
				return -ENOMEM;
		}
		have_str = true;
	}
	if (!have_str && have_sect_str) {
		str_off = sect_str_off;
		str_size = sect_str_size;
		have_str = true;
	}
	if (!have_str)
		return have_strtab_va ? set_damage(ctx, e, info, "damaged: dynamic string table not found")
		                      : 0;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = e->buf + dyn_off + i * entsz;
		uint64_t tag = rdaddr(e, p), val = rdaddr(e, p + entsz / 2);
		if (tag == DT_NULL)
			break;
		if (tag != DT_NEEDED && tag != DT_SONAME && tag != DT_RPATH && tag != DT_RUNPATH)
			continue;
		const char *s = str_at(e, str_off, str_size, val);
		if (!s)
			continue;
		char **slot = NULL;
		if (tag == DT_NEEDED) {
			if (info->n_needed >= GA_ELF_MAX_NEEDED)
				continue;
			slot = ga_array_push((void **)&info->needed, &info->n_needed, sizeof(char *));
			if (!slot)
				return -ENOMEM;
		} else if (tag == DT_SONAME) {
			slot = info->soname ? NULL : &info->soname;
		} else if (tag == DT_RPATH) {
			slot = info->rpath ? NULL : &info->rpath;
		} else {
			slot = info->runpath ? NULL : &info->runpath;
		}
		if (!slot)
			continue;
		*slot = dup_bounded(s);
		if (!*slot) {
			if (tag == DT_NEEDED)
				info->n_needed--;
			return -ENOMEM;
		}
	}
	/* GA_BENCH_NO_SYMVER: a build without the version needs, for bench/deps.sh's cost of them */
#ifdef GA_BENCH_NO_SYMVER
	have_verneed = false;
#endif
	if (!have_verneed)
		return 0;
	uint64_t vn_off;
	/* no program headers (stripped of them): DT_VERNEED cannot be mapped, the section can */
	if (!e->phnum)
		return read_verneed_section(ctx, e, info);
	if (!vaddr_to_off(e, verneed_va, &vn_off))
		return set_damage(ctx, e, info, "damaged: version needs outside the loaded segments");
	return read_verneed(ctx, e, info, vn_off, verneed_n, str_off, str_size);
}

/* ---- notes --------------------------------------------------------------- */

static int add_note_dlopen(struct ga_elf_info *info, const char *text, size_t len)
{
	json_error_t jerr;
	json_t *root = NULL;
	if (ga_json_parse(NULL, text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &root, &jerr) == -ENOMEM)
		return -ENOMEM;
	if (!root)
		return 0; /* not JSON: ignored */
	int r = 0;
	size_t idx;
	json_t *obj;
	if (!json_is_array(root))
		goto out;
	json_array_foreach(root, idx, obj)
	{
		if (!json_is_object(obj) || info->n_note_dlopen >= MAX_NOTES)
			continue;
		struct ga_note_dlopen *nd =
		        ga_array_push((void **)&info->note_dlopen, &info->n_note_dlopen, sizeof(*nd));
		if (!nd) {
			r = -ENOMEM;
			goto out;
		}
		nd->json = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
		/* json_dumps allocates with malloc: copy into the library allocator */
		if (nd->json) {
			char *c = ga_strdup(nd->json);
			free(nd->json);
			nd->json = c;
		}
		if (!nd->json) {
			r = -ENOMEM;
			goto out;
		}
		const char *keys[3] = { "feature", "description", "priority" };
		char **dst[3] = { &nd->feature, &nd->description, &nd->priority };
		for (int k = 0; k < 3; k++) {
			json_t *v = json_object_get(obj, keys[k]);
			if (json_is_string(v)) {
				*dst[k] = ga_strdup(json_string_value(v));
				if (!*dst[k]) {
					r = -ENOMEM;
					goto out;
				}
			}
		}
		json_t *so = json_object_get(obj, "soname");
		size_t j;
		json_t *sv;
		if (json_is_string(so)) {
			so = json_pack("[O]", so);
		} else {
			json_incref(so);
		}
		json_array_foreach(so, j, sv)
		{
			if (!json_is_string(sv) || nd->n_sonames >= MAX_NOTES)
				continue;
			char **slot = ga_array_push((void **)&nd->sonames, &nd->n_sonames, sizeof(char *));
			if (slot)
				*slot = ga_strdup(json_string_value(sv));
			if (!slot || !*slot) {
				if (slot)
					nd->n_sonames--;
				json_decref(so);
				r = -ENOMEM;
				goto out;
			}
		}
		json_decref(so);
	}
out:
	json_decref(root);
	return r;
}

/* Walk the notes in [off, off+size) with the given alignment. */
static int read_notes(const struct elf *e, struct ga_elf_info *info, uint64_t off, uint64_t size,
                      uint64_t align)
{
	if (!dc_range_ok(off, size, e->len))
		return 0;
	if (align != 8)
		align = 4;
	uint64_t p = 0;
	int count = 0;
	while (p + 12 <= size && count++ < MAX_NOTES) {
		const uint8_t *h = e->buf + off + p;
		uint32_t namesz = rd32(e, h), descsz = rd32(e, h + 4), type = rd32(e, h + 8);
		uint64_t name_off = p + 12;
		uint64_t desc_off = (name_off + namesz + align - 1) & ~(align - 1);
		if (namesz > size || descsz > size || desc_off > size || descsz > size - desc_off)
			break;
		const char *name = (const char *)e->buf + off + name_off;
		const uint8_t *desc = e->buf + off + desc_off;
		if (namesz == 4 && !memcmp(name, "GNU", 4) && type == NT_GNU_PROPERTY_TYPE_0) {
			uint64_t q = 0, palign = e->is64 ? 8 : 4;
			while (q + 8 <= descsz) {
				uint32_t pt = rd32(e, desc + q), pd = rd32(e, desc + q + 4);
				if (pd > descsz - q - 8)
					break;
				if (pt == GNU_PROPERTY_X86_ISA_1_NEEDED && pd >= 4)
					info->x86_isa_needed |= rd32(e, desc + q + 8);
				q += 8 + ((pd + palign - 1) & ~(palign - 1));
			}
		} else if (namesz == 4 && !memcmp(name, "FDO", 4) && type == NT_FDO_DLOPEN && descsz > 0) {
			size_t n = strnlen((const char *)desc, descsz);
			int r = add_note_dlopen(info, (const char *)desc, n);
			if (r < 0)
				return r;
		}
		uint64_t next = (desc_off + descsz + align - 1) & ~(align - 1);
		if (next <= p)
			break;
		p = next;
	}
	return 0;
}

static int read_all_notes(const struct elf *e, struct ga_elf_info *info)
{
	bool any = false;
	uint64_t budget = e->len; /* note sections overlap only in hostile files */
	for (uint32_t i = 0; i < e->shnum; i++) {
		struct shdr s;
		if (!get_shdr(e, i, &s) || s.type != SHT_NOTE || !sect_range(e, &s))
			continue;
		any = true;
		if (s.size > budget)
			break;
		budget -= s.size;
		int r = read_notes(e, info, s.offset, s.size, s.addralign);
		if (r < 0)
			return r;
	}
	if (any)
		return 0;
	struct phdr ph;
	for (uint32_t i = 0; i < e->phnum; i++) {
		if (!get_phdr(e, i, &ph) || ph.type != PT_NOTE)
			continue;
		int r = read_notes(e, info, ph.offset, ph.filesz, ph.align);
		if (r < 0)
			return r;
	}
	return 0;
}

static int isa_level(uint32_t bits)
{
	for (int l = 4; l >= 1; l--)
		if (bits & (1u << (l - 1)))
			return l;
	return 0;
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Sections that never hold device code or library-name strings. */
static bool skip_section(const char *name)
{
	static const char *const prefixes[] = {
#define GA_ELF_SKIP(p) p,
#include "elf-skip.def"
#undef GA_ELF_SKIP
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE(prefixes); i++)
		if (has_prefix(name, prefixes[i]))
			return true;
	return false;
}

/* Symbols whose names mark a static CUDA runtime (prefiltered by a string-table search). */
static void scan_symbols(const struct elf *e, struct ga_elf_info *info)
{
	for (uint32_t i = 0; i < e->shnum; i++) {
		struct shdr s, str;
		if (!get_shdr(e, i, &s) || (s.type != SHT_SYMTAB && s.type != SHT_DYNSYM) ||
		    !sect_range(e, &s))
			continue;
		if (!get_shdr(e, s.link, &str) || !sect_range(e, &str))
			continue;
		const uint8_t *tab = e->buf + str.offset;
		if (memmem(tab, (size_t)str.size, "libcudart_static_", 17))
			info->static_cudart_markers |= GA_CUDART_SYM_STATIC;
		if (!memmem(tab, (size_t)str.size, "__cudaRegisterFatBinary", 23))
			continue;
		size_t entsz = e->is64 ? 24 : 16;
		uint64_t n = s.size / entsz;
		for (uint64_t k = 0; k < n; k++) {
			const uint8_t *p = e->buf + s.offset + k * entsz;
			uint32_t nm = rd32(e, p);
			uint16_t shndx = rd16(e, p + (e->is64 ? 6 : 14));
			if (shndx == SHN_UNDEF)
				continue;
			const char *sym = str_at(e, str.offset, str.size, nm);
			if (sym && !strcmp(sym, "__cudaRegisterFatBinary")) {
				info->static_cudart_markers |= GA_CUDART_SYM_REGISTER;
				break;
			}
		}
	}
}

static int scan_sections(struct dc_state *st, const struct elf *e)
{
	uint64_t budget = e->len;
	struct dc_scan *s = &st->s;
	struct shdr shstr;
	bool have_shstr = get_shdr(e, e->shstrndx, &shstr) && sect_range(e, &shstr);
	for (uint32_t i = 0; i < e->shnum && !s->err; i++) {
		struct shdr sh;
		if (!get_shdr(e, i, &sh) || sh.size == 0 || !sect_range(e, &sh))
			continue;
		const char *name = have_shstr ? sect_name(e, &shstr, &sh) : NULL;
		if (!name)
			name = "";
		if (!strcmp(name, ".nvFatBinSegment"))
			s->info->static_cudart_markers |= GA_CUDART_FATBIN_SEGMENT;
		bool offload = !strcmp(name, ".llvm.offloading");
		bool hip = !strcmp(name, ".hip_fatbin");
		bool bundle_sect = has_prefix(name, DC_BUNDLE_MAGIC);
		if (!offload && (sh.type != SHT_PROGBITS || (sh.flags & SHF_EXECINSTR) || skip_section(name)))
			continue;
		/* the name is copied when the section's first container is found */
		s->section = NULL;
		s->section_raw = name;
		/* sections do not overlap in real files: scanning more bytes than the
		 * file holds means overlapping (hostile) sections; stop there */
		if (sh.size > budget) {
			s->info->devcode_truncated = true;
			break;
		}
		budget -= sh.size;
		size_t a = (size_t)sh.offset, b = (size_t)(sh.offset + sh.size);
		int r;
		if (offload) {
			r = ga_dc_scan_offload(s, a, b);
		} else if (hip) {
			r = ga_dc_scan_bundles(s, a, b);
		} else if (bundle_sect) {
			/* clang-offload-bundler object output: one section per target, named after its id */
			struct ga_devcode_container *c = ga_dc_add_container(s, GA_DEVCODE_HIP_BUNDLE, a);
			struct ga_devcode_image *img = c ? ga_dc_add_image(s) : NULL;
			if (img) {
				const char *id = name + DC_BUNDLE_MAGIC_LEN;
				c->size = sh.size;
				img->offset = a;
				img->size = sh.size;
				img->bundle_id = ga_strdup(id);
				if (!img->bundle_id)
					s->err = -ENOMEM;
				else
					ga_dc_bundle_id_target(id, strlen(id), img);
			}
			r = s->err;
		} else {
			bool devsect = !strcmp(name, ".nv_fatbin") || !strcmp(name, "__nv_relfatbin");
			uint64_t scanned0 = s->info->bytes_scanned;
			size_t n0 = s->info->n_containers;
			/* library names are string literals: read-only data, never writable sections */
			r = ga_dc_scan_fatbins(s, a, b, !devsect && !(sh.flags & SHF_WRITE));
			ga_log(s->ctx, GA_LOG_DEBUG,
			       "section %s: %zu bytes, %zu fatbin containers, %llu bytes scanned", name,
			       b - a, s->info->n_containers - n0,
			       (unsigned long long)(s->info->bytes_scanned - scanned0));
		}
		if (r < 0)
			return r;
	}
	s->section = NULL;
	s->section_raw = NULL;
	return s->err;
}

/* ---- public -------------------------------------------------------------- */

/* Section names kept alive with the info: stored after the info in one block. */
struct info_block {
	struct ga_elf_info info;
	char **secnames;
	size_t n_secnames;
};

void ga_elf_info_free(struct ga_elf_info *info)
{
	if (!info)
		return;
	struct info_block *blk = (struct info_block *)info;
	ga_free(info->device_arch);
	ga_free(info->interp);
	ga_free(info->damage);
	ga_free(info->soname);
	ga_elf_strv_free(info->needed, info->n_needed);
	ga_free(info->rpath);
	ga_free(info->runpath);
	ga_elf_strv_free(info->dlopen_names, info->n_dlopen_names);
	for (size_t i = 0; i < info->n_note_dlopen; i++) {
		struct ga_note_dlopen *nd = &info->note_dlopen[i];
		ga_elf_strv_free(nd->sonames, nd->n_sonames);
		ga_free(nd->feature);
		ga_free(nd->description);
		ga_free(nd->priority);
		ga_free(nd->json);
	}
	ga_free(info->note_dlopen);
	/* only offload images carry ids: walk the containers, not the (much longer) image array */
	for (size_t c = 0; c < info->n_containers; c++) {
		const struct ga_devcode_container *ct = &info->containers[c];
		if (ct->format == GA_DEVCODE_CUDA_FATBIN)
			continue;
		for (size_t i = ct->first_image; i < info->n_images && i - ct->first_image < ct->n_images;
		     i++)
			ga_free(info->images[i].bundle_id);
	}
	ga_free(info->images);
	ga_free(info->containers);
	ga_elf_strv_free(blk->secnames, blk->n_secnames);
	ga_free(blk);
}

void ga_elf_strv_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		ga_free(v[i]);
	ga_free(v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void finish(struct ga_elf_info *info)
{
	if (info->n_dlopen_names > 1)
		qsort(info->dlopen_names, info->n_dlopen_names, sizeof(char *), cmp_str);
	info->x86_isa_level = isa_level(info->x86_isa_needed);
	unsigned m = info->static_cudart_markers;
	bool needs_cudart = false;
	for (size_t i = 0; i < info->n_needed; i++) {
		const struct ga_vendor_lib *l = ga_vendor_lib_find(info->needed[i], NULL);
		if (l && !strcmp(l->stem, "libcudart"))
			needs_cudart = true;
	}
	info->static_cudart =
	        (m & (GA_CUDART_SYM_STATIC | GA_CUDART_SYM_REGISTER)) ||
	        ((m & GA_CUDART_FATBIN_SEGMENT) && (m & GA_CUDART_LIBCUDA_STRING) && !needs_cudart);
}

/* A scan over the buffer only (fd -1: no pread) until ga_elf_inspect_fd says otherwise. */
static void scan_init(struct dc_state *st, struct ga_ctx *ctx, struct ga_elf_info *info, const uint8_t *buf,
                      size_t len, unsigned flags)
{
	memset(st, 0, sizeof(*st));
	st->s.ctx = ctx;
	st->s.info = info;
	st->s.buf = buf;
	st->s.len = len;
	st->s.flags = flags;
	st->s.fd = -1;
	st->s.simd = !(flags & GA_ELF_NO_DEVICE_CODE) && ga_dc_use_simd(ctx);
}

int ga_elf_inspect_fd(struct ga_ctx *ctx, int fd, const uint8_t *buf, size_t len, unsigned flags,
                      struct ga_elf_info **ret)
{
	return ga_elf_inspect_fd_at(ctx, fd, 0, buf, len, flags, ret);
}

int ga_elf_inspect_fd_at(struct ga_ctx *ctx, int fd, uint64_t base, const uint8_t *buf, size_t len,
                         unsigned flags, struct ga_elf_info **ret)
{
	struct info_block *blk = ga_calloc(1, sizeof(*blk));
	if (!blk)
		return ga_err(ctx, -ENOMEM, "out of memory");
	struct ga_elf_info *info = &blk->info;
	struct elf e = { .buf = buf, .len = len };
	struct dc_state st;
	scan_init(&st, ctx, info, buf, len, flags);
	int r = read_ehdr(ctx, &e, info);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	if (section_beyond_end(&e) &&
	    set_damage(ctx, &e, info, "truncated: section data beyond end of file") < 0)
		goto out;
	if (device_self(info) < 0)
		goto out;
	struct shdr shstr;
	bool have_shstr = get_shdr(&e, e.shstrndx, &shstr) && sect_range(&e, &shstr);
	if (read_dynamic(ctx, &e, info, have_shstr ? &shstr : NULL) < 0)
		goto out;
	if (read_all_notes(&e, info) < 0)
		goto out;
	if (!(flags & GA_ELF_NO_DEVICE_CODE)) {
		if (fd >= 0) {
			st.s.scratch = ga_dc_scratch_get();
			if (!st.s.scratch)
				goto out;
			st.s.fd = fd;
			st.s.fd_base = base;
			st.s.peek = st.s.scratch + SCRATCH_WIN;
		}
		st.secnames = &blk->secnames;
		st.n_secnames = &blk->n_secnames;
		if (scan_sections(&st, &e) < 0)
			goto out;
		scan_symbols(&e, info);
	}
	finish(info);
	*ret = info;
	info = NULL;
	r = 0;
out:
	if (r == -ENOMEM)
		ga_err(ctx, r, "out of memory inspecting ELF");
	ga_dc_scratch_put(st.s.scratch);
	ga_elf_info_free(info);
	return r;
}

int ga_elf_inspect(struct ga_ctx *ctx, const uint8_t *buf, size_t len, unsigned flags,
                   struct ga_elf_info **ret)
{
	return ga_elf_inspect_fd(ctx, -1, buf, len, flags, ret);
}

int ga_devcode_inspect_blob(struct ga_ctx *ctx, const uint8_t *buf, size_t len, unsigned flags,
                            struct ga_elf_info **ret)
{
	struct info_block *blk = ga_calloc(1, sizeof(*blk));
	if (!blk)
		return ga_err(ctx, -ENOMEM, "out of memory");
	struct ga_elf_info *info = &blk->info;
	int r = 0;
	if (!(flags & GA_ELF_NO_DEVICE_CODE) && len) {
		struct dc_state st;
		scan_init(&st, ctx, info, buf, len, flags);
		st.s.section = "";
		if (len >= 4 && dc_le32(buf) == DC_OFFLOAD_MAGIC)
			r = ga_dc_scan_offload(&st.s, 0, len);
		else if (len >= 4 &&
		         (!memcmp(buf, DC_CCOB_MAGIC, 4) ||
		          (len >= DC_BUNDLE_MAGIC_LEN && !memcmp(buf, DC_BUNDLE_MAGIC, DC_BUNDLE_MAGIC_LEN))))
			r = ga_dc_scan_bundles(&st.s, 0, len);
		else
			r = ga_dc_scan_fatbins(&st.s, 0, len, false);
	}
	if (r < 0) {
		ga_elf_info_free(info);
		return ga_err(ctx, r, "out of memory inspecting device code");
	}
	*ret = info;
	return 0;
}
