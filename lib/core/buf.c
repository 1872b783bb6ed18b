/* buf.c - growable, capped, always NUL-terminated byte buffer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void ga_buf_init(struct ga_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void ga_buf_release(struct ga_buf *b)
{
	ga_free(b->data);
	ga_buf_init(b, b->max);
}

void ga_buf_reset(struct ga_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *ga_buf_detach(struct ga_buf *b, size_t *ret_len)
{
	char *d = b->data;
	if (!d)
		d = ga_strdup("");
	if (ret_len)
		*ret_len = d ? b->len : 0;
	ga_buf_init(b, b->max);
	return d;
}

static int grow(struct ga_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		return -E2BIG;
	size_t need = b->len + extra + 1;
	if (b->max && need - 1 > b->max)
		return -E2BIG;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if (b->max && cap > b->max + 1)
		cap = b->max + 1;
	char *d = ga_realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int ga_buf_add(struct ga_buf *b, const void *p, size_t n)
{
	int r = grow(b, n);
	if (r < 0)
		return r;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int ga_buf_adds(struct ga_buf *b, const char *s)
{
	return ga_buf_add(b, s, strlen(s));
}

int ga_buf_addc(struct ga_buf *b, char c)
{
	return ga_buf_add(b, &c, 1);
}

int ga_buf_vaddf(struct ga_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(small))
		return ga_buf_add(b, small, (size_t)n);
	int r = grow(b, (size_t)n);
	if (r < 0)
		return r;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int ga_buf_addf(struct ga_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = ga_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}
