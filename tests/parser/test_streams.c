/*
 * tests/parser/test_streams.c - per-stream TopDown deltas on synthetic records.
 *
 * Every expected number below is computed by hand from the values fed
 * (value order: slots, cycles, retiring, bad-spec, fe-bound, be-bound
 * [, heavy-ops, br-mispredict, fetch-lat, mem-bound]).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parser/parser_fixture.h"

static void assert_sum(const struct fx *f, uint64_t ip, const uint64_t *want, unsigned n)
{
	const struct fx_ipsum *s = fx_ip(f, ip);

	assert_non_null(s);
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < f->nev; i++)
		assert_int_equal(s->sum[i], want[i]);
}

/* Two threads of one process interleaved on cpu 0 (inherited group: same
 * parent ids, per-thread values). */
static void feed_two_threads_l1(struct fx *f)
{
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t u1[] = { 500, 125, 100, 50, 150, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t u2[] = { 1500, 375, 300, 150, 450, 600 };
	static const uint64_t s3[] = { 2600, 650, 1000, 200, 800, 600 };

	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample(f, 0, 12, 200, FX_IP_B, u1), 0);
	assert_int_equal(fx_sample(f, 0, 11, 300, FX_IP_B, s2), 0);
	assert_int_equal(fx_sample(f, 0, 12, 400, FX_IP_A, u2), 0);
	assert_int_equal(fx_sample(f, 0, 11, 500, FX_IP_A, s3), 0);
}

static void test_streams__l1_two_threads_interleaved(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	/* A: s1 (first) + s3-s2 + u2-u1; B: s2-s1 + u1 (first) */
	static const uint64_t want_a[] = { 2800, 700, 900, 250, 850, 800 };
	static const uint64_t want_b[] = { 1300, 325, 400, 100, 400, 400 };
	const struct tdr_parse_stats *st = tdr_parser__stats(f->p);

	(void)state;
	feed_two_threads_l1(f);
	assert_sum(f, FX_IP_A, want_a, 3);
	assert_sum(f, FX_IP_B, want_b, 2);
	assert_int_equal(f->firsts, 2);
	assert_int_equal(st->streams, 2);
	assert_int_equal(st->samples, 5);
	assert_int_equal(st->samples_delivered, 5);
	assert_int_equal(st->first_samples, 2);
	for (int r = 0; r < TDR_REBASE_REASON_CNT; r++)
		assert_int_equal(st->rebases[r], 0);
	assert_int_equal(st->multiplexed_samples, 0);
	fx_free(f);
}

/* Three threads whose tids (and so stream keys) share a slot of the
 * parser's direct-mapped stream and thread caches (tid modulo 64), their
 * samples interleaved: each keeps its own deltas and its own name. Thread
 * k's values at round i are i * (k + 1) * m with m = 100..600, its own IP:
 * the deltas of a thread sum to its last values, 3 * (k + 1) * m. */
static void test_streams__threads_sharing_a_cache_slot(void **state)
{
	static const uint32_t tids[3] = { 11, 11 + 64, 11 + 128 };
	static const char *const comms[3] = { "t-a", "t-b", "t-c" };
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	const struct tdr_parse_stats *st = tdr_parser__stats(f->p);
	uint64_t t = 100;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct synth_sid sid = fx_sid(0, tids[k], t++);

		assert_int_equal(fx_feed_last(f, 0, synth_comm(&f->b, &f->attr, FX_PID, tids[k],
								  comms[k], false, &sid)),
				 0);
	}
	for (uint64_t i = 1; i <= 3; i++) {
		for (size_t k = 0; k < 3; k++) {
			uint64_t v[6];

			for (size_t j = 0; j < 6; j++)
				v[j] = i * (k + 1) * 100 * (j + 1);
			assert_int_equal(fx_sample(f, 0, tids[k], t++, FX_IP_A + 0x1000 * k, v), 0);
			assert_string_equal(f->last_comm, comms[k]);
		}
	}
	for (size_t k = 0; k < 3; k++) {
		uint64_t want[6];

		for (size_t j = 0; j < 6; j++)
			want[j] = 3 * (k + 1) * 100 * (j + 1);
		assert_sum(f, FX_IP_A + 0x1000 * k, want, 3);
	}
	assert_int_equal(st->streams, 3);
	assert_int_equal(st->first_samples, 3);
	assert_int_equal(st->samples_delivered, 9);
	for (int r = 0; r < TDR_REBASE_REASON_CNT; r++)
		assert_int_equal(st->rebases[r], 0);
	assert_int_equal(st->implausible_samples, 0);
	fx_free(f);
}

