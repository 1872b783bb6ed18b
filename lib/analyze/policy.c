/*
 * analyze/policy.c - the golden-image policy: version comparison, version
 * ranges, and the strict YAML parser (libfyaml's document API).
 *
 * Strict on purpose: a policy is what decides whether a node may take jobs, so
 * an unknown key, a wrong type or a malformed range is an error that names
 * FILE:LINE:COLUMN, never a check silently skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "../core/file.h"
#include "gpuaudit/kmsg.h"
#include "../core/internal.h"
#include "../core/yaml-node.h"
#include "../core/yaml-scan.h"
#include "gpuaudit/fs.h"
#include "gpuaudit/policy.h"

/* --- versions --- */

static bool is_sep(char c)
{
	return c == '.' || c == '-' || c == '+' || c == '_' || c == '~';
}

/* Compare one component [a, a+na) with [b, b+nb). */
static int comp_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	size_t da = 0, db = 0;
	while (da < na && isdigit((unsigned char)a[da]))
		da++;
	while (db < nb && isdigit((unsigned char)b[db]))
		db++;
	if (da && db) {
		/* numbers of any length: skip leading zeros, longer is larger */
		size_t za = 0, zb = 0;
		while (za + 1 < da && a[za] == '0')
			za++;
		while (zb + 1 < db && b[zb] == '0')
			zb++;
		if (da - za != db - zb)
			return da - za < db - zb ? -1 : 1;
		int c = memcmp(a + za, b + zb, da - za);
		if (c)
			return c < 0 ? -1 : 1;
	} else if (da || db) {
		return da ? 1 : -1; /* a number sorts after text ("1" > "rc") */
	}
	size_t ra = na - da, rb = nb - db;
	int c = memcmp(a + da, b + db, ra < rb ? ra : rb);
	if (c)
		return c < 0 ? -1 : 1;
	return ra == rb ? 0 : ra < rb ? -1 : 1;
}

int ga_version_cmp(const char *a, const char *b)
{
	for (;;) {
		if (!*a || !*b)
			return *a ? 1 : *b ? -1 : 0;
		size_t na = 0, nb = 0;
		while (a[na] && !is_sep(a[na]))
			na++;
		while (b[nb] && !is_sep(b[nb]))
			nb++;
		int c = comp_cmp(a, na, b, nb);
		if (c)
			return c;
		a += na;
		b += nb;
		if (*a)
			a++;
		if (*b)
			b++;
	}
}

/* --- ranges --- */

void ga_vrange_release(struct ga_vrange *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_terms; i++)
		ga_free(r->terms[i].version);
	ga_free(r->terms);
	ga_free(r->text);
	memset(r, 0, sizeof(*r));
}

static bool version_chars_ok(const char *s, size_t n, bool glob)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c) || is_sep((char)c) || (glob && (c == '*' || c == '?')))
			continue;
		return false;
	}
	return isalnum((unsigned char)s[0]) || (glob && (s[0] == '*' || s[0] == '?'));
}

int ga_vrange_parse(const char *text, struct ga_vrange *out, char *errbuf, size_t errlen)
{
	struct ga_vrange r = { 0 };
	int err = -EINVAL;
	const char *p = text;
	if (errbuf && errlen)
		errbuf[0] = '\0';
#define FAIL(...)                                              \
	do {                                                   \
		if (errbuf && errlen)                          \
			snprintf(errbuf, errlen, __VA_ARGS__); \
		goto fail;                                     \
	} while (0)
	r.text = ga_strdup(text);
	if (!r.text) {
		err = -ENOMEM;
		goto fail;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *start = p;
		while (*p && *p != ',')
			p++;
		const char *end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end == start)
			FAIL("empty comparator in '%s'", text);
		if (r.n_terms == GA_RANGE_MAX_TERMS)
			FAIL("more than %d comparators", GA_RANGE_MAX_TERMS);
		enum ga_vop op = GA_VOP_EQ;
		const char *v = start;
		if (!strncmp(v, ">=", 2))
			op = GA_VOP_GE, v += 2;
		else if (!strncmp(v, "<=", 2))
			op = GA_VOP_LE, v += 2;
		else if (!strncmp(v, "==", 2))
			op = GA_VOP_EQ, v += 2;
		else if (!strncmp(v, "!=", 2))
			op = GA_VOP_NE, v += 2;
		else if (*v == '>')
			op = GA_VOP_GT, v++;
		else if (*v == '<')
			op = GA_VOP_LT, v++;
		else if (strchr("=!~^", *v))
			FAIL("'%.*s' does not start with >=, >, <=, <, == or !=", (int)(end - start), start);
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		size_t n = (size_t)(end - v);
		bool glob = memchr(v, '*', n) || memchr(v, '?', n);
		if (glob && op != GA_VOP_EQ)
			FAIL("a '*' pattern cannot follow an operator in '%.*s'", (int)(end - start), start);
		if (!version_chars_ok(v, n, glob))
			FAIL("'%.*s' is not a version (digits and letters separated by . - + _ ~)",
			     (int)(end - start), start);
		struct ga_vterm *t = ga_array_push((void **)&r.terms, &r.n_terms, sizeof(*t));
		if (!t) {
			err = -ENOMEM;
			goto fail;
		}
		t->op = glob ? GA_VOP_GLOB : op;
		t->version = ga_strndup(v, n);
		if (!t->version) {
			err = -ENOMEM;
			goto fail;
		}
		if (!*p)
			break;
		p++;
	}
#undef FAIL
	*out = r;
	return 0;
fail:
	ga_vrange_release(&r);
	return err;
}

