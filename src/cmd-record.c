/*
 * cmd-record.c - `gpuaudit record`: sample CPU, pressure, memory, disks,
 * network and amdgpu busy percentages at an interval and write one JSON
 * object per line (schema gpuaudit.sample/v1, docs/record.md).
 *
 * Live, it reads / (or $GPUAUDIT_ROOT) every --interval, sleeping on
 * CLOCK_MONOTONIC to absolute deadlines, until --count lines, --duration or
 * SIGINT/SIGTERM. With --root DIR it replays the time points DIR/t0, DIR/t1,
 * ... (each a root tree) with the interval in DIR/interval_s, without sleeping,
 * so tests are exact and fast.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/core.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/sample-analyze.h"
#include "gpuaudit/sample-read.h"

#define MAX_POINTS 100000

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* "1s", "0.05", "500ms", "2m": seconds in (0, 86400]. */
static int parse_interval(const char *s, double *ret)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000.0;
	else if (!strcmp(end, "m"))
		v *= 60.0;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (!(v > 0) || v > 86400)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void wall_now(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	char base[32];
	if (!gmtime_r(&ts.tv_sec, &tm) || !strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(out, n, "1970-01-01T00:00:00Z");
		return;
	}
	snprintf(out, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

/* Sleep until absolute CLOCK_MONOTONIC time t; false when a signal asked to stop. */
static bool sleep_until(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	if (ts.tv_nsec < 0)
		ts.tv_nsec = 0;
	while (!stop_signal) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r == 0)
			return !stop_signal;
		if (r != EINTR)
			return false;
	}
	return false;
}

struct rec {
	struct cli *cli;
	struct ga_ctx *ctx;
	FILE *out;          /* standard output (no -o, or -o -) */
	const char *output; /* -o FILE: opened by open_output once everything is validated */
	bool opened;
	int out_fd;    /* -o FILE's descriptor (the temporary, or a FIFO/device), else -1 */
	bool have_tmp; /* -o FILE goes to tmp and is renamed over FILE at the end */
	struct ga_file_tmp tmp;
	off_t written; /* bytes of whole lines in out_fd */
	struct ga_buf line;
	uint64_t seq;
	bool nvml; /* query NVML (through the deadline helper) at every point */
	const struct ga_model *model;
};

/* NVML's live counters into the line (record --nvml, live triage); a failure goes into it
 * too. 0 or -ENOMEM. */
int cli_sample_add_nvml(struct ga_ctx *ctx, struct ga_sample_doc *d)
{
	struct ga_nvml_report nv;
	memset(&nv, 0, sizeof(nv));
	struct ga_isolate_result res;
	int e = ga_isolated_collect(ctx, "nvml", &ga_nvml_report_schema, &nv, &res);
	if (e < 0 && e != -ENOMEM) { /* the sample still goes out, with NVML's failure in it */
		ga_schema_release(&ga_nvml_report_schema, &nv);
		memset(&nv, 0, sizeof(nv));
		nv.sys.error = ga_strdup(ga_ctx_errmsg(ctx));
		GA_SET(nv.sys.timed_out, res.timed_out);
		e = nv.sys.error ? 0 : -ENOMEM;
	}
	if (e == 0)
		e = ga_sample_doc_take_nvml(d, &nv);
	ga_schema_release(&ga_nvml_report_schema, &nv);
	return e;
}

/*
 * The line in one write(2) (a kill cannot split it between two calls); a
 * short write (a full disk) is cut back to the last whole line, so the file
 * only ever holds whole lines. EXIT_OK or an exit code (the first error named).
 */
