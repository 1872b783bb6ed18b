/* fake_nvml.c: a fake libnvidia-ml.so.1 for gpuaudit tests.
 *
 * Serves GPUs described by the JSON scenario named in $FAKE_NVML_SCENARIO (read at init).
 * ABI facts (signatures, struct layouts, return codes, versioned names) follow
 * shared/reference/nvml-api.md; there is no nvml.h here, every declaration is our own.
 * See tests/fakes/README.md for the scenario format.
 *
 * Build with -DFAKE_OLD_DRIVER for a pre-2018-style library: it exports only the
 * unversioned legacy names and functions that existed before 2018.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv, pause, kill, nanosleep under -std=c11 */
#endif
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

/* ---------------------------------------------------------------- ABI types */

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
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_UNKNOWN = 999,
};

typedef struct {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t is 68 bytes");

/* API-8 layout used by nvmlDeviceGetPciInfo / _v2 and NvLinkRemotePciInfo v1. */
typedef struct {
	char busId[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	unsigned int reserved0, reserved1, reserved2, reserved3;
} nvmlPciInfoLegacy_t;
_Static_assert(sizeof(nvmlPciInfoLegacy_t) == 52, "legacy nvmlPciInfo_t is 52 bytes");

typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t is 24 bytes");

typedef struct {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t is 8 bytes");

typedef struct {
	unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount;
	unsigned int copyEngineCount, decoderCount, encoderCount, jpegCount, ofaCount;
	unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "profile info v1 is 48 bytes");

typedef struct {
	unsigned int version;
	unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount;
	unsigned int copyEngineCount, decoderCount, encoderCount, jpegCount, ofaCount;
	unsigned long long memorySizeMB;
	char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152, "profile info v2 is 152 bytes");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, memorySizeMB) == 48, "v2 memorySizeMB@48");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, name) == 56, "v2 name@56");

typedef struct {
	unsigned int version;
	unsigned int id, sliceCount, instanceCount, multiprocessorCount;
	unsigned int copyEngineCount, decoderCount, encoderCount, jpegCount, ofaCount;
	unsigned long long memorySizeMB;
	char name[96];
	unsigned int capabilities;
} nvmlGpuInstanceProfileInfo_v3_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v3_t) == 152, "profile info v3 is 152 bytes");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v3_t, memorySizeMB) == 40, "v3 memorySizeMB@40");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v3_t, name) == 48, "v3 name@48");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v3_t, capabilities) == 144, "v3 caps@144");

#define PROFILE_INFO_V2 (152u | (2u << 24)) /* 0x02000098 */
#define PROFILE_INFO_V3 (152u | (3u << 24)) /* 0x03000098 */
#define NVML_GPU_INSTANCE_PROFILE_COUNT 0x12u

/* ------------------------------------------------------------ fake state */

#define MAX_GPUS 32
#define MAX_MIG 8
#define MAX_LINKS 36
#define MAX_PAGES 64
#define MAX_PROFILES 18
#define MAX_NAMES 48
#define NAME_LEN 64

typedef struct {
	unsigned int domain, bus, device, function;
	unsigned int pci_device_id, pci_subsystem_id;
	int valid;
} fake_pci;

typedef struct {
	int present, active, has_remote, remote_type, has_type, version;
	fake_pci remote;
	int has_errors;
	unsigned long long errors[4]; /* nvmlNvLinkErrorCounter_t: replay, recovery, crc_flit, crc_data */
} fake_link;

/* GPU fabric info (nvmlGpuFabricInfo_t / _v2_t / _v3_t, see the reference's fabric section) */
typedef struct {
	unsigned char clusterUuid[16];
	nvmlReturn_t status;
	unsigned int cliqueId;
	unsigned char state;
} nvmlGpuFabricInfo_t;
_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t is 28 bytes");
typedef struct {
	unsigned int version;
	unsigned char clusterUuid[16];
	nvmlReturn_t status;
	unsigned int cliqueId;
	unsigned char state;
	unsigned int healthMask;
	unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;
_Static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40, "nvmlGpuFabricInfo_v3_t is 40 bytes");
#define FABRIC_INFO_V2 (36u | (2u << 24)) /* 0x02000024 */
#define FABRIC_INFO_V3 (40u | (3u << 24)) /* 0x03000028 */

typedef struct {
	int present;
	unsigned int max_version; /* 1: only the unversioned call answers; 2: V accepts v2; 3: v2 and v3 */
	unsigned char uuid[16];
	int status;
	unsigned int clique;
	unsigned int state, health_mask, health_summary;
} fake_fabric;

/* Events (nvmlEventData_t, 32 bytes) */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t is 32 bytes");
#define EVENT_SBE 0x1ull
#define EVENT_DBE 0x2ull
#define EVENT_XID 0x8ull
#define EVENTS_SUPPORTED (EVENT_SBE | EVENT_DBE | EVENT_XID)
#define NVML_ERROR_TIMEOUT 10
#define MAX_EVENTS 64

typedef struct {
	int present;
	unsigned int id, p2p, slices, instances, sms, ce, dec, enc, jpeg, ofa;
	unsigned long long mem_mb;
	char name[96];
} fake_profile;

typedef struct {
	unsigned long long total, free, used;
} fake_mem;

struct nvmlDevice_st {
	int in_use;
	int is_mig;
	struct nvmlDevice_st *parent; /* MIG handles only */
	unsigned int index;           /* GPU index, or MIG slot index */
	char name[96], uuid[96], serial[32];
	int has_serial;
	fake_pci pci;
	int has_minor;
	unsigned int minor;
	int lost;          /* 1: handle fails with 15; 2: handle works, every call fails with 15 */
	int no_permission; /* GetHandleByIndex_v2 returns 4; v1 count skips it */
	char not_supported[MAX_NAMES][NAME_LEN];
	int n_not_supported;
	char hang_in[MAX_NAMES][NAME_LEN];
	int n_hang_in;
	int has_mem;
	fake_mem mem;
	int has_cc, cc_major, cc_minor;
	int has_persistence, persistence;
	/* MIG */
	int has_mig, mig_current, mig_pending;
	unsigned int mig_max;
	struct nvmlDevice_st *mig[MAX_MIG];
	unsigned int gi_id, ci_id; /* MIG handles */
	fake_profile profiles[MAX_PROFILES];
	int has_profiles;
	/* ECC and memory health */
	int has_ecc, ecc_current, ecc_pending;
	unsigned long long ecc_errors[2][2]; /* [type][counter] */
	int has_retired;
	unsigned long long retired[2][MAX_PAGES];
	unsigned long long retired_ts[2][MAX_PAGES];
	unsigned int n_retired[2];
	int retired_pending;
	int has_remap;
	unsigned int remap_corr, remap_unc, remap_pending, remap_failure;
	/* clocks, thermals, power */
	int has_clock[4], has_max_clock[4];
	unsigned int clock[4], max_clock[4];
	int has_reasons;
	unsigned long long reasons;
	int has_temp;
	unsigned int temp;
	int has_power;
	unsigned int power;
	int has_power_limit;
	unsigned int power_limit;
	int has_util;
	nvmlUtilization_t util;
	/* PCIe */
	int has_gen, has_max_gen, has_width, has_max_width, has_tx, has_rx, has_replay;
	unsigned int gen, max_gen, width, max_width, tx, rx, replay;
	/* NVLink */
	unsigned int n_links;
	fake_link links[MAX_LINKS];
	fake_fabric fabric;
	/* topology level to each GPU index; -1 = not given */
	int topo[MAX_GPUS];
};

