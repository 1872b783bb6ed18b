/*
 * collect.c - the collection entry point: one node snapshot from every
 * collector in turn (the helpers they share are util.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "gpuaudit/node-read.h"

/*
 * The sources the other collectors read whole, recorded from what they left: a
 * required file that could not be read is a gap (with the reader's reason), so no
 * gap means read. The module list has two sources; modules_source names the one read.
 */
static void coverage(struct ga_col *c)
{
	static const struct {
		const char *source, *path;
	} files[] = {
		{ "cpu", "proc/cpuinfo" },
		{ "memory", "proc/meminfo" },
		{ "kernel", "proc/sys/kernel/osrelease" },
	};
	struct ga_node *n = c->node;
	for (size_t i = 0; i < GA_ARRAY_SIZE(files) && !c->err; i++) {
		const char *why = NULL;
		for (size_t k = 0; k < n->n_gaps && !why; k++)
			if (!strcmp(n->gaps[k].path, files[i].path))
				why = n->gaps[k].reason;
		ga_col_source_state(c, files[i].source, files[i].path,
		                    !why                      ? "read"
		                    : !strcmp(why, "missing") ? "missing"
		                                              : "unreadable",
		                    why);
	}
	if (!c->err)
		ga_col_source(c, "modules", n->modules_source ? n->modules_source + 1 : "proc/modules",
		              n->modules_source ? 0 : -ENOENT);
	if (ga_node_pci_known(n))
		GA_SET(n->accelerator_count, n->n_accelerators);
}

int ga_node_collect(struct ga_ctx *ctx, struct ga_node **ret_node)
{
	struct ga_node *n = ga_node_new();
	if (!n)
		return -ENOMEM;
	struct ga_col c = { .ctx = ctx, .node = n, .err = 0 };
	ga_collect_host(&c);
	ga_collect_cpu(&c);
	ga_collect_modules(&c);
	ga_collect_pci(&c);
	ga_collect_accel(&c);
	ga_collect_numa_kinds(&c);
	ga_collect_runtimes(&c);
	ga_collect_nvidia_module_file(&c);
	ga_collect_container_runtime(&c);
	ga_collect_device_plugins(&c);
	ga_collect_cdi(&c);
	ga_collect_ib(&c);
	if (c.err == 0)
		ga_collect_vendor(&c);
	if (c.err == 0)
		coverage(&c);
	if (c.err < 0) {
		ga_node_free(n);
		return ga_err(ctx, c.err, "collecting the node snapshot: %s", strerror(-c.err));
	}
	*ret_node = n;
	return 0;
}
