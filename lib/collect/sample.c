/*
 * sample.c - read the raw counters of one point in time for `gpuaudit record`:
 * proc/stat cpu lines, proc/pressure/{cpu,io,memory}, proc/meminfo,
 * proc/diskstats, sys/class/net/<if>/statistics/ and the amdgpu busy
 * percentages of sys/class/drm/cardN/device; and the boot clock (btime,
 * proc/uptime) for `health`. Everything goes through the
 * root-relative reader, so a fixture tree reads like the live machine.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuaudit/fs.h"
#include "gpuaudit/sample.h"
#include "gpuaudit/sample-read.h"

const char *const ga_psi_names[GA_PSI_N] = { "cpu", "io", "memory" };

#define PROC_CAP (4u << 20)

static void copy_name(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Parse an unsigned decimal at *p (leading blanks skipped); advance *p. */
static bool next_u64(const char **p, uint64_t *ret)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	*ret = v;
	*p = end;
	return true;
}

/* Next whitespace-delimited word at *p: start and length; advance *p. */
static size_t next_word(const char **p, const char **ret)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t' && *e != '\n')
		e++;
	*ret = s;
	*p = e;
	return (size_t)(e - s);
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? nl + 1 : NULL;
}

static int read_stat(struct ga_ctx *ctx, struct ga_sample_raw *s)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(ctx, "proc/stat", PROC_CAP, &b);
	if (r < 0) {
		ga_buf_release(&b);
		ga_log(ctx, GA_LOG_DEBUG, "proc/stat: %s", ga_fs_reason(r));
		return r == -ENOMEM ? r : 0;
	}
	r = 0;
	for (const char *p = b.data; p && *p; p = next_line(p)) {
		if (strncmp(p, "cpu", 3))
			continue;
		const char *q = p, *w = NULL;
		size_t wl = next_word(&q, &w);
		uint64_t v[8] = { 0 };
		size_t k = 0;
		while (k < 8 && next_u64(&q, &v[k]))
			k++;
		if (k < 4)
			continue; /* too short to be a cpu line */
		struct ga_cpu_raw *c = ga_array_push((void **)&s->cpus, &s->n_cpus, sizeof(*c));
		if (!c) {
			r = -ENOMEM;
			break;
		}
		copy_name(c->name, sizeof(c->name), w, wl);
		c->user = v[0], c->nice = v[1], c->system = v[2], c->idle = v[3];
		c->iowait = v[4], c->irq = v[5], c->softirq = v[6], c->steal = v[7];
	}
	ga_buf_release(&b);
	return r;
}

static void read_psi(struct ga_ctx *ctx, const char *res, struct ga_psi_raw *ret)
{
	char path[64];
	snprintf(path, sizeof(path), "proc/pressure/%s", res);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(ctx, path, 65536, &b) == 0) {
		for (const char *p = b.data; p && *p; p = next_line(p)) {
			struct ga_psi_line_raw *l = !strncmp(p, "some ", 5)   ? &ret->some
			                            : !strncmp(p, "full ", 5) ? &ret->full
			                                                      : NULL;
			if (!l)
				continue;
			const char *a = strstr(p, "avg10="), *t = strstr(p, "total=");
			const char *nl = strchr(p, '\n');
			if (!a || !t || (nl && (a > nl || t > nl)))
				continue;
			char *end = NULL;
			double avg = strtod(a + 6, &end);
			const char *tp = t + 6;
			uint64_t tot = 0;
			if (end == a + 6 || !(avg >= 0) || !next_u64(&tp, &tot))
				continue;
			l->avg10 = avg;
			l->total_us = tot;
			l->set = true;
		}
	}
	ga_buf_release(&b);
}

static void read_meminfo(struct ga_ctx *ctx, struct ga_mem_raw *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MemTotal:", offsetof(struct ga_mem_raw, total_bytes) },
		{ "MemAvailable:", offsetof(struct ga_mem_raw, available_bytes) },
		{ "Cached:", offsetof(struct ga_mem_raw, cached_bytes) },
		{ "Dirty:", offsetof(struct ga_mem_raw, dirty_bytes) },
	};
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(ctx, "proc/meminfo", PROC_CAP, &b) == 0) {
		for (const char *p = b.data; p && *p; p = next_line(p)) {
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				size_t kl = strlen(keys[i].key);
				if (strncmp(p, keys[i].key, kl))
					continue;
				const char *q = p + kl;
				uint64_t v = 0;
				if (next_u64(&q, &v) && v <= UINT64_MAX / 1024) {
					struct ga_ou64 *o = (struct ga_ou64 *)((char *)m + keys[i].off);
					GA_SET(*o, v * 1024); /* kB */
				}
			}
		}
	}
	ga_buf_release(&b);
}

