/*
 * cmd-health.c - `gpuaudit health`: is this node fit to run jobs right now?
 * The snapshot's own findings, kernel-log events (Xid, SXid, GPU lost, amdgpu
 * resets and RAS, PCIe AER, hung tasks, OOM kills, MCE, NVRM load failures)
 * counted per kind, code and device inside a window, processes stuck in D
 * state and, with a policy, the expected GPU count. Printed as text, JSON, a
 * node-problem-detector line or a Slurm drain reason, like `check`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/xidstate.h"

#define NPD_MAX CLI_NPD_MAX
#define SLURM_MAX 160

enum mode { MODE_TEXT, MODE_JSON, MODE_NPD, MODE_SLURM };

struct klog {
	const char *source; /* what was read, NULL when no log */
	const char *note;   /* why there is none */
	struct ga_kmsg_stats st;
	uint64_t events, in_window;
	double since_s;
	struct ga_oi64 btime;
	const char *boot_id; /* the boot the events belong to (the snapshot's), NULL when unknown */
};

#define one_line cli_one_line

static const char *evidence(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

static void print_text(FILE *o, const struct ga_findings *f, const struct klog *k, bool bad)
{
	fprintf(o, "health: %s\n", bad ? "PROBLEMS" : "OK");
	if (k->source)
		fprintf(o, "kernel log: %s: %llu line%s, %llu event%s, %llu in window%s%s\n", k->source,
		        (unsigned long long)k->st.lines, k->st.lines == 1 ? "" : "s",
		        (unsigned long long)k->events, k->events == 1 ? "" : "s",
		        (unsigned long long)k->in_window, k->since_s > 0 ? " " : "",
		        k->since_s > 0 ? "(--since)" : "");
	else
		fprintf(o, "kernel log: none (%s)\n", k->note ? k->note : "not read");
	if (k->st.overwritten)
		fprintf(o, "kernel log: %llu time(s) records were overwritten before they were read\n",
		        (unsigned long long)k->st.overwritten);
	fprintf(o, "findings: %zu\n", f->n);
	for (size_t i = 0; i < f->n; i++) {
		const struct ga_finding *fd = &f->v[i];
		fprintf(o, "  %-8s %s %s: %s\n", ga_severity_name(fd->severity), fd->code, fd->subject,
		        fd->message);
		const char *fb = evidence(fd, "first_boot_s"), *lb = evidence(fd, "last_boot_s");
		const char *ft = evidence(fd, "first_time"), *lt = evidence(fd, "last_time");
		if (fb)
			fprintf(o, "           boot time %s s .. %s s\n", fb, lb ? lb : "-");
		if (ft)
			fprintf(o, "           time %s .. %s\n", ft, lt ? lt : "-");
		const char *e = evidence(fd, "expected"), *a = evidence(fd, "actual");
		if (e || a)
			fprintf(o, "           expected %s, actual %s\n", e ? e : "-", a ? a : "-");
		const char *s = evidence(fd, "sample");
		if (s)
			fprintf(o, "           line: %s\n", s);
		if (fd->decision)
			fprintf(o, "           fix: %s\n", fd->decision);
	}
}

static int print_json(struct cli *cli, const struct ga_findings *f, const struct klog *k, bool bad)
{
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, true);
	ga_json_obj_begin(&w);
	ga_json_key(&w, "result");
	ga_json_str(&w, bad ? "problems" : "ok");
	ga_json_key(&w, "kernel_log");
	ga_json_obj_begin(&w);
	ga_json_key(&w, "source");
	ga_json_str(&w, k->source);
	ga_json_key(&w, "note");
	ga_json_str(&w, k->source ? NULL : k->note);
	ga_json_key(&w, "lines");
	ga_json_u64(&w, k->st.lines);
	ga_json_key(&w, "truncated_lines");
	ga_json_u64(&w, k->st.truncated);
	ga_json_key(&w, "overwritten");
	ga_json_u64(&w, k->st.overwritten);
	ga_json_key(&w, "events");
	ga_json_u64(&w, k->events);
	ga_json_key(&w, "in_window");
	ga_json_u64(&w, k->in_window);
	ga_json_key(&w, "since_s");
	if (k->since_s > 0)
		ga_json_dbl(&w, k->since_s);
	else
		ga_json_null(&w);
	ga_json_key(&w, "btime");
	if (k->btime.set)
		ga_json_i64(&w, k->btime.v);
	else
		ga_json_null(&w);
	ga_json_key(&w, "boot_id");
	ga_json_str(&w, k->boot_id);
	ga_json_obj_end(&w);
	ga_json_key(&w, "findings");
	ga_findings_write_json(f, &w);
	ga_json_obj_end(&w);
	int r = ga_json_finish(&w);
	if (r == 0)
		fwrite(b.data, 1, b.len, cli->out);
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

/* btime from proc/stat under the root; unset when absent. */
static void read_btime(struct ga_ctx *ctx, struct ga_oi64 *ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(ctx, "proc/stat", 1 << 20, &b) == 0) {
		const char *p = strstr(b.data, "\nbtime ");
		if (!p && !strncmp(b.data, "btime ", 6))
			p = b.data - 1;
		if (p) {
			char *end = NULL;
			errno = 0;
			long long v = strtoll(p + 7, &end, 10);
			if (!errno && end != p + 7 && v > 0) {
				ret->v = v;
				ret->set = true;
			}
		}
	}
	ga_buf_release(&b);
}

