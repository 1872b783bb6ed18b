/*
 * fuzz_procfs.c - the collectors on hostile file contents. The input is cut
 * at each "@@@\n" into chunks that become procfs/sysfs/etc files of a small
 * machine tree (an NVIDIA and an AMD GPU behind a bridge), rewritten for
 * every run; then collect, analyse and write JSON, which must parse.
 *
 * A chunk that is not in the input leaves a procfs file absent and a device
 * attribute at its realistic default.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_tree.h"
#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"

#define NV "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define AMD "sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0"
#define SEP "@@@\n"

static const struct {
	const char *path;
	const char *fallback; /* NULL: absent when the input has no such chunk */
} files[] = {
	{ "proc/cpuinfo", NULL },
	{ "proc/meminfo", NULL },
	{ "proc/modules", NULL },
	{ "proc/driver/nvidia/version", NULL },
	{ "etc/os-release", NULL },
	{ "etc/ld.so.conf", NULL },
	{ "sys/devices/system/node/node0/cpulist", NULL },
	{ "proc/driver/nvidia/gpus/0000:01:00.0/information", NULL },
	{ "sys/class/kfd/kfd/topology/nodes/1/properties", NULL },
	{ "proc/uptime", NULL },
	{ NV "/class", "0x030200\n" },
	{ NV "/vendor", "0x10de\n" },
	{ NV "/current_link_speed", "16.0 GT/s PCIe\n" },
	{ NV "/current_link_width", "8\n" },
	{ AMD "/class", "0x038000\n" },
	{ AMD "/vendor", "0x1002\n" },
	{ AMD "/max_link_width", "16\n" },
	{ "sys/devices/pci0000:00/0000:00:02.0/current_link_width", "16\n" },
};

