/*
 * deps-report.c - the gpuaudit.deps/v1 report built from an inventory, a
 * target and the findings: what the document shows (ELF files only, the
 * device-code images grouped, versions as "12.6"), as the plain struct the
 * model in lib/model/deps.c writes and reads. Pure: it copies, nothing more.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/deps.h"

struct bld {
	int err; /* sticky -ENOMEM */
};

static char *dup(struct bld *b, const char *s)
{
	if (!s)
		return NULL;
	char *c = ga_strdup(s);
	if (!c)
		b->err = -ENOMEM;
	return c;
}

static char *dupf_version(struct bld *b, int v)
{
	char s[16];
	snprintf(s, sizeof(s), "%d.%d", v / 1000, v % 1000 / 10);
	return v > 0 ? dup(b, s) : NULL;
}

static void *alloc(struct bld *b, size_t n, size_t size)
{
	if (!n)
		return NULL;
	void *p = ga_calloc(n, size);
	if (!p)
		b->err = -ENOMEM;
	return p;
}

static void strv(struct bld *b, struct ga_strv *out, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ga_strv_push(out, v[i]) < 0)
			b->err = -ENOMEM;
}

static void ou64(struct ga_ou64 *o, uint64_t v, bool set)
{
	o->v = set ? v : 0;
	o->set = set;
}

static void signals(struct bld *b, const struct ga_dep_signal *v, size_t n,
                    struct ga_deps_report_signal **out, size_t *n_out)
{
	struct ga_deps_report_signal *s = alloc(b, n, sizeof(*s));
	if (!s)
		return;
	for (size_t i = 0; i < n; i++) {
		s[i].backend = dup(b, ga_dep_backend_name(v[i].backend));
		s[i].strength = dup(b, ga_dep_strength_name(v[i].strength));
		s[i].what = dup(b, v[i].what);
		s[i].runtime_version = dupf_version(b, v[i].runtime_version);
	}
	*out = s;
	*n_out = n;
}

static void target(struct bld *b, const struct ga_deps_target *t, struct ga_deps_report_target **out)
{
	static const char *const kinds[] = { "none", "cuda", "rocm", "level-zero", "cpu" };
	if (!t || t->kind == GA_TARGET_NONE)
		return;
	struct ga_deps_report_target *r = alloc(b, 1, sizeof(*r));
	if (!r)
		return;
	*out = r;
	r->name = dup(b, t->name);
	r->backend = dup(b, kinds[t->kind]);
	r->cuda_version = dupf_version(b, t->cuda_version);
	char sm[16];
	snprintf(sm, sizeof(sm), "sm_%d", t->sm);
	r->sm = t->sm > 0 ? dup(b, sm) : NULL;
	ou64(&r->rocm_major, (uint64_t)t->rocm_major, t->rocm_major >= 0);
	r->gfx = t->gfx[0] ? dup(b, t->gfx) : NULL;
	ou64(&r->cpu_isa_level, (uint64_t)t->cpu_isa_level, t->cpu_isa_level != 0);
	r->policy_class = dup(b, t->policy_class);
	strv(b, &r->allowed_backends, t->allowed_backends.v, t->allowed_backends.n);
	strv(b, &r->required_archs, t->required_archs.v, t->required_archs.n);
	r->glibc = t->glibc[0] ? dup(b, t->glibc) : NULL;
	r->libstdcxx = t->libstdcxx[0] ? dup(b, t->libstdcxx) : NULL;
	r->driver = dup(b, t->driver_version);
	r->brand = t->brand[0] ? dup(b, t->brand) : NULL;
	r->gpu_class = t->gpu_class ? dup(b, ga_gpu_class_name((enum ga_gpu_class)t->gpu_class)) : NULL;
}

/* The libraries file fi loads by name, with the vendor libraries the plug-in found NEEDs. */
static void plugins(struct bld *b, const struct ga_deps_inventory *inv, size_t fi,
                    const struct ga_deps_plugin_use *uses, size_t n_uses, struct ga_deps_report_file *o)
{
	size_t n = 0;
	for (size_t k = 0; k < n_uses; k++)
		n += uses[k].host == (long)fi;
	if (!n || !(o->plugins = alloc(b, n, sizeof(*o->plugins))))
		return;
	for (size_t k = 0; k < n_uses; k++) {
		const struct ga_deps_plugin_use *u = &uses[k];
		if (u->host != (long)fi)
			continue;
		struct ga_deps_report_plugin *p = &o->plugins[o->n_plugins++];
		p->name = dup(b, u->name);
		p->host = dup(b, u->conv->host);
		p->brings = dup(b, u->conv->brings);
		p->backend = dup(b, ga_dep_backend_name(u->conv->backend));
		const struct ga_deps_file *pf = u->found >= 0 ? &inv->files[u->found] : NULL;
		p->found = pf ? dup(b, pf->path) : NULL;
		for (size_t i = 0; pf && pf->elf && i < pf->elf->n_needed; i++)
			if (ga_vendor_lib_find(pf->elf->needed[i], NULL) &&
			    ga_strv_push(&p->needs, pf->elf->needed[i]) < 0)
				b->err = -ENOMEM;
	}
}

