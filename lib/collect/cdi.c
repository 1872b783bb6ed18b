/*
 * cdi.c - the Container Device Interface specs of the node (/etc/cdi and
 * /var/run/cdi; JSON or YAML) and the MIG devices the NVIDIA driver exposes,
 * for the check that a spec still matches the node: a spec written by
 * `nvidia-ctk cdi generate` names every device node and driver library by
 * path, and one left behind by a driver upgrade names libraries that are gone.
 *
 * The spec format is public (tags.cncf.io/container-device-interface,
 * specs-go/config.go): cdiVersion, kind, devices[] {name, containerEdits},
 * containerEdits {env, deviceNodes {path, hostPath, ...}, mounts {hostPath,
 * containerPath, options}, hooks {hookName, path, ...}}. YAML goes through
 * libfyaml after the prescan that keeps inputs libfyaml 0.7.12 mishandles away
 * from it (lib/core/yaml-scan.c), and is turned into the same jansson tree a
 * JSON spec parses into, so one walker reads both. Only the two spec
 * directories and the driver's MIG capability directories are listed: no tree
 * is walked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "../core/yaml-node.h"
#include "../core/yaml-scan.h"
#include "collect.h"
#include "gpuaudit/container-read.h"

#define MAX_SPECS_PER_DIR 64
#define MAX_MIG_PER_GPU 64

/* --- YAML to a jansson tree --- */

struct ycv {
	char err[256];
	bool nomem;
};

static void ycv_fail(struct ycv *y, struct fy_node *n, const char *what)
{
	if (y->err[0])
		return;
	const struct fy_mark *m = ga_yaml_node_mark(n);
	snprintf(y->err, sizeof(y->err), "%d:%d: %s", m ? m->line + 1 : 1, m ? m->column + 1 : 1, what);
}

static json_t *ycv_scalar(struct ycv *y, struct fy_node *n)
{
	size_t len = 0;
	const char *t = fy_node_get_scalar(n, &len);
	if (!t)
		t = "", len = 0;
	if (fy_node_get_style(n) == FYNS_PLAIN) {
		if (len == 0 || (len == 1 && t[0] == '~') || (len == 4 && !memcmp(t, "null", 4)))
			return json_null();
		if (len == 4 && !memcmp(t, "true", 4))
			return json_true();
		if (len == 5 && !memcmp(t, "false", 5))
			return json_false();
		char num[24];
		if (len < sizeof(num)) {
			memcpy(num, t, len);
			num[len] = '\0';
			uint64_t v;
			if (num[0] >= '0' && num[0] <= '9' && ga_parse_u64(num, 10, &v) == 0 &&
			    v <= (uint64_t)INT64_MAX)
				return json_integer((json_int_t)v);
		}
	}
	json_t *s = json_stringn(t, len);
	if (!s && len && memchr(t, '\0', len) == NULL)
		y->nomem = true;
	else if (!s)
		ycv_fail(y, n, "a string with a NUL character");
	return s;
}

static json_t *ycv_node(struct ycv *y, struct fy_node *n)
{
	if (!n)
		return json_null();
	if (fy_node_is_alias(n)) {
		/* libfyaml marks the alias's name: report at its '*' */
		const struct fy_mark *m = ga_yaml_node_mark(n);
		if (!y->err[0])
			snprintf(y->err, sizeof(y->err), "%d:%d: YAML aliases are not read in a CDI spec",
			         m ? m->line + 1 : 1, m && m->column > 0 ? m->column : 1);
		return NULL;
	}
	void *it = NULL;
	if (fy_node_is_mapping(n)) {
		json_t *o = json_object();
		if (!o) {
			y->nomem = true;
			return NULL;
		}
		struct fy_node_pair *pr;
		while ((pr = fy_node_mapping_iterate(n, &it))) {
			struct fy_node *k = fy_node_pair_key(pr);
			if (!k || !fy_node_is_scalar(k) || fy_node_is_alias(k)) {
				ycv_fail(y, k ? k : n, "a mapping key that is not a string");
				json_decref(o);
				return NULL;
			}
			size_t kl = 0;
			const char *kt = fy_node_get_scalar(k, &kl);
			char key[256];
			if (!kt || kl >= sizeof(key) || memchr(kt, '\0', kl)) {
				ycv_fail(y, k, "a mapping key longer than 255 bytes");
				json_decref(o);
				return NULL;
			}
			memcpy(key, kt, kl);
			key[kl] = '\0';
			json_t *v = ycv_node(y, fy_node_pair_value(pr));
			if (!v || json_object_set_new(o, key, v) < 0) {
				if (!v && !y->err[0])
					y->nomem = true;
				json_decref(o);
				return NULL;
			}
		}
		return o;
	}
	if (fy_node_is_sequence(n)) {
		json_t *a = json_array();
		if (!a) {
			y->nomem = true;
			return NULL;
		}
		struct fy_node *item;
		while ((item = fy_node_sequence_iterate(n, &it))) {
			json_t *v = ycv_node(y, item);
			if (!v || json_array_append_new(a, v) < 0) {
				if (!v && !y->err[0])
					y->nomem = true;
				json_decref(a);
				return NULL;
			}
		}
		return a;
	}
	return ycv_scalar(y, n);
}

