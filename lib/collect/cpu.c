/*
 * cpu.c - processors from /proc/cpuinfo (model, vendor, flags, ISA level; the
 * topology fallback when sysfs has none), memory and hugepages from /proc/meminfo,
 * and NUMA nodes from /sys/devices/system/node. The sysfs CPU topology is cputopo.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

/*
 * x86-64 micro-architecture levels (psABI): each needs all flags of the ones below.
 * v3 also needs LZCNT, shown as "abm"; it is left out on purpose: some hypervisors
 * hide "abm" from /proc/cpuinfo on CPUs that have it (seen on an AVX-512 EPYC guest
 * whose glibc reports x86-64-v4), and every CPU with AVX2+BMI2 has LZCNT.
 */
static const char *const isa_v2[] = { "cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3" };
static const char *const isa_v3[] = { "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave" };
static const char *const isa_v4[] = { "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl" };

/*
 * aarch64 levels from the hwcaps in "Features" (docs/cpu-models.md has the rule and its
 * sources): each level needs the hwcaps of the features the Arm ARM makes mandatory at
 * that level and that the kernel shows, plus all levels below. v9.0-a is v8.5-a + SVE2.
 * Levels above v8.5/v9.0 are not claimed: what they add (ECV, FGT, ...) is not in the
 * hwcaps, and their visible features (bf16, i8mm) are optional on v9.0 cores (Neoverse V2).
 */
static const char *const arm_v81[] = { "atomics", "asimdrdm", "crc32" };
static const char *const arm_v82[] = { "dcpop" };
static const char *const arm_v83[] = { "jscvt", "fcma", "lrcpc" };
static const char *const arm_v84[] = { "asimddp", "dit", "uscat", "ilrcpc", "flagm" };
static const char *const arm_v85[] = { "flagm2", "frint", "sb", "dcpodp" };

/* ISA extensions reported in isa_features, in this order, when the flags have them. */
static const char *const x86_features[] = { "avx",         "avx2",        "fma",      "f16c",
	                                    "avx512f",     "avx512bw",    "avx512vl", "avx512_vnni",
	                                    "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
	                                    "amx_bf16",    "amx_int8" };
static const char *const arm_features[] = { "asimd", "atomics", "fphp", "asimdhp", "asimddp", "asimdfhm",
	                                    "bf16",  "i8mm",    "sve",  "sve2",    "sme",     "sme2" };

static bool has_flag(const char *flags, const char *f)
{
	size_t fl = strlen(f);
	for (const char *p = flags; (p = strstr(p, f)) != NULL; p += fl) {
		bool start = p == flags || p[-1] == ' ' || p[-1] == '\t';
		bool end = p[fl] == '\0' || p[fl] == ' ' || p[fl] == '\n';
		if (start && end)
			return true;
	}
	return false;
}

static bool has_all(const char *flags, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!has_flag(flags, v[i]))
			return false;
	return true;
}

static const char *isa_level(const char *flags)
{
	if (!has_flag(flags, "lm"))
		return NULL; /* not a 64-bit x86 */
	if (!has_all(flags, isa_v2, GA_ARRAY_SIZE(isa_v2)))
		return "x86-64-v1";
	if (!has_all(flags, isa_v3, GA_ARRAY_SIZE(isa_v3)))
		return "x86-64-v2";
	if (!has_all(flags, isa_v4, GA_ARRAY_SIZE(isa_v4)))
		return "x86-64-v3";
	return "x86-64-v4";
}

static const char *arm_isa_level(const char *flags)
{
#define ARM_LEVEL(v, name)                        \
	if (!has_all(flags, v, GA_ARRAY_SIZE(v))) \
		return name;
	ARM_LEVEL(arm_v81, "armv8.0-a")
	ARM_LEVEL(arm_v82, "armv8.1-a")
	ARM_LEVEL(arm_v83, "armv8.2-a")
	ARM_LEVEL(arm_v84, "armv8.3-a")
	ARM_LEVEL(arm_v85, "armv8.4-a")
#undef ARM_LEVEL
	return has_flag(flags, "sve2") ? "armv9.0-a" : "armv8.5-a";
}

