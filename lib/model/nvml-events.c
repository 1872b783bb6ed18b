/*
 * nvml-events.c - what the vendor helper reports after waiting for NVML
 * events (gpuaudit __vendor-helper nvml-events MS): the wire format between
 * the helper and its parent, from one field table (writer, reader, release),
 * and the kernel-log form of an Xid event, so that an Xid NVML delivered goes
 * through the same analysis as one the kernel logged.
 */
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/fabric.h"

#define S(st, m) GA_FIELD(st, m, GA_F_STR)
#define U(st, m) GA_FIELD(st, m, GA_F_U64)
#define I(st, m) GA_FIELD(st, m, GA_F_I64)
#define D(st, m) GA_FIELD(st, m, GA_F_DBL)
#define B(st, m) GA_FIELD(st, m, GA_F_BOOL)
#define V(st, m) GA_FIELD(st, m, GA_F_STRV)

#define E struct ga_nvml_event
static const struct ga_field event_f[] = {
	U(E, gpu), S(E, uuid), S(E, pci_bus_id), S(E, type), U(E, event_type), U(E, xid), D(E, after_ms),
};
#undef E
static const struct ga_schema event_s = { "ga_nvml_event", sizeof(struct ga_nvml_event), event_f,
	                                  GA_ARRAY_SIZE(event_f) };

#define E struct ga_nvml_events
static const struct ga_field events_f[] = {
	B(E, live),         U(E, registered_gpus), U(E, waited_ms),
	V(E, unregistered), S(E, error),           S(E, error_call),
	I(E, error_code),   B(E, timed_out),       GA_FIELD_ARR(E, events, event_s),
};
#undef E
const struct ga_schema ga_nvml_events_schema = { "ga_nvml_events", sizeof(struct ga_nvml_events), events_f,
	                                         GA_ARRAY_SIZE(events_f) };

void ga_nvml_events_release(struct ga_nvml_events *e)
{
	if (e)
		ga_schema_release(&ga_nvml_events_schema, e);
}

/* "0000:07:00.0": the only form the helper writes; anything else is not rendered */
static bool sysfs_address(const char *a)
{
	if (strlen(a) != 12 || a[4] != ':' || a[7] != ':' || a[10] != '.')
		return false;
	for (size_t i = 0; i < 12; i++)
		if (i != 4 && i != 7 && i != 10 &&
		    !((a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'f')))
			return false;
	return true;
}

size_t ga_nvml_event_kline(const struct ga_nvml_event *e, double start_boot_s, char *buf, size_t n)
{
	if (!e->type || strcmp(e->type, "xid") != 0 || !e->xid.set || !e->pci_bus_id || n == 0)
		return 0;
	/* "0000:07:00.0" -> the kernel's "PCI:0000:07:00" */
	if (!sysfs_address(e->pci_bus_id))
		return 0;
	size_t len = strlen(e->pci_bus_id);
	char at[40] = "";
	double t = start_boot_s + (e->after_ms.set ? e->after_ms.v / 1000.0 : 0.0);
	if (start_boot_s >= 0 && t >= 0 && t < 1e9) /* a boot time the kernel's format holds */
		snprintf(at, sizeof(at), "[%12.6f] ", t);
	int w = snprintf(buf, n, "%sNVRM: Xid (PCI:%.*s): %llu, reported by NVML events", at, (int)(len - 2),
	                 e->pci_bus_id, (unsigned long long)e->xid.v);
	return w > 0 && (size_t)w < n ? (size_t)w : 0;
}
