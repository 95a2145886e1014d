/*
 * tests/format/test_chain.c - frame codec 2 (chained columns), docs/format.md
 * section 6.2.
 *
 * A writer with codec 2 and a reader must give back exactly the frames that
 * went in: two rings interleaved, chains that restart after
 * TDR_CHAIN_MAX_FRAMES, frames without samples (codec 0) inside a chain,
 * frames whose column count changes (a sample above 64 words), loaded in
 * file order, backwards, at random and on two buffers. The links must count
 * 0, 1, ... per ring and restart. A damaged frame must cost exactly the rest
 * of its chain: its successors fail, the next chain and the other ring load.
 * A frame left out at open (bad frame header) breaks its chain the same way,
 * and a hostile link is refused without a walk or allocation of its size.
 * On small frames codec 2 must be smaller than codec 1 (what it is for).
 * With an argument, writes the file the independent reader decodes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixup_crcs.h"
#include "testlib.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

#define SAMPLE_ST                                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_READ)
#define NFRAMES 80 /* per ring: more than two chains */

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

/* The state of a ring's samples, carried across its frames as a recorder's
 * would be: the time and the counters go on. */
struct ring_gen {
	uint32_t s;
	uint64_t t, val[3][4];
};

/*
 * One frame of n records of a ring: group-read samples of 3 threads (id,
 * ip, pid/tid, time, nr, enabled, running, 4 x (value, id)); frame k % 9 == 4
 * holds no sample at all (codec 0), k % 7 == 3 one sample of 72 words (so
 * the frame models 64 columns instead of 15), now and then a COMM record.
 */
static size_t make_frame(struct ring_gen *g, uint32_t ring, size_t k, uint8_t *buf, size_t n,
			 size_t *records)
{
	size_t pos = 0;

	*records = 0;
	for (size_t i = 0; i < n; i++) {
		size_t th = rnd(&g->s) % 3, words = 15;
		uint8_t *b;
		uint16_t size;

		g->t += 1000000 + rnd(&g->s) % 20000;
		if (k % 9 == 4 || rnd(&g->s) % 40 == 0) {
			size = 40;
			b = put_rec(buf + pos, PERF_RECORD_COMM, 0, size);
			tdr_put_le32(b, 100);
			tdr_put_le32(b + 4, (uint32_t)(100 + th));
			memcpy(b + 8, "worker-thread\0\0\0", 16);
			tdr_put_le64(b + 24, g->t);
		} else {
			if (k % 7 == 3 && i == n / 2)
				words = 72;
			size = (uint16_t)(8 + 8 * words);
			b = put_rec(buf + pos, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size);
			tdr_put_le64(b, 4242 + ring);
			tdr_put_le64(b + 8, 0x401000 + (rnd(&g->s) % 64) * 4);
			tdr_put_le64(b + 16, ((uint64_t)(100 + th) << 32) | 100);
			tdr_put_le64(b + 24, g->t);
			tdr_put_le64(b + 32, 4);
			tdr_put_le64(b + 40, g->t - 5000);
			tdr_put_le64(b + 48, g->t - 5000 - rnd(&g->s) % 3);
			for (size_t m = 0; m < 4; m++) {
				g->val[th][m] += m < 2 ? 1000000 + rnd(&g->s) % 5000 : rnd(&g->s) % 2;
				tdr_put_le64(b + 56 + 16 * m, g->val[th][m]);
				tdr_put_le64(b + 64 + 16 * m, 4242 + ring + 10 * m);
			}
			for (size_t w = 15; w < words; w++)
				tdr_put_le64(b + 8 * w, ((uint64_t)rnd(&g->s) << 32) | rnd(&g->s));
		}
		pos += size;
		(*records)++;
	}
	return pos;
}

struct expect {
	uint8_t *raw[2 * NFRAMES];
	size_t sz[2 * NFRAMES];
	uint32_t ring[2 * NFRAMES];
};

/* Write 2 x NFRAMES frames of n records, rings 0 and 1 interleaved, with
 * codec; keep what went in. Returns the bytes of the frames' payloads. */