bool ga_vrange_match(const struct ga_vrange *r, const char *version)
{
	if (!version)
		return false;
	for (size_t i = 0; i < r->n_terms; i++) {
		const struct ga_vterm *t = &r->terms[i];
		int c = t->op == GA_VOP_GLOB ? 0 : ga_version_cmp(version, t->version);
		bool ok;
		switch (t->op) {
		case GA_VOP_EQ:
			ok = c == 0;
			break;
		case GA_VOP_NE:
			ok = c != 0;
			break;
		case GA_VOP_LT:
			ok = c < 0;
			break;
		case GA_VOP_LE:
			ok = c <= 0;
			break;
		case GA_VOP_GT:
			ok = c > 0;
			break;
		case GA_VOP_GE:
			ok = c >= 0;
			break;
		case GA_VOP_GLOB:
		default:
			ok = fnmatch(t->version, version, 0) == 0;
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* --- what the YAML parser is never shown (docs/policy.md, "Limits") ---
 *
 * libfyaml 0.7.12 loops forever on a directive with a byte that is not UTF-8
 * ("%\xfe"), misdecodes (and leaks on) adjacent '' escapes ('x''''y' reads
 * as "x'''"; upstream pantoniou/libfyaml#233), keeps ~550 bytes per node (a 1 MiB flow list costs 280 MB) and
 * tokenizes a whole flow collection before its own depth limit (64) stops it.
 * So the text is checked first: YAML's character set (well-formed UTF-8, no NUL,
 * no control character but TAB, LF and CR, no BOM after the start), the nesting
 * depth and the number of characters that can start a node. A rejection names
 * the FILE:LINE:COLUMN of the first offending character (columns count
 * characters, a tab is one, as in libfyaml's messages). The scan itself is
 * lib/core/yaml-scan.c (shared with the CDI spec reader).
 */

/* Where the prescan (lib/core/yaml-scan.c) stopped. */
struct scan_pos {
	unsigned line, col;
};

static int scan_fail(struct ga_ctx *ctx, const char *file, const struct scan_pos *sc, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static int scan_fail(struct ga_ctx *ctx, const char *file, const struct scan_pos *sc, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ga_err(ctx, -EINVAL, "%s:%u:%u: %s", file, sc->line, sc->col, msg);
}

static int policy_prescan(struct ga_ctx *ctx, const char *file, const char *text, size_t len)
{
	struct ga_yscan y;
	if (ga_yaml_prescan(text, len, &y) == 0)
		return 0;
	struct scan_pos sc = { y.line, y.col };
	switch (y.status) {
	case GA_YSCAN_BADUTF8:
		return scan_fail(ctx, file, &sc, "%s (byte 0x%02x): a policy is UTF-8 text", y.why, y.byte);
	case GA_YSCAN_BADCHAR:
		return scan_fail(ctx, file, &sc, "%s (U+%04X): not allowed in YAML", y.why, (unsigned)y.cp);
	case GA_YSCAN_NODES:
		return scan_fail(ctx, file, &sc,
		                 "more than %u characters that can start a YAML node (- , : ? [ { %%): "
		                 "too large for a policy",
		                 GA_POLICY_MAX_NODES);
	case GA_YSCAN_SQRUN:
		return scan_fail(ctx, file, &sc,
		                 "two escaped quotes ('') in a row in a single-quoted string: "
		                 "libfyaml 0.7.12 misreads them; write this value in double quotes");
	case GA_YSCAN_QKEY:
		return scan_fail(ctx, file, &sc,
		                 "an explicit mapping key ('? '): not supported (libfyaml 0.7.12 can crash "
		                 "on them); write KEY: VALUE");
	case GA_YSCAN_DEEP:
	case GA_YSCAN_OK:
	default:
		return scan_fail(ctx, file, &sc, "nested deeper than %u levels (a policy needs 5)",
		                 GA_POLICY_MAX_DEPTH);
	}
}

int ga_policy_yaml_check(struct ga_ctx *ctx, const char *file, const char *text, size_t len)
{
	return policy_prescan(ctx, file, text, len);
}

/* --- the parser --- */

struct pstate {
	struct ga_ctx *ctx;
	const char *file;
	const char *text; /* the input, for positions libfyaml does not give */
	size_t len;
	int err;
	char path[256];
	char kind[64];
};

/* Record the first error: "FILE:LINE:COLUMN: PATH: message". Returns -EINVAL. */
static int perr(struct pstate *ps, struct fy_node *at, struct fy_node *fallback, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static int perr(struct pstate *ps, struct fy_node *at, struct fy_node *fallback, const char *fmt, ...)
{
	if (ps->err)
		return ps->err;
	const struct fy_mark *m = ga_yaml_node_mark(at);
	if (!m)
		m = ga_yaml_node_mark(fallback);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ga_err(ps->ctx, -EINVAL, "%s:%d:%d: %s%s%s", ps->file, m ? m->line + 1 : 1, m ? m->column + 1 : 1,
	       ps->path, *ps->path ? ": " : "", msg);
	ps->err = -EINVAL;
	return ps->err;
}

static int pnomem(struct pstate *ps)
{
	if (!ps->err)
		ps->err = ga_err(ps->ctx, -ENOMEM, "out of memory reading %s", ps->file);
	return ps->err;
}

/* Push ".key" or "[i]" onto the path; returns the old length to restore. */
static size_t path_push(struct pstate *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(struct pstate *ps, const char *fmt, ...)
{
	size_t len = strlen(ps->path);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->path + len, sizeof(ps->path) - len, fmt, ap);
	va_end(ap);
	return len;
}

static void path_pop(struct pstate *ps, size_t len)
{
	ps->path[len] = '\0';
}

/* What a node is, for messages: "a mapping", "a list", "null" or the scalar quoted. */
static const char *node_kind(struct pstate *ps, struct fy_node *n)
{
	if (!n || ga_yaml_is_null(n))
		return "null";
	if (fy_node_is_mapping(n))
		return "a mapping";
	if (fy_node_is_sequence(n))
		return "a list";
	char text[48];
	if (!ga_yaml_scalar_text(n, text, sizeof(text)))
		return "a long scalar";
	snprintf(ps->kind, sizeof(ps->kind), "'%s'", text);
	return ps->kind;
}

static bool plain(struct fy_node *n)
{
	return fy_node_get_style(n) == FYNS_PLAIN;
}

static int get_string(struct pstate *ps, struct fy_node *v, struct fy_node *key, char **out)
{
	char buf[1024];
	if (ga_yaml_is_null(v) || !fy_node_is_scalar(v))
		return perr(ps, v, key, "expected a string, got %s", node_kind(ps, v));
	if (!ga_yaml_scalar_text(v, buf, sizeof(buf)))
		return perr(ps, v, key, "expected a string of at most %zu bytes", sizeof(buf) - 1);
	if (*out)
		ga_free(*out);
	*out = ga_strdup(buf);
	return *out ? 0 : pnomem(ps);
}

static int get_u64(struct pstate *ps, struct fy_node *v, struct fy_node *key, uint64_t lo, uint64_t hi,
                   struct ga_ou64 *out)
{
	char buf[32];
	uint64_t x;
	if (!v || !fy_node_is_scalar(v) || !plain(v) || ga_yaml_is_null(v) ||
	    !ga_yaml_scalar_text(v, buf, sizeof(buf)) || !isdigit((unsigned char)buf[0]) ||
	    ga_parse_u64(buf, 10, &x) < 0)
		return perr(ps, v, key, "expected an integer from %llu to %llu, got %s",
		            (unsigned long long)lo, (unsigned long long)hi, node_kind(ps, v));
	if (x < lo || x > hi)
		return perr(ps, v, key, "expected an integer from %llu to %llu, got %llu",
		            (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)x);
	out->v = x;
	out->set = true;
	return 0;
}

static int get_number(struct pstate *ps, struct fy_node *v, struct fy_node *key, double *out)
{
	char buf[64];
	double x;
	if (!v || !fy_node_is_scalar(v) || !plain(v) || ga_yaml_is_null(v) ||
	    !ga_yaml_scalar_text(v, buf, sizeof(buf)) || ga_parse_dbl(buf, &x) < 0 || x != x || x > 1e300 ||
	    x < -1e300)
		return perr(ps, v, key, "expected a number, got %s", node_kind(ps, v));
	*out = x;
	return 0;
}

static int get_bool(struct pstate *ps, struct fy_node *v, struct fy_node *key, struct ga_obool *out)
{
	char buf[8];
	if (v && fy_node_is_scalar(v) && plain(v) && ga_yaml_scalar_text(v, buf, sizeof(buf))) {
		if (!strcmp(buf, "true") || !strcmp(buf, "True") || !strcmp(buf, "TRUE")) {
			out->v = true;
			out->set = true;
			return 0;
		}
		if (!strcmp(buf, "false") || !strcmp(buf, "False") || !strcmp(buf, "FALSE")) {
			out->v = false;
			out->set = true;
			return 0;
		}
	}
	return perr(ps, v, key, "expected true or false, got %s", node_kind(ps, v));
}

static int get_strv(struct pstate *ps, struct fy_node *v, struct fy_node *key, struct ga_strv *out,
                    const char *must_prefix)
{
	if (!v || !fy_node_is_sequence(v))
		return perr(ps, v, key, "expected a list of strings, got %s", node_kind(ps, v));
	ga_strv_release(out);
	void *it = NULL;
	struct fy_node *item;
	size_t i = 0;
	while ((item = fy_node_sequence_iterate(v, &it))) {
		char buf[256];
		size_t old = path_push(ps, "[%zu]", i++);
		if (ga_yaml_is_null(item) || !fy_node_is_scalar(item) ||
		    !ga_yaml_scalar_text(item, buf, sizeof(buf)) || !*buf) {
			perr(ps, item, key, "expected a non-empty string, got %s", node_kind(ps, item));
			path_pop(ps, old);
			return ps->err;
		}
		if (must_prefix && !ga_startswith(buf, must_prefix)) {
			perr(ps, item, key, "expected a path under %s, got '%s'", must_prefix, buf);
			path_pop(ps, old);
			return ps->err;
		}
		path_pop(ps, old);
		if (ga_strv_push(out, buf) < 0)
			return pnomem(ps);
	}
	return 0;
}

/* Iterate a mapping: each key must be a plain scalar from `keys`; calls fn(index-of-key). */
typedef int (*member_fn)(struct pstate *ps, void *obj, int which, struct fy_node *key, struct fy_node *val);

static int walk_mapping(struct pstate *ps, struct fy_node *map, struct fy_node *at, const char *what,
                        const char *const *keys, member_fn fn, void *obj)
{
	if (!map || !fy_node_is_mapping(map))
		return perr(ps, map, at, "expected %s (a mapping), got %s", what, node_kind(ps, map));
	void *it = NULL;
	struct fy_node_pair *pr;
	uint32_t seen = 0; /* duplicates are ours to find: libfyaml's check is quadratic */
	while ((pr = fy_node_mapping_iterate(map, &it))) {
		struct fy_node *k = fy_node_pair_key(pr), *v = fy_node_pair_value(pr);
		char name[64];
		if (!k || !fy_node_is_scalar(k) || !ga_yaml_scalar_text(k, name, sizeof(name)))
			return perr(ps, k, map, "expected a key of %s, got %s", what, node_kind(ps, k));
		int which = -1;
		for (int i = 0; keys[i] && i < 32; i++)
			if (!strcmp(keys[i], name))
				which = i;
		if (which >= 0 && (seen & (1u << which)))
			return perr(ps, k, map, "duplicate key '%s' in %s", name, what);
		if (which >= 0)
			seen |= 1u << which;
		if (which < 0) {
			char list[512] = "";
			size_t len = 0;
			for (int i = 0; keys[i] && len < sizeof(list); i++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
				                        keys[i]);
			return perr(ps, k, map, "unknown key '%s' in %s (expected one of: %s)", name, what,
			            list);
		}
		size_t old = path_push(ps, "%s%s", *ps->path ? "." : "", name);
		int r = fn(ps, obj, which, k, v);
		path_pop(ps, old);
		if (r < 0)
			return r;
	}
	return 0;
}

/* match */
static const char *const match_keys[] = { "vendor", "model", "count", NULL };
static const char *const vendors[] = { "nvidia", "amd", "intel", "habana", "other", "none", NULL };

static int match_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	switch (which) {
	case 0: {
		if (get_string(ps, v, k, &c->match.vendor) < 0)
			return ps->err;
		for (int i = 0; vendors[i]; i++)
			if (!strcmp(vendors[i], c->match.vendor))
				return 0;
		return perr(ps, v, k,
		            "expected a vendor (nvidia, amd, intel, habana, other or none), got '%s'",
		            c->match.vendor);
	}
	case 1:
		return get_string(ps, v, k, &c->match.model);
	default:
		return get_u64(ps, v, k, 0, 1024, &c->match.count);
	}
}

/* pin */
static const char *const pin_keys[] = { "kernel", "driver", "cuda", "rocm", "driver_flavor", NULL };

static int pin_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	if (which == 4) {
		if (get_string(ps, v, k, &c->driver_flavor) < 0)
			return ps->err;
		if (strcmp(c->driver_flavor, "open") != 0 && strcmp(c->driver_flavor, "proprietary") != 0)
			return perr(ps, v, k, "expected 'open' or 'proprietary', got '%s'", c->driver_flavor);
		return 0;
	}
	struct ga_pin *pins[] = { &c->kernel, &c->driver, &c->cuda, &c->rocm };
	struct ga_pin *pin = pins[which];
	ga_vrange_release(&pin->range);
	pin->kind = GA_PIN_UNSET;
	if (ga_yaml_is_null(v)) {
		if (which == 0)
			return perr(ps, v, k, "a kernel cannot be absent: expected a version range");
		pin->kind = GA_PIN_ABSENT;
		return 0;
	}
	char buf[256], why[160];
	if (!fy_node_is_scalar(v) || !ga_yaml_scalar_text(v, buf, sizeof(buf)))
		return perr(ps, v, k, "expected a version range such as \">=550.54, <560\" or null, got %s",
		            node_kind(ps, v));
	int r = ga_vrange_parse(buf, &pin->range, why, sizeof(why));
	if (r == -ENOMEM)
		return pnomem(ps);
	if (r < 0)
		return perr(ps, v, k, "expected a version range such as \">=550.54, <560\": %s", why);
	pin->kind = GA_PIN_RANGE;
	return 0;
}

/* expect */
static const char *const expect_keys[] = { "gpu_count",
	                                   "memory_min_gib",
	                                   "pcie_gen_min",
	                                   "pcie_width_min",
	                                   "mig",
	                                   "mig_profiles",
	                                   "persistence_mode",
	                                   "ecc",
	                                   "no_pending_remaps",
	                                   "no_retired_pages_pending",
	                                   "modules",
	                                   "device_nodes",
	                                   "cdi",
	                                   "allocatable",
	                                   "container_runtime",
	                                   "ib_ports",
	                                   NULL };
#define EXPECT_CONTAINER_FIRST 12   /* "cdi": the container layer's keys (expect_container_member) */
#define EXPECT_CONTAINER_RUNTIME 14 /* "container_runtime" (ctr_expect_parse) */
#define EXPECT_IB_PORTS 15          /* "ib_ports" (ib_ports_member) */

/* expect.cdi {present, current} and expect.allocatable {resource: count} (docs/container.md) */
static const char *const cdi_keys[] = { "present", "current", NULL };

static int cdi_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	return get_bool(ps, v, k, which == 0 ? &c->expect.cdi_present : &c->expect.cdi_current);
}

/* A Kubernetes extended resource name: DOMAIN/NAME, letters, digits, '.', '-', '_'. */
static bool resource_name_ok(const char *s)
{
	const char *slash = strchr(s, '/');
	if (!slash || slash == s || !slash[1] || strchr(slash + 1, '/'))
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("./-_", *p))
			return false;
	return isalnum((unsigned char)s[0]) && isalnum((unsigned char)s[strlen(s) - 1]);
}

static int parse_allocatable(struct pstate *ps, struct ga_policy_class *c, struct fy_node *k,
                             struct fy_node *v)
{
	if (!v || !fy_node_is_mapping(v))
		return perr(ps, v, k, "expected a mapping of resource names to device counts, got %s",
		            node_kind(ps, v));
	void *it = NULL;
	struct fy_node_pair *pr;
	while ((pr = fy_node_mapping_iterate(v, &it))) {
		struct fy_node *pk = fy_node_pair_key(pr), *pv = fy_node_pair_value(pr);
		char name[128];
		if (!pk || !fy_node_is_scalar(pk) || !ga_yaml_scalar_text(pk, name, sizeof(name)) ||
		    !resource_name_ok(name))
			return perr(ps, pk, v,
			            "expected a resource name such as nvidia.com/gpu (DOMAIN/NAME, at most "
			            "127 bytes)");
		for (size_t i = 0; i < c->expect.n_allocatable; i++)
			if (!strcmp(c->expect.allocatable[i].resource, name))
				return perr(ps, pk, v, "duplicate key '%s' in allocatable", name);
		if (c->expect.n_allocatable == GA_POLICY_MAX_ALLOCATABLE)
			return perr(ps, pk, v, "more than %d allocatable entries", GA_POLICY_MAX_ALLOCATABLE);
		struct ga_ou64 n = { 0, false };
		size_t old = path_push(ps, ".%s", name);
		int r = get_u64(ps, pv, pk, 0, 65536, &n);
		path_pop(ps, old);
		if (r < 0)
			return r;
		struct ga_policy_alloc *a =
		        ga_array_push((void **)&c->expect.allocatable, &c->expect.n_allocatable, sizeof(*a));
		if (!a || !(a->resource = ga_strdup(name)))
			return pnomem(ps);
		a->count = n.v;
	}
	return 0;
}

static int expect_container_member(struct pstate *ps, struct ga_policy_class *c, int which, struct fy_node *k,
                                   struct fy_node *v)
{
	if (which == 0)
		return walk_mapping(ps, v, k, "cdi", cdi_keys, cdi_member, c);
	return parse_allocatable(ps, c, k, v);
}

static int ctr_expect_parse(struct pstate *ps, struct ga_policy_class *c, struct fy_node *k,
                            struct fy_node *v);

/* expect.ib_ports: count, rate_gbps, state, link_layer (docs/network.md) */
static const char *const ib_ports_keys[] = { "count", "rate_gbps", "state", "link_layer", NULL };
static const char *const ib_states[] = { "active", "down", "init", "armed", NULL };
static const char *const ib_layers[] = { "infiniband", "ethernet", NULL };

static int ib_choice(struct pstate *ps, struct fy_node *v, struct fy_node *k, const char *const *allowed,
                     const char *list, char **out)
{
	if (get_string(ps, v, k, out) < 0)
		return ps->err;
	for (int i = 0; allowed[i]; i++)
		if (!strcmp(allowed[i], *out))
			return 0;
	return perr(ps, v, k, "expected %s, got '%s'", list, *out);
}

static int ib_ports_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	switch (which) {
	case 0:
		return get_u64(ps, v, k, 0, 64, &c->expect.ib_ports.count);
	case 1:
		return get_u64(ps, v, k, 1, 3200, &c->expect.ib_ports.rate_gbps);
	case 2:
		return ib_choice(ps, v, k, ib_states, "active, down, init or armed",
		                 &c->expect.ib_ports.state);
	default:
		return ib_choice(ps, v, k, ib_layers, "infiniband or ethernet",
		                 &c->expect.ib_ports.link_layer);
	}
}

static int expect_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	switch (which) {
	case 0:
		return get_u64(ps, v, k, 0, 1024, &c->expect.gpu_count);
	case 1: {
		double d;
		if (get_number(ps, v, k, &d) < 0)
			return ps->err;
		if (d < 0 || d > 1e6)
			return perr(ps, v, k, "expected a number of GiB from 0 to 1000000, got %g", d);
		c->expect.memory_min_gib.v = d;
		c->expect.memory_min_gib.set = true;
		return 0;
	}
	case 2:
		return get_u64(ps, v, k, 1, 7, &c->expect.pcie_gen_min);
	case 3: {
		if (get_u64(ps, v, k, 1, 32, &c->expect.pcie_width_min) < 0)
			return ps->err;
		uint64_t w = c->expect.pcie_width_min.v;
		if (w & (w - 1))
			return perr(ps, v, k, "expected a link width of 1, 2, 4, 8, 16 or 32, got %llu",
			            (unsigned long long)w);
		return 0;
	}
	case 4: {
		char buf[16];
		if (v && fy_node_is_scalar(v) && ga_yaml_scalar_text(v, buf, sizeof(buf))) {
			if (!strcmp(buf, "disabled")) {
				c->expect.mig = GA_MIG_DISABLED;
				return 0;
			}
			if (!strcmp(buf, "enabled")) {
				c->expect.mig = GA_MIG_ENABLED;
				return 0;
			}
		}
		return perr(ps, v, k, "expected 'disabled' or 'enabled'");
	}
	case 5:
		c->expect.mig_profiles_set = true;
		return get_strv(ps, v, k, &c->expect.mig_profiles, NULL);
	case 6:
		return get_bool(ps, v, k, &c->expect.persistence_mode);
	case 7:
		return get_bool(ps, v, k, &c->expect.ecc);
	case 8:
		return get_bool(ps, v, k, &c->expect.no_pending_remaps);
	case 9:
		return get_bool(ps, v, k, &c->expect.no_retired_pages_pending);
	case 10:
		return get_strv(ps, v, k, &c->expect.modules, NULL);
	case 11:
		return get_strv(ps, v, k, &c->expect.device_nodes, "/dev/");
	default:
		if (which == EXPECT_IB_PORTS) {
			c->expect.ib_ports.set = true;
			return walk_mapping(ps, v, k, "expect.ib_ports", ib_ports_keys, ib_ports_member, c);
		}
		if (which == EXPECT_CONTAINER_RUNTIME)
			return ctr_expect_parse(ps, c, k, v);
		return expect_container_member(ps, c, which - EXPECT_CONTAINER_FIRST, k, v);
	}
}

