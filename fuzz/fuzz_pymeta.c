/*
 * fuzz_pymeta.c - the package metadata parsers on arbitrary bytes: the first
 * byte picks METADATA, RECORD, conda JSON or Debian control stanzas (parsed
 * one after the other as dpkg's status is); what is accepted then goes
 * through the signal derivation (local versions, requirement names, conda
 * depends, Debian names) and the verdicts against a CPU target.
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
	FUZZ_CHECK(ga_deps_add_tree(&inv, "fuzz", "dir") == 0);
	struct ga_deps_pkg *p = ga_array_push((void **)&inv.pkgs, &inv.n_pkgs, sizeof(*p));
	FUZZ_CHECK(p != NULL);
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	int r;
	switch (data[0] % 4) {
	case 0:
		p->kind = ga_strdup("python");
		r = ga_pymeta_parse_metadata(text, len, p);
		break;
	case 1:
		p->kind = ga_strdup("python");
		r = ga_pymeta_parse_record(text, len, p);
		break;
	case 3: {
		p->kind = ga_strdup("deb");
		size_t off = 0;
		bool installed;
		do {
			size_t used = 0;
			ga_deps_pkg_release(p);
			memset(p, 0, sizeof(*p));
			p->kind = ga_strdup("deb");
			r = ga_pymeta_parse_deb_control(text + off, len - off, p, &used, &installed);
			FUZZ_CHECK(used <= len - off);
			off += used;
			if (used == 0)
				break;
		} while (r == -EINVAL || (r == 0 && off < len && data[0] >= 128));
		if (r == 1)
			r = 0;
		break;
	}
	default:
		p->kind = ga_strdup("conda");
		r = ga_pymeta_parse_conda(text, len, p);
		break;
	}
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	p->tree_dir = ga_strdup("");
	FUZZ_CHECK(ga_deps_signals(&inv) == 0);
	for (size_t i = 0; i < p->n_signals; i++)
		FUZZ_CHECK(p->signals[i].what && p->signals[i].backend < GA_DEP_N);
	struct ga_deps_target t;
	char err[64];
	FUZZ_CHECK(ga_deps_target_parse("cpu", &t, err, sizeof(err)) == 0);
	struct ga_findings f;
	ga_findings_init(&f);
	FUZZ_CHECK(ga_deps_judge(&inv, &t, &f) == 0);
	ga_findings_release(&f);
	ga_deps_target_release(&t);
	ga_deps_inventory_release(&inv);
	return 0;
}
