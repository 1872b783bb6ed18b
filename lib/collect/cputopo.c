/*
 * cputopo.c - the CPU topology as sysfs gives it, the same files hwloc and lscpu read
 * (Documentation/ABI/stable/sysfs-devices-system-cpu, admin-guide/cputopology.rst):
 *
 *   cpu/{present,online,offline,isolated}      which CPUs exist, run, are isolated
 *   cpuN/topology/{package,die,cluster,core}_cpus_list and physical_package_id
 *                                              packages, dies, clusters and cores as the
 *                                              sets of CPUs sharing them
 *   /sys/devices/cpu_{core,atom}/cpus, cpuN/cpu_capacity, cpuN/regs/identification/midr_el1
 *                                              the kinds of core of a hybrid CPU
 *   the cgroup's cpuset.cpus.effective         the CPUs this process may use
 *
 * /proc/cpuinfo (cpu.c) is the fallback where a kernel or a capture has no topology:
 * its "cpu cores" and "core id" are per die on multi-die AMD packages and it says
 * nothing of packages on aarch64. Cores are counted as distinct sibling sets with an
 * online thread (a core whose threads are all offline is none: lstopo drops it too),
 * packages as distinct package sets (not physical_package_id values, which POWER
 * LPARs leave at -1), threads as online CPUs: an offline CPU is never a usable thread.
 * AMD's Bulldozer-era compute units count as two cores each, as hwloc shows them.
 * Each set's list is read once, for its first CPU, so a 256-CPU machine costs about
 * two reads per core.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

#define SYSCPU "sys/devices/system/cpu"

struct mask {
	uint64_t *w;
	size_t nbits;
};

static bool m_test(const struct mask *m, size_t i)
{
	return i < m->nbits && (m->w[i / 64] >> (i % 64)) & 1;
}

static size_t m_count(const struct mask *m)
{
	size_t n = 0;
	for (size_t i = 0; i < (m->nbits + 63) / 64; i++)
		n += (size_t)__builtin_popcountll(m->w[i]);
	return n;
}

/* The bits set in both a and b. */
static size_t m_count_and(const struct mask *a, const struct mask *b)
{
	size_t n = 0;
	for (size_t i = 0; i < (a->nbits + 63) / 64 && i < (b->nbits + 63) / 64; i++)
		n += (size_t)__builtin_popcountll(a->w[i] & b->w[i]);
	return n;
}

static void m_release(struct mask *m)
{
	ga_free(m->w);
	m->w = NULL;
	m->nbits = 0;
}

/* An empty mask of nbits bits. */
static int m_init(struct mask *m, size_t nbits)
{
	m->nbits = nbits;
	m->w = ga_calloc((nbits + 63) / 64 ? (nbits + 63) / 64 : 1, sizeof(uint64_t));
	return m->w ? 0 : -ENOMEM;
}

/* m |= o, within m's size. */
static void m_or(struct mask *m, const struct mask *o)
{
	for (size_t i = 0; i < (m->nbits + 63) / 64 && i < (o->nbits + 63) / 64; i++)
		m->w[i] |= o->w[i];
}