/* expect.container_runtime (issue 21): the toolkit, its mode, the engines wired to it, device groups */
static const char *const ctr_keys[] = {
	"toolkit", "mode", "wired", "default_runtime", "device_groups", NULL
};
static const char *const ctr_modes[] = { "auto", "legacy", "cdi", "csv", "jit-cdi", NULL };
static const char *const ctr_engines[] = { "containerd", "docker", "crio", NULL };

static int one_of(struct pstate *ps, struct fy_node *v, struct fy_node *k, const char *s,
                  const char *const *allowed, const char *what)
{
	char list[128] = "";
	size_t len = 0;
	for (int i = 0; allowed[i]; i++) {
		if (!strcmp(allowed[i], s))
			return 0;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", allowed[i]);
	}
	return perr(ps, v, k, "expected %s (one of: %s), got '%s'", what, list, s);
}

static int ctr_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_ctr *e = obj;
	switch (which) {
	case 0:
		return get_bool(ps, v, k, &e->toolkit);
	case 1:
		if (get_string(ps, v, k, &e->mode) < 0)
			return ps->err;
		return one_of(ps, v, k, e->mode, ctr_modes, "a toolkit mode");
	case 2:
		if (get_strv(ps, v, k, &e->wired, NULL) < 0)
			return ps->err;
		for (size_t i = 0; i < e->wired.n; i++)
			if (one_of(ps, v, k, e->wired.v[i], ctr_engines, "a container engine") < 0)
				return ps->err;
		return 0;
	case 3:
		return get_string(ps, v, k, &e->default_runtime);
	default:
		return get_strv(ps, v, k, &e->device_groups, NULL);
	}
}

