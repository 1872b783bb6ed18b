/*
 * accel.c - kernel modules, GPU drivers and accelerators: the vendor view
 * that sysfs and procfs give without any vendor library (NVIDIA procfs,
 * amdgpu sysfs and KFD topology, i915/xe sysfs), plus the device nodes a
 * process needs to use each accelerator.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dl/archive_dl.h"
#include "collect.h"

static const char *const interesting_modules[] = {
	"nvidia",  "nvidia_uvm", "nvidia_modeset", "nvidia_drm", "nvidia_peermem", "nv_peer_mem", "gdrdrv",
	"nouveau", "amdgpu",     "i915",           "xe",         "habanalabs",     "mlx5_core",   "mlx5_ib",
	"ib_core", "ib_uverbs",  "vfio_pci",
};

void ga_collect_modules(struct ga_col *c)
{
	struct ga_node *n = c->node;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	const char *source = NULL;
	if (ga_col_read(c, GA_COL_OPT, &b, "proc/modules") == 0) {
		source = "/proc/modules";
		char *save = NULL;
		for (char *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			line[strcspn(line, " ")] = '\0';
			for (size_t i = 0; i < GA_ARRAY_SIZE(interesting_modules); i++)
				if (!strcmp(line, interesting_modules[i]) &&
				    !ga_strv_contains(&n->modules, line))
					ga_col_strv_push(c, &n->modules, line);
		}
	} else if (ga_fs_is_dir(c->ctx, "sys/module")) {
		/* No module support (or no procfs): built-in drivers still show in /sys/module. */
		source = "/sys/module";
		for (size_t i = 0; i < GA_ARRAY_SIZE(interesting_modules); i++) {
			char p[128];
			snprintf(p, sizeof(p), "sys/module/%s", interesting_modules[i]);
			if (ga_fs_is_dir(c->ctx, p))
				ga_col_strv_push(c, &n->modules, interesting_modules[i]);
		}
	}
	ga_buf_release(&b);
	if (source) {
		n->modules_source = ga_strdup(source);
		ga_col_ok(c, n->modules_source);
	}
}

/* --- drivers ---------------------------------------------------------------- */

static struct ga_driver *driver_get(struct ga_col *c, const char *name)
{
	struct ga_node *n = c->node;
	for (size_t i = 0; i < n->n_drivers; i++)
		if (!strcmp(n->drivers[i].name, name))
			return &n->drivers[i];
	struct ga_driver *d = ga_array_push((void **)&n->drivers, &n->n_drivers, sizeof(*d));
	if (!ga_col_ok(c, d))
		return NULL;
	d->name = ga_strdup(name);
	if (!ga_col_ok(c, d->name))
		return NULL;
	GA_SET(d->loaded, ga_strv_contains(&n->modules, name));
	ga_col_attr(c, GA_COL_OPT, &d->module_version, "sys/module/%s/version", name);
	return d;
}

/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ..." */
static void nvidia_proc_version(struct ga_col *c, struct ga_driver *d)
{
	char *text = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &text, "proc/driver/nvidia/version") < 0)
		return;
	const char *p = strstr(text, "Kernel Module");
	if (!p) {
		ga_col_gap(c, "proc/driver/nvidia/version", "unparsable");
		goto out;
	}
	d->flavor = ga_strdup(strstr(text, "Open Kernel Module") ? "open" : "proprietary");
	ga_col_ok(c, d->flavor);
	p += strlen("Kernel Module");
	while (*p == ' ')
		p++;
	if (ga_startswith(p, "for ")) { /* open module: "for x86_64" */
		p += 4;
		p += strcspn(p, " ");
		while (*p == ' ')
			p++;
	}
	size_t len = strcspn(p, " \t\n");
	if (len == 0 || len > 32) {
		ga_col_gap(c, "proc/driver/nvidia/version", "unparsable");
		goto out;
	}
	d->proc_version = ga_strndup(p, len);
	ga_col_ok(c, d->proc_version);
out:
	ga_free(text);
}

/*
 * The NVIDIA module versions DKMS has installed for the running kernel: DKMS records an install
 * as the link <tree>/kernel-<release>-<arch> -> <version>/<release>/<arch> (dkms(8), its tree
 * /var/lib/dkms/<module>/); that version is the module a reboot loads. The DKMS module is
 * "nvidia" from NVIDIA's packages, Ubuntu's and the .run installer's --dkms, "nvidia-current"
 * (and "nvidia-tesla-*", "nvidia-legacy-*") from Debian's, "nvidia-open" from some open-module
 * packages. No tree: dkms_tree stays NULL (unknown). A tree that cannot be read is a gap and
 * leaves dkms_tree NULL too: what was not read decides nothing.
 */
