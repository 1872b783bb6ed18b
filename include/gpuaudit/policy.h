/*
 * policy.h - golden-image policies: which software a class of nodes must run
 * (pins) and what its hardware must look like (expectations), and the check
 * of one node snapshot against its class.
 *
 * A policy is YAML (docs/policy.md). The parser is strict: unknown keys, wrong
 * types, bad version ranges and duplicate class names are errors that name
 * FILE:LINE:COLUMN, so a typo can never silently disable a check. The check is
 * pure: it reads only the snapshot and emits findings (findings.h).
 */
#ifndef GPUAUDIT_POLICY_H
#define GPUAUDIT_POLICY_H

#include "gpuaudit/findings.h"
#include "gpuaudit/hstate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodereport.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Limits checked before the YAML parser sees the text (docs/policy.md,
 * "Limits"): a fleet policy is a few KiB, about 6 levels deep and a few hundred
 * nodes, so each limit is far above what a policy needs and far below what
 * would cost the parser time or memory (libfyaml keeps ~550 bytes per node).
 */
#define GA_POLICY_MAX_FILE (1u << 20) /* 1 MiB */
#define GA_POLICY_MAX_DEPTH 32        /* nested collections (a policy needs 5) */
#define GA_POLICY_MAX_NODES 65536     /* characters that can start a node: - , : ? [ { % */
#define GA_POLICY_MAX_CLASSES 256
#define GA_POLICY_MAX_SMOKE 256 /* smoke: entries of one class */
#define GA_RANGE_MAX_TERMS 8

/* --- versions and ranges --- */

/*
 * Compare two version strings numerically per component: components split at
 * '.', '-', '+', '_' and '~'; two numeric components compare as numbers,
 * anything else as its leading number then text; a missing component sorts
 * first (550.54 < 550.54.15 < 550.135). Returns <0, 0, >0.
 */
int ga_version_cmp(const char *a, const char *b);

enum ga_vop { GA_VOP_EQ, GA_VOP_NE, GA_VOP_LT, GA_VOP_LE, GA_VOP_GT, GA_VOP_GE, GA_VOP_GLOB };

struct ga_vterm {
	enum ga_vop op;
	char *version; /* for GA_VOP_GLOB the fnmatch pattern */
};

/* A comma-separated list of comparators, all of which must hold. */
struct ga_vrange {
	char *text; /* as written, for messages */
	struct ga_vterm *terms;
	size_t n_terms;
};

/*
 * Parse "", ">=550.54, <560", "12.4", "550.*", "!=535.54.03". On error returns
 * -EINVAL and, when errbuf is given, a reason ("'=>' is not an operator").
 */
int ga_vrange_parse(const char *text, struct ga_vrange *out, char *errbuf, size_t errlen);
bool ga_vrange_match(const struct ga_vrange *r, const char *version);
void ga_vrange_release(struct ga_vrange *r);

/* --- the policy --- */

/* A pin: unset (not checked), null (the component must be absent) or a range. */
enum ga_pin_kind { GA_PIN_UNSET = 0, GA_PIN_ABSENT, GA_PIN_RANGE };
struct ga_pin {
	enum ga_pin_kind kind;
	struct ga_vrange range;
};

enum ga_mig_expect { GA_MIG_UNSET = 0, GA_MIG_DISABLED, GA_MIG_ENABLED };

struct ga_policy_num {
	char *key;
	double value;
};

/* expect.allocatable: a resource the kubelet must advertise, and how many devices. */
struct ga_policy_alloc {
	char *resource; /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "amd.com/gpu" */
	uint64_t count;
};
#define GA_POLICY_MAX_ALLOCATABLE 64

struct ga_policy_xid {
	uint64_t xid;
	char *action; /* "ignore", "info", "warning", "error", "critical" */
};