static int write_line(struct rec *rc)
{
	const char *p = rc->line.data;
	size_t left = rc->line.len;
	int err = 0;
	while (left) {
		ssize_t w = write(rc->out_fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!err) {
		rc->written += (off_t)rc->line.len;
		return EXIT_OK;
	}
	if (rc->have_tmp)
		(void)ftruncate(rc->out_fd, rc->written);
	return cli_error(rc->cli, "record", EXIT_INTERNAL, "cannot write %s: %s", rc->output, strerror(err));
}

/* Rates from prev to cur, one line; 0, or an exit code. */
static int emit(struct rec *rc, const struct ga_sample_raw *prev, const struct ga_sample_raw *cur,
                double interval_s, double mono_s, const char *wall)
{
	struct ga_sample s;
	struct ga_sample_doc d;
	if (ga_sample_rates(prev, cur, interval_s, &s) < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "out of memory");
	int r = ga_sample_doc_take(&d, &s, ++rc->seq, mono_s, wall);
	ga_sample_release(&s);
	if (r == 0 && rc->nvml)
		r = cli_sample_add_nvml(rc->ctx, &d);
	ga_buf_reset(&rc->line);
	if (r == 0)
		r = ga_model_write(rc->model, &d, &rc->line, false);
	ga_sample_doc_release(&d);
	if (r == -ENOMEM)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "out of memory");
	if (r < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "JSON writer: %s", strerror(-r));
	if (ga_buf_addc(&rc->line, '\n') < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "out of memory");
	if (rc->out_fd >= 0)
		return write_line(rc);
	if (fwrite(rc->line.data, 1, rc->line.len, rc->out) != rc->line.len || fflush(rc->out) != 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "write failed: %s", strerror(errno));
	return EXIT_OK;
}

/*
 * -o FILE, opened only now that the options and the first time point are
 * validated (a usage error leaves a previous recording intact). A new or
 * regular FILE is written to a temporary ".FILE.tmp.XXXXXX" beside it (which
 * can be tailed while it grows) and renamed over FILE at the end, so the
 * previous recording stays whole until the new one replaces it and a hard
 * link planted at FILE is never written through (refused: it is not ours
 * alone). A FIFO or a device at FILE is streamed into as before, and a
 * symlink refused (ga_file_open_output).
 */
static int open_output(struct rec *rc)
{
	int fd = -1;
	if (rc->opened || !rc->output || !strcmp(rc->output, "-"))
		return EXIT_OK;
	rc->opened = true;
	struct stat st;
	if (lstat(rc->output, &st) < 0 || S_ISREG(st.st_mode)) {
		if (ga_file_tmp_open(rc->ctx, rc->output, 0644, GA_FILE_TMP_ONE_LINK, &rc->tmp) < 0)
			return cli_error(rc->cli, "record", EXIT_USAGE, "%s", ga_ctx_errmsg(rc->ctx));
		rc->have_tmp = true;
		rc->out_fd = rc->tmp.fd;
		return EXIT_OK;
	}
	if (ga_file_open_output(rc->ctx, rc->output, 0644, &fd) < 0)
		return cli_error(rc->cli, "record", EXIT_USAGE, "%s", ga_ctx_errmsg(rc->ctx));
	rc->out_fd = fd;
	return EXIT_OK;
}

/*
 * The end of -o FILE: the temporary renamed over FILE when it holds a line or
 * the run succeeded (SIGINT/SIGTERM included), else removed and FILE left as
 * it was. The exit code, made an error when the rename fails.
 */
static int close_output(struct rec *rc, int code)
{
	if (rc->have_tmp) {
		rc->have_tmp = false;
		rc->out_fd = -1;
		if (code != EXIT_OK && rc->written == 0) {
			ga_file_tmp_abort(&rc->tmp);
			return code;
		}
		if (ga_file_tmp_commit(rc->ctx, &rc->tmp) < 0 && code == EXIT_OK)
			return cli_error(rc->cli, "record", EXIT_INTERNAL, "%s", ga_ctx_errmsg(rc->ctx));
		return code;
	}
	if (rc->out_fd >= 0 && close(rc->out_fd) < 0 && code == EXIT_OK)
		code = cli_error(rc->cli, "record", EXIT_INTERNAL, "cannot write %s: %s", rc->output,
		                 strerror(errno));
	rc->out_fd = -1;
	return code;
}

