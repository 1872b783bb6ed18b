/*
 * prom-ib.c - the InfiniBand/RoCE port and XGMI families of the Prometheus exposition
 * (docs/metrics.md). Labels are bounded: device and port (plus the counter's name for
 * hw_counters, from the collector's fixed list), never a GUID or a netdev that changes.
 */
#include <stdio.h>
#include <string.h>

#include "prom-writer.h"

static void port_labels(struct ga_pw *w, const struct ga_ib_port *p)
{
	ga_pw_label(w, "device", p->device ? p->device : "");
	ga_pw_labelu(w, "port", p->port.set ? p->port.v : 0);
}

static void port_family(struct ga_pw *w, const struct ga_node *n, const char *name, const char *type,
                        const char *unit, const char *help, size_t off)
{
	ga_pw_family(w, name, type, unit, help);
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		const struct ga_ou64 *v = (const struct ga_ou64 *)((const char *)&n->ib_ports[i] + off);
		if (!v->set)
			continue;
		ga_pw_begin(w);
		port_labels(w, &n->ib_ports[i]);
		ga_pw_valueu(w, v->v);
	}
}

static const struct {
	const char *name, *help;
	size_t off;
} port_counters[] = {
	{ "gpuaudit_ib_port_link_downed_total",
	  "Times the port's link went down (PMA link_downed, 8 bits, saturates).",
	  offsetof(struct ga_ib_port, link_downed) },
	{ "gpuaudit_ib_port_link_error_recovery_total", "Link error recoveries (PMA link_error_recovery).",
	  offsetof(struct ga_ib_port, link_error_recovery) },
	{ "gpuaudit_ib_port_symbol_errors_total", "Symbol errors on the link (PMA symbol_error).",
	  offsetof(struct ga_ib_port, symbol_error) },
	{ "gpuaudit_ib_port_rcv_errors_total", "Received packets with errors (PMA port_rcv_errors).",
	  offsetof(struct ga_ib_port, port_rcv_errors) },
	{ "gpuaudit_ib_port_local_link_integrity_errors_total", "Local link integrity errors (PMA, 4 bits).",
	  offsetof(struct ga_ib_port, local_link_integrity_errors) },
	{ "gpuaudit_ib_port_excessive_buffer_overrun_errors_total",
	  "Excessive buffer overruns (PMA, 4 bits).",
	  offsetof(struct ga_ib_port, excessive_buffer_overrun_errors) },
	{ "gpuaudit_ib_port_xmit_discards_total", "Outbound packets discarded (PMA port_xmit_discards).",
	  offsetof(struct ga_ib_port, port_xmit_discards) },
};

static void render_ports(struct ga_pw *w, const struct ga_node *n)
{
	ga_pw_family(w, "gpuaudit_ib_port_active", "gauge", NULL,
	             "1 when the InfiniBand/RoCE port is ACTIVE, else 0 (state in the label).");
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		const struct ga_ib_port *p = &n->ib_ports[i];
		if (!p->state_code.set)
			continue;
		ga_pw_begin(w);
		port_labels(w, p);
		ga_pw_label(w, "state", p->state ? p->state : "");
		ga_pw_label(w, "link_layer", p->link_layer ? p->link_layer : "");
		ga_pw_value(w, p->state_code.v == 4 || p->state_code.v == 5);
	}
	ga_pw_family(w, "gpuaudit_ib_port_rate_bytes_per_second", "gauge", NULL,
	             "The port's signalling rate (sysfs rate: 200 Gb/sec is 2.5e10 bytes/s).");
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		const struct ga_ib_port *p = &n->ib_ports[i];
		if (!p->rate_mbps.set)
			continue;
		ga_pw_begin(w);
		port_labels(w, p);
		ga_pw_value(w, (double)p->rate_mbps.v * 1e6 / 8);
	}
	port_family(w, n, "gpuaudit_ib_port_width_lanes", "gauge", NULL,
	            "Lanes the port trained at (1X, 2X, 4X ...).", offsetof(struct ga_ib_port, width));
	for (size_t k = 0; k < sizeof(port_counters) / sizeof(port_counters[0]); k++)
		port_family(w, n, port_counters[k].name, "counter", NULL, port_counters[k].help,
		            port_counters[k].off);
	ga_pw_family(w, "gpuaudit_ib_port_hw_events_total", "counter", NULL,
	             "The port's error-related hw_counters (mlx5 names, a fixed list), by counter.");
	for (size_t i = 0; i < n->n_ib_ports; i++) {
		const struct ga_ib_port *p = &n->ib_ports[i];
		for (size_t k = 0; k < p->n_hw_counters; k++) {
			if (!p->hw_counters[k].value.set)
				continue;
			ga_pw_begin(w);
			port_labels(w, p);
			ga_pw_label(w, "counter", p->hw_counters[k].name);
			ga_pw_valueu(w, p->hw_counters[k].value.v);
		}
	}
}

static void render_xgmi(struct ga_pw *w, const struct ga_node *n)
{
	ga_pw_family(w, "gpuaudit_gpu_xgmi_hive_members", "gauge", NULL,
	             "GPUs in this AMD GPU's XGMI hive, as its xgmi_hive_info lists them.");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->amd || !a->amd->xgmi || !a->amd->xgmi->hive_members.set)
			continue;
		ga_pw_begin(w);
		ga_pw_labelu(w, "gpu", a->index.set ? a->index.v : i);
		ga_pw_label(w, "pci_address", a->address ? a->address : "");
		ga_pw_valueu(w, a->amd->xgmi->hive_members.v);
	}
	ga_pw_family(w, "gpuaudit_gpu_xgmi_errors", "gauge", NULL,
	             "XGMI link errors since the previous read of xgmi_error (reading clears it).");
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->amd || !a->amd->xgmi || !a->amd->xgmi->error_count.set)
			continue;
		ga_pw_begin(w);
		ga_pw_labelu(w, "gpu", a->index.set ? a->index.v : i);
		ga_pw_label(w, "pci_address", a->address ? a->address : "");
		ga_pw_valueu(w, a->amd->xgmi->error_count.v);
	}
}

void ga_prom_render_ib(struct ga_pw *w, const struct ga_node *n)
{
	if (n->n_ib_ports)
		render_ports(w, n);
	render_xgmi(w, n);
	if (n->fabric_manager && n->fabric_manager->running.set) {
		ga_pw_family(w, "gpuaudit_fabric_manager_running", "gauge", NULL,
		             "1 when nv-fabricmanager runs (its pid file's process), 0 when not.");
		ga_pw_begin(w);
		ga_pw_value(w, n->fabric_manager->running.v);
	}
}
