/*
 * collect/reports.c - reading node reports for `gpuaudit fleet`: files,
 * directories and stdin, each holding one JSON document, several concatenated
 * ones or JSON lines, compressed or not.
 *
 * Everything streams: libarchive's raw format with every filter decompresses
 * in 64 KiB chunks, and a splitter cuts the stream into documents by tracking
 * nesting outside strings, so only one document (capped at the context's max
 * file size) is held at a time, or with threads a bounded number of batches.
 * A document is a node snapshot (schema
 * gpuaudit.node/v1: ga_schema_read_fast, or the model's reference reader when
 * the fast one declines) or a check report (`gpuaudit check --json`);
 * anything else, and anything malformed, truncated or oversized, is handed to
 * the sink's skipped() with the reason, and reading goes on. The reader only
 * yields documents to the caller's sink (reports.h); the fleet aggregator is
 * fed from above (fleet.h's ga_fleet_sink). With sink->jobs > 1, worker
 * threads parse while this thread splits and hands documents to the sink, in
 * reading order (see "parsing in threads" below). A regular
 * file that starts as JSON is read directly, anything else through
 * libarchive.
 *
 * JSON lines are resynchronised at line starts: an object that opens at the
 * start of a line while another is still open means the earlier one was cut
 * off (gpuaudit writes nested objects indented, so this never splits a good
 * pretty-printed document).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <jansson.h>

#include "../dl/archive_dl.h"
#include "../core/internal.h"
#include "gpuaudit/nodereport.h"
#include "gpuaudit/reports.h"

#define CHUNK (64 * 1024)
#define MAX_DIR_DEPTH 8 /* directory recursion */

struct pool;

struct splitter {
	struct pool *pool; /* NULL: documents are parsed and handed on as they come */
	struct ga_ctx *ctx;
	const struct ga_reports_sink *sink;
	const char *name; /* source prefix: the path, or "stdin" */
	struct ga_buf doc;
	size_t max;
	unsigned long line;       /* current line, from 1 */
	unsigned long start_line; /* where the open document began */
	int depth;
	bool open, in_str, esc, bol, garbage, oversize;
	int err; /* -ENOMEM, sticky */
};

static void sp_init(struct splitter *s, struct pool *pool, struct ga_ctx *ctx,
                    const struct ga_reports_sink *sink, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->pool = pool;
	s->ctx = ctx;
	s->sink = sink;
	s->name = name;
	s->max = ga_ctx_max_file(ctx);
	ga_buf_init(&s->doc, 0);
	s->line = 1;
	s->bol = true;
}

static void source_of(const struct splitter *s, unsigned long line, char *out, size_t n)
{
	if (line <= 1)
		snprintf(out, n, "%s", s->name);
	else
		snprintf(out, n, "%s:%lu", s->name, line);
}

