/*
 * prom-devices.c - the per-accelerator families of the Prometheus exposition
 * (prom.h): one getter per value, read from the node snapshot, and the
 * families built from them. A device without the value gives no sample.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "prom-writer.h"

/* --- per-device values --- */

static void dev_labels(struct ga_pw *w, const struct ga_accel *a, size_t pos)
{
	ga_pw_labelu(w, "gpu", a->index.set ? a->index.v : pos);
	ga_pw_label(w, "pci_address", a->address ? a->address : "");
}

/* One sample per device for which GET yields a value. */
typedef bool (*dev_get_fn)(const struct ga_node *n, const struct ga_accel *a, double *v);

static void dev_family(struct ga_pw *w, const struct ga_node *n, const char *name, const char *unit,
                       const char *help, dev_get_fn get)
{
	ga_pw_family(w, name, "gauge", unit, help);
	for (size_t i = 0; i < n->n_accelerators; i++) {
		double v;
		if (!get(n, &n->accelerators[i], &v))
			continue;
		ga_pw_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		ga_pw_value(w, v);
	}
}

#define OU(x) ((x).set)

/* One sample per accelerator whose verdict entry (verdict.h) yields a value. */
typedef bool (*vd_get_fn)(const struct ga_vd_device *d, double *v);

static void vd_family(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd,
                      const char *name, const char *unit, const char *help, vd_get_fn get)
{
	ga_pw_family(w, name, "gauge", unit, help);
	for (size_t i = 0; vd && i < n->n_accelerators; i++) {
		const struct ga_vd_device *d = ga_node_verdict_device(vd, n->accelerators[i].address);
		double v;
		if (!d || !get(d, &v))
			continue;
		ga_pw_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		ga_pw_value(w, v);
	}
}

static bool get_mem_total(const struct ga_vd_device *d, double *v)
{
	if (!d->memory_bytes.set)
		return false;
	*v = (double)d->memory_bytes.v;
	return true;
}

static bool get_mem_used(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->memory_used_bytes))
		*v = (double)a->nvml->memory_used_bytes.v;
	else if (a->amd && OU(a->amd->vram_used_bytes))
		*v = (double)a->amd->vram_used_bytes.v;
	else if (a->intel && OU(a->intel->lmem_total_bytes) && OU(a->intel->lmem_avail_bytes) &&
	         a->intel->lmem_avail_bytes.v <= a->intel->lmem_total_bytes.v)
		*v = (double)(a->intel->lmem_total_bytes.v - a->intel->lmem_avail_bytes.v);
	else
		return false;
	return true;
}

static bool get_util(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->utilization_gpu_pct))
		*v = (double)a->nvml->utilization_gpu_pct.v / 100.0;
	else if (a->amd && OU(a->amd->gpu_busy_pct))
		*v = (double)a->amd->gpu_busy_pct.v / 100.0;
	else
		return false;
	return true;
}

static bool get_mem_util(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->utilization_memory_pct))
		*v = (double)a->nvml->utilization_memory_pct.v / 100.0;
	else if (a->amd && OU(a->amd->mem_busy_pct))
		*v = (double)a->amd->mem_busy_pct.v / 100.0;
	else
		return false;
	return true;
}

static bool get_power(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->power_usage_mw))
		*v = (double)a->nvml->power_usage_mw.v / 1e3;
	else if (a->amd && OU(a->amd->power_uw))
		*v = (double)a->amd->power_uw.v / 1e6;
	else
		return false;
	return true;
}

static bool get_power_limit(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->power_limit_mw))
		*v = (double)a->nvml->power_limit_mw.v / 1e3;
	else if (a->amd && OU(a->amd->power_cap_uw))
		*v = (double)a->amd->power_cap_uw.v / 1e6;
	else if (a->intel && OU(a->intel->power_max_uw))
		*v = (double)a->intel->power_max_uw.v / 1e6;
	else
		return false;
	return true;
}

static bool get_energy(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->intel || !OU(a->intel->energy_uj))
		return false;
	*v = (double)a->intel->energy_uj.v / 1e6;
	return true;
}

