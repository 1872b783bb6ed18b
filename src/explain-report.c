/*
 * explain-report.c - text printer of the explain matcher's result, used by
 * `gpuaudit explain` and by `gpuaudit preflight` for a failed warm-up.
 */
#include <string.h>

#include "cli.h"
#include "explain-report.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"

#define TEXT_COLS 160

static void print_caps(FILE *o, const struct ga_capture_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%s=%s", i ? " " : "", cli_esc(kv[i].key), cli_esc(kv[i].value));
}

void explain_print_text(FILE *o, struct ga_explain *ex, const char *in)
{
	size_t nc = 0, nm = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &nc);
	const struct ga_explain_match *m = ga_explain_matches(ex, &nm);
	if (!nc) {
		fprintf(o, "%sno known error signature matched\n", in);
		return;
	}
	fprintf(o, "%scauses, most likely first:\n", in);
	for (size_t i = 0; i < nc; i++) {
		const struct ga_signature *s = ga_explain_sig(c[i].sig);
		fprintf(o, "%s%2zu. %s [%s%s%s] line %llu", in, i + 1, s->id, s->layer, s->code ? ", " : "",
		        s->code ? s->code : "", (unsigned long long)c[i].first_line);
		if (c[i].count > 1)
			fprintf(o, " (%llu matches, last line %llu)", (unsigned long long)c[i].count,
			        (unsigned long long)c[i].last_line);
		fputc('\n', o);
		if (c[i].n_values) {
			fprintf(o, "%s    captured: ", in);
			print_caps(o, c[i].values, c[i].n_values);
			fputc('\n', o);
		}
		fprintf(o, "%s    class: %s\n", in, ga_cause_class_name(c[i].cause_class));
		fprintf(o, "%s    action: %s\n", in, ga_action_name(c[i].action));
		fprintf(o, "%s    cause: %s\n", in, s->cause);
		if (c[i].detail[0])
			fprintf(o, "%s    detail: %s\n", in, cli_esc(c[i].detail));
		if (c[i].node_note)
			fprintf(o, "%s    node: %s\n", in, cli_esc(c[i].node_note));
		fprintf(o, "%s    fix: %s\n", in, s->fix);
		fprintf(o, "%s    next: %s\n", in, s->next);
	}
	fprintf(o, "%smatched lines:\n", in);
	for (size_t i = 0; i < nm; i++) {
		const char *text = cli_esc(m[i].text); /* the text rule: bytes that are not UTF-8 shown */
		size_t tl = strlen(text);
		int cut = tl > TEXT_COLS ? TEXT_COLS : (int)tl;
		while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80 && (size_t)cut < tl)
			cut--;
		fprintf(o, "%s  %6llu  %-24s %.*s%s\n", in, (unsigned long long)m[i].line,
		        ga_explain_sig(m[i].sig)->id, cut, text, (size_t)cut < tl ? "..." : "");
	}
	uint64_t omitted = ga_explain_match_count(ex) - nm;
	if (omitted)
		fprintf(o, "%s  (%llu more matches not listed)\n", in, (unsigned long long)omitted);
}