static void diag_quiet(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	(void)user;
	(void)buf;
	(void)len;
}

/* 0 with *ret, 0 with err set (bad input), or -ENOMEM. */
static int yaml_to_json(const char *text, size_t len, json_t **ret, char *err, size_t errlen)
{
	struct ga_yscan ys;
	if (ga_yaml_prescan(text, len, &ys) < 0) {
		const char *what = ys.status == GA_YSCAN_DEEP    ? "nested too deep"
		                   : ys.status == GA_YSCAN_NODES ? "too many YAML nodes for a CDI spec"
		                   : ys.status == GA_YSCAN_SQRUN
		                           ? "two escaped quotes ('') in a row in a single-quoted string"
		                   : ys.status == GA_YSCAN_QKEY
		                           ? "an explicit mapping key ('? '): not supported"
		                           : ys.why;
		snprintf(err, errlen, "%u:%u: %s", ys.line, ys.col, what ? what : "not YAML text");
		return 0;
	}
	int r = 0;
	struct fy_diag *diag = NULL;
	struct fy_document *doc = NULL;
	struct fy_diag_cfg dcfg;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = diag_quiet;
	dcfg.colorize = false;
	diag = fy_diag_create(&dcfg);
	if (!diag)
		return -ENOMEM;
	fy_diag_set_collect_errors(diag, true);
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG, .diag = diag };
	doc = fy_document_build_from_string(&cfg, text, len);
	if (!doc) {
		void *it = NULL;
		struct fy_diag_error *e = fy_diag_errors_iterate(diag, &it);
		snprintf(err, errlen, "%d:%d: not valid YAML: %s", e && e->line > 0 ? e->line : 1,
		         e && e->column > 0 ? e->column : 1, e && e->msg ? e->msg : "empty document");
		goto out;
	}
	struct ycv y = { { 0 }, false };
	json_t *j = ycv_node(&y, fy_document_root(doc));
	if (y.nomem) {
		json_decref(j);
		r = -ENOMEM;
	} else if (y.err[0]) {
		json_decref(j);
		snprintf(err, errlen, "%s", y.err);
	} else {
		*ret = j;
	}
out:
	if (doc)
		fy_document_destroy(doc);
	fy_diag_destroy(diag);
	return r;
}

/* --- the spec walker (one for both formats) --- */

struct walk {
	struct ga_cdi_spec *spec;
	char err[256];
	int nomem;
};

/* snprintf for paths and messages that are cut at the buffer's end on purpose */
static void pathf(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, n, fmt, ap);
	va_end(ap);
}

static void wfail(struct walk *w, const char *path, const char *what)
{
	if (!w->err[0])
		pathf(w->err, sizeof(w->err), "%s: %s", path, what);
}

static void push_unique(struct walk *w, struct ga_strv *sv, const char *s)
{
	if (sv->n >= GA_CDI_MAX_PATHS || ga_strv_contains(sv, s))
		return;
	if (ga_strv_push(sv, s) < 0)
		w->nomem = -ENOMEM;
}

/* A string member (absent and null: NULL); a wrong type is an error at path.key. */
static const char *wstr(struct walk *w, const json_t *obj, const char *key, const char *path)
{
	const json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		char p[200];
		snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
		wfail(w, p, "expected a string");
		return NULL;
	}
	return json_string_value(v);
}

/* An array member, or NULL (absent, null; a wrong type is an error). */
static const json_t *warr(struct walk *w, const json_t *obj, const char *key, const char *path)
{
	const json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_array(v)) {
		char p[200];
		snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
		wfail(w, p, "expected a list");
		return NULL;
	}
	return v;
}

const char *ga_cdi_lib_version(const char *path, const char *stem)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t sl = strlen(stem);
	if (strncmp(base, stem, sl) != 0 || strncmp(base + sl, ".so.", 4) != 0)
		return NULL;
	const char *v = base + sl + 4;
	/* a driver version has a dot ("550.54.15", "580.95.05"); "libcuda.so.1" is the soname */
	if (!(v[0] >= '0' && v[0] <= '9') || !strchr(v, '.'))
		return NULL;
	for (const char *p = v; *p; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return NULL;
	return v;
}

static bool is_library(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *so = strstr(base, ".so");
	return so && (so[3] == '\0' || so[3] == '.');
}

