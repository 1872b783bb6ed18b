/*
 * verdict-int.h - the parts of a node's verdict (gpuaudit/verdict.h), each decided
 * where its findings are raised: the PCIe links (node.c), the CDI specs and the
 * device plugins (container.c); verdict.c puts them together with readiness. Each returns 0 or
 * -ENOMEM (also left in out->err).
 */
#ifndef GA_VERDICT_INT_H
#define GA_VERDICT_INT_H

#include "gpuaudit/verdict.h"

int ga_verdict_links(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);
int ga_verdict_cdi(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);
int ga_verdict_device_plugins(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);
/* The engines wired to the NVIDIA runtime and whether they default to it (container.c). */
int ga_verdict_runtime(const struct ga_node *n, struct ga_node_verdict *v);
/* All four, in that order (node.c): what ga_analyze_node and ga_node_verdict_build share. */
int ga_verdict_sections(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);

#endif