static void test_streams__l2_matched_by_id_not_position(void **state)
{
	struct fx *f = fx_new(10, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200, 150, 60, 120, 90 };
	static const uint64_t u1[] = { 2000, 500, 200, 600, 700, 500, 100, 500, 300, 250 };
	static const uint64_t s2[] = { 3000, 750, 1100, 300, 900, 700, 450, 160, 400, 330 };
	static const uint64_t u2[] = { 2550, 640, 300, 700, 850, 700, 130, 560, 350, 400 };
	/* entries listed in a scrambled order: still matched by id */
	static const size_t scramble[] = { 9, 3, 0, 7, 1, 5, 2, 8, 4, 6 };
	/* A: s1 + (u2 - u1); B: u1 + (s2 - s1) */
	static const uint64_t want_a[] = { 1550, 390, 500, 200, 450, 400, 180, 120, 170, 240 };
	static const uint64_t want_b[] = { 4000, 1000, 900, 800, 1300, 1000, 400, 600, 580, 490 };

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample_ex(f, 0, 12, 200, FX_IP_B, u1, scramble, 0, 0), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 300, FX_IP_B, s2, scramble, 0, 0), 0);
	assert_int_equal(fx_sample(f, 0, 12, 400, FX_IP_A, u2), 0);
	assert_sum(f, FX_IP_A, want_a, 2);
	assert_sum(f, FX_IP_B, want_b, 2);
	assert_int_equal(tdr_parser__stats(f->p)->unknown_ids, 0);
	fx_free(f);
}

/* One stream whose entries come in group order, then scrambled, then in
 * order again: the in-order samples after the first take the parser's
 * short way (ids checked against the stream's cache), the scrambled one
 * the general match, and every delta is the same either way. */
static void test_streams__entry_order_changes_within_a_stream(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t s3[] = { 2600, 650, 1000, 200, 800, 600 };
	static const uint64_t s4[] = { 3400, 850, 1300, 250, 1050, 800 };
	static const uint64_t s5[] = { 4200, 1050, 1600, 300, 1300, 1000 };
	static const size_t scramble[] = { 5, 3, 0, 4, 1, 2 };
	/* A: s1 + (s3 - s2) + (s5 - s4); B: (s2 - s1) + (s4 - s3) */
	static const uint64_t want_a[] = { 2600, 650, 1000, 200, 800, 600 };
	static const uint64_t want_b[] = { 1600, 400, 600, 100, 500, 400 };

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample(f, 0, 11, 200, FX_IP_B, s2), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 300, FX_IP_A, s3, scramble, 0, 0), 0);
	assert_int_equal(fx_sample(f, 0, 11, 400, FX_IP_B, s4), 0);
	assert_int_equal(fx_sample(f, 0, 11, 500, FX_IP_A, s5), 0);
	assert_sum(f, FX_IP_A, want_a, 3);
	assert_sum(f, FX_IP_B, want_b, 2);
	assert_int_equal(tdr_parser__stats(f->p)->unknown_ids, 0);
	assert_int_equal(tdr_parser__stats(f->p)->samples_delivered, 5);
	fx_free(f);
}

