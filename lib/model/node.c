/*
 * node.c - the node snapshot model: field tables, lifecycle, JSON in/out,
 * and the small value parsers shared by collectors and readers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "../core/internal.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/node.h"

#define S(st, m) GA_FIELD(st, m, GA_F_STR)
#define U(st, m) GA_FIELD(st, m, GA_F_U64)
#define I(st, m) GA_FIELD(st, m, GA_F_I64)
#define D(st, m) GA_FIELD(st, m, GA_F_DBL)
#define B(st, m) GA_FIELD(st, m, GA_F_BOOL)
#define V(st, m) GA_FIELD(st, m, GA_F_STRV)
#define SCHEMA(var, st, tbl) \
	static const struct ga_schema var = { #st, sizeof(struct st), tbl, GA_ARRAY_SIZE(tbl) }

static const struct ga_field os_f[] = { S(struct ga_os, id), S(struct ga_os, version_id),
	                                S(struct ga_os, pretty_name) };
SCHEMA(os_s, ga_os, os_f);

static const struct ga_field virt_f[] = {
	S(struct ga_virt, dmi_sys_vendor),      S(struct ga_virt, dmi_product_name),
	S(struct ga_virt, dmi_product_version), S(struct ga_virt, dmi_board_name),
	S(struct ga_virt, dmi_bios_vendor),     S(struct ga_virt, dmi_bios_version),
	S(struct ga_virt, hypervisor),          S(struct ga_virt, container),
	B(struct ga_virt, cpu_hypervisor_flag),
};
SCHEMA(virt_s, ga_virt, virt_f);

static const struct ga_field host_f[] = {
	S(struct ga_host, hostname),
	S(struct ga_host, kernel_release),
	S(struct ga_host, kernel_version),
	GA_FIELD_OBJ(struct ga_host, os, os_s),
	S(struct ga_host, boot_id),
	D(struct ga_host, uptime_s),
	GA_FIELD_OBJ(struct ga_host, virt, virt_s),
	S(struct ga_host, cmdline),
	V(struct ga_host, gpu_cmdline_flags),
	GA_FIELD_OMIT(struct ga_host, glibc, GA_F_STR),
	GA_FIELD_OMIT(struct ga_host, libstdcxx, GA_F_STR),
};
SCHEMA(host_s, ga_host, host_f);

static const struct ga_field numa_f[] = {
	U(struct ga_numa_node, id),      S(struct ga_numa_node, cpulist),
	U(struct ga_numa_node, cpus),    U(struct ga_numa_node, mem_total_bytes),
	B(struct ga_numa_node, cpuless), GA_FIELD_U64V(struct ga_numa_node, distances),
	S(struct ga_numa_node, kind)
};
SCHEMA(numa_s, ga_numa_node, numa_f);

static const struct ga_field core_kind_f[] = { S(struct ga_core_kind, kind), S(struct ga_core_kind, cpulist),
	                                       U(struct ga_core_kind, count) };
SCHEMA(core_kind_s, ga_core_kind, core_kind_f);

static const struct ga_field cpu_f[] = {
	S(struct ga_cpu, arch),
	S(struct ga_cpu, vendor),
	S(struct ga_cpu, model_name),
	U(struct ga_cpu, family),
	U(struct ga_cpu, model),
	U(struct ga_cpu, sockets),
	U(struct ga_cpu, cores),
	U(struct ga_cpu, threads),
	S(struct ga_cpu, isa_level),
	U(struct ga_cpu, mem_total_bytes),
	U(struct ga_cpu, hugepages_total),
	U(struct ga_cpu, hugepage_size_bytes),
	GA_FIELD_ARR(struct ga_cpu, numa_nodes, numa_s),
	U(struct ga_cpu, dies),
	U(struct ga_cpu, clusters),
	U(struct ga_cpu, cpus_present),
	S(struct ga_cpu, online),
	S(struct ga_cpu, offline),
	S(struct ga_cpu, isolated),
	S(struct ga_cpu, cpuset),
	GA_FIELD_ARR(struct ga_cpu, core_kinds, core_kind_s),
	U(struct ga_cpu, implementer),
	U(struct ga_cpu, part),
	V(struct ga_cpu, isa_features),
};
SCHEMA(cpu_s, ga_cpu, cpu_f);

static const struct ga_field link_f[] = { D(struct ga_link, cur_speed_gts), U(struct ga_link, cur_width),
	                                  D(struct ga_link, max_speed_gts), U(struct ga_link, max_width) };
SCHEMA(link_s, ga_link, link_f);

static const struct ga_field hop_f[] = { S(struct ga_pci_hop, address),
	                                 S(struct ga_pci_hop, id),
	                                 GA_FIELD_OBJ(struct ga_pci_hop, link, link_s),
	                                 S(struct ga_pci_hop, pcie_port_type),
	                                 U(struct ga_pci_hop, acs_ctl),
	                                 V(struct ga_pci_hop, acs_ctl_flags) };
SCHEMA(hop_s, ga_pci_hop, hop_f);

static const struct ga_field pci_f[] = {
	S(struct ga_pci_dev, address),
	S(struct ga_pci_dev, kind),
	U(struct ga_pci_dev, vendor_id),
	U(struct ga_pci_dev, device_id),
	U(struct ga_pci_dev, subsystem_vendor_id),
	U(struct ga_pci_dev, subsystem_device_id),
	U(struct ga_pci_dev, class_code),
	S(struct ga_pci_dev, class_name),
	U(struct ga_pci_dev, revision),
	S(struct ga_pci_dev, vendor_name),
	S(struct ga_pci_dev, device_name),
	S(struct ga_pci_dev, driver),
	I(struct ga_pci_dev, numa_node),
	S(struct ga_pci_dev, local_cpulist),
	S(struct ga_pci_dev, iommu_group),
	GA_FIELD_OBJ(struct ga_pci_dev, link, link_s),
	D(struct ga_pci_dev, path_min_speed_gts),
	U(struct ga_pci_dev, path_min_width),
	S(struct ga_pci_dev, path_min_at),
	U(struct ga_pci_dev, path_capable_width),
	D(struct ga_pci_dev, path_capable_speed_gts),
	GA_FIELD_ARR(struct ga_pci_dev, upstream, hop_s),
	V(struct ga_pci_dev, net_interfaces),
	V(struct ga_pci_dev, rdma_devices),
	U(struct ga_pci_dev, net_speed_mbps),
	U(struct ga_pci_dev, config_bytes),
	V(struct ga_pci_dev, capabilities),
	B(struct ga_pci_dev, config_cap_loop),
	S(struct ga_pci_dev, pcie_port_type),
	U(struct ga_pci_dev, pcie_cap_version),
	GA_FIELD_OBJ(struct ga_pci_dev, link_config, link_s),
	B(struct ga_pci_dev, link_from_config),
	S(struct ga_pci_dev, link_aspm),
	S(struct ga_pci_dev, link_aspm_support),
	U(struct ga_pci_dev, acs_cap),
	U(struct ga_pci_dev, acs_ctl),
	V(struct ga_pci_dev, acs_ctl_flags),
	U(struct ga_pci_dev, aer_uncor_status),
	U(struct ga_pci_dev, aer_uncor_mask),
	U(struct ga_pci_dev, aer_uncor_severity),
	U(struct ga_pci_dev, aer_cor_status),
	U(struct ga_pci_dev, aer_cor_mask),
	U(struct ga_pci_dev, aer_correctable),
	U(struct ga_pci_dev, aer_nonfatal),
	U(struct ga_pci_dev, aer_fatal),
};
SCHEMA(pci_s, ga_pci_dev, pci_f);

static const struct ga_field mig_inst_f[] = {
	U(struct ga_nvml_mig_instance, gpu_instance_id),
	U(struct ga_nvml_mig_instance, compute_instance_id),
	S(struct ga_nvml_mig_instance, name),
	S(struct ga_nvml_mig_instance, uuid),
	U(struct ga_nvml_mig_instance, memory_total_bytes),
};
SCHEMA(mig_inst_s, ga_nvml_mig_instance, mig_inst_f);

static const struct ga_field mig_prof_f[] = {
	U(struct ga_nvml_mig_profile, id),
	S(struct ga_nvml_mig_profile, name),
	U(struct ga_nvml_mig_profile, slice_count),
	U(struct ga_nvml_mig_profile, instance_count),
	U(struct ga_nvml_mig_profile, multiprocessor_count),
	U(struct ga_nvml_mig_profile, memory_mb),
};
SCHEMA(mig_prof_s, ga_nvml_mig_profile, mig_prof_f);

static const struct ga_field nvlink_f[] = {
	U(struct ga_nvml_link, link),
	B(struct ga_nvml_link, active),
	S(struct ga_nvml_link, remote_bus_id),
	S(struct ga_nvml_link, remote_type),
	U(struct ga_nvml_link, version),
	U(struct ga_nvml_link, replay_errors),
	U(struct ga_nvml_link, recovery_errors),
	U(struct ga_nvml_link, crc_flit_errors),
	U(struct ga_nvml_link, crc_data_errors),
};
SCHEMA(nvlink_s, ga_nvml_link, nvlink_f);

#define G struct ga_nvml_gpu
static const struct ga_field nvml_gpu_f[] = {
	U(G, index),
	S(G, name),
	S(G, uuid),
	S(G, serial),
	S(G, pci_bus_id),
	U(G, pci_device_id),
	U(G, minor),
	U(G, memory_total_bytes),
	U(G, memory_used_bytes),
	U(G, memory_free_bytes),
	S(G, compute_capability),
	B(G, persistence_mode),
	B(G, mig_enabled),
	B(G, mig_pending),
	GA_FIELD_ARR(G, mig_instances, mig_inst_s),
	GA_FIELD_ARR(G, mig_profiles, mig_prof_s),
	B(G, ecc_enabled),
	B(G, ecc_pending),
	U(G, ecc_corrected_volatile),
	U(G, ecc_uncorrected_volatile),
	U(G, ecc_corrected_aggregate),
	U(G, ecc_uncorrected_aggregate),
	U(G, retired_pages_sbe),
	U(G, retired_pages_dbe),
	B(G, retired_pages_pending),
	U(G, remapped_rows_correctable),
	U(G, remapped_rows_uncorrectable),
	B(G, remap_pending),
	B(G, remap_failure),
	U(G, clock_sm_mhz),
	U(G, clock_sm_max_mhz),
	U(G, clock_mem_mhz),
	U(G, clock_mem_max_mhz),
	U(G, clock_event_reasons),
	V(G, clock_event_names),
	U(G, temperature_c),
	U(G, power_usage_mw),
	U(G, power_limit_mw),
	U(G, utilization_gpu_pct),
	U(G, utilization_memory_pct),
	U(G, pcie_gen),
	U(G, pcie_gen_max),
	U(G, pcie_width),
	U(G, pcie_width_max),
	U(G, pcie_tx_kbps),
	U(G, pcie_rx_kbps),
	U(G, pcie_replay_count),
	GA_FIELD_ARR(G, nvlinks, nvlink_s),
	S(G, fabric_state),
	I(G, fabric_status),
	S(G, fabric_status_text),
	U(G, fabric_clique_id),
	S(G, fabric_cluster_uuid),
	U(G, fabric_health_mask),
	S(G, fabric_health_summary),
	V(G, fabric_health_flags),
	V(G, topology),
	S(G, error),
	I(G, error_code),
	V(G, call_errors),
};
#undef G
SCHEMA(nvml_gpu_s, ga_nvml_gpu, nvml_gpu_f);

static const struct ga_field nvml_f[] = {
	S(struct ga_nvml, library),
	S(struct ga_nvml, driver_version),
	S(struct ga_nvml, cuda_driver_version),
	S(struct ga_nvml, nvml_version),
	U(struct ga_nvml, device_count),
	S(struct ga_nvml, error),
	S(struct ga_nvml, error_call),
	I(struct ga_nvml, error_code),
	B(struct ga_nvml, timed_out),
	V(struct ga_nvml, missing_symbols),
};
SCHEMA(nvml_s, ga_nvml, nvml_f);

static const struct ga_field nvml_report_f[] = {
	GA_FIELD_OBJ(struct ga_nvml_report, sys, nvml_s),
	GA_FIELD_ARR(struct ga_nvml_report, gpus, nvml_gpu_s),
};
const struct ga_schema ga_nvml_report_schema = { "ga_nvml_report", sizeof(struct ga_nvml_report),
	                                         nvml_report_f, GA_ARRAY_SIZE(nvml_report_f) };

static const struct ga_field ras_f[] = { S(struct ga_amd_ras_block, block), U(struct ga_amd_ras_block, ue),
	                                 U(struct ga_amd_ras_block, ce), U(struct ga_amd_ras_block, de) };
SCHEMA(ras_s, ga_amd_ras_block, ras_f);

static const struct ga_field xgmi_f[] = {
	S(struct ga_amd_xgmi, device_id), U(struct ga_amd_xgmi, physical_id),
	S(struct ga_amd_xgmi, hive_id),   U(struct ga_amd_xgmi, hive_members),
	V(struct ga_amd_xgmi, num_links), U(struct ga_amd_xgmi, error_count),
};
SCHEMA(xgmi_s, ga_amd_xgmi, xgmi_f);

#define A struct ga_amd_info
static const struct ga_field amd_f[] = {
	U(A, gpu_busy_pct),      U(A, mem_busy_pct),      U(A, vram_total_bytes),
	U(A, vram_used_bytes),   U(A, gtt_total_bytes),   U(A, gtt_used_bytes),
	U(A, pcie_replay_count), S(A, unique_id),         S(A, serial_number),
	S(A, product_number),    S(A, compute_partition), S(A, memory_partition),
	U(A, temp_edge_mc),      U(A, temp_junction_mc),  U(A, temp_mem_mc),
	U(A, power_uw),          U(A, power_cap_uw),      GA_FIELD_ARR(A, ras, ras_s),
	U(A, bad_pages),         V(A, unsupported),       GA_FIELD_PTR(A, xgmi, xgmi_s),
};
#undef A
SCHEMA(amd_s, ga_amd_info, amd_f);

static const struct ga_field intel_f[] = {
	U(struct ga_intel_info, freq_cur_mhz),     U(struct ga_intel_info, freq_act_mhz),
	U(struct ga_intel_info, freq_max_mhz),     U(struct ga_intel_info, freq_min_mhz),
	U(struct ga_intel_info, lmem_total_bytes), U(struct ga_intel_info, lmem_avail_bytes),
	U(struct ga_intel_info, energy_uj),        U(struct ga_intel_info, power_max_uw),
};
SCHEMA(intel_s, ga_intel_info, intel_f);

static const struct ga_field rsmi_gpu_f[] = {
	U(struct ga_rocm_smi_gpu, index),
	S(struct ga_rocm_smi_gpu, pci_bus_id),
	S(struct ga_rocm_smi_gpu, name),
	U(struct ga_rocm_smi_gpu, vram_total_bytes),
	U(struct ga_rocm_smi_gpu, vram_used_bytes),
	U(struct ga_rocm_smi_gpu, busy_pct),
	U(struct ga_rocm_smi_gpu, temp_edge_mc),
	U(struct ga_rocm_smi_gpu, power_uw),
};
SCHEMA(rsmi_gpu_s, ga_rocm_smi_gpu, rsmi_gpu_f);

static const struct ga_field rsmi_f[] = {
	S(struct ga_rocm_smi, library),      S(struct ga_rocm_smi, version),
	U(struct ga_rocm_smi, device_count), S(struct ga_rocm_smi, error),
	S(struct ga_rocm_smi, error_call),   I(struct ga_rocm_smi, error_code),
	B(struct ga_rocm_smi, timed_out),    GA_FIELD_ARR(struct ga_rocm_smi, gpus, rsmi_gpu_s),
};
const struct ga_schema ga_rocm_smi_schema = { "ga_rocm_smi", sizeof(struct ga_rocm_smi), rsmi_f,
	                                      GA_ARRAY_SIZE(rsmi_f) };

static const struct ga_field accel_f[] = {
	U(struct ga_accel, index),
	S(struct ga_accel, vendor),
	S(struct ga_accel, model),
	S(struct ga_accel, address),
	S(struct ga_accel, driver),
	S(struct ga_accel, driver_version),
	U(struct ga_accel, memory_bytes),
	I(struct ga_accel, numa_node),
	S(struct ga_accel, uuid),
	U(struct ga_accel, minor),
	S(struct ga_accel, vbios_version),
	S(struct ga_accel, gfx_target),
	U(struct ga_accel, tiles),
	B(struct ga_accel, excluded),
	V(struct ga_accel, device_nodes),
	V(struct ga_accel, missing_nodes),
	V(struct ga_accel, interconnect),
	GA_FIELD_PTR(struct ga_accel, nvml, nvml_gpu_s),
	GA_FIELD_PTR(struct ga_accel, amd, amd_s),
	GA_FIELD_PTR(struct ga_accel, intel, intel_s),
	GA_FIELD_PTR(struct ga_accel, rocm_smi, rsmi_gpu_s),
};
SCHEMA(accel_s, ga_accel, accel_f);

static const struct ga_field driver_f[] = {
	S(struct ga_driver, name),
	S(struct ga_driver, version),
	S(struct ga_driver, proc_version),
	S(struct ga_driver, module_version),
	S(struct ga_driver, flavor),
	B(struct ga_driver, loaded),
	/* left out when the node has no DKMS tree of the module (older snapshots, most nodes) */
	GA_FIELD_OMIT(struct ga_driver, dkms_tree, GA_F_STR),
	GA_FIELD_OMIT(struct ga_driver, dkms_installed, GA_F_STRV),
	GA_FIELD_OMIT(struct ga_driver, module_file, GA_F_STR),
	GA_FIELD_OMIT(struct ga_driver, module_file_version, GA_F_STR),
};
SCHEMA(driver_s, ga_driver, driver_f);

