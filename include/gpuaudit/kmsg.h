/*
 * kmsg.h - what analyze decides from the kernel log (lib/analyze/kevents.c,
 * health.c, kev_counter.c): the line parser (NVIDIA Xid/SXid, GPU lost, amdgpu
 * resets and RAS, PCIe AER, hung tasks, OOM kills, MCE, NVRM load failures),
 * the Xid catalogue and its decisions, the health analysis that turns event
 * groups into findings, and the event counters. Reading the log (sources,
 * lines, the reader's counts) is collect's: klog.h.
 *
 * The parser is pure and linear: it takes one line (any of /dev/kmsg records,
 * `dmesg`, `dmesg -T`, `journalctl -k -o short|short-iso|short-monotonic`),
 * looks at no more than GA_KLINE_MAX bytes of it and allocates nothing.
 */
#ifndef GPUAUDIT_KMSG_H
#define GPUAUDIT_KMSG_H

#include "gpuaudit/kevent.h"
#include "gpuaudit/klog.h"
#include "gpuaudit/xid.h"
#include "gpuaudit/sxid.h"
#include "gpuaudit/aer.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a line's "Fatal"/"Nonfatal" token said (NVLink5 Xids, SXids, AER). */
enum ga_kev_fatal { GA_KEV_FATAL_UNSAID = 0, GA_KEV_FATAL_YES, GA_KEV_FATAL_NO };

struct ga_kevent {
	enum ga_kev_kind kind;
	struct ga_odbl boot_s; /* seconds since boot: kmsg usec, "[ 12.345678]" */
	struct ga_oi64 wall_s; /* Unix time: `dmesg -T`, journal/syslog stamps; unset otherwise */
	struct ga_ou64 code;   /* Xid / SXid number, amdgpu reset count, VM fault status word */
	char address[16];      /* sysfs form "0000:41:00.0", "" when the line names none */
	enum ga_kev_fatal fatal;
	struct ga_ou64 link; /* SXid and NVLink Xid lines: "Link 32"; unset when the line names none */
	/*
	 * NVLink5 Xids 144-150: the unit the line names ("RLW_REMAP") and its error status
	 * word, the second of the words in parentheses (NVIDIA's "XID 144-150 Decode").
	 */
	char nvl_unit[24];
	struct ga_ou64 nvl_status;
	/*
	 * PCIe AER detail ("device [10de:2330] error status/mask=00000041/00006000"): the
	 * error types, status & ~mask (the bits the kernel counts); 0 on other lines.
	 */
	uint32_t aer_bits;
	/*
	 * Xid lines: the GPU recovery action the line's words name (Xid 154 "...
	 * to 0x2 (Node Reboot Required)", "GPU Reset Required", "Drain and
	 * Reset", "Drain P2P"; ga_xid_recovery_default), unset when it names none.
	 */
	struct ga_ou64 recovery;
	/*
	 * A line that completes the event before it rather than being a new one:
	 * the *VM_L2_PROTECTION_FAULT_STATUS word after an amdgpu page fault (code
	 * = the status), "GPU reset(N) succeeded" after "GPU reset begin" (code =
	 * N). Counters skip it; health attaches it to the open event's group.
	 */
	bool folded;
	/*
	 * amdgpu VM fault header: the VM id the fault hit ("vmid:3", the older "vm_id:3"),
	 * unset when the line names none. vmid 0 is the kernel driver's own address space
	 * (Linux Documentation/gpu/amdgpu/debugging.rst, "Decoding a GPUVM Page Fault").
	 */
	struct ga_ou64 vmid;
	enum ga_severity severity; /* from the catalogue, before any policy override */
	const char *message;       /* the message text inside the line (prefixes stripped) */
	size_t message_len;
};

/*
 * State carried between lines: the multi-line "NVRM: The NVIDIA GPU <addr> ...
 * has fallen off the bus" message names the address one line before the words.
 */
