/*
 * file.c - the reader for files the user names (file.h): the one place
 * outside the root-relative reader (fs.c) where the library opens a path.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "gpuaudit/atomicfile.h"
#include "internal.h"

int ga_file_read(struct ga_ctx *ctx, const char *file, size_t max, struct ga_buf *out)
{
	bool is_stdin = !strcmp(file, "-");
	/* a FIFO, device or socket is refused after a non-blocking open (atomic.c): reading
	 * one could block or never end; "-" is the way to stream */
	int fd = STDIN_FILENO;
	int r = is_stdin ? 0 : ga_file_open_input(ctx, file, &fd);
	if (r < 0)
		return r;
	size_t start = out->len;
	char chunk[8192];
	if (!max)
		max = ga_ctx_max_file(ctx);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = ga_err(ctx, -errno, "%s: %s", file, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (out->len - start + (size_t)n > max) {
			r = ga_err(ctx, -EFBIG, "%s: larger than %zu bytes", file, max);
			goto out;
		}
		r = ga_buf_add(out, chunk, (size_t)n);
		if (r < 0) {
			r = ga_err(ctx, r == -E2BIG ? -EFBIG : r, "%s: %s", file,
			           strerror(r == -E2BIG ? EFBIG : -r));
			goto out;
		}
	}
	if (!out->data)
		r = ga_buf_add(out, "", 0);
out:
	if (r < 0) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
	}
	if (!is_stdin)
		close(fd);
	return r;
}
