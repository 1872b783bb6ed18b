/*
 * decomp.h - the few zlib and zstd entry points the CCOB reader needs, with
 * our own declarations: the libraries are loaded on first use (lib/dl, rows
 * ZLIB and ZSTD: libz.so.1, libzstd.so.1), so libgpuaudit links neither.
 * tests/unit/test_elfscan_decomp.c checks these declarations against <zlib.h>
 * and <zstd.h>.
 */
#ifndef GA_DECOMP_H
#define GA_DECOMP_H

#include <stddef.h>
#include <stdint.h>

/* zlib's z_stream (zlib.h), field for field */
struct ga_z_stream {
	const uint8_t *next_in;
	unsigned avail_in;
	unsigned long total_in;
	uint8_t *next_out;
	unsigned avail_out;
	unsigned long total_out;
	const char *msg;
	void *state;
	void *zalloc;
	void *zfree;
	void *opaque;
	int data_type;
	unsigned long adler;
	unsigned long reserved;
};
#define GA_Z_OK 0
#define GA_Z_STREAM_END 1
#define GA_Z_BUF_ERROR (-5)
#define GA_Z_NO_FLUSH 0
typedef int (*ga_inflateInit_fn)(struct ga_z_stream *, const char *version, int stream_size);
typedef int (*ga_inflate_fn)(struct ga_z_stream *, int flush);
typedef int (*ga_inflateEnd_fn)(struct ga_z_stream *);

/* zstd's streaming buffers (zstd.h) */
struct ga_zstd_in {
	const void *src;
	size_t size;
	size_t pos;
};
struct ga_zstd_out {
	void *dst;
	size_t size;
	size_t pos;
};
typedef void *(*ga_ZSTD_createDStream_fn)(void);
typedef size_t (*ga_ZSTD_freeDStream_fn)(void *);
typedef size_t (*ga_ZSTD_initDStream_fn)(void *);
typedef size_t (*ga_ZSTD_decompressStream_fn)(void *, struct ga_zstd_out *, struct ga_zstd_in *);
typedef unsigned (*ga_ZSTD_isError_fn)(size_t);

/*
 * Decompress the first bytes of a zlib (method 0) or zstd (method 1) stream
 * into out[0..cap): returns the bytes produced (>= 0; fewer than cap when the
 * stream ends), -ENOSYS when the library is not available, -EBADMSG on a
 * corrupt stream.
 */
long ga_decompress_prefix(int method, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap);

#endif