static const struct ga_field rt_f[] = { S(struct ga_runtime, name), S(struct ga_runtime, version),
	                                S(struct ga_runtime, path), S(struct ga_runtime, target) };
SCHEMA(rt_s, ga_runtime, rt_f);

/* --- container layer (the collector: lib/collect/ctr-runtime.c; docs/schema/node.md) --- */
static const struct ga_field ctr_pkg_f[] = { S(struct ga_ctr_package, name),
	                                     S(struct ga_ctr_package, version),
	                                     S(struct ga_ctr_package, source) };
SCHEMA(ctr_pkg_s, ga_ctr_package, ctr_pkg_f);

static const struct ga_field ctr_tk_f[] = {
	S(struct ga_ctr_toolkit, vendor),
	B(struct ga_ctr_toolkit, installed),
	S(struct ga_ctr_toolkit, version),
	V(struct ga_ctr_toolkit, binaries),
	GA_FIELD_ARR(struct ga_ctr_toolkit, packages, ctr_pkg_s),
	S(struct ga_ctr_toolkit, config),
	S(struct ga_ctr_toolkit, config_error),
	S(struct ga_ctr_toolkit, mode),
	V(struct ga_ctr_toolkit, low_level_runtimes),
	B(struct ga_ctr_toolkit, no_cgroups),
	B(struct ga_ctr_toolkit, load_kmods),
	S(struct ga_ctr_toolkit, ldconfig),
	B(struct ga_ctr_toolkit, ldconfig_found),
	S(struct ga_ctr_toolkit, user),
};
const struct ga_schema ga_ctr_toolkit_schema = { "ga_ctr_toolkit", sizeof(struct ga_ctr_toolkit), ctr_tk_f,
	                                         GA_ARRAY_SIZE(ctr_tk_f) };