/* A sample of an in-order stream repeats one member's id in place of
 * another's: the first entry with that id counts, the member left out
 * gets no delta and keeps its previous value, and the next in-order
 * sample takes its delta from there. */
static void test_streams__duplicate_id_in_an_in_order_stream(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t s3[] = { 2600, 650, 1000, 200, 800, 600 };
	static const uint64_t s4[] = { 3400, 850, 1300, 250, 1050, 800 };
	static const size_t dup[] = { 0, 1, 2, 3, 3, 5 }; /* entry 4 carries member 3 */
	/* A: s2; B: (s3 - s2 without member 4) + (s4 - s3, member 4 from s2) */
	static const uint64_t want_a[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t want_b[] = { 1600, 400, 600, 100, 500, 400 };

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample(f, 0, 11, 200, FX_IP_A, s2), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 300, FX_IP_B, s3, dup, 0, 0), 0);
	assert_int_equal(fx_sample(f, 0, 11, 400, FX_IP_B, s4), 0);
	assert_sum(f, FX_IP_A, want_a, 2);
	assert_sum(f, FX_IP_B, want_b, 2);
	fx_free(f);
}

struct two_groups {
	uint64_t x[4], y[4]; /* per-event sums of the samples at ip X and ip Y */
};

static int two_groups_cb(const struct tdr_sample *s, void *ctx)
{
	struct two_groups *g = ctx;
	uint64_t *sum = s->ip == FX_IP_A ? g->x : g->y;

	for (int i = 0; i < 4; i++)
		sum[i] += s->deltas[i];
	return 0;
}

/* Two groups of two events, each with its sampler, in one thread: every
 * sample's deltas hold its own group's members and zeros for the other
 * group, also when both streams take the short way (in-order entries). */
static void test_streams__two_groups_keep_their_deltas_apart(void **state)
{
	struct tdr_meta meta = { 0 };
	struct perf_event_attr a;
	struct tdr_parser *p;
	struct synth_buf b = { 0 };
	struct two_groups g;
	static const uint64_t ids[4] = { 51, 52, 61, 62 };
	static const uint64_t va[3][2] = { { 100, 10 }, { 150, 15 }, { 190, 19 } };
	static const uint64_t vb[3][2] = { { 200, 20 }, { 260, 26 }, { 300, 33 } };
	static const uint64_t want_x[4] = { 190, 19, 0, 0 }, want_y[4] = { 0, 0, 300, 33 };

	(void)state;
	memset(&g, 0, sizeof(g));
	synth_attr_group(&a, 1000);
	synth_meta_add_event(&meta, "a0", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &ids[0],
			     NULL, FX_PID, 1);
	synth_meta_add_event(&meta, "a1", &a, 0, 0, &ids[1], NULL, FX_PID, 1);
	synth_meta_add_event(&meta, "b0", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 1, &ids[2],
			     NULL, FX_PID, 1);
	synth_meta_add_event(&meta, "b1", &a, 0, 1, &ids[3], NULL, FX_PID, 1);
	assert_int_equal(tdr_parser__new(&meta, &p), 0);
	for (int k = 0; k < 3; k++) {
		for (int grp = 0; grp < 2; grp++) {
			struct synth_sample s = { 0 };
			size_t off;

			s.sid = (struct synth_sid){ .pid = FX_PID, .tid = FX_PID,
						    .time = 100 * (uint64_t)k + 10 * (uint64_t)grp + 1,
						    .id = ids[2 * grp], .cpu = 0 };
			s.ip = grp ? FX_IP_B : FX_IP_A;
			s.period = 1000;
			s.time_enabled = s.time_running = s.sid.time;
			s.nr = 2;
			s.values = grp ? vb[k] : va[k];
			s.ids = &ids[2 * grp];
			synth_buf_reset(&b);
			off = synth_sample(&b, &a, &s);
			assert_int_equal(tdr_parser__feed(p, 0, synth_rec(&b, off), two_groups_cb, &g),
					 0);
		}
	}
	assert_int_equal(tdr_parser__stats(p)->samples_delivered, 6);
	assert_memory_equal(g.x, want_x, sizeof(want_x));
	assert_memory_equal(g.y, want_y, sizeof(want_y));
	tdr_parser__free(p);
	tdr_meta__clear(&meta);
	synth_buf_release(&b);
}

