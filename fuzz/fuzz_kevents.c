/*
 * fuzz_kevents.c - the kernel-log parser and the health aggregation on
 * arbitrary bytes, line by line: every event has a known kind, an address
 * that is empty or in sysfs form, a message inside the line; the findings
 * are produced without error and serialise to valid JSON. Year-less syslog
 * stamps get a reference year, and the first line is also tried as a
 * --boot-time value.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/kmsg.h"

static void check_event(const char *line, size_t len, const struct ga_kevent *ev)
{
	FUZZ_CHECK(ga_kev_kind_name(ev->kind) != NULL);
	size_t al = strnlen(ev->address, sizeof(ev->address));
	FUZZ_CHECK(al == 0 || al == 12);
	if (al) {
		char norm[16];
		FUZZ_CHECK(ga_pci_addr_normalize(ev->address, al, norm) == 0);
		FUZZ_CHECK(!strcmp(norm, ev->address));
	}
	FUZZ_CHECK(ev->message >= line && ev->message + ev->message_len <= line + len);
	FUZZ_CHECK(ev->severity >= GA_SEV_INFO && ev->severity <= GA_SEV_CRITICAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	struct ga_kparse st;
	memset(&st, 0, sizeof(st));
	GA_SET(st.year_ref_s, 1796126400);
	struct ga_health *h = NULL;
	if (ga_health_new(&h) < 0)
		return 0;
	ga_health_set_year_ref(h, 1796126400);
	char first[80];
	const char *nl0 = memchr(s, '\n', size);
	size_t l0 = (size_t)((nl0 ? nl0 : end) - s);
	if (l0 < sizeof(first) && !memchr(s, '\0', l0)) {
		memcpy(first, s, l0);
		first[l0] = '\0';
		int64_t t;
		(void)ga_wall_time_parse(first, &t);
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = (size_t)((nl ? nl : end) - s);
		struct ga_kevent ev;
		if (ga_kevent_parse(&st, s, len, &ev)) {
			check_event(s, len, &ev);
			FUZZ_CHECK(!ev.folded || ev.kind == GA_KEV_AMDGPU_VM_FAULT ||
			           ev.kind == GA_KEV_AMDGPU_RESET || ev.kind == GA_KEV_SXID ||
			           ev.kind == GA_KEV_AER_CORRECTED || ev.kind == GA_KEV_AER_UNCORRECTED);
			/* the AER detail's error types and the NVLink5 unit belong to their kinds */
			FUZZ_CHECK(!ev.aer_bits || ev.kind == GA_KEV_AER_CORRECTED ||
			           ev.kind == GA_KEV_AER_UNCORRECTED);
			FUZZ_CHECK(!ev.nvl_unit[0] || ev.kind == GA_KEV_XID);
			FUZZ_CHECK(!ev.link.set || ev.kind == GA_KEV_XID || ev.kind == GA_KEV_SXID);
		}
		FUZZ_CHECK(ga_health_add_line(h, s, len) == 0);
		s += len + (nl != NULL);
	}
	struct ga_findings f;
	ga_findings_init(&f);
	struct ga_health_opts o = { .since_s = 3600 };
	FUZZ_CHECK(ga_health_unplaced(h, &o) <= ga_health_events(h));
	FUZZ_CHECK(ga_health_findings(h, NULL, &o, &f, NULL) == 0);
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, false);
	ga_findings_write_json(&f, &w);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
	fuzz_check_json(b.data, b.len, 0);
	ga_buf_release(&b);
	ga_findings_release(&f);
	ga_health_free(h);
	return 0;
}
