/*
 * core/yaml-scan.c - the check of YAML text before libfyaml sees it (policy
 * files, CDI specs). libfyaml 0.7.12 loops forever on a directive with a byte
 * that is not UTF-8 ("%\xfe"), misdecodes (and leaks on) adjacent '' escapes
 * ('x''''y' reads as "x'''"; upstream pantoniou/libfyaml#233), keeps ~550
 * bytes per node and tokenizes a whole flow collection before its own depth
 * limit (64) stops it. So the text is checked first: YAML's character set
 * (well-formed UTF-8, no NUL, no control character but TAB, LF and CR, no BOM
 * after the start), the nesting depth and the number of characters that can
 * start a node. Moved here from lib/analyze/policy.c so that the CDI spec
 * reader (lib/collect/cdi.c) is protected the same way; each caller words its
 * own message from the result.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "yaml-scan.h"

enum scan_state { SC_NODE, SC_PLAIN, SC_PROP, SC_DQ, SC_SQ, SC_TEXT };
enum { SCAN_OK, SCAN_DEEP, SCAN_NODES, SCAN_SQRUN, SCAN_QKEY };

struct scan {
	const unsigned char *s;
	size_t n, i;
	unsigned line, col;                    /* of s[i], 1-based */
	enum scan_state st;                    /* TEXT: a comment, block scalar text or header */
	bool line_start, sep, skip;            /* in the indentation, after a blank, escaped */
	unsigned indent;                       /* leading spaces of the current line */
	bool block_header, in_block;           /* after '|' or '>' / in its text */
	unsigned block_parent, block_indent;   /* the header line's indent / the text's */
	unsigned stack[GA_YAML_MAX_DEPTH + 1]; /* block indentation levels */
	unsigned n_stack;
	unsigned flow; /* [ and { open outside quotes */
	size_t nodes;
};

/* The length of the UTF-8 character at s[i], or 0 with the reason in why. */
static size_t utf8_char(const struct scan *sc, const char **why, uint32_t *cp)
{
	const unsigned char *s = sc->s + sc->i;
	size_t left = sc->n - sc->i, len;
	uint32_t c = s[0], min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc0 && c <= 0xdf) {
		len = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf7) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		*why = c < 0xc0 ? "a UTF-8 continuation byte without a lead byte"
		                : "a byte that is never UTF-8";
		return 0;
	}
	for (size_t k = 1; k < len; k++) {
		if (k >= left || (s[k] & 0xc0) != 0x80) {
			*why = "an incomplete UTF-8 sequence";
			return 0;
		}
		c = c << 6 | (s[k] & 0x3f);
	}
	if (c < min)
		*why = "an overlong UTF-8 sequence";
	else if (c >= 0xd800 && c <= 0xdfff)
		*why = "a UTF-16 surrogate written as UTF-8";
	else if (c > 0x10ffff)
		*why = "a code point above U+10FFFF";
	else
		*cp = c;
	return c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff ? 0 : len;
}

/* Why YAML forbids the character (outside c-printable, or a BOM after the start), or NULL. */
static const char *char_bad(const struct scan *sc, uint32_t cp)
{
	if (cp == 0)
		return "a NUL byte";
	if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7f ||
	    (cp >= 0x80 && cp <= 0x9f && cp != 0x85))
		return "a control character";
	if (cp == 0xfffe || cp == 0xffff)
		return "a noncharacter";
	if (cp == 0xfeff && sc->i)
		return "a byte order mark after the start of the file";
	return NULL;
}

static bool is_blank(unsigned c)
{
	return c == ' ' || c == '\t';
}

static bool is_brk(unsigned c)
{
	return c == '\n' || c == '\r';
}

