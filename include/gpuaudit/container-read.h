/*
 * container-read.h - what collect reads of the container layer: the readers
 * that take a buffer (CDI specs, the kubelet's device-plugin checkpoint;
 * lib/collect/cdi.c, lib/collect/devplugin.c), so that fuzzers and tests reach
 * them without a tree. They fill the model's structs (node.h: struct
 * ga_cdi_spec, struct ga_device_plugins, and the limits of what they hold,
 * GA_CDI_MAX_*, GA_DP_MAX_CHECKPOINT_BYTES), which the collectors put in the
 * node's `cdi` and `device_plugins` sections. Nothing here decides: that is
 * container.h's (analyze).
 */
#ifndef GPUAUDIT_CONTAINER_READ_H
#define GPUAUDIT_CONTAINER_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parse one CDI spec (JSON when yaml is false, else YAML through libfyaml after
 * the prescan of lib/core/yaml-scan.c) into spec (zeroed by the caller; path and
 * format are the caller's). Bad input is not an error of the call: spec->error
 * says what is wrong ("LINE:COL: ..." or "devices[2].name: expected a string")
 * and what was read before it stays. A spec that reads well is then held to
 * the rules the CDI library applies when it loads one (its keys and their
 * types, the version and the features it needs, kind, device names, edits:
 * docs/container.md, "The format's rules"); the first rule broken is the
 * error. Only out of memory returns -ENOMEM; else 0.
 * The paths are recorded, not checked: ga_cdi_spec_check_paths does that.
 */
int ga_cdi_spec_parse(const char *text, size_t len, bool yaml, struct ga_cdi_spec *spec);

/*
 * Parse the kubelet's kubelet_internal_checkpoint (JSON) into dp's resources
 * and pod_entries; a damaged checkpoint sets dp->checkpoint_error. 0 or -ENOMEM.
 */
int ga_dp_checkpoint_parse(const char *text, size_t len, struct ga_device_plugins *dp);

/*
 * The version suffix of a driver library file name ("libcuda.so.550.54.15" ->
 * "550.54.15"; "libnvidia-ml.so.1" -> NULL: a soname link, not a version). The
 * result points into name.
 */
const char *ga_cdi_lib_version(const char *path, const char *stem);

#ifdef __cplusplus
}
#endif
#endif
