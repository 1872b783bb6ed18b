/*
 * container.c - the container layer's findings: CDI specs against the node
 * (GA-CDI-*) and the kubelet's registered devices against the GPUs present
 * and healthy (GA-DP-*). Pure: the snapshot's `cdi` and `device_plugins`
 * sections (lib/collect/cdi.c, devplugin.c) in, findings out.
 *
 * How the names are matched (docs/container.md): `nvidia-ctk cdi generate`
 * names each full GPU by its index and its UUID ("0", "GPU-<uuid>"), each MIG
 * device by "<gpu>:<mig>" and "MIG-<uuid>" (the type-index strategy: "gpu0",
 * "mig0:1"), plus "all". The NVIDIA device plugin registers GPUs and MIG
 * devices by UUID (time-sliced replicas as "<uuid>::<n>").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/container.h"
#include "gpuaudit/preflight.h"
#include "gpuaudit/preflight-analyze.h"
#include "gpuaudit/verdict.h"
#include "verdict-int.h"

#define MAX_GPUS 64

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

const char *ga_cnt_driver_version(const struct ga_node *n)
{
	for (size_t i = 0; i < n->n_drivers; i++)
		if (streq(n->drivers[i].name, "nvidia") && n->drivers[i].version)
			return n->drivers[i].version;
	return n->nvml ? n->nvml->driver_version : NULL;
}

size_t ga_cnt_nvidia_gpus(const struct ga_node *n, struct ga_cnt_gpu *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!streq(a->vendor, "nvidia"))
			continue;
		if (k < max) {
			struct ga_cnt_gpu *g = &out[k];
			memset(g, 0, sizeof(*g));
			g->address = a->address;
			g->nvml = a->nvml;
			g->index = a->nvml && a->nvml->index.set ? a->nvml->index.v : k;
			g->uuid = a->uuid ? a->uuid : a->nvml ? a->nvml->uuid : NULL;
			g->minor = a->minor.set ? a->minor.v : UINT64_MAX;
			g->healthy = streq(a->driver, "nvidia") && !(a->excluded.set && a->excluded.v) &&
			             !(a->nvml && a->nvml->error);
			if (a->nvml && a->nvml->mig_enabled.set) {
				g->n_mig = a->nvml->mig_enabled.v ? a->nvml->n_mig_instances : 0;
			} else if (n->cdi && a->minor.set) {
				for (size_t m = 0; m < n->cdi->n_mig_devices; m++)
					if (n->cdi->mig_devices[m].gpu_minor.v == a->minor.v)
						g->n_mig++;
			}
		}
		k++;
	}
	return k;
}

/* --- CDI --- */

