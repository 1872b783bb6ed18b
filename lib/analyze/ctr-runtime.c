/*
 * ctr-runtime.c - findings from the container layer of a snapshot
 * (node->container_runtime, lib/collect/ctr-runtime.c): "the GPU is there but
 * the container cannot use it" causes that the files show before a pod fails.
 *
 * Pure: reads only the snapshot. A node without a container engine gets no
 * toolkit findings (a bare-metal Slurm node needs no toolkit); what a value
 * the snapshot lacks would decide is never guessed. docs/container.md lists
 * every code with its fix.
 */
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"

static const char *const default_groups[] = { "render", "video" };

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static bool has_vendor(const struct ga_node *n, const char *vendor)
{
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (streq(n->accelerators[i].vendor, vendor))
			return true;
	return false;
}

const struct ga_ctr_toolkit *ga_ctr_toolkit_of(const struct ga_node *n, const char *vendor)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	for (size_t i = 0; cr && i < cr->n_toolkits; i++)
		if (streq(cr->toolkits[i].vendor, vendor))
			return &cr->toolkits[i];
	return NULL;
}

const char *ga_ctr_default_runtime(const struct ga_ctr_engine *e)
{
	if (e->default_runtime)
		return e->default_runtime;
	return streq(e->name, "crio") ? "(CRI-O built-in)" : "runc";
}

bool ga_ctr_device_open_for(const struct ga_ctr_device *d, const char *const *groups, size_t n_groups)
{
	uint64_t mode;
	if (!d->mode || ga_parse_u64(d->mode, 8, &mode) < 0)
		return true; /* not known: no verdict */
	if ((mode & 006) == 006)
		return true;
	if ((mode & 060) != 060)
		return false;
	if (!groups) {
		groups = default_groups;
		n_groups = GA_ARRAY_SIZE(default_groups);
	}
	char gid[24] = "";
	if (d->gid.set)
		snprintf(gid, sizeof(gid), "%llu", (unsigned long long)d->gid.v);
	for (size_t i = 0; i < n_groups; i++)
		if (streq(groups[i], d->group) || (*gid && streq(groups[i], gid)))
			return true;
	return false;
}

/* A runtime name every engine of that kind knows without configuration. */
static bool builtin_runtime(const struct ga_ctr_engine *e, const char *name)
{
	if (!strcmp(name, "runc"))
		return true;
	if (streq(e->name, "docker"))
		return !strcmp(name, "io.containerd.runc.v2");
	if (streq(e->name, "crio"))
		return !strcmp(name, "crun");
	return false;
}

static bool has_runtime(const struct ga_ctr_engine *e, const char *name)
{
	for (size_t i = 0; i < e->n_runtimes; i++)
		if (streq(e->runtimes[i].name, name))
			return true;
	return builtin_runtime(e, name);
}

static const char *configure_cmd(const struct ga_ctr_engine *e)
{
	return streq(e->name, "docker")
	               ? "nvidia-ctk runtime configure --runtime=docker && systemctl restart docker"
	       : streq(e->name, "crio")
	               ? "nvidia-ctk runtime configure --runtime=crio && systemctl restart crio"
	               : "nvidia-ctk runtime configure --runtime=containerd && systemctl restart "
	                 "containerd";
}