struct img_key {
	const struct ga_devcode_image *im;
	enum ga_devcode_format fmt;
	size_t first, count;
};

static int img_key_cmp(const struct img_key *x, const struct img_key *y)
{
	if (x->fmt != y->fmt)
		return x->fmt < y->fmt ? -1 : 1;
	if (x->im->kind != y->im->kind)
		return x->im->kind < y->im->kind ? -1 : 1;
	int c = strcmp(x->im->arch, y->im->arch);
	if (c)
		return c;
	if (x->im->ptx_isa_major != y->im->ptx_isa_major)
		return x->im->ptx_isa_major < y->im->ptx_isa_major ? -1 : 1;
	if (x->im->ptx_isa_minor != y->im->ptx_isa_minor)
		return x->im->ptx_isa_minor < y->im->ptx_isa_minor ? -1 : 1;
	return 0;
}

static int cmp_img_key(const void *a, const void *b)
{
	const struct img_key *x = a, *y = b;
	int c = img_key_cmp(x, y);
	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int cmp_img_first(const void *a, const void *b)
{
	const struct img_key *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

/*
 * Distinct (format, kind, arch, ptx isa) with counts, in the order of first
 * appearance: cuFFT alone has ~24k images, so they are grouped by sorting
 * (n log n) rather than by comparing each with all the others.
 */
static void images(struct bld *b, const struct ga_elf_info *e, struct ga_deps_report_devcode *d)
{
	struct img_key *keys = alloc(b, e->n_images, sizeof(*keys));
	if (!keys)
		return;
	for (size_t i = 0; i < e->n_images; i++)
		keys[i] = (struct img_key){ .im = &e->images[i],
			                    .fmt = e->containers[e->images[i].container].format,
			                    .first = i,
			                    .count = 1 };
	qsort(keys, e->n_images, sizeof(*keys), cmp_img_key);
	/* collapse runs of equal keys into their first element (the lowest index, as the sort breaks ties by it) */
	size_t ng = 0;
	for (size_t i = 0; i < e->n_images; i++) {
		if (ng && !img_key_cmp(&keys[ng - 1], &keys[i]))
			keys[ng - 1].count++;
		else
			keys[ng++] = keys[i];
	}
	qsort(keys, ng, sizeof(*keys), cmp_img_first);
	d->images = alloc(b, ng, sizeof(*d->images));
	for (size_t g = 0; d->images && g < ng; g++) {
		const struct ga_devcode_image *im = keys[g].im;
		struct ga_deps_report_image *o = &d->images[g];
		o->format = dup(b, ga_devcode_format_name(keys[g].fmt));
		o->kind = dup(b, ga_devcode_kind_name(im->kind));
		o->arch = im->arch[0] ? dup(b, im->arch) : NULL;
		if (im->kind == GA_CODE_PTX) {
			char s[16];
			snprintf(s, sizeof(s), "%u.%u", im->ptx_isa_major, im->ptx_isa_minor);
			o->ptx_isa = dup(b, s);
		}
		ou64(&o->count, keys[g].count, true);
		d->n_images = g + 1;
	}
	ga_free(keys);
}

static void elf(struct bld *b, const struct ga_elf_info *e, struct ga_deps_report_elf *r)
{
	ou64(&r->elf_class, e->elf_class, e->elf_class != 0);
	r->machine = dup(b, e->machine_name);
	r->osabi = dup(b, e->osabi_name);
	r->type = dup(b, e->type_name);
	r->soname = dup(b, e->soname);
	strv(b, &r->needed, e->needed, e->n_needed);
	r->rpath = dup(b, e->rpath);
	r->runpath = dup(b, e->runpath);
	strv(b, &r->dlopen, e->dlopen_names, e->n_dlopen_names);
	GA_SET(r->static_cudart, e->static_cudart);
	ou64(&r->x86_isa_level, (uint64_t)e->x86_isa_level, e->x86_isa_level != 0);
	r->device_arch = dup(b, e->device_arch);
	struct ga_deps_report_devcode *d = &r->device_code;
	for (int f = 0; f < GA_DEVCODE_FORMAT_N; f++)
		ou64(&d->containers[f], e->n_by_format[f], true);
	GA_SET(d->truncated, e->devcode_truncated);
	ou64(&d->bad_containers, e->n_bad_containers, true);
	images(b, e, d);
	r->glibc_needed = e->glibc_needed[0] ? dup(b, e->glibc_needed) : NULL;
	r->glibcxx_needed = e->glibcxx_needed[0] ? dup(b, e->glibcxx_needed) : NULL;
	r->cxxabi_needed = e->cxxabi_needed[0] ? dup(b, e->cxxabi_needed) : NULL;
	r->gcc_needed = e->gcc_needed[0] ? dup(b, e->gcc_needed) : NULL;
}

static void packages(struct bld *b, const struct ga_deps_inventory *inv, struct ga_deps_report *rep)
{
	rep->packages = alloc(b, inv->n_pkgs, sizeof(*rep->packages));
	for (size_t i = 0; rep->packages && i < inv->n_pkgs; i++) {
		const struct ga_deps_pkg *p = &inv->pkgs[i];
		struct ga_deps_report_pkg *o = &rep->packages[i];
		rep->n_packages = i + 1;
		o->kind = dup(b, p->kind);
		o->name = dup(b, p->name);
		o->version = dup(b, p->version);
		o->local_version = dup(b, p->local_version);
		o->metadata = dup(b, p->meta_path);
		o->tree = dup(b, inv->trees[p->tree].name);
		signals(b, p->signals, p->n_signals, &o->signals, &o->n_signals);
		if (strcmp(p->kind, "npm") && strcmp(p->kind, "rpm"))
			continue; /* the other kinds' reports stay as they were */
		o->arch = dup(b, p->arch);
		strv(b, &o->provides, p->provides.v, p->provides.n);
		strv(b, &o->requires, p->requires.v, p->requires.n);
		strv(b, &o->optional, p->optional.v, p->optional.n);
		strv(b, &o->os, p->os.v, p->os.n);
		strv(b, &o->cpu, p->cpu.v, p->cpu.n);
		strv(b, &o->libc, p->libc.v, p->libc.n);
		strv(b, &o->install_scripts, p->install_scripts.v, p->install_scripts.n);
		o->install_fetch = dup(b, p->install_fetch);
	}
}

static void files(struct bld *b, const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                  struct ga_deps_report *rep)
{
	struct ga_deps_plugin_use *uses = NULL;
	size_t n_uses = 0;
	if (ga_deps_plugin_uses(inv, t, &uses, &n_uses) < 0)
		b->err = -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < inv->n_files; i++)
		n += inv->files[i].elf != NULL; /* links and metadata files are inputs, not results */
	rep->files = alloc(b, n, sizeof(*rep->files));
	for (size_t i = 0; rep->files && i < inv->n_files; i++) {
		const struct ga_deps_file *fl = &inv->files[i];
		if (!fl->elf)
			continue;
		struct ga_deps_report_file *o = &rep->files[rep->n_files++];
		o->path = dup(b, fl->path);
		o->package = fl->pkg >= 0 ? dup(b, inv->pkgs[fl->pkg].name) : NULL;
		ou64(&o->size_bytes, fl->size_bytes, true);
		elf(b, fl->elf, &o->elf);
		signals(b, fl->signals, fl->n_signals, &o->signals, &o->n_signals);
		plugins(b, inv, i, uses, n_uses, o);
	}
	ga_free(uses);
}

enum ga_deps_result ga_deps_result_of(const struct ga_deps_inventory *inv, const struct ga_findings *fs)
{
	return ga_deps_result_at(inv, fs, GA_SEV_ERROR);
}

enum ga_deps_result ga_deps_result_at(const struct ga_deps_inventory *inv, const struct ga_findings *fs,
                                      enum ga_severity fail_on)
{
	if (inv->paths_unread)
		return GA_DEPS_RESULT_ERROR;
	if (ga_findings_max_severity(fs) >= (int)fail_on)
		return GA_DEPS_RESULT_FAIL;
	if (inv->n_gaps)
		return GA_DEPS_RESULT_INCOMPLETE;
	/*
	 * a readable but empty input (an empty directory, empty files, an artifact that was not
	 * built) is no pass: not one byte of it was there to judge
	 */
	if (!inv->files_seen || !inv->bytes_seen)
		return GA_DEPS_RESULT_UNKNOWN;
	/* the target's accelerators unknown (ga_deps_judge's GA-PCI-UNKNOWN): no pass either */
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].id == GA_C_PCI_UNKNOWN)
			return GA_DEPS_RESULT_UNKNOWN;
	return GA_DEPS_RESULT_PASS;
}

