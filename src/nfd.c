/*
 * nfd.c - the Node Feature Discovery local feature file (labels for the node's
 * class, check result, accelerators and driver), written atomically. Shared by
 * `check --nfd-dir` and `serve --nfd-dir`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/container.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/policy.h"

#define NFD_PREFIX "gpuaudit.feature.node.kubernetes.io/"

/* Label value rules: <= 63 of [A-Za-z0-9._-], alphanumeric at both ends; "" when nothing is left. */
static void label_value(char *out, size_t n, const char *in)
{
	size_t len = 0;
	bool dash = false;
	for (const char *p = in ? in : ""; *p && len + 1 < n && len < 63; p++) {
		unsigned char ch = (unsigned char)*p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		          ch == '.' || ch == '_' || ch == '-';
		if (ok) {
			out[len++] = (char)ch;
			dash = false;
		} else if (!dash && len) {
			out[len++] = '-';
			dash = true;
		}
	}
	out[len] = '\0';
	size_t s = 0;
	while (out[s] && !((out[s] >= 'a' && out[s] <= 'z') || (out[s] >= 'A' && out[s] <= 'Z') ||
	                   (out[s] >= '0' && out[s] <= '9')))
		s++;
	memmove(out, out + s, len - s + 1);
	len -= s;
	while (len && !((out[len - 1] >= 'a' && out[len - 1] <= 'z') ||
	                (out[len - 1] >= 'A' && out[len - 1] <= 'Z') ||
	                (out[len - 1] >= '0' && out[len - 1] <= '9')))
		out[--len] = '\0';
}

static int add_label(struct ga_buf *b, const char *name, const char *value)
{
	char v[64];
	label_value(v, sizeof(v), value);
	if (!*v)
		return 0;
	return ga_buf_addf(b, NFD_PREFIX "%s=%s\n", name, v);
}

/*
 * The container layer (issue 21), when the snapshot has one: the NVIDIA toolkit (installed,
 * version, mode), the engines wired to it (dot-joined: "containerd.docker"), and whether each of
 * those defaults to it, so a scheduler can keep GPU pods off nodes whose runtime cannot serve them.
 */
static int ctr_labels(struct ga_buf *b, const struct ga_node *n)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	if (!cr)
		return 0;
	int r = 0;
	for (size_t i = 0; i < cr->n_toolkits && r == 0; i++) {
		const struct ga_ctr_toolkit *tk = &cr->toolkits[i];
		if (!tk->vendor || strcmp(tk->vendor, "nvidia") != 0)
			continue;
		r = add_label(b, "container-toolkit", tk->installed.v ? "true" : "false");
		if (r == 0 && tk->installed.v && tk->version)
			r = add_label(b, "container-toolkit-version", tk->version);
		if (r == 0 && tk->installed.v && tk->config)
			r = add_label(b, "container-toolkit-mode", tk->mode ? tk->mode : "auto");
	}
	char wired[64] = "";
	bool all_default = true;
	for (size_t i = 0; i < cr->n_engines; i++) {
		const struct ga_ctr_engine *e = &cr->engines[i];
		if (!e->wired.v || !e->name)
			continue;
		size_t l = strlen(wired);
		snprintf(wired + l, sizeof(wired) - l, "%s%s", l ? "." : "", e->name);
		all_default &= e->default_nvidia.v;
	}
	if (r == 0 && cr->n_engines)
		r = add_label(b, "container-wired", *wired ? wired : "none");
	if (r == 0 && *wired)
		r = add_label(b, "container-default-nvidia", all_default ? "true" : "false");
	return r;
}

/*
 * The container layer's labels (docs/container.md): `cdi` = current, stale (a
 * spec for another driver, or naming paths that are gone), incomplete (a GPU
 * or MIG device no spec lists, or an entry for one that is gone), invalid or
 * none; `device-plugin` = ok, partial (fewer devices registered than healthy
 * GPUs) or missing. Each only when the node has the section.
 */
static int container_labels(struct ga_buf *b, const struct ga_node *n)
{
	struct ga_findings f;
	ga_findings_init(&f);
	ga_analyze_cdi(n, &f);
	ga_analyze_device_plugins(n, &f);
	int r = f.err;
	bool stale = false, incomplete = false, invalid = false, partial = false, missing = false;
	for (size_t i = 0; i < f.n; i++) {
		const char *code = f.v[i].code;
		stale = stale || !strcmp(code, "GA-CDI-STALE") || !strcmp(code, "GA-CDI-PATH-MISSING");
		incomplete = incomplete || !strcmp(code, "GA-CDI-DEVICE-MISSING") ||
		             !strcmp(code, "GA-CDI-DEVICE-GONE");
		invalid = invalid || !strcmp(code, "GA-CDI-INVALID");
		partial = partial || !strcmp(code, "GA-DP-GPU-UNREGISTERED");
		missing = missing || !strcmp(code, "GA-DP-NOT-REGISTERED");
	}
	ga_findings_release(&f);
	if (r == 0 && n->cdi) {
		size_t readable = 0;
		for (size_t i = 0; i < n->cdi->n_specs; i++)
			readable += !n->cdi->specs[i].error;
		r = add_label(b, "cdi",
		              invalid         ? "invalid"
		              : stale         ? "stale"
		              : incomplete    ? "incomplete"
		              : readable == 0 ? "none"
		                              : "current");
	}
	if (r == 0 && n->device_plugins)
		r = add_label(b, "device-plugin", missing ? "missing" : partial ? "partial" : "ok");
	return r;
}

