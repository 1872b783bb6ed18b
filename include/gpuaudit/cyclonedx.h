/*
 * cyclonedx.h - the artifact inventory of `gpuaudit deps` as a CycloneDX 1.5
 * JSON SBOM (https://cyclonedx.org/docs/1.5/json/): packages and files as
 * components (purl where the package kind has a type), the GPU facts and the
 * verdicts as gpuaudit:* properties, each finding as an annotation.
 */
#ifndef GPUAUDIT_CYCLONEDX_H
#define GPUAUDIT_CYCLONEDX_H

#include "gpuaudit/deps-report.h"
#include "gpuaudit/json.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_cdx_opts {
	int64_t now_s;       /* metadata.timestamp and the annotations' timestamp (Unix seconds) */
	const char *serial;  /* "urn:uuid:..." (8-4-4-4-12 lower-case hex, version 1-5) */
	const char *subject; /* what was scanned ("dist/x.whl"), metadata.component's name */
	const char *verdict; /* "PASS", "FAIL", "INCOMPLETE" */
};

/* "pkg:pypi/torch@2.5.1%2Bcu126" for a report package; "" when its kind has no purl type. */
void ga_cdx_purl(const struct ga_deps_report_pkg *p, char *out, size_t n);
/* The SBOM of rep into out (pretty: indented, final newline). 0, -ENOMEM, -EINVAL (writer). */
int ga_cyclonedx_write(const struct ga_deps_report *rep, const struct ga_cdx_opts *o, struct ga_buf *out,
                       bool pretty);

#ifdef __cplusplus
}
#endif
#endif
