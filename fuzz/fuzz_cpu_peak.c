/*
 * fuzz_cpu_peak.c - the /proc/cpuinfo reader behind the CPU's theoretical
 * peak (ga_cpu_peak_flops, used for the cblas backend's percent of peak) on
 * arbitrary bytes: never crashes, and a figure it returns is positive and
 * finite, with fp64 exactly half of fp32.
 */
#include <math.h>

#include "fuzz.h"
#include "gpuaudit/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned cores = 0, fpc = 0;
	double mhz = 0;
	double p32 = ga_cpu_peak_flops((const char *)data, size, false, &cores, &mhz, &fpc);
	double p64 = ga_cpu_peak_flops((const char *)data, size, true, NULL, NULL, NULL);
	FUZZ_CHECK(isnan(p32) == isnan(p64));
	if (!isnan(p32))
		FUZZ_CHECK(p32 > 0 && isfinite(p32) && cores > 0 && mhz > 0 && fpc > 0 && p64 * 2 == p32);
	return 0;
}
