/*
 * test_cputopo.c - CPU topology, core kinds, cpuset and NUMA from small sysfs/procfs
 * trees built in a temp dir: x86 2-socket SMT with offline and isolated CPUs, AMD with
 * two dies per package, Grace (aarch64, MIDR, a CPU-less GPU memory node), POWER9 SMT4,
 * a tree without NUMA directories, hybrid Intel, GB10 (two Arm parts) and cpu_capacity
 * classes; cpu0's core offline, POWER packages without ids and AMD compute units (as lstopo
 * counts them, issue 28). The layouts follow Documentation/ABI/stable/sysfs-devices-system-cpu and the
 * facts in docs/cpu-models.md; they are synthesized, not recorded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"

static void put(const char *dir, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(const char *dir, const char *rel, const char *fmt, ...)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* One present CPU of a layout. */
struct tcpu {
	int pkg, die, cluster, core; /* die/cluster -1: the file is absent (aarch64, ppc64le) */
	bool offline;
};

/* "0-3,8" of the CPUs in in[0..n) that are set. */
static void fmt_list(const bool *in, int n, char *out, size_t len)
{
	size_t at = 0;
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!in[i])
			continue;
		int k = i;
		while (k + 1 < n && in[k + 1])
			k++;
		at += (size_t)snprintf(out + at, len - at, k > i ? "%s%d-%d" : "%s%d", at ? "," : "", i, k);
		i = k;
	}
}

enum { L_CORE, L_CLUSTER, L_DIE, L_PKG };

static bool same(const struct tcpu *a, const struct tcpu *b, int level)
{
	bool s = a->pkg == b->pkg;
	if (level <= L_DIE)
		s = s && a->die == b->die;
	if (level <= L_CLUSTER)
		s = s && a->cluster == b->cluster;
	if (level == L_CORE)
		s = s && a->core == b->core;
	return s;
}

/* cpu/{present,online,offline}, and cpuN/topology for the online CPUs, as Linux writes them. */
static void topo(const char *root, const struct tcpu *v, int n)
{
	static const char *const lists[][2] = { { "core_cpus_list", "thread_siblings_list" },
		                                { "cluster_cpus_list", NULL },
		                                { "die_cpus_list", NULL },
		                                { "package_cpus_list", "core_siblings_list" } };
	bool *on = calloc((size_t)n, sizeof(bool)), *off = calloc((size_t)n, sizeof(bool));
	bool *g = calloc((size_t)n, sizeof(bool));
	char *l = malloc(65536);
	char rel[256];
	for (int i = 0; i < n; i++) {
		on[i] = !v[i].offline;
		off[i] = v[i].offline;
	}
	put(root, "sys/devices/system/cpu/present", "0-%d\n", n - 1);
	fmt_list(on, n, l, 65536);
	put(root, "sys/devices/system/cpu/online", "%s\n", l);
	fmt_list(off, n, l, 65536);
	put(root, "sys/devices/system/cpu/offline", "%s\n", l);
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", i);
		if (i)
			put(root, rel, "%d\n", on[i]);
		if (!on[i])
			continue;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
		put(root, rel, "%d\n", v[i].pkg);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/core_id", i);
		put(root, rel, "%d\n", v[i].core);
		if (v[i].die >= 0) {
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/die_id", i);
			put(root, rel, "%d\n", v[i].die);
		}
		if (v[i].cluster >= 0) {
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/cluster_id", i);
			put(root, rel, "%d\n", v[i].cluster);
		}
		for (int lv = L_CORE; lv <= L_PKG; lv++) {
			if ((lv == L_DIE && v[i].die < 0) || (lv == L_CLUSTER && v[i].cluster < 0))
				continue;
			for (int k = 0; k < n; k++)
				g[k] = on[k] && same(&v[i], &v[k], lv);
			fmt_list(g, n, l, 65536);
			for (int a = 0; a < 2; a++) {
				if (!lists[lv][a])
					continue;
				snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/%s", i,
				         lists[lv][a]);
				put(root, rel, "%s\n", l);
			}
		}
	}
	free(on);
	free(off);
	free(g);
	free(l);
}