static void pool_drain(struct splitter *s);
static void skip(struct splitter *s, unsigned long line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void skip(struct splitter *s, unsigned long line, const char *fmt, ...)
{
	char src[4200], why[512];
	va_list ap;
	if (s->pool)
		pool_drain(s); /* the documents before it first: skipped ones are listed in order */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	source_of(s, line, src, sizeof(src));
	ga_log(s->ctx, GA_LOG_INFO, "%s: skipped: %s", src, why);
	if (s->sink->skipped(s->sink->ud, src, why) < 0)
		s->err = -ENOMEM;
}

/* A check report names no host: use the file's name without its extensions. */
static void name_from_source(const struct splitter *s, unsigned long line, char *out, size_t n)
{
	if (line > 1 || !strcmp(s->name, "stdin")) {
		source_of(s, line, out, n);
		return;
	}
	const char *base = strrchr(s->name, '/');
	base = base ? base + 1 : s->name;
	snprintf(out, n, "%s", base);
	char *dot = strchr(out, '.');
	if (dot && dot != out)
		*dot = '\0';
}

static void check_report(struct splitter *s, json_t *root, const char *src)
{
	const char *result = json_string_value(json_object_get(root, "result"));
	const json_t *cls = json_object_get(root, "class");
	const json_t *findings = json_object_get(root, "findings");
	if (!json_is_array(findings) || (cls && !json_is_null(cls) && !json_is_string(cls))) {
		skip(s, s->start_line, "check report: 'class' must be a string and 'findings' an array");
		return;
	}
	/* the codes of what failed, for the drift list */
	struct ga_buf codes;
	ga_buf_init(&codes, 512);
	for (size_t i = 0; i < json_array_size(findings); i++) {
		const json_t *fd = json_array_get(findings, i);
		const char *sev = json_string_value(json_object_get(fd, "severity"));
		const char *code = json_string_value(json_object_get(fd, "code"));
		if (!code || !sev || (strcmp(sev, "error") && strcmp(sev, "critical")))
			continue;
		if (codes.data && strstr(codes.data, code))
			continue;
		if (ga_buf_addf(&codes, "%s%s", codes.len ? " " : "", code) < 0)
			break; /* the cap: enough codes to say what failed */
	}
	char name[4200];
	const char *host = json_string_value(json_object_get(root, "host"));
	if (host && *host)
		snprintf(name, sizeof(name), "%s", host);
	else
		name_from_source(s, s->start_line, name, sizeof(name));
	struct ga_reports_check c = { name, json_string_value(cls), result, codes.data };
	int r = s->sink->check(s->sink->ud, &c, src);
	ga_buf_release(&codes);
	if (r == -EINVAL)
		skip(s, s->start_line, "check report: result '%s' is not pass, fail or unknown", result);
	else if (r < 0)
		s->err = r;
}

/*
 * The fast path for what nearly every document is, a well-formed node
 * snapshot: no jansson tree (ga_schema_read_fast). *ret is the snapshot, or
 * NULL for the slow path (not sure, or not a node snapshot). 0 or -ENOMEM.
 * Safe in any thread.
 */
static int parse_fast(const struct ga_buf *doc, struct ga_node **ret)
{
	*ret = NULL;
	struct ga_node *n = ga_calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	int r = ga_schema_read_fast(&ga_node_schema, doc->data ? doc->data : "", doc->len, n);
	if (r == 0 && n->schema && !strcmp(n->schema, GA_NODE_SCHEMA)) {
		*ret = n;
		return 0;
	}
	ga_node_free(n);
	return r < 0 ? r : 0;
}

static void document_slow(struct splitter *s, const char *src);

/* A document parse_fast has seen (n, r): to the sink, or read the slow way. */
static void document_parsed(struct splitter *s, struct ga_node *n, int r)
{
	char src[4200];
	source_of(s, s->start_line, src, sizeof(src));
	if (r < 0)
		s->err = r;
	else if (!n)
		document_slow(s, src);
	else if ((r = s->sink->node(s->sink->ud, n, src)) == -ENOMEM)
		s->err = r;
	else if (r < 0)
		skip(s, s->start_line, "node snapshot: cannot classify it");
}

/* The reference reading: a jansson tree; every error message comes from here. */
static void document_slow(struct splitter *s, const char *src)
{
	json_error_t jerr;
	json_t *root = NULL;
	if (ga_json_parse(NULL, s->doc.data, s->doc.len, JSON_REJECT_DUPLICATES, &root, &jerr) == -ENOMEM) {
		s->err = -ENOMEM;
		return;
	}
	if (!root) {
		skip(s, s->start_line, "invalid JSON at line %d column %d: %s",
		     jerr.line + (int)s->start_line - 1, jerr.column, jerr.text);
		return;
	}
	const json_t *schema = json_object_get(root, "schema");
	if (json_is_string(schema) && !strcmp(json_string_value(schema), GA_NODE_SCHEMA)) {
		struct ga_node *n = ga_calloc(1, sizeof(*n));
		int r = n ? ga_schema_read(s->ctx, &ga_node_schema, root, n) : -ENOMEM;
		if (r == -ENOMEM)
			s->err = r;
		else if (r < 0)
			skip(s, s->start_line, "node snapshot: %s", ga_ctx_errmsg(s->ctx));
		else if ((r = s->sink->node(s->sink->ud, n, src)) == -ENOMEM)
			s->err = r;
		else if (r < 0)
			skip(s, s->start_line, "node snapshot: cannot classify it");
		ga_node_free(n);
	} else if (json_is_string(schema) && !strcmp(json_string_value(schema), GA_CHECK_SCHEMA)) {
		check_report(s, root, src);
	} else if (schema) {
		skip(s, s->start_line, "schema %s is neither %s nor a check report",
		     json_is_string(schema) ? json_string_value(schema) : "(not a string)", GA_NODE_SCHEMA);
	} else if (json_is_string(json_object_get(root, "result")) && json_object_get(root, "findings")) {
		check_report(s, root, src);
	} else {
		skip(s, s->start_line, "neither a node snapshot (%s) nor a check report", GA_NODE_SCHEMA);
	}
	json_decref(root);
}

/*
 * --- parsing in threads ---
 * The splitter (in the caller's thread) packs documents into batches; worker
 * threads parse a batch at a time (parse_fast); the caller's thread then
 * hands the batches to the sink in the order they were packed, and every other
 * effect (a skipped report) waits until the documents before it are
 * handed on. The sink therefore sees what it would without threads. Memory
 * stays flat: at most n_ring batches of at most BATCH_DOCS documents.
 */

#define BATCH_DOCS 16
#define BATCH_BYTES (512 * 1024)

enum { J_FREE, J_READY, J_DONE };

struct jdoc {
	size_t off, len;    /* in the batch's text */
	char *name;         /* the source prefix of the splitter it came from */
	unsigned long line; /* where it began */
	struct ga_node *node;
	int r;
};

struct job {
	struct ga_buf text;
	struct jdoc docs[BATCH_DOCS];
	size_t n_docs;
	int state;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct job *ring;
	size_t n_ring;
	unsigned long long head, tail, take; /* oldest not handed on; the one filling; next to parse */
	bool stop;
	pthread_t *threads;
	size_t n_threads;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->take == p->tail)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->take == p->tail)
			break; /* stopped, and nothing left */
		struct job *j = &p->ring[p->take++ % p->n_ring];
		pthread_mutex_unlock(&p->mu);
		for (size_t i = 0; i < j->n_docs; i++) {
			struct jdoc *d = &j->docs[i];
			struct ga_buf view = { .data = j->text.data + d->off, .len = d->len };
			d->r = parse_fast(&view, &d->node);
		}
		pthread_mutex_lock(&p->mu);
		j->state = J_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void job_clear(struct job *j)
{
	for (size_t i = 0; i < j->n_docs; i++) {
		ga_free(j->docs[i].name);
		ga_node_free(j->docs[i].node);
	}
	memset(j->docs, 0, sizeof(j->docs));
	j->n_docs = 0;
	ga_buf_reset(&j->text);
}

