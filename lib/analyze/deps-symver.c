/*
 * deps-symver.c - will the loader accept the symbol versions a file needs:
 * GLIBC_ / GLIBCXX_ versions (lib/deps/symver.c reads them from
 * .gnu.version_r) against the target's glibc and libstdc++
 * (GA-DEPS-SYMBOL-VERSION), and against the platform tag a wheel's file name
 * claims: a manylinux level (PEP 600 manylinux_X_Y, the legacy aliases
 * manylinux1 = 2.5, manylinux2010 = 2.12, manylinux2014 = 2.17) caps GLIBC_
 * at X.Y and GLIBCXX_ / CXXABI_ / GCC_ at what that level's reference
 * distribution ships (GA-DEPS-MANYLINUX-TAG); a musllinux tag (PEP 656) means
 * musl, which has no GLIBC_ versions at all (GA-DEPS-MUSLLINUX-TAG).
 * Pure: the inventory and the target only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "deps_int.h"

/*
 * The highest GLIBCXX_, CXXABI_ and GCC_ version each manylinux level allows,
 * per architecture: the largest dotted entry of each family in auditwheel's
 * policy (src/auditwheel/policy/manylinux-policy.json, pypa/auditwheel
 * commit 86154d1, 2026-08; PEP 599 lists the manylinux2014 set: GLIBCXX_3.4.19,
 * CXXABI_1.3.7, GCC_4.8.0 on x86_64). aarch64 differs in GCC_ (and at 2_26);
 * other architectures take the x86_64 row. A level between two rows takes the
 * lower one (the libraries a 2_30 distribution ships are at least 2_28's).
 */
static const struct ml_level {
	const char *glibc;
	const char *cxx[3]; /* x86_64: GLIBCXX, CXXABI, GCC */
	const char *a64[3]; /* aarch64 */
} ml_levels[] = {
	{ "2.5", { "3.4.8", "1.3.1", "4.2.0" }, { "3.4.8", "1.3.1", "4.2.0" } },
	{ "2.12", { "3.4.13", "1.3.3", "4.3.0" }, { "3.4.13", "1.3.3", "4.3.0" } },
	{ "2.17", { "3.4.19", "1.3.7", "4.8.0" }, { "3.4.19", "1.3.7", "4.7.0" } },
	{ "2.24", { "3.4.22", "1.3.10", "4.8.0" }, { "3.4.22", "1.3.10", "4.7.0" } },
	{ "2.26", { "3.4.22", "1.3.10", "4.8.0" }, { "3.4.24", "1.3.11", "7.0.0" } },
	{ "2.27", { "3.4.24", "1.3.11", "7.0.0" }, { "3.4.24", "1.3.11", "7.0.0" } },
	{ "2.28", { "3.4.24", "1.3.11", "7.0.0" }, { "3.4.24", "1.3.11", "7.0.0" } },
	{ "2.31", { "3.4.28", "1.3.12", "7.0.0" }, { "3.4.28", "1.3.12", "7.0.0" } },
	{ "2.34", { "3.4.29", "1.3.13", "7.0.0" }, { "3.4.29", "1.3.13", "11.0" } },
	{ "2.35", { "3.4.30", "1.3.13", "12.0.0" }, { "3.4.30", "1.3.13", "11.0" } },
	{ "2.38", { "3.4.30", "1.3.13", "12.0.0" }, { "3.4.30", "1.3.13", "11.0" } },
	{ "2.39", { "3.4.33", "1.3.15", "14.0.0" }, { "3.4.33", "1.3.15", "14.0.0" } },
};

/* The policy row for a glibc level (the highest row at or below it), or NULL below 2.5. */
static const struct ml_level *ml_level_for(const char *glibc)
{
	const struct ml_level *best = NULL;
	for (size_t i = 0; i < GA_ARRAY_SIZE(ml_levels); i++)
		if (ga_symver_cmp(ml_levels[i].glibc, glibc) <= 0)
			best = &ml_levels[i];
	return best;
}

