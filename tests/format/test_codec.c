/*
 * tests/format/test_codec.c - frame codec 1 (columns), docs/format.md 6.1.
 *
 * Round trips must give back exactly the raw records: through the writer and
 * reader (mixed records, frames without samples falling back to codec 0),
 * and through the codec directly on sample streams that exercise every part
 * of the model: several contexts per frame, more contexts than slots,
 * samples above the 64 modelled words, records of every size, counters that
 * jump or wrap, constant columns. Damaged data must fail cleanly: every
 * truncation of an encoded frame, every flipped byte (decoded under ASan:
 * an error, or records that tile exactly), hostile sizes in the directory
 * without large allocations. Codec 0 files stay readable (test_golden).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "fixup_crcs.h"
#include "testlib.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

#define SAMPLE_ST                                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_READ)

struct codec {
	struct tdr_cols_enc enc;
	struct tdr_cols_dec *dec;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	uint8_t *out; /* decode target */
};

static int setup(void **state)
{
	struct codec *c = calloc(1, sizeof(*c));

	c->cctx = ZSTD_createCCtx();
	c->dctx = ZSTD_createDCtx();
	ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, 3);
	c->out = malloc(8u << 20);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct codec *c = *state;

	tdr_cols_enc__release(&c->enc);
	tdr_cols_dec__release(c->dec);
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	free(c->out);
	free(c);
	return 0;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static uint8_t *put_rec(uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	tdr_put_le32(p, type);
	tdr_put_le16(p + 4, misc);
	tdr_put_le16(p + 6, size);
	return p + 8;
}

/*
 * Samples like the kernel writes them for an inherited group read: id, ip,
 * pid/tid, time, then nr, enabled, running and (value, id) per member, for
 * threads threads on one ring; now and then a LOST or COMM record, a sample
 * of another size, and a sample above 64 words.
 */
static size_t make_stream(uint8_t *buf, size_t cap, uint32_t seed, size_t n, size_t threads,
			  size_t *records)
{
	uint32_t s = seed * 2654435761u + 7;
	uint64_t t = 1000000000ull, val[64][8] = {{0}};
	size_t pos = 0;

	*records = 0;
	for (size_t i = 0; i < n; i++) {
		size_t th = rnd(&s) % threads, members = 4 + (rnd(&s) % 50 == 0 ? 3 : 0);
		uint32_t kind = rnd(&s) % 64;
		uint8_t *p = buf + pos, *b;
		uint16_t size;

		t += 100000 + rnd(&s) % 4000;
		if (kind == 0) { /* LOST */
			size = 24;
			assert_true(pos + size <= cap);
			b = put_rec(p, PERF_RECORD_LOST, 0, size);
			tdr_put_le64(b, 77);
			tdr_put_le64(b + 8, rnd(&s) % 9);
		} else if (kind == 1) { /* COMM with a name */
			size = 40;
			assert_true(pos + size <= cap);
			b = put_rec(p, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, size);
			tdr_put_le32(b, 100);
			tdr_put_le32(b + 4, (uint32_t)(100 + th));
			memcpy(b + 8, "worker-thread\0\0\0", 16);
			tdr_put_le64(b + 24, t);
		} else {
			size_t words = 4 + 3 + 2 * members;

			if (kind == 2)
				words = 70 + rnd(&s) % 10; /* above the modelled columns */
			size = (uint16_t)(8 + 8 * words);
			assert_true(pos + size <= cap);
			b = put_rec(p, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size);
			tdr_put_le64(b, 4242);					  /* id */
			tdr_put_le64(b + 8, 0x401000 + (rnd(&s) % 64) * 4);	  /* ip */
			tdr_put_le64(b + 16, ((uint64_t)(100 + th) << 32) | 100); /* pid/tid */
			tdr_put_le64(b + 24, t + rnd(&s) % 50);
			tdr_put_le64(b + 32, members);
			tdr_put_le64(b + 40, t - 5000);
			tdr_put_le64(b + 48, t - 5000);
			for (size_t k = 0; k < members; k++) {
				/* A counter that wraps, one that jumps, small ones. */
				uint64_t inc = k == 0	? 100000 + rnd(&s) % 300
					       : k == 1 ? (rnd(&s) % 100 == 0 ? 1ull << 40 : 7)
					       : k == 2 ? UINT64_MAX / 3
							: rnd(&s) % 3;

				val[th % 64][k] += inc;
				tdr_put_le64(b + 56 + 16 * k, val[th % 64][k]);
				tdr_put_le64(b + 64 + 16 * k, 4242 + k);
			}
			for (size_t w = 7 + 2 * members; w < words; w++)
				tdr_put_le64(b + 8 * w, ((uint64_t)rnd(&s) << 32) | rnd(&s));
		}
		pos += size;
		(*records)++;
	}
	return pos;
}

