/*
 * elf.c - the bounded ELF reader behind ga_elf_inspect: identification,
 * dynamic section (as the loader sees it, through PT_DYNAMIC), notes (x86 ISA
 * level, .note.dlopen), static CUDA runtime markers, and the section scan
 * that finds device-code containers and library names in string data.
 *
 * Why not libelf: buffers here are read-only mmaps or archive members, and
 * libelf's elf_memory() takes a writable image that it may convert in place
 * (foreign byte order); it also allocates per section. The few structures
 * needed are read directly, both classes and both byte orders, with every
 * offset range-checked against the buffer (pax-utils style).
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
#define NT_GNU_PROPERTY_TYPE_0 5
#define GNU_PROPERTY_X86_ISA_1_NEEDED 0xc0008002u
#define NT_FDO_DLOPEN 0x407c0c0au
#define EM_CUDA 190
#define EM_AMDGPU 224
#define EM_INTELGT 205

#define MAX_PHDRS 4096
#define MAX_DYN 65536
#define MAX_NOTES 4096
#define MAX_DLOPEN_NAMES 256
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
	/* program headers: unusable ones are dropped, not fatal (a .o has none) */
	if (e->phnum && (e->phentsize < ph_min || e->phnum > MAX_PHDRS ||
	                 !dc_range_ok(e->phoff, (uint64_t)e->phnum * e->phentsize, e->len))) {
		ga_log(ctx, GA_LOG_DEBUG, "ELF program headers out of range: ignored");
		e->phnum = 0;
	}
	if (e->shoff == 0 || e->shentsize < sh_min) {
		e->shnum = 0;
		return 0;
	}
	if (!dc_range_ok(e->shoff, sh_min, e->len)) {
		ga_log(ctx, GA_LOG_DEBUG, "ELF section headers out of range: ignored");
		e->shnum = 0;
		return 0;
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
	if (e->shnum > GA_ELF_MAX_SECTIONS ||
	    !dc_range_ok(e->shoff, (uint64_t)e->shnum * e->shentsize, e->len)) {
		ga_log(ctx, GA_LOG_DEBUG, "ELF section headers out of range: ignored");
		e->shnum = 0;
	}
	return 0;
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
	if (!dc_range_ok(dyn_off, dyn_size, e->len)) {
		ga_log(ctx, GA_LOG_DEBUG, "dynamic section outside the file: ignored");
		return 0;
	}
	size_t entsz = e->is64 ? 16 : 8;
	uint64_t n = dyn_size / entsz;
	if (n > MAX_DYN)
		n = MAX_DYN;
	/* first pass: the string table */
	uint64_t strtab_va = 0, strsz = 0;
	bool have_strtab_va = false;
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
		}
	}
	if (have_strtab_va && vaddr_to_off(e, strtab_va, &str_off)) {
		str_size = strsz;
		if (!dc_range_ok(str_off, str_size, e->len))
			str_size = e->len - str_off;
		have_str = true;
	}
	if (!have_str && have_sect_str) {
		str_off = sect_str_off;
		str_size = sect_str_size;
		have_str = true;
	}
	if (!have_str) {
		ga_log(ctx, GA_LOG_DEBUG, "dynamic string table not found");
		return 0;
	}
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
	return 0;
}

/* ---- notes --------------------------------------------------------------- */

static int add_note_dlopen(struct ga_elf_info *info, const char *text, size_t len)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
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

/* ---- containers and images ----------------------------------------------- */

struct scan_state {
	struct dc_scan s;
	size_t cap_containers, cap_images;
	char ***secnames; /* where section names are kept (the info block) */
	size_t *n_secnames;
	/* names of the sections that held device code (owned, freed with the info) */
};

/*
 * Map the pages of a freshly grown array in one call: large arrays are new
 * anonymous mappings whose pages otherwise fault one by one as records are
 * appended (expensive in VMs). Advice only: failures are ignored.
 */