/* PCIe generation from a link speed in GT/s; 0 when it is no standard speed. */
static unsigned pcie_gen(double gts)
{
	static const double speeds[] = { 2.5, 5, 8, 16, 32, 64 };
	for (unsigned i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (fabs(gts - speeds[i]) < 0.01)
			return i + 1;
	return 0;
}

static bool link_gen(const struct ga_node *n, const struct ga_accel *a, bool max, double *v)
{
	const struct ga_pci_dev *pd = ga_node_pci_find(n, a->address);
	if (pd) {
		const struct ga_odbl *s = max ? &pd->link.max_speed_gts : &pd->link.cur_speed_gts;
		unsigned g = s->set ? pcie_gen(s->v) : 0;
		if (g) {
			*v = g;
			return true;
		}
	}
	const struct ga_ou64 *g = a->nvml ? (max ? &a->nvml->pcie_gen_max : &a->nvml->pcie_gen) : NULL;
	if (g && g->set) {
		*v = (double)g->v;
		return true;
	}
	return false;
}

static bool link_width(const struct ga_node *n, const struct ga_accel *a, bool max, double *v)
{
	const struct ga_pci_dev *pd = ga_node_pci_find(n, a->address);
	const struct ga_ou64 *w = pd ? (max ? &pd->link.max_width : &pd->link.cur_width) : NULL;
	if (!w || !w->set || w->v == 0)
		w = a->nvml ? (max ? &a->nvml->pcie_width_max : &a->nvml->pcie_width) : NULL;
	if (!w || !w->set)
		return false;
	*v = (double)w->v;
	return true;
}

static bool get_gen(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_gen(n, a, false, v);
}
static bool get_gen_max(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_gen(n, a, true, v);
}
static bool get_width(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_width(n, a, false, v);
}
static bool get_width_max(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	return link_width(n, a, true, v);
}

/* The verdict's link state (the rule of GA-LINK-DEGRADED, lib/analyze/node.c); absent when unknown. */
static bool get_degraded(const struct ga_vd_device *d, double *v)
{
	if (d->link == GA_VD_LINK_UNKNOWN)
		return false;
	*v = d->link == GA_VD_LINK_DEGRADED;
	return true;
}

static bool get_replays(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (a->nvml && OU(a->nvml->pcie_replay_count))
		*v = (double)a->nvml->pcie_replay_count.v;
	else if (a->amd && OU(a->amd->pcie_replay_count))
		*v = (double)a->amd->pcie_replay_count.v;
	else
		return false;
	return true;
}

static bool obool(const struct ga_obool *b, double *v)
{
	if (!b->set)
		return false;
	*v = b->v;
	return true;
}

static bool get_remap_pending(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->remap_pending, v);
}
static bool get_remap_failure(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->remap_failure, v);
}
static bool get_retired_pending(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->retired_pages_pending, v);
}
static bool get_ecc_enabled(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->ecc_enabled, v);
}
static bool get_persistence(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->persistence_mode, v);
}
static bool get_mig(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	return a->nvml && obool(&a->nvml->mig_enabled, v);
}
/* NVLinks NVML reports for the GPU, and how many of them are active. */
static bool get_nvlinks(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->nvml || !a->nvml->n_nvlinks)
		return false;
	*v = (double)a->nvml->n_nvlinks;
	return true;
}
static bool get_nvlinks_active(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->nvml || !a->nvml->n_nvlinks)
		return false;
	size_t k = 0;
	for (size_t i = 0; i < a->nvml->n_nvlinks; i++)
		k += a->nvml->nvlinks[i].active.set && a->nvml->nvlinks[i].active.v;
	*v = (double)k;
	return true;
}
static bool get_amd_bad_pages(const struct ga_node *n, const struct ga_accel *a, double *v)
{
	(void)n;
	if (!a->amd || !OU(a->amd->bad_pages))
		return false;
	*v = (double)a->amd->bad_pages.v;
	return true;
}

/* A device family with one extra label: a list of (label value, getter) pairs. */
struct sub {
	const char *value;
	bool (*get)(const struct ga_accel *a, double *v);
};

static void dev_family_sub(struct ga_pw *w, const struct ga_node *n, const char *name, const char *type,
                           const char *unit, const char *help, const char *key, const struct sub *subs,
                           size_t nsubs)
{
	ga_pw_family(w, name, type, unit, help);
	for (size_t i = 0; i < n->n_accelerators; i++)
		for (size_t j = 0; j < nsubs; j++) {
			double v;
			if (!subs[j].get(&n->accelerators[i], &v))
				continue;
			ga_pw_begin(w);
			dev_labels(w, &n->accelerators[i], i);
			ga_pw_label(w, key, subs[j].value);
			ga_pw_value(w, v);
		}
}

