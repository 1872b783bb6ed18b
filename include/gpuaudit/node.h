/*
 * node.h - the node snapshot (schema "gpuaudit.node/v1"): plain data that
 * describes one machine and its accelerators. Collectors fill it; analyzers
 * read it; it serialises to JSON and reads back (--from FILE), so a snapshot
 * recorded on a real GPU node is a test input forever after.
 *
 * Units are in the names (_bytes, _gts, _s). A value that was not read is
 * absent (presence bit clear / NULL), never 0.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in node-read.h (collect).
 */
#ifndef GPUAUDIT_NODE_H
#define GPUAUDIT_NODE_H

#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_NODE_SCHEMA "gpuaudit.node/v1"

struct ga_os {
	char *id;
	char *version_id;
	char *pretty_name;
};

struct ga_virt {
	char *dmi_sys_vendor;
	char *dmi_product_name;
	char *dmi_product_version;
	char *dmi_board_name;
	char *dmi_bios_vendor;
	char *dmi_bios_version;
	char *hypervisor; /* "kvm", "vmware", ... from DMI; NULL on bare metal */
	char *container;  /* "docker", "podman", "kubernetes", ...; NULL when none seen */
	struct ga_obool cpu_hypervisor_flag;
};

struct ga_host {
	char *hostname;
	char *kernel_release;
	char *kernel_version;
	struct ga_os os;
	char *boot_id;
	struct ga_odbl uptime_s;
	struct ga_virt virt;
	char *cmdline;
	struct ga_strv gpu_cmdline_flags; /* iommu=, pci=, nvidia.*, amdgpu.*, ... */
	/* The loader's libraries under the root (issue 19): glibc as libc.so.6's highest GLIBC_
	 * version ("2.36"), libstdc++ as libstdc++.so.6's highest GLIBCXX_ ("3.4.30"); NULL (left
	 * out) when not found. What `deps --for` judges symbol versions against. */
	char *glibc;
	char *libstdcxx;
};

struct ga_numa_node {
	struct ga_ou64 id;
	char *cpulist;
	struct ga_ou64 cpus;
	struct ga_ou64 mem_total_bytes;
	struct ga_obool cpuless;  /* no CPUs (cpulist empty): GPU memory, CXL or a memory-only tier */
	struct ga_u64v distances; /* nodeN/distance, one per node in numa_nodes order */
	char *kind;               /* "dram" (has CPUs), "gpu", "cxl", "memory" (CPU-less, unknown) */
};

/* One kind of core on a hybrid CPU (Intel P/E cores, Arm big/little by MIDR or capacity). */
struct ga_core_kind {
	char *kind; /* "core", "atom", "lowpower", an Arm part name, or "capacity-<max>" */
	char *cpulist;
	struct ga_ou64 count;
};

struct ga_cpu {
	char *arch;
	char *vendor;
	char *model_name;
	struct ga_ou64 family;
	struct ga_ou64 model;
	struct ga_ou64 sockets;
	struct ga_ou64 cores;
	struct ga_ou64 threads;
	char *isa_level; /* "x86-64-v1".."x86-64-v4", "armv8.0-a".."armv9.0-a", "power9" */
	struct ga_ou64 mem_total_bytes;
	struct ga_ou64 hugepages_total;
	struct ga_ou64 hugepage_size_bytes;
	struct ga_numa_node *numa_nodes;
	size_t n_numa_nodes;
	/* sysfs topology (lib/collect/cputopo.c); sockets/cores/threads above count ONLINE CPUs */
	struct ga_ou64 dies;
	struct ga_ou64 clusters;
	struct ga_ou64 cpus_present;
	char *online; /* cpulists as the kernel prints them ("" = empty) */
	char *offline;
	char *isolated;
	char *cpuset; /* CPUs this process may use: cgroup cpuset.cpus.effective, else Cpus_allowed_list */
	struct ga_core_kind *core_kinds; /* empty unless the CPU has more than one kind of core */
	size_t n_core_kinds;
	struct ga_ou64 implementer; /* aarch64 MIDR_EL1 implementer and part number */
	struct ga_ou64 part;
	struct ga_strv
	        isa_features; /* the ISA extensions that matter to compute code, as the kernel names them */
};

struct ga_link {
	struct ga_odbl cur_speed_gts;
	struct ga_ou64 cur_width;
	struct ga_odbl max_speed_gts;
	struct ga_ou64 max_width;
};

/* One hop above a device: a bridge or port and its link. */
struct ga_pci_hop {
	char *address;
	char *id; /* "1000:c010" */
	struct ga_link link;
	/* From the hop's configuration space (sysfs `config`), absent without it: */
	char *pcie_port_type;         /* "root_port", "downstream_port", ... (ga_pci_dev) */
	struct ga_ou64 acs_ctl;       /* ACS Control register */
	struct ga_strv acs_ctl_flags; /* its set bits: "ReqRedir", "CmpltRedir", ... */
};

