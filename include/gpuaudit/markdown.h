/*
 * markdown.h - reports rendered as Markdown (lib/emit/markdown.c).
 */
#ifndef GPUAUDIT_MARKDOWN_H
#define GPUAUDIT_MARKDOWN_H

#include "gpuaudit/fleet.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The fleet report (and what changed since old_name's report when d is not
 * NULL) appended to out. 0, -ENOMEM or -E2BIG (out's cap).
 */
int ga_markdown_fleet(struct ga_buf *out, const struct ga_fleet_report *r, const struct ga_fleet_diff *d,
                      const char *old_name);

#ifdef __cplusplus
}
#endif
#endif