static int dkms_links(struct ga_col *c, const char *dir, const char *kr, struct ga_strv *out)
{
	char **names = NULL;
	size_t nn = 0;
	int r = ga_fs_list(c->ctx, dir, &names, &nn);
	if (r < 0) {
		ga_col_gap(c, dir, ga_fs_reason(r));
		return r;
	}
	size_t kl = strlen(kr);
	for (size_t k = 0; k < nn && r == 0; k++) {
		const char *x = names[k];
		if (!ga_startswith(x, "kernel-") || strncmp(x + 7, kr, kl) || x[7 + kl] != '-')
			continue;
		char path[512], *target = NULL;
		snprintf(path, sizeof(path), "%s/%s", dir, x);
		r = ga_fs_readlink(c->ctx, path, &target);
		if (r < 0) {
			ga_col_gap(c, path, r == -EINVAL ? "not a symbolic link" : ga_fs_reason(r));
			break;
		}
		target[strcspn(target, "/")] = '\0'; /* "<version>/<release>/<arch>" */
		if (*target && !ga_strv_contains(out, target) && ga_strv_push(out, target) < 0)
			r = -ENOMEM;
		ga_free(target);
	}
	ga_strv_free(names);
	return r;
}

static void nvidia_dkms(struct ga_col *c, struct ga_driver *d)
{
	const char *kr = c->node->host.kernel_release;
	char **mods = NULL;
	size_t nm = 0;
	if (!kr)
		return;
	int r = ga_fs_list(c->ctx, "var/lib/dkms", &mods, &nm);
	if (r < 0) {
		if (r != -ENOENT)
			ga_col_gap(c, "var/lib/dkms", ga_fs_reason(r));
		return;
	}
	struct ga_strv inst = { 0 };
	char tree[260] = "";
	for (size_t i = 0; i < nm && r == 0; i++) {
		const char *m = mods[i];
		if (strcmp(m, "nvidia") && strcmp(m, "nvidia-current") && strcmp(m, "nvidia-open") &&
		    !ga_startswith(m, "nvidia-tesla") && !ga_startswith(m, "nvidia-legacy"))
			continue;
		char dir[256];
		snprintf(dir, sizeof(dir), "var/lib/dkms/%s", m);
		r = dkms_links(c, dir, kr, &inst);
		if (!*tree)
			snprintf(tree, sizeof(tree), "/%s", dir);
	}
	ga_strv_free(mods);
	if (r == -ENOMEM)
		ga_col_ok(c, NULL);
	if (r < 0 || !*tree) {
		ga_strv_release(&inst);
		return;
	}
	d->dkms_tree = ga_strdup(tree);
	ga_col_ok(c, d->dkms_tree);
	d->dkms_installed = inst;
}

/*
 * The version in the .modinfo of an NVIDIA module file: read where it lies when the file is
 * uncompressed (modinfo_pread), else as a stream (compressed with xz, zstd or gzip as
 * distributions install them), never held whole: nvidia.ko is tens of MB. The ELF header (ELF64, little-endian) gives the section header table's place; every
 * NUL-delimited "version=<digits and dots>" entry is a candidate; the version is the first
 * candidate inside a section of the shape of .modinfo (SHT_PROGBITS, flags SHF_ALLOC alone,
 * alignment 1: not .rodata's strings, which carry the merge and strings flags). NULL with
 * *why set when the file is no such ELF or holds no such entry.
 */
#define MODINFO_MAX_CAND 64
#define MODINFO_MAX_STREAM ((uint64_t)1 << 30)

struct modinfo_scan {
	unsigned char ehdr[64];
	uint64_t off, shoff;
	unsigned shnum;
	unsigned char *sh; /* the section header table, as it passes */
	size_t sh_len, sh_got;
	char carry[96]; /* the last bytes of the previous block: an entry cut in two */
	size_t carry_n;
	struct {
		uint64_t at;
		char v[48];
	} cand[MODINFO_MAX_CAND];
	size_t n_cand;
	bool by_section; /* modinfo_pread: candidates come section by section */
};

