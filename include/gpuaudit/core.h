/*
 * core.h - library context, error reporting, logging, growable buffer.
 *
 * libgpuaudit never prints and never exits. Functions return 0 or a negative
 * errno-style code; a human-readable reason is left in the context
 * (ga_ctx_errmsg). Diagnostics go through a log callback installed by the
 * caller (the CLI installs one that writes to stderr for -v).
 */
#ifndef GPUAUDIT_CORE_H
#define GPUAUDIT_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GA_VERSION "0.1.0"

enum ga_log_level { GA_LOG_ERROR = 0, GA_LOG_WARN = 1, GA_LOG_INFO = 2, GA_LOG_DEBUG = 3 };

typedef void (*ga_log_fn)(void *udata, enum ga_log_level level, const char *msg);

struct ga_ctx;

/* Create a context rooted at "/". Returns 0 or -ENOMEM. */
int ga_ctx_new(struct ga_ctx **ret_ctx);
/* NULL-safe. */
void ga_ctx_free(struct ga_ctx *ctx);
/* Re-root all filesystem reads at DIR (like hwloc's HWLOC_FSROOT). */
int ga_ctx_set_root(struct ga_ctx *ctx, const char *dir);
/* pci.ids file used for vendor and device names (NULL: the system's). */
int ga_ctx_set_pci_ids(struct ga_ctx *ctx, const char *file);
const char *ga_ctx_root(const struct ga_ctx *ctx);
/* Largest file the reader will accept (default 16 MiB). */
void ga_ctx_set_max_file(struct ga_ctx *ctx, size_t max_bytes);
size_t ga_ctx_max_file(const struct ga_ctx *ctx);
/* Worker threads the artifact walk may use (0, the default: one per online CPU; 1: one thread). */
void ga_ctx_set_threads(struct ga_ctx *ctx, unsigned n);
/* The ELF census without its AVX2 scan (the same result; for tests and comparisons). */
void ga_ctx_set_no_simd(struct ga_ctx *ctx, bool no_simd);
void ga_ctx_set_log(struct ga_ctx *ctx, ga_log_fn fn, void *udata, enum ga_log_level max_level);
/*
 * Progress callback: vendor collectors announce each library call before making
 * it ("nvmlInit_v2"), so a supervisor can name the call that hung.
 */
typedef void (*ga_progress_fn)(void *udata, const char *call);
void ga_ctx_set_progress(struct ga_ctx *ctx, ga_progress_fn fn, void *udata);
void ga_progress(struct ga_ctx *ctx, const char *call);

/* Last error message ("" when none). Valid until the next failing call. */
const char *ga_ctx_errmsg(const struct ga_ctx *ctx);

/* Record an error message; returns err (a negative errno) for tail calls. */
int ga_err(struct ga_ctx *ctx, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ga_log(struct ga_ctx *ctx, enum ga_log_level level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/*
 * Hookable allocator: every allocation in the library goes through these, so
 * tests can fail the Nth allocation (sqlite test_malloc style).
 */
void *ga_malloc(size_t n);
void *ga_calloc(size_t n, size_t size);
void *ga_realloc(void *p, size_t n);
char *ga_strdup(const char *s);
char *ga_strndup(const char *s, size_t n);
void ga_free(void *p);
/* Fail the allocation after `countdown` more successes; -1 disables. */
void ga_alloc_fail_after(long countdown);
/*
 * How many allocations have failed in this thread (injected or real). jansson
 * and yajl allocate through ga_malloc too (docs/dependencies.md), but jansson
 * 2.14 reports a failed allocation as a syntax error or not at all: a caller
 * of json_loadb compares this before and after to answer -ENOMEM.
 */
unsigned long ga_alloc_failures(void);

/* A list of strings: n entries, v NULL-terminated (lib/core/array.c). */
struct ga_strv {
	char **v;
	size_t n;
};
/* Append a copy of s: 0 or -ENOMEM (the list unchanged). */
int ga_strv_push(struct ga_strv *sv, const char *s);
bool ga_strv_contains(const struct ga_strv *sv, const char *s);
void ga_strv_release(struct ga_strv *sv);

/* Append a zeroed element to a growable array, return it (NULL on ENOMEM; array unchanged). */
void *ga_array_push(void **arr, size_t *n, size_t elem_size);

/*
 * Growable byte buffer with a per-instance cap. The contents are always
 * NUL-terminated. _release frees the contents; _detach hands them over.
 */
struct ga_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max; /* 0 = unlimited */
};

void ga_buf_init(struct ga_buf *b, size_t max);
void ga_buf_release(struct ga_buf *b);
/* Returns the contents (caller frees with ga_free) and resets the buffer. */
char *ga_buf_detach(struct ga_buf *b, size_t *ret_len);
void ga_buf_reset(struct ga_buf *b);
/* 0, -ENOMEM, or -E2BIG when the cap would be exceeded (buffer unchanged). */
int ga_buf_add(struct ga_buf *b, const void *p, size_t n);
int ga_buf_adds(struct ga_buf *b, const char *s);
int ga_buf_addc(struct ga_buf *b, char c);
int ga_buf_addf(struct ga_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ga_buf_vaddf(struct ga_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* CLOCK_MONOTONIC in seconds and in milliseconds: for intervals and deadlines, never dates. */
double ga_mono_s(void);
double ga_mono_ms(void);

#ifdef __cplusplus
}
#endif
#endif
