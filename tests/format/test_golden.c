/*
 * tests/format/test_golden.c - read the golden .tdr file of tests/data/.
 *
 * tests/data/golden-v1.0-tdrec-0.1.0.tdr was written by format 1.0 (tdrec
 * 0.1.0) with "test_golden --write GOLDEN CORPUS_DIR", which also writes the
 * seed corpus of the reader's fuzz target. This test checks that the reader
 * of this version still reads that file with exactly the known values below;
 * it must keep passing as long as the format's major version is 1. Do not
 * regenerate the file to make it pass: a failure means old files broke.
 *
 * tests/data/real-v1.1-tdrec-0.1.0-software.tdr is a real recording (format
 * 1.1: its two frames, one per CPU, hold samples and use codec 1) of a
 * three-thread program by tdrec 0.1.0 with the software plan; its frames
 * must keep decoding to records that tile them, with the counts and ids
 * below.
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

#include "testlib.h"
#include "tdrec/tdr_err.h"

#define GOLDEN "golden-v1.0-tdrec-0.1.0.tdr"
#define REAL_1_1 "real-v1.1-tdrec-0.1.0-software.tdr"

static void test_golden__reads_known_values(void **state)
{
	const char *src = getenv("TDR_SOURCE_DIR");
	char path[4096];
	struct tdr_frame_buf buf = { 0 };
	const struct perf_event_header *h;
	const struct tdr_event_desc *e;
	const struct tdr_category *c;
	const struct tdr_meta *m;
	const struct tdr_totals *t;
	struct tdr_record_iter it;
	struct tdr_reader *r = NULL;
	const void *d;
	size_t dsz;

	(void)state;
	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/tests/data/%s", src, GOLDEN);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_int_equal(tdr_reader__status(r)->major, 1);
	assert_int_equal(tdr_reader__status(r)->minor, 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_false(tdr_reader__status(r)->truncated);

	m = tdr_reader__meta(r);
	assert_string_equal(m->tdrec_version, "0.1.0");
	assert_int_equal(m->argc, 6);
	assert_string_equal(m->argv[5], "./app");
	assert_string_equal(m->hostname, "testhost");
	assert_string_equal(m->kernel_release, "6.18.0-test");
	assert_string_equal(m->cpu_vendor, "GenuineIntel");
	assert_string_equal(m->cpu_model_name, "Intel(R) Xeon(R) Platinum 8480+");
	assert_int_equal(m->cpu_family, 6);
	assert_int_equal(m->cpu_model, 0x8f);
	assert_int_equal(m->cpu_stepping, 8);
	assert_int_equal(m->page_sz, 4096);
	assert_int_equal(m->nr_cpus, 2);
	assert_string_equal(m->plan_name, "topdown-l2");
	assert_int_equal(m->flags, TDR_META_INHERIT | TDR_META_KERNEL);
	assert_int_equal(m->clockid, 1);
	assert_int_equal(m->start_wall_ns, 1700000000123456789ull);
	assert_int_equal(m->start_clock_ns, 987654321ull);
	assert_int_equal(m->sample_freq, 4000);
	assert_int_equal(m->event_cnt, 10);
	e = &m->events[7];
	assert_string_equal(e->name, "topdown-br-mispredict");
	assert_string_equal(e->pmu_name, "cpu_core");
	assert_int_equal(e->attr.type, 4);
	assert_int_equal(e->attr.config, 0x407);
	assert_int_equal(e->attr.read_format, PERF_FORMAT_GROUP | PERF_FORMAT_ID);
	assert_int_equal(e->attr_disk_sz, 128); /* written with linux 6.1 headers (VER7) */
	assert_int_equal(e->id_cnt, 2);
	assert_int_equal(e->ids[1].cpu, 1);
	assert_int_equal(e->ids[1].pid, 4242);
	assert_int_equal(e->ids[1].id, 2007);
	assert_int_equal(m->events[1].flags, TDR_EVENT_SAMPLER);
	assert_int_equal(m->category_cnt, 12);
	c = &m->categories[9];
	assert_string_equal(c->name, "machine-clears");
	assert_string_equal(c->parent, "bad-spec");
	assert_int_equal(c->level, 2);
	assert_int_equal(c->flags, TDR_CATEGORY_DERIVED);
	assert_int_equal(c->num_cnt, 2);
	assert_int_equal(c->num[1].event_idx, 7);
	assert_true(c->num[1].coef == -1.0);
	assert_int_equal(m->note_cnt, 2);
	assert_string_equal(m->notes[0], "plan topdown-l2 chosen");

	assert_int_equal(tdr_reader__frame_cnt(r), 4);
	assert_int_equal(tdr_reader__frame(r, 3)->ring, TDR_RING_SYNTHETIC);
	assert_int_equal(tdr_reader__frame(r, 1)->record_cnt, 9);
	assert_int_equal(tdr_reader__load_frame(r, 1, &buf), 0);
	it = (struct tdr_record_iter){ .data = buf.data, .sz = buf.sz };
	assert_int_equal(tdr_records__next(&it, &h), 1);
	assert_int_equal(h->type, PERF_RECORD_UNTHROTTLE);
	assert_int_equal(h->size, 32);
	assert_int_equal(buf.sz, 416);
	tdr_frame_buf__release(&buf);

	t = tdr_reader__totals(r);
	assert_non_null(t);
	assert_int_equal(t->frames, 4);
	assert_int_equal(t->records, 44);
	assert_int_equal(t->samples, 20);
	assert_int_equal(t->lost_records, 9);
	assert_int_equal(t->lost_samples, 312);
	assert_int_equal(t->event_cnt, 10);
	assert_int_equal(t->events[9].samples, 907);
	assert_int_equal(tdr_reader__run_end(r)->duration_ns, 1234567890);
	assert_int_equal(tdr_reader__run_end(r)->exit_code, 3);
	assert_int_equal(tdr_reader__section(r, TDR_SECTION_DSO_TABLE, &d, &dsz), 0);
	assert_int_equal(dsz, sizeof(TL_DSO_SECTION));
	assert_memory_equal(d, TL_DSO_SECTION, dsz);
	tdr_reader__free(r);
}

