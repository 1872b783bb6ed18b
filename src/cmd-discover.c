/*
 * cmd-discover.c - `gpuaudit discover`: collect (or load) a node snapshot,
 * analyse it, and print it as text or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/topomatrix.h"
#include "gpuaudit/topotext.h"
#include "gpuaudit/verdict.h"
#include "gpuaudit/verdict-analyze.h"

static void human_bytes(char *out, size_t n, uint64_t b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(out, n, "%llu %s", (unsigned long long)v, units[u]);
	else
		snprintf(out, n, "%.1f %s", v, units[u]);
}

/* Every string of a snapshot is printed through the text rule (cli_esc): it came from the node. */
static const char *or_dash(const char *s)
{
	return s && *s ? cli_esc(s) : "-";
}

static void link_text(char *out, size_t n, const struct ga_link *l)
{
	char sp[16] = "?", mx[16] = "?";
	if (l->cur_speed_gts.set)
		snprintf(sp, sizeof(sp), "%.1f", l->cur_speed_gts.v);
	if (l->max_speed_gts.set)
		snprintf(mx, sizeof(mx), "%.1f", l->max_speed_gts.v);
	if (!l->cur_width.set && !l->cur_speed_gts.set) {
		snprintf(out, n, "-");
		return;
	}
	char w[16] = "?", mw[16] = "?";
	if (l->cur_width.set)
		snprintf(w, sizeof(w), "%llu", (unsigned long long)l->cur_width.v);
	if (l->max_width.set)
		snprintf(mw, sizeof(mw), "%llu", (unsigned long long)l->max_width.v);
	snprintf(out, n, "%s GT/s x%s (max %s x%s)", sp, w, mx, mw);
}

static void print_nvml_gpu(FILE *o, const struct ga_nvml_gpu *g)
{
	fputs("      nvml:", o);
	if (g->error) {
		fprintf(o, " error: %s\n", cli_esc(g->error));
		return;
	}
	char mem[32] = "-", used[32] = "-";
	if (g->memory_total_bytes.set)
		human_bytes(mem, sizeof(mem), g->memory_total_bytes.v);
	if (g->memory_used_bytes.set)
		human_bytes(used, sizeof(used), g->memory_used_bytes.v);
	fprintf(o, " cc %s  mem %s (used %s)", or_dash(g->compute_capability), mem, used);
	if (g->temperature_c.set)
		fprintf(o, "  %llu C", (unsigned long long)g->temperature_c.v);
	if (g->power_usage_mw.set && g->power_limit_mw.set)
		fprintf(o, "  %llu/%llu W", (unsigned long long)g->power_usage_mw.v / 1000,
		        (unsigned long long)g->power_limit_mw.v / 1000);
	if (g->clock_sm_mhz.set && g->clock_sm_max_mhz.set)
		fprintf(o, "  sm %llu/%llu MHz", (unsigned long long)g->clock_sm_mhz.v,
		        (unsigned long long)g->clock_sm_max_mhz.v);
	if (g->pcie_gen.set && g->pcie_width.set)
		fprintf(o, "  pcie gen%llu x%llu", (unsigned long long)g->pcie_gen.v,
		        (unsigned long long)g->pcie_width.v);
	if (g->ecc_enabled.set)
		fprintf(o, "  ecc %s", g->ecc_enabled.v ? "on" : "off");
	if (g->ecc_uncorrected_volatile.set && g->ecc_uncorrected_volatile.v)
		fprintf(o, " (%llu uncorrected)", (unsigned long long)g->ecc_uncorrected_volatile.v);
	if (g->mig_enabled.set)
		fprintf(o, "  mig %s", g->mig_enabled.v ? "on" : "off");
	if (g->n_mig_instances)
		fprintf(o, " (%zu instances)", g->n_mig_instances);
	size_t active = 0;
	for (size_t k = 0; k < g->n_nvlinks; k++)
		active += g->nvlinks[k].active.set && g->nvlinks[k].active.v;
	if (g->n_nvlinks)
		fprintf(o, "  nvlink %zu/%zu up", active, g->n_nvlinks);
	for (size_t k = 0; k < g->clock_event_names.n; k++)
		fprintf(o, "%s%s", k ? "," : "  clocks: ", cli_esc(g->clock_event_names.v[k]));
	fputc('\n', o);
	for (size_t k = 0; k < g->n_mig_instances; k++) {
		const struct ga_nvml_mig_instance *mi = &g->mig_instances[k];
		char m[32] = "-";
		if (mi->memory_total_bytes.set)
			human_bytes(m, sizeof(m), mi->memory_total_bytes.v);
		fprintf(o, "      mig gi %llu ci %llu  %s  %s  %s\n",
		        (unsigned long long)mi->gpu_instance_id.v,
		        (unsigned long long)mi->compute_instance_id.v, or_dash(mi->name), or_dash(mi->uuid),
		        m);
	}
}