static void walk_edits(struct walk *w, const json_t *e, const char *path, struct ga_cdi_device *dev)
{
	char p[200];
	if (!e || json_is_null(e))
		return;
	if (!json_is_object(e)) {
		wfail(w, path, "expected a mapping");
		return;
	}
	const json_t *env = warr(w, e, "env", path);
	size_t i;
	const json_t *it;
	json_array_foreach(env, i, it)
	{
		if (!json_is_string(it)) {
			snprintf(p, sizeof(p), "%s.env[%zu]", path, i);
			wfail(w, p, "expected a string \"NAME=value\"");
		}
	}
	const json_t *nodes = warr(w, e, "deviceNodes", path);
	json_array_foreach(nodes, i, it)
	{
		snprintf(p, sizeof(p), "%s.deviceNodes[%zu]", path, i);
		if (!json_is_object(it)) {
			wfail(w, p, "expected a mapping");
			continue;
		}
		const char *dpath = wstr(w, it, "path", p);
		const char *host = wstr(w, it, "hostPath", p);
		if (!dpath) {
			wfail(w, p, "a device node needs a path");
			continue;
		}
		const json_t *mj = json_object_get(it, "major");
		if (mj && !json_is_null(mj) && !json_is_integer(mj))
			wfail(w, p, "major: expected an integer");
		const char *hp = host ? host : dpath;
		push_unique(w, &w->spec->device_nodes, hp);
		if (dev)
			push_unique(w, &dev->device_nodes, hp);
	}
	const json_t *mounts = warr(w, e, "mounts", path);
	json_array_foreach(mounts, i, it)
	{
		snprintf(p, sizeof(p), "%s.mounts[%zu]", path, i);
		if (!json_is_object(it)) {
			wfail(w, p, "expected a mapping");
			continue;
		}
		const char *host = wstr(w, it, "hostPath", p);
		const char *cpath = wstr(w, it, "containerPath", p);
		if (!host || !cpath) {
			wfail(w, p, "a mount needs hostPath and containerPath");
			continue;
		}
		if (is_library(host))
			push_unique(w, &w->spec->libraries, host);
		else
			push_unique(w, &w->spec->mounts, host);
	}
	const json_t *hooks = warr(w, e, "hooks", path);
	json_array_foreach(hooks, i, it)
	{
		snprintf(p, sizeof(p), "%s.hooks[%zu]", path, i);
		if (!json_is_object(it)) {
			wfail(w, p, "expected a mapping");
			continue;
		}
		const char *name = wstr(w, it, "hookName", p);
		const char *hpath = wstr(w, it, "path", p);
		if (!name || !hpath) {
			wfail(w, p, "a hook needs hookName and path");
			continue;
		}
		push_unique(w, &w->spec->hooks, hpath);
	}
}

static void walk_spec(struct walk *w, const json_t *root)
{
	struct ga_cdi_spec *s = w->spec;
	if (!json_is_object(root)) {
		wfail(w, "spec", "expected a mapping with cdiVersion, kind and devices");
		return;
	}
	const char *ver = wstr(w, root, "cdiVersion", "");
	const char *kind = wstr(w, root, "kind", "");
	if ((ver && !(s->cdi_version = ga_strdup(ver))) || (kind && !(s->kind = ga_strdup(kind)))) {
		w->nomem = -ENOMEM;
		return;
	}
	if (!ver)
		wfail(w, "cdiVersion", "missing");
	if (!kind)
		wfail(w, "kind", "missing");
	const json_t *devs = warr(w, root, "devices", "");
	size_t i;
	const json_t *it;
	json_array_foreach(devs, i, it)
	{
		char p[64];
		snprintf(p, sizeof(p), "devices[%zu]", i);
		if (i >= GA_CDI_MAX_DEVICES) {
			wfail(w, p, "more devices than gpuaudit reads from one spec (4096)");
			break;
		}
		if (!json_is_object(it)) {
			wfail(w, p, "expected a mapping with name and containerEdits");
			continue;
		}
		const char *name = wstr(w, it, "name", p);
		struct ga_cdi_device *d = ga_array_push((void **)&s->devices, &s->n_devices, sizeof(*d));
		if (!d || (name && !(d->name = ga_strdup(name)))) {
			w->nomem = -ENOMEM;
			return;
		}
		if (!name)
			wfail(w, p, "a device needs a name");
		char ep[96];
		snprintf(ep, sizeof(ep), "%s.containerEdits", p);
		walk_edits(w, json_object_get(it, "containerEdits"), ep, d);
		if (w->nomem)
			return;
	}
	if (!devs)
		wfail(w, "devices", "missing (a spec names at least one device)");
	walk_edits(w, json_object_get(root, "containerEdits"), "containerEdits", NULL);
	/* the driver the spec was generated for: its libcuda (else libnvidia-ml) file name */
	static const char *const stems[] = { "libcuda", "libnvidia-ml" };
	for (size_t k = 0; k < GA_ARRAY_SIZE(stems) && !s->driver_version; k++)
		for (size_t j = 0; j < s->libraries.n && !s->driver_version; j++) {
			const char *v = ga_cdi_lib_version(s->libraries.v[j], stems[k]);
			if (v && !(s->driver_version = ga_strdup(v)))
				w->nomem = -ENOMEM;
		}
}

