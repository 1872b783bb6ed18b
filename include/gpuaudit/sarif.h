/*
 * sarif.h - findings as a SARIF 2.1.0 log (code-scanning UIs: GitHub, GitLab),
 * in the library so that every command, serve and library users write the
 * same document.
 */
#ifndef GPUAUDIT_SARIF_H
#define GPUAUDIT_SARIF_H

#include "gpuaudit/findings.h"
#include "gpuaudit/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A rule's one-line description for its code ("GA-DEPS-WRONG-VENDOR"); the code itself when unknown. */
typedef const char *(*ga_sarif_rule_fn)(const char *code);

/*
 * One run of tool "gpuaudit": a rule per distinct code (first appearance
 * order, described by rule_text, which may be NULL), a result per finding. A
 * subject "archive!/member" is located on the archive with the member as the
 * logical location; evidence becomes the result's properties.
 */
void ga_sarif_write_json(struct ga_json *w, const struct ga_findings *fs, ga_sarif_rule_fn rule_text);
/* The same into out (pretty: indented, with a final newline). 0 or -ENOMEM. */
int ga_sarif_write(const struct ga_findings *fs, ga_sarif_rule_fn rule_text, struct ga_buf *out, bool pretty);

#ifdef __cplusplus
}
#endif
#endif
