/*
 * analyze/nodeclass.c - the node class fingerprint and the compile-cache key.
 *
 * The snapshot is reduced to the facts that make two nodes interchangeable,
 * written as canonical JSON (compact, keys in sorted order, integers and
 * strings only, absent values omitted) and hashed with SHA-256. Everything
 * that changes while a node runs (utilization, temperatures, clocks, power,
 * free memory, error counters, uptime) or that names one machine (hostname,
 * serials, UUIDs, boot id, PCI addresses) stays out, so the id moves only when
 * the hardware or the software stack does. docs/class.md lists the fields;
 * keep it in step with this file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sha2.h> /* libmd: SHA-256 without libcrypto's 3 ms of load time per process */

#include "../core/internal.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"

#define MODEL_MAX 64
#define GIB ((uint64_t)1 << 30)

/* One accelerator reduced to its class facts. Strings point into the node. */
struct dev {
	const char *vendor;
	char model[MODEL_MAX + 1]; /* normalised; "" when unknown */
	char pci_id[16];           /* "10de:20b0"; "" when unknown */
	bool mem_set;
	uint64_t mem_gib;
	const char *cc;                /* NVML compute capability "8.0" */
	const char *gfx;               /* AMD gfx target */
	const char *ic;                /* "nvswitch", "nvlink", "xgmi", "none" */
	uint64_t pcie_gen, pcie_width; /* 0 = unknown */
	int mig;                       /* -1 unknown, 0 off, 1 on */
	const char **mig_v;            /* sorted profile names ("3g.20gb"), when on */
	size_t mig_n;
	char *json; /* canonical object without the count, for grouping */
	size_t count;
};

/* One entry of the cache key: a device type a program can be compiled for. */
struct keydev {
	const struct dev *d;
	const char *mig; /* one MIG profile, or NULL for the whole GPU */
	char *json;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct dev *)a)->json, ((const struct dev *)b)->json);
}

static int cmp_keydev(const void *a, const void *b)
{
	return strcmp(((const struct keydev *)a)->json, ((const struct keydev *)b)->json);
}

static bool is_stopword(const char *t)
{
	static const char *const words[] = { "nvidia", "amd",  "ati",    "intel", "corporation",
		                             "inc",    "data", "center", "gpu" };
	for (size_t i = 0; i < GA_ARRAY_SIZE(words); i++)
		if (!strcmp(t, words[i]))
			return true;
	return false;
}

/*
 * "NVIDIA A100-SXM4-40GB" -> "a100-sxm4-40gb"; "AMD INSTINCT MI250X (MCM) OAM AC MBA"
 * -> "mi250x"; "Ponte Vecchio XT (2 Tile) [Data Center GPU Max 1550]" -> "max-1550".
 * pci.ids names read "Codename [Marketing name]": the bracket wins. Parenthesised
 * parts and vendor words are dropped; AMD's Instinct parts are named by their MI token.
 */
static void norm_model(const char *vendor, const char *model, char *out, size_t n)
{
	out[0] = '\0';
	if (!model)
		return;
	const char *s = model, *e = model + strlen(model);
	const char *lb = strchr(model, '['), *rb = lb ? strchr(lb, ']') : NULL;
	if (lb && rb && rb > lb + 1) {
		s = lb + 1;
		e = rb;
	}
	size_t len = 0;
	int depth = 0;
	while (s < e) {
		char tok[MODEL_MAX + 1];
		size_t tl = 0;
		for (; s < e; s++) {
			char ch = *s;
			if (ch == '(')
				depth++;
			else if (ch == ')' && depth > 0)
				depth--;
			if (depth || ch == ')')
				continue;
			if (ch >= 'A' && ch <= 'Z')
				ch = (char)(ch - 'A' + 'a');
			if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.') {
				if (tl < MODEL_MAX)
					tok[tl++] = ch;
			} else if (tl) {
				break;
			}
		}
		while (tl && tok[tl - 1] == '.')
			tl--;
		tok[tl] = '\0';
		char *t = tok;
		while (*t == '.')
			t++;
		if (!*t || is_stopword(t))
			continue;
		if (vendor && !strcmp(vendor, "amd") && t[0] == 'm' && t[1] == 'i' && t[2] >= '0' &&
		    t[2] <= '9') {
			snprintf(out, n, "%s", t);
			return;
		}
		size_t tlen = strlen(t);
		if (len + (len ? 1 : 0) + tlen >= n)
			break;
		if (len)
			out[len++] = '-';
		memcpy(out + len, t, tlen + 1);
		len += tlen;
	}
}

