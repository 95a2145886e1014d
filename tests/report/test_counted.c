/*
 * tests/report/test_counted.c - counted totals against attributed ones.
 *
 * Hand-built reports (report_fixture.c) are given counted totals as the
 * trailer's COUNTED item would give them (tdr_report__set_counted): the
 * note must name exactly the events whose samples attribute less than 90%
 * of what was counted (by at least 100 units), with both numbers and the
 * reason that fits the recording; the attributed totals are taken before
 * filters; and the text, JSON and CSV outputs carry the numbers
 * (docs/report.md "Counted totals").
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_mini.h"
#include "report_fixture.h"

#define NOTE_PREFIX "note: the samples attribute only "

/* The warnings that are counted-totals notes, and the last of them. */
static size_t count_notes(const struct tdr_report *r, const char **last)
{
	size_t n = 0;

	*last = NULL;
	for (size_t i = 0; i < tdr_report__warning_cnt(r); i++) {
		const char *w = tdr_report__warning(r, i);

		if (!strncmp(w, NOTE_PREFIX, strlen(NOTE_PREFIX))) {
			*last = w;
			n++;
		}
	}
	return n;
}

/* Software plan: 200 ms of both clocks, 59 page faults, 3 context switches
 * in the samples, in two rows. */
static struct tdr_report *sw_rows(struct fx_meta *m, uint32_t meta_flags)
{
	const uint64_t a[SW_CNT] = {150000000, 150000000, 50, 2};
	const uint64_t b[SW_CNT] = {50000000, 50000000, 9, 1};
	struct tdr_report *r;

	fx_meta_sw(m);
	m->meta.flags = meta_flags;
	r = fx_report(m, NULL);
	fx_add(r, "spin", "/usr/bin/app", a, 600);
	fx_add(r, "main", "/usr/bin/app", b, 200);
	return r;
}