static bool known_cdi_version(const char *v)
{
	static const char *const known[] = { "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",
		                             "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0" };
	if (v && v[0] == 'v') /* the format's optional leading v: "v1.1.0" */
		v++;
	for (size_t i = 0; i < GA_ARRAY_SIZE(known); i++)
		if (streq(v, known[i]))
			return true;
	return false;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* CDI's name rule for a vendor, class or device: alphanumeric at both ends, extra inside. */
static bool name_ok(const char *s, size_t len, const char *extra, bool letter_first)
{
	if (!len || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	if (letter_first && !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_alnum(s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

/* "vendor.com/class": the reason it is not a CDI kind, or NULL. */
static const char *kind_bad(const char *kind)
{
	const char *slash = strchr(kind, '/');
	if (!slash || strchr(slash + 1, '/'))
		return "a kind is VENDOR/CLASS, e.g. nvidia.com/gpu";
	if (!name_ok(kind, (size_t)(slash - kind), "-_.", true))
		return "the vendor starts with a letter, ends alphanumeric and holds only letters, "
		       "digits, '-', '_' and '.'";
	if (!name_ok(slash + 1, strlen(slash + 1), "-_.", true))
		return "the class starts with a letter, ends alphanumeric and holds only letters, "
		       "digits, '-', '_' and '.'";
	return NULL;
}

static void invalid(struct ga_findings *out, const struct ga_cdi_spec *s, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void invalid(struct ga_findings *out, const struct ga_cdi_spec *s, const char *fmt, ...)
{
	char what[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	struct ga_finding *f = ga_findings_add(
	        out, GA_C_CDI_INVALID, GA_SEV_ERROR, s->path,
	        "fix or regenerate the spec (nvidia-ctk cdi generate --output=PATH for NVIDIA's); "
	        "runtimes refuse every device of a spec that does not validate",
	        "CDI spec %s is not valid: %s", s->path, what);
	ga_finding_evidence(f, "format", "%s", s->format ? s->format : "");
}

/* The first problem with the spec's own content, reported once; false when it is unusable. */
static bool validate(const struct ga_cdi_spec *s, struct ga_findings *out)
{
	if (s->error) {
		invalid(out, s, "%s", s->error);
		return false;
	}
	if (!known_cdi_version(s->cdi_version)) {
		invalid(out, s, "cdiVersion '%s' is not a released CDI version (0.1.0 to 1.1.0)",
		        s->cdi_version ? s->cdi_version : "");
		return false;
	}
	const char *why = s->kind ? kind_bad(s->kind) : "missing";
	if (why) {
		char msg[300];
		snprintf(msg, sizeof(msg), "kind '%s': %s", s->kind, why);
		invalid(out, s, "%s", msg);
		return false;
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		const char *nm = s->devices[i].name ? s->devices[i].name : "";
		if (!name_ok(nm, strlen(nm), "-_.:", false)) {
			invalid(out, s,
			        "device name '%s' must start and end alphanumeric and hold only letters, "
			        "digits, '-', '_', '.' and ':'",
			        nm);
			return false;
		}
		for (size_t j = 0; j < i; j++)
			if (streq(s->devices[j].name, nm)) {
				invalid(out, s, "device '%s' is defined twice", nm);
				return false;
			}
	}
	return true;
}

static bool is_nvidia_gpu_kind(const struct ga_cdi_spec *s)
{
	return streq(s->kind, "nvidia.com/gpu");
}

/* "12" -> 12; "" or any non-digit -> false. */
static bool parse_index(const char *s, size_t len, uint64_t *v)
{
	char buf[24];
	if (!len || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return ga_parse_u64(buf, 10, v) == 0;
}

/* A device name as (gpu index, mig index): "3" / "gpu3" -> (3, none), "3:1" / "mig3:1" -> (3, 1). */
static bool parse_name(const char *nm, uint64_t *gpu, bool *is_mig, uint64_t *mig)
{
	if (ga_startswith(nm, "mig"))
		nm += 3;
	else if (ga_startswith(nm, "gpu"))
		nm += 3;
	const char *colon = strchr(nm, ':');
	*is_mig = colon != NULL;
	if (!colon)
		return parse_index(nm, strlen(nm), gpu);
	return parse_index(nm, (size_t)(colon - nm), gpu) && parse_index(colon + 1, strlen(colon + 1), mig);
}

static const char *mig_uuid(const struct ga_cnt_gpu *g, size_t j)
{
	return g->nvml && j < g->nvml->n_mig_instances ? g->nvml->mig_instances[j].uuid : NULL;
}

/* Has any valid nvidia.com/gpu spec an entry for GPU g (mig == SIZE_MAX) or its MIG device mig? */
static bool covered(const struct ga_cdi *cdi, const bool *valid, const struct ga_cnt_gpu *g, size_t mig)
{
	for (size_t s = 0; s < cdi->n_specs; s++) {
		if (!valid[s] || !is_nvidia_gpu_kind(&cdi->specs[s]))
			continue;
		const struct ga_cdi_spec *sp = &cdi->specs[s];
		for (size_t d = 0; d < sp->n_devices; d++) {
			const char *nm = sp->devices[d].name;
			uint64_t gi, mi = 0;
			bool is_mig;
			if (mig == SIZE_MAX ? streq(nm, g->uuid) : streq(nm, mig_uuid(g, mig)))
				return true;
			if (parse_name(nm, &gi, &is_mig, &mi) && gi == g->index &&
			    (mig == SIZE_MAX ? !is_mig : (is_mig && mi == mig)))
				return true;
		}
	}
	return false;
}

static bool has_all(const struct ga_cdi *cdi, const bool *valid)
{
	for (size_t s = 0; s < cdi->n_specs; s++)
		if (valid[s] && is_nvidia_gpu_kind(&cdi->specs[s]))
			for (size_t d = 0; d < cdi->specs[s].n_devices; d++)
				if (streq(cdi->specs[s].devices[d].name, "all"))
					return true;
	return false;
}

static const char *const cdi_regen =
        "regenerate the NVIDIA CDI spec on this node (nvidia-ctk cdi generate --output=PATH; with "
        "the GPU Operator, restart its container-toolkit pod), then restart the pods that use it";

/* The verdict's entry of a PCI address, to mark it listed or not. */
static struct ga_vd_device *vd_device(struct ga_node_verdict *v, const char *address)
{
	return (struct ga_vd_device *)ga_node_verdict_device(v, address);
}

static void coverage(const struct ga_node *n, const bool *valid, const struct ga_cnt_gpu *gpus, size_t ng,
                     struct ga_node_verdict *v, struct ga_findings *out)
{
	const struct ga_cdi *cdi = n->cdi;
	bool any = false;
	for (size_t s = 0; s < cdi->n_specs; s++)
		any = any || (valid[s] && is_nvidia_gpu_kind(&cdi->specs[s]));
	if (!any)
		return;
	bool all = has_all(cdi, valid);
	for (size_t i = 0; i < ng; i++) {
		const struct ga_cnt_gpu *g = &gpus[i];
		bool listed = covered(cdi, valid, g, SIZE_MAX);
		struct ga_vd_device *vd = vd_device(v, g->address);
		if (vd)
			GA_SET(vd->cdi_listed, listed);
		v->cdi_unlisted.v += !listed;
		if (!listed) {
			struct ga_finding *f = ga_findings_add(
			        out, GA_C_CDI_DEVICE_MISSING, GA_SEV_ERROR, g->address, cdi_regen,
			        "no CDI device names GPU %llu (%s)%s: a pod that asks for it by name cannot "
			        "start",
			        (unsigned long long)g->index, g->uuid ? g->uuid : "UUID unknown",
			        all ? "; only 'all' reaches it" : "");
			ga_finding_evidence(f, "cdi_names", "nvidia.com/gpu=%llu, nvidia.com/gpu=%s",
			                    (unsigned long long)g->index, g->uuid ? g->uuid : "GPU-...");
		}
		for (size_t j = 0; j < g->n_mig; j++) {
			if (covered(cdi, valid, g, j))
				continue;
			v->cdi_unlisted.v++;
			char subj[96];
			snprintf(subj, sizeof(subj), "%s mig %zu", g->address ? g->address : "", j);
			const char *mu = mig_uuid(g, j);
			struct ga_finding *f = ga_findings_add(
			        out, GA_C_CDI_DEVICE_MISSING, GA_SEV_ERROR, subj, cdi_regen,
			        "no CDI device names MIG device %llu:%zu%s%s: the spec predates the MIG "
			        "layout",
			        (unsigned long long)g->index, j, mu ? " " : "", mu ? mu : "");
			ga_finding_evidence(f, "cdi_name", "nvidia.com/gpu=%llu:%zu",
			                    (unsigned long long)g->index, j);
			ga_finding_evidence(f, "mig_devices_on_gpu", "%zu", g->n_mig);
		}
	}
}

/* Does the named entry point at a GPU (or MIG device) that is not on the node? Why, or NULL. */
static const char *gone_why(const struct ga_cdi_device *d, const struct ga_cnt_gpu *gpus, size_t ng,
                            char *buf, size_t bufn)
{
	uint64_t gi, mi = 0;
	bool is_mig;
	const char *nm = d->name;
	if (ga_startswith(nm, "GPU-")) {
		for (size_t i = 0; i < ng; i++)
			if (!gpus[i].uuid || streq(gpus[i].uuid, nm))
				return NULL; /* found, or a UUID unknown: cannot tell */
		return "no GPU on the node has this UUID";
	}
	if (ga_startswith(nm, "MIG-")) {
		for (size_t i = 0; i < ng; i++) {
			if (gpus[i].n_mig && !gpus[i].nvml)
				return NULL; /* MIG UUIDs unknown */
			for (size_t j = 0; j < gpus[i].n_mig; j++)
				if (!mig_uuid(&gpus[i], j) || streq(mig_uuid(&gpus[i], j), nm))
					return NULL;
		}
		return "no MIG device on the node has this UUID";
	}
	if (parse_name(nm, &gi, &is_mig, &mi)) {
		const struct ga_cnt_gpu *g = NULL;
		for (size_t i = 0; i < ng; i++)
			if (gpus[i].index == gi)
				g = &gpus[i];
		if (!g) {
			snprintf(buf, bufn, "the node has %zu NVIDIA GPUs (indexes 0 to %zu)", ng,
			         ng ? ng - 1 : 0);
			return buf;
		}
		if (is_mig && mi >= g->n_mig) {
			snprintf(buf, bufn, "GPU %llu has %zu MIG devices", (unsigned long long)gi, g->n_mig);
			return buf;
		}
	}
	for (size_t k = 0; k < d->device_nodes.n; k++) {
		uint64_t minor;
		const char *p = d->device_nodes.v[k];
		if (!ga_startswith(p, "/dev/nvidia") || !parse_index(p + 11, strlen(p + 11), &minor))
			continue;
		bool found = false;
		for (size_t i = 0; i < ng; i++)
			found = found || gpus[i].minor == minor || gpus[i].minor == UINT64_MAX;
		if (!found) {
			snprintf(buf, bufn, "its device node %s is no GPU's on the node", p);
			return buf;
		}
	}
	return NULL;
}

static void spec_checks(const struct ga_node *n, const struct ga_cdi_spec *s, const struct ga_cnt_gpu *gpus,
                        size_t ng, struct ga_vd_cdi_spec *vs, size_t *gone, struct ga_findings *out)
{
	const char *drv = ga_cnt_driver_version(n);
	bool nvidia = ga_startswith(s->kind, "nvidia.com/");
	bool stale = nvidia && drv && s->driver_version && strcmp(drv, s->driver_version) != 0;
	if (nvidia && drv && s->driver_version)
		GA_SET(vs->stale, stale);
	GA_SET(vs->missing_paths, s->missing.n);
	if (stale) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_CDI_STALE, GA_SEV_ERROR, s->path, cdi_regen,
		        "CDI spec %s was generated for driver %s but the running driver is %s: containers "
		        "given these devices get the old driver's libraries, or none",
		        s->path, s->driver_version, drv);
		ga_finding_evidence(f, "spec_driver_version", "%s", s->driver_version);
		ga_finding_evidence(f, "driver_version", "%s", drv);
		ga_finding_evidence(f, "missing_paths", "%zu", s->missing.n);
	}
	if (s->missing.n) {
		char first[512] = "";
		size_t used = 0;
		for (size_t i = 0; i < s->missing.n && i < 4; i++) {
			int k = snprintf(first + used, sizeof(first) - used, "%s%s", i ? ", " : "",
			                 s->missing.v[i]);
			if (k < 0 || (size_t)k >= sizeof(first) - used)
				break;
			used += (size_t)k;
		}
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_CDI_PATH_MISSING, GA_SEV_ERROR, s->path,
		        stale ? cdi_regen
		              : "regenerate the spec, or restore what it names (a device node missing "
		                "after boot: nvidia-modprobe, or the driver's udev rules)",
		        "CDI spec %s names %zu path%s that %s not on the node (%s%s); the runtime fails "
		        "the container at create",
		        s->path, s->missing.n, s->missing.n == 1 ? "" : "s", s->missing.n == 1 ? "is" : "are",
		        first, s->missing.n > 4 ? ", ..." : "");
		ga_finding_evidence(f, "missing_paths", "%zu", s->missing.n);
	}
	if (!is_nvidia_gpu_kind(s))
		return;
	for (size_t d = 0; d < s->n_devices; d++) {
		char buf[160];
		const char *why = gone_why(&s->devices[d], gpus, ng, buf, sizeof(buf));
		if (!why)
			continue;
		(*gone)++;
		char subj[600];
		snprintf(subj, sizeof(subj), "%s=%s", s->kind, s->devices[d].name);
		struct ga_finding *f =
		        ga_findings_add(out, GA_C_CDI_DEVICE_GONE, GA_SEV_ERROR, subj, cdi_regen,
		                        "CDI device %s in %s points at a GPU that is not on the node: %s",
		                        subj, s->path, why);
		ga_finding_evidence(f, "spec", "%s", s->path);
	}
}

/*
 * The CDI state and its findings, decided together: invalid (GA-CDI-INVALID), stale
 * (GA-CDI-STALE, GA-CDI-PATH-MISSING), incomplete (GA-CDI-DEVICE-MISSING,
 * GA-CDI-DEVICE-GONE), none (no spec readable) or current.
 */
int ga_verdict_cdi(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out)
{
	const struct ga_cdi *cdi = n->cdi;
	if (!cdi || !cdi->n_specs)
		return 0;
	struct ga_cnt_gpu gpus[MAX_GPUS];
	size_t ng = ga_cnt_nvidia_gpus(n, gpus, MAX_GPUS);
	if (ng > MAX_GPUS)
		ng = MAX_GPUS;
	bool *valid = ga_calloc(cdi->n_specs, sizeof(*valid));
	v->cdi_specs = ga_calloc(cdi->n_specs, sizeof(*v->cdi_specs));
	if (!valid || !v->cdi_specs) {
		ga_free(valid);
		return out->err = -ENOMEM;
	}
	v->n_cdi_specs = cdi->n_specs;
	GA_SET(v->cdi_unlisted, 0);
	size_t gone = 0, readable = 0;
	bool any_invalid = false, stale = false;
	for (size_t s = 0; s < cdi->n_specs; s++) {
		struct ga_vd_cdi_spec *vs = &v->cdi_specs[s];
		if (cdi->specs[s].path && !(vs->path = ga_strdup(cdi->specs[s].path))) {
			ga_free(valid);
			return out->err = -ENOMEM;
		}
		readable += !cdi->specs[s].error;
		valid[s] = validate(&cdi->specs[s], out);
		GA_SET(vs->valid, valid[s]);
		any_invalid = any_invalid || !valid[s];
		if (valid[s])
			spec_checks(n, &cdi->specs[s], gpus, ng, vs, &gone, out);
		stale = stale || (vs->stale.set && vs->stale.v) ||
		        (vs->missing_paths.set && vs->missing_paths.v);
	}
	coverage(n, valid, gpus, ng, v, out);
	ga_free(valid);
	GA_SET(v->cdi_gone, gone);
	v->cdi = any_invalid                 ? GA_VD_CDI_INVALID
	         : stale                     ? GA_VD_CDI_STALE
	         : v->cdi_unlisted.v || gone ? GA_VD_CDI_INCOMPLETE
	         : readable == 0             ? GA_VD_CDI_NONE
	                                     : GA_VD_CDI_CURRENT;
	return out->err;
}

void ga_analyze_cdi(const struct ga_node *n, struct ga_findings *out)
{
	struct ga_node_verdict v = { 0 };
	ga_verdict_cdi(n, &v, out);
	ga_node_verdict_release(&v);
}

/* --- device plugins --- */

static bool is_nvidia_resource(const char *name)
{
	return streq(name, "nvidia.com/gpu") || ga_startswith(name, "nvidia.com/mig-");
}

/* A registered ID without a time-slicing replica suffix ("GPU-x::3" -> "GPU-x"), in buf. */
static const char *base_id(const char *id, char *buf, size_t bufn)
{
	const char *sep = strstr(id, "::");
	if (!sep)
		return id;
	snprintf(buf, bufn, "%.*s", (int)(sep - id), id);
	return buf;
}

static bool registered(const struct ga_device_plugins *dp, const char *uuid)
{
	for (size_t r = 0; r < dp->n_resources; r++) {
		if (!is_nvidia_resource(dp->resources[r].name))
			continue;
		for (size_t i = 0; i < dp->resources[r].devices.n; i++) {
			char buf[128];
			if (streq(base_id(dp->resources[r].devices.v[i], buf, sizeof(buf)), uuid))
				return true;
		}
	}
	return false;
}

static bool has_socket(const struct ga_device_plugins *dp, const char *needle)
{
	for (size_t i = 0; i < dp->sockets.n; i++)
		if (strstr(dp->sockets.v[i], needle))
			return true;
	return false;
}

static const char *const dp_restart =
        "restart the device plugin pod on this node (kubectl -n <namespace> delete pod <plugin pod>) "
        "and read its log; if the GPU is healthy it registers again";

/* Registered IDs that are no device of the node (after a GPU was replaced or fell off the bus). */
static void nvidia_gone(const struct ga_device_plugins *dp, const struct ga_cnt_gpu *gpus, size_t ng,
                        struct ga_findings *out)
{
	bool uuids_known = ng > 0;
	for (size_t i = 0; i < ng; i++)
		uuids_known = uuids_known && gpus[i].uuid;
	for (size_t r = 0; r < dp->n_resources && uuids_known; r++) {
		if (!is_nvidia_resource(dp->resources[r].name))
			continue;
		for (size_t i = 0; i < dp->resources[r].devices.n; i++) {
			char buf[128];
			const char *id = base_id(dp->resources[r].devices.v[i], buf, sizeof(buf));
			if (!ga_startswith(id, "GPU-"))
				continue;
			bool found = false;
			for (size_t g = 0; g < ng && !found; g++)
				found = streq(gpus[g].uuid, id);
			if (found)
				continue;
			struct ga_finding *f =
			        ga_findings_add(out, GA_C_DP_DEVICE_GONE, GA_SEV_WARNING, id, dp_restart,
			                        "the kubelet has %s registered under %s, but no GPU on the "
			                        "node has that UUID",
			                        id, dp->resources[r].name);
			ga_finding_evidence(f, "resource", "%s", dp->resources[r].name);
		}
	}
}

static void nvidia_plugin(const struct ga_node *n, const struct ga_device_plugins *dp,
                          struct ga_node_verdict *v, struct ga_findings *out)
{
	struct ga_cnt_gpu gpus[MAX_GPUS];
	size_t ng = ga_cnt_nvidia_gpus(n, gpus, MAX_GPUS);
	if (ng > MAX_GPUS)
		ng = MAX_GPUS;
	size_t healthy = 0, expected = 0, nres = 0, nreg = 0;
	bool mig_resources = false;
	for (size_t r = 0; r < dp->n_resources; r++) {
		if (!is_nvidia_resource(dp->resources[r].name))
			continue;
		nres++;
		mig_resources = mig_resources || ga_startswith(dp->resources[r].name, "nvidia.com/mig-");
		for (size_t i = 0; i < dp->resources[r].devices.n; i++) {
			const char *id = dp->resources[r].devices.v[i];
			/* count each physical device once (time-sliced replicas "<uuid>::<n>" share it) */
			if (strstr(id, "::") && strcmp(strstr(id, "::"), "::0") != 0)
				continue;
			nreg++;
			mig_resources = mig_resources || ga_startswith(id, "MIG-");
		}
	}
	for (size_t i = 0; i < ng; i++) {
		if (!gpus[i].healthy)
			continue;
		healthy++;
		expected += mig_resources && gpus[i].n_mig ? gpus[i].n_mig : 1;
	}
	if (!ng)
		return;
	GA_SET(v->dp_registered, nreg);
	GA_SET(v->dp_expected, expected);
	if (!nres) {
		if (!dp->checkpoint && !(dp->kubelet_socket.set && dp->kubelet_socket.v))
			return; /* no kubelet on this node */
		v->device_plugin = GA_VD_DP_MISSING;
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_DP_NOT_REGISTERED, GA_SEV_ERROR, "nvidia.com/gpu",
		        "deploy the NVIDIA device plugin (or the GPU Operator) to this node, or restart it: "
		        "until it registers, the node's allocatable nvidia.com/gpu is 0",
		        "the node has %zu NVIDIA GPUs but no device plugin registered any nvidia.com "
		        "resource "
		        "with the kubelet",
		        ng);
		ga_finding_evidence(f, "gpus", "%zu", ng);
		ga_finding_evidence(f, "plugin_socket", "%s",
		                    has_socket(dp, "nvidia") ? "present" : "absent");
		return;
	}
	if (!has_socket(dp, "nvidia")) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_DP_SOCKET_MISSING, GA_SEV_WARNING, dp->dir ? dp->dir : "device-plugins",
		        dp_restart,
		        "the kubelet's checkpoint lists nvidia.com devices but no NVIDIA plugin socket "
		        "(nvidia-*.sock) is in %s: the plugin is not running, and the kubelet stops "
		        "advertising its GPUs",
		        dp->dir ? dp->dir : "the device-plugins directory");
		ga_finding_evidence(f, "sockets", "%zu", dp->sockets.n);
	}
	if (nreg < expected) {
		v->device_plugin = GA_VD_DP_PARTIAL;
		char missing[512] = "";
		size_t used = 0, nmiss = 0;
		for (size_t i = 0; i < ng; i++) {
			if (!gpus[i].healthy || !gpus[i].uuid || (mig_resources && gpus[i].n_mig) ||
			    registered(dp, gpus[i].uuid))
				continue;
			nmiss++;
			int k = snprintf(missing + used, sizeof(missing) - used, "%s%s", used ? ", " : "",
			                 gpus[i].uuid);
			if (k > 0 && (size_t)k < sizeof(missing) - used)
				used += (size_t)k;
		}
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_DP_GPU_UNREGISTERED, GA_SEV_ERROR, "nvidia.com/gpu", dp_restart,
		        "the device plugin registered %zu of the %zu NVIDIA devices that are present and "
		        "healthy%s%s: pods cannot be given the rest",
		        nreg, expected, nmiss ? "; not registered: " : "", missing);
		ga_finding_evidence(f, "registered", "%zu", nreg);
		ga_finding_evidence(f, "healthy_devices", "%zu", expected);
		ga_finding_evidence(f, "healthy_gpus", "%zu", healthy);
	}
	nvidia_gone(dp, gpus, ng, out);
}

/* AMD and Intel: counts only (their plugins' device IDs are PCI addresses and card names). */
static void other_plugin(const struct ga_node *n, const struct ga_device_plugins *dp, const char *vendor,
                         const char *prefix, const char *sock, struct ga_node_verdict *v,
                         struct ga_findings *out)
{
	size_t ng = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (streq(a->vendor, vendor) && a->driver && strcmp(a->driver, "vfio-pci") != 0)
			ng++;
	}
	if (!ng)
		return;
	size_t nreg = 0, nres = 0;
	for (size_t r = 0; r < dp->n_resources; r++)
		if (ga_startswith(dp->resources[r].name, prefix)) {
			nres++;
			nreg += dp->resources[r].devices.n;
		}
	if (!nres && (dp->checkpoint || (dp->kubelet_socket.set && dp->kubelet_socket.v))) {
		v->device_plugin = GA_VD_DP_MISSING;
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_DP_NOT_REGISTERED, GA_SEV_ERROR, prefix,
		        "deploy the vendor's device plugin to this node, or restart it: until it registers, "
		        "the node advertises none of these GPUs",
		        "the node has %zu %s GPUs but no device plugin registered a %s resource with the "
		        "kubelet",
		        ng, vendor, prefix);
		ga_finding_evidence(f, "gpus", "%zu", ng);
		ga_finding_evidence(f, "plugin_socket", "%s", has_socket(dp, sock) ? "present" : "absent");
	} else if (nres && nreg < ng) {
		if (v->device_plugin != GA_VD_DP_MISSING)
			v->device_plugin = GA_VD_DP_PARTIAL;
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_DP_GPU_UNREGISTERED, GA_SEV_ERROR, prefix, dp_restart,
		        "the device plugin registered %zu %s devices for %zu %s GPUs: pods cannot be given "
		        "the rest",
		        nreg, prefix, ng, vendor);
		ga_finding_evidence(f, "registered", "%zu", nreg);
		ga_finding_evidence(f, "gpus", "%zu", ng);
	}
}