static const struct ga_field ctr_oci_f[] = {
	S(struct ga_ctr_oci_runtime, name),   S(struct ga_ctr_oci_runtime, binary),
	S(struct ga_ctr_oci_runtime, vendor), B(struct ga_ctr_oci_runtime, binary_found),
	S(struct ga_ctr_oci_runtime, source),
};
SCHEMA(ctr_oci_s, ga_ctr_oci_runtime, ctr_oci_f);

static const struct ga_field ctr_eng_f[] = {
	S(struct ga_ctr_engine, name),
	S(struct ga_ctr_engine, binary),
	S(struct ga_ctr_engine, config),
	V(struct ga_ctr_engine, config_files),
	U(struct ga_ctr_engine, config_version),
	S(struct ga_ctr_engine, config_error),
	S(struct ga_ctr_engine, default_runtime),
	GA_FIELD_ARR(struct ga_ctr_engine, runtimes, ctr_oci_s),
	B(struct ga_ctr_engine, wired),
	B(struct ga_ctr_engine, default_nvidia),
	B(struct ga_ctr_engine, cdi_enabled),
	B(struct ga_ctr_engine, device_ownership_from_security_context),
	B(struct ga_ctr_engine, cri_disabled),
};
SCHEMA(ctr_eng_s, ga_ctr_engine, ctr_eng_f);

