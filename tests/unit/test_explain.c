/* test_explain.c - the signature catalogue and the streaming log matcher. */
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/explain.h"
#include "gpuaudit/explain-analyze.h"
#include "gpuaudit/node.h"

static struct ga_explain *run_bytes(const void *b, size_t n, size_t chunk, size_t max_matches)
{
	struct ga_explain *ex = NULL;
	assert_int_equal(ga_explain_new(max_matches, &ex), 0);
	for (size_t i = 0; i < n; i += chunk)
		assert_int_equal(ga_explain_feed(ex, (const char *)b + i, n - i < chunk ? n - i : chunk), 0);
	assert_int_equal(ga_explain_finish(ex), 0);
	return ex;
}

static struct ga_explain *run_text(const char *text, size_t chunk, size_t max_matches)
{
	return run_bytes(text, strlen(text), chunk, max_matches);
}

static const char *sig_id(unsigned sig)
{
	return ga_signature_get(sig)->id;
}

/* The input matched exactly once: on that line, that signature, that text. */
static void expect_one_match(const struct ga_explain *ex, uint64_t line, const char *id, const char *text)
{
	size_t n = 0;
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].line, line);
	assert_string_equal(sig_id(m[0].sig), id);
	assert_string_equal(m[0].text, text);
}

/* Every regex compiles, has at least as many groups as capture names, and is
 * anchored on its literal; ids are unique; every signature has a pattern. */
static void test_catalogue(void **state)
{
	(void)state;
	size_t ns = ga_signature_count(), np = ga_sig_pattern_count();
	assert_true(ns >= 30);
	bool has_pat[1024] = { false };
	assert_true(ns <= 1024);
	for (size_t i = 0; i < ns; i++) {
		const struct ga_signature *s = ga_signature_get(i);
		assert_non_null(s->cause);
		assert_non_null(s->fix);
		assert_non_null(s->next);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s->id, ga_signature_get(j)->id);
	}
	for (size_t i = 0; i < np; i++) {
		const struct ga_sig_pattern *p = ga_sig_pattern_get(i);
		regex_t re;
		assert_int_equal(regcomp(&re, p->regex, REG_EXTENDED), 0);
		size_t names = 0;
		while (p->captures[names])
			names++;
		assert_true(names <= re.re_nsub);
		/* the regex matches the literal's own line context: literal alone must be in the line */
		assert_null(strchr(p->literal, '\n'));
		assert_true(strlen(p->literal) >= 3); /* the shift table reads 3-byte blocks */
		regfree(&re);
		has_pat[p->sig] = true;
	}
	for (size_t i = 0; i < ns; i++)
		assert_true(has_pat[i]);
	assert_null(ga_signature_get(ns));
	assert_null(ga_sig_pattern_get(np));
}

static void test_basic_lines(void **state)
{
	(void)state;
	struct ga_explain *ex =
	        run_text("noise\n"
	                 "ImportError: libcudart.so.12: cannot open shared object file: No such "
	                 "file or directory\n"
	                 "more noise\n"
	                 "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n",
	                 1 << 20, 10);
	assert_int_equal(ga_explain_lines(ex), 4);
	assert_int_equal(ga_explain_match_count(ex), 2);
	size_t n = 0;
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].line, 2);
	assert_string_equal(sig_id(m[0].sig), "loader-soname");
	assert_string_equal(ga_capture_get(m[0].cap, m[0].n_cap, "soname"), "libcudart.so.12");
	assert_int_equal(m[1].line, 4);
	assert_string_equal(sig_id(m[1].sig), "nvidia-xid");
	assert_string_equal(ga_capture_get(m[1].cap, m[1].n_cap, "xid"), "79");
	assert_string_equal(ga_capture_get(m[1].cap, m[1].n_cap, "pci_address"), "0000:3b:00.0");
	/* ranking: the loader error (weight 80) before the Xid (70) */
	size_t nc = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &nc);
	assert_int_equal(nc, 2);
	assert_string_equal(sig_id(c[0].sig), "loader-soname");
	assert_string_equal(sig_id(c[1].sig), "nvidia-xid");
	assert_string_equal(c[1].detail, "Xid 79 on 0000:3b:00.0 (GPU has fallen off the bus): reboot, "
	                                 "NVIDIA: RESTART_BM");
	ga_explain_free(ex);
}

/* Every cause has a class; Xid numbers and IB statuses refine it. */
static enum ga_cause class_of(const char *text, const char *id)
{
	struct ga_explain *ex = run_text(text, 1 << 20, 0);
	size_t n = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &n);
	enum ga_cause cls = GA_CAUSE__COUNT;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sig_id(c[i].sig), id))
			cls = c[i].cause_class;
	ga_explain_free(ex);
	return cls;
}

/*
 * Every Xid of a kernel log with its GPU, most severe first, as health reads
 * the same lines: an Xid without "PCI:", a second GPU lost without an Xid
 * number (one-line and three-line forms), and many pairs stay bounded.
 */
