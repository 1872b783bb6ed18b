/*
 * devplugin.c - the kubelet's device plugins as the node's files show them:
 * /var/lib/kubelet/device-plugins/ holds the kubelet's registration socket
 * (kubelet.sock), one socket per running plugin (NVIDIA's "nvidia-gpu.sock",
 * "nvidia-mig-1g.10gb.sock" in the mixed MIG strategy) and the checkpoint the
 * kubelet writes after every change, kubelet_internal_checkpoint: JSON with
 * Go's field names, {"Data": {"PodDeviceEntries": [...], "RegisteredDevices":
 * {resource: [device IDs]}}, "Checksum": N} (kubernetes/kubernetes
 * pkg/kubelet/cm/devicemanager/checkpoint/checkpoint.go). RegisteredDevices
 * holds each plugin's healthy devices, so it is what the kubelet advertises as
 * allocatable: a GPU missing from it is a GPU pods cannot get.
 *
 * One directory listing and one file read; the checksum (FNV-32a over Go's
 * deep-hash dump of Data) cannot be recomputed outside Go and is not checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "collect.h"
#include "gpuaudit/container-read.h"

#define DP_REL "var/lib/kubelet/device-plugins" /* under the root */
#define DP_DIR "/" DP_REL
#define MAX_RESOURCES 256
#define MAX_IDS 65536

static struct ga_dp_resource *resource_get(struct ga_device_plugins *dp, const char *name, int *err)
{
	for (size_t i = 0; i < dp->n_resources; i++)
		if (!strcmp(dp->resources[i].name, name))
			return &dp->resources[i];
	if (dp->n_resources >= MAX_RESOURCES)
		return NULL;
	struct ga_dp_resource *r = ga_array_push((void **)&dp->resources, &dp->n_resources, sizeof(*r));
	if (!r || !(r->name = ga_strdup(name))) {
		if (r)
			dp->n_resources--;
		*err = -ENOMEM;
		return NULL;
	}
	return r;
}

