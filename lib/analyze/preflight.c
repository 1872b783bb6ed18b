/*
 * analyze/preflight.c - what preflight's steps found, as statuses (see
 * preflight.h). Pure functions of the results: no I/O, no clock. The
 * statuses' names are the model's (lib/model/preflight.c).
 */
#include "gpuaudit/preflight.h"
#include "gpuaudit/preflight-analyze.h"

const char *ga_pf_status_name(enum ga_pf_status s)
{
	return (unsigned)s < GA_PF_N_STATUS ? ga_pf_status_names[s] : "unknown";
}

size_t ga_pf_errors(const struct ga_findings *f)
{
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		k += f->v[i].severity >= GA_SEV_ERROR;
	return k;
}

enum ga_pf_status ga_pf_status_of_findings(const struct ga_findings *f, bool analysis_failed, size_t *errors)
{
	size_t e = analysis_failed ? 0 : ga_pf_errors(f);
	if (errors)
		*errors = e;
	if (analysis_failed)
		return GA_PF_UNKNOWN;
	return e ? GA_PF_FAIL : GA_PF_PASS;
}

enum ga_pf_status ga_pf_status_of_check(enum ga_check_result r)
{
	return r == GA_CHECK_PASS ? GA_PF_PASS : r == GA_CHECK_FAIL ? GA_PF_FAIL : GA_PF_UNKNOWN;
}

enum ga_pf_status ga_pf_result(const enum ga_pf_status *steps, size_t n)
{
	enum ga_pf_status res = GA_PF_PASS;
	for (size_t i = 0; i < n; i++)
		if (steps[i] == GA_PF_FAIL || (steps[i] == GA_PF_UNKNOWN && res == GA_PF_PASS))
			res = steps[i];
	return res;
}

void ga_pf_count(const enum ga_pf_status *steps, size_t n, size_t *fail, size_t *unknown, size_t *skip)
{
	*fail = *unknown = *skip = 0;
	for (size_t i = 0; i < n; i++) {
		*fail += steps[i] == GA_PF_FAIL;
		*unknown += steps[i] == GA_PF_UNKNOWN;
		*skip += steps[i] == GA_PF_SKIP;
	}
}

void ga_pf_warmup_cases(enum ga_pf_status warmup, bool command, size_t n_runs, enum ga_pf_status *cold,
                        enum ga_pf_status *warm)
{
	*cold = command && n_runs > 1 ? GA_PF_PASS : warmup;
	*warm = !command || n_runs > 1 ? warmup : GA_PF_SKIP;
}
