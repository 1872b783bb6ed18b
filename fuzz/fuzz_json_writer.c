/*
 * fuzz_json_writer.c - the JSON writer driven by arbitrary operation
 * sequences, misuse included. Whatever the sequence, ga_json_finish either
 * reports an error or the output is one valid JSON value.
 *
 * Input: byte 0 picks pretty output and an optional size cap; then each op
 * byte (low 4 bits) is followed by its operands.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "gpuaudit/json.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static size_t take(struct in *in, void *dst, size_t want)
{
	size_t n = want < in->n ? want : in->n;
	if (n)
		memcpy(dst, in->p, n);
	in->p += n;
	in->n -= n;
	return n;
}

/* A length byte, then that many bytes; returned NUL-terminated (may contain NULs). */
static char *take_bytes(struct in *in, size_t *ret_len)
{
	uint8_t l = 0;
	take(in, &l, 1);
	char *s = malloc((size_t)l + 1);
	if (!s)
		abort();
	size_t n = take(in, s, l);
	s[n] = '\0';
	*ret_len = n;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	uint8_t mode = 0;
	take(&in, &mode, 1);
	struct ga_buf out;
	ga_buf_init(&out, (mode & 2) ? (size_t)(mode >> 2) * 4 : 0);
	struct ga_json w;
	ga_json_init(&w, &out, mode & 1);

	uint8_t op;
	while (take(&in, &op, 1)) {
		size_t len;
		char *s;
		uint64_t u = 0;
		double d = 0;
		switch (op & 15) {
		case 0:
			ga_json_obj_begin(&w);
			break;
		case 1:
			ga_json_obj_end(&w);
			break;
		case 2:
			ga_json_arr_begin(&w);
			break;
		case 3:
			ga_json_arr_end(&w);
			break;
		case 4:
			s = take_bytes(&in, &len);
			ga_json_key(&w, s);
			free(s);
			break;
		case 5:
			s = take_bytes(&in, &len);
			ga_json_str(&w, s);
			free(s);
			break;
		case 6:
			s = take_bytes(&in, &len);
			ga_json_strn(&w, s, len);
			free(s);
			break;
		case 7:
			take(&in, &u, sizeof(u));
			ga_json_u64(&w, u);
			break;
		case 8:
			take(&in, &u, sizeof(u));
			ga_json_i64(&w, (int64_t)u);
			break;
		case 9:
			take(&in, &u, sizeof(u));
			memcpy(&d, &u, sizeof(d));
			ga_json_dbl(&w, d);
			break;
		case 10:
			ga_json_bool(&w, op & 16);
			break;
		case 11:
			ga_json_null(&w);
			break;
		case 12:
			ga_json_str(&w, NULL);
			break;
		case 13:
			ga_json_key(&w, NULL);
			break;
		default:
			break;
		}
	}
	int r = ga_json_finish(&w);
	if (r == 0) /* u64 beyond INT64_MAX is valid JSON that jansson reads only as a real */
		fuzz_check_json(out.data, out.len, JSON_DECODE_INT_AS_REAL);
	else
		FUZZ_CHECK(r == -EINVAL || r == -E2BIG || r == -ENOMEM);
	ga_buf_release(&out);
	return 0;
}
