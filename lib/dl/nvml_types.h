/*
 * nvml_types.h - the project's own declarations of the NVML subset it calls.
 *
 * No NVIDIA header is needed at build time. Layouts follow the NVML 13.3
 * header as summarised in shared/reference/nvml-api.md (LP64); each struct
 * size is asserted so a mistake fails the build, not a GPU node.
 */
#ifndef GA_NVML_TYPES_H
#define GA_NVML_TYPES_H

#include <stdint.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_UNKNOWN = 999,
};

enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum { NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT = 0, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT = 1 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum { NVML_NVLINK_MAX_LINKS = 36 };
enum { NVML_GPU_INSTANCE_PROFILE_COUNT = 0x12 };

enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50,
};

#define NVML_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30

typedef struct {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");

/* The pre-415 layout nvmlDeviceGetPciInfo / _v2 fill (16-byte busId, 4 reserved words). */
typedef struct {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	unsigned int reserved[4];
} nvmlPciInfoLegacy_t;
_Static_assert(sizeof(nvmlPciInfoLegacy_t) == 52, "nvmlPciInfoLegacy_t");

typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");

typedef struct {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t");

typedef struct {
	unsigned int version;
	unsigned int id;
	unsigned int isP2pSupported;
	unsigned int sliceCount;
	unsigned int instanceCount;
	unsigned int multiprocessorCount;
	unsigned int copyEngineCount;
	unsigned int decoderCount;
	unsigned int encoderCount;
	unsigned int jpegCount;
	unsigned int ofaCount;
	unsigned long long memorySizeMB;
	char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152, "nvmlGpuInstanceProfileInfo_v2_t");
_Static_assert(__builtin_offsetof(nvmlGpuInstanceProfileInfo_v2_t, memorySizeMB) == 48, "memorySizeMB");
#define NVML_GPU_INSTANCE_PROFILE_INFO_V2 (152u | (2u << 24))

/* Clock event (throttle) reason bits, stable since 415.13. */
#define NVML_CLOCKS_EVENT_GPU_IDLE 0x1ull
#define NVML_CLOCKS_EVENT_APP_CLOCKS 0x2ull
#define NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ull
#define NVML_CLOCKS_EVENT_HW_SLOWDOWN 0x8ull
#define NVML_CLOCKS_EVENT_SYNC_BOOST 0x10ull
#define NVML_CLOCKS_EVENT_SW_THERMAL 0x20ull
#define NVML_CLOCKS_EVENT_HW_THERMAL 0x40ull
#define NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x80ull
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCK 0x100ull

/* --- GPU fabric (NVSwitch / multi-node NVLink registration), Hopper and later --- */

#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_GPU_FABRIC_UUID_LEN 16
enum {
	NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0,
	NVML_GPU_FABRIC_STATE_NOT_STARTED = 1,
	NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2,
	NVML_GPU_FABRIC_STATE_COMPLETED = 3,
};
enum {
	NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED = 0,
	NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY = 1,
	NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY = 2,
	NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY = 3,
};
typedef unsigned char nvmlGpuFabricState_t;

/* nvmlDeviceGetGpuFabricInfo (525.53, deprecated in 13.0): no version field */
typedef struct {
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status; /* meaningful only when state is COMPLETED */
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_t;
_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t");
_Static_assert(__builtin_offsetof(nvmlGpuFabricInfo_t, state) == 24, "fabric v1 state");

/* nvmlDeviceGetGpuFabricInfoV: v2 from 550.40.07, v3 (= nvmlGpuFabricInfoV_t) from 580.65.06 */
typedef struct {
	unsigned int version;
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
	unsigned int healthMask;
	unsigned char healthSummary; /* v3 only */
} nvmlGpuFabricInfo_v3_t;
_Static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40, "nvmlGpuFabricInfo_v3_t");
_Static_assert(__builtin_offsetof(nvmlGpuFabricInfo_v3_t, healthMask) == 32, "healthMask");
_Static_assert(__builtin_offsetof(nvmlGpuFabricInfo_v3_t, healthSummary) == 36, "healthSummary");
/* the v2 struct is the v3 one without healthSummary: 36 bytes */
#define NVML_GPU_FABRIC_INFO_V2 (36u | (2u << 24))
#define NVML_GPU_FABRIC_INFO_V3 (40u | (3u << 24))
/* healthMask fields: (mask >> SHIFT) & WIDTH; two-state fields 0 n/a, 1 true, 2 false */
#define NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_SHIFT 0
#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_SHIFT 2
#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_SHIFT 4
#define NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_SHIFT 6
#define NVML_GPU_FABRIC_HEALTH_MASK_TWO_STATE_WIDTH 0x3u
#define NVML_GPU_FABRIC_HEALTH_MASK_TRUE 1u

/* --- NVLink error counters (nvmlNvLinkErrorCounter_t) --- */
enum {
	NVML_NVLINK_ERROR_DL_REPLAY = 0,
	NVML_NVLINK_ERROR_DL_RECOVERY = 1,
	NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
	NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
	NVML_NVLINK_ERROR_DL_ECC_DATA = 4,
};

/* --- events (nvmlEventSet*) --- */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
#define nvmlEventTypeSingleBitEccError 0x1ull
#define nvmlEventTypeDoubleBitEccError 0x2ull
#define nvmlEventTypeXidCriticalError 0x8ull
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData; /* the Xid for Xid events (999: unknown Xid), else 0 */
	unsigned int gpuInstanceId;   /* MIG-attributable Xids only, else 0xFFFFFFFF */
	unsigned int computeInstanceId;
} nvmlEventData_t;
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t");

#endif
