/*
 * sample.h - raw counters of one point in time (proc/stat, proc/pressure,
 * proc/meminfo, proc/diskstats, sys/class/net, amdgpu busy percentages) and
 * the rates between two such points, for `gpuaudit record`.
 *
 * Reading (lib/collect/sample.c) goes through the context's root-relative
 * reader; the rate computation (lib/analyze/rates.c) is pure: two raw samples
 * and an interval in, one rate sample out. Every value carries a presence
 * bit: a counter that went backwards (wrap or reset), a zero interval or a
 * device that was not there at the previous point gives null, never 0.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in sample-read.h (collect), sample-analyze.h (analyze).
 */
#ifndef GPUAUDIT_SAMPLE_H
#define GPUAUDIT_SAMPLE_H

#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_SAMPLE_SCHEMA "gpuaudit.sample/v1"
#define GA_SAMPLE_NAME_MAX 64

/* Resources of proc/pressure/, in this order. */
enum { GA_PSI_CPU, GA_PSI_IO, GA_PSI_MEMORY, GA_PSI_N };

/* --- raw counters ------------------------------------------------------------ */

/* One "cpu" / "cpuN" line of proc/stat, in USER_HZ ticks. */
struct ga_cpu_raw {
	char name[GA_SAMPLE_NAME_MAX]; /* "cpu" (total) or "cpuN" */
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* One line ("some" or "full") of a proc/pressure file. */
struct ga_psi_line_raw {
	bool set;
	double avg10; /* percent */
	uint64_t total_us;
};
struct ga_psi_raw {
	struct ga_psi_line_raw some, full;
};

struct ga_mem_raw {
	struct ga_ou64 total_bytes, available_bytes, cached_bytes, dirty_bytes;
};

/* One proc/diskstats line. */
struct ga_disk_raw {
	char name[GA_SAMPLE_NAME_MAX];
	uint64_t reads, read_sectors, read_ms, writes, write_sectors, write_ms, io_ticks_ms;
};

/* sys/class/net/<if>/statistics; a file that cannot be read is absent. */
struct ga_net_raw {
	char name[GA_SAMPLE_NAME_MAX];
	struct ga_ou64 rx_bytes, tx_bytes, rx_packets, tx_packets;
	struct ga_ou64 rx_dropped, tx_dropped, rx_errors, tx_errors;
};

/* A DRM card (sys/class/drm/cardN) and its amdgpu busy percentages. */
struct ga_gpu_raw {
	char card[GA_SAMPLE_NAME_MAX];
	char address[GA_SAMPLE_NAME_MAX]; /* PCI address of device/, "" when unknown */
	char vendor[16];                  /* device/vendor, e.g. "0x1002", "" when unknown */
	struct ga_oi64 gpu_busy_pct, mem_busy_pct;
};

struct ga_sample_raw {
	struct ga_cpu_raw *cpus; /* proc/stat order: "cpu" first when present */
	size_t n_cpus;
	struct ga_psi_raw psi[GA_PSI_N];
	struct ga_mem_raw mem;
	struct ga_disk_raw *disks;
	size_t n_disks;
	struct ga_net_raw *nets;
	size_t n_nets;
	struct ga_gpu_raw *gpus;
	size_t n_gpus;
};

/* --- rates between two points ------------------------------------------------ */

/* Percent of the interval's ticks; user includes nice, system includes irq and softirq. */
struct ga_cpu_rate {
	char name[GA_SAMPLE_NAME_MAX];
	struct ga_odbl user_pct, system_pct, iowait_pct, steal_pct, idle_pct;
};

struct ga_psi_line_rate {
	struct ga_odbl avg10;          /* the current point's avg10 */
	struct ga_ou64 total_delta_us; /* stall time in the interval */
};
struct ga_psi_rate {
	struct ga_psi_line_rate some, full;
};

struct ga_disk_rate {
	char name[GA_SAMPLE_NAME_MAX];
	struct ga_odbl reads_per_s, writes_per_s, read_bytes_per_s, write_bytes_per_s;
	struct ga_odbl await_ms; /* mean time per completed I/O; null when none completed */
	struct ga_odbl util_pct; /* io_ticks / interval, capped at 100 */
};

struct ga_net_rate {
	char name[GA_SAMPLE_NAME_MAX];
	struct ga_odbl rx_bytes_per_s, tx_bytes_per_s, rx_packets_per_s, tx_packets_per_s;
	struct ga_ou64 rx_dropped, tx_dropped, rx_errors, tx_errors; /* in the interval */
};

struct ga_sample {
	double interval_s;
	struct ga_cpu_rate total; /* the "cpu" line; name "" and all null when absent */
	struct ga_cpu_rate *cores;
	size_t n_cores;
	struct ga_psi_rate psi[GA_PSI_N];
	struct ga_mem_raw mem; /* the current point's values */
	struct ga_disk_rate *disks;
	size_t n_disks;
	struct ga_net_rate *nets;
	size_t n_nets;
	struct ga_gpu_raw *gpus; /* the current point's values */
	size_t n_gpus;
};

/* --- the document: one gpuaudit.sample/v1 line (lib/model/sample.c) ---------- */

struct ga_sample_time {
	struct ga_odbl mono_s;     /* since the first point, rounded to ms */
	struct ga_odbl interval_s; /* since the previous point */
	char *wall;                /* UTC, ISO 8601 with ms; NULL in a fixture replay */
};
struct ga_sample_cpu {
	struct ga_cpu_rate total; /* written without its name */
	struct ga_cpu_rate *cores;
	size_t n_cores;
};
/* One GPU as NVML saw it at this point (record --nvml): the live counters. */
struct ga_sample_nvml_gpu {
	struct ga_ou64 index;
	char *address;
	char *error;
	struct ga_ou64 utilization_gpu_pct, utilization_memory_pct, memory_used_bytes;
	struct ga_ou64 pcie_rx_kbps, pcie_tx_kbps, power_usage_mw, clock_sm_mhz, clock_mem_mhz;
	struct ga_ou64 temperature_c;
	struct ga_strv clock_event_names;
};
struct ga_sample_nvml {
	char *error;
	struct ga_obool timed_out; /* always written (false when NVML answered) */
	struct ga_sample_nvml_gpu *gpus;
	size_t n_gpus;
};
struct ga_sample_doc {
	char *schema; /* GA_SAMPLE_SCHEMA */
	struct ga_ou64 seq;
	struct ga_sample_time time;
	struct ga_sample_cpu cpu;
	struct ga_psi_rate pressure[GA_PSI_N]; /* written as {cpu, io, memory} */
	struct ga_mem_raw memory;
	struct ga_disk_rate *disks;
	size_t n_disks;
	struct ga_net_rate *net;
	size_t n_net;
	struct ga_gpu_raw *accelerators;
	size_t n_accelerators;
	struct ga_sample_nvml *nvml; /* NULL: NVML not asked for */
};
extern const struct ga_schema ga_sample_doc_schema;

/*
 * The line for sample s (its arrays move into d: s is left empty) at point
 * seq, mono_s seconds after the first, wall clock wall (NULL: none). d is
 * zeroed first; release with ga_sample_doc_release. 0 or -ENOMEM.
 */
int ga_sample_doc_take(struct ga_sample_doc *d, struct ga_sample *s, uint64_t seq, double mono_s,
                       const char *wall);
/* NVML's report into d->nvml, moving its strings (nv is left to release). 0 or -ENOMEM. */
struct ga_nvml_report;
int ga_sample_doc_take_nvml(struct ga_sample_doc *d, struct ga_nvml_report *nv);
/*
 * Read one line (JSON text, no newline needed). On anything that is not a
 * gpuaudit.sample/v1 object the message in ctx is "not a gpuaudit.sample/v1
 * line", with the JSON parser's reason after ": " when the text is not JSON
 * or a member has the wrong type. 0, -EBADMSG or -ENOMEM (d is left empty then).
 */
int ga_sample_doc_read(struct ga_ctx *ctx, const char *text, size_t len, struct ga_sample_doc *d);
/*
 * ga_sample_doc_read for a line of a recording file. LAST_UNTERMINATED: this
 * is the file's last line and it has no newline, what a kill or a full disk
 * in the middle of record's write leaves; when such a line does not parse it
 * is cut, not bad: 1 (skip it; the warning is in ctx), and d is empty. Else as
 * ga_sample_doc_read.
 */
int ga_sample_doc_read_line(struct ga_ctx *ctx, const char *text, size_t len, bool last_unterminated,
                            struct ga_sample_doc *d);
void ga_sample_doc_release(struct ga_sample_doc *d);

#ifdef __cplusplus
}
#endif
#endif
