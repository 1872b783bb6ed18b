/*
 * pymeta.c - Python and conda package metadata: *.dist-info/METADATA (the
 * email-header format of the core metadata spec: Name, Version,
 * Requires-Dist), RECORD (CSV: path,hash,size; a path with a comma or quote
 * is quoted CSV-style), and conda's JSON (conda-meta/<pkg>.json of an
 * installed environment, info/index.json of a package archive): name,
 * version, build, depends, constrains, files; and Debian control stanzas (a
 * .deb's control file, dpkg's status): Package, Version, Depends, Status.
 *
 * Pure parsers over bounded buffers; what they keep is what the signals need.
 */
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "../core/internal.h"
#include "gpuaudit/deps-inventory.h"

#define MAX_REQUIRES 4096
#define MAX_FILES 1000000

static int set_str(char **dst, const char *s, size_t n)
{
	char *d = ga_strndup(s, n);
	if (!d)
		return -ENOMEM;
	ga_free(*dst);
	*dst = d;
	return 0;
}

static int set_local(struct ga_deps_pkg *p)
{
	const char *plus = p->version ? strchr(p->version, '+') : NULL;
	if (!plus || !plus[1])
		return 0;
	return set_str(&p->local_version, plus + 1, strlen(plus + 1));
}

/* Header name match, case-insensitive, followed by ':'. */
static const char *header_value(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n <= k || line[k] != ':' || strncasecmp(line, name, k))
		return NULL;
	return line + k + 1;
}

int ga_pymeta_parse_metadata(const char *text, size_t len, struct ga_deps_pkg *p)
{
	const char *s = text, *end = text + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (n == 0)
			break; /* the body (description) starts */
		const char *v;
		int r = 0;
		if (s[0] != ' ' && s[0] != '\t') {
			size_t vn;
			if ((v = header_value(s, n, "Name")) || (v = header_value(s, n, "Version")) ||
			    (v = header_value(s, n, "Requires-Dist"))) {
				while (v < s + n && (*v == ' ' || *v == '\t'))
					v++;
				vn = (size_t)(s + n - v);
				while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
					vn--;
				if (header_value(s, n, "Name"))
					r = set_str(&p->name, v, vn);
				else if (header_value(s, n, "Version"))
					r = set_str(&p->version, v, vn);
				else if (p->requires.n < MAX_REQUIRES) {
					char *req = ga_strndup(v, vn);
					r = req ? ga_strv_push(&p->requires, req) : -ENOMEM;
					ga_free(req);
				}
			}
		}
		if (r < 0)
			return r;
		s = nl ? nl + 1 : end;
	}
	if (!p->name || !p->name[0])
		return -EINVAL;
	return set_local(p);
}

