/* findings.c - the findings list shared by every command and writer. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuaudit/findings.h"
#include "internal.h"

static const char *const sev_names[] = { "info", "warning", "error", "critical" };

const char *ga_severity_name(enum ga_severity s)
{
	return (unsigned)s < GA_ARRAY_SIZE(sev_names) ? sev_names[s] : "unknown";
}

void ga_findings_init(struct ga_findings *f)
{
	memset(f, 0, sizeof(*f));
}

static void finding_release(struct ga_finding *fd)
{
	ga_free(fd->code);
	ga_free(fd->subject);
	ga_free(fd->message);
	ga_free(fd->decision);
	ga_free(fd->gpu_uuid);
	ga_free(fd->pci_address);
	for (size_t i = 0; i < fd->n_evidence; i++) {
		ga_free(fd->evidence[i].key);
		ga_free(fd->evidence[i].value);
	}
	ga_free(fd->evidence);
}

void ga_findings_release(struct ga_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		finding_release(&f->v[i]);
	ga_free(f->v);
	ga_findings_init(f);
}

/* The one place a finding is made: code is the string writers print, id its catalogue row. */
static struct ga_finding *vadd(struct ga_findings *f, enum ga_code id, const char *code, enum ga_severity sev,
                               const char *subject, const char *decision, const char *fmt, va_list ap)
        __attribute__((format(printf, 7, 0)));
static struct ga_finding *vadd(struct ga_findings *f, enum ga_code id, const char *code, enum ga_severity sev,
                               const char *subject, const char *decision, const char *fmt, va_list ap)
{
	struct ga_buf msg;
	ga_buf_init(&msg, 0);
	int r = ga_buf_vaddf(&msg, fmt, ap);
	struct ga_finding *fd = r == 0 ? ga_array_push((void **)&f->v, &f->n, sizeof(*fd)) : NULL;
	if (!fd) {
		ga_buf_release(&msg);
		f->err = -ENOMEM;
		return NULL;
	}
	fd->code = ga_strdup(code);
	fd->id = id;
	fd->severity = sev;
	fd->subject = ga_strdup(subject ? subject : "node");
	fd->decision = decision ? ga_strdup(decision) : NULL;
	fd->message = ga_buf_detach(&msg, NULL);
	ga_action_default(code, &fd->action, &fd->cause);
	if (!fd->code || !fd->subject || !fd->message || (decision && !fd->decision)) {
		finding_release(fd);
		f->n--;
		f->err = -ENOMEM;
		return NULL;
	}
	return fd;
}

struct ga_finding *ga_findings_add(struct ga_findings *f, enum ga_code id, enum ga_severity sev,
                                   const char *subject, const char *decision, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct ga_finding *fd = vadd(f, id, ga_code_str(id), sev, subject, decision, fmt, ap);
	va_end(ap);
	return fd;
}

struct ga_finding *ga_findings_add_member(struct ga_findings *f, enum ga_code family, const char *suffix,
                                          enum ga_severity sev, const char *subject, const char *decision,
                                          const char *fmt, ...)
{
	struct ga_buf code;
	ga_buf_init(&code, 0);
	if (ga_buf_addf(&code, "%s%s", ga_code_str(family), suffix ? suffix : "") < 0) {
		ga_buf_release(&code);
		f->err = -ENOMEM;
		return NULL;
	}
	enum ga_code id = ga_code_parse(code.data);
	va_list ap;
	va_start(ap, fmt);
	struct ga_finding *fd =
	        vadd(f, ga_code_in(id, family) ? id : family, code.data, sev, subject, decision, fmt, ap);
	va_end(ap);
	ga_buf_release(&code);
	return fd;
}

struct ga_finding *ga_findings_add_code(struct ga_findings *f, const char *code, enum ga_severity sev,
                                        const char *subject, const char *decision, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct ga_finding *fd = vadd(f, ga_code_parse(code), code, sev, subject, decision, fmt, ap);
	va_end(ap);
	return fd;
}

int ga_finding_evidence(struct ga_finding *fd, const char *key, const char *fmt, ...)
{
	if (!fd)
		return -EINVAL;
	struct ga_buf v;
	ga_buf_init(&v, 0);
	va_list ap;
	va_start(ap, fmt);
	int r = ga_buf_vaddf(&v, fmt, ap);
	va_end(ap);
	struct ga_evidence *e =
	        r == 0 ? ga_array_push((void **)&fd->evidence, &fd->n_evidence, sizeof(*e)) : NULL;
	if (!e) {
		ga_buf_release(&v);
		return -ENOMEM;
	}
	e->key = ga_strdup(key);
	e->value = ga_buf_detach(&v, NULL);
	if (e->key && e->value)
		return 0;
	ga_free(e->key);
	ga_free(e->value);
	fd->n_evidence--;
	return -ENOMEM;
}

int ga_finding_set_device(struct ga_finding *fd, const char *gpu_uuid, const char *pci_address)
{
	char *u = gpu_uuid ? ga_strdup(gpu_uuid) : NULL, *p = pci_address ? ga_strdup(pci_address) : NULL;
	if ((gpu_uuid && !u) || (pci_address && !p)) {
		ga_free(u);
		ga_free(p);
		return -ENOMEM;
	}
	if (u) {
		ga_free(fd->gpu_uuid);
		fd->gpu_uuid = u;
	}
	if (p) {
		ga_free(fd->pci_address);
		fd->pci_address = p;
	}
	return 0;
}

struct ga_finding *ga_findings_copy(struct ga_findings *f, const struct ga_finding *s)
{
	struct ga_finding *d =
	        ga_findings_add_code(f, s->code, s->severity, s->subject, s->decision, "%s", s->message);
	if (!d)
		return NULL;
	if (s->id != GA_C_NONE)
		d->id = s->id;
	d->action = s->action;
	d->cause = s->cause;
	int r = ga_finding_set_device(d, s->gpu_uuid, s->pci_address);
	for (size_t k = 0; r == 0 && k < s->n_evidence; k++)
		r = ga_finding_evidence(d, s->evidence[k].key, "%s", s->evidence[k].value);
	if (r < 0) {
		finding_release(d);
		f->n--;
		f->err = -ENOMEM;
		return NULL;
	}
	return d;
}

int ga_findings_max_severity(const struct ga_findings *f)
{
	int m = -1;
	for (size_t i = 0; i < f->n; i++)
		if ((int)f->v[i].severity > m)
			m = (int)f->v[i].severity;
	return m;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct ga_finding *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	int r = strcmp(x->code, y->code);
	return r ? r : strcmp(x->subject, y->subject);
}

void ga_findings_sort(struct ga_findings *f)
{
	if (f->n > 1)
		qsort(f->v, f->n, sizeof(*f->v), cmp_finding);
}