static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Candidates in [p, p + n) at stream offset base: "\0version=" then digits and dots then NUL. */
static void modinfo_cands(struct modinfo_scan *m, const char *p, size_t n, uint64_t base)
{
	static const char key[] = "version=";
	for (size_t i = 1; i + 8 < n && m->n_cand < MODINFO_MAX_CAND; i++) {
		if (p[i] != 'v' || p[i - 1] != '\0' || memcmp(p + i, key, 8))
			continue;
		/* found already (a block's entry is in the next block's carry too; a stream only:
		 * modinfo_pread reads sections in the table's order, not the file's) */
		if (!m->by_section && m->n_cand && base + i <= m->cand[m->n_cand - 1].at)
			continue;
		size_t k = i + 8, dots = 0;
		while (k < n && k - i - 8 < sizeof(m->cand[0].v) - 1 &&
		       ((p[k] >= '0' && p[k] <= '9') || p[k] == '.')) {
			dots += p[k] == '.';
			k++;
		}
		if (k >= n || p[k] != '\0' || k == i + 8 || !dots)
			continue;
		m->cand[m->n_cand].at = base + i;
		snprintf(m->cand[m->n_cand].v, sizeof(m->cand[0].v), "%.*s", (int)(k - i - 8), p + i + 8);
		m->n_cand++;
	}
}

static void modinfo_feed(struct modinfo_scan *m, const char *p, size_t n)
{
	for (size_t i = 0; i < n && m->off + i < sizeof(m->ehdr); i++)
		m->ehdr[m->off + i] = (unsigned char)p[i];
	if (m->off < sizeof(m->ehdr) && m->off + n >= sizeof(m->ehdr)) {
		const unsigned char *h = m->ehdr;
		if (!memcmp(h, "\177ELF", 4) && h[4] == 2 && h[5] == 1 && le(h + 0x3a, 2) == 64) {
			m->shoff = le(h + 0x28, 8);
			m->shnum = (unsigned)le(h + 0x3c, 2);
			/* a table inside the ELF header is no module's (and would be read or not by how
			 * the stream was cut) */
			if (m->shnum && m->shoff >= sizeof(m->ehdr) &&
			    (m->sh = ga_malloc((size_t)m->shnum * 64)))
				m->sh_len = (size_t)m->shnum * 64;
		}
	}
	/* the section header table as it passes */
	if (m->sh && m->sh_got < m->sh_len && m->off + n > m->shoff + m->sh_got) {
		uint64_t from = m->shoff + m->sh_got;
		size_t in = from > m->off ? (size_t)(from - m->off) : 0;
		size_t take = n - in < m->sh_len - m->sh_got ? n - in : m->sh_len - m->sh_got;
		if (from >= m->off) {
			memcpy(m->sh + m->sh_got, p + in, take);
			m->sh_got += take;
		}
	}
	/* entries, also one cut between this block and the last: the carry (the stream's last
	 * bytes before this block) and this block's first bytes are searched together, for the
	 * entries that start in the carry or at the block's first byte (the block's own search
	 * starts at its second byte: an entry needs the NUL before it) */
	if (m->carry_n) {
		char joint[2 * sizeof(m->carry)];
		size_t jn = n < sizeof(m->carry) ? n : sizeof(m->carry);
		memcpy(joint, m->carry, m->carry_n);
		memcpy(joint + m->carry_n, p, jn);
		size_t before = m->n_cand;
		modinfo_cands(m, joint, m->carry_n + jn, m->off - m->carry_n);
		size_t w = before;
		for (size_t i = before; i < m->n_cand; i++)
			if (m->cand[i].at <= m->off)
				m->cand[w++] = m->cand[i];
		m->n_cand = w;
	}
	modinfo_cands(m, p, n, m->off);
	/* the carry: the stream's last bytes, up to its size */
	if (n >= sizeof(m->carry)) {
		memcpy(m->carry, p + n - sizeof(m->carry), sizeof(m->carry));
		m->carry_n = sizeof(m->carry);
	} else {
		size_t old = m->carry_n + n > sizeof(m->carry) ? sizeof(m->carry) - n : m->carry_n;
		memmove(m->carry, m->carry + m->carry_n - old, old);
		memcpy(m->carry + old, p, n);
		m->carry_n = old + n;
	}
	m->off += n;
}