static void prefault(uint8_t *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t pg = 4096;
	if (n < (64u << 10))
		return;
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + n) & ~(pg - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

static bool grow(void **arr, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 16;
	if (nc > SIZE_MAX / elem)
		return false;
	void *p = ga_realloc(*arr, nc * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = nc;
	prefault((uint8_t *)p + n * elem, (nc - n) * elem);
	return true;
}

/* Keep a copy of a section's name for its containers (each section is visited once). */
static const char *intern_section(char ***names, size_t *n, const char *name)
{
	char *d = ga_strndup(name, strnlen(name, 256));
	char **slot = d ? ga_array_push((void **)names, n, sizeof(char *)) : NULL;
	if (!slot) {
		ga_free(d);
		return NULL;
	}
	*slot = d;
	return d;
}

struct ga_devcode_container *ga_dc_add_container(struct dc_scan *s, enum ga_devcode_format fmt, size_t off)
{
	struct scan_state *st = (struct scan_state *)s;
	struct ga_elf_info *info = s->info;
	if (s->err)
		return NULL;
	if (info->n_containers >= GA_DEVCODE_MAX_IMAGES) {
		info->devcode_truncated = true;
		return NULL;
	}
	if (!grow((void **)&info->containers, info->n_containers, &st->cap_containers,
	          sizeof(*info->containers))) {
		s->err = -ENOMEM;
		return NULL;
	}
	struct ga_devcode_container *c = &info->containers[info->n_containers++];
	memset(c, 0, sizeof(*c));
	c->format = fmt;
	if (!s->section && s->section_raw && st->secnames) {
		s->section = intern_section(st->secnames, st->n_secnames, s->section_raw);
		if (!s->section) {
			info->n_containers--;
			s->err = -ENOMEM;
			return NULL;
		}
	}
	c->section = s->section ? s->section : "";
	c->offset = off;
	c->first_image = (uint32_t)info->n_images;
	c->ids_known = true;
	info->n_by_format[fmt]++;
	return c;
}

struct ga_devcode_image *ga_dc_add_image(struct dc_scan *s)
{
	struct scan_state *st = (struct scan_state *)s;
	struct ga_elf_info *info = s->info;
	if (s->err || !info->n_containers)
		return NULL;
	if (info->n_images >= GA_DEVCODE_MAX_IMAGES) {
		info->devcode_truncated = true;
		return NULL;
	}
	if (!grow((void **)&info->images, info->n_images, &st->cap_images, sizeof(*info->images))) {
		s->err = -ENOMEM;
		return NULL;
	}
	struct ga_devcode_image *img = &info->images[info->n_images++];
	memset(img, 0, sizeof(*img));
	img->container = (uint32_t)(info->n_containers - 1);
	info->containers[info->n_containers - 1].n_images++;
	return img;
}

void ga_dc_drop_last_container(struct dc_scan *s)
{
	struct ga_elf_info *info = s->info;
	if (!info->n_containers)
		return;
	struct ga_devcode_container *c = &info->containers[info->n_containers - 1];
	while (info->n_images > c->first_image) {
		info->n_images--;
		ga_free(info->images[info->n_images].bundle_id);
	}
	info->n_by_format[c->format]--;
	info->n_containers--;
}

/* ---- library names in string data ---------------------------------------- */

static bool tokc(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.' || c == '+';
}

static int add_dlopen_name(struct ga_elf_info *info, const char *name, size_t n)
{
	for (size_t i = 0; i < info->n_dlopen_names; i++)
		if (strlen(info->dlopen_names[i]) == n && !memcmp(info->dlopen_names[i], name, n))
			return 0;
	if (info->n_dlopen_names >= MAX_DLOPEN_NAMES)
		return 0;
	char *d = ga_strndup(name, n);
	char **slot =
	        d ? ga_array_push((void **)&info->dlopen_names, &info->n_dlopen_names, sizeof(char *)) : NULL;
	if (!slot) {
		ga_free(d);
		return -ENOMEM;
	}
	*slot = d;
	return 0;
}

static inline uint8_t wb(const struct win *w, size_t off)
{
	return w->p[off - w->base];
}

/*
 * A ".so" at offset at: take the library name around it ("libcuda.so.1" in
 * "failed to load libcuda.so.1: %s"), tokens bounded by [lo, hi) (inside the
 * window), and keep it when the vendor table knows it.
 */
static int so_hit(struct dc_scan *s, const struct win *w, size_t lo, size_t at, size_t hi)
{
	if (lo < w->base)
		lo = w->base;
	if (hi > w->lim)
		hi = w->lim;
	/* extend left over token characters (bounded) */
	size_t st = at;
	while (st > lo && at - st < 128 && tokc(wb(w, st - 1)))
		st--;
	/* right: ".so" then ".<digits>" groups */
	size_t en = at + 3;
	while (en + 1 < hi && wb(w, en) == '.' && wb(w, en + 1) >= '0' && wb(w, en + 1) <= '9') {
		en++;
		while (en < hi && en - at < 32 && wb(w, en) >= '0' && wb(w, en) <= '9')
			en++;
	}
	if (en < hi && tokc(wb(w, en)) && wb(w, en) != '.')
		return 0; /* ".so" inside a longer word (".sort", ".som") */
	/* the name starts at the last "lib" before ".so" */
	size_t ls = SIZE_MAX;
	for (size_t q = st; q + 3 <= at; q++)
		if (wb(w, q) == 'l' && wb(w, q + 1) == 'i' && wb(w, q + 2) == 'b')
			ls = q;
	if (ls == SIZE_MAX || ls + 3 >= at)
		return 0;
	char name[192];
	size_t n = en - ls;
	if (n >= sizeof(name))
		return 0;
	memcpy(name, w->p + (ls - w->base), n);
	name[n] = '\0';
	/* the same name again (tables of strings repeat): nothing new to learn */
	if (n == s->last_name_len && !memcmp(s->last_name, name, n))
		return 0;
	memcpy(s->last_name, name, n + 1);
	s->last_name_len = n;
	if (!ga_vendor_lib_find(name, NULL))
		return 0;
	if (!strcmp(name, "libcuda.so.1"))
		s->info->static_cudart_markers |= GA_CUDART_LIBCUDA_STRING;
	return add_dlopen_name(s->info, name, n);
}

/* ---- section scan -------------------------------------------------------- */

/*
 * Candidates in the 16 bytes at p (p + 18 bytes readable): bit i (i = 0, 4,
 * 8, 12) of *magic for a fatbin magic at p + i, bit i of the result for a
 * ".so" starting at p + i. SSE2 where available (every x86-64), else scalar.
 */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline unsigned chunk_marks(const uint8_t *p, bool strings, unsigned *magic)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	unsigned mm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi32(v, _mm_set1_epi32((int)DC_FATBIN_MAGIC)));
	*magic = mm & 0x1111u;
	if (!strings)
		return 0;
	__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
	__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 2));
	__m128i d = _mm_cmpeq_epi8(v, _mm_set1_epi8('.'));
	__m128i t =
	        _mm_and_si128(_mm_cmpeq_epi8(v1, _mm_set1_epi8('s')), _mm_cmpeq_epi8(v2, _mm_set1_epi8('o')));
	return (unsigned)_mm_movemask_epi8(_mm_and_si128(d, t));
}
#else
static inline unsigned chunk_marks(const uint8_t *p, bool strings, unsigned *magic)
{
	*magic =
	        (dc_le32(p) == DC_FATBIN_MAGIC ? 1u : 0u) | (dc_le32(p + 8) == DC_FATBIN_MAGIC ? 0x100u : 0u);
	unsigned m = 0;
	if (strings)
		for (unsigned i = 0; i < 16; i++)
			if (p[i] == '.' && p[i + 1] == 's' && p[i + 2] == 'o')
				m |= 1u << i;
	return m;
}
#endif

