/*
 * triage.h - the "GPUs are slow" playbook (`gpuaudit triage`): five steps in
 * order, each with evidence and a decision. Pure: it takes the node snapshot,
 * its findings (snapshot + kernel log) and a series of sample points reduced
 * to what the playbook looks at, and fills a fixed-size result. No I/O; the
 * playbook allocates nothing (only its report, ga_triage_report_take, does).
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in triage-read.h (collect), triage-analyze.h (analyze).
 */
#ifndef GPUAUDIT_TRIAGE_H
#define GPUAUDIT_TRIAGE_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thresholds (docs/triage.md). */
#define GA_TRIAGE_GPU_BUSY_LOW 50.0  /* mean gpu_busy_pct below: underutilized */
#define GA_TRIAGE_MEM_BUSY_HIGH 70.0 /* mean mem_busy_pct above with compute low: memory-bound */
#define GA_TRIAGE_DISK_UTIL_HIGH 90.0
#define GA_TRIAGE_IOWAIT_HIGH 20.0
#define GA_TRIAGE_IDLE_LOW 5.0

/* One sample interval, reduced: means over cards, maxima over disks, sums over NICs. */
struct ga_triage_point {
	struct ga_odbl gpu_busy_pct, mem_busy_pct; /* mean over cards that report it */
	struct ga_odbl iowait_pct, idle_pct;       /* cpu.total */
	struct ga_odbl disk_util_pct;              /* the busiest disk */
	struct ga_odbl disk_await_ms;              /* that disk's await */
	char disk[64];
	struct ga_ou64 net_drops, net_errors; /* rx+tx over all interfaces in the interval */
	char net_if[64];                      /* the first interface with drops or errors */
	bool nvml_asked, nvml_failed;         /* the line's NVML member: present; its error set */
};

#define GA_TRIAGE_EV_MAX 10
#define GA_TRIAGE_STEPS 5

struct ga_triage_ev {
	const char *key;
	char value[96];
};

struct ga_triage_step {
	int step;            /* 1..5 */
	const char *title;   /* the question */
	const char *verdict; /* "ok", "problem", "workload", "unknown", "n/a", "skipped" */
	struct ga_triage_ev ev[GA_TRIAGE_EV_MAX];
	size_t n_ev;
	char decision[320];
};

struct ga_triage {
	struct ga_triage_step steps[GA_TRIAGE_STEPS];
	size_t n_steps;
	bool node_at_fault; /* step 1, 3 or 4 found a node-side problem */
	/* nothing at fault, but the playbook could not conclude: the node has no
	 * accelerators, step 1 lacked the kernel log, or step 2 the utilization */
	bool inconclusive;
	bool no_accelerators; /* the snapshot has none: the device steps do not apply */
	bool pci_unknown;     /* its PCI devices were not read: the accelerators are unknown, not absent */
	char reason[400];     /* inconclusive: why, and what to do */
};

/* The kernel log step 1 looks at: what was read, or why none was (the step is then unknown). */
struct ga_triage_klog {
	const char *source;  /* what was read; NULL when none */
	const char *missing; /* why none was read and what to do; NULL when one was */
};

/* The workload's process (--pid): what its status and environment say; NULL = unknown. */
struct ga_triage_workload {
	long pid;
	const char *cpus_allowed;       /* Cpus_allowed_list of proc/PID/status */
	const char *nccl_socket_ifname; /* NCCL_SOCKET_IFNAME */
	const char *nccl_ib_hca;        /* NCCL_IB_HCA */
	/* CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES: accelerator
	 * indexes ("0,1"); UUIDs or MIG names are ignored (all GPUs count then) */
	const char *visible_devices;
};

/* One sample line reduced to a point: means over cards (amdgpu busy and NVML utilization),
 * the busiest disk, NIC drops and errors summed. */
struct ga_sample_doc;

/* The workload as read under the context's root (lib/collect/workload.c); w points into it. */
#define GA_WORKLOAD_ENV_MAX 256
struct ga_workload {
	struct ga_triage_workload w;
	char *cpus;
	char ifname[GA_WORKLOAD_ENV_MAX], hca[GA_WORKLOAD_ENV_MAX], visible[GA_WORKLOAD_ENV_MAX];
};

/* --- `triage --json`: gpuaudit.triage/v1 (tables in lib/model/triage.c) --- */

#define GA_TRIAGE_SCHEMA "gpuaudit.triage/v1"

struct ga_triage_doc_step {
	struct ga_oi64 step; /* 1..5 */
	char *title, *verdict;
	struct ga_kv *evidence;
	size_t n_evidence;
	char *decision;
};
struct ga_triage_report {
	char *schema;           /* GA_TRIAGE_SCHEMA */
	char *result;           /* "node-at-fault", "node-ok" or "inconclusive" */
	char *reason;           /* "inconclusive": why and what to do; NULL otherwise */
	struct ga_ou64 samples; /* sample intervals looked at */
	struct ga_triage_doc_step *steps;
	size_t n_steps;
	struct ga_findings findings;
};
extern const struct ga_schema ga_triage_report_schema;

#ifdef __cplusplus
}
#endif
#endif
