/* strmap.c - the string-keyed hash table and FNV-1a (strmap.h). */
#include <errno.h>
#include <string.h>

#include "gpuaudit/core.h"
#include "gpuaudit/strmap.h"

uint64_t ga_fnv1a64_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * GA_FNV1A64_PRIME;
	return h;
}

/* the slot of the key of n bytes, or of the empty slot where it would go */
static size_t slot_of(const struct ga_strmap *m, const char *key, size_t n)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)ga_fnv1a64(key, n) & mask;
	while (m->keys[i] && !(strncmp(m->keys[i], key, n) == 0 && m->keys[i][n] == '\0'))
		i = (i + 1) & mask;
	return i;
}

bool ga_strmap_get_n(const struct ga_strmap *m, const char *key, size_t n, size_t *ret)
{
	if (!m->cap)
		return false;
	size_t i = slot_of(m, key, n);
	if (!m->keys[i])
		return false;
	if (ret)
		*ret = m->vals[i];
	return true;
}

bool ga_strmap_get(const struct ga_strmap *m, const char *key, size_t *ret)
{
	return ga_strmap_get_n(m, key, strlen(key), ret);
}

static int grow(struct ga_strmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct ga_strmap nm = { ga_calloc(ncap, sizeof(char *)), ga_calloc(ncap, sizeof(size_t)), ncap,
		                m->n };
	if (!nm.keys || !nm.vals) {
		ga_free(nm.keys);
		ga_free(nm.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = slot_of(&nm, m->keys[i], strlen(m->keys[i]));
		nm.keys[j] = m->keys[i];
		nm.vals[j] = m->vals[i];
	}
	ga_free(m->keys);
	ga_free(m->vals);
	*m = nm;
	return 0;
}

int ga_strmap_put(struct ga_strmap *m, const char *key, size_t val, const char **ret_key)
{
	size_t n = strlen(key);
	if (m->cap) {
		size_t i = slot_of(m, key, n);
		if (m->keys[i]) {
			m->vals[i] = val;
			if (ret_key)
				*ret_key = m->keys[i];
			return 0;
		}
	}
	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	char *k = ga_strdup(key);
	if (!k)
		return -ENOMEM;
	size_t i = slot_of(m, key, n);
	m->keys[i] = k;
	m->vals[i] = val;
	m->n++;
	if (ret_key)
		*ret_key = k;
	return 0;
}

void ga_strmap_release(struct ga_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		ga_free(m->keys[i]);
	ga_free(m->keys);
	ga_free(m->vals);
	memset(m, 0, sizeof(*m));
}
