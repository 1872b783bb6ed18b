/*
 * symver.c - symbol version names (.gnu.version_r, "GLIBC_2.34",
 * "GLIBCXX_3.4.32"): which family a needed version belongs to, the highest
 * one per family kept in the ga_elf_info, and the dotted comparison the
 * verdicts use. elf.c walks the Verneed / Vernaux chains and hands each name
 * here; keeping the naming rules apart keeps them testable without an ELF.
 */
#include <string.h>

#include "gpuaudit/elfscan.h"

int ga_symver_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = 0, y = 0;
		while (*a >= '0' && *a <= '9')
			x = x * 10 + (unsigned long)(*a++ - '0');
		while (*b >= '0' && *b <= '9')
			y = y * 10 + (unsigned long)(*b++ - '0');
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		else if (*a)
			return 0; /* not dotted digits: not comparable, call them equal */
		if (*b == '.')
			b++;
		else if (*b)
			return 0;
	}
	return 0;
}

/* "2.34", "3.4.32": digits and single dots, starting and ending with a digit. */
static bool dotted(const char *s)
{
	if (!(*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++) {
		if (*s == '.' && !(s[1] >= '0' && s[1] <= '9'))
			return false;
		if (*s != '.' && !(*s >= '0' && *s <= '9'))
			return false;
	}
	return true;
}

void ga_symver_note(struct ga_elf_info *info, const char *name)
{
	static const struct {
		const char *prefix;
		size_t off;
	} fam[] = {
		{ "GLIBC_", offsetof(struct ga_elf_info, glibc_needed) },
		{ "GLIBCXX_", offsetof(struct ga_elf_info, glibcxx_needed) },
		{ "CXXABI_", offsetof(struct ga_elf_info, cxxabi_needed) },
		{ "GCC_", offsetof(struct ga_elf_info, gcc_needed) },
	};
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		size_t n = strlen(fam[i].prefix);
		if (strncmp(name, fam[i].prefix, n))
			continue;
		const char *v = name + n;
		/* GLIBC_PRIVATE, GLIBC_ABI_DT_RELR, CXXABI_TM_1: not a release */
		if (!dotted(v) || strlen(v) >= GA_SYMVER_LEN)
			return;
		char *slot = (char *)info + fam[i].off;
		if (!slot[0] || ga_symver_cmp(v, slot) > 0)
			memcpy(slot, v, strlen(v) + 1);
		return;
	}
}
