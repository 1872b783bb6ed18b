/*
 * elfscan.h - what one ELF file (or one raw device-code blob) carries that
 * decides where it can run: its dynamic linking (SONAME, DT_NEEDED,
 * RPATH/RUNPATH), the vendor libraries it dlopens, static CUDA runtime
 * markers, x86 ISA level and .note.dlopen notes, and a census of the GPU
 * code embedded in it (CUDA fatbin containers, HIP offload bundles plain and
 * compressed, LLVM offload binaries).
 *
 * Everything works on a memory buffer (an mmapped file or an archive member
 * already in memory): nothing outside buf[0..len) is ever read, the buffer is
 * never written, every offset and count is range-checked and capped. The
 * census walks container chains header to header and never touches payload
 * bytes, so censusing a library costs far less than reading it.
 *
 * Formats: ../docs/deps-formats.md. Layouts: gpu-code-formats.md (reference).
 * One layer per header: this one is deps'; what analyze does with the ELF facts is
 * declared in elfscan-analyze.h (analyze).
 */
#ifndef GPUAUDIT_ELFSCAN_H
#define GPUAUDIT_ELFSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- vendor library table ------------------------------------------------ */

/* The software stack a library (or a piece of device code) ties a file to. */
enum ga_dep_backend {
	GA_DEP_NONE = 0,
	GA_DEP_CUDA,       /* NVIDIA driver, CUDA toolkit and redistributables */
	GA_DEP_ROCM,       /* AMD ROCm / HIP */
	GA_DEP_LEVEL_ZERO, /* Intel Level Zero, SYCL / oneAPI GPU runtime */
	GA_DEP_OPENCL,     /* OpenCL (ICD loader: vendor-neutral) */
	GA_DEP_VULKAN,     /* Vulkan (loader: vendor-neutral) */
	GA_DEP_CPU,        /* CPU math libraries (OpenBLAS, MKL, BLIS, oneDNN) */
	GA_DEP_OTHER,      /* vendor-neutral plumbing (libdrm, libnuma, verbs, glvnd) */
	GA_DEP_N
};
/* "cuda", "rocm", "level-zero", "opencl", "vulkan", "cpu", "other", "none". */
const char *ga_dep_backend_name(enum ga_dep_backend b);

enum {
	/* Installed by the GPU driver (libcuda.so.1, libnvidia-ml.so.1...): an
	 * artifact must never bundle it. */
	GA_VLIB_DRIVER = 1u << 0,
	/* Vendor-neutral loader or plumbing (libOpenCL.so.1, libvulkan.so.1,
	 * libdrm.so.2): report, don't flag. */
	GA_VLIB_NEUTRAL = 1u << 1,
	/* The soname's major version is the runtime's major version
	 * (libcudart.so.12 -> CUDA 12, libamdhip64.so.6 -> ROCm 6). */
	GA_VLIB_MAJOR_IS_RUNTIME = 1u << 2,
};

struct ga_vendor_lib {
	const char *stem; /* "libcudart" (a soname is stem + ".so" [+ ".N..."]) */
	enum ga_dep_backend backend;
	unsigned flags;        /* GA_VLIB_* */
	const char *component; /* short human name: "CUDA runtime", "cuBLAS", "HIP runtime" */
};

struct ga_vendor_match {
	const struct ga_vendor_lib *lib;
	/* Soname version after ".so.": "12" -> 12, "11.0" -> 11, -1 when absent. */
	int soname_major;
	int soname_minor; /* -1 when absent */
	/* Runtime (CUDA / ROCm) major the soname pins, -1 when it does not tell. */
	int runtime_major;
	bool renamed; /* auditwheel-style "<stem>-<8 hex>.so.N" */
};

/*
 * Look a library file name or soname up ("libcudart.so.12",
 * "libcudart-1a2b3c4d.so.12", "/opt/x/libcuda.so.1", "libcublasLt.so").
 * Matches by stem (the part before ".so", ignoring a directory and an
 * auditwheel hash suffix). Returns the table entry or NULL; fills *ret_match
 * (may be NULL) only on success.
 */
