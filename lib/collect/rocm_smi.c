/*
 * rocm_smi.c - ROCm SMI's view of the AMD GPUs, librocm_smi64 loaded at run time
 * (lib/dl, row ROCM_SMI).
 *
 * No ROCm header is needed at build time: our declarations of the few calls
 * (lib/dl/rocm_smi_types.h) follow rocm_smi.h, and test_vendor_decls checks
 * them against Debian's librocm-smi-dev 5.2.3 (the calls used here are
 * unchanged through ROCm 6.x). Symbols are resolved from a table;
 * nothing is called unless every required symbol resolved, and the library is
 * closed on every path. Failures become error/error_call/error_code in the
 * result, never a return code: only running out of memory is an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../dl/dl.h"
#include "../dl/rocm_smi_types.h"
#include "gpuaudit/vendor.h"

/* Enumerating more than this many devices means the library is confused. */
#define RSMI_MAX_DEVICES 256

struct rsmi_fns {
	ga_rsmi_init_fn init;
	ga_rsmi_shut_down_fn shut_down;
	ga_rsmi_num_monitor_devices_fn num_monitor_devices;
	ga_rsmi_status_string_fn status_string;
	ga_rsmi_version_get_fn version_get;
	ga_rsmi_dev_pci_id_get_fn dev_pci_id_get;
	ga_rsmi_dev_name_get_fn dev_name_get;
	ga_rsmi_dev_memory_total_get_fn dev_memory_total_get;
	ga_rsmi_dev_memory_usage_get_fn dev_memory_usage_get;
	ga_rsmi_dev_busy_percent_get_fn dev_busy_percent_get;
	ga_rsmi_dev_temp_metric_get_fn dev_temp_metric_get;
	ga_rsmi_dev_power_ave_get_fn dev_power_ave_get;
};

// clang-format off
#define SYM(field, name, req) { { name }, offsetof(struct rsmi_fns, field), req }
// clang-format on
static const struct ga_dl_sym symbols[] = {
	SYM(init, "rsmi_init", true),
	SYM(shut_down, "rsmi_shut_down", true),
	SYM(num_monitor_devices, "rsmi_num_monitor_devices", true),
	SYM(status_string, "rsmi_status_string", true),
	SYM(version_get, "rsmi_version_get", false),
	SYM(dev_pci_id_get, "rsmi_dev_pci_id_get", false),
	SYM(dev_name_get, "rsmi_dev_name_get", false),
	SYM(dev_memory_total_get, "rsmi_dev_memory_total_get", false),
	SYM(dev_memory_usage_get, "rsmi_dev_memory_usage_get", false),
	SYM(dev_busy_percent_get, "rsmi_dev_busy_percent_get", false),
	SYM(dev_temp_metric_get, "rsmi_dev_temp_metric_get", false),
	SYM(dev_power_ave_get, "rsmi_dev_power_ave_get", false),
};

int ga_rocm_smi_bdf(uint64_t id, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%04x:%02x:%02x.%x", (unsigned)(id >> 32), (unsigned)((id >> 8) & 0xff),
	                 (unsigned)((id >> 3) & 0x1f), (unsigned)(id & 0x7));
	return k < 0 || (size_t)k >= n ? -ENOSPC : 0;
}

void ga_rocm_smi_free(struct ga_rocm_smi *r)
{
	if (!r)
		return;
	ga_schema_release(&ga_rocm_smi_schema, r);
	ga_free(r);
}

/* Record the failure of call with the library's text for status (or our own text). */
static int set_error(struct ga_rocm_smi *r, const struct rsmi_fns *f, const char *call, ga_rsmi_status_t st,
                     const char *text)
{
	const char *lib_text = NULL;
	char fallback[64];
	bool from_library = !text && f;
	if (!text && f && f->status_string && f->status_string(st, &lib_text) == GA_RSMI_STATUS_SUCCESS &&
	    lib_text && *lib_text)
		text = lib_text;
	/* the status as the C int it always was reported as (RSMI_STATUS_UNKNOWN_ERROR: -1) */
	int code = (int)st;
	if (!text) {
		snprintf(fallback, sizeof(fallback), "%s failed with status %d", call, code);
		text = fallback;
	}
	r->error = ga_strdup(text);
	r->error_call = ga_strdup(call);
	if (from_library)
		GA_SET(r->error_code, code);
	return r->error && r->error_call ? 0 : -ENOMEM;
}

