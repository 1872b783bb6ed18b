/*
 * collect.h - shared state and helpers of the node collectors.
 *
 * Collectors gather; they never decide. A file that cannot be read is not an
 * error of the collection: it becomes a gap (path + reason) in the snapshot.
 * Only running out of memory aborts a collection.
 */
#ifndef GA_COLLECT_H
#define GA_COLLECT_H

#include "../core/internal.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/node.h"

struct cl {
	struct ga_ctx *ctx;
	struct ga_node *node;
	int err; /* sticky -ENOMEM */
};

#define CL_OPT 0 /* absence is information: no gap when missing */
#define CL_REQ 1 /* a missing file is a gap */

void cl_gap(struct cl *c, const char *path, const char *reason);
/* Note an allocation result; returns false (and remembers -ENOMEM) when p is NULL. */
bool cl_ok(struct cl *c, const void *p);
int cl_strv_push(struct cl *c, struct ga_strv *sv, const char *s);

/* Read a whole file / a stripped attribute; on failure record a gap as described above. */
int cl_read(struct cl *c, int flags, struct ga_buf *b, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
int cl_attr(struct cl *c, int flags, char **ret, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Attribute parsed as an integer (base 0 accepts 0x...); unparsable text is a gap. */
int cl_attr_u64(struct cl *c, int flags, struct ga_ou64 *out, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
int cl_attr_i64(struct cl *c, int flags, struct ga_oi64 *out, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Sorted directory listing; missing directory = empty list, other errors a gap. */
int cl_list(struct cl *c, char ***ret, size_t *ret_n, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* basename of a symlink's target, or NULL. */
char *cl_link_base(struct cl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Value of "key<sep>value" lines ("Model: \t\t NVIDIA A100" or "KEY=value"). */
char *cl_kv(const char *text, const char *key, char sep);

/* Vendor depth from sysfs (lib/collect/amdgpu.c, lib/collect/intel.c). phys is the PCI device's
 * resolved sysfs directory; card the DRM card name ("card1") or NULL. Fill a->amd / a->intel. */
void ga_collect_amd_depth(struct cl *c, struct ga_accel *a, const char *phys);
void ga_collect_intel_depth(struct cl *c, struct ga_accel *a, const char *phys, const char *card);

void ga_collect_host(struct cl *c);
void ga_collect_cpu(struct cl *c);
void ga_collect_pci(struct cl *c);
void ga_collect_modules(struct cl *c);
void ga_collect_accel(struct cl *c);
void ga_collect_runtimes(struct cl *c);
void ga_collect_vendor(struct cl *c);

#endif
