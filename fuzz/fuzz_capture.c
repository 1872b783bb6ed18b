/*
 * fuzz_capture.c - `gpuaudit capture` (lib/collect/capture.c) on hostile
 * file contents and link targets. The input is cut at each "@@@\n" into
 * chunks: the files whose text the capture parses (proc/self/cgroup,
 * proc/modules, ld.so.conf, dpkg status, passwd, group, the device-permission
 * sidecar, a CDI spec, containerd's config, proc/mounts, proc/self/status) and
 * three symlink targets (a net device, a PCI device, an absolute runtime
 * library link). Each run captures the tree into a fresh OUTDIR; the capture
 * must succeed, its summary must be JSON, and every link it made must be
 * relative and stay inside OUTDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_tree.h"
#include "gpuaudit/capture.h"
#include "gpuaudit/capture-read.h"
#include "gpuaudit/model.h"

#define SEP "@@@\n"

static const char *const files[] = {
	"proc/self/cgroup",    "proc/modules",        "etc/ld.so.conf",
	"var/lib/dpkg/status", "etc/passwd",          "etc/group",
	"dev/.fixture-perms",  "etc/cdi/nvidia.yaml", "etc/containerd/config.toml",
	"proc/mounts",         "proc/self/status",
};
static const char *const link_paths[] = {
	"sys/class/net/eth0",
	"sys/bus/pci/devices/0000:01:00.0",
	"usr/lib/x86_64-linux-gnu/libcuda.so.1",
};

static const struct {
	const char *path;
	const char *text;
} fixed[] = {
	{ "proc/cpuinfo", "processor\t: 0\n" },
	{ "sys/devices/system/cpu/online", "0\n" },
	{ "sys/devices/system/cpu/cpu0/topology/core_id", "0\n" },
	{ "sys/devices/system/node/node0/cpulist", "0\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x8086\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/config", "\x86\x80\x34\x12" },
	{ "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", "0x10de\n" },
	{ "sys/devices/pci0000:00/0000:00:01.0/net/eth0/mtu", "1500\n" },
	{ "sys/fs/cgroup/a/cpuset.cpus.effective", "0\n" },
	{ "dev/kfd", "" },
};

static char root[64], out[80];
static struct ga_ctx *ctx;
static unsigned long runs;

static void cleanup(void)
{
	if (root[0])
		fuzz_tree_remove(root);
	if (out[0])
		fuzz_tree_remove(out);
	ga_ctx_free(ctx);
}

static void setup(void)
{
	fuzz_tree_make(root, sizeof(root), "capture");
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		fuzz_tree_write(root, fixed[i].path, fixed[i].text, strlen(fixed[i].text));
	if (ga_ctx_new(&ctx) < 0 || ga_ctx_set_root(ctx, root) < 0)
		abort();
}

/* Every link under OUTDIR: relative, and its lexical walk from its directory never leaves OUTDIR. */
static int check_link(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag != FTW_SL)
		return 0;
	char t[PATH_MAX];
	ssize_t n = readlink(path, t, sizeof(t) - 1);
	FUZZ_CHECK(n > 0);
	t[n] = '\0';
	FUZZ_CHECK(t[0] != '/');
	int depth = 0; /* of the link's directory below OUTDIR */
	for (const char *p = path + strlen(out); *p; p++)
		depth += *p == '/';
	depth--;
	for (char *s = t; *s;) {
		size_t l = strcspn(s, "/");
		if (l == 2 && s[0] == '.' && s[1] == '.')
			depth--;
		else if (l && !(l == 1 && s[0] == '.'))
			depth++;
		FUZZ_CHECK(depth >= 0);
		s += l;
		s += strspn(s, "/");
	}
	return 0;
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
	size_t nf = sizeof(files) / sizeof(files[0]), nl = sizeof(link_paths) / sizeof(link_paths[0]);
	const uint8_t *p = data;
	size_t left = size;
	for (size_t i = 0; i < nf + nl; i++) {
		const uint8_t *chunk = p;
		size_t len = 0;
		if (p) {
			const uint8_t *s = find_sep(p, left);
			len = s ? (size_t)(s - p) : left;
			left -= s ? len + strlen(SEP) : len;
			p = s ? s + strlen(SEP) : NULL;
		}
		const char *rel = i < nf ? files[i] : link_paths[i - nf];
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		unlink(path);
		if (!chunk)
			continue;
		if (i < nf) {
			fuzz_tree_write(root, rel, chunk, len);
			continue;
		}
		char target[256];
		size_t tl = len < sizeof(target) - 1 ? len : sizeof(target) - 1;
		memcpy(target, chunk, tl);
		target[tl] = '\0';
		target[strcspn(target, "\n")] = '\0';
		if (*target && fuzz_tree_link(root, rel, target) < 0)
			abort();
	}
	snprintf(out, sizeof(out), "%s.out%lu", root, runs++);
	struct ga_capture_opts o = { .outdir = out };
	struct ga_capture_report rep = { 0 };
	int r = ga_capture(ctx, &o, &rep);
	if (r < 0)
		fprintf(stderr, "capture failed: %s\n", ga_ctx_errmsg(ctx));
	FUZZ_CHECK(r == 0);
	struct ga_buf b;
	ga_buf_init(&b, 0);
	FUZZ_CHECK(ga_model_write(ga_model_find(GA_CAPTURE_SCHEMA), &rep, &b, false) == 0);
	fuzz_check_json(b.data, b.len, 0);
	ga_buf_release(&b);
	ga_capture_report_release(&rep);
	nftw(out, check_link, 16, FTW_PHYS);
	fuzz_tree_remove(out);
	return 0;
}
