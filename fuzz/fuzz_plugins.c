/*
 * fuzz_plugins.c - plug-ins and forward compatibility on arbitrary bytes. The
 * first byte picks what the rest is: an OpenCL ICD file, a Vulkan ICD manifest
 * (JSON), or a --target spec (the NVIDIA driver:/brand: keys); for the ICD
 * cases every further line after the first NUL is a tree path added as a
 * symbolic link (compat directories, libcuda.so.<driver> names, the ICD's
 * library). Then the plug-in lookup, the signals and the verdicts against a
 * data-centre R470 target run on it.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/deps.h"

static void add_link(struct ga_deps_inventory *inv, const char *tp)
{
	struct ga_deps_file *f = ga_array_push((void **)&inv->files, &inv->n_files, sizeof(*f));
	FUZZ_CHECK(f != NULL);
	f->path = ga_strdup(tp);
	f->tree_path = ga_strdup(tp);
	f->link = ga_strdup("libcuda.so.1");
	f->pkg = -1;
	FUZZ_CHECK(f->path && f->tree_path && f->link);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	char *text = ga_strndup((const char *)data + 1, size - 1);
	FUZZ_CHECK(text != NULL);
	char err[256];
	struct ga_deps_target t;
	if (data[0] % 3 == 2) {
		int r = ga_deps_target_parse(text, &t, err, sizeof(err));
		FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
		if (r == 0) {
			FUZZ_CHECK(t.name != NULL);
			ga_deps_target_release(&t);
		}
		ga_free(text);
		return 0;
	}
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	FUZZ_CHECK(ga_deps_add_tree(&inv, "fuzz", "tar") == 0);
	struct ga_deps_tree *tr = &inv.trees[0];
	struct ga_deps_ldconf *c = ga_array_push((void **)&tr->icds, &tr->n_icds, sizeof(*c));
	FUZZ_CHECK(c != NULL);
	c->path = ga_strdup(data[0] % 3 ? "usr/share/vulkan/icd.d/x.json" : "etc/OpenCL/vendors/x.icd");
	c->text = ga_strdup(text);
	FUZZ_CHECK(c->path && c->text);
	/* paths after the ICD text's NUL (the text itself ends there) */
	size_t off = strlen(text) + 2;
	while (off < size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
		char *tp = ga_strndup((const char *)data + off, n);
		FUZZ_CHECK(tp != NULL);
		if (*tp)
			add_link(&inv, tp);
		ga_free(tp);
		off += n + 1;
	}
	struct ga_deps_plugin_use *uses;
	size_t n_uses;
	FUZZ_CHECK(ga_deps_plugin_uses(&inv, NULL, &uses, &n_uses) == 0);
	for (size_t i = 0; i < n_uses; i++)
		FUZZ_CHECK(uses[i].conv && uses[i].found < (long)inv.n_files && uses[i].host == -1);
	ga_free(uses);
	FUZZ_CHECK(ga_deps_signals(&inv) == 0);
	FUZZ_CHECK(ga_deps_target_parse("nvidia:sm_90,driver:470.239.06,brand:tesla", &t, err, sizeof(err)) ==
	           0);
	struct ga_findings f;
	ga_findings_init(&f);
	FUZZ_CHECK(ga_deps_judge(&inv, &t, &f) == 0);
	ga_findings_release(&f);
	ga_deps_target_release(&t);
	ga_deps_inventory_release(&inv);
	ga_free(text);
	return 0;
}
