/*
 * serve-dl.c - the table of serve-dl.h, filled through the one loader (lib/dl, rows
 * MHD and GNUTLS): libmicrohttpd.so.12 and libgnutls.so.30 by their sonames (the
 * Debian 12 packages libmicrohttpd12 and libgnutls30, which the gpuaudit package
 * Depends on by name now that the linker does not see them).
 */
#include <stdio.h>

#include "../lib/dl/dl.h"
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
#undef MHD_resume_connection
#undef MHD_suspend_connection
#undef MHD_start_daemon
#undef MHD_stop_daemon
#undef gnutls_certificate_allocate_credentials
#undef gnutls_certificate_free_credentials
#undef gnutls_certificate_get_peers
#undef gnutls_certificate_set_x509_key_mem
#undef gnutls_certificate_set_x509_trust_mem
#undef gnutls_certificate_verify_peers2
#undef gnutls_strerror
#undef gnutls_transport_get_int2
#undef gnutls_transport_set_int2
#undef gnutls_transport_set_ptr2
#undef gnutls_transport_set_pull_function
#undef gnutls_transport_set_pull_timeout_function
#undef gnutls_x509_crt_deinit
#undef gnutls_x509_crt_get_key_usage
#undef gnutls_x509_crt_get_pk_algorithm
#undef gnutls_x509_crt_import
#undef gnutls_x509_crt_init

struct serve_dl serve_dl;

int serve_dl_load(char *err, size_t n)
{
#define SERVE_DL_SYM(name) GA_DL_SYM(struct serve_dl, name),
	static const struct ga_dl_sym mhd[] = { SERVE_DL_MHD(SERVE_DL_SYM) };
	static const struct ga_dl_sym tls[] = { SERVE_DL_GNUTLS(SERVE_DL_SYM) };
#undef SERVE_DL_SYM
	static const struct {
		enum ga_dl_id id;
		const struct ga_dl_sym *t;
		size_t n;
	} libs[] = {
		{ GA_DL_MHD, mhd, sizeof(mhd) / sizeof(mhd[0]) },
		{ GA_DL_GNUTLS, tls, sizeof(tls) / sizeof(tls[0]) },
	};
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		const struct ga_dl_status *st = NULL;
		/* kept loaded for the life of the process once published */
		if (ga_dl_shared(libs[i].id, libs[i].t, libs[i].n, &serve_dl, &st))
			continue;
		const char *so = ga_dl_libs[libs[i].id].sonames[0];
		if (st->missing)
			snprintf(err, n, "serve: %s has no %s", so, st->missing);
		else
			snprintf(err, n, "serve needs %s: %s", so, st->error);
		return -1;
	}
	return 0;
}
