/*
 * state-file.c - the health state file (`health --state`, `serve --state`):
 * read it (absent = a new state; a symlink, FIFO or device is refused), and
 * write it atomically through ga_file_write_atomic (a new temporary created
 * O_EXCL|O_NOFOLLOW, fsync, rename, directory fsync), so a crash or a reboot
 * mid-write leaves the old state or the new one, never half of one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/atomicfile.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/hstate.h"

#define STATE_MAX_BYTES (16u << 20)

/* FILE's text, "" when it does not exist yet; 0 or -errno (message in ctx, naming FILE). */
static int read_text(struct ga_ctx *ctx, const char *file, struct ga_buf *prev)
{
	int fd = -1;
	struct stat st;
	/* it is replaced afterwards, and a link is never replaced (ga_file_write_atomic) */
	if (lstat(file, &st) == 0 && S_ISLNK(st.st_mode))
		return ga_err(ctx, -ELOOP,
		              "%s: the state file is a symbolic link; refusing to follow or replace it",
		              file);
	int r = ga_file_open_input(ctx, file, &fd);
	if (r == -ENOENT)
		return 0;
	char chunk[65536];
	while (r == 0) {
		ssize_t got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				r = ga_err(ctx, -errno, "%s: cannot read the state file: %s", file,
				           strerror(errno));
			break;
		}
		if ((r = ga_buf_add(prev, chunk, (size_t)got)) < 0)
			r = ga_err(ctx, r, "%s: cannot read the state file: %s", file,
			           r == -E2BIG ? "larger than 16 MiB" : strerror(-r));
	}
	if (fd >= 0)
		close(fd);
	return r;
}

int cli_state_load(struct ga_ctx *ctx, const char *file, struct ga_health_state *st, char *why,
                   size_t why_len)
{
	struct ga_buf prev;
	ga_buf_init(&prev, STATE_MAX_BYTES);
	int r = read_text(ctx, file, &prev);
	if (r < 0)
		snprintf(why, why_len, "%s", ga_ctx_errmsg(ctx));
	else if ((r = ga_hstate_read(ctx, prev.data, prev.len, st)) < 0)
		snprintf(why, why_len, "%s: %s", file, ga_ctx_errmsg(ctx));
	ga_buf_release(&prev);
	return r;
}

int cli_state_write(struct ga_ctx *ctx, const char *file, const struct ga_health_state *st, char *why,
                    size_t why_len)
{
	struct ga_buf out;
	ga_buf_init(&out, STATE_MAX_BYTES);
	int r = ga_hstate_write(st, &out);
	if (r == 0)
		r = ga_file_write_atomic(ctx, file, out.data, out.len, 0644);
	ga_buf_release(&out);
	if (r == -ENOMEM || r == -E2BIG)
		snprintf(why, why_len, "%s: the state does not fit in 16 MiB or memory", file);
	else if (r < 0)
		snprintf(why, why_len, "%s", ga_ctx_errmsg(ctx));
	return r;
}
