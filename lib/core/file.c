/*
 * file.c - the reader for files the user names (file.h): the one place
 * outside the root-relative reader (fs.c) where the library opens a path.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "internal.h"

int ga_file_read(struct ga_ctx *ctx, const char *file, size_t max, struct ga_buf *out)
{
	bool is_stdin = !strcmp(file, "-");
	int fd = is_stdin ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC);
	size_t start = out->len;
	char chunk[8192];
	int r = 0;

	if (fd < 0)
		return ga_err(ctx, -errno, "%s: %s", file, strerror(errno));
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
