/*
 * ctr-runtime.c - the container layer between the driver and the pod, from
 * files only: the vendors' container toolkits (NVIDIA's nvidia-ctk /
 * nvidia-container-cli / nvidia-container-runtime and its config.toml, AMD's
 * amd-ctk / amd-container-runtime), the container engines on the node
 * (containerd, Docker, CRI-O) and whether each is wired to a vendor runtime,
 * and who may open the AMD/Intel device nodes a container needs (/dev/kfd,
 * /dev/dri/renderD*).
 *
 * Nothing is executed (under --root the binaries are the fixture's, and on
 * the live machine a hung toolkit binary must not hang discover): versions
 * come from the package database (dpkg's status file), wiring from the
 * engines' own configuration files, parsed with the TOML reader
 * (lib/core/toml.c) and ga_json_parse. A configuration file that does not
 * parse is recorded with its FILE:LINE:COL message (the engine would refuse
 * it too), never fatal. docs/container.md explains each field and check.
 *
 * Fixture trees cannot carry device nodes nor (through git) owners and
 * modes: a device that is a regular file takes its mode, uid and gid from
 * the sidecar /dev/.fixture-perms ("PATH MODE UID GID" lines) and is left
 * out when the sidecar does not name it. On a live node it is stat(2) only.
 */
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect.h"
#include "gpuaudit/toml.h"

#define MAX_CONF_FILES 64
#define MAX_IMPORT_DEPTH 4
#define MAX_RUNTIMES 64
#define MAX_DEVICES 256

static const char *const bin_dirs[] = { "/usr/bin", "/usr/local/bin", "/usr/sbin",
	                                "/bin",     "/sbin",          "/usr/local/nvidia/toolkit" };

