/*
 * tests/parser/test_time.c - tdr_decoder__time, the merge's view of records.
 *
 * The k-way merge of rings and the perf.data round sort ask every record for
 * its time. For samples the decoder reads it where the layout puts it
 * (after IDENTIFIER, IP and TID) when every event has the same layout; the
 * answer must equal the full decode's for every layout with a time, be
 * "no time" for samples too short to hold it, and fall back to the full
 * decode when sample layouts differ (not when only what the events read
 * differs) or for records that are not samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parser_int.h"
#include "support/synth.h"
#include "tdrec/tdr_mem.h"

/* One event per layout with ids 100 + i; returns the decoder's answers for
 * a sample of the first event cut at every 8-byte size. */
static void check_layout(uint64_t st, bool second_differs, bool read_differs)
{
	struct tdr_meta meta = {0};
	struct perf_event_attr a = {0}, b;
	struct tdr_decoder d;
	struct synth_buf buf = {0};
	struct synth_sample s = {0};
	uint64_t ids[2] = {100, 101}, val = 7;
	struct perf_event_header *h;
	size_t off;
	uint16_t full;

	a.size = sizeof(a);
	a.sample_period = 1000;
	a.sample_type = st;
	a.read_format = PERF_FORMAT_ID;
	a.sample_id_all = 1;
	b = a;
	if (second_differs)
		b.sample_type |= PERF_SAMPLE_ADDR;
	/* What each event reads does not move the time (the recorder trims
	 * the sampler's read_format: runtime/session.c). */
	if (read_differs)
		b.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_LOST;
	synth_meta_add_event(&meta, "a", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &ids[0], NULL,
			     10, 1);
	synth_meta_add_event(&meta, "b", &b, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 1, &ids[1], NULL,
			     10, 1);
	assert_int_equal(tdr_decoder__init(&d, &meta), 0);
	assert_int_equal(d.time_pos >= 0, !second_differs && (st & PERF_SAMPLE_TIME));

	s.sid = (struct synth_sid){.pid = 10, .tid = 11, .time = 123456789, .id = 100, .cpu = 1};
	s.ip = 0x401000;
	s.period = 1000;
	s.nr = 1;
	s.values = &val;
	s.ids = &ids[0];
	off = synth_sample(&buf, &a, &s);
	h = (struct perf_event_header *)(buf.data + off);
	full = h->size;
	for (uint16_t sz = 8; sz <= full; sz += 8) {
		struct dec_rec r;
		bool want, got;
		uint64_t t_got = 0;

		h->size = sz;
		want = tdr_decoder__decode(&d, h, &r) == 0 && (r.sid.have & DEC_HAVE_TIME);
		got = tdr_decoder__time(&d, h, &t_got);
		if (sz == full) {
			assert_true(want == !!(st & PERF_SAMPLE_TIME));
			assert_true(got == want);
		}
		/* A cut sample may still show its time to the merge (it is
		 * counted as malformed by the parser later), but never a
		 * different one. */
		if (want)
			assert_true(got);
		if (got)
			assert_int_equal(t_got, 123456789);
	}
	tdr_decoder__fini(&d);
	tdr_meta__clear(&meta);
	synth_buf_release(&buf);
}

static void test_time__every_layout(void **state)
{
	static const uint64_t opt[] = {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,	PERF_SAMPLE_TID,
				       PERF_SAMPLE_TIME,       PERF_SAMPLE_ID,	PERF_SAMPLE_CPU,
				       PERF_SAMPLE_PERIOD,     PERF_SAMPLE_READ};

	(void)state;
	for (unsigned mask = 0; mask < (1u << TDR_ARRAY_SIZE(opt)); mask++) {
		uint64_t st = 0;

		for (unsigned i = 0; i < TDR_ARRAY_SIZE(opt); i++)
			if (mask & (1u << i))
				st |= opt[i];
		if (!(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)))
			continue; /* two events need ids to be told apart */
		check_layout(st, false, false);
		check_layout(st, true, false);
		check_layout(st, false, true);
	}
}

static void test_time__other_records(void **state)
{
	struct tdr_meta meta = {0};
	struct perf_event_attr a;
	struct tdr_decoder d;
	struct synth_buf buf = {0};
	struct synth_sid sid = {.pid = 10, .tid = 11, .time = 555, .id = 100, .cpu = 0};
	uint64_t id = 100, t = 0;
	size_t off;

	(void)state;
	synth_attr_group(&a, 1000);
	synth_meta_add_event(&meta, "a", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &id, NULL, 10,
			     1);
	assert_int_equal(tdr_decoder__init(&d, &meta), 0);
	off = synth_comm(&buf, &a, 10, 11, "app", false, &sid);
	assert_true(tdr_decoder__time(&d, synth_rec(&buf, off), &t));
	assert_int_equal(t, 555);
	synth_buf_reset(&buf);
	sid.time = 777; /* the trailer's time, as the kernel writes it */
	off = synth_throttle(&buf, &a, false, 777, 100, 0, &sid);
	assert_true(tdr_decoder__time(&d, synth_rec(&buf, off), &t));
	assert_int_equal(t, 777);
	tdr_decoder__fini(&d);
	tdr_meta__clear(&meta);
	synth_buf_release(&buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time__every_layout),
	    cmocka_unit_test(test_time__other_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
