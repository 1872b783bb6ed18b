/*
 * sample.c - the gpuaudit.sample/v1 model: one line of `gpuaudit record`,
 * written by record and read back by triage (--samples) through the same
 * tables, so the two cannot disagree on a member.
 */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/node.h"
#include "gpuaudit/sample.h"

#define TABLE(var, st, tbl) \
	static const struct ga_schema var = { #st, sizeof(struct st), tbl, GA_ARRAY_SIZE(tbl) }
#define N2(st, m) GA_FIELD_NUM(st, m, 100.0) /* two decimals: stable goldens */
#define U(st, m) GA_FIELD(st, m, GA_F_U64)

static const struct ga_field time_f[] = {
	GA_FIELD_NUM(struct ga_sample_time, mono_s, 1000.0),
	GA_FIELD_NUM(struct ga_sample_time, interval_s, 1000.0),
	GA_FIELD(struct ga_sample_time, wall, GA_F_STR),
};
TABLE(time_s, ga_sample_time, time_f);

#define CPU_RATE_FIELDS                                                                \
	N2(struct ga_cpu_rate, user_pct), N2(struct ga_cpu_rate, system_pct),          \
	        N2(struct ga_cpu_rate, iowait_pct), N2(struct ga_cpu_rate, steal_pct), \
	        N2(struct ga_cpu_rate, idle_pct)
static const struct ga_field total_f[] = { CPU_RATE_FIELDS };
TABLE(total_s, ga_cpu_rate, total_f);
static const struct ga_field core_f[] = {
	{ "cpu", GA_F_CHARS, offsetof(struct ga_cpu_rate, name), NULL, GA_SAMPLE_NAME_MAX },
	CPU_RATE_FIELDS,
};
TABLE(core_s, ga_cpu_rate, core_f);

static const struct ga_field cpu_f[] = {
	GA_FIELD_OBJ(struct ga_sample_cpu, total, total_s),
	GA_FIELD_ARR(struct ga_sample_cpu, cores, core_s),
};
TABLE(cpu_s, ga_sample_cpu, cpu_f);

static const struct ga_field psi_line_f[] = {
	N2(struct ga_psi_line_rate, avg10),
	U(struct ga_psi_line_rate, total_delta_us),
};
TABLE(psi_line_s, ga_psi_line_rate, psi_line_f);
#define AVG10_SET offsetof(struct ga_psi_line_rate, avg10.set)
static const struct ga_field psi_f[] = {
	GA_FIELD_OBJN(struct ga_psi_rate, some, psi_line_s, AVG10_SET),
	GA_FIELD_OBJN(struct ga_psi_rate, full, psi_line_s, AVG10_SET),
};
TABLE(psi_s, ga_psi_rate, psi_f);
/* pressure[GA_PSI_N] as one object, a member per resource (ga_psi_names' order) */
static const struct ga_field pressure_f[] = {
	{ "cpu", GA_F_OBJ, GA_PSI_CPU * sizeof(struct ga_psi_rate), &psi_s, 0 },
	{ "io", GA_F_OBJ, GA_PSI_IO * sizeof(struct ga_psi_rate), &psi_s, 0 },
	{ "memory", GA_F_OBJ, GA_PSI_MEMORY * sizeof(struct ga_psi_rate), &psi_s, 0 },
};
static const struct ga_schema pressure_s = { "pressure", GA_PSI_N * sizeof(struct ga_psi_rate), pressure_f,
	                                     GA_ARRAY_SIZE(pressure_f) };

static const struct ga_field mem_f[] = {
	U(struct ga_mem_raw, total_bytes),
	U(struct ga_mem_raw, available_bytes),
	U(struct ga_mem_raw, cached_bytes),
	U(struct ga_mem_raw, dirty_bytes),
};
TABLE(mem_s, ga_mem_raw, mem_f);

static const struct ga_field disk_f[] = {
	GA_FIELD_CHARS(struct ga_disk_rate, name),  N2(struct ga_disk_rate, reads_per_s),
	N2(struct ga_disk_rate, writes_per_s),      N2(struct ga_disk_rate, read_bytes_per_s),
	N2(struct ga_disk_rate, write_bytes_per_s), N2(struct ga_disk_rate, await_ms),
	N2(struct ga_disk_rate, util_pct),
};
TABLE(disk_s, ga_disk_rate, disk_f);

static const struct ga_field net_f[] = {
	GA_FIELD_CHARS(struct ga_net_rate, name), N2(struct ga_net_rate, rx_bytes_per_s),
	N2(struct ga_net_rate, tx_bytes_per_s),   N2(struct ga_net_rate, rx_packets_per_s),
	N2(struct ga_net_rate, tx_packets_per_s), U(struct ga_net_rate, rx_dropped),
	U(struct ga_net_rate, tx_dropped),        U(struct ga_net_rate, rx_errors),
	U(struct ga_net_rate, tx_errors),
};
TABLE(net_s, ga_net_rate, net_f);

static const struct ga_field gpu_f[] = {
	GA_FIELD_CHARS(struct ga_gpu_raw, card),
	GA_FIELD_CHARS(struct ga_gpu_raw, address),
	GA_FIELD_CHARS(struct ga_gpu_raw, vendor),
	GA_FIELD(struct ga_gpu_raw, gpu_busy_pct, GA_F_I64),
	GA_FIELD(struct ga_gpu_raw, mem_busy_pct, GA_F_I64),
};
TABLE(gpu_s, ga_gpu_raw, gpu_f);

#define G struct ga_sample_nvml_gpu
static const struct ga_field nvml_gpu_f[] = {
	U(G, index),
	GA_FIELD(G, address, GA_F_STR),
	GA_FIELD(G, error, GA_F_STR),
	U(G, utilization_gpu_pct),
	U(G, utilization_memory_pct),
	U(G, memory_used_bytes),
	U(G, pcie_rx_kbps),
	U(G, pcie_tx_kbps),
	U(G, power_usage_mw),
	U(G, clock_sm_mhz),
	U(G, clock_mem_mhz),
	U(G, temperature_c),
	GA_FIELD(G, clock_event_names, GA_F_STRV),
};
#undef G
TABLE(nvml_gpu_s, ga_sample_nvml_gpu, nvml_gpu_f);

static const struct ga_field nvml_f[] = {
	GA_FIELD(struct ga_sample_nvml, error, GA_F_STR),
	GA_FIELD(struct ga_sample_nvml, timed_out, GA_F_BOOL),
	GA_FIELD_ARR(struct ga_sample_nvml, gpus, nvml_gpu_s),
};
TABLE(nvml_s, ga_sample_nvml, nvml_f);

static const struct ga_field doc_f[] = {
	GA_FIELD(struct ga_sample_doc, schema, GA_F_STR),
	U(struct ga_sample_doc, seq),
	GA_FIELD_OBJ(struct ga_sample_doc, time, time_s),
	GA_FIELD_OBJ(struct ga_sample_doc, cpu, cpu_s),
	GA_FIELD_OBJ(struct ga_sample_doc, pressure, pressure_s),
	GA_FIELD_OBJ(struct ga_sample_doc, memory, mem_s),
	GA_FIELD_ARR(struct ga_sample_doc, disks, disk_s),
	GA_FIELD_ARR(struct ga_sample_doc, net, net_s),
	GA_FIELD_ARR(struct ga_sample_doc, accelerators, gpu_s),
	GA_FIELD_PTR(struct ga_sample_doc, nvml, nvml_s),
};
const struct ga_schema ga_sample_doc_schema = { "ga_sample_doc", sizeof(struct ga_sample_doc), doc_f,
	                                        GA_ARRAY_SIZE(doc_f) };

int ga_sample_doc_take(struct ga_sample_doc *d, struct ga_sample *s, uint64_t seq, double mono_s,
                       const char *wall)
{
	memset(d, 0, sizeof(*d));
	d->schema = ga_strdup(GA_SAMPLE_SCHEMA);
	d->time.wall = wall ? ga_strdup(wall) : NULL;
	if (!d->schema || (wall && !d->time.wall)) {
		ga_sample_doc_release(d);
		return -ENOMEM;
	}
	GA_SET(d->seq, seq);
	GA_SET(d->time.mono_s, mono_s);
	GA_SET(d->time.interval_s, s->interval_s);
	d->cpu.total = s->total;
	d->cpu.cores = s->cores, d->cpu.n_cores = s->n_cores;
	memcpy(d->pressure, s->psi, sizeof(d->pressure));
	d->memory = s->mem;
	d->disks = s->disks, d->n_disks = s->n_disks;
	d->net = s->nets, d->n_net = s->n_nets;
	d->accelerators = s->gpus, d->n_accelerators = s->n_gpus;
	memset(s, 0, sizeof(*s));
	return 0;
}

static void take_str(char **to, char **from)
{
	*to = *from;
	*from = NULL;
}

int ga_sample_doc_take_nvml(struct ga_sample_doc *d, struct ga_nvml_report *nv)
{
	struct ga_sample_nvml *x = ga_calloc(1, sizeof(*x));
	if (!x || (nv->n_gpus && !(x->gpus = ga_calloc(nv->n_gpus, sizeof(*x->gpus))))) {
		ga_free(x);
		return -ENOMEM;
	}
	d->nvml = x;
	take_str(&x->error, &nv->sys.error);
	GA_SET(x->timed_out, nv->sys.timed_out.set && nv->sys.timed_out.v);
	x->n_gpus = nv->n_gpus;
	for (size_t i = 0; i < nv->n_gpus; i++) {
		struct ga_nvml_gpu *g = &nv->gpus[i];
		struct ga_sample_nvml_gpu *o = &x->gpus[i];
		o->index = g->index;
		take_str(&o->address, &g->pci_bus_id);
		take_str(&o->error, &g->error);
		o->utilization_gpu_pct = g->utilization_gpu_pct;
		o->utilization_memory_pct = g->utilization_memory_pct;
		o->memory_used_bytes = g->memory_used_bytes;
		o->pcie_rx_kbps = g->pcie_rx_kbps;
		o->pcie_tx_kbps = g->pcie_tx_kbps;
		o->power_usage_mw = g->power_usage_mw;
		o->clock_sm_mhz = g->clock_sm_mhz;
		o->clock_mem_mhz = g->clock_mem_mhz;
		o->temperature_c = g->temperature_c;
		o->clock_event_names = g->clock_event_names;
		memset(&g->clock_event_names, 0, sizeof(g->clock_event_names));
	}
	return 0;
}

int ga_sample_doc_read(struct ga_ctx *ctx, const char *text, size_t len, struct ga_sample_doc *d)
{
	memset(d, 0, sizeof(*d));
	/* nearly every line is a well-formed sample: no jansson tree for it */
	int fast = ga_schema_read_fast(&ga_sample_doc_schema, text, len, d);
	if (fast == 0 && d->schema && !strcmp(d->schema, GA_SAMPLE_SCHEMA))
		return 0;
	ga_sample_doc_release(d);
	if (fast < 0)
		return fast;
	json_error_t jerr;
	json_t *root = NULL;
	int pr = ga_json_parse(NULL, text, len, JSON_REJECT_DUPLICATES, &root, &jerr);
	if (pr == -ENOMEM)
		return ga_err(ctx, -ENOMEM, "out of memory");
	if (pr < 0)
		return ga_err(ctx, -EBADMSG, "not a %s line: %s", GA_SAMPLE_SCHEMA, jerr.text);
	const json_t *schema = json_object_get(root, "schema");
	int r = 0;
	if (!json_is_string(schema) || strcmp(json_string_value(schema), GA_SAMPLE_SCHEMA))
		r = ga_err(ctx, -EBADMSG, "not a %s line", GA_SAMPLE_SCHEMA);
	else if ((r = ga_schema_read(ctx, &ga_sample_doc_schema, root, d)) == -EBADMSG) {
		char why[512];
		snprintf(why, sizeof(why), "%s", ga_ctx_errmsg(ctx));
		r = ga_err(ctx, -EBADMSG, "not a %s line: %s", GA_SAMPLE_SCHEMA, why);
	}
	json_decref(root);
	if (r < 0)
		ga_sample_doc_release(d);
	return r;
}

int ga_sample_doc_read_line(struct ga_ctx *ctx, const char *text, size_t len, bool last_unterminated,
                            struct ga_sample_doc *d)
{
	int r = ga_sample_doc_read(ctx, text, len, d);
	if (r != -EBADMSG || !last_unterminated)
		return r;
	/* the last write of a recording cut by a kill or a full disk: the lines before it stand */
	char why[512];
	snprintf(why, sizeof(why), "%s", ga_ctx_errmsg(ctx));
	ga_err(ctx, -EBADMSG,
	       "the last line is cut (no newline; the recording was interrupted): skipped (%s)", why);
	return 1;
}

void ga_sample_doc_release(struct ga_sample_doc *d)
{
	ga_schema_release(&ga_sample_doc_schema, d);
	memset(d, 0, sizeof(*d));
}
