/*
 * plugins.c - libraries that other libraries load by file name at run time
 * (dlopen of a name built into their string data), and the back end each one
 * brings: ONNX Runtime's execution providers, TensorRT's plugin libraries,
 * NCCL / RCCL network plugins, PyTorch's optional CUDA libraries, cuDNN 9's
 * sub-libraries, the vendor libraries an OpenCL or Vulkan ICD file names.
 * The section scan (scan.c) keeps these names as dlopen candidates; the
 * analysis (lib/analyze/deps-plugins.c) turns them into soft signals and
 * follows the plug-in when it is inside the scanned tree. Facts and sources:
 * docs/deps.md "Plug-ins loaded by name".
 */
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/deps-inventory.h"

#define SD GA_PLUGIN_SAME_DIR
#define BE GA_PLUGIN_BACKEND
#define ICD GA_PLUGIN_ICD

/* A stem ending in '*' matches every stem with that prefix; exact stems are tried first. */
static const struct ga_deps_plugin_conv plugins[] = {
	/* ONNX Runtime: provider_bridge_ort.cc loads lib<name>.so from the directory of libonnxruntime */
	{ "libonnxruntime_providers_cuda", GA_DEP_CUDA, SD | BE, "ONNX Runtime", "CUDA execution provider" },
	{ "libonnxruntime_providers_tensorrt", GA_DEP_CUDA, SD | BE, "ONNX Runtime",
	  "TensorRT execution provider" },
	{ "libonnxruntime_providers_nv_tensorrt_rtx", GA_DEP_CUDA, SD | BE, "ONNX Runtime",
	  "TensorRT-RTX execution provider" },
	{ "libonnxruntime_providers_rocm", GA_DEP_ROCM, SD | BE, "ONNX Runtime", "ROCm execution provider" },
	{ "libonnxruntime_providers_migraphx", GA_DEP_ROCM, SD | BE, "ONNX Runtime",
	  "MIGraphX execution provider" },
	{ "libonnxruntime_providers_openvino", GA_DEP_CPU, SD, "ONNX Runtime",
	  "OpenVINO execution provider (Intel CPU, GPU, NPU)" },
	{ "libonnxruntime_providers_dnnl", GA_DEP_CPU, SD, "ONNX Runtime", "oneDNN execution provider" },
	{ "libonnxruntime_providers_shared", GA_DEP_OTHER, SD, "ONNX Runtime",
	  "provider bridge (needed by every shared provider)" },
	{ "libonnxruntime_providers_vitisai", GA_DEP_OTHER, SD, "ONNX Runtime",
	  "Vitis AI execution provider" },
	{ "libonnxruntime_providers_qnn", GA_DEP_OTHER, SD, "ONNX Runtime", "QNN execution provider" },
	{ "libonnxruntime_providers_cann", GA_DEP_OTHER, SD, "ONNX Runtime", "CANN execution provider" },
	/* TensorRT */
	{ "libnvinfer_plugin", GA_DEP_CUDA, 0, "TensorRT", "plugin library" },
	{ "libnvinfer_vc_plugin", GA_DEP_CUDA, 0, "TensorRT", "version-compatible plugins" },
	{ "libnvinfer_builder_resource*", GA_DEP_CUDA, 0, "TensorRT", "builder resource" },
	{ "libnvinfer_lean", GA_DEP_CUDA, 0, "TensorRT", "lean runtime" },
	{ "libnvinfer_dispatch", GA_DEP_CUDA, 0, "TensorRT", "dispatch runtime" },
	/* NCCL / RCCL: libnccl-net.so, or libnccl-net-<NCCL_NET_PLUGIN>.so; tuner and profiler alike */
	{ "libnccl-net*", GA_DEP_CUDA, 0, "NCCL", "network plugin" },
	{ "libnccl-tuner*", GA_DEP_CUDA, 0, "NCCL", "tuner plugin" },
	{ "libnccl-profiler*", GA_DEP_CUDA, 0, "NCCL", "profiler plugin" },
	{ "librccl-net*", GA_DEP_ROCM, 0, "RCCL", "network plugin" },
	{ "librccl-tuner*", GA_DEP_ROCM, 0, "RCCL", "tuner plugin" },
	/* PyTorch */
	{ "libtorch_cuda", GA_DEP_CUDA, BE, "PyTorch", "CUDA back end" },
	{ "libc10_cuda", GA_DEP_CUDA, BE, "PyTorch", "CUDA core" },
	{ "libtorch_cuda_linalg", GA_DEP_CUDA, 0, "PyTorch", "lazy CUDA linear algebra" },
	{ "libcaffe2_nvrtc", GA_DEP_CUDA, 0, "PyTorch", "NVRTC stub (lazy NVRTC)" },
	{ "libtorch_hip", GA_DEP_ROCM, BE, "PyTorch", "ROCm back end" },
	{ "libc10_hip", GA_DEP_ROCM, BE, "PyTorch", "ROCm core" },
	{ "libtorch_xpu", GA_DEP_LEVEL_ZERO, BE, "PyTorch", "XPU back end" },
	{ "libc10_xpu", GA_DEP_LEVEL_ZERO, BE, "PyTorch", "XPU core" },
	/* NVRTC loads its builtins; cuDNN 9's libcudnn.so is a shim that loads its sub-libraries */
	{ "libnvrtc-builtins*", GA_DEP_CUDA, 0, "NVRTC", "builtins" },
	{ "libcudnn_*", GA_DEP_CUDA, 0, "cuDNN", "sub-library (libcudnn.so.9 loads it)" },
	/* what OpenCL ICD files (etc/OpenCL/vendors/NAME.icd) and Vulkan ICD manifests name */
	{ "libnvidia-opencl", GA_DEP_OPENCL, ICD, "OpenCL ICD", "NVIDIA OpenCL driver" },
	{ "libamdocl64", GA_DEP_OPENCL, ICD, "OpenCL ICD", "AMD ROCm OpenCL runtime" },
	{ "libamdocl-orca64", GA_DEP_OPENCL, ICD, "OpenCL ICD", "AMD legacy OpenCL runtime" },
	{ "libigdrcl", GA_DEP_OPENCL, ICD, "OpenCL ICD", "Intel GPU OpenCL runtime (NEO)" },
	{ "libintelocl", GA_DEP_OPENCL, ICD, "OpenCL ICD", "Intel CPU OpenCL runtime" },
	{ "libpocl", GA_DEP_OPENCL, ICD, "OpenCL ICD", "PoCL (portable OpenCL, CPU)" },
	{ "libMesaOpenCL", GA_DEP_OPENCL, ICD, "OpenCL ICD", "Mesa Clover OpenCL" },
	{ "libRusticlOpenCL", GA_DEP_OPENCL, ICD, "OpenCL ICD", "Mesa Rusticl OpenCL" },
	{ "libGLX_nvidia", GA_DEP_VULKAN, ICD, "Vulkan ICD", "NVIDIA Vulkan driver" },
	{ "libvulkan_radeon", GA_DEP_VULKAN, ICD, "Vulkan ICD", "Mesa RADV (AMD GPUs)" },
	{ "libamdvlk64", GA_DEP_VULKAN, ICD, "Vulkan ICD", "AMDVLK (AMD GPUs)" },
	{ "libvulkan_intel", GA_DEP_VULKAN, ICD, "Vulkan ICD", "Mesa ANV (Intel GPUs)" },
	{ "libvulkan_lvp", GA_DEP_VULKAN, ICD, "Vulkan ICD", "Mesa lavapipe (CPU)" },
};

