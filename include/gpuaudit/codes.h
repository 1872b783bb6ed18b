/*
 * codes.h - the finding codes, generated from the one catalogue
 * lib/core/codes.def: an analyzer raises GA_C_<ID>, a consumer switches on
 * struct ga_finding.id, and every fact about a code (default severity, action,
 * cause class, fleet category, NFD state, rule text, default fix, vendor
 * source) is read from its row here, never from a string comparison.
 */
#ifndef GPUAUDIT_CODES_H
#define GPUAUDIT_CODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ga_code {
	GA_C_NONE = 0, /* not a catalogue code (a document from another gpuaudit, a test's code) */
#define GA_CODE(id, ...) GA_C_##id,
#define GA_FAMILY(id, ...) GA_C_##id,
#include "../../lib/core/codes.def"
#undef GA_CODE
#undef GA_FAMILY
	GA_C__COUNT
};

/* Why a code makes a node drift in `fleet` (and which the drift query asks for). */
enum ga_code_fleet {
	GA_CODE_FLEET_NONE = 0, /* only by its severity */
	GA_CODE_FLEET_LINK,     /* a degraded PCIe link */
	GA_CODE_FLEET_STACK,    /* the software stack is off its pin */
	GA_CODE_FLEET_GPUS,     /* the GPU count is off */
	GA_CODE_FLEET_NO_CLASS, /* no class matches */
	GA_CODE_FLEET_CHECK,    /* any other expectation of the class */
};

/* The node-feature-discovery label state a code sets (src/nfd.c's cdi / device-plugin labels). */
enum ga_code_nfd {
	GA_CODE_NFD_NONE = 0,
	GA_CODE_NFD_CDI_STALE,
	GA_CODE_NFD_CDI_INCOMPLETE,
	GA_CODE_NFD_CDI_INVALID,
	GA_CODE_NFD_DP_PARTIAL,
	GA_CODE_NFD_DP_MISSING,
};

/* enum ga_severity, ga_action, ga_cause are in findings.h; the row keeps them as ints. */
struct ga_code_info {
	enum ga_code id;
	const char *code; /* "GA-LINK-DEGRADED"; a family: its prefix, "GA-XID-" */
	size_t len;       /* strlen(code) */
	bool family;
	int severity; /* enum ga_severity */
	int action;   /* enum ga_action */
	int cause;    /* enum ga_cause */
	enum ga_code_fleet fleet;
	enum ga_code_nfd nfd;
	const char *rule;   /* one line: what the code means */
	const char *fix;    /* the default decision text, or NULL */
	const char *source; /* the vendor document a fact comes from, or NULL */
};

/* The row of id; NULL for GA_C_NONE and out of range. */
const struct ga_code_info *ga_code_info(enum ga_code id);
/* The code string of id ("GA-LINK-DEGRADED", a family's prefix); "" for GA_C_NONE. */
const char *ga_code_str(enum ga_code id);
/* All rows, in catalogue order: entries [0, *ret_n), the entry i has id i + 1. */
const struct ga_code_info *ga_code_rows(size_t *ret_n);

/*
 * A code string (from a document, --from, fleet, a state file, --clear) to its
 * id: the exact row, else the family with the longest prefix that matches
 * (GA-XID-79 -> GA_C_XID), else GA_C_NONE.
 */
enum ga_code ga_code_parse(const char *code);
/* The suffix of code in family (ga_code_suffix("GA-XID-79", GA_C_XID) = "79"), or NULL. */
const char *ga_code_suffix(const char *code, enum ga_code family);
/* id is family itself or a row whose code starts with family's prefix (GA_C_CDI_STALE in GA_C_CDI). */
bool ga_code_in(enum ga_code id, enum ga_code family);
/* Spelled like a finding code: "GA-" and at least one more character. */
bool ga_code_wellformed(const char *s);
/* The rule text of a code string (its row's, else its family's); the code itself when neither. */
const char *ga_code_rule(const char *code);
/*
 * The PromQL regex (alternation) of the codes whose fleet category is not NONE:
 * a family as "PREFIX.+", a row its family does not already cover as itself.
 * Written NUL-terminated into buf; returns its length, or -ENOSPC.
 */
int ga_code_fleet_regex(char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
