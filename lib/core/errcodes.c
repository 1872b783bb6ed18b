/*
 * errcodes.c - the vendors' error-code tables (generated, *.def here), the
 * hand-written rules that put each code in a group (map.def), and the index
 * that looks a code up by name or by (family, number).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "gpuaudit/errcodes.h"

static const struct ga_errcode_family_info families[] = {
#define ECF(name, id, runtime, type, source, prefix, error_prefix) \
	{ id, runtime, type, source, prefix, error_prefix },
#include "errcodes/families.def"
#undef ECF
};

static const struct ga_errcode_group_info groups[] = {
#define EG(name, cls, act, weight, id, summary, cause, fix, next) \
	{ GA_CAUSE_##cls, GA_ACT_##act, weight, id, summary, cause, fix, next },
#include "errcodes/groups.def"
#undef EG
};

static const struct ga_errcode codes[] = {
#define ERRCODE(n, v) { n, v, FAM },
#define FAM GA_ECF_CUDART
#include "errcodes/cudart.def"
#undef FAM
#define FAM GA_ECF_CU
#include "errcodes/cu.def"
#undef FAM
#define FAM GA_ECF_CUBLAS
#include "errcodes/cublas.def"
#undef FAM
#define FAM GA_ECF_CUFFT
#include "errcodes/cufft.def"
#undef FAM
#define FAM GA_ECF_CUSOLVER
#include "errcodes/cusolver.def"
#undef FAM
#define FAM GA_ECF_CUSPARSE
#include "errcodes/cusparse.def"
#undef FAM
#define FAM GA_ECF_CUDNN
#include "errcodes/cudnn.def"
#undef FAM
#define FAM GA_ECF_NCCL
#include "errcodes/nccl.def"
#undef FAM
#define FAM GA_ECF_NVML
#include "errcodes/nvml.def"
#undef FAM
#define FAM GA_ECF_HIP
#include "errcodes/hip.def"
#undef FAM
#define FAM GA_ECF_HSA
#include "errcodes/hsa.def"
#undef FAM
#define FAM GA_ECF_ROCBLAS
#include "errcodes/rocblas.def"
#undef FAM
#define FAM GA_ECF_ZE
#include "errcodes/ze.def"
#undef FAM
#define FAM GA_ECF_OPENCL
#include "errcodes/opencl.def"
#undef FAM
#define FAM GA_ECF_HIPBLAS
#include "errcodes/hipblas.def"
#undef FAM
#define FAM GA_ECF_MIOPEN
#include "errcodes/miopen.def"
#undef FAM
#define FAM GA_ECF_TENSORRT
#include "errcodes/tensorrt.def"
#undef FAM
#define FAM GA_ECF_ORT
#include "errcodes/ort.def"
#undef FAM
#define FAM GA_ECF_VULKAN
#include "errcodes/vulkan.def"
#undef FAM
#define FAM GA_ECF_NVRTC
#include "errcodes/nvrtc.def"
#undef FAM
/* Intel's SYCL runtime (h65-tintel) */
#define FAM GA_ECF_UR
#include "errcodes/ur.def"
#undef FAM
#define FAM GA_ECF_PI
#include "errcodes/pi.def"
#undef FAM
#define FAM GA_ECF_SYCL
#include "errcodes/sycl.def"
#undef FAM
/* CUPTI's, cuRAND's and nvJitLink's results (h66-tnvlibs) */
#define FAM GA_ECF_CUPTI
#include "errcodes/cupti.def"
#undef FAM
#define FAM GA_ECF_CURAND
#include "errcodes/curand.def"
#undef FAM
#define FAM GA_ECF_NVJITLINK
#include "errcodes/nvjitlink.def"
#undef FAM
/* ROCm SMI, AMD SMI and ROCm's sparse, FFT, random-number and solver libraries (h67-trocm) */
#define FAM GA_ECF_RSMI
#include "errcodes/rsmi.def"
#undef FAM
#define FAM GA_ECF_AMDSMI
#include "errcodes/amdsmi.def"
#undef FAM
#define FAM GA_ECF_ROCSPARSE
#include "errcodes/rocsparse.def"
#undef FAM
#define FAM GA_ECF_HIPSPARSE
#include "errcodes/hipsparse.def"
#undef FAM
#define FAM GA_ECF_ROCFFT
#include "errcodes/rocfft.def"
#undef FAM
#define FAM GA_ECF_HIPFFT
#include "errcodes/hipfft.def"
#undef FAM
#define FAM GA_ECF_ROCRAND
#include "errcodes/rocrand.def"
#undef FAM
#define FAM GA_ECF_HIPRAND
#include "errcodes/hiprand.def"
#undef FAM
#define FAM GA_ECF_HIPSOLVER
#include "errcodes/hipsolver.def"
#undef FAM
#undef ERRCODE
};

