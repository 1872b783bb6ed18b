/*
 * csv.h - reports rendered as CSV, RFC 4180 (lib/emit/csv.c).
 */
#ifndef GPUAUDIT_CSV_H
#define GPUAUDIT_CSV_H

#include "gpuaudit/fleet.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The fleet report as records (stack, check, drift, skipped, change; one
 * header line), with d's changes when d is not NULL, appended to out. 0,
 * -ENOMEM or -E2BIG (out's cap).
 */
int ga_csv_fleet(struct ga_buf *out, const struct ga_fleet_report *r, const struct ga_fleet_diff *d);

#ifdef __cplusplus
}
#endif
#endif
