/*
 * tests/report/test_topdown.c - TopDown math, flags and sorting of report rows.
 *
 * Every expected percentage below is computed by hand from the deltas in the
 * test and the formulas of the fixture's metadata, and compared to 0.01
 * percentage points.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report_fixture.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define assert_pct(frac, pct) assert_true(fabs(100.0 * (frac) - (pct)) < 0.01)

static void test_topdown__l1_from_summed_deltas(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const struct tdr_report_row *a, *b, *c, *t;
	/* slots, cycles, retiring, bad-spec, fe-bound, be-bound */
	const uint64_t da[] = {1000, 10, 400, 100, 200, 300};
	const uint64_t db1[] = {600, 5, 300, 0, 60, 240};
	const uint64_t db2[] = {400, 5, 100, 100, 40, 160};
	/* Level-1 deltas that add up to 2999 of 3000 slots (8-bit fractions). */
	const uint64_t dc[] = {3000, 30, 1001, 999, 500, 499};

	(void)state;
	fx_meta_l1(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "a", "/bin/x", da, 10);
	fx_add(r, "b", "/bin/x", db1, 1);
	fx_add(r, "b", "/bin/x", db2, 1);
	fx_add(r, "c", "/bin/x", dc, 50);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__row_cnt(r), 3);
	a = fx_row(r, "a", NULL);
	b = fx_row(r, "b", NULL);
	c = fx_row(r, "c", NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);

	assert_pct(a->topdown[0], 40.0);
	assert_pct(a->topdown[1], 10.0);
	assert_pct(a->topdown[2], 20.0);
	assert_pct(a->topdown[3], 30.0);
	/* b is the sum of its two samples: 400/1000, 100/1000, 100/1000, 400/1000. */
	assert_int_equal(b->samples, 2);
	assert_int_equal(b->events[0], 1000);
	assert_pct(b->topdown[0], 40.0);
	assert_pct(b->topdown[1], 10.0);
	assert_pct(b->topdown[2], 10.0);
	assert_pct(b->topdown[3], 40.0);
	/* Not rescaled: 1001/3000 = 33.3667%, 999/3000 = 33.3%, 500/3000, 499/3000. */
	assert_pct(c->topdown[0], 33.3667);
	assert_pct(c->topdown[1], 33.3);
	assert_pct(c->topdown[2], 16.6667);
	assert_pct(c->topdown[3], 16.6333);

	/* Shares: samples 10, 2, 50 of 62; slots 1000, 1000, 3000 of 5000. */
	assert_pct(a->share, 100.0 * 10 / 62);
	assert_pct(c->share, 100.0 * 50 / 62);
	assert_pct(a->slots_share, 20.0);
	assert_pct(b->slots_share, 20.0);
	assert_pct(c->slots_share, 60.0);

	t = tdr_report__totals(r);
	assert_int_equal(t->samples, 62);
	assert_int_equal(t->events[0], 5000);
	assert_pct(t->share, 100.0);
	assert_pct(t->slots_share, 100.0);
	assert_pct(t->topdown[0], 100.0 * 1801 / 5000);
	assert_pct(t->topdown[1], 100.0 * 1199 / 5000);
	assert_pct(t->topdown[2], 100.0 * 800 / 5000);
	assert_pct(t->topdown[3], 100.0 * 1199 / 5000);
	tdr_report__free(r);
}

static void test_topdown__l2_measured_and_derived_negative(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const struct tdr_report_row *x;
	/* heavy-ops (600) above retiring (500): light-ops comes out negative,
	 * shown as computed and flagged (it used to be clamped at 0). */
	const uint64_t d[EV_L2_CNT] = {
	    [EV_SLOTS] = 1000, [EV_RET] = 500, [EV_BAD] = 100,	[EV_FE] = 200, [EV_BE] = 200,
	    [EV_HEAVY] = 600,  [EV_BRM] = 40,  [EV_FLAT] = 150, [EV_MEM] = 50};

	(void)state;
	fx_meta_l2(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "x", NULL, d, 100);
	assert_int_equal(tdr_report__finish(r), 0);
	x = fx_row(r, "x", NULL);
	assert_int_equal(tdr_report__category_cnt(r), CAT_L2_CNT);
	assert_pct(x->topdown[CAT_RET], 50.0);
	assert_pct(x->topdown[CAT_BAD], 10.0);
	assert_pct(x->topdown[CAT_FE], 20.0);
	assert_pct(x->topdown[CAT_BE], 20.0);
	assert_pct(x->topdown[CAT_HEAVY], 60.0);
	assert_pct(x->topdown[CAT_BRM], 4.0);
	assert_pct(x->topdown[CAT_FLAT], 15.0);
	assert_pct(x->topdown[CAT_MEM], 5.0);
	assert_true(fabs(x->topdown[CAT_LIGHT] - -0.1) < 1e-12); /* (500 - 600) / 1000 */
	assert_true(tdr_report_row_out_of_range(r, x, CAT_LIGHT));
	assert_false(tdr_report_row_out_of_range(r, x, CAT_HEAVY));
	assert_true(tdr_report_row_out_of_range(r, x, -1));
	assert_int_equal(tdr_report__warning_cnt(r), 1);
	assert_non_null(strstr(tdr_report__warning(r, 0), "2 rows have a category below 0%"));
	assert_pct(x->topdown[CAT_MCLEAR], 6.0);
	assert_pct(x->topdown[CAT_FBW], 5.0);
	assert_pct(x->topdown[CAT_CORE], 15.0);
	assert_int_equal(tdr_report__category_level(r, CAT_CORE), 2);
	tdr_report__free(r);
}

