/* explain-report.h - the text form of explain's causes, shared by explain and preflight. */
#ifndef GA_EXPLAIN_REPORT_H
#define GA_EXPLAIN_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct ga_explain;
/* Ranked causes, then the matched lines, each line starting with indent. */
void explain_print_text(FILE *o, struct ga_explain *ex, const char *indent);
/* Read fd to the end into the matcher. 0 or -errno with a message in err. */
int explain_stream(int fd, struct ga_explain *ex, char *err, size_t errn);

#endif