const struct ga_vendor_lib *ga_vendor_lib_find(const char *name, struct ga_vendor_match *ret_match);
/* The whole table, for documentation and tests. */
const struct ga_vendor_lib *ga_vendor_lib_table(size_t *ret_n);

/* ---- embedded device code ------------------------------------------------ */

enum ga_devcode_format {
	GA_DEVCODE_CUDA_FATBIN = 0, /* fatbin container, magic 0xBA55ED50 */
	GA_DEVCODE_HIP_BUNDLE,      /* "__CLANG_OFFLOAD_BUNDLE__" */
	GA_DEVCODE_HIP_CCOB,        /* compressed clang offload bundle, "CCOB" */
	GA_DEVCODE_LLVM_OFFLOAD,    /* LLVM offload binary, magic 10 FF 10 AD */
	GA_DEVCODE_FORMAT_N
};
/* "cuda-fatbin", "hip-bundle", "hip-ccob", "llvm-offload". */
const char *ga_devcode_format_name(enum ga_devcode_format f);

enum ga_devcode_kind {
	GA_CODE_UNKNOWN = 0,
	GA_CODE_CUBIN,       /* CUDA SASS ELF (fatbin kind 2, or kind 4 old cubin) */
	GA_CODE_PTX,         /* CUDA PTX (JIT-compilable) */
	GA_CODE_LTOIR,       /* NVVM / LTO IR: only nvJitLink consumes it, not runnable */
	GA_CODE_CODE_OBJECT, /* AMDGPU code object (ELF) */
	GA_CODE_HOST,        /* host entry of an offload bundle */
	GA_CODE_SPIRV,       /* SPIR-V (AMD amdgcnspirv, Intel) */
	GA_CODE_BITCODE,     /* LLVM bitcode (offload binaries) */
	GA_CODE_FATBIN,      /* nested fatbin (LLVM offload binary of kind fatbinary) */
	GA_CODE_KIND_N
};
/* "unknown", "cubin", "ptx", "ltoir", "code-object", "host", "spirv", "bitcode", "fatbin". */
const char *ga_devcode_kind_name(enum ga_devcode_kind k);

enum ga_devcode_compression {
	GA_COMP_NONE = 0,
	GA_COMP_LZ4,  /* fatbin flag 0x2000 (CUDA <= 12) */
	GA_COMP_ZSTD, /* fatbin flag 0x8000, CCOB method 1 */
	GA_COMP_ZLIB, /* CCOB method 0 */
	GA_COMP_OTHER
};
/* "none", "lz4", "zstd", "zlib", "other". */
const char *ga_devcode_compression_name(enum ga_devcode_compression c);

/* One code image: a fatbin entry, or one entry of an offload bundle/binary. */
struct ga_devcode_image {
	uint32_t container; /* index into ga_elf_info.containers */
	enum ga_devcode_kind kind;
	/*
	 * Target as the toolchains spell it:
	 *   CUDA cubin "sm_90", "sm_90a", "sm_100f"; PTX "compute_120", "compute_90a";
	 *   LTO IR "lto_90"; AMD "gfx90a:xnack+", "gfx942:sramecc+:xnack-";
	 *   host entry: its triple ("x86_64-unknown-linux"); "" when unknown.
	 */
	char arch[48];
	uint16_t sm;            /* CUDA SM number (90 for sm_90a); 0 for non-CUDA */
	bool arch_specific;     /* CUDA 'a' (flag 0x100000): runs only on exactly sm */
	bool family;            /* CUDA 'f' (flag 0x200000): runs within the family */
	uint16_t ptx_isa_major; /* PTX: ISA version (9.0 -> 9, 0); 0 otherwise */
	uint16_t ptx_isa_minor;
	uint16_t code_version_major; /* fatbin entry version fields as stored (cubin: 1.7/1.8) */
	uint16_t code_version_minor;
	uint64_t cuda_flags; /* fatbin entry flags as stored (0 for non-CUDA) */
	enum ga_devcode_compression compression;
	bool debug;                 /* CUDA flag 0x2 (-G) */
	uint64_t offset;            /* file offset of the payload; of the CCOB container for CCOB images */
	uint64_t size;              /* payload bytes as stored */
	uint64_t uncompressed_size; /* 0 when unknown or not compressed */
	char *bundle_id;            /* offload bundle entry id as stored, NULL for CUDA */
	/* PTX only, with GA_ELF_PTX_ENTRIES: its kernels (".entry" directives in the text,
	 * decompressed first when zstd-compressed); ptx_entries_known false when not counted
	 * (flag off, compression not readable, payload over the cap) */
	uint32_t ptx_entries;
	bool ptx_entries_known;
};