static void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	for (size_t i = 0; i < p->n_ring && p->ring; i++) {
		job_clear(&p->ring[i]);
		ga_buf_release(&p->ring[i].text);
	}
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	ga_free(p->threads);
	ga_free(p->ring);
	ga_free(p);
}

/* jobs threads (NULL when fewer than 2, or none could start: the caller's thread parses). */
static struct pool *pool_new(unsigned jobs)
{
	if (jobs < 2)
		return NULL;
	if (jobs > 64)
		jobs = 64;
	struct pool *p = ga_calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->n_ring = 2 * (size_t)jobs + 2;
	p->ring = ga_calloc(p->n_ring, sizeof(*p->ring));
	p->threads = ga_calloc(jobs, sizeof(*p->threads));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (size_t i = 0; i < p->n_ring && p->ring; i++)
		ga_buf_init(&p->ring[i].text, 0);
	while (p->ring && p->threads && p->n_threads < jobs &&
	       pthread_create(&p->threads[p->n_threads], NULL, worker, p) == 0)
		p->n_threads++;
	if (p->n_threads == 0) {
		pool_free(p);
		return NULL;
	}
	return p;
}

/* Hand the oldest batch to the sink, waiting for it if need be. */
static void pool_commit_one(struct splitter *s)
{
	struct pool *p = s->pool;
	struct job *j = &p->ring[p->head % p->n_ring];
	pthread_mutex_lock(&p->mu);
	while (j->state != J_DONE)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < j->n_docs && !s->err; i++) {
		const struct jdoc *d = &j->docs[i];
		/* as the splitter it came from, without the pool (skip() must not drain from here) */
		struct splitter t = *s;
		t.pool = NULL;
		t.name = d->name;
		t.start_line = d->line;
		t.doc = (struct ga_buf){ .data = j->text.data + d->off, .len = d->len };
		document_parsed(&t, d->node, d->r);
		s->err = t.err;
	}
	job_clear(j);
	pthread_mutex_lock(&p->mu);
	j->state = J_FREE;
	p->head++;
	pthread_mutex_unlock(&p->mu);
}