static void engine_findings(const struct ga_ctr_engine *e, bool nv_gpus, const struct ga_ctr_toolkit *nvtk,
                            struct ga_findings *out)
{
	const char *name = e->name ? e->name : "engine";
	if (e->config_error) {
		struct ga_finding *f =
		        ga_findings_add(out, GA_C_CTR_CONFIG_INVALID, GA_SEV_ERROR, name,
		                        "fix the file at the line and column given (the engine refuses "
		                        "to start or falls back to its defaults with it), then restart "
		                        "the engine",
		                        "%s configuration does not parse: %s", name, e->config_error);
		if (f && e->config)
			ga_finding_evidence(f, "config", "%s", e->config);
	}
	if (e->default_runtime && !has_runtime(e, e->default_runtime))
		ga_findings_add(
		        out, GA_C_CTR_DEFAULT_UNDEFINED, GA_SEV_ERROR, name,
		        "define the runtime (nvidia-ctk runtime configure) or point the default at one that "
		        "is defined, then restart the engine",
		        "%s's default runtime \"%s\" is not defined: the engine fails to start containers "
		        "(or to start at all)",
		        name, e->default_runtime);
	for (size_t i = 0; i < e->n_runtimes; i++) {
		const struct ga_ctr_oci_runtime *r = &e->runtimes[i];
		if (!r->vendor || !r->binary_found.set || r->binary_found.v)
			continue;
		struct ga_finding *f =
		        ga_findings_add(out, GA_C_CTR_RUNTIME_BINARY_MISSING, GA_SEV_ERROR, name,
		                        "install the vendor's container toolkit, or point the runtime at the "
		                        "binary's real path",
		                        "%s runtime \"%s\" names %s, which does not exist: every container "
		                        "started with it fails "
		                        "(\"executable file not found\")",
		                        name, r->name, r->binary);
		if (f && r->source)
			ga_finding_evidence(f, "config", "%s", r->source);
	}
	if (!nv_gpus || !nvtk || !nvtk->installed.v)
		return;
	if (e->cri_disabled.v)
		return; /* containerd serving only Docker: Docker's own configuration is what counts */
	bool docker = streq(e->name, "docker");
	if (!e->wired.v) {
		/* docker run --gpus goes through the toolkit's hook, not a runtime entry */
		bool hook = false;
		for (size_t i = 0; i < nvtk->binaries.n; i++)
			hook |= strstr(nvtk->binaries.v[i], "/nvidia-container-runtime-hook") != NULL;
		ga_findings_add(
		        out, GA_C_CTR_NOT_WIRED, docker && hook ? GA_SEV_INFO : GA_SEV_WARNING, name,
		        configure_cmd(e),
		        docker && hook
		                ? "docker has no NVIDIA runtime: docker run --gpus works (through the "
		                  "toolkit's hook), --runtime=nvidia and Kubernetes through it do not"
		                : "%s has no NVIDIA runtime configured: containers it starts get no GPU",
		        name);
		return;
	}
	if (e->default_nvidia.v)
		return;
	const char *def = ga_ctr_default_runtime(e);
	struct ga_finding *f;
	if (docker)
		f = ga_findings_add(
		        out, GA_C_CTR_DEFAULT_RUNTIME, GA_SEV_INFO, name,
		        "set \"default-runtime\": \"nvidia\" in /etc/docker/daemon.json (nvidia-ctk "
		        "runtime configure --runtime=docker --set-as-default) if containers started "
		        "without --gpus or --runtime must see GPUs",
		        "docker's default runtime is %s, not the NVIDIA runtime: only containers started "
		        "with --gpus or --runtime=nvidia see GPUs",
		        def);
	else
		f = ga_findings_add(
		        out, GA_C_CTR_DEFAULT_RUNTIME, GA_SEV_WARNING, name,
		        "make nvidia the default runtime (nvidia-ctk runtime configure --set-as-default), "
		        "or give every GPU pod runtimeClassName: nvidia",
		        "%s's default runtime is %s, not the NVIDIA runtime: pods without "
		        "runtimeClassName nvidia (the device plugin's too, unless it sets one) get no GPU",
		        name, def);
	if (f)
		ga_finding_evidence(f, "default_runtime", "%s", def);
}