struct ga_devcode_container {
	enum ga_devcode_format format;
	const char *section;  /* ELF section it was found in ("" for raw blobs); owned by the info */
	uint64_t offset;      /* file offset of the container header */
	uint64_t size;        /* header + entries, bytes */
	uint32_t version;     /* container / bundle / offload-binary version; CCOB version */
	uint32_t first_image; /* images[first_image .. first_image + n_images) */
	uint32_t n_images;
	/* CCOB only: method and sizes from its header; ids_known is false when
	 * the bundle could not be (or was asked not to be) decompressed. */
	enum ga_devcode_compression compression;
	uint64_t uncompressed_size;
	bool ids_known;
};

/* ---- per ELF ------------------------------------------------------------- */

/* Room for a symbol version ("3.4.32") and its NUL (longer ones are not kept). */
#define GA_SYMVER_LEN 16

/* static CUDA runtime markers (ga_elf_info.static_cudart_markers) */
enum {
	GA_CUDART_SYM_STATIC = 1u << 0,     /* a symbol "libcudart_static_<hex>" */
	GA_CUDART_SYM_REGISTER = 1u << 1,   /* __cudaRegisterFatBinary defined here */
	GA_CUDART_FATBIN_SEGMENT = 1u << 2, /* .nvFatBinSegment present */
	GA_CUDART_LIBCUDA_STRING = 1u << 3, /* "libcuda.so.1" in its string data */
};

/* One .note.dlopen entry (systemd-style, owner "FDO", type 0x407c0c0a). */
struct ga_note_dlopen {
	char **sonames; /* "soname" array */
	size_t n_sonames;
	char *feature;     /* NULL when absent */
	char *description; /* NULL when absent */
	char *priority;    /* "required" / "recommended" / "suggested"; NULL when absent */
	char *json;        /* the raw JSON object text */
};

struct ga_elf_info {
	/* ELF identification; elf_class 0 for a raw (non-ELF) blob. */
	uint8_t elf_class; /* 32 or 64 */
	bool big_endian;
	uint16_t machine;         /* e_machine */
	const char *machine_name; /* static: "x86-64", "aarch64", "cuda", "amdgpu", ... or NULL */
	uint8_t osabi;            /* EI_OSABI */
	const char *osabi_name;   /* static: "sysv", "gnu", "cuda", "amdgpu-hsa", ... or NULL */
	uint8_t abi_version;      /* EI_ABIVERSION */
	uint16_t type;            /* e_type */
	const char *type_name;    /* static: "rel", "exec", "dyn", "core" or NULL */
	uint32_t e_flags;
	/*
	 * When the file itself is device code (a loose cubin, .hsaco/.co code
	 * object, Intel zebin): its target ("sm_90", "gfx90a:xnack-", "intel-gt"),
	 * else NULL; device_backend then tells the vendor.
	 */
	char *device_arch;
	enum ga_dep_backend device_backend;

	/* dynamic linking, from PT_DYNAMIC as the loader sees it (the .dynamic
	 * section when there are no usable program headers) */
	char *interp;  /* PT_INTERP, NULL when absent */
	char *soname;  /* NULL when absent */
	char **needed; /* DT_NEEDED in order */
	size_t n_needed;
	char *rpath;   /* DT_RPATH raw (unexpanded), NULL when absent */
	char *runpath; /* DT_RUNPATH raw, NULL when absent */

	/* soft dependencies: vendor-table library names in the read-only data sections
	 * (string literals; writable sections are searched for containers only),
	 * sorted, unique (<= 256) */
	char **dlopen_names;
	size_t n_dlopen_names;
	struct ga_note_dlopen *note_dlopen;
	size_t n_note_dlopen;