static struct nvmlDevice_st g_gpus[MAX_GPUS];
static struct nvmlDevice_st g_migs[MAX_GPUS][MAX_MIG];
static unsigned int g_ngpus;
static int g_refcount;
static char g_driver[80], g_nvml[80];
static int g_has_cuda;
static int g_cuda;
static char g_hang_in[MAX_NAMES][NAME_LEN];
static int g_n_hang_in;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* events: delivered in order, each once per process, to a set registered for its GPU and type */
typedef struct {
	unsigned int gpu;
	unsigned long long type, data;
	unsigned int delay_ms;
} fake_event;
static fake_event g_events[MAX_EVENTS];
static unsigned int g_n_events;
struct nvmlEventSet_st {
	int in_use;
	unsigned long long mask[MAX_GPUS];
	unsigned int next; /* next scenario event to look at */
};
#define MAX_SETS 4
static struct nvmlEventSet_st g_sets[MAX_SETS];

#define API __attribute__((visibility("default")))

/* ------------------------------------------------------------ helpers */

static void hang_forever(void)
{
	for (;;)
		pause();
}

static int name_in(const char (*list)[NAME_LEN], int n, const char *sym, const char *family)
{
	for (int i = 0; i < n; i++)
		if (strcmp(list[i], sym) == 0 || (family && strcmp(list[i], family) == 0))
			return 1;
	return 0;
}

static void maybe_hang(const struct nvmlDevice_st *d, const char *sym, const char *family)
{
	if (name_in((const char(*)[NAME_LEN])g_hang_in, g_n_hang_in, sym, family))
		hang_forever();
	if (d && name_in(d->hang_in, d->n_hang_in, sym, family))
		hang_forever();
}

static int initialized(void)
{
	pthread_mutex_lock(&g_lock);
	int r = g_refcount > 0;
	pthread_mutex_unlock(&g_lock);
	return r;
}

static struct nvmlDevice_st *resolve(nvmlDevice_t h)
{
	struct nvmlDevice_st *d = h;
	uintptr_t p = (uintptr_t)d;
	uintptr_t g0 = (uintptr_t)g_gpus, g1 = g0 + sizeof(g_gpus);
	uintptr_t m0 = (uintptr_t)g_migs, m1 = m0 + sizeof(g_migs);
	if (p >= g0 && p < g1 && (p - g0) % sizeof(struct nvmlDevice_st) == 0 && d->in_use)
		return d;
	if (p >= m0 && p < m1 && (p - m0) % sizeof(struct nvmlDevice_st) == 0 && d->in_use)
		return d;
	return NULL;
}

static const struct nvmlDevice_st *gpu_of(const struct nvmlDevice_st *d)
{
	return d->is_mig ? d->parent : d;
}

/* Common per-device prologue. allow_mig: whether a MIG handle may use this call. */
static nvmlReturn_t dev_check(nvmlDevice_t h, const char *sym, const char *family, int allow_mig,
                              struct nvmlDevice_st **out)
{
	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	struct nvmlDevice_st *d = resolve(h);
	maybe_hang(d ? gpu_of(d) : NULL, sym, family);
	if (!d)
		return NVML_ERROR_INVALID_ARGUMENT;
	const struct nvmlDevice_st *g = gpu_of(d);
	if (g->lost)
		return NVML_ERROR_GPU_IS_LOST;
	if (name_in(g->not_supported, g->n_not_supported, sym, family))
		return NVML_ERROR_NOT_SUPPORTED;
	if (d->is_mig && !allow_mig)
		return NVML_ERROR_NOT_SUPPORTED;
	*out = d;
	return NVML_SUCCESS;
}

#define DEV(h, sym, family, allow_mig)                                               \
	struct nvmlDevice_st *d = NULL;                                              \
	do {                                                                         \
		nvmlReturn_t rc_ = dev_check((h), (sym), (family), (allow_mig), &d); \
		if (rc_ != NVML_SUCCESS)                                             \
			return rc_;                                                  \
	} while (0)

static nvmlReturn_t sys_check(const char *sym, const char *family)
{
	if (!initialized())
		return NVML_ERROR_UNINITIALIZED;
	maybe_hang(NULL, sym, family);
	return NVML_SUCCESS;
}

static nvmlReturn_t put_string(char *buf, unsigned int length, const char *s)
{
	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	size_t n = strlen(s);
	if ((size_t)length < n + 1)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, n + 1);
	return NVML_SUCCESS;
}

__attribute__((unused)) static void fill_pci(const fake_pci *p, nvmlPciInfo_t *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->busIdLegacy, sizeof(out->busIdLegacy), "%04X:%02X:%02X.%X", p->domain & 0xffffu, p->bus,
	         p->device, p->function);
	out->domain = p->domain;
	out->bus = p->bus;
	out->device = p->device;
	out->pciDeviceId = p->pci_device_id;
	out->pciSubSystemId = p->pci_subsystem_id;
	snprintf(out->busId, sizeof(out->busId), "%08X:%02X:%02X.%X", p->domain, p->bus, p->device,
	         p->function);
}

static void fill_pci_legacy(const fake_pci *p, nvmlPciInfoLegacy_t *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->busId, sizeof(out->busId), "%04X:%02X:%02X.%X", p->domain & 0xffffu, p->bus, p->device,
	         p->function);
	out->domain = p->domain;
	out->bus = p->bus;
	out->device = p->device;
	out->pciDeviceId = p->pci_device_id;
	out->pciSubSystemId = p->pci_subsystem_id;
}

/* ------------------------------------------------------------ scenario loading */

typedef struct {
	char msg[512];
} load_err;

static int fail(load_err *e, const char *what, const char *detail)
{
	snprintf(e->msg, sizeof(e->msg), "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	return -1;
}

/* Integer from a JSON integer or a string ("0x20B010DE", "42"). */
static int get_uint(json_t *v, unsigned long long *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		*out = (unsigned long long)i;
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end = NULL;
		errno = 0;
		unsigned long long x = strtoull(s, &end, 0);
		if (errno || end == s || *end)
			return -1;
		*out = x;
		return 0;
	}
	if (json_is_true(v)) {
		*out = 1;
		return 0;
	}
	if (json_is_false(v)) {
		*out = 0;
		return 0;
	}
	return -1;
}

/* Optional unsigned field: 0 absent, 1 present, -1 malformed. */
static int opt_uint(json_t *obj, const char *key, unsigned long long *out, load_err *e)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;
	if (!v || json_is_null(v))
		return 0;
	if (get_uint(v, out) != 0) {
		fail(e, "field is not an integer", key);
		return -1;
	}
	return 1;
}

#define OPT_U(obj, key, has, dst)                        \
	do {                                             \
		unsigned long long v_;                   \
		int r_ = opt_uint((obj), (key), &v_, e); \
		if (r_ < 0)                              \
			return -1;                       \
		if (r_ > 0) {                            \
			(dst) = v_;                      \
			has = 1;                         \
		}                                        \
	} while (0)

static int opt_str(json_t *obj, const char *key, char *dst, size_t cap, load_err *e)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return fail(e, "field is not a string", key);
	if (strlen(json_string_value(v)) >= cap)
		return fail(e, "string too long", key);
	snprintf(dst, cap, "%s", json_string_value(v));
	return 1;
}

static int parse_bus_id(const char *s, fake_pci *p)
{
	unsigned int dom, bus, dev, fn;
	char tail;
	if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4) {
		/* full form */
	} else if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &tail) == 3) {
		dom = 0;
	} else {
		return -1;
	}
	if (bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	p->domain = dom;
	p->bus = bus;
	p->device = dev;
	p->function = fn;
	p->valid = 1;
	return 0;
}

static int parse_pci(json_t *obj, const char *key, const char *devkey, const char *subkey, fake_pci *p,
                     load_err *e)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return 0;
	if (!json_is_string(v) || parse_bus_id(json_string_value(v), p) != 0)
		return fail(e, "bad PCI bus id", key);
	unsigned long long x;
	int r = opt_uint(obj, devkey, &x, e);
	if (r < 0)
		return -1;
	if (r > 0)
		p->pci_device_id = (unsigned int)x;
	r = opt_uint(obj, subkey, &x, e);
	if (r < 0)
		return -1;
	if (r > 0)
		p->pci_subsystem_id = (unsigned int)x;
	return 1;
}

