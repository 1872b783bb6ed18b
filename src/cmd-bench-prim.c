/*
 * cmd-bench-prim.c - `gpuaudit bench gemm|stream|transfer|collective`: the
 * primitive benchmarks on every compute backend the node has (lib/bench/,
 * docs/bench.md), printed as tables or as JSON (gpuaudit.bench/v1). The
 * option parsing, expectations and output here are shared with `smoke`.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-cli.h"
#include "gpuaudit/core.h"
#include "gpuaudit/fs.h"

/*
 * LeakSanitizer (ASan builds only; the symbol is otherwise unused): the
 * OpenCL ICD loader, PoCL and its compiled kernels, CLBlast, cuBLAS and HIP keep
 * allocations for the life of the process by design. Ours are still checked.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libOpenCL.so\nleak:libpocl\nleak:/kcache/\nleak:libclblast\nleak:libcublas\n"
	       "leak:libamdhip64\n";
}

enum {
	O_JSON = 256,
	O_BACKENDS,
	O_BLAS,
	O_REPS,
	O_SEED,
	O_POLICY,
	O_CLASS,
	O_THREADS,
	O_CORRUPT,
	O_DTYPE,
	O_SIZES,
	O_ELEMENTS,
	O_BYTES,
	O_NCCL,
	O_CUDA_LIBDIR,
	O_DEADLINE,
	O_HELP,
};

static int parse_size(const char *s, size_t *ret)
{
	char *end = NULL;
	errno = 0;
	if (!s || !*s || *s == '-')
		return -EINVAL;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M')
		shift = 20, end++;
	else if (*end == 'G')
		shift = 30, end++;
	if (*end || v > (1ull << 40) >> shift)
		return -EINVAL;
	*ret = (size_t)(v << shift);
	return 0;
}

/* "256,512,1024" or a power-of-two sweep "256:4096". */
static int parse_sizes(const char *s, struct bench_cli *o)
{
	o->n_sizes = 0;
	const char *colon = strchr(s, ':');
	if (colon) {
		char lo[32];
		size_t a, b;
		if ((size_t)(colon - s) >= sizeof(lo))
			return -EINVAL;
		memcpy(lo, s, (size_t)(colon - s));
		lo[colon - s] = 0;
		if (parse_size(lo, &a) < 0 || parse_size(colon + 1, &b) < 0 || a < 1 || b < a)
			return -EINVAL;
		for (size_t v = a; v <= b && o->n_sizes < GA_ARRAY_LEN(o->sizes); v *= 2)
			o->sizes[o->n_sizes++] = v;
		return 0;
	}
	char buf[512];
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, strlen(s) + 1);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t v;
		if (o->n_sizes >= GA_ARRAY_LEN(o->sizes) || parse_size(t, &v) < 0 || v < 1 || v > 65536)
			return -EINVAL;
		o->sizes[o->n_sizes++] = v;
	}
	return o->n_sizes ? 0 : -EINVAL;
}

static int parse_dtypes(const char *s, unsigned *ret)
{
	char buf[128];
	unsigned m = 0;
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, strlen(s) + 1);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum ga_dtype d;
		if (!strcmp(t, "all")) {
			m |= (1u << GA_DT_COUNT) - 1;
			continue;
		}
		if (ga_dtype_parse(t, &d) < 0)
			return -EINVAL;
		m |= GA_DT_BIT(d);
	}
	if (!m)
		return -EINVAL;
	*ret = m;
	return 0;
}