#define NV_U64(fn, field, scale)                            \
	static bool fn(const struct ga_accel *a, double *v) \
	{                                                   \
		if (!a->nvml || !a->nvml->field.set)        \
			return false;                       \
		*v = (double)a->nvml->field.v * (scale);    \
		return true;                                \
	}
#define AMD_U64(fn, field, scale)                           \
	static bool fn(const struct ga_accel *a, double *v) \
	{                                                   \
		if (!a->amd || !a->amd->field.set)          \
			return false;                       \
		*v = (double)a->amd->field.v * (scale);     \
		return true;                                \
	}

NV_U64(nv_temp, temperature_c, 1)
AMD_U64(amd_temp_edge, temp_edge_mc, 1e-3)
AMD_U64(amd_temp_junction, temp_junction_mc, 1e-3)
AMD_U64(amd_temp_mem, temp_mem_mc, 1e-3)
NV_U64(nv_clk_sm, clock_sm_mhz, 1e6)
NV_U64(nv_clk_mem, clock_mem_mhz, 1e6)
NV_U64(nv_clk_sm_max, clock_sm_max_mhz, 1e6)
NV_U64(nv_clk_mem_max, clock_mem_max_mhz, 1e6)
NV_U64(nv_ecc_c_vol, ecc_corrected_volatile, 1)
NV_U64(nv_ecc_u_vol, ecc_uncorrected_volatile, 1)
NV_U64(nv_ecc_c_agg, ecc_corrected_aggregate, 1)
NV_U64(nv_ecc_u_agg, ecc_uncorrected_aggregate, 1)
NV_U64(nv_retired_sbe, retired_pages_sbe, 1)
NV_U64(nv_retired_dbe, retired_pages_dbe, 1)
NV_U64(nv_remap_c, remapped_rows_correctable, 1)
NV_U64(nv_remap_u, remapped_rows_uncorrectable, 1)

static bool intel_clk(const struct ga_accel *a, double *v)
{
	if (!a->intel || !a->intel->freq_act_mhz.set)
		return false;
	*v = (double)a->intel->freq_act_mhz.v * 1e6;
	return true;
}
static bool intel_clk_max(const struct ga_accel *a, double *v)
{
	if (!a->intel || !a->intel->freq_max_mhz.set)
		return false;
	*v = (double)a->intel->freq_max_mhz.v * 1e6;
	return true;
}

/* Identity, memory, utilization, temperature, power and energy. */
static void render_identity(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd)
{
	ga_pw_family(w, "gpuaudit_gpu_info", "info", NULL,
	             "One series per accelerator: vendor, model, UUID, driver and compute capability or gfx "
	             "target (value 1).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		ga_pw_begin(w);
		dev_labels(w, a, i);
		ga_pw_label(w, "vendor", a->vendor ? a->vendor : "");
		ga_pw_label(w, "model", a->model ? a->model : "");
		ga_pw_label(w, "uuid", a->uuid ? a->uuid : a->nvml && a->nvml->uuid ? a->nvml->uuid : "");
		ga_pw_label(w, "driver", a->driver ? a->driver : "");
		ga_pw_label(w, "driver_version", a->driver_version ? a->driver_version : "");
		ga_pw_label(w, "compute_capability",
		            a->nvml && a->nvml->compute_capability ? a->nvml->compute_capability : "");
		ga_pw_label(w, "gfx_target", a->gfx_target ? a->gfx_target : "");
		ga_pw_value(w, 1);
	}
	vd_family(w, n, vd, "gpuaudit_gpu_memory_total_bytes", "bytes", "Device memory size.", get_mem_total);
	dev_family(w, n, "gpuaudit_gpu_memory_used_bytes", "bytes", "Device memory in use.", get_mem_used);
	dev_family(w, n, "gpuaudit_gpu_utilization_ratio", "ratio",
	           "Fraction of the last sample period the GPU was busy (NVML utilization.gpu, amdgpu "
	           "gpu_busy_percent).",
	           get_util);
	dev_family(w, n, "gpuaudit_gpu_memory_utilization_ratio", "ratio",
	           "Fraction of the last sample period device memory was being read or written.",
	           get_mem_util);
	static const struct sub temps[] = {
		{ "gpu", nv_temp },
		{ "edge", amd_temp_edge },
		{ "junction", amd_temp_junction },
		{ "memory", amd_temp_mem },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_temperature_celsius", "gauge", "celsius",
	               "GPU temperature by sensor.", "sensor", temps, sizeof(temps) / sizeof(temps[0]));
	dev_family(w, n, "gpuaudit_gpu_power_watts", "watts", "Power draw.", get_power);
	dev_family(w, n, "gpuaudit_gpu_power_limit_watts", "watts", "Enforced power limit (cap).",
	           get_power_limit);
	ga_pw_family(w, "gpuaudit_gpu_energy_joules_total", "counter", "joules",
	             "Energy used since the driver loaded (Intel hwmon energy).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		double v;
		if (!get_energy(n, &n->accelerators[i], &v))
			continue;
		ga_pw_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		ga_pw_value(w, v);
	}
}

