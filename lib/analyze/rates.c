/*
 * rates.c - turn two raw samples (lib/collect/sample.c) into rates for
 * `gpuaudit record`. Pure: no I/O. A counter that went backwards (wrap, a
 * reset, a device replaced under the same name) or a zero interval gives
 * null, never 0 or a huge bogus rate.
 */
#include <errno.h>
#include <string.h>

#include "gpuaudit/sample.h"
#include "gpuaudit/sample-analyze.h"

struct ga_odbl ga_rate_pct(uint64_t delta, uint64_t total)
{
	struct ga_odbl o = { 0 };
	if (total)
		GA_SET(o, 100.0 * (double)delta / (double)total);
	return o;
}

struct ga_odbl ga_rate_per_s(uint64_t prev, uint64_t cur, double interval_s)
{
	struct ga_odbl o = { 0 };
	if (cur >= prev && interval_s > 0)
		GA_SET(o, (double)(cur - prev) / interval_s);
	return o;
}

static struct ga_ou64 delta_u64(uint64_t prev, uint64_t cur)
{
	struct ga_ou64 o = { 0 };
	if (cur >= prev)
		GA_SET(o, cur - prev);
	return o;
}

static struct ga_ou64 delta_o(struct ga_ou64 prev, struct ga_ou64 cur)
{
	struct ga_ou64 o = { 0 };
	if (prev.set && cur.set)
		o = delta_u64(prev.v, cur.v);
	return o;
}

static struct ga_odbl per_s_o(struct ga_ou64 prev, struct ga_ou64 cur, double interval_s)
{
	struct ga_odbl o = { 0 };
	if (prev.set && cur.set)
		o = ga_rate_per_s(prev.v, cur.v, interval_s);
	return o;
}

static void cpu_rate(const struct ga_cpu_raw *p, const struct ga_cpu_raw *c, double interval_s,
                     struct ga_cpu_rate *ret)
{
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->name, c->name, sizeof(ret->name));
	if (!p || !(interval_s > 0))
		return;
	const uint64_t pv[8] = {
		p->user, p->nice, p->system, p->idle, p->iowait, p->irq, p->softirq, p->steal
	};
	const uint64_t cv[8] = {
		c->user, c->nice, c->system, c->idle, c->iowait, c->irq, c->softirq, c->steal
	};
	uint64_t d[8], total = 0;
	for (int i = 0; i < 8; i++) {
		if (cv[i] < pv[i])
			return; /* wrapped or reset (a CPU went offline and back): no rate */
		d[i] = cv[i] - pv[i];
		total += d[i];
	}
	ret->user_pct = ga_rate_pct(d[0] + d[1], total);
	ret->system_pct = ga_rate_pct(d[2] + d[5] + d[6], total);
	ret->idle_pct = ga_rate_pct(d[3], total);
	ret->iowait_pct = ga_rate_pct(d[4], total);
	ret->steal_pct = ga_rate_pct(d[7], total);
}

static const struct ga_cpu_raw *find_cpu(const struct ga_sample_raw *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_cpus; i++)
		if (!strcmp(s->cpus[i].name, name))
			return &s->cpus[i];
	return NULL;
}

static const struct ga_disk_raw *find_disk(const struct ga_sample_raw *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_disks; i++)
		if (!strcmp(s->disks[i].name, name))
			return &s->disks[i];
	return NULL;
}

static const struct ga_net_raw *find_net(const struct ga_sample_raw *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_nets; i++)
		if (!strcmp(s->nets[i].name, name))
			return &s->nets[i];
	return NULL;
}

static void disk_rate(const struct ga_disk_raw *p, const struct ga_disk_raw *c, double iv,
                      struct ga_disk_rate *ret)
{
	memcpy(ret->name, c->name, sizeof(ret->name));
	if (!p || !(iv > 0))
		return;
	ret->reads_per_s = ga_rate_per_s(p->reads, c->reads, iv);
	ret->writes_per_s = ga_rate_per_s(p->writes, c->writes, iv);
	if (c->read_sectors >= p->read_sectors)
		GA_SET(ret->read_bytes_per_s, (double)(c->read_sectors - p->read_sectors) * 512.0 / iv);
	if (c->write_sectors >= p->write_sectors)
		GA_SET(ret->write_bytes_per_s, (double)(c->write_sectors - p->write_sectors) * 512.0 / iv);
	if (c->reads >= p->reads && c->writes >= p->writes && c->read_ms >= p->read_ms &&
	    c->write_ms >= p->write_ms) {
		uint64_t ios = (c->reads - p->reads) + (c->writes - p->writes);
		uint64_t ms = (c->read_ms - p->read_ms) + (c->write_ms - p->write_ms);
		if (ios)
			GA_SET(ret->await_ms, (double)ms / (double)ios);
	}
	if (c->io_ticks_ms >= p->io_ticks_ms) {
		double u = (double)(c->io_ticks_ms - p->io_ticks_ms) / (iv * 1000.0) * 100.0;
		GA_SET(ret->util_pct, u > 100.0 ? 100.0 : u);
	}
}