struct ga_kparse {
	char pending_address[16];
	struct ga_odbl last_boot_s; /* continuation lines (no prefix) take the previous line's time */
	struct ga_oi64 last_wall_s;
	/*
	 * Syslog and journalctl -o short/short-precise stamps carry no year: the
	 * year is the one that puts the stamp at most a day after year_ref_s (the
	 * caller's clock; the parser never reads it). Unset: such stamps get no
	 * wall time.
	 */
	struct ga_oi64 year_ref_s;
	/* an amdgpu page fault whose status word may follow (lines left to wait for it) */
	char vm_fault_address[16];
	unsigned vm_fault_lines;
	bool vm_fault_open;
	/* an amdgpu "GPU reset begin" not yet ended by "GPU reset(N) succeeded" */
	char reset_address[16];
	bool reset_open;
	/* PCIe AER: the last "PCIe Bus Error: severity=" line (class 1 corrected, 2 non-fatal, 3 fatal) */
	char aer_address[16];
	unsigned aer_class;
	/* an AER "... error received: <addr>" whose detail may follow (and fold into it) */
	char aer_rx_address[16];
	enum ga_kev_kind aer_rx_kind;
	bool aer_rx_open;
};

/*
 * Parse one line (no newline needed; at most GA_KLINE_MAX bytes are looked at).
 * Returns 1 and fills *ev when the line is an event, 0 when it is not. st may
 * be NULL. Never fails otherwise; any bytes are accepted.
 */
int ga_kevent_parse(struct ga_kparse *st, const char *line, size_t len, struct ga_kevent *ev);

/* Normalise "PCI:0000:41:00", "0000:41:00", "41:00.0", "0000:41:00.0" to "0000:41:00.0". 0 / -EINVAL. */
int ga_pci_addr_normalize(const char *s, size_t len, char out[16]);

/* --- the Xid catalogue (NVIDIA's, lib/core/xid.def; the mapping: docs/xid.md) --- */

/* A coarse group derived from the row's action and cause (hardware Xids are the sticky ones). */
enum ga_xid_group {
	GA_XID_UNKNOWN = 0,  /* not published, or NVIDIA lists it as unused */
	GA_XID_HARDWARE,     /* reset_gpu / reboot / drain for the node's hardware */
	GA_XID_DRIVER_FATAL, /* reset_gpu / reboot / drain / fix_config for the driver or a link */
	GA_XID_HW_INSPECT,   /* replace (no published Xid maps to it today) */
	GA_XID_APP,          /* restart_workload */
	GA_XID_INFO,         /* none */
	GA_XID_WARN_REBOOT,  /* unused: kept for the enum's values */
	GA_XID_EXTRA,        /* investigate: the line or a person decides (154, 144-150, 45 ...) */
};

struct ga_xid_info {
	uint64_t xid;
	enum ga_xid_group group;
	enum ga_severity severity;
	const char *name;     /* NVIDIA's description, "" when the catalogue has none */
	const char *action;   /* what to do first (text) */
	const char *mnemonic; /* NVIDIA's, "" when none */
	enum ga_xid_bucket immediate;
	const char *investigatory; /* NVIDIA's investigatory bucket, "" when none */
	enum ga_action act;        /* the row's gpuaudit action (the code catalogue gives the same) */
	enum ga_cause cause;
	bool unused; /* NVIDIA lists it as unused: not driver-fatal, investigate */
};

/* Always fills *ret (unknown Xids get GA_XID_UNKNOWN, warning, "look it up"). 1 published, 0 not. */
int ga_xid_lookup(uint64_t xid, struct ga_xid_info *ret);
/*
 * An SXid line's decision: the Fabric Manager guide's row (lib/core/sxid.def) and the
 * line's Fatal token (ga_sxid_decide). Returns the row or NULL (0 for other kinds).
 */
const struct ga_sxid_fact *ga_kev_sxid(const struct ga_kevent *ev, enum ga_action *ret_action,
                                       enum ga_severity *ret_sev);