int ga_pymeta_parse_record(const char *text, size_t len, struct ga_deps_pkg *p)
{
	const char *s = text, *end = text + len;
	struct ga_buf f;
	ga_buf_init(&f, 8192);
	int r = 0;
	while (s < end && p->files.n < MAX_FILES) {
		ga_buf_reset(&f);
		if (*s == '"') {
			s++;
			while (s < end) {
				if (*s == '"' && s + 1 < end && s[1] == '"') {
					r = ga_buf_addc(&f, '"');
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else
					r = ga_buf_addc(&f, *s++);
				if (r < 0)
					break;
			}
		} else {
			const char *c = s;
			while (c < end && *c != ',' && *c != '\n' && *c != '\r')
				c++;
			r = ga_buf_add(&f, s, (size_t)(c - s));
			s = c;
		}
		if (r == -E2BIG)
			r = 0; /* an absurd path: drop it */
		else if (r < 0)
			break;
		else if (f.len && memchr(f.data, '\0', f.len) == NULL &&
		         (r = ga_strv_push(&p->files, f.data)) < 0)
			break;
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		s = nl ? nl + 1 : end;
	}
	ga_buf_release(&f);
	return r;
}

static int push_strings(json_t *arr, struct ga_strv *out, size_t max)
{
	for (size_t i = 0; json_is_array(arr) && i < json_array_size(arr) && out->n < max; i++) {
		const char *v = json_string_value(json_array_get(arr, i));
		int r = v ? ga_strv_push(out, v) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

int ga_pymeta_parse_conda(const char *text, size_t len, struct ga_deps_pkg *p)
{
	json_t *j = NULL;
	int r = ga_json_parse(NULL, text, len, 0, &j, NULL) == -ENOMEM ? -ENOMEM : -EINVAL;
	if (!json_is_object(j))
		goto out;
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *ver = json_string_value(json_object_get(j, "version"));
	const char *build = json_string_value(json_object_get(j, "build"));
	if (!name || !name[0])
		goto out;
	if ((r = set_str(&p->name, name, strlen(name))) < 0)
		goto out;
	if (ver && (r = set_str(&p->version, ver, strlen(ver))) < 0)
		goto out;
	/* conda has no local version: the build string carries the variant (cuda126_py311...) */
	if (build && build[0] && (r = set_str(&p->local_version, build, strlen(build))) < 0)
		goto out;
	if ((r = push_strings(json_object_get(j, "depends"), &p->requires, MAX_REQUIRES)) < 0)
		goto out;
	if ((r = push_strings(json_object_get(j, "constrains"), &p->requires, MAX_REQUIRES)) < 0)
		goto out;
	r = push_strings(json_object_get(j, "files"), &p->files, MAX_FILES);
out:
	json_decref(j);
	return r;
}

/* ---- Debian control (a .deb's control file, a stanza of dpkg's status) ---- */

/* Case-insensitive field name match at line start, followed by ':'; the value after it. */
static const char *deb_field(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n <= k || line[k] != ':' || strncasecmp(line, name, k))
		return NULL;
	return line + k + 1;
}

/* Add each dependency of a Depends value: split at ',' and '|', trimmed. */
static int deb_depends(struct ga_deps_pkg *p, const char *v, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t e = i;
		while (e < n && v[e] != ',' && v[e] != '|')
			e++;
		size_t a = i, b = e;
		while (a < b && (v[a] == ' ' || v[a] == '\t' || v[a] == '\n'))
			a++;
		while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t' || v[b - 1] == '\n'))
			b--;
		if (b > a) {
			if (p->requires.n >= MAX_REQUIRES)
				return 0;
			char *d = ga_strndup(v + a, b - a);
			if (!d)
				return -ENOMEM;
			for (char *c = d; *c; c++) /* folded lines */
				if (*c == '\n' || *c == '\t')
					*c = ' ';
			int r = ga_strv_push(&p->requires, d);
			ga_free(d);
			if (r < 0)
				return -ENOMEM;
		}
		i = e + 1;
	}
	return 0;
}

int ga_pymeta_parse_deb_control(const char *text, size_t len, struct ga_deps_pkg *p, size_t *consumed,
                                bool *installed)
{
	size_t i = 0;
	*installed = true;
	while (i < len && (text[i] == '\n' || text[i] == '\r'))
		i++; /* blank lines between stanzas */
	if (i >= len) {
		*consumed = len;
		return 1;
	}
	int r = 0;
	/* a field's value runs on over continuation lines (starting with a space or tab) */
	while (i < len && text[i] != '\n' && r == 0) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		size_t ve = e;
		while (ve + 1 < len && (text[ve + 1] == ' ' || text[ve + 1] == '\t')) {
			ve++;
			while (ve < len && text[ve] != '\n')
				ve++;
		}
		const char *line = text + i, *v;
		size_t n = e - i;
		const char *vend = text + ve;
		if ((v = deb_field(line, n, "Package")) || (v = deb_field(line, n, "Version"))) {
			while (v < vend && (*v == ' ' || *v == '\t'))
				v++;
			size_t k = (size_t)(text + e - v);
			while (k && (v[k - 1] == ' ' || v[k - 1] == '\r'))
				k--;
			if (k)
				r = set_str(deb_field(line, n, "Package") ? &p->name : &p->version, v, k);
		} else if ((v = deb_field(line, n, "Depends")) || (v = deb_field(line, n, "Pre-Depends"))) {
			r = deb_depends(p, v, (size_t)(vend - v));
		} else if ((v = deb_field(line, n, "Status"))) {
			/* "install ok installed"; "deinstall ok config-files" is not installed */
			const char *last = vend;
			while (last > v && last[-1] != ' ')
				last--;
			*installed = (size_t)(vend - last) == 9 && !strncmp(last, "installed", 9);
		}
		i = ve < len ? ve + 1 : len;
	}
	*consumed = i;
	if (r < 0)
		return r;
	return p->name ? 0 : -EINVAL;
}