struct ga_pci_dev {
	char *address; /* "0000:07:00.0" */
	char *kind;    /* "accelerator", "nvswitch", "nic", "nvme", "display" */
	struct ga_ou64 vendor_id;
	struct ga_ou64 device_id;
	struct ga_ou64 subsystem_vendor_id;
	struct ga_ou64 subsystem_device_id;
	struct ga_ou64 class_code; /* 0x030200 */
	char *class_name;          /* "3D controller" */
	struct ga_ou64 revision;
	char *vendor_name;
	char *device_name;
	char *driver;
	struct ga_oi64 numa_node;
	char *local_cpulist;
	char *iommu_group;
	struct ga_link link;
	/* The slowest link on the way to the root complex, this device's included. */
	struct ga_odbl path_min_speed_gts;
	struct ga_ou64 path_min_width;
	char *path_min_at;
	/* Expected width: min of the max widths of both ends of each hop. */
	struct ga_ou64 path_capable_width;
	struct ga_odbl path_capable_speed_gts;
	struct ga_pci_hop *upstream;
	size_t n_upstream;
	struct ga_strv net_interfaces; /* NICs: netdev names */
	struct ga_strv rdma_devices;   /* NICs: mlx5_0 ... */
	struct ga_ou64 net_speed_mbps;
	/* From configuration space (sysfs `config`, lib/collect/pciconf.c); absent without it.
	 * The capability registers need 256 bytes: a process without CAP_SYS_ADMIN reads 64. */
	struct ga_ou64 config_bytes;     /* bytes read: 64 unprivileged, 256 or 4096 as root */
	struct ga_strv capabilities;     /* ids in list order: "10" ..., extended "ext:0001" ... */
	struct ga_obool config_cap_loop; /* a capability list pointed back into itself: cut */
	char *pcie_port_type;            /* "endpoint", "legacy_endpoint", "root_port",
	                                 * "upstream_port", "downstream_port",
	                                 * "pcie_to_pci_bridge", "pci_to_pcie_bridge",
	                                 * "rc_integrated_endpoint", "rc_event_collector" */
	struct ga_ou64 pcie_cap_version;
	struct ga_link link_config;       /* Link Capabilities / Status decoded as sysfs does */
	struct ga_obool link_from_config; /* `link` (some of it) came from config: no sysfs file */
	char *link_aspm;                  /* Link Control: "disabled", "l0s", "l1", "l0s_l1" */
	char *link_aspm_support;          /* Link Capabilities: the same names */
	struct ga_ou64 acs_cap;           /* ACS Capability and Control registers */
	struct ga_ou64 acs_ctl;
	struct ga_strv acs_ctl_flags;    /* "SrcValid", "ReqRedir", "CmpltRedir", ... */
	struct ga_ou64 aer_uncor_status; /* AER registers (error bits latched since cleared) */
	struct ga_ou64 aer_uncor_mask;
	struct ga_ou64 aer_uncor_severity;
	struct ga_ou64 aer_cor_status;
	struct ga_ou64 aer_cor_mask;
	/* AER counters since boot: sysfs aer_dev_correctable / _nonfatal / _fatal TOTAL_ERR_* */
	struct ga_ou64 aer_correctable;
	struct ga_ou64 aer_nonfatal;
	struct ga_ou64 aer_fatal;
};

/* --- NVML view (collected in an isolated helper process, merged by PCI address) --- */

struct ga_nvml_mig_instance {
	struct ga_ou64 gpu_instance_id;
	struct ga_ou64 compute_instance_id;
	char *name; /* MIG device name, e.g. "NVIDIA A100-SXM4-40GB MIG 3g.20gb" */
	char *uuid;
	struct ga_ou64 memory_total_bytes;
};

struct ga_nvml_mig_profile {
	struct ga_ou64 id;
	char *name;
	struct ga_ou64 slice_count;
	struct ga_ou64 instance_count;
	struct ga_ou64 multiprocessor_count;
	struct ga_ou64 memory_mb;
};

struct ga_nvml_link {
	struct ga_ou64 link;
	struct ga_obool active;
	char *remote_bus_id;
	char *remote_type; /* "gpu", "switch", "ibmnpu", "unknown" */
	struct ga_ou64 version;
	/* nvmlDeviceGetNvLinkErrorCounter, since the driver loaded; absent when not supported */
	struct ga_ou64 replay_errors;
	struct ga_ou64 recovery_errors;
	struct ga_ou64 crc_flit_errors;
	struct ga_ou64 crc_data_errors;
};

