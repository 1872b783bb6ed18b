/*
 * cmd-class.c - `gpuaudit class`: collect (or load) a node snapshot and print
 * its class fingerprint (hardware and software-stack hashes) and its
 * compile/engine cache key. The fields are computed by lib/analyze/nodeclass.c;
 * the text form shows the same canonical JSON the hashes are taken over.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "gpuaudit/isolate.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"

/* One scalar as text: strings bare, quoted when they hold spaces. */
static void print_scalar(FILE *o, json_t *v)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		fprintf(o, strchr(s, ' ') || !*s ? "\"%s\"" : "%s", s);
	} else if (json_is_integer(v)) {
		fprintf(o, "%lld", (long long)json_integer_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", o);
	} else {
		fputs("?", o);
	}
}

/* An object flattened to "k=v k.sub=v list=a,b" (the canonical key order). */
static void print_flat(FILE *o, json_t *obj, const char *prefix, bool *first)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v)
	{
		if (json_is_object(v)) {
			char p[128];
			snprintf(p, sizeof(p), "%s%s.", prefix, k);
			print_flat(o, v, p, first);
			continue;
		}
		fprintf(o, "%s%s%s=", *first ? "" : " ", prefix, k);
		*first = false;
		if (json_is_array(v)) {
			if (!json_array_size(v))
				fputs("-", o);
			for (size_t i = 0; i < json_array_size(v); i++) {
				if (i)
					fputc(',', o);
				print_scalar(o, json_array_get(v, i));
			}
		} else {
			print_scalar(o, v);
		}
	}
}

/* One line per top-level member; arrays of objects one line per element. */
static int print_section(FILE *o, const char *title, const char *text)
{
	json_t *root = json_loads(text, JSON_PRESERVE_ORDER, NULL);
	if (!root || !json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	fprintf(o, "%s:\n", title);
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v)
	{
		if (json_is_array(v)) {
			if (!json_array_size(v))
				fprintf(o, "  %-13s none\n", k);
			for (size_t i = 0; i < json_array_size(v); i++) {
				json_t *e = json_array_get(v, i);
				fprintf(o, "  %-13s ", k);
				if (json_is_object(e)) {
					bool first = true;
					print_flat(o, e, "", &first);
				} else {
					print_scalar(o, e);
				}
				fputc('\n', o);
			}
		} else if (json_is_object(v)) {
			bool first = true;
			fprintf(o, "  %-13s ", k);
			print_flat(o, v, "", &first);
			fputc('\n', o);
		} else {
			fprintf(o, "  %-13s ", k);
			print_scalar(o, v);
			fputc('\n', o);
		}
	}
	json_decref(root);
	return 0;
}

static int print_text(FILE *o, const struct ga_nodeclass *c)
{
	fprintf(o, "id     %s\n", c->id);
	fprintf(o, "name   %s\n", c->name);
	fprintf(o, "hw     sha256:%s\n", c->hw_sha256);
	fprintf(o, "stack  sha256:%s\n", c->stack_sha256);
	fprintf(o, "key    %s\n", c->key);
	int r = print_section(o, "hardware", c->hw_json);
	if (r == 0)
		r = print_section(o, "stack", c->stack_json);
	return r;
}

int cmd_class(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		SNAP_LONG_OPTIONS,
		{ "json", no_argument, NULL, 'j' },
		{ "compact", no_argument, NULL, 'c' },
		{ "key", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct snap_opts so;
	snap_opts_init(&so);
	bool json = false, compact = false, key = false;
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+hj" SNAP_SHORT_OPTIONS, opts, NULL)) != -1) {
		int k = snap_opt(cli, "class", opt, optarg, &so);
		if (k < 0)
			return -k;
		if (k > 0)
			continue;
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'c':
			compact = true;
			break;
		case 'k':
			key = true;
			break;
		case 'h':
			cli_usage(cli, cli_find("class"), cli->out);
			return EXIT_OK;
		default:
			return cli_bad_option(cli, "class", opts, argv);
		}
	}
	if (optind < argc)
		return cli_error(cli, "class", EXIT_USAGE, "unexpected argument '%s' (try -h)", argv[optind]);
	int code = snap_validate(cli, "class", &so);
	if (code != EXIT_OK)
		return code;
	if (json && key)
		return cli_error(cli, "class", EXIT_USAGE,
		                 "--json and --key exclude each other (--json includes the key)");

	struct ga_ctx *ctx = NULL;
	code = snap_ctx(cli, "class", &so, &ctx);
	if (code != EXIT_OK)
		return code;
	struct ga_node *node = NULL;
	struct ga_nodeclass nc = { 0 };
	struct ga_buf out;
	ga_buf_init(&out, 0);
	int r = snap_node(ctx, &so, &node);
	if (r < 0) {
		code = cli_error(cli, "class", r == -ENOMEM ? EXIT_INTERNAL : EXIT_USAGE, "%s",
		                 ga_ctx_errmsg(ctx));
		goto out;
	}
	r = ga_nodeclass_compute(node, &nc);
	if (r < 0) {
		code = cli_error(cli, "class", EXIT_INTERNAL, "class computation failed: %s", strerror(-r));
		goto out;
	}
	if (key) {
		fprintf(cli->out, "%s\n", nc.key);
	} else if (json) {
		struct ga_json w;
		ga_json_init(&w, &out, !compact);
		r = ga_nodeclass_write_json(&nc, &w);
		int f = ga_json_finish(&w);
		if (r == 0)
			r = f;
		if (r < 0) {
			code = cli_error(cli, "class", EXIT_INTERNAL, "JSON output failed: %s", strerror(-r));
			goto out;
		}
		fwrite(out.data, 1, out.len, cli->out);
		if (compact)
			fputc('\n', cli->out);
	} else if (print_text(cli->out, &nc) < 0) {
		code = cli_error(cli, "class", EXIT_INTERNAL, "text output failed");
		goto out;
	}
	code = EXIT_OK;
out:
	ga_buf_release(&out);
	ga_nodeclass_release(&nc);
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}
