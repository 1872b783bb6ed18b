/*
 * cli-text.c - the printf side of the text escaping rule (gpuaudit/text.h):
 * every string a command prints that came from an artifact, a node, a log or
 * a report (paths, member names, DT_NEEDED strings, hostnames, messages that
 * quote them) goes through cli_esc() or cli_fputs_esc(), so no input can
 * reach the terminal as a control sequence or forge a line.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/text.h"

/*
 * One ring for the process: printers are single-threaded (serve's threads do
 * not print text), a static keeps the call sites one call wide, and what it
 * holds stays reachable until exit (never a leak report).
 */
static struct ga_text_ring cli_ring; /* zero = ga_text_ring_init(&r, 0) */

const char *cli_esc(const char *s)
{
	return ga_text_ring_esc(&cli_ring, s);
}

void cli_fputs_esc(FILE *f, const char *s, unsigned flags)
{
	size_t len = strlen(s);
	if (ga_text_is_clean(s, len, flags)) {
		fputs(s, f);
		return;
	}
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_text_escape_buf(&b, s, len, flags) == 0 && b.data)
		fputs(b.data, f);
	else
		fputs("?", f);
	ga_buf_release(&b);
}

void cli_print_action(FILE *o, const char *indent, const struct ga_finding *fd)
{
	fprintf(o, "%saction: %s  cause: %s", indent, ga_action_name(fd->action), ga_cause_name(fd->cause));
	if (fd->gpu_uuid)
		fprintf(o, "  gpu: %s", cli_esc(fd->gpu_uuid));
	if (fd->pci_address && (!fd->subject || strcmp(fd->subject, fd->pci_address)))
		fprintf(o, "  pci: %s", cli_esc(fd->pci_address));
	fputc('\n', o);
}
