/*
 * sarif.c - the SARIF 2.1.0 writer (sarif.h), moved out of `gpuaudit deps` so
 * that serve and library users write the same log for any findings.
 */
#include <errno.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/sarif.h"
#include "gpuaudit/text.h"

static const char *level_name(enum ga_severity s)
{
	return s >= GA_SEV_ERROR ? "error" : s == GA_SEV_WARNING ? "warning" : "note";
}

static void write_rules(struct ga_json *w, const struct ga_findings *fs, ga_sarif_rule_fn rule_text)
{
	ga_json_arr_begin(w);
	for (size_t i = 0; i < fs->n; i++) {
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = !strcmp(fs->v[k].code, fs->v[i].code);
		if (dup)
			continue;
		ga_json_obj_begin(w);
		ga_json_key(w, "id");
		ga_json_str(w, fs->v[i].code);
		ga_json_key(w, "shortDescription");
		ga_json_obj_begin(w);
		ga_json_key(w, "text");
		ga_json_str(w, rule_text ? rule_text(fs->v[i].code) : fs->v[i].code);
		ga_json_obj_end(w);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
}

/* An artifact location's uri: a URI reference (RFC 3986), its path percent-encoded (text.h). */
static void write_uri(struct ga_json *w, const char *path, size_t len)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_text_uri_path(&b, path, len) == 0)
		ga_json_strn(w, b.data ? b.data : "", b.len);
	else
		ga_json_str(w, "?");
	ga_buf_release(&b);
}

static void write_location(struct ga_json *w, const char *subj)
{
	const char *bang = strstr(subj, "!/");
	ga_json_arr_begin(w);
	ga_json_obj_begin(w);
	ga_json_key(w, "physicalLocation");
	ga_json_obj_begin(w);
	ga_json_key(w, "artifactLocation");
	ga_json_obj_begin(w);
	ga_json_key(w, "uri");
	/* an archive member is reported on its archive; the member path is the logical location */
	write_uri(w, subj, bang ? (size_t)(bang - subj) : strlen(subj));
	ga_json_obj_end(w);
	ga_json_obj_end(w);
	if (bang) {
		ga_json_key(w, "logicalLocations");
		ga_json_arr_begin(w);
		ga_json_obj_begin(w);
		ga_json_key(w, "fullyQualifiedName");
		ga_json_str(w, subj);
		ga_json_obj_end(w);
		ga_json_arr_end(w);
	}
	ga_json_obj_end(w);
	ga_json_arr_end(w);
}

static void write_result(struct ga_json *w, const struct ga_finding *f)
{
	const char *subj = f->subject ? f->subject : "";
	ga_json_obj_begin(w);
	ga_json_key(w, "ruleId");
	ga_json_str(w, f->code);
	ga_json_key(w, "level");
	ga_json_str(w, level_name(f->severity));
	ga_json_key(w, "message");
	ga_json_obj_begin(w);
	ga_json_key(w, "text");
	struct ga_buf m;
	ga_buf_init(&m, 0);
	if (ga_buf_addf(&m, "%s: %s%s%s", subj, f->message, f->decision ? ". Fix: " : "",
	                f->decision ? f->decision : "") < 0 &&
	    !w->err)
		w->err = -ENOMEM;
	ga_json_str(w, m.data ? m.data : "");
	ga_buf_release(&m);
	ga_json_obj_end(w);
	ga_json_key(w, "locations");
	write_location(w, subj);
	ga_json_key(w, "properties");
	ga_json_obj_begin(w);
	/* what a remediator switches on and joins with, ahead of the evidence */
	ga_json_key(w, "action");
	ga_json_str(w, ga_action_name(f->action));
	ga_json_key(w, "cause");
	ga_json_str(w, ga_cause_name(f->cause));
	if (f->gpu_uuid) {
		ga_json_key(w, "gpu_uuid");
		ga_json_str(w, f->gpu_uuid);
	}
	if (f->pci_address) {
		ga_json_key(w, "pci_address");
		ga_json_str(w, f->pci_address);
	}
	for (size_t k = 0; k < f->n_evidence; k++) {
		const char *key = f->evidence[k].key;
		if (!strcmp(key, "action") || !strcmp(key, "cause") || !strcmp(key, "gpu_uuid") ||
		    !strcmp(key, "pci_address"))
			continue;
		ga_json_key(w, f->evidence[k].key);
		ga_json_str(w, f->evidence[k].value);
	}
	ga_json_obj_end(w);
	ga_json_obj_end(w);
}

