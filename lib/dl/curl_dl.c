/* curl_dl.c - the libcurl table of curl_dl.h, filled on first use through the one loader (dl.h). */
#define CURL_DISABLE_TYPECHECK 1
#include <stdio.h>

#include "curl_dl.h"
#include "dl.h"

struct ga_curl_api ga_curl_api;

const struct ga_curl_api *ga_curl_api_get(char *err, size_t n)
{
	static const struct ga_dl_sym syms[] = {
		GA_DL_SYM(struct ga_curl_api, curl_easy_init),
		GA_DL_SYM(struct ga_curl_api, curl_easy_setopt),
		GA_DL_SYM(struct ga_curl_api, curl_easy_perform),
		GA_DL_SYM(struct ga_curl_api, curl_easy_getinfo),
		GA_DL_SYM(struct ga_curl_api, curl_easy_cleanup),
		GA_DL_SYM(struct ga_curl_api, curl_easy_strerror),
		GA_DL_SYM(struct ga_curl_api, curl_slist_append),
		GA_DL_SYM(struct ga_curl_api, curl_slist_free_all),
		GA_DL_SYM(struct ga_curl_api, curl_multi_init),
		GA_DL_SYM(struct ga_curl_api, curl_multi_setopt),
		GA_DL_SYM(struct ga_curl_api, curl_multi_strerror),
		GA_DL_SYM(struct ga_curl_api, curl_multi_socket_action),
		GA_DL_SYM(struct ga_curl_api, curl_multi_remove_handle),
		GA_DL_SYM(struct ga_curl_api, curl_multi_add_handle),
		GA_DL_SYM(struct ga_curl_api, curl_multi_info_read),
		GA_DL_SYM(struct ga_curl_api, curl_multi_cleanup),
		GA_DL_SYM(struct ga_curl_api, curl_multi_assign),
		GA_DL_SYM(struct ga_curl_api, curl_version_info),
	};
	const struct ga_dl_status *st = NULL;
	if (ga_dl_shared(GA_DL_CURL, syms, sizeof(syms) / sizeof(syms[0]), &ga_curl_api, &st))
		return &ga_curl_api;
	if (st->missing)
		snprintf(err, n, "libcurl lacks %s", st->missing);
	else
		snprintf(err, n, "libcurl not found (libcurl.so.4): %s", st->error);
	return NULL;
}