struct ga_policy_class {
	char *name;
	unsigned line; /* where the class starts, for messages */
	struct {
		char *vendor; /* NULL = any; "none" = no accelerators */
		char *model;  /* fnmatch glob, case-insensitive; NULL = any */
		struct ga_ou64 count;
	} match;
	struct ga_pin kernel, driver, cuda, rocm;
	char *driver_flavor; /* NVIDIA kernel modules: "open" or "proprietary"; NULL = either */
	struct {
		struct ga_ou64 gpu_count;
		struct ga_odbl memory_min_gib;
		struct ga_ou64 pcie_gen_min;
		struct ga_ou64 pcie_width_min;
		enum ga_mig_expect mig;
		bool mig_profiles_set;
		struct ga_strv mig_profiles;
		struct ga_obool persistence_mode;
		struct ga_obool ecc;
		struct ga_obool no_pending_remaps;
		struct ga_obool no_retired_pages_pending;
		struct ga_strv modules;
		struct ga_strv device_nodes;
		struct ga_policy_ctr { /* expect.container_runtime (docs/container.md) */
			bool set;
			struct ga_obool
			        toolkit; /* the NVIDIA container toolkit installed (true) or absent (false) */
			char *mode;      /* its mode: auto, legacy, cdi, csv, jit-cdi */
			struct ga_strv
			        wired; /* engines that must have the NVIDIA runtime: containerd, docker, crio */
			char *default_runtime; /* the default runtime of those engines (all present ones when wired is empty) */
			struct ga_strv
			        device_groups; /* groups containers run with: /dev/kfd and renderD* must open for one */
		} container_runtime;
		/* container layer (docs/container.md): expect.cdi, expect.allocatable */
		struct ga_obool cdi_present; /* a valid CDI spec of the class's vendor is on the node */
		struct ga_obool cdi_current; /* true: every spec matches the driver and the devices */
		struct ga_policy_alloc *allocatable;
		size_t n_allocatable;
		/* expect.ib_ports (docs/network.md): InfiniBand/RoCE ports of the link layer */
		struct {
			bool set;
			struct ga_ou64 count;     /* ports of that link layer (all when none is named) */
			struct ga_ou64 rate_gbps; /* each port's minimum rate */
			char *state;              /* "active" (the only state a port should be in) */
			char *link_layer;         /* "infiniband" or "ethernet"; NULL = any */
		} ib_ports;
	} expect;
	struct ga_policy_num *smoke; /* free-form numbers, for the benchmark commands */
	size_t n_smoke;
	struct ga_strv artifact_backends;
	struct ga_strv artifact_archs;
	struct ga_policy_xid *xid;
	size_t n_xid;
};

struct ga_policy {
	char *file;
	uint64_t version;
	struct ga_policy_class *classes;
	size_t n_classes;
	struct ga_health_policy health; /* `health:` thresholds and damping for --state */
};

/*
 * Parse a policy from a buffer; `file` names it in messages. Returns 0, -EINVAL
 * with "FILE:LINE:COLUMN: what was expected" in the context's message, or
 * -ENOMEM. *ret is set only on success; free with ga_policy_free.
 */
int ga_policy_parse(struct ga_ctx *ctx, const char *file, const char *text, size_t len,
                    struct ga_policy **ret);
/*
 * The checks every YAML file gpuaudit reads passes before libfyaml sees it
 * (docs/policy.md, "Limits": UTF-8, YAML's character set, depth, node count,
 * adjacent '' escapes). 0 or -EINVAL with FILE:LINE:COLUMN in the message.
 */
int ga_policy_yaml_check(struct ga_ctx *ctx, const char *file, const char *text, size_t len);
/* Read FILE (at most GA_POLICY_MAX_FILE; "-" = stdin) and parse it. -ENOENT etc. when unreadable. */
int ga_policy_load(struct ga_ctx *ctx, const char *file, struct ga_policy **ret);
void ga_policy_free(struct ga_policy *p);

const struct ga_policy_class *ga_policy_find_class(const struct ga_policy *p, const char *name);
/* The first class whose match fits the node, or NULL; always NULL when the node's PCI
 * devices were not read (ga_node_pci_known): an unseen bus is not an empty one. */
const struct ga_policy_class *ga_policy_match(const struct ga_policy *p, const struct ga_node *n);

/* --- the check --- */

struct ga_check {
	const struct ga_policy_class *cls; /* NULL: no class matched */
	enum ga_check_result result;
	size_t violations; /* GA-PIN-*, GA-EXPECT-*, GA-CHECK-NO-CLASS */
	size_t unknowns;   /* GA-CHECK-UNKNOWN */
	struct ga_findings findings;
};

/*
 * Check node N against class CLS (NULL: no class matched, which is a
 * GA-CHECK-NO-CLASS violation). The node's own findings (ga_analyze_node) are
 * included: an error-level one fails the check. `vendor_wanted` says whether
 * the caller asked for the vendor libraries; when it did, data that is
 * missing because they failed makes the result GA_CHECK_UNKNOWN rather than a
 * pass. A snapshot in which none of /proc/cpuinfo, /proc/meminfo,
 * /proc/sys/kernel/osrelease, os-release and /sys/bus/pci/devices yielded
 * anything is GA_CHECK_INCOMPLETE (a GA-CHECK-INCOMPLETE error finding naming
 * them), never a pass nor a fail. A snapshot whose PCI devices were not read
 * (ga_node_pci_known) has its accelerator expectations as GA-CHECK-UNKNOWN and,
 * without a violation, is GA_CHECK_INCONCLUSIVE. Where the node's own finding
 * already reports a broken expectation (GA-DEVNODE-MISSING, GA-LINK-DEGRADED, a
 * lost or excluded GPU short of expect.gpu_count) the expectation is evidence on
 * that finding ("policy": "expect.device_nodes"...), not a second finding; it
 * still counts as a violation. Returns 0 or -ENOMEM; release with
 * ga_check_release.
 */
int ga_check_node(const struct ga_node *n, const struct ga_policy_class *cls, bool vendor_wanted,
                  struct ga_check *out);
void ga_check_release(struct ga_check *c);

#ifdef __cplusplus
}
#endif
#endif
