/*
 * triage.c - the "GPUs are slow" playbook: device health, utilization, is the
 * system feeding it, communication, then portability. Pure; see triage.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/sample.h"
#include "gpuaudit/triage.h"
#include "gpuaudit/triage-analyze.h"

static void ev(struct ga_triage_step *s, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void ev(struct ga_triage_step *s, const char *key, const char *fmt, ...)
{
	if (s->n_ev >= GA_TRIAGE_EV_MAX)
		return;
	struct ga_triage_ev *e = &s->ev[s->n_ev++];
	e->key = key;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->value, sizeof(e->value), fmt, ap);
	va_end(ap);
}

static void decide(struct ga_triage_step *s, const char *verdict, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void decide(struct ga_triage_step *s, const char *verdict, const char *fmt, ...)
{
	s->verdict = verdict;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->decision, sizeof(s->decision), fmt, ap);
	va_end(ap);
}

static struct ga_triage_step *begin(struct ga_triage *t, const char *title)
{
	struct ga_triage_step *s = &t->steps[t->n_steps];
	memset(s, 0, sizeof(*s));
	s->step = (int)++t->n_steps;
	s->title = title;
	return s;
}

struct stat1 {
	double sum, max, first, last;
	size_t n;
};

static void acc(struct stat1 *a, struct ga_odbl v)
{
	if (!v.set)
		return;
	if (!a->n || v.v > a->max)
		a->max = v.v;
	if (!a->n)
		a->first = v.v;
	a->last = v.v;
	a->sum += v.v;
	a->n++;
}

static double mean(const struct stat1 *a)
{
	return a->n ? a->sum / (double)a->n : 0;
}

/* Append "; " and the text to t->reason. */
static void add_reason(struct ga_triage *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_reason(struct ga_triage *t, const char *fmt, ...)
{
	size_t l = strlen(t->reason);
	if (l && l + 2 < sizeof(t->reason))
		snprintf(t->reason + l, sizeof(t->reason) - l, "; "), l += 2;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->reason + l, sizeof(t->reason) - l, fmt, ap);
	va_end(ap);
}

/*
 * Step 1: error findings stop the playbook. Without them the devices are
 * healthy only when there are devices and the kernel log (Xid, AER, resets)
 * was read: no accelerators is "n/a", no log is "unknown".
 */
static void step_health(struct ga_triage *t, const struct ga_node *n, const struct ga_findings *f,
                        const struct ga_triage_klog *k)
{
	struct ga_triage_step *s = begin(t, "Is the device healthy and visible?");
	if (n)
		ev(s, "accelerators", "%zu", n->n_accelerators);
	if (k && k->source)
		ev(s, "kernel_log", "%s", k->source);
	else if (k)
		ev(s, "kernel_log", "not read");
	size_t bad = 0, warn = 0;
	const struct ga_finding *worst = NULL;
	for (size_t i = 0; f && i < f->n; i++) {
		if (f->v[i].severity >= GA_SEV_ERROR) {
			if (!worst || f->v[i].severity > worst->severity)
				worst = &f->v[i];
			bad++;
		} else if (f->v[i].severity == GA_SEV_WARNING) {
			warn++;
		}
	}
	ev(s, "error_findings", "%zu", bad);
	ev(s, "warning_findings", "%zu", warn);
	if (worst) {
		ev(s, "worst", "%s %s", worst->code, worst->subject);
		t->node_at_fault = true;
		decide(s, "problem", "quarantine the node, do not retry (%s: %s)", worst->code,
		       worst->message);
		return;
	}
	if (n && !n->n_accelerators && !ga_node_pci_known(n)) {
		/* an unseen bus is not an empty one: the devices are unknown, not absent */
		t->pci_unknown = true;
		decide(s, "unknown",
		       "the PCI devices could not be read, so the accelerators are unknown, not absent: "
		       "mount /sys (e.g. -v /sys:/sys:ro) or pass --root to a captured tree");
		return;
	}
	if (n && !n->n_accelerators) {
		t->no_accelerators = true;
		decide(s, "n/a",
		       "no accelerators in the snapshot: the device steps do not apply (a node whose "
		       "GPUs are not listed may lack /sys: mount it)");
		return;
	}
	if (k && !k->source) {
		decide(s, "unknown",
		       "no error findings, but the kernel log was not read (%s): Xid, AER and reset "
		       "events are unseen",
		       k->missing ? k->missing : "no source");
		return;
	}
	decide(s, "ok", "the devices are healthy and visible; go on");
}

