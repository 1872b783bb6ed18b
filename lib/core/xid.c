/*
 * xid.c - the Xid facts of xid.def and the one mapping from NVIDIA's
 * resolution buckets to gpuaudit's actions (docs/xid.md).
 */
#include <errno.h>
#include <string.h>

#include "gpuaudit/xid.h"
#include "internal.h"

static const struct ga_xid_fact facts[] = {
#define XID(n, mn, imm, inv, act, cause, sev, desc, why) \
	{ n, mn, GA_XB_##imm, inv, GA_ACT_##act, GA_CAUSE_##cause, GA_SEV_##sev, desc, why },
#include "xid.def"
#undef XID
};

static const char *const bucket_names[GA_XB__COUNT] = {
	[GA_XB_NONE_GIVEN] = "",
	[GA_XB_CONTACT_SUPPORT] = "CONTACT_SUPPORT",
	[GA_XB_RESTART_APP] = "RESTART_APP",
	[GA_XB_RESET_GPU] = "RESET_GPU",
	[GA_XB_RESTART_BM] = "RESTART_BM",
	[GA_XB_RESTART_VM] = "RESTART_VM",
	[GA_XB_IGNORE] = "IGNORE",
	[GA_XB_CHECK_MECHANICALS] = "CHECK_MECHANICALS",
	[GA_XB_CHECK_UVM] = "CHECK_UVM",
	[GA_XB_UPDATE_SWFW] = "UPDATE_SWFW",
	[GA_XB_WORKFLOW_XID_45] = "WORKFLOW_XID_45",
	[GA_XB_WORKFLOW_XID_48] = "WORKFLOW_XID_48",
	[GA_XB_WORKFLOW_NVLINK_ERR] = "WORKFLOW_NVLINK_ERR",
	[GA_XB_WORKFLOW_NVLINK5_ERR] = "WORKFLOW_NVLINK5_ERR",
	[GA_XB_XID_154] = "XID_154",
};

const struct ga_xid_fact *ga_xid_fact(uint64_t xid)
{
	/* rows are in Xid order from 1 without gaps (tests/unit/test_xid.c) */
	if (xid >= 1 && xid <= GA_ARRAY_SIZE(facts) && facts[xid - 1].xid == xid)
		return &facts[xid - 1];
	for (size_t i = 0; i < GA_ARRAY_SIZE(facts); i++)
		if (facts[i].xid == xid)
			return &facts[i];
	return NULL;
}

const struct ga_xid_fact *ga_xid_facts(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(facts);
	return facts;
}

bool ga_xid_unused(const struct ga_xid_fact *f)
{
	return f && !strcmp(f->description, "Unused");
}

const char *ga_xid_bucket_name(enum ga_xid_bucket b)
{
	return (unsigned)b < GA_XB__COUNT ? bucket_names[b] : "";
}

int ga_xid_bucket_parse(const char *name, enum ga_xid_bucket *ret)
{
	if (!name)
		return -EINVAL;
	if (!*name || !strcmp(name, "-")) {
		*ret = GA_XB_NONE_GIVEN;
		return 0;
	}
	for (size_t i = 1; i < GA_XB__COUNT; i++)
		if (!strcmp(name, bucket_names[i])) {
			*ret = (enum ga_xid_bucket)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * The mapping (docs/xid.md says why for each):
 *   RESTART_APP          restart_workload  warning
 *   RESET_GPU            reset_gpu         critical
 *   RESTART_BM           reboot            critical
 *   RESTART_VM           reboot            critical  (the VM is the node a guest can restart)
 *   IGNORE               none              info
 *   CHECK_MECHANICALS    drain             error     (a person checks cables and seating)
 *   CHECK_UVM            investigate       warning
 *   UPDATE_SWFW          fix_config        error
 *   CONTACT_SUPPORT      investigate       warning   (also every Xid NVIDIA lists as unused)
 *   WORKFLOW_XID_45      investigate       info      (follow the other Xid; alone: fabric manager)
 *   WORKFLOW_XID_48      reset_gpu         critical
 *   WORKFLOW_NVLINK_ERR  reset_gpu         error
 *   WORKFLOW_NVLINK5_ERR investigate       warning   (the line's Fatal/Nonfatal token decides)
 *   XID_154              investigate       warning   (the line's recovery action decides)
 *   none given           investigate       warning
 */
void ga_xid_bucket_default(enum ga_xid_bucket b, enum ga_action *ret_action, enum ga_severity *ret_sev)
{
	enum ga_action a = GA_ACT_INVESTIGATE;
	enum ga_severity s = GA_SEV_WARNING;
	switch (b) {
	case GA_XB_RESTART_APP:
		a = GA_ACT_RESTART_WORKLOAD;
		break;
	case GA_XB_RESET_GPU:
	case GA_XB_WORKFLOW_XID_48:
		a = GA_ACT_RESET_GPU, s = GA_SEV_CRITICAL;
		break;
	case GA_XB_RESTART_BM:
	case GA_XB_RESTART_VM:
		a = GA_ACT_REBOOT, s = GA_SEV_CRITICAL;
		break;
	case GA_XB_IGNORE:
		a = GA_ACT_NONE, s = GA_SEV_INFO;
		break;
	case GA_XB_CHECK_MECHANICALS:
		a = GA_ACT_DRAIN, s = GA_SEV_ERROR;
		break;
	case GA_XB_UPDATE_SWFW:
		a = GA_ACT_FIX_CONFIG, s = GA_SEV_ERROR;
		break;
	case GA_XB_WORKFLOW_XID_45:
		s = GA_SEV_INFO;
		break;
	case GA_XB_WORKFLOW_NVLINK_ERR:
		a = GA_ACT_RESET_GPU, s = GA_SEV_ERROR;
		break;
	case GA_XB_NONE_GIVEN:
	case GA_XB_CONTACT_SUPPORT:
	case GA_XB_CHECK_UVM:
	case GA_XB_WORKFLOW_NVLINK5_ERR:
	case GA_XB_XID_154:
	case GA_XB__COUNT:
		break;
	}
	*ret_action = a;
	*ret_sev = s;
}

void ga_xid_recovery_default(int recovery, enum ga_action *ret_action, enum ga_severity *ret_sev)
{
	enum ga_action a = GA_ACT_INVESTIGATE;
	enum ga_severity s = GA_SEV_WARNING;
	switch (recovery) {
	case 0: /* none: the GPU is usable by a new process */
		a = GA_ACT_NONE, s = GA_SEV_INFO;
		break;
	case 1: /* GPU reset */
	case 4: /* drain P2P and reset the GPU: reset_gpu drains the GPU first */
	case 6: /* reset the GPU's PCIe bus */
		a = GA_ACT_RESET_GPU, s = GA_SEV_CRITICAL;
		break;
	case 2: /* node reboot */
	case 7: /* system reboot */
		a = GA_ACT_REBOOT, s = GA_SEV_CRITICAL;
		break;
	case 3: /* drain P2P: stop peer traffic until a person or the driver clears it */
		a = GA_ACT_DRAIN, s = GA_SEV_ERROR;
		break;
	default: /* 5 recover the IMEX domain, or a value this table does not know */
		s = GA_SEV_ERROR;
		break;
	}
	*ret_action = a;
	*ret_sev = s;
}

static const struct ga_xid_nvl5_fact nvl5[] = {
#define NVL5(n, unit, st, sev, imm, inv, a2, act, gsev, why) \
	{ n, unit, st, sev, imm, inv, a2, GA_ACT_##act, GA_SEV_##gsev, why },
#include "xid_nvlink5.def"
#undef NVL5
};

const struct ga_xid_nvl5_fact *ga_xid_nvl5_facts(size_t *ret_n)
{
	*ret_n = GA_ARRAY_SIZE(nvl5);
	return nvl5;
}

/*
 * The mapping (docs/xid.md "NVLink5 sub-errors"):
 *   IGNORE        none         info
 *   RESET_GPU     reset_gpu    error    (one GPU's link: as the line's Fatal token)
 *   XID_154_EVAL  investigate  warning  (the Xid 154 line that follows names the recovery)
 */
int ga_xid_nvl5_default(const char *immediate, enum ga_action *ret_action, enum ga_severity *ret_sev)
{
	if (!immediate)
		return -EINVAL;
	if (!strcmp(immediate, "IGNORE"))
		*ret_action = GA_ACT_NONE, *ret_sev = GA_SEV_INFO;
	else if (!strcmp(immediate, "RESET_GPU"))
		*ret_action = GA_ACT_RESET_GPU, *ret_sev = GA_SEV_ERROR;
	else if (!strcmp(immediate, "XID_154_EVAL"))
		*ret_action = GA_ACT_INVESTIGATE, *ret_sev = GA_SEV_WARNING;
	else
		return -EINVAL;
	return 0;
}

static bool unit_is(const struct ga_xid_nvl5_fact *f, const char *unit, size_t len)
{
	return strlen(f->unit) == len && !memcmp(f->unit, unit, len);
}

static bool worse(const struct ga_xid_nvl5_fact *a, const struct ga_xid_nvl5_fact *b)
{
	int ra = ga_action_rank(a->action), rb = ga_action_rank(b->action);
	return ra != rb ? ra > rb : a->gseverity > b->gseverity;
}

/* A unit whose status is a value, not bits: a row of it is 0 or has several bits (NETIR_*, MSE). */
static bool value_coded(uint64_t xid, const char *unit, size_t len)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(nvl5); i++)
		if (nvl5[i].xid == xid && unit_is(&nvl5[i], unit, len) &&
		    (!nvl5[i].status || (nvl5[i].status & (nvl5[i].status - 1))))
			return true;
	return false;
}

const struct ga_xid_nvl5_fact *ga_xid_nvl5_decode(uint64_t xid, const char *unit, size_t unit_len,
                                                  uint32_t status)
{
	const struct ga_xid_nvl5_fact *best = NULL;
	if (!unit || !unit_len)
		return NULL;
	for (size_t i = 0; i < GA_ARRAY_SIZE(nvl5); i++)
		if (nvl5[i].xid == xid && unit_is(&nvl5[i], unit, unit_len) && nvl5[i].status == status)
			return &nvl5[i]; /* the value itself, or the one bit set */
	if (value_coded(xid, unit, unit_len))
		return NULL;
	for (size_t i = 0; i < GA_ARRAY_SIZE(nvl5); i++) {
		const struct ga_xid_nvl5_fact *f = &nvl5[i];
		/* several bits set: each bit's row (a one-bit status of a bitmask unit) */
		if (f->xid != xid || !unit_is(f, unit, unit_len) || !f->status ||
		    (f->status & (f->status - 1)) || !(status & f->status))
			continue;
		if (!best || worse(f, best))
			best = f;
	}
	return best;
}