/* Lowercase, and anything outside [a-z0-9._+-] becomes '-': usable as a file name. */
static void sanitize(char *s)
{
	for (; *s; s++) {
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
		else if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
		           *s == '+' || *s == '-'))
			*s = '-';
	}
}

static uint64_t pcie_gen(double gts)
{
	return gts >= 60 ? 6 : gts >= 30 ? 5 : gts >= 15 ? 4 : gts >= 7 ? 3 : gts >= 4 ? 2 : gts >= 2 ? 1 : 0;
}

/* Host memory: nearest 8 GiB (BIOS and kernel reservations differ by a few hundred MiB
 * between identical machines); below 8 GiB the nearest GiB, so small VMs never read 0. */
static uint64_t host_mem_gib(uint64_t bytes)
{
	if (bytes < 8 * GIB)
		return (bytes + GIB / 2) / GIB;
	return (bytes + 4 * GIB) / (8 * GIB) * 8;
}

static const char *interconnect(const struct ga_accel *a)
{
	bool nvlink = false;
	for (size_t i = 0; i < a->interconnect.n; i++) {
		if (ga_startswith(a->interconnect.v[i], "nvswitch"))
			return "nvswitch";
		if (ga_startswith(a->interconnect.v[i], "xgmi"))
			return "xgmi";
	}
	for (size_t i = 0; a->nvml && i < a->nvml->n_nvlinks; i++) {
		const struct ga_nvml_link *l = &a->nvml->nvlinks[i];
		if (!l->active.set || !l->active.v)
			continue;
		if (l->remote_type && !strcmp(l->remote_type, "switch"))
			return "nvswitch";
		nvlink = true;
	}
	return nvlink ? "nvlink" : "none";
}

static void kv_str(struct ga_json *w, const char *k, const char *v)
{
	if (v) {
		ga_json_key(w, k);
		ga_json_str(w, v);
	}
}

static void kv_u64(struct ga_json *w, const char *k, bool set, uint64_t v)
{
	if (set) {
		ga_json_key(w, k);
		ga_json_u64(w, v);
	}
}

/* The device object, keys in sorted order; count 0 leaves the count out. */
static void write_dev(struct ga_json *w, const struct dev *d, size_t count)
{
	ga_json_obj_begin(w);
	kv_str(w, "compute_capability", d->cc);
	kv_u64(w, "count", count > 0, count);
	kv_str(w, "gfx_target", d->gfx);
	kv_str(w, "interconnect", d->ic);
	kv_u64(w, "memory_gib", d->mem_set, d->mem_gib);
	if (d->mig >= 0) {
		ga_json_key(w, "mig");
		ga_json_obj_begin(w);
		ga_json_key(w, "enabled");
		ga_json_bool(w, d->mig == 1);
		if (d->mig == 1) {
			ga_json_key(w, "instances");
			ga_json_arr_begin(w);
			for (size_t i = 0; i < d->mig_n; i++)
				ga_json_str(w, d->mig_v[i]);
			ga_json_arr_end(w);
		}
		ga_json_obj_end(w);
	}
	kv_str(w, "model", d->model[0] ? d->model : NULL);
	kv_str(w, "pci_id", d->pci_id[0] ? d->pci_id : NULL);
	kv_u64(w, "pcie_gen", d->pcie_gen > 0, d->pcie_gen);
	kv_u64(w, "pcie_width", d->pcie_width > 0, d->pcie_width);
	kv_str(w, "vendor", d->vendor);
	ga_json_obj_end(w);
}

static void write_keydev(struct ga_json *w, const struct keydev *k)
{
	ga_json_obj_begin(w);
	kv_str(w, "compute_capability", k->d->cc);
	kv_str(w, "gfx_target", k->d->gfx);
	kv_str(w, "mig", k->mig);
	kv_str(w, "model", k->d->model[0] ? k->d->model : NULL);
	kv_str(w, "vendor", k->d->vendor);
	ga_json_obj_end(w);
}

