/*
 * sxid.h - NVIDIA's NVSwitch SXids as facts (the Fabric Manager user guide's
 * SXid tables, lib/core/sxid.def) and the one mapping from the guide's tables
 * to gpuaudit's actions (docs/xid.md "SXids").
 */
#ifndef GPUAUDIT_SXID_H
#define GPUAUDIT_SXID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The guide's table an SXid is listed in (appendix D of DU-09883-001_v1.3). */
enum ga_sxid_table {
	GA_SXT_NONFATAL = 0, /* D.4 Non-Fatal NVSwitch SXid Errors */
	GA_SXT_FATAL,        /* D.5 Fatal NVSwitch SXid Errors (fatal to the port's traffic) */
	GA_SXT_ALWAYS_FATAL, /* D.6 Always Fatal NVSwitch SXid Errors (fatal to the fabric) */
	GA_SXT_NOTABLE,      /* D.7 Other Notable NVSwitch SXid Errors */
	GA_SXT__COUNT
};

struct ga_sxid_fact {
	uint16_t sxid;
	enum ga_sxid_table table;
	const char *name;      /* the guide's words */
	const char *recovery;  /* the guide's recovery words, "-" when it gives none */
	enum ga_action action; /* what gpuaudit does (the mapping, or the departure) */
	enum ga_severity severity;
	const char *departure; /* "" or why action/severity depart from the mapping */
};

/* The row of a documented SXid, NULL when the guide lists none. */
const struct ga_sxid_fact *ga_sxid_fact(uint64_t sxid);
/* Every row, in SXid order. */
const struct ga_sxid_fact *ga_sxid_facts(size_t *ret_n);
/* "non-fatal", "fatal", "always-fatal", "notable" (the facts file's words); "" out of range. */
const char *ga_sxid_table_name(enum ga_sxid_table t);
/* The facts file's word to the enum. 0 / -EINVAL. */
int ga_sxid_table_parse(const char *name, enum ga_sxid_table *ret);
/* The mapping: the guide's table to gpuaudit's action and severity (docs/xid.md). */
void ga_sxid_table_default(enum ga_sxid_table t, enum ga_action *ret_action, enum ga_severity *ret_sev);
/*
 * What one SXid line asks for: the row's action and severity, raised to at least
 * reboot / error when the line's own token says Fatal (fatal: 1) and the row asks
 * less; an SXid the guide does not list: Fatal reboot / error, otherwise
 * investigate / warning. fatal: 1 the line says Fatal, 0 Non-fatal, -1 neither.
 * Returns the row or NULL.
 */
const struct ga_sxid_fact *ga_sxid_decide(uint64_t sxid, int fatal, enum ga_action *ret_action,
                                          enum ga_severity *ret_sev);

/*
 * NVIDIA's driver's own name for an NVSwitch error number (lib/core/sxid-driver.def:
 * enum nvswitch_err_type of open-gpu-kernel-modules 595.45.04, without its
 * NVSWITCH_ERR_HW_ prefix), e.g. "NPORT_EGRESS_PRIVRSPERR" for 12028; NULL when the
 * driver defines no such number. It names an SXid the guide does not list; it decides
 * nothing.
 */
const char *ga_sxid_driver_name(uint64_t sxid);
/* The driver version the names come from ("595.45.04"). */
const char *ga_sxid_driver_version(void);

/*
 * An SXid's words, the same in health and explain: the guide's name (and, with
 * with_table, its table: "egress nonposted PRIV error, non-fatal"); for a number
 * the guide does not list, the driver's own name for it ("NAME in driver V, not
 * in the Fabric Manager guide"), or "not an NVSwitch error number of driver V".
 * Truncates to cap like snprintf.
 */
void ga_sxid_words(uint64_t sxid, int with_table, char *out, size_t cap);
struct ga_sxid_driver_row {
	uint16_t sxid;
	const char *name;
};
/* Every row, in number order. */
const struct ga_sxid_driver_row *ga_sxid_driver_rows(size_t *ret_n);

#ifdef __cplusplus
}
#endif
#endif