static void net_rate(const struct ga_net_raw *p, const struct ga_net_raw *c, double iv,
                     struct ga_net_rate *ret)
{
	memcpy(ret->name, c->name, sizeof(ret->name));
	if (!p)
		return;
	ret->rx_bytes_per_s = per_s_o(p->rx_bytes, c->rx_bytes, iv);
	ret->tx_bytes_per_s = per_s_o(p->tx_bytes, c->tx_bytes, iv);
	ret->rx_packets_per_s = per_s_o(p->rx_packets, c->rx_packets, iv);
	ret->tx_packets_per_s = per_s_o(p->tx_packets, c->tx_packets, iv);
	if (!(iv > 0))
		return;
	ret->rx_dropped = delta_o(p->rx_dropped, c->rx_dropped);
	ret->tx_dropped = delta_o(p->tx_dropped, c->tx_dropped);
	ret->rx_errors = delta_o(p->rx_errors, c->rx_errors);
	ret->tx_errors = delta_o(p->tx_errors, c->tx_errors);
}

static void psi_line(const struct ga_psi_line_raw *p, const struct ga_psi_line_raw *c, double iv,
                     struct ga_psi_line_rate *ret)
{
	if (!c->set)
		return;
	GA_SET(ret->avg10, c->avg10);
	if (p->set && iv > 0)
		ret->total_delta_us = delta_u64(p->total_us, c->total_us);
}

int ga_sample_rates(const struct ga_sample_raw *prev, const struct ga_sample_raw *cur, double interval_s,
                    struct ga_sample *ret)
{
	struct ga_sample s;
	memset(&s, 0, sizeof(s));
	s.interval_s = interval_s;
	size_t ncores = 0;
	for (size_t i = 0; i < cur->n_cpus; i++)
		ncores += strcmp(cur->cpus[i].name, "cpu") != 0;
	if ((ncores && !(s.cores = ga_calloc(ncores, sizeof(*s.cores)))) ||
	    (cur->n_disks && !(s.disks = ga_calloc(cur->n_disks, sizeof(*s.disks)))) ||
	    (cur->n_nets && !(s.nets = ga_calloc(cur->n_nets, sizeof(*s.nets)))) ||
	    (cur->n_gpus && !(s.gpus = ga_calloc(cur->n_gpus, sizeof(*s.gpus))))) {
		ga_sample_release(&s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cur->n_cpus; i++) {
		const struct ga_cpu_raw *c = &cur->cpus[i];
		if (!strcmp(c->name, "cpu"))
			cpu_rate(find_cpu(prev, c->name), c, interval_s, &s.total);
		else
			cpu_rate(find_cpu(prev, c->name), c, interval_s, &s.cores[s.n_cores++]);
	}
	for (int i = 0; i < GA_PSI_N; i++) {
		psi_line(&prev->psi[i].some, &cur->psi[i].some, interval_s, &s.psi[i].some);
		psi_line(&prev->psi[i].full, &cur->psi[i].full, interval_s, &s.psi[i].full);
	}
	s.mem = cur->mem;
	for (size_t i = 0; i < cur->n_disks; i++)
		disk_rate(find_disk(prev, cur->disks[i].name), &cur->disks[i], interval_s,
		          &s.disks[s.n_disks++]);
	for (size_t i = 0; i < cur->n_nets; i++)
		net_rate(find_net(prev, cur->nets[i].name), &cur->nets[i], interval_s, &s.nets[s.n_nets++]);
	if (cur->n_gpus)
		memcpy(s.gpus, cur->gpus, cur->n_gpus * sizeof(*s.gpus));
	s.n_gpus = cur->n_gpus;
	*ret = s;
	return 0;
}

void ga_sample_release(struct ga_sample *s)
{
	if (!s)
		return;
	ga_free(s->cores);
	ga_free(s->disks);
	ga_free(s->nets);
	ga_free(s->gpus);
	memset(s, 0, sizeof(*s));
}
