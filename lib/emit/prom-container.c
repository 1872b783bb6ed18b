/*
 * prom-container.c - the container layer's families for serve (docs/metrics.md,
 * "Container layer"): each CDI spec, whether it matches the running driver and
 * the paths it names that are gone, the GPUs and MIG devices no spec lists, and
 * the devices each device-plugin resource has registered with the kubelet and
 * handed to containers. Written only when the snapshot has the sections; the
 * judged values (stale, missing paths, unlisted devices) are the node's verdict.
 */
#include "gpuaudit/container.h"
#include "prom-writer.h"

/* Each spec's verdict (verdict.h): the rules of GA-CDI-STALE, -PATH-MISSING and -DEVICE-MISSING. */
static void render_cdi(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd)
{
	const struct ga_cdi *cdi = n->cdi;
	ga_pw_family(w, "gpuaudit_cdi_spec_info", "info", NULL,
	             "A CDI spec under /etc/cdi or /var/run/cdi and the driver it was generated for "
	             "(value 1).");
	for (size_t i = 0; i < cdi->n_specs; i++) {
		const struct ga_cdi_spec *s = &cdi->specs[i];
		ga_pw_begin(w);
		ga_pw_label(w, "path", s->path ? s->path : "");
		ga_pw_label(w, "kind", s->kind ? s->kind : "");
		ga_pw_label(w, "cdi_version", s->cdi_version ? s->cdi_version : "");
		ga_pw_label(w, "driver_version", s->driver_version ? s->driver_version : "");
		ga_pw_value(w, 1);
	}
	ga_pw_family(w, "gpuaudit_cdi_spec_readable", "gauge", NULL,
	             "1 when the CDI spec parsed, 0 when it could not be read or parsed.");
	for (size_t i = 0; i < cdi->n_specs; i++) {
		ga_pw_begin(w);
		ga_pw_label(w, "path", cdi->specs[i].path ? cdi->specs[i].path : "");
		ga_pw_value(w, cdi->specs[i].error ? 0 : 1);
	}
	if (!vd)
		return;
	ga_pw_family(w, "gpuaudit_cdi_spec_stale", "gauge", NULL,
	             "1 when the NVIDIA CDI spec was generated for another driver than the one running "
	             "(GA-CDI-STALE); absent when either version is unknown or the spec is not valid.");
	for (size_t i = 0; i < vd->n_cdi_specs; i++) {
		const struct ga_vd_cdi_spec *s = &vd->cdi_specs[i];
		if (!s->stale.set)
			continue;
		ga_pw_begin(w);
		ga_pw_label(w, "path", s->path ? s->path : "");
		ga_pw_value(w, s->stale.v ? 1 : 0);
	}
	ga_pw_family(w, "gpuaudit_cdi_spec_missing_paths", "gauge", NULL,
	             "Host paths (device nodes, libraries, mounts, hooks) the CDI spec names that are not "
	             "on the node (GA-CDI-PATH-MISSING); absent when the spec is not valid.");
	for (size_t i = 0; i < vd->n_cdi_specs; i++) {
		const struct ga_vd_cdi_spec *s = &vd->cdi_specs[i];
		if (!s->missing_paths.set)
			continue;
		ga_pw_begin(w);
		ga_pw_label(w, "path", s->path ? s->path : "");
		ga_pw_valueu(w, s->missing_paths.v);
	}
	if (vd->cdi_unlisted.set) {
		ga_pw_family(w, "gpuaudit_cdi_devices_unlisted", "gauge", NULL,
		             "NVIDIA GPUs and MIG devices of the node that no nvidia.com/gpu CDI spec names "
		             "(GA-CDI-DEVICE-MISSING).");
		ga_pw_begin(w);
		ga_pw_valueu(w, vd->cdi_unlisted.v);
	}
}

static void render_device_plugins(struct ga_pw *w, const struct ga_device_plugins *dp)
{
	ga_pw_family(w, "gpuaudit_device_plugin_checkpoint_readable", "gauge", NULL,
	             "1 when the kubelet's device-plugin checkpoint was read, 0 when it is damaged; "
	             "absent when there is none.");
	if (dp->checkpoint) {
		ga_pw_begin(w);
		ga_pw_value(w, dp->checkpoint_error ? 0 : 1);
	}
	ga_pw_family(w, "gpuaudit_device_plugin_registered_devices", "gauge", NULL,
	             "Devices a device plugin registered with the kubelet under a resource (its healthy "
	             "devices: what the node advertises as allocatable).");
	for (size_t i = 0; i < dp->n_resources; i++) {
		ga_pw_begin(w);
		ga_pw_label(w, "resource", dp->resources[i].name);
		ga_pw_valueu(w, dp->resources[i].devices.n);
	}
	ga_pw_family(w, "gpuaudit_device_plugin_allocated_devices", "gauge", NULL,
	             "Distinct devices of a resource the kubelet has handed to containers.");
	for (size_t i = 0; i < dp->n_resources; i++) {
		if (!dp->resources[i].allocated.set)
			continue;
		ga_pw_begin(w);
		ga_pw_label(w, "resource", dp->resources[i].name);
		ga_pw_valueu(w, dp->resources[i].allocated.v);
	}
}

void ga_prom_render_container(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd)
{
	if (n->cdi && n->cdi->n_specs)
		render_cdi(w, n, vd);
	if (n->device_plugins)
		render_device_plugins(w, n->device_plugins);
}