static const char *modinfo_result(const struct modinfo_scan *m)
{
	if (!m->sh || m->sh_got < m->sh_len)
		return NULL;
	for (size_t c = 0; c < m->n_cand; c++)
		for (unsigned i = 0; i < m->shnum; i++) {
			const unsigned char *h = m->sh + (size_t)i * 64;
			uint64_t type = le(h + 4, 4), flags = le(h + 8, 8), off = le(h + 0x18, 8),
			         size = le(h + 0x20, 8), align = le(h + 0x30, 8);
			if (type == 1 && flags == 2 && align <= 1 && m->cand[c].at >= off &&
			    m->cand[c].at - off < size)
				return m->cand[c].v;
		}
	return NULL;
}

/* The version of an uncompressed module file by pread; NULL (errno 0) when it is not an
 * uncompressed ELF64 module with one (then it is read as a stream), errno ENOMEM. */
static char *modinfo_pread(int fd)
{
	struct modinfo_scan m = { .by_section = true };
	char *ret = NULL;
	errno = 0;
	if (pread(fd, m.ehdr, sizeof(m.ehdr), 0) != (ssize_t)sizeof(m.ehdr))
		return NULL;
	const unsigned char *h = m.ehdr;
	if (memcmp(h, "\177ELF", 4) || h[4] != 2 || h[5] != 1 || le(h + 0x3a, 2) != 64)
		return NULL;
	m.shoff = le(h + 0x28, 8);
	m.shnum = (unsigned)le(h + 0x3c, 2);
	if (!m.shnum || m.shoff < sizeof(m.ehdr) || m.shoff > ((uint64_t)1 << 40))
		return NULL;
	m.sh_len = (size_t)m.shnum * 64;
	if (!(m.sh = ga_malloc(m.sh_len))) {
		errno = ENOMEM;
		return NULL;
	}
	if (pread(fd, m.sh, m.sh_len, (off_t)m.shoff) != (ssize_t)m.sh_len)
		goto out;
	m.sh_got = m.sh_len;
	for (unsigned i = 0; i < m.shnum && m.n_cand < MODINFO_MAX_CAND; i++) {
		const unsigned char *sh = m.sh + (size_t)i * 64;
		uint64_t off = le(sh + 0x18, 8), size = le(sh + 0x20, 8);
		if (le(sh + 4, 4) != 1 || le(sh + 8, 8) != 2 || le(sh + 0x30, 8) > 1 || !off || !size ||
		    size > (1u << 20))
			continue;
		/* the byte before the section too: its first entry needs the NUL before it */
		char *b = ga_malloc((size_t)size + 1);
		if (!b) {
			errno = ENOMEM;
			goto out;
		}
		if (pread(fd, b, (size_t)size + 1, (off_t)(off - 1)) == (ssize_t)size + 1)
			modinfo_cands(&m, b, (size_t)size + 1, off - 1);
		ga_free(b);
	}
	const char *v = modinfo_result(&m);
	if (v && !(ret = ga_strdup(v)))
		errno = ENOMEM;
out:
	ga_free(m.sh);
	return ret;
}

char *ga_modinfo_version(const char *data, size_t n, size_t chunk)
{
	struct modinfo_scan m = { .off = 0 };
	if (!chunk)
		chunk = n ? n : 1;
	for (size_t i = 0; i < n && m.off < MODINFO_MAX_STREAM; i += chunk)
		modinfo_feed(&m, data + i, n - i < chunk ? n - i : chunk);
	const char *v = modinfo_result(&m);
	char *r = v ? ga_strdup(v) : NULL;
	ga_free(m.sh);
	return r;
}