static void test_xid_pairs(void **state)
{
	(void)state;
	const char *log = "[  10.0] NVRM: Xid (PCI:0000:1b:00): 13, pid=1, name=python3, Graphics Exception\n"
	                  "[  11.0] NVRM: Xid (0000:c1:00): 48, pid=2, name=python3, An uncorrectable double "
	                  "bit error (DBE) has been detected on GPU in the framebuffer\n"
	                  "[  12.0] NVRM: Xid (PCI:0000:1b:00): 79, pid=3, GPU has fallen off the bus.\n"
	                  "[  12.1] NVRM: GPU 0000:1b:00.0: GPU has fallen off the bus.\n"
	                  "[  13.0] NVRM: GPU 0000:bd:00.0: GPU has fallen off the bus.\n"
	                  "[  14.0] NVRM: The NVIDIA GPU 0000:b7:00.0\n"
	                  "               NVRM: (PCI ID: 10de:20b0) installed in this system has\n"
	                  "               NVRM: fallen off the bus and is not responding to commands.\n"
	                  "[  15.0] NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 "
	                  "(None) to 0x2 (Node Reboot Required)\n";
	struct ga_explain *ex = run_text(log, 1 << 20, 16);
	size_t n = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &n);
	assert_int_equal(n, 1);
	assert_string_equal(sig_id(c[0].sig), "nvidia-xid");
	assert_int_equal(c[0].count, 7); /* the first line of the three-line form is no match */
	assert_int_equal(c[0].cause_class, GA_CAUSE_NODE_HARDWARE);
	assert_string_equal(
	        c[0].detail,
	        "Xid 79 on 0000:1b:00.0 (GPU has fallen off the bus): reboot, NVIDIA: RESTART_BM; "
	        "Xid 79 on 0000:bd:00.0 (GPU has fallen off the bus): reboot, NVIDIA: RESTART_BM; "
	        "Xid 79 on 0000:b7:00.0 (GPU has fallen off the bus): reboot, NVIDIA: RESTART_BM; "
	        "Xid 154 on 0008:01:00.0 (GPU Recovery Action Changed): reboot, by the line's words, "
	        "NVIDIA: XID_154; "
	        "Xid 48 on 0000:c1:00.0 (Double Bit ECC Error): reset_gpu, NVIDIA: WORKFLOW_XID_48; "
	        "Xid 13 on 0000:1b:00.0 (Graphics Engine Exception): restart_workload, NVIDIA: RESTART_APP");
	ga_explain_free(ex);
	/* 300 GPUs' Xids: listed up to the detail's room, the rest counted */
	char *big = malloc(300 * 64);
	assert_non_null(big);
	size_t l = 0;
	for (int i = 0; i < 300; i++)
		l += (size_t)snprintf(big + l, 300 * 64 - l, "NVRM: Xid (PCI:0000:%02x:%02x): 31, x\n",
		                      i / 32, i % 32);
	ex = run_text(big, 1 << 20, 0);
	c = ga_explain_causes(ex, &n);
	assert_int_equal(c[0].count, 300);
	assert_non_null(strstr(c[0].detail, "more (GPU, Xid) pairs"));
	assert_true(strlen(c[0].detail) < sizeof(c[0].detail));
	ga_explain_free(ex);
	free(big);
}

static void test_cause_class(void **state)
{
	(void)state;
	for (size_t i = 0; i < ga_signature_count(); i++)
		assert_non_null(ga_cause_class_name(ga_signature_get(i)->cause_class));
	assert_null(ga_cause_class_name(GA_CAUSE__COUNT));
	assert_string_equal(ga_cause_class_name(GA_CAUSE_NODE_HARDWARE), "node_hardware");
	/* Xid 13/31/43 are the job's; one hardware Xid among them makes it the node's */
	const char *app =
	        "NVRM: Xid (PCI:0000:1b:00): 13, pid=1, x\nNVRM: Xid (PCI:0000:1b:00): 43, pid=1, x\n";
	assert_int_equal(class_of(app, "nvidia-xid"), GA_CAUSE_APPLICATION);
	assert_int_equal(
	        class_of("NVRM: Xid (PCI:0000:1b:00): 31, pid=1\nNVRM: Xid (PCI:0000:1b:00): 79, x\n",
	                 "nvidia-xid"),
	        GA_CAUSE_NODE_HARDWARE);
	/* GSP RPC timeout: NVIDIA's investigatory bucket is INVESTIGATE_SW */
	assert_int_equal(class_of("NVRM: Xid (PCI:0000:1b:00): 119, x\n", "nvidia-xid"), GA_CAUSE_DRIVER);
	/* 61 is unused in NVIDIA's catalogue, 999 not in it: the driver */
	assert_int_equal(class_of("NVRM: Xid (PCI:0000:1b:00): 61, x\n", "nvidia-xid"), GA_CAUSE_DRIVER);
	assert_int_equal(class_of("NVRM: Xid (PCI:0000:1b:00): 999, x\n", "nvidia-xid"), GA_CAUSE_DRIVER);
	/* IB: status 12 the network, 4 memory registration (configuration), 5 a consequence */
	assert_int_equal(
	        class_of("NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=12 opcode=0\n",
	                 "nccl-ib-retry-exceeded"),
	        GA_CAUSE_NETWORK);
	assert_int_equal(class_of("NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 2\n",
	                          "nccl-ib-completion-error"),
	                 GA_CAUSE_CONFIGURATION);
	assert_int_equal(class_of("NCCL WARN NET/IB : Got completion with error 13, opcode 1, len 2\n",
	                          "nccl-ib-completion-error"),
	                 GA_CAUSE_NETWORK);
	assert_int_equal(class_of("NET/IB : Got completion from peer 1.2.3.4<5> with status=5 opcode=0\n",
	                          "nccl-ib-flush-error"),
	                 GA_CAUSE_NETWORK);
	/* the container toolkit: NVML's library not found is set-up (configuration), NVML's
	 * "driver not loaded" the driver's */
	assert_int_equal(class_of("nvidia-container-cli: initialization error: load library failed: "
	                          "libnvidia-ml.so.1: cannot open shared object file: no such file\n",
	                          "container-toolkit-no-driver"),
	                 GA_CAUSE_CONFIGURATION);
	assert_int_equal(class_of("nvidia-container-cli: initialization error: nvml error: driver not "
	                          "loaded: unknown.\n",
	                          "container-toolkit-driver-not-loaded"),
	                 GA_CAUSE_DRIVER);
	/* amdgpu VM faults: a process's (vmid 3, the HSA runtime's line) the job's; vmid 0 only
	 * the kernel driver's or firmware's; one process's fault among them keeps the job's */
	const char *user = "amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)\n";
	const char *kern = "amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:0 vmid:0 pasid:0)\n";
	const char *old_kern = "[mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)\n";
	const char *hsa = "Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f00. "
	                  "Reason: Page not present or supervisor privilege.\n";
	char both[512];
	assert_int_equal(class_of(user, "amdgpu-vm-fault"), GA_CAUSE_APPLICATION);
	assert_int_equal(class_of(kern, "amdgpu-vm-fault"), GA_CAUSE_DRIVER);
	assert_int_equal(class_of(old_kern, "amdgpu-vm-fault"), GA_CAUSE_DRIVER);
	snprintf(both, sizeof(both), "%s%s", kern, user);
	assert_int_equal(class_of(both, "amdgpu-vm-fault"), GA_CAUSE_APPLICATION);
	snprintf(both, sizeof(both), "%s%s", old_kern, hsa);
	assert_int_equal(class_of(both, "amdgpu-vm-fault"), GA_CAUSE_APPLICATION);
	/* status 5 and 12 are not the generic signature's, and "opcode=0" is no error code */
	struct ga_explain *ex =
	        run_text("NET/IB : Got completion from peer 1.2.3.4<5> with status=5 opcode=0\n", 1 << 20, 4);
	size_t n = 0;
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 1);
	assert_string_equal(sig_id(m[0].sig), "nccl-ib-flush-error");
	assert_null(ga_capture_get(m[0].cap, m[0].n_cap, "error_code"));
	ga_explain_free(ex);
}