static bool m_intersects(const struct mask *a, const struct mask *b)
{
	for (size_t i = 0; i < (a->nbits + 63) / 64 && i < (b->nbits + 63) / 64; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

static void m_set(struct mask *m, size_t i)
{
	if (i < m->nbits)
		m->w[i / 64] |= UINT64_C(1) << (i % 64);
}

/* "0-3,8,10-11", the kernel's %*pbl form; "" for an empty mask. */
static char *m_format(const struct mask *m)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_adds(&b, "");
	for (size_t i = 0; i < m->nbits && r == 0; i++) {
		if (!m_test(m, i))
			continue;
		size_t k = i;
		while (k + 1 < m->nbits && m_test(m, k + 1))
			k++;
		r = k > i ? ga_buf_addf(&b, "%s%zu-%zu", b.len ? "," : "", i, k)
		          : ga_buf_addf(&b, "%s%zu", b.len ? "," : "", i);
		i = k;
	}
	if (r < 0) {
		ga_buf_release(&b);
		return NULL;
	}
	return ga_buf_detach(&b, NULL);
}

/*
 * Read a cpulist file into m. 0, -ENOENT and the like (absent; a gap when flags is
 * GA_COL_REQ), -EINVAL (unparsable: a gap) or -ENOMEM. ret_text, when given, gets
 * the text as read (stripped) on success.
 */
static int read_list(struct ga_col *c, int flags, const char *path, struct mask *m, char **ret_text)
{
	char *text = NULL;
	int r = ga_col_attr(c, flags, &text, "%s", path);
	if (r < 0)
		return r;
	r = ga_cpulist_parse(text, &m->w, &m->nbits);
	if (r == -EINVAL)
		ga_col_gap(c, path, "unparsable");
	else if (r == -ENOMEM)
		c->err = -ENOMEM;
	if (r == 0 && ret_text) {
		*ret_text = text;
		text = NULL;
	}
	ga_free(text);
	return r;
}

/* present CPUs: cpu/present, else the cpuN directories. */
static int read_present(struct ga_col *c, struct mask *present)
{
	if (read_list(c, GA_COL_OPT, SYSCPU "/present", present, NULL) == 0)
		return 0;
	char **names = NULL;
	size_t n = 0;
	if (ga_col_list(c, &names, &n, SYSCPU) < 0)
		return -ENOENT;
	size_t max = 0;
	bool any = false;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && (!any || m_init(present, max + 1) < 0))
			break;
		for (size_t i = 0; i < n; i++) {
			uint64_t id;
			if (!ga_startswith(names[i], "cpu") || ga_parse_u64(names[i] + 3, 10, &id) < 0 ||
			    id >= GA_CPULIST_MAX_ID)
				continue;
			if (pass == 0) {
				max = id > max ? (size_t)id : max;
				any = true;
			} else {
				m_set(present, (size_t)id);
			}
		}
	}
	ga_strv_free(names);
	return present->w ? 0 : -ENOENT;
}

/* online CPUs without cpu/online: the present ones whose cpuN/online does not say 0. */
static int online_per_cpu(struct ga_col *c, const struct mask *present, struct mask *online)
{
	if (m_init(online, present->nbits) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < present->nbits; i++) {
		if (!m_test(present, i))
			continue;
		struct ga_ou64 v = { 0, false };
		ga_col_attr_u64(c, GA_COL_OPT, &v, SYSCPU "/cpu%zu/online", i);
		if (!v.set || v.v != 0)
			m_set(online, i); /* cpu0 often has no online file: it cannot go offline */
	}
	return 0;
}

/*
 * Count the sets of one topology level over the CPUs in cpus: each set is the list
 * file (or its old name) of its first CPU, as hwloc counts them (a package is a distinct
 * package_cpus set, whatever physical_package_id says: POWER LPARs give -1 to every
 * CPU of every chip). need_online: count only sets with an online CPU. Returns the
 * count, or -1 when the first online CPU has neither list file (the level is not in
 * this kernel's sysfs; an offline CPU has no topology directory, and cpu0 can be
 * offline). has, when given, gets the CPUs that had the file.
 */
static long count_sets(struct ga_col *c, const struct mask *cpus, const struct mask *online, const char *list,
                       const char *alt, bool need_online, struct mask *has)
{
	struct mask done = { 0 }, m = { 0 };
	long count = -1;
	if (m_init(&done, cpus->nbits) < 0) {
		c->err = -ENOMEM;
		return -1;
	}
	char path[256];
	for (size_t i = 0; i < cpus->nbits; i++) {
		if (!m_test(cpus, i) || m_test(&done, i))
			continue;
		m_release(&m);
		snprintf(path, sizeof(path), SYSCPU "/cpu%zu/topology/%s", i, list);
		int r = read_list(c, GA_COL_OPT, path, &m, NULL);
		if (r < 0 && r != -EINVAL && alt) {
			snprintf(path, sizeof(path), SYSCPU "/cpu%zu/topology/%s", i, alt);
			r = read_list(c, GA_COL_OPT, path, &m, NULL);
		}
		if (r == -ENOMEM)
			break;
		if (r < 0 && r != -EINVAL) {
			if (count < 0 && m_test(online, i))
				break;   /* no such level */
			m_set(&done, i); /* this CPU has no topology directory (offline) */
			continue;
		}
		if (count < 0)
			count = 0;
		if (r < 0)
			m_release(&m); /* unparsable: the CPU stands for itself */
		m_or(&done, &m);
		m_set(&done, i);
		if (has) {
			m_or(has, &m);
			m_set(has, i);
		}
		bool on = m_test(online, i) || m_intersects(&m, online);
		if (need_online && !on)
			continue;
		count++;
	}
	m_release(&m);
	m_release(&done);
	return count;
}

