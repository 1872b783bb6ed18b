/*
 * prom.c - Prometheus text format 0.0.4 and OpenMetrics 1.0 from a node
 * snapshot (prom.h). Families are written whole (all their samples together)
 * and only when they have at least one sample, so an absent value gives no
 * series at all rather than a made-up 0. docs/metrics.md lists every family.
 * This file: the node-level families, kernel events, findings, the collector's
 * own numbers; per-device families are prom-devices.c's, the writer
 * prom-writer.c's. Accept negotiation is serve's (src/serve-accept.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom-writer.h"

/* --- node-level families --- */

/* The vendor libraries (NVML, ROCm SMI): whether they answered, and NVML's versions and count. */
static void render_vendor_libs(struct ga_pw *w, const struct ga_node *n)
{
	ga_pw_family(w, "gpuaudit_vendor_library_up", "gauge", NULL,
	             "1 when the vendor library (NVML, ROCm SMI) answered in the last collection, 0 when it "
	             "failed or "
	             "timed out; absent when not attempted.");
	if (n->nvml) {
		ga_pw_begin(w);
		ga_pw_label(w, "library", "nvml");
		ga_pw_value(w, n->nvml->error || (n->nvml->timed_out.set && n->nvml->timed_out.v) ? 0 : 1);
	}
	if (n->rocm_smi) {
		ga_pw_begin(w);
		ga_pw_label(w, "library", "rocm_smi");
		ga_pw_value(w, n->rocm_smi->error || (n->rocm_smi->timed_out.set && n->rocm_smi->timed_out.v)
		                       ? 0
		                       : 1);
	}
	if (n->nvml && !n->nvml->error && (n->nvml->driver_version || n->nvml->cuda_driver_version)) {
		ga_pw_family(w, "gpuaudit_nvml_info", "info", NULL,
		             "NVML's driver, CUDA driver API and NVML versions (value 1).");
		ga_pw_begin(w);
		ga_pw_label(w, "driver_version", n->nvml->driver_version ? n->nvml->driver_version : "");
		ga_pw_label(w, "cuda_version",
		            n->nvml->cuda_driver_version ? n->nvml->cuda_driver_version : "");
		ga_pw_label(w, "nvml_version", n->nvml->nvml_version ? n->nvml->nvml_version : "");
		ga_pw_value(w, 1);
	}
	if (n->nvml && n->nvml->device_count.set) {
		ga_pw_family(w, "gpuaudit_nvml_devices", "gauge", NULL,
		             "GPUs NVML counts (nvmlDeviceGetCount).");
		ga_pw_begin(w);
		ga_pw_valueu(w, n->nvml->device_count.v);
	}
}

/*
 * What `gpuaudit fleet --prometheus` rebuilds the matrix from, in one series
 * per node so that the fleet view is one streamed query: the class (name,
 * full hardware hash, the family it is compared within), the stack (full
 * hash and the matrix columns), the GPU count and, with a policy, the class
 * it matched. The class ids, the family and the columns are the verdict's
 * (verdict.h, computed once by the analysis); without a verdict, no series. Every label is a function of the node's class, stack and
 * policy class, so a node has one series at a time and a new one only when
 * its hardware, stack or policy class changes (docs/metrics.md).
 */
static void render_fleet_info(struct ga_pw *w, const struct ga_prom_input *in)
{
	const struct ga_node_verdict *v = in->verdict;
	if (!v || !v->node_class || !v->hw_class || !v->stack_class || !v->hw_family)
		return;
	const struct ga_vd_stack *col = &v->stack;
	ga_pw_family(w, "gpuaudit_fleet_info", "info", NULL,
	             "The node's class, stack and policy class as gpuaudit fleet --prometheus reads them "
	             "(value 1).");
	ga_pw_begin(w);
	char id[160];
	snprintf(id, sizeof(id), "%s-%.8s", v->node_class, v->hw_class);
	ga_pw_label(w, "hostname", in->node->host.hostname ? in->node->host.hostname : "");
	ga_pw_label(w, "class", id);
	ga_pw_label(w, "name", v->node_class);
	ga_pw_label(w, "hw_sha256", v->hw_class);
	ga_pw_label(w, "family", v->hw_family);
	ga_pw_label(w, "stack_sha256", v->stack_class);
	if (ga_node_pci_known(in->node)) /* no label: the GPUs could not be counted */
		ga_pw_labelu(w, "gpus", in->node->n_accelerators);
	ga_pw_label(w, "driver", col->driver ? col->driver : "");
	ga_pw_label(w, "cuda", col->cuda ? col->cuda : "");
	ga_pw_label(w, "rocm", col->rocm ? col->rocm : "");
	ga_pw_label(w, "kernel", col->kernel ? col->kernel : "");
	ga_pw_label(w, "os_id", col->os_id ? col->os_id : "");
	ga_pw_label(w, "os_version", col->os_version ? col->os_version : "");
	if (in->check) {
		const struct ga_policy_class *pc = in->check->cls;
		ga_pw_label(w, "policy", in->policy_name && *in->policy_name ? in->policy_name : "policy");
		ga_pw_label(w, "pool", pc && pc->name ? pc->name : "");
		if (pc && pc->expect.gpu_count.set)
			ga_pw_labelu(w, "expected_gpus", pc->expect.gpu_count.v);
	}
	ga_pw_value(w, 1);
}