/* Finish a compact writer and take its text. */
static int take_json(struct ga_json *w, struct ga_buf *b, char **ret)
{
	int r = ga_json_finish(w);
	if (r < 0) {
		ga_buf_release(b);
		return r == -EINVAL ? -EINVAL : -ENOMEM;
	}
	char *s = ga_buf_detach(b, NULL);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int sha256_hex(const char *s, char **ret)
{
	char *hex = ga_malloc(SHA256_DIGEST_STRING_LENGTH);
	if (!hex)
		return -ENOMEM;
	SHA256Data((const uint8_t *)s, strlen(s), hex); /* lowercase hex, NUL-terminated */
	*ret = hex;
	return 0;
}

static int fill_dev(const struct ga_node *n, const struct ga_accel *a, struct dev *d)
{
	const struct ga_nvml_gpu *g = a->nvml;
	const struct ga_pci_dev *pd = ga_node_pci_find(n, a->address);
	d->vendor = a->vendor;
	d->mig = -1;
	norm_model(a->vendor, g && g->name ? g->name : a->model, d->model, sizeof(d->model));
	if (pd && pd->vendor_id.set && pd->device_id.set)
		snprintf(d->pci_id, sizeof(d->pci_id), "%04llx:%04llx",
		         (unsigned long long)(pd->vendor_id.v & 0xffff),
		         (unsigned long long)(pd->device_id.v & 0xffff));
	const struct ga_ou64 *mem =
	        g && g->memory_total_bytes.set ? &g->memory_total_bytes : &a->memory_bytes;
	if (mem->set) {
		d->mem_set = true;
		d->mem_gib = (mem->v + GIB / 2) / GIB;
	}
	d->cc = g ? g->compute_capability : NULL;
	d->gfx = a->gfx_target;
	d->ic = interconnect(a);
	if (pd && pd->link.max_speed_gts.set)
		d->pcie_gen = pcie_gen(pd->link.max_speed_gts.v);
	if (pd && pd->link.max_width.set)
		d->pcie_width = pd->link.max_width.v;
	if (g && g->mig_enabled.set) {
		d->mig = g->mig_enabled.v ? 1 : 0;
		if (d->mig == 1 && g->n_mig_instances) {
			d->mig_v = ga_calloc(g->n_mig_instances, sizeof(*d->mig_v));
			if (!d->mig_v)
				return -ENOMEM;
			for (size_t i = 0; i < g->n_mig_instances; i++) {
				const char *nm = g->mig_instances[i].name;
				const char *p = nm ? strstr(nm, "MIG ") : NULL;
				if (!nm)
					continue;
				d->mig_v[d->mig_n++] = p ? p + 4 : nm;
			}
			if (d->mig_n)
				qsort(d->mig_v, d->mig_n, sizeof(*d->mig_v), cmp_str);
		}
	}
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, false);
	write_dev(&w, d, 0);
	return take_json(&w, &b, &d->json);
}

static void write_hw(struct ga_json *w, const struct ga_node *n, const struct dev *devs, size_t ndev)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "accelerators");
	if (!ga_node_pci_known(n) && !ndev) {
		/* the bus was not read: unknown, not the empty list of a CPU-only node */
		ga_json_null(w);
	} else {
		ga_json_arr_begin(w);
		for (size_t i = 0; i < ndev; i++)
			if (devs[i].count)
				write_dev(w, &devs[i], devs[i].count);
		ga_json_arr_end(w);
	}
	const struct ga_cpu *c = &n->cpu;
	if (c->arch || c->model_name || c->sockets.set) {
		ga_json_key(w, "cpu");
		ga_json_obj_begin(w);
		kv_str(w, "arch", c->arch);
		kv_str(w, "model", c->model_name);
		kv_u64(w, "sockets", c->sockets.set, c->sockets.v);
		ga_json_obj_end(w);
	}
	kv_u64(w, "memory_gib", c->mem_total_bytes.set, host_mem_gib(c->mem_total_bytes.v));
	ga_json_obj_end(w);
}

static const char *rocm_version(const struct ga_node *n)
{
	const struct ga_runtime *rt = ga_node_runtime(n, "rocm");
	return rt ? rt->version : NULL;
}

static const char *cuda_version(const struct ga_node *n)
{
	return n->nvml ? n->nvml->cuda_driver_version : NULL;
}