/* The topology matrix (lib/emit/topology.c), when there are two accelerators or one and a NIC. */
static void print_topology(FILE *o, const struct ga_topology *t)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (t && ga_topology_text(&b, t) == 0 && b.len)
		fwrite(b.data, 1, b.len, o);
	ga_buf_release(&b);
}

/*
 * Why an accelerator's memory size is not known, for the text (the JSON has
 * null and the reasons in their own members). Sysfs has no memory size for
 * NVIDIA GPUs: it comes from NVML, so say what happened to NVML.
 */
static void mem_unknown(char *out, size_t n, const struct ga_node *node, const struct ga_accel *a)
{
	if (!a->vendor || strcmp(a->vendor, "nvidia")) {
		snprintf(out, n, "-");
		return;
	}
	const char *why = NULL;
	if (a->nvml && a->nvml->error)
		why = a->nvml->error;
	else if (node->nvml && node->nvml->error)
		why = node->nvml->error;
	if (why)
		snprintf(out, n, "unknown (NVML: %s)", cli_esc(why));
	else if (!node->nvml)
		snprintf(out, n, "unknown (NVML not loaded)");
	else
		snprintf(out, n, "unknown (NVML did not say)");
}

static void print_accels(FILE *o, const struct ga_node *n, const struct ga_topology *topo)
{
	const char *path = NULL, *why = NULL;
	if (ga_node_source_state(n, GA_SOURCE_PCI, &path, &why) != GA_SOURCE_READ)
		fprintf(o, "accelerators: unknown (the PCI devices could not be read: /%s: %s)\n",
		        cli_esc(path ? path : GA_SOURCE_PCI_PATH), cli_esc(why));
	else
		fprintf(o, "accelerators: %zu\n", n->n_accelerators);
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		const struct ga_pci_dev *pd = NULL;
		for (size_t k = 0; k < n->n_pci; k++)
			if (a->address && n->pci[k].address && !strcmp(a->address, n->pci[k].address))
				pd = &n->pci[k];
		char mem[160] = "-", numa[24] = "-", lk[64] = "-", drv[96];
		if (a->memory_bytes.set)
			human_bytes(mem, sizeof(mem), a->memory_bytes.v);
		else
			mem_unknown(mem, sizeof(mem), n, a);
		if (a->numa_node.set && a->numa_node.v >= 0)
			snprintf(numa, sizeof(numa), "%lld", (long long)a->numa_node.v);
		if (pd)
			link_text(lk, sizeof(lk), &pd->link);
		snprintf(drv, sizeof(drv), "%s%s%s", or_dash(a->driver), a->driver_version ? " " : "",
		         a->driver_version ? cli_esc(a->driver_version) : "");
		fprintf(o, "  [%llu] %-6s %-28s %s  driver %s  mem %s  numa %s  pcie %s",
		        (unsigned long long)(a->index.set ? a->index.v : i), or_dash(a->vendor),
		        or_dash(a->model), or_dash(a->address), drv, mem, numa, lk);
		if (a->gfx_target)
			fprintf(o, "  %s", cli_esc(a->gfx_target));
		if (a->minor.set)
			fprintf(o, "  minor %llu", (unsigned long long)a->minor.v);
		for (size_t k = 0; k < a->interconnect.n; k++)
			fprintf(o, "  %s", cli_esc(a->interconnect.v[k]));
		/* AMD Instinct (MI300X) partition modes, as the JSON has them */
		if (a->amd && (a->amd->compute_partition || a->amd->memory_partition))
			fprintf(o, "  partition compute %s memory %s", or_dash(a->amd->compute_partition),
			        or_dash(a->amd->memory_partition));
		fputc('\n', o);
		if (a->nvml)
			print_nvml_gpu(o, a->nvml);
	}
	print_topology(o, topo);
}

