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

/* What a run could not read: a toolExecutionNotification located on path. */
struct ga_sarif_notice {
	const char *path;
	const char *message;
	bool error; /* level "error" (the input could not be read at all), else "warning" */
};
/*
 * The run's invocation (runs[0].invocations[0]): executionSuccessful (false
 * when the input could not be read), exitCode, one notification per notice,
 * and the command's result (and its reason, NULL: null) as properties, so
 * that a log without results is never read as a clean pass.
 */
struct ga_sarif_invocation {
	bool successful;
	int exit_code;
	const char *result; /* "pass", "fail", "incomplete", "unknown", "error" */
	const char *reason;
	const struct ga_sarif_notice *notices;
	size_t n_notices;
};
/* ga_sarif_write_json / ga_sarif_write with the invocation (inv NULL: none, as they write). */
void ga_sarif_write_json_run(struct ga_json *w, const struct ga_findings *fs, ga_sarif_rule_fn rule_text,
                             const struct ga_sarif_invocation *inv);
int ga_sarif_write_run(const struct ga_findings *fs, ga_sarif_rule_fn rule_text,
                       const struct ga_sarif_invocation *inv, struct ga_buf *out, bool pretty);

#ifdef __cplusplus
}
#endif
#endif