/* "/usr/bin/NAME" for the first directory that holds NAME (any file type), or NULL. */
static char *find_bin(struct ga_col *c, const char *name)
{
	char path[4096];
	for (size_t i = 0; i < GA_ARRAY_SIZE(bin_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", bin_dirs[i], name);
		if (ga_fs_exists(c->ctx, path)) {
			char *s = ga_strdup(path);
			ga_col_ok(c, s);
			return s;
		}
	}
	return NULL;
}

static bool binary_found(struct ga_col *c, const char *bin)
{
	if (*bin == '/')
		return ga_fs_exists(c->ctx, bin);
	char *p = find_bin(c, bin);
	bool ok = p != NULL;
	ga_free(p);
	return ok;
}

static bool set_str(struct ga_col *c, char **dst, const char *s)
{
	ga_free(*dst);
	*dst = s ? ga_strdup(s) : NULL;
	return !s || ga_col_ok(c, *dst);
}

/* --- parsing a configuration file: NULL tree when absent; *err set when it does not parse --- */

enum cfg_kind { CFG_TOML, CFG_JSON };

static json_t *load_cfg(struct ga_col *c, const char *path, enum cfg_kind kind, char **err, bool *present)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	json_t *j = NULL;
	*present = false;
	int r = ga_col_read(c, GA_COL_OPT, &b, "%s", path);
	if (r < 0)
		goto out;
	*present = true;
	char msg[600] = "";
	if (kind == CFG_TOML) {
		r = ga_toml_parse(NULL, path, b.data, b.len, &j, msg, sizeof(msg));
	} else {
		json_error_t jerr;
		r = ga_json_parse(NULL, b.data, b.len, JSON_REJECT_DUPLICATES, &j, &jerr);
		if (r == 0 && !json_is_object(j)) {
			snprintf(msg, sizeof(msg), "%s:1:1: expected a JSON object", path);
			json_decref(j);
			j = NULL;
			r = -EBADMSG;
		} else if (r == -EBADMSG) {
			snprintf(msg, sizeof(msg), "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		}
	}
	if (r == -ENOMEM) {
		c->err = -ENOMEM;
	} else if (r < 0 && !*err) {
		*err = ga_strdup(*msg ? msg : path);
		ga_col_ok(c, *err);
	}
out:
	ga_buf_release(&b);
	return j;
}

/* Member by a dotted path of plain names ("a", "b", NULL), or NULL. */
static json_t *dig(json_t *j, const char *const *keys)
{
	for (; j && *keys; keys++)
		j = json_is_object(j) ? json_object_get(j, *keys) : NULL;
	return j;
}

static const char *dig_str(json_t *j, const char *const *keys)
{
	return json_string_value(dig(j, keys));
}

static void dig_bool(json_t *j, const char *const *keys, struct ga_obool *out)
{
	json_t *v = dig(j, keys);
	if (json_is_boolean(v))
		GA_SET(*out, json_is_true(v));
}

/* --- package database: dpkg's status file --- */

/* The Version of an installed package NAME in dpkg's status text, or NULL. */
static char *dpkg_version(struct ga_col *c, const char *status, const char *name)
{
	char pat[256];
	int pl = snprintf(pat, sizeof(pat), "Package: %s\n", name);
	if (pl < 0 || (size_t)pl >= sizeof(pat))
		return NULL;
	for (const char *p = status; (p = strstr(p, pat)); p += pl) {
		if (p != status && p[-1] != '\n')
			continue;
		const char *end = strstr(p, "\n\n");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *stanza = ga_strndup(p, len);
		if (!ga_col_ok(c, stanza))
			return NULL;
		char *st = ga_col_kv(stanza, "Status:", ' ');
		char *ver = ga_col_kv(stanza, "Version:", ' ');
		ga_free(stanza);
		/* "install ok installed": the third word is the state; config-files etc. are not installed */
		const char *last = st ? strrchr(st, ' ') : NULL;
		bool installed = last && !strcmp(last + 1, "installed");
		ga_free(st);
		if (installed)
			return ver;
		ga_free(ver);
		return NULL;
	}
	return NULL;
}

struct pkgdb {
	bool read;
	char *dpkg; /* status text, NULL when absent */
};

static const char *pkgdb_dpkg(struct ga_col *c, struct pkgdb *db)
{
	if (!db->read) {
		db->read = true;
		struct ga_buf b;
		ga_buf_init(&b, 0);
		if (ga_col_read(c, GA_COL_OPT, &b, "/var/lib/dpkg/status") == 0)
			db->dpkg = ga_buf_detach(&b, NULL);
		ga_buf_release(&b);
	}
	return db->dpkg;
}

/* --- toolkits --- */

struct tk_spec {
	const char *vendor;
	const char *const *bins; /* the first `key_bins` make it "installed" */
	size_t key_bins;
	const char *const *pkgs; /* the first one found gives the version */
	const char *config;      /* NULL: none known */
};

static const char *const nv_bins[] = {
	"nvidia-container-runtime", "nvidia-container-cli", "nvidia-ctk", "nvidia-container-runtime-hook",
	"nvidia-container-toolkit", "nvidia-cdi-hook",      NULL
};
static const char *const nv_pkgs[] = { "nvidia-container-toolkit", "nvidia-container-toolkit-base",
	                               "libnvidia-container-tools", "libnvidia-container1", NULL };
static const char *const amd_bins[] = { "amd-container-runtime", "amd-ctk", NULL };
static const char *const amd_pkgs[] = { "amd-container-toolkit", NULL };

static const struct tk_spec tk_specs[] = {
	{ "nvidia", nv_bins, 3, nv_pkgs, "/etc/nvidia-container-runtime/config.toml" },
	{ "amd", amd_bins, 2, amd_pkgs, NULL },
};

static void nvidia_config(struct ga_col *c, struct ga_ctr_toolkit *tk, const char *path)
{
	bool present;
	json_t *j = load_cfg(c, path, CFG_TOML, &tk->config_error, &present);
	if (!present)
		return;
	set_str(c, &tk->config, path);
	if (!j)
		return;
	static const char *const k_mode[] = { "nvidia-container-runtime", "mode", NULL };
	static const char *const k_rts[] = { "nvidia-container-runtime", "runtimes", NULL };
	static const char *const k_nocg[] = { "nvidia-container-cli", "no-cgroups", NULL };
	static const char *const k_kmods[] = { "nvidia-container-cli", "load-kmods", NULL };
	static const char *const k_ldc[] = { "nvidia-container-cli", "ldconfig", NULL };
	static const char *const k_user[] = { "nvidia-container-cli", "user", NULL };
	set_str(c, &tk->mode, dig_str(j, k_mode));
	json_t *rts = dig(j, k_rts);
	size_t i;
	json_t *v;
	json_array_foreach(rts, i, v) if (json_is_string(v))
	        ga_col_strv_push(c, &tk->low_level_runtimes, json_string_value(v));
	dig_bool(j, k_nocg, &tk->no_cgroups);
	dig_bool(j, k_kmods, &tk->load_kmods);
	const char *ldc = dig_str(j, k_ldc);
	if (ldc) {
		set_str(c, &tk->ldconfig, ldc);
		/* '@' = a path on the host (the toolkit's convention); otherwise in the container: not checked */
		if (*ldc == '@')
			GA_SET(tk->ldconfig_found, ga_fs_exists(c->ctx, ldc + 1));
	}
	set_str(c, &tk->user, dig_str(j, k_user));
	json_decref(j);
}

/* Fill tk from the spec; returns whether anything of the toolkit was seen. */
static bool collect_toolkit(struct ga_col *c, const struct tk_spec *sp, struct pkgdb *db,
                            struct ga_ctr_toolkit *tk)
{
	bool installed = false, seen = false;
	set_str(c, &tk->vendor, sp->vendor);
	for (size_t i = 0; sp->bins[i]; i++) {
		char *p = find_bin(c, sp->bins[i]);
		if (!p)
			continue;
		installed |= i < sp->key_bins;
		seen = true;
		ga_col_strv_push(c, &tk->binaries, p);
		ga_free(p);
	}
	if (sp->config) {
		nvidia_config(c, tk, sp->config);
		seen |= tk->config != NULL;
	}
	/* the package database (about 1 MB on a Debian host) only when something of the toolkit is there */
	const char *dpkg = seen ? pkgdb_dpkg(c, db) : NULL;
	for (size_t i = 0; dpkg && sp->pkgs[i]; i++) {
		char *ver = dpkg_version(c, dpkg, sp->pkgs[i]);
		if (!ver)
			continue;
		struct ga_ctr_package *np = ga_realloc(tk->packages, (tk->n_packages + 1) * sizeof(*np));
		if (!ga_col_ok(c, np)) {
			ga_free(ver);
			break;
		}
		tk->packages = np;
		struct ga_ctr_package *pk = &np[tk->n_packages++];
		memset(pk, 0, sizeof(*pk));
		pk->version = ver;
		set_str(c, &pk->name, sp->pkgs[i]);
		set_str(c, &pk->source, "/var/lib/dpkg/status");
		if (!tk->version)
			set_str(c, &tk->version, ver);
		installed = seen = true;
	}
	GA_SET(tk->installed, installed);
	return seen;
}

/* --- engines --- */

static const char *vendor_of(const char *binary)
{
	if (!binary)
		return NULL;
	const char *b = strrchr(binary, '/');
	b = b ? b + 1 : binary;
	if (ga_startswith(b, "nvidia-container-runtime"))
		return "nvidia"; /* also nvidia-container-runtime.cdi / .legacy */
	if (ga_startswith(b, "amd-container-runtime"))
		return "amd";
	return NULL;
}

/* Add or (same name: a later file overrides) replace a runtime of e. */
static void engine_runtime(struct ga_col *c, struct ga_ctr_engine *e, const char *name, const char *binary,
                           const char *source)
{
	struct ga_ctr_oci_runtime *r = NULL;
	for (size_t i = 0; i < e->n_runtimes; i++)
		if (!strcmp(e->runtimes[i].name, name))
			r = &e->runtimes[i];
	if (!r) {
		if (e->n_runtimes >= MAX_RUNTIMES)
			return;
		struct ga_ctr_oci_runtime *nr = ga_realloc(e->runtimes, (e->n_runtimes + 1) * sizeof(*nr));
		if (!ga_col_ok(c, nr))
			return;
		e->runtimes = nr;
		r = &nr[e->n_runtimes++];
		memset(r, 0, sizeof(*r));
		if (!set_str(c, &r->name, name)) {
			e->n_runtimes--;
			return;
		}
	}
	set_str(c, &r->binary, binary);
	set_str(c, &r->vendor, vendor_of(binary));
	set_str(c, &r->source, source);
	r->binary_found.set = false;
	if (binary)
		GA_SET(r->binary_found, binary_found(c, binary));
}

static struct ga_ctr_engine *engine_new(struct ga_col *c, struct ga_container_runtime *cr, const char *name)
{
	struct ga_ctr_engine *ne = ga_realloc(cr->engines, (cr->n_engines + 1) * sizeof(*ne));
	if (!ga_col_ok(c, ne))
		return NULL;
	cr->engines = ne;
	struct ga_ctr_engine *e = &ne[cr->n_engines++];
	memset(e, 0, sizeof(*e));
	set_str(c, &e->name, name);
	return e;
}

static void engine_finish(struct ga_ctr_engine *e)
{
	bool wired = false, def_nv = false;
	for (size_t i = 0; i < e->n_runtimes; i++) {
		const struct ga_ctr_oci_runtime *r = &e->runtimes[i];
		bool nv = r->vendor && !strcmp(r->vendor, "nvidia");
		wired |= nv;
		if (nv && e->default_runtime && !strcmp(e->default_runtime, r->name))
			def_nv = true;
	}
	GA_SET(e->wired, wired);
	GA_SET(e->default_nvidia, def_nv);
}

/* containerd's CRI plugin tables: version 3 (2.x), version 2, version 1 ("cri"). */
static const char *const cd_plugins[] = { "io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri",
	                                  "cri" };

static void containerd_file(struct ga_col *c, struct ga_ctr_engine *e, const char *path, int depth);

static void containerd_imports(struct ga_col *c, struct ga_ctr_engine *e, const char *file, json_t *imports,
                               int depth)
{
	size_t i;
	json_t *v;
	json_array_foreach(imports, i, v)
	{
		const char *imp = json_string_value(v);
		if (!imp || !*imp)
			continue;
		char full[4096];
		if (*imp == '/') {
			snprintf(full, sizeof(full), "%s", imp);
		} else { /* relative to the importing file's directory */
			const char *sl = strrchr(file, '/');
			snprintf(full, sizeof(full), "%.*s/%s", sl ? (int)(sl - file) : 1, sl ? file : "/",
			         imp);
		}
		char *sl = strrchr(full, '/');
		if (!strpbrk(sl + 1, "*?[")) {
			containerd_file(c, e, full, depth + 1);
			continue;
		}
		*sl = '\0'; /* a glob: in the last component, like the ld.so.conf includes */
		char **names = NULL;
		if (ga_col_list(c, &names, NULL, "%s", *full ? full : "/") == 0) {
			for (char **p = names; *p; p++) {
				if (fnmatch(sl + 1, *p, FNM_PERIOD) != 0)
					continue;
				char one[8192];
				snprintf(one, sizeof(one), "%s/%s", full, *p);
				containerd_file(c, e, one, depth + 1);
			}
		}
		ga_strv_free(names);
	}
}

static void containerd_file(struct ga_col *c, struct ga_ctr_engine *e, const char *path, int depth)
{
	if (depth > MAX_IMPORT_DEPTH || e->config_files.n >= MAX_CONF_FILES ||
	    ga_strv_contains(&e->config_files, path))
		return;
	bool present;
	json_t *j = load_cfg(c, path, CFG_TOML, &e->config_error, &present);
	if (!present)
		return;
	ga_col_strv_push(c, &e->config_files, path);
	if (!j)
		return;
	json_t *ver = json_object_get(j, "version");
	if (depth == 0) {
		if (json_is_integer(ver) && json_integer_value(ver) >= 0)
			GA_SET(e->config_version, (uint64_t)json_integer_value(ver));
		else if (!ver)
			GA_SET(e->config_version, 1);
	}
	json_t *dis = json_object_get(j, "disabled_plugins");
	if (json_is_array(dis)) {
		bool off = false;
		size_t di;
		json_t *dv;
		json_array_foreach(dis, di, dv) for (size_t k = 0; k < GA_ARRAY_SIZE(cd_plugins); k++) off |=
		        json_is_string(dv) && !strcmp(json_string_value(dv), cd_plugins[k]);
		GA_SET(e->cri_disabled, off);
	}
	json_t *plugins = json_object_get(j, "plugins");
	for (size_t k = 0; k < GA_ARRAY_SIZE(cd_plugins); k++) {
		json_t *cri = json_object_get(plugins, cd_plugins[k]);
		if (!json_is_object(cri))
			continue;
		static const char *const k_def[] = { "containerd", "default_runtime_name", NULL };
		static const char *const k_rts[] = { "containerd", "runtimes", NULL };
		static const char *const k_cdi[] = { "enable_cdi", NULL };
		static const char *const k_own[] = { "device_ownership_from_security_context", NULL };
		const char *def = dig_str(cri, k_def);
		if (def)
			set_str(c, &e->default_runtime, def);
		dig_bool(cri, k_cdi, &e->cdi_enabled);
		dig_bool(cri, k_own, &e->device_ownership_from_security_context);
		const char *name;
		json_t *rt;
		json_object_foreach(dig(cri, k_rts), name, rt)
		{
			static const char *const k_bin[] = { "options", "BinaryName", NULL };
			static const char *const k_eng[] = { "runtime_engine",
				                             NULL }; /* containerd 1.2/1.3 */
			const char *bin = dig_str(rt, k_bin);
			if (!bin || !*bin)
				bin = dig_str(rt, k_eng);
			engine_runtime(c, e, name, bin && *bin ? bin : NULL, path);
		}
	}
	containerd_imports(c, e, path, json_object_get(j, "imports"), depth);
	json_decref(j);
}

static const char *const containerd_configs[] = {
	"/etc/containerd/config.toml",
	"/var/lib/rancher/rke2/agent/etc/containerd/config.toml", /* RKE2 and k3s write their own */
	"/var/lib/rancher/k3s/agent/etc/containerd/config.toml",
};

static void collect_containerd(struct ga_col *c, struct ga_container_runtime *cr)
{
	char *bin = find_bin(c, "containerd");
	const char *cfg = NULL;
	for (size_t i = 0; !cfg && i < GA_ARRAY_SIZE(containerd_configs); i++)
		if (ga_fs_exists(c->ctx, containerd_configs[i]))
			cfg = containerd_configs[i];
	if (!bin && !cfg)
		return;
	struct ga_ctr_engine *e = engine_new(c, cr, "containerd");
	if (!e) {
		ga_free(bin);
		return;
	}
	e->binary = bin;
	if (cfg) {
		set_str(c, &e->config, cfg);
		containerd_file(c, e, cfg, 0);
	}
	engine_finish(e);
}

static void collect_docker(struct ga_col *c, struct ga_container_runtime *cr)
{
	static const char *const cfg = "/etc/docker/daemon.json";
	char *bin = find_bin(c, "dockerd");
	bool has_cfg = ga_fs_exists(c->ctx, cfg);
	if (!bin && !has_cfg)
		return;
	struct ga_ctr_engine *e = engine_new(c, cr, "docker");
	if (!e) {
		ga_free(bin);
		return;
	}
	e->binary = bin;
	if (has_cfg) {
		bool present;
		set_str(c, &e->config, cfg);
		json_t *j = load_cfg(c, cfg, CFG_JSON, &e->config_error, &present);
		if (present)
			ga_col_strv_push(c, &e->config_files, cfg);
		if (j) {
			static const char *const k_def[] = { "default-runtime", NULL };
			static const char *const k_cdi[] = { "features", "cdi", NULL };
			set_str(c, &e->default_runtime, dig_str(j, k_def));
			dig_bool(j, k_cdi, &e->cdi_enabled);
			const char *name;
			json_t *rt;
			json_object_foreach(json_object_get(j, "runtimes"), name, rt)
			{
				const char *p = json_string_value(json_object_get(rt, "path"));
				engine_runtime(c, e, name, p && *p ? p : NULL, cfg);
			}
			json_decref(j);
		}
	}
	engine_finish(e);
}

static void crio_file(struct ga_col *c, struct ga_ctr_engine *e, const char *path)
{
	bool present;
	json_t *j = load_cfg(c, path, CFG_TOML, &e->config_error, &present);
	if (!present)
		return;
	ga_col_strv_push(c, &e->config_files, path);
	if (!j)
		return;
	static const char *const k_rt[] = { "crio", "runtime", NULL };
	json_t *rtt = dig(j, k_rt);
	static const char *const k_def[] = { "default_runtime", NULL };
	static const char *const k_own[] = { "device_ownership_from_security_context", NULL };
	const char *def = dig_str(rtt, k_def);
	if (def)
		set_str(c, &e->default_runtime, def);
	dig_bool(rtt, k_own, &e->device_ownership_from_security_context);
	const char *name;
	json_t *rt;
	json_object_foreach(json_object_get(rtt, "runtimes"), name, rt)
	{
		const char *p = json_string_value(json_object_get(rt, "runtime_path"));
		engine_runtime(c, e, name, p && *p ? p : NULL, path);
	}
	json_decref(j);
}

static void collect_crio(struct ga_col *c, struct ga_container_runtime *cr)
{
	static const char *const cfg = "/etc/crio/crio.conf", *const dropins = "/etc/crio/crio.conf.d";
	char *bin = find_bin(c, "crio");
	bool has_cfg = ga_fs_exists(c->ctx, cfg), has_dir = ga_fs_is_dir(c->ctx, dropins);
	if (!bin && !has_cfg && !has_dir)
		return;
	struct ga_ctr_engine *e = engine_new(c, cr, "crio");
	if (!e) {
		ga_free(bin);
		return;
	}
	e->binary = bin;
	if (has_cfg) {
		set_str(c, &e->config, cfg);
		crio_file(c, e, cfg);
	}
	char **names = NULL;
	if (has_dir && ga_col_list(c, &names, NULL, "%s", dropins) == 0) {
		for (char **p = names; *p && e->config_files.n < MAX_CONF_FILES; p++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dropins, *p);
			if (**p != '.' &&
			    !ga_fs_is_dir(c->ctx, path)) /* CRI-O reads the drop-ins in lexical order */
				crio_file(c, e, path);
		}
	}
	ga_strv_free(names);
	engine_finish(e);
}

/* --- device access --- */

struct idmap {
	bool read;
	char *passwd, *group;
};

/* Name of id in a passwd/group text ("name:x:id:..."), or NULL. */
static char *id_name(struct ga_col *c, const char *text, uint64_t id)
{
	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		const char *c1 = memchr(p, ':', ll);
		const char *c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - p)) : NULL;
		if (c2) {
			char num[24];
			const char *c3 = memchr(c2 + 1, ':', ll - (size_t)(c2 + 1 - p));
			size_t nl = (size_t)((c3 ? c3 : p + ll) - (c2 + 1));
			uint64_t v;
			if (nl && nl < sizeof(num)) {
				memcpy(num, c2 + 1, nl);
				num[nl] = '\0';
				if (ga_parse_u64(num, 10, &v) == 0 && v == id) {
					char *s = ga_strndup(p, (size_t)(c1 - p));
					ga_col_ok(c, s);
					return s;
				}
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

static void read_ids(struct ga_col *c, struct idmap *m)
{
	if (m->read)
		return;
	m->read = true;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_col_read(c, GA_COL_OPT, &b, "/etc/passwd") == 0)
		m->passwd = ga_buf_detach(&b, NULL);
	ga_buf_release(&b);
	ga_buf_init(&b, 0);
	if (ga_col_read(c, GA_COL_OPT, &b, "/etc/group") == 0)
		m->group = ga_buf_detach(&b, NULL);
	ga_buf_release(&b);
}

#define FIXTURE_PERMS "/dev/.fixture-perms"

/* The sidecar line for path: mode, uid, gid. */
static bool sidecar_lookup(const char *text, const char *path, unsigned *mode, uint64_t *uid, uint64_t *gid)
{
	size_t pl = strlen(path);
	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		if (ll > pl && !strncmp(p, path, pl) && p[pl] == ' ') {
			char line[256];
			if (ll < sizeof(line)) {
				memcpy(line, p, ll);
				line[ll] = '\0';
				char ms[16];
				unsigned long long u, g;
				if (sscanf(line + pl, " %15s %llu %llu", ms, &u, &g) == 3) {
					uint64_t m;
					if (ga_parse_u64(ms, 8, &m) == 0 && m <= 07777) {
						*mode = (unsigned)m;
						*uid = u;
						*gid = g;
						return true;
					}
				}
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return false;
}

struct devscan {
	struct idmap ids;
	bool sidecar_read;
	char *sidecar;
};

static void device(struct ga_col *c, struct ga_container_runtime *cr, struct devscan *ds, const char *path)
{
	struct stat st;
	if (cr->n_devices >= MAX_DEVICES || ga_fs_lstat(c->ctx, path, &st) < 0)
		return;
	unsigned mode;
	uint64_t uid, gid;
	const char *type, *source;
	if (S_ISCHR(st.st_mode)) {
		type = "char", source = "stat";
		mode = (unsigned)(st.st_mode & 07777);
		uid = st.st_uid;
		gid = st.st_gid;
	} else if (S_ISREG(st.st_mode)) {
		if (!ds->sidecar_read) {
			ds->sidecar_read = true;
			struct ga_buf b;
			ga_buf_init(&b, 0);
			if (ga_col_read(c, GA_COL_OPT, &b, FIXTURE_PERMS) == 0)
				ds->sidecar = ga_buf_detach(&b, NULL);
			ga_buf_release(&b);
		}
		if (!ds->sidecar || !sidecar_lookup(ds->sidecar, path, &mode, &uid, &gid))
			return; /* a marker whose permissions nobody recorded says nothing about access */
		type = "file", source = FIXTURE_PERMS;
	} else {
		return;
	}
	struct ga_ctr_device *nd = ga_realloc(cr->devices, (cr->n_devices + 1) * sizeof(*nd));
	if (!ga_col_ok(c, nd))
		return;
	cr->devices = nd;
	struct ga_ctr_device *d = &nd[cr->n_devices++];
	memset(d, 0, sizeof(*d));
	char ms[8];
	snprintf(ms, sizeof(ms), "%04o", mode);
	set_str(c, &d->path, path);
	set_str(c, &d->type, type);
	set_str(c, &d->mode, ms);
	set_str(c, &d->source, source);
	GA_SET(d->uid, uid);
	GA_SET(d->gid, gid);
	read_ids(c, &ds->ids);
	d->owner = ds->ids.passwd ? id_name(c, ds->ids.passwd, uid) : NULL;
	d->group = ds->ids.group ? id_name(c, ds->ids.group, gid) : NULL;
}

static void collect_devices(struct ga_col *c, struct ga_container_runtime *cr)
{
	struct devscan ds = { .sidecar_read = false };
	device(c, cr, &ds, "/dev/kfd");
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "/dev/dri") == 0) {
		for (char **p = names; *p; p++) {
			if (!ga_startswith(*p, "renderD"))
				continue;
			char path[300];
			snprintf(path, sizeof(path), "/dev/dri/%s", *p);
			device(c, cr, &ds, path);
		}
	}
	ga_strv_free(names);
	ga_free(ds.sidecar);
	ga_free(ds.ids.passwd);
	ga_free(ds.ids.group);
}

/* --- the section --- */

static bool has_vendor(const struct ga_node *n, const char *vendor)
{
	for (size_t i = 0; i < n->n_accelerators; i++)
		if (n->accelerators[i].vendor && !strcmp(n->accelerators[i].vendor, vendor))
			return true;
	return false;
}

static void free_section(struct ga_container_runtime *cr)
{
	ga_schema_release(&ga_container_runtime_schema, cr);
	ga_free(cr);
}

void ga_collect_container_runtime(struct ga_col *c)
{
	struct ga_container_runtime *cr = ga_calloc(1, sizeof(*cr));
	if (!ga_col_ok(c, cr))
		return;
	collect_containerd(c, cr);
	collect_docker(c, cr);
	collect_crio(c, cr);
	struct pkgdb db = { .read = false };
	for (size_t i = 0; i < GA_ARRAY_SIZE(tk_specs) && c->err == 0; i++) {
		struct ga_ctr_toolkit tk;
		memset(&tk, 0, sizeof(tk));
		bool seen = collect_toolkit(c, &tk_specs[i], &db, &tk);
		/* a toolkit that is absent matters where its GPUs meet an engine: say so there */
		bool wanted = seen || (cr->n_engines && has_vendor(c->node, tk_specs[i].vendor) &&
		                       !strcmp(tk_specs[i].vendor, "nvidia"));
		struct ga_ctr_toolkit *nt =
		        wanted ? ga_realloc(cr->toolkits, (cr->n_toolkits + 1) * sizeof(*nt)) : NULL;
		if (wanted && ga_col_ok(c, nt)) {
			cr->toolkits = nt;
			nt[cr->n_toolkits++] = tk;
		} else {
			ga_schema_release(&ga_ctr_toolkit_schema, &tk);
		}
	}
	ga_free(db.dpkg);
	collect_devices(c, cr);
	if (c->err < 0 || (!cr->n_toolkits && !cr->n_engines && !cr->n_devices)) {
		free_section(cr);
		return;
	}
	c->node->container_runtime = cr;
}
