/*
 * serve-dl.c - the loader of serve-dl.h: libmicrohttpd.so.12 and libgnutls.so.30 by
 * their sonames (the Debian 12 packages libmicrohttpd12 and libgnutls30, which the
 * gpuaudit package Depends on by name now that the linker does not see them).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "serve-dl.h"

/* the names: serve-dl.h's macros would rewrite them */
#undef MHD_add_response_header
#undef MHD_basic_auth_get_username_password
#undef MHD_create_response_from_buffer
#undef MHD_destroy_response
#undef MHD_free
#undef MHD_get_connection_info
#undef MHD_get_daemon_info
#undef MHD_lookup_connection_value
#undef MHD_queue_response
#undef MHD_start_daemon
#undef MHD_stop_daemon
#undef gnutls_certificate_allocate_credentials
#undef gnutls_certificate_free_credentials
#undef gnutls_certificate_get_peers
#undef gnutls_certificate_set_x509_key_mem
#undef gnutls_certificate_set_x509_trust_mem
#undef gnutls_certificate_verify_peers2
#undef gnutls_strerror

struct serve_dl serve_dl;

int serve_dl_load(char *err, size_t n)
{
	static const char *const libs[2] = { "libmicrohttpd.so.12", "libgnutls.so.30" };
	if (serve_dl.MHD_start_daemon)
		return 0;
	void *h[2] = { NULL, NULL };
	for (int i = 0; i < 2; i++) {
		/* kept loaded for the life of the process: never dlclosed once published */
		h[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
		if (!h[i]) {
			snprintf(err, n, "serve needs %s: %s", libs[i], dlerror());
			goto fail;
		}
	}
	struct serve_dl t;
	memset(&t, 0, sizeof(t));
#define SERVE_DL_RESOLVE(name)                                                                         \
	{                                                                                              \
		void *sym = dlsym(h[strncmp(#name, "MHD_", 4) == 0 ? 0 : 1], #name);                   \
		if (!sym) {                                                                            \
			snprintf(err, n, "serve: %s has no %s", libs[#name[0] == 'M' ? 0 : 1], #name); \
			goto fail;                                                                     \
		}                                                                                      \
		memcpy(&t.name, &sym, sizeof(sym));                                                    \
	}
	SERVE_DL_FUNCS(SERVE_DL_RESOLVE)
#undef SERVE_DL_RESOLVE
	serve_dl = t;
	return 0;
fail:
	for (int i = 0; i < 2; i++)
		if (h[i])
			dlclose(h[i]);
	return -1;
}