struct ga_nvml_gpu {
	struct ga_ou64 index;
	char *name;
	char *uuid;
	char *serial;
	char *pci_bus_id;             /* normalised to sysfs form: "0000:07:00.0" */
	struct ga_ou64 pci_device_id; /* (device << 16) | vendor */
	struct ga_ou64 minor;
	struct ga_ou64 memory_total_bytes;
	struct ga_ou64 memory_used_bytes;
	struct ga_ou64 memory_free_bytes;
	char *compute_capability; /* "9.0" */
	struct ga_obool persistence_mode;
	struct ga_obool mig_enabled;
	struct ga_obool mig_pending;
	struct ga_nvml_mig_instance *mig_instances;
	size_t n_mig_instances;
	struct ga_nvml_mig_profile *mig_profiles;
	size_t n_mig_profiles;
	struct ga_obool ecc_enabled;
	struct ga_obool ecc_pending;
	struct ga_ou64 ecc_corrected_volatile;
	struct ga_ou64 ecc_uncorrected_volatile;
	struct ga_ou64 ecc_corrected_aggregate;
	struct ga_ou64 ecc_uncorrected_aggregate;
	struct ga_ou64 retired_pages_sbe;
	struct ga_ou64 retired_pages_dbe;
	struct ga_obool retired_pages_pending;
	struct ga_ou64 remapped_rows_correctable;
	struct ga_ou64 remapped_rows_uncorrectable;
	struct ga_obool remap_pending;
	struct ga_obool remap_failure;
	struct ga_ou64 clock_sm_mhz;
	struct ga_ou64 clock_sm_max_mhz;
	struct ga_ou64 clock_mem_mhz;
	struct ga_ou64 clock_mem_max_mhz;
	struct ga_ou64 clock_event_reasons; /* NVML bit mask */
	struct ga_strv clock_event_names;   /* decoded: "hw_slowdown", "sw_power_cap", ... */
	struct ga_ou64 temperature_c;
	struct ga_ou64 power_usage_mw;
	struct ga_ou64 power_limit_mw;
	struct ga_ou64 utilization_gpu_pct;
	struct ga_ou64 utilization_memory_pct;
	struct ga_ou64 pcie_gen;
	struct ga_ou64 pcie_gen_max;
	struct ga_ou64 pcie_width;
	struct ga_ou64 pcie_width_max;
	struct ga_ou64 pcie_tx_kbps;
	struct ga_ou64 pcie_rx_kbps;
	struct ga_ou64 pcie_replay_count;
	struct ga_nvml_link *nvlinks;
	size_t n_nvlinks;
	/* GPU fabric (NVSwitch systems, Hopper+): absent where NVML does not support it */
	char *fabric_state;           /* "not_started", "in_progress", "completed" */
	struct ga_oi64 fabric_status; /* NVML return code of the registration, when completed */
	char *fabric_status_text;     /* its text, when not success */
	struct ga_ou64 fabric_clique_id;
	char *fabric_cluster_uuid;
	struct ga_ou64 fabric_health_mask;  /* v2+ */
	char *fabric_health_summary;        /* v3: "healthy", "unhealthy", "limited_capacity" */
	struct ga_strv fabric_health_flags; /* mask fields that are TRUE: "degraded_bw", ... */
	struct ga_strv
	        topology; /* one entry per NVML index: "X", "NV12", "PIX", "PXB", "PHB", "NODE", "SYS" */
	char *error;      /* NVML's text when the device itself failed ("GPU is lost") */
	struct ga_oi64 error_code;
	struct ga_strv call_errors; /* "nvmlDeviceGetSerial: Unknown Error": unexpected per-call failures */
};

struct ga_nvml {
	char *library;
	char *driver_version;
	char *cuda_driver_version; /* "12.4" */
	char *nvml_version;
	struct ga_ou64 device_count;
	char *error;      /* NVML's own text: "Driver/library version mismatch", ... */
	char *error_call; /* the call that failed or was in progress at the deadline */
	struct ga_oi64 error_code;
	struct ga_obool timed_out;
	struct ga_strv missing_symbols; /* optional symbols this driver lacks */
};

/*
 * The fabric daemons of an NVSwitch system, from their files under the root:
 * nvidia-fabricmanager (its systemd unit and pid file) and, on NVLink 5
 * systems, the NVLink subnet manager nvlsm (its pid file). "running": the pid
 * file names a live process of that name (proc/PID/comm); false when the pid
 * file is missing or stale.
 */
struct ga_fabric_manager {
	char *unit_file; /* the nvidia-fabricmanager.service found, NULL when none */
	char *pid_file;  /* the pid file read, NULL when none */
	struct ga_ou64 pid;
	struct ga_obool running;
	char *nvlsm_pid_file; /* NULL when none (not an NVLink 5 system, or not running) */
	struct ga_obool nvlsm_running;
};

/* What the helper process sends back: the system view plus the GPUs. */
struct ga_nvml_report {
	struct ga_nvml sys;
	struct ga_nvml_gpu *gpus;
	size_t n_gpus;
};
extern const struct ga_schema ga_nvml_report_schema;

/* --- amdgpu and i915/xe sysfs depth --- */

