/*
 * facts-tsv.h - the facts files the catalogue tests hold the tables against
 * (the .tsv files under tests/fixtures/xid, sxid and aer: '#' comment lines with the source, one
 * line of column names, then one tab-separated row per fact). Header-only, for
 * the unit tests.
 */
#ifndef GA_TESTS_FACTS_TSV_H
#define GA_TESTS_FACTS_TSV_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct facts_tsv {
	FILE *fp;
	char line[1024];
	bool header; /* the column names were read */
};

/* Open $GA_FIXTURES/REL (tests/fixtures/REL without it): 0, or -1 with why on stderr. */
static inline int facts_open(struct facts_tsv *t, const char *rel)
{
	const char *dir = getenv("GA_FIXTURES");
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", rel);
	memset(t, 0, sizeof(*t));
	if (!(t->fp = fopen(path, "r"))) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	return 0;
}

/*
 * The next row split into at most n fields in place (f points into t->line):
 * the number of fields, or 0 at the end of the file. Comments, blank lines
 * and the column names are passed over.
 */
static inline size_t facts_row(struct facts_tsv *t, char **f, size_t n)
{
	while (fgets(t->line, sizeof(t->line), t->fp)) {
		t->line[strcspn(t->line, "\r\n")] = '\0';
		if (t->line[0] == '#' || !t->line[0])
			continue;
		if (!t->header) {
			t->header = true;
			continue;
		}
		size_t k = 0;
		for (char *p = t->line; k < n;) {
			f[k++] = p;
			char *tab = strchr(p, '\t');
			if (!tab)
				break;
			*tab = '\0';
			p = tab + 1;
		}
		return k;
	}
	return 0;
}

static inline void facts_close(struct facts_tsv *t)
{
	if (t->fp)
		fclose(t->fp);
	t->fp = NULL;
}

#endif
