/*
 * cmd-health.c - `gpuaudit health`: is this node fit to run jobs right now?
 * The snapshot's own findings, kernel-log events (Xid, SXid, GPU lost, amdgpu
 * resets and RAS, PCIe AER, hung tasks, OOM kills, MCE, NVRM load failures)
 * counted per kind, code and device inside a window, processes stuck in D
 * state and, with a policy, the expected GPU count. Printed as text, JSON, a
 * node-problem-detector line or a Slurm drain reason, like `check`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/fabric.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/model.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/xidstate.h"

#define NPD_MAX CLI_NPD_MAX
#define SLURM_MAX 160

enum mode { MODE_TEXT, MODE_JSON, MODE_NPD, MODE_SLURM };

#define one_line cli_one_line

static const char *evidence(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

/* health --nvml-events: one line on what NVML delivered */
static void print_nvml_events(FILE *o, const struct ga_nvml_events *e)
{
	if (!e)
		return;
	if (e->live.set && e->live.v)
		fprintf(o, "nvml events: %zu event%s in %llu ms from %llu GPU%s\n", e->n_events,
		        e->n_events == 1 ? "" : "s", (unsigned long long)e->waited_ms.v,
		        (unsigned long long)e->registered_gpus.v, e->registered_gpus.v == 1 ? "" : "s");
	else
		fprintf(o, "nvml events: none (%s)\n", e->error ? cli_esc(e->error) : "not live");
}

static void print_text(FILE *o, const struct ga_findings *f, const struct ga_health_log *k, bool bad)
{
	fprintf(o, "health: %s\n", bad ? "PROBLEMS" : "OK");
	if (k->source)
		fprintf(o, "kernel log: %s: %llu line%s, %llu event%s, %llu in window%s%s\n",
		        cli_esc(k->source), (unsigned long long)k->st.lines, k->st.lines == 1 ? "" : "s",
		        (unsigned long long)k->events, k->events == 1 ? "" : "s",
		        (unsigned long long)k->in_window, k->since_s > 0 ? " " : "",
		        k->since_s > 0 ? "(--since)" : "");
	else
		fprintf(o, "kernel log: none (%s)\n", k->note ? k->note : "not read");
	if (k->st.overwritten)
		fprintf(o, "kernel log: %llu time(s) records were overwritten before they were read\n",
		        (unsigned long long)k->st.overwritten);
	print_nvml_events(o, k->nvml_events);
	fprintf(o, "findings: %zu\n", f->n);
	for (size_t i = 0; i < f->n; i++) {
		const struct ga_finding *fd = &f->v[i];
		fprintf(o, "  %-8s %s %s: %s\n", ga_severity_name(fd->severity), cli_esc(fd->code),
		        cli_esc(fd->subject), cli_esc(fd->message));
		const char *fb = evidence(fd, "first_boot_s"), *lb = evidence(fd, "last_boot_s");
		const char *ft = evidence(fd, "first_time"), *lt = evidence(fd, "last_time");
		if (fb)
			fprintf(o, "           boot time %s s .. %s s\n", cli_esc(fb),
			        lb ? cli_esc(lb) : "-");
		if (ft)
			fprintf(o, "           time %s .. %s\n", cli_esc(ft), lt ? cli_esc(lt) : "-");
		const char *e = evidence(fd, "expected"), *a = evidence(fd, "actual");
		if (e || a)
			fprintf(o, "           expected %s, actual %s\n", e ? cli_esc(e) : "-",
			        a ? cli_esc(a) : "-");
		const char *s = evidence(fd, "sample");
		if (s)
			fprintf(o, "           line: %s\n", cli_esc(s));
		if (fd->decision)
			fprintf(o, "           fix: %s\n", cli_esc(fd->decision));
	}
}

static int print_json(struct cli *cli, struct ga_health_log *k, struct ga_findings *f)
{
	struct ga_health_report rep;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_health_report_take(&rep, k, f);
	k->nvml_events = NULL; /* the report owns it now */
	if (r == 0)
		r = ga_model_write(ga_model_find(GA_HEALTH_SCHEMA), &rep, &b, true);
	if (r == 0)
		fwrite(b.data, 1, b.len, cli->out);
	ga_schema_release(&ga_health_report_schema, &rep);
	ga_buf_release(&b);
	return r;
}

