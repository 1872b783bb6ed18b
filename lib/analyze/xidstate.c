/*
 * xidstate.c - escalate a hardware Xid that returns after reboots.
 *
 * The kernel log starts empty at every boot, so "the same Xid came back after
 * two reboots" needs memory across boots: `health --state FILE` keeps, per
 * (Xid, GPU address), the boot ids it was seen in. When a hardware-group Xid
 * is seen in this boot and in at least GA_XID_REPEAT_BOOTS earlier boots, its
 * finding becomes critical with "hardware inspection" as the decision (the
 * reference's fleet practice: reboot, and inspect when it recurs after two).
 *
 * Pure: state in, findings and state out; the CLI reads and writes the file.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "gpuaudit/kmsg.h"
#include "gpuaudit/xidstate.h"

#define MAX_ENTRIES 4096
#define MAX_BOOTS 16

static bool hardware_xid(const char *code, uint64_t *ret)
{
	if (!ga_startswith(code, "GA-XID-"))
		return false;
	uint64_t x;
	if (ga_parse_u64(code + 7, 10, &x) < 0)
		return false;
	struct ga_xid_info info;
	ga_xid_lookup(x, &info);
	*ret = x;
	return info.group == GA_XID_HARDWARE;
}

static json_t *find(json_t *seen, uint64_t xid, const char *dev)
{
	size_t i;
	json_t *e;
	json_array_foreach(seen, i, e)
	{
		json_t *x = json_object_get(e, "xid"), *d = json_object_get(e, "device");
		if (json_is_integer(x) && (uint64_t)json_integer_value(x) == xid && json_is_string(d) &&
		    !strcmp(json_string_value(d), dev))
			return e;
	}
	return NULL;
}

static bool has_boot(const json_t *boots, const char *boot_id)
{
	size_t i;
	json_t *b;
	json_array_foreach(boots, i,
	                   b) if (json_is_string(b) && !strcmp(json_string_value(b), boot_id)) return true;
	return false;
}

int ga_xid_state_apply(struct ga_ctx *ctx, const char *prev_text, size_t prev_len, const char *boot_id,
                       struct ga_findings *f, char **ret_state)
{
	json_t *state = NULL;
	int r = 0;
	if (prev_text && prev_len) {
		json_error_t jerr;
		if (ga_json_parse(NULL, prev_text, prev_len, 0, &state, &jerr) == -ENOMEM)
			return ga_err(ctx, -ENOMEM, "out of memory");
		json_t *schema = state ? json_object_get(state, "schema") : NULL;
		if (!state || !json_is_string(schema) ||
		    strcmp(json_string_value(schema), GA_XID_STATE_SCHEMA) != 0 ||
		    !json_is_array(json_object_get(state, "seen"))) {
			json_decref(state);
			return ga_err(ctx, -EBADMSG, "state file is not a %s document%s%s",
			              GA_XID_STATE_SCHEMA, state ? "" : ": ", state ? "" : jerr.text);
		}
	} else {
		state = json_pack("{s:s, s:[]}", "schema", GA_XID_STATE_SCHEMA, "seen");
		if (!state)
			return -ENOMEM;
	}
	json_t *seen = json_object_get(state, "seen");
	for (size_t i = 0; i < f->n && r == 0; i++) {
		struct ga_finding *fd = &f->v[i];
		uint64_t xid;
		if (!hardware_xid(fd->code, &xid) || !fd->subject || !strcmp(fd->subject, "node"))
			continue;
		json_t *e = find(seen, xid, fd->subject);
		if (!e) {
			if (json_array_size(seen) >= MAX_ENTRIES)
				continue;
			e = json_pack("{s:I, s:s, s:[]}", "xid", (json_int_t)xid, "device", fd->subject,
			              "boots");
			if (!e || json_array_append_new(seen, e) < 0) {
				r = -ENOMEM;
				break;
			}
		}
		json_t *boots = json_object_get(e, "boots");
		if (!json_is_array(boots))
			continue;
		size_t earlier = json_array_size(boots) - (has_boot(boots, boot_id) ? 1 : 0);
		if (!has_boot(boots, boot_id)) {
			if (json_array_size(boots) >= MAX_BOOTS)
				json_array_remove(boots, 0);
			if (json_array_append_new(boots, json_string(boot_id)) < 0) {
				r = -ENOMEM;
				break;
			}
		}
		if (earlier >= GA_XID_REPEAT_BOOTS) {
			char *decision = NULL;
			struct ga_buf b;
			ga_buf_init(&b, 0);
			if (ga_buf_addf(
			            &b,
			            "hardware inspection: Xid %llu on %s came back after %zu earlier boots; "
			            "take the GPU out of service and open an RMA",
			            (unsigned long long)xid, fd->subject, earlier) < 0 ||
			    !(decision = ga_buf_detach(&b, NULL)) ||
			    ga_finding_evidence(fd, "earlier_boots", "%zu", earlier) < 0) {
				ga_buf_release(&b);
				ga_free(decision);
				r = -ENOMEM;
				break;
			}
			ga_free(fd->decision);
			fd->decision = decision;
			fd->severity = GA_SEV_CRITICAL;
			fd->action = GA_ACT_REPLACE;
			fd->cause = GA_CAUSE_NODE_HARDWARE;
		}
	}
	if (r == 0) {
		char *text = json_dumps(state, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (!text) {
			r = -ENOMEM;
		} else {
			*ret_state = ga_strdup(text);
			free(text);
			if (!*ret_state)
				r = -ENOMEM;
		}
	}
	json_decref(state);
	return r;
}
