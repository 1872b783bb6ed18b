/*
 * nvml.c - NVIDIA's view through NVML, loaded at run time (lib/dl, row NVML).
 *
 * No NVIDIA header or library is needed to build: lib/dl/nvml_types.h
 * declares the subset we call. Symbols resolve through a table with versioned
 * fallbacks (nvmlInit_v2, then nvmlInit); optional symbols may be missing on
 * old drivers and are then reported, not fatal. Every call is announced
 * through the context's progress callback first, so when NVML hangs on a
 * wedged GPU the parent process knows which call it was (see isolate.c).
 *
 * This runs in-process only inside the helper process (gpuaudit
 * __vendor-helper nvml); callers use ga_node_collect, which isolates it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-read.h"
#include "gpuaudit/isolate.h"
#include "../dl/dl.h"
#include "../dl/nvml_types.h"

struct nvml {
	void *lib;
	struct ga_ctx *ctx;
	struct ga_nvml_report *rep;
	/* required */
	nvmlReturn_t (*nvmlInit_v2)(void);
	nvmlReturn_t (*nvmlShutdown)(void);
	const char *(*nvmlErrorString)(nvmlReturn_t);
	nvmlReturn_t (*nvmlDeviceGetCount_v2)(unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2)(unsigned int, nvmlDevice_t *);
	/* optional */
	nvmlReturn_t (*nvmlSystemGetDriverVersion)(char *, unsigned int);
	nvmlReturn_t (*nvmlSystemGetNVMLVersion)(char *, unsigned int);
	nvmlReturn_t (*nvmlSystemGetCudaDriverVersion_v2)(int *);
	nvmlReturn_t (*nvmlDeviceGetName)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*nvmlDeviceGetUUID)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*nvmlDeviceGetSerial)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*nvmlDeviceGetPciInfo_v3)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*nvmlDeviceGetMinorNumber)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*nvmlDeviceGetCudaComputeCapability)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*nvmlDeviceGetPersistenceMode)(nvmlDevice_t, int *);
	nvmlReturn_t (*nvmlDeviceGetMigMode)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*nvmlDeviceGetGpuInstanceId)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetComputeInstanceId)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetGpuInstanceProfileInfoV)(nvmlDevice_t, unsigned int,
	                                                     nvmlGpuInstanceProfileInfo_v2_t *);
	nvmlReturn_t (*nvmlDeviceGetEccMode)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*nvmlDeviceGetTotalEccErrors)(nvmlDevice_t, int, int, unsigned long long *);
	nvmlReturn_t (*nvmlDeviceGetRetiredPages)(nvmlDevice_t, int, unsigned int *, unsigned long long *);
	nvmlReturn_t (*nvmlDeviceGetRetiredPagesPendingStatus)(nvmlDevice_t, int *);
	nvmlReturn_t (*nvmlDeviceGetRemappedRows)(nvmlDevice_t, unsigned int *, unsigned int *,
	                                          unsigned int *, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetClockInfo)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetMaxClockInfo)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetCurrentClocksEventReasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*nvmlDeviceGetTemperature)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetPowerUsage)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetEnforcedPowerLimit)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkGeneration)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkWidth)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetPcieThroughput)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetPcieReplayCounter)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetNvLinkState)(nvmlDevice_t, unsigned int, int *);
	nvmlReturn_t (*nvmlDeviceGetNvLinkRemotePciInfo_v2)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
	nvmlReturn_t (*nvmlDeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned int, int *);
	nvmlReturn_t (*nvmlDeviceGetNvLinkVersion)(nvmlDevice_t, unsigned int, unsigned int *);
	nvmlReturn_t (*nvmlDeviceGetTopologyCommonAncestor)(nvmlDevice_t, nvmlDevice_t, int *);
	nvmlReturn_t (*nvmlDeviceGetNvLinkErrorCounter)(nvmlDevice_t, unsigned int, int,
	                                                unsigned long long *);
	nvmlReturn_t (*nvmlDeviceGetGpuFabricInfoV)(nvmlDevice_t, nvmlGpuFabricInfo_v3_t *);
	nvmlReturn_t (*nvmlDeviceGetGpuFabricInfo)(nvmlDevice_t, nvmlGpuFabricInfo_t *);
	nvmlReturn_t (*nvmlEventSetCreate)(nvmlEventSet_t *);
	nvmlReturn_t (*nvmlDeviceRegisterEvents)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*nvmlEventSetWait_v2)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
	nvmlReturn_t (*nvmlEventSetFree)(nvmlEventSet_t);
	/* events on old drivers only: the event's GPU needs an address, and they lack _v3 */
	nvmlReturn_t (*nvmlDeviceGetPciInfo_v2)(nvmlDevice_t, nvmlPciInfoLegacy_t *);
};

