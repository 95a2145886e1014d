/*
 * tests/parser/test_decode.c - record decoding: layouts and hostile sizes.
 *
 * Field positions for several sample_type combinations (id found by
 * IDENTIFIER, by id_pos, in trailers by is_pos), and every way a record can
 * lie about its size: each must be counted and skipped, never crash (the
 * suite runs under ASan/UBSan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parser/parser_fixture.h"
#include "tdrec/tdr_mem.h"

struct got {
	struct tdr_sample s;
	uint64_t d[4];
	unsigned n;
};

static int got_cb(const struct tdr_sample *s, void *ctx)
{
	struct got *g = ctx;

	g->s = *s;
	memcpy(g->d, s->deltas, 2 * sizeof(g->d[0])); /* the two-event meta below */
	g->n++;
	return 0;
}

/* Truncating a valid group sample at every 8-byte boundary: each is malformed. */
static void test_decode__truncated_sample_at_every_size(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t v[] = { 1000, 250, 400, 100, 300, 200 };
	struct perf_event_header *h;
	unsigned cuts = 0;
	uint16_t full, sz;

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, v), 0);
	assert_int_equal(f->delivered, 1);
	h = (struct perf_event_header *)f->b.data;
	full = h->size;
	for (sz = 0; sz < full; sz += 4) {
		h->size = sz;
		assert_int_equal(tdr_parser__feed(f->p, 0, h, fx_cb, f), 0);
		cuts++;
	}
	assert_int_equal(tdr_parser__stats(f->p)->malformed_records, cuts);
	assert_int_equal(f->delivered, 1);
	fx_free(f);
}

static void test_decode__group_nr_too_large(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t v[] = { 1000, 250, 400, 100, 300, 200 };
	/* nr sits after IDENTIFIER, IP, TID, TIME, CPU, PERIOD: u64 index 6 */
	uint64_t bad[] = { 7, 1000, 1ULL << 61, UINT64_MAX };
	uint8_t *body;

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, v), 0);
	body = f->b.data + sizeof(struct perf_event_header);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(bad); i++) {
		memcpy(body + 6 * 8, &bad[i], 8);
		assert_int_equal(fx_feed_last(f, 0, 0), 0);
	}
	assert_int_equal(tdr_parser__stats(f->p)->malformed_records, 4);
	assert_int_equal(f->delivered, 1);
	fx_free(f);
}

static void test_decode__bogus_records_counted(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	const struct tdr_parse_stats *st = tdr_parser__stats(f->p);
	uint8_t junk[80];
	struct perf_event_header *h;
	size_t off;

	(void)state;
	/* unknown type: skipped and counted */
	memset(junk, 0xab, sizeof(junk));
	off = synth_raw(&f->b, 99, 0, junk, sizeof(junk));
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	assert_int_equal(st->unknown_records, 1);
	/* MMAP2 whose file name has no NUL */
	synth_buf_reset(&f->b);
	off = synth_raw(&f->b, PERF_RECORD_MMAP2, 0, junk, sizeof(junk));
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	/* (An MMAP2 build-id above 20 bytes: test_mmap2_build_id.c, which
	 * has an event with attr.build_id; here the flag would not count.) */
	/* records shorter than their fixed part */
	static const uint32_t types[] = { PERF_RECORD_COMM,	    PERF_RECORD_FORK,
					  PERF_RECORD_EXIT,	    PERF_RECORD_LOST,
					  PERF_RECORD_LOST_SAMPLES, PERF_RECORD_THROTTLE,
					  PERF_RECORD_MMAP,	    PERF_RECORD_SAMPLE };
	for (size_t i = 0; i < TDR_ARRAY_SIZE(types); i++) {
		synth_buf_reset(&f->b);
		off = synth_raw(&f->b, types[i], 0, junk, 4);
		h = (struct perf_event_header *)(f->b.data + off);
		h->size = 12;
		assert_int_equal(fx_feed_last(f, 0, off), 0);
	}
	/* a header claiming less than itself */
	h = (struct perf_event_header *)f->b.data;
	h->size = 3;
	assert_int_equal(fx_feed_last(f, 0, 0), 0);
	assert_int_equal(st->malformed_records, 2 + TDR_ARRAY_SIZE(types));
	assert_int_equal(f->delivered, 0);
	fx_free(f);
}

/* No IDENTIFIER: the id is found at id_pos (after IP, TID, TIME, ADDR) and,
 * in other records, at is_pos from the end (ID, STREAM_ID, CPU trailer). Two
 * single-event groups with different ids tell whether the right one is found. */