static int ctr_expect_parse(struct pstate *ps, struct ga_policy_class *c, struct fy_node *k,
                            struct fy_node *v)
{
	c->expect.container_runtime.set = true;
	return walk_mapping(ps, v, k, "expect.container_runtime", ctr_keys, ctr_member,
	                    &c->expect.container_runtime);
}

static void ctr_expect_release(struct ga_policy_ctr *e)
{
	ga_free(e->mode);
	ga_free(e->default_runtime);
	ga_strv_release(&e->wired);
	ga_strv_release(&e->device_groups);
}

/* artifacts */
static const char *const artifact_keys[] = { "backends", "archs", NULL };

static int artifact_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	return get_strv(ps, v, k, which == 0 ? &c->artifact_backends : &c->artifact_archs, NULL);
}

/* smoke: free-form name -> number */
static int parse_smoke(struct pstate *ps, struct ga_policy_class *c, struct fy_node *k, struct fy_node *v)
{
	if (!v || !fy_node_is_mapping(v))
		return perr(ps, v, k, "expected a mapping of names to numbers, got %s", node_kind(ps, v));
	void *it = NULL;
	struct fy_node_pair *pr;
	while ((pr = fy_node_mapping_iterate(v, &it))) {
		struct fy_node *pk = fy_node_pair_key(pr), *pv = fy_node_pair_value(pr);
		char name[64];
		if (!pk || !fy_node_is_scalar(pk) || !ga_yaml_scalar_text(pk, name, sizeof(name)) || !*name)
			return perr(ps, pk, v, "expected a name of at most 63 bytes");
		for (size_t i = 0; i < c->n_smoke; i++)
			if (!strcmp(c->smoke[i].key, name))
				return perr(ps, pk, v, "duplicate key '%s' in smoke", name);
		if (c->n_smoke == GA_POLICY_MAX_SMOKE)
			return perr(ps, pk, v, "more than %d smoke entries", GA_POLICY_MAX_SMOKE);
		double d;
		size_t old = path_push(ps, ".%s", name);
		int r = get_number(ps, pv, pk, &d);
		path_pop(ps, old);
		if (r < 0)
			return r;
		struct ga_policy_num *num = ga_array_push((void **)&c->smoke, &c->n_smoke, sizeof(*num));
		if (!num || !(num->key = ga_strdup(name)))
			return pnomem(ps);
		num->value = d;
	}
	return 0;
}

