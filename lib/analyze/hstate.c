/*
 * hstate.c - one collection folded into the health state (hstate.h).
 *
 * A finding is keyed by (code, subject). Kernel-log findings (evidence
 * "count") are re-read from a log that still holds what earlier runs saw, so
 * only events above the condition's high-water mark (count and newest boot
 * time, per boot id) are new; any other finding counts once per collection it
 * is present in. A condition is raised when its policy threshold (count in a
 * window) is met, or, without one, when the finding is an error or critical.
 * Raised conditions are sticky: present again in the findings when the log no
 * longer shows them (after a reboot), lowered only after GA_HSTATE_CLEAR_AFTER
 * collections and GA_HSTATE_CLEAR_FOR_S seconds without (flap damping), never
 * automatically when the action is `replace`. A hardware Xid seen in this boot
 * and in GA_HSTATE_REPEAT_BOOTS earlier boots becomes critical / replace.
 *
 * Pure: no file, no clock (now_s comes in), no environment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/internal.h"
#include "gpuaudit/hstate.h"
#include "gpuaudit/hstate-analyze.h"
#include "gpuaudit/kmsg.h"

static const char *evidence(const struct ga_finding *f, const char *key)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].value;
	return NULL;
}

bool ga_finding_is_sticky(const struct ga_finding *fd)
{
	const char *c = evidence(fd, "condition");
	return c && (!strcmp(c, "raised") || !strcmp(c, "sticky"));
}

static const struct ga_health_threshold *rule_for(const struct ga_health_policy *hp, const char *code)
{
	const struct ga_health_threshold *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; hp && i < hp->n_thresholds; i++) {
		const char *c = hp->thresholds[i].code;
		size_t n = strlen(c);
		if (!strcmp(c, code))
			return &hp->thresholds[i];
		if (n && c[n - 1] == '*' && n - 1 >= best_len && !strncmp(c, code, n - 1))
			best = &hp->thresholds[i], best_len = n - 1;
	}
	return best;
}

static struct ga_hstate_cond *find_cond(struct ga_health_state *st, const char *code, const char *subject)
{
	for (size_t i = 0; i < st->n_conditions; i++)
		if (!strcmp(st->conditions[i].code, code) && !strcmp(st->conditions[i].subject, subject))
			return &st->conditions[i];
	return NULL;
}

static int set_str(char **dst, const char *src)
{
	if (!src || (*dst && !strcmp(*dst, src)))
		return 0;
	char *c = ga_strdup(src);
	if (!c)
		return -ENOMEM;
	ga_free(*dst);
	*dst = c;
	return 0;
}

static void fmt_time(char *out, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, n, "%lld", (long long)t);
}

/* New events of a kernel-log finding above the condition's mark; the mark moves up. */
static uint64_t new_events(struct ga_hstate_cond *c, const struct ga_finding *fd, const char *boot_id,
                           int *err)
{
	uint64_t count = 0;
	const char *cs = evidence(fd, "count"), *lb = evidence(fd, "last_boot_s");
	if (!cs || ga_parse_u64(cs, 10, &count) < 0)
		return 1; /* a condition finding: present in this collection */
	double last = 0;
	bool last_set = lb && ga_parse_dbl(lb, &last) == 0;
	bool same = boot_id && c->log_boot_id && !strcmp(boot_id, c->log_boot_id);
	uint64_t n = count;
	if (same && c->log_count.set) {
		n = count > c->log_count.v ? count - c->log_count.v : 0;
		if (!n && last_set && c->log_last_boot_s.set && last > c->log_last_boot_s.v)
			n = 1; /* the window (--since) dropped old ones while a new one came */
	}
	if (!same) {
		if (set_str(&c->log_boot_id, boot_id) < 0)
			*err = -ENOMEM;
		c->log_count.set = false;
		c->log_last_boot_s.set = false;
	}
	if (!c->log_count.set || count > c->log_count.v)
		GA_SET(c->log_count, count);
	if (last_set && (!c->log_last_boot_s.set || last > c->log_last_boot_s.v))
		GA_SET(c->log_last_boot_s, last);
	return n;
}