/* A LOST record on ring 0 between samples: every stream whose previous
 * sample came through ring 0 re-bases at its next sample. */
static void test_streams__lost_rebases_streams_of_the_ring(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t u1[] = { 500, 125, 100, 50, 150, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t u2[] = { 1500, 375, 300, 150, 450, 600 };
	static const uint64_t s3[] = { 2600, 650, 1000, 200, 800, 600 };
	static const uint64_t s4[] = { 3400, 850, 1300, 250, 1050, 800 };
	/* A: s1; s3 and u2 dropped (re-based); B: u1 + (s2 - s1) + (s4 - s3) */
	static const uint64_t want_a[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t want_b[] = { 2100, 525, 700, 150, 650, 600 };
	const struct tdr_parse_stats *st = tdr_parser__stats(f->p);
	struct synth_sid sid = fx_sid(0, 11, 350);
	size_t off;

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample(f, 0, 12, 200, FX_IP_B, u1), 0);
	assert_int_equal(fx_sample(f, 0, 11, 300, FX_IP_B, s2), 0);
	synth_buf_reset(&f->b);
	off = synth_lost(&f->b, &f->attr, fx_id(0, 1), 7, &sid);
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	assert_int_equal(fx_sample(f, 0, 12, 400, FX_IP_A, u2), 0);
	assert_int_equal(fx_sample(f, 0, 11, 500, FX_IP_A, s3), 0);
	assert_int_equal(fx_sample(f, 0, 11, 600, FX_IP_B, s4), 0);
	assert_sum(f, FX_IP_A, want_a, 1);
	assert_sum(f, FX_IP_B, want_b, 3);
	assert_int_equal(st->rebases[TDR_REBASE_LOST], 2);
	assert_int_equal(st->lost_records, 1);
	assert_int_equal(st->lost_samples, 7);
	assert_int_equal(st->samples, 6);
	assert_int_equal(st->samples_delivered, 4);
	fx_free(f);
}

/* A LOST record on ring 1 does not touch streams that only used ring 0. */
static void test_streams__lost_on_other_ring_is_ignored(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	struct synth_sid sid = fx_sid(1, 99, 150);
	size_t off;

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	synth_buf_reset(&f->b);
	off = synth_lost(&f->b, &f->attr, fx_id(1, 1), 3, &sid);
	assert_int_equal(fx_feed_last(f, 1, off), 0);
	assert_int_equal(fx_sample(f, 0, 11, 300, FX_IP_B, s2), 0);
	assert_int_equal(tdr_parser__stats(f->p)->rebases[TDR_REBASE_LOST], 0);
	assert_int_equal(fx_ip(f, FX_IP_B)->sum[0], 800);
	fx_free(f);
}

static void test_streams__counter_backwards_rebases(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t s3[] = { 2600, 650, 650, 200, 800, 600 }; /* retiring 700 -> 650 */
	static const uint64_t s4[] = { 3000, 750, 800, 260, 900, 640 };
	/* A: s1 + (s4 - s3); B: s2 - s1; s3 dropped */
	static const uint64_t want_a[] = { 1400, 350, 550, 160, 400, 240 };
	static const uint64_t want_b[] = { 800, 200, 300, 50, 250, 200 };

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample(f, 0, 11, 200, FX_IP_B, s2), 0);
	assert_int_equal(fx_sample(f, 0, 11, 300, FX_IP_B, s3), 0);
	assert_int_equal(fx_sample(f, 0, 11, 400, FX_IP_A, s4), 0);
	assert_sum(f, FX_IP_A, want_a, 2);
	assert_sum(f, FX_IP_B, want_b, 1);
	assert_int_equal(tdr_parser__stats(f->p)->rebases[TDR_REBASE_BACKWARDS], 1);
	fx_free(f);
}