/*
 * AMD families 15h (Bulldozer to Excavator) and 16h: Linux puts the two cores of a
 * compute unit in one core_cpus (thread_siblings) set, each with its own core_id.
 * hwloc then makes every CPU a core (it compares the core_id of the first set with two
 * online CPUs; equal ids are SMT threads). Whether that holds here.
 */
static bool amd_cu_cores(struct ga_col *c, const struct mask *topo, const struct mask *online)
{
	const struct ga_cpu *cpu = &c->node->cpu;
	if (!cpu->vendor || strcmp(cpu->vendor, "AuthenticAMD") || !cpu->family.set ||
	    (cpu->family.v != 0x15 && cpu->family.v != 0x16))
		return false;
	bool differ = false;
	for (size_t i = 0; i < topo->nbits && i < online->nbits; i++) {
		if (!m_test(topo, i) || !m_test(online, i))
			continue;
		struct mask m = { 0 };
		char path[128];
		snprintf(path, sizeof(path), SYSCPU "/cpu%zu/topology/core_cpus_list", i);
		if (read_list(c, GA_COL_OPT, path, &m, NULL) < 0) {
			snprintf(path, sizeof(path), SYSCPU "/cpu%zu/topology/thread_siblings_list", i);
			if (read_list(c, GA_COL_OPT, path, &m, NULL) < 0)
				continue;
		}
		size_t sib = SIZE_MAX;
		for (size_t k = 0; k < m.nbits && sib == SIZE_MAX; k++)
			if (k != i && m_test(&m, k) && m_test(online, k))
				sib = k;
		m_release(&m);
		if (sib == SIZE_MAX)
			continue; /* a set of one: look on */
		struct ga_oi64 a = { 0, false }, b = { 0, false };
		ga_col_attr_i64(c, GA_COL_OPT, &a, SYSCPU "/cpu%zu/topology/core_id", i);
		ga_col_attr_i64(c, GA_COL_OPT, &b, SYSCPU "/cpu%zu/topology/core_id", sib);
		differ = a.set && b.set && a.v != b.v;
		break;
	}
	return differ;
}

/* Distinct physical_package_id of every CPU in cpus (no package list files); -1 if none. */
static long package_ids(struct ga_col *c, const struct mask *cpus)
{
	int64_t ids[256];
	size_t nids = 0;
	for (size_t i = 0; i < cpus->nbits; i++) {
		struct ga_oi64 v = { 0, false };
		if (!m_test(cpus, i) ||
		    ga_col_attr_i64(c, GA_COL_OPT, &v, SYSCPU "/cpu%zu/topology/physical_package_id", i) < 0)
			continue;
		bool seen = false;
		for (size_t k = 0; k < nids && !seen; k++)
			seen = ids[k] == v.v;
		if (!seen && nids < GA_ARRAY_SIZE(ids))
			ids[nids++] = v.v;
	}
	return nids ? (long)nids : -1;
}

static int push_kind(struct ga_col *c, const char *kind, char *cpulist)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct ga_core_kind *k = ga_array_push((void **)&cpu->core_kinds, &cpu->n_core_kinds, sizeof(*k));
	if (!ga_col_ok(c, k) || !cpulist) {
		ga_free(cpulist);
		return -ENOMEM;
	}
	k->kind = ga_strdup(kind);
	k->cpulist = cpulist;
	long n = ga_cpulist_count(cpulist);
	if (n >= 0)
		GA_SET(k->count, (uint64_t)n);
	return ga_col_ok(c, k->kind) ? 0 : -ENOMEM;
}