/*
 * --- the owners' rules ---
 *
 * What tags.cncf.io/container-device-interface refuses when it loads a spec
 * (pkg/cdi/spec.go Spec.validate, device.go, container-edits.go Validate,
 * pkg/parser ValidateVendorName/ClassName/DeviceName, specs-go/version.go
 * ValidateVersion with the requiresV* functions, specs-go/config.go for the
 * keys each object has; read at commit 05ae4b5 of that repository). Facts of
 * the format, written anew here: docs/container.md lists them and the
 * departures kept.
 */

enum ftype { F_STR, F_STRS, F_I64, F_U32, F_U32S, F_BOOL, F_MAPSTR, F_OBJ, F_OBJS };

struct field {
	const char *key;
	enum ftype t;
	const struct field *sub; /* F_OBJ, F_OBJS: the members of each object */
};

static const struct field f_node[] = {
	{ "path", F_STR, NULL },  { "hostPath", F_STR, NULL }, { "type", F_STR, NULL },
	{ "major", F_I64, NULL }, { "minor", F_I64, NULL },    { "fileMode", F_U32, NULL },
	{ "uid", F_U32, NULL },   { "gid", F_U32, NULL },      { "permissions", F_STR, NULL },
	{ NULL, F_STR, NULL },
};
static const struct field f_mount[] = {
	{ "hostPath", F_STR, NULL }, { "containerPath", F_STR, NULL },
	{ "options", F_STRS, NULL }, { "type", F_STR, NULL },
	{ NULL, F_STR, NULL },
};
static const struct field f_hook[] = {
	{ "hookName", F_STR, NULL }, { "path", F_STR, NULL },    { "args", F_STRS, NULL },
	{ "env", F_STRS, NULL },     { "timeout", F_I64, NULL }, { NULL, F_STR, NULL },
};
static const struct field f_rdt[] = {
	{ "closID", F_STR, NULL },    { "l3CacheSchema", F_STR, NULL },     { "memBwSchema", F_STR, NULL },
	{ "schemata", F_STRS, NULL }, { "enableMonitoring", F_BOOL, NULL }, { NULL, F_STR, NULL },
};
static const struct field f_net[] = {
	{ "hostInterfaceName", F_STR, NULL },
	{ "name", F_STR, NULL },
	{ NULL, F_STR, NULL },
};
static const struct field f_edits[] = {
	{ "env", F_STRS, NULL },
	{ "deviceNodes", F_OBJS, f_node },
	{ "netDevices", F_OBJS, f_net },
	{ "hooks", F_OBJS, f_hook },
	{ "mounts", F_OBJS, f_mount },
	{ "intelRdt", F_OBJ, f_rdt },
	{ "additionalGids", F_U32S, NULL },
	{ NULL, F_STR, NULL },
};
static const struct field f_device[] = {
	{ "name", F_STR, NULL },
	{ "annotations", F_MAPSTR, NULL },
	{ "containerEdits", F_OBJ, f_edits },
	{ NULL, F_STR, NULL },
};
static const struct field f_spec[] = {
	{ "cdiVersion", F_STR, NULL },        { "kind", F_STR, NULL },
	{ "annotations", F_MAPSTR, NULL },    { "devices", F_OBJS, f_device },
	{ "containerEdits", F_OBJ, f_edits }, { NULL, F_STR, NULL },
};

