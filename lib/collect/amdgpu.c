/* amdgpu.c - amdgpu sysfs depth (busy, memory, RAS, hwmon, partitions). */
#include "collect.h"

void ga_collect_amd_depth(struct cl *c, struct ga_accel *a, const char *phys)
{
	(void)c;
	(void)a;
	(void)phys;
}
