/*
 * ib.c - InfiniBand and RoCE ports from sysfs: /sys/class/infiniband/<dev>/ports/<n>/
 * (state, phys_state, rate, link_layer, the PMA error counters and the error-related
 * hw_counters), each mapped to its PCI function, NUMA node and netdev.
 *
 * Why here and not in pci.c: a port is the unit a fabric fails in (one cable, one switch
 * port), and a PCI function can carry several. Collectors only gather: whether a port is
 * down, slow or flapping is lib/analyze/ib.c's decision. Formats: the kernel's
 * Documentation/ABI/stable/sysfs-class-infiniband and drivers/infiniband/core/sysfs.c.
 * Every counter read is a management datagram to the HCA on real hardware, so only the
 * counters an analysis or a metric uses are read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

#define IB_CLASS "sys/class/infiniband"

/* The PMA PortCounters kept in the snapshot (counters/<name>). */
static const struct {
	const char *name;
	size_t off;
} pma_counters[] = {
	{ "link_downed", offsetof(struct ga_ib_port, link_downed) },
	{ "link_error_recovery", offsetof(struct ga_ib_port, link_error_recovery) },
	{ "symbol_error", offsetof(struct ga_ib_port, symbol_error) },
	{ "port_rcv_errors", offsetof(struct ga_ib_port, port_rcv_errors) },
	{ "port_rcv_remote_physical_errors", offsetof(struct ga_ib_port, port_rcv_remote_physical_errors) },
	{ "port_xmit_discards", offsetof(struct ga_ib_port, port_xmit_discards) },
	{ "local_link_integrity_errors", offsetof(struct ga_ib_port, local_link_integrity_errors) },
	{ "excessive_buffer_overrun_errors", offsetof(struct ga_ib_port, excessive_buffer_overrun_errors) },
};

/*
 * hw_counters/ kept (mlx5 names, drivers/infiniband/hw/mlx5/counters.c): transport errors
 * and retransmissions, the ones a job's "transport retry" failures show up in. A bounded
 * list, so the metric's label set stays bounded whatever the driver exposes.
 */
static const char *const hw_kept[] = {
	"duplicate_request", "implied_nak_seq_err",      "local_ack_timeout_err",
	"out_of_buffer",     "out_of_sequence",          "packet_seq_err",
	"req_cqe_error",     "req_remote_access_errors", "req_remote_invalid_request",
	"resp_cqe_error",    "resp_local_length_error",  "resp_remote_access_errors",
	"rnr_nak_retry_err", "roce_adp_retrans",         "roce_adp_retrans_to",
	"roce_slow_restart",
};

static bool hw_wanted(const char *name)
{
	for (size_t i = 0; i < GA_ARRAY_SIZE(hw_kept); i++)
		if (!strcmp(hw_kept[i], name))
			return true;
	return false;
}

static void gap_at(struct ga_col *c, const char *dir, const char *attr)
{
	char path[4096 + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	ga_col_gap(c, path, "unparsable");
}

static void read_state(struct ga_col *c, const char *dir, const char *attr, char **name_out,
                       struct ga_ou64 *code_out)
{
	char *s = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &s, "%s/%s", dir, attr) < 0)
		return;
	uint64_t code;
	char name[32];
	if (ga_ib_state_parse(s, &code, name) == 0) {
		GA_SET(*code_out, code);
		*name_out = ga_strdup(name);
		ga_col_ok(c, *name_out);
	} else {
		gap_at(c, dir, attr);
	}
	ga_free(s);
}

static void read_rate(struct ga_col *c, struct ga_ib_port *pt, const char *dir)
{
	if (ga_col_attr(c, GA_COL_OPT, &pt->rate, "%s/rate", dir) < 0)
		return;
	double gbps;
	uint64_t width;
	char speed[8];
	if (ga_ib_rate_parse(pt->rate, &gbps, &width, speed) < 0) {
		gap_at(c, dir, "rate");
		return;
	}
	GA_SET(pt->rate_mbps, (uint64_t)(gbps * 1000 + 0.5));
	GA_SET(pt->width, width);
	pt->speed = ga_strdup(speed);
	ga_col_ok(c, pt->speed);
}

static void read_hw_counters(struct ga_col *c, struct ga_ib_port *pt, const char *dir)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s/hw_counters", dir) < 0 || !names)
		return;
	for (char **p = names; *p && c->err == 0; p++) {
		if (!hw_wanted(*p))
			continue;
		struct ga_ou64 v = { 0 };
		if (ga_col_attr_u64(c, GA_COL_OPT, &v, "%s/hw_counters/%s", dir, *p) < 0)
			continue;
		char *name = ga_strdup(*p);
		if (!ga_col_ok(c, name))
			break;
		struct ga_ib_counter *hc =
		        ga_array_push((void **)&pt->hw_counters, &pt->n_hw_counters, sizeof(*hc));
		if (!ga_col_ok(c, hc)) {
			ga_free(name);
			break;
		}
		hc->name = name;
		hc->value = v;
	}
	ga_strv_free(names);
}

/*
 * The netdev of port PORT: the PCI function's net/ entries (one on mlx5, whose ports are
 * functions), the one whose dev_port (fallback dev_id, hex) is PORT-1 when there are
 * several; else what the port's first GID names (RoCE).
 */
