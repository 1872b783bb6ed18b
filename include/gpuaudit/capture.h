/*
 * capture.h - copy the part of a machine that gpuaudit discover, lstopo and
 * lspci read into a directory that `discover --root DIR` (and lstopo
 * --input DIR, lspci -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci) read as if
 * it were the machine: `gpuaudit capture OUTDIR` (lib/collect/capture.c).
 *
 * The source is the context's root; every read goes through the root-relative
 * reader (gpuaudit/fs.h). Nothing blocks: files are opened O_NONBLOCK and
 * O_NOFOLLOW and only regular files are read, each to at most
 * max_file_bytes; device nodes become empty files; symlinks are recreated as
 * relative links that stay inside OUTDIR, resolved with a hop limit.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in capture-read.h (collect).
 */
#ifndef GPUAUDIT_CAPTURE_H
#define GPUAUDIT_CAPTURE_H

#include "gpuaudit/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GA_CAPTURE_SCHEMA "gpuaudit.capture/v1"

/*
 * A capture is written into "OUTDIR.partial-XXXXXX" beside OUTDIR and renamed
 * to OUTDIR when complete. Its first file is GA_CAPTURE_META, its last
 * GA_CAPTURE_COMPLETE (both "schema gpuaudit.capture/v1", "version V",
 * "state ..." lines): a directory with the first and not the last, or named
 * like a partial one, is a capture that was cut short (issue 29).
 */
#define GA_CAPTURE_META ".gpuaudit-capture"
#define GA_CAPTURE_COMPLETE ".gpuaudit-capture-complete"
#define GA_CAPTURE_PARTIAL ".partial-"

/* Default cap on the bytes copied from one file (larger ones are truncated and listed). */
#define GA_CAPTURE_MAX_FILE_BYTES (1024u * 1024u)

struct ga_capture_opts {
	const char *outdir;    /* must not exist, or be an empty directory of ours not writable by others */
	size_t max_file_bytes; /* 0: GA_CAPTURE_MAX_FILE_BYTES */
	size_t max_listed;     /* most entries in skipped and truncated (0: 1000); the counts stay exact */
};

/* Something the capture met and did not copy, and why ("fifo", "permission denied", ...). */
struct ga_capture_skip {
	char *path; /* relative to the root */
	char *reason;
};

/* The summary `capture --json` prints (gpuaudit.capture/v1, docs/schema/capture.md). */
struct ga_capture_report {
	char *schema;
	char *root;                 /* the source root as given */
	char *outdir;               /* as given */
	struct ga_ou64 files;       /* regular files written with content */
	struct ga_ou64 empty_files; /* device nodes and libraries written as empty files */
	struct ga_ou64 links;       /* symlinks recreated */
	struct ga_ou64 dirs;        /* directories created */
	struct ga_ou64 bytes;       /* content bytes written */
	struct ga_ou64 skipped_count;
	struct ga_ou64 truncated_count;
	struct ga_odbl elapsed_ms; /* set by the caller, who owns the clock */
	struct ga_capture_skip *skipped;
	size_t n_skipped;
	struct ga_strv truncated; /* files cut at max_file_bytes */
};
extern const struct ga_schema ga_capture_report_schema;

#ifdef __cplusplus
}
#endif
#endif
