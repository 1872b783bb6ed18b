/*
 * verdict.c - a node's verdict (gpuaudit/verdict.h) put together: the links
 * (node.c), the CDI specs and device plugins (container.c), the container
 * runtime's default, readiness against a policy class, the drift reasons and the
 * class ids. Pure: the snapshot (and the class) in, the verdict and its findings out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/fleet.h"
#include "gpuaudit/fleet-analyze.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"
#include "gpuaudit/policy.h"
#include "verdict-int.h"
#include "gpuaudit/verdict-analyze.h"

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

bool ga_vd_accel_usable(const struct ga_accel *a)
{
	if (!a->driver)
		return false;
	if (a->excluded.set && a->excluded.v)
		return false;
	return !(a->nvml && a->nvml->error);
}

size_t ga_vd_class_gpus(const struct ga_node *n, const struct ga_policy_class *cls, size_t *on_bus)
{
	size_t k = 0, all = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (cls && cls->match.vendor && !streq(cls->match.vendor, a->vendor))
			continue;
		all++;
		k += ga_vd_accel_usable(a);
	}
	if (on_bus)
		*on_bus = all;
	return k;
}

void ga_vd_gpu_count_reason(char *buf, size_t n, size_t usable_gpus, size_t on_bus, uint64_t expected)
{
	snprintf(buf, n, "%zu usable GPU%s (%zu on the bus), the class expects %llu", usable_gpus,
	         usable_gpus == 1 ? "" : "s", on_bus, (unsigned long long)expected);
}

static int readiness(const struct ga_node *n, const struct ga_policy_class *cls, struct ga_node_verdict *v)
{
	char why[192];
	if (!ga_node_pci_known(n)) {
		/* the bus was not seen: the GPU count is unknown, never "ready" (coverage) */
		v->readiness = GA_VD_READY_UNKNOWN;
		snprintf(why, sizeof(why), "the PCI devices could not be read: the GPU count is unknown");
		/* what the class expects stays known: /readyz gates on it (serve-collect.c) */
		if (cls && cls->expect.gpu_count.set)
			GA_SET(v->gpus_expected, cls->expect.gpu_count.v);
	} else if (!cls || !cls->expect.gpu_count.set) {
		v->readiness = GA_VD_READY_UNKNOWN;
		snprintf(why, sizeof(why), "%s", cls ? "the class expects no GPU count" : "no policy class");
	} else {
		size_t all = 0, k = ga_vd_class_gpus(n, cls, &all);
		GA_SET(v->gpus_expected, cls->expect.gpu_count.v);
		GA_SET(v->gpus_usable, k);
		v->readiness = k == cls->expect.gpu_count.v ? GA_VD_READY : GA_VD_NOT_READY;
		ga_vd_gpu_count_reason(why, sizeof(why), k, all, cls->expect.gpu_count.v);
	}
	v->readiness_reason = ga_strdup(why);
	return v->readiness_reason ? 0 : -ENOMEM;
}

/* The family fleet compares the class within and the stack's matrix columns (fleet.c's rules). */
static int family(const struct ga_nodeclass *nc, struct ga_node_verdict *v)
{
	if (!nc->hw_json || !nc->stack_json)
		return 0;
	char *fam = NULL;
	struct ga_fleet_columns col = { 0 };
	int r = ga_fleet_family_sha256(nc->hw_json, &fam);
	if (r == 0)
		r = ga_fleet_columns_init(nc->stack_json, &col);
	if (r < 0) {
		ga_free(fam);
		return r == -ENOMEM ? r : 0; /* one that cannot be computed leaves them null */
	}
	v->hw_family = fam;
	v->stack =
	        (struct ga_vd_stack){ col.driver, col.cuda, col.rocm, col.kernel, col.os_id, col.os_version };
	return 0;
}

static int ids(const struct ga_node *n, struct ga_node_verdict *v)
{
	struct ga_nodeclass nc = { 0 };
	int r = ga_nodeclass_compute(n, &nc);
	if (r == 0 && ((nc.name && !(v->node_class = ga_strdup(nc.name))) ||
	               (nc.hw_sha256 && !(v->hw_class = ga_strdup(nc.hw_sha256))) ||
	               (nc.stack_sha256 && !(v->stack_class = ga_strdup(nc.stack_sha256)))))
		r = -ENOMEM;
	if (r == 0)
		r = family(&nc, v);
	ga_nodeclass_release(&nc);
	return r == -ENOMEM ? r : 0; /* a class that cannot be computed leaves the ids null */
}

/* Each container engine's default runtime and whether each device node opens for render/video. */
static int container_access(const struct ga_node *n, struct ga_node_verdict *v)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	for (size_t i = 0; cr && i < cr->n_engines; i++) {
		const struct ga_ctr_engine *e = &cr->engines[i];
		struct ga_vd_engine *x =
		        ga_array_push((void **)&v->runtime_engines, &v->n_runtime_engines, sizeof(*x));
		if (!x || (e->name && !(x->name = ga_strdup(e->name))) ||
		    !(x->default_runtime = ga_strdup(ga_ctr_default_runtime(e))))
			return -ENOMEM;
	}
	for (size_t i = 0; cr && i < cr->n_devices; i++) {
		const struct ga_ctr_device *d = &cr->devices[i];
		struct ga_vd_device_node *x =
		        ga_array_push((void **)&v->device_nodes, &v->n_device_nodes, sizeof(*x));
		if (!x || (d->path && !(x->path = ga_strdup(d->path))))
			return -ENOMEM;
		GA_SET(x->accessible, ga_ctr_device_open_for(d, NULL, 0));
	}
	return 0;
}

int ga_node_verdict_build(const struct ga_node *n, const struct ga_policy_class *cls, bool policy_given,
                          struct ga_node_verdict *v, struct ga_findings *out)
{
	struct ga_findings scratch;
	ga_findings_init(&scratch);
	int r = ga_verdict_sections(n, v, out ? out : &scratch);
	ga_findings_release(&scratch);
	if (r == 0 && policy_given) {
		GA_SET(v->class_matched, cls != NULL);
		if (cls && !(v->class_name = ga_strdup(cls->name)))
			r = -ENOMEM;
	}
	if (r == 0)
		r = readiness(n, cls, v);
	if (r == 0)
		r = ids(n, v);
	if (r == 0)
		r = container_access(n, v);
	unsigned d = ga_node_verdict_drift(v);
	if (r == 0 && (d & GA_VD_DRIFT_LINK))
		r = ga_strv_push(&v->drift, "link");
	if (r == 0 && (d & GA_VD_DRIFT_GPUS))
		r = ga_strv_push(&v->drift, "gpus");
	if (r == 0 && (d & GA_VD_DRIFT_CLASS))
		r = ga_strv_push(&v->drift, "no_class");
	if (r < 0) {
		ga_node_verdict_release(v);
		return -ENOMEM;
	}
	return 0;
}