/* THROTTLE + UNTHROTTLE of thread 11's sampler: its next sample re-bases;
 * thread 12 is not affected. */
static void test_streams__throttle_pair_rebases_once(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t u1[] = { 500, 125, 100, 50, 150, 200 };
	static const uint64_t s2[] = { 9000, 2250, 3000, 900, 3000, 2100 }; /* inflated */
	static const uint64_t u2[] = { 1500, 375, 300, 150, 450, 600 };
	static const uint64_t s3[] = { 9800, 2450, 3300, 950, 3250, 2300 };
	/* A: s1 + (s3 - s2) + (u2 - u1); B: u1 */
	static const uint64_t want_a[] = { 2800, 700, 900, 250, 850, 800 };
	static const uint64_t want_b[] = { 500, 125, 100, 50, 150, 200 };
	const struct tdr_parse_stats *st = tdr_parser__stats(f->p);
	struct synth_sid sid = fx_sid(0, 11, 150);
	size_t off;

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, s1), 0);
	assert_int_equal(fx_sample(f, 0, 12, 120, FX_IP_B, u1), 0);
	synth_buf_reset(&f->b);
	off = synth_throttle(&f->b, &f->attr, false, 150, fx_id(0, 1), 555, &sid);
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	sid.time = 180;
	synth_buf_reset(&f->b);
	off = synth_throttle(&f->b, &f->attr, true, 180, fx_id(0, 1), 555, &sid);
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	assert_int_equal(fx_sample(f, 0, 11, 200, FX_IP_B, s2), 0);
	assert_int_equal(fx_sample(f, 0, 12, 250, FX_IP_A, u2), 0);
	assert_int_equal(fx_sample(f, 0, 11, 300, FX_IP_A, s3), 0);
	assert_sum(f, FX_IP_A, want_a, 3);
	assert_sum(f, FX_IP_B, want_b, 1);
	assert_int_equal(st->throttles, 1);
	assert_int_equal(st->unthrottles, 1);
	assert_int_equal(st->rebases[TDR_REBASE_THROTTLE], 1);
	fx_free(f);
}

static void test_streams__not_running_rebases(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t s3[] = { 1900, 470, 720, 160, 560, 440 };
	static const uint64_t s4[] = { 2500, 620, 900, 200, 700, 680 };
	/* A: s1 + (s4 - s3); s2 delivered at B; s3 dropped (running stayed 200) */
	static const uint64_t want_a[] = { 1600, 400, 580, 140, 440, 440 };

	(void)state;
	assert_int_equal(fx_sample_ex(f, 0, 11, 100, FX_IP_A, s1, NULL, 100, 100), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 200, FX_IP_B, s2, NULL, 200, 200), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 300, FX_IP_B, s3, NULL, 300, 200), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 400, FX_IP_A, s4, NULL, 400, 300), 0);
	assert_sum(f, FX_IP_A, want_a, 2);
	assert_int_equal(fx_ip(f, FX_IP_B)->n, 1);
	assert_int_equal(tdr_parser__stats(f->p)->rebases[TDR_REBASE_NOT_RUNNING], 1);
	fx_free(f);
}

/* Events opened with cpu -1 count everywhere: running < enabled there means
 * the group was multiplexed. Counted, and the sample is still delivered. */
