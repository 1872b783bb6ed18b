/*
 * fuzz_policy.c - the policy parser (check --policy FILE) on arbitrary bytes,
 * and, when a policy is accepted, matching and checking a fixed node against
 * every class and each version range parser on the text. A rejected policy
 * must come with a FILE:LINE:COLUMN message.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/policy.h"

/*
 * LeakSanitizer: libfyaml 0.7.12 (Debian 12) leaks the chunk array its atom
 * iterator grows past 8 chunks when it formats a scalar's text (a quoted
 * scalar with many line folds or escapes; upstream pantoniou/libfyaml#233,
 * fixed after 0.7.12). libfyaml has no frame pointers, so the fast unwinder
 * sees only its module: leaks from inside libfyaml are not reported here.
 * That the policy parser destroys every document it builds is checked by the
 * ASan+UBSan unit and CLI tests, which have no such suppression.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfyaml.so\n";
}

static struct ga_ctx *ctx;
static struct ga_node *node;

static const char node_json[] =
        "{\"schema\":\"gpuaudit.node/v1\",\"host\":{\"kernel_release\":\"5.15.0-1063-nvidia\","
        "\"os\":{\"id\":\"ubuntu\",\"version_id\":\"22.04\"}},\"accelerators\":[{\"vendor\":\"nvidia\","
        "\"model\":\"NVIDIA A100-SXM4-40GB\",\"address\":\"0000:07:00.0\",\"driver\":\"nvidia\"}],"
        "\"drivers\":[{\"name\":\"nvidia\",\"version\":\"550.135\"}],\"modules\":[\"nvidia\"]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	if (!node && ga_node_from_json(ctx, node_json, sizeof(node_json) - 1, &node) < 0)
		abort();
	struct ga_policy *p = NULL;
	int r = ga_policy_parse(ctx, "fuzz.yaml", (const char *)data, size, &p);
	if (r < 0) {
		FUZZ_CHECK(p == NULL);
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(strncmp(ga_ctx_errmsg(ctx), "fuzz.yaml", 9) == 0);
	} else {
		FUZZ_CHECK(p != NULL);
		for (size_t i = 0; i < p->n_classes; i++) {
			struct ga_check c;
			FUZZ_CHECK(ga_check_node(node, &p->classes[i], false, &c) == 0);
			ga_check_release(&c);
		}
		struct ga_check c;
		FUZZ_CHECK(ga_check_node(node, ga_policy_match(p, node), false, &c) == 0);
		ga_check_release(&c);
		ga_policy_free(p);
	}
	/* the range parser alone, on the same bytes as text */
	char text[512];
	size_t n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
	memcpy(text, data, n);
	text[n] = '\0';
	struct ga_vrange vr;
	char err[256];
	if (ga_vrange_parse(text, &vr, err, sizeof(err)) == 0)
		ga_vrange_release(&vr);
	return 0;
}
