/*
 * runtime.c - user-space GPU runtimes visible on the host: the driver's
 * libcuda and libnvidia-ml (their file names carry the driver version),
 * HIP, the ROCm version file, the Level Zero loader, the OpenCL ICD loader
 * and ICD files. Libraries are found where the dynamic loader looks: the
 * ld.so configuration under the root plus the default directories.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

static const char *const default_dirs[] = {
	"lib",
	"usr/lib",
	"lib64",
	"usr/lib64",
	"lib/x86_64-linux-gnu",
	"usr/lib/x86_64-linux-gnu",
	"lib/aarch64-linux-gnu",
	"usr/lib/aarch64-linux-gnu",
};

static const struct {
	const char *prefix; /* file name up to and including ".so." */
	const char *name;
} stems[] = {
	{ "libcuda.so.", "libcuda" },         { "libnvidia-ml.so.", "libnvidia-ml" },
	{ "libamdhip64.so.", "libamdhip64" }, { "libze_loader.so.", "libze_loader" },
	{ "libOpenCL.so.", "libOpenCL" },
};

#define MAX_DIRS 256
#define MAX_CONF_DEPTH 4

struct dirs {
	char *v[MAX_DIRS];
	size_t n;
};

static void dirs_add(struct ga_col *c, struct dirs *d, const char *dir)
{
	char *norm = ga_path_normalize(dir);
	if (!ga_col_ok(c, norm))
		return;
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], norm)) {
			ga_free(norm);
			return;
		}
	if (d->n < MAX_DIRS && *norm)
		d->v[d->n++] = norm;
	else
		ga_free(norm);
}

static void parse_conf(struct ga_col *c, struct dirs *d, const char *file, int depth);

static void include_glob(struct ga_col *c, struct dirs *d, const char *pattern, int depth)
{
	/* "include /etc/ld.so.conf.d/NAME.conf" patterns: glob on the last component only */
	char *copy = ga_strdup(pattern);
	if (!ga_col_ok(c, copy))
		return;
	char *slash = strrchr(copy, '/');
	const char *dir = slash ? copy : ".";
	const char *pat = slash ? slash + 1 : copy;
	if (slash)
		*slash = '\0';
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s", *dir ? dir : "/") == 0) {
		for (char **p = names; *p; p++) {
			if (fnmatch(pat, *p, 0) != 0)
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dir, *p);
			parse_conf(c, d, path, depth + 1);
		}
		ga_strv_free(names);
	}
	ga_free(copy);
}

static void parse_conf(struct ga_col *c, struct dirs *d, const char *file, int depth)
{
	if (depth > MAX_CONF_DEPTH) {
		ga_col_gap(c, file, "include nesting too deep");
		return;
	}
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_col_read(c, GA_COL_OPT, &b, "%s", file) < 0) {
		ga_buf_release(&b);
		return;
	}
	char *save = NULL;
	for (char *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "#")] = '\0';
		ga_strstrip(line);
		if (!*line)
			continue;
		if (ga_startswith(line, "include") && (line[7] == ' ' || line[7] == '\t')) {
			char *pat = ga_strstrip(line + 8);
			char base[4096];
			if (pat[0] != '/') { /* relative includes are relative to the including file */
				const char *slash = strrchr(file, '/');
				snprintf(base, sizeof(base), "%.*s/%s", slash ? (int)(slash - file) : 0, file,
				         pat);
				pat = base;
			}
			include_glob(c, d, pat, depth);
		} else if (line[0] == '/') {
			dirs_add(c, d, line);
		}
	}
	ga_buf_release(&b);
}

