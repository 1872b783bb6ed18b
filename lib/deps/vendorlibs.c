/*
 * vendorlibs.c - the table of vendor shared libraries by soname stem: which
 * GPU stack each belongs to, which ones the driver installs (and an artifact
 * must therefore never bundle), and which sonames pin the runtime's major
 * version. Facts: vendor-stacks.md (reference), summarised in
 * docs/deps-formats.md.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "gpuaudit/elfscan.h"
#include "../core/internal.h"

#define DRV GA_VLIB_DRIVER
#define NEU GA_VLIB_NEUTRAL
#define RTM GA_VLIB_MAJOR_IS_RUNTIME
#define CUDA GA_DEP_CUDA
#define ROCM GA_DEP_ROCM
#define L0 GA_DEP_LEVEL_ZERO

/* A stem ending in '*' matches every stem with that prefix. */
static const struct ga_vendor_lib vendor_libs[] = {
	/* NVIDIA, installed by the driver */
	{ "libcuda", CUDA, DRV, "CUDA driver API" },
	{ "libnvidia-ml", CUDA, DRV, "NVML" },
	{ "libnvidia-ptxjitcompiler", CUDA, DRV, "PTX JIT compiler" },
	{ "libnvidia-opencl", CUDA, DRV, "NVIDIA OpenCL driver" },
	{ "libnvidia-nvvm", CUDA, DRV, "driver NVVM" },
	{ "libnvoptix", CUDA, DRV, "OptiX" },
	{ "libEGL_nvidia", CUDA, DRV, "NVIDIA EGL" },
	{ "libGLX_nvidia", CUDA, DRV, "NVIDIA GLX" },
	{ "libnvcudla", CUDA, DRV, "cuDLA" },
	{ "libcudadebugger", CUDA, DRV, "CUDA debugger" },
	/* NVIDIA toolkit and redistributables */
	{ "libcudart", CUDA, RTM, "CUDA runtime" },
	{ "libcublas", CUDA, RTM, "cuBLAS" },
	{ "libcublasLt", CUDA, RTM, "cuBLASLt" },
	{ "libnvblas", CUDA, RTM, "NVBLAS" },
	{ "libcufft", CUDA, 0, "cuFFT" },
	{ "libcufftw", CUDA, 0, "cuFFTW" },
	{ "libcurand", CUDA, 0, "cuRAND" },
	{ "libcusolver", CUDA, 0, "cuSOLVER" },
	{ "libcusolverMg", CUDA, 0, "cuSOLVERMg" },
	{ "libcusparse", CUDA, 0, "cuSPARSE" },
	{ "libcusparseLt", CUDA, 0, "cuSPARSELt" },
	{ "libnvrtc", CUDA, RTM, "NVRTC" },
	{ "libnvrtc.alt", CUDA, RTM, "NVRTC" },
	{ "libnvrtc-builtins*", CUDA, RTM, "NVRTC builtins" },
	{ "libnvJitLink", CUDA, RTM, "nvJitLink" },
	{ "libnvfatbin", CUDA, RTM, "nvFatbin" },
	{ "libnvvm", CUDA, 0, "NVVM" },
	{ "libcupti", CUDA, RTM, "CUPTI" },
	{ "libnvperf_host", CUDA, 0, "Nsight Perf host" },
	{ "libnvperf_target", CUDA, 0, "Nsight Perf target" },
	{ "libpcsamplingutil", CUDA, 0, "CUPTI PC sampling" },
	{ "libcheckpoint", CUDA, 0, "CUPTI checkpoint" },
	{ "libnvToolsExt", CUDA, 0, "NVTX" },
	{ "libnvtx3interop", CUDA, 0, "NVTX3 interop" },
	{ "libnpp*", CUDA, 0, "NPP" },
	{ "libnvjpeg", CUDA, 0, "nvJPEG" },
	{ "libcufile", CUDA, 0, "cuFile (GDS)" },
	{ "libcufile_rdma", CUDA, 0, "cuFile RDMA" },
	{ "libcudnn", CUDA, 0, "cuDNN" },
	{ "libcudnn_*", CUDA, 0, "cuDNN" },
	{ "libnccl", CUDA, 0, "NCCL" },
	{ "libcudss", CUDA, 0, "cuDSS" },
	{ "libcutensor", CUDA, 0, "cuTENSOR" },
	{ "libcutensorMg", CUDA, 0, "cuTENSORMg" },
	{ "libnvshmem_host", CUDA, 0, "NVSHMEM" },
	{ "libnvinfer*", CUDA, 0, "TensorRT" },
	{ "libnvonnxparser", CUDA, 0, "TensorRT ONNX parser" },
	/* AMD ROCm */
	{ "libamdhip64", ROCM, RTM, "HIP runtime" },
	{ "libhiprtc", ROCM, RTM, "HIPRTC" },
	{ "libhiprtc-builtins", ROCM, 0, "HIPRTC builtins" },
	{ "libhsa-runtime64", ROCM, 0, "HSA runtime" },
	{ "libhsakmt", ROCM, 0, "HSA kernel thunk" },
	{ "libamd_comgr", ROCM, 0, "code object manager" },
	{ "librocblas", ROCM, 0, "rocBLAS" },
	{ "libhipblas", ROCM, 0, "hipBLAS" },
	{ "libhipblaslt", ROCM, 0, "hipBLASLt" },
	{ "librocsolver", ROCM, 0, "rocSOLVER" },
	{ "libhipsolver", ROCM, 0, "hipSOLVER" },
	{ "librocsparse", ROCM, 0, "rocSPARSE" },
	{ "libhipsparse", ROCM, 0, "hipSPARSE" },
	{ "librocfft", ROCM, 0, "rocFFT" },
	{ "libhipfft", ROCM, 0, "hipFFT" },
	{ "librocrand", ROCM, 0, "rocRAND" },
	{ "libhiprand", ROCM, 0, "hipRAND" },
	{ "libMIOpen", ROCM, 0, "MIOpen" },
	{ "librccl", ROCM, 0, "RCCL" },
	{ "librocm_smi64", ROCM, 0, "ROCm SMI" },
	{ "libamd_smi", ROCM, 0, "AMD SMI" },
	{ "libroctracer64", ROCM, 0, "rocTracer" },
	{ "libroctx64", ROCM, 0, "rocTX" },
	{ "librocprofiler-register", ROCM, 0, "rocprofiler register" },
	/* Intel GPU: Level Zero, SYCL, oneAPI */
	{ "libze_loader", L0, 0, "Level Zero loader" },
	{ "libze_intel_gpu", L0, DRV, "Level Zero GPU driver" },
	{ "libsycl", L0, 0, "SYCL runtime" },
	{ "libur_loader", L0, 0, "Unified Runtime loader" },
	{ "libur_adapter_*", L0, 0, "Unified Runtime adapter" },
	{ "libpi_level_zero", L0, 0, "SYCL PI Level Zero" },
	{ "libmkl_sycl*", L0, 0, "oneMKL SYCL" },
	{ "libccl", L0, 0, "oneCCL" },
	{ "libintel-ext-pt-gpu", L0, 0, "Intel Extension for PyTorch GPU" },
	{ "libigc", L0, DRV, "Intel Graphics Compiler" },
	{ "libigdfcl", L0, DRV, "Intel Graphics frontend compiler" },
	/* OpenCL and Vulkan loaders (vendor-neutral) */
	{ "libOpenCL", GA_DEP_OPENCL, NEU, "OpenCL ICD loader" },
	{ "libvulkan", GA_DEP_VULKAN, NEU, "Vulkan loader" },
	/* CPU math */
	{ "libopenblas", GA_DEP_CPU, 0, "OpenBLAS" },
	{ "libopenblasp*", GA_DEP_CPU, 0, "OpenBLAS" },
	{ "libmkl_rt", GA_DEP_CPU, 0, "oneMKL" },
	{ "libmkl_core", GA_DEP_CPU, 0, "oneMKL" },
	{ "libmkl_intel_lp64", GA_DEP_CPU, 0, "oneMKL" },
	{ "libmkl_intel_ilp64", GA_DEP_CPU, 0, "oneMKL" },
	{ "libblis", GA_DEP_CPU, 0, "BLIS" },
	{ "libdnnl", GA_DEP_CPU, 0, "oneDNN" },
	/* vendor-neutral plumbing */
	{ "libGL", GA_DEP_OTHER, NEU, "glvnd GL" },
	{ "libEGL", GA_DEP_OTHER, NEU, "glvnd EGL" },
	{ "libGLX", GA_DEP_OTHER, NEU, "glvnd GLX" },
	{ "libOpenGL", GA_DEP_OTHER, NEU, "glvnd OpenGL" },
	{ "libdrm", GA_DEP_OTHER, NEU, "libdrm" },
	{ "libnuma", GA_DEP_OTHER, NEU, "libnuma" },
	{ "libibverbs", GA_DEP_OTHER, NEU, "RDMA verbs" },
	{ "libmlx5", GA_DEP_OTHER, NEU, "mlx5 verbs provider" },
	{ "libfabric", GA_DEP_OTHER, NEU, "libfabric" },
};