static int fill_gpu(const struct rsmi_fns *f, uint32_t i, struct ga_rocm_smi_gpu *g)
{
	GA_SET(g->index, i);
	uint64_t u;
	if (f->dev_pci_id_get && f->dev_pci_id_get(i, &u) == GA_RSMI_STATUS_SUCCESS) {
		char bdf[32];
		if (ga_rocm_smi_bdf(u, bdf, sizeof(bdf)) == 0) {
			g->pci_bus_id = ga_strdup(bdf);
			if (!g->pci_bus_id)
				return -ENOMEM;
		}
	}
	char name[256] = "";
	if (f->dev_name_get && f->dev_name_get(i, name, sizeof(name)) == GA_RSMI_STATUS_SUCCESS) {
		name[sizeof(name) - 1] = '\0';
		if (*name) {
			g->name = ga_strdup(name);
			if (!g->name)
				return -ENOMEM;
		}
	}
	if (f->dev_memory_total_get &&
	    f->dev_memory_total_get(i, GA_RSMI_MEM_TYPE_VRAM, &u) == GA_RSMI_STATUS_SUCCESS)
		GA_SET(g->vram_total_bytes, u);
	if (f->dev_memory_usage_get &&
	    f->dev_memory_usage_get(i, GA_RSMI_MEM_TYPE_VRAM, &u) == GA_RSMI_STATUS_SUCCESS)
		GA_SET(g->vram_used_bytes, u);
	uint32_t pct;
	if (f->dev_busy_percent_get && f->dev_busy_percent_get(i, &pct) == GA_RSMI_STATUS_SUCCESS &&
	    pct <= 100)
		GA_SET(g->busy_pct, pct);
	int64_t mc;
	if (f->dev_temp_metric_get &&
	    f->dev_temp_metric_get(i, GA_RSMI_TEMP_TYPE_EDGE, GA_RSMI_TEMP_CURRENT, &mc) ==
	            GA_RSMI_STATUS_SUCCESS &&
	    mc >= 0)
		GA_SET(g->temp_edge_mc, (uint64_t)mc);
	if (f->dev_power_ave_get && f->dev_power_ave_get(i, 0, &u) == GA_RSMI_STATUS_SUCCESS)
		GA_SET(g->power_uw, u);
	return 0;
}

/* Everything after a successful rsmi_init; the caller shuts down. */
static int enumerate(const struct rsmi_fns *f, struct ga_rocm_smi *r)
{
	uint32_t n = 0;
	ga_rsmi_status_t st = f->num_monitor_devices(&n);
	if (st != GA_RSMI_STATUS_SUCCESS)
		return set_error(r, f, "rsmi_num_monitor_devices", st, NULL);
	GA_SET(r->device_count, n);
	if (n > RSMI_MAX_DEVICES)
		return set_error(r, f, "rsmi_num_monitor_devices", 0, "implausible device count");
	for (uint32_t i = 0; i < n; i++) {
		struct ga_rocm_smi_gpu *g = ga_array_push((void **)&r->gpus, &r->n_gpus, sizeof(*g));
		if (!g || fill_gpu(f, i, g) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The loaded file's path, for the report; the soname when the loader does not say. */
static char *library_path(void *h, const char *soname)
{
	char path[4096];
	return ga_strdup(ga_dl_path(h, path, sizeof(path)) ? path : soname);
}

int ga_rocm_smi_collect_from(struct ga_ctx *ctx, const char *const *sonames, struct ga_rocm_smi **ret)
{
	struct ga_rocm_smi *r = ga_calloc(1, sizeof(*r));
	if (!r)
		return ga_err(ctx, -ENOMEM, "ROCm SMI: out of memory");
	void *h = NULL;
	bool inited = false;
	int err = 0;
	struct rsmi_fns f;
	memset(&f, 0, sizeof(f));

	struct ga_dl_status dls;
	h = ga_dl_open(GA_DL_ROCM_SMI, sonames, NULL, symbols, GA_ARRAY_SIZE(symbols), &f, &dls);
	if (!dls.loaded) {
		char text[300];
		ga_log(ctx, GA_LOG_DEBUG, "ROCm SMI: %s", dls.error);
		snprintf(text, sizeof(text), "library not found: %s",
		         sonames && *sonames ? *sonames : ga_dl_libs[GA_DL_ROCM_SMI].sonames[0]);
		err = set_error(r, NULL, "dlopen", 0, text);
		goto out;
	}
	/* the file when loaded; the name that loaded when a missing symbol closed it again */
	r->library = library_path(h, dls.loaded);
	if (!r->library) {
		err = -ENOMEM;
		goto out;
	}
	if (!h) { /* nothing of the partial table is published (f is zeroed) */
		char text[128];
		snprintf(text, sizeof(text), "missing symbol: %s", dls.missing);
		err = set_error(r, NULL, "dlsym", 0, text);
		goto out;
	}
	ga_rsmi_version_t v;
	memset(&v, 0, sizeof(v));
	if (f.version_get && f.version_get(&v) == GA_RSMI_STATUS_SUCCESS) {
		char text[64];
		snprintf(text, sizeof(text), "%u.%u.%u", v.major, v.minor, v.patch);
		r->version = ga_strdup(text);
		if (!r->version) {
			err = -ENOMEM;
			goto out;
		}
	}
	ga_rsmi_status_t st = f.init(0);
	if (st != GA_RSMI_STATUS_SUCCESS) {
		err = set_error(r, &f, "rsmi_init", st, NULL);
		goto out;
	}
	inited = true;
	err = enumerate(&f, r);
out:
	if (inited) {
		st = f.shut_down();
		if (st != GA_RSMI_STATUS_SUCCESS && err == 0 && !r->error)
			err = set_error(r, &f, "rsmi_shut_down", st, NULL);
	}
	ga_dl_close(h);
	if (err < 0) {
		ga_rocm_smi_free(r);
		return ga_err(ctx, -ENOMEM, "ROCm SMI: out of memory");
	}
	*ret = r;
	return 0;
}

int ga_rocm_smi_collect(struct ga_ctx *ctx, struct ga_rocm_smi **ret)
{
	return ga_rocm_smi_collect_from(ctx, NULL, ret);
}
