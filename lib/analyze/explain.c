/*
 * explain.c - the log matcher behind `gpuaudit explain` and preflight.
 *
 * One pass over the bytes finds every line that contains a literal of the
 * catalogue: a multi-pattern shift table over 3-byte blocks (Wu-Manber), so
 * most of the text is stepped over several bytes at a time, and a candidate
 * window is verified with memcmp. Only lines that contain a literal go to the
 * POSIX regexes, which capture the variable parts. Lines are matched on their
 * first GA_EXPLAIN_LINE_MAX bytes; a line that spans feed calls is carried in
 * a buffer of that size. Matches kept for the report are capped; counts are not.
 */
#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deps_int.h" /* ga_deps_dotted_version, ga_deps_parse_sm */
#include "gpuaudit/deps.h"
#include "gpuaudit/errcodes.h"
#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/node.h"

/* --- the catalogue --- */

enum sig_name {
#define SIG(name, id, layer, cls, act, weight, code, cause, fix, next) SIG_##name,
#define PAT(...)
#include "signatures.def"
#undef SIG
#undef PAT
	SIG__COUNT
};

static const struct ga_signature sigs[] = {
#define SIG(name, id, layer, cls, act, weight, code, cause, fix, next) \
	{ id, layer, GA_CAUSE_##cls, GA_ACT_##act, weight, code, cause, fix, next },
#define PAT(...)
#include "signatures.def"
#undef SIG
#undef PAT
};

static const struct ga_sig_pattern pats[] = {
#define SIG(...)
#define PAT(name, literal, regex, ...) { SIG_##name, literal, regex, { __VA_ARGS__ } },
#include "signatures.def"
#undef SIG
#undef PAT
};

#define N_PATS (sizeof(pats) / sizeof(pats[0]))

/*
 * Causes past the signatures: one per error-code group (lib/core/errcodes/
 * groups.def), for a line that names a code no signature matched.
 */
#define N_CAUSES (SIG__COUNT + GA_ECG__COUNT)
#define RAS_GPUS 16 /* GPUs whose RAS errors explain pairs with their own resets */

static const struct ga_signature grp_sigs[] = {
#define EG(name_, cls_, act_, weight_, id_, summary_, cause_, fix_, next_) \
	{ .id = id_,                                                       \
	  .layer = "error code",                                           \
	  .cause_class = GA_CAUSE_##cls_,                                  \
	  .action = GA_ACT_##act_,                                         \
	  .weight = weight_,                                               \
	  .cause = cause_,                                                 \
	  .fix = fix_,                                                     \
	  .next = next_ },
#include "../core/errcodes/groups.def"
#undef EG
};

const struct ga_signature *ga_explain_sig(unsigned sig)
{
	return sig < SIG__COUNT ? &sigs[sig] : sig < N_CAUSES ? &grp_sigs[sig - SIG__COUNT] : NULL;
}

/*
 * The runtimes' prefixes before a vendor's message string (message_code): the
 * family whose messages follow, and where the message starts when not right
 * after the prefix. Each prefix is a literal of the scan too (code_literals).
 */
static const struct {
	const char *prefix;
	enum ga_errcode_family fam;
	const char *after; /* the message follows the first of these after the prefix */
} msg_prefixes[] = { { "CUDA error: ", GA_ECF_CUDART, NULL },
	             /* darknet's check_error ("CUDA Error: %s" with cudaGetErrorString) */
	             { "CUDA Error: ", GA_ECF_CUDART, NULL },
	             /* the CHECK / checkCudaErrors macro of TensorRT's samples and the projects that copy
	     * it ("Cuda failure: " << cudaGetErrorString(status), then " in file ... at line ..." in
	     * some copies): the runtime's string (h79-fixim) */
	             { "Cuda failure: ", GA_ECF_CUDART, NULL },
	             { "HIP error: ", GA_ECF_HIP, NULL },
	             { "ROCm error: ", GA_ECF_HIP, NULL },
	             { "failed to initialize CUDA: ", GA_ECF_CUDART, NULL },
	             { "NCCL error: ", GA_ECF_NCCL, NULL },
	             { "NCCL error in: ", GA_ECF_NCCL, ", " },
	             /* glog's CHECK_EQ as Caffe's CUDA_CHECK and NCCL_CHECK print it: "Check failed: error ==
	     * cudaSuccess (999 vs. 0)  unknown error", the number the CUDA release's own (30 before
	     * 10.1), then cudaGetErrorString's / ncclGetErrorString's text (lead-fixjsjt) */
	             { "== cudaSuccess (", GA_ECF_CUDART, ") " },
	             { "== ncclSuccess (", GA_ECF_NCCL, ") " },
	             { "cuda runtime error (", GA_ECF_CUDART, ") : " },
	             { "THCudaCheck FAIL ", GA_ECF_CUDART, " : " },
	             /* NVIDIA's CUDALibrarySamples CHECK_CUDA and the tools that copy it: "CUDA API failed at
	     * line %d with error: %s (%d)" with cudaGetErrorString (h45-fixhg) */
	             { "CUDA API failed at ", GA_ECF_CUDART, " with error: " },
	             /* the gpuErrchk / gpuAssert macro scientific codes copy ("GPUassert: %s %s %d" with
	     * cudaGetErrorString, then the file and line), DeePMD-kit's copy ("cuda assert: %s %s %d"),
	     * gpu4pyscf's kernels ("CUDA Error in %s: %s", the kernel's name first) (lead-fixkgkh) */
	             { "GPUassert: ", GA_ECF_CUDART, NULL },
	             { "cuda assert: ", GA_ECF_CUDART, NULL },
	             { "CUDA Error in ", GA_ECF_CUDART, ": " },
	             /* cuGetErrorString's text (lib/core/errcodes/cu.str.def): PyTorch's CUDA driver
	     * calls (c10/cuda/driver_api.h, "CUDA driver error: "), the projects that copy
	     * it capitalised, and Triton's NVIDIA launcher ("Triton Error [CUDA]: ") */
	             { "CUDA driver error: ", GA_ECF_CU, NULL },
	             /* ILGPU's CUDA accelerator ("ILGPU.Runtime.CUDA.CudaException: 'a PTX JIT compilation
	     * failed'": cuGetErrorString's text in quotes) */
	             { "CudaException: '", GA_ECF_CU, NULL },
	             { "CUDA Driver Error: ", GA_ECF_CU, NULL },
	             { "Triton Error [CUDA]: ", GA_ECF_CU, NULL },
	             /* nvmlErrorString's text (nvml.str.def, keyed without case): nvidia-smi ("Failed to
	     * initialize NVML: "), libnvidia-container lower-cased ("nvml error: "), and
	     * pynvml's NVMLError printed by its users ("NVML error: %s") */
	             { "Failed to initialize NVML: ", GA_ECF_NVML, NULL },
	             { "failed to initialize NVML: ", GA_ECF_NVML, NULL },
	             { "nvml error: ", GA_ECF_NVML, NULL },
	             { "NVML error: ", GA_ECF_NVML, NULL },
	             { "NVML Error: ", GA_ECF_NVML, NULL } };

/* Literals of lines that may name a code by number ("CUDA error 700", "nvmlReturn 999", TensorRT's
 * "CUDA initialization failure with error: 35", older "Cuda initialization failure with error 35"),
 * or by a name that is not a table's (DPC++'s "-1 (PI_ERROR_DEVICE_NOT_FOUND)", Unified Runtime's
 * "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", go-nvml's name without the NVML_ prefix, "failed to
 * initialize NVML: ERROR_UNKNOWN", dcgm-exporter's "Cannot init NVML library; err:
 * ERROR_LIBRARY_NOT_FOUND": line_code); llama.cpp's CUDA start-up ("ggml_cuda_init: failed to
 * initialize CUDA: initialization error"); ollama's GPU discovery ("cudart init failure: 35",
 * "cuda driver library init failure: 999"); LAMMPS' geryon ("Cuda driver error 804 in call at
 * file"); pynvml's exception class per code ("NVMLError_GpuIsLost"); ONNX Runtime's and TensorRT's status numbers ("[ONNXRuntimeError] : 1 :
 * FAIL", "] Error Code 4:", TensorRT 10's "executeV2: Error Code 3:": status_form_code); Vulkan-Hpp's forms (vulkan_hpp_form: what() begins
 * with the class or function that failed, "vk::Queue::submit: ErrorDeviceLost"; the exception's class
 * names the code, "vk::DeviceLostError"; the scan keeps their first 11 bytes, its window). The
 * message prefixes above are literals too. */
static const char *const number_lits[] = { "CUDA error ",
	                                   "CUDA error:",
	                                   "CUDA Error ",
	                                   "CUDA error! ",
	                                   "CUDA Error! ",
	                                   "nvmlReturn ",
	                                   "nvmlReturn:",
	                                   "nvmlReturn=",
	                                   "NCCL error ",
	                                   "NCCL error:",
	                                   "hipError_t ",
	                                   "hsa api call",
	                                   "ze_result_t ",
	                                   " (PI_ERROR_",
	                                   "UR_RESULT_ERROR_",
	                                   "CUDA initialization failure",
	                                   "Cuda initialization failure",
	                                   "Cuda driver error ",
	                                   "Accelerator Fatal Error",
	                                   "NVML: ERROR_",
	                                   "nvml: ERROR_",
	                                   "ggml_cuda_init: failed",
	                                   "init failure: ",
	                                   "err: ERROR_",
	                                   "NVMLError_",
	                                   "[ONNXRuntimeError] : ",
	                                   "] Error Code ",
	                                   ": Error Code ",
	                                   "vk::Device::",
	                                   "vk::DeviceLostError",
	                                   "vk::Queue::",
	                                   "vk::PhysicalDevice::",
	                                   "vk::Instance::",
	                                   "vk::CommandBuffer::",
	                                   "vk::SwapchainKHR",
	                                   "vk::createInstance",
	                                   "vk::enumerate",
	                                   "vk::OutOfDeviceMemoryError",
	                                   "vk::OutOfHostMemoryError",
	                                   "vk::OutOfPoolMemoryError",
	                                   "vk::InitializationFailedError",
	                                   "vk::IncompatibleDriverError",
	                                   "vk::UnknownError",
	                                   "vk::FeatureNotPresentError",
	                                   "vk::ExtensionNotPresentError",
	                                   "vk::LayerNotPresentError",
	                                   "vk::ValidationFailedEXTError",
	                                   "vk::FragmentedPoolError",
	                                   "vk::TooManyObjectsError",
	                                   "vk::MemoryMapFailedError",
	                                   "vk::FormatNotSupportedError",
	                                   "vk::SurfaceLostKHRError",
	                                   "vk::NotPermittedError" };

static void count_acted(struct ga_explain *ex, unsigned sig, const char *l, size_t n);

const char *ga_cause_class_name(enum ga_cause c)
{
	return c > GA_CAUSE_UNKNOWN && c < GA_CAUSE__COUNT ? ga_cause_name(c) : NULL;
}

size_t ga_signature_count(void)
{
	return SIG__COUNT;
}

const struct ga_signature *ga_signature_get(size_t i)
{
	return i < SIG__COUNT ? &sigs[i] : NULL;
}

size_t ga_sig_pattern_count(void)
{
	return N_PATS;
}

const struct ga_sig_pattern *ga_sig_pattern_get(size_t i)
{
	return i < N_PATS ? &pats[i] : NULL;
}

/* --- matcher state --- */

#define MAX_GROUPS 8

#define WM_B 3     /* block length of the shift table */
#define WM_BITS 15 /* hash bits of a block */
#define WM_SIZE (1u << WM_BITS)

static inline unsigned wm_hash(const unsigned char *p)
{
	return ((unsigned)p[0] << 10 ^ (unsigned)p[1] << 5 ^ (unsigned)p[2]) & (WM_SIZE - 1);
}

/* One GPU's Xid, as health groups it: (address, number); a GPU lost without a number is Xid 79. */
#define XID_PAIRS 64

struct xid_pair {
	char address[16]; /* "" when the line names no GPU */
	uint64_t xid;
	uint64_t count, first_line;
	enum ga_action act; /* the worst of its lines: the catalogue row, or the line's own words */
	enum ga_severity sev;
	bool by_line;        /* a line's words set the action (Xid 154, NVLink5 Fatal/Nonfatal) */
	bool lost;           /* seen as "fallen off the bus" without an Xid number */
	struct ga_ou64 link; /* SXid and NVLink Xid pairs: the link the latest line named */
	char nvl_unit[24];   /* NVLink5 Xids: the unit and error status of the line that decided */
	struct ga_ou64 nvl_status;
};

/* One device's PCIe AER messages of one class, as health counts them. */
#define AER_PAIRS 32

struct aer_pair {
	char address[16];
	enum ga_aer_class cls;
	uint64_t messages, first_line;
	uint32_t types[32]; /* per error status bit, from the detail lines */
};

#define MAX_LITS (N_PATS + 480)
#define SALIENT_MAX GA_EXPLAIN_SALIENT_MAX
#define CODE_HITS 32

struct code_hit {
	long code; /* index into the tables */
	uint64_t count, first_line;
};

struct ga_explain {
	regex_t re[N_PATS];
	/* a pattern's regex is compiled when its literal first hits a line: 0 not yet, 1 compiled,
	 * 2 refused by regcomp (never: unit/test_explain compiles every one). Compiling all 600+
	 * at start cost 40 ms a run (150 ms under ASan), more than a small log's whole scan. */
	uint8_t re_state[N_PATS];
	size_t wm_m;            /* shortest literal: the window length */
	uint8_t shift[WM_SIZE]; /* how far the window may move for a block at its end */
	int16_t head[WM_SIZE];  /* literals whose window ends in a block with this hash */
	int16_t next[MAX_LITS];
	const char *lit_s[MAX_LITS]; /* [0, N_PATS): the patterns'; then code-name and number literals */
	uint16_t lit_len[MAX_LITS];
	size_t n_lits;
	struct ga_errcode_index ecx;
	int16_t *code_sig; /* per code: the signature whose code it is (or its driver/runtime twin), -1 */
	struct code_hit codes[CODE_HITS]; /* distinct codes named by lines no signature matched */
	size_t n_codes;
	uint64_t codes_dropped;
	struct ga_explain_salient
	        salient[SALIENT_MAX]; /* the most salient error lines, while no cause is known */
	size_t n_salient;
	uint64_t salient_lines; /* lines that look like errors */
	char carry[GA_EXPLAIN_LINE_MAX + 1];
	size_t carry_len;
	bool carry_open;
	char scratch[GA_EXPLAIN_LINE_MAX + 1];
	/* the input's encoding, decided by its first bytes (enc_head): a UTF-16 byte-order mark
	 * turns the input into UTF-8 through iconv before the scan; anything else is read as is.
	 * enc_seen: the UTF-16 of an input that ended (ga_explain_finish) before this one */
	enum { ENC_UNDECIDED, ENC_AS_IS, ENC_UTF16LE, ENC_UTF16BE } enc, enc_seen;
	unsigned char enc_head[4];
	size_t enc_head_n;
	iconv_t u16;       /* (iconv_t)-1 until a UTF-16 input opens it */
	char u16_carry[4]; /* the bytes of a code unit or surrogate pair cut between two feeds */
	size_t u16_carry_n;
	uint64_t u16_invalid; /* code units that are no UTF-16 (a lone surrogate): U+FFFD each */
	uint64_t lines;
	uint64_t matched;
	uint64_t acted; /* matches of signatures whose action is not none (noise) */
	struct ga_explain_match *matches;
	size_t n_matches, max_matches;
	/* per signature and code group, 3 KiB each (2.3 MiB): only those with a match are ever touched
	 * (hit[], in the order first matched), so that a new explainer costs no page faults for the
	 * causes a log never names (bench/explain-startup.sh: 13.4 ms of start-up before, 6.8 after) */
	struct ga_explain_cause causes[N_CAUSES];
	uint16_t hit[N_CAUSES];
	size_t n_hit;
	/* kernel-log Xids: each line of the Xid signature through the kernel-log parser */
	struct ga_kparse kp;
	struct xid_pair xids[XID_PAIRS];
	size_t n_xids;
	uint64_t xids_dropped;            /* (GPU, Xid) pairs beyond XID_PAIRS: counted, not listed */
	struct xid_pair sxids[XID_PAIRS]; /* (NVSwitch, SXid) pairs, as health groups them */
	size_t n_sxids;
	uint64_t sxids_dropped;
	struct aer_pair aers[AER_PAIRS]; /* (device, AER class) */
	size_t n_aers;
	uint64_t aers_dropped;
	/* amdgpu VM faults by whose address space: vmid 0 (the kernel driver's or firmware's),
	 * another vmid or a process's (the HSA runtime's line) */
	uint64_t vm_kernel, vm_user;
	/* amdgpu RAS, per GPU (the line's PCI address, "" when it names none): uncorrectable-error
	 * lines, those no reset outcome of that GPU followed yet, and those a "GPU reset(N)
	 * succeeded" / "GPU reset(N) failed" followed (ras_reset); GPUs past RAS_GPUS share the
	 * last slot */
	struct ras_gpu {
		char addr[16];
		uint64_t errors, open, recovered, failed;
	} ras[RAS_GPUS];
	unsigned n_ras;
	struct ga_explain_cause *ranked[N_CAUSES];
	struct ga_explain_cause ranked_copy[N_CAUSES];
	/* --for: the class and action the node refines a cause to, +1 (0: the signature's) */
	uint8_t for_class[N_CAUSES], for_action[N_CAUSES];
};

static int code_literals(struct ga_explain *ex);
static uint64_t count_nl(const char *s, const char *e);
static int code_sigs(struct ga_explain *ex);

int ga_explain_new(size_t max_matches, struct ga_explain **ret)
{
	struct ga_explain *ex = ga_calloc(1, sizeof(*ex));
	if (!ex)
		return -ENOMEM;
	ex->u16 = (iconv_t)-1;
	ex->max_matches = max_matches;
	if (max_matches && !(ex->matches = ga_calloc(max_matches, sizeof(*ex->matches)))) {
		ga_free(ex);
		return -ENOMEM;
	}
	ex->wm_m = SIZE_MAX;
	for (size_t i = 0; i < N_PATS; i++) {
		ex->lit_s[i] = pats[i].literal;
		ex->lit_len[i] = (uint16_t)strlen(pats[i].literal);
		if (ex->lit_len[i] < ex->wm_m)
			ex->wm_m = ex->lit_len[i];
	}
	ex->n_lits = N_PATS;
	int e = ga_errcode_index_init(&ex->ecx);
	if (e == 0)
		e = code_literals(ex);
	if (e == 0)
		e = code_sigs(ex);
	if (e < 0) {
		ga_explain_free(ex);
		return e;
	}
	/* Wu-Manber over the first m bytes of every literal (m >= WM_B, checked by the tests) */
	size_t m = ex->wm_m;
	memset(ex->shift, (int)(m - WM_B + 1), sizeof(ex->shift));
	memset(ex->head, 0xff, sizeof(ex->head));
	for (size_t i = 0; i < ex->n_lits; i++) {
		const unsigned char *lit = (const unsigned char *)ex->lit_s[i];
		for (size_t q = WM_B - 1; q < m; q++) {
			unsigned h = wm_hash(lit + q - (WM_B - 1));
			if (ex->shift[h] > m - 1 - q)
				ex->shift[h] = (uint8_t)(m - 1 - q);
		}
		unsigned h = wm_hash(lit + m - WM_B);
		ex->next[i] = ex->head[h];
		ex->head[h] = (int16_t)i;
	}
	*ret = ex;
	return 0;
}

void ga_explain_reset(struct ga_explain *ex)
{
	ex->enc = ex->enc_seen = ENC_UNDECIDED;
	ex->enc_head_n = ex->u16_carry_n = 0;
	ex->u16_invalid = 0;
	if (ex->u16 != (iconv_t)-1)
		iconv_close(ex->u16);
	ex->u16 = (iconv_t)-1;
	ex->carry_len = 0;
	ex->carry_open = false;
	ex->lines = ex->matched = ex->acted = 0;
	ex->n_matches = 0;
	memset(&ex->kp, 0, sizeof(ex->kp));
	ex->n_xids = 0;
	ex->xids_dropped = 0;
	ex->n_sxids = 0;
	ex->sxids_dropped = 0;
	ex->n_aers = 0;
	ex->aers_dropped = 0;
	ex->vm_kernel = ex->vm_user = 0;
	ex->n_ras = 0;
	ex->n_codes = 0;
	ex->codes_dropped = 0;
	ex->n_salient = 0;
	ex->salient_lines = 0;
	for (size_t h = 0; h < ex->n_hit; h++) {
		struct ga_explain_cause *c = &ex->causes[ex->hit[h]];
		ga_free(c->node_note);
		memset(c, 0, sizeof(*c));
	}
	ex->n_hit = 0;
}

void ga_explain_free(struct ga_explain *ex)
{
	if (!ex)
		return;
	for (size_t i = 0; i < N_PATS; i++)
		if (ex->re_state[i] == 1)
			regfree(&ex->re[i]);
	ga_errcode_index_release(&ex->ecx);
	if (ex->u16 != (iconv_t)-1)
		iconv_close(ex->u16);
	ga_free(ex->code_sig);
	for (size_t h = 0; h < ex->n_hit; h++)
		ga_free(ex->causes[ex->hit[h]].node_note);
	ga_free(ex->matches);
	ga_free(ex);
}

/* Count a match of signature (or code group) sig on the current line and return its cause;
 * the first match enters it in hit[] (every cause in hit[] has a count of at least 1). */
_Static_assert(N_CAUSES <= 65536, "hit[] holds a cause's index in 16 bits");
static struct ga_explain_cause *count_match(struct ga_explain *ex, unsigned sig)
{
	struct ga_explain_cause *c = &ex->causes[sig];
	if (!c->count) {
		c->sig = sig;
		c->first_line = ex->lines;
		ex->hit[ex->n_hit++] = (uint16_t)sig;
	}
	c->count++;
	c->last_line = ex->lines;
	return c;
}

/* Copy at most n bytes into dst[cap], control bytes as spaces, cut on a UTF-8 boundary, trimmed. */
static void clean_copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap) {
		n = cap - 1;
		while (n && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (char)(c < 0x20 || c == 0x7f ? ' ' : c);
	}
	while (n && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

const char *ga_capture_get(const struct ga_capture_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

static void add_value(struct ga_explain_cause *c, const struct ga_capture_kv *kv)
{
	for (size_t i = 0; i < c->n_values; i++)
		if (!strcmp(c->values[i].key, kv->key) && !strcmp(c->values[i].value, kv->value))
			return;
	if (c->n_values < GA_EXPLAIN_VALUES_PER_CAUSE)
		c->values[c->n_values++] = *kv;
}

/*
 * A numeric error code the line states ("code=35(cudaErrorInsufficientDriver)",
 * "Error 803: ...", "cudaGetDeviceCount returned 34"): 1 to 4 digits after one of
 * these words, captured as error_code.
 */
static void error_code(const char *line, size_t len, struct ga_explain_match *mt)
{
	static const char *const words[] = { "code=", "Error ", "returned " };
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t wl = strlen(words[w]);
		const char *p = line, *end = line + len;
		/* the word itself, not the end of another ("opcode=0" is no error code) */
		while ((p = memmem(p, (size_t)(end - p), words[w], wl)) && p > line &&
		       ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')))
			p += wl;
		if (!p)
			continue;
		const char *d = p + wl, *q = d;
		while (q < end && q - d < 5 && *q >= '0' && *q <= '9')
			q++;
		if (q == d || q - d > 4 || (q < end && *q >= '0' && *q <= '9'))
			continue;
		struct ga_capture_kv *kv = &mt->cap[mt->n_cap++];
		snprintf(kv->key, sizeof(kv->key), "error_code");
		snprintf(kv->value, sizeof(kv->value), "%.*s", (int)(q - d), d);
		return;
	}
}

/*
 * An Xid-signature line through the kernel-log parser (the one health reads
 * with): its (GPU, Xid) pair is counted with the action of the catalogue row or
 * of the line's own words. false: the line is no event of its own (the first
 * line of the three-line "fallen off the bus" message only names the GPU).
 */
static bool xid_event(struct ga_explain *ex, const char *line, size_t len)
{
	struct ga_kevent ev;
	if (!ga_kevent_parse(&ex->kp, line, len, &ev))
		return false;
	if (ev.kind != GA_KEV_XID && ev.kind != GA_KEV_GPU_LOST)
		return true;
	uint64_t xid = ev.kind == GA_KEV_XID ? ev.code.v : 79;
	enum ga_action act;
	enum ga_severity sev;
	bool by_line = ga_kev_xid_line(&ev, &act, &sev) == 1;
	if (!by_line) {
		struct ga_xid_info xi;
		ga_xid_lookup(xid, &xi);
		act = xi.act, sev = xi.severity;
	}
	struct xid_pair *x = NULL;
	for (size_t i = 0; i < ex->n_xids && !x; i++)
		if (ex->xids[i].xid == xid && !strcmp(ex->xids[i].address, ev.address))
			x = &ex->xids[i];
	if (!x) {
		if (ex->n_xids == XID_PAIRS) {
			ex->xids_dropped++;
			return true;
		}
		x = &ex->xids[ex->n_xids++];
		memset(x, 0, sizeof(*x));
		memcpy(x->address, ev.address, sizeof(x->address));
		x->xid = xid;
		x->first_line = ex->lines;
		x->act = act, x->sev = sev, x->by_line = by_line;
	} else if (ga_action_rank(act) > ga_action_rank(x->act) ||
	           (ga_action_rank(act) == ga_action_rank(x->act) && sev > x->sev)) {
		x->act = act, x->sev = sev, x->by_line = by_line;
	}
	x->count++;
	x->lost |= ev.kind == GA_KEV_GPU_LOST;
	if (ev.link.set)
		x->link = ev.link;
	if (ev.nvl_unit[0] && ev.nvl_status.set && (!x->nvl_unit[0] || (x->act == act && x->sev == sev))) {
		memcpy(x->nvl_unit, ev.nvl_unit, sizeof(x->nvl_unit));
		x->nvl_status = ev.nvl_status;
	}
	return true;
}

/*
 * An SXid line through the kernel-log parser: its (NVSwitch, SXid) pair is counted
 * with the action of the Fabric Manager guide's row, raised by a Fatal token
 * (ga_kev_sxid, as health decides). false: the line is the record that follows an
 * SXid line, not a match of its own.
 */
static bool sxid_event(struct ga_explain *ex, const char *line, size_t len)
{
	struct ga_kevent ev;
	if (!ga_kevent_parse(&ex->kp, line, len, &ev) || ev.kind != GA_KEV_SXID || !ev.code.set)
		return true;
	if (ev.folded)
		return false; /* the record lines that follow an SXid ("Severity 0 Engine ...") */
	enum ga_action act;
	enum ga_severity sev;
	ga_kev_sxid(&ev, &act, &sev);
	struct xid_pair *x = NULL;
	for (size_t i = 0; i < ex->n_sxids && !x; i++)
		if (ex->sxids[i].xid == ev.code.v && !strcmp(ex->sxids[i].address, ev.address))
			x = &ex->sxids[i];
	if (!x) {
		if (ex->n_sxids == XID_PAIRS) {
			ex->sxids_dropped++;
			return true;
		}
		x = &ex->sxids[ex->n_sxids++];
		memset(x, 0, sizeof(*x));
		memcpy(x->address, ev.address, sizeof(x->address));
		x->xid = ev.code.v;
		x->first_line = ex->lines;
		x->act = act, x->sev = sev;
	} else if (ga_action_rank(act) > ga_action_rank(x->act) ||
	           (ga_action_rank(act) == ga_action_rank(x->act) && sev > x->sev)) {
		x->act = act, x->sev = sev;
	}
	x->by_line |= ev.fatal == GA_KEV_FATAL_YES;
	if (ev.link.set)
		x->link = ev.link;
	x->count++;
	return true;
}

/*
 * An AER-signature line through the kernel-log parser: messages and error types
 * counted per (device, class). false: the line is the detail of a message (the
 * "error status/mask=" word), not a match of its own.
 */
static bool aer_event(struct ga_explain *ex, const char *line, size_t len)
{
	struct ga_kevent ev;
	if (!ga_kevent_parse(&ex->kp, line, len, &ev))
		return true;
	if (ev.kind != GA_KEV_AER_CORRECTED && ev.kind != GA_KEV_AER_UNCORRECTED)
		return true;
	enum ga_aer_class cls = ev.kind == GA_KEV_AER_CORRECTED ? GA_AER_CORRECTED
	                        : ev.fatal == GA_KEV_FATAL_NO   ? GA_AER_NONFATAL
	                                                        : GA_AER_FATAL;
	struct aer_pair *a = NULL;
	for (size_t i = 0; i < ex->n_aers && !a; i++)
		if (ex->aers[i].cls == cls && !strcmp(ex->aers[i].address, ev.address))
			a = &ex->aers[i];
	if (!a && ex->n_aers == AER_PAIRS)
		ex->aers_dropped++;
	if (!a && ex->n_aers < AER_PAIRS) {
		a = &ex->aers[ex->n_aers++];
		memset(a, 0, sizeof(*a));
		memcpy(a->address, ev.address, sizeof(a->address));
		a->cls = cls;
		a->first_line = ex->lines;
	}
	if (a && !ev.folded)
		a->messages++;
	for (unsigned b = 0; a && b < 32; b++)
		a->types[b] += (ev.aer_bits >> b) & 1u;
	return ev.aer_bits == 0;
}

/*
 * Whose address space an amdgpu VM fault hit. The kernel's amdgpu debugging guide
 * (Documentation/gpu/amdgpu/debugging.rst, "Decoding a GPUVM Page Fault"): a fault
 * with vmid 0 was likely caused by the kernel driver or firmware, one with another
 * vmid is generally a user application's. The vmid is read by the kernel-log parser,
 * as health reads it (one reading of the line); the HSA runtime's "Memory access
 * fault by GPU node-N" is a process's own; the status-word line says neither.
 */
static void vm_fault_owner(struct ga_explain *ex, const struct ga_explain_match *mt, const char *line,
                           size_t len)
{
	struct ga_kevent ev;
	if (ga_kevent_parse(&ex->kp, line, len, &ev) && ev.kind == GA_KEV_AMDGPU_VM_FAULT && ev.vmid.set) {
		if (ev.vmid.v == 0)
			ex->vm_kernel++;
		else
			ex->vm_user++;
	} else if (ga_capture_get(mt->cap, mt->n_cap, "gpu_node")) {
		ex->vm_user++;
	}
}

/* The RAS slot of a GPU; a new one only for an error line (NULL: no error of that GPU yet). */
static struct ras_gpu *ras_gpu(struct ga_explain *ex, const char *addr, bool create)
{
	for (unsigned i = 0; i < ex->n_ras; i++)
		if (!strcmp(ex->ras[i].addr, addr))
			return &ex->ras[i];
	if (!create)
		return NULL;
	if (ex->n_ras == RAS_GPUS)
		return &ex->ras[RAS_GPUS - 1];
	struct ras_gpu *g = &ex->ras[ex->n_ras++];
	memset(g, 0, sizeof(*g));
	snprintf(g->addr, sizeof(g->addr), "%s", addr);
	return g;
}

/*
 * The driver resets the GPU to recover from an uncorrectable RAS error
 * (Documentation/gpu/amdgpu/ras.rst); the end of that GPU's next reset is the outcome of its
 * errors since the previous outcome, as health reads it (docs/health.md "AMD uncorrectable
 * RAS errors").
 */
static void ras_reset(struct ga_explain *ex, unsigned sig, const char *line, size_t len)
{
	char addr[16];
	if (!ga_kev_line_address(line, len, addr))
		addr[0] = '\0';
	struct ras_gpu *g = ras_gpu(ex, addr, sig == SIG_AMDGPU_RAS_UE);
	if (!g)
		return;
	if (sig == SIG_AMDGPU_RAS_UE) {
		g->errors++;
		g->open++;
		return;
	}
	if (sig == SIG_AMDGPU_RESET_FAILED)
		g->failed += g->open;
	else if (memmem(line, len, ") succeeded", 11))
		g->recovered += g->open;
	else
		return;
	g->open = 0;
}

/* The bytes of a figure such as "31.98 GiB" or "19.75 MiB" (K, M, G with iB); -1 when it is none. */
static double mem_figure(const char *s, size_t n)
{
	char buf[40];
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	double v = strtod(buf, &end);
	if (end == buf || *end != ' ')
		return -1;
	switch (end[1]) {
	case 'K':
		return v * 1024.0;
	case 'M':
		return v * 1024.0 * 1024.0;
	case 'G':
		return v * 1024.0 * 1024.0 * 1024.0;
	default:
		return -1;
	}
}

/*
 * gpu-memory-accounting-bogus: the out-of-memory line's "free" figure above its "total" one (the
 * pattern's captures of those names), which no GPU can have: the driver's accounting is wrong.
 */
static bool free_above_total(const struct ga_sig_pattern *p, const char *line, const regmatch_t *m)
{
	double total = -1, free_ = -1;
	for (size_t g = 1; g < MAX_GROUPS; g++) {
		const char *name = p->captures[g - 1];
		if (!name || !*name || m[g].rm_so < 0 || m[g].rm_eo < m[g].rm_so)
			continue;
		double v = mem_figure(line + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
		if (!strcmp(name, "total"))
			total = v;
		else if (!strcmp(name, "free"))
			free_ = v;
	}
	return total >= 0 && free_ > total;
}

static void record(struct ga_explain *ex, size_t pat, const char *line, size_t len, const regmatch_t *m)
{
	const struct ga_sig_pattern *p = &pats[pat];
	if (p->sig == SIG_XID && !xid_event(ex, line, len))
		return;
	if (p->sig == SIG_SXID && !sxid_event(ex, line, len))
		return;
	if ((p->sig == SIG_AER_CORRECTED || p->sig == SIG_AER_UNCORRECTED) && !aer_event(ex, line, len))
		return;
	struct ga_explain_match tmp,
	        *mt = ex->n_matches < ex->max_matches ? &ex->matches[ex->n_matches++] : &tmp;
	memset(mt, 0, sizeof(*mt));
	mt->line = ex->lines;
	mt->sig = p->sig;
	clean_copy(mt->text, sizeof(mt->text), line, len);
	for (size_t g = 1; g < MAX_GROUPS && mt->n_cap < GA_EXPLAIN_MAX_CAPTURES; g++) {
		const char *name = p->captures[g - 1];
		if (!name || !*name || m[g].rm_so < 0 || m[g].rm_eo < m[g].rm_so)
			continue;
		struct ga_capture_kv *kv = &mt->cap[mt->n_cap];
		snprintf(kv->key, sizeof(kv->key), "%s", name);
		size_t vl = (size_t)(m[g].rm_eo - m[g].rm_so);
		clean_copy(kv->value, sizeof(kv->value), line + m[g].rm_so, vl);
		if (!strcmp(name, "pci_address")) {
			char norm[16];
			if (ga_pci_addr_normalize(kv->value, strlen(kv->value), norm) == 0)
				snprintf(kv->value, sizeof(kv->value), "%s", norm);
		}
		if (kv->value[0])
			mt->n_cap++;
	}
	if (mt->n_cap < GA_EXPLAIN_MAX_CAPTURES)
		error_code(line, len, mt);
	if (p->sig == SIG_AMDGPU_VM_FAULT)
		vm_fault_owner(ex, mt, line, len);
	if (p->sig == SIG_AMDGPU_RAS_UE || p->sig == SIG_AMDGPU_RESET || p->sig == SIG_AMDGPU_RESET_FAILED)
		ras_reset(ex, p->sig, line, len);
	struct ga_explain_cause *c = count_match(ex, p->sig);
	for (size_t i = 0; i < mt->n_cap; i++)
		add_value(c, &mt->cap[i]);
	ex->matched++;
	count_acted(ex, p->sig, line, len);
}

static bool is_ident(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * The scan's literals for codes: the first wm_m bytes of every code name that
 * names a cause or no cause (not of the codes that are no error), the
 * number-context literals and the message prefixes; each once. Names shorter than the window cannot be
 * a literal (docs/explain.md lists how many).
 */
static int code_literals(struct ga_explain *ex)
{
	struct ga_strmap seen = { 0 };
	size_t m = ex->wm_m, nc = ga_errcode_count();
	int e = 0;
	size_t nn = sizeof(number_lits) / sizeof(number_lits[0]);
	size_t nm = sizeof(msg_prefixes) / sizeof(msg_prefixes[0]);
	for (size_t i = 0; i < nc + nn + nm && e == 0; i++) {
		const char *name = i < nc        ? ga_errcode_get(i)->name
		                   : i < nc + nn ? number_lits[i - nc]
		                                 : msg_prefixes[i - nc - nn].prefix;
		if (i < nc && ex->ecx.group[i] == GA_ECG_NOT_ERROR)
			continue;
		if (strlen(name) < m || ga_strmap_get_n(&seen, name, m, NULL))
			continue;
		if (ex->n_lits == MAX_LITS) {
			e = -E2BIG;
			break;
		}
		char key[64];
		snprintf(key, sizeof(key), "%.*s", (int)m, name);
		e = ga_strmap_put(&seen, key, 0, NULL);
		ex->lit_s[ex->n_lits] = name;
		ex->lit_len[ex->n_lits++] = (uint16_t)m;
	}
	ga_strmap_release(&seen);
	return e;
}

/*
 * The signatures that are about one code ("cudaErrorNoDevice (100)"): a line
 * naming that code, or its twin of the other CUDA API (the driver API's
 * CUresult and the runtime's cudaError_t share the numbers of these), is that
 * signature's cause, with its hand-written text, not the code's group.
 */
static int code_sigs(struct ga_explain *ex)
{
	size_t nc = ga_errcode_count();
	if (!(ex->code_sig = ga_calloc(nc, sizeof(*ex->code_sig))))
		return -ENOMEM;
	memset(ex->code_sig, 0xff, nc * sizeof(*ex->code_sig));
	for (size_t i = 0; i < SIG__COUNT; i++) {
		const char *code = sigs[i].code;
		if (!code)
			continue;
		long k = ga_errcode_lookup(&ex->ecx, code, strcspn(code, " ("));
		if (k < 0)
			continue;
		const struct ga_errcode *c = ga_errcode_get((size_t)k);
		ex->code_sig[k] = (int16_t)i;
		enum ga_errcode_family twin = c->family == GA_ECF_CUDART ? GA_ECF_CU
		                              : c->family == GA_ECF_CU   ? GA_ECF_CUDART
		                                                         : GA_ECF__COUNT;
		long t = ga_errcode_lookup_number(&ex->ecx, twin, c->value);
		if (t >= 0 && ex->code_sig[t] < 0)
			ex->code_sig[t] = (int16_t)i;
	}
	return 0;
}

struct word_what {
	const char *word, *what;
};

/* The first entry of a table whose word the line holds, or NULL. */
static const struct word_what *first_word(const char *l, size_t n, const struct word_what *t, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (memmem(l, n, t[i].word, strlen(t[i].word)))
			return &t[i];
	return NULL;
}

/*
 * A crash or exception whose form names the language of the program that printed it. These
 * come before the library words: a panic's source path can hold a driver's or library's name
 * ("thread 'main' panicked at .../amdgpu_top-0.9.0/src/dump_info.rs" is the program's panic,
 * not the amdgpu driver's message).
 */
static const char *program_form(const char *l, size_t n)
{
	static const struct word_what forms[] = {
		{ "' panicked at ", "the program (Rust panic)" },
		{ "terminate called after throwing", "the program (C++ exception)" },
		{ "Exception in thread \"", "the program (Java exception)" },
	};
	const struct word_what *f = first_word(l, n, forms, sizeof(forms) / sizeof(forms[0]));
	if (f)
		return f->what;
	size_t i = 0;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (n - i >= 7 && !memcmp(l + i, "panic: ", 7))
		return "the program (Go panic)";
	/* Python's last traceback line: a dotted CamelCase name ending in Error or Exception, a
	 * colon and a space ("RuntimeError: ...", "torch.OutOfMemoryError: ..."), at the start of
	 * the line or after a space (a launcher's or logger's prefix before it) */
	static const char *const tails[] = { "Error: ", "Exception: " };
	for (size_t t = 0; t < 2; t++) {
		size_t tl = strlen(tails[t]);
		const char *p = l, *e = l + n;
		while ((p = memmem(p, (size_t)(e - p), tails[t], tl))) {
			const char *b = p;
			while (b > l && (isalnum((unsigned char)b[-1]) || b[-1] == '_' || b[-1] == '.'))
				b--;
			const char *last = p;
			while (last > b && last[-1] != '.')
				last--;
			if (b < p && (b == l || b[-1] == ' ' || b[-1] == '\t') &&
			    isupper((unsigned char)*last) && last < p)
				return "the program (Python exception)";
			p += tl;
		}
	}
	return NULL;
}

/* What the line says about where it comes from: a guess from its words. */
static enum ga_errcode_family api_family(const char *l, size_t n, size_t i, size_t j);

static const char *component_guess(const char *l, size_t n)
{
	const char *form = program_form(l, n);
	if (form && strncmp(form, "the program (Python", 19))
		return form;
	static const struct word_what words[] = {
		{ "nvidia-container", "container runtime" },
		{ "OCI runtime", "container runtime" },
		{ "NVRM", "kernel (NVIDIA driver)" },
		{ "amdgpu", "kernel (amdgpu driver)" },
		{ "kernel:", "kernel" },
		{ "NCCL", "NCCL (library)" },
		{ "nccl", "NCCL (library)" },
		{ "RCCL", "RCCL (library)" },
		{ "CUBLAS", "cuBLAS (library)" },
		{ "cublas", "cuBLAS (library)" },
		{ "CUDNN", "cuDNN (library)" },
		{ "cudnn", "cuDNN (library)" },
		{ "rocblas", "rocBLAS (library)" },
		/* h67-trocm: ROCm SMI, AMD SMI and ROCm's sparse, FFT, random-number and solver
		 * libraries (before "HIP": hipSPARSE's, hipFFT's, hipRAND's and hipSOLVER's names have it) */
		{ "AMDSMI_", "AMD SMI (library)" },
		{ "RSMI_", "ROCm SMI (library)" },
		{ "rocsparse", "rocSPARSE (library)" },
		{ "HIPSPARSE", "hipSPARSE (library)" },
		{ "rocfft", "rocFFT (library)" },
		{ "HIPFFT", "hipFFT (library)" },
		{ "ROCRAND", "rocRAND (library)" },
		{ "HIPRAND", "hipRAND (library)" },
		{ "HIPSOLVER", "hipSOLVER (library)" },
		{ "NVML", "NVML (driver library)" },
		{ "nvml", "NVML (driver library)" },
		{ "HSA_", "ROCm runtime (HSA)" },
		{ "hipError", "HIP runtime" },
		{ "HIP", "HIP runtime" },
		{ "ZE_RESULT", "Level Zero runtime" },
		{ "CL_", "OpenCL runtime" },
		{ "VK_ERROR_", "Vulkan (driver or loader)" },
		{ "vk::", "Vulkan (driver or loader)" },
		{ "NVRTC", "NVRTC (CUDA runtime compiler)" },
		/* Intel's SYCL runtime (h65-tintel) */
		{ "UR_RESULT_", "SYCL runtime (Unified Runtime)" },
		{ "PI_ERROR_", "SYCL runtime (DPC++ plugin interface)" },
		{ "errc::", "SYCL runtime" },
		/* CUPTI's, cuRAND's and nvJitLink's codes and libraries (h66-tnvlibs) */
		{ "CUPTI", "CUPTI (CUDA profiling tools interface)" },
		{ "cupti", "CUPTI (CUDA profiling tools interface)" },
		{ "CURAND", "cuRAND (library)" },
		{ "curand", "cuRAND (library)" },
		{ "NVJITLINK", "nvJitLink (CUDA JIT linker)" },
		{ "nvJitLink", "nvJitLink (CUDA JIT linker)" },
		{ "CUDA", "CUDA runtime" },
		{ "cuda", "CUDA runtime" },
		{ "torch", "PyTorch (framework)" },
		{ "jax", "JAX (framework)" },
		{ "tensorflow", "TensorFlow (framework)" },
		{ "Error:", "the program" },
		{ "Exception", "the program" },
		{ "Traceback", "the program (Python)" },
		{ "shared object", "loader" },
		{ "Segmentation fault", "the program (crash)" },
		{ "core dumped", "the program (crash)" },
		{ "slurmstepd", "Slurm" },
	};
	const struct word_what *w = first_word(l, n, words, sizeof(words) / sizeof(words[0]));
	if (!w && form)
		return form;
	/* no word: a vendor API's function or result type names its runtime ("vkQueueSubmit",
	 * "clCreateContext", "cuModuleLoad": api_family) */
	for (size_t i = 0; !w && i < n;) {
		size_t j = i;
		while (j < n && is_ident((unsigned char)l[j]))
			j++;
		if (j > i) {
			enum ga_errcode_family f = api_family(l, n, i, j);
			if (f != GA_ECF__COUNT)
				return ga_errcode_family_get(f)->runtime;
		}
		i = j > i ? j : i + 1;
	}
	if (!w)
		return "unknown";
	/* a Python exception that names no library or runtime is the program's own */
	return form && !strncmp(w->what, "the program", 11) ? form : w->what;
}

/*
 * After a loose "CUDA error" (no colon): the punctuation and code number that projects' own
 * check macros put between it and cudaGetErrorString's text, SPECFEM3D's "CUDA error !!!!!
 * <out of memory> !!!!!", hypre's "CUDA Error Code[11]: invalid argument": spaces and
 * : ! < > ( [ # = -, and a "code"/"Code" with its number. NULL: no separator at all
 * ("CUDA errors ..." is another word), or more than max bytes of it.
 */
static const char *skip_code_noise(const char *s, const char *e, size_t max)
{
	const char *start = s;
	while (s < e && (size_t)(s - start) <= max) {
		if (*s && strchr(" :!<>([#=-", *s)) {
			s++;
		} else if (e - s >= 4 && (!memcmp(s, "Code", 4) || !memcmp(s, "code", 4)) && s > start) {
			s += 4;
			while (s < e && *s && strchr(" :[(#=", *s))
				s++;
			while (s < e && *s >= '0' && *s <= '9')
				s++;
			while (s < e && *s && strchr("])", *s))
				s++;
		} else {
			break;
		}
	}
	return s > start && (size_t)(s - start) <= max ? s : NULL;
}

/*
 * The code whose message string (the vendor's, lib/core/errcodes/FAMILY.str.def)
 * follows a runtime's error prefix: "CUDA error: an illegal memory access was
 * encountered" (cudaGetErrorString after the CUDA runtime's and PyTorch's
 * prefix), "HIP error: invalid device function", "NCCL error: unhandled system
 * error", PyTorch's "NCCL error in: FILE:LINE, unhandled system error ...",
 * and the THC form of PyTorch before 1.0 and Lua Torch's cutorch
 * ("cuda runtime error (N) : out of memory at FILE:LINE", "THCudaCheck FAIL
 * file=F line=L error=N : invalid device function"), whose N is the CUDA
 * release's own number (invalid device function was 8 before CUDA 10.1), so
 * the message, not the number, names the code.
 * The text after the prefix is looked up in the message index (a hash per word
 * end, ga_errcode_find_message), never compared with every message. -1: none.
 */
static long message_code(const struct ga_explain *ex, const char *l, size_t n)
{
	for (size_t i = 0; i < sizeof(msg_prefixes) / sizeof(msg_prefixes[0]); i++) {
		size_t pl = strlen(msg_prefixes[i].prefix);
		const char *at = memmem(l, n, msg_prefixes[i].prefix, pl);
		if (!at)
			continue;
		const char *s = at + pl, *e = l + n;
		if (msg_prefixes[i].after) {
			size_t al = strlen(msg_prefixes[i].after);
			const char *c = memmem(s, (size_t)(e - s), msg_prefixes[i].after, al);
			if (!c)
				continue;
			s = c + al;
		}
		while (s < e && *s == ' ') /* glog's CHECK puts two spaces before the message */
			s++;
		long k = ga_errcode_find_message(&ex->ecx, msg_prefixes[i].fam, s, (size_t)(e - s));
		if (k >= 0)
			return k;
	}
	/* when no prefix above named one: a loose "CUDA error", punctuation or a code number
	 * (skip_code_noise), then the runtime's message */
	static const char *const loose[] = { "CUDA error", "CUDA Error" };
	for (size_t i = 0; i < sizeof(loose) / sizeof(loose[0]); i++) {
		const char *at = memmem(l, n, loose[i], strlen(loose[i]));
		if (!at)
			continue;
		const char *s = skip_code_noise(at + strlen(loose[i]), l + n, 24);
		long k = s ? ga_errcode_find_message(&ex->ecx, GA_ECF_CUDART, s, (size_t)(l + n - s)) : -1;
		if (k >= 0)
			return k;
	}
	return -1;
}

/* The decimal number of 1 to max digits at d (before e): its end, or NULL (none, or longer). */
static const char *decimal(const char *d, const char *e, size_t max, int64_t *v)
{
	const char *q = d;
	*v = 0;
	while (q < e && *q >= '0' && *q <= '9') {
		if ((size_t)(q - d) == max)
			return NULL;
		*v = *v * 10 + (*q++ - '0');
	}
	return q == d ? NULL : q;
}

/* The code numbered v in family fam, or -1 with *unknown naming the number (never guessed). */
static long code_by_number(const struct ga_explain *ex, enum ga_errcode_family fam, int64_t v, char *unknown,
                           size_t ucap, enum ga_errcode_family *ufam)
{
	long k = ga_errcode_lookup_number(&ex->ecx, fam, v);
	if (k < 0) {
		snprintf(unknown, ucap, "%s %lld", ga_errcode_family_get(fam)->type, (long long)v);
		*ufam = fam;
	}
	return k;
}

/*
 * Two status lines that print a number where the code's name would be:
 * ONNX Runtime's ("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : ...", OrtErrorCode's
 * number, then its name without ORT_) and TensorRT's error recorder ("4:
 * [runtime.cpp::deserializeCudaEngine::74] Error Code 4: Internal Error (...)",
 * nvinfer1::ErrorCode's number after its "file.cpp::function::line" location; TensorRT 10
 * prints the API call instead, "IExecutionContext::executeV2: Error Code 3: API Usage Error
 * (...)", on a line its Python logger marks "[TRT]"). The code's index; -1 (with *unknown set
 * for a number in no table) otherwise.
 */
static long status_form_code(const struct ga_explain *ex, const char *l, size_t n, char *unknown, size_t ucap,
                             enum ga_errcode_family *ufam)
{
	static const struct {
		const char *marker, *needs;
		enum ga_errcode_family fam;
	} forms[] = { { "[ONNXRuntimeError] : ", NULL, GA_ECF_ORT },
		      { "] Error Code ", ".cpp::", GA_ECF_TENSORRT },
		      { ": Error Code ", "[TRT]", GA_ECF_TENSORRT } };
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t ml = strlen(forms[f].marker);
		const char *at = memmem(l, n, forms[f].marker, ml);
		if (!at || (forms[f].needs && !memmem(l, n, forms[f].needs, strlen(forms[f].needs))))
			continue;
		const char *e = l + n, *q;
		int64_t v;
		if (!(q = decimal(at + ml, e, 5, &v)) || (q < e && *q != ':' && *q != ' '))
			continue;
		return code_by_number(ex, forms[f].fam, v, unknown, ucap, ufam);
	}
	return -1;
}

/*
 * Vulkan-Hpp (vulkan.hpp, the C++ binding llama.cpp's Vulkan backend and others use) names a
 * VkResult two ways: vk::to_string of the vk::Result, "Error" and the name in CamelCase
 * ("vk::Queue::submit: ErrorDeviceLost", the what() of the exception it throws; the
 * enumerator itself is vk::Result::eErrorDeviceLost), and the exception's class, the name in
 * CamelCase and "Error" ("vk::DeviceLostError"). The identifier l[i, j) in either form, on a
 * line that has "vk::" (the class right after it), is looked up as VK_ERROR_<NAME>, the words
 * split again at each capital after a small letter or digit (ErrorOutOfDateKHR:
 * VK_ERROR_OUT_OF_DATE_KHR). The code's index, or -1.
 */
static long vulkan_hpp_form(const struct ga_explain *ex, const char *l, size_t n, size_t i, size_t j)
{
	const char *w = NULL;
	size_t wl = 0;
	if (j - i > 6 && l[i] == 'e' && !memcmp(l + i + 1, "Error", 5))
		i++; /* vk::Result::eErrorDeviceLost */
	if (j - i > 5 && !memcmp(l + i, "Error", 5) && l[i + 5] >= 'A' && l[i + 5] <= 'Z' &&
	    memmem(l, n, "vk::", 4)) {
		w = l + i + 5;
		wl = j - i - 5;
	} else if (j - i > 5 && i >= 4 && !memcmp(l + i - 4, "vk::", 4) && l[i] >= 'A' && l[i] <= 'Z' &&
	           !memcmp(l + j - 5, "Error", 5)) {
		w = l + i;
		wl = j - i - 5;
	}
	/* ManagedCuda (the .NET binding) names the driver API's CUresult "Error" and the name in
	 * CamelCase (CUResult.ErrorInvalidPtx = 218): without "vk::" on the line, the bare form is
	 * looked up as CUDA_ERROR_<NAME> */
	bool cu = false;
	if (!w && j - i > 5 && !memcmp(l + i, "Error", 5) && l[i + 5] >= 'A' && l[i + 5] <= 'Z' &&
	    l[i + 6] >= 'a' && l[i + 6] <= 'z') {
		w = l + i + 5;
		wl = j - i - 5;
		cu = true;
	}
	if (!w || wl > 56)
		return -1;
	char full[128];
	size_t o = (size_t)snprintf(full, sizeof(full), cu ? "CUDA_ERROR_" : "VK_ERROR_");
	for (size_t k = 0; k < wl && o + 2 < sizeof(full); k++) {
		unsigned char ch = (unsigned char)w[k];
		unsigned char pr = k ? (unsigned char)w[k - 1] : 0;
		if (ch >= 'A' && ch <= 'Z' && k && ((pr >= 'a' && pr <= 'z') || (pr >= '0' && pr <= '9')))
			full[o++] = '_';
		full[o++] = (char)(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
	}
	return ga_errcode_lookup(&ex->ecx, full, o);
}

/* Is the code word at w, in "(status code: NNN)" with NNN from 100 to 599, an HTTP status that a
 * client appended to the server's error text (ollama's Python client: "CUDA error (status code:
 * 500)")? Then the number is no runtime's code. e: the line's end. */
static bool http_status_at(const char *l, const char *w, const char *e)
{
	return w - l >= 8 && memcmp(w - 8, "(status ", 8) == 0 && e - w >= 10 &&
	       memcmp(w, "code: ", 6) == 0 && w[6] >= '1' && w[6] <= '5' && isdigit((unsigned char)w[7]) &&
	       isdigit((unsigned char)w[8]) && w[9] == ')';
}

/* Is the number at p a process's exit status rather than a runtime's code: "exit code 2",
 * "exit_code=1", "exited with code 1", make's "*** [target] Error 2"? */
static bool exit_status_at(const char *l, const char *p)
{
	static const char *const exits[] = { "exit ", "exit_", "exited with " };
	for (size_t i = 0; i < sizeof(exits) / sizeof(exits[0]); i++) {
		size_t el = strlen(exits[i]);
		if ((size_t)(p - l) >= el && memcmp(p - el, exits[i], el) == 0)
			return true;
	}
	/* make's "*** [target] Error 2" only: a bracketed location or tag before a runtime's
	 * "Error 2" ("CUDA [kernel.cu:42] Error 2") is still that runtime's code */
	return p - l >= 2 && p[-1] == ' ' && p[-2] == ']' && memmem(l, (size_t)(p - l), "*** [", 5);
}

/* The runtimes' result types (their headers' names): a code's number may follow them. */
static const struct {
	const char *name;
	enum ga_errcode_family fam;
} result_types[] = { { "VkResult", GA_ECF_VULKAN },
	             { "CUresult", GA_ECF_CU },
	             { "cudaError_t", GA_ECF_CUDART },
	             { "cudaError", GA_ECF_CUDART },
	             { "hipError_t", GA_ECF_HIP },
	             { "nvmlReturn_t", GA_ECF_NVML },
	             { "ncclResult_t", GA_ECF_NCCL },
	             { "ze_result_t", GA_ECF_ZE },
	             { "hsa_status_t", GA_ECF_HSA },
	             { "cublasStatus_t", GA_ECF_CUBLAS },
	             { "cudnnStatus_t", GA_ECF_CUDNN },
	             { "curandStatus_t", GA_ECF_CURAND },
	             { "cufftResult", GA_ECF_CUFFT },
	             { "cusparseStatus_t", GA_ECF_CUSPARSE },
	             { "cusolverStatus_t", GA_ECF_CUSOLVER },
	             { "miopenStatus_t", GA_ECF_MIOPEN },
	             { "rocblas_status", GA_ECF_ROCBLAS },
	             { "rsmi_status_t", GA_ECF_RSMI } };

/*
 * The family an identifier names as a call site or a product (api_call_code): a function of a
 * vendor's C API by its prefix (clBuildProgram, vkCreateInstance, cudaMalloc, cuMemAlloc,
 * hipMalloc, zeInit, nvmlInit, ncclCommInitRank, cublasSgemm, cudnnConvolutionForward,
 * hsa_init, rsmi_init, rocblas_sgemm...), or the runtime's or library's own name (cuFFT,
 * OpenCL, Vulkan, MIOpen, "ROCm SMI"...). GA_ECF__COUNT when it names none.
 */
static enum ga_errcode_family api_family(const char *l, size_t n, size_t i, size_t j)
{
	const char *w = l + i;
	size_t wl = j - i;
	/* the runtimes' result types, as programs print a code after them ("VkResult=-7",
	 * "CUresult 2"); code_word takes them as words before a number */
	for (size_t k = 0; k < sizeof(result_types) / sizeof(result_types[0]); k++)
		if (strlen(result_types[k].name) == wl && !memcmp(w, result_types[k].name, wl))
			return result_types[k].fam;
	/* any other type is no call site: cudaStream_t, cublasHandle_t, CUstream_st */
	if (wl > 2 && w[wl - 2] == '_' && w[wl - 1] == 't')
		return GA_ECF__COUNT;
	if (wl > 3 && !memcmp(w + wl - 3, "_st", 3))
		return GA_ECF__COUNT;
	/* the driver API's functions by their first word after "cu" (every first word of the
	 * functions cuda.h declares, CUDA 13.0): product names that also start "cu" and a capital
	 * (cuFFT, cuDNN, cuGraph the library, cuML, cuMatrix...) name no driver function */
	static const char *const cu_words[] = { "Array",     "Array3",   "Checkpoint", "Coredump",  "Ctx",
		                                "Destroy",   "Dev",      "Device",     "Driver",    "Event",
		                                "External",  "Flush",    "Func",       "Get",       "Graph",
		                                "Graphics",  "Green",    "Import",     "Init",      "Ipc",
		                                "Kernel",    "Launch",   "Library",    "Link",      "Logs",
		                                "Mem",       "Memcpy",   "Memcpy2",    "Memcpy3",   "Memset",
		                                "Mipmapped", "Module",   "Multicast",  "Occupancy", "Param",
		                                "Pointer",   "Profiler", "Signal",     "Stream",    "Surf",
		                                "Tensor",    "Tex",      "Thread",     "User",      "Wait" };
	/* exact names: the runtimes' and libraries' own, as their messages print them */
	static const struct {
		const char *name;
		enum ga_errcode_family fam;
	} products[] = { { "CUDA", GA_ECF_CUDART },         { "HIP", GA_ECF_HIP },
		         { "NCCL", GA_ECF_NCCL },           { "RCCL", GA_ECF_NCCL },
		         { "NVML", GA_ECF_NVML },           { "HSA", GA_ECF_HSA },
		         { "cuFFT", GA_ECF_CUFFT },         { "CUFFT", GA_ECF_CUFFT },
		         { "cuBLAS", GA_ECF_CUBLAS },       { "CUBLAS", GA_ECF_CUBLAS },
		         { "cuBLASLt", GA_ECF_CUBLAS },     { "cuDNN", GA_ECF_CUDNN },
		         { "CUDNN", GA_ECF_CUDNN },         { "cuSOLVER", GA_ECF_CUSOLVER },
		         { "CUSOLVER", GA_ECF_CUSOLVER },   { "cuSPARSE", GA_ECF_CUSPARSE },
		         { "CUSPARSE", GA_ECF_CUSPARSE },   { "cuRAND", GA_ECF_CURAND },
		         { "CURAND", GA_ECF_CURAND },       { "NVRTC", GA_ECF_NVRTC },
		         { "OpenCL", GA_ECF_OPENCL },       { "OPENCL", GA_ECF_OPENCL },
		         { "Vulkan", GA_ECF_VULKAN },       { "VkResult", GA_ECF_VULKAN },
		         { "MIOpen", GA_ECF_MIOPEN },       { "rocBLAS", GA_ECF_ROCBLAS },
		         { "hipBLAS", GA_ECF_HIPBLAS },     { "rocSPARSE", GA_ECF_ROCSPARSE },
		         { "hipSPARSE", GA_ECF_HIPSPARSE }, { "rocFFT", GA_ECF_ROCFFT },
		         { "hipFFT", GA_ECF_HIPFFT },       { "rocRAND", GA_ECF_ROCRAND },
		         { "hipRAND", GA_ECF_HIPRAND },     { "hipSOLVER", GA_ECF_HIPSOLVER } };
	/* in any case ("CuRAND error 204", "cuda failed: 4"), but HIP and HSA only as written (short
	 * words); not THC's "cuda runtime error (N) : message", whose N is its CUDA release's number
	 * (the message after it names the code, message_code) */
	if (wl == 4 && !strncasecmp(w, "cuda", 4) && j + 16 <= n && !memcmp(l + j, " runtime error (", 16))
		return GA_ECF__COUNT;
	for (size_t k = 0; k < sizeof(products) / sizeof(products[0]); k++)
		if (strlen(products[k].name) == wl &&
		    (wl <= 3 ? !memcmp(w, products[k].name, wl) : !strncasecmp(w, products[k].name, wl)))
			return products[k].fam;
	/* ROCm SMI and AMD SMI by their two words: "ROCm SMI", "rocm-smi", "rocm_smi", "AMD SMI" */
	if ((wl == 4 && !strncasecmp(w, "rocm", 4)) || (wl == 3 && !strncasecmp(w, "amd", 3)) ||
	    (wl == 8 && !strncasecmp(w, "rocm_smi", 8)) || (wl == 7 && !strncasecmp(w, "amd_smi", 7))) {
		bool joined = wl > 4;
		if (joined ||
		    (j + 4 <= n && (l[j] == ' ' || l[j] == '-' || l[j] == '_') &&
		     !strncasecmp(l + j + 1, "smi", 3) && (j + 4 == n || !is_ident((unsigned char)l[j + 4]))))
			return w[0] == 'r' || w[0] == 'R' ? GA_ECF_RSMI : GA_ECF_AMDSMI;
		return GA_ECF__COUNT;
	}
	/* snake_case C APIs: a prefix and a lower-case word */
	static const struct {
		const char *prefix;
		enum ga_errcode_family fam;
	} snake[] = { { "hsa_", GA_ECF_HSA },
		      { "rsmi_", GA_ECF_RSMI },
		      { "amdsmi_", GA_ECF_AMDSMI },
		      { "rocblas_", GA_ECF_ROCBLAS },
		      { "rocsparse_", GA_ECF_ROCSPARSE },
		      { "rocfft_", GA_ECF_ROCFFT },
		      { "rocrand_", GA_ECF_ROCRAND } };
	for (size_t k = 0; k < sizeof(snake) / sizeof(snake[0]); k++) {
		size_t pl = strlen(snake[k].prefix);
		if (wl > pl && !memcmp(w, snake[k].prefix, pl) && w[pl] >= 'a' && w[pl] <= 'z')
			return snake[k].fam;
	}
	/* camelCase C APIs: a prefix, a capital and a lower-case letter (the longer prefixes
	 * first: cublas before cu, hipblas before hip, zes before ze) */
	static const struct {
		const char *prefix;
		enum ga_errcode_family fam;
	} camel[] = { { "cublasLt", GA_ECF_CUBLAS },
		      { "cublas", GA_ECF_CUBLAS },
		      { "cudnn", GA_ECF_CUDNN },
		      { "cufft", GA_ECF_CUFFT },
		      { "cusolver", GA_ECF_CUSOLVER },
		      { "cusparse", GA_ECF_CUSPARSE },
		      { "curand", GA_ECF_CURAND },
		      { "cupti", GA_ECF_CUPTI },
		      { "cuda", GA_ECF_CUDART },
		      { "nvrtc", GA_ECF_NVRTC },
		      { "nvJitLink", GA_ECF_NVJITLINK },
		      { "nvml", GA_ECF_NVML },
		      { "nccl", GA_ECF_NCCL },
		      { "hipblas", GA_ECF_HIPBLAS },
		      { "hipfft", GA_ECF_HIPFFT },
		      { "hipsparse", GA_ECF_HIPSPARSE },
		      { "hiprand", GA_ECF_HIPRAND },
		      { "hipsolver", GA_ECF_HIPSOLVER },
		      { "hip", GA_ECF_HIP },
		      { "miopen", GA_ECF_MIOPEN },
		      { "zes", GA_ECF_ZE },
		      { "zet", GA_ECF_ZE },
		      { "ze", GA_ECF_ZE },
		      { "cl", GA_ECF_OPENCL },
		      { "vk", GA_ECF_VULKAN } };
	for (size_t k = 0; k < sizeof(camel) / sizeof(camel[0]); k++) {
		size_t pl = strlen(camel[k].prefix);
		if (wl > pl + 1 && !memcmp(w, camel[k].prefix, pl) && w[pl] >= 'A' && w[pl] <= 'Z' &&
		    w[pl + 1] >= 'a' && w[pl + 1] <= 'z')
			return camel[k].fam;
	}
	if (wl > 3 && w[0] == 'c' && w[1] == 'u' && w[2] >= 'A' && w[2] <= 'Z') {
		size_t e = 3;
		while (e < wl && ((w[e] >= 'a' && w[e] <= 'z') || (w[e] >= '0' && w[e] <= '9')))
			e++;
		for (size_t k = 0; k < sizeof(cu_words) / sizeof(cu_words[0]); k++)
			/* cuGraph alone is RAPIDS' graph library; cuGraphLaunch is the driver's */
			if (strlen(cu_words[k]) == e - 2 && !memcmp(w + 2, cu_words[k], e - 2) &&
			    (strcmp(cu_words[k], "Graph") || e < wl))
				return GA_ECF_CU;
	}
	return GA_ECF__COUNT;
}

/* Is the identifier [i, j) a word that puts a code's number after it: "failed -9", "returned
 * -1001", "Error -52", "Code: -6", "res=2", "failure 2", "status 5", "failed with 3"? */
static bool code_word(const char *l, size_t i, size_t j)
{
	static const char *const words[] = { "failed", "fails", "returned", "returns", "return",
		                             "error",  "err",   "code",     "status",  "result",
		                             "res",    "ret",   "rc",       "failure" };
	size_t wl = j - i;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (strlen(words[k]) == wl && !strncasecmp(l + i, words[k], wl))
			return true;
	for (size_t k = 0; k < sizeof(result_types) / sizeof(result_types[0]); k++)
		if (strlen(result_types[k].name) == wl && !memcmp(l + i, result_types[k].name, wl))
			return true;
	/* "failed with 3", "failed with error 3" (the latter by "error" itself) */
	if (wl == 4 && !strncasecmp(l + i, "with", 4)) {
		size_t e = i;
		while (e > 0 && l[e - 1] == ' ')
			e--;
		size_t b = e;
		while (b > 0 && is_ident((unsigned char)l[b - 1]))
			b--;
		return e > b && code_word(l, b, e) && strncasecmp(l + b, "with", 4);
	}
	return false;
}

/* Does the line say that something failed (the inconclusive report's words: salience, below)? */
static int salience(const char *l, size_t n);

/*
 * A code by number at a call site or after a runtime's name: the line names a family (a
 * function of its C API or its own name, api_family) and prints a number where a code goes
 * (after "failed", "returned", "error", "code", "status", "res=" and the like, code_word, or
 * right after the call's closing parenthesis, "ERROR: cuMemsetD8() 1"): "vkCreateInstance
 * failed -9" is VK_ERROR_INCOMPATIBLE_DRIVER, "Error -52 [clEnqueueNDRangeKernel]" is
 * CL_INVALID_KERNEL_ARGS, "OpenCL error happened: clBuildProgram, Code: -6" is
 * CL_OUT_OF_HOST_MEMORY. The family is the nearest one named before the number, else the
 * nearest after it. OpenCL's and Vulkan's errors are negative, the others' positive; a number of
 * the wrong sign, zero (success), a version, a time, a size ("failed 2 GB"), an exit status
 * or a file's line ("kernel.cu:42") is no code. A number in no table of that family is
 * reported as unknown (code_by_number), never guessed.
 */
static long api_call_code(const struct ga_explain *ex, const char *l, size_t n, char *unknown, size_t ucap,
                          enum ga_errcode_family *ufam)
{
	enum { MAXF = 8 };
	struct {
		size_t at;
		enum ga_errcode_family fam;
	} fams[MAXF];
	size_t nf = 0;
	for (size_t i = 0; i < n && nf < MAXF;) {
		if (!is_ident((unsigned char)l[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && is_ident((unsigned char)l[j]))
			j++;
		enum ga_errcode_family f = api_family(l, n, i, j);
		if (f != GA_ECF__COUNT) {
			fams[nf].at = i;
			fams[nf++].fam = f;
		}
		i = j;
	}
	if (!nf)
		return -1;
	static const char *const units[] = { "B",   "KB",    "MB",      "GB",       "KiB",  "MiB",
		                             "GiB", "bytes", "ms",      "s",        "sec",  "seconds",
		                             "of",  "times", "retries", "attempts", "tries" };
	for (size_t i = 0; i < n; i++) {
		bool neg = l[i] == '-' && i + 1 < n && l[i + 1] >= '0' && l[i + 1] <= '9';
		if (!neg && !(l[i] >= '0' && l[i] <= '9'))
			continue;
		size_t d = neg ? i + 1 : i;
		/* the start of a number of its own: not inside a word, a version or a path */
		if (i > 0 && (is_ident((unsigned char)l[i - 1]) || l[i - 1] == '.' || l[i - 1] == '-' ||
		              l[i - 1] == '/')) {
			while (i + 1 < n && l[i + 1] >= '0' && l[i + 1] <= '9')
				i++;
			continue;
		}
		int64_t v;
		const char *q = decimal(l + d, l + n, 10, &v);
		size_t end = q ? (size_t)(q - l) : d + 1;
		size_t next = end;
		if (!q || (end < n && (is_ident((unsigned char)l[end]) || l[end] == '%')) ||
		    (end + 1 < n && (l[end] == '.' || l[end] == ':' || l[end] == ',') && l[end + 1] >= '0' &&
		     l[end + 1] <= '9')) {
			i = end;
			continue;
		}
		/* what comes before it: separators, then a code word or a call's closing parenthesis */
		size_t b = i;
		while (b > 0 && (l[b - 1] == ' ' || l[b - 1] == ':' || l[b - 1] == '=' || l[b - 1] == '#' ||
		                 l[b - 1] == '(' || l[b - 1] == '[' || l[b - 1] == ','))
			b--;
		bool ctx = false;
		size_t a = b; /* the code word's start: "exit code 2" is a process's exit status */
		if (b > 0 && l[b - 1] == ')') {
			ctx = true;
		} else if (b > 0 && is_ident((unsigned char)l[b - 1]) && b < i) {
			while (a > 0 && is_ident((unsigned char)l[a - 1]))
				a--;
			ctx = code_word(l, a, b);
		}
		/* a negative number after a colon or an exclamation mark on a line that says it failed
		 * (salience): LAMMPS' geryon "OpenCL error in file '...' in line 587 : -5.", "clEnqueueNDRangeKernel
		 * failed! -38" (the sign is checked against the family below: only OpenCL's and Vulkan's codes
		 * are negative; "OpenCL platform index: -1" says nothing failed) */
		if (!ctx && neg && b > 0 && (memchr(l + b, ':', i - b) || l[b - 1] == '!') && salience(l, n))
			ctx = true;
		/* not a size or a count ("failed 2 GB", "error 1 of 3") */
		if (ctx && next < n && l[next] == ' ') {
			size_t u = next + 1, ue = u;
			while (ue < n && is_ident((unsigned char)l[ue]))
				ue++;
			for (size_t k = 0; k < sizeof(units) / sizeof(units[0]) && ctx; k++)
				if (strlen(units[k]) == ue - u && !memcmp(l + u, units[k], ue - u))
					ctx = false;
		}
		if (!ctx || exit_status_at(l, l + a) || http_status_at(l, l + a, l + n) || v == 0) {
			i = end;
			continue;
		}
		/* the nearest family named before the number, else the nearest after it */
		size_t pick = MAXF;
		for (size_t k = 0; k < nf; k++)
			if (fams[k].at < i)
				pick = k;
		if (pick == MAXF)
			for (size_t k = 0; k < nf && pick == MAXF; k++)
				if (fams[k].at > i)
					pick = k;
		if (pick == MAXF) {
			i = end;
			continue;
		}
		enum ga_errcode_family f = fams[pick].fam;
		bool negative_family = f == GA_ECF_OPENCL || f == GA_ECF_VULKAN;
		if (neg != negative_family) {
			i = end;
			continue;
		}
		return code_by_number(ex, f, neg ? -v : v, unknown, ucap, ufam);
	}
	return -1;
}

/*
 * The first error code the line names: an identifier with a family's prefix
 * looked up in the index (*unknown: it has an error prefix and is in no table),
 * else the vendor's message after a runtime's prefix (message_code),
 * else a number after a runtime's name ("CUDA error code 700", "nvmlReturn 999", rocminfo's "hsa api
 * call failure ... Call returned 4104", "Unknown ze_result_t value: 1879179264").
 * The code's index, or -1 (*unknown set when an unknown name was seen).
 */
static long line_code(const struct ga_explain *ex, const char *l, size_t n, char *unknown, size_t ucap,
                      enum ga_errcode_family *ufam)
{
	unknown[0] = '\0';
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)l[i];
		if (!is_ident(c)) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && is_ident((unsigned char)l[j]))
			j++;
		/* DPC++'s plugin interface names OpenCL's codes PI_ERROR_<name> with OpenCL's values
		 * (sycl/include/sycl/detail/pi_error.def): "Native API returns: -1
		 * (PI_ERROR_DEVICE_NOT_FOUND)" is CL_DEVICE_NOT_FOUND */
		bool pi = c == 'P' && j - i > 9 && j - i < 64 && !memcmp(l + i, "PI_ERROR_", 9);
		bool ur = c == 'U' && j - i > 16 && j - i < 64 && !memcmp(l + i, "UR_RESULT_ERROR_", 16);
		/* PI's and Unified Runtime's own tables first (pi.def, ur.def; their groups follow
		 * their headers' descriptions); the twins below only for a name they lack (an older
		 * or newer header) */
		if (pi || ur) {
			long own = ga_errcode_lookup(&ex->ecx, l + i, j - i);
			if (own >= 0)
				return own;
		}
		if (pi) {
			char cl[64];
			snprintf(cl, sizeof(cl), "CL_%.*s", (int)(j - i - 9), l + i + 9);
			long k = ga_errcode_lookup(&ex->ecx, cl, strlen(cl));
			if (k >= 0)
				return k;
		}
		/* Unified Runtime (the SYCL runtime's layer under DPC++ 2024 and later, PyTorch XPU,
		 * llama.cpp's SYCL backend) reports ur_result_t by name ("level_zero backend failed with
		 * error: 39 [UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY]"); its names follow Level Zero's
		 * (ur_api.h; the Level Zero adapter's ze2urResult maps each ZE_RESULT_ERROR_<name> to
		 * UR_RESULT_ERROR_<name>) or else OpenCL's (DEVICE_NOT_FOUND, OUT_OF_RESOURCES), but its
		 * numbers are its own: looked up by name as ZE_RESULT_<rest>, then as CL_<name> */
		if (ur) {
			char twin[80];
			snprintf(twin, sizeof(twin), "ZE_RESULT_%.*s", (int)(j - i - 10), l + i + 10);
			long k = ga_errcode_lookup(&ex->ecx, twin, strlen(twin));
			if (k < 0) {
				snprintf(twin, sizeof(twin), "CL_%.*s", (int)(j - i - 16), l + i + 16);
				k = ga_errcode_lookup(&ex->ecx, twin, strlen(twin));
			}
			if (k >= 0)
				return k;
		}
		/* go-nvml (the device plugin, nvidia-ctk, the GPU operator) prints an nvmlReturn_t
		 * by its name without the NVML_ prefix: "failed to initialize NVML:
		 * ERROR_LIBRARY_NOT_FOUND"; looked up as NVML_ERROR_... only where the line names NVML */
		if (c == 'E' && j - i >= 8 && j - i < 60 && !memcmp(l + i, "ERROR_", 6) &&
		    (memmem(l, n, "NVML", 4) || memmem(l, n, "nvml", 4))) {
			char full[64];
			snprintf(full, sizeof(full), "NVML_%.*s", (int)(j - i), l + i);
			long k = ga_errcode_lookup(&ex->ecx, full, j - i + 5);
			if (k >= 0)
				return k;
		}
		/* pynvml raises an NVMLError subclass per code, named from NVML_ERROR_<NAME> by
		 * capitalising each word and dropping the underscores ("pynvml.nvml.NVMLError_GpuIsLost:
		 * GPU is lost", NVML_ERROR_GPU_IS_LOST): the words are split again at each capital */
		if (c == 'N' && j - i > 10 && j - i < 48 && !memcmp(l + i, "NVMLError_", 10)) {
			char full[112];
			size_t o = (size_t)snprintf(full, sizeof(full), "NVML_ERROR_");
			for (size_t k = i + 10; k < j && o + 2 < sizeof(full); k++) {
				unsigned char ch = (unsigned char)l[k];
				if (ch >= 'A' && ch <= 'Z' && k > i + 10)
					full[o++] = '_';
				full[o++] = (char)(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
			}
			long k = ga_errcode_lookup(&ex->ecx, full, o);
			if (k >= 0)
				return k;
		}
		long vk = vulkan_hpp_form(ex, l, n, i, j);
		if (vk >= 0)
			return vk;
		/* SYCL 2020's sycl::errc (h65-tintel): its enumerators are common words ("runtime",
		 * "event", "build"), so only a name scoped as errc::NAME (sycl::errc::kernel_not_supported)
		 * is looked up, never a bare word */
		if (i >= 6 && j - i < 32 && !memcmp(l + i - 6, "errc::", 6)) {
			char full[48];
			snprintf(full, sizeof(full), "errc::%.*s", (int)(j - i), l + i);
			long k = ga_errcode_lookup(&ex->ecx, full, strlen(full));
			if (k >= 0 && ex->ecx.group[k] != GA_ECG_NOT_ERROR)
				return k;
		}
		/* the families' prefixes start with one of these letters (m: MIOpen's miopenStatus, V:
		 * Vulkan's VK_; NVRTC_ and NVJITLINK_ start with N, CUPTI_ and CURAND_ with C; U and P:
		 * Unified Runtime's UR_RESULT_ and PI's PI_, for their success codes and the names of no table;
		 * R: ROCm SMI's RSMI_ and rocRAND's ROCRAND_STATUS_, A: AMD SMI's AMDSMI_STATUS_; rocSPARSE's,
		 * rocFFT's, hipSPARSE's, hipFFT's, hipRAND's and hipSOLVER's start with r or H) */
		if (j - i >= 6 && strchr("cCnNhHZrmVUPRA", c)) {
			long k = ga_errcode_lookup(&ex->ecx, l + i, j - i);
			/* TVM's Vulkan check prints the success code before the error: "Check failed: (__e ==
			 * VK_SUCCESS) is false: Vulkan Error, code=-2: VK_ERROR_OUT_OF_DEVICE_MEMORY"; a
			 * Vulkan code that is no error does not end the search (nor does UR_RESULT_SUCCESS or
			 * PI_SUCCESS; the other tables keep theirs) */
			/* nor does a success code that a failed check compares with ("Check failed: error ==
			 * cudaSuccess (999 vs. 0)  unknown error", glog's CHECK_EQ in Caffe's CUDA_CHECK):
			 * the message after it names the code (message_code) */
			bool compared = i >= 3 && !memcmp(l + i - 3, "== ", 3);
			if (k >= 0 && (c == 'V' || c == 'U' || c == 'P' || compared) &&
			    ex->ecx.group[k] == GA_ECG_NOT_ERROR) {
				i = j;
				continue;
			}
			if (k >= 0)
				return k;
			enum ga_errcode_family f = ga_errcode_error_prefix(l + i, j - i);
			if (f != GA_ECF__COUNT && !unknown[0] && j - i < ucap) {
				snprintf(unknown, ucap, "%.*s", (int)(j - i), l + i);
				*ufam = f;
			}
		}
		i = j;
	}
	if (unknown[0])
		return -1;
	long mk = message_code(ex, l, n);
	if (mk >= 0)
		return mk;
	long fk = status_form_code(ex, l, n, unknown, ucap, ufam);
	if (fk >= 0 || unknown[0])
		return fk;
	static const struct {
		const char *word;
		enum ga_errcode_family fam;
	} ctx[] = { { "nvmlReturn", GA_ECF_NVML },
		    { "NVML", GA_ECF_NVML },
		    { "NCCL", GA_ECF_NCCL },
		    { "HIP", GA_ECF_HIP },
		    { "hipError", GA_ECF_HIP },
		    { "CUDA", GA_ECF_CUDART },
		    /* TensorRT before 8: "Cuda initialization failure with error 35" */
		    { "Cuda initialization", GA_ECF_CUDART },
		    /* rocminfo's "hsa api call failure at: FILE:LINE ... Call returned 4104" */
		    { "hsa api call", GA_ECF_HSA },
		    /* the Level Zero C++ helpers' "Unknown ze_result_t value: 1879179264" */
		    { "ze_result_t", GA_ECF_ZE },
		    /* ollama's discovery (gpu_info_cudart.c, gpu_info_nvcuda.c): the runtime's
		     * cudaError_t after "cudart init failure: ", cuInit's CUresult after "cuda
		     * driver library init failure: ". The driver API numbers the init failures as
		     * the runtime does (3, 34, 46, 100, 802, 803, 804, 999), and the runtime's
		     * reading fits a failed cuInit: CUDA_ERROR_NOT_INITIALIZED (3) returned by
		     * cuInit itself is "initialization failed" (cudaErrorInitializationError), not
		     * a call made before cuInit */
		    { "cudart init failure", GA_ECF_CUDART },
		    { "driver library init failure", GA_ECF_CUDART },
		    /* LAMMPS' geryon (lib/gpu/geryon/nvd_macros.h, CU_SAFE_CALL): "Cuda driver error %d in
		     * call at file '%s' in line %i." with the driver API's CUresult (h70-fixih) */
		    { "Cuda driver error", GA_ECF_CU },
		    /* the NVIDIA HPC compilers' OpenACC / CUDA Fortran runtime: "Accelerator Fatal Error:
		     * call to cuLaunchKernel returned error 701: Launch out of resources", the driver
		     * API's CUresult after "returned error " (h79-fixim) */
		    { "Accelerator Fatal Error", GA_ECF_CU } };
	/* "error: ": TensorRT's "CUDA initialization failure with error: 35"; "failure: ": ollama's "init failure: 999";
	 * "error! ": the CUT_SAFE_CALL-style macros that print a cudaError_t as "CUDA error! %d" (StructuredEikonal's
	 * src/cuda_fim.cu, and others of the form) */
	static const char *const before[] = { "error code ", "code=",   "code ",       "Return ", "returned ",
		                              "error ",      "Error ",  "nvmlReturn ", "value: ", "error: ",
		                              "failure: ",   "error! ", "Error! " };
	for (size_t w = 0; w < sizeof(ctx) / sizeof(ctx[0]); w++) {
		const char *at = memmem(l, n, ctx[w].word, strlen(ctx[w].word));
		if (!at)
			continue;
		for (size_t b = 0; b < sizeof(before) / sizeof(before[0]); b++) {
			size_t bl = strlen(before[b]);
			const char *p = memmem(at, (size_t)(l + n - at), before[b], bl);
			/* a word of its own: "code 1" is not the end of "opcode 1"; and no process's exit
			 * status: "nvcc' failed with exit code 2" under a CUDA path, make's "*** [...] Error 2" */
			while (p && ((p > l && is_ident((unsigned char)p[-1])) || exit_status_at(l, p)))
				p = memmem(p + 1, (size_t)(l + n - p - 1), before[b], bl);
			if (!p)
				continue;
			/* ten digits: Level Zero's codes are 0x70000000 and up */
			const char *q;
			int64_t v;
			if (!(q = decimal(p + bl, l + n, 10, &v)) ||
			    (q < l + n && is_ident((unsigned char)*q)))
				continue;
			return code_by_number(ex, ctx[w].fam, v, unknown, ucap, ufam);
		}
		break;
	}
	return api_call_code(ex, l, n, unknown, ucap, ufam);
}

/* "cudaErrorIllegalAddress = 700 (CUDA runtime API cudaError_t)" */
static void code_text(long k, char *out, size_t cap)
{
	const struct ga_errcode *c = ga_errcode_get((size_t)k);
	const struct ga_errcode_family_info *f = ga_errcode_family_get(c->family);
	snprintf(out, cap, "%s = %lld (%s %s)", c->name, (long long)c->value, f->runtime, f->type);
}

static bool no_cause_yet(const struct ga_explain *ex)
{
	/* a notice (a row whose action is none) is no cause: the error-looking lines are
	 * still looked for, so that a notice cannot hide an unknown error */
	return ex->acted == 0;
}

/* Keep the line among the most salient ones: the highest scores, the earliest lines of a score. */
static void salient_add(struct ga_explain *ex, const char *l, size_t n, int score, const char *code)
{
	struct ga_explain_salient *s = NULL;
	for (size_t i = 0; i < ex->n_salient; i++)
		if (ex->salient[i].line == ex->lines)
			s = &ex->salient[i];
	if (s) {
		if (score > s->score)
			s->score = score;
		if (code && code[0])
			snprintf(s->code, sizeof(s->code), "%s", code);
		return;
	}
	/* a line's score is its own: what it says, raised to 3 when it names a code (below) */
	char desc[sizeof(ex->salient[0].code)] = "";
	long code_index = -1;
	if (code && code[0]) {
		snprintf(desc, sizeof(desc), "%s", code);
	} else {
		char unknown[96];
		enum ga_errcode_family uf = GA_ECF__COUNT;
		long k = line_code(ex, l, n, unknown, sizeof(unknown), &uf);
		if (k >= 0 && ex->ecx.group[k] != GA_ECG_NOT_ERROR) {
			code_index = k;
			char t[160];
			code_text(k, t, sizeof(t));
			snprintf(desc, sizeof(desc), "%s%s", t,
			         ex->ecx.group[k] == GA_ECG_UNSPECIFIED
			                 ? ": the vendor's description names no cause"
			                 : "");
		} else if (k < 0 && unknown[0])
			snprintf(desc, sizeof(desc), "%s: not in the tables (unknown code)", unknown);
		if (desc[0] && score < 3)
			score = 3;
	}
	if (ex->n_salient < SALIENT_MAX) {
		s = &ex->salient[ex->n_salient++];
	} else {
		size_t w = 0;
		for (size_t i = 1; i < ex->n_salient; i++)
			if (ex->salient[i].score < ex->salient[w].score ||
			    (ex->salient[i].score == ex->salient[w].score &&
			     ex->salient[i].line > ex->salient[w].line))
				w = i;
		/* the kept set is the top by (score, earliest line), whatever order lines come in */
		if (ex->salient[w].score > score ||
		    (ex->salient[w].score == score && ex->salient[w].line < ex->lines))
			return;
		s = &ex->salient[w];
	}
	memset(s, 0, sizeof(*s));
	s->line = ex->lines;
	s->score = score;
	clean_copy(s->text, sizeof(s->text), l, n);
	s->component = component_guess(l, n);
	memcpy(s->code, desc, sizeof(s->code));
	s->code_index = code_index;
}

/*
 * How much a line looks like an error, 0 when it does not: a crash or fatal
 * error 4, an exception's last line ("ValueError: ...") 3, an error 2, a
 * failure or exception 1.
 */
/*
 * The detail lines of a PCIe AER record (drivers/pci/pcie/aer.c): "device [8086:9d15] error
 * status/mask=00000001/00002000" and one "   [ 0] RxErr  (First)" per error bit. They belong to
 * the record the AER rows read, not to an error of their own.
 */
static bool aer_detail_line(const char *l, size_t n)
{
	if (memmem(l, n, "status/mask=", 12))
		return true;
	const char *p = memmem(l, n, "   [", 4);
	if (!p)
		return false;
	const char *e = l + n;
	p += 4;
	while (p < e && *p == ' ')
		p++;
	const char *d = p;
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	return p > d && p - d <= 2 && p + 1 < e && p[0] == ']' && p[1] == ' ';
}

static int salience(const char *l, size_t n)
{
	if (aer_detail_line(l, n))
		return 0;
	static const struct {
		const char *w;
		int score;
	} words[] = { { "Segmentation fault", 4 },
		      { "core dumped", 4 },
		      { "FATAL", 4 },
		      { "Fatal", 4 },
		      { "fatal", 4 },
		      { "panic", 4 },
		      { "Aborted", 4 },
		      { "rror:", 3 },
		      { "ERROR", 2 },
		      { "rror", 2 },
		      { "FAILED", 1 },
		      { "ailed", 1 },
		      { "xception", 1 },
		      { "Traceback", 1 } };
	/* and the trailer of a tool's report, not an error of its own (cuda-memcheck and
	 * compute-sanitizer end each report with "Saved host backtrace up to driver entry
	 * point at error") */
	static const char *const negated[] = { "no error", "0 error", "without error", "no failure",
		                               "Saved host backtrace" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memmem(l, n, words[i].w, strlen(words[i].w))) {
			/* "(no errors)", "0 errors": a report that all is well, unless it is fatal */
			for (size_t k = 0; k < sizeof(negated) / sizeof(negated[0]) && words[i].score < 4;
			     k++)
				if (memmem(l, n, negated[k], strlen(negated[k])))
					return 0;
			return words[i].score;
		}
	return 0;
}

static void salient_line(struct ga_explain *ex, const char *l, size_t n)
{
	int sc = salience(l, n);
	if (sc) {
		ex->salient_lines++;
		salient_add(ex, l, n, sc, NULL);
	}
}

/* A line that names a code with no cause: kept as salient (counted here when no word made it so). */
static void salient_code(struct ga_explain *ex, const char *l, size_t n, const char *desc)
{
	if (!salience(l, n))
		ex->salient_lines++;
	salient_add(ex, l, n, 3, desc);
}

/*
 * A match of the current line (ex->lines): a cause unless its signature's action is
 * none. A notice's own line is no unknown error: while nothing else is known it is
 * taken back out of the salient lines (it was looked at before it matched).
 */
static void count_acted(struct ga_explain *ex, unsigned sig, const char *l, size_t n)
{
	const struct ga_signature *g = ga_explain_sig(sig);
	if (!g || g->action != GA_ACT_NONE) {
		ex->acted++;
		return;
	}
	if (ex->acted)
		return;
	for (size_t i = 0; i < ex->n_salient; i++)
		if (ex->salient[i].line == ex->lines) {
			ex->salient[i] = ex->salient[--ex->n_salient];
			break;
		}
	if (ex->salient_lines && salience(l, n > GA_EXPLAIN_LINE_MAX ? GA_EXPLAIN_LINE_MAX : n))
		ex->salient_lines--;
}

static int cmp_ptr(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return x < y ? -1 : x > y;
}

/*
 * The lines of [s, e) (complete lines) that contain a word salience() scores,
 * through salient_line; ex->lines is restored. One memmem pass over the block
 * per word, not a look at every line: a log with no cause costs a few passes
 * more, not a search per line. A block with very many such lines is taken line
 * by line.
 */
#define SALIENT_HITS 256
static void salient_block(struct ga_explain *ex, const char *s, const char *e)
{
	static const char *const keys[] = { "rror",  "RROR",        "ailed",    "AILED",
		                            "atal",  "ATAL",        "xception", "Traceback",
		                            "panic", "core dumped", "Aborted",  "Segmentation fault" };
	const char *starts[SALIENT_HITS];
	size_t ns = 0;
	uint64_t base = ex->lines;
	bool many = false;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !many; k++) {
		size_t kl = strlen(keys[k]);
		for (const char *p = s; p < e && (p = memmem(p, (size_t)(e - p), keys[k], kl));) {
			const char *ls = memrchr(s, '\n', (size_t)(p - s));
			ls = ls ? ls + 1 : s;
			bool dup = false;
			for (size_t i = 0; i < ns && !dup; i++)
				dup = starts[i] == ls;
			if (!dup && ns == SALIENT_HITS) {
				many = true;
				break;
			}
			if (!dup)
				starts[ns++] = ls;
			const char *le = memchr(p, '\n', (size_t)(e - p));
			p = le ? le + 1 : e;
		}
	}
	if (many) {
		for (const char *l = s; l < e;) {
			const char *nl = memchr(l, '\n', (size_t)(e - l));
			size_t n = (size_t)((nl ? nl : e) - l);
			ex->lines++;
			salient_line(ex, l, n > GA_EXPLAIN_LINE_MAX ? GA_EXPLAIN_LINE_MAX : n);
			l = nl ? nl + 1 : e;
		}
		ex->lines = base;
		return;
	}
	qsort(starts, ns, sizeof(starts[0]), cmp_ptr);
	const char *counted = s;
	for (size_t i = 0; i < ns; i++) {
		ex->lines += count_nl(counted, starts[i]) + 1;
		const char *le = memchr(starts[i], '\n', (size_t)(e - starts[i]));
		size_t n = (size_t)((le ? le : e) - starts[i]);
		salient_line(ex, starts[i], n > GA_EXPLAIN_LINE_MAX ? GA_EXPLAIN_LINE_MAX : n);
		counted = le ? le + 1 : e;
	}
	ex->lines = base;
}

static void code_as_sig(struct ga_explain *ex, unsigned sig, long k, const char *l, size_t n);

static void code_cause(struct ga_explain *ex, long k, const char *l, size_t n);

/* A line no signature matched: the code it names, if any, as its group's cause. */
static void code_line(struct ga_explain *ex, const char *l, size_t n)
{
	char unknown[96];
	enum ga_errcode_family uf = GA_ECF__COUNT;
	long k = line_code(ex, l, n, unknown, sizeof(unknown), &uf);
	if (k < 0) {
		if (unknown[0] && no_cause_yet(ex)) {
			char t[160];
			snprintf(t, sizeof(t), "%s: not in the tables (unknown code)", unknown);
			salient_code(ex, l, n, t);
		}
		return;
	}
	code_cause(ex, k, l, n);
}

/* Does code k name a cause (its own signature's, or its group's)? */
static bool code_names_cause(const struct ga_explain *ex, long k)
{
	enum ga_errcode_group g = (enum ga_errcode_group)ex->ecx.group[k];
	return g != GA_ECG_NOT_ERROR &&
	       (ex->code_sig[k] >= 0 || (g != GA_ECG_UNSPECIFIED && g < GA_ECG__COUNT));
}

/*
 * At the end of an input where nothing acted: the most salient lines that name a code with a
 * cause, and that no literal of the scan brought to code_line (a code by number at a call
 * site, "vkCreateInstance failed -9", or a name shorter than the scan's window), become that
 * code's cause, in line order. Only the kept salient lines are looked at (the top by score,
 * then the earliest), so a log fed in pieces and fed whole read the same.
 */
static void promote_salient_codes(struct ga_explain *ex)
{
	if (!no_cause_yet(ex) || !ex->n_salient)
		return;
	size_t order[SALIENT_MAX], no = 0;
	for (size_t i = 0; i < ex->n_salient; i++)
		if (ex->salient[i].code_index >= 0 && code_names_cause(ex, ex->salient[i].code_index))
			order[no++] = i;
	for (size_t a = 1; a < no; a++)
		for (size_t b = a; b > 0 && ex->salient[order[b]].line < ex->salient[order[b - 1]].line;
		     b--) {
			size_t t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	/* copies: a cause's match may take its line back out of the salient lines (a notice) */
	struct ga_explain_salient kept[SALIENT_MAX];
	for (size_t i = 0; i < no; i++)
		kept[i] = ex->salient[order[i]];
	uint64_t lines = ex->lines;
	for (size_t i = 0; i < no; i++) {
		ex->lines = kept[i].line;
		code_cause(ex, kept[i].code_index, kept[i].text, strlen(kept[i].text));
	}
	ex->lines = lines;
}

/* The cause of code k named by line l (a match of its signature or of its group's). */
static void code_cause(struct ga_explain *ex, long k, const char *l, size_t n)
{
	enum ga_errcode_group g = (enum ga_errcode_group)ex->ecx.group[k];
	if (g == GA_ECG_NOT_ERROR)
		return;
	if (ex->code_sig[k] >= 0) {
		code_as_sig(ex, (unsigned)ex->code_sig[k], k, l, n);
		return;
	}
	if (g == GA_ECG_UNSPECIFIED || g >= GA_ECG__COUNT) {
		if (no_cause_yet(ex)) {
			char t[160], d[sizeof(ex->salient[0].code)];
			code_text(k, t, sizeof(t));
			snprintf(d, sizeof(d), "%s: the vendor's description names no cause", t);
			salient_code(ex, l, n, d);
		}
		return;
	}
	struct code_hit *h = NULL;
	for (size_t i = 0; i < ex->n_codes && !h; i++)
		if (ex->codes[i].code == k)
			h = &ex->codes[i];
	if (!h && ex->n_codes < CODE_HITS) {
		h = &ex->codes[ex->n_codes++];
		memset(h, 0, sizeof(*h));
		h->code = k;
		h->first_line = ex->lines;
	} else if (!h) {
		ex->codes_dropped++;
	}
	if (h)
		h->count++;
	code_as_sig(ex, (unsigned)(SIG__COUNT + g), k, l, n);
}

/* The line as a match of sig (a signature, or a group's), with the code captured. */
static void code_as_sig(struct ga_explain *ex, unsigned sig, long k, const char *l, size_t n)
{
	struct ga_explain_match tmp,
	        *mt = ex->n_matches < ex->max_matches ? &ex->matches[ex->n_matches++] : &tmp;
	memset(mt, 0, sizeof(*mt));
	mt->line = ex->lines;
	mt->sig = sig;
	clean_copy(mt->text, sizeof(mt->text), l, n);
	snprintf(mt->cap[0].key, sizeof(mt->cap[0].key), "code");
	snprintf(mt->cap[0].value, sizeof(mt->cap[0].value), "%s", ga_errcode_get((size_t)k)->name);
	mt->n_cap = 1;
	struct ga_explain_cause *c = count_match(ex, sig);
	add_value(c, &mt->cap[0]);
	ex->matched++;
	count_acted(ex, sig, l, n);
}

/* Match one line (already counted in ex->lines); only its first LINE_MAX bytes. */
static void match_line(struct ga_explain *ex, const char *line, size_t len)
{
	if (len > GA_EXPLAIN_LINE_MAX)
		len = GA_EXPLAIN_LINE_MAX;
	bool copied = false;
	int best_w = -1;
	size_t best = 0;
	regmatch_t m[MAX_GROUPS], best_m[MAX_GROUPS];
	for (size_t i = 0; i < N_PATS; i++) {
		if (sigs[pats[i].sig].weight <= best_w)
			continue;
		if (!memmem(line, len, pats[i].literal, ex->lit_len[i]))
			continue;
		if (!copied) {
			/* regexec wants a C string: NULs in the line become spaces */
			for (size_t k = 0; k < len; k++)
				ex->scratch[k] = line[k] ? line[k] : ' ';
			ex->scratch[len] = '\0';
			copied = true;
		}
		if (ex->re_state[i] == 0)
			ex->re_state[i] = regcomp(&ex->re[i], pats[i].regex, REG_EXTENDED) == 0 ? 1 : 2;
		if (ex->re_state[i] != 1 || regexec(&ex->re[i], ex->scratch, MAX_GROUPS, m, 0) != 0)
			continue;
		/* a row whose match is also a comparison of the line's figures; the next pattern
		 * (gpu-out-of-memory for a plausible figure) may still take the line */
		if (pats[i].sig == SIG_GPU_MEMORY_ACCOUNTING_BOGUS &&
		    !free_above_total(&pats[i], ex->scratch, m))
			continue;
		best_w = sigs[pats[i].sig].weight;
		best = i;
		memcpy(best_m, m, sizeof(m));
	}
	if (best_w >= 0)
		record(ex, best, ex->scratch, len, best_m);
	else
		code_line(ex, line, len);
}

/*
 * Does the line hold one of the scan's literals? scan_block matches only
 * such lines (the Wu-Manber prefilter); a line that reaches match_line
 * another way (one cut across two pieces of input, the last without a
 * newline) must pass the same test, or a log fed in pieces would be read
 * differently from the same log fed whole (fuzz_explain found "opcode 1"
 * read as NCCL code 1 on a line cut in two).
 */
static bool any_literal(const struct ga_explain *ex, const char *line, size_t len)
{
	for (size_t j = 0; j < ex->n_lits; j++)
		if (memmem(line, len, ex->lit_s[j], ex->lit_len[j]))
			return true;
	return false;
}

int ga_explain_line(struct ga_explain *ex, const char *line, size_t len)
{
	ex->lines++;
	if (no_cause_yet(ex))
		salient_line(ex, line, len > GA_EXPLAIN_LINE_MAX ? GA_EXPLAIN_LINE_MAX : len);
	if (any_literal(ex, line, len))
		match_line(ex, line, len);
	return 0;
}

/* Newlines in [s, e): eight bytes at a time (a byte is '\n' when w ^ 0x0a.. has a zero byte). */
static uint64_t count_nl(const char *s, const char *e)
{
	uint64_t n = 0;
	const uint64_t ones7 = 0x7f7f7f7f7f7f7f7full, nl = 0x0a0a0a0a0a0a0a0aull;
	for (; s + 8 <= e; s += 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		w ^= nl;
		uint64_t t = ((w & ones7) + ones7) | w; /* high bit set in every non-zero byte */
		n += (uint64_t)__builtin_popcountll(~t & ~ones7);
	}
	for (; s < e; s++)
		n += *s == '\n';
	return n;
}

/* Complete lines: s is a line start, e[-1] == '\n'. */
static void scan_block(struct ga_explain *ex, const char *s, const char *e)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = (size_t)(e - s), m = ex->wm_m;
	const char *counted = s;
	size_t pos = m - 1; /* end of the window */
	/* while nothing is known, the error-looking lines are kept for an inconclusive report */
	if (no_cause_yet(ex))
		salient_block(ex, s, e);
	while (pos < n) {
		unsigned h = wm_hash(u + pos - (WM_B - 1));
		size_t sh = ex->shift[h];
		if (sh) {
			pos += sh;
			continue;
		}
		size_t st = pos + 1 - m; /* window start */
		bool hit = false;
		for (int j = ex->head[h]; j >= 0 && !hit; j = ex->next[j])
			hit = st + ex->lit_len[j] <= n && !memcmp(s + st, ex->lit_s[j], ex->lit_len[j]);
		if (!hit) {
			pos++;
			continue;
		}
		const char *at = s + st;
		const char *ls = at;
		while (ls > counted && ls[-1] != '\n')
			ls--;
		const char *le = memchr(at, '\n', (size_t)(e - at));
		ex->lines += count_nl(counted, ls) + 1;
		match_line(ex, ls, (size_t)(le - ls));
		counted = le + 1;
		pos = (size_t)(le + 1 - s) + m - 1;
	}
	ex->lines += count_nl(counted, e);
}

static void carry_add(struct ga_explain *ex, const char *p, size_t n)
{
	size_t room = GA_EXPLAIN_LINE_MAX - ex->carry_len;
	if (n > room)
		n = room;
	memcpy(ex->carry + ex->carry_len, p, n);
	ex->carry_len += n;
	ex->carry_open = true;
}

static int feed_text(struct ga_explain *ex, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	if (!len)
		return 0;
	if (ex->carry_open) {
		const char *nl = memchr(p, '\n', len);
		carry_add(ex, p, (size_t)((nl ? nl : end) - p));
		if (!nl)
			return 0;
		ga_explain_line(ex, ex->carry, ex->carry_len);
		ex->carry_len = 0;
		ex->carry_open = false;
		p = nl + 1;
	}
	const char *last = p < end ? memrchr(p, '\n', (size_t)(end - p)) : NULL;
	if (last) {
		scan_block(ex, p, last + 1);
		p = last + 1;
	}
	if (p < end)
		carry_add(ex, p, (size_t)(end - p));
	return 0;
}

/* A byte that starts a log's text in ASCII: printable, tab, line feed or carriage return. */
static bool ascii_text(unsigned char c)
{
	return (c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n' || c == '\r';
}

/* A UTF-16 code unit that is no character (a lone surrogate), or a unit cut off at the end. */
static void u16_invalid(struct ga_explain *ex)
{
	ex->u16_invalid++;
	feed_text(ex, "\xef\xbf\xbd", 3);
}

/*
 * Convert n bytes of UTF-16 and scan the UTF-8; the number of bytes left at the end that do not
 * make a whole unit or surrogate pair yet (0 to 3). A unit that is no character becomes U+FFFD.
 */
static size_t u16_convert(struct ga_explain *ex, const char *p, size_t n)
{
	char out[16384];
	char *in = (char *)p;
	size_t inleft = n;
	while (inleft) {
		char *op = out;
		size_t ol = sizeof(out);
		size_t r = iconv(ex->u16, &in, &inleft, &op, &ol);
		int e = errno;
		if (op > out)
			feed_text(ex, out, (size_t)(op - out));
		if (r != (size_t)-1 || e == E2BIG)
			continue;
		if (e == EINVAL && inleft < 4)
			return inleft;
		if (inleft < 2)
			return inleft;
		u16_invalid(ex);
		in += 2;
		inleft -= 2;
	}
	return 0;
}

/*
 * A UTF-16 input (Windows PowerShell 5's > and Out-File write UTF-16LE with a byte-order mark;
 * so do logs exported by Windows tools) is scanned as UTF-8, converted by iconv a chunk at a
 * time; a unit or surrogate pair cut between two feeds waits in u16_carry.
 */
static int feed_utf16(struct ga_explain *ex, const char *buf, size_t len)
{
	while (ex->u16_carry_n && len) {
		ex->u16_carry[ex->u16_carry_n++] = *buf++;
		len--;
		if (ex->u16_carry_n != 2 && ex->u16_carry_n != 4)
			continue;
		size_t k = u16_convert(ex, ex->u16_carry, ex->u16_carry_n);
		if (k == 4) { /* cannot complete: give its first unit up */
			u16_invalid(ex);
			k = 2;
		}
		memmove(ex->u16_carry, ex->u16_carry + ex->u16_carry_n - k, k);
		ex->u16_carry_n = k;
	}
	if (!len)
		return 0;
	size_t k = u16_convert(ex, buf, len);
	memcpy(ex->u16_carry, buf + len - k, k);
	ex->u16_carry_n = k;
	return 0;
}

int ga_explain_feed(struct ga_explain *ex, const char *buf, size_t len)
{
	if (!len)
		return 0;
	if (ex->enc == ENC_UNDECIDED) {
		/* up to four first bytes: FF FE / FE FF (UTF-16's mark), EF BB BF (UTF-8's mark,
		 * dropped), or two ASCII characters as UTF-16 without a mark (below) */
		while (len && ex->enc_head_n < 4) {
			ex->enc_head[ex->enc_head_n++] = (unsigned char)*buf++;
			len--;
			if (ex->enc_head_n == 2 && ((ex->enc_head[0] == 0xFF && ex->enc_head[1] == 0xFE) ||
			                            (ex->enc_head[0] == 0xFE && ex->enc_head[1] == 0xFF)))
				break;
			if (ex->enc_head_n == 3 && ex->enc_head[0] == 0xEF && ex->enc_head[1] == 0xBB &&
			    ex->enc_head[2] == 0xBF)
				break;
		}
		const unsigned char *h = ex->enc_head;
		bool le = ex->enc_head_n == 2 && h[0] == 0xFF && h[1] == 0xFE;
		bool be = ex->enc_head_n == 2 && h[0] == 0xFE && h[1] == 0xFF;
		bool u8bom = ex->enc_head_n == 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF;
		if (!le && !be && !u8bom && ex->enc_head_n < 4)
			return 0; /* wait for the fourth byte */
		/* no mark: a log starts with text, and text has no NUL byte in UTF-8; two ASCII
		 * characters each beside a NUL are UTF-16 written without a mark (some Windows
		 * exporters, iconv -t UTF-16LE); the four bytes are then its first two units */
		bool le_bare = !le && !be && !u8bom && ascii_text(h[0]) && !h[1] && ascii_text(h[2]) && !h[3];
		bool be_bare = !le && !be && !u8bom && !h[0] && ascii_text(h[1]) && !h[2] && ascii_text(h[3]);
		if (le || be || le_bare || be_bare) {
			bool lit = le || le_bare;
			ex->u16 = iconv_open("UTF-8", lit ? "UTF-16LE" : "UTF-16BE");
			/* no converter: the log cannot be read, which is no clean result (its NUL-spaced
			 * bytes would match nothing) */
			if (ex->u16 == (iconv_t)-1)
				return -ENOTSUP;
			ex->enc = lit ? ENC_UTF16LE : ENC_UTF16BE;
			if (le_bare || be_bare)
				feed_utf16(ex, (const char *)h, 4);
		} else {
			ex->enc = ENC_AS_IS;
			if (!u8bom)
				feed_text(ex, (const char *)h, ex->enc_head_n);
		}
	}
	if (!len)
		return 0;
	return ex->enc == ENC_AS_IS ? feed_text(ex, buf, len) : feed_utf16(ex, buf, len);
}

/* The input's encoding when it was not read as is: "UTF-16LE" or "UTF-16BE"; NULL otherwise. */
const char *ga_explain_encoding(const struct ga_explain *ex)
{
	int e = ex->enc == ENC_UTF16LE || ex->enc == ENC_UTF16BE ? (int)ex->enc : (int)ex->enc_seen;
	return e == ENC_UTF16LE ? "UTF-16LE" : e == ENC_UTF16BE ? "UTF-16BE" : NULL;
}

int ga_explain_finish(struct ga_explain *ex)
{
	if (ex->enc == ENC_UNDECIDED && ex->enc_head_n) {
		/* fewer than four bytes in all: as they are */
		ex->enc = ENC_AS_IS;
		feed_text(ex, (const char *)ex->enc_head, ex->enc_head_n);
	}
	if (ex->u16_carry_n) {
		/* an odd byte or half a pair at the end: no character */
		ex->u16_carry_n = 0;
		u16_invalid(ex);
	}
	if (ex->carry_open) {
		ga_explain_line(ex, ex->carry, ex->carry_len);
		ex->carry_len = 0;
		ex->carry_open = false;
	}
	promote_salient_codes(ex);
	/* what follows is another input (preflight: stderr, then stdout, then its own signal
	 * line): its first bytes decide its encoding again */
	if (ex->enc == ENC_UTF16LE || ex->enc == ENC_UTF16BE)
		ex->enc_seen = ex->enc;
	ex->enc = ENC_UNDECIDED;
	ex->enc_head_n = 0;
	if (ex->u16 != (iconv_t)-1)
		iconv_close(ex->u16);
	ex->u16 = (iconv_t)-1;
	return 0;
}

uint64_t ga_explain_lines(const struct ga_explain *ex)
{
	return ex->lines;
}

uint64_t ga_explain_match_count(const struct ga_explain *ex)
{
	return ex->matched;
}

uint64_t ga_explain_acted_count(const struct ga_explain *ex)
{
	return ex->acted;
}

const struct ga_explain_match *ga_explain_matches(const struct ga_explain *ex, size_t *n)
{
	*n = ex->n_matches;
	return ex->matches;
}

static int cause_score(const struct ga_explain_cause *c)
{
	return c->score ? c->score : ga_explain_sig(c->sig)->weight;
}

static int cmp_cause(const void *a, const void *b)
{
	const struct ga_explain_cause *x = *(const struct ga_explain_cause *const *)a;
	const struct ga_explain_cause *y = *(const struct ga_explain_cause *const *)b;
	/* a notice (action none) never ranks above a cause that acts: its weight only lets it
	 * claim its own line from a broader row (libibverbs' provider warning from loader-soname) */
	bool nx = x->action == GA_ACT_NONE, ny = y->action == GA_ACT_NONE;
	if (nx != ny)
		return nx ? 1 : -1;
	int sx = cause_score(x), sy = cause_score(y);
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->first_line != y->first_line)
		return x->first_line < y->first_line ? -1 : 1;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

/* Most severe first: the action's urgency, then severity, then the first line. */
static int cmp_pair(const void *a, const void *b)
{
	const struct xid_pair *x = a, *y = b;
	int rx = ga_action_rank(x->act), ry = ga_action_rank(y->act);
	if (rx != ry)
		return rx > ry ? -1 : 1;
	if (x->sev != y->sev)
		return x->sev > y->sev ? -1 : 1;
	return x->first_line < y->first_line ? -1 : x->first_line > y->first_line;
}

/*
 * Every (GPU, Xid) of the log, most severe first, each with its catalogue
 * description and action; the class is the most severe one's (an Xid the
 * catalogue does not publish: the driver).
 */
static void xid_detail(struct ga_explain *ex, struct ga_explain_cause *c)
{
	c->detail[0] = '\0';
	c->cause_class = ga_explain_sig(c->sig)->cause_class;
	c->action = ga_explain_sig(c->sig)->action;
	if (c->sig != SIG_XID || !ex->n_xids)
		return;
	qsort(ex->xids, ex->n_xids, sizeof(ex->xids[0]), cmp_pair);
	struct ga_xid_info top;
	ga_xid_lookup(ex->xids[0].xid, &top);
	c->cause_class = ex->xids[0].lost && !ex->xids[0].by_line ? GA_CAUSE_NODE_HARDWARE : top.cause;
	if (c->cause_class == GA_CAUSE_UNKNOWN)
		c->cause_class = GA_CAUSE_DRIVER;
	c->action = ex->xids[0].act; /* the most urgent pair's: the catalogue row or the line's words */
	size_t cap = sizeof(c->detail), shown = 0;
	for (size_t i = 0; i < ex->n_xids; i++) {
		const struct xid_pair *x = &ex->xids[i];
		struct ga_xid_info xi;
		int known = ga_xid_lookup(x->xid, &xi);
		char one[320], sub[96] = "";
		if (x->link.set && x->xid >= 144 && x->xid <= 150)
			snprintf(sub, sizeof(sub), " link %llu", (unsigned long long)x->link.v);
		if (x->nvl_unit[0]) {
			size_t sl = strlen(sub);
			snprintf(sub + sl, sizeof(sub) - sl, " %s 0x%08llx", x->nvl_unit,
			         (unsigned long long)x->nvl_status.v);
		}
		snprintf(one, sizeof(one), "%sXid %llu on %s%s (%s): %s%s%s%s", shown ? "; " : "",
		         (unsigned long long)x->xid, x->address[0] ? x->address : "an unnamed GPU", sub,
		         !known      ? "not in NVIDIA's catalogue"
		         : xi.unused ? "listed unused by NVIDIA"
		                     : xi.name,
		         ga_action_name(x->act), x->by_line ? ", by the line's words" : "",
		         known && xi.immediate != GA_XB_NONE_GIVEN ? ", NVIDIA: " : "",
		         known ? ga_xid_bucket_name(xi.immediate) : "");
		size_t l = strlen(c->detail);
		/* room for this one and for the "and N more" tail */
		if (l + strlen(one) + 48 >= cap)
			break;
		snprintf(c->detail + l, cap - l, "%s", one);
		shown++;
	}
	uint64_t more = (uint64_t)(ex->n_xids - shown) + ex->xids_dropped;
	if (more) {
		size_t l = strlen(c->detail);
		snprintf(c->detail + l, cap - l, "; and %llu more (GPU, Xid) pair%s",
		         (unsigned long long)more, more == 1 ? "" : "s");
	}
}

/*
 * Every (NVSwitch, SXid) of the log, most severe first, each with the Fabric
 * Manager guide's name and table and gpuaudit's action; the cause's action is
 * the most urgent pair's.
 */
static void sxid_detail(struct ga_explain *ex, struct ga_explain_cause *c)
{
	if (c->sig != SIG_SXID || !ex->n_sxids)
		return;
	qsort(ex->sxids, ex->n_sxids, sizeof(ex->sxids[0]), cmp_pair);
	c->action = ex->sxids[0].act;
	size_t cap = sizeof(c->detail), shown = 0;
	c->detail[0] = '\0';
	for (size_t i = 0; i < ex->n_sxids; i++) {
		const struct xid_pair *x = &ex->sxids[i];
		char link[32] = "", what[128], one[320];
		if (x->link.set)
			snprintf(link, sizeof(link), " link %llu", (unsigned long long)x->link.v);
		ga_sxid_words(x->xid, 1, what, sizeof(what));
		snprintf(one, sizeof(one), "%sSXid %llu on %s%s (%s): %s%s, x%llu", shown ? "; " : "",
		         (unsigned long long)x->xid, x->address[0] ? x->address : "an unnamed NVSwitch", link,
		         what, ga_action_name(x->act), x->by_line ? ", the line says Fatal" : "",
		         (unsigned long long)x->count);
		size_t l = strlen(c->detail);
		if (l + strlen(one) + 48 >= cap)
			break;
		snprintf(c->detail + l, cap - l, "%s", one);
		shown++;
	}
	uint64_t more = (uint64_t)(ex->n_sxids - shown) + ex->sxids_dropped;
	if (more) {
		size_t l = strlen(c->detail);
		snprintf(c->detail + l, cap - l, "; and %llu more (NVSwitch, SXid) pair%s",
		         (unsigned long long)more, more == 1 ? "" : "s");
	}
}

/*
 * Every device's AER messages of the cause's class, most urgent first, with the
 * error types the detail lines named; the cause's action is the most urgent
 * device's (ga_aer_decide, as health decides: one verdict for the same evidence).
 */
static void aer_detail(struct ga_explain *ex, struct ga_explain_cause *c)
{
	if (c->sig != SIG_AER_CORRECTED && c->sig != SIG_AER_UNCORRECTED)
		return;
	bool unc = c->sig == SIG_AER_UNCORRECTED;
	size_t cap = sizeof(c->detail), shown = 0, listed = 0;
	int best = -1;
	c->detail[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		/* the fatal ones first, then the rest */
		for (size_t i = 0; i < ex->n_aers; i++) {
			const struct aer_pair *a = &ex->aers[i];
			if ((a->cls != GA_AER_CORRECTED) != unc || (pass == 0) != (a->cls == GA_AER_FATAL))
				continue;
			listed++;
			enum ga_action act;
			enum ga_severity sev;
			bool storm = ga_aer_decide(a->cls, a->types, a->messages, &act, &sev);
			if (best < 0 || ga_action_rank(act) > ga_action_rank(c->action)) {
				c->action = act;
				best = (int)i;
			}
			char types[160], one[320];
			ga_aer_types_text(unc, a->types, types, sizeof(types));
			snprintf(one, sizeof(one), "%s%s%s: %llu message%s%s%s%s: %s%s", shown ? "; " : "",
			         a->address[0] ? a->address : "an unnamed device",
			         a->cls == GA_AER_FATAL      ? " fatal"
			         : a->cls == GA_AER_NONFATAL ? " non-fatal"
			                                     : "",
			         (unsigned long long)a->messages, a->messages == 1 ? "" : "s",
			         types[0] ? " (" : "", types, types[0] ? ")" : "", ga_action_name(act),
			         storm ? ", a storm (10 or more of one type)" : "");
			size_t l = strlen(c->detail);
			if (l + strlen(one) + 48 >= cap)
				continue;
			snprintf(c->detail + l, cap - l, "%s", one);
			shown++;
		}
	}
	uint64_t more = (uint64_t)(listed - shown) + ex->aers_dropped;
	if (more && c->detail[0]) {
		size_t l = strlen(c->detail);
		snprintf(c->detail + l, cap - l, "; and %llu more device%s", (unsigned long long)more,
		         more == 1 ? "" : "s");
	}
}

/*
 * NCCL's IB completion statuses (enum ibv_wc_status, rdma-core verbs.h): the
 * name of each captured one, and the class: local protection and remote
 * access errors come from memory registration (GPUDirect RDMA set-up), the
 * rest from the fabric.
 */
static void wc_detail(struct ga_explain_cause *c)
{
	static const char *const names[] = {
		[1] = "IBV_WC_LOC_LEN_ERR",        [2] = "IBV_WC_LOC_QP_OP_ERR",
		[3] = "IBV_WC_LOC_EEC_OP_ERR",     [4] = "IBV_WC_LOC_PROT_ERR",
		[5] = "IBV_WC_WR_FLUSH_ERR",       [6] = "IBV_WC_MW_BIND_ERR",
		[7] = "IBV_WC_BAD_RESP_ERR",       [8] = "IBV_WC_LOC_ACCESS_ERR",
		[9] = "IBV_WC_REM_INV_REQ_ERR",    [10] = "IBV_WC_REM_ACCESS_ERR",
		[11] = "IBV_WC_REM_OP_ERR",        [12] = "IBV_WC_RETRY_EXC_ERR",
		[13] = "IBV_WC_RNR_RETRY_EXC_ERR",
	};
	if (c->sig != SIG_NCCL_IB_COMPLETION)
		return;
	bool memreg = false, other = false;
	for (size_t i = 0; i < c->n_values; i++) {
		if (strcmp(c->values[i].key, "wc_status"))
			continue;
		char *end = NULL;
		unsigned long v = strtoul(c->values[i].value, &end, 10);
		if (!end || *end)
			continue;
		bool mr = v == 4 || v == 8 || v == 10;
		memreg |= mr;
		other |= !mr;
		size_t l = strlen(c->detail);
		const char *name =
		        v < sizeof(names) / sizeof(names[0]) && names[v] ? names[v] : "not a known status";
		snprintf(c->detail + l, sizeof(c->detail) - l, "%sstatus %lu: %s", l ? "; " : "", v, name);
	}
	if (memreg && !other)
		c->cause_class = GA_CAUSE_CONFIGURATION, c->action = GA_ACT_FIX_CONFIG;
}

/*
 * An amdgpu VM fault cause: the job's (the row's application / restart_workload) unless
 * every fault whose owner the log names is in vmid 0, the kernel driver's or firmware's
 * own address space (vm_fault_owner): then a driver or firmware bug, fixed by another
 * kernel, amdgpu or firmware version (driver / fix_config), not by the job.
 */
static void vm_detail(struct ga_explain *ex, struct ga_explain_cause *c)
{
	if (c->sig != SIG_AMDGPU_VM_FAULT || !ex->vm_kernel)
		return;
	size_t l = strlen(c->detail);
	if (ex->vm_user) {
		snprintf(c->detail + l, sizeof(c->detail) - l,
		         "%s%llu fault%s in vmid 0 (the kernel driver's or firmware's) and %llu in "
		         "processes: the processes' first",
		         l ? "; " : "", (unsigned long long)ex->vm_kernel, ex->vm_kernel == 1 ? "" : "s",
		         (unsigned long long)ex->vm_user);
		return;
	}
	ga_kev_vm_fault_driver(ex->vm_kernel, ex->vm_user, &c->cause_class, &c->action);
	snprintf(c->detail + l, sizeof(c->detail) - l,
	         "%severy fault names vmid 0 (%llu): the kernel driver's or firmware's own address "
	         "space, not a job's: a driver or firmware bug; update the kernel (amdgpu) and "
	         "linux-firmware",
	         l ? "; " : "", (unsigned long long)ex->vm_kernel);
}

/*
 * An uncorrectable RAS error cause: the most urgent decision of its GPUs by the one rule of
 * health and explain (ga_kev_ras_action): a failed reset after it: reboot; a successful reset
 * after every one: restart the jobs; else the row's drain.
 */
static void ras_detail(struct ga_explain *ex, struct ga_explain_cause *c)
{
	if (c->sig != SIG_AMDGPU_RAS_UE)
		return;
	/* restart_workload < drain < reboot: the first GPU with the most urgent decision */
	enum ga_action act = GA_ACT_RESTART_WORKLOAD;
	const struct ras_gpu *worst = NULL;
	int worst_rank = -1;
	for (unsigned i = 0; i < ex->n_ras; i++) {
		const struct ras_gpu *g = &ex->ras[i];
		enum ga_action a = ga_kev_ras_action(g->errors, g->recovered, g->failed != 0);
		int rank = a == GA_ACT_REBOOT ? 2 : a == GA_ACT_DRAIN ? 1 : 0;
		if (rank > worst_rank)
			worst = g, worst_rank = rank, act = a;
	}
	if (!worst)
		return;
	size_t l = strlen(c->detail);
	const char *sep = l ? "; " : "";
	const char *on = worst->addr[0] ? " of " : "", *gpu = worst->addr;
	if (act == GA_ACT_REBOOT) {
		c->action = GA_ACT_REBOOT;
		snprintf(c->detail + l, sizeof(c->detail) - l,
		         "%sthe driver's GPU reset%s%s after it failed: the GPU stays unusable until the "
		         "node reboots",
		         sep, on, gpu);
	} else if (act == GA_ACT_RESTART_WORKLOAD) {
		c->action = GA_ACT_RESTART_WORKLOAD;
		snprintf(c->detail + l, sizeof(c->detail) - l,
		         "%sthe driver's GPU reset after it succeeded: the GPU recovered, the jobs on it "
		         "lost their work",
		         sep);
	} else {
		snprintf(c->detail + l, sizeof(c->detail) - l,
		         "%sno successful GPU reset%s%s after %s in this log: the driver's recovery is "
		         "unconfirmed",
		         sep, on, gpu, worst->recovered ? "the last one" : "it");
	}
}

/* The codes of an error-code cause: name = number (runtime type), action. */
static void code_detail(struct ga_explain *ex, struct ga_explain_cause *c)
{
	if (c->sig < SIG__COUNT)
		return;
	enum ga_errcode_group g = (enum ga_errcode_group)(c->sig - SIG__COUNT);
	size_t cap = sizeof(c->detail);
	for (size_t i = 0; i < ex->n_codes; i++) {
		if (ex->ecx.group[ex->codes[i].code] != g)
			continue;
		char t[200];
		code_text(ex->codes[i].code, t, sizeof(t));
		size_t l = strlen(c->detail);
		snprintf(c->detail + l, cap - l, "%s%s, line %llu%s", l ? "; " : "", t,
		         (unsigned long long)ex->codes[i].first_line,
		         ex->codes[i].count > 1 ? " and later" : "");
	}
	size_t l = strlen(c->detail);
	snprintf(c->detail + l, cap - l, "; action: %s", ga_action_name(ga_errcode_group_get(g)->action));
}

const struct ga_explain_salient *ga_explain_salient_lines(const struct ga_explain *ex, size_t *n,
                                                          uint64_t *total)
{
	*n = ex->n_salient;
	*total = ex->salient_lines;
	return ex->salient;
}

static int cmp_salient(const void *a, const void *b)
{
	const struct ga_explain_salient *x = a, *y = b;
	return x->line < y->line ? -1 : x->line > y->line;
}

const struct ga_explain_cause *ga_explain_causes(struct ga_explain *ex, size_t *n)
{
	qsort(ex->salient, ex->n_salient, sizeof(ex->salient[0]), cmp_salient);
	size_t k = 0;
	for (size_t h = 0; h < ex->n_hit; h++) {
		size_t i = ex->hit[h];
		struct ga_explain_cause *c = &ex->causes[i];
		c->score = cause_score(c);
		xid_detail(ex, c);
		sxid_detail(ex, c);
		aer_detail(ex, c);
		wc_detail(c);
		code_detail(ex, c);
		vm_detail(ex, c);
		ras_detail(ex, c);
		if (ex->for_class[i])
			c->cause_class = (enum ga_cause)(ex->for_class[i] - 1);
		if (ex->for_action[i])
			c->action = (enum ga_action)(ex->for_action[i] - 1);
		ex->ranked[k++] = c;
	}
	qsort(ex->ranked, k, sizeof(ex->ranked[0]), cmp_cause);
	for (size_t i = 0; i < k; i++)
		ex->ranked_copy[i] = *ex->ranked[i];
	*n = k;
	return ex->ranked_copy;
}

/* --- the result as a document (the tables are lib/model/explain.c) --- */

static char *dup_or_null(const char *v)
{
	return v ? ga_strdup(v) : NULL;
}

static int fill_caps(const struct ga_capture_kv *kv, size_t n, struct ga_kv **ret, size_t *ret_n)
{
	if (!n)
		return 0;
	if (!(*ret = ga_calloc(n, sizeof(**ret))))
		return -ENOMEM;
	*ret_n = n;
	for (size_t i = 0; i < n; i++)
		if (!((*ret)[i].key = ga_strdup(kv[i].key)) || !((*ret)[i].value = ga_strdup(kv[i].value)))
			return -ENOMEM;
	return 0;
}

static int fill_cause(const struct ga_explain_cause *c, size_t rank, struct ga_explain_doc_cause *d)
{
	const struct ga_signature *s = ga_explain_sig(c->sig);
	GA_SET(d->rank, rank);
	GA_SET(d->score, c->score);
	GA_SET(d->count, c->count);
	GA_SET(d->first_line, c->first_line);
	GA_SET(d->last_line, c->last_line);
	d->id = ga_strdup(s->id);
	d->layer = ga_strdup(s->layer);
	d->cause_class = ga_strdup(ga_cause_class_name(c->cause_class));
	d->action = ga_strdup(ga_action_name(c->action));
	d->error_code = dup_or_null(s->code);
	d->cause = ga_strdup(s->cause);
	d->detail = dup_or_null(c->detail[0] ? c->detail : NULL);
	d->node = dup_or_null(c->node_note);
	d->fix = ga_strdup(s->fix);
	d->next = ga_strdup(s->next);
	if (!d->id || !d->layer || !d->cause_class || !d->action || (s->code && !d->error_code) ||
	    !d->cause || (c->detail[0] && !d->detail) || (c->node_note && !d->node) || !d->fix || !d->next)
		return -ENOMEM;
	return fill_caps(c->values, c->n_values, &d->captured, &d->n_captured);
}

static int fill_result(struct ga_explain *ex, struct ga_explain_result *r)
{
	GA_SET(r->lines, ex->lines);
	GA_SET(r->match_count, ex->matched);
	GA_SET(r->matches_omitted, ex->matched - ex->n_matches);
	size_t nc = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &nc);
	if ((nc && !(r->causes = ga_calloc(nc, sizeof(*r->causes)))) ||
	    (ex->n_matches && !(r->matches = ga_calloc(ex->n_matches, sizeof(*r->matches)))))
		return -ENOMEM;
	r->n_causes = nc;
	r->n_matches = ex->n_matches;
	for (size_t i = 0; i < nc; i++)
		if (fill_cause(&c[i], i + 1, &r->causes[i]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < ex->n_matches; i++) {
		const struct ga_explain_match *m = &ex->matches[i];
		struct ga_explain_doc_match *d = &r->matches[i];
		GA_SET(d->line, m->line);
		if (!(d->id = ga_strdup(ga_explain_sig(m->sig)->id)) || !(d->text = ga_strdup(m->text)) ||
		    fill_caps(m->cap, m->n_cap, &d->captured, &d->n_captured) < 0)
			return -ENOMEM;
	}
	return 0;
}

int ga_explain_result_fill(struct ga_explain *ex, struct ga_explain_result *r)
{
	memset(r, 0, sizeof(*r));
	int e = fill_result(ex, r);
	if (e < 0)
		ga_schema_release(&ga_explain_result_schema, r);
	return e;
}

static int fill_inconclusive(const struct ga_explain *ex, struct ga_explain_report *r)
{
	struct ga_explain_doc_inconclusive *d = ga_calloc(1, sizeof(*d));
	if (!(r->inconclusive = d) || !(d->lines = ga_calloc(ex->n_salient, sizeof(*d->lines))) ||
	    !(d->next = ga_strdup(GA_EXPLAIN_NEXT)))
		return -ENOMEM;
	GA_SET(d->error_lines, ex->salient_lines);
	d->n_lines = ex->n_salient;
	for (size_t i = 0; i < ex->n_salient; i++) {
		const struct ga_explain_salient *s = &ex->salient[i];
		struct ga_explain_doc_line *l = &d->lines[i];
		GA_SET(l->line, s->line);
		if (!(l->component = ga_strdup(s->component)) || !(l->text = ga_strdup(s->text)) ||
		    (s->code[0] && !(l->code = ga_strdup(s->code))))
			return -ENOMEM;
	}
	return 0;
}

int ga_explain_report_fill(struct ga_explain *ex, const char *source, const char *for_file,
                           struct ga_explain_report *r)
{
	memset(r, 0, sizeof(*r));
	r->schema = ga_strdup(GA_EXPLAIN_SCHEMA);
	r->source = dup_or_null(source);
	r->encoding = dup_or_null(ga_explain_encoding(ex));
	r->for_file = dup_or_null(for_file);
	int e = !r->schema || (source && !r->source) || (for_file && !r->for_file) ||
	                        (ga_explain_encoding(ex) && !r->encoding)
	                ? -ENOMEM
	                : fill_result(ex, &r->result);
	if (e == 0 && !ex->acted && ex->n_salient)
		e = fill_inconclusive(ex, r);
	if (e < 0)
		ga_schema_release(&ga_explain_report_schema, r);
	return e;
}

/* --- what the node says (--for) --- */

struct facts {
	size_t n_nvidia, n_amd, n_intel, n_accel;
	const char *nvidia_model, *amd_model;
	const char *nvidia_driver; /* kernel module version */
	const char *cuda;          /* the driver's CUDA version (NVML) */
	const char *rocm;
	char gfx[96]; /* distinct gfx targets */
	bool nvswitch;
};

static void add_word(char *list, size_t cap, const char *w)
{
	if (!w || !*w)
		return;
	size_t wl = strlen(w);
	for (const char *p = list; (p = strstr(p, w)) != NULL; p += wl)
		if ((p == list || p[-1] == ' ') && (p[wl] == '\0' || p[wl] == ','))
			return;
	size_t l = strlen(list);
	snprintf(list + l, cap - l, "%s%s", l ? ", " : "", w);
}

static void gather(const struct ga_node *n, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		f->n_accel++;
		if (a->vendor && !strcmp(a->vendor, "nvidia")) {
			f->n_nvidia++;
			if (!f->nvidia_model)
				f->nvidia_model = a->model;
		} else if (a->vendor && !strcmp(a->vendor, "amd")) {
			f->n_amd++;
			if (!f->amd_model)
				f->amd_model = a->model;
			add_word(f->gfx, sizeof(f->gfx), a->gfx_target);
		} else if (a->vendor && !strcmp(a->vendor, "intel")) {
			f->n_intel++;
		}
	}
	const struct ga_driver *nv = ga_node_driver(n, "nvidia");
	f->nvidia_driver = nv ? nv->version : NULL;
	if (n->nvml && !n->nvml->error) {
		f->cuda = n->nvml->cuda_driver_version;
		if (!f->nvidia_driver)
			f->nvidia_driver = n->nvml->driver_version;
	}
	const struct ga_runtime *rocm = ga_node_runtime(n, "rocm");
	f->rocm = rocm ? rocm->version : NULL;
	for (size_t i = 0; i < n->n_pci; i++)
		if (n->pci[i].kind && !strcmp(n->pci[i].kind, "nvswitch"))
			f->nvswitch = true;
}

/* "8 AMD GPUs (AMD INSTINCT MI250X, gfx90a, ROCm 6.4.0)" and the like. */
static void describe_gpus(const struct facts *f, char *out, size_t cap)
{
	if (f->n_nvidia)
		snprintf(out, cap, "%zu NVIDIA GPU%s (%s, driver %s%s%s)", f->n_nvidia,
		         f->n_nvidia == 1 ? "" : "s", f->nvidia_model ? f->nvidia_model : "model unknown",
		         f->nvidia_driver ? f->nvidia_driver : "unknown", f->cuda ? ", CUDA " : "",
		         f->cuda ? f->cuda : "");
	else if (f->n_amd)
		snprintf(out, cap, "%zu AMD GPU%s (%s%s%s%s%s)", f->n_amd, f->n_amd == 1 ? "" : "s",
		         f->amd_model ? f->amd_model : "model unknown", f->gfx[0] ? ", " : "", f->gfx,
		         f->rocm ? ", ROCm " : "", f->rocm ? f->rocm : "");
	else if (f->n_intel)
		snprintf(out, cap, "%zu Intel GPU%s", f->n_intel, f->n_intel == 1 ? "" : "s");
	else
		snprintf(out, cap, "no accelerator");
}

static bool has_prefix(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

static bool cuda_soname(const char *s)
{
	static const char *const cuda[] = { "libcuda.",   "libcudart",   "libcublas",    "libcufft",
		                            "libcurand",  "libcusparse", "libcusolver",  "libcudnn",
		                            "libnccl",    "libnvrtc",    "libnvJitLink", "libnvToolsExt",
		                            "libnvidia-", "libcupti" };
	for (size_t i = 0; i < sizeof(cuda) / sizeof(cuda[0]); i++)
		if (has_prefix(s, cuda[i]))
			return true;
	return false;
}

static bool rocm_soname(const char *s)
{
	static const char *const rocm[] = { "libamdhip64", "librocblas",       "libhipblas", "libMIOpen",
		                            "librccl",     "libhsa-runtime64", "libroctx",   "librocm_smi",
		                            "libhiprtc",   "librocsolver",     "libhipfft",  "librocfft" };
	for (size_t i = 0; i < sizeof(rocm) / sizeof(rocm[0]); i++)
		if (has_prefix(s, rocm[i]))
			return true;
	return false;
}

/* A CUDA-needing error on this node: what the node has instead. +score when it explains it. */
static int note_cuda_needed(const struct facts *f, const char *what, char *out, size_t cap)
{
	char gpus[256];
	describe_gpus(f, gpus, sizeof(gpus));
	if (!f->n_nvidia && f->n_amd) {
		snprintf(out, cap,
		         "%s and this node has no NVIDIA driver: it has %s; the image carries a CUDA build "
		         "onto an AMD node",
		         what, gpus);
		return 10;
	}
	if (!f->n_nvidia && f->n_accel) {
		snprintf(out, cap,
		         "%s and this node has no NVIDIA GPU: it has %s; the workload is a CUDA build", what,
		         gpus);
		return 10;
	}
	if (!f->n_nvidia) {
		snprintf(out, cap,
		         "%s and this node has no accelerator: a CUDA build scheduled onto a CPU-only node",
		         what);
		return 10;
	}
	snprintf(out, cap, "%s; this node has %s: the driver is there, so the container does not get it",
	         what, gpus);
	return 0;
}

/* "ADDR is GPU [i] of this node (model)" or "... is not an accelerator", appended; true for a GPU. */
static bool addr_note(const struct ga_node *n, const char *addr, char *out, size_t cap)
{
	size_t l = strlen(out), gpu = SIZE_MAX;
	for (size_t i = 0; i < n->n_accelerators && gpu == SIZE_MAX; i++)
		if (n->accelerators[i].address && !strcmp(n->accelerators[i].address, addr))
			gpu = i;
	if (gpu == SIZE_MAX) {
		snprintf(out + l, cap - l, "%s%s is not an accelerator of this node", l ? "; " : "", addr);
		return false;
	}
	const char *model = n->accelerators[gpu].model;
	snprintf(out + l, cap - l, "%s%s is GPU [%zu] of this node (%s)", l ? "; " : "", addr, gpu,
	         model ? model : "model unknown");
	return true;
}

/*
 * Who may open the node's AMD/Intel compute device nodes (/dev/kfd, /dev/dri/renderD*), from
 * the snapshot's container layer: "/dev/kfd root:root 0660; 8 render nodes root:render 0660".
 * True when one of them only root can open (group root, or no group read-write bits).
 * groups (may be NULL): the distinct groups, root aside, that may open one, as "render, video".
 */
static bool dev_access(const struct ga_node *n, char *out, size_t cap, char *groups, size_t gcap)
{
	out[0] = '\0';
	if (groups)
		groups[0] = '\0';
	const struct ga_container_runtime *cr = n->container_runtime;
	if (!cr)
		return false;
	bool root_only = false;
	size_t n_render = 0;
	const struct ga_ctr_device *render = NULL;
	for (size_t i = 0; i < cr->n_devices; i++) {
		const struct ga_ctr_device *d = &cr->devices[i];
		if (!d->path)
			continue;
		bool kfd = !strcmp(d->path, "/dev/kfd");
		bool rnd = has_prefix(d->path, "/dev/dri/renderD");
		if (!kfd && !rnd)
			continue;
		unsigned long mode = d->mode ? strtoul(d->mode, NULL, 8) : 0;
		bool only_root = (d->gid.set && d->gid.v == 0) || (d->mode && (mode & 060) != 060);
		root_only |= only_root;
		if (groups && !only_root && d->group && strcmp(d->group, "root"))
			add_word(groups, gcap, d->group);
		if (rnd) {
			n_render++;
			if (!render || only_root)
				render = d;
			continue;
		}
		size_t l = strlen(out);
		snprintf(out + l, cap - l, "%s%s %s:%s %s%s", l ? "; " : "", d->path,
		         d->owner ? d->owner : "?", d->group ? d->group : "?", d->mode ? d->mode : "?",
		         only_root ? " (only root may open it)" : "");
	}
	if (render) {
		size_t l = strlen(out);
		snprintf(out + l, cap - l, "%s%zu render node%s, e.g. %s %s:%s %s", l ? "; " : "", n_render,
		         n_render == 1 ? "" : "s", render->path, render->owner ? render->owner : "?",
		         render->group ? render->group : "?", render->mode ? render->mode : "?");
	}
	return root_only;
}

/*
 * NVIDIA GPUs with MIG enabled in the snapshot (NVML); *known: how many NVIDIA GPUs have a MIG
 * state in it (none without NVML, as with discover --no-vendor).
 */
static size_t mig_gpus(const struct ga_node *n, size_t *known)
{
	size_t k = 0;
	*known = 0;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->vendor || strcmp(a->vendor, "nvidia") || !a->nvml || !a->nvml->mig_enabled.set)
			continue;
		(*known)++;
		if (a->nvml->mig_enabled.v)
			k++;
	}
	return k;
}

/* "12.4" from 12040 */
static void cuda_text(int v, char *out, size_t cap)
{
	snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/*
 * The highest CUDA the node's driver runs: NVML's word when the snapshot has
 * it, else NVIDIA's table by driver branch (ga_cuda_for_driver; a branch past
 * the table stays unknown). *how: where it came from. -1 unknown.
 */
static int node_cuda(const struct facts *f, const char **how)
{
	int v = f->cuda ? ga_deps_dotted_version(f->cuda) : -1;
	if (v > 0) {
		*how = "NVML";
		return v;
	}
	v = ga_cuda_for_driver(f->nvidia_driver);
	*how = v > 0 ? "NVIDIA's driver table, no NVML in the snapshot" : "";
	return v;
}

/*
 * The node's NVIDIA compute capability as 10*major+minor: NVML's when the
 * snapshot has it (the first GPU's), else from the model name
 * (ga_cc_for_model). *how: where it came from. -1 unknown.
 */
static int node_sm(const struct ga_node *n, const char **how)
{
	*how = "";
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->vendor || strcmp(a->vendor, "nvidia"))
			continue;
		int sm = a->nvml && a->nvml->compute_capability
		                 ? ga_deps_parse_sm(a->nvml->compute_capability)
		                 : -1;
		if (sm > 0) {
			*how = "NVML";
			return sm;
		}
		int cc = ga_cc_for_model(a->model);
		if (cc > 0) {
			*how = "from the model name, no NVML in the snapshot";
			return cc;
		}
		return -1;
	}
	return -1;
}

/* "sm_90" is a word of list ("sm_50 sm_60 sm_90"; "gfx90a" of "gfx90a:xnack-, gfx942") */
static bool has_word(const char *list, const char *w)
{
	size_t wl = strlen(w);
	for (const char *p = list; p && (p = strstr(p, w)) != NULL; p += wl)
		if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
		    (p[wl] == '\0' || p[wl] == ' ' || p[wl] == ',' || p[wl] == ':'))
			return true;
	return false;
}

/*
 * Who may open /dev/kfd and the render nodes, and what that means for a
 * process that found no AMD GPU or was refused one, appended to out.
 * +score when only root may open one (the likely cause).
 */
static int note_dev_access(const struct ga_node *n, char *out, size_t cap)
{
	char acc[320], groups[96];
	bool root_only = dev_access(n, acc, sizeof(acc), groups, sizeof(groups));
	size_t l = strlen(out);
	if (!acc[0]) {
		snprintf(out + l, cap - l,
		         "%swho may open /dev/kfd and /dev/dri/renderD* is not in the snapshot (unknown)",
		         l ? "; " : "");
		return 0;
	}
	if (root_only)
		snprintf(out + l, cap - l,
		         "%s%s: only root may open a compute device node, the likely cause (install the "
		         "vendor's udev rules)",
		         l ? "; " : "", acc);
	else if (groups[0])
		snprintf(out + l, cap - l,
		         "%s%s: the user (or the container: --group-add) needs the group%s %s", l ? "; " : "",
		         acc, strchr(groups, ',') ? "s" : "", groups);
	else
		snprintf(out + l, cap - l, "%s%s", l ? "; " : "", acc);
	return root_only ? 10 : 5;
}

/*
 * "no CUDA-capable device" on a node with NVIDIA GPUs: its MIG state. A GPU in
 * MIG mode offers CUDA its MIG devices only: none when it has no GPU and
 * compute instance, and a process must name them (CUDA_VISIBLE_DEVICES=
 * MIG-<uuid>). A MIG cause is the node's configuration (class and action set).
 */
/* --for refines cause c to class k, action a (ga_explain_causes applies it) */
static void refine(struct ga_explain *ex, const struct ga_explain_cause *c, enum ga_cause k, enum ga_action a)
{
	size_t i = (size_t)(c - ex->causes);
	ex->for_class[i] = (uint8_t)(k + 1);
	ex->for_action[i] = (uint8_t)(a + 1);
}

/* the DKMS module's name: the last component of its tree ("/var/lib/dkms/nvidia-current") */
static const char *dkms_module(const char *tree)
{
	const char *s = strrchr(tree, '/');
	return s ? s + 1 : tree;
}

/*
 * NVML's "Driver/library version mismatch": the user-space libraries and the loaded module are
 * different versions. A reboot fixes it only when the module it will load is the libraries'
 * version; where DKMS provides the module, its tree says which version it installed for the
 * running kernel (docs/explain.md, "With --for SNAPSHOT"). Reboot when that is the libraries'
 * version (confirmed), fix_config when it is not (a reboot would load another version again),
 * the image's own libraries in a container; unknown without a DKMS tree in the snapshot (the
 * row's reboot stays, unconfirmed).
 */
static int note_nvml_mismatch(struct ga_explain *ex, const struct ga_explain_cause *c,
                              const struct ga_node *n, char *out, size_t cap)
{
	const struct ga_driver *d = ga_node_driver(n, "nvidia");
	const struct ga_runtime *lib = ga_node_nvidia_userspace(n);
	if (!d) {
		snprintf(out, cap, "the nvidia driver is not in the snapshot (unknown)");
		return 0;
	}
	const char *kr = n->host.kernel_release;
	size_t l = (size_t)snprintf(out, cap, "this node's nvidia kernel module is %s (module %s, /proc %s)",
	                            d->version ? d->version : "unknown",
	                            d->module_version ? d->module_version : "unknown",
	                            d->proc_version ? d->proc_version : "unknown");
	if (l >= cap)
		return 0;
	if (!d->version || !lib) {
		snprintf(out + l, cap - l,
		         "; whether the driver libraries match it is unknown (%s not in the snapshot)",
		         !d->version ? "the module's version" : "libnvidia-ml's version");
		return 0;
	}
	if (!strcmp(d->version, lib->version)) {
		snprintf(out + l, cap - l,
		         "; %s is %s as well: no mismatch in this snapshot (the log came from a container "
		         "with its own driver libraries, or from before a reboot)",
		         lib->name, lib->version);
		return 0;
	}
	if (n->host.virt.container) {
		snprintf(out + l, cap - l,
		         "; the container's %s is %s: the image carries its own driver libraries instead of "
		         "the host's (the container toolkit mounts the host's); rebuild it without them",
		         lib->path ? lib->path : lib->name, lib->version);
		refine(ex, c, GA_CAUSE_CONFIGURATION, GA_ACT_FIX_CONFIG);
		return 10;
	}
	if (!d->dkms_tree && d->module_file_version) {
		/* the module file installed for the running kernel (its .modinfo), however it was
		 * installed: the module a reboot loads */
		bool same = !strcmp(d->module_file_version, lib->version);
		snprintf(out + l, cap - l,
		         same ? "; %s is %s and the module installed for the running kernel %s (%s) is %s: a "
		                "reboot loads it, matching the libraries"
		              : "; %s is %s but the module installed for the running kernel %s (%s) is %s: a "
		                "reboot would load a module of another version again; install the driver's "
		                "module and libraries as one version (the packages of one release), then "
		                "reboot",
		         lib->name, lib->version, kr ? kr : "(unknown)", d->module_file,
		         d->module_file_version);
		refine(ex, c, GA_CAUSE_DRIVER, same ? GA_ACT_REBOOT : GA_ACT_FIX_CONFIG);
		return 10;
	}
	if (!d->dkms_tree) {
		snprintf(out + l, cap - l,
		         "; %s is %s: whether a module of %s is installed for kernel %s is unknown (no DKMS "
		         "tree in the snapshot: modinfo -F version nvidia); if it is, a reboot loads it",
		         lib->name, lib->version, lib->version, kr ? kr : "(unknown)");
		return 0;
	}
	if (ga_strv_contains(&d->dkms_installed, lib->version)) {
		snprintf(out + l, cap - l,
		         "; %s is %s and DKMS (%s) has installed nvidia %s for the running kernel %s: a "
		         "reboot loads it, matching the libraries",
		         lib->name, lib->version, d->dkms_tree, lib->version, kr ? kr : "(unknown)");
		refine(ex, c, GA_CAUSE_DRIVER, GA_ACT_REBOOT);
		return 10;
	}
	char inst[160] = "nothing";
	size_t il = 0;
	for (size_t i = 0; i < d->dkms_installed.n && il < sizeof(inst); i++)
		il += (size_t)snprintf(inst + il, sizeof(inst) - il, "%s%s", i ? ", " : "",
		                       d->dkms_installed.v[i]);
	snprintf(out + l, cap - l,
	         "; %s is %s but DKMS (%s) has installed %s for the running kernel %s, not %s: a "
	         "reboot would not load a module of the libraries' version; install it (dkms install "
	         "%s/%s -k %s) or reinstall the driver packages as one set, then reboot",
	         lib->name, lib->version, d->dkms_tree, inst, kr ? kr : "(unknown)", lib->version,
	         dkms_module(d->dkms_tree), lib->version, kr ? kr : "$(uname -r)");
	refine(ex, c, GA_CAUSE_DRIVER, GA_ACT_FIX_CONFIG);
	return 10;
}

/*
 * cudaErrorUnknown (999, 30 before CUDA 10.1) names no step; the node tells the
 * cases the threads concluded apart (docs/explain.md, "With --for SNAPSHOT"):
 * the nvidia module not loaded (load it: fix_config), a libcuda whose version is
 * not the loaded module's (CUDA's forward-compatibility libcuda under a compat/
 * directory: the GPU's class says whether it can work, fix_config; on the host
 * an update without a reboot: reboot, confirmed; in a container an image that
 * carries its own libcuda: fix_config),
 * /dev/nvidia-uvm missing (fix_config), or none of these (the row's reboot for
 * nvidia_uvm in a bad state stays, unconfirmed). What the snapshot lacks is
 * said to be unknown.
 */
static int note_cuda_unknown(struct ga_explain *ex, const struct ga_explain_cause *c, const struct facts *f,
                             const struct ga_node *n, const char *gpus, char *out, size_t cap)
{
	const struct ga_driver *d = ga_node_driver(n, "nvidia");
	const struct ga_runtime *lib = ga_node_runtime(n, "libcuda");
	if (lib && !lib->version)
		lib = NULL;
	bool uvm_missing = false;
	for (size_t i = 0; i < n->n_accelerators && !uvm_missing; i++)
		uvm_missing = ga_strv_contains(&n->accelerators[i].missing_nodes, "/dev/nvidia-uvm");
	bool ctr = n->host.virt.container != NULL;
	size_t l = (size_t)snprintf(out, cap, "this node has %s", gpus);
	if (l >= cap)
		return 0;
	if (d && d->loaded.set && !d->loaded.v) {
		snprintf(out + l, cap - l,
		         "; the nvidia kernel module is not loaded: CUDA cannot start (modprobe nvidia, "
		         "or nvidia-modprobe; see why it did not load at boot)");
		refine(ex, c, GA_CAUSE_DRIVER, GA_ACT_FIX_CONFIG);
		return 10;
	}
	if (d && d->version && lib && strcmp(d->version, lib->version)) {
		if (lib->path && strstr(lib->path, "/compat/")) {
			/* CUDA's forward-compatibility package (cuda-compat): a newer libcuda over an
			 * older module on purpose, supported on data-centre GPUs only */
			bool dc = ga_gpu_class_for_model(f->nvidia_model) == GA_GPU_CLASS_DATACENTER;
			snprintf(
			        out + l, cap - l,
			        "; %s is CUDA's forward-compatibility libcuda %s over the loaded module %s: "
			        "%s",
			        lib->path, lib->version, d->version,
			        dc ? "supported on this data-centre GPU only with a driver branch the compat "
			             "package lists; check that pairing, or run without the compat path"
			           : "forward compatibility works on data-centre GPUs only; run without the "
			             "compat path (or upgrade the driver)");
			refine(ex, c, GA_CAUSE_CONFIGURATION, GA_ACT_FIX_CONFIG);
			return dc ? 5 : 10;
		}
		if (ctr) {
			snprintf(out + l, cap - l,
			         "; the container's %s is version %s but the host's nvidia module is %s: the "
			         "image carries its own driver library instead of the host's (the container "
			         "toolkit mounts the host's); rebuild it without libcuda",
			         lib->path ? lib->path : "libcuda", lib->version, d->version);
			refine(ex, c, GA_CAUSE_CONFIGURATION, GA_ACT_FIX_CONFIG);
			return 10;
		}
		snprintf(out + l, cap - l,
		         "; libcuda is version %s but the loaded nvidia module is %s: the driver was "
		         "updated and the module not reloaded; a reboot loads the new one",
		         lib->version, d->version);
		refine(ex, c, GA_CAUSE_DRIVER, GA_ACT_REBOOT);
		return 10;
	}
	if (uvm_missing) {
		snprintf(out + l, cap - l,
		         "; /dev/nvidia-uvm is missing%s: CUDA cannot start without it (%s)",
		         ctr ? " in the container" : "",
		         ctr ? "add it to the container's devices" : "nvidia-modprobe -u -c=0");
		refine(ex, c, ctr ? GA_CAUSE_CONTAINER_RUNTIME : GA_CAUSE_DRIVER, GA_ACT_FIX_CONFIG);
		return 10;
	}
	if (!d || !d->version || !lib) {
		snprintf(out + l, cap - l,
		         "; whether libcuda and the loaded module agree is unknown (%s not in the "
		         "snapshot): cat /proc/driver/nvidia/version; ls -l /usr/lib/*/libcuda.so.*",
		         !d || !d->version ? "the module's version" : "libcuda's version");
		return 0;
	}
	snprintf(out + l, cap - l,
	         "; libcuda and the loaded module agree (%s) and /dev/nvidia-uvm %s: not an update "
	         "without a reboot; nvidia_uvm in a bad state (after a suspend) is what is left: "
	         "reload it or reboot",
	         d->version, "is not reported missing");
	refine(ex, c, GA_CAUSE_DRIVER, GA_ACT_REBOOT);
	return 0;
}

static int note_no_device_mig(struct ga_explain *ex, const struct ga_explain_cause *c, const struct facts *f,
                              const struct ga_node *n, const char *gpus, char *out, size_t cap)
{
	size_t known = 0, on = 0, empty = 0, inst = 0, first_empty = SIZE_MAX;
	const char *uuid = NULL;
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!a->vendor || strcmp(a->vendor, "nvidia"))
			continue;
		if (!a->nvml || !a->nvml->mig_enabled.set)
			continue;
		known++;
		if (!a->nvml->mig_enabled.v)
			continue;
		on++;
		inst += a->nvml->n_mig_instances;
		if (!a->nvml->n_mig_instances && first_empty == SIZE_MAX)
			first_empty = i;
		empty += !a->nvml->n_mig_instances;
		for (size_t k = 0; k < a->nvml->n_mig_instances && !uuid; k++)
			uuid = a->nvml->mig_instances[k].uuid;
	}
	if (on && empty) {
		const struct ga_accel *a = &n->accelerators[first_empty];
		/* nvidia-smi -i takes NVML's index (set: the MIG state is NVML's), else the bus id */
		char id[32];
		if (a->nvml->index.set)
			snprintf(id, sizeof(id), "%llu", (unsigned long long)a->nvml->index.v);
		else
			snprintf(id, sizeof(id), "%s", a->address ? a->address : "N");
		snprintf(out, cap,
		         "MIG mode is on for %zu of the node's %zu NVIDIA GPUs, %zu with no MIG instance "
		         "(first GPU [%zu], %s): a GPU in MIG mode offers CUDA no device until a GPU "
		         "instance and a compute instance exist on it; fix here: create them (nvidia-smi "
		         "mig -i %s -cgi PROFILE -C) or turn MIG off on that GPU (nvidia-smi -i %s -mig 0)",
		         on, f->n_nvidia, empty, first_empty, a->model ? a->model : "model unknown", id, id);
		refine(ex, c, GA_CAUSE_CONFIGURATION, GA_ACT_FIX_CONFIG);
		return 10;
	}
	if (on) {
		snprintf(out, cap,
		         "MIG mode is on for %zu of the node's %zu NVIDIA GPUs, with %zu MIG device%s%s%s: a "
		         "GPU in MIG mode is seen by CUDA only through its MIG devices; fix here: set "
		         "CUDA_VISIBLE_DEVICES to a MIG device's UUID (MIG-<uuid>, nvidia-smi -L), or "
		         "request a MIG resource (nvidia.com/mig-<profile>) rather than the whole GPU",
		         on, f->n_nvidia, inst, inst == 1 ? "" : "s", uuid ? ", e.g. " : "",
		         uuid ? uuid : "");
		refine(ex, c, GA_CAUSE_CONFIGURATION, GA_ACT_FIX_CONFIG);
		return 5;
	}
	if (known && known == f->n_nvidia) {
		snprintf(out, cap,
		         "this node has %s and MIG mode is off on all of them: not a MIG setup; the driver "
		         "is there, so the process does not get the GPUs (container devices, "
		         "CUDA_VISIBLE_DEVICES)",
		         gpus);
		return 0;
	}
	size_t procmig = n->cdi ? n->cdi->n_mig_devices : 0;
	if (procmig)
		snprintf(out, cap,
		         "this node has %s; the driver exposes %zu MIG device%s "
		         "(/proc/driver/nvidia/capabilities), so MIG mode is on for at least one GPU, "
		         "which ones is unknown (no NVML MIG state in the snapshot): on a GPU in MIG mode "
		         "CUDA_VISIBLE_DEVICES must name a MIG device (MIG-<uuid>, nvidia-smi -L)",
		         gpus, procmig, procmig == 1 ? "" : "s");
	else {
		snprintf(out, cap,
		         "this node has %s: the driver is there, so the container does not get it; MIG "
		         "mode: unknown (no NVML MIG state in the snapshot for %s)",
		         gpus, known ? "some GPUs" : "its GPUs");
		/* the row's class is configuration (most of its threads: no GPU where the job ran); a
		 * node with GPUs, its driver and no MIG device leaves the container's device list */
		refine(ex, c, GA_CAUSE_CONTAINER_RUNTIME, GA_ACT_FIX_CONFIG);
	}
	return 0;
}

