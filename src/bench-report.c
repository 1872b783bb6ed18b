/* bench-report.c - formatting and file helpers shared by bench exec/http and canary. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-report.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/core.h"

void bench_fmt(char *buf, size_t n, double v, const char *unit)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "-");
		return;
	}
	double a = fabs(v);
	if (!strcmp(unit, "s")) {
		if (a == 0)
			snprintf(buf, n, "0 s");
		else if (a < 1e-6)
			snprintf(buf, n, "%.0f ns", v * 1e9);
		else if (a < 1e-3)
			snprintf(buf, n, "%.3g us", v * 1e6);
		else if (a < 1)
			snprintf(buf, n, "%.3g ms", v * 1e3);
		else
			snprintf(buf, n, "%.3g s", v);
		return;
	}
	if (!strcmp(unit, "byte")) {
		static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
		int k = 0;
		while (a >= 1024 && k < 4) {
			a /= 1024;
			v /= 1024;
			k++;
		}
		snprintf(buf, n, k ? "%.3g %s" : "%.0f %s", v, u[k]);
		return;
	}
	if (!strcmp(unit, "flop/s") || !strcmp(unit, "byte/s")) {
		static const char *const p[] = { "", "k", "M", "G", "T", "P" };
		int k = 0;
		while (a >= 1000 && k < 5) {
			a /= 1000;
			v /= 1000;
			k++;
		}
		snprintf(buf, n, "%.4g %s%s", v, p[k], !strcmp(unit, "flop/s") ? "FLOP/s" : "B/s");
		return;
	}
	snprintf(buf, n, "%.4g %s", v, unit);
}

int bench_read_file(const char *path, size_t max, char **ret, size_t *ret_n)
{
	int fd = 0;
	if (strcmp(path, "-")) {
		/* not a FIFO or device: one named here could block forever; "-" streams */
		int r = ga_file_open_input(NULL, path, &fd);
		if (r < 0)
			return r;
	}
	struct ga_buf b;
	ga_buf_init(&b, max);
	char tmp[65536];
	int err = 0;
	for (;;) {
		ssize_t r = read(fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		if ((err = ga_buf_add(&b, tmp, (size_t)r)) < 0)
			break;
	}
	if (fd > 0)
		close(fd);
	if (err < 0) {
		ga_buf_release(&b);
		return err;
	}
	if (ga_buf_add(&b, "", 0) < 0) {
		ga_buf_release(&b);
		return -ENOMEM;
	}
	*ret = ga_buf_detach(&b, ret_n);
	return 0;
}

int bench_write_file(const char *path, const char *data, size_t n)
{
	/* -o and --plot: replaced atomically, nothing planted at the name followed */
	return ga_file_write_atomic(NULL, path, data, n, 0644);
}

int bench_write_svg(const char *path, const char *title, const char *y_label,
                    const struct ga_svg_series *series, size_t n)
{
	struct ga_buf b;
	ga_buf_init(&b, 64 << 20);
	int err = ga_svg_spectrum(&b, title, y_label, series, n);
	if (err == 0)
		err = bench_write_file(path, b.data, b.len);
	ga_buf_release(&b);
	return err;
}

int bench_parse_seconds(const char *s, double *ret)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (!(v > 0) || v > 7 * 86400)
		return -EINVAL;
	*ret = v;
	return 0;
}

int bench_parse_double(const char *s, double lo, double hi, double *ret)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}
