/*
 * cmd-triage.c - `gpuaudit triage`: the "GPUs are slow" playbook. Collects
 * (or loads) the node snapshot and its findings, reads the kernel log like
 * `health`, takes sample lines from `gpuaudit record` (--samples FILE) or
 * records live for --duration (sysfs busy percentages, and NVML's utilization
 * where the NVIDIA driver is loaded or with --nvml), reads the workload's CPUs
 * and NCCL variables with --pid, and prints the steps of lib/analyze/triage.c. Without the
 * kernel log or GPU utilization, or on a node without accelerators, the
 * playbook is inconclusive (exit 4), never "node OK".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/core.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/klog.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/topomatrix.h"
#include "gpuaudit/sample-analyze.h"
#include "gpuaudit/sample-read.h"
#include "gpuaudit/triage.h"
#include "gpuaudit/triage-analyze.h"
#include "gpuaudit/triage-read.h"
#include "gpuaudit/findings-analyze.h"

#define LINE_MAX_BYTES (4u << 20) /* one sample line; a 1024-core node writes ~200 KiB */
#define POINTS_MAX 100000

/* --- sample lines ------------------------------------------------------------ */

static int push_point(struct ga_triage_point **v, size_t *n, const struct ga_triage_point *p)
{
	if (*n >= POINTS_MAX)
		return 0;
	struct ga_triage_point *slot = ga_array_push((void **)v, n, sizeof(**v));
	if (!slot)
		return -ENOMEM;
	*slot = *p;
	return 0;
}

