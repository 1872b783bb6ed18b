/*
 * strmap.h - the one string-keyed hash table and FNV-1a of libgpuaudit.
 *
 * Open addressing with linear probing over a power-of-two table kept at most
 * half full; keys are copied and owned by the map; each key carries a size_t
 * value (an index into the caller's array, or unused for a set). The hash is
 * 64-bit FNV-1a with the published offset basis 14695981039346656037 and prime
 * 1099511628211 (Fowler/Noll/Vo, draft-eastlake-fnv); tests/unit/test_strmap.c
 * holds it to the published test vectors.
 *
 * Iterate with `for (i = 0; i < m->cap; i++) if (m->keys[i]) ...` (slot order:
 * unspecified, never an output order).
 */
#ifndef GA_STRMAP_H
#define GA_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GA_FNV1A64_BASIS 14695981039346656037ull
#define GA_FNV1A64_PRIME 1099511628211ull

/* FNV-1a over n bytes, continuing from h (GA_FNV1A64_BASIS to start). */
uint64_t ga_fnv1a64_add(uint64_t h, const void *p, size_t n);
static inline uint64_t ga_fnv1a64(const void *p, size_t n)
{
	return ga_fnv1a64_add(GA_FNV1A64_BASIS, p, n);
}

struct ga_strmap {
	char **keys;  /* cap slots, NULL where empty */
	size_t *vals; /* cap values */
	size_t cap, n;
};

/* The value of the key of n bytes (no NUL needed) in *ret (may be NULL); false when absent. */
bool ga_strmap_get_n(const struct ga_strmap *m, const char *key, size_t n, size_t *ret);
bool ga_strmap_get(const struct ga_strmap *m, const char *key, size_t *ret);
/*
 * Set key -> val (replacing the value of a key already there). 0, or -ENOMEM
 * with the map unchanged. ret_key (may be NULL): the map's own copy of the key,
 * valid until the map is released.
 */
int ga_strmap_put(struct ga_strmap *m, const char *key, size_t val, const char **ret_key);
void ga_strmap_release(struct ga_strmap *m);

#endif