int cli_nfd_labels(struct ga_buf *b, const char *writer, const struct ga_node *n, const struct ga_check *c,
                   long expiry_s)
{
	time_t t = time(NULL) + expiry_s;
	struct tm tm;
	char ts[32];
	if (!gmtime_r(&t, &tm) || !strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -EINVAL;
	int r = ga_buf_addf(b, "# +expiry-time=%s\n# written by gpuaudit %s; do not edit\n", ts, writer);
	const struct ga_accel *a = NULL;
	size_t count = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *x = &n->accelerators[i];
		if (c && c->cls && c->cls->match.vendor &&
		    (!x->vendor || strcmp(x->vendor, c->cls->match.vendor)))
			continue;
		if (!a)
			a = x;
		count++;
	}
	char num[32];
	snprintf(num, sizeof(num), "%zu", count);
	if (r == 0 && c)
		r = add_label(b, "class", c->cls ? c->cls->name : "none");
	if (r == 0 && c)
		r = add_label(b, "check", ga_check_result_name(c->result));
	/* PCI not read (issue 26): the vendor is unknown and the count has no label, never 0 */
	bool known = ga_node_pci_known(n) || a;
	if (r == 0)
		r = add_label(b, "vendor", a ? a->vendor : known ? "none" : "unknown");
	if (r == 0 && known)
		r = add_label(b, "count", num);
	if (a) {
		if (r == 0)
			r = add_label(b, "model", a->model);
		if (a->nvml && a->nvml->compute_capability)
			if (r == 0)
				r = add_label(b, "cc", a->nvml->compute_capability);
		if (a->gfx_target)
			if (r == 0)
				r = add_label(b, "gfx", a->gfx_target);
		const char *dv = a->driver_version;
		for (size_t i = 0; i < n->n_drivers; i++)
			if (a->driver && n->drivers[i].name && !strcmp(a->driver, n->drivers[i].name) &&
			    n->drivers[i].version)
				dv = n->drivers[i].version;
		if (dv) {
			char major[32];
			snprintf(major, sizeof(major), "%.*s", (int)strcspn(dv, ".-"), dv);
			if (r == 0)
				r = add_label(b, "driver-major", major);
		}
	}
	/* the hardware/stack fingerprint (gpuaudit class): same id = same node class */
	struct ga_nodeclass nc = { 0 };
	if (r == 0 && ga_nodeclass_compute(n, &nc) == 0) {
		char hw[16], stack[16];
		snprintf(hw, sizeof(hw), "%.12s", nc.hw_sha256 ? nc.hw_sha256 : "");
		snprintf(stack, sizeof(stack), "%.12s", nc.stack_sha256 ? nc.stack_sha256 : "");
		r = add_label(b, "node-class", nc.name);
		if (r == 0)
			r = add_label(b, "hw-class", hw);
		if (r == 0)
			r = add_label(b, "stack-class", stack);
		ga_nodeclass_release(&nc);
	}
	if (n->nvml && !n->nvml->error && n->nvml->cuda_driver_version)
		if (r == 0)
			r = add_label(b, "cuda", n->nvml->cuda_driver_version);
	if (r == 0)
		r = ctr_labels(b, n);
	if (r == 0)
		r = container_labels(b, n);
	return r;
}

/*
 * Write DIR/gpuaudit atomically (ga_file_write_atomic_at: a new dot-file
 * DIR/.gpuaudit.tmp.XXXXXX, which NFD ignores, created O_EXCL|O_NOFOLLOW,
 * fsync, rename, the directory fsynced): nothing planted in DIR is followed.
 */
int cli_nfd_write(const char *dir, const struct ga_buf *b, char *err, size_t errn)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, errn, "cannot open --nfd-dir %s: %s", dir, strerror(errno));
		return -1;
	}
	struct ga_ctx *ctx = NULL;
	int r = ga_ctx_new(&ctx);
	if (r == 0)
		r = ga_file_write_atomic_at(ctx, dfd, dir, "gpuaudit", b->data, b->len, 0644);
	if (r < 0)
		snprintf(err, errn, "%s", ctx ? ga_ctx_errmsg(ctx) : strerror(-r));
	ga_ctx_free(ctx);
	close(dfd);
	return r < 0 ? -1 : 0;
}