/* runs[0].invocations: whether the run could look at its input, and what it could not read */
static void write_invocation(struct ga_json *w, const struct ga_sarif_invocation *inv)
{
	ga_json_key(w, "invocations");
	ga_json_arr_begin(w);
	ga_json_obj_begin(w);
	ga_json_key(w, "executionSuccessful");
	ga_json_bool(w, inv->successful);
	ga_json_key(w, "exitCode");
	ga_json_i64(w, inv->exit_code);
	ga_json_key(w, "toolExecutionNotifications");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < inv->n_notices; i++) {
		const struct ga_sarif_notice *n = &inv->notices[i];
		ga_json_obj_begin(w);
		ga_json_key(w, "level");
		ga_json_str(w, n->error ? "error" : "warning");
		ga_json_key(w, "message");
		ga_json_obj_begin(w);
		ga_json_key(w, "text");
		struct ga_buf m;
		ga_buf_init(&m, 0);
		if (ga_buf_addf(&m, "%s: %s", n->path, n->message) < 0 && !w->err)
			w->err = -ENOMEM;
		ga_json_str(w, m.data ? m.data : "");
		ga_buf_release(&m);
		ga_json_obj_end(w);
		ga_json_key(w, "locations");
		write_location(w, n->path);
		ga_json_obj_end(w);
	}
	ga_json_arr_end(w);
	ga_json_key(w, "properties");
	ga_json_obj_begin(w);
	ga_json_key(w, "result");
	ga_json_str(w, inv->result);
	ga_json_key(w, "result_reason");
	if (inv->reason && *inv->reason)
		ga_json_str(w, inv->reason);
	else
		ga_json_null(w);
	ga_json_obj_end(w);
	ga_json_obj_end(w);
	ga_json_arr_end(w);
}

void ga_sarif_write_json(struct ga_json *w, const struct ga_findings *fs, ga_sarif_rule_fn rule_text)
{
	ga_sarif_write_json_run(w, fs, rule_text, NULL);
}

void ga_sarif_write_json_run(struct ga_json *w, const struct ga_findings *fs, ga_sarif_rule_fn rule_text,
                             const struct ga_sarif_invocation *inv)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "$schema");
	ga_json_str(w, "https://json.schemastore.org/sarif-2.1.0.json");
	ga_json_key(w, "version");
	ga_json_str(w, "2.1.0");
	ga_json_key(w, "runs");
	ga_json_arr_begin(w);
	ga_json_obj_begin(w);
	ga_json_key(w, "tool");
	ga_json_obj_begin(w);
	ga_json_key(w, "driver");
	ga_json_obj_begin(w);
	ga_json_key(w, "name");
	ga_json_str(w, "gpuaudit");
	ga_json_key(w, "version");
	ga_json_str(w, GA_VERSION);
	ga_json_key(w, "rules");
	write_rules(w, fs, rule_text);
	ga_json_obj_end(w);
	ga_json_obj_end(w);
	if (inv)
		write_invocation(w, inv);
	ga_json_key(w, "results");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < fs->n; i++)
		write_result(w, &fs->v[i]);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

int ga_sarif_write(const struct ga_findings *fs, ga_sarif_rule_fn rule_text, struct ga_buf *out, bool pretty)
{
	return ga_sarif_write_run(fs, rule_text, NULL, out, pretty);
}

int ga_sarif_write_run(const struct ga_findings *fs, ga_sarif_rule_fn rule_text,
                       const struct ga_sarif_invocation *inv, struct ga_buf *out, bool pretty)
{
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	ga_sarif_write_json_run(&w, fs, rule_text, inv);
	return ga_json_finish(&w);
}