/* GPUs by (vendor, model): the matrix's GPU models and counts, bounded by the models in the node. */
static void render_gpu_models(struct ga_pw *w, const struct ga_node *n)
{
	if (!n->n_accelerators)
		return;
	ga_pw_family(w, "gpuaudit_gpus_by_model", "gauge", NULL,
	             "Accelerators the snapshot found, by vendor and model.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		const char *v = a->vendor ? a->vendor : "other", *m = a->model ? a->model : "";
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			const struct ga_accel *b = &n->accelerators[j];
			seen = !strcmp(v, b->vendor ? b->vendor : "other") &&
			       !strcmp(m, b->model ? b->model : "");
		}
		if (seen)
			continue;
		size_t k = 0;
		for (size_t j = i; j < n->n_accelerators; j++) {
			const struct ga_accel *b = &n->accelerators[j];
			k += !strcmp(v, b->vendor ? b->vendor : "other") &&
			     !strcmp(m, b->model ? b->model : "");
		}
		ga_pw_begin(w);
		ga_pw_label(w, "vendor", v);
		ga_pw_label(w, "model", m);
		ga_pw_valueu(w, k);
	}
}

static void render_node(struct ga_pw *w, const struct ga_prom_input *in)
{
	const struct ga_node *n = in->node;
	ga_pw_family(w, "gpuaudit_node_info", "info", NULL,
	             "The node this exporter describes: hostname, kernel and OS (value 1).");
	ga_pw_begin(w);
	ga_pw_label(w, "hostname", n->host.hostname ? n->host.hostname : "");
	ga_pw_label(w, "kernel", n->host.kernel_release ? n->host.kernel_release : "");
	ga_pw_label(w, "os", n->host.os.pretty_name ? n->host.os.pretty_name : "");
	ga_pw_label(w, "cpu", n->cpu.model_name ? n->cpu.model_name : "");
	ga_pw_value(w, 1);

	if (in->cls && in->cls->id) {
		ga_pw_family(w, "gpuaudit_node_class_info", "info", NULL,
		             "The node class (gpuaudit class): id, readable name, hardware and stack hashes, "
		             "cache "
		             "key (value 1).");
		ga_pw_begin(w);
		ga_pw_label(w, "class", in->cls->id);
		ga_pw_label(w, "name", in->cls->name ? in->cls->name : "");
		char hw[16], st[16];
		snprintf(hw, sizeof(hw), "%.12s", in->cls->hw_sha256 ? in->cls->hw_sha256 : "");
		snprintf(st, sizeof(st), "%.12s", in->cls->stack_sha256 ? in->cls->stack_sha256 : "");
		ga_pw_label(w, "hw", hw);
		ga_pw_label(w, "stack", st);
		ga_pw_label(w, "key", in->cls->key ? in->cls->key : "");
		ga_pw_value(w, 1);
	}

	ga_pw_family(w, "gpuaudit_driver_info", "info", NULL,
	             "GPU kernel drivers loaded, with their versions (value 1).");
	for (size_t i = 0; i < n->n_drivers; i++) {
		const struct ga_driver *d = &n->drivers[i];
		if (!d->name)
			continue;
		ga_pw_begin(w);
		ga_pw_label(w, "driver", d->name);
		ga_pw_label(w, "version", d->version ? d->version : "");
		ga_pw_label(w, "flavor", d->flavor ? d->flavor : "");
		ga_pw_value(w, 1);
	}

	/* coverage (issue 26): what the snapshot read, so an absent value is told from a 0 */
	ga_pw_family(w, "gpuaudit_source_known", "gauge", NULL,
	             "1 when the snapshot read the source (pci, cpu, memory, kernel, modules), 0 when it "
	             "was missing or unreadable: what depends on it is then unknown, not 0.");
	for (size_t i = 0; i < n->n_coverage; i++) {
		if (!n->coverage[i].source)
			continue;
		ga_pw_begin(w);
		ga_pw_label(w, "source", n->coverage[i].source);
		ga_pw_valueu(w, ga_node_source_state(n, n->coverage[i].source, NULL, NULL) == GA_SOURCE_READ);
	}
	if (!n->n_coverage) { /* a snapshot written before coverage: pci from its gaps */
		ga_pw_begin(w);
		ga_pw_label(w, "source", GA_SOURCE_PCI);
		ga_pw_valueu(w, ga_node_pci_known(n));
	}

	/* accelerators by vendor, every vendor listed (0 included) so a lost GPU shows as a drop;
	 * none when the PCI devices were not read (unknown, not 0: gpuaudit_source_known) */
	ga_pw_family(w, "gpuaudit_gpus", "gauge", NULL, "Accelerators the snapshot found, by vendor.");
	static const char *const vendors[] = { "nvidia", "amd", "intel", "habana", "other" };
	size_t nv = ga_node_pci_known(n) ? sizeof(vendors) / sizeof(vendors[0]) : 0;
	for (size_t v = 0; v < nv; v++) {
		size_t k = 0;
		for (size_t i = 0; i < n->n_accelerators; i++) {
			const char *av = n->accelerators[i].vendor ? n->accelerators[i].vendor : "other";
			size_t u = 0;
			while (u + 1 < nv && strcmp(av, vendors[u]))
				u++;
			k += u == v;
		}
		ga_pw_begin(w);
		ga_pw_label(w, "vendor", vendors[v]);
		ga_pw_valueu(w, k);
	}
	if (in->pcls) {
		const struct ga_ou64 *exp =
		        in->pcls->expect.gpu_count.set ? &in->pcls->expect.gpu_count : &in->pcls->match.count;
		ga_pw_family(w, "gpuaudit_gpus_expected", "gauge", NULL,
		             "Accelerators the matched policy class expects (expect.gpu_count, else "
		             "match.count).");
		if (exp->set) {
			ga_pw_begin(w);
			ga_pw_label(w, "policy_class", in->pcls->name ? in->pcls->name : "");
			ga_pw_valueu(w, exp->v);
		}
	}
	/* /readyz's state (the verdict's readiness: the count behind GA-EXPECT-GPU-COUNT) */
	ga_pw_family(w, "gpuaudit_node_ready", "gauge", NULL,
	             "1 when the policy class's GPU count is met (serve's /readyz answers 200), 0 when "
	             "not; absent without a class that expects a count.");
	if (in->verdict && in->verdict->readiness != GA_VD_READY_UNKNOWN) {
		ga_pw_begin(w);
		ga_pw_label(w, "policy_class", in->verdict->class_name ? in->verdict->class_name : "");
		ga_pw_value(w, in->verdict->readiness == GA_VD_READY);
	}
	render_gpu_models(w, n);
	render_vendor_libs(w, n);
	render_fleet_info(w, in);
}