/* "POWER9 (raw), altivec supported" -> "power9" (the glibc-hwcaps name); NULL otherwise. */
static char *power_level(const char *cpu)
{
	if (!ga_startswith(cpu, "POWER") || cpu[5] < '1' || cpu[5] > '9')
		return NULL;
	size_t n = 5;
	while (cpu[n] >= '0' && cpu[n] <= '9' && n < 8)
		n++;
	char *s = ga_strndup(cpu, n);
	for (size_t i = 0; s && i < 5; i++)
		s[i] = (char)(s[i] - 'A' + 'a');
	return s;
}

static int features(struct ga_col *c, const char *flags, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (has_flag(flags, v[i]) && ga_col_strv_push(c, &c->node->cpu.isa_features, v[i]) < 0)
			return -1;
	return 0;
}

#define MAX_IDS 8192

/* Count distinct values in a small set. */
struct idset {
	uint64_t v[MAX_IDS];
	size_t n;
};

static void idset_add(struct idset *s, uint64_t v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return;
	if (s->n < MAX_IDS)
		s->v[s->n++] = v;
}

/* aarch64 model name: the names of the distinct parts, in the order of the processors. */
static void arm_model(struct ga_col *c, uint64_t impl, const struct ga_cpuinfo_row *rows, size_t n)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	const char *vendor = ga_midr_vendor(impl);
	if (vendor && !cpu->vendor) {
		cpu->vendor = ga_strdup(vendor);
		ga_col_ok(c, cpu->vendor);
	}
	const char *seen[8];
	size_t nseen = 0;
	for (size_t i = 0; i < n && nseen < GA_ARRAY_SIZE(seen); i++) {
		const char *name = rows[i].part.set ? ga_midr_part_name(impl, rows[i].part.v) : NULL;
		bool dup = !name;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = !strcmp(seen[k], name);
		if (dup)
			continue;
		seen[nseen++] = name;
		if (ga_buf_addf(&b, "%s%s", b.len ? " + " : "", name) < 0)
			c->err = -ENOMEM;
	}
	if (b.len && !cpu->model_name) {
		cpu->model_name = ga_buf_detach(&b, NULL);
		ga_col_ok(c, cpu->model_name);
	}
	ga_buf_release(&b);
}