static int write_stack(struct ga_json *w, const struct ga_node *n)
{
	const char **names = NULL;
	size_t nn = 0;
	if (n->n_drivers) {
		names = ga_calloc(n->n_drivers, sizeof(*names));
		if (!names)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n->n_drivers; i++)
		if (n->drivers[i].name)
			names[nn++] = n->drivers[i].name;
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	ga_json_obj_begin(w);
	kv_str(w, "cuda", cuda_version(n));
	if (nn) {
		ga_json_key(w, "drivers");
		ga_json_obj_begin(w);
		for (size_t i = 0; i < nn; i++) {
			if (i && !strcmp(names[i], names[i - 1]))
				continue;
			const struct ga_driver *d = ga_node_driver(n, names[i]);
			ga_json_key(w, d->name);
			ga_json_obj_begin(w);
			kv_str(w, "flavor", d->flavor);
			kv_str(w, "version", d->version);
			ga_json_obj_end(w);
		}
		ga_json_obj_end(w);
	}
	kv_str(w, "kernel", n->host.kernel_release);
	if (n->host.os.id || n->host.os.version_id) {
		ga_json_key(w, "os");
		ga_json_obj_begin(w);
		kv_str(w, "id", n->host.os.id);
		kv_str(w, "version_id", n->host.os.version_id);
		ga_json_obj_end(w);
	}
	kv_str(w, "rocm", rocm_version(n));
	ga_json_obj_end(w);
	ga_free(names);
	return 0;
}

/* "a100-sxm4-40gb-x8-nvswitch", "mi250x-x8-xgmi", "a100-x4+a10-x2", "cpu-x86-64-v4". */
static int make_name(const struct ga_node *n, const struct dev *devs, size_t ndev, char **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = 0;
	const char *ic = NULL;
	bool mig = false, mixed_ic = false, any = false;
	for (size_t i = 0; i < ndev && r == 0; i++) {
		if (!devs[i].count)
			continue;
		any = true;
		if (ic && strcmp(ic, devs[i].ic))
			mixed_ic = true;
		ic = devs[i].ic;
		mig |= devs[i].mig == 1;
		/* one "model-xN" per model, counted over all its groups, in group order */
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = devs[k].count && !strcmp(devs[k].model, devs[i].model) &&
			       !strcmp(devs[k].vendor ? devs[k].vendor : "",
			               devs[i].vendor ? devs[i].vendor : "");
		if (seen)
			continue;
		size_t cnt = 0;
		for (size_t k = i; k < ndev; k++)
			if (devs[k].count && !strcmp(devs[k].model, devs[i].model) &&
			    !strcmp(devs[k].vendor ? devs[k].vendor : "",
			            devs[i].vendor ? devs[i].vendor : ""))
				cnt += devs[k].count;
		if (b.len)
			r = ga_buf_addc(&b, '+');
		if (r == 0 && devs[i].model[0])
			r = ga_buf_adds(&b, devs[i].model);
		else if (r == 0)
			r = ga_buf_addf(&b, "%s%s%s", devs[i].vendor ? devs[i].vendor : "unknown",
			                devs[i].pci_id[0] ? "-" : "",
			                devs[i].pci_id[0] ? devs[i].pci_id + 5 : "");
		if (r == 0)
			r = ga_buf_addf(&b, "-x%zu", cnt);
	}
	if (r == 0 && any && ic && !mixed_ic && strcmp(ic, "none"))
		r = ga_buf_addf(&b, "-%s", ic);
	if (r == 0 && mig)
		r = ga_buf_adds(&b, "-mig");
	if (r == 0 && !any && !ga_node_pci_known(n)) /* the bus was not read: not a CPU node */
		r = ga_buf_adds(&b, "unknown-accelerators");
	else if (r == 0 && !any)
		r = ga_buf_addf(&b, "cpu-%s",
		                n->cpu.isa_level ? n->cpu.isa_level
		                : n->cpu.arch    ? n->cpu.arch
		                                 : "unknown");
	if (r < 0) {
		ga_buf_release(&b);
		return -ENOMEM;
	}
	char *s = ga_buf_detach(&b, NULL);
	if (!s)
		return -ENOMEM;
	sanitize(s);
	*ret = s;
	return 0;
}

static const char *nvidia_driver(const struct ga_node *n)
{
	const struct ga_driver *d = ga_node_driver(n, "nvidia");
	if (d && d->version)
		return d->version;
	return n->nvml ? n->nvml->driver_version : NULL;
}

