/*
 * cyclonedx.c - `gpuaudit deps --cyclonedx`: the inventory as a CycloneDX
 * 1.5 JSON SBOM, so that supply-chain tooling (Dependency-Track, cdxgen
 * consumers, GitHub's SBOM upload) carries what gpuaudit found: packages and
 * files as components with purls (pypi, npm, conda, deb, rpm), the GPU facts
 * (backends, CUDA / gfx archs, loaded-by-name plug-ins) and the verdicts as
 * gpuaudit:* properties, and every finding as an annotation on its
 * component. Written through the project's JSON writer from the
 * gpuaudit.deps/v1 report, so the two documents say the same. Facts: the
 * CycloneDX 1.5 JSON schema and the purl spec (docs/deps.md "CycloneDX").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuaudit/cyclonedx.h"
#include "../core/internal.h"

/* purl percent-encoding of a name or version part: everything but A-Z a-z 0-9 . - _ ~ */
static void pct(struct ga_buf *b, const char *s, bool keep_slash)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		    c == '-' || c == '_' || c == '~' || (keep_slash && c == '/'))
			ga_buf_addc(b, (char)c);
		else
			ga_buf_addf(b, "%%%02X", c);
	}
}

void ga_cdx_purl(const struct ga_deps_report_pkg *p, char *out, size_t n)
{
	out[0] = '\0';
	if (!p->kind || !p->name)
		return;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (!strcmp(p->kind, "python")) {
		/* PEP 503 normalised: lower case, runs of - _ . as one - */
		ga_buf_adds(&b, "pkg:pypi/");
		bool dash = false;
		for (const char *s = p->name; *s; s++) {
			char c = *s;
			if (c == '-' || c == '_' || c == '.') {
				dash = true;
				continue;
			}
			if (dash && b.len > 9)
				ga_buf_addc(&b, '-');
			dash = false;
			char lc[2] = { (char)(c >= 'A' && c <= 'Z' ? c + 32 : c), 0 };
			pct(&b, lc, false);
		}
	} else if (!strcmp(p->kind, "npm")) {
		ga_buf_adds(&b, "pkg:npm/");
		if (p->name[0] == '@') {
			/* the scope is the namespace: %40scope/name */
			ga_buf_adds(&b, "%40");
			pct(&b, p->name + 1, true);
		} else
			pct(&b, p->name, false);
	} else if (!strcmp(p->kind, "conda")) {
		ga_buf_adds(&b, "pkg:conda/");
		pct(&b, p->name, false);
	} else if (!strcmp(p->kind, "deb")) {
		/* the vendor namespace is required; the metadata does not say debian or ubuntu */
		ga_buf_adds(&b, "pkg:deb/debian/");
		pct(&b, p->name, false);
	} else if (!strcmp(p->kind, "rpm")) {
		ga_buf_adds(&b, "pkg:rpm/");
		pct(&b, p->name, false);
	} else {
		ga_buf_release(&b);
		return;
	}
	if (p->version && p->version[0]) {
		ga_buf_addc(&b, '@');
		pct(&b, p->version, false);
	}
	if (b.data && b.len < n)
		memcpy(out, b.data, b.len + 1);
	ga_buf_release(&b);
}

static void prop(struct ga_json *w, const char *name, const char *value)
{
	if (!value)
		return;
	ga_json_obj_begin(w);
	ga_json_key(w, "name");
	ga_json_str(w, name);
	ga_json_key(w, "value");
	ga_json_str(w, value);
	ga_json_obj_end(w);
}

/* Worst severity of the findings on subject: "error", "warning", "info"; "pass" none. */
static const char *verdict_of(const struct ga_findings *fs, const char *subject)
{
	int worst = -1;
	for (size_t i = 0; subject && i < fs->n; i++)
		if (fs->v[i].subject && !strcmp(fs->v[i].subject, subject) && (int)fs->v[i].severity > worst)
			worst = (int)fs->v[i].severity;
	return worst < 0 ? "pass" : ga_severity_name((enum ga_severity)worst);
}

/* Distinct backends of the signals, comma-joined, in first-seen order. */
static void backends(const struct ga_deps_report_signal *s, size_t n, struct ga_buf *b)
{
	ga_buf_reset(b);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(s[k].backend, s[i].backend);
		if (!seen)
			ga_buf_addf(b, "%s%s", b->len ? "," : "", s[i].backend);
	}
}

