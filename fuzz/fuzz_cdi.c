/*
 * fuzz_cdi.c - the CDI spec reader (lib/collect/cdi.c) on arbitrary bytes, as
 * YAML (through the prescan and libfyaml) when the first byte is even, else as
 * JSON: it never fails but for memory, a spec it could not read says why, and
 * whatever it read goes through the CDI analyzer against a fixed 2-GPU node and
 * serialises to valid JSON.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/container-read.h"
#include "gpuaudit/container.h"
#include "gpuaudit/json.h"

/* libfyaml 0.7.12 leaks inside its own module on some scalars (see fuzz_policy.c). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfyaml.so\n";
}

static struct ga_ctx *ctx;
static struct ga_node *node;

static const char node_json[] =
        "{\"schema\":\"gpuaudit.node/v1\",\"accelerators\":[{\"vendor\":\"nvidia\",\"address\":"
        "\"0000:07:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-1\",\"minor\":0},{\"vendor\":"
        "\"nvidia\",\"address\":\"0000:0f:00.0\",\"driver\":\"nvidia\",\"uuid\":\"GPU-2\","
        "\"minor\":1}],\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.54.15\"}],"
        "\"cdi\":{\"dirs\":[\"/etc/cdi\"],\"specs\":[],\"mig_devices\":[{\"gpu_minor\":1,\"gi\":1,"
        "\"ci\":0}]}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	if (!node && ga_node_from_json(ctx, node_json, sizeof(node_json) - 1, &node) < 0)
		abort();
	bool yaml = size == 0 || (data[0] & 1) == 0;
	const char *text = size ? (const char *)data + 1 : "";
	size_t len = size ? size - 1 : 0;
	struct ga_cdi_spec spec;
	memset(&spec, 0, sizeof(spec));
	int r = ga_cdi_spec_parse(text, len, yaml, &spec);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	FUZZ_CHECK(spec.n_devices <= GA_CDI_MAX_DEVICES);
	FUZZ_CHECK(spec.device_nodes.n <= GA_CDI_MAX_PATHS && spec.libraries.n <= GA_CDI_MAX_PATHS);
	if (r == 0) {
		spec.path = strdup("/etc/cdi/fuzz.yaml");
		node->cdi->specs = &spec;
		node->cdi->n_specs = 1;
		struct ga_findings f;
		ga_findings_init(&f);
		ga_analyze_cdi(node, &f);
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
		node->cdi->specs = NULL;
		node->cdi->n_specs = 0;
		free(spec.path);
		spec.path = NULL;
	}
	ga_cdi_spec_release(&spec);
	return 0;
}