static void print_machine(FILE *o, const struct ga_node *n)
{
	const struct ga_cpu *c = &n->cpu;
	fputs("node:\n", o);
	fprintf(o, "  %-10s ", "cpu");
	if (c->sockets.set)
		fprintf(o, "%llu x ", (unsigned long long)c->sockets.v);
	fprintf(o, "%s", or_dash(c->model_name));
	if (c->cores.set)
		fprintf(o, ", %llu cores", (unsigned long long)c->cores.v);
	if (c->threads.set)
		fprintf(o, ", %llu threads", (unsigned long long)c->threads.v);
	if (c->isa_level)
		fprintf(o, ", %s", cli_esc(c->isa_level));
	if (c->offline && *c->offline)
		fprintf(o, ", offline %s", cli_esc(c->offline));
	if (c->isolated && *c->isolated)
		fprintf(o, ", isolated %s", cli_esc(c->isolated));
	for (size_t i = 0; i < c->n_core_kinds; i++)
		fprintf(o, "%s%s %s", i ? " + " : ", kinds ", or_dash(c->core_kinds[i].kind),
		        or_dash(c->core_kinds[i].cpulist));
	fputc('\n', o);
	if (c->cpuset && (!c->online || strcmp(c->cpuset, c->online)))
		fprintf(o, "  %-10s %s (of %s online)\n", "cpuset", cli_esc(c->cpuset), or_dash(c->online));
	fprintf(o, "  %-10s %zu node%s", "numa", c->n_numa_nodes, c->n_numa_nodes == 1 ? "" : "s");
	/* a CPU-less node by its kind: "1:gpu" */
	for (size_t i = 0; i < c->n_numa_nodes && i < 16; i++) {
		const struct ga_numa_node *nn = &c->numa_nodes[i];
		bool cpuless = nn->cpuless.set && nn->cpuless.v;
		fprintf(o, "%s%llu:%s", i ? " " : "  ", (unsigned long long)nn->id.v,
		        cpuless && nn->kind ? cli_esc(nn->kind) : or_dash(nn->cpulist));
	}
	fputc('\n', o);
	char mem[32] = "-", hp[32] = "-";
	if (c->mem_total_bytes.set)
		human_bytes(mem, sizeof(mem), c->mem_total_bytes.v);
	if (c->hugepage_size_bytes.set)
		human_bytes(hp, sizeof(hp), c->hugepage_size_bytes.v);
	fprintf(o, "  %-10s %s", "memory", mem);
	if (c->hugepages_total.set)
		fprintf(o, ", hugepages %llu x %s", (unsigned long long)c->hugepages_total.v, hp);
	fputc('\n', o);
	const struct ga_virt *v = &n->host.virt;
	if (v->dmi_sys_vendor || v->dmi_product_name)
		fprintf(o, "  %-10s %s %s", "platform", or_dash(v->dmi_sys_vendor),
		        or_dash(v->dmi_product_name));
	else
		fprintf(o, "  %-10s no DMI data", "platform");
	if (v->hypervisor)
		fprintf(o, " (virtual machine: %s)", cli_esc(v->hypervisor));
	else if (v->cpu_hypervisor_flag.set && v->cpu_hypervisor_flag.v)
		fputs(" (virtual machine)", o);
	if (v->container)
		fprintf(o, " (container: %s)", cli_esc(v->container));
	fputc('\n', o);
}

static void print_nvml_sys(FILE *o, const struct ga_nvml *nv)
{
	fprintf(o, "  %-10s ", "nvml");
	if (nv->error)
		fprintf(o, "%s%s%s%s%s\n",
		        nv->timed_out.set && nv->timed_out.v ? "TIMED OUT: " : "error: ", cli_esc(nv->error),
		        nv->error_call && !strstr(nv->error, nv->error_call) ? " (in " : "",
		        nv->error_call && !strstr(nv->error, nv->error_call) ? cli_esc(nv->error_call) : "",
		        nv->error_call && !strstr(nv->error, nv->error_call) ? ")" : "");
	else
		fprintf(o, "driver %s, cuda %s, nvml %s, %llu GPU%s%s\n", or_dash(nv->driver_version),
		        or_dash(nv->cuda_driver_version), or_dash(nv->nvml_version),
		        (unsigned long long)(nv->device_count.set ? nv->device_count.v : 0),
		        nv->device_count.set && nv->device_count.v == 1 ? "" : "s",
		        nv->missing_symbols.n ? " (old driver: some calls unavailable)" : "");
}