/* /proc/cpuinfo with one block per online CPU: block(i, buf) gives the lines after "processor". */
static void cpuinfo(const char *root, const struct tcpu *v, int n,
                    void (*block)(int cpu, const struct tcpu *t, FILE *f))
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/proc", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/cpuinfo", root);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (int i = 0; i < n; i++) {
		if (v[i].offline)
			continue;
		fprintf(f, "processor\t: %d\n", i);
		block(i, &v[i], f);
		fputc('\n', f);
	}
	fclose(f);
}

static const char x86_flags[] =
        "fpu vme de pse tsc msr pae cx8 apic sep lm cx16 lahf_lm popcnt sse4_1 sse4_2 "
        "ssse3 avx avx2 bmi1 bmi2 f16c fma movbe xsave avx512f avx512bw avx512cd "
        "avx512dq avx512vl avx512_vnni";

static void x86_block(int cpu, const struct tcpu *t, FILE *f)
{
	(void)cpu;
	fprintf(f,
	        "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
	        "model name\t: Intel(R) Xeon(R) Platinum 8480C\nphysical id\t: %d\ncore id\t\t: %d\n"
	        "flags\t\t: %s\n",
	        t->pkg, t->core, x86_flags);
}

/* AMD: cpuinfo's "core id" restarts in every die (what makes cpuinfo alone count half). */
static void amd_block(int cpu, const struct tcpu *t, FILE *f)
{
	(void)cpu;
	fprintf(f,
	        "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
	        "model name\t: AMD EPYC 7313 16-Core Processor\nphysical id\t: %d\ncore id\t\t: %d\n"
	        "cpu cores\t: 4\nflags\t\t: %s\n",
	        t->pkg, t->core % 4, x86_flags);
}

/* Grace's Features line as NVIDIA's Grace CPU benchmarking guide prints lscpu's Flags. */
static const char grace_features[] =
        "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc "
        "dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp "
        "sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint svei8mm svebf16 i8mm bf16 dgh bti";

static void grace_block(int cpu, const struct tcpu *t, FILE *f)
{
	(void)cpu;
	(void)t;
	fprintf(f,
	        "BogoMIPS\t: 2000.00\nFeatures\t: %s\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
	        "CPU variant\t: 0x0\nCPU part\t: 0xd4f\nCPU revision\t: 0\n",
	        grace_features);
}

/* GB10: cpus 0-4,10-14 Cortex-A725, 5-9,15-19 Cortex-X925. */
static void gb10_block(int cpu, const struct tcpu *t, FILE *f)
{
	(void)t;
	fprintf(f,
	        "Features\t: %s\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
	        "CPU part\t: %s\nCPU revision\t: 1\n",
	        grace_features, (cpu % 10) < 5 ? "0xd87" : "0xd85");
}

static void power9_block(int cpu, const struct tcpu *t, FILE *f)
{
	(void)cpu;
	(void)t;
	fprintf(f, "cpu\t\t: POWER9 (raw), altivec supported\nclock\t\t: 3800.000000MHz\n"
	           "revision\t: 2.2 (pvr 004e 1202)\n");
}

/* An Armv8.2 core (Neoverse N1's hwcaps): no jscvt, so not v8.3. */
static void n1_block(int cpu, const struct tcpu *t, FILE *f)
{
	(void)cpu;
	(void)t;
	fprintf(f, "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
	           "asimdrdm lrcpc dcpop asimddp ssbs\nCPU implementer\t: 0x41\n");
}

static struct ga_node *collect(const char *root)
{
	struct ga_ctx *ctx = NULL;
	struct ga_node *n = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	ga_ctx_free(ctx);
	return n;
}

static void rmtree(const char *root)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static char *write_node(const struct ga_node *n, bool pretty)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct ga_json w;
	ga_json_init(&w, &b, pretty);
	assert_int_equal(ga_node_write_json(n, &w), 0);
	assert_int_equal(ga_json_finish(&w), 0);
	return ga_buf_detach(&b, NULL);
}

