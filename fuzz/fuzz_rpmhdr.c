/*
 * fuzz_rpmhdr.c - the rpm header reader (lib/deps/rpm.c) on arbitrary bytes:
 * a first byte 'R' reads the rest as an .rpm file (lead, signature header,
 * main header), anything else as a header blob as the rpm database stores it.
 * What is accepted goes through the signal derivation (Requires judged by
 * name and soname) and the verdicts against a CUDA and a CPU target.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/deps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	FUZZ_CHECK(ga_deps_add_tree(&inv, "fuzz", "rpm") == 0);
	struct ga_deps_pkg *p = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*p));
	FUZZ_CHECK(p != NULL);
	p->kind = ga_strdup("rpm");
	char err[256] = "";
	size_t at = 0;
	int r = data[0] == 'R' ? ga_rpm_parse_package(data + 1, size - 1, p, &at, err, sizeof(err))
	                       : ga_rpm_parse_header_blob(data + 1, size - 1, p, &at, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	FUZZ_CHECK(r != -EINVAL || err[0]); /* every refusal says why */
	if (r == 0) {
		FUZZ_CHECK(at <= size - 1);
		FUZZ_CHECK(p->name && p->name[0]);
		for (size_t i = 0; i < p->files.n; i++)
			FUZZ_CHECK(p->files.v[i][0] != '/');
	}
	p->tree_dir = ga_strdup("");
	p->owns_tree = true;
	FUZZ_CHECK(ga_deps_signals(&inv) == 0);
	for (size_t i = 0; i < p->n_signals; i++)
		FUZZ_CHECK(p->signals[i].what && p->signals[i].backend < GA_DEP_N);
	static const char *const targets[] = { "cuda:11.8,sm_90", "cpu" };
	for (size_t k = 0; k < 2; k++) {
		struct ga_deps_target t;
		char e[64];
		FUZZ_CHECK(ga_deps_target_parse(targets[k], &t, e, sizeof(e)) == 0);
		struct ga_findings f;
		ga_findings_init(&f);
		FUZZ_CHECK(ga_deps_judge(&inv, &t, &f) == 0);
		ga_findings_release(&f);
		ga_deps_target_release(&t);
	}
	ga_deps_inventory_release(&inv);
	return 0;
}
