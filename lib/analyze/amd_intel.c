/*
 * amd_intel.c - findings from amdgpu and i915/xe sysfs depth and ROCm SMI.
 *
 * Pure: reads only the snapshot. An attribute the driver does not support
 * (amd->unsupported) or that is absent never yields a finding: unsupported is
 * not unhealthy. A secondary MI250X GCD reading 0 W is normal, not a fault.
 */
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"

/*
 * Correctable (ECC-corrected) errors are expected at a low rate on HBM; the
 * driver retires the page once a row keeps failing. Across all RAS blocks of
 * one GPU, 100 since boot is well above background noise and worth a look
 * before the count turns into retired pages or uncorrectable errors.
 */
#define CE_THRESHOLD 100
/*
 * pcie_replay_count counts link-level retransmissions (the data-link layer's
 * replay of a TLP that failed its LCRC). The link recovers by itself, and a
 * few replays after boot, a reset or a hot plug are normal; a count in the
 * tens means a marginal link (riser, slot, retimer, cable) that costs
 * bandwidth and tends to precede fatal AER errors. 10 since boot is the point
 * where that stops being a one-off.
 */
#define REPLAY_THRESHOLD 10
/*
 * Temperatures: AMD Instinct parts set the junction (hotspot) critical limit
 * (temp2_crit) around 100-110 degC and the SMU throttles clocks there; edge
 * runs 10-20 degC below junction, so 95 degC at the edge means the board as a
 * whole is beyond its cooling; HBM2e is specified for normal refresh up to
 * 95 degC (doubled refresh above it, up to 105 degC).
 */
#define HOT_JUNCTION_MC 100000
#define HOT_EDGE_MC 95000
#define HOT_MEM_MC 95000

static const char *subject_of(const struct ga_accel *a)
{
	return a->address ? a->address : "amd";
}

static void ras_findings(const struct ga_accel *a, const struct ga_amd_info *ai, struct ga_findings *out)
{
	uint64_t ue = 0, ce = 0;
	char ue_blocks[512] = "", ce_blocks[512] = "";
	for (size_t i = 0; i < ai->n_ras; i++) {
		const struct ga_amd_ras_block *b = &ai->ras[i];
		const char *name = b->block ? b->block : "?";
		if (b->ue.set && b->ue.v > 0) {
			ue += b->ue.v;
			size_t len = strlen(ue_blocks);
			snprintf(ue_blocks + len, sizeof(ue_blocks) - len, "%s%s %llu", len ? ", " : "", name,
			         (unsigned long long)b->ue.v);
		}
		if (b->ce.set && b->ce.v > 0) {
			ce += b->ce.v;
			size_t len = strlen(ce_blocks);
			snprintf(ce_blocks + len, sizeof(ce_blocks) - len, "%s%s %llu", len ? ", " : "", name,
			         (unsigned long long)b->ce.v);
		}
	}
	if (ue > 0) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_AMD_RAS_UNCORRECTABLE, GA_SEV_ERROR, subject_of(a),
		        "drain and reboot the node: the count (kept since the driver loaded) cannot tell "
		        "whether the driver's own GPU reset recovered from the error (the kernel log can: "
		        "gpuaudit health), and reads 0 again only after the driver reloads; then check the "
		        "retired pages (amd-smi bad-pages) against amdgpu.bad_page_threshold and replace the "
		        "GPU at the threshold",
		        "%llu uncorrectable RAS error%s (%s)", (unsigned long long)ue, ue == 1 ? "" : "s",
		        ue_blocks);
		ga_finding_evidence(f, "ue", "%llu", (unsigned long long)ue);
		ga_finding_evidence(f, "blocks", "%s", ue_blocks);
	}
	if (ce >= CE_THRESHOLD) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_AMD_RAS_CORRECTABLE, GA_SEV_WARNING, subject_of(a),
		        "watch the count and the retired pages; schedule a replacement if it keeps rising",
		        "%llu correctable RAS errors since boot (threshold %d; %s)", (unsigned long long)ce,
		        CE_THRESHOLD, ce_blocks);
		ga_finding_evidence(f, "ce", "%llu", (unsigned long long)ce);
		ga_finding_evidence(f, "threshold", "%d", CE_THRESHOLD);
		ga_finding_evidence(f, "blocks", "%s", ce_blocks);
	}
	if (ai->bad_pages.set && ai->bad_pages.v > 0) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_AMD_BAD_PAGES, GA_SEV_WARNING, subject_of(a),
		        "the driver has retired these VRAM pages; replace the GPU when the count nears "
		        "amdgpu.bad_page_threshold (the driver then refuses to use it)",
		        "%llu retired VRAM page%s (ras/gpu_vram_bad_pages)",
		        (unsigned long long)ai->bad_pages.v, ai->bad_pages.v == 1 ? "" : "s");
		ga_finding_evidence(f, "bad_pages", "%llu", (unsigned long long)ai->bad_pages.v);
	}
}