/* An NVLink5 Xid line's sub-error row (its unit and error status decoded), NULL when none. */
const struct ga_xid_nvl5_fact *ga_kev_nvl5(const struct ga_kevent *ev);
/* The text of an SXid action ("drain and reboot: resets the NVSwitches ..."). */
const char *ga_sxid_action_text(enum ga_action a);
/* Severity and action of an event (for Xids: the catalogue row, refined by the line's words). */
enum ga_severity ga_kev_severity(const struct ga_kevent *ev);
const char *ga_kev_action(const struct ga_kevent *ev);
/*
 * amdgpu VM faults of one device: vmid0 faults named vmid 0 (the kernel driver's own
 * address space), other a process's. True, with class driver and fix_config, when the
 * driver's own are all there are (Linux Documentation/gpu/amdgpu/debugging.rst); false
 * leaves the catalogue's (the job's). The one rule of health and explain.
 */
bool ga_kev_vm_fault_driver(uint64_t vmid0, uint64_t other, enum ga_cause *ret_cause,
                            enum ga_action *ret_action);
/*
 * An uncorrectable amdgpu RAS error's decision from the driver's own recovery (it resets
 * the GPU, Linux Documentation/gpu/amdgpu/ras.rst): errors of one GPU, how many a
 * "GPU reset(N) succeeded" followed, whether a "GPU reset(N) failed" did. A failed reset:
 * reboot; every error followed by a successful one: restart_workload; otherwise the
 * recovery is unconfirmed: drain. The one rule of health and explain (docs/health.md "AMD
 * uncorrectable RAS errors: one decision").
 */
enum ga_action ga_kev_ras_action(uint64_t errors, uint64_t recovered, bool reset_failed);
/* The first PCI address in a line, normalised ("0000:41:00.0"), as the parser reads an event's. */
bool ga_kev_line_address(const char *line, size_t len, char out[16]);
/*
 * The action and severity an Xid line's own words set: the recovery action it
 * names (Xid 154 and any line with "GPU Reset Required", "Node Reboot
 * Required", "Drain P2P", "Drain and Reset"), or the Fatal/Nonfatal token of
 * an NVLink5 Xid (144-150: Fatal reset_gpu / error, Nonfatal none / info, as
 * the catalogue's 144-150 decode buckets them). 1 when set, 0 when the line
 * says nothing beyond its number.
 */
int ga_kev_xid_line(const struct ga_kevent *ev, enum ga_action *ret_action, enum ga_severity *ret_sev);
/* The text of a gpuaudit action for an Xid ("drain the GPU and reset it"). */
const char *ga_xid_action_text(enum ga_action a);

/* Policy override word to a severity: 0 and *ret set, 1 for "ignore", -EINVAL otherwise. */
int ga_xid_override_parse(const char *action, enum ga_severity *ret);
/* Apply CLS's xid: overrides to an Xid number: 1 keep (*sev updated), 0 ignore. cls may be NULL. */
int ga_xid_override(const struct ga_policy_class *cls, uint64_t xid, enum ga_severity *sev);

/*
 * A wall time given by a person (--boot-time): Unix seconds ("1764600000",
 * fraction allowed and dropped) or RFC 3339 with its offset
 * ("2026-12-01T09:00:00Z", "2026-12-01 09:00:00.5+01:00"). 0 / -EINVAL.
 */
int ga_wall_time_parse(const char *s, int64_t *ret_s);

/* "2h", "30m", "90s", "1d", "1h30m", "45" (seconds) -> seconds. 0 / -EINVAL. */
int ga_duration_parse(const char *s, double *ret_s);

/* --- health analysis --- */

struct ga_health;

struct ga_health_opts {
	double since_s; /* <= 0: the whole log */
	/* "now" for --since; when unset the newest event's time is used */
	struct ga_odbl now_boot_s;
	struct ga_oi64 now_wall_s;
	struct ga_oi64 btime;              /* boot time (proc/stat btime): wall = btime + boot_s */
	const struct ga_policy_class *cls; /* xid overrides and the expected GPU count; may be NULL */
};

