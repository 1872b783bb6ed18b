/*
 * fabric.h - the NVIDIA fabric beyond one snapshot: NVLink error counters
 * compared between two collections, and NVML events (Xid, ECC) as a second
 * Xid source where the kernel log cannot be read (containers without
 * CAP_SYSLOG, dmesg_restrict).
 *
 * The events are waited for in the vendor helper process ("__vendor-helper
 * nvml-events MS"), under the same deadline and kill rules as every other NVML
 * call: a wait that does not return is killed and reported, never a hung agent.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in fabric-read.h (collect), fabric-analyze.h (analyze).
 */
#ifndef GPUAUDIT_FABRIC_H
#define GPUAUDIT_FABRIC_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NVLink error counters of one collection, by GPU (UUID, else PCI address) and link. */
struct ga_nvlink_sample {
	char *gpu;
	uint64_t link;
	struct ga_ou64 c[4]; /* replay, recovery, crc_flit, crc_data */
};
struct ga_nvlink_counters {
	struct ga_nvlink_sample *v;
	size_t n;
	double at_s; /* when they were read (the caller's clock) */
	bool taken;
};

/*
 * Repeated collections (serve): a rise between two collections raises the
 * finding, and it stays raised, counted from a baseline taken before the rise,
 * until the counters have been quiet for hold_s; then the baseline moves up.
 */
struct ga_nvlink_watch {
	struct ga_nvlink_counters prev, base;
	double last_rise_s;
};

/* --- NVML events --- */

/* Longest wait one helper run may be asked for. */
#define GA_NVML_EVENTS_MAX_WAIT_MS (10u * 60u * 1000u)

struct ga_nvml_event {
	struct ga_ou64 gpu; /* NVML index */
	char *uuid;
	char *pci_bus_id;          /* sysfs form, "0000:07:00.0" */
	char *type;                /* "xid", "ecc_dbe", "ecc_sbe", "other" */
	struct ga_ou64 event_type; /* NVML's bit */
	struct ga_ou64 xid;        /* Xid events: the Xid (999: NVML did not know it) */
	struct ga_odbl after_ms;   /* when, from the start of the wait */
};

struct ga_nvml_events {
	struct ga_obool live;           /* an event set exists and at least one GPU is registered */
	struct ga_ou64 registered_gpus; /* GPUs whose Xid events are registered */
	struct ga_ou64 waited_ms;       /* how long the helper waited */
	struct ga_strv unregistered;    /* "GPU 3: Not Supported": GPUs left out, and why */
	char *error;                    /* why no event set could be made */
	char *error_call;               /* the failing (or, at the deadline, the running) call */
	struct ga_oi64 error_code;      /* NVML's code, when it was NVML's error */
	struct ga_obool timed_out;      /* the helper was killed at the deadline */
	struct ga_nvml_event *events;
	size_t n_events;
};
extern const struct ga_schema ga_nvml_events_schema;
void ga_nvml_events_release(struct ga_nvml_events *e);

/*
 * The event written as the kernel would log it ("[ 123.456789] NVRM: Xid
 * (PCI:0000:07:00): 79, reported by NVML events"), so that the kernel-log
 * analyzers (health, the serve counters, --state) treat it exactly as a logged
 * Xid. start_boot_s: seconds since boot when the wait began (the event's
 * after_ms is added), or < 0 for no time. Returns the length, or 0 when the
 * event is not an Xid or names no GPU address.
 */
size_t ga_nvml_event_kline(const struct ga_nvml_event *e, double start_boot_s, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
