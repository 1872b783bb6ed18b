/*
 * deps-symver.c - will the loader accept the symbol versions a file needs:
 * GLIBC_ / GLIBCXX_ versions (lib/deps/symver.c reads them from
 * .gnu.version_r) against the target's glibc and libstdc++
 * (GA-DEPS-SYMBOL-VERSION), and against the manylinux level a wheel's file
 * name claims (GA-DEPS-MANYLINUX-TAG: PEP 600 manylinux_X_Y, and the legacy
 * aliases manylinux1 = 2.5, manylinux2010 = 2.12, manylinux2014 = 2.17).
 * Pure: the inventory and the target only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"

/* One platform tag ("manylinux_2_28_x86_64", "manylinux2014_aarch64"): its glibc into out, or false. */
static bool manylinux_tag(const char *tag, size_t len, char *out, size_t outlen)
{
	static const struct {
		const char *alias, *glibc;
	} legacy[] = { { "manylinux1_", "2.5" }, { "manylinux2010_", "2.12" }, { "manylinux2014_", "2.17" } };
	for (size_t i = 0; i < GA_ARRAY_SIZE(legacy); i++) {
		size_t n = strlen(legacy[i].alias);
		if (len > n && !strncmp(tag, legacy[i].alias, n)) {
			snprintf(out, outlen, "%s", legacy[i].glibc);
			return true;
		}
	}
	if (len <= 10 || strncmp(tag, "manylinux_", 10))
		return false;
	const char *p = tag + 10, *end = tag + len;
	char *e;
	long maj = strtol(p, &e, 10);
	if (e == p || e >= end || *e != '_' || maj <= 0 || maj > 99)
		return false;
	p = e + 1;
	long min = strtol(p, &e, 10);
	if (e == p || e >= end || *e != '_' || min < 0 || min > 999)
		return false;
	snprintf(out, outlen, "%ld.%ld", maj, min);
	return true;
}

int ga_deps_manylinux_glibc(const char *wheel, char *out, size_t outlen)
{
	const char *base = wheel;
	for (const char *p = wheel; *p; p++)
		if (*p == '/' || *p == '!')
			base = p + 1;
	size_t n = strlen(base);
	if (n < 5 || strcmp(base + n - 4, ".whl"))
		return 0;
	n -= 4;
	const char *plat = NULL;
	for (size_t i = 0; i < n; i++)
		if (base[i] == '-')
			plat = base + i + 1;
	if (!plat)
		return 0;
	const char *end = base + n;
	bool found = false;
	char best[GA_SYMVER_LEN] = "", v[GA_SYMVER_LEN];
	/* a compressed tag set ("manylinux_2_17_x86_64.manylinux2014_x86_64"): installers
	 * take the wheel on any of them, so the lowest level is the claim */
	for (const char *t = plat; t < end;) {
		const char *dot = memchr(t, '.', (size_t)(end - t));
		size_t tl = dot ? (size_t)(dot - t) : (size_t)(end - t);
		if (manylinux_tag(t, tl, v, sizeof(v)) && (!found || ga_symver_cmp(v, best) < 0)) {
			memcpy(best, v, sizeof(best));
			found = true;
		}
		t += tl + (dot ? 1 : 0);
	}
	if (found)
		snprintf(out, outlen, "%s", best);
	return found;
}

static int too_old(const struct ga_deps_file *f, const char *code, const char *prefix, const char *needed,
                   const char *have, const char *what, const char *fix, struct ga_findings *out)
{
	struct ga_finding *fd = ga_findings_add(
	        out, code, GA_SEV_ERROR, f->path, fix,
	        "needs %s%s but %s %s: the loader stops with \"version `%s%s' not found (required by %s)\"",
	        prefix, needed, what, have, prefix, needed, f->path);
	if (!fd)
		return -ENOMEM;
	return ga_finding_evidence(fd, "needed", "%s%s", prefix, needed) < 0 ? -ENOMEM : 0;
}

int ga_deps_judge_symver(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *out)
{
	int r = 0;
	for (size_t i = 0; i < inv->n_files && r == 0; i++) {
		const struct ga_deps_file *f = &inv->files[i];
		const struct ga_elf_info *e = f->elf;
		if (!e)
			continue;
		if (t && t->glibc[0] && e->glibc_needed[0] && ga_symver_cmp(e->glibc_needed, t->glibc) > 0)
			r = too_old(f, "GA-DEPS-SYMBOL-VERSION", "GLIBC_", e->glibc_needed, t->glibc,
			            "the target's glibc is",
			            "build on (or for) the oldest glibc of the fleet (a manylinux image, "
			            "an older distribution), or upgrade the node",
			            out);
		if (r == 0 && t && t->libstdcxx[0] && e->glibcxx_needed[0] &&
		    ga_symver_cmp(e->glibcxx_needed, t->libstdcxx) > 0)
			r = too_old(f, "GA-DEPS-SYMBOL-VERSION", "GLIBCXX_", e->glibcxx_needed, t->libstdcxx,
			            "the target's libstdc++ has GLIBCXX_",
			            "build with the fleet's oldest GCC, link libstdc++ statically, or ship "
			            "the libstdc++ it was built with",
			            out);
		char tag[GA_SYMVER_LEN];
		if (r == 0 && e->glibc_needed[0] && f->tree < inv->n_trees && inv->trees[f->tree].kind &&
		    !strcmp(inv->trees[f->tree].kind, "wheel") && inv->trees[f->tree].name &&
		    ga_deps_manylinux_glibc(inv->trees[f->tree].name, tag, sizeof(tag)) &&
		    ga_symver_cmp(e->glibc_needed, tag) > 0)
			r = too_old(f, "GA-DEPS-MANYLINUX-TAG", "GLIBC_", e->glibc_needed, tag,
			            "the wheel's manylinux tag promises glibc",
			            "tag the wheel for the glibc it needs (auditwheel repair / show), or "
			            "build it in the manylinux image of its tag",
			            out);
	}
	return r;
}