/* The container layer (node->container_runtime): one line per toolkit, engine and device. */
static void print_container(FILE *o, const struct ga_container_runtime *cr)
{
	for (size_t i = 0; i < cr->n_toolkits; i++) {
		const struct ga_ctr_toolkit *tk = &cr->toolkits[i];
		fprintf(o, "  %-10s toolkit %s ", "container", cli_esc(tk->vendor));
		if (!tk->installed.v) {
			fputs("not installed\n", o);
			continue;
		}
		fprintf(o, "%s", or_dash(tk->version));
		if (tk->config)
			fprintf(o, "  mode %s", tk->mode ? cli_esc(tk->mode) : "auto (unset)");
		if (tk->no_cgroups.set && tk->no_cgroups.v)
			fputs("  no-cgroups", o);
		if (tk->config_error)
			fputs("  config invalid", o);
		fputc('\n', o);
	}
	for (size_t i = 0; i < cr->n_engines; i++) {
		const struct ga_ctr_engine *e = &cr->engines[i];
		fprintf(o, "  %-10s %s", "container", cli_esc(e->name));
		if (e->config_version.set)
			fprintf(o, " v%llu", (unsigned long long)e->config_version.v);
		if (e->cri_disabled.v)
			fputs(" (cri off)", o);
		fprintf(o, "  default %s", e->default_runtime ? cli_esc(e->default_runtime) : "(built-in)");
		fputs("  runtimes", o);
		if (!e->n_runtimes)
			fputs(" -", o);
		for (size_t k = 0; k < e->n_runtimes; k++)
			fprintf(o, "%s %s%s%s", k ? "," : "", cli_esc(e->runtimes[k].name),
			        e->runtimes[k].vendor ? "=" : "",
			        e->runtimes[k].vendor ? cli_esc(e->runtimes[k].vendor) : "");
		fprintf(o, "  nvidia %s", e->wired.v ? "wired" : "not wired");
		if (e->config_files.n)
			fprintf(o, "  (%zu file%s)", e->config_files.n, e->config_files.n == 1 ? "" : "s");
		if (e->config_error)
			fputs("  config invalid", o);
		fputc('\n', o);
	}
	for (size_t i = 0; i < cr->n_devices; i++) {
		const struct ga_ctr_device *d = &cr->devices[i];
		fprintf(o, "  %-10s %s %s:%s %s\n", "container", cli_esc(d->path), or_dash(d->owner),
		        or_dash(d->group), or_dash(d->mode));
	}
}

static void print_node(FILE *o, const struct ga_node *n)
{
	print_machine(o, n);
	fprintf(o, "  %-10s", "drivers");
	if (!n->n_drivers)
		fputs(" -", o);
	for (size_t i = 0; i < n->n_drivers; i++) {
		const struct ga_driver *d = &n->drivers[i];
		fprintf(o, "%s %s %s", i ? "," : "", cli_esc(d->name), or_dash(d->version));
		if (d->flavor)
			fprintf(o, " (%s)", cli_esc(d->flavor));
	}
	fputc('\n', o);
	if (n->nvml)
		print_nvml_sys(o, n->nvml);
	fprintf(o, "  %-10s", "modules");
	if (!n->modules.n)
		fprintf(o, " %s", n->modules_source ? "none of interest" : "unknown (no module list)");
	for (size_t i = 0; i < n->modules.n; i++)
		fprintf(o, " %s", cli_esc(n->modules.v[i]));
	fputc('\n', o);
	for (size_t i = 0; i < n->n_pci; i++) {
		const struct ga_pci_dev *pd = &n->pci[i];
		if (strcmp(pd->kind, "nic") != 0 && strcmp(pd->kind, "nvswitch") != 0 &&
		    strcmp(pd->kind, "nvme") != 0)
			continue;
		char lk[64];
		link_text(lk, sizeof(lk), &pd->link);
		/* a device pci.ids does not name: its kind and IDs, not a bare '-' */
		char nm[320];
		if (pd->device_name && *pd->device_name)
			snprintf(nm, sizeof(nm), "%s", cli_esc(pd->device_name));
		else if (pd->vendor_id.set && pd->device_id.set)
			snprintf(nm, sizeof(nm), "%s [%04llx:%04llx]",
			         strcmp(pd->kind, "nvswitch") ? "unnamed" : "NVSwitch",
			         (unsigned long long)pd->vendor_id.v, (unsigned long long)pd->device_id.v);
		else
			snprintf(nm, sizeof(nm), "%s", strcmp(pd->kind, "nvswitch") ? "-" : "NVSwitch");
		fprintf(o, "  %-10s %s %s", cli_esc(pd->kind), cli_esc(pd->address), nm);
		for (size_t k = 0; k < pd->rdma_devices.n; k++)
			fprintf(o, " %s", cli_esc(pd->rdma_devices.v[k]));
		for (size_t k = 0; k < pd->net_interfaces.n; k++)
			fprintf(o, " %s", cli_esc(pd->net_interfaces.v[k]));
		if (pd->net_speed_mbps.set)
			fprintf(o, " %llu Mb/s", (unsigned long long)pd->net_speed_mbps.v);
		if (pd->numa_node.set && pd->numa_node.v >= 0)
			fprintf(o, " numa %lld", (long long)pd->numa_node.v);
		fprintf(o, " pcie %s\n", lk);
	}
	fprintf(o, "  %-10s", "runtimes");
	if (!n->n_runtimes)
		fputs(" -", o);
	for (size_t i = 0; i < n->n_runtimes; i++) {
		const struct ga_runtime *rt = &n->runtimes[i];
		fprintf(o, "%s %s %s", i ? "," : "", cli_esc(rt->name),
		        cli_esc(rt->version  ? rt->version
		                : rt->target ? rt->target
		                             : "?"));
	}
	fputc('\n', o);
	fprintf(o, "  %-10s", "devnodes");
	if (!n->device_nodes.n)
		fputs(" -", o);
	for (size_t i = 0; i < n->device_nodes.n; i++)
		fprintf(o, " %s", cli_esc(n->device_nodes.v[i]));
	fputc('\n', o);
	if (n->container_runtime)
		print_container(o, n->container_runtime);
	if (n->host.gpu_cmdline_flags.n) {
		fprintf(o, "  %-10s", "cmdline");
		for (size_t i = 0; i < n->host.gpu_cmdline_flags.n; i++)
			fprintf(o, " %s", cli_esc(n->host.gpu_cmdline_flags.v[i]));
		fputc('\n', o);
	}
}