/* The action of the cause with this id (GA_ACT__COUNT when the text has no such cause). */
static enum ga_action action_of(const char *text, const char *id)
{
	struct ga_explain *ex = run_text(text, 1 << 20, 0);
	size_t n = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &n);
	enum ga_action act = GA_ACT__COUNT;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sig_id(c[i].sig), id))
			act = c[i].action;
	ga_explain_free(ex);
	return act;
}

/*
 * Every cause has an action (the decision): the signature's, refined like the
 * class: an nvidia-xid cause takes its most urgent (GPU, Xid)'s catalogue
 * action, an IB completion error whose statuses are all memory registration
 * is fix_config.
 */
static void test_actions(void **state)
{
	(void)state;
	for (size_t i = 0; i < ga_signature_count(); i++)
		assert_true(ga_signature_get(i)->action < GA_ACT__COUNT);
	assert_int_equal(action_of("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
	                           "gpu-out-of-memory"),
	                 GA_ACT_RESTART_WORKLOAD);
	assert_int_equal(action_of("Failed to initialize NVML: Driver/library version mismatch\n",
	                           "nvml-driver-mismatch"),
	                 GA_ACT_REBOOT);
	assert_int_equal(action_of("ImportError: libcudart.so.12: cannot open shared object file: No such "
	                           "file or directory\n",
	                           "loader-soname"),
	                 GA_ACT_FIX_CONFIG);
	/* Xid 13/31: the job's; one Xid 79 among them: the catalogue's reboot */
	assert_int_equal(action_of("NVRM: Xid (PCI:0000:1b:00): 13, pid=1, x\n", "nvidia-xid"),
	                 GA_ACT_RESTART_WORKLOAD);
	assert_int_equal(
	        action_of("NVRM: Xid (PCI:0000:1b:00): 31, pid=1\nNVRM: Xid (PCI:0000:1b:00): 79, x\n",
	                  "nvidia-xid"),
	        GA_ACT_REBOOT);
	/* IB: status 12 is the network's but not one step (link, routing, GID index, congestion);
	 * 4 (memory registration) is set-up, 13 is not known to be either */
	assert_int_equal(
	        action_of("NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=12 opcode=0\n",
	                  "nccl-ib-retry-exceeded"),
	        GA_ACT_INVESTIGATE);
	assert_int_equal(action_of("NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 2\n",
	                           "nccl-ib-completion-error"),
	                 GA_ACT_FIX_CONFIG);
	assert_int_equal(action_of("NCCL WARN NET/IB : Got completion with error 13, opcode 1, len 2\n",
	                           "nccl-ib-completion-error"),
	                 GA_ACT_INVESTIGATE);
	/* an amdgpu VM fault: the job's, unless every fault is in vmid 0 (a driver or firmware
	 * bug: another kernel or firmware) */
	assert_int_equal(action_of("amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 "
	                           "pasid:32769)\n",
	                           "amdgpu-vm-fault"),
	                 GA_ACT_RESTART_WORKLOAD);
	assert_int_equal(
	        action_of("[mmhub] VMC page fault (src_id:0 ring:153 vm_id:0 pas_id:0)\n", "amdgpu-vm-fault"),
	        GA_ACT_FIX_CONFIG);
	/* an uncorrectable amdgpu RAS error: drain while the driver's reset after it is unknown;
	 * restart the jobs when it succeeded, reboot when it failed (docs/health.md "AMD
	 * uncorrectable RAS errors: one decision"); the threshold's lines: replace */
#define RAS_83 "amdgpu 0000:83:00.0: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!\n"
#define RAS_C3 "amdgpu 0000:c3:00.0: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!\n"
#define OK_83 "amdgpu 0000:83:00.0: amdgpu: GPU reset(1) succeeded!\n"
#define OK_C3 "amdgpu 0000:c3:00.0: amdgpu: GPU reset(1) succeeded!\n"
#define FAIL_83 "amdgpu 0000:83:00.0: amdgpu: GPU reset(1) failed\n"
#define FAIL_C3 "amdgpu 0000:c3:00.0: amdgpu: GPU reset(1) failed\n"
	static const struct {
		const char *log;
		enum ga_action want;
	} ras_cases[] = {
		{ RAS_83, GA_ACT_DRAIN },
		{ RAS_83 "amdgpu 0000:83:00.0: amdgpu: GPU reset begin!\n" OK_83, GA_ACT_RESTART_WORKLOAD },
		{ RAS_83 "amdgpu 0000:83:00.0: amdgpu: GPU reset begin!\n" FAIL_83, GA_ACT_REBOOT },
		/* a reset that succeeded before the error is not its outcome */
		{ OK_83 RAS_83, GA_ACT_DRAIN },
		/* the outcome is read per GPU, as health does: another GPU's reset is not this error's */
		{ RAS_83 OK_C3, GA_ACT_DRAIN },
		{ RAS_83 FAIL_C3, GA_ACT_DRAIN },
		/* two GPUs: the most urgent decision (one recovered, one not: drain; one failed: reboot) */
		{ RAS_83 RAS_C3 OK_83, GA_ACT_DRAIN },
		{ RAS_83 RAS_C3 OK_83 FAIL_C3, GA_ACT_REBOOT },
		/* lines that name no address pair with each other */
		{ "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!\n"
		  "amdgpu: GPU reset(1) succeeded!\n",
		  GA_ACT_RESTART_WORKLOAD },
	};
	for (size_t i = 0; i < sizeof(ras_cases) / sizeof(ras_cases[0]); i++)
		assert_int_equal(action_of(ras_cases[i].log, "amdgpu-ras-uncorrectable"), ras_cases[i].want);
#undef RAS_83
#undef RAS_C3
#undef OK_83
#undef OK_C3
#undef FAIL_83
#undef FAIL_C3
	assert_int_equal(action_of("amdgpu 0000:83:00.0: amdgpu: Saved bad pages 20 reaches threshold "
	                           "value 20\n",
	                           "amdgpu-ras-bad-page-threshold"),
	                 GA_ACT_REPLACE);
	assert_int_equal(action_of("amdgpu 0000:83:00.0: amdgpu: RAS records:21 exceed threshold:20\n",
	                           "amdgpu-ras-bad-page-threshold"),
	                 GA_ACT_REPLACE);
	/* the early warning at 90 % is not the threshold */
	assert_int_equal(action_of("amdgpu 0000:83:00.0: amdgpu: RAS records:18 exceeds 90% of "
	                           "threshold:20\n",
	                           "amdgpu-ras-bad-page-threshold"),
	                 GA_ACT__COUNT);
	/* the JSON document carries it */
	struct ga_explain *ex =
	        run_text("Failed to initialize NVML: Driver/library version mismatch\n", 1 << 20, 4);
	struct ga_explain_result r;
	assert_int_equal(ga_explain_result_fill(ex, &r), 0);
	assert_int_equal(r.n_causes, 1);
	assert_string_equal(r.causes[0].action, "reboot");
	ga_schema_release(&ga_explain_result_schema, &r);
	ga_explain_free(ex);
}

