/* util.c - small strict parsers shared by the collectors and readers; the clock and temporary names. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

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

double ga_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ga_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void ga_rand_suffix(char out[7], unsigned attempt)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 20) ^
		                       ((unsigned long long)attempt * 0x9e3779b97f4a7c15ULL);
		for (size_t i = 0; i < sizeof(rnd); i++, x >>= 8)
			rnd[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		out[i] = abc[rnd[i] % (sizeof(abc) - 1)];
	out[6] = '\0';
}
