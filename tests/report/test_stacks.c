/*
 * tests/report/test_stacks.c - --children, --callers, --callees on hand-made stacks.
 *
 * Samples with callers (struct tdr_frame, return addresses) go through
 * tdr_report__add_sample and the fake symbolizer of report_fixture.c. The
 * expected rows are worked out by hand below: a sample counts once per
 * distinct function on its stack (recursion included), callers are looked
 * up one byte before their return address, and the edge views split the
 * function's samples and TopDown deltas exactly.
 *
 * Functions: main [0x1000,0x1100), compute [0x1100,0x1200), hash_blocks
 * [0x1200,0x1300) in /usr/bin/app; foo [0x500,0x600) in /lib/libfoo.so.
 * Stacks (innermost first), samples, deltas (slots, ret, bad, fe, be):
 *   A: foo 0x510 <- ret 0x1151 (compute) <- ret 0x1021 (main)   3 x (100, 50, 0, 10, 40)
 *   B: compute 0x1180 <- ret 0x1031 (main)                      2 x (100, 80, 0, 0, 20)
 *   C: main 0x1050                                              1 x (100, 100, 0, 0, 0)
 *   D: hash_blocks 0x1210 <- ret 0x1221 (hash_blocks) <- 0x1041 2 x (100, 0, 0, 0, 100)
 *   E: foo 0x520 <- ret 0x1200 (first byte of hash_blocks: the caller is
 *      compute, whose last instruction is the call) <- ret 0x1011 (main)
 *                                                               1 x (100, 0, 0, 100, 0)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "json_mini.h"
#include "report_fixture.h"

static const struct tdr_mapping map_app = {.path = "/usr/bin/app", .kind = TDR_MAP_FILE};
static const struct tdr_mapping map_lib = {.path = "/lib/libfoo.so", .kind = TDR_MAP_FILE};

static const struct fx_sym_entry syms_table[] = {
    {"/usr/bin/app", 0x1000, 0x1100, TDR_SYM_OK, "main", NULL, NULL, 0},
    {"/usr/bin/app", 0x1100, 0x1200, TDR_SYM_OK, "compute", NULL, NULL, 0},
    {"/usr/bin/app", 0x1200, 0x1300, TDR_SYM_OK, "hash_blocks", NULL, NULL, 0},
    {"/lib/libfoo.so", 0x500, 0x600, TDR_SYM_OK, "foo", NULL, NULL, 0},
};

static void add(struct tdr_report *r, const struct tdr_mapping *map, uint64_t off,
		const uint64_t *callers, uint32_t ncallers, const uint64_t *d, int times)
{
	struct tdr_frame f[4];
	struct tdr_sample s = {
	    .pid = 1, .tid = 1, .comm = "app", .map = map, .map_off = off,
	    .ip = 0x400000 + off, .cpumode = TDR_MODE_USER, .deltas = d, .frames = f,
	    .frame_cnt = ncallers,
	};

	for (uint32_t i = 0; i < ncallers; i++)
		f[i] = (struct tdr_frame){.ip = 0x400000 + callers[i], .cpumode = TDR_MODE_USER,
					  .map = &map_app, .map_off = callers[i]};
	for (int i = 0; i < times; i++) {
		s.time_ns = 1000 + (uint64_t)i;
		assert_int_equal(tdr_report__add_sample(r, &s), 0);
	}
}

static struct tdr_report *build(struct fx_meta *m, enum tdr_report_stacks mode, const char *func)
{
	static const uint64_t dA[EV_L1_CNT] = {100, 0, 50, 0, 10, 40};
	static const uint64_t dB[EV_L1_CNT] = {100, 0, 80, 0, 0, 20};
	static const uint64_t dC[EV_L1_CNT] = {100, 0, 100, 0, 0, 0};
	static const uint64_t dD[EV_L1_CNT] = {100, 0, 0, 0, 0, 100};
	static const uint64_t dE[EV_L1_CNT] = {100, 0, 0, 0, 100, 0};
	const uint64_t cA[] = {0x1151, 0x1021}, cB[] = {0x1031}, cD[] = {0x1221, 0x1041},
		       cE[] = {0x1200, 0x1011};
	struct tdr_report_opts o;
	struct fx_syms fs;
	struct tdr_report *r;

	tdr_report_opts__init(&o);
	o.stacks = mode;
	o.stack_func = func;
	o.min_samples = 0;
	fx_meta_l1(m);
	r = fx_report(m, &o);
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	add(r, &map_lib, 0x510, cA, 2, dA, 3);
	add(r, &map_app, 0x1180, cB, 1, dB, 2);
	add(r, &map_app, 0x1050, NULL, 0, dC, 1);
	add(r, &map_app, 0x1210, cD, 2, dD, 2);
	add(r, &map_lib, 0x520, cE, 2, dE, 1);
	assert_int_equal(tdr_report__resolve(r, &fs.rs), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	return r;
}

static void near(double got, double want)
{
	if (fabs(got - want) > 1e-12)
		fail_msg("got %.15g, want %.15g", got, want);
}

static const struct tdr_report_row *row(const struct tdr_report *r, const char *name,
					uint64_t samples, uint64_t self)
{
	const struct tdr_report_row *w = fx_row(r, name, NULL);

	if (!w)
		fail_msg("no row %s", name);
	if (w->samples != samples || w->self_samples != self)
		fail_msg("%s: %llu samples (self %llu), want %llu (self %llu)", name,
			 (unsigned long long)w->samples, (unsigned long long)w->self_samples,
			 (unsigned long long)samples, (unsigned long long)self);
	return w;
}

static void test_stacks__children(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = build(&m, TDR_STACKS_CHILDREN, NULL);
	const struct tdr_report_row *w;

	(void)state;
	assert_int_equal(tdr_report__totals(r)->samples, 9);
	assert_int_equal(tdr_report__row_cnt(r), 4);
	/* main: every stack; its TopDown is that of all 9 samples. */
	w = row(r, "main", 9, 1);
	near(w->share, 1.0);
	near(w->self_share, 1.0 / 9);
	assert_int_equal(w->events[EV_SLOTS], 900);
	near(w->topdown[CAT_RET], 410.0 / 900);
	near(w->topdown[CAT_FE], 130.0 / 900);
	near(w->topdown[CAT_BE], 360.0 / 900);
	near(w->slots_share, 1.0);
	/* compute: A, B and E (E's caller at 0x1200 is looked up at 0x11ff). */
	w = row(r, "compute", 6, 2);
	near(w->share, 6.0 / 9);
	assert_int_equal(w->events[EV_SLOTS], 600);
	near(w->topdown[CAT_RET], 310.0 / 600);
	near(w->topdown[CAT_FE], 130.0 / 600);
	near(w->topdown[CAT_BE], 160.0 / 600);
	row(r, "foo", 4, 4);
	/* hash_blocks is twice on D's stacks: counted once. */
	w = row(r, "hash_blocks", 2, 2);
	assert_int_equal(w->events[EV_SLOTS], 200);
	near(w->topdown[CAT_BE], 1.0);
	/* sorted by inclusive slots */
	assert_string_equal(tdr_report__row(r, 0)->name, "main");
	assert_string_equal(tdr_report__row(r, 1)->name, "compute");
	assert_int_equal(tdr_report__stack_samples(r), 8);
	tdr_report__free(r);
}

