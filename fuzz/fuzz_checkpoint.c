/*
 * fuzz_checkpoint.c - the kubelet's device-plugin checkpoint reader
 * (lib/collect/devplugin.c) on arbitrary bytes: it never fails but for memory,
 * a damaged checkpoint says why, the counts stay within their bounds, and what
 * it read goes through the device-plugin analyzer against a fixed node (8
 * NVIDIA GPUs, one AMD) and serialises to valid JSON.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/container-read.h"
#include "gpuaudit/container.h"
#include "gpuaudit/json.h"

static struct ga_ctx *ctx;
static struct ga_node *node;

static const char node_json[] =
        "{\"schema\":\"gpuaudit.node/v1\",\"accelerators\":["
        "{\"vendor\":\"nvidia\",\"address\":\"0000:18:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-0\"},"
        "{\"vendor\":\"nvidia\",\"address\":\"0000:28:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-1\"},"
        "{\"vendor\":\"nvidia\",\"address\":\"0000:38:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-2\","
        "\"excluded\":true},"
        "{\"vendor\":\"amd\",\"address\":\"0000:c1:00.0\",\"driver\":\"amdgpu\"}],"
        "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"580.95.05\"}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	if (!node && ga_node_from_json(ctx, node_json, sizeof(node_json) - 1, &node) < 0)
		abort();
	struct ga_device_plugins dp;
	memset(&dp, 0, sizeof(dp));
	int r = ga_dp_checkpoint_parse((const char *)data, size, &dp);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	FUZZ_CHECK(dp.n_resources <= 256);
	for (size_t i = 0; i < dp.n_resources; i++) {
		FUZZ_CHECK(dp.resources[i].name != NULL);
		FUZZ_CHECK(!dp.resources[i].allocated.set || dp.resources[i].allocated.v <= 65536);
	}
	if (r == 0) {
		GA_SET(dp.kubelet_socket, true);
		node->device_plugins = &dp;
		struct ga_findings f;
		ga_findings_init(&f);
		ga_analyze_device_plugins(node, &f);
		struct ga_buf b;
		struct ga_json w;
		ga_buf_init(&b, 0);
		ga_json_init(&w, &b, false);
		FUZZ_CHECK(ga_node_write_with_findings(node, &f, &w) == 0 || w.err == -ENOMEM);
		if (w.err == 0)
			fuzz_check_json(b.data, b.len, 0);
		ga_buf_release(&b);
		ga_findings_release(&f);
		node->device_plugins = NULL;
	}
	ga_schema_release(&ga_device_plugins_schema, &dp);
	return 0;
}