const char *ga_deps_manylinux_cxx_limit(const char *glibc, bool aarch64, int family)
{
	const struct ml_level *l = glibc ? ml_level_for(glibc) : NULL;
	if (!l || family < 0 || family > 2)
		return NULL;
	return aarch64 ? l->a64[family] : l->cxx[family];
}

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

/* "musllinux_1_2_x86_64" (PEP 656): true. */
static bool musllinux_tag(const char *tag, size_t len)
{
	if (len <= 10 || strncmp(tag, "musllinux_", 10))
		return false;
	const char *p = tag + 10;
	return *p >= '0' && *p <= '9';
}

static bool tag_aarch64(const char *wheel)
{
	return wheel && strstr(wheel, "_aarch64") != NULL;
}

/* The platform tags of a wheel's file name: [*ret_plat, *ret_end), or false when it is not a wheel. */
static bool wheel_platform(const char *wheel, const char **ret_plat, const char **ret_end)
{
	const char *base = wheel;
	for (const char *p = wheel; *p; p++)
		if (*p == '/' || *p == '!')
			base = p + 1;
	size_t n = strlen(base);
	if (n < 5 || strcmp(base + n - 4, ".whl"))
		return false;
	n -= 4;
	const char *plat = NULL;
	for (size_t i = 0; i < n; i++)
		if (base[i] == '-')
			plat = base + i + 1;
	if (!plat)
		return false;
	*ret_plat = plat;
	*ret_end = base + n;
	return true;
}

bool ga_deps_musllinux_wheel(const char *wheel)
{
	const char *plat, *end;
	if (!wheel_platform(wheel, &plat, &end))
		return false;
	for (const char *t = plat; t < end;) {
		const char *dot = memchr(t, '.', (size_t)(end - t));
		size_t tl = dot ? (size_t)(dot - t) : (size_t)(end - t);
		if (musllinux_tag(t, tl))
			return true;
		t += tl + (dot ? 1 : 0);
	}
	return false;
}