static int parse_names(json_t *obj, const char *key, char list[][NAME_LEN], int *n, load_err *e)
{
	json_t *v = json_object_get(obj, key);
	*n = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v)) {
		snprintf(list[0], NAME_LEN, "%s", json_string_value(v));
		*n = 1;
		return 0;
	}
	if (!json_is_array(v))
		return fail(e, "must be an array of function names", key);
	size_t i;
	json_t *it;
	json_array_foreach(v, i, it)
	{
		if (!json_is_string(it))
			return fail(e, "must be an array of function names", key);
		if (*n >= MAX_NAMES)
			return fail(e, "too many names", key);
		snprintf(list[*n], NAME_LEN, "%s", json_string_value(it));
		(*n)++;
	}
	return 0;
}

/* Like OPT_U, for fields whose presence does not matter. */
#define OPT_V(obj, key, dst)              \
	do {                              \
		int h_ = 0;               \
		OPT_U(obj, key, h_, dst); \
		(void)h_;                 \
	} while (0)

static int parse_mem(json_t *obj, fake_mem *m, load_err *e)
{
	unsigned long long t = 0, f = 0, u = 0;
	int ht = 0, hf = 0, hu = 0;
	OPT_U(obj, "total", ht, t);
	OPT_U(obj, "free", hf, f);
	OPT_U(obj, "used", hu, u);
	if (!ht)
		return fail(e, "memory needs \"total\"", NULL);
	if (!hf && hu)
		f = t - u;
	if (!hu && hf)
		u = t - f;
	m->total = t;
	m->free = f;
	m->used = u;
	return 0;
}

static int parse_profile(json_t *p, fake_profile *out, load_err *e)
{
	int h = 0;
	unsigned long long x = 0;
	memset(out, 0, sizeof(*out));
	OPT_U(p, "id", h, x);
	if (!h || x >= MAX_PROFILES)
		return fail(e, "profile needs \"id\" < 18", NULL);
	out->id = (unsigned int)x;
	OPT_V(p, "is_p2p_supported", out->p2p);
	OPT_V(p, "slice_count", out->slices);
	OPT_V(p, "instance_count", out->instances);
	OPT_V(p, "multiprocessor_count", out->sms);
	OPT_V(p, "copy_engine_count", out->ce);
	OPT_V(p, "decoder_count", out->dec);
	OPT_V(p, "encoder_count", out->enc);
	OPT_V(p, "jpeg_count", out->jpeg);
	OPT_V(p, "ofa_count", out->ofa);
	OPT_V(p, "memory_size_mb", out->mem_mb);
	if (opt_str(p, "name", out->name, sizeof(out->name), e) < 0)
		return -1;
	out->present = 1;
	return 0;
}

static const char *const clock_keys[4] = { "graphics", "sm", "mem", "video" };