static void signal_props(struct ga_json *w, const struct ga_deps_report_signal *s, size_t n, struct ga_buf *b)
{
	backends(s, n, b);
	if (b->len)
		prop(w, "gpuaudit:backends", b->data);
	for (size_t i = 0; i < n; i++) {
		ga_buf_reset(b);
		ga_buf_addf(b, "%s %s %s", s[i].backend, s[i].strength, s[i].what ? s[i].what : "");
		if (s[i].runtime_version)
			ga_buf_addf(b, " (runtime %s)", s[i].runtime_version);
		prop(w, "gpuaudit:signal", b->data);
	}
}

/* Distinct archs of the file's images of the CUDA (cuda true) or AMD formats. */
static void archs(const struct ga_deps_report_devcode *d, bool cuda, struct ga_buf *b)
{
	ga_buf_reset(b);
	for (size_t i = 0; i < d->n_images; i++) {
		const struct ga_deps_report_image *im = &d->images[i];
		if (!im->arch || !im->format || (!strcmp(im->format, "cuda-fatbin")) != cuda)
			continue;
		if (!cuda && strncmp(im->arch, "gfx", 3))
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = d->images[k].arch && !strcmp(d->images[k].arch, im->arch) &&
			       d->images[k].format && (!strcmp(d->images[k].format, "cuda-fatbin")) == cuda;
		if (!seen)
			ga_buf_addf(b, "%s%s", b->len ? "," : "", im->arch);
	}
}

