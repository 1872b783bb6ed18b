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
	char *pci_ids; /* pci.ids for names; NULL = libpci's default */
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

#endif