/* Intel hybrid: the perf PMUs cpu_core (P-cores), cpu_atom (E-cores), cpu_lowpower. */
static bool intel_kinds(struct ga_col *c)
{
	static const char *const kinds[] = { "core", "atom", "lowpower" };
	bool any = false;
	for (size_t i = 0; i < GA_ARRAY_SIZE(kinds); i++) {
		char *text = NULL;
		if (ga_col_attr(c, GA_COL_OPT, &text, "sys/devices/cpu_%s/cpus", kinds[i]) < 0)
			continue;
		if (ga_cpulist_count(text) <= 0) {
			ga_free(text);
			continue;
		}
		any = true;
		if (push_kind(c, kinds[i], text) < 0)
			break;
	}
	return any;
}

/*
 * Group the online CPUs by key (key[i] for CPU i; UINT64_MAX = unknown, left out):
 * equal keys, or with gap_pct > 0, sorted keys closer than gap_pct percent, form one
 * kind. Pushed only when there are two kinds or more; name(key) names a kind.
 */
static void group_kinds(struct ga_col *c, const struct mask *online, const uint64_t *key, unsigned gap_pct,
                        const char *(*name)(struct ga_col *, uint64_t, char *, size_t))
{
	uint64_t vals[16];
	size_t nv = 0;
	for (size_t i = 0; i < online->nbits; i++) {
		if (!m_test(online, i) || key[i] == UINT64_MAX)
			continue;
		bool seen = false;
		for (size_t k = 0; k < nv && !seen; k++)
			seen = vals[k] == key[i];
		if (!seen && nv < GA_ARRAY_SIZE(vals))
			vals[nv++] = key[i];
	}
	if (gap_pct) {
		for (size_t i = 1; i < nv; i++)
			for (size_t k = i; k > 0 && vals[k - 1] > vals[k]; k--) {
				uint64_t t = vals[k];
				vals[k] = vals[k - 1];
				vals[k - 1] = t;
			}
	}
	/* class[k]: the group of vals[k]; a new group where the next value jumps by > gap_pct */
	size_t cls[16], ncls = 0;
	for (size_t k = 0; k < nv; k++) {
		bool jump = k == 0 || !gap_pct || vals[k] * 100 > vals[k - 1] * (100 + gap_pct);
		cls[k] = jump ? ncls++ : ncls - 1;
	}
	if (ncls < 2)
		return;
	for (size_t g = 0; g < ncls; g++) {
		struct mask m = { 0 };
		uint64_t top = 0;
		if (m_init(&m, online->nbits) < 0) {
			c->err = -ENOMEM;
			return;
		}
		for (size_t k = 0; k < nv; k++)
			if (cls[k] == g)
				top = vals[k] > top ? vals[k] : top;
		for (size_t i = 0; i < online->nbits; i++) {
			if (!m_test(online, i) || key[i] == UINT64_MAX)
				continue;
			for (size_t k = 0; k < nv; k++)
				if (vals[k] == key[i] && cls[k] == g)
					m_set(&m, i);
		}
		char buf[48];
		int r = push_kind(c, name(c, top, buf, sizeof(buf)), m_format(&m));
		m_release(&m);
		if (r < 0)
			return;
	}
}

static const char *part_kind(struct ga_col *c, uint64_t part, char *buf, size_t len)
{
	const char *n = ga_midr_part_name(c->node->cpu.implementer.v, part);
	if (n)
		return n;
	snprintf(buf, len, "part-0x%03llx", (unsigned long long)part);
	return buf;
}

static const char *capacity_kind(struct ga_col *c, uint64_t cap, char *buf, size_t len)
{
	(void)c;
	snprintf(buf, len, "capacity-%llu", (unsigned long long)cap);
	return buf;
}

