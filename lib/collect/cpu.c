/*
 * cpu.c - processors, sockets/cores/threads, x86-64 ISA level, NUMA nodes,
 * memory and hugepages, from /proc/cpuinfo, /proc/meminfo and
 * /sys/devices/system/node.
 */
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

static void cpuinfo(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct idset *sockets = ga_calloc(1, sizeof(*sockets));
	struct idset *cores = ga_calloc(1, sizeof(*cores));
	if (!ga_col_ok(c, sockets) || !ga_col_ok(c, cores))
		goto out;
	if (ga_col_read(c, GA_COL_REQ, &b, "proc/cpuinfo") < 0)
		goto out;

	uint64_t threads = 0;
	bool topo = true;
	bool arm = false;
	char *flags = NULL;
	int64_t phys = -1;
	char *save = NULL;
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
	const char *arch = arm ? "aarch64" : flags && has_flag(flags, "lm") ? "x86_64" : NULL;
	if (arch) {
		cpu->arch = ga_strdup(arch);
		ga_col_ok(c, cpu->arch);
	}
	if (flags) {
		const char *lvl = isa_level(flags);
		if (lvl) {
			cpu->isa_level = ga_strdup(lvl);
			ga_col_ok(c, cpu->isa_level);
		}
		GA_SET(c->node->host.virt.cpu_hypervisor_flag, has_flag(flags, "hypervisor"));
	}
	ga_free(flags);
out:
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

static void numa(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	char **names = NULL;
	size_t n = 0;
	if (ga_col_list(c, &names, &n, "sys/devices/system/node") < 0)
		return;
	/* node0, node1, ... node10: sort numerically */
	uint64_t ids[1024];
	size_t nid = 0;
	for (size_t i = 0; i < n && nid < GA_ARRAY_SIZE(ids); i++) {
		uint64_t id;
		if (ga_startswith(names[i], "node") && ga_parse_u64(names[i] + 4, 10, &id) == 0)
			ids[nid++] = id;
	}
	ga_strv_free(names);
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
			return;
		GA_SET(nn->id, ids[i]);
		if (ga_col_attr(c, GA_COL_REQ, &nn->cpulist, "sys/devices/system/node/node%llu/cpulist",
		                (unsigned long long)ids[i]) == 0) {
			long k = ga_cpulist_count(nn->cpulist);
			if (k >= 0)
				GA_SET(nn->cpus, (uint64_t)k);
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
	}
}

void ga_collect_cpu(struct ga_col *c)
{
	cpuinfo(c);
	meminfo(c);
	numa(c);
}
