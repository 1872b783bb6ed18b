/*
 * analyze/node.c - findings about one node snapshot: degraded PCIe links,
 * missing device nodes, kernel/user-space driver mismatches, accelerators
 * without a usable driver, and gaps in what could be read.
 *
 * Pure: reads only the snapshot, so every decision is testable on recorded
 * data (fixtures, or a snapshot read back with --from).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/container.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/node.h"
#include "verdict-int.h"

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void fmt_speed(char *out, size_t n, const struct ga_odbl *s)
{
	if (s->set)
		snprintf(out, n, "%.1f GT/s", s->v);
	else
		snprintf(out, n, "unknown speed");
}

/* One degraded link can sit above several devices: report it once, naming them all. */
struct degraded {
	const char *at;
	uint64_t cur, cap;
	struct ga_odbl cur_speed, cap_speed;
	char devices[512];
};

static const struct ga_accel *accel_at(const struct ga_node *n, const char *address)
{
	for (size_t i = 0; address && i < n->n_accelerators; i++)
		if (streq(n->accelerators[i].address, address))
			return &n->accelerators[i];
	return NULL;
}

/* Device memory from the best source: NVML, amdgpu, Intel local memory, else sysfs. */
static struct ga_ou64 accel_memory(const struct ga_accel *a)
{
	struct ga_ou64 m = { 0 };
	if (a->nvml && a->nvml->memory_total_bytes.set)
		m = a->nvml->memory_total_bytes;
	else if (a->amd && a->amd->vram_total_bytes.set)
		m = a->amd->vram_total_bytes;
	else if (a->intel && a->intel->lmem_total_bytes.set)
		m = a->intel->lmem_total_bytes;
	else
		m = a->memory_bytes;
	return m;
}