/* A line matching two signatures is reported once, as the more specific one. */
static void test_most_specific_wins(void **state)
{
	(void)state;
	struct ga_explain *ex =
	        run_text("OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
	                 "Failed to initialize NVML: Driver/library version mismatch\n",
	                 1 << 20, 10);
	size_t n = 0;
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 2);
	assert_string_equal(sig_id(m[0].sig), "loader-libcuda");
	assert_string_equal(sig_id(m[1].sig), "nvml-driver-mismatch");
	ga_explain_free(ex);
}

/* h39-commsched: libibverbs' provider warning claims its line from loader-soname (a notice, weight
 * 81 over 80), and a notice ranks after a cause that acts even when the cause weighs less
 * (k8s-gpu-request-exceeds-free, 61: h54-fixccs gave it the scheduler's "Insufficient nvidia.com/gpu" from
 * k8s-insufficient-gpu, 60); alone, the notice is the only cause. */
static void test_notice_ranks_last(void **state)
{
	(void)state;
	const char *warn =
	        "libibverbs: Warning: couldn't load driver 'libipathverbs-rdmav25.so': "
	        "libipathverbs-rdmav25.so: cannot open shared object file: No such file or directory\n";
	char text[512];
	snprintf(text, sizeof(text), "%s%s", warn,
	         "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.\n");
	struct ga_explain *ex = run_text(text, 1 << 20, 10);
	size_t n = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &n);
	assert_int_equal(n, 2);
	assert_string_equal(sig_id(c[0].sig), "k8s-gpu-request-exceeds-free");
	assert_int_equal(c[0].action, GA_ACT_RESTART_WORKLOAD);
	assert_string_equal(sig_id(c[1].sig), "libibverbs-provider-not-loaded");
	assert_int_equal(c[1].action, GA_ACT_NONE);
	ga_explain_free(ex);

	ex = run_text(warn, 7, 10);
	c = ga_explain_causes(ex, &n);
	assert_int_equal(n, 1);
	assert_string_equal(sig_id(c[0].sig), "libibverbs-provider-not-loaded");
	ga_explain_free(ex);
}

