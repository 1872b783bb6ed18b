/*
 * host.c - host identity: name, kernel, OS, boot id, uptime, virtualization
 * and container hints, the kernel command-line flags that matter to GPUs,
 * and the glibc and libstdc++ the loader would use (their version
 * definitions: what a library's symbol version needs are judged against).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "gpuaudit/elfscan.h"
#include "gpuaudit/fs.h"

/* Command-line keys (exact, before '=') and prefixes that change GPU behaviour. */
static const char *const cmdline_keys[] = {
	"iommu",
	"intel_iommu",
	"amd_iommu",
	"pci",
	"pcie_aspm",
	"pcie_ports",
	"hugepages",
	"hugepagesz",
	"default_hugepagesz",
	"isolcpus",
	"nohz_full",
	"numa_balancing",
	"init_on_alloc",
	"mem_encrypt",
	"modprobe.blacklist",
	"rd.driver.blacklist",
	"module_blacklist",
	"nouveau.modeset",
	"vfio-pci.ids",
	"efi",
	"mitigations",
	"transparent_hugepage",
};
static const char *const cmdline_prefixes[] = { "nvidia.", "nvidia-drm.", "nvidia_drm.", "amdgpu.",
	                                        "i915.",   "xe.",         "vfio_pci." };

static bool gpu_flag(const char *tok)
{
	size_t kl = strcspn(tok, "=");
	for (size_t i = 0; i < GA_ARRAY_SIZE(cmdline_keys); i++)
		if (strlen(cmdline_keys[i]) == kl && !strncmp(tok, cmdline_keys[i], kl))
			return true;
	for (size_t i = 0; i < GA_ARRAY_SIZE(cmdline_prefixes); i++)
		if (ga_startswith(tok, cmdline_prefixes[i]))
			return true;
	return false;
}

static void cmdline(struct ga_col *c)
{
	struct ga_host *h = &c->node->host;
	if (ga_col_attr(c, GA_COL_REQ, &h->cmdline, "proc/cmdline") < 0)
		return;
	char *copy = ga_strdup(h->cmdline);
	if (!ga_col_ok(c, copy))
		return;
	char *save = NULL;
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
		if (gpu_flag(t))
			ga_col_strv_push(c, &h->gpu_cmdline_flags, t);
	ga_free(copy);
}

static void os_release(struct ga_col *c)
{
	struct ga_os *os = &c->node->host.os;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_col_read(c, GA_COL_OPT, &b, "etc/os-release") < 0 &&
	    ga_col_read(c, GA_COL_REQ, &b, "usr/lib/os-release") < 0)
		goto out;
	os->id = ga_col_kv(b.data, "ID", '=');
	os->version_id = ga_col_kv(b.data, "VERSION_ID", '=');
	os->pretty_name = ga_col_kv(b.data, "PRETTY_NAME", '=');
out:
	ga_buf_release(&b);
}

/* DMI vendor/product strings that mean "this is a virtual machine". */
static const struct {
	const char *needle;
	const char *name;
} hypervisors[] = {
	{ "QEMU", "kvm" },
	{ "KVM", "kvm" },
	{ "VMware", "vmware" },
	{ "VirtualBox", "virtualbox" },
	{ "innotek", "virtualbox" },
	{ "Microsoft Corporation", "hyperv" },
	{ "Xen", "xen" },
	{ "Amazon EC2", "aws-nitro" },
	{ "Google Compute Engine", "gce" },
	{ "OpenStack", "openstack" },
	{ "Cloud Hypervisor", "cloud-hypervisor" },
	{ "Firecracker", "firecracker" },
};

static void virt(struct ga_col *c)
{
	struct ga_virt *v = &c->node->host.virt;
	const char *dmi = ga_fs_is_dir(c->ctx, "sys/devices/virtual/dmi/id") ? "sys/devices/virtual/dmi/id"
	                                                                     : "sys/class/dmi/id";
	ga_col_attr(c, GA_COL_OPT, &v->dmi_sys_vendor, "%s/sys_vendor", dmi);
	ga_col_attr(c, GA_COL_OPT, &v->dmi_product_name, "%s/product_name", dmi);
	ga_col_attr(c, GA_COL_OPT, &v->dmi_product_version, "%s/product_version", dmi);
	ga_col_attr(c, GA_COL_OPT, &v->dmi_board_name, "%s/board_name", dmi);
	ga_col_attr(c, GA_COL_OPT, &v->dmi_bios_vendor, "%s/bios_vendor", dmi);
	ga_col_attr(c, GA_COL_OPT, &v->dmi_bios_version, "%s/bios_version", dmi);
	const char *fields[] = { v->dmi_sys_vendor, v->dmi_product_name, v->dmi_bios_vendor };
	for (size_t i = 0; i < GA_ARRAY_SIZE(hypervisors) && !v->hypervisor; i++)
		for (size_t k = 0; k < GA_ARRAY_SIZE(fields); k++)
			if (fields[k] && strstr(fields[k], hypervisors[i].needle)) {
				v->hypervisor = ga_strdup(hypervisors[i].name);
				ga_col_ok(c, v->hypervisor);
				break;
			}

	const char *container = NULL;
	if (ga_fs_exists(c->ctx, ".dockerenv"))
		container = "docker";
	else if (ga_fs_exists(c->ctx, "run/.containerenv"))
		container = "podman";
	else if (ga_fs_exists(c->ctx, "var/run/secrets/kubernetes.io"))
		container = "kubernetes";
	if (!container) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		if (ga_col_read(c, GA_COL_OPT, &b, "proc/1/cgroup") == 0) {
			if (strstr(b.data, "kubepods"))
				container = "kubernetes";
			else if (strstr(b.data, "/docker/") || strstr(b.data, "docker-"))
				container = "docker";
			else if (strstr(b.data, "libpod"))
				container = "podman";
			else if (strstr(b.data, "/lxc/"))
				container = "lxc";
		}
		ga_buf_release(&b);
	}
	if (container) {
		v->container = ga_strdup(container);
		ga_col_ok(c, v->container);
	}
}