/* The fixed part of the tree. */
static const struct {
	const char *path;
	const char *text;
} fixed[] = {
	{ "proc/sys/kernel/osrelease", "6.8.0-fuzz\n" },
	{ "proc/cmdline", "BOOT_IMAGE=/vmlinuz iommu=pt nvidia.NVreg_X=1 pci=realloc\n" },
	{ "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       1024 kB\n" },
	{ "sys/module/nvidia/version", "550.54.14\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x8086\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/device", "0x1234\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/class", "0x060400\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/current_link_speed", "16.0 GT/s PCIe\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/current_link_width", "16\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/max_link_speed", "16.0 GT/s PCIe\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/max_link_width", "16\n" },
	{ "sys/devices/pci0000:00/0000:00:02.0/vendor", "0x1022\n" },
	{ "sys/devices/pci0000:00/0000:00:02.0/device", "0x1483\n" },
	{ "sys/devices/pci0000:00/0000:00:02.0/max_link_width", "16\n" },
	{ NV "/device", "0x20b0\n" },
	{ NV "/max_link_speed", "16.0 GT/s PCIe\n" },
	{ NV "/max_link_width", "16\n" },
	{ NV "/numa_node", "0\n" },
	{ NV "/local_cpulist", "0-7\n" },
	{ AMD "/device", "0x740c\n" },
	{ AMD "/current_link_speed", "16.0 GT/s PCIe\n" },
	{ AMD "/current_link_width", "16\n" },
	{ AMD "/max_link_speed", "16.0 GT/s PCIe\n" },
	{ AMD "/numa_node", "-1\n" },
	{ AMD "/mem_info_vram_total", "68702699520\n" },
	{ AMD "/product_name", "AMD Instinct MI250X\n" },
	{ AMD "/drm/card1/dev", "226:1\n" },
	{ AMD "/drm/renderD129/dev", "226:129\n" },
	{ "sys/bus/pci/drivers/nvidia/new_id", "" },
	{ "sys/bus/pci/drivers/amdgpu/new_id", "" },
	{ "dev/nvidia0", "" },
	{ "dev/nvidiactl", "" },
	{ "dev/dri/renderD128", "" },
	{ "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "" },
	{ "pci.ids", "10de  NVIDIA Corporation\n\t20b0  GA100 [A100 SXM4 40GB]\n"
	             "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n" },
};

static const struct {
	const char *path;
	const char *target;
} links[] = {
	{ "sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0" },
	{ "sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0" },
	{ "sys/bus/pci/devices/0000:02:00.0", "../../../devices/pci0000:00/0000:00:02.0/0000:02:00.0" },
	{ NV "/driver", "../../../../bus/pci/drivers/nvidia" },
	{ AMD "/driver", "../../../../bus/pci/drivers/amdgpu" },
	{ NV "/iommu_group", "../../../../kernel/iommu_groups/7" },
	{ "lib64", "usr/lib64" },
};

static char root[64];
static struct ga_ctx *ctx;

static void cleanup(void)
{
	if (root[0])
		fuzz_tree_remove(root);
	ga_ctx_free(ctx);
}

static void setup(void)
{
	fuzz_tree_make(root, sizeof(root), "procfs");
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		fuzz_tree_write(root, fixed[i].path, fixed[i].text, strlen(fixed[i].text));
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (fuzz_tree_link(root, links[i].path, links[i].target) < 0)
			abort();
	if (ga_ctx_new(&ctx) < 0 || ga_ctx_set_root(ctx, root) < 0)
		abort();
	char ids[128];
	snprintf(ids, sizeof(ids), "%s/pci.ids", root);
	if (ga_ctx_set_pci_ids(ctx, ids) < 0)
		abort();
	ga_ctx_set_max_file(ctx, 1 << 20);
}

static const uint8_t *find_sep(const uint8_t *p, size_t n)
{
	size_t sl = strlen(SEP);
	for (size_t i = 0; i + sl <= n; i++)
		if (!memcmp(p + i, SEP, sl))
			return p + i;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	size_t nfiles = sizeof(files) / sizeof(files[0]);
	const uint8_t *p = data;
	size_t left = size;
	for (size_t i = 0; i < nfiles; i++) {
		const uint8_t *chunk = p;
		size_t len = 0;
		bool have = p != NULL;
		if (have) {
			const uint8_t *s = find_sep(p, left);
			len = s ? (size_t)(s - p) : left;
			if (s) {
				left -= len + strlen(SEP);
				p = s + strlen(SEP);
			} else {
				p = NULL;
			}
		}
		if (have) {
			fuzz_tree_write(root, files[i].path, chunk, len);
		} else if (files[i].fallback) {
			fuzz_tree_write(root, files[i].path, files[i].fallback, strlen(files[i].fallback));
		} else {
			char path[512];
			snprintf(path, sizeof(path), "%s/%s", root, files[i].path);
			unlink(path);
		}
	}

	struct ga_node *n = NULL;
	int r = ga_node_collect(ctx, &n);
	FUZZ_CHECK(r == 0);
	struct ga_findings f;
	ga_findings_init(&f);
	FUZZ_CHECK(ga_analyze_node(n, &f) == 0);

	struct ga_buf out;
	ga_buf_init(&out, 0);
	struct ga_json w;
	ga_json_init(&w, &out, false);
	ga_json_obj_begin(&w);
	ga_schema_write_members(&w, &ga_node_schema, n);
	ga_json_key(&w, "findings");
	ga_findings_write_json(&f, &w);
	ga_json_obj_end(&w);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
	fuzz_check_json(out.data, out.len, 0);

	/* what discover --json writes, --from must read back */
	struct ga_node *back = NULL;
	r = ga_node_from_json(ctx, out.data, out.len, &back);
	if (r < 0)
		fprintf(stderr, "reader rejects the snapshot: %s\n", ga_ctx_errmsg(ctx));
	FUZZ_CHECK(r == 0);

	ga_node_free(back);
	ga_buf_release(&out);
	ga_findings_release(&f);
	ga_node_free(n);
	return 0;
}