/* xid: Xid number -> action */
static const char *const xid_actions[] = { "ignore", "info", "warning", "error", "critical", NULL };

static int parse_xid(struct pstate *ps, struct ga_policy_class *c, struct fy_node *k, struct fy_node *v)
{
	if (!v || !fy_node_is_mapping(v))
		return perr(ps, v, k, "expected a mapping of Xid numbers to actions, got %s",
		            node_kind(ps, v));
	void *it = NULL;
	struct fy_node_pair *pr;
	while ((pr = fy_node_mapping_iterate(v, &it))) {
		struct fy_node *pk = fy_node_pair_key(pr), *pv = fy_node_pair_value(pr);
		struct ga_ou64 x = { 0 };
		if (get_u64(ps, pk, v, 1, 1000, &x) < 0)
			return ps->err;
		for (size_t i = 0; i < c->n_xid; i++)
			if (c->xid[i].xid == x.v)
				return perr(ps, pk, v, "duplicate Xid %llu", (unsigned long long)x.v);
		char act[16];
		bool ok = pv && fy_node_is_scalar(pv) && ga_yaml_scalar_text(pv, act, sizeof(act));
		int i = 0;
		for (; ok && xid_actions[i]; i++)
			if (!strcmp(xid_actions[i], act))
				break;
		if (!ok || !xid_actions[i])
			return perr(
			        ps, pv, pk,
			        "expected an action for Xid %llu (ignore, info, warning, error or critical)",
			        (unsigned long long)x.v);
		struct ga_policy_xid *e = ga_array_push((void **)&c->xid, &c->n_xid, sizeof(*e));
		if (!e || !(e->action = ga_strdup(act)))
			return pnomem(ps);
		e->xid = x.v;
	}
	return 0;
}