static uint64_t write_file(const char *path, uint8_t codec, size_t n, struct expect *e)
{
	struct tdr_writer_opts opts = {.path = path, .codec = codec};
	struct ring_gen g[2] = {{.s = 7, .t = 1000000000ull}, {.s = 99, .t = 1000300000ull}};
	struct tdr_writer *w = NULL;
	struct tdr_meta m;
	uint64_t bytes;

	tl_make_meta(&m);
	for (size_t i = 0; i < m.event_cnt; i++)
		m.events[i].attr.sample_type = SAMPLE_ST; /* keys: id and tid */
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	for (size_t f = 0; f < 2 * NFRAMES; f++) {
		uint32_t ring = f % 2;
		size_t records;

		e->raw[f] = malloc(n * 600);
		e->sz[f] = make_frame(&g[ring], ring, f / 2, e->raw[f], n, &records);
		e->ring[f] = ring;
		assert_int_equal(tdr_writer__add_frame(w, ring, e->raw[f], e->sz[f]), 0);
	}
	bytes = tdr_writer__totals(w)->compressed_bytes;
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	tdr_meta__clear(&m);
	return bytes;
}

static void free_expect(struct expect *e)
{
	for (size_t f = 0; f < 2 * NFRAMES; f++)
		free(e->raw[f]);
}

/* Frame idx of the reader must be frame f written. */
static void assert_frame_at(struct tdr_reader *r, size_t idx, size_t f, struct tdr_frame_buf *buf,
			    const struct expect *e)
{
	assert_int_equal(tdr_reader__load_frame(r, idx, buf), 0);
	assert_int_equal(buf->sz, e->sz[f]);
	assert_memory_equal(buf->data, e->raw[f], e->sz[f]);
}

static void assert_frame(struct tdr_reader *r, size_t f, struct tdr_frame_buf *buf,
			 const struct expect *e)
{
	assert_frame_at(r, f, f, buf, e);
}

static void test_chain__round_trip_in_any_order(void **state)
{
	char *dir = tl_mkdtemp();
	const char *path = tl_path(dir, "c2.tdr");
	struct tdr_frame_buf a = {0}, b = {0};
	struct tdr_reader *r = NULL;
	struct expect e;
	uint32_t s = 5, want_link[2] = {0, 0};

	(void)state;
	write_file(path, TDR_CODEC_CHAINED, 60, &e);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_int_equal(tdr_reader__status(r)->minor, 4);
	assert_int_equal(tdr_reader__frame_cnt(r), 2 * NFRAMES);
	for (size_t f = 0; f < 2 * NFRAMES; f++) {
		const struct tdr_frame_info *fi = tdr_reader__frame(r, f);
		uint32_t ring = e.ring[f];

		assert_int_equal(fi->ring, ring);
		if ((f / 2) % 9 == 4) { /* no sample: codec 0, outside the chain */
			assert_int_equal(fi->codec, TDR_CODEC_RAW_ZSTD);
			assert_int_equal(fi->link, 0);
			continue;
		}
		assert_int_equal(fi->codec, TDR_CODEC_CHAINED);
		assert_int_equal(fi->link, want_link[ring]);
		want_link[ring] = (want_link[ring] + 1) % TDR_CHAIN_MAX_FRAMES;
	}
	/* File order, alternating two buffers. */
	for (size_t f = 0; f < 2 * NFRAMES; f++)
		assert_frame(r, f, f % 2 ? &a : &b, &e);
	/* Backwards: every frame replays its chain. */
	for (size_t f = 2 * NFRAMES; f-- > 0;)
		assert_frame(r, f, &a, &e);
	/* At random, and the same frame twice in a row. */
	for (size_t i = 0; i < 200; i++) {
		size_t f = rnd(&s) % (2 * NFRAMES);

		assert_frame(r, f, &b, &e);
		if (i % 50 == 0)
			assert_frame(r, f, &a, &e);
	}
	tdr_reader__free(r);
	tdr_frame_buf__release(&a);
	tdr_frame_buf__release(&b);
	free_expect(&e);
	tl_rmdir(dir);
}

/* Frame f's index in the list after frame `gone` was left out. */
static size_t listed(size_t f, size_t gone)
{
	return gone != SIZE_MAX && f > gone ? f - 1 : f;
}