/*
 * The device-plugin state and its findings, decided together: missing
 * (GA-DP-NOT-REGISTERED) over partial (GA-DP-GPU-UNREGISTERED) over unknown (a
 * damaged checkpoint, GA-DP-CHECKPOINT-INVALID, leaves nothing to count) over ok.
 */
int ga_verdict_device_plugins(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out)
{
	const struct ga_device_plugins *dp = n->device_plugins;
	if (!dp)
		return 0;
	v->device_plugin = GA_VD_DP_OK;
	if (dp->checkpoint_error) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_DP_CHECKPOINT_INVALID, GA_SEV_WARNING,
		        dp->checkpoint ? dp->checkpoint : "checkpoint",
		        "the kubelet rewrites the checkpoint on its next device change; if it stays damaged, "
		        "stop the kubelet, move the file aside and start it (pods keep running)",
		        "the kubelet's device-plugin checkpoint could not be read: %s", dp->checkpoint_error);
		(void)f;
	}
	nvidia_plugin(n, dp, v, out);
	other_plugin(n, dp, "amd", "amd.com/", "amd", v, out);
	other_plugin(n, dp, "intel", "gpu.intel.com/", "intel", v, out);
	if (dp->checkpoint_error && v->device_plugin == GA_VD_DP_OK)
		v->device_plugin = GA_VD_DP_UNKNOWN;
	return out->err;
}

