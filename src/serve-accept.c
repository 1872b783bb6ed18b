/*
 * serve-accept.c - HTTP content negotiation for serve's /metrics: which
 * exposition format (text 0.0.4 or OpenMetrics 1.0) an Accept header asks
 * for. HTTP is serve's business, so this lives in src/ next to it; the
 * formats themselves are lib/emit/prom.c's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "serve-accept.h"

static bool is_sp(char c)
{
	return c == ' ' || c == '\t';
}

/* Case-insensitive compare of [s, s+n) against a lowercase literal. */
static bool token_is(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	if (n != m)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != lit[i])
			return false;
	}
	return true;
}

/* "q=0.5" -> 500; malformed -> -1. Quality values have at most three decimals (RFC 9110). */
static int parse_q(const char *s, size_t n)
{
	if (n == 0 || n > 5 || (s[0] != '0' && s[0] != '1'))
		return -1;
	int q = (s[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (s[1] != '.')
		return -1;
	int scale = 100;
	for (size_t i = 2; i < n; i++, scale /= 10) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		q += (s[i] - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

enum ga_prom_format ga_prom_negotiate(const char *accept, size_t len)
{
	if (!accept)
		return GA_PROM_TEXT;
	if (len > 4096)
		len = 4096;
	int q_om = -1, q_other = -1;
	size_t i = 0;
	while (i < len) {
		/* one media range up to ',' */
		size_t start = i;
		while (i < len && accept[i] != ',')
			i++;
		size_t end = i;
		if (i < len)
			i++;
		size_t p = start;
		while (p < end && is_sp(accept[p]))
			p++;
		size_t t = p;
		while (p < end && accept[p] != ';' && !is_sp(accept[p]))
			p++;
		size_t tlen = p - t;
		if (tlen == 0)
			continue;
		int q = 1000;
		/* parameters: ;name=value ... */
		while (p < end) {
			while (p < end && (is_sp(accept[p]) || accept[p] == ';'))
				p++;
			size_t k = p;
			while (p < end && accept[p] != '=' && accept[p] != ';' && !is_sp(accept[p]))
				p++;
			size_t klen = p - k;
			while (p < end && is_sp(accept[p]))
				p++;
			if (p < end && accept[p] == '=') {
				p++;
				while (p < end && is_sp(accept[p]))
					p++;
				size_t v = p;
				while (p < end && accept[p] != ';' && !is_sp(accept[p]))
					p++;
				if (token_is(accept + k, klen, "q")) {
					q = parse_q(accept + v, p - v);
					if (q < 0)
						q = 0; /* malformed: not acceptable */
				}
			} else if (klen == 0 && p < end && accept[p] != ';') {
				p++; /* stray byte: skip it */
			}
		}
		if (token_is(accept + t, tlen, "application/openmetrics-text")) {
			if (q > q_om)
				q_om = q;
		} else if (token_is(accept + t, tlen, "text/plain") || token_is(accept + t, tlen, "*/*") ||
		           token_is(accept + t, tlen, "text/*")) {
			if (q > q_other)
				q_other = q;
		}
	}
	return q_om > 0 && q_om >= q_other ? GA_PROM_OPENMETRICS : GA_PROM_TEXT;
}