static void test_decode__id_pos_without_identifier(void **state)
{
	struct tdr_meta meta = { 0 };
	struct perf_event_attr a = { 0 };
	struct tdr_parser *p;
	struct synth_buf b = { 0 };
	struct got g = { 0 };
	uint64_t ida = 41, idb = 42, val = 5000, callchain[3] = { 1, 2, 3 };
	struct synth_sample s = { 0 };
	struct synth_sid sid = { .pid = 10, .tid = 10, .time = 77, .id = 42, .cpu = 1 };
	size_t off;

	(void)state;
	a.size = sizeof(a);
	a.sample_period = 10;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
			PERF_SAMPLE_RAW;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST; /* non-group form */
	a.sample_id_all = 1;
	synth_meta_add_event(&meta, "a", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &ida, NULL,
			     10, 1);
	synth_meta_add_event(&meta, "b", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 1, &idb, NULL,
			     10, 1);
	assert_int_equal(tdr_parser__new(&meta, &p), 0);

	s.sid = sid;
	s.ip = 0x1234;
	s.addr = 0xdead;
	s.period = 10;
	s.nr = 1;
	s.values = &val;
	s.ids = &idb;
	s.callchain_nr = 3;
	s.callchain = callchain;
	s.raw_sz = 3;
	s.raw = "xyz";
	off = synth_sample(&b, &a, &s);
	assert_int_equal(tdr_parser__feed(p, 0, synth_rec(&b, off), got_cb, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.s.sampler_idx, 1);
	assert_int_equal(g.s.ip, 0x1234);
	assert_int_equal(g.s.time_ns, 77);
	assert_int_equal(g.s.cpu, 1);
	assert_int_equal(g.s.tid, 10);
	assert_int_equal(g.d[0], 0);
	assert_int_equal(g.d[1], 5000);
	assert_true(g.s.first_in_stream);

	/* a LOST record with no ring: the trailer's cpu names it; id via is_pos */
	synth_buf_reset(&b);
	off = synth_lost(&b, &a, 42, 9, &sid);
	assert_int_equal(tdr_parser__feed(p, TDR_RING_SYNTHETIC, synth_rec(&b, off), got_cb, &g),
			 0);
	assert_int_equal(tdr_parser__stats(p)->unknown_ids, 0);
	/* the next sample on ring 1 re-bases */
	synth_buf_reset(&b);
	val = 6000;
	off = synth_sample(&b, &a, &s);
	assert_int_equal(tdr_parser__feed(p, 1, synth_rec(&b, off), got_cb, &g), 0);
	assert_int_equal(tdr_parser__stats(p)->rebases[TDR_REBASE_LOST], 1);

	/* a callchain longer than the record */
	synth_buf_reset(&b);
	off = synth_sample(&b, &a, &s);
	memcpy(b.data + off + 8 + 11 * 8, &(uint64_t){ 1000 }, 8);
	assert_int_equal(tdr_parser__feed(p, 0, synth_rec(&b, off), got_cb, &g), 0);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 1);
	/* an id no event has */
	synth_buf_reset(&b);
	s.sid.id = 4242;
	off = synth_sample(&b, &a, &s);
	assert_int_equal(tdr_parser__feed(p, 0, synth_rec(&b, off), got_cb, &g), 0);
	assert_int_equal(tdr_parser__stats(p)->unknown_ids, 1);
	assert_int_equal(g.n, 1);

	tdr_parser__free(p);
	tdr_meta__clear(&meta);
	synth_buf_release(&b);
}

/* Decode one sample of a two-event group with sample_type st into g. */
static void decode_two_event_sample(uint64_t st, uint64_t rf, struct got *g)
{
	struct tdr_meta meta = { 0 };
	struct perf_event_attr a = { 0 };
	struct tdr_parser *p;
	struct synth_buf b = { 0 };
	uint64_t ids[2] = { 41, 42 }, vals[2] = { 5000, 700 }, callchain[2] = { 1, 2 };
	struct synth_sample s = { 0 };
	size_t off;

	a.size = sizeof(a);
	a.sample_period = 10;
	a.sample_type = st;
	a.read_format = rf;
	a.sample_id_all = 1;
	synth_meta_add_event(&meta, "a", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &ids[0],
			     NULL, 10, 1);
	synth_meta_add_event(&meta, "b", &a, 0, (rf & PERF_FORMAT_GROUP) ? 0 : 1, &ids[1], NULL,
			     10, 1);
	assert_int_equal(tdr_parser__new(&meta, &p), 0);
	s.sid = (struct synth_sid){ .pid = 10, .tid = 11, .time = 77, .id = 41, .cpu = 1 };
	s.ip = 0x1234;
	s.addr = 0xdead;
	s.period = 10;
	s.time_enabled = 900;
	s.time_running = 800;
	s.nr = (rf & PERF_FORMAT_GROUP) ? 2 : 1;
	s.values = vals;
	s.ids = ids;
	s.callchain_nr = 2;
	s.callchain = callchain;
	off = synth_sample(&b, &a, &s);
	memset(g, 0, sizeof(*g));
	assert_int_equal(tdr_parser__feed(p, 0, synth_rec(&b, off), got_cb, g), 0);
	assert_int_equal(g->n, 1);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 0);
	g->s.deltas = NULL; /* points into the parser, freed below */
	g->s.map = NULL;
	g->s.comm = NULL;
	tdr_parser__free(p);
	tdr_meta__clear(&meta);
	synth_buf_release(&b);
}