const char *ga_deps_result_name(enum ga_deps_result r)
{
	static const char *const n[] = { "pass", "fail", "incomplete", "unknown", "error" };
	return (unsigned)r < GA_ARRAY_SIZE(n) ? n[r] : "error";
}

const char *ga_deps_result_reason(enum ga_deps_result r, const struct ga_deps_inventory *inv, char *buf,
                                  size_t len)
{
	size_t parts = inv->n_gaps - inv->paths_unread;
	switch (r) {
	case GA_DEPS_RESULT_ERROR:
		snprintf(buf, len,
		         "%zu of %zu PATH%s could not be read: nothing in %s is judged; "
		         "give files or directories that exist and can be read",
		         inv->paths_unread, inv->paths, inv->paths == 1 ? "" : "s",
		         inv->paths_unread == 1 ? "it" : "them");
		break;
	case GA_DEPS_RESULT_INCOMPLETE:
		snprintf(buf, len,
		         "%zu part%s of the input could not be read: the verdict covers only what was "
		         "read; each reason says what to change (a cap to raise, damaged input to replace)",
		         parts, parts == 1 ? "" : "s");
		break;
	case GA_DEPS_RESULT_UNKNOWN:
		if (inv->files_seen && inv->bytes_seen) { /* scanned: the target was the unknown */
			snprintf(
			        buf, len,
			        "the target's accelerators are unknown (the PCI devices of its snapshot were "
			        "not read): only the checks that need no target ran; give --target, or a "
			        "snapshot taken where /sys is readable");
			break;
		}
		snprintf(buf, len,
		         "nothing was scanned: no regular file with content in %s; check that the artifact "
		         "was built and "
		         "the path is the right one",
		         inv->paths == 1 ? "the PATH" : "any PATH");
		break;
	default:
		if (len)
			buf[0] = '\0';
	}
	return buf;
}

