/*
 * elfscan-analyze.h - the ld.so simulation's expansion of $ORIGIN (lib/analyze/ldso.c). The
 * ELF facts are elfscan.h's.
 */
#ifndef GPUAUDIT_ELFSCAN_ANALYZE_H
#define GPUAUDIT_ELFSCAN_ANALYZE_H

#include "gpuaudit/elfscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Expand one RPATH/RUNPATH value: split at ':', replace $ORIGIN / ${ORIGIN}
 * with origin_dir (the directory holding the ELF file), $LIB / ${LIB} with
 * lib_dir ("lib/x86_64-linux-gnu" if NULL) and $PLATFORM / ${PLATFORM} with
 * platform ("x86_64" if NULL), then normalise "." and ".." lexically (a
 * scanned tree may live in an archive: no symlinks are resolved). Empty
 * elements are dropped (ld.so reads them as the current directory, which
 * never helps an artifact). Returns 0 and a ga_free-able array of ga_free-able
 * strings in *ret_dirs / *ret_n, or -ENOMEM. (Defined with the loader
 * simulation that uses it, lib/analyze/ldso.c.)
 */
int ga_elf_expand_origin(const char *path_list, const char *origin_dir, const char *lib_dir,
                         const char *platform, char ***ret_dirs, size_t *ret_n);

#ifdef __cplusplus
}
#endif
#endif