static void file_component(struct ga_json *w, const struct ga_deps_report *rep, size_t i, struct ga_buf *b)
{
	const struct ga_deps_report_file *f = &rep->files[i];
	char ref[32];
	snprintf(ref, sizeof(ref), "file-%zu", i + 1);
	ga_json_obj_begin(w);
	ga_json_key(w, "type");
	ga_json_str(w, "file");
	ga_json_key(w, "bom-ref");
	ga_json_str(w, ref);
	ga_json_key(w, "name");
	ga_json_str(w, f->path);
	ga_json_key(w, "properties");
	ga_json_arr_begin(w);
	prop(w, "gpuaudit:verdict", verdict_of(&rep->findings, f->path));
	if (f->size_bytes.set) {
		ga_buf_reset(b);
		ga_buf_addf(b, "%llu", (unsigned long long)f->size_bytes.v);
		prop(w, "gpuaudit:size_bytes", b->data);
	}
	signal_props(w, f->signals, f->n_signals, b);
	archs(&f->elf.device_code, true, b);
	if (b->len)
		prop(w, "gpuaudit:cuda_archs", b->data);
	archs(&f->elf.device_code, false, b);
	if (b->len)
		prop(w, "gpuaudit:gfx_archs", b->data);
	prop(w, "gpuaudit:soname", f->elf.soname);
	for (size_t k = 0; k < f->elf.needed.n; k++)
		prop(w, "gpuaudit:needed", f->elf.needed.v[k]);
	prop(w, "gpuaudit:glibc_needed", f->elf.glibc_needed);
	prop(w, "gpuaudit:glibcxx_needed", f->elf.glibcxx_needed);
	for (size_t k = 0; k < f->n_plugins; k++) {
		const struct ga_deps_report_plugin *p = &f->plugins[k];
		ga_buf_reset(b);
		ga_buf_addf(b, "%s (%s %s, %s)%s%s", p->name, p->host, p->brings, p->backend,
		            p->found ? " -> " : " -> not in the artifact", p->found ? p->found : "");
		for (size_t n = 0; n < p->needs.n; n++)
			ga_buf_addf(b, "%s%s", n ? ", " : " NEEDS ", p->needs.v[n]);
		prop(w, "gpuaudit:loads_by_name", b->data);
	}
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

static const char *pkg_subject(const struct ga_deps_report_pkg *p)
{
	return p->metadata ? p->metadata : p->name;
}

/* The package a file belongs to: the first of its name. */
static long pkg_of(const struct ga_deps_report *rep, const struct ga_deps_report_file *f)
{
	for (size_t i = 0; f->package && i < rep->n_packages; i++)
		if (rep->packages[i].name && !strcmp(rep->packages[i].name, f->package))
			return (long)i;
	return -1;
}

static void pkg_component(struct ga_json *w, const struct ga_deps_report *rep, size_t i, struct ga_buf *b)
{
	const struct ga_deps_report_pkg *p = &rep->packages[i];
	char ref[32], purl[1024];
	snprintf(ref, sizeof(ref), "pkg-%zu", i + 1);
	ga_cdx_purl(p, purl, sizeof(purl));
	ga_json_obj_begin(w);
	ga_json_key(w, "type");
	ga_json_str(w, "library");
	ga_json_key(w, "bom-ref");
	ga_json_str(w, ref);
	ga_json_key(w, "name");
	ga_json_str(w, p->name ? p->name : "?");
	if (p->version) {
		ga_json_key(w, "version");
		ga_json_str(w, p->version);
	}
	if (purl[0]) {
		ga_json_key(w, "purl");
		ga_json_str(w, purl);
	}
	ga_json_key(w, "properties");
	ga_json_arr_begin(w);
	prop(w, "gpuaudit:package_kind", p->kind);
	prop(w, "gpuaudit:metadata", p->metadata);
	prop(w, "gpuaudit:verdict", verdict_of(&rep->findings, pkg_subject(p)));
	signal_props(w, p->signals, p->n_signals, b);
	ga_json_arr_end(w);
	bool any = false;
	for (size_t k = 0; k < rep->n_files; k++) {
		if (pkg_of(rep, &rep->files[k]) != (long)i)
			continue;
		if (!any) {
			ga_json_key(w, "components");
			ga_json_arr_begin(w);
		}
		any = true;
		file_component(w, rep, k, b);
	}
	if (any)
		ga_json_arr_end(w);
	ga_json_obj_end(w);
}

/* The bom-ref a finding's subject is: a file, a package, else the scanned subject. */
static void subject_ref(const struct ga_deps_report *rep, const char *subject, char *ref, size_t n)
{
	for (size_t i = 0; subject && i < rep->n_files; i++)
		if (!strcmp(rep->files[i].path, subject)) {
			snprintf(ref, n, "file-%zu", i + 1);
			return;
		}
	for (size_t i = 0; subject && i < rep->n_packages; i++)
		if (pkg_subject(&rep->packages[i]) && !strcmp(pkg_subject(&rep->packages[i]), subject)) {
			snprintf(ref, n, "pkg-%zu", i + 1);
			return;
		}
	snprintf(ref, n, "subject");
}

static void tool(struct ga_json *w)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "type");
	ga_json_str(w, "application");
	ga_json_key(w, "name");
	ga_json_str(w, "gpuaudit");
	ga_json_key(w, "version");
	ga_json_str(w, GA_VERSION);
	ga_json_obj_end(w);
}

static void metadata(struct ga_json *w, const struct ga_deps_report *rep, const struct ga_cdx_opts *o,
                     const char *stamp, struct ga_buf *b)
{
	ga_json_key(w, "metadata");
	ga_json_obj_begin(w);
	ga_json_key(w, "timestamp");
	ga_json_str(w, stamp);
	ga_json_key(w, "tools");
	ga_json_obj_begin(w);
	ga_json_key(w, "components");
	ga_json_arr_begin(w);
	tool(w);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	ga_json_key(w, "component");
	ga_json_obj_begin(w);
	ga_json_key(w, "type");
	ga_json_str(w, "application");
	ga_json_key(w, "bom-ref");
	ga_json_str(w, "subject");
	ga_json_key(w, "name");
	ga_json_str(w, o->subject ? o->subject : "artifact");
	ga_json_key(w, "properties");
	ga_json_arr_begin(w);
	prop(w, "gpuaudit:verdict", o->verdict);
	size_t sev[4] = { 0 };
	for (size_t i = 0; i < rep->findings.n; i++)
		sev[rep->findings.v[i].severity & 3]++;
	ga_buf_reset(b);
	ga_buf_addf(b, "%zu", sev[GA_SEV_ERROR] + sev[GA_SEV_CRITICAL]);
	prop(w, "gpuaudit:errors", b->data);
	ga_buf_reset(b);
	ga_buf_addf(b, "%zu", sev[GA_SEV_WARNING]);
	prop(w, "gpuaudit:warnings", b->data);
	const struct ga_deps_report_target *t = rep->target;
	if (t) {
		prop(w, "gpuaudit:target", t->name);
		prop(w, "gpuaudit:target_backend", t->backend);
		prop(w, "gpuaudit:target_cuda", t->cuda_version);
		prop(w, "gpuaudit:target_sm", t->sm);
		prop(w, "gpuaudit:target_gfx", t->gfx);
		prop(w, "gpuaudit:target_driver", t->driver);
		prop(w, "gpuaudit:target_brand", t->brand);
		prop(w, "gpuaudit:target_gpu_class", t->gpu_class);
		prop(w, "gpuaudit:target_glibc", t->glibc);
	}
	for (size_t i = 0; i < rep->n_trees; i++)
		prop(w, "gpuaudit:tree", rep->trees[i].name);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	ga_json_obj_end(w);
}