static void test_stacks__callers(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = build(&m, TDR_STACKS_CALLERS, "compute");
	const struct tdr_report_row *w;

	(void)state;
	assert_int_equal(tdr_report__stack_samples(r), 6);
	assert_int_equal(tdr_report__totals(r)->samples, 6);
	assert_int_equal(tdr_report__totals(r)->events[EV_SLOTS], 600);
	assert_int_equal(tdr_report__row_cnt(r), 1);
	w = row(r, "main", 6, 6);
	near(w->share, 1.0);
	near(w->topdown[CAT_BE], 160.0 / 600);
	tdr_report__free(r);

	r = build(&m, TDR_STACKS_CALLERS, "foo");
	assert_int_equal(tdr_report__row_cnt(r), 1);
	row(r, "compute", 4, 4);
	tdr_report__free(r);

	r = build(&m, TDR_STACKS_CALLERS, "main");
	assert_int_equal(tdr_report__row_cnt(r), 1);
	row(r, "[no caller]", 9, 9);
	tdr_report__free(r);

	r = build(&m, TDR_STACKS_CALLERS, "nothing");
	assert_int_equal(tdr_report__stack_samples(r), 0);
	assert_int_equal(tdr_report__row_cnt(r), 0);
	tdr_report__free(r);
}

static void test_stacks__callees(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = build(&m, TDR_STACKS_CALLEES, "main");
	const struct tdr_report_row *w;

	(void)state;
	assert_int_equal(tdr_report__totals(r)->samples, 9);
	assert_int_equal(tdr_report__row_cnt(r), 3);
	w = row(r, "compute", 6, 6);
	near(w->share, 6.0 / 9);
	near(w->topdown[CAT_RET], 310.0 / 600);
	near(w->slots_share, 600.0 / 900);
	w = row(r, "hash_blocks", 2, 2);
	near(w->topdown[CAT_BE], 1.0);
	w = row(r, "[self]", 1, 1);
	near(w->topdown[CAT_RET], 1.0);
	tdr_report__free(r);

	/* Recursion: hash_blocks calls itself only: all [self]. */
	r = build(&m, TDR_STACKS_CALLEES, "hash_blocks");
	assert_int_equal(tdr_report__row_cnt(r), 1);
	row(r, "[self]", 2, 2);
	tdr_report__free(r);

	r = build(&m, TDR_STACKS_CALLEES, "compute");
	assert_int_equal(tdr_report__row_cnt(r), 2);
	row(r, "foo", 4, 4);
	row(r, "[self]", 2, 2);
	tdr_report__free(r);
}