static int vd_str(char **dst, const char *s)
{
	if (!s)
		return 0;
	*dst = ga_strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/*
 * The one link rule. Both ends of each link on the path to the root complex
 * (ga_pci_path_links): a link that trained at fewer lanes than the smaller
 * maximum of its ends is degraded, and the lowest such link explains the device.
 * An accelerator whose path sysfs does not show degraded at the device itself is
 * also judged by NVML's view of its own link (width below its maximum). Speed is
 * judged only for devices that are not GPUs: GPUs lower their speed at idle.
 */
static int judge_link(const struct ga_node *n, const struct ga_pci_dev *pd, struct ga_vd_device *d)
{
	struct ga_pci_link_view links[40];
	size_t nl = ga_pci_path_links(pd, links, GA_ARRAY_SIZE(links));
	const struct ga_pci_link_view *pick = NULL;
	for (size_t h = 0; h < nl; h++) {
		const struct ga_pci_link_view *lv = &links[h];
		if (!lv->lo->cur_width.set || !lv->cap_width || !lv->at)
			continue;
		if (!pick || lv->lo->cur_width.v < lv->cap_width)
			pick = lv;
		if (lv->lo->cur_width.v < lv->cap_width)
			break; /* the lowest degraded link explains this device */
	}
	int r = 0;
	if (pick) {
		d->link = pick->lo->cur_width.v < pick->cap_width ? GA_VD_LINK_DEGRADED : GA_VD_LINK_OK;
		GA_SET(d->width, pick->lo->cur_width.v);
		GA_SET(d->capable_width, pick->cap_width);
		d->speed_gts = pick->lo->cur_speed_gts;
		if (pick->cap_speed_gts > 0)
			GA_SET(d->capable_speed_gts, pick->cap_speed_gts);
		r = vd_str(&d->link_at, pick->at);
		if (r == 0)
			r = vd_str(&d->link_source, "sysfs");
	}
	const struct ga_accel *a = accel_at(n, pd->address);
	const struct ga_nvml_gpu *g = a ? a->nvml : NULL;
	bool own_degraded = d->link == GA_VD_LINK_DEGRADED && streq(d->link_at, pd->address);
	if (r == 0 && g && !own_degraded && g->pcie_width.set && g->pcie_width_max.set &&
	    (g->pcie_width.v < g->pcie_width_max.v || d->link == GA_VD_LINK_UNKNOWN)) {
		bool degraded = g->pcie_width.v < g->pcie_width_max.v;
		if (degraded || d->link == GA_VD_LINK_UNKNOWN) {
			ga_free(d->link_at);
			ga_free(d->link_source);
			d->link_at = d->link_source = NULL;
			d->link = degraded ? GA_VD_LINK_DEGRADED : GA_VD_LINK_OK;
			d->width = g->pcie_width;
			d->capable_width = g->pcie_width_max;
			d->speed_gts = (struct ga_odbl){ 0 };
			d->capable_speed_gts = (struct ga_odbl){ 0 };
			r = vd_str(&d->link_at, pd->address);
			if (r == 0)
				r = vd_str(&d->link_source, "nvml");
		}
	}
	if (!streq(pd->kind, "accelerator") && pd->link.cur_speed_gts.set && pd->path_capable_speed_gts.set &&
	    pd->path_min_speed_gts.set)
		GA_SET(d->slow, pd->path_min_speed_gts.v + 1e-9 < pd->path_capable_speed_gts.v);
	if (a)
		d->memory_bytes = accel_memory(a);
	return r;
}

static void slow_finding(const struct ga_pci_dev *pd, struct ga_findings *out)
{
	char cur[32], cap[32];
	fmt_speed(cur, sizeof(cur), &pd->path_min_speed_gts);
	fmt_speed(cap, sizeof(cap), &pd->path_capable_speed_gts);
	struct ga_finding *f =
	        ga_findings_add(out, GA_C_LINK_SLOW, GA_SEV_WARNING, pd->address,
	                        "reseat the card or check the slot, riser and BIOS PCIe settings",
	                        "%s link runs at %s, capable of %s", pd->kind, cur, cap);
	ga_finding_evidence(f, "current_speed", "%s", cur);
	ga_finding_evidence(f, "capable_speed", "%s", cap);
}

static void nvml_link_finding(const struct ga_vd_device *d, struct ga_findings *out)
{
	struct ga_finding *f = ga_findings_add(
	        out, GA_C_LINK_DEGRADED, GA_SEV_WARNING, d->link_at,
	        "reseat the GPU or riser, check the slot and BIOS bifurcation; drain the node if "
	        "transfers matter",
	        "PCIe link trained at x%llu of x%llu (as NVML reports it)", (unsigned long long)d->width.v,
	        (unsigned long long)d->capable_width.v);
	ga_finding_evidence(f, "current_width", "%llu", (unsigned long long)d->width.v);
	ga_finding_evidence(f, "capable_width", "%llu", (unsigned long long)d->capable_width.v);
	ga_finding_evidence(f, "source", "nvml");
}

int ga_verdict_links(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out)
{
	struct degraded seen[64];
	size_t nseen = 0;
	for (size_t i = 0; i < n->n_pci; i++) {
		const struct ga_pci_dev *pd = &n->pci[i];
		if (streq(pd->kind, "display") || !pd->address)
			continue;
		struct ga_vd_device *d = ga_array_push((void **)&v->devices, &v->n_devices, sizeof(*d));
		if (!d || vd_str(&d->pci_address, pd->address) < 0 || vd_str(&d->kind, pd->kind) < 0 ||
		    judge_link(n, pd, d) < 0)
			return -ENOMEM;
		if (d->slow.set && d->slow.v)
			slow_finding(pd, out);
		if (d->link != GA_VD_LINK_DEGRADED)
			continue;
		if (streq(d->link_source, "nvml")) {
			nvml_link_finding(d, out);
			continue;
		}
		size_t k;
		for (k = 0; k < nseen; k++)
			if (!strcmp(seen[k].at, d->link_at))
				break;
		if (k == nseen) {
			if (nseen == GA_ARRAY_SIZE(seen))
				continue;
			struct degraded *dg = &seen[nseen++];
			memset(dg, 0, sizeof(*dg));
			dg->at = d->link_at;
			dg->cur = d->width.v;
			dg->cap = d->capable_width.v;
			dg->cur_speed = d->speed_gts;
			dg->cap_speed = d->capable_speed_gts;
		}
		size_t len = strlen(seen[k].devices);
		if (len + strlen(pd->address) + 2 < sizeof(seen[k].devices))
			snprintf(seen[k].devices + len, sizeof(seen[k].devices) - len, "%s%s", len ? " " : "",
			         pd->address);
	}
	for (size_t k = 0; k < nseen; k++) {
		const struct degraded *d = &seen[k];
		char cur[32], cap[32];
		fmt_speed(cur, sizeof(cur), &d->cur_speed);
		fmt_speed(cap, sizeof(cap), &d->cap_speed);
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_LINK_DEGRADED, GA_SEV_WARNING, d->at,
		        "reseat the device or riser, check the slot and BIOS bifurcation; drain the node "
		        "if transfers matter",
		        "PCIe link trained at x%llu of x%llu (%s); affects %s", (unsigned long long)d->cur,
		        (unsigned long long)d->cap, cur, d->devices);
		ga_finding_evidence(f, "current_width", "%llu", (unsigned long long)d->cur);
		ga_finding_evidence(f, "capable_width", "%llu", (unsigned long long)d->cap);
		ga_finding_evidence(f, "current_speed", "%s", cur);
		ga_finding_evidence(f, "capable_speed", "%s", cap);
		ga_finding_evidence(f, "devices", "%s", d->devices);
	}
	return out->err;
}