/* The container layer (CDI specs, kubelet device plugins): one line each, when the node has it. */
static void print_cdi_plugins(FILE *o, const struct ga_node *n)
{
	if (n->cdi) {
		fprintf(o, "  %-10s", "cdi");
		if (!n->cdi->n_specs)
			fprintf(o, " no spec%s", n->cdi->dirs.n ? "" : " (no /etc/cdi, /var/run/cdi)");
		for (size_t i = 0; i < n->cdi->n_specs; i++) {
			const struct ga_cdi_spec *s = &n->cdi->specs[i];
			fprintf(o, "%s %s", i ? "," : "", cli_esc(s->path));
			if (s->error) { /* read but breaking a rule of the format, or not read */
				if (s->kind || s->cdi_version)
					fprintf(o, " %s %s, invalid", or_dash(s->kind),
					        or_dash(s->cdi_version));
				else
					fputs(" unreadable", o);
				continue;
			}
			fprintf(o, " %s %s, %zu device%s", or_dash(s->kind), or_dash(s->cdi_version),
			        s->n_devices, s->n_devices == 1 ? "" : "s");
			if (s->driver_version)
				fprintf(o, ", driver %s", cli_esc(s->driver_version));
		}
		if (n->cdi->n_mig_devices)
			fprintf(o, "; %zu MIG devices", n->cdi->n_mig_devices);
		fputc('\n', o);
	}
	const struct ga_device_plugins *dp = n->device_plugins;
	if (!dp)
		return;
	fprintf(o, "  %-10s", "plugins");
	if (!dp->checkpoint)
		fputs(" no kubelet checkpoint", o);
	else if (dp->checkpoint_error)
		fputs(" checkpoint unreadable", o);
	for (size_t i = 0; i < dp->n_resources; i++) {
		const struct ga_dp_resource *r = &dp->resources[i];
		fprintf(o, "%s %s %zu", i ? "," : "", cli_esc(r->name), r->devices.n);
		if (r->allocated.set && r->allocated.v)
			fprintf(o, " (%llu allocated)", (unsigned long long)r->allocated.v);
	}
	fputs(";", o);
	if (!dp->sockets.n)
		fputs(" no plugin socket", o);
	for (size_t i = 0; i < dp->sockets.n; i++)
		fprintf(o, " %s", cli_esc(dp->sockets.v[i]));
	fputc('\n', o);
}