void ga_analyze_device_plugins(const struct ga_node *n, struct ga_findings *out)
{
	struct ga_node_verdict v = { 0 };
	ga_verdict_device_plugins(n, &v, out);
	ga_node_verdict_release(&v);
}

/* Engines wired to the NVIDIA runtime, and whether each defaults to it. */
int ga_verdict_runtime(const struct ga_node *n, struct ga_node_verdict *v)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	if (!cr)
		return 0;
	bool all_default = true;
	for (size_t i = 0; i < cr->n_engines; i++) {
		const struct ga_ctr_engine *e = &cr->engines[i];
		if (!e->wired.v || !e->name)
			continue;
		if (ga_strv_push(&v->runtime_wired, e->name) < 0)
			return -ENOMEM;
		all_default = all_default && e->default_nvidia.v;
	}
	if (v->runtime_wired.n)
		GA_SET(v->runtime_default_nvidia, all_default);
	return 0;
}

/* --- preflight inside a container: what the container sees against the node --- */

static bool is_gpu_node(const char *p)
{
	if (!ga_startswith(p, "/dev/nvidia") || !p[11])
		return false;
	for (const char *q = p + 11; *q; q++)
		if (*q < '0' || *q > '9')
			return false;
	return true;
}

/* Entries of NVIDIA_VISIBLE_DEVICES: SIZE_MAX for "all", 0 for none/void/empty, SIZE_MAX - 1 when
 * MIG devices are named (no GPU count to compare), else the count. */
