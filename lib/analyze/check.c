/*
 * analyze/check.c - one node snapshot against its policy class: which class
 * the node belongs to, then one finding per violated pin or expectation.
 *
 * Pure, like the other analyzers. A value the snapshot does not hold (NVML was
 * not queried, the module list was unreadable) is never guessed: it becomes a
 * GA-CHECK-UNKNOWN info finding, not a pass and not a fail.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/internal.h"
#include "analyze.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/nodereport-analyze.h"
#include "gpuaudit/policy.h"
#include "gpuaudit/verdict.h"
#include "gpuaudit/verdict-analyze.h"
#include "gpuaudit/findings-analyze.h"

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Accelerators a class is about: those of its vendor (all when it names none). */
static bool in_class(const struct ga_policy_class *c, const struct ga_accel *a)
{
	return !c->match.vendor || streq(c->match.vendor, a->vendor);
}

static size_t class_accels(const struct ga_policy_class *c, const struct ga_node *n)
{
	size_t k = 0;
	for (size_t i = 0; i < n->n_accelerators; i++)
		k += in_class(c, &n->accelerators[i]);
	return k;
}

static bool class_matches(const struct ga_policy_class *c, const struct ga_node *n)
{
	if (streq(c->match.vendor, "none"))
		return n->n_accelerators == 0 && (!c->match.count.set || c->match.count.v == 0);
	size_t k = class_accels(c, n);
	if (c->match.vendor && k == 0)
		return false;
	if (c->match.count.set && c->match.count.v != k)
		return false;
	if (c->match.model) {
		if (k == 0)
			return false;
		for (size_t i = 0; i < n->n_accelerators; i++) {
			const struct ga_accel *a = &n->accelerators[i];
			if (in_class(c, a) &&
			    (!a->model || fnmatch(c->match.model, a->model, FNM_CASEFOLD) != 0))
				return false;
		}
	}
	return true;
}

const struct ga_policy_class *ga_policy_match(const struct ga_policy *p, const struct ga_node *n)
{
	/* PCI not read: the node's accelerators are unknown, so no class fits it (not even
	 * a CPU-only one: "none seen" is not "none") */
	if (!ga_node_pci_known(n))
		return NULL;
	for (size_t i = 0; i < p->n_classes; i++)
		if (class_matches(&p->classes[i], n))
			return &p->classes[i];
	return NULL;
}

void ga_check_release(struct ga_check *c)
{
	ga_findings_release(&c->findings);
	memset(c, 0, sizeof(*c));
}

/* --- findings --- */

struct cstate {
	const struct ga_node *n;
	const struct ga_policy_class *cls;
	struct ga_check *out;
	bool nvml_unknown; /* an unknown is due to missing NVML data */
	/* the PCI devices were not read (ga_node_source_state): where, and why */
	bool pci_unknown;
	const char *pci_path, *pci_why;
};

/* The class, what it expects and what the node has, as evidence on F. */
static void class_evidence(const struct cstate *cs, struct ga_finding *f, const char *expected,
                           const char *actual)
{
	if (cs->cls)
		ga_finding_evidence(f, "class", "%s", cs->cls->name);
	if (expected)
		ga_finding_evidence(f, "expected", "%s", expected);
	if (actual)
		ga_finding_evidence(f, "actual", "%s", actual);
}

static void add(struct cstate *cs, enum ga_code code, const char *subject, const char *decision,
                const char *expected, const char *actual, const char *fmt, ...)
        __attribute__((format(printf, 7, 8)));
static void add(struct cstate *cs, enum ga_code code, const char *subject, const char *decision,
                const char *expected, const char *actual, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bool unknown = code == GA_C_CHECK_UNKNOWN;
	struct ga_finding *f = ga_findings_add(&cs->out->findings, code, unknown ? GA_SEV_INFO : GA_SEV_ERROR,
	                                       subject, decision, "%s", msg);
	if (!f)
		return;
	class_evidence(cs, f, expected, actual);
	if (unknown)
		cs->out->unknowns++;
	else
		cs->out->violations++;
}

static const char *const NEED_NVML =
        "run where NVML answers (the live node, without --no-vendor) to decide this expectation";

static void unknown(struct cstate *cs, const char *what, const char *expected, bool nvml, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));
static void unknown(struct cstate *cs, const char *what, const char *expected, bool nvml, const char *fmt,
                    ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add(cs, GA_C_CHECK_UNKNOWN, what, nvml ? NEED_NVML : "collect the missing data, then check again",
	    expected, NULL, "not checked: %s", msg);
	if (nvml)
		cs->nvml_unknown = true;
}

static void check_ib_ports(struct cstate *cs);

/*
 * An expectation about the node's accelerators when the PCI devices were not read:
 * there is nothing to compare, so it is unknown (never "0 GPUs"). True when it was.
 */
static bool pci_unknown(struct cstate *cs, const char *what, const char *expected)
{
	if (!cs->pci_unknown)
		return false;
	char msg[384];
	snprintf(msg, sizeof(msg), "not checked: the PCI devices could not be read (/%s: %s)",
	         cs->pci_path ? cs->pci_path : GA_SOURCE_PCI_PATH, cs->pci_why ? cs->pci_why : "unreadable");
	add(cs, GA_C_CHECK_UNKNOWN, what, GA_SOURCE_PCI_FIX, expected, NULL, "%s", msg);
	return true;
}

/*
 * One problem, one finding: where the node's own finding CODE (ga_analyze_node, already
 * in the list) reports what an expectation would, the expectation becomes evidence on
 * it (policy, class, expected, actual) and it is raised to error, as the class wants
 * it, instead of a second finding with its own cause. It still counts as a violation.
 * The finding is matched by SUBJECT, or when KEY is set by a word of its evidence KEY.
 */
