/* amd_intel.c - findings from amdgpu and i915/xe sysfs depth and ROCm SMI. */
#include "analyze.h"

void ga_analyze_amd_intel(const struct ga_node *n, struct ga_findings *out)
{
	(void)n;
	(void)out;
}
