/*
 * yaml-node.h - the few questions every strict YAML reader of gpuaudit asks of
 * a libfyaml node (lib/core/yaml-node.c): where it starts, for FILE:LINE:COLUMN
 * messages; whether it is null in YAML 1.2's core schema; its scalar text as a
 * bounded C string. Shared by the policy, the web configuration and CDI specs;
 * lib/ only.
 */
#ifndef GA_YAML_NODE_H
#define GA_YAML_NODE_H

#include <libfyaml.h>
#include <stdbool.h>
#include <stddef.h>

/* Where a node starts: its scalar token, else its first key's or item's; NULL for none. */
const struct fy_mark *ga_yaml_node_mark(struct fy_node *n);
/* No node, or a plain scalar that is empty, ~, null, Null or NULL. */
bool ga_yaml_is_null(struct fy_node *n);
/* The scalar's text NUL-terminated in buf; false when not a scalar, too long or holding a NUL. */
bool ga_yaml_scalar_text(struct fy_node *n, char *buf, size_t bufn);

#endif