static void step_util(struct ga_triage *t, const struct ga_triage_point *p, size_t n)
{
	struct ga_triage_step *s = begin(t, "Is it underutilized?");
	struct stat1 g = { 0 }, m = { 0 };
	size_t nv_asked = 0, nv_failed = 0;
	for (size_t i = 0; i < n; i++) {
		acc(&g, p[i].gpu_busy_pct);
		acc(&m, p[i].mem_busy_pct);
		nv_asked += p[i].nvml_asked;
		nv_failed += p[i].nvml_failed;
	}
	ev(s, "samples", "%zu", n);
	if (nv_asked)
		ev(s, "nvml_failed_intervals", "%zu of %zu", nv_failed, nv_asked);
	if (t->pci_unknown) {
		decide(s, "unknown", "the accelerators are unknown (the PCI devices were not read)");
		return;
	}
	if (t->no_accelerators) {
		decide(s, "n/a", "no accelerators: nothing to utilize");
		return;
	}
	if (!g.n) {
		decide(s, "unknown",
		       "no GPU busy percentages in the samples: amdgpu has gpu_busy_percent in sysfs, "
		       "NVIDIA GPUs need NVML (live triage asks it when the driver is loaded, --nvml "
		       "forces it; or record --nvml), Intel i915/xe have none in sysfs");
		return;
	}
	ev(s, "gpu_busy_mean_pct", "%.1f", mean(&g));
	ev(s, "gpu_busy_max_pct", "%.1f", g.max);
	if (m.n)
		ev(s, "mem_busy_mean_pct", "%.1f", mean(&m));
	if (mean(&g) >= GA_TRIAGE_GPU_BUSY_LOW) {
		decide(s, "workload",
		       "the GPU is busy (mean >= %.0f%%): the workload is compute-bound; profile "
		       "its kernels",
		       GA_TRIAGE_GPU_BUSY_LOW);
		return;
	}
	if (m.n && mean(&m) > GA_TRIAGE_MEM_BUSY_HIGH) {
		decide(s, "workload",
		       "memory busy > %.0f%% with compute low: memory-bound kernels; look at data "
		       "layout, fusion and precision",
		       GA_TRIAGE_MEM_BUSY_HIGH);
		return;
	}
	decide(s, "workload",
	       "GPU busy mean < %.0f%%: suspect the input pipeline, small batches or sync "
	       "points; check the feeding below",
	       GA_TRIAGE_GPU_BUSY_LOW);
}

static bool numa_split(const struct ga_node *n, int64_t *a, int64_t *b)
{
	bool have = false;
	for (size_t i = 0; n && i < n->n_accelerators; i++) {
		const struct ga_oi64 *x = &n->accelerators[i].numa_node;
		if (!x->set || x->v < 0)
			continue;
		if (!have) {
			*a = x->v;
			have = true;
		} else if (x->v != *a) {
			*b = x->v;
			return true;
		}
	}
	return false;
}

#define CPU_BITS 8192

/* Is accelerator index idx in the visible-devices list? true when the list is absent or not numeric. */
static bool visible(const char *list, const struct ga_ou64 *idx)
{
	if (!list || !*list)
		return true;
	unsigned char bits[128];
	if (ga_triage_cpulist(list, bits, sizeof(bits) * 8) <= 0)
		return true;
	return idx->set && idx->v < sizeof(bits) * 8 && (bits[idx->v / 8] & (1u << (idx->v % 8)));
}