/* Written, read back (the fast path) and written again: the same text. */
static void round_trip(const struct ga_node *n)
{
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	for (int pretty = 0; pretty < 2; pretty++) {
		char *a = write_node(n, pretty);
		struct ga_node *back = NULL;
		assert_int_equal(ga_node_from_json(ctx, a, strlen(a), &back), 0);
		char *b = write_node(back, pretty);
		assert_string_equal(a, b);
		ga_free(a);
		ga_free(b);
		ga_node_free(back);
	}
	ga_ctx_free(ctx);
}

static void numa_node(const char *root, int id, const char *cpulist, unsigned long long kb, const char *dist)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/cpulist", id);
	put(root, rel, "%s\n", cpulist);
	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/meminfo", id);
	put(root, rel, "Node %d MemTotal:       %llu kB\nNode %d MemFree:        %llu kB\n", id, kb, id,
	    kb / 2);
	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/distance", id);
	put(root, rel, "%s\n", dist);
}

static bool has_feature(const struct ga_cpu *c, const char *f)
{
	for (size_t i = 0; i < c->isa_features.n; i++)
		if (!strcmp(c->isa_features.v[i], f))
			return true;
	return false;
}

/* x86, 2 sockets x 4 cores x SMT2 in Linux's order (thread 0 of every core, then thread 1);
 * core (1,3) fully offline (cpus 7 and 15), cpu 14 offline too; isolcpus=2-3,10-11. */