static void cpuinfo(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct idset *sockets = ga_calloc(1, sizeof(*sockets));
	struct idset *cores = ga_calloc(1, sizeof(*cores));
	struct ga_cpuinfo_row *rows = NULL;
	size_t n_rows = 0;
	char *flags = NULL;
	char *ppc_cpu = NULL;
	if (!ga_col_ok(c, sockets) || !ga_col_ok(c, cores))
		goto out;
	if (ga_col_read(c, GA_COL_REQ, &b, "proc/cpuinfo") < 0)
		goto topo;

	uint64_t threads = 0;
	bool topo = true;
	bool arm = false;
	struct ga_ou64 impl = { 0, false };
	int64_t phys = -1;
	char *save = NULL;
	struct ga_cpuinfo_row *row = NULL;
	for (char *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *key = ga_strstrip(line);
		char *val = ga_strstrip(colon + 1);
		uint64_t u;
		if (!strcmp(key, "processor")) {
			threads++;
			phys = -1;
			row = NULL;
			if (ga_parse_u64(val, 10, &u) == 0 && n_rows < GA_CPULIST_MAX_ID) {
				row = ga_array_push((void **)&rows, &n_rows, sizeof(*row));
				if (!ga_col_ok(c, row))
					goto out;
				row->cpu = u;
			}
		} else if (!strcmp(key, "vendor_id") && !cpu->vendor) {
			cpu->vendor = ga_strdup(val);
			ga_col_ok(c, cpu->vendor);
		} else if (!strcmp(key, "model name") && !cpu->model_name) {
			cpu->model_name = ga_strdup(val);
			ga_col_ok(c, cpu->model_name);
		} else if (!strcmp(key, "cpu family") && !cpu->family.set && !ga_parse_u64(val, 10, &u)) {
			GA_SET(cpu->family, u);
		} else if (!strcmp(key, "model") && !cpu->model.set && !ga_parse_u64(val, 10, &u)) {
			GA_SET(cpu->model, u);
		} else if ((!strcmp(key, "flags") || !strcmp(key, "Features")) && !flags) {
			flags = ga_strdup(val);
			ga_col_ok(c, flags);
		} else if (!strcmp(key, "CPU implementer")) {
			arm = true;
			if (!impl.set && ga_parse_u64(val, 0, &u) == 0 && u <= 0xff)
				GA_SET(impl, u);
		} else if (!strcmp(key, "CPU part")) {
			if (row && ga_parse_u64(val, 0, &u) == 0 && u <= 0xfff)
				GA_SET(row->part, u);
		} else if (!strcmp(key, "cpu") && !ppc_cpu) {
			ppc_cpu = ga_strdup(val); /* ppc: "POWER9 (raw), altivec supported" */
			ga_col_ok(c, ppc_cpu);
		} else if (!strcmp(key, "physical id") && !ga_parse_u64(val, 10, &u)) {
			phys = (int64_t)u;
			idset_add(sockets, u);
		} else if (!strcmp(key, "core id") && !ga_parse_u64(val, 10, &u)) {
			if (phys < 0)
				topo = false;
			else
				idset_add(cores, ((uint64_t)phys << 32) | u);
		}
	}
	if (threads)
		GA_SET(cpu->threads, threads);
	else
		ga_col_gap(c, "proc/cpuinfo", "unparsable");
	if (topo && sockets->n && cores->n) {
		GA_SET(cpu->sockets, sockets->n);
		GA_SET(cpu->cores, cores->n);
	}
	bool power = ppc_cpu && ga_startswith(ppc_cpu, "POWER");
	const char *arch = arm                              ? "aarch64"
	                   : flags && has_flag(flags, "lm") ? "x86_64"
	                   : power                          ? "ppc64le"
	                                                    : NULL;
	if (arch) {
		cpu->arch = ga_strdup(arch);
		ga_col_ok(c, cpu->arch);
	}
	if (arm) {
		if (impl.set) {
			cpu->implementer = impl;
			if (n_rows && rows[0].part.set)
				cpu->part = rows[0].part;
			arm_model(c, impl.v, rows, n_rows);
		}
		if (flags) {
			cpu->isa_level = ga_strdup(arm_isa_level(flags));
			ga_col_ok(c, cpu->isa_level);
			features(c, flags, arm_features, GA_ARRAY_SIZE(arm_features));
		}
	} else if (flags) {
		const char *lvl = isa_level(flags);
		if (lvl) {
			cpu->isa_level = ga_strdup(lvl);
			ga_col_ok(c, cpu->isa_level);
		}
		features(c, flags, x86_features, GA_ARRAY_SIZE(x86_features));
		GA_SET(c->node->host.virt.cpu_hypervisor_flag, has_flag(flags, "hypervisor"));
	} else if (power) {
		if (!cpu->model_name) {
			cpu->model_name = ga_strdup(ppc_cpu);
			ga_col_ok(c, cpu->model_name);
		}
		cpu->isa_level = power_level(ppc_cpu);
		ga_col_ok(c, cpu->isa_level);
		if (strstr(ppc_cpu, "altivec supported"))
			ga_col_strv_push(c, &cpu->isa_features, "altivec");
	}
topo:
	ga_collect_cpu_topology(c, rows, n_rows);
out:
	ga_free(flags);
	ga_free(ppc_cpu);
	ga_free(rows);
	ga_free(sockets);
	ga_free(cores);
	ga_buf_release(&b);
}

/* "MemTotal:       24684092 kB" -> bytes. */
static bool meminfo_value(const char *text, const char *key, uint64_t *ret)
{
	char *v = ga_col_kv(text, key, ':');
	if (!v)
		return false;
	uint64_t mult = 1;
	size_t l = strlen(v);
	if (l > 3 && !strcmp(v + l - 3, " kB")) {
		v[l - 3] = '\0';
		mult = 1024;
	}
	uint64_t u;
	/* snapshot integers must stay within what JSON readers take (INT64_MAX) */
	bool ok = ga_parse_u64(ga_strstrip(v), 10, &u) == 0 && u <= (uint64_t)INT64_MAX / mult;
	if (ok)
		*ret = u * mult;
	ga_free(v);
	return ok;
}