static void toolkit_findings(const struct ga_ctr_toolkit *tk, struct ga_findings *out)
{
	if (tk->config_error)
		ga_findings_add(
		        out, GA_C_CTR_CONFIG_INVALID, GA_SEV_ERROR, tk->config ? tk->config : "toolkit",
		        "fix the file at the line and column given (nvidia-ctk config --in-place rewrites "
		        "a valid one)",
		        "the NVIDIA container toolkit's configuration does not parse: %s", tk->config_error);
	if (tk->ldconfig && tk->ldconfig_found.set && !tk->ldconfig_found.v)
		ga_findings_add(
		        out, GA_C_CTR_LDCONFIG_MISSING, GA_SEV_WARNING, tk->config ? tk->config : "toolkit",
		        "set [nvidia-container-cli] ldconfig to the host's ldconfig (\"@/sbin/ldconfig\" on "
		        "most distributions, \"@/sbin/ldconfig.real\" on Ubuntu)",
		        "ldconfig = \"%s\" names a file the host does not have: containers fail with "
		        "\"ldcache error\"",
		        tk->ldconfig);
}

static void device_findings(const struct ga_container_runtime *cr, struct ga_findings *out)
{
	for (size_t i = 0; i < cr->n_engines; i++)
		if (cr->engines[i].device_ownership_from_security_context.v)
			return; /* Kubernetes hands the devices to the pod's user and group */
	for (size_t i = 0; i < cr->n_devices; i++) {
		const struct ga_ctr_device *d = &cr->devices[i];
		if (ga_ctr_device_open_for(d, NULL, 0))
			continue;
		char og[160];
		snprintf(og, sizeof(og), "%s:%s", d->owner ? d->owner : "?", d->group ? d->group : "?");
		struct ga_finding *f =
		        ga_findings_add(out, GA_C_CTR_DEVICE_ACCESS, GA_SEV_WARNING, d->path,
		                        "give the device group render (udev: KERNEL==\"kfd\" / "
		                        "SUBSYSTEM==\"drm\", GROUP=\"render\", "
		                        "MODE=\"0660\") and run containers with that group (docker "
		                        "--group-add with the host's "
		                        "numeric gid; Kubernetes supplementalGroups), or set "
		                        "device_ownership_from_security_context "
		                        "= true in containerd/CRI-O",
		                        "%s is %s %s: a container process that is neither root nor in group "
		                        "%s cannot open it "
		                        "(ROCm: \"No HIP GPUs are available\"; Level Zero: no devices)",
		                        d->path, og, d->mode, d->group ? d->group : "?");
		if (f && d->gid.set)
			ga_finding_evidence(f, "gid", "%llu", (unsigned long long)d->gid.v);
	}
}

void ga_analyze_container_runtime(const struct ga_node *n, struct ga_findings *out)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	if (!cr)
		return;
	bool nv = has_vendor(n, "nvidia");
	const struct ga_ctr_toolkit *nvtk = ga_ctr_toolkit_of(n, "nvidia");
	for (size_t i = 0; i < cr->n_toolkits; i++)
		toolkit_findings(&cr->toolkits[i], out);
	if (nv && cr->n_engines && (!nvtk || !nvtk->installed.v)) {
		char engines[128] = "";
		for (size_t i = 0; i < cr->n_engines; i++) {
			size_t l = strlen(engines);
			snprintf(engines + l, sizeof(engines) - l, "%s%s", i ? ", " : "",
			         cr->engines[i].name ? cr->engines[i].name : "?");
		}
		ga_findings_add(
		        out, GA_C_CTR_TOOLKIT_MISSING, GA_SEV_WARNING, "nvidia-container-toolkit",
		        "install the NVIDIA container toolkit (package nvidia-container-toolkit), run "
		        "nvidia-ctk runtime configure --runtime=<engine> and restart the engine",
		        "NVIDIA GPUs and a container engine (%s), but no NVIDIA container toolkit: "
		        "containers "
		        "get no GPU",
		        engines);
	}
	for (size_t i = 0; i < cr->n_engines; i++)
		engine_findings(&cr->engines[i], nv, nvtk, out);
	device_findings(cr, out);
}