/* Encode and decode raw; assert the exact bytes come back. Returns the
 * encoded size. */
static size_t round_trip(struct codec *c, const uint8_t *raw, size_t sz, size_t records,
			 const uint32_t *keys, size_t key_cnt)
{
	const uint8_t *enc;
	size_t esz = 0;

	assert_int_equal(
	    tdr_cols__encode(&c->enc, raw, sz, records, keys, key_cnt, c->cctx, &enc, &esz), 0);
	assert_true(esz <= tdr_cols__max_comp(sz));
	memset(c->out, 0xAA, sz);
	assert_int_equal(
	    tdr_cols__decode(&c->dec, c->dctx, enc, esz, c->out, (uint32_t)sz, (uint32_t)records),
	    0);
	assert_memory_equal(c->out, raw, sz);
	return esz;
}

static void test_codec__round_trip_streams(void **state)
{
	static const uint32_t keys[2] = {0, 2};
	struct codec *c = *state;
	uint8_t *raw = malloc(4u << 20);
	size_t records;

	/* One to 200 threads on a ring (more contexts than the 64 slots),
	 * with keys, with one key, without keys. */
	for (size_t threads = 1; threads <= 200; threads *= 3) {
		size_t sz = make_stream(raw, 4u << 20, (uint32_t)threads, 3000, threads, &records);

		round_trip(c, raw, sz, records, keys, 2);
		round_trip(c, raw, sz, records, keys + 1, 1);
		round_trip(c, raw, sz, records, NULL, 0);
	}
	/* Keys that are not below the columns are ignored, duplicates too. */
	{
		static const uint32_t odd[2] = {63, 63};
		size_t sz = make_stream(raw, 4u << 20, 99, 500, 2, &records);

		round_trip(c, raw, sz, records, odd, 2);
	}
	/* A single sample of each size from 8 bytes (no body) up. */
	for (uint16_t size = 8; size <= 8 + 8 * 80; size += 8) {
		uint8_t *b = put_rec(raw, PERF_RECORD_SAMPLE, 0, size);

		for (uint16_t w = 0; w + 8 < size; w += 8)
			tdr_put_le64(b + w, 0x0123456789abcdefull * (w + 1u));
		round_trip(c, raw, size, 1, keys, 2);
	}
	free(raw);
}

static void test_codec__random_records(void **state)
{
	static const uint32_t keys[2] = {0, 2};
	struct codec *c = *state;
	uint8_t *raw = malloc(1u << 20);
	struct tl_counts cnt = {0};

	/* tl_make_records: samples of many sizes with random words, mixed
	 * with LOST, THROTTLE and COMM records. */
	for (uint32_t seed = 1; seed < 40; seed++) {
		size_t sz = tl_make_records(raw, 1u << 20, seed, 1 + seed * 37, &cnt);
		size_t records = 1 + seed * 37;

		round_trip(c, raw, sz, records, keys, 2);
	}
	free(raw);
}

static void test_codec__smaller_than_codec0(void **state)
{
	static const uint32_t keys[2] = {0, 2};
	struct codec *c = *state;
	uint8_t *raw = malloc(4u << 20), *z = malloc(ZSTD_compressBound(4u << 20));
	size_t records, sz = make_stream(raw, 4u << 20, 5, 20000, 2, &records);
	size_t esz = round_trip(c, raw, sz, records, keys, 2);
	size_t zsz = ZSTD_compressCCtx(c->cctx, z, ZSTD_compressBound(sz), raw, sz, 3);

	/* Not a timing test: the point of the codec, on samples whose
	 * counters move together. */
	assert_false(ZSTD_isError(zsz));
	assert_true(esz * 2 < zsz);
	free(raw);
	free(z);
}

static void test_codec__no_samples_is_refused(void **state)
{
	static const uint32_t keys[2] = {0, 2};
	struct codec *c = *state;
	uint8_t raw[64];
	const uint8_t *enc;
	size_t esz;

	put_rec(raw, PERF_RECORD_LOST, 0, 24);
	memset(raw + 8, 1, 16);
	assert_int_equal(tdr_cols__encode(&c->enc, raw, 24, 1, keys, 2, c->cctx, &enc, &esz), 1);
}

