/*
 * serve-dl.h - libmicrohttpd and GnuTLS, which only `serve` uses, loaded at run time
 * when serve starts (serve-dl.c) instead of linked: linked, the two and GnuTLS's nine
 * dependencies cost every command about 1 ms of CPU at process start (docs/performance.md,
 * "discover against lspci -vmm"), a fifth of a whole `discover`. The headers are still
 * the libraries' own; each function serve calls goes through the table below, and the
 * macros make the calls read as before. Include this after nothing that declares them
 * again (it includes both headers itself, first).
 */
#ifndef GA_SRC_SERVE_DL_H
#define GA_SRC_SERVE_DL_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <stddef.h>

#define SERVE_DL_MHD(X)                         \
	X(MHD_add_response_header)              \
	X(MHD_basic_auth_get_username_password) \
	X(MHD_create_response_from_buffer)      \
	X(MHD_destroy_response)                 \
	X(MHD_free)                             \
	X(MHD_get_connection_info)              \
	X(MHD_get_daemon_info)                  \
	X(MHD_lookup_connection_value)          \
	X(MHD_queue_response)                   \
	X(MHD_resume_connection)                \
	X(MHD_start_daemon)                     \
	X(MHD_suspend_connection)               \
	X(MHD_stop_daemon)
#define SERVE_DL_GNUTLS(X)                            \
	X(gnutls_certificate_allocate_credentials)    \
	X(gnutls_certificate_free_credentials)        \
	X(gnutls_certificate_get_peers)               \
	X(gnutls_certificate_set_x509_key_mem)        \
	X(gnutls_certificate_set_x509_trust_mem)      \
	X(gnutls_certificate_verify_peers2)           \
	X(gnutls_strerror)                            \
	X(gnutls_transport_get_int2)                  \
	X(gnutls_transport_set_int2)                  \
	X(gnutls_transport_set_ptr2)                  \
	X(gnutls_transport_set_pull_function)         \
	X(gnutls_transport_set_pull_timeout_function) \
	X(gnutls_x509_crt_deinit)                     \
	X(gnutls_x509_crt_get_key_usage)              \
	X(gnutls_x509_crt_get_pk_algorithm)           \
	X(gnutls_x509_crt_import)                     \
	X(gnutls_x509_crt_init)
#define SERVE_DL_FUNCS(X) SERVE_DL_MHD(X) SERVE_DL_GNUTLS(X)

struct serve_dl {
#define SERVE_DL_MEMBER(name) __typeof__(name) *name;
	SERVE_DL_FUNCS(SERVE_DL_MEMBER)
#undef SERVE_DL_MEMBER
};
extern struct serve_dl serve_dl;

/*
 * Load both libraries and every function above through the one loader (lib/dl, rows
 * MHD and GNUTLS): 0, or -1 with why in err (a library or a symbol missing).
 * Idempotent; each library's part of the table is filled only when all of its
 * functions resolved.
 */
int serve_dl_load(char *err, size_t n);

#define MHD_add_response_header (*serve_dl.MHD_add_response_header)
#define MHD_basic_auth_get_username_password (*serve_dl.MHD_basic_auth_get_username_password)
#define MHD_resume_connection (*serve_dl.MHD_resume_connection)
#define MHD_suspend_connection (*serve_dl.MHD_suspend_connection)
#define MHD_create_response_from_buffer (*serve_dl.MHD_create_response_from_buffer)
#define MHD_destroy_response (*serve_dl.MHD_destroy_response)
#define MHD_free (*serve_dl.MHD_free)
#define MHD_get_connection_info (*serve_dl.MHD_get_connection_info)
#define MHD_get_daemon_info (*serve_dl.MHD_get_daemon_info)
#define MHD_lookup_connection_value (*serve_dl.MHD_lookup_connection_value)
#define MHD_queue_response (*serve_dl.MHD_queue_response)
#define MHD_start_daemon (*serve_dl.MHD_start_daemon)
#define MHD_stop_daemon (*serve_dl.MHD_stop_daemon)
#define gnutls_certificate_allocate_credentials (*serve_dl.gnutls_certificate_allocate_credentials)
#define gnutls_certificate_free_credentials (*serve_dl.gnutls_certificate_free_credentials)
#define gnutls_certificate_get_peers (*serve_dl.gnutls_certificate_get_peers)
#define gnutls_certificate_set_x509_key_mem (*serve_dl.gnutls_certificate_set_x509_key_mem)
#define gnutls_certificate_set_x509_trust_mem (*serve_dl.gnutls_certificate_set_x509_trust_mem)
#define gnutls_certificate_verify_peers2 (*serve_dl.gnutls_certificate_verify_peers2)
#define gnutls_strerror (*serve_dl.gnutls_strerror)
#define gnutls_transport_get_int2 (*serve_dl.gnutls_transport_get_int2)
#define gnutls_transport_set_int2 (*serve_dl.gnutls_transport_set_int2)
#define gnutls_transport_set_ptr2 (*serve_dl.gnutls_transport_set_ptr2)
#define gnutls_transport_set_pull_function (*serve_dl.gnutls_transport_set_pull_function)
#define gnutls_transport_set_pull_timeout_function (*serve_dl.gnutls_transport_set_pull_timeout_function)
#define gnutls_x509_crt_deinit (*serve_dl.gnutls_x509_crt_deinit)
#define gnutls_x509_crt_get_key_usage (*serve_dl.gnutls_x509_crt_get_key_usage)
#define gnutls_x509_crt_get_pk_algorithm (*serve_dl.gnutls_x509_crt_get_pk_algorithm)
#define gnutls_x509_crt_import (*serve_dl.gnutls_x509_crt_import)
#define gnutls_x509_crt_init (*serve_dl.gnutls_x509_crt_init)

#endif
