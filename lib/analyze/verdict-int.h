/*
 * verdict-int.h - the parts of a node's verdict (gpuaudit/verdict.h), each decided
 * where its findings are raised: the PCIe links (node.c), the CDI specs and the
 * device plugins (container.c); verdict.c puts them together. Each returns 0 or
 * -ENOMEM (also left in out->err).
 */
#ifndef GA_VERDICT_INT_H
#define GA_VERDICT_INT_H

#include "gpuaudit/verdict.h"

int gai_verdict_links(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);
int gai_verdict_cdi(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);
int gai_verdict_device_plugins(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);
/* All three, and the container runtime's default: what ga_analyze_node needs. */
int gai_verdict_sections(const struct ga_node *n, struct ga_node_verdict *v, struct ga_findings *out);

#endif
