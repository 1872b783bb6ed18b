/* intel.c - i915/xe sysfs depth (frequencies, local memory, hwmon energy and power). */
#include "collect.h"

void ga_collect_intel_depth(struct cl *c, struct ga_accel *a, const char *phys, const char *card)
{
	(void)c;
	(void)a;
	(void)phys;
	(void)card;
}