/*
 * XGMI (AMD's GPU-to-GPU link) as amdgpu shows it in sysfs (lib/collect/amdgpu.c). The ids
 * are 64-bit numbers kept as the decimal text the driver prints (JSON numbers lose them).
 */
struct ga_amd_xgmi {
	char *device_id;             /* xgmi_device_id: this GPU's node id in the hive */
	struct ga_ou64 physical_id;  /* xgmi_physical_id */
	char *hive_id;               /* xgmi_hive_info/xgmi_hive_id; "0" or absent: no hive */
	struct ga_ou64 hive_members; /* xgmi_hive_info/node<K> entries */
	struct ga_strv num_links;    /* xgmi_num_links: links to each hive node, in node order */
	struct ga_ou64 error_count;  /* xgmi_error: errors since the previous read (read clears) */
};

struct ga_amd_ras_block {
	char *block; /* "umc", "gfx", "sdma", ... */
	struct ga_ou64 ue;
	struct ga_ou64 ce;
	struct ga_ou64 de;
};

struct ga_amd_info {
	struct ga_ou64 gpu_busy_pct;
	struct ga_ou64 mem_busy_pct;
	struct ga_ou64 vram_total_bytes;
	struct ga_ou64 vram_used_bytes;
	struct ga_ou64 gtt_total_bytes;
	struct ga_ou64 gtt_used_bytes;
	struct ga_ou64 pcie_replay_count;
	char *unique_id;
	char *serial_number;
	char *product_number;
	char *compute_partition;
	char *memory_partition;
	struct ga_ou64 temp_edge_mc;
	struct ga_ou64 temp_junction_mc;
	struct ga_ou64 temp_mem_mc;
	struct ga_ou64 power_uw;
	struct ga_ou64 power_cap_uw;
	struct ga_amd_ras_block *ras;
	size_t n_ras;
	struct ga_ou64 bad_pages;
	struct ga_strv unsupported; /* attributes that answered EINVAL/ENODEV/absent */
	struct ga_amd_xgmi *xgmi;   /* NULL when the device shows no xgmi_* attributes */
};

struct ga_intel_info {
	struct ga_ou64 freq_cur_mhz;
	struct ga_ou64 freq_act_mhz;
	struct ga_ou64 freq_max_mhz;
	struct ga_ou64 freq_min_mhz;
	struct ga_ou64 lmem_total_bytes;
	struct ga_ou64 lmem_avail_bytes;
	struct ga_ou64 energy_uj;
	struct ga_ou64 power_max_uw;
};

/* ROCm SMI view (dlopen of librocm_smi64, in the helper process). */
struct ga_rocm_smi_gpu {
	struct ga_ou64 index;
	char *pci_bus_id;
	char *name;
	struct ga_ou64 vram_total_bytes;
	struct ga_ou64 vram_used_bytes;
	struct ga_ou64 busy_pct;
	struct ga_ou64 temp_edge_mc;
	struct ga_ou64 power_uw;
};

struct ga_rocm_smi {
	char *library;
	char *version;
	struct ga_ou64 device_count;
	char *error;
	char *error_call;
	struct ga_oi64 error_code;
	struct ga_obool timed_out;
	struct ga_rocm_smi_gpu *gpus;
	size_t n_gpus;
};
extern const struct ga_schema ga_rocm_smi_schema;

struct ga_accel {
	struct ga_ou64 index;
	char *vendor; /* "nvidia", "amd", "intel", "habana", "other" */
	char *model;
	char *address;
	char *driver;
	char *driver_version;
	struct ga_ou64 memory_bytes;
	struct ga_oi64 numa_node;
	char *uuid;
	struct ga_ou64 minor; /* NVIDIA Device Minor */
	char *vbios_version;
	char *gfx_target;                 /* AMD: "gfx90a" from KFD */
	struct ga_ou64 tiles;             /* Intel: GTs */
	struct ga_obool excluded;         /* NVIDIA "GPU Excluded" */
	struct ga_strv device_nodes;      /* present: "/dev/nvidia0", "/dev/dri/renderD128" */
	struct ga_strv missing_nodes;     /* expected but absent */
	struct ga_strv interconnect;      /* "nvswitch", "xgmi:3", ... */
	struct ga_nvml_gpu *nvml;         /* NVIDIA: NVML's view, NULL when not collected */
	struct ga_amd_info *amd;          /* AMD: amdgpu sysfs depth */
	struct ga_intel_info *intel;      /* Intel: i915/xe sysfs depth */
	struct ga_rocm_smi_gpu *rocm_smi; /* AMD: ROCm SMI's view when collected */
};