/* The views in JSON and CSV carry what the text shows. */
static void test_stacks__json_and_csv(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = build(&m, TDR_STACKS_CHILDREN, NULL);
	char *text = fx_render(r, TDR_FMT_JSON, false, 0);
	struct jm *j = fx_json(text);
	const struct jm *rows = jm_get(j, "rows"), *st = jm_get(j, "stacks");
	bool seen = false;

	(void)state;
	assert_non_null(st);
	assert_string_equal(jm_get(st, "view")->str, "children");
	assert_int_equal(jm_get(st, "function")->t, JM_NULL);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jm *w = jm_at(rows, i);

		if (strcmp(jm_get(w, "name")->str, "compute"))
			continue;
		seen = true;
		near(jm_get(w, "samples")->num, 6);
		near(jm_get(w, "self_samples")->num, 2);
		near(jm_get(w, "self_share")->num, 2.0 / 9);
		near(jm_get(jm_get(w, "topdown"), "be-bound")->num, 160.0 / 600);
	}
	assert_true(seen);
	jm_free(j);
	free(text);
	text = fx_render(r, TDR_FMT_CSV, false, 0);
	assert_non_null(strstr(text, ",self_samples,self_share\n"));
	assert_non_null(strstr(text, "row,compute,/usr/bin/app,"));
	free(text);
	text = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(text, "   incl   self "));
	assert_non_null(strstr(text, "children: samples, incl"));
	fx_assert_width(text, 100);
	free(text);
	tdr_report__free(r);

	r = build(&m, TDR_STACKS_CALLEES, "main");
	text = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(text, "callees of main"));
	assert_non_null(strstr(text, "[self]: the sample was taken in it"));
	free(text);
	text = fx_render(r, TDR_FMT_JSON, false, 0);
	j = fx_json(text);
	st = jm_get(j, "stacks");
	assert_string_equal(jm_get(st, "view")->str, "callees");
	assert_string_equal(jm_get(st, "function")->str, "main");
	near(jm_get(st, "stack_samples")->num, 9);
	assert_null(jm_get(jm_at(jm_get(j, "rows"), 0), "self_samples"));
	jm_free(j);
	free(text);
	tdr_report__free(r);

	/* The plan line keeps the recording's 9 samples; the 6 with compute
	 * on their stack, the view's whole, are said on a line of their own. */
	r = build(&m, TDR_STACKS_CALLERS, "compute");
	text = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(text, ", 9 samples"));
	assert_non_null(strstr(text, "compute is on the stack of 6 of 9 samples (66.7%)"));
	free(text);
	tdr_report__free(r);
}

/* Without callers: each row is its self; one warning says why. */
static void test_stacks__no_stacks_warns(void **state)
{
	struct fx_meta m;
	struct tdr_report_opts o;
	struct fx_syms fs;
	struct tdr_report *r;
	static const uint64_t d[EV_L1_CNT] = {100, 0, 50, 0, 10, 40};
	bool warned = false;

	(void)state;
	tdr_report_opts__init(&o);
	o.stacks = TDR_STACKS_CHILDREN;
	fx_meta_l1(&m);
	r = fx_report(&m, &o);
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	add(r, &map_app, 0x1050, NULL, 0, d, 5);
	assert_int_equal(tdr_report__resolve(r, &fs.rs), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	row(r, "main", 5, 5);
	for (size_t i = 0; i < tdr_report__warning_cnt(r); i++)
		warned |= strstr(tdr_report__warning(r, i), "no sample has a caller") != NULL;
	assert_true(warned);
	tdr_report__free(r);
}

/* Stack views are by function, and the edge views need their function. */
static void test_stacks__bad_options(void **state)
{
	struct fx_meta m;
	struct tdr_report_opts o;
	struct tdr_report *r = NULL;

	(void)state;
	fx_meta_l1(&m);
	tdr_report_opts__init(&o);
	o.stacks = TDR_STACKS_CHILDREN;
	o.by = TDR_BY_LINE;
	assert_int_equal(tdr_report__new(&m.meta, &o, &r), -EINVAL);
	o.by = TDR_BY_FUNCTION;
	o.stacks = TDR_STACKS_CALLERS;
	assert_int_equal(tdr_report__new(&m.meta, &o, &r), -EINVAL);
	assert_null(r);
	assert_string_equal(tdr_report_stacks_name(TDR_STACKS_CALLEES), "callees");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stacks__children),
		cmocka_unit_test(test_stacks__callers),
		cmocka_unit_test(test_stacks__callees),
		cmocka_unit_test(test_stacks__json_and_csv),
		cmocka_unit_test(test_stacks__no_stacks_warns),
		cmocka_unit_test(test_stacks__bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