static bool skip_disk(const char *name, size_t n)
{
	return (n >= 4 && !strncmp(name, "loop", 4)) || (n >= 3 && !strncmp(name, "ram", 3));
}

static int read_diskstats(struct ga_ctx *ctx, struct ga_sample_raw *s)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(ctx, "proc/diskstats", PROC_CAP, &b);
	if (r < 0) {
		ga_buf_release(&b);
		ga_log(ctx, GA_LOG_DEBUG, "proc/diskstats: %s", ga_fs_reason(r));
		return r == -ENOMEM ? r : 0;
	}
	r = 0;
	for (const char *p = b.data; p && *p; p = next_line(p)) {
		const char *q = p, *w = NULL;
		uint64_t major, minor, v[10];
		if (!next_u64(&q, &major) || !next_u64(&q, &minor))
			continue;
		size_t wl = next_word(&q, &w);
		if (!wl || skip_disk(w, wl))
			continue;
		size_t k = 0;
		while (k < 10 && next_u64(&q, &v[k]))
			k++;
		if (k < 10)
			continue;
		struct ga_disk_raw *d = ga_array_push((void **)&s->disks, &s->n_disks, sizeof(*d));
		if (!d) {
			r = -ENOMEM;
			break;
		}
		copy_name(d->name, sizeof(d->name), w, wl);
		d->reads = v[0], d->read_sectors = v[2], d->read_ms = v[3];
		d->writes = v[4], d->write_sectors = v[6], d->write_ms = v[7];
		d->io_ticks_ms = v[9];
	}
	ga_buf_release(&b);
	return r;
}

static void read_u64_attr(struct ga_ctx *ctx, const char *path, struct ga_ou64 *o)
{
	char *s = NULL;
	if (ga_fs_read_attr(ctx, path, &s) == 0) {
		const char *p = s;
		uint64_t v = 0;
		if (next_u64(&p, &v) && *p == '\0')
			GA_SET(*o, v);
	}
	ga_free(s);
}

static int read_nets(struct ga_ctx *ctx, struct ga_sample_raw *s)
{
	static const struct {
		const char *file;
		size_t off;
	} stats[] = {
		{ "rx_bytes", offsetof(struct ga_net_raw, rx_bytes) },
		{ "tx_bytes", offsetof(struct ga_net_raw, tx_bytes) },
		{ "rx_packets", offsetof(struct ga_net_raw, rx_packets) },
		{ "tx_packets", offsetof(struct ga_net_raw, tx_packets) },
		{ "rx_dropped", offsetof(struct ga_net_raw, rx_dropped) },
		{ "tx_dropped", offsetof(struct ga_net_raw, tx_dropped) },
		{ "rx_errors", offsetof(struct ga_net_raw, rx_errors) },
		{ "tx_errors", offsetof(struct ga_net_raw, tx_errors) },
	};
	char **names = NULL;
	size_t n = 0;
	if (ga_fs_list(ctx, "sys/class/net", &names, &n) < 0)
		return 0;
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		char dir[256];
		snprintf(dir, sizeof(dir), "sys/class/net/%s/statistics", names[i]);
		if (!ga_fs_is_dir(ctx, dir))
			continue;
		struct ga_net_raw *nr = ga_array_push((void **)&s->nets, &s->n_nets, sizeof(*nr));
		if (!nr) {
			r = -ENOMEM;
			break;
		}
		copy_name(nr->name, sizeof(nr->name), names[i], strlen(names[i]));
		for (size_t k = 0; k < sizeof(stats) / sizeof(stats[0]); k++) {
			char path[320];
			snprintf(path, sizeof(path), "%s/%s", dir, stats[k].file);
			read_u64_attr(ctx, path, (struct ga_ou64 *)((char *)nr + stats[k].off));
		}
	}
	ga_strv_free(names);
	return r;
}

