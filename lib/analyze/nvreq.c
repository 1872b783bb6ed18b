/*
 * nvreq.c - the NVIDIA container toolkit's requirement check, redone as a
 * pure judge so that `deps` can say, before a pod is scheduled, that the
 * toolkit will refuse to start an image on a node (NVIDIA_REQUIRE_CUDA=
 * "cuda>=12.8 ..." on a 12.4 driver). Written from the documented behaviour
 * (docs/deps.md, "Container requirements"): space-separated alternatives of
 * comma-joined terms `key op value`, evaluated left to right and lazily, the
 * way libnvidia-container does, with its error text. A fact of the target
 * that is not known (brand, arch) gives "unknown", never a guess.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuaudit/nvreq.h"

#define OP_CHARS "<>=!"
#define CUDA_GE "cuda>="
/* the toolkit formats a failed term as "key op value" into 128 bytes and calls a longer one invalid */
#define TERM_MAX 128

enum tv { TV_TRUE, TV_FALSE, TV_UNKNOWN, TV_INVALID };

struct term {
	char key[16];
	char op[3];
	const char *val; /* into the caller's copy */
	const char *actual;
};

static const char *const ops[] = { "=", "!=", "<", "<=", ">", ">=" };

static bool known(const char *s)
{
	return s && *s;
}

/* A version as the toolkit reads one: digits and dots only, starting with a digit. */
static bool version_ok(const char *v)
{
	return v[0] >= '0' && v[0] <= '9' && strspn(v, "0123456789.") == strlen(v);
}

/* Next numeric component of *p (dots skipped), 0 when none is left; false on overflow. */
static bool component(const char **p, uint64_t *out)
{
	uint64_t n = 0;
	const char *s = *p + strspn(*p, ".");
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*out = n;
	*p = s;
	return true;
}

static int version_order(const char *a, const char *b)
{
	while (*a || *b) {
		uint64_t x, y;
		if (!component(&a, &x) || !component(&b, &y))
			return 2;
		if (x != y)
			return x < y ? -1 : 1;
		a += strspn(a, ".");
		b += strspn(b, ".");
	}
	return 0;
}

int ga_nvreq_version_cmp(const char *actual, const char *op, const char *wanted)
{
	if (!actual || !op || !wanted || !version_ok(actual) || !version_ok(wanted))
		return -1;
	int c = version_order(actual, wanted);
	if (c == 2)
		return -1;
	if (!strcmp(op, "="))
		return c == 0;
	if (!strcmp(op, "!="))
		return c != 0;
	if (!strcmp(op, "<"))
		return c < 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	if (!strcmp(op, ">"))
		return c > 0;
	if (!strcmp(op, ">="))
		return c >= 0;
	return -1;
}

/* Split "key op value" (t->val points into s); false when the toolkit would call it invalid. */
static bool term_parse(const char *s, struct term *t, const struct ga_nvreq_target *tg)
{
	size_t k = strcspn(s, OP_CHARS);
	size_t o = strspn(s + k, OP_CHARS);
	if (k == 0 || k >= sizeof(t->key) || o == 0 || o >= sizeof(t->op) || s[k + o] == '\0')
		return false;
	memcpy(t->key, s, k);
	t->key[k] = '\0';
	memcpy(t->op, s + k, o);
	t->op[o] = '\0';
	t->val = s + k + o;
	bool op_ok = false;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		op_ok = op_ok || !strcmp(t->op, ops[i]);
	if (!op_ok)
		return false;
	const struct ga_nvreq_target none = { 0 };
	if (!tg)
		tg = &none;
	if (!strcasecmp(t->key, "brand")) {
		t->actual = tg->brand;
		return !strcmp(t->op, "=") || !strcmp(t->op, "!=");
	}
	if (!strcasecmp(t->key, "cuda"))
		t->actual = tg->cuda;
	else if (!strcasecmp(t->key, "driver"))
		t->actual = tg->driver;
	else if (!strcasecmp(t->key, "arch"))
		t->actual = tg->arch;
	else
		return false;
	return version_ok(t->val);
}

