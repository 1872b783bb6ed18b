/*
 * midr.c - names of aarch64 CPUs from the MIDR_EL1 implementer and part number.
 *
 * arm64 /proc/cpuinfo has no model name, only "CPU implementer" and "CPU part" (the
 * MIDR_EL1 fields [31:24] and [15:4]); the same register is in
 * /sys/devices/system/cpu/cpuN/regs/identification/midr_el1. These tables are facts
 * (codes and the names util-linux's lscpu prints for them) taken from the public sources
 * listed in docs/cpu-models.md: Linux arch/arm64/include/asm/cputype.h, util-linux
 * sys-utils/lscpu-arm.c and NVIDIA's Grace CPU benchmarking guide. Only server and
 * GPU-host cores and the common Cortex cores are listed; an unknown part is reported by
 * its numbers (implementer, part), never guessed.
 */
#include "collect.h"

struct midr_part {
	uint16_t impl;
	uint16_t part;
	const char *name;
};

static const struct midr_part parts[] = {
	/* Arm Ltd (0x41) */
	{ 0x41, 0xd03, "Cortex-A53" },
	{ 0x41, 0xd05, "Cortex-A55" },
	{ 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },
	{ 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },
	{ 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse-N1" }, /* Ampere Altra, AWS Graviton2 */
	{ 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd40, "Neoverse-V1" }, /* AWS Graviton3 */
	{ 0x41, 0xd41, "Cortex-A78" },
	{ 0x41, 0xd42, "Cortex-A78AE" },
	{ 0x41, 0xd44, "Cortex-X1" },
	{ 0x41, 0xd46, "Cortex-A510" },
	{ 0x41, 0xd47, "Cortex-A710" },
	{ 0x41, 0xd48, "Cortex-X2" },
	{ 0x41, 0xd49, "Neoverse-N2" },
	{ 0x41, 0xd4a, "Neoverse-E1" },
	{ 0x41, 0xd4d, "Cortex-A715" },
	{ 0x41, 0xd4e, "Cortex-X3" },
	{ 0x41, 0xd4f, "Neoverse-V2" }, /* NVIDIA Grace (GH200, GB200), AWS Graviton4 */
	{ 0x41, 0xd81, "Cortex-A720" },
	{ 0x41, 0xd82, "Cortex-X4" },
	{ 0x41, 0xd83, "Neoverse-V3AE" },
	{ 0x41, 0xd84, "Neoverse-V3" },
	{ 0x41, 0xd85, "Cortex-X925" }, /* NVIDIA GB10 (DGX Spark), big cores */
	{ 0x41, 0xd87, "Cortex-A725" }, /* NVIDIA GB10 (DGX Spark), little cores */
	{ 0x41, 0xd8b, "C1-Pro" },
	{ 0x41, 0xd8c, "C1-Ultra" },
	{ 0x41, 0xd8e, "Neoverse-N3" },
	/* Cavium / Marvell (0x43) */
	{ 0x43, 0x0af, "ThunderX2-99xx" },
	/* Fujitsu (0x46) */
	{ 0x46, 0x001, "A64FX" },
	/* HiSilicon (0x48) */
	{ 0x48, 0xd01, "Kunpeng-920" },
	/* NVIDIA (0x4e) */
	{ 0x4e, 0x000, "Denver" },
	{ 0x4e, 0x003, "Denver 2" },
	{ 0x4e, 0x004, "Carmel" },
	/* Ampere (0xc0) */
	{ 0xc0, 0xac3, "Ampere-1" },
	{ 0xc0, 0xac4, "Ampere-1a" },
};

struct midr_impl {
	uint16_t impl;
	const char *name;
};

static const struct midr_impl impls[] = {
	{ 0x41, "ARM" },       { 0x42, "Broadcom" }, { 0x43, "Cavium" }, { 0x46, "FUJITSU" },
	{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },   { 0x50, "APM" },    { 0x51, "Qualcomm" },
	{ 0x53, "Samsung" },   { 0x56, "Marvell" },  { 0x61, "Apple" },  { 0x69, "Intel" },
	{ 0x6d, "Microsoft" }, { 0x70, "Phytium" },  { 0xc0, "Ampere" },
};

const char *ga_midr_vendor(uint64_t impl)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(impls); i++)
		if (impls[i].impl == impl)
			return impls[i].name;
	return NULL;
}

const char *ga_midr_part_name(uint64_t impl, uint64_t part)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(parts); i++)
		if (parts[i].impl == impl && parts[i].part == part)
			return parts[i].name;
	return NULL;
}