/* preferred name first; older fallbacks after */
#define SYM(field, req, ...)                                               \
	{                                                                  \
		{ #field, __VA_ARGS__ }, offsetof(struct nvml, field), req \
	}

static const struct ga_dl_sym syms[] = {
	SYM(nvmlInit_v2, true, "nvmlInit"),
	SYM(nvmlShutdown, true, NULL),
	SYM(nvmlErrorString, true, NULL),
	SYM(nvmlDeviceGetCount_v2, true, "nvmlDeviceGetCount"),
	SYM(nvmlDeviceGetHandleByIndex_v2, true, "nvmlDeviceGetHandleByIndex"),
	SYM(nvmlSystemGetDriverVersion, false, NULL),
	SYM(nvmlSystemGetNVMLVersion, false, NULL),
	SYM(nvmlSystemGetCudaDriverVersion_v2, false, "nvmlSystemGetCudaDriverVersion"),
	SYM(nvmlDeviceGetName, false, NULL),
	SYM(nvmlDeviceGetUUID, false, NULL),
	SYM(nvmlDeviceGetSerial, false, NULL),
	/* no fallback: older _v2/v1 symbols fill a 52-byte struct (reference §3) */
	SYM(nvmlDeviceGetPciInfo_v3, false, NULL),
	SYM(nvmlDeviceGetMinorNumber, false, NULL),
	SYM(nvmlDeviceGetMemoryInfo, false, NULL),
	SYM(nvmlDeviceGetCudaComputeCapability, false, NULL),
	SYM(nvmlDeviceGetPersistenceMode, false, NULL),
	SYM(nvmlDeviceGetMigMode, false, NULL),
	SYM(nvmlDeviceGetMaxMigDeviceCount, false, NULL),
	SYM(nvmlDeviceGetMigDeviceHandleByIndex, false, NULL),
	SYM(nvmlDeviceGetGpuInstanceId, false, NULL),
	SYM(nvmlDeviceGetComputeInstanceId, false, NULL),
	SYM(nvmlDeviceGetGpuInstanceProfileInfoV, false, NULL),
	SYM(nvmlDeviceGetEccMode, false, NULL),
	SYM(nvmlDeviceGetTotalEccErrors, false, NULL),
	SYM(nvmlDeviceGetRetiredPages, false, NULL),
	SYM(nvmlDeviceGetRetiredPagesPendingStatus, false, NULL),
	SYM(nvmlDeviceGetRemappedRows, false, NULL),
	SYM(nvmlDeviceGetClockInfo, false, NULL),
	SYM(nvmlDeviceGetMaxClockInfo, false, NULL),
	SYM(nvmlDeviceGetCurrentClocksEventReasons, false, "nvmlDeviceGetCurrentClocksThrottleReasons"),
	SYM(nvmlDeviceGetTemperature, false, NULL),
	SYM(nvmlDeviceGetPowerUsage, false, NULL),
	SYM(nvmlDeviceGetEnforcedPowerLimit, false, NULL),
	SYM(nvmlDeviceGetUtilizationRates, false, NULL),
	SYM(nvmlDeviceGetCurrPcieLinkGeneration, false, NULL),
	SYM(nvmlDeviceGetMaxPcieLinkGeneration, false, NULL),
	SYM(nvmlDeviceGetCurrPcieLinkWidth, false, NULL),
	SYM(nvmlDeviceGetMaxPcieLinkWidth, false, NULL),
	SYM(nvmlDeviceGetPcieThroughput, false, NULL),
	SYM(nvmlDeviceGetPcieReplayCounter, false, NULL),
	SYM(nvmlDeviceGetNvLinkState, false, NULL),
	SYM(nvmlDeviceGetNvLinkRemotePciInfo_v2, false, NULL),
	SYM(nvmlDeviceGetNvLinkRemoteDeviceType, false, NULL),
	SYM(nvmlDeviceGetNvLinkVersion, false, NULL),
	SYM(nvmlDeviceGetTopologyCommonAncestor, false, NULL),
	SYM(nvmlDeviceGetNvLinkErrorCounter, false, NULL),
	/* 550.40.07+; the unversioned one (525.53, deprecated in 13.0) when it is missing */
	SYM(nvmlDeviceGetGpuFabricInfoV, false, NULL),
	SYM(nvmlDeviceGetGpuFabricInfo, false, NULL),
	/* events: the v1 wait fills the same first 24 bytes (no MIG instance ids) */
	SYM(nvmlEventSetCreate, false, NULL),
	SYM(nvmlDeviceRegisterEvents, false, NULL),
	SYM(nvmlEventSetWait_v2, false, "nvmlEventSetWait"),
	SYM(nvmlEventSetFree, false, NULL),
	SYM(nvmlDeviceGetPciInfo_v2, false, "nvmlDeviceGetPciInfo"),
};

/* Announce the call about to be made, then make it. */
#define CALL(m, fn, ...) (ga_progress((m)->ctx, #fn), (m)->fn(__VA_ARGS__))
#define HAVE(m, fn) ((m)->fn != NULL)

static const char *errstr(struct nvml *m, nvmlReturn_t rc)
{
	const char *s = m->nvmlErrorString ? m->nvmlErrorString(rc) : NULL;
	return s && *s ? s : "unknown NVML error";
}

static int set_str(char **dst, const char *s)
{
	char *d = ga_strdup(s);
	if (!d)
		return -ENOMEM;
	ga_free(*dst);
	*dst = d;
	return 0;
}

static int sys_error(struct nvml *m, const char *call, nvmlReturn_t rc, const char *text)
{
	struct ga_nvml *sys = &m->rep->sys;
	GA_SET(sys->error_code, rc);
	if (set_str(&sys->error_call, call) < 0 || set_str(&sys->error, text) < 0)
		return -ENOMEM;
	return 0;
}

/* Unexpected per-call failures are recorded; "not supported" and friends mean absent. */
static int note(struct nvml *m, struct ga_nvml_gpu *g, const char *call, nvmlReturn_t rc)
{
	if (rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
	    rc == NVML_ERROR_NOT_FOUND || rc == NVML_ERROR_INVALID_ARGUMENT)
		return 0;
	if (rc == NVML_ERROR_GPU_IS_LOST) {
		if (g->error)
			return 0;
		GA_SET(g->error_code, rc);
		return set_str(&g->error, errstr(m, rc));
	}
	char line[256];
	snprintf(line, sizeof(line), "%s: %s", call, errstr(m, rc));
	return ga_strv_push(&g->call_errors, line);
}

#define U32(m, g, field, fn, ...)                                         \
	do {                                                              \
		unsigned int v_ = 0;                                      \
		if (HAVE(m, fn)) {                                        \
			nvmlReturn_t rc_ = CALL(m, fn, __VA_ARGS__, &v_); \
			if (rc_ == NVML_SUCCESS)                          \
				GA_SET((g)->field, v_);                   \
			else if (note(m, g, #fn, rc_) < 0)                \
				return -ENOMEM;                           \
		}                                                         \
	} while (0)

#define STR(m, g, field, fn, dev, size)                                                    \
	do {                                                                               \
		char b_[size];                                                             \
		if (HAVE(m, fn)) {                                                         \
			nvmlReturn_t rc_ = CALL(m, fn, dev, b_, (unsigned int)sizeof(b_)); \
			if (rc_ == NVML_SUCCESS) {                                         \
				b_[sizeof(b_) - 1] = '\0';                                 \
				if (set_str(&(g)->field, b_) < 0)                          \
					return -ENOMEM;                                    \
			} else if (note(m, g, #fn, rc_) < 0)                               \
				return -ENOMEM;                                            \
		}                                                                          \
	} while (0)

/* "00000000:07:00.0" (NVML) -> "0000:07:00.0" (sysfs) */
static int normalize_bus_id(const char *in, char **ret)
{
	unsigned dom, bus, dev, fn;
	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return set_str(ret, in);
	char out[32];
	snprintf(out, sizeof(out), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return set_str(ret, out);
}

static const struct {
	unsigned long long bit;
	const char *name;
} clock_events[] = {
	{ NVML_CLOCKS_EVENT_GPU_IDLE, "gpu_idle" },
	{ NVML_CLOCKS_EVENT_APP_CLOCKS, "applications_clocks" },
	{ NVML_CLOCKS_EVENT_SW_POWER_CAP, "sw_power_cap" },
	{ NVML_CLOCKS_EVENT_HW_SLOWDOWN, "hw_slowdown" },
	{ NVML_CLOCKS_EVENT_SYNC_BOOST, "sync_boost" },
	{ NVML_CLOCKS_EVENT_SW_THERMAL, "sw_thermal_slowdown" },
	{ NVML_CLOCKS_EVENT_HW_THERMAL, "hw_thermal_slowdown" },
	{ NVML_CLOCKS_EVENT_HW_POWER_BRAKE, "hw_power_brake_slowdown" },
	{ NVML_CLOCKS_EVENT_DISPLAY_CLOCK, "display_clock_setting" },
};

static int mig(struct nvml *m, nvmlDevice_t dev, struct ga_nvml_gpu *g)
{
	unsigned int cur = 0, pend = 0;
	if (!HAVE(m, nvmlDeviceGetMigMode))
		return 0;
	nvmlReturn_t rc = CALL(m, nvmlDeviceGetMigMode, dev, &cur, &pend);
	if (rc != NVML_SUCCESS)
		return note(m, g, "nvmlDeviceGetMigMode", rc);
	GA_SET(g->mig_enabled, cur == 1);
	GA_SET(g->mig_pending, pend == 1);
	if (HAVE(m, nvmlDeviceGetGpuInstanceProfileInfoV)) {
		for (unsigned p = 0; p < NVML_GPU_INSTANCE_PROFILE_COUNT; p++) {
			nvmlGpuInstanceProfileInfo_v2_t info;
			memset(&info, 0, sizeof(info));
			info.version = NVML_GPU_INSTANCE_PROFILE_INFO_V2;
			rc = CALL(m, nvmlDeviceGetGpuInstanceProfileInfoV, dev, p, &info);
			if (rc != NVML_SUCCESS)
				continue; /* profile not offered by this GPU */
			struct ga_nvml_mig_profile *pr =
			        ga_array_push((void **)&g->mig_profiles, &g->n_mig_profiles, sizeof(*pr));
			if (!pr)
				return -ENOMEM;
			info.name[sizeof(info.name) - 1] = '\0';
			GA_SET(pr->id, info.id);
			GA_SET(pr->slice_count, info.sliceCount);
			GA_SET(pr->instance_count, info.instanceCount);
			GA_SET(pr->multiprocessor_count, info.multiprocessorCount);
			GA_SET(pr->memory_mb, info.memorySizeMB);
			if (info.name[0] && set_str(&pr->name, info.name) < 0)
				return -ENOMEM;
		}
	}
	if (cur != 1 || !HAVE(m, nvmlDeviceGetMaxMigDeviceCount) ||
	    !HAVE(m, nvmlDeviceGetMigDeviceHandleByIndex))
		return 0;
	unsigned int max = 0;
	rc = CALL(m, nvmlDeviceGetMaxMigDeviceCount, dev, &max);
	if (rc != NVML_SUCCESS)
		return note(m, g, "nvmlDeviceGetMaxMigDeviceCount", rc);
	for (unsigned i = 0; i < max && i < 64; i++) {
		nvmlDevice_t mdev = NULL;
		rc = CALL(m, nvmlDeviceGetMigDeviceHandleByIndex, dev, i, &mdev);
		if (rc == NVML_ERROR_NOT_FOUND)
			continue; /* empty slot */
		if (rc != NVML_SUCCESS) {
			if (note(m, g, "nvmlDeviceGetMigDeviceHandleByIndex", rc) < 0)
				return -ENOMEM;
			continue;
		}
		struct ga_nvml_mig_instance *mi =
		        ga_array_push((void **)&g->mig_instances, &g->n_mig_instances, sizeof(*mi));
		if (!mi)
			return -ENOMEM;
		unsigned int id = 0;
		if (HAVE(m, nvmlDeviceGetGpuInstanceId) &&
		    CALL(m, nvmlDeviceGetGpuInstanceId, mdev, &id) == 0)
			GA_SET(mi->gpu_instance_id, id);
		if (HAVE(m, nvmlDeviceGetComputeInstanceId) &&
		    CALL(m, nvmlDeviceGetComputeInstanceId, mdev, &id) == 0)
			GA_SET(mi->compute_instance_id, id);
		char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
		if (HAVE(m, nvmlDeviceGetName) && CALL(m, nvmlDeviceGetName, mdev, buf, sizeof(buf)) == 0) {
			buf[sizeof(buf) - 1] = '\0';
			if (set_str(&mi->name, buf) < 0)
				return -ENOMEM;
		}
		if (HAVE(m, nvmlDeviceGetUUID) && CALL(m, nvmlDeviceGetUUID, mdev, buf, sizeof(buf)) == 0) {
			buf[sizeof(buf) - 1] = '\0';
			if (set_str(&mi->uuid, buf) < 0)
				return -ENOMEM;
		}
		nvmlMemory_t mem;
		if (HAVE(m, nvmlDeviceGetMemoryInfo) && CALL(m, nvmlDeviceGetMemoryInfo, mdev, &mem) == 0)
			GA_SET(mi->memory_total_bytes, mem.total);
	}
	return 0;
}

static int health(struct nvml *m, nvmlDevice_t dev, struct ga_nvml_gpu *g)
{
	nvmlReturn_t rc;
	if (HAVE(m, nvmlDeviceGetEccMode)) {
		int cur = 0, pend = 0;
		rc = CALL(m, nvmlDeviceGetEccMode, dev, &cur, &pend);
		if (rc == NVML_SUCCESS) {
			GA_SET(g->ecc_enabled, cur == NVML_FEATURE_ENABLED);
			GA_SET(g->ecc_pending, pend == NVML_FEATURE_ENABLED);
		} else if (note(m, g, "nvmlDeviceGetEccMode", rc) < 0) {
			return -ENOMEM;
		}
	}
	if (HAVE(m, nvmlDeviceGetTotalEccErrors) && g->ecc_enabled.set && g->ecc_enabled.v) {
		struct {
			int type, counter;
			struct ga_ou64 *dst;
		} ecc[] = {
			{ NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &g->ecc_corrected_volatile },
			{ NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
			  &g->ecc_uncorrected_volatile },
			{ NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &g->ecc_corrected_aggregate },
			{ NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
			  &g->ecc_uncorrected_aggregate },
		};
		for (size_t i = 0; i < GA_ARRAY_SIZE(ecc); i++) {
			unsigned long long v = 0;
			rc = CALL(m, nvmlDeviceGetTotalEccErrors, dev, ecc[i].type, ecc[i].counter, &v);
			if (rc == NVML_SUCCESS)
				GA_SET(*ecc[i].dst, v);
			else if (note(m, g, "nvmlDeviceGetTotalEccErrors", rc) < 0)
				return -ENOMEM;
		}
	}
	if (HAVE(m, nvmlDeviceGetRetiredPages)) {
		int causes[] = { NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT,
			         NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT };
		struct ga_ou64 *dst[] = { &g->retired_pages_sbe, &g->retired_pages_dbe };
		for (size_t i = 0; i < 2; i++) {
			unsigned int count = 0;
			rc = CALL(m, nvmlDeviceGetRetiredPages, dev, causes[i], &count, NULL);
			if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
				GA_SET(*dst[i], count);
			else if (note(m, g, "nvmlDeviceGetRetiredPages", rc) < 0)
				return -ENOMEM;
		}
	}
	if (HAVE(m, nvmlDeviceGetRetiredPagesPendingStatus)) {
		int pend = 0;
		rc = CALL(m, nvmlDeviceGetRetiredPagesPendingStatus, dev, &pend);
		if (rc == NVML_SUCCESS)
			GA_SET(g->retired_pages_pending, pend == NVML_FEATURE_ENABLED);
		else if (note(m, g, "nvmlDeviceGetRetiredPagesPendingStatus", rc) < 0)
			return -ENOMEM;
	}
	if (HAVE(m, nvmlDeviceGetRemappedRows)) {
		unsigned int corr = 0, unc = 0, pend = 0, fail = 0;
		rc = CALL(m, nvmlDeviceGetRemappedRows, dev, &corr, &unc, &pend, &fail);
		if (rc == NVML_SUCCESS) {
			GA_SET(g->remapped_rows_correctable, corr);
			GA_SET(g->remapped_rows_uncorrectable, unc);
			GA_SET(g->remap_pending, pend != 0);
			GA_SET(g->remap_failure, fail != 0);
		} else if (note(m, g, "nvmlDeviceGetRemappedRows", rc) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

static int telemetry(struct nvml *m, nvmlDevice_t dev, struct ga_nvml_gpu *g)
{
	nvmlReturn_t rc;
	U32(m, g, clock_sm_mhz, nvmlDeviceGetClockInfo, dev, NVML_CLOCK_SM);
	U32(m, g, clock_sm_max_mhz, nvmlDeviceGetMaxClockInfo, dev, NVML_CLOCK_SM);
	U32(m, g, clock_mem_mhz, nvmlDeviceGetClockInfo, dev, NVML_CLOCK_MEM);
	U32(m, g, clock_mem_max_mhz, nvmlDeviceGetMaxClockInfo, dev, NVML_CLOCK_MEM);
	if (HAVE(m, nvmlDeviceGetCurrentClocksEventReasons)) {
		unsigned long long r = 0;
		rc = CALL(m, nvmlDeviceGetCurrentClocksEventReasons, dev, &r);
		if (rc == NVML_SUCCESS) {
			GA_SET(g->clock_event_reasons, r);
			for (size_t i = 0; i < GA_ARRAY_SIZE(clock_events); i++)
				if ((r & clock_events[i].bit) &&
				    ga_strv_push(&g->clock_event_names, clock_events[i].name) < 0)
					return -ENOMEM;
		} else if (note(m, g, "nvmlDeviceGetCurrentClocksEventReasons", rc) < 0) {
			return -ENOMEM;
		}
	}
	U32(m, g, temperature_c, nvmlDeviceGetTemperature, dev, NVML_TEMPERATURE_GPU);
	U32(m, g, power_usage_mw, nvmlDeviceGetPowerUsage, dev);
	U32(m, g, power_limit_mw, nvmlDeviceGetEnforcedPowerLimit, dev);
	if (HAVE(m, nvmlDeviceGetUtilizationRates)) {
		nvmlUtilization_t u;
		rc = CALL(m, nvmlDeviceGetUtilizationRates, dev, &u);
		if (rc == NVML_SUCCESS) {
			GA_SET(g->utilization_gpu_pct, u.gpu);
			GA_SET(g->utilization_memory_pct, u.memory);
		} else if (note(m, g, "nvmlDeviceGetUtilizationRates", rc) < 0) {
			return -ENOMEM;
		}
	}
	U32(m, g, pcie_gen, nvmlDeviceGetCurrPcieLinkGeneration, dev);
	U32(m, g, pcie_gen_max, nvmlDeviceGetMaxPcieLinkGeneration, dev);
	U32(m, g, pcie_width, nvmlDeviceGetCurrPcieLinkWidth, dev);
	U32(m, g, pcie_width_max, nvmlDeviceGetMaxPcieLinkWidth, dev);
	U32(m, g, pcie_tx_kbps, nvmlDeviceGetPcieThroughput, dev, NVML_PCIE_UTIL_TX_BYTES);
	U32(m, g, pcie_rx_kbps, nvmlDeviceGetPcieThroughput, dev, NVML_PCIE_UTIL_RX_BYTES);
	U32(m, g, pcie_replay_count, nvmlDeviceGetPcieReplayCounter, dev);
	return 0;
}

/* The four data-link counters; a link whose counters are not supported keeps them absent. */
static int nvlink_errors(struct nvml *m, nvmlDevice_t dev, unsigned l, struct ga_nvml_gpu *g,
                         struct ga_nvml_link *lk)
{
	if (!HAVE(m, nvmlDeviceGetNvLinkErrorCounter))
		return 0;
	const struct {
		int counter;
		struct ga_ou64 *dst;
	} c[] = {
		{ NVML_NVLINK_ERROR_DL_REPLAY, &lk->replay_errors },
		{ NVML_NVLINK_ERROR_DL_RECOVERY, &lk->recovery_errors },
		{ NVML_NVLINK_ERROR_DL_CRC_FLIT, &lk->crc_flit_errors },
		{ NVML_NVLINK_ERROR_DL_CRC_DATA, &lk->crc_data_errors },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE(c); i++) {
		unsigned long long v = 0;
		nvmlReturn_t rc = CALL(m, nvmlDeviceGetNvLinkErrorCounter, dev, l, c[i].counter, &v);
		if (rc == NVML_SUCCESS)
			GA_SET(*c[i].dst, v);
		else if (note(m, g, "nvmlDeviceGetNvLinkErrorCounter", rc) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int nvlinks(struct nvml *m, nvmlDevice_t dev, struct ga_nvml_gpu *g)
{
	if (!HAVE(m, nvmlDeviceGetNvLinkState))
		return 0;
	static const char *const types[] = { "gpu", "ibmnpu", "switch" };
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		int active = 0;
		nvmlReturn_t rc = CALL(m, nvmlDeviceGetNvLinkState, dev, l, &active);
		if (rc != NVML_SUCCESS)
			continue; /* INVALID_ARGUMENT / NOT_SUPPORTED: no such link */
		struct ga_nvml_link *lk = ga_array_push((void **)&g->nvlinks, &g->n_nvlinks, sizeof(*lk));
		if (!lk)
			return -ENOMEM;
		GA_SET(lk->link, l);
		GA_SET(lk->active, active == NVML_FEATURE_ENABLED);
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof(pci));
		if (HAVE(m, nvmlDeviceGetNvLinkRemotePciInfo_v2) &&
		    CALL(m, nvmlDeviceGetNvLinkRemotePciInfo_v2, dev, l, &pci) == NVML_SUCCESS) {
			pci.busId[sizeof(pci.busId) - 1] = '\0';
			if (normalize_bus_id(pci.busId, &lk->remote_bus_id) < 0)
				return -ENOMEM;
		}
		int type = 0;
		if (HAVE(m, nvmlDeviceGetNvLinkRemoteDeviceType) &&
		    CALL(m, nvmlDeviceGetNvLinkRemoteDeviceType, dev, l, &type) == NVML_SUCCESS &&
		    set_str(&lk->remote_type, type >= 0 && type <= 2 ? types[type] : "unknown") < 0)
			return -ENOMEM;
		unsigned int ver = 0;
		if (HAVE(m, nvmlDeviceGetNvLinkVersion) &&
		    CALL(m, nvmlDeviceGetNvLinkVersion, dev, l, &ver) == NVML_SUCCESS)
			GA_SET(lk->version, ver);
		if (nvlink_errors(m, dev, l, g, lk) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* "GPU fabric": the GPU's registration with the NVSwitch fabric (Fabric Manager / NVLSM). */
static const char *fabric_state_name(unsigned state)
{
	switch (state) {
	case NVML_GPU_FABRIC_STATE_NOT_STARTED:
		return "not_started";
	case NVML_GPU_FABRIC_STATE_IN_PROGRESS:
		return "in_progress";
	case NVML_GPU_FABRIC_STATE_COMPLETED:
		return "completed";
	default:
		return NULL; /* NOT_SUPPORTED and values this build does not know: absent */
	}
}

static int fabric_health(struct ga_nvml_gpu *g, unsigned mask, bool v3, unsigned summary)
{
	static const struct {
		unsigned shift;
		const char *name;
	} flags[] = {
		{ NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_SHIFT, "degraded_bw" },
		{ NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_SHIFT, "route_recovery" },
		{ NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_SHIFT, "route_unhealthy" },
		{ NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_SHIFT, "access_timeout_recovery" },
	};
	GA_SET(g->fabric_health_mask, mask);
	for (size_t i = 0; i < GA_ARRAY_SIZE(flags); i++)
		if (((mask >> flags[i].shift) & NVML_GPU_FABRIC_HEALTH_MASK_TWO_STATE_WIDTH) ==
		            NVML_GPU_FABRIC_HEALTH_MASK_TRUE &&
		    ga_strv_push(&g->fabric_health_flags, flags[i].name) < 0)
			return -ENOMEM;
	const char *s = !v3                                                          ? NULL
	                : summary == NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY          ? "healthy"
	                : summary == NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY        ? "unhealthy"
	                : summary == NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY ? "limited_capacity"
	                                                                             : NULL;
	return s ? set_str(&g->fabric_health_summary, s) : 0;
}

static int fabric_fill(struct nvml *m, struct ga_nvml_gpu *g, const unsigned char uuid[16],
                       nvmlReturn_t status, unsigned clique, unsigned state)
{
	const char *name = fabric_state_name(state);
	if (!name)
		return 0;
	if (set_str(&g->fabric_state, name) < 0)
		return -ENOMEM;
	GA_SET(g->fabric_clique_id, clique);
	bool any = false;
	for (size_t i = 0; i < NVML_GPU_FABRIC_UUID_LEN; i++)
		any |= uuid[i] != 0;
	if (any) {
		char u[40];
		snprintf(u, sizeof(u), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		         uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8],
		         uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
		if (set_str(&g->fabric_cluster_uuid, u) < 0)
			return -ENOMEM;
	}
	if (state == NVML_GPU_FABRIC_STATE_COMPLETED) { /* status means something only then */
		GA_SET(g->fabric_status, status);
		if (status != NVML_SUCCESS && set_str(&g->fabric_status_text, errstr(m, status)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* v3, then v2 (550-575 drivers refuse v3 with ARGUMENT_VERSION_MISMATCH), then the v1 call. */
static int fabric(struct nvml *m, nvmlDevice_t dev, struct ga_nvml_gpu *g)
{
	nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
	if (HAVE(m, nvmlDeviceGetGpuFabricInfoV)) {
		const unsigned versions[] = { NVML_GPU_FABRIC_INFO_V3, NVML_GPU_FABRIC_INFO_V2 };
		for (size_t i = 0; i < GA_ARRAY_SIZE(versions); i++) {
			nvmlGpuFabricInfo_v3_t fi;
			memset(&fi, 0, sizeof(fi));
			fi.version = versions[i];
			rc = CALL(m, nvmlDeviceGetGpuFabricInfoV, dev, &fi);
			if (rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
				continue;
			if (rc != NVML_SUCCESS)
				break;
			if (fabric_fill(m, g, fi.clusterUuid, fi.status, fi.cliqueId, fi.state) < 0 ||
			    (g->fabric_state &&
			     fabric_health(g, fi.healthMask, i == 0, fi.healthSummary) < 0))
				return -ENOMEM;
			return 0;
		}
	}
	/* no V, or a V that takes neither version: the unversioned call */
	if ((rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) &&
	    HAVE(m, nvmlDeviceGetGpuFabricInfo)) {
		nvmlGpuFabricInfo_t fi;
		memset(&fi, 0, sizeof(fi));
		rc = CALL(m, nvmlDeviceGetGpuFabricInfo, dev, &fi);
		if (rc == NVML_SUCCESS)
			return fabric_fill(m, g, fi.clusterUuid, fi.status, fi.cliqueId, fi.state);
	}
	if (rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
		return 0;
	return note(m, g, "nvmlDeviceGetGpuFabricInfoV", rc);
}

static int device(struct nvml *m, unsigned idx, nvmlDevice_t dev, struct ga_nvml_gpu *g)
{
	GA_SET(g->index, idx);
	STR(m, g, name, nvmlDeviceGetName, dev, NVML_DEVICE_NAME_V2_BUFFER_SIZE);
	if (g->error)
		return 0; /* lost: nothing else will answer */
	STR(m, g, uuid, nvmlDeviceGetUUID, dev, NVML_DEVICE_UUID_V2_BUFFER_SIZE);
	STR(m, g, serial, nvmlDeviceGetSerial, dev, NVML_DEVICE_SERIAL_BUFFER_SIZE);
	if (HAVE(m, nvmlDeviceGetPciInfo_v3)) {
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof(pci));
		nvmlReturn_t rc = CALL(m, nvmlDeviceGetPciInfo_v3, dev, &pci);
		if (rc == NVML_SUCCESS) {
			pci.busId[sizeof(pci.busId) - 1] = '\0';
			if (normalize_bus_id(pci.busId, &g->pci_bus_id) < 0)
				return -ENOMEM;
			GA_SET(g->pci_device_id, pci.pciDeviceId);
		} else if (note(m, g, "nvmlDeviceGetPciInfo_v3", rc) < 0) {
			return -ENOMEM;
		}
	}
	U32(m, g, minor, nvmlDeviceGetMinorNumber, dev);
	if (HAVE(m, nvmlDeviceGetMemoryInfo)) {
		nvmlMemory_t mem;
		nvmlReturn_t rc = CALL(m, nvmlDeviceGetMemoryInfo, dev, &mem);
		if (rc == NVML_SUCCESS) {
			GA_SET(g->memory_total_bytes, mem.total);
			GA_SET(g->memory_used_bytes, mem.used);
			GA_SET(g->memory_free_bytes, mem.free);
		} else if (note(m, g, "nvmlDeviceGetMemoryInfo", rc) < 0) {
			return -ENOMEM;
		}
	}
	if (HAVE(m, nvmlDeviceGetCudaComputeCapability)) {
		int major = 0, minor = 0;
		nvmlReturn_t rc = CALL(m, nvmlDeviceGetCudaComputeCapability, dev, &major, &minor);
		if (rc == NVML_SUCCESS) {
			char cc[24];
			snprintf(cc, sizeof(cc), "%d.%d", major, minor);
			if (set_str(&g->compute_capability, cc) < 0)
				return -ENOMEM;
		} else if (note(m, g, "nvmlDeviceGetCudaComputeCapability", rc) < 0) {
			return -ENOMEM;
		}
	}
	if (HAVE(m, nvmlDeviceGetPersistenceMode)) {
		int pm = 0;
		nvmlReturn_t rc = CALL(m, nvmlDeviceGetPersistenceMode, dev, &pm);
		if (rc == NVML_SUCCESS)
			GA_SET(g->persistence_mode, pm == NVML_FEATURE_ENABLED);
		else if (note(m, g, "nvmlDeviceGetPersistenceMode", rc) < 0)
			return -ENOMEM;
	}
	if (g->error)
		return 0;
	int r = mig(m, dev, g);
	if (r == 0)
		r = health(m, dev, g);
	if (r == 0)
		r = telemetry(m, dev, g);
	if (r == 0)
		r = nvlinks(m, dev, g);
	if (r == 0)
		r = fabric(m, dev, g);
	return r;
}

/* nvidia-smi topo -m: X self, NV# links joining the pair, else the PCIe path letter. */
static int topology(struct nvml *m, nvmlDevice_t *devs, unsigned n)
{
	struct ga_nvml_report *rep = m->rep;
	for (unsigned i = 0; i < n; i++) {
		struct ga_nvml_gpu *a = &rep->gpus[i];
		for (unsigned j = 0; j < n; j++) {
			struct ga_nvml_gpu *b = &rep->gpus[j];
			char cell[16] = "";
			if (i == j) {
				snprintf(cell, sizeof(cell), "X");
			} else if (a->error || b->error || !devs[i] || !devs[j]) {
				snprintf(cell, sizeof(cell), "?");
			} else {
				/* direct links to the peer, or both ends on NVSwitches (DGX/HGX): the
				 * switch case counts the smaller number of active switch links */
				unsigned direct = 0, sw_a = 0, sw_b = 0;
				for (size_t k = 0; k < a->n_nvlinks; k++) {
					const struct ga_nvml_link *l = &a->nvlinks[k];
					if (!l->active.v)
						continue;
					if (l->remote_bus_id && b->pci_bus_id &&
					    !strcmp(l->remote_bus_id, b->pci_bus_id))
						direct++;
					if (l->remote_type && !strcmp(l->remote_type, "switch"))
						sw_a++;
				}
				for (size_t k = 0; k < b->n_nvlinks; k++)
					if (b->nvlinks[k].active.v && b->nvlinks[k].remote_type &&
					    !strcmp(b->nvlinks[k].remote_type, "switch"))
						sw_b++;
				unsigned nv =
				        direct ? direct : (sw_a && sw_b ? (sw_a < sw_b ? sw_a : sw_b) : 0);
				if (nv) {
					snprintf(cell, sizeof(cell), "NV%u", nv);
				} else if (HAVE(m, nvmlDeviceGetTopologyCommonAncestor)) {
					int lvl = -1;
					if (CALL(m, nvmlDeviceGetTopologyCommonAncestor, devs[i], devs[j],
					         &lvl) != 0)
						lvl = -1;
					const char *s = lvl == NVML_TOPOLOGY_INTERNAL     ? "PSB"
					                : lvl == NVML_TOPOLOGY_SINGLE     ? "PIX"
					                : lvl == NVML_TOPOLOGY_MULTIPLE   ? "PXB"
					                : lvl == NVML_TOPOLOGY_HOSTBRIDGE ? "PHB"
					                : lvl == NVML_TOPOLOGY_NODE       ? "NODE"
					                : lvl == NVML_TOPOLOGY_SYSTEM     ? "SYS"
					                                                  : "?";
					snprintf(cell, sizeof(cell), "%s", s);
				} else {
					snprintf(cell, sizeof(cell), "?");
				}
			}
			if (ga_strv_push(&a->topology, cell) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Open NVML (LIBS: the names to try; NULL: libs.def's) and bind syms into m
 * through the one loader (lib/dl). 0, with the optional symbols the library
 * lacks recorded; 1 with the error recorded in rep->sys (dlopen: no name
 * loaded; dlsym: a required symbol missing, the library closed again);
 * -ENOMEM.
 */
static int open_lib(struct nvml *m, const char *const *libs, const char **ret_path)
{
	struct ga_nvml *sys = &m->rep->sys;
	struct ga_dl_status st;
	ga_progress(m->ctx, "dlopen");
	m->lib = ga_dl_open(GA_DL_NVML, libs, NULL, syms, GA_ARRAY_SIZE(syms), m, &st);
	if (!m->lib && !st.loaded) {
		char msg[320];
		snprintf(msg, sizeof(msg), "library not found: %s (%s)",
		         libs && libs[0] ? libs[0] : ga_dl_libs[GA_DL_NVML].sonames[0], st.error);
		return sys_error(m, "dlopen", NVML_ERROR_LIBRARY_NOT_FOUND, msg) < 0 ? -ENOMEM : 1;
	}
	if (!m->lib) { /* the library that loaded is named, as when it binds */
		char msg[256];
		if (set_str(&sys->library, st.loaded) < 0)
			return -ENOMEM;
		snprintf(msg, sizeof(msg), "%s lacks the required symbol %s", st.loaded, st.missing);
		return sys_error(m, "dlsym", NVML_ERROR_FUNCTION_NOT_FOUND, msg) < 0 ? -ENOMEM : 1;
	}
	*ret_path = st.loaded;
	for (size_t i = 0; i < GA_ARRAY_SIZE(syms); i++) {
		void *p;
		memcpy(&p, (char *)m + syms[i].off, sizeof(p));
		if (!p && ga_strv_push(&sys->missing_symbols, syms[i].names[0]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int ga_nvml_collect_from(struct ga_ctx *ctx, const char *const *libs, struct ga_nvml_report **ret)
{
	struct nvml m;
	memset(&m, 0, sizeof(m));
	m.ctx = ctx;
	m.rep = ga_calloc(1, sizeof(*m.rep));
	if (!m.rep)
		return -ENOMEM;
	struct ga_nvml *sys = &m.rep->sys;
	nvmlDevice_t *devs = NULL;
	int r = 0;
	bool inited = false;

	const char *path = NULL;
	if ((r = open_lib(&m, libs, &path)) != 0 || (r = set_str(&sys->library, path)) < 0)
		goto out;

	nvmlReturn_t rc = CALL(&m, nvmlInit_v2);
	if (rc != NVML_SUCCESS) {
		r = sys_error(&m, "nvmlInit_v2", rc, errstr(&m, rc));
		goto out;
	}
	inited = true;
	char buf[NVML_DRIVER_VERSION_BUFFER_SIZE];
	if (HAVE(&m, nvmlSystemGetDriverVersion) &&
	    CALL(&m, nvmlSystemGetDriverVersion, buf, sizeof(buf)) == NVML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		if ((r = set_str(&sys->driver_version, buf)) < 0)
			goto out;
	}
	if (HAVE(&m, nvmlSystemGetNVMLVersion) &&
	    CALL(&m, nvmlSystemGetNVMLVersion, buf, sizeof(buf)) == NVML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		if ((r = set_str(&sys->nvml_version, buf)) < 0)
			goto out;
	}
	int cuda = 0;
	if (HAVE(&m, nvmlSystemGetCudaDriverVersion_v2) &&
	    CALL(&m, nvmlSystemGetCudaDriverVersion_v2, &cuda) == NVML_SUCCESS && cuda > 0) {
		snprintf(buf, sizeof(buf), "%d.%d", cuda / 1000, (cuda % 1000) / 10);
		if ((r = set_str(&sys->cuda_driver_version, buf)) < 0)
			goto out;
	}
	unsigned int count = 0;
	rc = CALL(&m, nvmlDeviceGetCount_v2, &count);
	if (rc != NVML_SUCCESS) {
		r = sys_error(&m, "nvmlDeviceGetCount_v2", rc, errstr(&m, rc));
		goto out;
	}
	GA_SET(sys->device_count, count);
	if (count > 256)
		count = 256;
	devs = ga_calloc(count ? count : 1, sizeof(*devs));
	if (!devs) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < count; i++) {
		struct ga_nvml_gpu *g = ga_array_push((void **)&m.rep->gpus, &m.rep->n_gpus, sizeof(*g));
		if (!g) {
			r = -ENOMEM;
			goto out;
		}
		rc = CALL(&m, nvmlDeviceGetHandleByIndex_v2, i, &devs[i]);
		if (rc != NVML_SUCCESS) {
			devs[i] = NULL;
			GA_SET(g->index, i);
			GA_SET(g->error_code, rc);
			if ((r = set_str(&g->error, errstr(&m, rc))) < 0)
				goto out;
			continue;
		}
		if ((r = device(&m, i, devs[i], g)) < 0)
			goto out;
	}
	r = topology(&m, devs, count);
out:
	if (inited)
		CALL(&m, nvmlShutdown);
	ga_dl_close(m.lib);
	ga_free(devs);
	if (r < 0) {
		ga_schema_release(&ga_nvml_report_schema, m.rep);
		ga_free(m.rep);
		return r;
	}
	*ret = m.rep;
	return 0;
}

int ga_nvml_collect(struct ga_ctx *ctx, struct ga_nvml_report **ret)
{
	return ga_nvml_collect_from(ctx, NULL, ret);
}

/* --- events (the helper's "nvml-events MS" mode) --- */

/* One wait call at most this long, so the progress page shows the helper is alive. */
#define EVENT_SLICE_MS 1000u

struct evgpu {
	nvmlDevice_t dev;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	char *bus_id;
};

static int ev_error(struct ga_nvml_events *e, const char *call, nvmlReturn_t rc, const char *text)
{
	GA_SET(e->error_code, rc);
	if (set_str(&e->error_call, call) < 0 || set_str(&e->error, text) < 0)
		return -ENOMEM;
	return 0;
}

static int ev_push(struct ga_nvml_events *e, const struct evgpu *gpus, unsigned n, const nvmlEventData_t *d,
                   double t0)
{
	struct ga_nvml_event *ev = ga_array_push((void **)&e->events, &e->n_events, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	GA_SET(ev->after_ms, (double)(uint64_t)(ga_mono_ms() - t0)); /* whole ms */
	GA_SET(ev->event_type, d->eventType);
	const char *type = d->eventType == nvmlEventTypeXidCriticalError    ? "xid"
	                   : d->eventType == nvmlEventTypeDoubleBitEccError ? "ecc_dbe"
	                   : d->eventType == nvmlEventTypeSingleBitEccError ? "ecc_sbe"
	                                                                    : "other";
	if (set_str(&ev->type, type) < 0)
		return -ENOMEM;
	if (d->eventType == nvmlEventTypeXidCriticalError)
		GA_SET(ev->xid, d->eventData);
	for (unsigned i = 0; i < n; i++) {
		if (gpus[i].dev != d->device)
			continue;
		GA_SET(ev->gpu, i);
		if ((gpus[i].uuid[0] && set_str(&ev->uuid, gpus[i].uuid) < 0) ||
		    (gpus[i].bus_id && set_str(&ev->pci_bus_id, gpus[i].bus_id) < 0))
			return -ENOMEM;
		break;
	}
	return 0;
}

/* The GPU's address: _v3, else the legacy struct's numbers (its busId text is 16 bytes). */
static int ev_bus_id(struct nvml *m, nvmlDevice_t dev, char **ret)
{
	nvmlPciInfo_t pci;
	memset(&pci, 0, sizeof(pci));
	if (HAVE(m, nvmlDeviceGetPciInfo_v3) && CALL(m, nvmlDeviceGetPciInfo_v3, dev, &pci) == NVML_SUCCESS) {
		pci.busId[sizeof(pci.busId) - 1] = '\0';
		return normalize_bus_id(pci.busId, ret);
	}
	nvmlPciInfoLegacy_t old;
	memset(&old, 0, sizeof(old));
	if (HAVE(m, nvmlDeviceGetPciInfo_v2) && CALL(m, nvmlDeviceGetPciInfo_v2, dev, &old) == NVML_SUCCESS) {
		char b[32];
		snprintf(b, sizeof(b), "%04x:%02x:%02x.0", old.domain & 0xffff, old.bus & 0xff,
		         old.device & 0x1f);
		return set_str(ret, b);
	}
	return 0;
}

/* Register every GPU, then wait in slices until wait_ms is spent. */
static int ev_run(struct nvml *m, struct ga_nvml_events *e, unsigned wait_ms)
{
	unsigned int count = 0;
	nvmlReturn_t rc = CALL(m, nvmlDeviceGetCount_v2, &count);
	if (rc != NVML_SUCCESS)
		return ev_error(e, "nvmlDeviceGetCount_v2", rc, errstr(m, rc));
	if (count > 256)
		count = 256;
	struct evgpu *gpus = ga_calloc(count ? count : 1, sizeof(*gpus));
	nvmlEventSet_t set = NULL;
	int r = 0;
	if (!gpus)
		return -ENOMEM;
	if ((rc = CALL(m, nvmlEventSetCreate, &set)) != NVML_SUCCESS) {
		r = ev_error(e, "nvmlEventSetCreate", rc, errstr(m, rc));
		goto out;
	}
	const unsigned long long types = nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError |
	                                 nvmlEventTypeSingleBitEccError;
	unsigned registered = 0;
	for (unsigned i = 0; i < count; i++) {
		char why[160];
		if ((rc = CALL(m, nvmlDeviceGetHandleByIndex_v2, i, &gpus[i].dev)) != NVML_SUCCESS) {
			gpus[i].dev = NULL;
			snprintf(why, sizeof(why), "GPU %u: %s", i, errstr(m, rc));
			if ((r = ga_strv_push(&e->unregistered, why)) < 0)
				goto out;
			continue;
		}
		if (HAVE(m, nvmlDeviceGetUUID) && CALL(m, nvmlDeviceGetUUID, gpus[i].dev, gpus[i].uuid,
		                                       sizeof(gpus[i].uuid)) == NVML_SUCCESS)
			gpus[i].uuid[sizeof(gpus[i].uuid) - 1] = '\0';
		else
			gpus[i].uuid[0] = '\0';
		if ((r = ev_bus_id(m, gpus[i].dev, &gpus[i].bus_id)) < 0)
			goto out;
		/* all three, or Xid alone where a GPU without ECC refuses the ECC types */
		rc = CALL(m, nvmlDeviceRegisterEvents, gpus[i].dev, types, set);
		if (rc == NVML_ERROR_NOT_SUPPORTED)
			rc = CALL(m, nvmlDeviceRegisterEvents, gpus[i].dev, nvmlEventTypeXidCriticalError,
			          set);
		if (rc == NVML_SUCCESS) {
			registered++;
			continue;
		}
		snprintf(why, sizeof(why), "GPU %u: %s", i, errstr(m, rc));
		if ((r = ga_strv_push(&e->unregistered, why)) < 0)
			goto out;
	}
	GA_SET(e->registered_gpus, registered);
	GA_SET(e->live, registered > 0);
	if (!registered) {
		r = ev_error(e, "nvmlDeviceRegisterEvents", NVML_ERROR_NOT_SUPPORTED,
		             "no GPU accepted Xid event registration");
		goto out;
	}
	double t0 = ga_mono_ms(), end = t0 + wait_ms;
	for (;;) {
		double left = end - ga_mono_ms();
		if (left <= 0)
			break;
		unsigned slice = left < EVENT_SLICE_MS ? (unsigned)left + 1 : EVENT_SLICE_MS;
		nvmlEventData_t d;
		memset(&d, 0, sizeof(d));
		rc = CALL(m, nvmlEventSetWait_v2, set, &d, slice);
		if (rc == NVML_SUCCESS) {
			if ((r = ev_push(e, gpus, count, &d, t0)) < 0)
				goto out;
			if (e->n_events >= 4096)
				break; /* a storm: enough to decide */
		} else if (rc != NVML_ERROR_TIMEOUT) {
			/* GPU_IS_LOST and friends: the set is no longer live */
			GA_SET(e->live, false);
			r = ev_error(e, "nvmlEventSetWait_v2", rc, errstr(m, rc));
			break;
		}
	}
	GA_SET(e->waited_ms, (uint64_t)(ga_mono_ms() - t0));
out:
	if (set)
		CALL(m, nvmlEventSetFree, set);
	for (unsigned i = 0; i < count; i++)
		ga_free(gpus[i].bus_id);
	ga_free(gpus);
	return r;
}

int ga_nvml_events_collect(struct ga_ctx *ctx, unsigned wait_ms, struct ga_nvml_events **ret)
{
	struct nvml m;
	memset(&m, 0, sizeof(m));
	m.ctx = ctx;
	struct ga_nvml_report scratch; /* resolve() records into rep->sys */
	memset(&scratch, 0, sizeof(scratch));
	m.rep = &scratch;
	struct ga_nvml_events *e = ga_calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int r = 0;
	bool inited = false;
	const char *path = NULL;
	GA_SET(e->live, false);
	if ((r = open_lib(&m, NULL, &path)) != 0) {
		if (r > 0 && !m.lib && !strcmp(scratch.sys.error_call, "dlopen"))
			r = ev_error(e, "dlopen", NVML_ERROR_LIBRARY_NOT_FOUND,
			             "library not found: libnvidia-ml.so.1");
		else if (r > 0)
			r = ev_error(e, scratch.sys.error_call, NVML_ERROR_FUNCTION_NOT_FOUND,
			             scratch.sys.error);
		goto out;
	}
	if (!HAVE(&m, nvmlEventSetCreate) || !HAVE(&m, nvmlDeviceRegisterEvents) ||
	    !HAVE(&m, nvmlEventSetWait_v2) || !HAVE(&m, nvmlEventSetFree)) {
		r = ev_error(e, "dlsym", NVML_ERROR_FUNCTION_NOT_FOUND,
		             "this NVML has no event functions (nvmlEventSetCreate ...)");
		goto out;
	}
	nvmlReturn_t rc = CALL(&m, nvmlInit_v2);
	if (rc != NVML_SUCCESS) {
		r = ev_error(e, "nvmlInit_v2", rc, errstr(&m, rc));
		goto out;
	}
	inited = true;
	r = ev_run(&m, e, wait_ms);
out:
	if (inited)
		CALL(&m, nvmlShutdown);
	ga_dl_close(m.lib);
	ga_schema_release(&ga_nvml_report_schema, &scratch);
	if (r < 0) {
		ga_nvml_events_release(e);
		ga_free(e);
		return r;
	}
	*ret = e;
	return 0;
}
