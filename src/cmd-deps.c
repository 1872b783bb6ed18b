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
#include "gpuaudit/deps.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"

enum mode { MODE_TEXT, MODE_JSON, MODE_SARIF };

struct progress {
	FILE *to;
	struct timespec last;
	bool shown;
};

static void progress_cb(void *udata, const struct ga_deps_inventory *inv, const char *path)
{
	struct progress *p = udata;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->shown &&
	    (now.tv_sec - p->last.tv_sec) * 1000 + (now.tv_nsec - p->last.tv_nsec) / 1000000 < 100)
		return;
	p->last = now;
	p->shown = true;
	size_t n = strlen(path);
	const char *tail = n > 50 ? path + n - 50 : path;
	fprintf(p->to, "\r\033[K%llu files, %llu MiB  %s%s", (unsigned long long)inv->files_seen,
	        (unsigned long long)(inv->bytes_seen >> 20), n > 50 ? "..." : "", tail);
	fflush(p->to);
}

/* "123", "64K", "100M", "4G" -> bytes; -1 on error. */
static int parse_size(const char *s, uint64_t *ret)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || v == 0 || (shift && v > (~0ull >> shift)))
		return -1;
	*ret = (uint64_t)v << shift;
	return 0;
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
};

static void print_findings_for(FILE *o, struct fidx *ix, const char *subject, const char *indent)
{
	for (size_t i = 0; i < ix->n; i++) {
		const struct ga_finding *f = ix->v[i];
		if (ix->printed[i] || strcmp(f->subject ? f->subject : "", subject))
			continue;
		ix->printed[i] = true;
		fprintf(o, "%s%-8s %s %s\n", indent, ga_severity_name(f->severity), f->code, f->message);
		for (size_t k = 0; k < f->n_evidence; k++)
			fprintf(o, "%s         %s: %s\n", indent, f->evidence[k].key, f->evidence[k].value);
		if (f->decision)
			fprintf(o, "%s         fix: %s\n", indent, f->decision);
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
				fprintf(o, "%s %s", k > 1 ? "," : "", v[i].what);
			}
			if (k)
				fputc('\n', o);
		}
}

static void print_file(FILE *o, const struct ga_deps_file *f, struct fidx *ix)
{
	fprintf(o, "  %s\n", f->path);
	print_signals(o, f->signals, f->n_signals, "    ");
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

static void print_text(FILE *o, const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                       const struct ga_findings *fs, const char *target_from)
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
	qsort(ix.v, ix.n, sizeof(*ix.v), cmp_finding_subject);

	size_t elf = 0;
	for (size_t i = 0; i < inv->n_files; i++)
		elf += inv->files[i].elf != NULL;
	if (t && t->kind != GA_TARGET_NONE)
		fprintf(o, "target: %s%s%s%s\n", t->name, target_from ? " (" : "",
		        target_from ? target_from : "", target_from ? ")" : "");
	else
		fprintf(o, "target: none (only target-free checks; use --target, --for or --for-class)\n");
	if (t && t->policy_class) {
		fprintf(o, "policy: class %s, backends", t->policy_class);
		for (size_t i = 0; i < t->allowed_backends.n; i++)
			fprintf(o, " %s", t->allowed_backends.v[i]);
		fprintf(o, ", archs");
		for (size_t i = 0; i < t->required_archs.n; i++)
			fprintf(o, " %s", t->required_archs.v[i]);
		fputc('\n', o);
	}
	fprintf(o, "scanned: %llu files, %llu bytes, %zu ELF, %zu packages, %zu trees\n",
	        (unsigned long long)inv->files_seen, (unsigned long long)inv->bytes_seen, elf, inv->n_pkgs,
	        inv->n_trees);
	for (size_t p = 0; p < inv->n_pkgs; p++) {
		const struct ga_deps_pkg *pk = &inv->pkgs[p];
		bool any = pk->n_signals > 0;
		for (size_t i = 0; i < inv->n_files && !any; i++)
			any = inv->files[i].pkg == (long)p && file_worth_showing(&inv->files[i], &ix);
		if (!any)
			continue;
		fprintf(o, "\npackage %s %s (%s, %s)\n", pk->name ? pk->name : "?",
		        pk->version ? pk->version : "", pk->kind,
		        pk->meta_path ? pk->meta_path : pk->meta_dir);
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
			fprintf(o, "  %s: %s\n", inv->gaps[i].path, inv->gaps[i].reason);
	}
	size_t sev[4] = { 0 };
	for (size_t i = 0; i < fs->n; i++)
		sev[fs->v[i].severity & 3]++;
	fprintf(o, "\nresult: %s (%zu errors, %zu warnings)\n",
	        sev[GA_SEV_ERROR] + sev[GA_SEV_CRITICAL] ? "FAIL"
	        : inv->n_gaps                            ? "INCOMPLETE"
	                                                 : "PASS",
	        sev[GA_SEV_ERROR] + sev[GA_SEV_CRITICAL], sev[GA_SEV_WARNING]);
	free(ix.v);
	free(ix.printed);
}

