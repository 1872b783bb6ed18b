/*
 * test_ctr_runtime.c - the container-layer collector (lib/collect/ctr-runtime.c)
 * and its findings (lib/analyze/ctr-runtime.c) on small trees made here, for
 * the cases the node fixtures do not carry: configuration files that do not
 * parse (FILE:LINE:COL in the snapshot and the finding), a default runtime
 * that is not defined, a vendor runtime whose binary is missing, an ldconfig
 * the host lacks, a package removed with its configuration kept, containerd
 * imports (relative, globbed, one importing itself), the containerd version 1
 * layout, CRI-O drop-ins in lexical order, the fixture permission sidecar.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/findings-analyze.h"
#include "gpuaudit/node.h"
#include "gpuaudit/node-read.h"
#include "gpuaudit/isolate.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rmtree(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static struct ga_node *collect(void)
{
	struct ga_ctx *ctx = NULL;
	struct ga_node *n = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_int_equal(ga_ctx_set_root(ctx, root), 0);
	ga_ctx_set_vendor(ctx, GA_VENDOR_OFF, 0);
	assert_int_equal(ga_node_collect(ctx, &n), 0);
	ga_ctx_free(ctx);
	return n;
}

static const struct ga_ctr_engine *engine(const struct ga_node *n, const char *name)
{
	assert_non_null(n->container_runtime);
	for (size_t i = 0; i < n->container_runtime->n_engines; i++)
		if (!strcmp(n->container_runtime->engines[i].name, name))
			return &n->container_runtime->engines[i];
	fail_msg("no engine %s", name);
	return NULL;
}

static const struct ga_finding *finding(const struct ga_findings *f, const char *code, const char *subject)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].code, code) && (!subject || !strcmp(f->v[i].subject, subject)))
			return &f->v[i];
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_ctr_runtime.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rmtree();
	return 0;
}

static void test_broken_configs(void **state)
{
	(void)state;
	put("usr/bin/containerd", "");
	put("etc/containerd/config.toml", "version = 2\n[plugins]\n  x = \"unterminated\n");
	put("etc/docker/daemon.json", "{\n  \"runtimes\": {\n    \"nvidia\": {\"path\": 1,}\n  }\n}\n");
	put("etc/nvidia-container-runtime/config.toml",
	    "[nvidia-container-runtime]\nmode = \"cdi\"\nmode = \"csv\"\n");
	struct ga_node *n = collect();
	const struct ga_ctr_engine *cd = engine(n, "containerd");
	assert_string_equal(
	        cd->config_error,
	        "/etc/containerd/config.toml:3:7: unterminated string (newline before the closing quote)");
	assert_false(cd->wired.v);
	const struct ga_ctr_engine *dk = engine(n, "docker");
	assert_non_null(dk->config_error);
	assert_true(strncmp(dk->config_error, "/etc/docker/daemon.json:3:", 26) == 0);
	const struct ga_ctr_toolkit *tk = &n->container_runtime->toolkits[0];
	assert_string_equal(tk->config_error,
	                    "/etc/nvidia-container-runtime/config.toml:3:1: key \"mode\" defined twice");
	assert_false(tk->installed.v);
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	assert_non_null(finding(&f, "GA-CTR-CONFIG-INVALID", "containerd"));
	assert_non_null(finding(&f, "GA-CTR-CONFIG-INVALID", "docker"));
	assert_non_null(finding(&f, "GA-CTR-CONFIG-INVALID", "/etc/nvidia-container-runtime/config.toml"));
	ga_findings_release(&f);
	ga_node_free(n);
}

static void test_wiring_faults(void **state)
{
	(void)state;
	/* Docker: default runtime that no entry defines */
	put("etc/docker/daemon.json", "{\"default-runtime\": \"nvidia\", \"runtimes\": {}}\n");
	/* CRI-O: drop-ins read in lexical order, the later one wins; its nvidia binary is missing */
	put("usr/bin/crio", "");
	put("etc/crio/crio.conf.d/10-base.conf", "[crio.runtime]\ndefault_runtime = \"runc\"\n");
	put("etc/crio/crio.conf.d/99-nvidia.toml",
	    "[crio.runtime]\ndefault_runtime = \"nvidia\"\n"
	    "[crio.runtime.runtimes.nvidia]\n"
	    "runtime_path = \"/usr/local/bin/nvidia-container-runtime\"\n");
	/* containerd version 1 layout, imports relative and globbed, one file importing itself */
	put("etc/containerd/config.toml", "imports = [\"conf.d/*.toml\", \"/etc/containerd/config.toml\"]\n"
	                                  "[plugins.cri.containerd]\ndefault_runtime_name = \"runc\"\n");
	put("etc/containerd/conf.d/50-nv.toml",
	    "[plugins.cri.containerd.runtimes.nvidia]\nruntime_type = \"io.containerd.runc.v2\"\n"
	    "[plugins.cri.containerd.runtimes.nvidia.options]\nBinaryName = "
	    "\"/usr/bin/nvidia-container-runtime\"\n");
	put("etc/containerd/conf.d/.hidden.toml", "not = toml = at all\n");
	put("usr/bin/nvidia-container-runtime", "");
	/* toolkit: ldconfig the host lacks; nvidia-docker2 removed with its configuration kept */
	put("etc/nvidia-container-runtime/config.toml",
	    "[nvidia-container-cli]\nldconfig = \"@/sbin/ldconfig.real\"\n"
	    "no-cgroups = true\n");
	put("var/lib/dpkg/status",
	    "Package: nvidia-docker2\nStatus: deinstall ok config-files\nVersion: 2.13.0-1\n\n"
	    "Package: nvidia-container-toolkit\nStatus: install ok installed\n"
	    "Version: 1.16.2-1\n");
	/* fixture sidecar: renderD128 open to all, kfd root-only; renderD129 not named (left out) */
	put("dev/kfd", "");
	put("dev/dri/renderD128", "");
	put("dev/dri/renderD129", "");
	put("dev/.fixture-perms", "/dev/kfd 0600 0 0\n/dev/dri/renderD128 0666 0 44\n");
	struct ga_node *n = collect();
	const struct ga_ctr_engine *dk = engine(n, "docker");
	assert_string_equal(dk->default_runtime, "nvidia");
	assert_false(dk->default_nvidia.v);
	const struct ga_ctr_engine *cr = engine(n, "crio");
	assert_int_equal(cr->config_files.n, 2);
	assert_string_equal(cr->default_runtime, "nvidia");
	assert_true(cr->wired.v && cr->default_nvidia.v);
	assert_true(cr->runtimes[0].binary_found.set && !cr->runtimes[0].binary_found.v);
	const struct ga_ctr_engine *cd = engine(n, "containerd");
	assert_int_equal(cd->config_version.v, 1);
	assert_int_equal(cd->config_files.n, 2); /* the self-import and the dot-file are not read */
	assert_string_equal(cd->config_files.v[1], "/etc/containerd/conf.d/50-nv.toml");
	assert_null(cd->config_error);
	assert_true(cd->wired.v);
	assert_false(cd->default_nvidia.v);
	const struct ga_ctr_toolkit *tk = &n->container_runtime->toolkits[0];
	assert_true(tk->installed.v);
	assert_string_equal(tk->version, "1.16.2-1");
	assert_int_equal(tk->n_packages, 1);
	assert_true(tk->no_cgroups.v);
	assert_true(tk->ldconfig_found.set && !tk->ldconfig_found.v);
	assert_int_equal(n->container_runtime->n_devices, 2);
	assert_string_equal(n->container_runtime->devices[0].mode, "0600");
	assert_string_equal(n->container_runtime->devices[1].path, "/dev/dri/renderD128");
	struct ga_findings f;
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	assert_non_null(finding(&f, "GA-CTR-DEFAULT-UNDEFINED", "docker"));
	assert_non_null(finding(&f, "GA-CTR-RUNTIME-BINARY-MISSING", "crio"));
	assert_null(finding(&f, "GA-CTR-RUNTIME-BINARY-MISSING", "containerd"));
	assert_non_null(finding(&f, "GA-CTR-LDCONFIG-MISSING", NULL));
	assert_non_null(finding(&f, "GA-CTR-DEVICE-ACCESS", "/dev/kfd"));
	assert_null(finding(&f, "GA-CTR-DEVICE-ACCESS", "/dev/dri/renderD128"));
	ga_findings_release(&f);
	ga_node_free(n);
	/* device_ownership_from_security_context: Kubernetes hands the devices to the pod */
	put("etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n"
	                                  "device_ownership_from_security_context = true\n");
	n = collect();
	ga_findings_init(&f);
	assert_int_equal(ga_analyze_node(n, &f), 0);
	assert_null(finding(&f, "GA-CTR-DEVICE-ACCESS", NULL));
	ga_findings_release(&f);
	ga_node_free(n);
}

static void test_nothing(void **state)
{
	(void)state;
	put("etc/os-release", "ID=debian\n");
	struct ga_node *n = collect();
	assert_null(n->container_runtime); /* no engine, no toolkit, no device: no section */
	ga_node_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_broken_configs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wiring_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
