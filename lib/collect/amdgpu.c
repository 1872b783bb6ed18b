/*
 * amdgpu.c - amdgpu sysfs depth (busy, memory, RAS, hwmon, partitions, XGMI).
 *
 * amdgpu creates most attributes on every ASIC and answers a read with
 * EINVAL, ENODEV or EOPNOTSUPP where the ASIC or firmware lacks the feature
 * (mem_busy_percent on some parts, power1_average on MI300, pcie_replay_count
 * on APUs). That is "unsupported", not "unhealthy" and not a hole in the
 * snapshot: the attribute goes to amd->unsupported and no gap is recorded.
 * Plain absence needs no entry at all; the value simply stays absent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

static bool unsupported_err(int r)
{
	return r == -EINVAL || r == -ENODEV || r == -EOPNOTSUPP || r == -ENODATA;
}

/*
 * Read phys/rel into *ret. Absence is silent; unsupported is recorded under
 * rel; any other failure is a gap. Returns 0 or the negative errno.
 */
static int amd_read(struct ga_col *c, struct ga_amd_info *ai, const char *phys, const char *rel, bool whole,
                    char **ret)
{
	char path[4096];
	int k = snprintf(path, sizeof(path), "%s/%s", phys, rel);
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	int r;
	if (whole) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		r = ga_fs_read(c->ctx, path, 0, &b);
		if (r == 0) {
			*ret = ga_buf_detach(&b, NULL);
			if (!*ret)
				*ret = ga_strdup("");
			if (!ga_col_ok(c, *ret))
				r = -ENOMEM;
		}
		ga_buf_release(&b);
	} else {
		r = ga_fs_read_attr(c->ctx, path, ret);
	}
	if (r == 0 || r == -ENOENT)
		return r;
	if (r == -ENOMEM)
		c->err = r;
	else if (unsupported_err(r))
		ga_col_strv_push(c, &ai->unsupported, rel);
	else
		ga_col_gap(c, path, ga_fs_reason(r));
	return r;
}

static void amd_u64(struct ga_col *c, struct ga_amd_info *ai, const char *phys, const char *rel,
                    struct ga_ou64 *out)
{
	char *s = NULL;
	if (amd_read(c, ai, phys, rel, false, &s) < 0)
		return;
	uint64_t v;
	if (ga_parse_u64(s, 10, &v) == 0) {
		GA_SET(*out, v);
	} else {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", phys, rel);
		ga_col_gap(c, path, "unparsable");
	}
	ga_free(s);
}

static void amd_str(struct ga_col *c, struct ga_amd_info *ai, const char *phys, const char *rel, char **out)
{
	char *s = NULL;
	if (amd_read(c, ai, phys, rel, false, &s) < 0)
		return;
	if (*s)
		*out = s;
	else
		ga_free(s);
}

/* hwmon/hwmonN (N is global, not per GPU): the one whose name reads "amdgpu". */
static void amd_hwmon(struct ga_col *c, struct ga_amd_info *ai, const char *phys)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s/hwmon", phys) < 0)
		return;
	for (char **p = names; *p && c->err == 0; p++) {
		char dir[4096], *name = NULL;
		snprintf(dir, sizeof(dir), "%s/hwmon/%s", phys, *p);
		if (!ga_startswith(*p, "hwmon") || ga_col_attr(c, GA_COL_OPT, &name, "%s/name", dir) < 0)
			continue;
		bool ours = !strcmp(name, "amdgpu");
		ga_free(name);
		if (!ours)
			continue;
		/* temp1..3 are edge, junction, mem by the driver's convention; the label decides
		 * when present (MI300-class parts have no edge sensor, so indexes can shift). */
		static const char *const by_index[] = { "edge", "junction", "mem" };
		for (unsigned t = 1; t <= 8; t++) {
			char rel[64], *label = NULL;
			snprintf(rel, sizeof(rel), "temp%u_label", t);
			int r = amd_read(c, ai, dir, rel, false, &label);
			const char *l = r == 0 ? label : t <= 3 && r == -ENOENT ? by_index[t - 1] : NULL;
			struct ga_ou64 *out = NULL;
			if (l && !strcmp(l, "edge"))
				out = &ai->temp_edge_mc;
			else if (l && !strcmp(l, "junction"))
				out = &ai->temp_junction_mc;
			else if (l && !strcmp(l, "mem"))
				out = &ai->temp_mem_mc;
			ga_free(label);
			if (!out || out->set)
				continue;
			snprintf(rel, sizeof(rel), "temp%u_input", t);
			amd_u64(c, ai, dir, rel, out);
		}
		/* power1_average on most parts; MI300-class exposes power1_input instead. */
		amd_u64(c, ai, dir, "power1_average", &ai->power_uw);
		if (!ai->power_uw.set)
			amd_u64(c, ai, dir, "power1_input", &ai->power_uw);
		amd_u64(c, ai, dir, "power1_cap", &ai->power_cap_uw);
		break;
	}
	ga_strv_free(names);
}

/* "ue: 0\nce: 2\n" and, on recent kernels for umc, "de: 0". */
static void parse_err_count(const char *text, struct ga_amd_ras_block *b, bool *ok)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "ue", offsetof(struct ga_amd_ras_block, ue) },
		{ "ce", offsetof(struct ga_amd_ras_block, ce) },
		{ "de", offsetof(struct ga_amd_ras_block, de) },
	};
	*ok = true;
	for (size_t i = 0; i < GA_ARRAY_SIZE(keys); i++) {
		char *v = ga_col_kv(text, keys[i].key, ':');
		if (!v)
			continue;
		uint64_t n;
		if (ga_parse_u64(v, 10, &n) == 0)
			GA_SET(*(struct ga_ou64 *)((char *)b + keys[i].off), n);
		else
			*ok = false;
		ga_free(v);
	}
	if (!b->ue.set && !b->ce.set)
		*ok = false;
}