static const struct ga_field ctr_dev_f[] = {
	S(struct ga_ctr_device, path),  S(struct ga_ctr_device, type),   S(struct ga_ctr_device, mode),
	U(struct ga_ctr_device, uid),   U(struct ga_ctr_device, gid),    S(struct ga_ctr_device, owner),
	S(struct ga_ctr_device, group), S(struct ga_ctr_device, source),
};
SCHEMA(ctr_dev_s, ga_ctr_device, ctr_dev_f);

static const struct ga_field ctr_f[] = {
	GA_FIELD_ARR(struct ga_container_runtime, toolkits, ga_ctr_toolkit_schema),
	GA_FIELD_ARR(struct ga_container_runtime, engines, ctr_eng_s),
	GA_FIELD_ARR(struct ga_container_runtime, devices, ctr_dev_s),
};
const struct ga_schema ga_container_runtime_schema = { "ga_container_runtime",
	                                               sizeof(struct ga_container_runtime), ctr_f,
	                                               GA_ARRAY_SIZE(ctr_f) };

static const struct ga_field ib_counter_f[] = { S(struct ga_ib_counter, name),
	                                        U(struct ga_ib_counter, value) };
SCHEMA(ib_counter_s, ga_ib_counter, ib_counter_f);

#define P struct ga_ib_port
static const struct ga_field ib_port_f[] = {
	S(P, device),
	U(P, port),
	S(P, pci_address),
	I(P, numa_node),
	S(P, netdev),
	S(P, hca_type),
	S(P, fw_ver),
	S(P, node_guid),
	S(P, link_layer),
	S(P, state),
	U(P, state_code),
	S(P, phys_state),
	U(P, phys_state_code),
	S(P, rate),
	U(P, rate_mbps),
	U(P, width),
	S(P, speed),
	U(P, link_downed),
	U(P, link_error_recovery),
	U(P, symbol_error),
	U(P, port_rcv_errors),
	U(P, port_rcv_remote_physical_errors),
	U(P, port_xmit_discards),
	U(P, local_link_integrity_errors),
	U(P, excessive_buffer_overrun_errors),
	GA_FIELD_ARR(P, hw_counters, ib_counter_s),
};
#undef P
SCHEMA(ib_port_s, ga_ib_port, ib_port_f);

