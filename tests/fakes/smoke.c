/* smoke.c: checks the fake libnvidia-ml.so.1 through dlopen, as gpuaudit loads it.
 *
 *   fake_nvml_smoke SCENARIO_DIR OLD_LIB_PATH
 *
 * LD_LIBRARY_PATH must name the current-driver fake first. Each scenario runs in a forked
 * child so that every child loads the library fresh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv, pause, kill, nanosleep under -std=c11 */
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t is 68 bytes");

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t is 24 bytes");

typedef struct {
	unsigned int version;
	unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount;
	unsigned int copyEngineCount, decoderCount, encoderCount, jpegCount, ofaCount;
	unsigned long long memorySizeMB;
	char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152, "profile info v2 is 152 bytes");

static const char *g_dir;
static int g_failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			g_failures++;                                                            \
		}                                                                                \
	} while (0)

#define CHECK_RC(expr, want)                                                                                \
	do {                                                                                                \
		int rc_ = (expr);                                                                           \
		if (rc_ != (want)) {                                                                        \
			fprintf(stderr, "%s:%d: %s returned %d, want %d\n", __FILE__, __LINE__, #expr, rc_, \
			        (want));                                                                    \
			g_failures++;                                                                       \
		}                                                                                           \
	} while (0)

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "missing symbol %s\n", name);
		exit(2);
	}
	return p;
}

static void set_scenario(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.json", g_dir, name);
	setenv("FAKE_NVML_SCENARIO", path, 1);
}

static void *open_fake(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen libnvidia-ml.so.1: %s\n", dlerror());
		exit(2);
	}
	return lib;
}

typedef nvmlReturn_t (*fn_void)(void);
typedef nvmlReturn_t (*fn_uintp)(unsigned int *);
typedef nvmlReturn_t (*fn_handle)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_str)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_sysstr)(char *, unsigned int);
typedef nvmlReturn_t (*fn_pci)(nvmlDevice_t, nvmlPciInfo_t *);
typedef nvmlReturn_t (*fn_dev_uint)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*fn_dev_ull)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*fn_mem)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*fn_link_pci)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
typedef nvmlReturn_t (*fn_link_int)(nvmlDevice_t, unsigned int, int *);
typedef nvmlReturn_t (*fn_topo)(nvmlDevice_t, nvmlDevice_t, int *);
typedef nvmlReturn_t (*fn_mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_profile)(nvmlDevice_t, unsigned int, nvmlGpuInstanceProfileInfo_v2_t *);
typedef nvmlReturn_t (*fn_remap)(nvmlDevice_t, unsigned int *, unsigned int *, unsigned int *,
                                 unsigned int *);
typedef const char *(*fn_errstr)(nvmlReturn_t);

static const char *const bus_ids[8] = { "00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0",
	                                "00000000:4E:00.0", "00000000:87:00.0", "00000000:90:00.0",
	                                "00000000:B7:00.0", "00000000:BD:00.0" };