/* The workload's CPUs against the CPUs of its GPUs' NUMA nodes: 1 mismatch, 0 fine, -1 unknown. */
static int numa_mismatch(struct ga_triage_step *s, const struct ga_node *nd,
                         const struct ga_triage_workload *w)
{
	static const size_t nbytes = CPU_BITS / 8;
	unsigned char wl[CPU_BITS / 8], local[CPU_BITS / 8], one[CPU_BITS / 8];
	if (!w || !w->cpus_allowed || !nd)
		return -1;
	int nw = ga_triage_cpulist(w->cpus_allowed, wl, CPU_BITS);
	if (nw <= 0)
		return -1;
	memset(local, 0, nbytes);
	bool any = false;
	int64_t ids[16];
	size_t n_ids = 0;
	for (size_t i = 0; i < nd->n_accelerators; i++) {
		const struct ga_oi64 *x = &nd->accelerators[i].numa_node;
		if (!x->set || x->v < 0 || !visible(w->visible_devices, &nd->accelerators[i].index))
			continue;
		for (size_t k = 0; k < nd->cpu.n_numa_nodes; k++) {
			const struct ga_numa_node *nn = &nd->cpu.numa_nodes[k];
			if (!nn->id.set || nn->id.v != (uint64_t)x->v || !nn->cpulist)
				continue;
			if (ga_triage_cpulist(nn->cpulist, one, CPU_BITS) <= 0)
				continue;
			bool dup = false;
			for (size_t j = 0; j < n_ids; j++)
				dup |= ids[j] == x->v;
			if (!dup && n_ids < sizeof(ids) / sizeof(ids[0]))
				ids[n_ids++] = x->v;
			for (size_t b = 0; b < nbytes; b++)
				local[b] |= one[b];
			any = true;
		}
	}
	if (!any)
		return -1;
	int overlap = 0;
	for (size_t b = 0; b < nbytes; b++)
		overlap += __builtin_popcount((unsigned)(wl[b] & local[b]));
	char nodes[96] = "";
	for (size_t j = 0; j < n_ids; j++) {
		size_t l = strlen(nodes);
		snprintf(nodes + l, sizeof(nodes) - l, "%s%lld", j ? "," : "", (long long)ids[j]);
	}
	ev(s, "workload_cpus", "%s (%d)", w->cpus_allowed, nw);
	if (w->visible_devices)
		ev(s, "visible_devices", "%s", w->visible_devices);
	ev(s, "gpu_numa_nodes", "%s", nodes);
	ev(s, "workload_cpus_on_gpu_nodes", "%d of %d", overlap, nw);
	return overlap == 0;
}

static void step_feed(struct ga_triage *t, const struct ga_node *nd, const struct ga_triage_workload *w,
                      const struct ga_triage_point *p, size_t n)
{
	struct ga_triage_step *s = begin(t, "Is the system feeding it?");
	struct stat1 io = { 0 }, idle = { 0 }, util = { 0 };
	const char *disk = NULL;
	size_t rises = 0, awaits = 0;
	double first_await = 0, prev_await = 0;
	for (size_t i = 0; i < n; i++) {
		acc(&io, p[i].iowait_pct);
		acc(&idle, p[i].idle_pct);
		if (p[i].disk_util_pct.set && (!util.n || p[i].disk_util_pct.v >= util.max) && p[i].disk[0])
			disk = p[i].disk;
		acc(&util, p[i].disk_util_pct);
		if (p[i].disk_await_ms.set) {
			double a = p[i].disk_await_ms.v;
			if (!awaits)
				first_await = a;
			else if (a > prev_await)
				rises++;
			prev_await = a;
			awaits++;
		}
	}
	int numa = numa_mismatch(s, nd, w);
	if (!n && numa != 1) {
		decide(s, "unknown", "no samples; record some with --samples or --duration");
		return;
	}
	bool await_rising = awaits >= 3 && rises == awaits - 1 && prev_await >= 2 * first_await;
	const char *why[3];
	size_t nw = 0;
	if (io.n)
		ev(s, "cpu_iowait_mean_pct", "%.1f", mean(&io));
	if (idle.n)
		ev(s, "cpu_idle_mean_pct", "%.1f", mean(&idle));
	if (util.n)
		ev(s, "disk_util_max_pct", "%.1f%s%s", util.max, disk ? " " : "", disk ? disk : "");
	if (awaits)
		ev(s, "disk_await_ms", "%.1f -> %.1f", first_await, prev_await);
	if (util.n && util.max > GA_TRIAGE_DISK_UTIL_HIGH)
		why[nw++] = "disk saturated";
	else if (await_rising)
		why[nw++] = "disk await rising";
	if (io.n && mean(&io) > GA_TRIAGE_IOWAIT_HIGH)
		why[nw++] = "CPU waiting on I/O";
	bool cpu_sat = idle.n && mean(&idle) < GA_TRIAGE_IDLE_LOW;
	const char *pin = numa == 1 ? "; pin the workload to its GPUs' NUMA nodes" : "";
	if (nw) {
		char list[160] = "";
		for (size_t i = 0; i < nw; i++) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", why[i]);
		}
		t->node_at_fault = true;
		decide(s, "problem",
		       "storage is not feeding the GPU (%s): stage data on faster local storage or "
		       "cache the dataset%s%s",
		       list, cpu_sat ? "; the CPUs are saturated too" : "", pin);
		return;
	}
	if (cpu_sat) {
		decide(s, "workload",
		       "the CPUs are saturated (idle < %.0f%%): preprocessing is the bottleneck; add "
		       "cores or data-loader workers, or move decoding to the GPU%s",
		       GA_TRIAGE_IDLE_LOW, pin);
		return;
	}
	if (numa == 1) {
		decide(s, "workload",
		       "the workload runs on no CPU of its GPUs' NUMA nodes: pin it there (numactl "
		       "--cpunodebind, the launcher's CPU binding)");
		return;
	}
	decide(s, "ok", "CPU and storage keep up; go on");
}