static size_t nvd_count(const char *v)
{
	if (!strcmp(v, "all"))
		return SIZE_MAX;
	if (!*v || !strcmp(v, "none") || !strcmp(v, "void"))
		return 0;
	/* MIG devices ("MIG-<uuid>", "0:1") share their GPU's /dev/nvidiaN: no count to compare */
	if (strstr(v, "MIG-") || strchr(v, ':'))
		return SIZE_MAX - 1;
	size_t k = 1;
	for (const char *p = v; *p; p++)
		k += *p == ',';
	return k;
}

static int container_findings(struct ga_pf_doc_container *c, const char *nvd)
{
	struct ga_findings *out = &c->findings;
	size_t vis = c->visible_devices.n, gpus = c->node_gpus.v;
	size_t want = nvd ? nvd_count(nvd) : SIZE_MAX - 1; /* unset: CDI or --device decides */
	if (gpus && !vis && want != 0) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_CONTAINER_NO_GPU, GA_SEV_ERROR, "container",
		        nvd ? "the container was not started by the NVIDIA runtime: set it as the runtime "
		              "(docker run --runtime=nvidia / --gpus, runtimeClassName: nvidia) or ask for "
		              "CDI devices (--device nvidia.com/gpu=all)"
		            : "give the container its GPUs: docker run --gpus all or --device "
		              "nvidia.com/gpu=all, or request nvidia.com/gpu in the pod's resources",
		        "the node has %zu NVIDIA GPU%s but the container sees no /dev/nvidiaN%s%s%s", gpus,
		        gpus == 1 ? "" : "s", nvd ? " although NVIDIA_VISIBLE_DEVICES=" : "", nvd ? nvd : "",
		        nvd ? " is set" : "");
		ga_finding_evidence(f, "node_gpus", "%zu", gpus);
	} else if (nvd && want != SIZE_MAX - 1 && want != 0 &&
	           ((want == SIZE_MAX && vis < gpus) || (want != SIZE_MAX && vis != want))) {
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_CONTAINER_VISIBLE_MISMATCH, GA_SEV_WARNING, "container",
		        "check which devices the runtime injected: with CDI the devices requested decide, "
		        "not NVIDIA_VISIBLE_DEVICES; with the device plugin the kubelet's allocation does",
		        "NVIDIA_VISIBLE_DEVICES=%s asks for %s but the container sees %zu of the node's %zu "
		        "GPUs",
		        nvd, want == SIZE_MAX ? "all of them" : "a list of devices", vis, gpus);
		ga_finding_evidence(f, "visible", "%zu", vis);
		if (want != SIZE_MAX)
			ga_finding_evidence(f, "requested", "%zu", want);
	}
	bool cuda = false;
	for (size_t i = 0; i < c->n_libraries; i++) {
		const struct ga_pf_doc_lib *l = &c->libraries[i];
		cuda = cuda || strstr(l->path, "/libcuda.so") != NULL;
		if (!l->version || !c->driver_version || !strcmp(l->version, c->driver_version))
			continue;
		struct ga_finding *f = ga_findings_add(
		        out, GA_C_CONTAINER_LIB_MISMATCH, GA_SEV_ERROR, l->path,
		        "remove the driver libraries baked into the image (libcuda.so.*, libnvidia-ml.so.*: "
		        "the runtime mounts the host's); if the runtime mounted them, the host's CDI spec is "
		        "stale (regenerate it)",
		        "the container's %s is version %s but the node runs driver %s: CUDA fails with "
		        "'driver/library version mismatch' or 'CUDA driver version is insufficient'",
		        l->path, l->version, c->driver_version);
		ga_finding_evidence(f, "library_version", "%s", l->version);
		ga_finding_evidence(f, "driver_version", "%s", c->driver_version);
	}
	if (vis && !cuda)
		ga_findings_add(
		        out, GA_C_CONTAINER_NO_DRIVER_LIB, GA_SEV_ERROR, "container",
		        "the runtime gave the devices but not the driver's libraries: include "
		        "compute,utility in NVIDIA_DRIVER_CAPABILITIES, or regenerate the CDI spec so "
		        "it mounts them",
		        "the container sees %zu GPU%s but no libcuda.so: CUDA cannot start", vis,
		        vis == 1 ? "" : "s");
	ga_findings_sort(out);
	return out->err;
}