static void test_healthy(void)
{
	set_scenario("healthy-8xa100");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_void shutdown = (fn_void)sym(lib, "nvmlShutdown");
	fn_uintp count = (fn_uintp)sym(lib, "nvmlDeviceGetCount_v2");
	fn_handle handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
	fn_str name = (fn_str)sym(lib, "nvmlDeviceGetName");
	fn_str uuid = (fn_str)sym(lib, "nvmlDeviceGetUUID");
	fn_sysstr driver = (fn_sysstr)sym(lib, "nvmlSystemGetDriverVersion");
	fn_pci pci = (fn_pci)sym(lib, "nvmlDeviceGetPciInfo_v3");
	fn_dev_uint minor = (fn_dev_uint)sym(lib, "nvmlDeviceGetMinorNumber");
	fn_mem mem = (fn_mem)sym(lib, "nvmlDeviceGetMemoryInfo");
	fn_dev_ull reasons = (fn_dev_ull)sym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
	fn_link_pci rpci = (fn_link_pci)sym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	fn_link_int rtype = (fn_link_int)sym(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
	fn_topo topo = (fn_topo)sym(lib, "nvmlDeviceGetTopologyCommonAncestor");
	fn_errstr errstr = (fn_errstr)sym(lib, "nvmlErrorString");

	unsigned int n = 0;
	CHECK_RC(count(&n), 1); /* before init */
	CHECK(strcmp(errstr(15), "GPU is lost") == 0);
	CHECK(strcmp(errstr(18), "Driver/library version mismatch") == 0);
	CHECK(strcmp(errstr(12345), "Unknown Error") == 0);
	CHECK_RC(init(), 0);
	CHECK_RC(init(), 0); /* refcounted */
	CHECK_RC(count(NULL), 2);
	CHECK_RC(count(&n), 0);
	CHECK(n == 8);
	char buf[96];
	CHECK_RC(driver(buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "550.135") == 0);
	CHECK_RC(driver(buf, 7), 7); /* "550.135" needs 8 bytes */
	nvmlDevice_t devs[8];
	for (unsigned int i = 0; i < 8; i++) {
		CHECK_RC(handle(i, &devs[i]), 0);
		CHECK_RC(name(devs[i], buf, sizeof(buf)), 0);
		CHECK(strcmp(buf, "NVIDIA A100-SXM4-40GB") == 0);
		CHECK_RC(name(devs[i], buf, 5), 7);
		nvmlPciInfo_t p;
		memset(&p, 0xAB, sizeof(p));
		CHECK_RC(pci(devs[i], &p), 0);
		CHECK(strcmp(p.busId, bus_ids[i]) == 0);
		CHECK(strncmp(p.busIdLegacy, "0000:", 5) == 0 &&
		      strcmp(p.busIdLegacy + 5, bus_ids[i] + 9) == 0);
		CHECK(p.domain == 0 && p.device == 0 && p.pciDeviceId == 0x20B010DEu &&
		      p.pciSubSystemId == 0x134F10DEu);
		unsigned int m = 99;
		CHECK_RC(minor(devs[i], &m), 0);
		CHECK(m == i);
		CHECK_RC(minor(devs[i], NULL), 2);
		nvmlMemory_t mi;
		CHECK_RC(mem(devs[i], &mi), 0);
		CHECK(mi.total == 42949672960ull && mi.used + mi.free == mi.total);
		unsigned long long r = 0;
		CHECK_RC(reasons(devs[i], &r), 0);
		CHECK(r == 1);
		CHECK_RC(rpci(devs[i], 0, &p), 0);
		CHECK(strcmp(p.busId, "00000000:C4:00.0") == 0);
		CHECK_RC(rpci(devs[i], 11, &p), 0);
		CHECK(strcmp(p.busId, "00000000:C9:00.0") == 0);
		CHECK_RC(rpci(devs[i], 12, &p), 2);
		int t = -1;
		CHECK_RC(rtype(devs[i], 5, &t), 0);
		CHECK(t == 2);
	}
	CHECK_RC(handle(8, &devs[0]), 2);
	CHECK_RC(uuid(devs[0], buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "GPU-1ab015c5-9554-fb70-f731-753e18aded36") == 0);
	int level = -1;
	CHECK_RC(topo(devs[0], devs[1], &level), 0);
	CHECK(level == 20);
	CHECK_RC(topo(devs[0], devs[4], &level), 0);
	CHECK(level == 50);
	CHECK_RC(name((nvmlDevice_t)(void *)buf, buf, sizeof(buf)), 2); /* bogus handle */
	CHECK_RC(shutdown(), 0);
	CHECK_RC(count(&n), 0); /* still one reference */
	CHECK_RC(shutdown(), 0);
	CHECK_RC(count(&n), 1);
	CHECK_RC(name(devs[0], buf, sizeof(buf)), 1);
	CHECK_RC(shutdown(), 1);
}

static void test_lost(void)
{
	set_scenario("gpu3-lost");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_uintp count = (fn_uintp)sym(lib, "nvmlDeviceGetCount_v2");
	fn_handle handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
	CHECK_RC(init(), 0);
	unsigned int n = 0;
	CHECK_RC(count(&n), 0);
	CHECK(n == 8);
	nvmlDevice_t d;
	CHECK_RC(handle(2, &d), 0);
	CHECK_RC(handle(3, &d), 15);
	CHECK_RC(handle(4, &d), 0);
}

static void test_version_mismatch(void)
{
	set_scenario("version-mismatch");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_uintp count = (fn_uintp)sym(lib, "nvmlDeviceGetCount_v2");
	fn_errstr errstr = (fn_errstr)sym(lib, "nvmlErrorString");
	CHECK_RC(init(), 18);
	CHECK(strcmp(errstr(18), "Driver/library version mismatch") == 0);
	unsigned int n;
	CHECK_RC(count(&n), 1);
}

static void test_missing_scenario(void)
{
	setenv("FAKE_NVML_SCENARIO", "/nonexistent/scenario.json", 1);
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	CHECK_RC(init(), 999);
}

static void test_mig(void)
{
	set_scenario("mig");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_handle handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
	fn_mig_mode mode = (fn_mig_mode)sym(lib, "nvmlDeviceGetMigMode");
	fn_dev_uint maxmig = (fn_dev_uint)sym(lib, "nvmlDeviceGetMaxMigDeviceCount");
	fn_mig_handle mh = (fn_mig_handle)sym(lib, "nvmlDeviceGetMigDeviceHandleByIndex");
	fn_dev_uint gi = (fn_dev_uint)sym(lib, "nvmlDeviceGetGpuInstanceId");
	fn_dev_uint ci = (fn_dev_uint)sym(lib, "nvmlDeviceGetComputeInstanceId");
	fn_str name = (fn_str)sym(lib, "nvmlDeviceGetName");
	fn_str uuid = (fn_str)sym(lib, "nvmlDeviceGetUUID");
	fn_mem mem = (fn_mem)sym(lib, "nvmlDeviceGetMemoryInfo");
	fn_profile prof = (fn_profile)sym(lib, "nvmlDeviceGetGpuInstanceProfileInfoV");
	fn_remap remap = (fn_remap)sym(lib, "nvmlDeviceGetRemappedRows");
	CHECK_RC(init(), 0);
	nvmlDevice_t g0, g1;
	CHECK_RC(handle(0, &g0), 0);
	CHECK_RC(handle(1, &g1), 0);
	unsigned int cur = 9, pend = 9, max = 0;
	CHECK_RC(mode(g0, &cur, &pend), 0);
	CHECK(cur == 1 && pend == 1);
	CHECK_RC(maxmig(g0, &max), 0);
	CHECK(max == 7);
	CHECK_RC(mode(g1, &cur, &pend), 0);
	CHECK(cur == 0 && pend == 0);
	unsigned int max1 = 9;
	CHECK_RC(maxmig(g1, &max1), 0);
	CHECK(max1 == 0);
	unsigned int found = 0, gis = 0;
	nvmlDevice_t prev = NULL;
	for (unsigned int i = 0; i < max; i++) {
		nvmlDevice_t m;
		int rc = mh(g0, i, &m);
		if (rc == 6)
			continue;
		CHECK_RC(rc, 0);
		if (rc)
			continue;
		CHECK(m != g0 && m != prev);
		prev = m;
		found++;
		char buf[96];
		CHECK_RC(name(m, buf, sizeof(buf)), 0);
		CHECK(strncmp(buf, "NVIDIA A100-SXM4-40GB MIG ", 26) == 0);
		CHECK_RC(uuid(m, buf, sizeof(buf)), 0);
		CHECK(strncmp(buf, "MIG-", 4) == 0);
		nvmlMemory_t mi;
		CHECK_RC(mem(m, &mi), 0);
		CHECK(mi.total > 0 && mi.total < 42949672960ull);
		unsigned int id = 0, cid = 99;
		CHECK_RC(gi(m, &id), 0);
		CHECK_RC(ci(m, &cid), 0);
		CHECK(cid == 0);
		gis += id;
	}
	CHECK(found == 3);
	CHECK(gis == 1 + 3 + 9);
	nvmlGpuInstanceProfileInfo_v2_t info;
	memset(&info, 0, sizeof(info));
	info.version = 2; /* wrong: must be NVML_STRUCT_VERSION */
	CHECK_RC(prof(g0, 2, &info), 25);
	info.version = 0x02000098u;
	CHECK_RC(prof(g0, 2, &info), 0);
	CHECK(info.id == 2 && info.sliceCount == 3 && info.instanceCount == 2 &&
	      info.multiprocessorCount == 42 && info.memorySizeMB == 19968 &&
	      strcmp(info.name, "MIG 3g.20gb") == 0);
	unsigned int a, b, c, d;
	CHECK_RC(remap(g0, &a, &b, &c, &d), 3); /* MIG with active instances */
	CHECK_RC(remap(g1, &a, &b, &c, &d), 0);
}

/* GPU fabric info: v3 and v2 by version, anything else 25; the unversioned 28-byte call. */
typedef struct {
	unsigned int version;
	unsigned char clusterUuid[16];
	nvmlReturn_t status;
	unsigned int cliqueId;
	unsigned char state;
	unsigned int healthMask;
	unsigned char healthSummary;
} fabric_v3_t;
_Static_assert(sizeof(fabric_v3_t) == 40, "fabric v3 is 40 bytes");
typedef nvmlReturn_t (*fn_fabric)(nvmlDevice_t, void *);
typedef nvmlReturn_t (*fn_errcount)(nvmlDevice_t, unsigned int, int, unsigned long long *);

static void test_fabric(void)
{
	set_scenario("fabric-failed");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_handle handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
	fn_fabric fv = (fn_fabric)sym(lib, "nvmlDeviceGetGpuFabricInfoV");
	fn_fabric f1 = (fn_fabric)sym(lib, "nvmlDeviceGetGpuFabricInfo");
	CHECK_RC(init(), 0);
	nvmlDevice_t g2, g5;
	CHECK_RC(handle(2, &g2), 0);
	CHECK_RC(handle(5, &g5), 0);
	fabric_v3_t fi;
	memset(&fi, 0, sizeof(fi));
	fi.version = 40u | (3u << 24);
	CHECK_RC(fv(g2, &fi), 0);
	CHECK(fi.state == 3 && fi.status == 999 && fi.cliqueId == 32766 && fi.healthSummary == 2 &&
	      fi.clusterUuid[0] == 0x5e);
	memset(&fi, 0, sizeof(fi));
	fi.version = 36u | (2u << 24);
	CHECK_RC(fv(g5, &fi), 0);
	CHECK(fi.healthMask == 0x11A9 && fi.healthSummary == 0); /* v2 leaves the summary alone */
	fi.version = 0;
	CHECK_RC(fv(g5, &fi), 25);
	unsigned char v1[28];
	memset(v1, 0, sizeof(v1));
	CHECK_RC(f1(g2, v1), 0);
	CHECK(v1[24] == 3 && v1[0] == 0x5e);
	/* NVLink error counters: 0..3 from the scenario (0 without an "errors" object), 4 not
	 * supported, 5 invalid, a link past the GPU's invalid */
	fn_errcount ec = (fn_errcount)sym(lib, "nvmlDeviceGetNvLinkErrorCounter");
	nvmlDevice_t g4;
	CHECK_RC(handle(4, &g4), 0);
	unsigned long long v = 0;
	CHECK_RC(ec(g4, 3, 0, &v), 0);
	CHECK(v == 0);
	CHECK_RC(ec(g4, 3, 4, &v), 3);
	CHECK_RC(ec(g4, 3, 5, &v), 2);
	CHECK_RC(ec(g4, 12, 0, &v), 2);
}

/* Events: the scenario's Xid 79 and 48 and a DBE, then TIMEOUT (10). */
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType, eventData;
	unsigned int gpuInstanceId, computeInstanceId;
} event_t;
_Static_assert(sizeof(event_t) == 32, "nvmlEventData_t is 32 bytes");
typedef nvmlReturn_t (*fn_setp)(void **);
typedef nvmlReturn_t (*fn_reg)(nvmlDevice_t, unsigned long long, void *);
typedef nvmlReturn_t (*fn_wait)(void *, event_t *, unsigned int);
typedef nvmlReturn_t (*fn_set)(void *);

