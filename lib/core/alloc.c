/*
 * alloc.c - the library's allocator, with a countdown that makes the Nth
 * allocation fail so tests can walk every out-of-memory path.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static long fail_countdown = -1;

void ga_alloc_fail_after(long countdown)
{
	fail_countdown = countdown;
}

static bool should_fail(void)
{
	if (fail_countdown < 0)
		return false;
	if (fail_countdown == 0)
		return true;
	fail_countdown--;
	return false;
}

void *ga_malloc(size_t n)
{
	return should_fail() ? NULL : malloc(n ? n : 1);
}

void *ga_calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *ga_realloc(void *p, size_t n)
{
	return should_fail() ? NULL : realloc(p, n ? n : 1);
}

char *ga_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = ga_malloc(len + 1);
	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *ga_strdup(const char *s)
{
	return s ? ga_strndup(s, strlen(s)) : NULL;
}

void ga_free(void *p)
{
	free(p);
}