static const struct ga_field gap_f[] = { S(struct ga_gap, path), S(struct ga_gap, reason) };
SCHEMA(gap_s, ga_gap, gap_f);

static const struct ga_field source_f[] = { S(struct ga_source, source), S(struct ga_source, path),
	                                    S(struct ga_source, state), S(struct ga_source, reason) };
SCHEMA(source_s, ga_source, source_f);

/* --- container layer: CDI specs, device plugins (docs/schema/node.md) --- */
static const struct ga_field cdi_dev_f[] = { S(struct ga_cdi_device, name),
	                                     V(struct ga_cdi_device, device_nodes) };
SCHEMA(cdi_dev_s, ga_cdi_device, cdi_dev_f);

static const struct ga_field cdi_spec_f[] = {
	S(struct ga_cdi_spec, path),
	S(struct ga_cdi_spec, format),
	S(struct ga_cdi_spec, cdi_version),
	S(struct ga_cdi_spec, kind),
	S(struct ga_cdi_spec, error),
	S(struct ga_cdi_spec, driver_version),
	GA_FIELD_ARR(struct ga_cdi_spec, devices, cdi_dev_s),
	V(struct ga_cdi_spec, device_nodes),
	V(struct ga_cdi_spec, libraries),
	V(struct ga_cdi_spec, mounts),
	V(struct ga_cdi_spec, hooks),
	V(struct ga_cdi_spec, missing),
};
SCHEMA(cdi_spec_s, ga_cdi_spec, cdi_spec_f);

static const struct ga_field cdi_mig_f[] = { U(struct ga_cdi_mig, gpu_minor), U(struct ga_cdi_mig, gi),
	                                     U(struct ga_cdi_mig, ci) };
SCHEMA(cdi_mig_s, ga_cdi_mig, cdi_mig_f);

static const struct ga_field cdi_f[] = {
	V(struct ga_cdi, dirs),
	GA_FIELD_ARR(struct ga_cdi, specs, cdi_spec_s),
	GA_FIELD_ARR(struct ga_cdi, mig_devices, cdi_mig_s),
};
void ga_cdi_spec_release(struct ga_cdi_spec *s)
{
	ga_schema_release(&cdi_spec_s, s);
}

const struct ga_schema ga_cdi_schema = { "ga_cdi", sizeof(struct ga_cdi), cdi_f, GA_ARRAY_SIZE(cdi_f) };

static const struct ga_field dp_res_f[] = { S(struct ga_dp_resource, name), V(struct ga_dp_resource, devices),
	                                    U(struct ga_dp_resource, allocated) };
SCHEMA(dp_res_s, ga_dp_resource, dp_res_f);

static const struct ga_field dp_f[] = {
	S(struct ga_device_plugins, dir),
	B(struct ga_device_plugins, kubelet_socket),
	V(struct ga_device_plugins, sockets),
	S(struct ga_device_plugins, checkpoint),
	S(struct ga_device_plugins, checkpoint_error),
	U(struct ga_device_plugins, pod_entries),
	GA_FIELD_ARR(struct ga_device_plugins, resources, dp_res_s),
};
const struct ga_schema ga_device_plugins_schema = { "ga_device_plugins", sizeof(struct ga_device_plugins),
	                                            dp_f, GA_ARRAY_SIZE(dp_f) };
static const struct ga_field fm_f[] = {
	S(struct ga_fabric_manager, unit_file),
	S(struct ga_fabric_manager, pid_file),
	U(struct ga_fabric_manager, pid),
	B(struct ga_fabric_manager, running),
	S(struct ga_fabric_manager, nvlsm_pid_file),
	B(struct ga_fabric_manager, nvlsm_running),
};
SCHEMA(fm_s, ga_fabric_manager, fm_f);