static int parse_gpu(json_t *j, unsigned int idx, struct nvmlDevice_st *d, load_err *e)
{
	memset(d, 0, sizeof(*d));
	d->in_use = 1;
	d->index = idx;
	for (int i = 0; i < MAX_GPUS; i++)
		d->topo[i] = -1;
	if (!json_is_object(j))
		return fail(e, "gpu entry is not an object", NULL);
	if (opt_str(j, "name", d->name, sizeof(d->name), e) < 0 ||
	    opt_str(j, "uuid", d->uuid, sizeof(d->uuid), e) < 0)
		return -1;
	int r = opt_str(j, "serial", d->serial, sizeof(d->serial), e);
	if (r < 0)
		return -1;
	d->has_serial = r;
	if (parse_pci(j, "pci_bus_id", "pci_device_id", "pci_subsystem_id", &d->pci, e) < 0)
		return -1;
	if (!d->pci.valid)
		return fail(e, "gpu needs \"pci_bus_id\"", NULL);
	OPT_U(j, "minor", d->has_minor, d->minor);
	json_t *lost = json_object_get(j, "lost");
	if (json_is_true(lost))
		d->lost = 1;
	else if (json_is_string(lost) && strcmp(json_string_value(lost), "after_handle") == 0)
		d->lost = 2;
	else if (lost && !json_is_false(lost) && !json_is_null(lost))
		return fail(e, "\"lost\" must be true, false or \"after_handle\"", NULL);
	OPT_V(j, "no_permission", d->no_permission);
	if (parse_names(j, "not_supported", d->not_supported, &d->n_not_supported, e) < 0 ||
	    parse_names(j, "hang_in", d->hang_in, &d->n_hang_in, e) < 0)
		return -1;
	json_t *jm = json_object_get(j, "memory");
	if (jm) {
		if (parse_mem(jm, &d->mem, e) < 0)
			return -1;
		d->has_mem = 1;
	}
	json_t *cc = json_object_get(j, "cuda_compute_capability");
	if (cc) {
		if (!json_is_array(cc) || json_array_size(cc) != 2 ||
		    !json_is_integer(json_array_get(cc, 0)) || !json_is_integer(json_array_get(cc, 1)))
			return fail(e, "cuda_compute_capability must be [major, minor]", NULL);
		d->has_cc = 1;
		d->cc_major = (int)json_integer_value(json_array_get(cc, 0));
		d->cc_minor = (int)json_integer_value(json_array_get(cc, 1));
	}
	OPT_U(j, "persistence_mode", d->has_persistence, d->persistence);

	json_t *ecc = json_object_get(j, "ecc");
	if (ecc) {
		int hp = 0;
		OPT_V(ecc, "current", d->ecc_current);
		OPT_U(ecc, "pending", hp, d->ecc_pending);
		if (!hp)
			d->ecc_pending = d->ecc_current;
		OPT_V(ecc, "corrected_volatile", d->ecc_errors[0][0]);
		OPT_V(ecc, "corrected_aggregate", d->ecc_errors[0][1]);
		OPT_V(ecc, "uncorrected_volatile", d->ecc_errors[1][0]);
		OPT_V(ecc, "uncorrected_aggregate", d->ecc_errors[1][1]);
		d->has_ecc = 1;
	}
	json_t *rp = json_object_get(j, "retired_pages");
	if (rp) {
		static const char *const keys[2] = { "multiple_single_bit", "double_bit" };
		for (int c = 0; c < 2; c++) {
			json_t *arr = json_object_get(rp, keys[c]);
			if (!arr)
				continue;
			if (!json_is_array(arr) || json_array_size(arr) > MAX_PAGES)
				return fail(e, "retired_pages lists must be arrays of at most 64 addresses",
				            keys[c]);
			size_t i;
			json_t *it;
			json_array_foreach(arr, i, it)
			{
				unsigned long long a;
				if (get_uint(it, &a) != 0)
					return fail(e, "bad retired page address", keys[c]);
				d->retired[c][i] = a;
				d->retired_ts[c][i] = 1700000000ull + i;
			}
			d->n_retired[c] = (unsigned int)json_array_size(arr);
		}
		OPT_V(rp, "pending", d->retired_pending);
		d->has_retired = 1;
	}
	json_t *rr = json_object_get(j, "remapped_rows");
	if (rr) {
		OPT_V(rr, "correctable", d->remap_corr);
		OPT_V(rr, "uncorrectable", d->remap_unc);
		OPT_V(rr, "pending", d->remap_pending);
		OPT_V(rr, "failure", d->remap_failure);
		d->has_remap = 1;
	}
	json_t *ck = json_object_get(j, "clocks");
	json_t *mck = json_object_get(j, "max_clocks");
	for (int t = 0; t < 4; t++) {
		OPT_U(ck, clock_keys[t], d->has_clock[t], d->clock[t]);
		OPT_U(mck, clock_keys[t], d->has_max_clock[t], d->max_clock[t]);
	}
	OPT_U(j, "clocks_event_reasons", d->has_reasons, d->reasons);
	OPT_U(j, "temperature", d->has_temp, d->temp);
	OPT_U(j, "power_usage", d->has_power, d->power);
	OPT_U(j, "power_limit", d->has_power_limit, d->power_limit);
	json_t *ut = json_object_get(j, "utilization");
	if (ut) {
		OPT_V(ut, "gpu", d->util.gpu);
		OPT_V(ut, "memory", d->util.memory);
		d->has_util = 1;
	}
	json_t *pcie = json_object_get(j, "pcie");
	OPT_U(pcie, "gen", d->has_gen, d->gen);
	OPT_U(pcie, "max_gen", d->has_max_gen, d->max_gen);
	OPT_U(pcie, "width", d->has_width, d->width);
	OPT_U(pcie, "max_width", d->has_max_width, d->max_width);
	OPT_U(pcie, "tx_kbps", d->has_tx, d->tx);
	OPT_U(pcie, "rx_kbps", d->has_rx, d->rx);
	OPT_U(pcie, "replay_counter", d->has_replay, d->replay);

	json_t *links = json_object_get(j, "nvlinks");
	if (links) {
		if (!json_is_array(links) || json_array_size(links) > MAX_LINKS)
			return fail(e, "nvlinks must be an array of at most 36 links", NULL);
		size_t i;
		json_t *l;
		json_array_foreach(links, i, l)
		{
			fake_link *fl = &d->links[i];
			unsigned long long act = 0;
			fl->present = 1;
			OPT_V(l, "active", act);
			fl->active = (int)act;
			int hr = parse_pci(l, "remote_pci_bus_id", "remote_pci_device_id",
			                   "remote_pci_subsystem_id", &fl->remote, e);
			if (hr < 0)
				return -1;
			fl->has_remote = hr;
			OPT_U(l, "remote_type", fl->has_type, fl->remote_type);
			int hv = 0;
			OPT_U(l, "version", hv, fl->version);
			if (!hv)
				fl->version = -1;
			/* counters: present (0) on every link unless "errors" is null */
			json_t *er = json_object_get(l, "errors");
			fl->has_errors = !json_is_null(er);
			static const char *const ek[4] = { "replay", "recovery", "crc_flit", "crc_data" };
			for (int k = 0; k < 4 && er; k++)
				OPT_V(er, ek[k], fl->errors[k]);
		}
		d->n_links = (unsigned int)json_array_size(links);
	}
	json_t *fab = json_object_get(j, "fabric");
	if (fab) {
		fake_fabric *f = &d->fabric;
		unsigned long long v = 3;
		f->present = 1;
		f->max_version = 3;
		OPT_V(fab, "max_version", f->max_version);
		OPT_V(fab, "state", f->state);
		v = 0;
		OPT_V(fab, "status", v);
		f->status = (int)v;
		OPT_V(fab, "clique_id", f->clique);
		OPT_V(fab, "health_mask", f->health_mask);
		OPT_V(fab, "health_summary", f->health_summary);
		char hex[40] = "";
		if (opt_str(fab, "cluster_uuid", hex, sizeof(hex), e) < 0)
			return -1;
		for (size_t k = 0, o = 0; hex[k] && o < 16; k++) {
			unsigned int b;
			if (hex[k] == '-')
				continue;
			if (sscanf(hex + k, "%2x", &b) != 1)
				return fail(e, "fabric.cluster_uuid must be hex", NULL);
			f->uuid[o++] = (unsigned char)b;
			k++;
		}
	}
	json_t *topo = json_object_get(j, "topology");
	if (topo) {
		if (!json_is_array(topo) || json_array_size(topo) > MAX_GPUS)
			return fail(e, "topology must be an array of levels, one per GPU index", NULL);
		size_t i;
		json_t *it;
		json_array_foreach(topo, i, it)
		{
			if (json_is_null(it))
				continue;
			if (!json_is_integer(it))
				return fail(e, "topology entries must be integers or null", NULL);
			d->topo[i] = (int)json_integer_value(it);
		}
	}

	json_t *mig = json_object_get(j, "mig");
	if (mig) {
		int hm = 0;
		OPT_V(mig, "current", d->mig_current);
		OPT_U(mig, "pending", hm, d->mig_pending);
		if (!hm)
			d->mig_pending = d->mig_current;
		OPT_V(mig, "max_devices", d->mig_max);
		if (d->mig_max > MAX_MIG)
			return fail(e, "mig.max_devices must be <= 8", NULL);
		json_t *profiles = json_object_get(mig, "profiles");
		if (profiles) {
			if (!json_is_array(profiles))
				return fail(e, "mig.profiles must be an array", NULL);
			size_t i;
			json_t *p;
			json_array_foreach(profiles, i, p)
			{
				fake_profile fp;
				if (parse_profile(p, &fp, e) < 0)
					return -1;
				d->profiles[fp.id] = fp;
			}
			d->has_profiles = 1;
		}
		json_t *devs = json_object_get(mig, "devices");
		if (devs) {
			if (!json_is_array(devs))
				return fail(e, "mig.devices must be an array", NULL);
			size_t i;
			json_t *md;
			json_array_foreach(devs, i, md)
			{
				unsigned long long slot = i;
				OPT_V(md, "index", slot);
				if (slot >= d->mig_max)
					return fail(e, "mig device index must be < mig.max_devices", NULL);
				struct nvmlDevice_st *m = &g_migs[idx][slot];
				memset(m, 0, sizeof(*m));
				m->in_use = 1;
				m->is_mig = 1;
				m->parent = &g_gpus[idx];
				m->index = (unsigned int)slot;
				if (opt_str(md, "name", m->name, sizeof(m->name), e) < 0 ||
				    opt_str(md, "uuid", m->uuid, sizeof(m->uuid), e) < 0)
					return -1;
				OPT_V(md, "gpu_instance_id", m->gi_id);
				OPT_V(md, "compute_instance_id", m->ci_id);
				json_t *mm = json_object_get(md, "memory");
				if (mm) {
					if (parse_mem(mm, &m->mem, e) < 0)
						return -1;
					m->has_mem = 1;
				}
				m->has_cc = d->has_cc;
				m->cc_major = d->cc_major;
				m->cc_minor = d->cc_minor;
				d->mig[slot] = m;
			}
		}
		d->has_mig = 1;
	}
	return 0;
}

static int load_event(json_t *ev, fake_event *fe, load_err *e)
{
	OPT_V(ev, "gpu", fe->gpu);
	OPT_V(ev, "data", fe->data);
	OPT_V(ev, "delay_ms", fe->delay_ms);
	return 0;
}

