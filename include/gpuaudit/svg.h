/*
 * svg.h - a self-contained SVG picture of percentile spectra: latency (or any
 * metric) against the percentile on a log scale of 1/(1-p), so the tail gets
 * as much room as the bulk; one series, or a baseline and a candidate.
 */
#ifndef GPUAUDIT_SVG_H
#define GPUAUDIT_SVG_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_svg_point {
	double percentile; /* 0..100 */
	double value;      /* in the series' display unit */
};
struct ga_svg_series {
	const char *label;
	const struct ga_svg_point *points; /* by increasing percentile */
	size_t n;
};
/*
 * Append the SVG document (UTF-8, with an XML declaration) to out. The y axis
 * is linear from 0, labelled y_label; the x axis marks 0%, 90%, 99%, 99.9%, ...
 * up to the largest finite percentile; a 100% point is drawn at the right edge.
 * 0, -EINVAL (no series or no points), -ENOMEM or -E2BIG.
 */
int ga_svg_spectrum(struct ga_buf *out, const char *title, const char *y_label,
                    const struct ga_svg_series *series, size_t n_series);
/*
 * Spectrum points from sorted values: the same percentile ticks as
 * ga_hist_spectrum (ticks_per_half per halving of the tail) while
 * 1/(1-p) <= n, then 100%. *ret is ga_malloc'ed. 0, -EINVAL or -ENOMEM.
 */
int ga_svg_points_from_sorted(const double *sorted, size_t n, int ticks_per_half, double scale,
                              struct ga_svg_point **ret, size_t *ret_n);

#ifdef __cplusplus
}
#endif
#endif