static const char *const backend_names[GA_DEP_N] = {
	[GA_DEP_NONE] = "none",     [GA_DEP_CUDA] = "cuda",
	[GA_DEP_ROCM] = "rocm",     [GA_DEP_LEVEL_ZERO] = "level-zero",
	[GA_DEP_OPENCL] = "opencl", [GA_DEP_VULKAN] = "vulkan",
	[GA_DEP_CPU] = "cpu",       [GA_DEP_OTHER] = "other",
};

const char *ga_dep_backend_name(enum ga_dep_backend b)
{
	if ((unsigned)b >= GA_DEP_N)
		return "none";
	return backend_names[b];
}

const struct ga_vendor_lib *ga_vendor_lib_table(size_t *ret_n)
{
	if (ret_n)
		*ret_n = GA_ARRAY_SIZE(vendor_libs);
	return vendor_libs;
}

static bool stem_matches(const char *pat, const char *stem, size_t stem_len)
{
	size_t pl = strlen(pat);
	if (pl && pat[pl - 1] == '*')
		return stem_len >= pl - 1 && !memcmp(pat, stem, pl - 1);
	return pl == stem_len && !memcmp(pat, stem, pl);
}

static const struct ga_vendor_lib *find_stem(const char *stem, size_t n)
{
	/* exact names first, so "libcudnn_ops" is not taken by a shorter prefix rule */
	for (size_t i = 0; i < GA_ARRAY_SIZE(vendor_libs); i++) {
		const char *p = vendor_libs[i].stem;
		if (p[strlen(p) - 1] != '*' && stem_matches(p, stem, n))
			return &vendor_libs[i];
	}
	for (size_t i = 0; i < GA_ARRAY_SIZE(vendor_libs); i++) {
		const char *p = vendor_libs[i].stem;
		if (p[strlen(p) - 1] == '*' && stem_matches(p, stem, n))
			return &vendor_libs[i];
	}
	return NULL;
}

