/*
 * yaml-scan.h - the prescan of YAML text that protects libfyaml 0.7.12 from
 * inputs it mishandles (lib/core/yaml-scan.c); lib/ only.
 */
#ifndef GA_YAML_SCAN_H
#define GA_YAML_SCAN_H

#include <stddef.h>
#include <stdint.h>

#define GA_YAML_MAX_DEPTH 32    /* nested collections */
#define GA_YAML_MAX_NODES 65536 /* characters that can start a node: - , : ? [ { % */

enum ga_yscan_status {
	GA_YSCAN_OK = 0,
	GA_YSCAN_BADUTF8, /* why, byte */
	GA_YSCAN_BADCHAR, /* why, cp */
	GA_YSCAN_DEEP,    /* nested deeper than GA_YAML_MAX_DEPTH */
	GA_YSCAN_NODES,   /* more than GA_YAML_MAX_NODES characters that can start a node */
	GA_YSCAN_SQRUN,   /* two '' escapes in a row in a single-quoted string */
	GA_YSCAN_QKEY,    /* an explicit mapping key ("? KEY"): libfyaml 0.7.12 can crash on them */
};

struct ga_yscan {
	enum ga_yscan_status status;
	unsigned line, col; /* 1-based, of the offending character; columns count characters */
	const char *why;    /* static text */
	uint32_t cp;
	unsigned char byte;
};

/* 0 when the text may be given to libfyaml; -1 with *res saying where and why not. */
int ga_yaml_prescan(const char *text, size_t len, struct ga_yscan *res);

#endif
