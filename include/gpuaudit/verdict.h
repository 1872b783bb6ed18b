/*
 * verdict.h - the typed verdict of one node: what the analysis decided about each
 * device's PCIe link, the CDI specs, the device plugins, the container runtime's
 * default and the node's readiness, as data. The findings of those checks are
 * raised by the same code that fills it (ga_node_verdict_build), and the writers
 * (Prometheus, NFD labels, /readyz, fleet) render it instead of re-running an
 * analyzer or comparing finding codes, so a metric and its finding cannot disagree.
 *
 * The model (lib/model/verdict.c) is the member "verdict" of `discover --json`
 * (docs/schema/verdict.md); `--from` recomputes it from the snapshot with the
 * same rules.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in verdict-analyze.h (analyze).
 */
#ifndef GPUAUDIT_VERDICT_H
#define GPUAUDIT_VERDICT_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"
#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device's PCIe link on its way to the root complex (names: ga_vd_link_names). */
enum ga_vd_link {
	GA_VD_LINK_UNKNOWN,  /* no link with both its current and capable width known */
	GA_VD_LINK_OK,       /* every known link trained at the width both its ends support */
	GA_VD_LINK_DEGRADED, /* a link trained at fewer lanes: GA-LINK-DEGRADED */
};
/* The CDI specs of the node (ga_vd_cdi_names); only when the snapshot has the section. */
enum ga_vd_cdi {
	GA_VD_CDI_ABSENT,     /* no cdi section, or no spec: not judged */
	GA_VD_CDI_NONE,       /* specs, none of them readable */
	GA_VD_CDI_CURRENT,    /* valid, for the running driver, naming every GPU and MIG device */
	GA_VD_CDI_STALE,      /* for another driver, or naming paths that are gone */
	GA_VD_CDI_INCOMPLETE, /* a GPU or MIG device no spec names, or an entry for one that is gone */
	GA_VD_CDI_INVALID,    /* a spec the runtimes refuse */
};
/* The device plugins as the kubelet sees them (ga_vd_dp_names). */
enum ga_vd_dp {
	GA_VD_DP_ABSENT,  /* no device-plugins section */
	GA_VD_DP_OK,      /* every healthy GPU registered (or no kubelet and no GPU to register) */
	GA_VD_DP_PARTIAL, /* fewer devices registered than healthy GPUs: GA-DP-GPU-UNREGISTERED */
	GA_VD_DP_MISSING, /* GPUs and a kubelet, no plugin registered: GA-DP-NOT-REGISTERED */
	GA_VD_DP_UNKNOWN, /* the kubelet's checkpoint is damaged: nothing to count */
};
/* /readyz (ga_vd_ready_names). */
enum ga_vd_ready {
	GA_VD_READY_UNKNOWN, /* no class with a GPU count to compare with (no policy, no class) */
	GA_VD_READY,         /* the class's GPU count is met */
	GA_VD_NOT_READY,     /* it is not: GA-EXPECT-GPU-COUNT */
};
extern const char *const ga_vd_link_names[3];
extern const char *const ga_vd_cdi_names[6];
extern const char *const ga_vd_dp_names[5];
extern const char *const ga_vd_ready_names[3];

/* Drift reasons of a node, as fleet counts them (bits of ga_node_verdict.drift). */
enum {
	GA_VD_DRIFT_LINK = 1u << 0,  /* a degraded PCIe link */
	GA_VD_DRIFT_GPUS = 1u << 1,  /* the class's GPU count is not met */
	GA_VD_DRIFT_CLASS = 1u << 2, /* a policy was given and no class matches */
};

/* One PCI device whose link is judged (every kind but display). */
struct ga_vd_device {
	char *pci_address;
	char *kind;                   /* the PCI kind: accelerator, nic, nvme, nvswitch, ... */
	int link;                     /* enum ga_vd_link */
	char *link_at;                /* the lower end of the lowest degraded link (or of the narrowest) */
	char *link_source;            /* "sysfs" (both ends of each link) or "nvml" (the GPU's own view) */
	struct ga_ou64 width;         /* of that link: lanes now */
	struct ga_ou64 capable_width; /* the smaller maximum of its two ends */
	struct ga_odbl speed_gts;
	struct ga_odbl capable_speed_gts;
	struct ga_obool slow; /* non-GPU devices: the path runs below its capable speed (GA-LINK-SLOW) */
	struct ga_ou64 memory_bytes; /* accelerators: device memory, from the best source */
	struct ga_obool cdi_listed;  /* NVIDIA GPUs, when a valid nvidia.com/gpu spec exists */
};

