/*
 * tests/report/test_synth_topdown.c - TopDown reports from synthetic kernel records.
 *
 * The whole chain without TopDown hardware: group-read SAMPLE records written
 * byte for byte as the kernel does (tests/support/synth), decoded by the real
 * parser (per-stream deltas), attributed to functions through a fake
 * symbolizer, with the categories the recorder stores
 * (tdr_meta__add_topdown_categories). Every percentage is computed by hand
 * from the counter values below and must match to 0.01.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parser/parser_fixture.h"
#include "report_fixture.h"
#include "tdrec/topdown.h"

#define assert_pct(frac, pct) assert_true(fabs(100.0 * (frac) - (pct)) < 0.01)

static const struct fx_sym_entry syms_table[] = {
    {"/usr/bin/app", 0x1000, 0x2000, TDR_SYM_OK, "func_a", NULL, NULL, 0},
    {"/usr/bin/app", 0x2000, 0x3000, TDR_SYM_OK, "func_b", NULL, NULL, 0},
};

static int to_report(const struct tdr_sample *s, void *ctx)
{
	return tdr_report__add_sample(ctx, s);
}

/* One cumulative group read of tid 11 on cpu 0 at time t, sampled at ip. */
static void feed_sample(struct fx *f, struct tdr_report *r, uint64_t t, uint64_t ip,
			const uint64_t *vals)
{
	uint64_t ids[FX_NEV_MAX];
	struct synth_sample s = {0};
	size_t off;

	for (size_t i = 0; i < f->nev; i++)
		ids[i] = fx_id(0, i);
	s.sid = fx_sid(0, 11, t);
	s.ip = ip;
	s.period = 100000;
	s.time_enabled = s.time_running = t;
	s.nr = f->nev;
	s.values = vals;
	s.ids = ids;
	synth_buf_reset(&f->b);
	off = synth_sample(&f->b, &f->attr, &s);
	assert_int_equal(tdr_parser__feed(f->p, 0, synth_rec(&f->b, off), to_report, r), 0);
}

static struct tdr_report *start(struct fx *f)
{
	struct synth_sid sid = fx_sid(0, 11, 1);
	struct tdr_report *r = NULL;
	size_t off;

	assert_true(tdr_meta__add_topdown_categories(&f->meta) > 0);
	f->meta.plan_name = strdup(f->nev == 10 ? "topdown-l2" : "topdown-l1");
	assert_int_equal(tdr_report__new(&f->meta, NULL, &r), 0);
	off = synth_mmap(&f->b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0,
			 "/usr/bin/app", NULL, 0, &sid);
	assert_int_equal(tdr_parser__feed(f->p, 0, synth_rec(&f->b, off), to_report, r), 0);
	return r;
}

static int cat_idx(const struct tdr_report *r, const char *name)
{
	for (size_t i = 0; i < tdr_report__category_cnt(r); i++)
		if (!strcmp(tdr_report__category_name(r, i), name))
			return (int)i;
	fail_msg("no category %s", name);
	return -1;
}

static void finish(struct tdr_report *r)
{
	struct fx_syms fs;

	fx_syms_init(&fs, syms_table, 2);
	assert_int_equal(tdr_report__resolve(r, &fs.rs), 0);
	assert_int_equal(tdr_report__finish(r), 0);
}

