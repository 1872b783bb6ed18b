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
#include "internal.h"

/*
 * Open a file the user named. Non-blocking, so that a FIFO with no writer (or a
 * device) cannot block the open, then refused unless it is a regular file: a
 * FIFO or terminal would block the read with no bound, a device could be read
 * forever. Standard input ("-") is the way to stream. -EISDIR for a directory
 * (as read() would say), -EINVAL for anything else that is not a regular file.
 */
static int open_regular(struct ga_ctx *ctx, const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return ga_err(ctx, -errno, "%s: %s", file, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int r = ga_err(ctx, -errno, "%s: %s", file, strerror(errno));
		close(fd);
		return r;
	}
	if (S_ISREG(st.st_mode)) {
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		return fd;
	}
	close(fd);
	if (S_ISDIR(st.st_mode))
		return ga_err(ctx, -EISDIR, "%s: %s", file, strerror(EISDIR));
	return ga_err(ctx, -EINVAL, "%s: not a regular file (%s): use '-' to read standard input", file,
	              S_ISFIFO(st.st_mode)   ? "a FIFO"
	              : S_ISCHR(st.st_mode)  ? "a character device"
	              : S_ISBLK(st.st_mode)  ? "a block device"
	              : S_ISSOCK(st.st_mode) ? "a socket"
	                                     : "not a file");
}

int ga_file_read(struct ga_ctx *ctx, const char *file, size_t max, struct ga_buf *out)
{
	bool is_stdin = !strcmp(file, "-");
	int fd = is_stdin ? STDIN_FILENO : open_regular(ctx, file);
	size_t start = out->len;
	char chunk[8192];
	int r = 0;

	if (fd < 0)
		return fd;
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