/* --reps, --threads, --seed, --deadline: CLI_NEXT, an exit code, or CLI_UNKNOWN. */
static int prim_number_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct bench_cli *o)
{
	char *end = NULL;
	unsigned long v;
	errno = 0;
	switch (opt) {
	case O_DEADLINE:
		o->deadline_s = strtod(arg, &end);
		if (errno || !end || *end || end == arg || !(o->deadline_s >= 1 && o->deadline_s <= 86400))
			return cli_error(cli, cmd, EXIT_USAGE, "--deadline wants seconds, 1..86400, not '%s'",
			                 arg);
		return CLI_NEXT;
	case O_REPS:
		v = strtoul(arg, &end, 10);
		if (errno || !end || *end || end == arg || v < 1 || v > GA_BENCH_MAX_REPS)
			return cli_error(cli, cmd, EXIT_USAGE, "--reps wants 1..%d, not '%s'",
			                 GA_BENCH_MAX_REPS, arg);
		o->cfg.reps = (unsigned)v;
		return CLI_NEXT;
	case O_THREADS:
		v = strtoul(arg, &end, 10);
		if (errno || !end || *end || end == arg || v < 1 || v > 4096)
			return cli_error(cli, cmd, EXIT_USAGE, "--threads wants 1..4096, not '%s'", arg);
		o->cfg.threads = (int)v;
		return CLI_NEXT;
	case O_SEED:
		o->cfg.seed = strtoull(arg, &end, 10);
		if (errno || !end || *end || end == arg)
			return cli_error(cli, cmd, EXIT_USAGE, "--seed wants a number, not '%s'", arg);
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

/* The per-command options (--dtype, --sizes, --elements, --bytes, --nccl). */
static int prim_cmd_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct bench_cli *o)
{
	switch (opt) {
	case O_DTYPE:
		if (parse_dtypes(arg, &o->dtypes) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--dtype wants a list of fp32, fp64, fp16, bf16 or all, not '%s'",
			                 arg);
		return CLI_NEXT;
	case O_SIZES:
		if (parse_sizes(arg, o) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--sizes wants N[,N...] or MIN:MAX (1..65536), not '%s'", arg);
		return CLI_NEXT;
	case O_ELEMENTS:
		if (parse_size(arg, &o->elements) < 0 || o->elements < 1024 || o->elements > (1ull << 32))
			return cli_error(cli, cmd, EXIT_USAGE, "--elements wants 1K..4G, not '%s'", arg);
		return CLI_NEXT;
	case O_BYTES:
		if (parse_size(arg, &o->bytes) < 0 || o->bytes < 4096 || o->bytes > (1ull << 36))
			return cli_error(cli, cmd, EXIT_USAGE, "--bytes wants 4K..64G, not '%s'", arg);
		return CLI_NEXT;
	case O_NCCL:
		o->nccl_lib = arg;
		return CLI_NEXT;
	default:
		return prim_number_opt(cli, cmd, opt, arg, o);
	}
}

static int prim_opt(struct cli *cli, const char *cmd, int opt, const char *arg, struct bench_cli *o)
{
	switch (opt) {
	case O_JSON:
		o->json = true;
		return CLI_NEXT;
	case O_BACKENDS:
		o->backends = arg;
		return CLI_NEXT;
	case O_BLAS:
		o->cfg.blas_lib = arg;
		return CLI_NEXT;
	case O_CUDA_LIBDIR:
		o->cfg.cuda_libdir = arg;
		return CLI_NEXT;
	case O_POLICY:
		o->policy_file = arg;
		return CLI_NEXT;
	case O_CLASS:
		o->class_name = arg;
		return CLI_NEXT;
	case O_CORRUPT:
		o->cfg.corrupt_result = true;
		return CLI_NEXT;
	default:
		return prim_cmd_opt(cli, cmd, opt, arg, o);
	}
}

/* An option of another primitive (say --dtype to stream): the usage error, else CLI_NEXT. */
static int not_here(struct cli *cli, const char *cmd, const char *extra, int opt, const struct option *opts)
{
	static const struct {
		int opt;
		char tag;
	} per_cmd[] = {
		{ O_DTYPE, 'd' }, { O_SIZES, 's' }, { O_ELEMENTS, 'e' }, { O_BYTES, 'b' }, { O_NCCL, 'n' }
	};
	for (size_t i = 0; i < GA_ARRAY_LEN(per_cmd); i++)
		if (opt == per_cmd[i].opt && !strchr(extra, per_cmd[i].tag)) {
			const char *name = "?";
			for (const struct option *p = opts; p->name; p++)
				if (p->val == opt && !strcmp(name, "?"))
					name = p->name;
			return cli_error(cli, cmd, EXIT_USAGE, "option '--%s' does not apply here (try -h)",
			                 name);
		}
	return CLI_NEXT;
}

int bench_cli_parse(struct cli *cli, const char *cmd, const char *usage, const char *extra, int argc,
                    char **argv, struct bench_cli *o)
{
	const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "json", no_argument, NULL, O_JSON },
		{ "backends", required_argument, NULL, O_BACKENDS },
		{ "blas", required_argument, NULL, O_BLAS },
		{ "reps", required_argument, NULL, O_REPS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "class", required_argument, NULL, O_CLASS },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "cuda-libdir", required_argument, NULL, O_CUDA_LIBDIR },
		{ "deadline", required_argument, NULL, O_DEADLINE },
		{ "test-corrupt-result", no_argument, NULL, O_CORRUPT },
		{ "dtype", required_argument, NULL, O_DTYPE },
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "size", required_argument, NULL, O_SIZES },
		{ "elements", required_argument, NULL, O_ELEMENTS },
		{ "bytes", required_argument, NULL, O_BYTES },
		{ "nccl", required_argument, NULL, O_NCCL },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h" SNAP_SHORT_OPTIONS, opts, NULL)) != -1) {
		int k = snap_opt(cli, cmd, opt, optarg, &o->so);
		if (k < 0)
			return -k;
		if (k > 0)
			continue;
		if ((k = not_here(cli, cmd, extra, opt, opts)) != CLI_NEXT)
			return k;
		if (opt == 'h' || opt == O_HELP) {
			fputs(usage, cli->out);
			return EXIT_OK;
		}
		k = prim_opt(cli, cmd, opt, optarg, o);
		if (k == CLI_UNKNOWN)
			return cli_bad_option(cli, cmd, opts, argv);
		if (k != CLI_NEXT)
			return k;
	}
	if (optind < argc)
		return cli_error(cli, cmd, EXIT_USAGE, "unexpected argument '%s' (try -h)", argv[optind]);
	if (o->class_name && !o->policy_file)
		return cli_error(cli, cmd, EXIT_USAGE, "--class needs --policy");
	int code = snap_validate(cli, cmd, &o->so);
	return code == EXIT_OK ? -1 : code;
}