static int load_scenario(const char *path, int *init_rc, int *init_hang, load_err *e)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		char buf[400];
		snprintf(buf, sizeof(buf), "%s:%d:%d: %s", path, je.line, je.column, je.text);
		return fail(e, "cannot load scenario", buf);
	}
	int rc = -1;
	memset(g_gpus, 0, sizeof(g_gpus));
	memset(g_migs, 0, sizeof(g_migs));
	g_ngpus = 0;
	g_driver[0] = g_nvml[0] = 0;
	g_has_cuda = 0;
	*init_rc = NVML_SUCCESS;
	*init_hang = 0;
	if (!json_is_object(root)) {
		fail(e, "scenario is not a JSON object", path);
		goto out;
	}
	json_t *init = json_object_get(root, "init");
	if (init) {
		if (json_is_string(init) && strcmp(json_string_value(init), "ok") == 0)
			*init_rc = NVML_SUCCESS;
		else if (json_is_string(init) && strcmp(json_string_value(init), "hang") == 0)
			*init_hang = 1;
		else if (json_is_integer(init))
			*init_rc = (int)json_integer_value(init);
		else {
			fail(e, "\"init\" must be \"ok\", \"hang\" or an NVML return code", NULL);
			goto out;
		}
	}
	if (parse_names(root, "hang_in", g_hang_in, &g_n_hang_in, e) < 0)
		goto out;
	if (opt_str(root, "driver_version", g_driver, sizeof(g_driver), e) < 0 ||
	    opt_str(root, "nvml_version", g_nvml, sizeof(g_nvml), e) < 0)
		goto out;
	{
		unsigned long long v;
		int r = opt_uint(root, "cuda_driver_version", &v, e);
		if (r < 0)
			goto out;
		g_has_cuda = r;
		g_cuda = (int)v;
	}
	g_n_events = 0;
	memset(g_sets, 0, sizeof(g_sets));
	json_t *evs = json_object_get(root, "events");
	if (evs) {
		if (!json_is_array(evs) || json_array_size(evs) > MAX_EVENTS) {
			fail(e, "\"events\" must be an array of at most 64 events", NULL);
			goto out;
		}
		size_t i;
		json_t *ev;
		json_array_foreach(evs, i, ev)
		{
			fake_event *fe = &g_events[i];
			memset(fe, 0, sizeof(*fe));
			const char *t = json_string_value(json_object_get(ev, "type"));
			fe->type = !t                  ? 0
			           : !strcmp(t, "xid") ? EVENT_XID
			           : !strcmp(t, "dbe") ? EVENT_DBE
			           : !strcmp(t, "sbe") ? EVENT_SBE
			                               : 0;
			if (!fe->type) {
				fail(e, "events[].type must be \"xid\", \"dbe\" or \"sbe\"", NULL);
				goto out;
			}
			if (load_event(ev, fe, e) < 0)
				goto out;
		}
		g_n_events = (unsigned int)json_array_size(evs);
	}
	json_t *gpus = json_object_get(root, "gpus");
	if (gpus) {
		if (!json_is_array(gpus) || json_array_size(gpus) > MAX_GPUS) {
			fail(e, "\"gpus\" must be an array of at most 32 GPUs", NULL);
			goto out;
		}
		size_t i;
		json_t *g;
		json_array_foreach(gpus, i, g)
		{
			if (parse_gpu(g, (unsigned int)i, &g_gpus[i], e) < 0) {
				char why[sizeof(e->msg)];
				memcpy(why, e->msg, sizeof(why));
				snprintf(e->msg, sizeof(e->msg), "gpus[%zu]: %.480s", i, why);
				goto out;
			}
		}
		g_ngpus = (unsigned int)json_array_size(gpus);
	}
	rc = 0;
out:
	json_decref(root);
	if (rc != 0) {
		memset(g_gpus, 0, sizeof(g_gpus));
		memset(g_migs, 0, sizeof(g_migs));
		g_ngpus = 0;
	}
	return rc;
}

/* ------------------------------------------------------------ exported API */

API const char *nvmlErrorString(nvmlReturn_t result);
API nvmlReturn_t nvmlInit(void);
API nvmlReturn_t nvmlShutdown(void);
API nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);
API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);
API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
API nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length);
API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfoLegacy_t *pci);
API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
API nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int *mode);
API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, int *current, int *pending);
API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                             unsigned long long *eccCounts);
API nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                           unsigned long long *addresses);
API nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending);
API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock);
API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int *clock);
API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons);
API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp);
API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
API nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
API nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen);
API nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
API nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth);
API nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth);
API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter, unsigned int *value);
API nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value);
API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, int *isActive);
API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
                                                  nvmlPciInfoLegacy_t *pci);
API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version);
API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                     int *pathInfo);
API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, int counter,
                                                 unsigned long long *counterValue);
API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                          nvmlEventSet_t set);
API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
API nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
#ifndef FAKE_OLD_DRIVER
API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *info);
API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfo_v3_t *info);
API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfoLegacy_t *pci);
API nvmlReturn_t nvmlInit_v2(void);
API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                      unsigned int *pendingMode);
API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                     nvmlDevice_t *migDevice);
API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice);
API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device);
API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                     nvmlGpuInstanceProfileInfo_t *info);
API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                      nvmlGpuInstanceProfileInfo_v2_t *info);
API nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                              unsigned long long *addresses, unsigned long long *timestamps);
API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                           unsigned int *isPending, unsigned int *failureOccurred);
API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons);
API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                     nvmlPciInfo_t *pci);
API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, int *type);
#endif

API const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case 0:
		return "Success";
	case 1:
		return "Uninitialized";
	case 2:
		return "Invalid Argument";
	case 3:
		return "Not Supported";
	case 4:
		return "Insufficient Permissions";
	case 5:
		return "Already Initialized";
	case 6:
		return "Not Found";
	case 7:
		return "Insufficient Size";
	case 8:
		return "Insufficient External Power";
	case 9:
		return "Driver Not Loaded";
	case 10:
		return "Timeout";
	case 11:
		return "Interrupt Request Issue";
	case 12:
		return "NVML Shared Library Not Found";
	case 13:
		return "Function Not Found";
	case 14:
		return "Corrupted infoROM";
	case 15:
		return "GPU is lost";
	case 16:
		return "GPU requires reset";
	case 17:
		return "GPU access blocked by the operating system";
	case 18:
		return "Driver/library version mismatch";
	case 19:
		return "In use by another client";
	case 20:
		return "Insufficient Memory";
	case 21:
		return "No data";
	case 22:
		return "vGPU operation not available because ECC is enabled";
	case 23:
		return "Insufficient Resources";
	case 24:
		return "Frequency not supported";
	case 25:
		return "Argument version mismatch";
	case 26:
		return "Deprecated";
	case 27:
		return "Not Ready";
	case 28:
		return "GPU not found";
	case 29:
		return "Invalid state";
	case 30:
		return "Reset type not supported";
	default:
		return "Unknown Error";
	}
}

static nvmlReturn_t do_init(const char *sym)
{
	const char *path = getenv("FAKE_NVML_SCENARIO");
	pthread_mutex_lock(&g_lock);
	if (g_refcount > 0) {
		g_refcount++;
		pthread_mutex_unlock(&g_lock);
		return NVML_SUCCESS;
	}
	if (!path || !*path) {
		pthread_mutex_unlock(&g_lock);
		fprintf(stderr, "fake-nvml: %s: FAKE_NVML_SCENARIO is not set\n", sym);
		return NVML_ERROR_UNKNOWN;
	}
	load_err e = { { 0 } };
	int init_rc = 0, init_hang = 0;
	if (load_scenario(path, &init_rc, &init_hang, &e) != 0) {
		pthread_mutex_unlock(&g_lock);
		fprintf(stderr, "fake-nvml: %s: %s\n", sym, e.msg);
		return NVML_ERROR_UNKNOWN;
	}
	pthread_mutex_unlock(&g_lock);
	if (init_hang)
		hang_forever();
	maybe_hang(NULL, sym, "nvmlInit");
	if (init_rc != NVML_SUCCESS)
		return init_rc;
	pthread_mutex_lock(&g_lock);
	g_refcount++;
	pthread_mutex_unlock(&g_lock);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlInit(void)
{
	return do_init("nvmlInit");
}

API nvmlReturn_t nvmlShutdown(void)
{
	pthread_mutex_lock(&g_lock);
	if (g_refcount == 0) {
		pthread_mutex_unlock(&g_lock);
		return NVML_ERROR_UNINITIALIZED;
	}
	g_refcount--;
	pthread_mutex_unlock(&g_lock);
	return NVML_SUCCESS;
}

/* v2 count: every GPU. v1 count: skips GPUs the caller has no permission for. */
static nvmlReturn_t do_count(unsigned int *n, int v1, const char *sym)
{
	nvmlReturn_t rc = sys_check(sym, "nvmlDeviceGetCount");
	if (rc)
		return rc;
	if (!n)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned int c = 0;
	for (unsigned int i = 0; i < g_ngpus; i++)
		if (!(v1 && g_gpus[i].no_permission))
			c++;
	*n = c;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
	return do_count(deviceCount, 1, "nvmlDeviceGetCount");
}

static nvmlReturn_t do_handle(unsigned int index, nvmlDevice_t *device, int v1, const char *sym)
{
	nvmlReturn_t rc = sys_check(sym, "nvmlDeviceGetHandleByIndex");
	if (rc)
		return rc;
	unsigned int real = index;
	if (v1) {
		unsigned int seen = 0;
		real = g_ngpus;
		for (unsigned int i = 0; i < g_ngpus; i++) {
			if (g_gpus[i].no_permission)
				continue;
			if (seen++ == index) {
				real = i;
				break;
			}
		}
	}
	if (real >= g_ngpus || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct nvmlDevice_st *d = &g_gpus[real];
	maybe_hang(d, sym, "nvmlDeviceGetHandleByIndex");
	if (d->lost == 1)
		return NVML_ERROR_GPU_IS_LOST;
	if (d->no_permission)
		return NVML_ERROR_NO_PERMISSION;
	*device = d;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return do_handle(index, device, 1, "nvmlDeviceGetHandleByIndex");
}

API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	nvmlReturn_t rc = sys_check("nvmlSystemGetDriverVersion", NULL);
	if (rc)
		return rc;
	if (!g_driver[0])
		return NVML_ERROR_NOT_SUPPORTED;
	return put_string(version, length, g_driver);
}

API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	nvmlReturn_t rc = sys_check("nvmlSystemGetNVMLVersion", NULL);
	if (rc)
		return rc;
	if (!g_nvml[0])
		return NVML_ERROR_NOT_SUPPORTED;
	return put_string(version, length, g_nvml);
}