static void amd_ras(struct ga_col *c, struct ga_amd_info *ai, const char *phys)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s/ras", phys) < 0)
		return;
	for (char **p = names; *p && c->err == 0; p++) {
		size_t len = strlen(*p);
		const char *suffix = "_err_count";
		size_t sl = strlen(suffix);
		if (len <= sl || strcmp(*p + len - sl, suffix) != 0)
			continue;
		char rel[300], *text = NULL;
		snprintf(rel, sizeof(rel), "ras/%s", *p);
		if (amd_read(c, ai, phys, rel, true, &text) < 0)
			continue;
		struct ga_amd_ras_block blk = { 0 };
		bool ok;
		parse_err_count(text, &blk, &ok);
		ga_free(text);
		if (!ok) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", phys, rel);
			ga_col_gap(c, path, "unparsable");
			continue;
		}
		blk.block = ga_strndup(*p, len - sl);
		if (!ga_col_ok(c, blk.block))
			break;
		struct ga_amd_ras_block *b = ga_array_push((void **)&ai->ras, &ai->n_ras, sizeof(*b));
		if (!ga_col_ok(c, b)) {
			ga_free(blk.block);
			break;
		}
		*b = blk;
	}
	ga_strv_free(names);

	/* One "0x%08x : 0x%08x : R|P|F" line per retired page; empty when none. */
	char *pages = NULL;
	if (amd_read(c, ai, phys, "ras/gpu_vram_bad_pages", true, &pages) == 0) {
		uint64_t count = 0;
		char *save = NULL;
		for (char *line = strtok_r(pages, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (*ga_strstrip(line))
				count++;
		GA_SET(ai->bad_pages, count);
	}
	ga_free(pages);
}

/*
 * XGMI (amdgpu_xgmi.c): present only on GPUs in an XGMI hive. xgmi_num_links is one "%02x "
 * per hive node; xgmi_error reports and then clears the link error status, so its value is
 * the errors since the previous read of anyone's (docs/network.md).
 */
static void amd_xgmi(struct ga_col *c, struct ga_amd_info *ai, const char *phys)
{
	char *devid = NULL;
	if (amd_read(c, ai, phys, "xgmi_device_id", false, &devid) < 0)
		return;
	struct ga_amd_xgmi *x = ga_calloc(1, sizeof(*x));
	if (!ga_col_ok(c, x)) {
		ga_free(devid);
		return;
	}
	ai->xgmi = x;
	x->device_id = devid;
	amd_u64(c, ai, phys, "xgmi_physical_id", &x->physical_id);
	amd_str(c, ai, phys, "xgmi_hive_info/xgmi_hive_id", &x->hive_id);
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s/xgmi_hive_info", phys) == 0 && names) {
		uint64_t members = 0;
		for (char **p = names; *p; p++)
			members += ga_startswith(*p, "node") && (*p)[4] >= '0' && (*p)[4] <= '9';
		GA_SET(x->hive_members, members);
	}
	ga_strv_free(names);
	char *links = NULL;
	if (amd_read(c, ai, phys, "xgmi_num_links", false, &links) == 0) {
		char *save = NULL;
		for (char *t = strtok_r(links, " \t\n", &save); t && c->err == 0;
		     t = strtok_r(NULL, " \t\n", &save))
			ga_col_strv_push(c, &x->num_links, t);
	}
	ga_free(links);
	amd_u64(c, ai, phys, "xgmi_error", &x->error_count);
}

void ga_collect_amd_depth(struct ga_col *c, struct ga_accel *a, const char *phys)
{
	if (!ga_fs_is_dir(c->ctx, phys))
		return;
	struct ga_amd_info *ai = ga_calloc(1, sizeof(*ai));
	if (!ga_col_ok(c, ai))
		return;
	a->amd = ai;
	static const struct {
		const char *rel;
		size_t off;
	} u64s[] = {
		{ "gpu_busy_percent", offsetof(struct ga_amd_info, gpu_busy_pct) },
		{ "mem_busy_percent", offsetof(struct ga_amd_info, mem_busy_pct) },
		{ "mem_info_vram_total", offsetof(struct ga_amd_info, vram_total_bytes) },
		{ "mem_info_vram_used", offsetof(struct ga_amd_info, vram_used_bytes) },
		{ "mem_info_gtt_total", offsetof(struct ga_amd_info, gtt_total_bytes) },
		{ "mem_info_gtt_used", offsetof(struct ga_amd_info, gtt_used_bytes) },
		{ "pcie_replay_count", offsetof(struct ga_amd_info, pcie_replay_count) },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE(u64s) && c->err == 0; i++)
		amd_u64(c, ai, phys, u64s[i].rel, (struct ga_ou64 *)((char *)ai + u64s[i].off));
	static const struct {
		const char *rel;
		size_t off;
	} strs[] = {
		{ "unique_id", offsetof(struct ga_amd_info, unique_id) },
		{ "serial_number", offsetof(struct ga_amd_info, serial_number) },
		{ "product_number", offsetof(struct ga_amd_info, product_number) },
		{ "current_compute_partition", offsetof(struct ga_amd_info, compute_partition) },
		{ "current_memory_partition", offsetof(struct ga_amd_info, memory_partition) },
	};
	for (size_t i = 0; i < GA_ARRAY_SIZE(strs) && c->err == 0; i++)
		amd_str(c, ai, phys, strs[i].rel, (char **)((char *)ai + strs[i].off));
	if (c->err == 0)
		amd_hwmon(c, ai, phys);
	if (c->err == 0)
		amd_ras(c, ai, phys);
	if (c->err == 0)
		amd_xgmi(c, ai, phys);
}