/* Fields read at fixed offsets (no CALLCHAIN or RAW in the layout) are the
 * ones read field by field (with a CALLCHAIN after READ), for the group
 * and the non-group read forms, with ID rather than IDENTIFIER and the
 * optional fields between. */
static void test_decode__fixed_offsets_agree_with_field_by_field(void **state)
{
	static const uint64_t forms[] = {
		PERF_FORMAT_ID | PERF_FORMAT_LOST,
		PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING,
		PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID,
	};
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
	struct got fixed, slow;

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		decode_two_event_sample(st, forms[i], &fixed);
		decode_two_event_sample(st | PERF_SAMPLE_CALLCHAIN, forms[i], &slow);
		assert_int_equal(fixed.s.ip, 0x1234);
		assert_int_equal(fixed.s.time_ns, 77);
		assert_int_equal(fixed.s.pid, 10);
		assert_int_equal(fixed.s.tid, 11);
		assert_int_equal(fixed.s.cpu, 1);
		assert_int_equal(fixed.s.period, 10);
		assert_int_equal(fixed.s.sampler_idx, 0);
		assert_int_equal(fixed.d[0], 5000);
		assert_int_equal(fixed.d[1], (forms[i] & PERF_FORMAT_GROUP) ? 700 : 0);
		assert_int_equal(fixed.s.ip, slow.s.ip);
		assert_int_equal(fixed.s.time_ns, slow.s.time_ns);
		assert_int_equal(fixed.s.pid, slow.s.pid);
		assert_int_equal(fixed.s.tid, slow.s.tid);
		assert_int_equal(fixed.s.cpu, slow.s.cpu);
		assert_int_equal(fixed.s.cpumode, slow.s.cpumode);
		assert_int_equal(fixed.s.period, slow.s.period);
		assert_int_equal(fixed.s.sampler_idx, slow.s.sampler_idx);
		assert_int_equal(fixed.s.first_in_stream, slow.s.first_in_stream);
		assert_memory_equal(fixed.d, slow.d, sizeof(fixed.d));
	}
}

static void test_decode__lost_samples_counted(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct synth_sid sid = fx_sid(0, 11, 1);
	size_t off;

	(void)state;
	off = synth_lost_samples(&f->b, &f->attr, 12, &sid);
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	assert_int_equal(tdr_parser__stats(f->p)->lost_samples_pmu, 12);
	assert_int_equal(tdr_parser__stats(f->p)->records, 1);
	fx_free(f);
}

/* A callback's error stops the feed and comes back. */
static int stop_cb(const struct tdr_sample *s, void *ctx)
{
	(void)s;
	(void)ctx;
	return -4242;
}

static void test_decode__callback_error_returned(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t v[] = { 1000, 250, 400, 100, 300, 200 };
	size_t off;
	struct synth_sample s = { 0 };
	uint64_t ids[6];

	(void)state;
	for (int i = 0; i < 6; i++)
		ids[i] = fx_id(0, (size_t)i);
	s.sid = fx_sid(0, 11, 5);
	s.nr = 6;
	s.values = v;
	s.ids = ids;
	off = synth_sample(&f->b, &f->attr, &s);
	assert_int_equal(tdr_parser__feed(f->p, 0, synth_rec(&f->b, off), stop_cb, NULL), -4242);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode__truncated_sample_at_every_size),
		cmocka_unit_test(test_decode__group_nr_too_large),
		cmocka_unit_test(test_decode__bogus_records_counted),
		cmocka_unit_test(test_decode__id_pos_without_identifier),
		cmocka_unit_test(test_decode__fixed_offsets_agree_with_field_by_field),
		cmocka_unit_test(test_decode__lost_samples_counted),
		cmocka_unit_test(test_decode__callback_error_returned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