/* Decoding must fail cleanly, or give records that tile the output. */
static void decode_damaged(struct codec *c, const uint8_t *enc, size_t esz, size_t raw_sz,
			   uint32_t records)
{
	int err = tdr_cols__decode(&c->dec, c->dctx, enc, esz, c->out, (uint32_t)raw_sz, records);

	if (!err) {
		struct tdr_record_iter it = {.data = c->out, .sz = raw_sz};
		const struct perf_event_header *h;
		uint32_t n = 0;

		while ((err = tdr_records__next(&it, &h)) > 0)
			n++;
		assert_int_equal(err, 0);
		assert_int_equal(n, records);
	} else {
		assert_true(err == -TDR_E_CORRUPT || err == -TDR_E_ZSTD);
	}
}

static void test_codec__truncated_and_flipped(void **state)
{
	static const uint32_t keys[2] = {0, 2};
	struct codec *c = *state;
	uint8_t *raw = malloc(1u << 20), *copy;
	const uint8_t *enc;
	size_t records, esz, sz = make_stream(raw, 1u << 20, 3, 200, 3, &records);

	tl_quiet();
	assert_int_equal(tdr_cols__encode(&c->enc, raw, sz, records, keys, 2, c->cctx, &enc, &esz),
			 0);
	copy = malloc(esz);
	memcpy(copy, enc, esz);
	/* Every cut is an error: the streams must end exactly. */
	for (size_t cut = 0; cut < esz; cut++) {
		uint8_t *p = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */

		memcpy(p, copy, cut);
		assert_int_not_equal(tdr_cols__decode(&c->dec, c->dctx, p, cut, c->out,
						      (uint32_t)sz, (uint32_t)records),
				     0);
		free(p);
	}
	/* Every byte flipped, one at a time, with several patterns. */
	for (size_t i = 0; i < esz; i++) {
		static const uint8_t pat[] = {0x01, 0x80, 0xFF, 0x40};

		for (size_t k = 0; k < sizeof(pat); k++) {
			uint8_t *p = malloc(esz);

			memcpy(p, copy, esz);
			p[i] ^= pat[k];
			decode_damaged(c, p, esz, sz, (uint32_t)records);
			free(p);
		}
	}
	/* A frame header that lies about the raw size or record count. */
	assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, copy, esz, c->out, (uint32_t)sz - 8,
					  (uint32_t)records),
			 -TDR_E_CORRUPT);
	assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, copy, esz, c->out, (uint32_t)sz,
					  (uint32_t)records + 1),
			 -TDR_E_CORRUPT);
	tl_loud();
	free(copy);
	free(raw);
}

/* Hand-made codec 1 data: block 0 stored, with the directory given. */
static size_t hand_made(uint8_t *p, const uint8_t *dir, size_t dir_sz)
{
	size_t n = 0;

	p[n++] = 0;		  /* block 0 stored */
	p[n++] = (uint8_t)dir_sz; /* raw length (< 128) */
	memcpy(p + n, dir, dir_sz);
	return n + dir_sz;
}

static void test_codec__hostile_directory(void **state)
{
	struct codec *c = *state;
	uint8_t p[64];
	size_t n;

	tl_quiet();
	/* Stream counts that do not fit the layout. */
	{
		static const uint8_t dir[] = {3, 0, 0, 0};

		n = hand_made(p, dir, sizeof(dir));
		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, p, n, c->out, 8, 1),
				 -TDR_E_CORRUPT);
	}
	/* A stream "compressed on its own" claiming 2^40 bytes: refused by
	 * the cap before any allocation (ASan's allocation limit). */
	{
		static const uint8_t dir[] = {4, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1, 5, 0, 0};

		n = hand_made(p, dir, sizeof(dir));
		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, p, n, c->out, 8, 1),
				 -TDR_E_CORRUPT);
	}
	/* Block 0 claiming more raw bytes than the cap allows. */
	{
		static const uint8_t q[] = {1, 0xff, 0xff, 0xff, 0xff, 0x0f, 4, 1, 2, 3, 4};

		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, q, sizeof(q), c->out, 8, 1),
				 -TDR_E_CORRUPT);
	}
	/* An empty block 0 (found by libFuzzer: a null pointer offset). */
	{
		static const uint8_t q0[] = { 0, 0 }, q1[] = { 1, 0, 1, 0 };

		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, q0, sizeof(q0), c->out, 8, 1),
				 -TDR_E_CORRUPT);
		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, q1, sizeof(q1), c->out, 8, 1),
				 -TDR_E_CORRUPT);
	}
	/* A varint of 11 bytes. */
	{
		static const uint8_t q[] = {0,	  0xff, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0xff, 0xff, 0xff, 0x01};

		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, q, sizeof(q), c->out, 8, 1),
				 -TDR_E_CORRUPT);
	}
	/* A valid minimal frame: one 8-byte sample record, no params. */
	{
		static const uint8_t dir[] = {4, 0, 3, 0, 0, 0, 9, 0, 1};
		const struct perf_event_header *h;

		n = hand_made(p, dir, sizeof(dir));
		assert_int_equal(tdr_cols__decode(&c->dec, c->dctx, p, n, c->out, 8, 1), 0);
		h = (const void *)c->out;
		assert_int_equal(h->type, PERF_RECORD_SAMPLE);
		assert_int_equal(h->size, 8);
	}
	tl_loud();
}

