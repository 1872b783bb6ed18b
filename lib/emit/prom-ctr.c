/*
 * prom-ctr.c - the container-layer families of the Prometheus exposition
 * (issue 21): whether the vendor toolkit is installed, each container
 * engine's wiring to the NVIDIA runtime and its default, and whether the
 * AMD/Intel device nodes open for a non-root container in render/video.
 * Written only when the snapshot has a container_runtime section; a value
 * the snapshot lacks gives no sample. The engines' default runtimes and the
 * device nodes' access are the node's verdict (verdict.h): without one, those
 * two families are left out. docs/metrics.md lists the families.
 */
#include <string.h>

#include "prom-writer.h"

/* Equal strings, or both absent. */
static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The verdict's entry of engine NAME (its default runtime), or NULL. */
static const struct ga_vd_engine *engine_of(const struct ga_node_verdict *vd, const char *name)
{
	for (size_t i = 0; vd && i < vd->n_runtime_engines; i++)
		if (same(vd->runtime_engines[i].name, name))
			return &vd->runtime_engines[i];
	return NULL;
}

/* The verdict's entry of device node PATH, or NULL. */
static const struct ga_vd_device_node *device_of(const struct ga_node_verdict *vd, const char *path)
{
	for (size_t i = 0; vd && i < vd->n_device_nodes; i++)
		if (same(vd->device_nodes[i].path, path))
			return &vd->device_nodes[i];
	return NULL;
}

void ga_prom_render_ctr(struct ga_pw *w, const struct ga_node *n, const struct ga_node_verdict *vd)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	if (!cr)
		return;
	if (cr->n_toolkits) {
		ga_pw_family(w, "gpuaudit_container_toolkit_installed", "gauge", NULL,
		             "1 when the vendor's container toolkit is installed (binaries or package), 0 "
		             "when not.");
		for (size_t i = 0; i < cr->n_toolkits; i++) {
			const struct ga_ctr_toolkit *tk = &cr->toolkits[i];
			ga_pw_begin(w);
			ga_pw_label(w, "vendor", tk->vendor ? tk->vendor : "");
			ga_pw_value(w, tk->installed.v ? 1 : 0);
		}
		ga_pw_family(w, "gpuaudit_container_toolkit_info", "info", NULL,
		             "The installed container toolkit's package version and mode (value 1).");
		for (size_t i = 0; i < cr->n_toolkits; i++) {
			const struct ga_ctr_toolkit *tk = &cr->toolkits[i];
			if (!tk->installed.v)
				continue;
			ga_pw_begin(w);
			ga_pw_label(w, "vendor", tk->vendor ? tk->vendor : "");
			ga_pw_label(w, "version", tk->version ? tk->version : "");
			ga_pw_label(w, "mode", tk->mode ? tk->mode : tk->config ? "auto" : "");
			ga_pw_value(w, 1);
		}
	}
	if (cr->n_engines) {
		ga_pw_family(w, "gpuaudit_container_engine_wired", "gauge", NULL,
		             "1 when the container engine has an NVIDIA runtime configured, 0 when not.");
		for (size_t i = 0; i < cr->n_engines; i++) {
			ga_pw_begin(w);
			ga_pw_label(w, "engine", cr->engines[i].name ? cr->engines[i].name : "");
			ga_pw_value(w, cr->engines[i].wired.v ? 1 : 0);
		}
		if (vd) {
			ga_pw_family(w, "gpuaudit_container_engine_default_nvidia", "gauge", NULL,
			             "1 when the container engine's default runtime is its NVIDIA runtime, 0 "
			             "when not.");
			for (size_t i = 0; i < cr->n_engines; i++) {
				const struct ga_ctr_engine *e = &cr->engines[i];
				const struct ga_vd_engine *x = engine_of(vd, e->name);
				ga_pw_begin(w);
				ga_pw_label(w, "engine", e->name ? e->name : "");
				ga_pw_label(w, "default_runtime",
				            x && x->default_runtime ? x->default_runtime : "");
				ga_pw_value(w, e->default_nvidia.v ? 1 : 0);
			}
		}
	}
	if (cr->n_devices && vd) {
		ga_pw_family(
		        w, "gpuaudit_container_device_accessible", "gauge", NULL,
		        "1 when a non-root container in group render or video can open the device node, 0 "
		        "when its owner, group and mode keep such a container out.");
		for (size_t i = 0; i < cr->n_devices; i++) {
			const struct ga_ctr_device *d = &cr->devices[i];
			const struct ga_vd_device_node *x = device_of(vd, d->path);
			if (!x || !x->accessible.set)
				continue;
			ga_pw_begin(w);
			ga_pw_label(w, "path", d->path ? d->path : "");
			ga_pw_label(w, "group", d->group ? d->group : "");
			ga_pw_value(w, x->accessible.v ? 1 : 0);
		}
	}
}