/* aarch64 part numbers per CPU: /proc/cpuinfo's "CPU part", else sysfs midr_el1. */
static bool arm_parts(struct ga_col *c, const struct mask *online, const struct ga_cpuinfo_row *rows,
                      size_t n_rows, uint64_t *key)
{
	struct ga_cpu *cpu = &c->node->cpu;
	bool any = false;
	for (size_t i = 0; i < n_rows; i++)
		if (rows[i].part.set && rows[i].cpu < online->nbits) {
			key[rows[i].cpu] = rows[i].part.v;
			any = true;
		}
	if (any)
		return true;
	for (size_t i = 0; i < online->nbits; i++) {
		if (!m_test(online, i))
			continue;
		struct ga_ou64 midr = { 0, false };
		if (ga_col_attr_u64(c, GA_COL_OPT, &midr, SYSCPU "/cpu%zu/regs/identification/midr_el1", i) <
		    0)
			break; /* not arm64, or no regs directory: the first CPU decides */
		key[i] = (midr.v >> 4) & 0xfff;
		if (!cpu->implementer.set) {
			GA_SET(cpu->implementer, (midr.v >> 24) & 0xff);
			GA_SET(cpu->part, key[i]);
		}
		any = true;
	}
	if (any && !cpu->vendor && ga_midr_vendor(cpu->implementer.v)) {
		cpu->vendor = ga_strdup(ga_midr_vendor(cpu->implementer.v));
		ga_col_ok(c, cpu->vendor);
	}
	if (any && !cpu->model_name && ga_midr_part_name(cpu->implementer.v, cpu->part.v)) {
		cpu->model_name = ga_strdup(ga_midr_part_name(cpu->implementer.v, cpu->part.v));
		ga_col_ok(c, cpu->model_name);
	}
	return any;
}

static void core_kinds(struct ga_col *c, const struct mask *online, const struct ga_cpuinfo_row *rows,
                       size_t n_rows)
{
	if (intel_kinds(c) || !online->nbits)
		return;
	uint64_t *key = ga_malloc(online->nbits * sizeof(*key));
	if (!ga_col_ok(c, key))
		return;
	for (size_t i = 0; i < online->nbits; i++)
		key[i] = UINT64_MAX;
	/* aarch64, or no cpuinfo to tell: the first CPU's midr_el1 decides */
	bool arm = !c->node->cpu.arch || !strcmp(c->node->cpu.arch, "aarch64");
	if (arm && arm_parts(c, online, rows, n_rows, key)) {
		if (!c->node->cpu.arch) {
			c->node->cpu.arch = ga_strdup("aarch64");
			ga_col_ok(c, c->node->cpu.arch);
		}
		group_kinds(c, online, key, 0, part_kind);
		if (c->node->cpu.n_core_kinds)
			goto out;
		for (size_t i = 0; i < online->nbits; i++)
			key[i] = UINT64_MAX;
	}
	/* cpu_capacity (arm64, riscv): classes of capacities within 20% of each other */
	bool any = false;
	for (size_t i = 0; i < online->nbits; i++) {
		if (!m_test(online, i))
			continue;
		struct ga_ou64 cap = { 0, false };
		if (ga_col_attr_u64(c, GA_COL_OPT, &cap, SYSCPU "/cpu%zu/cpu_capacity", i) < 0 && !any)
			break;
		if (cap.set && cap.v <= 1u << 20) {
			key[i] = cap.v;
			any = true;
		}
	}
	if (any)
		group_kinds(c, online, key, 20, capacity_kind);
out:
	ga_free(key);
}

/*
 * The CPUs this process may use: cgroup v2's cpuset.cpus.effective of the cgroup in
 * proc/self/cgroup ("0::/path"; the nearest ancestor that has the file: a cgroup without
 * the cpuset controller has its parent's CPUs), else Cpus_allowed_list in proc/self/status
 * (cgroup v1 or no cgroup file system).
 */