/* class */
static const char *const class_keys[] = { "name",  "description", "match", "pin", "expect",
	                                  "smoke", "artifacts",   "xid",   NULL };

static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

static int class_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy_class *c = obj;
	switch (which) {
	case 0:
		if (get_string(ps, v, k, &c->name) < 0)
			return ps->err;
		if (!name_ok(c->name))
			return perr(ps, v, k,
			            "expected a class name of at most 63 letters, digits, '.', '_' or '-' "
			            "that starts and ends with a letter or digit, got '%s'",
			            c->name);
		return 0;
	case 1: {
		char *desc = NULL;
		int r = get_string(ps, v, k, &desc);
		ga_free(desc);
		return r;
	}
	case 2:
		return walk_mapping(ps, v, k, "match", match_keys, match_member, c);
	case 3:
		return walk_mapping(ps, v, k, "pin", pin_keys, pin_member, c);
	case 4:
		return walk_mapping(ps, v, k, "expect", expect_keys, expect_member, c);
	case 5:
		return parse_smoke(ps, c, k, v);
	case 6:
		return walk_mapping(ps, v, k, "artifacts", artifact_keys, artifact_member, c);
	default:
		return parse_xid(ps, c, k, v);
	}
}

static void class_release(struct ga_policy_class *c)
{
	ga_free(c->name);
	ga_free(c->match.vendor);
	ga_free(c->match.model);
	ga_free(c->driver_flavor);
	ga_vrange_release(&c->kernel.range);
	ga_vrange_release(&c->driver.range);
	ga_vrange_release(&c->cuda.range);
	ga_vrange_release(&c->rocm.range);
	ga_strv_release(&c->expect.mig_profiles);
	ga_strv_release(&c->expect.modules);
	ga_strv_release(&c->expect.device_nodes);
	ctr_expect_release(&c->expect.container_runtime);
	for (size_t i = 0; i < c->expect.n_allocatable; i++)
		ga_free(c->expect.allocatable[i].resource);
	ga_free(c->expect.allocatable);
	ga_free(c->expect.ib_ports.state);
	ga_free(c->expect.ib_ports.link_layer);
	for (size_t i = 0; i < c->n_smoke; i++)
		ga_free(c->smoke[i].key);
	ga_free(c->smoke);
	ga_strv_release(&c->artifact_backends);
	ga_strv_release(&c->artifact_archs);
	for (size_t i = 0; i < c->n_xid; i++)
		ga_free(c->xid[i].action);
	ga_free(c->xid);
}

static void health_release(struct ga_health_policy *hp);

void ga_policy_free(struct ga_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_classes; i++)
		class_release(&p->classes[i]);
	ga_free(p->classes);
	health_release(&p->health);
	ga_free(p->file);
	ga_free(p);
}

static int parse_classes(struct pstate *ps, struct ga_policy *p, struct fy_node *k, struct fy_node *v)
{
	if (!v || !fy_node_is_sequence(v))
		return perr(ps, v, k, "'classes' must be a list of classes, got %s", node_kind(ps, v));
	void *it = NULL;
	struct fy_node *item;
	size_t i = 0;
	while ((item = fy_node_sequence_iterate(v, &it))) {
		size_t old = path_push(ps, "classes[%zu]", i++);
		if (p->n_classes == GA_POLICY_MAX_CLASSES) {
			perr(ps, item, k, "more than %d classes", GA_POLICY_MAX_CLASSES);
			break;
		}
		struct ga_policy_class *c = ga_array_push((void **)&p->classes, &p->n_classes, sizeof(*c));
		if (!c) {
			pnomem(ps);
			break;
		}
		const struct fy_mark *m = ga_yaml_node_mark(item);
		c->line = m ? (unsigned)m->line + 1 : 0;
		if (walk_mapping(ps, item, k, "a class", class_keys, class_member, c) < 0)
			break;
		if (!c->name) {
			perr(ps, item, k, "a class needs a 'name'");
			break;
		}
		/* the name is the identity everywhere (labels, --class): it must be unique */
		for (size_t j = 0; j + 1 < p->n_classes; j++)
			if (!strcmp(p->classes[j].name, c->name)) {
				void *it2 = NULL;
				struct fy_node_pair *pr;
				struct fy_node *at = item;
				while ((pr = fy_node_mapping_iterate(item, &it2))) {
					char kn[8];
					if (ga_yaml_scalar_text(fy_node_pair_key(pr), kn, sizeof(kn)) &&
					    !strcmp(kn, "name"))
						at = fy_node_pair_value(pr);
				}
				perr(ps, at, item, "duplicate class name '%s' (first defined at line %u)",
				     c->name, p->classes[j].line);
				break;
			}
		path_pop(ps, old);
		if (ps->err)
			return ps->err;
	}
	return ps->err;
}