/*
 * "the driver is too old" or an image's cuda>= requirement: the highest CUDA
 * the node's driver runs against what the log says was needed (an image's
 * cuda>=X.Y), or against the driver the log itself reports (PyTorch's "found
 * version 12020"). The application's own CUDA runtime is not in these lines:
 * said unknown, never guessed.
 */
static int note_driver_cuda(const struct ga_explain_cause *c, const struct facts *f, char *out, size_t cap)
{
	const char *how = "", *drv = f->nvidia_driver ? f->nvidia_driver : "(version unknown)";
	int have = node_cuda(f, &how);
	enum ga_gpu_class cls = ga_gpu_class_for_model(f->nvidia_model);
	const char *compat = cls == GA_GPU_CLASS_DATACENTER ? "; on this data-centre GPU CUDA forward "
	                                                      "compatibility (cuda-compat) is the other way"
	                     : cls == GA_GPU_CLASS_CONSUMER
	                             ? "; forward compatibility is not an option on a GeForce GPU"
	                             : "";
	if (have < 0) {
		snprintf(out, cap, "this node's driver %s: the highest CUDA it runs is unknown (%s)", drv,
		         f->nvidia_driver ? "a driver branch past NVIDIA's table and no NVML in the snapshot"
		                          : "no driver version in the snapshot");
		return 0;
	}
	char hv[16], nv[16];
	cuda_text(have, hv, sizeof(hv));
	if (c->sig == SIG_CT_CUDA_REQUIRE) {
		const char *cond = ga_capture_get(c->values, c->n_values, "condition");
		int need = has_prefix(cond, "cuda>=") ? ga_deps_dotted_version(cond + 6) : -1;
		if (need > 0 && need > have) {
			int at = -1;
			const char *min = ga_driver_for_cuda(need, &at);
			cuda_text(need, nv, sizeof(nv));
			size_t l = (size_t)snprintf(
			        out, cap,
			        "the image needs CUDA %s and this node's driver %s runs CUDA up "
			        "to %s (%s); fix here: ",
			        nv, drv, hv, how);
			if (l < cap && min)
				snprintf(out + l, cap - l,
				         "a driver %s or newer, or an image for CUDA %s or older%s", min, hv,
				         compat);
			else if (l < cap)
				snprintf(out + l, cap - l, "an image for CUDA %s or older%s", hv, compat);
			return 10;
		}
		if (need > 0) {
			cuda_text(need, nv, sizeof(nv));
			snprintf(out, cap,
			         "the image needs CUDA %s and this node's driver %s runs CUDA %s (%s), which "
			         "meets "
			         "it: a log from another node, or the driver changed since",
			         nv, drv, hv, how);
			return -10;
		}
	} else {
		const char *dc = ga_capture_get(c->values, c->n_values, "driver_cuda");
		long logv = dc ? strtol(dc, NULL, 10) : -1;
		if (logv > 0 && logv != have) {
			cuda_text((int)logv, nv, sizeof(nv));
			snprintf(out, cap,
			         "the log's driver runs CUDA %s and this node's driver %s runs CUDA %s (%s): "
			         "a log "
			         "from another node, or the driver changed since",
			         nv, drv, hv, how);
			return -5;
		}
	}
	snprintf(out, cap,
	         "this node's driver %s runs CUDA up to %s (%s): the application's CUDA is newer (which "
	         "one the log does not say: unknown); fix here: a build for CUDA %s or older (a +cuXYZ "
	         "wheel, an image tag) or a newer driver%s",
	         drv, hv, how, hv, compat);
	return 5;
}