static void reason(const struct ga_findings *f, char *out, size_t n)
{
	size_t bad = 0;
	for (size_t i = 0; i < f->n; i++)
		bad += f->v[i].severity >= GA_SEV_ERROR;
	const struct ga_finding *w = f->n && f->v[0].severity >= GA_SEV_ERROR ? &f->v[0] : NULL;
	if (w && bad > 1)
		snprintf(out, n, "%s %s: %s (+%zu more)", w->code, w->subject, w->message, bad - 1);
	else if (w)
		snprintf(out, n, "%s %s: %s", w->code, w->subject, w->message);
	else
		snprintf(out, n, "ok");
}

static void print_npd(FILE *o, const struct ga_findings *f, bool bad)
{
	char line[512], why[400];
	reason(f, why, sizeof(why));
	snprintf(line, sizeof(line), "gpuaudit: health: %s", bad ? why : "ok");
	one_line(line, NPD_MAX);
	fprintf(o, "%s\n", line);
}

static void print_slurm(FILE *o, const struct ga_findings *f, bool bad)
{
	if (!bad)
		return;
	char line[512], why[400];
	reason(f, why, sizeof(why));
	snprintf(line, sizeof(line), "gpuaudit: %s", why);
	for (char *p = line; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '`' || *p == '$')
			*p = '\'';
	one_line(line, SLURM_MAX);
	fprintf(o, "%s\n", line);
}

#define fail_early(cli, mode, code, ...) \
	cli_report_fail(cli, "health", "cannot check health", (mode) == MODE_NPD, code, __VA_ARGS__)

/* Processes in D state (live or under --root): a warning. 0 or -ENOMEM. */
static int add_dstate(struct ga_ctx *ctx, struct ga_findings *f)
{
	char **names = NULL;
	size_t n = 0;
	int r = ga_proc_dstate(ctx, &names, &n) < 0 ? 0 : ga_health_dstate_finding(names, n, f);
	ga_strv_free(names);
	return r;
}

