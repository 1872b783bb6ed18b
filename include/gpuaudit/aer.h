/*
 * aer.h - the Linux kernel's PCIe AER error names (lib/core/aer.def) and the one
 * decision on a device's AER errors that health and explain share (docs/health.md
 * "PCIe AER").
 */
#ifndef GPUAUDIT_AER_H
#define GPUAUDIT_AER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_aer_layer { GA_AER_PHYSICAL = 0, GA_AER_DATA_LINK, GA_AER_TRANSACTION };

struct ga_aer_fact {
	bool uncorrectable; /* the register: correctable or uncorrectable error status */
	uint8_t bit;
	const char *name; /* the kernel's: "RxErr", "CmpltTO" ... */
	enum ga_aer_layer layer;
};

/* Every row: correctable bits first, each table in bit order. */
const struct ga_aer_fact *ga_aer_facts(size_t *ret_n);
/* The kernel's name of a status bit, NULL when it names none. */
const struct ga_aer_fact *ga_aer_fact(bool uncorrectable, unsigned bit);
/* "physical", "data-link", "transaction". */
const char *ga_aer_layer_name(enum ga_aer_layer l);

/* How severe the AER messages were: the kernel's three classes. */
enum ga_aer_class { GA_AER_CORRECTED = 0, GA_AER_NONFATAL, GA_AER_FATAL };

/*
 * Corrected errors of one type on one device from this many on are a storm: the
 * link keeps retraining or replaying (docs/health.md says why 10).
 */
#define GA_AER_STORM 10

/*
 * The decision on one device's AER messages of one class (docs/health.md "PCIe
 * AER"): types[bit] counts each error type the detail lines named, messages the
 * messages (a message without detail names no type). Corrected: info / none, a
 * storm (one type GA_AER_STORM or more, or that many messages when no type was
 * named) warning / investigate; non-fatal: error / drain; fatal: critical / drain.
 * Returns true for a storm.
 */
bool ga_aer_decide(enum ga_aer_class c, const uint32_t types[32], uint64_t messages,
                   enum ga_action *ret_action, enum ga_severity *ret_sev);

/*
 * "RxErr x10, BadTLP x2" into out (at most cap bytes, always terminated), most
 * frequent first; a bit the kernel names none is "bit N".
 */
void ga_aer_types_text(bool uncorrectable, const uint32_t types[32], char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