static nvmlReturn_t do_cuda_version(int *v, const char *sym)
{
	nvmlReturn_t rc = sys_check(sym, "nvmlSystemGetCudaDriverVersion");
	if (rc)
		return rc;
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!g_has_cuda)
		return 12; /* NVML_ERROR_LIBRARY_NOT_FOUND: no libcuda */
	*v = g_cuda;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	return do_cuda_version(cudaDriverVersion, "nvmlSystemGetCudaDriverVersion");
}

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	DEV(device, "nvmlDeviceGetName", NULL, 1);
	if (!d->name[0])
		return NVML_ERROR_NOT_SUPPORTED;
	return put_string(name, length, d->name);
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	DEV(device, "nvmlDeviceGetUUID", NULL, 1);
	if (!d->uuid[0])
		return NVML_ERROR_NOT_SUPPORTED;
	return put_string(uuid, length, d->uuid);
}

API nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
	DEV(device, "nvmlDeviceGetSerial", NULL, 0);
	if (!d->has_serial)
		return NVML_ERROR_NOT_SUPPORTED;
	return put_string(serial, length, d->serial);
}

static nvmlReturn_t do_pci_legacy(nvmlDevice_t device, nvmlPciInfoLegacy_t *pci, const char *sym)
{
	DEV(device, sym, "nvmlDeviceGetPciInfo", 0);
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci_legacy(&d->pci, pci);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfoLegacy_t *pci)
{
	return do_pci_legacy(device, pci, "nvmlDeviceGetPciInfo");
}

#ifndef FAKE_OLD_DRIVER
/* Real pre-415 drivers exported _v2 too; the old fake leaves out every _vN name. */
API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfoLegacy_t *pci)
{
	return do_pci_legacy(device, pci, "nvmlDeviceGetPciInfo_v2");
}
#endif

API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
	DEV(device, "nvmlDeviceGetMinorNumber", NULL, 0);
	if (!minorNumber)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_minor)
		return NVML_ERROR_NOT_SUPPORTED;
	*minorNumber = d->minor;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	DEV(device, "nvmlDeviceGetMemoryInfo", NULL, 1);
	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_mem)
		return NVML_ERROR_NOT_SUPPORTED;
	memory->total = d->mem.total;
	memory->free = d->mem.free;
	memory->used = d->mem.used;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
	DEV(device, "nvmlDeviceGetCudaComputeCapability", NULL, 1);
	if (!major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_cc)
		return NVML_ERROR_NOT_SUPPORTED;
	*major = d->cc_major;
	*minor = d->cc_minor;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int *mode)
{
	DEV(device, "nvmlDeviceGetPersistenceMode", NULL, 0);
	if (!mode)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_persistence)
		return NVML_ERROR_NOT_SUPPORTED;
	*mode = d->persistence;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, int *current, int *pending)
{
	DEV(device, "nvmlDeviceGetEccMode", NULL, 0);
	if (!current || !pending)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_ecc)
		return NVML_ERROR_NOT_SUPPORTED;
	*current = d->ecc_current;
	*pending = d->ecc_pending;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                             unsigned long long *eccCounts)
{
	DEV(device, "nvmlDeviceGetTotalEccErrors", NULL, 0);
	if (!eccCounts || errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_ecc || !d->ecc_current)
		return NVML_ERROR_NOT_SUPPORTED;
	*eccCounts = d->ecc_errors[errorType][counterType];
	return NVML_SUCCESS;
}

static nvmlReturn_t do_retired(nvmlDevice_t device, int cause, unsigned int *pageCount,
                               unsigned long long *addresses, unsigned long long *timestamps, const char *sym)
{
	DEV(device, sym, "nvmlDeviceGetRetiredPages", 0);
	if (!pageCount || cause < 0 || cause > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_retired)
		return NVML_ERROR_NOT_SUPPORTED;
	unsigned int n = d->n_retired[cause];
	if (*pageCount < n) {
		*pageCount = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	if (n > 0 && !addresses)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (unsigned int i = 0; i < n; i++) {
		addresses[i] = d->retired[cause][i];
		if (timestamps)
			timestamps[i] = d->retired_ts[cause][i];
	}
	*pageCount = n;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                           unsigned long long *addresses)
{
	return do_retired(device, cause, pageCount, addresses, NULL, "nvmlDeviceGetRetiredPages");
}

API nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending)
{
	DEV(device, "nvmlDeviceGetRetiredPagesPendingStatus", NULL, 0);
	if (!isPending)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_retired)
		return NVML_ERROR_NOT_SUPPORTED;
	*isPending = d->retired_pending ? 1 : 0;
	return NVML_SUCCESS;
}

static nvmlReturn_t do_clock(nvmlDevice_t device, int type, unsigned int *clock, int max, const char *sym)
{
	DEV(device, sym, NULL, 0);
	if (!clock || type < 0 || type > 3)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!(max ? d->has_max_clock[type] : d->has_clock[type]))
		return NVML_ERROR_NOT_SUPPORTED;
	*clock = max ? d->max_clock[type] : d->clock[type];
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock)
{
	return do_clock(device, type, clock, 0, "nvmlDeviceGetClockInfo");
}

API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int *clock)
{
	return do_clock(device, type, clock, 1, "nvmlDeviceGetMaxClockInfo");
}

static nvmlReturn_t do_reasons(nvmlDevice_t device, unsigned long long *reasons, const char *sym)
{
	DEV(device, sym, "nvmlDeviceGetCurrentClocksEventReasons", 0);
	if (!reasons)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_reasons)
		return NVML_ERROR_NOT_SUPPORTED;
	*reasons = d->reasons;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
	return do_reasons(device, reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
}

API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp)
{
	DEV(device, "nvmlDeviceGetTemperature", NULL, 0);
	if (!temp || sensorType != 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_temp)
		return NVML_ERROR_NOT_SUPPORTED;
	*temp = d->temp;
	return NVML_SUCCESS;
}

