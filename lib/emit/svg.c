/*
 * svg.c - percentile-spectrum pictures (svg.h). Plain SVG 1.1 with inline
 * attributes only: no scripts, no external fonts or stylesheets, so the file
 * renders the same in a browser, an image viewer or a CI artifact page.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/stats.h"
#include "gpuaudit/svg.h"

#define W 800.0
#define H 480.0
#define LEFT 80.0
#define RIGHT 30.0
#define TOP 50.0
#define BOTTOM 70.0

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd" };

static void add_text(struct ga_buf *b, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '<':
			ga_buf_adds(b, "&lt;");
			break;
		case '>':
			ga_buf_adds(b, "&gt;");
			break;
		case '&':
			ga_buf_adds(b, "&amp;");
			break;
		case '"':
			ga_buf_adds(b, "&quot;");
			break;
		default:
			/* Control bytes are not allowed in XML 1.0. */
			ga_buf_addc(b, (unsigned char)*p < 0x20 ? ' ' : *p);
		}
	}
}

/* log10(1/(1-p)), with p in percent. */
static double xpos(double pct)
{
	return log10(100.0 / (100.0 - pct));
}

static double nice_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;
	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

int ga_svg_spectrum(struct ga_buf *out, const char *title, const char *y_label,
                    const struct ga_svg_series *series, size_t n_series)
{
	if (!n_series)
		return -EINVAL;
	double xmax = 1, ymax = 0;
	for (size_t s = 0; s < n_series; s++) {
		if (!series[s].n)
			return -EINVAL;
		for (size_t i = 0; i < series[s].n; i++) {
			const struct ga_svg_point *p = &series[s].points[i];
			if (p->percentile < 100 && xpos(p->percentile) > xmax)
				xmax = xpos(p->percentile);
			if (isfinite(p->value) && p->value > ymax)
				ymax = p->value;
		}
	}
	xmax = ceil(xmax);           /* whole decades: 90%, 99%, ... */
	double xright = xmax + 0.25; /* where 100% goes */
	if (!(ymax > 0))
		ymax = 1;
	double ystep = nice_step(ymax);
	double ytop = ceil(ymax / ystep) * ystep;
	double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
#define X(v) (LEFT + (v) / xright * pw)
#define Y(v) (TOP + ph - (v) / ytop * ph)
	int err = 0;
	err |= ga_buf_addf(out,
	                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
	                   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
	                   "font-size=\"12\">\n",
	                   W, H, W, H);
	err |= ga_buf_adds(out, "<title>");
	add_text(out, title);
	err |= ga_buf_adds(out, "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
	err |= ga_buf_addf(out, "<text x=\"%.1f\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">", W / 2);
	add_text(out, title);
	err |= ga_buf_adds(out, "</text>\n");
	/* Grid and y labels. */
	for (double v = 0; v <= ytop + ystep / 2; v += ystep) {
		err |= ga_buf_addf(out,
		                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
		                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
		                   LEFT, Y(v), LEFT + pw, Y(v), LEFT - 6, Y(v) + 4, v);
	}
	/* x grid: 0%, 90%, 99%, ... and 100%. */
	for (int d = 0; d <= (int)xmax; d++) {
		char lbl[32];
		if (d == 0)
			snprintf(lbl, sizeof(lbl), "0%%");
		else
			snprintf(lbl, sizeof(lbl), "%.*f%%", d > 2 ? d - 2 : 0, 100 - 100 * pow(10, -d));
		err |= ga_buf_addf(out,
		                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
		                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		                   X((double)d), TOP, X((double)d), TOP + ph, X((double)d), TOP + ph + 18,
		                   lbl);
	}
	err |= ga_buf_addf(out,
	                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">100%%</text>\n"
	                   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	                   "stroke=\"#333\"/>\n"
	                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">percentile "
	                   "(log scale of 1/(1-p))</text>\n",
	                   X(xright), TOP + ph + 18, LEFT, TOP, pw, ph, LEFT + pw / 2, H - 20);
	err |= ga_buf_addf(out, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">",
	                   TOP + ph / 2);
	add_text(out, y_label);
	err |= ga_buf_adds(out, "</text>\n");
	for (size_t s = 0; s < n_series; s++) {
		const char *c = colors[s % (sizeof(colors) / sizeof(colors[0]))];
		err |= ga_buf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		                   c);
		for (size_t i = 0; i < series[s].n; i++) {
			const struct ga_svg_point *p = &series[s].points[i];
			double x = p->percentile >= 100 ? xright : xpos(p->percentile);
			double y = isfinite(p->value) ? p->value : 0;
			err |= ga_buf_addf(out, "%s%.1f,%.1f", i ? " " : "", X(x), Y(y));
		}
		err |= ga_buf_adds(out, "\"/>\n");
		double ly = TOP + 16 + 18 * (double)s;
		err |= ga_buf_addf(out,
		                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		                   "stroke-width=\"3\"/>\n<text x=\"%.1f\" y=\"%.1f\">",
		                   LEFT + 12, ly - 4, LEFT + 36, ly - 4, c, LEFT + 42, ly);
		add_text(out, series[s].label);
		err |= ga_buf_adds(out, "</text>\n");
	}
	err |= ga_buf_adds(out, "</svg>\n");
#undef X
#undef Y
	return err ? (out->max && out->len + 64 > out->max ? -E2BIG : -ENOMEM) : 0;
}

int ga_svg_points_from_sorted(const double *sorted, size_t n, int ticks_per_half, double scale,
                              struct ga_svg_point **ret, size_t *ret_n)
{
	if (!n)
		return -EINVAL;
	struct ga_svg_point *pts = NULL;
	size_t k = 0;
	double p = 0;
	for (;;) {
		struct ga_svg_point *q = ga_array_push((void **)&pts, &k, sizeof(*pts));
		if (!q) {
			ga_free(pts);
			return -ENOMEM;
		}
		bool last = p >= 100 || 100.0 / (100.0 - p) > (double)n;
		if (last)
			p = 100;
		q->percentile = p;
		q->value = ga_stats_percentile(sorted, n, p) * scale;
		if (last)
			break;
		double halvings = floor(log(100.0 / (100.0 - p)) / log(2.0)) + 1;
		p += 100.0 / (ticks_per_half * pow(2.0, halvings));
	}
	*ret = pts;
	*ret_n = k;
	return 0;
}