static bool covered(struct cstate *cs, enum ga_code code, const char *subject, const char *key,
                    const char *policy, const char *expected, const char *actual)
{
	struct ga_findings *fs = &cs->out->findings;
	for (size_t i = 0; i < fs->n; i++) {
		struct ga_finding *f = &fs->v[i];
		if (f->id != code)
			continue;
		bool hit = false;
		if (!key) {
			hit = streq(f->subject, subject);
		} else {
			for (size_t k = 0; k < f->n_evidence && !hit; k++) {
				if (strcmp(f->evidence[k].key, key) != 0)
					continue;
				size_t sl = strlen(subject);
				for (const char *w = f->evidence[k].value; w && *w && !hit;) {
					size_t wl = strcspn(w, " ");
					hit = wl == sl && !strncmp(w, subject, sl);
					w += wl + (w[wl] == ' ');
				}
			}
		}
		if (!hit)
			continue;
		/* once per finding: a link above several GPUs is one problem */
		for (size_t k = 0; k < f->n_evidence; k++)
			if (!strcmp(f->evidence[k].key, "policy") && streq(f->evidence[k].value, policy))
				return true;
		ga_finding_evidence(f, "policy", "%s", policy);
		class_evidence(cs, f, expected, actual);
		if (f->severity < GA_SEV_ERROR)
			f->severity = GA_SEV_ERROR;
		cs->out->violations++;
		return true;
	}
	return false;
}

/* --- pins --- */

static const struct ga_accel *first_accel(const struct cstate *cs)
{
	for (size_t i = 0; i < cs->n->n_accelerators; i++)
		if (in_class(cs->cls, &cs->n->accelerators[i]))
			return &cs->n->accelerators[i];
	return NULL;
}

static bool nvml_ok(const struct ga_node *n)
{
	return n->nvml && !n->nvml->error;
}

static void check_range(struct cstate *cs, enum ga_code code, const char *what, const struct ga_pin *pin,
                        const char *actual, const char *decision)
{
	if (ga_vrange_match(&pin->range, actual))
		return;
	add(cs, code, what, decision, pin->range.text, actual, "%s %s does not satisfy the pin '%s'", what,
	    actual, pin->range.text);
}

static void check_pins(struct cstate *cs)
{
	const struct ga_policy_class *c = cs->cls;
	const struct ga_node *n = cs->n;

	if (c->kernel.kind == GA_PIN_RANGE) {
		if (!n->host.kernel_release)
			unknown(cs, "kernel", c->kernel.range.text, false, "the kernel release was not read");
		else
			check_range(
			        cs, GA_C_PIN_KERNEL, "kernel", &c->kernel, n->host.kernel_release,
			        "boot the pinned kernel (fix the bootloader default or reimage) before the "
			        "node takes jobs");
	}

	/* driver: the kernel driver the class's accelerators are bound to */
	const struct ga_accel *a = first_accel(cs);
	const char *dname = a && a->driver ? a->driver : NULL;
	const struct ga_driver *d = dname ? ga_node_driver(n, dname) : NULL;
	const char *dver = d && d->version ? d->version : a ? a->driver_version : NULL;
	if (streq(dname, "nvidia") && nvml_ok(n) && n->nvml->driver_version)
		dver = n->nvml->driver_version;
	static const char *const drv_fix =
	        "install the pinned driver and reboot (or reimage the node); drain it until then";
	if (c->driver.kind == GA_PIN_RANGE) {
		if (!dver && !a && pci_unknown(cs, "driver", c->driver.range.text)) {
			/* which accelerators there are, and so their driver, is unknown */
		} else if (!dver)
			add(cs, GA_C_PIN_DRIVER, "driver", drv_fix, c->driver.range.text, "not loaded",
			    "no accelerator driver is loaded; the pin wants '%s'", c->driver.range.text);
		else
			check_range(cs, GA_C_PIN_DRIVER, dname ? dname : "driver", &c->driver, dver, drv_fix);
	} else if (c->driver.kind == GA_PIN_ABSENT) {
		for (size_t i = 0; i < n->n_drivers; i++)
			if (!n->drivers[i].loaded.set || n->drivers[i].loaded.v)
				add(cs, GA_C_PIN_DRIVER, n->drivers[i].name,
				    "remove the accelerator driver from this image or move the node to its "
				    "class",
				    "absent", n->drivers[i].version ? n->drivers[i].version : "loaded",
				    "accelerator driver %s is loaded but the class wants none",
				    n->drivers[i].name);
	}
	if (c->driver_flavor && streq(dname, "nvidia")) {
		const char *fl = d ? d->flavor : NULL;
		if (!fl)
			unknown(cs, "nvidia", c->driver_flavor, false,
			        "the kernel module flavor was not read");
		else if (strcmp(fl, c->driver_flavor) != 0)
			add(cs, GA_C_PIN_DRIVER, "nvidia", drv_fix, c->driver_flavor, fl,
			    "nvidia kernel modules are %s but the pin wants %s", fl, c->driver_flavor);
	}

	/* cuda: the driver's CUDA version, which only NVML reports */
	const struct ga_runtime *libcuda = ga_node_runtime(n, "libcuda");
	const char *cuda = nvml_ok(n) ? n->nvml->cuda_driver_version : NULL;
	if (c->cuda.kind == GA_PIN_RANGE) {
		if (cuda)
			check_range(
			        cs, GA_C_PIN_CUDA, "cuda", &c->cuda, cuda,
			        "install a driver whose CUDA version satisfies the pin (the CUDA driver API "
			        "version comes with the driver)");
		else if (!libcuda && !dver)
			add(cs, GA_C_PIN_CUDA, "cuda", "install the pinned NVIDIA driver", c->cuda.range.text,
			    "not installed", "no CUDA driver is installed; the pin wants '%s'",
			    c->cuda.range.text);
		else
			unknown(cs, "cuda", c->cuda.range.text, true,
			        "the CUDA driver version comes from NVML");
	} else if (c->cuda.kind == GA_PIN_ABSENT && (cuda || libcuda)) {
		add(cs, GA_C_PIN_CUDA, "cuda", "remove the CUDA driver libraries from this image", "absent",
		    cuda               ? cuda
		    : libcuda->version ? libcuda->version
		                       : "installed",
		    "CUDA is installed but the class wants none");
	}

	const struct ga_runtime *rocm = ga_node_runtime(n, "rocm");
	static const char *const rocm_fix = "install the pinned ROCm release (or reimage the node)";
	if (c->rocm.kind == GA_PIN_RANGE) {
		if (!rocm || !rocm->version)
			add(cs, GA_C_PIN_ROCM, "rocm", rocm_fix, c->rocm.range.text, "not installed",
			    "ROCm is not installed; the pin wants '%s'", c->rocm.range.text);
		else
			check_range(cs, GA_C_PIN_ROCM, "rocm", &c->rocm, rocm->version, rocm_fix);
	} else if (c->rocm.kind == GA_PIN_ABSENT && rocm) {
		add(cs, GA_C_PIN_ROCM, "rocm", "remove ROCm from this image", "absent",
		    rocm->version ? rocm->version : "installed",
		    "ROCm is installed but the class wants none");
	}
}