/* whether the text gives a cause of that signature (class_of finds none: GA_CAUSE__COUNT) */
static bool has_sig(const char *text, const char *id)
{
	return class_of(text, id) != GA_CAUSE__COUNT;
}

/* Held-out batch m rows (h31-batchm): the toolkit's driver RPC timeout but not the nvcgo RPC
 * (another cause); an unknown device with the id captured out of docker's quoting; the UVM
 * module under packaged names, but not the nvidia module itself. */
static void test_heldout_m(void **state)
{
	(void)state;
	assert_int_equal(class_of("nvidia-container-cli: initialization error: driver rpc error: "
	                          "timed out: unknown.\n",
	                          "container-toolkit-driver-timeout"),
	                 GA_CAUSE_DRIVER);
	assert_true(has_sig("stderr: nvidia-container-cli: initialization error: driver error: "
	                    "timed out\n",
	                    "container-toolkit-driver-timeout"));
	assert_false(has_sig("nvidia-container-cli: initialization error: nvcgo rpc error: timed out\n",
	                     "container-toolkit-driver-timeout"));
	struct ga_explain *ex =
	        run_text("stderr: nvidia-container-cli: device error: 1: unknown device\\\\n\\\"\"\": "
	                 "unknown.\n",
	                 1 << 20, 10);
	size_t n = 0;
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 1);
	assert_string_equal(sig_id(m[0].sig), "container-toolkit-unknown-device");
	assert_string_equal(ga_capture_get(m[0].cap, m[0].n_cap, "device"), "1");
	ga_explain_free(ex);
	assert_int_equal(
	        class_of("modprobe: FATAL: Module nvidia-uvm not found.\n", "nvidia-uvm-module-missing"),
	        GA_CAUSE_DRIVER);
	assert_true(has_sig("modprobe: ERROR: ../libkmod/libkmod-module.c:809 "
	                    "kmod_module_insert_module() could not find module by "
	                    "name='nvidia_331_uvm'\n",
	                    "nvidia-uvm-module-missing"));
	assert_false(has_sig("modprobe: FATAL: Module nvidia not found.\n", "nvidia-uvm-module-missing"));
	assert_int_equal(class_of("nvidia-container-cli: permission error: capability change failed: "
	                          "operation not permitted\n",
	                          "container-toolkit-capability-denied"),
	                 GA_CAUSE_CONTAINER_RUNTIME);
}

/* The literal is there but the regex does not match: no match. */
static void test_literal_without_regex(void **state)
{
	(void)state;
	struct ga_explain *ex = run_text("NVRM: Xid (PCI:zzzz): abc\n0/ nodes are available\n", 1 << 20, 10);
	assert_int_equal(ga_explain_match_count(ex), 0);
	assert_int_equal(ga_explain_lines(ex), 2);
	ga_explain_free(ex);
}

/* A numeric code stated in the line is captured; five digits are not a code. */
static void test_error_code(void **state)
{
	(void)state;
	struct ga_explain *ex =
	        run_text("CUDA error at main.cu:41 code=35(cudaErrorInsufficientDriver) "
	                 "\"cudaGetDeviceCount(&n)\": CUDA driver version is insufficient for "
	                 "CUDA runtime version\n"
	                 "probe returned 123456: no CUDA-capable device is detected\n",
	                 1 << 20, 10);
	size_t n = 0;
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 2);
	assert_string_equal(ga_capture_get(m[0].cap, m[0].n_cap, "error_code"), "35");
	assert_null(ga_capture_get(m[1].cap, m[1].n_cap, "error_code"));
	ga_explain_free(ex);
}

/*
 * A code by number at a vendor API's call site or after its name (issue 27): the family is the
 * function's or the name's, the number must stand where a code goes, and a number of the wrong
 * sign, a size, a count, an exit status or a type's name is no code. One line each; fed whole and
 * one byte at a time, the same matches.
 */