static void test_topdown__generic_formula_with_coefficients(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const uint64_t d1[] = {1000, 400}; /* (2*1000 - 400) / (4*400) = 100% */
	const uint64_t d2[] = {100, 400};  /* (200 - 400) / 1600 = -12.5%, as computed */
	const uint64_t d3[] = {700, 200};  /* (1400 - 200) / 800 = 150%, as measured */

	(void)state;
	fx_meta_generic(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "full", NULL, d1, 40);
	fx_add(r, "neg", NULL, d2, 40);
	fx_add(r, "over", NULL, d3, 40);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_pct(fx_row(r, "full", NULL)->topdown[0], 100.0);
	assert_pct(fx_row(r, "neg", NULL)->topdown[0], -12.5);
	assert_pct(fx_row(r, "over", NULL)->topdown[0], 150.0);
	/* Both flagged, the full row and the totals not. */
	assert_true(tdr_report_row_out_of_range(r, fx_row(r, "neg", NULL), 0));
	assert_true(tdr_report_row_out_of_range(r, fx_row(r, "over", NULL), -1));
	assert_false(tdr_report_row_out_of_range(r, fx_row(r, "full", NULL), -1));
	assert_false(tdr_report_row_out_of_range(r, tdr_report__totals(r), -1));
	/* Slots are the denominator, 4 * cycles: 1600, 1600, 800 of 4000. */
	assert_pct(fx_row(r, "over", NULL)->slots_share, 20.0);
	/* Totals: (2*1800 - 1000) / 4000 = 65%. */
	assert_pct(tdr_report__totals(r)->topdown[0], 65.0);
	tdr_report__free(r);
}

static void test_topdown__row_without_slots_has_no_ratios(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const uint64_t zero[EV_L1_CNT] = {0};
	const struct tdr_report_row *z;

	(void)state;
	fx_meta_l1(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "z", NULL, zero, 3);
	assert_int_equal(tdr_report__finish(r), 0);
	z = fx_row(r, "z", NULL);
	for (int c = 0; c < 4; c++)
		assert_true(isnan(z->topdown[c]));
	assert_true(isnan(z->slots_share));
	assert_int_equal(z->bottleneck, -1);
	tdr_report__free(r);
}

/* Rows with distinct values in every column. */
static struct tdr_report *sort_fixture(struct fx_meta *m, const struct tdr_report_sort *sort)
{
	struct tdr_report_opts o;
	struct tdr_report *r;
	/* samples: p 30, q 20, s 10; slots: q > s > p; retiring: s > p > q; be: p > s > q */
	const uint64_t dp[] = {1000, 0, 300, 0, 0, 700};
	const uint64_t dq[] = {5000, 0, 1000, 0, 3900, 100};
	const uint64_t ds[] = {2000, 0, 1200, 0, 0, 800};

	tdr_report_opts__init(&o);
	if (sort)
		o.sort = *sort;
	fx_meta_l1(m);
	r = fx_report(m, &o);
	fx_add(r, "p", NULL, dp, 30);
	fx_add(r, "q", NULL, dq, 20);
	fx_add(r, "s", NULL, ds, 10);
	assert_int_equal(tdr_report__finish(r), 0);
	return r;
}

static void assert_order(const struct tdr_report *r, const char *a, const char *b, const char *c)
{
	assert_int_equal(tdr_report__row_cnt(r), 3);
	assert_string_equal(tdr_report__row(r, 0)->name, a);
	assert_string_equal(tdr_report__row(r, 1)->name, b);
	assert_string_equal(tdr_report__row(r, 2)->name, c);
}

