/*
 * cmd-vendor-helper.c - the hidden "__vendor-helper NAME" mode: call one
 * vendor library in this (disposable) process and print its view as JSON.
 * The parent (lib/collect/isolate.c) gives it a deadline and kills it if the
 * library hangs; each call's name is written first into the progress page the
 * parent shares as fd 3, so the parent can say which call hung.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/fabric-read.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/vendor.h"

static void announce(void *udata, const char *call)
{
	ga_progress_page_write(udata, call);
}

int cmd_vendor_helper(struct cli *cli, int argc, char **argv)
{
	bool events = argc == 3 && !strcmp(argv[1], "nvml-events");
	if (argc != 2 && !events)
		return cli_error(cli, "__vendor-helper", EXIT_USAGE,
		                 "usage: gpuaudit __vendor-helper nvml|rocm-smi|nvml-events MS");
	unsigned long wait_ms = 0;
	if (events) {
		char *end = NULL;
		errno = 0;
		wait_ms = strtoul(argv[2], &end, 10);
		if (errno || !end || *end || end == argv[2] || wait_ms > GA_NVML_EVENTS_MAX_WAIT_MS)
			return cli_error(cli, "__vendor-helper", EXIT_USAGE,
			                 "nvml-events wants milliseconds up to %u, not '%s'",
			                 GA_NVML_EVENTS_MAX_WAIT_MS, argv[2]);
	}
	struct ga_ctx *ctx = NULL;
	int code = cli_ctx(cli, "__vendor-helper", NULL, 0, &ctx);
	if (code != EXIT_OK)
		return code;
	/* the parent's progress page, when run by the parent; standalone runs have none */
	struct ga_progress_page *page =
	        mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE, MAP_SHARED, GA_PROGRESS_FD, 0);
	if (page != MAP_FAILED)
		ga_ctx_set_progress(ctx, announce, page);
	struct ga_buf out;
	ga_buf_init(&out, 0);
	int r;
	if (!strcmp(argv[1], "nvml")) {
		struct ga_nvml_report *rep = NULL;
		r = ga_nvml_collect(ctx, &rep);
		if (r == 0) {
			struct ga_json w;
			ga_json_init(&w, &out, false);
			ga_schema_write(&w, &ga_nvml_report_schema, rep);
			r = ga_json_finish(&w);
			ga_schema_release(&ga_nvml_report_schema, rep);
			ga_free(rep);
		}
	} else if (events) {
		/* wait for Xid/ECC events; the parent kills us at wait + --timeout */
		struct ga_nvml_events *ev = NULL;
		r = ga_nvml_events_collect(ctx, (unsigned)wait_ms, &ev);
		if (r == 0) {
			struct ga_json w;
			ga_json_init(&w, &out, false);
			ga_schema_write(&w, &ga_nvml_events_schema, ev);
			r = ga_json_finish(&w);
			ga_nvml_events_release(ev);
			ga_free(ev);
		}
	} else if (!strcmp(argv[1], "rocm-smi")) {
		struct ga_rocm_smi *rs = NULL;
		r = ga_rocm_smi_collect(ctx, &rs);
		if (r == 0) {
			struct ga_json w;
			ga_json_init(&w, &out, false);
			ga_schema_write(&w, &ga_rocm_smi_schema, rs);
			r = ga_json_finish(&w);
			ga_rocm_smi_free(rs);
		}
	} else if (!strcmp(argv[1], "null")) {
		/* no library: what the isolation itself costs (bench/nvml.sh) */
		r = ga_buf_adds(&out, "{}");
	} else {
		ga_ctx_free(ctx);
		return cli_error(cli, "__vendor-helper", EXIT_USAGE, "unknown vendor library '%s'", argv[1]);
	}
	if (r < 0) {
		code = cli_error(cli, "__vendor-helper", EXIT_INTERNAL, "%s", strerror(-r));
	} else {
		fwrite(out.data, 1, out.len, cli->out);
		fputc('\n', cli->out);
	}
	ga_buf_release(&out);
	ga_ctx_free(ctx);
	if (page != MAP_FAILED)
		munmap(page, sizeof(*page));
	return code;
}