static int add_hit(struct ga_hstate_cond *c, int64_t now_s, uint64_t n)
{
	if (c->n_hits && c->hits[c->n_hits - 1].t_s.v == now_s) {
		c->hits[c->n_hits - 1].n.v += n;
		return 0;
	}
	if (c->n_hits >= GA_HSTATE_MAX_HITS) {
		memmove(c->hits, c->hits + 1, (c->n_hits - 1) * sizeof(*c->hits));
		c->n_hits--;
	}
	struct ga_hstate_hit *h = ga_array_push((void **)&c->hits, &c->n_hits, sizeof(*h));
	if (!h)
		return -ENOMEM;
	GA_SET(h->t_s, now_s);
	GA_SET(h->n, n);
	return 0;
}

/* Drop hits outside the window; the sum of those inside. */
static uint64_t hits_in(struct ga_hstate_cond *c, double window_s, int64_t now_s)
{
	size_t k = 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < c->n_hits; i++) {
		/* in double: a damaged file's times must not overflow the subtraction */
		if (window_s > 0 && (double)now_s - (double)c->hits[i].t_s.v > window_s)
			continue;
		sum += c->hits[i].n.v;
		c->hits[k++] = c->hits[i];
	}
	c->n_hits = k;
	return sum;
}

static bool hardware_xid(const char *code)
{
	uint64_t x;
	struct ga_xid_info info;
	const char *n = ga_code_suffix(code, GA_C_XID);
	if (!n || ga_parse_u64(n, 10, &x) < 0)
		return false;
	ga_xid_lookup(x, &info);
	return info.group == GA_XID_HARDWARE;
}

/*
 * The boot is recorded; a hardware Xid, or an AMD uncorrectable RAS error (the same memory-error
 * logic, docs/health.md "AMD uncorrectable RAS errors"), back after GA_HSTATE_REPEAT_BOOTS boots
 * becomes replace.
 */
static int repeat_boots(struct ga_hstate_cond *c, struct ga_finding *fd, const char *boot_id)
{
	if (!boot_id || !(hardware_xid(c->code) || ga_code_parse(c->code) == GA_C_KLOG_AMDGPU_RAS) ||
	    !strcmp(c->subject, "node"))
		return 0;
	bool have = ga_strv_contains(&c->boots, boot_id);
	size_t earlier = c->boots.n - (have ? 1 : 0);
	if (!have) {
		if (c->boots.n >= GA_HSTATE_MAX_BOOTS) {
			ga_free(c->boots.v[0]);
			memmove(c->boots.v, c->boots.v + 1, (c->boots.n - 1) * sizeof(*c->boots.v));
			c->boots.n--;
			c->boots.v[c->boots.n] = NULL;
		}
		if (ga_strv_push(&c->boots, boot_id) < 0)
			return -ENOMEM;
	}
	if (earlier < GA_HSTATE_REPEAT_BOOTS)
		return 0;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_buf_addf(&b,
	                    "hardware inspection: %s on %s came back after %zu earlier boots; take the "
	                    "GPU out of service and open an RMA",
	                    c->code, c->subject, earlier);
	char *d = r == 0 ? ga_buf_detach(&b, NULL) : NULL;
	if (!d || ga_finding_evidence(fd, "earlier_boots", "%zu", earlier) < 0) {
		ga_buf_release(&b);
		ga_free(d);
		return -ENOMEM;
	}
	ga_free(fd->decision);
	fd->decision = d;
	fd->severity = GA_SEV_CRITICAL;
	fd->action = GA_ACT_REPLACE;
	fd->cause = GA_CAUSE_NODE_HARDWARE;
	return 0;
}