static void test_topdown__sort_by_each_column(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	struct tdr_report_sort s;

	(void)state;
	r = sort_fixture(&m, NULL);
	assert_order(r, "q", "s", "p"); /* default: slots share */
	assert_int_equal(tdr_report_sort__parse(&m.meta, "samples", &s), 0);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "p", "q", "s");
	assert_int_equal(tdr_report_sort__parse(&m.meta, "share", &s), 0);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "p", "q", "s");
	assert_int_equal(tdr_report_sort__parse(&m.meta, "slots", &s), 0);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "q", "s", "p");
	assert_int_equal(tdr_report_sort__parse(&m.meta, "retiring", &s), 0);
	assert_int_equal(s.key, TDR_SORT_CATEGORY);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "s", "p", "q"); /* 60%, 30%, 20% */
	assert_int_equal(tdr_report_sort__parse(&m.meta, "be-bound", &s), 0);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "p", "s", "q"); /* 70%, 40%, 2% */
	assert_int_equal(tdr_report_sort__parse(&m.meta, "fe-bound", &s), 0);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_string_equal(tdr_report__row(r, 0)->name, "q");
	assert_int_equal(tdr_report_sort__parse(&m.meta, "name", &s), 0);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "p", "q", "s");
	assert_int_equal(tdr_report_sort__parse(&m.meta, "topdown-retiring", &s), 0);
	assert_int_equal(s.key, TDR_SORT_EVENT);
	assert_int_equal(tdr_report__sort(r, &s), 0);
	assert_order(r, "s", "q", "p"); /* 1200, 1000, 300 */
	assert_int_equal(tdr_report_sort__parse(&m.meta, "no-such-column", &s), -TDR_E_USAGE);
	assert_int_equal(tdr_report__parse_sort(r, "mem-bound", &s), -TDR_E_USAGE); /* L1 only */
	assert_int_equal(tdr_report__parse_sort(r, "be-bound", &s), 0);
	assert_int_equal(s.key, TDR_SORT_CATEGORY);
	assert_string_equal(tdr_report__category_name(r, s.idx), "be-bound");
	assert_int_equal(tdr_report__parse_sort(r, "topdown-retiring", &s), 0);
	assert_int_equal(s.key, TDR_SORT_EVENT);
	assert_string_equal(tdr_report__event_name(r, s.idx), "topdown-retiring");
	s.key = TDR_SORT_CATEGORY;
	s.idx = 99;
	assert_int_equal(tdr_report__sort(r, &s), -EINVAL);
	tdr_report__free(r);

	/* The sort given at creation applies at finish. */
	assert_int_equal(tdr_report_sort__parse(&m.meta, "be-bound", &s), 0);
	r = sort_fixture(&m, &s);
	assert_order(r, "p", "s", "q");
	tdr_report__free(r);
}

static void test_topdown__min_samples_marks_low_confidence(void **state)
{
	struct fx_meta m;
	struct tdr_report_opts o;
	struct tdr_report *r;
	const uint64_t d[] = {1000, 0, 250, 250, 250, 250};

	(void)state;
	fx_meta_l1(&m);
	r = fx_report(&m, NULL); /* default: 30 */
	fx_add(r, "few", NULL, d, 29);
	fx_add(r, "enough", NULL, d, 30);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_true(fx_row(r, "few", NULL)->low_confidence);
	assert_false(fx_row(r, "enough", NULL)->low_confidence);
	tdr_report__free(r);

	tdr_report_opts__init(&o);
	o.min_samples = 100;
	r = fx_report(&m, &o);
	fx_add(r, "enough", NULL, d, 30);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_true(fx_row(r, "enough", NULL)->low_confidence);
	tdr_report__free(r);

	o.min_samples = 0; /* no marking */
	r = fx_report(&m, &o);
	fx_add(r, "one", NULL, d, 1);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_false(fx_row(r, "one", NULL)->low_confidence);
	tdr_report__free(r);
}