/* The verdict's parts decided from the snapshot alone, with their findings. */
int ga_verdict_sections(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out)
{
	memset(v, 0, sizeof(*v));
	int r = ga_verdict_links(n, v, out);
	if (r == 0)
		r = ga_verdict_cdi(n, v, out);
	if (r == 0)
		r = ga_verdict_device_plugins(n, v, out);
	if (r == 0)
		r = ga_verdict_runtime(n, v);
	return r < 0 ? (out->err = r) : 0;
}

/*
 * ACS P2P Request or Completion Redirect on a switch downstream port above an
 * accelerator: the switch sends every peer-to-peer request (GPU to GPU, GPU to NIC for
 * GPUDirect RDMA) up to the root complex instead of across the switch, which slows or
 * breaks P2P (Linux drivers/pci/p2pdma.c clears these two bits on the downstream ports
 * for the same reason; NCCL's troubleshooting guide, "PCI Access Control Services",
 * asks for ACS to be disabled on bare metal). Seen only in configuration space (root).
 */
static void acs_findings(const struct ga_node *n, struct ga_findings *out)
{
	const char *seen[64];
	size_t nseen = 0;
	for (size_t i = 0; i < n->n_pci; i++) {
		const struct ga_pci_dev *pd = &n->pci[i];
		if (!streq(pd->kind, "accelerator"))
			continue;
		for (size_t h = 0; h < pd->n_upstream; h++) {
			const struct ga_pci_hop *hop = &pd->upstream[h];
			if (!streq(hop->pcie_port_type, "downstream_port") || !hop->acs_ctl.set ||
			    !(hop->acs_ctl.v & 0x000cu) || !hop->address)
				continue; /* 0x4 P2P Request Redirect, 0x8 P2P Completion Redirect */
			size_t k;
			for (k = 0; k < nseen; k++)
				if (!strcmp(seen[k], hop->address))
					break;
			if (k < nseen || nseen == GA_ARRAY_SIZE(seen))
				continue;
			seen[nseen++] = hop->address;
			struct ga_finding *f = ga_findings_add(
			        out, GA_C_PCI_ACS_REDIRECT, GA_SEV_WARNING, hop->address,
			        "turn ACS redirect off on the switch's downstream ports (BIOS setting, or "
			        "the "
			        "kernel parameter pci=disable_acs_redir=ADDRESS), unless the GPUs are passed "
			        "to virtual machines, whose IOMMU groups need ACS",
			        "ACS P2P redirect is on at switch port %s above %s: peer-to-peer traffic "
			        "goes up to the root complex",
			        hop->address, pd->address);
			ga_finding_evidence(f, "acs_ctl", "0x%04llx", (unsigned long long)hop->acs_ctl.v);
			ga_finding_evidence(f, "device", "%s", pd->address);
		}
	}
}

static bool module_loaded(const struct ga_node *n, const char *m)
{
	return ga_strv_contains(&n->modules, m);
}