static bool is_flow_ind(unsigned c)
{
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

static unsigned scan_next(const struct scan *sc)
{
	return sc->i + 1 < sc->n ? sc->s[sc->i + 1] : '\n';
}

/* A block collection at column col, unless the innermost one is there already. */
static int scan_block(struct scan *sc, unsigned col)
{
	while (sc->n_stack && sc->stack[sc->n_stack - 1] > col)
		sc->n_stack--;
	if (sc->n_stack && sc->stack[sc->n_stack - 1] == col)
		return SCAN_OK;
	if (sc->n_stack + sc->flow >= GA_YAML_MAX_DEPTH)
		return SCAN_DEEP;
	sc->stack[sc->n_stack++] = col;
	return SCAN_OK;
}

/* A line break: comments and plain scalars end, a block scalar's text begins. */
static void scan_break(struct scan *sc)
{
	if (sc->st != SC_DQ && sc->st != SC_SQ)
		sc->st = SC_NODE;
	if (sc->block_header) {
		sc->block_header = false;
		sc->in_block = true;
		sc->block_indent = 0;
	}
	sc->line_start = true;
	sc->sep = true;
	sc->indent = 0;
}

/* The first character after a line's indentation. */
static int scan_line(struct scan *sc, unsigned c)
{
	sc->line_start = false;
	if (sc->in_block && sc->st == SC_NODE) {
		/* a literal or folded scalar: the lines indented deeper are its text */
		if (!sc->block_indent && sc->indent > sc->block_parent)
			sc->block_indent = sc->indent;
		if (sc->block_indent && sc->indent >= sc->block_indent) {
			sc->st = SC_TEXT;
			return SCAN_OK;
		}
		sc->in_block = false;
	}
	if (sc->st == SC_NODE && !sc->flow && c != '#')
		return scan_block(sc, sc->indent);
	return SCAN_OK;
}

/* Between nodes: what starts here. */
static int scan_node(struct scan *sc, unsigned c, bool was_sep)
{
	unsigned next = scan_next(sc);
	if (c == '#' && was_sep) {
		sc->st = SC_TEXT;
	} else if (c == '"' || c == '\'') {
		sc->st = c == '"' ? SC_DQ : SC_SQ;
	} else if (c == '[' || c == '{') {
		if (sc->n_stack + sc->flow >= GA_YAML_MAX_DEPTH)
			return SCAN_DEEP;
		sc->flow++;
		sc->sep = true;
	} else if (c == ']' || c == '}') {
		if (sc->flow)
			sc->flow--;
	} else if (c == ',') {
		sc->sep = true;
	} else if (c == '?' && (is_blank(next) || is_brk(next))) {
		/* an explicit key: libfyaml 0.7.12 crashes cleaning up after some ("? ?:\t?") */
		return SCAN_QKEY;
	} else if ((c == '-' || c == ':') && (is_blank(next) || is_brk(next))) {
		sc->sep = true;
		if (c == ':' || sc->flow || is_brk(next))
			return SCAN_OK;
		/* "- - x": an entry's content is a level deeper, at its own column */
		size_t k = sc->i + 1;
		while (k < sc->n && sc->s[k] == ' ')
			k++;
		return scan_block(sc, sc->col - 1 + (unsigned)(k - sc->i));
	} else if ((c == '|' || c == '>') && !sc->flow) {
		sc->block_header = true;
		sc->block_parent = sc->indent;
		sc->st = SC_TEXT;
	} else if (c == '&' || c == '*' || c == '!') {
		sc->st = SC_PROP;
	} else {
		sc->st = SC_PLAIN;
	}
	return SCAN_OK;
}

/*
 * The structure of one character. Conservative where it matters: every
 * character that can start a node counts, quoted or not, so the node bound
 * holds whatever the quoting; the depth follows quotes, comments, plain and
 * block scalars closely enough that a real policy is nowhere near the limit.
 */
static int scan_char(struct scan *sc, uint32_t c)
{
	bool was_sep = sc->sep;
	sc->sep = false;
	if (c < 0x80 && strchr("-,:?[{%", (int)c) && ++sc->nodes > GA_YAML_MAX_NODES)
		return SCAN_NODES;
	if (sc->skip) {
		sc->skip = false;
		return SCAN_OK;
	}
	if (is_brk(c)) {
		scan_break(sc);
		return SCAN_OK;
	}
	if (sc->line_start && c == ' ') {
		sc->indent++;
		sc->sep = true;
		return SCAN_OK;
	}
	if (sc->line_start) {
		int r = scan_line(sc, c);
		if (r)
			return r;
	}
	switch (sc->st) {
	case SC_TEXT:
		return SCAN_OK;
	case SC_DQ:
		if (c == '\\')
			sc->skip = true;
		else if (c == '"')
			sc->st = SC_NODE;
		return SCAN_OK;
	case SC_SQ:
		if (c == '\'' && scan_next(sc) == '\'') {
			/* two escapes in a row: 0.7.12 drops text after them, and leaks */
			if (sc->i + 3 < sc->n && sc->s[sc->i + 2] == '\'' && sc->s[sc->i + 3] == '\'')
				return SCAN_SQRUN;
			sc->skip = true;
		} else if (c == '\'')
			sc->st = SC_NODE;
		return SCAN_OK;
	case SC_PROP:
		if (!is_blank(c) && !(sc->flow && is_flow_ind(c)))
			return SCAN_OK;
		sc->st = SC_NODE;
		break;
	case SC_PLAIN: {
		unsigned next = scan_next(sc);
		if (c == '#' && was_sep) {
			sc->st = SC_TEXT;
			return SCAN_OK;
		}
		if (!(c == ':' && (is_blank(next) || is_brk(next) || (sc->flow && is_flow_ind(next)))) &&
		    !(sc->flow && is_flow_ind(c))) {
			sc->sep = is_blank(c);
			return SCAN_OK;
		}
		sc->st = SC_NODE;
		break;
	}
	case SC_NODE:
	default:
		break;
	}
	if (is_blank(c)) {
		sc->sep = true;
		return SCAN_OK;
	}
	return c < 0x80 ? scan_node(sc, c, was_sep) : (sc->st = SC_PLAIN, SCAN_OK);
}

int ga_yaml_prescan(const char *text, size_t len, struct ga_yscan *res)
{
	struct scan sc = { .s = (const unsigned char *)text, .n = len, .line = 1, .col = 1 };
	sc.st = SC_NODE;
	sc.line_start = sc.sep = true;
	memset(res, 0, sizeof(*res));
	while (sc.i < sc.n) {
		const char *why = NULL;
		uint32_t cp = 0;
		size_t clen = utf8_char(&sc, &why, &cp);
		res->line = sc.line;
		res->col = sc.col;
		if (!clen) {
			res->status = GA_YSCAN_BADUTF8;
			res->why = why;
			res->byte = sc.s[sc.i];
			return -1;
		}
		why = char_bad(&sc, cp);
		if (why) {
			res->status = GA_YSCAN_BADCHAR;
			res->why = why;
			res->cp = cp;
			return -1;
		}
		int r = scan_char(&sc, cp);
		if (r != SCAN_OK) {
			res->status = r == SCAN_NODES   ? GA_YSCAN_NODES
			              : r == SCAN_SQRUN ? GA_YSCAN_SQRUN
			              : r == SCAN_QKEY  ? GA_YSCAN_QKEY
			                                : GA_YSCAN_DEEP;
			return -1;
		}
		sc.i += clen;
		if (cp == '\n' || (cp == '\r' && (sc.i >= sc.n || sc.s[sc.i] != '\n'))) {
			sc.line++;
			sc.col = 1;
		} else if (cp != '\r') {
			sc.col++;
		}
	}
	return 0;
}
