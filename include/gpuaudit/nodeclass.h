/*
 * nodeclass.h - the node class: a fingerprint of what a node *is* (hardware)
 * and what it *runs* (software stack), computed from a snapshot, so that nodes
 * that should be interchangeable get the same id and a node that drifted gets
 * another. Also the compile/engine cache key (TensorRT plans, Triton and
 * torch.compile caches): the facts compiled GPU code depends on.
 *
 * Pure: no I/O, no context. Only identity facts take part (model, count,
 * memory size, compute capability, interconnect, PCIe capability, MIG layout,
 * CPU model, memory, kernel, OS, driver and CUDA/ROCm versions); never
 * uptime, utilization, temperatures, power, clocks, serials, UUIDs, boot id,
 * hostname, PCI addresses, free/used memory, error counters or findings.
 * docs/class.md lists every field.
 *
 * Canonical JSON: compact, keys sorted, integers and strings only. A value
 * that was not collected is omitted: absence is part of the identity.
 * One layer per header: this one is the model's; what the layers above do with it is
 * declared in nodeclass-analyze.h (analyze).
 */
#ifndef GPUAUDIT_NODECLASS_H
#define GPUAUDIT_NODECLASS_H

#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_nodeclass {
	char *id;           /* name "-" hw_sha256[0..8] "." stack_sha256[0..8] */
	char *name;         /* readable: "a100-sxm4-40gb-x8-nvswitch", "cpu-x86-64-v4" */
	char *hw_sha256;    /* lowercase hex of SHA-256 over hw_json */
	char *stack_sha256; /* lowercase hex of SHA-256 over stack_json */
	char *hw_json;      /* canonical JSON of the hardware class */
	char *stack_json;   /* canonical JSON of the software stack */
	char *key;          /* "nvidia-a100-sxm4-40gb-sm80-drv550.135-cuda12.4-<hash8>" */
	char *key_json;     /* canonical JSON the key's hash is taken over */
};

/*
 * The class as a document (`class --json`, lib/model/class.c): schema, id,
 * name, hw_sha256, stack_sha256, hw, stack (the canonical JSON as objects),
 * key, key_json. Read back, hw/stack/key_json hold compact JSON text with the
 * same members (the hashes stay those of the canonical bytes).
 */
#define GA_CLASS_SCHEMA "gpuaudit.class/v1"
struct ga_class_doc {
	char *schema;
	struct ga_nodeclass c;
};
struct ga_schema;
extern const struct ga_schema ga_class_doc_schema;
/* Write c as a gpuaudit.class/v1 document into out: 0 or -ENOMEM. */
struct ga_buf;
int ga_class_write_json(const struct ga_nodeclass *c, struct ga_buf *out, bool pretty);

#ifdef __cplusplus
}
#endif
#endif