#define NAMES_MAX 256

/*
 * An NCCL variable naming an interface or HCA the snapshot lacks: 1, and the
 * name in *miss; 0 when all are there; -1 when the snapshot names none (unchecked).
 */
static int nccl_check(const struct ga_node *nd, const char *val, bool rdma, char *miss, size_t len)
{
	const char *c[NAMES_MAX];
	size_t nc = 0;
	for (size_t i = 0; nd && i < nd->n_pci; i++) {
		const struct ga_strv *v = rdma ? &nd->pci[i].rdma_devices : &nd->pci[i].net_interfaces;
		for (size_t k = 0; k < v->n && nc < NAMES_MAX; k++)
			c[nc++] = v->v[k];
	}
	if (!val || !*val)
		return 0;
	if (!nc)
		return -1; /* nothing to compare with: a snapshot without names proves nothing */
	return ga_triage_nccl_missing(val, c, nc, miss, len);
}

static void step_comm_counters(struct ga_triage *t, struct ga_triage_step *s, const struct ga_node *nd,
                               const struct ga_triage_workload *w, const struct ga_triage_point *p, size_t n);

/*
 * The topology findings (lib/analyze/topology.c: GA-TOPO-NIC-REMOTE, GA-TOPO-GPU-SYS-ONLY) as
 * evidence, and their fix after the step's decision: a path across NUMA nodes slows
 * collectives without dropping a packet, so it is said whatever the counters say.
 */
static void step_comm(struct ga_triage *t, const struct ga_node *nd, const struct ga_findings *f,
                      const struct ga_triage_workload *w, const struct ga_triage_point *p, size_t n)
{
	struct ga_triage_step *s = begin(t, "Is communication healthy?");
	step_comm_counters(t, s, nd, w, p, n);
	char remote[96] = "";
	size_t n_remote = 0, used = 0;
	const struct ga_finding *pairs = NULL, *first = NULL;
	for (size_t i = 0; f && i < f->n; i++) {
		const struct ga_finding *fd = &f->v[i];
		if (fd->id == GA_C_TOPO_GPU_SYS_ONLY && !pairs)
			pairs = fd;
		if (fd->id != GA_C_TOPO_NIC_REMOTE)
			continue;
		first = first ? first : fd;
		n_remote++;
		int k = used < sizeof(remote) ? snprintf(remote + used, sizeof(remote) - used, "%s%s",
		                                         used ? ", " : "", fd->subject ? fd->subject : "?")
		                              : 0;
		used += k > 0 ? (size_t)k : 0;
	}
	if (n_remote)
		ev(s, "gpus_without_a_local_nic", "%zu: %s", n_remote, remote);
	if (pairs) {
		const char *np = NULL;
		for (size_t k = 0; k < pairs->n_evidence; k++)
			if (!strcmp(pairs->evidence[k].key, "pairs"))
				np = pairs->evidence[k].value;
		ev(s, "gpu_pairs_sys_only", "%s (no NVLink or XGMI)", np ? np : "?");
	}
	size_t len = strlen(s->decision);
	if (first && len < sizeof(s->decision))
		len += (size_t)snprintf(s->decision + len, sizeof(s->decision) - len,
		                        "; %s: a GPU's nearest NIC is across NUMA nodes (SYS): %s",
		                        first->code, first->decision ? first->decision : "see the finding");
	if (pairs && len < sizeof(s->decision))
		snprintf(s->decision + len, sizeof(s->decision) - len,
		         "; %s: GPU pairs meet only across NUMA nodes: keep a job's GPUs on one node",
		         pairs->code);
}