static int cmp_rt(const void *a, const void *b)
{
	const struct ga_runtime *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	return r ? r : strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

static struct ga_runtime *rt_add(struct ga_col *c, const char *name, const char *version, const char *path)
{
	struct ga_node *n = c->node;
	struct ga_runtime *rt = ga_array_push((void **)&n->runtimes, &n->n_runtimes, sizeof(*rt));
	if (!ga_col_ok(c, rt))
		return NULL;
	rt->name = ga_strdup(name);
	rt->path = ga_strdup(path);
	ga_col_ok(c, rt->name);
	ga_col_ok(c, rt->path);
	if (version) {
		rt->version = ga_strdup(version);
		ga_col_ok(c, rt->version);
	}
	return rt;
}

static void scan_dir(struct ga_col *c, const char *dir)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s", dir) < 0)
		return;
	for (size_t s = 0; s < GA_ARRAY_SIZE(stems); s++) {
		/* Most specific version in this directory: libcuda.so.550.135 over libcuda.so.1 */
		const char *best = NULL;
		for (char **p = names; *p; p++) {
			if (!ga_startswith(*p, stems[s].prefix))
				continue;
			const char *v = *p + strlen(stems[s].prefix);
			if (!*v)
				continue;
			if (!best || strlen(v) > strlen(best + strlen(stems[s].prefix)))
				best = *p;
		}
		if (!best)
			continue;
		const char *v = best + strlen(stems[s].prefix);
		char path[4096];
		snprintf(path, sizeof(path), "/%s/%s", dir, best);
		/* a bare soname major ("1") is not a version */
		rt_add(c, stems[s].name, strchr(v, '.') ? v : NULL, path);
	}
	ga_strv_free(names);
}

void ga_collect_runtimes(struct ga_col *c)
{
	struct dirs d = { .n = 0 };
	parse_conf(c, &d, "etc/ld.so.conf", 0);
	for (size_t i = 0; i < GA_ARRAY_SIZE(default_dirs); i++)
		dirs_add(c, &d, default_dirs[i]);
	/* lib -> usr/lib style links make two names for one directory: skip the aliases */
	for (size_t i = 0; i < d.n; i++) {
		char *real = NULL;
		bool alias = false;
		if (ga_fs_resolve_link(c->ctx, d.v[i], &real) == 0) {
			for (size_t k = 0; k < d.n && !alias; k++)
				alias = k != i && strcmp(real, d.v[i]) != 0 && !strcmp(real, d.v[k]);
			ga_free(real);
		}
		/* a first component that is a link (lib -> usr/lib) */
		const char *slash = strchr(d.v[i], '/');
		if (!alias && slash) {
			char first[256];
			snprintf(first, sizeof(first), "%.*s", (int)(slash - d.v[i]), d.v[i]);
			char *t = NULL;
			if (ga_fs_resolve_link(c->ctx, first, &t) == 0) {
				if (strcmp(t, first) != 0) {
					char full[4096];
					snprintf(full, sizeof(full), "%s%s", t, slash);
					for (size_t k = 0; k < d.n && !alias; k++)
						alias = k != i && !strcmp(full, d.v[k]);
				}
				ga_free(t);
			}
		}
		if (!alias)
			scan_dir(c, d.v[i]);
	}
	for (size_t i = 0; i < d.n; i++)
		ga_free(d.v[i]);

	char *rocm = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &rocm, "opt/rocm/.info/version") == 0 && *rocm)
		rt_add(c, "rocm", rocm, "/opt/rocm/.info/version");
	ga_free(rocm);

	char **icds = NULL;
	if (ga_col_list(c, &icds, NULL, "etc/OpenCL/vendors") == 0) {
		for (char **p = icds; *p; p++) {
			if (fnmatch("*.icd", *p, 0) != 0)
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "/etc/OpenCL/vendors/%s", *p);
			struct ga_runtime *rt = rt_add(c, "opencl-icd", NULL, path);
			if (rt)
				ga_col_attr(c, GA_COL_REQ, &rt->target, "etc/OpenCL/vendors/%s", *p);
		}
		ga_strv_free(icds);
	}
	if (c->node->n_runtimes > 1)
		qsort(c->node->runtimes, c->node->n_runtimes, sizeof(*c->node->runtimes), cmp_rt);
}