	unsigned static_cudart_markers; /* GA_CUDART_* */
	bool static_cudart;             /* the markers add up to a statically linked CUDA runtime */

	/* GNU_PROPERTY_X86_ISA_1_NEEDED bits (1 baseline, 2 v2, 4 v3, 8 v4), 0 when absent */
	uint32_t x86_isa_needed;
	int x86_isa_level; /* highest level the bits name (1..4); 0 when absent */

	/* embedded device code, in file order */
	struct ga_devcode_container *containers;
	size_t n_containers;
	struct ga_devcode_image *images;
	size_t n_images;
	size_t n_by_format[GA_DEVCODE_FORMAT_N]; /* containers per format */
	/* A cap was hit (counts, or sections adding up to more bytes than the
	 * file: overlapping, hostile): the census is incomplete. */
	bool devcode_truncated;
	size_t n_bad_containers; /* headers with the magic that failed validation */

	/* payload bytes the census skipped without reading, bytes it did read (scan) */
	uint64_t bytes_skipped;
	uint64_t bytes_scanned;

	/*
	 * The first damage found in the headers, NULL when none: "truncated:
	 * dynamic section beyond end of file (file is N bytes)" and the like.
	 * What could be read is still reported; the walk records this as a gap
	 * on the file (the scan is then INCOMPLETE).
	 */
	char *damage;

	/*
	 * Highest symbol version needed per family (.gnu.version_r: DT_VERNEED
	 * chains; the SHT_GNU_verneed section when the file has no program
	 * headers), the part after the prefix: "2.34" for GLIBC_2.34, "3.4.32"
	 * for GLIBCXX_3.4.32, CXXABI_ "1.3.15", GCC_ "4.2.0"; "" when none.
	 * Names that are not a release (GLIBC_PRIVATE) are left out.
	 */
	char glibc_needed[GA_SYMVER_LEN];
	char glibcxx_needed[GA_SYMVER_LEN];
	char cxxabi_needed[GA_SYMVER_LEN];
	char gcc_needed[GA_SYMVER_LEN];
};

enum {
	/* Dynamic linking and notes only: no section scan for device code,
	 * dlopen strings or static CUDA runtime markers (fast listing). */
	GA_ELF_NO_DEVICE_CODE = 1u << 0,
	/* Do not decompress CCOB bundles to read their target ids. */
	GA_ELF_NO_DECOMPRESS = 1u << 1,
	/* Count the kernels of every PTX image (ga_devcode_image.ptx_entries): reads and,
	 * for zstd ones, decompresses the PTX payloads the census otherwise skips. deps sets
	 * it for a CUDA target (the PTX JIT estimate needs it). */
	GA_ELF_PTX_ENTRIES = 1u << 2,
	/* ga_elf_inspect_fd: buf is a read-only mapping of fd (mmap PROT_READ), not a copy.
	 * Accepted and changes nothing since issue 28: the census's windows are always pread
	 * into a reused buffer, which costs less than mapping them (MADV_POPULATE_READ, then
	 * MADV_DONTNEED) on the machines measured (docs/performance.md). */
	GA_ELF_BUF_IS_MAP = 1u << 3,
};
/* With GA_ELF_PTX_ENTRIES: only containers the GPU of this SM (90 for sm_90) would JIT are
 * counted; bits 16..31 of the flags, 0 = every container. */
#define GA_ELF_PTX_SM_SHIFT 16
#define GA_ELF_PTX_SM(sm) (((unsigned)(sm)&0xffffu) << GA_ELF_PTX_SM_SHIFT)

/* Caps (documented in docs/deps-formats.md). */
#define GA_ELF_MAX_SECTIONS 65536
#define GA_ELF_MAX_NEEDED 4096
#define GA_DEVCODE_MAX_IMAGES 1000000
#define GA_DEVCODE_MAX_BUNDLE_ENTRIES 4096
#define GA_DEVCODE_MAX_ID_LEN 1024
#define GA_DEVCODE_MAX_INFLATE (1u << 20) /* bytes of a CCOB bundle's head inflated to read its ids */

/* True when buf starts with the ELF magic. */
bool ga_elf_probe(const uint8_t *buf, size_t len);