static void test_events(void)
{
	set_scenario("events-xid");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_uintp count = (fn_uintp)sym(lib, "nvmlDeviceGetCount_v2");
	fn_handle handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
	fn_setp create = (fn_setp)sym(lib, "nvmlEventSetCreate");
	fn_reg reg = (fn_reg)sym(lib, "nvmlDeviceRegisterEvents");
	fn_wait wait = (fn_wait)sym(lib, "nvmlEventSetWait_v2");
	fn_set freeset = (fn_set)sym(lib, "nvmlEventSetFree");
	CHECK_RC(init(), 0);
	unsigned int n = 0;
	CHECK_RC(count(&n), 0);
	void *set = NULL;
	CHECK_RC(create(&set), 0);
	nvmlDevice_t devs[8];
	for (unsigned i = 0; i < n && i < 8; i++) {
		CHECK_RC(handle(i, &devs[i]), 0);
		CHECK_RC(reg(devs[i], 0x8ull | 0x2ull | 0x1ull, set), 0);
	}
	CHECK_RC(reg(devs[0], 0x4ull, set), 3); /* PState: not in this fake */
	event_t e;
	CHECK_RC(wait(set, &e, 100), 0);
	CHECK(e.device == devs[3] && e.eventType == 0x8 && e.eventData == 79 &&
	      e.gpuInstanceId == 0xFFFFFFFFu);
	CHECK_RC(wait(set, &e, 5), 10); /* Xid 48 comes after 20 ms: not within 5 ms */
	CHECK_RC(wait(set, &e, 100), 0);
	CHECK(e.device == devs[6] && e.eventType == 0x8 && e.eventData == 48);
	CHECK_RC(wait(set, &e, 100), 0);
	CHECK(e.device == devs[6] && e.eventType == 0x2 && e.eventData == 0);
	CHECK_RC(wait(set, &e, 10), 10);
	CHECK_RC(freeset(set), 0);
	CHECK_RC(freeset(set), 2);
}

