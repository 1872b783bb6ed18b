/*
 * codes.c - the catalogue of finding codes (codes.def) as rows, and the
 * lookups every layer uses instead of spelling or comparing a code: id to
 * row, string to id (documents read back, state files, --clear), the default
 * action and cause of a code string (Xid numbers from xid.def), the SARIF
 * rule text, and the fleet drift query's regex.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/codes.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/xid.h"
#include "internal.h"

#define GA_ROW(family_, id_, str_, sev_, act_, cause_, fleet_, nfd_, rule_, fix_, source_) \
	{ .id = GA_C_##id_,                                                                \
	  .code = str_,                                                                    \
	  .len = sizeof(str_) - 1,                                                         \
	  .family = family_,                                                               \
	  .severity = GA_SEV_##sev_,                                                       \
	  .action = GA_ACT_##act_,                                                         \
	  .cause = GA_CAUSE_##cause_,                                                      \
	  .fleet = GA_CODE_FLEET_##fleet_,                                                 \
	  .nfd = GA_CODE_NFD_##nfd_,                                                       \
	  .rule = rule_,                                                                   \
	  .fix = fix_,                                                                     \
	  .source = source_ },
#define GA_CODE(...) GA_ROW(false, __VA_ARGS__)
#define GA_FAMILY(...) GA_ROW(true, __VA_ARGS__)
static const struct ga_code_info rows[] = {
#include "codes.def"
};
#undef GA_CODE
#undef GA_FAMILY
_Static_assert(GA_ARRAY_SIZE(rows) == GA_C__COUNT - 1, "one row per enum ga_code after GA_C_NONE");

const struct ga_code_info *ga_code_info(enum ga_code id)
{
	return id > GA_C_NONE && id < GA_C__COUNT ? &rows[id - 1] : NULL;
}

const char *ga_code_str(enum ga_code id)
{
	const struct ga_code_info *ci = ga_code_info(id);
	return ci ? ci->code : "";
}

const struct ga_code_info *ga_code_rows(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(rows);
	return rows;
}

/* The family with the longest prefix of code (not code's own row); NULL when none. */
static const struct ga_code_info *family_of(const char *code)
{
	const struct ga_code_info *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; code && i < GA_ARRAY_SIZE(rows); i++) {
		size_t n = rows[i].family ? rows[i].len : 0;
		if (n && n >= best_len && !strncmp(code, rows[i].code, n) && code[n])
			best = &rows[i], best_len = n;
	}
	return best;
}

enum ga_code ga_code_parse(const char *code)
{
	size_t n = code ? strlen(code) : 0;
	for (size_t i = 0; code && i < GA_ARRAY_SIZE(rows); i++)
		if (rows[i].len == n && !rows[i].family && !memcmp(code, rows[i].code, n))
			return rows[i].id;
	const struct ga_code_info *fam = family_of(code);
	return fam ? fam->id : GA_C_NONE;
}

const char *ga_code_suffix(const char *code, enum ga_code family)
{
	const struct ga_code_info *ci = ga_code_info(family);
	if (!code || !ci || !ci->family)
		return NULL;
	size_t n = strlen(ci->code);
	return !strncmp(code, ci->code, n) && code[n] ? code + n : NULL;
}

bool ga_code_in(enum ga_code id, enum ga_code family)
{
	const struct ga_code_info *ci = ga_code_info(id), *fam = ga_code_info(family);
	if (!ci || !fam || !fam->family)
		return false;
	return id == family || ga_startswith(ci->code, fam->code);
}

bool ga_code_wellformed(const char *s)
{
	return s && ga_startswith(s, "GA-") && s[3];
}

/* The GA-XID-<n> family's per-number facts: NVIDIA's catalogue (xid.def, xid.c). */
static const struct ga_xid_fact *xid_of(const char *code)
{
	const char *n = ga_code_suffix(code, GA_C_XID);
	uint64_t x;
	if (!n || ga_parse_u64(n, 10, &x) < 0)
		return NULL;
	return ga_xid_fact(x);
}

int ga_action_default(const char *code, enum ga_action *ret_action, enum ga_cause *ret_cause)
{
	enum ga_code id = ga_code_parse(code);
	const struct ga_code_info *ci = ga_code_info(id);
	const struct ga_xid_fact *x = id == GA_C_XID ? xid_of(code) : NULL;
	*ret_action = x ? x->action : ci ? (enum ga_action)ci->action : GA_ACT_INVESTIGATE;
	*ret_cause = x ? x->cause : ci ? (enum ga_cause)ci->cause : GA_CAUSE_UNKNOWN;
	return x || (ci && !ci->family) ? 2 : ci ? 1 : 0;
}

const char *ga_code_rule(const char *code)
{
	const struct ga_code_info *ci = ga_code_info(ga_code_parse(code));
	return ci ? ci->rule : code;
}

int ga_code_fleet_regex(char *buf, size_t size)
{
	size_t at = 0;
	if (!size)
		return -ENOSPC;
	buf[0] = '\0';
	for (size_t i = 0; i < GA_ARRAY_SIZE(rows); i++) {
		const struct ga_code_info *r = &rows[i];
		if (r->fleet == GA_CODE_FLEET_NONE)
			continue;
		const struct ga_code_info *fam = r->family ? NULL : family_of(r->code);
		if (fam && fam->fleet != GA_CODE_FLEET_NONE)
			continue; /* "PREFIX.+" covers it */
		int n = snprintf(buf + at, size - at, "%s%s%s", at ? "|" : "", r->code,
		                 r->family ? ".+" : "");
		if (n < 0 || (size_t)n >= size - at)
			return -ENOSPC;
		at += (size_t)n;
	}
	return (int)at;
}
