/*
 * fuzz_archive.c - the artifact walk on arbitrary bytes: sniffing, zip / tar
 * (plain and compressed) / ar walks, nested archives, container images
 * (docker save manifests, whiteouts), ELF inspection of members, metadata;
 * then the signals, the verdicts against a CUDA and a ROCm target and the
 * gpuaudit.deps/v1 report, whose JSON must parse and read back through the
 * model. Caps are small so bombs stay cheap.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/deps.h"
#include "gpuaudit/model.h"

static struct ga_ctx *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	o.max_member_bytes = 1u << 20;
	o.max_total_bytes = 8u << 20;
	o.max_nesting = 4;
	struct ga_deps_inventory inv;
	ga_deps_inventory_init(&inv);
	FUZZ_CHECK(ga_deps_add_tree(&inv, "fuzz", "file") == 0);
	int r = ga_deps_scan_buffer(ctx, &o, &inv, 0, "fuzz", "fuzz", data, size);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	FUZZ_CHECK(ga_deps_signals(&inv) == 0);
	static const char *const targets[] = { "cuda:12.4,sm_90,x86-64-v2", "rocm:6.2,gfx90a:xnack-" };
	for (size_t i = 0; i < 2; i++) {
		struct ga_deps_target t;
		char err[128];
		FUZZ_CHECK(ga_deps_target_parse(targets[i], &t, err, sizeof(err)) == 0);
		struct ga_findings f;
		ga_findings_init(&f);
		FUZZ_CHECK(ga_deps_judge(&inv, &t, &f) == 0);
		struct ga_buf b;
		struct ga_deps_report rep, back;
		const struct ga_model *m = ga_model_find(GA_DEPS_SCHEMA);
		ga_buf_init(&b, 0);
		FUZZ_CHECK(ga_deps_report_build(&inv, &t, &f, &rep) == 0);
		FUZZ_CHECK(ga_model_write(m, &rep, &b, false) == 0);
		fuzz_check_json(b.data, b.len, 0);
		memset(&back, 0, sizeof(back));
		FUZZ_CHECK(ga_model_read(ctx, m, b.data, b.len, &back) == 0);
		ga_deps_report_release(&back);
		ga_deps_report_release(&rep);
		ga_buf_release(&b);
		ga_findings_release(&f);
		ga_deps_target_release(&t);
	}
	ga_deps_inventory_release(&inv);
	return 0;
}