static void devnode_findings(const struct ga_node *n, struct ga_findings *out)
{
	/* collect distinct missing node paths with the accelerators that need them */
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		for (size_t k = 0; k < a->missing_nodes.n; k++) {
			const char *path = a->missing_nodes.v[k];
			/* inside a container only the GPUs given to it have nodes: preflight's container
			 * view (lib/analyze/container.c) compares what is visible with the node instead */
			if (n->host.virt.container && ga_startswith(path, "/dev/nvidia") && path[11] >= '0' &&
			    path[11] <= '9')
				continue;
			bool first = true;
			for (size_t j = 0; j < i && first; j++)
				first = !ga_strv_contains(&n->accelerators[j].missing_nodes, path);
			if (!first)
				continue;
			char users[512] = "";
			for (size_t j = i; j < n->n_accelerators; j++) {
				if (!ga_strv_contains(&n->accelerators[j].missing_nodes, path))
					continue;
				size_t len = strlen(users);
				snprintf(users + len, sizeof(users) - len, "%s%s", len ? " " : "",
				         n->accelerators[j].address ? n->accelerators[j].address : "?");
			}
			const char *decision =
			        "create the device nodes (nvidia-modprobe, or udev) and restart "
			        "the device plugin";
			char why[160] = "";
			if (!strcmp(path, "/dev/nvidia-uvm")) {
				if (module_loaded(n, "nvidia_uvm") || !n->modules_source) {
					decision = "run 'nvidia-modprobe -u -c=0' to create it; CUDA cannot "
					           "start "
					           "without it";
					snprintf(why, sizeof(why), " (nvidia_uvm is loaded)");
				} else {
					decision = "load the module: 'modprobe nvidia_uvm' then "
					           "'nvidia-modprobe -u "
					           "-c=0'; CUDA cannot start without it";
					snprintf(why, sizeof(why), " (nvidia_uvm is not loaded)");
				}
			} else if (!strcmp(path, "/dev/kfd")) {
				decision = "check that amdgpu loaded with KFD support (dmesg | grep kfd) and "
				           "the udev rules for /dev/kfd";
			} else if (ga_startswith(path, "/dev/dri/")) {
				decision = "check udev and the container's device list; ROCm and Level Zero "
				           "need the render node";
			}
			/* Whose fault: on the host the driver's (its module loaded, nvidia-modprobe or
			 * udev makes the node); inside a container the runtime's, which passes the
			 * host's nodes in (--device, CDI, the device plugin) and did not pass this one. */
			bool ctr = n->host.virt.container != NULL;
			if (ctr)
				decision = "add it to the container's devices (--device, the CDI spec or the "
				           "device plugin); on the host, check that it exists";
			struct ga_finding *f = ga_findings_add(
			        out, GA_C_DEVNODE_MISSING, GA_SEV_ERROR, path, decision,
			        "device node %s is missing%s; needed by %s", path, why, users);
			ga_finding_evidence(f, "accelerators", "%s", users);
			if (f && ctr) {
				f->cause = GA_CAUSE_CONTAINER_RUNTIME;
				ga_finding_evidence(f, "container", "%s", n->host.virt.container);
			}
		}
	}
}

/* GA-DRIVER-MISMATCH's fix: without a DKMS tree (or in a container), then with the libraries'
 * version installed by DKMS for the running kernel, then without */
#define MISMATCH_FIX                                                                                \
	"install the user-space driver package matching the kernel module (or reboot into the new " \
	"module); NVML reports 'Driver/library version mismatch'"
#define MISMATCH_FIX_REBOOT                                                                     \
	"reboot (or unload and reload the nvidia modules): DKMS has installed this version of " \
	"the module for the running kernel"
#define MISMATCH_FIX_INSTALL                                                                      \
	"DKMS has not installed this version of the module for the running kernel, so a reboot "  \
	"would load another version again: install it (dkms install) or the driver's module and " \
	"libraries as one version, then reboot"

/* ... and the same where the module file installed for the running kernel says it (no DKMS tree) */
#define MISMATCH_FIX_REBOOT_FILE                                                                  \
	"reboot (or unload and reload the nvidia modules): the module installed for the running " \
	"kernel is this version"
#define MISMATCH_FIX_INSTALL_FILE                                                                  \
	"the module installed for the running kernel is another version, so a reboot would load "  \
	"it again: install the driver's module and libraries as one version (the packages of one " \
	"release), then reboot"