static char *module_file_version(struct ga_col *c, const char *path, const char **why)
{
	int fd = ga_fs_open(c->ctx, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		*why = ga_fs_reason(fd);
		return NULL;
	}
	/* an uncompressed module: the header, the section header table and the sections of
	 * .modinfo's shape are read where they lie, not the whole file */
	char *plain = modinfo_pread(fd);
	if (plain || errno == ENOMEM) {
		close(fd);
		*why = "out of memory";
		return plain;
	}
	struct archive *a = archive_read_new();
	char *buf = ga_malloc(1 << 16), *ret = NULL;
	struct modinfo_scan m = { .off = 0 };
	*why = "not an ELF64 little-endian module with a .modinfo version";
	if (!a || !buf) {
		*why = a ? "out of memory" : "libarchive.so.13 is not installed (it decompresses the module)";
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	struct archive_entry *e;
	if (archive_read_open_fd(a, fd, 1 << 16) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		*why = "cannot read or decompress it";
		goto out;
	}
	la_ssize_t got;
	while ((got = archive_read_data(a, buf, 1 << 16)) > 0 && m.off < MODINFO_MAX_STREAM)
		modinfo_feed(&m, buf, (size_t)got);
	if (got < 0) {
		*why = "cannot decompress it";
		goto out;
	}
	const char *v = modinfo_result(&m);
	if (v && !(ret = ga_strdup(v)))
		*why = "out of memory";
out:
	if (a)
		archive_read_free(a);
	ga_free(buf);
	ga_free(m.sh);
	close(fd);
	return ret;
}

/* The nvidia module's path in modules.dep ("updates/dkms/nvidia.ko.zst: ..."), relative to the root. */
static char *modules_dep_nvidia(const char *dep, size_t n, const char *kr)
{
	static const char *const names[] = { "nvidia.ko", "nvidia.ko.xz", "nvidia.ko.zst", "nvidia.ko.gz" };
	for (const char *l = dep; l < dep + n;) {
		const char *nl = memchr(l, '\n', (size_t)(dep + n - l));
		size_t ll = (size_t)((nl ? nl : dep + n) - l);
		const char *colon = memchr(l, ':', ll);
		if (colon) {
			size_t pl = (size_t)(colon - l);
			const char *slash = memrchr(l, '/', pl);
			const char *base = slash ? slash + 1 : l;
			size_t bl = (size_t)(colon - base);
			for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
				if (strlen(names[k]) == bl && !memcmp(base, names[k], bl)) {
					char path[600];
					if (*l == '/')
						snprintf(path, sizeof(path), "%.*s", (int)pl - 1, l + 1);
					else
						snprintf(path, sizeof(path), "lib/modules/%s/%.*s", kr,
						         (int)pl, l);
					return ga_strdup(path);
				}
		}
		l = nl ? nl + 1 : dep + n;
	}
	return NULL;
}

void ga_collect_nvidia_module_file(struct ga_col *c)
{
	struct ga_node *n = c->node;
	struct ga_driver *d = (struct ga_driver *)ga_node_driver(n, "nvidia");
	const struct ga_runtime *lib = ga_node_nvidia_userspace(n);
	const char *kr = n->host.kernel_release;
	/* only the question it answers: on the host, libraries and loaded module differ */
	if (!d || !d->version || !lib || !lib->version || !strcmp(lib->version, d->version) || !kr ||
	    n->host.virt.container || c->err)
		return;
	char dep_path[300];
	snprintf(dep_path, sizeof(dep_path), "lib/modules/%s/modules.dep", kr);
	struct ga_buf dep;
	ga_buf_init(&dep, 0);
	int r = ga_fs_read(c->ctx, dep_path, 64u << 20, &dep);
	if (r < 0) {
		if (r != -ENOENT)
			ga_col_gap(c, dep_path, ga_fs_reason(r));
		ga_buf_release(&dep);
		return;
	}
	char *path = modules_dep_nvidia(dep.data, dep.len, kr);
	ga_buf_release(&dep);
	if (!path)
		return;
	const char *why = NULL;
	char *v = module_file_version(c, path, &why);
	if (!v) {
		ga_col_gap(c, path, why);
		ga_free(path);
		return;
	}
	char *abs = ga_malloc(strlen(path) + 2);
	if (abs)
		snprintf(abs, strlen(path) + 2, "/%s", path);
	ga_free(path);
	d->module_file = abs;
	d->module_file_version = v;
	ga_col_ok(c, d->module_file);
}

static void drivers(struct ga_col *c)
{
	struct ga_node *n = c->node;
	bool nv = ga_strv_contains(&n->modules, "nvidia") || ga_fs_is_dir(c->ctx, "proc/driver/nvidia");
	for (size_t i = 0; i < n->n_pci; i++)
		if (n->pci[i].driver && !strcmp(n->pci[i].driver, "nvidia"))
			nv = true;
	if (nv) {
		struct ga_driver *d = driver_get(c, "nvidia");
		if (!d)
			return;
		nvidia_proc_version(c, d);
		nvidia_dkms(c, d);
		const char *v = d->proc_version ? d->proc_version : d->module_version;
		d->version = ga_strdup(v);
		if (v)
			ga_col_ok(c, d->version);
	}
	static const char *const others[] = { "amdgpu", "i915", "xe", "habanalabs" };
	for (size_t k = 0; k < GA_ARRAY_SIZE(others); k++) {
		bool used = ga_strv_contains(&n->modules, others[k]);
		for (size_t i = 0; i < n->n_pci && !used; i++)
			used = n->pci[i].driver && !strcmp(n->pci[i].driver, others[k]);
		if (!used)
			continue;
		struct ga_driver *d = driver_get(c, others[k]);
		if (!d)
			return;
		/* An out-of-tree build (DKMS, Intel's backport) declares a version; in-tree ones
		 * are the kernel's own. */
		const char *v = d->module_version ? d->module_version : n->host.kernel_release;
		d->flavor = ga_strdup(d->module_version ? "out-of-tree" : "in-tree");
		ga_col_ok(c, d->flavor);
		if (v) {
			d->version = ga_strdup(v);
			ga_col_ok(c, d->version);
		}
	}
}

/* --- device nodes ----------------------------------------------------------- */

static void dev_nodes(struct ga_col *c)
{
	struct ga_node *n = c->node;
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "dev") < 0)
		return;
	for (char **p = names; *p; p++) {
		char path[300];
		if (ga_startswith(*p, "nvidia") || !strcmp(*p, "kfd")) {
			if (!strcmp(*p, "nvidia-caps")) {
				char **caps = NULL;
				if (ga_col_list(c, &caps, NULL, "dev/nvidia-caps") == 0) {
					for (char **q = caps; *q; q++) {
						snprintf(path, sizeof(path), "/dev/nvidia-caps/%s", *q);
						ga_col_strv_push(c, &n->device_nodes, path);
					}
					ga_strv_free(caps);
				}
				continue;
			}
			snprintf(path, sizeof(path), "/dev/%s", *p);
			ga_col_strv_push(c, &n->device_nodes, path);
		} else if (!strcmp(*p, "dri") || !strcmp(*p, "accel")) {
			char **sub = NULL;
			if (ga_col_list(c, &sub, NULL, "dev/%s", *p) == 0) {
				for (char **q = sub; *q; q++) {
					if (!strcmp(*q, "by-path"))
						continue;
					snprintf(path, sizeof(path), "/dev/%s/%s", *p, *q);
					ga_col_strv_push(c, &n->device_nodes, path);
				}
				ga_strv_free(sub);
			}
		}
	}
	ga_strv_free(names);
}