static enum tv term_value(const char *s, const struct ga_nvreq_target *tg, struct term *t)
{
	memset(t, 0, sizeof(*t));
	if (!term_parse(s, t, tg))
		return TV_INVALID;
	if (!known(t->actual))
		return TV_UNKNOWN;
	int r;
	if (!strcasecmp(t->key, "brand"))
		r = (strcasecmp(t->actual, t->val) == 0) == !strcmp(t->op, "=");
	else
		r = ga_nvreq_version_cmp(t->actual, t->op, t->val);
	if (r < 0)
		return TV_INVALID;
	if (r == 0 && strlen(t->key) + strlen(t->op) + strlen(t->val) + 3 > TERM_MAX)
		return TV_INVALID;
	return r ? TV_TRUE : TV_FALSE;
}

/* What an evaluation that met unknown facts saw. */
struct walk {
	bool maybe_invalid; /* a malformed term after an unknown one: reached or not, not known */
	unsigned keys;      /* the keys whose target value was not known (key_bit) */
	char udetail[256];  /* the first such term */
};

static unsigned key_bit(const char *key)
{
	static const char *const keys[] = { "cuda", "driver", "arch", "brand" };
	for (unsigned i = 0; i < 4; i++)
		if (!strcasecmp(key, keys[i]))
			return 1u << i;
	return 0;
}

static void unknown_message(const struct walk *w, char *buf, size_t len)
{
	static const char *const names[] = { "CUDA version", "driver version", "compute capability",
		                             "brand" };
	size_t n = (size_t)snprintf(buf, len, "not known: it depends on the GPU's");
	for (unsigned i = 0, k = 0; i < 4 && n < len; i++)
		if (w->keys & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s %s", k++ ? "," : "", names[i]);
	if (n < len && w->maybe_invalid)
		snprintf(buf + n, len - n, "; a malformed term may be reached");
}

static void set(struct ga_nvreq_result *res, enum ga_nvreq_verdict v)
{
	res->verdict = v;
}

static void unsatisfied(const char *pred, struct ga_nvreq_result *res)
{
	size_t w = strcspn(pred, " ");
	bool cuda = w >= strlen(CUDA_GE) && !strncmp(pred, CUDA_GE, strlen(CUDA_GE));
	int n = w > 200 ? 200 : (int)w;
	snprintf(res->message, sizeof(res->message), "unsatisfied condition: %.*s%s", n, pred,
	         cuda ? ", please update your driver to a newer version, or use an earlier cuda container"
	              : "");
	set(res, GA_NVREQ_UNSATISFIED);
}

/* One alternative (comma-joined terms, s[0..len)); *n_terms counts the non-empty ones. */
static enum tv alternative(const char *s, size_t len, const struct ga_nvreq_target *tg, size_t *n_terms,
                           struct walk *w, struct ga_nvreq_result *res, bool first)
{
	enum tv st = TV_TRUE;
	*n_terms = 0;
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && s[i + n] != ',')
			n++;
		if (n > 0) {
			char buf[512];
			struct term t;
			snprintf(buf, sizeof(buf), "%.*s", (int)(n > 511 ? 511 : n), s + i);
			(*n_terms)++;
			enum tv v = n > 511 ? TV_INVALID : term_value(buf, tg, &t);
			if (v == TV_INVALID) {
				if (st == TV_TRUE) {
					snprintf(res->detail, sizeof(res->detail), "invalid term `%.200s`",
					         buf);
					return TV_INVALID;
				}
				if (!w->udetail[0])
					snprintf(w->udetail, sizeof(w->udetail),
					         "invalid term `%.200s` after a term not known", buf);
				w->maybe_invalid = true;
				return TV_UNKNOWN;
			}
			if (v == TV_FALSE) {
				if (first)
					snprintf(res->detail, sizeof(res->detail),
					         "%.200s is false for %s %s", buf, t.key, t.actual);
				return TV_FALSE;
			}
			if (v == TV_UNKNOWN) {
				w->keys |= key_bit(t.key);
				if (!w->udetail[0])
					snprintf(w->udetail, sizeof(w->udetail),
					         "%.200s: the target's %s is not known", buf, t.key);
				st = TV_UNKNOWN;
			}
		}
		i += n + 1;
	}
	return st;
}