static void test_counted__short_event_is_named_with_both_numbers(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = sw_rows(&m, TDR_META_INHERIT);
	/* The clocks are 95% attributed; page faults 0.5%; 7 context
	 * switches missing are below the 100-event floor. */
	struct tdr_event_totals ev[SW_CNT] = {
	    {.has_counted = true, .counted = 210000000},
	    {.has_counted = true, .counted = 210500000},
	    {.has_counted = true, .counted = 12850},
	    {.has_counted = true, .counted = 10},
	};
	const char *note;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(tdr_report__set_counted(r, ev, SW_CNT), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(count_notes(r, &note), 1);
	assert_non_null(strstr(note, "59 of 12850 page-faults (0.5%) counted over the run"));
	assert_null(strstr(note, "clock"));
	assert_null(strstr(note, "context-switches"));
	assert_non_null(strstr(note, "after each thread's last sample (or by threads never "
				     "sampled), or while no sample could be taken (kernel mode "
				     "with user-only sampling)"));
	assert_null(strstr(note, "re-based"));
	assert_int_equal(tdr_report__attributed(r, SW_FAULTS), 59);
	assert_int_equal(tdr_report__attributed(r, SW_CPU), 200000000);
	assert_true(tdr_report__counted(r, SW_FAULTS, &v));
	assert_int_equal(v, 12850);
	assert_true(isnan(tdr_report__slots_attributed(r)));
	/* Once finished, the counted totals are fixed. */
	assert_int_equal(tdr_report__set_counted(r, NULL, 0), -EINVAL);
	tdr_report__free(r);
}

static void test_counted__clocks_in_ms_and_the_reason_fits_the_recording(void **state)
{
	struct fx_meta m;
	/* -a with kernel samples: streams are CPUs, and samples are taken in
	 * the kernel too; one stream was re-based. */
	struct tdr_report *r = sw_rows(&m, TDR_META_SYSTEM_WIDE | TDR_META_KERNEL);
	struct tdr_event_totals ev[SW_CNT] = {
	    {.has_counted = true, .counted = 400000000},
	    {.has_counted = false},
	    {.has_counted = true, .counted = 60},
	};
	struct tdr_parse_stats st = {.samples = 800, .rebases = {[TDR_REBASE_LOST] = 3}};
	const char *note;
	uint64_t v;

	(void)state;
	tdr_report__note_parse(r, &st, NULL);
	/* Three entries for four events: context-switches has none. */
	assert_int_equal(tdr_report__set_counted(r, ev, 3), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(count_notes(r, &note), 1);
	assert_non_null(strstr(note, "200.0 ms of 400.0 ms cpu-clock (50.0%) counted"));
	/* 1 page fault short of 60 is under the floor; task-clock unknown. */
	assert_null(strstr(note, "page-faults"));
	assert_null(strstr(note, "task-clock"));
	assert_non_null(strstr(note, "after each CPU's last sample (or by CPUs never sampled), "
				     "or in intervals dropped when a stream was re-based"));
	assert_null(strstr(note, "user-only"));
	assert_false(tdr_report__counted(r, SW_TASK, &v));
	assert_false(tdr_report__counted(r, SW_CS, &v));
	tdr_report__free(r);
}

static void test_counted__no_counted_totals_no_note_no_lines(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = sw_rows(&m, 0);
	const char *note;
	char *text, *csv, *json;
	struct jm *j;
	const struct jm *counted;
	uint64_t v;

	(void)state;
	assert_int_equal(tdr_report__set_counted(r, NULL, 0), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(count_notes(r, &note), 0);
	assert_false(tdr_report__counted(r, SW_CPU, &v));
	text = fx_render(r, TDR_FMT_TEXT, false, 0);
	csv = fx_render(r, TDR_FMT_CSV, false, 0);
	json = fx_render(r, TDR_FMT_JSON, false, 0);
	assert_null(strstr(text, "counted:"));
	assert_null(strstr(csv, "\ncounted,"));
	assert_null(strstr(csv, "\nattributed,"));
	j = fx_json(json);
	counted = jm_get(jm_get(j, "totals"), "counted");
	assert_non_null(counted);
	assert_int_equal(counted->n, SW_CNT);
	for (size_t i = 0; i < SW_CNT; i++)
		assert_int_equal(counted->items[i].t, JM_NULL);
	assert_int_equal(jm_get(jm_get(jm_get(j, "totals"), "attributed"), "page-faults")->num, 59);
	/* Rows do not carry them. */
	assert_null(jm_get(jm_at(jm_get(j, "rows"), 0), "counted"));
	jm_free(j);
	free(text);
	free(csv);
	free(json);
	tdr_report__free(r);
}

/* Software samples of two threads, one of them filtered out. */
static void test_counted__attributed_is_taken_before_filters(void **state)
{
	static const uint64_t d[SW_CNT] = {1000000, 1000000, 40, 1};
	const uint32_t keep = 1;
	struct tdr_report_opts o;
	struct fx_meta m;
	struct tdr_report *r;
	struct tdr_event_totals ev[SW_CNT] = {[SW_FAULTS] = {.has_counted = true, .counted = 400}};
	struct tdr_sample s = {.pid = 1, .comm = "app", .deltas = d};
	const char *note;

	(void)state;
	fx_meta_sw(&m);
	tdr_report_opts__init(&o);
	o.by = TDR_BY_THREAD;
	o.filter.tids = &keep;
	o.filter.tid_cnt = 1;
	r = fx_report(&m, &o);
	for (int i = 0; i < 6; i++) {
		s.tid = i < 2 ? 1 : 2; /* 2 samples kept, 4 filtered out */
		s.time_ns = 1000 + (uint64_t)i;
		assert_int_equal(tdr_report__add_sample(r, &s), 0);
	}
	assert_int_equal(tdr_report__set_counted(r, ev, SW_CNT), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__totals(r)->events[SW_FAULTS], 80);
	assert_int_equal(tdr_report__attributed(r, SW_FAULTS), 240);
	/* 240 of 400 is 60%: short, and the note gives the unfiltered sum. */
	assert_int_equal(count_notes(r, &note), 1);
	assert_non_null(strstr(note, "240 of 400 page-faults (60.0%)"));
	tdr_report__free(r);
}

static void test_counted__topdown_total_row_says_slots_are_short(void **state)
{
	const uint64_t d[EV_L1_CNT] = {[EV_SLOTS] = 10000, [EV_CYCLES] = 2500, [EV_RET] = 4000,
				       [EV_BAD] = 1000,	   [EV_FE] = 2000,     [EV_BE] = 3000};
	struct tdr_event_totals ev[EV_L1_CNT];
	struct fx_meta m;
	struct tdr_report *r;
	const char *note;
	char *text, *json, *csv;
	struct jm *j;
	const struct jm *tot;

	(void)state;
	fx_meta_l1(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "compute", "/usr/bin/app", d, 300);
	/* Every event counted twice what the samples hold, cycles unknown. */
	for (size_t e = 0; e < EV_L1_CNT; e++)
		ev[e] =
		    (struct tdr_event_totals){.has_counted = e != EV_CYCLES, .counted = 2 * d[e]};
	assert_int_equal(tdr_report__set_counted(r, ev, EV_L1_CNT), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_true(fabs(tdr_report__slots_attributed(r) - 0.5) < 1e-9);
	assert_int_equal(count_notes(r, &note), 1);
	assert_non_null(strstr(note, "10000 of 20000 slots (50.0%), 4000 of 8000 "
				     "topdown-retiring (50.0%)"));
	assert_null(strstr(note, "cycles"));

	text = fx_render(r, TDR_FMT_TEXT, false, 0);
	fx_assert_width(text, 100);
	assert_non_null(strstr(text, "total  covers 50% of counted slots\n"));
	assert_non_null(strstr(text, "\ncounted: slots 20000 (50.0% attributed), cycles unknown, "
				     "topdown-retiring 8000 (50.0%)"));

	json = fx_render(r, TDR_FMT_JSON, false, 0);
	j = fx_json(json);
	tot = jm_get(j, "totals");
	assert_int_equal(jm_get(jm_get(tot, "counted"), "slots")->num, 20000);
	assert_int_equal(jm_get(jm_get(tot, "counted"), "cycles")->t, JM_NULL);
	assert_int_equal(jm_get(jm_get(tot, "attributed"), "topdown-be-bound")->num, 3000);
	jm_free(j);

	/* CSV: the two lines, with the header's number of fields and the
	 * values in the event columns (after 13 fields and 4 categories). */
	csv = fx_render(r, TDR_FMT_CSV, false, 0);
	assert_non_null(
	    strstr(csv, "\nattributed,,,,,,,,,,,,,,,,,10000,2500,4000,1000,2000,3000\n"));
	assert_non_null(strstr(csv, "\ncounted,,,,,,,,,,,,,,,,,20000,,8000,2000,4000,6000\n"));
	free(text);
	free(json);
	free(csv);
	tdr_report__free(r);
}

static void test_counted__topdown_slots_close_enough_no_tag(void **state)
{
	const uint64_t d[EV_L1_CNT] = {
	    [EV_SLOTS] = 10000, [EV_RET] = 4000, [EV_BAD] = 1000, [EV_FE] = 2000, [EV_BE] = 3000};
	struct tdr_event_totals ev[EV_L1_CNT] = {
	    [EV_SLOTS] = {.has_counted = true, .counted = 10500}};
	struct fx_meta m;
	struct tdr_report *r;
	const char *note;
	char *text;

	(void)state;
	fx_meta_l1(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "compute", "/usr/bin/app", d, 300);
	assert_int_equal(tdr_report__set_counted(r, ev, EV_L1_CNT), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_true(tdr_report__slots_attributed(r) > 0.95);
	assert_int_equal(count_notes(r, &note), 0);
	text = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_null(strstr(text, "of counted slots"));
	assert_non_null(strstr(text, "counted: slots 10500 (95.2% attributed)"));
	free(text);
	tdr_report__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counted__short_event_is_named_with_both_numbers),
	    cmocka_unit_test(test_counted__clocks_in_ms_and_the_reason_fits_the_recording),
	    cmocka_unit_test(test_counted__no_counted_totals_no_note_no_lines),
	    cmocka_unit_test(test_counted__attributed_is_taken_before_filters),
	    cmocka_unit_test(test_counted__topdown_total_row_says_slots_are_short),
	    cmocka_unit_test(test_counted__topdown_slots_close_enough_no_tag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