/*
 * Inspect the ELF image buf[0..len). flags: GA_ELF_*.
 * Returns 0 and *ret (free with ga_elf_info_free), -ENOEXEC when buf is not
 * ELF or its headers are unusable (truncated, offsets outside the file),
 * -ENOMEM; the reason is in ga_ctx_errmsg. Damage past the headers (a bad
 * dynamic section, a corrupt container) does not fail the call: what can be
 * read is reported, devcode_truncated / n_bad_containers say what was not.
 */
int ga_elf_inspect(struct ga_ctx *ctx, const uint8_t *buf, size_t len, unsigned flags,
                   struct ga_elf_info **ret);

/*
 * The same for a file mapped read-only at offset 0 (buf, len) whose
 * descriptor is fd: the bulk scans of sections that may hold device code
 * read the file with pread() into windows of 4 KiB to 256 KiB (32 KiB at a
 * section's start, 4 KiB after a container, doubling while no container is
 * found), and container and entry headers with 1 KiB read-ahead; payloads
 * are skipped by the sizes in the headers, never read; instead of touching the
 * mapping (ELF headers, the dynamic section and notes are still read from
 * buf). On a VM, first touches of a fresh mapping cost several times a
 * kernel copy per byte (docs/performance.md), so this is the fast path for
 * files on disk. The read buffer (~260 KiB) is kept per thread between
 * calls and freed when the thread exits. The result equals ga_elf_inspect's.
 * fd < 0: like ga_elf_inspect. The fd's offset is not used or changed.
 * ga_ctx_set_no_simd(ctx, true) selects the SSE2/scalar scan instead of AVX2
 * (same result; for tests and comparisons).
 */
int ga_elf_inspect_fd(struct ga_ctx *ctx, int fd, const uint8_t *buf, size_t len, unsigned flags,
                      struct ga_elf_info **ret);

/*
 * The same for an image that lies at offset base of fd (buf maps those
 * bytes): a member stored uncompressed in a zip on disk, read in place.
 */
int ga_elf_inspect_fd_at(struct ga_ctx *ctx, int fd, uint64_t base, const uint8_t *buf, size_t len,
                         unsigned flags, struct ga_elf_info **ret);

/*
 * Census of a raw blob that is not ELF (a .fatbin file, an offload bundle
 * file, a CCOB .hipfb): scans the whole buffer as one region. Returns 0 and
 * *ret with elf_class 0 (possibly with no containers), or -ENOMEM.
 */
int ga_devcode_inspect_blob(struct ga_ctx *ctx, const uint8_t *buf, size_t len, unsigned flags,
                            struct ga_elf_info **ret);

/* NULL-safe. */
void ga_elf_info_free(struct ga_elf_info *info);

/* Frees a list of strings such as ga_elf_expand_origin (elfscan-analyze.h) returns. NULL-safe. */
void ga_elf_strv_free(char **v, size_t n);

/*
 * Lowest CUDA version (1000*major + 10*minor, 13010 = 13.1) whose driver can
 * JIT PTX of ISA major.minor, or -1 when the ISA is unknown.
 */
int ga_ptx_isa_min_cuda(unsigned isa_major, unsigned isa_minor);

/*
 * Symbol versions (lib/deps/symver.c). ga_symver_cmp compares dotted
 * versions numerically ("2.9" < "2.34", "3.4" < "3.4.1"): <0, 0, >0.
 * ga_symver_note files one needed version name ("GLIBC_2.34") under its
 * family in info, keeping the highest.
 */
int ga_symver_cmp(const char *a, const char *b);
void ga_symver_note(struct ga_elf_info *info, const char *name);
/*
 * The highest version the ELF in buf defines (.gnu.version_d) whose name
 * starts with prefix ("GLIBC_" -> "2.36"), without the prefix, into out:
 * 1 found, 0 none (not an ELF, no definitions, damage). Never reads
 * outside buf.
 */
int ga_elf_verdef_highest(struct ga_ctx *ctx, const uint8_t *buf, size_t len, const char *prefix, char *out,
                          size_t outlen);

#ifdef __cplusplus
}
#endif
#endif
