/* util.c - small strict parsers shared by the collectors and readers. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

char *ga_strstrip(char *s)
{
	char *p = s;
	while (*p && isspace((unsigned char)*p))
		p++;
	size_t n = strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	memmove(s, p, n);
	s[n] = '\0';
	return s;
}

bool ga_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int ga_parse_u64(const char *s, int base, uint64_t *ret)
{
	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno == ERANGE || v > INT64_MAX) /* the snapshot's JSON reader stops at INT64_MAX */
		return -ERANGE;
	if (end == s || *end != '\0')
		return -EINVAL;
	*ret = (uint64_t)v;
	return 0;
}

int ga_parse_i64(const char *s, int base, int64_t *ret)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	char *end = NULL;
	errno = 0;
	long long v = strtoll(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *end != '\0')
		return -EINVAL;
	*ret = (int64_t)v;
	return 0;
}

int ga_parse_dbl(const char *s, double *ret)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}
