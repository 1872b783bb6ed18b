/*
 * emit/junit.c - JUnit XML for CI systems (junit.h): one suite of test cases,
 * each with its failure, error or skip, and a run's captured output. Text is
 * made safe for XML 1.0: markup escaped, control bytes dropped, bytes that
 * are not UTF-8 as '?'.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "emit-int.h"
#include "gpuaudit/junit.h"

/* XML 1.0 text: escape markup, drop control bytes, '?' for bytes that are not UTF-8. */
static void xml_text(struct ga_emit *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		if (c < 0x80) {
			if (c == '&')
				ga_emits(o, "&amp;");
			else if (c == '<')
				ga_emits(o, "&lt;");
			else if (c == '>')
				ga_emits(o, "&gt;");
			else if (c == '"')
				ga_emits(o, "&quot;");
			else if (c >= 0x20 || c == '\t' || c == '\n')
				ga_emitc(o, (char)c);
			else if (c == '\r')
				ga_emits(o, "&#13;");
			i++;
			continue;
		}
		size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
		uint32_t cp = len == 4 ? c & 0x07u : len == 3 ? c & 0x0Fu : c & 0x1Fu;
		bool ok = len && i + len <= n;
		for (size_t k = 1; ok && k < len; k++) {
			ok = (u[i + k] & 0xC0) == 0x80;
			cp = cp << 6 | (u[i + k] & 0x3Fu);
		}
		ok = ok && !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) &&
		     !(cp >= 0xD800 && cp <= 0xDFFF) && cp != 0xFFFE && cp != 0xFFFF;
		if (ok) {
			ga_emitn(o, (const char *)u + i, len);
			i += len;
		} else {
			ga_emitc(o, '?');
			i++;
		}
	}
}

static void xml_str(struct ga_emit *o, const char *s)
{
	xml_text(o, s, strlen(s));
}

static void junit_output(struct ga_emit *o, const struct ga_junit_case *c)
{
	const struct ga_capture *cap[2] = { c->out, c->err };
	const char *tag[2] = { "system-out", "system-err" };
	for (int i = 0; i < 2; i++) {
		if (!cap[i] || !cap[i]->total_bytes)
			continue;
		ga_emitf(o, "      <%s>", tag[i]);
		xml_text(o, cap[i]->head, cap[i]->head_len);
		if (cap[i]->omitted_bytes)
			ga_emitf(o, "\n[... %llu bytes omitted ...]\n",
			         (unsigned long long)cap[i]->omitted_bytes);
		xml_text(o, cap[i]->tail, cap[i]->tail_len);
		ga_emitf(o, "</%s>\n", tag[i]);
	}
}

static void junit_case(struct ga_emit *o, const struct ga_junit_case *c)
{
	ga_emits(o, "    <testcase classname=\"");
	xml_str(o, c->classname);
	ga_emits(o, "\" name=\"");
	xml_str(o, c->name);
	ga_emitc(o, '"');
	if (c->have_time)
		ga_emitf(o, " time=\"%.6f\"", c->time_s);
	ga_emits(o, ">\n");
	if (c->status == GA_JUNIT_FAILURE || c->status == GA_JUNIT_ERROR) {
		bool fail = c->status == GA_JUNIT_FAILURE;
		ga_emitf(o, "      <%s message=\"", fail ? "failure" : "error");
		xml_str(o, c->message ? c->message : "");
		ga_emitf(o, "\" type=\"%s\">", fail ? "failure" : "unknown");
		if (c->detail)
			xml_text(o, c->detail, c->detail_len);
		ga_emitf(o, "</%s>\n", fail ? "failure" : "error");
	} else if (c->status == GA_JUNIT_SKIPPED) {
		ga_emits(o, "      <skipped message=\"");
		xml_str(o, c->message ? c->message : "");
		ga_emits(o, "\"/>\n");
	}
	junit_output(o, c);
	ga_emits(o, "    </testcase>\n");
}

int ga_junit_write(struct ga_buf *out, const struct ga_junit_suite *s)
{
	struct ga_emit em = { out, 0 };
	ga_emits(&em, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"");
	xml_str(&em, s->name);
	ga_emitf(&em, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", s->tests,
	         s->failures, s->errors, s->skipped);
	for (size_t i = 0; i < s->n_cases; i++)
		junit_case(&em, &s->cases[i]);
	ga_emits(&em, "  </testsuite>\n</testsuites>\n");
	return em.err;
}
