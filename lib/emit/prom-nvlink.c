/*
 * prom-nvlink.c - the NVIDIA fabric families of the Prometheus exposition:
 * per-link NVLink state and error counters (labels gpu, pci_address, link,
 * counter: at most 36 links x 4 counters per GPU), and the GPU's fabric
 * registration state and health. Absent values give no sample.
 */
#include <string.h>

#include "prom-writer.h"

static void labels(struct ga_pw *w, const struct ga_accel *a, size_t pos)
{
	ga_pw_labelu(w, "gpu", a->index.set ? a->index.v : pos);
	ga_pw_label(w, "pci_address", a->address ? a->address : "");
}

static void links(struct ga_pw *w, const struct ga_node *n)
{
	ga_pw_family(w, "gpuaudit_gpu_nvlink_up", "gauge", NULL,
	             "1 when the NVLink is active (NVML nvmlDeviceGetNvLinkState), by link.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		for (size_t k = 0; a->nvml && k < a->nvml->n_nvlinks; k++) {
			const struct ga_nvml_link *l = &a->nvml->nvlinks[k];
			if (!l->link.set || !l->active.set)
				continue;
			ga_pw_begin(w);
			labels(w, a, i);
			ga_pw_labelu(w, "link", l->link.v);
			ga_pw_valueu(w, l->active.v ? 1 : 0);
		}
	}
	ga_pw_family(w, "gpuaudit_gpu_nvlink_errors_total", "counter", NULL,
	             "NVLink data-link errors since the driver loaded, by link and counter (replay, "
	             "recovery, crc_flit, crc_data); a rise between scrapes is a link going bad.");
	static const char *const names[] = { "replay", "recovery", "crc_flit", "crc_data" };
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		for (size_t k = 0; a->nvml && k < a->nvml->n_nvlinks; k++) {
			const struct ga_nvml_link *l = &a->nvml->nvlinks[k];
			const struct ga_ou64 *v[] = { &l->replay_errors, &l->recovery_errors,
				                      &l->crc_flit_errors, &l->crc_data_errors };
			for (size_t c = 0; c < 4 && l->link.set; c++) {
				if (!v[c]->set)
					continue;
				ga_pw_begin(w);
				labels(w, a, i);
				ga_pw_labelu(w, "link", l->link.v);
				ga_pw_label(w, "counter", names[c]);
				ga_pw_valueu(w, v[c]->v);
			}
		}
	}
}

static unsigned state_value(const char *s)
{
	return !strcmp(s, "not_started")   ? 1
	       : !strcmp(s, "in_progress") ? 2
	       : !strcmp(s, "completed")   ? 3
	                                   : 0;
}

static void fabric(struct ga_pw *w, const struct ga_node *n)
{
	ga_pw_family(w, "gpuaudit_gpu_fabric_state", "gauge", NULL,
	             "NVLink fabric registration state as NVML numbers it: 1 not started, 2 in progress, "
	             "3 completed (NVSwitch systems, Hopper and later).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->nvml || !a->nvml->fabric_state)
			continue;
		ga_pw_begin(w);
		labels(w, a, i);
		ga_pw_valueu(w, state_value(a->nvml->fabric_state));
	}
	ga_pw_family(w, "gpuaudit_gpu_fabric_healthy", "gauge", NULL,
	             "1 when the fabric registration completed without error and NVML reports no "
	             "degradation; 0 otherwise.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		const struct ga_nvml_gpu *g = a->nvml;
		if (!g || !g->fabric_state)
			continue;
		bool ok = !strcmp(g->fabric_state, "completed") && g->fabric_status.set &&
		          g->fabric_status.v == 0 &&
		          (!g->fabric_health_summary || !strcmp(g->fabric_health_summary, "healthy")) &&
		          g->fabric_health_flags.n == 0;
		ga_pw_begin(w);
		labels(w, a, i);
		ga_pw_valueu(w, ok ? 1 : 0);
	}
}

void ga_prom_render_nvlink(struct ga_pw *w, const struct ga_node *n)
{
	links(w, n);
	fabric(w, n);
}