/* Fixture replay: DIR/t0 .. DIR/tN, interval from DIR/interval_s. */
static int record_root(struct rec *rc, struct ga_ctx *ctx, const char *dir, double interval_s, long count,
                       double duration_s)
{
	char *iv = NULL;
	if (ga_fs_read_attr(ctx, "interval_s", &iv) == 0) {
		int pr = parse_interval(iv, &interval_s);
		ga_free(iv);
		if (pr < 0)
			return cli_error(rc->cli, "record", EXIT_USAGE,
			                 "%s/interval_s: not a positive number of seconds", dir);
	}
	size_t points = 0;
	for (; points < MAX_POINTS; points++) {
		char name[32];
		snprintf(name, sizeof(name), "t%zu", points);
		if (!ga_fs_is_dir(ctx, name))
			break;
	}
	if (points < 2)
		return cli_error(rc->cli, "record", EXIT_USAGE,
		                 "--root %s: needs time points t0, t1, ... (at least two directories)", dir);
	struct ga_sample_raw prev, cur;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	struct ga_buf path;
	ga_buf_init(&path, 0);
	int code = EXIT_OK;
	for (size_t k = 0; k < points && code == EXIT_OK; k++) {
		if (k > 0 && count > 0 && rc->seq >= (uint64_t)count)
			break;
		if (duration_s > 0 && (double)k * interval_s > duration_s + 1e-9)
			break;
		ga_buf_reset(&path);
		if (ga_buf_addf(&path, "%s/t%zu", dir, k) < 0 || ga_ctx_set_root(ctx, path.data) < 0 ||
		    ga_sample_read(ctx, &cur) < 0) {
			code = cli_error(rc->cli, "record", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
			break;
		}
		if (k > 0 && (code = open_output(rc)) == EXIT_OK) /* t0 and t1 read: valid */
			code = emit(rc, &prev, &cur, interval_s, (double)k * interval_s, NULL);
		ga_sample_raw_release(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	ga_sample_raw_release(&prev);
	ga_sample_raw_release(&cur);
	ga_buf_release(&path);
	return code == EXIT_OK ? open_output(rc) : code; /* no line within --duration: empty */
}

static int record_live(struct rec *rc, struct ga_ctx *ctx, double interval_s, long count, double duration_s)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: the sleep returns EINTR */
	sigaction(SIGTERM, &sa, NULL);

	struct ga_sample_raw prev, cur;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	int code = EXIT_OK;
	double t0 = ga_mono_s(), tprev = t0;
	if (ga_sample_read(ctx, &prev) < 0)
		return cli_error(rc->cli, "record", EXIT_INTERNAL, "%s", ga_ctx_errmsg(ctx));
	if ((code = open_output(rc)) != EXIT_OK) {
		ga_sample_raw_release(&prev);
		return code;
	}
	for (uint64_t k = 1; !stop_signal; k++) {
		if (count > 0 && rc->seq >= (uint64_t)count)
			break;
		double next = t0 + (double)k * interval_s;
		if (duration_s > 0 && next - t0 > duration_s + 1e-9)
			break;
		if (!sleep_until(next))
			break;
		double t = ga_mono_s();
		char wall[48];
		wall_now(wall, sizeof(wall));
		if (ga_sample_read(ctx, &cur) < 0) {
			code = cli_error(rc->cli, "record", EXIT_INTERNAL, "%s", ga_ctx_errmsg(ctx));
			break;
		}
		code = emit(rc, &prev, &cur, t - tprev, t - t0, wall);
		ga_sample_raw_release(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		tprev = t;
		if (code != EXIT_OK)
			break;
	}
	ga_sample_raw_release(&prev);
	ga_sample_raw_release(&cur);
	if (rc->out_fd < 0)
		fflush(rc->out);
	return code;
}

struct record_opts {
	double interval_s, duration_s, timeout_s;
	long count;
	const char *root, *output;
	int verbose, nvml; /* nvml -1: auto (live NVIDIA driver), 0 off, 1 on */
};

static int record_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct record_opts *o = st;
	switch (opt) {
	case 'i':
		if (parse_interval(arg, &o->interval_s) < 0)
			return cli_error(
			        cli, cmd, EXIT_USAGE,
			        "--interval wants seconds like 1s, 0.5 or 200ms (at most 1d), not '%s'", arg);
		return CLI_NEXT;
	case 'c': {
		char *end = NULL;
		errno = 0;
		o->count = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->count < 1 || o->count > 100000000L)
			return cli_error(cli, cmd, EXIT_USAGE, "--count wants a positive integer, not '%s'",
			                 arg);
		return CLI_NEXT;
	}
	case 'd':
		if (ga_duration_parse(arg, &o->duration_s) < 0 || !(o->duration_s > 0))
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--duration wants a duration like 30s, 10m or 1h, not '%s'", arg);
		return CLI_NEXT;
	case 'o':
		o->output = arg;
		return CLI_NEXT;
	case 'r':
		o->root = arg;
		return CLI_NEXT;
	case 'v':
		o->verbose++;
		return CLI_NEXT;
	case 'N':
	case 'n':
		o->nvml = opt == 'N';
		return CLI_NEXT;
	case 't': {
		char *end = NULL;
		o->timeout_s = strtod(arg, &end);
		if (!end || *end || !(o->timeout_s > 0) || o->timeout_s > 3600)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--timeout wants seconds between 0 and 3600, not '%s'", arg);
		return CLI_NEXT;
	}
	default:
		return CLI_UNKNOWN;
	}
}

/* The context and the output; EXIT_OK or an exit code (the message printed). */
static int record_setup(struct cli *cli, const struct record_opts *o, struct rec *rc)
{
	int code = cli_ctx(cli, "record", o->root, o->verbose, &rc->ctx);
	if (code != EXIT_OK)
		return code;
	rc->cli = cli;
	rc->out = cli->out;
	rc->model = ga_model_find(GA_SAMPLE_SCHEMA);
	/* NVML by default only on a live machine whose NVIDIA driver is loaded */
	rc->nvml = o->nvml == 1 || (o->nvml < 0 && !(o->root && *o->root) &&
	                            ga_fs_exists(rc->ctx, "proc/driver/nvidia/version"));
	ga_ctx_set_vendor(rc->ctx, GA_VENDOR_ON, (int)(o->timeout_s * 1000));
	if (!rc->model || ga_ctx_set_helper(rc->ctx, cli->self_exe) < 0)
		return cli_error(cli, "record", EXIT_INTERNAL, "out of memory");
	rc->output = o->output;
	return EXIT_OK;
}

int cmd_record(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "root", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "nvml", no_argument, NULL, 'N' },
		{ "no-nvml", no_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_opts o = { .interval_s = 1.0, .timeout_s = 5, .nvml = -1 };
	int code = cli_parse(cli, "record", argc, argv, "vi:c:d:o:r:", opts, record_opt, &o);
	if (code == CLI_NEXT)
		code = cli_no_operands(cli, "record", argc, argv);
	if (code != CLI_NEXT)
		return code;
	if (o.count && o.duration_s > 0)
		return cli_error(cli, "record", EXIT_USAGE, "--count and --duration exclude each other");

	struct rec rc = { .out_fd = -1 };
	ga_buf_init(&rc.line, 0);
	code = record_setup(cli, &o, &rc);
	if (code == EXIT_OK && o.root && *o.root)
		code = record_root(&rc, rc.ctx, o.root, o.interval_s, o.count, o.duration_s);
	else if (code == EXIT_OK)
		code = record_live(&rc, rc.ctx, o.interval_s, o.count, o.duration_s);
	code = close_output(&rc, code);
	ga_buf_release(&rc.line);
	ga_ctx_free(rc.ctx);
	return code;
}