struct ga_driver {
	char *name;           /* "nvidia", "amdgpu", "i915", "xe", "habanalabs" */
	char *version;        /* the kernel module's version */
	char *proc_version;   /* NVIDIA: from /proc/driver/nvidia/version */
	char *module_version; /* from /sys/module/<name>/version */
	char *flavor;         /* NVIDIA: "proprietary" or "open" */
	struct ga_obool loaded;
	/* NVIDIA: the DKMS tree of the module ("/var/lib/dkms/nvidia"; NULL: none on the node, or
	 * not readable (a gap), so what DKMS installed for the running kernel is unknown) and the
	 * module versions DKMS has installed for the running kernel (its kernel-<release>-<arch>
	 * links; empty with a tree: none; the module a reboot loads where DKMS provides it) */
	char *dkms_tree;
	struct ga_strv dkms_installed;
	/* NVIDIA: the module file installed for the running kernel (its path in the kernel's
	 * modules.dep, "/lib/modules/<release>/updates/dkms/nvidia.ko.zst") and the version in its
	 * .modinfo: the module a reboot loads, however it was installed (a distribution's package,
	 * DKMS, the .run installer). Read only when the loaded module and the driver libraries
	 * differ on the host (the question it answers); NULL otherwise, or when it could not be read
	 * (a gap) */
	char *module_file;
	char *module_file_version;
};

struct ga_runtime {
	char *name;    /* "libcuda", "libnvidia-ml", "libamdhip64", "rocm", "libze_loader", "opencl-icd" */
	char *version; /* from the file name or version file */
	char *path;
	char *target; /* OpenCL ICD: the library the .icd file names */
};

/* --- container layer: toolkits, engines and their runtimes, device-node access (lib/collect/ctr-runtime.c) --- */

/* A package the toolkit came in, as the package database says (no binary is run). */
struct ga_ctr_package {
	char *name;    /* "nvidia-container-toolkit", "libnvidia-container1", ... */
	char *version; /* "1.17.4-1" */
	char *source;  /* "/var/lib/dpkg/status" */
};

/* A vendor's container toolkit: NVIDIA (nvidia-ctk, nvidia-container-cli, ...) or AMD (amd-ctk). */
struct ga_ctr_toolkit {
	char *vendor; /* "nvidia", "amd" */
	struct ga_obool installed;
	char *version;           /* the toolkit package's version, NULL when no package database says */
	struct ga_strv binaries; /* found: "/usr/bin/nvidia-ctk", ... */
	struct ga_ctr_package *packages;
	size_t n_packages;
	char *config;       /* "/etc/nvidia-container-runtime/config.toml" when present */
	char *config_error; /* "FILE:LINE:COL: what" when the config does not parse */
	char *mode; /* [nvidia-container-runtime] mode as written; NULL = unset (the toolkit's default: auto) */
	struct ga_strv low_level_runtimes; /* [nvidia-container-runtime] runtimes */
	struct ga_obool no_cgroups;        /* [nvidia-container-cli] no-cgroups */
	struct ga_obool load_kmods;        /* [nvidia-container-cli] load-kmods */
	char *ldconfig;                 /* [nvidia-container-cli] ldconfig as written ("@/sbin/ldconfig") */
	struct ga_obool ldconfig_found; /* that file exists on the host (the '@' prefix) */
	char *user;                     /* [nvidia-container-cli] user ("root:video") */
};

/* One OCI runtime an engine is configured with. */
struct ga_ctr_oci_runtime {
	char *name;   /* "nvidia", "runc", ... */
	char *binary; /* BinaryName / path / runtime_path as written; NULL = the engine's own lookup */
	char *vendor; /* "nvidia" (nvidia-container-runtime*), "amd" (amd-container-runtime), NULL */
	struct ga_obool binary_found;
	char *source; /* the file that defines it */
};

/* A container engine on the node and how it is configured. */
struct ga_ctr_engine {
	char *name;   /* "containerd", "docker", "crio" */
	char *binary; /* "/usr/bin/containerd" when found */
	char *config; /* the main configuration file, when present */
	struct ga_strv
	        config_files; /* every file read, in the order the engine merges them (imports, drop-ins) */
	struct ga_ou64 config_version; /* containerd: the config's version (1 when unset) */
	char *config_error;            /* "FILE:LINE:COL: what" for the first file that does not parse */
	char *default_runtime; /* as configured; NULL = the engine's built-in default (runc; CRI-O: its own) */
	struct ga_ctr_oci_runtime *runtimes;
	size_t n_runtimes;
	struct ga_obool wired;          /* an NVIDIA runtime is configured */
	struct ga_obool default_nvidia; /* the default runtime is an NVIDIA runtime */
	struct ga_obool cdi_enabled;    /* containerd enable_cdi, Docker features.cdi */
	struct ga_obool device_ownership_from_security_context; /* containerd / CRI-O */
	struct ga_obool
	        cri_disabled; /* containerd: disabled_plugins holds the CRI plugin (Docker's own containerd) */
};

/* A GPU device node a container needs (/dev/kfd, /dev/dri/renderD*) and who may open it. */
struct ga_ctr_device {
	char *path; /* "/dev/kfd" */
	char *type; /* "char" (a real device node); "file" (a fixture marker) */
	char *mode; /* permission bits, octal: "0660"; NULL when not known */
	struct ga_ou64 uid;
	struct ga_ou64 gid;
	char *owner; /* names from /etc/passwd and /etc/group under the root */
	char *group;
	char *source; /* "stat", or the fixture sidecar "/dev/.fixture-perms" */
};