static void test_synth__level1_per_function(void **state)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct tdr_report *r = start(f);
	const struct tdr_report_row *a, *b;
	/* Cumulative values: slots, cycles, retiring, bad-spec, fe-bound, be-bound. */
	const uint64_t v1[] = {1000, 250, 400, 100, 200, 300};	/* first: deltas = values */
	const uint64_t v2[] = {1800, 450, 560, 180, 440, 620};	/* +800: 160 80 240 320 */
	const uint64_t v3[] = {3000, 750, 1160, 180, 740, 920}; /* +1200: 600 0 300 300 */

	(void)state;
	feed_sample(f, r, 100, FX_IP_A, v1);
	feed_sample(f, r, 200, FX_IP_B, v2);
	feed_sample(f, r, 300, FX_IP_A, v3);
	finish(r);
	a = fx_row(r, "func_a", "/usr/bin/app");
	b = fx_row(r, "func_b", "/usr/bin/app");
	assert_non_null(a);
	assert_non_null(b);
	/* func_a: slots 2200; retiring 1000, bad 100, fe 500, be 600. */
	assert_int_equal(a->samples, 2);
	assert_int_equal(a->events[0], 2200);
	assert_pct(a->topdown[cat_idx(r, "retiring")], 45.4545);
	assert_pct(a->topdown[cat_idx(r, "bad-spec")], 4.5455);
	assert_pct(a->topdown[cat_idx(r, "fe-bound")], 22.7273);
	assert_pct(a->topdown[cat_idx(r, "be-bound")], 27.2727);
	assert_pct(a->slots_share, 100.0 * 2200 / 3000);
	/* func_b: slots 800; 160, 80, 240, 320. */
	assert_pct(b->topdown[cat_idx(r, "retiring")], 20.0);
	assert_pct(b->topdown[cat_idx(r, "bad-spec")], 10.0);
	assert_pct(b->topdown[cat_idx(r, "fe-bound")], 30.0);
	assert_pct(b->topdown[cat_idx(r, "be-bound")], 40.0);
	assert_pct(b->slots_share, 100.0 * 800 / 3000);
	/* Totals: 1160, 180, 740, 920 of 3000. */
	assert_pct(tdr_report__totals(r)->topdown[cat_idx(r, "retiring")], 38.6667);
	assert_pct(tdr_report__totals(r)->topdown[cat_idx(r, "be-bound")], 30.6667);
	/* Sorted by slots share by default. */
	assert_string_equal(tdr_report__row(r, 0)->name, "func_a");
	tdr_report__free(r);
	fx_free(f);
}

static void test_synth__level2_with_derived_categories(void **state)
{
	struct fx *f = fx_new(10, TDR_META_INHERIT, true);
	struct tdr_report *r = start(f);
	const struct tdr_report_row *a;
	/* slots, cycles, ret, bad, fe, be, heavy, br-mispredict, fetch-lat, mem-bound */
	const uint64_t v1[] = {2000, 500, 600, 300, 400, 700, 100, 250, 300, 200};
	/* +2000 at B: ret 1000, bad 100, fe 300, be 600, heavy 1100 (> ret), brm 20, flat 100, mem
	 * 500 */
	const uint64_t v2[] = {4000, 1000, 1600, 400, 700, 1300, 1200, 270, 400, 700};

	(void)state;
	feed_sample(f, r, 100, FX_IP_A, v1);
	feed_sample(f, r, 200, FX_IP_B, v2);
	finish(r);
	assert_int_equal(tdr_report__category_cnt(r), 12);
	a = fx_row(r, "func_a", NULL);
	/* func_a, slots 2000: L1 30/15/20/35; heavy 5, light 25; brm 12.5, clears 2.5;
	 * fetch-lat 15, fetch-bw 5; mem 10, core 25. */
	assert_pct(a->topdown[cat_idx(r, "retiring")], 30.0);
	assert_pct(a->topdown[cat_idx(r, "bad-spec")], 15.0);
	assert_pct(a->topdown[cat_idx(r, "fe-bound")], 20.0);
	assert_pct(a->topdown[cat_idx(r, "be-bound")], 35.0);
	assert_pct(a->topdown[cat_idx(r, "heavy-ops")], 5.0);
	assert_pct(a->topdown[cat_idx(r, "light-ops")], 25.0);
	assert_pct(a->topdown[cat_idx(r, "br-mispredict")], 12.5);
	assert_pct(a->topdown[cat_idx(r, "machine-clears")], 2.5);
	assert_pct(a->topdown[cat_idx(r, "fetch-lat")], 15.0);
	assert_pct(a->topdown[cat_idx(r, "fetch-bw")], 5.0);
	assert_pct(a->topdown[cat_idx(r, "mem-bound")], 10.0);
	assert_pct(a->topdown[cat_idx(r, "core-bound")], 25.0);
	/* func_b: heavy-ops 55% above retiring 50%: light-ops is -5%, shown as
	 * computed (no longer clamped at 0). */
	a = fx_row(r, "func_b", NULL);
	assert_pct(a->topdown[cat_idx(r, "retiring")], 50.0);
	assert_pct(a->topdown[cat_idx(r, "heavy-ops")], 55.0);
	assert_pct(a->topdown[cat_idx(r, "light-ops")], -5.0);
	assert_pct(a->topdown[cat_idx(r, "machine-clears")], 4.0);
	assert_pct(a->topdown[cat_idx(r, "fetch-bw")], 10.0);
	assert_pct(a->topdown[cat_idx(r, "core-bound")], 5.0);
	/* be-bound 35% is above its threshold, but one sample is too few to trust:
	 * no highlight. */
	a = fx_row(r, "func_a", NULL);
	assert_true(a->low_confidence);
	assert_int_equal(a->bottleneck, -1);
	tdr_report__free(r);
	fx_free(f);
}