static void meminfo(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_col_read(c, GA_COL_REQ, &b, "proc/meminfo") == 0) {
		uint64_t v;
		if (meminfo_value(b.data, "MemTotal", &v))
			GA_SET(cpu->mem_total_bytes, v);
		else
			ga_col_gap(c, "proc/meminfo", "unparsable");
		if (meminfo_value(b.data, "HugePages_Total", &v))
			GA_SET(cpu->hugepages_total, v);
		if (meminfo_value(b.data, "Hugepagesize", &v))
			GA_SET(cpu->hugepage_size_bytes, v);
	}
	ga_buf_release(&b);
}

/* nodeN/distance: "10 21 21" -> nn->distances (left absent when unparsable). */
static void numa_distances(struct ga_col *c, struct ga_numa_node *nn, uint64_t id)
{
	char *text = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &text, "sys/devices/system/node/node%llu/distance",
	                (unsigned long long)id) < 0)
		return;
	size_t n = 0;
	uint64_t *v = ga_malloc((strlen(text) / 2 + 1) * sizeof(*v));
	if (!ga_col_ok(c, v))
		goto out;
	char *save = NULL;
	for (char *t = strtok_r(text, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (ga_parse_u64(t, 10, &v[n]) < 0 || v[n] > 0xffff) {
			ga_col_gap(c, "sys/devices/system/node/distance", "unparsable");
			goto out;
		}
		n++;
	}
	nn->distances.v = v;
	nn->distances.n = n;
	v = NULL;
out:
	ga_free(v);
	ga_free(text);
}

static void numa(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	char **names = NULL;
	size_t n = 0;
	uint64_t *ids = NULL;
	size_t nid = 0;
	if (ga_col_list(c, &names, &n, "sys/devices/system/node") < 0)
		goto one;
	/* node0, node1, ... node10: sort numerically */
	ids = ga_calloc(n ? n : 1, sizeof(*ids));
	if (!ga_col_ok(c, ids))
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		if (ga_startswith(names[i], "node") && ga_parse_u64(names[i] + 4, 10, &id) == 0 &&
		    id < GA_CPULIST_MAX_ID)
			ids[nid++] = id;
	}
	for (size_t i = 1; i < nid; i++)
		for (size_t k = i; k > 0 && ids[k - 1] > ids[k]; k--) {
			uint64_t t = ids[k];
			ids[k] = ids[k - 1];
			ids[k - 1] = t;
		}
	for (size_t i = 0; i < nid; i++) {
		struct ga_numa_node *nn =
		        ga_array_push((void **)&cpu->numa_nodes, &cpu->n_numa_nodes, sizeof(*nn));
		if (!ga_col_ok(c, nn))
			goto out;
		GA_SET(nn->id, ids[i]);
		if (ga_col_attr(c, GA_COL_REQ, &nn->cpulist, "sys/devices/system/node/node%llu/cpulist",
		                (unsigned long long)ids[i]) == 0) {
			long k = ga_cpulist_count(nn->cpulist);
			if (k >= 0) {
				GA_SET(nn->cpus, (uint64_t)k);
				GA_SET(nn->cpuless, k == 0);
				nn->kind = ga_strdup(k ? "dram"
				                       : "memory"); /* CPU-less: ga_collect_numa_kinds */
				ga_col_ok(c, nn->kind);
			}
		}
		struct ga_buf b;
		ga_buf_init(&b, 0);
		if (ga_col_read(c, GA_COL_OPT, &b, "sys/devices/system/node/node%llu/meminfo",
		                (unsigned long long)ids[i]) == 0) {
			char key[48];
			snprintf(key, sizeof(key), "Node %llu MemTotal", (unsigned long long)ids[i]);
			uint64_t v;
			if (meminfo_value(b.data, key, &v))
				GA_SET(nn->mem_total_bytes, v);
		}
		ga_buf_release(&b);
		numa_distances(c, nn, ids[i]);
	}