#define SIMPLE_UINT_GETTER(fn, has, field)                          \
	API nvmlReturn_t fn(nvmlDevice_t device, unsigned int *out) \
	{                                                           \
		DEV(device, #fn, NULL, 0);                          \
		if (!out)                                           \
			return NVML_ERROR_INVALID_ARGUMENT;         \
		if (!d->has)                                        \
			return NVML_ERROR_NOT_SUPPORTED;            \
		*out = d->field;                                    \
		return NVML_SUCCESS;                                \
	}

SIMPLE_UINT_GETTER(nvmlDeviceGetPowerUsage, has_power, power)
SIMPLE_UINT_GETTER(nvmlDeviceGetEnforcedPowerLimit, has_power_limit, power_limit)
SIMPLE_UINT_GETTER(nvmlDeviceGetCurrPcieLinkGeneration, has_gen, gen)
SIMPLE_UINT_GETTER(nvmlDeviceGetMaxPcieLinkGeneration, has_max_gen, max_gen)
SIMPLE_UINT_GETTER(nvmlDeviceGetCurrPcieLinkWidth, has_width, width)
SIMPLE_UINT_GETTER(nvmlDeviceGetMaxPcieLinkWidth, has_max_width, max_width)
SIMPLE_UINT_GETTER(nvmlDeviceGetPcieReplayCounter, has_replay, replay)

__attribute__((unused)) static int mig_active(const struct nvmlDevice_st *d)
{
	if (!d->has_mig || !d->mig_current)
		return 0;
	for (unsigned int i = 0; i < d->mig_max; i++)
		if (d->mig[i])
			return 1;
	return 0;
}

API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
	DEV(device, "nvmlDeviceGetUtilizationRates", NULL, 0);
	if (!utilization)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_util || (d->has_mig && d->mig_current))
		return NVML_ERROR_NOT_SUPPORTED;
	*utilization = d->util;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter, unsigned int *value)
{
	DEV(device, "nvmlDeviceGetPcieThroughput", NULL, 0);
	if (!value || counter < 0 || counter > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!(counter ? d->has_rx : d->has_tx))
		return NVML_ERROR_NOT_SUPPORTED;
	*value = counter ? d->rx : d->tx;
	return NVML_SUCCESS;
}

static nvmlReturn_t link_check(const struct nvmlDevice_st *d, unsigned int link)
{
	if (d->n_links == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (link >= d->n_links)
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, int *isActive)
{
	DEV(device, "nvmlDeviceGetNvLinkState", NULL, 0);
	if (!isActive)
		return NVML_ERROR_INVALID_ARGUMENT;
	nvmlReturn_t rc = link_check(d, link);
	if (rc)
		return rc;
	*isActive = d->links[link].active ? 1 : 0;
	return NVML_SUCCESS;
}

static nvmlReturn_t remote_link(nvmlDevice_t device, unsigned int link, const char *sym,
                                const fake_link **out)
{
	DEV(device, sym, "nvmlDeviceGetNvLinkRemotePciInfo", 0);
	nvmlReturn_t rc = link_check(d, link);
	if (rc)
		return rc;
	if (!d->links[link].has_remote)
		return NVML_ERROR_NOT_SUPPORTED;
	*out = &d->links[link];
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
                                                  nvmlPciInfoLegacy_t *pci)
{
	const fake_link *l = NULL;
	nvmlReturn_t rc = remote_link(device, link, "nvmlDeviceGetNvLinkRemotePciInfo", &l);
	if (rc)
		return rc;
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci_legacy(&l->remote, pci);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version)
{
	DEV(device, "nvmlDeviceGetNvLinkVersion", NULL, 0);
	if (!version)
		return NVML_ERROR_INVALID_ARGUMENT;
	nvmlReturn_t rc = link_check(d, link);
	if (rc)
		return rc;
	if (d->links[link].version < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*version = (unsigned int)d->links[link].version;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, int counter,
                                                 unsigned long long *counterValue)
{
	DEV(device, "nvmlDeviceGetNvLinkErrorCounter", NULL, 0);
	if (!counterValue || counter < 0 || counter > 4)
		return NVML_ERROR_INVALID_ARGUMENT;
	nvmlReturn_t rc = link_check(d, link);
	if (rc)
		return rc;
	if (!d->links[link].has_errors || counter == 4) /* DL_ECC_DATA: not on this fake */
		return NVML_ERROR_NOT_SUPPORTED;
	*counterValue = d->links[link].errors[counter];
	return NVML_SUCCESS;
}

/* --- events --- */

static struct nvmlEventSet_st *set_of(nvmlEventSet_t set)
{
	for (int i = 0; i < MAX_SETS; i++)
		if (set == &g_sets[i] && g_sets[i].in_use)
			return &g_sets[i];
	return NULL;
}

API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
	nvmlReturn_t rc = sys_check("nvmlEventSetCreate", NULL);
	if (rc)
		return rc;
	if (!set)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < MAX_SETS; i++)
		if (!g_sets[i].in_use) {
			memset(&g_sets[i], 0, sizeof(g_sets[i]));
			g_sets[i].in_use = 1;
			*set = &g_sets[i];
			return NVML_SUCCESS;
		}
	return NVML_ERROR_UNKNOWN;
}

API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
	DEV(device, "nvmlDeviceGetSupportedEventTypes", NULL, 0);
	if (!eventTypes)
		return NVML_ERROR_INVALID_ARGUMENT;
	*eventTypes = EVENTS_SUPPORTED;
	return NVML_SUCCESS;
}

/* NVML refuses the whole mask when one type is not supported (NOT_SUPPORTED). */
API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                          nvmlEventSet_t set)
{
	DEV(device, "nvmlDeviceRegisterEvents", NULL, 0);
	struct nvmlEventSet_st *es = set_of(set);
	if (!es)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (eventTypes & ~EVENTS_SUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	es->mask[d->index] |= eventTypes;
	return NVML_SUCCESS;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static nvmlReturn_t do_wait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms,
                            const char *sym)
{
	nvmlReturn_t rc = sys_check(sym, "nvmlEventSetWait");
	if (rc)
		return rc;
	struct nvmlEventSet_st *es = set_of(set);
	if (!es || !data)
		return NVML_ERROR_INVALID_ARGUMENT;
	while (es->next < g_n_events) {
		const fake_event *fe = &g_events[es->next++];
		if (fe->gpu >= g_ngpus || !(es->mask[fe->gpu] & fe->type))
			continue;
		if (fe->delay_ms > timeoutms) {
			sleep_ms(timeoutms);
			es->next--; /* not yet: the next wait gets it */
			return NVML_ERROR_TIMEOUT;
		}
		sleep_ms(fe->delay_ms);
		memset(data, 0, sizeof(*data));
		data->device = &g_gpus[fe->gpu];
		data->eventType = fe->type;
		data->eventData = fe->type == EVENT_XID ? fe->data : 0;
		data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
		return NVML_SUCCESS;
	}
	sleep_ms(timeoutms);
	return NVML_ERROR_TIMEOUT;
}

API nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
	return do_wait(set, data, timeoutms, "nvmlEventSetWait");
}

API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
	nvmlReturn_t rc = sys_check("nvmlEventSetFree", NULL);
	if (rc)
		return rc;
	struct nvmlEventSet_st *es = set_of(set);
	if (!es)
		return NVML_ERROR_INVALID_ARGUMENT;
	es->in_use = 0;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                     int *pathInfo)
{
	DEV(device1, "nvmlDeviceGetTopologyCommonAncestor", NULL, 0);
	struct nvmlDevice_st *d2 = NULL;
	nvmlReturn_t rc = dev_check(device2, "nvmlDeviceGetTopologyCommonAncestor", NULL, 0, &d2);
	if (rc)
		return rc;
	if (!pathInfo || d == d2)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->topo[d2->index] < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*pathInfo = d->topo[d2->index];
	return NVML_SUCCESS;
}

#ifndef FAKE_OLD_DRIVER

API nvmlReturn_t nvmlInit_v2(void)
{
	return do_init("nvmlInit_v2");
}

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	return do_count(deviceCount, 0, "nvmlDeviceGetCount_v2");
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	return do_handle(index, device, 0, "nvmlDeviceGetHandleByIndex_v2");
}

API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	return do_cuda_version(cudaDriverVersion, "nvmlSystemGetCudaDriverVersion_v2");
}

