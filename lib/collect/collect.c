/*
 * collect.c - the collection entry point: one node snapshot from every
 * collector in turn (the helpers they share are util.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

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
	ga_collect_container_runtime(&c);
	ga_collect_device_plugins(&c);
	ga_collect_cdi(&c);
	ga_collect_ib(&c);
	if (c.err == 0)
		ga_collect_vendor(&c);
	if (c.err < 0) {
		ga_node_free(n);
		return ga_err(ctx, c.err, "collecting the node snapshot: %s", strerror(-c.err));
	}
	*ret_node = n;
	return 0;
}