static const char *rule_text(const char *code)
{
	static const struct {
		const char *code, *text;
	} rules[] = {
		{ "GA-DEPS-WRONG-VENDOR",
		  "The artifact depends on a GPU vendor the target node does not have" },
		{ "GA-DEPS-CUDA-TOO-NEW",
		  "CUDA runtime newer than the target driver supports (cudaError 35)" },
		{ "GA-DEPS-NO-KERNEL-IMAGE",
		  "No cubin or JIT-able PTX for the target compute capability (209/222)" },
		{ "GA-DEPS-NO-GFX-CODE", "No code object for the target gfx (hipErrorNoBinaryForGpu)" },
		{ "GA-DEPS-DRIVER-LIB-BUNDLED", "A GPU driver library is bundled inside the artifact" },
		{ "GA-DEPS-UNRESOLVED-NEEDED", "A DT_NEEDED library the loader would not find" },
		{ "GA-DEPS-ISA-LEVEL", "x86-64 ISA level above the target CPU's (Illegal instruction)" },
		{ "GA-DEPS-POLICY-BACKEND", "Backend not allowed by the policy's artifacts rules" },
		{ "GA-DEPS-POLICY-ARCH", "Device code missing for an arch the policy requires" },
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(code, rules[i].code))
			return rules[i].text;
	return code;
}