/*
 * How many of the nb 64-byte blocks at p (p + 64 * nb + 2 bytes readable)
 * hold no candidate (chunk_marks), counted from the first.
 */
static size_t clean_blocks_base(const uint8_t *p, size_t nb, bool strings)
{
	size_t i;
	for (i = 0; i < nb; i++, p += 64) {
		unsigned m0, m1, m2, m3;
		unsigned a = chunk_marks(p, strings, &m0) | chunk_marks(p + 16, strings, &m1) |
		             chunk_marks(p + 32, strings, &m2) | chunk_marks(p + 48, strings, &m3);
		if (a | m0 | m1 | m2 | m3)
			break;
	}
	return i;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* The same test, 32 bytes a step (CPUs with AVX2; chosen at run time). */
__attribute__((target("avx2"))) static size_t clean_blocks_avx2(const uint8_t *p, size_t nb, bool strings)
{
	const __m256i mag = _mm256_set1_epi32((int)DC_FATBIN_MAGIC);
	const __m256i dot = _mm256_set1_epi8('.'), ess = _mm256_set1_epi8('s'), oh = _mm256_set1_epi8('o');
	size_t i;
	if (!strings) {
		for (i = 0; i < nb; i++, p += 64) {
			__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
			__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
			__m256i m = _mm256_or_si256(_mm256_cmpeq_epi32(a, mag), _mm256_cmpeq_epi32(b, mag));
			if (!_mm256_testz_si256(m, m))
				break;
		}
		return i;
	}
	for (i = 0; i < nb; i++, p += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
		__m256i m = _mm256_or_si256(_mm256_cmpeq_epi32(a, mag), _mm256_cmpeq_epi32(b, mag));
		__m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 1));
		__m256i a2 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 2));
		__m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 33));
		__m256i b2 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 34));
		__m256i ta = _mm256_and_si256(
		        _mm256_cmpeq_epi8(a, dot),
		        _mm256_and_si256(_mm256_cmpeq_epi8(a1, ess), _mm256_cmpeq_epi8(a2, oh)));
		__m256i tb = _mm256_and_si256(
		        _mm256_cmpeq_epi8(b, dot),
		        _mm256_and_si256(_mm256_cmpeq_epi8(b1, ess), _mm256_cmpeq_epi8(b2, oh)));
		m = _mm256_or_si256(m, _mm256_or_si256(ta, tb));
		if (!_mm256_testz_si256(m, m))
			break;
	}
	return i;
}