static const struct ga_field node_f[] = {
	S(struct ga_node, schema),
	GA_FIELD_OBJ(struct ga_node, host, host_s),
	GA_FIELD_OBJ(struct ga_node, cpu, cpu_s),
	U(struct ga_node, accelerator_count),
	GA_FIELD_ARR(struct ga_node, accelerators, accel_s),
	GA_FIELD_ARR(struct ga_node, drivers, driver_s),
	V(struct ga_node, modules),
	S(struct ga_node, modules_source),
	V(struct ga_node, device_nodes),
	GA_FIELD_ARR(struct ga_node, runtimes, rt_s),
	GA_FIELD_ARR(struct ga_node, pci, pci_s),
	GA_FIELD_ARR(struct ga_node, gaps, gap_s),
	GA_FIELD_ARR_FL(struct ga_node, coverage, source_s, GA_FF_OMIT), /* left out: older snapshots */
	GA_FIELD_PTR(struct ga_node, nvml, nvml_s),
	GA_FIELD_PTR(struct ga_node, rocm_smi, ga_rocm_smi_schema),
	GA_FIELD_PTR_OMIT(struct ga_node, container_runtime, ga_container_runtime_schema),
	GA_FIELD_PTR_OMIT(struct ga_node, cdi, ga_cdi_schema),
	GA_FIELD_PTR_OMIT(struct ga_node, device_plugins, ga_device_plugins_schema),
	GA_FIELD_PTR_OMIT(struct ga_node, fabric_manager, fm_s), /* only on NVSwitch systems */
	GA_FIELD_ARR(struct ga_node, ib_ports, ib_port_s),
};
const struct ga_schema ga_node_schema = { "ga_node", sizeof(struct ga_node), node_f, GA_ARRAY_SIZE(node_f) };

struct ga_node *ga_node_new(void)
{
	struct ga_node *n = ga_calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->schema = ga_strdup(GA_NODE_SCHEMA);
	if (!n->schema) {
		ga_free(n);
		return NULL;
	}
	return n;
}

void ga_node_free(struct ga_node *n)
{
	if (!n)
		return;
	ga_schema_release(&ga_node_schema, n);
	ga_free(n);
}

/* The path each recorded source is read from (the fallback through gaps). */
static const struct {
	const char *source, *path;
} source_paths[] = {
	{ GA_SOURCE_PCI, GA_SOURCE_PCI_PATH },
	{ "cpu", "proc/cpuinfo" },
	{ "memory", "proc/meminfo" },
	{ "kernel", "proc/sys/kernel/osrelease" },
};

enum ga_source_state ga_node_source_state(const struct ga_node *n, const char *source, const char **ret_path,
                                          const char **ret_reason)
{
	const char *path = NULL, *reason = NULL;
	enum ga_source_state st = GA_SOURCE_READ;
	const struct ga_source *e = NULL;
	for (size_t i = 0; i < n->n_coverage && !e; i++)
		if (n->coverage[i].source && !strcmp(n->coverage[i].source, source))
			e = &n->coverage[i];
	if (e) {
		path = e->path;
		reason = e->reason;
		st = !e->state || !strcmp(e->state, "read") ? GA_SOURCE_READ
		     : !strcmp(e->state, "missing")         ? GA_SOURCE_MISSING
		                                            : GA_SOURCE_UNREADABLE;
	} else {
		for (size_t i = 0; i < GA_ARRAY_SIZE(source_paths) && !path; i++)
			if (!strcmp(source_paths[i].source, source))
				path = source_paths[i].path;
		for (size_t i = 0; path && i < n->n_gaps; i++)
			if (n->gaps[i].path && !strcmp(n->gaps[i].path, path)) {
				reason = n->gaps[i].reason ? n->gaps[i].reason : "unreadable";
				st = !strcmp(reason, "missing") ? GA_SOURCE_MISSING : GA_SOURCE_UNREADABLE;
			}
	}
	if (ret_path)
		*ret_path = path;
	if (ret_reason)
		*ret_reason = st == GA_SOURCE_READ ? NULL : reason ? reason : "unreadable";
	return st;
}

bool ga_node_pci_known(const struct ga_node *n)
{
	return ga_node_source_state(n, GA_SOURCE_PCI, NULL, NULL) == GA_SOURCE_READ;
}

const struct ga_pci_dev *ga_node_pci_find(const struct ga_node *n, const char *addr)
{
	for (size_t i = 0; addr && i < n->n_pci; i++)
		if (n->pci[i].address && !strcmp(n->pci[i].address, addr))
			return &n->pci[i];
	return NULL;
}

const struct ga_driver *ga_node_driver(const struct ga_node *n, const char *name)
{
	for (size_t i = 0; i < n->n_drivers; i++)
		if (n->drivers[i].name && !strcmp(n->drivers[i].name, name))
			return &n->drivers[i];
	return NULL;
}

const struct ga_runtime *ga_node_runtime(const struct ga_node *n, const char *name)
{
	for (size_t i = 0; i < n->n_runtimes; i++)
		if (n->runtimes[i].name && !strcmp(n->runtimes[i].name, name))
			return &n->runtimes[i];
	return NULL;
}

