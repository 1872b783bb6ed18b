/*
 * curl_dl.h - libcurl, loaded on first use (row CURL of libs.def) instead of
 * linked: linking it maps and initialises OpenSSL, nghttp2, LDAP and Kerberos
 * in every gpuaudit process (6.5 MiB of resident memory measured here), which
 * the long-running exporter (`serve`) pays for nothing. One table for every
 * user (lib/bench/http.c, lib/collect/promapi-curl.c): the fields bear the
 * functions' names. Include after <curl/curl.h> with CURL_DISABLE_TYPECHECK.
 */
#ifndef GA_CURL_DL_H
#define GA_CURL_DL_H

#include <curl/curl.h>
#include <stddef.h>

struct ga_curl_api {
	CURL *(*curl_easy_init)(void);
	CURLcode (*curl_easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*curl_easy_perform)(CURL *);
	CURLcode (*curl_easy_getinfo)(CURL *, CURLINFO, ...);
	void (*curl_easy_cleanup)(CURL *);
	const char *(*curl_easy_strerror)(CURLcode);
	struct curl_slist *(*curl_slist_append)(struct curl_slist *, const char *);
	void (*curl_slist_free_all)(struct curl_slist *);
	CURLM *(*curl_multi_init)(void);
	CURLMcode (*curl_multi_setopt)(CURLM *, CURLMoption, ...);
	const char *(*curl_multi_strerror)(CURLMcode);
	CURLMcode (*curl_multi_socket_action)(CURLM *, curl_socket_t, int, int *);
	CURLMcode (*curl_multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*curl_multi_add_handle)(CURLM *, CURL *);
	CURLMsg *(*curl_multi_info_read)(CURLM *, int *);
	CURLMcode (*curl_multi_cleanup)(CURLM *);
	CURLMcode (*curl_multi_assign)(CURLM *, curl_socket_t, void *);
	curl_version_info_data *(*curl_version_info)(CURLversion);
};

/* Filled whole by the first ga_curl_api_get that finds the library; call nothing before. */
extern struct ga_curl_api ga_curl_api;

/*
 * &ga_curl_api, complete, or NULL with why in ERR ("libcurl not found
 * (libcurl.so.4): ...", "libcurl lacks ..."). Thread-safe; the library,
 * once loaded, stays loaded (libcurl and its TLS library keep global state).
 */
const struct ga_curl_api *ga_curl_api_get(char *err, size_t n);

#endif