struct ga_container_runtime {
	struct ga_ctr_toolkit *toolkits;
	size_t n_toolkits;
	struct ga_ctr_engine *engines;
	size_t n_engines;
	struct ga_ctr_device *devices;
	size_t n_devices;
};
extern const struct ga_schema ga_container_runtime_schema;
extern const struct ga_schema ga_ctr_toolkit_schema;

/* --- InfiniBand and RoCE ports (lib/collect/ib.c) --- */

struct ga_ib_counter {
	char *name; /* hw_counters file name: "out_of_sequence", "local_ack_timeout_err", ... */
	struct ga_ou64 value;
};

/*
 * One port of an RDMA device (/sys/class/infiniband/<device>/ports/<port>/). Counters are
 * the PMA PortCounters the kernel prints: narrow (link_downed is 8 bits) and saturating,
 * never wrapping, so a delta between two reads is meaningful until the counter tops out.
 */
struct ga_ib_port {
	char *device;        /* "mlx5_0" */
	struct ga_ou64 port; /* 1-based port number */
	char *pci_address;   /* the device symlink's PCI function, "0000:0c:00.0" */
	struct ga_oi64 numa_node;
	char *netdev;   /* "ibp12s0": device/net/<if>, else ports/N/gid_attrs/ndevs/0 */
	char *hca_type; /* "MT4123" */
	char *fw_ver;
	char *node_guid;
	char *link_layer; /* "InfiniBand", "Ethernet" (RoCE), "Unknown" */
	char *state;      /* "ACTIVE", "DOWN", "INIT", "ARMED", "ACTIVE_DEFER", "NOP" */
	struct ga_ou64 state_code;
	char *phys_state; /* "LinkUp", "Polling", "Disabled", "LinkErrorRecovery", ... */
	struct ga_ou64 phys_state_code;
	char *rate;               /* as read: "400 Gb/sec (4X NDR)" */
	struct ga_ou64 rate_mbps; /* 400 Gb/sec: 400000 */
	struct ga_ou64 width;     /* lanes: 1, 2, 4, 8, 12 */
	char *speed;              /* per-lane generation: "SDR" ... "NDR", "XDR" */
	struct ga_ou64 link_downed;
	struct ga_ou64 link_error_recovery;
	struct ga_ou64 symbol_error;
	struct ga_ou64 port_rcv_errors;
	struct ga_ou64 port_rcv_remote_physical_errors;
	struct ga_ou64 port_xmit_discards;
	struct ga_ou64 local_link_integrity_errors;
	struct ga_ou64 excessive_buffer_overrun_errors;
	struct ga_ib_counter *hw_counters; /* ports/N/hw_counters/: the error ones, where present */
	size_t n_hw_counters;
};

/* Something that could not be read, and why: recorded, never fatal. */
struct ga_gap {
	char *path;
	char *reason;
};

/*
 * One source the collector examined and what came of it (issue 26): coverage is
 * part of the snapshot, so a verdict over a source that was not read says
 * UNKNOWN instead of reading its absence as "none". state is "read",
 * "missing" (the path is not there: /sys not mounted, a tree without it) or
 * "unreadable" (there but could not be listed or read; reason says why).
 */
struct ga_source {
	char *source; /* "pci", "cpu", "memory", "kernel", "modules" */
	char *path;   /* what was read, under the root like a gap's: "sys/bus/pci/devices" */
	char *state;  /* "read", "missing", "unreadable" */
	char *reason; /* the reader's words when not read ("not a directory"); NULL when read */
};

/* --- container layer: CDI specs and kubelet device plugins (lib/collect/cdi.c, devplugin.c) --- */

/*
 * The most of the container layer a snapshot holds: what the readers
 * (container-read.h) take of one spec and of the kubelet's checkpoint.
 */
#define GA_CDI_MAX_SPEC_BYTES (4u << 20)       /* a spec for 8 GPUs is ~20 KiB */
#define GA_CDI_MAX_DEVICES 4096                /* devices[] entries read from one spec */
#define GA_CDI_MAX_PATHS 4096                  /* paths kept per list of a spec */
#define GA_DP_MAX_CHECKPOINT_BYTES (16u << 20) /* the checkpoint of a busy node is a few KiB */

/* One entry of a CDI spec's devices[]. */
struct ga_cdi_device {
	char *name;                  /* "0", "GPU-<uuid>", "0:1", "MIG-<uuid>", "all", "gpu0", "mig0:1" */
	struct ga_strv device_nodes; /* host paths of its deviceNodes (hostPath, else path) */
};

