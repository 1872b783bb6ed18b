/*
 * fuzz_prom.c - the Prometheus writer's input-facing parts on arbitrary bytes:
 * serve's Accept-header negotiation (first line), label-value escaping (each
 * line as a hostname and a model) and the kernel-event counter (lib/analyze; each line as
 * a log line, read twice: the second read must count nothing new). The
 * exposition must stay line-structured: no raw newline inside a sample, every
 * line a comment or a gpuaudit_ sample, and escaping must round-trip.
 */
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/prom.h"
#include "gpuaudit/text.h"
#include "serve-accept.h"

/* Undo ga_prom_label_escape; -1 on a bad escape. */
static int unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (++i == n)
			return -1;
		out[o++] = s[i] == 'n' ? '\n' : s[i];
		if (s[i] != 'n' && s[i] != '\\' && s[i] != '"')
			return -1;
	}
	out[o] = '\0';
	return (int)o;
}

static uint64_t total(const struct ga_kev_counter *c)
{
	uint64_t t = 0;
	for (size_t i = 0; i < c->n; i++)
		t += c->v[i].count;
	return t + c->dropped;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	const char *nl = memchr(s, '\n', size);
	size_t first = nl ? (size_t)(nl - s) : size;
	enum ga_prom_format fmt = ga_prom_negotiate(s, first);
	FUZZ_CHECK(fmt == GA_PROM_TEXT || fmt == GA_PROM_OPENMETRICS);

	struct ga_kev_counter kev;
	ga_kev_counter_init(&kev);
	struct ga_node *n = ga_node_new();
	struct ga_buf b, esc;
	ga_buf_init(&b, 0);
	ga_buf_init(&esc, 0);
	if (!n)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t before = total(&kev);
		if (ga_kev_counter_begin(&kev, "boot") < 0)
			goto out;
		for (const char *p = s; p < end;) {
			const char *e = memchr(p, '\n', (size_t)(end - p));
			size_t len = (size_t)((e ? e : end) - p);
			FUZZ_CHECK(ga_kev_counter_line(&kev, p, len) == 0);
			p += len + 1;
		}
		ga_kev_counter_end(&kev);
		if (pass == 1)
			FUZZ_CHECK(total(&kev) == before); /* the same log again: nothing new */
	}
	/* every line (NUL-cut) as a label value: no raw newline, and clean text round-trips */
	for (const char *p = s; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((e ? e : end) - p);
		char *v = ga_strndup(p, len);
		if (!v)
			goto out;
		ga_buf_reset(&esc);
		if (ga_prom_label_escape(&esc, v) == 0) {
			FUZZ_CHECK(!memchr(esc.data, '\n', esc.len));
			char *back = malloc(esc.len + 1);
			FUZZ_CHECK(back && unescape(esc.data, esc.len, back) >= 0);
			/* clean text round-trips; anything else came through the text rule: the
			 * exposition holds only clean UTF-8 (control bytes and bad bytes made visible) */
			unsigned fl = GA_TEXT_KEEP_NL | GA_TEXT_KEEP_TAB;
			if (ga_text_is_clean(v, strlen(v), fl))
				FUZZ_CHECK(!strcmp(back, v));
			else
				FUZZ_CHECK(ga_text_is_clean(back, strlen(back), fl));
			free(back);
		}
		ga_free(n->host.hostname);
		n->host.hostname = v;
		p += len + 1;
	}
	struct ga_accel *a = ga_array_push((void **)&n->accelerators, &n->n_accelerators, sizeof(*a));
	if (!a || !(a->model = ga_strndup(s, size)))
		goto out;
	struct ga_prom_input in = { .node = n, .kev = &kev, .kmsg_readable = { true, true } };
	if (ga_prom_render(&in, fmt, &b) == 0 && ga_prom_render_tail(fmt, 0.5, &b) == 0) {
		FUZZ_CHECK(b.len > 0 && b.data[b.len - 1] == '\n');
		for (const char *p = b.data; p < b.data + b.len;) {
			const char *e = memchr(p, '\n', (size_t)(b.data + b.len - p));
			FUZZ_CHECK(e != NULL);
			FUZZ_CHECK(!strncmp(p, "# ", 2) || !strncmp(p, "gpuaudit_", 9));
			p = e + 1;
		}
	}
out:
	ga_buf_release(&b);
	ga_buf_release(&esc);
	ga_node_free(n);
	ga_kev_counter_release(&kev);
	return 0;
}
