/* internal.h - definitions shared inside libgpuaudit only. */
#ifndef GA_INTERNAL_H
#define GA_INTERNAL_H

#include "gpuaudit/core.h"

struct ga_ctx {
	char errmsg[1024];
	ga_log_fn log_fn;
	void *log_udata;
	enum ga_log_level log_max;
	char *root;  /* as given, "/" by default */
	int root_fd; /* O_PATH|O_DIRECTORY */
	size_t max_file;
	char *pci_ids; /* pci.ids for names; NULL = the distribution's (lib/collect/pci.c) */
	ga_progress_fn progress_fn;
	void *progress_udata;
	/* vendor libraries: run in a helper process with a deadline */
	char *helper_exe; /* executable that implements "__vendor-helper NAME" */
	int vendor_mode;  /* GA_VENDOR_AUTO / _ON / _OFF */
	int vendor_timeout_ms;
	/* artifact scan (lib/deps): worker threads (0: one per CPU), no AVX2 census */
	unsigned threads;
	bool no_simd;
};

#define GA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Strip leading and trailing ASCII whitespace in place; returns s. */
char *ga_strstrip(char *s);
/* Strict unsigned/signed parses of a whole (stripped) string; 0 or -EINVAL/-ERANGE. */
int ga_parse_u64(const char *s, int base, uint64_t *ret);
int ga_parse_i64(const char *s, int base, int64_t *ret);
int ga_parse_dbl(const char *s, double *ret);
bool ga_startswith(const char *s, const char *prefix);
/*
 * Six random characters of [a-z0-9] for a temporary name: the kernel's random
 * bytes, else the clock, the pid and the attempt number mixed.
 */
void ga_rand_suffix(char out[7], unsigned attempt);
/*
 * Parse JSON text (json_loadb with flags) into *ret: 0, -ENOMEM when an
 * allocation failed inside jansson, or -EBADMSG with "invalid JSON at line L
 * column C: ..." in ctx (no message when ctx is NULL); jansson's error in
 * *jerr when jerr is not NULL, for callers with a message of their own.
 * lib/core/json-parse.c.
 */
struct json_t;
struct json_error_t;
int ga_json_parse(struct ga_ctx *ctx, const char *text, size_t len, size_t flags, struct json_t **ret,
                  struct json_error_t *jerr);

#endif