static void test_call_site_codes(void **state)
{
	(void)state;
	static const struct {
		const char *line, *id, *code;
	} cases[] = {
		{ "Error -52 [clEnqueueNDRangeKernel [1]]\n", "errcode-invalid-usage",
		  "CL_INVALID_KERNEL_ARGS" },
		{ "OpenCL error happened: clBuildProgram, Code: -6\n", "errcode-out-of-memory",
		  "CL_OUT_OF_HOST_MEMORY" },
		{ "ERROR: cuMemsetD8() 1\n", "errcode-invalid-usage", "CUDA_ERROR_INVALID_VALUE" },
		{ "hipMalloc failed: error 2\n", "errcode-out-of-memory", "hipErrorOutOfMemory" },
		{ "vkAllocateMemory failed with -2\n", "errcode-out-of-memory",
		  "VK_ERROR_OUT_OF_DEVICE_MEMORY" },
		{ "vkCreateInstance failed -9\n", "vulkan-loader-no-driver", "VK_ERROR_INCOMPATIBLE_DRIVER" },
		/* the library's own name in lower case, the nearest before the number; the types
		 * (cudaStream_t, CUstream_st) are no call site */
		{ "details: cublas failed (13): (512, 512), cudaStream_t = CUstream_st*\n",
		  "cublas-execution-failed", "CUBLAS_STATUS_EXECUTION_FAILED" },
		/* a result type before the number, a library's name in another case, ManagedCuda's
		 * CamelCase CUresult */
		{ "Error: Fatal error: Unable to create Vulkan device, VkResult=-7\n",
		  "errcode-not-supported", "VK_ERROR_EXTENSION_NOT_PRESENT" },
		{ " CuRAND error 204 at test/include/test_utilities.h:112\n", "errcode-not-supported",
		  "CURAND_STATUS_ARCH_MISMATCH" },
		{ "error \"ErrorInvalidPtx\"\n", "errcode-no-kernel-image", "CUDA_ERROR_INVALID_PTX" },
		/* the function after the number when none comes before it */
		{ "Error -5 in clEnqueueReadBuffer\n", "errcode-out-of-memory", "CL_OUT_OF_RESOURCES" },
		/* no code: an exit status, a size, a count, the wrong sign, RAPIDS' cuGraph (no driver call),
		 * zero, a version */
		{ "cudaMemcpy failed with exit code 2\n", NULL, NULL },
		{ "cudaMalloc failed: error 2 GB requested\n", NULL, NULL },
		{ "cuModuleLoad failed after 3 retries\n", NULL, NULL },
		{ "clCreateContext failed: 5\n", NULL, NULL },
		{ "cuGraph failure: error 2\n", NULL, NULL },
		{ "cuInit failed: error 0\n", NULL, NULL },
		{ "cudaMalloc failed: error 2.5\n", NULL, NULL },
		/* ollama's Python client appends the HTTP status of its API: no CUDA code 500; a
		 * runtime's own number in the same words stays a code */
		{ "ggml-cuda.cu:106: CUDA error (status code: 500)\n", NULL, NULL },
		{ "hipMalloc failed (status code: 2)\n", "errcode-out-of-memory", "hipErrorOutOfMemory" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t chunk = 1; chunk <= 1 << 20; chunk <<= 20) {
			struct ga_explain *ex = run_text(cases[i].line, chunk, 8);
			size_t n = 0;
			const struct ga_explain_match *m = ga_explain_matches(ex, &n);
			if (!cases[i].id) {
				if (n)
					fail_msg("%s: matched %s", cases[i].line,
					         ga_explain_sig(m[0].sig)->id);
				assert_int_equal(ga_explain_acted_count(ex), 0);
			} else {
				if (n != 1)
					fail_msg("%s: %zu matches", cases[i].line, n);
				/* an error code's group is a signature of the matcher's own (ga_explain_sig) */
				assert_string_equal(ga_explain_sig(m[0].sig)->id, cases[i].id);
				const char *code = ga_capture_get(m[0].cap, m[0].n_cap, "code");
				assert_non_null(code);
				assert_string_equal(code, cases[i].code);
			}
			ga_explain_free(ex);
		}
	}
	/* a number in no table of the family: reported as unknown, never guessed */
	struct ga_explain *ex = run_text("vkQueueSubmit error -4242\n", 1 << 20, 8);
	size_t n = 0;
	uint64_t total = 0;
	const struct ga_explain_salient *s = ga_explain_salient_lines(ex, &n, &total);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].code, "VkResult -4242: not in the tables (unknown code)");
	ga_explain_free(ex);
	/* a code whose description names no cause stays a salient line: ROCm SMI's init error */
	ex = run_text("ERROR:root:ROCm SMI returned 8 (the expected value is 0)\n", 1 << 20, 8);
	assert_int_equal(ga_explain_acted_count(ex), 0);
	s = ga_explain_salient_lines(ex, &n, &total);
	assert_int_equal(n, 1);
	assert_non_null(strstr(s[0].code, "RSMI_STATUS_INIT_ERROR = 8"));
	ga_explain_free(ex);
	/* the call-site reading of a line no literal brings to the matcher is the fallback: it acts
	 * only when nothing else in the input did (a signature's cause here) */
	ex = run_text("Error -52 [clEnqueueNDRangeKernel [1]]\n"
	              "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
	              1 << 20, 8);
	const struct ga_explain_match *m = ga_explain_matches(ex, &n);
	assert_int_equal(n, 1);
	assert_string_equal(sig_id(m[0].sig), "gpu-out-of-memory");
	ga_explain_free(ex);
}

static char *slurp_fixture_logs(void)
{
	const char *fx = getenv("GA_FIXTURES");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/logs", fx ? fx : "tests/fixtures");
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t len = 0, cap = 1 << 16;
	char *all = malloc(cap);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name);
		if (nl < 5 || strcmp(e->d_name + nl - 4, ".log"))
			continue;
		char path[1400];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		char buf[4096];
		size_t k;
		while ((k = fread(buf, 1, sizeof(buf), f)) > 0) {
			while (len + k + 1 > cap)
				all = realloc(all, cap *= 2);
			memcpy(all + len, buf, k);
			len += k;
		}
		fclose(f);
	}
	closedir(d);
	all[len] = '\0';
	return all;
}

/* Every signature of the catalogue is hit by at least one fixture log (an error code's group
 * cause, errcode-*, that a log's line also names is no signature and is not counted). */
static void test_fixtures_cover_catalogue(void **state)
{
	(void)state;
	char *all = slurp_fixture_logs();
	struct ga_explain *ex = run_text(all, 1 << 20, 0);
	size_t n = 0, nc = 0;
	const struct ga_explain_cause *cs = ga_explain_causes(ex, &n);
	for (size_t j = 0; j < n; j++)
		nc += cs[j].sig < ga_signature_count();
	if (nc != ga_signature_count()) {
		for (size_t i = 0; i < ga_signature_count(); i++) {
			bool seen = false;
			for (size_t j = 0; j < n; j++)
				seen |= cs[j].sig == i;
			if (!seen)
				print_message("no fixture log matches %s\n", sig_id((unsigned)i));
		}
	}
	assert_int_equal(nc, ga_signature_count());
	ga_explain_free(ex);
	free(all);
}