/* Hand the batch being filled to the workers. */
static void pool_publish(struct pool *p)
{
	/* head and tail move in the caller's thread only */
	if (p->tail - p->head == p->n_ring)
		return; /* every slot is out: there is no batch being filled */
	struct job *j = &p->ring[p->tail % p->n_ring];
	if (!j->n_docs)
		return;
	pthread_mutex_lock(&p->mu);
	j->state = J_READY;
	p->tail++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

/* Hand on every document given to the pool so far. */
static void pool_drain(struct splitter *s)
{
	pool_publish(s->pool);
	while (s->pool->head < s->pool->tail)
		pool_commit_one(s);
}

/* Add the splitter's document to the batch being filled. */
static void pool_submit(struct splitter *s)
{
	struct pool *p = s->pool;
	/* a free slot for the batch being filled; hand on what is done on the way */
	for (;;) {
		pthread_mutex_lock(&p->mu);
		bool full = p->tail - p->head == p->n_ring;
		bool ready = p->head < p->tail && p->ring[p->head % p->n_ring].state == J_DONE;
		pthread_mutex_unlock(&p->mu);
		if (!full && !ready)
			break;
		pool_commit_one(s);
		if (s->err)
			return;
	}
	struct job *j = &p->ring[p->tail % p->n_ring];
	struct jdoc *d = &j->docs[j->n_docs];
	d->off = j->text.len;
	d->len = s->doc.len;
	d->line = s->start_line;
	d->node = NULL;
	d->r = 0;
	if (!(d->name = ga_strdup(s->name)) ||
	    (s->doc.len && ga_buf_add(&j->text, s->doc.data, s->doc.len) < 0)) {
		ga_free(d->name);
		d->name = NULL;
		s->err = -ENOMEM;
		return;
	}
	if (++j->n_docs == BATCH_DOCS || j->text.len >= BATCH_BYTES)
		pool_publish(p);
}

/* One complete document: parse it, tell what it is, hand it on. */
static void document(struct splitter *s)
{
	if (s->pool) {
		pool_submit(s);
		return;
	}
	struct ga_node *n;
	int r = parse_fast(&s->doc, &n);
	document_parsed(s, n, r);
	ga_node_free(n);
}

static void sp_reset(struct splitter *s)
{
	ga_buf_reset(&s->doc);
	s->open = s->in_str = s->esc = s->oversize = false;
	s->depth = 0;
}

static void sp_end(struct splitter *s)
{
	if (s->oversize)
		skip(s, s->start_line, "document larger than %zu bytes", s->max);
	else
		document(s);
	sp_reset(s);
}

static void sp_append(struct splitter *s, const char *p, size_t n)
{
	if (s->oversize || !n)
		return;
	if (s->doc.len + n > s->max) {
		s->oversize = true;
		ga_buf_reset(&s->doc);
	} else if (ga_buf_add(&s->doc, p, n) < 0) {
		s->err = -ENOMEM;
	}
}

/*
 * One byte, by the reference rules (errors go to s->err). *seg is the
 * first byte of the open document not yet appended.
 */
static inline void sp_byte(struct splitter *s, const char *p, size_t i, size_t *seg)
{
	char c = p[i];
	bool bol = s->bol;
	s->bol = c == '\n';
	if (!s->open) {
		if (c == '{' || c == '[') {
			s->open = true;
			s->start_line = s->line;
			s->garbage = false;
			*seg = i;
		} else {
			if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && !s->garbage) {
				skip(s, s->line, "text outside a JSON document");
				s->garbage = true; /* once per run of garbage */
			}
			if (c == '\n') {
				s->line++;
				s->garbage = false;
			}
			return;
		}
	} else if (bol && c == '{') {
		/* a new JSON line while the last one is open: the last one was cut off */
		skip(s, s->start_line, "truncated: the document has no end before line %lu", s->line);
		sp_reset(s);
		s->open = true;
		s->start_line = s->line;
		*seg = i;
	}
	if (c == '\n')
		s->line++;
	if (s->in_str) {
		if (s->esc)
			s->esc = false;
		else if (c == '\\')
			s->esc = true;
		else if (c == '"' || c == '\n') /* no raw newline in a JSON string: resync */
			s->in_str = false;
		return;
	}
	if (c == '"') {
		s->in_str = true;
	} else if (c == '{' || c == '[') {
		s->depth++;
	} else if ((c == '}' || c == ']') && --s->depth <= 0) {
		sp_append(s, p + *seg, i + 1 - *seg);
		if (!s->err)
			sp_end(s);
		*seg = i + 1;
	}
}