/* One spec file under /etc/cdi or /var/run/cdi. */
struct ga_cdi_spec {
	char *path;        /* "/etc/cdi/nvidia.yaml" */
	char *format;      /* "yaml" or "json" */
	char *cdi_version; /* as written: "0.5.0" */
	char *kind;        /* "nvidia.com/gpu" */
	char *error;       /* why it could not be read or parsed ("FILE:LINE:COL: ..."); NULL when read */
	struct ga_cdi_device *devices;
	size_t n_devices;
	struct ga_strv device_nodes; /* every deviceNode host path, spec-wide and per device */
	struct ga_strv libraries;    /* mount host paths that are shared libraries ("*.so.*") */
	struct ga_strv mounts;       /* the other mount host paths (binaries, firmware, sockets) */
	struct ga_strv hooks;        /* hook paths */
	struct ga_strv missing;      /* host paths of nodes, mounts and hooks absent under the root */
	char *driver_version;        /* the driver it was generated for: libcuda.so.X / libnvidia-ml.so.X */
};

/* A MIG device the NVIDIA driver exposes (/proc/driver/nvidia/capabilities/gpuN/mig/giG/ciC). */
struct ga_cdi_mig {
	struct ga_ou64 gpu_minor;
	struct ga_ou64 gi;
	struct ga_ou64 ci;
};

struct ga_cdi {
	struct ga_strv dirs; /* spec directories present: "/etc/cdi", "/var/run/cdi" */
	struct ga_cdi_spec *specs;
	size_t n_specs;
	struct ga_cdi_mig *mig_devices;
	size_t n_mig_devices;
};

/* One resource of the kubelet's device-plugin checkpoint. */
struct ga_dp_resource {
	char *name;               /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "amd.com/gpu" */
	struct ga_strv devices;   /* device IDs registered (the plugin's healthy devices) */
	struct ga_ou64 allocated; /* distinct device IDs held by containers (PodDeviceEntries) */
};

/* /var/lib/kubelet/device-plugins: the plugins' sockets and the kubelet's checkpoint. */
struct ga_device_plugins {
	char *dir;
	struct ga_obool kubelet_socket; /* kubelet.sock present */
	struct ga_strv sockets;         /* plugin sockets (every other *.sock, and "vendor_resource" names) */
	char *checkpoint;               /* the checkpoint's path; NULL when there is none */
	char *checkpoint_error;         /* why it could not be read or parsed */
	struct ga_ou64 pod_entries;
	struct ga_dp_resource *resources;
	size_t n_resources;
};

extern const struct ga_schema ga_cdi_schema;
extern const struct ga_schema ga_device_plugins_schema;
/* Release what one spec owns (not the struct). */
void ga_cdi_spec_release(struct ga_cdi_spec *s);

struct ga_node {
	char *schema;
	struct ga_host host;
	struct ga_cpu cpu;
	struct ga_pci_dev *pci;
	size_t n_pci;
	/* How many accelerators the PCI bus shows: absent (null) when the PCI devices could
	 * not be read, so an unreadable bus is never "0 accelerators" (coverage says why). */
	struct ga_ou64 accelerator_count;
	struct ga_accel *accelerators;
	size_t n_accelerators;
	struct ga_driver *drivers;
	size_t n_drivers;
	struct ga_strv modules;      /* GPU/NIC-relevant modules loaded */
	char *modules_source;        /* "/proc/modules", "/sys/module", NULL */
	struct ga_strv device_nodes; /* all GPU device nodes seen under /dev */
	struct ga_runtime *runtimes;
	size_t n_runtimes;
	struct ga_gap *gaps;
	size_t n_gaps;
	struct ga_source *coverage; /* what was examined; empty in snapshots written before it */
	size_t n_coverage;
	struct ga_nvml *nvml;         /* NULL when NVML was not attempted */
	struct ga_rocm_smi *rocm_smi; /* NULL when ROCm SMI was not attempted */
	/* Container toolkit, engines, device access; NULL (left out) when the node has none of them. */
	struct ga_container_runtime *container_runtime;
	/* container layer (CDI, device plugins): NULL, and left out, when none of it is on the node */
	struct ga_cdi *cdi;
	struct ga_device_plugins *device_plugins;
	/* NVSwitch systems (NVML reports a GPU fabric state): the fabric daemons; NULL otherwise */
	struct ga_fabric_manager *fabric_manager;
	struct ga_ib_port *ib_ports; /* InfiniBand / RoCE ports, sorted by device then port */
	size_t n_ib_ports;
};

extern const struct ga_schema ga_node_schema;

/* What came of one source of a snapshot (struct ga_source). */
enum ga_source_state {
	GA_SOURCE_READ = 0,
	GA_SOURCE_MISSING,
	GA_SOURCE_UNREADABLE,
};
#define GA_SOURCE_PCI "pci"
#define GA_SOURCE_PCI_PATH "sys/bus/pci/devices"
/*
 * The state of SOURCE ("pci") in N. A snapshot with a coverage entry for it answers from
 * that entry; one without (written before coverage was recorded, or a hand-made --from
 * document) answers from its gaps: a gap at the source's path is missing or unreadable,
 * no gap is read (the collectors always gapped these paths). *ret_path and *ret_reason
 * (either may be NULL) get the path ("sys/bus/pci/devices", no leading slash) and the
 * reason when not read; they point into N or are static.
 */