static void read_uptime(struct ga_ctx *ctx, struct ga_odbl *ret)
{
	char *s = NULL;
	if (ga_fs_read_attr(ctx, "proc/uptime", &s) == 0) {
		char *end = NULL;
		double v = strtod(s, &end);
		if (end != s && v > 0 && isfinite(v)) {
			ret->v = v;
			ret->set = true;
		}
	}
	ga_free(s);
}

static int add_dstate(struct ga_ctx *ctx, struct ga_findings *f)
{
	char **names = NULL;
	size_t n = 0;
	if (ga_proc_dstate(ctx, &names, &n) < 0 || n == 0) {
		ga_strv_free(names);
		return 0;
	}
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	for (size_t i = 0; i < n && i < 16; i++)
		(void)ga_buf_addf(&b, "%s%s", i ? ", " : "", names[i]);
	if (n > 16)
		(void)ga_buf_addf(&b, ", +%zu more", n - 16);
	struct ga_finding *fd = ga_findings_add(
	        f, "GA-PROC-D-STATE", GA_SEV_WARNING, "node",
	        "see what they wait on (cat /proc/PID/stack); a driver call on a wedged GPU never returns",
	        "%zu process%s in uninterruptible sleep (D): %s", n, n == 1 ? "" : "es",
	        b.data ? b.data : "");
	if (fd)
		ga_finding_evidence(fd, "count", "%zu", n);
	ga_buf_release(&b);
	ga_strv_free(names);
	return fd ? 0 : -ENOMEM;
}