static void expect_node(struct ga_col *c, struct ga_accel *a, const char *path)
{
	if (ga_strv_contains(&c->node->device_nodes, path))
		ga_col_strv_push(c, &a->device_nodes, path);
	else
		ga_col_strv_push(c, &a->missing_nodes, path);
}

/* --- per vendor ----------------------------------------------------------- */

static void nvidia(struct ga_col *c, struct ga_accel *a, const struct ga_pci_dev *pd)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	if (ga_col_read(c, pd->driver && !strcmp(pd->driver, "nvidia") ? GA_COL_REQ : GA_COL_OPT, &b,
	                "proc/driver/nvidia/gpus/%s/information", pd->address) == 0) {
		a->model = ga_col_kv(b.data, "Model", ':');
		a->uuid = ga_col_kv(b.data, "GPU UUID", ':');
		a->vbios_version = ga_col_kv(b.data, "Video BIOS", ':');
		char *minor = ga_col_kv(b.data, "Device Minor", ':');
		uint64_t m;
		if (minor && ga_parse_u64(minor, 10, &m) == 0)
			GA_SET(a->minor, m);
		ga_free(minor);
		char *ex = ga_col_kv(b.data, "GPU Excluded", ':');
		if (ex)
			GA_SET(a->excluded, !strcmp(ex, "Yes"));
		ga_free(ex);
	}
	ga_buf_release(&b);
	if (pd->driver && !strcmp(pd->driver, "nvidia")) {
		char p[64];
		if (a->minor.set) {
			snprintf(p, sizeof(p), "/dev/nvidia%llu", (unsigned long long)a->minor.v);
			expect_node(c, a, p);
		}
		expect_node(c, a, "/dev/nvidiactl");
		expect_node(c, a, "/dev/nvidia-uvm");
	}
	size_t nvswitches = 0;
	for (size_t i = 0; i < c->node->n_pci; i++)
		if (!strcmp(c->node->pci[i].kind, "nvswitch"))
			nvswitches++;
	if (nvswitches) {
		char h[32];
		snprintf(h, sizeof(h), "nvswitch:%zu", nvswitches);
		ga_col_strv_push(c, &a->interconnect, h);
	}
}

