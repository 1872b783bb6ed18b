/*
 * analyze/fleet-family.c - what the fleet reads of a node's class, on its own
 * so that the aggregator (fleet.c) and the node's verdict (verdict.c, which
 * hands them to the metrics) share one rule without calling each other: the
 * family a class is compared within (its hardware JSON without accelerator
 * counts, hashed) and the matrix columns of a stack (fleet-analyze.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <sha2.h> /* libmd */

#include "../core/internal.h"
#include "fleet-int.h"
#include "gpuaudit/fleet-analyze.h"

/* The family key: the hardware class JSON without accelerator counts. */
static int family_key(const char *hw_json, char **ret)
{
	json_t *hw = NULL;
	int r = ga_json_parse(NULL, hw_json, strlen(hw_json), 0, &hw, NULL);
	if (r < 0)
		return r == -ENOMEM ? r : -EINVAL;
	json_t *acc = json_object_get(hw, "accelerators");
	for (size_t i = 0; json_is_array(acc) && i < json_array_size(acc); i++)
		json_object_del(json_array_get(acc, i), "count");
	char *s = json_dumps(hw, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(hw);
	if (!s)
		return -ENOMEM;
	*ret = ga_strdup(s);
	free(s);
	return *ret ? 0 : -ENOMEM;
}

int ga_fleet_family_sha256(const char *hw_json, char **ret)
{
	char *key = NULL;
	int r = family_key(hw_json, &key);
	if (r < 0)
		return r;
	char *hex = ga_malloc(SHA256_DIGEST_STRING_LENGTH);
	if (hex)
		SHA256Data((const uint8_t *)key, strlen(key), hex); /* lowercase hex, NUL-terminated */
	ga_free(key);
	*ret = hex;
	return hex ? 0 : -ENOMEM;
}

void ga_fleet_columns_release(struct ga_fleet_columns *c)
{
	ga_free(c->driver);
	ga_free(c->cuda);
	ga_free(c->rocm);
	ga_free(c->kernel);
	ga_free(c->os_id);
	ga_free(c->os_version);
	memset(c, 0, sizeof(*c));
}

/* The stack's components for the matrix columns, from its canonical JSON. */
int ga_fleet_columns_init(const char *stack_json, struct ga_fleet_columns *c)
{
	memset(c, 0, sizeof(*c));
	json_t *st = NULL;
	int pr = ga_json_parse(NULL, stack_json, strlen(stack_json), 0, &st, NULL);
	if (pr < 0)
		return pr == -ENOMEM ? pr : -EINVAL;
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	int r = 0;
	const json_t *drivers = json_object_get(st, "drivers");
	const char *name;
	json_t *d;
	json_object_foreach((json_t *)drivers, name, d)
	{
		const char *v = json_string_value(json_object_get(d, "version"));
		const char *fl = json_string_value(json_object_get(d, "flavor"));
		if (r == 0)
			r = ga_buf_addf(&b, "%s%s%s%s%s%s", b.len ? ", " : "", name, v ? " " : "", v ? v : "",
			                fl ? " " : "", fl ? fl : "");
	}
	const json_t *os = json_object_get(st, "os");
	const char *os_id = json_string_value(json_object_get(os, "id"));
	const char *os_v = json_string_value(json_object_get(os, "version_id"));
	const char *cuda = json_string_value(json_object_get(st, "cuda"));
	const char *rocm = json_string_value(json_object_get(st, "rocm"));
	const char *kernel = json_string_value(json_object_get(st, "kernel"));
	if (r == 0) {
		c->driver = b.len ? ga_strdup(b.data) : NULL;
		c->cuda = fleet_dup_or_null(cuda);
		c->rocm = fleet_dup_or_null(rocm);
		c->kernel = fleet_dup_or_null(kernel);
		c->os_id = fleet_dup_or_null(os_id);
		c->os_version = fleet_dup_or_null(os_v);
		if ((b.len && !c->driver) || (cuda && !c->cuda) || (rocm && !c->rocm) ||
		    (kernel && !c->kernel) || (os_id && !c->os_id) || (os_v && !c->os_version))
			r = -ENOMEM;
	}
	ga_buf_release(&b);
	json_decref(st);
	if (r < 0)
		ga_fleet_columns_release(c);
	return r;
}
