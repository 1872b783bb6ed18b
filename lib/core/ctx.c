/* ctx.c - library context: root directory, error message, log callback. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int ga_ctx_new(struct ga_ctx **ret_ctx)
{
	struct ga_ctx *c = ga_calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->root = ga_strdup("/");
	if (!c->root) {
		ga_free(c);
		return -ENOMEM;
	}
	c->root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0) {
		int e = -errno;
		ga_free(c->root);
		ga_free(c);
		return e;
	}
	c->max_file = 16u << 20;
	c->vendor_timeout_ms = 5000;
	c->log_max = GA_LOG_WARN;
	*ret_ctx = c;
	return 0;
}

void ga_ctx_free(struct ga_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->root_fd >= 0)
		close(ctx->root_fd);
	ga_free(ctx->root);
	ga_free(ctx->pci_ids);
	ga_free(ctx->helper_exe);
	ga_free(ctx);
}

int ga_ctx_set_root(struct ga_ctx *ctx, const char *dir)
{
	if (!dir || !*dir)
		return ga_err(ctx, -EINVAL, "empty root directory");
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ga_err(ctx, -errno, "root %s: %s", dir, strerror(errno));
	char *copy = ga_strdup(dir);
	if (!copy) {
		close(fd);
		return -ENOMEM;
	}
	close(ctx->root_fd);
	ga_free(ctx->root);
	ctx->root_fd = fd;
	ctx->root = copy;
	return 0;
}

int ga_ctx_set_pci_ids(struct ga_ctx *ctx, const char *file)
{
	char *copy = NULL;
	if (file && !(copy = ga_strdup(file)))
		return -ENOMEM;
	ga_free(ctx->pci_ids);
	ctx->pci_ids = copy;
	return 0;
}

const char *ga_ctx_root(const struct ga_ctx *ctx)
{
	return ctx->root;
}

void ga_ctx_set_max_file(struct ga_ctx *ctx, size_t max_bytes)
{
	ctx->max_file = max_bytes;
}

size_t ga_ctx_max_file(const struct ga_ctx *ctx)
{
	return ctx->max_file;
}

void ga_ctx_set_threads(struct ga_ctx *ctx, unsigned n)
{
	ctx->threads = n;
}

void ga_ctx_set_no_simd(struct ga_ctx *ctx, bool no_simd)
{
	ctx->no_simd = no_simd;
}

void ga_ctx_set_log(struct ga_ctx *ctx, ga_log_fn fn, void *udata, enum ga_log_level max_level)
{
	ctx->log_fn = fn;
	ctx->log_udata = udata;
	ctx->log_max = max_level;
}

const char *ga_ctx_errmsg(const struct ga_ctx *ctx)
{
	return ctx->errmsg;
}

int ga_err(struct ga_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx->errmsg, sizeof(ctx->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

void ga_log(struct ga_ctx *ctx, enum ga_log_level level, const char *fmt, ...)
{
	if (!ctx->log_fn || level > ctx->log_max)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->log_fn(ctx->log_udata, level, msg);
}

void ga_ctx_set_progress(struct ga_ctx *ctx, ga_progress_fn fn, void *udata)
{
	ctx->progress_fn = fn;
	ctx->progress_udata = udata;
}

void ga_progress(struct ga_ctx *ctx, const char *call)
{
	if (ctx->progress_fn)
		ctx->progress_fn(ctx->progress_udata, call);
}
