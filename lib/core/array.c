/*
 * array.c - the growable arrays every layer uses: ga_array_push for arrays of
 * structs kept as (pointer, count), and NULL-terminated string lists.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "gpuaudit/core.h"
#include "internal.h"

int ga_strv_push(struct ga_strv *sv, const char *s)
{
	char **nv = ga_realloc(sv->v, (sv->n + 2) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	nv[sv->n] = ga_strdup(s);
	if (!nv[sv->n]) {
		nv[sv->n] = NULL;
		return -ENOMEM;
	}
	nv[++sv->n] = NULL;
	return 0;
}

bool ga_strv_contains(const struct ga_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void ga_strv_release(struct ga_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		ga_free(sv->v[i]);
	ga_free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

void *ga_array_push(void **arr, size_t *n, size_t elem_size)
{
	if (*n >= SIZE_MAX / elem_size - 1)
		return NULL;
	char *nv = ga_realloc(*arr, (*n + 1) * elem_size);
	if (!nv)
		return NULL;
	*arr = nv;
	char *e = nv + *n * elem_size;
	memset(e, 0, elem_size);
	(*n)++;
	return e;
}