/* key_json and the readable key; kd holds the sorted, unique device types. */
static int make_key(const struct ga_node *n, const struct dev *devs, size_t ndev, struct ga_nodeclass *c)
{
	struct keydev *kd = NULL;
	size_t nk = 0, cap = 0;
	bool nvidia = false, amd = false;
	struct ga_buf b, kb;
	struct ga_json w;
	int r = 0;
	ga_buf_init(&b, 0);
	ga_buf_init(&kb, 0);
	for (size_t i = 0; i < ndev; i++) {
		if (!devs[i].count)
			continue;
		cap += devs[i].mig == 1 && devs[i].mig_n ? devs[i].mig_n : 1;
		nvidia |= devs[i].vendor && !strcmp(devs[i].vendor, "nvidia");
		amd |= devs[i].vendor && !strcmp(devs[i].vendor, "amd");
	}
	if (cap) {
		kd = ga_calloc(cap, sizeof(*kd));
		if (!kd)
			return -ENOMEM;
	}
	for (size_t i = 0; i < ndev && r == 0; i++) {
		if (!devs[i].count)
			continue;
		size_t m = devs[i].mig == 1 && devs[i].mig_n ? devs[i].mig_n : 1;
		for (size_t k = 0; k < m && r == 0; k++) {
			struct keydev *e = &kd[nk++];
			e->d = &devs[i];
			e->mig = devs[i].mig == 1 && devs[i].mig_n ? devs[i].mig_v[k] : NULL;
			ga_json_init(&w, &b, false);
			write_keydev(&w, e);
			r = take_json(&w, &b, &e->json);
		}
	}
	if (r < 0)
		goto out;
	if (nk)
		qsort(kd, nk, sizeof(*kd), cmp_keydev);
	ga_json_init(&w, &b, false);
	ga_json_obj_begin(&w);
	if (!nk) {
		ga_json_key(&w, "cpu");
		ga_json_obj_begin(&w);
		kv_str(&w, "arch", n->cpu.arch);
		kv_str(&w, "isa_level", n->cpu.isa_level);
		ga_json_obj_end(&w);
	} else {
		kv_str(&w, "cuda", nvidia ? cuda_version(n) : NULL);
		ga_json_key(&w, "devices");
		ga_json_arr_begin(&w);
		for (size_t i = 0; i < nk; i++)
			if (!i || strcmp(kd[i].json, kd[i - 1].json))
				write_keydev(&w, &kd[i]);
		ga_json_arr_end(&w);
		kv_str(&w, "driver", nvidia ? nvidia_driver(n) : NULL);
		kv_str(&w, "rocm", amd ? rocm_version(n) : NULL);
	}
	ga_json_obj_end(&w);
	char *kj = NULL, *kh = NULL;
	r = take_json(&w, &b, &kj);
	if (r == 0)
		r = sha256_hex(kj, &kh);
	if (r < 0)
		goto fail;

	/* readable: device types (without MIG), MIG profiles, versions, hash */
	for (size_t i = 0; i < nk && r == 0; i++) {
		const struct dev *d = kd[i].d;
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++) {
			const struct dev *o = kd[k].d;
			dup = !strcmp(o->json, d->json) ||
			      (!strcmp(o->model, d->model) &&
			       !strcmp(o->vendor ? o->vendor : "", d->vendor ? d->vendor : "") &&
			       !strcmp(o->cc ? o->cc : "", d->cc ? d->cc : "") &&
			       !strcmp(o->gfx ? o->gfx : "", d->gfx ? d->gfx : ""));
		}
		if (dup)
			continue;
		if (kb.len)
			r = ga_buf_addc(&kb, '+');
		if (r == 0)
			r = ga_buf_addf(&kb, "%s-%s", d->vendor ? d->vendor : "unknown",
			                d->model[0]    ? d->model
			                : d->pci_id[0] ? d->pci_id
			                               : "unknown");
		if (r == 0 && d->cc) {
			r = ga_buf_adds(&kb, "-sm");
			for (const char *p = d->cc; *p && r == 0; p++)
				if (*p != '.')
					r = ga_buf_addc(&kb, *p);
		}
		if (r == 0 && d->gfx)
			r = ga_buf_addf(&kb, "-%s", d->gfx);
	}
	bool first = true;
	for (size_t i = 0; i < nk && r == 0; i++) {
		if (!kd[i].mig)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = kd[k].mig && !strcmp(kd[k].mig, kd[i].mig);
		if (!dup)
			r = ga_buf_addf(&kb, "%s%s", first ? "-mig" : "+", kd[i].mig);
		first = false;
	}
	if (r == 0 && !nk)
		r = ga_buf_addf(&kb, "cpu-%s",
		                n->cpu.isa_level ? n->cpu.isa_level
		                : n->cpu.arch    ? n->cpu.arch
		                                 : "unknown");
	if (r == 0 && nvidia && nvidia_driver(n))
		r = ga_buf_addf(&kb, "-drv%s", nvidia_driver(n));
	if (r == 0 && nvidia && cuda_version(n))
		r = ga_buf_addf(&kb, "-cuda%s", cuda_version(n));
	if (r == 0 && amd && rocm_version(n))
		r = ga_buf_addf(&kb, "-rocm%s", rocm_version(n));
	if (r == 0)
		r = ga_buf_addf(&kb, "-%.8s", kh);
	char *key = r == 0 ? ga_buf_detach(&kb, NULL) : NULL;
	if (!key) {
		r = -ENOMEM;
		goto fail;
	}
	sanitize(key);
	c->key = key;
	c->key_json = kj;
	ga_free(kh);
	goto out;