static void print_findings(FILE *o, const struct ga_findings *f, bool color)
{
	fprintf(o, "findings: %zu\n", f->n);
	for (size_t i = 0; i < f->n; i++) {
		const struct ga_finding *fd = &f->v[i];
		const char *on = "", *off = "";
		if (color) {
			on = fd->severity >= GA_SEV_ERROR     ? "\033[31m"
			     : fd->severity == GA_SEV_WARNING ? "\033[33m"
			                                      : "";
			off = *on ? "\033[0m" : "";
		}
		fprintf(o, "  %s%-8s%s %s %s: %s\n", on, ga_severity_name(fd->severity), off,
		        cli_esc(fd->code), cli_esc(fd->subject), cli_esc(fd->message));
		if (fd->decision)
			fprintf(o, "           fix: %s\n", cli_esc(fd->decision));
		cli_print_action(o, "           ", fd);
	}
}

static void print_text(FILE *o, const struct ga_node *n, const struct ga_findings *f,
                       const struct ga_topology *topo, bool color)
{
	const struct ga_host *h = &n->host;
	fprintf(o, "host: %s  %s  kernel %s", or_dash(h->hostname), or_dash(h->os.pretty_name),
	        or_dash(h->kernel_release));
	if (h->uptime_s.set)
		fprintf(o, "  up %.1f h", h->uptime_s.v / 3600.0);
	fputc('\n', o);
	print_accels(o, n, topo);
	print_node(o, n);
	print_cdi_plugins(o, n);
	print_findings(o, f, color);
}

struct discover_opts {
	struct snap_opts so;
	bool json, compact;
};

static int discover_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct discover_opts *o = st;
	int k = snap_opt(cli, cmd, opt, arg, &o->so);
	if (k)
		return k < 0 ? -k : CLI_NEXT;
	if (opt == 'j')
		o->json = true;
	else if (opt == 'c')
		o->compact = true;
	else
		return CLI_UNKNOWN;
	return CLI_NEXT;
}

/* The snapshot with its findings and verdict appended (--from recomputes them), pretty or one line. */
static int print_json(struct cli *cli, const struct ga_node *node, const struct ga_findings *f,
                      const struct ga_topology *topo, bool compact)
{
	struct ga_buf out;
	struct ga_json w;
	struct ga_node_verdict vd;
	int r = ga_node_verdict_build(node, NULL, false, &vd, NULL);
	if (r < 0)
		return r;
	ga_buf_init(&out, 0);
	ga_json_init(&w, &out, !compact);
	r = ga_node_write_report(node, f, &vd, topo, &w);
	ga_node_verdict_release(&vd);
	if (r == 0)
		r = ga_json_finish(&w);
	if (r == 0) {
		fwrite(out.data, 1, out.len, cli->out);
		if (compact)
			fputc('\n', cli->out);
	}
	ga_buf_release(&out);
	return r;
}

int cmd_discover(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "json", no_argument, NULL, 'j' },
		{ "compact", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct discover_opts o = { 0 };
	snap_opts_init(&o.so);
	int code = cli_parse(cli, "discover", argc, argv, "j" SNAP_SHORT_OPTIONS, opts, discover_opt, &o);
	if (code == CLI_NEXT)
		code = cli_no_operands(cli, "discover", argc, argv);
	if (code != CLI_NEXT)
		return code;
	code = snap_validate(cli, "discover", &o.so);
	if (code != EXIT_OK)
		return code;

	struct ga_ctx *ctx = NULL;
	code = snap_ctx(cli, "discover", &o.so, &ctx);
	if (code != EXIT_OK)
		return code;
	struct ga_node *node = NULL;
	struct ga_findings findings;
	struct ga_topology topo = { 0 };
	ga_findings_init(&findings);
	int r = snap_node(ctx, &o.so, &node);
	if (r < 0)
		code = cli_error(cli, "discover", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	else if ((r = ga_analyze_node(node, &findings)) < 0 || (r = ga_topology_build(node, &topo)) < 0)
		code = cli_error(cli, "discover", EXIT_INTERNAL, "analysis failed: %s", strerror(-r));
	else if (o.json && (r = print_json(cli, node, &findings, &topo, o.compact)) < 0)
		code = cli_error(cli, "discover", EXIT_INTERNAL, "JSON output failed: %s", strerror(-r));
	if (r == 0 && !o.json)
		print_text(cli->out, node, &findings, &topo, cli->color);
	/* an error seen is a problem; otherwise a bus not seen is no verdict at all */
	if (r == 0)
		code = ga_findings_max_severity(&findings) >= GA_SEV_ERROR ? EXIT_PROBLEMS
		       : !ga_node_pci_known(node)                          ? EXIT_INCONCLUSIVE
		                                                           : EXIT_OK;
	ga_findings_release(&findings);
	ga_topology_release(&topo);
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}
