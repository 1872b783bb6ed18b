/*
 * test_topology.c - the topology matrix (lib/analyze/topology.c) on hand-made snapshots:
 * each PCIe path letter from the host bridge, the bridges and the NUMA nodes, unknown where
 * the snapshot cannot tell, NV#/XGMI links, the findings triage uses, and the text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/core.h"
#include "gpuaudit/topomatrix.h"
#include "gpuaudit/topotext.h"
#include "gpuaudit/triage.h"
#include "gpuaudit/triage-analyze.h"

#define MAXD 8
#define MAXH 6

struct fix {
	struct ga_node n;
	struct ga_pci_dev pci[MAXD];
	struct ga_accel acc[MAXD];
	struct ga_pci_hop hops[MAXD][MAXH];
	struct ga_numa_node numa[2];
	char *nets[MAXD][2];
};

/* A PCI function at addr below the bridges chain (root port first), on NUMA node numa. */
static struct ga_pci_dev *fn(struct fix *f, const char *kind, const char *addr, const char *const *chain,
                             size_t n_chain, int64_t numa)
{
	size_t i = f->n.n_pci++;
	struct ga_pci_dev *pd = &f->pci[i];
	pd->kind = (char *)kind;
	pd->address = (char *)addr;
	pd->device_id = (struct ga_ou64){ 0x20b0, true };
	pd->numa_node = (struct ga_oi64){ numa, true };
	pd->local_cpulist = numa == 1 ? (char *)"64-127" : (char *)"0-63";
	for (size_t k = 0; k < n_chain; k++) /* upstream is nearest first */
		f->hops[i][k].address = (char *)chain[n_chain - 1 - k];
	pd->upstream = f->hops[i];
	pd->n_upstream = n_chain;
	if (!strcmp(kind, "nic")) {
		f->nets[i][0] = (char *)"mlx5_x";
		pd->rdma_devices = (struct ga_strv){ f->nets[i], 1 };
	}
	return pd;
}

static struct ga_accel *gpu(struct fix *f, const char *vendor, const char *addr)
{
	size_t i = f->n.n_accelerators++;
	struct ga_accel *a = &f->acc[i];
	a->index = (struct ga_ou64){ i, true };
	a->vendor = (char *)vendor;
	a->address = (char *)addr;
	return a;
}

static void init(struct fix *f, size_t numa_nodes)
{
	memset(f, 0, sizeof(*f));
	f->n.pci = f->pci;
	f->n.accelerators = f->acc;
	for (size_t k = 0; k < numa_nodes; k++)
		f->numa[k].id = (struct ga_ou64){ k, true };
	f->n.cpu.numa_nodes = f->numa;
	f->n.cpu.n_numa_nodes = numa_nodes;
}

static const char *cell(const struct ga_topology *t, size_t i, size_t j)
{
	assert_true(i < t->n_devices && j < t->devices[i].paths.n);
	return t->devices[i].paths.v[j];
}

/* Two sockets: host bridge 0000:00 (node 0) with a switch and a nested switch, 0000:40
 * (node 0), 0000:80 (node 1). */
static void two_socket(struct fix *f)
{
	init(f, 2);
	static const char *const sw_a[] = { "0000:00:01.1", "0000:01:00.0", "0000:02:00.0" };
	static const char *const sw_b[] = { "0000:00:01.1", "0000:01:00.0", "0000:02:01.0" };
	static const char *const nested[] = { "0000:00:01.1", "0000:01:00.0", "0000:02:02.0", "0000:05:00.0",
		                              "0000:06:00.0" };
	static const char *const rp2[] = { "0000:00:03.1" };
	static const char *const rp40[] = { "0000:40:01.1" };
	static const char *const rp80[] = { "0000:80:01.1" };
	gpu(f, "amd", "0000:03:00.0");
	fn(f, "accelerator", "0000:03:00.0", sw_a, 3, 0);
	gpu(f, "amd", "0000:04:00.0");
	fn(f, "accelerator", "0000:04:00.0", sw_b, 3, 0);
	gpu(f, "amd", "0000:07:00.0");
	fn(f, "accelerator", "0000:07:00.0", nested, 5, 0);
	gpu(f, "amd", "0000:41:00.0");
	fn(f, "accelerator", "0000:41:00.0", rp40, 1, 0);
	gpu(f, "amd", "0000:81:00.0");
	fn(f, "accelerator", "0000:81:00.0", rp80, 1, 1);
	fn(f, "nic", "0000:08:00.0", rp2, 1, 0);
	fn(f, "nic", "0000:08:00.1", rp2, 1, 0);
	fn(f, "nvme", "0000:09:00.0", rp2, 1, 0); /* not in the matrix */
}