/* Parse up to 9 decimal digits at s; returns the count of digits, value in *v. */
static size_t parse_num(const char *s, int *v)
{
	size_t i = 0;
	int x = 0;
	while (i < 9 && isdigit((unsigned char)s[i])) {
		x = x * 10 + (s[i] - '0');
		i++;
	}
	if (i)
		*v = x;
	return i;
}

const struct ga_vendor_lib *ga_vendor_lib_find(const char *name, struct ga_vendor_match *ret_match)
{
	if (!name)
		return NULL;
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "lib", 3) != 0)
		return NULL;
	/* the stem ends at the last ".so" that is followed by end or ".<digit>" */
	const char *so = NULL;
	for (const char *p = strstr(base, ".so"); p; p = strstr(p + 1, ".so")) {
		if (p[3] == '\0' || (p[3] == '.' && isdigit((unsigned char)p[4])))
			so = p;
	}
	if (!so)
		return NULL;
	size_t stem_len = (size_t)(so - base);
	bool renamed = false;
	const struct ga_vendor_lib *lib = find_stem(base, stem_len);
	if (!lib && stem_len > 9 && base[stem_len - 9] == '-') {
		bool hex = true;
		for (size_t i = stem_len - 8; i < stem_len; i++)
			hex = hex && isxdigit((unsigned char)base[i]);
		if (hex) {
			lib = find_stem(base, stem_len - 9);
			renamed = lib != NULL;
		}
	}
	if (!lib)
		return NULL;
	if (ret_match) {
		struct ga_vendor_match m = { .lib = lib,
			                     .soname_major = -1,
			                     .soname_minor = -1,
			                     .runtime_major = -1,
			                     .renamed = renamed };
		const char *v = so + 3;
		if (*v == '.') {
			size_t n = parse_num(v + 1, &m.soname_major);
			if (n && v[1 + n] == '.')
				parse_num(v + 2 + n, &m.soname_minor);
		}
		if ((lib->flags & GA_VLIB_MAJOR_IS_RUNTIME) && m.soname_major >= 0)
			m.runtime_major = m.soname_major;
		*ret_match = m;
	}
	return lib;
}
