/*
 * census.c - the device-code census store behind the section scan: the
 * growing container and image arrays of a ga_elf_info (with the caps and
 * section names), and the file reads the parsers go through (the windows,
 * mapped and populated, or pread where the kernel cannot populate; the
 * read-ahead of ga_dc_peek, the per-thread scratch buffer).
 * Its own file so that the container parsers (fatbin.c, offload.c) and the
 * scan (scan.c) use it without calling back into elf.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/internal.h"
#include "elfscan_int.h"

/* ---- containers and images ----------------------------------------------- */

/*
 * Map the pages of a freshly grown array in one call: large arrays are new
 * anonymous mappings whose pages otherwise fault one by one as records are
 * appended (expensive in VMs). Advice only: failures are ignored.
 */
static void prefault(uint8_t *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t pg = 4096;
	if (n < (64u << 10))
		return;
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + n) & ~(pg - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

static bool grow(void **arr, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 16;
	if (nc > SIZE_MAX / elem)
		return false;
	void *p = ga_realloc(*arr, nc * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = nc;
	prefault((uint8_t *)p + n * elem, (nc - n) * elem);
	return true;
}

/* Keep a copy of a section's name for its containers (each section is visited once). */
static const char *intern_section(char ***names, size_t *n, const char *name)
{
	char *d = ga_strndup(name, strnlen(name, 256));
	char **slot = d ? ga_array_push((void **)names, n, sizeof(char *)) : NULL;
	if (!slot) {
		ga_free(d);
		return NULL;
	}
	*slot = d;
	return d;
}

struct ga_devcode_container *ga_dc_add_container(struct dc_scan *s, enum ga_devcode_format fmt, size_t off)
{
	struct dc_state *st = (struct dc_state *)s;
	struct ga_elf_info *info = s->info;
	if (s->err)
		return NULL;
	if (info->n_containers >= GA_DEVCODE_MAX_IMAGES) {
		info->devcode_truncated = true;
		return NULL;
	}
	if (!grow((void **)&info->containers, info->n_containers, &st->cap_containers,
	          sizeof(*info->containers))) {
		s->err = -ENOMEM;
		return NULL;
	}
	struct ga_devcode_container *c = &info->containers[info->n_containers++];
	memset(c, 0, sizeof(*c));
	c->format = fmt;
	if (!s->section && s->section_raw && st->secnames) {
		s->section = intern_section(st->secnames, st->n_secnames, s->section_raw);
		if (!s->section) {
			info->n_containers--;
			s->err = -ENOMEM;
			return NULL;
		}
	}
	c->section = s->section ? s->section : "";
	c->offset = off;
	c->first_image = (uint32_t)info->n_images;
	c->ids_known = true;
	info->n_by_format[fmt]++;
	return c;
}

struct ga_devcode_image *ga_dc_add_image(struct dc_scan *s)
{
	struct dc_state *st = (struct dc_state *)s;
	struct ga_elf_info *info = s->info;
	if (s->err || !info->n_containers)
		return NULL;
	if (info->n_images >= GA_DEVCODE_MAX_IMAGES) {
		info->devcode_truncated = true;
		return NULL;
	}
	if (!grow((void **)&info->images, info->n_images, &st->cap_images, sizeof(*info->images))) {
		s->err = -ENOMEM;
		return NULL;
	}
	struct ga_devcode_image *img = &info->images[info->n_images++];
	memset(img, 0, sizeof(*img));
	img->container = (uint32_t)(info->n_containers - 1);
	info->containers[info->n_containers - 1].n_images++;
	return img;
}

void ga_dc_drop_last_container(struct dc_scan *s)
{
	struct ga_elf_info *info = s->info;
	if (!info->n_containers)
		return;
	struct ga_devcode_container *c = &info->containers[info->n_containers - 1];
	while (info->n_images > c->first_image) {
		info->n_images--;
		ga_free(info->images[info->n_images].bundle_id);
	}
	info->n_by_format[c->format]--;
	info->n_containers--;
}

/*
 * Make w cover at least [q - WIN_BEFORE, min(q + ahead + WIN_AFTER, end))
 * clipped to [start, end) (ahead <= WIN_BYTES). Without an fd the mapping
 * covers everything.
 */
int ga_dc_fill_window(struct dc_scan *s, struct win *w, size_t start, size_t q, size_t end, size_t ahead)
{
	if (s->fd < 0 || !s->scratch) {
		w->p = s->buf;
		w->base = 0;
		w->lim = end;
		return 0;
	}
	size_t lo = q - start > WIN_BEFORE ? q - WIN_BEFORE : start;
	size_t hi = end - q > ahead + WIN_AFTER ? q + ahead + WIN_AFTER : end;
	size_t n = hi - lo, got = 0;
	while (got < n) {
		ssize_t r = pread(s->fd, s->scratch + got, n - got, (off_t)(s->fd_base + lo + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* the file changed under us, or cannot be read: use the mapping */
			s->fd = -1;
			return ga_dc_fill_window(s, w, start, q, end, ahead);
		}
		got += (size_t)r;
	}
	w->p = s->scratch;
	w->base = lo;
	w->lim = hi;
	return 0;
}

const uint8_t *ga_dc_peek(struct dc_scan *s, size_t off, size_t n, uint8_t tmp[64])
{
	if (s->fd < 0 || !s->peek)
		return s->buf + off;
	if (off >= s->w.base && off < s->w.lim && n <= s->w.lim - off)
		return s->w.p + (off - s->w.base);
	if (off >= s->peek_base && off < s->peek_lim && n <= s->peek_lim - off)
		return s->peek + (off - s->peek_base);
	/* read ahead: a container header and its first entry header in one call,
	 * and on a chain of close headers the next ones too (PEEK_STRIDE) */
	size_t ahead = PEEK_BYTES;
	if (s->peek_miss && off > s->peek_miss && off - s->peek_miss <= PEEK_STRIDE)
		ahead = 2 * (off - s->peek_miss) + PEEK_BYTES;
	s->peek_miss = off;
	size_t want = s->len - off < ahead ? s->len - off : ahead;
	if (want < n)
		want = n;
	size_t got = 0;
	while (got < want) {
		ssize_t r = pread(s->fd, s->peek + got, want - got, (off_t)(s->fd_base + off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	(void)tmp;
	if (got < n)
		return NULL;
	s->peek_base = off;
	s->peek_lim = off + got;
	return s->peek;
}

/*
 * The pread buffer (window + read-ahead) is kept per thread between calls: a
 * fresh one is a fresh mapping, and the first touch of each of its pages is a
 * page fault, which costs tens of microseconds in VMs (65 faults a file).
 */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static bool scratch_key_ok;

static void scratch_dtor(void *p)
{
	ga_free(p);
}

static void scratch_key_init(void)
{
	scratch_key_ok = pthread_key_create(&scratch_key, scratch_dtor) == 0;
}

uint8_t *ga_dc_scratch_get(void)
{
	pthread_once(&scratch_once, scratch_key_init);
	uint8_t *p = scratch_key_ok ? pthread_getspecific(scratch_key) : NULL;
	if (p) {
		pthread_setspecific(scratch_key, NULL);
		return p;
	}
	return ga_malloc(SCRATCH_WIN + PEEK_MAX);
}

void ga_dc_scratch_put(uint8_t *p)
{
	if (!p)
		return;
	if (scratch_key_ok && !pthread_getspecific(scratch_key) && pthread_setspecific(scratch_key, p) == 0)
		return;
	ga_free(p);
}
