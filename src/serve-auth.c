/*
 * serve-auth.c - what a wrong password may cost `gpuaudit serve` (issue 29):
 * basic authentication checks a password with bcrypt, ~50 ms at cost 10 and
 * ~200 ms at cost 12, on libmicrohttpd's one thread, so 50 clients sending
 * wrong passwords used to leave 1 scrape in 80 answered within a second.
 *
 * Three rules, in this order, for a request with credentials (and a fourth):
 *   1. a (user, password) pair that matched before is known by its SHA-256
 *      (serve-web.c's cache): a hash, never a bcrypt, whatever else is going on
 *      -- so a scraper that authenticated once keeps its priority;
 *   2. any other pair needs a token from its client address's bucket and from
 *      the server's: the server's bucket refills so that bcrypt takes at most a
 *      tenth of a CPU (the rate is measured at start, on the hash made for
 *      unknown users), the address's lets one client try 4 times, then twice
 *      a second. No token: 429 Too Many Requests with
 *      Retry-After, without a bcrypt. A pair that matches gives its token back:
 *      the budget is one of failures, as the exporter toolkit's rate limiter
 *      counts requests;
 *   3. an unknown user is checked against a hash made at start with the
 *      highest cost among the configured users, so it costs what a known user
 *      costs (docs/serve.md: user names cannot be told by the answer's time).
 *
 * And the bcrypt runs off libmicrohttpd's thread: the handler suspends the
 * connection and queues the check (at most SERVE_AUTH_QUEUE waiting, else
 * 429) for one of SERVE_AUTH_WORKERS threads, which resumes the connection
 * when it is done; scrapes on other connections are answered meanwhile.
 */
#include <crypt.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "serve-int.h"

#define AUTH_SHARE 0.10 /* of a CPU's time that bcrypt may take */
#define IP_BURST 4.0    /* tries an address may make at once */
/*
 * and then per second: twice what a scraper with a wrong password takes.
 * Prometheus scrapes each target at a fixed phase, so at 0.5 a wrong-password
 * job sharing an address with a good one took every token, always first.
 */
#define IP_RATE 2.0