/* Clock frequencies and NVML clock event (throttle) reasons. */
static void render_clocks(struct ga_pw *w, const struct ga_node *n)
{
	static const struct sub clocks[] = {
		{ "sm", nv_clk_sm },
		{ "memory", nv_clk_mem },
		{ "gt", intel_clk },
	};
	static const struct sub clocks_max[] = {
		{ "sm", nv_clk_sm_max },
		{ "memory", nv_clk_mem_max },
		{ "gt", intel_clk_max },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_clock_hertz", "gauge", "hertz", "Current clock frequency.",
	               "clock", clocks, sizeof(clocks) / sizeof(clocks[0]));
	dev_family_sub(w, n, "gpuaudit_gpu_clock_max_hertz", "gauge", "hertz", "Highest clock frequency.",
	               "clock", clocks_max, sizeof(clocks_max) / sizeof(clocks_max[0]));

	ga_pw_family(
	        w, "gpuaudit_gpu_clock_event_reasons", "gauge", NULL,
	        "NVML clock event (throttle) reasons active now, one series per active reason (value 1).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml)
			continue;
		for (size_t j = 0; j < a->nvml->clock_event_names.n; j++) {
			ga_pw_begin(w);
			dev_labels(w, a, i);
			ga_pw_label(w, "reason", a->nvml->clock_event_names.v[j]);
			ga_pw_value(w, 1);
		}
	}
	ga_pw_family(w, "gpuaudit_gpu_clock_event_reasons_mask", "gauge", NULL,
	             "NVML clock event reasons as NVML's bit mask (0: none).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml || !a->nvml->clock_event_reasons.set)
			continue;
		ga_pw_begin(w);
		dev_labels(w, a, i);
		ga_pw_valueu(w, a->nvml->clock_event_reasons.v);
	}
}

/* The PCIe link: generation, width, degradation, replays. */
static void render_pcie(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd)
{
	dev_family(w, n, "gpuaudit_gpu_pcie_link_generation", NULL, "PCIe generation the link runs at now.",
	           get_gen);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_max_generation", NULL,
	           "Highest PCIe generation of the device.", get_gen_max);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_width", NULL, "PCIe lanes the link runs with now.",
	           get_width);
	dev_family(w, n, "gpuaudit_gpu_pcie_link_max_width", NULL, "Most PCIe lanes the device supports.",
	           get_width_max);
	vd_family(w, n, vd, "gpuaudit_gpu_pcie_link_degraded", NULL,
	          "1 when a link between the device and the root complex trained at fewer lanes than both "
	          "its ends support (or NVML reports the GPU's own link below its width): the same rule "
	          "as the degraded-link finding.",
	          get_degraded);
	ga_pw_family(w, "gpuaudit_gpu_pcie_replays_total", "counter", NULL,
	             "PCIe replay counter of the device.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		double v;
		if (!get_replays(n, &n->accelerators[i], &v))
			continue;
		ga_pw_begin(w);
		dev_labels(w, &n->accelerators[i], i);
		ga_pw_value(w, v);
	}
}

