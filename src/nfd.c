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
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/node.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/verdict.h"

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
static int ctr_labels(struct ga_buf *b, const struct ga_node *n, const struct ga_node_verdict *v)
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
	for (size_t i = 0; i < v->runtime_wired.n; i++) {
		size_t l = strlen(wired);
		snprintf(wired + l, sizeof(wired) - l, "%s%s", l ? "." : "", v->runtime_wired.v[i]);
	}
	if (r == 0 && cr->n_engines)
		r = add_label(b, "container-wired", *wired ? wired : "none");
	if (r == 0 && v->runtime_default_nvidia.set)
		r = add_label(b, "container-default-nvidia", v->runtime_default_nvidia.v ? "true" : "false");
	return r;
}

/*
 * The container layer's labels (docs/container.md), the verdict's states as they are
 * named (verdict.h): `cdi` = current, stale, incomplete, invalid or none;
 * `device-plugin` = ok, partial, missing or unknown. Each only when the node has the section.
 */
static int container_labels(struct ga_buf *b, const struct ga_node_verdict *v)
{
	int r = 0;
	if (v->cdi != GA_VD_CDI_ABSENT)
		r = add_label(b, "cdi", ga_vd_cdi_names[v->cdi]);
	if (r == 0 && v->device_plugin != GA_VD_DP_ABSENT)
		r = add_label(b, "device-plugin", ga_vd_dp_names[v->device_plugin]);
	return r;
}

int cli_nfd_labels(struct ga_buf *b, const char *writer, const struct ga_node *n,
                   const struct ga_node_verdict *v, const struct ga_check *c, long expiry_s)
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
	if (r == 0)
		r = add_label(b, "vendor", a ? a->vendor : "none");
	if (r == 0)
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
	if (r == 0 && v->node_class) {
		char hw[16], stack[16];
		snprintf(hw, sizeof(hw), "%.12s", v->hw_class ? v->hw_class : "");
		snprintf(stack, sizeof(stack), "%.12s", v->stack_class ? v->stack_class : "");
		r = add_label(b, "node-class", v->node_class);
		if (r == 0)
			r = add_label(b, "hw-class", hw);
		if (r == 0)
			r = add_label(b, "stack-class", stack);
	}
	if (n->nvml && !n->nvml->error && n->nvml->cuda_driver_version)
		if (r == 0)
			r = add_label(b, "cuda", n->nvml->cuda_driver_version);
	if (r == 0)
		r = ctr_labels(b, n, v);
	if (r == 0)
		r = container_labels(b, v);
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