static void test_events_hang(void)
{
	set_scenario("events-hang");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_setp create = (fn_setp)sym(lib, "nvmlEventSetCreate");
	fn_wait wait = (fn_wait)sym(lib, "nvmlEventSetWait_v2");
	CHECK_RC(init(), 0);
	void *set = NULL;
	CHECK_RC(create(&set), 0);
	event_t e;
	wait(set, &e, 10);
	_exit(3); /* must not get here */
}

static void test_hang(void)
{
	set_scenario("init-hangs");
	void *lib = open_fake();
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	init();
	_exit(3); /* must not get here */
}

static void test_old(const char *old_path)
{
	set_scenario("old-driver");
	void *lib = dlopen(old_path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", old_path, dlerror());
		exit(2);
	}
	static const char *const absent[] = { "nvmlInit_v2",
		                              "nvmlDeviceGetCount_v2",
		                              "nvmlDeviceGetHandleByIndex_v2",
		                              "nvmlDeviceGetPciInfo_v3",
		                              "nvmlSystemGetCudaDriverVersion_v2",
		                              "nvmlDeviceGetCurrentClocksEventReasons",
		                              "nvmlDeviceGetMigMode",
		                              "nvmlDeviceGetRemappedRows",
		                              "nvmlDeviceGetNvLinkRemoteDeviceType",
		                              "nvmlDeviceGetNvLinkRemotePciInfo_v2",
		                              "nvmlDeviceGetGpuInstanceProfileInfoV",
		                              "nvmlEventSetWait_v2",
		                              "nvmlDeviceGetGpuFabricInfo",
		                              "nvmlDeviceGetGpuFabricInfoV" };
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		if (dlsym(lib, absent[i])) {
			fprintf(stderr, "old build exports %s\n", absent[i]);
			g_failures++;
		}
	fn_void init = (fn_void)sym(lib, "nvmlInit");
	fn_uintp count = (fn_uintp)sym(lib, "nvmlDeviceGetCount");
	fn_handle handle = (fn_handle)sym(lib, "nvmlDeviceGetHandleByIndex");
	fn_dev_ull reasons = (fn_dev_ull)sym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	sym(lib, "nvmlSystemGetCudaDriverVersion");
	CHECK_RC(init(), 0);
	unsigned int n = 0;
	CHECK_RC(count(&n), 0);
	CHECK(n == 8);
	nvmlDevice_t d;
	CHECK_RC(handle(7, &d), 0);
	unsigned long long r = 0;
	CHECK_RC(reasons(d, &r), 0);
	CHECK(r == 1);
}

