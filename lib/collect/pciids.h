/*
 * pciids.h - names for a handful of PCI ids from the text of a pci.ids file, in one
 * pass and without building the whole database (pciids.c says why).
 */
#ifndef GA_COLLECT_PCIIDS_H
#define GA_COLLECT_PCIIDS_H

#include <stdbool.h>
#include <stddef.h>

enum ga_pciids_kind {
	GA_PCIIDS_VENDOR, /* id1 = vendor */
	GA_PCIIDS_DEVICE, /* id1 = vendor, id2 = device */
	GA_PCIIDS_CLASS,  /* id1 = class << 8 | subclass (0x0302) */
};

/* libpci's name buffer size in pci.c before this file: names keep its truncation. */
#define GA_PCIIDS_NAME_MAX 256

struct ga_pciids_query {
	enum ga_pciids_kind kind;
	unsigned id1, id2;
	bool found;
	char name[GA_PCIIDS_NAME_MAX];
};

/*
 * Answer every query from the pci.ids text (need not be NUL-terminated). A query
 * found has found = true and name set the way libpci 3.9's pci_lookup_name with
 * PCI_LOOKUP_NO_NUMBERS writes it: the entry's text, a class whose subclass is not
 * listed as "Class name [ccss]", and a name of 256 bytes or more cut to 252 + "...".
 * The first entry of an id wins; malformed lines are skipped.
 */
void ga_pciids_scan(const char *text, size_t len, struct ga_pciids_query *q, size_t n);

#endif