static void step_comm_counters(struct ga_triage *t, struct ga_triage_step *s, const struct ga_node *nd,
                               const struct ga_triage_workload *w, const struct ga_triage_point *p, size_t n)
{
	uint64_t drops = 0, errs = 0;
	size_t bad_intervals = 0, seen = 0;
	const char *nif = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!p[i].net_drops.set && !p[i].net_errors.set)
			continue;
		seen++;
		uint64_t d = p[i].net_drops.set ? p[i].net_drops.v : 0;
		uint64_t e = p[i].net_errors.set ? p[i].net_errors.v : 0;
		drops += d;
		errs += e;
		if (d || e) {
			bad_intervals++;
			if (!nif && p[i].net_if[0])
				nif = p[i].net_if;
		}
	}
	if (seen) {
		ev(s, "net_drops", "%llu", (unsigned long long)drops);
		ev(s, "net_errors", "%llu", (unsigned long long)errs);
		ev(s, "intervals_with_drops_or_errors", "%zu of %zu", bad_intervals, seen);
		if (nif)
			ev(s, "interface", "%s", nif);
	}
	int64_t a = -1, b = -1;
	bool split = numa_split(nd, &a, &b);
	if (split)
		ev(s, "gpus_span_numa_nodes", "%lld and %lld", (long long)a, (long long)b);
	char miss_if[64] = "", miss_hca[64] = "";
	int mi = w ? nccl_check(nd, w->nccl_socket_ifname, false, miss_if, sizeof(miss_if)) : 0;
	int mh = w ? nccl_check(nd, w->nccl_ib_hca, true, miss_hca, sizeof(miss_hca)) : 0;
	if (w && w->nccl_socket_ifname)
		ev(s, "NCCL_SOCKET_IFNAME", "%s%s", w->nccl_socket_ifname,
		   mi < 0 ? " (not checked: the snapshot names no interfaces)" : "");
	if (w && w->nccl_ib_hca)
		ev(s, "NCCL_IB_HCA", "%s%s", w->nccl_ib_hca,
		   mh < 0 ? " (not checked: the snapshot names no RDMA devices)" : "");
	if (mi > 0 || mh > 0) {
		t->node_at_fault = true;
		decide(s, "problem",
		       "NCCL is told to use %s '%s', which this node does not have: fix the job's "
		       "environment or the node's network setup",
		       mi > 0 ? "interface" : "HCA", mi > 0 ? miss_if : miss_hca);
		return;
	}
	if (bad_intervals) {
		t->node_at_fault = true;
		decide(s, "problem",
		       "the NIC drops or errors packets%s%s: check cabling, switch port counters and "
		       "ring buffers (ethtool -S, ethtool -g) before blaming collectives",
		       nif ? " on " : "", nif ? nif : "");
		return;
	}
	if (!seen && split) {
		decide(s, "unknown",
		       "no network counters in the samples; GPUs span NUMA nodes, so pin each rank "
		       "to its GPU's node");
		return;
	}
	if (!seen) {
		decide(s, "unknown", "no network counters in the samples");
		return;
	}
	if (split) {
		decide(s, "ok",
		       "no drops or errors; GPUs span NUMA nodes, so pin each rank to its GPU's "
		       "node");
		return;
	}
	decide(s, "ok", "no drops or errors; go on");
}

/* Nothing at fault: is the answer still open? Step 1 or 2 without evidence, or no devices. */
static void conclude(struct ga_triage *t, const struct ga_triage_klog *k)
{
	if (t->node_at_fault)
		return;
	if (t->pci_unknown)
		add_reason(t, "the PCI devices could not be read: the accelerators are unknown, so the "
		              "GPU steps could not be taken; mount /sys");
	else if (t->no_accelerators)
		add_reason(t, "no accelerators on this node: the GPU steps do not apply");
	if (t->n_steps >= 1 && !strcmp(t->steps[0].verdict, "unknown") && !t->pci_unknown)
		add_reason(t,
		           "the kernel log was not read (%s): pass --kmsg FILE, or run as root or with "
		           "CAP_SYSLOG where /dev/kmsg is refused",
		           k && k->missing ? k->missing : "no source");
	if (t->n_steps >= 2 && !strcmp(t->steps[1].verdict, "unknown") && !t->pci_unknown)
		add_reason(t, "no GPU utilization in the samples: NVIDIA GPUs need NVML (--nvml live, or "
		              "--samples from 'gpuaudit record --nvml'); Intel i915/xe expose none in sysfs");
	t->inconclusive = t->reason[0] != '\0';
}