static void write_sarif(struct ga_json *w, const struct ga_findings *fs)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "$schema");
	ga_json_str(w, "https://json.schemastore.org/sarif-2.1.0.json");
	ga_json_key(w, "version");
	ga_json_str(w, "2.1.0");
	ga_json_key(w, "runs");
	ga_json_arr_begin(w);
	ga_json_obj_begin(w);
	ga_json_key(w, "tool");
	ga_json_obj_begin(w);
	ga_json_key(w, "driver");
	ga_json_obj_begin(w);
	ga_json_key(w, "name");
	ga_json_str(w, "gpuaudit");
	ga_json_key(w, "version");
	ga_json_str(w, GA_VERSION);
	ga_json_key(w, "rules");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < fs->n; i++) {
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = !strcmp(fs->v[k].code, fs->v[i].code);
		if (dup)
			continue;
		ga_json_obj_begin(w);
		ga_json_key(w, "id");
		ga_json_str(w, fs->v[i].code);
		ga_json_key(w, "shortDescription");
		ga_json_obj_begin(w);
		ga_json_key(w, "text");
		ga_json_str(w, rule_text(fs->v[i].code));
		ga_json_obj_end(w);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	ga_json_obj_end(w);
	ga_json_key(w, "results");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < fs->n; i++) {
		const struct ga_finding *f = &fs->v[i];
		const char *subj = f->subject ? f->subject : "";
		const char *bang = strstr(subj, "!/");
		ga_json_obj_begin(w);
		ga_json_key(w, "ruleId");
		ga_json_str(w, f->code);
		ga_json_key(w, "level");
		ga_json_str(w, f->severity >= GA_SEV_ERROR     ? "error"
		               : f->severity == GA_SEV_WARNING ? "warning"
		                                               : "note");
		ga_json_key(w, "message");
		ga_json_obj_begin(w);
		ga_json_key(w, "text");
		struct ga_buf m;
		ga_buf_init(&m, 0);
		ga_buf_addf(&m, "%s: %s%s%s", subj, f->message, f->decision ? ". Fix: " : "",
		            f->decision ? f->decision : "");
		ga_json_str(w, m.data ? m.data : "");
		ga_buf_release(&m);
		ga_json_obj_end(w);
		ga_json_key(w, "locations");
		ga_json_arr_begin(w);
		ga_json_obj_begin(w);
		ga_json_key(w, "physicalLocation");
		ga_json_obj_begin(w);
		ga_json_key(w, "artifactLocation");
		ga_json_obj_begin(w);
		ga_json_key(w, "uri");
		/* an archive member is reported on its archive; the member path is the logical location */
		ga_json_strn(w, subj, bang ? (size_t)(bang - subj) : strlen(subj));
		ga_json_obj_end(w);
		ga_json_obj_end(w);
		if (bang) {
			ga_json_key(w, "logicalLocations");
			ga_json_arr_begin(w);
			ga_json_obj_begin(w);
			ga_json_key(w, "fullyQualifiedName");
			ga_json_str(w, subj);
			ga_json_obj_end(w);
			ga_json_arr_end(w);
		}
		ga_json_obj_end(w);
		ga_json_arr_end(w);
		ga_json_key(w, "properties");
		ga_json_obj_begin(w);
		for (size_t k = 0; k < f->n_evidence; k++) {
			ga_json_key(w, f->evidence[k].key);
			ga_json_str(w, f->evidence[k].value);
		}
		ga_json_obj_end(w);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

/* Fill the policy rules (and, without a node, the target itself) from a class. */
static int target_from_class(struct cli *cli, const struct ga_policy_class *c, struct ga_deps_target *t,
                             bool have_node)
{
	if (!have_node) {
		memset(t, 0, sizeof(*t));
		t->cuda_version = t->sm = t->rocm_major = -1;
		const char *b = c->artifact_backends.n ? c->artifact_backends.v[0] : NULL;
		if (!b)
			return cli_error(
			        cli, "deps", EXIT_USAGE,
			        "class %s has no artifacts.backends: give --for SNAPSHOT or --target too",
			        c->name);
		t->kind = !strcmp(b, "cuda")                        ? GA_TARGET_CUDA
		          : !strcmp(b, "hip") || !strcmp(b, "rocm") ? GA_TARGET_ROCM
		          : !strcmp(b, "sycl") || !strcmp(b, "level-zero") || !strcmp(b, "xpu")
		                  ? GA_TARGET_LEVEL_ZERO
		          : !strcmp(b, "cpu") ? GA_TARGET_CPU
		                              : GA_TARGET_NONE;
		if (t->kind == GA_TARGET_NONE)
			return cli_error(cli, "deps", EXIT_USAGE,
			                 "class %s: backend '%s' is not cuda, hip, sycl or cpu", c->name, b);
		for (size_t i = 0; i < c->artifact_archs.n; i++) {
			const char *a = c->artifact_archs.v[i];
			if (t->kind == GA_TARGET_CUDA && !strncmp(a, "sm_", 3) && t->sm < 0)
				t->sm = (int)strtol(a + 3, NULL, 10);
			if (t->kind == GA_TARGET_ROCM && !strncmp(a, "gfx", 3) && !t->gfx[0])
				snprintf(t->gfx, sizeof(t->gfx), "%s", a);
		}
		size_t n = strlen(c->name) + 16;
		t->name = ga_malloc(n);
		if (t->name)
			snprintf(t->name, n, "class %s", c->name);
	}
	return ga_deps_target_add_class_rules(t, c) < 0 ? EXIT_INTERNAL : EXIT_OK;
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
		{ "max-member-bytes", required_argument, NULL, 'm' },
		{ "max-total-bytes", required_argument, NULL, 'M' },
		{ "ld-library-path", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct ga_deps_opts o;
	ga_deps_opts_init(&o);
	const char *target_spec = NULL, *for_file = NULL, *class_name = NULL, *policy_file = NULL,
	           *ld_path = NULL;
	enum mode mode = MODE_TEXT;
	int modes = 0, verbose = 0, opt;
	bool compact = false;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "hjv", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			mode = MODE_JSON, modes |= 1;
			break;
		case 's':
			mode = MODE_SARIF, modes |= 2;
			break;
		case 'c':
			compact = true;
			break;
		case 'T':
			target_spec = optarg;
			break;
		case 'F':
			for_file = optarg;
			break;
		case 'C':
			class_name = optarg;
			break;
		case 'P':
			policy_file = optarg;
			break;
		case 'L':
			ld_path = optarg;
			break;
		case 'n':
			o.elf_flags |= GA_ELF_NO_DEVICE_CODE;
			break;
		case 'm':
		case 'M':
			if (parse_size(optarg, opt == 'm' ? &o.max_member_bytes : &o.max_total_bytes) < 0)
				return cli_error(cli, "deps", EXIT_USAGE,
				                 "--%s wants a byte count (e.g. 100M, 4G), not '%s'",
				                 opt == 'm' ? "max-member-bytes" : "max-total-bytes", optarg);
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			cli_usage(cli, cli_find("deps"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "deps", opts, argv);
		}
	}
	if (optind >= argc)
		return cli_error(cli, "deps", EXIT_USAGE, "no PATH to scan (try -h)");
	if (modes & (modes - 1))
		return cli_error(cli, "deps", EXIT_USAGE, "--json and --sarif exclude each other");
	if (target_spec && for_file)
		return cli_error(cli, "deps", EXIT_USAGE, "--target and --for exclude each other");
	if (!!class_name != !!policy_file)
		return cli_error(cli, "deps", EXIT_USAGE, "--for-class and --policy go together");

	struct ga_ctx *ctx = NULL;
	struct ga_node *node = NULL;
	struct ga_policy *pol = NULL;
	struct ga_deps_target t;
	struct ga_deps_inventory inv;
	struct ga_findings fs;
	struct ga_buf out;
	struct progress prog = { .to = cli->err };
	memset(&t, 0, sizeof(t));
	t.cuda_version = t.sm = t.rocm_major = -1;
	ga_deps_inventory_init(&inv);
	ga_findings_init(&fs);
	ga_buf_init(&out, 0);
	const char *target_from = NULL;
	int code = cli_ctx(cli, "deps", NULL, verbose, &ctx);
	if (code != EXIT_OK)
		return code;
	char errbuf[256] = "";
	if (target_spec && ga_deps_target_parse(target_spec, &t, errbuf, sizeof(errbuf)) < 0) {
		code = cli_error(cli, "deps", EXIT_USAGE, "--target %s: %s", target_spec, errbuf);
		goto out;
	}
	if (for_file) {
		int r = ga_node_load(ctx, for_file, &node);
		if (r < 0) {
			code = cli_error(cli, "deps", EXIT_USAGE, "--for %s: %s", for_file,
			                 ga_ctx_errmsg(ctx));
			goto out;
		}
		if (ga_deps_target_from_node(node, &t) < 0) {
			code = cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
			goto out;
		}
		target_from = for_file;
	}
	if (class_name) {
		int r = ga_policy_load(ctx, policy_file, &pol);
		if (r < 0) {
			code = cli_error(cli, "deps", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
			goto out;
		}
		const struct ga_policy_class *c = ga_policy_find_class(pol, class_name);
		if (!c) {
			code = cli_error(cli, "deps", EXIT_USAGE, "%s: no class named '%s'", policy_file,
			                 class_name);
			goto out;
		}
		if ((code = target_from_class(cli, c, &t, target_spec || for_file)) != EXIT_OK)
			goto out;
		if (!target_from && !target_spec)
			target_from = policy_file;
	}
	if (ld_path && !(t.ld_library_path = ga_strdup(ld_path))) {
		code = cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (mode == MODE_TEXT && isatty(STDERR_FILENO)) {
		o.progress = progress_cb;
		o.progress_udata = &prog;
	}
	/*
	 * libarchive converts every zip member's DOS time with mktime(), and with
	 * TZ unset glibc stats /etc/localtime on each call to see whether it
	 * changed: 520,000 stats for /usr/lib (3.6 s of 5.7). A TZ naming the same
	 * file is read once. deps starts no processes, so nothing else sees it.
	 */
	if (!getenv("TZ"))
		setenv("TZ", ":/etc/localtime", 0);
	bool unreadable = false;
	for (int i = optind; i < argc; i++) {
		int r = ga_deps_scan(ctx, &o, argv[i], &inv);
		if (r == -ENOMEM) {
			code = cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
			goto out;
		}
		if (r < 0) {
			if (prog.shown)
				fprintf(cli->err, "\r\033[K");
			prog.shown = false;
			cli_error(cli, "deps", EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
			unreadable = true;
		}
	}
	if (prog.shown)
		fprintf(cli->err, "\r\033[K");
	if (ga_deps_signals(&inv) < 0 || ga_deps_judge(&inv, &t, &fs) < 0) {
		code = cli_error(cli, "deps", EXIT_INTERNAL, "out of memory");
		goto out;
	}
	ga_findings_sort(&fs);
	if (mode == MODE_TEXT) {
		print_text(cli->out, &inv, &t, &fs, target_from);
	} else {
		struct ga_json w;
		ga_json_init(&w, &out, !compact);
		if (mode == MODE_JSON)
			ga_deps_write_json(&inv, &t, &fs, &w);
		else
			write_sarif(&w, &fs);
		if (ga_json_finish(&w) < 0) {
			code = cli_error(cli, "deps", EXIT_INTERNAL, "JSON writer failed");
			goto out;
		}
		if (compact)
			ga_buf_addc(&out, '\n');
		fwrite(out.data, 1, out.len, cli->out);
	}
	/* a PATH that cannot be read first; then errors; then anything left unread (a cap, damaged input) */
	code = unreadable                                      ? EXIT_USAGE
	       : ga_findings_max_severity(&fs) >= GA_SEV_ERROR ? EXIT_PROBLEMS
	       : inv.n_gaps                                    ? EXIT_USAGE
	                                                       : EXIT_OK;
out:
	ga_buf_release(&out);
	ga_findings_release(&fs);
	ga_deps_inventory_release(&inv);
	ga_deps_target_release(&t);
	ga_policy_free(pol);
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}