static void test_topdown__bottleneck_rule(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	/* slots, cycles, ret, bad, fe, be */
	const uint64_t be25[] = {1000, 0, 500, 100, 150, 250}; /* be 25% > 20% */
	const uint64_t both[] = {1000, 0, 430, 160, 200, 210}; /* bad 16%, fe 20%, be 21% */
	const uint64_t ret[] = {1000, 0, 900, 30, 30, 40};     /* retiring is no bottleneck */
	const uint64_t edge[] = {1000, 0, 500, 150, 150, 200}; /* all at, none above */

	(void)state;
	fx_meta_l1(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "be", NULL, be25, 100);      /* 10% of 1000 samples */
	fx_add(r, "be_small", NULL, be25, 40); /* 4%: not hot enough */
	fx_add(r, "both", NULL, both, 100);
	fx_add(r, "ret", NULL, ret, 300);
	fx_add(r, "edge", NULL, edge, 100);
	fx_add(r, "rest", NULL, ret, 360);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__totals(r)->samples, 1000);
	assert_int_equal(fx_row(r, "be", NULL)->bottleneck, 3);
	assert_int_equal(fx_row(r, "be_small", NULL)->bottleneck, -1);
	assert_int_equal(fx_row(r, "both", NULL)->bottleneck, 3); /* be 21% is the largest */
	assert_int_equal(fx_row(r, "ret", NULL)->bottleneck, -1);
	assert_int_equal(fx_row(r, "edge", NULL)->bottleneck, -1);
	assert_true(isnan(tdr_report__threshold(r, 0)));
	assert_true(fabs(tdr_report__threshold(r, 3) - 0.20) < 1e-12);
	tdr_report__free(r);

	/* fe-bound 30% beats be-bound 25%: the largest category above its threshold. */
	{
		const uint64_t fe[] = {1000, 0, 300, 150, 300, 250};

		r = fx_report(&m, NULL);
		fx_add(r, "fe", NULL, fe, 100);
		assert_int_equal(tdr_report__finish(r), 0);
		assert_int_equal(fx_row(r, "fe", NULL)->bottleneck, 2);
		tdr_report__free(r);
	}
	/* A low-confidence row is never highlighted, however hot. */
	r = fx_report(&m, NULL);
	fx_add(r, "hot_but_few", NULL, be25, 20);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_true(fx_row(r, "hot_but_few", NULL)->low_confidence);
	assert_int_equal(fx_row(r, "hot_but_few", NULL)->bottleneck, -1);
	tdr_report__free(r);
}

static void test_topdown__level2_bottleneck_under_level1(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	/* be 40%: mem 25% (> 20%), core 15% (> 10%): mem is larger. */
	const uint64_t d1[EV_L2_CNT] = {
	    [EV_SLOTS] = 1000, [EV_RET] = 400, [EV_BAD] = 100, [EV_FE] = 100, [EV_BE] = 400,
	    [EV_HEAVY] = 100,  [EV_BRM] = 50,  [EV_FLAT] = 50, [EV_MEM] = 250};
	/* be 30%: mem 18% (not > 20%), core 12% (> 10%): core. */
	const uint64_t d2[EV_L2_CNT] = {
	    [EV_SLOTS] = 1000, [EV_RET] = 500, [EV_BAD] = 100, [EV_FE] = 100, [EV_BE] = 300,
	    [EV_HEAVY] = 100,  [EV_BRM] = 50,  [EV_FLAT] = 50, [EV_MEM] = 180};

	(void)state;
	fx_meta_l2(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "mem", NULL, d1, 100);
	fx_add(r, "core", NULL, d2, 100);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(fx_row(r, "mem", NULL)->bottleneck, CAT_BE);
	assert_int_equal(fx_row(r, "mem", NULL)->bottleneck_l2, CAT_MEM);
	assert_int_equal(fx_row(r, "core", NULL)->bottleneck, CAT_BE);
	assert_int_equal(fx_row(r, "core", NULL)->bottleneck_l2, CAT_CORE);
	tdr_report__free(r);
}

