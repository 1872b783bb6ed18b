/*
 * xid.h - NVIDIA's Xid catalogue as facts, and the one mapping from its
 * resolution buckets to gpuaudit's actions (lib/core/xid.def, docs/xid.md).
 */
#ifndef GPUAUDIT_XID_H
#define GPUAUDIT_XID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/findings.h"

/* NVIDIA's "Resolution Bucket (Immediate Action)" values. */
enum ga_xid_bucket {
	GA_XB_NONE_GIVEN = 0, /* the catalogue gives none */
	GA_XB_CONTACT_SUPPORT,
	GA_XB_RESTART_APP,
	GA_XB_RESET_GPU,
	GA_XB_RESTART_BM,
	GA_XB_RESTART_VM,
	GA_XB_IGNORE,
	GA_XB_CHECK_MECHANICALS,
	GA_XB_CHECK_UVM,
	GA_XB_UPDATE_SWFW,
	GA_XB_WORKFLOW_XID_45,
	GA_XB_WORKFLOW_XID_48,
	GA_XB_WORKFLOW_NVLINK_ERR,
	GA_XB_WORKFLOW_NVLINK5_ERR,
	GA_XB_XID_154,
	GA_XB__COUNT
};

struct ga_xid_fact {
	uint16_t xid;
	const char *mnemonic;
	enum ga_xid_bucket immediate;
	const char *investigatory; /* NVIDIA's investigatory bucket as written, "" when none */
	enum ga_action action;     /* what gpuaudit does (the mapping, or the departure) */
	enum ga_cause cause;
	enum ga_severity severity;
	const char *description; /* NVIDIA's; "Unused" for an Xid not in use */
	const char *departure;   /* "" or why action/severity depart from the mapping */
};

/* The row of a published Xid, NULL when the catalogue has none. */
const struct ga_xid_fact *ga_xid_fact(uint64_t xid);
/* Every row, in Xid order. */
const struct ga_xid_fact *ga_xid_facts(size_t *ret_n);
/* NVIDIA lists the Xid as unused. */
bool ga_xid_unused(const struct ga_xid_fact *f);

/* "RESTART_APP" ...; "" for GA_XB_NONE_GIVEN. */
const char *ga_xid_bucket_name(enum ga_xid_bucket b);
/* The name as the catalogue writes it ("-" or "" for none). 0 / -EINVAL. */
int ga_xid_bucket_parse(const char *name, enum ga_xid_bucket *ret);
/* The mapping: NVIDIA's immediate bucket to gpuaudit's action and severity (docs/xid.md). */
void ga_xid_bucket_default(enum ga_xid_bucket b, enum ga_action *ret_action, enum ga_severity *ret_sev);

/*
 * The NVML GPU recovery action a line names (Xid 154, "GPU recovery action
 * changed ... to 0x2 (Node Reboot Required)"): nvmlDeviceGpuRecoveryAction_t
 * 0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset,
 * 5 recover the IMEX domain, 6 PCIe bus reset, 7 system reboot.
 */
void ga_xid_recovery_default(int recovery, enum ga_action *ret_action, enum ga_severity *ret_sev);

/*
 * The NVLink5 Xids' (144-150) sub-errors: NVIDIA's sheet "XID 144-150 Decode"
 * (lib/core/xid_nvlink5.def). A line names the unit and the unit's error status
 * word; each row is one (Xid, unit, status bit or value).
 */
struct ga_xid_nvl5_fact {
	uint16_t xid;
	const char *unit;          /* "RLW_REMAP", "NETIR_MFDE_EVENT" ... */
	uint32_t status;           /* a bit of the error status word (NETIR_*, MSE_WATCHDOG: the value) */
	const char *severity;      /* the sheet's words: "Fatal", "Non-fatal*" ... */
	const char *immediate;     /* "IGNORE", "RESET_GPU", "XID_154_EVAL" */
	const char *investigatory; /* as written */
	const char *action2;       /* a second action the sheet names, "-" when none */
	enum ga_action action;     /* what gpuaudit does (ga_xid_nvl5_default or the departure) */
	enum ga_severity gseverity;
	const char *departure; /* "" or why the row departs from the mapping */
};

/* Every row, in (xid, unit, status) order. */
const struct ga_xid_nvl5_fact *ga_xid_nvl5_facts(size_t *ret_n);
/* The mapping from the sheet's immediate resolution (docs/xid.md). 0 / -EINVAL. */
int ga_xid_nvl5_default(const char *immediate, enum ga_action *ret_action, enum ga_severity *ret_sev);
/*
 * Decode a line's unit (unit_len bytes) and error status word: the row that equals
 * the status, else the most urgent row of each set bit; NULL when the sheet has none.
 */
const struct ga_xid_nvl5_fact *ga_xid_nvl5_decode(uint64_t xid, const char *unit, size_t unit_len,
                                                  uint32_t status);

#endif
