/*
 * fuzz_nvml_events.c - what the NVML event helper prints, as the parent
 * reads it (ga_json_parse, then the ga_nvml_events_schema table), on
 * arbitrary bytes: the reader never fails otherwise than cleanly, a result
 * writes back to valid JSON, and every event's kernel-log line (the form in
 * which NVML Xids reach the health analysis) is short, NUL-terminated, and
 * parses as an Xid with the event's address.
 */
#include <string.h>

#include "core/internal.h" /* ga_json_parse: the parse isolate.c does */
#include "fuzz.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0)
		return 0;
	json_error_t jerr;
	json_t *root = NULL;
	struct ga_nvml_events e;
	memset(&e, 0, sizeof(e));
	if (ga_json_parse(ctx, (const char *)data, size, 0, &root, &jerr) == 0 && root &&
	    ga_schema_read(ctx, &ga_nvml_events_schema, root, &e) == 0) {
		struct ga_buf b;
		struct ga_json w;
		ga_buf_init(&b, 0);
		ga_json_init(&w, &b, false);
		ga_schema_write(&w, &ga_nvml_events_schema, &e);
		if (ga_json_finish(&w) == 0)
			fuzz_check_json(b.data, b.len, 0);
		ga_buf_release(&b);
		for (size_t i = 0; i < e.n_events; i++) {
			char line[192];
			size_t n = ga_nvml_event_kline(&e.events[i], i % 2 ? 12.5 : -1, line, sizeof(line));
			if (!n)
				continue;
			FUZZ_CHECK(n < sizeof(line) && line[n] == '\0');
			struct ga_kevent k;
			FUZZ_CHECK(ga_kevent_parse(NULL, line, n, &k) == 1);
			FUZZ_CHECK(k.kind == GA_KEV_XID);
		}
	}
	json_decref(root);
	ga_nvml_events_release(&e);
	ga_ctx_free(ctx);
	return 0;
}
