/*
 * fuzz_hstate.c - the health state file (`health --state`, untrusted: any
 * process that can write it, or a disk that corrupts it) on arbitrary bytes:
 * read as v2 or v1 or refused; a state that was read takes a collection
 * (findings with hostile counts and times), is cleared, and writes a document
 * that reads back and writes the same bytes.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/hstate.h"
#include "gpuaudit/hstate-analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ga_health_state st;
	if (ga_hstate_read(NULL, (const char *)data, size, &st) < 0)
		return 0;
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_finding *fd =
	        ga_findings_add_code(&f, "GA-XID-48", GA_SEV_CRITICAL, "0000:0f:00.0", NULL, "x");
	if (fd) {
		ga_finding_evidence(fd, "count", "%s", "18446744073709551615");
		ga_finding_evidence(fd, "last_boot_s", "%s", "1e308");
	}
	ga_findings_add(&f, GA_C_ROW_REMAP_PENDING, GA_SEV_ERROR, "0000:0f:00.0", NULL, "p");
	struct ga_health_threshold th = { .code = "GA-*", .count = 2, .window_s = 60 };
	struct ga_health_policy hp = { .thresholds = &th, .n_thresholds = 1 };
	int64_t now = st.updated_s.set && st.updated_s.v > -(1LL << 40) && st.updated_s.v < (1LL << 40)
	                      ? st.updated_s.v
	                      : 0;
	FUZZ_CHECK(ga_hstate_update(&st, &f, &hp, now + 60, "boot") == 0);
	FUZZ_CHECK(ga_hstate_update(&st, &f, NULL, now - 60, NULL) == 0);
	ga_hstate_clear(&st, "GA-XID-48");
	struct ga_buf a, b;
	ga_buf_init(&a, 0);
	ga_buf_init(&b, 0);
	FUZZ_CHECK(ga_hstate_write(&st, &a) == 0);
	struct ga_health_state back;
	FUZZ_CHECK(ga_hstate_read(NULL, a.data, a.len, &back) == 0);
	FUZZ_CHECK(ga_hstate_write(&back, &b) == 0);
	FUZZ_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	ga_hstate_release(&back);
	ga_buf_release(&a);
	ga_buf_release(&b);
	ga_findings_release(&f);
	ga_hstate_release(&st);
	return 0;
}