static void test_streams__multiplexed_sample_counted(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, false);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t s2[] = { 1800, 450, 700, 150, 550, 400 };

	(void)state;
	assert_int_equal(fx_sample_ex(f, 0, 11, 100, FX_IP_A, s1, NULL, 100, 100), 0);
	assert_int_equal(fx_sample_ex(f, 0, 11, 200, FX_IP_B, s2, NULL, 200, 150), 0);
	assert_int_equal(tdr_parser__stats(f->p)->multiplexed_samples, 1);
	assert_int_equal(f->delivered, 2);
	assert_int_equal(fx_ip(f, FX_IP_B)->sum[0], 800);
	fx_free(f);
}

/* Per-CPU task events: running < enabled is what a migration looks like, so
 * it is not counted as multiplexing. */
static void test_streams__per_cpu_running_gap_is_not_multiplexing(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t s1[] = { 1000, 250, 400, 100, 300, 200 };

	(void)state;
	assert_int_equal(fx_sample_ex(f, 0, 11, 100, FX_IP_A, s1, NULL, 100, 60), 0);
	assert_int_equal(tdr_parser__stats(f->p)->multiplexed_samples, 0);
	fx_free(f);
}

/* A thread that migrates: per-CPU events count only on their CPU, so each
 * (sampler id, tid) is its own monotonic series (verified on kernel 6.18).
 * Interleaving them gives exact deltas and no re-base. */
static void test_streams__migrating_thread_has_one_stream_per_cpu_id(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	static const uint64_t c0a[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t c1a[] = { 600, 150, 200, 100, 100, 200 };
	static const uint64_t c0b[] = { 1800, 450, 700, 150, 550, 400 };
	static const uint64_t c1b[] = { 1400, 350, 500, 150, 300, 450 };
	static const uint64_t c0c[] = { 2000, 500, 760, 170, 600, 470 };
	/* A (cpu0): c0a + (c0b - c0a) + (c0c - c0b) = c0c; B (cpu1): c1b */
	const struct tdr_parse_stats *st = tdr_parser__stats(f->p);

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, c0a), 0);
	assert_int_equal(fx_sample(f, 1, 11, 200, FX_IP_B, c1a), 0);
	assert_int_equal(fx_sample(f, 0, 11, 300, FX_IP_A, c0b), 0);
	assert_int_equal(fx_sample(f, 1, 11, 400, FX_IP_B, c1b), 0);
	assert_int_equal(fx_sample(f, 0, 11, 500, FX_IP_A, c0c), 0);
	assert_sum(f, FX_IP_A, c0c, 3);
	assert_sum(f, FX_IP_B, c1b, 2);
	assert_int_equal(st->streams, 2);
	assert_int_equal(st->first_samples, 2);
	for (int r = 0; r < TDR_REBASE_REASON_CNT; r++)
		assert_int_equal(st->rebases[r], 0);
	fx_free(f);
}

/* System-wide: streams are keyed by (id, cpu); threads share them. */
static void test_streams__system_wide_keys_by_cpu(void **state)
{
	struct fx *f = fx_new(6, TDR_META_SYSTEM_WIDE, true);
	static const uint64_t a1[] = { 1000, 250, 400, 100, 300, 200 };
	static const uint64_t a2[] = { 1800, 450, 700, 150, 550, 400 };

	(void)state;
	assert_int_equal(fx_sample(f, 0, 11, 100, FX_IP_A, a1), 0);
	assert_int_equal(fx_sample(f, 0, 12, 200, FX_IP_B, a2), 0); /* another thread, same CPU */
	assert_int_equal(tdr_parser__stats(f->p)->streams, 1);
	assert_int_equal(fx_ip(f, FX_IP_B)->sum[0], 800);
	assert_int_equal(f->firsts, 1);
	fx_free(f);
}