/* ---------------------------------------------------------------------------
 * Writing the golden file and the seed corpus (run by hand, see the top).
 */

/* A small metadata: one software event. */
static void small_meta(struct tdr_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->tdrec_version = strdup("0.1.0");
	m->plan_name = strdup("software");
	m->clockid = -1;
	m->page_sz = 4096;
	m->event_cnt = 1;
	m->events = calloc(1, sizeof(*m->events));
	m->events[0].name = strdup("cpu-clock");
	m->events[0].pmu_name = strdup("software");
	m->events[0].attr.type = PERF_TYPE_SOFTWARE;
	m->events[0].attr.size = sizeof(m->events[0].attr);
	m->events[0].attr.sample_period = 100000;
	m->events[0].flags = TDR_EVENT_LEADER | TDR_EVENT_SAMPLER;
	m->events[0].id_cnt = 1;
	m->events[0].ids = calloc(1, sizeof(struct tdr_event_id));
	m->events[0].ids[0] = (struct tdr_event_id){ 0, UINT32_MAX, 77 };
}

static int write_small(const char *path, bool finish, uint8_t codec)
{
	struct tdr_writer_opts opts = { .path = path, .codec = codec };
	struct tdr_event_totals ev = { .samples = 3 };
	struct tdr_run_end end = { .duration_ns = 1000 };
	struct tl_counts c = { 0 };
	struct tdr_writer *w = NULL;
	uint8_t recs[2][512];
	size_t sz[2];
	struct tdr_meta m;
	int err;

	small_meta(&m);
	sz[0] = tl_make_records(recs[0], sizeof(recs[0]), 1, 3, &c);
	sz[1] = tl_make_records(recs[1], sizeof(recs[1]), 2, 4, &c);
	err = tdr_writer__open(&opts, &m, &w);
	tdr_meta__clear(&m);
	if (!err)
		err = tdr_writer__add_frame(w, 0, recs[0], sz[0]);
	if (!err)
		err = tdr_writer__add_section(w, TDR_SECTION_DSO_TABLE, "dso", 3);
	if (!err)
		err = tdr_writer__add_frame(w, 1, recs[1], sz[1]);
	if (!err && finish)
		err = tdr_writer__finish(w, &ev, 1, &end);
	tdr_writer__free(w);
	return err;
}