/* The previous state: FILE's text, "" when it does not exist yet; 0 or -errno (message in ctx). */
static int read_state(struct ga_ctx *ctx, const char *file, struct ga_buf *prev)
{
	int fd = -1;
	struct stat st;
	/* it is replaced afterwards, and a link is never replaced (ga_file_write_atomic) */
	if (lstat(file, &st) == 0 && S_ISLNK(st.st_mode))
		return ga_err(ctx, -ELOOP,
		              "%s: the state file is a symbolic link; refusing to follow or replace it",
		              file);
	int r = ga_file_open_input(ctx, file, &fd);
	if (r == -ENOENT)
		return 0;
	char chunk[65536];
	while (r == 0) {
		ssize_t got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				r = ga_err(ctx, -errno, "%s: cannot read the state file: %s", file,
				           strerror(errno));
			break;
		}
		if ((r = ga_buf_add(prev, chunk, (size_t)got)) < 0)
			r = ga_err(ctx, r, "%s: cannot read the state file: %s", file,
			           r == -E2BIG ? "larger than 16 MiB" : strerror(-r));
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * --state FILE: read the previous state, escalate repeats, write the new state
 * atomically (ga_file_write_atomic: a new temporary, O_EXCL|O_NOFOLLOW, fsync,
 * rename; a symlink or FIFO at FILE is refused, not followed).
 */
static int apply_state(struct cli *cli, struct ga_ctx *ctx, enum mode mode, const char *file,
                       const struct ga_node *node, struct ga_findings *f)
{
	if (!node->host.boot_id) {
		fprintf(cli->err, "gpuaudit health: no boot id in the snapshot; --state not updated\n");
		return EXIT_OK;
	}
	struct ga_buf prev;
	ga_buf_init(&prev, 16u << 20);
	int r = read_state(ctx, file, &prev);
	if (r < 0) {
		ga_buf_release(&prev);
		return fail_early(cli, mode, cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	}
	char *next = NULL;
	r = ga_xid_state_apply(ctx, prev.data, prev.len, node->host.boot_id, f, &next);
	ga_buf_release(&prev);
	if (r < 0)
		return fail_early(cli, mode, cli_exit_for(r), "%s: %s", file, ga_ctx_errmsg(ctx));
	struct ga_buf out;
	ga_buf_init(&out, 0);
	r = ga_buf_addf(&out, "%s\n", next);
	ga_free(next);
	if (r == 0)
		r = ga_file_write_atomic(ctx, file, out.data, out.len, 0644);
	ga_buf_release(&out);
	if (r == -ENOMEM)
		return fail_early(cli, mode, EXIT_INTERNAL, "out of memory");
	if (r < 0)
		return fail_early(cli, mode, EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
	return EXIT_OK;
}

struct health_opts {
	struct snap_opts so;
	const char *kmsg_file, *since, *policy_file, *class_name, *state_file, *nvml_events;
	double nvml_events_s;
	enum mode mode;
	int modes;
};

static int health_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct health_opts *o = st;
	int k = snap_opt(cli, cmd, opt, arg, &o->so);
	if (k)
		return k < 0 ? -k : CLI_NEXT;
	switch (opt) {
	case 'K':
		o->kmsg_file = arg;
		return CLI_NEXT;
	case 'T':
		o->state_file = arg;
		return CLI_NEXT;
	case 'E':
		o->nvml_events = arg;
		return CLI_NEXT;
	case 'S':
		o->since = arg;
		return CLI_NEXT;
	case 'P':
		o->policy_file = arg;
		return CLI_NEXT;
	case 'C':
		o->class_name = arg;
		return CLI_NEXT;
	case 'j':
		o->mode = MODE_JSON, o->modes |= 1;
		return CLI_NEXT;
	case 'n':
		o->mode = MODE_NPD, o->modes |= 2;
		return CLI_NEXT;
	case 's':
		o->mode = MODE_SLURM, o->modes |= 4;
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

/* What one run holds; released by health_release. */
struct health_run {
	struct ga_ctx *ctx;
	struct ga_policy *policy;
	const struct ga_policy_class *cls;
	struct ga_node *node;
	struct ga_health *h;
	struct ga_findings f;
	struct ga_health_log kl;
	struct ga_health_opts ho;
	bool live;
};

static void health_release(struct health_run *run)
{
	ga_findings_release(&run->f);
	ga_nvml_events_release(run->kl.nvml_events);
	ga_free(run->kl.nvml_events);
	ga_health_free(run->h);
	ga_node_free(run->node);
	ga_policy_free(run->policy);
	ga_ctx_free(run->ctx);
}

/* The kernel log under the root when no --kmsg and no --from; EXIT_OK or an exit code. */
static int read_root_log(struct cli *cli, const struct health_opts *o, struct health_run *run)
{
	int r = ga_kmsg_read_root(run->ctx, "dev/kmsg", ga_health_add_line, run->h, &run->kl.st);
	if (r == 0)
		run->kl.source = run->live ? "/dev/kmsg" : "dev/kmsg under --root";
	else if (r == -ENOENT)
		run->kl.note = "no dev/kmsg";
	else if (r != -ENOMEM) {
		run->kl.note = "dev/kmsg unreadable";
		r = ga_health_klog_unreadable(ga_ctx_errmsg(run->ctx), &run->f);
	}
	return r == -ENOMEM ? fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory") : EXIT_OK;
}

/* Policy, log (--kmsg first: bad input found before any collection), snapshot. */
static int health_load(struct cli *cli, const struct health_opts *o, struct health_run *run)
{
	int r = 0;
	if (o->policy_file &&
	    (r = cli_policy(run->ctx, o->policy_file, o->class_name, NULL, &run->policy, &run->cls)) < 0)
		return fail_early(cli, o->mode, cli_exit_for(r), "%s", ga_ctx_errmsg(run->ctx));
	if ((r = ga_health_new(&run->h)) < 0)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "%s", strerror(-r));
	if (o->kmsg_file) {
		r = ga_kmsg_read_file(run->ctx, o->kmsg_file, ga_health_add_line, run->h, &run->kl.st);
		if (r < 0)
			return fail_early(cli, o->mode, cli_exit_for(r), "%s", ga_ctx_errmsg(run->ctx));
		run->kl.source = o->kmsg_file;
	}
	if ((r = snap_node(run->ctx, &o->so, &run->node)) < 0)
		return fail_early(cli, o->mode, cli_exit_for(r), "%s", ga_ctx_errmsg(run->ctx));
	if (run->policy && !run->cls)
		run->cls = ga_policy_match(run->policy, run->node);
	run->ho.cls = run->cls;
	return EXIT_OK;
}

static bool has_nvidia(const struct ga_node *n)
{
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].vendor && !strcmp(n->accelerators[i].vendor, "nvidia"))
			return true;
	return false;
}

/*
 * --nvml-events WAIT: Xid events from NVML, fed to the log analysis as the kernel's
 * lines; and GA-XID-NO-SOURCE when neither the kernel log nor NVML events are live
 * on a node with NVIDIA GPUs. EXIT_OK or an exit code.
 */
static int health_nvml_events(struct cli *cli, const struct health_opts *o, struct health_run *run)
{
	const char *nvml_why = NULL;
	if (o->nvml_events) {
		struct ga_odbl up = { 0 };
		if (run->live)
			ga_proc_uptime(run->ctx, &up);
		struct ga_nvml_events *e = ga_calloc(1, sizeof(*e));
		if (!e || ga_nvml_events_isolated(run->ctx, (unsigned)(o->nvml_events_s * 1000), -1, e) < 0) {
			ga_nvml_events_release(e);
			ga_free(e);
			return fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory");
		}
		run->kl.nvml_events = e;
		for (size_t i = 0; i < e->n_events; i++) {
			char line[256];
			size_t len =
			        ga_nvml_event_kline(&e->events[i], up.set ? up.v : -1, line, sizeof(line));
			if (len && ga_health_add_line(run->h, line, len) < 0)
				return fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory");
		}
		if (!(e->live.set && e->live.v))
			nvml_why = e->timed_out.set && e->timed_out.v ? "timed out"
			           : e->error                         ? e->error
			                                              : "not live";
	}
	bool kmsg_live = run->kl.source != NULL;
	bool nvml_live = run->kl.nvml_events && run->kl.nvml_events->live.set && run->kl.nvml_events->live.v;
	/* a recorded tree without dev/kmsg is no news; the live node or a failed source is */
	bool matters = run->live || o->nvml_events || (run->kl.note && strstr(run->kl.note, "unreadable"));
	if (!kmsg_live && !nvml_live && !o->so.from && matters && has_nvidia(run->node) &&
	    ga_xid_no_source_finding(run->kl.note, nvml_why, &run->f) < 0)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory");
	return EXIT_OK;
}

/* The snapshot's findings, the log's, D-state processes and the --state repeats. */
static int health_analyze(struct cli *cli, const struct health_opts *o, struct health_run *run)
{
	int r = ga_analyze_node(run->node, &run->f);
	if (r < 0)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "analysis failed: %s", strerror(-r));
	run->live = !o->so.from && !strcmp(ga_ctx_root(run->ctx), "/");
	int code = EXIT_OK;
	if (!o->kmsg_file && o->so.from)
		run->kl.note = "a saved snapshot has no kernel log; pass --kmsg FILE";
	else if (!o->kmsg_file)
		code = read_root_log(cli, o, run);
	if (code != EXIT_OK)
		return code;
	if (!o->so.from) {
		ga_proc_btime(run->ctx, &run->ho.btime);
		run->kl.btime = run->ho.btime;
		/* "now" is the clock only for the live log; otherwise the newest event */
		if (run->live && !o->kmsg_file) {
			ga_proc_uptime(run->ctx, &run->ho.now_boot_s);
			GA_SET(run->ho.now_wall_s, (int64_t)time(NULL));
		}
		if (add_dstate(run->ctx, &run->f) < 0)
			return fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory");
	}
	if ((code = health_nvml_events(cli, o, run)) != EXIT_OK)
		return code;
	run->kl.events = ga_health_events(run->h);
	run->kl.boot_id = run->node->host.boot_id;
	r = ga_health_findings(run->h, run->node, &run->ho, &run->f, &run->kl.in_window);
	if (r < 0)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "health analysis failed: %s", strerror(-r));
	if (o->state_file)
		code = apply_state(cli, run->ctx, o->mode, o->state_file, run->node, &run->f);
	ga_findings_sort(&run->f);
	return code;
}