const struct ga_runtime *ga_node_nvidia_userspace(const struct ga_node *n)
{
	const struct ga_runtime *lib = ga_node_runtime(n, "libnvidia-ml");
	if (!lib || !lib->version)
		lib = ga_node_runtime(n, "libcuda");
	return lib && lib->version ? lib : NULL;
}

int ga_node_write_json(const struct ga_node *n, struct ga_json *w)
{
	ga_schema_write(w, &ga_node_schema, n);
	return w->err;
}

struct node_findings {
	struct ga_findings findings;
};
static const struct ga_field node_findings_f[] = { GA_FIELD_FINDINGS(struct node_findings, findings) };
static const struct ga_schema node_findings_s = { "node_findings", sizeof(struct node_findings),
	                                          node_findings_f, GA_ARRAY_SIZE(node_findings_f) };

int ga_node_write_with_findings(const struct ga_node *n, const struct ga_findings *f, struct ga_json *w)
{
	struct node_findings nf = { *f };
	ga_json_obj_begin(w);
	ga_schema_write_members(w, &ga_node_schema, n);
	ga_schema_write_members(w, &node_findings_s, &nf);
	ga_json_obj_end(w);
	return w->err;
}

int ga_node_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_node **ret_node)
{
	json_t *root = NULL;
	int pr = ga_json_parse(ctx, text, len, JSON_REJECT_DUPLICATES, &root, NULL);
	if (pr < 0)
		return pr;
	int r = 0;
	struct ga_node *n = NULL;
	const json_t *schema = json_object_get(root, "schema");
	if (!json_is_string(schema)) {
		r = ga_err(ctx, -EBADMSG, "not a node snapshot: no \"schema\" member");
		goto out;
	}
	if (strcmp(json_string_value(schema), GA_NODE_SCHEMA) != 0) {
		r = ga_err(ctx, -EBADMSG, "unsupported schema \"%s\" (this build reads %s)",
		           json_string_value(schema), GA_NODE_SCHEMA);
		goto out;
	}
	n = ga_calloc(1, sizeof(*n));
	if (!n) {
		r = -ENOMEM;
		goto out;
	}
	r = ga_schema_read(ctx, &ga_node_schema, root, n);
	if (r < 0)
		goto out;
	/* a snapshot written before the count was recorded: known whenever its PCI was read */
	if (!n->accelerator_count.set && ga_node_pci_known(n))
		GA_SET(n->accelerator_count, n->n_accelerators);
	*ret_node = n;
	n = NULL;
out:
	ga_node_free(n);
	json_decref(root);
	return r;
}

int ga_node_load(struct ga_ctx *ctx, const char *file, struct ga_node **ret_node)
{
	/* --from names a file of the user's, not a path under --root. */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	FILE *f = stdin;
	if (strcmp(file, "-")) { /* a FIFO or device is refused, not waited on ("-" streams) */
		int fd = -1;
		int e = ga_file_open_input(ctx, file, &fd);
		if (e < 0)
			return e;
		if (!(f = fdopen(fd, "rb"))) {
			close(fd);
			return ga_err(ctx, -ENOMEM, "%s: %s", file, strerror(ENOMEM));
		}
	}
	char chunk[65536];
	size_t got;
	int r = 0;
	errno = 0;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + got > ga_ctx_max_file(ctx)) {
			r = ga_err(ctx, -EFBIG, "%s: larger than %zu bytes", file, ga_ctx_max_file(ctx));
			break;
		}
		r = ga_buf_add(&b, chunk, got);
		if (r < 0)
			break;
	}
	if (r == 0 && ferror(f))
		r = ga_err(ctx, errno ? -errno : -EIO, "%s: %s", file,
		           errno ? strerror(errno) : "read error");
	if (f != stdin)
		fclose(f);
	if (r == 0)
		r = ga_node_from_json(ctx, b.data ? b.data : "", b.len, ret_node);
	if (r < 0 && !*ga_ctx_errmsg(ctx))
		ga_err(ctx, r, "%s: %s", file, strerror(-r));
	ga_buf_release(&b);
	return r;
}

size_t ga_pci_path_links(const struct ga_pci_dev *pd, struct ga_pci_link_view *out, size_t max)
{
	size_t n = 0, hops = pd->n_upstream + 1;
	for (size_t i = 0; i < hops && n < max; i += 2) {
		const struct ga_link *lo = i == 0 ? &pd->link : &pd->upstream[i - 1].link;
		const struct ga_link *hi = i < pd->n_upstream ? &pd->upstream[i].link : NULL;
		struct ga_pci_link_view *v = &out[n++];
		v->at = i == 0 ? pd->address : pd->upstream[i - 1].address;
		v->lo = lo;
		v->hi = hi;
		v->cap_width = lo->max_width.set ? lo->max_width.v : 0;
		if (hi && hi->max_width.set && (!v->cap_width || hi->max_width.v < v->cap_width))
			v->cap_width = hi->max_width.v;
		v->cap_speed_gts = lo->max_speed_gts.set ? lo->max_speed_gts.v : -1;
		if (hi && hi->max_speed_gts.set &&
		    (v->cap_speed_gts < 0 || hi->max_speed_gts.v < v->cap_speed_gts))
			v->cap_speed_gts = hi->max_speed_gts.v;
	}
	return n;
}

