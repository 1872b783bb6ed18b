/*
 * fuzz_explain.c - the explain log matcher on arbitrary bytes. The first byte
 * picks a chunk size; the input is fed in those chunks and also whole, and
 * both runs must agree (lines, matches, captures). Every match lies inside
 * the input's line count, reported text has no control bytes, cause counts
 * add up to the match count, and the JSON output parses.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"

/* Two matchers compiled once (regcomp of the catalogue is the slow part), reset per input. */
static struct ga_explain *feed(int which, const char *s, size_t n, size_t chunk)
{
	static struct ga_explain *m[2];
	if (!m[which])
		FUZZ_CHECK(ga_explain_new(64, &m[which]) == 0);
	struct ga_explain *ex = m[which];
	ga_explain_reset(ex);
	for (size_t i = 0; i < n; i += chunk)
		FUZZ_CHECK(ga_explain_feed(ex, s + i, n - i < chunk ? n - i : chunk) == 0);
	FUZZ_CHECK(ga_explain_finish(ex) == 0);
	return ex;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t chunk, n;
	const char *s;
	if (!fuzz_split_chunk(data, size, &chunk, &s, &n))
		return 0;
	struct ga_explain *a = feed(0, s, n, chunk), *b = feed(1, s, n, n ? n : 1);
	uint64_t lines = ga_explain_lines(a);
	/* the lines are the input's newlines, after a UTF-8 byte-order mark (dropped); a UTF-16
	 * input (a byte-order mark FF FE or FE FF, or two ASCII characters each beside a NUL) is
	 * converted first, so only the two feeds agree */
	FUZZ_CHECK((ga_explain_encoding(a) == NULL) == (ga_explain_encoding(b) == NULL));
	if (!ga_explain_encoding(a)) {
		const char *t = s;
		size_t tn = n;
		if (tn >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3)) {
			t += 3;
			tn -= 3;
		}
		uint64_t nl = 0;
		for (size_t i = 0; i < tn; i++)
			nl += t[i] == '\n';
		FUZZ_CHECK(lines == nl + (tn && t[tn - 1] != '\n'));
	}
	FUZZ_CHECK(lines == ga_explain_lines(b));
	FUZZ_CHECK(ga_explain_match_count(a) == ga_explain_match_count(b));
	size_t na = 0, nb = 0;
	const struct ga_explain_match *ma = ga_explain_matches(a, &na), *mb = ga_explain_matches(b, &nb);
	FUZZ_CHECK(na == nb);
	for (size_t i = 0; i < na; i++) {
		FUZZ_CHECK(ma[i].line >= 1 && ma[i].line <= lines);
		FUZZ_CHECK(ma[i].line == mb[i].line && ma[i].sig == mb[i].sig);
		FUZZ_CHECK(!strcmp(ma[i].text, mb[i].text));
		FUZZ_CHECK(strlen(ma[i].text) <= GA_EXPLAIN_TEXT_MAX);
		for (const char *p = ma[i].text; *p; p++)
			FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
		FUZZ_CHECK(ma[i].n_cap == mb[i].n_cap);
		for (size_t k = 0; k < ma[i].n_cap; k++)
			FUZZ_CHECK(!strcmp(ma[i].cap[k].value, mb[i].cap[k].value));
	}
	size_t nc = 0;
	const struct ga_explain_cause *c = ga_explain_causes(a, &nc);
	uint64_t total = 0;
	for (size_t i = 0; i < nc; i++) {
		total += c[i].count;
		FUZZ_CHECK(c[i].first_line <= c[i].last_line && c[i].last_line <= lines);
	}
	FUZZ_CHECK(total == ga_explain_match_count(a));
	struct ga_buf buf;
	struct ga_json w;
	ga_buf_init(&buf, 0);
	ga_json_init(&w, &buf, false);
	struct ga_explain_result res;
	FUZZ_CHECK(ga_explain_result_fill(a, &res) == 0);
	ga_schema_write(&w, &ga_explain_result_schema, &res);
	ga_schema_release(&ga_explain_result_schema, &res);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
	fuzz_check_json(buf.data, buf.len, 0);
	ga_buf_release(&buf);
	return 0;
}