static int set_error(struct ga_device_plugins *dp, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static int set_error(struct ga_device_plugins *dp, const char *fmt, ...)
{
	if (dp->checkpoint_error)
		return 0;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dp->checkpoint_error = ga_strdup(msg);
	return dp->checkpoint_error ? 0 : -ENOMEM;
}

/* Device IDs of one pod entry: {"<numa node>": [ids]} (kubelet 1.17+) or a flat [ids] (older). */
static int count_ids(struct ga_device_plugins *dp, const json_t *ids, struct ga_strv *seen)
{
	const json_t *lists[64];
	size_t nl = 0;
	if (json_is_array(ids)) {
		lists[nl++] = ids;
	} else if (json_is_object(ids)) {
		const char *k;
		const json_t *v;
		json_object_foreach((json_t *)ids, k, v)
		{
			if (!json_is_array(v))
				return set_error(dp, "PodDeviceEntries: DeviceIDs[%s] is not a list", k);
			if (nl < GA_ARRAY_SIZE(lists))
				lists[nl++] = v;
		}
	} else if (!json_is_null(ids)) {
		return set_error(dp, "PodDeviceEntries: DeviceIDs is %s", "neither a list nor a mapping");
	}
	for (size_t l = 0; l < nl; l++) {
		size_t i;
		const json_t *it;
		json_array_foreach(lists[l], i, it)
		{
			if (!json_is_string(it))
				return set_error(dp, "PodDeviceEntries: a device ID is %s", "not a string");
			if (seen->n < MAX_IDS && !ga_strv_contains(seen, json_string_value(it)) &&
			    ga_strv_push(seen, json_string_value(it)) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int pod_entries(struct ga_device_plugins *dp, const json_t *entries)
{
	if (!entries || json_is_null(entries)) { /* Go writes an empty slice as null */
		GA_SET(dp->pod_entries, 0);
		for (size_t k = 0; k < dp->n_resources; k++)
			GA_SET(dp->resources[k].allocated, 0);
		return 0;
	}
	if (!json_is_array(entries))
		return set_error(dp, "Data.PodDeviceEntries: %s", "expected a list");
	GA_SET(dp->pod_entries, json_array_size(entries));
	/* distinct IDs per resource: one strv per resource, in resource order */
	struct ga_strv seen[MAX_RESOURCES];
	memset(seen, 0, sizeof(seen));
	int r = 0;
	size_t i;
	const json_t *it;
	json_array_foreach(entries, i, it)
	{
		const json_t *rn = json_object_get(it, "ResourceName");
		if (!json_is_object(it) || !json_is_string(rn)) {
			r = set_error(dp, "Data.PodDeviceEntries: %s", "an entry without ResourceName");
			break;
		}
		struct ga_dp_resource *res = resource_get(dp, json_string_value(rn), &r);
		if (!res)
			break;
		r = count_ids(dp, json_object_get(it, "DeviceIDs"), &seen[res - dp->resources]);
		if (r < 0)
			break;
	}
	for (size_t k = 0; k < dp->n_resources; k++) {
		if (r == 0)
			GA_SET(dp->resources[k].allocated, seen[k].n);
		ga_strv_release(&seen[k]);
	}
	return r;
}

int ga_dp_checkpoint_parse(const char *text, size_t len, struct ga_device_plugins *dp)
{
	json_t *root = NULL;
	json_error_t je;
	int r = ga_json_parse(NULL, text, len, JSON_REJECT_DUPLICATES, &root, &je);
	if (r == -EBADMSG) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%d:%d: invalid JSON: %s", je.line, je.column, je.text);
		return set_error(dp, "%s", msg);
	}
	if (r < 0)
		return r;
	const json_t *data = json_object_get(root, "Data");
	if (!json_is_object(data)) {
		r = set_error(dp, "%s", "no \"Data\" mapping: not a device-manager checkpoint");
		goto out;
	}
	const json_t *cs = json_object_get(root, "Checksum");
	if (cs && !json_is_integer(cs))
		r = set_error(dp, "%s", "Checksum is not an integer");
	const json_t *reg = json_object_get(data, "RegisteredDevices");
	if (reg && !json_is_null(reg) && !json_is_object(reg)) {
		r = set_error(dp, "Data.RegisteredDevices: %s", "expected a mapping of resources to lists");
		goto out;
	}
	const char *name;
	const json_t *ids;
	json_object_foreach((json_t *)reg, name, ids)
	{
		if (!json_is_array(ids) && !json_is_null(ids)) {
			r = set_error(dp, "Data.RegisteredDevices[%s]: expected a list of device IDs", name);
			continue;
		}
		struct ga_dp_resource *res = resource_get(dp, name, &r);
		if (!res) {
			if (r < 0)
				goto out;
			break;
		}
		size_t i;
		const json_t *it;
		json_array_foreach(ids, i, it)
		{
			if (!json_is_string(it)) {
				r = set_error(dp, "Data.RegisteredDevices[%s]: a device ID is not a string",
				              name);
				break;
			}
			if (res->devices.n < MAX_IDS &&
			    !ga_strv_contains(&res->devices, json_string_value(it)) &&
			    ga_strv_push(&res->devices, json_string_value(it)) < 0) {
				r = -ENOMEM;
				goto out;
			}
		}
		if (r < 0)
			goto out;
	}
	r = pod_entries(dp, json_object_get(data, "PodDeviceEntries"));
out:
	json_decref(root);
	return r;
}

/* A plugin's socket: "*.sock" (NVIDIA, Intel) or "vendor.com_resource" (plugins on the dpm library). */
static bool is_socket_name(const char *name)
{
	size_t l = strlen(name);
	if (!strcmp(name, "kubelet.sock") || !strcmp(name, "kubelet_internal_checkpoint"))
		return false;
	return (l > 5 && !strcmp(name + l - 5, ".sock")) || (strchr(name, '_') && strchr(name, '.'));
}

void ga_collect_device_plugins(struct ga_col *c)
{
	if (!ga_fs_is_dir(c->ctx, DP_REL))
		return;
	struct ga_device_plugins *dp = ga_calloc(1, sizeof(*dp));
	if (!ga_col_ok(c, dp))
		return;
	c->node->device_plugins = dp;
	if (!ga_col_ok(c, dp->dir = ga_strdup(DP_DIR)))
		return;
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s", DP_REL) < 0 || !names)
		return;
	bool kubelet = false, checkpoint = false;
	for (char **p = names; *p && c->err == 0; p++) {
		if (!strcmp(*p, "kubelet.sock"))
			kubelet = true;
		else if (!strcmp(*p, "kubelet_internal_checkpoint"))
			checkpoint = true;
		else if (is_socket_name(*p))
			ga_col_strv_push(c, &dp->sockets, *p);
	}
	ga_strv_free(names);
	GA_SET(dp->kubelet_socket, kubelet);
	if (!checkpoint || c->err)
		return;
	if (!ga_col_ok(c, dp->checkpoint = ga_strdup(DP_DIR "/kubelet_internal_checkpoint")))
		return;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(c->ctx, DP_REL "/kubelet_internal_checkpoint", GA_DP_MAX_CHECKPOINT_BYTES, &b);
	if (r == -ENOMEM)
		c->err = r;
	else if (r < 0)
		r = set_error(dp, "unreadable: %s", ga_fs_reason(r));
	else
		r = ga_dp_checkpoint_parse(b.data, b.len, dp);
	if (r == -ENOMEM)
		c->err = r;
	ga_buf_release(&b);
}
