/*
 * cmd-deps.c - `gpuaudit deps`: what wheels, images, packages and
 * directories pull in from GPU vendors, and whether they will load and find
 * kernels on a target node (docs/deps.md). Text grouped by package then file,
 * JSON (gpuaudit.deps/v1) or SARIF 2.1.0 for code-scanning UIs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/core.h"
#include "gpuaudit/deps.h"
#include "gpuaudit/strmap.h"
#include "gpuaudit/model.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/sarif.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/cyclonedx.h"
#include "gpuaudit/kmsg.h"

enum mode { MODE_TEXT, MODE_JSON, MODE_SARIF };

/* Files and bytes so far and the path being read (the shared terminal progress line, cli.h). */
static void progress_cb(void *udata, const struct ga_deps_inventory *inv, const char *path)
{
	size_t n = strlen(path);
	cli_progress_show(udata, "%llu files, %llu MiB  %s%s", (unsigned long long)inv->files_seen,
	                  (unsigned long long)(inv->bytes_seen >> 20), n > 50 ? "..." : "",
	                  n > 50 ? path + n - 50 : path);
}

static int cmp_finding_subject(const void *a, const void *b)
{
	const struct ga_finding *x = *(const struct ga_finding *const *)a,
	                        *y = *(const struct ga_finding *const *)b;
	int c = strcmp(x->subject ? x->subject : "", y->subject ? y->subject : "");
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

struct fidx {
	const struct ga_finding **v;
	size_t n;
	bool *printed;
	const struct ga_deps_inventory *inv;
	const struct ga_deps_plugin_use *uses; /* plug-ins loaded by name */
	size_t n_uses;
};

static void print_findings_for(FILE *o, struct fidx *ix, const char *subject, const char *indent)
{
	for (size_t i = 0; i < ix->n; i++) {
		const struct ga_finding *f = ix->v[i];
		if (ix->printed[i] || strcmp(f->subject ? f->subject : "", subject))
			continue;
		ix->printed[i] = true;
		fprintf(o, "%s%-8s %s %s\n", indent, ga_severity_name(f->severity), cli_esc(f->code),
		        cli_esc(f->message));
		for (size_t k = 0; k < f->n_evidence; k++)
			fprintf(o, "%s         %s: %s\n", indent, cli_esc(f->evidence[k].key),
			        cli_esc(f->evidence[k].value));
		if (f->decision)
			fprintf(o, "%s         fix: %s\n", indent, cli_esc(f->decision));
		fprintf(o, "%s         ", indent);
		cli_print_action(o, "", f);
	}
}

static void print_signals(FILE *o, const struct ga_dep_signal *v, size_t n, const char *indent)
{
	for (int b = 0; b < GA_DEP_N; b++)
		for (int s = 0; s < GA_STRENGTH_N; s++) {
			size_t k = 0;
			for (size_t i = 0; i < n; i++) {
				if ((int)v[i].backend != b || (int)v[i].strength != s)
					continue;
				if (!k++)
					fprintf(o, "%s%s %s:", indent,
					        ga_dep_backend_name((enum ga_dep_backend)b),
					        ga_dep_strength_name((enum ga_dep_strength)s));
				fprintf(o, "%s %s", k > 1 ? "," : "", cli_esc(v[i].what));
			}
			if (k)
				fputc('\n', o);
		}
}

/* "loads by name: NAME (HOST BRINGS) -> PATH, NEEDS a, b" for each plug-in use of host (-1: ICD files) */
static void print_plugins(FILE *o, const struct fidx *ix, long host, const char *indent)
{
	for (size_t k = 0; k < ix->n_uses; k++) {
		const struct ga_deps_plugin_use *u = &ix->uses[k];
		if (u->host != host)
			continue;
		if (host < 0)
			fprintf(o, "%s%s: ", indent, cli_esc(u->host_path));
		else
			fprintf(o, "%sloads by name: ", indent);
		fprintf(o, "%s (%s %s, %s)", cli_esc(u->name), u->conv->host, u->conv->brings,
		        ga_dep_backend_name(u->conv->backend));
		const struct ga_deps_file *pf = u->found >= 0 ? &ix->inv->files[u->found] : NULL;
		if (!pf) {
			fprintf(o, " -> not in the scanned tree\n");
			continue;
		}
		fprintf(o, " -> %s", cli_esc(pf->path));
		size_t n = 0;
		for (size_t i = 0; pf->elf && i < pf->elf->n_needed; i++)
			if (ga_vendor_lib_find(pf->elf->needed[i], NULL))
				fprintf(o, "%s%s", n++ ? ", " : ", NEEDS ", cli_esc(pf->elf->needed[i]));
		fputc('\n', o);
	}
}

static void print_file(FILE *o, const struct ga_deps_file *f, struct fidx *ix)
{
	fprintf(o, "  %s\n", cli_esc(f->path));
	print_signals(o, f->signals, f->n_signals, "    ");
	print_plugins(o, ix, (long)(f - ix->inv->files), "    ");
	print_findings_for(o, ix, f->path, "    ");
}

static bool file_worth_showing(const struct ga_deps_file *f, struct fidx *ix)
{
	if (!f->elf)
		return false;
	if (f->n_signals)
		return true;
	for (size_t i = 0; i < ix->n; i++)
		if (!ix->printed[i] && !strcmp(ix->v[i]->subject ? ix->v[i]->subject : "", f->path))
			return true;
	return false;
}

/* "PASS", "FAIL", "INCOMPLETE", "UNKNOWN", "ERROR" */
static const char *result_upper(enum ga_deps_result res, char *buf, size_t len)
{
	size_t i = 0;
	for (const char *n = ga_deps_result_name(res); *n && i + 1 < len; n++)
		buf[i++] = (char)(*n - ('a' <= *n && *n <= 'z' ? 'a' - 'A' : 0));
	buf[i] = '\0';
	return buf;
}

/* One mapping from the result to the exit status (docs/deps.md "Exit status"). */
static int result_exit(enum ga_deps_result res)
{
	switch (res) {
	case GA_DEPS_RESULT_PASS:
		return EXIT_OK;
	case GA_DEPS_RESULT_FAIL:
		return EXIT_PROBLEMS;
	case GA_DEPS_RESULT_INCOMPLETE:
	case GA_DEPS_RESULT_UNKNOWN:
		return EXIT_INCONCLUSIVE;
	case GA_DEPS_RESULT_ERROR:
		break;
	}
	return EXIT_USAGE;
}

static void print_text(FILE *o, const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                       const struct ga_findings *fs, const char *target_from, enum ga_deps_result res,
                       enum ga_severity fail_on)
{
	struct fidx ix = { 0 };
	ix.v = calloc(fs->n + 1, sizeof(*ix.v));
	ix.printed = calloc(fs->n + 1, sizeof(*ix.printed));
	if (!ix.v || !ix.printed) {
		free(ix.v);
		free(ix.printed);
		return;
	}
	for (size_t i = 0; i < fs->n; i++)
		ix.v[ix.n++] = &fs->v[i];
	struct ga_deps_plugin_use *uses = NULL;
	ix.inv = inv;
	if (ga_deps_plugin_uses(inv, t, &uses, &ix.n_uses) == 0)
		ix.uses = uses;
	qsort(ix.v, ix.n, sizeof(*ix.v), cmp_finding_subject);

	size_t elf = 0;
	for (size_t i = 0; i < inv->n_files; i++)
		elf += inv->files[i].elf != NULL;
	if (t && t->kind != GA_TARGET_NONE)
		fprintf(o, "target: %s%s%s%s\n", cli_esc(t->name), target_from ? " (" : "",
		        target_from ? cli_esc(target_from) : "", target_from ? ")" : "");
	else if (t && t->accel_unknown)
		fprintf(o, "target: %s (%s: accelerators unknown, its PCI devices were not read)\n",
		        cli_esc(t->name), target_from ? cli_esc(target_from) : "the snapshot");
	else
		fprintf(o, "target: none (only target-free checks; use --target, --for or --for-class)\n");
	if (t && t->policy_class) {
		fprintf(o, "policy: class %s, backends", cli_esc(t->policy_class));
		for (size_t i = 0; i < t->allowed_backends.n; i++)
			fprintf(o, " %s", cli_esc(t->allowed_backends.v[i]));
		fprintf(o, ", archs");
		for (size_t i = 0; i < t->required_archs.n; i++)
			fprintf(o, " %s", cli_esc(t->required_archs.v[i]));
		fputc('\n', o);
	}
	fprintf(o, "scanned: %llu files, %llu bytes, %zu ELF, %zu packages, %zu trees\n",
	        (unsigned long long)inv->files_seen, (unsigned long long)inv->bytes_seen, elf, inv->n_pkgs,
	        inv->n_trees);
	for (size_t p = 0; p < inv->n_pkgs; p++) {
		const struct ga_deps_pkg *pk = &inv->pkgs[p];
		/* npm install scripts: a finding on the package (GA-DEPS-INSTALL-SCRIPT) */
		bool any = pk->n_signals > 0 || pk->install_scripts.n || pk->install_fetch;
		for (size_t i = 0; i < inv->n_files && !any; i++)
			any = inv->files[i].pkg == (long)p && file_worth_showing(&inv->files[i], &ix);
		if (!any)
			continue;
		fprintf(o, "\npackage %s %s (%s, %s)\n", pk->name ? cli_esc(pk->name) : "?",
		        pk->version ? cli_esc(pk->version) : "", cli_esc(pk->kind),
		        cli_esc(pk->meta_path ? pk->meta_path : pk->meta_dir));
		if (pk->os.n || pk->cpu.n || pk->libc.n) { /* npm: where npm installs it */
			fprintf(o, "  platform:");
			const struct ga_strv *pl[] = { &pk->os, &pk->cpu, &pk->libc };
			const char *pn[] = { "os", "cpu", "libc" };
			for (size_t k = 0; k < 3; k++)
				for (size_t i = 0; i < pl[k]->n; i++)
					fprintf(o, " %s=%s", pn[k], cli_esc(pl[k]->v[i]));
			fputc('\n', o);
		}
		print_signals(o, pk->signals, pk->n_signals, "  ");
		print_findings_for(o, &ix, pk->meta_path ? pk->meta_path : pk->name ? pk->name : "?", "  ");
		for (size_t i = 0; i < inv->n_files; i++)
			if (inv->files[i].pkg == (long)p && file_worth_showing(&inv->files[i], &ix))
				print_file(o, &inv->files[i], &ix);
	}
	bool header = false;
	for (size_t i = 0; i < inv->n_files; i++) {
		if (inv->files[i].pkg >= 0 || !file_worth_showing(&inv->files[i], &ix))
			continue;
		if (!header)
			fprintf(o, "\nfiles outside any package\n");
		header = true;
		print_file(o, &inv->files[i], &ix);
	}
	for (size_t k = 0; k < ix.n_uses; k++)
		if (ix.uses[k].host < 0) {
			fprintf(o, "\nICD files\n");
			print_plugins(o, &ix, -1, "  ");
			break;
		}
	header = false;
	for (size_t i = 0; i < ix.n; i++) {
		if (ix.printed[i])
			continue;
		if (!header)
			fprintf(o, "\nother findings\n");
		header = true;
		print_findings_for(o, &ix, ix.v[i]->subject ? ix.v[i]->subject : "", "  ");
	}
	if (inv->n_gaps) {
		fprintf(o, "\nnot read (%zu)\n", inv->n_gaps);
		for (size_t i = 0; i < inv->n_gaps; i++)
			fprintf(o, "  %s: %s\n", cli_esc(inv->gaps[i].path), cli_esc(inv->gaps[i].reason));
	}
	size_t sev[4] = { 0 };
	for (size_t i = 0; i < fs->n; i++)
		sev[fs->v[i].severity & 3]++;
	char name[16], why[512];
	fprintf(o, "\nresult: %s (%zu errors, %zu warnings)\n", result_upper(res, name, sizeof(name)),
	        sev[GA_SEV_ERROR] + sev[GA_SEV_CRITICAL], sev[GA_SEV_WARNING]);
	if (*ga_deps_result_reason(res, inv, why, sizeof(why)))
		fprintf(o, "  %s\n", cli_esc(why));
	if (fail_on != GA_SEV_ERROR) {
		size_t at = 0;
		for (size_t i = 0; i < fs->n; i++)
			at += fs->v[i].severity >= fail_on;
		fprintf(o, "  --fail-on %s: %zu finding%s at or above it\n", ga_severity_name(fail_on), at,
		        at == 1 ? "" : "s");
	}
	free(ix.v);
	free(ix.printed);
	ga_free(uses);
}

struct deps_cli {
	struct ga_deps_opts o;
	const char *target_spec, *for_file, *class_name, *policy_file, *ld_path;
	const char *cyclonedx; /* --cyclonedx FILE, "-" stdout */
	enum mode mode;
	int modes, verbose;
	bool compact;
	enum ga_severity fail_on; /* --fail-on: FAIL at findings of this severity or above */
};

static int deps_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct deps_cli *d = st;
	switch (opt) {
	case 'j':
		d->mode = MODE_JSON, d->modes |= 1;
		return CLI_NEXT;
	case 's':
		d->mode = MODE_SARIF, d->modes |= 2;
		return CLI_NEXT;
	case 'c':
		d->compact = true;
		return CLI_NEXT;
	case 'T':
		d->target_spec = arg;
		return CLI_NEXT;
	case 'F':
		d->for_file = arg;
		return CLI_NEXT;
	case 'C':
		d->class_name = arg;
		return CLI_NEXT;
	case 'P':
		d->policy_file = arg;
		return CLI_NEXT;
	case 'L':
		d->ld_path = arg;
		return CLI_NEXT;
	case 'n':
		d->o.elf_flags |= GA_ELF_NO_DEVICE_CODE;
		return CLI_NEXT;
	case 'A':
		d->o.no_archives = true;
		return CLI_NEXT;
	case 'm':
	case 'M':
		if (cli_size_parse(arg, opt == 'm' ? &d->o.max_member_bytes : &d->o.max_total_bytes) < 0)
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--%s wants a byte count (e.g. 100M, 4G), not '%s'",
			                 opt == 'm' ? "max-member-bytes" : "max-total-bytes", arg);
		return CLI_NEXT;
	case 'R':
	case 'N': {
		/* a count: --max-ratio 0 turns the expansion bound off; nesting 1..16 */
		char *end = NULL;
		errno = 0;
		unsigned long v = strtoul(arg, &end, 10);
		unsigned long hi = opt == 'R' ? 1000000ul : GA_DEPS_NESTING_CEILING;
		if (errno || end == arg || *end || arg[0] == '-' || v > hi || (opt == 'N' && v == 0))
			return cli_error(cli, cmd, EXIT_USAGE, "--%s wants a number from %u to %lu, not '%s'",
			                 opt == 'R' ? "max-ratio" : "max-nesting", opt == 'R' ? 0u : 1u, hi,
			                 arg);
		if (opt == 'R')
			d->o.max_ratio = (unsigned)v;
		else
			d->o.max_nesting = (unsigned)v;
		return CLI_NEXT;
	}
	case 'v':
		d->verbose++;
		return CLI_NEXT;
	case 'X':
		d->cyclonedx = arg;
		return CLI_NEXT;
	case 'f':
		if (!strcmp(arg, "error"))
			d->fail_on = GA_SEV_ERROR;
		else if (!strcmp(arg, "warning"))
			d->fail_on = GA_SEV_WARNING;
		else if (!strcmp(arg, "info"))
			d->fail_on = GA_SEV_INFO;
		else
			return cli_error(cli, cmd, EXIT_USAGE,
			                 "--fail-on wants error, warning or info, not '%s'", arg);
		return CLI_NEXT;
	default:
		return CLI_UNKNOWN;
	}
}