fail:
	ga_free(kj);
	ga_free(kh);
	r = -ENOMEM;
out:
	for (size_t i = 0; i < nk; i++)
		ga_free(kd[i].json);
	ga_free(kd);
	ga_buf_release(&b);
	ga_buf_release(&kb);
	return r;
}

void ga_nodeclass_release(struct ga_nodeclass *c)
{
	if (!c)
		return;
	ga_free(c->id);
	ga_free(c->name);
	ga_free(c->hw_sha256);
	ga_free(c->stack_sha256);
	ga_free(c->hw_json);
	ga_free(c->stack_json);
	ga_free(c->key);
	ga_free(c->key_json);
	memset(c, 0, sizeof(*c));
}

int ga_nodeclass_compute(const struct ga_node *n, struct ga_nodeclass *out)
{
	struct ga_nodeclass c = { 0 };
	struct dev *devs = NULL;
	size_t ndev = n->n_accelerators;
	struct ga_buf b;
	struct ga_json w;
	int r = 0;
	ga_buf_init(&b, 0);
	if (ndev) {
		devs = ga_calloc(ndev, sizeof(*devs));
		if (!devs)
			return -ENOMEM;
	}
	for (size_t i = 0; i < ndev && r == 0; i++)
		r = fill_dev(n, &n->accelerators[i], &devs[i]);
	if (r < 0)
		goto out;
	/* group identical devices: sort by canonical text, count each run on its first */
	if (ndev)
		qsort(devs, ndev, sizeof(*devs), cmp_dev);
	for (size_t i = 0, g = 0; i < ndev; i++) {
		if (i && !strcmp(devs[i].json, devs[g].json)) {
			devs[g].count++;
			continue;
		}
		g = i;
		devs[g].count = 1;
	}

	ga_json_init(&w, &b, false);
	write_hw(&w, n, devs, ndev);
	r = take_json(&w, &b, &c.hw_json);
	if (r < 0)
		goto out;
	ga_json_init(&w, &b, false);
	r = write_stack(&w, n);
	if (r == 0)
		r = take_json(&w, &b, &c.stack_json);
	if (r == 0)
		r = sha256_hex(c.hw_json, &c.hw_sha256);
	if (r == 0)
		r = sha256_hex(c.stack_json, &c.stack_sha256);
	if (r == 0)
		r = make_name(n, devs, ndev, &c.name);
	if (r == 0)
		r = make_key(n, devs, ndev, &c);
	if (r < 0)
		goto out;
	size_t idlen = strlen(c.name) + 1 + 8 + 1 + 8 + 1;
	c.id = ga_malloc(idlen);
	if (!c.id) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(c.id, idlen, "%s-%.8s.%.8s", c.name, c.hw_sha256, c.stack_sha256);
	*out = c;
	memset(&c, 0, sizeof(c));
out:
	for (size_t i = 0; i < ndev; i++) {
		ga_free(devs[i].mig_v);
		ga_free(devs[i].json);
	}
	ga_free(devs);
	ga_buf_release(&b);
	ga_nodeclass_release(&c);
	return r < 0 ? -ENOMEM : 0;
}