static void test_topdown__software_plan_has_events_and_no_topdown(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const struct tdr_report_row *f, *t;
	const uint64_t d1[SW_CNT] = {1000000, 1000000, 3, 1};
	const uint64_t d2[SW_CNT] = {1500000, 1400000, 0, 2};

	(void)state;
	fx_meta_sw(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "f", "/bin/x", d1, 1);
	fx_add(r, "f", "/bin/x", d2, 1);
	fx_add(r, "g", "/bin/x", d2, 2);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__category_cnt(r), 0);
	f = fx_row(r, "f", NULL);
	assert_null(f->topdown);
	assert_true(isnan(f->slots_share));
	assert_int_equal(f->bottleneck, -1);
	assert_int_equal(f->events[SW_CPU], 2500000);
	assert_int_equal(f->events[SW_TASK], 2400000);
	assert_int_equal(f->events[SW_FAULTS], 3);
	assert_int_equal(f->events[SW_CS], 3);
	assert_pct(f->share, 50.0);
	t = tdr_report__totals(r);
	assert_null(t->topdown);
	assert_int_equal(t->events[SW_CPU], 4000000);
	/* Without TopDown, the default order is by samples, ties by name. */
	assert_string_equal(tdr_report__row(r, 0)->name, "f");
	/* There are no slots to sort by, nor categories; events sort. */
	{
		struct tdr_report_sort s;

		assert_int_equal(tdr_report__parse_sort(r, "slots", &s), -TDR_E_USAGE);
		assert_int_equal(tdr_report_sort__parse(&m.meta, "slots", &s), -TDR_E_USAGE);
		assert_int_equal(tdr_report__parse_sort(r, "retiring", &s), -TDR_E_USAGE);
		assert_int_equal(tdr_report__parse_sort(r, "page-faults", &s), 0);
		assert_int_equal(tdr_report__sort(r, &s), 0);
		assert_string_equal(tdr_report__row(r, 0)->name, "f"); /* 3 faults, g 0 */
		/* The text table's labels name the same columns. */
		assert_int_equal(tdr_report__parse_sort(r, "faults", &s), 0);
		assert_int_equal(s.key, TDR_SORT_EVENT);
		assert_int_equal(s.idx, SW_FAULTS);
		assert_int_equal(tdr_report__parse_sort(r, "cpu-ms", &s), 0);
		assert_int_equal(s.idx, SW_CPU);
		assert_int_equal(tdr_report__parse_sort(r, "fault", &s), -TDR_E_USAGE);
	}
	tdr_report__free(r);
}

static void test_topdown__min_share_hides_rows_but_not_from_totals(void **state)
{
	struct fx_meta m;
	struct tdr_report_opts o;
	struct tdr_report *r;
	const uint64_t d[SW_CNT] = {1000, 1000, 0, 0};

	(void)state;
	fx_meta_sw(&m);
	tdr_report_opts__init(&o);
	o.min_share = 0.05;
	r = fx_report(&m, &o);
	fx_add(r, "big", NULL, d, 96);
	fx_add(r, "small", NULL, d, 4);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__row_cnt(r), 1);
	assert_string_equal(tdr_report__row(r, 0)->name, "big");
	assert_int_equal(tdr_report__totals(r)->samples, 100);
	assert_pct(tdr_report__row(r, 0)->share, 96.0);
	tdr_report__free(r);
}

static void test_topdown__bad_formula_is_rejected(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = NULL;

	(void)state;
	fx_meta_l1(&m);
	m.cats[1].num[0].event_idx = 42; /* no such event */
	assert_int_equal(tdr_report__new(&m.meta, NULL, &r), -EINVAL);
	assert_null(r);
}

static void test_topdown__allocation_failures_are_clean(void **state)
{
	struct fx_meta m;
	const uint64_t d[] = {1000, 10, 400, 100, 200, 300};

	(void)state;
	fx_meta_l1(&m);
	for (long n = 0;; n++) {
		struct tdr_report *r = NULL;
		struct tdr_row_key k = {.name = "f", .dso = "/bin/x"};
		int err;

		tdr_mem_fail_after(n);
		err = tdr_report__new(&m.meta, NULL, &r);
		if (!err)
			err = tdr_report__add(r, &k, d, 1);
		if (!err)
			err = tdr_report__finish(r);
		tdr_mem_fail_after(-1);
		if (!err) {
			assert_int_equal(tdr_report__row_cnt(r), 1);
			tdr_report__free(r);
			break;
		}
		assert_int_equal(err, -ENOMEM);
		tdr_report__free(r);
		assert_true(n < 1000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topdown__l1_from_summed_deltas),
	    cmocka_unit_test(test_topdown__l2_measured_and_derived_negative),
	    cmocka_unit_test(test_topdown__generic_formula_with_coefficients),
	    cmocka_unit_test(test_topdown__row_without_slots_has_no_ratios),
	    cmocka_unit_test(test_topdown__sort_by_each_column),
	    cmocka_unit_test(test_topdown__min_samples_marks_low_confidence),
	    cmocka_unit_test(test_topdown__bottleneck_rule),
	    cmocka_unit_test(test_topdown__level2_bottleneck_under_level1),
	    cmocka_unit_test(test_topdown__software_plan_has_events_and_no_topdown),
	    cmocka_unit_test(test_topdown__min_share_hides_rows_but_not_from_totals),
	    cmocka_unit_test(test_topdown__bad_formula_is_rejected),
	    cmocka_unit_test(test_topdown__allocation_failures_are_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
