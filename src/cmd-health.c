/*
 * cmd-health.c - `gpuaudit health`: is this node fit to run jobs right now?
 * The snapshot's own findings, kernel-log events (Xid, SXid, GPU lost, amdgpu
 * resets and RAS, PCIe AER, hung tasks, OOM kills, MCE, NVRM load failures)
 * counted per kind, code and device inside a window, processes stuck in D
 * state and, with a policy, the expected GPU count. Printed as text, JSON, a
 * node-problem-detector line or a Slurm drain reason, like `check`. Each source
 * is recorded in the coverage; without the kernel log the verdict is UNKNOWN
 * (exit 4; NPD: 2), never OK. A --kmsg file without --root/--from is another
 * machine's log: this machine's snapshot is not mixed in unless --local.
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
#include "gpuaudit/fabric-analyze.h"
#include "gpuaudit/fabric-read.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/klog.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node-action.h"
#include "gpuaudit/model.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/nodereport-analyze.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/sample-read.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/hstate.h"
#include "gpuaudit/hstate-analyze.h"

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

/*
 * A finding's times: seconds since boot as "+S s", and the wall time only
 * when the boot time of the log's machine is known or the stamps were wall
 * times; a stamp that is only seconds since boot is never given a date.
 */
static void print_times(FILE *o, const struct ga_finding *fd)
{
	const char *fb = evidence(fd, "first_boot_s"), *lb = evidence(fd, "last_boot_s");
	const char *ft = evidence(fd, "first_time"), *lt = evidence(fd, "last_time");
	if (fb)
		fprintf(o, "           +%s s .. +%s s since boot%s\n", cli_esc(fb), lb ? cli_esc(lb) : "-",
		        ft ? "" : " (boot time unknown: no date)");
	if (ft)
		fprintf(o, "           time %s .. %s\n", cli_esc(ft), lt ? cli_esc(lt) : "-");
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

/* "coverage: kernel_log read, node read, ..." and a line for each source not read */
static void print_coverage(FILE *o, const struct ga_health_log *k)
{
	fprintf(o, "coverage:");
	for (size_t i = 0; i < k->n_cov; i++)
		fprintf(o, "%s %s %s", i ? "," : "", k->cov[i].source, ga_hsrc_state_name(k->cov[i].state));
	fprintf(o, "\n");
	for (size_t i = 0; i < k->n_cov; i++)
		if (k->cov[i].state != GA_HSRC_READ && k->cov[i].detail)
			fprintf(o, "  %s %s: %s\n", k->cov[i].source, ga_hsrc_state_name(k->cov[i].state),
			        cli_esc(k->cov[i].detail));
}

/*
 * OK says what it rests on: a source that was not read (processes in a saved
 * snapshot) is named on the headline, not only in the coverage line below it.
 */
static void print_headline(FILE *o, enum ga_health_verdict v, const struct ga_health_cov *why,
                           const struct ga_health_log *k)
{
	if (v == GA_HEALTH_UNKNOWN) {
		fprintf(o, "health: UNKNOWN (%s)\n", why && why->summary ? why->summary : "evidence missing");
		return;
	}
	fprintf(o, "health: %s", v == GA_HEALTH_PROBLEMS ? "PROBLEMS" : "OK");
	size_t n = 0;
	for (size_t i = 0; v == GA_HEALTH_OK && i < k->n_cov; i++)
		if (k->cov[i].state != GA_HSRC_READ)
			fprintf(o, "%s%s", n++ ? ", " : " (not examined: ", k->cov[i].source);
	fprintf(o, "%s\n", n ? ")" : "");
}

static void print_text(FILE *o, const struct ga_findings *f, const struct ga_health_log *k)
{
	const struct ga_health_cov *why = NULL;
	enum ga_health_verdict v = ga_health_verdict(k, f, &why);
	print_headline(o, v, why, k);
	print_coverage(o, k);
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
		print_times(o, fd);
		const char *e = evidence(fd, "expected"), *a = evidence(fd, "actual");
		if (e || a)
			fprintf(o, "           expected %s, actual %s\n", e ? cli_esc(e) : "-",
			        a ? cli_esc(a) : "-");
		const char *cond = evidence(fd, "condition"), *ra = evidence(fd, "raised_at");
		if (cond)
			fprintf(o, "           condition: %s since %s%s\n", cli_esc(cond),
			        ra ? cli_esc(ra) : "-",
			        !strcmp(cond, "sticky") ? " (gone from the log; --clear lowers it)" : "");
		const char *th = evidence(fd, "threshold");
		if (th)
			fprintf(o, "           threshold: %s\n", cli_esc(th));
		const char *s = evidence(fd, "sample");
		if (s)
			fprintf(o, "           line: %s\n", cli_esc(s));
		if (fd->decision)
			fprintf(o, "           fix: %s\n", cli_esc(fd->decision));
		cli_print_action(o, "           ", fd);
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

/* The node's action (node-action.h) as one line; rendered, not decided here. */
static void reason(const struct ga_findings *f, char *out, size_t n)
{
	struct ga_node_action na;
	ga_node_action_of(f, &na);
	const struct ga_finding *w = na.finding;
	if (w && na.errors > 1)
		snprintf(out, n, "%s %s %s: %s (+%zu more)", ga_action_name(w->action), w->code, w->subject,
		         w->message, na.errors - 1);
	else if (w)
		snprintf(out, n, "%s %s %s: %s", ga_action_name(w->action), w->code, w->subject, w->message);
	else
		snprintf(out, n, "ok");
}

/* NPD's custom plugin: one line; unknown says which source is missing (exit 2). */
static void print_npd(FILE *o, const struct ga_findings *f, enum ga_health_verdict v,
                      const struct ga_health_cov *miss)
{
	char line[512], why[400];
	reason(f, why, sizeof(why));
	if (v == GA_HEALTH_UNKNOWN)
		snprintf(line, sizeof(line), "gpuaudit: health: unknown: %s",
		         miss && miss->summary ? miss->summary : "evidence missing");
	else
		snprintf(line, sizeof(line), "gpuaudit: health: %s", v == GA_HEALTH_PROBLEMS ? why : "ok");
	one_line(line, NPD_MAX);
	fprintf(o, "%s\n", line);
}

/*
 * Slurm: a drain reason when unhealthy, nothing when healthy; unknown prints
 * "gpuaudit: unknown: ..." and exits 4, which the wrapper logs without draining.
 */
static void print_slurm(FILE *o, const struct ga_findings *f, enum ga_health_verdict v,
                        const struct ga_health_cov *miss)
{
	if (v == GA_HEALTH_OK)
		return;
	char line[512], why[400];
	reason(f, why, sizeof(why));
	if (v == GA_HEALTH_UNKNOWN)
		snprintf(line, sizeof(line), "gpuaudit: unknown: %s",
		         miss && miss->summary ? miss->summary : "evidence missing");
	else
		snprintf(line, sizeof(line), "gpuaudit: %s", why);
	for (char *p = line; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '`' || *p == '$')
			*p = '\'';
	one_line(line, SLURM_MAX);
	fprintf(o, "%s\n", line);
}

#define fail_early(cli, mode, code, ...) \
	cli_report_fail(cli, "health", "cannot check health", (mode) == MODE_NPD, code, __VA_ARGS__)

/* Processes in D state (live or under --root): a warning. 0, -ENOMEM, or -errno: no process table. */
static int add_dstate(struct ga_ctx *ctx, struct ga_findings *f)
{
	char **names = NULL;
	size_t n = 0;
	int r = ga_proc_dstate(ctx, &names, &n);
	if (r >= 0)
		r = ga_health_dstate_finding(names, n, f);
	ga_strv_free(names);
	return r;
}

/* Write ST to FILE atomically; EXIT_OK or an exit code (the message printed). */
static int write_state(struct cli *cli, struct ga_ctx *ctx, enum mode mode, const char *file,
                       const struct ga_health_state *st)
{
	char why[600];
	int r = cli_state_write(ctx, file, st, why, sizeof(why));
	return r < 0 ? fail_early(cli, mode, r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s", why) : EXIT_OK;
}

/* FILE's state (a new one when FILE does not exist); EXIT_OK or an exit code. */
static int load_state(struct cli *cli, struct ga_ctx *ctx, enum mode mode, const char *file,
                      struct ga_health_state *st)
{
	char why[600];
	int r = cli_state_load(ctx, file, st, why, sizeof(why));
	return r < 0 ? fail_early(cli, mode, cli_exit_for(r), "%s", why) : EXIT_OK;
}

/*
 * --state FILE: fold this run's findings into the sticky conditions (thresholds and
 * damping from the policy's health: section), then write the state back, unless
 * --no-state-update (a second reader of the same state, e.g. NPD's temporary rule).
 * A run without its kernel log (!covered) is not a clear run: nothing is lowered.
 */
static int apply_state(struct cli *cli, struct ga_ctx *ctx, enum mode mode, const char *file, bool update,
                       bool covered, const struct ga_policy *pol, int64_t now_s, const struct ga_node *node,
                       struct ga_findings *f)
{
	struct ga_health_state st;
	int code = load_state(cli, ctx, mode, file, &st);
	if (code != EXIT_OK)
		return code;
	if (!node->host.boot_id)
		fprintf(cli->err, "gpuaudit health: no boot id in the snapshot; repeats across boots "
		                  "are not tracked\n");
	const struct ga_health_policy *hp = pol ? &pol->health : NULL;
	int r = covered ? ga_hstate_update(&st, f, hp, now_s, node->host.boot_id)
	                : ga_hstate_update_unknown(&st, f, hp, now_s, node->host.boot_id);
	if (r < 0)
		code = fail_early(cli, mode, EXIT_INTERNAL, "out of memory");
	else if (update)
		code = write_state(cli, ctx, mode, file, &st);
	ga_hstate_release(&st);
	return code;
}

/* --clear CODE|all: lower the conditions and say how many were raised. */
static int clear_state(struct cli *cli, const char *file, const char *what)
{
	struct ga_ctx *ctx = NULL;
	if (ga_ctx_new(&ctx) < 0)
		return cli_error(cli, "health", EXIT_INTERNAL, "out of memory");
	struct ga_health_state st;
	int code = load_state(cli, ctx, MODE_TEXT, file, &st);
	if (code == EXIT_OK) {
		size_t n = ga_hstate_clear(&st, what);
		code = write_state(cli, ctx, MODE_TEXT, file, &st);
		if (code == EXIT_OK)
			fprintf(cli->out, "cleared %zu raised condition%s (%s) in %s\n", n, n == 1 ? "" : "s",
			        cli_esc(what), cli_esc(file));
		ga_hstate_release(&st);
	}
	ga_ctx_free(ctx);
	return code;
}

struct health_opts {
	struct snap_opts so;
	const char *kmsg_file, *since, *policy_file, *class_name, *state_file, *boot_time, *clear, *only,
	        *now, *nvml_events;
	bool no_state_update, local;
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
	case 'X':
		o->clear = arg;
		return CLI_NEXT;
	case 'O':
		o->only = arg;
		return CLI_NEXT;
	case 'W':
		o->now = arg;
		return CLI_NEXT;
	case 'U':
		o->no_state_update = true;
		return CLI_NEXT;
	case 'L':
		o->local = true;
		return CLI_NEXT;
	case 'E':
		o->nvml_events = arg;
		return CLI_NEXT;
	case 'S':
		o->since = arg;
		return CLI_NEXT;
	case 'B':
		o->boot_time = arg;
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
	int64_t now_s; /* the collection's time for --state: the clock, or --now */
	bool live;
	bool foreign;        /* --kmsg FILE of another machine: no local snapshot, no processes */
	char klog_why[640];  /* the kernel log's coverage detail when it is missing */
	char nvml_why[320];  /* --nvml-events: what was seen, or why not */
	char node_what[320]; /* the node's coverage detail */
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
	if (r == 0) {
		run->kl.source = run->live ? "/dev/kmsg" : "dev/kmsg under --root";
		ga_health_cover(&run->kl, "kernel_log", GA_HSRC_READ, true, run->kl.source, NULL);
	} else if (r == -ENOENT) {
		run->kl.note = "no dev/kmsg";
		if (run->live)
			snprintf(run->klog_why, sizeof(run->klog_why),
			         "no /dev/kmsg (a container without it?): Xid, AER and reset events are "
			         "unseen; mount /dev/kmsg, or pass --kmsg FILE with this node's log");
		else
			snprintf(run->klog_why, sizeof(run->klog_why),
			         "no dev/kmsg under --root: Xid, AER and reset events are unseen; pass "
			         "--kmsg FILE with the log of the machine the tree was taken from");
		ga_health_cover(&run->kl, "kernel_log", GA_HSRC_MISSING, true, run->klog_why,
		                run->live ? "no /dev/kmsg: mount it or pass --kmsg FILE"
		                          : "no dev/kmsg under --root: pass --kmsg FILE");
	} else if (r != -ENOMEM) {
		run->kl.note = "dev/kmsg unreadable";
		snprintf(run->klog_why, sizeof(run->klog_why),
		         "%s: Xid, AER and reset events are unseen; run as root or with CAP_SYSLOG "
		         "(kernel.dmesg_restrict=1 hides the log from other users), or pass --kmsg FILE",
		         ga_ctx_errmsg(run->ctx));
		ga_health_cover(&run->kl, "kernel_log", GA_HSRC_MISSING, true, run->klog_why,
		                "kernel log unreadable: run as root or pass --kmsg FILE");
		r = ga_health_klog_unreadable(ga_ctx_errmsg(run->ctx), &run->f);
	}
	return r == -ENOMEM ? fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory") : EXIT_OK;
}

/*
 * "Now" for the year of year-less syslog stamps: the clock, or GPUAUDIT_NOW
 * (Unix seconds) so that tests of such logs do not change with the year.
 */
static int64_t year_ref_now(void)
{
	const char *e = getenv("GPUAUDIT_NOW");
	int64_t t;
	if (e && ga_wall_time_parse(e, &t) == 0)
		return t;
	return (int64_t)time(NULL);
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
	ga_health_set_year_ref(run->h, year_ref_now()); /* the year of syslog stamps */
	if (o->kmsg_file) {
		r = ga_kmsg_read_file(run->ctx, o->kmsg_file, ga_health_add_line, run->h, &run->kl.st);
		if (r < 0)
			return fail_early(cli, o->mode, cli_exit_for(r), "%s", ga_ctx_errmsg(run->ctx));
		run->kl.source = o->kmsg_file;
		ga_health_cover(&run->kl, "kernel_log", GA_HSRC_READ, true, o->kmsg_file, NULL);
	}
	/* a --kmsg file (not the kmsg device) with no machine named: another machine's log */
	run->foreign = o->kmsg_file && !o->local && !o->so.from && !o->so.root && !run->kl.st.device &&
	               !strcmp(ga_ctx_root(run->ctx), "/");
	if (run->foreign && o->nvml_events)
		return fail_early(cli, o->mode, EXIT_USAGE,
		                  "--nvml-events waits on this machine's GPUs, and --kmsg %s without --root "
		                  "is taken as another machine's log; add --local if it is this machine's",
		                  o->kmsg_file);
	if (run->foreign) {
		if (!(run->node = ga_node_new()))
			return fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory");
		ga_health_cover(&run->kl, "node", GA_HSRC_SKIPPED, true,
		                "--kmsg FILE without --root or --from is taken as another machine's log: "
		                "this machine's sysfs, NVML and processes are not mixed in (--local: FILE "
		                "is this machine's log)",
		                NULL);
	} else if ((r = snap_node(run->ctx, &o->so, &run->node)) < 0) {
		return fail_early(cli, o->mode, cli_exit_for(r), "%s", ga_ctx_errmsg(run->ctx));
	} else {
		snprintf(run->node_what, sizeof(run->node_what), "%s%s",
		         o->so.from                           ? "--from "
		         : strcmp(ga_ctx_root(run->ctx), "/") ? "--root "
		                                              : "",
		         o->so.from ? o->so.from : ga_ctx_root(run->ctx));
		ga_health_cover(&run->kl, "node", GA_HSRC_READ, true, run->node_what, NULL);
	}
	/* another machine's log is matched to no class of this one: --class names it */
	if (run->policy && !run->cls && !run->foreign)
		run->cls = ga_policy_match(run->policy, run->node);
	run->ho.cls = run->cls;
	/* the node was read but not its PCI bus (no /sys in the container, a tree without
	 * sys/bus/pci): GPUs off the bus, their count and the sysfs error counters are unseen,
	 * so health cannot say OK (unknown is never OK); it decides like the kernel log */
	if (!run->foreign && !ga_node_pci_known(run->node))
		ga_health_cover(&run->kl, "pci", GA_HSRC_MISSING, true,
		                "the PCI devices could not be read: the GPUs on the bus, their count and "
		                "sysfs counters are unseen; mount /sys (e.g. -v /sys:/sys:ro) or pass --root "
		                "to a captured tree (gpuaudit capture)",
		                "PCI devices unreadable: mount /sys");
	return EXIT_OK;
}

/*
 * Whose clock the log's stamps are on. Seconds since boot become wall times
 * only with the boot time of the machine that wrote the log: --boot-time when
 * given; else this machine's (proc/stat btime under the root) for its own log
 * (dev/kmsg under the root, or --kmsg naming the live kmsg device); a --kmsg
 * file, perhaps from another host, gets none. "Now" for --since is the clock
 * only for the live log; otherwise the newest event.
 */
static void health_clock(const struct health_opts *o, struct health_run *run)
{
	bool own = !o->kmsg_file || (run->live && run->kl.st.device);
	if (!o->boot_time && own && !o->so.from)
		ga_proc_btime(run->ctx, &run->ho.btime);
	run->kl.btime = run->ho.btime;
	if (run->live && own) {
		ga_proc_uptime(run->ctx, &run->ho.now_boot_s);
		GA_SET(run->ho.now_wall_s, (int64_t)time(NULL));
	}
}

/* --only sticky|transient: the raised conditions (NPD's permanent rule) or the rest (events). */
static void keep_only(struct ga_findings *f, bool sticky)
{
	struct ga_findings keep;
	ga_findings_init(&keep);
	for (size_t i = 0; i < f->n; i++)
		if (ga_finding_is_sticky(&f->v[i]) == sticky)
			ga_findings_copy(&keep, &f->v[i]);
	int err = keep.err;
	ga_findings_release(f);
	*f = keep;
	f->err = err;
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
		if (nvml_why)
			snprintf(run->nvml_why, sizeof(run->nvml_why), "NVML events not live: %s", nvml_why);
		else
			snprintf(run->nvml_why, sizeof(run->nvml_why), "%llu GPU%s registered, %zu event%s",
			         (unsigned long long)e->registered_gpus.v,
			         e->registered_gpus.v == 1 ? "" : "s", e->n_events,
			         e->n_events == 1 ? "" : "s");
		ga_health_cover(&run->kl, "nvml_events", nvml_why ? GA_HSRC_MISSING : GA_HSRC_READ, false,
		                run->nvml_why, NULL);
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
	int r = run->foreign ? 0 : ga_analyze_node(run->node, &run->f);
	if (r < 0)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "analysis failed: %s", strerror(-r));
	run->live = !o->so.from && !run->foreign && !strcmp(ga_ctx_root(run->ctx), "/");
	int code = EXIT_OK;
	if (!o->kmsg_file && o->so.from) {
		run->kl.note = "a saved snapshot has no kernel log; pass --kmsg FILE";
		ga_health_cover(&run->kl, "kernel_log", GA_HSRC_MISSING, true,
		                "a saved snapshot (--from) has no kernel log: Xid, AER and reset events are "
		                "unseen; pass --kmsg FILE with the node's log (journalctl -k, dmesg)",
		                "no kernel log with --from: pass --kmsg FILE");
	} else if (!o->kmsg_file) {
		code = read_root_log(cli, o, run);
	}
	if (code != EXIT_OK)
		return code;
	health_clock(o, run);
	if (o->so.from || run->foreign)
		ga_health_cover(&run->kl, "processes", GA_HSRC_SKIPPED, false,
		                o->so.from ? "a saved snapshot has no process table"
		                           : "another machine's log: this machine's processes are not its",
		                NULL);
	else if ((r = add_dstate(run->ctx, &run->f)) < 0 && r == -ENOMEM)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "out of memory");
	else
		ga_health_cover(&run->kl, "processes", r < 0 ? GA_HSRC_MISSING : GA_HSRC_READ, false,
		                r < 0 ? "the process table could not be read: D-state processes are unseen"
		                      : "proc/*/stat",
		                NULL);
	uint64_t unplaced =
	        run->ho.since_s > 0 && !run->ho.now_boot_s.set ? ga_health_unplaced(run->h, &run->ho) : 0;
	if (unplaced)
		return fail_early(cli, o->mode, EXIT_USAGE,
		                  "--since cannot apply to %s: %llu event%s carry only seconds since boot, "
		                  "and the boot time of the machine that wrote it is unknown; pass "
		                  "--boot-time TIME (RFC 3339 or Unix seconds), or a log with wall-clock "
		                  "stamps (dmesg -T, journalctl -k -o short-iso)",
		                  run->kl.source ? run->kl.source : "the log", (unsigned long long)unplaced,
		                  unplaced == 1 ? "" : "s");
	if ((code = health_nvml_events(cli, o, run)) != EXIT_OK)
		return code;
	run->kl.events = ga_health_events(run->h);
	run->kl.boot_id = run->node->host.boot_id;
	r = ga_health_findings(run->h, run->foreign ? NULL : run->node, &run->ho, &run->f,
	                       &run->kl.in_window);
	if (r < 0)
		return fail_early(cli, o->mode, EXIT_INTERNAL, "health analysis failed: %s", strerror(-r));
	if (o->state_file)
		code = apply_state(cli, run->ctx, o->mode, o->state_file, !o->no_state_update,
		                   ga_health_covered(&run->kl), run->policy, run->now_s, run->node, &run->f);
	if (code == EXIT_OK && o->only)
		keep_only(&run->f, !strcmp(o->only, "sticky"));
	ga_findings_sort(&run->f);
	return code;
}

/* Exit 0 ok, 1 problems, 4 unknown (NPD: 2, its Unknown). */
static int health_print(struct cli *cli, const struct health_opts *o, struct health_run *run)
{
	const struct ga_health_cov *why = NULL;
	enum ga_health_verdict v = ga_health_verdict(&run->kl, &run->f, &why);
	int code = v == GA_HEALTH_PROBLEMS  ? EXIT_PROBLEMS
	           : v == GA_HEALTH_UNKNOWN ? (o->mode == MODE_NPD ? 2 : EXIT_INCONCLUSIVE)
	                                    : EXIT_OK;
	switch (o->mode) {
	case MODE_JSON:
		if (print_json(cli, &run->kl, &run->f) < 0)
			code = cli_error(cli, "health", EXIT_INTERNAL, "JSON output failed");
		break;
	case MODE_NPD:
		print_npd(cli->out, &run->f, v, why);
		break;
	case MODE_SLURM:
		print_slurm(cli->out, &run->f, v, why);
		break;
	default:
		print_text(cli->out, &run->f, &run->kl);
	}
	return code;
}

int cmd_health(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "kmsg", required_argument, NULL, 'K' },
		{ "since", required_argument, NULL, 'S' },
		{ "boot-time", required_argument, NULL, 'B' },
		{ "policy", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "npd", no_argument, NULL, 'n' },
		{ "slurm", no_argument, NULL, 's' },
		{ "state", required_argument, NULL, 'T' },
		{ "clear", required_argument, NULL, 'X' },
		{ "only", required_argument, NULL, 'O' },
		{ "now", required_argument, NULL, 'W' },
		{ "no-state-update", no_argument, NULL, 'U' },
		{ "nvml-events", required_argument, NULL, 'E' },
		{ "local", no_argument, NULL, 'L' },
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
	if (o.clear && !o.state_file)
		return cli_error(cli, "health", EXIT_USAGE, "--clear needs --state FILE");
	if (o.clear && (!ga_code_wellformed(o.clear) && strcmp(o.clear, "all")))
		return cli_error(cli, "health", EXIT_USAGE,
		                 "--clear wants a finding code (GA-...) or 'all', not '%s'", o.clear);
	if (o.clear)
		return clear_state(cli, o.state_file, o.clear);
	if (o.only && strcmp(o.only, "sticky") && strcmp(o.only, "transient"))
		return fail_early(cli, o.mode, EXIT_USAGE, "--only wants sticky or transient, not '%s'",
		                  o.only);
	if (o.only && !strcmp(o.only, "sticky") && !o.state_file)
		return fail_early(cli, o.mode, EXIT_USAGE, "--only sticky needs --state FILE");
	if (o.local && !o.kmsg_file)
		return fail_early(cli, o.mode, EXIT_USAGE,
		                  "--local says a --kmsg FILE is this machine's log; it needs --kmsg FILE");
	if (o.no_state_update && !o.state_file)
		return fail_early(cli, o.mode, EXIT_USAGE, "--no-state-update needs --state FILE");
	struct health_run run = { 0 };
	ga_findings_init(&run.f);
	run.now_s = (int64_t)time(NULL);
	if (o.now) {
		char *end = NULL;
		errno = 0;
		long long t = strtoll(o.now, &end, 10);
		if (errno || end == o.now || *end || t < 0)
			return fail_early(cli, o.mode, EXIT_USAGE, "--now wants Unix seconds, not '%s'",
			                  o.now);
		run.now_s = (int64_t)t;
	}
	if (o.since && ga_duration_parse(o.since, &run.kl.since_s) < 0)
		return fail_early(cli, o.mode, EXIT_USAGE,
		                  "--since wants a duration like 30m, 2h, 1d or 1h30m, not '%s'", o.since);
	run.ho.since_s = run.kl.since_s;
	if (o.boot_time && ga_wall_time_parse(o.boot_time, &run.ho.btime.v) < 0)
		return fail_early(cli, o.mode, EXIT_USAGE,
		                  "--boot-time wants RFC 3339 with an offset (2026-12-01T09:00:00Z) or Unix "
		                  "seconds, not '%s'",
		                  o.boot_time);
	run.ho.btime.set = o.boot_time != NULL;
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