/*
 * No kernel image for the GPU: the node's compute capability against what the
 * log says (PyTorch names the GPU's sm_XY and the build's list of them), and
 * the CUDA release that dropped the arch.
 */
static int note_sm(const struct ga_explain_cause *c, const struct ga_node *n, const char *gpus, char *out,
                   size_t cap)
{
	const char *how = "";
	int sm = node_sm(n, &how);
	if (sm < 0) {
		snprintf(out, cap,
		         "this node has %s; its compute capability is unknown (no NVML in the snapshot and "
		         "the model name is in no table): nvidia-smi --query-gpu=compute_cap --format=csv",
		         gpus);
		return 0;
	}
	char smw[16];
	snprintf(smw, sizeof(smw), "sm_%d", sm);
	size_t l = (size_t)snprintf(out, cap, "this node has %s, compute capability %d.%d (%s, %s)", gpus,
	                            sm / 10, sm % 10, smw, how);
	if (l >= cap)
		return 0;
	const char *logsm = ga_capture_get(c->values, c->n_values, "sm_arch");
	const char *sup = ga_capture_get(c->values, c->n_values, "supported_archs");
	const char *fam = NULL;
	int dropped = ga_cuda_arch_dropped(sm, &fam);
	if (logsm && strcmp(logsm, smw)) {
		snprintf(out + l, cap - l,
		         "; the log's GPU is %s, not this node's %s (a log from another node?)", logsm, smw);
		return -5;
	}
	if (sup && has_word(sup, smw)) {
		snprintf(out + l, cap - l,
		         "; the build lists %s, so it has code for this node (a log from another node?)",
		         smw);
		return -5;
	}
	if (sup) {
		snprintf(out + l, cap - l,
		         "; the build carries %s, not %s; fix here: a build with it "
		         "(TORCH_CUDA_ARCH_LIST=%d.%d, "
		         "-gencode arch=compute_%d,code=%s)",
		         sup, smw, sm / 10, sm % 10, sm, smw);
		return 10;
	}
	if (dropped) {
		char dv[16];
		cuda_text(dropped, dv, sizeof(dv));
		snprintf(
		        out + l, cap - l,
		        "; CUDA %s dropped %s (%s): a build for CUDA %s or newer has no code for this GPU, a "
		        "CUDA %d.x build does",
		        dv, smw, fam ? fam : "?", dv, dropped / 1000 - 1);
		return 10;
	}
	snprintf(out + l, cap - l, "; the binary needs a cubin for %s (or PTX for it or older)", smw);
	return 5;
}