/* Bytes sp_byte does nothing with: inside a string (STR) or between tokens (TOK). */
#define SP_STR 1
#define SP_TOK 2
static unsigned char sp_class[256];

static void sp_class_init(void)
{
	for (int c = 0; c < 256; c++)
		sp_class[c] = SP_STR | SP_TOK;
	sp_class['"'] = sp_class['\n'] = 0;
	sp_class['\\'] &= (unsigned char)~SP_STR;
	sp_class['{'] &= (unsigned char)~SP_TOK;
	sp_class['['] &= (unsigned char)~SP_TOK;
	sp_class['}'] &= (unsigned char)~SP_TOK;
	sp_class[']'] &= (unsigned char)~SP_TOK;
}

/* The first i at or after from that sp_byte must see (class m), or len. */
static inline size_t sp_run(const char *p, size_t i, size_t len, unsigned char m)
{
#ifdef __SSE2__
	/* 16 bytes at a time: '"' and '\n' end both runs, '\\' a string, brackets the rest */
	const __m128i quote = _mm_set1_epi8('"'), nl = _mm_set1_epi8('\n');
	if (m == SP_STR) {
		const __m128i bs = _mm_set1_epi8('\\');
		for (; i + 16 <= len; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			__m128i hit =
			        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, nl)),
			                     _mm_cmpeq_epi8(v, bs));
			unsigned mask = (unsigned)_mm_movemask_epi8(hit);
			if (mask)
				return i + (size_t)__builtin_ctz(mask);
		}
	} else {
		/* c | 0x20 is '{' for '[' and '{' only, '}' for ']' and '}' only */
		const __m128i b20 = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
		              close = _mm_set1_epi8('}');
		for (; i + 16 <= len; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			__m128i w = _mm_or_si128(v, b20);
			__m128i hit =
			        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, nl)),
			                     _mm_or_si128(_mm_cmpeq_epi8(w, open), _mm_cmpeq_epi8(w, close)));
			unsigned mask = (unsigned)_mm_movemask_epi8(hit);
			if (mask)
				return i + (size_t)__builtin_ctz(mask);
		}
	}
#endif
	while (i < len && (sp_class[(unsigned char)p[i]] & m))
		i++;
	return i;
}

