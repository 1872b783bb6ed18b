/*
 * yaml-node.c - node questions shared by the strict YAML readers (yaml-node.h).
 * One copy, so that the policy, the web configuration and CDI specs place an
 * error at the same column and agree on what null is.
 */
#include <string.h>

#include "yaml-node.h"

const struct fy_mark *ga_yaml_node_mark(struct fy_node *n)
{
	if (!n)
		return NULL;
	if (fy_node_is_scalar(n)) {
		struct fy_token *t = fy_node_get_scalar_token(n);
		return t ? fy_token_start_mark(t) : NULL;
	}
	void *it = NULL;
	if (fy_node_is_mapping(n)) {
		struct fy_node_pair *pr = fy_node_mapping_iterate(n, &it);
		return pr ? ga_yaml_node_mark(fy_node_pair_key(pr)) : NULL;
	}
	return ga_yaml_node_mark(fy_node_sequence_iterate(n, &it));
}

bool ga_yaml_is_null(struct fy_node *n)
{
	if (!n)
		return true;
	if (!fy_node_is_scalar(n) || fy_node_get_style(n) != FYNS_PLAIN)
		return false;
	size_t len = 0;
	const char *s = fy_node_get_scalar(n, &len);
	return !s || len == 0 || (len == 1 && *s == '~') ||
	       (len == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

bool ga_yaml_scalar_text(struct fy_node *n, char *buf, size_t bufn)
{
	if (!n || !fy_node_is_scalar(n))
		return false;
	size_t len = 0;
	const char *s = fy_node_get_scalar(n, &len);
	if (!s || len >= bufn || memchr(s, '\0', len))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return true;
}