int ga_deps_manylinux_glibc(const char *wheel, char *out, size_t outlen)
{
	const char *plat, *end;
	if (!wheel_platform(wheel, &plat, &end))
		return 0;
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

int ga_deps_tag_target(const char *tok, struct ga_deps_target *t)
{
	size_t n = strlen(tok);
	if (!strcmp(tok, "musl") || !strncmp(tok, "musl:", 5) || !strncmp(tok, "musl=", 5) ||
	    musllinux_tag(tok, n)) {
		t->musl = true;
		t->glibc[0] = '\0';
		return 1;
	}
	/* "manylinux_2_28" without the architecture: as "manylinux_2_28_x86_64" */
	char v[GA_SYMVER_LEN], full[64];
	snprintf(full, sizeof(full), "%s_any", tok);
	if (!manylinux_tag(full, strlen(full), v, sizeof(v)))
		return 0;
	snprintf(t->glibc, sizeof(t->glibc), "%s", v);
	const char *cxx = ga_deps_manylinux_cxx_limit(v, tag_aarch64(tok), 0);
	if (cxx)
		snprintf(t->libstdcxx, sizeof(t->libstdcxx), "%s", cxx);
	t->musl = false;
	return 1;
}

static int too_old(const struct ga_deps_file *f, enum ga_code code, const char *prefix, const char *needed,
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

/* glibc-versioned needs where the C library is musl: there is no libc.so.6 to version them. */
static int on_musl(const struct ga_deps_file *f, enum ga_code code, const char *what, const char *fix,
                   struct ga_findings *out)
{
	struct ga_finding *fd = ga_findings_add(
	        out, code, GA_SEV_ERROR, f->path, fix,
	        "needs GLIBC_%s but %s musl: musl has no GLIBC_ symbol versions and no libc.so.6, so the "
	        "library does not load (\"Error loading shared library libc.so.6\")",
	        f->elf->glibc_needed, what);
	if (!fd)
		return -ENOMEM;
	return ga_finding_evidence(fd, "needed", "GLIBC_%s", f->elf->glibc_needed) < 0 ? -ENOMEM : 0;
}

/* A wheel's binaries against the C++ runtime limits of its manylinux level. */
static int manylinux_cxx(const struct ga_deps_file *f, const char *tag_glibc, bool aarch64,
                         struct ga_findings *out)
{
	const struct ga_elf_info *e = f->elf;
	const char *need[3] = { e->glibcxx_needed, e->cxxabi_needed, e->gcc_needed };
	static const char *const prefix[3] = { "GLIBCXX_", "CXXABI_", "GCC_" };
	for (int k = 0; k < 3; k++) {
		const char *lim = ga_deps_manylinux_cxx_limit(tag_glibc, aarch64, k);
		if (!need[k][0] || !lim || ga_symver_cmp(need[k], lim) <= 0)
			continue;
		char what[96];
		snprintf(what, sizeof(what), "the wheel's manylinux tag (glibc %s) allows at most %s",
		         tag_glibc, prefix[k]);
		int r = too_old(f, GA_C_DEPS_MANYLINUX_TAG, prefix[k], need[k], lim, what,
		                "tag the wheel for the level it needs (auditwheel show / repair), build it "
		                "with its tag's manylinux image and devtoolset, or link the C++ runtime "
		                "statically",
		                out);
		if (r < 0)
			return r;
	}
	return 0;
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
		if (t && t->musl && e->glibc_needed[0])
			r = on_musl(f, GA_C_DEPS_SYMBOL_VERSION, "the target's C library is",
			            "build the artifact for musl (a musllinux image, Alpine), or run it on a "
			            "glibc node",
			            out);
		else if (t && t->glibc[0] && e->glibc_needed[0] &&
		         ga_symver_cmp(e->glibc_needed, t->glibc) > 0)
			r = too_old(f, GA_C_DEPS_SYMBOL_VERSION, "GLIBC_", e->glibc_needed, t->glibc,
			            "the target's glibc is",
			            "build on (or for) the oldest glibc of the fleet (a manylinux image, "
			            "an older distribution), or upgrade the node",
			            out);
		if (r == 0 && t && t->libstdcxx[0] && e->glibcxx_needed[0] &&
		    ga_symver_cmp(e->glibcxx_needed, t->libstdcxx) > 0)
			r = too_old(f, GA_C_DEPS_SYMBOL_VERSION, "GLIBCXX_", e->glibcxx_needed, t->libstdcxx,
			            "the target's libstdc++ has GLIBCXX_",
			            "build with the fleet's oldest GCC, link libstdc++ statically, or ship "
			            "the libstdc++ it was built with",
			            out);
		const char *wheel = f->tree < inv->n_trees && inv->trees[f->tree].kind &&
		                                    !strcmp(inv->trees[f->tree].kind, "wheel")
		                            ? inv->trees[f->tree].name
		                            : NULL;
		char tag[GA_SYMVER_LEN];
		if (r == 0 && wheel && ga_deps_musllinux_wheel(wheel) && e->glibc_needed[0]) {
			r = on_musl(
			        f, GA_C_DEPS_MUSLLINUX_TAG, "the wheel's musllinux tag promises",
			        "build the wheel in a musllinux image (auditwheel repair there), or tag it "
			        "manylinux for the glibc it needs",
			        out);
		} else if (r == 0 && wheel && ga_deps_manylinux_glibc(wheel, tag, sizeof(tag))) {
			if (e->glibc_needed[0] && ga_symver_cmp(e->glibc_needed, tag) > 0)
				r = too_old(
				        f, GA_C_DEPS_MANYLINUX_TAG, "GLIBC_", e->glibc_needed, tag,
				        "the wheel's manylinux tag promises glibc",
				        "tag the wheel for the glibc it needs (auditwheel repair / show), or "
				        "build it in the manylinux image of its tag",
				        out);
			if (r == 0)
				r = manylinux_cxx(f, tag, tag_aarch64(wheel), out);
		}
	}
	return r;
}