static void sp_feed(struct splitter *s, const char *p, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, sp_class_init);
	size_t seg = 0;
	size_t i = 0;
	while (i < len && !s->err) {
		if (s->open && !s->bol && !s->esc) {
			/* runs of bytes that change nothing: the bulk of a document */
			i = sp_run(p, i, len, s->in_str ? SP_STR : SP_TOK);
			if (i == len)
				break;
		}
		sp_byte(s, p, i, &seg);
		i++;
	}
	if (s->open && !s->err)
		sp_append(s, p + seg, len - seg);
}

/* End of input: an open document was truncated. */
static void sp_finish(struct splitter *s)
{
	if (s->open && !s->err)
		skip(s, s->start_line, "truncated: the input ends inside the document");
	sp_reset(s);
	ga_buf_release(&s->doc);
}

/* The end of a read: every document still with the workers handed on, the threads gone. */
static int pool_end(struct ga_ctx *ctx, const struct ga_reports_sink *sink, struct pool *pool, int r)
{
	if (!pool)
		return r;
	struct splitter s;
	sp_init(&s, pool, ctx, sink, "");
	pool_drain(&s);
	pool_free(pool);
	ga_buf_release(&s.doc);
	return s.err == -ENOMEM ? s.err : r;
}

int ga_reports_read_buffer(struct ga_ctx *ctx, const struct ga_reports_sink *sink, const char *name,
                           const void *buf, size_t len)
{
	struct pool *pool = pool_new(sink->jobs);
	struct splitter s;
	sp_init(&s, pool, ctx, sink, name);
	sp_feed(&s, buf, len);
	sp_finish(&s);
	return pool_end(ctx, sink, pool, s.err);
}

/* One file or stdin (fd), decompressed as it is read when it is compressed. */
static int read_stream(struct ga_ctx *ctx, const struct ga_reports_sink *sink, struct pool *pool,
                       const char *name, int fd)
{
	struct archive *a = NULL;
	char *chunk = ga_malloc(CHUNK);
	struct splitter s;
	sp_init(&s, pool, ctx, sink, name);
	int r = 0;
	if (!chunk) {
		r = -ENOMEM;
		goto out;
	}
	struct stat st;
	bool reg = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (reg && st.st_size == 0) {
		skip(&s, 0, "empty");
		goto out;
	}
	/*
	 * A regular file that starts as JSON does (no compression format starts
	 * with a bracket or white space) is read as it is: libarchive's setup per
	 * file cost more than parsing a node's report.
	 */
	unsigned char c0;
	if (reg && pread(fd, &c0, 1, 0) == 1 && memchr("{[ \t\r\n", c0, 6)) {
		ssize_t got;
		size_t total = 0;
		while ((got = read(fd, chunk, CHUNK)) != 0 && !s.err) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				break;
			sp_feed(&s, chunk, (size_t)got);
			total += (size_t)got;
		}
		if (got < 0 && !s.err) {
			int e = errno;
			sp_finish(&s);
			sp_init(&s, pool, ctx, sink, name);
			skip(&s, 0, "cannot read after %zu bytes: %s", total, strerror(e));
		} else if (total == 0 && !s.err) {
			skip(&s, 0, "empty");
		}
		goto out;
	}
	if (!(a = archive_read_new())) {
		r = -ENOMEM;
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	archive_read_support_format_empty(a); /* 0 bytes (an empty pipe) is EOF, not an error */
	struct archive_entry *e;
	if (archive_read_open_fd(a, fd, CHUNK) != ARCHIVE_OK) {
		skip(&s, 0, "cannot read: %s", archive_error_string(a));
		goto out;
	}
	int h = archive_read_next_header(a, &e);
	if (h == ARCHIVE_EOF) {
		skip(&s, 0, "empty");
		goto out;
	}
	if (h != ARCHIVE_OK && h != ARCHIVE_WARN) {
		skip(&s, 0, "cannot read: %s", archive_error_string(a));
		goto out;
	}
	la_ssize_t got;
	size_t total = 0;
	while ((got = archive_read_data(a, chunk, CHUNK)) > 0 && !s.err) {
		sp_feed(&s, chunk, (size_t)got);
		total += (size_t)got;
	}
	if (got < 0 && !s.err) {
		/* a truncated or corrupt compressed stream: what came out is still used */
		char why[300];
		snprintf(why, sizeof(why), "%s", archive_error_string(a) ? archive_error_string(a) : "error");
		sp_finish(&s);
		sp_init(&s, pool, ctx, sink, name);
		skip(&s, 0, "cannot decompress after %zu bytes: %s", total, why);
	} else if (total == 0 && !s.err) {
		skip(&s, 0, "empty");
	}
out:
	sp_finish(&s);
	if (s.err)
		r = s.err;
	if (a)
		archive_read_free(a);
	ga_free(chunk);
	return r;
}