void ga_triage_run(const struct ga_node *n, const struct ga_findings *f, const struct ga_triage_point *pts,
                   size_t n_pts, const struct ga_triage_workload *w, struct ga_triage *ret)
{
	ga_triage_run_klog(n, f, NULL, pts, n_pts, w, ret);
}

void ga_triage_run_klog(const struct ga_node *n, const struct ga_findings *f, const struct ga_triage_klog *k,
                        const struct ga_triage_point *pts, size_t n_pts, const struct ga_triage_workload *w,
                        struct ga_triage *ret)
{
	memset(ret, 0, sizeof(*ret));
	step_health(ret, n, f, k);
	if (ret->node_at_fault) {
		for (int i = 2; i <= 5; i++) {
			struct ga_triage_step *s = begin(ret, i == 2   ? "Is it underutilized?"
			                                      : i == 3 ? "Is the system feeding it?"
			                                      : i == 4 ? "Is communication healthy?"
			                                               : "Backend portability questions");
			decide(s, "skipped", "not reached: the device is not healthy");
		}
		return;
	}
	step_util(ret, pts, n_pts);
	step_feed(ret, n, w, pts, n_pts);
	step_comm(ret, n, f, w, pts, n_pts);
	conclude(ret, k);
	struct ga_triage_step *s = begin(ret, "Backend portability questions");
	if (ret->node_at_fault)
		decide(s, "skipped", "not yet: fix the node-side problems above first");
	else if (ret->inconclusive)
		decide(s, "skipped", "not yet: the steps above lack their evidence");
	else
		decide(s, "ok",
		       "only now ask about the backend: kernel coverage and fallbacks on this "
		       "vendor, compiler flags, library versions");
}

int ga_triage_cpulist(const char *s, unsigned char *bits, size_t nbits)
{
	memset(bits, 0, (nbits + 7) / 8);
	int count = 0;
	const char *p = s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n')
		return 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned long a = 0, b;
		for (; *p >= '0' && *p <= '9'; p++)
			if ((a = a * 10 + (unsigned long)(*p - '0')) > 1000000)
				return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -1;
			b = 0;
			for (; *p >= '0' && *p <= '9'; p++)
				if ((b = b * 10 + (unsigned long)(*p - '0')) > 1000000)
					return -1;
			if (b < a)
				return -1;
		}
		for (unsigned long c = a; c <= b && c < nbits; c++)
			if (!(bits[c / 8] & (1u << (c % 8)))) {
				bits[c / 8] |= (unsigned char)(1u << (c % 8));
				count++;
			}
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		return *p ? -1 : count;
	}
}