static char *port_netdev(struct ga_col *c, const char *devdir, const char *pci_dir, uint64_t port)
{
	char **nets = NULL;
	size_t n = 0;
	char *found = NULL;
	if (pci_dir && ga_col_list(c, &nets, &n, "%s/net", pci_dir) == 0 && nets) {
		if (n == 1) {
			found = ga_strdup(nets[0]);
		} else {
			for (size_t i = 0; i < n && !found && c->err == 0; i++) {
				struct ga_ou64 idx = { 0 };
				ga_col_attr_u64(c, GA_COL_OPT, &idx, "%s/net/%s/dev_port", pci_dir, nets[i]);
				if (!idx.set)
					ga_col_attr_u64(c, GA_COL_OPT, &idx, "%s/net/%s/dev_id", pci_dir,
					                nets[i]);
				if (idx.set && idx.v + 1 == port)
					found = ga_strdup(nets[i]);
			}
		}
		if (nets[0] && !found && c->err == 0 && n > 0 && port == 1)
			found = ga_strdup(nets[0]);
	}
	ga_strv_free(nets);
	if (!found && c->err == 0) {
		/* an empty GID slot answers EINVAL: no netdev there, not a hole in the snapshot */
		char path[4096 + 64], *s = NULL;
		snprintf(path, sizeof(path), "%s/ports/%llu/gid_attrs/ndevs/0", devdir,
		         (unsigned long long)port);
		int r = ga_fs_read_attr(c->ctx, path, &s);
		if (r == -ENOMEM)
			c->err = r;
		if (r == 0 && *s)
			found = s;
		else
			ga_free(s);
	}
	if (found)
		ga_col_ok(c, found);
	return found;
}

struct ib_dev {
	const char *name;
	char *dir;      /* resolved sys/devices/... path of the RDMA device */
	char *pci_dir;  /* resolved PCI function directory, NULL when not PCI */
	char *pci_addr; /* its basename */
	struct ga_oi64 numa_node;
	char *hca_type, *fw_ver, *node_guid;
};

static int copy_str(struct ga_col *c, char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = ga_strdup(src);
	return ga_col_ok(c, *dst) ? 0 : -ENOMEM;
}

static void port(struct ga_col *c, const struct ib_dev *d, const char *pname)
{
	uint64_t pnum;
	if (ga_parse_u64(pname, 10, &pnum) < 0)
		return;
	struct ga_node *n = c->node;
	struct ga_ib_port *pt = ga_array_push((void **)&n->ib_ports, &n->n_ib_ports, sizeof(*pt));
	if (!ga_col_ok(c, pt))
		return;
	GA_SET(pt->port, pnum);
	pt->numa_node = d->numa_node;
	if (copy_str(c, &pt->device, d->name) < 0 || copy_str(c, &pt->pci_address, d->pci_addr) < 0 ||
	    copy_str(c, &pt->hca_type, d->hca_type) < 0 || copy_str(c, &pt->fw_ver, d->fw_ver) < 0 ||
	    copy_str(c, &pt->node_guid, d->node_guid) < 0)
		return;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/ports/%s", d->dir, pname);
	ga_col_attr(c, GA_COL_OPT, &pt->link_layer, "%s/link_layer", dir);
	read_state(c, dir, "state", &pt->state, &pt->state_code);
	read_state(c, dir, "phys_state", &pt->phys_state, &pt->phys_state_code);
	read_rate(c, pt, dir);
	for (size_t i = 0; i < GA_ARRAY_SIZE(pma_counters) && c->err == 0; i++)
		ga_col_attr_u64(c, GA_COL_OPT, (struct ga_ou64 *)((char *)pt + pma_counters[i].off),
		                "%s/counters/%s", dir, pma_counters[i].name);
	if (c->err == 0)
		read_hw_counters(c, pt, dir);
	if (c->err == 0)
		pt->netdev = port_netdev(c, d->dir, d->pci_dir, pnum);
}

static void device(struct ga_col *c, const char *name)
{
	struct ib_dev d = { .name = name };
	char link[4096];
	snprintf(link, sizeof(link), IB_CLASS "/%s", name);
	int r = ga_fs_resolve_link(c->ctx, link, &d.dir); /* a plain directory resolves to itself */
	if (r < 0) {
		if (r == -ENOMEM)
			c->err = r;
		else
			ga_col_gap(c, link, ga_fs_reason(r));
		return;
	}
	snprintf(link, sizeof(link), "%s/device", d.dir);
	const char *b = NULL;
	if (ga_fs_resolve_link(c->ctx, link, &d.pci_dir) == 0 && (b = strrchr(d.pci_dir, '/')) &&
	    strcmp(b + 1, "device") != 0) {
		d.pci_addr = ga_strdup(b + 1);
		if (!ga_col_ok(c, d.pci_addr))
			goto out;
		ga_col_attr_i64(c, GA_COL_OPT, &d.numa_node, "%s/numa_node", d.pci_dir);
	} else {
		ga_free(d.pci_dir);
		d.pci_dir = NULL;
	}
	ga_col_attr(c, GA_COL_OPT, &d.hca_type, "%s/hca_type", d.dir);
	ga_col_attr(c, GA_COL_OPT, &d.fw_ver, "%s/fw_ver", d.dir);
	ga_col_attr(c, GA_COL_OPT, &d.node_guid, "%s/node_guid", d.dir);
	char **ports = NULL;
	if (ga_col_list(c, &ports, NULL, "%s/ports", d.dir) == 0 && ports)
		for (char **p = ports; *p && c->err == 0; p++)
			port(c, &d, *p);
	ga_strv_free(ports);
out:
	ga_free(d.dir);
	ga_free(d.pci_dir);
	ga_free(d.pci_addr);
	ga_free(d.hca_type);
	ga_free(d.fw_ver);
	ga_free(d.node_guid);
}

void ga_collect_ib(struct ga_col *c)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, IB_CLASS) < 0 || !names)
		return;
	for (char **p = names; *p && c->err == 0; p++)
		device(c, *p);
	ga_strv_free(names);
}
