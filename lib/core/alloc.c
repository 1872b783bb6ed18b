/*
 * alloc.c - the library's allocator, with a countdown that makes the Nth
 * allocation fail so tests can walk every out-of-memory path.
 *
 * jansson allocates through it too (json_set_alloc_funcs, set before main by
 * the constructor below), so the countdown reaches json_loadb, json_pack and
 * json_dumps. What each third-party library's allocations go through is in
 * docs/dependencies.md.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"

static long fail_countdown = -1;
static _Thread_local unsigned long failures; /* ga_alloc_failures */

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

static void *counted(void *p)
{
	if (!p)
		failures++;
	return p;
}

unsigned long ga_alloc_failures(void)
{
	return failures;
}

void *ga_malloc(size_t n)
{
	return counted(should_fail() ? NULL : malloc(n ? n : 1));
}

void *ga_calloc(size_t n, size_t size)
{
	return counted(should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1));
}

void *ga_realloc(void *p, size_t n)
{
	return counted(should_fail() ? NULL : realloc(p, n ? n : 1));
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

/*
 * Before main, so that no jansson value is ever allocated by the allocator it
 * is not freed by (json_set_alloc_funcs' one rule). It holds for the whole
 * process, the CLI's own jansson calls included; ga_free is free(), so a
 * string from json_dumps may still be handed to free().
 */
__attribute__((constructor)) static void hook_jansson(void)
{
	json_set_alloc_funcs(ga_malloc, ga_free);
}
