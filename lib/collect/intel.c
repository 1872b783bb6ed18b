/*
 * intel.c - i915/xe sysfs depth (frequencies, local memory, hwmon energy and power).
 *
 * i915 keeps card-level frequencies on the DRM minor (cardN/gt_*_freq_mhz) and,
 * with Intel's backport, local memory too (cardN/lmem_*_bytes). xe moves both
 * under the PCI device (tile<T>/gt<G>/freq0/, tile<T>/physical_vram_size_bytes).
 * hwmon (dGPU only) names itself "i915" or "xe".
 *
 * An attribute the driver answers with EINVAL/ENODEV/EOPNOTSUPP is treated as
 * absent, not as a gap: the hardware lacks it, the snapshot is not damaged.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

static int intel_u64(struct ga_col *c, struct ga_ou64 *out, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int intel_u64(struct ga_col *c, struct ga_ou64 *out, const char *fmt, ...)
{
	char path[4096], *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	int r = ga_fs_read_attr(c->ctx, path, &s);
	if (r < 0) {
		if (r == -ENOMEM)
			c->err = r;
		else if (r != -ENOENT && r != -EINVAL && r != -ENODEV && r != -EOPNOTSUPP && r != -ENODATA)
			ga_col_gap(c, path, ga_fs_reason(r));
		return r;
	}
	uint64_t v;
	r = ga_parse_u64(s, 10, &v);
	if (r == 0)
		GA_SET(*out, v);
	else
		ga_col_gap(c, path, "unparsable");
	ga_free(s);
	return r;
}

static void intel_hwmon(struct ga_col *c, struct ga_intel_info *ii, const char *phys)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s/hwmon", phys) < 0)
		return;
	for (char **p = names; *p && c->err == 0; p++) {
		char *name = NULL;
		if (!ga_startswith(*p, "hwmon") ||
		    ga_col_attr(c, GA_COL_OPT, &name, "%s/hwmon/%s/name", phys, *p) < 0)
			continue;
		bool ours = !strcmp(name, "i915") || !strcmp(name, "xe");
		ga_free(name);
		if (!ours)
			continue;
		/* Index 1 is the card (on xe, index 2 is the package). */
		intel_u64(c, &ii->energy_uj, "%s/hwmon/%s/energy1_input", phys, *p);
		intel_u64(c, &ii->power_max_uw, "%s/hwmon/%s/power1_max", phys, *p);
		break;
	}
	ga_strv_free(names);
}

void ga_collect_intel_depth(struct ga_col *c, struct ga_accel *a, const char *phys, const char *card)
{
	if (!ga_fs_is_dir(c->ctx, phys))
		return;
	struct ga_intel_info *ii = ga_calloc(1, sizeof(*ii));
	if (!ga_col_ok(c, ii))
		return;
	a->intel = ii;
	if (card) {
		intel_u64(c, &ii->freq_cur_mhz, "%s/drm/%s/gt_cur_freq_mhz", phys, card);
		intel_u64(c, &ii->freq_act_mhz, "%s/drm/%s/gt_act_freq_mhz", phys, card);
		intel_u64(c, &ii->freq_max_mhz, "%s/drm/%s/gt_max_freq_mhz", phys, card);
		intel_u64(c, &ii->freq_min_mhz, "%s/drm/%s/gt_min_freq_mhz", phys, card);
		intel_u64(c, &ii->lmem_total_bytes, "%s/drm/%s/lmem_total_bytes", phys, card);
		intel_u64(c, &ii->lmem_avail_bytes, "%s/drm/%s/lmem_avail_bytes", phys, card);
	}
	/* xe: the first GT's frequencies stand for the card, as i915's card-level files do. */
	if (!ii->freq_cur_mhz.set)
		intel_u64(c, &ii->freq_cur_mhz, "%s/tile0/gt0/freq0/cur_freq", phys);
	if (!ii->freq_act_mhz.set)
		intel_u64(c, &ii->freq_act_mhz, "%s/tile0/gt0/freq0/act_freq", phys);
	if (!ii->freq_max_mhz.set)
		intel_u64(c, &ii->freq_max_mhz, "%s/tile0/gt0/freq0/max_freq", phys);
	if (!ii->freq_min_mhz.set)
		intel_u64(c, &ii->freq_min_mhz, "%s/tile0/gt0/freq0/min_freq", phys);
	if (!ii->lmem_total_bytes.set) {
		char **names = NULL;
		if (ga_col_list(c, &names, NULL, "%s", phys) == 0) {
			uint64_t total = 0;
			bool any = false;
			for (char **p = names; *p && c->err == 0; p++) {
				struct ga_ou64 v = { 0 };
				if (!ga_startswith(*p, "tile") ||
				    intel_u64(c, &v, "%s/%s/physical_vram_size_bytes", phys, *p) < 0)
					continue;
				if (v.v > UINT64_MAX - total)
					break;
				total += v.v;
				any = true;
			}
			if (any)
				GA_SET(ii->lmem_total_bytes, total);
		}
		ga_strv_free(names);
	}
	if (c->err == 0)
		intel_hwmon(c, ii, phys);
}
