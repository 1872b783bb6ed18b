/*
 * junit.h - JUnit XML (the Ant/Jenkins dialect CI systems read), written by
 * lib/emit/junit.c for any command that reports steps as test cases
 * (`preflight --junit`).
 */
#ifndef GPUAUDIT_JUNIT_H
#define GPUAUDIT_JUNIT_H

#include <stdbool.h>

#include "gpuaudit/core.h"
#include "gpuaudit/run.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_junit_status { GA_JUNIT_PASS, GA_JUNIT_FAILURE, GA_JUNIT_ERROR, GA_JUNIT_SKIPPED };

struct ga_junit_case {
	const char *classname;
	const char *name;
	enum ga_junit_status status;
	const char *message; /* failure/error/skipped message attribute */
	bool have_time;
	double time_s;
	/* the failure/error element's text (NULL: empty) */
	const char *detail;
	size_t detail_len;
	/* a run's captured output as system-out/system-err (NULL: none) */
	const struct ga_capture *out, *err;
};

/* The suite's counts are the caller's: they may count steps rather than cases. */
struct ga_junit_suite {
	const char *name;
	size_t tests, failures, errors, skipped;
	const struct ga_junit_case *cases;
	size_t n_cases;
};

/* The document (XML declaration, <testsuites>, one <testsuite>) appended to out. 0, -ENOMEM, -E2BIG. */
int ga_junit_write(struct ga_buf *out, const struct ga_junit_suite *s);

#ifdef __cplusplus
}
#endif
#endif