int ga_triage_nccl_missing(const char *list, const char *const *cands, size_t n_cands, char *missing,
                           size_t missing_len)
{
	const char *p = list;
	bool exclude = *p == '^';
	if (exclude)
		return 0; /* an exclusion list names nothing that must exist */
	bool exact = *p == '=';
	if (exact)
		p++;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		size_t nlen = colon ? (size_t)(colon - p) : len;
		if (nlen) {
			bool found = false;
			for (size_t i = 0; i < n_cands && !found; i++) {
				size_t cl = strlen(cands[i]);
				found = exact ? cl == nlen && !memcmp(cands[i], p, nlen)
				              : cl >= nlen && !memcmp(cands[i], p, nlen);
			}
			if (!found) {
				snprintf(missing, missing_len, "%.*s", (int)nlen, p);
				return 1;
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

struct mean {
	double sum;
	size_t n;
};

static void mean_add(struct mean *m, bool set, double v)
{
	if (set)
		m->sum += v, m->n++;
}

static struct ga_odbl mean_of(const struct mean *m)
{
	return m->n ? (struct ga_odbl){ m->sum / (double)m->n, true } : (struct ga_odbl){ 0 };
}

static void add_u64(struct ga_ou64 *acc, struct ga_ou64 v)
{
	if (v.set)
		acc->v += v.v, acc->set = true;
}

void ga_triage_point_from_sample(const struct ga_sample_doc *d, struct ga_triage_point *p)
{
	memset(p, 0, sizeof(*p));
	p->iowait_pct = d->cpu.total.iowait_pct;
	p->idle_pct = d->cpu.total.idle_pct;
	struct mean g = { 0 }, m = { 0 };
	for (size_t i = 0; i < d->n_accelerators; i++) {
		const struct ga_gpu_raw *a = &d->accelerators[i];
		mean_add(&g, a->gpu_busy_pct.set, (double)a->gpu_busy_pct.v);
		mean_add(&m, a->mem_busy_pct.set, (double)a->mem_busy_pct.v);
	}
	/* NVIDIA GPUs: NVML's utilization, when the samples were recorded with --nvml */
	p->nvml_asked = d->nvml != NULL;
	p->nvml_failed = d->nvml && d->nvml->error;
	for (size_t i = 0; d->nvml && i < d->nvml->n_gpus; i++) {
		const struct ga_sample_nvml_gpu *a = &d->nvml->gpus[i];
		mean_add(&g, a->utilization_gpu_pct.set, (double)a->utilization_gpu_pct.v);
		mean_add(&m, a->utilization_memory_pct.set, (double)a->utilization_memory_pct.v);
	}
	p->gpu_busy_pct = mean_of(&g);
	p->mem_busy_pct = mean_of(&m);
	for (size_t i = 0; i < d->n_disks; i++) {
		const struct ga_disk_rate *k = &d->disks[i];
		if (k->util_pct.set && (!p->disk_util_pct.set || k->util_pct.v > p->disk_util_pct.v)) {
			p->disk_util_pct = k->util_pct;
			p->disk_await_ms = k->await_ms;
			snprintf(p->disk, sizeof(p->disk), "%s", k->name);
		}
	}
	for (size_t i = 0; i < d->n_net; i++) {
		const struct ga_net_rate *x = &d->net[i];
		struct ga_ou64 drops = { 0 }, errs = { 0 };
		add_u64(&drops, x->rx_dropped);
		add_u64(&drops, x->tx_dropped);
		add_u64(&errs, x->rx_errors);
		add_u64(&errs, x->tx_errors);
		add_u64(&p->net_drops, drops);
		add_u64(&p->net_errors, errs);
		if (!p->net_if[0] && (drops.v || errs.v))
			snprintf(p->net_if, sizeof(p->net_if), "%s", x->name);
	}
}

static int fill_step(const struct ga_triage_step *s, struct ga_triage_doc_step *d)
{
	GA_SET(d->step, s->step);
	d->title = ga_strdup(s->title);
	d->verdict = ga_strdup(s->verdict);
	d->decision = ga_strdup(s->decision);
	if (!d->title || !d->verdict || !d->decision)
		return -ENOMEM;
	if (s->n_ev && !(d->evidence = ga_calloc(s->n_ev, sizeof(*d->evidence))))
		return -ENOMEM;
	d->n_evidence = s->n_ev;
	for (size_t k = 0; k < s->n_ev; k++)
		if (!(d->evidence[k].key = ga_strdup(s->ev[k].key)) ||
		    !(d->evidence[k].value = ga_strdup(s->ev[k].value)))
			return -ENOMEM;
	return 0;
}

int ga_triage_report_take(struct ga_triage_report *r, const struct ga_triage *t, size_t n_pts,
                          struct ga_findings *f)
{
	memset(r, 0, sizeof(*r));
	r->findings = *f;
	memset(f, 0, sizeof(*f));
	GA_SET(r->samples, n_pts);
	int e = 0;
	r->schema = ga_strdup(GA_TRIAGE_SCHEMA);
	r->result = ga_strdup(t->node_at_fault  ? "node-at-fault"
	                      : t->inconclusive ? "inconclusive"
	                                        : "node-ok");
	r->reason = t->inconclusive ? ga_strdup(t->reason) : NULL;
	if (!r->schema || !r->result || (t->inconclusive && !r->reason) ||
	    (t->n_steps && !(r->steps = ga_calloc(t->n_steps, sizeof(*r->steps)))))
		e = -ENOMEM;
	else
		r->n_steps = t->n_steps;
	for (size_t i = 0; e == 0 && i < t->n_steps; i++)
		e = fill_step(&t->steps[i], &r->steps[i]);
	if (e < 0)
		ga_schema_release(&ga_triage_report_schema, r);
	return e;
}
