/*
 * analyze/nvml.c - findings from NVML's view: NVML that fails or hangs, lost
 * GPUs, uncorrectable ECC, row remapping and page retirement that need a reset
 * or RMA, MIG changes waiting for a reset, hardware clock slowdowns, and the
 * PCIe link as the GPU itself reports it.
 */
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"

/* NVML error codes the decisions depend on (nvml-api.md §1). */
enum {
	NVML_NO_PERMISSION = 4,
	NVML_DRIVER_NOT_LOADED = 9,
	NVML_LIB_NOT_FOUND = 12,
	NVML_LOST = 15,
	NVML_RM_MISMATCH = 18
};

/* Above this many replays since driver load a link is retraining, not just noisy. */
#define PCIE_REPLAY_WARN 100

static void system_findings(const struct ga_nvml *s, struct ga_findings *out)
{
	if (s->timed_out.set && s->timed_out.v) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_VENDOR_TIMEOUT, GA_SEV_CRITICAL, "nvml",
		        "drain the node: a GPU or the driver is wedged; check the kernel log for Xid "
		        "errors, then reset the GPU or reboot",
		        "NVML did not answer within the deadline (in %s)",
		        s->error_call ? s->error_call : "?");
		ga_finding_evidence(f, "call", "%s", s->error_call ? s->error_call : "?");
		return;
	}
	if (!s->error)
		return;
	long long code = s->error_code.set ? (long long)s->error_code.v : -1;
	if (code == NVML_LIB_NOT_FOUND) {
		ga_findings_add(
		        out, GA_C_NVML_MISSING, GA_SEV_WARNING, "nvml",
		        "install the NVIDIA user-space driver (libnvidia-ml.so.1) matching the kernel "
		        "module, or mount it into the container",
		        "NVIDIA GPUs are present but NVML could not be loaded: %s", s->error);
		return;
	}
	const char *decision = "check the kernel log and the driver installation";
	enum ga_severity sev = GA_SEV_ERROR;
	if (code == NVML_RM_MISMATCH)
		decision = "the user-space driver and the kernel module differ: reboot into the installed "
		           "module or reinstall the matching user-space package";
	else if (code == NVML_DRIVER_NOT_LOADED)
		decision =
		        "load the NVIDIA kernel module (modprobe nvidia) and check dmesg for why it failed";
	else if (code == NVML_NO_PERMISSION)
		decision = "run as root or give this user access to /dev/nvidia*";
	struct ga_finding *f = ga_findings_add(out, GA_C_NVML_FAILED, sev, "nvml", decision, "%s failed: %s",
	                                       s->error_call ? s->error_call : "NVML", s->error);
	ga_finding_evidence(f, "call", "%s", s->error_call ? s->error_call : "?");
	ga_finding_evidence(f, "nvml_error_code", "%lld", code);
}

static bool has_name(const struct ga_strv *v, const char *name)
{
	return ga_strv_contains(v, name);
}