double ga_pcie_speed_parse(const char *s)
{
	if (!s)
		return -1;
	double v;
	char unit[16] = "";
	/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s"; anything else is unknown */
	char num[32];
	size_t i = 0;
	while (s[i] && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.') && i < sizeof(num) - 1) {
		num[i] = s[i];
		i++;
	}
	num[i] = '\0';
	if (i == 0 || ga_parse_dbl(num, &v) < 0 || v <= 0 || v > 1000)
		return -1;
	const char *rest = s + i;
	while (*rest == ' ')
		rest++;
	size_t k = 0;
	while (rest[k] && rest[k] != ' ' && k < sizeof(unit) - 1) {
		unit[k] = rest[k];
		k++;
	}
	unit[k] = '\0';
	if (strcmp(unit, "GT/s") != 0)
		return -1;
	return v;
}

/*
 * One element of a cpulist ("7" or "0-3"), strictly: digits only (no sign, no blank, as the
 * kernel's %*pbl prints them), a <= b, each below 2^63. *pp moves past the element and its
 * ','; 1 with more to come, 0 at the end (only blanks and newlines left), -1 on bad input.
 */
static int cpulist_next(const char **pp, uint64_t *ra, uint64_t *rb)
{
	const char *p = *pp;
	uint64_t v[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			unsigned dg = (unsigned)(*p - '0');
			if (v[k] > ((uint64_t)INT64_MAX - dg) / 10)
				return -1;
			v[k] = v[k] * 10 + dg;
		}
		if (k == 0) {
			if (*p != '-') {
				v[1] = v[0];
				break;
			}
			p++;
		}
	}
	if (v[1] < v[0])
		return -1;
	*ra = v[0];
	*rb = v[1];
	if (*p == ',') {
		*pp = p + 1;
		return 1;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	*pp = p;
	return *p ? -1 : 0;
}

/* Skip leading blanks; true when nothing else is there (an empty list). */
static bool cpulist_empty(const char **pp)
{
	while (**pp == ' ' || **pp == '\n')
		(*pp)++;
	return !**pp;
}

long ga_cpulist_count(const char *s)
{
	const char *p = s;
	if (cpulist_empty(&p))
		return 0;
	long count = 0;
	for (;;) {
		uint64_t a, b;
		int more = cpulist_next(&p, &a, &b);
		if (more < 0 || b - a >= 1u << 20 || count > (1L << 20))
			return -1;
		count += (long)(b - a + 1);
		if (!more)
			return count;
	}
}

int ga_cpulist_parse(const char *s, uint64_t **ret_words, size_t *ret_nbits)
{
	const char *p = s;
	uint64_t a, b, max = 0;
	bool any = false;
	int more = 1;
	/* pass 1: check the whole list and find the highest id */
	if (!cpulist_empty(&p))
		while (more) {
			more = cpulist_next(&p, &a, &b);
			if (more < 0 || b >= GA_CPULIST_MAX_ID)
				return -EINVAL;
			max = b > max ? b : max;
			any = true;
		}
	if (!any) {
		*ret_words = NULL;
		*ret_nbits = 0;
		return 0;
	}
	size_t nbits = (size_t)max + 1;
	uint64_t *w = ga_calloc((nbits + 63) / 64, sizeof(*w));
	if (!w)
		return -ENOMEM;
	p = s;
	cpulist_empty(&p);
	for (more = 1; more;) {
		more = cpulist_next(&p, &a, &b);
		for (uint64_t k = a; k <= b; k++)
			w[k / 64] |= UINT64_C(1) << (k % 64);
	}
	*ret_words = w;
	*ret_nbits = nbits;
	return 0;
}

int ga_ib_rate_parse(const char *s, double *gbps, uint64_t *width, char speed[8])
{
	/* "%d%s Gb/sec (%dX%s)": the second %s is ".5" for 2.5 and 0.5-step rates */
	const char *p = s;
	char num[16];
	size_t i = 0;
	while (((*p >= '0' && *p <= '9') || *p == '.') && i < sizeof(num) - 1)
		num[i++] = *p++;
	num[i] = '\0';
	double v;
	if (i == 0 || ga_parse_dbl(num, &v) < 0 || !(v > 0) || v > 10000)
		return -EINVAL;
	if (strncmp(p, " Gb/sec (", 9) != 0)
		return -EINVAL;
	p += 9;
	uint64_t w = 0;
	size_t digits = 0;
	while (*p >= '0' && *p <= '9' && digits < 3) {
		w = w * 10 + (uint64_t)(*p++ - '0');
		digits++;
	}
	if (!digits || w < 1 || w > 32 || *p++ != 'X')
		return -EINVAL;
	if (*p == ' ') /* the kernel's speed names carry their space: " NDR" */
		p++;
	char sp[8];
	size_t k = 0;
	while (((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) && k < sizeof(sp) - 1)
		sp[k++] = *p++;
	sp[k] = '\0';
	if (!k || strcmp(p, ")") != 0)
		return -EINVAL;
	*gbps = v;
	*width = w;
	memcpy(speed, sp, k + 1);
	return 0;
}

int ga_ib_state_parse(const char *s, uint64_t *code, char name[32])
{
	const char *p = s;
	uint64_t c = 0;
	size_t digits = 0;
	while (*p >= '0' && *p <= '9' && digits < 3) {
		c = c * 10 + (uint64_t)(*p++ - '0');
		digits++;
	}
	if (!digits || *p++ != ':' || *p++ != ' ')
		return -EINVAL;
	size_t len = strlen(p);
	if (len == 0 || len >= 32)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return -EINVAL;
	*code = c;
	memcpy(name, p, len + 1);
	return 0;
}