/* The result does not depend on how the input is cut into chunks. */
static void test_chunking(void **state)
{
	(void)state;
	char *all = slurp_fixture_logs();
	struct ga_explain *whole = run_text(all, strlen(all) + 1, 1000);
	static const size_t chunks[] = { 1, 2, 3, 7, 64, 4093 };
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct ga_explain *ex = run_text(all, chunks[c], 1000);
		assert_int_equal(ga_explain_lines(ex), ga_explain_lines(whole));
		assert_int_equal(ga_explain_match_count(ex), ga_explain_match_count(whole));
		size_t n1 = 0, n2 = 0;
		const struct ga_explain_match *a = ga_explain_matches(whole, &n1),
		                              *b = ga_explain_matches(ex, &n2);
		assert_int_equal(n1, n2);
		for (size_t i = 0; i < n1; i++) {
			assert_int_equal(a[i].line, b[i].line);
			assert_int_equal(a[i].sig, b[i].sig);
			assert_string_equal(a[i].text, b[i].text);
			assert_int_equal(a[i].n_cap, b[i].n_cap);
			for (size_t k = 0; k < a[i].n_cap; k++)
				assert_string_equal(a[i].cap[k].value, b[i].cap[k].value);
		}
		ga_explain_free(ex);
	}
	ga_explain_free(whole);
	free(all);
}

/* UTF-16LE of an ASCII text (each byte then 0), after a byte-order mark; returns the length. */
static size_t utf16le(const char *ascii, unsigned char *out)
{
	size_t n = 0;
	out[n++] = 0xFF;
	out[n++] = 0xFE;
	for (const char *p = ascii; *p; p++) {
		out[n++] = (unsigned char)*p;
		out[n++] = 0;
	}
	return n;
}

/* A UTF-16 log (a byte-order mark, or none before ASCII text) is read as UTF-8 in any chunking: a surrogate pair or a code
 * unit cut between feeds waits for the rest; a lone surrogate is U+FFFD; after finish the next
 * input decides its own encoding (preflight feeds stderr, then stdout). */
static void test_utf16(void **state)
{
	(void)state;
	unsigned char b[512];
	size_t n = utf16le("ok\r\nx ", b);
	/* U+1F600 as a surrogate pair, then a lone high surrogate before the error */
	const unsigned char pair[] = { 0x3D, 0xD8, 0x00, 0xDE, 0x3D, 0xD8 };
	memcpy(b + n, pair, sizeof(pair));
	n += sizeof(pair);
	unsigned char tail[128];
	size_t tn = utf16le(" NCCL error: unhandled system error\r\n", tail);
	memcpy(b + n, tail + 2, tn - 2); /* without its byte-order mark */
	n += tn - 2;
	static const size_t chunks[] = { 1, 2, 3, 5, 512 };
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct ga_explain *ex = run_bytes(b, n, chunks[c], 16);
		assert_string_equal(ga_explain_encoding(ex), "UTF-16LE");
		assert_int_equal(ga_explain_lines(ex), 2);
		expect_one_match(ex, 2, "nccl-system-error",
		                 "x \xF0\x9F\x98\x80\xEF\xBF\xBD NCCL error: unhandled system error");
		ga_explain_free(ex);
	}
	/* two inputs: UTF-16, finish, then plain text, each read in its own encoding */
	struct ga_explain *ex = run_bytes(b, n, 7, 16);
	const char *plain = "NCCL error: unhandled system error\n";
	assert_int_equal(ga_explain_feed(ex, plain, strlen(plain)), 0);
	assert_int_equal(ga_explain_finish(ex), 0);
	assert_int_equal(ga_explain_lines(ex), 3);
	assert_int_equal(ga_explain_match_count(ex), 2);
	assert_string_equal(ga_explain_encoding(ex), "UTF-16LE");
	ga_explain_free(ex);
	/* no byte-order mark: two ASCII characters each beside a NUL decide UTF-16, either order,
	 * in any chunking; the four bytes that decided are the first two characters */
	for (int big = 0; big < 2; big++) {
		unsigned char bare[128];
		size_t bn = utf16le("NCCL error: unhandled system error\n", bare) - 2;
		memmove(bare, bare + 2, bn);
		for (size_t i = 0; big && i + 1 < bn; i += 2) {
			unsigned char t = bare[i];
			bare[i] = bare[i + 1];
			bare[i + 1] = t;
		}
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			ex = run_bytes(bare, bn, chunks[c], 16);
			assert_string_equal(ga_explain_encoding(ex), big ? "UTF-16BE" : "UTF-16LE");
			expect_one_match(ex, 1, "nccl-system-error", "NCCL error: unhandled system error");
			ga_explain_free(ex);
		}
	}
	/* NUL-spaced bytes that are not two ASCII characters (a binary header), and fewer than four
	 * bytes: read as they are */
	static const unsigned char bin[] = { 0x01, 0x00, 0x02, 0x00, 'x', '\n' };
	ex = run_bytes(bin, sizeof(bin), 1, 16);
	assert_null(ga_explain_encoding(ex));
	assert_int_equal(ga_explain_lines(ex), 1);
	ga_explain_free(ex);
	ex = run_text("ab", 1, 16);
	assert_null(ga_explain_encoding(ex));
	assert_int_equal(ga_explain_lines(ex), 1);
	ga_explain_free(ex);
	/* plain text and a UTF-8 byte-order mark: read as is, the mark dropped */
	ex = run_text("\xEF\xBB\xBFNCCL error: unhandled system error\n", 1, 16);
	assert_null(ga_explain_encoding(ex));
	expect_one_match(ex, 1, "nccl-system-error", "NCCL error: unhandled system error");
	ga_explain_free(ex);
}