enum ga_source_state ga_node_source_state(const struct ga_node *n, const char *source, const char **ret_path,
                                          const char **ret_reason);
/* ga_node_source_state(n, "pci", ...) == GA_SOURCE_READ: the accelerator count is known. */
bool ga_node_pci_known(const struct ga_node *n);
/* The PCI function at addr ("0000:07:00.0"), or NULL (addr NULL, or not in the snapshot). */
const struct ga_pci_dev *ga_node_pci_find(const struct ga_node *n, const char *addr);
/* The kernel driver named name ("nvidia", "amdgpu"), or NULL. */
const struct ga_driver *ga_node_driver(const struct ga_node *n, const char *name);
/* The first user-space runtime named name ("libcuda", "rocm"), or NULL. */
const struct ga_runtime *ga_node_runtime(const struct ga_node *n, const char *name);
/* The NVIDIA driver's user-space library whose version is compared with the kernel module's:
 * libnvidia-ml when its version is known, else libcuda; NULL when neither has a version. */
const struct ga_runtime *ga_node_nvidia_userspace(const struct ga_node *n);
/* What to do when the PCI devices were not read (one text for every output). */
#define GA_SOURCE_PCI_FIX \
	"mount /sys (e.g. -v /sys:/sys:ro) or pass --root to a captured tree (gpuaudit capture)"

struct ga_node *ga_node_new(void);
void ga_node_free(struct ga_node *n);

/* Serialise (pretty or compact) and parse back. */
int ga_node_write_json(const struct ga_node *n, struct ga_json *w);
/*
 * `discover --json`: the snapshot with its findings appended as "findings"
 * (the finding table's form). --from reads it as a plain snapshot and
 * recomputes the findings; the member is not part of gpuaudit.node/v1.
 */
struct ga_findings;
int ga_node_write_with_findings(const struct ga_node *n, const struct ga_findings *f, struct ga_json *w);
int ga_node_from_json(struct ga_ctx *ctx, const char *text, size_t len, struct ga_node **ret_node);
int ga_node_load(struct ga_ctx *ctx, const char *file, struct ga_node **ret_node);

/*
 * The PCIe links on the path from a device to its root port. Both ends of a link
 * report it, so the chain device, port, [switch upstream port, port]..., root port
 * pairs up as (device, port), (upstream port, port)...; a switch's own downstream and
 * upstream ports are joined inside the switch, not by a link. cap_* is what the link
 * could train at: the smaller maximum of its two ends (0 / -1 when unknown).
 */
struct ga_pci_link_view {
	const char *at;           /* address of the lower (device-side) end */
	const struct ga_link *lo; /* lower end's view */
	const struct ga_link *hi; /* upper end's view, NULL when the chain ends */
	uint64_t cap_width;
	double cap_speed_gts;
};
size_t ga_pci_path_links(const struct ga_pci_dev *pd, struct ga_pci_link_view *out, size_t max);

/* PCIe speed string ("16.0 GT/s PCIe", "8 GT/s", "Unknown") to GT/s; -1 when unknown. */
double ga_pcie_speed_parse(const char *s);
/* Count CPUs in a cpulist ("0-3,8,10-11"); -1 on malformed input. */
long ga_cpulist_count(const char *s);
/*
 * Parse a cpulist into a bitmap: *ret_words (ga_free) holds (*ret_nbits + 63) / 64 words,
 * *ret_nbits = the highest id + 1 (0 and NULL for an empty list). Ids must stay below
 * GA_CPULIST_MAX_ID. 0, -EINVAL (outputs untouched) or -ENOMEM.
 */
#define GA_CPULIST_MAX_ID (1u << 20)
int ga_cpulist_parse(const char *s, uint64_t **ret_words, size_t *ret_nbits);

/*
 * InfiniBand sysfs values (drivers/infiniband/core/sysfs.c formats). A port's rate,
 * "400 Gb/sec (4X NDR)" or "2.5 Gb/sec (1X SDR)": *gbps in (0, 10000], *width 1..32 and the
 * per-lane speed name (letters and digits, < 8 bytes) into speed[8]. state and phys_state,
 * "4: ACTIVE" / "5: LinkUp" / "7: Phy Test": the code and the name (printable, < 32 bytes)
 * into name[32]. Both return 0, or -EINVAL and leave the outputs untouched.
 */
int ga_ib_rate_parse(const char *s, double *gbps, uint64_t *width, char speed[8]);
int ga_ib_state_parse(const char *s, uint64_t *code, char name[32]);

#ifdef __cplusplus
}
#endif
#endif