/* --- expectations --- */

static const struct ga_pci_dev *pci_of(const struct ga_node *n, const struct ga_accel *a)
{
	for (size_t i = 0; i < n->n_pci; i++)
		if (streq(n->pci[i].address, a->address))
			return &n->pci[i];
	return NULL;
}

static const char *subj(const struct ga_accel *a)
{
	return a->address ? a->address : "accelerator";
}

static const struct ga_nvml_gpu *gpu_nvml(const struct ga_accel *a)
{
	return a->nvml && !a->nvml->error ? a->nvml : NULL;
}

static uint64_t speed_gen(double gts)
{
	static const double gens[] = { 2.5, 5, 8, 16, 32, 64, 128 };
	uint64_t g = 0;
	for (size_t i = 0; i < GA_ARRAY_SIZE(gens); i++)
		if (gts + 0.01 >= gens[i])
			g = i + 1;
	return g;
}

/* The MIG profile of an instance: "NVIDIA A100-SXM4-40GB MIG 3g.20gb" -> "3g.20gb". */
static const char *mig_profile(const char *name)
{
	const char *p = name ? strstr(name, "MIG ") : NULL;
	if (!p)
		return name ? name : "?";
	const char *q;
	while ((q = strstr(p + 4, "MIG ")))
		p = q;
	return p + 4;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void join(char *out, size_t n, const char *const *v, size_t cnt)
{
	size_t len = 0;
	out[0] = '\0';
	if (!cnt)
		snprintf(out, n, "none");
	for (size_t i = 0; i < cnt && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "", v[i]);
}

static void check_mig(struct cstate *cs, const struct ga_accel *a, const struct ga_nvml_gpu *g)
{
	const struct ga_policy_class *c = cs->cls;
	static const char *const fix = "set the MIG mode (nvidia-smi -i N -mig 0|1) and the instances the "
	                               "class expects, then reset the GPU; drain it until then";
	if (c->expect.mig != GA_MIG_UNSET) {
		bool want = c->expect.mig == GA_MIG_ENABLED;
		const char *ws = want ? "enabled" : "disabled";
		if (g->mig_enabled.v != want)
			add(cs, GA_C_EXPECT_MIG, subj(a), fix, ws, g->mig_enabled.v ? "enabled" : "disabled",
			    "MIG is %s, the class expects it %s", g->mig_enabled.v ? "enabled" : "disabled",
			    ws);
		else if (g->mig_pending.set && g->mig_pending.v != want)
			add(cs, GA_C_EXPECT_MIG, subj(a), fix, ws,
			    g->mig_pending.v ? "enabled (pending disabled)" : "disabled (pending enabled)",
			    "MIG is %s now but a change to %s is pending a GPU reset", ws,
			    g->mig_pending.v ? "enabled" : "disabled");
		else if (g->mig_pending.set && g->mig_pending.v != g->mig_enabled.v)
			add(cs, GA_C_EXPECT_MIG, subj(a), fix, ws, "change pending",
			    "a MIG mode change is pending a GPU reset");
	}
	if (c->expect.mig_profiles_set) {
		const char *have[64], *want[64];
		size_t nh = 0, nw = 0;
		for (size_t k = 0; k < g->n_mig_instances && nh < GA_ARRAY_SIZE(have); k++)
			have[nh++] = mig_profile(g->mig_instances[k].name);
		for (size_t k = 0; k < c->expect.mig_profiles.n && nw < GA_ARRAY_SIZE(want); k++)
			want[nw++] = c->expect.mig_profiles.v[k];
		qsort(have, nh, sizeof(*have), cmp_str);
		qsort(want, nw, sizeof(*want), cmp_str);
		bool same = nh == nw;
		for (size_t k = 0; same && k < nh; k++)
			same = !strcmp(have[k], want[k]);
		if (!same) {
			char hs[256], ws[256];
			join(hs, sizeof(hs), have, nh);
			join(ws, sizeof(ws), want, nw);
			add(cs, GA_C_EXPECT_MIG, subj(a), fix, ws, hs,
			    "MIG instances are %s, the class expects %s", hs, ws);
		}
	}
}

/* Per-GPU NVML expectations; counts GPUs without the data for one unknown per expectation. */
enum { NV_MIG, NV_PERSIST, NV_ECC, NV_REMAP, NV_RETIRED, NV_N };

static void check_nvml_expects(struct cstate *cs)
{
	const struct ga_policy_class *c = cs->cls;
	const char *const names[NV_N] = { "mig", "persistence_mode", "ecc", "no_pending_remaps",
		                          "no_retired_pages_pending" };
	const bool wanted[NV_N] = { c->expect.mig != GA_MIG_UNSET || c->expect.mig_profiles_set,
		                    c->expect.persistence_mode.set, c->expect.ecc.set,
		                    c->expect.no_pending_remaps.set && c->expect.no_pending_remaps.v,
		                    c->expect.no_retired_pages_pending.set &&
		                            c->expect.no_retired_pages_pending.v };
	size_t missing[NV_N] = { 0 }, total = 0;
	for (int e = 0; e < NV_N; e++)
		if (wanted[e])
			pci_unknown(cs, names[e], NULL);
	for (size_t i = 0; i < cs->n->n_accelerators; i++) {
		const struct ga_accel *a = &cs->n->accelerators[i];
		if (!in_class(c, a))
			continue;
		total++;
		const struct ga_nvml_gpu *g = gpu_nvml(a);
		if (wanted[NV_MIG]) {
			if (!g || !g->mig_enabled.set)
				missing[NV_MIG]++;
			else
				check_mig(cs, a, g);
		}
		if (wanted[NV_PERSIST]) {
			if (!g || !g->persistence_mode.set)
				missing[NV_PERSIST]++;
			else if (g->persistence_mode.v != c->expect.persistence_mode.v)
				add(cs, GA_C_EXPECT_PERSISTENCE, subj(a),
				    c->expect.persistence_mode.v ? "run nvidia-persistenced (or nvidia-smi "
				                                   "-pm 1) so the driver stays "
				                                   "initialised between jobs"
				                                 : "stop nvidia-persistenced on this class",
				    c->expect.persistence_mode.v ? "on" : "off",
				    g->persistence_mode.v ? "on" : "off",
				    "persistence mode is %s, the class expects %s",
				    g->persistence_mode.v ? "on" : "off",
				    c->expect.persistence_mode.v ? "on" : "off");
		}
		if (wanted[NV_ECC]) {
			if (!g || !g->ecc_enabled.set)
				missing[NV_ECC]++;
			else if (g->ecc_enabled.v != c->expect.ecc.v ||
			         (g->ecc_pending.set && g->ecc_pending.v != c->expect.ecc.v))
				add(cs, GA_C_EXPECT_ECC, subj(a),
				    "set ECC with nvidia-smi -i N -e 0|1 and reset the GPU; drain it until "
				    "then",
				    c->expect.ecc.v ? "on" : "off",
				    g->ecc_enabled.v != c->expect.ecc.v ? (g->ecc_enabled.v ? "on" : "off")
				                                        : "change pending",
				    "ECC is %s%s, the class expects %s", g->ecc_enabled.v ? "on" : "off",
				    g->ecc_enabled.v == c->expect.ecc.v ? " but a change is pending a reset"
				                                        : "",
				    c->expect.ecc.v ? "on" : "off");
		}
		if (wanted[NV_REMAP]) {
			if (!g || (!g->remap_pending.set && !g->remap_failure.set))
				missing[NV_REMAP]++;
			else if ((g->remap_pending.set && g->remap_pending.v) ||
			         (g->remap_failure.set && g->remap_failure.v)) {
				bool fail = g->remap_failure.set && g->remap_failure.v;
				char act[96];
				snprintf(act, sizeof(act), "%s (correctable %llu, uncorrectable %llu)",
				         fail ? "remap failure" : "remap pending",
				         (unsigned long long)g->remapped_rows_correctable.v,
				         (unsigned long long)g->remapped_rows_uncorrectable.v);
				add(cs, GA_C_EXPECT_REMAP, subj(a),
				    fail ? "drain the node and replace the GPU: it ran out of spare rows"
				         : "drain the node and reset the GPU so the pending row remap takes "
				           "effect",
				    "no pending remaps", act, "row remapping %s",
				    fail ? "failed: no spare rows left" : "is pending a GPU reset");
				if (fail && !cs->out->findings.err) /* no spare rows: RMA */
					cs->out->findings.v[cs->out->findings.n - 1].action = GA_ACT_REPLACE;
			}
		}
		if (wanted[NV_RETIRED]) {
			if (!g || !g->retired_pages_pending.set)
				missing[NV_RETIRED]++;
			else if (g->retired_pages_pending.v)
				add(cs, GA_C_EXPECT_RETIRED_PAGES, subj(a),
				    "drain the node and reset the GPU so the pending page retirement takes "
				    "effect",
				    "no pending retirement", "retirement pending",
				    "page retirement is pending a GPU reset");
		}
	}
	for (int e = 0; e < NV_N; e++)
		if (wanted[e] && missing[e]) {
			bool nvidia = !c->match.vendor || streq(c->match.vendor, "nvidia");
			unknown(cs, names[e], NULL, nvidia, "%zu of %zu GPUs have no %s data", missing[e],
			        total, nvidia ? "NVML" : "vendor");
		}
}

static void check_expects(struct cstate *cs)
{
	const struct ga_policy_class *c = cs->cls;
	const struct ga_node *n = cs->n;
	char e[64], v[64];

	char gc[32];
	snprintf(gc, sizeof(gc), "%llu", (unsigned long long)c->expect.gpu_count.v);
	if (c->expect.gpu_count.set && !pci_unknown(cs, "gpu_count", gc)) {
		/* the count and the words /readyz renders from the node's verdict (verdict.h) */
		size_t all = 0, k = ga_vd_class_gpus(n, c, &all);
		char why[192];
		ga_vd_gpu_count_reason(why, sizeof(why), k, all, c->expect.gpu_count.v);
		snprintf(e, sizeof(e), "%llu", (unsigned long long)c->expect.gpu_count.v);
		snprintf(v, sizeof(v), "%zu", k);
		/* every GPU on the bus is there, and each one that is not usable has its own
		 * error finding (lost, excluded, no driver): those are the problem, with the
		 * count as their evidence */
		bool each = k < all && all == c->expect.gpu_count.v;
		for (size_t i = 0; each && i < n->n_accelerators; i++) {
			const struct ga_accel *a = &n->accelerators[i];
			if (!in_class(c, a) || ga_vd_accel_usable(a))
				continue;
			bool found = false;
			for (size_t j = 0; j < cs->out->findings.n && !found; j++)
				found = cs->out->findings.v[j].severity >= GA_SEV_ERROR &&
				        streq(cs->out->findings.v[j].subject, a->address);
			each = found;
		}
		if (k != c->expect.gpu_count.v && each) {
			for (size_t i = 0; i < n->n_accelerators; i++) {
				const struct ga_accel *a = &n->accelerators[i];
				if (!in_class(c, a) || ga_vd_accel_usable(a))
					continue;
				for (size_t j = 0; j < cs->out->findings.n; j++) {
					struct ga_finding *f = &cs->out->findings.v[j];
					if (f->severity < GA_SEV_ERROR || !streq(f->subject, a->address))
						continue;
					ga_finding_evidence(f, "policy", "expect.gpu_count");
					ga_finding_evidence(f, "class", "%s", c->name);
					ga_finding_evidence(f, "expected", "%s usable GPUs", e);
					ga_finding_evidence(f, "actual", "%s usable", v);
					break;
				}
			}
			cs->out->violations++;
		} else if (k != c->expect.gpu_count.v) {
			add(cs, GA_C_EXPECT_GPU_COUNT, "node",
			    "drain the node: a GPU is missing, lost, excluded or has no driver; check the "
			    "kernel "
			    "log for Xid/AER errors, then reset, reseat or replace it",
			    e, v, "%s", why);
		}
	}

	size_t mem_missing = 0, pcie_missing = 0, total = 0;
	if (c->expect.memory_min_gib.set)
		pci_unknown(cs, "memory_min_gib", NULL);
	if (c->expect.pcie_gen_min.set || c->expect.pcie_width_min.set)
		pci_unknown(cs, "pcie", NULL);
	for (size_t i = 0; i < n->n_accelerators; i++) {
		const struct ga_accel *a = &n->accelerators[i];
		if (!in_class(c, a))
			continue;
		total++;
		const struct ga_nvml_gpu *g = gpu_nvml(a);
		if (c->expect.memory_min_gib.set) {
			struct ga_ou64 mem =
			        g && g->memory_total_bytes.set ? g->memory_total_bytes : a->memory_bytes;
			double gib = (double)mem.v / (1024.0 * 1024 * 1024);
			if (!mem.set) {
				mem_missing++;
			} else if (gib + 1e-9 < c->expect.memory_min_gib.v) {
				snprintf(e, sizeof(e), ">= %g GiB", c->expect.memory_min_gib.v);
				snprintf(v, sizeof(v), "%.2f GiB", gib);
				add(cs, GA_C_EXPECT_MEMORY, subj(a),
				    "check the GPU model against the class: a smaller SKU, or memory the "
				    "driver "
				    "does not expose",
				    e, v, "%.2f GiB of GPU memory, the class expects at least %g GiB", gib,
				    c->expect.memory_min_gib.v);
			}
		}
		if (c->expect.pcie_gen_min.set || c->expect.pcie_width_min.set) {
			const struct ga_pci_dev *pd = pci_of(n, a);
			double gts = pd && pd->path_capable_speed_gts.set ? pd->path_capable_speed_gts.v
			             : pd && pd->link.max_speed_gts.set   ? pd->link.max_speed_gts.v
			                                                  : -1;
			uint64_t gen = gts > 0                    ? speed_gen(gts)
			               : g && g->pcie_gen_max.set ? g->pcie_gen_max.v
			                                          : 0;
			uint64_t width = pd && pd->path_min_width.set   ? pd->path_min_width.v
			                 : pd && pd->link.cur_width.set ? pd->link.cur_width.v
			                 : g && g->pcie_width.set       ? g->pcie_width.v
			                                                : 0;
			static const char *const fix =
			        "reseat the GPU or its riser, check the slot and the BIOS "
			        "bifurcation settings; drain the node if transfers matter";
			bool miss = false;
			if (c->expect.pcie_gen_min.set) {
				if (!gen)
					miss = true;
				else if (gen < c->expect.pcie_gen_min.v) {
					snprintf(e, sizeof(e), ">= gen%llu",
					         (unsigned long long)c->expect.pcie_gen_min.v);
					snprintf(v, sizeof(v), "gen%llu", (unsigned long long)gen);
					add(cs, GA_C_EXPECT_PCIE, subj(a), fix, e, v,
					    "PCIe link can reach gen%llu only, the class expects gen%llu or "
					    "better",
					    (unsigned long long)gen,
					    (unsigned long long)c->expect.pcie_gen_min.v);
				}
			}
			if (c->expect.pcie_width_min.set) {
				if (!width)
					miss = true;
				else if (width < c->expect.pcie_width_min.v) {
					snprintf(e, sizeof(e), ">= x%llu",
					         (unsigned long long)c->expect.pcie_width_min.v);
					snprintf(v, sizeof(v), "x%llu", (unsigned long long)width);
					/* a link trained below what it can do is GA-LINK-DEGRADED's */
					if (!covered(cs, GA_C_LINK_DEGRADED, a->address ? a->address : "",
					             "devices", "expect.pcie_width_min", e, v))
						add(cs, GA_C_EXPECT_PCIE, subj(a), fix, e, v,
						    "PCIe link runs at x%llu, the class expects x%llu or "
						    "wider",
						    (unsigned long long)width,
						    (unsigned long long)c->expect.pcie_width_min.v);
				}
			}
			pcie_missing += miss;
		}
	}
	bool nvidia = !c->match.vendor || streq(c->match.vendor, "nvidia");
	if (mem_missing)
		unknown(cs, "memory_min_gib", NULL, nvidia, "%zu of %zu GPUs have no memory size%s",
		        mem_missing, total, nvidia ? " (NVIDIA GPUs report it through NVML)" : "");
	if (pcie_missing)
		unknown(cs, "pcie", NULL, false, "%zu of %zu GPUs have no PCIe link data", pcie_missing,
		        total);

	check_nvml_expects(cs);

	if (c->expect.modules.n) {
		if (!n->modules_source)
			unknown(cs, "modules", NULL, false, "the loaded-module list could not be read");
		else
			for (size_t i = 0; i < c->expect.modules.n; i++)
				if (!ga_strv_contains(&n->modules, c->expect.modules.v[i]))
					add(cs, GA_C_EXPECT_MODULE, c->expect.modules.v[i],
					    "load it (modprobe) or fix the image so it loads at boot",
					    "loaded", "not loaded", "kernel module %s is not loaded",
					    c->expect.modules.v[i]);
	}
	for (size_t i = 0; i < c->expect.device_nodes.n; i++) {
		const char *dn = c->expect.device_nodes.v[i];
		bool found = ga_strv_contains(&n->device_nodes, dn);
		for (size_t k = 0; !found && k < n->n_accelerators; k++)
			found = ga_strv_contains(&n->accelerators[k].device_nodes, dn);
		/* a node an accelerator needs and lacks is GA-DEVNODE-MISSING's */
		bool needed = false;
		for (size_t k = 0; !found && !needed && k < n->n_accelerators; k++)
			needed = ga_strv_contains(&n->accelerators[k].missing_nodes, dn);
		if (!found && needed &&
		    covered(cs, GA_C_DEVNODE_MISSING, dn, NULL, "expect.device_nodes", "present", "missing"))
			continue;
		if (!found) {
			add(cs, GA_C_EXPECT_DEVNODE, dn,
			    "create it (for NVIDIA: nvidia-modprobe -u -c=0) or add it to the container's "
			    "devices",
			    "present", "missing", "device node %s is missing", dn);
			/* the same rule as GA-DEVNODE-MISSING's cause: on the host the driver makes
			 * the nodes; in a container the runtime passes them in */
			if (!cs->out->findings.err && !n->host.virt.container)
				cs->out->findings.v[cs->out->findings.n - 1].cause = GA_CAUSE_DRIVER;
		}
	}
	check_ib_ports(cs);
}

/* --- expect.ib_ports (docs/network.md) --- */

static bool ib_layer_is(const struct ga_ib_port *p, const char *want)
{
	return !want || (p->link_layer && !strcasecmp(p->link_layer, want));
}

static void check_ib_ports(struct cstate *cs)
{
	const struct ga_policy_class *c = cs->cls;
	if (!c->expect.ib_ports.set)
		return;
	const char *layer = c->expect.ib_ports.link_layer;
	const char *fix_count = "check that every HCA is seated and its driver (mlx5_core, mlx5_ib) loaded "
	                        "(ibstat lists the ports), or correct expect.ib_ports.count";
	for (size_t i = 0; i < cs->n->n_gaps; i++)
		if (cs->n->gaps[i].path && ga_startswith(cs->n->gaps[i].path, "sys/class/infiniband")) {
			unknown(cs, "ib_ports", NULL, false, "/%s could not be read: %s", cs->n->gaps[i].path,
			        cs->n->gaps[i].reason ? cs->n->gaps[i].reason : "unreadable");
			return;
		}
	size_t have = 0;
	for (size_t i = 0; i < cs->n->n_ib_ports; i++)
		have += ib_layer_is(&cs->n->ib_ports[i], layer);
	if (c->expect.ib_ports.count.set && have != c->expect.ib_ports.count.v) {
		char e[32], a[32];
		snprintf(e, sizeof(e), "%llu", (unsigned long long)c->expect.ib_ports.count.v);
		snprintf(a, sizeof(a), "%zu", have);
		add(cs, GA_C_EXPECT_IB_PORTS, "node", fix_count, e, a, "%zu %s port%s, expected %s", have,
		    layer ? layer : "RDMA", have == 1 ? "" : "s", e);
	}
	for (size_t i = 0; i < cs->n->n_ib_ports; i++) {
		const struct ga_ib_port *p = &cs->n->ib_ports[i];
		if (!ib_layer_is(p, layer))
			continue;
		char subj[96];
		snprintf(subj, sizeof(subj), "%s/%llu", p->device ? p->device : "?",
		         (unsigned long long)(p->port.set ? p->port.v : 0));
		const char *want = c->expect.ib_ports.state;
		if (want && (!p->state || strcasecmp(p->state, want) != 0))
			add(cs, GA_C_EXPECT_IB_PORTS, subj,
			    "bring the port up (cable, transceiver, switch port, subnet manager): ibstat "
			    "shows why",
			    want, p->state ? p->state : "unknown", "port %s is %s, expected %s", subj,
			    p->state ? p->state : "in an unknown state", want);
		uint64_t min_mbps =
		        c->expect.ib_ports.rate_gbps.set ? c->expect.ib_ports.rate_gbps.v * 1000 : 0;
		bool up = p->state_code.set && (p->state_code.v == 4 || p->state_code.v == 5);
		if (min_mbps && up && (!p->rate_mbps.set || p->rate_mbps.v < min_mbps)) { /* down: no rate */
			char e[32];
			snprintf(e, sizeof(e), ">= %llu Gb/sec", (unsigned long long)(min_mbps / 1000));
			add(cs, GA_C_EXPECT_IB_PORTS, subj,
			    "reseat or replace the cable or transceiver and check the switch port's speed "
			    "setting",
			    e, p->rate ? p->rate : "unknown", "port %s runs at %s, expected %s", subj,
			    p->rate ? p->rate : "an unknown rate", e);
		}
	}
}

/* --- expect.container_runtime (issue 21; the section: lib/collect/ctr-runtime.c) --- */

static const struct ga_ctr_engine *ctr_engine(const struct ga_node *n, const char *name)
{
	const struct ga_container_runtime *cr = n->container_runtime;
	for (size_t i = 0; cr && i < cr->n_engines; i++)
		if (streq(cr->engines[i].name, name))
			return &cr->engines[i];
	return NULL;
}

static void check_ctr_default(struct cstate *cs, const struct ga_ctr_engine *e, const char *want)
{
	const char *have = ga_ctr_default_runtime(e);
	if (streq(have, want))
		return;
	char exp[160];
	snprintf(exp, sizeof(exp), "default runtime %s", want);
	add(cs, GA_C_EXPECT_CTR_DEFAULT, e->name,
	    streq(e->name, "docker")
	            ? "set \"default-runtime\" in /etc/docker/daemon.json (nvidia-ctk runtime "
	              "configure --runtime=docker --set-as-default) and restart docker"
	            : "set the default runtime (nvidia-ctk runtime configure --set-as-default) and "
	              "restart the engine",
	    exp, have, "%s's default runtime is %s, the policy expects %s", e->name, have, want);
}

static void check_ctr_expects(struct cstate *cs)
{
	const struct ga_policy_ctr *x = &cs->cls->expect.container_runtime;
	if (!x->set)
		return;
	const struct ga_node *n = cs->n;
	const struct ga_ctr_toolkit *tk = ga_ctr_toolkit_of(n, "nvidia");
	bool installed = tk && tk->installed.v;
	if (x->toolkit.set && x->toolkit.v != installed)
		add(cs, GA_C_EXPECT_CTR_TOOLKIT, "nvidia-container-toolkit",
		    x->toolkit.v ? "install nvidia-container-toolkit and run nvidia-ctk runtime configure "
		                   "for each engine"
		                 : "remove the NVIDIA container toolkit, or change the policy",
		    x->toolkit.v ? "installed" : "absent", installed ? "installed" : "absent",
		    "the NVIDIA container toolkit is %s, the policy expects it %s",
		    installed ? "installed" : "absent", x->toolkit.v ? "installed" : "absent");
	if (x->mode && (installed || !x->toolkit.set)) { /* a missing toolkit is GA-EXPECT-CTR-TOOLKIT's */
		/* the toolkit's own default when config.toml leaves mode out */
		const char *have = !installed ? "absent" : tk->mode ? tk->mode : "auto";
		if (!streq(have, x->mode)) {
			char exp[64];
			snprintf(exp, sizeof(exp), "mode %s", x->mode);
			add(cs, GA_C_EXPECT_CTR_MODE,
			    tk && tk->config ? tk->config : "nvidia-container-toolkit",
			    "set [nvidia-container-runtime] mode in "
			    "/etc/nvidia-container-runtime/config.toml "
			    "(nvidia-ctk config --in-place --set nvidia-container-runtime.mode=MODE)",
			    exp, have, "the NVIDIA container toolkit's mode is %s, the policy expects %s",
			    have, x->mode);
		}
	}
	for (size_t i = 0; i < x->wired.n; i++) {
		const char *name = x->wired.v[i];
		const struct ga_ctr_engine *e = ctr_engine(n, name);
		if (!e || !e->wired.v) {
			char cmd[160];
			snprintf(cmd, sizeof(cmd), "nvidia-ctk runtime configure --runtime=%s and restart %s",
			         name, name);
			add(cs, GA_C_EXPECT_CTR_WIRED, name,
			    e ? cmd : "install and configure the engine, or change the policy",
			    "wired to the NVIDIA runtime", e ? "not wired" : "not present",
			    e ? "%s has no NVIDIA runtime, the policy expects one"
			      : "%s is not on this node, the policy "
			        "expects it wired to the NVIDIA runtime",
			    name);
			continue;
		}
		if (x->default_runtime)
			check_ctr_default(cs, e, x->default_runtime);
	}
	const struct ga_container_runtime *cr = n->container_runtime;
	if (x->default_runtime && !x->wired.n)
		for (size_t i = 0; cr && i < cr->n_engines; i++)
			check_ctr_default(cs, &cr->engines[i], x->default_runtime);
	if (x->device_groups.n)
		for (size_t i = 0; cr && i < cr->n_devices; i++) {
			const struct ga_ctr_device *d = &cr->devices[i];
			if (ga_ctr_device_open_for(d, (const char *const *)x->device_groups.v,
			                           x->device_groups.n))
				continue;
			char have[160], exp[160] = "open to group ";
			snprintf(have, sizeof(have), "%s:%s %s", d->owner ? d->owner : "?",
			         d->group ? d->group : "?", d->mode ? d->mode : "?");
			for (size_t k = 0; k < x->device_groups.n; k++) {
				size_t l = strlen(exp);
				snprintf(exp + l, sizeof(exp) - l, "%s%s", k ? " or " : "",
				         x->device_groups.v[k]);
			}
			add(cs, GA_C_EXPECT_CTR_DEVICE_GROUP, d->path,
			    "give the device one of the policy's groups with mode 0660 (a udev rule), or run "
			    "the "
			    "containers with the device's group",
			    exp, have,
			    "%s is %s: a container running as non-root in the policy's groups cannot open it",
			    d->path, have);
		}
}

/* --- the snapshot itself --- */

/* What every collector reads first, and the value it yields: absent in the snapshot or a gap. */
static const struct essential {
	const char *path, *what;
} essentials[] = {
	{ "proc/cpuinfo", "CPU" },
	{ "proc/meminfo", "memory size" },
	{ "proc/sys/kernel/osrelease", "kernel release" },
	{ "etc/os-release", "OS release" },
	{ "sys/bus/pci/devices", "PCI devices" },
};

static bool essential_read(const struct ga_node *n, size_t i)
{
	switch (i) {
	case 0:
		return n->cpu.model_name || n->cpu.vendor || n->cpu.threads.set;
	case 1:
		return n->cpu.mem_total_bytes.set;
	case 2:
		return n->host.kernel_release != NULL;
	case 3:
		return n->host.os.id || n->host.os.pretty_name;
	default:
		return n->n_pci > 0;
	}
}

static const char *gap_reason(const struct ga_node *n, const char *path)
{
	for (size_t i = 0; i < n->n_gaps; i++)
		if (streq(n->gaps[i].path, path) ||
		    (!strcmp(path, "etc/os-release") && streq(n->gaps[i].path, "usr/lib/os-release")))
			return n->gaps[i].reason ? n->gaps[i].reason : "unreadable";
	return "absent";
}

/*
 * A snapshot in which none of the essential files yielded anything (an empty
 * or wrong --root, /proc and /sys not mounted, an empty --from document) is
 * INCOMPLETE: whatever the class says, nothing was checked. One error
 * finding names each missing file and why; true when it was added.
 */
static bool check_incomplete(struct cstate *cs)
{
	char list[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < GA_ARRAY_SIZE(essentials); i++) {
		if (essential_read(cs->n, i))
			return false;
		int k = snprintf(list + len, sizeof(list) - len, "%s%s /%s (%s)", i ? ", " : "",
		                 essentials[i].what, essentials[i].path,
		                 gap_reason(cs->n, essentials[i].path));
		len = k > 0 && (size_t)k < sizeof(list) - len ? len + (size_t)k : len;
	}
	struct ga_finding *f = ga_findings_add(
	        &cs->out->findings, GA_C_CHECK_INCOMPLETE, GA_SEV_ERROR, "snapshot",
	        "run on the node itself, or point --root at a captured tree (gpuaudit capture) or "
	        "--from at a discover --json snapshot",
	        "nothing of /proc or /sys was read, so no verdict is possible: %s", list);
	if (f && cs->cls)
		ga_finding_evidence(f, "class", "%s", cs->cls->name);
	return true;
}

/* --- container layer: expect.cdi, expect.allocatable (docs/container.md) --- */

/* The CDI kind prefix of a class's vendor ("nvidia.com/"); NULL when the class names none. */
static const char *cdi_vendor(const struct ga_policy_class *c)
{
	if (!c->match.vendor || streq(c->match.vendor, "nvidia"))
		return "nvidia.com/";
	if (streq(c->match.vendor, "amd"))
		return "amd.com/";
	if (streq(c->match.vendor, "intel"))
		return "intel.com/";
	return NULL;
}

static void check_cdi(struct cstate *cs)
{
	const struct ga_policy_class *c = cs->cls;
	const struct ga_cdi *cdi = cs->n->cdi;
	const char *fix = "generate the vendor's CDI spec on the node (NVIDIA: nvidia-ctk cdi generate "
	                  "--output=/var/run/cdi/nvidia.yaml, or the GPU Operator with CDI enabled)";
	if (c->expect.cdi_present.set) {
		const char *prefix = cdi_vendor(c);
		size_t valid = 0;
		for (size_t i = 0; cdi && i < cdi->n_specs; i++)
			if (!cdi->specs[i].error && cdi->specs[i].kind &&
			    (!prefix || ga_startswith(cdi->specs[i].kind, prefix)))
				valid++;
		bool want = c->expect.cdi_present.v;
		if ((valid > 0) != want) {
			char act[96];
			snprintf(act, sizeof(act), "%zu readable %sspec%s", valid, prefix ? prefix : "",
			         valid == 1 ? "" : "s");
			add(cs, GA_C_EXPECT_CDI, "node",
			    want ? fix : "remove the CDI specs: the class runs its containers without CDI",
			    want ? "a CDI spec" : "no CDI spec", act,
			    want ? "no readable %sCDI spec in /etc/cdi or /var/run/cdi; the class expects one"
			         : "%sCDI specs are present; the class expects none",
			    prefix ? prefix : "");
		}
	}
	if (c->expect.cdi_current.set && c->expect.cdi_current.v) {
		/* the node's own GA-CDI-* findings (ga_analyze_node) already hold the details */
		size_t bad = 0;
		for (size_t i = 0; i < cs->out->findings.n; i++)
			bad += ga_code_in(cs->out->findings.v[i].id, GA_C_CDI);
		if (bad) {
			char act[64];
			snprintf(act, sizeof(act), "%zu GA-CDI finding%s", bad, bad == 1 ? "" : "s");
			add(cs, GA_C_EXPECT_CDI, "node",
			    "regenerate the CDI spec for the running driver and the current GPU/MIG layout "
			    "(nvidia-ctk cdi generate), then restart the pods that use it",
			    "current CDI specs", act,
			    "the CDI specs do not match the node (%s: see them above); the class expects "
			    "them "
			    "current",
			    act);
		}
	}
}

static void check_allocatable(struct cstate *cs)
{
	const struct ga_policy_class *c = cs->cls;
	const struct ga_device_plugins *dp = cs->n->device_plugins;
	for (size_t i = 0; i < c->expect.n_allocatable; i++) {
		const struct ga_policy_alloc *want = &c->expect.allocatable[i];
		char e[32], act[96];
		snprintf(e, sizeof(e), "%llu", (unsigned long long)want->count);
		if (dp && dp->checkpoint_error) {
			unknown(cs, "allocatable", e, false,
			        "the kubelet's device-plugin checkpoint is unreadable: %s cannot be counted",
			        want->resource);
			continue;
		}
		size_t have = 0;
		for (size_t r = 0; dp && r < dp->n_resources; r++)
			if (streq(dp->resources[r].name, want->resource))
				have = dp->resources[r].devices.n;
		if (have == want->count)
			continue;
		snprintf(act, sizeof(act), "%zu", have);
		const char *why = !dp               ? " (no /var/lib/kubelet/device-plugins on the node)"
		                  : !dp->checkpoint ? " (no kubelet checkpoint)"
		                                    : "";
		add(cs, GA_C_EXPECT_ALLOCATABLE, want->resource,
		    have < want->count
		            ? "restart the device plugin on the node and read its log; a device it "
		              "marked unhealthy also has a GPU finding: reset or replace that GPU"
		            : "check the device plugin's configuration (time-slicing replicas, MIG "
		              "strategy) against the class",
		    e, act, "the kubelet has %zu %s device%s registered%s, the class expects %llu", have,
		    want->resource, have == 1 ? "" : "s", why, (unsigned long long)want->count);
	}
}

static void check_container(struct cstate *cs)
{
	check_cdi(cs);
	check_allocatable(cs);
}

/* --- the check --- */

int ga_check_node(const struct ga_node *n, const struct ga_policy_class *cls, bool vendor_wanted,
                  struct ga_check *out)
{
	struct ga_check c = { .cls = cls };
	ga_findings_init(&c.findings);
	struct cstate cs = { .n = n, .cls = cls, .out = &c };
	cs.pci_unknown = ga_node_source_state(n, GA_SOURCE_PCI, &cs.pci_path, &cs.pci_why) != GA_SOURCE_READ;
	int r = ga_analyze_node(n, &c.findings);
	if (r < 0)
		goto fail;
	bool node_errors = ga_findings_max_severity(&c.findings) >= GA_SEV_ERROR;
	if (!cls && cs.pci_unknown) {
		/* no class can be matched: the node's GA-PCI-UNKNOWN finding says why and what to
		 * do; the result is INCONCLUSIVE, not a violation */
	} else if (!cls) {
		char have[128] = "no accelerators";
		if (n->n_accelerators)
			snprintf(have, sizeof(have), "%zu x %s %s", n->n_accelerators,
			         n->accelerators[0].vendor ? n->accelerators[0].vendor : "?",
			         n->accelerators[0].model ? n->accelerators[0].model : "?");
		add(&cs, GA_C_CHECK_NO_CLASS, "node",
		    "add a class for this hardware to the policy, or name one with --class",
		    "a matching class", have, "no class in the policy matches this node (%s)", have);
	} else {
		check_pins(&cs);
		check_expects(&cs);
		check_ctr_expects(&cs);
		check_container(&cs);
	}
	bool incomplete = check_incomplete(&cs);
	if (!c.findings.err)
		ga_findings_bind_devices(&c.findings, n);
	if (c.findings.err) {
		r = c.findings.err;
		goto fail;
	}
	ga_findings_sort(&c.findings);
	if (incomplete) /* before FAIL: the violations of an empty snapshot are not the node's */
		c.result = GA_CHECK_INCOMPLETE;
	else if (c.violations || node_errors)
		c.result = GA_CHECK_FAIL;
	else if (cs.pci_unknown) /* no violation seen, but the accelerators were not seen at all */
		c.result = GA_CHECK_INCONCLUSIVE;
	else if (cs.nvml_unknown && vendor_wanted && !nvml_ok(n))
		c.result = GA_CHECK_UNKNOWN;
	else
		c.result = GA_CHECK_PASS;
	*out = c;
	return 0;
fail:
	ga_findings_release(&c.findings);
	return r;
}

int ga_check_report_take(struct ga_check_report *r, struct ga_check *c, const char *policy_file,
                         const char *host)
{
	memset(r, 0, sizeof(*r));
	r->schema = ga_strdup(GA_CHECK_SCHEMA);
	r->host = host ? ga_strdup(host) : NULL;
	r->cls = c->cls ? ga_strdup(c->cls->name) : NULL;
	r->result = ga_strdup(ga_check_result_name(c->result));
	r->policy = policy_file ? ga_strdup(policy_file) : NULL;
	GA_SET(r->violations, c->violations);
	GA_SET(r->unknowns, c->unknowns);
	r->findings = c->findings;
	memset(&c->findings, 0, sizeof(c->findings));
	if (!r->schema || (host && !r->host) || (c->cls && !r->cls) || !r->result ||
	    (policy_file && !r->policy)) {
		ga_schema_release(&ga_check_report_schema, r);
		return -ENOMEM;
	}
	return 0;
}