const struct ga_deps_plugin_conv *ga_deps_plugin_table(size_t *ret_n)
{
	if (ret_n)
		*ret_n = GA_ARRAY_SIZE(plugins);
	return plugins;
}

static bool stem_is(const char *pat, const char *stem, size_t n)
{
	size_t pl = strlen(pat);
	if (pat[pl - 1] == '*')
		return n >= pl - 1 && !memcmp(pat, stem, pl - 1);
	return pl == n && !memcmp(pat, stem, n);
}

const struct ga_deps_plugin_conv *ga_deps_plugin_find(const char *name)
{
	if (!name)
		return NULL;
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	/* the stem ends at the last ".so" followed by the end or ".<digit>" */
	const char *so = NULL;
	for (const char *p = strstr(base, ".so"); p; p = strstr(p + 1, ".so"))
		if (!p[3] || (p[3] == '.' && p[4] >= '0' && p[4] <= '9'))
			so = p;
	if (!so || strncmp(base, "lib", 3))
		return NULL;
	size_t n = (size_t)(so - base);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < GA_ARRAY_SIZE(plugins); i++) {
			const char *p = plugins[i].stem;
			bool prefix = p[strlen(p) - 1] == '*';
			if (prefix == (pass == 1) && stem_is(p, base, n))
				return &plugins[i];
		}
	return NULL;
}
