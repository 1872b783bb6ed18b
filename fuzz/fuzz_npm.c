/*
 * fuzz_npm.c - the package.json reader (lib/deps/npm.c) on arbitrary bytes:
 * what is accepted goes through the npm signals (names of the package, its
 * dependencies and optional platform packages), the package-directory
 * ownership and the verdicts (GA-DEPS-INSTALL-SCRIPT) against a ROCm target.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/deps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	FUZZ_CHECK(ga_deps_add_tree(&inv, "fuzz", "npm") == 0);
	struct ga_deps_pkg *p = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*p));
	FUZZ_CHECK(p != NULL);
	char err[256] = "";
	int r = ga_npm_parse_package_json((const char *)data, size, p, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == 1 || r == -EINVAL || r == -ENOMEM);
	FUZZ_CHECK(r != -EINVAL || err[0]);
	FUZZ_CHECK(r != 0 || (p->name && p->name[0]));
	p->kind = ga_strdup("npm");
	p->tree_dir = ga_strdup("package");
	p->meta_path = ga_strdup("fuzz!/package/package.json");
	p->owns_dir = true;
	FUZZ_CHECK(ga_deps_signals(&inv) == 0);
	for (size_t i = 0; i < p->n_signals; i++)
		FUZZ_CHECK(p->signals[i].what && p->signals[i].backend < GA_DEP_N);
	struct ga_deps_target t;
	char e[64];
	FUZZ_CHECK(ga_deps_target_parse("rocm:6.2,gfx942", &t, e, sizeof(e)) == 0);
	struct ga_findings f;
	ga_findings_init(&f);
	FUZZ_CHECK(ga_deps_judge(&inv, &t, &f) == 0);
	ga_findings_release(&f);
	ga_deps_target_release(&t);
	ga_deps_inventory_release(&inv);
	return 0;
}