/* The message strings (FAMILY.str.def): what the vendor's library returns for a code. */
struct message {
	const char *name, *text;
	enum ga_errcode_family family;
};

static bool is_word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const struct message messages[] = {
#define ERRSTR(n, t) { n, t, FAM },
#define FAM GA_ECF_CUDART
#include "errcodes/cudart.str.def"
#undef FAM
#define FAM GA_ECF_NCCL
#include "errcodes/nccl.str.def"
#undef FAM
#define FAM GA_ECF_CUBLAS
#include "errcodes/cublas.str.def"
#undef FAM
#define FAM GA_ECF_CUSPARSE
#include "errcodes/cusparse.str.def"
#undef FAM
#define FAM GA_ECF_HIP
#include "errcodes/hip.str.def"
#undef FAM
#define FAM GA_ECF_HSA
#include "errcodes/hsa.str.def"
#undef FAM
#define FAM GA_ECF_CU
#include "errcodes/cu.str.def"
#undef FAM
#define FAM GA_ECF_NVML
#include "errcodes/nvml.str.def"
#undef FAM
/* CUPTI's cuptiGetErrorMessage (h66-tnvlibs) */
#define FAM GA_ECF_CUPTI
#include "errcodes/cupti.str.def"
#undef FAM
#undef ERRSTR
};

#define N_MESSAGES (sizeof(messages) / sizeof(messages[0]))

struct rule {
	const char *key; /* "[family/][=]key" */
	enum ga_errcode_group group;
};

static const struct rule rules[] = {
#define EMAP(key, g) { key, GA_ECG_##g },
#include "errcodes/map.def"
#undef EMAP
};

#define N_CODES (sizeof(codes) / sizeof(codes[0]))

size_t ga_errcode_count(void)
{
	return N_CODES;
}

const struct ga_errcode *ga_errcode_get(size_t i)
{
	return i < N_CODES ? &codes[i] : NULL;
}

const struct ga_errcode_family_info *ga_errcode_family_get(enum ga_errcode_family f)
{
	return (unsigned)f < GA_ECF__COUNT ? &families[f] : NULL;
}

const struct ga_errcode_group_info *ga_errcode_group_get(enum ga_errcode_group g)
{
	return (unsigned)g < GA_ECG__COUNT ? &groups[g] : NULL;
}

/* What a key drops from the front of a name of a family, longest first within a family. */
static const struct {
	enum ga_errcode_family family;
	const char *prefix;
} strip[] = {
	{ GA_ECF_CUDART, "cudaError" },
	{ GA_ECF_CU, "CUDA_ERROR_" },
	{ GA_ECF_CU, "CUDA_" },
	{ GA_ECF_CUDART, "cuda" },
	{ GA_ECF_CUBLAS, "CUBLAS_STATUS_" },
	{ GA_ECF_CUFFT, "CUFFT_" },
	{ GA_ECF_CUSOLVER, "CUSOLVER_STATUS_" },
	{ GA_ECF_CUSPARSE, "CUSPARSE_STATUS_" },
	{ GA_ECF_CUDNN, "CUDNN_STATUS_" },
	{ GA_ECF_NCCL, "nccl" },
	{ GA_ECF_HIP, "hipError" },
	{ GA_ECF_HIP, "hip" },
	{ GA_ECF_HSA, "HSA_STATUS_ERROR_" },
	{ GA_ECF_HSA, "HSA_STATUS_" },
	{ GA_ECF_ZE, "ZE_RESULT_ERROR_" },
	{ GA_ECF_ZE, "ZE_RESULT_EXP_ERROR_" },
	{ GA_ECF_ZE, "ZE_RESULT_EXT_ERROR_" },
	{ GA_ECF_ZE, "ZE_RESULT_" },
	{ GA_ECF_NVML, "NVML_ERROR_" },
	{ GA_ECF_NVML, "NVML_" },
	{ GA_ECF_OPENCL, "CL_" },
	{ GA_ECF_ROCBLAS, "rocblas_status_" },
	{ GA_ECF_HIPBLAS, "HIPBLAS_STATUS_" },
	{ GA_ECF_MIOPEN, "miopenStatus" },
	{ GA_ECF_ORT, "ORT_" },
	{ GA_ECF_TENSORRT, "k" },
	{ GA_ECF_VULKAN, "VK_ERROR_" },
	{ GA_ECF_VULKAN, "VK_" },
	{ GA_ECF_NVRTC, "NVRTC_ERROR_" },
	{ GA_ECF_NVRTC, "NVRTC_" },
	/* Intel's SYCL runtime (h65-tintel) */
	{ GA_ECF_UR, "UR_RESULT_ERROR_" },
	{ GA_ECF_UR, "UR_RESULT_" },
	{ GA_ECF_PI, "PI_ERROR_" },
	{ GA_ECF_PI, "PI_" },
	{ GA_ECF_SYCL, "errc::" },
	/* CUPTI's, cuRAND's and nvJitLink's results (h66-tnvlibs) */
	{ GA_ECF_CUPTI, "CUPTI_ERROR_" },
	{ GA_ECF_CUPTI, "CUPTI_" },
	{ GA_ECF_CURAND, "CURAND_STATUS_" },
	{ GA_ECF_NVJITLINK, "NVJITLINK_ERROR_" },
	{ GA_ECF_NVJITLINK, "NVJITLINK_" },
	/* h67-trocm: ROCm SMI, AMD SMI, rocSPARSE, hipSPARSE, rocFFT, hipFFT, rocRAND, hipRAND, hipSOLVER */
	{ GA_ECF_RSMI, "RSMI_STATUS_" },
	{ GA_ECF_RSMI, "RSMI_" },
	{ GA_ECF_AMDSMI, "AMDSMI_STATUS_" },
	{ GA_ECF_ROCSPARSE, "rocsparse_status_" },
	{ GA_ECF_HIPSPARSE, "HIPSPARSE_STATUS_" },
	{ GA_ECF_ROCFFT, "rocfft_status_" },
	{ GA_ECF_HIPFFT, "HIPFFT_" },
	{ GA_ECF_ROCRAND, "ROCRAND_STATUS_" },
	{ GA_ECF_HIPRAND, "HIPRAND_STATUS_" },
	{ GA_ECF_HIPSOLVER, "HIPSOLVER_STATUS_" },
};