/*
 * Damage frame `bad` (payload, or frame header when hdr): the frames of its
 * chain from it on fail, every other frame loads. Frame f of ring f % 2 is
 * the (f / 2)th of its ring; its chain holds the codec 2 frames of the ring
 * between two restarts.
 */
static void damage_costs_the_rest_of_the_chain(size_t bad, bool hdr)
{
	char *dir = tl_mkdtemp();
	const char *path = tl_path(dir, "c2.tdr");
	struct tdr_frame_buf buf = {0};
	struct tdr_reader *r = NULL;
	struct tl_block blk[4 * NFRAMES];
	uint32_t link[2 * NFRAMES];
	struct expect e;
	uint8_t *file;
	size_t fsz, nb, gone = hdr ? bad : SIZE_MAX;

	write_file(path, TDR_CODEC_CHAINED, 40, &e);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	for (size_t f = 0; f < 2 * NFRAMES; f++)
		link[f] = tdr_reader__frame(r, f)->codec == TDR_CODEC_CHAINED
			      ? tdr_reader__frame(r, f)->link
			      : UINT32_MAX;
	tdr_reader__free(r);
	assert_int_equal(tl_slurp(path, &file, &fsz), 0);
	nb = tl_blocks(file, fsz, blk, 4 * NFRAMES);
	assert_true(nb > 2 * NFRAMES);
	/* Block 0 is the metadata, then the frames in order. */
	if (hdr)
		file[blk[1 + bad].off + TDR_BLOCK_HDR_SZ + TDR_FR_RAW_SZ] ^= 1; /* frame_crc */
	else
		file[blk[1 + bad].off + TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ + 2] ^= 0x10;
	tl_quiet();
	assert_int_equal(tdr_reader__open_mem(file, fsz, &r), 0);
	assert_int_equal(tdr_reader__frame_cnt(r), 2 * NFRAMES - (hdr ? 1 : 0));
	for (size_t f = 0; f < 2 * NFRAMES; f++) {
		bool lost = false;

		if (f == gone)
			continue;
		if (f == bad) {
			lost = true;
		} else if (f > bad && f % 2 == bad % 2 && link[f] != UINT32_MAX &&
			   link[f] > link[bad]) {
			/* Same ring, later, and no restart since the bad one:
			 * every codec 2 frame in between has a link above. */
			lost = true;
			for (size_t g = bad + 2; g < f; g += 2)
				if (link[g] == 0)
					lost = false;
		}
		if (lost) {
			int err = tdr_reader__load_frame(r, listed(f, gone), &buf);

			assert_true(err == -TDR_E_CORRUPT || err == -TDR_E_ZSTD);
		} else {
			assert_frame_at(r, listed(f, gone), f, &buf, &e);
		}
	}
	tl_loud();
	tdr_reader__free(r);
	tdr_frame_buf__release(&buf);
	free(file);
	free_expect(&e);
	tl_rmdir(dir);
}

static void test_chain__damaged_frame_costs_its_chain(void **state)
{
	(void)state;
	/* Ring 0's frame 10 (link 9 in the first chain); ring 1's frame 70
	 * (second chain); a chain's first frame. */
	damage_costs_the_rest_of_the_chain(20, false);
	damage_costs_the_rest_of_the_chain(141, false);
	damage_costs_the_rest_of_the_chain(0, false);
}

static void test_chain__frame_left_out_breaks_its_chain(void **state)
{
	(void)state;
	damage_costs_the_rest_of_the_chain(20, true);
	damage_costs_the_rest_of_the_chain(141, true);
}

static void test_chain__smaller_than_codec1_on_small_frames(void **state)
{
	char *dir = tl_mkdtemp();
	struct expect e1, e2;
	uint64_t c1, c2;

	(void)state;
	c1 = write_file(tl_path(dir, "c1.tdr"), TDR_CODEC_COLUMNS, 60, &e1);
	c2 = write_file(tl_path(dir, "c2.tdr"), TDR_CODEC_CHAINED, 60, &e2);
	for (size_t f = 0; f < 2 * NFRAMES; f++)
		assert_memory_equal(e1.raw[f], e2.raw[f], e1.sz[f]);
	print_message("codec 1: %llu bytes, codec 2: %llu bytes\n", (unsigned long long)c1,
		      (unsigned long long)c2);
	assert_true(c2 < c1);
	free_expect(&e1);
	free_expect(&e2);
	tl_rmdir(dir);
}