static int copy_from(struct ga_hstate_cond *c, const struct ga_finding *fd)
{
	c->severity = fd->severity;
	c->action = fd->action;
	c->cause = fd->cause;
	if (set_str(&c->message, fd->message) < 0 || set_str(&c->decision, fd->decision) < 0 ||
	    set_str(&c->gpu_uuid, fd->gpu_uuid) < 0 || set_str(&c->pci_address, fd->pci_address) < 0)
		return -ENOMEM;
	return 0;
}

/* This run's finding fd folded into its condition; seen[] marks the conditions touched. */
static int fold(struct ga_health_state *st, struct ga_finding *fd, const struct ga_health_policy *hp,
                int64_t now_s, const char *boot_id, bool *seen, size_t seen_cap)
{
	int err = 0;
	struct ga_hstate_cond *c = find_cond(st, fd->code, fd->subject);
	const struct ga_health_threshold *rule = rule_for(hp, fd->code);
	if (!c) {
		/* nothing to remember about an informational finding no rule asks for */
		if ((fd->severity < GA_SEV_WARNING && !rule) || st->n_conditions >= seen_cap)
			return 0;
		c = ga_array_push((void **)&st->conditions, &st->n_conditions, sizeof(*c));
		if (!c || !(c->code = ga_strdup(fd->code)) || !(c->subject = ga_strdup(fd->subject)))
			return -ENOMEM;
		GA_SET(c->raised, false);
		GA_SET(c->first_s, now_s);
	}
	seen[c - st->conditions] = true;
	uint64_t n = new_events(c, fd, boot_id, &err);
	if (err < 0 || copy_from(c, fd) < 0 || (n && add_hit(c, now_s, n) < 0) ||
	    repeat_boots(c, fd, boot_id) < 0)
		return -ENOMEM;
	c->severity = fd->severity;
	c->action = fd->action;
	if (n) {
		GA_SET(c->last_s, now_s);
		GA_SET(c->clear_runs, 0);
	} else {
		GA_SET(c->clear_runs, (c->clear_runs.set ? c->clear_runs.v : 0) + 1);
	}
	uint64_t need = rule ? rule->count : 1;
	double window = rule ? rule->window_s : 0;
	uint64_t have = hits_in(c, window, now_s);
	bool raise = n && have >= need && (rule || fd->severity >= GA_SEV_ERROR);
	if (raise && !(c->raised.set && c->raised.v)) {
		GA_SET(c->raised, true);
		GA_SET(c->raised_s, now_s);
	}
	if (c->raised.set && c->raised.v) {
		if (rule && rule->action_set)
			fd->action = c->action = rule->action;
		char t[40];
		fmt_time(t, sizeof(t), c->raised_s.v);
		if (ga_finding_evidence(fd, "condition", "raised") < 0 ||
		    ga_finding_evidence(fd, "raised_at", "%s", t) < 0)
			return -ENOMEM;
	} else if (rule) {
		char w[48] = "";
		if (window > 0)
			snprintf(w, sizeof(w), " in %.0f s", window);
		if (ga_finding_evidence(fd, "threshold", "%llu of %llu%s", (unsigned long long)have,
		                        (unsigned long long)need, w) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A raised condition absent from this run's findings, added back (it is sticky). */
static int add_back(const struct ga_hstate_cond *c, struct ga_findings *f)
{
	struct ga_finding *fd = ga_findings_add_code(f, c->code, c->severity, c->subject, c->decision, "%s",
	                                             c->message ? c->message : c->code);
	if (!fd)
		return -ENOMEM;
	fd->action = c->action;
	fd->cause = c->cause;
	char t[40], l[40];
	fmt_time(t, sizeof(t), c->raised_s.v);
	fmt_time(l, sizeof(l), c->last_s.set ? c->last_s.v : c->raised_s.v);
	if (ga_finding_set_device(fd, c->gpu_uuid, c->pci_address) < 0 ||
	    ga_finding_evidence(fd, "condition", "sticky") < 0 ||
	    ga_finding_evidence(fd, "raised_at", "%s", t) < 0 ||
	    ga_finding_evidence(fd, "last_seen", "%s", l) < 0 ||
	    ga_finding_evidence(fd, "clear_runs", "%llu",
	                        (unsigned long long)(c->clear_runs.set ? c->clear_runs.v : 0)) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * covered: the collection saw its decisive sources (the kernel log). One that
 * did not proves nothing about the conditions absent from it: they are added
 * back, but it is not a clear collection, so nothing is lowered or forgotten.
 */
static int update(struct ga_health_state *st, struct ga_findings *findings, const struct ga_health_policy *hp,
                  int64_t now_s, const char *boot_id, bool covered)
{
	uint64_t clear_after = hp && hp->clear_after.set ? hp->clear_after.v : GA_HSTATE_CLEAR_AFTER;
	double clear_for = hp && hp->clear_for_s.set ? hp->clear_for_s.v : GA_HSTATE_CLEAR_FOR_S;
	bool *seen = ga_calloc(GA_HSTATE_MAX_CONDITIONS, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	int r = 0;
	size_t n_now = findings->n; /* added-back findings are not folded again */
	for (size_t i = 0; i < n_now && r == 0; i++)
		r = fold(st, &findings->v[i], hp, now_s, boot_id, seen, GA_HSTATE_MAX_CONDITIONS);
	size_t k = 0;
	for (size_t i = 0; i < st->n_conditions && r == 0; i++) {
		struct ga_hstate_cond *c = &st->conditions[i];
		bool raised = c->raised.set && c->raised.v;
		if (!seen[i] && covered)
			GA_SET(c->clear_runs, (c->clear_runs.set ? c->clear_runs.v : 0) + 1);
		double quiet_s = (double)now_s - (double)(c->last_s.set ? c->last_s.v : c->first_s.v);
		if (covered && raised && c->action != GA_ACT_REPLACE && c->clear_runs.v >= clear_after &&
		    quiet_s >= clear_for) {
			GA_SET(c->raised, false); /* clear long enough: lowered */
			c->n_hits = 0;
			raised = false;
		}
		if (raised && !seen[i])
			r = add_back(c, findings);
		bool forget = covered && !raised && !seen[i] && quiet_s > (double)GA_HSTATE_FORGET_S;
		if (forget) {
			ga_hstate_cond_release(c);
			continue;
		}
		if (k != i)
			st->conditions[k] = *c;
		k++;
	}
	if (r == 0)
		st->n_conditions = k;
	ga_free(seen);
	if (r == 0) {
		GA_SET(st->updated_s, now_s);
		GA_SET(st->collections, (st->collections.set ? st->collections.v : 0) + 1);
		r = set_str(&st->boot_id, boot_id);
	}
	if (r == 0 && findings->err)
		r = findings->err;
	return r;
}

int ga_hstate_update(struct ga_health_state *st, struct ga_findings *findings,
                     const struct ga_health_policy *hp, int64_t now_s, const char *boot_id)
{
	return update(st, findings, hp, now_s, boot_id, true);
}

int ga_hstate_update_unknown(struct ga_health_state *st, struct ga_findings *findings,
                             const struct ga_health_policy *hp, int64_t now_s, const char *boot_id)
{
	return update(st, findings, hp, now_s, boot_id, false);
}

size_t ga_hstate_clear(struct ga_health_state *st, const char *code)
{
	bool all = !strcmp(code, "all");
	size_t n = 0;
	for (size_t i = 0; i < st->n_conditions; i++) {
		struct ga_hstate_cond *c = &st->conditions[i];
		if (!all && strcmp(c->code, code))
			continue;
		n += c->raised.set && c->raised.v;
		GA_SET(c->raised, false);
		c->raised_s.set = false;
		c->n_hits = 0; /* the high-water marks stay: what the log still holds is not new */
	}
	return n;
}