static bool cpu_avx2(void)
{
	/* 0: not probed yet, 1: no, 2: yes (a benign race: every thread stores the same) */
	static int have;
	int k = __atomic_load_n(&have, __ATOMIC_RELAXED);
	if (!k) {
		__builtin_cpu_init();
		k = __builtin_cpu_supports("avx2") ? 2 : 1;
		__atomic_store_n(&have, k, __ATOMIC_RELAXED);
	}
	return k == 2;
}

/* AVX2 when the CPU has it, unless GA_ELFSCAN_NO_SIMD is set (tests compare both paths). */
static bool use_avx2(void)
{
	return cpu_avx2() && !getenv("GA_ELFSCAN_NO_SIMD");
}

static size_t clean_blocks(const struct dc_scan *s, const uint8_t *p, size_t nb, bool strings)
{
	return s->simd ? clean_blocks_avx2(p, nb, strings) : clean_blocks_base(p, nb, strings);
}
#else
static bool use_avx2(void)
{
	return false;
}

static size_t clean_blocks(const struct dc_scan *s, const uint8_t *p, size_t nb, bool strings)
{
	(void)s;
	return clean_blocks_base(p, nb, strings);
}
#endif

#define WIN_BYTES (256u << 10) /* largest pread window */
#define WIN_MIN (32u << 10)    /* first window of a section, and after a container ran past one */
#define PEEK_BYTES 4096u
#define DENSE_BYTES (64u << 10) /* a header this close after the window: move the window */
#define WIN_BEFORE 256          /* context kept before a window (names straddling it) */
#define WIN_AFTER 64            /* and after */

/*
 * Make w cover at least [q - WIN_BEFORE, min(q + ahead + WIN_AFTER, end))
 * clipped to [start, end) (ahead <= WIN_BYTES). Without an fd the mapping
 * covers everything.
 */