void ga_errcode_key(const struct ga_errcode *c, char *out, size_t cap)
{
	const char *s = c->name;
	for (size_t i = 0; i < sizeof(strip) / sizeof(strip[0]); i++) {
		size_t l = strlen(strip[i].prefix);
		if (strip[i].family == c->family && !strncmp(s, strip[i].prefix, l)) {
			s += l;
			break;
		}
	}
	size_t k = 0;
	for (; *s && k + 1 < cap; s++)
		if (*s != '_')
			out[k++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
	out[k] = '\0';
}

static bool rule_matches(const struct rule *r, const struct ga_errcode *c, const char *key)
{
	const char *k = r->key, *slash = strchr(k, '/');
	if (slash) {
		const char *fam = families[c->family].id;
		if (strlen(fam) != (size_t)(slash - k) || strncmp(fam, k, (size_t)(slash - k)))
			return false;
		k = slash + 1;
	}
	return *k == '=' ? !strcmp(key, k + 1) : strstr(key, k) != NULL;
}

enum ga_errcode_group ga_errcode_group_of(size_t i)
{
	if (i >= N_CODES)
		return GA_ECG__COUNT;
	char key[96];
	ga_errcode_key(&codes[i], key, sizeof(key));
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		if (rule_matches(&rules[r], &codes[i], key))
			return rules[r].group;
	return GA_ECG__COUNT;
}

static void number_key(enum ga_errcode_family f, int64_t v, char *out, size_t cap)
{
	snprintf(out, cap, "%s#%lld", families[f].id, (long long)v);
}

/* "family|text" for the message map; false when it does not fit */
static bool message_key(enum ga_errcode_family f, const char *t, size_t n, char *out, size_t cap)
{
	int l = snprintf(out, cap, "%s|", families[f].id);
	if (l < 0 || (size_t)l + n >= cap)
		return false;
	memcpy(out + l, t, n);
	out[(size_t)l + n] = '\0';
	/* NVML's texts are keyed without case: libnvidia-container prints nvmlErrorString's text
	 * lower-cased ("nvml error: driver/library version mismatch"), nvidia-smi as it is
	 * ("Failed to initialize NVML: Driver/library version mismatch"); no two differ by case only */
	if (f == GA_ECF_NVML)
		for (char *c = out + l; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
	return true;
}

/* Put "family|text" -> code unless the key is taken (the first code of a text keeps it). */
static int message_put(struct ga_errcode_index *ix, enum ga_errcode_family f, const char *t, size_t n,
                       size_t code)
{
	char key[GA_ERRCODE_MESSAGE_MAX + 16];
	if (!n || !message_key(f, t, n, key, sizeof(key)) || ga_strmap_get(&ix->msg, key, NULL))
		return 0;
	if (n > ix->msg_max)
		ix->msg_max = n;
	return ga_strmap_put(&ix->msg, key, code, NULL) < 0 ? -ENOMEM : 0;
}

/*
 * The message index: every message of FAMILY.str.def, then each one's text
 * before a note the library appends (" (run with NCCL_DEBUG=INFO for
 * details)", " - please report this issue to the NCCL developers") where no
 * message of the family has that shorter text: logs of releases whose
 * strings had no such note still match.
 */
static int messages_index(struct ga_errcode_index *ix)
{
	if (!(ix->message = ga_calloc(N_CODES, sizeof(*ix->message))))
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++)
		for (size_t m = 0; m < N_MESSAGES; m++) {
			size_t i;
			if (!ga_strmap_get(&ix->map, messages[m].name, &i) ||
			    codes[i].family != messages[m].family)
				continue; /* the generator writes only names of the family's table */
			const char *t = messages[m].text;
			size_t n = strlen(t);
			if (pass == 0) {
				ix->message[i] = t;
			} else {
				const char *a = strstr(t, " ("), *b = strstr(t, " - ");
				const char *cut = a && (!b || a < b) ? a : b;
				if (!cut)
					continue;
				n = (size_t)(cut - t);
			}
			if (message_put(ix, messages[m].family, t, n, i) < 0)
				return -ENOMEM;
		}
	return 0;
}

int ga_errcode_index_init(struct ga_errcode_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	if (!(ix->group = ga_calloc(N_CODES, 1)))
		return -ENOMEM;
	for (size_t i = 0; i < N_CODES; i++) {
		char nk[64];
		ix->group[i] = (uint8_t)ga_errcode_group_of(i);
		number_key(codes[i].family, codes[i].value, nk, sizeof(nk));
		/* an alias keeps the number's first name (hipErrorOutOfMemory before hipErrorMemoryAllocation) */
		if (ga_strmap_put(&ix->map, codes[i].name, i, NULL) < 0 ||
		    (!ga_strmap_get(&ix->map, nk, NULL) && ga_strmap_put(&ix->map, nk, i, NULL) < 0)) {
			ga_errcode_index_release(ix);
			return -ENOMEM;
		}
	}
	if (messages_index(ix) < 0) {
		ga_errcode_index_release(ix);
		return -ENOMEM;
	}
	return 0;
}

void ga_errcode_index_release(struct ga_errcode_index *ix)
{
	ga_strmap_release(&ix->map);
	ga_strmap_release(&ix->msg);
	ga_free(ix->group);
	ix->group = NULL;
	ga_free(ix->message);
	ix->message = NULL;
}

long ga_errcode_lookup(const struct ga_errcode_index *ix, const char *name, size_t n)
{
	size_t v;
	return ga_strmap_get_n(&ix->map, name, n, &v) ? (long)v : -1;
}

long ga_errcode_lookup_number(const struct ga_errcode_index *ix, enum ga_errcode_family f, int64_t v)
{
	char nk[64];
	size_t i;
	if ((unsigned)f >= GA_ECF__COUNT)
		return -1;
	number_key(f, v, nk, sizeof(nk));
	return ga_strmap_get(&ix->map, nk, &i) ? (long)i : -1;
}

const char *ga_errcode_message(const struct ga_errcode_index *ix, size_t i)
{
	return i < N_CODES && ix->message ? ix->message[i] : NULL;
}

long ga_errcode_lookup_message(const struct ga_errcode_index *ix, enum ga_errcode_family f, const char *s,
                               size_t n)
{
	char key[GA_ERRCODE_MESSAGE_MAX + 16];
	size_t i;
	if ((unsigned)f >= GA_ECF__COUNT || n > ix->msg_max || !message_key(f, s, n, key, sizeof(key)))
		return -1;
	return ga_strmap_get(&ix->msg, key, &i) ? (long)i : -1;
}

long ga_errcode_find_message(const struct ga_errcode_index *ix, enum ga_errcode_family f, const char *s,
                             size_t n)
{
	size_t all = n;
	if (n > ix->msg_max)
		n = ix->msg_max;
	for (size_t e = n; e > 0; e--) {
		if (e < all && is_word_byte((unsigned char)s[e]))
			continue;
		long k = ga_errcode_lookup_message(ix, f, s, e);
		if (k >= 0)
			return k;
	}
	return -1;
}

enum ga_errcode_family ga_errcode_error_prefix(const char *tok, size_t n)
{
	for (unsigned f = 0; f < GA_ECF__COUNT; f++) {
		const char *p = families[f].error_prefix;
		size_t l = p ? strlen(p) : 0;
		if (p && n > l && !memcmp(tok, p, l))
			return (enum ga_errcode_family)f;
	}
	return GA_ECF__COUNT;
}
