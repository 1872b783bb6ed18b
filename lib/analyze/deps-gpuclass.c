/*
 * deps-gpuclass.c - which kind of NVIDIA GPU a target is (data centre,
 * professional RTX / Quadro, consumer GeForce / TITAN), from the brand the
 * container toolkit and NVML name ("tesla", "geforce", "nvidiartx") or from a
 * product name ("NVIDIA H100 80GB HBM3"): CUDA forward compatibility
 * (deps-compat.c) is supported on some of them only.
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "../core/internal.h"
#include "gpuaudit/deps.h"

const char *ga_gpu_class_name(enum ga_gpu_class c)
{
	static const char *const n[] = { "unknown", "datacenter", "pro", "consumer" };
	return (unsigned)c < GA_ARRAY_SIZE(n) ? n[c] : "unknown";
}

enum ga_gpu_class ga_gpu_class_for_brand(const char *b)
{
	static const struct {
		const char *brand;
		enum ga_gpu_class c;
	} tab[] = {
		{ "tesla", GA_GPU_CLASS_DATACENTER },    { "datacenter", GA_GPU_CLASS_DATACENTER },
		{ "quadro", GA_GPU_CLASS_PRO },          { "quadrortx", GA_GPU_CLASS_PRO },
		{ "nvidiartx", GA_GPU_CLASS_PRO },       { "geforce", GA_GPU_CLASS_CONSUMER },
		{ "geforcertx", GA_GPU_CLASS_CONSUMER }, { "titan", GA_GPU_CLASS_CONSUMER },
		{ "titanrtx", GA_GPU_CLASS_CONSUMER },
	};
	for (size_t i = 0; b && i < GA_ARRAY_SIZE(tab); i++)
		if (!strcasecmp(b, tab[i].brand))
			return tab[i].c;
	return GA_GPU_CLASS_UNKNOWN;
}

/* needle as a whole token of model ("A10" not in "A100"; "A10G" is an A10) */
static bool token(const char *model, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = strstr(model, needle); p; p = strstr(p + 1, needle))
		if ((p == model || p[-1] == ' ' || p[-1] == '-') && !(p[n] >= '0' && p[n] <= '9'))
			return true;
	return false;
}

enum ga_gpu_class ga_gpu_class_for_model(const char *model)
{
	static const char *const dc[] = { "Tesla", "H100", "H200", "H800", "H20",  "GH200", "GB200",
		                          "GB300", "B100", "B200", "B300", "A100", "A800",  "A30",
		                          "A40",   "A10",  "A16",  "A2",   "L40",  "L40S",  "L20",
		                          "L4",    "T4",   "V100", "P100", "P40",  "P4",    "K80" };
	if (!model)
		return GA_GPU_CLASS_UNKNOWN;
	if (strstr(model, "GeForce") || strstr(model, "TITAN") || strstr(model, "Titan"))
		return GA_GPU_CLASS_CONSUMER;
	if (strstr(model, "Quadro") || strstr(model, "RTX"))
		return GA_GPU_CLASS_PRO;
	for (size_t i = 0; i < GA_ARRAY_SIZE(dc); i++)
		if (token(model, dc[i]))
			return GA_GPU_CLASS_DATACENTER;
	return GA_GPU_CLASS_UNKNOWN;
}