static bool report_name(const char *n)
{
	static const char *const ext[] = { ".json", ".jsonl", ".ndjson" };
	static const char *const comp[] = { "", ".gz", ".zst", ".zstd", ".xz", ".bz2", ".lz4" };
	size_t nl = strlen(n);
	for (size_t i = 0; i < GA_ARRAY_SIZE(ext); i++)
		for (size_t k = 0; k < GA_ARRAY_SIZE(comp); k++) {
			size_t el = strlen(ext[i]), cl = strlen(comp[k]);
			if (nl > el + cl && !memcmp(n + nl - cl - el, ext[i], el) &&
			    !strcmp(n + nl - cl, comp[k]))
				return true;
		}
	return false;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_any(struct ga_ctx *ctx, const struct ga_reports_sink *sink, struct pool *pool,
                    const char *path, int depth, bool named);

static int read_dir(struct ga_ctx *ctx, const struct ga_reports_sink *sink, struct pool *pool,
                    const char *path, int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
	}
	char **names = NULL;
	size_t n = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* hidden files, ".", ".." and editors' temporaries */
		char **slot = ga_array_push((void **)&names, &n, sizeof(*slot));
		if (!slot || !(*slot = ga_strdup(de->d_name))) {
			if (slot)
				n--;
			r = -ENOMEM;
			goto out;
		}
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n && r != -ENOMEM; i++) {
		struct ga_buf p;
		ga_buf_init(&p, 4096);
		if (ga_buf_addf(&p, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names[i]) < 0) {
			ga_buf_release(&p);
			continue; /* longer than PATH_MAX: cannot be opened anyway */
		}
		struct stat st;
		if (fstatat(dirfd(d), names[i], &st, 0) < 0)
			st.st_mode = 0;
		if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && report_name(names[i]))) {
			int k = read_any(ctx, sink, pool, p.data, depth + 1, false);
			if (k < 0 && (k == -ENOMEM || !r))
				r = k;
		}
		ga_buf_release(&p);
	}
out:
	for (size_t i = 0; i < n; i++)
		ga_free(names[i]);
	ga_free(names);
	closedir(d);
	return r;
}

static int read_any(struct ga_ctx *ctx, const struct ga_reports_sink *sink, struct pool *pool,
                    const char *path, int depth, bool named)
{
	if (!strcmp(path, "-") && named)
		return read_stream(ctx, sink, pool, "stdin", STDIN_FILENO);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ga_err(ctx, -errno, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return ga_err(ctx, -e, "%s: %s", path, strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		if (depth >= MAX_DIR_DEPTH) {
			close(fd);
			return ga_err(ctx, -ELOOP, "%s: directories nested deeper than %d", path,
			              MAX_DIR_DEPTH);
		}
		return read_dir(ctx, sink, pool, path, fd, depth);
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		close(fd);
		return ga_err(ctx, -EINVAL, "%s: not a file or directory", path);
	}
	/* back to blocking reads (O_NONBLOCK only kept a FIFO's open from waiting) */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	int r = read_stream(ctx, sink, pool, path, fd);
	close(fd);
	return r;
}

int ga_reports_read_path(struct ga_ctx *ctx, const struct ga_reports_sink *sink, const char *path)
{
	struct pool *pool = pool_new(sink->jobs);
	int r = read_any(ctx, sink, pool, path, 0, true);
	return pool_end(ctx, sink, pool, r);
}