/* Only the first GA_EXPLAIN_LINE_MAX bytes of a line are matched, however it is fed. */
static void test_long_lines(void **state)
{
	(void)state;
	size_t pad_far = GA_EXPLAIN_LINE_MAX + 10, pad_near = GA_EXPLAIN_LINE_MAX - 100;
	const char *lit = " CUDA driver is a stub library";
	size_t n = pad_far + pad_near + 2 * strlen(lit) + 3;
	char *s = malloc(n + 1);
	size_t k = 0;
	memset(s, 'a', pad_far);
	k = pad_far;
	k += (size_t)snprintf(s + k, n + 1 - k, "%s\n", lit);
	memset(s + k, 'b', pad_near);
	k += pad_near;
	k += (size_t)snprintf(s + k, n + 1 - k, "%s\nx", lit);
	s[k] = '\0';
	for (size_t chunk = 1000; chunk <= 1u << 20; chunk *= 32) {
		struct ga_explain *ex = run_text(s, chunk, 10);
		assert_int_equal(ga_explain_lines(ex), 3);
		size_t nm = 0;
		const struct ga_explain_match *m = ga_explain_matches(ex, &nm);
		assert_int_equal(nm, 1);
		assert_int_equal(m[0].line, 2);
		assert_int_equal(strlen(m[0].text), GA_EXPLAIN_TEXT_MAX);
		ga_explain_free(ex);
	}
	free(s);
}

/* Matches kept are capped; the counts are not. */
static void test_bounded(void **state)
{
	(void)state;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	for (int i = 0; i < 50; i++)
		assert_int_equal(ga_buf_addf(&b, "step %d\nRuntimeError: CUDA error: unknown error\n", i), 0);
	struct ga_explain *ex = run_text(b.data, 100, 3);
	size_t n = 0, nc = 0;
	ga_explain_matches(ex, &n);
	assert_int_equal(n, 3);
	assert_int_equal(ga_explain_match_count(ex), 50);
	const struct ga_explain_cause *c = ga_explain_causes(ex, &nc);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].count, 50);
	assert_int_equal(c[0].first_line, 2);
	assert_int_equal(c[0].last_line, 100);
	ga_explain_free(ex);
	ga_buf_release(&b);
}

/* --for: a CUDA library missing on an AMD node is named, and ranks first. */
static void test_for_node(void **state)
{
	(void)state;
	struct ga_explain *ex =
	        run_text("OSError: libcudart.so.12: cannot open shared object file: No such file\n"
	                 "/usr/lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found\n",
	                 1 << 20, 10);
	size_t nc = 0;
	const struct ga_explain_cause *c = ga_explain_causes(ex, &nc);
	assert_int_equal(nc, 2);
	assert_string_equal(sig_id(c[0].sig), "loader-symbol-version"); /* 85 > 80 without a node */
	struct ga_node *n = ga_node_new();
	assert_non_null(n);
	n->accelerators = ga_calloc(1, sizeof(*n->accelerators));
	n->n_accelerators = 1;
	n->accelerators[0].vendor = ga_strdup("amd");
	n->accelerators[0].model = ga_strdup("MI300X");
	n->accelerators[0].gfx_target = ga_strdup("gfx942");
	assert_int_equal(ga_explain_for(ex, n), 0);
	c = ga_explain_causes(ex, &nc);
	assert_string_equal(sig_id(c[0].sig), "loader-soname");
	assert_non_null(c[0].node_note);
	assert_non_null(strstr(c[0].node_note, "no NVIDIA driver"));
	assert_non_null(strstr(c[0].node_note, "gfx942"));
	assert_non_null(strstr(c[0].node_note, "CUDA build onto an AMD node"));
	ga_node_free(n);
	ga_explain_free(ex);
}

static void test_json(void **state)
{
	(void)state;
	static const char line[] = "x\000y \001no CUDA-capable device is detected\n";
	struct ga_explain *ex = NULL;
	assert_int_equal(ga_explain_new(10, &ex), 0);
	assert_int_equal(ga_explain_feed(ex, line, sizeof(line) - 1), 0);
	assert_int_equal(ga_explain_finish(ex), 0);
	struct ga_buf b;
	struct ga_json w;
	ga_buf_init(&b, 0);
	ga_json_init(&w, &b, false);
	struct ga_explain_result res;
	assert_int_equal(ga_explain_result_fill(ex, &res), 0);
	ga_schema_write(&w, &ga_explain_result_schema, &res);
	ga_schema_release(&ga_explain_result_schema, &res);
	assert_int_equal(ga_json_finish(&w), 0);
	assert_non_null(strstr(b.data, "\"match_count\":1"));
	assert_non_null(strstr(b.data, "\"id\":\"cuda-no-device\""));
	/* NUL and control bytes of the line are spaces in the report */
	assert_non_null(strstr(b.data, "\"text\":\"x y  no CUDA-capable device is detected\""));
	ga_buf_release(&b);
	ga_explain_free(ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),          cmocka_unit_test(test_basic_lines),
		cmocka_unit_test(test_most_specific_wins), cmocka_unit_test(test_notice_ranks_last),
		cmocka_unit_test(test_cause_class),        cmocka_unit_test(test_actions),
		cmocka_unit_test(test_xid_pairs),          cmocka_unit_test(test_literal_without_regex),
		cmocka_unit_test(test_heldout_m),          cmocka_unit_test(test_fixtures_cover_catalogue),
		cmocka_unit_test(test_chunking),           cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_long_lines),         cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_for_node),           cmocka_unit_test(test_json),
		cmocka_unit_test(test_error_code),         cmocka_unit_test(test_call_site_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