static void gpu_findings(const struct ga_accel *a, const struct ga_nvml_gpu *g, struct ga_findings *out)
{
	const char *subj = a->address ? a->address : "gpu";
	if (g->error) {
		bool lost = g->error_code.set && g->error_code.v == NVML_LOST;
		struct ga_finding *f =
		        ga_findings_add(out, lost ? GA_C_GPU_LOST : GA_C_NVML_DEVICE_ERROR,
		                        lost ? GA_SEV_CRITICAL : GA_SEV_ERROR, subj,
		                        lost ? "drain the node; the GPU fell off the bus: check the kernel "
		                               "log (Xid 79), then "
		                               "reset or reboot; replace the board if it repeats"
		                             : "check the kernel log for this GPU and reset it",
		                        "NVML: %s", g->error);
		ga_finding_evidence(f, "nvml_error_code", "%lld",
		                    g->error_code.set ? (long long)g->error_code.v : -1LL);
		return;
	}
	if (g->remap_failure.set && g->remap_failure.v) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_ROW_REMAP_FAILED, GA_SEV_CRITICAL, subj,
		        "take the GPU out of service and open an RMA: it has run out of spare memory rows",
		        "row remapping failed on this GPU");
		ga_finding_evidence(f, "remapped_rows_uncorrectable", "%llu",
		                    (unsigned long long)g->remapped_rows_uncorrectable.v);
	} else if (g->remap_pending.set && g->remap_pending.v) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_ROW_REMAP_PENDING, GA_SEV_ERROR, subj,
		        "drain the GPU and reset it (nvidia-smi -r) or reboot to apply the remap",
		        "a memory row remap is pending; it takes effect at the next GPU reset");
		ga_finding_evidence(f, "remapped_rows_uncorrectable", "%llu",
		                    (unsigned long long)g->remapped_rows_uncorrectable.v);
		ga_finding_evidence(f, "remapped_rows_correctable", "%llu",
		                    (unsigned long long)g->remapped_rows_correctable.v);
	}
	if (g->ecc_uncorrected_volatile.set && g->ecc_uncorrected_volatile.v > 0) {
		struct ga_finding *f =
		        ga_findings_add(out, GA_C_ECC_UNCORRECTED, GA_SEV_ERROR, subj,
		                        "jobs on this GPU may have been killed or corrupted; drain it and "
		                        "reset it, and replace "
		                        "it if errors recur after remapping",
		                        "%llu uncorrectable ECC errors since the driver loaded",
		                        (unsigned long long)g->ecc_uncorrected_volatile.v);
		ga_finding_evidence(f, "volatile", "%llu", (unsigned long long)g->ecc_uncorrected_volatile.v);
		if (g->ecc_uncorrected_aggregate.set)
			ga_finding_evidence(f, "aggregate", "%llu",
			                    (unsigned long long)g->ecc_uncorrected_aggregate.v);
	}
	if (g->retired_pages_pending.set && g->retired_pages_pending.v)
		ga_findings_add(out, GA_C_RETIRED_PAGES_PENDING, GA_SEV_ERROR, subj,
		                "reboot or reset the GPU so the pending page retirement takes effect",
		                "memory pages are waiting to be retired");
	if (g->mig_enabled.set && g->mig_pending.set && g->mig_enabled.v != g->mig_pending.v) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_MIG_PENDING, GA_SEV_WARNING, subj,
		        "reset the GPU (nvidia-smi -r) to apply the MIG mode change before scheduling on it",
		        "MIG mode is %s but %s after the next reset", g->mig_enabled.v ? "on" : "off",
		        g->mig_pending.v ? "on" : "off");
		ga_finding_evidence(f, "current", "%s", g->mig_enabled.v ? "enabled" : "disabled");
		ga_finding_evidence(f, "pending", "%s", g->mig_pending.v ? "enabled" : "disabled");
	}
	static const char *const hw[] = { "hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
		                          "sw_thermal_slowdown" };
	char why[160] = "";
	for (size_t i = 0; i < GA_ARRAY_SIZE(hw); i++)
		if (has_name(&g->clock_event_names, hw[i])) {
			size_t len = strlen(why);
			snprintf(why + len, sizeof(why) - len, "%s%s", len ? " " : "", hw[i]);
		}
	if (why[0]) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_CLOCKS_THROTTLED, GA_SEV_WARNING, subj,
		        "check cooling, power supplies and the power brake signal; a GPU held down by "
		        "hardware slowdown makes the whole job run at its pace",
		        "clocks are held down by %s", why);
		ga_finding_evidence(f, "reasons", "%s", why);
		if (g->clock_sm_mhz.set && g->clock_sm_max_mhz.set)
			ga_finding_evidence(f, "sm_clock_mhz", "%llu of %llu",
			                    (unsigned long long)g->clock_sm_mhz.v,
			                    (unsigned long long)g->clock_sm_max_mhz.v);
		if (g->temperature_c.set)
			ga_finding_evidence(f, "temperature_c", "%llu",
			                    (unsigned long long)g->temperature_c.v);
	}
	/* The GPU's own view of its link is judged with sysfs's, by the one link rule (node.c). */
	if (g->pcie_replay_count.set && g->pcie_replay_count.v > PCIE_REPLAY_WARN) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_PCIE_REPLAYS, GA_SEV_WARNING, subj,
		        "the link is retrying transfers: reseat the GPU or riser and watch for AER errors",
		        "%llu PCIe replays since the driver loaded (warning above %d)",
		        (unsigned long long)g->pcie_replay_count.v, PCIE_REPLAY_WARN);
		ga_finding_evidence(f, "replays", "%llu", (unsigned long long)g->pcie_replay_count.v);
	}
}

void ga_analyze_nvml(const struct ga_node *n, struct ga_findings *out)
{
	if (n->nvml)
		system_findings(n->nvml, out);
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].nvml)
			gpu_findings(&n->accelerators[i], n->accelerators[i].nvml, out);
	ga_analyze_fabric(n, out); /* nvlink.c: fabric registration and NVLink state */
}