static bool is_card(const char *name)
{
	if (strncmp(name, "card", 4) || !name[4])
		return false;
	for (const char *p = name + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static void read_pct_attr(struct ga_ctx *ctx, const char *path, struct ga_oi64 *o)
{
	char *s = NULL;
	if (ga_fs_read_attr(ctx, path, &s) == 0) {
		char *end = NULL;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (!errno && end != s && *end == '\0' && v >= 0 && v <= 100)
			GA_SET(*o, v);
	}
	ga_free(s);
}

static int read_gpus(struct ga_ctx *ctx, struct ga_sample_raw *s)
{
	char **names = NULL;
	size_t n = 0;
	if (ga_fs_list(ctx, "sys/class/drm", &names, &n) < 0)
		return 0;
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_card(names[i]))
			continue;
		char dev[256], path[320];
		snprintf(dev, sizeof(dev), "sys/class/drm/%s/device", names[i]);
		if (!ga_fs_is_dir(ctx, dev))
			continue;
		struct ga_gpu_raw *g = ga_array_push((void **)&s->gpus, &s->n_gpus, sizeof(*g));
		if (!g) {
			r = -ENOMEM;
			break;
		}
		copy_name(g->card, sizeof(g->card), names[i], strlen(names[i]));
		char *res = NULL;
		if (ga_fs_resolve_link(ctx, dev, &res) == 0 && res) {
			const char *base = strrchr(res, '/');
			base = base ? base + 1 : res;
			if (strcmp(base, "device"))
				copy_name(g->address, sizeof(g->address), base, strlen(base));
		}
		ga_free(res);
		char *vendor = NULL;
		snprintf(path, sizeof(path), "%s/vendor", dev);
		if (ga_fs_read_attr(ctx, path, &vendor) == 0)
			copy_name(g->vendor, sizeof(g->vendor), vendor, strlen(vendor));
		ga_free(vendor);
		snprintf(path, sizeof(path), "%s/gpu_busy_percent", dev);
		read_pct_attr(ctx, path, &g->gpu_busy_pct);
		snprintf(path, sizeof(path), "%s/mem_busy_percent", dev);
		read_pct_attr(ctx, path, &g->mem_busy_pct);
	}
	ga_strv_free(names);
	return r;
}

int ga_sample_read(struct ga_ctx *ctx, struct ga_sample_raw *ret)
{
	memset(ret, 0, sizeof(*ret));
	int r = read_stat(ctx, ret);
	for (int i = 0; r == 0 && i < GA_PSI_N; i++)
		read_psi(ctx, ga_psi_names[i], &ret->psi[i]);
	if (r == 0)
		read_meminfo(ctx, &ret->mem);
	if (r == 0)
		r = read_diskstats(ctx, ret);
	if (r == 0)
		r = read_nets(ctx, ret);
	if (r == 0)
		r = read_gpus(ctx, ret);
	if (r < 0) {
		ga_sample_raw_release(ret);
		return ga_err(ctx, r, "reading a sample: %s", strerror(-r));
	}
	return 0;
}

void ga_sample_raw_release(struct ga_sample_raw *s)
{
	if (!s)
		return;
	ga_free(s->cpus);
	ga_free(s->disks);
	ga_free(s->nets);
	ga_free(s->gpus);
	memset(s, 0, sizeof(*s));
}

void ga_proc_btime(struct ga_ctx *ctx, struct ga_oi64 *ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_fs_read(ctx, "proc/stat", 1 << 20, &b) == 0 && b.data) {
		const char *p = strstr(b.data, "\nbtime ");
		if (!p && !strncmp(b.data, "btime ", 6))
			p = b.data - 1;
		if (p) {
			char *end = NULL;
			errno = 0;
			long long v = strtoll(p + 7, &end, 10);
			if (!errno && end != p + 7 && v > 0)
				GA_SET(*ret, v);
		}
	}
	ga_buf_release(&b);
}

void ga_proc_uptime(struct ga_ctx *ctx, struct ga_odbl *ret)
{
	char *s = NULL;
	if (ga_fs_read_attr(ctx, "proc/uptime", &s) == 0) {
		char *end = NULL;
		double v = strtod(s, &end);
		if (end != s && v > 0 && isfinite(v))
			GA_SET(*ret, v);
	}
	ga_free(s);
}
