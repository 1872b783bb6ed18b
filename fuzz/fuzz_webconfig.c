/*
 * fuzz_webconfig.c - the web configuration parser (serve --web.config.file) on
 * arbitrary bytes: a rejected file must come with a FILE:LINE:COLUMN message
 * and no result, an accepted one must hold consistent TLS settings and only
 * users with bcrypt-shaped hashes.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/webconfig.h"

/* libfyaml 0.7.12's leak of a long quoted scalar's text: see fuzz_policy.c */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfyaml.so\n";
}

static struct ga_ctx *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx && ga_ctx_new(&ctx) < 0)
		abort();
	struct ga_webconfig *wc = NULL;
	int r = ga_webconfig_parse(ctx, "web.yml", (const char *)data, size, &wc);
	if (r < 0) {
		FUZZ_CHECK(wc == NULL);
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(strncmp(ga_ctx_errmsg(ctx), "web.yml", 7) == 0);
		return 0;
	}
	FUZZ_CHECK(wc != NULL);
	/* a certificate and a key each from a file or inline (the toolkit's cert/key) */
	if (wc->tls)
		FUZZ_CHECK((wc->cert_file || wc->cert_pem) && (wc->key_file || wc->key_pem));
	FUZZ_CHECK(!wc->min_version || !wc->max_version || wc->min_version <= wc->max_version);
	for (size_t i = 0; i < wc->n_users; i++) {
		FUZZ_CHECK(strlen(wc->users[i].hash) == 60 && wc->users[i].hash[0] == '$');
		FUZZ_CHECK(ga_webconfig_user_hash(wc, wc->users[i].name) != NULL);
	}
	ga_webconfig_free(wc);
	return 0;
}