/* Flipped bytes, checksums fixed up: loads fail cleanly or give records
 * that tile (the reader checks), never a crash (ASan). */
static void test_chain__flipped_bytes(void **state)
{
	char *dir = tl_mkdtemp();
	const char *path = tl_path(dir, "c2.tdr");
	struct tdr_frame_buf buf = {0};
	struct expect e;
	uint8_t *file;
	size_t fsz;

	(void)state;
	write_file(path, TDR_CODEC_CHAINED, 10, &e);
	assert_int_equal(tl_slurp(path, &file, &fsz), 0);
	tl_quiet();
	for (size_t i = 0; i < 300; i++) {
		uint8_t *p = malloc(fsz);
		struct tdr_reader *r;

		memcpy(p, file, fsz);
		p[TDR_FILE_HDR_SZ + (i * 7919) % (fsz - TDR_FILE_HDR_SZ)] ^= (uint8_t)(1u << (i % 8));
		tdr_test_fixup_crcs(p, fsz);
		if (tdr_reader__open_mem(p, fsz, &r) == 0) {
			for (size_t f = 0; f < tdr_reader__frame_cnt(r) && f < 12; f++) {
				int err = tdr_reader__load_frame(r, f, &buf);

				assert_true(err == 0 || err == -TDR_E_CORRUPT ||
					    err == -TDR_E_ZSTD || err == -TDR_E_LIMIT);
			}
			tdr_reader__free(r);
		}
		free(p);
	}
	tl_loud();
	tdr_frame_buf__release(&buf);
	free(file);
	free_expect(&e);
	tl_rmdir(dir);
}

/* A link above the frames before it (a hostile 2^24 - 1) is refused
 * without walking or allocating for it; the frames before still load. */
static void test_chain__hostile_link(void **state)
{
	char *dir = tl_mkdtemp();
	const char *path = tl_path(dir, "c2.tdr");
	struct tdr_frame_buf buf = {0};
	struct tdr_reader *r = NULL;
	struct tl_block blk[4 * NFRAMES];
	struct expect e;
	uint8_t *file;
	size_t fsz;

	(void)state;
	write_file(path, TDR_CODEC_CHAINED, 10, &e);
	assert_int_equal(tl_slurp(path, &file, &fsz), 0);
	assert_true(tl_blocks(file, fsz, blk, 4 * NFRAMES) > 3);
	/* Frame 2 (ring 0, link 1). */
	memset(file + blk[3].off + TDR_BLOCK_HDR_SZ + TDR_FR_LINK, 0xff, 3);
	tdr_test_fixup_crcs(file, fsz);
	tl_quiet();
	assert_int_equal(tdr_reader__open_mem(file, fsz, &r), 0);
	assert_int_equal(tdr_reader__frame(r, 2)->link, 0xffffff);
	assert_int_equal(tdr_reader__load_frame(r, 2, &buf), -TDR_E_CORRUPT);
	assert_frame(r, 0, &buf, &e);
	assert_frame(r, 1, &buf, &e);
	/* Ring 0's next frame (link 2) finds a predecessor with another link. */
	assert_int_equal(tdr_reader__load_frame(r, 4, &buf), -TDR_E_CORRUPT);
	tl_loud();
	tdr_reader__free(r);
	tdr_frame_buf__release(&buf);
	free(file);
	free_expect(&e);
	tl_rmdir(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chain__round_trip_in_any_order),
	    cmocka_unit_test(test_chain__damaged_frame_costs_its_chain),
	    cmocka_unit_test(test_chain__frame_left_out_breaks_its_chain),
	    cmocka_unit_test(test_chain__smaller_than_codec1_on_small_frames),
	    cmocka_unit_test(test_chain__flipped_bytes),
	    cmocka_unit_test(test_chain__hostile_link),
	};

	if (argc == 2) { /* the file for the independent reader */
		struct expect e;

		write_file(argv[1], TDR_CODEC_CHAINED, 30, &e);
		free_expect(&e);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