int ga_health_new(struct ga_health **ret);
void ga_health_free(struct ga_health *h);
/* Feed one line: 0, or -ENOMEM. Suitable as a ga_kline_fn (udata = h). */
int ga_health_add_line(void *h, const char *line, size_t len);
/* Events seen (before --since and overrides). */
uint64_t ga_health_events(const struct ga_health *h);
/*
 * The clock of a log's writer (lib/analyze/health.c, the clock logic):
 * ga_health_set_year_ref gives year-less syslog stamps their year (the
 * caller's "now"; call before feeding lines). ga_health_unplaced counts the
 * events that have seconds since boot and no wall time that O's boot time
 * (btime) could give them: with a boot time unknown, such events cannot be
 * placed in a --since window measured in wall time, nor dated.
 */
void ga_health_set_year_ref(struct ga_health *h, int64_t now_wall_s);
uint64_t ga_health_unplaced(const struct ga_health *h, const struct ga_health_opts *o);
/*
 * Turn event groups into findings (GA-XID-<n>, GA-KLOG-<KIND>) for node N
 * (addresses mapped to its accelerator indexes; N may be NULL), and with a
 * class the GPU-count expectation. Returns 0 or -ENOMEM; *ret_in_window
 * (optional) gets the number of events inside the window after overrides.
 */
int ga_health_findings(const struct ga_health *h, const struct ga_node *n, const struct ga_health_opts *o,
                       struct ga_findings *out, uint64_t *ret_in_window);

/*
 * --- kernel-event counters (lib/analyze/kev_counter.c) ---
 * They accumulate events across repeated reads of the same kernel log so
 * that an exposed counter (prom.h) only ever grows within a process.
 */

#define GA_KEV_SERIES_MAX 1024 /* distinct (kind, code, device, severity) series kept */

struct ga_kev_series {
	enum ga_kev_kind kind;
	struct ga_ou64 code;
	char address[16];
	enum ga_severity severity; /* the catalogue's, before any policy override */
	uint64_t count;
};

/*
 * Counts of kernel-log events by kind, code, PCI address and severity, accumulated over
 * repeated reads of a log that still holds what was read before (the kmsg
 * ring buffer, a growing file). A read counts only events newer than the last
 * read's newest (by boot time; ties and untimed lines by their position), so
 * each event is counted once. A new boot id starts the high-water mark over
 * but keeps the counts. Events past GA_KEV_SERIES_MAX series go to `dropped`.
 */
struct ga_kev_counter {
	struct ga_kev_series *v;
	size_t n;
	uint64_t dropped;
	uint64_t reads;
	char *boot_id;
	/* high-water mark of what was counted */
	bool mark_set;
	double mark_boot_s;
	uint64_t at_mark;      /* events counted whose time is exactly mark_boot_s */
	uint64_t untimed_seen; /* events without a time counted so far */
	/* the read in progress */
	bool in_read;
	bool read_max_set;
	double read_max_s;
	uint64_t read_at_max;
	uint64_t read_at_mark;
	uint64_t read_untimed;
	struct ga_kparse parse;
};

void ga_kev_counter_init(struct ga_kev_counter *c);
void ga_kev_counter_release(struct ga_kev_counter *c);
/* Start a read of the log of boot BOOT_ID (NULL: unknown, same as before). 0 / -ENOMEM. */
int ga_kev_counter_begin(struct ga_kev_counter *c, const char *boot_id);
/* Feed one line (a ga_kline_fn, udata = the counter). 0 / -ENOMEM. */
int ga_kev_counter_line(void *c, const char *line, size_t len);
/* Feed one parsed event: 1 counted, 0 already counted before. */
int ga_kev_counter_add(struct ga_kev_counter *c, const struct ga_kevent *ev);
/*
 * Count an event from a source that delivers each event once (NVML events,
 * fabric.h), outside any read: no high-water mark is consulted or moved.
 * 0 / -ENOMEM.
 */
int ga_kev_counter_add_once(struct ga_kev_counter *c, const struct ga_kevent *ev);
/* Finish the read: move the high-water mark. */
void ga_kev_counter_end(struct ga_kev_counter *c);

#ifdef __cplusplus
}
#endif
#endif