static int health_print(struct cli *cli, const struct health_opts *o, struct health_run *run)
{
	bool bad = ga_findings_max_severity(&run->f) >= GA_SEV_ERROR;
	int code = bad ? EXIT_PROBLEMS : EXIT_OK;
	switch (o->mode) {
	case MODE_JSON:
		if (print_json(cli, &run->kl, &run->f) < 0)
			code = cli_error(cli, "health", EXIT_INTERNAL, "JSON output failed");
		break;
	case MODE_NPD:
		print_npd(cli->out, &run->f, bad);
		break;
	case MODE_SLURM:
		print_slurm(cli->out, &run->f, bad);
		break;
	default:
		print_text(cli->out, &run->f, &run->kl, bad);
	}
	return code;
}

int cmd_health(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "kmsg", required_argument, NULL, 'K' },
		{ "since", required_argument, NULL, 'S' },
		{ "policy", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "npd", no_argument, NULL, 'n' },
		{ "slurm", no_argument, NULL, 's' },
		{ "state", required_argument, NULL, 'T' },
		{ "nvml-events", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct health_opts o = { .mode = MODE_TEXT };
	snap_opts_init(&o.so);
	o.so.vendor = GA_VENDOR_OFF; /* the log needs no vendor library: fast unless --vendor */
	int code = cli_parse(cli, "health", argc, argv, "j" SNAP_SHORT_OPTIONS, opts, health_opt, &o);
	if (code == CLI_NEXT)
		code = cli_no_operands(cli, "health", argc, argv);
	if (code != CLI_NEXT)
		return code;
	if (o.modes & (o.modes - 1))
		return cli_error(cli, "health", EXIT_USAGE, "--json, --npd and --slurm exclude each other");
	if (o.class_name && !o.policy_file)
		return fail_early(cli, o.mode, EXIT_USAGE, "--class needs --policy");
	struct health_run run = { 0 };
	ga_findings_init(&run.f);
	if (o.since && ga_duration_parse(o.since, &run.kl.since_s) < 0)
		return fail_early(cli, o.mode, EXIT_USAGE,
		                  "--since wants a duration like 30m, 2h, 1d or 1h30m, not '%s'", o.since);
	run.ho.since_s = run.kl.since_s;
	if (o.nvml_events && (ga_duration_parse(o.nvml_events, &o.nvml_events_s) < 0 ||
	                      o.nvml_events_s <= 0 || o.nvml_events_s > GA_NVML_EVENTS_MAX_WAIT_MS / 1000))
		return fail_early(cli, o.mode, EXIT_USAGE,
		                  "--nvml-events wants a wait between 1s and 10m (10s, 1m), not '%s'",
		                  o.nvml_events);
	if (o.nvml_events && o.so.from)
		return fail_early(cli, o.mode, EXIT_USAGE,
		                  "--nvml-events waits on this machine's GPUs; it does not go with --from");
	code = snap_validate(cli, "health", &o.so);
	if (code == EXIT_OK)
		code = snap_ctx(cli, "health", &o.so, &run.ctx);
	if (code != EXIT_OK)
		return o.mode == MODE_NPD ? 2 : code;
	code = health_load(cli, &o, &run);
	if (code == EXIT_OK)
		code = health_analyze(cli, &o, &run);
	if (code == EXIT_OK)
		code = health_print(cli, &o, &run);
	health_release(&run);
	return code;
}