/* Read FILE ('-' = stdin). 0, -ENOMEM, or EXIT_USAGE-worthy errors with a message printed. */
static int read_samples(struct cli *cli, struct ga_ctx *ctx, const char *file, struct ga_triage_point **v,
                        size_t *n)
{
	FILE *in = stdin;
	int fd = -1;
	if (strcmp(file, "-")) { /* a FIFO is refused, not waited on: "-" streams */
		int e = ga_file_open_input(ctx, file, &fd);
		if (e == -EINVAL)
			cli_error(cli, "triage", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		else if (e < 0)
			cli_error(cli, "triage", EXIT_USAGE, "cannot open %s: %s", file, strerror(-e));
		if (e < 0)
			return -EINVAL;
		if (!(in = fdopen(fd, "r"))) {
			close(fd);
			return -ENOMEM;
		}
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int r = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if ((size_t)len > LINE_MAX_BYTES) {
			cli_error(cli, "triage", EXIT_USAGE, "%s:%lu: line longer than %u bytes", file,
			          lineno, LINE_MAX_BYTES);
			r = -EINVAL;
			break;
		}
		size_t k = (size_t)len;
		bool cut = line[k - 1] != '\n'; /* only the last line can lack it */
		while (k && (line[k - 1] == '\n' || line[k - 1] == '\r' || line[k - 1] == ' '))
			k--;
		if (!k)
			continue;
		struct ga_sample_doc d;
		struct ga_triage_point p;
		r = ga_sample_doc_read_line(ctx, line, k, cut, &d);
		if (r == 0)
			ga_triage_point_from_sample(&d, &p);
		ga_sample_doc_release(&d);
		if (r == 1) {
			(void)cli_error(cli, "triage", EXIT_OK, "warning: %s:%lu: %s", file, lineno,
			                ga_ctx_errmsg(ctx));
			r = 0;
			continue;
		}
		if (r == -EBADMSG) {
			cli_error(cli, "triage", EXIT_USAGE, "%s:%lu: %s", file, lineno, ga_ctx_errmsg(ctx));
			r = -EINVAL;
		}
		if (r < 0 || (r = push_point(v, n, &p)) < 0)
			break;
	}
	if (r == 0 && ferror(in)) {
		cli_error(cli, "triage", EXIT_USAGE, "cannot read %s: %s", file, strerror(errno));
		r = -EINVAL;
	}
	free(line);
	if (in != stdin)
		fclose(in);
	return r;
}

/* The live recording: NVML asked at every point or not, and its last failure (for a warning). */
struct live_rec {
	bool nvml;
	size_t nvml_failed;
	char nvml_error[240];
};

/*
 * Record live for duration_s: one-second intervals, at least four of them in a
 * window shorter than 4 s. Each point has the sysfs busy percentages (amdgpu)
 * and, with lr->nvml, NVML's utilization. 0 or -ENOMEM.
 */
static int record_live(struct ga_ctx *ctx, double duration_s, struct live_rec *lr, struct ga_triage_point **v,
                       size_t *n)
{
	struct ga_sample_raw prev, cur;
	int r = ga_sample_read(ctx, &prev);
	if (r < 0)
		return r;
	double t0 = ga_mono_s(), last = t0;
	double interval = duration_s < 4 ? duration_s / 4 : 1;
	for (int k = 1; r == 0 && (double)k * interval <= duration_s + 1e-9; k++) {
		double deadline = t0 + (double)k * interval;
		struct timespec ts = { (time_t)deadline,
			               (long)((deadline - (double)(time_t)deadline) * 1e9) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if ((r = ga_sample_read(ctx, &cur)) < 0)
			break;
		double now = ga_mono_s();
		struct ga_sample s = { 0 };
		struct ga_sample_doc d;
		if ((r = ga_sample_rates(&prev, &cur, now - last, &s)) == 0 &&
		    (r = ga_sample_doc_take(&d, &s, (uint64_t)k, now - t0, NULL)) == 0) {
			struct ga_triage_point p;
			if (lr->nvml)
				r = cli_sample_add_nvml(ctx, &d);
			if (r == 0 && d.nvml && d.nvml->error) {
				lr->nvml_failed++;
				snprintf(lr->nvml_error, sizeof(lr->nvml_error), "%s", d.nvml->error);
			}
			if (r == 0) {
				ga_triage_point_from_sample(&d, &p);
				r = push_point(v, n, &p);
			}
			ga_sample_doc_release(&d);
		}
		ga_sample_release(&s);
		ga_sample_raw_release(&prev);
		prev = cur;
		last = now;
	}
	ga_sample_raw_release(&prev);
	return r;
}

/* --- output ------------------------------------------------------------------ */

static void print_text(FILE *o, const struct ga_triage *t, const struct ga_findings *f, size_t n_pts,
                       const char *source)
{
	if (t->node_at_fault)
		fprintf(o, "triage: NODE AT FAULT\n");
	else if (t->inconclusive)
		fprintf(o, "triage: INCONCLUSIVE (%s)\n", t->reason);
	else
		fprintf(o, "triage: node OK\n");
	fprintf(o, "samples: %zu interval%s (%s)\n", n_pts, n_pts == 1 ? "" : "s", cli_esc(source));
	for (size_t i = 0; i < t->n_steps; i++) {
		const struct ga_triage_step *s = &t->steps[i];
		fprintf(o, "\n%d. %s [%s]\n", s->step, s->title, s->verdict);
		for (size_t k = 0; k < s->n_ev; k++)
			fprintf(o, "   %s: %s\n", cli_esc(s->ev[k].key), cli_esc(s->ev[k].value));
		if (s->step == 1)
			for (size_t k = 0; k < f->n; k++)
				if (f->v[k].severity >= GA_SEV_WARNING)
					fprintf(o, "   %-8s %s %s: %s [%s]\n",
					        ga_severity_name(f->v[k].severity), cli_esc(f->v[k].code),
					        cli_esc(f->v[k].subject), cli_esc(f->v[k].message),
					        ga_action_name(f->v[k].action));
		fprintf(o, "   Decision: %s\n", s->decision);
	}
}

static int print_json(struct cli *cli, const struct ga_triage *t, struct ga_findings *f, size_t n_pts)
{
	struct ga_triage_report rep;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_triage_report_take(&rep, t, n_pts, f);
	if (r == 0)
		r = ga_model_write(ga_model_find(GA_TRIAGE_SCHEMA), &rep, &b, true);
	if (r == 0)
		fwrite(b.data, 1, b.len, cli->out);
	ga_schema_release(&ga_triage_report_schema, &rep);
	ga_buf_release(&b);
	return r;
}

/* --- the command ------------------------------------------------------------- */

static int fail(struct cli *cli, int r, struct ga_ctx *ctx)
{
	return cli_error(cli, "triage", cli_exit_for(r), "%s",
	                 r == -ENOMEM ? "out of memory" : ga_ctx_errmsg(ctx));
}

struct triage_opts {
	struct snap_opts so;
	const char *samples, *duration, *pid_s, *kmsg_file;
	bool json;
	int nvml; /* live NVML sampling: -1 auto (a live NVIDIA driver), 0 --no-nvml, 1 --nvml */
	double duration_s;
	long pid;
};

static int triage_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct triage_opts *o = st;
	int k = snap_opt(cli, cmd, opt, arg, &o->so);
	if (k)
		return k < 0 ? -k : CLI_NEXT;
	switch (opt) {
	case 'S':
		o->samples = arg;
		return CLI_NEXT;
	case 'D':
		o->duration = arg;
		return CLI_NEXT;
	case 'P':
		o->pid_s = arg;
		return CLI_NEXT;
	case 'K':
		o->kmsg_file = arg;
		return CLI_NEXT;
	case 'j':
		o->json = true;
		return CLI_NEXT;
	case 'U':
	case 'u':
		o->nvml = opt == 'U';
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

/* The options that go together or not; CLI_NEXT or the usage error's exit code. */
static int triage_check_opts(struct cli *cli, struct triage_opts *o)
{
	if (o->samples && o->duration)
		return cli_error(cli, "triage", EXIT_USAGE, "--samples and --duration exclude each other");
	if (o->duration && (ga_duration_parse(o->duration, &o->duration_s) < 0 || !(o->duration_s > 0) ||
	                    o->duration_s > 3600))
		return cli_error(cli, "triage", EXIT_USAGE,
		                 "--duration wants a duration like 5s, 1m (at most 1h), not '%s'",
		                 o->duration);
	if (o->nvml == 1 && o->samples)
		return cli_error(cli, "triage", EXIT_USAGE,
		                 "--nvml asks NVML while recording live; with --samples nothing is recorded");
	if (o->so.from && !o->samples)
		return cli_error(cli, "triage", EXIT_USAGE,
		                 "--from (a saved snapshot) needs --samples: there is nothing to record");
	if (o->pid_s) {
		char *end = NULL;
		errno = 0;
		o->pid = strtol(o->pid_s, &end, 10);
		if (errno || !end || *end || end == o->pid_s || o->pid <= 0 || o->pid > 0x3fffffff)
			return cli_error(cli, "triage", EXIT_USAGE, "--pid wants a process id, not '%s'",
			                 o->pid_s);
		if (o->so.from)
			return cli_error(cli, "triage", EXIT_USAGE,
			                 "--pid reads proc/PID under --root; it does not go with --from");
	}
	return CLI_NEXT;
}

/* What one run holds; released by triage_release. */
struct triage_run {
	struct ga_ctx *ctx;
	struct ga_node *node;
	struct ga_health *h;
	struct ga_findings f;
	struct ga_triage_point *pts;
	size_t n_pts;
	struct ga_workload wl;
	struct ga_kmsg_stats kst;
	struct live_rec live;
	struct ga_triage_klog klog; /* what step 1 saw of the kernel log */
	char klog_why[600];
};

static void triage_release(struct triage_run *run)
{
	ga_workload_release(&run->wl);
	ga_free(run->pts);
	ga_findings_release(&run->f);
	ga_health_free(run->h);
	ga_node_free(run->node);
	ga_ctx_free(run->ctx);
}

/* Kernel log (--kmsg first), samples, the workload, the snapshot: bad input before any collection. */
static int triage_inputs(struct cli *cli, const struct triage_opts *o, struct triage_run *run)
{
	int r = ga_health_new(&run->h);
	if (r < 0)
		return cli_error(cli, "triage", EXIT_INTERNAL, "%s", strerror(-r));
	if (o->kmsg_file &&
	    (r = ga_kmsg_read_file(run->ctx, o->kmsg_file, ga_health_add_line, run->h, &run->kst)) < 0)
		return fail(cli, r, run->ctx);
	run->klog.source = o->kmsg_file;
	if (o->samples && (r = read_samples(cli, run->ctx, o->samples, &run->pts, &run->n_pts)) < 0)
		return r == -ENOMEM ? cli_error(cli, "triage", EXIT_INTERNAL, "out of memory") : EXIT_USAGE;
	if (o->pid && (r = ga_workload_read(run->ctx, o->pid, &run->wl)) < 0)
		return r == -ENOMEM ? cli_error(cli, "triage", EXIT_INTERNAL, "out of memory")
		                    : cli_error(cli, "triage", EXIT_USAGE, "no process %ld: %s", o->pid,
		                                strerror(-r));
	if ((r = snap_node(run->ctx, &o->so, &run->node)) < 0)
		return fail(cli, r, run->ctx);
	return EXIT_OK;
}

/* The snapshot's and the log's findings, then the samples (recorded live without --samples). */
static int triage_analyze(struct cli *cli, const struct triage_opts *o, struct triage_run *run)
{
	int r = ga_analyze_node(run->node, &run->f);
	if (r == 0) { /* the topology's findings, for the communication step */
		struct ga_topology topo;
		if ((r = ga_topology_build(run->node, &topo)) == 0) {
			r = ga_topology_findings(&topo, &run->f);
			ga_topology_release(&topo);
		}
		if (r == 0)
			r = ga_findings_bind_devices(&run->f, run->node);
	}
	if (r < 0)
		return cli_error(cli, "triage", EXIT_INTERNAL, "analysis failed: %s", strerror(-r));
	bool live = !o->so.from && !strcmp(ga_ctx_root(run->ctx), "/");
	if (!o->kmsg_file && o->so.from) {
		run->klog.missing = "a saved snapshot has no kernel log; pass --kmsg FILE";
	} else if (!o->kmsg_file) {
		r = ga_kmsg_read_root(run->ctx, "dev/kmsg", ga_health_add_line, run->h, &run->kst);
		if (r == -ENOMEM)
			return cli_error(cli, "triage", EXIT_INTERNAL, "out of memory");
		if (r == 0)
			run->klog.source = live ? "/dev/kmsg" : "dev/kmsg under --root";
		else if (r == -ENOENT)
			run->klog.missing = live ? "no /dev/kmsg" : "no dev/kmsg under --root";
		else
			snprintf(run->klog_why, sizeof(run->klog_why), "%s", ga_ctx_errmsg(run->ctx));
		if (r < 0 && r != -ENOENT)
			run->klog.missing = run->klog_why;
	}
	struct ga_health_opts ho = { 0 };
	if ((r = ga_health_findings(run->h, run->node, &ho, &run->f, NULL)) < 0)
		return cli_error(cli, "triage", EXIT_INTERNAL, "health analysis failed: %s", strerror(-r));
	ga_findings_sort(&run->f);
	if (o->samples)
		return EXIT_OK;
	/* NVML at every point: --nvml, or by default a live machine whose NVIDIA driver is loaded
	 * (--no-vendor and --no-nvml: never) */
	run->live.nvml =
	        o->nvml == 1 || (o->nvml < 0 && live && ga_fs_exists(run->ctx, "proc/driver/nvidia/version"));
	if (run->live.nvml)
		ga_ctx_set_vendor(run->ctx, GA_VENDOR_ON, (int)(o->so.timeout_s * 1000));
	if ((r = record_live(run->ctx, o->duration_s, &run->live, &run->pts, &run->n_pts)) < 0)
		return cli_error(cli, "triage", EXIT_INTERNAL, "recording failed: %s", strerror(-r));
	if (run->live.nvml_failed)
		(void)cli_error(cli, "triage", EXIT_OK, "warning: NVML failed at %zu of %zu points: %s",
		                run->live.nvml_failed, run->n_pts, run->live.nvml_error);
	return EXIT_OK;
}

static int triage_print(struct cli *cli, const struct triage_opts *o, struct triage_run *run)
{
	struct ga_triage *t = ga_malloc(sizeof(*t));
	if (!t)
		return cli_error(cli, "triage", EXIT_INTERNAL, "out of memory");
	ga_triage_run_klog(run->node, &run->f, &run->klog, run->pts, run->n_pts, o->pid ? &run->wl.w : NULL,
	                   t);
	int code = t->node_at_fault ? EXIT_PROBLEMS : t->inconclusive ? EXIT_INCONCLUSIVE : EXIT_OK;
	if (o->json && print_json(cli, t, &run->f, run->n_pts) < 0)
		code = cli_error(cli, "triage", EXIT_INTERNAL, "JSON output failed");
	else if (!o->json)
		print_text(cli->out, t, &run->f, run->n_pts,
		           o->samples       ? o->samples
		           : run->live.nvml ? "recorded live: sysfs and NVML"
		                            : "recorded live: sysfs");
	ga_free(t);
	return code;
}

int cmd_triage(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "samples", required_argument, NULL, 'S' },
		{ "duration", required_argument, NULL, 'D' },
		{ "pid", required_argument, NULL, 'P' },
		{ "kmsg", required_argument, NULL, 'K' },
		{ "json", no_argument, NULL, 'j' },
		{ "nvml", no_argument, NULL, 'U' },
		{ "no-nvml", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct triage_opts o = { .duration_s = 5, .nvml = -1 };
	snap_opts_init(&o.so);
	/* the snapshot asks vendor libraries only with --vendor (the live samples ask NVML by
	 * default on a live NVIDIA machine, for step 2's GPU utilization; --no-vendor: never) */
	int code = cli_parse(cli, "triage", argc, argv, "j" SNAP_SHORT_OPTIONS, opts, triage_opt, &o);
	bool no_vendor = o.so.vendor == GA_VENDOR_OFF;
	if (o.so.vendor == GA_VENDOR_AUTO)
		o.so.vendor = GA_VENDOR_OFF;
	if (no_vendor && o.nvml < 0)
		o.nvml = 0;
	if (code == CLI_NEXT)
		code = cli_no_operands(cli, "triage", argc, argv);
	if (code == CLI_NEXT)
		code = triage_check_opts(cli, &o);
	if (code != CLI_NEXT)
		return code;
	code = snap_validate(cli, "triage", &o.so);
	if (code != EXIT_OK)
		return code;
	struct triage_run run = { 0 };
	ga_findings_init(&run.f);
	code = snap_ctx(cli, "triage", &o.so, &run.ctx);
	if (code == EXIT_OK)
		code = triage_inputs(cli, &o, &run);
	if (code == EXIT_OK)
		code = triage_analyze(cli, &o, &run);
	if (code == EXIT_OK)
		code = triage_print(cli, &o, &run);
	triage_release(&run);
	return code;
}
