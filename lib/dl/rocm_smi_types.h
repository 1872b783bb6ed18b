/*
 * rocm_smi_types.h - the subset of ROCm SMI (librocm_smi64.so.1) that
 * lib/collect/rocm_smi.c calls, declared here so that no ROCm header is
 * needed to build. Enums are declared as their underlying integer type
 * (rsmi_status_t holds 0xFFFFFFFF, so unsigned int), which C treats as
 * compatible; tests/unit/test_vendor_decls.c compiles these next to Debian's
 * rocm_smi/rocm_smi.h (librocm-smi-dev) when installed and checks every
 * function type, constant and the version struct's layout.
 */
#ifndef GA_ROCM_SMI_TYPES_H
#define GA_ROCM_SMI_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned int ga_rsmi_status_t;             /* enum rsmi_status_t */
typedef unsigned int ga_rsmi_memory_type_t;        /* enum rsmi_memory_type_t */
typedef unsigned int ga_rsmi_temperature_metric_t; /* enum rsmi_temperature_metric_t */

#define GA_RSMI_STATUS_SUCCESS 0
#define GA_RSMI_MEM_TYPE_VRAM 0
#define GA_RSMI_TEMP_TYPE_EDGE 0
#define GA_RSMI_TEMP_CURRENT 0

typedef struct {
	uint32_t major;
	uint32_t minor;
	uint32_t patch;
	const char *build;
} ga_rsmi_version_t;

typedef ga_rsmi_status_t (*ga_rsmi_init_fn)(uint64_t);
typedef ga_rsmi_status_t (*ga_rsmi_shut_down_fn)(void);
typedef ga_rsmi_status_t (*ga_rsmi_num_monitor_devices_fn)(uint32_t *);
typedef ga_rsmi_status_t (*ga_rsmi_status_string_fn)(ga_rsmi_status_t, const char **);
typedef ga_rsmi_status_t (*ga_rsmi_version_get_fn)(ga_rsmi_version_t *);
typedef ga_rsmi_status_t (*ga_rsmi_dev_pci_id_get_fn)(uint32_t, uint64_t *);
typedef ga_rsmi_status_t (*ga_rsmi_dev_name_get_fn)(uint32_t, char *, size_t);
typedef ga_rsmi_status_t (*ga_rsmi_dev_memory_total_get_fn)(uint32_t, ga_rsmi_memory_type_t, uint64_t *);
typedef ga_rsmi_status_t (*ga_rsmi_dev_memory_usage_get_fn)(uint32_t, ga_rsmi_memory_type_t, uint64_t *);
typedef ga_rsmi_status_t (*ga_rsmi_dev_busy_percent_get_fn)(uint32_t, uint32_t *);
typedef ga_rsmi_status_t (*ga_rsmi_dev_temp_metric_get_fn)(uint32_t, uint32_t, ga_rsmi_temperature_metric_t,
                                                           int64_t *);
typedef ga_rsmi_status_t (*ga_rsmi_dev_power_ave_get_fn)(uint32_t, uint32_t, uint64_t *);

#endif