/* Where libc.so.6 and libstdc++.so.6 live: the multiarch directories first (Debian, Ubuntu),
 * then lib64 (RHEL, SUSE), then lib (Arch, Alpine's glibc compat). The first one found is the
 * loader's: ld.so.conf never lists the C library itself. */
const char *const ga_collect_libc_dirs[] = {
	"lib/x86_64-linux-gnu",
	"usr/lib/x86_64-linux-gnu",
	"lib/aarch64-linux-gnu",
	"usr/lib/aarch64-linux-gnu",
	"lib/powerpc64le-linux-gnu",
	"usr/lib/powerpc64le-linux-gnu",
	"lib64",
	"usr/lib64",
	"lib",
	"usr/lib",
	NULL,
};

/* "libc-2.31.so" (glibc before 2.34 named the file by its release): "2.31" into out. */
static bool libc_file_version(const char *base, char *out, size_t outlen)
{
	size_t n = strlen(base);
	if (strncmp(base, "libc-", 5) || n < 9 || strcmp(base + n - 3, ".so") || n - 8 >= outlen)
		return false;
	snprintf(out, outlen, "%.*s", (int)(n - 8), base + 5);
	return out[0] >= '0' && out[0] <= '9' && strspn(out, "0123456789.") == strlen(out);
}

/*
 * The highest version path's version definitions name under prefix into v, from a read-only
 * mapping: the definitions and their strings are a few pages of a 2 MiB library, and reading
 * the whole file made this the largest cost of `discover` (4 MiB read per run). A regular file
 * only, at most GA_COLLECT_LIBC_MAX_BYTES. The C library is replaced by rename on upgrade, so
 * the mapped file is not cut short under us.
 */
static bool verdef_mapped(struct ga_col *c, const char *path, const char *prefix, char *v, size_t vlen)
{
	int fd = ga_fs_open(c->ctx, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= GA_COLLECT_LIBC_MAX_BYTES) {
		size_t len = (size_t)st.st_size;
		void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			ok = ga_elf_verdef_highest(c->ctx, m, len, prefix, v, vlen);
			munmap(m, len);
		}
	}
	close(fd);
	return ok;
}

/* The highest version lib (libc.so.6, libstdc++.so.6) defines under prefix, from the first
 * library directory that has it; *ret stays NULL when none does. */
static void lib_version(struct ga_col *c, const char *lib, const char *prefix, char **ret)
{
	char v[32] = "", path[256];
	for (size_t i = 0; ga_collect_libc_dirs[i] && !v[0]; i++) {
		snprintf(path, sizeof(path), "%s/%s", ga_collect_libc_dirs[i], lib);
		if (!ga_fs_exists(c->ctx, path))
			continue;
		if (verdef_mapped(c, path, prefix, v, sizeof(v)))
			break;
		/* no version definitions readable: the file the link names ("libc-2.31.so") */
		char *real = NULL;
		if (!strcmp(prefix, "GLIBC_") && ga_fs_resolve_link(c->ctx, path, &real) == 0) {
			const char *slash = strrchr(real, '/');
			libc_file_version(slash ? slash + 1 : real, v, sizeof(v));
		}
		ga_free(real);
		break;
	}
	if (v[0]) {
		*ret = ga_strdup(v);
		ga_col_ok(c, *ret);
	}
}

void ga_collect_host(struct ga_col *c)
{
	struct ga_host *h = &c->node->host;
	if (ga_col_attr(c, GA_COL_OPT, &h->hostname, "proc/sys/kernel/hostname") < 0)
		ga_col_attr(c, GA_COL_REQ, &h->hostname, "etc/hostname");
	ga_col_attr(c, GA_COL_REQ, &h->kernel_release, "proc/sys/kernel/osrelease");
	ga_col_attr(c, GA_COL_REQ, &h->kernel_version, "proc/sys/kernel/version");
	os_release(c);
	ga_col_attr(c, GA_COL_REQ, &h->boot_id, "proc/sys/kernel/random/boot_id");
	char *up = NULL;
	if (ga_col_attr(c, GA_COL_REQ, &up, "proc/uptime") == 0) {
		up[strcspn(up, " ")] = '\0';
		double v;
		if (ga_parse_dbl(up, &v) == 0 && v >= 0)
			GA_SET(h->uptime_s, v);
		else
			ga_col_gap(c, "proc/uptime", "unparsable");
	}
	ga_free(up);
	virt(c);
	cmdline(c);
	lib_version(c, "libc.so.6", "GLIBC_", &h->glibc);
	lib_version(c, "libstdc++.so.6", "GLIBCXX_", &h->libstdcxx);
}
