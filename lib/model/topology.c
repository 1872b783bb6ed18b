/*
 * topology.c - the schema tables of the topology matrix (topology.h): the member
 * "topology" of `discover --json` is written through them (docs/schema/node.md).
 */
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/schema.h"
#include "gpuaudit/topology.h"

#define F(m, t) GA_FIELD(struct ga_topo_device, m, t)
static const struct ga_field device_f[] = {
	F(name, GA_F_STR),       F(kind, GA_F_STR),         F(pci_address, GA_F_STR),  F(vendor, GA_F_STR),
	F(model, GA_F_STR),      F(net_devices, GA_F_STRV), F(host_bridge, GA_F_STR),  F(bridges, GA_F_STRV),
	F(numa_node, GA_F_I64),  F(numa_note, GA_F_STR),    F(cpu_affinity, GA_F_STR), F(paths, GA_F_STRV),
	F(links_from, GA_F_STR),
};
#undef F
static const struct ga_schema device_s = { "ga_topo_device", sizeof(struct ga_topo_device), device_f,
	                                   GA_ARRAY_SIZE(device_f) };

static const struct ga_field topology_f[] = {
	GA_FIELD(struct ga_topology, accelerators, GA_F_U64),
	GA_FIELD_ARR(struct ga_topology, devices, device_s),
};
const struct ga_schema ga_topology_schema = { "ga_topology", sizeof(struct ga_topology), topology_f,
	                                      GA_ARRAY_SIZE(topology_f) };

void ga_topology_release(struct ga_topology *t)
{
	if (!t)
		return;
	ga_schema_release(&ga_topology_schema, t);
	*t = (struct ga_topology){ 0 };
}
