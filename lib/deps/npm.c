/*
 * npm.c - npm packages as package metadata: a package.json (in an npm
 * tarball, `npm pack`'s package/ prefix; in a node_modules tree, one per
 * installed package; at a project's root) is a package that owns every file
 * under its directory, a nested node_modules package owning its own.
 *
 * Why: Node.js GPU libraries ship their native code as `.node` addons (ELF
 * shared objects, scanned like any .so) in per-platform optional packages
 * (node-llama-cpp's @node-llama-cpp/linux-x64-cuda, onnxruntime-node's
 * providers), or fetch it at install time from a preinstall/install/
 * postinstall script (node-pre-gyp, prebuild-install, cmake-js, a curl): what
 * such a script fetches is not in the artifact, so the audit of the artifact
 * cannot speak for the installed tree. Fields read: name, version,
 * dependencies, optionalDependencies, os, cpu, libc, scripts, binary (npm's
 * package.json reference, https://docs.npmjs.com/cli/v10/configuring-npm/package-json;
 * node-pre-gyp's "binary" object, https://github.com/mapbox/node-pre-gyp#readme).
 *
 * The parser is pure over a bounded buffer (fuzz/fuzz_npm.c); JSON through
 * ga_json_parse.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "walk_int.h"

#define MAX_DEPS 4096
#define MAX_PLATFORM 64
#define MAX_SCRIPT_BYTES 512

static int set_str(char **dst, const char *s)
{
	char *d = ga_strdup(s);
	if (!d)
		return -ENOMEM;
	ga_free(*dst);
	*dst = d;
	return 0;
}

/* "os": ["linux", "!win32"] (a single string is accepted as npm accepts it). */
static int platform(json_t *v, struct ga_strv *out)
{
	if (json_is_string(v))
		return ga_strv_push(out, json_string_value(v)) < 0 ? -ENOMEM : 0;
	for (size_t i = 0; json_is_array(v) && i < json_array_size(v) && out->n < MAX_PLATFORM; i++) {
		const char *s = json_string_value(json_array_get(v, i));
		if (s && ga_strv_push(out, s) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* {"name": "range"} -> "name@range" each. */
static int deps(json_t *v, struct ga_strv *out)
{
	const char *k;
	json_t *x;
	struct ga_buf b;
	ga_buf_init(&b, 4096);
	int r = 0;
	json_object_foreach(v, k, x)
	{
		if (out->n >= MAX_DEPS)
			break;
		ga_buf_reset(&b);
		const char *range = json_string_value(x);
		r = ga_buf_addf(&b, "%s@%s", k, range ? range : "*");
		if (r == -E2BIG) {
			r = 0;
			continue;
		}
		if (r < 0 || (r = ga_strv_push(out, b.data)) < 0) {
			r = -ENOMEM;
			break;
		}
	}
	ga_buf_release(&b);
	return r;
}

/*
 * What in an install script fetches binaries: the prebuilt-binary installers
 * and any download tool or URL. A script without them (node-gyp rebuild, a
 * local node script) still runs at install time: reported, without the fetch.
 */
static const char *fetcher(const char *script)
{
	static const char *const words[] = { "node-pre-gyp", "prebuild-install", "cmake-js", "curl ", "wget ",
		                             "https://",     "http://",          "download", NULL };
	for (size_t i = 0; words[i]; i++)
		if (strstr(script, words[i]))
			return words[i];
	return NULL;
}

static int scripts(json_t *sc, struct ga_deps_pkg *p)
{
	static const char *const hooks[] = { "preinstall", "install", "postinstall", NULL };
	for (size_t i = 0; hooks[i]; i++) {
		const char *v = json_string_value(json_object_get(sc, hooks[i]));
		if (!v || !v[0])
			continue;
		char line[MAX_SCRIPT_BYTES + 64];
		size_t n = strlen(v);
		snprintf(line, sizeof(line), "%s: %.*s%s", hooks[i],
		         (int)(n > MAX_SCRIPT_BYTES ? MAX_SCRIPT_BYTES : n), v,
		         n > MAX_SCRIPT_BYTES ? "..." : "");
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = ' ';
		if (ga_strv_push(&p->install_scripts, line) < 0)
			return -ENOMEM;
		const char *why = fetcher(v);
		if (why && !p->install_fetch) {
			char w[64];
			snprintf(w, sizeof(w), "%.*s", (int)strcspn(why, " "), why);
			if (set_str(&p->install_fetch, w) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int ga_npm_parse_package_json(const char *text, size_t len, struct ga_deps_pkg *p, char *err, size_t errlen)
{
	json_t *j = NULL;
	json_error_t je;
	int r = ga_json_parse(NULL, text, len, 0, &j, &je);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		snprintf(err, errlen, "invalid JSON at line %d column %d: %s", je.line, je.column, je.text);
		return -EINVAL;
	}
	r = -EINVAL;
	if (!json_is_object(j)) {
		snprintf(err, errlen, "not a JSON object");
		goto out;
	}
	json_t *name = json_object_get(j, "name");
	if (!name) {
		r = 1;
		goto out;
	}
	if (!json_is_string(name) || !json_string_value(name)[0]) {
		snprintf(err, errlen, "\"name\" is not a non-empty string");
		goto out;
	}
	if ((r = set_str(&p->name, json_string_value(name))) < 0)
		goto out;
	const char *ver = json_string_value(json_object_get(j, "version"));
	if (ver && (r = set_str(&p->version, ver)) < 0)
		goto out;
	if ((r = deps(json_object_get(j, "dependencies"), &p->requires)) < 0 ||
	    (r = deps(json_object_get(j, "optionalDependencies"), &p->optional)) < 0 ||
	    (r = platform(json_object_get(j, "os"), &p->os)) < 0 ||
	    (r = platform(json_object_get(j, "cpu"), &p->cpu)) < 0 ||
	    (r = platform(json_object_get(j, "libc"), &p->libc)) < 0 ||
	    (r = scripts(json_object_get(j, "scripts"), p)) < 0)
		goto out;
	/*
	 * A script that runs `node ./script/install` says nothing by itself; a
	 * dependency that exists to download (onnxruntime-node's postinstall
	 * fetches its CUDA provider with global-agent and adm-zip) does.
	 */
	static const char *const fetch_deps[] = { "global-agent",
		                                  "https-proxy-agent",
		                                  "node-fetch",
		                                  "axios",
		                                  "got",
		                                  "undici",
		                                  "follow-redirects",
		                                  "@mapbox/node-pre-gyp",
		                                  "node-pre-gyp",
		                                  "prebuild-install",
		                                  "cmake-js",
		                                  "node-downloader-helper",
		                                  NULL };
	for (size_t i = 0; p->install_scripts.n && !p->install_fetch && i < p->requires.n; i++)
		for (size_t k = 0; fetch_deps[k]; k++) {
			size_t n = strlen(fetch_deps[k]);
			if (!strncmp(p->requires.v[i], fetch_deps[k], n) && p->requires.v[i][n] == '@') {
				char w[64];
				snprintf(w, sizeof(w), "dependency %s", fetch_deps[k]);
				if ((r = set_str(&p->install_fetch, w)) < 0)
					goto out;
				break;
			}
		}
	/* node-pre-gyp's "binary": {"module_name", "host": "https://..."}: it downloads at install */
	json_t *bin = json_object_get(j, "binary");
	if (json_is_object(bin) && (json_object_get(bin, "host") || json_object_get(bin, "module_name"))) {
		if (!p->install_fetch && (r = set_str(&p->install_fetch, "binary")) < 0)
			goto out;
	}
	r = 0;
out:
	json_decref(j);
	return r;
}

/* ---- into the inventory ---- */

static char *dir_of(const char *tp)
{
	const char *s = strrchr(tp, '/');
	return s ? ga_strndup(tp, (size_t)(s - tp)) : ga_strdup("");
}

int ga_deps_npm_scan(struct deps_scan *s, size_t tree, const char *shown, const char *tp, const uint8_t *buf,
                     size_t len)
{
	struct ga_deps_inventory *inv = s->inv;
	for (size_t i = 0; i < inv->n_pkgs; i++)
		if (inv->pkgs[i].tree == tree && !strcmp(inv->pkgs[i].kind, "npm") &&
		    !strcmp(inv->pkgs[i].meta_dir, tp))
			return 0; /* an upper layer's copy came first */
	struct ga_deps_pkg tmp = { 0 };
	char err[256] = "";
	int r = ga_npm_parse_package_json((const char *)buf, len, &tmp, err, sizeof(err));
	if (r == 1) {
		r = 0; /* no name: a package.json that only sets "type" for a subdirectory */
		goto out;
	}
	if (r == -EINVAL) {
		r = ga_deps_add_gap(inv, shown, "package.json not understood: %s", err);
		goto out;
	}
	if (r < 0)
		goto out;
	char *md = ga_strdup(tp), *mp = ga_strdup(shown), *k = ga_strdup("npm"), *td = dir_of(tp);
	struct ga_deps_pkg *p =
	        md && mp && k && td ? ga_array_push((void **)&inv->pkgs, &inv->n_pkgs, sizeof(*p)) : NULL;
	if (!p) {
		ga_free(md);
		ga_free(mp);
		ga_free(k);
		ga_free(td);
		r = -ENOMEM;
		goto out;
	}
	*p = tmp;
	tmp = (struct ga_deps_pkg){ 0 };
	p->kind = k;
	p->meta_dir = md;
	p->meta_path = mp;
	p->tree_dir = td;
	p->tree = tree;
	p->owns_dir = true;
	/* `npm pack`'s tarball: package/package.json at the top of a tar */
	struct ga_deps_tree *t = &inv->trees[tree];
	if (!strcmp(tp, "package/package.json") && !strcmp(t->kind, "tar")) {
		char *nk = ga_strdup("npm");
		if (!nk) {
			r = -ENOMEM;
			goto out;
		}
		ga_free(t->kind);
		t->kind = nk;
	}
out:
	ga_deps_pkg_release(&tmp);
	return r;
}