/*
 * The options, which may follow the PATHs as well (GNU order: `deps
 * dist/x.whl --json`; "--" ends the options), then the checks across them.
 * The PATHs are gathered in paths (room for argc). CLI_NEXT, or the exit code
 * (usage or the error printed).
 */
static int deps_parse(struct cli *cli, int argc, char **argv, const struct option *opts, struct deps_cli *d,
                      char **paths, int *n_paths)
{
	int code = cli_parse_permute(cli, "deps", argc, argv, "jv", opts, deps_opt, d);
	if (code != CLI_NEXT)
		return code;
	*n_paths = 0;
	for (int i = optind; i < argc; i++)
		paths[(*n_paths)++] = argv[i];
	if (!*n_paths)
		return cli_error(cli, "deps", EXIT_USAGE, "no PATH to scan (try -h)");
	if (d->modes & (d->modes - 1))
		return cli_error(cli, "deps", EXIT_USAGE, "--json and --sarif exclude each other");
	if (d->target_spec && d->for_file)
		return cli_error(cli, "deps", EXIT_USAGE, "--target and --for exclude each other");
	if (d->cyclonedx && !strcmp(d->cyclonedx, "-") && d->mode != MODE_TEXT)
		return cli_error(cli, "deps", EXIT_USAGE,
		                 "--cyclonedx - writes the SBOM on stdout: it excludes --json and --sarif "
		                 "(give --cyclonedx FILE)");
	if (!!d->class_name != !!d->policy_file)
		return cli_error(cli, "deps", EXIT_USAGE, "--for-class and --policy go together");
	return CLI_NEXT;
}