/* One CDI spec. stale and missing_paths are absent when the spec is invalid. */
struct ga_vd_cdi_spec {
	char *path;
	struct ga_obool valid;
	struct ga_obool stale; /* NVIDIA spec for another driver; absent when a version is unknown */
	struct ga_ou64 missing_paths;
};

/* The matrix columns of the node's stack, as `fleet` writes them (from the class's stack JSON). */
struct ga_vd_stack {
	char *driver; /* "nvidia 550.54.15 open, ...": each driver with its version and flavor */
	char *cuda;
	char *rocm;
	char *kernel;
	char *os_id;
	char *os_version;
};

/* A container engine and the default runtime it resolves to (its own, or the engine's built-in). */
struct ga_vd_engine {
	char *name;
	char *default_runtime;
};

/* An AMD/Intel device node and whether a non-root container in group render or video opens it. */
struct ga_vd_device_node {
	char *path;
	struct ga_obool accessible; /* true also when its mode is not known: no verdict */
};

struct ga_node_verdict {
	struct ga_vd_device *devices;
	size_t n_devices;
	int cdi; /* enum ga_vd_cdi */
	struct ga_vd_cdi_spec *cdi_specs;
	size_t n_cdi_specs;
	struct ga_ou64 cdi_unlisted;  /* GPUs and MIG devices no valid nvidia.com/gpu spec names */
	struct ga_ou64 cdi_gone;      /* spec entries for GPUs or MIG devices that are not on the node */
	int device_plugin;            /* enum ga_vd_dp */
	struct ga_ou64 dp_registered; /* NVIDIA devices registered, counted once (replicas share one) */
	struct ga_ou64 dp_expected;   /* NVIDIA devices present and healthy */
	struct ga_strv runtime_wired; /* container engines wired to the NVIDIA runtime */
	struct ga_obool runtime_default_nvidia; /* every wired engine defaults to it */
	int readiness;                          /* enum ga_vd_ready */
	char *readiness_reason;
	struct ga_ou64 gpus_expected;  /* the class's gpu_count */
	struct ga_ou64 gpus_usable;    /* of the class's vendor: driver bound, not excluded, not lost */
	struct ga_strv drift;          /* "link", "gpus", "no_class": ga_node_verdict_drift as names */
	struct ga_obool class_matched; /* a policy class was found; absent without a policy */
	char *class_name;              /* the policy class checked against, when one was */
	char *node_class;              /* gpuaudit class: name, and the hardware and stack ids */
	char *hw_class;
	char *stack_class;
	char *hw_family;          /* the class family fleet compares within (SHA-256); NULL with no class */
	struct ga_vd_stack stack; /* with hw_family: the stack's matrix columns */
	struct ga_vd_engine *runtime_engines; /* the container engines the snapshot found */
	size_t n_runtime_engines;
	struct ga_vd_device_node *device_nodes; /* the AMD/Intel device nodes of the container layer */
	size_t n_device_nodes;
};
extern const struct ga_schema ga_node_verdict_schema;

struct ga_policy_class;
void ga_node_verdict_release(struct ga_node_verdict *v);
/*
 * `discover --json`: the snapshot with its findings, its verdict and its topology matrix
 * (topology.h; NULL: null) appended as "findings", "verdict" and "topology". --from reads
 * it as a plain snapshot and recomputes all three with today's rules; none of them is part
 * of gpuaudit.node/v1.
 */
struct ga_topology;
int ga_node_write_report(const struct ga_node *n, const struct ga_findings *f,
                         const struct ga_node_verdict *v, const struct ga_topology *topo, struct ga_json *w);
/* The drift bits (GA_VD_DRIFT_*) of a verdict, from its states. */
unsigned ga_node_verdict_drift(const struct ga_node_verdict *v);
/* The device entry of a PCI address, or NULL. */
const struct ga_vd_device *ga_node_verdict_device(const struct ga_node_verdict *v, const char *pci_address);

#ifdef __cplusplus
}
#endif
#endif
