/*
 * dl.h - inside lib/ only: the symbol tables every dlopen'ed vendor library
 * is bound through (NVML, ROCm SMI in lib/collect; CUDA, cuBLAS, NCCL in
 * lib/bench). A table lists, per function pointer, the names to try and where
 * the pointer goes in the caller's struct; ga_dl_bind fills it.
 */
#ifndef GA_DL_H
#define GA_DL_H

#include <stdbool.h>
#include <stddef.h>

struct ga_dl_sym {
	const char *names[3]; /* tried in order: the preferred (versioned) name first */
	size_t off;           /* offset of the function pointer in the caller's struct */
	bool required;        /* a missing one stops the binding */
};

/* A required symbol of one name, stored in field FIELD of TYPE. */
#define GA_DL_SYM(type, field)                          \
	{                                               \
		{ #field }, offsetof(type, field), true \
	}

/*
 * Resolve t[0..n) from the dlopen handle LIB into OBJ: each entry gets the
 * first of its names that dlsym finds, NULL when none is. Returns n, or the
 * index of the first required entry not found (the binding stops there;
 * entries before it are filled).
 */
size_t ga_dl_bind(void *lib, const struct ga_dl_sym *t, size_t n, void *obj);

#endif
