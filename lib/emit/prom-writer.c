/*
 * prom-writer.c - the exposition writer shared by the Prometheus families
 * (prom.c: node level, prom-devices.c: per device): a family's HELP/TYPE/UNIT
 * header written at its first sample, labels escaped, values in the text
 * format's spelling. Text 0.0.4 and OpenMetrics 1.0 differ only here.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuaudit/text.h"
#include "prom-writer.h"

const char *ga_prom_content_type(enum ga_prom_format fmt)
{
	return fmt == GA_PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	                                  : "text/plain; version=0.0.4; charset=utf-8";
}

int ga_prom_label_escape(struct ga_buf *b, const char *s)
{
	/* a hostname, path or message with control bytes or bytes that are not UTF-8 goes
	 * through the one text rule first (lib/emit/text.c: made visible as \xHH), so that
	 * the exposition stays UTF-8 and a scrape cannot be broken by an artifact's name */
	unsigned flags = GA_TEXT_KEEP_NL | GA_TEXT_KEEP_TAB;
	if (!ga_text_is_clean(s, strlen(s), flags)) {
		struct ga_buf t;
		ga_buf_init(&t, 0);
		int r = ga_text_escape_buf(&t, s, strlen(s), flags);
		if (r == 0)
			r = ga_prom_label_escape(b, t.data ? t.data : "");
		ga_buf_release(&t);
		return r;
	}
	int r = 0;
	const char *run = s;
	for (const char *p = s; *p && r == 0; p++) {
		const char *esc = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : *p == '\n' ? "\\n" : NULL;
		if (!esc)
			continue;
		r = ga_buf_add(b, run, (size_t)(p - run));
		if (r == 0)
			r = ga_buf_adds(b, esc);
		run = p + 1;
	}
	if (r == 0)
		r = ga_buf_adds(b, run);
	return r;
}

void ga_pw_add(struct ga_pw *w, const char *s)
{
	if (w->err == 0)
		w->err = ga_buf_adds(w->b, s);
}

void ga_pw_addf(struct ga_pw *w, const char *fmt, ...)
{
	if (w->err)
		return;
	va_list ap;
	va_start(ap, fmt);
	w->err = ga_buf_vaddf(w->b, fmt, ap);
	va_end(ap);
}

/* Declare a family: NAME as samples carry it (counters with _total); UNIT is OpenMetrics' unit or NULL. */
void ga_pw_family(struct ga_pw *w, const char *name, const char *type, const char *unit, const char *help)
{
	w->name = name;
	w->type = type;
	w->unit = unit;
	w->help = help;
	w->pending = true;
}

static void ga_pw_header(struct ga_pw *w)
{
	if (!w->pending)
		return;
	w->pending = false;
	size_t n = strlen(w->name);
	/* OpenMetrics names a counter family without its _total suffix */
	const char *type = w->type;
	if (!strcmp(type, "info")) {
		/* OpenMetrics has an info type (family name without _info); 0.0.4 calls it a gauge */
		if (w->fmt == GA_PROM_OPENMETRICS && n > 5 && !strcmp(w->name + n - 5, "_info"))
			n -= 5;
		else
			type = "gauge";
	}
	if (w->fmt == GA_PROM_OPENMETRICS && !strcmp(type, "counter") && n > 6 &&
	    !strcmp(w->name + n - 6, "_total"))
		n -= 6;
	ga_pw_addf(w, "# HELP %.*s %s\n", (int)n, w->name, w->help);
	ga_pw_addf(w, "# TYPE %.*s %s\n", (int)n, w->name, type);
	if (w->fmt == GA_PROM_OPENMETRICS && w->unit)
		ga_pw_addf(w, "# UNIT %.*s %s\n", (int)n, w->name, w->unit);
}

/* Start a sample of the current family: its header if pending, then the name. */
void ga_pw_begin(struct ga_pw *w)
{
	ga_pw_header(w);
	ga_pw_add(w, w->name);
	w->nlabels = 0;
}

/* A label; an empty value is the same as no label to Prometheus, so it is left out. */
void ga_pw_label(struct ga_pw *w, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	ga_pw_add(w, w->nlabels ? "," : "{");
	w->nlabels++;
	ga_pw_add(w, k);
	ga_pw_add(w, "=\"");
	if (w->err == 0)
		w->err = ga_prom_label_escape(w->b, v);
	ga_pw_add(w, "\"");
}

void ga_pw_labelu(struct ga_pw *w, const char *k, uint64_t v)
{
	char num[24];
	snprintf(num, sizeof(num), "%" PRIu64, v);
	ga_pw_label(w, k, num);
}

void ga_pw_value(struct ga_pw *w, double v)
{
	if (w->nlabels)
		ga_pw_add(w, "}");
	if (isnan(v))
		ga_pw_add(w, " NaN\n");
	else if (isinf(v))
		ga_pw_add(w, v > 0 ? " +Inf\n" : " -Inf\n");
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		ga_pw_addf(w, " %.0f\n", v);
	else
		ga_pw_addf(w, " %.15g\n", v);
}

void ga_pw_valueu(struct ga_pw *w, uint64_t v)
{
	if (w->nlabels)
		ga_pw_add(w, "}");
	ga_pw_addf(w, " %" PRIu64 "\n", v);
}