static void drm_minors(struct ga_col *c, struct ga_accel *a, const char *phys, char **ret_card)
{
	char **names = NULL;
	if (ga_col_list(c, &names, NULL, "%s/drm", phys) < 0)
		return;
	for (char **p = names; *p; p++) {
		if (ga_startswith(*p, "renderD")) {
			char path[300];
			snprintf(path, sizeof(path), "/dev/dri/%s", *p);
			expect_node(c, a, path);
		} else if (ga_startswith(*p, "card") && !*ret_card) {
			*ret_card = ga_strdup(*p);
			ga_col_ok(c, *ret_card);
		}
	}
	ga_strv_free(names);
}

/* KFD topology node of this GPU, matched on PCI location; returns its index or -1. */
static void amd_kfd(struct ga_col *c, struct ga_accel *a, const struct ga_pci_dev *pd)
{
	unsigned dom, bus, dev, fn;
	if (sscanf(pd->address, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return;
	uint64_t loc = ((uint64_t)bus << 8) | ((uint64_t)dev << 3) | fn;
	const char *topo = "sys/class/kfd/kfd/topology/nodes";
	char **nodes = NULL;
	if (ga_col_list(c, &nodes, NULL, "%s", topo) < 0)
		return;
	for (char **p = nodes; *p; p++) {
		struct ga_buf b;
		ga_buf_init(&b, 0);
		if (ga_col_read(c, GA_COL_OPT, &b, "%s/%s/properties", topo, *p) < 0) {
			ga_buf_release(&b);
			continue;
		}
		char *lv = ga_col_kv(b.data, "location_id", ' ');
		char *dv = ga_col_kv(b.data, "domain", ' ');
		char *gv = ga_col_kv(b.data, "gfx_target_version", ' ');
		uint64_t l, d = 0, g;
		bool match = lv && ga_parse_u64(lv, 10, &l) == 0 && l == loc &&
		             (!dv || (ga_parse_u64(dv, 10, &d) == 0 && d == dom));
		if (match && gv && ga_parse_u64(gv, 10, &g) == 0 && g > 0) {
			char t[32];
			snprintf(t, sizeof(t), "gfx%llu%llx%llx", (unsigned long long)(g / 10000),
			         (unsigned long long)((g / 100) % 100), (unsigned long long)(g % 100));
			a->gfx_target = ga_strdup(t);
			ga_col_ok(c, a->gfx_target);
		}
		if (match) {
			char **links = NULL;
			size_t xgmi = 0;
			if (ga_col_list(c, &links, NULL, "%s/%s/io_links", topo, *p) == 0) {
				for (char **q = links; *q; q++) {
					struct ga_buf lb;
					ga_buf_init(&lb, 0);
					if (ga_col_read(c, GA_COL_OPT, &lb, "%s/%s/io_links/%s/properties",
					                topo, *p, *q) == 0) {
						char *ty = ga_col_kv(lb.data, "type", ' ');
						if (ty && !strcmp(ty, "11"))
							xgmi++;
						ga_free(ty);
					}
					ga_buf_release(&lb);
				}
				ga_strv_free(links);
			}
			if (xgmi) {
				char h[32];
				snprintf(h, sizeof(h), "xgmi:%zu", xgmi);
				ga_col_strv_push(c, &a->interconnect, h);
			}
		}
		ga_free(lv);
		ga_free(dv);
		ga_free(gv);
		ga_buf_release(&b);
		if (match)
			break;
	}
	ga_strv_free(nodes);
}

static void amd(struct ga_col *c, struct ga_accel *a, const struct ga_pci_dev *pd, const char *phys)
{
	ga_col_attr_u64(c, GA_COL_OPT, &a->memory_bytes, "%s/mem_info_vram_total", phys);
	ga_col_attr(c, GA_COL_OPT, &a->vbios_version, "%s/vbios_version", phys);
	char *product = NULL;
	if (ga_col_attr(c, GA_COL_OPT, &product, "%s/product_name", phys) == 0 && *product && !a->model)
		a->model = product;
	else
		ga_free(product);
	char *card = NULL;
	drm_minors(c, a, phys, &card);
	ga_free(card);
	if (pd->driver && !strcmp(pd->driver, "amdgpu"))
		expect_node(c, a, "/dev/kfd");
	amd_kfd(c, a, pd);
	ga_collect_amd_depth(c, a, phys);
}

static void intel(struct ga_col *c, struct ga_accel *a, const char *phys)
{
	char *card = NULL;
	drm_minors(c, a, phys, &card);
	uint64_t tiles = 0;
	char **names = NULL;
	if (card) {
		/* i915 (Intel's backport) reports local memory on the DRM minor; GTs under gt/. */
		ga_col_attr_u64(c, GA_COL_OPT, &a->memory_bytes, "%s/drm/%s/lmem_total_bytes", phys, card);
		if (ga_col_list(c, &names, NULL, "%s/drm/%s/gt", phys, card) == 0)
			for (char **p = names; *p; p++)
				tiles += ga_startswith(*p, "gt");
		ga_strv_free(names);
		names = NULL;
	}
	/* xe: device/tile<T>/physical_vram_size_bytes */
	if (ga_col_list(c, &names, NULL, "%s", phys) == 0) {
		uint64_t vram = 0, xe_tiles = 0;
		for (char **p = names; *p; p++) {
			if (!ga_startswith(*p, "tile"))
				continue;
			struct ga_ou64 v = { 0 };
			xe_tiles++;
			if (ga_col_attr_u64(c, GA_COL_OPT, &v, "%s/%s/physical_vram_size_bytes", phys, *p) ==
			            0 &&
			    v.v <= (uint64_t)INT64_MAX - vram)
				vram += v.v;
		}
		if (xe_tiles && !tiles)
			tiles = xe_tiles;
		if (vram && !a->memory_bytes.set)
			GA_SET(a->memory_bytes, vram);
	}
	ga_strv_free(names);
	if (tiles)
		GA_SET(a->tiles, tiles);
	ga_collect_intel_depth(c, a, phys, card);
	ga_free(card);
}

static const char *vendor_name(uint64_t v)
{
	switch (v) {
	case 0x10de:
		return "nvidia";
	case 0x1002:
		return "amd";
	case 0x8086:
		return "intel";
	case 0x1da3:
		return "habana";
	default:
		return "other";
	}
}

void ga_collect_accel(struct ga_col *c)
{
	struct ga_node *n = c->node;
	drivers(c);
	dev_nodes(c);
	for (size_t i = 0; i < n->n_pci && c->err == 0; i++) {
		const struct ga_pci_dev *pd = &n->pci[i];
		if (strcmp(pd->kind, "accelerator") != 0)
			continue;
		struct ga_accel *a = ga_array_push((void **)&n->accelerators, &n->n_accelerators, sizeof(*a));
		if (!ga_col_ok(c, a))
			return;
		GA_SET(a->index, n->n_accelerators - 1);
		a->vendor = ga_strdup(vendor_name(pd->vendor_id.v));
		a->address = ga_strdup(pd->address);
		ga_col_ok(c, a->vendor);
		ga_col_ok(c, a->address);
		if (pd->driver) {
			a->driver = ga_strdup(pd->driver);
			ga_col_ok(c, a->driver);
			for (size_t k = 0; k < n->n_drivers; k++)
				if (!strcmp(n->drivers[k].name, pd->driver) && n->drivers[k].version) {
					a->driver_version = ga_strdup(n->drivers[k].version);
					ga_col_ok(c, a->driver_version);
				}
		}
		a->numa_node = pd->numa_node;
		char link[300], *phys = NULL;
		snprintf(link, sizeof(link), "sys/bus/pci/devices/%s", pd->address);
		int r = ga_fs_resolve_link(c->ctx, link, &phys);
		if (r == -ENOMEM)
			c->err = r;
		if (r < 0)
			phys = NULL;
		if (pd->vendor_id.v == 0x10de)
			nvidia(c, a, pd);
		else if (pd->vendor_id.v == 0x1002 && phys)
			amd(c, a, pd, phys);
		else if (pd->vendor_id.v == 0x8086 && phys)
			intel(c, a, phys);
		ga_free(phys);
		if (!a->model && pd->device_name) {
			a->model = ga_strdup(pd->device_name);
			ga_col_ok(c, a->model);
		}
	}
}