static const char *gpu_of_address(const struct ga_node *n, const char *addr, char *buf, size_t len)
{
	if (!n || !*addr)
		return NULL;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (a->address && !strcmp(a->address, addr)) {
			snprintf(buf, len, "%" PRIu64, a->index.set ? a->index.v : (uint64_t)i);
			return buf;
		}
	}
	return NULL;
}

/* Which Xid sources are live: the kernel log and NVML events (fed to the same counters). */
static void render_xid_sources(struct ga_pw *w, const struct ga_prom_input *in)
{
	if (!in->kmsg_readable.set && !in->nvml_events_up.set)
		return;
	ga_pw_family(w, "gpuaudit_xid_source_up", "gauge", NULL,
	             "1 when the Xid source is live at the last collection: kmsg (the kernel log) or "
	             "nvml_events (NVML's event wait in the vendor helper); none live raises "
	             "GA-XID-NO-SOURCE.");
	const struct {
		const char *name;
		struct ga_obool v;
	} src[] = { { "kmsg", in->kmsg_readable }, { "nvml_events", in->nvml_events_up } };
	for (size_t i = 0; i < 2; i++) {
		if (!src[i].v.set)
			continue;
		ga_pw_begin(w);
		ga_pw_label(w, "source", src[i].name);
		ga_pw_valueu(w, src[i].v.v ? 1 : 0);
	}
}

