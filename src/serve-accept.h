/* serve-accept.h - HTTP Accept negotiation of serve (src/serve-accept.c). */
#ifndef GA_SERVE_ACCEPT_H
#define GA_SERVE_ACCEPT_H

#include <stddef.h>

#include "gpuaudit/prom.h"

/*
 * The format an HTTP Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text with a quality at least that of every other
 * acceptable range, the text format otherwise (also for NULL, empty or
 * malformed headers). Looks at no more than 4096 bytes.
 */
enum ga_prom_format ga_prom_negotiate(const char *accept, size_t len);

#endif
