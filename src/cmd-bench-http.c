/*
 * cmd-bench-http.c - `gpuaudit bench http`: open-loop HTTP load at a fixed or
 * Poisson rate, coordinated-omission safe (lib/bench/http.c and its engines).
 * The JSON result (schema gpuaudit.bench/v1, kind http, the input of
 * `gpuaudit canary`) is lib/bench/load-json.c. This file parses the options
 * and prints text, the HdrHistogram export and the SVG spectrum.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench-load.h"
#include "bench-report.h"
#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"

static const char http_usage[] =
        "usage: gpuaudit bench http URL --rate R --duration D [--connections C]\n"
        "                           [--method M] [--header H]... [--body-file F]\n"
        "                           [--poisson] [--http2] [--closed-loop] [--timeout S]\n"
        "                           [--seed N] [--engine native|curl] [--json [--compact]]\n"
        "                           [-o FILE] [--export-hdr FILE] [--plot FILE.svg]\n"
        "\n"
        "Open-loop load on one URL: request i is due at start + i/R and its latency\n"
        "counts from that intended time, so a stall of the server shows in every request\n"
        "it holds back (coordinated omission corrected). The uncorrected latency (from\n"
        "the actual send) and the generator's own lag are reported too, and the time to\n"
        "the first successful response and the first requests' latencies as cold start.\n"
        "Status codes, errors, timeouts and the error rate are counted. Only the URL you\n"
        "name is contacted, over keep-alive connections: plain http:// with HTTP/1.1\n"
        "through gpuaudit's own client, https:// and HTTP/2 through libcurl.\n"
        "\n"
        "  --rate R         requests per second (required)\n"
        "  --duration D     length of the schedule: 10, 10s, 500ms, 2m (required)\n"
        "  --connections C  most requests in flight, one keep-alive connection each\n"
        "                   (default 8); requests due while all are busy wait and are\n"
        "                   sent late, the wait counted in their latency\n"
        "  --method M       request method (default GET, or POST with --body-file)\n"
        "  --header H       extra request header 'Name: value' (repeatable)\n"
        "  --body-file F    request body\n"
        "  --poisson        exponential gaps between requests (mean 1/R) instead of\n"
        "                   fixed ones\n"
        "  --http2          HTTP/2 (prior knowledge on http://, ALPN on https://)\n"
        "  --closed-loop    send the next request when one finishes, at most C in\n"
        "                   flight, for D or R x D requests, whichever ends first (what\n"
        "                   closed-loop tools such as wrk measure; for comparison)\n"
        "  --timeout S      per-request timeout (default 30s)\n"
        "  --seed N         seed of the Poisson arrivals (default 1)\n"
        "  --engine E       native (default for http:// with HTTP/1.1: epoll, one\n"
        "                   prepared request written with one send, http_parser) or\n"
        "                   curl (libcurl's multi interface; always for https:// and\n"
        "                   --http2); the JSON says which ran\n"
        "  --json, --compact, -o FILE, --export-hdr FILE, --plot FILE.svg\n"
        "                   as for bench exec (the histogram of the corrected latency)\n"
        "  -h, --help       show this help\n"
        "\n"
        "Exit status: 0 every request succeeded, 1 some request failed (transport error,\n"
        "timeout, HTTP status >= 400), 2 usage error, 70 internal error.\n";

struct http_args {
	struct ga_http_opts ho;
	struct bench_out_opts oo;
	const char **headers;
	size_t n_headers;
	const char *body_file;
};

static int http_engine_opt(struct cli *cli, const char *cmd, const char *arg, struct ga_http_opts *ho)
{
	if (!strcmp(arg, "native"))
		ho->engine = GA_HTTP_ENGINE_NATIVE;
	else if (!strcmp(arg, "curl") || !strcmp(arg, "libcurl"))
		ho->engine = GA_HTTP_ENGINE_CURL;
	else
		return cli_error(cli, cmd, EXIT_USAGE, "--engine: native or curl");
	return CLI_NEXT;
}

static int http_header_opt(struct cli *cli, const char *cmd, const char *arg, struct http_args *a)
{
	if (!strchr(arg, ':'))
		return cli_error(cli, cmd, EXIT_USAGE, "--header: 'Name: value'");
	const char **nh = realloc(a->headers, (a->n_headers + 1) * sizeof(*a->headers));
	if (!nh)
		return EXIT_INTERNAL; /* "out of memory" printed by the command */
	a->headers = nh;
	a->headers[a->n_headers++] = arg;
	return CLI_NEXT;
}