static void render_kev(struct ga_pw *w, const struct ga_prom_input *in)
{
	if (in->kmsg_readable.set) {
		ga_pw_family(w, "gpuaudit_kernel_log_readable", "gauge", NULL,
		             "1 when the last collection could read the kernel log (/dev/kmsg needs "
		             "CAP_SYSLOG when "
		             "dmesg_restrict=1).");
		ga_pw_begin(w);
		ga_pw_value(w, in->kmsg_readable.v);
	}
	const struct ga_kev_counter *c = in->kev;
	if (!c)
		return;
	ga_pw_family(w, "gpuaudit_kernel_events_total", "counter", NULL,
	             "Kernel-log events (Xid, SXid, GPU lost, amdgpu resets and RAS, PCIe AER, hung tasks, "
	             "OOM kills, "
	             "MCE, NVRM failures) by kind, code, device and catalogue severity, counted once each "
	             "since the "
	             "exporter started.");
	for (size_t i = 0; i < c->n; i++) {
		const struct ga_kev_series *s = &c->v[i];
		char gpu[24];
		ga_pw_begin(w);
		ga_pw_label(w, "kind", ga_kev_kind_name(s->kind));
		if (s->code.set)
			ga_pw_labelu(w, "code", s->code.v);
		else
			ga_pw_label(w, "code", "");
		ga_pw_label(w, "pci_address", s->address);
		const char *g = gpu_of_address(in->node, s->address, gpu, sizeof(gpu));
		ga_pw_label(w, "gpu", g ? g : "");
		ga_pw_label(w, "severity", ga_severity_name(s->severity));
		ga_pw_valueu(w, s->count);
	}
	ga_pw_family(w, "gpuaudit_kernel_events_dropped_total", "counter", NULL,
	             "Kernel-log events not counted because the number of distinct series hit its cap.");
	ga_pw_begin(w);
	ga_pw_valueu(w, c->dropped);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void render_findings(struct ga_pw *w, const struct ga_prom_input *in)
{
	if (in->check) {
		const char *pc = in->check->cls && in->check->cls->name ? in->check->cls->name : "";
		ga_pw_family(
		        w, "gpuaudit_check_passed", "gauge", NULL,
		        "1 when the node passes its policy class (gpuaudit check), 0 when it fails or is "
		        "unknown.");
		ga_pw_begin(w);
		ga_pw_label(w, "policy_class", pc);
		ga_pw_label(w, "result", ga_check_result_name(in->check->result));
		ga_pw_value(w, in->check->result == GA_CHECK_PASS);
		ga_pw_family(w, "gpuaudit_check_violations", "gauge", NULL,
		             "Policy violations (GA-PIN-*, GA-EXPECT-*, GA-CHECK-NO-CLASS).");
		ga_pw_begin(w);
		ga_pw_label(w, "policy_class", pc);
		ga_pw_valueu(w, in->check->violations);
	}
	const struct ga_findings *f = in->findings;
	if (!f)
		return;
	ga_pw_family(w, "gpuaudit_findings", "gauge", NULL,
	             "Findings of the last collection by code, severity and action (with --policy: those of "
	             "gpuaudit check).");
	/* count by (code, severity, action) in a stable order: sort "code\tseverity\taction" keys;
	 * the action follows from the code (lib/core/codes.def) and a few refinements, so the series stay
	 * bounded by the codes */
	char **keys = ga_calloc(f->n ? f->n : 1, sizeof(*keys));
	if (!keys) {
		w->err = -ENOMEM;
		return;
	}
	size_t nk = 0;
	for (size_t i = 0; i < f->n; i++) {
		struct ga_buf k;
		ga_buf_init(&k, 0);
		if (ga_buf_addf(&k, "%s\t%s\t%s", f->v[i].code ? f->v[i].code : "",
		                ga_severity_name(f->v[i].severity), ga_action_name(f->v[i].action)) < 0) {
			ga_buf_release(&k);
			w->err = -ENOMEM;
			goto out;
		}
		keys[nk++] = ga_buf_detach(&k, NULL);
	}
	qsort(keys, nk, sizeof(*keys), cmp_str);
	for (size_t i = 0; i < nk;) {
		size_t j = i;
		while (j < nk && !strcmp(keys[j], keys[i]))
			j++;
		char *tab = strchr(keys[i], '\t'), *tab2 = strchr(tab + 1, '\t');
		*tab = '\0';
		*tab2 = '\0';
		ga_pw_begin(w);
		ga_pw_label(w, "code", keys[i]);
		ga_pw_label(w, "severity", tab + 1);
		ga_pw_label(w, "action", tab2 + 1);
		ga_pw_valueu(w, j - i);
		*tab = '\t';
		*tab2 = '\t';
		i = j;
	}
	static const enum ga_severity sevs[] = { GA_SEV_INFO, GA_SEV_WARNING, GA_SEV_ERROR, GA_SEV_CRITICAL };
	ga_pw_family(w, "gpuaudit_findings_by_severity", "gauge", NULL,
	             "Findings of the last collection by severity (all severities, 0 included).");
	for (size_t s = 0; s < 4; s++) {
		size_t k = 0;
		for (size_t i = 0; i < f->n; i++)
			k += f->v[i].severity == sevs[s];
		ga_pw_begin(w);
		ga_pw_label(w, "severity", ga_severity_name(sevs[s]));
		ga_pw_valueu(w, k);
	}
out:
	for (size_t i = 0; i < nk; i++)
		ga_free(keys[i]);
	ga_free(keys);
}

static void render_stats(struct ga_pw *w, const struct ga_prom_input *in)
{
	const struct ga_prom_stats *s = &in->stats;
	ga_pw_family(w, "gpuaudit_collections_total", "counter", NULL,
	             "Collections finished since the exporter started.");
	ga_pw_begin(w);
	ga_pw_valueu(w, s->collections_total);
	ga_pw_family(w, "gpuaudit_collection_errors_total", "counter", NULL,
	             "Collections that failed: no snapshot could be taken, or a vendor library timed out.");
	ga_pw_begin(w);
	ga_pw_valueu(w, s->collection_errors_total);
	ga_pw_family(w, "gpuaudit_vendor_library_timeouts_total", "counter", NULL,
	             "Vendor library helpers killed at the deadline (a wedged GPU or driver).");
	ga_pw_begin(w);
	ga_pw_valueu(w, s->vendor_timeouts_total);
	if (s->last_collection_s.set) {
		ga_pw_family(w, "gpuaudit_last_collection_timestamp_seconds", "gauge", "seconds",
		             "Unix time the last collection finished.");
		ga_pw_begin(w);
		ga_pw_value(w, s->last_collection_s.v);
	}
	if (s->last_success_s.set) {
		ga_pw_family(w, "gpuaudit_last_success_timestamp_seconds", "gauge", "seconds",
		             "Unix time the last collection without error finished.");
		ga_pw_begin(w);
		ga_pw_value(w, s->last_success_s.v);
	}
	if (s->duration_s.set) {
		ga_pw_family(w, "gpuaudit_collection_duration_seconds", "gauge", "seconds",
		             "How long the last collection took.");
		ga_pw_begin(w);
		ga_pw_value(w, s->duration_s.v);
	}
	if (s->interval_s.set) {
		ga_pw_family(w, "gpuaudit_collection_interval_seconds", "gauge", "seconds",
		             "Time between collections (--interval).");
		ga_pw_begin(w);
		ga_pw_value(w, s->interval_s.v);
	}
}

int ga_prom_render(const struct ga_prom_input *in, enum ga_prom_format fmt, struct ga_buf *out)
{
	struct ga_pw w = { .b = out, .fmt = fmt };
	ga_pw_family(&w, "gpuaudit_build_info", "info", NULL, "gpuaudit's version (value 1).");
	ga_pw_begin(&w);
	ga_pw_label(&w, "version", in->version ? in->version : GA_VERSION);
	ga_pw_value(&w, 1);
	if (in->node) {
		render_node(&w, in);
		ga_prom_render_devices(&w, in->node, in->verdict);
		ga_prom_render_ctr(&w, in->node, in->verdict);
		ga_prom_render_container(&w, in->node, in->verdict);
		ga_prom_render_ib(&w, in->node);
	}
	render_kev(&w, in);
	render_xid_sources(&w, in);
	render_findings(&w, in);
	render_stats(&w, in);
	return w.err;
}

int ga_prom_render_tail(enum ga_prom_format fmt, double running_s, struct ga_buf *out)
{
	struct ga_pw w = { .b = out, .fmt = fmt };
	ga_pw_family(&w, "gpuaudit_collection_running", "gauge", NULL,
	             "1 while a collection is in progress.");
	ga_pw_begin(&w);
	ga_pw_value(&w, running_s >= 0);
	if (running_s >= 0) {
		ga_pw_family(&w, "gpuaudit_collection_running_seconds", "gauge", "seconds",
		             "How long the collection in progress has run so far.");
		ga_pw_begin(&w);
		ga_pw_value(&w, running_s);
	}
	if (fmt == GA_PROM_OPENMETRICS)
		ga_pw_add(&w, "# EOF\n");
	return w.err;
}
