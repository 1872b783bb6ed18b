/*
 * nvreq.h - the NVIDIA container toolkit's image requirements
 * (NVIDIA_REQUIRE_* in an image's Env, NVIDIA_DISABLE_REQUIRE) judged
 * against a target driver as the toolkit would judge them, with its own
 * error text. The grammar and the toolkit's behaviour are in docs/deps.md
 * ("Container requirements"). Pure: no I/O, no allocation.
 */
#ifndef GPUAUDIT_NVREQ_H
#define GPUAUDIT_NVREQ_H

#include <stddef.h>

enum ga_nvreq_verdict {
	GA_NVREQ_SATISFIED = 0, /* the toolkit starts the container */
	GA_NVREQ_UNSATISFIED,   /* the toolkit refuses: "unsatisfied condition: ..." */
	GA_NVREQ_UNKNOWN,       /* depends on a fact of the target that is not known (brand, arch, ...) */
	GA_NVREQ_INVALID,       /* the toolkit refuses: "invalid expression" */
};

/* What the toolkit compares against; NULL (or "") where not known. */
struct ga_nvreq_target {
	const char *cuda;   /* the driver's highest CUDA, "13.0" */
	const char *driver; /* "580.65.06" */
	const char *brand;  /* NVML brand name, "tesla", "geforce" */
	const char *arch;   /* compute capability, "9.0" */
};

struct ga_nvreq_result {
	enum ga_nvreq_verdict verdict;
	/* the toolkit's own text for UNSATISFIED / INVALID; for UNKNOWN what is not known; "" when satisfied */
	char message[256];
	/* our explanation: the deciding term and the value it was compared with */
	char detail[256];
};

/*
 * Judge one requirement value (the text of one NVIDIA_REQUIRE_* variable).
 * Never fails: any text gives a verdict (malformed text: GA_NVREQ_INVALID
 * where the toolkit would reach the malformed term).
 */
void ga_nvreq_eval(const char *predicate, const struct ga_nvreq_target *t, struct ga_nvreq_result *res);

/*
 * Judge an image's Env ("KEY=value" strings): NVIDIA_DISABLE_REQUIRE, every
 * NVIDIA_REQUIRE_* but NVIDIA_REQUIRE_JETPACK*, and a legacy image's
 * CUDA_VERSION when it has no NVIDIA_REQUIRE_CUDA. The first requirement not
 * satisfied decides (an unsatisfied or invalid one before an unknown one).
 * Returns the number of requirements judged (0: nothing to judge, or the
 * check is disabled; *disabled tells which when not NULL).
 */
size_t ga_nvreq_image(const char *const *env, size_t n_env, const struct ga_nvreq_target *t,
                      struct ga_nvreq_result *res, int *disabled);

/* The toolkit's version comparison: 1 true, 0 false, -1 not a version ("12.8", "535.104.05"). */
int ga_nvreq_version_cmp(const char *actual, const char *op, const char *wanted);

#endif