/* Neoverse V2 (W 8): events cpu_cycles, stall_slot_frontend,
 * stall_slot_backend, stall_slot, op_retired, op_spec, br_mis_pred, with
 * the formulas a V2 recording stores (retiring and bad-spec are products,
 * docs/format.md section 5.2). Every value by hand, exact to 1e-9, on each
 * function's summed deltas. */
static void test_synth__arm_v2_products_per_function(void **state)
{
	struct fx *f = fx_new(7, TDR_META_INHERIT, true);
	const struct tdr_td_family *v2 = tdr_topdown_family("neoverse-v2");
	struct synth_sid sid = fx_sid(0, 11, 1);
	struct tdr_report *r = NULL;
	const struct tdr_report_row *a, *b, *t;
	/* Deltas: A gets {400,400,1200,1600,500,600,4} and
	 * {600,1600,1200,3200,100,200,6}; B gets {100,200,700,800,50,100,30}. */
	const uint64_t v1[] = {400, 400, 1200, 1600, 500, 600, 4};
	const uint64_t v2c[] = {500, 600, 1900, 2400, 550, 700, 34};
	const uint64_t v3[] = {1100, 2200, 3100, 5600, 650, 900, 40};
	size_t off;

	(void)state;
	for (size_t i = 0; i < 7; i++) {
		free(f->meta.events[i].name);
		f->meta.events[i].name = strdup(tdr_td_family__event(v2, false, i)->name);
	}
	assert_int_equal(tdr_meta__add_family_categories(&f->meta, v2, 0), 4);
	f->meta.plan_name = strdup("neoverse-v2");
	assert_int_equal(tdr_report__new(&f->meta, NULL, &r), 0);
	off = synth_mmap(&f->b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0,
			 "/usr/bin/app", NULL, 0, &sid);
	assert_int_equal(tdr_parser__feed(f->p, 0, synth_rec(&f->b, off), to_report, r), 0);
	feed_sample(f, r, 100, FX_IP_A, v1);
	feed_sample(f, r, 200, FX_IP_B, v2c);
	feed_sample(f, r, 300, FX_IP_A, v3);
	finish(r);
	a = fx_row(r, "func_a", NULL);
	b = fx_row(r, "func_b", NULL);
	t = tdr_report__totals(r);
	assert_non_null(a);
	assert_non_null(b);
	/* func_a sums {1000,2000,2400,4800,600,800,10}: slots 8000;
	 * retiring 0.75 * 0.4, bad-spec 0.25 * 0.4 + 4 * 10/1000, fe 0.25 -
	 * 0.01, be 0.3 - 0.03 (not the mean of its samples' ratios). */
	assert_true(fabs(a->topdown[cat_idx(r, "retiring")] - 0.3) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "bad-spec")] - 0.14) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "fe-bound")] - 0.24) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "be-bound")] - 0.27) < 1e-9);
	/* func_b: corrections outweigh its slots: bad-spec 1.2, fe -0.05,
	 * be -0.025, shown as computed and flagged. */
	assert_true(fabs(b->topdown[cat_idx(r, "retiring")]) < 1e-9);
	assert_true(fabs(b->topdown[cat_idx(r, "bad-spec")] - 1.2) < 1e-9);
	assert_true(fabs(b->topdown[cat_idx(r, "fe-bound")] + 0.05) < 1e-9);
	assert_true(fabs(b->topdown[cat_idx(r, "be-bound")] + 0.025) < 1e-9);
	assert_true(tdr_category_out_of_range(b->topdown[cat_idx(r, "bad-spec")]));
	assert_true(tdr_category_out_of_range(b->topdown[cat_idx(r, "fe-bound")]));
	assert_true(tdr_category_out_of_range(b->topdown[cat_idx(r, "be-bound")]));
	/* Slots: W * cpu_cycles (fe-bound's denominator): 8000 of 8800. */
	assert_true(fabs(a->slots_share - 8000.0 / 8800) < 1e-9);
	/* Totals {1100,2200,3100,5600,650,900,40}: retiring 650/900 *
	 * 3200/8800 = 52/198. */
	assert_true(fabs(t->topdown[cat_idx(r, "retiring")] - 52.0 / 198) < 1e-9);
	assert_true(fabs(t->topdown[cat_idx(r, "bad-spec")] -
			 (250.0 / 900 * 3200 / 8800 + 160.0 / 1100)) < 1e-9);
	tdr_report__free(r);
	fx_free(f);
}

