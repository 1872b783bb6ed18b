/*
 * file.h - read a file the user named (--policy, --from ...): a path of the
 * caller's, not one under the context's root, and "-" for standard input.
 * It lives in core so that the analyzers, which never touch the filesystem,
 * are handed the text (docs/architecture.md).
 */
#ifndef GA_CORE_FILE_H
#define GA_CORE_FILE_H

#include "gpuaudit/core.h"

/*
 * Append the whole of FILE ("-" = stdin) to out, at most max bytes
 * (0 = the context's max file size). Returns 0, -EFBIG when larger, -ENOMEM,
 * -EISDIR for a directory, -EINVAL for a FIFO, device or socket (opened
 * non-blocking and refused by ga_file_open_input: reading one could block or
 * never end; "-" is the way to stream), or the -errno of open/read; the
 * context's message names the file.
 * On error out is left as it was.
 */
int ga_file_read(struct ga_ctx *ctx, const char *file, size_t max, struct ga_buf *out);

#endif
