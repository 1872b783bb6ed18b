/*
 * vendor.c - the vendor-library views of a snapshot: decide whether to run
 * them, run each in the isolated helper, and merge the result with the sysfs
 * view by PCI address. A failure or timeout is recorded in the snapshot
 * (node.nvml.error / timed_out) and becomes a finding; the sysfs view stands.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "gpuaudit/isolate.h"

static bool want(struct ga_col *c, const char *vendor, const char *driver)
{
	if (c->ctx->vendor_mode == GA_VENDOR_OFF)
		return false;
	if (c->ctx->vendor_mode == GA_VENDOR_AUTO && strcmp(c->ctx->root, "/") != 0)
		return false; /* a recorded tree: the host's library describes another machine */
	const struct ga_node *n = c->node;
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].vendor && !strcmp(n->accelerators[i].vendor, vendor))
			return true;
	for (size_t i = 0; i < n->n_drivers; i++)
		if (!strcmp(n->drivers[i].name, driver))
			return true;
	return false;
}

static bool unmatched_nvidia(const struct ga_accel *a)
{
	return !a->nvml && a->vendor && !strcmp(a->vendor, "nvidia");
}

static int attach(struct ga_accel *a, struct ga_nvml_gpu *g)
{
	if (!a->model && g->name && !(a->model = ga_strdup(g->name)))
		return -ENOMEM;
	if (!a->uuid && g->uuid && !(a->uuid = ga_strdup(g->uuid)))
		return -ENOMEM;
	if (!a->minor.set && g->minor.set)
		a->minor = g->minor;
	if (!a->memory_bytes.set && g->memory_total_bytes.set)
		a->memory_bytes = g->memory_total_bytes;
	struct ga_nvml_gpu *copy = ga_malloc(sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	*copy = *g; /* ownership moves with the bytes */
	memset(g, 0, sizeof(*g));
	a->nvml = copy;
	return 0;
}

int ga_node_merge_nvml(struct ga_node *n, struct ga_nvml_report *rep)
{
	/* 1. by PCI address */
	for (size_t i = 0; i < rep->n_gpus; i++) {
		struct ga_nvml_gpu *g = &rep->gpus[i];
		for (size_t k = 0; k < n->n_accelerators && g->pci_bus_id; k++) {
			struct ga_accel *a = &n->accelerators[k];
			if (unmatched_nvidia(a) && a->address && !strcmp(a->address, g->pci_bus_id)) {
				if (attach(a, g) < 0)
					return -ENOMEM;
				break;
			}
		}
	}
	/*
	 * 2. A GPU NVML could not even open (lost, no permission) has no bus id. NVML numbers
	 * GPUs in PCI order, so when the leftovers on both sides are equally many, the k-th
	 * leftover NVML index is the k-th leftover sysfs GPU in address order.
	 */
	size_t left_nvml = 0, left_sysfs = 0;
	for (size_t i = 0; i < rep->n_gpus; i++)
		left_nvml += rep->gpus[i].index.set && !rep->gpus[i].pci_bus_id;
	for (size_t k = 0; k < n->n_accelerators; k++)
		left_sysfs += unmatched_nvidia(&n->accelerators[k]);
	if (left_nvml && left_nvml == left_sysfs) {
		size_t k = 0;
		for (size_t i = 0; i < rep->n_gpus; i++) {
			struct ga_nvml_gpu *g = &rep->gpus[i];
			if (!g->index.set || g->pci_bus_id)
				continue;
			while (k < n->n_accelerators && !unmatched_nvidia(&n->accelerators[k]))
				k++;
			if (k < n->n_accelerators && attach(&n->accelerators[k], g) < 0)
				return -ENOMEM;
		}
	}
	/* 3. the rest get entries of their own (e.g. sysfs masked in a container) */
	for (size_t i = 0; i < rep->n_gpus; i++) {
		struct ga_nvml_gpu *g = &rep->gpus[i];
		if (!g->index.set)
			continue; /* moved */
		struct ga_accel *a = ga_array_push((void **)&n->accelerators, &n->n_accelerators, sizeof(*a));
		if (!a)
			return -ENOMEM;
		GA_SET(a->index, n->n_accelerators - 1);
		a->vendor = ga_strdup("nvidia");
		a->driver = ga_strdup("nvidia");
		if (!a->vendor || !a->driver || (g->pci_bus_id && !(a->address = ga_strdup(g->pci_bus_id))))
			return -ENOMEM;
		if (attach(a, g) < 0)
			return -ENOMEM;
	}
	rep->n_gpus = 0; /* everything moved; the array itself is freed by the caller */
	if (!n->nvml) {
		n->nvml = ga_malloc(sizeof(*n->nvml));
		if (!n->nvml)
			return -ENOMEM;
		*n->nvml = rep->sys;
		memset(&rep->sys, 0, sizeof(rep->sys));
	}
	return 0;
}

static void nvml(struct ga_col *c)
{
	struct ga_nvml_report rep;
	memset(&rep, 0, sizeof(rep));
	struct ga_isolate_result res;
	int r = ga_isolated_collect(c->ctx, "nvml", &ga_nvml_report_schema, &rep, &res);
	if (r == -ENOMEM) {
		c->err = r;
		goto out;
	}
	if (r < 0) {
		/* the helper's partial output is not trusted: keep only what went wrong */
		ga_schema_release(&ga_nvml_report_schema, &rep);
		memset(&rep, 0, sizeof(rep));
		GA_SET(rep.sys.timed_out, res.timed_out); /* error_code stays NVML's alone: absent here */
		rep.sys.error = ga_strdup(ga_ctx_errmsg(c->ctx));
		rep.sys.error_call = ga_strdup(res.last_call[0] ? res.last_call : "helper");
		if (!ga_col_ok(c, rep.sys.error) || !ga_col_ok(c, rep.sys.error_call))
			goto out;
		ga_log(c->ctx, GA_LOG_INFO, "NVML: %s", rep.sys.error);
	}
	if (ga_node_merge_nvml(c->node, &rep) < 0)
		c->err = -ENOMEM;
	else
		ga_collect_fabric_manager(c); /* the daemons, on NVSwitch systems */
out:
	ga_schema_release(&ga_nvml_report_schema, &rep);
}

static void rocm_smi(struct ga_col *c)
{
	struct ga_rocm_smi *rs = ga_calloc(1, sizeof(*rs));
	if (!ga_col_ok(c, rs))
		return;
	struct ga_isolate_result res;
	int r = ga_isolated_collect(c->ctx, "rocm-smi", &ga_rocm_smi_schema, rs, &res);
	if (r == -ENOMEM) {
		c->err = r;
	} else if (r < 0) {
		ga_schema_release(&ga_rocm_smi_schema, rs);
		memset(rs, 0, sizeof(*rs));
		GA_SET(rs->timed_out, res.timed_out);
		rs->error = ga_strdup(ga_ctx_errmsg(c->ctx));
		rs->error_call = ga_strdup(res.last_call[0] ? res.last_call : "helper");
		ga_col_ok(c, rs->error);
		ga_col_ok(c, rs->error_call);
	}
	/* ROCm SMI's GPUs join the sysfs entries with the same PCI address */
	struct ga_node *n = c->node;
	for (size_t i = 0; i < rs->n_gpus && c->err == 0; i++) {
		struct ga_rocm_smi_gpu *g = &rs->gpus[i];
		for (size_t k = 0; k < n->n_accelerators; k++) {
			struct ga_accel *a = &n->accelerators[k];
			if (a->rocm_smi || !a->address || !g->pci_bus_id || strcmp(a->address, g->pci_bus_id))
				continue;
			a->rocm_smi = ga_malloc(sizeof(*a->rocm_smi));
			if (!ga_col_ok(c, a->rocm_smi))
				break;
			*a->rocm_smi = *g;
			memset(g, 0, sizeof(*g));
			break;
		}
	}
	/* GPUs without a sysfs entry are dropped; the library's own facts stay */
	struct ga_rocm_smi rest;
	memset(&rest, 0, sizeof(rest));
	rest.gpus = rs->gpus;
	rest.n_gpus = rs->n_gpus;
	ga_schema_release(&ga_rocm_smi_schema, &rest);
	rs->gpus = NULL;
	rs->n_gpus = 0;
	n->rocm_smi = rs;
}

void ga_collect_vendor(struct ga_col *c)
{
	if (want(c, "nvidia", "nvidia"))
		nvml(c);
	if (c->err == 0 && want(c, "amd", "amdgpu"))
		rocm_smi(c);
}