/* The writer picks codec 1 for frames with samples and the reader loads
 * them back exactly; a frame without samples stays codec 0. */
static void test_codec__writer_and_reader(void **state)
{
	struct codec *c = *state;
	char *dir = tl_mkdtemp();
	const char *path = tl_path(dir, "c1.tdr");
	struct tdr_writer_opts opts = {.path = path, .codec = TDR_CODEC_COLUMNS};
	struct tdr_frame_buf buf = {0};
	struct tdr_writer *w = NULL;
	struct tdr_reader *r = NULL;
	uint8_t *raw = malloc(1u << 20), lost[24];
	size_t records, sz = make_stream(raw, 1u << 20, 11, 2000, 2, &records);
	struct tdr_meta m;
	uint8_t *file;
	size_t fsz;

	(void)c;
	tl_make_meta(&m);
	for (size_t i = 0; i < m.event_cnt; i++)
		m.events[i].attr.sample_type = SAMPLE_ST; /* keys: id and tid */
	put_rec(lost, PERF_RECORD_LOST, 0, 24);
	memset(lost + 8, 0, 16);
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	assert_int_equal(tdr_writer__add_frame(w, 0, raw, sz), 0);
	assert_int_equal(tdr_writer__add_frame(w, 1, lost, sizeof(lost)), 0);
	assert_int_equal(tdr_writer__totals(w)->records, records + 1);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);

	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_int_equal(tdr_reader__status(r)->minor, 2); /* 3 only with product categories */
	assert_int_equal(tdr_reader__frame_cnt(r), 2);
	assert_int_equal(tdr_reader__frame(r, 0)->codec, TDR_CODEC_COLUMNS);
	assert_int_equal(tdr_reader__frame(r, 1)->codec, TDR_CODEC_RAW_ZSTD);
	assert_int_equal(tdr_reader__load_frame(r, 0, &buf), 0);
	assert_int_equal(buf.sz, sz);
	assert_memory_equal(buf.data, raw, sz);
	assert_int_equal(tdr_reader__load_frame(r, 1, &buf), 0);
	assert_memory_equal(buf.data, lost, sizeof(lost));
	/* The same buffer again (decoder state reused). */
	assert_int_equal(tdr_reader__load_frame(r, 0, &buf), 0);
	assert_memory_equal(buf.data, raw, sz);
	tdr_reader__free(r);

	/* Flipped bytes in the codec 1 payload, checksums fixed up: load
	 * fails cleanly or gives tiling records. */
	assert_int_equal(tl_slurp(path, &file, &fsz), 0);
	tl_quiet();
	for (size_t i = 0; i < 500; i++) {
		uint8_t *p = malloc(fsz);
		struct tl_block blk[8];
		size_t nb = tl_blocks(file, fsz, blk, 8), off;
		int err;

		assert_true(nb >= 3);
		memcpy(p, file, fsz);
		off = blk[1].off + TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ;
		p[off + (i * 7919) % (tdr_get_le64(file + blk[1].off + TDR_BH_PAYLOAD_SZ) -
				      TDR_FRAME_HDR_SZ)] ^= (uint8_t)(1u << (i % 8));
		tdr_test_fixup_crcs(p, fsz);
		if (tdr_reader__open_mem(p, fsz, &r) == 0) {
			if (tdr_reader__frame_cnt(r)) {
				err = tdr_reader__load_frame(r, 0, &buf);
				assert_true(err == 0 || err == -TDR_E_CORRUPT ||
					    err == -TDR_E_ZSTD);
			}
			tdr_reader__free(r);
		}
		free(p);
	}
	tl_loud();
	free(file);
	tdr_frame_buf__release(&buf);
	tdr_meta__clear(&m);
	free(raw);
	tl_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_codec__round_trip_streams),
	    cmocka_unit_test(test_codec__random_records),
	    cmocka_unit_test(test_codec__smaller_than_codec0),
	    cmocka_unit_test(test_codec__no_samples_is_refused),
	    cmocka_unit_test(test_codec__truncated_and_flipped),
	    cmocka_unit_test(test_codec__hostile_directory),
	    cmocka_unit_test(test_codec__writer_and_reader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