/* --state FILE: read the previous state, escalate repeats, write the new state atomically. */
static int apply_state(struct cli *cli, struct ga_ctx *ctx, enum mode mode, const char *file,
                       const struct ga_node *node, struct ga_findings *f)
{
	if (!node->host.boot_id) {
		fprintf(cli->err, "gpuaudit health: no boot id in the snapshot; --state not updated\n");
		return EXIT_OK;
	}
	struct ga_buf prev;
	ga_buf_init(&prev, 16u << 20);
	FILE *in = fopen(file, "rb");
	if (in) {
		char chunk[65536];
		size_t got;
		int r = 0;
		while ((got = fread(chunk, 1, sizeof(chunk), in)) > 0 && r == 0)
			r = ga_buf_add(&prev, chunk, got);
		bool err = ferror(in) || r < 0;
		fclose(in);
		if (err) {
			ga_buf_release(&prev);
			return fail_early(cli, mode, EXIT_USAGE, "%s: cannot read the state file", file);
		}
	} else if (errno != ENOENT) {
		int e = errno;
		ga_buf_release(&prev);
		return fail_early(cli, mode, EXIT_USAGE, "%s: %s", file, strerror(e));
	}
	char *next = NULL;
	int r = ga_xid_state_apply(ctx, prev.data, prev.len, node->host.boot_id, f, &next);
	ga_buf_release(&prev);
	if (r < 0)
		return fail_early(cli, mode, r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s: %s", file,
		                  ga_ctx_errmsg(ctx));
	/* atomically: a temporary file next to it, fsync, rename */
	char tmp[4096];
	int n = snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", file, (long)getpid());
	int code = EXIT_OK;
	int fd = n > 0 && (size_t)n < sizeof(tmp) ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
	                                          : -1;
	size_t len = strlen(next);
	if (fd < 0 || write(fd, next, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd) < 0 ||
	    close(fd) < 0 || rename(tmp, file) < 0) {
		int e = errno;
		if (fd >= 0)
			unlink(tmp);
		code = fail_early(cli, mode, EXIT_USAGE, "%s: cannot write the state file: %s", file,
		                  strerror(e));
	}
	ga_free(next);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct snap_opts so;
	snap_opts_init(&so);
	so.vendor = GA_VENDOR_OFF; /* the log needs no vendor library: fast unless --vendor */
	const char *kmsg_file = NULL, *since = NULL, *policy_file = NULL, *class_name = NULL;
	const char *state_file = NULL;
	enum mode mode = MODE_TEXT;
	int modes = 0, opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+hj" SNAP_SHORT_OPTIONS, opts, NULL)) != -1) {
		int k = snap_opt(cli, "health", opt, optarg, &so);
		if (k < 0)
			return -k;
		if (k > 0)
			continue;
		switch (opt) {
		case 'K':
			kmsg_file = optarg;
			break;
		case 'T':
			state_file = optarg;
			break;
		case 'S':
			since = optarg;
			break;
		case 'P':
			policy_file = optarg;
			break;
		case 'C':
			class_name = optarg;
			break;
		case 'j':
			mode = MODE_JSON, modes |= 1;
			break;
		case 'n':
			mode = MODE_NPD, modes |= 2;
			break;
		case 's':
			mode = MODE_SLURM, modes |= 4;
			break;
		case 'h':
			cli_usage(cli, cli_find("health"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "health", opts, argv);
		}
	}
	if (optind < argc)
		return cli_error(cli, "health", EXIT_USAGE, "unexpected argument '%s' (try -h)",
		                 argv[optind]);
	if (modes & (modes - 1))
		return cli_error(cli, "health", EXIT_USAGE, "--json, --npd and --slurm exclude each other");
	if (class_name && !policy_file)
		return fail_early(cli, mode, EXIT_USAGE, "--class needs --policy");
	struct klog kl = { 0 };
	if (since && ga_duration_parse(since, &kl.since_s) < 0)
		return fail_early(cli, mode, EXIT_USAGE,
		                  "--since wants a duration like 30m, 2h, 1d or 1h30m, not '%s'", since);
	int code = snap_validate(cli, "health", &so);
	if (code != EXIT_OK)
		return mode == MODE_NPD ? 2 : code;

	struct ga_ctx *ctx = NULL;
	code = snap_ctx(cli, "health", &so, &ctx);
	if (code != EXIT_OK)
		return mode == MODE_NPD ? 2 : code;
	struct ga_policy *policy = NULL;
	struct ga_node *node = NULL;
	struct ga_health *h = NULL;
	struct ga_findings f;
	ga_findings_init(&f);
	const struct ga_policy_class *cls = NULL;
	struct ga_health_opts ho = { .since_s = kl.since_s };

	int r = 0;
	if (policy_file && (r = ga_policy_load(ctx, policy_file, &policy)) < 0) {
		code = fail_early(cli, mode, r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                  ga_ctx_errmsg(ctx));
		goto out;
	}
	if (class_name && !(cls = ga_policy_find_class(policy, class_name))) {
		code = fail_early(cli, mode, EXIT_USAGE, "no class '%s' in %s", class_name, policy_file);
		goto out;
	}
	if ((r = ga_health_new(&h)) < 0) {
		code = fail_early(cli, mode, EXIT_INTERNAL, "%s", strerror(-r));
		goto out;
	}
	/* the log first: a missing --kmsg file is bad input, found before any collection */
	if (kmsg_file) {
		r = ga_kmsg_read_file(ctx, kmsg_file, ga_health_add_line, h, &kl.st);
		if (r < 0) {
			code = fail_early(cli, mode, r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
			                  ga_ctx_errmsg(ctx));
			goto out;
		}
		kl.source = kmsg_file;
	}
	r = snap_node(ctx, &so, &node);
	if (r < 0) {
		code = fail_early(cli, mode, r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                  ga_ctx_errmsg(ctx));
		goto out;
	}
	if (policy && !cls)
		cls = ga_policy_match(policy, node);
	ho.cls = cls;
	if ((r = ga_analyze_node(node, &f)) < 0) {
		code = fail_early(cli, mode, EXIT_INTERNAL, "analysis failed: %s", strerror(-r));
		goto out;
	}
	bool live = !so.from && !strcmp(ga_ctx_root(ctx), "/");
	if (!kmsg_file && so.from) {
		kl.note = "a saved snapshot has no kernel log; pass --kmsg FILE";
	} else if (!kmsg_file) {
		r = ga_kmsg_read_root(ctx, "dev/kmsg", ga_health_add_line, h, &kl.st);
		if (r == -ENOMEM) {
			code = fail_early(cli, mode, EXIT_INTERNAL, "out of memory");
			goto out;
		}
		if (r == 0) {
			kl.source = live ? "/dev/kmsg" : "dev/kmsg under --root";
		} else if (r == -ENOENT) {
			kl.note = "no dev/kmsg";
		} else {
			kl.note = "dev/kmsg unreadable";
			if (!ga_findings_add(&f, "GA-KLOG-UNREADABLE", GA_SEV_WARNING, "/dev/kmsg",
			                     "run as root (dmesg_restrict) or pass --kmsg FILE",
			                     "the kernel log could not be read: %s", ga_ctx_errmsg(ctx)))
				r = -ENOMEM;
		}
	}
	if (!so.from) {
		read_btime(ctx, &ho.btime);
		kl.btime = ho.btime;
		/* "now" is the clock only for the live log; otherwise the newest event */
		if (live && !kmsg_file) {
			read_uptime(ctx, &ho.now_boot_s);
			ho.now_wall_s.v = (int64_t)time(NULL);
			ho.now_wall_s.set = true;
		}
		if (add_dstate(ctx, &f) < 0) {
			code = fail_early(cli, mode, EXIT_INTERNAL, "out of memory");
			goto out;
		}
	}
	kl.events = ga_health_events(h);
	kl.boot_id = node->host.boot_id;
	r = ga_health_findings(h, node, &ho, &f, &kl.in_window);
	if (r < 0) {
		code = fail_early(cli, mode, EXIT_INTERNAL, "health analysis failed: %s", strerror(-r));
		goto out;
	}
	if (state_file) {
		int sc = apply_state(cli, ctx, mode, state_file, node, &f);
		if (sc != EXIT_OK) {
			code = sc;
			goto out;
		}
	}
	ga_findings_sort(&f);
	bool bad = ga_findings_max_severity(&f) >= GA_SEV_ERROR;
	code = bad ? EXIT_PROBLEMS : EXIT_OK;
	switch (mode) {
	case MODE_JSON:
		if (print_json(cli, &f, &kl, bad) < 0)
			code = cli_error(cli, "health", EXIT_INTERNAL, "JSON output failed");
		break;
	case MODE_NPD:
		print_npd(cli->out, &f, bad);
		break;
	case MODE_SLURM:
		print_slurm(cli->out, &f, bad);
		break;
	default:
		print_text(cli->out, &f, &kl, bad);
	}
out:
	ga_findings_release(&f);
	ga_health_free(h);
	ga_node_free(node);
	ga_policy_free(policy);
	ga_ctx_free(ctx);
	return code;
}