/* The cost of a bcrypt hash ("$2b$10$..."), 0 when it has none. */
static unsigned hash_cost(const char *h)
{
	if (strlen(h) < 7 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$')
		return 0;
	if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9')
		return 0;
	return (unsigned)((h[4] - '0') * 10 + (h[5] - '0'));
}

int serve_auth_init(struct serve_auth *a, const struct ga_webconfig *cfg, char *err, size_t errn)
{
	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	a->ready = true;
	if (!cfg || !cfg->n_users)
		return 0;
	unsigned cost = 4;
	for (size_t i = 0; i < cfg->n_users; i++) {
		unsigned c = hash_cost(cfg->users[i].hash);
		cost = c > cost ? c : cost;
	}
	unsigned char rnd[16 + 12];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(err, errn, "getrandom: %s", strerror(errno));
		return -EIO;
	}
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	if (!crypt_gensalt_rn("$2b$", cost, (const char *)rnd, 16, salt, (int)sizeof(salt))) {
		snprintf(err, errn, "crypt_gensalt_rn($2b$, %u): %s", cost, strerror(errno));
		return -EINVAL;
	}
	/* a password nobody knows: random bytes as letters */
	char pw[13];
	for (size_t i = 0; i < 12; i++)
		pw[i] = (char)('a' + rnd[16 + i] % 26);
	pw[12] = '\0';
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	if (!cd) {
		snprintf(err, errn, "out of memory");
		return -ENOMEM;
	}
	double t0 = serve_now_mono();
	const char *out = crypt_rn(pw, salt, cd, (int)sizeof(*cd));
	double took = serve_now_mono() - t0;
	int r = 0;
	if (!out || out[0] == '*' || strlen(out) >= sizeof(a->dummy)) {
		snprintf(err, errn, "bcrypt at cost %u: %s", cost, out ? "refused" : strerror(errno));
		r = -EINVAL;
	} else {
		memcpy(a->dummy, out, strlen(out) + 1);
		a->cost = cost;
		a->bcrypt_s = took > 1e-4 ? took : 1e-4;
		/*
		 * the server's bucket: AUTH_SHARE of a CPU, and at least 10 at once (a
		 * bcrypt measured slow on a loaded machine must not turn a few typos
		 * into 429s; the workers, not the request thread, pay for them)
		 */
		a->rate = AUTH_SHARE / a->bcrypt_s;
		a->burst = fmax(10.0, 3 * a->rate);
		a->tokens = a->burst;
		a->t = serve_now_mono();
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return r;
}

void serve_auth_release(struct serve_auth *a)
{
	if (a->ready)
		pthread_mutex_destroy(&a->lock);
	a->ready = false;
}

static void refill(double *tokens, double *t, double rate, double burst, double now)
{
	*tokens = fmin(burst, *tokens + (now - *t) * rate);
	*t = now;
}

/* The bucket of addr (16 bytes, IPv4 mapped), made or recycled. Under the lock. */
static struct serve_auth_ip *bucket(struct serve_auth *a, const unsigned char *addr, double now)
{
	struct serve_auth_ip *stale = &a->ip[0];
	for (size_t i = 0; i < SERVE_AUTH_IP_SLOTS; i++) {
		struct serve_auth_ip *b = &a->ip[i];
		if (b->used && !memcmp(b->addr, addr, 16))
			return b;
		if (!b->used || b->t < stale->t)
			stale = b;
		if (!b->used)
			break;
	}
	memcpy(stale->addr, addr, 16);
	stale->used = true;
	stale->tokens = IP_BURST;
	stale->t = now;
	return stale;
}

void serve_auth_client_addr(struct MHD_Connection *c, unsigned char out[16])
{
	memset(out, 0, 16);
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &in->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

/* --- the workers --------------------------------------------------------- */

static void check_one(struct serve_auth *a, struct serve_req *rq)
{
	struct serve_web *w = a->web;
	bool known = rq->user_index < w->cfg->n_users;
	bool ok = ga_bcrypt_check(known ? w->cfg->users[rq->user_index].hash : a->dummy, rq->pass) == 1 &&
	          known;
	explicit_bzero(rq->pass, sizeof(rq->pass));
	if (ok) {
		pthread_mutex_lock(&w->cache_lock);
		memcpy(w->cache[rq->user_index], rq->sum, sizeof(rq->sum));
		w->cached[rq->user_index] = true;
		pthread_mutex_unlock(&w->cache_lock);
		serve_auth_give_back(a, rq->addr);
	}
	explicit_bzero(rq->sum, sizeof(rq->sum));
	rq->auth_ok = ok;
}

static void *worker(void *arg)
{
	struct serve_auth *a = arg;
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->head && !a->stopping)
			pthread_cond_wait(&a->work, &a->lock);
		struct serve_req *rq = a->head;
		if (!rq)
			break; /* stopping, and nothing queued */
		a->head = rq->next;
		if (!a->head)
			a->tail = NULL;
		a->queued--;
		bool stopping = a->stopping;
		pthread_mutex_unlock(&a->lock);
		if (stopping) {
			explicit_bzero(rq->pass, sizeof(rq->pass));
			rq->auth_limited = true; /* serve is stopping: no bcrypt for it */
		} else {
			check_one(a, rq);
		}
		struct MHD_Connection *c = rq->c;
		/* the handler reads the result after the resume: published before it */
		__atomic_store_n(&rq->auth, SERVE_AUTH_DONE, __ATOMIC_RELEASE);
		MHD_resume_connection(c);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int serve_auth_start(struct serve_auth *a, struct serve_web *w)
{
	a->web = w;
	if (!w->cfg || !w->cfg->n_users)
		return 0;
	pthread_cond_init(&a->work, NULL);
	for (size_t i = 0; i < SERVE_AUTH_WORKERS; i++) {
		int r = pthread_create(&a->workers[i], NULL, worker, a);
		if (r)
			return r;
		a->n_workers++;
	}
	return 0;
}

void serve_auth_stop(struct serve_auth *a)
{
	if (!a->n_workers)
		return;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (size_t i = 0; i < a->n_workers; i++)
		pthread_join(a->workers[i], NULL);
	a->n_workers = 0;
	pthread_cond_destroy(&a->work);
}

bool serve_auth_queue(struct serve_auth *a, struct serve_req *rq)
{
	bool ok = false;
	pthread_mutex_lock(&a->lock);
	if (a->n_workers && !a->stopping && a->queued < SERVE_AUTH_QUEUE) {
		rq->next = NULL;
		rq->auth = SERVE_AUTH_PENDING;
		if (a->tail)
			a->tail->next = rq;
		else
			a->head = rq;
		a->tail = rq;
		a->queued++;
		/* suspended before a worker can resume it: under the lock the workers take first */
		MHD_suspend_connection(rq->c);
		pthread_cond_signal(&a->work);
		ok = true;
	}
	pthread_mutex_unlock(&a->lock);
	return ok;
}

bool serve_auth_take(struct serve_auth *a, const unsigned char addr[16], unsigned *retry_s)
{
	double now = serve_now_mono();
	pthread_mutex_lock(&a->lock);
	refill(&a->tokens, &a->t, a->rate, a->burst, now);
	struct serve_auth_ip *b = bucket(a, addr, now);
	refill(&b->tokens, &b->t, IP_RATE, IP_BURST, now);
	bool ok = a->tokens >= 1 && b->tokens >= 1;
	if (ok) {
		a->tokens -= 1;
		b->tokens -= 1;
	} else {
		double wait = fmax(b->tokens >= 1 ? 0 : (1 - b->tokens) / IP_RATE,
		                   a->tokens >= 1 ? 0 : (1 - a->tokens) / a->rate);
		*retry_s = (unsigned)ceil(wait) > 0 ? (unsigned)ceil(wait) : 1;
	}
	pthread_mutex_unlock(&a->lock);
	return ok;
}

void serve_auth_give_back(struct serve_auth *a, const unsigned char addr[16])
{
	double now = serve_now_mono();
	pthread_mutex_lock(&a->lock);
	a->tokens = fmin(a->burst, a->tokens + 1);
	struct serve_auth_ip *b = bucket(a, addr, now);
	b->tokens = fmin(IP_BURST, b->tokens + 1);
	pthread_mutex_unlock(&a->lock);
}
