/* bench-report.h - formatting and file helpers shared by bench exec/http and canary (src/ only). */
#ifndef GA_BENCH_REPORT_H
#define GA_BENCH_REPORT_H

#include <stddef.h>

#include "gpuaudit/svg.h"

/* "12.3 ms", "1.05 GiB", "812 GFLOP/s": v in unit ("s", "byte", "flop/s", "byte/s", other). */
void bench_fmt(char *buf, size_t n, double v, const char *unit);
/* Whole file (or stdin for "-") up to max bytes; 0 or -errno. *ret is malloc'ed, NUL-terminated. */
int bench_read_file(const char *path, size_t max, char **ret, size_t *ret_n);
/* Write (replace) a file; 0 or -errno. */
int bench_write_file(const char *path, const char *data, size_t n);
/* Render series into FILE as SVG; 0 or -errno. */
int bench_write_svg(const char *path, const char *title, const char *y_label,
                    const struct ga_svg_series *series, size_t n);
/* Parse a positive duration "10", "10s", "500ms", "2m" into seconds; 0 or -EINVAL. */
int bench_parse_seconds(const char *s, double *ret);
/* Parse a number in [lo, hi]; 0 or -EINVAL. */
int bench_parse_double(const char *s, double lo, double hi, double *ret);

#endif