static void driver_findings(const struct ga_node *n, struct ga_findings *out)
{
	for (size_t i = 0; i < n->n_drivers; i++) {
		const struct ga_driver *d = &n->drivers[i];
		if (!streq(d->name, "nvidia"))
			continue;
		if (d->proc_version && d->module_version && strcmp(d->proc_version, d->module_version)) {
			struct ga_finding *f = ga_findings_add(
			        out, GA_C_DRIVER_MISMATCH, GA_SEV_ERROR, "nvidia",
			        "reboot (or unload and reload the nvidia modules) so the running module "
			        "matches "
			        "the installed one",
			        "running NVIDIA kernel module %s differs from the module version %s",
			        d->proc_version, d->module_version);
			ga_finding_evidence(f, "proc_version", "%s", d->proc_version);
			ga_finding_evidence(f, "module_version", "%s", d->module_version);
		}
		if (!d->version)
			continue;
		for (size_t k = 0; k < n->n_runtimes; k++) {
			const struct ga_runtime *rt = &n->runtimes[k];
			if (!rt->version || (!streq(rt->name, "libcuda") && !streq(rt->name, "libnvidia-ml")))
				continue;
			if (!strcmp(rt->version, d->version))
				continue;
			/* the DKMS tree says whether a reboot loads the libraries' version (explain
			 * --for decides NVML's mismatch the same way) */
			bool dkms = (d->dkms_tree || d->module_file_version) && !n->host.virt.container;
			bool installed =
			        dkms && (d->dkms_tree ? ga_strv_contains(&d->dkms_installed, rt->version)
			                              : !strcmp(d->module_file_version, rt->version));
			const char *fix = !dkms           ? MISMATCH_FIX
			                  : !d->dkms_tree ? (installed ? MISMATCH_FIX_REBOOT_FILE
			                                               : MISMATCH_FIX_INSTALL_FILE)
			                  : installed     ? MISMATCH_FIX_REBOOT
			                                  : MISMATCH_FIX_INSTALL;
			struct ga_finding *f =
			        ga_findings_add(out, GA_C_DRIVER_MISMATCH, GA_SEV_ERROR, rt->path, fix,
			                        "%s is version %s but the NVIDIA kernel module is %s",
			                        rt->name, rt->version, d->version);
			ga_finding_evidence(f, "library_version", "%s", rt->version);
			ga_finding_evidence(f, "kernel_version", "%s", d->version);
			if (f && dkms) {
				if (d->dkms_tree)
					ga_finding_evidence(f, "dkms_tree", "%s", d->dkms_tree);
				else
					ga_finding_evidence(f, "module_file_version", "%s",
					                    d->module_file_version);
				/* a reboot would not help: what is deployed must change first */
				if (!installed)
					f->action = GA_ACT_FIX_CONFIG;
			}
		}
	}
}

static void accel_findings(const struct ga_node *n, struct ga_findings *out)
{
	const char *path = NULL, *why = NULL;
	if (ga_node_source_state(n, GA_SOURCE_PCI, &path, &why) != GA_SOURCE_READ) {
		/* not "no accelerator": the bus was not seen, so the count is unknown */
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_PCI_UNKNOWN, GA_SEV_WARNING, "node", GA_SOURCE_PCI_FIX,
		        "the PCI devices could not be read (/%s: %s): the accelerator count is unknown",
		        path ? path : GA_SOURCE_PCI_PATH, why);
		ga_finding_evidence(f, "source", "%s", GA_SOURCE_PCI);
		ga_finding_evidence(f, "path", "/%s", path ? path : GA_SOURCE_PCI_PATH);
		ga_finding_evidence(f, "reason", "%s", why);
		if (!n->n_accelerators)
			return;
	} else if (n->n_accelerators == 0) {
		ga_findings_add(out, GA_C_NO_ACCELERATOR, GA_SEV_INFO, "node",
		                "nothing to do for a CPU-only pool",
		                "no GPU or other accelerator found on the PCI bus");
		return;
	}
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->driver) {
			ga_findings_add(out, GA_C_ACCEL_NO_DRIVER, GA_SEV_ERROR, a->address,
			                "install and load the vendor driver (check dmesg for probe errors)",
			                "%s accelerator %s has no driver bound", a->vendor ? a->vendor : "",
			                a->model ? a->model : "");
		} else if (!strcmp(a->driver, "vfio-pci")) {
			ga_findings_add(out, GA_C_ACCEL_PASSTHROUGH, GA_SEV_INFO, a->address,
			                "expected on a hypervisor host that passes GPUs to guests",
			                "accelerator is bound to vfio-pci (device passthrough)");
		} else if (!strcmp(a->driver, "nouveau")) {
			ga_findings_add(out, GA_C_ACCEL_WRONG_DRIVER, GA_SEV_ERROR, a->address,
			                "blacklist nouveau and install the NVIDIA driver",
			                "NVIDIA GPU is driven by nouveau, which cannot run CUDA");
		}
		if (a->excluded.set && a->excluded.v)
			ga_findings_add(out, GA_C_GPU_EXCLUDED, GA_SEV_ERROR, a->address,
			                "the driver excluded this GPU (NVreg_ExcludedGpus or a fault at "
			                "start); check dmesg, then reset or replace it",
			                "the NVIDIA driver reports this GPU as excluded");
	}
}