/*
 * The deadline. Vendor libraries run in this process (a benchmark needs the
 * device for seconds, not the millisecond queries discover isolates), so a
 * call that never returns on a wedged GPU is caught by a watchdog thread: at
 * the deadline it names the step in progress and ends the process with exit 4
 * (inconclusive: the run was cut short, as the global --deadline). Every step
 * is announced through the context's progress callback, which also prints it
 * on stderr when stderr is a terminal or with -v: a first OpenCL kernel build
 * on a cold PoCL cache takes most of a minute, and a silent minute reads as a
 * hang. Each line says the time since the start and how long the previous
 * step took; nothing is printed when stderr is not a terminal and no -v.
 */
static struct {
	char call[2][160];
	atomic_uint active;
	const char *cmd;
	double deadline_s;
	FILE *err;         /* progress lines go here; NULL: none */
	double t0, t_prev; /* monotonic: the start, the previous step's start */
} watch;

static void watch_progress(void *udata, const char *call)
{
	(void)udata;
	unsigned prev = atomic_load(&watch.active), next = 1 - prev;
	if (watch.err) {
		double now = ga_mono_s();
		fprintf(watch.err, "gpuaudit %s: [%6.1f s] %s (%s: %.1f s)\n", watch.cmd, now - watch.t0,
		        call, watch.call[prev], now - watch.t_prev);
		fflush(watch.err);
		watch.t_prev = now;
	}
	snprintf(watch.call[next], sizeof(watch.call[next]), "%s", call);
	atomic_store(&watch.active, next);
}

/* The last progress line: the step that ended the run, and the whole time. */
static void watch_done(void)
{
	if (!watch.err)
		return;
	double now = ga_mono_s();
	fprintf(watch.err, "gpuaudit %s: [%6.1f s] done (%s: %.1f s)\n", watch.cmd, now - watch.t0,
	        watch.call[atomic_load(&watch.active)], now - watch.t_prev);
	fflush(watch.err);
}