API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	DEV(device, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo", 1);
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci(&gpu_of(d)->pci, pci); /* a MIG handle reports its parent's PCI address */
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                      unsigned int *pendingMode)
{
	DEV(device, "nvmlDeviceGetMigMode", NULL, 0);
	if (!currentMode || !pendingMode)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_mig)
		return NVML_ERROR_NOT_SUPPORTED;
	*currentMode = (unsigned int)d->mig_current;
	*pendingMode = (unsigned int)d->mig_pending;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
	DEV(device, "nvmlDeviceGetMaxMigDeviceCount", NULL, 0);
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_mig)
		return NVML_ERROR_NOT_SUPPORTED;
	*count = d->mig_current ? d->mig_max : 0;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                     nvmlDevice_t *migDevice)
{
	DEV(device, "nvmlDeviceGetMigDeviceHandleByIndex", NULL, 0);
	if (!migDevice)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_mig)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!d->mig_current || index >= d->mig_max)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->mig[index])
		return NVML_ERROR_NOT_FOUND;
	*migDevice = d->mig[index];
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
	DEV(device, "nvmlDeviceIsMigDeviceHandle", NULL, 1);
	if (!isMigDevice)
		return NVML_ERROR_INVALID_ARGUMENT;
	*isMigDevice = d->is_mig ? 1u : 0u;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
	DEV(migDevice, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle", NULL, 1);
	if (!device || !d->is_mig)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = d->parent;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
	DEV(device, "nvmlDeviceGetGpuInstanceId", NULL, 1);
	if (!id)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->is_mig)
		return NVML_ERROR_NOT_SUPPORTED;
	*id = d->gi_id;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
	DEV(device, "nvmlDeviceGetComputeInstanceId", NULL, 1);
	if (!id)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->is_mig)
		return NVML_ERROR_NOT_SUPPORTED;
	*id = d->ci_id;
	return NVML_SUCCESS;
}

static nvmlReturn_t find_profile(const struct nvmlDevice_st *d, unsigned int profile,
                                 const fake_profile **out)
{
	if (!d->has_mig || !d->has_profiles)
		return NVML_ERROR_NOT_SUPPORTED;
	if (profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->profiles[profile].present)
		return NVML_ERROR_NOT_SUPPORTED;
	*out = &d->profiles[profile];
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                     nvmlGpuInstanceProfileInfo_t *info)
{
	DEV(device, "nvmlDeviceGetGpuInstanceProfileInfo", NULL, 0);
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	const fake_profile *p = NULL;
	nvmlReturn_t rc = find_profile(d, profile, &p);
	if (rc)
		return rc;
	memset(info, 0, sizeof(*info));
	info->id = p->id;
	info->isP2pSupported = p->p2p;
	info->sliceCount = p->slices;
	info->instanceCount = p->instances;
	info->multiprocessorCount = p->sms;
	info->copyEngineCount = p->ce;
	info->decoderCount = p->dec;
	info->encoderCount = p->enc;
	info->jpegCount = p->jpeg;
	info->ofaCount = p->ofa;
	info->memorySizeMB = p->mem_mb;
	return NVML_SUCCESS;
}

/* Accepts the v2 struct (0x02000098) and, as 545.23+ drivers do, the v3 struct (0x03000098). */
API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                      nvmlGpuInstanceProfileInfo_v2_t *info)
{
	DEV(device, "nvmlDeviceGetGpuInstanceProfileInfoV", NULL, 0);
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned int version = info->version;
	if (version != PROFILE_INFO_V2 && version != PROFILE_INFO_V3)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	const fake_profile *p = NULL;
	nvmlReturn_t rc = find_profile(d, profile, &p);
	if (rc)
		return rc;
	if (version == PROFILE_INFO_V2) {
		memset(info, 0, sizeof(*info));
		info->version = version;
		info->id = p->id;
		info->isP2pSupported = p->p2p;
		info->sliceCount = p->slices;
		info->instanceCount = p->instances;
		info->multiprocessorCount = p->sms;
		info->copyEngineCount = p->ce;
		info->decoderCount = p->dec;
		info->encoderCount = p->enc;
		info->jpegCount = p->jpeg;
		info->ofaCount = p->ofa;
		info->memorySizeMB = p->mem_mb;
		snprintf(info->name, sizeof(info->name), "%s", p->name);
	} else {
		nvmlGpuInstanceProfileInfo_v3_t v3;
		memset(&v3, 0, sizeof(v3));
		v3.version = version;
		v3.id = p->id;
		v3.sliceCount = p->slices;
		v3.instanceCount = p->instances;
		v3.multiprocessorCount = p->sms;
		v3.copyEngineCount = p->ce;
		v3.decoderCount = p->dec;
		v3.encoderCount = p->enc;
		v3.jpegCount = p->jpeg;
		v3.ofaCount = p->ofa;
		v3.memorySizeMB = p->mem_mb;
		snprintf(v3.name, sizeof(v3.name), "%s", p->name);
		v3.capabilities = p->p2p ? 0x1u : 0u;
		memcpy(info, &v3, sizeof(v3));
	}
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                              unsigned long long *addresses, unsigned long long *timestamps)
{
	return do_retired(device, cause, pageCount, addresses, timestamps, "nvmlDeviceGetRetiredPages_v2");
}

API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                           unsigned int *isPending, unsigned int *failureOccurred)
{
	DEV(device, "nvmlDeviceGetRemappedRows", NULL, 0);
	if (!corrRows || !uncRows || !isPending || !failureOccurred)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->has_remap || mig_active(d))
		return NVML_ERROR_NOT_SUPPORTED;
	*corrRows = d->remap_corr;
	*uncRows = d->remap_unc;
	*isPending = d->remap_pending;
	*failureOccurred = d->remap_failure;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
	return do_reasons(device, reasons, "nvmlDeviceGetCurrentClocksEventReasons");
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                     nvmlPciInfo_t *pci)
{
	const fake_link *l = NULL;
	nvmlReturn_t rc = remote_link(device, link, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &l);
	if (rc)
		return rc;
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci(&l->remote, pci);
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, int *type)
{
	DEV(device, "nvmlDeviceGetNvLinkRemoteDeviceType", NULL, 0);
	if (!type)
		return NVML_ERROR_INVALID_ARGUMENT;
	nvmlReturn_t rc = link_check(d, link);
	if (rc)
		return rc;
	if (!d->links[link].has_type)
		return NVML_ERROR_NOT_SUPPORTED;
	*type = d->links[link].remote_type;
	return NVML_SUCCESS;
}

API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
	return do_wait(set, data, timeoutms, "nvmlEventSetWait_v2");
}

static void fabric_common(const fake_fabric *f, unsigned char uuid[16], nvmlReturn_t *status,
                          unsigned int *clique, unsigned char *state)
{
	memcpy(uuid, f->uuid, 16);
	*status = f->status;
	*clique = f->clique;
	*state = (unsigned char)f->state;
}

API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *info)
{
	DEV(device, "nvmlDeviceGetGpuFabricInfo", NULL, 0);
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!d->fabric.present)
		return NVML_ERROR_NOT_SUPPORTED;
	memset(info, 0, sizeof(*info));
	fabric_common(&d->fabric, info->clusterUuid, &info->status, &info->cliqueId, &info->state);
	return NVML_SUCCESS;
}

/* v2 needs max_version >= 2, v3 needs 3; other versions: ARGUMENT_VERSION_MISMATCH (25). */
API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfo_v3_t *info)
{
	DEV(device, "nvmlDeviceGetGpuFabricInfoV", "nvmlDeviceGetGpuFabricInfo", 0);
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	const fake_fabric *f = &d->fabric;
	if (!f->present)
		return NVML_ERROR_NOT_SUPPORTED;
	unsigned int v = info->version;
	if (!((v == FABRIC_INFO_V2 && f->max_version >= 2) || (v == FABRIC_INFO_V3 && f->max_version >= 3)))
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	fabric_common(f, info->clusterUuid, &info->status, &info->cliqueId, &info->state);
	info->healthMask = f->health_mask;
	if (v == FABRIC_INFO_V3)
		info->healthSummary = (unsigned char)f->health_summary;
	return NVML_SUCCESS;
}

#endif /* !FAKE_OLD_DRIVER */