int ga_deps_report_build(const struct ga_deps_inventory *inv, const struct ga_deps_target *t,
                         struct ga_findings *fs, struct ga_deps_report *rep)
{
	struct bld b = { 0 };
	memset(rep, 0, sizeof(*rep));
	rep->findings = *fs;
	ga_findings_init(fs);
	rep->schema = dup(&b, GA_DEPS_SCHEMA);
	enum ga_deps_result res = ga_deps_result_of(inv, &rep->findings);
	char why[512];
	rep->result = (int)res;
	ga_deps_result_reason(res, inv, why, sizeof(why));
	rep->result_reason = why[0] ? dup(&b, why) : NULL;
	target(&b, t, &rep->target);
	ou64(&rep->scanned.paths, inv->paths, true);
	ou64(&rep->scanned.paths_unread, inv->paths_unread, true);
	ou64(&rep->scanned.files, inv->files_seen, true);
	ou64(&rep->scanned.bytes, inv->bytes_seen, true);
	ou64(&rep->scanned.archive_bytes_inflated, inv->bytes_inflated, true);
	GA_SET(rep->scanned.truncated, inv->truncated);
	rep->trees = alloc(&b, inv->n_trees, sizeof(*rep->trees));
	for (size_t i = 0; rep->trees && i < inv->n_trees; i++) {
		rep->trees[i].name = dup(&b, inv->trees[i].name);
		rep->trees[i].kind = dup(&b, inv->trees[i].kind);
		rep->trees[i].cuda_version_label = dup(&b, inv->trees[i].cuda_version_label);
		for (size_t k = 0; k < inv->trees[i].nvidia_env.n; k++)
			if (ga_strv_push(&rep->trees[i].nvidia_env, inv->trees[i].nvidia_env.v[k]) < 0)
				b.err = -ENOMEM;
		rep->n_trees = i + 1;
	}
	packages(&b, inv, rep);
	files(&b, inv, t, rep);
	rep->gaps = alloc(&b, inv->n_gaps, sizeof(*rep->gaps));
	for (size_t i = 0; rep->gaps && i < inv->n_gaps; i++) {
		rep->gaps[i].path = dup(&b, inv->gaps[i].path);
		rep->gaps[i].reason = dup(&b, inv->gaps[i].reason);
		rep->n_gaps = i + 1;
	}
	return b.err;
}