/* Entry ids that belong to no event are counted, the rest still used. */
static void test_streams__unknown_sample_id_counted(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct synth_sample s = { 0 };
	uint64_t v[6] = { 1, 2, 3, 4, 5, 6 }, ids[6] = { 9991, 9992, 9993, 9994, 9995, 9996 };
	size_t off;

	(void)state;
	s.sid = fx_sid(0, 11, 100);
	s.sid.id = 9992;
	s.nr = 6;
	s.values = v;
	s.ids = ids;
	off = synth_sample(&f->b, &f->attr, &s);
	assert_int_equal(fx_feed_last(f, 0, off), 0);
	assert_int_equal(f->delivered, 0);
	assert_int_equal(tdr_parser__stats(f->p)->unknown_ids, 1);
	fx_free(f);
}

/*
 * The recorder trims the sampler's read_format (runtime/session.c
 * trim_sampler_read): no LOST, and in software groups no TOTAL_TIME_*.
 * The same samples in each of the four layouts give the same deltas
 * (those of test_streams__l1_two_threads_interleaved, by hand); the
 * merge's time of such samples: test_time.c.
 */
static void test_streams__every_sampler_read_format(void **state)
{
	static const uint64_t fmts[] = {
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID,
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST,
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING,
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST,
	};
	static const uint64_t want_a[] = { 2800, 700, 900, 250, 850, 800 };
	static const uint64_t want_b[] = { 1300, 325, 400, 100, 400, 400 };

	(void)state;
	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		struct fx *f = fx_new(6, TDR_META_INHERIT, true);
		const struct tdr_parse_stats *st;
		size_t off;

		/* the sampler (member 1) reads less than the others */
		f->attr.read_format = fmts[k];
		f->meta.events[1].attr.read_format = fmts[k];
		tdr_parser__free(f->p);
		assert_int_equal(tdr_parser__new(&f->meta, &f->p), 0);
		feed_two_threads_l1(f);
		st = tdr_parser__stats(f->p);
		assert_sum(f, FX_IP_A, want_a, 3);
		assert_sum(f, FX_IP_B, want_b, 2);
		assert_int_equal(st->samples, 5);
		for (int r = 0; r < TDR_REBASE_REASON_CNT; r++)
			assert_int_equal(st->rebases[r], 0);
		assert_int_equal(st->malformed_records, 0);
		assert_int_equal(st->unknown_ids, 0);
		/* the sample's layout: 8 bytes per field asked for */
		synth_buf_reset(&f->b);
		off = fx_synth_sample(f, &f->b, 0, 11, 777, FX_IP_A, want_a, NULL, 0, 0);
		assert_int_equal(synth_rec(&f->b, off)->size,
				 8 * (7 + 1 + !!(fmts[k] & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				      !!(fmts[k] & PERF_FORMAT_TOTAL_TIME_RUNNING) +
				      6 * (2 + !!(fmts[k] & PERF_FORMAT_LOST))));
		fx_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streams__l1_two_threads_interleaved),
		cmocka_unit_test(test_streams__threads_sharing_a_cache_slot),
		cmocka_unit_test(test_streams__l2_matched_by_id_not_position),
		cmocka_unit_test(test_streams__entry_order_changes_within_a_stream),
		cmocka_unit_test(test_streams__duplicate_id_in_an_in_order_stream),
		cmocka_unit_test(test_streams__two_groups_keep_their_deltas_apart),
		cmocka_unit_test(test_streams__lost_rebases_streams_of_the_ring),
		cmocka_unit_test(test_streams__lost_on_other_ring_is_ignored),
		cmocka_unit_test(test_streams__counter_backwards_rebases),
		cmocka_unit_test(test_streams__throttle_pair_rebases_once),
		cmocka_unit_test(test_streams__not_running_rebases),
		cmocka_unit_test(test_streams__multiplexed_sample_counted),
		cmocka_unit_test(test_streams__per_cpu_running_gap_is_not_multiplexing),
		cmocka_unit_test(test_streams__migrating_thread_has_one_stream_per_cpu_id),
		cmocka_unit_test(test_streams__system_wide_keys_by_cpu),
		cmocka_unit_test(test_streams__unknown_sample_id_counted),
		cmocka_unit_test(test_streams__every_sampler_read_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