static int note_for(struct ga_explain *ex, const struct ga_explain_cause *c, const struct facts *f,
                    const struct ga_node *n, char *out, size_t cap)
{
	char gpus[256], what[192];
	describe_gpus(f, gpus, sizeof(gpus));
	const char *soname = ga_capture_get(c->values, c->n_values, "soname");
	out[0] = '\0';
	switch (c->sig) {
	case SIG_LOADER_LIBCUDA:
		return note_cuda_needed(f, "libcuda.so.1 missing", out, cap);
	case SIG_LOADER_SONAME:
		if (cuda_soname(soname)) {
			snprintf(what, sizeof(what), "%s missing", soname);
			if (f->n_nvidia) {
				snprintf(out, cap,
				         "%s; this node has %s: the CUDA runtime library is missing from the "
				         "image or its path (install the matching nvidia-*-cu wheel or "
				         "toolkit)",
				         what, gpus);
				return 0;
			}
			return note_cuda_needed(f, what, out, cap);
		}
		if (rocm_soname(soname)) {
			if (!f->n_amd && f->n_nvidia) {
				snprintf(out, cap,
				         "%s missing and this node has no AMD GPU: it has %s; the image "
				         "carries a "
				         "ROCm build onto an NVIDIA node",
				         soname, gpus);
				return 10;
			}
			if (!f->n_amd) {
				snprintf(out, cap, "%s missing and this node has no AMD GPU (%s)", soname,
				         gpus);
				return 10;
			}
			const char *dot = strstr(soname, ".so.");
			if (dot && f->rocm && strncmp(dot + 4, f->rocm, strcspn(f->rocm, ".")) != 0) {
				snprintf(
				        out, cap,
				        "%s is a ROCm %.*s soname and this node runs ROCm %s: the binary was "
				        "built for another ROCm major version",
				        soname, (int)strcspn(dot + 4, "."), dot + 4, f->rocm);
				return 10;
			}
			snprintf(out, cap, "this node has %s; %s is not on the loader path", gpus, soname);
			return 0;
		}
		return 0;
	case SIG_CUDA_NO_DEVICE:
		if (!f->n_nvidia)
			return note_cuda_needed(f, "an NVIDIA GPU was needed", out, cap);
		return note_no_device_mig(ex, c, f, n, gpus, out, cap);
	case SIG_CUDA_UNKNOWN:
		if (!f->n_nvidia)
			return note_cuda_needed(f, "a CUDA call failed", out, cap);
		return note_cuda_unknown(ex, c, f, n, gpus, out, cap);
	case SIG_TORCH_NO_DRIVER:
	case SIG_NVML_INIT:
	case SIG_CONTAINER_GPU:
		return note_cuda_needed(f, "an NVIDIA GPU was needed", out, cap);
	case SIG_CT_NO_DRIVER:
	case SIG_CT_DRIVER_NOT_LOADED:
		if (!f->n_nvidia)
			return note_cuda_needed(f, "the NVIDIA container toolkit needs the host's driver",
			                        out, cap);
		snprintf(out, cap, "this node has %s: the driver is installed, so %s", gpus,
		         c->sig == SIG_CT_NO_DRIVER
		                 ? "the toolkit does not see its libraries (driver root, ldconfig)"
		                 : "its module is not loaded");
		return 0;
	case SIG_CT_CUDA_REQUIRE:
	case SIG_CUDA_DRIVER_OLD:
		if (!f->n_nvidia)
			return note_cuda_needed(f, "a CUDA runtime was loaded", out, cap);
		return note_driver_cuda(c, f, out, cap);
	case SIG_CUDA_NO_IMAGE:
		if (!f->n_nvidia)
			return note_cuda_needed(f, "a CUDA kernel was launched", out, cap);
		return note_sm(c, n, gpus, out, cap);
	case SIG_AMDGPU_VM_FAULT:
	case SIG_AMDGPU_RESET:
	case SIG_AMDGPU_RESET_FAILED:
	case SIG_HSA_RESOURCES:
		if (!f->n_amd) {
			snprintf(out, cap, "this node has no AMD GPU: it has %s (a log from another node?)",
			         gpus);
			return -10;
		}
		snprintf(out, cap, "this node has %s", gpus);
		if (c->sig == SIG_HSA_RESOURCES) {
			/* the runtime's first resource is /dev/kfd: who may open it */
			char acc[320];
			bool root_only = dev_access(n, acc, sizeof(acc), NULL, 0);
			size_t l = strlen(out);
			if (acc[0])
				snprintf(out + l, cap - l, "; %s%s", acc,
				         root_only ? ": only root may open a compute node, the likely cause"
				                   : "");
			return root_only ? 10 : 0;
		}
		return 0;
	case SIG_HIP_NO_BINARY:
	case SIG_HIP_NO_DEVICE: {
		if (!f->n_amd) {
			snprintf(out, cap,
			         "this node has no AMD GPU: it has %s; the workload is a ROCm build", gpus);
			return 10;
		}
		snprintf(out, cap, "this node has %s", gpus);
		if (c->sig == SIG_HIP_NO_DEVICE) {
			/* below a permission-denied line of the same log: that one is the more precise */
			int adj = note_dev_access(n, out, cap);
			return adj > 5 ? 5 : adj;
		}
		const char *want = ga_capture_get(c->values, c->n_values, "gfx_arch");
		size_t l = strlen(out);
		if (want && !has_word(f->gfx, want)) {
			snprintf(out + l, cap - l,
			         "; the log names %s, a target this node does not have (a log "
			         "from another node?)",
			         want);
			return 0;
		}
		if (!f->gfx[0]) {
			snprintf(out + l, cap - l,
			         "; its gfx target is not in the snapshot (unknown): rocminfo | grep gfx on "
			         "the node");
			return 0;
		}
		if (strchr(f->gfx, ','))
			snprintf(out + l, cap - l,
			         "; the binary needs a code object for each of this node's gfx targets (%s: "
			         "PYTORCH_ROCM_ARCH, one --offload-arch each)",
			         f->gfx);
		else
			snprintf(out + l, cap - l,
			         "; the binary needs a code object for %s, this node's gfx target "
			         "(PYTORCH_ROCM_ARCH=%s, --offload-arch=%s)",
			         f->gfx, f->gfx, f->gfx);
		return 5;
	}
	case SIG_CUDA_NOT_INIT:
		snprintf(out, cap, "%s",
		         f->nvswitch ? "this node has NVSwitches: nvidia-fabricmanager must run"
		                     : "this node has no NVSwitch in the snapshot");
		return f->nvswitch ? 5 : 0;
	case SIG_NVML_MISMATCH:
		if (!f->n_nvidia)
			return note_cuda_needed(f, "NVML was used", out, cap);
		return note_nvml_mismatch(ex, c, n, out, cap);
	case SIG_GPU_DEV_PERMISSION: {
		/* the snapshot has the owners of /dev/kfd and the render nodes only */
		bool amd = false, other = false;
		for (size_t v = 0; v < c->n_values; v++) {
			if (strcmp(c->values[v].key, "device"))
				continue;
			bool a = !strcmp(c->values[v].value, "kfd") || has_prefix(c->values[v].value, "dri/");
			amd |= a;
			other |= !a;
		}
		if (other && !amd) {
			snprintf(out, cap,
			         "who may open /dev/%s is not in the snapshot (unknown: it holds the owners "
			         "of "
			         "/dev/kfd and /dev/dri/renderD* only): ls -l /dev/nvidia* on the node; the "
			         "nvidia module's NVreg_DeviceFileGID and NVreg_DeviceFileMode set them",
			         ga_capture_get(c->values, c->n_values, "device"));
			return 0;
		}
		return note_dev_access(n, out, cap);
	}
	case SIG_CUDA_COMPAT_HW:
		if (!f->n_nvidia)
			return 0;
		switch (ga_gpu_class_for_model(f->nvidia_model)) {
		case GA_GPU_CLASS_CONSUMER:
			snprintf(out, cap,
			         "this node has %s: CUDA forward compatibility is not supported on GeForce "
			         "GPUs, so the compat libraries cannot work here; upgrade the driver instead",
			         gpus);
			return 10;
		case GA_GPU_CLASS_PRO:
			snprintf(out, cap,
			         "this node has %s, a professional RTX / Quadro GPU: forward compatibility "
			         "works on select SKUs only; where this one is not among them, upgrade the "
			         "driver instead of shipping cuda-compat",
			         gpus);
			return 5;
		case GA_GPU_CLASS_DATACENTER:
			snprintf(out, cap,
			         "this node has %s, a data-centre GPU: forward compatibility works on it "
			         "with a driver branch the compat package supports; check that pairing",
			         gpus);
			return 0;
		default:
			snprintf(out, cap,
			         "this node has %s; whether it is a GeForce or a data-centre GPU is unknown "
			         "(the model name is in no table): nvidia-smi -q | grep 'Product Brand'",
			         gpus);
			return 0;
		}
	case SIG_DP_INIT: {
		size_t known = 0, mig = mig_gpus(n, &known);
		if (!f->n_nvidia)
			return 0;
		if (!known) {
			snprintf(out, cap, "this node has %s; its MIG state is not in the snapshot (no NVML)",
			         gpus);
			return 0;
		}
		snprintf(out, cap, "MIG is enabled on %zu of the node's %zu NVIDIA GPUs%s", mig, known,
		         mig == 0 ? ": the plugin's MIG strategy should be none"
		         : mig == known
		                 ? ": a single or mixed MIG strategy, matching how they are partitioned"
		                 : ": only the mixed MIG strategy fits a node with MIG on some GPUs");
		return mig ? 5 : 0;
	}
	case SIG_CPU_SIGILL:
		snprintf(out, cap, "this node's CPU: %s, %s",
		         n->cpu.model_name ? n->cpu.model_name : "model unknown",
		         n->cpu.isa_level ? n->cpu.isa_level : "ISA level unknown");
		return 0;
	case SIG_XID: {
		/* every GPU the Xids name (the pairs), not only the captured values */
		int adj = -10;
		for (size_t k = 0; k < ex->n_xids; k++) {
			const char *addr = ex->xids[k].address;
			bool seen = !addr[0];
			for (size_t j = 0; j < k && !seen; j++)
				seen = !strcmp(ex->xids[j].address, addr);
			if (!seen && addr_note(n, addr, out, cap))
				adj = 5;
		}
		if (adj < 0 && out[0]) {
			size_t l = strlen(out);
			snprintf(out + l, cap - l, " (a log from another node?)");
		}
		return out[0] ? adj : 0;
	}
	case SIG_AER_UNCORRECTED:
	case SIG_AER_CORRECTED: {
		int adj = -10;
		for (size_t v = 0; v < c->n_values; v++)
			if (!strcmp(c->values[v].key, "pci_address") &&
			    addr_note(n, c->values[v].value, out, cap))
				adj = 5;
		if (adj < 0 && out[0]) {
			size_t l = strlen(out);
			snprintf(out + l, cap - l, " (a log from another node?)");
		}
		return out[0] ? adj : 0;
	}
	default:
		return 0;
	}
}

int ga_explain_for(struct ga_explain *ex, const struct ga_node *node)
{
	struct facts f;
	gather(node, &f);
	for (size_t h = 0; h < ex->n_hit; h++) {
		size_t i = ex->hit[h];
		struct ga_explain_cause *c = &ex->causes[i];
		char note[768];
		ex->for_class[i] = ex->for_action[i] = 0;
		int adj = note_for(ex, c, &f, node, note, sizeof(note));
		c->score = ga_explain_sig((unsigned)i)->weight + adj;
		ga_free(c->node_note);
		c->node_note = NULL;
		if (note[0] && !(c->node_note = ga_strdup(note)))
			return -ENOMEM;
	}
	return 0;
}