static void *watchdog(void *arg)
{
	(void)arg;
	struct timespec ts = { (time_t)watch.deadline_s,
		               (long)((watch.deadline_s - (double)(time_t)watch.deadline_s) * 1e9) };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	char msg[320];
	int n = snprintf(msg, sizeof(msg), "gpuaudit %s: deadline of %g s passed during '%s'; giving up\n",
	                 watch.cmd, watch.deadline_s, watch.call[atomic_load(&watch.active)]);
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		n = 0;
	_exit(EXIT_INCONCLUSIVE);
	return NULL;
}

static void watch_start(struct cli *cli, struct ga_ctx *ctx, const char *cmd, double deadline_s, bool verbose)
{
	snprintf(watch.call[0], sizeof(watch.call[0]), "start");
	watch.cmd = cmd;
	watch.deadline_s = deadline_s;
	watch.err = verbose || cli_progress_to(cli) ? cli->err : NULL;
	watch.t0 = watch.t_prev = ga_mono_s();
	ga_ctx_set_progress(ctx, watch_progress, NULL);
	if (deadline_s <= 0)
		return;
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &a, watchdog, NULL);
	pthread_attr_destroy(&a);
}

int bench_cli_setup(struct cli *cli, const char *cmd, struct bench_cli *o, struct ga_ctx **ret_ctx,
                    const struct ga_bench_backend **list, size_t max)
{
	struct ga_ctx *ctx = NULL;
	struct ga_node *node = NULL;
	int code = snap_ctx(cli, cmd, &o->so, &ctx);
	if (code != EXIT_OK)
		return code;
	watch_start(cli, ctx, cmd, o->deadline_s, o->so.verbose > 0);
	const char *filter = o->backends ? o->backends : getenv("GPUAUDIT_BACKENDS");
	int n = ga_bench_backends_select(ctx, filter, list, max);
	if (n < 0) {
		code = cli_error(cli, cmd, EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		goto out;
	}
	if (o->policy_file) {
		const struct ga_policy_class *cls = NULL;
		int r = ga_policy_load(ctx, o->policy_file, &o->policy);
		if (r < 0) {
			code = cli_error(cli, cmd, cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
			goto out;
		}
		if (o->class_name) {
			if (!(cls = ga_policy_find_class(o->policy, o->class_name))) {
				code = cli_error(cli, cmd, EXIT_USAGE, "no class '%s' in %s", o->class_name,
				                 o->policy_file);
				goto out;
			}
		} else {
			if ((r = snap_node(ctx, &o->so, &node)) < 0) {
				code = cli_error(cli, cmd, cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
				goto out;
			}
			cls = ga_policy_match(o->policy, node);
		}
		if (cls && cls->n_smoke) {
			o->expect = calloc(cls->n_smoke, sizeof(*o->expect));
			if (!o->expect) {
				code = cli_error(cli, cmd, EXIT_INTERNAL, "out of memory");
				goto out;
			}
			for (size_t i = 0; i < cls->n_smoke; i++)
				o->expect[i] =
				        (struct ga_bench_expect){ cls->smoke[i].key, cls->smoke[i].value };
			o->cfg.expect = o->expect;
			o->cfg.n_expect = cls->n_smoke;
		} else if (!cls) {
			fprintf(cli->err,
			        "gpuaudit %s: no class of %s matches this node; no policy figures apply\n",
			        cmd, o->policy_file);
		}
	}
	*ret_ctx = ctx;
	ctx = NULL;
out:
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}

void bench_cli_release(struct bench_cli *o)
{
	free(o->expect);
	ga_policy_free(o->policy);
}

void bench_cli_cpu_peak(struct ga_ctx *ctx, struct ga_bench_report *rep)
{
	struct ga_buf b;
	ga_buf_init(&b, 1 << 22);
	if (ga_fs_read(ctx, "proc/cpuinfo", 1 << 22, &b) >= 0) {
		rep->cpu_peak_fp32_flops = ga_cpu_peak_flops(b.data, b.len, false, NULL, NULL, NULL);
		rep->cpu_peak_fp64_flops = ga_cpu_peak_flops(b.data, b.len, true, NULL, NULL, NULL);
	}
	ga_buf_release(&b);
}

/* --- output --- */

static void fmt_rate(char *out, size_t n, double v, const char *unit)
{
	if (isnan(v) || !unit) {
		snprintf(out, n, "-");
		return;
	}
	if (!strcmp(unit, "s")) {
		if (v < 1e-3)
			snprintf(out, n, "%.1f us", v * 1e6);
		else if (v < 1)
			snprintf(out, n, "%.2f ms", v * 1e3);
		else
			snprintf(out, n, "%.2f s", v);
		return;
	}
	const char *base = !strcmp(unit, "flop/s") ? "FLOP/s" : "B/s";
	static const char *const pre[] = { "", "K", "M", "G", "T", "P" };
	size_t i = 0;
	while (fabs(v) >= 1000 && i + 1 < GA_ARRAY_LEN(pre)) {
		v /= 1000;
		i++;
	}
	snprintf(out, n, "%.1f %s%s", v, pre[i], base);
}

int bench_cli_exit(const struct ga_bench_report *rep)
{
	if (ga_findings_max_severity(&rep->findings) >= GA_SEV_ERROR)
		return EXIT_PROBLEMS;
	for (size_t i = 0; i < rep->n_results; i++)
		if (rep->results[i].status == GA_BENCH_OK)
			return EXIT_OK;
	return EXIT_UNAVAILABLE;
}

int bench_cli_output(struct cli *cli, const char *cmd, struct bench_cli *o, const struct ga_bench_report *rep)
{
	int code = bench_cli_exit(rep);
	watch_done();
	if (o->json) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		int r = ga_bench_report_json(rep, &b, true);
		if (r < 0) {
			ga_buf_release(&b);
			return cli_error(cli, cmd, EXIT_INTERNAL, "JSON output failed: %s", strerror(-r));
		}
		fputs(b.data, cli->out);
		ga_buf_release(&b);
		return code;
	}
	FILE *f = cli->out;
	fprintf(f, "backends:\n");
	for (size_t i = 0; i < rep->n_backends; i++) {
		const struct ga_bench_backend_state *b = &rep->backends[i];
		fprintf(f, "  %-8s %-9s %s\n", b->name, b->status,
		        b->version  ? b->version
		        : b->reason ? b->reason
		                    : "-");
	}
	int dw = 24; /* the device column: as wide as the longest name, never cut */
	for (size_t i = 0; i < rep->n_results; i++)
		if (rep->results[i].device && strlen(rep->results[i].device) > (size_t)dw)
			dw = (int)strlen(rep->results[i].device);
	fprintf(f, "\n%-8s %-*s %-26s %-8s %13s %13s %10s %7s %9s\n", "backend", dw, "device", "what",
	        "status", "median", "best", "cold", "%exp", "rel_err");
	for (size_t i = 0; i < rep->n_results; i++) {
		const struct ga_bench_result *r = &rep->results[i];
		char med[32], best[32], cold[32], pct[16], err[16];
		fmt_rate(med, sizeof(med), r->rate, r->unit);
		fmt_rate(best, sizeof(best), r->rate_best, r->unit);
		fmt_rate(cold, sizeof(cold), r->cold_s, "s");
		if (isnan(r->percent))
			snprintf(pct, sizeof(pct), "-");
		else
			snprintf(pct, sizeof(pct), "%.1f%s", r->percent,
			         r->expected_source && !strcmp(r->expected_source, "policy") ? "P" : "");
		if (isnan(r->rel_err))
			snprintf(err, sizeof(err), "-");
		else
			snprintf(err, sizeof(err), "%.1e", r->rel_err);
		fprintf(f, "%-8s %-*s %-26s %-8s %13s %13s %10s %7s %9s\n", r->backend, dw, r->device,
		        r->what, ga_bench_status_name(r->status), med, best, cold, pct, err);
		if (r->reason)
			fprintf(f, "         %s\n", r->reason);
	}
	if (rep->n_ratios) {
		fprintf(f, "\nbackend ratios on the same device (cliff above %.0fx):\n",
		        GA_BENCH_CLIFF_RATIO);
		for (size_t i = 0; i < rep->n_ratios; i++) {
			const struct ga_bench_ratio *q = &rep->ratios[i];
			fprintf(f, "  %-10s %-26s %s/%s = %.2fx%s\n", q->device_key, q->what, q->fast,
			        q->slow, q->ratio, q->cliff ? "  CLIFF" : "");
		}
	}
	fprintf(f, "\nfindings: %zu\n", rep->findings.n);
	for (size_t i = 0; i < rep->findings.n; i++) {
		const struct ga_finding *fd = &rep->findings.v[i];
		fprintf(f, "  %-8s %s %s: %s\n", ga_severity_name(fd->severity), fd->code, fd->subject,
		        fd->message);
		cli_print_action(f, "           ", fd);
		if (fd->decision)
			fprintf(f, "           fix: %s\n", fd->decision);
	}
	return code;
}

/* --- the subcommands --- */

static const char gemm_usage[] =
        "usage: gpuaudit bench gemm [--dtype LIST] [--sizes LIST|MIN:MAX] [OPTIONS]\n"
        "\n"
        "Matrix multiply C = A*B on every backend and device: FLOP/s = 2*M*N*K/t,\n"
        "median and best of --reps timed runs after a warm-up reported as the cold\n"
        "start; each result is checked against a float64 reference on random data.\n"
        "\n"
        "  --dtype LIST    fp32,fp64,fp16,bf16 or all (default: every dtype each backend has)\n"
        "  --sizes LIST    square sizes N (M=N=K), e.g. 512,1024, or a power-of-two sweep\n"
        "                  256:4096 (default 1024)\n";

static const char common_usage[] =
        "  --backends LIST only/without these backends: cblas,opencl or -cuda,-hip\n"
        "                  (default: $GPUAUDIT_BACKENDS, else all: cuda, hip, clblast, opencl, cblas)\n"
        "  --blas LIB      the CPU BLAS library to dlopen (default: OpenBLAS, BLIS, MKL, libcblas)\n"
        "  --cuda-libdir D where to look for cuBLAS besides the loader path (/usr/local/cuda/lib64)\n"
        "  --reps N        timed repetitions (default 5)\n"
        "  --seed N        random data seed (default 1)\n"
        "  --threads N     CPU BLAS threads (default: the library's)\n"
        "  --deadline SEC  give up with exit 4 when the run takes longer, naming the step\n"
        "                  in progress (a vendor call hung on a wedged GPU); default none\n"
        "  --policy FILE   expected figures from the node class's smoke: section\n"
        "  --class NAME    the class to use (default: the one matching this node)\n"
        "  --root DIR, --from FILE, --vendor, --no-vendor, --timeout SEC: the node\n"
        "                  snapshot that --policy matches, as for discover\n"
        "  --json          print gpuaudit.bench/v1 JSON\n"
        "  -v              log progress to stderr (repeat for more); without -v only\n"
        "                  when stderr is a terminal\n"
        "  -h, --help      show this help\n"
        "\n"
        "Exit status: 0 ran, 1 a wrong result, a failure or a figure below the policy,\n"
        "2 usage error, 3 no backend could run it, 4 --deadline passed, 70 internal error.\n";

static int run_prim(struct cli *cli, int argc, char **argv, const char *cmd, const char *usage_head,
                    const char *extra)
{
	struct bench_cli o = { 0 };
	char usage[4096];
	snprintf(usage, sizeof(usage), "%s%s", usage_head, common_usage);
	snap_opts_init(&o.so);
	ga_bench_config_init(&o.cfg);
	const char *kind = cmd + strlen("bench ");
	int code = bench_cli_parse(cli, cmd, usage, extra, argc, argv, &o);
	if (code >= 0)
		return code;
	struct ga_ctx *ctx = NULL;
	const struct ga_bench_backend *list[16];
	struct ga_bench_session *s = NULL;
	struct ga_bench_report rep;
	ga_bench_report_init(&rep, kind);
	if ((code = bench_cli_setup(cli, cmd, &o, &ctx, list, GA_ARRAY_LEN(list))) != EXIT_OK)
		goto out;
	bench_cli_cpu_peak(ctx, &rep);
	if (!strcmp(kind, "collective")) { /* NCCL runs on the CUDA backend's devices only */
		size_t k = 0;
		for (size_t i = 0; list[i]; i++)
			if (list[i] == &ga_bench_cuda)
				list[k++] = list[i];
		list[k] = NULL;
	}
	int r = ga_bench_session_open(ctx, &o.cfg, list, &rep, &s);
	if (r >= 0) {
		if (!strcmp(kind, "gemm")) {
			size_t def = 1024;
			struct ga_gemm_spec spec = { .dtypes = o.dtypes,
				                     .sizes = o.n_sizes ? o.sizes : &def,
				                     .n_sizes = o.n_sizes ? o.n_sizes : 1 };
			r = ga_bench_gemm(s, &spec, &rep);
		} else if (!strcmp(kind, "stream")) {
			r = ga_bench_stream(s, o.elements ? o.elements : (size_t)1 << 25, &rep);
		} else if (!strcmp(kind, "transfer")) {
			r = ga_bench_transfer(s, o.bytes ? o.bytes : (size_t)256 << 20, &rep);
		} else {
			r = ga_bench_collective(s, o.nccl_lib, o.bytes ? o.bytes : (size_t)256 << 20, &rep);
		}
	}
	if (r >= 0)
		r = ga_bench_analyze(&rep, &o.cfg, o.cfg.n_expect ? 0.95 : 0);
	if (r < 0) {
		code = cli_error(cli, cmd, cli_exit_for(r), "%s",
		                 r == -ENOMEM ? "out of memory" : ga_ctx_errmsg(ctx));
		goto out;
	}
	code = bench_cli_output(cli, cmd, &o, &rep);
out:
	ga_bench_session_free(s);
	ga_bench_report_release(&rep);
	bench_cli_release(&o);
	ga_ctx_free(ctx);
	return code;
}

int cmd_bench_gemm(struct cli *cli, int argc, char **argv)
{
	return run_prim(cli, argc, argv, "bench gemm", gemm_usage, "ds");
}

int cmd_bench_stream(struct cli *cli, int argc, char **argv)
{
	return run_prim(cli, argc, argv, "bench stream",
	                "usage: gpuaudit bench stream [--elements N] [OPTIONS]\n"
	                "\n"
	                "BabelStream's copy, mul, add, triad and dot on arrays of N doubles (floats\n"
	                "where the device has no fp64): device memory on GPUs, host memory on the CPU.\n"
	                "Bandwidth counts 2, 2, 3, 3, 2 arrays moved; results are checked.\n"
	                "\n"
	                "  --elements N    array length (default 32M; K, M, G suffixes)\n",
	                "e");
}

int cmd_bench_transfer(struct cli *cli, int argc, char **argv)
{
	return run_prim(cli, argc, argv, "bench transfer",
	                "usage: gpuaudit bench transfer [--bytes N] [OPTIONS]\n"
	                "\n"
	                "Copies between pinned host memory and each device (h2d, d2h) and within a\n"
	                "device (d2d); every copy is verified byte for byte.\n"
	                "\n"
	                "  --bytes N       bytes per copy (default 256M; K, M, G suffixes)\n",
	                "b");
}

int cmd_bench_collective(struct cli *cli, int argc, char **argv)
{
	return run_prim(cli, argc, argv, "bench collective",
	                "usage: gpuaudit bench collective [--bytes N] [--nccl LIB] [OPTIONS]\n"
	                "\n"
	                "All-reduce and all-gather across the local GPUs through NCCL (one process,\n"
	                "ncclCommInitAll); algbw and busbw as nccl-tests define them.\n"
	                "\n"
	                "  --bytes N       buffer size (default 256M; K, M, G suffixes)\n"
	                "  --nccl LIB      the NCCL library to dlopen (default libnccl.so.2)\n",
	                "bn");
}
