/*
 * util.c - the helpers every collector uses (collect.h): read a file or an
 * attribute, list a directory, record a gap, remember running out of memory.
 * Kept apart from collect.c, the entry point that calls the collectors, so
 * that the call graph among lib/collect's files has no cycle.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"

bool ga_col_ok(struct ga_col *c, const void *p)
{
	if (!p)
		c->err = -ENOMEM;
	return p != NULL;
}

void ga_col_gap(struct ga_col *c, const char *path, const char *reason)
{
	struct ga_node *n = c->node;
	for (size_t i = 0; i < n->n_gaps; i++)
		if (!strcmp(n->gaps[i].path, path))
			return;
	struct ga_gap *g = ga_array_push((void **)&n->gaps, &n->n_gaps, sizeof(*g));
	if (!ga_col_ok(c, g))
		return;
	g->path = ga_strdup(path);
	g->reason = ga_strdup(reason);
	if (!ga_col_ok(c, g->path) || !ga_col_ok(c, g->reason)) {
		/* never leave a half-made gap that later lookups would dereference */
		ga_free(g->path);
		ga_free(g->reason);
		n->n_gaps--;
		return;
	}
	ga_log(c->ctx, GA_LOG_INFO, "gap: /%s: %s", path, reason);
}

void ga_col_source_state(struct ga_col *c, const char *source, const char *path, const char *state,
                         const char *reason)
{
	struct ga_node *n = c->node;
	struct ga_source *e = ga_array_push((void **)&n->coverage, &n->n_coverage, sizeof(*e));
	if (!ga_col_ok(c, e))
		return;
	e->source = ga_strdup(source);
	e->path = ga_strdup(path);
	e->state = ga_strdup(state);
	e->reason = reason ? ga_strdup(reason) : NULL;
	if (!ga_col_ok(c, e->source) || !ga_col_ok(c, e->path) || !ga_col_ok(c, e->state) ||
	    (reason && !ga_col_ok(c, e->reason))) {
		ga_free(e->source);
		ga_free(e->path);
		ga_free(e->state);
		ga_free(e->reason);
		n->n_coverage--;
	}
}

void ga_col_source(struct ga_col *c, const char *source, const char *path, int err)
{
	ga_col_source_state(c, source, path,
	                    err == 0         ? "read"
	                    : err == -ENOENT ? "missing"
	                                     : "unreadable",
	                    err ? ga_fs_reason(err) : NULL);
}

int ga_col_strv_push(struct ga_col *c, struct ga_strv *sv, const char *s)
{
	int r = ga_strv_push(sv, s);
	if (r < 0)
		c->err = r;
	return r;
}

__attribute__((format(printf, 3, 0))) static int vpath(char *p, size_t n, const char *fmt, va_list ap)
{
	int k = vsnprintf(p, n, fmt, ap);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

static void fail(struct ga_col *c, int flags, const char *path, int r)
{
	if (r == -ENOMEM)
		c->err = r;
	else if (r != -ENOENT || (flags & GA_COL_REQ))
		ga_col_gap(c, path, ga_fs_reason(r));
}

int ga_col_read(struct ga_col *c, int flags, struct ga_buf *b, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	r = ga_fs_read(c->ctx, path, 0, b);
	if (r < 0)
		fail(c, flags, path, r);
	return r;
}

__attribute__((format(printf, 5, 0))) static int vattr(struct ga_col *c, int flags, char **ret, char *path,
                                                       const char *fmt, va_list ap)
{
	int r = vpath(path, 4096, fmt, ap);
	if (r < 0)
		return r;
	r = ga_fs_read_attr(c->ctx, path, ret);
	if (r < 0)
		fail(c, flags, path, r);
	return r;
}

int ga_col_attr(struct ga_col *c, int flags, char **ret, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	va_start(ap, fmt);
	int r = vattr(c, flags, ret, path, fmt, ap);
	va_end(ap);
	return r;
}

int ga_col_attr_u64(struct ga_col *c, int flags, struct ga_ou64 *out, const char *fmt, ...)
{
	char path[4096];
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vattr(c, flags, &s, path, fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	uint64_t v;
	r = ga_parse_u64(s, 0, &v);
	if (r < 0)
		ga_col_gap(c, path, "unparsable");
	else
		GA_SET(*out, v);
	ga_free(s);
	return r;
}

int ga_col_attr_i64(struct ga_col *c, int flags, struct ga_oi64 *out, const char *fmt, ...)
{
	char path[4096];
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vattr(c, flags, &s, path, fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	int64_t v;
	r = ga_parse_i64(s, 0, &v);
	if (r < 0)
		ga_col_gap(c, path, "unparsable");
	else
		GA_SET(*out, v);
	ga_free(s);
	return r;
}

int ga_col_list(struct ga_col *c, char ***ret, size_t *ret_n, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	r = ga_fs_list(c->ctx, path, ret, ret_n);
	if (r < 0) {
		*ret = NULL;
		if (ret_n)
			*ret_n = 0;
		if (r == -ENOMEM)
			c->err = r;
		else if (r != -ENOENT && r != -ENOTDIR)
			ga_col_gap(c, path, ga_fs_reason(r));
	}
	return r;
}

char *ga_col_link_base(struct ga_col *c, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return NULL;
	char *t = NULL;
	r = ga_fs_readlink(c->ctx, path, &t);
	if (r < 0) {
		if (r == -ENOMEM)
			c->err = r;
		return NULL;
	}
	const char *b = strrchr(t, '/');
	char *s = ga_strdup(b ? b + 1 : t);
	ga_free(t);
	ga_col_ok(c, s);
	return s;
}

char *ga_col_kv(const char *text, const char *key, char sep)
{
	size_t kl = strlen(key);
	const char *p = text;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		if (ll > kl && !strncmp(p, key, kl)) {
			const char *q = p + kl;
			while (q < p + ll && (*q == ' ' || *q == '\t'))
				q++;
			/* sep ' ' means "key value": the whitespace just skipped is the separator */
			bool found = sep == ' ' ? q > p + kl : q < p + ll && *q == sep;
			if (found) {
				const char *val = sep == ' ' ? q : q + 1;
				char *v = ga_strndup(val, ll - (size_t)(val - p));
				if (!v)
					return NULL;
				ga_strstrip(v);
				size_t vl = strlen(v);
				if (sep == '=' && vl >= 2 && (v[0] == '"' || v[0] == '\'') &&
				    v[vl - 1] == v[0]) {
					memmove(v, v + 1, vl - 2);
					v[vl - 2] = '\0';
				}
				return v;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}