static void cpuset(struct ga_col *c)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	char *path = NULL;
	if (ga_col_read(c, GA_COL_OPT, &b, "proc/self/cgroup") == 0) {
		char *save = NULL;
		for (char *l = strtok_r(b.data, "\n", &save); l && !path; l = strtok_r(NULL, "\n", &save))
			if (ga_startswith(l, "0::/") && !strstr(l, "/..") && strlen(l) < 2048) {
				path = ga_strdup(l + 3);
				ga_col_ok(c, path);
			}
	}
	for (int depth = 0; path && depth < 64 && !cpu->cpuset; depth++) {
		size_t len = strlen(path);
		while (len && path[len - 1] == '/')
			path[--len] = '\0';
		char *text = NULL;
		if (ga_col_attr(c, GA_COL_OPT, &text, "sys/fs/cgroup%s/cpuset.cpus.effective", path) == 0) {
			if (ga_cpulist_count(text) > 0)
				cpu->cpuset = text;
			else
				ga_free(text);
		}
		char *slash = strrchr(path, '/');
		if (!slash) {
			if (!len)
				break;
			path[0] = '\0';
		} else if (!len) {
			break;
		} else {
			*slash = '\0';
		}
	}
	if (!cpu->cpuset) {
		ga_buf_release(&b);
		ga_buf_init(&b, 0);
		if (ga_col_read(c, GA_COL_OPT, &b, "proc/self/status") == 0) {
			char *v = ga_col_kv(b.data, "Cpus_allowed_list", ':');
			if (v && ga_cpulist_count(ga_strstrip(v)) > 0) {
				cpu->cpuset = ga_strdup(ga_strstrip(v));
				ga_col_ok(c, cpu->cpuset);
			}
			ga_free(v);
		}
	}
	ga_free(path);
	ga_buf_release(&b);
}

void ga_collect_cpu_topology(struct ga_col *c, const struct ga_cpuinfo_row *rows, size_t n_rows)
{
	struct ga_cpu *cpu = &c->node->cpu;
	struct mask present = { 0 }, online = { 0 }, topo = { 0 };
	if (read_present(c, &present) < 0)
		goto cpuset;
	GA_SET(cpu->cpus_present, m_count(&present));
	if (read_list(c, GA_COL_OPT, SYSCPU "/online", &online, &cpu->online) < 0 &&
	    online_per_cpu(c, &present, &online) < 0) {
		c->err = -ENOMEM;
		goto out;
	}
	if (!cpu->online && !(cpu->online = m_format(&online))) {
		c->err = -ENOMEM;
		goto out;
	}
	/* only present CPUs run: online &= present */
	for (size_t i = 0; i < (online.nbits + 63) / 64; i++)
		online.w[i] &= i < (present.nbits + 63) / 64 ? present.w[i] : 0;
	GA_SET(cpu->threads, m_count(&online));
	char *text = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &text, SYSCPU "/offline") == 0)
		cpu->offline = text;
	text = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &text, SYSCPU "/isolated") == 0)
		cpu->isolated = text;

	if (m_init(&topo, present.nbits) < 0) {
		c->err = -ENOMEM;
		goto out;
	}
	long cores = count_sets(c, &present, &online, "core_cpus_list", "thread_siblings_list", true, &topo);
	if (cores >= 0) {
		if (amd_cu_cores(c, &topo, &online))
			cores = (long)m_count_and(&topo, &online);
		GA_SET(cpu->cores, (uint64_t)cores);
		long n =
		        count_sets(c, &topo, &online, "package_cpus_list", "core_siblings_list", false, NULL);
		if (n < 0)
			n = package_ids(c, &topo);
		if (n >= 0)
			GA_SET(cpu->sockets, (uint64_t)n);
		n = count_sets(c, &topo, &online, "die_cpus_list", NULL, false, NULL);
		if (n >= 0)
			GA_SET(cpu->dies, (uint64_t)n);
		n = count_sets(c, &topo, &online, "cluster_cpus_list", NULL, false, NULL);
		if (n >= 0)
			GA_SET(cpu->clusters, (uint64_t)n);
	}
	core_kinds(c, &online, rows, n_rows);
cpuset:
	cpuset(c);
out:
	m_release(&present);
	m_release(&online);
	m_release(&topo);
}