static int http_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct http_args *a = st;
	struct ga_http_opts *ho = &a->ho;
	long v;
	switch (opt) {
	case OPT_RATE:
		if (bench_parse_double(arg, 1e-3, 1e7, &ho->rate) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--rate: requests per second, 0.001 to 1e7");
		return CLI_NEXT;
	case OPT_DURATION:
		if (bench_parse_seconds(arg, &ho->duration_s) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--duration: such as 10, 10s, 500ms, 2m");
		return CLI_NEXT;
	case OPT_CONN:
		if (bench_parse_count(arg, 1, 10000, &v) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--connections: 1 to 10000");
		ho->connections = (int)v;
		return CLI_NEXT;
	case OPT_METHOD:
		ho->method = arg;
		return CLI_NEXT;
	case OPT_HEADER:
		return http_header_opt(cli, cmd, arg, a);
	case OPT_BODY:
		a->body_file = arg;
		return CLI_NEXT;
	case OPT_POISSON:
		ho->poisson = true;
		return CLI_NEXT;
	case OPT_HTTP2:
		ho->http2 = true;
		return CLI_NEXT;
	case OPT_CLOSED:
		ho->closed_loop = true;
		return CLI_NEXT;
	case OPT_TIMEOUT:
		if (bench_parse_seconds(arg, &ho->timeout_s) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--timeout: such as 10s or 500ms");
		return CLI_NEXT;
	case OPT_SEED:
		if (bench_parse_count(arg, 0, LONG_MAX, &v) < 0)
			return cli_error(cli, cmd, EXIT_USAGE, "--seed: a non-negative integer");
		ho->seed = (uint64_t)v;
		return CLI_NEXT;
	case OPT_ENGINE:
		return http_engine_opt(cli, cmd, arg, ho);
	default:
		return CLI_UNKNOWN;
	}
}

/* The operand and the options together; EXIT_OK or the usage error's exit code. */
static int http_validate(struct cli *cli, const char *cmd, int argc, char **argv, struct http_args *a)
{
	struct ga_http_opts *ho = &a->ho;
	if (optind != argc - 1)
		return cli_error(cli, cmd, EXIT_USAGE, "give exactly one URL (try -h)");
	ho->url = argv[optind];
	if (strncmp(ho->url, "http://", 7) && strncmp(ho->url, "https://", 8))
		return cli_error(cli, cmd, EXIT_USAGE, "the URL must start with http:// or https://");
	if (!(ho->rate > 0) || !(ho->duration_s > 0))
		return cli_error(cli, cmd, EXIT_USAGE, "--rate and --duration are required (try -h)");
	if (ho->rate * ho->duration_s > 1e8)
		return cli_error(cli, cmd, EXIT_USAGE, "--rate x --duration is more than 1e8 requests");
	if (a->oo.compact && !a->oo.json)
		return cli_error(cli, cmd, EXIT_USAGE, "--compact needs --json");
	if (ho->engine == GA_HTTP_ENGINE_NATIVE && (strncmp(ho->url, "http://", 7) || ho->http2))
		return cli_error(
		        cli, cmd, EXIT_USAGE,
		        "--engine native: HTTP/1.1 on http:// only (https:// and --http2 need curl)");
	ho->headers = a->headers;
	ho->n_headers = a->n_headers;
	return EXIT_OK;
}

static void print_http_text(FILE *o, const struct ga_http_opts *op, const struct ga_http_result *r)
{
	char b[64];
	uint64_t requests = r->sent + r->not_sent;
	fprintf(o, "target: %s %s, %g/s for %gs (%s), %d connection%s, HTTP/%s (%s)\n",
	        op->method ? op->method
	        : op->body ? "POST"
	                   : "GET",
	        op->url, op->rate, op->duration_s,
	        op->closed_loop ? "closed loop"
	        : op->poisson   ? "open loop, Poisson arrivals"
	                        : "open loop, fixed gaps",
	        op->connections, op->connections == 1 ? "" : "s",
	        r->http_version == 20   ? "2"
	        : r->http_version == 10 ? "1.0"
	        : r->http_version == 11 ? "1.1"
	                                : "?",
	        r->engine ? r->engine : "?");
	fprintf(o,
	        "requests: %llu, ok %llu, errors %llu (%.2f%%): timeouts %llu, transport %llu, "
	        "not sent %llu\n",
	        (unsigned long long)requests, (unsigned long long)r->ok, (unsigned long long)r->errors,
	        requests ? 100.0 * (double)r->errors / (double)requests : 0.0,
	        (unsigned long long)r->timeouts, (unsigned long long)r->transport_errors,
	        (unsigned long long)r->not_sent);
	if (r->first_error[0])
		fprintf(o, "first transport error: %s\n", r->first_error);
	if (r->retries)
		fprintf(o, "sent again on a new connection (a reused one closed first): %llu\n",
		        (unsigned long long)r->retries);
	if (r->h2_no_reuse)
		fprintf(o, "note: this libcurl (before 8.0) cannot reuse HTTP/2 prior-knowledge "
		           "connections (curl issue 10634): one connection per request\n");
	fprintf(o, "status:");
	static const char *const cls[] = { "none", "1xx", "2xx", "3xx", "4xx", "5xx" };
	for (int i = 1; i < 6; i++)
		if (r->status_counts[i])
			fprintf(o, " %s %llu", cls[i], (unsigned long long)r->status_counts[i]);
	fprintf(o, "\nachieved: %.1f responses/s over %.2f s\n",
	        r->elapsed_s > 0 ? (double)r->completed / r->elapsed_s : 0.0, r->elapsed_s);
	if (r->first_ok_s >= 0) {
		bench_fmt(b, sizeof(b), r->first_ok_s, "s");
		fprintf(o, "cold start: first successful response after %s; first %zu latencies:", b,
		        r->n_cold);
	} else {
		fprintf(o, "cold start: no successful response; first %zu latencies:", r->n_cold);
	}
	for (size_t i = 0; i < r->n_cold; i++) {
		bench_fmt(b, sizeof(b), r->cold_latency_s[i], "s");
		fprintf(o, " %s", b);
	}
	fprintf(o, "\n                                   p50       p90       p99     p99.9    p99.99       "
	           "max\n");
	bench_print_hist_row(o, "latency (from intended)", &r->latency, ga_http_percentiles, 5);
	bench_print_hist_row(o, "uncorrected (from send)", &r->service, ga_http_percentiles, 5);
	bench_print_hist_row(o, "generator lag", &r->lag, ga_http_percentiles, 5);
	bench_note_sample_size(o, "requests", (size_t)r->latency.total_count, ga_http_percentiles + 2, 3);
}

/* --plot: the percentile spectrum of the corrected latency, in ms. 0 or -errno. */
static int http_plot(const char *path, const struct ga_hist *latency)
{
	struct ga_hist_row *rows = NULL;
	size_t nr = 0;
	struct ga_svg_point *pts = NULL;
	int err = ga_hist_spectrum(latency, 5, &rows, &nr);
	if (err == 0 && nr == 0)
		err = -ENODATA;
	if (err == 0 && !(pts = calloc(nr, sizeof(*pts))))
		err = -ENOMEM;
	for (size_t i = 0; err == 0 && i < nr; i++)
		pts[i] = (struct ga_svg_point){ rows[i].percentile, (double)rows[i].value * 1e-6 };
	if (err == 0) {
		struct ga_svg_series ser = { "latency from intended send", pts, nr };
		err = bench_write_svg(path, "gpuaudit bench http: latency", "ms", &ser, 1);
	}
	ga_free(rows);
	free(pts);
	return err;
}

/* --json / -o, the text, --export-hdr and --plot: EXIT_OK or an exit code. */
static int http_output(struct cli *cli, const char *cmd, const struct bench_out_opts *oo,
                       const struct ga_http_opts *ho, const struct ga_http_result *r)
{
	struct ga_buf pretty, compact;
	ga_buf_init(&pretty, 0);
	ga_buf_init(&compact, 0);
	int code = EXIT_INTERNAL;
	if (oo->json || oo->output) {
		if (ga_http_result_json(ho, r, &pretty, true) < 0 ||
		    ga_http_result_json(ho, r, &compact, false) < 0)
			goto out;
		if ((code = bench_emit_json(cli, cmd, oo, &pretty, &compact)) != EXIT_OK)
			goto out;
	}
	if (!oo->json)
		print_http_text(cli->out, ho, r);
	if (oo->hdr && (code = bench_export_hdr(cli, cmd, oo->hdr, &r->latency, 1e6)) != EXIT_OK)
		goto out;
	code = EXIT_OK;
	int err = oo->plot ? http_plot(oo->plot, &r->latency) : 0;
	if (err < 0)
		code = cli_error(cli, cmd, EXIT_USAGE, "cannot write %s: %s", oo->plot, strerror(-err));
out:
	ga_buf_release(&pretty);
	ga_buf_release(&compact);
	return code;
}

int cmd_bench_http(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "connections", required_argument, NULL, OPT_CONN },
		{ "method", required_argument, NULL, OPT_METHOD },
		{ "header", required_argument, NULL, OPT_HEADER },
		{ "body-file", required_argument, NULL, OPT_BODY },
		{ "poisson", no_argument, NULL, OPT_POISSON },
		{ "http2", no_argument, NULL, OPT_HTTP2 },
		{ "closed-loop", no_argument, NULL, OPT_CLOSED },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		BENCH_OUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench http";
	struct http_args a = { .ho = { .connections = 8, .seed = 1 } };
	const struct bench_load_parse p = { http_usage, "ho:", opts, http_opt, &a.oo, &a };
	struct ga_ctx *ctx = NULL;
	struct ga_http_result r = { 0 };
	char *body = NULL;
	int code = bench_load_parse(cli, cmd, argc, argv, &p);
	if (code != CLI_NEXT || (code = http_validate(cli, cmd, argc, argv, &a)) != EXIT_OK)
		goto out;
	if (a.body_file) {
		size_t n = 0;
		int err = bench_read_file(a.body_file, 256 << 20, &body, &n);
		if (err < 0) {
			code = cli_error(cli, cmd, EXIT_USAGE, "cannot read %s: %s", a.body_file,
			                 strerror(-err));
			goto out;
		}
		a.ho.body = body;
		a.ho.body_len = n;
	}
	code = EXIT_INTERNAL;
	if (ga_ctx_new(&ctx) < 0)
		goto out;
	int err = ga_http_run(ctx, &a.ho, &r);
	if (err < 0) {
		code = cli_error(cli, cmd, cli_exit_for(err), "%s", ga_ctx_errmsg(ctx));
		goto out;
	}
	code = http_output(cli, cmd, &a.oo, &a.ho, &r);
	if (code == EXIT_OK)
		code = r.errors ? EXIT_PROBLEMS : EXIT_OK;
out:
	if (code == EXIT_INTERNAL)
		cli_error(cli, cmd, code, "out of memory");
	ga_http_result_release(&r);
	free(a.headers);
	free(body);
	ga_ctx_free(ctx);
	return code;
}
