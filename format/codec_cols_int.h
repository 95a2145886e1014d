/*
 * format/codec_cols_int.h - what the encoder and decoder of frame codec 1
 * share: stream numbers, zigzag, varints and the context slot function.
 *
 * Private to format/codec_cols_enc.c and codec_cols_dec.c.
 * See: docs/format.md section 6.1 (normative).
 */
#ifndef TDREC_CODEC_COLS_INT_H
#define TDREC_CODEC_COLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format_int.h"

#define STREAM_PARAMS 0
#define STREAM_HEADERS 1
#define STREAM_OTHER 2
#define STREAM_NEW 3  /* samples that start a context */
#define STREAM_COL0 4 /* then 3 planes per column */
#define METHOD_STORED 0
#define METHOD_ZSTD 1
#define METHOD_CHAIN 2 /* codec 2: block 0 continues the chain's zstd stream */
#define PLACE_INLINE 0	   /* in block 0, after the directory */
#define PLACE_OWN_ZSTD 1   /* its own zstd frame after block 0 */
#define PLACE_OWN_STORED 2 /* stored as it is after block 0 */
/* Streams that compress to less than this join block 0: a zstd frame of
 * their own would cost more in headers and tables than it saves. */
#define OWN_MIN_SZ 128
/* Samples looked at when choosing the predictors of a frame. */
#define PICK_ROWS 128

/* ---------------------------------------------------------------------------
 * Shared model (section 6.1): zigzag, varints, the context table.
 */
static inline uint64_t zz(uint64_t v)
{
	return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static inline uint64_t unzz(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

static inline size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Read a varint from [*p, end). Returns 0, or -1 when it runs past end or is
 * longer than 10 bytes / above 2^64. */
static inline int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b;

		if (q == end || shift > 63)
			return -1;
		b = *q++;
		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	*p = q;
	*v = r;
	return 0;
}

static inline uint32_t ctx_slot(uint64_t n, uint64_t k0, uint64_t k1)
{
	uint64_t h = (n * 0x9E3779B97F4A7C15ull + k0) * 0xC2B2AE3D27D4EB4Full + k1;

	return (uint32_t)((h * 0x165667B19E3779F9ull) >> (64 - TDR_COLS_SLOT_BITS));
}

/* Find the context of a sample of n words with key values k0, k1; a slot
 * holding another context is taken over and starts from the last sample
 * (*fresh is set then). */

static inline bool is_key(const struct tdr_cols_params *pr, size_t j)
{
	return (pr->key_mask >> j) & 1;
}

/* The key values of a sample whose first m words are w. */
static inline void key_values(const struct tdr_cols_params *pr, const uint64_t *w, size_t m,
			      uint64_t *k0, uint64_t *k1)
{
	*k0 = pr->key_cnt > 0 && pr->keys[0] < m ? w[pr->keys[0]] : 0;
	*k1 = pr->key_cnt > 1 && pr->keys[1] < m ? w[pr->keys[1]] : 0;
}

#endif /* TDREC_CODEC_COLS_INT_H */
