/*
 * tests/parser/test_preload.c - frames loaded on the helper thread
 * (parser/preload.c) give exactly what loading them in line gives.
 *
 * A file with two rings of many small frames each (interleaved in the
 * file, timestamps interleaved across rings, codec 0 and codec 1 frames,
 * some frames damaged) is parsed twice: with the helper (the default on a
 * machine with two or more CPUs) and without it (debug logging keeps the
 * parser on one thread). Both runs must deliver the same samples, in the
 * same order, with the same deltas, and count the same bad frames. On a
 * single-CPU machine both runs take the in-line path and the test still
 * checks the result against the expected sample count.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "parser/parser_fixture.h"
#include "tdrec/tdr_err.h"
#include "support/test_log.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define RINGS 2	    /* the fixture has ids for two CPUs */
#define FRAMES 40   /* per ring */
#define PER_FRAME 7 /* samples per frame */

struct seen {
	uint64_t *h; /* one hash per delivered sample */
	size_t n, cap;
};

static int seen_cb(const struct tdr_sample *s, void *ctx)
{
	struct seen *v = ctx;
	uint64_t h = s->time_ns * 31 + s->ip;

	for (int i = 0; i < 6; i++)
		h = h * 1000003 + s->deltas[i];
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->h = realloc(v->h, v->cap * sizeof(*v->h)); /* test code: plain libc */
		assert_non_null(v->h);
	}
	v->h[v->n++] = h;
	return 0;
}

/* Write the file; frames listed in bad[] get a flipped payload byte.
 * Returns the number of samples in good frames. */
static size_t write_file(const char *path, uint8_t codec, const size_t *bad, size_t bad_cnt)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct tdr_writer_opts o = {.path = path, .codec = codec};
	struct synth_sid sid = fx_sid(0, 11, 1);
	uint64_t slots[RINGS][4] = {{0}};
	struct synth_buf b = {0};
	struct tdr_writer *w;
	size_t good = 0, frame = 1;

	f->meta.plan_name = strdup("topdown-l1");
	assert_int_equal(tdr_writer__open(&o, &f->meta, &w), 0);
	synth_mmap(&b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	synth_comm(&b, &f->attr, FX_PID, 11, "app", false, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	for (size_t k = 0; k < FRAMES; k++) {
		for (unsigned ring = 0; ring < RINGS; ring++, frame++) {
			bool is_bad = false;

			for (size_t i = 0; i < bad_cnt; i++)
				is_bad |= bad[i] == frame;
			synth_buf_reset(&b);
			for (size_t i = 0; i < PER_FRAME; i++) {
				uint32_t tid = 11 + (uint32_t)(i % 4);
				uint64_t t = 1000 + (k * PER_FRAME + i) * 10 + ring * 3;

				slots[ring][tid - 11] += 100 + (k * 7 + i * 13 + ring) % 50;
				fx_add_l1_sample(f, &b, ring, tid, t, FX_IP_A + (i % 3) * 0x10,
						 slots[ring][tid - 11]);
			}
			assert_int_equal(tdr_writer__add_frame(w, ring, b.data, b.sz), 0);
			if (!is_bad)
				good += PER_FRAME;
		}
	}
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	fx_free(f);

	/* Damage the chosen frames: a byte in the middle of the payload. */
	if (bad_cnt) {
		struct tdr_reader *rd;
		FILE *fp = fopen(path, "r+b");

		assert_int_equal(tdr_reader__open(path, &rd), 0);
		assert_non_null(fp);
		for (size_t i = 0; i < bad_cnt; i++) {
			const struct tdr_frame_info *fi = tdr_reader__frame(rd, bad[i]);
			long off = (long)(fi->offset + 24 + 24 + fi->comp_sz / 2);
			int c;

			fseek(fp, off, SEEK_SET);
			c = fgetc(fp);
			fseek(fp, off, SEEK_SET);
			fputc(c ^ 0x5a, fp);
		}
		fclose(fp);
		tdr_reader__free(rd);
	}
	return good;
}

static void parse(const char *path, bool debug, struct seen *out, uint64_t *bad_frames)
{
	struct tdr_parser *p;

	memset(out, 0, sizeof(*out));
	test_log_quiet();
	tdr_log_set_level(debug ? TDR_LOG_DEBUG : TDR_LOG_INFO);
	assert_int_equal(tdr_parser__open(path, &p), 0);
	assert_int_equal(tdr_parser__run(p, seen_cb, out), 0);
	*bad_frames = tdr_parser__stats(p)->bad_frames;
	tdr_parser__free(p);
	tdr_log_set_level(TDR_LOG_INFO);
	test_log_stop();
}

static void check(uint8_t codec, const size_t *bad, size_t bad_cnt)
{
	char dir[] = "/tmp/tdr-preload-XXXXXX", path[64];
	struct seen a, b;
	uint64_t bad_a, bad_b;
	size_t good;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.tdr", dir);
	good = write_file(path, codec, bad, bad_cnt);
	parse(path, false, &a, &bad_a);
	parse(path, true, &b, &bad_b);
	assert_int_equal(a.n, good);
	assert_int_equal(b.n, good);
	assert_memory_equal(a.h, b.h, a.n * sizeof(*a.h));
	assert_int_equal(bad_a, bad_cnt);
	assert_int_equal(bad_b, bad_cnt);
	free(a.h);
	free(b.h);
	unlink(path);
	rmdir(dir);
}

static void test_preload__same_as_in_line(void **state)
{
	(void)state;
	check(TDR_CODEC_RAW_ZSTD, NULL, 0);
	check(TDR_CODEC_COLUMNS, NULL, 0);
	check(TDR_CODEC_CHAINED, NULL, 0); /* chains decoded by the helper */
}

static void test_preload__damaged_frames_skipped_alike(void **state)
{
	/* The first frame of ring 0, two in a row of ring 1, the last. */
	static const size_t bad[] = {1, 4, 6, 9, RINGS * FRAMES};

	(void)state;
	check(TDR_CODEC_RAW_ZSTD, bad, TDR_ARRAY_SIZE(bad));
	check(TDR_CODEC_COLUMNS, bad, TDR_ARRAY_SIZE(bad));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_preload__same_as_in_line),
	    cmocka_unit_test(test_preload__damaged_frames_skipped_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