static void replay_findings(const struct ga_node *n, const struct ga_accel *a, const struct ga_amd_info *ai,
                            struct ga_findings *out)
{
	if (!ai->pcie_replay_count.set || ai->pcie_replay_count.v < REPLAY_THRESHOLD)
		return;
	struct ga_finding *f = ga_findings_add(
	        out, GA_C_AMD_PCIE_REPLAYS, GA_SEV_WARNING, subject_of(a),
	        "reseat the GPU or its riser and check the slot; check the AER counters and dmesg for "
	        "PCIe errors on this device",
	        "%llu PCIe replays since boot (threshold %d): the link keeps retransmitting",
	        (unsigned long long)ai->pcie_replay_count.v, REPLAY_THRESHOLD);
	ga_finding_evidence(f, "pcie_replay_count", "%llu", (unsigned long long)ai->pcie_replay_count.v);
	ga_finding_evidence(f, "threshold", "%d", REPLAY_THRESHOLD);
	if (n->host.uptime_s.set)
		ga_finding_evidence(f, "uptime_s", "%.0f", n->host.uptime_s.v);
}

static void hot_findings(const struct ga_accel *a, struct ga_findings *out)
{
	const struct ga_amd_info *ai = a->amd;
	struct ga_ou64 edge = ai ? ai->temp_edge_mc : (struct ga_ou64){ 0 };
	if (!edge.set && a->rocm_smi)
		edge = a->rocm_smi->temp_edge_mc;
	struct ga_ou64 junction = ai ? ai->temp_junction_mc : (struct ga_ou64){ 0 };
	struct ga_ou64 mem = ai ? ai->temp_mem_mc : (struct ga_ou64){ 0 };
	char what[160] = "";
	size_t len;
	if (junction.set && junction.v >= HOT_JUNCTION_MC) {
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, "%sjunction %llu C (limit %d C)", len ? ", " : "",
		         (unsigned long long)(junction.v / 1000), HOT_JUNCTION_MC / 1000);
	}
	if (edge.set && edge.v >= HOT_EDGE_MC) {
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, "%sedge %llu C (limit %d C)", len ? ", " : "",
		         (unsigned long long)(edge.v / 1000), HOT_EDGE_MC / 1000);
	}
	if (mem.set && mem.v >= HOT_MEM_MC) {
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, "%smemory %llu C (limit %d C)", len ? ", " : "",
		         (unsigned long long)(mem.v / 1000), HOT_MEM_MC / 1000);
	}
	if (!*what)
		return;
	struct ga_finding *f = ga_findings_add(
	        out, GA_C_GPU_HOT, GA_SEV_WARNING, subject_of(a),
	        "check the fans, airflow and inlet temperature of this chassis; the GPU throttles its "
	        "clocks at these temperatures",
	        "GPU runs hot: %s", what);
	if (junction.set)
		ga_finding_evidence(f, "temp_junction_mc", "%llu", (unsigned long long)junction.v);
	if (edge.set)
		ga_finding_evidence(f, "temp_edge_mc", "%llu", (unsigned long long)edge.v);
	if (mem.set)
		ga_finding_evidence(f, "temp_mem_mc", "%llu", (unsigned long long)mem.v);
}

static void rocm_smi_findings(const struct ga_node *n, struct ga_findings *out)
{
	const struct ga_rocm_smi *r = n->rocm_smi;
	if (!r || (!r->error && !(r->timed_out.set && r->timed_out.v)))
		return;
	const char *call = r->error_call ? r->error_call : "unknown call";
	if (r->timed_out.set && r->timed_out.v) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_VENDOR_TIMEOUT, GA_SEV_ERROR, "rocm_smi",
		        "the GPU or its driver is hung: check dmesg for amdgpu errors, then reset the GPU or "
		        "reboot the node",
		        "ROCm SMI did not answer in time (in %s)", call);
		ga_finding_evidence(f, "error_call", "%s", call);
		if (r->library)
			ga_finding_evidence(f, "library", "%s", r->library);
		return;
	}
	bool amd_gpus = false;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (a->vendor && !strcmp(a->vendor, "amd") && a->driver && !strcmp(a->driver, "amdgpu"))
			amd_gpus = true;
	}
	/* A missing library, or a failure on a node without amdgpu GPUs, is information; a library
	 * that fails next to GPUs the driver runs is something to fix. */
	bool not_found = !strcmp(call, "dlopen");
	enum ga_severity sev = amd_gpus && !not_found ? GA_SEV_WARNING : GA_SEV_INFO;
	const char *decision =
	        not_found ? "install ROCm SMI (rocm-smi-lib) for its view; the sysfs view is complete "
	                    "without it"
	        : amd_gpus
	                ? "check that the ROCm SMI library matches the amdgpu driver and that this user can "
	                  "read /sys/class/drm and /dev/kfd"
	                : "nothing to do without amdgpu GPUs";
	struct ga_finding *f = ga_findings_add(out, GA_C_ROCM_SMI_FAILED, sev, "rocm_smi", decision,
	                                       "ROCm SMI failed in %s: %s", call, r->error);
	ga_finding_evidence(f, "error_call", "%s", call);
	ga_finding_evidence(f, "error", "%s", r->error);
	if (r->error_code.set)
		ga_finding_evidence(f, "error_code", "%lld", (long long)r->error_code.v);
	if (r->library)
		ga_finding_evidence(f, "library", "%s", r->library);
}

void ga_analyze_amd_intel(const struct ga_node *n, struct ga_findings *out)
{
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (a->amd) {
			ras_findings(a, a->amd, out);
			replay_findings(n, a, a->amd, out);
		}
		if (a->amd || a->rocm_smi)
			hot_findings(a, out);
	}
	rocm_smi_findings(n, out);
}