static void test_paths(void **state)
{
	(void)state;
	struct fix f;
	two_socket(&f);
	struct ga_topology t;
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_int_equal(t.n_devices, 7);
	assert_int_equal(t.accelerators.v, 5);
	assert_string_equal(t.devices[0].name, "GPU0");
	assert_string_equal(t.devices[5].name, "NIC0");
	assert_string_equal(t.devices[6].name, "NIC1");
	assert_string_equal(t.devices[0].host_bridge, "0000:00");
	assert_int_equal(t.devices[0].bridges.n, 3);
	assert_string_equal(t.devices[0].bridges.v[0], "0000:00:01.1"); /* root port first */
	assert_string_equal(t.devices[4].host_bridge, "0000:80");
	assert_string_equal(cell(&t, 0, 0), "X");
	assert_string_equal(cell(&t, 0, 1), "PIX");  /* one switch */
	assert_string_equal(cell(&t, 0, 2), "PXB");  /* the nested switch below it */
	assert_string_equal(cell(&t, 0, 5), "PHB");  /* another root port */
	assert_string_equal(cell(&t, 0, 3), "NODE"); /* another host bridge, node 0 */
	assert_string_equal(cell(&t, 0, 4), "SYS");  /* node 1 */
	assert_string_equal(cell(&t, 4, 0), "SYS");
	assert_string_equal(cell(&t, 5, 6), "PIX"); /* two functions of one NIC below one root port */
	assert_string_equal(t.devices[4].cpu_affinity, "64-127");
	assert_int_equal(t.devices[4].numa_node.v, 1);
	assert_null(t.devices[4].numa_note);
	assert_null(t.devices[0].links_from); /* no amdgpu depth in this snapshot: links not read */
	ga_topology_release(&t);
}

static void test_unknown(void **state)
{
	(void)state;
	struct fix f;
	two_socket(&f);
	f.pci[4].numa_node.v = -1;      /* GPU4: no locality on a two-node machine */
	f.pci[0].device_id.set = false; /* GPU0: its sysfs path did not resolve */
	struct ga_topology t;
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_false(t.devices[4].numa_node.set);
	assert_non_null(t.devices[4].numa_note);
	assert_string_equal(cell(&t, 4, 1), "unknown"); /* across host bridges, no node */
	assert_string_equal(cell(&t, 3, 4), "unknown");
	assert_null(t.devices[0].host_bridge);
	assert_string_equal(cell(&t, 0, 1), "unknown"); /* even below one switch: no path known */
	assert_string_equal(cell(&t, 1, 2), "PXB");
	/* unknown raises nothing: GPU4's pairs are not SYS */
	struct ga_findings fs;
	ga_findings_init(&fs);
	assert_int_equal(ga_topology_findings(&t, &fs), 0);
	for (size_t i = 0; i < fs.n; i++)
		assert_int_not_equal(fs.v[i].id, GA_C_TOPO_GPU_SYS_ONLY);
	ga_findings_release(&fs);
	ga_topology_release(&t);

	/* one NUMA node: -1 is that node, and the note says so */
	init(&f, 1);
	static const char *const a[] = { "0000:00:01.0" }, *const b[] = { "0000:80:01.0" };
	gpu(&f, "intel", "0000:01:00.0");
	fn(&f, "accelerator", "0000:01:00.0", a, 1, -1);
	gpu(&f, "intel", "0000:81:00.0");
	fn(&f, "accelerator", "0000:81:00.0", b, 1, -1);
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_string_equal(cell(&t, 0, 1), "NODE");
	assert_int_equal(t.devices[0].numa_node.v, 0);
	assert_non_null(t.devices[0].numa_note);
	assert_null(t.devices[0].links_from); /* Intel: links not read */
	ga_topology_release(&t);
}