/*
 * health: the thresholds and flap damping of `health --state` (hstate.h):
 *   health: {clear_after: 3, clear_for: 30m,
 *            thresholds: [{code: GA-XID-13, count: 5, window: 1h, action: investigate}]}
 */
#define MAX_THRESHOLDS 256
static const char *const health_keys[] = { "clear_after", "clear_for", "thresholds", NULL };
static const char *const threshold_keys[] = { "code", "count", "window", "action", NULL };

static int get_duration(struct pstate *ps, struct fy_node *v, struct fy_node *k, double *out)
{
	char buf[32];
	if (!v || !fy_node_is_scalar(v) || ga_yaml_is_null(v) || !ga_yaml_scalar_text(v, buf, sizeof(buf)) ||
	    ga_duration_parse(buf, out) < 0)
		return perr(ps, v, k, "expected a duration like 30m, 2h, 1d or 1h30m, got %s",
		            node_kind(ps, v));
	return 0;
}

static int threshold_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_health_threshold *t = obj;
	struct ga_ou64 n = { 0 };
	char act[24];
	switch (which) {
	case 0:
		if (get_string(ps, v, k, &t->code) < 0)
			return ps->err;
		if (!ga_code_wellformed(t->code))
			return perr(ps, v, k, "expected a finding code (GA-...), got '%s'", t->code);
		return 0;
	case 1:
		if (get_u64(ps, v, k, 1, 1000000, &n) < 0)
			return ps->err;
		t->count = n.v;
		return 0;
	case 2:
		return get_duration(ps, v, k, &t->window_s);
	default:
		if (!v || !fy_node_is_scalar(v) || !ga_yaml_scalar_text(v, act, sizeof(act)) ||
		    ga_action_parse(act, &t->action) < 0)
			return perr(ps, v, k,
			            "expected an action (none, restart_workload, reset_gpu, reboot, drain, "
			            "replace, fix_config, investigate), got %s",
			            node_kind(ps, v));
		t->action_set = true;
		return 0;
	}
}

static int parse_thresholds(struct pstate *ps, struct ga_health_policy *hp, struct fy_node *k,
                            struct fy_node *v)
{
	if (!v || !fy_node_is_sequence(v))
		return perr(ps, v, k, "'thresholds' must be a list, got %s", node_kind(ps, v));
	void *it = NULL;
	struct fy_node *item;
	size_t i = 0;
	while ((item = fy_node_sequence_iterate(v, &it))) {
		size_t old = path_push(ps, "[%zu]", i++);
		if (hp->n_thresholds == MAX_THRESHOLDS) {
			perr(ps, item, k, "more than %d thresholds", MAX_THRESHOLDS);
			break;
		}
		struct ga_health_threshold *t =
		        ga_array_push((void **)&hp->thresholds, &hp->n_thresholds, sizeof(*t));
		if (!t) {
			pnomem(ps);
			break;
		}
		const struct fy_mark *m = ga_yaml_node_mark(item);
		t->line = m ? (unsigned)m->line + 1 : 0;
		t->count = 1;
		if (walk_mapping(ps, item, k, "a threshold", threshold_keys, threshold_member, t) < 0)
			break;
		if (!t->code) {
			perr(ps, item, k, "a threshold needs a 'code'");
			break;
		}
		for (size_t j = 0; j + 1 < hp->n_thresholds; j++)
			if (!strcmp(hp->thresholds[j].code, t->code)) {
				perr(ps, item, k, "duplicate threshold for %s (first at line %u)", t->code,
				     hp->thresholds[j].line);
				break;
			}
		path_pop(ps, old);
		if (ps->err)
			return ps->err;
	}
	return ps->err;
}

static int health_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_health_policy *hp = obj;
	switch (which) {
	case 0:
		return get_u64(ps, v, k, 1, 1000, &hp->clear_after);
	case 1: {
		double d = 0;
		if (get_duration(ps, v, k, &d) < 0)
			return ps->err;
		GA_SET(hp->clear_for_s, d);
		return 0;
	}
	default:
		return parse_thresholds(ps, hp, k, v);
	}
}

static void health_release(struct ga_health_policy *hp)
{
	for (size_t i = 0; i < hp->n_thresholds; i++)
		ga_free(hp->thresholds[i].code);
	ga_free(hp->thresholds);
}

static const char *const top_keys[] = { "version", "classes", "health", NULL };

static int top_member(struct pstate *ps, void *obj, int which, struct fy_node *k, struct fy_node *v)
{
	struct ga_policy *p = obj;
	if (which == 0) {
		struct ga_ou64 ver = { 0 };
		if (get_u64(ps, v, k, 1, 1, &ver) < 0) {
			ps->err = 0;
			return perr(ps, v, k, "expected 1 (the only policy format so far), got %s",
			            node_kind(ps, v));
		}
		p->version = ver.v;
		return 0;
	}
	if (which == 2)
		return walk_mapping(ps, v, k, "the health section", health_keys, health_member, &p->health);
	path_pop(ps, 0); /* classes[i] reads better than classes.classes[i] */
	return parse_classes(ps, p, k, v);
}

/*
 * Anchors and aliases are refused, everywhere in the document: without
 * resolution an alias reads as its own name ("*drv" would pin the string
 * "drv"), and with it one pin silently follows another. A policy writes each
 * value out (docs/policy.md). Depth is bounded by the prescan.
 */
/*
 * Report at the character before `at` (the '&' or '*' of an anchor or alias,
 * whose text libfyaml points at inside the input), else at the node.
 */