one:
	/* no node directories (CONFIG_NUMA off, some VMs): the machine is one node */
	if (!cpu->n_numa_nodes && !c->err) {
		struct ga_numa_node *nn =
		        ga_array_push((void **)&cpu->numa_nodes, &cpu->n_numa_nodes, sizeof(*nn));
		if (!ga_col_ok(c, nn))
			goto out;
		GA_SET(nn->id, 0);
		if (cpu->online)
			nn->cpulist = ga_strdup(cpu->online);
		else if (cpu->threads.set && cpu->threads.v) {
			char all[48];
			snprintf(all, sizeof(all), "0-%llu", (unsigned long long)cpu->threads.v - 1);
			nn->cpulist = ga_strdup(all);
		}
		if (nn->cpulist && ga_col_ok(c, nn->cpulist)) {
			long k = ga_cpulist_count(nn->cpulist);
			if (k >= 0) {
				GA_SET(nn->cpus, (uint64_t)k);
				GA_SET(nn->cpuless, k == 0);
			}
		}
		nn->mem_total_bytes = cpu->mem_total_bytes;
		nn->kind = ga_strdup("dram");
		ga_col_ok(c, nn->kind);
	}
out:
	ga_free(ids);
	ga_strv_free(names);
}

static struct ga_numa_node *numa_node_of(struct ga_cpu *cpu, int64_t id)
{
	for (size_t i = 0; i < cpu->n_numa_nodes; i++)
		if (id >= 0 && cpu->numa_nodes[i].id.set && cpu->numa_nodes[i].id.v == (uint64_t)id)
			return &cpu->numa_nodes[i];
	return NULL;
}

static void mark_gpu(struct ga_col *c, struct ga_numa_node *nn)
{
	if (!nn || !nn->cpuless.set || !nn->cpuless.v || (nn->kind && !strcmp(nn->kind, "gpu")))
		return;
	ga_free(nn->kind);
	nn->kind = ga_strdup("gpu");
	ga_col_ok(c, nn->kind);
}

/*
 * A CPU-less node is GPU memory (docs/discover.md) when the NVIDIA driver says so
 * (/proc/driver/nvidia/gpus/BDF/numa_status "Node: N", what hwloc reads), or when a GPU
 * (an accelerator, or a PCI function bound to nvidia or amdgpu) has that numa_node.
 * Otherwise it stays "memory": CXL and other memory-only tiers are not told apart yet.
 */
void ga_collect_numa_kinds(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	bool any = false;
	for (size_t i = 0; i < cpu->n_numa_nodes; i++)
		any |= cpu->numa_nodes[i].cpuless.set && cpu->numa_nodes[i].cpuless.v;
	if (!any)
		return;
	char **names = NULL;
	size_t n = 0;
	if (ga_col_list(c, &names, &n, "proc/driver/nvidia/gpus") == 0) {
		for (size_t i = 0; i < n; i++) {
			struct ga_buf b;
			ga_buf_init(&b, 0);
			if (ga_col_read(c, GA_COL_OPT, &b, "proc/driver/nvidia/gpus/%s/numa_status",
			                names[i]) == 0) {
				char *v = ga_col_kv(b.data, "Node", ':');
				int64_t id;
				if (v && ga_parse_i64(ga_strstrip(v), 10, &id) == 0)
					mark_gpu(c, numa_node_of(cpu, id));
				ga_free(v);
			}
			ga_buf_release(&b);
		}
		ga_strv_free(names);
	}
	for (size_t i = 0; i < c->node->n_accelerators; i++) {
		const struct ga_accel *a = &c->node->accelerators[i];
		if (a->numa_node.set)
			mark_gpu(c, numa_node_of(cpu, a->numa_node.v));
	}
	for (size_t i = 0; i < c->node->n_pci; i++) {
		const struct ga_pci_dev *d = &c->node->pci[i];
		bool gpu = (d->kind && !strcmp(d->kind, "accelerator")) ||
		           (d->driver && (!strcmp(d->driver, "nvidia") || !strcmp(d->driver, "amdgpu")));
		if (gpu && d->numa_node.set)
			mark_gpu(c, numa_node_of(cpu, d->numa_node.v));
	}
}

void ga_collect_cpu(struct ga_col *c)
{
	cpuinfo(c);
	meminfo(c);
	numa(c);
}