static int fill_window(struct dc_scan *s, struct win *w, size_t start, size_t q, size_t end, size_t ahead)
{
	if (s->fd < 0 || !s->scratch) {
		w->p = s->buf;
		w->base = 0;
		w->lim = end;
		return 0;
	}
	size_t lo = q - start > WIN_BEFORE ? q - WIN_BEFORE : start;
	size_t hi = end - q > ahead + WIN_AFTER ? q + ahead + WIN_AFTER : end;
	size_t n = hi - lo, got = 0;
	while (got < n) {
		ssize_t r = pread(s->fd, s->scratch + got, n - got, (off_t)(lo + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* the file changed under us, or cannot be read: use the mapping */
			s->fd = -1;
			return fill_window(s, w, start, q, end, ahead);
		}
		got += (size_t)r;
	}
	w->p = s->scratch;
	w->base = lo;
	w->lim = hi;
	return 0;
}

const uint8_t *ga_dc_peek(struct dc_scan *s, size_t off, size_t n, uint8_t tmp[64])
{
	if (s->fd < 0 || !s->peek)
		return s->buf + off;
	if (off >= s->w.base && off < s->w.lim && n <= s->w.lim - off)
		return s->w.p + (off - s->w.base);
	if (off >= s->peek_base && off < s->peek_lim && n <= s->peek_lim - off)
		return s->peek + (off - s->peek_base);
	/* a dense chain (containers of a few KiB, as in cuFFT): move the scan window along */
	if (s->w.lim && off >= s->w.lim && off - s->w.lim < DENSE_BYTES && off < s->region_end &&
	    n <= s->region_end - off) {
		fill_window(s, &s->w, off, off, s->region_end, WIN_BYTES);
		return ga_dc_peek(s, off, n, tmp);
	}
	/* read ahead: a container header and its first entry header in one call */
	size_t want = s->len - off < PEEK_BYTES ? s->len - off : PEEK_BYTES;
	if (want < n)
		want = n;
	size_t got = 0;
	while (got < want) {
		ssize_t r = pread(s->fd, s->peek + got, want - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	(void)tmp;
	if (got < n)
		return NULL;
	s->peek_base = off;
	s->peek_lim = off + got;
	return s->peek;
}

#define CHAIN_SLACK 64u

/*
 * A chain of containers that ended at next (no container starts there): the
 * offset of a container magic a few bytes further, when the bytes before it
 * hold nothing the scan looks at (no magic at next, no ".so"), else 0. The
 * scan then reads no window for a few bytes of padding (.cask_resource keeps
 * 8 bytes between its containers). next is 4-aligned from the section start.
 */
static size_t chain_slack(struct dc_scan *s, size_t next, size_t end, bool strings)
{
	uint8_t tmp[64];
	if (next >= end || end - next < 8)
		return 0;
	size_t n = end - next < CHAIN_SLACK ? end - next : CHAIN_SLACK;
	const uint8_t *b = ga_dc_peek(s, next, n, tmp);
	if (!b || dc_le32(b) == DC_FATBIN_MAGIC)
		return 0;
	for (size_t k = 4; k + 4 <= n; k += 4) {
		for (size_t j = k - 4; strings && j < k; j++)
			if (b[j] == '.' && b[j + 1] == 's' && b[j + 2] == 'o')
				return 0;
		if (dc_le32(b + k) == DC_FATBIN_MAGIC)
			return next + k;
	}
	return 0;
}

/*
 * One pass over [start, end): fatbin containers at 4-byte steps from the
 * section start (containers are 8-aligned in the file, but cuFFT's .ldata
 * starts at 4 mod 8, and sections added by objcopy may start anywhere),
 * their payloads skipped, never read; and when strings is set,
 * library names in the bytes between containers.
 */
static int scan_fatbins(struct dc_scan *s, size_t start, size_t end, bool strings)
{
	struct ga_elf_info *info = s->info;
	size_t gap = start; /* start of the bytes not inside a container */
	size_t q = start;   /* 4-byte steps from the section start */
	int r = 0;
	struct win *w = &s->w;
	memset(w, 0, sizeof(*w));
	s->region_end = end;
	s->win_next = WIN_MIN;
	while (r == 0 && !s->err && q < end) {
		if (q < w->base || q >= w->lim || (w->lim < end && q + 66 > w->lim)) {
			/*
			 * Windows grow while they hold no container: a container that
			 * runs past its window means the bytes after its header were
			 * read for nothing, so the next window starts small again
			 * (.cask_resource: containers of ~200 KiB between gaps).
			 */
			fill_window(s, w, start, q, end, s->win_next);
			s->win_next = s->win_next >= WIN_BYTES / 2 ? WIN_BYTES : s->win_next * 2;
		}
		size_t stop = w->lim < end ? w->lim - WIN_AFTER : end; /* where this window's scan ends */
		unsigned magic = 0, so = 0;
		/* fast path: 64-byte blocks with nothing in them (each block reads 66 bytes) */
		if (q + 66 <= w->lim && q < stop) {
			size_t nb = (w->lim - 66 - q) / 64 + 1, ns = (stop - q + 63) / 64;
			q += 64 * clean_blocks(s, w->p + (q - w->base), nb < ns ? nb : ns, strings);
		}
		if (q >= stop && w->lim < end)
			continue; /* next window */
		if (q >= end)
			break;
		if (q + 18 <= w->lim) {
			so = chunk_marks(w->p + (q - w->base), strings, &magic);
		} else if (w->lim < end) {
			continue; /* next window */
		} else {
			/* tail of the region: scalar */
			for (size_t i = q; i < end && i - q < 16; i++) {
				if (strings && i + 3 <= end && wb(w, i) == '.' && wb(w, i + 1) == 's' &&
				    wb(w, i + 2) == 'o')
					so |= 1u << (i - q);
				if ((i - q) % 4 == 0 && i + 4 <= end &&
				    dc_le32(w->p + (i - w->base)) == DC_FATBIN_MAGIC)
					magic |= 1u << (i - q);
			}
		}
		if (!(magic | so)) {
			q += 16;
			continue;
		}
		size_t next = q + 16;
		for (unsigned i = 0; i < 16 && r == 0; i++) {
			if (magic & (1u << i)) {
				/* container headers are read with ga_dc_peek: only their bytes are touched */
				size_t wbase = w->base, wlim = w->lim;
				uint64_t used = ga_dc_fatbin(s, q + i, end);
				if (!used && (w->base != wbase || w->lim != wlim)) {
					/* a failed container moved the window: rescan after its magic */
					next = q + i + 4;
					break;
				}
				if (used) {
					info->bytes_scanned += q + i - gap;
					info->bytes_skipped += used;
					gap = (size_t)(q + i + used);
					next = start + ((gap - start + 3) & ~(size_t)3);
					/* walk the chain: containers usually follow each other */
					for (;;) {
						while (next + 16 <= end &&
						       (used = ga_dc_fatbin(s, next, end)) != 0) {
							info->bytes_scanned += next - gap;
							info->bytes_skipped += used;
							gap = (size_t)(next + used);
							next = start + ((gap - start + 3) & ~(size_t)3);
						}
						size_t at = chain_slack(s, next, end, strings);
						if (!at)
							break;
						if (!(used = ga_dc_fatbin(s, at, end))) {
							next = at +
							       4; /* counted as bad once, as the scan would */
							break;
						}
						info->bytes_scanned += at - gap;
						info->bytes_skipped += used;
						gap = (size_t)(at + used);
						next = start + ((gap - start + 3) & ~(size_t)3);
					}
					if (gap > w->lim)
						s->win_next = WIN_MIN;
					break;
				}
			}
			if (so & (1u << i))
				r = so_hit(s, w, start, q + i, end);
		}
		q = next;
	}
	if (gap < end)
		info->bytes_scanned += end - gap;
	memset(w, 0, sizeof(*w));
	return r < 0 ? r : s->err;
}

/* HIP bundles (plain and CCOB) anywhere in [start, end). */
static int scan_bundles(struct dc_scan *s, size_t start, size_t end)
{
	const uint8_t *buf = s->buf;
	size_t p = start;
	while (p + 4 <= end && !s->err) {
		const uint8_t *b = memmem(buf + p, end - p, DC_BUNDLE_MAGIC, DC_BUNDLE_MAGIC_LEN);
		const uint8_t *c = memmem(buf + p, end - p, DC_CCOB_MAGIC, 4);
		if (!b && !c)
			break;
		size_t at = (size_t)((b && (!c || b < c)) ? b - buf : c - buf);
		uint64_t used =
		        (b && at == (size_t)(b - buf)) ? ga_dc_bundle(s, at, end) : ga_dc_ccob(s, at, end);
		if (used) {
			s->info->bytes_skipped += used;
			p = at + (size_t)used;
		} else {
			p = at + 1;
		}
	}
	return s->err;
}

static int scan_offload(struct dc_scan *s, size_t start, size_t end)
{
	const uint8_t *buf = s->buf;
	static const uint8_t magic[4] = { 0x10, 0xFF, 0x10, 0xAD };
	size_t p = start;
	while (p + 4 <= end && !s->err) {
		const uint8_t *m = memmem(buf + p, end - p, magic, 4);
		if (!m)
			break;
		size_t at = (size_t)(m - buf);
		uint64_t used = ga_dc_offload(s, at, end);
		if (used) {
			s->info->bytes_skipped += used;
			p = at + (size_t)used;
		} else {
			p = at + 1;
		}
	}
	return s->err;
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Sections that never hold device code or library-name strings. */
static bool skip_section(const char *name)
{
	static const char *const prefixes[] = {
		".debug",
		".zdebug",
		".eh_frame",
		".gcc_except_table",
		".comment",
		".got",
		".plt",
		".note",
		".stapsdt",
		".gnu",
		".rel",
		".interp",
		".init",
		".fini",
		".ctors",
		".dtors",
		".jcr",
		".tdata",
		".dynamic",
		".nvFatBinSegment",
		".hipFatBinSegment",
		".symtab",
		".strtab",
		".shstrtab",
		".dynsym",
		".dynstr",
		".hash",
		".data.rel.ro",
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

static int scan_sections(struct scan_state *st, const struct elf *e)
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
			r = scan_offload(s, a, b);
		} else if (hip) {
			r = scan_bundles(s, a, b);
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
			r = scan_fatbins(s, a, b, !devsect && !(sh.flags & SHF_WRITE));
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

/*
 * The pread buffer (window + read-ahead) is kept per thread between calls: a
 * fresh one is a fresh mapping, and the first touch of each of its pages is a
 * page fault, which costs tens of microseconds in VMs (65 faults a file).
 */
#define SCRATCH_WIN (WIN_BYTES + WIN_BEFORE + WIN_AFTER)
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static bool scratch_key_ok;

static void scratch_dtor(void *p)
{
	ga_free(p);
}

static void scratch_key_init(void)
{
	scratch_key_ok = pthread_key_create(&scratch_key, scratch_dtor) == 0;
}

static uint8_t *scratch_get(void)
{
	pthread_once(&scratch_once, scratch_key_init);
	uint8_t *p = scratch_key_ok ? pthread_getspecific(scratch_key) : NULL;
	if (p) {
		pthread_setspecific(scratch_key, NULL);
		return p;
	}
	return ga_malloc(SCRATCH_WIN + PEEK_BYTES);
}

static void scratch_put(uint8_t *p)
{
	if (!p)
		return;
	if (scratch_key_ok && !pthread_getspecific(scratch_key) && pthread_setspecific(scratch_key, p) == 0)
		return;
	ga_free(p);
}

/* A scan over the buffer only (fd -1: no pread) until ga_elf_inspect_fd says otherwise. */
static void scan_init(struct scan_state *st, struct ga_ctx *ctx, struct ga_elf_info *info, const uint8_t *buf,
                      size_t len, unsigned flags)
{
	memset(st, 0, sizeof(*st));
	st->s.ctx = ctx;
	st->s.info = info;
	st->s.buf = buf;
	st->s.len = len;
	st->s.flags = flags;
	st->s.fd = -1;
	st->s.simd = !(flags & GA_ELF_NO_DEVICE_CODE) && use_avx2();
}

int ga_elf_inspect_fd(struct ga_ctx *ctx, int fd, const uint8_t *buf, size_t len, unsigned flags,
                      struct ga_elf_info **ret)
{
	struct info_block *blk = ga_calloc(1, sizeof(*blk));
	if (!blk)
		return ga_err(ctx, -ENOMEM, "out of memory");
	struct ga_elf_info *info = &blk->info;
	struct elf e = { .buf = buf, .len = len };
	struct scan_state st;
	scan_init(&st, ctx, info, buf, len, flags);
	int r = read_ehdr(ctx, &e, info);
	if (r < 0)
		goto out;
	r = -ENOMEM;
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
			st.s.scratch = scratch_get();
			if (!st.s.scratch)
				goto out;
			st.s.fd = fd;
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
	scratch_put(st.s.scratch);
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
		struct scan_state st;
		scan_init(&st, ctx, info, buf, len, flags);
		st.s.section = "";
		if (len >= 4 && dc_le32(buf) == DC_OFFLOAD_MAGIC)
			r = scan_offload(&st.s, 0, len);
		else if (len >= 4 &&
		         (!memcmp(buf, DC_CCOB_MAGIC, 4) ||
		          (len >= DC_BUNDLE_MAGIC_LEN && !memcmp(buf, DC_BUNDLE_MAGIC, DC_BUNDLE_MAGIC_LEN))))
			r = scan_bundles(&st.s, 0, len);
		else
			r = scan_fatbins(&st.s, 0, len, false);
	}
	if (r < 0) {
		ga_elf_info_free(info);
		return ga_err(ctx, r, "out of memory inspecting device code");
	}
	*ret = info;
	return 0;
}

/* ---- $ORIGIN ------------------------------------------------------------- */

static bool idc(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Replace $NAME / ${NAME} at s (s[0] == '$'); returns chars consumed, 0 if no match. */
static size_t dst_token(const char *s, size_t n, const char *name, const char *val, struct ga_buf *out,
                        int *r)
{
	size_t nl = strlen(name);
	size_t used = 0;
	if (n >= nl + 3 && s[1] == '{' && !strncmp(s + 2, name, nl) && s[2 + nl] == '}')
		used = nl + 3;
	else if (n >= nl + 1 && !strncmp(s + 1, name, nl) && (n == nl + 1 || !idc(s[1 + nl])))
		used = nl + 1;
	if (used)
		*r = ga_buf_adds(out, val);
	return used;
}

/* Lexical normalisation of a path in place ("a/./b/../c" -> "a/c"). */
static void normalize(char *p)
{
	bool abs = p[0] == '/';
	char *comp[256];
	size_t nc = 0;
	char *save = NULL;
	size_t len = strlen(p);
	char *tmp = ga_strndup(p, len);
	if (!tmp)
		return;
	for (char *t = strtok_r(tmp, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..")) {
			if (nc && strcmp(comp[nc - 1], ".."))
				nc--;
			else if (!abs && nc < GA_ARRAY_SIZE(comp))
				comp[nc++] = t;
			continue;
		}
		if (nc < GA_ARRAY_SIZE(comp))
			comp[nc++] = t;
	}
	size_t o = 0;
	if (abs)
		p[o++] = '/';
	for (size_t i = 0; i < nc; i++) {
		size_t cl = strlen(comp[i]);
		if (i)
			p[o++] = '/';
		memcpy(p + o, comp[i], cl); /* never longer than the input */
		o += cl;
	}
	if (o == 0)
		p[o++] = '.';
	p[o] = '\0';
	ga_free(tmp);
}

int ga_elf_expand_origin(const char *path_list, const char *origin_dir, const char *lib_dir,
                         const char *platform, char ***ret_dirs, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0;
	int r = 0;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (!lib_dir)
		lib_dir = "lib/x86_64-linux-gnu";
	if (!platform)
		platform = "x86_64";
	if (!origin_dir || !*origin_dir)
		origin_dir = ".";
	const char *p = path_list ? path_list : "";
	while (*p || p == path_list) {
		const char *e = strchr(p, ':');
		size_t el = e ? (size_t)(e - p) : strlen(p);
		ga_buf_reset(&b);
		for (size_t i = 0; i < el && r == 0;) {
			size_t used = 0;
			if (p[i] == '$') {
				used = dst_token(p + i, el - i, "ORIGIN", origin_dir, &b, &r);
				if (!used)
					used = dst_token(p + i, el - i, "LIB", lib_dir, &b, &r);
				if (!used)
					used = dst_token(p + i, el - i, "PLATFORM", platform, &b, &r);
			}
			if (!used) {
				r = ga_buf_addc(&b, p[i]);
				used = 1;
			}
			i += used;
		}
		if (r < 0)
			goto out;
		if (b.len) {
			normalize(b.data);
			char *d = ga_strdup(b.data);
			char **slot = d ? ga_array_push((void **)&v, &n, sizeof(char *)) : NULL;
			if (!slot) {
				ga_free(d);
				r = -ENOMEM;
				goto out;
			}
			*slot = d;
		}
		if (!e)
			break;
		p = e + 1;
	}
	*ret_dirs = v;
	*ret_n = n;
	v = NULL;
	n = 0;
out:
	ga_buf_release(&b);
	ga_elf_strv_free(v, n);
	return r;
}