static void gap_findings(const struct ga_node *n, struct ga_findings *out)
{
	/* one problem, one finding: the PCI directory's gap is GA-PCI-UNKNOWN's evidence */
	const char *pci_path = NULL;
	if (ga_node_source_state(n, GA_SOURCE_PCI, &pci_path, NULL) == GA_SOURCE_READ)
		pci_path = NULL;
	for (size_t i = 0; i < n->n_gaps; i++) {
		const struct ga_gap *g = &n->gaps[i];
		if (pci_path && streq(g->path, pci_path))
			continue;
		char subject[4200];
		snprintf(subject, sizeof(subject), "/%s", g->path ? g->path : "");
		bool perm = g->reason && !strcmp(g->reason, "permission denied");
		ga_findings_add(out, GA_C_SNAPSHOT_GAP, GA_SEV_WARNING, subject,
		                perm ? "run as root or grant read access; the values that depend on it "
		                       "are absent"
		                     : "the file is damaged or not what the kernel writes; the values "
		                       "that depend on it are absent",
		                "could not read %s: %s", subject, g->reason ? g->reason : "unknown");
	}
}

int ga_analyze_node(const struct ga_node *n, struct ga_findings *out)
{
	struct ga_node_verdict v = { 0 };
	int vr = ga_verdict_sections(n, &v, out); /* links, CDI, device plugins, runtime */
	ga_node_verdict_release(&v);
	if (vr < 0)
		return vr;
	acs_findings(n, out);
	devnode_findings(n, out);
	driver_findings(n, out);
	accel_findings(n, out);
	gap_findings(n, out);
	ga_analyze_nvml(n, out);
	ga_analyze_amd_intel(n, out);
	ga_analyze_container_runtime(n, out);
	ga_analyze_ib(n, out);
	ga_analyze_xgmi(n, out);
	int r = ga_findings_bind_devices(out, n);
	ga_findings_sort(out);
	return r < 0 ? r : out->err;
}

/* "0000:41:00.0" and "41:00.0" name the same function (the domain defaults to 0000). */
static bool same_address(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	if (!strcasecmp(a, b))
		return true;
	size_t la = strlen(a), lb = strlen(b);
	if (la == lb + 5 && !strncasecmp(a, "0000:", 5))
		return !strcasecmp(a + 5, b);
	if (lb == la + 5 && !strncasecmp(b, "0000:", 5))
		return !strcasecmp(b + 5, a);
	return false;
}

static const struct ga_accel *accel_of(const struct ga_finding *fd, const struct ga_node *n)
{
	const char *gpu = NULL;
	for (size_t k = 0; k < fd->n_evidence; k++)
		if (!strcmp(fd->evidence[k].key, "gpu"))
			gpu = fd->evidence[k].value;
	uint64_t idx = 0;
	bool by_index = gpu && ga_parse_u64(gpu, 10, &idx) == 0;
	if (!by_index && fd->subject && !strncmp(fd->subject, "gpu", 3) && fd->subject[3])
		by_index = ga_parse_u64(fd->subject + 3, 10, &idx) == 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (same_address(fd->subject, a->address) || (by_index && a->index.set && a->index.v == idx))
			return a;
	}
	return NULL;
}

int ga_findings_bind_devices(struct ga_findings *f, const struct ga_node *n)
{
	for (size_t i = 0; n && i < f->n; i++) {
		struct ga_finding *fd = &f->v[i];
		const struct ga_accel *a = accel_of(fd, n);
		if (!a)
			continue;
		const char *uuid = a->uuid;
		if (!uuid && a->nvml && a->nvml->uuid)
			uuid = a->nvml->uuid;
		int r = ga_finding_set_device(fd, fd->gpu_uuid ? NULL : uuid,
		                              fd->pci_address ? NULL : a->address);
		if (r < 0)
			return f->err = r;
	}
	return 0;
}