static bool int_in(const json_t *v, json_int_t lo, json_int_t hi)
{
	return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

static void check_fields(struct walk *w, const json_t *o, const struct field *fs, const char *path);

/* One member against its type; null is the Go zero value and always fits. */
static void check_value(struct walk *w, const json_t *v, const struct field *f, const char *p)
{
	char q[200];
	size_t i;
	const json_t *it;
	const char *k;
	if (json_is_null(v))
		return;
	switch (f->t) {
	case F_STR:
		if (!json_is_string(v))
			wfail(w, p, "expected a string");
		break;
	case F_BOOL:
		if (!json_is_boolean(v))
			wfail(w, p, "expected true or false");
		break;
	case F_I64:
		if (!json_is_integer(v))
			wfail(w, p, "expected an integer");
		break;
	case F_U32:
		if (!int_in(v, 0, 4294967295))
			wfail(w, p, "expected an integer from 0 to 4294967295");
		break;
	case F_STRS:
	case F_U32S:
	case F_OBJS:
		if (!json_is_array(v)) {
			wfail(w, p, "expected a list");
			break;
		}
		json_array_foreach(v, i, it)
		{
			pathf(q, sizeof(q), "%s[%zu]", p, i);
			if (f->t == F_STRS && !json_is_string(it))
				wfail(w, q, "expected a string");
			else if (f->t == F_U32S && !int_in(it, 0, 4294967295))
				wfail(w, q, "expected an integer from 0 to 4294967295");
			else if (f->t == F_OBJS && !json_is_object(it))
				wfail(w, q, "expected a mapping");
			else if (f->t == F_OBJS)
				check_fields(w, it, f->sub, q);
		}
		break;
	case F_MAPSTR:
		if (!json_is_object(v)) {
			wfail(w, p, "expected a mapping of strings");
			break;
		}
		json_object_foreach((json_t *)v, k, it)
		{
			if (!json_is_string(it)) {
				pathf(q, sizeof(q), "%s.%s", p, k);
				wfail(w, q, "expected a string");
			}
		}
		break;
	case F_OBJ:
		if (!json_is_object(v))
			wfail(w, p, "expected a mapping");
		else
			check_fields(w, v, f->sub, p);
		break;
	}
}

/* Every member of o is one the format defines, with its type (config.go). */
static void check_fields(struct walk *w, const json_t *o, const struct field *fs, const char *path)
{
	const char *k;
	const json_t *v;
	char p[200];
	json_object_foreach((json_t *)o, k, v)
	{
		pathf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", k);
		const struct field *f = fs;
		while (f->key && strcmp(f->key, k))
			f++;
		if (!f->key)
			wfail(w, p, "not a key of the CDI format");
		else
			check_value(w, v, f, p);
		if (w->err[0])
			return;
	}
}

/* A member as a string: absent, null (and, after check_fields, nothing else) read as "". */
static const char *sget(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static size_t alen(const json_t *o, const char *key)
{
	return json_array_size(json_object_get(o, key));
}

static bool present(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return v && !json_is_null(v);
}

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_letter(c) || (c >= '0' && c <= '9');
}

/* pkg/parser: a letter (vendor, class) or alphanumeric (device) first, alphanumeric last, extra inside. */
static bool name_ok(const char *s, size_t len, const char *extra, bool letter_first)
{
	if (!len || !(letter_first ? is_letter(s[0]) : is_alnum(s[0])) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 1; i + 1 < len; i++)
		if (!is_alnum(s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

/* ValidateEnv: each entry is NAME=value with a NAME of at least one byte. */
static void check_env(struct walk *w, const json_t *env, const char *path)
{
	size_t i;
	const json_t *it;
	char p[200];
	json_array_foreach(env, i, it)
	{
		const char *s = json_string_value(it);
		const char *eq = s ? strchr(s, '=') : NULL;
		if (!eq || eq == s) {
			pathf(p, sizeof(p), "%s[%zu]", path, i);
			wfail(w, p, "an environment entry is NAME=value");
		}
	}
}

static bool hook_name_ok(const char *s)
{
	static const char *const names[] = { "prestart",       "createRuntime", "createContainer",
		                             "startContainer", "poststart",     "poststop" };
	for (size_t i = 0; i < GA_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* ContainerEdits.Validate, for the spec's edits and for each device's. */
static void check_edits(struct walk *w, const json_t *e, const char *path)
{
	char p[200];
	size_t i;
	const json_t *it;
	if (!json_is_object(e))
		return;
	pathf(p, sizeof(p), "%s.env", path);
	check_env(w, json_object_get(e, "env"), p);
	json_array_foreach(json_object_get(e, "deviceNodes"), i, it)
	{
		pathf(p, sizeof(p), "%s.deviceNodes[%zu]", path, i);
		const char *type = sget(it, "type"), *perm = sget(it, "permissions");
		if (!*sget(it, "path"))
			wfail(w, p, "a device node's path is empty");
		else if (*type && (type[1] || !strchr("bcup", type[0])))
			wfail(w, p, "type is b, c, u or p (or left out)");
		else if (strcmp(perm, "none") && strspn(perm, "rwm") != strlen(perm))
			wfail(w, p, "permissions are made of r, w and m, or are \"none\"");
	}
	json_array_foreach(json_object_get(e, "hooks"), i, it)
	{
		pathf(p, sizeof(p), "%s.hooks[%zu]", path, i);
		if (!hook_name_ok(sget(it, "hookName")))
			wfail(w, p,
			      "hookName is one of prestart, createRuntime, createContainer, startContainer, "
			      "poststart, poststop");
		else if (!*sget(it, "path"))
			wfail(w, p, "a hook's path is empty");
		pathf(p, sizeof(p), "%s.hooks[%zu].env", path, i);
		check_env(w, json_object_get(it, "env"), p);
	}
	json_array_foreach(json_object_get(e, "mounts"), i, it)
	{
		pathf(p, sizeof(p), "%s.mounts[%zu]", path, i);
		if (!*sget(it, "hostPath"))
			wfail(w, p, "a mount's hostPath is empty");
		else if (!*sget(it, "containerPath"))
			wfail(w, p, "a mount's containerPath is empty");
	}
	const json_t *rdt = json_object_get(e, "intelRdt");
	if (json_is_object(rdt)) {
		const char *c = sget(rdt, "closID");
		if (strcmp(c, "/") &&
		    (strlen(c) >= 4096 || !strcmp(c, ".") || !strcmp(c, "..") || strpbrk(c, "/\n"))) {
			pathf(p, sizeof(p), "%s.intelRdt.closID", path);
			wfail(w, p,
			      "not a name for a resctrl group (no '/' or newline, not . or .., under 4096 "
			      "bytes)");
		}
	}
	const json_t *nets = json_object_get(e, "netDevices");
	if (json_array_size(nets) > GA_CDI_MAX_PATHS) { /* each is compared with those before it */
		pathf(p, sizeof(p), "%s.netDevices", path);
		wfail(w, p, "more entries than gpuaudit reads from one list (4096)");
		return;
	}
	json_array_foreach(nets, i, it)
	{
		pathf(p, sizeof(p), "%s.netDevices[%zu]", path, i);
		const char *host = sget(it, "hostInterfaceName"), *name = sget(it, "name");
		if (!*host)
			wfail(w, p, "hostInterfaceName is empty");
		else if (!*name)
			wfail(w, p, "name is empty");
		for (size_t j = 0; j < i && !w->err[0]; j++) {
			const json_t *o = json_array_get(nets, j);
			if (!strcmp(sget(o, "hostInterfaceName"), host))
				wfail(w, p, "hostInterfaceName is given twice");
			else if (!strcmp(sget(o, "name"), name))
				wfail(w, p, "name is given twice");
		}
	}
}

/* ContainerEdits.isEmpty: nothing a runtime would apply. */
static bool edits_empty(const json_t *e)
{
	return !json_is_object(e) ||
	       (!alen(e, "env") && !alen(e, "deviceNodes") && !alen(e, "hooks") && !alen(e, "mounts") &&
	        !alen(e, "additionalGids") && !present(e, "intelRdt") && !alen(e, "netDevices"));
}

/* The released versions, oldest first (specs-go/version.go). */
static const char *const cdi_versions[] = { "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",
	                                    "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0" };

static int version_index(const char *v)
{
	if (v[0] == 'v') /* an optional leading v: "v1.1.0" is 1.1.0 */
		v++;
	for (size_t i = 0; i < GA_ARRAY_SIZE(cdi_versions); i++)
		if (!strcmp(v, cdi_versions[i]))
			return (int)i;
	return -1;
}

/* The spec's edits (0), then device i-1's. */
static const json_t *nth_edits(const json_t *root, size_t i)
{
	if (i == 0)
		return json_object_get(root, "containerEdits");
	return json_object_get(json_array_get(json_object_get(root, "devices"), i - 1), "containerEdits");
}

/*
 * The oldest version that has every feature the spec uses (the requiresV*
 * functions, newest first), with the feature that needs it in *why.
 */
static int required_version(const json_t *root, const char **why)
{
	const json_t *devs = json_object_get(root, "devices");
	size_t ne = 1 + json_array_size(devs);
	size_t i, j;
	const json_t *it;
	for (i = 0; i < ne; i++) { /* 1.1.0 */
		const json_t *rdt = json_object_get(nth_edits(root, i), "intelRdt");
		if (json_is_object(rdt) &&
		    (present(rdt, "schemata") || json_is_true(json_object_get(rdt, "enableMonitoring"))))
			return *why = "intelRdt schemata or enableMonitoring", 9;
		if (alen(nth_edits(root, i), "netDevices"))
			return *why = "netDevices", 9;
	}
	for (i = 0; i < ne; i++) { /* 0.7.0 */
		if (present(nth_edits(root, i), "intelRdt"))
			return *why = "intelRdt", 6;
		if (alen(nth_edits(root, i), "additionalGids"))
			return *why = "additionalGids", 6;
	}
	/* 0.6.0 */
	if (json_object_size(json_object_get(root, "annotations")))
		return *why = "annotations", 5;
	json_array_foreach(devs, i, it)
	{
		if (json_object_size(json_object_get(it, "annotations")))
			return *why = "annotations on a device", 5;
	}
	const char *slash = strchr(sget(root, "kind"), '/');
	if (slash && strchr(slash + 1, '.'))
		return *why = "a '.' in the kind's class", 5;
	json_array_foreach(devs, i, it) /* 0.5.0 */
	{
		const char *name = sget(it, "name");
		if (name[0] >= '0' && name[0] <= '9')
			return *why = "a device name that starts with a digit", 4;
	}
	for (i = 0; i < ne; i++)
		json_array_foreach(json_object_get(nth_edits(root, i), "deviceNodes"), j, it)
		{
			if (*sget(it, "hostPath"))
				return *why = "hostPath on a device node", 4;
		}
	for (i = 0; i < ne; i++) /* 0.4.0 */
		json_array_foreach(json_object_get(nth_edits(root, i), "mounts"), j, it)
		{
			if (*sget(it, "type"))
				return *why = "type on a mount", 3;
		}
	return *why = "", 2; /* 0.3.0: the oldest a runtime still reads */
}

/* Spec.validate, in its order: the first rule broken is the one reported. */
static void check_rules(struct walk *w, const json_t *root)
{
	check_fields(w, root, f_spec, "");
	if (w->err[0])
		return;
	const char *ver = sget(root, "cdiVersion"), *kind = sget(root, "kind"), *why = NULL;
	int have = version_index(ver), need = required_version(root, &why);
	if (have < 0) {
		snprintf(w->err, sizeof(w->err),
		         "cdiVersion '%s' is not a released CDI version (0.1.0 to 1.1.0)", ver);
		return;
	}
	if (have < need) {
		snprintf(w->err, sizeof(w->err), "cdiVersion '%s' is older than the spec needs: %s%s%s", ver,
		         cdi_versions[need], *why ? " for " : " (the oldest runtimes read)", why);
		return;
	}
	const char *slash = strchr(kind, '/');
	const char *cls = slash ? slash + 1 : kind;
	if (!slash || slash == kind || !*cls || strchr(cls, '/')) {
		snprintf(w->err, sizeof(w->err), "kind '%s': a kind is VENDOR/CLASS, e.g. nvidia.com/gpu",
		         kind);
		return;
	}
	if (!name_ok(kind, (size_t)(slash - kind), "-_.", true) || !name_ok(cls, strlen(cls), "-_.", true)) {
		snprintf(w->err, sizeof(w->err),
		         "kind '%s': the %s starts with a letter, ends alphanumeric and holds only "
		         "letters, digits, '-', '_' and '.'",
		         kind, name_ok(kind, (size_t)(slash - kind), "-_.", true) ? "class" : "vendor");
		return;
	}
	check_edits(w, json_object_get(root, "containerEdits"), "containerEdits");
	const json_t *devs = json_object_get(root, "devices");
	size_t i;
	const json_t *it;
	json_array_foreach(devs, i, it)
	{
		if (w->err[0])
			return;
		char p[64], ep[96];
		pathf(p, sizeof(p), "devices[%zu]", i);
		pathf(ep, sizeof(ep), "%s.containerEdits", p);
		const char *name = sget(it, "name");
		if (!name_ok(name, strlen(name), "-_.:", false)) {
			snprintf(w->err, sizeof(w->err),
			         "device name '%s' must start and end alphanumeric and hold only letters, "
			         "digits, '-', '_', '.' and ':'",
			         name);
			return;
		}
		if (edits_empty(json_object_get(it, "containerEdits"))) {
			wfail(w, ep,
			      "a device needs at least one edit (env, deviceNodes, mounts, hooks, ...)");
			return;
		}
		check_edits(w, json_object_get(it, "containerEdits"), ep);
		for (size_t j = 0; j < i && !w->err[0]; j++)
			if (!strcmp(sget(json_array_get(devs, j), "name"), name))
				snprintf(w->err, sizeof(w->err), "device '%s' is defined twice", name);
	}
	if (!w->err[0] && !json_array_size(devs))
		wfail(w, "devices", "empty (a spec names at least one device)");
}

int ga_cdi_spec_parse(const char *text, size_t len, bool yaml, struct ga_cdi_spec *spec)
{
	struct walk w = { .spec = spec };
	json_t *root = NULL;
	int r;
	if (yaml) {
		r = yaml_to_json(text, len, &root, w.err, sizeof(w.err));
	} else {
		json_error_t je;
		r = ga_json_parse(NULL, text, len, JSON_REJECT_DUPLICATES, &root, &je);
		if (r == -EBADMSG) {
			snprintf(w.err, sizeof(w.err), "%d:%d: invalid JSON: %s", je.line, je.column,
			         je.text);
			r = 0;
		}
	}
	if (r < 0)
		goto out;
	if (root)
		walk_spec(&w, root);
	if (root && !w.nomem && !w.err[0])
		check_rules(&w, root);
	r = w.nomem;
	if (r == 0 && w.err[0] && !spec->error && !(spec->error = ga_strdup(w.err)))
		r = -ENOMEM;
out:
	json_decref(root);
	return r;
}

/* --- the node --- */

static void check_paths(struct ga_col *c, struct ga_cdi_spec *s)
{
	const struct ga_strv *lists[] = { &s->device_nodes, &s->libraries, &s->mounts, &s->hooks };
	for (size_t k = 0; k < GA_ARRAY_SIZE(lists); k++)
		for (size_t i = 0; i < lists[k]->n; i++) {
			const char *p = lists[k]->v[i];
			if (p[0] != '/' || ga_fs_exists(c->ctx, p) || s->missing.n >= GA_CDI_MAX_PATHS ||
			    ga_strv_contains(&s->missing, p))
				continue;
			/* a relative path (a hook named "nvidia-cdi-hook") is looked up by the runtime */
			ga_col_strv_push(c, &s->missing, p);
		}
}

static bool spec_name(const char *name, bool *yaml)
{
	size_t l = strlen(name);
	if (l > 5 && !strcmp(name + l - 5, ".json"))
		return *yaml = false, true;
	if ((l > 5 && !strcmp(name + l - 5, ".yaml")) || (l > 4 && !strcmp(name + l - 4, ".yml")))
		return *yaml = true, true;
	return false;
}

static void read_spec(struct ga_col *c, struct ga_cdi *cdi, const char *dir, const char *name, bool yaml)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct ga_cdi_spec *s = ga_array_push((void **)&cdi->specs, &cdi->n_specs, sizeof(*s));
	if (!ga_col_ok(c, s))
		return;
	if (!ga_col_ok(c, s->path = ga_strdup(path)) ||
	    !ga_col_ok(c, s->format = ga_strdup(yaml ? "yaml" : "json")))
		return;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(c->ctx, path + 1, GA_CDI_MAX_SPEC_BYTES, &b);
	if (r == -ENOMEM) {
		c->err = r;
	} else if (r < 0) {
		char why[160];
		snprintf(why, sizeof(why), "unreadable: %s", ga_fs_reason(r));
		ga_col_ok(c, s->error = ga_strdup(why));
	} else {
		r = ga_cdi_spec_parse(b.data, b.len, yaml, s);
		if (r < 0)
			c->err = r;
		else
			check_paths(c, s);
	}
	ga_buf_release(&b);
}

/* The driver's MIG devices: proc/driver/nvidia/capabilities/gpuN/mig/giG/ciC (directories). */
static void mig_devices(struct ga_col *c, struct ga_cdi *cdi)
{
	char **gpus = NULL;
	if (ga_col_list(c, &gpus, NULL, "proc/driver/nvidia/capabilities") < 0 || !gpus)
		return;
	for (char **g = gpus; *g && c->err == 0; g++) {
		uint64_t minor;
		if (!ga_startswith(*g, "gpu") || ga_parse_u64(*g + 3, 10, &minor) < 0)
			continue;
		char **gis = NULL;
		if (ga_col_list(c, &gis, NULL, "proc/driver/nvidia/capabilities/%s/mig", *g) < 0 || !gis)
			continue;
		size_t on_gpu = 0;
		for (char **gi = gis; *gi && c->err == 0; gi++) {
			uint64_t giv;
			if (!ga_startswith(*gi, "gi") || ga_parse_u64(*gi + 2, 10, &giv) < 0)
				continue;
			char **cis = NULL;
			if (ga_col_list(c, &cis, NULL, "proc/driver/nvidia/capabilities/%s/mig/%s", *g, *gi) <
			            0 ||
			    !cis)
				continue;
			for (char **ci = cis; *ci && on_gpu < MAX_MIG_PER_GPU; ci++) {
				uint64_t civ;
				if (!ga_startswith(*ci, "ci") || ga_parse_u64(*ci + 2, 10, &civ) < 0)
					continue;
				struct ga_cdi_mig *m = ga_array_push((void **)&cdi->mig_devices,
				                                     &cdi->n_mig_devices, sizeof(*m));
				if (!ga_col_ok(c, m))
					break;
				GA_SET(m->gpu_minor, minor);
				GA_SET(m->gi, giv);
				GA_SET(m->ci, civ);
				on_gpu++;
			}
			ga_strv_free(cis);
		}
		ga_strv_free(gis);
	}
	ga_strv_free(gpus);
}

void ga_collect_cdi(struct ga_col *c)
{
	static const char *const dirs[] = { "/etc/cdi", "/var/run/cdi" };
	bool any = c->node->device_plugins != NULL;
	for (size_t i = 0; i < GA_ARRAY_SIZE(dirs); i++)
		any = any || ga_fs_is_dir(c->ctx, dirs[i] + 1);
	if (!any)
		return;
	struct ga_cdi *cdi = ga_calloc(1, sizeof(*cdi));
	if (!ga_col_ok(c, cdi))
		return;
	c->node->cdi = cdi;
	for (size_t i = 0; i < GA_ARRAY_SIZE(dirs) && c->err == 0; i++) {
		if (!ga_fs_is_dir(c->ctx, dirs[i] + 1))
			continue;
		ga_col_strv_push(c, &cdi->dirs, dirs[i]);
		char **names = NULL;
		if (ga_col_list(c, &names, NULL, "%s", dirs[i] + 1) < 0 || !names)
			continue;
		size_t n = 0;
		for (char **p = names; *p && c->err == 0 && n < MAX_SPECS_PER_DIR; p++) {
			bool yaml;
			if (!spec_name(*p, &yaml))
				continue;
			read_spec(c, cdi, dirs[i], *p, yaml);
			n++;
		}
		ga_strv_free(names);
	}
	if (c->err == 0)
		mig_devices(c, cdi);
}