int ga_cyclonedx_write(const struct ga_deps_report *rep, const struct ga_cdx_opts *o, struct ga_buf *out,
                       bool pretty)
{
	char stamp[32];
	time_t now = (time_t)o->now_s;
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	ga_json_obj_begin(&w);
	ga_json_key(&w, "bomFormat");
	ga_json_str(&w, "CycloneDX");
	ga_json_key(&w, "specVersion");
	ga_json_str(&w, "1.5");
	ga_json_key(&w, "serialNumber");
	ga_json_str(&w, o->serial);
	ga_json_key(&w, "version");
	ga_json_u64(&w, 1);
	metadata(&w, rep, o, stamp, &b);
	ga_json_key(&w, "components");
	ga_json_arr_begin(&w);
	for (size_t i = 0; i < rep->n_packages; i++)
		pkg_component(&w, rep, i, &b);
	for (size_t i = 0; i < rep->n_files; i++)
		if (pkg_of(rep, &rep->files[i]) < 0)
			file_component(&w, rep, i, &b);
	ga_json_arr_end(&w);
	ga_json_key(&w, "dependencies");
	ga_json_arr_begin(&w);
	ga_json_obj_begin(&w);
	ga_json_key(&w, "ref");
	ga_json_str(&w, "subject");
	ga_json_key(&w, "dependsOn");
	ga_json_arr_begin(&w);
	char ref[32];
	for (size_t i = 0; i < rep->n_packages; i++) {
		snprintf(ref, sizeof(ref), "pkg-%zu", i + 1);
		ga_json_str(&w, ref);
	}
	for (size_t i = 0; i < rep->n_files; i++)
		if (pkg_of(rep, &rep->files[i]) < 0) {
			snprintf(ref, sizeof(ref), "file-%zu", i + 1);
			ga_json_str(&w, ref);
		}
	ga_json_arr_end(&w);
	ga_json_obj_end(&w);
	ga_json_arr_end(&w);
	if (rep->findings.n) {
		ga_json_key(&w, "annotations");
		ga_json_arr_begin(&w);
		for (size_t i = 0; i < rep->findings.n; i++) {
			const struct ga_finding *fd = &rep->findings.v[i];
			subject_ref(rep, fd->subject, ref, sizeof(ref));
			ga_json_obj_begin(&w);
			ga_json_key(&w, "subjects");
			ga_json_arr_begin(&w);
			ga_json_str(&w, ref);
			ga_json_arr_end(&w);
			ga_json_key(&w, "annotator");
			ga_json_obj_begin(&w);
			ga_json_key(&w, "component");
			tool(&w);
			ga_json_obj_end(&w);
			ga_json_key(&w, "timestamp");
			ga_json_str(&w, stamp);
			ga_buf_reset(&b);
			ga_buf_addf(&b, "%s %s: %s", ga_severity_name(fd->severity), fd->code,
			            fd->message ? fd->message : "");
			if (fd->decision)
				ga_buf_addf(&b, " (fix: %s)", fd->decision);
			ga_json_key(&w, "text");
			ga_json_str(&w, b.data ? b.data : "");
			ga_json_obj_end(&w);
		}
		ga_json_arr_end(&w);
	}
	ga_json_obj_end(&w);
	ga_buf_release(&b);
	return ga_json_finish(&w);
}
