/*
 * promfleet.h - the fleet read from Prometheus (lib/collect/promfleet.c):
 * the queries `gpuaudit fleet --prometheus` makes of serve's series, and the
 * nodes, histories and skipped targets they yield, through a sink the caller
 * gives (its type is the model's, reader-sinks.h; the fleet aggregator's is
 * ga_fleet_prom_sink in fleet-analyze.h, a layer above). As reports.h is for
 * snapshot files, this knows nothing of how the matrix is built.
 *
 * Series and labels read (docs/fleet.md, docs/metrics.md):
 *   gpuaudit_fleet_info{job, instance, hostname, class, name, hw_sha256,
 *     family, stack_sha256, gpus, driver, cuda, rocm, kernel, os_id,
 *     os_version, policy, pool, expected_gpus}   one per node
 *   gpuaudit_findings{job, instance, code, severity} for the codes that make
 *     a node drift (GA-LINK-DEGRADED, GA-PIN-*, GA-EXPECT-*,
 *     GA-CHECK-NO-CLASS) and error or critical severities
 *   gpuaudit_node_info{job, instance}: nodes that report it but no
 *     gpuaudit_fleet_info are skipped, by name, not left out unsaid
 */
#ifndef GPUAUDIT_PROMFLEET_H
#define GPUAUDIT_PROMFLEET_H

#include "gpuaudit/fleet.h"
#include "gpuaudit/promapi.h"
#include "gpuaudit/reader-sinks.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_prom_fleet_opts {
	const struct ga_prom_transport *t;
	char *const *matchers; /* each from ga_prom_matchers_parse; several: their union */
	size_t n_matchers;
	struct ga_odbl at_s;           /* the evaluation time; unset: now (this machine's clock) */
	struct ga_odbl since_s;        /* drift in time over [at - since, at]; unset: none */
	long timeout_ms;               /* sent as each query's timeout; 0: the server's */
	struct ga_prom_budget *budget; /* series, bytes and time of the whole run; NULL: none */
	/*
	 * Nodes held in memory at once: those with drift findings and, with
	 * since_s, those that changed or stopped (their series). Past it the
	 * read fails with -E2BIG (--max-tracked). 0: no cap.
	 */
	size_t max_tracked;
};

/*
 * Run the queries and feed the sink. The time used goes to *ret_at_s. 0, or
 * -errno with the message in ctx (promapi.h's errors, -E2BIG past
 * max_tracked or when the sink's node() says so); on error the sink
 * has had part of the fleet and the caller must not report it.
 */
int ga_prom_fleet_read(struct ga_ctx *ctx, const struct ga_prom_fleet_opts *o,
                       const struct ga_prom_fleet_sink *sink, double *ret_at_s);

#ifdef __cplusplus
}
#endif
#endif