/* Runs fn in a child; returns its exit status, or -1 if it was still running after
 * timeout_ms (the child is then killed). */
static int run_child(void (*fn)(void), const char *old_path, void (*fn_old)(const char *), int timeout_ms)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		if (fn)
			fn();
		else
			fn_old(old_path);
		exit(g_failures ? 1 : 0); /* exit, not _exit: LeakSanitizer checks the child */
	}
	for (int waited = 0;; waited += 10) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s SCENARIO_DIR OLD_LIB_PATH\n", argv[0]);
		return 2;
	}
	g_dir = argv[1];
	struct {
		const char *name;
		void (*fn)(void);
	} tests[] = { { "healthy", test_healthy },
		      { "gpu3-lost", test_lost },
		      { "version-mismatch", test_version_mismatch },
		      { "missing-scenario", test_missing_scenario },
		      { "mig", test_mig },
		      { "fabric", test_fabric },
		      { "events", test_events } };
	int bad = 0;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int rc = run_child(tests[i].fn, NULL, NULL, 20000);
		printf("%s: %s\n", tests[i].name, rc == 0 ? "ok" : "FAILED");
		bad += rc != 0;
	}
	int rc = run_child(test_hang, NULL, NULL, 300);
	printf("init-hangs: %s\n", rc == -1 ? "ok" : "FAILED");
	bad += rc != -1;
	rc = run_child(test_events_hang, NULL, NULL, 300);
	printf("events-hang: %s\n", rc == -1 ? "ok" : "FAILED");
	bad += rc != -1;
	rc = run_child(NULL, argv[2], test_old, 20000);
	printf("old-driver: %s\n", rc == 0 ? "ok" : "FAILED");
	bad += rc != 0;
	return bad ? 1 : 0;
}