/*
 * The environment the library no longer reads: GPUAUDIT_DEPS_THREADS (1: the
 * one-thread walk, for tests and measurements) and GA_ELFSCAN_NO_SIMD. And
 * libarchive converts every zip member's DOS time with mktime(), and with TZ
 * unset glibc stats /etc/localtime on each call to see whether it changed:
 * 520,000 stats for /usr/lib (3.6 s of 5.7). A TZ naming the same file is
 * read once. deps starts no processes, so nothing else sees it.
 */
static void deps_env(struct ga_ctx *ctx)
{
	const char *e = getenv("GPUAUDIT_DEPS_THREADS");
	if (e && *e) {
		long n = strtol(e, NULL, 10);
		ga_ctx_set_threads(ctx, n < 1 ? 1u : n > 1024 ? 1024u : (unsigned)n);
	}
	if (getenv("GA_ELFSCAN_NO_SIMD"))
		ga_ctx_set_no_simd(ctx, true);
	if (!getenv("TZ"))
		setenv("TZ", ":/etc/localtime", 0);
}

/* The target from --target, --for and --for-class/--policy: EXIT_OK or the exit code, message printed. */
static int deps_target(struct cli *cli, struct ga_ctx *ctx, const struct deps_cli *d,
                       struct ga_deps_target *t, const char **target_from)
{
	char errbuf[256] = "";
	struct ga_node *node = NULL;
	struct ga_policy *pol = NULL;
	const struct ga_policy_class *c = NULL;
	int code = EXIT_OK, r;
	if (d->target_spec && ga_deps_target_parse(d->target_spec, t, errbuf, sizeof(errbuf)) < 0) {
		code = cli_error(cli, "deps", EXIT_USAGE, "--target %s: %s", d->target_spec, errbuf);
		goto out;
	}
	if (d->for_file) {
		if ((r = ga_node_load(ctx, d->for_file, &node)) < 0) {
			code = cli_error(cli, "deps", cli_exit_for(r), "--for %s: %s", d->for_file,
			                 ga_ctx_errmsg(ctx));
			goto out;
		}
		if (ga_deps_target_from_node(node, t) < 0) {
			code = cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
			goto out;
		}
		*target_from = d->for_file;
	}
	if (d->class_name) {
		if ((r = ga_policy_load(ctx, d->policy_file, &pol)) < 0) {
			code = cli_error(cli, "deps", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
			goto out;
		}
		if (!(c = ga_policy_find_class(pol, d->class_name))) {
			code = cli_error(cli, "deps", EXIT_USAGE, "%s: no class named '%s'", d->policy_file,
			                 d->class_name);
			goto out;
		}
		r = ga_deps_target_from_class(t, c, d->target_spec || d->for_file, errbuf, sizeof(errbuf));
		if (r < 0) {
			code = r == -ENOMEM ? cli_error(cli, "deps", EXIT_INTERNAL, "out of memory")
			                    : cli_error(cli, "deps", EXIT_USAGE, "%s", errbuf);
			goto out;
		}
		if (!*target_from && !d->target_spec)
			*target_from = d->policy_file;
	}
	if (d->ld_path && !(t->ld_library_path = ga_strdup(d->ld_path)))
		code = cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
out:
	ga_policy_free(pol);
	ga_node_free(node);
	return code;
}

/* Scan every PATH: EXIT_OK, EXIT_USAGE when one could not be read (scan goes on), EXIT_INTERNAL. */
static int deps_scan_all(struct cli *cli, struct ga_ctx *ctx, const struct ga_deps_opts *o, char **paths,
                         int n_paths, struct cli_progress *prog, struct ga_deps_inventory *inv)
{
	int code = EXIT_OK;
	for (int i = 0; i < n_paths; i++) {
		int r = ga_deps_scan(ctx, o, paths[i], inv);
		if (r == -ENOMEM)
			return cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
		if (r < 0) {
			cli_progress_end(prog);
			code = cli_error(cli, "deps", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		}
	}
	cli_progress_end(prog);
	return code;
}

/* SARIF with the result as the run's invocation: what could not be read as notifications. */
static int deps_sarif(const struct deps_cli *d, const struct ga_deps_inventory *inv,
                      const struct ga_findings *fs, enum ga_deps_result res, struct ga_buf *out)
{
	char why[512];
	struct ga_sarif_notice *nv = inv->n_gaps ? calloc(inv->n_gaps, sizeof(*nv)) : NULL;
	if (inv->n_gaps && !nv)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_gaps; i++) {
		nv[i].path = inv->gaps[i].path;
		nv[i].message = inv->gaps[i].reason;
		nv[i].error = inv->gaps[i].whole_path;
	}
	struct ga_sarif_invocation iv = {
		.successful = res != GA_DEPS_RESULT_ERROR,
		.exit_code = result_exit(res),
		.result = ga_deps_result_name(res),
		.reason = ga_deps_result_reason(res, inv, why, sizeof(why)),
		.notices = nv,
		.n_notices = inv->n_gaps,
	};
	int r = ga_sarif_write_run(fs, ga_deps_rule_text, &iv, out, !d->compact);
	free(nv);
	return r;
}

/* JSON (the gpuaudit.deps/v1 model, which takes the findings over) or SARIF on stdout. */
static int deps_write(struct cli *cli, const struct deps_cli *d, const struct ga_deps_inventory *inv,
                      const struct ga_deps_target *t, struct ga_findings *fs, enum ga_deps_result res)
{
	struct ga_buf out;
	struct ga_deps_report rep;
	ga_buf_init(&out, 0);
	memset(&rep, 0, sizeof(rep));
	int r;
	if (d->mode == MODE_SARIF)
		r = deps_sarif(d, inv, fs, res, &out);
	else if (ga_deps_report_build(inv, t, fs, &rep) < 0)
		r = -ENOMEM;
	else {
		rep.result = (int)res; /* --fail-on decides it, as it decides the exit status */
		r = ga_model_write(ga_model_find(GA_DEPS_SCHEMA), &rep, &out, !d->compact);
	}
	int code = EXIT_OK;
	if (r < 0 || (d->compact && ga_buf_addc(&out, '\n') < 0))
		code = cli_error(cli, "deps", EXIT_INTERNAL, "JSON writer failed");
	else
		fwrite(out.data, 1, out.len, cli->out);
	if (d->mode != MODE_SARIF) {
		/* the findings back to the caller (--cyclonedx builds its own report from them) */
		ga_findings_release(fs);
		*fs = rep.findings;
		ga_findings_init(&rep.findings);
	}
	ga_deps_report_release(&rep);
	ga_buf_release(&out);
	return code;
}

/*
 * --cyclonedx: the SBOM of the report built from inv, t and fs (which it
 * takes over). metadata.timestamp is the clock or GPUAUDIT_NOW (Unix seconds
 * or RFC 3339, as the other commands take it); the serial number is random,
 * or with GPUAUDIT_NOW derived from the time and the paths, so that tests
 * can compare whole documents.
 */
static int deps_cyclonedx(struct cli *cli, struct ga_ctx *ctx, const struct deps_cli *d, char **paths,
                          int n_paths, const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                          struct ga_findings *fs, const char *verdict)
{
	struct ga_deps_report rep;
	struct ga_buf out, subject;
	ga_buf_init(&out, 0);
	ga_buf_init(&subject, 0);
	int code = EXIT_OK;
	for (int i = 0; i < n_paths; i++)
		ga_buf_addf(&subject, "%s%s", i ? " " : "", paths[i]);
	const char *e = getenv("GPUAUDIT_NOW");
	int64_t now = (int64_t)time(NULL);
	bool fixed = e && ga_wall_time_parse(e, &now) == 0;
	uint8_t u[16];
	uint64_t h1 = GA_FNV1A64_BASIS, h2 = 0x9e3779b97f4a7c15ull;
	if (fixed || getentropy(u, sizeof(u)) < 0) {
		/* FNV-1a over the time and the subject, two lanes */
		char seed[32];
		snprintf(seed, sizeof(seed), "%lld:", (long long)now);
		h1 = ga_fnv1a64_add(h1, seed, strlen(seed));
		h1 = ga_fnv1a64_add(h1, subject.data, subject.len);
		h2 = ga_fnv1a64_add(h2, subject.data, subject.len);
		for (int i = 0; i < 8; i++) {
			u[i] = (uint8_t)(h1 >> (8 * i));
			u[8 + i] = (uint8_t)(h2 >> (8 * i));
		}
	}
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	char serial[64];
	snprintf(serial, sizeof(serial),
	         "urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
	         u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	struct ga_cdx_opts o = { now, serial, subject.data, verdict };
	if (ga_deps_report_build(inv, t, fs, &rep) < 0 || ga_cyclonedx_write(&rep, &o, &out, true) < 0)
		code = cli_error(cli, "deps", EXIT_INTERNAL, "CycloneDX writer failed");
	else if (!strcmp(d->cyclonedx, "-"))
		fwrite(out.data, 1, out.len, cli->out);
	else if (ga_file_write_atomic(ctx, d->cyclonedx, out.data, out.len, 0644) < 0)
		code = cli_error(cli, "deps", EXIT_USAGE, "--cyclonedx %s: %s", d->cyclonedx,
		                 ga_ctx_errmsg(ctx));
	ga_deps_report_release(&rep);
	ga_buf_release(&out);
	ga_buf_release(&subject);
	return code;
}

int cmd_deps(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "compact", no_argument, NULL, 'c' },
		{ "sarif", no_argument, NULL, 's' },
		{ "target", required_argument, NULL, 'T' },
		{ "for", required_argument, NULL, 'F' },
		{ "for-class", required_argument, NULL, 'C' },
		{ "policy", required_argument, NULL, 'P' },
		{ "no-device-code", no_argument, NULL, 'n' },
		{ "no-archives", no_argument, NULL, 'A' },
		{ "max-member-bytes", required_argument, NULL, 'm' },
		{ "max-total-bytes", required_argument, NULL, 'M' },
		{ "max-ratio", required_argument, NULL, 'R' },
		{ "max-nesting", required_argument, NULL, 'N' },
		{ "ld-library-path", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "cyclonedx", required_argument, NULL, 'X' },
		{ "fail-on", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct deps_cli d = { .mode = MODE_TEXT, .fail_on = GA_SEV_ERROR };
	ga_deps_opts_init(&d.o);
	/* members too large for memory are spooled (unlinked) where temporary files go */
	d.o.spool_dir = getenv("TMPDIR");
	struct ga_ctx *ctx = NULL;
	struct ga_deps_target t;
	struct ga_deps_inventory inv;
	struct ga_findings fs;
	struct cli_progress prog;
	cli_progress_init(&prog, cli, "deps");
	memset(&t, 0, sizeof(t));
	t.cuda_version = t.sm = t.rocm_major = -1;
	ga_deps_inventory_init(&inv);
	ga_findings_init(&fs);
	const char *target_from = NULL;
	char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	int n_paths = 0;
	int code = paths ? deps_parse(cli, argc, argv, opts, &d, paths, &n_paths)
	                 : cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
	if (code != CLI_NEXT)
		goto out;
	if ((code = cli_ctx(cli, "deps", NULL, d.verbose, &ctx)) != EXIT_OK)
		goto out;
	if ((code = deps_target(cli, ctx, &d, &t, &target_from)) != EXIT_OK)
		goto out;
	/* a CUDA target: count the kernels of PTX images (the PTX JIT estimate) */
	if (t.kind == GA_TARGET_CUDA)
		d.o.elf_flags |= GA_ELF_PTX_ENTRIES | (t.sm > 0 ? GA_ELF_PTX_SM(t.sm) : 0);
	if (d.mode == MODE_TEXT && prog.to) {
		d.o.progress = progress_cb;
		d.o.progress_udata = &prog;
	}
	deps_env(ctx);
	int scanned = deps_scan_all(cli, ctx, &d.o, paths, n_paths, &prog, &inv);
	if (scanned == EXIT_INTERNAL || ga_deps_signals(&inv) < 0 || ga_deps_judge(&inv, &t, &fs) < 0) {
		code = scanned == EXIT_INTERNAL ? scanned
		                                : cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	ga_findings_sort(&fs);
	/* one result for every output and the exit status (ga_deps_result_of) */
	enum ga_deps_result res = ga_deps_result_at(&inv, &fs, d.fail_on);
	char verdict[16];
	result_upper(res, verdict, sizeof(verdict));
	bool sbom_out = d.cyclonedx && !strcmp(d.cyclonedx, "-");
	if (d.mode == MODE_TEXT && !sbom_out)
		print_text(cli->out, &inv, &t, &fs, target_from, res, d.fail_on);
	else if (d.mode != MODE_TEXT && (code = deps_write(cli, &d, &inv, &t, &fs, res)) != EXIT_OK)
		goto out;
	/* after the report: the SBOM takes the findings over */
	if (d.cyclonedx &&
	    (code = deps_cyclonedx(cli, ctx, &d, paths, n_paths, &inv, &t, &fs, verdict)) != EXIT_OK)
		goto out;
	code = result_exit(res);
out:
	ga_findings_release(&fs);
	ga_deps_inventory_release(&inv);
	ga_deps_target_release(&t);
	ga_ctx_free(ctx);
	free(paths);
	return code;
}
