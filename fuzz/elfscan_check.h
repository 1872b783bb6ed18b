/*
 * elfscan_check.h - invariants of a ga_elf_info that every elfscan fuzz
 * target checks: reported ranges lie inside the input, counts add up,
 * strings are NUL-terminated and named, images belong to their containers.
 */
#ifndef GA_FUZZ_ELFSCAN_CHECK_H
#define GA_FUZZ_ELFSCAN_CHECK_H

#include <string.h>

#include "fuzz.h"
#include "gpuaudit/elfscan.h"

static inline void elfscan_check(const struct ga_elf_info *info, size_t size)
{
	size_t by_format = 0;
	for (int f = 0; f < GA_DEVCODE_FORMAT_N; f++)
		by_format += info->n_by_format[f];
	FUZZ_CHECK(by_format == info->n_containers);
	size_t images = 0;
	for (size_t i = 0; i < info->n_containers; i++) {
		const struct ga_devcode_container *c = &info->containers[i];
		FUZZ_CHECK(c->offset <= size && c->size <= size - c->offset);
		FUZZ_CHECK(c->first_image == images);
		FUZZ_CHECK(c->section != NULL);
		FUZZ_CHECK(strcmp(ga_devcode_format_name(c->format), "unknown") != 0);
		images += c->n_images;
	}
	FUZZ_CHECK(images == info->n_images);
	for (size_t i = 0; i < info->n_images; i++) {
		const struct ga_devcode_image *im = &info->images[i];
		FUZZ_CHECK(im->container < info->n_containers);
		FUZZ_CHECK(memchr(im->arch, '\0', sizeof(im->arch)) != NULL);
		FUZZ_CHECK(im->offset <= size);
		if (im->compression == GA_COMP_NONE)
			FUZZ_CHECK(im->size <= size - im->offset);
		FUZZ_CHECK(strcmp(ga_devcode_kind_name(im->kind), "unknown") != 0 ||
		           im->kind == GA_CODE_UNKNOWN);
	}
	for (size_t i = 0; i < info->n_needed; i++)
		FUZZ_CHECK(info->needed[i] != NULL);
	for (size_t i = 0; i < info->n_dlopen_names; i++)
		FUZZ_CHECK(ga_vendor_lib_find(info->dlopen_names[i], NULL) != NULL);
	for (size_t i = 0; i + 1 < info->n_dlopen_names; i++)
		FUZZ_CHECK(strcmp(info->dlopen_names[i], info->dlopen_names[i + 1]) < 0);
	FUZZ_CHECK(info->x86_isa_level >= 0 && info->x86_isa_level <= 4);
	FUZZ_CHECK((info->x86_isa_level == 0) == ((info->x86_isa_needed & 0xf) == 0));
}

/* Two censuses of the same bytes (the mapping and the pread path, SIMD or not) agree. */
static inline void elfscan_same(const struct ga_elf_info *a, const struct ga_elf_info *b)
{
	FUZZ_CHECK(a->n_containers == b->n_containers && a->n_images == b->n_images);
	FUZZ_CHECK(a->n_bad_containers == b->n_bad_containers);
	FUZZ_CHECK(a->devcode_truncated == b->devcode_truncated);
	FUZZ_CHECK(a->static_cudart_markers == b->static_cudart_markers);
	FUZZ_CHECK(a->bytes_scanned == b->bytes_scanned && a->bytes_skipped == b->bytes_skipped);
	for (size_t i = 0; i < a->n_containers; i++) {
		const struct ga_devcode_container *x = &a->containers[i], *y = &b->containers[i];
		FUZZ_CHECK(x->format == y->format && x->offset == y->offset && x->size == y->size);
		FUZZ_CHECK(x->n_images == y->n_images && !strcmp(x->section, y->section));
	}
	for (size_t i = 0; i < a->n_images; i++) {
		const struct ga_devcode_image *x = &a->images[i], *y = &b->images[i];
		FUZZ_CHECK(x->kind == y->kind && x->offset == y->offset && x->size == y->size);
		FUZZ_CHECK(!strcmp(x->arch, y->arch) && x->cuda_flags == y->cuda_flags);
	}
	FUZZ_CHECK(a->n_dlopen_names == b->n_dlopen_names);
	for (size_t i = 0; i < a->n_dlopen_names; i++)
		FUZZ_CHECK(!strcmp(a->dlopen_names[i], b->dlopen_names[i]));
}

#endif