static int write_bytes(const char *dir, const char *name, const uint8_t *p, size_t sz)
{
	FILE *f = fopen(tl_path(dir, name), "wb");

	if (!f || fwrite(p, 1, sz, f) != sz)
		return -EIO;
	return fclose(f) ? -EIO : 0;
}

static int write_all(const char *golden, const char *corpus)
{
	struct tl_std std;
	struct tl_block blk[8];
	uint8_t *p;
	size_t sz;
	int err;

	tl_std_init(&std);
	err = tl_write_std(golden, &std, true);
	if (err)
		return err;
	err = write_small(tl_path(corpus, "small-valid.tdr"), true, TDR_CODEC_RAW_ZSTD);
	if (!err)
		err = write_small(tl_path(corpus, "small-no-trailer.tdr"), false, TDR_CODEC_RAW_ZSTD);
	if (!err) /* format 1.1: frames in codec 1 */
		err = write_small(tl_path(corpus, "small-codec1.tdr"), true, TDR_CODEC_COLUMNS);
	if (!err)
		err = tl_slurp(tl_path(corpus, "small-valid.tdr"), &p, &sz);
	if (err)
		return err;
	assert_int_equal(tl_blocks(p, sz, blk, 8), 5);
	/* Cut inside the second frame; flip a byte of the first frame's data;
	 * the header and metadata alone. */
	err = write_bytes(corpus, "small-cut.tdr", p, (size_t)blk[3].off + 30);
	if (!err)
		err = write_bytes(corpus, "small-meta-only.tdr", p, (size_t)blk[0].end);
	p[blk[1].off + TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ + 2] ^= 0x40;
	if (!err)
		err = write_bytes(corpus, "small-flipped.tdr", p, sz);
	free(p);
	return err;
}

static void test_golden__real_1_1_recording_reads(void **state)
{
	const char *src = getenv("TDR_SOURCE_DIR");
	struct tdr_frame_buf buf = { 0 };
	const struct perf_event_header *h;
	uint64_t records = 0, samples = 0;
	const struct tdr_meta *m;
	const struct tdr_totals *t;
	struct tdr_reader *r = NULL;
	bool codec[2] = { false, false };
	char path[4096];

	(void)state;
	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/tests/data/%s", src, REAL_1_1);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_int_equal(tdr_reader__status(r)->major, 1);
	assert_int_equal(tdr_reader__status(r)->minor, 1);
	assert_false(tdr_reader__status(r)->truncated);
	m = tdr_reader__meta(r);
	assert_string_equal(m->tdrec_version, "0.1.0");
	assert_string_equal(m->plan_name, "software");
	assert_int_equal(m->event_cnt, 4);
	assert_string_equal(m->events[0].name, "cpu-clock");
	assert_int_equal(m->events[0].flags, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER);
	assert_int_equal(m->events[0].attr.sample_freq, 4000);
	assert_int_equal(m->events[3].id_cnt, 2);
	assert_int_equal(m->events[3].ids[1].cpu, 1);
	assert_int_equal(m->events[3].ids[1].id, 15899);
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++) {
		struct tdr_record_iter it;

		codec[tdr_reader__frame(r, i)->codec & 1] = true;
		assert_int_equal(tdr_reader__load_frame(r, i, &buf), 0);
		it = (struct tdr_record_iter){ .data = buf.data, .sz = buf.sz };
		while (tdr_records__next(&it, &h) > 0) {
			records++;
			samples += h->type == PERF_RECORD_SAMPLE;
		}
	}
	assert_true(codec[1]); /* both of its frames hold samples: codec 1 */
	t = tdr_reader__totals(r);
	assert_non_null(t);
	assert_int_equal(t->frames, 2);
	assert_int_equal(records, 392);
	assert_int_equal(samples, 380);
	assert_int_equal(t->records, records);
	assert_int_equal(t->samples, samples);
	assert_int_equal(tdr_reader__run_end(r)->exit_code, 7);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden__reads_known_values),
		cmocka_unit_test(test_golden__real_1_1_recording_reads),
	};

	if (argc == 4 && !strcmp(argv[1], "--write")) {
		int err = write_all(argv[2], argv[3]);

		if (err)
			fprintf(stderr, "test_golden: %s\n", tdr_strerror(err));
		return err ? 1 : 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