static int perr_before(struct pstate *ps, const char *at, struct fy_node *n, const char *msg)
{
	if (ps->err)
		return ps->err;
	if (!at || at <= ps->text || at > ps->text + ps->len)
		return perr(ps, n, NULL, "%s", msg);
	unsigned line = 1, col = 1;
	for (const char *p = ps->text; p < at - 1; p++) {
		if (*p == '\n' || (*p == '\r' && p[1] != '\n'))
			line++, col = 1;
		else if ((*p & 0xc0) != 0x80 && *p != '\r')
			col++;
	}
	ga_err(ps->ctx, -EINVAL, "%s:%u:%u: %s%s%s", ps->file, line, col, ps->path, *ps->path ? ": " : "",
	       msg);
	ps->err = -EINVAL;
	return ps->err;
}

static int refuse_refs(struct pstate *ps, struct fy_node *n)
{
	if (!n)
		return 0;
	size_t len = 0;
	char msg[160];
	struct fy_anchor *a = fy_node_get_anchor(n);
	if (a) {
		const char *t = fy_anchor_get_text(a, &len);
		snprintf(msg, sizeof(msg),
		         "anchors are not supported (&%.*s): write the value out where it is needed",
		         t && len < 64 ? (int)len : 0, t ? t : "");
		return perr_before(ps, t, n, msg);
	}
	if (fy_node_is_alias(n)) {
		const char *t = fy_node_get_scalar(n, &len);
		snprintf(msg, sizeof(msg),
		         "aliases are not supported (*%.*s): write the value out instead of referring "
		         "to an anchor",
		         t && len < 64 ? (int)len : 0, t ? t : "");
		return perr_before(ps, t, n, msg);
	}
	void *it = NULL;
	if (fy_node_is_mapping(n)) {
		struct fy_node_pair *pr;
		while ((pr = fy_node_mapping_iterate(n, &it)))
			if (refuse_refs(ps, fy_node_pair_key(pr)) < 0 ||
			    refuse_refs(ps, fy_node_pair_value(pr)) < 0)
				return ps->err;
	} else if (fy_node_is_sequence(n)) {
		struct fy_node *item;
		while ((item = fy_node_sequence_iterate(n, &it)))
			if (refuse_refs(ps, item) < 0)
				return ps->err;
	}
	return 0;
}

static void diag_quiet(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	(void)user;
	(void)buf;
	(void)len;
}

int ga_policy_parse(struct ga_ctx *ctx, const char *file, const char *text, size_t len,
                    struct ga_policy **ret)
{
	struct pstate ps = { .ctx = ctx, .file = file ? file : "<policy>", .text = text, .len = len };
	struct ga_policy *p = NULL;
	struct fy_diag *diag = NULL;
	struct fy_document *doc = NULL;
	int r;

	if (len > GA_POLICY_MAX_FILE)
		return ga_err(ctx, -EINVAL, "%s: larger than %u bytes", ps.file, GA_POLICY_MAX_FILE);
	r = policy_prescan(ctx, ps.file, text, len);
	if (r < 0)
		return r;
	p = ga_calloc(1, sizeof(*p));
	if (!p || !(p->file = ga_strdup(ps.file))) {
		r = ga_err(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	struct fy_diag_cfg dcfg;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = diag_quiet;
	dcfg.colorize = false;
	diag = fy_diag_create(&dcfg);
	if (!diag) {
		r = ga_err(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	fy_diag_set_collect_errors(diag, true);
	/* duplicate keys are found by the walk (walk_mapping, parse_smoke, parse_xid) */
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_ALLOW_DUPLICATE_KEYS,
		                    .diag = diag };
	doc = fy_document_build_from_string(&cfg, text, len);
	if (!doc) {
		void *it = NULL;
		struct fy_diag_error *e = fy_diag_errors_iterate(diag, &it);
		if (e)
			/* libfyaml's collected errors are 1-based already (its marks are not) */
			r = ga_err(ctx, -EINVAL, "%s:%d:%d: not valid YAML: %s", ps.file,
			           e->line > 0 ? e->line : 1, e->column > 0 ? e->column : 1,
			           e->msg ? e->msg : "syntax error");
		else
			r = ga_err(ctx, -EINVAL,
			           "%s:1:1: expected a mapping with 'version: 1' and 'classes', got an empty "
			           "document",
			           ps.file);
		goto out;
	}
	struct fy_node *root = fy_document_root(doc);
	r = refuse_refs(&ps, root);
	if (r < 0)
		goto out;
	if (!root || ga_yaml_is_null(root) || !fy_node_is_mapping(root)) {
		r = perr(&ps, root, NULL, "expected a mapping with 'version: 1' and 'classes', got %s",
		         node_kind(&ps, root));
		goto out;
	}
	r = walk_mapping(&ps, root, NULL, "the policy", top_keys, top_member, p);
	if (r < 0)
		goto out;
	if (!p->version) {
		r = perr(&ps, root, NULL, "missing 'version: 1'");
		goto out;
	}
	if (!p->n_classes && !fy_node_mapping_lookup_by_string(root, "classes", FY_NT)) {
		r = perr(&ps, root, NULL, "missing 'classes' (a list of node classes)");
		goto out;
	}
	*ret = p;
	p = NULL;
	r = 0;
out:
	if (doc)
		fy_document_destroy(doc);
	if (diag)
		fy_diag_destroy(diag);
	ga_policy_free(p);
	return r;
}

int ga_policy_load(struct ga_ctx *ctx, const char *file, struct ga_policy **ret)
{
	/* The analyzer never opens a file: core reads it, the parser gets the text. */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_file_read(ctx, file, GA_POLICY_MAX_FILE, &b);
	if (r == -EFBIG)
		r = ga_err(ctx, -EINVAL, "%s: larger than %u bytes", file, GA_POLICY_MAX_FILE);
	else if (r == -EINVAL) {
		char why[512];
		snprintf(why, sizeof(why), "%s", ga_ctx_errmsg(ctx)); /* "FILE: not a regular file ..." */
		r = ga_err(ctx, r, "cannot read policy %s", why);
	} else if (r < 0)
		r = ga_err(ctx, r, "cannot read policy %s: %s", file, strerror(-r));
	else
		r = ga_policy_parse(ctx, file, b.data, b.len, ret);
	ga_buf_release(&b);
	return r;
}

const struct ga_policy_class *ga_policy_find_class(const struct ga_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_classes; i++)
		if (!strcmp(p->classes[i].name, name))
			return &p->classes[i];
	return NULL;
}