static void test_x86_smt_offline_isolated(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[16];
	for (int i = 0; i < 16; i++) {
		int s = (i % 8) / 4, c = i % 4;
		v[i] = (struct tcpu){ s, s, s * 4 + c, c, false };
	}
	v[7].offline = v[15].offline = v[14].offline = true;
	topo(root, v, 16);
	cpuinfo(root, v, 16, x86_block);
	put(root, "sys/devices/system/cpu/isolated", "2-3,10-11\n");
	put(root, "proc/meminfo", "MemTotal:       65536000 kB\n");
	numa_node(root, 0, "0-3,8-11", 32768000, "10 21");
	numa_node(root, 1, "4-6,12-13", 32768000, "21 10");
	/* the cgroup's own directory has no cpuset file: its parent's effective set counts */
	put(root, "proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
	put(root, "sys/fs/cgroup/kubepods/pod1/ctr/cgroup.procs", "1\n");
	put(root, "sys/fs/cgroup/kubepods/pod1/cpuset.cpus.effective", "4-5\n");
	put(root, "sys/fs/cgroup/cpuset.cpus.effective", "0-15\n");
	put(root, "proc/self/status", "Name:\tgpuaudit\nCpus_allowed_list:\t0-15\n");

	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_string_equal(c->arch, "x86_64");
	assert_string_equal(c->isa_level, "x86-64-v4");
	assert_true(has_feature(c, "avx512_vnni"));
	assert_int_equal(c->sockets.v, 2);
	assert_int_equal(c->dies.v, 2);
	assert_int_equal(c->clusters.v, 7);
	assert_int_equal(c->cores.v, 7);    /* core (1,3) has no online thread */
	assert_int_equal(c->threads.v, 13); /* 16 present - 3 offline */
	assert_int_equal(c->cpus_present.v, 16);
	assert_string_equal(c->online, "0-6,8-13");
	assert_string_equal(c->offline, "7,14-15");
	assert_string_equal(c->isolated, "2-3,10-11");
	assert_string_equal(c->cpuset, "4-5");
	assert_int_equal(c->n_core_kinds, 0);
	assert_int_equal(c->n_numa_nodes, 2);
	assert_string_equal(c->numa_nodes[1].kind, "dram");
	assert_false(c->numa_nodes[1].cpuless.v);
	assert_int_equal(c->numa_nodes[1].distances.n, 2);
	assert_int_equal(c->numa_nodes[1].distances.v[0], 21);
	assert_int_equal(c->numa_nodes[1].cpus.v, 5);
	round_trip(n);
	ga_node_free(n);

	/* no cgroup v2 line: the status file's Cpus_allowed_list */
	put(root, "proc/self/cgroup", "12:cpuset:/\n");
	n = collect(root);
	assert_string_equal(n->cpu.cpuset, "0-15");
	ga_node_free(n);
	rmtree(root);
}

/* AMD: one package, two dies of 4 cores, SMT2; cpuinfo's core ids repeat per die. */
static void test_amd_two_dies(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[16];
	for (int i = 0; i < 16; i++) {
		int core = i % 8;
		v[i] = (struct tcpu){ 0, core / 4, core / 4, core, false };
	}
	cpuinfo(root, v, 16, amd_block);
	/* first without sysfs topology: the cpuinfo fallback counts (package, core id) pairs */
	struct ga_node *n = collect(root);
	assert_int_equal(n->cpu.cores.v, 4);
	assert_int_equal(n->cpu.threads.v, 16);
	assert_false(n->cpu.cpus_present.set);
	/* one NUMA node all the same, from cpuinfo's processors and MemTotal (none here) */
	assert_int_equal(n->cpu.n_numa_nodes, 1);
	assert_string_equal(n->cpu.numa_nodes[0].cpulist, "0-15");
	ga_node_free(n);

	topo(root, v, 16);
	n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_string_equal(c->model_name, "AMD EPYC 7313 16-Core Processor");
	assert_int_equal(c->sockets.v, 1);
	assert_int_equal(c->dies.v, 2);
	assert_int_equal(c->cores.v, 8);
	assert_int_equal(c->threads.v, 16);
	assert_string_equal(c->offline, "");
	assert_null(c->isolated);
	ga_node_free(n);
	rmtree(root);
}

/* Grace (GH200): 72 Neoverse V2 cores, one package, no SMT, no die files; node 0 has the
 * CPUs and LPDDR5X, node 1 the GPU's HBM (CPU-less, named by the driver's numa_status),
 * nodes 2-8 empty CPU-less placeholders. */
static void test_grace(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[72];
	for (int i = 0; i < 72; i++)
		v[i] = (struct tcpu){ 0, -1, i, i, false };
	topo(root, v, 72);
	cpuinfo(root, v, 72, grace_block);
	put(root, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000410fd4f0\n");
	put(root, "proc/meminfo", "MemTotal:       500000000 kB\n");
	char dist[256];
	numa_node(root, 0, "0-71", 500000000, "10 80 80 80 80 80 80 80 80");
	numa_node(root, 1, "", 99000000, "80 10 80 80 80 80 80 80 80");
	for (int id = 2; id <= 8; id++) {
		size_t at = 0;
		for (int k = 0; k <= 8; k++)
			at += (size_t)snprintf(dist + at, sizeof(dist) - at, "%s%d", k ? " " : "",
			                       k == id ? 10 : 80);
		numa_node(root, id, "", 0, dist);
	}
	put(root, "proc/driver/nvidia/gpus/0009:01:00.0/numa_status",
	    "Node: 1\nStatus: online\nAddress: 0x40000000000\nSize: 0x1800000000\n");
	/* a PCI bus that was read (and holds nothing here): without one the node's
	 * accelerators, and so its class, would be unknown (issue 26) */
	put(root, "sys/bus/pci/devices/.none", "%s", "");

	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_string_equal(c->arch, "aarch64");
	assert_string_equal(c->vendor, "ARM");
	assert_string_equal(c->model_name, "Neoverse-V2");
	assert_int_equal(c->implementer.v, 0x41);
	assert_int_equal(c->part.v, 0xd4f);
	assert_string_equal(c->isa_level, "armv9.0-a");
	assert_true(has_feature(c, "sve2"));
	assert_true(has_feature(c, "bf16"));
	assert_false(has_feature(c, "sme"));
	assert_int_equal(c->sockets.v, 1);
	assert_int_equal(c->cores.v, 72);
	assert_int_equal(c->threads.v, 72);
	assert_false(c->dies.set);
	assert_int_equal(c->clusters.v, 72);
	assert_int_equal(c->n_core_kinds, 0);
	assert_int_equal(c->n_numa_nodes, 9);
	assert_string_equal(c->numa_nodes[0].kind, "dram");
	assert_true(c->numa_nodes[1].cpuless.v);
	assert_string_equal(c->numa_nodes[1].kind, "gpu");
	assert_int_equal(c->numa_nodes[1].mem_total_bytes.v, 99000000ull * 1024);
	assert_int_equal(c->numa_nodes[1].distances.n, 9);
	assert_int_equal(c->numa_nodes[1].distances.v[1], 10);
	assert_string_equal(c->numa_nodes[5].kind, "memory");
	assert_true(c->numa_nodes[5].cpuless.v);

	/* the node class names the CPU */
	struct ga_nodeclass cls;
	assert_int_equal(ga_nodeclass_compute(n, &cls), 0);
	assert_non_null(strstr(cls.hw_json, "\"model\":\"Neoverse-V2\""));
	assert_string_equal(cls.name, "cpu-armv9.0-a");
	ga_nodeclass_release(&cls);
	round_trip(n);
	ga_node_free(n);

	/* no cpuinfo: the name and numbers from sysfs midr_el1 */
	char p[4096];
	snprintf(p, sizeof(p), "%s/proc/cpuinfo", root);
	assert_int_equal(unlink(p), 0);
	n = collect(root);
	assert_int_equal(n->cpu.part.v, 0xd4f);
	assert_int_equal(n->cpu.implementer.v, 0x41);
	assert_string_equal(n->cpu.model_name, "Neoverse-V2");
	assert_string_equal(n->cpu.vendor, "ARM");
	assert_string_equal(n->cpu.arch, "aarch64");
	assert_int_equal(n->cpu.cores.v, 72);
	ga_node_free(n);
	rmtree(root);
}

/* POWER9: 2 chips (ids 0 and 8), 4 SMT4 cores each, core ids not dense; GPU memory nodes
 * 250 (named by numa_status) and 251 (not: stays "memory"). */
static void test_power9(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[32];
	for (int i = 0; i < 32; i++) {
		int chip = i / 16, core = (i % 16) / 4;
		v[i] = (struct tcpu){ chip * 8, -1, -1, chip * 2048 + 8 + core * 4, false };
	}
	topo(root, v, 32);
	cpuinfo(root, v, 32, power9_block);
	put(root, "proc/self/status", "Cpus_allowed_list:\t0-31\n");
	numa_node(root, 0, "0-15", 1000, "10 40 80 80");
	numa_node(root, 8, "16-31", 1000, "40 10 80 80");
	numa_node(root, 250, "", 15000, "80 80 10 80");
	numa_node(root, 251, "", 15000, "80 80 80 10");
	put(root, "proc/driver/nvidia/gpus/0004:04:00.0/numa_status", "Node: 250\nStatus: online\n");

	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_string_equal(c->arch, "ppc64le");
	assert_string_equal(c->model_name, "POWER9 (raw), altivec supported");
	assert_string_equal(c->isa_level, "power9");
	assert_true(has_feature(c, "altivec"));
	assert_int_equal(c->sockets.v, 2);
	assert_int_equal(c->cores.v, 8);
	assert_int_equal(c->threads.v, 32);
	assert_false(c->dies.set);
	assert_false(c->clusters.set);
	assert_string_equal(c->cpuset, "0-31");
	assert_int_equal(c->n_numa_nodes, 4);
	assert_int_equal(c->numa_nodes[2].id.v, 250);
	assert_string_equal(c->numa_nodes[2].kind, "gpu");
	assert_string_equal(c->numa_nodes[3].kind, "memory");
	ga_node_free(n);
	rmtree(root);
}

/* POWER9 bare metal, 2 chips x 4 cores x SMT4, with core 0 (cpu0 included: ppc64le can
 * offline it), core 6 and one thread of core 5 offline. An offline CPU has no topology
 * directory, cpuinfo no core ids: the first online CPU, not cpu0, says the level exists,
 * and a core without an online thread is none (as lstopo; tests/fixtures/cputopo). */
static void test_offline_core0(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[32];
	for (int i = 0; i < 32; i++) {
		int chip = i / 16, core = i / 4;
		v[i] = (struct tcpu){ chip * 8, -1, -1, chip * 2048 + (core % 4) * 4,
			              core == 0 || core == 6 || i == 21 };
	}
	topo(root, v, 32);
	put(root, "sys/devices/system/cpu/cpu0/online", "0\n");
	cpuinfo(root, v, 32, power9_block);
	struct ga_node *n = collect(root);
	assert_int_equal(n->cpu.threads.v, 23);
	assert_true(n->cpu.cores.set);
	assert_int_equal(n->cpu.cores.v, 6);
	assert_int_equal(n->cpu.sockets.v, 2);
	assert_string_equal(n->cpu.offline, "0-3,21,24-27");
	ga_node_free(n);
	rmtree(root);
}

/* A POWER LPAR without ibm,chip-id: physical_package_id -1 (then 0) on every CPU of two
 * chips whose package_cpus sets differ: two packages, as hwloc counts the sets. */
static void test_power_package_ids(void **state)
{
	(void)state;
	for (int id = -1; id <= 0; id++) {
		char root[] = "/tmp/ga-topo-XXXXXX";
		assert_non_null(mkdtemp(root));
		struct tcpu v[32];
		for (int i = 0; i < 32; i++)
			v[i] = (struct tcpu){ i / 16, -1, -1, (i / 4) * 4, false };
		topo(root, v, 32);
		char rel[128];
		for (int i = 0; i < 32; i++) {
			snprintf(rel, sizeof(rel),
			         "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
			put(root, rel, "%d\n", id);
		}
		cpuinfo(root, v, 32, power9_block);
		struct ga_node *n = collect(root);
		assert_int_equal(n->cpu.sockets.v, 2);
		assert_int_equal(n->cpu.cores.v, 8);
		assert_int_equal(n->cpu.threads.v, 32);
		ga_node_free(n);
		rmtree(root);
	}
}

static void fx_block(int cpu, const struct tcpu *t, FILE *f)
{
	fprintf(f,
	        "vendor_id\t: AuthenticAMD\ncpu family\t: %d\nmodel\t\t: 2\n"
	        "model name\t: AMD FX(tm)-8350 Eight-Core Processor\nphysical id\t: %d\ncore id\t\t: %d\n"
	        "cpu cores\t: 4\nflags\t\t: %s\n",
	        t->cluster, t->pkg, cpu, x86_flags);
}

/* AMD family 15h (FX-8350): the two cores of a compute unit share one thread_siblings set
 * but have their own core_id: eight cores, as hwloc shows them. The same sets with equal
 * core ids are SMT threads (four cores), and so is another family (Zen, 17h). */
static void test_amd_compute_units(void **state)
{
	(void)state;
	static const struct {
		int family;
		bool own_ids;
		unsigned cores;
	} cases[] = { { 21, true, 8 }, { 21, false, 4 }, { 23, true, 4 } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char root[] = "/tmp/ga-topo-XXXXXX";
		assert_non_null(mkdtemp(root));
		struct tcpu v[8];
		for (int i = 0; i < 8; i++) /* cluster carries the family into fx_block */
			v[i] = (struct tcpu){ 0, -1, -1, i / 2, false };
		topo(root, v, 8);
		for (int i = 0; i < 8; i++) {
			char rel[128];
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/core_id", i);
			put(root, rel, "%d\n", cases[k].own_ids ? i : i / 2);
			v[i].cluster = cases[k].family;
		}
		cpuinfo(root, v, 8, fx_block);
		struct ga_node *n = collect(root);
		assert_int_equal(n->cpu.family.v, (uint64_t)cases[k].family);
		assert_int_equal(n->cpu.cores.v, cases[k].cores);
		assert_int_equal(n->cpu.threads.v, 8);
		assert_int_equal(n->cpu.sockets.v, 1);
		ga_node_free(n);
		rmtree(root);
	}
}

/* No sys/devices/system/node (CONFIG_NUMA off): one node with every CPU and MemTotal. */
static void test_no_numa_dirs(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[4];
	for (int i = 0; i < 4; i++)
		v[i] = (struct tcpu){ 0, 0, i, i, i == 3 };
	topo(root, v, 4);
	cpuinfo(root, v, 4, x86_block);
	put(root, "proc/meminfo", "MemTotal:       8000000 kB\n");
	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_int_equal(c->threads.v, 3);
	assert_int_equal(c->n_numa_nodes, 1);
	assert_int_equal(c->numa_nodes[0].id.v, 0);
	assert_string_equal(c->numa_nodes[0].cpulist, "0-2");
	assert_int_equal(c->numa_nodes[0].cpus.v, 3);
	assert_int_equal(c->numa_nodes[0].mem_total_bytes.v, 8000000ull * 1024);
	assert_string_equal(c->numa_nodes[0].kind, "dram");
	assert_false(c->numa_nodes[0].cpuless.v);
	assert_null(c->numa_nodes[0].distances.v);
	round_trip(n);
	ga_node_free(n);

	/* no cpu/present nor cpu/online: the cpuN directories and their online files */
	char p[4096];
	snprintf(p, sizeof(p), "%s/sys/devices/system/cpu/present", root);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/devices/system/cpu/online", root);
	assert_int_equal(unlink(p), 0);
	n = collect(root);
	assert_int_equal(n->cpu.cpus_present.v, 4);
	assert_int_equal(n->cpu.threads.v, 3);
	assert_string_equal(n->cpu.online, "0-2");
	assert_int_equal(n->cpu.cores.v, 3);
	ga_node_free(n);
	rmtree(root);
}

/* Hybrid Intel: 2 P-cores with SMT (cpus 0-3), 4 E-cores (4-7), from the perf PMUs. */
static void test_hybrid_intel(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[8];
	for (int i = 0; i < 8; i++)
		v[i] = i < 4 ? (struct tcpu){ 0, 0, i / 2, i / 2 * 4, false }
		             : (struct tcpu){ 0, 0, 2 + (i - 4) / 4, 8 + i - 4, false };
	topo(root, v, 8);
	cpuinfo(root, v, 8, x86_block);
	put(root, "sys/devices/cpu_core/cpus", "0-3\n");
	put(root, "sys/devices/cpu_atom/cpus", "4-7\n");
	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_int_equal(c->cores.v, 6);
	assert_int_equal(c->threads.v, 8);
	assert_int_equal(c->clusters.v, 3); /* one L2 per P-core, one for the E-core module */
	assert_int_equal(c->n_core_kinds, 2);
	assert_string_equal(c->core_kinds[0].kind, "core");
	assert_string_equal(c->core_kinds[0].cpulist, "0-3");
	assert_int_equal(c->core_kinds[0].count.v, 4);
	assert_string_equal(c->core_kinds[1].kind, "atom");
	assert_string_equal(c->core_kinds[1].cpulist, "4-7");
	round_trip(n);
	ga_node_free(n);
	rmtree(root);
}

/* GB10: two clusters, Cortex-X925 and Cortex-A725 told apart by cpuinfo's CPU part. */
static void test_gb10_parts(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[20];
	for (int i = 0; i < 20; i++)
		v[i] = (struct tcpu){ 36, -1, i < 10 ? 56 : 1144, i, false };
	topo(root, v, 20);
	cpuinfo(root, v, 20, gb10_block);
	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_string_equal(c->model_name, "Cortex-A725 + Cortex-X925");
	assert_int_equal(c->part.v, 0xd87);
	assert_int_equal(c->sockets.v, 1);
	assert_int_equal(c->clusters.v, 2);
	assert_int_equal(c->cores.v, 20);
	assert_int_equal(c->n_core_kinds, 2);
	assert_string_equal(c->core_kinds[0].kind, "Cortex-A725");
	assert_string_equal(c->core_kinds[0].cpulist, "0-4,10-14");
	assert_int_equal(c->core_kinds[0].count.v, 10);
	assert_string_equal(c->core_kinds[1].kind, "Cortex-X925");
	assert_string_equal(c->core_kinds[1].cpulist, "5-9,15-19");
	ga_node_free(n);
	rmtree(root);
}

/* No part numbers anywhere: cpu_capacity classes (values within 20% are one class). */
static void test_capacity_classes(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	struct tcpu v[6];
	static const int cap[] = { 718, 731, 997, 1017, 1024, 1024 };
	for (int i = 0; i < 6; i++)
		v[i] = (struct tcpu){ 0, -1, i / 2, i, false };
	topo(root, v, 6);
	cpuinfo(root, v, 6, n1_block);
	char rel[128];
	for (int i = 0; i < 6; i++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpu_capacity", i);
		put(root, rel, "%d\n", cap[i]);
	}
	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_string_equal(c->isa_level, "armv8.2-a");
	assert_null(c->model_name);
	assert_int_equal(c->n_core_kinds, 2);
	assert_string_equal(c->core_kinds[0].kind, "capacity-731");
	assert_string_equal(c->core_kinds[0].cpulist, "0-1");
	assert_string_equal(c->core_kinds[1].kind, "capacity-1024");
	assert_string_equal(c->core_kinds[1].cpulist, "2-5");
	assert_int_equal(c->core_kinds[1].count.v, 4);
	ga_node_free(n);
	rmtree(root);
}

/* Bad values are gaps, never a crash or a wrong count. */
static void test_garbage(void **state)
{
	(void)state;
	char root[] = "/tmp/ga-topo-XXXXXX";
	assert_non_null(mkdtemp(root));
	put(root, "sys/devices/system/cpu/present", "0-3\n");
	put(root, "sys/devices/system/cpu/online", "0-x\n");
	put(root, "sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0,,1\n");
	put(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "99999999\n");
	put(root, "sys/devices/system/node/node0/cpulist", "0-3\n");
	put(root, "sys/devices/system/node/node0/distance", "10 x\n");
	put(root, "proc/self/cgroup", "0::/../../etc\n");
	struct ga_node *n = collect(root);
	const struct ga_cpu *c = &n->cpu;
	assert_int_equal(c->cpus_present.v, 4);
	assert_int_equal(c->threads.v, 4); /* cpu/online unparsable: the per-CPU files (none) */
	assert_int_equal(c->cores.v, 2);   /* an unparsable set stands for its CPU; 2 and 3 have none */
	assert_null(c->numa_nodes[0].distances.v);
	assert_null(c->cpuset);
	assert_true(n->n_gaps >= 3);
	ga_node_free(n);
	rmtree(root);
}

static void test_cpulist_parse(void **state)
{
	(void)state;
	uint64_t *w = NULL;
	size_t nbits = 0;
	assert_int_equal(ga_cpulist_parse("0-3,8,10-11\n", &w, &nbits), 0);
	assert_int_equal(nbits, 12);
	assert_int_equal(w[0], 0xd0f);
	ga_free(w);
	assert_int_equal(ga_cpulist_parse("\n", &w, &nbits), 0);
	assert_null(w);
	assert_int_equal(nbits, 0);
	static const char *const bad[] = { "1, 2",      "+1", "0-+3", "1-0", "1048576",
		                           "0-1048576", "1,", "a",    "-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w = (uint64_t *)1;
		if (ga_cpulist_parse(bad[i], &w, &nbits) != -EINVAL)
			fail_msg("ga_cpulist_parse(\"%s\") accepted", bad[i]);
		assert_ptr_equal(w, (uint64_t *)1);
	}
	assert_int_equal(ga_cpulist_count("1, 2"), -1);
	assert_int_equal(ga_cpulist_count("+1"), -1);
	assert_int_equal(ga_cpulist_count(" 1\n"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_smt_offline_isolated),
		cmocka_unit_test(test_amd_two_dies),
		cmocka_unit_test(test_grace),
		cmocka_unit_test(test_power9),
		cmocka_unit_test(test_offline_core0),
		cmocka_unit_test(test_power_package_ids),
		cmocka_unit_test(test_amd_compute_units),
		cmocka_unit_test(test_no_numa_dirs),
		cmocka_unit_test(test_hybrid_intel),
		cmocka_unit_test(test_gb10_parts),
		cmocka_unit_test(test_capacity_classes),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_cpulist_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
