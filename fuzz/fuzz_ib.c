/*
 * fuzz_ib.c - the network collectors and checks on hostile file contents: an RDMA device
 * with two ports, an AMD GPU's XGMI files and the fabric manager's pid file, whose
 * contents come from the input (cut at each "@@@\n", as fuzz_procfs does). The tree is
 * collected twice, the second time with each chunk's first byte dropped, so the flap check
 * compares two different snapshots; then analyse, write JSON, read it back, render the
 * exposition. The value parsers also get the raw input: their contracts are checked.
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
#include "gpuaudit/network.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"
#include "gpuaudit/prom.h"

#define NIC "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define IB NIC "/infiniband/mlx5_0"
#define AMD "sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0"
#define SEP "@@@\n"

static const char *const files[] = {
	IB "/ports/1/state",
	IB "/ports/1/phys_state",
	IB "/ports/1/rate",
	IB "/ports/1/link_layer",
	IB "/ports/1/counters/link_downed",
	IB "/ports/1/counters/symbol_error",
	IB "/ports/1/hw_counters/out_of_sequence",
	IB "/ports/2/state",
	IB "/ports/2/rate",
	IB "/ports/2/gid_attrs/ndevs/0",
	IB "/hca_type",
	NIC "/net/ib0/dev_port",
	AMD "/xgmi_device_id",
	AMD "/xgmi_physical_id",
	AMD "/xgmi_hive_info/xgmi_hive_id",
	AMD "/xgmi_num_links",
	AMD "/xgmi_error",
	"run/nvidia-fabricmanager/nv-fabricmanager.pid",
	"proc/42/comm",
};

static const struct {
	const char *path, *text;
} fixed[] = {
	{ "proc/sys/kernel/osrelease", "6.8.0-fuzz\n" },
	{ "proc/modules", "mlx5_ib 466944 0 - Live 0x0000000000000000\n" },
	{ NIC "/class", "0x020700\n" },
	{ NIC "/vendor", "0x15b3\n" },
	{ NIC "/device", "0x101b\n" },
	{ NIC "/numa_node", "0\n" },
	{ NIC "/net/ib1/dev_port", "1\n" },
	{ AMD "/class", "0x038000\n" },
	{ AMD "/vendor", "0x1002\n" },
	{ AMD "/device", "0x740c\n" },
	{ "lib/systemd/system/nvidia-fabricmanager.service", "[Unit]\n" },
	{ "sys/devices/pci0000:00/0000:00:03.0/class", "0x068000\n" },
	{ "sys/devices/pci0000:00/0000:00:03.0/vendor", "0x10de\n" },
	{ "sys/bus/pci/drivers/amdgpu/new_id", "" },
};

static const struct {
	const char *path, *target;
} links[] = {
	{ "sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0" },
	{ "sys/bus/pci/devices/0000:02:00.0", "../../../devices/pci0000:00/0000:00:02.0/0000:02:00.0" },
	{ "sys/bus/pci/devices/0000:00:03.0", "../../../devices/pci0000:00/0000:00:03.0" },
	{ AMD "/driver", "../../../../bus/pci/drivers/amdgpu" },
	{ "sys/class/infiniband/mlx5_0",
	  "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0" },
	{ IB "/device", "../../../0000:01:00.0" },
	{ AMD "/xgmi_hive_info/node1", "../../0000:02:00.0" },
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
	fuzz_tree_make(root, sizeof(root), "ib");
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		fuzz_tree_write(root, fixed[i].path, fixed[i].text, strlen(fixed[i].text));
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (fuzz_tree_link(root, links[i].path, links[i].target) < 0)
			abort();
	if (ga_ctx_new(&ctx) < 0 || ga_ctx_set_root(ctx, root) < 0)
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

/* Write each chunk (skipping its first `skip` bytes) to its file; absent chunks: no file. */
static void lay_out(const uint8_t *data, size_t size, size_t skip)
{
	const uint8_t *p = data;
	size_t left = size;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		if (!p) {
			unlink(path);
			continue;
		}
		const uint8_t *s = find_sep(p, left);
		size_t len = s ? (size_t)(s - p) : left;
		size_t k = len > skip ? skip : len;
		fuzz_tree_write(root, files[i], p + k, len - k);
		if (s) {
			left -= len + strlen(SEP);
			p = s + strlen(SEP);
		} else {
			p = NULL;
		}
	}
}

static void check_parsers(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return;
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	double g = -1;
	uint64_t w = 0, code = 0;
	char sp[8] = "", name[32] = "";
	if (ga_ib_rate_parse(s, &g, &w, sp) == 0)
		FUZZ_CHECK(g > 0 && g <= 10000 && w >= 1 && w <= 32 && strlen(sp) > 0 && strlen(sp) < 8);
	else
		FUZZ_CHECK(g == -1 && w == 0);
	if (ga_ib_state_parse(s, &code, name) == 0)
		FUZZ_CHECK(code < 1000 && strlen(name) > 0 && strlen(name) < 32);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	check_parsers(data, size);
	struct ga_node *prev = NULL, *n = NULL;
	lay_out(data, size, 1);
	FUZZ_CHECK(ga_node_collect(ctx, &prev) == 0);
	lay_out(data, size, 0);
	FUZZ_CHECK(ga_node_collect(ctx, &n) == 0);
	struct ga_findings f;
	ga_findings_init(&f);
	FUZZ_CHECK(ga_analyze_node(n, &f) == 0);
	FUZZ_CHECK(ga_analyze_ib_delta(prev, n, &f) == 0);

	struct ga_buf out;
	ga_buf_init(&out, 0);
	struct ga_json w;
	ga_json_init(&w, &out, false);
	FUZZ_CHECK(ga_node_write_with_findings(n, &f, &w) == 0);
	FUZZ_CHECK(ga_json_finish(&w) == 0);
	fuzz_check_json(out.data, out.len, 0);
	struct ga_node *back = NULL;
	int r = ga_node_from_json(ctx, out.data, out.len, &back);
	if (r < 0)
		fprintf(stderr, "reader rejects the snapshot: %s\n", ga_ctx_errmsg(ctx));
	FUZZ_CHECK(r == 0);

	struct ga_buf prom;
	ga_buf_init(&prom, 0);
	struct ga_prom_input in = { .node = n, .findings = &f };
	FUZZ_CHECK(ga_prom_render(&in, GA_PROM_OPENMETRICS, &prom) == 0);

	ga_buf_release(&prom);
	ga_node_free(back);
	ga_buf_release(&out);
	ga_findings_release(&f);
	ga_node_free(prev);
	ga_node_free(n);
	return 0;
}