/* AMD Zen 4 and Zen 5 from a recording's group as their plan opens it
 * (cycles leads and samples; the other five are read with each sample):
 * the same deltas give the categories of W = 6 and W = 8, on each
 * function's sums. Values by hand, exact to 1e-9. */
static void check_amd(const char *family, double w)
{
	const struct tdr_td_family *fam = tdr_topdown_family(family);
	const char *names[6];
	struct fx *f;
	struct synth_sid sid = fx_sid(0, 11, 1);
	struct tdr_report *r = NULL;
	const struct tdr_report_row *a, *b, *t;
	/* cycles, no_ops_from_frontend, backend_stalls, smt_contention,
	 * de_src_op_disp.all, ex_ret_ops (cumulative). A gets {1000, 600,
	 * 1800, 300, 3900, 3000} then {1000, 0, 3000, 600, 2400, 2400}; B
	 * gets {500, 1500, 600, 150, 700, 750}: more retired than dispatched. */
	const uint64_t v1[] = {1000, 600, 1800, 300, 3900, 3000};
	const uint64_t v2[] = {1500, 2100, 2400, 450, 4600, 3750};
	const uint64_t v3[] = {2500, 2100, 5400, 1050, 7000, 6150};
	size_t off;

	assert_non_null(fam);
	assert_int_equal(tdr_td_family__event_cnt(fam, false), 6);
	for (size_t i = 0; i < 6; i++)
		names[i] = tdr_td_family__event(fam, false, i)->name;
	assert_string_equal(names[0], "cycles");
	f = fx_new_events(names, 6, 0, TDR_META_INHERIT, true);
	assert_int_equal(tdr_meta__add_family_categories(&f->meta, fam, 0), 5);
	f->meta.plan_name = strdup(family);
	assert_int_equal(tdr_report__new(&f->meta, NULL, &r), 0);
	off = synth_mmap(&f->b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0,
			 "/usr/bin/app", NULL, 0, &sid);
	assert_int_equal(tdr_parser__feed(f->p, 0, synth_rec(&f->b, off), to_report, r), 0);
	feed_sample(f, r, 100, FX_IP_A, v1);
	feed_sample(f, r, 200, FX_IP_B, v2);
	feed_sample(f, r, 300, FX_IP_A, v3);
	finish(r);
	a = fx_row(r, "func_a", NULL);
	b = fx_row(r, "func_b", NULL);
	t = tdr_report__totals(r);
	assert_non_null(a);
	assert_non_null(b);
	/* func_a sums {2000, 600, 4800, 900, 6300, 5400}: slots 2000 W. */
	assert_true(fabs(a->topdown[cat_idx(r, "retiring")] - 5400 / (2000 * w)) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "bad-spec")] - 900 / (2000 * w)) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "fe-bound")] - 600 / (2000 * w)) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "be-bound")] - 4800 / (2000 * w)) < 1e-9);
	assert_true(fabs(a->topdown[cat_idx(r, "smt-contention")] - 900 / (2000 * w)) < 1e-9);
	/* func_b: bad speculation (700 - 750) / 500 W, below 0 and flagged. */
	assert_true(fabs(b->topdown[cat_idx(r, "bad-spec")] + 50 / (500 * w)) < 1e-9);
	assert_true(tdr_category_out_of_range(b->topdown[cat_idx(r, "bad-spec")]));
	assert_true(fabs(b->topdown[cat_idx(r, "fe-bound")] - 1500 / (500 * w)) < 1e-9);
	/* Slots are W * cycles: A has 2000 of 2500. */
	assert_true(fabs(a->slots_share - 0.8) < 1e-9);
	/* Totals {2500, 2100, 5400, 1050, 7000, 6150}. */
	assert_true(fabs(t->topdown[cat_idx(r, "retiring")] - 6150 / (2500 * w)) < 1e-9);
	assert_true(fabs(t->topdown[cat_idx(r, "bad-spec")] - 850 / (2500 * w)) < 1e-9);
	assert_true(fabs(t->topdown[cat_idx(r, "smt-contention")] - 1050 / (2500 * w)) < 1e-9);
	tdr_report__free(r);
	fx_free(f);
}

static void test_synth__amd_zen4_and_zen5_per_function(void **state)
{
	(void)state;
	check_amd("amd-zen4", 6);
	check_amd("amd-zen5", 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_synth__arm_v2_products_per_function),
	    cmocka_unit_test(test_synth__amd_zen4_and_zen5_per_function),
	    cmocka_unit_test(test_synth__level1_per_function),
	    cmocka_unit_test(test_synth__level2_with_derived_categories),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
