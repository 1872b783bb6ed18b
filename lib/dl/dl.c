/*
 * dl.c - binding a dlopen'ed library through a symbol table (dl.h), the one
 * loop that NVML, ROCm SMI, CUDA, cuBLAS and NCCL used to repeat each.
 */
#include <dlfcn.h>
#include <string.h>

#include "dl.h"

size_t ga_dl_bind(void *lib, const struct ga_dl_sym *t, size_t n, void *obj)
{
	for (size_t i = 0; i < n; i++) {
		void *p = NULL;
		for (size_t k = 0; k < 3 && t[i].names[k] && !p; k++)
			p = dlsym(lib, t[i].names[k]);
		if (!p && t[i].required)
			return i;
		/* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
		memcpy((char *)obj + t[i].off, &p, sizeof(p));
	}
	return n;
}