static void test_links(void **state)
{
	(void)state;
	struct fix f;
	two_socket(&f);
	struct ga_amd_xgmi x = { .hive_id = (char *)"1234" };
	struct ga_amd_info amd[MAXD];
	memset(amd, 0, sizeof(amd));
	for (size_t i = 0; i < 5; i++) {
		f.acc[i].amd = &amd[i];
		if (i != 2)
			amd[i].xgmi = &x;
	}
	struct ga_topology t;
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_string_equal(cell(&t, 0, 4), "XGMI");
	assert_string_equal(cell(&t, 2, 4), "SYS"); /* GPU2 is in no hive */
	struct ga_findings fs;
	ga_findings_init(&fs);
	assert_int_equal(ga_topology_findings(&t, &fs), 0);
	/* GPU2-GPU4 is the one SYS pair without a link; GPU4's NICs are all SYS */
	size_t pairs = 0, remote = 0;
	for (size_t i = 0; i < fs.n; i++) {
		if (fs.v[i].id == GA_C_TOPO_GPU_SYS_ONLY) {
			pairs++;
			assert_non_null(strstr(fs.v[i].message, "GPU2-GPU4"));
			assert_non_null(fs.v[i].decision);
		}
		if (fs.v[i].id == GA_C_TOPO_NIC_REMOTE) {
			remote++;
			assert_string_equal(fs.v[i].subject, "0000:81:00.0");
		}
	}
	assert_int_equal(pairs, 1);
	assert_int_equal(remote, 1);

	/* triage's communication step carries them */
	struct ga_triage tr;
	ga_triage_run(&f.n, &fs, NULL, 0, NULL, &tr);
	const struct ga_triage_step *s = &tr.steps[3];
	assert_string_equal(s->title, "Is communication healthy?");
	bool seen = false;
	for (size_t k = 0; k < s->n_ev; k++)
		seen |= !strcmp(s->ev[k].key, "gpus_without_a_local_nic") &&
		        !strcmp(s->ev[k].value, "1: 0000:81:00.0");
	assert_true(seen);
	assert_non_null(strstr(s->decision, "GA-TOPO-NIC-REMOTE"));
	ga_findings_release(&fs);

	/* the text: header, a row, the NIC names, the legend */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_true(ga_topology_shown(&t));
	assert_int_equal(ga_topology_text(&b, &t), 0);
	assert_non_null(strstr(b.data, "topology (PCI tree in sysfs):\n"));
	assert_non_null(strstr(
	        b.data, "  GPU0  X        XGMI     PXB      XGMI     XGMI     PHB      PHB      0-63"));
	assert_non_null(strstr(b.data, "  NIC0: mlx5_x (0000:08:00.0)\n"));
	assert_non_null(strstr(b.data, "    PIX     = "));
	ga_buf_release(&b);
	ga_topology_release(&t);
}

static void test_nvlink(void **state)
{
	(void)state;
	struct fix f;
	two_socket(&f);
	struct ga_nvml_gpu g[2];
	struct ga_nvml_link l[2];
	memset(g, 0, sizeof(g));
	memset(l, 0, sizeof(l));
	g[0].index = (struct ga_ou64){ 0, true };
	g[0].pci_bus_id = (char *)"0000:03:00.0";
	g[1].index = (struct ga_ou64){ 1, true };
	g[1].pci_bus_id = (char *)"0000:81:00.0";
	for (size_t k = 0; k < 2; k++) {
		l[k].active = (struct ga_obool){ true, true };
		l[k].remote_bus_id = (char *)"0000:81:00.0";
	}
	g[0].nvlinks = l;
	g[0].n_nvlinks = 2;
	f.acc[0].vendor = f.acc[4].vendor = (char *)"nvidia";
	f.acc[0].nvml = &g[0];
	f.acc[4].nvml = &g[1];
	struct ga_topology t;
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_string_equal(cell(&t, 0, 4), "NV2");
	assert_string_equal(t.devices[0].links_from, "nvml");
	ga_topology_release(&t);
	/* without NVML the pair is its PCIe path and the text says NVLink was not read */
	f.acc[0].nvml = f.acc[4].nvml = NULL;
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_string_equal(cell(&t, 0, 4), "SYS");
	assert_null(t.devices[0].links_from);
	struct ga_findings fs;
	ga_findings_init(&fs);
	assert_int_equal(ga_topology_findings(&t, &fs), 0);
	for (size_t i = 0; i < fs.n; i++) /* GPU0-GPU4: links not read, so no finding about them */
		if (fs.v[i].id == GA_C_TOPO_GPU_SYS_ONLY)
			assert_null(strstr(fs.v[i].message, "GPU0-GPU4"));
	ga_findings_release(&fs);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_topology_text(&b, &t), 0);
	assert_non_null(strstr(b.data, "NVLink not read"));
	ga_buf_release(&b);
	ga_topology_release(&t);
}

static void test_shown(void **state)
{
	(void)state;
	struct fix f;
	init(&f, 1);
	static const char *const a[] = { "0000:00:01.0" };
	gpu(&f, "nvidia", "0000:01:00.0");
	fn(&f, "accelerator", "0000:01:00.0", a, 1, 0);
	struct ga_topology t;
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_false(ga_topology_shown(&t)); /* one GPU, no NIC: no section */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_topology_text(&b, &t), 0);
	assert_int_equal(b.len, 0);
	ga_buf_release(&b);
	ga_topology_release(&t);
	fn(&f, "nic", "0000:02:00.0", a, 1, 0);
	f.pci[1].rdma_devices.n = 0; /* a NIC without a netdev or RDMA device is left out */
	assert_int_equal(ga_topology_build(&f.n, &t), 0);
	assert_int_equal(t.n_devices, 1);
	ga_topology_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),  cmocka_unit_test(test_unknown), cmocka_unit_test(test_links),
		cmocka_unit_test(test_nvlink), cmocka_unit_test(test_shown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