/* Device memory health: ECC, retired pages, remapped rows. */
static void render_memory_health(struct ga_pw *w, const struct ga_node *n)
{
	static const struct sub ecc[] = {
		{ "corrected", nv_ecc_c_agg },
		{ "uncorrected", nv_ecc_u_agg },
	};
	static const struct sub ecc_vol[] = {
		{ "corrected", nv_ecc_c_vol },
		{ "uncorrected", nv_ecc_u_vol },
	};
	dev_family(w, n, "gpuaudit_gpu_ecc_enabled", NULL, "1 when ECC is enabled.", get_ecc_enabled);
	dev_family_sub(w, n, "gpuaudit_gpu_ecc_errors_total", "counter", NULL,
	               "ECC errors over the GPU's lifetime (NVML aggregate counters).", "type", ecc, 2);
	dev_family_sub(w, n, "gpuaudit_gpu_ecc_errors_volatile", "gauge", NULL,
	               "ECC errors since the driver loaded (NVML volatile counters; reset on driver reload).",
	               "type", ecc_vol, 2);
	static const struct sub retired[] = {
		{ "single_bit", nv_retired_sbe },
		{ "double_bit", nv_retired_dbe },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_retired_pages", "gauge", NULL, "Pages retired, by cause.", "cause",
	               retired, 2);
	dev_family(w, n, "gpuaudit_gpu_retired_pages_pending", NULL,
	           "1 when a page retirement waits for the next driver reload.", get_retired_pending);
	static const struct sub remap[] = {
		{ "correctable", nv_remap_c },
		{ "uncorrectable", nv_remap_u },
	};
	dev_family_sub(w, n, "gpuaudit_gpu_remapped_rows", "gauge", NULL,
	               "Memory rows remapped, by error type.", "type", remap, 2);
	dev_family(w, n, "gpuaudit_gpu_row_remap_pending", NULL, "1 when a row remap waits for a GPU reset.",
	           get_remap_pending);
	dev_family(w, n, "gpuaudit_gpu_row_remap_failed", NULL,
	           "1 when a row remap failed (replace the GPU).", get_remap_failure);
}

/* Modes, NVLinks and AMD's bad pages and RAS counts. */
static void render_modes(struct ga_pw *w, const struct ga_node *n)
{
	dev_family(w, n, "gpuaudit_gpu_persistence_mode", NULL, "1 when NVIDIA persistence mode is on.",
	           get_persistence);
	dev_family(w, n, "gpuaudit_gpu_mig_enabled", NULL, "1 when MIG mode is enabled.", get_mig);
	dev_family(w, n, "gpuaudit_gpu_nvlinks", NULL, "NVLinks NVML reports for the GPU.", get_nvlinks);
	dev_family(w, n, "gpuaudit_gpu_nvlinks_active", NULL,
	           "NVLinks that are active; fewer than gpuaudit_gpu_nvlinks on an NVSwitch system is a link "
	           "down.",
	           get_nvlinks_active);
	dev_family(w, n, "gpuaudit_gpu_bad_pages", NULL, "amdgpu: retired (bad) VRAM pages.",
	           get_amd_bad_pages);

	ga_pw_family(
	        w, "gpuaudit_gpu_ras_errors", "gauge", NULL,
	        "amdgpu RAS error counts by block and type (ue uncorrectable, ce correctable, de deferred).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->amd)
			continue;
		for (size_t j = 0; j < a->amd->n_ras; j++) {
			const struct ga_amd_ras_block *rb = &a->amd->ras[j];
			const struct ga_ou64 *vals[] = { &rb->ue, &rb->ce, &rb->de };
			static const char *const types[] = { "ue", "ce", "de" };
			for (size_t k = 0; k < 3; k++) {
				if (!vals[k]->set)
					continue;
				ga_pw_begin(w);
				dev_labels(w, a, i);
				ga_pw_label(w, "block", rb->block ? rb->block : "");
				ga_pw_label(w, "type", types[k]);
				ga_pw_valueu(w, vals[k]->v);
			}
		}
	}
}

/* Devices the vendor library or the device nodes say are broken. */
static void render_errors(struct ga_pw *w, const struct ga_node *n)
{
	ga_pw_family(w, "gpuaudit_gpu_device_error", "gauge", NULL,
	             "1 when the vendor library reported the device itself failed (\"GPU is lost\"), with "
	             "its text.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml || !a->nvml->error)
			continue;
		ga_pw_begin(w);
		dev_labels(w, a, i);
		ga_pw_label(w, "error", a->nvml->error);
		ga_pw_value(w, 1);
	}
	ga_pw_family(
	        w, "gpuaudit_gpu_missing_device_nodes", "gauge", NULL,
	        "Device nodes (/dev/nvidiaN, /dev/dri/renderD*) expected for the accelerator but absent.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		ga_pw_begin(w);
		dev_labels(w, a, i);
		ga_pw_valueu(w, a->missing_nodes.n);
	}
}

void ga_prom_render_devices(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd)
{
	render_identity(w, n, vd);
	render_clocks(w, n);
	render_pcie(w, n, vd);
	render_memory_health(w, n);
	render_modes(w, n);
	render_errors(w, n);
	ga_prom_render_nvlink(w, n);
}