int ga_pf_container_view(const struct ga_node *n, const char *nvd, bool kubernetes_env,
                         struct ga_pf_doc_container **ret)
{
	*ret = NULL;
	const char *by = n->host.virt.container ? n->host.virt.container : kubernetes_env ? "env" : NULL;
	size_t gpus = 0;
	for (size_t i = 0; n->accelerators && i < n->n_accelerators; i++)
		gpus += streq(n->accelerators[i].vendor, "nvidia");
	if (!by || !gpus) /* the view compares NVIDIA GPUs: nothing to compare on a node without them */
		return 0;
	int r = -ENOMEM;
	struct ga_pf_doc_container *c = ga_calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	ga_findings_init(&c->findings);
	const char *drv = ga_cnt_driver_version(n);
	if (!(c->detected_by = ga_strdup(by)) || (nvd && !(c->nvidia_visible_devices = ga_strdup(nvd))) ||
	    (drv && !(c->driver_version = ga_strdup(drv))))
		goto out;
	GA_SET(c->node_gpus, gpus);
	for (size_t i = 0; i < n->device_nodes.n; i++)
		if (is_gpu_node(n->device_nodes.v[i]) &&
		    ga_strv_push(&c->visible_devices, n->device_nodes.v[i]) < 0)
			goto out;
	for (size_t i = 0; i < n->n_runtimes; i++) {
		const struct ga_runtime *rt = &n->runtimes[i];
		if (!rt->path || (!streq(rt->name, "libcuda") && !streq(rt->name, "libnvidia-ml")))
			continue;
		struct ga_pf_doc_lib *l = ga_array_push((void **)&c->libraries, &c->n_libraries, sizeof(*l));
		if (!l || !(l->path = ga_strdup(rt->path)) ||
		    (rt->version && !(l->version = ga_strdup(rt->version))))
			goto out;
	}
	r = container_findings(c, nvd);
	if (r < 0)
		goto out;
	*ret = c;
	c = NULL;
out:
	ga_pf_container_free(c);
	return r;
}
