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
#include "gpuaudit/json.h"
#include "gpuaudit/node.h"
#include "gpuaudit/nodeclass.h"
#include "gpuaudit/nodeclass-analyze.h"

/* One scalar as text: strings bare, quoted when they hold spaces. */
static void print_scalar(FILE *o, json_t *v)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		fprintf(o, strchr(s, ' ') || !*s ? "\"%s\"" : "%s", cli_esc(s)); /* node strings: escaped */
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
	json_t *root = NULL;
	int r = ga_json_parse(NULL, text, strlen(text), JSON_PRESERVE_ORDER, &root, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !json_is_object(root)) {
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
	fprintf(o, "name   %s\n", cli_esc(c->name));
	fprintf(o, "hw     sha256:%s\n", c->hw_sha256);
	fprintf(o, "stack  sha256:%s\n", c->stack_sha256);
	fprintf(o, "key    %s\n", c->key);
	int r = print_section(o, "hardware", c->hw_json);
	if (r == 0)
		r = print_section(o, "stack", c->stack_json);
	return r;
}

struct class_opts {
	struct snap_opts so;
	bool json, compact, key;
};

static int class_opt(struct cli *cli, const char *cmd, int opt, const char *arg, void *st)
{
	struct class_opts *o = st;
	int k = snap_opt(cli, cmd, opt, arg, &o->so);
	if (k)
		return k < 0 ? -k : CLI_NEXT;
	if (opt == 'j')
		o->json = true;
	else if (opt == 'c')
		o->compact = true;
	else if (opt == 'k')
		o->key = true;
	else
		return CLI_UNKNOWN;
	return CLI_NEXT;
}

static int print_json(struct cli *cli, const struct ga_nodeclass *nc, bool compact)
{
	struct ga_buf out;
	ga_buf_init(&out, 0);
	int r = ga_class_write_json(nc, &out, !compact);
	if (r == 0) {
		fwrite(out.data, 1, out.len, cli->out);
		if (compact)
			fputc('\n', cli->out);
	}
	ga_buf_release(&out);
	return r;
}

/* The class of the node, printed as asked; the exit code. */
static int class_print(struct cli *cli, const struct class_opts *o, const struct ga_nodeclass *nc)
{
	int r;
	if (o->key)
		fprintf(cli->out, "%s\n", nc->key);
	else if (o->json && (r = print_json(cli, nc, o->compact)) < 0)
		return cli_error(cli, "class", EXIT_INTERNAL, "JSON output failed: %s", strerror(-r));
	else if (!o->json && print_text(cli->out, nc) < 0)
		return cli_error(cli, "class", EXIT_INTERNAL, "text output failed");
	return EXIT_OK;
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
	struct class_opts o = { 0 };
	snap_opts_init(&o.so);
	int code = cli_parse(cli, "class", argc, argv, "j" SNAP_SHORT_OPTIONS, opts, class_opt, &o);
	if (code == CLI_NEXT)
		code = cli_no_operands(cli, "class", argc, argv);
	if (code != CLI_NEXT)
		return code;
	code = snap_validate(cli, "class", &o.so);
	if (code != EXIT_OK)
		return code;
	if (o.json && o.key)
		return cli_error(cli, "class", EXIT_USAGE,
		                 "--json and --key exclude each other (--json includes the key)");

	struct ga_ctx *ctx = NULL;
	code = snap_ctx(cli, "class", &o.so, &ctx);
	if (code != EXIT_OK)
		return code;
	struct ga_node *node = NULL;
	struct ga_nodeclass nc = { 0 };
	const char *path = NULL, *why = NULL;
	int r = snap_node(ctx, &o.so, &node);
	if (r < 0)
		code = cli_error(cli, "class", cli_exit_for(r), "%s", ga_ctx_errmsg(ctx));
	else if (ga_node_source_state(node, GA_SOURCE_PCI, &path, &why) != GA_SOURCE_READ)
		/* a CPU-only class (and cache key) for a node whose GPUs were not seen is wrong */
		code = cli_error(cli, "class", EXIT_INCONCLUSIVE,
		                 "the PCI devices could not be read (/%s: %s): the node's accelerators, "
		                 "and so its class, are unknown; " GA_SOURCE_PCI_FIX,
		                 path ? path : GA_SOURCE_PCI_PATH, why);
	else if ((r = ga_nodeclass_compute(node, &nc)) < 0)
		code = cli_error(cli, "class", EXIT_INTERNAL, "class computation failed: %s", strerror(-r));
	else
		code = class_print(cli, &o, &nc);
	ga_nodeclass_release(&nc);
	ga_node_free(node);
	ga_ctx_free(ctx);
	return code;
}
