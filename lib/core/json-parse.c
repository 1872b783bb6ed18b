/*
 * json-parse.c - the one way the library parses JSON text with jansson.
 *
 * jansson allocates through ga_malloc (alloc.c), but reports an allocation
 * that failed inside json_loadb as a syntax error ("invalid token") or with
 * no message at all. Every parse goes through here so that out of memory is
 * -ENOMEM everywhere, and bad input -EBADMSG with jansson's position.
 */
#include <errno.h>
#include <jansson.h>

#include "internal.h"

int ga_json_parse(struct ga_ctx *ctx, const char *text, size_t len, size_t flags, json_t **ret,
                  json_error_t *jerr_out)
{
	json_error_t local;
	json_error_t *jerr = jerr_out ? jerr_out : &local;
	unsigned long failures = ga_alloc_failures();
	*ret = json_loadb(text ? text : "", text ? len : 0, flags, jerr);
	if (*ret)
		return 0;
	if (ga_alloc_failures() != failures)
		return ctx ? ga_err(ctx, -ENOMEM, "out of memory") : -ENOMEM;
	if (!ctx)
		return -EBADMSG;
	return ga_err(ctx, -EBADMSG, "invalid JSON at line %d column %d: %s", jerr->line, jerr->column,
	              jerr->text);
}