void ga_nvreq_eval(const char *pred, const struct ga_nvreq_target *tg, struct ga_nvreq_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!pred)
		pred = "";
	bool any = false, unknown = false, first = true;
	struct walk w = { 0 };
	size_t len = strlen(pred);
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(pred + i, " ");
		if (n > 0) {
			size_t terms;
			enum tv v = alternative(pred + i, n, tg, &terms, &w, res, first);
			first = false;
			if (terms == 0) {
				if (!any)
					goto satisfied;
				break;
			}
			any = true;
			if (v == TV_INVALID) {
				snprintf(res->message, sizeof(res->message), "invalid expression");
				set(res, GA_NVREQ_INVALID);
				return;
			}
			if (v == TV_TRUE && !w.maybe_invalid)
				goto satisfied;
			if (v == TV_TRUE) {
				unknown = true;
				break;
			}
			if (v == TV_UNKNOWN)
				unknown = true;
		}
		i += n + 1;
	}
	if (!any)
		goto satisfied;
	if (unknown) {
		unknown_message(&w, res->message, sizeof(res->message));
		memcpy(res->detail, w.udetail, sizeof(res->detail));
		set(res, GA_NVREQ_UNKNOWN);
		return;
	}
	unsatisfied(pred, res);
	return;
satisfied:
	res->message[0] = '\0';
	res->detail[0] = '\0';
	set(res, GA_NVREQ_SATISFIED);
}

/* Value of the last entry "key=..." in env (Go's map keeps the last); NULL when absent. */
static const char *env_last(const char *const *env, size_t n, const char *key, size_t klen)
{
	const char *v = NULL;
	for (size_t i = 0; i < n; i++)
		if (env[i] && !strncmp(env[i], key, klen) && env[i][klen] == '=')
			v = env[i] + klen + 1;
	return v;
}

static bool go_true(const char *v)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
	for (size_t i = 0; v && i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcmp(v, yes[i]))
			return true;
	return false;
}

static int rank(enum ga_nvreq_verdict v)
{
	return v == GA_NVREQ_SATISFIED ? 0 : v == GA_NVREQ_UNKNOWN ? 1 : 2;
}

/* Judge one requirement; keep it in *res when it is worse than what *res holds. */
static void judge_one(const char *name, const char *pred, const struct ga_nvreq_target *t,
                      struct ga_nvreq_result *res)
{
	struct ga_nvreq_result r;
	ga_nvreq_eval(pred, t, &r);
	if (rank(r.verdict) <= rank(res->verdict))
		return;
	*res = r;
	char d[sizeof(res->detail)];
	snprintf(d, sizeof(d), "%s", r.detail);
	snprintf(res->detail, sizeof(res->detail), "%.48s: %.200s", name, d[0] ? d : "");
}

size_t ga_nvreq_image(const char *const *env, size_t n_env, const struct ga_nvreq_target *t,
                      struct ga_nvreq_result *res, int *disabled)
{
	memset(res, 0, sizeof(*res));
	set(res, GA_NVREQ_SATISFIED);
	if (disabled)
		*disabled = 0;
	if (go_true(env_last(env, n_env, "NVIDIA_DISABLE_REQUIRE", 22))) {
		if (disabled)
			*disabled = 1;
		return 0;
	}
	size_t judged = 0;
	static const char pre[] = "NVIDIA_REQUIRE_";
	for (size_t i = 0; i < n_env; i++) {
		const char *e = env[i];
		const char *eq = e ? strchr(e, '=') : NULL;
		if (!eq || strncmp(e, pre, sizeof(pre) - 1) || !strncmp(e, "NVIDIA_REQUIRE_JETPACK", 22))
			continue;
		size_t klen = (size_t)(eq - e);
		if (env_last(env + i + 1, n_env - i - 1, e, klen))
			continue; /* a later entry of the same name wins */
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(klen > 63 ? 63 : klen), e);
		judge_one(name, eq + 1, t, res);
		judged++;
	}
	const char *req = env_last(env, n_env, "NVIDIA_REQUIRE_CUDA", 19);
	const char *legacy = env_last(env, n_env, "CUDA_VERSION", 12);
	if ((!req || !*req) && legacy && *legacy) {
		size_t dot = strcspn(legacy, ".");
		size_t end = legacy[dot] ? dot + 1 + strcspn(legacy + dot + 1, ".") : dot;
		char pred[96];
		snprintf(pred, sizeof(pred), "cuda>=%.*s", (int)(end > 80 ? 80 : end), legacy);
		judge_one("CUDA_VERSION", pred, t, res);
		judged++;
	}
	return judged;
}
